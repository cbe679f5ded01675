#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `govlab validate --quick`: the same work under the machine's governors
# and under bpfgov, its completion time and RAPL energy per workload, and
# the ratios, read through --sysfs-root from a stand-in powercap tree whose
# energy_uj a background writer advances from the clock (package 6 W, core
# 3 W) and wraps at max_energy_range_uj (5 J: every 0.83 s for the package)
# several times a run. The energy of each workload is then 6 W times its
# completion time, which a wrong wrap would break. Then the same on an AMD
# part with no MSR driver (energy needs only sysfs), and a tree without
# powercap: one line says so and the work is still timed.
. "$(dirname "$0")/../lib.sh"

P=$T_TMP/plat
OUT=$T_TMP/report
COUNTERS=$TOP/build/bpfgov-counters
J=$OUT/report.json
jqe() { jq -e "$1" "$J" >/dev/null; }

# counters_up: the background writer, until its first energy_uj write.
counters_up() {
	local i e0
	e0=$(cat "$P/sys/class/powercap/intel-rapl:0/energy_uj" 2>/dev/null)
	bg "$COUNTERS" --msr-root "$P/msr" --sysfs-root "$P/sys" --cpus "$(nr_possible_cpus)"
	for i in $(seq 1 50); do
		[ ! -e "$P/sys/class/powercap/intel-rapl:0" ] && break
		[ "$(cat "$P/sys/class/powercap/intel-rapl:0/energy_uj")" != "$e0" ] && break
		sleep 0.1
	done
}
counters_down() {
	kill "${BG_PIDS[@]}" 2>/dev/null
	wait "${BG_PIDS[@]}" 2>/dev/null
	BG_PIDS=()
}
run_validate() { # NAME
	rm -rf "$OUT"
	"$LAB" validate --quick --out "$OUT" $(plat_roots "$P") >"$T_TMP/v.out" 2>"$T_TMP/v.err"
	rc=$?
	is "$1: validate --quick exits 0" "$rc" 0
	[ "$rc" = 0 ] || sed 's/^/#   /' "$T_TMP/v.out" "$T_TMP/v.err"
}
# The checks on the comparison when energy is measured: per workload both
# arms timed, energy = 6 W x time (within 5 % and 30 mJ), the energy ratio
# that of the times, and stdout's line the JSON's figures.
energy_checks() { # NAME
	local n=$1 wl
	check "$n: energy from powercap, package domain compared" \
		jqe '.sources.energy.source == "powercap-rapl" and .comparison.energy_domain == "package" and .comparison.energy_note == null'
	check "$n: the counters wrapped during the run (>= 4 wraps read)" jqe '.sources.energy.wraps >= 4'
	check "$n: read at most 300 ms apart in a workload, well inside a wrap" \
		jqe '.sources.energy.max_read_interval_ms > 0 and .sources.energy.max_read_interval_ms < 300'
	check "$n: three workloads compared" jqe '[.comparison.workloads[].workload] == ["impulse","periodic","pingpong"]'
	for wl in impulse periodic pingpong; do
		W=".comparison.workloads[] | select(.workload == \"$wl\")"
		check "$n: $wl: both arms timed, with the work done" \
			jqe "$W | .governors.seconds > 0.2 and .bpfgov.seconds > 0.2 and (.work | length > 10)"
		check "$n: $wl: energy = 6 W x completion time, both arms (wrap-around handled)" \
			jqe "$W | all(.governors, .bpfgov; ((.energy_j - 6 * .seconds) | fabs) < 0.05 * 6 * .seconds + 0.03)"
		check "$n: $wl: ratios bpfgov / governors, energy's that of time" \
			jqe "$W | (.time_ratio - .bpfgov.seconds / .governors.seconds | fabs) < 0.002 and (.energy_ratio - .time_ratio | fabs) < 0.05 * .time_ratio + 0.01"
		check "$n: $wl: one round, no run-to-run spread" jqe "$W | .spread_time_pct == null and .spread_energy_pct == null"
		line=$(grep -E "^  $wl " "$T_TMP/v.out")
		check "$n: $wl: stdout has both arms' s and J and both ratios" \
			bash -c "grep -qE 'governors [0-9.]+ s [0-9.]+ J  bpfgov [0-9.]+ s [0-9.]+ J  time [0-9.]+  energy [0-9.]+$' <<<'$line'"
		ratio=$(jq -r "$W | .time_ratio * 1000 | round" "$J")
		got=$(sed -nE 's/.* time ([0-9.]+) .*/\1/p' <<<"$line" | awk '{ printf "%d", $1 * 1000 + 0.5 }')
		check "$n: $wl: stdout's time ratio is the JSON's ($got vs $ratio /1000)" \
			test "$(( got - ratio ))" -le 1 -a "$(( ratio - got ))" -le 1
		check "$n: $wl: report.md row with s / J for both and both ratios" \
			grep -qE "^\| $wl \| .* \| [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+ \| - / - \|$" "$OUT/report.md"
	done
	check "$n: stdout: the comparison's heading" grep -q "^The same work under both (completion s, RAPL energy J; bpfgov / governors):" "$T_TMP/v.out"
	check "$n: stdout: no 'no RAPL' line" bash -c "! grep -q 'no RAPL' '$T_TMP/v.out'"
	check "$n: report.md: the comparison section" grep -q "^## Energy and completion time: the same work under both" "$OUT/report.md"
	check "$n: per-arm JSON: package and core per run, 6 and 3 W" \
		jqe 'all(.arms[].energy[]; (.package_j / .seconds - 6 | fabs) < 0.5 and (.core_j / .seconds - 3 | fabs) < 0.3)'
}

