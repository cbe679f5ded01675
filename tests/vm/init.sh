#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the sched_ext test VM: mount what bpfgov needs, run the guest
# tests, report their exit status on the console and power off.  The host
# side (tests/vm/run.sh) parses the console.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# bash's <(...) and scripts' "#!/usr/bin/env bash" (the idle groups)
ln -s /proc/self/fd /dev/fd 2>/dev/null
mkdir -p /usr/bin
[ -e /usr/bin/env ] || ln -s /bin/busybox /usr/bin/env
mount -t tmpfs tmpfs /tmp
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run	# as systemd mounts it: root's, 0755
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null	# cpu.weight (the fair group)
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# Arguments after "--" on the kernel command line reach init as $@.
cd /tmp
sh /tests/guest-tests.sh "$@"
echo "GUEST-EXIT rc=$?"
sync
# -no-reboot turns the reboot into a qemu exit.
reboot -f
sleep 5
