/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * bpfgov policy core, idle choice (included by bpfgov_policy.h).
 *
 * Idle choice. A state pays back when the idle period (time until the
 * wakeup, without the state's own exit cost) is at least its measured
 * wake-up cost (or its table cost, whichever is larger) times payback_pct,
 * and at least its target residency. Idle worths go into
 * decayed bins bounded by those payback points (teo's idea, with costs that
 * are measured instead of trusted). The pick is the deepest state that the
 * history says pays back at least half the time (with a hysteresis band,
 * pick_band: by default 5/8 to go deeper, 3/8 to stay), whose exit latency fits the PM QoS limit. A polling pick is vetoed when the expected idle is long
 * or a poll ran longer than poll_max_us (the "powernightmares").
 *
 * What an idle period teaches (pol_idle_learn) is here too; how it ended,
 * and so what it was worth, is bpfgov_timer.h's. pol_timer_cap() is the
 * choice capped by a known next timer, for replay's ideal column.
 */
#ifndef __BPFGOV_IDLE_H
#define __BPFGOV_IDLE_H

#ifndef __BPFGOV_POLICY_H
#error "include bpfgov_policy.h, which includes bpfgov_idle.h in its place"
#endif

/* Worst of the table's exit latency and the measured wake-up cost, ns. */
static __always_inline __u64 pol_state_cost_ns(const struct bpfgov_cpu_state *s,
					       const struct bpfgov_config *c, __u32 k)
{
	k &= BPFGOV_STATE_MASK;
	return pol_max64((__u64)c->state_exit_latency_us[k] * POL_NS_PER_US,
			 s->wake_cost_ns[k]);
}

/* Idle length from which state k pays back its cost, ns. */
static __always_inline __u64 pol_payback_ns(const struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c, __u32 k)
{
	k &= BPFGOV_STATE_MASK;
	if (c->state_is_poll[k])
		return 0;
	return pol_max64((__u64)c->state_residency_us[k] * POL_NS_PER_US,
			 pol_state_cost_ns(s, c, k) * c->payback_pct / 100);
}

/* A halting state's payback comparison from its terms: target residency
 * @res_ns, and @cost_pct = its wake-up cost times payback_pct. */
static __always_inline int pol_pays_back_terms(__u64 res_ns, __u64 cost_pct, __u64 idle)
{
	return idle >= res_ns && (idle + 1) * 100 > cost_pct;
}

/* idle >= pol_payback_ns(s, c, k), given @cost == pol_state_cost_ns(s, c,
 * k), without the division: idle >= cost * pct / 100 (rounded down) is
 * (idle + 1) * 100 > cost * pct. For the exit of every idle period. */
static __always_inline int pol_pays_back(const struct bpfgov_config *c, __u32 k,
					 __u64 cost, __u64 idle)
{
	k &= BPFGOV_STATE_MASK;
	return c->state_is_poll[k] ||
	       pol_pays_back_terms((__u64)c->state_residency_us[k] * POL_NS_PER_US,
				   cost * c->payback_pct, idle);
}

/* @x >= pol_payback_ns(s, c, k), without the division. */
static __always_inline int pol_paid(const struct bpfgov_cpu_state *s,
				    const struct bpfgov_config *c, __u32 k, __u64 x)
{
	return pol_pays_back(c, k, pol_state_cost_ns(s, c, k), x);
}

#ifdef __BPF__
/*
 * In BPF the number of idle states is a load-time constant: the loader
 * sets this read-only global from the same table as tunables.nr_states
 * (which `set` cannot change either). The verifier then knows it, and
 * checks each loop over the states for this machine's table alone instead
 * of once for every length the table might have. The default, the largest
 * table, is what a load that does not set it (a verifier-cost probe)
 * checks.
 */
const volatile __u32 pol_nr_states_ro = BPFGOV_MAX_STATES;
#endif

static __always_inline __u32 pol_nr_states(const struct bpfgov_config *c)
{
#ifdef __BPF__
	(void)c;
	return pol_nr_states_ro ? pol_min32(pol_nr_states_ro, BPFGOV_MAX_STATES) : 1;
#else
	return c->nr_states ? pol_min32(c->nr_states, BPFGOV_MAX_STATES) : 1;
#endif
}

/* PM QoS allows a state of wake-up cost @cost (pol_state_cost_ns). */
static __always_inline int pol_allowed_cost(const struct bpfgov_cpu_state *s, __u64 cost)
{
	return !s->qos_limit_us || cost <= (__u64)s->qos_limit_us * POL_NS_PER_US;
}

static __always_inline int pol_allowed(const struct bpfgov_cpu_state *s,
				       const struct bpfgov_config *c, __u32 k)
{
	return pol_allowed_cost(s, pol_state_cost_ns(s, c, k));
}

/* Shallowest non-polling state allowed by PM QoS, or NO_STATE. */
static __always_inline __u32 pol_first_halt(const struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c)
{
	__u32 k, n = pol_nr_states(c);

	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		if (!c->state_is_poll[k] && pol_allowed(s, c, k))
			return k;
	}
	return BPFGOV_NO_STATE;
}

