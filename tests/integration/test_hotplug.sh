#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# CPU hotplug: CPU1 goes offline and comes back while bpfgov runs. No
# error, no leaked file descriptors, decisions for CPU1 resume, and the
# exact originals are back at the end.
. "$(dirname "$0")/../lib.sh"

ONLINE=/sys/devices/system/cpu/cpu1/online
if [ ! -w "$ONLINE" ]; then
	diag "CPU1 cannot be offlined on this machine ($ONLINE not writable): skipped"
	t_done
	exit
fi
MSR=$T_TMP/msr
seed_msr_standins "$MSR"
cp -a "$MSR" "$T_TMP/msr.orig"
online_back() { echo 1 >"$ONLINE" 2>/dev/null; }
trap 'online_back; t_cleanup' EXIT

check "start comes up" gov_start --msr-root "$MSR" --no-idle --duration 20
fds0=$(gov_fds "$GOV_PID")
echo 0 >"$ONLINE"
is "CPU1 is offline" "$(cat "$ONLINE")" 0
sleep 2.5
check "start keeps running with CPU1 offline" kill -0 "$GOV_PID"
check "status answers with CPU1 offline" bash -c "'$GOV' status --json | jq -e '.running' >/dev/null"
echo 1 >"$ONLINE"
is "CPU1 is back online" "$(cat "$ONLINE")" 1
n0=$(status_get '.cpus[1].switches')
bg taskset -c 1 "$WORK" spin --cpu 1 --duration 3.5
sleep 2.5	# read while the loop still runs: the floor falls soon after
n1=$(status_get '.cpus[1].switches')
m=$(( $(msr_file_read "$MSR/1/msr" $((0x774))) & 0xff ))
wait "${BG_PIDS[@]}" 2>/dev/null
# The floor may already stand high from the offlining (it falls only
# after a hold), so the spin need not change it: CPU1's scheduler events
# are what must resume.
check "CPU1's events are counted again after it came back (switches $n0 -> $n1)" [ "$n1" -gt "$n0" ]
check "CPU1's min field follows its load again ($m > $HWP_LOWEST)" [ "$m" -gt "$HWP_LOWEST" ]
fds1=$(gov_fds "$GOV_PID")
# Fewer is fine (a program that has learned what it needs may be detached).
check "no file descriptors leaked across the cycle ($fds0 -> $fds1)" [ "$fds1" -le "$fds0" ]
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0" "$GOV_RC" 0
check "no warnings in start's log" bash -c "! grep -qiE 'warn|error|cannot|fail' '$GOV_LOG'"
check "original MSR bytes are back" diff -r "$MSR" "$T_TMP/msr.orig"
t_done
