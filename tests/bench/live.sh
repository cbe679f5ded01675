# SPDX-License-Identifier: GPL-2.0
# The live idle judge of `make bench`: on a machine with a cpuidle driver,
# every configuration (each kernel governor, the haltpoll governor at the
# kernel's default window as well as at this machine's own setting, polling
# forced through PM QoS, bpfgov with each profile) against every workload
# (pinned ping-pong at 0/20/100/500 us, a quiet machine after a burst,
# cyclictest --laptop at 2 ms and 500 us, rt-app's periodic tasks: two of
# 1 ms every 10 ms, the workload generator of the schedutil/EAS work), on
# two axes measured by the
# kernel: performance (loops/s, or cyclictest's average latency) and energy:
# the CPU time spent not working, as a share of all CPUs' time: time in
# POLL (cpuidle state0) plus the loader's own CPU time (its threads'
# schedstat). Halts per second, the loader's knob writes per CPU and its
# wake-ups are shown beside them; a halt's cost is in the performance axis
# (its exit), and its alternative, polling, in the energy axis.
# A verdict per workload for bpfgov's balanced profile against each kernel
# configuration, from the medians of the rounds (ties inside a band per
# axis); where the medians differ beyond the band but the two cells'
# rounds overlap on that axis, and a tie there would change the verdict,
# it is "unresolved" (shown as "X?", X the medians' verdict): a verdict
# the rounds contradict is not claimed, and a "dominated?" still keeps
# the goal unmet, so it is not hidden either. The balanced profile runs
# once more under `govloader record` (bpfgov-balanced-recorded), whose
# traces replay as actuated against the poll share the kernel measured in
# the same cells. Where the machine has no cpuidle driver nothing here is
# measurable and the section says so.
# Sourced by run.sh after lib.sh and report.sh.

LIVE_WORKLOADS=${BENCH_LIVE_WORKLOADS:-"pp0 pp20 pp100 pp500 quiet ct2000 ct500 rtapp"}
LIVE_PROFILES="balanced powersave performance"
# Rounds: every configuration runs every workload once per round, and
# each cell is the median of its rounds (BENCH_LIVE_ROUNDS; 1 on bare
# metal, 3 in a virtual machine (the CPU's hypervisor flag), whose vCPUs
# wait for the host now and then: one round there moved cyclictest's
# cells by 10 % and more between configurations that poll and halt alike).
# Within a round, one workload runs under every configuration in turn
# before the next workload starts (bpfgov started afresh for each cell):
# the cells a verdict compares are a minute or two apart, so a change in
# the host's load falls on all configurations of a workload alike, not on
# whichever configuration ran its eight workloads while it lasted. The
# order of the configurations changes from round to round (live_order).
if [ -z "${BENCH_LIVE_ROUNDS:-}" ] && grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
	LIVE_ROUNDS=3
else
	LIVE_ROUNDS=${BENCH_LIVE_ROUNDS:-1}
