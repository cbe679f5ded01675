// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the bpfgov policy core, timers and the short path (include/bpfgov_timer.h,
 * through include/bpfgov_policy.h). The simulation helpers, and how the
 * tests drive the hooks, are in policy_sim.h.
 *
 * Every expected number is derived in a comment next to its assertion.
 */
#include "policy_sim.h"

/* ------------------------------------------------------------------ */
/* One fixed state and the short path                                 */
/* ------------------------------------------------------------------ */

/* No cpuidle driver (idle_state_fixed): the CPU halts whatever is picked,
 * so the pick is that state from init on and never changes, over idle
 * periods that move a driver's pick back and forth. The history that
 * would choose among states is not kept (nothing to choose); what others
 * read (the counters, the expected idle length, the wake-up costs, the
 * floor) is the same as without the setting. */
static void test_idle_fixed_state_never_repicks(void **state)
{
	struct sim a, b;
	__u32 r, k;
	int i;

	(void)state;
	/* Without it: alternating short and long idles in the state picked
	 * move the pick. */
	sim_init(&a);
	assert_int_equal(a.c.idle_state_fixed, 0);
	for (i = 0; i < 40; i++) {
		sim_busy(&a, 10 * US, 0);
		sim_idle(&a, (i & 1) ? 5 * MS : 2 * US, a.s.idle_pick, 0);
	}
	assert_true(a.s.nr_pick_changes > 0);

	/* With it, side by side with a run that enters the same state. */
	sim_init(&a);
	sim_init(&b);
	b.c.idle_state_fixed = 1 + 1;
	sim_reinit(&b);
	assert_int_equal(b.s.idle_pick, 1);
	assert_int_equal(b.s.pick_reason, BPFGOV_R_FIXED);
	for (i = 0; i < 40; i++) {
		sim_busy(&a, 10 * US, 0);
		sim_busy(&b, 10 * US, 0);
		sim_idle(&a, (i & 1) ? 5 * MS : 2 * US, 1, 0);
		r = sim_idle(&b, (i & 1) ? 5 * MS : 2 * US, 1, 0);
		assert_false(r & POL_PICK);
		assert_int_equal(pol_idle_select(&b.s, &b.c, 1), 0);
		assert_int_equal(b.s.idle_pick, 1);
		assert_int_equal(b.s.pick_reason, BPFGOV_R_FIXED);
	}
	assert_int_equal(b.s.nr_pick_changes, 0);
	assert_int_equal(b.s.nr_idle, a.s.nr_idle);
	assert_int_equal(b.s.nr_too_deep, a.s.nr_too_deep);
	assert_int_equal(b.s.nr_too_shallow, a.s.nr_too_shallow);
	assert_int_equal(b.s.expected_idle_ns, a.s.expected_idle_ns);
	assert_int_equal(b.s.floor, a.s.floor);
	assert_int_equal(b.s.long_share, 0);
	assert_true(a.s.long_share > 0);
	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		assert_int_equal(b.s.bins[k], 0);
		assert_int_equal(b.s.wake_cost_ns[k], a.s.wake_cost_ns[k]);
	}
}

/* pol_wake_fast() is pol_idle_exit() then pol_busy_begin() (and the
 * caller's switch count) where it takes the wake-up, byte for byte, and
 * writes nothing where it declines: over short and long cycles, stamped
 * wake-ups, a timer wake-up, ticks and the gap memory, with one fixed
 * idle state. In short cycles it takes most wake-ups. */
static void test_wake_fast_is_exit_then_begin(void **state)
{
	struct bpfgov_cpu_state before, fast;
	__u64 res, lat, busy, idle;
	unsigned int took = 0, short_wakes = 0;
	__u32 x = 7;
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	m.c.idle_state_fixed = 1 + 1;
	sim_reinit(&m);
	pol_busy_begin(&m.s, &m.c, m.now);
	for (i = 0; i < 4000; i++) {
		/* Mostly ping-pong hops, now and then a longer run or lull. */
		busy = (i % 97) == 5 ? 3 * MS + lcg_below(&x, 2 * MS) : 2 * US + lcg_below(&x, 30 * US);
		idle = (i % 53) == 7 ? 2 * MS + lcg_below(&x, 20 * MS) : 1 * US + lcg_below(&x, 40 * US);
		if (busy > 4 * MS)
			pol_tick(&m.s, &m.c, m.now + busy - 1 * MS);
		m.now += busy;
		pol_busy_end(&m.s, &m.c, m.now);
		m.s.next_timer_ns = (i % 11) == 3 ? m.now + idle : 0;
		pol_idle_enter(&m.s, &m.c, 1, m.now);
		if ((i % 4) == 1)
			pol_wake_stamp(&m.s, m.now + idle / 2);
		if ((i % 11) == 3)
			pol_timer_fire(&m.s);
		m.now += idle;
		before = m.s;
		fast = m.s;
		if (pol_wake_fast(&fast, m.now)) {
			took++;
			fast.nr_switches++;	/* the caller's, as gov_busy_begin() */
			pol_idle_exit(&m.s, &m.c, m.now, &res, &lat);
			m.s.nr_switches++;
			assert_int_equal(pol_busy_begin(&m.s, &m.c, m.now), 0);
			assert_memory_equal(&fast, &m.s, sizeof(fast));
		} else {
			assert_memory_equal(&fast, &before, sizeof(fast));
			pol_idle_exit(&m.s, &m.c, m.now, &res, &lat);
			m.s.nr_switches++;
			pol_busy_begin(&m.s, &m.c, m.now);
		}
		short_wakes += (i % 4) != 1 && (i % 11) != 3 && idle < 100 * US;
	}
	/* Unstamped short wake-ups, less those that close a segment (one
	 * in about pol_seg_min_ns / hop). */
	assert_true(took > short_wakes / 2);
	assert_true(m.s.nr_gap_holds > 0);

	/* Without a fixed state (a cpuidle driver picks), never. */
	m.c.idle_state_fixed = 0;
	pol_busy_end(&m.s, &m.c, m.now);
	pol_idle_enter(&m.s, &m.c, 1, m.now);
	fast = m.s;
	assert_int_equal(pol_wake_fast(&fast, m.now + 5 * US), 0);
	assert_memory_equal(&fast, &m.s, sizeof(fast));
}

