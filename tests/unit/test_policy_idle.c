// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the bpfgov policy core, idle choice (include/bpfgov_idle.h,
 * through include/bpfgov_policy.h). The simulation helpers, and how the
 * tests drive the hooks, are in policy_sim.h.
 *
 * Every expected number is derived in a comment next to its assertion.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy_sim.h"
#include "actuate.h"
#include "unit_tmpdir.h"

/* ------------------------------------------------------------------ */
/* Idle choice                                                        */
/* ------------------------------------------------------------------ */

static void test_tunables_default_state_table(void **state)
{
	struct bpfgov_config c;

	(void)state;
	bpfgov_config_defaults(&c);
	/* poll + halt: what the kernel does without a cpuidle driver */
	assert_int_equal(c.nr_states, 2);
	assert_int_equal(c.state_is_poll[0], 1);
	assert_int_equal(c.state_is_poll[1], 0);
	assert_int_equal(c.state_exit_latency_us[1], 1);
	assert_int_equal(c.state_residency_us[1], 1);
	assert_int_equal(c.nr_states >= 1 && c.nr_states <= BPFGOV_MAX_STATES, 1);
}

static void test_idle_payback_points(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	assert_int_equal(m.c.payback_pct, 200);			/* new default */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 0), 0);	/* poll */
	/* default halt: max(resid 1us, 2 * exit 1us) = 2us */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 2 * US);
	cfg_four_states(&m.c);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 4 * US);	/* 2 * 2us */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 2), 150 * US);	/* resid > 100us */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 3), 800 * US);	/* resid > 400us */
	m.c.payback_pct = 1000;		/* cost x 10 now wins over residency */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 2), 500 * US);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 3), 2000 * US);
	m.c.payback_pct = 100;		/* the old rule: cost x 1 */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 2 * US);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 3), 800 * US);
	m.c.payback_pct = 200;
	m.s.wake_cost_ns[2] = 400 * US;	/* measured beats table 50us */
	/* max(150us, 2 * 400us) = 800us */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 2), 800 * US);
	assert_int_equal(pol_state_cost_ns(&m.s, &m.c, 2), 400 * US);
	m.s.wake_cost_ns[2] = 10 * US;	/* measured below table: table 50us */
	assert_int_equal(pol_state_cost_ns(&m.s, &m.c, 2), 50 * US);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 2), 150 * US);
	m.s.wake_cost_ns[0] = 400 * US;	/* polling never needs a payback */
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 0), 0);
}

static void test_idle_no_history_deepest_allowed(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	assert_int_equal(m.s.idle_pick, 3);
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);	/* unchanged */
	assert_int_equal(m.s.idle_pick, 3);
	/* QoS 100us: C3 (exit 200us) excluded, C2 (50us) is the deepest */
	m.s.qos_limit_us = 100;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 2);
	assert_int_equal(m.s.nr_pick_changes, 1);
	/* QoS 50us: exactly C2's exit latency is allowed */
	m.s.qos_limit_us = 50;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	m.s.qos_limit_us = 49;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
}

/* Comparing with a payback point without working it out (pol_paid, no
 * division) is the comparison itself: at the point, one below and one
 * above, and at random, for polling and halting states, measured and
 * table costs, payback_pct from 0 to 1000. */
static void test_paid_is_payback_compare(void **state)
{
	__u64 pb, x;
	__u32 k, i, v = 99;
	struct sim m;

	(void)state;
	sim_init(&m);
	for (i = 0; i < 20000; i++) {
		k = (__u32)lcg_below(&v, m.c.nr_states ? m.c.nr_states : 1);
		m.c.payback_pct = (__u32)lcg_below(&v, 1001);
		m.c.state_exit_latency_us[k] = (__u32)lcg_below(&v, 3000);
		m.c.state_residency_us[k] = (__u32)lcg_below(&v, 5000);
		m.s.wake_cost_ns[k] = (__u32)(lcg_below(&v, 4) ? lcg_below(&v, 5000000) : 0);
		pb = pol_payback_ns(&m.s, &m.c, k);
		assert_int_equal(pol_paid(&m.s, &m.c, k, pb), 1);
		assert_int_equal(pol_paid(&m.s, &m.c, k, pb + 1), 1);
		if (pb)
			assert_int_equal(pol_paid(&m.s, &m.c, k, pb - 1), 0);
		x = lcg_below(&v, 20000000);
		assert_int_equal(pol_paid(&m.s, &m.c, k, x), x >= pb);
	}
}

static void test_idle_history_short_picks_poll_long_picks_halt(void **state)
{
	struct sim m;
	int i;

	(void)state;
	/* One history (history_ctx 0): the arithmetic of a single context;
	 * test_idle_context_* cover two. Default table: halt costs 1us and
	 * pays back from an idle worth of 2us. A 500ns halt residency is worth max(500ns - 1us, 0) = 0: bin 0
	 * (poll), and too deep. One sample: total 1024, acc(halt) 0,
	 * 0 * 2 < 1024 -> poll. */
	sim_init(&m);
	m.c.history_ctx = 0;
	assert_int_equal(m.s.idle_pick, 1);
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 500, 1, 0), POL_PICK);
	assert_int_equal(m.s.bins[0], 1024);
	assert_int_equal(m.s.bins[1], 0);
	assert_int_equal(m.s.nr_too_deep, 1);
	assert_int_equal(m.s.expected_idle_ns, 0);	/* worth 0, not 500ns */
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	/* 500ns polls are worth 500ns < 2us: bin 0 again */
	for (i = 0; i < 10; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 500, 0, 0);
	}
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.nr_too_shallow, 0);
	/* bins[0] after 11 samples (b = b - (b >> 3) + 1024): 1024, 1920,
	 * 2704, 3390, 3991, 4517 (3991 - 498 + 1024), 4977 (4517 - 564 +
	 * 1024), 5379 (- 622), 5731 (- 672), 6039 (- 716), 6309 (- 754) */
	assert_int_equal(m.s.bins[0], 6309);
	assert_int_equal(m.s.bins[1], 0);
	/* long polls (150us <= poll_max 200us, so no veto: the history alone
	 * moves the pick). A poll is worth its whole residency, 150us >= 2us:
	 * bin 1, and each one is too shallow. bins[0] only decays: 5521,
	 * 4831, 4228, 3700, 3238; bins[1] grows 1024, 1920, 2704, 3390, 3991.
	 * then 2834, 2480; bins[1] 4517, 4977. Going deeper than the current
	 * pick (poll) takes 5/8 of the history: bins[1] * 8 >= total * 5.
	 * 5th: 3991 * 8 = 31928 < (3238 + 3991) * 5 = 36145; 6th: 36136 <
	 * (2834 + 4517) * 5 = 36755; 7th: 39816 >= (2480 + 4977) * 5 = 37285.
	 * (A bare median would have switched at the 5th: 3991 >= 3238.) */
	for (i = 0; i < 20 && m.s.idle_pick == 0; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 150 * US, 0, 0);
	}
	assert_int_equal(i, 7);
	assert_int_equal(m.s.bins[0], 2480);
	assert_int_equal(m.s.bins[1], 4977);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	assert_int_equal(m.s.nr_too_shallow, 7);
	assert_int_equal(m.s.nr_long_polls, 0);

	/* 4 states: the same 300us residency is worth 298us in C1 (bin 2:
	 * 150 <= 298 < 800) but only 300 - 200 = 100us in C3 (bin 1:
	 * 4 <= 100 < 150). */
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 300 * US, 1, 0), POL_PICK);
	assert_int_equal(m.s.bins[2], 1024);
	assert_int_equal(m.s.idle_pick, 2);		/* from 3 */
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	assert_int_equal(m.s.nr_too_shallow, 1);	/* C2 would have paid back */
	assert_int_equal(m.s.expected_idle_ns, 298 * US / 8);	/* 37250 */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 300 * US, 3, 0), POL_PICK);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.nr_too_deep, 1);		/* 100us < 800us */
	assert_int_equal(m.s.expected_idle_ns, 100 * US / 8);	/* 12500 */
	/* 1us residencies: worth 1us in poll, 0 in C1/C2: bin 0 -> poll
	 * (expected idle only falls, stays < 200us) */
	for (i = 0; i < 20; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 1 * US, m.s.idle_pick, 0);
	}
	assert_int_equal(m.s.idle_pick, 0);
}

/* Measured wake cost: halt's table says 1us; a waker stamps the CPU and
 * the exit comes 100us later -> wake_cost_ns[1] = 100000, payback
 * 2 * 100us = 200us. Then residencies of 50us (worth 50 - 100 -> 0) are
 * "too short for halt". */
