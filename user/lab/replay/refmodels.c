// SPDX-License-Identifier: GPL-2.0
/*
 * Reference governor models for replay. Each function names the kernel
 * function whose documented behaviour it follows; constants are the
 * kernel's. Simplifications (the trace knows no timers, no PM QoS, no
 * tick-stop decisions) are listed in docs/trace-format.md.
 */
#include <math.h>
#include <string.h>
#include "refmodels.h"

#define S64_MAX_		((__s64)0x7fffffffffffffffll)
#define U32_MAX_		0xffffffffu
#define MENU_RESOLUTION		1024u
#define MENU_DECAY		8u
#define MENU_MAX_INTERESTING	(50000ull * REF_NSEC_PER_USEC)
#define TEO_PULSE		1024u
#define TEO_DECAY_SHIFT		3
#define POLL_MIN_NS		10000ull	/* CPUIDLE_POLL_MIN */
#define REF_LATENCY_THRESHOLD_NS (REF_RESIDENCY_THRESHOLD_NS / 2)	/* teo.c */
#define PELT_PERIOD_NS		1024000.0	/* one PELT period, 1024 us */
#define PELT_HALFLIFE		32.0		/* y^32 = 0.5 */
#define UTIL_EST_MARGIN		(1024.0 / 100)

void ref_states_from(struct ref_states *rs, const struct bpfgov_config *c, __u64 tick_ns)
{
	memset(rs, 0, sizeof(*rs));
	rs->n = c->nr_states ? c->nr_states : 1;
	if (rs->n > BPFGOV_MAX_STATES)
		rs->n = BPFGOV_MAX_STATES;
	for (__u32 k = 0; k < rs->n; k++) {
		rs->exit_ns[k] = (__u64)c->state_exit_latency_us[k] * REF_NSEC_PER_USEC;
		rs->res_ns[k] = (__u64)c->state_residency_us[k] * REF_NSEC_PER_USEC;
		rs->poll[k] = !!c->state_is_poll[k];
	}
	rs->tick_ns = tick_ns ? tick_ns : REF_TICK_NS_DEFAULT;
}

/* cpuidle_poll_time() (drivers/cpuidle/cpuidle.c): poll up to the target
 * residency of the first enabled non-polling state that has one of at
 * least CPUIDLE_POLL_MIN (10 us), capped at CPUIDLE_POLL_MAX = TICK_NSEC/16;
 * with no such state, CPUIDLE_POLL_MAX. */
__u64 ref_poll_time(const struct ref_states *st)
{
	__u64 max = st->tick_ns / 16;

	for (__u32 i = 1; i < st->n; i++) {
		if (st->disabled[i] || st->res_ns[i] < POLL_MIN_NS)
			continue;
		return st->res_ns[i] < max ? st->res_ns[i] : max;
	}
	return max;
}

/* poll_idle() (drivers/cpuidle/poll_state.c) polls for
 * cpuidle_poll_time(), which returns dev->poll_limit_ns when set and
 * otherwise computes it and caches it there: under haltpoll that cache is
 * the governor's window, so a poll forced on a closed window opens it. */
__u64 ref_idle_poll_limit(struct ref_idle *m)
{
	if (m->kind == REF_HALTPOLL) {
		if (!m->poll_limit_ns)
			m->poll_limit_ns = ref_poll_time(m->st);
		return m->poll_limit_ns;
	}
	return ref_poll_time(m->st);
}