#define POL_POLL_MIN_NS	(10ull * POL_NS_PER_US)	/* CPUIDLE_POLL_MIN */

/* An idle (or a poll) of @ns is longer than poll_max_us (0: no such test). */
static __always_inline int pol_past_poll_max(const struct bpfgov_config *c, __u64 ns)
{
	return c->poll_max_us && ns > (__u64)c->poll_max_us * POL_NS_PER_US;
}

/* short_share: idles that the first halting state did not pay back, by
 * a near timer or by their own length. Fixed point (1 << 16: every idle),
 * decayed by 1/256 per idle period, a rate over the last few hundred
 * idles that one idle moves by 1/256: poll_ok stands through a load,
 * rather than flipping (each flip a write) with every short idle or pair
 * of them. poll_ok from 1/8, kept down to 1/16: a poll that the governor
 * starts on a wrong prediction runs to the kernel's limit (cpuidle's
 * poll time, a few hundred us), several times what the halt it replaces
 * costs to leave, so polling pays only where such idles are common. */
#define POL_TSHARE_ONE		65536u
#define POL_TSHARE_SHIFT	8
#define POL_TSHARE_ON		(POL_TSHARE_ONE / 8)
#define POL_TSHARE_OFF		(POL_TSHARE_ONE / 16)

/* lost_share: the governor's own polls, under a halting pick that left
 * polling to it (poll_ok), that ran into the kernel's poll time limit.
 * Such a poll was a wrong prediction, and paid the whole limit (a few
 * hundred us at full power) for an idle that went on in a halt anyway.
 * Each of those polls moves it by 1/8 (a rate over the last few), and
 * every idle period decays it by 1/256 as short_share, so that poll_ok is
 * tried again once the CPU has gone a few hundred idles without one.
 * poll_ok is withheld, whichever path would grant it (the history's
 * halting pick, or the dwell's), while half or more of the governor's
 * polls are lost: in the emulated test guest under menu, cyclictest at
 * 500 us, 531 of menu's 591 polls ran into the limit, 1 to 2 % of CPU
 * time polled for no shorter latency than halting all of them. */
#define POL_LOST_POLL_SHIFT	3
#define POL_LOST_OFF		(POL_TSHARE_ONE / 2)

static __always_inline int pol_polls_lost(const struct bpfgov_cpu_state *s)
{
	return s->lost_share >= POL_LOST_OFF;
}

/*
 * How long the kernel polls before it gives up (cpuidle_poll_time(),
 * drivers/cpuidle/cpuidle.c): the target residency of the first
 * non-polling state that has one of at least 10 us, capped at TICK_NSEC/16,
 * or that cap alone.
 */
static __always_inline __u64 pol_poll_limit_ns(const struct bpfgov_config *c)
{
	__u64 max = (__u64)(c->tick_us ? c->tick_us : 4000) * POL_NS_PER_US / 16, r;
	__u32 k, n = pol_nr_states(c);

	for (k = 1; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		r = (__u64)c->state_residency_us[k] * POL_NS_PER_US;
		if (c->state_is_poll[k] || r < POL_POLL_MIN_NS)
			continue;
		return r < max ? r : max;
	}
	return max;
}

/*
 * Minimum dwell and time hysteresis (pick_dwell_ms). The pick is a
 * standing constraint that the kernel's governor chooses inside, idle by
 * idle; each change is a write of its knobs, often on a CPU that sleeps.
 * Where idle lengths straddle a payback point, a history of a few idles
 * would move it hundreds of times a second. So the selects vote: each
 * gives the state the evidence points at the idle's length (time, not a
 * count: a quiet CPU's few short blips do not outvote its long sleeps),
 * and the pick may move only at the end of a window of pick_dwell_ms, and
 * only where two windows in a row voted the same way: deeper, to the
 * deepest state that 5/8 of this window's votes reached or passed; or
 * shallower, to the shallowest that 5/8 of them did not pass. poll_ok
 * follows at a window's end. A steady load that straddles a boundary
 * keeps its pick; a load that moves is followed within two or three
 * windows. The polling veto does not wait (pol_dwell_reset): polling
 * through a lull is what it exists to stop. Going back to polling after
 * a veto takes veto_hold windows in a row that voted for it (default 4):
 * on a load whose polls overrun every few windows, each veto and each
 * return is a write, and a veto that stood one window cycled up to
 * 1000 / pick_dwell_ms times a second. Where polling is withdrawn again
 * (a veto, or poll_ok off) before it stood as long as its return waited,
 * the next return waits twice as many windows, up to POL_POLL_HOLD_MAX
 * (pol_poll_backoff), as flap damping does for routes: a load on which
 * polling keeps being granted and taken back settles to halting, at a
 * write or two every few seconds, instead of cycling at veto_hold's pace
 * (in the guest with acpi_idle, ping-pong cycled every 400 ms, each cycle
 * two writes and two loader wake-ups).
 */
