# SPDX-License-Identifier: GPL-2.0
# The replay section of `make bench`: the linux-pm reports' scenarios (govlab synth)
# and traces recorded on this machine, replayed for every idle-state table
# synth knows (--table vm, the table a KVM guest's haltpoll driver claims;
# --table truthful, the same with halt's real cost; and the tables of real
# parts from the kernel's drivers: skl, spr, zen, haltpoll), each judged
# with its own verdicts on two axes against the hindsight oracle
# (energy above it, % of one CPU; wake-up latency above it, us per idle
# period), with the goals computed from the replay JSON.
# Sourced by run.sh after lib.sh and report.sh.

JUDGE_TABLES="vm truthful skl spr zen haltpoll"
# Idle columns of the tables, in order; bpfgov's profiles are replayed too.
JUDGE_KERNEL="menu teo ladder haltpoll"

# judge_scenarios: "name|title|synth arguments" lines.
judge_scenarios() {
	cat <<-EOF
	periodic-sweep-100|periodic 100 Hz, load 0-100-0 %|periodic --hz 100 --sweep 0:100:10 --step-s $SWEEP_STEP_S
	periodic-sweep-250|periodic 250 Hz, load 0-100-0 %|periodic --hz 250 --sweep 0:100:10 --step-s $SWEEP_STEP_S
	periodic-sweep|periodic 347 Hz, load 0-100-0 %|periodic --hz 347 --sweep 0:100:10 --step-s $SWEEP_STEP_S
	periodic-sweep-500|periodic 500 Hz, load 0-100-0 %|periodic --hz 500 --sweep 0:100:10 --step-s $SWEEP_STEP_S
	periodic-sweep-1000|periodic 1 kHz, load 0-100-0 %|periodic --hz 1000 --sweep 0:100:10 --step-s $SWEEP_STEP_S
	periodic-sweep-100-jitter|periodic 100 Hz, load 0-100-0 %, jitter 2 ms|periodic --hz 100 --sweep 0:100:10 --step-s $SWEEP_STEP_S --jitter-us 2000
	periodic-sweep-250-jitter|periodic 250 Hz, load 0-100-0 %, jitter 800 us|periodic --hz 250 --sweep 0:100:10 --step-s $SWEEP_STEP_S --jitter-us 800
	periodic-sweep-jitter|periodic 347 Hz, load 0-100-0 %, jitter 500 us|periodic --hz 347 --sweep 0:100:10 --step-s $SWEEP_STEP_S --jitter-us 500
	periodic-sweep-500-jitter|periodic 500 Hz, load 0-100-0 %, jitter 400 us|periodic --hz 500 --sweep 0:100:10 --step-s $SWEEP_STEP_S --jitter-us 400
	periodic-sweep-1000-jitter|periodic 1 kHz, load 0-100-0 %, jitter 200 us|periodic --hz 1000 --sweep 0:100:10 --step-s $SWEEP_STEP_S --jitter-us 200
	periodic-jitter|periodic 347 Hz 30 %, jitter 1 ms|periodic --hz 347 --load 30 --jitter-us 1000 --duration $JUDGE_S
	periodic-100|periodic 100 Hz 30 % (no short gaps)|periodic --hz 100 --load 30 --duration $JUDGE_S
	periodic-1000|periodic 1 kHz 30 %|periodic --hz 1000 --load 30 --duration $JUDGE_S
	impulse-2ms|impulse, 2 ms busy, gaps 747-954 us|impulse --gap-us 747:954 --trials 100 --busy-ms 2
	impulse-3ms|impulse, 3 ms busy, gaps 747-954 us|impulse --gap-us 747:954 --trials 100 --busy-ms 3
	impulse-4ms|impulse, 4 ms busy, gaps 747-954 us|impulse --gap-us 747:954 --trials 100 --busy-ms 4
	impulse-20ms|impulse, 20 ms busy, gaps 747-954 us|impulse --gap-us 747:954 --trials 100 --busy-ms 20
	impulse|impulse, gaps 747-954 us|impulse --gap-us 747:954 --trials 100
	pingpong-0|ping-pong 0 us|pingpong --work-us 0 --duration $PP_TRACE_S
	pingpong-20|ping-pong 20 us|pingpong --work-us 20 --duration $PP_TRACE_S
	pingpong-100|ping-pong 100 us|pingpong --work-us 100 --duration $PP_TRACE_S
	pingpong-500|ping-pong 500 us|pingpong --work-us 500 --duration $PP_TRACE_S
	bursty|bursty server, lulls 5-20 ms|bursty --duration $JUDGE_S
	bimodal|bimodal 20 us / 2 ms, 30 % long|mix --long-pct 30 --duration $JUDGE_S
	phased|phased 20 us / 2 ms, 250 ms phases|mix --phase-ms 250 --duration $JUDGE_S
	phased-busy-light|phased 2 ms busy: 200 us / 10 ms idles, 500 ms phases|mix --work-us 2000 --short-us 200 --long-us 10000 --phase-ms 500 --duration $JUDGE_S
	phased-500|phased 500 us busy: 100 us / 4 ms idles, 100 ms phases|mix --work-us 500 --short-us 100 --long-us 4000 --phase-ms 100 --duration $JUDGE_S
	phased-jitter|phased 1 ms busy: 300 us / 3 ms idles, 250 ms phases, jitter 500 us|mix --work-us 1000 --short-us 300 --long-us 3000 --phase-ms 250 --jitter-us 500 --duration $JUDGE_S
	EOF
}

