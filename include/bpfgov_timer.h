/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * bpfgov policy core, timers and the short path (included by
 * bpfgov_policy.h, after bpfgov_idle.h).
 *
 * Near timers. At idle entry the pick is capped by the CPU's next timer
 * (a halt that the timer ends before it pays back costs more than polling
 * until then). A kernel governor under a standing halting pick can do that
 * only if polling stays enabled; it polls then on its own prediction too.
 * So a halting pick that the history made (not the polling veto) leaves
 * polling to the governor (poll_ok) while idles that the first halting
 * state does not pay back (the next timer comes first, or the idle is
 * shorter) are a material share of the recent ones (short_share: one in
 * 8 to allow, one in 16 to keep).
 *
 * Idle entry and exit. The exit tells what ended the idle period (a
 * waker's stamp, the local timer, the kernel's poll time limit), measures
 * the wake-up cost from it, works out what the period was worth and hands
 * that to the history (pol_idle_learn). A CPU with one fixed idle state
 * (no cpuidle driver) in short cycles takes the short path instead
 * (pol_wake_fast): the exit and the next busy begin in one pass, gated at
 * the idle entry (pol_fast_gate).
 */
#ifndef __BPFGOV_TIMER_H
#define __BPFGOV_TIMER_H

#ifndef __BPFGOV_POLICY_H
#error "include bpfgov_policy.h, which includes bpfgov_timer.h in its place"
#endif

/*
 * One fixed idle state: the terms of pol_pays_back() for state @st of
 * wake-up cost @cost, for the short path (pol_wake_fast). They change only
 * where a full idle exit measures a wake-up cost, or with the tunables:
 * each full exit (and the CPU's start) takes them afresh, so a `set`
 * reaches them at the next full exit, within a segment (pol_seg_min_ns) of
 * a CPU in short cycles. A polling state always pays back, and has no
 * short path.
 */
static __always_inline void pol_fast_terms(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 st, __u64 cost)
{
	st &= BPFGOV_STATE_MASK;
	s->fast_cost_ns = cost;
	if (c->state_is_poll[st]) {	/* polling always pays (pol_pays_back) */
		s->fast_state = 0;
		s->fast_res_ns = 0;
		s->fast_cost_pct = 0;
		return;
	}
	s->fast_state = st + 1;
	s->fast_res_ns = (__u64)c->state_residency_us[st] * POL_NS_PER_US;
	s->fast_cost_pct = cost * c->payback_pct;
}

/*
 * One fixed idle state: until when a wake-up from the idle period that
 * begins at @now in state @st may take the short path (pol_wake_fast), 0
 * for never. Everything the short path's conditions depend on that is
 * known here is decided here: a halting state whose terms are known
 * (pol_fast_terms), no poll time carried, a segment that stays young
 * until the returned time, no gap memory that could arm (the busy run
 * before this gap was too short to count) and none that expires before
 * then. What can still change before the wake-up closes the gate where it
 * changes: a waker's stamp (pol_wake_stamp), a timer interrupt in the
 * residency (pol_timer_fire), the exit itself, a remote refresh that
 * lowers the floor (pol_remote_refresh: the full path follows it where
 * the CPU sets its own perf target). A remote refresh's other change, a
 * released gap memory, leaves the gate as conservative as it was. Racing
 * with the wake-up, a refresh's floor is followed at the next full path,
 * within a segment (pol_seg_min_ns) of a CPU in short cycles.
 */
static __always_inline __u64 pol_fast_gate(const struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 st, __u64 now)
{
	if (s->fast_state != st + 1 || s->carry_ns || s->fast_horizon_ns <= now ||
	    (c->gap_hold_us && s->pre_gap_busy_ns >= (__u64)c->gap_min_busy_us * POL_NS_PER_US))
		return 0;
	return s->fast_horizon_ns;
}

/*
 * The CPU enters idle state @state (cpu_idle tracepoint or scx update_idle).
 * The caller has stored the CPU's next timer expiry in s->next_timer_ns
 * (0: unknown), which the exit learns from (short_share, poll_ok). The
 * pick is not capped by that timer here: the pick is a standing
 * constraint that the kernel's governor works inside, and the governor
 * caps its own choice by the next timer at each entry. pol_timer_cap()
 * is replay's ideal column only.
 */
