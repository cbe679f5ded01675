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
 * bpfgov_common.bpf.h).  update_idle() marks idle entry/exit, running()
 * marks busy, tick() accounts long busy runs and refreshes sleeping CPUs'
 * floors.  All of these run under the rq lock of the CPU they are about, so
 * that is the only CPU whose perf target we set (scx_bpf_cpuperf_set rejects
 * any other CPU while an rq lock is held), and only when the floor decision
 * changed, which the core already filters through its deadband and rate
 * limit: unfiltered updates wake the schedutil kthread needlessly.
 *
 * Portability: every kfunc is __ksym __weak and guarded by
 * bpf_ksym_exists(), with the pre-6.13 names as fallbacks; missing ops
 * fields are handled by the loader (user/scx.c).  ops.exit records the
 * exit info in .bss for the loader and as an EXIT record in the ring.
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpfgov_common.bpf.h"

/* LICENSE comes from bpfgov_common.bpf.h. */

#ifndef BPF_STRUCT_OPS
#define BPF_STRUCT_OPS(name, args...) \
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#endif
#ifndef BPF_STRUCT_OPS_SLEEPABLE
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) \
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)
#endif

/* kfuncs.  Current names first, then the 6.12 names they replaced. */
extern s32 scx_bpf_create_dsq(u64 dsq_id, s32 node) __ksym __weak;
extern s32 scx_bpf_select_cpu_dfl(struct task_struct *p, s32 prev_cpu, u64 wake_flags,
				  bool *is_idle) __ksym __weak;
extern void scx_bpf_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice,
			       u64 enq_flags) __ksym __weak;
extern void scx_bpf_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
				     u64 vtime, u64 enq_flags) __ksym __weak;
extern bool scx_bpf_dsq_move_to_local(u64 dsq_id) __ksym __weak;
extern void scx_bpf_dispatch(struct task_struct *p, u64 dsq_id, u64 slice,
			     u64 enq_flags) __ksym __weak;
extern void scx_bpf_dispatch_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
				   u64 vtime, u64 enq_flags) __ksym __weak;
extern bool scx_bpf_consume(u64 dsq_id) __ksym __weak;
extern s32 scx_bpf_dsq_nr_queued(u64 dsq_id) __ksym __weak;
extern s32 scx_bpf_pick_idle_cpu(const struct cpumask *cpus_allowed, u64 flags) __ksym __weak;
extern void scx_bpf_kick_cpu(s32 cpu, u64 flags) __ksym __weak;
extern void scx_bpf_cpuperf_set(s32 cpu, u32 perf) __ksym __weak;
extern s32 scx_bpf_task_cpu(const struct task_struct *p) __ksym __weak;
extern void scx_bpf_error_bstr(char *fmt, unsigned long long *data, u32 data__sz) __ksym __weak;

#define SHARED_DSQ	0
#define SLICE_NS	(5ULL * 1000 * 1000)	/* default slice */
#define SLICE_MIN_NS	(500ULL * 1000)		/* floor of the overload slice */

/* Written by the loader at run time (test-only): when non-zero, the next
 * tick raises a BPF-side error so the kernel ejects the scheduler. */
__u32 scx_test_error;

/* Exit info, copied out of struct scx_exit_info by ops.exit. */
__s32 scx_exit_kind;
__s64 scx_exit_code;
__u32 scx_exited;
char scx_exit_reason[128];
char scx_exit_msg[1024];

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

/* When the task now running on each CPU started (bpf_ktime_get_ns):
 * stopping() charges the time actually run.  The slice handed out varies
 * (and the kernel may refill it), so "slice given - slice left" would
 * overcharge short runs and starve tasks that sleep often. */
__u64 scx_run_start[BPFGOV_MAX_CPUS];

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
 * The policy core, once per event kind, as global (non-inlined) functions:
 * the verifier checks a global function once, independently of its
 * callers' state.  Inlined into update_idle() together, idle exit + switch
 * + perf follow exceed the verifier's 1M-instruction budget.
 */
__noinline int bpfgov_scx_switch(__u32 cpu, int prev_idle, int next_idle, __u64 now)
{
	gov_on_switch(cpu, prev_idle, next_idle, now);
	return 0;
}

__noinline int bpfgov_scx_idle_enter(__u32 cpu, __u64 now)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);

	/* sched_ext does not say which idle state the CPU will enter:
	 * assume the one we picked, which actuation applies. */
	if (s)
		gov_on_idle_enter(cpu, s->idle_pick, now);
	return 0;
}

__noinline int bpfgov_scx_idle_exit(__u32 cpu, __u64 now)
{
	gov_on_idle_exit(cpu, now);
	return 0;
}

