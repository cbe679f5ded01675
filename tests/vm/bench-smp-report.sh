#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-smp-report.sh LOG... [--before LOG...] [--write DOC...]
#
# Turn the console logs of `make bench-vm` (one boot per vCPU count, lines
# BR/BL/BS of tests/vm/guest-bench.sh) into markdown: per vCPU count, each
# workload's median under the default scheduler, bpfgov (scx mode),
# scx_simple and scx_flatcg, the ratios to the default scheduler of the same
# boot, then every goal as met / not met with its figure, per vCPU count.
# With --before (logs of an earlier build, matched by vCPU count), a
# before/after table of bpfgov's ratios.  --write splices the result into
# each DOC between "<!-- bench-vm-smp:begin -->" and "<!-- bench-vm-smp:end -->".
set -euo pipefail
. "$(dirname "$0")/bench-lib.sh"

logs=() before=() docs=()
dest=logs
for a in "$@"; do
	case "$a" in
	--before) dest=before ;;
	--write) dest=docs ;;
	*) eval "$dest+=(\"\$a\")" ;;
	esac
done
[ ${#logs[@]} -gt 0 ] || { echo "usage: bench-smp-report.sh LOG... [--before LOG...] [--write DOC...]" >&2; exit 2; }

ncpu_of() { sed -n 's/.*# kernel [^,]*, \([0-9]*\) CPUs, groups:.*/\1/p' "$1" | head -n1; }

# Per log: S (summary), N (vCPUs).
val() { awk -v c="$2" -v w="$3" -v f="${4:-3}" '$1 == c && $2 == w { print $f; exit }' <<<"$1"; }
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.4f}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf f "\n", a / b; else print "n/a" }'; }
# Weight ratios of the fairness workloads.
W_nice=9.309 W_cgroup=4.000
THRU="pin unpin pipe msg"
wl_name() {
	case $1 in
	pin) echo "ping-pong pinned CPU 0/1 (loops/s)" ;;
	unpin) echo "ping-pong unpinned, threads (loops/s)" ;;
	pipe) echo "pipe ping-pong, processes (round trips/s)" ;;
	msg) echo "messaging, hackbench-style (messages/s)" ;;
	wake50) echo "wake-up p50 / p99, 50 % load (µs)" ;;
	wake100) echo "wake-up p50 / p99, 100 % load (µs)" ;;
	nice) echo "nice 0 : nice 10 on one CPU (weights 9.31)" ;;
	cgroup) echo "cpu.weight 400 : 100 on one CPU (weights 4)" ;;
	esac
}
CFGS="scx simple flatcg"
cfg_name() { case $1 in scx) echo bpfgov ;; simple) echo scx_simple ;; flatcg) echo scx_flatcg ;; esac; }

# cell S CONFIG WORKLOAD: value and ratio columns.
cell() {
	local s=$1 c=$2 w=$3 d v
	case $w in
	wake50|wake100)
		d=$(val "$s" default $w 4); v=$(val "$s" $c $w 4)
		[ -n "$v" ] || { echo "| n/a | n/a"; return; }
		echo "| $(val "$s" $c $w 3) / $v | p99 $(div "$v" "$d" %.2f)×" ;;
	nice|cgroup)
		v=$(val "$s" $c $w)
		[ -n "$v" ] || { echo "| n/a | n/a"; return; }
		eval "local wr=\$W_$w"
		echo "| $v | $(awk -v v="$v" -v w="$wr" 'BEGIN { printf "%+.0f %%", (v / w - 1) * 100 }')" ;;
	*)
		d=$(val "$s" default $w); v=$(val "$s" $c $w)
		[ -n "$v" ] || { echo "| n/a | n/a"; return; }
		echo "| $v | $(div "$v" "$d")" ;;
	esac
}

# worst_ratio S CONFIG BASE: the lowest CONFIG / BASE over the throughput
# workloads, "ratio workload"; "n/a missing: W..." when a workload was not
# measured (every workload's goal is then not measured).
worst_ratio() {
	local s=$1 c=$2 b=$3 w r worst=n/a ww= miss=
	for w in $THRU; do
		r=$(div "$(val "$s" $c $w)" "$(val "$s" $b $w)")
		[ "$r" = n/a ] && { miss="$miss $w"; continue; }
		if [ "$worst" = n/a ] || awk -v a="$r" -v b="$worst" 'BEGIN { exit !(a < b) }'; then worst=$r; ww=$w; fi
	done
	if [ -n "$miss" ]; then echo "n/a missing:$miss"; else echo "$worst $ww"; fi
}

