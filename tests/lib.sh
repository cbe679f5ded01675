# SPDX-License-Identifier: GPL-2.0
# Shared helpers for bpfgov's shell tests: TAP-style lines, a plain
# "N passed, N failed" summary, and start/stop of a governor under test.
# Source from a test with: . "$(dirname "$0")/../lib.sh"

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOV="$TOP/govloader"
LAB="$TOP/govlab"
WORK="$TOP/build/bpfgov-work"
PIN=/sys/fs/bpf/bpfgov
T_PASS=0
T_FAIL=0
T_N=0
T_TMP=$(mktemp -d /tmp/bpfgov-test.XXXXXX)
GOV_PID=
GOV_LOG="$T_TMP/start.log"
BG_PIDS=()

# Run the test's own commands on CPU0 so that CPU1, where the workloads
# are pinned, only shows what the workload does.
taskset -cp 0 $$ >/dev/null 2>&1 || true

ok()     { T_N=$((T_N + 1)); T_PASS=$((T_PASS + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $*"; }
# check "description" command...: passes when the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# is "description" actual expected
is() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', want '$3')"; fi; }
diag() { echo "# $*"; }
# quiet CMD...: CMD with its output discarded, for `check "..." quiet CMD`
# (a redirection after check would discard the check's own line).
quiet() { "$@" >/dev/null; }

t_cleanup() {
	local p j=${BPFGOV_RUN_DIR:-/run/bpfgov}/journal
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	if [ -n "$GOV_PID" ] && kill -0 "$GOV_PID" 2>/dev/null; then
		kill -TERM "$GOV_PID" 2>/dev/null
		wait "$GOV_PID" 2>/dev/null
	fi
	# A journal of this test's stand-ins that a failed check left behind
	# would stop every later start (exit 4): the check has failed already,
	# and the stand-ins go with $T_TMP.
	if [ -e "$j" ] && grep -qF "$T_TMP/" "$j" 2>/dev/null; then
		echo "# a journal of this test's stand-ins was left in ${j%/*}: discarded"
		"$GOV" restore --discard >/dev/null 2>&1
		rm -f "${j%/*}/journal.discarded"
	fi
	rm -rf "$T_TMP"
}
trap t_cleanup EXIT

t_done() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}

# gov_start ARGS...: start the governor in the background and wait until
# its pins exist and `status` answers (10 s). Returns non-zero otherwise.
gov_start() {
	local i pin=$PIN a prev=
	for a in "$@"; do
		[ "$prev" = "--pin-root" ] && pin=$a
		prev=$a
	done
	"$GOV" start "$@" >"$GOV_LOG" 2>&1 &
	GOV_PID=$!
	for i in $(seq 1 100); do
		# Pins appear at load, the control map is filled just after.
		if [ -e "$pin/cpu_state" ] &&
		   "$GOV" status --json --pin-root "$pin" 2>/dev/null | jq -e '.mode != "none"' >/dev/null; then
			return 0
		fi
		kill -0 "$GOV_PID" 2>/dev/null || break
		sleep 0.1
	done
	diag "start did not come up; its log:"
	sed 's/^/#   /' "$GOV_LOG"
	return 1
}

# gov_wait: wait for the background start to exit; sets GOV_RC.
gov_wait() {
	wait "$GOV_PID"
	GOV_RC=$?
	GOV_PID=
}

# status_get JQ-EXPR: one value from `status --json`.
status_get() { "$GOV" status --json 2>/dev/null | jq -r "$1"; }
# status_wait JQ-EXPR: until `status --json` satisfies it (10 s).
status_wait() {
	for i in $(seq 1 100); do
		"$GOV" status --json 2>/dev/null | jq -e "$1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

bg() { "$@" & BG_PIDS+=($!); }

# gov_fds PID: how many descriptors the loader holds (its sched_waking
# link included: attached for the whole run, so that two counts taken at
# any moments compare).
gov_fds() {
	local n
	n=$(ls /proc/"$1"/fd 2>/dev/null | wc -l)
	echo "$n"
}

nr_possible_cpus() {
	local r
	r=$(cat /sys/devices/system/cpu/possible)
	echo $(( ${r##*-} + 1 ))
}

# live_skip REASON: a live part that cannot run on this machine. Where it
# must run (TEST_LIVE=1: the guest of `make check-vm-idle`, which has a
# cpuidle driver), not running it is a failure.
live_skip() {
	if [ "${TEST_LIVE:-}" = 1 ]; then
		not_ok "the live part runs here (TEST_LIVE=1), but: $*"
	else
		diag "skip live part: $*"
	fi
}
# now_us: the wall clock in microseconds (no fork).
now_us() { local t=$EPOCHREALTIME; echo $(( ${t%.*} * 1000000 + 10#${t#*.} )); }
# cpuidle_us STATE: microseconds all online CPUs spent in cpuidle state STATE.
cpuidle_us() {
	local c t=0
	for c in $(online_cpus); do
		t=$((t + $(cat "/sys/devices/system/cpu/cpu$c/cpuidle/state$1/time")))
	done
	echo $t
}
# share USED_US SPAN_US: USED_US as a percentage of SPAN_US, two decimals.
share() { awk -v u="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? 100 * u / s : 0) }'; }

# online_cpus: the online CPU numbers, one a line.
online_cpus() {
	local r
	for r in $(tr ',' ' ' </sys/devices/system/cpu/online); do
		seq "${r%-*}" "${r#*-}"
	done
}
# pingpong_all SECONDS: token ping-pong with pairs pinned over every online
# CPU (short idle periods everywhere), in the background. The test's own
# shell runs on CPU0 alone (above), and --pin pins to the CPUs a process
# may use: widen that first, or both threads of a pair share CPU0, which
# then hardly idles.
pingpong_all() {
	local n
	n=$(online_cpus | wc -l)
	bg taskset -c "$(online_cpus | paste -sd,)" "$WORK" pingpong --pairs $(( (n + 1) / 2 )) \
		--pin --work-us 0 --duration "$1" >/dev/null
}

# MSR stand-ins: MSR X at byte offset 8*X, little endian.
msr_file_write() { # FILE MSR VALUE
	local f=$1 msr=$2 val=$3 i bytes=
	for i in 0 1 2 3 4 5 6 7; do
		bytes+=$(printf '\\x%02x' $(( (val >> (8 * i)) & 0xff )))
	done
	printf "$bytes" | dd of="$f" bs=1 seek=$((8 * msr)) conv=notrunc status=none
}
msr_file_read() { # FILE MSR -> decimal
	local hex
	hex=$(od -An -t x8 -j $((8 * $2)) -N 8 "$1" | tr -d ' \n')
	echo $((16#$hex))
}

# HWP stand-ins for every possible CPU under DIR: PM_ENABLE on,
# CAPABILITIES highest 40 / guaranteed 30 / efficient 10 / lowest 8,
# REQUEST min 8, max 40, EPP 0x80, window 0x2a.
HWP_LOWEST=8
HWP_CAPS=$(( 40 | (30 << 8) | (10 << 16) | (HWP_LOWEST << 24) ))
HWP_REQ=$(( HWP_LOWEST | (40 << 8) | (0x80 << 24) | (0x2a << 32) ))
seed_msr_standins() { # DIR
	seed_msr_regs "$1" $((0x774)) $((0x770))=1 $((0x771))="$HWP_CAPS" $((0x774))="$HWP_REQ"
}
# seed_msr_regs DIR LAST_MSR MSR=VALUE...: stand-in files for every
# possible CPU, large enough for LAST_MSR (sparse), with those registers.
seed_msr_regs() {
	local dir=$1 last=$2 c kv
	shift 2
	rm -rf "$dir"
	for c in $(seq 0 $(($(nr_possible_cpus) - 1))); do
		mkdir -p "$dir/$c"
		truncate -s $((8 * (last + 1))) "$dir/$c/msr"
		for kv in "$@"; do
			msr_file_write "$dir/$c/msr" "${kv%%=*}" "${kv#*=}"
		done
	done
}

# A sysfs stand-in under DIR: menu governor (honours stateK/disable), PM QoS
# files at 0, and the idle table of TABLE: a real machine's as `govlab
# synth --table` knows it (skl, spr, zen, haltpoll; its driver's name), or
# by default four states POLL/C1/C2/C3 of a made-up driver.
seed_sysfs_standin() { # DIR [TABLE]
	local root=$1 table=${2:-} c d k spec name lat res drv=fake govs specs=()
	if [ -n "$table" ]; then
		"$LAB" synth periodic --duration 0.01 --table "$table" -o "$T_TMP/table.trace" \
			>/dev/null 2>&1 || { echo "seed_sysfs_standin: no table '$table'" >&2; return 1; }
		mapfile -t specs < <(awk '/^state /{print $3, $4, $5} /^records/{exit}' "$T_TMP/table.trace")
		case $table in
		skl|spr) drv=intel_idle ;;
		zen) drv=acpi_idle ;;
		*) drv=$table ;;
		esac
	else
		specs=("POLL 0 0" "C1 2 2" "C2 50 150" "C3 200 800")
	fi
	rm -rf "$root"
	mkdir -p "$root/devices/system/cpu/cpuidle"
	echo menu >"$root/devices/system/cpu/cpuidle/current_governor"
	# the governors a kernel built with all four lists; haltpoll's is
	# there with the haltpoll driver
	if [ "$drv" = haltpoll ]; then govs="ladder menu teo haltpoll"; else govs="ladder menu teo"; fi
	echo "$govs" >"$root/devices/system/cpu/cpuidle/available_governors"
	echo "$drv" >"$root/devices/system/cpu/cpuidle/current_driver"
	for c in $(seq 0 $(($(nr_possible_cpus) - 1))); do
		d=$root/devices/system/cpu/cpu$c
		mkdir -p "$d/power"
		echo 0 >"$d/power/pm_qos_resume_latency_us"
		k=0
		for spec in "${specs[@]}"; do
			read -r name lat res <<<"$spec"
			mkdir -p "$d/cpuidle/state$k"
			echo "$name" >"$d/cpuidle/state$k/name"
			echo "$lat" >"$d/cpuidle/state$k/latency"
			echo "$res" >"$d/cpuidle/state$k/residency"
			echo 0 >"$d/cpuidle/state$k/disable"
			k=$((k + 1))
		done
	done
}

# bpffs_state: "mounted" when a bpf filesystem is mounted at /sys/fs/bpf
# (as seen from this mount namespace), else "unmounted".
bpffs_state() {
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ]; then echo mounted; else echo unmounted; fi
}

# bpffs_ns_wrapper STATE GOV: print the path of a command that runs GOV with
# bpffs at /sys/fs/bpf in STATE (mounted or unmounted) inside a private mount
# namespace of its own: both states are tested whatever this machine has,
# and nothing mounted or unmounted there reaches the machine. The command's
# first argument --bpffs-state-probe prints the state it sees instead.
bpffs_ns_wrapper() {
	local w=$T_TMP/gov-bpffs-$1
	unshare -m --propagation private true 2>/dev/null || return 1
	cat >"$w" <<WRAP
#!/bin/sh
exec unshare -m --propagation private /bin/sh -c '
	if [ "\$1" = mounted ]; then
		[ "\$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ] || mount -t bpf bpf /sys/fs/bpf || exit 97
	else
		while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf || exit 97; done
	fi
	gov=\$2
	shift 2
	if [ "\$1" = --bpffs-state-probe ]; then
		if [ "\$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ]; then echo mounted; else echo unmounted; fi
		exit 0
	fi
	exec "\$gov" "\$@"' sh "$1" "$2" "\$@"
WRAP
	chmod +x "$w"
	echo "$w"
}

# expect_fail "description" WANT_RC PATTERN ARGS...: govloader ARGS exits
# WANT_RC with exactly one stderr line matching PATTERN, leaves nothing
# running or pinned, and `unchanged` (a test may redefine it to compare its
# stand-ins) holds. lab_expect_fail: the same of govlab ARGS.
unchanged() { true; }
lab_expect_fail() { EXPECT_BIN=$LAB expect_fail "$@"; }
expect_fail() {
	local d=$1 want=$2 pat=$3 rc lines
	shift 3
	"${EXPECT_BIN:-$GOV}" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	lines=$(wc -l <"$T_TMP/err")
	if [ "$rc" = "$want" ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$T_TMP/err" &&
	   [ ! -e "$PIN/cpu_state" ] && [ "$("$GOV" status >/dev/null 2>&1; echo $?)" = 3 ] &&
	   unchanged; then
		ok "$d"
	else
		not_ok "$d (rc $rc, want $want; stderr: $(head -c 300 "$T_TMP/err" | tr '\n' '|'))"
	fi
}

# AMD CPPC stand-ins: CPPC_ENABLE on, CAP1 highest 200 / nominal 150 /
# lowest nonlinear 60 / lowest 20, CPPC_REQ max 200, min 20, EPP 0x80.
# The registers sit at 8*0xc00102b0 (~25 GB): sparse files.
CPPC_LOWEST=20
CPPC_CAP1=$(( 20 | (60 << 8) | (150 << 16) | (200 << 24) ))
CPPC_REQ=$(( 200 | (CPPC_LOWEST << 8) | (0x80 << 24) ))
seed_cppc_standins() { # DIR
	seed_msr_regs "$1" $((0xc00102b3)) $((0xc00102b1))=1 $((0xc00102b0))="$CPPC_CAP1" \
		$((0xc00102b3))="$CPPC_REQ"
}

# A whole stand-in platform under DIR: DIR/sys (sysfs), DIR/proc (cpuinfo,
# kallsyms, sys/kernel/tainted), DIR/msr (MSR files). KIND is one of
#   intel-active intel-passive amd-active amd-guided acpi nocpufreq
#   lockdown (intel active, lockdown [integrity]) allow-off (msr.allow_writes=off)
# cpufreq: 800000..4000000 kHz, scaling_min_freq 800000, EPP
# balance_performance, governor powersave (performance with GOVERNOR=...);
# intel_pstate/hwp_dynamic_boost 0 (1 with DYNBOOST=1).
PLAT_MIN_KHZ=800000
seed_platform() { # DIR KIND
	local d=$1 kind=$2 c vendor=GenuineIntel fam=6 model=151 flags drv= mode= f zone zname
	local gov=${GOVERNOR:-powersave}
	rm -rf "$d"
	seed_sysfs_standin "$d/sys"
	mkdir -p "$d/proc/sys/kernel" "$d/sys/kernel/security" "$d/sys/module/msr/parameters" \
		"$d/sys/kernel/btf"
	echo "0-$(($(nr_possible_cpus) - 1))" >"$d/sys/devices/system/cpu/possible"
	echo "0-$(($(nr_possible_cpus) - 1))" >"$d/sys/devices/system/cpu/online"
	echo "none [integrity] confidentiality" >"$d/sys/kernel/security/lockdown"
	[ "$kind" = lockdown ] || echo "[none] integrity confidentiality" >"$d/sys/kernel/security/lockdown"
	echo "default" >"$d/sys/module/msr/parameters/allow_writes"
	[ "$kind" = allow-off ] && echo "off" >"$d/sys/module/msr/parameters/allow_writes"
	echo 0 >"$d/proc/sys/kernel/tainted"
	: >"$d/sys/kernel/btf/vmlinux"
	printf 'ffffffff81000000 T _stext\n0000000000034a40 D runqueues\n' >"$d/proc/kallsyms"
	flags="fpu msr apic aperfmperf constant_tsc"
	case $kind in
	intel-active|lockdown|allow-off) drv=intel_pstate; mode=active ;;
	intel-passive) drv=intel_cpufreq; mode=passive ;;
	amd-active) drv=amd-pstate-epp; mode=active ;;
	amd-guided) drv=amd-pstate; mode=guided ;;
	acpi) drv=acpi-cpufreq ;;
	nocpufreq) ;;
	*) echo "seed_platform: unknown kind $kind" >&2; return 1 ;;
	esac
	case $kind in
	amd-*) vendor=AuthenticAMD fam=25 model=97 flags="$flags cppc" ;;
	*) flags="$flags hwp hwp_epp" ;;
	esac
	for c in $(seq 0 $(($(nr_possible_cpus) - 1))); do
		printf 'processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\nflags\t\t: %s\n\n' \
			"$c" "$vendor" "$fam" "$model" "$flags" >>"$d/proc/cpuinfo"
		[ -z "$drv" ] && continue
		f=$d/sys/devices/system/cpu/cpu$c/cpufreq
		mkdir -p "$f"
		echo "$drv" >"$f/scaling_driver"
		echo "$gov" >"$f/scaling_governor"
		echo 800000 >"$f/cpuinfo_min_freq"
		echo 4000000 >"$f/cpuinfo_max_freq"
		echo "$PLAT_MIN_KHZ" >"$f/scaling_min_freq"
		echo 4000000 >"$f/scaling_max_freq"
		echo 2000000 >"$f/scaling_cur_freq"
		echo 2000000 >"$f/base_frequency"
		case $drv in intel_pstate|amd-pstate-epp)
			echo balance_performance >"$f/energy_performance_preference"
			echo "default performance balance_performance balance_power power" \
				>"$f/energy_performance_available_preferences" ;;
		esac
	done
	[ "$drv" = intel_pstate ] || [ "$drv" = intel_cpufreq ] && {
		mkdir -p "$d/sys/devices/system/cpu/intel_pstate"
		echo "$mode" >"$d/sys/devices/system/cpu/intel_pstate/status"
		echo "${DYNBOOST:-0}" >"$d/sys/devices/system/cpu/intel_pstate/hwp_dynamic_boost"
	}
	case $drv in amd-pstate*)
		mkdir -p "$d/sys/devices/system/cpu/amd_pstate"
		echo "$mode" >"$d/sys/devices/system/cpu/amd_pstate/status" ;;
	esac
	# powercap: package and core, counters close to their wrap point
	for f in "intel-rapl:0 package-0" "intel-rapl:0:0 core"; do
		read -r zone zname <<<"$f"
		mkdir -p "$d/sys/class/powercap/$zone"
		echo "$zname" >"$d/sys/class/powercap/$zone/name"
		echo 5000000 >"$d/sys/class/powercap/$zone/max_energy_range_uj"
		echo 4990000 >"$d/sys/class/powercap/$zone/energy_uj"
	done
	case $kind in
	amd-*) seed_cppc_standins "$d/msr" ;;
	*) seed_msr_standins "$d/msr" ;;
	esac
}
# The roots of a stand-in platform, as options.
plat_roots() { echo --sysfs-root "$1/sys" --proc-root "$1/proc" --msr-root "$1/msr"; }