static void test_idle_measured_cost_raises_payback(void **state)
{
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	/* before the measurement a 50us halt is fine: worth 50 - 1 = 49us
	 * >= payback 2us */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 50 * US, 1, 0);
	assert_int_equal(m.s.nr_too_deep, 0);
	assert_int_equal(m.s.bins[1], 1024);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.expected_idle_ns, 49 * US / 8);	/* 6125 */

	/* 500us halt, stamped 100us before the exit: worth = stamp - enter
	 * = 400us >= 200us: bin 1, not too deep */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 500 * US, 1, 100 * US);	/* asserts wake_lat == 100us */
	assert_int_equal(m.s.wake_cost_ns[1], 100000);
	assert_int_equal(m.s.nr_wake_samples, 1);
	assert_int_equal(m.s.wake_ts_ns, 0);
	assert_int_equal(m.s.nr_too_deep, 0);
	assert_int_equal(m.s.bins[1], 1920);	/* 1024 - 128 + 1024 */
	/* 6125 - 765 + 400us / 8 (50000) = 55360 */
	assert_int_equal(m.s.expected_idle_ns, 55360);
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 200 * US);
	m.c.payback_pct = 100;
	assert_int_equal(pol_payback_ns(&m.s, &m.c, 1), 100 * US);
	m.c.payback_pct = 200;

	/* 10 x 50us in the current pick. In halt: worth 0 < 200us, too deep,
	 * bin 0. Staying in halt (the current pick) takes 3/8 of the history:
	 * bins[1] * 8 >= total * 3. 1st: bins[1] 1920 - 240 = 1680, bins[0]
	 * 1024: 13440 >= 8112, halt stays. 2nd: bins[1] 1680 - 210 = 1470,
	 * bins[0] 1024 - 128 + 1024 = 1920: 11760 >= 10170, stays. 3rd:
	 * bins[1] 1470 - 183 = 1287, bins[0] 1920 - 240 + 1024 = 2704:
	 * 10296 < 11973: poll. Then 7 polls worth 50us < 200us: bin 0,
	 * neither too deep nor too shallow. */
	for (i = 0; i < 10; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 50 * US, m.s.idle_pick, 0);
		if (i < 2)
			assert_int_equal(m.s.idle_pick, 1);
	}
	assert_int_equal(m.s.nr_too_deep, 3);
	assert_int_equal(m.s.nr_too_shallow, 0);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	assert_int_equal(m.s.poll_ns, 7 * 50 * US);

	/* Running median (shift 3: steps of 1/16): a second sample of 20us,
	 * below: 100000 - 100000/16 = 93750. Worth 480us >= 2 * 93.75us:
	 * not too deep. */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 500 * US, 1, 20 * US);
	assert_int_equal(m.s.wake_cost_ns[1], 93750);
	assert_int_equal(m.s.nr_wake_samples, 2);
	assert_int_equal(m.s.nr_too_deep, 3);

	/* the stamp is taken once per residency: the first waker counts */
	pol_busy_begin(&m.s, &m.c, m.now);
	m.now += 10 * US;
	pol_busy_end(&m.s, &m.c, m.now);
	pol_idle_enter(&m.s, &m.c, 1, m.now);
	pol_wake_stamp(&m.s, m.now + 100 * US);
	pol_wake_stamp(&m.s, m.now + 150 * US);
	{
		__u64 res, lat;

		pol_idle_exit(&m.s, &m.c, m.now + 180 * US, &res, &lat);
		assert_int_equal(res, 180 * US);
		assert_int_equal(lat, 80 * US);
		/* 80000 is below: 93750 - 93750/16 (5859) = 87891 */
		assert_int_equal(m.s.wake_cost_ns[1], 87891);
		/* worth = first stamp - enter = 100us < 2 * 87.9us = 175.8us:
		 * too deep */
		assert_int_equal(m.s.nr_too_deep, 4);
	}
	/* no stamp outside a residency */
	pol_wake_stamp(&m.s, m.now + 200 * US);
	assert_int_equal(m.s.wake_ts_ns, 0);
}

/* PM QoS with a measured cost: halt costs 100us (measured), QoS 50us:
 * halt is excluded, only poll remains (reason QOS), and the poll veto
 * cannot pick a halt that QoS forbids. */
static void test_idle_qos_limit(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 500 * US, 1, 100 * US);	/* worth 400us >= 200us: bin 1 */
	assert_int_equal(m.s.wake_cost_ns[1], 100000);
	assert_int_equal(m.s.idle_pick, 1);
	m.s.qos_limit_us = 100;			/* cost == limit: allowed */
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	assert_int_equal(m.s.idle_pick, 1);
	m.s.qos_limit_us = 50;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_QOS);
	/* even with a long poll the only allowed state is poll */
	assert_int_equal(pol_idle_select(&m.s, &m.c, 1), 0);
	assert_int_equal(m.s.idle_pick, 0);
	/* limit lifted: back to halt */
	m.s.qos_limit_us = 0;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);

	/* QoS also bounds too_shallow: a 1ms residency in C2 is worth
	 * 1000 - 50 = 950us >= C3's 800us, but C3 is excluded (exit 200us >
	 * 100us), so it is not too shallow */
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	m.s.qos_limit_us = 100;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 1 * MS, 2, 0);
	assert_int_equal(m.s.nr_too_shallow, 0);
	assert_int_equal(m.s.bins[3], 1024);	/* binning ignores QoS */
	assert_int_equal(m.s.idle_pick, 2);	/* history wants C3, QoS gives C2 */
	m.s.qos_limit_us = 0;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 1 * MS, 2, 0);
	assert_int_equal(m.s.nr_too_shallow, 1);
	assert_int_equal(m.s.idle_pick, 3);
}

/*
 * The reason for a pick that PM QoS made shallower than the history (or
 * the no-history default) asks for must be QOS.
 *
 * Guards pol_idle_select's reason: reporting QOS only when no non-polling
 * state is allowed at all would, with 4 states and C3 cut by QoS, pick C2
 * and report HISTORY, although there is no history.
 */
static void test_idle_qos_reason_multi_state(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	m.s.qos_limit_us = 100;			/* C3 exit 200us: out */
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 2);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_QOS);
	/* same with history pointing at C3: a 1ms residency in C3 is worth
	 * 1000 - 200 = 800us = C3's payback: bin 3 */
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 1 * MS, 3, 0);
	assert_int_equal(m.s.idle_pick, 3);
	m.s.qos_limit_us = 100;
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 1 * MS, 3, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 2);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_QOS);
}

/* too_deep: idle worth below the entered state's payback.
 * too_shallow: idle worth enough for a deeper allowed state.
 * Default table: halt costs 1us, pays back from a worth of 2us, i.e. from
 * a 3us halt residency or a 2us poll. */
static void test_idle_too_deep_too_shallow(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 999, 1, 0);		/* halt, worth 0 */
	assert_int_equal(m.s.nr_too_deep, 1);
	assert_int_equal(m.s.nr_too_shallow, 0);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 1 * US, 1, 0);		/* 1us halt: worth 0 (the old
						 * rule called this paid back) */
	assert_int_equal(m.s.nr_too_deep, 2);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 3 * US - 1, 1, 0);		/* worth 1999ns < 2us */
	assert_int_equal(m.s.nr_too_deep, 3);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 3 * US, 1, 0);		/* worth 2us: exactly paid back */
	assert_int_equal(m.s.nr_too_deep, 3);
	assert_int_equal(m.s.nr_too_shallow, 0);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 5 * US, 0, 0);		/* poll worth 5us: halt paid back */
	assert_int_equal(m.s.nr_too_shallow, 1);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 2 * US, 0, 0);		/* poll worth 2us: exactly */
	assert_int_equal(m.s.nr_too_shallow, 2);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 2 * US - 1, 0, 0);		/* 1999ns poll: right choice */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 999, 0, 0);		/* short poll: right choice */
	assert_int_equal(m.s.nr_too_deep, 3);
	assert_int_equal(m.s.nr_too_shallow, 2);
	assert_int_equal(m.s.nr_idle, 8);

	/* 4 states (see cfg_four_states: costs 2/50/200us, paybacks
	 * 4/150/800us) */
	sim_init(&m);
	cfg_four_states(&m.c);
	sim_reinit(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 100 * US, 3, 0);		/* worth 0 (100 < 200): needs 800 */
	assert_int_equal(m.s.nr_too_deep, 1);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 999 * US, 3, 0);		/* worth 799us < 800us */
	assert_int_equal(m.s.nr_too_deep, 2);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 1000 * US, 3, 0);		/* worth 800us: paid back */
	assert_int_equal(m.s.nr_too_deep, 2);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 100 * US, 1, 0);		/* worth 98us: C2 needs 150: right */
	assert_int_equal(m.s.nr_too_shallow, 0);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 151 * US, 1, 0);		/* worth 149us: still right */
	assert_int_equal(m.s.nr_too_shallow, 0);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 152 * US, 1, 0);		/* worth 150us: C2 paid back */
	assert_int_equal(m.s.nr_too_shallow, 1);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 850 * US, 2, 0);		/* worth 800us: C3 paid back */
	assert_int_equal(m.s.nr_too_shallow, 2);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 849 * US, 2, 0);		/* worth 799us: C2 right */
	assert_int_equal(m.s.nr_too_shallow, 2);
	assert_int_equal(m.s.nr_too_deep, 2);
}

/* Bins decay by 1/2^shift per idle period (shift 3: keep 7/8, truncated):
 * 1024 -> 896 -> 784 -> 686 -> 601; each new sample adds 1024. */
static void test_idle_bins_decay(void **state)
{
	static const __u32 old[] = { 1024, 896, 784, 686, 601 };
	struct sim m;
	unsigned i;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 50 * US, 1, 0);		/* worth 49us >= 2us: bin 1 */
	assert_int_equal(m.s.bins[1], old[0]);
	assert_int_equal(m.s.bins[0], 0);
	for (i = 1; i < 5; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 500, 1, 0);	/* worth 0: bin 0 */
		assert_int_equal(m.s.bins[1], old[i]);
	}
	/* bin 0: 1024, 1920, 2704, 3390 (= 2704 - 338 + 1024) */
	assert_int_equal(m.s.bins[0], 3390);
	/* pick: total 3991, acc(halt) 601, 1202 < 3991 -> poll */
	assert_int_equal(m.s.idle_pick, 0);
	/* shift 1 halves */
	m.c.bin_decay_shift = 1;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 500, 0, 0);		/* poll worth 500ns < 2us: bin 0 */
	assert_int_equal(m.s.bins[1], 301);	/* 601 - 300 */
	assert_int_equal(m.s.bins[0], 2719);	/* 3390 - 1695 + 1024 */
	/* expected idle: EWMA 1/8 of the worth, from 0.
	 * an 80us poll is worth 80us -> 10000;
	 * an 81us halt is worth 81 - 1 = 80us -> 10000 - 1250 + 10000 = 18750;
	 * a 300us halt stamped at 80us is worth 80us ->
	 * 18750 - 2343 + 10000 = 26407 */
	sim_init(&m);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 80 * US, 0, 0);
	assert_int_equal(m.s.expected_idle_ns, 10 * US);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 81 * US, 1, 0);
	assert_int_equal(m.s.expected_idle_ns, 18750);
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 300 * US, 1, 220 * US);
	assert_int_equal(m.s.expected_idle_ns, 26407);
}

/* ------------------------------------------------------------------ */
/* The polling veto                                                   */
/* ------------------------------------------------------------------ */

/* A poll longer than poll_max_us vetoes polling (LONG_POLL), and a long
 * expected idle does too ("powernightmares"). */
