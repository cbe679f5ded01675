#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: bpfgov measured side by side with the kernel, in one run,
# on the machine it runs on. Prints the ratios as it goes and writes
# docs/BENCHMARKS.md with the results, the machine facts and the exact
# commands behind every number.
#
#   tests/bench/run.sh [overhead] [tools] [latency] [ringbuf] [shootout] [live] [replay]
#
# Sections (default: all):
#   overhead  ping-pong loops/s (0 and 20 us of work) with bpfgov loaded (no
#             actuation), not loaded, and with only minimal programs on the
#             same tracepoints, in rotating order; the loader's CPU time
#             and decisions/s; ns per call of each BPF program (bpf_stats),
#             with bpfgov first at its events and behind the reference ones
#   tools     perf bench sched pipe, hackbench, cyclictest: bpfgov at its
#             defaults vs not loaded, alternating rounds (cyclictest in
#             many short rounds of its own: see sec_tools)
#   latency   decision -> completed write, fake MSR/sysfs roots, --report
#   ringbuf   decision/event rates and drops under switchstorm, with and
#             without `tail --all --json` attached
#   shootout  ping-pong at 0/20/100/500 us under each kernel idle governor,
#             under bpfgov's idle choice, and with polling forced (PM QoS)
#   live      the live idle judge (tests/bench/live.sh): each kernel governor,
#             haltpoll at the kernel's default window, forced POLL and bpfgov's
#             profiles against ping-pong, a quiet machine after a burst and
#             cyclictest --laptop; performance and poll time as the kernel
#             measures them, a verdict per workload (driver none: not measurable)
#   replay    linux-pm scenarios (`govlab synth`, both idle tables) and traces
#             recorded here, judged by `govlab replay --json` (judge.sh)
#
# The replay section draws plots with `govlab plot` (gnuplot); they go
# to docs/bench/ beside the doc, which shows them.
#
# Environment: BENCH_QUICK=1 (short runs, for trying the script),
# BENCH_ROUNDS, BENCH_CT_ROUNDS (cyclictest rounds, default 30), BENCH_OUT (raw results, default build/bench),
# BENCH_DOC (default docs/BENCHMARKS.md; BENCH_DOC=- skips the doc),
# BENCH_PIN (pin root, default /sys/fs/bpf/bpfgov-bench),
# BENCH_QUIET_WAIT (seconds each section waits for other work to use < 10%
# of the CPUs, default 60; what it saw is reported either way),
# BENCH_LIVE_ROUNDS, BENCH_LIVE_WORKLOADS (the live judge's rounds and
# workloads; tests/bench/live.sh).
#
# bpfgov runs here under its own pin root and run directory so that the
# benchmark neither blocks nor is blocked by a `govloader start` elsewhere;
# BPF programs of any other bpfgov instance are counted and reported.
# Every exit path restores the cpuidle governor, PM QoS files we wrote,
# kernel.bpf_stats_enabled, and stops our govloader (which restores its own).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
GOV=./govloader
LAB=./govlab
WORK=build/bpfgov-work
OUT=${BENCH_OUT:-build/bench}
DOC=${BENCH_DOC:-docs/BENCHMARKS.md}
PIN=${BENCH_PIN:-/sys/fs/bpf/bpfgov-bench}
export BPFGOV_RUN_DIR=${BPFGOV_RUN_DIR:-/run/bpfgov-bench}
. tests/bench/lib.sh
. tests/bench/report.sh
. tests/bench/judge.sh
. tests/bench/live.sh

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	ROUNDS=${BENCH_ROUNDS:-3}; PP_S=1; SHOOT_S=1; LAT_S=4; STORM_S=2; STATS_S=1
	SWEEP_STEP_S=1; PP_TRACE_S=2; JUDGE_S=3; REC_S=2
	TOOL_ROUNDS=2; PIPE_LOOPS=20000; HB_LOOPS=100; CT_S=1; CT_ROUNDS=4
else
	ROUNDS=${BENCH_ROUNDS:-15}; PP_S=2; SHOOT_S=3; LAT_S=12; STORM_S=5; STATS_S=3
	SWEEP_STEP_S=3; PP_TRACE_S=5; JUDGE_S=10; REC_S=4
	TOOL_ROUNDS=5; PIPE_LOOPS=100000; HB_LOOPS=500; CT_S=1; CT_ROUNDS=${BENCH_CT_ROUNDS:-30}
fi
STORM_THREADS=64
WORKS="0 20 100 500"
KERNEL_GOVS="haltpoll menu ladder"
NCPU=$(nr_cpus)
QUIET_WAIT=${BENCH_QUIET_WAIT:-60}
LPU=		# pingpong loops/us, calibrated once: identical work in every run
# replay models haltpoll with this machine's guest_halt_poll_ns
JUDGE_HALTPOLL_NS=$(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns 2>/dev/null || echo 200000)

# pp W SECONDS: one pinned ping-pong pair on CPUs 0/1; prints its JSON.
pp() {
	logrun "$SEC" "$WORK" pingpong --pairs 1 --pin --work-us "$1" --duration "$2" \
		--loops-per-us "$LPU" --json
}

calibrate() {
	LPU=$("$WORK" pingpong --pairs 1 --pin --work-us 20 --duration 1 --json | jq -r .loops_per_us)
	case "$LPU" in ''|null|0) warn "cannot calibrate pingpong"; exit 1;; esac
	say "pingpong work loop: $LPU loops/us (reused by every run via --loops-per-us)"
}

