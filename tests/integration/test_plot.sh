#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `govlab plot` with Debian's gnuplot: the per-CPU timeline from a
# synthetic trace, from a trace recorded live by `govlab record` and from
# a `tail --json` recording; the energy/latency scatter of every policy from
# replays; a clear error when gnuplot is missing; usage errors.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
P=$T_TMP/plots
mkdir -p "$P"
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 10000 ]; }

"$LAB" synth periodic --hz 347 --sweep 10:90:20 --step-s 1 -o "$P/periodic.trace" 2>/dev/null
"$LAB" synth pingpong --work-us 20 --duration 2 -o "$P/pingpong.trace" 2>/dev/null
"$LAB" synth bursty --duration 2 -o "$P/bursty.trace" 2>/dev/null

# Usage and input errors: one line, exit 2 (usage) or 1 (runtime).
lab_expect_fail "plot without a kind" 2 "say timeline or scatter" plot
lab_expect_fail "plot of an unknown kind" 2 "'pie': expected timeline or scatter" plot pie x -o "$P/x.png"
lab_expect_fail "plot without -o" 2 "-o OUT.png or OUT.svg is required" plot timeline "$P/periodic.trace"
lab_expect_fail "plot to an unknown format" 2 "-o OUT.png or OUT.svg is required" plot timeline "$P/periodic.trace" -o "$P/x.jpg"
lab_expect_fail "timeline of two files" 2 "need exactly one FILE" plot timeline "$P/periodic.trace" "$P/bursty.trace" -o "$P/x.png"
lab_expect_fail "scatter with --cpu" 2 "--cpu is for timeline" plot scatter "$P/bursty.trace" --cpu 0 -o "$P/x.png"
printf 'hello\n' >"$P/junk.txt"
lab_expect_fail "timeline of a file that is neither" 1 "no records" plot timeline "$P/junk.txt" -o "$P/x.png"
lab_expect_fail "timeline of a missing file" 1 "cannot open" plot timeline "$P/none.trace" -o "$P/x.png"
GNUPLOT=$T_TMP/no-gnuplot lab_expect_fail "gnuplot missing: says how to install it" 1 \
	"gnuplot is not installed (Debian: apt-get install gnuplot-nox)" plot timeline "$P/periodic.trace" -o "$P/x.png"
check "no output file after the errors" test ! -e "$P/x.png"

# Synthetic traces.
check "timeline of a synthetic trace (PNG)" "$LAB" -q plot timeline "$P/periodic.trace" -o "$P/periodic.png"
check "  ... is a PNG image" is_png "$P/periodic.png"
check "timeline of a two-CPU trace as SVG" "$LAB" -q plot timeline "$P/pingpong.trace" -o "$P/pingpong.svg"
check "  ... has a panel per CPU" bash -c "grep -q '>CPU 0<' '$P/pingpong.svg' && grep -q '>CPU 1<' '$P/pingpong.svg'"
check "  ... draws util, floor and idle pick" bash -c "grep -q '>util<' '$P/pingpong.svg' && grep -q '>floor<' '$P/pingpong.svg' && grep -q '>idle pick<' '$P/pingpong.svg'"
# Ping-pong settles within milliseconds; its lines still run to the end of
# the 2 s trace (the time axis reaches 2, ticks 1.8 and 2 exist).
check "  ... a steady CPU runs to the end of the trace" bash -c "grep -q '> 1.8</text>' '$P/pingpong.svg' && grep -q '> 2</text>' '$P/pingpong.svg'"
check "--cpu 1 draws only CPU 1" "$LAB" -q plot timeline "$P/pingpong.trace" --cpu 1 -o "$P/cpu1.svg"
check "  ... one panel" bash -c "grep -q '>CPU 1<' '$P/cpu1.svg' && ! grep -q '>CPU 0<' '$P/cpu1.svg'"
check "scatter of every policy from two replays" "$LAB" -q plot scatter "$P/bursty.trace" "$P/pingpong.trace" -o "$P/scatter.svg"
for p in bpfgov menu teo ladder haltpoll; do
	check "  ... scatter names policy $p" grep -q ">$p<" "$P/scatter.svg"
done
check "  ... both traces have a panel" bash -c "grep -q '>bursty.trace<' '$P/scatter.svg' && grep -q '>pingpong.trace<' '$P/scatter.svg'"
# Ping-pong at 500 us: every policy sits on the oracle; the panel gets a
# range of its own, gnuplot has nothing to warn about.
"$LAB" synth pingpong --work-us 500 --duration 1 -o "$P/pp500.trace" 2>/dev/null
check "scatter with every policy on the oracle" "$LAB" -q plot scatter "$P/pp500.trace" -o "$P/pp500.svg"
is "  ... and nothing on stderr" "$("$LAB" -q plot scatter "$P/pp500.trace" -o "$P/pp500.svg" 2>&1)" ""
check "scatter as PNG" "$LAB" -q plot scatter "$P/bursty.trace" -o "$P/scatter.png"
check "  ... is a PNG image" is_png "$P/scatter.png"

# A trace recorded from the live governor, and a tail --json recording.
gov_start --dry-run
bg taskset -c 1 "$WORK" sleep-cycle --busy-us 3000 --idle-us 3000 --duration 8 --cpu 1
# One tap reader at a time: record, then tail.
"$LAB" record "$P/recorded.trace" --duration 3 >"$T_TMP/record.log" 2>&1 || sed 's/^/# /' "$T_TMP/record.log"
timeout 20 "$GOV" tail --json --count 300 >"$P/tail.jsonl" 2>/dev/null
"$GOV" stop >/dev/null 2>&1
gov_wait
check "record wrote a trace" grep -q '^bpfgov-trace' "$P/recorded.trace"
check "timeline of the recorded trace" "$LAB" -q plot timeline "$P/recorded.trace" -o "$P/recorded.png"
check "  ... is a PNG image" is_png "$P/recorded.png"
check "timeline of a tail --json recording" "$LAB" -q plot timeline "$P/tail.jsonl" -o "$P/tail.svg"
check "  ... has a CPU panel and the floor" bash -c "grep -q '>CPU [0-9]*<' '$P/tail.svg' && grep -q '>floor<' '$P/tail.svg'"
check "scatter of the recorded trace" "$LAB" -q plot scatter "$P/recorded.trace" -o "$P/recorded-scatter.png"
check "no temporary directory left" bash -c "! ls -d \${TMPDIR:-/tmp}/bpfgov-plot.* 2>/dev/null | grep -q ."
t_done
