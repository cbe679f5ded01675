#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Quick self-test of bpfgov-work: every subcommand runs for <= 1 s with small
# parameters, its --json output must parse and carry the documented fields,
# human output must be non-empty, and bad options must exit 2 with exactly
# one line on stderr.
#
# Usage: tests/workloads/test_workloads.sh [PATH-TO-bpfgov-work]
#   default binary: $BPFGOV_WORK, else build/bpfgov-work, else it is compiled
#   from tests/workloads/bpfgov-work.c into a temporary directory.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

W=${1:-${BPFGOV_WORK:-}}
if [ -z "$W" ]; then
	if [ -x "$root/build/bpfgov-work" ] &&
	   [ "$root/build/bpfgov-work" -nt "$here/bpfgov-work.c" ]; then
		W=$root/build/bpfgov-work
	else
		W=$tmp/bpfgov-work
		gcc -O2 -Wall -Wextra -Werror -pthread -o "$W" "$here/bpfgov-work.c" -lm ||
			{ echo "FAIL: cannot build bpfgov-work" >&2; exit 1; }
	fi
fi
[ -x "$W" ] || { echo "FAIL: $W is not executable" >&2; exit 1; }

if command -v jq >/dev/null 2>&1; then
	JSON=jq
elif command -v python3 >/dev/null 2>&1; then
	JSON=python3
	echo "note: jq not found; checking that JSON parses, not its fields"
else
	echo "FAIL: need jq or python3 to check JSON output" >&2
	exit 1
fi

pass=0
fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# json_check NAME JQ-EXPR -- ARGS...: run with --json, output must be exactly
# one line of JSON for which JQ-EXPR is true.
json_check() {
	local name=$1 expr=$2
	shift 3
	local out=$tmp/out err=$tmp/err rc
	"$W" "$@" --json >"$out" 2>"$err"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name: exit $rc: $(head -c 300 "$err")"
		return
	fi
	if [ "$(wc -l <"$out")" -ne 1 ]; then
		bad "$name: expected one line of JSON, got $(wc -l <"$out")"
		return
	fi
	if [ $JSON = jq ]; then
		if ! jq -e . "$out" >/dev/null 2>&1; then
			bad "$name: output is not JSON: $(head -c 300 "$out")"
		elif ! jq -e "$expr" "$out" >/dev/null 2>&1; then
			bad "$name: check '$expr' failed on: $(head -c 600 "$out")"
		else
			ok "$name"
		fi
	else
		if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" 2>/dev/null; then
			ok "$name (parse only)"
		else
			bad "$name: output is not JSON: $(head -c 300 "$out")"
		fi
	fi
}

# human_check NAME ARGS...: exit 0 and some output
human_check() {
	local name=$1 rc
	shift
	"$W" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$tmp/out" ]; then
		ok "$name"
	else
		bad "$name: exit $rc, $(wc -c <"$tmp/out") bytes: $(head -c 300 "$tmp/err")"
	fi
}

# usage_check ARGS...: must exit 2 with exactly one line on stderr and
# nothing on stdout
usage_check() {
	local rc lines
	"$W" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ]; then
		ok "rejects: $* ($(cat "$tmp/err"))"
	else
		bad "bad input accepted or badly reported: '$*': exit $rc, $lines stderr lines: $(head -c 300 "$tmp/err")"
	fi
}

cal=(--calib-ms 20)	# short calibration keeps every run under 1 s

# --- help ------------------------------------------------------------------
human_check "global --help" --help
for s in periodic impulse pingpong spin sleep-cycle switchstorm; do
	human_check "$s --help" "$s" --help
done

# --- periodic ----------------------------------------------------------------
json_check "periodic --load" '
	.workload == "periodic" and .hz == 347 and .periods > 100 and
	(.overruns | type == "number") and .work_pct > 0 and .loops_per_us > 0 and
	.cpu == 0 and .timer_slack_ns == 1 and (.steps | length) == 1 and
	.steps[0].load_pct == 30 and .steps[0].packet_loops > 0 and
	(.wake_lat_us_mean | type == "number") and .interrupted == false' \
	-- periodic --hz 347 --load 30 --duration 0.5 --cpu 0 "${cal[@]}"
json_check "periodic --sweep" '
	.workload == "periodic" and .sweep == true and
	([.steps[].load_pct] == [0, 50, 100, 50, 0]) and
	(.steps | all(.periods > 0)) and .steps[0].packet_loops == 0 and
	.steps[2].packet_loops > .steps[1].packet_loops and
	.periods == ([.steps[].periods] | add) and
	.overruns == ([.steps[].overruns] | add)' \
	-- periodic --hz 500 --sweep 0:100:50 --step-s 0.1 "${cal[@]}"
# a sweep repeated until --duration: 0.5 s of 0.1 s steps is the three
# steps, then the first two again (10 .. 20 periods each at 100 Hz)
json_check "periodic --sweep --duration repeats the sweep" '
	.workload == "periodic" and ([.steps[].load_pct] == [10, 30, 10]) and
	.steps[0].periods >= 18 and .steps[1].periods >= 18 and
	.steps[2].periods >= 9 and .steps[2].periods <= 11 and
	(.elapsed_s >= 0.45 and .elapsed_s < 0.7)' \
	-- periodic --hz 100 --sweep 10:30:20 --step-s 0.1 --duration 0.5 "${cal[@]}"
