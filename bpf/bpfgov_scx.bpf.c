// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * bpfgov as a sched_ext scheduler.
 *
 * Scheduling: a weighted virtual-time fair policy.  A waking task is placed
 * by the kernel's idle-CPU picker (scx_bpf_select_cpu_dfl); when that found
 * an idle CPU the task goes straight to the CPU's local DSQ (per-CPU
 * dispatch first).  A task that can only run on a busy CPU waits in that
 * CPU's own vtime DSQ; everything else goes to the vtime-ordered DSQ of
 * the last-level cache (LLC) of the CPU it was placed on.  A CPU drains
 * its own LLC's DSQ in dispatch(), and steals from the other LLCs' only
 * when its own is empty, so tasks stay near their caches while no CPU
 * idles with work queued.  At a slice end dispatch() weighs the task that
 * ran (still runnable) against the first task of the CPU's own DSQ and
 * its LLC's, so weights hold on one CPU.  A task's vtime advances by
 * the time it actually ran, scaled by 100/weight (its nice weight times
 * its cgroup's flattened cpu.weight, once some cgroup's differs from
 * 100), bounded so that no weight starves a task past the watchdog, and a task that slept is
 * never further behind than one slice of the global vtime clock, so
 * sleepers get a bounded head start and nothing starves behind them: the
 * watchdog sees every runnable task run within a few slices.  When an LLC's queue holds
 * more than one task per CPU of the LLC the slice shrinks, so latency
 * stays bounded under overload.
 *
 * Governing: the same policy core as tracepoint mode (bpfgov_policy.h via
 * bpfgov_common.bpf.h).  With every task on sched_ext, the scheduler's own
 * hooks say when a CPU idles, without ops.update_idle (two more program
 * runs per idle period): dispatch() that finds nothing while prev is not
 * runnable is the CPU about to go idle (busy end, idle enter), and the
 * next running() on an idle CPU ends the idle period (idle exit, busy
 * begin).  With SCX_OPS_SWITCH_PARTIAL, tasks of other classes run where
 * the scheduler does not see them, so update_idle() marks idle entry/exit
 * instead (the loader attaches it only then).  Where a cpuidle driver
 * offers states to choose from, the cpu_idle tracepoint books each state
 * entered and left instead (bpfgov_scx_cpu_idle), and these hooks the
 * busy runs alone.  Idle entry reads the CPU's
 * next timer as tracepoint mode does, but while the tick still runs: an
 * hrtimer due before the tick counts, the tick itself reads as unknown
 * (gov_next_timer, GOV_TIMER_BEFORE_TICK_STOP).  tick() accounts long busy
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
 * instead of an LLC's queue plus a kick.  A cross-CPU ping-pong between
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
#define GOV_TIMER_BEFORE_TICK_STOP	1	/* idle entry is dispatch(): the tick still runs */
#include "bpfgov_common.bpf.h"

/* LICENSE comes from bpfgov_common.bpf.h. */

/*
 * One vtime-ordered DSQ per last-level cache: DSQ id = the LLC's index
 * (0 .. scx_nr_llcs - 1, at most BPFGOV_MAX_LLCS).  The loader reads
 * which LLC each CPU shares from sysfs (user/topo.c) and sets the map
 * below before load; without it, every CPU is in LLC 0: one shared DSQ.
 */
#define LLC_DSQ(llc)	((u64)(llc))
const volatile __u32 scx_nr_llcs = 1;
const volatile __u32 scx_cpu_llc[BPFGOV_MAX_CPUS];
const volatile __u32 scx_llc_nr_cpus[BPFGOV_MAX_LLCS];
/*
 * Per LLC, "its DSQ may hold tasks": set by the enqueue that queues there,
 * cleared by a CPU before it looks (and set again when it took a task, or
 * found tasks it may not run: more may wait).  A CPU going idle looks
 * only into the DSQs that may hold work, its own LLC's included: the look
 * is a kfunc call that finds the DSQ by id (a hash lookup), most of what
 * an idle dispatch costs in a ping-pong that never queues there.  Both
 * the set and the clear are exchanges (full barriers), so an enqueue
 * between the clear and the look is seen by the look, and one after it
 * leaves the flag set: a task is never left in a DSQ whose flag is clear.
 * One cache line per LLC.
 */