fi
LIVE_ROUND=1
# Options added to every bpfgov cell's `govloader start` (BENCH_LIVE_GOVOPT,
# e.g. --set pick_dwell_ms=100: a tunable judged before it is a default).
LIVE_GOVOPT=${BENCH_LIVE_GOVOPT:-}
# A variant of the balanced profile judged in the same boot and rounds
# (BENCH_LIVE_VARIANT=NAME:OPT,OPT..., e.g. dwell100:--set,pick_dwell_ms=100):
# config bpfgov-balanced+NAME, its own verdicts, no goals. Ratios in one
# boot: a guest's timed cells drift between boots more than a tunable
# moves them. Unset, on a machine whose governor leaves stateK/disable
# alone (haltpoll, ladder) and that has menu, the variant is balanced
# inside menu (menu:--idle-governor,menu): what `start --idle-governor
# menu` gives there. BENCH_LIVE_VARIANT= (empty) runs none.
LIVE_VARIANT=${BENCH_LIVE_VARIANT-auto}
[ -z "$LIVE_VARIANT" ] || [ "$LIVE_VARIANT" = auto ] ||
	LIVE_VARIANT="${LIVE_VARIANT%%:*}:$(tr , ' ' <<<"${LIVE_VARIANT#*:}")"
# JQ_VLABEL: a verdict as the tables print it, `vlabel` ("X?" for one the
# rounds do not resolve, X the medians' verdict).
JQ_VLABEL='def vlabel: if .verdict == "unresolved" then "\(.by_median)?" else .verdict end;'
# Ties: performance within 3 % (BENCH_LIVE_TIE_PERF_PCT: 10 in the emulated
# guest of `make bench-vm-idle`, whose timed cells swing by tens of
# percent), energy within 1 point of CPU time. The band is in live.json.
LIVE_TIE_PERF_PCT=${BENCH_LIVE_TIE_PERF_PCT:-3}
LIVE_TIE_POLL_PTS=1
HP_NS=/sys/module/haltpoll/parameters/guest_halt_poll_ns
HP_ORIG=

# live_state_sum FIELD STATE: sum over CPUs of cpuidle stateN/FIELD.
live_state_sum() {
	local c t=0 f
	for c in $(seq 0 $((NCPU - 1))); do
		f=/sys/devices/system/cpu/cpu$c/cpuidle/state$2/$1
		[ -r "$f" ] && t=$((t + $(cat "$f")))
	done
	echo "$t"
}
live_halts() { local k t=0 n; for k in 1 2 3 4 5 6 7; do
	n=$(live_state_sum usage "$k"); t=$((t + n)); done; echo "$t"; }

# live_cost: the running instance's cost so far, "CPU_NS WRITES WAKEUPS":
# its CPU time from the kernel's own account of its threads (schedstat,
# not the loader's word), the knob writes and loop wake-ups it counts;
# "0 0 0" with no instance (a kernel governor costs no loader); CPU_NS -1
# where the kernel keeps no schedstat (no figure, not 0).
live_cost() {
	local s pid
	s=$(gov_status) && pid=$(jq -r '.actuator.pid // empty' <<<"$s") && [ -n "$pid" ] ||
		{ echo 0 0 0; return; }
	echo "$(proc_cpu_ns "$pid") $(jq -r '"\([.actuator.cpus[].writes] | add // 0) \(.actuator.loop_wakeups // 0)"' <<<"$s")"
}

# live_one CONFIG WORKLOAD: one cell; appends a JSON row.
live_one() {
	local cfg=$1 wl=$2 p0 p1 h0 h1 t0 t1 perf=null unit=null out secs rec= rpoll=null rj c0 c1
	case $wl in
	quiet)	# a 2 s burst, then measure from 100 ms after its end
		"$WORK" pingpong --pairs 1 --pin --work-us 20 --duration 2 --loops-per-us "$LPU" \
			--json >/dev/null 2>&1
		sleep 0.1 ;;
	esac
	# bpfgov-balanced-recorded: the balanced profile again, recorded with
	# its picks in force, to replay each cell as actuated against what the
	# kernel measured in the same cell.  A pass of its own: the recorder
	# takes CPU time, which the judged cells (bpfgov-balanced) must not pay.
	if [ "$cfg" = bpfgov-balanced-recorded ]; then
		"$LAB" record "$OUT/live-$wl.trace" --duration "$SHOOT_S" --pin-root "$PIN" \
			>"$OUT/live-$wl.record.log" 2>&1 &
		rec=$!
		sleep 0.2
	fi
	c0=$(live_cost)
	p0=$(live_state_sum time 0); h0=$(live_halts); t0=$(date +%s.%N)
	case $wl in
	pp*)	out=$(pp "${wl#pp}" "$SHOOT_S"); perf=$(jq -r .loops_per_s <<<"$out"); unit=loops/s ;;
	quiet)	sleep "$SHOOT_S" ;;
	rtapp)	if command -v rt-app >/dev/null; then
			perf=$(rtapp_run "$SHOOT_S"); [ -n "$perf" ] || perf=null
			unit=us
		fi ;;
	ct*)	if command -v cyclictest >/dev/null; then
			# --laptop: cyclictest leaves /dev/cpu_dma_latency alone
			perf=$(logrun live cyclictest -q --laptop -m -t2 -a0,1 -i "${wl#ct}" \
				-D "$SHOOT_S" 2>/dev/null | awk '/Avg:/ { for (i = 1; i < NF; i++)
				if ($i == "Avg:") { s += $(i + 1); n++ } } END { if (n) printf "%.1f", s / n }')
			[ -n "$perf" ] || perf=null
			unit=us
		fi ;;
	esac
	t1=$(date +%s.%N); p1=$(live_state_sum time 0); h1=$(live_halts)
	secs=$(calc "$t1 - $t0")
	c1=$(live_cost)
	if [ -n "$rec" ]; then
		wait "$rec" 2>/dev/null
		rj=$("$LAB" replay "$OUT/live-$wl.trace" -p "bpfgov@$ORIG_GOVERNOR" \
			--haltpoll-ns "$JUDGE_HALTPOLL_NS" --json 2>/dev/null)
		rpoll=$(jq -r --arg p "bpfgov@$ORIG_GOVERNOR" \
			'(.policies[$p].idle.poll_ns // empty) / (.duration_s * 1e9 * .nr_cpus) * 100' \
			<<<"$rj" 2>/dev/null)
		[ -n "$rpoll" ] || rpoll=null
	fi
	jq -nc --arg cfg "$cfg" --arg wl "$wl" --argjson perf "$perf" --arg unit "$unit" \
		--argjson poll "$(calc "($p1 - $p0) / ($secs * 1000000 * $NCPU) * 100")" \
		--argjson halts "$(calc "($h1 - $h0) / $secs")" --arg load "$(load1)" \
		--argjson rpoll "$rpoll" --argjson round "$LIVE_ROUND" \
		--argjson c0 "[${c0// /,}]" --argjson c1 "[${c1// /,}]" --argjson secs "$secs" --argjson n "$NCPU" \
		'{config: $cfg, workload: $wl, round: $round, perf: $perf, unit: $unit, poll_pct: $poll,
		  halts_per_s: $halts, replay_poll_pct: $rpoll, load: ($load | tonumber),
		  loader_pct: (if $c0[0] < 0 or $c1[0] < 0 then null else ($c1[0] - $c0[0]) / ($secs * 1e9) * 100 end),
		  writes_per_cpu_s: (($c1[1] - $c0[1]) / $secs / $n),
		  wakeups_per_s: (($c1[2] - $c0[2]) / $secs)}
		 | .energy_pct = (if .loader_pct == null then null else .poll_pct + .loader_pct / $n end)' >>"$OUT/live.rows"
	printf '  %-24s %-7s perf %10s %-7s poll %6s%%  halts/s %8s  loader %5s%%  writes/s/cpu %6s\n' "$cfg" "$wl" \
		"$(fmt "$perf" 1)" "$unit" "$(fmt "$(jq -r .poll_pct <"$OUT/live.rows" | tail -n1)" 1)" \
		"$(fmt "$(calc "($h1 - $h0) / $secs")" 0)" "$(fmt "$(jq -r .loader_pct <"$OUT/live.rows" | tail -n1)" 2)" \
		"$(fmt "$(jq -r .writes_per_cpu_s <"$OUT/live.rows" | tail -n1)" 1)"
}