#define POL_POLL_HOLD_MAX	64u
/* A window moves to a polling pick only where fewer than one of its
 * idles in POL_LONG_MIX was longer than poll_max_us: among more long
 * ones, polling is left to the governor instead (poll_ok). */
#define POL_LONG_MIX	16u

static __always_inline __u32 pol_poll_hold(const struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c)
{
	__u32 h = s->poll_hold ? s->poll_hold : c->veto_hold;

	return h ? h : 1;
}

/* Polling was withdrawn: 1 when it had stood less than its return waited
 * (the hold doubles), 0 when it had stood longer (the hold is veto_hold
 * again). */
static __always_inline int pol_poll_backoff(struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c)
{
	__u32 h = pol_poll_hold(s, c), max = c->veto_hold > POL_POLL_HOLD_MAX ?
					c->veto_hold : POL_POLL_HOLD_MAX;

	if (s->poll_granted_ns && s->exit_ns - s->poll_granted_ns <
	    (__u64)h * c->pick_dwell_ms * 1000000ull) {
		s->poll_hold = h * 2 < max ? h * 2 : max;
		return 1;
	}
	s->poll_hold = 0;
	return 0;
}

/* poll_ok was taken back: the windows it then waits before it may come
 * back (ok_left), none unless it was taken back too soon. */
static __always_inline __u32 pol_poll_ok_taken(struct bpfgov_cpu_state *s,
					       const struct bpfgov_config *c)
{
	return pol_poll_backoff(s, c) ? pol_poll_hold(s, c) - 1 : 0;
}

static __always_inline void pol_dwell_reset(struct bpfgov_cpu_state *s)
{
	s->dwell_start_ns = s->exit_ns ? s->exit_ns : 1;
	s->votes = 0;
	s->win_idles = 0;
	s->win_long = 0;
	__builtin_memset(s->pick_votes, 0, sizeof(s->pick_votes));
}

/* The select's vote for @pick (its idle's weight); 1 while the window
 * goes on (the standing pick and poll_ok hold), 0 at its end. */
static __always_inline int pol_dwell_vote(struct bpfgov_cpu_state *s,
					  const struct bpfgov_config *c, __u32 pick)
{
	s->votes += s->vote_weight;
	s->pick_votes[pick & BPFGOV_STATE_MASK] += s->vote_weight;
	s->win_idles++;
	if (pol_past_poll_max(c, (__u64)s->vote_weight << 10))
		s->win_long++;
	return s->dwell_start_ns &&
	       s->exit_ns - s->dwell_start_ns < (__u64)c->pick_dwell_ms * 1000000ull;
}

/* 1: the standing pick (and poll_ok) hold; 0: a window is over, and
 * @pick is where the votes moved it (or the standing pick); 2: the same,
 * but the votes went to a polling pick among long idles (POL_LONG_MIX),
 * and the halting pick stands in @pick. @voted: the caller has cast this
 * select's vote (pol_dwell_vote) and seen the window end. */