# record_traces DIR: live traces of this machine under bpfgov (ideal picks
# not applied: --no-idle --no-floor), one per workload. Prints their names.
record_traces() {
	local d=$1 name
	gov_up judge-record --no-floor --no-idle >/dev/null || return 0
	sleep 0.5
	for name in rec-sleepcycle rec-pingpong; do
		rm -f "$d/$name.trace"
		logrun replay "$LAB" record "$d/$name.trace" --duration "$REC_S" --pin-root "$PIN" \
			>"$OUT/$name.record.log" 2>&1 &
		local rpid=$!
		sleep 0.3
		case $name in
		rec-sleepcycle)
			logrun replay "$WORK" sleep-cycle --busy-us 300 --idle-us 700 --duration \
				"$(calc "$REC_S - 0.6")" --cpu 1 --json >/dev/null 2>&1 ;;
		rec-pingpong)
			logrun replay "$WORK" pingpong --pairs 1 --pin --work-us 20 --duration \
				"$(calc "$REC_S - 0.6")" --loops-per-us "$LPU" --json >/dev/null 2>&1 ;;
		esac
		wait "$rpid" 2>/dev/null
		[ -s "$d/$name.trace" ] && echo "$name"
	done
	gov_down
}

# truthful_copy IN OUT COST_JSON: the recorded trace with each non-polling
# state's table entry set to its measured wake-up cost (the replay's median).
truthful_copy() {
	local costs
	costs=$(jq -r '[.states[] | (.cost_ns / 1000 | round)] | join(" ")' "$3")
	awk -v costs="$costs" 'BEGIN { n = split(costs, c, " ") }
		/^records$/ { hdr = 0 }
		/^source / { print $0 " (table: measured costs)"; next }
		/^state / && $6 != "poll" && c[$2 + 1] > 0 { $4 = c[$2 + 1]; $5 = c[$2 + 1] }
		{ print }' "$1" >"$2"
}

# judge_synth DIR: every scenario into DIR/TABLE/NAME.trace, for each table.
judge_synth() {
	local d=$1 tb name title args
	for tb in $JUDGE_TABLES; do
		mkdir -p "$d/$tb"
		while IFS='|' read -r name title args; do
			# shellcheck disable=SC2086
			logrun replay "$LAB" synth $args --table "$tb" -o "$d/$tb/$name.trace" 2>/dev/null ||
				warn "synth $name failed"
		done < <(judge_scenarios)
	done
}

