#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Idle actuation: the machine's real per-CPU PM QoS files (restored
# afterwards), and a stand-in sysfs tree with cpuidle disable knobs under
# the menu governor, through the same code path (--sysfs-root).
. "$(dirname "$0")/../lib.sh"

NCPU=$(nr_possible_cpus)
qos() { cat "/sys/devices/system/cpu/cpu$1/power/pm_qos_resume_latency_us"; }
save_qos() { local c; for c in $(seq 0 $((NCPU - 1))); do qos "$c"; done; }

# 1. Real sysfs. With a cpuidle driver, ping-pong with no work makes idle
# periods far shorter than a halt wake-up, so bpfgov picks polling and
# writes "n/a"; once the load ends, the quiet CPUs' long idles lift it
# again while bpfgov runs. With none, the kernel halts whatever is picked
# and PM QoS changes nothing: the pick is fixed at halt and nothing is
# written. `make check-vm-idle` runs this part in a guest with a driver
# (TEST_LIVE=1 there: no driver is a failure). The pick follows each idle
# at once here (pick_dwell_ms=0): with the default dwell, ping-pong in the
# emulated guest polls a few percent and the polling pick may stand for
# no sample of the file; this part tests the write and its release.
DRIVER=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
diag "cpuidle driver: $DRIVER"
orig=$(save_qos)
# no_dwell: read the dwell the instance started with (its default, or its
# profile's) into DWELL, then set none (the loads below follow each idle
# at once).
no_dwell() {
	DWELL=$(status_get .tunables.pick_dwell_ms)
	check "the instance starts with a dwell (${DWELL:-none} ms, $(status_get .tunable_origins.pick_dwell_ms))$1" \
		[ "${DWELL:-0}" -gt 0 ]
	check "no dwell under the load$1" "$GOV" set pick_dwell_ms=0
}
# held_5 CMD...: released means released for good. CMD must succeed for
# five looks in a row (0.5 s), not on one look that may land on a pick
# flipping while the last hops of a load drain; up to 6 s. Sets RUN (the
# looks in a row at the end) and FROM (seconds to the first of them).
held_5() {
	local i first=
	RUN=0
	for i in $(seq 1 60); do
		if "$@"; then
			RUN=$((RUN + 1)); first=${first:-$i}
			[ "$RUN" -ge 5 ] && break
		else
			RUN=0 first=
		fi
		sleep 0.1
	done
	FROM="$(( ${first:-0} / 10 )).$(( ${first:-0} % 10 ))"
}
check "start on the real sysfs comes up" gov_start --no-floor --duration 30
no_dwell ""
bg taskset -c 0,1 "$WORK" pingpong --pairs 1 --pin --work-us 0 --duration 5
if [ "$DRIVER" != none ]; then
	seen=no
	for i in $(seq 1 50); do
		if save_qos | grep -q "n/a"; then seen=yes; break; fi
		sleep 0.1
	done
	is "a polling pick reaches pm_qos_resume_latency_us as n/a" "$seen" yes
	sleep 1.2	# status is published once a second
	w=$(status_get '[.actuator.cpus[].writes] | add')
	check "status counts idle writes ($w)" [ "${w:-0}" -gt 0 ]
	wait "${BG_PIDS[@]}" 2>/dev/null
	BG_PIDS=()
	# The load is over: back to the dwell it started with, as users run it. With
	# none, a pick follows every idle, and this script's own commands
	# (pipes between two CPUs) give it fresh short idles to follow.
	check "the dwell is set again ($DWELL ms)" "$GOV" set pick_dwell_ms="$DWELL"
	qos_orig() { [ "$(save_qos)" = "$orig" ]; }
	held_5 qos_orig
	is "after the load, PM QoS is the original again and stays, bpfgov running (from $FROM s)" \
		"$RUN,$(save_qos | paste -sd,)" "5,$(paste -sd, <<<"$orig")"
else
	live_skip "cpuidle driver none: a polling pick is not written to the real PM QoS here"
	changed=no
	for i in $(seq 1 40); do
		[ "$(save_qos)" = "$orig" ] || changed=yes
		sleep 0.1
	done
	is "no cpuidle driver: pm_qos_resume_latency_us is never written" "$changed" no
	w=$(status_get '[.actuator.cpus[].writes] | add')
	is "no cpuidle driver: status counts no idle writes" "${w//null/0}" 0
	is "no cpuidle driver: every CPU's pick is halt (1)" \
		"$(status_get '[.cpus[].idle_pick] | unique | join(",")')" 1
	is "no cpuidle driver: the pick reason is fixed" \
		"$(status_get '[.cpus[].pick_reason] | unique | join(",")')" fixed
	p=$(status_get '[.cpus[].pick_changes] | add')
	is "no cpuidle driver: no pick changes under ping-pong" "${p//null/0}" 0