static __always_inline int pol_dwell_hold(struct bpfgov_cpu_state *s,
					  const struct bpfgov_config *c, __u32 *pick, int voted)
{
	__u32 k, n = pol_nr_states(c), cur = s->idle_pick, to = s->idle_pick, dir = 0;
	__u64 acc = 0, need;
	int mixed = 0;

	if (!voted && pol_dwell_vote(s, c, *pick))
		return 1;
	need = (__u64)s->votes * 5;
	for (k = n - 1; k > cur; k--) {		/* deeper */
		acc += s->pick_votes[k];
		if (acc * 8 >= need) {
			to = k;
			dir = 1;
			break;
		}
	}
	acc = 0;
	for (k = 0; !dir && k < n && k < cur; k++) {	/* shallower */
		acc += s->pick_votes[k];
		if (acc * 8 >= need) {
			to = k;
			dir = 2;
		}
	}
	/* the first window of a CPU (none before it) moves at once */
	*pick = !dir || (s->dwell_pending == dir || !s->dwell_start_ns) ? to : cur;
	s->dwell_pending = dir;
	/* a polling pick among long idles: the halting pick stands, and the
	 * caller leaves polling to the governor */
	if (c->state_is_poll[*pick & BPFGOV_STATE_MASK] && !c->state_is_poll[cur & BPFGOV_STATE_MASK] &&
	    (__u64)s->win_long * POL_LONG_MIX >= s->win_idles) {
		*pick = cur;
		mixed = 1;
	}
	/* back to polling after a veto: veto_hold windows in a row */
	if (dir == 2 && s->veto_left && c->state_is_poll[to & BPFGOV_STATE_MASK]) {
		s->veto_left--;
		*pick = cur;
	} else if (s->veto_left) {	/* in a row: the count starts again */
		s->veto_left = pol_poll_hold(s, c) - 1;
	}
	pol_dwell_reset(s);
	return mixed ? 2 : 0;
}

/* The governor's polls are lost under a halting pick: poll_ok goes at
 * once, as a veto does, not at the window's end (a window of them polls a
 * share of its time away); the window and its votes go on. */
static __always_inline int pol_dwell_ok_lost(const struct bpfgov_cpu_state *s,
					     const struct bpfgov_config *c)
{
	return s->poll_ok && pol_polls_lost(s) &&
	       !c->state_is_poll[s->idle_pick & BPFGOV_STATE_MASK];
}

/*
 * The dwell's part of a select (pick_dwell_ms), from the history's @pick,
 * the near-timer @ok and whether the polling veto fired (@veto); @voted:
 * the caller cast the select's vote and saw the window end (pol_dwell_vote,
 * the common case that pol_idle_select_sum takes inline). A global
 * subprogram in BPF, as the entry points are: the verifier checks its
 * branches once, instead of once per path of the select into them.
 * Returns POL_DWELL_HOLD (the standing pick and poll_ok hold), or the pick
 * (BPFGOV_STATE_MASK) and poll_ok (POL_DWELL_OK) that stand after it.
 */
#define POL_DWELL_HOLD	0x80000000u
#define POL_DWELL_OK	0x100u

POL_ENTRY __u32 pol_dwell_select(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
				 __u32 pick, __u32 ok, __u32 veto_voted)
{
	int held, veto = veto_voted & 1;

	if (!s || !c)
		return POL_DWELL_HOLD;
	pick &= BPFGOV_STATE_MASK;
	if (pol_dwell_ok_lost(s, c)) {
		s->ok_left = pol_poll_ok_taken(s, c);
		return s->idle_pick & BPFGOV_STATE_MASK;
	}
	if (veto && s->poll_ok &&
	    !c->state_is_poll[s->idle_pick & BPFGOV_STATE_MASK]) {
		/* The poll that ran long was the governor's own, under
		 * a halting pick that left polling to it: its poll
		 * limit and its own prediction bound that, and the
		 * history still polls. Both stand. */
		return POL_DWELL_HOLD;
	} else if (veto) {
		pol_dwell_reset(s);
		/* polling withdrawn (not a veto that stands): a
		 * polling pick, or poll_ok under a halting one. A
		 * polling pick's veto leaves polling to the governor
		 * (poll_ok): the history still polls, and the
		 * governor polls only what it predicts short. */
		if (s->poll_ok && !ok) {
			s->ok_left = pol_poll_ok_taken(s, c);
		} else if (c->state_is_poll[s->idle_pick & BPFGOV_STATE_MASK]) {
			pol_poll_backoff(s, c);
			ok = !pol_polls_lost(s);
		}
		s->veto_left = pol_poll_hold(s, c) - 1;
	} else if ((held = pol_dwell_hold(s, c, &pick, !!(veto_voted & 2))) == 1) {
		return POL_DWELL_HOLD;
	} else {
		/* A window moves to a polling pick only where its
		 * idles held (almost) no long one; among long ones the
		 * halting pick stands and leaves polling to the
		 * governor, which polls what it predicts short. */
		if (held == 2)
			ok = 1;
		/* The dwell holds a halting pick against a history
		 * that polls (a window's vote, a return that waits
		 * its windows): polling is the governor's meanwhile. */
		if (c->state_is_poll[0] && !c->state_is_poll[pick & BPFGOV_STATE_MASK] &&
		    c->state_is_poll[s->hist_pick & BPFGOV_STATE_MASK])
			ok = 1;
		/* but not while the governor's polls are lost (lost_share) */
		if (pol_polls_lost(s))
			ok = 0;
		if (ok && !s->poll_ok && s->ok_left) {
			s->ok_left--;	/* poll_ok back: the hold's windows in a row */
			ok = 0;
		} else if (!ok && s->poll_ok && !c->state_is_poll[pick & BPFGOV_STATE_MASK]) {
			s->ok_left = pol_poll_ok_taken(s, c);
		} else if (!ok && s->ok_left) {
			s->ok_left = pol_poll_hold(s, c) - 1;
		}
	}
	return (pick & BPFGOV_STATE_MASK) | (ok ? POL_DWELL_OK : 0);
}