# 1. Intel, HWP active, every source there.
seed_platform "$P" intel-active
counters_up
run_validate intel
energy_checks intel
check "intel: the replay model of intel_pstate active is hwp-auto" \
	jqe '.comparison.replay_model == "hwp-auto" and (.comparison.replay_model_why | test("intel_pstate active"))'
check "intel: stdout names the replay model" grep -q "^Replay's model of these governors: hwp-auto" "$T_TMP/v.out"
# 30 windows of ~1 ms of work, as calibrated at the start: timed, whatever
# the machine's speed did since (a calibration on a busy CPU shortens them)
check "intel: impulse post-gap work timed in both arms" jqe 'all(.arms[]; .impulse.post_gap_work_ms > 10)'
counters_down

# 2. AMD, amd-pstate active, no MSR driver: energy still measured.
seed_platform "$P" amd-active
rm -rf "$P/msr"
mkdir -p "$P/msr"
counters_up
run_validate amd-no-msr
check "amd-no-msr: no MSR driver: frequency from scaling_cur_freq" jqe '.sources.frequency.source == "scaling_cur_freq"'
energy_checks amd-no-msr
check "amd-no-msr: the replay model of amd-pstate active is hwp-auto" \
	jqe '.comparison.replay_model == "hwp-auto" and (.comparison.replay_model_why | test("amd-pstate active"))'
counters_down

# 3. No powercap: one line says so; the work is still timed.
seed_platform "$P" intel-active
rm -rf "$P/sys/class/powercap"
counters_up
run_validate no-rapl
check "no-rapl: stdout says so in one line" bash -c "[ \$(grep -c '^Energy: no RAPL (powercap) here' '$T_TMP/v.out') = 1 ]"
check "no-rapl: report.md says so" grep -q "Energy: no RAPL (powercap) here" "$OUT/report.md"
check "no-rapl: JSON: no energy domain, the note" \
	jqe '.comparison.energy_domain == null and .comparison.energy_note == "Energy: no RAPL (powercap) here" and .sources.energy.source == "none"'
check "no-rapl: JSON: completion times and their ratio, no energy" \
	jqe 'all(.comparison.workloads[]; .governors.seconds > 0.2 and .bpfgov.seconds > 0.2 and .time_ratio > 0 and .energy_ratio == null and .governors.energy_j == null and .bpfgov.energy_j == null)'
for wl in impulse periodic pingpong; do
	check "no-rapl: stdout: $wl timed under both, with the time ratio" \
		grep -qE "^  $wl +governors [0-9.]+ s  bpfgov [0-9.]+ s  time [0-9.]+$" "$T_TMP/v.out"