# rt-app: its ns per loop, calibrated once (the same work in every cell).
RTAPP_CAL=
rtapp_run() { # SECONDS -> mean wake-up latency of the periods, us
	local d=$OUT/rtapp
	mkdir -p "$d"
	if [ -z "$RTAPP_CAL" ]; then
		RTAPP_CAL=$(rt-app <(rtapp_json 1 CPU0) 2>&1 | sed -n 's/.*pLoad = \([0-9]*\)ns.*/\1/p' | head -n1)
		[ -n "$RTAPP_CAL" ] || RTAPP_CAL=10
	fi
	rm -f "$d"/rtb-*.log
	logrun live rt-app <(rtapp_json "$1" "$RTAPP_CAL") >/dev/null 2>&1
	awk '$1 ~ /^[0-9]+$/ { n++; s += $NF } END { if (n) printf "%.1f", s / n }' "$d"/rtb-*.log 2>/dev/null
}
rtapp_json() { # SECONDS CALIBRATION
	local cal=$2
	[ "$cal" = CPU0 ] && cal='"CPU0"'
	cat <<-EOF
	{ "tasks": { "periodic": { "instance": 2, "loop": -1, "run": 1000,
	      "timer": { "ref": "unique", "period": 10000 } } },
	  "global": { "duration": $1, "calibration": $cal, "default_policy": "SCHED_OTHER",
	      "logdir": "$OUT/rtapp", "log_basename": "rtb", "lock_pages": false } }
	EOF
}