/* ------------------------------------------------------------------ */
/* What an idle period was worth                                      */
/* ------------------------------------------------------------------ */

/* Idle worth with a wake stamp: halt entered at t, a waker stamps it at
 * t + 30us, the exit comes at t + 130us. Residency 130us, wake latency
 * 100us -> halt's measured cost 100us, payback 2 * 100us = 200us. The
 * period was worth 30us (stamp - enter): bin 0 (poll), too deep. */
static void test_idle_worth_wake_stamp(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	assert_int_equal(m.s.idle_pick, 1);
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 130 * US, 1, 100 * US), POL_PICK);
	assert_int_equal(m.s.wake_cost_ns[1], 100 * US);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 200 * US);
	assert_int_equal(m.s.bins[0], 1024);
	assert_int_equal(m.s.bins[1], 0);
	assert_int_equal(m.s.nr_too_deep, 1);
	assert_int_equal(m.s.nr_too_shallow, 0);
	assert_int_equal(m.s.expected_idle_ns, 30 * US / 8);	/* 3750 */
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);

	/* the stamp wins over residency - cost: halt entered, stamped at
	 * +30us, exit at +80us (lat 50us). Cost EWMA 100000 + 50000/8 -
	 * 100000/8 = 93750; residency - cost would be 80 - 93.75 -> 0, the
	 * stamp says 30us: expected 3750 - 468 + 3750 = 7032 */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 80 * US, 1, 50 * US);
	assert_int_equal(m.s.wake_cost_ns[1], 93750);
	assert_int_equal(m.s.expected_idle_ns, 7032);
	assert_int_equal(m.s.nr_too_deep, 2);

	/* a long worth pays back: fresh CPU, halt entered, stamped at +240us,
	 * exit at +340us: cost 100us, worth 240us >= 200us: bin 1, fine */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 340 * US, 1, 100 * US), 0);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.nr_too_deep, 0);
	assert_int_equal(m.s.expected_idle_ns, 240 * US / 8);	/* 30000 */
	assert_int_equal(m.s.idle_pick, 1);

	/* a stamped poll is worth stamp - enter too, not the residency:
	 * poll entered, stamped at +1us, exit at +3us: worth 1us < halt's
	 * 2us (fresh CPU, table cost 1us) -> bin 0, not too shallow. The
	 * residency (3us) would have been bin 1 and too shallow. */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 3 * US, 0, 2 * US);
	assert_int_equal(m.s.bins[0], 1024);
	assert_int_equal(m.s.bins[1], 0);
	assert_int_equal(m.s.nr_too_shallow, 0);
	assert_int_equal(m.s.expected_idle_ns, 1 * US / 8);	/* 125 */
	assert_int_equal(m.s.poll_ns, 3 * US);		/* residency, as before */
}

/* Idle worth without a stamp: residency - the state's cost (the larger of
 * table and measured, clamped at 0) for a halting state, the whole
 * residency for a polling one. 4 states (see cfg_four_states). Each case
 * starts from a fresh CPU, so the one sample sits alone in its bin and
 * expected_idle_ns = worth / 8. */
