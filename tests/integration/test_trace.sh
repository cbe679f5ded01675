#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Tracepoint mode in the running kernel: util and floor follow a pinned busy
# loop up and back down, decisions reach `tail`, `bpftool map dump` shows
# named fields, and `stop` restores and unpins.
. "$(dirname "$0")/../lib.sh"

check "govloader start comes up in trace mode" gov_start --mode trace --dry-run
is "status reports trace mode" "$(status_get .mode)" trace

# Wake-up stamps four seconds in sixteen, by a flag in the program's data,
# never by detaching sched_waking: each attach or detach patches kernel
# text and interrupts every CPU. Sampled every 0.5 s on CPU0 for the whole
# run (about 25 s; 45 s at most): "LINK_ID FLAG" of bpfgov_waking.
waking_sample() {
	local p d l f end=$((SECONDS + 45))
	while [ "$SECONDS" -lt "$end" ]; do
		p=$(bpftool prog show name bpfgov_waking -j 2>/dev/null)
		l=$(bpftool link show -j 2>/dev/null | jq -r --argjson p "$(jq '.id // 0' <<<"$p")" \
			'[.[] | select(.prog_id == $p) | .id] | first // "none"')
		d=
		for m in $(jq -r '.map_ids[]?' <<<"$p"); do
			bpftool map show id "$m" -j 2>/dev/null | jq -e '.name | endswith(".data")' >/dev/null &&
				d=$m
		done
		f=$([ -n "$d" ] && bpftool map dump id "$d" -j 2>/dev/null |
			jq -r '.[0].formatted.value[".data"][0].trace_wake_sample // "none"')
		echo "$l ${f:-none}"
		sleep 0.5
	done
}
# not in BG_PIDS, which the idle checks below kill
taskset -c 0 bash -c "$(declare -f waking_sample); waking_sample" >"$T_TMP/waking" &
WAKING_PID=$!

sleep 1
u0=$(status_get '.cpus[1].util')
diag "CPU1 util before the busy loop: $u0"
bg taskset -c 1 "$WORK" spin --cpu 1 --duration 3
sleep 2
u=$(status_get '.cpus[1].util'); f=$(status_get '.cpus[1].floor')
check "util rises on a busy CPU1 (util $u > 800)" [ "$u" -gt 800 ]
check "floor rises on a busy CPU1 (floor $f > 900)" [ "$f" -gt 900 ]
wait "${BG_PIDS[@]}" 2>/dev/null
# A sleeping CPU's floor is refreshed by the tick of an awake CPU, never by
# waking it: keep CPU0 awake at a light duty cycle while CPU1 sleeps, and
# read the state from CPU0 so that CPU1 stays asleep.
# The refresh lowers it once, to the minimum, when the target has decayed
# within the deadband of it: about 1.4 s after a CPU busy for seconds.
# Work that runs on CPU1 meanwhile (a kernel worker, a timer job of the
# system), even for a millisecond, is CPU1's own: it raises its util and
# may raise its floor, which then falls again some 50 ms after CPU1 sleeps
# once more. A read in that window is not a CPU asleep: when CPU1 ran at
# all since the last read, read again, up to four times, 1 s apart.
taskset -c 0 "$GOV" status --json >"$T_TMP/idle.json"
b0=$(jq -r '.cpus[1].busy_ms' "$T_TMP/idle.json")
bg taskset -c 0 "$WORK" sleep-cycle --busy-us 1000 --idle-us 1000 --duration 9 --cpu 0
sleep 3
for try in 1 2 3 4 5; do
	taskset -c 0 "$GOV" status --json >"$T_TMP/idle.json"
	u=$(jq -r '.cpus[1].util' "$T_TMP/idle.json"); f=$(jq -r '.cpus[1].floor' "$T_TMP/idle.json"); t=$(jq -r '.cpus[1].target' "$T_TMP/idle.json")
	b=$(jq -r '.cpus[1].busy_ms' "$T_TMP/idle.json")
	diag "$(jq -c '.cpus[1]' "$T_TMP/idle.json")"
	{ [ "$t" -lt 300 ] && [ "$f" -lt 300 ]; } && break
	awk -v a="$b0" -v b="$b" 'BEGIN { exit !(b > a) }' || break
	[ $try -lt 5 ] || break
	diag "CPU1 ran $(awk -v a="$b0" -v b="$b" 'BEGIN { printf "%.1f", b - a }') ms since the last read, not asleep throughout: reading again in 1 s"
	b0=$b
	sleep 1
