// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The cost of one BPF program run on this machine, for `make bench`: minimal
 * programs on the tracepoints bpfgov uses, attached beside it while
 * bpf_stats counts, so that its ns per call is read next to what a run
 * costs here at all (the run itself, its clock reads under bpf_stats, and
 * on a VM the clock source). Not part of the product.
 *
 * ref_*_empty: nothing. ref_*_clock: read the clock into the CPU's own
 * slot (a line of its own), the least any of bpfgov's programs does when
 * it has work.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define REF_CPUS	1024
#define REF_STRIDE	8	/* one 64-byte line per CPU */

__u64 ref_slot[REF_CPUS * REF_STRIDE] __attribute__((aligned(64)));

SEC("tp_btf/cpu_idle")
int BPF_PROG(ref_idle_empty, unsigned int state, unsigned int cpu_id)
{
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(ref_idle_clock, unsigned int state, unsigned int cpu_id)
{
	ref_slot[(cpu_id & (REF_CPUS - 1)) * REF_STRIDE] = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(ref_tick_empty, int vector)
{
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(ref_tick_clock, int vector)
{
	ref_slot[(bpf_get_smp_processor_id() & (REF_CPUS - 1)) * REF_STRIDE + 1] = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(ref_waking_empty, struct task_struct *p)
{
	return 0;
}