static void test_idle_worth_residency_minus_cost(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	cfg_four_states(&m.c);

	/* C2 200us - 50us = 150us: bin 2 (150 <= 150 < 800), paid back */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 200 * US, 2, 0);
	assert_int_equal(m.s.bins[2], 1024);
	assert_int_equal(m.s.nr_too_deep, 0);
	assert_int_equal(m.s.expected_idle_ns, 150 * US / 8);	/* 18750 */
	assert_int_equal(m.s.idle_pick, 2);

	/* C2 199us - 50us = 149us: bin 1 (4 <= 149 < 150), too deep */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 199 * US, 2, 0);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.nr_too_deep, 1);
	assert_int_equal(m.s.expected_idle_ns, 149 * US / 8);	/* 18625 */

	/* clamped at 0, no wrap-around: C3 150us < cost 200us -> worth 0,
	 * bin 0 (a wrapped u64 would land in bin 3) */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 150 * US, 3, 0);
	assert_int_equal(m.s.bins[0], 1024);
	assert_int_equal(m.s.bins[3], 0);
	assert_int_equal(m.s.nr_too_deep, 1);
	assert_int_equal(m.s.expected_idle_ns, 0);
	assert_int_equal(m.s.idle_pick, 0);
	/* exactly the cost: worth 0 as well */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 200 * US, 3, 0);
	assert_int_equal(m.s.bins[0], 1024);
	assert_int_equal(m.s.expected_idle_ns, 0);

	/* a measured cost above the table is the one subtracted: C2 measured
	 * 80us (table 50us): payback max(150, 160) = 160us; 240us - 80us =
	 * 160us: bin 2, not too deep (the table cost would give 190us) */
	sim_reinit(&m);
	m.s.wake_cost_ns[2] = 80 * US;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 240 * US, 2, 0);
	assert_int_equal(m.s.bins[2], 1024);
	assert_int_equal(m.s.nr_too_deep, 0);
	assert_int_equal(m.s.expected_idle_ns, 160 * US / 8);	/* 20000 */
	assert_int_equal(m.s.wake_cost_ns[2], 80 * US);	/* no stamp: unchanged */
	assert_int_equal(m.s.nr_wake_samples, 0);
	/* ... and 239us is worth 159us < 160us: bin 1, too deep */
	sim_reinit(&m);
	m.s.wake_cost_ns[2] = 80 * US;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 239 * US, 2, 0);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.nr_too_deep, 1);

	/* a measured cost below the table does not lower it: C2 measured
	 * 10us, table 50us: 200us - 50us = 150us: bin 2 */
	sim_reinit(&m);
	m.s.wake_cost_ns[2] = 10 * US;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 200 * US, 2, 0);
	assert_int_equal(m.s.bins[2], 1024);
	assert_int_equal(m.s.expected_idle_ns, 150 * US / 8);

	/* polling: nothing is subtracted, even with a measured poll cost.
	 * 4us poll (poll cost 2us) is worth 4us: C1 paid back (4us) -> bin
	 * 1, too shallow; minus the cost it would be 2us, bin 0. */
	sim_reinit(&m);
	m.s.wake_cost_ns[0] = 2 * US;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 4 * US, 0, 0);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.nr_too_shallow, 1);
	assert_int_equal(m.s.expected_idle_ns, 4 * US / 8);	/* 500 */
}

/*
 * A waker that stamps the CPU at the very nanosecond of the exit still
 * stamped it during the residency, so the period is worth stamp - enter =
 * the whole residency (rule 4 of the idle semantics).
 *
 * Guards pol_idle_exit's stamp path: taken only when `lat` (exit - stamp)
 * is non-zero, a stamp equal to the exit time would be counted as a wake
 * sample (nr_wake_samples, EWMA) while the worth fell back to
 * residency - cost. Halt with table cost 100us (payback 200us), entered at
 * t, stamped and left at t + 250us: the worth is 250us (bin 1, not too
 * deep, expected 31250), not 250 - 100 = 150us (bin 0, too deep, 18750).
 */
static void test_idle_worth_stamp_at_exit(void **state)
{
	struct sim m;
	__u64 res, lat, t;

	(void)state;
	sim_init(&m);
	m.c.state_exit_latency_us[1] = 100;
	sim_reinit(&m);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 200 * US);
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 250 * US);
	assert_int_equal(m.s.wake_ts_ns, t + 250 * US);
	pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat);
	assert_int_equal(res, 250 * US);
	assert_int_equal(lat, 0);
	assert_int_equal(m.s.nr_wake_samples, 1);	/* the stamp was taken */
	assert_int_equal(m.s.wake_ts_ns, 0);
	/* table cost stays: a 0 first sample leaves wake_cost_ns at 0 */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 200 * US);
	assert_int_equal(m.s.expected_idle_ns, 250 * US / 8);	/* 31250 */
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.nr_too_deep, 0);
}

/* The wake-up cost is a running median: outliers (a halted vCPU the host
 * did not run at once, wake-ups queued behind a build: 13-28 ms among
 * 60 us) do not carry it away, where an average of the same samples would
 * sit at ~5 ms. It still follows a real change of the cost. */