void ref_idle_init(struct ref_idle *m, int kind, const struct ref_states *st,
		   const struct ref_haltpoll_params *hp)
{
	int first;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->st = st;
	m->last_state_idx = -1;
	m->latency_req_ns = REF_NO_LATENCY_REQ;
	switch (kind) {
	case REF_MENU:
		/* menu_enable_device(): unity correction factors */
		for (int i = 0; i < REF_MENU_BUCKETS; i++)
			m->menu.correction_factor[i] = MENU_RESOLUTION * MENU_DECAY;
		break;
	case REF_TEO:
		break;
	case REF_LADDER:
	case REF_LADDER_BAL:
		/* ladder_enable_device(): thresholds are the state's own exit
		 * latency; a polling state 0 is never on the ladder. */
		first = st->poll[0] ? 1 : 0;
		if (first >= (int)st->n)
			first = 0;
		m->last_state_idx = first;
		for (__u32 i = first; i < st->n; i++) {
			m->ladder.st[i].promotion_count = kind == REF_LADDER ? REF_LADDER_PROMOTION
									     : REF_LADDER_BAL_COUNT;
			m->ladder.st[i].demotion_count = kind == REF_LADDER ? REF_LADDER_DEMOTION
									    : REF_LADDER_BAL_COUNT;
			if (i < st->n - 1)
				m->ladder.st[i].promotion_ns = st->exit_ns[i];
			if ((int)i > first)
				m->ladder.st[i].demotion_ns = st->exit_ns[i];
		}
		break;
	case REF_HALTPOLL:
		if (hp) {
			m->hp.p = *hp;
		} else {
			m->hp.p.guest_halt_poll_ns = 200000;
			m->hp.p.grow = 2;
			m->hp.p.shrink = 2;
			m->hp.p.grow_start_ns = 50000;
			m->hp.p.allow_shrink = 1;
		}
		m->poll_limit_ns = 0;
		break;
	}
}

/* ---------------------------------------------------------------- menu */

static __u32 menu_bucket(__u64 ns)
{
	if (ns < 10ull * REF_NSEC_PER_USEC)
		return 0;
	if (ns < 100ull * REF_NSEC_PER_USEC)
		return 1;
	if (ns < 1000ull * REF_NSEC_PER_USEC)
		return 2;
	if (ns < 10000ull * REF_NSEC_PER_USEC)
		return 3;
	if (ns < 100000ull * REF_NSEC_PER_USEC)
		return 4;
	return 5;
}

static void menu_push_interval(struct ref_idle *m, __u32 us)
{
	m->menu.intervals[m->menu.interval_ptr++] = us;
	if (m->menu.interval_ptr >= REF_MENU_INTERVALS)
		m->menu.interval_ptr = 0;
}

/* get_typical_interval(): average of the last 8 idle durations when their
 * spread is small, discarding outliers down to 3/4 of the samples. */
static __u32 menu_typical_interval(const struct ref_idle *m)
{
	__s64 min_thresh = -1, max_thresh = U32_MAX_;
	__u32 max, min, divisor;
	__u64 avg, variance, avg_sq;

	for (;;) {
		max = 0;
		min = U32_MAX_;
		avg = variance = 0;
		divisor = 0;
		for (int i = 0; i < REF_MENU_INTERVALS; i++) {
			__s64 v = m->menu.intervals[i];

			if (v <= min_thresh || v >= max_thresh)
				continue;
			divisor++;
			avg += (__u64)v;
			variance += (__u64)v * (__u64)v;
			if ((__u32)v > max)
				max = (__u32)v;
			if ((__u32)v < min)
				min = (__u32)v;
		}
		if (!max)
			return U32_MAX_;
		avg /= divisor;
		variance /= divisor;
		avg_sq = avg * avg;
		variance -= avg_sq;
		if (variance <= ~0ull / 36) {
			if ((avg_sq > variance * 36 && divisor * 4 >= REF_MENU_INTERVALS * 3) ||
			    variance <= 400)
				return (__u32)avg;
		}
		if (divisor * 4 <= REF_MENU_INTERVALS * 3)
			return U32_MAX_;
		if (avg - min > max - avg)
			min_thresh = min;
		else
			max_thresh = max;
	}
}

