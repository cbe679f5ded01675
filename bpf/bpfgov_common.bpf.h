/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * BPF-only half of bpfgov shared by the tracepoint program
 * (bpfgov_trace.bpf.c) and the sched_ext scheduler (bpfgov_scx.bpf.c):
 * the pinned maps, and the event handlers (gov_busy_*, gov_idle_*, and the
 * gov_on_*() wrappers that look up the CPU's state themselves) that run the
 * policy core on an event and stream what changed. Each mode only decides
 * which kernel hook calls which handler.
 *
 * Streams. `events` carries decisions (floor or pick changed) to the
 * `govloader start` that actuates them; decisions are rate limited per CPU,
 * so each one wakes the reader at once (actuation latency matters). `tap`
 * mirrors the kinds a tail/record reader asked for in control.tap_kinds;
 * per-event detail there is submitted without a wakeup and the reader is
 * only woken past wakeup_bytes (a wake-up per event costs microseconds of the reader's CPU),
 * and nothing at all is written while nobody listens.
 */
#ifndef __BPFGOV_COMMON_BPF_H
#define __BPFGOV_COMMON_BPF_H

#ifndef __BPF__
#error "bpfgov_common.bpf.h is for BPF programs only"
#endif

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader between open and load. */
const volatile __u32 nr_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BPFGOV_MAX_CPUS);	/* cut to nr_cpus by the loader */
	__type(key, __u32);
	__type(value, struct bpfgov_cpu_state);
	__uint(map_flags, BPF_F_MMAPABLE);	/* the loader reads it without a syscall */
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cpu_state SEC(".maps");

/* The loader's state (struct bpfgov_loader_state): declared here for its
 * pin and BTF alone, written by `govloader start` through its mapping. No
 * program reads or writes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpfgov_loader_state);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} loader_state SEC(".maps");

/*
 * The tunables and the control record are globals, each in a section of
 * its own: libbpf makes each a one-entry array map (".data.tunables",
 * ".data.control"), which the loader pins as `tunables` and `control`
 * (gov_obj_pin_globals() in user/pins.c). Every event reads them, and a
 * global is read with a plain load from a fixed address, where a map
 * lookup is a call-sized sequence and a NULL check each time.
 */
struct bpfgov_config tunables SEC(".data.tunables");
struct bpfgov_control control SEC(".data.control");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} tap SEC(".maps");

static __always_inline struct bpfgov_cpu_state *gov_cpu(__u32 cpu)
{
	if (cpu >= nr_cpus)
		return NULL;
	return bpf_map_lookup_elem(&cpu_state, &cpu);
}

static __always_inline struct bpfgov_config *gov_cfg(void)
{
	return &tunables;
}

/*
 * Next timer. Each CPU's struct hrtimer_cpu_base (the per-CPU
 * hrtimer_bases), learned once from the first hrtimer that expires on that
 * CPU (gov_learn_timer_base, from the hrtimer_expire_entry program below,
 * which the loader detaches once every online CPU has learned its base).
 * Its expires_next is the next programmed timer event. Tracepoint mode
 * reads it at idle entry (cpu_idle), after the idle loop decided whether
 * to stop the tick: it is the next timer or, with the tick kept, at most
 * one tick away, as tick_nohz_get_sleep_length() tells menu and teo. Kept
 * out of cpu_state: kernel addresses are not for `dump`.
 */
__u64 timer_base[BPFGOV_MAX_CPUS] __attribute__((aligned(BPFGOV_CACHE_LINE)));

/*
 * Whether the including object reads the next timer before the idle loop's
 * tick decision (the sched_ext scheduler: its idle entry is dispatch()
 * finding nothing, while the tick still runs). There the tick's own expiry
 * is no timer: the idle loop may stop the tick and sleep far longer, so a
 * next event that is the tick reads as unknown (gov_next_is_tick), and only
 * an hrtimer due before it counts. Tracepoint mode reads after the tick
 * decision, where a stopped tick's timer is reprogrammed to the next timer
 * of the timer wheel and is a real expiry.
 */
#ifndef GOV_TIMER_BEFORE_TICK_STOP
#define GOV_TIMER_BEFORE_TICK_STOP	0
#endif