static void test_idle_cost_median_outliers(void **state)
{
	struct sim m;
	__u32 x = 7;
	int i;

	(void)state;
	sim_init(&m);
	for (i = 0; i < 400; i++)
		pol_cost_sample(&m.s, &m.c, 1, i % 4 == 3 ? 13 * MS + lcg_below(&x, 15 * MS)
							  : 60 * US);
	assert_true(m.s.wake_cost_ns[1] >= 45 * US && m.s.wake_cost_ns[1] <= 75 * US);
	/* a first sample that is an outlier is forgotten */
	sim_init(&m);
	pol_cost_sample(&m.s, &m.c, 1, 20 * MS);
	for (i = 0; i < 200; i++)
		pol_cost_sample(&m.s, &m.c, 1, 60 * US);
	assert_int_equal(m.s.wake_cost_ns[1], 60 * US);
	/* the cost really doubles: the estimate follows */
	for (i = 0; i < 40; i++)
		pol_cost_sample(&m.s, &m.c, 1, 120 * US);
	assert_int_equal(m.s.wake_cost_ns[1], 120 * US);
	assert_int_equal(pol_median_step(0, 0, 3), 1);	/* never 0 once measured */
	assert_int_equal(pol_median_step(1, 0, 3), 1);	/* nor after a sample of 0 */
	assert_int_equal(pol_median_step(16, 0, 3), 15);
}

/* ------------------------------------------------------------------ */
/* Polls and the kernel's poll time limit                             */
/* ------------------------------------------------------------------ */

/* A poll ended by the kernel's time limit: the idle period goes on, the
 * polled time is carried into it, and the whole period is learned when it
 * ends. Poll, then halt: polling goes on until the carried time reaches
 * halt's payback point, or at once when idles that outlast a poll limit
 * mostly go on (resid_share). */
static void test_idle_timed_out_poll_carried(void **state)
{
	struct sim m;
	__u64 res, lat, t;

	(void)state;
	sim_init(&m);
	m.s.wake_cost_ns[1] = 100 * US;		/* halt pays back from 200us */
	m.s.bins[0] = 8 * 1024;			/* the history says poll */
	m.s.idle_pick = 0;
	assert_int_equal(pol_poll_limit_ns(&m.c), 250 * US);
	/* nobody wakes it: timed out at the limit, 250us >= 200us: halt next */
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	assert_int_equal(pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	assert_int_equal(m.s.nr_long_polls, 1);
	assert_int_equal(m.s.carry_ns, 250 * US);
	assert_int_equal(m.s.bins[0], 8 * 1024);	/* nothing learned yet */
	assert_int_equal(m.s.bins[1], 0);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_LIMIT);
	assert_int_equal(m.s.poll_limit_ns, 250 * US);	/* learned: the first */
	/* the halt that follows is woken by another CPU 300us in: the period
	 * was 250 + 300 = 550us (bin 1), 300us beyond the first limit >= 200 */
	t += 250 * US;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 300 * US);
	pol_idle_exit(&m.s, &m.c, t + 400 * US, &res, &lat);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.bins[0], 8 * 1024 - 1024);
	assert_int_equal(m.s.resid_share, 128);
	assert_int_equal(m.s.carry_ns, 0);
	assert_int_equal(m.s.long_share, 128);		/* 550us > poll_max 200us */

	/* ski rental: halt pays back from 400us; the first timeout (250us)
	 * keeps polling, the second (500us) halts */
	sim_init(&m);
	m.s.wake_cost_ns[1] = 200 * US;
	m.s.bins[0] = 8 * 1024;
	m.s.idle_pick = 0;
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	assert_int_equal(pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat), 0);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.nr_long_polls, 0);
	t += 250 * US;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	assert_int_equal(pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.carry_ns, 500 * US);
	/* ... a period that ends 7us into the next poll instead: 257us, bin 0,
	 * not long beyond the first limit */
	sim_init(&m);
	m.s.wake_cost_ns[1] = 200 * US;
	m.s.bins[0] = 8 * 1024;
	m.s.idle_pick = 0;
	m.s.resid_share = 256;
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat);
	assert_int_equal(m.s.idle_pick, 0);
	t += 250 * US;
	pol_idle_enter(&m.s, &m.c, 0, t);
	pol_wake_stamp(&m.s, t + 6 * US);
	pol_idle_exit(&m.s, &m.c, t + 7 * US, &res, &lat);
	assert_int_equal(m.s.bins[0], 8 * 1024 - 1024 + 1024);
	assert_int_equal(m.s.resid_share, 224);		/* 256 - 32, no add */
	assert_int_equal(m.s.idle_pick, 0);
	/* resid_share at one half: halt right after the first timeout */
	m.s.resid_share = 512;
	t += 1 * MS;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	assert_int_equal(pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	/* a poll that a task ends (need_resched set: goes_on clear) is no
	 * timeout, whatever its length */
	sim_init(&m);
	m.s.bins[0] = 8 * 1024;
	m.s.idle_pick = 0;
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 0, t);
	pol_idle_exit(&m.s, &m.c, t + 250 * US, &res, &lat);
	assert_int_equal(m.s.carry_ns, 0);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_OTHER);
	assert_int_equal(m.s.nr_long_polls, 1);		/* > poll_max 200us */
	assert_int_equal(m.s.poll_limit_ns, 0);
}