static void test_idle_long_poll_veto(void **state)
{
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	m.c.history_ctx = 0;	/* one history: its bins below */
	/* short history: the first residency is in halt (the initial pick),
	 * worth max(500ns - 1us, 0) = 0; then 19 polls worth 500ns < 2us:
	 * all bin 0 -> poll */
	for (i = 0; i < 20; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 500, m.s.idle_pick, 0);
	}
	assert_int_equal(m.s.idle_pick, 0);
	/* a poll of exactly poll_max (200us) is not long (worth 200us: bin 1) */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 200 * US, 0, 0);
	assert_int_equal(m.s.nr_long_polls, 0);
	assert_int_equal(m.s.idle_pick, 0);
	/* 201us: long. bins still say poll (bin 1 weight ~2 samples vs
	 * ~8 in bin 0) and expected idle <= 500ns + 200us/8 + 201us/8 ~ 51us
	 * < 200us: the veto comes from the long poll alone */
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 201 * US, 0, 0), POL_PICK);
	assert_int_equal(m.s.nr_long_polls, 1);
	assert_true(m.s.expected_idle_ns < 200 * US);
	assert_int_equal(m.s.bins[1], 1920);	/* 1024 - 128 + 1024 */
	assert_true(m.s.bins[1] * 2 < m.s.bins[0] + m.s.bins[1]);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	/* the first residency was in halt (the initial pick), 19 polled */
	assert_int_equal(m.s.poll_ns, 19 * 500 + 200 * US + 201 * US);

	/* the next short idle polls again: no long poll, long_share is one
	 * sample's weight (128 of 1024 < 50%), the bins say poll */
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 500, 1, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
}

/* The share veto: polling is vetoed once poll_veto_pct of the recent idle
 * periods were longer than poll_max_us, whatever their mean. */
static void test_idle_poll_share_veto(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	assert_int_equal(m.c.poll_veto_pct, 50);
	m.s.bins[0] = 8 * 1024;		/* the history says poll */
	m.s.idle_pick = 0;
	/* 511/1024 < 50%: poll stays */
	m.s.long_share = 511;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	assert_int_equal(m.s.idle_pick, 0);
	/* 512/1024 = 50%: vetoed */
	m.s.long_share = 512;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	/* 100%: only a long poll vetoes; a share near one (1020) does not */
	m.c.poll_veto_pct = 100;
	m.s.idle_pick = 0;
	m.s.long_share = 1020;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	assert_int_equal(pol_idle_select(&m.s, &m.c, 1), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
}

/* One long lull must not make the short idles that follow it halt: the
 * mean-based veto did (a 10ms lull kept the mean above poll_max_us for
 * ~20 idles); the share moves by one sample's weight. */
static void test_idle_lull_then_short_idles_poll(void **state)
{
	struct sim m;
	int i, ctx;

	(void)state;
	/* with one history and with one per context */
	for (ctx = 0; ctx <= 1; ctx++) {
		sim_init(&m);
		m.c.history_ctx = ctx;
		m.s.wake_cost_ns[1] = 100 * US;		/* halt pays back from 200us */
		for (i = 0; i < 30; i++) {
			sim_busy(&m, 10 * US, 0);
			sim_idle(&m, 20 * US, m.s.idle_pick, 10 * US);
		}
		assert_int_equal(m.s.idle_pick, 0);
		assert_int_equal(m.s.long_share, 0);
		assert_int_equal(m.s.ctx, !ctx);	/* 1 from the start: not kept */
		/* a 10ms lull in halt, woken by another CPU: worth 10ms, long */
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 10 * MS, 1, 100 * US);
		assert_true(m.s.expected_idle_ns > 200 * US);	/* the mean is high */
		/* one lull is not a run of long idles: the context stays */
		assert_int_equal(m.s.ctx, !ctx);
		assert_int_equal(m.s.long_share, 128);	/* 0 + 1024 >> 3 */
		/* the bins: 1024 in bin 1 against ~7 samples in bin 0: poll
		 * stays (or comes back at once), and the next short idles poll */
		assert_int_equal(m.s.idle_pick, 0);
		for (i = 0; i < 5; i++) {
			sim_busy(&m, 10 * US, 0);
			sim_idle(&m, 20 * US, m.s.idle_pick, 10 * US);
			assert_int_equal(m.s.idle_pick, 0);
		}
		/* decays by 1/8: 128 -16 -14 -12 -10 -9, in one history or in
		 * the short context that never left */
		assert_int_equal(m.s.long_share, 67);
	}
}

/* poll_max_us = 0 turns the veto by length off in both places: no poll
 * is counted long at idle exit, and pol_idle_select keeps a polling pick
 * whatever the long share. (A timed-out poll's carried time still vetoes:
 * test_idle_poll_max_zero_quiet_released.) */
static void test_idle_poll_max_zero_no_veto(void **state)
{
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	m.c.poll_max_us = 0;
	/* halt costs 20ms (measured): payback 40ms. A 100ns halt is worth 0:
	 * bin 0 -> poll. */
	m.s.wake_cost_ns[1] = 20 * MS;
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 100, 1, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	/* 10ms polls: worth 10ms < 40ms, bin 0. With poll_max 200us each
	 * would be long; with 0 none is, and expected idle climbs far above
	 * any limit (10ms / 8 = 1250000 after the first) without a veto. */
	for (i = 0; i < 10; i++) {
		sim_busy(&m, 10 * US, 0);
		assert_int_equal(sim_idle(&m, 10 * MS, 0, 0), 0);
		assert_int_equal(m.s.idle_pick, 0);
	}
	assert_int_equal(m.s.nr_long_polls, 0);
	assert_int_equal(m.s.poll_ns, 10 * 10 * MS);
	assert_true(m.s.expected_idle_ns >= 10 * MS / 8);
	assert_int_equal(m.s.bins[1], 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	/* direct: a long share does not veto */
	m.s.long_share = 1024;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	assert_int_equal(m.s.idle_pick, 0);
	/* the same state with poll_max 200us: vetoed at once */
	m.c.poll_max_us = 200;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	/* ... and the exit counts a 10ms poll (ended by another CPU) as long */
	m.s.idle_pick = 0;
	m.s.long_share = 0;
	sim_busy(&m, 10 * US, 0);
	assert_int_equal(sim_idle(&m, 10 * MS, 0, 1 * US), POL_PICK);
	assert_int_equal(m.s.nr_long_polls, 1);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
}

/* ------------------------------------------------------------------ */
/* History: hysteresis, contexts, quiet decay                         */
/* ------------------------------------------------------------------ */

/*
 * One idle period of @sleep as the kernel runs it (and replay models it):
 * the standing pick; a poll that reaches the kernel's poll limit times out
 * and the idle loop selects again; the last residency is ended by a waker
 * on another CPU, @sleep after the period began, and costs the state's
 * wake-up (1us polled, m->s.wake_cost_ns[1] halted). Returns the first pick.
 */
static __u32 sim_period(struct sim *m, __u64 sleep)
{
	__u64 left = sleep, res, lat, limit = pol_poll_limit_ns(&m->c), cost;
	__u32 first = m->s.idle_pick, pick;

	sim_busy(m, 50 * US, 0);
	for (;;) {
		pick = m->s.idle_pick;
		pol_idle_enter(&m->s, &m->c, pick, m->now);
		if (m->c.state_is_poll[pick] && left > limit) {
			m->now += limit;
			left -= limit;
			m->s.exit_goes_on = 1;	/* no task to run: the idle loop goes on */
			pol_idle_exit(&m->s, &m->c, m->now, &res, &lat);
			continue;
		}
		cost = m->c.state_is_poll[pick] ? 1 * US : m->s.wake_cost_ns[1];
		pol_wake_stamp(&m->s, m->now + left);
		m->now += left + cost;
		pol_idle_exit(&m->s, &m->c, m->now, &res, &lat);
		return first;
	}
}

/* Guards the hysteresis reference: the band is around the history's own
 * last pick (hist_pick), so a halt that the polling veto forced does not
 * lower the history's bar for halting from 5/8 to 3/8. */
static void test_idle_hysteresis_around_history_pick(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	m.s.bins[0] = 4 * 1024;
	m.s.bins[1] = 4 * 1024;		/* 4/8 long: inside the band */
	/* the veto forced a halt (idle_pick 1), the history had said poll */
	m.s.hist_pick = 0;
	m.s.idle_pick = 1;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_HISTORY);
	assert_int_equal(m.s.hist_pick, 0);
	/* the history itself halted: 4/8 >= 3/8 keeps it halting */
	m.s.hist_pick = 1;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	/* edges of the band: 5/8 is needed to go deeper, 3/8 to stay */
	m.s.hist_pick = 0;
	m.s.bins[0] = 3 * 1024;
	m.s.bins[1] = 5 * 1024;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);	/* already 1 */
	assert_int_equal(m.s.hist_pick, 1);
	m.s.bins[0] = 5 * 1024 + 1;
	m.s.bins[1] = 3 * 1024 - 1;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.hist_pick, 0);
	/* the veto changes idle_pick, never hist_pick */
	m.s.long_share = 512;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), POL_PICK);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	assert_int_equal(m.s.hist_pick, 0);
}

/* Guards pol_switch_ctx: the first visit of a context starts from a copy
 * of the other one; later changes swap the two histories (bins,
 * long_share and hist_pick together); history_ctx 0 keeps one. */
