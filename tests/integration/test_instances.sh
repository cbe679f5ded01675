#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One instance per machine: registers, sysfs knobs and pins belong to the
# machine, not to a run directory. A second `start` with another run
# directory and another (or the same) pin root is refused in one line that
# names the first's pid, and nothing of the first is touched; `restore` and
# `stop` from another run directory leave it alone too. A dead instance's
# journal in another run directory blocks a new start until it is restored.
. "$(dirname "$0")/../lib.sh"

RUN_A=$T_TMP/run-a
RUN_B=$T_TMP/run-b
PIN_B=/sys/fs/bpf/bpfgov-instances-b
MSR=$T_TMP/msr
SYS=$T_TMP/sys
seed_msr_standins "$MSR"
seed_sysfs_standin "$SYS"
START=(--msr-root "$MSR" --sysfs-root "$SYS" --no-idle)
pins_of_a() { [ -e "$PIN/cpu_state" ] && [ -e "$PIN/tunables" ] && [ -e "$PIN/control" ]; }

export BPFGOV_RUN_DIR=$RUN_A
check "the first start comes up (run directory A, default pin root)" \
	gov_start "${START[@]}" --duration 60
A=$GOV_PID

# second_start DESC PIN-ROOT...: another run directory is refused.
second() {
	local d=$1 rc lines
	shift
	BPFGOV_RUN_DIR=$RUN_B "$GOV" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	lines=$(wc -l <"$T_TMP/err")
	check "$d: exit 1, one line naming pid $A (rc $rc, $lines line(s): $(head -c 200 "$T_TMP/err" | tr '\n' '|'))" \
		bash -c "[ $rc -eq 1 ] && [ $lines -eq 1 ]"
	check "$d: the first instance keeps its pins" pins_of_a
	check "$d: the first instance keeps running" kill -0 "$A"
	check "$d: no stale-pins removal was said" bash -c "! grep -q 'removing stale pins' '$T_TMP/out' '$T_TMP/err'"
}
second "start, another run directory and pin root" start "${START[@]}" --pin-root "$PIN_B" --duration 2
check "it names the first's pid and run directory" \
	grep -q "bpfgov is already running (pid $A); 'BPFGOV_RUN_DIR=$RUN_A govloader stop' first" "$T_TMP/err"
check "nothing was pinned under the second pin root" test ! -e "$PIN_B/cpu_state"
second "start, another run directory, the same pin root" start "${START[@]}" --duration 2
second "restore from another run directory" restore
check "restore says who runs" grep -q "bpfgov is running (pid $A); 'BPFGOV_RUN_DIR=$RUN_A govloader stop' restores everything" "$T_TMP/err"
second "restore --pin-root from another run directory" restore --pin-root "$PIN"
second "stop from another run directory" stop
check "stop says where the instance runs" \
	grep -q "bpfgov runs (pid $A) with another run directory; 'BPFGOV_RUN_DIR=$RUN_A govloader stop' stops it" "$T_TMP/err"
second "status from another run directory" status
check "status says where the instance runs" \
	grep -q "bpfgov runs (pid $A) with another run directory; 'BPFGOV_RUN_DIR=$RUN_A govloader stop' stops it" "$T_TMP/err"
BPFGOV_RUN_DIR=$RUN_A "$GOV" start "${START[@]}" --duration 2 >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "a second start in the same run directory: refused (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q \"bpfgov is already running (pid $A); 'govloader stop' first\" '$T_TMP/err'"
is "status of the first answers in its run directory" "$(status_get .pid)" "$A"
modes=$(stat -c '%a %U' /run/bpfgov.lock)
is "the machine lock is 0600, root's" "$modes" "600 root"
is "it names the owner, its run directory and PID namespace" "$(cat /run/bpfgov.lock | paste -sd' ')" \
	"$A $RUN_A $(readlink /proc/self/ns/pid)"
"$GOV" stop >/dev/null 2>&1
gov_wait
is "the first instance stops cleanly" "$GOV_RC" 0
check "the machine lock is emptied at a clean stop" test ! -s /run/bpfgov.lock

# A dead instance's journal in run directory A blocks a start elsewhere
# (it would journal A's changed values as originals) until it is restored.
check "an instance comes up in A again" gov_start "${START[@]}" --duration 60
A=$GOV_PID
kill -9 "$A"
gov_wait
crc() { printf '%s' "$1" | gzip -c | tail -c 8 | od -An -t x4 -N 4 | tr -d ' \n'; }
hdr="bpfgov-journal 2 pid=$A"
[ -e "$RUN_A/journal" ] || { printf '%s crc=%s\n' "$hdr" "$(crc "$hdr")" >"$RUN_A/journal"; chmod 0600 "$RUN_A/journal"; }
BPFGOV_RUN_DIR=$RUN_B "$GOV" start "${START[@]}" --pin-root "$PIN_B" --duration 2 >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "start elsewhere over a dead instance's journal: exit 1, one line (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q \"a dead instance (pid $A) left its journal $RUN_A/journal: run 'BPFGOV_RUN_DIR=$RUN_A govloader restore' first\" '$T_TMP/err'"
check "its journal is untouched" test -s "$RUN_A/journal"
BPFGOV_RUN_DIR=$RUN_A "$GOV" restore --msr-root "$MSR" --sysfs-root "$SYS" >"$T_TMP/out" 2>&1
is "restore in A (with A's roots) exits 0" "$?" 0
BPFGOV_RUN_DIR=$RUN_B "$GOV" start "${START[@]}" --pin-root "$PIN_B" --duration 1 >"$T_TMP/out" 2>&1
is "start elsewhere runs and exits 0 once A is restored" "$?" 0
check "it left no pins" test ! -e "$PIN_B/cpu_state"

t_done