json_check "periodic --loops-per-us reuses the packet" '
	.loops_per_us == 100 and .steps[0].packet_loops == 50000' \
	-- periodic --hz 1000 --load 50 --duration 0.05 --loops-per-us 100
human_check "periodic (human)" periodic --hz 347 --load 10 --duration 0.2 "${cal[@]}"

# --- impulse -----------------------------------------------------------------
json_check "impulse" '
	.workload == "impulse" and .trials == 3 and .slow_trials >= 0 and
	.slow_trials <= .trials and .gap_us_mean >= 500 and
	.gap_us_min <= .gap_us_mean and .gap_us_mean <= .gap_us_max and
	.pre_speed_mean > 0 and .first_window_ratio_mean > 0 and
	(.slow_us_mean | type == "number") and (.slow_us_max | type == "number") and
	(.recover_us_mean | type == "number") and .censored >= 0' \
	-- impulse --gap-us 500 --busy-ms 20 --post-ms 10 --trials 3 --cpu 0 "${cal[@]}"
json_check "impulse counts slow trials (--slow-min-us 0: all slow)" '
	.slow_trials == .trials and .slow_pct == 100 and
	.slow_us_mean == .recover_us_mean and .slow_us_max >= .slow_us_mean' \
	-- impulse --gap-us 200 --busy-ms 10 --post-ms 5 --trials 2 --slow-min-us 0 "${cal[@]}"
human_check "impulse (human)" impulse --gap-us 200 --busy-ms 10 --post-ms 5 --trials 2 "${cal[@]}"

# --- pingpong ----------------------------------------------------------------
json_check "pingpong" '
	.workload == "pingpong" and .pairs == 1 and .loops > 0 and
	.loops_per_s > 0 and .pin == false and (.per_pair | length) == 1' \
	-- pingpong --duration 0.3
json_check "pingpong --pin --work-us" '
	.pairs == 2 and .pin == true and .work_us == 10 and .work_loops > 0 and
	(.per_pair | length) == 2 and (.per_pair | all(.loops > 0)) and
	.per_pair[0].cpu_a >= 0 and .per_pair[0].cpu_b >= 0 and
	.loops == ([.per_pair[].loops] | add)' \
	-- pingpong --pairs 2 --work-us 10 --duration 0.3 --pin "${cal[@]}"
human_check "pingpong (human)" pingpong --duration 0.1

# --- spin / sleep-cycle --------------------------------------------------------
json_check "spin" '
	.workload == "spin" and .loops > 0 and .loops_per_us > 0 and
	.loops_per_us_min <= .loops_per_us_max and .elapsed_s >= 0.3' \
	-- spin --duration 0.3 --cpu 0
json_check "sleep-cycle" '
	.workload == "sleep-cycle" and .cycles > 100 and .busy_pct > 10 and
	.busy_pct < 100 and .idle_us_mean >= 200 and .wake_lat_us_mean >= 0 and
	.wake_lat_us_p50 <= .wake_lat_us_p99 and .wake_lat_us_p99 <= .wake_lat_us_max' \
	-- sleep-cycle --busy-us 200 --idle-us 200 --duration 0.3
human_check "sleep-cycle (human)" sleep-cycle --busy-us 50 --idle-us 50 --duration 0.1

# --- switchstorm ---------------------------------------------------------------
for m in futex pipe yield; do
	json_check "switchstorm --mode $m" "
		.workload == \"switchstorm\" and .mode == \"$m\" and .threads == 5 and
		(.handoffs + .yields) > 0 and .switches_per_s > 0 and
		(.vol_ctxt_switches | type == \"number\")" \
		-- switchstorm --threads 5 --duration 0.3 --mode $m
done

# --- SIGINT stops early and still reports -------------------------------------
"$W" spin --duration 30 --json >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 0 ] && { [ $JSON != jq ] || jq -e '.interrupted == true' "$tmp/out" >/dev/null 2>&1; }; then
	ok "SIGINT stops spin and reports"
else
	bad "SIGINT: exit $rc: $(head -c 300 "$tmp/out")"
fi

# --- bad input -------------------------------------------------------------------
usage_check
usage_check no-such-subcommand
usage_check periodic
usage_check periodic --hz 347
usage_check periodic --hz 0 --load 10
usage_check periodic --hz abc --load 10
usage_check periodic --hz 347 --load 101
usage_check periodic --hz 347 --load 10 --sweep 0:100:10
usage_check periodic --hz 347 --sweep 100:0:10
usage_check periodic --hz 347 --sweep 0:100
usage_check periodic --hz 347 --load 10 --cpu 99999
usage_check periodic --hz 347 --load 10 --no-such-option
usage_check periodic --hz 347 --load 10 stray
usage_check periodic --hz
usage_check periodic --hz 347 --load 10 --json=yes
usage_check impulse
usage_check impulse --gap-us 0
usage_check impulse --gap-us 100 --trials 0
usage_check impulse --gap-us 100 --busy-ms 1 --sample-us 1000
usage_check pingpong --pairs 0
usage_check pingpong --work-us -1
usage_check pingpong --duration nan
usage_check spin
usage_check spin --duration 0
usage_check sleep-cycle --busy-us 10 --idle-us 10
usage_check sleep-cycle --busy-us 10 --idle-us 0 --duration 1
usage_check switchstorm --duration 1
usage_check switchstorm --threads 0 --duration 1
usage_check switchstorm --threads 2 --duration 1 --mode spin

echo "test_workloads: $pass passed, $fail failed"
[ $fail -eq 0 ]
