#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Crash safety: the state journal. kill -9 of `start` with stand-in MSRs
# (--msr-root) and a stand-in sysfs (--sysfs-root), then `restore` or a new
# `start`, brings back the exact original bytes; a simulated actuator
# write failure (a knob made read-only mid-run) keeps the journal until
# `restore` succeeds; the run directory, lock, journal and pins are
# private; planted symlinks are not followed; non-root changes nothing.
. "$(dirname "$0")/../lib.sh"

# A private run directory (lock, journal, status): $BPFGOV_RUN_DIR.
export BPFGOV_RUN_DIR=$T_TMP/run
RUN=$BPFGOV_RUN_DIR
JNL=$RUN/journal
MSR=$T_TMP/msr
SYS=$T_TMP/sys

# MSR and sysfs stand-ins (tests/lib.sh): idle picks write PM QoS and the
# disable knobs of the menu governor.
seed() {
	rm -rf "$T_TMP/orig"
	seed_msr_standins "$MSR"
	seed_sysfs_standin "$SYS"
	mkdir -p "$T_TMP/orig"
	cp -a "$MSR" "$SYS" "$T_TMP/orig/"
}
same_as_orig() { diff -r "$MSR" "$T_TMP/orig/msr" >/dev/null && diff -r "$SYS" "$T_TMP/orig/sys" >/dev/null; }
changed() { ! same_as_orig; }
min_field() { echo $(( $(msr_file_read "$MSR/$1/msr" $((0x774))) & 0xff )); }
# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	local i n=$(( $1 * 10 ))
	shift
	for i in $(seq 1 "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}
CPUS=$(online_cpus)
# Load on every online CPU: a spin for the first second (floors rise), then
# ping-pong over all of them (idle picks change).
load() {
	local c
	for c in $CPUS; do
		bg taskset -c "$c" "$WORK" spin --cpu "$c" --duration 1 >/dev/null
	done
	pingpong_all "$1"
}
# journaled KIND CPU: the journal has a record of that kind for that CPU.
journaled() { grep -q "^$1 cpu=$2 " "$JNL" 2>/dev/null; }
all_journaled() {
	local c
	for c in $CPUS; do journaled msr "$c" && journaled file "$c" || return 1; done
}
START=(--msr-root "$MSR" --sysfs-root "$SYS")

# 1. kill -9, then `restore`.
seed
check "start with stand-in MSRs and sysfs comes up" gov_start "${START[@]}"
load 3
wait_for 8 all_journaled
check "the journal exists while knobs are changed" test -s "$JNL"
is "journal is mode 0600" "$(stat -c %a "$JNL")" 600
# Every online CPU: its floor (HWP_REQUEST) and its idle knobs were written,
# each journaled first with its original bytes.
for c in $CPUS; do
	check "cpu$c: journal records HWP_REQUEST's min field and its original" \
		grep -q "^msr cpu=$c reg=0x774 bits=7:0 orig=$(printf '%#04x' $((HWP_REQ & 0xff))) written=[a-z]* path=$MSR/$c/msr crc=" "$JNL"
	check "cpu$c: journal records an idle knob with its exact text (\"0\\n\" = 300a)" \
		grep -q "^file cpu=$c len=2 text=300a written=[a-z]* path=$SYS/devices/system/cpu/cpu$c/" "$JNL"
done
kill -9 "$GOV_PID"
gov_wait
check "after kill -9 the stand-ins are still changed" changed
check "the journal outlives the dead instance" test -s "$JNL"
"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
is "restore exits 0" "$?" 0
check "restore says how many it put back" grep -q "restored [0-9]* of [0-9]* register(s)/file(s) from the journal of pid" "$T_TMP/out"
check "exact original MSR and sysfs bytes are back after restore" same_as_orig
for c in $CPUS; do
	check "cpu$c: its MSR stand-in and sysfs knobs are back" bash -c \
		"cmp -s '$MSR/$c/msr' '$T_TMP/orig/msr/$c/msr' && diff -r '$SYS/devices/system/cpu/cpu$c' '$T_TMP/orig/sys/devices/system/cpu/cpu$c' >/dev/null"
done
check "restore removed the journal" test ! -e "$JNL"
check "restore removed the stale pins" test ! -e "$PIN/cpu_state"
"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
rc=$?
check "a second restore: nothing to restore, exit 0 (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q 'nothing to restore: no journal in $RUN' '$T_TMP/out'"

# 2. kill -9, then a new `start` finds the stale journal and restores first.
seed
check "start comes up (stale journal case)" gov_start "${START[@]}"
load 3
check "knobs change under load" wait_for 4 changed
sleep 0.3
kill -9 "$GOV_PID"
gov_wait
check "changed after kill -9" changed
# The new instance writes nothing itself (--no-floor --no-idle), so the
# stand-ins show what its journal restore did while it runs.
check "a second start comes up over the stale journal" gov_start "${START[@]}" --no-floor --no-idle --duration 3
# The stale pins answer `status` before the new instance has replaced them:
# wait for its restore line rather than for the pins.
wait_for 10 grep -q "left changed by a dead instance" "$GOV_LOG"
n=$(grep -c "left changed by a dead instance" "$GOV_LOG")
is "it says so in one line" "$n" 1
check "exact original bytes are back while the new start runs" same_as_orig
gov_wait
is "the new start exits 0" "$GOV_RC" 0
check "no journal left behind" test ! -e "$JNL"
check "still the original bytes after it stopped" same_as_orig

# 3. Simulated actuator write failure: a knob made read-only mid-run.
seed
check "start comes up (write failure case)" gov_start "${START[@]}" --no-floor
pingpong_all 8
# Make every changed idle knob read-only at once, then make sure one of
# them is still changed: a knob can flip back to its original between the
# diff and the chmod (halting picks toggle the polling states' disable).
changed_knobs() { diff -rq "$SYS" "$T_TMP/orig/sys" 2>/dev/null | awk '/^Files/{print $2}'; }
f=
for i in $(seq 1 100); do
	ro=$(changed_knobs)
	if [ -n "$ro" ]; then
		# shellcheck disable=SC2086
		chmod 0444 $ro
		sleep 0.2
		# One of those made read-only: a knob that changed meanwhile
		# is still writable.
		f=$(changed_knobs | grep -Fx -f <(printf '%s\n' $ro) | head -n1)
		[ -n "$f" ] && break
		# shellcheck disable=SC2086
		chmod 0644 $ro
	fi
	sleep 0.1
done
check "an idle knob was changed and made read-only ($f)" test -n "$f"
sleep 1.5
wait "${BG_PIDS[@]}" 2>/dev/null
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 1 when it cannot restore a knob" "$GOV_RC" 1
check "it names the failure and keeps the journal" \
	bash -c "grep -q 'cannot restore' '$GOV_LOG' && grep -q \"'govloader restore' retries\" '$GOV_LOG' && test -s '$JNL'"
"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
rc=$?
check "restore fails while the knob stays read-only (rc $rc, the journal needs an operator: 4), journal kept" \
	bash -c "[ $rc -eq 4 ] && grep -q 'read-only' '$T_TMP/out' && test -s '$JNL'"
# shellcheck disable=SC2086
[ -n "$ro" ] && chmod 0644 $ro
"$GOV" restore "${START[@]}" >/dev/null 2>&1
is "restore succeeds once the knob is writable again" "$?" 0
check "exact original bytes are back" same_as_orig
check "journal gone" test ! -e "$JNL"

# 4. A torn last record (crash during the append) is ignored; a journal
# with a corrupt record cannot be restored whole: it is kept where it is,
# every restore says so, and start refuses to run (it would journal the
# changed value as the original) until the user decides: restore --discard.
seed
mkdir -p "$RUN"
v=$(printf '%#018x' $(( HWP_REQ | 0x20 )))
line="msr cpu=0 reg=0x774 bits=7:0 orig=$(printf '%#04x' $((HWP_REQ & 0xff))) written=yes path=$MSR/0/msr"
crc() { printf '%s' "$1" | gzip -c | tail -c 8 | od -An -t x4 -N 4 | tr -d ' \n'; }
hdr="bpfgov-journal 2 pid=4242"
printf '%s crc=%s\n%s crc=%s\nmsr cpu=1 reg=0x774 bits=7:0 orig=0x' "$hdr" "$(crc "$hdr")" "$line" "$(crc "$line")" >"$JNL"
chmod 0600 "$JNL"
msr_file_write "$MSR/0/msr" $((0x774)) $(( HWP_REQ | 0x20 ))
"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
is "restore of a journal with a torn last line exits 0" "$?" 0
check "the whole record is restored, the torn one ignored" same_as_orig
printf '%s crc=%s\n%s crc=00000000\n' "$hdr" "$(crc "$hdr")" "$line" >"$JNL"
chmod 0600 "$JNL"
cp "$JNL" "$T_TMP/bad-journal"
msr_file_write "$MSR/1/msr" $((0x774)) $(( HWP_REQ | 0x20 ))
for n in first second; do
	"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
	rc=$?
	check "a corrupt record, $n restore: exit 4, the journal needs an operator (rc $rc)" [ "$rc" -eq 4 ]
	check "a corrupt record, $n restore: says so" \
		grep -q "$JNL: 1 corrupt record(s) cannot be restored (the other 0 are back); their knobs may still be changed" "$T_TMP/out"
	check "a corrupt record, $n restore: the journal is kept, as said, where it was" \
		bash -c "grep -q \"the journal $JNL is kept and 'start' refuses to run until it is resolved: check the knobs it names, then 'govloader restore --discard'\" '$T_TMP/out' && cmp -s '$JNL' '$T_TMP/bad-journal' && test ! -e '$JNL.bad'"
done
"$GOV" start "${START[@]}" --no-idle --duration 2 >"$T_TMP/out" 2>&1
rc=$?
check "start over it: refused, exit 4 (rc $rc)" [ "$rc" -eq 4 ]
check "start says why and what to do" \
	grep -q "start refused: the journal $JNL of a dead instance cannot be restored whole; 'govloader restore' says why, 'govloader restore --discard' drops it once you have checked its knobs" "$T_TMP/out"
check "start wrote nothing and kept the journal" \
	bash -c "cmp -s '$JNL' '$T_TMP/bad-journal' && test ! -e '$PIN/cpu_state'"
is "cpu1's changed value is still the one the user must check" "$(min_field 1)" $(( (HWP_REQ | 0x20) & 0xff ))
"$GOV" restore "${START[@]}" --discard >"$T_TMP/out" 2>&1
rc=$?
check "restore --discard: exit 0 (rc $rc), says where the journal went" \
	bash -c "[ $rc -eq 0 ] && grep -q 'discarded: the journal is moved to $JNL.discarded and never read again' '$T_TMP/out' && test ! -e '$JNL' && cmp -s '$JNL.discarded' '$T_TMP/bad-journal'"
check "start runs again once the user decided" gov_start "${START[@]}" --no-idle --no-floor --duration 1
gov_wait
is "that start exits 0" "$GOV_RC" 0
rm -f "$JNL.discarded"
# restore writes only the knobs bpfgov writes beneath the roots it is given
# (the crafted-journal corpus is test_journal_trust.sh): a record naming
# another path is refused.
echo "do not touch" >"$T_TMP/victim"
out1="file cpu=0 len=2 text=300a written=yes path=$T_TMP/victim"
out2="msr cpu=0 reg=0x774 bits=7:0 orig=0x08 written=yes path=$T_TMP/victim"
out3="file cpu=0 len=2 text=300a written=yes path=$SYS/../victim"
printf '%s crc=%s\n' "$hdr" "$(crc "$hdr")" >"$JNL"
for l in "$out1" "$out2" "$out3"; do printf '%s crc=%s\n' "$l" "$(crc "$l")" >>"$JNL"; done
chmod 0600 "$JNL"
"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
rc=$?
check "a record outside the roots: exit 4 (rc $rc), the journal kept" bash -c "[ $rc -eq 4 ] && test -s '$JNL'"
check "it names the path and the root" \
	grep -q "refused to write $T_TMP/victim (cpu 0): outside the sysfs root $SYS" "$T_TMP/out"
is "three refused, one line each" "$(grep -c 'refused to write' "$T_TMP/out")" 3
is "the file outside is untouched" "$(cat "$T_TMP/victim")" "do not touch"
"$GOV" restore "${START[@]}" --discard >/dev/null 2>&1
rm -f "$JNL.discarded"

# 5. restore while bpfgov runs is refused; the instance keeps running.
seed
check "start comes up (restore while running)" gov_start "${START[@]}" --duration 6
"$GOV" restore >"$T_TMP/out" 2>&1
rc=$?
check "restore refused while running (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'bpfgov is running (pid $GOV_PID)' '$T_TMP/out'"
check "the instance keeps running" kill -0 "$GOV_PID"

# 6. Hardening: modes of the run directory, lock, status, pins.
is "run directory is 0700" "$(stat -c %a "$RUN")" 700
is "lock is 0600" "$(stat -c %a "$RUN/lock")" 600
is "the loader's state map is pinned 0600" "$(stat -c %a "$PIN/loader_state")" 600
is "config origins file is 0600" "$(stat -c %a "$RUN/config")" 600
modes=$(stat -c %a "$PIN"/* | sort -u | tr '\n' ' ')
is "pinned maps are 0600" "$modes" "600 "
is "pin root is 0700" "$(stat -c %a "$PIN")" 700
"$GOV" stop >/dev/null 2>&1
gov_wait
check "original bytes after stop" same_as_orig

# 7. A planted symlink in the run directory is not followed.
chmod 0755 "$RUN"
echo "do not touch" >"$T_TMP/victim"
ln -s "$T_TMP/victim" "$JNL"
"$GOV" start "${START[@]}" --duration 1 >"$T_TMP/out" 2>&1
rc=$?
check "start refuses a journal that is a symlink: exit 4, it needs an operator (rc $rc)" [ "$rc" -eq 4 ]
is "the symlink's target is untouched" "$(cat "$T_TMP/victim")" "do not touch"
is "the run directory is forced back to 0700" "$(stat -c %a "$RUN")" 700
check "nothing was written" same_as_orig
rm -f "$JNL"
rm -rf "$T_TMP/rd" && ln -s "$T_TMP/victimdir" "$T_TMP/rd" && mkdir -p "$T_TMP/victimdir"
BPFGOV_RUN_DIR=$T_TMP/rd "$GOV" start "${START[@]}" --duration 1 >"$T_TMP/out" 2>&1
rc=$?
check "a run directory that is a symlink is refused (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'not a directory owned by' '$T_TMP/out' && [ -z \"\$(ls -A '$T_TMP/victimdir')\" ]"

# 8. The originals a decision may need are journaled at start (so that no
# decision waits for the disk); when the journal cannot be written (its
# filesystem is full) start refuses: no knob is written without its
# original on disk. floor_max=0 keeps every floor at its original.
seed
FULL=$T_TMP/full
mkdir -p "$FULL"
if mount -t tmpfs -o size=64k,mode=0700 tmpfs "$FULL" 2>/dev/null; then
	trap 'umount "$FULL" 2>/dev/null; t_cleanup' EXIT
	export BPFGOV_RUN_DIR=$FULL
	check "start comes up with its run directory on a small tmpfs" \
		gov_start "${START[@]}" --no-idle --set floor_max=0 --duration 15
	floors_journaled() {
		local c
		for c in $CPUS; do journaled msr "$c" || return 1; done
	}
	JNL=$FULL/journal
	check "every CPU's floor original is journaled before any write" floors_journaled
	JNL=$RUN/journal
	check "nothing written" same_as_orig
	"$GOV" stop >/dev/null 2>&1
	gov_wait
	is "stop exits 0" "$GOV_RC" 0
	check "no journal after the stop" bash -c "! test -e '$FULL/journal'"
	# Full but one page: the lock takes it (the config file, which
	# only warns, and the journal do not get one).
	dd if=/dev/zero of="$FULL/fill" bs=4k >/dev/null 2>&1
	truncate -s -4096 "$FULL/fill"
	"$GOV" start "${START[@]}" --no-idle --duration 5 >"$T_TMP/out" 2>&1
	rc=$?
	is "start exits 1 when the journal cannot be written" "$rc" 1
	check "it says why in one line" grep -q "cannot keep the state journal (No space left on device): stopping" "$T_TMP/out" ||
		sed 's/^/# /' "$T_TMP/out"
	check "original bytes are untouched" same_as_orig
	check "no journal left behind" bash -c "! test -e '$FULL/journal'"
	umount "$FULL"
	export BPFGOV_RUN_DIR=$RUN
fi

# 9. A driver shares HWP_REQUEST: it rewrites max, desired, EPP and the
# activity window while bpfgov runs (as intel_pstate does on a policy or
# profile change). At stop, and after kill -9 + restore, min is the
# original and every other field the driver's latest. TRIALS of each.
TRIALS=${CRASH_TRIALS:-20}
driver_once() { # CPU: one rewrite of every field but min
	local f=$MSR/$1/msr v
	v=$(msr_file_read "$f" $((0x774)))
	msr_file_write "$f" $((0x774)) $(( (v & 0xff) | ((30 + RANDOM % 10) << 8) |
		((RANDOM & 0xff) << 16) | ((RANDOM & 0xff) << 24) | ((RANDOM & 0x3ff) << 32) ))
}
driver() { # SECONDS: rewrites at random times on every CPU
	local end=$((SECONDS + $1)) c
	while [ $SECONDS -lt $end ]; do
		for c in $CPUS; do driver_once "$c"; done
		sleep 0.0$((RANDOM % 9 + 1))
	done
}
others() { local c; for c in $CPUS; do printf '%x ' $(( $(msr_file_read "$MSR/$c/msr" $((0x774))) & ~0xff )); done; }
mins() { local c; for c in $CPUS; do printf '%d ' "$(min_field "$c")"; done; }
want_mins=$(for c in $CPUS; do printf '%d ' $((HWP_REQ & 0xff)); done)
good_stop=0 good_kill=0 raised=0
for t in $(seq 1 "$TRIALS"); do
	for how in stop kill; do
		seed
		gov_start "${START[@]}" --no-idle || { diag "trial $t $how: start failed"; continue; }
		for c in $CPUS; do bg taskset -c "$c" "$WORK" spin --cpu "$c" --duration 1.5 >/dev/null; done
		driver 1
		[ "$(mins)" != "$want_mins" ] && raised=$((raised + 1))
		if [ "$how" = stop ]; then
			sleep 0.2
			latest=$(others)
			"$GOV" stop >/dev/null 2>&1
			gov_wait
		else
			kill -9 "$GOV_PID"
			gov_wait
			for c in $CPUS; do driver_once "$c"; done	# after the crash, too
			latest=$(others)
			"$GOV" restore "${START[@]}" >/dev/null 2>&1 || diag "trial $t: restore failed"
		fi
		wait "${BG_PIDS[@]}" 2>/dev/null
		BG_PIDS=()
		if [ "$(mins)" = "$want_mins" ] && [ "$(others)" = "$latest" ] && [ ! -e "$JNL" ]; then
			[ "$how" = stop ] && good_stop=$((good_stop + 1)) || good_kill=$((good_kill + 1))
		else
			diag "trial $t $how: min $(mins)(want $want_mins), others $(others)(want $latest)"
		fi
	done
done
check "the floor was raised under load in most runs ($raised of $((2 * TRIALS)))" [ "$raised" -ge "$TRIALS" ]
is "stop: min original, the driver's fields latest ($good_stop of $TRIALS)" "$good_stop of $TRIALS" "$TRIALS of $TRIALS"
is "kill -9 + restore: min original, the driver's fields latest ($good_kill of $TRIALS)" "$good_kill of $TRIALS" "$TRIALS of $TRIALS"

# 10. kill -9 at a random time, then a CPU goes away (unplugged: its msr
# device and sysfs directory gone) before restore: its knobs count as
# restored, restore needs no operator, and the next start runs.
good=0
gone=$(echo $CPUS | awk '{ print $NF }')
for t in $(seq 1 "$TRIALS"); do
	seed
	gov_start "${START[@]}" || { diag "trial $t: start failed"; continue; }
	load 2
	sleep 0.$((RANDOM % 9))$((RANDOM % 10))
	kill -9 "$GOV_PID"
	gov_wait
	wait "${BG_PIDS[@]}" 2>/dev/null
	BG_PIDS=()
	rm -rf "${MSR:?}/$gone" "$SYS/devices/system/cpu/cpu$gone"
	"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
	rc=$?
	"$GOV" start "${START[@]}" --duration 1 >"$T_TMP/out2" 2>&1
	rc2=$?
	if [ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ ! -e "$JNL" ] &&
	   cmp -s "$MSR/0/msr" "$T_TMP/orig/msr/0/msr"; then
		good=$((good + 1))
		grep -q "cpu $gone is offline or gone: counts as restored" "$T_TMP/out" && said=1
	else
		diag "trial $t: restore rc $rc, start rc $rc2: $(tr '\n' '|' <"$T_TMP/out" | head -c 300)"
	fi
done
is "kill -9 with a CPU gone: restore without an operator and the next start runs ($good of $TRIALS)" "$good of $TRIALS" "$TRIALS of $TRIALS"
check "restore says the gone CPU's knobs count as restored" [ "${said:-0}" = 1 ]
# An offline CPU (online = 0, directories kept) is the same.
seed
gov_start "${START[@]}" && load 2
kill -9 "$GOV_PID"
gov_wait
echo 0 >"$SYS/devices/system/cpu/cpu$gone/online"
rm -rf "${MSR:?}/$gone"
"$GOV" restore "${START[@]}" >"$T_TMP/out" 2>&1
rc=$?
check "an offline CPU: restore exits 0 (rc $rc), its knobs counted as restored" \
	bash -c "[ $rc = 0 ] && grep -q 'cpu $gone is offline or gone' '$T_TMP/out' && test ! -e '$JNL'"
wait "${BG_PIDS[@]}" 2>/dev/null
BG_PIDS=()

# 11. Non-root: one line naming the capabilities, nothing changed.
seed
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	for cmd in "start --duration 1" "stop" "set headroom_pct=150" "restore"; do
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$GOV" $cmd >/dev/null 2>"$T_TMP/err"
		rc=$?
		check "non-root '${cmd%% *}': one line, needs root (CAP_BPF, CAP_SYS_ADMIN), rc $rc" \
			bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q '${cmd%% *} needs root (CAP_BPF, CAP_SYS_ADMIN)' '$T_TMP/err'"
	done
	check "nothing changed by non-root commands" same_as_orig
fi
t_done