live_restore_hp() {
	[ -n "$HP_ORIG" ] && printf '%s\n' "$HP_ORIG" >"$HP_NS" 2>/dev/null
	HP_ORIG=
}

# live_order AVAILABLE_GOVERNORS: this round's order of the cells of a
# workload, one word per cell. Round 1 runs the kernel's governors, forced
# POLL, then bpfgov's profiles; round 2 runs them in reverse, round 3
# every other cell, then the rest (round 4 that reversed; then again from
# round 1), so that no configuration always follows the same one: a cell that leaves the host busier or its
# vCPUs' frequency higher would otherwise tilt the next cell's figures
# alike in every round, which the rounds' spread cannot show.
live_order() {
	local avail=$1 g p cells=()
	for g in $KERNEL_GOVS; do
		case " $avail " in *" $g "*) ;; *) continue;; esac
		cells+=("kernel:$g")
		# haltpoll at the kernel's default window too, if this machine
		# runs it with another (a KVM guest often has 0: never polls)
		if [ "$g" = haltpoll ] && [ -w "$HP_NS" ] && [ "$(cat "$HP_NS")" != 200000 ]; then
			cells+=("haltpoll@200000ns")
		fi
	done
	cells+=(forced-poll)
	for p in $LIVE_PROFILES; do cells+=("bpfgov:$p"); done
	[ -z "$LIVE_VARIANT" ] || cells+=(variant)
	# a cell at index 2 or later follows, by round: the one listed
	# before it, the one after it, the one two before it
	case $(((LIVE_ROUND - 1) % 4)) in
	0) printf '%s\n' "${cells[@]}" ;;
	1) printf '%s\n' "${cells[@]}" | tac ;;
	*)	for ((p = 0; p < 2; p++)); do
			for ((g = p; g < ${#cells[@]}; g += 2)); do
				printf '%s\n' "${cells[g]}"
			done
		done | if [ $(((LIVE_ROUND - 1) % 4)) = 3 ]; then tac; else cat; fi ;;
	esac
}

# live_workload WORKLOAD AVAILABLE_GOVERNORS: one workload under every
# configuration in turn (live_order), one cell each (a round runs this
# per workload); the recorded pass of round 1 comes last.
live_workload() {
	local w=$1 avail=$2 cell c
	for cell in $(live_order "$avail"); do
		case $cell in
		kernel:* | haltpoll@200000ns)
			c=${cell#kernel:}
			set_governor "${c%@*}" || continue
			if [ "$c" = haltpoll@200000ns ]; then
				HP_ORIG=$(cat "$HP_NS")
				printf '200000\n' >"$HP_NS"
				note_cmd live "echo haltpoll > $CPUIDLE/current_governor; echo 200000 > $HP_NS   # the kernel's default window; $HP_ORIG restored after"
			else
				note_cmd live "echo $c > $CPUIDLE/current_governor"
			fi
			live_one "$c" "$w"
			live_restore_hp
			set_governor "$ORIG_GOVERNOR" || warn "could not restore governor $ORIG_GOVERNOR"
			;;
		forced-poll)
			save_qos
			for c in $(seq 0 $((NCPU - 1))); do
				echo n/a >"/sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us" 2>/dev/null
			done
			note_cmd live "for c in /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us; do echo n/a > \$c; done   # forced POLL, restored after"
			live_one forced-poll "$w"
			restore_qos
			;;
		bpfgov:*)
			live_gov_cell "bpfgov-${cell#bpfgov:}" "$w" "live-${cell#bpfgov:}" --profile "${cell#bpfgov:}"
			;;
		variant)
			# shellcheck disable=SC2086 # options, word-split
			live_gov_cell "bpfgov-balanced+${LIVE_VARIANT%%:*}" "$w" live-variant \
				--profile balanced ${LIVE_VARIANT#*:}
			;;
		esac
	done
	[ "$LIVE_ROUND" != 1 ] ||
		live_gov_cell bpfgov-balanced-recorded "$w" live-recorded --profile balanced
}