fi
# (a bare `wait` would reap the governor too, before gov_wait)
[ ${#BG_PIDS[@]} -eq 0 ] || wait "${BG_PIDS[@]}" 2>/dev/null
BG_PIDS=()
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0" "$GOV_RC" 0
is "original PM QoS values are back" "$(save_qos)" "$orig"

# 2. Stand-in sysfs: menu governor with four states; disable knobs follow
# the pick, originals come back byte for byte. As in part 1 the pick
# follows each idle at once (pick_dwell_ms=0): what is tested here is that
# every CPU's own knobs follow its picks; with the default dwell a CPU of
# the emulated 6.1 guest made 0 pick changes in 15 s of ping-pong (the
# other 16), and 1 in another boot.
SYS=$T_TMP/sys
seed_sysfs_standin "$SYS"
cp -a "$SYS" "$T_TMP/sys.orig"
check "start --sysfs-root (stand-in, menu, 4 states) comes up" gov_start --sysfs-root "$SYS" --no-floor --duration 60
no_dwell " (stand-in)"
is "the stand-in's 4 idle states are used" "$(status_get .tunables.nr_states)" 4
pingpong_all 20
CPUS=$(online_cpus)
# writes CPU: the actuator's write count for that CPU (status, once a second).
writes() { local w; w=$(status_get ".actuator.cpus[$1].writes"); echo "${w//null/0}"; }
all_written() { local c; for c in $CPUS; do [ "$(writes "$c")" -gt 0 ] || return 1; done; }
for i in $(seq 1 150); do
	! diff -r "$SYS" "$T_TMP/sys.orig" >/dev/null && all_written && break
	sleep 0.1
done
check "picks are written to the stand-in knobs" bash -c "! diff -r '$SYS' '$T_TMP/sys.orig' >/dev/null"
# Every online CPU's own knobs (PM QoS, stateK/disable) follow its picks.
for c in $CPUS; do
	w=$(writes "$c")
	check "cpu$c: its stand-in idle knobs are written ($w writes)" [ "$w" -gt 0 ]
done
kill "${BG_PIDS[@]}" 2>/dev/null
wait "${BG_PIDS[@]}" 2>/dev/null
BG_PIDS=()
# 3. No standing constraint outlives its reason: once the load ends, the
# quiet machine's long idles lift every constraint by themselves (bpfgov
# still running), without a write for a sleeping CPU: each knob comes back
# at its CPU's next idle exit. Bounded: within 5 s. A halting pick keeps
# the polling state shut (the pick says halt); no deeper state stays
# disabled and PM QoS is the original again.
standing() { # the CPUs whose PM QoS or deep-state knobs differ from the originals
	local c k d o
	for c in $CPUS; do
		d=$SYS/devices/system/cpu/cpu$c; o=$T_TMP/sys.orig/devices/system/cpu/cpu$c
		for k in power/pm_qos_resume_latency_us cpuidle/state1/disable \
			 cpuidle/state2/disable cpuidle/state3/disable; do
			cmp -s "$d/$k" "$o/$k" || { echo "cpu$c"; break; }
		done
	done
}
# Part 2's constraints go first, so that what stands below is this load's.
for i in $(seq 1 50); do
	[ -z "$(standing)" ] && break
	sleep 0.1
done
diag "before the load, constraints stand on: $(standing | paste -sd,)"
pingpong_all 3
# First the load must set them: a governor that sets none would pass the
# release below.
for i in $(seq 1 25); do
	s_mid=$(standing | paste -sd,)
	[ -n "$s_mid" ] && break
	sleep 0.1
done
check "under the load, constraints stand (${s_mid:-on no CPU})" [ -n "$s_mid" ]
wait "${BG_PIDS[@]}" 2>/dev/null
BG_PIDS=()
# As in part 1, the dwell it started with once the load is over; then the set must
# be empty and stay so for five looks in a row.
check "the dwell is set again ($DWELL ms, stand-in)" "$GOV" set pick_dwell_ms="$DWELL"
none_standing() { [ -z "$(standing)" ]; }
held_5 none_standing
is "after the load, no deep state stays disabled and PM QoS is back, and stays (from $FROM s)" \
	"$RUN:$(standing | paste -sd,)" "5:"
sleep 1.2	# status is published once a second
p=$(status_get '[.cpus[] | select(.idle_pick != 3)] | length')
is "after the load, every CPU's pick is the deepest state again" "$p" 0
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0 (stand-in)" "$GOV_RC" 0
for c in $(seq 0 $((NCPU - 1))); do
	check "cpu$c: stand-in knobs are restored byte for byte" \
		diff -r "$SYS/devices/system/cpu/cpu$c" "$T_TMP/sys.orig/devices/system/cpu/cpu$c"
done
check "the whole stand-in tree is restored byte for byte" diff -r "$SYS" "$T_TMP/sys.orig"
t_done