struct llc_flag {
	__u32 queued;
	__u8 pad[60];
};
static struct llc_flag scx_llc_queued[BPFGOV_MAX_LLCS];
/* One vtime-ordered DSQ per CPU for the tasks that can run only there. */
#define PCPU_DSQ_BASE	0x100
#define PCPU_DSQ(cpu)	(PCPU_DSQ_BASE + (u64)(cpu))
#define SLICE_NS	(5ULL * 1000 * 1000)	/* default slice */
#define SLICE_MIN_NS	(500ULL * 1000)		/* floor of the overload slice */
/*
 * Bounds that keep weights from starving anyone past the watchdog (10 s):
 * a task below weight 100 gets slices cut by its weight (a run is charged
 * about one default slice of vtime), a waiting task's vtime is at most
 * LEAD_NS ahead of the vtime clock, weights count up to WEIGHT_MAX, a CPU
 * renews the slice of a task that others wait behind at most KEEP_MAX
 * times in a row, and the last task of a DSQ (the highest vtime) that has
 * waited STARVE_JIFFIES (0.25 s at HZ 1000, 2.5 s at HZ 100) runs next.
 */
#define LEAD_NS		(20 * SLICE_NS)
#define WEIGHT_MAX	10000
#define KEEP_MAX	64
#define STARVE_JIFFIES	250

/* Written by the loader at run time (test-only): when non-zero, the next
 * tick raises a BPF-side error so the kernel ejects the scheduler. */
__u32 scx_test_error;

/* Exit info for the loader (user_exit_info.h). */
UEI_DEFINE(uei);

/* Counters the loader sums and prints, one block per CPU, each counted by
 * the CPU the hook runs on: a machine-wide counter would be one cache
 * line that every CPU's wake-ups and dispatches write (an atomic each).
 * Hooks do not nest on a CPU (they run with interrupts off), so a plain
 * increment of the own block is enough. */
struct bpfgov_scx_counters scx_cnt[BPFGOV_MAX_CPUS];	/* include/bpfgov.h */

/* Count one @field event on the current CPU. */
#define SCX_COUNT(field)	\
	(scx_cnt[bpf_get_smp_processor_id() & (BPFGOV_MAX_CPUS - 1)].field++)

static u64 vtime_now;

/* Bench/test only, set before load: schedule without running the
 * governor (measures what the scheduling policy alone costs). */
const volatile bool scx_sched_only;

/* Set by the loader when it attaches ops.update_idle (partial mode):
 * idle periods come from there, not from dispatch()/running(). */
const volatile bool scx_idle_hook;

/* Set by the loader where the machine's cpuidle driver offers states to
 * choose from (not idle_state_fixed): the cpu_idle program below books
 * each idle state entered and left, with the state the kernel's governor
 * chose; the scheduler's hooks then account busy runs only. */
const volatile bool scx_cpuidle_tp;

/* The kernel's account of the run time of the task now running on each
 * CPU (se.sum_exec_runtime) when it started: stopping() charges the time
 * actually run, from the same account (the kernel updates it before
 * ops.stopping), without reading a clock in either hook.  The slice handed
 * out varies (and the kernel may refill it), so "slice given - slice left"
 * would overcharge short runs and starve tasks that sleep often. */
__u64 scx_run_start[BPFGOV_MAX_CPUS];

/* While cgroup weights are in use: the weight the task now running on
 * each CPU is charged at (its own, scaled by its cgroup's), taken in
 * running(), where the task is the hook's own and its cgroup may be asked
 * for.  Otherwise the charge reads the task's own weight. */
__u64 scx_run_weight[BPFGOV_MAX_CPUS];

/*
 * The governor's clock at a switch, without reading one.  The kernel
 * stamps every switch already: se.exec_start is the rq's task clock
 * (rq_clock_task) when the next task is set to run, just before
 * running(), and when the task that goes to sleep is dequeued, just
 * before the dispatch() that finds nothing to run.  The policy core's
 * times are the monotonic clock's (bpf_ktime_get_ns: records, next
 * timers, the loader's clock), so each CPU keeps the offset between the
 * two, taken at every due-or-not tick and every slow path, where the hook
 * reads the monotonic clock anyway: a switch's time is its stamp plus the
 * offset.  The task clock leaves out interrupt (and steal) time, so a
 * time derived from it falls behind by the interrupt time since the
 * offset was last taken (microseconds: the offset follows within a tick
 * on a busy CPU) and is never taken as earlier than the CPU's last event.
 * 0: not taken yet (the hook reads the clock).
 */
__u64 scx_clk_off[BPFGOV_MAX_CPUS];

/* Set when a CPU's own DSQ may hold tasks: the enqueue that inserts and
 * the dispatch that drains it run under that CPU's rq lock (a task that
 * can only run on one CPU is enqueued on that CPU's runqueue), so a clear
 * flag means the DSQ is empty and dispatch() skips it at no cost. */