static void test_idle_context_switch(void **state)
{
	struct sim m;
	__u32 k, b0, b1;

	(void)state;
	sim_init(&m);
	m.s.wake_cost_ns[1] = 100 * US;		/* halt pays back from 200us */
	assert_int_equal(m.s.ctx, 1);		/* the initial pick halts */
	for (k = 0; k < BPFGOV_MAX_STATES; k++)
		assert_int_equal(m.s.alt_bins[k], 0);
	/* one short idle is not a run: context 1 learns it and stays */
	sim_period(&m, 20 * US);
	assert_int_equal(m.s.ctx, 1);
	assert_int_equal(m.s.ctx_streak, 1);
	for (k = 0; k < BPFGOV_MAX_STATES; k++)
		assert_int_equal(m.s.alt_bins[k], 0);
	/* the second in a row: context 0 starts as a copy of context 1 */
	sim_period(&m, 20 * US);
	assert_int_equal(m.s.ctx, 0);
	assert_int_equal(m.s.ctx_streak, 0);
	for (k = 0; k < BPFGOV_MAX_STATES; k++)
		assert_int_equal(m.s.alt_bins[k], m.s.bins[k]);
	assert_int_equal(m.s.bins[1], 0);
	assert_int_equal(m.s.alt_hist_pick, m.s.hist_pick);	/* both poll */
	assert_int_equal(m.s.hist_pick, 0);
	/* a long one: learned by context 0, which stays; a short one resets
	 * the streak */
	sim_period(&m, 2 * MS);
	assert_int_equal(m.s.ctx, 0);
	assert_int_equal(m.s.ctx_streak, 1);
	sim_period(&m, 20 * US);
	assert_int_equal(m.s.ctx_streak, 0);
	/* two long ones in a row: the histories swap */
	sim_period(&m, 2 * MS);
	b0 = m.s.bins[0];
	b1 = m.s.bins[1];
	sim_period(&m, 2 * MS);
	assert_int_equal(m.s.ctx, 1);
	assert_int_equal(m.s.alt_bins[0], b0 - (b0 >> m.c.bin_decay_shift));
	assert_int_equal(m.s.alt_bins[1], b1 - (b1 >> m.c.bin_decay_shift) + 1024);
	/* another long one stays in context 1 */
	sim_period(&m, 2 * MS);
	assert_int_equal(m.s.ctx, 1);
	/* one history: no context ever changes */
	sim_init(&m);
	m.c.history_ctx = 0;
	m.s.wake_cost_ns[1] = 100 * US;
	sim_period(&m, 20 * US);
	sim_period(&m, 20 * US);
	sim_period(&m, 2 * MS);
	sim_period(&m, 2 * MS);
	assert_int_equal(m.s.ctx, 1);
	for (k = 0; k < BPFGOV_MAX_STATES; k++)
		assert_int_equal(m.s.alt_bins[k], 0);
	/* a single state: every idle is of class 0, nothing to switch */
	sim_init(&m);
	m.c.nr_states = 1;
	sim_reinit(&m);
	assert_int_equal(m.s.ctx, 0);
	sim_period(&m, 20 * US);
	sim_period(&m, 20 * US);
	assert_int_equal(m.s.ctx, 0);
	assert_int_equal(m.s.alt_bins[0], 0);
}

/* Short and long idles taking turns (housekeeping between timer ticks):
 * the histories must not swap on every idle period, or the pick would
 * follow, a write each time; with contexts the picks change no more often
 * than with one history. */
static void test_idle_context_alternation_no_churn(void **state)
{
	struct sim m;
	__u32 last, lastctx, swaps, changes[2];
	int i, ctx;

	(void)state;
	for (ctx = 0; ctx <= 1; ctx++) {
		sim_init(&m);
		m.c.history_ctx = ctx;
		m.s.wake_cost_ns[1] = 100 * US;
		for (i = 0; i < 20; i++)
			sim_period(&m, i & 1 ? 2 * MS : 20 * US);
		last = m.s.idle_pick;
		lastctx = m.s.ctx;
		swaps = changes[ctx] = 0;
		for (i = 0; i < 200; i++) {
			sim_period(&m, i & 1 ? 2 * MS : 20 * US);
			changes[ctx] += m.s.idle_pick != last;
			swaps += m.s.ctx != lastctx;
			last = m.s.idle_pick;
			lastctx = m.s.ctx;
		}
		assert_int_equal(swaps, 0);
		assert_true(m.s.ctx_streak <= 1);
	}
	assert_true(changes[1] <= changes[0]);
}

/* Phases of short (20us) and long (2ms) idles, 40 each: once both
 * contexts have seen a phase, a change of phase costs one wrong pick each
 * POL_CTX_STREAK wrong picks each way (the first long ones polled to the
 * limit, the first short ones halted); one history needs several to turn
 * over. */
static void test_idle_context_phases(void **state)
{
	struct sim m;
	int ctx, cyc, i, halted_short, polled_long;

	(void)state;
	for (ctx = 1; ctx >= 0; ctx--) {
		sim_init(&m);
		m.c.history_ctx = ctx;
		m.s.wake_cost_ns[1] = 100 * US;
		halted_short = polled_long = 0;
		for (cyc = 0; cyc < 4; cyc++) {
			for (i = 0; i < 40; i++)
				if (sim_period(&m, 20 * US) != 0 && cyc == 3)
					halted_short++;
			for (i = 0; i < 40; i++)
				if (sim_period(&m, 2 * MS) == 0 && cyc == 3)
					polled_long++;
		}
		if (ctx) {
			/* the context follows after POL_CTX_STREAK idles */
			assert_int_equal(halted_short, POL_CTX_STREAK);
			assert_int_equal(polled_long, POL_CTX_STREAK);
		} else {
			assert_true(halted_short >= 4);
			assert_true(polled_long >= 4);
		}
	}
}

/* Short and long idles mixed at random (30 % long): both contexts learn
 * about the same mix and poll; only runs of long idles that chance
 * strings together move a context to halting for a while. */
static void test_idle_context_random_mix(void **state)
{
	struct sim m;
	__u32 rnd = 1, first;
	int i, shorts = 0, halted_short = 0;

	(void)state;
	sim_init(&m);
	m.s.wake_cost_ns[1] = 100 * US;
	for (i = 0; i < 1000; i++) {
		int is_long;

		rnd = rnd * 1103515245u + 12345u;
		is_long = (rnd >> 16) % 100 < 30;
		first = sim_period(&m, is_long ? 2 * MS : 20 * US);
		if (i >= 100 && !is_long) {
			shorts++;
			halted_short += first != 0;
		}
	}
	/* 29 of 649 with this seed; a context that followed a single long
	 * idle into halting would halt 30 % of them */
	assert_int_equal(shorts, 649);
	assert_true(halted_short * 8 < shorts);
}

/* A quiet CPU forgets by time: after a burst of short idles, the second
 * quiet idle (>= 8.4 ms) in a row turns the pick to halting by the history
 * itself; one lull among short idles does not. */
static void test_idle_quiet_decay(void **state)
{
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	m.s.wake_cost_ns[1] = 100 * US;
	for (i = 0; i < 40; i++)
		sim_period(&m, 20 * US);
	assert_int_equal(m.s.idle_pick, 0);
	sim_period(&m, 20 * MS);
	assert_int_equal(m.s.hist_pick, 0);	/* one lull: 1024 of 2816 */
	sim_period(&m, 20 * MS);
	assert_int_equal(m.s.idle_pick, 1);
	assert_int_equal(m.s.hist_pick, 1);	/* the history's own, not the veto's */
	/* a lone lull among short idles leaves them polled */
	sim_init(&m);
	m.s.wake_cost_ns[1] = 100 * US;
	for (i = 0; i < 40; i++)
		sim_period(&m, 20 * US);
	sim_period(&m, 20 * MS);
	for (i = 0; i < 3; i++)
		assert_int_equal(sim_period(&m, 20 * US), 0);
	assert_int_equal(m.s.idle_pick, 0);
	/* below 8.4 ms no time decay: a 2 ms idle decays by count alone */
	sim_init(&m);
	m.s.idle_pick = 0;
	m.s.hist_pick = 0;
	m.s.ctx = 0;
	m.s.bins[0] = 8 * 1024;
	m.s.wake_cost_ns[1] = 100 * US;
	sim_period(&m, 2 * MS);
	assert_int_equal(m.s.bins[0], 7 * 1024);
}

/* A lone lull among short idles leaves them the majority, however long
 * it is: the short idles after it are polled, with one history and with
 * one per context; the second quiet idle in a row turns the pick. */
static void forty_short_idles(struct sim *m, int ctx)
{
	sim_init(m);
	m->c.history_ctx = ctx;
	m->s.wake_cost_ns[1] = 100 * US;	/* halt pays back from 200us */
	for (int i = 0; i < 40; i++)
		sim_period(m, 20 * US);
	assert_int_equal(m->s.idle_pick, 0);
}

