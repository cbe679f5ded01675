#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# No measurement, no verdict: the bench reports, fed with empty and partial
# results, print "not measured" (counted as not met) for every goal whose
# data is missing, never "met" on a figure that defaulted to 0:
#   tests/vm/bench-report.sh and bench-smp-report.sh (make bench-vm logs),
#   tests/bench/judge.sh (the replay judge's goals, replay.json),
#   tests/bench/live.sh (the live idle judge's goals, live.json).
# The governor-share goal of bench-vm is judged on the seconds the loader
# samples wake-ups; the mean over its cycle is weighted by the loader's own
# constants (user/daemon/loop.c).
. "$(dirname "$0")/../lib.sh"
set -o pipefail

VM=$TOP/tests/vm
D=$T_TMP/logs
mkdir -p "$D"
K='# kernel 7.3.4+deb13-cloud-amd64, 2 CPUs, groups:  bench'

# goal_rows FILE: the goal rows of a markdown report, "goal | measured | result".
goal_rows() { sed -n '/^Goals/,$p' "$1" | grep '^| ' | grep -v '^| goal \|^|---'; }
# unmeasured_met FILE: goal rows that read "met" on a figure that is n/a.
unmeasured_met() { goal_rows "$1" | grep 'n/a' | grep '\*\*met\*\*'; }

# 1. bench-report.sh (one boot): a log with no BR/BL lines, then one with
# the pinned ping-pong alone (no BL lines: the loader was not measured).
echo "$K" >"$D/empty.log"
{
	echo "$K"
	echo "# bench: 1 rounds x 1 s"
	echo "BR 1 default pin 1000"
	echo "BR 1 trace pin 950"
	echo "BR 1 scx pin 940"
} >"$D/part.log"
for l in empty part; do
	bash "$VM/bench-report.sh" "$D/$l.log" >"$D/$l.md" 2>"$D/$l.err"
	is "bench-report, $l log: exits 0 with a report" "$?" 0
	check "bench-report, $l log: a goals table of 6 rows" [ "$(goal_rows "$D/$l.md" | wc -l)" = 6 ]
	check "bench-report, $l log: the loader's CPU row is not measured" \
		grep -q '^| loader ≤ 1% of one CPU .*| \*\*not measured\*\* (not met) |$' "$D/$l.md"
	check "bench-report, $l log: the decisions/s row is not measured" \
		grep -q '^| ≤ 50 decisions/s per CPU .*| \*\*not measured\*\* (not met) |$' "$D/$l.md"
	check "bench-report, $l log: every workload's row is not measured" \
		grep -q '^| scx mode ≥ 0.90× default on every workload .*| \*\*not measured\*\* (not met) |$' "$D/$l.md"
	is "bench-report, $l log: no goal is met on a missing figure" "$(unmeasured_met "$D/$l.md")" ""
	check "bench-report, $l log: no '0.00 %' loader figure" bash -c "! grep -q '| 0.00 % ' '$D/$l.md'"
done
check "bench-report, part log: the measured goal keeps its verdict (scx pin 0.94 met)" \
	grep -q '^| pinned ping-pong, scx mode ≥ 0.90× default | 0.94 | \*\*met\*\* |$' "$D/part.md"

# 2. bench-smp-report.sh: the same logs, and the governor's share.
for l in empty part; do
	bash "$VM/bench-smp-report.sh" "$D/$l.log" >"$D/smp-$l.md" 2>"$D/smp-$l.err"
	is "bench-smp-report, $l log: exits 0 with a report" "$?" 0
	check "bench-smp-report, $l log: the loader's row is not measured" \
		grep -q '^| loader ≤ 1 % .*\*\*not measured\*\* (not met) |$' "$D/smp-$l.md"
	check "bench-smp-report, $l log: the governor's share is not measured" \
		grep -q "^| governor's share ≤ 300 .*\*\*not measured\*\* (not met) |$" "$D/smp-$l.md"
	check "bench-smp-report, $l log: every throughput workload: not measured" \
		grep -q '^| ≥ 0.95× default on every throughput workload .*\*\*not measured\*\* (not met) |$' "$D/smp-$l.md"
	is "bench-smp-report, $l log: no goal is met on a missing figure" "$(unmeasured_met "$D/smp-$l.md")" ""
done
# Stamped seconds 308, the others 279 per hop (the figures of the miss):
# judged on the stamped seconds, not met; the cycle mean is a reference
# weighted by the loader's constants.
on=$(awk '$2 == "WAKE_SAMPLE_ON" { print $3 }' "$TOP/user/daemon/loop.c")
per=$(awk '$2 == "WAKE_SAMPLE_PERIOD" { print $3 }' "$TOP/user/daemon/loop.c")
{
	cat "$D/part.log"
	echo "BS sched-only bpfgov_running:pin 300 1000"
	echo "BS scx bpfgov_running:pin 608 1000"
	echo "BS scx-quiet bpfgov_running:pin 579 1000"
} >"$D/share.log"
bash "$VM/bench-smp-report.sh" "$D/share.log" >"$D/smp-share.md" 2>&1
check "governor's share: judged on the sampled seconds (308 > 300: not met)" \
	grep -q "^| governor's share ≤ 300 .*| 308 \*\*not met\*\* |$" "$D/smp-share.md"