/* menu_update(): learn the correction factor and the interval history. */
static void menu_update(struct ref_idle *m)
{
	const struct ref_states *st = m->st;
	int last = m->last_state_idx < 0 ? 0 : m->last_state_idx;
	__u64 measured, lat = st->exit_ns[last];
	__u32 f;

	if (st->poll[last] && m->poll_time_limit) {
		measured = m->menu.next_timer_ns;
	} else {
		measured = m->last_residency_ns;
		if (measured > 2 * lat)
			measured -= lat;
		else
			measured /= 2;
	}
	if (measured > m->menu.next_timer_ns)
		measured = m->menu.next_timer_ns;
	f = m->menu.correction_factor[m->menu.bucket];
	f -= f / MENU_DECAY;
	if (m->menu.next_timer_ns > 0 && measured < MENU_MAX_INTERESTING)
		f += (__u32)(MENU_RESOLUTION * measured / m->menu.next_timer_ns);
	else
		f += MENU_RESOLUTION;
	m->menu.correction_factor[m->menu.bucket] = f;
	menu_push_interval(m, measured / REF_NSEC_PER_USEC > U32_MAX_ ? U32_MAX_
					: (__u32)(measured / REF_NSEC_PER_USEC));
}

/* menu_select() (drivers/cpuidle/governors/menu.c) with the tick not
 * stopped. */
static int menu_select(struct ref_idle *m, __u64 next_timer, __u64 delta_tick)
{
	const struct ref_states *st = m->st;
	__u64 predicted, tick = st->tick_ns;
	__s64 latency_req = m->latency_req_ns;
	int idx = -1;

	if (m->menu.needs_update) {
		menu_update(m);
		m->menu.needs_update = 0;
	} else if (!m->last_residency_ns) {
		menu_push_interval(m, U32_MAX_);
	}
	predicted = (__u64)menu_typical_interval(m) * REF_NSEC_PER_USEC;
	if (predicted > REF_RESIDENCY_THRESHOLD_NS) {
		__u64 timer_us;

		m->menu.next_timer_ns = next_timer;
		m->menu.bucket = menu_bucket(next_timer);
		timer_us = ((__u64)MENU_RESOLUTION * MENU_DECAY * REF_NSEC_PER_USEC / 2 +
			    (double)next_timer * m->menu.correction_factor[m->menu.bucket]) /
			   ((__u64)MENU_RESOLUTION * MENU_DECAY * REF_NSEC_PER_USEC);
		if (timer_us * REF_NSEC_PER_USEC < predicted)
			predicted = timer_us * REF_NSEC_PER_USEC;
	} else {
		/* Next timer not looked up: assume it is far away and the
		 * tick comes after half a period. */
		m->menu.next_timer_ns = ~0ull >> 1;
		delta_tick = tick / 2;
		m->menu.bucket = REF_MENU_BUCKETS - 1;
	}
	if (st->n <= 1 || latency_req == 0 ||
	    ((m->menu.next_timer_ns < st->res_ns[1] || latency_req < (__s64)st->exit_ns[1]) &&
	     !st->disabled[0]))
		return 0;
	for (__u32 i = 0; i < st->n; i++) {
		if (st->disabled[i])
			continue;
		if (idx == -1)
			idx = i;
		if ((__s64)st->exit_ns[i] > latency_req)
			break;
		if (st->res_ns[i] <= predicted) {
			idx = i;
			continue;
		}
		/* A physical state instead of polling when it is cheap and
		 * the next timer is not imminent. */
		if (st->poll[idx] && st->res_ns[i] < REF_RESIDENCY_THRESHOLD_NS &&
		    st->res_ns[i] <= m->menu.next_timer_ns && st->exit_ns[i] <= predicted) {
			predicted = st->res_ns[i];
			idx = i;
			break;
		}
		if (predicted < tick)
			break;
		/* tick not stopped: retain it, stay shallow */
		predicted = st->res_ns[idx];
		break;
	}
	if (idx == -1)
		idx = 0;
	if ((st->poll[idx] || predicted < tick) && idx > 0 && st->res_ns[idx] > delta_tick) {
		for (int i = idx - 1; i >= 0; i--) {
			if (st->disabled[i])
				continue;
			idx = i;
			if (st->res_ns[i] <= delta_tick)
				break;
		}
	}
	return idx;
}