__u8 scx_pcpu_queued[BPFGOV_MAX_CPUS];

/* Slices renewed in a row on each CPU while another task waited. */
__u32 scx_keep_row[BPFGOV_MAX_CPUS];


/*
 * cgroup weights (cpu.weight, 1..10000, 100 by default), flattened: a
 * cgroup's hierarchical weight is its parent's times its own / 100
 * (fixed point, CG_ONE = 1.0), and a task is charged at its own weight
 * times its cgroup's.  Until some cgroup's weight differs from 100 no hook
 * asks for a task's cgroup.
 */
#define CG_ONE		(1ULL << 16)
#define CG_HW_MAX	(1ULL << 40)
struct cg_ctx {
	__u64 weight;		/* cpu.weight */
	__u64 hweight;		/* flattened, CG_ONE = 1.0 */
};

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cg_ctx);
} cg_ctx_store SEC(".maps");

/* Some cgroup's weight is not 100 (sticky). */
__u32 scx_cg_weights;

/*
 * Per CPU, the cgroup weight last looked up there: of which task (pid and
 * start time: a task's identity, where its address may be reused) and at
 * which generation of the cgroup tree's weights (scx_cg_gen, advanced by
 * every weight change and every task's move to another cgroup).  A CPU
 * that runs the same task again (a ping-pong, a task that sleeps and
 * wakes where it ran) takes its cgroup weight from here; asking for it
 * costs three calls (the task's cgroup, its storage, the release).
 */
struct cg_wcache {
	__u64 start;		/* task_struct.start_time */
	__u64 hweight;		/* its cgroup's flattened weight */
	__s32 pid;
	__u32 gen;
} __attribute__((aligned(BPFGOV_CACHE_LINE)));

static struct cg_wcache scx_cg_wcache[BPFGOV_MAX_CPUS];
static __u32 scx_cg_gen = 1;	/* 0: never cached */

/* Set by the loader four seconds in sixteen (as sched_waking's flag in
 * tracepoint mode): only then does a wake-up aimed at a sleeping CPU
 * stamp it for the wake-up cost, which moves slowly; the other seconds
 * pay no clock read for it.  Which wake-ups: paced (gov_wake_paced). */
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
	SCX_COUNT(perf_sets);
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
 * sched_ext does not say which idle state the CPU will enter. Without a
 * cpuidle driver it enters its one state (it halts): the idle entry is
 * booked here. With one, the cpu_idle program books the states the
 * kernel's governor enters (scx_cpuidle_tp); without that program (not
 * attached), the pick, which actuation applies, stands in for them. */
static __always_inline void run_ends(struct bpfgov_cpu_state *s, __u32 cpu, __u64 now)
{
	struct bpfgov_config *c = gov_cfg();

	if (s->busy)
		gov_busy_end(s, c, cpu, now);
	else
		s->nr_switches++;
	if (!c->idle_state_fixed && scx_cpuidle_tp)
		return;
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

/*
 * A machine with a cpuidle driver (scx_cpuidle_tp): each idle state
 * entered and left, as tracepoint mode books it, with the state the
 * kernel's governor chose under bpfgov's constraint. Busy runs stay with
 * the scheduler's hooks (dispatch() ends one before the idle loop, and
 * running() begins the next after it), so this books idle residencies
 * only: an exit after which no task is to run is a poll that ran into the
 * kernel's time limit, and the idle loop enters again (exit_goes_on).
 * Runs in the idle task, on @cpu_id itself. Not attached without a
 * driver: the one-state path there is unchanged.
 */
SEC("tp_btf/cpu_idle")
int BPF_PROG(bpfgov_scx_cpu_idle, unsigned int state, unsigned int cpu_id)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu_id);
	struct bpfgov_config *c = gov_cfg();
	__u64 now = bpf_ktime_get_ns();

	if (!scx_cpuidle_tp || !s || !c)
		return 0;
	if (state == PWR_EVENT_EXIT) {
		if (s->cur_state == BPFGOV_NO_STATE)
			return 0;	/* entered before we attached */
		s->exit_goes_on = !(bpf_get_current_task_btf()->thread_info.flags & IDLE_RESCHED_MASK);
		gov_idle_exit(s, c, cpu_id, now);
		return 0;
	}
	gov_idle_enter(s, c, cpu_id, state, now);
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

__noinline int bpfgov_scx_wake(__u32 cpu, __u32 self)
{
	gov_wake_paced(cpu, self);
	return 0;
}

