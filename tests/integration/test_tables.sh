#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Idle tables of real machines through the loader (--sysfs-root): intel_idle's
# nine Skylake client states (POLL C1 C1E C3 C6 C7s C8 C9 C10) under menu.
# Every state is read, status and dump show nine, the ninth state's disable
# knob (C10) follows the picks and comes back byte for byte. A table of ten
# states (CPUIDLE_STATE_MAX) is taken; one of eleven is refused at start in
# one line, nothing changed.
. "$(dirname "$0")/../lib.sh"

NCPU=$(nr_possible_cpus)
CPUS=$(online_cpus)
SYS=$T_TMP/sys
seed_sysfs_standin "$SYS" skl
cp -a "$SYS" "$T_TMP/sys.orig"
is "the skl stand-in has nine states" \
	"$(ls -d "$SYS"/devices/system/cpu/cpu0/cpuidle/state* | wc -l)" 9

# 1. Nine states, the ninth's knob tracked and restored.
check "start --sysfs-root (skl, menu, 9 states) comes up" \
	gov_start --sysfs-root "$SYS" --no-floor --duration 60
is "status: nine idle states" "$(status_get .tunables.nr_states)" 9
is "status: the table's nine states, C10 last (890/5000 us)" \
	"$(status_get '[.idle_states | length, .[8].exit_latency_us, .[8].residency_us] | join(",")')" \
	9,890,5000
is "status: every CPU has nine wake-up costs" \
	"$(status_get '[.cpus[].wake_cost_us | length] | unique | join(",")')" 9
"$GOV" status >"$T_TMP/status.txt" 2>&1
check "status (text) lists nine states, C10 last" \
	grep -q "^idle states: 9 .* 8:890/5000$" "$T_TMP/status.txt"
"$GOV" dump >"$T_TMP/dump.txt" 2>&1
check "dump: nr_states = 9" grep -Eq '\.nr_states = \(__u32\)9\b' "$T_TMP/dump.txt"
# (arrays print one element a line: compared without white space)
check "dump: the nine residencies, C10's 5000 us last" \
	grep -q '\.state_residency_us=(__u32\[16\])\[0,2,20,100,200,800,800,5000,5000,0,' \
	<(tr -d ' \t\n' <"$T_TMP/dump.txt")
# Short idles everywhere: shallow picks disable the deep states, C10 too.
pingpong_all 20
knob8() { cat "$SYS/devices/system/cpu/cpu$1/cpuidle/state8/disable"; }
seen=
for i in $(seq 1 150); do
	for c in $CPUS; do
		[ "$(knob8 "$c")" = 1 ] && seen="$seen $c"
	done
	[ -n "$seen" ] && break
	sleep 0.1
done
check "a shallow pick disables C10 (state8/disable = 1 on cpu${seen:- none})" [ -n "$seen" ]
kill "${BG_PIDS[@]}" 2>/dev/null
wait "${BG_PIDS[@]}" 2>/dev/null
BG_PIDS=()
sleep 1.2	# status is published once a second
p=$(status_get '[.cpus[].idle_pick] | max')
check "picks stay within the table (highest $p)" [ "$p" -le 8 ]
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0 (skl)" "$GOV_RC" 0
for c in $(seq 0 $((NCPU - 1))); do
	is "cpu$c: state8/disable is restored" "$(knob8 "$c")" 0
done
check "the whole skl stand-in is restored byte for byte" diff -r "$SYS" "$T_TMP/sys.orig"

# 2. Ten states (CPUIDLE_STATE_MAX): a made-up state past C10 on every CPU.
add_state() { # K NAME LAT RES: one more state on every CPU
	local c d
	for c in $(seq 0 $((NCPU - 1))); do
		d=$SYS/devices/system/cpu/cpu$c/cpuidle/state$1
		mkdir -p "$d"
		echo "$2" >"$d/name"; echo "$3" >"$d/latency"; echo "$4" >"$d/residency"
		echo 0 >"$d/disable"
	done
}
add_state 9 X9 1200 10000
cp -a "$SYS" "$T_TMP/sys10.orig"
check "start with ten states comes up" gov_start --sysfs-root "$SYS" --no-floor --duration 30
is "status: ten idle states" "$(status_get .tunables.nr_states)" 10
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0 (ten states)" "$GOV_RC" 0
check "the ten-state stand-in is restored byte for byte" diff -r "$SYS" "$T_TMP/sys10.orig"

# 3. Eleven states: refused whole, in one line, nothing written.
add_state 10 X10 2000 20000
cp -a "$SYS" "$T_TMP/sys11.orig"
unchanged() { diff -r "$SYS" "$T_TMP/sys11.orig" >/dev/null; }
expect_fail "eleven idle states are refused at start, machine unchanged" 2 \
	"has more than 10 idle states" start --sysfs-root "$SYS" --no-floor --duration 5
t_done