/* pol_idle_choose()'s answer besides the pick and POL_DWELL_OK: the
 * reason (bits 16 up), and the polling veto fired. */
#define POL_CHOOSE_VETO		0x200u
#define POL_CHOOSE_REASON_SHIFT	16

/* The history's choice, the polling veto and poll_ok for near timers and
 * short idles (pol_idle_select, before the dwell). POL_DWELL_HOLD: no
 * decision. A global subprogram in BPF, as pol_dwell_select() is: the
 * select calls one after the other, not one inside the other, so that
 * the dwell's frame does not deepen the stack of the call chain (512
 * bytes in all, which sched_ext's running callback nearly fills).
 * @total: the history bins' sum where the caller has it (0: sum them). */
POL_ENTRY __u32 pol_idle_choose(struct bpfgov_cpu_state *s,
				const struct bpfgov_config *c, int long_poll, __u64 total)
{
	__u32 k, n, pick = 0, reason = BPFGOV_R_HISTORY, band, ok = 0;
	__u64 acc = 0;
	int found = 0, qos_cut = 0, total_known = total != 0;

	if (!s || !c)
		return POL_DWELL_HOLD;
	n = pol_nr_states(c);

	/* The CPU enters one state whatever is picked (no cpuidle driver):
	 * the pick set at init stands, and no decision is made for nothing. */
	if (c->idle_state_fixed)
		return POL_DWELL_HOLD;
	for (k = 0; !total_known && k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		total += s->bins[k];
	}
	/*
	 * Walk from the deepest state: pick the first one that the history
	 * says pays back at least half of the time (any, with no history).
	 * With a band around one half (pick_band eighths, default 1): going
	 * deeper than the current pick takes 5/8 of the history, staying at
	 * or above it 3/8. A bare median flips between two states on every
	 * other idle period when the history sits near the boundary, and each
	 * flip is a sysfs write. The band is around the history's own last
	 * pick (hist_pick), not the veto's: a halt forced by one long poll
	 * must not make the history's next halt easier (3/8 instead of 5/8),
	 * or one long idle among short ones halts the next few short ones.
	 */
	band = pol_min32(c->pick_band, 3);
	for (k = n - 1; k > 0; k--) {
		acc += s->bins[k];
		if (total && acc * 8 < total * (k > s->hist_pick ? 4 + band : 4 - band))
			continue;
		if (!pol_allowed(s, c, k)) {
			qos_cut = 1;
			continue;
		}
		pick = k;
		found = 1;
		break;
	}
	if (!found)
		pick = 0;
	if (qos_cut)
		reason = BPFGOV_R_QOS;
	s->hist_pick = pick;
	/*
	 * Polling veto: right after a poll that overran poll_max_us (poll,
	 * then halt: the next idle of a lull is not polled again), or when
	 * at least poll_veto_pct of the recent idle periods were longer than
	 * poll_max_us. A share, not a mean: one long lull moves it by one
	 * sample's weight, so the short idles that follow it are still
	 * polled. poll_max_us = 0 turns off these two tests of length, not
	 * the veto of a poll that ran into the kernel's time limit once the
	 * idle period outlasted halt's payback point (@long_poll from
	 * pol_idle_exit_inline's carried time): a CPU gone quiet under a
	 * polling pick would poll on for good.
	 */
	if (c->state_is_poll[pick & BPFGOV_STATE_MASK] &&
	    (long_poll ||
	     (c->poll_max_us && (__u64)s->long_share * 100 >= (__u64)c->poll_veto_pct * POL_BIN_ONE))) {
		__u32 h = pol_first_halt(s, c);

		if (h != BPFGOV_NO_STATE) {
			pick = h;
			reason = BPFGOV_R_LONG_POLL;
		}
	}
	/* A halting pick of the history's own (not the veto's) leaves polling
	 * to the governor while idles that a halt does not pay back are
	 * common (short_share, see bpfgov_timer.h). */
	if (c->state_is_poll[0] && !c->state_is_poll[pick & BPFGOV_STATE_MASK] &&
	    pick == s->hist_pick)
		ok = s->short_share >= (s->poll_ok ? POL_TSHARE_OFF : POL_TSHARE_ON) &&
		     !pol_polls_lost(s);
	return (pick & BPFGOV_STATE_MASK) | (ok ? POL_DWELL_OK : 0) |
	       (reason == BPFGOV_R_LONG_POLL ? POL_CHOOSE_VETO : 0) |
	       (reason << POL_CHOOSE_REASON_SHIFT);
}

