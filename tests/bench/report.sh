# SPDX-License-Identifier: GPL-2.0
# Machine facts, the goals table (met / not met computed from the measured
# values) and docs/BENCHMARKS.md, from the JSON files run.sh leaves in $OUT.
# Sourced by run.sh.

# facts_json: the machine, at the start of the run
facts_json() {
	local states=() c=/sys/devices/system/cpu/cpu0/cpuidle d
	for d in "$c"/state*; do
		[ -d "$d" ] || continue
		states+=("$(cat "$d/name") (exit latency $(cat "$d/latency") us, residency $(cat "$d/residency") us)")
	done
	jq -n --arg kernel "$(uname -r)" --arg cpus "$NCPU" \
	      --arg model "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
	      --arg hyp "$(grep -qw hypervisor /proc/cpuinfo && echo yes || echo no)" \
	      --arg driver "$(idle_driver)" --arg governor "$(idle_governor)" \
	      --arg governors "$(idle_governors)" \
	      --arg haltpoll_ns "$(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns 2>/dev/null || echo n/a)" \
	      --arg states "$(IFS=';'; echo "${states[*]:-}")" \
	      --arg cpufreq "$(ls /sys/devices/system/cpu/cpufreq 2>/dev/null | tr '\n' ' ')" \
	      --arg msr "$([ -e /dev/cpu/0/msr ] && echo yes || echo no)" \
	      --arg scx "$([ -d /sys/kernel/sched_ext ] && echo yes || echo no)" \
	      --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	      --arg dirty "$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo ' (with uncommitted changes)' || true)" \
	      --arg date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
	      --arg load "$(loadavg)" \
	      '{kernel: $kernel, cpus: ($cpus | tonumber), model: $model, hypervisor: $hyp,
		idle_driver: $driver, idle_governor: $governor, idle_governors: $governors,
		haltpoll_guest_halt_poll_ns: $haltpoll_ns, idle_states: $states,
		cpufreq: $cpufreq, msr: $msr, sched_ext: $scx, commit: ($commit + $dirty),
		date: $date, load_start: $load}'
}

# j FILE FILTER: one value from a result file, "null" when absent.
j() { [ -s "$OUT/$1" ] && jq -r "$2 // null" "$OUT/$1" 2>/dev/null || echo null; }

# verdict VALUE MET: "not measured" for a null value, else met / not met.
verdict() { if [ "$1" = null ]; then echo "not measured"; elif [ "$2" = 1 ]; then echo met; else echo "not met"; fi; }