# live_gov_cell CONFIG WORKLOAD LOG OPTION...: one cell under a bpfgov
# started for it (--no-floor, the options and BENCH_LIVE_GOVOPT's).
live_gov_cell() {
	local cfg=$1 w=$2 log=$3
	shift 3
	# shellcheck disable=SC2086 # options, word-split
	gov_up "$log" --no-floor "$@" $LIVE_GOVOPT || return 0
	sleep 0.5
	live_one "$cfg" "$w"
	gov_down
}

sec_live() {
	local avail w
	SEC=live
	hdr "4b. Live idle judge (driver: $(idle_driver)), ${SHOOT_S} s per cell"
	rm -f "$OUT/live.rows" "$OUT/live.json"
	if [ "$(idle_driver)" = none ] || [ "$(state0_poll_us)" = null ]; then
		say "  not measurable, driver $(idle_driver): no POLL state time to measure; replay as actuated stands in (section 5)"
		jq -n --arg d "$(idle_driver)" '{driver: $d, measurable: false, rows: []}' >"$OUT/live.json"
		return 0
	fi
	avail=$(idle_governors)
	ORIG_GOVERNOR=$(idle_governor)
	if [ "$LIVE_VARIANT" = auto ]; then
		LIVE_VARIANT=
		case "$ORIG_GOVERNOR: $avail " in
		menu:*|teo:*) ;;
		*" menu "*) LIVE_VARIANT="menu:--idle-governor menu" ;;
		esac
	fi
	for LIVE_ROUND in $(seq 1 "$LIVE_ROUNDS"); do
		[ "$LIVE_ROUNDS" = 1 ] || say "  round $LIVE_ROUND of $LIVE_ROUNDS"
		for w in $LIVE_WORKLOADS; do
			live_workload "$w" "$avail"
		done
	done
	live_summarize "$(idle_driver)" "$ORIG_GOVERNOR"
}