done
check "no-rapl: stdout heading without energy" grep -q "^The same work under both (completion s; bpfgov / governors):" "$T_TMP/v.out"
counters_down
check "no-rapl: no cpuidle states in the stand-in: stdout says so in one line" \
	bash -c "[ \$(grep -c '^Idle states: no cpuidle driver here' '$T_TMP/v.out') = 1 ]"
check "no-rapl: JSON: idle axes null, the note" \
	jqe '(.comparison.idle_states_note | test("no cpuidle driver")) and all(.comparison.workloads[]; .bpfgov.poll_ms_per_s == null)'

# 4. The idle axes where RAPL is missing: time polling, time halted and
# halts, from cpuidle's own counters (a stand-in POLL + halt table whose
# state0 time grows 10 ms, state1 time 20 ms and usage 50 a second per
# CPU, written by a clock-driven loop).
seed_platform "$P" intel-active
rm -rf "$P/sys/class/powercap"
NCPU=$(nr_possible_cpus)
for c in $(seq 0 $((NCPU - 1))); do
	for k in 0 1; do
		d=$P/sys/devices/system/cpu/cpu$c/cpuidle/state$k
		mkdir -p "$d"
		if [ "$k" = 0 ]; then echo POLL >"$d/name"; else echo HALT >"$d/name"; fi
		echo 0 >"$d/time"; echo 0 >"$d/usage"
	done
done
# A counter is overwritten in place, never empty, as sysfs gives it:
# `echo > file` truncates first, and a read in between finds the file
# empty. Fixed width (zero-padded), so no truncation is needed; one
# write by a builtin, so the counters of a step change together.
put() { printf '%012d\n' "$2" 1<>"$1"; }
idle_writer() {
	local t0 ms c
	t0=$(date +%s%N)
	while :; do
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		for c in $(seq 0 $((NCPU - 1))); do
			d=$P/sys/devices/system/cpu/cpu$c/cpuidle
			put "$d/state0/time" $((ms * 10))	# us: 10 ms a second
			put "$d/state1/time" $((ms * 20))
			put "$d/state1/usage" $((ms / 20))
		done
		sleep 0.05
	done
}
idle_writer &
IW=$!
counters_up
run_validate idle
kill "$IW" 2>/dev/null; wait "$IW" 2>/dev/null
check "idle: stdout has the idle axes" grep -q "^Idle states per second of work, all CPUs (poll ms, halt ms, halts):" "$T_TMP/v.out"
for wl in impulse periodic pingpong; do
	check "idle: stdout: $wl's idle axes under both" \
		grep -qE "^  $wl +governors [0-9.]+ / [0-9.]+ / [0-9]+  bpfgov [0-9.]+ / [0-9.]+ / [0-9]+$" "$T_TMP/v.out"
done
# per CPU 10 ms polled, 20 ms halted and 50 halts a second: every write
# keeps poll : halt at 1 : 2 and halts per halted ms at 2.5, whatever the
# writer's pace on a loaded machine; the rates themselves within 3x
jq -c '[.comparison.workloads[] | [.workload, .governors.poll_ms_per_s, .governors.halt_ms_per_s,
	.governors.halts_per_s, .bpfgov.poll_ms_per_s]]' "$J" | sed 's/^/# idle axes: /'
check "idle: JSON: poll, halt and halts per second follow the counters" \
	jqe "all(.comparison.workloads[]; all(.governors, .bpfgov;
		.poll_ms_per_s > 0 and (.halt_ms_per_s / .poll_ms_per_s - 2 | fabs) < 0.1 and
		(.halts_per_s / .halt_ms_per_s - 2.5 | fabs) < 0.5 and
		.poll_ms_per_s > 10 * $NCPU / 3 and .poll_ms_per_s < 10 * $NCPU * 3))"
check "idle: report.md has the idle table" grep -q "governors: poll ms / halt ms / halts" "$OUT/report.md"
counters_down
check "nothing left running or pinned" bash -c "[ ! -e '$PIN/cpu_state' ] && { '$GOV' status >/dev/null 2>&1; [ \$? = 3 ]; }"
t_done