# goal_rows: TSV lines "goal<TAB>measured<TAB>met|not met|not measured".
goal_rows() {
	local v v2 w best bp ratio worst met miss fe fc bi fi0
	v=$(j overhead.json .ratio_median)
	printf 'overhead: ping-pong at 0 us ratio loaded/not loaded >= 0.97\t%s (median of %s rounds; minimal programs on the same tracepoints alone: %s)\t%s\n' \
		"$(fmt "$v" 4)" "$(j overhead.json .rounds)" "$(fmt "$(j overhead.json '.ref_ratio_median // null')" 4)" \
		"$(verdict "$v" "$(ge "$v" 0.97 && echo 1)")"
	v=$(j overhead.json .ratio20_median)
	printf 'overhead: ping-pong at 20 us ratio loaded/not loaded >= 0.99\t%s (median of %s rounds; minimal programs alone: %s)\t%s\n' \
		"$(fmt "$v" 4)" "$(j overhead.json .rounds)" "$(fmt "$(j overhead.json '.ref_ratio20_median // null')" 4)" \
		"$(verdict "$v" "$(ge "$v" 0.99 && echo 1)")"
	v=$(j overhead.json .loader_cpu_pct_max)
	printf 'overhead: loader <= 1%% of one CPU (ping-pong 0 and 20 us)\t%s %% (worst round)\t%s\n' \
		"$(fmt "$v" 2)" "$(verdict "$v" "$(le "$v" 1 && echo 1)")"
	v=$(j overhead.json .decisions_per_s_cpu_median)
	printf 'overhead: <= 50 decisions/s per CPU on a steady load (ping-pong)\t%s (median of rounds)\t%s\n' \
		"$(fmt "$v" 1)" "$(verdict "$v" "$(le "$v" 50 && echo 1)")"
	v=$(j tools.json .pipe.ratio_median)
	printf 'tools: perf bench sched pipe ratio loaded/not loaded >= 0.97\t%s (median of %s rounds)\t%s\n' \
		"$(fmt "$v" 3)" "$(j tools.json .rounds)" "$(verdict "$v" "$(ge "$v" 0.97 && echo 1)")"
	v=$(j tools.json .hackbench.ratio_median)
	printf 'tools: hackbench speed ratio loaded/not loaded >= 0.97\t%s (median of %s rounds)\t%s\n' \
		"$(fmt "$v" 3)" "$(j tools.json .rounds)" "$(verdict "$v" "$(ge "$v" 0.97 && echo 1)")"
	# Where the idle driver offers more than one state, bpfgov chooses
	# among them and the goal is a lower latency than the kernel's
	# governor gives; with one state (or none) it can only add its cost.
	v=$(j tools.json .cyclictest.delta_median)
	if [ "$(j facts.json '.idle_states | split(";") | map(select(. != "")) | length')" -ge 2 ] 2>/dev/null; then
		w="lower than with the kernel's governor"; met=$(lt "$v" 0 && echo 1)
	else
		w="within +2 us"; met=$(le "$v" 2 && echo 1)
	fi
	printf 'tools: cyclictest average latency %s (idle driver %s)\t%s us (median of %s per-round deltas, 95%% CI %s .. %s; medians on %s, off %s)\t%s\n' \
		"$w" "$(j tools.json .idle_driver)" "$(fmt "$v" 1)" "$(j tools.json '.cyclictest.deltas | map(select(. != null)) | length')" \
		"$(fmt "$(j tools.json '.cyclictest.delta_ci95[0]')" 1)" "$(fmt "$(j tools.json '.cyclictest.delta_ci95[1]')" 1)" \
		"$(fmt "$(j tools.json .cyclictest.on_median)" 1)" \
		"$(fmt "$(j tools.json .cyclictest.off_median)" 1)" "$(verdict "$v" "$met")"
	v=$(j tools.json .cyclictest.decisions_per_s_cpu_median)
	printf 'tools: <= 50 decisions/s per CPU on a periodic load (cyclictest)\t%s (median of rounds)\t%s\n' \
		"$(fmt "$v" 1)" "$(verdict "$v" "$(le "$v" 50 && echo 1)")"

	v=$(j overhead.json '[.prog_all[].ns_per_call | select(. != null)] | max')
	worst=$(j overhead.json '[.prog_all[] | select(.ns_per_call != null)] | max_by(.ns_per_call) | .name')
	# The goal is absolute; the machine's floor for one run (measured
	# beside bpfgov in the same runs) is printed next to it.
	fe=$(j overhead.json '[.ref_all[] | select(.name == "ref_idle_empty") | .ns_per_call][0]')
	fc=$(j overhead.json '[.ref_all[] | select(.name == "ref_idle_clock") | .ns_per_call][0]')
	# Judged where bpfgov runs first at its events, as when it is alone;
	# behind the reference programs (ping-pong) its figure is lower.
	bi=$(j overhead.json '[(.prog_behind // [])[] | select(.name == "bpfgov_cpu_idle") | .ns_per_call][0]')
	fi0=$(j overhead.json '[(.prog_all // [])[] | select(.name == "bpfgov_cpu_idle") | .ns_per_call][0]')
	printf 'overhead: <= 150 ns per BPF program call (each program)\t%s ns worst (%s); cpu_idle %s ns first at its event, %s ns behind the reference programs; reference programs, same runs: empty %s ns, one clock read %s ns (cpu_idle)\t%s\n' \
		"$(fmt "$v" 0)" "$worst" "$(fmt "$fi0" 0)" "$(fmt "$bi" 0)" "$(fmt "$fe" 0)" "$(fmt "$fc" 0)" "$(verdict "$v" "$(le "$v" 150 && echo 1)")"

	v=$(j latency.json .default.latency_us.p99)
	printf 'decision-to-actuation p99 <= 100 us\t%s us (p50 %s, max %s)\t%s\n' "$(fmt "$v" 1)" \
		"$(fmt "$(j latency.json .default.latency_us.p50)" 1)" "$(fmt "$(j latency.json .default.latency_us.max)" 1)" \
		"$(verdict "$v" "$(le "$v" 100 && echo 1)")"

	v=$(j ringbuf.json .drops_total.events)
	v2=$(j ringbuf.json .drops_total.tap)
	printf 'ring buffer: 0 drops at default settings (events; tap with tail attached)\t%s events, %s tap\t%s\n' \
		"$v" "$v2" "$(verdict "$(calc "$v + $v2")" "$([ "$v" = 0 ] && [ "$v2" = 0 ] && echo 1)")"

	if [ "$(j shootout.json .driver)" = none ]; then
		printf 'shoot-out: real idle comparison\tnot measurable: no cpuidle driver (idle loop halts directly; no governor, no PM QoS)\tnot measured\n'
		return_shootout=1
	else
		return_shootout=0
	fi
	for w in 0 20; do
		[ "$return_shootout" = 1 ] && break
		best=$(j shootout.json "[.rows[] | select(.work_us == $w and (.config == \"haltpoll\" or .config == \"menu\" or .config == \"ladder\")) | .loops_per_s] | max")
		bp=$(j shootout.json "[.rows[] | select(.work_us == $w and .config == \"bpfgov\") | .loops_per_s] | first")
		ratio=$(calc "$bp / $best")
		printf 'shoot-out: >= 5x best kernel governor at %s us\t%s× (%s vs %s loops/s)\t%s\n' "$w" \
			"$(fmt "$ratio" 2)" "$(fmt "$bp" 0)" "$(fmt "$best" 0)" "$(verdict "$ratio" "$(ge "$ratio" 5 && echo 1)")"
	done

	v=$(j shootout.json '[.rows[] | select(.work_us == 500 and .config == "bpfgov") | .poll_pct] | first')
	[ "$return_shootout" = 1 ] || printf 'shoot-out: poll time <= 10%% of CPU time at 500 us (bpfgov)\t%s%%\t%s\n' \
		"$(fmt "$v" 1)" "$(verdict "$v" "$(le "$v" 10 && echo 1)")"

	live_goal_rows
	judge_goal_rows
	floor_goal_rows
}