/* The tick's hrtimer callback, tick_nohz_handler since 6.9 (before:
 * tick_sched_timer, then tick_nohz_highres_handler), so on every kernel
 * with sched_ext, the only reader (GOV_TIMER_BEFORE_TICK_STOP). Typeless:
 * its address, from kallsyms. */
extern const void tick_nohz_handler __ksym __weak;

/* Learn @cpu's hrtimer_cpu_base from an expiring timer's base; called on
 * that CPU. Low-resolution mode does not keep expires_next: skip it. */
static __always_inline void gov_learn_timer_base(__u32 cpu, struct hrtimer_cpu_base *cb)
{
	struct bpfgov_cpu_state *s;

	cpu &= BPFGOV_MAX_CPUS - 1;
	if (!cb || BPF_CORE_READ(cb, cpu) != cpu || !BPF_CORE_READ_BITFIELD_PROBED(cb, hres_active))
		return;
	s = gov_cpu(cpu);
	if (!s)
		return;
	timer_base[cpu] = (__u64)cb;
	s->timer_src = GOV_TIMER_BEFORE_TICK_STOP ? BPFGOV_TIMER_BEFORE_TICK : BPFGOV_TIMER_TRACEPOINT;
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

/*
 * expires_next of the hrtimer_cpu_base at @base (non-zero). A plain load
 * through a read-only cast (the JIT guards it against faults), not a
 * bpf_probe_read_kernel() call: this runs at every idle entry. Kernels
 * before 6.2 have no bpf_rdonly_cast kfunc (libbpf resolves the weak
 * extern to 0, and the verifier drops the branch that calls it): there
 * the field is read with the helper, a call more per read.
 */
static __always_inline __s64 gov_expires_next(__u64 base)
{
	struct hrtimer_cpu_base *cb = (void *)base;
	__s64 t = 0;

	if (bpf_ksym_exists(bpf_rdonly_cast))
		return bpf_core_cast(cb, struct hrtimer_cpu_base)->expires_next;
	if (bpf_core_read(&t, sizeof(t), &cb->expires_next))
		return 0;
	return t;
}

/*
 * Whether the event at @t, the expires_next of the hrtimer_cpu_base at
 * @base, is the tick: the base's first hard timer (next_timer) runs the
 * tick's callback and expires at @t (a soft timer due earlier makes
 * expires_next its own). Read the same way as gov_expires_next().
 */
static __always_inline int gov_next_is_tick(__u64 base, __s64 t)
{
	struct hrtimer_cpu_base *cb = (void *)base;
	struct hrtimer *h = NULL;
	__u64 fn = 0, tick = (__u64)&tick_nohz_handler;
	__s64 exp = 0;

	if (bpf_ksym_exists(bpf_rdonly_cast)) {
		h = bpf_core_cast(cb, struct hrtimer_cpu_base)->next_timer;
		if (!h)
			return 0;
		fn = (__u64)bpf_core_cast(h, struct hrtimer)->function;
		exp = bpf_core_cast(h, struct hrtimer)->node.expires;
	} else {
		if (bpf_core_read(&h, sizeof(h), &cb->next_timer) || !h ||
		    bpf_core_read(&fn, sizeof(fn), &h->function) ||
		    bpf_core_read(&exp, sizeof(exp), &h->node.expires))
			return 0;
	}
	return tick && fn == tick && exp == t;
}

/* Absolute expiry of @cpu's next timer event, 0 when unknown. */
static __always_inline __u64 gov_next_timer(__u32 cpu)
{
	__u64 base = timer_base[cpu & (BPFGOV_MAX_CPUS - 1)];
	__s64 t;

	if (!base)
		return 0;
	t = gov_expires_next(base);
	if (t <= 0)
		return 0;
	if (GOV_TIMER_BEFORE_TICK_STOP && gov_next_is_tick(base, t))
		return 0;
	return (__u64)t;
}

static __always_inline void gov_fill(struct bpfgov_event *e, const struct bpfgov_cpu_state *s,
				     __u32 cpu, __u32 kind, __u32 reason, __u64 now,
				     __u64 dur, __u32 arg0)
{
	e->ts_ns = now;
	e->dur_ns = dur;
	e->cpu = cpu;
	e->kind = kind;
	e->reason = reason;
	e->util = s->util;
	e->floor = s->floor;
	e->idle_pick = s->idle_pick;
	e->arg0 = arg0;
	e->seq = s->dec_seq;
	e->timer_ns = 0;
	e->wake = 0;
	e->pad = 0;
}

/* A reader asked for records of @kind on `tap`. */
static __always_inline int gov_tapping(__u32 kind)
{
	return control.tap_kinds & (1u << kind);
}

/* Mirror one record to `tap`; the caller checked gov_tapping(kind). */
static __always_inline void gov_tap_put(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
					__u32 cpu, __u32 kind, __u32 reason, __u64 now,
					__u64 dur, __u32 arg0, __u64 timer_ns, __u32 wake)
{
	struct bpfgov_event *e;
	__u64 flags = BPF_RB_NO_WAKEUP;

	e = bpf_ringbuf_reserve(&tap, sizeof(*e), 0);
	if (!e) {
		s->tap_drops++;
		return;
	}
	gov_fill(e, s, cpu, kind, reason, now, dur, arg0);
	e->timer_ns = timer_ns;
	e->wake = wake;
	/* Decisions wake the reader at once; detail only in batches. */
	if (kind == BPFGOV_EV_FLOOR || kind == BPFGOV_EV_PICK ||
	    bpf_ringbuf_query(&tap, BPF_RB_AVAIL_DATA) >= c->wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
}

/* Mirror one record to `tap` if a reader asked for its kind. */
static __always_inline void gov_tap(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
				    __u32 cpu, __u32 kind, __u32 reason, __u64 now,
				    __u64 dur, __u32 arg0)
{
	if (gov_tapping(kind))
		gov_tap_put(s, c, cpu, kind, reason, now, dur, arg0, 0, 0);
}

/*
 * A decision changed: to `events` for the loader, and to `tap`. Only kinds
 * the loader applies wake it (a wake-up costs the submitting CPU an
 * irq_work and the loader a context switch); the rest it reads on its
 * periodic drain. Forced, because an earlier unwoken record leaves the
 * consumer behind and a plain submit would then not wake it.
 */
static __always_inline void gov_decision(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
					 __u32 cpu, __u32 kind, __u32 reason, __u64 now)
{
	struct bpfgov_event *e;
	__u32 arg0 = kind == BPFGOV_EV_PICK ? s->poll_ok : 0;	/* pick: polling left to the governor */

	s->dec_seq++;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		gov_fill(e, s, cpu, kind, reason, now, 0, arg0);
		bpf_ringbuf_submit(e, control.wake_kinds & (1u << kind) ?
				   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	} else {
		s->rb_drops++;
	}
	gov_tap(s, c, cpu, kind, reason, now, 0, arg0);
}

static __always_inline void gov_emit_flags(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
					   __u32 cpu, __u32 flags, __u64 now)
{
	if (flags & POL_FLOOR)
		gov_decision(s, c, cpu, BPFGOV_EV_FLOOR, s->floor_reason, now);
	if (flags & POL_PICK)
		gov_decision(s, c, cpu, BPFGOV_EV_PICK, s->pick_reason, now);
}

/*
 * The event handlers take the CPU's state and the tunables from their
 * caller, which looks them up once per event (an event may run several);
 * the gov_on_*() wrappers look them up themselves.
 */

/* The CPU switches from a task to its idle task: the busy run ends. */
static __always_inline void gov_busy_end(struct bpfgov_cpu_state *s, struct bpfgov_config *c,
					 __u32 cpu, __u64 now)
{
	__u64 run = s->busy ? now - s->busy_since_ns : 0;

	s->nr_switches++;
	pol_busy_end(s, c, now);
	if (run)
		gov_tap(s, c, cpu, BPFGOV_EV_BUSY, 0, now, run, 0);
}

/* The CPU switches from its idle task to a task: a busy run begins. */
static __always_inline void gov_busy_begin(struct bpfgov_cpu_state *s, struct bpfgov_config *c,
					   __u32 cpu, __u64 now)
{
	__u64 gap = s->idle_since_ns ? now - s->idle_since_ns : 0;
	__u32 flags;

	s->nr_switches++;
	flags = pol_busy_begin(s, c, now);
	if (gap)
		gov_tap(s, c, cpu, BPFGOV_EV_IDLE_GAP, 0, now, gap, 0);
	/* A floor the loader held while this CPU slept (it never writes to
	 * a sleeping CPU): a floor record now, which wakes the loader, so
	 * the floor is applied as this CPU runs. */
	if (s->floor_held) {
		s->floor_held = 0;
		flags |= POL_FLOOR;
	}
	gov_emit_flags(s, c, cpu, flags, now);
}

/* The CPU switched tasks; only transitions to/from its idle task matter. */
static __always_inline void gov_on_switch(__u32 cpu, int prev_idle, int next_idle, __u64 now)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	struct bpfgov_config *c;

	if (!s)
		return;
	/* Task to task, the common case on this hot path: nothing else to
	 * do, so do not even look up the tunables. */
	if (prev_idle == next_idle || !(c = gov_cfg())) {
		s->nr_switches++;
		return;
	}
	if (next_idle)
		gov_busy_end(s, c, cpu, now);
	else
		gov_busy_begin(s, c, cpu, now);
}

static __always_inline void gov_idle_enter(struct bpfgov_cpu_state *s, struct bpfgov_config *c,
					   __u32 cpu, __u32 state, __u64 now)
{
	/* The scheduler on a machine with one idle state (no cpuidle driver)
	 * has no pick for a timer to cap, nor costs to tell apart: it reads
	 * the timer only for a reader of idle exits. */
	if (GOV_TIMER_BEFORE_TICK_STOP && c->idle_state_fixed && !gov_tapping(BPFGOV_EV_IDLE_EXIT))
		s->next_timer_ns = 0;
	else
		s->next_timer_ns = gov_next_timer(cpu);
	pol_idle_enter(s, c, state, now);
}

/* include/trace/events/power.h: PWR_EVENT_EXIT is -1 as an unsigned state. */
#define PWR_EVENT_EXIT	((unsigned int)-1)

/*
 * TIF bit numbers are macros (not in BTF) and moved when x86 took the
 * generic layout: NEED_RESCHED was bit 3 (LAZY 4, 6.13+), it is bit 4
 * (LAZY 5). The idle task never has bits 3-5 set for anything else
 * (MEMDIE, SINGLESTEP, SSBD are never set on it; the polling flag is
 * above), and lazy is promoted to NEED_RESCHED for it: test the three.
 * At a cpu_idle exit, none set: no task is to run, the idle loop goes on
 * (a poll that ran into the kernel's time limit: s->exit_goes_on).
 */
#define IDLE_RESCHED_MASK	0x38ul

static __always_inline void gov_idle_exit(struct bpfgov_cpu_state *s, struct bpfgov_config *c,
					  __u32 cpu, __u64 now)
{
	__u64 res, lat, res_x, lat_x;
	__u32 st = s->cur_state, flags;

	/* One fixed state: the short path, inline (pol_idle_exit_inline),
	 * with out values of its own, which stay in registers (those of the
	 * call must live on the stack). The exit leaves the residency's
	 * start and next timer as they were, for the tap record. */
	if (c->idle_state_fixed) {
		flags = pol_idle_exit_inline(s, c, now, &res, &lat);
	} else {
		flags = pol_idle_exit(s, c, now, &res_x, &lat_x);
		res = res_x;
		lat = lat_x;
	}
	if (res && gov_tapping(BPFGOV_EV_IDLE_EXIT))
		gov_tap_put(s, c, cpu, BPFGOV_EV_IDLE_EXIT, 0, now, res, st,
			    s->next_timer_ns > s->state_enter_ns ?
			    s->next_timer_ns - s->state_enter_ns : 0, s->wake_reason);
	if (lat)
		gov_tap(s, c, cpu, BPFGOV_EV_WAKE_LAT, 0, now, lat, st);
	gov_emit_flags(s, c, cpu, flags, now);
}

/*
 * A CPU without a cpuidle driver, in short cycles, wakes and a task begins
 * to run: the idle exit and busy begin in one inline pass where the policy
 * core can take it that way (pol_wake_fast; nothing to decide there), and
 * no tap reader asked for the records of those steps. Returns 0 where the
 * caller must take the two steps (gov_idle_exit, gov_busy_begin).
 */
#define GOV_WAKE_FAST_TAPS	((1u << BPFGOV_EV_IDLE_EXIT) | (1u << BPFGOV_EV_WAKE_LAT) | \
				 (1u << BPFGOV_EV_IDLE_GAP))

