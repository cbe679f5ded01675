#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The floor judge's part of `make bench` alone: the bench's linux-pm scenarios
# (`govlab synth`, table vm: the floor does not depend on the idle
# table) replayed by `govlab replay --json` at bpfgov's defaults and
# profiles, and the block between "<!-- floor:begin -->" and
# "<!-- floor:end -->" of docs/BENCHMARKS.md rewritten by the same
# functions as `make bench` (doc_floor, floor_goal_rows in judge.sh). No
# live workload, no root; the recorded traces of a full run are not
# replayed here.
#
# Environment: BENCH_QUICK=1 (short scenarios), BENCH_OUT (default
# build/bench-floor), BENCH_DOC (default docs/BENCHMARKS.md; - prints the
# block instead).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
LAB=./govlab
OUT=${BENCH_OUT:-build/bench-floor}
DOC=${BENCH_DOC:-docs/BENCHMARKS.md}
. tests/bench/lib.sh
. tests/bench/report.sh
. tests/bench/judge.sh
BENCH_COMMAND=tests/bench/floor.sh

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	SWEEP_STEP_S=1; PP_TRACE_S=2; JUDGE_S=3
else
	SWEEP_STEP_S=3; PP_TRACE_S=5; JUDGE_S=10
fi
JUDGE_TABLES=vm
JUDGE_GOV=$(idle_governor)
case " $JUDGE_KERNEL " in *" $JUDGE_GOV "*) ;; *) JUDGE_GOV=menu;; esac
JUDGE_HALTPOLL_NS=$(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns 2>/dev/null || echo 200000)

[ -x "$LAB" ] || { warn "build first: make"; exit 1; }
command -v jq >/dev/null || { warn "jq is required"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/replay"
judge_synth "$OUT/replay"
judge_replay_all "$OUT/replay"
judge_collect "$OUT/replay" >"$OUT/replay.json"
goals_table text floor_goal_rows
doc_floor >"$OUT/floor.md"
if [ "$DOC" = - ]; then
	cat "$OUT/floor.md"
	exit 0
fi
# Splice: replace the block, or put it before the section after the
# replay's (a doc written before the block existed).
if grep -q '^<!-- floor:begin -->$' "$DOC"; then
	awk -v blk="$OUT/floor.md" '
		$0 == "<!-- floor:begin -->" { while ((getline l < blk) > 0) print l; skip = 1; next }
		$0 == "<!-- floor:end -->" { skip = 0; next }
		!skip' "$DOC" >"$DOC.tmp"
elif grep -q '^## 6\. ' "$DOC"; then
	awk -v blk="$OUT/floor.md" '
		/^## 6\. / && !done { while ((getline l < blk) > 0) print l; print ""; done = 1 }
		{ print }' "$DOC" >"$DOC.tmp"
else
	warn "$DOC has neither the floor block nor a section 6 to put it before"
	exit 1
fi
mv "$DOC.tmp" "$DOC"
say "wrote the floor block of $DOC"