goals_table() { # text|md [ROWS-FUNCTION, default goal_rows]
	local rows=${2:-goal_rows}
	if [ "$1" = text ]; then
		"$rows" | sed 's/\bnull\b/n\/a/g' | awk -F'\t' '{ printf "  %-9s %-78s %s\n", "[" $3 "]", $1, $2 }'
	else
		echo "| goal | measured | result |"
		echo "|---|---|---|"
		"$rows" | sed 's/\bnull\b/n\/a/g' | awk -F'\t' '{ r = $3; if (r == "met") r = "**met**"; else if (r == "not met") r = "**not met**";
			printf "| %s | %s | %s |\n", $1, $2, r }'
	fi
}

cmds() { # SECTION: the exact commands, as a code block
	echo '```sh'
	if [ -s "$OUT/cmds.$1" ]; then cat "$OUT/cmds.$1"; else echo "# (section not run)"; fi
	echo '```'
}

doc_overhead() {
	echo "## 1. Overhead"
	echo
	[ -s "$OUT/overhead.json" ] || { echo "Not run."; echo; return; }
	jq -r '"Ping-pong, one pinned pair on CPUs 0/1, 0 µs (and 20 µs) of work per hop, \(.seconds) s per run; " +
		"\(.rounds) rounds, the order of not loaded, loaded and minimal programs (below) rotating from round to round; " +
		"loaded = `govloader start --no-floor --no-idle` (decisions flow, nothing is written). Load average after the section: \(.load)." ,
		"",
		"| round | not loaded loops/s | loaded loops/s | ratio |", "|---|---|---|---|",
		(range(0; .ratios | length) as $i | "| \($i + 1) | \(.off[$i] | floor) | \(.on[$i] | floor) | \(.ratios[$i] * 10000 | round / 10000) |"),
		"| **median** | **\(.off_median | floor)** | **\(.on_median | floor)** | **\(.ratio_median * 10000 | round / 10000)** |",
		"",
		"Minimal programs alone, same rounds (one per tracepoint bpfgov uses: `ref_idle_clock`, `ref_tick_clock`, `ref_waking_empty`, attached by `bpftool prog loadall` with the other two unpinned): loops/s \((.ref_on // []) | map(if . then floor else "n/a" end) | join(", ")) at 0 µs, ratio to not loaded median **\(.ref_ratio_median // null | if . then (. * 10000 | round / 10000) else "n/a" end)**; at 20 µs median **\(.ref_ratio20_median // null | if . then (. * 10000 | round / 10000) else "n/a" end)**. What attaching to these events costs at all, beside bpfgov'"'"'s own figure.",
		"",
		"At 20 µs of work per hop, same rounds: ratios \(.ratios20 | map(if . then (. * 1000 | round / 1000) else "n/a" end) | join(", ")); median **\(.ratio20_median // "n/a")**. The loader while loaded: CPU time (its threads'"'"' schedstat) \(.loader_cpu_pct | map(if . then (. * 100 | round / 100) else "n/a" end) | join(", ")) % of one CPU per round; decisions/s per CPU \(.decisions_per_s_cpu | map(if . then (. * 10 | round / 10) else "n/a" end) | join(", ")).",
		"",
		(([.off[], .on[]] | map(select(. != null))) as $all |
		 if ($all | length) > 0 and ($all | max) > 1.5 * ($all | min) then
			"Spread: loops/s ranged from \($all | min | floor) to \($all | max | floor) within this section (×\(($all | max) / ($all | min) * 10 | round / 10)); " +
			"ratios of rounds whose two runs landed in different regimes are outliers, hence the median of per-round ratios."
		 else "Spread: loops/s ranged from \($all | min | floor) to \($all | max | floor) within this section." end),
		"",
		"Average cost per call of each BPF program (`kernel.bpf_stats_enabled=1` only during this phase, restored after; deltas of `run_time_ns`/`run_cnt`):",
		"",
		"| program | ns/call under ping-pong | calls | ns/call under switchstorm | calls | ns/call overall |", "|---|---|---|---|---|---|",
		(.prog_all[] as $a | ([.prog_pingpong[] | select(.name == $a.name)][0]) as $p |
		 ([.prog_switchstorm[] | select(.name == $a.name)][0]) as $s |
		 "| `\($a.name)` | \($p.ns_per_call // null | if . == null then "n/a" else floor end) | \($p.calls) | \($s.ns_per_call // null | if . == null then "n/a" else floor end) | \($s.calls) | \($a.ns_per_call // null | if . == null then "n/a" else floor end) |"),
		"",
		"The machine'"'"'s floor for one program run, measured in the same runs: minimal programs attached beside bpfgov on the same tracepoints (`tests/bench/ref.bpf.c`; `*_empty` return at once, `*_clock` store `bpf_ktime_get_ns()` in the CPU'"'"'s own line), counted by the same `bpf_stats` (whose own clock reads per run are in every figure here). The goal above stays absolute.",
		"",
		"| reference program | ns/call under ping-pong | calls | ns/call under switchstorm | calls | ns/call overall |", "|---|---|---|---|---|---|",
		(if ((.ref_all // []) | length) == 0 then "| (not measured) | | | | | |" else empty end),
		((.ref_all // [])[] as $a | ([(.ref_pingpong // [])[] | select(.name == $a.name)][0]) as $p |
		 ([(.ref_switchstorm // [])[] | select(.name == $a.name)][0]) as $s |
		 "| `\($a.name)` | \($p.ns_per_call // null | if . == null then "n/a" else floor end) | \($p.calls) | \($s.ns_per_call // null | if . == null then "n/a" else floor end) | \($s.calls) | \($a.ns_per_call // null | if . == null then "n/a" else floor end) |"),
		"",
		"Position matters: the first program run at an event pays for the event'"'"'s first touches (on the machine that ran the bench, more than an empty run costs). The same ping-pong again with the reference programs attached first, bpfgov behind them:",
		"",
		"| program | ns/call, bpfgov first (above) | ns/call, reference first | calls |", "|---|---|---|---|",
		(if ((.prog_behind // []) | length) == 0 then "| (not measured) | | | |" else empty end),
		((.prog_behind // [])[] as $b | ([(.prog_pingpong // [])[] | select(.name == $b.name)][0]) as $p |
		 "| `\($b.name)` | \($p.ns_per_call // null | if . == null then "n/a" else floor end) | \($b.ns_per_call // null | if . == null then "n/a" else floor end) | \($b.calls) |"),
		((.ref_first // [])[] as $b | ([(.ref_pingpong // [])[] | select(.name == $b.name)][0]) as $p |
		 "| `\($b.name)` | \($p.ns_per_call // null | if . == null then "n/a" else floor end) | \($b.ns_per_call // null | if . == null then "n/a" else floor end) | \($b.calls) |")' \
		"$OUT/overhead.json"
	echo
	cmds overhead
	echo
}

doc_tools() {
	echo "## 1b. The field's own tools"
	echo
	[ -s "$OUT/tools.json" ] || { echo "Not run."; echo; return; }
	jq -r '"`perf bench sched pipe` and `hackbench`, bpfgov at its defaults (trace mode, actuating what the machine has) vs not loaded, \(.rounds) rounds alternating. Load average after the section: \(.load).",
		"",
		"| round | pipe ops/s off | on | ratio | hackbench s off | on | speed ratio |", "|---|---|---|---|---|---|---|",
		(range(0; .pipe.ratios | length) as $i |
		 "| \($i + 1) | \(.pipe.off[$i]) | \(.pipe.on[$i]) | \(.pipe.ratios[$i] // null | if . then (. * 1000 | round / 1000) else "n/a" end) | \(.hackbench.off[$i]) | \(.hackbench.on[$i]) | \(.hackbench.ratios[$i] // null | if . then (. * 1000 | round / 1000) else "n/a" end) |"),
		"| **median** | | | **\(.pipe.ratio_median // "n/a")** | | | **\(.hackbench.ratio_median // "n/a")** |",
		"",
		"`cyclictest` (average wake-up latency of its two threads), \(.cyclictest.rounds) rounds of \(.cyclictest.seconds) s alternating, each `on` run with a fresh `govloader start`. cpuidle driver: `\(.idle_driver)`\(if .idle_driver == "none" then " (bpfgov cannot change the idle state without one, so cyclictest should not move)" else "" end). The average of one run moves by several us from run to run whether bpfgov is loaded or not (on a virtual machine the halt wake-up is the host'"'"'s), so the figure is the median of the per-round deltas, with its distribution-free 95% confidence interval (order statistics) and quartiles; decisions/s per CPU are those bpfgov made while the periodic load ran.",
		"",
		"| round | avg us off | on | delta | median us off | on | delta | decisions/s per CPU |", "|---|---|---|---|---|---|---|---|",
		(range(0; .cyclictest.on | length) as $i |
		 "| \($i + 1) | \(.cyclictest.off[$i]) | \(.cyclictest.on[$i]) | \(.cyclictest.deltas[$i] // null | if . then (. * 10 | round / 10) else "n/a" end) | \(.cyclictest.p50_off[$i] // "n/a") | \(.cyclictest.p50_on[$i] // "n/a") | \(.cyclictest.p50_deltas[$i] // "n/a") | \(.cyclictest.decisions_per_s_cpu[$i] // null | if . then (. * 10 | round / 10) else "n/a" end) |"),
		"| **median** | \(.cyclictest.off_median // "n/a") | \(.cyclictest.on_median // "n/a") | **\(.cyclictest.delta_median // "n/a")** | | | \(.cyclictest.p50_delta_median // "n/a") | \(.cyclictest.decisions_per_s_cpu_median // null | if . then (. * 10 | round / 10) else "n/a" end) |",
		"",
		"Per-round deltas of the average: 95% CI of the median \(.cyclictest.delta_ci95 // ["n/a", "n/a"] | map(tostring) | join(" .. ")) us, quartiles \(.cyclictest.delta_q25 // "n/a") .. \(.cyclictest.delta_q75 // "n/a") us. The median wake-up of each run (all samples of both threads) is less moved by the host'"'"'s late wake-ups; its per-round deltas: 95% CI of the median \(.cyclictest.p50_delta_ci95 // ["n/a", "n/a"] | map(tostring) | join(" .. ")) us."' \
		"$OUT/tools.json"
	echo
	cmds tools
	echo
}

doc_latency() {
	echo "## 2. Decision-to-actuation latency"
	echo
	[ -s "$OUT/latency.json" ] || { echo "Not run."; echo; return; }
	jq -r '"From the BPF timestamp of a decision (`bpf_ktime_get_ns`, CLOCK_MONOTONIC) to the completed write, as `govloader start --report` measures it; " +
		"floors go to MSR stand-in files (`--msr-root`, intel-hwp backend) and idle picks to a stand-in PM QoS tree (`--sysfs-root`), so every sample is a real write; a floor held for a sleeping CPU is not a sample (bpfgov does not wake a CPU to write it: it is applied when the CPU runs). " +
		"Load: `sleep-cycle` 3 ms busy / 5 ms idle on CPU1 for \(.seconds) s.",
		"",
		"The latency is split where the loader starts running for the decision (the end of its wait, or the decision itself when it was already awake): **wake-up** (decision to loader running: the kernel waking a thread, on this platform; the loader sleeps on one CPU, so a decision made on another wakes it with an interprocessor interrupt, and its CPU leaves idle first) and **processing** (loader running to completed write: what bpfgov does). " +
		"The **platform** columns are the load'"'"'s own timer wake-up lateness in the same run (`sleep-cycle`: requested to actual wake-up of a plain thread): what waking a thread (by a timer on its own CPU) costs on this machine without bpfgov.",
		"",
		"| loader | decisions | writes | p50 µs | p99 µs | max µs | wake-up p50 / p99 µs | processing p50 / p99 µs | platform wake-up p50 / p99 µs | restored byte for byte | load |", "|---|---|---|---|---|---|---|---|---|---|---|",
		((.default, .nort) | select(. != null) |
		 "| \(if .options == "" then "default (SCHED_FIFO 1)" else "`\(.options)` (observation)" end) | \(.decisions) | \(.writes) | \(.latency_us.p50) | \(.latency_us.p99) | \(.latency_us.max) | \(.latency_us.wake.p50 // "n/a") / \(.latency_us.wake.p99 // "n/a") | \(.latency_us.processing.p50 // "n/a") / \(.latency_us.processing.p99 // "n/a") | \(.platform_wake_us.p50 // "n/a") / \(.platform_wake_us.p99 // "n/a") | \(.restored) | \(.load) |")' \
		"$OUT/latency.json"
	echo
	echo "The goal is judged on the default row; the \`--no-rt\` row shows how much of the tail is the loader waiting for a busy CPU."
	echo
	cmds latency
	echo
}

doc_ringbuf() {
	echo "## 3. Ring buffer"
	echo
	[ -s "$OUT/ringbuf.json" ] || { echo "Not run."; echo; return; }
	jq -r '"`switchstorm --threads \(.threads)` for \(.seconds) s with bpfgov at default settings; events = busy-run starts and ends + idle entries seen by the BPF programs (`status` counters `switches` and `idle_entries`), decisions = floor + pick changes. Load after: \(.load).",
		"",
		"| | events/s | decisions/s | `events` drops | `tap` drops | switchstorm switches/s |", "|---|---|---|---|---|---|",
		"| no tail | \(.plain.events_per_s | floor) | \(.plain.decisions_per_s | floor) | \(.plain.drops_events) | \(.plain.drops_tap) | \(.plain.storm_switches_per_s | floor) |",
		"| `tail --all --json` attached | \(.tail.events_per_s | floor) | \(.tail.decisions_per_s | floor) | \(.tail.drops_events) | \(.tail.drops_tap) | \(.tail.storm_switches_per_s | floor) |",
		"",
		"With tail attached, tail received \(.tail_records) records: \(.tail_by_kind | to_entries | map("\(.key) \(.value)") | join(", ")). " +
		"Decision records: \(.tail.tail_decisions) received vs \(.tail.decisions) made in the window, \(.tail.decision_seq_missing) missing by their per-CPU sequence numbers; idle-exit records: \(.tail.tail_idle_exits) received vs \(.tail.idle_entries) idle entries counted " +
		"(counters are read just after tail registered and just after the load ended; tail reads 0.5 s longer). Drops over the whole run: events \(.drops_total.events), tap \(.drops_total.tap)."' \
		"$OUT/ringbuf.json"
	echo
	cmds ringbuf
	echo
}

doc_shootout() {
	local drv
	echo "## 4. Real idle shoot-out on the machine that ran the bench"
	echo
	[ -s "$OUT/shootout.json" ] || { echo "Not run."; echo; return; }
	drv=$(j shootout.json .driver)
	if [ "$drv" = none ]; then
		cat <<-EOF
		**Not measurable: the machine that ran the bench has no cpuidle
		driver** (\`current_driver\` = \`none\`). Without a driver the idle loop
		calls \`default_idle_call()\` (HLT) directly: no cpuidle governor is
		consulted (writing \`current_governor\` is accepted but changes
		nothing) and per-CPU PM QoS, the knob bpfgov's idle choice goes
		through, is not consulted either. Every row below runs the same idle
		path, so differences between rows are noise; they are listed only
		for completeness. On a machine with a driver (a KVM guest has
		\`haltpoll\`: POLL and a halt that costs ~100 µs to leave) the same
		commands compare real idle policies.

		EOF
	fi
	jq -r '"cpuidle driver `\(.driver)`, available governors `\(.available)`, default `\(.governor)` (bpfgov rows run under it). One pinned ping-pong pair on CPUs 0/1, \(.seconds) s per cell. " +
		"Poll time: bpfgov from its `status` `poll_ms` (sum over CPUs), kernel governors from cpuidle `state0` (POLL) time where a driver exists; as % of CPU time (\(.rows | length) cells).",
		"",
		"| config | 0 µs | 20 µs | 100 µs | 500 µs |", "|---|---|---|---|---|",
		(.rows | group_by(.config) | sort_by(.[0].config | {"haltpoll":0,"menu":1,"ladder":2,"bpfgov":3,"forced-poll":4}[.] // 9)[] |
		 "| \(.[0].config) | " + (sort_by(.work_us) | map("\(.loops_per_s | floor)") | join(" | ")) + " |"),
		"",
		"Poll time, % of CPU time (n/a: not measurable" + (if .driver == "none" then ": no cpuidle driver, no POLL state time" else ": no POLL state time" end) + "):",
		"",
		"| config | 0 µs | 20 µs | 100 µs | 500 µs |", "|---|---|---|---|---|",
		(.rows | group_by(.config) | sort_by(.[0].config | {"haltpoll":0,"menu":1,"ladder":2,"bpfgov":3,"forced-poll":4}[.] // 9)[] |
		 "| \(.[0].config) | " + (sort_by(.work_us) | map(if .poll_pct == null then "n/a" else (.poll_pct * 10 | round / 10 | tostring | if test("[.]") then . else . + ".0" end) end) | join(" | ")) + " |"),
		"",
		"PM QoS `pm_qos_resume_latency_us` (CPU0 CPU1) sampled mid-run under bpfgov: " +
		([.rows[] | select(.config == "bpfgov") | "\(.work_us) µs: `\(.qos_mid | rtrimstr(" "))`"] | join(", ")) +
		". Load (1 min) during the cells: \([.rows[].load] | min)–\([.rows[].load] | max)."' \
		"$OUT/shootout.json"
	echo
	cmds shootout
	echo
}

write_doc() {
	cat <<-EOF
	# bpfgov benchmarks

	Written by benchmarks, never by hand. Sections 1 to 5 and the goals are
	one run of \`make bench\` (\`tests/bench/run.sh\`) on the machine described
	here; raw results are left in \`$OUT/\`. Each other block (the live idle
	judge, the floor block, the sched_ext guest) is written by its own command
	and starts with the line that names its run: commit, date, host and
	command. \`make bench-all\` runs them all at one commit. The table below
	(\`tests/bench/provenance.sh\`) says which sections are from the current
	build, and which later commits touch what a stale one measured.

	EOF
	doc_vm_block provenance "tests/bench/provenance.sh --write"
	cat <<-EOF

	Benchmarks on a small machine that other work shares are noisy: every
	comparison here alternates its rounds (loaded and not loaded, in turn
	first) and compares ratios measured within one run, never absolute
	numbers across runs.

	## Machine

	EOF
	jq -r '"| | |", "|---|---|",
		"| date | \(.date) |", "| commit | \(.commit) |",
		"| kernel | \(.kernel) |", "| CPUs | \(.cpus) × \(.model)\(if .hypervisor == "yes" then " (VM: hypervisor flag)" else "" end) |",
		"| cpuidle driver | `\(.idle_driver)` |", "| cpuidle governors | `\(.idle_governors)` (default `\(.idle_governor)`) |",
		"| idle states (cpu0) | \(if .idle_states == "" then "none (no driver)" else .idle_states end) |",
		"| haltpoll `guest_halt_poll_ns` | \(.haltpoll_guest_halt_poll_ns) |",
		"| cpufreq | \(if .cpufreq == "" then "none" else .cpufreq end) |", "| `/dev/cpu/0/msr` | \(.msr) |", "| sched_ext | \(.sched_ext) |",
		"| load average (1/5/15 min) | start \(.load_start), end \(.load_end // "n/a") |",
		"| run time | \(.run_seconds // "n/a") s |",
		"| other bpfgov BPF programs loaded | \(.foreign_progs_end // 0) at the end |"' "$OUT/facts.json"
	if [ -s "$OUT/quiet.jsonl" ]; then
		echo
		echo "Other work on the machine: CPU time used while nothing of the benchmark ran, sampled over 1 s just before and just after each section (before a section the benchmark waits up to ${QUIET_WAIT} s for < 10 % and no other bpfgov instance). The load average includes the benchmark's own workloads (switchstorm runs 64 threads)."
		echo
		jq -rs 'group_by(.section) | map(add) | sort_by(.section | {"overhead":0,"tools":1,"latency":2,"ringbuf":3,"shootout":4,"live":4.5,"replay":5}[.] // 9) |
			"| section | others before | others after | waited | load average before | other bpfgov BPF programs |", "|---|---|---|---|---|---|",
			(.[] | "| \(.section) | \(.busy_pct * 10 | round / 10) % | \(if .after_pct == null then "n/a" else "\(.after_pct * 10 | round / 10) %" end) | \(.waited_s) s | \(.load) | \(.foreign_progs) |")' \
			"$OUT/quiet.jsonl"
	fi
	cat <<-EOF

	The benchmark runs bpfgov under its own pin root (\`$PIN\`) and run
	directory (\`BPFGOV_RUN_DIR=$BPFGOV_RUN_DIR\`, for the single-instance lock),
	so the commands below are run with that variable exported. Ping-pong runs
	reuse one calibration (\`--loops-per-us $LPU\`) so that every run does
	identical work.

	## Goals

	Computed from the measured values by \`tests/bench/report.sh\`.

	EOF
	goals_table md
	echo
	doc_overhead
	doc_tools
	doc_latency
	doc_ringbuf
	doc_shootout
	doc_live
	echo "## 4c. Live idle judge in a guest with a cpuidle driver (\`make bench-vm-idle\`)"
	echo
	doc_vm_block live-guest "make bench-vm-idle"
	echo
	doc_replay
	doc_vm
}

# The sched_ext guest's results are measured by `make bench-vm` (timed)
# and `make bench-vm VM_ICOUNT=1` (counted), which splice them between
# these markers (tests/vm/bench-report.sh); a `make bench` run keeps the
# blocks it finds.
doc_vm_block() { # MARKER [COMMAND, default make bench-vm]
	echo "<!-- $1:begin -->"
	if [ -f "$DOC" ] && grep -q "^<!-- $1:begin -->\$" "$DOC"; then
		awk -v b="<!-- $1:begin -->" -v e="<!-- $1:end -->" \
			'$0 == b { on = 1; next } $0 == e { on = 0 } on' "$DOC"
	else
		echo "Not run yet: \`${2:-make bench-vm}\`."
	fi
	echo "<!-- $1:end -->"
}

doc_vm() {
	echo "## 6. sched_ext guest (\`make bench-vm\`)"
	echo
	doc_vm_block bench-vm
	echo
	echo "### Counted, not timed (\`make bench-vm VM_ICOUNT=1\`)"
	echo
	echo "The same guest bench with QEMU counting instructions: path lengths, not"
	echo "times, repeatable from boot to boot (docs/SCX.md says how to read them)."
	echo
	doc_vm_block bench-vm-icount "make bench-vm VM_ICOUNT=1"
}