/* ----------------------------------------------------------------- teo */

static void teo_decay(__u32 *v)
{
	__u32 d = *v >> TEO_DECAY_SHIFT;

	*v = d ? *v - d : 0;
}

/* teo_update(): classify the last wakeup as a hit or an intercept. */
static void teo_update(struct ref_idle *m)
{
	const struct ref_states *st = m->st;
	__s64 lat = (__s64)st->exit_ns[m->last_state_idx], measured, tick = (__s64)st->tick_ns;
	__u32 total = 0;
	int idx_timer = 0, idx_duration = 0;

	teo_decay(&m->teo.short_idles);
	if (m->poll_time_limit) {
		m->poll_time_limit = 0;
		measured = S64_MAX_;
	} else {
		measured = (__s64)m->last_residency_ns;
		if (measured >= lat) {
			measured -= lat / 2;
			if (measured < (__s64)REF_RESIDENCY_THRESHOLD_NS)
				m->teo.short_idles += TEO_PULSE;
		} else {
			measured /= 2;
			m->teo.short_idles += TEO_PULSE;
		}
	}
	for (__u32 i = 0; i < st->n; i++) {
		teo_decay(&m->teo.bins[i].hits);
		total += m->teo.bins[i].hits;
		teo_decay(&m->teo.bins[i].intercepts);
		total += m->teo.bins[i].intercepts;
		if ((__s64)st->res_ns[i] <= m->teo.sleep_length_ns) {
			idx_timer = i;
			if ((__s64)st->res_ns[i] <= measured)
				idx_duration = i;
		}
	}
	m->teo.total = total + TEO_PULSE;
	teo_decay(&m->teo.tick_intercepts);
	teo_decay(&m->teo.total_tick);
	/* No tick wakeups in a trace (tick_wakeup is always false). */
	if (idx_timer == idx_duration && m->teo.sleep_length_ns - measured < lat / 2) {
		m->teo.bins[idx_timer].hits += TEO_PULSE;
	} else {
		m->teo.bins[idx_duration].intercepts += TEO_PULSE;
		if (measured <= tick)
			m->teo.tick_intercepts += TEO_PULSE;
	}
}

/* teo_find_shallower_state() */
static int teo_find_shallower(const struct ref_states *st, int idx, __s64 duration)
{
	for (int i = idx - 1; i >= 0; i--) {
		if (st->disabled[i])
			continue;
		idx = i;
		if ((__s64)st->res_ns[i] <= duration)
			break;
	}
	return idx;
}

/* teo_select() (drivers/cpuidle/governors/teo.c) with the tick not
 * stopped. */
