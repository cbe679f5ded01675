#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Next timer at idle entry, in the running kernel: each CPU learns its
# hrtimer_cpu_base from the hrtimer_expire_entry tracepoint, the idle exits
# of a CPU that runs a periodic sleeper carry the time from idle entry to
# its next timer (never beyond the sleeper's period), timer wake-ups are
# told from the others, and their wake-up cost (exit minus the programmed
# expiry) reaches the per-state cost.
. "$(dirname "$0")/../lib.sh"

HZ_LOAD=200				# period 5000 us
PERIOD_US=$((1000000 / HZ_LOAD))

check "govloader start comes up in trace mode" gov_start --mode trace --dry-run
sleep 1
is "status names the next-timer source" "$(status_get .next_timer)" "hrtimer_cpu_base via tracepoint"
"$GOV" status >"$T_TMP/status.txt" 2>&1
check "status text shows the next-timer line" grep -q "^next timer: hrtimer_cpu_base via tracepoint" "$T_TMP/status.txt"

bg taskset -c 1 "$WORK" periodic --hz $HZ_LOAD --load 10 --duration 5 --cpu 1
sleep 1
timeout 10 "$GOV" tail --all --json --cpu 1 --count 600 >"$T_TMP/tail.json" 2>"$T_TMP/tail.err"
jq -c 'select(.kind == "idle_exit")' "$T_TMP/tail.json" >"$T_TMP/idle.json"
n=$(wc -l <"$T_TMP/idle.json")
check "idle exits of CPU1 on the tap ($n)" [ "$n" -gt 20 ]
check "every idle exit has next_timer_us and wake" \
	jq -e -s 'all(has("next_timer_us") and (.wake == "timer" or .wake == "ipi" or .wake == "other"))' "$T_TMP/idle.json"
nt=$(jq -s '[.[] | select(.next_timer_us > 0)] | length' "$T_TMP/idle.json")
check "idle exits carry a next timer > 0 ($nt of $n)" [ "$nt" -gt 0 ]
# With a sleeper waking every 5 ms on CPU1, the next timer at any idle
# entry is at most one period away (other timers can only be earlier).
inp=$(jq -s --argjson p $PERIOD_US '[.[] | select(.next_timer_us > 0 and .next_timer_us <= $p + 100)] | length' "$T_TMP/idle.json")
check "next timers are within the sleeper's period ($inp of $nt <= ${PERIOD_US}us)" [ "$inp" -ge $((nt * 9 / 10)) ]
tw=$(jq -s '[.[] | select(.wake == "timer")] | length' "$T_TMP/idle.json")
check "timer wake-ups are recognised ($tw of $n)" [ "$tw" -gt 0 ]
# A timer wake-up ends after its expiry: residency >= next timer.
early=$(jq -s "[.[] | select(.wake == \"timer\" and .next_timer_us > 0 and .dur_ns / 1000 < .next_timer_us)] | length" "$T_TMP/idle.json")
diag "timer wake-ups before the expiry read at entry (a timer armed meanwhile): $early"
check "most timer wake-ups end after the next timer read at entry" \
	quiet jq -e -s '[.[] | select(.wake == "timer" and .next_timer_us > 0)] | (map(select(.dur_ns / 1000 >= .next_timer_us)) | length) * 10 >= length * 9' "$T_TMP/idle.json"
diag "first timer wake-ups (residency us, next timer us): $(jq -r -s '[.[] | select(.wake == "timer")][:5] | map("\(.dur_ns / 1000 | floor)/\(.next_timer_us)") | join(" ")' "$T_TMP/idle.json")"
wait "${BG_PIDS[@]}" 2>/dev/null

bpftool map dump pinned "$PIN/cpu_state" >"$T_TMP/dump.json" 2>&1
check "bpftool map dump shows next_timer_ns > 0 and the source on CPU1" \
	jq -e '.[1].value | .next_timer_ns > 0 and .timer_src == 1' "$T_TMP/dump.json"
ts=$(jq '.[1].value.nr_timer_samples' "$T_TMP/dump.json")
check "timer wake-ups gave wake-up cost samples on CPU1 ($ts)" [ "$ts" -gt 0 ]
c1=$(jq '.[1].value.wake_cost_ns[1]' "$T_TMP/dump.json")
check "halt has a measured wake-up cost on CPU1 (${c1} ns)" [ "$c1" -gt 0 ]
tws=$(status_get '.cpus[1].timer_wakes')
check "status counts timer wake-ups on CPU1 ($tws)" [ "$tws" -gt 0 ]

"$GOV" stop >"$T_TMP/stop.log" 2>&1
is "stop exits 0" "$?" 0
gov_wait
is "start exits 0 after stop" "$GOV_RC" 0
t_done