static void test_idle_lone_lull_any_length(void **state)
{
	static const __u64 lull_ms[] = { 20, 34, 100, 1000 };
	struct sim m;
	int i, ctx;

	(void)state;
	for (ctx = 0; ctx <= 1; ctx++) {
		for (size_t l = 0; l < sizeof(lull_ms) / sizeof(lull_ms[0]); l++) {
			forty_short_idles(&m, ctx);
			sim_period(&m, lull_ms[l] * MS);
			print_message("  history_ctx %d, a lone lull of %llu ms: history pick %u, pick %u "
				      "(bins %u / %u)\n", ctx, (unsigned long long)lull_ms[l],
				      m.s.hist_pick, m.s.idle_pick, m.s.bins[0], m.s.bins[1]);
			assert_int_equal(m.s.hist_pick, 0);
			assert_int_equal(m.s.idle_pick, 0);
			for (i = 0; i < 3; i++)
				assert_int_equal(sim_period(&m, 20 * US), 0);
			/* the second lull in a row turns it */
			forty_short_idles(&m, ctx);
			sim_period(&m, lull_ms[l] * MS);
			sim_period(&m, lull_ms[l] * MS);
			assert_int_equal(m.s.hist_pick, 1);
			assert_int_equal(m.s.idle_pick, 1);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Tables of up to CPUIDLE_STATE_MAX states                           */
/* ------------------------------------------------------------------ */

/* A 20 ms sleep in C10 (state 8, intel_idle's ninth) is booked to C10:
 * its wake-up cost, its history bin; no poll time, nothing of POLL's.
 * Masked by 7, it was state 0: 20 ms of polling and POLL's wake-up cost. */
static void test_idle_skl_c10_books_as_c10(void **state)
{
	struct sim m;

	(void)state;
	skl_setup(&m);
	assert_int_equal(m.s.idle_pick, 8);	/* deepest, no history yet */
	/* a waker stamps it 100 us before the exit: worth 19.9 ms, bin of
	 * the deepest state paying back by then (C10, 5000 us); the pick
	 * stays at C10 */
	assert_int_equal(sim_idle(&m, 20 * MS, 8, 100 * US), 0);
	assert_int_equal(m.s.wake_cost_ns[8], 100 * US);
	assert_int_equal(m.s.wake_cost_ns[0], 0);
	assert_int_equal(m.s.poll_ns, 0);
	assert_int_equal(m.s.nr_long_polls, 0);
	assert_int_equal(m.s.bins[8], POL_BIN_ONE);
	assert_int_equal(m.s.bins[0], 0);
	assert_int_equal(m.s.nr_too_deep, 0);
	assert_int_equal(m.s.idle_pick, 8);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_REMOTE);
}

/* A C10 residency after which the idle loop goes on (a timer that woke no
 * task) is not a poll that ran into the kernel's limit: the learned poll
 * limit stays unlearned (the formula's 20 us, C1E's residency), nothing is
 * carried into the idle period. Masked by 7, the limit became 20 ms. */
static void test_idle_skl_deep_exit_not_poll_limit(void **state)
{
	struct sim m;

	(void)state;
	skl_setup(&m);
	assert_int_equal(pol_poll_limit_ns(&m.c), 20 * US);
	m.s.exit_goes_on = 1;
	sim_idle(&m, 20 * MS, 8, 0);
	assert_int_equal(m.s.exit_goes_on, 0);
	assert_int_equal(m.s.poll_limit_ns, 0);
	assert_int_equal(pol_cpu_poll_limit_ns(&m.s, &m.c), 20 * US);
	assert_int_equal(m.s.carry_ns, 0);
	assert_int_not_equal(m.s.wake_reason, BPFGOV_WAKE_LIMIT);
	assert_int_equal(m.s.poll_ns, 0);
	/* worth 20 ms - 890 us of C10's exit: C10's bin */
	assert_int_equal(m.s.bins[8], POL_BIN_ONE);
	/* a real poll that runs into the limit still teaches it */
	m.s.exit_goes_on = 1;
	sim_idle(&m, 25 * US, 0, 0);
	assert_int_equal(m.s.poll_limit_ns, 25 * US);
	assert_int_equal(m.s.wake_reason, BPFGOV_WAKE_LIMIT);
}

/* The tenth state of a CPUIDLE_STATE_MAX table (index 9): the start pick,
 * its own bookings, the timer cap and the history walk reach it. The
 * state past C10 is made up (no driver registers ten today; the kernel
 * allows it). */
static void test_idle_state9(void **state)
{
	static const __u32 lat[] = { 0, 2, 10, 70, 85, 124, 200, 480, 890, 1200 };
	static const __u32 res[] = { 0, 2, 20, 100, 200, 800, 800, 5000, 5000, 10000 };
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	cfg_table(&m.c, lat, res, 10);
	sim_reinit(&m);
	assert_int_equal(m.s.idle_pick, 9);
	/* the timer cap: 20 ms left keeps state 9 (payback 10 ms), 3 ms caps
	 * at C8 (index 6, payback 800 us; C9 and C10 need 5 ms) */
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 9, 20 * MS), 9);
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 9, 3 * MS), 6);
	assert_int_equal(pol_timer_cap(&m.s, &m.c, 3, 3 * MS), 3);
	/* a 30 ms residency in state 9, stamped 200 us before the exit */
	sim_idle(&m, 30 * MS, 9, 200 * US);
	assert_int_equal(m.s.wake_cost_ns[9], 200 * US);
	assert_int_equal(m.s.wake_cost_ns[1], 0);
	assert_int_equal(m.s.bins[9], POL_BIN_ONE);
	assert_int_equal(m.s.poll_ns, 0);
	/* short idles (3 us, polled) turn the pick to POLL, long ones (30 ms)
	 * back to state 9 */
	for (i = 0; i < 40; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 3 * US, m.s.idle_pick, 0);
	}
	assert_int_equal(m.s.idle_pick, 0);
	for (i = 0; i < 40; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 30 * MS, m.s.idle_pick, 0);
	}
	assert_int_equal(m.s.idle_pick, 9);
	assert_true(m.s.bins[9] > 0);
}

/* ------------------------------------------------------------------ */
/* Pick changes and the dwell                                         */
/* ------------------------------------------------------------------ */

/*
 * Exponential idles straddling a state's payback point, through the policy
 * core (history per context): how often the standing pick changes per
 * simulated second, and what that costs in knob writes. Each idle follows
 * a 20 us busy run and is spent in the standing pick (a halting state's
 * residency is the idle plus its exit latency). Every decision is applied
 * by the actuator itself (act_set_idle_poll) to a stand-in sysfs tree of
 * one CPU under menu (PM QoS and every stateK/disable), which counts the
 * files it wrote: a pick change writes one to nine of them.
 */
struct straddle {
	double changes;		/* pick changes per simulated second */
	double writes;		/* knob writes per simulated second */
	__u32 pick;		/* the pick at the end */
};

static void put_text(const char *path, const char *text)
{
	char cmd[600];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A fresh stand-in tree under tmpdir for @c's table, and the actuator on
 * it. @root: 256 bytes. */
static struct actuator *straddle_knobs(const struct bpfgov_config *c, char *root)
{
	static unsigned int n;
	struct act_opts o = { .backend = ACT_NONE, .idle = true, .nr_cpus = 1, .quiet = true };
	char p[512], msr[300], sys[300];
	struct actuator *a;

	snprintf(root, 256, "%s/straddle%u", tmpdir, n++);
	snprintf(sys, sizeof(sys), "%.256s/sys", root);
	snprintf(msr, sizeof(msr), "%.256s/msr", root);
	snprintf(p, sizeof(p), "%s/devices/system/cpu/cpuidle/current_governor", sys);
	put_text(p, "menu\n");
	snprintf(p, sizeof(p), "%s/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us", sys);
	put_text(p, "0\n");
	for (__u32 k = 0; k < c->nr_states; k++) {
		snprintf(p, sizeof(p), "%s/devices/system/cpu/cpu0/cpuidle/state%u/disable", sys, k);
		put_text(p, "0\n");
	}
	snprintf(p, sizeof(p), "%s/.keep", msr);
	put_text(p, "");
	o.msr_root = msr;
	o.sysfs_root = sys;
	assert_int_equal(act_open(&a, &o), 0);
	return a;
}

static struct straddle straddle_run(struct sim *m, __u64 mean_ns, __u64 span_ns, __u32 seed)
{
	__u64 start = m->now, changes = m->s.nr_pick_changes, writes;
	char root[256];
	struct actuator *a = straddle_knobs(&m->c, root);
	struct straddle r;
	__u32 x = seed;

	/* the start pick stands before the first idle */
	assert_int_equal(act_set_idle_poll(a, 0, m->s.idle_pick, m->s.poll_ok == 1, &m->c), 0);
	writes = act_writes(a, 0);
	while (m->now - start < span_ns) {
		double u = (lcg_below(&x, 1u << 24) + 0.5) / (double)(1u << 24);
		__u64 idle = (__u64)(-log(u) * (double)mean_ns), res;
		__u32 st = m->s.idle_pick;

		sim_busy(m, 20 * US, 0);
		res = idle + (m->c.state_is_poll[st] ? 0 : m->c.state_exit_latency_us[st] * US);
		if (!res)
			res = 1;
		if (sim_idle(m, res, st, 0) & POL_PICK)
			assert_int_equal(act_set_idle_poll(a, 0, m->s.idle_pick,
							   m->s.poll_ok == 1, &m->c), 0);
	}
	r.changes = (double)(m->s.nr_pick_changes - changes) * SEC / (double)(m->now - start);
	r.writes = (double)(act_writes(a, 0) - writes) * SEC / (double)(m->now - start);
	r.pick = m->s.idle_pick;
	act_close(a);
	return r;
}

/* The goal: at most 10 knob writes per CPU per second, on every load. */
#define STRADDLE_GOAL_WRITES	10.0

/* One line per mean idle length: no dwell and the dwell at a few lengths
 * (100 ms: the default); the goal judged on the default, "met" or "not
 * met" with its figure. Returns the loads whose default did not meet it. */
static int straddle_table(const char *name, const __u32 *lat, const __u32 *res, __u32 n,
			  const __u64 *means_us, size_t nr_means, __u32 seed)
{
	static const __u32 dwell_ms[] = { 0, 50, 100, 200 };
	int not_met = 0;
	struct sim m;

	for (size_t i = 0; i < nr_means; i++) {
		struct straddle r[sizeof(dwell_ms) / sizeof(dwell_ms[0])];

		for (size_t j = 0; j < sizeof(dwell_ms) / sizeof(dwell_ms[0]); j++) {
			sim_init(&m);
			cfg_table(&m.c, lat, res, n);
			m.c.pick_dwell_ms = dwell_ms[j];
			sim_reinit(&m);
			r[j] = straddle_run(&m, means_us[i] * US, 2 * SEC, seed + (__u32)i);
		}
		print_message("  %s, exponential idles of mean %llu us: pick changes/s (knob writes/s): "
			      "no dwell %.1f (%.1f); dwell 50 ms %.1f (%.1f), 100 ms (default) %.1f (%.1f), "
			      "200 ms %.1f (%.1f)\n", name, (unsigned long long)means_us[i],
			      r[0].changes, r[0].writes, r[1].changes, r[1].writes,
			      r[2].changes, r[2].writes, r[3].changes, r[3].writes);
		print_message("  goal <= %.0f knob writes/s per CPU, %s mean %llu us, default: %s (%.1f)\n",
			      STRADDLE_GOAL_WRITES, name, (unsigned long long)means_us[i],
			      r[2].writes <= STRADDLE_GOAL_WRITES ? "met" : "not met", r[2].writes);
		not_met += r[2].writes > STRADDLE_GOAL_WRITES;
		/* the dwell of 100 ms holds every one of these loads */
		assert_true(r[2].changes <= 10.0);
		assert_true(r[2].writes <= STRADDLE_GOAL_WRITES);
	}
	return not_met;
}

static void test_idle_straddle_rates(void **state)
{
	/* the payback points of skl (payback_pct 200): C1 4, C1E 20, C3 140,
	 * C6 200, C7s and C8 800, C9 and C10 5000 us */
	static const __u64 means_us[] = { 4, 20, 140, 200, 800, 5000 };
	/* the four states of the report: POLL, C1 2/2, C1E 10/20, C6 133/133 */
	static const __u32 lat4[] = { 0, 2, 10, 133 }, res4[] = { 0, 2, 20, 133 };
	static const __u64 means4_us[] = { 10, 30, 1000 };
	struct bpfgov_config d;
	int not_met;

	(void)state;
	bpfgov_config_defaults(&d);
	assert_int_equal(d.pick_dwell_ms, 100);	/* "default" below: r[2] */
	not_met = straddle_table("skl", skl_lat, skl_res, 9, means_us,
				 sizeof(means_us) / sizeof(means_us[0]), 7);
	not_met += straddle_table("POLL/C1/C1E/C6", lat4, res4, 4, means4_us,
				  sizeof(means4_us) / sizeof(means4_us[0]), 11);
	print_message("  goal <= %.0f knob writes/s per CPU at the default dwell: %s on %d of 9 loads\n",
		      STRADDLE_GOAL_WRITES, not_met ? "not met" : "met", not_met ? not_met : 9);
}

/* A steady load (idles uniform in 100..300 us after 50 us of work, across
 * C3's and C6's payback points, for 10 s): pick changes per second after
 * the first second, with and without the dwell. */
static void test_idle_dwell_steady(void **state)
{
	const struct { __u32 pick_dwell_ms; } d = { 100 };
	__u64 c0 = 0, t0 = 0;
	double rate[2];
	struct sim m;
	__u32 x;

	(void)state;
	for (int dwell = 0; dwell < 2; dwell++) {
		skl_setup(&m);
		m.c.pick_dwell_ms = dwell ? d.pick_dwell_ms : 0;
		x = 5;
		while (m.now - T0 < 10 * SEC) {
			__u32 st = m.s.idle_pick;
			__u64 idle = 100 * US + lcg_below(&x, 200 * US);

			if (!t0 && m.now - T0 >= SEC) {
				t0 = m.now;
				c0 = m.s.nr_pick_changes;
			}
			sim_busy(&m, 50 * US, 0);
			sim_idle(&m, idle + (m.c.state_is_poll[st] ? 0 :
					     m.c.state_exit_latency_us[st] * US), st, 0);
		}
		rate[dwell] = (double)(m.s.nr_pick_changes - c0) * SEC / (double)(m.now - t0);
		t0 = 0;
	}
	print_message("  steady 100..300 us idles on skl: %.1f pick changes/s, %.1f with the dwell\n",
		      rate[0], rate[1]);
	assert_true(rate[1] <= 1.0);
}

/* The dwell: the pick moves at a window's end where 5/8 of that window's
 * selects pointed and the window before voted the same way, at once at a
 * CPU's first select (no window yet); a load that straddles holds it; the
 * polling veto does not wait. */
static void test_idle_dwell_votes_veto_does_not(void **state)
{
	struct sim m;
	__u64 start, changes;
	int i;

	(void)state;
	sim_init(&m);
	cfg_four_states(&m.c);
	m.c.pick_dwell_ms = 100;
	sim_reinit(&m);
	/* a short idle (3 us, polled): the first select moves at once */
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 3 * US, m.s.idle_pick, 0);
	assert_int_equal(m.s.idle_pick, 0);
	start = m.s.dwell_start_ns;
	assert_int_equal(start, m.now);
	/* 100 us idles (C1's bin): the history turns to C1 within a few
	 * idles, the pick stands until the window's end */
	while (m.now - start < 99 * MS) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 100 * US, m.s.idle_pick, 0);
	}
	assert_int_equal(m.s.hist_pick, 1);
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.dwell_start_ns, start);
	while (m.now - start < 100 * MS) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 100 * US, m.s.idle_pick, 0);
	}
	/* the first exit past it: nearly every vote pointed deeper, the
	 * window before (the first select alone) did not: pending */
	assert_int_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.dwell_pending, 1);
	start = m.s.dwell_start_ns;
	assert_true(start >= m.now - 1 && start > T0 + 100 * MS);
	/* the second window votes deeper again: C1 */
	while (m.s.idle_pick == 0) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 100 * US, m.s.idle_pick, 0);
		assert_true(m.now - start <= 100 * MS + 200 * US);
	}
	assert_int_equal(m.s.idle_pick, 1);
	assert_true(m.now - start >= 100 * MS);
	/* 3 and 100 us in turn for 2 s: the history flips, the pick holds */
	changes = m.s.nr_pick_changes;
	start = m.now;
	for (i = 0; m.now - start < 2 * SEC; i++) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, i & 1 ? 100 * US : 3 * US, m.s.idle_pick, 0);
	}
	print_message("  3/100 us in turn, 2 s: %llu pick changes with the dwell\n",
		      (unsigned long long)(m.s.nr_pick_changes - changes));
	assert_true(m.s.nr_pick_changes - changes <= 2);
	/* short idles: back to POLL within three windows */
	start = m.now;
	while (m.s.idle_pick != 0) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 3 * US, m.s.idle_pick, 0);
		assert_true(m.now - start < 300 * MS);
	}
	/* one poll that overruns poll_max_us (200 us): the veto halts at the
	 * next select, whatever the window */
	start = m.s.dwell_start_ns;
	sim_busy(&m, 10 * US, 0);
	sim_idle(&m, 500 * US, 0, 0);
	assert_int_not_equal(m.s.idle_pick, 0);
	assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
	assert_int_equal(m.s.dwell_start_ns, m.now);
	assert_true(m.now - start < 100 * MS);
}