static __always_inline int gov_wake_fast(struct bpfgov_cpu_state *s, __u64 now)
{
	if ((control.tap_kinds & GOV_WAKE_FAST_TAPS) || !pol_wake_fast(s, now))
		return 0;
	s->nr_switches++;	/* as gov_busy_begin() */
	return 1;
}

/*
 * Wake-up stamps are samples (the cost they measure is averaged per idle
 * state, and moves slowly): one wake-up in GOV_WAKE_SAMPLE from each CPU
 * looks at its target, unless a tap reader records every wake-up cost. The
 * others cost a counter on the waker's own line, not a read of the target
 * CPU's state: that line is the sleeping CPU's, written at its idle entry,
 * so reading it is a cross-CPU miss, and the stamp another one at the exit.
 */
#define GOV_WAKE_SAMPLE	4

/* Each CPU's line as a waker. */
struct gov_waker {
	__u32 seq;		/* wake-ups this CPU aimed at others (the sample counter) */
	__u32 widen;		/* paced sampling (gov_wake_paced): one in GOV_WAKE_SAMPLE << widen */
	__u64 last_ns;		/* paced sampling: this CPU's last stamp */
} __attribute__((aligned(BPFGOV_CACHE_LINE)));

static struct gov_waker gov_wakers[BPFGOV_MAX_CPUS];

