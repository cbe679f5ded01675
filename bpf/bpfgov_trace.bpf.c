// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bpfgov, tracepoint mode: for kernels without sched_ext.
 *
 * The scheduler is the kernel's own; we only observe it. sched_switch
 * to/from the idle task (pid 0) marks busy runs and idle gaps, cpu_idle
 * gives the idle state entered and its residency, sched_waking stamps the
 * sleeping CPU a wakeup is aimed at (so the idle exit that follows measures
 * the real wake-up cost of that state), and the local APIC timer is the tick
 * that accounts long busy runs and refreshes sleeping CPUs (and, on a
 * sleeping CPU, marks a timer wake-up). The first hrtimer to expire on each
 * CPU tells where its next timer is kept, read at every idle entry. All decisions
 * are made by the shared policy core through bpfgov_common.bpf.h; nothing
 * here knows the policy.
 *
 * Only tp_btf programs: fentry/kprobes are not available on every kernel
 * (some refuse fentry attachment), and tp_btf needs no tracefs mount.
 */
#include "bpfgov_common.bpf.h"

/* include/trace/events/power.h: PWR_EVENT_EXIT is -1 as an unsigned state. */
#define PWR_EVENT_EXIT	((unsigned int)-1)

SEC("tp_btf/sched_switch")
int BPF_PROG(bpfgov_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	/* The idle task is the only pid 0 task on a CPU. */
	gov_on_switch(bpf_get_smp_processor_id(), prev->pid == 0, next->pid == 0,
		      bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(bpfgov_cpu_idle, unsigned int state, unsigned int cpu_id)
{
	__u64 now = bpf_ktime_get_ns();

	if (state == PWR_EVENT_EXIT)
		gov_on_idle_exit(cpu_id, now);
	else
		gov_on_idle_enter(cpu_id, state, now);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(bpfgov_waking, struct task_struct *p)
{
	/* task_cpu(p) before select_task_rq: where the task last ran, the
	 * CPU that usually gets the wakeup. A miss only costs one sample. */
	gov_on_wake(BPF_CORE_READ(p, thread_info.cpu));
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(bpfgov_tick, int vector)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 now = bpf_ktime_get_ns();
	struct bpfgov_cpu_state *s = gov_cpu(cpu);

	/* A task already running when we attached never switched in, and a
	 * CPU that runs it forever never switches: count it busy from the
	 * first tick that interrupts it (fresh state: neither busy nor idle). */
	if (s && !s->busy && !s->idle_since_ns && bpf_get_current_task_btf()->pid != 0)
		gov_on_switch(cpu, 1, 0, now);
	/* The local timer interrupt of a sleeping CPU: a timer wake-up. */
	if (s && s->cur_state != BPFGOV_NO_STATE)
		s->timer_fired = 1;
	gov_on_tick(cpu, now);
	return 0;
}

/*
 * hrtimer_expire_entry runs on the CPU whose hrtimer_cpu_base holds the
 * timer (hrtimer_interrupt, hrtimer_run_softirq, hrtimer_run_queues): the
 * timer's base leads to this CPU's hrtimer_cpu_base. Once learned, the
 * program only checks one array slot. Only the first argument is used: it
 * is the timer on every kernel (the second changed type over time).
 */
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(bpfgov_timer_base, struct hrtimer *timer)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (timer_base[cpu & (BPFGOV_MAX_CPUS - 1)])
		return 0;
	gov_learn_timer_base(cpu, BPF_CORE_READ(timer, base, cpu_base));
	return 0;
}