static __always_inline void pol_idle_enter(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 state, __u64 now)
{
	s->cur_state = state;
	s->state_enter_ns = now;
	s->timer_fired = 0;
	s->nr_idle++;
	s->fast_until_ns = c->idle_state_fixed ? pol_fast_gate(s, c, state, now) : 0;
}

/* A local timer interrupt ran while the CPU was in an idle state. */
static __always_inline void pol_timer_fire(struct bpfgov_cpu_state *s)
{
	s->timer_fired = 1;
	s->fast_until_ns = 0;
}

/* Largest wake-up cost sample taken from a timer wake-up: beyond it the
 * vCPU or the interrupt was late for reasons that are not the state's. */
#define POL_TIMER_COST_MAX_NS	(2000ull * POL_NS_PER_US)

/*
 * A running median (the "frugal" estimator): each sample moves the
 * estimate by 1/2^(cost_ewma_shift + 1) of itself toward the sample, whatever
 * the sample's size. An outlier (a halted vCPU the host did not run at
 * once, a wake-up that waited behind a build) moves it as little as an
 * ordinary sample, and a run of them must outnumber the ordinary ones to
 * carry it away: the estimate settles where half of the samples lie above
 * it. Never below 1 ns once measured (a step of 0 would stall it).
 */
static __always_inline __u32 pol_median_step(__u32 est, __u32 x, __u32 shift)
{
	__u32 step;

	if (!est)
		return x ? x : 1;
	step = est >> (shift + 1);
	if (!step)
		step = 1;
	if (x > est)
		return x - est < step ? x : est + step;
	if (x < est) {
		est = est - x < step ? x : est - step;
		return est ? est : 1;
	}
	return est;
}

static __always_inline void pol_cost_sample(struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c, __u32 st, __u64 lat)
{
	__u32 l32 = lat > 0xffffffffull ? 0xffffffffu : (__u32)lat;

	st &= BPFGOV_STATE_MASK;
	s->wake_cost_ns[st] = pol_median_step(s->wake_cost_ns[st], l32, c->cost_ewma_shift);
	s->nr_wake_samples++;
}

/* The kernel's poll time limit as this CPU sees it: learned from its polls
 * that ran into it (a running median of their lengths), the formula of
 * cpuidle_poll_time() until one did. */
static __always_inline __u64 pol_cpu_poll_limit_ns(const struct bpfgov_cpu_state *s,
						   const struct bpfgov_config *c)
{
	return s->poll_limit_ns ? s->poll_limit_ns : pol_poll_limit_ns(c);
}
/*
 * The CPU leaves its idle state. @wake_lat_ns receives the wake-up cost
 * measured on this exit (0: none), @residency_ns the residency. The cost
 * is measured from the wakeup request to the exit: the stamp of a waker on
 * another CPU, or the programmed expiry of the next timer when the local
 * timer interrupt ended the residency (s->timer_fired, set by the caller)
 * at or after it. Returns POL_PICK when the idle pick changed.
 */
