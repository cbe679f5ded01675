#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# No polling that outlives its reason.
#
# 1. Replay as the kernel does it: a polling pick stands (PM QoS "n/a")
#    until the loader changes it, and under it poll_idle() returns at the
#    kernel's poll time limit; the haltpoll governor with a closed window
#    (guest_halt_poll_ns=0, as KVM guests run it) halves that limit to
#    ~125 us. A ping-pong burst, then a quiet machine: the quiet part must
#    not poll (it polled ~99% of its time before polls were classified by
#    what ended them).
# 2. A recorded trace whose polls ran into the limit ("limit" records):
#    replay merges them into their idle period and learns the limit.
# 3. Live, on a machine with a cpuidle driver and a polling state: with
#    bpfgov running, a ping-pong burst polls >= 15% of its CPU time, and
#    the quiet machine 1 s after it polls <= 5%. Elsewhere skipped, with
#    the reason (a failure where TEST_LIVE=1, as in the guest).
. "$(dirname "$0")/../lib.sh"
set -o pipefail

poll_ns() { jq -r ".policies[\"$2\"].idle.poll_ns" "$1"; }

# 1. Burst, then quiet (10 s on each of 2 CPUs).
"$LAB" synth pingpong --work-us 20 --duration 3 -o "$T_TMP/burst.trace" >/dev/null 2>&1
"$LAB" synth pingpong --work-us 20 --duration 3 --quiet-s 10 -o "$T_TMP/quiet.trace" >/dev/null 2>&1
is "synth writes the burst and the burst + quiet traces" \
	"$(ls "$T_TMP/burst.trace" "$T_TMP/quiet.trace" 2>/dev/null | wc -l)" 2
for gov in haltpoll menu; do
	"$LAB" replay "$T_TMP/burst.trace" -p "bpfgov@$gov" --haltpoll-ns 0 -j >"$T_TMP/b.json" 2>/dev/null
	"$LAB" replay "$T_TMP/quiet.trace" -p "bpfgov@$gov" --haltpoll-ns 0 -j >"$T_TMP/q.json" 2>/dev/null
	b=$(poll_ns "$T_TMP/b.json" "bpfgov@$gov"); q=$(poll_ns "$T_TMP/q.json" "bpfgov@$gov")
	check "bpfgov@$gov: the burst polls (${b} ns)" [ "${b:-0}" -gt 1000000000 ]
	# The quiet part's poll time: what the burst + quiet trace polls
	# beyond the burst alone (the same burst, the same seed).
	extra=$(( ${q:-0} - ${b:-0} ))
	check "bpfgov@$gov: the quiet machine polls <= 1% of its 20 CPU-s (${extra} ns)" \
		[ "$extra" -le 200000000 ]
done
"$LAB" replay "$T_TMP/quiet.trace" -p bpfgov@haltpoll --haltpoll-ns 0 >"$T_TMP/q.txt" 2>&1
check "the replay table names the kernel's poll time limit it cut polls at" \
	grep -q "^polls " "$T_TMP/q.txt"
"$LAB" replay "$T_TMP/quiet.trace" -p bpfgov@menu --poll-limit-us 128 -j >"$T_TMP/o.json" 2>/dev/null
is "--poll-limit-us sets the limit replayed" "$(jq -r '.poll_limit_ns, .poll_limit_from' "$T_TMP/o.json" | paste -sd,)" \
	"128000,option"
lab_expect_fail "--poll-limit-us 0 is refused in one line" 2 "poll-limit-us" replay "$T_TMP/quiet.trace" --poll-limit-us 0

# 2. Recorded timed-out polls: three polls of 128 us that ran into the
# limit, then a halt ended by a timer, form one idle period of ~1.4 ms.
cat >"$T_TMP/limit.trace" <<'EOF'
bpfgov-trace 2
source handmade: polls that ran into the kernel's limit
nr_cpus 1
state 0 POLL 0 0 poll 1000
state 1 HALT 1 1 - 60000
records
1000000000 0 busy 100000
1000128000 0 idle 128000 0 1400000 limit
1000256000 0 idle 128000 0 1272000 limit
1000384000 0 idle 128000 0 1144000 limit
1001400000 0 idle 1016000 1 1016000 timer
1001410000 0 busy 10000
1001538000 0 idle 128000 0 2000000 limit
1002000000 0 idle 462000 1 1872000 ipi
1002000000 0 wake 60000 1
end 9
EOF
"$LAB" replay "$T_TMP/limit.trace" -p menu -j >"$T_TMP/l.json" 2>"$T_TMP/l.err"
is "replay reads 'limit' idle records" "$?" 0
is "the limit is learned from the trace's timed-out polls" \
	"$(jq -r '.poll_limit_ns, .poll_limit_from, .limit_polls' "$T_TMP/l.json" | paste -sd,)" "128000,trace,4"
