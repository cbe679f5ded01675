// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bpfgov as a sched_ext scheduler.
 *
 * Scheduling: a weighted virtual-time fair policy.  A waking task is placed
 * by the kernel's idle-CPU picker (scx_bpf_select_cpu_dfl); when that found
 * an idle CPU the task goes straight to the CPU's local DSQ (per-CPU
 * dispatch first).  Everything else goes to one shared DSQ ordered by
 * vtime, which every CPU drains in dispatch().  A task's vtime advances by
 * the time it actually ran, scaled by 100/weight, and a task that slept is
 * never further behind than one slice of the global vtime clock, so
 * sleepers get a bounded head start and nothing starves behind them: the
 * watchdog sees every runnable task run within a few slices.  When the shared queue holds
 * more than one task per CPU the slice shrinks, so latency stays bounded
 * under overload.
 *
 * Governing: the same policy core as tracepoint mode (bpfgov_policy.h via
 * bpfgov_common.bpf.h).  With every task on sched_ext, the scheduler's own
 * hooks say when a CPU idles, without ops.update_idle (two more program
 * runs per idle period): dispatch() that finds nothing while prev is not
 * runnable is the CPU about to go idle (busy end, idle enter), and the
 * next running() on an idle CPU ends the idle period (idle exit, busy
 * begin).  With SCX_OPS_SWITCH_PARTIAL, tasks of other classes run where
 * the scheduler does not see them, so update_idle() marks idle entry/exit
 * instead (the loader attaches it only then).  tick() accounts long busy
 * runs and refreshes sleeping CPUs' floors.  All of these run under the rq
 * lock of the CPU they are about, so
 * that is the only CPU whose perf target we set (scx_bpf_cpuperf_set rejects
 * any other CPU while an rq lock is held), and only when the floor decision
 * changed, which the core already filters through its deadband and rate
 * limit: unfiltered updates wake the schedutil kthread needlessly.
 *
 * Placement of pinned tasks: a task that can only run on one CPU never
 * goes through select_cpu(); when its CPU is idle it is inserted straight
 * into that CPU's local DSQ from enqueue() (the kernel then wakes the CPU),
 * instead of the shared queue plus a kick.  A cross-CPU ping-pong between
 * two pinned threads thus costs one wake-up per hop, as under the default
 * scheduler.
 *
 * Portability: kfuncs, their older names and the exit-info record come
 * from the scx project's own headers (include/scx/, vendored from the
 * kernel's tools/sched_ext/include at the version the VM tests run);
 * missing ops fields are handled by the loader (user/scx.c).  ops.exit
 * records the exit info (UEI_RECORD) and an EXIT record in the ring.
 */
#include <scx/common.bpf.h>	/* the scx project's kfuncs, compat wrappers, exit info */
#define GOV_LEARNS_TIMER_BASE	0	/* no hrtimer program here: no next timer */
#include "bpfgov_common.bpf.h"

/* LICENSE comes from bpfgov_common.bpf.h. */

#define SHARED_DSQ	0
#define SLICE_NS	(5ULL * 1000 * 1000)	/* default slice */
#define SLICE_MIN_NS	(500ULL * 1000)		/* floor of the overload slice */

/* Written by the loader at run time (test-only): when non-zero, the next
 * tick raises a BPF-side error so the kernel ejects the scheduler. */
__u32 scx_test_error;

/* Exit info for the loader (user_exit_info.h). */
UEI_DEFINE(uei);

/* Counters the loader prints; not per-CPU: contention is irrelevant next to
 * the cost of a context switch under TCG, and races only lose counts. */
__u64 scx_nr_local;		/* direct dispatches to an idle CPU */
__u64 scx_nr_shared;		/* enqueues to the shared vtime DSQ */
__u64 scx_nr_kicks;		/* idle CPUs kicked for a shared-DSQ task */
__u64 scx_nr_perf_sets;		/* scx_bpf_cpuperf_set calls */

static u64 vtime_now;

/* Bench/test only, set before load: schedule without running the
 * governor (measures what the scheduling policy alone costs). */
const volatile bool scx_sched_only;

/* Set by the loader when it attaches ops.update_idle (partial mode):
 * idle periods come from there, not from dispatch()/running(). */
const volatile bool scx_idle_hook;

/* The kernel's account of the run time of the task now running on each
 * CPU (se.sum_exec_runtime) when it started: stopping() charges the time
 * actually run, from the same account (the kernel updates it before
 * ops.stopping), without reading a clock in either hook.  The slice handed
 * out varies (and the kernel may refill it), so "slice given - slice left"
 * would overcharge short runs and starve tasks that sleep often. */
__u64 scx_run_start[BPFGOV_MAX_CPUS];