static __always_inline __u32 pol_idle_exit_inline(struct bpfgov_cpu_state *s,
						   const struct bpfgov_config *c, __u64 now,
						   __u64 *residency_ns, __u64 *wake_lat_ns)
{
	__u32 st, wake = BPFGOV_WAKE_OTHER, timer_test = 0;
	__u64 res, idle, lat = 0, hist, cost, timer = s ? s->next_timer_ns : 0;
	int long_poll = 0, stamped = 0, sampled = 0, remote, timed_out = 0, goes_on;

	if (!s || !c || !residency_ns || !wake_lat_ns)
		return 0;
	goes_on = s->exit_goes_on;	/* for this exit only, whatever follows */
	s->exit_goes_on = 0;
	st = s->cur_state;
	*residency_ns = 0;
	*wake_lat_ns = 0;
	if (st == BPFGOV_NO_STATE || now < s->state_enter_ns)
		return 0;
	st &= BPFGOV_STATE_MASK;
	s->cur_state = BPFGOV_NO_STATE;
	s->fast_until_ns = 0;
	res = now - s->state_enter_ns;
	*residency_ns = res;

	if (c->state_is_poll[st]) {
		s->poll_ns += res;
		if (pol_past_poll_max(c, res))
			long_poll = 1;
	}
	if (timer < s->state_enter_ns)
		timer = 0;

	/* Why the CPU woke, and what that wakeup cost: a remote stamp, or the
	 * timer's expiry, as the state tells (below). A poll after which
	 * no task is to run (the caller saw need_resched clear: s->exit_goes_on)
	 * ran into the kernel's poll time limit, whatever its length:
	 * poll_idle() ends only on need_resched or on that limit, and the
	 * idle loop goes on. Neither a waker nor a timer ended it.
	 * A halting state ends at its first interrupt: when the timer's
	 * interrupt came in the residency (at or after its expiry), the timer
	 * woke the CPU, whatever was stamped before. Such a stamp was aimed
	 * at a CPU the wakeup did not go to (tracepoint mode stamps where the
	 * task last ran, before the scheduler picks where it runs); booked as
	 * remote, its "cost" would be the sleep until the timer. A poll ends
	 * on need_resched, which a wakeup sets at once, and runs on through
	 * interrupts that set none: of a stamp and a timer that came in it,
	 * the later one ended it. */
	remote = s->wake_ts_ns && s->wake_ts_ns >= s->state_enter_ns && now >= s->wake_ts_ns &&
		 !(s->timer_fired && timer && timer <= now &&
		   (!c->state_is_poll[st] || timer >= s->wake_ts_ns));
	/* The governor's own poll, under a halting pick (poll_ok): lost
	 * when it ran into the limit, kept when a wake-up ended it. */
	if (c->state_is_poll[st] && !c->state_is_poll[s->idle_pick & BPFGOV_STATE_MASK]) {
		s->lost_share -= s->lost_share >> POL_LOST_POLL_SHIFT;
		if (goes_on)
			s->lost_share += POL_TSHARE_ONE >> POL_LOST_POLL_SHIFT;
	}
	if (c->state_is_poll[st] && goes_on) {
		timed_out = 1;
		wake = BPFGOV_WAKE_LIMIT;
		s->poll_limit_ns = pol_median_step((__u32)s->poll_limit_ns,
						   res > 0xffffffffull ? 0xffffffffu : (__u32)res,
						   c->cost_ewma_shift);
	} else if (remote) {
		lat = now - s->wake_ts_ns;
		wake = BPFGOV_WAKE_REMOTE;
		s->nr_remote_wakes++;
		stamped = 1;
		sampled = 1;
	} else if (s->timer_fired && timer && now >= timer) {
		wake = BPFGOV_WAKE_TIMER;
		s->nr_timer_wakes++;
		if (now - timer <= POL_TIMER_COST_MAX_NS) {
			lat = now - timer;
			s->nr_timer_samples++;
			sampled = 1;
		}
		stamped = 1;
	} else if (s->timer_fired) {
		wake = BPFGOV_WAKE_TIMER;	/* a timer armed during the residency */
	}
	if (sampled) {
		pol_cost_sample(s, c, st, lat);
		*wake_lat_ns = lat;
	}
	s->wake_reason = wake;
	cost = pol_state_cost_ns(s, c, st);

	/*
	 * What the idle period was worth: the time until the wakeup, without
	 * the exit cost the state itself added (a residency always covers its
	 * own wake-up, so comparing it with that cost would prove nothing).
	 */
	if (stamped)
		idle = now - lat - s->state_enter_ns;
	else if (!c->state_is_poll[st])
		idle = res > cost ? res - cost : 0;
	else
		idle = res;
	s->wake_ts_ns = 0;
	s->timer_fired = 0;

	/*
	 * A poll cut short by the kernel's time limit: the idle period goes
	 * on, and the time already polled is carried into it. Poll, then
	 * halt: polling goes on while the carried time is below the first
	 * halting state's payback point (past it, halting would already have
	 * paid: the ski-rental rule, never worse than twice the best choice),
	 * unless the history says that idles which outlast one poll limit
	 * mostly go on for long (resid_share).
	 */
	if (timed_out) {
		__u32 h = pol_first_halt(s, c);

		s->carry_ns += res;
		long_poll = h == BPFGOV_NO_STATE ||
			    pol_paid(s, c, h, s->carry_ns) ||
			    s->resid_share * 2 >= POL_BIN_ONE;
		s->nr_long_polls += long_poll;
		s->exit_ns = now;	/* the pick's clock (pick_dwell_ms) */
		return pol_idle_learn(s, c, st | POL_LEARN_SELECT_ONLY |
				      (long_poll ? POL_LEARN_LONG_POLL : 0), idle, idle);
	}
	s->nr_long_polls += long_poll;
	/* The whole idle period goes into the history, timed-out polls
	 * included; and whether it outlasted its first poll limit by more
	 * than halt's payback point. */
	hist = idle + s->carry_ns;
	if (s->carry_ns) {
		__u32 h = pol_first_halt(s, c);
		__u64 first = pol_cpu_poll_limit_ns(s, c);

		s->resid_share -= s->resid_share >> c->bin_decay_shift;
		if (h != BPFGOV_NO_STATE && hist > first && pol_paid(s, c, h, hist - first))
			s->resid_share += POL_BIN_ONE >> c->bin_decay_shift;
		s->carry_ns = 0;
	}
	/* One state whatever is picked (no cpuidle driver): the history
	 * that would choose among states has nothing to choose; only what is
	 * read elsewhere is kept (the above/below count, the expected idle
	 * length the loader uses). */
	if (c->idle_state_fixed) {
		pol_fast_terms(s, c, st, cost);
		pol_fixed_learn(s, idle);
		return 0;
	}
	/* Whether its last residency's next timer came before a halt paid
	 * back is pol_idle_learn's to test, with the costs it works out.
	 * Only with a known timer and a polling state to leave. */
	if (timer && c->state_is_poll[0])
		timer_test = POL_LEARN_TIMER;
	s->exit_ns = now;
	return pol_idle_learn(s, c, st | timer_test | (long_poll ? POL_LEARN_LONG_POLL : 0), idle, hist);
}

