#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A journal cannot widen what bpfgov may write. `govloader restore` takes
# its roots from its own command line, never from the journal, and writes
# a record only when it names one of the knobs bpfgov writes (HWP_REQUEST
# or CPPC_REQ and its min field on <msr root>/<cpu>/msr; scaling_min_freq,
# energy_performance_preference, pm_qos_resume_latency_us or
# cpuidle/stateK/disable of that CPU under the sysfs root), resolved
# beneath the root. A corpus of crafted journals (foreign roots in the
# header, "..", symlinked components leaving the root, a magic link,
# foreign MSR numbers and fields, /proc/sys paths, cgroup files, other
# sysfs files), each in the current format and in the older one: every
# one is refused, named, and nothing anywhere changes (every file of the
# tree and outside it compared). Controls: the allowed knobs are written.
# No BPF is loaded, but `restore` takes the machine lock as every
# instance does: run it as the live suites are run, one at a time.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
JNL=$BPFGOV_RUN_DIR/journal
R=$T_TMP/r
M=$R/msr
S=$R/sys
O=$T_TMP/outside
C=$S/devices/system/cpu
PINS=$T_TMP/pins
mkdir -p "$BPFGOV_RUN_DIR" "$PINS"
chmod 0700 "$BPFGOV_RUN_DIR"

crc() { printf '%s' "$1" | gzip -c | tail -c 8 | od -An -t x4 -N 4 | tr -d ' \n'; }
PWNED=50574e45440a	# "PWNED\n"

# The tree: stand-ins for two CPUs' MSRs and sysfs, files bpfgov never
# writes beside them, and links that leave the root.
mkdir -p "$M/0" "$M/1" "$O/msr2" "$R/proc/sys/kernel" "$S/fs/cgroup/user.slice" \
	"$S/kernel/mm/transparent_hugepage" "$S/module/msr/parameters" "$C/cpuidle" \
	"$C/cpufreq/policy0" "$O/cpu2/power" "$O/cpu2/cpufreq" "$O/power3" "$O/policy5"
for c in 0 1; do
	truncate -s $((8 * 0x775)) "$M/$c/msr"
	msr_file_write "$M/$c/msr" $((0x774)) "$HWP_REQ"
	mkdir -p "$C/cpu$c/power" "$C/cpu$c/cpuidle/state0" "$C/cpu$c/cpuidle/state3"
	echo 0 >"$C/cpu$c/power/pm_qos_resume_latency_us"
	echo 0 >"$C/cpu$c/cpuidle/state0/disable"
	echo 0 >"$C/cpu$c/cpuidle/state3/disable"
	echo 1 >"$C/cpu$c/online"
done
ln -s ../cpufreq/policy0 "$C/cpu0/cpufreq"	# beneath the root: fine
echo 800000 >"$C/cpufreq/policy0/scaling_min_freq"
echo balance_performance >"$C/cpufreq/policy0/energy_performance_preference"
echo 3000000 >"$C/cpufreq/policy0/scaling_max_freq"
echo powersave >"$C/cpufreq/policy0/scaling_governor"
echo menu >"$C/cpuidle/current_governor"
echo acpi_idle >"$C/cpuidle/current_driver"
echo "|/usr/lib/core" >"$R/proc/sys/kernel/core_pattern"
echo 1 >"$S/fs/cgroup/cgroup.procs"
echo "max 100000" >"$S/fs/cgroup/user.slice/cpu.max"
echo "always [madvise] never" >"$S/kernel/mm/transparent_hugepage/enabled"
echo default >"$S/module/msr/parameters/allow_writes"
echo "do not touch" >"$T_TMP/victim"
truncate -s $((8 * 0x775)) "$O/msr2/msr"
echo 0 >"$O/cpu2/power/pm_qos_resume_latency_us"
echo 0 >"$O/cpu2/cpufreq/scaling_min_freq"
echo 0 >"$O/power3/pm_qos_resume_latency_us"
echo 0 >"$O/policy5/scaling_min_freq"
ln -s "$O/cpu2" "$C/cpu2"				# absolute: leaves the root
mkdir -p "$C/cpu3" "$C/cpu4/power" "$C/cpu5" "$M/3"
ln -s ../../../../../../outside/power3 "$C/cpu3/power"	# relative, leaves
ln -s "$T_TMP/victim" "$C/cpu4/power/pm_qos_resume_latency_us"	# last component
ln -s /proc/self/cwd "$C/cpu5/cpufreq"			# a magic link
ln -s "$O/msr2" "$M/2"
ln -s "$T_TMP/victim" "$M/3/msr"
mkdir -p "$O/state7" && echo 0 >"$O/state7/disable"
ln -s ../../../../../../../outside/state7 "$C/cpu0/cpuidle/state7"	# leaves, below a knob's name