/* Set by the loader four seconds in sixteen (as it attaches sched_waking in
 * tracepoint mode): only then does a wake-up aimed at a sleeping CPU
 * stamp it for the wake-up cost, which moves slowly; the other seconds
 * pay no clock read for it. */
volatile __u32 scx_wake_sample = 1;

/* Last perf value asked for, per CPU, plus one (0: never set).  Written
 * only under that CPU's rq lock, so plain stores are enough. */
__u32 scx_last_perf[BPFGOV_MAX_CPUS];

/*
 * @cpu as an index the verifier can bound.  clang drops a mask it can
 * prove redundant after an earlier range check and re-derives the index in
 * a way the verifier cannot follow, so hide the value from clang first
 * (BPFGOV_MAX_CPUS is a power of two).
 */
static __always_inline __u32 cpu_slot(s32 cpu)
{
	__u32 idx = (__u32)cpu;

	asm volatile("" : "+r"(idx));
	return idx & (BPFGOV_MAX_CPUS - 1);
}

/*
 * Feed the perf target to the kernel.  Only ever for @cpu == the CPU whose
 * rq lock the caller holds, and only when the floor decision changed.
 * @s: that CPU's state, from gov_cpu(@cpu), which took @cpu as in range.
 */
static __always_inline void perf_follow(struct bpfgov_cpu_state *s, s32 cpu)
{
	__u32 perf, idx;

	if (!bpf_ksym_exists(scx_bpf_cpuperf_set))
		return;
	perf = s->floor;
	if (perf > BPFGOV_SCALE)
		perf = BPFGOV_SCALE;
	/* The core already applied the deadband and rate limit to s->floor;
	 * this only drops repeats (a tick re-evaluating to the same value). */
	idx = cpu_slot(cpu);
	if (scx_last_perf[idx] == perf + 1)
		return;
	scx_last_perf[idx] = perf + 1;
	scx_bpf_cpuperf_set(cpu, perf);
	__sync_fetch_and_add(&scx_nr_perf_sets, 1);
}

/*
 * The policy core, once per transition: one function per transition, not
 * one per event (busy end and idle entry, idle exit and busy begin, happen
 * together here), so each hook looks up the CPU's state once, as
 * tracepoint mode's cpu_idle does.  Busy end + idle entry is short and
 * straight: inline in dispatch().  Idle exit + busy begin + perf follow
 * is a global (non-inlined) function, which the verifier checks once,
 * independently of its callers' state (inlined into the hook, they exceed
 * its 1M-instruction budget); running() takes the short path of a CPU in
 * short cycles without a cpuidle driver inline first (gov_wake_fast).
 */
/* The CPU runs out of work: its busy run ends, its idle period begins.
 * sched_ext does not say which idle state the CPU will enter: assume the
 * one we picked, which actuation applies, unless the machine always
 * enters one (no cpuidle driver: it halts). */
static __always_inline void run_ends(struct bpfgov_cpu_state *s, __u32 cpu, __u64 now)
{
	struct bpfgov_config *c = gov_cfg();

	if (s->busy)
		gov_busy_end(s, c, cpu, now);
	else
		s->nr_switches++;
	gov_idle_enter(s, c, cpu, c->idle_state_fixed ? c->idle_state_fixed - 1 : s->idle_pick, now);
}

/* The same, out of line, for update_idle (partial mode). */
__noinline int bpfgov_scx_run_ends(struct bpfgov_cpu_state *s, __u32 cpu, __u64 now)
{
	if (s)
		run_ends(s, cpu, now);
	return 0;
}

/* The first task after idle: the idle period ends (unless update_idle
 * already ended it, or the CPU was busy when we attached), a busy run
 * begins, and the CPU's perf target follows its floor. */
__noinline int bpfgov_scx_run_begins(struct bpfgov_cpu_state *s, __u32 cpu, __u64 now)
{
	struct bpfgov_config *c = gov_cfg();

	if (!s)
		return 0;
	if (s->cur_state != BPFGOV_NO_STATE)
		gov_idle_exit(s, c, cpu, now);
	if (!s->busy)
		gov_busy_begin(s, c, cpu, now);
	else
		s->nr_switches++;
	perf_follow(s, (s32)cpu);
	return 0;
}

/* A due tick (bpfgov_tick): the policy core's tick, then the perf target. */
__noinline int bpfgov_scx_tick_gov(struct bpfgov_cpu_state *s, __u32 cpu, __u64 now)
{
	if (!s)
		return 0;
	gov_tick(s, gov_cfg(), cpu, now);
	perf_follow(s, (s32)cpu);
	return 0;
}

__noinline int bpfgov_scx_wake(__u32 cpu)
{
	gov_on_wake(cpu);
	return 0;
}