# Governor's share per hop of the pinned ping-pong: per program, its
# instructions per hop (calls per hop x instructions per call; hops =
# running() calls) under scx minus under sched-only.
# CFG: scx (the seconds in which the loader has wake-ups sampled, 4 in
# 16) or scx-quiet (the other 12).
gov_share() { # LOG [CFG]
	awk -v cfg="${2:-scx}" '$1 == "BS" && ($2 == cfg || $2 == "sched-only") && $3 ~ /:pin$/ {
		k = $2 == cfg ? "g" : "s"
		split($3, a, ":"); p = a[1]; sub(/^bpfgov_/, "", p)
		i[k, p] = $4; c[k, p] = $5; if (p == "running") hops[k] = $5; seen[p] = 1 }
		END {
			if (!hops["g"] || !hops["s"]) { print "n/a"; exit }
			for (p in seen) {
				g = i["g", p] * c["g", p] / hops["g"]
				s = i["s", p] * c["s", p] / hops["s"]
				t += g - s; if (p != "tick") d = d sprintf(" %s %+.0f,", p, g - s)
			}
			sub(/,$/, "", d)
			printf "%.0f (%s)\n", t, substr(d, 2)
		}' "$1"
}

# The loader's wake-up sampling cycle, from its own constants (user/daemon/loop.c:
# WAKE_SAMPLE_ON seconds sampled in every WAKE_SAMPLE_PERIOD): "ON PERIOD".
sample_cycle() {
	awk '$1 == "#define" && $2 == "WAKE_SAMPLE_ON" { on = $3 }
	     $1 == "#define" && $2 == "WAKE_SAMPLE_PERIOD" { p = $3 }
	     END { if (on > 0 && p > on) print on, p; else print "n/a n/a" }' \
		"$(dirname "$0")/../../user/daemon/loop.c" 2>/dev/null || echo "n/a n/a"
}
# The share averaged over the loader's cycle (ON s sampled, PERIOD - ON
# not): "MEAN SAMPLED QUIET", n/a where either was not measured.
share_cycle() { # LOG
	local on off c
	on=$(gov_share "$1" scx); off=$(gov_share "$1" scx-quiet)
	on=${on%% *}; off=${off%% *}; c=$(sample_cycle)
	if [ "$on" = n/a ] || [ "$off" = n/a ] || [ "${c% *}" = n/a ]; then echo "n/a $on $off"; return; fi
	awk -v a="$on" -v b="$off" -v s="${c% *}" -v p="${c#* }" 'BEGIN { printf "%.0f %s %s\n", (s * a + (p - s) * b) / p, a, b }'
}

# floor_line S: the null scheduler's and the scheduling policy's ratios to
# the default: what no sched_ext scheduler, and what bpfgov's scheduler
# without the governor, can beat.
floor_line() {
	local s=$1 w r l=
	for w in $THRU; do
		r=$(div "$(val "$s" null $w)" "$(val "$s" default $w)")
		[ "$r" = n/a ] || l="$l, $w $r"
	done
	[ -n "$l" ] || return 0
	r=$(div "$(val "$s" sched-only pin)" "$(val "$s" default pin)")
	echo "The floor of any sched_ext scheduler here (\`null\`, tests/vm/scx_null.bpf.c: not a single callback, every operation the kernel's default), as a ratio to the default scheduler:${l#,}; bpfgov's scheduling policy alone (\`sched-only\`, the governor's hooks off): pin $r."
	echo
}