mean=$(awk -v a=308 -v b=279 -v s="$on" -v p="$per" 'BEGIN { printf "%.0f", (s * a + (p - s) * b) / p }')
check "governor's share over the cycle: a reference weighted $on/$per from user/daemon/loop.c ($mean)" \
	grep -q "^| reference: the governor's share over the loader's cycle ($on s sampled in $per s, user/daemon/loop.c) | $mean (sampled seconds 308, others 279) |$" "$D/smp-share.md"
check "the goal changed after a miss says so, with its earlier wording" \
	grep -q "^A goal changed after a miss, with its earlier wording: .*over the loader's 16 s cycle.*308 against 300" "$D/smp-share.md"

# 3. The replay judge (judge.sh) and the floor judge: a replay.json whose
# scenarios lack bpfgov's columns, and one with no scenario at all.
OUT=$T_TMP/bench
mkdir -p "$OUT"
. "$TOP/tests/bench/lib.sh"
. "$TOP/tests/bench/report.sh"
. "$TOP/tests/bench/judge.sh"
. "$TOP/tests/bench/live.sh"
scen() { # NAME: a scenario with the kernel models and none of bpfgov's columns
	jq -n --arg n "$1" '{name: $n, title: $n, p: {menu: {e: 1, l: 2, v: null}, teo: {e: 1, l: 2},
		ladder: {e: 1, l: 2}, haltpoll: {e: 1, l: 2}},
		f: {schedutil: {cps: 5, fe: 1, fd: 1}, "hwp-auto": {fe: 1, fd: 1}, "hwp-passive": {fe: 1, fd: 1},
		    "hwp-3/4": {fe: 1, fd: 1}, "hwp-7/8": {fe: 1, fd: 1}, "hwp-1": {fe: 1, fd: 1, floor: 100}}}'
}
for case in partial none; do
	if [ $case = partial ]; then
		S=$(jq -s . <(scen impulse) <(scen periodic-100) <(scen pingpong-0))
	else
		S='[]'
	fi
	jq -n --argjson s "$S" '{available: true, governor: "menu", kernel: ["menu", "teo", "ladder", "haltpoll"],
		haltpoll_ns: "0", tables: [{table: "vm", scenarios: $s}, {table: "truthful", scenarios: $s}]}' >"$OUT/replay.json"
	judge_goal_rows >"$D/judge-$case.tsv" 2>"$D/judge-$case.err"
	floor_goal_rows >"$D/floor-$case.tsv" 2>>"$D/judge-$case.err"
	check "judge, $case replay.json: the goal rows come out (no jq error)" \
		[ "$(wc -l <"$D/judge-$case.tsv")" -ge 10 -a ! -s "$D/judge-$case.err" ]
	is "judge, $case replay.json: rows met without bpfgov's figures" \
		"$(awk -F'\t' '$3 != "not measured"' "$D/judge-$case.tsv" "$D/floor-$case.tsv" | cut -f1,3)" ""
	check "judge, $case replay.json: the balanced energy sum is not a 0" \
		bash -c "! grep -q '^\[vm\] balanced: energy above oracle.*	0 vs' '$D/judge-$case.tsv'"
done

# 4. The live judge (live.sh): rows measured, nothing compared.
jq -n '{driver: "acpi_idle", governor: "menu", measurable: true, rounds: 1, verdicts: [],
	rows: [{config: "bpfgov-balanced", workload: "quiet", perf: null, poll_pct: 0.2}]}' >"$OUT/live.json"
live_goal_rows >"$D/live.tsv" 2>&1
check "live: 'dominated by no kernel governor' with nothing compared is not measured" \
	grep -q $'^live: balanced dominated by no kernel governor on any workload\tno verdict (nothing compared, or a figure missing)\tnot measured$' "$D/live.tsv"
check "live: no '0 dominated' without a comparison" bash -c "! grep -q '	0 dominated' '$D/live.tsv'"
# a bpfgov cell whose loader's CPU time was not measured has no energy figure
: >"$OUT/live.rows"
for c in menu bpfgov-balanced; do
	jq -nc --arg c "$c" '{config: $c, workload: "pp0", round: 1, perf: 100, unit: "loops/s",
		poll_pct: 1, halts_per_s: 10, loader_pct: (if $c == "menu" then 0 else null end),
		energy_pct: (if $c == "menu" then 1 else null end)}' >>"$OUT/live.rows"
