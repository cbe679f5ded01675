#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Record and replay: `govlab record` captures a live trace from a
# running start, `govlab synth` writes the scenarios of the linux-pm reports, and `replay`
# reads both and puts bpfgov next to the reference governors.
. "$(dirname "$0")/../lib.sh"
set -o pipefail

check "start comes up" gov_start --dry-run --no-idle --duration 20
bg taskset -c 1 "$WORK" sleep-cycle --busy-us 2000 --idle-us 700 --duration 3 --cpu 1
"$LAB" record "$T_TMP/live.trace" --duration 2 >"$T_TMP/rec.out" 2>&1
is "record --duration 2 exits 0" "$?" 0
check "the recording is a version 2 trace" bash -c "head -n1 '$T_TMP/live.trace' | grep -qx 'bpfgov-trace 2'"
n=$(grep -cE '^[0-9]+ [0-9]+ (busy|gap|idle|wake) ' "$T_TMP/live.trace")
check "the recording holds busy/gap/idle records ($n)" [ "$n" -gt 100 ]
# Version 2 idle records: <ts> <cpu> idle <dur> <state> <next_timer_ns|-> <wake>
ni=$(grep -cE '^[0-9]+ [0-9]+ idle ' "$T_TMP/live.trace")
nw=$(grep -cE '^[0-9]+ [0-9]+ idle [0-9]+ [0-9]+ ([0-9]+|-) (timer|ipi|other|limit)$' "$T_TMP/live.trace")
is "every idle record carries the next timer and the wake reason ($nw of $ni)" "$nw" "$ni"
nt=$(grep -cE '^[0-9]+ 1 idle [0-9]+ [0-9]+ [0-9]+ timer$' "$T_TMP/live.trace")
check "CPU1's timer wake-ups carry a next timer ($nt)" [ "$nt" -gt 0 ]
# Busy runs and idle gaps are the workload's own (2000 us of work, 700 us
# asleep), whichever hooks mark them: medians on CPU1.
med_us() { awk -v k="$1" '$2 == 1 && $3 == k { print $4 }' "$T_TMP/live.trace" | sort -n |
	awk '{ a[NR] = $1 } END { print NR ? int(a[int((NR + 1) / 2)] / 1000) : 0 }'; }
mb=$(med_us busy); mg=$(med_us gap)
check "CPU1's busy runs are the work bursts (median $mb us, 2000 expected)" test "$mb" -ge 1600 -a "$mb" -le 3000
check "CPU1's idle gaps are the sleeps (median $mg us, 700 expected)" test "$mg" -ge 350 -a "$mg" -le 1500
# A second recording, after the first: the tap ring may hold events the
# first left unread, from before this one began; a trace begins at its start.
sleep 0.5
"$LAB" record "$T_TMP/second.trace" --duration 1 >"$T_TMP/rec2.out" 2>&1
span=$("$LAB" replay "$T_TMP/second.trace" --json 2>/dev/null | jq -r .duration_s)
check "a recording of 1 s spans no more than its own time ($span s)" \
	awk "BEGIN { exit !(\"$span\" != \"\" && $span <= 1.3) }"
"$GOV" stop >/dev/null 2>&1
gov_wait

"$LAB" replay "$T_TMP/live.trace" --json >"$T_TMP/live.json" 2>"$T_TMP/live.err"
is "replay of the recorded trace exits 0" "$?" 0
check "replay puts bpfgov beside every reference model" jq -e '
	.policies | has("bpfgov") and has("menu") and has("teo") and has("ladder") and
	has("ladder-balanced") and has("haltpoll") and has("schedutil") and has("hwp-3/4") and
	has("hwp-7/8") and has("hwp-1") and has("hwp-passive") and has("bpfgov@menu") and
	has("bpfgov@teo") and has("bpfgov@ladder") and has("bpfgov@haltpoll")' "$T_TMP/live.json"