# Every file's size and content (sparse MSR stand-ins grown by a write to
# a far register show in the size).
snapshot() {
	find "$R" "$O" "$T_TMP/victim" -type f -printf '%p %s\n' | sort
	find "$R" "$O" "$T_TMP/victim" -type f -size -1024k -exec md5sum {} + | sort
}

# v2 records (the current format) and v1 records (an older bpfgov's, whose
# header named its roots: here foreign ones).
v2_file() { echo "file cpu=$1 len=6 text=$PWNED written=yes path=$2"; }
v2_msr() { echo "msr cpu=$1 reg=$2 bits=$3 orig=0x55 written=yes path=$4"; }
v1_file() { echo "file cpu=$1 len=6 text=$PWNED path=$2"; }
v1_msr() { echo "msr cpu=$1 reg=$2 val=0x5555555555555555 path=$4"; }
# journal VERSION RECORD...: a journal sealed as bpfgov seals it. The v1
# header names the roots an attacker wants (the whole test tree).
journal() {
	local v=$1 hdr l
	shift
	if [ "$v" = 1 ]; then
		hdr="bpfgov-journal 1 pid=4242 msr_root=$T_TMP sysfs_root=$T_TMP"
	else
		hdr="bpfgov-journal 2 pid=4242"
	fi
	printf '%s crc=%s\n' "$hdr" "$(crc "$hdr")" >"$JNL"
	for l in "$@"; do printf '%s crc=%s\n' "$l" "$(crc "$l")" >>"$JNL"; done
	chmod 0600 "$JNL"
}
restore() { (cd "$O/policy5" && "$GOV" restore --msr-root "$M" --sysfs-root "$S" --pin-root "$PINS") >"$T_TMP/out" 2>&1; }