static int teo_select(struct ref_idle *m, __u64 next_timer, __u64 real_delta_tick)
{
	const struct ref_states *st = m->st;
	__u32 idx_intercept_sum = 0, intercept_sum = 0, intercept_max = 0;
	__u32 idx_hit_sum = 0, hit_sum = 0;
	int intercept_max_idx = -1, constraint_idx = 0, idx0 = 0, idx = -1;
	__s64 duration, tick = (__s64)st->tick_ns, latency_req = m->latency_req_ns;
	/* delta_tick is TICK_NSEC / 2 until the sleep length is looked up */
	__u64 delta_tick = st->tick_ns / 2;

	if (m->last_state_idx >= 0) {
		teo_update(m);
		m->last_state_idx = -1;
	}
	m->teo.sleep_length_ns = S64_MAX_;
	if (!st->disabled[0])
		idx = 0;
	for (__u32 i = 1; i < st->n; i++) {
		__u32 prev_int = m->teo.bins[i - 1].intercepts;

		hit_sum += m->teo.bins[i - 1].hits;
		intercept_sum += prev_int;
		if (prev_int >= intercept_max) {
			intercept_max = prev_int;
			intercept_max_idx = i - 1;
		}
		if (st->disabled[i])
			continue;
		if (idx < 0)
			idx0 = i;
		idx = i;
		if ((__s64)st->exit_ns[i] <= latency_req)
			constraint_idx = i;
		idx_intercept_sum = intercept_sum;
		idx_hit_sum = hit_sum;
	}
	if (idx < 0)
		return 0;
	if (idx == idx0) {
		duration = (__s64)st->res_ns[idx];
		goto end;
	}
	if (2 * idx_intercept_sum > m->teo.total - idx_hit_sum) {
		intercept_sum = 0;
		for (int i = idx - 1; i >= idx0; i--) {
			intercept_sum += m->teo.bins[i].intercepts;
			if (st->disabled[i])
				continue;
			idx = i;
			if (2 * intercept_sum > idx_intercept_sum && i <= intercept_max_idx)
				break;
		}
	}
	if (idx > constraint_idx)
		idx = constraint_idx;
	/* Mostly short idles (or a tight latency limit): skip the sleep
	 * length lookup. */
	if ((!idx || st->res_ns[idx] < REF_RESIDENCY_THRESHOLD_NS) &&
	    (2 * m->teo.short_idles >= m->teo.total ||
	     latency_req < (__s64)REF_LATENCY_THRESHOLD_NS))
		return idx;
	duration = (__s64)(next_timer > (__u64)S64_MAX_ ? (__u64)S64_MAX_ : next_timer);
	delta_tick = real_delta_tick;
	m->teo.sleep_length_ns = duration;
	if (!idx)
		return idx;
	if ((__s64)st->res_ns[idx] > duration)
		idx = teo_find_shallower(st, idx, duration);
	if ((__s64)st->res_ns[idx] < tick && 3 * m->teo.tick_intercepts >= 2 * m->teo.total)
		duration = tick / 2;
end:
	if (!st->poll[idx] && duration >= tick)
		return idx;
	if (idx > idx0 && st->res_ns[idx] > delta_tick)
		idx = teo_find_shallower(st, idx, (__s64)delta_tick);
	return idx;
}

/* -------------------------------------------------------------- ladder */

/* ladder_select_state() (drivers/cpuidle/governors/ladder.c): step one
 * state deeper after promotion_count residencies longer than the state's
 * exit latency, one shallower after demotion_count residencies shorter
 * than it; a latency limit of 0 selects state 0, a tighter one demotes.
 * ladder_do_selection() is the assignment to last_state_idx. */
static int ladder_select(struct ref_idle *m)
{
	const struct ref_states *st = m->st;
	int first = st->poll[0] && st->n > 1 ? 1 : 0, last = m->last_state_idx;
	__s64 last_res, latency_req = m->latency_req_ns;

	if (last < 0)
		last = first;
	if (latency_req == 0) {
		m->ladder.st[last].promo = m->ladder.st[last].demo = 0;
		m->last_state_idx = 0;
		return 0;
	}
	last_res = (__s64)m->last_residency_ns - (__s64)st->exit_ns[last];
	if (last < (int)st->n - 1 && !st->disabled[last + 1] &&
	    last_res > (__s64)m->ladder.st[last].promotion_ns &&
	    (__s64)st->exit_ns[last + 1] <= latency_req) {
		m->ladder.st[last].promo++;
		m->ladder.st[last].demo = 0;
		if ((__u32)m->ladder.st[last].promo >= m->ladder.st[last].promotion_count) {
			m->ladder.st[last].promo = m->ladder.st[last].demo = 0;
			m->last_state_idx = last + 1;
			return last + 1;
		}
	}
	if (last > first && (st->disabled[last] || (__s64)st->exit_ns[last] > latency_req)) {
		int i;

		for (i = last - 1; i > first; i--)
			if ((__s64)st->exit_ns[i] <= latency_req)
				break;
		m->ladder.st[last].promo = m->ladder.st[last].demo = 0;
		m->last_state_idx = i;
		return i;
	}
	if (last > first && last_res < (__s64)m->ladder.st[last].demotion_ns) {
		m->ladder.st[last].demo++;
		m->ladder.st[last].promo = 0;
		if ((__u32)m->ladder.st[last].demo >= m->ladder.st[last].demotion_count) {
			m->ladder.st[last].promo = m->ladder.st[last].demo = 0;
			m->last_state_idx = last - 1;
			return last - 1;
		}
	}
	m->last_state_idx = last;
	return last;
}