check "the judge scores every idle policy against the kernel models" jq -e '
	.judge.references == ["menu", "teo", "ladder", "haltpoll"] and
	([.policies[] | select(.idle != null) | .idle |
	  (.energy_distance_pct | type) == "number" and (.latency_distance_us | type) == "number" and
	  .periods > 0] | all) and
	(.policies.bpfgov.idle.verdicts | keys == ["haltpoll", "ladder", "menu", "teo"])' "$T_TMP/live.json"

"$LAB" synth impulse --gap-us 747:950 --trials 50 -o "$T_TMP/impulse.trace" >/dev/null 2>&1
is "synth impulse exits 0" "$?" 0
"$LAB" replay "$T_TMP/impulse.trace" --policy bpfgov,hwp-1 --json >"$T_TMP/imp.json" 2>/dev/null
is "replay of the synthetic trace exits 0" "$?" 0
check "bpfgov never drops the floor to lowest after the 747-950 us gaps" \
	jq -e '.policies.bpfgov.freq | .short_gaps == 50 and .short_gaps_to_lowest == 0' "$T_TMP/imp.json"

# each option checked under its own name (the option table is not in the
# order of the option values)
"$LAB" synth mix --work-us 2000 --short-us 200 --long-us 10000 --phase-ms 500 --duration 2 \
	-o "$T_TMP/phased.trace" >/dev/null 2>&1
is "synth mix takes --short-us and --long-us" "$?" 0
"$LAB" synth bursty --burst 4 --duration 1 -o "$T_TMP/burst4.trace" >/dev/null 2>&1
is "synth bursty takes --burst" "$?" 0
msg=$("$LAB" synth mix --burst 4 -o "$T_TMP/refused.trace" 2>&1 >/dev/null)
is "a misplaced option is refused under its own name" "$?:$msg" \
	"2:govlab: synth: --burst does not apply to 'mix' (it takes: work-us short-us long-us long-pct phase-ms duration)"

"$LAB" synth bursty --duration 1 --table truthful -o "$T_TMP/bursty.trace" >/dev/null 2>&1
check "synth writes version 2 with wake reasons" bash -c "head -n1 '$T_TMP/bursty.trace' | grep -qx 'bpfgov-trace 2' && grep -q ' idle [0-9]* 1 - other\$' '$T_TMP/bursty.trace'"
"$LAB" replay "$T_TMP/bursty.trace" --power-model HALT=0.1 --json >"$T_TMP/bursty.json" 2>/dev/null
is "replay of a version 2 trace with a power model exits 0" "$?" 0
check "the power model and the truthful table are in the JSON" jq -e '
	.judge.power_model == [1, 0.1] and .states[1].exit_latency_us == 100' "$T_TMP/bursty.json"
# the same impulse as version 1: no next timer, no wake reason
awk 'NR == 1 { print "bpfgov-trace 1"; next } $3 == "idle" { NF = 5 } { print }' \
	"$T_TMP/impulse.trace" >"$T_TMP/impulse-v1.trace"
"$LAB" replay "$T_TMP/impulse-v1.trace" --policy bpfgov,hwp-1 --json >"$T_TMP/imp1.json" 2>/dev/null
is "a version 1 trace still replays" "$?" 0
check "... with the same result as its version 2 twin" \
	bash -c "[ \"\$(jq -c .policies '$T_TMP/imp1.json')\" = \"\$(jq -c .policies '$T_TMP/imp.json')\" ]"
"$LAB" replay "$T_TMP/bursty.trace" --power-model C6=0.1 >/dev/null 2>"$T_TMP/pm.err"
rc=$?
check "a power model naming no state of the trace: one line, exit 2 (rc $rc)" \
	bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$T_TMP/pm.err') -eq 1 ] && grep -q C6 '$T_TMP/pm.err'"

head -c 300 "$T_TMP/impulse.trace" >"$T_TMP/cut.trace"
"$LAB" replay "$T_TMP/cut.trace" >/dev/null 2>"$T_TMP/cut.err"
rc=$?
check "a truncated trace is refused with one line naming the file (rc $rc)" \
	bash -c "[ $rc -ne 0 ] && [ \$(wc -l <'$T_TMP/cut.err') -eq 1 ] && grep -q 'cut.trace' '$T_TMP/cut.err'"
t_done
