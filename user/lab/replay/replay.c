// SPDX-License-Identifier: GPL-2.0
/*
 * `govlab replay`: run bpfgov's policy core and reference models of the
 * kernel's governors over one trace, side by side.
 *
 * The trace fixes when the workload ran and when each wakeup was requested
 * (open loop). What a policy changes is the idle state each idle period is
 * spent in, hence the wake-up cost it pays, and the floor it requests. Every
 * idle decision is judged by one rule for all policies: the state's real
 * cost (the trace's measured wake-up cost, not the driver's table) against
 * the sleep that followed. See docs/trace-format.md, "Replay".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"
#include "bpfgov_tunables.h"
#include "common.h"
#include "log.h"
#include "replay.h"
#include "replay_judge.h"
#include "tunables.h"
#include "config.h"
#include "govlab_cmds.h"

static int policy_is_idle(int p)
{
	return p < RP_SCHEDUTIL;
}

static int policy_is_freq(int p)
{
	return p == RP_BPFGOV || p >= RP_SCHEDUTIL;
}

void replay_opts_default(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	bpfgov_config_defaults(&o->cfg);
	o->policies = RP_ALL;
	o->tick_ns = REF_TICK_NS_DEFAULT;
	o->timer_ns = REF_TICK_NS_DEFAULT;
	o->sugov_rate_limit_us = 2000;	/* cpufreq default transition delay since 6.8 */
	o->hwp_rate_limit_us = 5000;	/* INTEL_CPUFREQ_TRANSITION_DELAY_HWP */
	o->hp.guest_halt_poll_ns = 200000;
	o->hp.grow = 2;
	o->hp.shrink = 2;
	o->hp.grow_start_ns = 50000;
	o->hp.allow_shrink = 1;
	o->judge_pct = 100;
	o->tie_energy_pct = JUDGE_TIE_ENERGY_PCT;
	o->tie_latency_us = JUDGE_TIE_LATENCY_US;
	o->short_gap_ns = 1000000;
	o->after_gap_ns = 30000000;
	fm_params_default(&o->fm);
	o->fl_tie_energy_pct = FM_TIE_ENERGY_PCT;
	o->fl_tie_delay_us = -1;	/* relative: the energy band's share */
}

/* ------------------------------------------------------------ timeline */

/* One idle-state residency of the trace, reduced to what the workload
 * decided: when the CPU went idle, how long until the wakeup was
 * requested, and whether another CPU requested it. */
struct idle_entry {
	__u64 enter_ns;
	__u64 exit_ns;			/* as traced */
	__u64 sleep_ns;
	__u64 rec_timer_ns;		/* the record's next timer (TRACE_NO_TIMER: none) */
	__u32 wake;			/* the record's wake reason (enum trace_wake) */
	int remote;
	/* The most any pick's wake-up may cost in this period: an idle
	 * whose cause is unknown and that lasted less than its state's
	 * wake-up cost had its wake-up pending at once (a wake-up during the
	 * entry to idle, before the state was entered, is stamped nowhere);
	 * it cost no more than it lasted, whatever state is replayed. */
	__u64 cost_cap_ns;
};

/* The wake-up cost a pick pays in one idle period. */
static inline __u64 entry_cost(const struct idle_entry *e, __u64 cost)
{
	return cost < e->cost_cap_ns ? cost : e->cost_cap_ns;
}

/*
 * What tick_nohz_get_sleep_length() would have told a governor at idle
 * entry: the trace's own next timer where it has one (version 2); else the
 * sleep itself only when a timer ended the idle (or, in a version 1 trace,
 * when no other CPU woke it: a version 1 trace cannot tell a timer from a
 * device interrupt); else no timer before the wakeup, and none assumed
 * sooner than --timer-us.
 */
static __u64 entry_next_timer(const struct idle_entry *e, const struct replay_opts *o)
{
	__u64 far = o->timer_ns > e->sleep_ns ? o->timer_ns : e->sleep_ns;

	if (e->rec_timer_ns != TRACE_NO_TIMER)
		return e->rec_timer_ns;
	switch (e->wake) {
	case TRACE_WAKE_TIMER:
		return e->sleep_ns;
	case TRACE_WAKE_IPI:
	case TRACE_WAKE_OTHER:
		return far;
	default:
		return e->remote ? far : e->sleep_ns;
	}
}

enum ev_type { EV_BUSY_END = 0, EV_IDLE = 1, EV_BUSY_BEGIN = 2, EV_TICK = 3 };

struct tl_event {
	__u64 t;
	__u32 cpu;
	__u32 type;
	size_t idx;			/* idle entry (EV_IDLE) */
	size_t seq;			/* tie-break: build order */
};

struct floor_track {
	__u32 cur;
	__u64 since;
	double area;
	__u64 changes;
	/* change points, for the after-gap metric */
	__u64 *pt_t;
	__u32 *pt_v;
	size_t nr, cap;
};

struct cpu_tl {
	struct idle_entry *idle;
	size_t nr_idle, cap_idle;
	__u64 *gap_end;			/* ends of short gaps */
	size_t nr_gaps, cap_gaps;
	struct fm_seg *seg;		/* busy segments, for the floor judge */
	size_t nr_seg, cap_seg;
	int has_records;
};

struct timeline {
	__u32 nr_cpus;
	struct cpu_tl *cpu;
	struct tl_event *ev;
	size_t nr_ev, cap_ev;
	__u64 t0, t1;
	__u64 poll_limit_ns;		/* median of the polls that ran into the limit (0: none) */
	size_t nr_limit;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *n;
	size_t c;

