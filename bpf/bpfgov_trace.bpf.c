// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bpfgov, tracepoint mode: for kernels without sched_ext.
 *
 * The scheduler is the kernel's own; we only observe it, with as few
 * program runs per context switch as the policy needs. cpu_idle alone
 * gives the idle state entered and its residency, and also the busy runs
 * and idle gaps (include/bpfgov_runs.h: no sched_switch program, which
 * would run twice more per wake-up); sched_waking stamps the sleeping CPU
 * a wakeup is aimed at (so the idle exit that follows measures the real
 * wake-up cost of that state; the loader turns it on part of the time),
 * and the local APIC timer is the tick that accounts long busy runs and
 * refreshes sleeping CPUs (and, on a sleeping CPU, marks a timer wake-up);
 * it reads neither the clock nor more than one line of state when it has
 * nothing to do.
 * The first hrtimer to expire on each CPU tells where its next timer is
 * kept, read at every idle entry. All decisions are made by the shared
 * policy core through bpfgov_common.bpf.h; nothing here knows the policy.
 *
 * Only tp_btf programs: fentry/kprobes are not available on every kernel
 * (some refuse fentry attachment), and tp_btf needs no tracefs mount.
 */
#include "bpfgov_common.bpf.h"
#include "bpfgov_runs.h"

static struct bpfgov_runs_cpu runs_cpu[BPFGOV_MAX_CPUS] __attribute__((aligned(BPFGOV_CACHE_LINE)));

static __always_inline struct bpfgov_runs_cpu *runs_of(__u32 cpu)
{
	return &runs_cpu[cpu & (BPFGOV_MAX_CPUS - 1)];
}

/* Idle states, and busy runs (include/bpfgov_runs.h). The CPU's state
 * and the tunables are looked up once for all the event does. */
SEC("tp_btf/cpu_idle")
int BPF_PROG(bpfgov_cpu_idle, unsigned int state, unsigned int cpu_id)
{
	struct task_struct *idle = bpf_get_current_task_btf();
	struct bpfgov_runs_cpu *h = runs_of(cpu_id);
	struct bpfgov_cpu_state *s = gov_cpu(cpu_id);
	struct bpfgov_config *c = gov_cfg();
	__u64 now = bpf_ktime_get_ns();
	int begin;

	if (!s || !c)
		return 0;
	if (state == PWR_EVENT_EXIT) {
		int resched = !!(idle->thread_info.flags & IDLE_RESCHED_MASK);

		/* The idle exit does not change s->busy. */
		begin = runs_at_exit(h, s->busy, resched, now) == RUNS_BEGIN;
		if (begin && gov_wake_fast(s, now))
			return 0;
		/* No task to run: the idle loop goes on (a poll that ran into
		 * the kernel's time limit). */
		s->exit_goes_on = !resched;
		gov_idle_exit(s, c, cpu_id, now);
		if (begin)
			gov_busy_begin(s, c, cpu_id, now);
		return 0;
	}
	switch (runs_at_enter(h, s->busy, idle->nivcsw)) {
	case RUNS_END:
		gov_busy_end(s, c, cpu_id, now);
		break;
	case RUNS_CUT:
		gov_busy_end(s, c, cpu_id, h->exit_ns);
		break;
	case RUNS_MISSED:
		gov_busy_begin(s, c, cpu_id, runs_missed_start(h, now));
		gov_busy_end(s, c, cpu_id, now);
		break;
	default:
		break;
	}
	gov_idle_enter(s, c, cpu_id, state, now);
	return 0;
}

/*
 * Set by the loader four seconds in sixteen: only then does a wake-up
 * stamp its target for the wake-up cost, which moves slowly. A flag in
 * the program, as in sched_ext mode, and not a detach: attaching or
 * detaching a tracepoint patches kernel text, and each patch sends
 * function-call IPIs to every online CPU (text_poke_sync), sleeping
 * ones included.
 */
volatile __u32 trace_wake_sample = 1;