/*
 * The kernel's poll limit is what it does, not the formula: a KVM guest
 * under haltpoll polls ~128us per poll_idle() although TICK_NSEC/16 is
 * 250us (the governor's window, halved by each halt). Every such poll is a
 * timeout (nothing woke the CPU: goes_on), the limit is learned from them,
 * and ski rental bounds the polling (the stuck-polling case: a standing
 * polling pick, timeouts every 128us that used to read as short idles
 * and kept the pick). A far next timer alone does not halt: a remote
 * wake-up may still come before halt pays back (a ping-pong at 100us per
 * hop would pay both the poll and the halt at every hop).
 */
static void test_idle_poll_limit_learned(void **state)
{
	struct sim m;
	__u64 res, lat, t;
	int i;

	(void)state;
	sim_init(&m);
	m.s.wake_cost_ns[1] = 100 * US;		/* halt pays back from 200us */
	m.s.bins[0] = 8 * 1024;			/* the history says poll */
	m.s.idle_pick = 0;
	assert_int_equal(pol_poll_limit_ns(&m.c), 250 * US);
	t = m.now;
	m.s.next_timer_ns = t + 1700 * US;
	for (i = 0; i < 2; i++) {
		pol_idle_enter(&m.s, &m.c, 0, t);
		m.s.exit_goes_on = 1;
		t += 128 * US;
		assert_int_equal(pol_idle_exit(&m.s, &m.c, t, &res, &lat), i ? POL_PICK : 0);
		assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_LIMIT);
		assert_int_equal(m.s.exit_goes_on, 0);	/* consumed by the exit */
		assert_int_equal(m.s.idle_pick, i);	/* 128us < 200us, 256us >= 200us */
	}
	assert_int_equal(m.s.carry_ns, 256 * US);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	assert_int_equal(m.s.poll_limit_ns, 128 * US);
	assert_int_equal(m.s.nr_long_polls, 1);
	assert_int_equal(m.s.bins[0], 8 * 1024);	/* nothing learned yet */
	/* the learned limit is a running median: one outlier moves it by a
	 * step of 1/16, not to the outlier */
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	pol_idle_exit(&m.s, &m.c, t + 5 * MS, &res, &lat);
	assert_int_equal(m.s.poll_limit_ns, 128 * US + 128 * US / 16);
	/* edge: an exit that learns nothing (no residency open) still
	 * consumes the flag: it never reaches a later exit */
	m.s.exit_goes_on = 1;
	assert_int_equal(pol_idle_exit(&m.s, &m.c, t + 6 * MS, &res, &lat), 0);
	assert_int_equal(m.s.exit_goes_on, 0);
}

/* poll_max_us = 0 turns off the veto by poll length, not "poll, then
 * halt": a CPU that went quiet under a polling pick polls from limit to
 * limit, each poll timed out (nothing to run: the idle loop goes on), and
 * its carried time is evidence against the pick like any other. Once it
 * reaches halt's payback point the pick halts, whatever poll_max_us says:
 * no standing constraint outlives its reason. A short poll that a task
 * ends is still no veto. */
static void test_idle_poll_max_zero_quiet_released(void **state)
{
	struct sim m;
	__u64 res, lat, t;
	int i;

	(void)state;
	sim_init(&m);
	m.c.poll_max_us = 0;
	m.s.wake_cost_ns[1] = 100 * US;		/* halt pays back from 200us */
	m.s.bins[0] = 8 * 1024;			/* the history says poll */
	m.s.idle_pick = 0;
	m.s.hist_pick = 0;
	m.s.ctx = 0;
	/* a 1ms poll that a task ends: no veto with poll_max_us 0 */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 1 * MS, 0, 1 * US);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.nr_long_polls, 0);
	/* then nothing wakes it: 250us polls timed out, for up to 1s */
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	for (i = 0; i < 4000 && m.s.idle_pick == 0; i++) {
		pol_idle_enter(&m.s, &m.c, 0, t);
		m.s.exit_goes_on = 1;
		t += 250 * US;
		pol_idle_exit(&m.s, &m.c, t, &res, &lat);
		assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_LIMIT);
	}
	print_message("  poll_max_us 0, quiet: the polling pick stood %d timed-out polls (%llu us)\n",
		      i, (unsigned long long)(m.s.carry_ns / US));
	/* the first timeout carries 250us >= 200us: halt at once */
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	assert_int_equal(i, 1);
	assert_int_equal(m.s.carry_ns, 250 * US);
}

/* A tick during a poll is no timer wake-up when the idle loop goes on,
 * and a poll ended by another CPU past the limit is not timed out. */
