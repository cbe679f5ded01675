#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Record and replay: `govloader record` captures a live trace from a
# running start, `govloader synth` writes the seed scenarios, and `replay`
# reads both and puts bpfgov next to the reference governors.
. "$(dirname "$0")/../lib.sh"
set -o pipefail

check "start comes up" gov_start --dry-run --no-idle --duration 20
bg taskset -c 1 "$WORK" sleep-cycle --busy-us 2000 --idle-us 700 --duration 3 --cpu 1
"$GOV" record "$T_TMP/live.trace" --duration 2 >"$T_TMP/rec.out" 2>&1
is "record --duration 2 exits 0" "$?" 0
check "the recording is a versioned trace" bash -c "head -n1 '$T_TMP/live.trace' | grep -qx 'bpfgov-trace 1'"
n=$(grep -cE '^[0-9]+ [0-9]+ (busy|gap|idle|wake) ' "$T_TMP/live.trace")
check "the recording holds busy/gap/idle records ($n)" [ "$n" -gt 100 ]
"$GOV" stop >/dev/null 2>&1
gov_wait

"$GOV" replay "$T_TMP/live.trace" --json >"$T_TMP/live.json" 2>"$T_TMP/live.err"
is "replay of the recorded trace exits 0" "$?" 0
check "replay puts bpfgov beside every reference model" jq -e '
	.policies | has("bpfgov") and has("menu") and has("teo") and has("ladder") and
	has("ladder-balanced") and has("haltpoll") and has("schedutil") and has("hwp-3/4") and
	has("hwp-7/8") and has("hwp-1")' "$T_TMP/live.json"

"$GOV" synth impulse --gap-us 747:950 --trials 50 -o "$T_TMP/impulse.trace" >/dev/null 2>&1
is "synth impulse exits 0" "$?" 0
"$GOV" replay "$T_TMP/impulse.trace" --policy bpfgov,hwp-1 --json >"$T_TMP/imp.json" 2>/dev/null
is "replay of the synthetic trace exits 0" "$?" 0
check "bpfgov never drops the floor to lowest after the 747-950 us gaps" \
	jq -e '.policies.bpfgov.freq | .short_gaps == 50 and .short_gaps_to_lowest == 0' "$T_TMP/imp.json"

head -c 300 "$T_TMP/impulse.trace" >"$T_TMP/cut.trace"
"$GOV" replay "$T_TMP/cut.trace" >/dev/null 2>"$T_TMP/cut.err"
rc=$?
check "a truncated trace is refused with one line naming the file (rc $rc)" \
	bash -c "[ $rc -ne 0 ] && [ \$(wc -l <'$T_TMP/cut.err') -eq 1 ] && grep -q 'cut.trace' '$T_TMP/cut.err'"
t_done