/* The monotonic clock, read; the offset of slot @idx follows @stamp. */
static __always_inline __u64 clock_sync(__u32 idx, __u64 stamp)
{
	__u64 now = bpf_ktime_get_ns();

	scx_clk_off[idx] = now - stamp;
	return now;
}

/* The monotonic time of a switch the kernel stamped @stamp (a task's
 * se.exec_start, just set) on the CPU of slot @idx, whose state is @s. */
static __always_inline __u64 switch_ns(__u32 idx, __u64 stamp,
				       const struct bpfgov_cpu_state *s)
{
	__u64 off = scx_clk_off[idx], now;

	if (!off)
		return clock_sync(idx, stamp);
	now = stamp + off;
	return now < s->last_event_ns ? s->last_event_ns : now;
}

static __always_inline bool vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/* @cpu's LLC index, bounded for the verifier. */
static __always_inline __u32 cpu_llc(s32 cpu)
{
	return scx_cpu_llc[cpu_slot(cpu)] & (BPFGOV_MAX_LLCS - 1);
}

/* Shorter slices when more tasks wait in LLC @llc than it has CPUs. */
static __always_inline u64 task_slice(__u32 llc)
{
	s32 queued = scx_bpf_dsq_nr_queued(LLC_DSQ(llc));
	u64 n;

	n = scx_llc_nr_cpus[llc & (BPFGOV_MAX_LLCS - 1)];
	if (!n)
		n = nr_cpus ? nr_cpus : 1;
	if (queued <= (s32)n)
		return SLICE_NS;
	n = SLICE_NS * n / (u64)queued;
	return n < SLICE_MIN_NS ? SLICE_MIN_NS : n;
}

/* Record that this CPU is about to be woken (wake-cost measurement), for
 * the wake-ups the pacing samples (gov_wake_paced_due).  Not from the CPU
 * itself: a pinned task's enqueue mostly runs on its own CPU, already
 * awake (the waker queued it there), and the core ignores those. */
static __always_inline void stamp_wake(s32 cpu)
{
	__u32 self;

	if (!scx_wake_sample)
		return;
	self = bpf_get_smp_processor_id();
	if (cpu != (s32)self && gov_wake_paced_due(gov_waker(self)))
		bpfgov_scx_wake((__u32)cpu, self);
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

/* A cgroup's flattened weight (CG_ONE when unknown). */
static __always_inline u64 cg_hweight(struct cgroup *cg)
{
	struct cg_ctx *c = bpf_cgrp_storage_get(&cg_ctx_store, cg, 0, 0);

	return c ? c->hweight : CG_ONE;
}

/* @p's cgroup's flattened weight (CG_ONE when unknown).  Only from a hook
 * that operates on @p (scx_bpf_task_cgroup). */
static __always_inline u64 task_cg_hweight(struct task_struct *p)
{
	struct cgroup *cg = scx_bpf_task_cgroup(p);
	u64 hw;

	if (!cg)
		return CG_ONE;
	hw = cg_hweight(cg);
	bpf_cgroup_release(cg);
	return hw;
}

/* The weight @p is charged at while cgroup weights are in use, on the CPU
 * of slot @idx: its own (p->scx.weight, 100 = nice 0, read every time)
 * times its cgroup's flattened weight (from that CPU's cache). */
static __always_inline u64 task_weight(struct task_struct *p, __u32 idx)
{
	struct cg_wcache *k = &scx_cg_wcache[idx];
	u64 w = p->scx.weight ? p->scx.weight : 1, hw;
	__u32 gen = scx_cg_gen;

	if (k->gen == gen && k->pid == p->pid && k->start == p->start_time) {
		hw = k->hweight;
	} else {
		hw = task_cg_hweight(p);
		k->gen = gen;
		k->pid = p->pid;
		k->start = p->start_time;
		k->hweight = hw;
	}
	w = w * hw / CG_ONE;
	return w < 1 ? 1 : w > WEIGHT_MAX ? WEIGHT_MAX : w;
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
		SCX_COUNT(local);
	}
	return cpu;
}

/* A sleeper keeps at most one slice of credit; a task charged far ahead
 * (low weight) waits at most LEAD_NS of vtime ahead of the clock. */
static __always_inline u64 task_vtime(const struct task_struct *p)
{
	u64 vtime = p->scx.dsq_vtime;

	if (vtime_before(vtime, vtime_now - SLICE_NS))
		vtime = vtime_now - SLICE_NS;
	else if (vtime_before(vtime_now + LEAD_NS, vtime))
		vtime = vtime_now + LEAD_NS;
	return vtime;
}