/* ------------------------------------------------------------ haltpoll */

/* haltpoll_select() (drivers/cpuidle/governors/haltpoll.c): "n/a" (a
 * latency limit of 0) polls; else poll while the window is open, halt
 * after a poll that ran out its window or when the window is closed. */
static int haltpoll_select(struct ref_idle *m)
{
	if (m->latency_req_ns == 0)
		return 0;
	if (!m->poll_limit_ns)
		return 1;
	if (m->last_state_idx == 0)
		return m->poll_time_limit ? 1 : 0;
	return 0;
}

/* adjust_poll_limit(): grow the window when a halt was short enough to
 * have been caught by polling, shrink it after a long one. */
static void haltpoll_adjust(struct ref_idle *m, __u64 block_ns)
{
	const struct ref_haltpoll_params *p = &m->hp.p;
	__u64 val;

	if (block_ns > m->poll_limit_ns && block_ns <= p->guest_halt_poll_ns) {
		val = m->poll_limit_ns * p->grow;
		if (val < p->grow_start_ns)
			val = p->grow_start_ns;
		if (val > p->guest_halt_poll_ns)
			val = p->guest_halt_poll_ns;
		m->poll_limit_ns = val;
	} else if (block_ns > p->guest_halt_poll_ns && p->allow_shrink) {
		val = m->poll_limit_ns;
		if (!p->shrink) {
			val = 0;
		} else {
			val /= p->shrink;
			if (val < p->grow_start_ns)
				val = 0;
		}
		m->poll_limit_ns = val;
	}
}

/* ------------------------------------------------------------- common */

int ref_idle_select(struct ref_idle *m, __u64 next_timer_ns, __u64 delta_tick_ns)
{
	int idx = 0;

	switch (m->kind) {
	case REF_MENU:
		idx = menu_select(m, next_timer_ns, delta_tick_ns);
		break;
	case REF_TEO:
		idx = teo_select(m, next_timer_ns, delta_tick_ns);
		break;
	case REF_LADDER:
	case REF_LADDER_BAL:
		idx = ladder_select(m);
		break;
	case REF_HALTPOLL:
		idx = haltpoll_select(m);
		break;
	}
	if (idx < 0 || idx >= (int)m->st->n)
		idx = m->st->n - 1;
	return idx;
}

void ref_idle_reflect(struct ref_idle *m, int idx, __u64 residency_ns, int poll_timed_out)
{
	/* ladder_reflect() only remembers non-polling states. */
	if (!((m->kind == REF_LADDER || m->kind == REF_LADDER_BAL) && idx == 0))
		m->last_state_idx = idx;
	m->last_residency_ns = residency_ns;
	m->poll_time_limit = poll_timed_out;
	if (m->kind == REF_MENU)
		m->menu.needs_update = 1;
	if (m->kind == REF_HALTPOLL && idx != 0)
		haltpoll_adjust(m, residency_ns);
}

/* ----------------------------------------------------------- schedutil */

void ref_freq_init(struct ref_freq *f, __u64 rate_limit_us, __u32 num, __u32 den)
{
	memset(f, 0, sizeof(*f));
	f->num = num;
	f->den = den ? den : 1;
	f->rate_limit_ns = rate_limit_us * REF_NSEC_PER_USEC;
}

__u32 ref_sugov_target(double util)
{
	/* map_util_perf(): util + util / 4, then the capacity cap. */
	double t = util + util / 4;

	if (t > BPFGOV_SCALE)
		t = BPFGOV_SCALE;
	if (t < 0)
		t = 0;
	return (__u32)t;
}