/* Going back to polling after a veto (veto_hold, pol_poll_backoff):
 * short polled idles (3 us) with a poll that overruns poll_max_us every
 * 150 ms, for 20 s. Each return to polling is vetoed again before it
 * stood as long as it waited, so each return waits twice as long, up to
 * POL_POLL_HOLD_MAX windows: over the last 10 s, at most one change every
 * 2 s, with veto_hold 1 as with 4 (without the doubling: a veto and a
 * return per lull with 1, 8 changes a second; one cycle in 400 ms with 4).
 * Then the lulls end: polling comes back within POL_POLL_HOLD_MAX + 3
 * windows, and once it stood that long, a veto leaves veto_hold alone. */
static void test_idle_veto_hold(void **state)
{
	static const __u32 holds[] = { 1, 4 };
	double rate[2], polled[2];
	struct sim m;

	(void)state;
	for (int j = 0; j < 2; j++) {
		__u64 start, changes = 0, next, polled_ns = 0, t;

		sim_init(&m);
		cfg_four_states(&m.c);
		m.c.pick_dwell_ms = 100;
		m.c.veto_hold = holds[j];
		sim_reinit(&m);
		while (m.now - T0 < SEC) {	/* polling stands */
			sim_busy(&m, 10 * US, 0);
			sim_idle(&m, 3 * US, m.s.idle_pick, 0);
		}
		assert_int_equal(m.s.idle_pick, 0);
		start = m.now;
		next = start + 150 * MS;
		while (m.now - start < 20 * SEC) {
			__u32 st = m.s.idle_pick;

			if (m.now - start >= 10 * SEC && !changes)
				changes = m.s.nr_pick_changes;
			sim_busy(&m, 10 * US, 0);
			/* a lull of 500 us at every 150 ms: polled through
			 * (an overrun) where the pick polls, halted in C1
			 * where it does not */
			t = m.now >= next ? 500 * US : 3 * US;
			if (m.now >= next)
				next += 150 * MS;
			if (m.now - start >= 10 * SEC)
				polled_ns += m.c.state_is_poll[st] ? t : 0;
			sim_idle(&m, t + (m.c.state_is_poll[st] ? 0 :
					  m.c.state_exit_latency_us[st] * US), st, 0);
		}
		rate[j] = (double)(m.s.nr_pick_changes - changes) / 10.0;
		polled[j] = 100.0 * (double)polled_ns / (double)(10 * SEC);
		print_message("  veto_hold %u, seconds 10-20: %.1f pick changes/s\n", holds[j], rate[j]);
		assert_true(rate[j] <= 0.5);
		assert_int_equal(m.s.poll_hold, POL_POLL_HOLD_MAX);
		/* the lulls end: polling returns, within the hold */
		start = m.now;
		while (m.s.idle_pick != 0) {
			sim_busy(&m, 10 * US, 0);
			sim_idle(&m, 3 * US, m.s.idle_pick, 0);
			assert_true(m.now - start <= (POL_POLL_HOLD_MAX + 3) * 100 * MS + MS);
		}
		/* it stands longer than its return waited: the next veto
		 * does not double, the hold is veto_hold again */
		start = m.now;
		while (m.now - start < (POL_POLL_HOLD_MAX + 1) * 100 * MS) {
			sim_busy(&m, 10 * US, 0);
			sim_idle(&m, 3 * US, m.s.idle_pick, 0);
		}
		assert_int_equal(m.s.idle_pick, 0);
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 500 * US, 0, 0);
		assert_int_not_equal(m.s.idle_pick, 0);
		assert_int_equal(m.s.pick_reason, BPFGOV_R_LONG_POLL);
		assert_int_equal(m.s.poll_hold, 0);
		assert_int_equal(m.s.veto_left, holds[j] - 1);
	}
	print_message("  a 500 us lull every 150 ms among 3 us idles, seconds 10-20: %.1f pick changes/s, "
		      "%.1f %% of the time polled (veto_hold 1), %.1f and %.1f %% (veto_hold 4)\n",
		      rate[0], polled[0], rate[1], polled[1]);
}

/* The poll_ok tests' start: halt pays back from 100 us, the dwell at
 * 100 ms, and a second of 1 ms idles, after which C1 stands. */
static void sim_c1_stands(struct sim *m)
{
	sim_init(m);
	m->c.state_exit_latency_us[1] = 50;
	m->c.state_residency_us[1] = 50;
	m->c.pick_dwell_ms = 100;
	sim_reinit(m);
	while (m->now - T0 < SEC) {
		sim_busy(m, 100 * US, 0);
		sim_idle(m, 1 * MS, m->s.idle_pick, 0);
	}
	assert_int_equal(m->s.idle_pick, 1);
}

/* poll_ok taken back soon after it came (pol_poll_backoff): near timers
 * common in one window, gone in the next, for 20 s. Without the doubling
 * poll_ok flipped at every window end that saw the other vote, 5 times a
 * second; with it, at most one change every 2 s over the last 10 s, and
 * poll_ok still comes back once near timers stay common. */