static __always_inline struct gov_waker *gov_waker(__u32 self)
{
	return &gov_wakers[self & (BPFGOV_MAX_CPUS - 1)];
}

/* This wake-up is one in @period (a power of two) from waker @w, or a tap
 * reader records every wake-up cost. */
static __always_inline int gov_waker_due(struct gov_waker *w, __u32 period)
{
	return !(w->seq++ & (period - 1)) || gov_tapping(BPFGOV_EV_WAKE_LAT);
}

/* This wake-up, from the current CPU, is one to stamp its target for. */
static __always_inline int gov_wake_sampled(void)
{
	return gov_waker_due(gov_waker(bpf_get_smp_processor_id()), GOV_WAKE_SAMPLE);
}

/* A wakeup from CPU @self is aimed at @cpu: timestamp it to measure the
 * wake-up cost. Only a sleeping, not yet stamped CPU costs more than the
 * lookup. Not from the sleeping CPU itself: that is an interrupt handler
 * running after the wake-up (a timer's is measured from its expiry).
 * Returns the stamp, 0 when none was taken. */
static __always_inline __u64 gov_wake_stamp(__u32 cpu, __u32 self)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	__u64 now;

	if (!s || s->cur_state == BPFGOV_NO_STATE || s->wake_ts_ns || cpu == self)
		return 0;
	now = bpf_ktime_get_ns();
	pol_wake_stamp(s, now);
	return now;
}