# ------------------------------------------------------------- 1. overhead

sec_overhead() {
	local r m order lps on=() off=() ratios=() s0 s1 s2 pp_j storm_j f0 f1 f2
	SEC=overhead
	hdr "1. Overhead: ping-pong (work 0 us, CPUs 0/1, ${PP_S} s) with bpfgov --no-floor --no-idle vs not loaded, $ROUNDS rounds"
	local on20=() off20=() ratios20=() cpu=() dps=() c0 c1 d0 d1 t0 t1 lps20
	local refl=() refl20=() rratios=() rratios20=() got_ref got_ref20 b0 b1 g0 g1
	for r in $(seq 1 "$ROUNDS"); do
		# The three configurations in a rotating order: `ref` is one
		# minimal program per tracepoint bpfgov uses (ref_min_up), the
		# cost of attaching there at all.
		case $((r % 3)) in
		1) order="off on ref";; 2) order="on ref off";; *) order="ref off on";;
		esac
		local got_on=null got_off=null got_on20=null got_off20=null
		got_ref=null; got_ref20=null
		for m in $order; do
			if [ "$m" = ref ]; then
				ref_min_up || continue
				got_ref=$(pp 0 "$PP_S" | jq .loops_per_s)
				got_ref20=$(pp 20 "$PP_S" | jq .loops_per_s)
				ref_down
				refl+=("$got_ref"); refl20+=("$got_ref20")
				continue
			fi
			if [ "$m" = on ]; then
				gov_up overhead-on --no-floor --no-idle || continue
				sleep 0.5
				c0=$(proc_cpu_ns "$GOV_PID"); d0=$(gov_status | jq "[.cpus[] | .floor_changes + .pick_changes] | add"); t0=$(now_s)
			fi
			lps=$(pp 0 "$PP_S" | jq .loops_per_s)
			lps20=$(pp 20 "$PP_S" | jq .loops_per_s)
			if [ "$m" = on ]; then
				# The loader's own cost while both ran: CPU time and
				# decisions (per CPU), over the two runs.
				c1=$(proc_cpu_ns "$GOV_PID"); d1=$(gov_status | jq "[.cpus[] | .floor_changes + .pick_changes] | add"); t1=$(now_s)
				if [ "$c0" -ge 0 ] && [ "$c1" -ge 0 ]; then
					cpu+=("$(calc "100 * ($c1 - $c0) / 1000000000 / ($t1 - $t0)")")
				else
					cpu+=(null)
				fi
				got_dps=$(calc "($d1 - $d0) / ($t1 - $t0) / $NCPU")
				dps+=("$got_dps")
				gov_down
			fi
			if [ "$m" = on ]; then
				got_on=$lps; on+=("$lps"); got_on20=$lps20; on20+=("$lps20")
			else
				got_off=$lps; off+=("$lps"); got_off20=$lps20; off20+=("$lps20")
			fi
		done
		ratios+=("$(calc "$got_on / $got_off")")
		ratios20+=("$(calc "$got_on20 / $got_off20")")
		rratios+=("$(calc "$got_ref / $got_off")")
		rratios20+=("$(calc "$got_ref20 / $got_off20")")
		printf '  round %d: 0 us off %8s on %8s ratio %s (minimal programs %s) | 20 us off %8s on %8s ratio %s (minimal %s)  (load %s)\n' "$r" \
			"$(fmt "$got_off" 0)" "$(fmt "$got_on" 0)" "$(fmt "${ratios[-1]}" 4)" "$(fmt "${rratios[-1]}" 4)" \
			"$(fmt "$got_off20" 0)" "$(fmt "$got_on20" 0)" "$(fmt "${ratios20[-1]}" 4)" "$(fmt "${rratios20[-1]}" 4)" "$(load1)"
	done

	# bpf_stats: enable only for this phase (it costs two clock reads per
	# call itself), restore the previous value right after.
	ORIG_BPF_STATS=$(sysctl -n kernel.bpf_stats_enabled)
	# The reference programs run beside ours in the same runs: the same
	# events, the same clock, the same bpf_stats cost per run.
	s0='{}'; s1='{}'; s2='{}'; f0='{}'; f1='{}'; f2='{}'
	if gov_up overhead-stats --no-floor --no-idle; then
		note_cmd overhead "sysctl -w kernel.bpf_stats_enabled=1; bpftool prog show  # run_time_ns / run_cnt, deltas"
		ref_up && note_cmd overhead "bpftool prog loadall $REF_OBJ $PIN-ref autoattach  # reference: minimal programs on the same tracepoints, beside bpfgov"
		sysctl -q -w kernel.bpf_stats_enabled=1
		s0=$(prog_stats); f0=$(ref_stats)
		pp_j=$(pp 0 "$STATS_S")
		s1=$(prog_stats); f1=$(ref_stats)
		storm_j=$(logrun overhead "$WORK" switchstorm --threads "$STORM_THREADS" --duration "$STATS_S" --json)
		s2=$(prog_stats); f2=$(ref_stats)
		sysctl -q -w kernel.bpf_stats_enabled="$ORIG_BPF_STATS"
		ref_down
		gov_down
	fi
	# The first program to run at an event pays for what the event's
	# first touches miss (in a VM, more than an empty run costs): the
	# same ping-pong with the reference programs attached before bpfgov,
	# so that both positions are on record.
	b0='{}'; b1='{}'; g0='{}'; g1='{}'
	if ref_up; then
		if gov_up overhead-stats-behind --no-floor --no-idle; then
			note_cmd overhead "# again with the reference programs attached first (bpfgov runs behind them)"
			sysctl -q -w kernel.bpf_stats_enabled=1
			b0=$(prog_stats); g0=$(ref_stats)
			pp 0 "$STATS_S" >/dev/null
			b1=$(prog_stats); g1=$(ref_stats)
			sysctl -q -w kernel.bpf_stats_enabled="$ORIG_BPF_STATS"
			gov_down
		fi
		ref_down
	fi
	ORIG_BPF_STATS=

	jq -n --argjson on "$(printf '%s\n' "${on[@]}" | jq -s .)" \
	      --argjson off "$(printf '%s\n' "${off[@]}" | jq -s .)" \
	      --argjson ratios "$(printf '%s\n' "${ratios[@]}" | jq -s .)" \
	      --argjson on20 "$(printf '%s\n' "${on20[@]}" | jq -s .)" \
	      --argjson off20 "$(printf '%s\n' "${off20[@]}" | jq -s .)" \
	      --argjson ratios20 "$(printf '%s\n' "${ratios20[@]}" | jq -s .)" \
	      --argjson cpu "$(printf '%s\n' "${cpu[@]}" | jq -s .)" \
	      --argjson dps "$(printf '%s\n' "${dps[@]}" | jq -s .)" \
	      --argjson s0 "$s0" --argjson s1 "$s1" --argjson s2 "$s2" \
	      --argjson f0 "$f0" --argjson f1 "$f1" --argjson f2 "$f2" \
	      --argjson b0 "$b0" --argjson b1 "$b1" --argjson g0 "$g0" --argjson g1 "$g1" \
	      --argjson refl "$(printf '%s\n' "${refl[@]}" | jq -s .)" \
	      --argjson refl20 "$(printf '%s\n' "${refl20[@]}" | jq -s .)" \
	      --argjson rratios "$(printf '%s\n' "${rratios[@]}" | jq -s .)" \
	      --argjson rratios20 "$(printf '%s\n' "${rratios20[@]}" | jq -s .)" \
	      --arg load "$(loadavg)" --argjson foreign "$(foreign_progs)" \
	      --argjson rounds "$ROUNDS" --argjson secs "$PP_S" "$JQ_MED"'
		def per(a; b): [b | keys[] as $k |
			{name: $k, calls: (b[$k].run_cnt - (a[$k].run_cnt // 0)),
			 ns: (b[$k].run_time_ns - (a[$k].run_time_ns // 0))} |
			.ns_per_call = (if .calls > 0 then .ns / .calls else null end)];
		{rounds: $rounds, seconds: $secs, on: $on, off: $off, ratios: $ratios,
		 ratio_median: ($ratios | med), on_median: ($on | med), off_median: ($off | med),
		 ratio_min: ($ratios | map(select(. != null)) | min),
		 ratio_max: ($ratios | map(select(. != null)) | max),
		 on20: $on20, off20: $off20, ratios20: $ratios20, ratio20_median: ($ratios20 | med),
		 loader_cpu_pct: $cpu, loader_cpu_pct_max: ($cpu | map(select(. != null)) | max),
		 decisions_per_s_cpu: $dps, decisions_per_s_cpu_median: ($dps | med),
		 prog_pingpong: per($s0; $s1), prog_switchstorm: per($s1; $s2), prog_all: per($s0; $s2),
		 ref_pingpong: per($f0; $f1), ref_switchstorm: per($f1; $f2), ref_all: per($f0; $f2),
		 prog_behind: per($b0; $b1), ref_first: per($g0; $g1),
		 ref_on: $refl, ref_on20: $refl20, ref_ratios: $rratios, ref_ratios20: $rratios20,
		 ref_ratio_median: ($rratios | med), ref_ratio20_median: ($rratios20 | med),
		 load: $load, foreign_progs: $foreign}' >"$OUT/overhead.json"
	jq -r '"  median ratio on/off: \(.ratio_median) (min \(.ratio_min), max \(.ratio_max)); median loops/s off \(.off_median), on \(.on_median)",
	       "  median ratio on/off at 20 us: \(.ratio20_median); loader CPU max \(.loader_cpu_pct_max) %; decisions/s per CPU median \(.decisions_per_s_cpu_median)",
	       "  minimal programs alone (one per tracepoint), median ratio to not loaded: 0 us \(.ref_ratio_median), 20 us \(.ref_ratio20_median)",
	       (.prog_behind[] | "  behind the reference programs: \(.name): \(.calls) calls, \(if .ns_per_call then (.ns_per_call | floor) else "n/a" end) ns/call"),
	       (.ref_first[] | "  reference first: \(.name): \(.calls) calls, \(if .ns_per_call then (.ns_per_call | floor) else "n/a" end) ns/call"),
	       (.prog_all[] | "  \(.name): \(.calls) calls, \(if .ns_per_call then (.ns_per_call | floor) else "n/a" end) ns/call"),
	       (.ref_all[] | "  reference \(.name): \(.calls) calls, \(if .ns_per_call then (.ns_per_call | floor) else "n/a" end) ns/call")' \
		"$OUT/overhead.json"
}

# ------------------------------------------------------------- 1b. the field's tools

# tool_run NAME: one measurement with the field's own tools; prints JSON.
tool_run() {
	local v
	case $1 in
	pipe)	v=$(logrun tools perf bench sched pipe -l "$PIPE_LOOPS" 2>/dev/null |
			sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p') ;;
	hackbench) v=$(logrun tools hackbench -g 4 -l "$HB_LOOPS" 2>/dev/null | sed -n 's/^Time: *//p') ;;
	# "AVG P50": the mean of the threads' averages, and the median of
	# all wake-ups (from the histogram, 1 us bins; beyond 1 ms overflows).
	cyclictest) v=$(logrun tools cyclictest -m -p80 -t2 -i 500 -D "$CT_S" -q -h 1000 2>/dev/null |
			awk '/^# Avg Latencies:/ { for (i = 4; i <= NF; i++) { s += $i; n++ } }
			     /^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) tot += $i }
			     /^[0-9]/ { c = 0; for (i = 2; i <= NF; i++) c += $i; h[$1 + 0] = c; tot += c }
			     END { if (!n || !tot) exit
				   for (k = 0; k < 1000; k++) { acc += h[k]; if (acc * 2 >= tot) break }
				   printf "%.1f %d", s / n, k }')
		echo "${v:-null null}"; return ;;
	esac
	echo "${v:-null}"
}

sec_tools() {
	local r m order t v
	local -A res
	SEC=tools
	hdr "1b. perf bench sched pipe, hackbench, cyclictest: bpfgov (defaults) vs not loaded, $TOOL_ROUNDS rounds (cyclictest $CT_ROUNDS)"
	for t in perf hackbench cyclictest; do
		command -v $t >/dev/null || { say "  $t: not installed (scripts/deps.sh installs linux-perf and rt-tests)"; return 0; }
	done
	for r in $(seq 1 "$TOOL_ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
		for m in $order; do
			if [ "$m" = on ]; then gov_up tools-on || continue; sleep 0.5; fi
			for t in pipe hackbench; do
				v=$(tool_run $t)
				res[$m.$t]="${res[$m.$t]:-} $v"
			done
			[ "$m" = on ] && gov_down
		done
		say "  round $r: pipe off/on$(printf ' %s' $(echo ${res[off.pipe]} | awk '{print $NF}') $(echo ${res[on.pipe]} | awk '{print $NF}')) ops/s, hackbench$(printf ' %s' $(echo ${res[off.hackbench]} | awk '{print $NF}') $(echo ${res[on.hackbench]} | awk '{print $NF}')) s (load $(load1))"
	done

	# cyclictest. Its average moves by 5-10 us from one run of a few
	# seconds to the next with bpfgov loaded or not (the halt wake-up of a
	# virtual CPU is the host's), so a handful of rounds cannot tell a
	# 2 us difference: many short rounds of their own, alternating, each
	# with a fresh loader; the figure is the median of the per-round
	# deltas, with its 95% confidence interval. Also the decisions the
	# periodic load caused (per CPU and second), while it ran.
	local on=() off=() on50=() off50=() dps=() got_on got_off got_on50 got_off50 got_dps d0 d1 t0 t1
	for r in $(seq 1 "$CT_ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then order="off on"; else order="on off"; fi
		got_on=null; got_off=null; got_on50=null; got_off50=null; got_dps=null
		for m in $order; do
			if [ "$m" = on ]; then
				gov_up tools-ct || continue
				sleep 0.5
				d0=$(gov_status | jq "[.cpus[] | .floor_changes + .pick_changes] | add"); t0=$(now_s)
				read -r got_on got_on50 <<<"$(tool_run cyclictest)"
				d1=$(gov_status | jq "[.cpus[] | .floor_changes + .pick_changes] | add"); t1=$(now_s)
				got_dps=$(calc "($d1 - $d0) / ($t1 - $t0) / $NCPU")
				dps+=("$got_dps")
				gov_down
			else
				read -r got_off got_off50 <<<"$(tool_run cyclictest)"
			fi
		done
		on+=("$got_on"); off+=("$got_off"); on50+=("$got_on50"); off50+=("$got_off50")
		say "  cyclictest round $r: avg off/on $got_off $got_on us, delta $(calc "$got_on - $got_off"), median $got_off50 $got_on50 us, decisions/s per CPU $(fmt "$got_dps" 1) (load $(load1))"
	done
	note_cmd tools "./govloader start --pin-root $PIN   # the 'on' rows"
	arr() { printf '%s\n' $1 | jq -s .; }
	jq -n --argjson pon "$(arr "${res[on.pipe]}")" --argjson poff "$(arr "${res[off.pipe]}")" \
	      --argjson hon "$(arr "${res[on.hackbench]}")" --argjson hoff "$(arr "${res[off.hackbench]}")" \
	      --argjson con "$(arr "${on[*]}")" --argjson coff "$(arr "${off[*]}")" \
	      --argjson con50 "$(arr "${on50[*]}")" --argjson coff50 "$(arr "${off50[*]}")" \
	      --argjson dps "$(arr "${dps[*]:-}")" --argjson ct_rounds "$CT_ROUNDS" --argjson ct_s "$CT_S" \
	      --arg driver "$(idle_driver)" --arg load "$(loadavg)" --argjson rounds "$TOOL_ROUNDS" "$JQ_MED"'
		def q(p): map(select(. != null)) | sort | if length == 0 then null else .[(length - 1) * p | round] end;
		# Distribution-free 95% interval of a median: the order
		# statistics n/2 -+ 0.98 sqrt(n) (binomial, normal approximation).
		def ci: map(select(. != null)) | sort | length as $n |
			if $n < 6 then null else ((($n / 2) - 0.98 * ($n | sqrt)) | floor) as $k |
				[.[$k], .[$n - 1 - $k]] end;
		def ratios(a; b): [range(0; [a, b | length] | min) | (if a[.] and b[.] then a[.] / b[.] else null end)];
		{rounds: $rounds, idle_driver: $driver, load: $load,
		 pipe: {on: $pon, off: $poff, ratios: ratios($pon; $poff)},
		 hackbench: {on: $hon, off: $hoff, ratios: ratios($hoff; $hon)},
		 cyclictest: {rounds: $ct_rounds, seconds: $ct_s, on: $con, off: $coff,
			deltas: [range(0; [$con, $coff | length] | min) as $i |
			(if $con[$i] and $coff[$i] then $con[$i] - $coff[$i] else null end)],
			p50_on: $con50, p50_off: $coff50,
			p50_deltas: [range(0; [$con50, $coff50 | length] | min) as $i |
			(if $con50[$i] and $coff50[$i] then $con50[$i] - $coff50[$i] else null end)],
			decisions_per_s_cpu: $dps}} |
		.cyclictest.p50_delta_median = (.cyclictest.p50_deltas | med) |
		.cyclictest.p50_delta_ci95 = (.cyclictest.p50_deltas | ci) |
		.pipe.ratio_median = (.pipe.ratios | med) |
		.hackbench.ratio_median = (.hackbench.ratios | med) |
		.cyclictest.delta_median = (.cyclictest.deltas | med) |
		.cyclictest.delta_q25 = (.cyclictest.deltas | q(0.25)) |
		.cyclictest.delta_q75 = (.cyclictest.deltas | q(0.75)) |
		.cyclictest.delta_ci95 = (.cyclictest.deltas | ci) |
		.cyclictest.decisions_per_s_cpu_median = (.cyclictest.decisions_per_s_cpu | med) |
		.cyclictest.on_median = (.cyclictest.on | med) | .cyclictest.off_median = (.cyclictest.off | med)' \
		>"$OUT/tools.json"
	jq -r '"  median: pipe ratio \(.pipe.ratio_median), hackbench ratio (time off/on) \(.hackbench.ratio_median)",
	       "  cyclictest avg: median of \(.cyclictest.deltas | map(select(. != null)) | length) per-round deltas \(.cyclictest.delta_median) us (95% CI \(.cyclictest.delta_ci95 // ["n/a", "n/a"] | join(" .. ")), quartiles \(.cyclictest.delta_q25) .. \(.cyclictest.delta_q75)); median wake-up latency: median delta \(.cyclictest.p50_delta_median) us (95% CI \(.cyclictest.p50_delta_ci95 // ["n/a", "n/a"] | join(" .. "))); decisions/s per CPU median \(.cyclictest.decisions_per_s_cpu_median)"' "$OUT/tools.json"
}

# ------------------------------------------------------------- 2. latency

# seed_fake DIR: MSR stand-ins (HWP enabled, caps 8..40, request min 8)
# and a sysfs stand-in with per-CPU PM QoS files, so that every decision is
# a real file write.
seed_fake() {
	local d=$1 c caps req
	rm -rf "$d"
	mkdir -p "$d/sys/devices/system/cpu/cpuidle"
	echo none >"$d/sys/devices/system/cpu/cpuidle/current_driver"
	echo menu >"$d/sys/devices/system/cpu/cpuidle/current_governor"
	caps=$(( 40 | (30 << 8) | (10 << 16) | (8 << 24) ))
	req=$(( 8 | (40 << 8) | (0x80 << 24) | (0x2a << 32) ))
	for c in $(seq 0 $((NCPU - 1))); do
		mkdir -p "$d/msr/$c" "$d/sys/devices/system/cpu/cpu$c/power"
		truncate -s $((8 * 0x775)) "$d/msr/$c/msr"
		msr_file_write "$d/msr/$c/msr" $((0x770)) 1
		msr_file_write "$d/msr/$c/msr" $((0x771)) "$caps"
		msr_file_write "$d/msr/$c/msr" $((0x774)) "$req"
		echo 0 >"$d/sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us"
	done
	rm -rf "$d.orig"
	cp -a "$d" "$d.orig"
}
msr_file_write() { # FILE MSR VALUE (MSR X at byte offset 8*X, little endian)
	local f=$1 msr=$2 val=$3 i bytes=
	for i in 0 1 2 3 4 5 6 7; do
		bytes+=$(printf '\\x%02x' $(( (val >> (8 * i)) & 0xff )))
	done
	printf "$bytes" | dd of="$f" bs=1 seek=$((8 * msr)) conv=notrunc status=none
}

# lat_run NAME [start options...]: one measurement into $OUT/NAME.json
# (null if the loader did not come up). The load's own timer wake-up
# lateness (sleep-cycle, same run) is the platform's plain thread wake-up
# cost, beside the loader's wake-up part of the latency.
lat_run() {
	local name=$1 fake=$OUT/fake rep load restored=false
	shift
	rep=$OUT/$name-report.json
	load=$OUT/$name-load.json
	rm -f "$rep"
	echo null >"$OUT/$name.json"
	echo null >"$load"
	seed_fake "$fake"
	if ! gov_up "$name" --msr-root "$fake/msr" --sysfs-root "$fake/sys" --report "$rep" "$@"; then
		return
	fi
	sleep 0.5
	logrun latency "$WORK" sleep-cycle --busy-us 3000 --idle-us 5000 --duration "$LAT_S" --cpu 1 --json >"$load" ||
		echo null >"$load"
	gov_down
	diff -r "$fake/msr" "$fake.orig/msr" >/dev/null &&
		diff -r "$fake/sys" "$fake.orig/sys" >/dev/null && restored=true
	[ -s "$rep" ] || return
	jq -c --arg load "$(loadavg)" --argjson restored "$restored" --arg opts "$*" \
		--slurpfile l "$load" \
		'{options: $opts, decisions, floor_decisions, pick_decisions, actuation_errors,
		  writes: ([.cpus[].writes] | add), latency_us, backend, restored: $restored, load: $load,
		  platform_wake_us: ($l[0] // {} | {p50: .wake_lat_us_p50, p99: .wake_lat_us_p99,
						   max: .wake_lat_us_max})}' \
		"$rep" >"$OUT/$name.json"
}

sec_latency() {
	SEC=latency
	hdr "2. Decision-to-actuation latency (fake --msr-root/--sysfs-root, sleep-cycle 3 ms busy / 5 ms idle on CPU1, ${LAT_S} s)"
	note_cmd latency "# MSR stand-ins as in tests/integration/test_msr.sh (0x770=1, 0x771 caps 8..40, 0x774 min 8) under fake/msr/N/msr; fake/sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us = 0"
	lat_run latency
	# Observation, not a goal: the same with the loader at normal priority
	# (--no-rt; its default is SCHED_FIFO 1).
	lat_run latency-nort --no-rt
	jq -n --slurpfile d "$OUT/latency.json" --slurpfile f "$OUT/latency-nort.json" --argjson secs "$LAT_S" \
		'{seconds: $secs, default: $d[0], nort: $f[0]}' >"$OUT/latency.json.tmp" &&
		mv "$OUT/latency.json.tmp" "$OUT/latency.json"
	jq -r '(.default, .nort) | select(. != null) |
		"  \(if .options == "" then "loader SCHED_FIFO 1 (default)" else "loader \(.options)" end): \(.decisions) decisions, \(.writes) writes, p50 \(.latency_us.p50) us, p99 \(.latency_us.p99) us, max \(.latency_us.max) us" +
		" = wake-up p50 \(.latency_us.wake.p50 // "n/a") p99 \(.latency_us.wake.p99 // "n/a") + processing p50 \(.latency_us.processing.p50 // "n/a") p99 \(.latency_us.processing.p99 // "n/a")" +
		" (the loader ran on the deciding CPU for \(.latency_us.on_deciding_cpu // "n/a") of \(.latency_us.samples // "n/a"));" +
		" the platform'"'"'s own timer wake-up (the load): p50 \(.platform_wake_us.p50 // "n/a") p99 \(.platform_wake_us.p99 // "n/a") us; restored: \(.restored) (load \(.load))"' \
		"$OUT/latency.json"
}

# ------------------------------------------------------------- 3. ring buffer

# snap: counters of our instance that tell events and decisions apart.
snap() {
	gov_status | jq -c --arg t "$(date +%s.%N)" '{t: ($t | tonumber),
		switches: ([.cpus[].switches] | add), idle_entries: ([.cpus[].idle_entries] | add),
		decisions: ([.cpus[] | .floor_changes + .pick_changes] | add),
		drops_events: .drops.events, drops_tap: .drops.tap}'
}

sec_ringbuf() {
	local a0 a1 b0 b1 sa sb tailpid i
	SEC=ringbuf
	hdr "3. Ring buffer: switchstorm --threads $STORM_THREADS, ${STORM_S} s, bpfgov at default settings"
	gov_up ringbuf || return
	sleep 0.5
	a0=$(snap)
	sa=$(logrun ringbuf "$WORK" switchstorm --threads "$STORM_THREADS" --duration "$STORM_S" --json)
	a1=$(snap)
	sleep 0.5
	note_cmd ringbuf "./govloader tail --all --json --pin-root $PIN > tail.jsonl   # attached during the second switchstorm, stopped with SIGINT"
	"$GOV" tail --all --json --pin-root "$PIN" >"$OUT/tail.jsonl" 2>"$OUT/tail.err" &
	tailpid=$!
	BG_PIDS+=("$tailpid")
	for i in $(seq 1 30); do	# until the tap reader is registered
		[ "$(gov_status | jq -r '.tap_reader_pid // 0')" != 0 ] && break
		sleep 0.1
	done
	b0=$(snap)
	sb=$("$WORK" switchstorm --threads "$STORM_THREADS" --duration "$STORM_S" --json)
	b1=$(snap)
	sleep 0.5	# let tail read what is queued
	kill -INT "$tailpid" 2>/dev/null
	wait "$tailpid" 2>/dev/null
	b1=$(snap)
	gov_down
	jq -n --argjson a0 "$a0" --argjson a1 "$a1" --argjson b0 "$b0" --argjson b1 "$b1" \
	      --argjson sa "$sa" --argjson sb "$sb" --arg load "$(loadavg)" \
	      --argjson threads "$STORM_THREADS" --argjson secs "$STORM_S" \
	      --slurpfile tail <(jq -c '{kind, cpu, seq}' "$OUT/tail.jsonl" 2>/dev/null) '
		def win(x; y): (y.t - x.t) as $dt |
			{seconds: $dt, events: ((y.switches - x.switches) + (y.idle_entries - x.idle_entries)),
			 switches: (y.switches - x.switches), idle_entries: (y.idle_entries - x.idle_entries),
			 decisions: (y.decisions - x.decisions),
			 drops_events: (y.drops_events - x.drops_events), drops_tap: (y.drops_tap - x.drops_tap)} |
			.events_per_s = (.events / $dt) | .decisions_per_s = (.decisions / $dt);
		{threads: $threads, seconds: $secs, load: $load,
		 plain: (win($a0; $a1) + {storm_switches_per_s: $sa.switches_per_s}),
		 tail: (win($b0; $b1) + {storm_switches_per_s: $sb.switches_per_s}),
		 drops_total: {events: $b1.drops_events, tap: $b1.drops_tap},
		 tail_records: ($tail | length),
		 tail_by_kind: ($tail | group_by(.kind) | map({key: .[0].kind, value: length}) | from_entries)} |
		.tail.tail_decisions = ((.tail_by_kind.floor // 0) + (.tail_by_kind.pick // 0)) |
		.tail.tail_idle_exits = (.tail_by_kind.idle_exit // 0) |
		# Decision records carry a per-CPU sequence number: gaps in what
		# tail received are decision records it lost.
		.tail.decision_seq_missing = ([$tail[] | select(.kind == "floor" or .kind == "pick")] |
			group_by(.cpu) | map((map(.seq) | max - min + 1) - length) | add // 0)' >"$OUT/ringbuf.json"
	jq -r '"  without tail: \(.plain.events_per_s | floor) events/s, \(.plain.decisions_per_s | floor) decisions/s, drops \(.plain.drops_events); switchstorm \(.plain.storm_switches_per_s | floor) switches/s",
	       "  with tail:    \(.tail.events_per_s | floor) events/s, \(.tail.decisions_per_s | floor) decisions/s, drops events \(.tail.drops_events) tap \(.tail.drops_tap); switchstorm \(.tail.storm_switches_per_s | floor) switches/s",
	       "  tail received \(.tail_records) records \(.tail_by_kind | tostring); decisions \(.tail.tail_decisions) of \(.tail.decisions) (\(.tail.decision_seq_missing) missing by seq), idle exits \(.tail.tail_idle_exits) of \(.tail.idle_entries)"' \
		"$OUT/ringbuf.json"
}

# ------------------------------------------------------------- 4. shoot-out

state0_poll_us() { # sum of cpuidle state0 (POLL) time over CPUs, us, or null
	local c f t=0 any=0
	for c in $(seq 0 $((NCPU - 1))); do
		f=/sys/devices/system/cpu/cpu$c/cpuidle/state0
		[ -r "$f/time" ] && [ "$(cat "$f/name" 2>/dev/null)" = POLL ] || continue
		t=$((t + $(cat "$f/time")))
		any=1
	done
	if [ "$any" = 1 ]; then echo "$t"; else echo null; fi
}
qos_values() { cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us 2>/dev/null | tr '\n' ' '; }

# shoot_one CONFIG W: ping-pong under the current set-up; appends a JSON row.
shoot_one() {
	local cfg=$1 w=$2 p0 p1 b0 b1 t0 t1 j qos_mid poll=null src=null mid
	p0=$(state0_poll_us)
	[ -n "$GOV_PID" ] && b0=$(gov_status | jq '[.cpus[].poll_ms] | add')
	t0=$(date +%s.%N)
	( sleep "$(calc "$SHOOT_S / 2")"; qos_values >"$OUT/qos.mid" ) &
	mid=$!
	j=$(pp "$w" "$SHOOT_S")
	t1=$(date +%s.%N)
	wait "$mid" 2>/dev/null
	qos_mid=$(cat "$OUT/qos.mid" 2>/dev/null)
	p1=$(state0_poll_us)
	if [ -n "$GOV_PID" ]; then
		b1=$(gov_status | jq '[.cpus[].poll_ms] | add')
		poll=$(calc "($b1 - $b0) / (($t1 - $t0) * 1000 * $NCPU) * 100"); src=bpfgov
	elif [ "$p0" != null ]; then
		poll=$(calc "($p1 - $p0) / (($t1 - $t0) * 1000000 * $NCPU) * 100"); src=state0
	fi
	jq -c --arg cfg "$cfg" --argjson w "$w" --argjson poll "$poll" --arg src "$src" \
	      --arg qos "$qos_mid" --arg load "$(load1)" \
		'{config: $cfg, work_us: $w, loops_per_s, poll_pct: $poll, poll_source: $src,
		  qos_mid: $qos, load: ($load | tonumber)}' <<<"$j" >>"$OUT/shootout.rows"
	printf '  %-10s work %3d us: %9.0f loops/s  poll %s%%  (PM QoS mid-run: %s; load %s)\n' "$cfg" "$w" \
		"$(jq -r .loops_per_s <<<"$j")" "$(fmt "$poll" 1)" "$qos_mid" "$(load1)"
}

sec_shootout() {
	local g w c avail
	SEC=shootout
	hdr "4. Idle shoot-out (driver: $(idle_driver), governor: $(idle_governor)), ping-pong ${SHOOT_S} s per cell"
	rm -f "$OUT/shootout.rows"
	avail=$(idle_governors)
	ORIG_GOVERNOR=$(idle_governor)
	for g in $KERNEL_GOVS; do
		case " $avail " in *" $g "*) ;; *) say "  $g: not available here"; continue;; esac
		note_cmd shootout "echo $g > $CPUIDLE/current_governor"
		if ! set_governor "$g"; then say "  $g: cannot select it"; continue; fi
		for w in $WORKS; do shoot_one "$g" "$w"; done
	done
	set_governor "$ORIG_GOVERNOR" || warn "could not restore governor $ORIG_GOVERNOR"
	note_cmd shootout "echo $ORIG_GOVERNOR > $CPUIDLE/current_governor   # restored; bpfgov runs under it"

	if gov_up shootout-bpfgov; then
		sleep 0.5
		for w in $WORKS; do shoot_one bpfgov "$w"; done
		gov_down
	fi

	# Reference: polling forced for everybody (PM QoS "n/a").
	save_qos
	for c in $(seq 0 $((NCPU - 1))); do
		echo n/a >"/sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us" 2>/dev/null
	done
	note_cmd shootout "for c in /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us; do echo n/a > \$c; done   # forced-poll reference, restored after"
	for w in $WORKS; do shoot_one forced-poll "$w"; done
	restore_qos

	jq -s --arg driver "$(idle_driver)" --arg gov "$ORIG_GOVERNOR" --arg avail "$avail" \
	      --argjson secs "$SHOOT_S" '
		{driver: $driver, governor: $gov, available: $avail, seconds: $secs, rows: .} |
		.cells = (.rows | map({key: "\(.config)/\(.work_us)", value: .}) | from_entries)' \
		"$OUT/shootout.rows" >"$OUT/shootout.json"
}

# ------------------------------------------------------------- 5. replay

# sec_replay and its goals and doc: tests/bench/judge.sh

# ------------------------------------------------------------- main

main() {
	local s all="overhead tools latency ringbuf shootout live replay" want=() t0 foreign
	[ "$(id -u)" = 0 ] || { warn "needs root (BPF, sysfs knobs)"; exit 1; }
	for s in jq bpftool sysctl; do
		command -v "$s" >/dev/null || { warn "$s is required"; exit 1; }
	done
	[ -x "$GOV" ] && [ -x "$WORK" ] || { warn "build first: make"; exit 1; }
	want=("$@")
	[ ${#want[@]} -eq 0 ] && read -r -a want <<<"$all"
	for s in "${want[@]}"; do
		case " $all " in *" $s "*) ;; *) warn "unknown section $s (sections: $all)"; exit 2;; esac
	done

	# Workloads pin to CPUs 0 and 1 and check their affinity: make sure
	# this script (and what it starts) may run on every CPU.
	taskset -cp "0-$((NCPU - 1))" $$ >/dev/null 2>&1 || warn "cannot widen CPU affinity"

	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir -p "$OUT"
	rm -f "$OUT"/cmds.* "$OUT"/*.json "$OUT"/quiet.jsonl
	rm -rf "$OUT/plots"
	t0=$(date +%s)
	say "bpfgov bench: $(uname -r), $NCPU CPUs, cpuidle driver $(idle_driver), governor $(idle_governor)"
	facts_json >"$OUT/facts.json"
	foreign=$(foreign_progs)
	[ "$foreign" -gt 0 ] && warn "$foreign BPF program(s) of another bpfgov instance are loaded: they run during every measurement"
	say "load average at start: $(loadavg)"
	calibrate
	for s in "${want[@]}"; do
		quiet "$s"
		"sec_$s"
		after_section "$s"
	done
	jq --arg load "$(loadavg)" --argjson secs $(( $(date +%s) - t0 )) \
		--argjson foreign "$(foreign_progs)" \
		'. + {load_end: $load, run_seconds: $secs, foreign_progs_end: $foreign}' \
		"$OUT/facts.json" >"$OUT/facts.json.tmp" && mv "$OUT/facts.json.tmp" "$OUT/facts.json"
	hdr "Summary ($(( $(date +%s) - t0 )) s)"
	goals_table text
	if [ "$DOC" != - ]; then
		write_doc >"$DOC.tmp" && mv "$DOC.tmp" "$DOC"
		say "wrote $DOC"
		# The doc's images (doc_plots): replaced as a set.
		rm -rf "$(dirname "$DOC")/bench"
		if [ -n "$(ls "$OUT/plots" 2>/dev/null)" ]; then
			cp -r "$OUT/plots" "$(dirname "$DOC")/bench"
			say "wrote $(dirname "$DOC")/bench/ ($(ls "$OUT/plots" | wc -l) plots)"
		fi
	fi
}

main "$@"