/* The same as a global subprogram (POL_ENTRY): the common caller. With one
 * fixed idle state the BPF side calls pol_idle_exit_inline() instead: the
 * path is short there (no history to learn), and the call with its two
 * out parameters was a fifth of it. */
POL_ENTRY __u32 pol_idle_exit(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u64 now,
					   __u64 *residency_ns, __u64 *wake_lat_ns)
{
	return pol_idle_exit_inline(s, c, now, residency_ns, wake_lat_ns);
}

/*
 * A CPU with one fixed idle state (no cpuidle driver) wakes and a task
 * begins to run at the same instant @now: pol_idle_exit() then
 * pol_busy_begin(), on the path a CPU in short cycles takes at nearly
 * every wake-up, in one pass over the state that writes what those two
 * write there. That path: a halting state, no poll time carried, a wake-up
 * neither stamped by its waker nor ended by a timer (nothing to measure),
 * a young segment, no gap memory to arm or end. Anything else returns 0
 * and writes nothing: the caller takes the two steps. Returns 1 when done
 * (no decision: the floor and the pick stay). The caller checks that no
 * tap reader asked for idle exits or gaps (their records come from the
 * two steps), and that the CPU is not busy (both callers know it already:
 * the hook's own test, or the run tracking's RUNS_BEGIN).
 */
static __always_inline int pol_wake_fast(struct bpfgov_cpu_state *s, __u64 now)
{
	__u64 enter = s->state_enter_ns, res, idle, cost = s->fast_cost_ns, gap;

	/* The idle entry's gate (pol_fast_gate) holds every condition but
	 * the time. */
	if (now >= s->fast_until_ns || now < enter)
		return 0;
	/* Idle exit (pol_idle_exit_inline, one fixed halting state). */
	res = now - enter;
	idle = res > cost ? res - cost : 0;
	pol_fixed_learn(s, idle);
	s->cur_state = BPFGOV_NO_STATE;
	s->fast_until_ns = 0;
	s->wake_reason = BPFGOV_WAKE_OTHER;
	/* Busy begin (pol_busy_begin, a young segment). */
	gap = pol_gap_at(s, now);
	s->idle_ns += gap;
	s->busy = 1;
	s->busy_since_ns = now;
	s->idle_since_ns = 0;
	s->last_event_ns = now;
	return 1;
}

/* A wakeup from another CPU is aimed at this (sleeping) CPU: stamp it once
 * per residency. A wakeup raised on the sleeping CPU itself comes from an
 * interrupt handler that runs after the exit began: the caller skips it. */
static __always_inline void pol_wake_stamp(struct bpfgov_cpu_state *s, __u64 now)
{
	if (s->cur_state != BPFGOV_NO_STATE && !s->wake_ts_ns) {
		s->wake_ts_ns = now;
		s->fast_until_ns = 0;	/* a stamped wake-up is measured */
	}
}

#endif /* __BPFGOV_TIMER_H */