out() {
	local log s n kver rounds secs
	kver=$(sed -n "s/.*# kernel \([^,]*\), .*groups:.*/\1/p" "${logs[0]}" | head -n1)
	rounds=$(lines '^BR [0-9]+ ' "${logs[0]}" | awk '{ print $2 }' | sort -un | wc -l)
	secs=$(sed -n 's/^# bench: [0-9]* rounds x \([0-9.]*\) s.*/\1/p' "${logs[0]}" | head -n1)
	echo "Measured by \`make bench-vm VM_ICOUNT=1\` (kernel $kver, QEMU TCG with \`-icount shift=0,sleep=off\`, one boot per vCPU count; at 8 vCPUs two sockets of 4 cores, each its own last-level cache, and two NUMA nodes): the guest's clock advances 1 ns per instruction executed and skips the time when every vCPU idles, so the figures are path lengths, not times. $rounds rounds of ${secs:-?} s (${secs:-?} x 10^9 instructions) per workload and configuration (the wake-up workloads three times as long), the configurations alternating (their order rotating); medians over the rounds, ratios to the default scheduler of the same boot. Pinned ping-pong repeats to a few parts in 10,000; where tasks are not pinned the result also depends on where the scheduler places them, which under counting flips between a few outcomes (rounds spread by up to 40 %)."
	echo
	for log in "${logs[@]}"; do
		s=$(summary "$log"); n=$(ncpu_of "$log")
		echo "**$n vCPUs** ($(sed -n 's/^# bench: \([0-9]* CPUs, LLCs.*\)/\1/p' "$log" | head -n1)):"
		echo
		echo "| workload | default | bpfgov | ratio | scx_simple | ratio | scx_flatcg | ratio |"
		echo "|---|---|---|---|---|---|---|---|"
		for w in pin unpin pipe msg wake50 wake100 nice cgroup; do
			[ -n "$(val "$s" default $w)" ] || continue
			case $w in
			wake50|wake100) row="| $(wl_name $w) | $(val "$s" default $w 3) / $(val "$s" default $w 4)" ;;
			nice|cgroup) row="| $(wl_name $w) | $(cell "$s" default $w | sed 's/^| \(.*\) | \(.*\)$/\1 (\2)/')" ;;
			*) row="| $(wl_name $w) | $(val "$s" default $w)" ;;
			esac
			for c in $CFGS; do row="$row $(cell "$s" $c $w)"; done
			echo "$row |"
		done
		echo
		echo "Governor's share per hop of the pinned ping-pong (instructions; bpfgov's programs minus the scheduler alone, \`sched-only\`), in the seconds the loader has wake-ups sampled ($(sample_cycle | sed 's/ / in /')): $(gov_share "$log" scx); in the others: $(gov_share "$log" scx-quiet)."
		echo
		floor_line "$s"
	done
	echo "Ratios: throughput configuration / default (above 1 is faster); wake-up p99 configuration / default (below 1 is better); for nice and cgroup the CPU time ratio of the two hogs and how far it is from the weight ratio. bpfgov is \`govloader start --mode scx\` actuating stand-in HWP MSR files; scx_simple and scx_flatcg are the kernel's \`tools/sched_ext\` examples built from the same kernel version's source."
	echo
	echo "Goals of bpfgov's scheduler, per vCPU count:"
	echo
	local hdr="| goal" sep="|---" log2
	for log in "${logs[@]}"; do hdr="$hdr | $(ncpu_of "$log") vCPUs"; sep="$sep|---"; done
	echo "$hdr |"; echo "$sep|"
	row_goal() { # title fn
		local r="| $1" log s
		for log in "${logs[@]}"; do s=$(summary "$log"); r="$r | $($2 "$s" "$log")"; done
		echo "$r |"
	}
	g_default() { local x; x=$(worst_ratio "$1" scx default); echo "${x%% *} (${x#* }) $(verdict "${x%% *}" '>=' 0.95)"; }
	g_simple() { local x; x=$(worst_ratio "$1" scx simple); echo "${x%% *} (${x#* }) $(verdict "${x%% *}" '>=' 1.0)"; }
	g_wake() { local r; r=$(div "$(val "$1" scx $3 4)" "$(val "$1" default $3 4)" %.2f); echo "$r ($(val "$1" scx $3 4) vs $(val "$1" default $3 4) µs) $(verdict "$r" '<=' 1.1)"; }
	g_w50() { g_wake "$1" "$2" wake50; }
	g_w100() { g_wake "$1" "$2" wake100; }
	g_share() { local v r; v=$(val "$1" scx $3); eval "local wr=\$W_$3"
		[ -n "$v" ] || { echo "n/a $(verdict n/a)"; return; }
		r=$(awk -v v="$v" -v w="$wr" 'BEGIN { d = v / w - 1; printf "%.3f\n", d < 0 ? -d : d }')
		echo "$v ($(awk -v r="$r" 'BEGIN { printf "%.0f %%", r * 100 }') off) $(verdict "$r" '<=' 0.10)"; }
	g_nice() { g_share "$1" "$2" nice; }
	g_cg() { g_share "$1" "$2" cgroup; }
	g_loader() { local r; r=$(lines '^BL scx ' "$2" | awk '{ k = $3; n[k]++; c[k] += $4 } END { m = -1; for (k in n) if (c[k] / n[k] >= m) { m = c[k] / n[k]; w = k } if (m < 0) print "n/a none"; else printf "%.2f %s\n", m, w }')
		echo "${r%% *} % (${r#* }) $(verdict "${r%% *}" '<=' 1)"; }
	row_goal "≥ 0.95× default on every throughput workload (worst)" g_default
	g_null() { local x; x=$(worst_ratio "$1" null default); [ "${x%% *}" = n/a ] && { echo "not measured"; return; }
		echo "${x%% *} (${x#* })"; }
	row_goal "reference: the null scheduler / default (worst)" g_null
	row_goal "at least as good as scx_simple (worst bpfgov / scx_simple)" g_simple
	row_goal "wake-up p99 ≤ 1.1× default, 50 % load" g_w50
	row_goal "wake-up p99 ≤ 1.1× default, 100 % load" g_w100
	row_goal "nice 0 : 10 share within 10 % of 9.31" g_nice
	row_goal "cpu.weight 400 : 100 share within 10 % of 4" g_cg
	# Judged where it was first measured: the seconds in which the loader
	# has wake-ups sampled. The mean over its cycle is a reference.
	g_gshare() { local x; x=$(gov_share "$2" scx); x=${x%% *}
		echo "$x $(verdict "$x" '<=' 300)"; }
	g_gcycle() { local x; x=$(share_cycle "$2"); set -- $x
		echo "$1 (sampled seconds $2, others $3)"; }
	row_goal "governor's share ≤ 300 instructions per hop of the pinned ping-pong (bpfgov's programs minus the scheduler alone; the seconds the loader samples wake-ups)" g_gshare
	row_goal "reference: the governor's share over the loader's cycle ($(sample_cycle | sed 's/ / s sampled in /') s, user/daemon/loop.c)" g_gcycle
	row_goal "loader ≤ 1 % of one CPU under every workload (worst mean over the rounds)" g_loader
	echo
	echo "A goal changed after a miss, with its earlier wording: the governor's share was judged, from commit 2a9f258 on, on its mean over the loader's 16 s cycle (weighted 4/12, \"governor's share ≤ 300 instructions per hop (pinned ping-pong, over the loader's 16 s cycle)\"), a weighting defined after the sampled seconds had measured 308 against 300; it is judged on the sampled seconds again, as first set (\"the governor's share per hop of the pinned ping-pong (bpfgov's programs minus the scheduler alone) ... the goal of 300\")."
	if [ ${#before[@]} -gt 0 ]; then
		echo
		echo "Before / after (bpfgov / default, each ratio to the default scheduler of its own boot; wake-up: p99 ratio):"
		echo
		echo "| vCPUs | workload | before | after |"
		echo "|---|---|---|---|"
		for log in "${logs[@]}"; do
			n=$(ncpu_of "$log"); s=$(summary "$log")
			local b="" bs
			for log2 in "${before[@]}"; do [ "$(ncpu_of "$log2")" = "$n" ] && b=$log2; done
			[ -n "$b" ] || continue
			bs=$(summary "$b")
			for w in $THRU wake50 wake100 nice cgroup; do
				case $w in
				wake50|wake100)
					echo "| $n | $w | $(div "$(val "$bs" scx $w 4)" "$(val "$bs" default $w 4)" %.2f) | $(div "$(val "$s" scx $w 4)" "$(val "$s" default $w 4)" %.2f) |" ;;
				nice|cgroup)
					echo "| $n | $w | $(val "$bs" scx $w) | $(val "$s" scx $w) |" ;;
				*)
					echo "| $n | $w | $(div "$(val "$bs" scx $w)" "$(val "$bs" default $w)") | $(div "$(val "$s" scx $w)" "$(val "$s" default $w)") |" ;;
				esac
			done
		done
	fi
}

md=$(out)
printf '%s\n' "$md"
doc_splice bench-smp-report "bench-vm-smp" "$md" "${docs[@]}"
