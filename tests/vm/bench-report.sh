#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-report.sh LOG [BEFORE-LOG] [--write DOC...]
# bench-report.sh --needs
#
# Turn the console log of `make bench-vm` (tests/vm/guest-bench.sh lines
# BR/BL/BS) into markdown: per-configuration medians, ratios to the
# default scheduler measured in the same boot, the loader's cost, the BPF
# programs' cost, and every goal as met / not met with its figure.  With a
# BEFORE-LOG (an earlier build measured the same way), a before/after table
# of the ratios.  --write splices the result into each DOC between the
# lines "<!-- bench-vm:begin -->" and "<!-- bench-vm:end -->" (a log of
# instruction-count mode, VM_ICOUNT=1: "bench-vm-icount:begin/end").
# --needs prints the `make bench-vm` variables of a run that measures
# every configuration and workload the report reads (mk/bench-all.mk).
set -euo pipefail
. "$(dirname "$0")/bench-lib.sh"

# The table's columns and rows; the scheduler alone (sched-only) has a
# line of its own.
configs="default trace trace-stop trace-nort trace-states scx simple"
workloads="pin unpin threads wake pipe hackbench"
if [ "${1:-}" = --needs ]; then
	echo "BENCH_CONFIGS=$(tr ' ' , <<<"$configs sched-only") BENCH_WORKLOADS=$(tr ' ' , <<<"$workloads")"
	exit 0
fi

log=$1; shift
before=
if [ $# -gt 0 ] && [ "$1" != --write ]; then before=$1; shift; fi
docs=()
if [ "${1:-}" = --write ]; then shift; docs=("$@"); fi
[ -s "$log" ] || { echo "bench-report: no log $log" >&2; exit 1; }


sum=$(summary "$log")
# Instruction-count mode (make bench-vm VM_ICOUNT=1): guest time is
# instructions, and the docs keep its results apart.
icount=
grep -q '^# bench: instruction-count mode' "$log" && icount=1
mark=bench-vm${icount:+-icount}
# Ratios: two decimals of a timed run's noise, four of a count's.
rd=2; [ -n "$icount" ] && rd=4
val() { awk -v c="$1" -v w="$2" -v f="${3:-3}" '$1 == c && $2 == w { print $f; exit }' <<<"$sum"; }
ratio() { # config workload [higher-is-better=1]
	local d v
	d=$(val default "$2"); v=$(val "$1" "$2")
	[ -n "$d" ] && [ -n "$v" ] || { echo n/a; return; }
	awk -v d="$d" -v v="$v" -v hib="${3:-1}" -v f="%.${rd}f\n" 'BEGIN { if (d == 0 || v == 0) print "n/a"; else printf f, hib ? v / d : d / v }'
}
p99r() { # config: wake-up p99 / default's
	awk -v d="$(val default wake 4)" -v v="$(val "$1" wake 4)" 'BEGIN { if (d > 0 && v > 0) printf "%.2f\n", v / d; else print "n/a" }'
}

wl_name() {
	case $1 in
	pin) echo "ping-pong pinned CPU 0/1 (loops/s)" ;;
	unpin) echo "ping-pong unpinned (loops/s)" ;;
	threads) echo "8 threads, work + sleeps (chunks/s)" ;;
	wake) echo "timed wake-up p50 / p99 (µs)" ;;
	pipe) echo "perf bench sched pipe (ops/s)" ;;
	hackbench) echo "hackbench -g 2 -l 200 (s)" ;;
	esac
}