done
kill "${BG_PIDS[@]}" 2>/dev/null
wait "${BG_PIDS[@]}" 2>/dev/null
check "target falls when CPU1 idles (target $t < 300)" [ "$t" -lt 300 ]
check "floor falls when CPU1 idles (floor $f < 300)" [ "$f" -lt 300 ]

# Decisions on the tap: CPU1 alternates 300 ms busy and 1 s asleep for
# all the tail checks below, so that its floor really rises and falls (a
# steady duty cycle, by design, makes next to no decisions).
bg taskset -c 1 bash -c 'end=$((SECONDS + 25)); while [ "$SECONDS" -lt "$end" ]; do "$1" spin --cpu 1 --duration 0.3 >/dev/null; sleep 1; done' phases "$WORK"
timeout 10 "$GOV" tail --json --count 20 >"$T_TMP/tail.json" 2>"$T_TMP/tail.err"
rc=$?
is "tail --json --count 20 exits 0" "$rc" 0
is "tail printed 20 records" "$(wc -l <"$T_TMP/tail.json")" 20
check "every tail record is JSON with a decision kind" \
	jq -e -s 'length == 20 and all(.kind == "floor" or .kind == "pick")' "$T_TMP/tail.json"
d=$(status_get '.actuator.decisions')
check "start keeps consuming its own decisions while tail runs ($d)" [ "$d" -gt 0 ]
timeout 5 "$GOV" tail --all --json --count 50 >"$T_TMP/all.json" 2>/dev/null
check "tail --all streams per-event detail" jq -e -s 'any(.kind == "idle_exit" or .kind == "busy")' "$T_TMP/all.json"
check "tail --cpu 1 filters" bash -c "timeout 10 '$GOV' tail --json --cpu 1 --count 5 | jq -e -s 'length == 5 and all(.cpu == 1)' >/dev/null"

bpftool map dump pinned "$PIN/cpu_state" >"$T_TMP/dump.json" 2>&1
check "bpftool map dump pinned cpu_state shows named fields" \
	jq -e '.[0].value | has("util") and has("floor") and has("idle_pick") and has("nr_switches")' "$T_TMP/dump.json"
"$GOV" dump >"$T_TMP/dump.txt" 2>&1
check "govloader dump prints typed state" grep -q '\.floor = (__u32)' "$T_TMP/dump.txt"
st=$(status_get '.cpus[0].idle_entries')
check "cpu_idle events are counted ($st)" [ "$st" -gt 0 ]
dr=$(status_get '.drops.events')
is "no decision records dropped" "$dr" 0

kill "$WAKING_PID" 2>/dev/null
wait "$WAKING_PID" 2>/dev/null
diag "sched_waking link and stamp flag, every 0.5 s: $(awk '{ n[$0]++ } END { for (k in n) printf "%s (%d) ", k, n[k] }' "$T_TMP/waking")"
check "sched_waking stays attached for the whole run, one link: no kernel text patched ($(awk '{ print $1 }' "$T_TMP/waking" | sort -u | paste -sd,))" \
	[ "$(awk '{ print $1 }' "$T_TMP/waking" | sort -u | grep -vc none)" = 1 -a "$(grep -c '^none' "$T_TMP/waking")" = 0 ]
check "its wake-up stamps are turned on and off by the flag ($(awk '{ print $2 }' "$T_TMP/waking" | sort -u | paste -sd,) over $(wc -l <"$T_TMP/waking") samples)" \
	[ "$(awk '{ print $2 }' "$T_TMP/waking" | sort -u | paste -sd,)" = "0,1" ]

"$GOV" stop >"$T_TMP/stop.log" 2>&1
is "stop exits 0" "$?" 0
gov_wait
is "start exits 0 after stop" "$GOV_RC" 0
check "pins are gone after stop" test ! -e "$PIN/cpu_state"
check "start printed its per-second summary" grep -q "dec/s" "$GOV_LOG"
"$GOV" status >/dev/null 2>&1
is "status after stop says not running (exit 3)" "$?" 3
t_done