/* @slice for a task that waits behind others: below weight 100 cut in
 * proportion (not under SLICE_MIN_NS), so that a run is charged about
 * one default slice of vtime and the weighted order stays fine-grained. */
static __always_inline u64 weight_slice(const struct task_struct *p, u64 slice)
{
	u64 w = p->scx.weight;

	if (w >= 100)
		return slice;
	slice = slice * w / 100;
	return slice < SLICE_MIN_NS ? SLICE_MIN_NS : slice;
}

/*
 * A wake-up that found no idle CPU waits in a DSQ until some CPU's slice
 * ends (up to SLICE_NS), where the default scheduler preempts a task that
 * is further along.  Do the same for the task now running on @cpu, the
 * CPU the woken task was placed on: when the woken task's vtime is more
 * than SLICE_MIN_NS behind that task's, preempt it (the kernel then asks
 * dispatch(), which weighs both).  Not the waker's own CPU: a waker often
 * sleeps right after.
 */
static __always_inline void wake_preempt(s32 cpu, u64 vtime)
{
	struct task_struct *curr;

	if (cpu == (s32)bpf_get_smp_processor_id())
		return;
	curr = __COMPAT_scx_bpf_cpu_curr(cpu);
	if (!curr || !curr->pid)
		return;
	if (!vtime_before(vtime + SLICE_MIN_NS, curr->scx.dsq_vtime))
		return;
	scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
	SCX_COUNT(preempts);
}

/* A task was queued in LLC @llc's DSQ: its flag set, by an exchange (a
 * full barrier after the insert; a plain test first could be answered
 * before the insert is seen, and miss a concurrent clear). */
static __always_inline void llc_mark(__u32 llc)
{
	struct llc_flag *f = &scx_llc_queued[llc & (BPFGOV_MAX_LLCS - 1)];

	__sync_lock_test_and_set(&f->queued, 1);
}

void BPF_STRUCT_OPS(bpfgov_enqueue, struct task_struct *p, u64 enq_flags)
{
	__u32 llc;
	s32 cpu, idle;
	u64 vtime;

	/*
	 * Pinned: select_cpu() is not called for a task with one allowed
	 * CPU.  That CPU idle: straight there (claiming the idle bit keeps
	 * another waker from picking the same CPU meanwhile).  Else into the
	 * CPU's own vtime DSQ, where it waits in weighted order with the
	 * other tasks pinned there (the local DSQ is FIFO: weights would not
	 * count there), and dispatch() weighs that DSQ's first task against
	 * its LLC DSQ's.  Its only CPU is busy: nothing to kick.
	 */
	if (p->nr_cpus_allowed == 1) {
		cpu = task_cpu_of(p);
		if (scx_bpf_test_and_clear_cpu_idle(cpu)) {
			if (!scx_sched_only)
				stamp_wake(cpu);
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, SLICE_NS, enq_flags);
			SCX_COUNT(local);
			return;
		}
		vtime = task_vtime(p);
		scx_bpf_dsq_insert_vtime(p, PCPU_DSQ(cpu), weight_slice(p, SLICE_NS), vtime, enq_flags);
		scx_pcpu_queued[cpu_slot(cpu)] = 1;
		SCX_COUNT(pinned);
		if (enq_flags & SCX_ENQ_WAKEUP)
			wake_preempt(cpu, vtime);
		return;
	}

	/* The DSQ of the LLC of the CPU the task was placed on (by
	 * select_cpu(), or where it ran). */
	cpu = task_cpu_of(p);
	llc = cpu_llc(cpu);
	vtime = task_vtime(p);
	scx_bpf_dsq_insert_vtime(p, LLC_DSQ(llc), weight_slice(p, task_slice(llc)), vtime, enq_flags);
	SCX_COUNT(shared);
	llc_mark(llc);

	/*
	 * Tasks that did not pass through select_cpu (preempted, re-enqueued,
	 * woken with a CPU already chosen) would otherwise wait for a busy
	 * CPU's next dispatch while another CPU idles.  No CPU idle: a
	 * woken task may preempt the one running where it was placed.
	 */
	idle = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (idle >= 0) {
		if (!scx_sched_only)
			stamp_wake(idle);
		scx_bpf_kick_cpu(idle, SCX_KICK_IDLE);
		SCX_COUNT(kicks);
	} else if (enq_flags & SCX_ENQ_WAKEUP) {
		wake_preempt(cpu, vtime);
	}
}

/* The vtime the task now running on @idx has used so far (not charged
 * until stopping()). */
