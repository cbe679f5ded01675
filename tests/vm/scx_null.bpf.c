// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest sched_ext scheduler there is: no callback at all, every
 * operation left to the kernel's default (select_cpu: the built-in idle
 * CPU picker, dispatching to the chosen CPU's local DSQ; enqueue: the
 * global FIFO DSQ; dispatch: consume it).  `make bench-vm` measures it
 * beside the default scheduler as the floor of what any sched_ext
 * scheduler costs on a workload: the sched_ext core's own paths, with no
 * BPF program run.  A scheduler whose programs do anything at all cannot
 * do better than this one on a workload where this one places tasks as
 * well (pinned ping-pong: each task has one CPU to run on).
 *
 * Registered with `bpftool struct_ops register scx_null.bpf.o DIR` (the
 * link pinned in DIR keeps it loaded); removing the pinned link unloads it.
 */
#include <scx/common.bpf.h>

char _license[] SEC("license") = "GPL";

SEC(".struct_ops.link")
struct sched_ext_ops null_ops = {
	.name			= "null",
};