static __always_inline bool vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/* Shorter slices when more tasks wait than there are CPUs. */
static __always_inline u64 task_slice(void)
{
	s32 queued = scx_bpf_dsq_nr_queued(SHARED_DSQ);
	u64 n;

	n = nr_cpus ? nr_cpus : 1;
	if (queued <= (s32)n)
		return SLICE_NS;
	n = SLICE_NS * n / (u64)queued;
	return n < SLICE_MIN_NS ? SLICE_MIN_NS : n;
}

/* Record that this CPU is about to be woken (wake-cost measurement), for
 * one such wake-up in GOV_WAKE_SAMPLE, as tracepoint mode does.  Not from
 * the CPU itself: a pinned task's enqueue mostly runs on its own CPU,
 * already awake (the waker queued it there), and the core ignores those. */
static __always_inline void stamp_wake(s32 cpu)
{
	if (scx_wake_sample && cpu != (s32)bpf_get_smp_processor_id() && gov_wake_sampled())
		bpfgov_scx_wake((__u32)cpu);
}

/*
 * The CPU whose rq lock a task hook holds: the task's CPU.  running() and
 * stopping() also run on other CPUs (a remote CPU changing a running task's
 * class or attributes, e.g. when the scheduler is enabled), so the current
 * CPU is the wrong answer there, and scx_bpf_cpuperf_set() on it is an
 * error ("Invalid target CPU").
 */
static __always_inline s32 task_cpu_of(const struct task_struct *p)
{
	return (s32)p->thread_info.cpu;	/* task_cpu(): a load, not a kfunc call */
}

s32 BPF_STRUCT_OPS(bpfgov_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu;

	cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);
	if (is_idle) {
		/* The picker claimed an idle CPU: run there without queueing. */
		if (!scx_sched_only)
			stamp_wake(cpu);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, SLICE_NS, 0);
		__sync_fetch_and_add(&scx_nr_local, 1);
	}
	return cpu;
}

void BPF_STRUCT_OPS(bpfgov_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 vtime = p->scx.dsq_vtime;
	s32 cpu;

	/*
	 * Pinned and its CPU idle: straight to that CPU (select_cpu() is not
	 * called for a task with one allowed CPU).  Claiming the idle bit
	 * keeps another waker from picking the same CPU meanwhile.
	 */
	if (p->nr_cpus_allowed == 1) {
		cpu = task_cpu_of(p);
		if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
			if (!scx_sched_only)
				stamp_wake(cpu);
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, SLICE_NS, enq_flags);
			__sync_fetch_and_add(&scx_nr_local, 1);
			return;
		}
	}

	/* A sleeper keeps at most one slice of credit. */
	if (vtime_before(vtime, vtime_now - SLICE_NS))
		vtime = vtime_now - SLICE_NS;
	scx_bpf_dsq_insert_vtime(p, SHARED_DSQ, task_slice(), vtime, enq_flags);
	__sync_fetch_and_add(&scx_nr_shared, 1);

	/*
	 * Tasks that did not pass through select_cpu (preempted, re-enqueued,
	 * woken with a CPU already chosen) would otherwise wait for a busy
	 * CPU's next dispatch while another CPU idles.  A pinned task's only
	 * CPU is busy here (checked above): nothing to kick.
	 */
	if (p->nr_cpus_allowed == 1)
		return;
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		if (!scx_sched_only)
			stamp_wake(cpu);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		__sync_fetch_and_add(&scx_nr_kicks, 1);
	}
}

void BPF_STRUCT_OPS(bpfgov_dispatch, s32 cpu, struct task_struct *prev)
{
	struct bpfgov_cpu_state *s;

	if (scx_bpf_dsq_move_to_local(SHARED_DSQ, 0))
		return;
	/* If the shared DSQ is empty and prev is still runnable, the kernel
	 * keeps prev running with a refilled slice. */
	if (scx_sched_only || scx_idle_hook || (prev && (prev->scx.flags & SCX_TASK_QUEUED)))
		return;
	/* Nothing to run: this CPU (@cpu, whose rq lock we hold) goes idle.
	 * A CPU already idle (woken for nothing) stays in its idle period. */
	s = gov_cpu((__u32)cpu);
	if (!s || !s->busy)
		return;
	run_ends(s, (__u32)cpu, bpf_ktime_get_ns());
}