static __always_inline u64 run_charge(const struct task_struct *p, __u32 idx)
{
	u64 start = scx_run_start[idx], now = p->se.sum_exec_runtime;
	u64 w = p->scx.weight;

	/* Written by running() while cgroup weights are in use (until the
	 * first task runs after they came into use: 0, the task's own). */
	if (scx_cg_weights && scx_run_weight[idx])
		w = scx_run_weight[idx];

	if (now <= start)
		return 0;
	return (now - start) * 100 / (w ? w : 1);
}

/* The first task of DSQ @dsq_id, if any (its vtime in @v). */
static __always_inline bool dsq_first(u64 dsq_id, u64 *v)
{
	struct task_struct *q = __COMPAT_scx_bpf_dsq_peek(dsq_id);

	if (!q)
		return false;
	*v = q->scx.dsq_vtime;
	return true;
}

enum { PICK_NONE, PICK_PCPU, PICK_SHARED };

/* Take the first task of LLC @llc's DSQ that may run here, if its flag
 * says the DSQ may hold one (see struct llc_flag). */
static __always_inline bool llc_take(__u32 llc)
{
	struct llc_flag *f = &scx_llc_queued[llc & (BPFGOV_MAX_LLCS - 1)];

	if (!READ_ONCE(f->queued))
		return false;
	__sync_lock_test_and_set(&f->queued, 0);
	if (scx_bpf_dsq_move_to_local(LLC_DSQ(llc), 0)) {
		WRITE_ONCE(f->queued, 1);	/* more may wait */
		return true;
	}
	/* Tasks this CPU may not run wait there for the others. */
	if (scx_bpf_dsq_nr_queued(LLC_DSQ(llc)) > 0)
		WRITE_ONCE(f->queued, 1);
	return false;
}

/* Own LLC's DSQ empty: the first task of another LLC's DSQ that may run
 * here, the nearest LLC index first.  One LLC: nothing to look at. */
static __always_inline bool steal_llc(__u32 own)
{
	__u32 i, llc;

	if (scx_nr_llcs <= 1)
		return false;
	bpf_for(i, 1, scx_nr_llcs) {
		llc = own + i;
		if (llc >= scx_nr_llcs)
			llc -= scx_nr_llcs;
		if (llc_take(llc)) {
			SCX_COUNT(stolen);
			return true;
		}
	}
	return false;
}

/* The last task of @dsq_id, when it has waited STARVE_JIFFIES since it
 * last ran and may run here: to this CPU's local DSQ, with the vtime of
 * the first one (@v_first), so that running out of order does not pull
 * the clock, and every waiting task's clamp, up with it. */
static __always_inline bool rescue_starved(u64 dsq_id, s32 cpu, u64 v_first)
{
	u64 now = bpf_jiffies64();
	struct task_struct *p;
	bool moved = false;

	bpf_for_each(scx_dsq, p, dsq_id, SCX_DSQ_ITER_REV) {
		if ((s64)(now - p->scx.runnable_at) >= STARVE_JIFFIES &&
		    bpf_cpumask_test_cpu(cpu, p->cpus_ptr)) {
			scx_bpf_dsq_move_set_vtime(BPF_FOR_EACH_ITER, v_first);
			moved = scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0);
		}
		break;
	}
	if (moved)
		SCX_COUNT(rescued);
	return moved;
}

/*
 * Weighted order across the places a CPU takes work from: prev, when its
 * slice ran out and it is still runnable (the kernel asks dispatch()
 * before it puts prev back: pulling whatever waits would hand out slices
 * in turn, whatever the weights), the CPU's own DSQ and its LLC's.  The
 * lowest vtime runs; prev by renewing its slice.  Other LLCs' DSQs only
 * when nothing here can run.  Returns whether the CPU has something to
 * run (prev kept by the kernel included).
 */
