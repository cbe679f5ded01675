#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libFuzzer harnesses for the config parser, start's argument parser, the
# trace reader and the state journal reader. Each is built with clang
# -fsanitize=fuzzer,address,undefined, replays every input kept in
# tests/fuzz/corpus/<harness>/ (seeds and the regression inputs of fixed
# findings), then fuzzes for a bounded time.
# One test per harness, then "N passed, N failed".
#   tests/fuzz/run.sh [SECONDS]     (default $FUZZ_SECONDS or 20 per harness)
#   FUZZ_MERGE=1 tests/fuzz/run.sh  also merge the new coverage into
#                                   $BUILD/fuzz/merged/<harness>/
# Nothing is written under tests/: libFuzzer only ever sees a copy of the
# kept corpus and scratch directories under $BUILD/fuzz. A finding is left in
# $BUILD/fuzz/crash-<harness>-*: fix it, then copy the input into the corpus
# as regress-<what> so it stays a regression test; the same for a merged
# input worth keeping.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
OUT=$BUILD/fuzz
SECS=${1:-${FUZZ_SECONDS:-20}}
CLANG=${CLANG:-clang}
HARNESSES=(config args trace journal)
pass=0
fail=0
n=0

ok()     { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
diag()   { echo "# $*"; }

# Sources each harness links (user space, no BPF skeletons except for
# start's parser, in start_opts.c).
srcs() {
	case $1 in
	config) echo user/state/config.c user/state/tunables.c user/lib/names.c user/lib/log.c user/lib/util.c ;;
	args) find user -name '*.c' ! -name govloader.c ! -name govlab.c | sort ;;
	trace) echo user/lab/trace.c user/lib/log.c user/lib/util.c ;;
	journal) echo user/act/journal.c user/lib/log.c user/lib/util.c ;;
	esac
}

# Libraries: the loader's own link line (from the Makefile) for the harness
# that links the loader.
libs() {
	case $1 in
	args) make --no-print-directory -s print-ldlibs ;;
	*) echo -lbpf -lelf -lz -lm ;;
	esac
}

CFLAGS_FUZZ=(-g -O1 -fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE
	     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	     -Iinclude $(find user -type d -printf '-I%p ') -I"$BUILD/bpf" -Wno-unused-command-line-argument)

mkdir -p "$OUT"
for h in "${HARNESSES[@]}"; do
	bin=$OUT/fuzz_$h
	log=$OUT/$h.log
	kept=tests/fuzz/corpus/$h
	corpus=$OUT/seed/$h	# a copy: libFuzzer writes into corpus directories
	work=$OUT/scratch/$h
	# shellcheck disable=SC2046
	if ! "$CLANG" "${CFLAGS_FUZZ[@]}" -o "$bin" "tests/fuzz/fuzz_$h.c" $(srcs "$h") \
		$(libs "$h") >"$log" 2>&1; then
		not_ok "fuzz_$h: cannot build (clang with libFuzzer: packages clang-14, libclang-rt-14-dev): $(grep -m1 -E 'error' "$log")"
		continue
	fi
	rm -rf "$corpus" "$work"
	mkdir -p "$corpus" "$work"
	cp -p "$kept"/* "$corpus"/
	# Regression: every kept input once.
	if ! "$bin" -runs=1 -artifact_prefix="$OUT/crash-$h-" "$corpus"/* >"$log" 2>&1; then
		f=$(grep -E '^Running: ' "$log" | tail -n1 | cut -c10-)
		not_ok "fuzz_$h: a corpus input fails again: $kept/${f##*/}: $(grep -m1 -oE 'ERROR: .*|runtime error: .*' "$log")"
		continue
	fi
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	if "$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$OUT/crash-$h-" \
		"$work" "$corpus" >"$log" 2>&1; then
		runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
		cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n1)
		ok "fuzz_$h: ${runs:-?} runs in ${SECS} s, ${cov:-cov ?}, corpus $(ls "$corpus" | wc -l) kept + $(ls "$work" | wc -l) new"
		if [ "${FUZZ_MERGE:-0}" = 1 ]; then
			rm -rf "$OUT/merged/$h"
			mkdir -p "$OUT/merged/$h"
			"$bin" -merge=1 "$OUT/merged/$h" "$corpus" "$work" >>"$log" 2>&1
			diag "fuzz_$h: merged corpus in $OUT/merged/$h ($(ls "$OUT/merged/$h" | wc -l) inputs)"
		fi
	else
		crash=$(ls -t "$OUT"/crash-"$h"-* 2>/dev/null | head -n1)
		not_ok "fuzz_$h: finding ${crash:-?}: $(grep -m1 -E 'ERROR: |runtime error|deadly signal' "$log")"
		sed -n '/ERROR\|runtime error/,+12p' "$log" | head -n 20 | sed 's/^/#   /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