is "timed-out polls are merged into their idle period (2 periods)" \
	"$(jq -r '.policies.menu.idle.periods' "$T_TMP/l.json")" 2

# 2b. An idle whose cause is unknown and that lasted less than its state's
# wake-up cost (a wake-up that came while the CPU was entering idle is
# stamped nowhere) cost no more than it lasted: 200 such polls of 30 us
# under a measured poll wake-up cost of 150 us replay as 6 ms of idle
# whatever the pick, not as 200 x 150 us (12 ms before this rule: the
# idle's length was clamped to 0, then the cost added back).
{
	echo "bpfgov-trace 2"
	echo "source handmade: polls ended at once, a slow measured wake-up"
	echo "nr_cpus 1"
	echo "state 0 POLL 0 0 poll 150000"
	echo "state 1 HALT 1 1 - 60000"
	echo "records"
	t=1000000000
	for i in $(seq 1 200); do
		t=$((t + 20000)); echo "$t 0 busy 20000"
		t=$((t + 30000)); echo "$t 0 idle 30000 0 4000000 other"
	done
	echo "end 400"
} >"$T_TMP/short.trace"
"$LAB" replay "$T_TMP/short.trace" -p bpfgov@menu,menu -j >"$T_TMP/s.json" 2>"$T_TMP/s.err"
is "replay reads the trace of short polls" "$?" 0
for p in bpfgov@menu menu; do
	v=$(jq -r ".policies[\"$p\"].idle.idle_ns" "$T_TMP/s.json")
	check "$p: short polls of an unknown cause cost no more than they lasted (${v} ns of 6000000)" \
		[ "${v:-99999999}" -le 6000000 ]
done

# 3. Live. First the burst, which must poll well above the bound (a
# governor that never picks polling, or never writes its pick, fails
# here), then the quiet machine 1 s after it, which must stop. Shares are
# compared in microseconds of POLL (cpuidle state0 time) against the
# measured span times the online CPUs. The pick follows each idle at once
# here (pick_dwell_ms=0): the burst then polls as much as bpfgov ever makes
# a CPU poll, and its pick moves the most often, the strongest case for a
# poll that outlives its reason (with the default dwell the same burst
# polls a few percent, below any bound that would show the effect).
DRIVER=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
S0=/sys/devices/system/cpu/cpu0/cpuidle/state0
BOUND=5			# % of CPU time a quiet machine may poll
BURST=$((3 * BOUND))	# % the burst must poll at least
if [ "$DRIVER" = none ] || [ ! -r "$S0/time" ] || [ "$(cat "$S0/name" 2>/dev/null)" != POLL ]; then
	live_skip "cpuidle driver $DRIVER, no polling state to measure"
elif ! check "start comes up (driver $DRIVER, no dwell)" gov_start --no-floor --duration 30 --set pick_dwell_ms=0; then
	diag "no live measurement without the governor"
else
	n=$(online_cpus | wc -l)
	# poll_span CMD...: run CMD; sets P_US (POLL us over all CPUs) and
	# SPAN_US (elapsed us times the online CPUs).
	poll_span() {
		local p0 t0
		p0=$(cpuidle_us 0); t0=$(now_us)
		"$@"
		P_US=$(( $(cpuidle_us 0) - p0 )); SPAN_US=$(( ($(now_us) - t0) * n ))
	}
	# a burst: ping-pong with 20 us of work per hop, 3 s
	poll_span taskset -c 0,1 "$WORK" pingpong --pairs 1 --pin --work-us 20 --duration 3 >/dev/null 2>&1
	check "the burst polls >= $BURST% of its CPU time ($(share $P_US $SPAN_US)%: $P_US of $SPAN_US us)" \
		[ $((P_US * 100)) -ge $((BURST * SPAN_US)) ]
	sleep 1
	poll_span sleep 2
	check "a quiet machine 1 s after a burst polls <= $BOUND% of its CPU time ($(share $P_US $SPAN_US)%: $P_US of $SPAN_US us)" \
		[ $((P_US * 100)) -le $((BOUND * SPAN_US)) ]
	# a timer-driven load (cyclictest --laptop, 2 ms) where it is installed
	if command -v cyclictest >/dev/null; then
		cyclictest -q --laptop -m -t2 -a0,1 -i 2000 -D 3 >/dev/null 2>&1
		sleep 1
		poll_span sleep 2
		check "quiet 1 s after a timer load polls <= $BOUND% ($(share $P_US $SPAN_US)%: $P_US of $SPAN_US us)" \
			[ $((P_US * 100)) -le $((BOUND * SPAN_US)) ]
	else
		live_skip "cyclictest is not installed"
	fi
	"$GOV" stop >/dev/null 2>&1
	gov_wait
	is "start exits 0" "$GOV_RC" 0
fi
t_done