# power-profiles-daemon on a private system bus (dbus-daemon with a
# system-bus style config), its platform_profile driver on a stand-in ACPI
# platform_profile file (PPD's own UMOCKDEV_DIR sysfs prefix): writing
# that file is what a firmware hot key does, and PPD announces the new
# profile on D-Bus exactly as for `powerprofilesctl set`.
PPD=/usr/libexec/power-profiles-daemon
# ppd_bus BUSDIR FAKEROOT: the bus (exports DBUS_SYSTEM_BUS_ADDRESS) and
# the stand-in firmware file ($PPD_FW/platform_profile, balanced).
ppd_bus() {
	PPD_B=$1 PPD_FAKE=$2 PPD_FW=$2/sys/firmware/acpi
	mkdir -p "$PPD_B" "$PPD_FW"
	printf 'low-power balanced performance\n' >"$PPD_FW/platform_profile_choices"
	echo balanced >"$PPD_FW/platform_profile"
	cat >"$PPD_B/system.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$PPD_B/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
	dbus-daemon --config-file="$PPD_B/system.conf" --nofork --nopidfile >"$PPD_B/dbus.log" 2>&1 &
	BG_PIDS+=($!)
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$PPD_B/socket
	for i in $(seq 1 50); do [ -S "$PPD_B/socket" ] && break; sleep 0.1; done
}
# ppd_start: PPD on the bus, until it answers (PPD_PID).
ppd_start() {
	UMOCKDEV_DIR=$PPD_FAKE "$PPD" -v >>"$PPD_B/ppd.log" 2>&1 &
	PPD_PID=$!
	BG_PIDS+=($PPD_PID)
	for i in $(seq 1 100); do
		powerprofilesctl get >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
# ppd_fw PROFILE WANT: the firmware switches to PROFILE (as a hot key
# does); wait until PPD's active profile is WANT.
ppd_fw() {
	echo "$1" >"$PPD_FW/platform_profile"
	for i in $(seq 1 100); do
		[ "$(powerprofilesctl get 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