__noinline int bpfgov_scx_tick_gov(__u32 cpu, __u64 now)
{
	gov_on_tick(cpu, now);
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

static __always_inline void insert_local(struct task_struct *p, u64 slice, u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert))
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice, enq_flags);
	else if (bpf_ksym_exists(scx_bpf_dispatch))
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL, slice, enq_flags);
}

static __always_inline void insert_shared(struct task_struct *p, u64 slice, u64 vtime,
					  u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert_vtime))
		scx_bpf_dsq_insert_vtime(p, SHARED_DSQ, slice, vtime, enq_flags);
	else if (bpf_ksym_exists(scx_bpf_dispatch_vtime))
		scx_bpf_dispatch_vtime(p, SHARED_DSQ, slice, vtime, enq_flags);
}

/* Shorter slices when more tasks wait than there are CPUs. */
static __always_inline u64 task_slice(void)
{
	s32 queued = 0;
	u64 n;

	if (bpf_ksym_exists(scx_bpf_dsq_nr_queued))
		queued = scx_bpf_dsq_nr_queued(SHARED_DSQ);
	n = nr_cpus ? nr_cpus : 1;
	if (queued <= (s32)n)
		return SLICE_NS;
	n = SLICE_NS * n / (u64)queued;
	return n < SLICE_MIN_NS ? SLICE_MIN_NS : n;
}

/* Record that this CPU is about to be woken (wake-cost measurement). */
static __always_inline void stamp_wake(s32 cpu)
{
	bpfgov_scx_wake((__u32)cpu);
}

/*
 * Feed the perf target to the kernel.  Only ever for @cpu == the CPU whose
 * rq lock the caller holds, and only when the floor decision changed.
 */
static __always_inline void perf_follow(s32 cpu)
{
	struct bpfgov_cpu_state *s;
	__u32 perf, idx;

	if (scx_sched_only || !bpf_ksym_exists(scx_bpf_cpuperf_set) || cpu < 0 || cpu >= BPFGOV_MAX_CPUS)
		return;
	s = gov_cpu((__u32)cpu);
	if (!s)
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
 * The CPU whose rq lock a task hook holds: the task's CPU.  running() and
 * stopping() also run on other CPUs (a remote CPU changing a running task's
 * class or attributes, e.g. when the scheduler is enabled), so the current
 * CPU is the wrong answer there, and scx_bpf_cpuperf_set() on it is an
 * error ("Invalid target CPU").
 */
static __always_inline s32 task_cpu_of(const struct task_struct *p)
{
	if (bpf_ksym_exists(scx_bpf_task_cpu))
		return scx_bpf_task_cpu(p);
	return BPF_CORE_READ(p, thread_info.cpu);
}

s32 BPF_STRUCT_OPS(bpfgov_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu;

	if (!bpf_ksym_exists(scx_bpf_select_cpu_dfl))
		return prev_cpu;
	cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);
	if (is_idle) {
		/* The picker claimed an idle CPU: run there without queueing. */
		if (!scx_sched_only)
			stamp_wake(cpu);
		insert_local(p, SLICE_NS, 0);
		__sync_fetch_and_add(&scx_nr_local, 1);
	}
	return cpu;
}

void BPF_STRUCT_OPS(bpfgov_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 vtime = p->scx.dsq_vtime;
	s32 cpu;

	/* A sleeper keeps at most one slice of credit. */
	if (vtime_before(vtime, vtime_now - SLICE_NS))
		vtime = vtime_now - SLICE_NS;
	insert_shared(p, task_slice(), vtime, enq_flags);
	__sync_fetch_and_add(&scx_nr_shared, 1);

	/*
	 * Tasks that did not pass through select_cpu (preempted, re-enqueued,
	 * woken with a CPU already chosen) would otherwise wait for a busy
	 * CPU's next dispatch while another CPU idles.
	 */
	if (bpf_ksym_exists(scx_bpf_pick_idle_cpu) && bpf_ksym_exists(scx_bpf_kick_cpu)) {
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
		if (cpu >= 0) {
			if (!scx_sched_only)
				stamp_wake(cpu);
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
			__sync_fetch_and_add(&scx_nr_kicks, 1);
		}
	}
}

void BPF_STRUCT_OPS(bpfgov_dispatch, s32 cpu, struct task_struct *prev)
{
	/* If the shared DSQ is empty and prev is still runnable, the kernel
	 * keeps prev running with a refilled slice. */
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local))
		scx_bpf_dsq_move_to_local(SHARED_DSQ);
	else if (bpf_ksym_exists(scx_bpf_consume))
		scx_bpf_consume(SHARED_DSQ);
}