out() {
	rounds=$(lines '^BR [0-9]+ ' "$log" | awk '{ print $2 }' | sort -un | wc -l)
	secs=$(sed -n 's/^# bench: [0-9]* rounds x \([0-9.]*\) s.*/\1/p' "$log" | head -n1)
	kver=$(sed -n "s/.*# kernel \([^,]*\), .*groups:.*/\1/p" "$log" | head -n1)
	if [ -n "$icount" ]; then
		echo "Measured by \`make bench-vm VM_ICOUNT=1\` in one boot of the sched_ext guest (kernel $kver, 2 vCPUs, QEMU TCG with \`-icount shift=0,sleep=off\`): the guest's clock advances 1 ns per instruction executed and skips the time when both vCPUs idle, so every \"s\", \"µs\" and \"ns\" below counts instructions. The figures are path lengths, not times: cache misses, slow instructions and the host's load do not enter them, and the same run repeats from boot to boot to a few parts in 10,000, so two builds compare across boots (later rounds of a boot can settle up to 1 % from its first: compare ratios, or medians of as many rounds). Where tasks are not pinned (unpinned ping-pong, pipe, hackbench), the result also depends on where the scheduler places them, which under counting flips between a few outcomes with any change of timing: those rounds spread by up to 40 %, and their medians measure no change; pinned ping-pong, the 8 threads and the per-program counts do. $rounds rounds of ${secs:-?} s (10^9 instructions) per workload, the configurations alternating; medians over the rounds, ratios to the default scheduler."
	else
		echo "Measured by \`make bench-vm\` in one boot of the sched_ext guest (kernel $kver, 2 vCPUs, QEMU TCG): $rounds rounds of ${secs:-?} s per workload, the configurations alternating and their order rotating from round to round; medians over the rounds, ratios to the default scheduler of the same boot. The host running QEMU is shared and emulation amplifies some costs more than others: only ratios within one boot mean anything, never absolute numbers or numbers from different boots."
	fi
	echo
	echo "| workload | default | trace | ratio | scx | ratio | scx_simple | ratio |"
	echo "|---|---|---|---|---|---|---|---|"
	for w in $workloads; do
		[ -n "$(val default $w)" ] || continue
		if [ $w = wake ]; then
			row="| $(wl_name $w) | $(val default $w) / $(val default $w 4)"
			for c in trace scx simple; do
				row="$row | $(val $c $w 3) / $(val $c $w 4) | p99 $(awk -v d="$(val default $w 4)" -v v="$(val $c $w 4)" 'BEGIN { if (d > 0 && v > 0) printf "%.2f×", v / d; else print "n/a" }')"
			done
		else
			hib=1; [ $w = hackbench ] && hib=0
			row="| $(wl_name $w) | $(val default $w)"
			for c in trace scx simple; do
				row="$row | $(val $c $w) | $(ratio $c $w $hib)"
			done
		fi
		echo "$row |"
	done
	echo
	echo "Ratios are bpfgov (or scx_simple) / default, so above 1 is faster; for hackbench (a time) default / configuration; for the wake-up latency configuration / default, so below 1 is better. \`trace\` is \`govloader start --mode trace --no-floor --no-idle\`; \`scx\` is \`govloader start --mode scx\` actuating stand-in HWP MSR files; \`scx_simple\` is the kernel's \`tools/sched_ext/scx_simple\` built from the same kernel version's source."
	echo
	echo "The scheduling policy alone (bpfgov's scheduler, governor hooks off): pinned $(val sched-only pin) ($(ratio sched-only pin)×), unpinned $(val sched-only unpin) ($(ratio sched-only unpin)×), threads $(val sched-only threads) ($(ratio sched-only threads)×), wake-up p50 / p99 $(val sched-only wake 3) / $(val sched-only wake 4) µs (p99 $(p99r sched-only)× default)."
	echo
	echo "The loader's share (pinned ping-pong): with the loader SIGSTOPped (BPF still attached) $(val trace-stop pin) loops/s ($(ratio trace-stop pin)× default); with \`--no-rt\` $(val trace-nort pin) ($(ratio trace-nort pin)×)."
	echo
	if [ -n "$(val trace-states pin)" ]; then
		echo "Where a cpuidle driver offers states to choose from (\`trace-states\`: trace mode over a stand-in POLL / halt tree, \`--sysfs-root\`; the guest itself halts, which the program sees as the stand-in's halt), the policy core learns the idle history and picks at every idle period: pinned ping-pong $(val trace-states pin) loops/s ($(ratio trace-states pin)× default)."
		echo
	fi
	echo "The loader while each workload ran (median over rounds): CPU time as % of one CPU, decisions applied per second (and per CPU)."
	echo
	echo "| configuration | workload | loader CPU % | decisions/s | per CPU |"
	echo "|---|---|---|---|---|"
	lines '^BL ' "$log" | awk '{ k = $2 " " $3; n[k]++; c[k] += $4; d[k] += $5; p[k] += $6 }
		END { for (k in n) { split(k, a, " "); printf "| %s | %s | %.2f | %.0f | %.0f |\n", a[1], a[2], c[k] / n[k], d[k] / n[k], p[k] / n[k] } }' | sort
	echo
	if grep -q '^BS ' "$log"; then
		if [ -n "$icount" ]; then
			echo "BPF programs in the guest (\`kernel.bpf_stats_enabled=1\` only during these runs): instructions per call, the two clock reads of bpf_stats included:"
			echo
			echo "| configuration | program:workload | instructions/call | calls |"
		else
			echo "BPF programs in the guest (\`kernel.bpf_stats_enabled=1\` only during these runs; emulated, so far above host figures):"
			echo
			echo "| configuration | program:workload | ns/call | calls |"
		fi
		echo "|---|---|---|---|"
		lines '^BS ' "$log" | awk '{ printf "| %s | `%s` | %s | %s |\n", $2, $3, $4, $5 }'
		echo
	fi
	echo "Goals (guest):"
	echo
	echo "| goal | measured | result |"
	echo "|---|---|---|"
	r=$(ratio trace pin); echo "| pinned ping-pong, trace mode ≥ 0.90× default | $r | $(verdict "$r" '>=' 0.90) |"
	r=$(ratio scx pin); echo "| pinned ping-pong, scx mode ≥ 0.90× default | $r | $(verdict "$r" '>=' 0.90) |"
	worst=n/a; worst_w=; miss=
	for w in pin unpin threads pipe hackbench; do
		hib=1; [ $w = hackbench ] && hib=0
		r=$(ratio scx $w $hib)
		[ "$r" = n/a ] && { miss="$miss $w"; continue; }
		if [ "$worst" = n/a ] || awk -v a="$r" -v b="$worst" 'BEGIN { exit !(a < b) }'; then worst=$r; worst_w=$w; fi
	done
	# every workload: one without its figure leaves the goal not measured
	if [ -n "$miss" ]; then
		echo "| scx mode ≥ 0.90× default on every workload | n/a (not measured:$miss) | $(verdict n/a) |"
	else
		echo "| scx mode ≥ 0.90× default on every workload | $worst (worst: $worst_w) | $(verdict "$worst" '>=' 0.90) |"
	fi
	r=$(awk -v d="$(val default wake 4)" -v v="$(val scx wake 4)" 'BEGIN { if (d > 0 && v > 0) printf "%.2f\n", v / d; else print "n/a" }')
	echo "| scx mode wake-up p99 ≤ 1.2× default | $r ($(val scx wake 4) vs $(val default wake 4) µs) | $(verdict "$r" '<=' 1.2) |"
	# No BL line: no figure (not 0).
	r=$(lines '^BL ' "$log" | awk '{ k = $2 " " $3; n[k]++; c[k] += $4 } END { m = -1; for (k in n) if (c[k] / n[k] > m) { m = c[k] / n[k]; w = k } if (m < 0) print "n/a none"; else printf "%.2f %s\n", m, w }')
	echo "| loader ≤ 1% of one CPU under every workload | ${r%% *} % (worst: ${r#* }) | $(verdict "${r%% *}" '<=' 1) |"
	r=$(lines '^BL ' "$log" | awk '$3 == "pin" { k = $2; n[k]++; p[k] += $6 } END { m = -1; for (k in n) if (p[k] / n[k] > m) { m = p[k] / n[k]; w = k } if (m < 0) print "n/a none"; else printf "%.0f %s\n", m, w }')
	echo "| ≤ 50 decisions/s per CPU on a steady load (pinned ping-pong) | ${r%% *} (worst: ${r#* }) | $(verdict "${r%% *}" '<=' 50) |"
	if [ -n "$before" ] && [ -s "$before" ]; then
		echo
		echo "Before / after (pinned ping-pong unless noted; each ratio is to the default scheduler of its own boot):"
		echo
		echo "| configuration | before loops/s | before ratio | after loops/s | after ratio |"
		echo "|---|---|---|---|---|"
		local_sum=$sum
		bsum=$(summary "$before")
		for spec in "default pin" "trace pin" "trace-stop pin" "trace-nort pin" "trace-states pin" "scx pin" "scx unpin" "simple pin" "simple unpin" "scx threads" "simple threads"; do
			set -- $spec
			bv=$(awk -v c=$1 -v w=$2 '$1 == c && $2 == w { print $3 }' <<<"$bsum")
			bd=$(awk -v w=$2 '$1 == "default" && $2 == w { print $3 }' <<<"$bsum")
			av=$(val $1 $2); ad=$(val default $2)
			br=$(awk -v d="$bd" -v v="$bv" -v f="%.${rd}f" 'BEGIN { if (d > 0 && v > 0) printf f, v / d; else print "n/a" }')
			ar=$(awk -v d="$ad" -v v="$av" -v f="%.${rd}f" 'BEGIN { if (d > 0 && v > 0) printf f, v / d; else print "n/a" }')
			label=$1; [ $2 != pin ] && label="$1 ($2)"
			echo "| $label | ${bv:-n/a} | $br | ${av:-n/a} | $ar |"
		done
	fi
}

md=$(out)
printf '%s\n' "$md"
doc_splice bench-report "$mark" "$md" "${docs[@]}"
