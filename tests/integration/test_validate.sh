#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `govlab validate --quick` against a stand-in platform whose counters a
# test process advances (APERF/MPERF, scaling_cur_freq, RAPL energy with
# wrap-around): every report section is filled, both arms ran, every knob
# is as found. Then a bare platform: what cannot be measured is named, and
# the run still succeeds.
. "$(dirname "$0")/../lib.sh"

P=$T_TMP/plat
OUT=$T_TMP/report
COUNTERS=$TOP/build/bpfgov-counters

# The knobs bpfgov may write (the counters move on their own).
knobs() {
	local c
	for c in $(seq 0 $(($(nr_possible_cpus) - 1))); do
		echo "cpu$c $(msr_file_read "$P/msr/$c/msr" $((0x774)))"
		cat "$P/sys/devices/system/cpu/cpu$c/cpufreq/scaling_min_freq" \
		    "$P/sys/devices/system/cpu/cpu$c/cpufreq/energy_performance_preference" \
		    "$P/sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us" \
		    "$P"/sys/devices/system/cpu/cpu$c/cpuidle/state*/disable 2>/dev/null
	done
}

lab_expect_fail "validate: unknown option" 2 "unknown option" validate --bogus
lab_expect_fail "validate: stray argument" 2 "unexpected argument" validate extra

# 1. Everything available.
seed_platform "$P" intel-active
knobs >"$T_TMP/knobs.before"
bg "$COUNTERS" --msr-root "$P/msr" --sysfs-root "$P/sys" --cpus "$(nr_possible_cpus)"
for i in $(seq 1 50); do
	[ "$(msr_file_read "$P/msr/0/msr" $((0xe7)))" -gt 0 ] && break
	sleep 0.1
done
"$LAB" validate --quick --out "$OUT" $(plat_roots "$P") >"$T_TMP/v.log" 2>&1
rc=$?
is "validate --quick exits 0" "$rc" 0
[ "$rc" = 0 ] || sed 's/^/#   /' "$T_TMP/v.log"
J=$OUT/report.json
check "report.md and report.json written" test -s "$OUT/report.md" -a -s "$J"
jqe() { jq -e "$1" "$J" >/dev/null; }
check "platform section: backend and reason" jqe '.platform.backend == "intel-hwp" and (.platform.backend_reason | length > 0) and .platform.cpufreq.driver == "intel_pstate"'
check "frequency from APERF/MPERF" jqe '.sources.frequency.source == "aperf-mperf"'
check "energy from powercap: package and core" jqe '.sources.energy.source == "powercap-rapl" and (.sources.energy.domains | index("package-0") != null) and (.sources.energy.domains | index("core") != null)'
check "plots drawn" jqe '.sources.plots.drawn'
check "nothing unmeasured" jqe '.not_measured == []'
for arm in governors bpfgov; do
	check "$arm: measured" jqe ".arms.$arm.measured and .arms.$arm.rounds == 1"
	check "$arm: impulse trials with frequency verdicts" jqe ".arms.$arm.impulse.trials == 3 and (.arms.$arm.impulse.stuck_at_min_10ms | type == \"number\") and .arms.$arm.impulse.pre_gap_khz > 0"
	check "$arm: periodic sweep with delivered frequency" jqe "(.arms.$arm.periodic | length == 3) and all(.arms.$arm.periodic[]; .packet_us > 0 and .khz > 0)"
	check "$arm: ping-pong 0/20/100/500 us with latency" jqe "([.arms.$arm.pingpong[].work_us] == [0,20,100,500]) and all(.arms.$arm.pingpong[]; .loops_per_s > 0 and .wake_latency_p99_us > 0)"
	check "$arm: package and core energy per workload" jqe "all(.arms.$arm.energy[]; .package_j > 0 and .core_j > 0 and .package_j < 1000)"
done
check "bpfgov raised the delivered frequency after the gap" jqe '.arms.bpfgov.impulse.post_gap_10ms_khz > .arms.governors.impulse.post_gap_10ms_khz'
check "restore section: every knob as found" jqe '.restore.restored and .restore.knobs_checked > 0 and .restore.changed == 0'
for sec in "## Platform" "## What was measured, and what was not" "## Impulse trials" \
	   "## Periodic load at 347 Hz" "## Ping-pong" "## Energy" "## Plots" "## Restore"; do
	check "report.md has '$sec'" grep -q "^$sec" "$OUT/report.md"
done
check "report.md: no section left unmeasured" bash -c "! grep -q 'not measured' '$OUT/report.md'"
check "SVG plots" test -s "$OUT/impulse.svg" -a -s "$OUT/periodic.svg" -a -s "$OUT/pingpong.svg"
kill "${BG_PIDS[@]}" 2>/dev/null
wait "${BG_PIDS[@]}" 2>/dev/null
BG_PIDS=()
knobs >"$T_TMP/knobs.after"
check "the stand-in knobs are as found" cmp -s "$T_TMP/knobs.before" "$T_TMP/knobs.after"
check "nothing left running or pinned" bash -c "[ ! -e '$PIN/cpu_state' ] && { '$GOV' status >/dev/null 2>&1; [ \$? = 3 ]; }"

# 2. A bare machine: no MSR driver, no cpufreq, no powercap, no gnuplot.
seed_platform "$P" nocpufreq
rm -rf "$P/msr" "$P/sys/class/powercap"
mkdir -p "$P/msr"	# an MSR root with no devices: the msr driver is not loaded
rm -rf "$OUT"
PATH=/usr/sbin:/sbin "$LAB" validate --quick --out "$OUT" $(plat_roots "$P") >"$T_TMP/v.log" 2>&1
is "bare: validate still exits 0" "$?" 0
check "bare: frequency named as not measured, with the reason" jqe '.sources.frequency.source == "none" and (.not_measured | any(test("modprobe msr")))'
check "bare: energy named as not measured, with the reason" jqe '.sources.energy.source == "none" and (.not_measured | any(test("powercap")))'
check "bare: plots named as not drawn, with the reason" jqe '(.sources.plots.drawn | not) and (.not_measured | any(test("gnuplot")))'
check "bare: the workloads still ran under both" jqe '.arms.governors.measured and .arms.bpfgov.measured and .arms.bpfgov.impulse.trials == 3'
check "bare: report.md says what was not measured" grep -q "Energy: no RAPL (powercap) here — no powercap" "$OUT/report.md"
check "bare: stdout says there is no RAPL, in one line" grep -q "^Energy: no RAPL (powercap) here (no powercap" "$T_TMP/v.log"
t_done