/* PELT-like signal: geometric decay with a 32 ms half-life, continuous in
 * time rather than in 1024 us steps (the steps do not matter at trace
 * resolution and would need the kernel's period alignment). */
static void pelt_advance(struct ref_freq *f, __u64 now)
{
	double periods, y;

	if (f->last_ns && now > f->last_ns) {
		periods = (double)(now - f->last_ns) / PELT_PERIOD_NS;
		y = exp2(-periods / PELT_HALFLIFE);
		f->util_avg = f->util_avg * y + (f->running ? BPFGOV_SCALE * (1.0 - y) : 0.0);
	}
	if (now > f->last_ns)
		f->last_ns = now;
}

void ref_freq_init_passive(struct ref_freq *f, __u64 rate_limit_us)
{
	ref_freq_init(f, rate_limit_us, 0, 1);
	f->perf_path = 1;
}

void ref_freq_idle(struct ref_freq *f, int stop_tick)
{
	if (stop_tick)
		f->idle_calls++;
}

/*
 * sugov_update_single_freq() (kernel/sched/cpufreq_schedutil.c): rate
 * limit (sugov_should_update_freq), util -> target (map_util_perf), no
 * lowering unless the CPU's idle_calls moved since the previous evaluation
 * (sugov_hold_freq: tick_nohz_get_idle_calls_cpu(), which counts only idles
 * in which the tick was asked to stop), and nothing done when unchanged.
 * With perf_path: sugov_update_single_perf() -> intel_cpufreq_adjust_perf()
 * (drivers/cpufreq/intel_pstate.c): the same target with the same hold,
 * written as HWP desired with min = bw_min, every evaluation (the MSR
 * write is skipped when the request is unchanged).
 */
static int sugov_update(struct ref_freq *f, __u64 now)
{
	double util;
	__u32 next, old_floor = ref_freq_floor(f);
	int hold;

	if (f->have_update && now - f->last_freq_update_ns < f->rate_limit_ns)
		return 0;
	util = f->util_avg;
	if (f->running && f->util_est > util)
		util = f->util_est;
	next = ref_sugov_target(util);
	hold = f->idle_calls == f->saved_idle_calls;
	f->saved_idle_calls = f->idle_calls;
	if (f->perf_path) {
		if (hold && next < f->desired)
			next = f->desired;
		if (f->have_update && next != f->desired)
			f->desired_changes++;
		f->desired = next;
		f->last_freq_update_ns = now;
		f->have_update = 1;
		return 0;	/* the minimum stays bw_min */
	}
	if (hold && next < f->next_freq)
		next = f->next_freq;
	if (f->have_update && next == f->next_freq)
		return 0;
	f->next_freq = next;
	f->last_freq_update_ns = now;
	f->have_update = 1;
	return ref_freq_floor(f) != old_floor;
}

int ref_freq_busy_begin(struct ref_freq *f, __u64 now)
{
	pelt_advance(f, now);
	f->running = 1;
	return sugov_update(f, now);
}

int ref_freq_tick(struct ref_freq *f, __u64 now)
{
	pelt_advance(f, now);
	return sugov_update(f, now);
}

int ref_freq_busy_end(struct ref_freq *f, __u64 now)
{
	double dequeued, diff;
	int changed;

	pelt_advance(f, now);
	/* util_est_update(): follow a rise at once, a fall by 1/4, and
	 * ignore changes within 1%. */
	dequeued = f->util_avg;
	if (f->util_est <= dequeued) {
		f->util_est = dequeued;
	} else {
		diff = dequeued - f->util_est;
		if (fabs(diff) >= UTIL_EST_MARGIN)
			f->util_est += diff / 4;
	}
	f->running = 0;
	changed = sugov_update(f, now);
	if (f->idle_from_busy_end)
		f->idle_calls++;	/* the idle loop runs next */
	return changed;
}

__u32 ref_freq_floor(const struct ref_freq *f)
{
	if (f->perf_path)
		return 0;
	return (__u32)((__u64)f->next_freq * f->num / f->den);
}