/* A wakeup is aimed at @cpu (tracepoint mode: sched_waking, sampled). */
static __always_inline void gov_on_wake(__u32 cpu)
{
	gov_wake_stamp(cpu, bpf_get_smp_processor_id());
}

/*
 * Paced sampling (sched_ext mode, where the stamp rides on the scheduler's
 * own wake-up path): one wake-up in GOV_WAKE_SAMPLE << widen from each
 * waker CPU, the period widening while that CPU's stamps come closer than
 * GOV_STAMP_GAP_NS and narrowing while they are more than four times as
 * far apart. A CPU that wakes others every few microseconds (a ping-pong)
 * thus stamps every 2-8 ms, hundreds of samples a second, where one in
 * four would be thousands, each a clock read and a full idle exit of its
 * target (gov_wake_fast declines a stamped wake-up); a CPU that wakes
 * others less often than every 8 ms samples one in four, as tracepoint
 * mode. The pacing reads no clock of its own: the stamp's.
 */
#define GOV_STAMP_GAP_NS	(2ull * 1000 * 1000)
#define GOV_WIDEN_MAX		6	/* one in 256 */

/* This wake-up, from waker @w, is one to stamp its target for (paced). */
static __always_inline int gov_wake_paced_due(struct gov_waker *w)
{
	return gov_waker_due(w, GOV_WAKE_SAMPLE << w->widen);
}