# live_summarize DRIVER GOVERNOR: live.rows -> live.json, with the verdicts.
live_summarize() {
	jq -s --arg d "$1" --arg gov "$2" \
		--argjson tp "$LIVE_TIE_PERF_PCT" --argjson tq "$LIVE_TIE_POLL_PTS" "$JQ_MED"'
		# better(a, b): a is better than b on performance (loops/s up, latency down)
		def pbetter(a; b): if a.unit == "us" then a.perf < b.perf else a.perf > b.perf end;
		def ptie(a; b): (a.perf == null or b.perf == null) or
			((a.perf - b.perf) | fabs) <= ($tp / 100) * ([a.perf, b.perf] | max | fabs);
		# a bpfgov cell without its loader'"'"'s CPU time has no energy figure
		def en1: if (.config | startswith("bpfgov")) then .energy_pct else .energy_pct // .poll_pct end;
		def en(a): a | en1;
		def qtie(a; b): ((en(a) - en(b)) | fabs) <= $tq;
		# overlap(xs; ys): both cells have two rounds or more on an axis,
		# and their ranges meet: some round of the one that is worse by
		# the medians is as good as some round of the other.
		def overlap(xs; ys): (xs | map(select(. != null))) as $x | (ys | map(select(. != null))) as $y |
			($x | length) > 1 and ($y | length) > 1 and ($x | max) >= ($y | min) and ($y | max) >= ($x | min);
		def vof(p; q): if p == 0 and q == 0 then "tie" elif p >= 0 and q >= 0 then "win"
			elif p <= 0 and q <= 0 then "dominated" else "trade-off" end;
		# The medians decide each axis (tie inside the band). An axis whose
		# medians differ beyond the band while the rounds overlap is not
		# resolved: it may be that difference or a tie. Where that choice
		# changes the verdict, the verdict is "unresolved", with the
		# medians'"'"' verdict beside it (by_median).
		def verdict(a; b): if en(a) == null or en(b) == null then {verdict: "not measured"} else
			(if ptie(a; b) then 0 elif pbetter(a; b) then 1 else -1 end) as $p |
			(if qtie(a; b) then 0 elif en(a) < en(b) then 1 else -1 end) as $q |
			(if $p != 0 and overlap(a.perfs; b.perfs) then [$p, 0] else [$p] end) as $ps |
			(if $q != 0 and overlap(a.ens; b.ens) then [$q, 0] else [$q] end) as $qs |
			([$ps[] as $i | $qs[] as $j | vof($i; $j)] | unique) as $vs |
			if ($vs | length) == 1 then {verdict: $vs[0]}
			else {verdict: "unresolved", by_median: vof($p; $q)} end end;
		# the verdicts of the configs that pass @p, against each kernel governor
		def judged(p): [.rows[] | select(.config | p)] as $b |
			[.rows[] | select(.config | test("^(haltpoll|menu|ladder|teo)"))] as $k |
			[$b[] as $x | $k[] | select(.workload == $x.workload) |
			 {config: $x.config, workload: .workload, against: .config} + verdict($x; .)];
		# each cell: the median of its rounds (and, for the verdicts, the
		# rounds themselves: perfs, ens)
		(group_by([.config, .workload]) | map(.[0] + {rounds: length,
			perfs: map(.perf), ens: map(en1),
			perf: (map(.perf) | med), poll_pct: (map(.poll_pct) | med),
			halts_per_s: (map(.halts_per_s) | med),
			loader_pct: (map(.loader_pct) | med),
			writes_per_cpu_s: (map(.writes_per_cpu_s // 0) | med),
			wakeups_per_s: (map(.wakeups_per_s // 0) | med),
			energy_pct: (map(.energy_pct) | med),
			replay_poll_pct: (map(.replay_poll_pct) | med)} | del(.round))) as $cells |
		{driver: $d, governor: $gov, measurable: true, rounds: (map(.round) | max), order: "by workload, rotating",
		 tie_perf_pct: $tp, tie_energy_pts: $tq,
		 rows: $cells, raw: .} |
		.verdicts = (judged(. == "bpfgov-balanced") | map(del(.config))) |
		.variant_verdicts = judged(startswith("bpfgov-balanced+")) |
		.rows |= map(del(.perfs, .ens))' \
		"$OUT/live.rows" >"$OUT/live.json"
}

# live_cost_goal FIELD LIMIT DIGITS UNIT GOAL: the goal row "FIELD <= LIMIT in
# every cell of a bpfgov profile": the worst, and the cells over LIMIT
# (UNIT and GOAL are printf formats: %% for a percent sign).
live_cost_goal() {
	local sel='.rows[] | select(.config | test("^bpfgov-(balanced|powersave|performance)$"))' v f
	v=$(j live.json "[$sel | .$1 // empty] | if length == 0 then null else max end")
	f=$(j live.json "[$sel | select(.$1 > $2) | \"\\(.config | sub(\"bpfgov-\"; \"\")) \\(.workload) \\(.$1 * 1e$3 | round / 1e$3)\"] | join(\", \")")
	# shellcheck disable=SC2059 # GOAL is a format (its %% is a percent sign)
	printf "$5\t%s$4 worst%s\t%s\n" "$(fmt "$v" "$3")" "${f:+ ($f)}" "$(verdict "$v" "$(le "$v" "$2" && echo 1)")"
}

# live_cell CONFIG WORKLOAD FIELD: one cell's figure (null: none).
live_cell() { j live.json "[.rows[] | select(.config == \"$1\" and .workload == \"$2\") | .$3] | first"; }

# live_goal_rows: the goals, as tab-separated rows (goal, figure, verdict).
live_goal_rows() {
	local v f u g pp b p m tp
	if [ "$(j live.json .measurable)" != true ]; then
		printf 'live idle judge: every goal\tnot measurable, driver %s (no POLL state time)\tnot measured\n' \
			"$(j live.json .driver)"
		return
	fi
	# Nothing compared is no figure, not "0 dominated".
	v=$(j live.json 'if ((.verdicts // []) | length == 0) or any((.verdicts // [])[]; .verdict == "not measured") then null else [.verdicts[] | select(.verdict == "dominated")] | length end')
	f=$(j live.json '[.verdicts[] | select(.verdict == "dominated") | "\(.workload) by \(.against)"] | join(", ")')
	# dominated by the medians, inside the rounds' spread: not shown
	# either way, so the goal is not met while one remains
	u=$(j live.json '[.verdicts[] | select(.by_median == "dominated")] | length')
	g=$(j live.json '[.verdicts[] | select(.by_median == "dominated") | "\(.workload) by \(.against)"] | join(", ")')
	if [ "$v" = null ]; then
		printf 'live: balanced dominated by no kernel governor on any workload\tno verdict (nothing compared, or a figure missing)\t%s\n' "$(verdict null)"
	else
		printf 'live: balanced dominated by no kernel governor on any workload\t%s dominated of %s verdicts%s; %s more by the medians, inside the rounds'"'"' spread%s\t%s\n' \
			"$v" "$(j live.json '.verdicts | length')" "${f:+ ($f)}" "$u" "${g:+ ($g)}" \
			"$(verdict "$v" "$([ "$v" = 0 ] && [ "$u" = 0 ] && echo 1)")"
	fi
	v=$(live_cell bpfgov-balanced quiet poll_pct)
	printf 'live: quiet machine (from 100 ms after a burst) polls <= 1%% of CPU time\t%s%%\t%s\n' \
		"$(fmt "$v" 2)" "$(verdict "$v" "$(le "$v" 1 && echo 1)")"
	v=$(live_cell bpfgov-balanced ct2000 poll_pct)
	b=$(live_cell bpfgov-balanced ct2000 perf)
	f=$(j live.json '[.rows[] | select((.config | test("^(haltpoll|menu|ladder|teo)")) and .workload == "ct2000") | .perf] | min')
	tp=$(j live.json .tie_perf_pct); [ "$tp" != null ] || tp=$LIVE_TIE_PERF_PCT
	printf 'live: cyclictest --laptop 2 ms: poll <= 2%%, average latency within %s%% of the best kernel governor\tpoll %s%%, %s us vs %s us\t%s\n' \
		"$tp" "$(fmt "$v" 1)" "$(fmt "$b" 1)" "$(fmt "$f" 1)" \
		"$(verdict "$(calc "$v + $b + $f")" "$(le "$v" 2 && le "$b" "$(calc "$f * (1 + $tp / 100)")" && echo 1)")"
	v=$(live_cell bpfgov-balanced pp500 poll_pct)
	printf 'live: ping-pong 500 us polls <= 10%% of CPU time\t%s%%\t%s\n' \
		"$(fmt "$v" 1)" "$(verdict "$v" "$(le "$v" 10 && echo 1)")"
	v=$(j live.json '[.rows[] | select(.config == "bpfgov-balanced-recorded" and .replay_poll_pct != null) |
		(.poll_pct - .replay_poll_pct) | fabs] | max')
	f=$(j live.json '[.rows[] | select(.config == "bpfgov-balanced-recorded" and .replay_poll_pct != null) |
		"\(.workload) \(.poll_pct * 10 | round / 10)/\(.replay_poll_pct * 10 | round / 10)"] | join(", ")')
	printf 'live: replay as actuated matches live poll share within 5 points (recorded cells, live/replay %%)\t%s points worst (%s)\t%s\n' \
		"$(fmt "$v" 1)" "$f" "$(verdict "$v" "$(le "$v" 5 && echo 1)")"
	live_cost_goal writes_per_cpu_s 10 1 '' 'live: <= 10 knob writes per CPU per second in every bpfgov cell'
	live_cost_goal loader_pct 0.5 2 %% 'live: the loader <= 0.5%% of one CPU in every bpfgov cell'
	for pp in pp0 pp20; do
		b=$(live_cell bpfgov-balanced "$pp" perf)
		f=$(live_cell forced-poll "$pp" perf)
		p=$(live_cell bpfgov-balanced "$pp" poll_pct)
		m=$(live_cell menu "$pp" poll_pct)
		v=$(calc "$b / $f")
		printf 'live: ping-pong %s us: >= 0.9x forced POLL loops/s, or polling no more than menu\t%s× (%s vs %s); poll %s%% vs menu %s%%\t%s\n' "${pp#pp}" \
			"$(fmt "$v" 2)" "$(fmt "$b" 0)" "$(fmt "$f" 0)" "$(fmt "$p" 1)" "$(fmt "$m" 1)" \
			"$(verdict "$(calc "$v + $p + $m")" "$({ ge "$v" 0.9 || le "$p" "$m"; } && echo 1)")"
	done
}

doc_live() {
	echo "## 4b. Live idle judge on the machine that ran the bench"
	echo
	[ -s "$OUT/live.json" ] || { echo "Not run."; echo; return; }
	if [ "$(j live.json .measurable)" != true ]; then
		echo "**Not measurable here: cpuidle driver \`$(j live.json .driver)\`** (no POLL state"
		echo "time). On a machine with a driver (a KVM guest's \`haltpoll\`) this section"
		echo "runs every configuration against every workload and judges bpfgov on"
		echo "performance and poll time as the kernel measures them."
		echo
		return
	fi
	jq -r "$JQ_VLABEL"'def vtable(v): "| workload | " + ([v[].against] | unique | join(" | ")) + " |",
			"|---|" + ([v[].against] | unique | map("---") | join("|")) + "|",
			(v | group_by(.workload)[] | "| \(.[0].workload) | " + (sort_by(.against) | map(vlabel) | join(" | ")) + " |");
		def ndom(v): [v[] | select(.verdict == "dominated")] | length;
		def nund(v): [v[] | select(.by_median == "dominated")] | length;
		"Performance (loops/s, or cyclictest average latency in µs) / poll time (% of CPU time) / halts per second; for bpfgov also the loader'"'"'s CPU time (% of one CPU) and its knob writes per CPU per second; \(.rows | length) cells\(if (.rounds // 1) > 1 then ", each the median of \(.rounds) rounds" else "" end)\(if .order == "by workload" then "; each workload runs under every configuration in turn, bpfgov started afresh for each cell" elif .order == "by workload, rotating" then "; each workload runs under every configuration in turn, bpfgov started afresh for each cell, in an order that changes from round to round (round 1 as listed, round 2 reversed, round 3 every other cell first)" else "" end). The verdicts weigh energy as poll time plus the loader'"'"'s CPU time, both as shares of all CPUs'"'"' time; ties: performance within \(.tie_perf_pct // 3) %, energy within \(.tie_energy_pts // 1) point.", "",
		"| config | " + ([.rows[].workload] | unique | join(" | ")) + " |",
		"|---|" + ([.rows[].workload] | unique | map("---") | join("|")) + "|",
		([.rows[].workload] | unique) as $w |
		(.rows | group_by(.config)[] | . as $c | "| \(.[0].config) | " +
		 ($w | map(. as $x | [$c[] | select(.workload == $x)] | first |
			if . == null then "–" else "\(.perf // "n/a") / \(.poll_pct * 10 | round / 10) % / \(.halts_per_s | round)" +
			  (if (.config | startswith("bpfgov")) then " / \((.loader_pct // 0) * 100 | round / 100) % / \((.writes_per_cpu_s // 0) * 10 | round / 10) w" else "" end) end) |
		  join(" | ")) + " |"),
		"", "Verdicts of bpfgov-balanced (win / tie / dominated / trade-off; \"X?\": X by the medians, but on an axis that decides it the two cells'"'"' rounds overlap, so the rounds cannot tell X from a tie there):", "",
		vtable(.verdicts),
		(if ((.variant_verdicts // []) | length) > 0 then
			"", "In the same boot and rounds, \(.variant_verdicts[0].config) (no goals; dominated in \(ndom(.variant_verdicts)) of \(.variant_verdicts | length) verdicts and \(nund(.variant_verdicts)) more by the medians; balanced in \(ndom(.verdicts)) and \(nund(.verdicts)) more):", "",
			vtable(.variant_verdicts)
		 else empty end)' \
		"$OUT/live.json"
	echo
	cmds live
}