static __always_inline bool dispatch_weighted(s32 cpu, struct task_struct *prev, bool keep)
{
	__u32 idx = cpu_slot(cpu), llc = cpu_llc(cpu);
	u64 v_pcpu = 0, v_shared = 0, v_first;
	bool shared = dsq_first(LLC_DSQ(llc), &v_shared), pcpu = false;
	int best;

	if (scx_pcpu_queued[idx]) {
		/* Only the CPU's own DSQ to take from: no need to look. */
		if (!keep && !shared) {
			if (scx_bpf_dsq_move_to_local(PCPU_DSQ(cpu), 0))
				return true;
			scx_pcpu_queued[idx] = 0;
			return steal_llc(llc);
		}
		pcpu = dsq_first(PCPU_DSQ(cpu), &v_pcpu);
		if (!pcpu)
			scx_pcpu_queued[idx] = 0;
	}
	/* Whatever the weights, nobody waits for ever. */
	if ((pcpu && rescue_starved(PCPU_DSQ(cpu), cpu, v_pcpu)) ||
	    (shared && rescue_starved(LLC_DSQ(llc), cpu, v_shared))) {
		scx_keep_row[idx] = 0;
		return true;
	}
	/* Of the two DSQs' first tasks, the lower vtime. */
	if (pcpu && (!shared || vtime_before(v_pcpu, v_shared))) {
		best = PICK_PCPU;
		v_first = v_pcpu;
	} else {
		best = shared ? PICK_SHARED : PICK_NONE;
		v_first = v_shared;
	}

	if (keep) {
		/* Nobody waits: the kernel keeps prev. */
		if (best == PICK_NONE) {
			scx_keep_row[idx] = 0;
			return true;
		}
		/* prev first, unless renewed KEEP_MAX times in a row while
		 * others waited: then the first of them runs once. */
		if (vtime_before(prev->scx.dsq_vtime + run_charge(prev, idx), v_first) &&
		    scx_keep_row[idx] < KEEP_MAX) {
			scx_keep_row[idx]++;
			prev->scx.slice = weight_slice(prev, SLICE_NS);
			SCX_COUNT(kept);
			return true;
		}
	}
	scx_keep_row[idx] = 0;

	if (best == PICK_PCPU) {
		if (scx_bpf_dsq_move_to_local(PCPU_DSQ(cpu), 0))
			return true;
		scx_pcpu_queued[idx] = 0;
	}
	/* The LLC DSQ's first task may not be allowed here: then a later
	 * one, else the CPU's own DSQ. */
	if (scx_bpf_dsq_move_to_local(LLC_DSQ(llc), 0))
		return true;
	if (scx_pcpu_queued[idx]) {
		if (scx_bpf_dsq_move_to_local(PCPU_DSQ(cpu), 0))
			return true;
		scx_pcpu_queued[idx] = 0;
	}
	/* prev goes on; else another LLC's work. */
	return keep || steal_llc(llc);
}

void BPF_STRUCT_OPS(bpfgov_dispatch, s32 cpu, struct task_struct *prev)
{
	struct bpfgov_cpu_state *s;
	bool keep = prev && (prev->scx.flags & SCX_TASK_QUEUED);

	/* The common case (a CPU whose task slept, nothing pinned waiting
	 * here) takes one look at its LLC's DSQ, then the other LLCs'; else
	 * weigh prev and both DSQs.  With nothing else to run, the kernel
	 * keeps a runnable prev with a refilled slice. */
	if (!keep && !scx_pcpu_queued[cpu_slot(cpu)]) {
		__u32 llc = cpu_llc(cpu);

		if (llc_take(llc) || steal_llc(llc))
			return;
	} else if (dispatch_weighted(cpu, prev, keep)) {
		return;
	}
	if (scx_sched_only || scx_idle_hook)
		return;
	/* Nothing to run: this CPU (@cpu, whose rq lock we hold) goes idle.
	 * A CPU already idle (woken for nothing) stays in its idle period. */
	s = gov_cpu((__u32)cpu);
	if (!s || !s->busy)
		return;
	/* prev (on sched_ext) went to sleep: its dequeue stamped the time. */
	run_ends(s, (__u32)cpu, prev ? switch_ns(cpu_slot(cpu), prev->se.exec_start, s) :
				       bpf_ktime_get_ns());
}