static void test_idle_poll_timeout_edges(void **state)
{
	struct sim m;
	__u64 res, lat, t;

	(void)state;
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	/* the kernel's poll limit here: C1's residency 2us is below 10us,
	 * C2's 150us is the limit */
	assert_int_equal(pol_poll_limit_ns(&m.c), 150 * US);
	t = m.now;
	m.s.next_timer_ns = t + 20 * US;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.timer_fired = 1;
	m.s.exit_goes_on = 1;	/* the tick woke no task: the idle loop goes on */
	pol_idle_exit(&m.s, &m.c, t + 160 * US, &res, &lat);
	assert_int_equal(m.s.carry_ns, 160 * US);
	assert_int_equal(m.s.nr_timer_samples, 0);
	assert_int_equal(lat, 0);
	sim_reinit(&m);
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 0, t);
	pol_wake_stamp(&m.s, t + 159 * US);
	pol_idle_exit(&m.s, &m.c, t + 160 * US, &res, &lat);
	assert_int_equal(m.s.carry_ns, 0);
	assert_int_equal(m.s.bins[2], 1024);	/* worth 159us >= 150us */
	/* poll_max_us = 0 (no veto by length): a timeout is still carried,
	 * the pick halts once the carried time passed C1's payback point (4us;
	 * test_idle_poll_max_zero_quiet_released), and the whole period is
	 * learned when it ends */
	sim_reinit(&m);
	m.c.poll_max_us = 0;
	m.s.idle_pick = 0;
	m.s.hist_pick = 0;
	m.s.bins[0] = 8 * 1024;		/* the history says poll */
	t = m.now;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.exit_goes_on = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS, &res, &lat);
	assert_int_equal(m.s.carry_ns, 1 * MS);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	t += 1 * MS;
	pol_idle_enter(&m.s, &m.c, 0, t);
	pol_wake_stamp(&m.s, t + 9 * US);
	pol_idle_exit(&m.s, &m.c, t + 10 * US, &res, &lat);
	assert_int_equal(m.s.carry_ns, 0);
	assert_int_equal(m.s.bins[3], 1024);	/* 1009us: C3's bin */
	assert_int_equal(m.s.bins[0], 7 * 1024);
}

/* cpuidle_poll_time(): the first non-polling state's residency of at
 * least 10us, capped at tick/16. */
static void test_idle_poll_limit(void **state)
{
	struct bpfgov_config c;

	(void)state;
	bpfgov_config_defaults(&c);
	/* halt claims 1us (a VM's haltpoll table): below 10us -> tick/16 */
	assert_int_equal(c.tick_us, 4000);
	assert_int_equal(pol_poll_limit_ns(&c), 250 * US);
	/* a truthful table: halt 100us */
	c.state_residency_us[1] = 100;
	assert_int_equal(pol_poll_limit_ns(&c), 100 * US);
	/* edge: exactly 10us counts */
	c.state_residency_us[1] = 10;
	assert_int_equal(pol_poll_limit_ns(&c), 10 * US);
	/* above the cap */
	c.state_residency_us[1] = 1000;
	assert_int_equal(pol_poll_limit_ns(&c), 250 * US);
	c.tick_us = 1000;			/* HZ=1000 */
	assert_int_equal(pol_poll_limit_ns(&c), 62500);
	/* a poll-only table */
	c.nr_states = 1;
	assert_int_equal(pol_poll_limit_ns(&c), 62500);
}

/* ------------------------------------------------------------------ */
/* Timers                                                             */
/* ------------------------------------------------------------------ */

/* The pick capped by the next timer, as teo does it (replay's ideal
 * column): no state whose payback point lies beyond the timer. */
static void test_idle_timer_cap(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	/* paybacks: 0, 4us, 150us, 800us */
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 3, 0), 3);		/* unknown */
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 3, 800 * US), 3);	/* edge: pays */
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 3, 800 * US - 1), 2);
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 3, 150 * US - 1), 1);
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 3, 4 * US - 1), 0);
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 1, 10 * MS), 1);	/* never deeper */
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 0, 10 * MS), 0);
	/* at idle entry the standing pick is not capped (the kernel's
	 * governor caps its own choice): entering leaves it and the state */
	m.s.idle_pick = 3;
	m.s.next_timer_ns = m.now + 200 * US;	/* would cap to 2 */
	pol_idle_enter(&m.s, &m.c, 3, m.now);
	assert_int_equal(m.s.idle_pick, 3);
	assert_int_equal(m.s.cur_state, 3);
	m.s.cur_state = BPFGOV_NO_STATE;
	/* a measured cost moves the payback: C1 cost 100us -> 200us */
	m.s.wake_cost_ns[1] = 100 * US;
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 1, 199 * US), 0);
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 1, 200 * US), 1);
}

/* One idle period in halt, woken from another CPU: @dur long, its next
 * timer @timer after entry. Returns pol_idle_exit's flags. */
static __u32 sim_timed_idle(struct sim *m, __u64 dur, __u64 timer)
{
	m->s.next_timer_ns = m->now + timer;
	return sim_idle(m, dur, 1, 10 * US);
}