/* Choose the idle state; @long_poll says a poll just overran poll_max_us,
 * or ran into the kernel's poll time limit with the idle period past
 * halt's payback point (pol_idle_exit_inline). @total: the history bins'
 * sum (0: unknown, pol_idle_choose sums them). */
static __always_inline __u32 pol_idle_select_sum(struct bpfgov_cpu_state *s,
						 const struct bpfgov_config *c, int long_poll,
						 __u64 total)
{
	__u32 r = pol_idle_choose(s, c, long_poll, total), pick, ok, reason;

	if (r & POL_DWELL_HOLD)
		return 0;
	if (c->pick_dwell_ms) {
		__u32 d, voted = 0;

		/* The common case inline (pol_dwell_select's path to
		 * pol_dwell_hold): no veto, no lost polls; the vote, and
		 * the window goes on. */
		if (!(r & POL_CHOOSE_VETO) && !pol_dwell_ok_lost(s, c)) {
			if (pol_dwell_vote(s, c, r & BPFGOV_STATE_MASK))
				return 0;
			voted = 2;
		}
		d = pol_dwell_select(s, c, r & BPFGOV_STATE_MASK, !!(r & POL_DWELL_OK),
				     (!!(r & POL_CHOOSE_VETO)) | voted);
		if (d & POL_DWELL_HOLD)
			return 0;
		r = (r & ~(BPFGOV_STATE_MASK | POL_DWELL_OK)) | d;
	}
	pick = r & BPFGOV_STATE_MASK;
	ok = !!(r & POL_DWELL_OK);
	reason = r >> POL_CHOOSE_REASON_SHIFT;
	if (pick == s->idle_pick && ok == s->poll_ok)
		return 0;
	/* polling granted: a polling pick, or poll_ok, where there was none */
	if ((ok && !s->poll_ok) || (c->state_is_poll[pick & BPFGOV_STATE_MASK] &&
				    !c->state_is_poll[s->idle_pick & BPFGOV_STATE_MASK]))
		s->poll_granted_ns = s->exit_ns ? s->exit_ns : 1;
	s->poll_ok = ok;
	s->nr_pick_changes++;
	if (pick == s->idle_pick)
		return POL_PICK;	/* poll_ok alone: the reason stands */
	s->idle_pick = pick;
	s->pick_reason = reason;
	return POL_PICK;
}

static __always_inline __u32 pol_idle_select(struct bpfgov_cpu_state *s,
					     const struct bpfgov_config *c, int long_poll)
{
	return pol_idle_select_sum(s, c, long_poll, 0);
}

/*
 * The pick capped by the next timer, as teo does it: no state whose
 * payback point lies beyond the time left until the CPU's next timer
 * fires (a halt that a timer ends before it pays back costs more than
 * polling until then). @timer_ns is that time (0: unknown, no cap).
 */
POL_ENTRY __u32 pol_timer_cap(const struct bpfgov_cpu_state *s,
			      const struct bpfgov_config *c, __u32 pick, __u64 timer_ns)
{
	__u32 k;

	if (!s || !c || !timer_ns)
		return pick;
	for (k = pol_min32(pick, pol_nr_states(c) - 1); k > 0; k--) {
		if (pol_paid(s, c, k, timer_ns))
			return k;
	}
	return 0;
}
/* The expected idle length (the loader's figure): an EWMA of idle worth,
 * 1/8 per idle period. */
static __always_inline void pol_expect_idle(struct bpfgov_cpu_state *s, __u64 idle)
{
	s->expected_idle_ns = s->expected_idle_ns - (s->expected_idle_ns >> 3) + (idle >> 3);
}

/* What one fixed idle state learns from an idle period worth @idle, with
 * the state's terms (pol_fast_terms): the above count and the expected
 * idle length (the history that would choose among states has nothing
 * to choose). */
static __always_inline void pol_fixed_learn(struct bpfgov_cpu_state *s, __u64 idle)
{
	if (!pol_pays_back_terms(s->fast_res_ns, s->fast_cost_pct, idle))
		s->nr_too_deep++;
	pol_expect_idle(s, idle);
}