done
live_summarize acpi_idle menu
is "live: without the loader's CPU time, the verdict is not measured" \
	"$(jq -r '.verdicts[0].verdict' "$OUT/live.json")" "not measured"
live_goal_rows >"$D/live2.tsv" 2>&1
check "live: ... and balanced's 'dominated by none' has no verdict" \
	grep -q $'^live: balanced dominated by no kernel governor on any workload\tno verdict (nothing compared, or a figure missing)\tnot measured$' "$D/live2.tsv"
check "live: ... and the loader goal is not measured" \
	grep -q $'^live: the loader <= 0.5% of one CPU in every bpfgov cell\tn/a% worst\tnot measured$' "$D/live2.tsv"
is "live: the only row met is the one measured (quiet machine 0.20%)" \
	"$(awk -F'\t' '$3 == "met" { print $1 }' "$D/live.tsv")" \
	"live: quiet machine (from 100 ms after a burst) polls <= 1% of CPU time"
# A difference of the medians beyond the band, where the rounds overlap,
# is not a verdict: "unresolved", the medians' verdict beside it, and the
# goal stays not met; where every round of one is better, it is one.
# live_rounds MENU BALANCED: the pp0 cells' loops/s in three rounds each
live_rounds() {
	: >"$OUT/live.rows"
	for c in menu bpfgov-balanced; do
		r=0
		for p in $([ $c = menu ] && echo "$1" || echo "$2"); do
			r=$((r + 1))
			jq -nc --arg c "$c" --argjson r $r --argjson p "$p" '{config: $c, workload: "pp0", round: $r,
				perf: $p, unit: "loops/s", poll_pct: 0, halts_per_s: 10, loader_pct: 0, energy_pct: 0}' >>"$OUT/live.rows"
		done
	done
	live_summarize acpi_idle menu
}
live_rounds "100 140 120" "90 125 105"
is "live: medians apart, rounds overlapping: unresolved, dominated by the medians" \
	"$(jq -r '.verdicts[0] | "\(.verdict) \(.by_median)"' "$OUT/live.json")" "unresolved dominated"
live_goal_rows >"$D/live3.tsv" 2>&1
check "live: ... and the goal is not met, with it counted" \
	grep -q $'^live: balanced dominated by no kernel governor on any workload\t0 dominated of 1 verdicts; 1 more by the medians, inside the rounds\' spread (pp0 by menu)\tnot met$' "$D/live3.tsv"
is "live: ... and the table says it with a question mark" "$(doc_live | grep '^| pp0 |')" "| pp0 | dominated? |"
live_rounds "100 110 120" "80 85 90"
is "live: every round worse: dominated" "$(jq -r '.verdicts[0].verdict' "$OUT/live.json")" "dominated"
live_rounds "100 110 120" "99 111 119"
is "live: inside the band: tie" "$(jq -r '.verdicts[0].verdict' "$OUT/live.json")" "tie"

# 5. The order of the cells changes from round to round: every cell once
# a round, round 2 reversed, round 3 neither; balanced follows a different
# cell in each of the three rounds.
order() ( # ROUND: live_order's cells, on one line
	KERNEL_GOVS="haltpoll menu ladder" HP_NS=/nonexistent LIVE_VARIANT="menu:--idle-governor menu" LIVE_ROUND=$1
	live_order "menu ladder haltpoll" | tr '\n' ' '
)
o1=$(order 1) o2=$(order 2) o3=$(order 3)
is "live order: round 1 as listed" "$o1" \
	"kernel:haltpoll kernel:menu kernel:ladder forced-poll bpfgov:balanced bpfgov:powersave bpfgov:performance variant "
is "live order: round 2 reversed" "$o2" "$(printf '%s\n' $o1 | tac | tr '\n' ' ')"
is "live order: round 3 has the same cells" "$(printf '%s\n' $o3 | sort | tr '\n' ' ')" "$(printf '%s\n' $o1 | sort | tr '\n' ' ')"
before() { printf '%s\n' $1 | grep -B1 -x bpfgov:balanced | head -n1; }
is "live order: balanced follows a different cell each round" \
	"$( (before "$o1"; before "$o2"; before "$o3") | sort -u | wc -l)" 3
is "live order: the same on every call" "$(order 3)" "$o3"
is "live order: round 3, every other cell first" "$o3" \
	"kernel:haltpoll kernel:ladder bpfgov:balanced bpfgov:performance kernel:menu forced-poll bpfgov:powersave variant "
# ... with the guest's tools alone (its busybox has no cksum)
mkdir -p "$D/bin"
for t in tac tr cat; do ln -sf "$(command -v $t)" "$D/bin/$t"; done
is "live order: no tool beyond tac" "$(PATH=$D/bin order 3 2>&1)$(PATH=$D/bin order 2 2>&1)" "$o3$o2"
t_done