# The crafted cases: KIND CPU WHAT PATH [REG BITS] (one record each).
CASES=(
	"file|0|a file outside both roots|$T_TMP/victim"
	"file|0|/proc/sys beside the sysfs root|$R/proc/sys/kernel/core_pattern"
	"file|0|.. out of the sysfs root|$S/../proc/sys/kernel/core_pattern"
	"file|0|.. inside a knob path|$C/cpu0/power/../../../../../proc/sys/kernel/core_pattern"
	"file|0|.. back to a knob|$C/cpu1/../cpu0/power/pm_qos_resume_latency_us"
	"file|0|a cgroup file|$S/fs/cgroup/cgroup.procs"
	"file|0|a cgroup limit|$S/fs/cgroup/user.slice/cpu.max"
	"file|0|a kernel knob under sysfs|$S/kernel/mm/transparent_hugepage/enabled"
	"file|0|msr.allow_writes|$S/module/msr/parameters/allow_writes"
	"file|0|a CPU's online file|$C/cpu0/online"
	"file|0|scaling_max_freq (not written by bpfgov)|$C/cpu0/cpufreq/scaling_max_freq"
	"file|0|scaling_governor|$C/cpu0/cpufreq/scaling_governor"
	"file|1|the cpuidle governor as another CPU's record (it is cpu 0's)|$C/cpuidle/current_governor"
	"file|0|the cpuidle driver|$C/cpuidle/current_driver"
	"file|1|another CPU's knob than the record's|$C/cpu0/power/pm_qos_resume_latency_us"
	"file|0|a double slash|$S//devices/system/cpu/cpu0/power/pm_qos_resume_latency_us"
	"file|0|a dot component|$S/./devices/system/cpu/cpu0/power/pm_qos_resume_latency_us"
	"file|0|a root with a suffix|${S}x/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us"
	"file|0|a state beyond the limit|$C/cpu0/cpuidle/state10/disable"
	"file|0|a state with a leading zero|$C/cpu0/cpuidle/state03/disable"
	"file|2|a CPU directory linked outside (absolute)|$C/cpu2/power/pm_qos_resume_latency_us"
	"file|2|cpufreq below a CPU linked outside|$C/cpu2/cpufreq/scaling_min_freq"
	"file|3|power linked outside (relative)|$C/cpu3/power/pm_qos_resume_latency_us"
	"file|4|the knob itself a symlink|$C/cpu4/power/pm_qos_resume_latency_us"
	"file|5|cpufreq a magic link (/proc/self/cwd)|$C/cpu5/cpufreq/scaling_min_freq"
	"file|0|a state directory linked outside|$C/cpu0/cpuidle/state7/disable"
	"file|0|an MSR device as a file record|$M/0/msr"
	"msr|0|MSR 0xc0000082 (LSTAR)|$M/0/msr|0xc0000082|7:0"
	"msr|0|MSR 0x1a0 (MISC_ENABLE)|$M/0/msr|0x1a0|7:0"
	"msr|0|MSR 0x772 (HWP_REQUEST_PKG)|$M/0/msr|0x772|7:0"
	"msr|0|MSR 0x770 (PM_ENABLE)|$M/0/msr|0x770|7:0"
	"msr|0|HWP_REQUEST's max field (bits 15:8)|$M/0/msr|0x774|15:8"
	"msr|0|CPPC_REQ's max field (bits 7:0)|$M/0/msr|0xc00102b3|7:0"
	"msr|0|HWP_REQUEST's top byte (bits 63:56)|$M/0/msr|0x774|63:56"
	"msr|0|an MSR file outside the root|$T_TMP/victim|0x774|7:0"
	"msr|1|another CPU's device than the record's|$M/0/msr|0x774|7:0"
	"msr|1|.. in the MSR path|$M/0/../1/msr|0x774|7:0"
	"msr|2|a CPU directory linked outside|$M/2/msr|0x774|7:0"
	"msr|3|the device a symlink|$M/3/msr|0x774|7:0"
	"msr|0|a sysfs file as an MSR record|$C/cpu0/power/pm_qos_resume_latency_us|0x774|7:0"
	"msr|0|/proc/sys as an MSR record|$R/proc/sys/kernel/core_pattern|0x774|7:0"
)
# The corpus is every case in both formats.
n=0
before=$(snapshot)
for v in 2 1; do
	for cs in "${CASES[@]}"; do
		IFS='|' read -r kind cpu what path reg bits <<<"$cs"
		# v1 records have no field: skip the field-only cases there
		[ "$v" = 1 ] && [ "$kind" = msr ] && { [ "$bits" != 7:0 ] || [ "$reg" = 0xc00102b3 ]; } && continue
		if [ "$kind" = msr ]; then
			journal "$v" "$("v${v}_msr" "$cpu" "$reg" "$bits" "$path")"
		else
			journal "$v" "$("v${v}_file" "$cpu" "$path")"
		fi
		restore
		rc=$?
		n=$((n + 1))
		after=$(snapshot)
		if [ "$rc" = 4 ] && grep -q "refused to write .*(cpu $cpu" "$T_TMP/out" &&
		   grep -q "1 record(s) refused" "$T_TMP/out" && [ "$after" = "$before" ] && [ -s "$JNL" ]; then
			ok "v$v crafted: $what: refused, named, nothing written, journal kept"
		else
			not_ok "v$v crafted: $what (rc $rc; $(head -c 400 "$T_TMP/out" | tr '\n' '|'))"
			diff <(echo "$before") <(echo "$after") | head -5 | sed 's/^/# /'
			before=$after
		fi
		rm -f "$JNL"
	done