/*
 * What an idle period teaches, once its worth is known: above/below
 * counters, the history bins, the long-idle share; then the pick. @idle is
 * the worth of the residency in state @st_flags & BPFGOV_STATE_MASK, @hist
 * what goes into the history. A separate entry point: in BPF the verifier then checks the
 * loops once, not once per way the wakeup was classified.
 */
/*
 * The history that predicts the next idle period is the one of the class
 * of this one (@cls: 0 when polling paid, 1 when a halting state did): a
 * first-order context. Where short and long idles come in runs (phases, a
 * server's bursts and lulls), each context learns its own run and a change
 * of phase costs one wrong pick, not the several that a single history
 * needs to turn over; where they are mixed at random, both contexts learn
 * the same mix. A context never visited (or faded
 * by quiet periods, see POL_QUIET_SHIFT) starts as a copy of the other.
 */
/* Idles in a row of the other class before the history context swaps. */
#define POL_CTX_STREAK	2u

static __always_inline void pol_switch_ctx(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 cls)
{
	__u32 k, t, seen = 0, n = pol_nr_states(c);

	if (cls == s->ctx)
		return;
	for (k = 0; k < n; k++)
		seen += s->alt_bins[k];
	s->ctx = cls;
	/* Less than half a sample's weight left (never visited, or faded
	 * by quiet periods): as good as never visited. */
	if (seen < POL_BIN_ONE / 2) {
		for (k = 0; k < BPFGOV_MAX_STATES; k++)	/* once: fixed length, no memmove */
			s->alt_bins[k] = s->bins[k];
		s->alt_long_share = s->long_share;
		s->alt_hist_pick = s->hist_pick;
		return;
	}
	for (k = 0; k < n; k++) {
		t = s->bins[k];
		s->bins[k] = s->alt_bins[k];
		s->alt_bins[k] = t;
	}
	t = s->long_share;
	s->long_share = s->alt_long_share;
	s->alt_long_share = t;
	t = s->hist_pick;
	s->hist_pick = s->alt_hist_pick;
	s->alt_hist_pick = t;
}

/*
 * A quiet CPU forgets: an idle period of 2^POL_QUIET_SHIFT ns (8.4 ms) or
 * more halves the history it is learned into once per such length, on top
 * of the decay by idle count. Evidence of short idles then lapses with
 * time, not only with the number of idles that follow it: after a burst,
 * the second quiet idle in a row turns the pick. A lone lull among short
 * idles adds one sample and must leave them the majority, however long it
 * was: the history holds about 2^bin_decay_shift samples' weight, so it is
 * halved at most bin_decay_shift - 1 times (pol_quiet_max). Twice at the
 * default shift 3: a full history of short idles keeps 7/8 * 8 / 4 = 1.75
 * samples' weight against the lull's one (36 %, where going deeper takes
 * 5/8, or 1/2 at pick_band 0). Once more would leave 0.875 against one,
 * the lull alone a majority; four times (a lull of 34 ms), 0.44, and the
 * lull turned the pick at the default band. A sleeping CPU is never woken
 * for it: it is learned at the exit of the idle period that was quiet.
 */
#define POL_QUIET_SHIFT		23
#define POL_QUIET_MAX		7u

static __always_inline __u32 pol_quiet_max(const struct bpfgov_config *c)
{
	return c->bin_decay_shift ? pol_min32(c->bin_decay_shift - 1, POL_QUIET_MAX) : 0;
}

#define POL_LEARN_LONG_POLL	0x100u	/* @st_flags: a poll overran poll_max_us */
#define POL_LEARN_SELECT_ONLY	0x200u	/* @st_flags: the period goes on, learn nothing yet */
#define POL_LEARN_TIMER_NEAR	0x400u	/* @st_flags: the next timer came before halt paid back */
#define POL_LEARN_TIMER		0x800u	/* @st_flags: test that here, from the residency's
					 * start and next timer (s->state_enter_ns,
					 * s->next_timer_ns >= it) */

/*
 * The exit of every idle period runs this, on the wake-up path. Each
 * state's wake-up cost is worked out once (cost[]) and read by every
 * question asked of the states, one loop each: the deepest state the
 * idle paid back, the history's bin, and the near timer against the
 * first halting state allowed (@st_flags POL_LEARN_TIMER). Whether the
 * state entered paid back is asked of that state alone (pol_paid). The
 * decay hands the bins' new total on to the choice (0 where the context
 * swapped: the choice sums them again).
 */