static void test_idle_poll_ok_backoff(void **state)
{
	__u64 start, win, changes = 0;
	struct sim m;
	int on;

	(void)state;
	sim_c1_stands(&m);
	start = m.now;
	while (m.now - start < 20 * SEC) {
		if (m.now - start >= 10 * SEC && !changes)
			changes = m.s.nr_pick_changes;
		/* near timers common in every other window (2 windows of
		 * 100 ms in a row each way: the dwell's own pace) */
		win = (m.now - start) / (200 * MS);
		on = !(win & 1);
		m.s.short_share = on ? 65536 / 4 : 0;
		sim_busy(&m, 100 * US, 0);
		sim_idle(&m, 1 * MS, m.s.idle_pick, 0);
		assert_int_equal(m.s.idle_pick, 1);
	}
	print_message("  near timers in every other 200 ms, seconds 10-20: %.1f poll_ok changes/s (hold %u windows)\n",
		      (double)(m.s.nr_pick_changes - changes) / 10.0, m.s.poll_hold);
	assert_true(m.s.nr_pick_changes - changes <= 5);
	assert_true(m.s.poll_hold >= 8);
	/* near timers stay common: poll_ok comes back within the hold */
	start = m.now;
	while (!m.s.poll_ok) {
		m.s.short_share = 65536 / 4;
		sim_busy(&m, 100 * US, 0);
		sim_idle(&m, 1 * MS, m.s.idle_pick, 0);
		assert_true(m.now - start <= (m.s.poll_hold + 2) * 100 * MS + 2 * MS);
	}
}

/* poll_ok under a halting pick, and the governor's own long polls:
 * near timers stay common, so poll_ok comes back at a window's end, and
 * the governor, left to poll, polls through an idle past poll_max_us
 * 50 ms later, after a burst of short idles that turns the history to
 * polling. That poll was the governor's, bounded by its own poll limit,
 * and the evidence still polls: poll_ok stands (before, the veto took
 * it back at once and the hold doubled up to POL_POLL_HOLD_MAX windows,
 * so the governor could not poll the short idles of the bursts that
 * followed). The halting pick stands too: no change over seconds 10-20. */
static void test_idle_poll_ok_governor_long_poll(void **state)
{
	__u64 start, changes = 0, granted = 0;
	struct sim m;

	(void)state;
	sim_c1_stands(&m);
	start = m.now;
	while (m.now - start < 20 * SEC) {
		__u32 st = m.s.idle_pick;

		if (m.now - start >= 10 * SEC && !changes)
			changes = m.s.nr_pick_changes;
		if (m.s.poll_ok && !granted)
			granted = m.now;
		else if (!m.s.poll_ok)
			granted = 0;
		m.s.short_share = 65536 / 4;
		/* 50 ms after poll_ok came: a burst of short idles, which the
		 * governor polls, then one it polls past poll_max_us */
		if (granted && m.now - granted >= 50 * MS) {
			for (int i = 0; i < 16; i++) {
				sim_busy(&m, 10 * US, 0);
				sim_idle(&m, 3 * US, 0, 0);
			}
			sim_busy(&m, 10 * US, 0);
			sim_idle(&m, 500 * US, 0, 0);
			granted = m.now;
			continue;
		}
		sim_busy(&m, 100 * US, 0);
		sim_idle(&m, 1 * MS, st, 0);
	}
	print_message("  the governor's long polls under poll_ok, seconds 10-20: %.1f changes/s\n",
		      (double)(m.s.nr_pick_changes - changes) / 10.0);
	assert_int_equal(m.s.nr_pick_changes - changes, 0);
	assert_int_equal(m.s.poll_ok, 1);
	assert_int_equal(m.s.idle_pick, 1);
}

/* A poll of the governor's that runs into the kernel's poll time limit
 * (@limit) in an idle of @len, then halts in the pick for the rest. */
static void sim_lost_poll(struct sim *m, __u64 len, __u64 limit)
{
	__u64 res, lat;

	pol_idle_enter(&m->s, &m->c, 0, m->now);
	m->now += limit;
	m->s.exit_goes_on = 1;
	pol_idle_exit(&m->s, &m->c, m->now, &res, &lat);
	pol_idle_enter(&m->s, &m->c, m->s.idle_pick, m->now);
	m->now += len - limit;
	pol_idle_exit(&m->s, &m->c, m->now, &res, &lat);
}

/* What a run of lost polls must come to (@lost), or polls that a
 * wake-up ends: poll_ok withheld within a few changes, or kept at none. */
static void assert_lost_polls(const struct sim *m, int lost, __u64 polled, __u64 changes)
{
	if (lost) {
		assert_true(polled <= 2 * MS);
		assert_true(changes <= 6);
	} else {
		assert_int_equal(changes, 0);
		assert_int_equal(m->s.poll_ok, 1);
		assert_true(m->s.lost_share < 65536 / 2);
	}
}

/* poll_ok while the governor's own polls are lost (lost_share): idles of
 * 1 ms under a C1 pick with near timers common (short_share 1/4, so
 * poll_ok is due), and the governor polls one idle in 8, into the
 * kernel's limit (50 us here), then halts: a wrong prediction each time.
 * poll_ok is withheld after a few of them, and the backoff spaces its
 * returns: over seconds 10-20 the governor polls 0.6 ms, at 4 changes,
 * against 57 ms at none when its polls are left to it whatever becomes
 * of them (the rule before lost_share, the same loop).
 * The control: polls that a wake-up ends (3 us idles) keep poll_ok. */
static void test_idle_poll_ok_lost_polls(void **state)
{
	__u64 limit, start, polled, changes;
	struct sim m;
	__u32 n, lost;

	(void)state;
	for (lost = 0; lost <= 1; lost++) {
		sim_c1_stands(&m);
		limit = pol_poll_limit_ns(&m.c);
		assert_int_equal(limit, 50 * US);
		start = m.now;
		polled = changes = 0;
		for (n = 0; m.now - start < 20 * SEC; n++) {
			int late = m.now - start >= 10 * SEC;

			if (late && !changes)
				changes = m.s.nr_pick_changes + 1;
			m.s.short_share = 65536 / 4;
			sim_busy(&m, 100 * US, 0);
			if (!m.s.poll_ok || n % 8) {
				sim_idle(&m, 1 * MS, m.s.idle_pick, 0);
				continue;
			}
			if (!lost) {	/* a poll that its wake-up ends */
				sim_idle(&m, 3 * US, 0, 0);
				polled += late ? 3 * US : 0;
				continue;
			}
			sim_lost_poll(&m, 1 * MS, limit);
			polled += late ? limit : 0;
		}
		changes = m.s.nr_pick_changes + 1 - changes;
		print_message("  governor's polls %s, seconds 10-20: %.2f ms polled, %llu changes, lost_share %u\n",
			      lost ? "lost" : "ended by a wake-up", polled / 1e6,
			      (unsigned long long)changes, m.s.lost_share);
		assert_lost_polls(&m, lost, polled, changes);
	}
}

/* The state a governor left free to poll enters: the pick where it
 * does not poll (a polling pick, or a halting one without poll_ok), and
 * where it may, POLL for an idle it predicts short (here: it predicts
 * right) and the pick for the rest. */
static __u32 gov_enters(const struct sim *m, __u64 len, __u64 short_below)
{
	if (m->c.state_is_poll[m->s.idle_pick] || !m->s.poll_ok)
		return m->s.idle_pick;
	return len < short_below ? 0 : m->s.idle_pick;
}

/* Short idles without near timers: 60 us idles, one in four, among 1 ms
 * ones (halt pays back from 100 us). The window votes by time, so C1
 * stands, but a halt does not pay back for a quarter of the idles: they
 * count in the share that leaves polling to the governor (short_share,
 * from one in 8), and poll_ok comes within three windows. Before, only
 * idles ended by a near timer counted, and the governor could not poll
 * the short ones here. */
static void test_idle_short_idles_leave_polling(void **state)
{
	__u64 start;
	struct sim m;
	int i = 0;

	(void)state;
	sim_c1_stands(&m);
	assert_int_equal(m.s.poll_ok, 0);
	start = m.now;
	while (m.now - start < 2 * SEC) {
		__u64 len = (i++ & 3) ? 1 * MS : 60 * US;

		sim_busy(&m, 100 * US, 0);
		sim_idle(&m, len, gov_enters(&m, len, 100 * US), 0);
		assert_int_equal(m.s.idle_pick, 1);
		if (m.s.poll_ok)
			break;
	}
	print_message("  60 us idles, one in four, among 1 ms ones: poll_ok after %llu ms\n",
		      (unsigned long long)((m.now - start) / MS));
	assert_int_equal(m.s.poll_ok, 1);
	assert_true(m.now - start <= 300 * MS);
}

/* A window that votes for polling among long idles: 80 us idles, seven in
 * eight, and one of 300 us (past poll_max_us, 200 us; halt pays back
 * from 100 us). By time the window votes POLL (560 of 860 us), but a
 * polling pick would poll through every long idle, and each such poll
 * vetoes it again. The halting pick stands and leaves polling to the
 * governor, which polls the short ones: for seconds 2-10 no change, the
 * halting pick, poll_ok, and no idle polled past poll_max_us. Before,
 * the pick went to POLL, the next long idle vetoed it, and the cycle
 * repeated as the hold allowed.
 * The same load where the kernel's poll limit (50 us here) is shorter
 * than the short idles: every poll of the governor's runs into it, then
 * halts. The dwell's grant of poll_ok answers to lost_share as the
 * history's does, and poll_ok goes once the polls are lost, not at the
 * window's end: over seconds 2-10 the governor polls 0.6 ms, at 4
 * changes. When the dwell granted poll_ok whatever became of the polls,
 * it polled 1,687 ms (21 % of the time), at none; withheld only at the
 * window's end, 42 ms. */
