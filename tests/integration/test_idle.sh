#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Idle actuation: real per-CPU PM QoS files of this host (restored
# afterwards), and a stand-in sysfs tree with cpuidle disable knobs under
# the menu governor, through the same code path (--sysfs-root).
. "$(dirname "$0")/../lib.sh"

NCPU=$(nr_possible_cpus)
qos() { cat "/sys/devices/system/cpu/cpu$1/power/pm_qos_resume_latency_us"; }
save_qos() { local c; for c in $(seq 0 $((NCPU - 1))); do qos "$c"; done; }

# 1. Real sysfs. Ping-pong with no work makes idle periods far shorter than
# a halt wake-up here, so bpfgov picks polling and writes "n/a".
orig=$(save_qos)
check "start on the real sysfs comes up" gov_start --no-floor --duration 8
seen=no
bg taskset -c 0,1 "$WORK" pingpong --pairs 1 --pin --work-us 0 --duration 5
for i in $(seq 1 50); do
	if save_qos | grep -q "n/a"; then seen=yes; break; fi
	sleep 0.1
done
is "a polling pick reaches pm_qos_resume_latency_us as n/a" "$seen" yes
sleep 1.2	# status is published once a second
w=$(status_get '[.actuator.cpus[].writes] | add')
check "status counts idle writes ($w)" [ "$w" -gt 0 ]
wait "${BG_PIDS[@]}" 2>/dev/null
gov_wait
is "start exits 0" "$GOV_RC" 0
is "original PM QoS values are back" "$(save_qos)" "$orig"

# 2. Stand-in sysfs: menu governor with four states; disable knobs follow
# the pick, originals come back byte for byte.
SYS=$T_TMP/sys
seed_sysfs_standin "$SYS"
cp -a "$SYS" "$T_TMP/sys.orig"
check "start --sysfs-root (stand-in, menu, 4 states) comes up" gov_start --sysfs-root "$SYS" --no-floor --duration 6
is "the stand-in's 4 idle states are used" "$(status_get .tunables.nr_states)" 4
bg taskset -c 0,1 "$WORK" pingpong --pairs 1 --pin --work-us 0 --duration 3
changed=no
for i in $(seq 1 40); do
	if ! diff -r "$SYS" "$T_TMP/sys.orig" >/dev/null; then changed=yes; break; fi
	sleep 0.1
done
is "picks are written to the stand-in knobs" "$changed" yes
gov_wait
check "stand-in knobs are restored byte for byte" diff -r "$SYS" "$T_TMP/sys.orig"
t_done
