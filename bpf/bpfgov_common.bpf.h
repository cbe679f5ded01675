/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * BPF-only half of bpfgov shared by the tracepoint program
 * (bpfgov_trace.bpf.c) and the sched_ext scheduler (bpfgov_scx.bpf.c):
 * the pinned maps, and gov_on_*() wrappers that run the policy core on an
 * event and stream what changed. Each mode only decides which kernel hook
 * calls which wrapper.
 *
 * Streams. `events` carries decisions (floor or pick changed) to the
 * `govloader start` that actuates them; decisions are rate limited per CPU,
 * so each one wakes the reader at once (actuation latency matters). `tap`
 * mirrors the kinds a tail/record reader asked for in control.tap_kinds;
 * per-event detail there is submitted without a wakeup and the reader is
 * only woken past wakeup_bytes (a wakeup per event costs ~6 us in this VM),
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
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpfgov_config);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} tunables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpfgov_control);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} control SEC(".maps");

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
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tunables, &zero);
}

static __always_inline struct bpfgov_control *gov_ctl(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&control, &zero);
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
}

/* Mirror one record to `tap` if a reader asked for its kind. */
static __always_inline void gov_tap(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
				    __u32 cpu, __u32 kind, __u32 reason, __u64 now,
				    __u64 dur, __u32 arg0)
{
	struct bpfgov_control *ctl = gov_ctl();
	struct bpfgov_event *e;
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (!ctl || !(ctl->tap_kinds & (1u << kind)))
		return;
	e = bpf_ringbuf_reserve(&tap, sizeof(*e), 0);
	if (!e) {
		s->tap_drops++;
		return;
	}
	gov_fill(e, s, cpu, kind, reason, now, dur, arg0);
	/* Decisions wake the reader at once; detail only in batches. */
	if (kind == BPFGOV_EV_FLOOR || kind == BPFGOV_EV_PICK ||
	    bpf_ringbuf_query(&tap, BPF_RB_AVAIL_DATA) >= c->wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
}

/* A decision changed: to `events` for the actuating loader, and to `tap`. */
static __always_inline void gov_decision(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
					 __u32 cpu, __u32 kind, __u32 reason, __u64 now)
{
	struct bpfgov_event *e;

	s->dec_seq++;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		gov_fill(e, s, cpu, kind, reason, now, 0, 0);
		bpf_ringbuf_submit(e, 0);
	} else {
		s->rb_drops++;
	}
	gov_tap(s, c, cpu, kind, reason, now, 0, 0);
}

static __always_inline void gov_emit_flags(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
					   __u32 cpu, __u32 flags, __u64 now)
{
	if (flags & POL_FLOOR)
		gov_decision(s, c, cpu, BPFGOV_EV_FLOOR, s->floor_reason, now);
	if (flags & POL_PICK)
		gov_decision(s, c, cpu, BPFGOV_EV_PICK, s->pick_reason, now);
}

/* The CPU switched tasks; only transitions to/from its idle task matter. */
static __always_inline void gov_on_switch(__u32 cpu, int prev_idle, int next_idle, __u64 now)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	struct bpfgov_config *c;
	__u64 run, gap;
	__u32 flags;

	if (!s)
		return;
	s->nr_switches++;
	/* Task to task, the common case on this hot path: nothing else to
	 * do, so do not even look up the tunables. */
	if (prev_idle == next_idle)
		return;
	c = gov_cfg();
	if (!c)
		return;
	if (next_idle) {
		run = s->busy ? now - s->busy_since_ns : 0;
		pol_busy_end(s, c, now);
		if (run)
			gov_tap(s, c, cpu, BPFGOV_EV_BUSY, 0, now, run, 0);
		return;
	}
	gap = s->idle_since_ns ? now - s->idle_since_ns : 0;
	flags = pol_busy_begin(s, c, now);
	if (gap)
		gov_tap(s, c, cpu, BPFGOV_EV_IDLE_GAP, 0, now, gap, 0);
	gov_emit_flags(s, c, cpu, flags, now);
}

static __always_inline void gov_on_idle_enter(__u32 cpu, __u32 state, __u64 now)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);

	if (s)
		pol_idle_enter(s, state, now);
}

static __always_inline void gov_on_idle_exit(__u32 cpu, __u64 now)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	struct bpfgov_config *c = gov_cfg();
	__u64 res, lat;
	__u32 st, flags;

	if (!s || !c)
		return;
	st = s->cur_state;
	flags = pol_idle_exit(s, c, now, &res, &lat);
	if (res)
		gov_tap(s, c, cpu, BPFGOV_EV_IDLE_EXIT, 0, now, res, st);
	if (lat)
		gov_tap(s, c, cpu, BPFGOV_EV_WAKE_LAT, 0, now, lat, st);
	gov_emit_flags(s, c, cpu, flags, now);
}

/* A wakeup is aimed at @cpu: timestamp it to measure the wake-up cost.
 * The hottest hook (every wakeup): only a sleeping, not yet stamped CPU
 * costs more than the lookup. */
static __always_inline void gov_on_wake(__u32 cpu)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);

	if (s && s->cur_state != BPFGOV_NO_STATE && !s->wake_ts_ns)
		pol_wake_stamp(s, bpf_ktime_get_ns());
}

struct gov_scan_ctx {
	struct bpfgov_config *c;
	__u64 now;
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
	flags = pol_remote_refresh(s, x->c, x->now);
	gov_emit_flags(s, x->c, cpu, flags, x->now);
	return 0;
}

/*
 * Periodic hook on an awake CPU. Also, at most every remote_scan_us across
 * all CPUs, refresh the floors of CPUs that sleep without events (nohz
 * idle): otherwise an idle CPU would keep its last busy floor until it
 * next wakes.
 */
static __always_inline void gov_on_tick(__u32 cpu, __u64 now)
{
	struct bpfgov_cpu_state *s = gov_cpu(cpu);
	struct bpfgov_config *c = gov_cfg();
	struct bpfgov_control *ctl = gov_ctl();
	struct gov_scan_ctx x;
	__u64 last;
	__u32 flags;

	if (!s || !c || !ctl)
		return;
	flags = pol_tick(s, c, now);
	gov_emit_flags(s, c, cpu, flags, now);

	last = ctl->last_remote_scan_ns;
	if (now - last < (__u64)c->remote_scan_us * POL_NS_PER_US)
		return;
	/* One CPU wins the scan; the others see the new stamp. */
	if (__sync_val_compare_and_swap(&ctl->last_remote_scan_ns, last, now) != last)
		return;
	x.c = c;
	x.now = now;
	x.self = cpu;
	bpf_loop(nr_cpus, gov_scan_one, &x, 0);
}

#endif /* __BPFGOV_COMMON_BPF_H */