/* Near timers: a halting pick of the history's own leaves polling to the
 * governor (poll_ok) once one idle in 8 had its next timer before halt
 * paid back, and takes it back below one in 16; the veto's halt never
 * does; a poll_ok change alone is a pick decision with the reason kept. */
static void test_idle_near_timer_poll_ok(void **state)
{
	struct sim m;
	__u32 flips = 0, r, reason, i;
	int ok = 0;

	(void)state;
	sim_init(&m);
	m.c.state_exit_latency_us[1] = 50;	/* halt pays back from 100us */
	m.c.state_residency_us[1] = 50;
	sim_reinit(&m);
	for (i = 0; i < 64; i++) {		/* long idles, far timers */
		sim_busy(&m, 100 * US, 0);
		sim_timed_idle(&m, 1 * MS, 10 * MS);
	}
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.short_share, 0);
	assert_int_equal(m.s.poll_ok, 0);
	reason = m.s.pick_reason;
	/* one in 4 has its timer 60us away (< 100us): poll_ok comes, once */
	for (i = 0; i < 400; i++) {
		sim_busy(&m, 100 * US, 0);
		r = i % 4 ? sim_timed_idle(&m, 1 * MS, 10 * MS) : sim_timed_idle(&m, 80 * US, 60 * US);
		if ((int)m.s.poll_ok != ok) {
			assert_true(r & POL_PICK);
			ok = (int)m.s.poll_ok;
			flips++;
		}
	}
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.poll_ok, 1);
	assert_int_equal(flips, 1);
	assert_int_equal(m.s.pick_reason, reason);	/* poll_ok alone */
	assert_true(m.s.short_share >= 65536 / 8);
	/* a timer at the payback point itself is not near */
	r = m.s.short_share;
	sim_busy(&m, 100 * US, 0);
	sim_timed_idle(&m, 1 * MS, 100 * US);
	assert_int_equal(m.s.short_share, r - (r >> 8));
	/* far timers only: kept down to 1/16, then taken back, once */
	for (i = 0; i < 1000; i++) {
		sim_busy(&m, 100 * US, 0);
		r = sim_timed_idle(&m, 1 * MS, 10 * MS);
		if ((int)m.s.poll_ok != ok) {
			assert_true(r & POL_PICK);
			assert_true(m.s.short_share < 65536 / 16);
			ok = (int)m.s.poll_ok;
			flips++;
		}
		if (ok)
			assert_true(m.s.short_share >= 65536 / 16);
	}
	assert_int_equal(m.s.poll_ok, 0);
	assert_int_equal(flips, 2);
	/* the veto's halt (the history says poll) shuts polling again */
	m.s.short_share = 65536 / 2;
	assert_int_equal(pol_idle_learn(&m.s, &m.c, 1 | POL_LEARN_SELECT_ONLY, 0, 0), POL_PICK);
	assert_int_equal(m.s.poll_ok, 1);
	m.s.bins[0] = 8 * 1024;
	m.s.bins[1] = 0;
	m.s.long_share = 1024;
	assert_int_equal(pol_idle_learn(&m.s, &m.c, 1 | POL_LEARN_SELECT_ONLY, 0, 0), POL_PICK);
	assert_int_equal(m.s.hist_pick, 0);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.poll_ok, 0);
	/* nothing to leave to the governor without a polling state */
	m.c.state_is_poll[0] = 0;
	m.s.bins[0] = 0;
	m.s.bins[1] = 8 * 1024;
	m.s.long_share = 0;
	pol_idle_learn(&m.s, &m.c, 1 | POL_LEARN_SELECT_ONLY, 0, 0);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.poll_ok, 0);
}

/* A timer wake-up measures the wake-up cost from the programmed expiry
 * to the idle exit, and the idle worth up to the expiry. */
static void test_idle_timer_wake_cost(void **state)
{
	struct sim m;
	__u64 res, lat, t;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	m.s.timer_fired = 1;			/* local timer interrupt */
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 90 * US, &res, &lat);
	assert_int_equal(res, 1090 * US);
	assert_int_equal(lat, 90 * US);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	assert_int_equal(m.s.wake_cost_ns[1], 90 * US);	/* first sample */
	assert_int_equal(m.s.nr_timer_wakes, 1);
	assert_int_equal(m.s.nr_timer_samples, 1);
	assert_int_equal(m.s.nr_wake_samples, 1);
	assert_int_equal(m.s.expected_idle_ns, 1 * MS / 8);	/* worth = to expiry */
	assert_int_equal(m.s.timer_fired, 0);
	/* halt now pays back from 2 x 90us */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 180 * US);
	/* second sample 10us, below: one step of 1/16 -> 90 - 5.625 = 84.375us */
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 10 * US, &res, &lat);
	assert_int_equal(m.s.wake_cost_ns[1], 90000 - 5625);
	/* edge: exit exactly at the expiry: a sample of 0 */
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS, &res, &lat);
	assert_int_equal(lat, 0);
	assert_int_equal(m.s.nr_timer_samples, 3);
	/* too late (beyond 2ms): a timer wake-up, no sample */
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 3 * MS + 1, &res, &lat);
	assert_int_equal(lat, 0);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	assert_int_equal(m.s.nr_timer_wakes, 4);
	assert_int_equal(m.s.nr_timer_samples, 3);
	/* the interrupt came before the expiry (a timer armed meanwhile):
	 * timer, but no cost sample */
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 500 * US, &res, &lat);
	assert_int_equal(lat, 0);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	assert_int_equal(m.s.nr_timer_samples, 3);
	/* no interrupt, no stamp: other (device interrupt, poll limit) */
	sim_busy(&m, 10 * US, 0);
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_idle_exit(&m.s, &m.c, t + 2 * MS, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_OTHER);
	assert_int_equal(lat, 0);
}