/* Wake-up stamps are samples (gov_wake_sampled, bpfgov_common.bpf.h). */
SEC("tp_btf/sched_waking")
int BPF_PROG(bpfgov_waking, struct task_struct *p)
{
	if (!trace_wake_sample || !gov_wake_sampled())
		return 0;
	/* task_cpu(p) before select_task_rq: where the task last ran, the
	 * CPU that usually gets the wakeup. A miss only costs one sample.
	 * A direct load (p is a trusted BTF pointer), not a probe-read call. */
	gov_on_wake(p->thread_info.cpu);
	return 0;
}

/*
 * The tick, and any other local timer interrupt of an awake CPU. Most have
 * nothing to do (a CPU in short busy runs is accounted at its idle exits
 * and entries), so a tick first compares its time with the CPU's
 * tick_due_ns and scan_due_ns, on the line of cpu_state it reads anyway
 * (cur_state, busy), and stops there, without reading the clock. Its time
 * for that is the interrupt's programmed expiry, cpu_base->expires_next,
 * still in place at local_timer_entry (hrtimer_interrupt only moves it
 * later), on a line that hrtimer_interrupt reads right after. The
 * interrupt comes some time after its expiry (40-130 us in a VM): the
 * check allows GOV_TICK_SLACK_NS for that, so that a long busy run is
 * accounted at the same ticks as with the clock (a tick that comes later
 * than that leaves its work to the next one). A tick that may have a
 * long busy run to account reads the precise clock and works at that
 * time; one that may only have the remote scan to do works at its expiry
 * (the scan reads the clock only for a CPU it refreshes). Without a known
 * timer base (not learned yet; low-resolution mode) every tick reads it.
 */
#define GOV_TICK_SLACK_NS	(1000ull * POL_NS_PER_US)

static __always_inline __u64 gov_timer_expiry(__u32 cpu)
{
	__u64 base = timer_base[cpu & (BPFGOV_MAX_CPUS - 1)];

	if (!base)
		return 0;
	return (__u64)gov_expires_next(base);
}

/* A tick that may have something to do, out of line: the common path
 * stays short. @t: the interrupt's expiry (0: unknown). Only a long busy
 * run's accounting needs the precise clock; a tick that may only have
 * the remote scan to do takes its expiry for now (the scan reads the
 * clock itself for the first CPU it refreshes), and one that finds it
 * not due yet reads no clock at all. */
static __noinline int tick_work(__u32 cpu, struct bpfgov_cpu_state *s, __u64 t)
{
	struct bpfgov_config *c = NULL;
	__u64 now = 0, est;
	__u32 flags;

	if (!s)
		return 0;
	if (s->busy && (!t || t + GOV_TICK_SLACK_NS >= s->tick_due_ns)) {
		now = bpf_ktime_get_ns();
		if (now >= s->tick_due_ns) {
			c = gov_cfg();
			if (!c)
				return 0;
			flags = pol_tick(s, c, now);
			gov_emit_flags(s, c, cpu, flags, now);
		}
	}
	if (!now && !t)
		now = bpf_ktime_get_ns();
	est = now ? now : t;
	/* The tunables only for work to do. */
	if (est < s->scan_due_ns || (!c && !(c = gov_cfg())))
		return 0;
	gov_remote_scan(cpu, s, c, est, now);
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(bpfgov_tick, int vector)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	__u64 t;

	if (!s)
		return 0;
	/* The local timer interrupt of a sleeping CPU: a timer wake-up, and
	 * nothing else to do (the remote scan rides on awake CPUs' ticks). */
	if (s->cur_state != BPFGOV_NO_STATE) {
		pol_timer_fire(s);
		return 0;
	}
	/* A task that runs where the CPU was thought idle: one already
	 * running when we attached (a CPU that runs it forever never idles),
	 * or one that began without the flag at the last exit. Busy from
	 * the tick that interrupts it. */
	if (!s->busy && bpf_get_current_task_btf()->pid != 0) {
		gov_on_switch(cpu, 1, 0, runs_missed_start(runs_of(cpu), bpf_ktime_get_ns()));
		return 0;
	}
	t = gov_timer_expiry(cpu);
	if (t && t + GOV_TICK_SLACK_NS < s->tick_due_ns &&
	    t + GOV_TICK_SLACK_NS < s->scan_due_ns)
		return 0;
	return tick_work(cpu, s, t);
}