void BPF_STRUCT_OPS(bpfgov_running, struct task_struct *p)
{
	s32 cpu = task_cpu_of(p);
	struct bpfgov_cpu_state *s;

	/* The global vtime clock follows the task that runs. */
	if (vtime_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
	if (cpu >= 0)
		scx_run_start[cpu_slot(cpu)] = bpf_ktime_get_ns();
	if (scx_sched_only)
		return;

	/* update_idle(false) normally already ended the idle period; a CPU
	 * that was busy when we attached is seen first here. */
	s = gov_cpu((__u32)cpu);
	if (!s)
		return;
	if (!s->busy)
		bpfgov_scx_switch((__u32)cpu, 1, 0, bpf_ktime_get_ns());
	else
		s->nr_switches++;	/* task to task: all gov_on_switch() would do */
	perf_follow(cpu);
}

void BPF_STRUCT_OPS(bpfgov_stopping, struct task_struct *p, bool runnable)
{
	u64 used = 0, start, now = bpf_ktime_get_ns(), weight = p->scx.weight ? p->scx.weight : 1;
	s32 cpu = task_cpu_of(p);

	/* Charge the time actually run, scaled by the inverse weight
	 * (weight 100 = nice 0). */
	if (cpu >= 0) {
		start = scx_run_start[cpu_slot(cpu)];
		if (start && now > start)
			used = now - start;
	}
	p->scx.dsq_vtime += used * 100 / weight;
}

void BPF_STRUCT_OPS(bpfgov_tick, struct task_struct *p)
{
	s32 cpu = task_cpu_of(p);	/* == this CPU: ticks are local */

	if (scx_test_error) {
		static char fmt[] = "test-only error requested (cpu %d)";
		unsigned long long data[1] = { cpu };

		scx_test_error = 0;
		if (bpf_ksym_exists(scx_bpf_error_bstr))
			scx_bpf_error_bstr(fmt, data, sizeof(data));
		return;
	}
	if (scx_sched_only)
		return;
	bpfgov_scx_tick_gov((__u32)cpu, bpf_ktime_get_ns());
	perf_follow(cpu);
}

void BPF_STRUCT_OPS(bpfgov_update_idle, s32 cpu, bool idle)
{
	__u64 now = bpf_ktime_get_ns();

	if (scx_sched_only)
		return;
	/* update_idle runs on @cpu itself, under its rq lock.  Same order of
	 * events as tracepoint mode: switch to idle, idle enter ... idle
	 * exit, switch away from idle. */
	if (idle) {
		bpfgov_scx_switch((__u32)cpu, 0, 1, now);
		bpfgov_scx_idle_enter((__u32)cpu, now);
		return;
	}
	bpfgov_scx_idle_exit((__u32)cpu, now);
	bpfgov_scx_switch((__u32)cpu, 1, 0, now);
	perf_follow(cpu);
}

void BPF_STRUCT_OPS(bpfgov_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(bpfgov_init)
{
	if (!bpf_ksym_exists(scx_bpf_create_dsq))
		return -95;	/* -EOPNOTSUPP */
	return scx_bpf_create_dsq(SHARED_DSQ, -1);
}

void BPF_STRUCT_OPS(bpfgov_exit, struct scx_exit_info *ei)
{
	scx_exit_kind = BPF_CORE_READ(ei, kind);
	scx_exit_code = BPF_CORE_READ(ei, exit_code);
	bpf_probe_read_kernel_str(scx_exit_reason, sizeof(scx_exit_reason),
				  BPF_CORE_READ(ei, reason));
	bpf_probe_read_kernel_str(scx_exit_msg, sizeof(scx_exit_msg), BPF_CORE_READ(ei, msg));
	asm volatile("" ::: "memory");	/* reason/msg before the flag */
	scx_exited = 1;
	{
		__u32 cpu = bpf_get_smp_processor_id();
		struct bpfgov_cpu_state *s = gov_cpu(cpu);
		struct bpfgov_config *c = gov_cfg();

		/* Tell the readers of `events`/`tap` too: reason = exit kind. */
		if (s && c)
			gov_decision(s, c, cpu, BPFGOV_EV_EXIT, (__u32)scx_exit_kind,
				     bpf_ktime_get_ns());
	}
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
	/* update_idle replaces the built-in idle tracking unless we keep it,
	 * and scx_bpf_select_cpu_dfl needs it. */
	.flags		= SCX_OPS_KEEP_BUILTIN_IDLE,
	.timeout_ms	= 10000,
	.name		= "bpfgov",
};
