# SPDX-License-Identifier: GPL-2.0
# The machine state the tests may touch, for the test runner: which
# filesystems are mounted where the governor and its tools look, the
# cpuidle governor, every CPU's PM QoS limit and idle state knobs, the idle
# governors' module parameters and what bpfgov leaves in /run and on bpffs.
# The runner takes it before the first suite, puts back after each suite
# what a suite may have left mounted, and checks at the end that the
# machine is as it found it: a new machine has neither bpffs nor tracefs
# mounted, and every suite must pass from there as from a machine where
# they are.
# Sourcing this file defines functions only.

# fs_state DIR TYPE: "mounted" when a filesystem of TYPE (stat -f's name) is
# mounted at DIR, else "unmounted".
fs_state() {
	if [ "$(stat -f -c %T "$1" 2>/dev/null)" = "$2" ]; then echo mounted; else echo unmounted; fi
}

# machine_state: one "key value" line per fact, in a stable order.
machine_state() {
	local f
	echo "bpffs $(fs_state /sys/fs/bpf bpf_fs)"
	echo "tracefs $(fs_state /sys/kernel/tracing tracefs)"
	echo "cpuidle_governor $(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo -)"
	for f in /sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us \
		 /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable \
		 /sys/module/haltpoll/parameters/* /sys/module/cpuidle_haltpoll/parameters/*; do
		[ -r "$f" ] && echo "${f#/sys/} $(cat "$f" 2>/dev/null)"
	done
	# What a run leaves for the next: a journal, pins, a status file. The
	# lock files stay by design (removing a lock file races its next taker).
	for f in /run/bpfgov*/* /sys/fs/bpf/bpfgov*; do
		case "$f" in */lock) continue ;; esac
		[ -e "$f" ] && echo "left $f"
	done
	return 0
}

# machine_settle BEFORE: unmount bpffs and tracefs where BEFORE (a
# machine_state) had them unmounted and nothing is left in them, so that
# the next suite starts from the state the run started from.
machine_settle() {
	local before=$1
	# (maps.debug and progs.debug are the kernel's own, made at each
	# mount where it preloads its BPF iterators: not left by anyone.)
	if grep -qx 'bpffs unmounted' <<<"$before" && [ "$(fs_state /sys/fs/bpf bpf_fs)" = mounted ] &&
	   [ -z "$(ls -A /sys/fs/bpf 2>/dev/null | grep -vxE 'maps\.debug|progs\.debug')" ]; then
		umount /sys/fs/bpf 2>/dev/null
	fi
	if grep -qx 'tracefs unmounted' <<<"$before" && [ "$(fs_state /sys/kernel/tracing tracefs)" = mounted ]; then
		umount /sys/kernel/tracing 2>/dev/null
	fi
	return 0
}