static void test_idle_long_mix_keeps_halting_pick(void **state)
{
	__u64 start, changes, long_polls, polled, limit;
	struct sim m;
	int i, lost;

	(void)state;
	for (lost = 0; lost <= 1; lost++) {
		sim_c1_stands(&m);
		limit = pol_poll_limit_ns(&m.c);
		assert_int_equal(limit, 50 * US);
		start = m.now;
		changes = long_polls = polled = 0;
		for (i = 0; m.now - start < 10 * SEC; i++) {
			__u64 len = (i & 7) ? 80 * US : 300 * US;
			__u32 st = gov_enters(&m, len, 100 * US);
			int late = m.now - start >= 2 * SEC;

			if (late && !changes)
				changes = m.s.nr_pick_changes + 1;
			if (late && m.c.state_is_poll[st] && len > 200 * US)
				long_polls++;
			sim_busy(&m, 100 * US, 0);
			if (!lost || !m.c.state_is_poll[st]) {
				polled += late && m.c.state_is_poll[st] ? len : 0;
				sim_idle(&m, len, st, 0);
				continue;
			}
			sim_lost_poll(&m, len, limit);
			polled += late ? limit : 0;
		}
		changes = m.s.nr_pick_changes + 1 - changes;
		print_message("  80 us idles with one of 300 us in eight, polls %s, seconds 2-10: "
			      "%llu changes, %.2f ms polled, %llu long polls, pick %u, poll_ok %u\n",
			      lost ? "lost" : "ended by a wake-up", (unsigned long long)changes,
			      polled / 1e6, (unsigned long long)long_polls, m.s.idle_pick, m.s.poll_ok);
		assert_int_equal(long_polls, 0);
		assert_int_equal(m.s.idle_pick, 1);
		assert_lost_polls(&m, lost, polled, changes);
	}
}

/*
 * Guards what the idle exit learns (pol_idle_learn: each state's cost
 * worked out once, the near timer tested there, the bins' total handed to
 * the choice): a reference written the long way, with the core's own
 * helpers (pol_paid for every question, pol_first_halt for the near
 * timer, the bins summed by the choice), must
 * leave the same CPU state and return the same flags, idle by idle, over
 * random tables of 2 to 10 states, wake-up costs, PM QoS limits, timers,
 * quiet periods and dwell windows.
 */
static __u32 ref_learn(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
		       __u32 st, int long_poll, __u64 idle, __u64 hist)
{
	__u32 k, n = pol_nr_states(c), bin = 0, deepest_ok = 0, h, quiet, near = 0;
	__u64 timer = s->next_timer_ns;

	s->vote_weight = (__u32)pol_min64((hist >> 10) + 1, 1u << 20);
	if (timer && timer >= s->state_enter_ns && c->state_is_poll[0]) {
		h = pol_first_halt(s, c);
		near = h != BPFGOV_NO_STATE && !pol_paid(s, c, h, timer - s->state_enter_ns);
	}
	for (k = 0; k < n; k++)
		if (pol_allowed(s, c, k) && pol_paid(s, c, k, idle))
			deepest_ok = k;
	if (!pol_paid(s, c, st, idle))
		s->nr_too_deep++;
	else if (deepest_ok > st)
		s->nr_too_shallow++;
	for (k = 1; k < n; k++)
		if (pol_paid(s, c, k, hist))
			bin = k;
	quiet = (__u32)pol_min64(hist >> POL_QUIET_SHIFT, pol_quiet_max(c));
	for (k = 0; k < n; k++) {
		s->bins[k] -= s->bins[k] >> c->bin_decay_shift;
		s->bins[k] >>= quiet;
		s->alt_bins[k] >>= quiet;
	}
	s->bins[bin] += POL_BIN_ONE;
	pol_expect_idle(s, idle);
	s->long_share -= s->long_share >> c->bin_decay_shift;
	if (pol_past_poll_max(c, hist))
		s->long_share += POL_BIN_ONE >> c->bin_decay_shift;
	s->short_share -= s->short_share >> POL_TSHARE_SHIFT;
	s->lost_share -= s->lost_share >> POL_TSHARE_SHIFT;
	if (near || !bin)
		s->short_share += POL_TSHARE_ONE >> POL_TSHARE_SHIFT;
	if (c->history_ctx) {
		if ((__u32)(bin > 0) == s->ctx) {
			s->ctx_streak = 0;
		} else if (++s->ctx_streak >= POL_CTX_STREAK) {
			s->ctx_streak = 0;
			pol_switch_ctx(s, c, bin > 0);
		}
	}
	return pol_idle_select(s, c, long_poll);
}

static void test_idle_learn_is_reference(void **state)
{
	__u32 rnd = 7, trial, i, k, n, st, flags, r_new, r_ref;
	struct sim a, b;
	int long_poll, picks = 0, nears = 0, quiets = 0, qos = 0;
	__u64 idle, hist;

	(void)state;
	for (trial = 0; trial < 200; trial++) {
		sim_init(&a);
		n = 2 + (__u32)lcg_below(&rnd, BPFGOV_MAX_STATES - 1);
		a.c.nr_states = n;
		a.c.idle_state_fixed = 0;
		a.c.pick_dwell_ms = (__u32)lcg_below(&rnd, 3) * 50;	/* 0, 50, 100 */
		a.c.history_ctx = (__u32)lcg_below(&rnd, 2);
		a.c.bin_decay_shift = 1 + (__u32)lcg_below(&rnd, 5);
		a.c.poll_max_us = (__u32)lcg_below(&rnd, 2) * 200;
		for (k = 0; k < n; k++) {
			a.c.state_is_poll[k] = k == 0 && lcg_below(&rnd, 4);
			a.c.state_exit_latency_us[k] = k * (1 + (__u32)lcg_below(&rnd, 200));
			a.c.state_residency_us[k] = a.c.state_exit_latency_us[k] *
						    (1 + (__u32)lcg_below(&rnd, 3));
		}
		pol_cpu_init(&a.s, &a.c);
		a.s.qos_limit_us = lcg_below(&rnd, 3) ? 0 : (__u32)lcg_below(&rnd, 400);
		qos += !!a.s.qos_limit_us;
		for (k = 0; k < n; k++)
			a.s.wake_cost_ns[k] = (__u32)lcg_below(&rnd, 300 * US);
		b = a;
		for (i = 0; i < 300; i++) {
			st = (__u32)lcg_below(&rnd, n);
			long_poll = lcg_below(&rnd, 16) == 0;
			idle = lcg_below(&rnd, 8) ? lcg_below(&rnd, 2 * MS) : lcg_below(&rnd, 200 * MS);
			hist = idle + (lcg_below(&rnd, 8) ? 0 : lcg_below(&rnd, 1 * MS));
			quiets += (hist >> POL_QUIET_SHIFT) != 0;
			a.now += hist + 10 * US;
			a.s.exit_ns = a.now;
			a.s.state_enter_ns = a.now - hist;
			a.s.next_timer_ns = lcg_below(&rnd, 4) ? a.s.state_enter_ns +
					    lcg_below(&rnd, 1 * MS) : lcg_below(&rnd, 2) * a.now;
			b.now = a.now;
			b.s.exit_ns = a.s.exit_ns;
			b.s.state_enter_ns = a.s.state_enter_ns;
			b.s.next_timer_ns = a.s.next_timer_ns;
			flags = st | (long_poll ? POL_LEARN_LONG_POLL : 0) |
				(a.s.next_timer_ns && a.c.state_is_poll[0] ? POL_LEARN_TIMER : 0);
			r_new = pol_idle_learn(&a.s, &a.c, flags, idle, hist);
			r_ref = ref_learn(&b.s, &b.c, st, long_poll, idle, hist);
			assert_int_equal(r_new, r_ref);
			assert_memory_equal(&a.s, &b.s, sizeof(a.s));
			picks += r_new == POL_PICK;
			nears += (flags & POL_LEARN_TIMER) != 0;
		}
	}
	/* the random walk reached what it guards */
	print_message("  learn vs reference: 60000 idles, %d picks, %d with a timer to test, %d quiet, %d CPUs with a PM QoS limit\n",
		      picks, nears, quiets, qos);
	assert_true(picks > 1000 && nears > 10000 && quiets > 1000 && qos > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_skl_c10_books_as_c10),
		cmocka_unit_test(test_idle_skl_deep_exit_not_poll_limit),
		cmocka_unit_test(test_idle_state9),
		cmocka_unit_test(test_idle_straddle_rates),
		cmocka_unit_test(test_idle_dwell_steady),
		cmocka_unit_test(test_idle_dwell_votes_veto_does_not),
		cmocka_unit_test(test_idle_veto_hold),
		cmocka_unit_test(test_idle_poll_ok_backoff),
		cmocka_unit_test(test_idle_poll_ok_governor_long_poll),
		cmocka_unit_test(test_idle_poll_ok_lost_polls),
		cmocka_unit_test(test_idle_short_idles_leave_polling),
		cmocka_unit_test(test_idle_long_mix_keeps_halting_pick),
		cmocka_unit_test(test_tunables_default_state_table),
		cmocka_unit_test(test_idle_payback_points),
		cmocka_unit_test(test_idle_no_history_deepest_allowed),
		cmocka_unit_test(test_idle_history_short_picks_poll_long_picks_halt),
		cmocka_unit_test(test_paid_is_payback_compare),
		cmocka_unit_test(test_idle_measured_cost_raises_payback),
		cmocka_unit_test(test_idle_long_poll_veto),
		cmocka_unit_test(test_idle_qos_limit),
		cmocka_unit_test(test_idle_qos_reason_multi_state),
		cmocka_unit_test(test_idle_too_deep_too_shallow),
		cmocka_unit_test(test_idle_bins_decay),
		cmocka_unit_test(test_idle_poll_max_zero_no_veto),
		cmocka_unit_test(test_idle_poll_share_veto),
		cmocka_unit_test(test_idle_lull_then_short_idles_poll),
		cmocka_unit_test(test_idle_hysteresis_around_history_pick),
		cmocka_unit_test(test_idle_learn_is_reference),
		cmocka_unit_test(test_idle_context_switch),
		cmocka_unit_test(test_idle_context_alternation_no_churn),
		cmocka_unit_test(test_idle_context_phases),
		cmocka_unit_test(test_idle_context_random_mix),
		cmocka_unit_test(test_idle_quiet_decay),
		cmocka_unit_test(test_idle_lone_lull_any_length),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