void BPF_STRUCT_OPS(bpfgov_running, struct task_struct *p)
{
	s32 cpu = task_cpu_of(p);
	__u32 idx = cpu_slot(cpu);
	struct bpfgov_cpu_state *s;
	__u64 now;

	/* The global vtime clock follows the task that runs. */
	if (vtime_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
	if (cpu >= 0) {
		scx_run_start[idx] = p->se.sum_exec_runtime;
		if (scx_cg_weights)
			scx_run_weight[idx] = task_weight(p, idx);
	}
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
	now = switch_ns(idx, p->se.exec_start, s);
	/* The short path decides nothing, and the last floor change was
	 * followed where it was made: at a full path, a due tick, or (a
	 * remote refresh) at the full path its gate sends this wake-up to. */
	if (gov_wake_fast(s, now))
		return;
	/* The long path: the clock itself, and the offset follows. */
	bpfgov_scx_run_begins(s, (__u32)cpu, clock_sync(idx, p->se.exec_start));
}

void BPF_STRUCT_OPS(bpfgov_stopping, struct task_struct *p, bool runnable)
{
	s32 cpu = task_cpu_of(p);

	/* Charge the time actually run, scaled by the inverse weight
	 * (weight 100 = nice 0), the task's and its cgroup's. */
	if (cpu >= 0)
		p->scx.dsq_vtime += run_charge(p, cpu_slot(cpu));
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
	/* The kernel updated the task's run time (and se.exec_start) for
	 * this tick just before calling us. */
	now = clock_sync(cpu_slot(cpu), p->se.exec_start);
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

/* Every CPU's cached cgroup weight is stale: the next running() of each
 * task asks again.  The kernel serialises cgroup operations. */
static __always_inline void cg_weights_changed(void)
{
	u32 g = scx_cg_gen + 1;

	scx_cg_gen = g ? g : 1;
}

void BPF_STRUCT_OPS(bpfgov_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
	/* A task entering sched_ext (partially switched: from another class)
	 * may have changed cgroups unseen by cgroup_move. */
	if (scx_cg_weights)
		cg_weights_changed();
}

/* @cg's flattened weight from its own and its parent's (parents are
 * initialised first; the root's weight does not count). */
static __always_inline void cg_update(struct cgroup *cg, struct cg_ctx *c)
{
	struct cgroup *parent;
	u64 hw = CG_ONE;

	if (cg->level > 0) {
		parent = bpf_cgroup_ancestor(cg, cg->level - 1);
		if (parent) {
			hw = cg_hweight(parent);
			bpf_cgroup_release(parent);
		}
	}
	hw = hw * c->weight / 100;
	c->hweight = hw < 1 ? 1 : hw > CG_HW_MAX ? CG_HW_MAX : hw;
	if (c->weight != 100)
		scx_cg_weights = 1;
}

s32 BPF_STRUCT_OPS(bpfgov_cgroup_init, struct cgroup *cg, struct scx_cgroup_init_args *args)
{
	struct cg_ctx *c = bpf_cgrp_storage_get(&cg_ctx_store, cg, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	/* Without its record the cgroup counts as weight 100: no reason
	 * to refuse the cgroup. */
	if (!c)
		return 0;
	c->weight = args->weight ? args->weight : 100;
	cg_update(cg, c);
	return 0;
}

/* A new weight: the cgroup's flattened weight and its descendants',
 * parents before children. */
void BPF_STRUCT_OPS(bpfgov_cgroup_set_weight, struct cgroup *cg, u32 weight)
{
	struct cgroup_subsys_state *pos;
	struct cg_ctx *c;

	c = bpf_cgrp_storage_get(&cg_ctx_store, cg, 0, 0);
	if (!c)
		return;
	c->weight = weight ? weight : 100;
	bpf_rcu_read_lock();
	bpf_for_each(css, pos, &cg->self, BPF_CGROUP_ITER_DESCENDANTS_PRE) {
		struct cgroup *d = pos->cgroup;

		c = bpf_cgrp_storage_get(&cg_ctx_store, d, 0, 0);
		if (c)
			cg_update(d, c);
	}
	bpf_rcu_read_unlock();
	cg_weights_changed();
}

/* @p moves to another cgroup: the cached weights may be @p's old one. */
void BPF_STRUCT_OPS(bpfgov_cgroup_move, struct task_struct *p, struct cgroup *from,
		    struct cgroup *to)
{
	cg_weights_changed();
}

s32 BPF_STRUCT_OPS_SLEEPABLE(bpfgov_init)
{
	s32 err = 0;
	u32 i;

	bpf_for(i, 0, scx_nr_llcs) {
		if (err || i >= BPFGOV_MAX_LLCS)
			break;
		err = scx_bpf_create_dsq(LLC_DSQ(i), -1);
	}
	bpf_for(i, 0, nr_cpus) {
		if (err)
			break;
		err = scx_bpf_create_dsq(PCPU_DSQ(i), -1);
	}
	return err;
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
	.cgroup_init	= (void *)bpfgov_cgroup_init,
	.cgroup_set_weight = (void *)bpfgov_cgroup_set_weight,
	.cgroup_move	= (void *)bpfgov_cgroup_move,
	.init		= (void *)bpfgov_init,
	.exit		= (void *)bpfgov_exit,
	/* Set by the loader: update_idle is attached only partially switched
	 * (SCX_OPS_SWITCH_PARTIAL), and then with SCX_OPS_KEEP_BUILTIN_IDLE,
	 * as scx_bpf_select_cpu_dfl needs the built-in idle tracking. */
	.flags		= 0,
	.timeout_ms	= 10000,
	.name		= "bpfgov",
};