POL_ENTRY __u32 pol_idle_learn(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
			       __u32 st_flags, __u64 idle, __u64 hist)
{
	__u32 k, n, bin = 0, deepest_ok = 0, st = st_flags & BPFGOV_STATE_MASK, quiet, shift;
	int long_poll = !!(st_flags & POL_LEARN_LONG_POLL);
	__u64 cost[BPFGOV_MAX_STATES], total = 0, tlen = 0;

	if (!s || !c)
		return 0;
	/* the idle's vote (pick_dwell_ms): its length, ~us, at least 1, at
	 * most ~1 s (a window's sum stays far below 2^32) */
	s->vote_weight = (__u32)pol_min64((hist >> 10) + 1, 1u << 20);
	if (st_flags & POL_LEARN_SELECT_ONLY)
		return pol_idle_select_sum(s, c, long_poll, 0);
	n = pol_nr_states(c);
	/* the time from the residency's start to its next timer, to test */
	if ((st_flags & POL_LEARN_TIMER) && s->next_timer_ns &&
	    s->next_timer_ns >= s->state_enter_ns)
		tlen = s->next_timer_ns - s->state_enter_ns;
	else
		st_flags &= ~POL_LEARN_TIMER;
	/* Above/below accounting, as the kernel's cpuidle does it. Each
	 * state's wake-up cost is worked out once, and compared with the
	 * idle period through pol_pays_back(): no division. One loop per
	 * question, each with one value carried through it: the verifier
	 * walks these loops unrolled, and an older one (6.1's) falls back
	 * to tracking every scalar of a program with subprograms precisely,
	 * so two such values in one loop multiply its states (a table of 10
	 * states went past its limit of 1M instructions on 6.1). */
	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		cost[k] = pol_state_cost_ns(s, c, k);
		if (pol_allowed_cost(s, cost[k]) && pol_pays_back(c, k, cost[k], idle))
			deepest_ok = k;
	}
	if (!pol_paid(s, c, st, idle))
		s->nr_too_deep++;
	else if (deepest_ok > st)
		s->nr_too_shallow++;

	/* The history's bin for this idle period: that of the deepest state
	 * whose payback point is <= hist. */
	for (k = 1; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		if (pol_pays_back(c, k, cost[k], hist))
			bin = k;
	}
	/* Its last residency's next timer came before the first halting
	 * state allowed paid back: the entry pick polls there, and so would
	 * a governor left free to. */
	for (k = 0; (st_flags & POL_LEARN_TIMER) && k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		if (c->state_is_poll[k] || !pol_allowed_cost(s, cost[k]))
			continue;
		if (!pol_pays_back(c, k, cost[k], tlen))
			st_flags |= POL_LEARN_TIMER_NEAR;
		break;
	}

	/* History: decay (by count, and by time for a quiet period), then
	 * add this idle period to its bin. */
	quiet = (__u32)pol_min64(hist >> POL_QUIET_SHIFT, pol_quiet_max(c));
	shift = c->bin_decay_shift;
	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		s->bins[k] -= s->bins[k] >> shift;
		total += s->bins[k];
	}
	if (quiet) {
		total = 0;
		for (k = 0; k < BPFGOV_MAX_STATES; k++) {
			if (k >= n)
				break;
			s->bins[k] >>= quiet;
			s->alt_bins[k] >>= quiet;	/* the other context's evidence ages too */
			total += s->bins[k];
		}
	}
	s->bins[bin & BPFGOV_STATE_MASK] += POL_BIN_ONE;
	total += POL_BIN_ONE;
	pol_expect_idle(s, idle);
	s->long_share -= s->long_share >> shift;
	if (pol_past_poll_max(c, hist))
		s->long_share += POL_BIN_ONE >> shift;
	s->short_share -= s->short_share >> POL_TSHARE_SHIFT;
	s->lost_share -= s->lost_share >> POL_TSHARE_SHIFT;
	/* a halt would not pay back: a near timer, or an idle too short */
	if ((st_flags & POL_LEARN_TIMER_NEAR) || !bin)
		s->short_share += POL_TSHARE_ONE >> POL_TSHARE_SHIFT;
	/* The context follows the class of the recent idles, not of the last
	 * one alone: a short and a long idle taking turns (a timer between
	 * housekeeping wake-ups) would swap the histories, and the pick, on
	 * every idle period, each swap a write. POL_CTX_STREAK idles in a row. */
	if (c->history_ctx) {
		if ((__u32)(bin > 0) == s->ctx) {
			s->ctx_streak = 0;
		} else if (++s->ctx_streak >= POL_CTX_STREAK) {
			s->ctx_streak = 0;
			pol_switch_ctx(s, c, bin > 0);
			total = 0;	/* the other context's bins */
		}
	}

	return pol_idle_select_sum(s, c, long_poll, total);
}

#endif /* __BPFGOV_IDLE_H */