done
diag "$n crafted journals"
check "at least 50 crafted journals ($n)" [ "$n" -ge 50 ]
is "0 writes anywhere over the corpus" "$(snapshot)" "$before"

# --discard of a crafted journal: refused records are still written nowhere.
journal 1 "$(v1_file 0 "$R/proc/sys/kernel/core_pattern")" "$(v1_msr 0 0xc0000082 7:0 "$M/0/msr")"
(cd "$O/policy5" && "$GOV" restore --discard --msr-root "$M" --sysfs-root "$S" --pin-root "$PINS") >"$T_TMP/out" 2>&1
rc=$?
check "restore --discard of a crafted journal: exit 0 (rc $rc), moved aside" \
	bash -c "[ $rc = 0 ] && test ! -e '$JNL' && test -s '$JNL.discarded'"
is "and nothing written" "$(snapshot)" "$before"
rm -f "$JNL.discarded"

# A record among good ones: the good ones are restored, the bad one refused.
msr_file_write "$M/0/msr" $((0x774)) $(( (HWP_REQ & ~0xff) | 0x20 ))
journal 2 "$(v2_msr 0 0x774 7:0 "$M/0/msr")" "$(v2_file 0 "$S/fs/cgroup/cgroup.procs")"
restore
rc=$?
is "a refused record among good ones: exit 4 (the journal needs an operator)" "$rc" 4
is "the good record is restored: min 0x55, the other fields as they were" \
	"$(printf '%#x' "$(msr_file_read "$M/0/msr" $((0x774)))")" "$(printf '%#x' $(( (HWP_REQ & ~0xff) | 0x55 )))"
is "the cgroup file is untouched" "$(cat "$S/fs/cgroup/cgroup.procs")" 1
rm -f "$JNL"

# Controls: the knobs bpfgov writes are written, through a link that stays
# beneath the root (cpu0/cpufreq -> ../cpufreq/policy0).
CTRL=(
	"$(v2_file 0 "$C/cpu0/power/pm_qos_resume_latency_us")"
	"$(v2_file 0 "$C/cpu0/cpufreq/scaling_min_freq")"
	"$(v2_file 0 "$C/cpu0/cpufreq/energy_performance_preference")"
	"$(v2_file 1 "$C/cpu1/cpuidle/state3/disable")"
	"$(v2_msr 1 0x774 7:0 "$M/1/msr")"
	"$(v2_file 0 "$C/cpuidle/current_governor")"
)
journal 2 "${CTRL[@]}"
restore
rc=$?
check "controls: restore exits 0 (rc $rc) and writes all six" \
	bash -c "[ $rc = 0 ] && grep -q 'restored 6 of 6' '$T_TMP/out'"
is "pm_qos_resume_latency_us written" "$(cat "$C/cpu0/power/pm_qos_resume_latency_us")" PWNED
is "scaling_min_freq written through the policy link" "$(cat "$C/cpufreq/policy0/scaling_min_freq")" PWNED
is "energy_performance_preference written" "$(cat "$C/cpufreq/policy0/energy_performance_preference")" PWNED
is "state3/disable written" "$(cat "$C/cpu1/cpuidle/state3/disable")" PWNED
is "the cpuidle governor written (--idle-governor's knob, journaled as cpu 0)" \
	"$(cat "$C/cpuidle/current_governor")" PWNED
is "HWP_REQUEST min written alone" "$(printf '%#x' "$(msr_file_read "$M/1/msr" $((0x774)))")" \
	"$(printf '%#x' $(( (HWP_REQ & ~0xff) | 0x55 )))"
t_done