/* Remote stamp and timer: a halting state ends at the first interrupt
 * (a timer that came in it woke it), a poll at the wakeup that came last. */
static void test_idle_wake_reason_first_wins(void **state)
{
	struct sim m;
	__u64 res, lat, t;

	(void)state;
	sim_init(&m);
	/* a halting state, stamp at +400us, the timer's interrupt at +1ms
	 * ends it: the wakeup went to another CPU (the stamp was aimed where
	 * the task last ran). Timer, cost from the expiry: not a 650 us
	 * "wake-up cost" from the stamp. */
	t = m.now;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 400 * US);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 50 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	assert_int_equal(lat, 50 * US);
	assert_int_equal(m.s.nr_remote_wakes, 0);
	assert_int_equal(m.s.wake_ts_ns, 0);
	/* a poll, the tick at +1ms in it (it polls on), the waker's stamp at
	 * +1.2ms: remote, cost from the stamp */
	t = m.now + 2 * MS;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 0, t);
	m.s.timer_fired = 1;
	pol_wake_stamp(&m.s, t + 1 * MS + 200 * US);
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 203 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_REMOTE);
	assert_int_equal(lat, 3 * US);
	assert_int_equal(m.s.nr_remote_wakes, 1);
	/* a poll, the stamp at +400us (the wakeup went elsewhere: a poll
	 * would have ended at once), the tick at +1ms ends it: timer */
	t = m.now + 2 * MS;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 0, t);
	pol_wake_stamp(&m.s, t + 400 * US);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 2 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	assert_int_equal(lat, 2 * US);
	assert_int_equal(m.s.nr_remote_wakes, 1);
	/* a halting state, stamp at +400us, exit at +410us before the
	 * timer's expiry: remote, cost from the stamp */
	t = m.now + 2 * MS;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 400 * US);
	pol_idle_exit(&m.s, &m.c, t + 410 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_REMOTE);
	assert_int_equal(lat, 10 * US);
	assert_int_equal(m.s.nr_remote_wakes, 2);
	/* timer at +1ms, stamp at +1.02ms (after): timer, cost from expiry */
	t = m.now + 2 * MS;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 1 * MS + 20 * US);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 50 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	assert_int_equal(lat, 50 * US);
	assert_int_equal(m.s.wake_ts_ns, 0);
	/* edge: stamp exactly at the expiry: the timer was first */
	t += 3 * MS;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 1 * MS);
	m.s.timer_fired = 1;
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 5 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_TIMER);
	/* a stamp without the timer interrupt: remote even past the expiry */
	t += 3 * MS;
	m.s.next_timer_ns = t + 1 * MS;
	pol_idle_enter(&m.s, &m.c, 1, t);
	pol_wake_stamp(&m.s, t + 1 * MS + 1 * US);
	pol_idle_exit(&m.s, &m.c, t + 1 * MS + 5 * US, &res, &lat);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_REMOTE);
	assert_int_equal(lat, 4 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_fixed_state_never_repicks),
		cmocka_unit_test(test_wake_fast_is_exit_then_begin),
		cmocka_unit_test(test_idle_worth_wake_stamp),
		cmocka_unit_test(test_idle_worth_residency_minus_cost),
		cmocka_unit_test(test_idle_worth_stamp_at_exit),
		cmocka_unit_test(test_idle_timed_out_poll_carried),
		cmocka_unit_test(test_idle_poll_timeout_edges),
		cmocka_unit_test(test_idle_poll_max_zero_quiet_released),
		cmocka_unit_test(test_idle_poll_limit_learned),
		cmocka_unit_test(test_idle_cost_median_outliers),
		cmocka_unit_test(test_idle_poll_limit),
		cmocka_unit_test(test_idle_timer_cap),
		cmocka_unit_test(test_idle_near_timer_poll_ok),
		cmocka_unit_test(test_idle_timer_wake_cost),
		cmocka_unit_test(test_idle_wake_reason_first_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