void BPF_STRUCT_OPS(bpfgov_running, struct task_struct *p)
{
	s32 cpu = task_cpu_of(p);
	struct bpfgov_cpu_state *s;
	__u64 now;

	/* The global vtime clock follows the task that runs. */
	if (vtime_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
	if (cpu >= 0)
		scx_run_start[cpu_slot(cpu)] = p->se.sum_exec_runtime;
	if (scx_sched_only)
		return;

	s = gov_cpu((__u32)cpu);
	if (!s)
		return;
	if (s->busy) {
		s->nr_switches++;	/* task to task: all gov_on_switch() would do */
		return;			/* the floor only changes at busy begin and tick */
	}
	/* The first task after idle (with update_idle attached, that already
	 * ended the idle period; a CPU busy when we attached is seen first
	 * here): idle exit, then the switch away from idle. In short cycles
	 * without a cpuidle driver, nearly always the short path, inline,
	 * unless a tap reader wants the records of these steps. */
	now = bpf_ktime_get_ns();
	if (gov_wake_fast(s, gov_cfg(), now)) {
		perf_follow(s, cpu);
		return;
	}
	bpfgov_scx_run_begins(s, (__u32)cpu, now);
}

void BPF_STRUCT_OPS(bpfgov_stopping, struct task_struct *p, bool runnable)
{
	u64 used = 0, start, now = p->se.sum_exec_runtime;
	u64 weight = p->scx.weight ? p->scx.weight : 1;
	s32 cpu = task_cpu_of(p);

	/* Charge the time actually run, scaled by the inverse weight
	 * (weight 100 = nice 0). */
	if (cpu >= 0) {
		start = scx_run_start[cpu_slot(cpu)];
		if (now > start)
			used = now - start;
	}
	p->scx.dsq_vtime += used * 100 / weight;
}

/*
 * Most ticks have nothing to do: a CPU in short busy runs is accounted at
 * its idle exits and entries. As in tracepoint mode, the tick compares the
 * time with the CPU's tick_due_ns (the earliest time pol_tick() could
 * change anything) and scan_due_ns (the next remote scan from this CPU),
 * on the line of cpu_state that running() keeps hot, and stops there;
 * only a due tick runs the policy core and the perf follow.
 */
void BPF_STRUCT_OPS(bpfgov_tick, struct task_struct *p)
{
	s32 cpu = task_cpu_of(p);	/* == this CPU: ticks are local */
	struct bpfgov_cpu_state *s;
	__u64 now;

	if (scx_test_error) {
		scx_test_error = 0;
		scx_bpf_error("test-only error requested (cpu %d)", cpu);
		return;
	}
	if (scx_sched_only)
		return;
	s = gov_cpu((__u32)cpu);
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	if (now < s->tick_due_ns && now < s->scan_due_ns)
		return;
	bpfgov_scx_tick_gov(s, (__u32)cpu, now);
}

void BPF_STRUCT_OPS(bpfgov_update_idle, s32 cpu, bool idle)
{
	struct bpfgov_cpu_state *s;
	__u64 now = bpf_ktime_get_ns();

	if (scx_sched_only || !scx_idle_hook)
		return;
	s = gov_cpu((__u32)cpu);
	if (!s)
		return;
	/* Partial mode only.  update_idle runs on @cpu itself, under its rq lock.  Same order of
	 * events as tracepoint mode: switch to idle, idle enter ... idle
	 * exit, switch away from idle. */
	if (idle) {
		bpfgov_scx_run_ends(s, (__u32)cpu, now);
		return;
	}
	bpfgov_scx_run_begins(s, (__u32)cpu, now);
}

void BPF_STRUCT_OPS(bpfgov_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(bpfgov_init)
{
	return scx_bpf_create_dsq(SHARED_DSQ, -1);
}

void BPF_STRUCT_OPS(bpfgov_exit, struct scx_exit_info *ei)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	struct bpfgov_config *c = gov_cfg();

	UEI_RECORD(uei, ei);
	/* Tell the readers of `events`/`tap` too: reason = exit kind. */
	if (s && c)
		gov_decision(s, c, cpu, BPFGOV_EV_EXIT, (__u32)uei.kind, bpf_ktime_get_ns());
}

SEC(".struct_ops.link")
struct sched_ext_ops bpfgov_ops = {
	.select_cpu	= (void *)bpfgov_select_cpu,
	.enqueue	= (void *)bpfgov_enqueue,
	.dispatch	= (void *)bpfgov_dispatch,
	.running	= (void *)bpfgov_running,
	.stopping	= (void *)bpfgov_stopping,
	.tick		= (void *)bpfgov_tick,
	.update_idle	= (void *)bpfgov_update_idle,
	.enable		= (void *)bpfgov_enable,
	.init		= (void *)bpfgov_init,
	.exit		= (void *)bpfgov_exit,
	/* Set by the loader: update_idle is attached only partially switched
	 * (SCX_OPS_SWITCH_PARTIAL), and then with SCX_OPS_KEEP_BUILTIN_IDLE,
	 * as scx_bpf_select_cpu_dfl needs the built-in idle tracking. */
	.flags		= 0,
	.timeout_ms	= 10000,
	.name		= "bpfgov",
};