# judge_replay_all DIR: every trace of DIR/TABLE/ replayed at bpfgov's
# defaults with every model, and with the powersave and performance
# profiles against the kernel's idle models; JSON beside each trace.
judge_replay_all() {
	local d=$1 tb f name prof gov=$JUDGE_GOV
	for tb in $JUDGE_TABLES; do
		for f in "$d/$tb"/*.trace; do
			[ -e "$f" ] || continue
			name=$(basename "$f" .trace)
			logrun replay "$LAB" replay "$d/$tb/$name.trace" --haltpoll-ns "$JUDGE_HALTPOLL_NS" --json \
				>"$d/$tb/$name.json" 2>"$d/$tb/$name.err" || { warn "replay $tb/$name: $(head -n1 "$d/$tb/$name.err")"; echo null >"$d/$tb/$name.json"; }
			for prof in powersave performance; do
				logrun replay "$LAB" replay "$d/$tb/$name.trace" --haltpoll-ns "$JUDGE_HALTPOLL_NS" \
					--profile "$prof" --policy "bpfgov,bpfgov@$gov,${JUDGE_KERNEL// /,}" --json \
					>"$d/$tb/$name.$prof.json" 2>/dev/null || echo null >"$d/$tb/$name.$prof.json"
			done
		done
	done
}

sec_replay() {
	local d=$OUT/replay name recs=() gov
	SEC=replay
	hdr "5. Replay: two-axis judge against the hindsight oracle, tables: $JUDGE_TABLES"
	rm -rf "$d"
	mkdir -p "$d"
	gov=$(idle_governor)
	case " $JUDGE_KERNEL " in *" $gov "*) ;; *) gov=menu;; esac
	JUDGE_GOV=$gov
	judge_synth "$d"
	note_cmd replay "# every scenario once per table: --table $(echo $JUDGE_TABLES | sed 's/ /, /g')"
	# not in a subshell: the exit path must know our govloader
	record_traces "$d" >"$d/recorded.list"
	while read -r name; do recs+=("$name"); done <"$d/recorded.list"
	for name in "${recs[@]}"; do
		cp "$d/$name.trace" "$d/vm/$name.trace"
		"$LAB" replay "$d/vm/$name.trace" --policy menu --json >"$d/$name.costs.json" 2>/dev/null &&
			truthful_copy "$d/$name.trace" "$d/truthful/$name.trace" "$d/$name.costs.json"
	done
	judge_replay_all "$d"
	judge_collect "$d" "${recs[@]}" >"$OUT/replay.json"
	judge_plots "$d" "${recs[@]}"
	jq -r '.tables[] | .table as $t | .scenarios[] |
		"  [\($t)] \(.title): bpfgov E \(.p.bpfgov.e | . * 100 | round / 100) % L \(.p.bpfgov.l | . * 10 | round / 10) us; " +
		"verdicts \(.p.bpfgov.v | to_entries | map("\(.key) \(.value)") | join(", "))"' "$OUT/replay.json"
}

# judge_plots DIR RECORDED...: `govlab plot` (gnuplot) into $OUT/plots:
# the energy/latency scatter of every policy per idle table, and the
# timelines of a synthetic and a recorded trace. The doc shows them beside
# the tables; without gnuplot the doc says so.
judge_plots() {
	local d=$1 tb rec
	shift
	rm -rf "$OUT/plots"
	mkdir -p "$OUT/plots"
	if ! command -v "${GNUPLOT:-gnuplot}" >/dev/null; then
		warn "gnuplot is not installed: no plots (scripts/deps.sh installs gnuplot-nox)"
		return 0
	fi
	# note_cmd with the titles quoted, so that the doc's lines run as shown
	local t
	for tb in $JUDGE_TABLES; do
		t="idle policies above the hindsight oracle, table $tb (lower left is better)"
		note_cmd replay "$LAB -q plot scatter $d/$tb/*.trace --title '$t' -o $OUT/plots/scatter-$tb.png"
		"$LAB" -q plot scatter "$d/$tb"/*.trace --title "$t" -o "$OUT/plots/scatter-$tb.png" ||
			warn "plot scatter $tb failed"
	done
	t="periodic 347 Hz, load 0-100-0 %: bpfgov's util, floor and idle pick (replay)"
	note_cmd replay "$LAB -q plot timeline $d/vm/periodic-sweep.trace --title \"$t\" -o $OUT/plots/timeline-periodic-sweep.png"
	"$LAB" -q plot timeline "$d/vm/periodic-sweep.trace" --title "$t" \
		-o "$OUT/plots/timeline-periodic-sweep.png" || warn "plot timeline periodic-sweep failed"
	for rec in "$@"; do
		[ "$rec" = rec-sleepcycle ] || continue
		t="sleep-cycle 300/700 us on CPU 1, recorded here: bpfgov's util, floor and idle pick (replay)"
		note_cmd replay "$LAB -q plot timeline $d/$rec.trace --cpu 1 --title \"$t\" -o $OUT/plots/timeline-$rec.png"
		"$LAB" -q plot timeline "$d/$rec.trace" --cpu 1 --title "$t" \
			-o "$OUT/plots/timeline-$rec.png" || warn "plot timeline $rec failed"
	done
}

# judge_collect DIR RECORDED...: one JSON document for the report.
judge_collect() {
	local d=$1 tb name title args
	shift
	for tb in $JUDGE_TABLES; do
		{
			while IFS='|' read -r name title args; do
				printf '%s\t%s\t%s\n' "$name" "$title" "synth $args --table $tb"
			done < <(judge_scenarios)
			for name in "$@"; do
				printf '%s\t%s\t%s\n' "$name" "recorded: $name" "govlab record"
			done
		} | while IFS=$'\t' read -r name title args; do
			[ -s "$d/$tb/$name.json" ] || continue
			jq -c --arg name "$name" --arg title "$title" --arg args "$args" --arg tb "$tb" \
			      --slurpfile ps "$d/$tb/$name.powersave.json" \
			      --slurpfile pf "$d/$tb/$name.performance.json" '
				def ax(x): if x == null or x.idle == null then null else
					{e: x.idle.energy_distance_pct, l: x.idle.latency_distance_us,
					 v: x.idle.verdicts, poll: (if x.idle.idle_ns > 0 then x.idle.poll_ns / x.idle.idle_ns * 100 else 0 end)} end;
				def fr(x): if x == null or x.freq == null then null else
					{floor: x.freq.mean_floor, gaps: x.freq.short_gaps, gaps_low: x.freq.short_gaps_to_lowest,
					 cps: x.freq.floor_changes_per_s, desired: x.freq.mean_desired,
					 writes: x.freq.request_writes_per_s,
					 fe: x.freq.energy_above_oracle_pct, fd: x.freq.delay_above_oracle_us,
					 fs: x.freq.slowdown_pct, fv: x.freq.floor_verdicts,
					 locks: x.freq.locks, locks_low: x.freq.locks_at_lowest} end;
				select(. != null) |
				{name: $name, title: $title, args: $args, table: $tb, source: .source,
				 oracle: .judge.oracle, power: .judge.power_model,
				 p: ((.policies | to_entries | map({key, value: ax(.value)}) | from_entries) +
				     ($ps[0] // {} | .policies // {} | to_entries | map({key: ("powersave:" + .key), value: ax(.value)}) | from_entries) +
				     ($pf[0] // {} | .policies // {} | to_entries | map({key: ("performance:" + .key), value: ax(.value)}) | from_entries)),
				 floor_judge: .floor_judge,
				 f: ((.policies | to_entries | map({key, value: fr(.value)}) | from_entries) +
				     {"powersave:bpfgov": fr($ps[0] // {} | .policies // {} | .bpfgov),
				      "performance:bpfgov": fr($pf[0] // {} | .policies // {} | .bpfgov)})}' \
				"$d/$tb/$name.json"
		done | jq -s --arg tb "$tb" '{table: $tb, scenarios: .}'
	done | jq -s --arg gov "$JUDGE_GOV" --arg kern "$JUDGE_KERNEL" --arg hp "$JUDGE_HALTPOLL_NS" \
		'{available: true, governor: $gov, kernel: ($kern | split(" ")), haltpoll_ns: $hp, tables: .}'
}

# ------------------------------------------------------------- goals

# JQ_GOALS: jq helpers of the goal rows. A missing value is never 0: a
# policy's total over the scenarios is null where any scenario lacks it,
# and ok(null) is "not measured".
JQ_GOALS='
	def r2: if . == null then "n/a" else . * 100 | round / 100 end;
	def r1: if . == null then "n/a" else . * 10 | round / 10 end;
	def ok(b): if b == null then "not measured" elif b then "met" else "not met" end;
	def total($S; c; $k; $ax): [$S[] | c | .[$k][$ax]] |
		if length == 0 or any(. == null) then null else add end;
	# lowest: the policies with a total, lowest first; lowest_all: none at
	# all unless every policy of the list has its total.
	def lowest(r): [r[] | select(.s != null)] | sort_by(.s);
	def lowest_all(r): if any(r[]; .s == null) then [] else r | sort_by(.s) end;
	def le_or_null(a; b): if a == null or b == null then null else a <= b + 1e-9 end;
	def none_missing(l): if (l | length) == 0 or any(l[]; . == null) then null else true end;'

# judge_goal_rows: TSV "goal<TAB>measured<TAB>met|not met|not measured".
judge_goal_rows() {
	[ "$(j replay.json .available)" = true ] || {
		printf 'replay: the goals of the judge\tnot run\tnot measured\n'
		return
	}
	jq -r "$JQ_GOALS"'
		.governor as $gov | .kernel as $K |
		.tables[] | .table as $t | .scenarios as $S |
		# The goals are judged on the as-actuated columns alone (bpfgov@GOV):
		# the ideal column enters the pick capped by the next timer at every
		# idle entry, which no live mechanism does.
		# balanced: dominated nowhere; a scenario without the policy'"'"'s
		# verdicts leaves the goal not measured
		(["bpfgov@" + $gov][] as $p |
		 [$S[] | select(.p[$p].v == null) | .title] as $miss |
		 [$S[] | select(.p[$p].v != null) | .title as $n | .p as $q |
		  (.p[$p].v | to_entries[] | select(.value == "dominated") |
		   "\($n) by \(.key) (E/L \($q[$p].e | r2)/\($q[$p].l | r1) vs \($q[.key].e | r2)/\($q[.key].l | r1))")] as $bad |
		 "[\($t)] balanced (\($p)): dominated in no scenario\t" +
		 (if ($bad | length) > 0 then "\($bad | length) dominations: " + ($bad | join("; "))
		  elif ($S | length) == 0 then "no scenario"
		  elif ($miss | length) > 0 then "no verdicts in \($miss | length) of \($S | length) scenarios: " + ($miss | join("; "))
		  else "0 of \($S | length) scenarios" end) +
		 "\t" + (if ($bad | length) > 0 then ok(false) elif ($S | length) == 0 or ($miss | length) > 0 then ok(null) else ok(true) end)),
		# balanced: total distance on each axis <= the best kernel model
		((["e", "energy above oracle, sum of % of a CPU"], ["l", "latency above oracle, sum of us/idle"]) as [$ax, $axn] |
		 (lowest_all([$K[] as $k | {k: $k, s: total($S; .p; $k; $ax)}]) | .[0]) as $best |
		 total($S; .p; "bpfgov@" + $gov; $ax) as $b |
		 "[\($t)] balanced: \($axn) <= best kernel model\t\($b | r2) vs \($best.k // "no kernel model") \($best.s | r2)\t" + ok(le_or_null($b; $best.s))),
		# profiles: lowest distance of all policies on their axis
		(["powersave", "e", "energy"], ["performance", "l", "latency"]) as [$prof, $ax, $axn] |
		# the kernel models and bpfgov as actuated under GOV, each profile
		("bpfgov@" + $gov) as $act |
		([$S[0].p // {} | keys[] | select(startswith("powersave:") or startswith("performance:") | not) |
		  select($S[0].p[.] != null) | select(startswith("bpfgov") | not)] +
		 [$act, "powersave:" + $act, "performance:" + $act] | unique) as $all |
		lowest([$all[] as $k | {k: $k, s: total($S; .p; $k; $ax)}]) as $rank |
		total($S; .p; $prof + ":" + $act; $ax) as $me |
		([$rank[] | select(.k != ($prof + ":" + $act))][0]) as $next |
		"[\($t)] \($prof): lowest \($axn) distance of all policies (sum over scenarios)\t\($me | r2) vs next \($next.k // "no policy") \($next.s | r2)\t" +
		ok(le_or_null($me; $next.s))
	' "$OUT/replay.json"
	jq -r "$JQ_GOALS"'
		.tables[] | select(.table == "vm") | .scenarios as $S |
		([$S[] | select(.name | test("^(impulse|periodic)")) | {n: .title, g: .f.bpfgov.gaps_low, t: .f.bpfgov.gaps}]) as $g |
		"floor: 0 short gaps followed by the lowest floor (impulse, periodic)\t" +
		(if ($g | length) == 0 then "no impulse or periodic scenario" else ($g | map("\(.n) \(.g // "n/a")/\(.t // "n/a")") | join(", ")) end) +
		"\t" + ok(if none_missing($g | map(.g)) then ($g | map(.g) | add) == 0 else null end),
		([$S[] | {n: .title, b: .f.bpfgov.cps, s: .f.schedutil.cps}]) as $c |
		([$c[] | select(.b != null and .s != null and .b > .s + 1e-9)]) as $bad |
		"floor: changes per second no more than the schedutil model in any scenario\t" +
		(if ($bad | length) > 0 then ($bad | map("\(.n): \(.b | r1) vs \(.s | r1)/s") | join("; "))
		 elif none_missing($c | map(.b, .s)) == null then "not measured in \([$c[] | select(.b == null or .s == null)] | length) of \($c | length) scenarios"
		 else "0 of \($S | length) scenarios above (max bpfgov \([$c[] | .b] | max | r1)/s)" end) +
		"\t" + (if ($bad | length) > 0 then ok(false) else ok(none_missing($c | map(.b, .s))) end),
		([$S[] | select(.f.bpfgov.gaps == 0) | {n: .title, b: .f.bpfgov.floor, h: .f["hwp-1"].floor}]) as $ng |
		"floor: mean floor within 1.1x of hwp-1 where no short gaps occur\t" +
		(if ($ng | length) == 0 then "no scenario without short gaps"
		 else ($ng | map("\(.n): \(.b | if . == null then "n/a" else round end) vs \(.h | if . == null then "n/a" else round end) (\(if .b != null and .h > 0 then (.b / .h | r2) else "n/a" end)x)") | join("; ")) end) +
		"\t" + ok(if none_missing($ng | map(.b, .h)) then all($ng[]; .b <= 1.1 * .h + 1e-9) else null end)
	' "$OUT/replay.json"
}

# floor_goal_rows: the floor judge's goals (table vm: the floor does not
# depend on the idle table), TSV like judge_goal_rows.
floor_goal_rows() {
	[ "$(j replay.json .available)" = true ] || {
		printf 'floor judge: the goals\tnot run\tnot measured\n'
		return
	}
	jq -r "$JQ_GOALS"'
		.tables[] | select(.table == "vm") | .scenarios as $S |
		["hwp-auto", "schedutil", "hwp-passive", "hwp-3/4", "hwp-7/8"] as $M |
		[$S[] | select(.f.bpfgov.fv == null) | .title] as $miss |
		([$S[] | .title as $n | .f as $f | select($f.bpfgov.fv != null) | $f.bpfgov.fv | to_entries[] |
		  select(.value == "dominated") |
		  "\($n) by \(.key) (E/D \($f.bpfgov.fe | r2)/\($f.bpfgov.fd | r1) vs \($f[.key].fe | r2)/\($f[.key].fd | r1))"]) as $bad |
		"floor, balanced: dominated by no model in any scenario\t" +
		(if ($bad | length) > 0 then "\($bad | length) dominations: " + ($bad | join("; "))
		 elif ($S | length) == 0 then "no scenario"
		 elif ($miss | length) > 0 then "no verdicts in \($miss | length) of \($S | length) scenarios: " + ($miss | join("; "))
		 else "0 of \($S | length) scenarios" end) + "\t" +
		(if ($bad | length) > 0 then ok(false) elif ($S | length) == 0 or ($miss | length) > 0 then ok(null) else ok(true) end),
		# Why an energy goal is not met: the scenarios where the policy
		# uses the energy of the hardware alone (hwp-auto, within the
		# tie) while a model below it sets the level itself: a minimum
		# cannot lower the level the hardware picks.
		def floor_bound($pol; $best):
			[$S[] | .f as $f | select(($f[$pol].fe // 0) - ($f["hwp-auto"].fe // 0) | fabs <= 0.5) |
			 select(($f[$pol].fe // 0) > ($f[$best].fe // 0) + 0.5) |
			 {t: .title, d: (($f[$pol].fe // 0) - ($f[$best].fe // 0))}] as $fb |
			if ($fb | length) == 0 then "" else
			": a minimum cannot lower the level the hardware picks; in \($fb | length) scenarios the policy has the energy of the hardware alone (hwp-auto within 0.5), \($fb | map(.d) | add | r2) above \($best), which sets the level itself (" +
			($fb | map(.t) | join("; ")) + ")" end;
		((["fe", "energy above oracle, sum of % of its energy"], ["fd", "delay above oracle, sum of us/busy segment"]) as [$ax, $axn] |
		 (lowest_all([$M[] as $k | {k: $k, s: total($S; .f; $k; $ax)}]) | .[0]) as $best |
		 total($S; .f; "bpfgov"; $ax) as $b |
		 "floor, balanced: \($axn) <= best model\t\($b | r2) vs \($best.k // "no model") \($best.s | r2)" +
		 (if $ax == "fe" and le_or_null($b; $best.s) == false then floor_bound("bpfgov"; $best.k) else "" end) +
		 "\t" + ok(le_or_null($b; $best.s))),
		((["powersave", "fe", "energy"], ["performance", "fd", "delay"]) as [$prof, $ax, $axn] |
		 (["bpfgov", "powersave:bpfgov", "performance:bpfgov", "hwp-1"] + $M) as $all |
		 lowest([$all[] as $k | {k: $k, s: total($S; .f; $k; $ax)}]) as $rank |
		 ([$rank[] | select(.k != ($prof + ":bpfgov"))][0]) as $next |
		 total($S; .f; $prof + ":bpfgov"; $ax) as $me |
		 "floor, \($prof): lowest \($axn) above the oracle of all policies (sum over scenarios)\t\($me | r2) vs next \($next.k // "no policy") \($next.s | r2)" +
		 (if $ax == "fe" and le_or_null($me; $next.s) == false then floor_bound($prof + ":bpfgov"; $next.k) else "" end) + "\t" +
		 ok(le_or_null($me; $next.s))),
		([$S[] | select(.name | test("^(impulse|periodic)")) | {n: .title, l: .f.bpfgov.locks_low, t: .f.bpfgov.locks}]) as $g |
		"floor: 0 lock trials at the lowest level (impulse, periodic)\t" +
		(if ($g | length) == 0 then "no impulse or periodic scenario" else ($g | map("\(.n) \(.l // "n/a")/\(.t // "n/a")") | join(", ")) end) +
		"\t" + ok(if none_missing($g | map(.l)) then ($g | map(.l) | add) == 0 else null end)
	' "$OUT/replay.json"
}

# doc_floor: the floor judge's part of the replay section, between the
# markers that tests/bench/floor.sh rewrites on its own.
doc_floor() {
	echo "<!-- floor:begin -->"
	prov_line "${BENCH_COMMAND:-$(prov_command floor)}"
	echo
	echo "### The floor: energy and delay against the hindsight oracle (table \`vm\`)"
	echo
	if [ "$(j replay.json .available)" != true ]; then
		echo "Not run."
		echo
		echo "<!-- floor:end -->"
		return
	fi
	jq -r '
		def r2: if . == null then "–" else . * 100 | round / 100 | tostring end;
		def r1: if . == null then "–" else . * 10 | round / 10 | tostring end;
		def vshort: {"win": "W", "tie": "=", "dominated": "D", "trade-off": "T"}[.] // "?";
		(.tables[] | select(.table == "vm") | .scenarios) as $S |
		["hwp-auto", "schedutil", "hwp-passive", "hwp-3/4", "hwp-7/8"] as $M |
		(["bpfgov", "powersave:bpfgov", "performance:bpfgov"] + $M + ["hwp-1"]) as $cols |
		"Every busy segment of every trace is run again under each policy'"'"'s floor through the platform model, and judged against the hindsight oracle (docs/DESIGN.md, \"The floor judge\"): **E** = energy above the oracle in % of the oracle'"'"'s energy, **D** = completion after the oracle'"'"'s in µs per busy segment (negative: sooner, paid in energy), **S** = busy segments finished later than the oracle'"'"'s, %. " +
		"Platform and power model: `\($S[0].floor_judge.platform)`; the oracle runs each segment at max(\($S[0].floor_judge.oracle_f_eff_mhz | round) MHz, work / time to the next segment). " +
		"Policies: bpfgov at its defaults (balanced) and with its powersave and performance profiles, on an HWP part (floor = HWP minimum, written by the loader: an IPI; `floor_eff` at the model'"'"'s f_eff, as `start` reads the part'"'"'s efficient level); `hwp-auto`, the hardware alone (HWP active, no floor, EPP balance_performance); `schedutil` on a non-HWP cpufreq driver (its target is the frequency); `hwp-passive`, schedutil through the kernel'"'"'s passive HWP path (min = bw_min, desired = target); `hwp-3/4`, `hwp-7/8`: proposals of the thread in which the 30 ms drop was reported (HWP min = part of schedutil'"'"'s target), `hwp-1` the whole target, none of them a kernel path.",
		"",
		"| scenario | " + ($cols | map(sub(":bpfgov"; "")) | join(" | ")) + " |",
		"|---|" + ($cols | map("---") | join("|")) + "|",
		($S[] | .f as $f | "| \(.title) | " +
		 ($cols | map($f[.] | if . == null or .fe == null then "–" else "\(.fe | r2) / \(.fd | r1) (\(.fs | r1) %)" end) | join(" | ")) + " |"),
		"| **sum** | " + ($cols | map(. as $c | [$S[] | .f[$c] | select(. != null and .fe != null)] |
			if length == 0 then "–" else "**\(map(.fe) | add | r2) / \(map(.fd) | add | r1)**" end) | join(" | ")) + " |",
		"",
		"Cells: E % / D µs (S %). Lock trials (a gap of the report'"'"'s window after busy time; the same trials for every HWP policy) that found the floor at the lowest level, and verdicts of bpfgov (balanced) against each model (W win, = tie, D dominated, T trade-off; ties within \($S[0].floor_judge.tie_energy_pct) % of the oracle'"'"'s energy and " + (if $S[0].floor_judge.tie_delay_rule == "relative" then "the same share of its busy time per segment, \([$S[].floor_judge.tie_delay_us] | min | . * 100 | round / 100) to \([$S[].floor_judge.tie_delay_us] | max | . * 10 | round / 10) µs" else "\($S[0].floor_judge.tie_delay_us) µs per busy segment" end) + "):",
		"",
		"| scenario | locks at lowest: bpfgov | hwp-auto | hwp-3/4 | hwp-7/8 | " + ($M | map("vs " + .) | join(" | ")) + " |",
		"|---|---|---|---|---|" + ($M | map("---") | join("|")) + "|",
		($S[] | .f as $f | "| \(.title) | " +
		 (["bpfgov", "hwp-auto", "hwp-3/4", "hwp-7/8"] | map($f[.] | if . == null or .locks == null then "–" else "\(.locks_low)/\(.locks)" end) | join(" | ")) + " | " +
		 ($M | map(. as $m | $f.bpfgov.fv[$m] // "-" | vshort) | join(" | ")) + " |")
	' "$OUT/replay.json"
	echo
	echo "Goals of the floor (also in the goals table above):"
	echo
	goals_table md floor_goal_rows
	echo
	echo "<!-- floor:end -->"
}

# ------------------------------------------------------------- doc

doc_replay() {
	echo "## 5. Replay: the judge"
	echo
	if [ "$(j replay.json .available)" != true ]; then
		echo "Not run."
		echo
		return
	fi
	jq -r '
		def r2: if . == null then "–" else . * 100 | round / 100 | tostring end;
		def r1: if . == null then "–" else . * 10 | round / 10 | tostring end;
		def vshort: {"win": "W", "tie": "=", "dominated": "D", "trade-off": "T"}[.] // "?";
		.governor as $gov | .kernel as $K |
		"Every trace is replayed by `govlab replay --json` through bpfgov'"'"'s policy core, the kernel models and bpfgov as actuated under the idle governor of the machine that ran the bench (`bpfgov@\($gov)`), at bpfgov'"'"'s defaults (balanced) and with `--profile powersave` / `--profile performance`. " +
		"Each idle period is judged against the hindsight oracle (docs/DESIGN.md, \"The judge\"): **E** = energy above the oracle in % of one CPU (power model: polling 1, halt 0.3, a wake-up costs its latency at full power), **L** = wake-up latency above the oracle in µs per idle period. Lower is better on both; L < 0 buys latency with energy. " +
		"haltpoll runs with `guest_halt_poll_ns` = \(.haltpoll_ns) (that machine'"'"'s). Synthetic traces use the costs of a KVM guest (halt 100 µs to wake, poll 1 µs); `--table vm` gives the governors the table such a guest claims (halt 1/1 µs), `--table truthful` one that states the real cost. The tables `skl` (intel_idle, Skylake clients: POLL C1 C1E C3 C6 C7s C8 C9 C10), `spr` (intel_idle, Sapphire Rapids: POLL C1 C1E C6), `zen` (acpi_idle on an AMD Zen _CST) and `haltpoll` (cpuidle-haltpoll) are the kernel drivers'"'"' own tables, each wake-up costing the table'"'"'s exit latency (bare metal; `govlab synth --help`). Recorded traces were taken on that machine with `govlab record`; their truthful copy sets the table to the measured costs.",
		"",
		"The goals are judged on the as-actuated columns (`bpfgov@\($gov)`, each profile as actuated). The last column, `bpfgov ideal`, enters bpfgov'"'"'s pick itself, capped at each idle entry by the next timer: no live mechanism does that (the pick is a standing constraint), so it is shown for comparison only and judged on nothing.",
		"",
		("bpfgov@" + $gov) as $act |
		def lab: if . == "bpfgov" then "bpfgov ideal" else sub(":bpfgov"; "") end;
		(.tables[] | .table as $t | .scenarios as $S |
		 ([$act, "powersave:" + $act, "performance:" + $act] + $K + ["ladder-balanced", "bpfgov"]) as $cols |
		 "### Table `\($t)`: E % of a CPU / L µs per idle",
		 "",
		 "| scenario | oracle E abs. | " + ($cols | map(lab) | join(" | ")) + " |",
		 "|---|---|" + ($cols | map("---") | join("|")) + "|",
		 ($S[] | .p as $p | "| \(.title) | \(.oracle.energy_pct | r1) % | " +
		  ($cols | map($p[.] | if . == null then "–" else "\(.e | r2) / \(.l | r1)" end) | join(" | ")) + " |"),
		 "| **sum** | | " + ($cols | map(. as $c | [$S[] | .p[$c] | select(. != null)] |
			if length == 0 then "–" else "**\(map(.e) | add | r2) / \(map(.l) | add | r1)**" end) | join(" | ")) + " |",
		 "",
		 "Verdicts against " + ($K | join(", ")) + " (W win, = tie, D dominated, T trade-off; ties within 0.1 % of a CPU and 0.5 µs/idle):",
		 "",
		 "| scenario | " + ([$act, "powersave:" + $act, "performance:" + $act, "bpfgov"] | map(lab) | join(" | ")) + " |",
		 "|---|---|---|---|---|",
		 ($S[] | .p as $p | "| \(.title) | " +
		  ([$act, "powersave:" + $act, "performance:" + $act, "bpfgov"] |
		   map($p[.] | if . == null then "–" else ([$K[] as $k | .v[$k] // "-" | vshort] | join(" ")) end) | join(" | ")) + " |"),
		 ""),
		"### Frequency (table `vm`; the floor does not depend on the idle table)",
		"",
		"Mean floor (/1024), short gaps (< 1 ms) followed by the lowest floor, floor changes per second. hwp-3/4 and hwp-7/8 are the linux-pm thread'"'"'s proposals and hwp-1 is \"floor = whole target\", none of them a kernel path; hwp-passive is the kernel'"'"'s HWP passive path (min = bw_min, so always the lowest; its cell shows the desired level and HWP_REQUEST writes per second instead).",
		"",
		(["bpfgov", "schedutil", "hwp-passive", "hwp-1", "hwp-7/8", "hwp-3/4"]) as $fc |
		"| scenario | " + ($fc | join(" | ")) + " |",
		"|---|" + ($fc | map("---") | join("|")) + "|",
		(.tables[] | select(.table == "vm") | .scenarios[] | .f as $f | "| \(.title) | " +
		 ($fc | map(. as $c | $f[$c] | if . == null then "–"
			elif $c == "hwp-passive" then "desired \(.desired | round), \(.writes | r1) writes/s"
			else "\(.floor | round), \(.gaps_low)/\(.gaps), \(.cps | r1)/s" end) | join(" | ")) + " |")
	' "$OUT/replay.json"
	echo
	doc_floor
	echo
	doc_plots
	cmds replay
	echo
}

# doc_plots: the plots of judge_plots, as images next to the doc
# (bench/NAME, copied there by run.sh).
doc_plots() {
	local tb
	echo "### Plots"
	echo
	if [ -z "$(ls "$OUT/plots" 2>/dev/null)" ]; then
		echo "Not drawn: \`govlab plot\` needs gnuplot (\`apt-get install gnuplot-nox\`)."
		echo
		return
	fi
	echo "Drawn by \`govlab plot\` from the traces above. Scatter: each panel is one trace, each point one policy at (L, E); the hindsight oracle is the origin. Timeline: bpfgov's policy core replayed over the trace, util and floor as ratios of the CPU's range, the idle pick on the right axis."
	echo
	for tb in $JUDGE_TABLES; do
		[ -e "$OUT/plots/scatter-$tb.png" ] &&
			printf '![Energy and latency above the oracle, table %s](bench/scatter-%s.png)\n\n' "$tb" "$tb"
	done
	[ -e "$OUT/plots/timeline-periodic-sweep.png" ] &&
		printf '![Timeline of the periodic sweep](bench/timeline-periodic-sweep.png)\n\n'
	[ -e "$OUT/plots/timeline-rec-sleepcycle.png" ] &&
		printf '![Timeline of a sleep-cycle trace recorded on the machine that ran the bench](bench/timeline-rec-sleepcycle.png)\n\n'
	return 0
}