	if (need <= *cap)
		return 0;
	c = *cap ? *cap * 2 : 1024;
	while (c < need)
		c *= 2;
	n = realloc(*p, c * elem);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

static int tl_push(struct timeline *tl, __u64 t, __u32 cpu, __u32 type, size_t idx)
{
	struct tl_event *e;

	if (grow((void **)&tl->ev, &tl->cap_ev, tl->nr_ev + 1, sizeof(*e)))
		return -ENOMEM;
	e = &tl->ev[tl->nr_ev];
	e->t = t;
	e->cpu = cpu;
	e->type = type;
	e->idx = idx;
	e->seq = tl->nr_ev++;
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void tl_free(struct timeline *tl)
{
	if (tl->cpu) {
		for (__u32 c = 0; c < tl->nr_cpus; c++) {
			free(tl->cpu[c].idle);
			free(tl->cpu[c].gap_end);
			free(tl->cpu[c].seg);
		}
	}
	free(tl->cpu);
	free(tl->ev);
	memset(tl, 0, sizeof(*tl));
}

/* Wake-up cost per state: the writer's model if the header has one, else
 * the median of the trace's wake samples, else the driver table. */
static void derive_costs(const struct trace *t, struct replay_result *r)
{
	for (__u32 k = 0; k < t->nr_states; k++) {
		__u64 *v = NULL;
		size_t n = 0;

		if (t->states[k].cost_ns) {
			r->cost_ns[k] = t->states[k].cost_ns;
			r->cost_from[k] = 2;
			continue;
		}
		for (size_t i = 0; i < t->nr; i++)
			n += t->recs[i].kind == BPFGOV_EV_WAKE_LAT && t->recs[i].state == k;
		if (n)
			v = malloc(n * sizeof(*v));
		if (v) {
			size_t j = 0;

			for (size_t i = 0; i < t->nr; i++)
				if (t->recs[i].kind == BPFGOV_EV_WAKE_LAT && t->recs[i].state == k)
					v[j++] = t->recs[i].dur_ns;
			qsort(v, n, sizeof(*v), u64_cmp);
			r->cost_ns[k] = v[n / 2];
			r->cost_from[k] = 1;
			free(v);
			continue;
		}
		r->cost_ns[k] = (__u64)t->states[k].exit_latency_us * 1000;
		r->cost_from[k] = 0;
	}
}

static int tl_build(const struct trace *t, const struct replay_opts *o,
		    const struct replay_result *r, struct timeline *tl)
{
	__u64 *pend_wake_ts = NULL, *pend_wake_lat = NULL, *last_busy_end = NULL;
	__u64 *limit_start = NULL, *limit_timer = NULL, *limits = NULL;
	size_t *last_idle = NULL, nr_limits = 0, cap_limits = 0;
	int *have_gap_recs = NULL, ret = -ENOMEM;

	memset(tl, 0, sizeof(*tl));
	tl->nr_cpus = t->nr_cpus;
	tl->cpu = calloc(t->nr_cpus, sizeof(*tl->cpu));
	pend_wake_ts = calloc(t->nr_cpus, sizeof(__u64));
	pend_wake_lat = calloc(t->nr_cpus, sizeof(__u64));
	last_busy_end = calloc(t->nr_cpus, sizeof(__u64));
	last_idle = calloc(t->nr_cpus, sizeof(size_t));
	have_gap_recs = calloc(t->nr_cpus, sizeof(int));
	limit_start = calloc(t->nr_cpus, sizeof(__u64));
	limit_timer = calloc(t->nr_cpus, sizeof(__u64));
	if (!tl->cpu || !pend_wake_ts || !pend_wake_lat || !last_busy_end || !last_idle ||
	    !have_gap_recs || !limit_start || !limit_timer)
		goto out;
	for (size_t i = 0; i < t->nr; i++)
		if (t->recs[i].kind == BPFGOV_EV_IDLE_GAP)
			have_gap_recs[t->recs[i].cpu] = 1;

	tl->t0 = ~0ull;
	for (size_t i = 0; i < t->nr; i++) {
		const struct trace_rec *rec = &t->recs[i];
		struct cpu_tl *c = &tl->cpu[rec->cpu];
		__u64 start = rec->ts_ns - rec->dur_ns;

		c->has_records = 1;
		if (start < tl->t0)
			tl->t0 = start;
		if (rec->ts_ns > tl->t1)
			tl->t1 = rec->ts_ns;
		switch (rec->kind) {
		case BPFGOV_EV_BUSY:
			limit_start[rec->cpu] = 0;	/* a task ran: that idle period ended */
			if (grow((void **)&c->seg, &c->cap_seg, c->nr_seg + 1, sizeof(*c->seg)))
				goto out;
			memset(&c->seg[c->nr_seg], 0, sizeof(*c->seg));
			c->seg[c->nr_seg].start_ns = start;
			c->seg[c->nr_seg++].dur_ns = rec->dur_ns;
			if (tl_push(tl, start, rec->cpu, EV_BUSY_BEGIN, 0) ||
			    tl_push(tl, rec->ts_ns, rec->cpu, EV_BUSY_END, 0))
				goto out;
			/* Ticks at absolute multiples of the period, as
			 * jiffies are; they feed bpfgov's pol_tick and the
			 * schedutil models. */
			for (__u64 k = start / o->tick_ns + 1; k * o->tick_ns < rec->ts_ns; k++)
				if (tl_push(tl, k * o->tick_ns, rec->cpu, EV_TICK, 0))
					goto out;
			/* The gap before this run, if gaps are not recorded. */
			if (!have_gap_recs[rec->cpu] && last_busy_end[rec->cpu] &&
			    start >= last_busy_end[rec->cpu] &&
			    start - last_busy_end[rec->cpu] < o->short_gap_ns) {
				if (grow((void **)&c->gap_end, &c->cap_gaps, c->nr_gaps + 1,
					 sizeof(__u64)))
					goto out;
				c->gap_end[c->nr_gaps++] = start;
			}
			last_busy_end[rec->cpu] = rec->ts_ns;
			break;
		case BPFGOV_EV_IDLE_GAP:
			if (rec->dur_ns < o->short_gap_ns) {
				if (grow((void **)&c->gap_end, &c->cap_gaps, c->nr_gaps + 1,
					 sizeof(__u64)))
					goto out;
				c->gap_end[c->nr_gaps++] = rec->ts_ns;
			}
			break;
		case BPFGOV_EV_IDLE_EXIT: {
			struct idle_entry *e;
			__u64 lat = 0, cost = r->cost_ns[rec->state], dur = rec->dur_ns;

			/* A poll that ran into the kernel's time limit: the
			 * idle period goes on in the CPU's next residency, and
			 * the replay cuts polls as that limit does. */
			if (rec->wake == TRACE_WAKE_LIMIT && rec->state < t->nr_states &&
			    t->states[rec->state].is_poll) {
				if (!limit_start[rec->cpu]) {
					limit_start[rec->cpu] = start;
					limit_timer[rec->cpu] = rec->next_timer_ns;
				}
				if (grow((void **)&limits, &cap_limits, nr_limits + 1, sizeof(__u64)))
					goto out;
				limits[nr_limits++] = rec->dur_ns;
				break;
			}
			if (grow((void **)&c->idle, &c->cap_idle, c->nr_idle + 1, sizeof(*e)))
				goto out;
			if (pend_wake_ts[rec->cpu] == rec->ts_ns && pend_wake_lat[rec->cpu]) {
				lat = pend_wake_lat[rec->cpu];
				pend_wake_lat[rec->cpu] = 0;
			}
			e = &c->idle[c->nr_idle];
			e->enter_ns = start;
			e->rec_timer_ns = rec->next_timer_ns;
			if (limit_start[rec->cpu] && limit_start[rec->cpu] <= start) {
				e->enter_ns = limit_start[rec->cpu];
				e->rec_timer_ns = limit_timer[rec->cpu];
				dur = rec->ts_ns - e->enter_ns;
			}
			limit_start[rec->cpu] = 0;
			e->exit_ns = rec->ts_ns;
			e->wake = rec->wake;
			e->remote = lat != 0;
			e->cost_cap_ns = ~0ull;
			if (lat) {
				e->sleep_ns = lat < dur ? dur - lat : 0;
			} else {
				e->sleep_ns = cost < dur ? dur - cost : 0;
				if (cost > dur)
					e->cost_cap_ns = dur;
			}
			last_idle[rec->cpu] = ++c->nr_idle;	/* index + 1 */
			if (tl_push(tl, e->enter_ns, rec->cpu, EV_IDLE, c->nr_idle - 1))
				goto out;
			break;
		}
		case BPFGOV_EV_WAKE_LAT: {
			size_t li = last_idle[rec->cpu];

			/* Pairs with the idle record of the same CPU and end
			 * time, whichever of the two the writer put first. */
			if (li && c->idle[li - 1].exit_ns == rec->ts_ns && !c->idle[li - 1].remote &&
			    rec->dur_ns) {
				struct idle_entry *e = &c->idle[li - 1];
				__u64 dur = e->exit_ns - e->enter_ns;

				e->remote = 1;
				e->cost_cap_ns = ~0ull;
				e->sleep_ns = rec->dur_ns < dur ? dur - rec->dur_ns : 0;
			} else {
				pend_wake_ts[rec->cpu] = rec->ts_ns;
				pend_wake_lat[rec->cpu] = rec->dur_ns;
			}
			break;
		}
		}
	}
	if (!t->nr)
		tl->t0 = 0;
	if (nr_limits) {
		qsort(limits, nr_limits, sizeof(__u64), u64_cmp);
		tl->poll_limit_ns = limits[nr_limits / 2];
		tl->nr_limit = nr_limits;
	}
	/* qsort's base must not be NULL, even for no elements (UBSan). */
	if (tl->nr_ev)
		qsort(tl->ev, tl->nr_ev, sizeof(*tl->ev), ev_cmp);
	for (__u32 c = 0; c < tl->nr_cpus; c++) {
		struct cpu_tl *ct = &tl->cpu[c];

		if (ct->nr_gaps)
			qsort(ct->gap_end, ct->nr_gaps, sizeof(__u64), u64_cmp);
		/* start_ns is the first member: sorts by start */
		if (ct->nr_seg)
			qsort(ct->seg, ct->nr_seg, sizeof(*ct->seg), u64_cmp);
		for (size_t i = 0; i + 1 < ct->nr_seg; i++)
			ct->seg[i].window_ns = ct->seg[i + 1].start_ns - ct->seg[i].start_ns;
		fm_mark_locks(&o->fm, ct->seg, ct->nr_seg, c);
	}
	ret = 0;
out:
	free(pend_wake_ts);
	free(pend_wake_lat);
	free(last_busy_end);
	free(last_idle);
	free(have_gap_recs);
	free(limit_start);
	free(limit_timer);
	free(limits);
	if (ret)
		tl_free(tl);
	return ret;
}

/* -------------------------------------------------------------- floors */

static int ft_init(struct floor_track *f, __u64 t0, __u32 v)
{
	memset(f, 0, sizeof(*f));
	f->cur = v;
	f->since = t0;
	if (grow((void **)&f->pt_t, &f->cap, 1, sizeof(__u64)))
		return -ENOMEM;
	f->pt_v = malloc(f->cap * sizeof(__u32));
	if (!f->pt_v)
		return -ENOMEM;
	f->pt_t[0] = t0;
	f->pt_v[0] = v;
	f->nr = 1;
	return 0;
}

static int ft_set(struct floor_track *f, __u64 t, __u32 v)
{
	if (v == f->cur)
		return 0;
	if (t < f->since)
		t = f->since;
	f->area += (double)f->cur * (double)(t - f->since);
	f->cur = v;
	f->since = t;
	f->changes++;
	if (f->nr == f->cap) {
		size_t cap = f->cap * 2;
		__u64 *nt = realloc(f->pt_t, cap * sizeof(*nt));
		__u32 *nv;

		if (!nt)
			return -ENOMEM;
		f->pt_t = nt;
		nv = realloc(f->pt_v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		f->pt_v = nv;
		f->cap = cap;
	}
	f->pt_t[f->nr] = t;
	f->pt_v[f->nr] = v;
	f->nr++;
	return 0;
}

static void ft_free(struct floor_track *f)
{
	free(f->pt_t);
	free(f->pt_v);
	memset(f, 0, sizeof(*f));
}

/* Time with floor == 0 inside [a, b). */
static __u64 ft_zero_time(const struct floor_track *f, __u64 a, __u64 b, __u64 t1)
{
	__u64 sum = 0;
	size_t lo = 0, hi = f->nr;

	/* last change point at or before a */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (f->pt_t[mid] <= a)
			lo = mid;
		else
			hi = mid;
	}
	for (size_t i = lo; i < f->nr && f->pt_t[i] < b; i++) {
		__u64 s = f->pt_t[i] > a ? f->pt_t[i] : a;
		__u64 e = i + 1 < f->nr ? f->pt_t[i + 1] : t1;

		if (e > b)
			e = b;
		if (f->pt_v[i] == 0 && e > s)
			sum += e - s;
	}
	return sum;
}

/* Finish one CPU's floor track into the policy's stats. */
static void ft_account(struct floor_track *f, const struct cpu_tl *c, const struct timeline *tl,
		       const struct replay_opts *o, struct replay_stats *s, __u32 *nr_cpus)
{
	__u64 covered = 0;

	if (tl->t1 > f->since)
		f->area += (double)f->cur * (double)(tl->t1 - f->since);
	f->since = tl->t1;
	if (tl->t1 > tl->t0)
		s->mean_floor += f->area / (double)(tl->t1 - tl->t0);
	(*nr_cpus)++;
	s->floor_changes += f->changes;
	/* Union of the watch windows, so overlapping windows of a burst of
	 * short gaps count each instant once. */
	for (size_t g = 0; g < c->nr_gaps; g++) {
		__u64 a = c->gap_end[g], b = a + o->after_gap_ns;

		s->short_gaps++;
		if (ft_zero_time(f, a, b, tl->t1))
			s->short_gaps_hit++;
		if (a < covered)
			a = covered;
		if (b > a)
			s->lowest_after_gap_ns += ft_zero_time(f, a, b, tl->t1);
		if (b > covered)
			covered = b;
	}
}

/* ------------------------------------------------------------ judging */

/* Count one state selection (a poll that hit its time limit and the
 * selection after it are two selections, one idle period). */
static void count_decision(const struct judge *j, struct replay_stats *s, __u32 pick)
{
	s->decisions++;
	if (pick < BPFGOV_MAX_STATES && pick < j->n)
		s->state_use[pick]++;
}

static __u64 delta_tick(const struct replay_opts *o, __u64 t)
{
	return o->tick_ns - t % o->tick_ns;
}

/* ------------------------------------------------------ reference idle */

/* The kernel's poll time limit where it is known: --poll-limit-us, else
 * what the trace's polls that ran into it say (0: the models' formula). */
static __u64 kernel_poll_limit(const struct timeline *tl, const struct replay_opts *o)
{
	return o->poll_limit_ns ? o->poll_limit_ns : tl->poll_limit_ns;
}

static void run_ref_idle(int pol, const struct timeline *tl,
			 const struct replay_opts *o, const struct judge *j,
			 const struct ref_states *rs, struct replay_stats *s)
{
	static const int kind_of[RP__MAX] = {
		[RP_MENU] = REF_MENU, [RP_TEO] = REF_TEO, [RP_LADDER] = REF_LADDER,
		[RP_LADDER_BAL] = REF_LADDER_BAL, [RP_HALTPOLL] = REF_HALTPOLL,
	};

	s->idle = 1;
	for (__u32 c = 0; c < tl->nr_cpus; c++) {
		const struct cpu_tl *ct = &tl->cpu[c];
		struct ref_idle m;

		ref_idle_init(&m, kind_of[pol], rs, &o->hp);
		for (size_t i = 0; i < ct->nr_idle; i++) {
			const struct idle_entry *e = &ct->idle[i];
			__u64 remaining = e->sleep_ns, now = e->enter_ns;
			__u32 first = 0;

			/* The idle loop re-selects after a poll that hit its
			 * time limit; bounded in case a model keeps polling. */
			for (int round = 0; round < 64; round++) {
				/* the next timer, seen from this (re)selection */
				__u64 elapsed = e->sleep_ns - remaining, nt = entry_next_timer(e, o);
				__u64 next_timer = nt > elapsed ? nt - elapsed : 0;
				int pick = ref_idle_select(&m, next_timer, delta_tick(o, now));
				/* only poll_idle() asks for the limit (and caches it);
				 * the kernel's, where known, but for haltpoll's window */
				__u64 limit = j->poll[pick] ? ref_idle_poll_limit(&m) : 0;

				if (limit && kind_of[pol] != REF_HALTPOLL && kernel_poll_limit(tl, o))
					limit = kernel_poll_limit(tl, o);

				count_decision(j, s, (__u32)pick);
				if (!round)
					first = (__u32)pick;
				if (j->poll[pick] && remaining > limit && round < 63) {
					s->poll_ns += limit;
					s->idle_ns += limit;
					ref_idle_reflect(&m, pick, limit, 1);
					remaining -= limit;
					now += limit;
					continue;
				}
				__u64 cost = entry_cost(e, j->cost[pick]);

				if (j->poll[pick])
					s->poll_ns += remaining + cost;
				s->idle_ns += remaining + cost;
				s->wakeups++;
				s->wake_lat_ns += cost;
				judge_period(j, &s->j, e->sleep_ns, first, (__u32)pick,
					     e->sleep_ns - remaining);
				ref_idle_reflect(&m, pick, remaining + cost, 0);
				break;
			}
		}
	}
}

/* ----------------------------------------------- bpfgov + freq models */

/*
 * bpfgov, ideal (its pick is the state entered) and as actuated under a
 * kernel governor: the loader turns the pick into the PM QoS resume latency
 * limit (act_set_idle(): "n/a" for a polling pick, the pick's exit latency
 * for an intermediate one, the original value for the deepest) and, under
 * menu and teo, disables the states deeper than the pick (for a polling
 * pick only those that its "n/a" limit does not exclude) and, for a halting
 * pick, the polling states unless the pick leaves polling to the governor
 * (poll_ok: near timers are common); the governor then makes its own
 * choice under that limit. A pick shallower than the governor's is honoured (the limit
 * caps it); a deeper one only as far as polling goes (shallower halting
 * states stay enabled), and haltpoll and ladder ignore the disable knobs.
 * bpfgov's hooks see the state really entered.
 */
#define NR_VARIANTS	5
static const int variant_policy[NR_VARIANTS] = {
	RP_BPFGOV, RP_BPF_MENU, RP_BPF_TEO, RP_BPF_LADDER, RP_BPF_HALTPOLL,
};
static const int variant_gov[NR_VARIANTS] = { -1, REF_MENU, REF_TEO, REF_LADDER, REF_HALTPOLL };

struct bpf_variant {
	struct bpfgov_cpu_state s;
	struct ref_states rs;		/* the governor's view: stateK/disable */
	struct ref_idle gov;
};

struct cpu_run {
	struct bpf_variant v[NR_VARIANTS];
	struct floor_track ft[RP__MAX];
	struct floor_track desired;	/* hwp-passive: the HWP desired field */
	struct ref_freq rf[RP__MAX];
};

/* The limit act_set_idle() writes for @pick, as the governor reads it. */
static __s64 actuated_latency_req(const struct bpfgov_config *cfg, __u32 pick)
{
	__u32 lim;

	if (pick + 1 >= cfg->nr_states)
		return REF_NO_LATENCY_REQ;
	if (cfg->state_is_poll[pick])
		return 0;
	lim = cfg->state_exit_latency_us[pick];
	return (__s64)(lim ? lim : 1) * 1000;
}

/* One idle period of one bpfgov variant. */
static void bpf_idle_period(struct bpf_variant *v, int gov, const struct bpfgov_config *cfg,
			    const struct replay_opts *o, const struct judge *j,
			    const struct idle_entry *ie, __u64 now, __u64 ideal_poll_limit,
			    __u64 kernel_limit, struct replay_stats *st)
{
	struct bpfgov_cpu_state *s = &v->s;
	__u64 remaining = ie->sleep_ns, at = now, res, lat, cost, nt = entry_next_timer(ie, o);
	__u32 first = 0;

	for (int round = 0; round < 64; round++) {
		__u32 pick = s->idle_pick < j->n ? s->idle_pick : j->n - 1;
		__u64 limit = ideal_poll_limit;

		if (gov >= 0) {
			__u64 elapsed = ie->sleep_ns - remaining;
			int g;

			v->gov.latency_req_ns = actuated_latency_req(cfg, pick);
			for (__u32 k = 0; k < v->rs.n; k++)
				v->rs.disabled[k] = (gov == REF_MENU || gov == REF_TEO) &&
						    ((k > pick && !(j->poll[pick] &&
								    cfg->state_exit_latency_us[k])) ||
						     (k < pick && j->poll[k] && !j->poll[pick] &&
						      !s->poll_ok));
			g = ref_idle_select(&v->gov, nt > elapsed ? nt - elapsed : 0,
					    delta_tick(o, at));
			pick = (__u32)g < j->n ? (__u32)g : j->n - 1;
			limit = j->poll[pick] ? ref_idle_poll_limit(&v->gov) : 0;
			if (limit && kernel_limit)
				limit = kernel_limit;
		}
		/* What the BPF side reads at idle entry: the CPU's next timer. */
		s->next_timer_ns = at + (nt > ie->sleep_ns - remaining ? nt - (ie->sleep_ns - remaining) : 0);
		if (gov < 0)	/* the ideal pick: capped by the next timer */
			pick = pol_timer_cap(s, cfg, pick, s->next_timer_ns - at);
		count_decision(j, st, pick);
		if (!round)
			first = pick;
		pol_idle_enter(s, cfg, pick, at);
		if (j->poll[pick] && remaining > limit && round < 63) {
			/* poll_idle() time limit: the idle loop exits (no
			 * task to run: it goes on) and the hook runs again. */
			s->exit_goes_on = 1;
			pol_idle_exit(s, cfg, at + limit, &res, &lat);
			if (gov >= 0)
				ref_idle_reflect(&v->gov, (int)pick, limit, 1);
			st->poll_ns += limit;
			st->idle_ns += limit;
			at += limit;
			remaining -= limit;
			continue;
		}
		if (ie->remote)
			pol_wake_stamp(s, at + remaining);
		else if (ie->wake == TRACE_WAKE_TIMER ||
			 (ie->wake == TRACE_WAKE_UNKNOWN && ie->rec_timer_ns == TRACE_NO_TIMER))
			pol_timer_fire(s);	/* a timer ended it: cost from its expiry */
		cost = entry_cost(ie, j->cost[pick]);
		at += remaining + cost;
		pol_idle_exit(s, cfg, at, &res, &lat);
		if (gov >= 0)
			ref_idle_reflect(&v->gov, (int)pick, remaining + cost, 0);
		if (j->poll[pick])
			st->poll_ns += remaining + cost;
		st->idle_ns += remaining + cost;
		st->wakeups++;
		st->wake_lat_ns += cost;
		judge_period(j, &st->j, ie->sleep_ns, first, pick, ie->sleep_ns - remaining);
		break;
	}
	/* The idle half of the core ran on its own clock (entry + sleep +
	 * cost of its pick); the busy/floor half stays on the trace's clock,
	 * the same one the reference frequency models see. The two halves
	 * share no timestamps, so this is what the BPF side would compute
	 * minus the closed-loop shift of later work. */
}

/*
 * The floor judge over one CPU: how each policy's floor becomes a
 * frequency (floor_model.h). bpfgov writes HWP_REQUEST (or CPPC, or
 * scaling_min_freq) from the loader, on whichever CPU it runs: counted as
 * remote (an IPI) every time. The kernel's paths write from the CPU's own
 * scheduler hook. schedutil alone is the non-HWP driver: its target is the
 * frequency.
 */
static void floor_judge_cpu(int p, const struct cpu_run *c, const struct cpu_tl *ct,
			    const struct replay_opts *o, struct replay_stats *s)
{
	struct fm_policy pol = {
		.mode = FM_HWP,
		.scale = p == RP_BPFGOV ? FM_RANGE : FM_OF_MAX,
		.remote_writes = p == RP_BPFGOV,
		.floor = { c->ft[p].pt_t, c->ft[p].pt_v, c->ft[p].nr },
	};

	if (p == RP_SCHEDUTIL)
		pol.mode = FM_DIRECT;
	if (p == RP_HWP_PASSIVE) {
		pol.mode = FM_HWP_DESIRED;
		pol.desired = (struct fm_steps){ c->desired.pt_t, c->desired.pt_v, c->desired.nr };
	}
	s->fl = 1;
	fm_run(&o->fm, ct->seg, ct->nr_seg, &pol, &s->fa);
}

static int run_timeline(const struct timeline *tl,
			const struct replay_opts *o, const struct bpfgov_config *cfg,
			const struct judge *j, struct replay_result *r)
{
	struct cpu_run *cr;
	__u64 last_scan = 0, poll_limit;
	struct ref_states rs;
	__u32 nr_counted[RP__MAX] = { 0 };
	int ret = -ENOMEM, want_bpf = 0, want_v[NR_VARIANTS];

	ref_states_from(&rs, cfg, o->tick_ns);
	poll_limit = kernel_poll_limit(tl, o) ? kernel_poll_limit(tl, o) : ref_poll_time(&rs);
	for (int k = 0; k < NR_VARIANTS; k++) {
		want_v[k] = !!(o->policies & (1u << variant_policy[k]));
		want_bpf |= want_v[k];
	}
	cr = calloc(tl->nr_cpus, sizeof(*cr));
	if (!cr)
		return -ENOMEM;
	for (__u32 c = 0; c < tl->nr_cpus; c++) {
		for (int k = 0; k < NR_VARIANTS; k++) {
			pol_cpu_init(&cr[c].v[k].s, cfg);
			cr[c].v[k].rs = rs;
			if (variant_gov[k] >= 0)
				ref_idle_init(&cr[c].v[k].gov, variant_gov[k], &cr[c].v[k].rs, &o->hp);
		}
		for (int p = 0; p < RP__MAX; p++) {
			if (!(o->policies & (1u << p)) || !policy_is_freq(p))
				continue;
			if (ft_init(&cr[c].ft[p], tl->t0, p == RP_BPFGOV ? cr[c].v[0].s.floor : 0))
				goto out;
		}
		if (ft_init(&cr[c].desired, tl->t0, 0))
			goto out;
		ref_freq_init(&cr[c].rf[RP_SCHEDUTIL], o->sugov_rate_limit_us, 1, 1);
		ref_freq_init(&cr[c].rf[RP_HWP_34], o->hwp_rate_limit_us, 3, 4);
		ref_freq_init(&cr[c].rf[RP_HWP_78], o->hwp_rate_limit_us, 7, 8);
		ref_freq_init(&cr[c].rf[RP_HWP_1], o->hwp_rate_limit_us, 1, 1);
		ref_freq_init_passive(&cr[c].rf[RP_HWP_PASSIVE], o->hwp_rate_limit_us);
		/* No idle records: the idle loop's only trace is a busy end. */
		for (int p = RP_SCHEDUTIL; p < RP__MAX; p++)
			cr[c].rf[p].idle_from_busy_end = !tl->cpu[c].nr_idle;
	}
	for (int k = 0; k < NR_VARIANTS; k++) {
		r->p[variant_policy[k]].idle = want_v[k];
		r->p[variant_policy[k]].bpf = want_v[k];
	}
	r->p[RP_BPFGOV].freq = want_v[0];
	for (int p = RP_SCHEDUTIL; p < RP__MAX; p++)
		r->p[p].freq = !!(o->policies & (1u << p));
	r->p[RP_HWP_PASSIVE].passive = 1;

	for (size_t i = 0; i < tl->nr_ev; i++) {
		const struct tl_event *e = &tl->ev[i];
		struct cpu_run *c = &cr[e->cpu];
		struct bpfgov_cpu_state *s = &c->v[0].s;
		__u64 now = e->t;

		/* Reference frequency models: trace time, no idle states. */
		for (int p = RP_SCHEDUTIL; p < RP__MAX; p++) {
			struct ref_freq *f = &c->rf[p];
			int ch = 0;

			if (!(o->policies & (1u << p)) || p == RP_HWP_AUTO)
				continue;
			if (e->type == EV_BUSY_BEGIN)
				ch = ref_freq_busy_begin(f, e->t);
			else if (e->type == EV_BUSY_END)
				ch = ref_freq_busy_end(f, e->t);
			else if (e->type == EV_TICK)
				ch = ref_freq_tick(f, e->t);
			else if (e->type == EV_IDLE)
				/* The governors stop the tick for an idle
				 * expected to outlast it (menu/teo with a
				 * right prediction): the next timer. */
				ref_freq_idle(f, entry_next_timer(&tl->cpu[e->cpu].idle[e->idx], o) >=
						 o->tick_ns);
			if (ch && ft_set(&c->ft[p], e->t, ref_freq_floor(f)))
				goto out;
			if (f->perf_path && f->desired != c->desired.cur &&
			    ft_set(&c->desired, e->t, f->desired))
				goto out;
		}
		if (!want_bpf)
			continue;

		/* bpfgov: the hooks in the order the BPF programs run them. */
		/* Remote refresh rides on the tick hook (gov_on_tick). */
		if (want_v[0] && e->type == EV_TICK && cfg->remote_scan_us &&
		    now - last_scan >= (__u64)cfg->remote_scan_us * 1000) {
			last_scan = now;
			for (__u32 o2 = 0; o2 < tl->nr_cpus; o2++) {
				if (o2 == e->cpu)
					continue;
				if (pol_remote_refresh(&cr[o2].v[0].s, cfg, now) &&
				    ft_set(&cr[o2].ft[RP_BPFGOV], now, cr[o2].v[0].s.floor))
					goto out;
			}
		}
		for (int k = 0; k < NR_VARIANTS; k++) {
			struct bpfgov_cpu_state *vs = &c->v[k].s;

			if (!want_v[k])
				continue;
			switch (e->type) {
			case EV_BUSY_BEGIN:
				pol_busy_begin(vs, cfg, now);
				break;
			case EV_BUSY_END:
				pol_busy_end(vs, cfg, now);
				break;
			case EV_TICK:
				if (!o->no_tick && vs->busy)
					pol_tick(vs, cfg, now);
				break;
			case EV_IDLE:
				bpf_idle_period(&c->v[k], variant_gov[k], cfg, o, j,
						&tl->cpu[e->cpu].idle[e->idx], now, poll_limit,
						kernel_poll_limit(tl, o), &r->p[variant_policy[k]]);
				break;
			}
		}
		if (!want_v[0])
			continue;
		if (o->observe)
			o->observe(o->observe_ctx, e->cpu, now, s);
		if (s->floor != c->ft[RP_BPFGOV].cur && ft_set(&c->ft[RP_BPFGOV], now, s->floor))
			goto out;
	}

	for (__u32 ci = 0; ci < tl->nr_cpus; ci++) {
		if (!tl->cpu[ci].has_records)
			continue;
		for (int p = 0; p < RP__MAX; p++) {
			if (!(o->policies & (1u << p)) || !policy_is_freq(p))
				continue;
			floor_judge_cpu(p, &cr[ci], &tl->cpu[ci], o, &r->p[p]);
			ft_account(&cr[ci].ft[p], &tl->cpu[ci], tl, o, &r->p[p], &nr_counted[p]);
		}
		/* bpfgov's standing pick and poll_ok: each change a knob write */
		for (int k = 0; k < NR_VARIANTS; k++)
			r->p[variant_policy[k]].pick_changes += cr[ci].v[k].s.nr_pick_changes;
		if (o->policies & (1u << RP_HWP_PASSIVE)) {
			struct floor_track *d = &cr[ci].desired;

			if (tl->t1 > d->since)
				d->area += (double)d->cur * (double)(tl->t1 - d->since);
			if (tl->t1 > tl->t0)
				r->p[RP_HWP_PASSIVE].mean_desired += d->area / (double)(tl->t1 - tl->t0);
			r->p[RP_HWP_PASSIVE].request_writes += cr[ci].rf[RP_HWP_PASSIVE].desired_changes;
		}
	}
	for (int p = 0; p < RP__MAX; p++) {
		if (nr_counted[p]) {
			r->p[p].mean_floor /= nr_counted[p];
			r->p[p].mean_desired /= nr_counted[p];
		}
		if (r->duration_s > 0)
			r->p[p].request_writes_per_s = (double)r->p[p].request_writes / r->duration_s;
		if (r->duration_s > 0)
			r->p[p].changes_per_s = (double)r->p[p].floor_changes / r->duration_s;
		if (r->duration_s > 0 && tl->nr_cpus)
			r->p[p].pick_changes_per_cpu_s = (double)r->p[p].pick_changes /
							 r->duration_s / tl->nr_cpus;
	}
	ret = 0;
out:
	for (__u32 c = 0; c < tl->nr_cpus; c++)
		ft_free(&cr[c].desired);
	for (__u32 c = 0; c < tl->nr_cpus; c++)
		for (int p = 0; p < RP__MAX; p++)
			ft_free(&cr[c].ft[p]);
	free(cr);
	return ret;
}

/* The two axes of every idle policy, and each one's verdict against every
 * kernel reference model. */
static void judge_finish(const struct replay_opts *o, struct replay_result *r)
{
	for (int p = 0; p < RP__MAX; p++) {
		struct replay_stats *s = &r->p[p];

		if (!s->idle)
			continue;
		s->too_deep = s->j.too_deep;
		s->too_shallow = s->j.too_shallow;
		s->energy_pct = judge_energy_pct(&s->j, r->span_ns);
		s->energy_dist_pct = judge_energy_dist_pct(&s->j, r->span_ns);
		s->latency_dist_us = judge_latency_dist_us(&s->j);
		r->oracle_energy_pct = judge_oracle_energy_pct(&s->j, r->span_ns);
		r->oracle_latency_us = s->j.periods ? s->j.oracle_lat_ns / 1e3 / s->j.periods : 0;
	}
	r->fl_f_eff_mhz = fm_f_eff(&o->fm);
	for (int p = 0; p < RP__MAX; p++) {
		struct replay_stats *s = &r->p[p];

		s->fl_energy_pct = fm_energy_dist_pct(&s->fa);
		s->fl_delay_us = fm_delay_us(&s->fa);
		s->fl_slow_pct = fm_slow_pct(&s->fa);
		/* every floor policy runs the same segments: one oracle */
		if (s->fl && !r->fl_oracle_busy_us)
			r->fl_oracle_busy_us = fm_oracle_busy_us(&s->fa);
	}
	/* Both bands relative to the oracle by default: the energy band is a
	 * share of its energy, the delay band the same share of its busy
	 * time per segment. */
	r->fl_tie_delay_us = o->fl_tie_delay_us >= 0 ? o->fl_tie_delay_us
			     : o->fl_tie_energy_pct / 100.0 * r->fl_oracle_busy_us;
	for (int p = 0; p < RP__MAX; p++) {
		for (int q = 0; q < RP__MAX; q++) {
			r->p[p].fl_verdict[q] = -1;
			if (!r->p[p].fl || !r->p[q].fl || p == q || !replay_policy_is_floor_ref(q))
				continue;
			r->p[p].fl_verdict[q] = judge_verdict(r->p[p].fl_energy_pct, r->p[p].fl_delay_us,
							      r->p[q].fl_energy_pct, r->p[q].fl_delay_us,
							      o->fl_tie_energy_pct, r->fl_tie_delay_us);
		}
	}
	for (int p = 0; p < RP__MAX; p++) {
		for (int q = 0; q < RP__MAX; q++) {
			r->p[p].verdict[q] = -1;
			if (!r->p[p].idle || !r->p[q].idle || p == q || !replay_policy_is_kernel_ref(q))
				continue;
			r->p[p].verdict[q] = judge_verdict(r->p[p].energy_dist_pct,
							   r->p[p].latency_dist_us,
							   r->p[q].energy_dist_pct,
							   r->p[q].latency_dist_us,
							   o->tie_energy_pct, o->tie_latency_us);
		}
	}
}

int replay_run(const struct trace *t, const struct replay_opts *o, struct replay_result *r,
	       char *err, size_t errlen)
{
	struct bpfgov_config cfg = o->cfg;
	struct timeline tl;
	struct ref_states rs;
	struct judge j;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!t->nr_states || !t->nr_cpus) {
		snprintf(err, errlen, "trace has no CPUs or no idle states");
		return -EINVAL;
	}
	if (!o->tick_ns) {
		snprintf(err, errlen, "tick period must not be 0");
		return -EINVAL;
	}
	/* The policies see the traced machine's idle-state table. */
	cfg.nr_states = t->nr_states;
	cfg.tick_us = (__u32)(o->tick_ns / 1000);	/* the kernel's poll limit derives from it */
	/* The platform's efficient level, as the loader reads it from the
	 * part's capabilities: here the platform model's f_eff. */
	if (!o->floor_eff_given)
		cfg.floor_eff = fm_eff_level(&o->fm);
	for (__u32 k = 0; k < BPFGOV_MAX_STATES; k++) {
		int in = k < t->nr_states;

		cfg.state_exit_latency_us[k] = in ? t->states[k].exit_latency_us : 0;
		cfg.state_residency_us[k] = in ? t->states[k].residency_us : 0;
		cfg.state_is_poll[k] = in ? t->states[k].is_poll : 0;
	}
	r->nr_cpus = t->nr_cpus;
	r->nr_recs = t->nr;
	for (size_t i = 0; i < t->nr; i++) {
		r->nr_idle += t->recs[i].kind == BPFGOV_EV_IDLE_EXIT;
		r->nr_busy += t->recs[i].kind == BPFGOV_EV_BUSY;
		r->nr_wake += t->recs[i].kind == BPFGOV_EV_WAKE_LAT;
	}
	derive_costs(t, r);
	ret = tl_build(t, o, r, &tl);
	if (ret) {
		snprintf(err, errlen, "out of memory building the timeline");
		return ret;
	}
	r->nr_limit_polls = tl.nr_limit;
	r->poll_limit_ns = kernel_poll_limit(&tl, o);
	r->poll_limit_from = o->poll_limit_ns ? 2 : tl.poll_limit_ns ? 1 : 0;
	r->duration_s = tl.t1 > tl.t0 ? (double)(tl.t1 - tl.t0) / 1e9 : 0;
	r->span_ns = tl.t1 > tl.t0 ? tl.t1 - tl.t0 : 0;
	ret = power_model_build(&r->pm, o->power_model, t, err, errlen);
	if (ret) {
		tl_free(&tl);
		return ret;
	}
	judge_init(&j, t, r->cost_ns, o->judge_pct, &r->pm);
	ref_states_from(&rs, &cfg, o->tick_ns);
	for (int p = RP_MENU; p <= RP_HALTPOLL; p++)
		if (o->policies & (1u << p))
			run_ref_idle(p, &tl, o, &j, &rs, &r->p[p]);
	ret = run_timeline(&tl, o, &cfg, &j, r);
	if (ret)
		snprintf(err, errlen, "out of memory during replay");
	else
		judge_finish(o, r);
	tl_free(&tl);
	return ret;
}

/* ----------------------------------------------------------------- CLI */

static void replay_usage(FILE *out)
{
	fprintf(out,
		"Usage: govlab replay FILE [options]\n"
		"Run bpfgov's policy core and reference models of the kernel's governors over a\n"
		"trace (docs/trace-format.md) and print one table, policies as columns.\n"
		"  -p, --policy P      only these policies (repeat or comma-separate): bpfgov\n"
		"                      (ideal: its pick, capped by the next timer, is the state\n"
		"                      entered; nothing live does that), menu, teo, ladder,\n"
		"                      ladder-balanced, haltpoll, bpfgov@menu,\n"
		"                      bpfgov@teo, bpfgov@ladder, bpfgov@haltpoll (bpfgov as\n"
		"                      actuated under that governor), schedutil, hwp-3/4, hwp-7/8,\n"
		"                      hwp-1 (linux-pm proposals), hwp-passive (the kernel's HWP\n"
		"                      passive path), hwp-auto (the hardware alone, no floor);\n"
		"                      'idle' and 'freq' select groups\n"
		"  --profile NAME      bpfgov's tunables from a profile first (powersave, balanced,\n"
		"                      performance); --set goes over it\n"
		"  -s, --set KNOB=VALUE  bpfgov tunable (see 'govloader status'), repeatable\n"
		"  -j, --json          JSON instead of the table\n"
		"  --tick-us N         scheduler tick period (default 4000, HZ=250)\n"
		"  --timer-us N        next timer assumed for wakeups from another CPU (default 4000)\n"
		"  --rate-limit-us N   schedutil rate_limit_us (default 2000)\n"
		"  --hwp-rate-limit-us N  HWP passive transition delay (default 5000)\n"
		"  --haltpoll-ns N     haltpoll guest_halt_poll_ns (default 200000; a KVM guest's\n"
		"                      haltpoll often runs with 0: the window never opens)\n"
		"  --poll-limit-us N   the kernel's poll time limit (default: the median of the\n"
		"                      trace's polls that ran into it, else cpuidle_poll_time()'s\n"
		"                      formula from the tick and the state table)\n"
		"  --power-model S     the judge's power model: STATE=FRACTION[,...] (STATE an index\n"
		"                      or name, FRACTION of full power in [0, 1]); polling is 1;\n"
		"                      default: first non-polling state 0.3, each deeper one half\n"
		"  --judge-pct N       the oracle's states pay back no sooner than wake-up cost x N%%\n"
		"                      (100)\n"
		"  --tie-energy-pct X  verdicts: energy distances within X %% of a CPU tie (0.1)\n"
		"  --tie-latency-us X  verdicts: latency distances within X us/idle tie (0.5)\n"
		"  --platform S        the floor judge's platform and power model, KEY=VALUE[,...]:\n"
		"                      f_lo_mhz, f_max_mhz, v_min, v_max (V at f_lo and f_max),\n"
		"                      static (static power, part of the dynamic power at f_max),\n"
		"                      hw_tau_us, hw_target (the hardware's own level: activity\n"
		"                      window, activity at which it runs at max), lock_gap_lo_us,\n"
		"                      lock_gap_hi_us, lock_busy_us, lock_ms, lock_pct, seed (the\n"
		"                      lock to the lowest level after a short gap), write_local_us,\n"
		"                      write_remote_us (cost of a floor write), step_us; defaults\n"
		"                      in docs/DESIGN.md, \"The floor judge\"\n"
		"  --floor-tie-energy-pct X  floor verdicts: energy within X %% of the oracle's ties (0.5)\n"
		"  --floor-tie-delay-us X    floor verdicts: delay within X us/busy segment ties\n"
		"                      (default: the energy band's share of the oracle's busy\n"
		"                      time per segment)\n"
		"  --no-tick           do not feed bpfgov's tick hook\n"
		"  -h, --help          this text\n");
}

static int add_policies(__u32 *mask, char *arg)
{
	char *save = NULL;

	for (char *p = strtok_r(arg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int id;

		if (!strcmp(p, "all")) {
			*mask |= RP_ALL;
			continue;
		}
		if (!strcmp(p, "idle")) {
			for (id = 0; id < RP__MAX; id++)
				if (policy_is_idle(id))
					*mask |= 1u << id;
			continue;
		}
		if (!strcmp(p, "freq")) {
			for (id = 0; id < RP__MAX; id++)
				if (policy_is_freq(id))
					*mask |= 1u << id;
			continue;
		}
		id = replay_policy_parse(p);
		if (id < 0) {
			pr_warn("replay: unknown policy '%s' (bpfgov, menu, teo, ladder, ladder-balanced, haltpoll, bpfgov@menu, bpfgov@teo, bpfgov@ladder, bpfgov@haltpoll, schedutil, hwp-3/4, hwp-7/8, hwp-1, hwp-passive, hwp-auto)\n",
				p);
			return -EINVAL;
		}
		*mask |= 1u << id;
	}
	return 0;
}

int do_replay(int argc, char **argv)
{
	enum { O_TICK = 256, O_TIMER, O_RL, O_HWPRL, O_HP, O_JUDGE, O_NOTICK, O_POWER, O_TIE_E,
	       O_TIE_L, O_PROFILE, O_PLATFORM, O_FL_TIE_E, O_FL_TIE_L, O_POLL_LIMIT };
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "tick-us", required_argument, NULL, O_TICK },
		{ "timer-us", required_argument, NULL, O_TIMER },
		{ "rate-limit-us", required_argument, NULL, O_RL },
		{ "hwp-rate-limit-us", required_argument, NULL, O_HWPRL },
		{ "haltpoll-ns", required_argument, NULL, O_HP },
		{ "judge-pct", required_argument, NULL, O_JUDGE },
		{ "no-tick", no_argument, NULL, O_NOTICK },
		{ "power-model", required_argument, NULL, O_POWER },
		{ "tie-energy-pct", required_argument, NULL, O_TIE_E },
		{ "tie-latency-us", required_argument, NULL, O_TIE_L },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "platform", required_argument, NULL, O_PLATFORM },
		{ "floor-tie-energy-pct", required_argument, NULL, O_FL_TIE_E },
		{ "floor-tie-delay-us", required_argument, NULL, O_FL_TIE_L },
		{ "poll-limit-us", required_argument, NULL, O_POLL_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cfg_profile *profile = NULL;
	struct replay_opts o;
	struct replay_result *r = NULL;
	struct trace t;
	char **sets = NULL, msg[512];
	const char *file;
	__u32 mask = 0, v;
	int c, nsets = 0, json = 0, ret;

	replay_opts_default(&o);
	trace_init(&t);
	sets = calloc(argc > 0 ? argc : 1, sizeof(*sets));
	if (!sets)
		return 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:s:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (add_policies(&mask, optarg)) {
				ret = 2;
				goto out;
			}
			break;
		case 's':
			sets[nsets++] = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			replay_usage(stdout);
			ret = 0;
			goto out;
		case O_TICK:
		case O_TIMER:
		case O_RL:
		case O_HWPRL:
		case O_HP:
		case O_JUDGE:
			if (parse_u32(optarg, c == O_TICK ? 100 : c == O_JUDGE ? 1 : 0,
				      c == O_JUDGE ? 10000 : 1000000000, &v)) {
				pr_warn("replay: bad value '%s' for --%s\n", optarg,
					opts[c - O_TICK + 3].name);
				ret = 2;
				goto out;
			}
			if (c == O_TICK)
				o.tick_ns = (__u64)v * 1000;
			else if (c == O_TIMER)
				o.timer_ns = (__u64)v * 1000;
			else if (c == O_RL)
				o.sugov_rate_limit_us = v;
			else if (c == O_HWPRL)
				o.hwp_rate_limit_us = v;
			else if (c == O_HP)
				o.hp.guest_halt_poll_ns = v;
			else
				o.judge_pct = v;
			break;
		case O_NOTICK:
			o.no_tick = 1;
			break;
		case O_POLL_LIMIT:
			if (parse_u32(optarg, 1, 1000000, &v)) {
				pr_warn("replay: bad value '%s' for --poll-limit-us (1..1000000)\n",
					optarg);
				ret = 2;
				goto out;
			}
			o.poll_limit_ns = (__u64)v * 1000;
			break;
		case O_PROFILE:
			profile = cfg_profile_find(optarg);
			if (!profile) {
				pr_warn("replay: '%s': unknown profile (powersave, balanced, performance)\n",
					optarg);
				ret = 2;
				goto out;
			}
			break;
		case O_POWER:
			if (power_model_check(optarg, msg, sizeof(msg))) {
				pr_warn("replay: %s\n", msg);
				ret = 2;
				goto out;
			}
			o.power_model = optarg;
			break;
		case O_PLATFORM:
			if (fm_params_parse(&o.fm, optarg, msg, sizeof(msg))) {
				pr_warn("replay: %s\n", msg);
				ret = 2;
				goto out;
			}
			break;
		case O_TIE_E:
		case O_TIE_L:
		case O_FL_TIE_E:
		case O_FL_TIE_L: {
			static const char *const names[] = { "tie-energy-pct", "tie-latency-us",
							     "floor-tie-energy-pct",
							     "floor-tie-delay-us" };
			int which = c == O_TIE_E ? 0 : c == O_TIE_L ? 1 : c == O_FL_TIE_E ? 2 : 3;
			double *dst[] = { &o.tie_energy_pct, &o.tie_latency_us, &o.fl_tie_energy_pct,
					  &o.fl_tie_delay_us };
			char *end;
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d >= 0 && d <= 1e6)) {
				pr_warn("replay: bad value '%s' for --%s\n", optarg, names[which]);
				ret = 2;
				goto out;
			}
			*dst[which] = d;
			break;
		}
		default:
			pr_warn("replay: unknown or incomplete option '%s' (see --help)\n",
				argv[optind - 1]);
			ret = 2;
			goto out;
		}
	}
	if (optind != argc - 1) {
		pr_warn("replay: need exactly one trace FILE (see --help)\n");
		ret = 2;
		goto out;
	}
	file = argv[optind];
	if (mask)
		o.policies = mask;
	for (int i = 0; profile && profile->kv[i]; i++) {
		if (tunable_set_kv(&o.cfg, profile->kv[i], msg, sizeof(msg))) {
			pr_warn("replay: profile %s: %s\n", profile->name, msg);
			ret = 1;
			goto out;
		}
	}
	for (int i = 0; i < nsets; i++) {
		if (tunable_set_kv(&o.cfg, sets[i], msg, sizeof(msg))) {
			pr_warn("replay: --set %s\n", msg);
			ret = 2;
			goto out;
		}
		if (!strncmp(sets[i], "floor_eff=", 10))
			o.floor_eff_given = 1;
	}
	if (tunable_check(&o.cfg, msg, sizeof(msg))) {
		pr_warn("replay: %s\n", msg);
		ret = 2;
		goto out;
	}
	ret = trace_load(file, &t, msg, sizeof(msg));
	if (ret) {
		pr_warn("%s\n", msg);
		ret = 1;
		goto out;
	}
	if (o.power_model) {
		struct power_model pm;

		if (power_model_build(&pm, o.power_model, &t, msg, sizeof(msg))) {
			pr_warn("replay: %s\n", msg);
			ret = 2;
			goto out;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r || replay_run(&t, &o, r, msg, sizeof(msg))) {
		pr_warn("replay: %s\n", r ? msg : "out of memory");
		ret = 1;
		goto out;
	}
	if (json)
		replay_print_json(stdout, file, &t, &o, r);
	else
		replay_print_table(stdout, file, &t, &o, r);
	ret = fflush(stdout) ? 1 : 0;
out:
	free(r);
	free(sets);
	trace_free(&t);
	return ret;
}