/* A sampled wake-up from CPU @self (the current CPU) is aimed at @cpu:
 * stamp it (gov_wake_stamp), and pace @self's sampling by the time since
 * its last stamp. */
static __always_inline void gov_wake_paced(__u32 cpu, __u32 self)
{
	struct gov_waker *w;
	__u64 now = gov_wake_stamp(cpu, self), gap;

	if (!now)
		return;
	w = gov_waker(self);
	gap = now - w->last_ns;
	w->last_ns = now;
	if (gap < GOV_STAMP_GAP_NS) {
		if (w->widen < GOV_WIDEN_MAX)
			w->widen++;
	} else if (gap >= 4 * GOV_STAMP_GAP_NS && w->widen) {
		w->widen--;
	}
}

struct gov_scan_ctx {
	struct bpfgov_config *c;
	__u64 est;		/* now, within a tick */
	__u64 now;		/* the precise clock, read for the first CPU to refresh */
	__u32 self;
};

static long gov_scan_one(__u64 i, void *data)
{
	struct gov_scan_ctx *x = data;
	struct bpfgov_cpu_state *s;
	__u32 cpu = (__u32)i, flags;

	if (cpu == x->self)
		return 0;
	s = gov_cpu(cpu);
	if (!s)
		return 1;
	/* Only a CPU asleep for a scan period, with a floor to lower, is
	 * worth the precise clock (pol_remote_refresh decides the rest). */
	if (s->busy || !s->idle_since_ns || (s->floor <= pol_floor_low(x->c) && !s->hold_floor) ||
	    x->est < s->idle_since_ns + (__u64)x->c->remote_scan_us * POL_NS_PER_US)
		return 0;
	if (!x->now)
		x->now = bpf_ktime_get_ns();
	flags = pol_remote_refresh(s, x->c, x->now);
	gov_emit_flags(s, x->c, cpu, flags, x->now);
	return 0;
}

/* When the last remote scan ran, shared by all CPUs. A line of its own:
 * the winner's compare-and-swap must not take away from the other CPUs
 * the lines they read on every event (the control map, the next timers).
 * Each CPU keeps when the next scan is due in its own state
 * (scan_due_ns), so that it reads this line only then. */
__u64 remote_scan_line[BPFGOV_CACHE_LINE / 8] __attribute__((aligned(BPFGOV_CACHE_LINE)));

/*
 * At most every remote_scan_us across all CPUs, refresh the floors of CPUs
 * that sleep without events (nohz idle): otherwise an idle CPU would keep
 * its last busy floor until it next wakes. @est is now within a tick, @now
 * the precise clock if already read (0: read it only if a CPU needs it).
 */
static __always_inline void gov_remote_scan(__u32 cpu, struct bpfgov_cpu_state *s,
					    struct bpfgov_config *c, __u64 est, __u64 now)
{
	__u64 period = (__u64)c->remote_scan_us * POL_NS_PER_US, last, won;
	struct gov_scan_ctx x;

	if (est < s->scan_due_ns)
		return;
	last = remote_scan_line[0];
	if (est < last + period) {
		s->scan_due_ns = last + period;
		return;
	}
	/* One CPU wins the scan; the others see the new stamp. */
	won = __sync_val_compare_and_swap(&remote_scan_line[0], last, est);
	if (won != last) {
		s->scan_due_ns = won + period;
		return;
	}
	s->scan_due_ns = est + period;
	x.c = c;
	x.est = est;
	x.now = now;
	x.self = cpu;
	bpf_loop(nr_cpus, gov_scan_one, &x, 0);
}

/* Periodic hook on an awake CPU (sched_ext: ops.tick, which has the precise
 * clock at hand): account a long busy run, then maybe the remote scan. */
static __always_inline void gov_tick(struct bpfgov_cpu_state *s, struct bpfgov_config *c,
				     __u32 cpu, __u64 now)
{
	__u32 flags;

	flags = pol_tick(s, c, now);
	gov_emit_flags(s, c, cpu, flags, now);
	gov_remote_scan(cpu, s, c, now, now);
}

#endif /* __BPFGOV_COMMON_BPF_H */
