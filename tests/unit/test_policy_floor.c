// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the bpfgov policy core, utilization and floor (include/bpfgov_floor.h,
 * through include/bpfgov_policy.h). The simulation helpers, and how the
 * tests drive the hooks, are in policy_sim.h.
 *
 * Every expected number is derived in a comment next to its assertion.
 */
#include "policy_sim.h"

/* ------------------------------------------------------------------ */
/* Tunables and a CPU's start                                         */
/* ------------------------------------------------------------------ */

static void test_tunables_defaults_in_range(void **state)
{
	struct bpfgov_config c;
	int n = 0;

	(void)state;
	bpfgov_config_defaults(&c);
#define CHECK_TUNABLE(name, d, lo, hi, u, h)				\
	do {								\
		unsigned long long _d = (d), _lo = (lo), _hi = (hi);	\
		if (!(_lo <= _d && _d <= _hi && _lo <= _hi))		\
			fail_msg("tunable %s: default %llu not in [%llu, %llu]", \
				 #name, _d, _lo, _hi);			\
		assert_int_equal(c.name, _d);				\
		(void)sizeof(u);					\
		assert_true(sizeof(h) > 1);	/* documented */	\
		n++;							\
	} while (0);
	BPFGOV_TUNABLES(CHECK_TUNABLE)
#undef CHECK_TUNABLE
	assert_int_equal(n, 30);	/* every X() line was visited */
}

static void test_cpu_init(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	m.c.floor_min = 100;
	m.c.nr_states = 2;
	sim_reinit(&m);
	assert_int_equal(m.s.floor, 100);
	assert_int_equal(m.s.target, 100);
	assert_int_equal(m.s.util, 0);
	assert_int_equal(m.s.cur_state, BPFGOV_NO_STATE);
	assert_int_equal(m.s.idle_pick, 1);	/* deepest of 2 */
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.busy, 0);
}

/* ------------------------------------------------------------------ */
/* Utilization                                                        */
/* ------------------------------------------------------------------ */

static void test_util_smooth_arithmetic(void **state)
{
	struct bpfgov_config c;

	(void)state;
	bpfgov_config_defaults(&c);	/* tau_rise 2ms, tau_fall 16ms */
	/* rise 0 -> 1024 over 2ms: step = 1024 * 2 / (2 + 2) = 512 */
	assert_int_equal(pol_smooth(&c, 0, 1024, 2 * MS), 512);
	/* rise 256 -> 768 over 6ms: step = 512 * 6 / 8 = 384 -> 640 */
	assert_int_equal(pol_smooth(&c, 256, 768, 6 * MS), 640);
	/* fall 1024 -> 0 over 16ms: step = 1024 * 16 / 32 = 512 */
	assert_int_equal(pol_smooth(&c, 1024, 0, 16 * MS), 512);
	/* fall 800 -> 200 over 4ms: step = 600 * 4 / 20 = 120 -> 680 */
	assert_int_equal(pol_smooth(&c, 800, 200, 4 * MS), 680);
	/* the same 4ms step upward uses tau_rise: 600 * 4 / 6 = 400 */
	assert_int_equal(pol_smooth(&c, 200, 800, 4 * MS), 600);
	/* samples above the scale are clamped: 0 -> 5000 acts as 1024 */
	assert_int_equal(pol_smooth(&c, 0, 5000, 2 * MS), 512);
	/* no time, no change; equal sample, no change */
	assert_int_equal(pol_smooth(&c, 300, 1024, 0), 300);
	assert_int_equal(pol_smooth(&c, 300, 300, 5 * MS), 300);
}

/* One segment through the hooks: busy 1ms + idle 1ms from util 0:
 * sample = 1ms * 1024 / 2ms = 512, step = 512 * 2 / (2 + 2) = 256. */
static void test_util_one_segment(void **state)
{
	struct sim m;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 1 * MS, 0);	/* first event opens the segment */
	assert_int_equal(m.s.util, 0);
	assert_int_equal(m.s.seg_busy_ns, 1 * MS);
	assert_int_equal(m.s.busy_ns, 1 * MS);
	sim_idle(&m, 1 * MS, 1, 0);
	assert_int_equal(m.s.util, 0);	/* closed at the switch, not idle exit */
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.util, 256);
	assert_int_equal(m.s.target, 320);	/* 256 * 125 / 100 */
	assert_int_equal(m.s.idle_ns, 1 * MS);
	assert_int_equal(m.s.seg_busy_ns, 0);
	assert_int_equal(m.s.seg_start_ns, m.now);
}

/* Steady 50% duty cycle at 347 Hz: busy 1440922ns + idle 1440922ns, so
 * every segment's sample is exactly 1440922 * 1024 / 2881844 = 512. */
#define P347_HALF	1440922ull

static __u32 run_duty_347(struct sim *m, __u64 seconds)
{
	__u64 i, periods = seconds * 347;

	for (i = 0; i < periods; i++) {
		sim_busy(m, P347_HALF, 4 * MS);
		sim_idle(m, P347_HALF, 1, 0);
	}
	pol_busy_begin(&m->s, &m->c, m->now);	/* close the last segment */
	return m->s.util;
}

static void test_util_50pct_default_taus(void **state)
{
	struct sim m;
	__u32 u;

	(void)state;
	/* from idle (util 0) */
	sim_init(&m);
	u = run_duty_347(&m, 5);
	if (u < 504 || u > 520)
		fail_msg("50%% duty from 0: util %u, want 512 +- 8", u);
	/* from busy (util near 1024 after 1s of 100%, ticks every 4ms) */
	sim_init(&m);
	sim_busy(&m, 1 * SEC, 4 * MS);
	sim_idle(&m, 1, 1, 0);
	assert_true(m.s.util > 1000);
	u = run_duty_347(&m, 5);
	if (u < 504 || u > 520)
		fail_msg("50%% duty from busy: util %u, want 512 +- 8", u);
}

/*
 * The design claim: a 50% periodic load converges to 512 whatever the time
 * constants, across their whole tunable range. Every segment's sample is
 * exactly 512, so util must end at 512 from either side.
 *
 * Guards pol_smooth's rounding: a step truncated toward the old value stops
 * util once |512 - util| * dur < dur + tau, i.e. |diff| < 1 + tau / 2.88ms.
 * With tau_fall = 1s util would stall near 512 + 348 = 860 (target 1024: a
 * 50% CPU pinned at max floor); with tau_rise = 100ms near 512 - 35.
 */
static void test_util_50pct_any_tau(void **state)
{
	static const __u32 rises[] = { 100, 2000, 100000 };	/* min, default, max */
	static const __u32 falls[] = { 100, 16000, 1000000 };	/* min, default, max */
	unsigned i, j, from_busy, bad = 0;
	struct sim m;

	(void)state;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			for (from_busy = 0; from_busy < 2; from_busy++) {
				__u32 u;

				sim_init(&m);
				m.c.tau_rise_us = rises[i];
				m.c.tau_fall_us = falls[j];
				sim_reinit(&m);
				if (from_busy) {
					sim_busy(&m, 2 * SEC, 4 * MS);
					sim_idle(&m, 1, 1, 0);
					assert_true(m.s.util > 900);
				}
				u = run_duty_347(&m, 8);
				if (u < 504 || u > 520) {
					print_message("  tau_rise %u us, tau_fall %u us, from %s: util %u\n",
						      rises[i], falls[j],
						      from_busy ? "busy" : "idle", u);
					bad++;
				}
			}
	if (bad)
		fail_msg("%u of 18 runs did not converge to 512 +- 8", bad);
}

/*
 * Short cycles share a segment (pol_seg_min_ns: tau_rise / 8, 250 us at
 * the defaults): a busy run that begins less than that after the open
 * segment's start leaves it open, so a ping-pong CPU (10 us busy, 10 us
 * idle) closes a segment, and evaluates its floor, once per 250 us, not at
 * each of its 50000 wake-ups a second. util still converges to the duty
 * cycle, from either side, and a short gap after a long enough run still
 * arms the gap memory at once, even inside a young segment.
 */
static void test_short_cycles_share_a_segment(void **state)
{
	struct sim m;
	__u64 seg, min_len = ~0ull, end;
	unsigned int closes = 0, i;

	(void)state;
	sim_init(&m);
	assert_int_equal(pol_seg_min_ns(&m.c), 250 * US);
	seg = m.s.seg_start_ns;
	for (i = 0; i < 50000; i++) {		/* 1 s */
		sim_busy(&m, 10 * US, 0);
		if (m.s.seg_start_ns != seg) {
			if (seg && m.s.seg_start_ns - seg < min_len)
				min_len = m.s.seg_start_ns - seg;
			seg = m.s.seg_start_ns;
			closes++;
		}
		sim_idle(&m, 10 * US, 1, 0);
	}
	/* one close per 260 us: the first begin at least 250 us in */
	assert_true(closes >= 3700 && closes <= 4001);
	assert_true(min_len >= 250 * US);
	if (m.s.util < 504 || m.s.util > 520)
		fail_msg("50%% duty in 20 us cycles: util %u, want 512 +- 8", m.s.util);
	/* from busy: 1 s at 100 %, then the same cycles for 200 ms */
	sim_init(&m);
	sim_busy(&m, 1 * SEC, 4 * MS);
	sim_idle(&m, 1, 1, 0);
	for (end = m.now + 200 * MS; m.now < end;) {
		sim_busy(&m, 10 * US, 0);
		sim_idle(&m, 10 * US, 1, 0);
	}
	if (m.s.util < 504 || m.s.util > 540)
		fail_msg("50%% duty in 20 us cycles after busy: util %u", m.s.util);

	/* The gap memory needs no segment close: armed at the first short
	 * gap after gap_min_busy_us of busy time, and again at each one. */
	sim_init(&m);
	m.c.gap_min_busy_us = 0;
	sim_reinit(&m);
	sim_busy(&m, 100 * US, 0);
	m.s.pre_gap_target = 800;
	sim_idle(&m, 10 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_true(m.now - m.s.seg_start_ns < pol_seg_min_ns(&m.c) || m.s.seg_start_ns == m.now);
	assert_int_equal(m.s.nr_gap_holds, 1);
	assert_int_equal(m.s.hold_floor, 800 * 875 / 1000);
	assert_int_equal(m.s.seg_start_ns, m.now);	/* evaluated in full */
}

/* Rises fast, falls slowly. tick_busy 2ms, ticks every 1ms (HZ 1000).
 * Up: the tick at 2ms closes a 2ms segment with sample 1024:
 *     0 + 1024 * 2 / (2 + 2) = 512 -> half-way after 2ms.
 * Down: busy 1us / idle 1999us, sample = 1000 * 1024 / 2e6 = 0, each 2ms
 *     segment keeps 16 / 18 = 8/9 of util; (8/9)^n <= 1/2 needs n >= 5.9,
 *     so 6 periods = 12ms: six times slower. */
static void test_util_rises_fast_falls_slow(void **state)
{
	struct sim m;
	__u64 t, up_ns = 0, down_ns = 0, start;
	int n;

	(void)state;
	sim_init(&m);
	m.c.tick_busy_us = 2000;
	sim_reinit(&m);
	start = m.now;
	pol_busy_begin(&m.s, &m.c, start);
	for (t = start + 1 * MS; t <= start + 100 * MS; t += 1 * MS) {
		pol_tick(&m.s, &m.c, t);
		if (!up_ns && m.s.util >= 512)
			up_ns = t - start;
	}
	m.now = start + 100 * MS;
	pol_busy_end(&m.s, &m.c, m.now);
	assert_int_equal(up_ns, 2 * MS);
	assert_true(m.s.util >= 1020);

	/* the first low segment starts at the switch out (t = 100ms): it is
	 * 1.999ms with no busy time (1023 * 1999 / 17999 = 113.6 -> ~910),
	 * then 2ms segments with 1us busy keep 8/9 each: 809, 720, 640, 569,
	 * 506 -> half-way at the 6th switch in, 6 * 2ms - 1us after the drop */
	start = m.now;
	for (n = 0; n < 100 && m.s.util > 512; n++) {
		sim_idle(&m, 1999 * US, 1, 0);
		pol_busy_begin(&m.s, &m.c, m.now);
		down_ns = m.now - start;
		m.now += 1 * US;
		pol_busy_end(&m.s, &m.c, m.now);
	}
	assert_int_equal(n, 6);
	assert_int_equal(down_ns, 12 * MS - 1 * US);
	assert_true(down_ns >= 4 * up_ns);
}

/* A busy run that never switches is accounted on the tick only.
 * tick_busy 2ms = tau_rise 2ms: each tick segment halves 1024 - util:
 * 512, 768, 896, 960, 992, 1008, 1016, 1020, 1022. A tick before
 * tick_busy_us of open busy time changes nothing. */
static void test_util_long_busy_ticks_ramp(void **state)
{
	static const __u32 want[] = { 512, 768, 896, 960, 992, 1008, 1016, 1020, 1022 };
	struct sim m;
	__u64 t0;
	unsigned i;

	(void)state;
	sim_init(&m);
	m.c.tick_busy_us = 2000;
	sim_reinit(&m);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	pol_tick(&m.s, &m.c, t0 + 1999 * US);	/* open 1.999ms < 2ms */
	assert_int_equal(m.s.util, 0);
	assert_int_equal(m.s.seg_busy_ns, 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		pol_tick(&m.s, &m.c, t0 + (i + 1) * 2 * MS);
		assert_int_equal(m.s.util, want[i]);
	}
	/* with the default tick_busy (4ms) and tau_rise (2ms) a busy CPU
	 * gets its floor to the top within a few ticks: util >= 820 gives
	 * target >= 1025 -> 1024 */
	sim_init(&m);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	for (t0 += 4 * MS, i = 0; i < 5; i++, t0 += 4 * MS)
		pol_tick(&m.s, &m.c, t0);
	assert_true(m.s.util >= 1000);
	assert_int_equal(m.s.target, 1024);
	assert_int_equal(m.s.floor, 1024);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_RISE);
}

/* A CPU that sleeps for long falls when it wakes: the segment closed at
 * the wake covers the whole sleep. util 1022 (ramp above), 1s idle:
 * step = 1022 * 1000 / 1016 = 1005.9 -> util 16 or 17. */
static void test_util_long_idle_falls(void **state)
{
	struct sim m;
	__u64 t0;
	int i;

	(void)state;
	sim_init(&m);
	m.c.tick_busy_us = 2000;
	sim_reinit(&m);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	for (i = 1; i <= 9; i++)
		pol_tick(&m.s, &m.c, t0 + i * 2 * MS);
	assert_int_equal(m.s.util, 1022);
	m.now = t0 + 18 * MS;
	pol_busy_end(&m.s, &m.c, m.now);	/* right at the last tick: seg_busy 0 */
	assert_int_equal(m.s.seg_busy_ns, 0);
	sim_idle(&m, 1 * SEC, 1, 0);
	assert_int_equal(m.s.util, 1022);	/* nothing happens while asleep */
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_true(m.s.util == 16 || m.s.util == 17);
	assert_int_equal(m.s.target, m.s.util * 125 / 100);
}

/*
 * util is a 0..1024 quantity: a CPU that is always busy must reach 1024
 * and one that never runs must reach 0, and never leave the range.
 *
 * Guards pol_smooth's rounding: a step rounded down would be, from 1023
 * toward 1024 (or 1 toward 0), 1 * dur / (dur + tau) < 1 -> 0, leaving
 * util stuck at 1023 on a busy CPU and at >= 1 on an idle one.
 */
static void test_util_clamps_0_1024(void **state)
{
	struct sim m;
	__u64 t0;
	int i;

	(void)state;
	sim_init(&m);
	m.c.headroom_pct = 100;		/* so util itself shows in the target */
	sim_reinit(&m);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	for (i = 1; i <= 250; i++) {	/* 1s of ticks */
		pol_tick(&m.s, &m.c, t0 + i * 4 * MS);
		assert_true(m.s.util <= BPFGOV_SCALE);
	}
	m.now = t0 + 1 * SEC;
	pol_busy_end(&m.s, &m.c, m.now);
	assert_int_equal(m.s.util, 1024);
	assert_int_equal(m.s.floor, 1024);

	/* 10 sleeps of 1s with a 1ns switch in between: samples are 0 */
	for (i = 0; i < 10; i++) {
		sim_idle(&m, 1 * SEC, 1, 0);
		sim_busy(&m, 1, 0);
		assert_true(m.s.util <= BPFGOV_SCALE);
	}
	assert_int_equal(m.s.util, 0);
}

/* ------------------------------------------------------------------ */
/* Floor                                                              */
/* ------------------------------------------------------------------ */

static void test_floor_target_headroom_and_clamps(void **state)
{
	struct bpfgov_config c;

	(void)state;
	bpfgov_config_defaults(&c);
	assert_int_equal(c.headroom_pct, 125);
	assert_int_equal(pol_target(&c, 0), 0);
	assert_int_equal(pol_target(&c, 512), 640);	/* 512 * 1.25 */
	assert_int_equal(pol_target(&c, 800), 1000);
	assert_int_equal(pol_target(&c, 819), 1023);	/* 1023.75 truncated */
	assert_int_equal(pol_target(&c, 820), 1024);	/* 1025 -> scale */
	assert_int_equal(pol_target(&c, 1024), 1024);	/* 1280 -> scale */
	c.headroom_pct = 400;				/* max: 4096 -> scale */
	assert_int_equal(pol_target(&c, 1024), 1024);
	assert_int_equal(pol_target(&c, 100), 400);
	c.headroom_pct = 100;
	assert_int_equal(pol_target(&c, 333), 333);
	c.headroom_pct = 125;
	c.floor_min = 100;
	c.floor_max = 900;
	assert_int_equal(pol_target(&c, 40), 100);	/* 50 -> floor_min */
	assert_int_equal(pol_target(&c, 80), 100);	/* exactly floor_min */
	assert_int_equal(pol_target(&c, 400), 500);	/* inside */
	assert_int_equal(pol_target(&c, 720), 900);	/* exactly floor_max */
	assert_int_equal(pol_target(&c, 800), 900);	/* 1000 -> floor_max */
	/* through the hooks: a segment closes with util 256 -> target 320
	 * and the first floor write takes it (no rate limit before) */
	{
		struct sim m;

		sim_init(&m);
		sim_busy(&m, 1 * MS, 0);
		sim_idle(&m, 1 * MS, 1, 0);
		assert_int_equal(pol_busy_begin(&m.s, &m.c, m.now), POL_FLOOR);
		assert_int_equal(m.s.floor, 320);
		assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_RISE);
		assert_int_equal(m.s.nr_floor_changes, 1);
		assert_int_equal(m.s.last_floor_ns, m.now);
	}
}

/* The hot path's x / 100 without a division is the division itself,
 * over the whole 32-bit range (edges, every multiple of 100 +-1 near
 * them, and a sweep). */
static void test_div100_exact(void **state)
{
	static const __u32 edge[] = { 0, 1, 99, 100, 101, 199, 200, 1024 * 400,
				      0x7fffffffu, 0x80000000u, 0xfffffff0u, 0xffffffffu };
	__u64 x;
	__u32 i;

	(void)state;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		assert_int_equal(pol_div100(edge[i]), edge[i] / 100);
	for (x = 0; x <= 0xffffffffull; x += 9973)
		assert_int_equal(pol_div100((__u32)x), (__u32)x / 100);
	for (x = 0xffffffffull - 100000; x <= 0xffffffffull; x++)
		assert_int_equal(pol_div100((__u32)x), (__u32)x / 100);
}

static void test_floor_deadband(void **state)
{
	struct sim m;
	__u64 t = T0;

	(void)state;
	sim_init(&m);
	m.c.rate_limit_us = 0;		/* isolate the deadband */
	m.c.fall_delay_us = 0;		/* ... from the fall hysteresis */
	m.c.rise_band = 0;		/* ... and from the bands */
	m.c.fall_band = 0;
	assert_int_equal(m.c.deadband, 16);
	m.s.floor = 500;
	m.s.target = 510;		/* +10 < 16 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	assert_int_equal(m.s.floor, 500);
	m.s.target = 485;		/* -15 < 16 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	m.s.target = 515;		/* +15 < 16 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	m.s.target = 516;		/* +16: worth a write */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 516);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_RISE);
	m.s.target = 500;		/* -16 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 1, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 500);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_FALL);
	assert_int_equal(m.s.nr_floor_changes, 2);
	/* the hint is reported when the floor changes */
	m.s.target = 600;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 2, BPFGOV_R_IDLE_DECAY), POL_FLOOR);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_IDLE_DECAY);

	/* reaching a clamp is always written, even inside the deadband */
	m.s.floor = 10;
	m.s.target = 0;			/* floor_min 0 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 3, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 0);
	m.s.floor = 1015;
	m.s.target = 1024;		/* floor_max 1024 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 4, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 1024);
	/* ... also with non-default clamps */
	m.c.floor_min = 200;
	m.c.floor_max = 800;
	m.s.floor = 205;
	m.s.target = 200;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 5, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 200);
	m.s.floor = 799;
	m.s.target = 800;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 6, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 800);
	/* deadband 0: every change is written */
	m.c.deadband = 0;
	m.s.target = 799;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 7, 0), POL_FLOOR);
	/* no change, no write */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 8, 0), 0);
}

/* Rate limit through the hooks: tick_busy 2ms, tau_rise 2ms, rate limit
 * 3ms. Tick 2ms: util 512, floor 512 (first write). Tick 4ms: util 768,
 * but only 2ms since the write: held. Tick 5ms (open 1ms: no segment):
 * 3ms since the write: the held change is made. */
static void test_floor_rate_limit_tick_retry(void **state)
{
	struct sim m;
	__u64 t0;

	(void)state;
	sim_init(&m);
	m.c.tick_busy_us = 2000;
	m.c.rate_limit_us = 3000;
	m.c.headroom_pct = 100;
	sim_reinit(&m);
	assert_int_equal(pol_rate_limit_ns(&m.c), 3 * MS);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	assert_int_equal(pol_tick(&m.s, &m.c, t0 + 2 * MS), POL_FLOOR);
	assert_int_equal(m.s.floor, 512);
	assert_int_equal(pol_tick(&m.s, &m.c, t0 + 4 * MS), 0);
	assert_int_equal(m.s.target, 768);
	assert_int_equal(m.s.floor, 512);
	assert_int_equal(pol_tick(&m.s, &m.c, t0 + 4 * MS + 999999), 0);
	assert_int_equal(m.s.floor, 512);
	assert_int_equal(pol_tick(&m.s, &m.c, t0 + 5 * MS), POL_FLOOR);
	assert_int_equal(m.s.floor, 768);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_RISE);
	assert_int_equal(m.s.last_floor_ns, t0 + 5 * MS);
	assert_int_equal(m.s.nr_floor_changes, 2);
	/* a tick on an idle CPU does nothing */
	pol_busy_end(&m.s, &m.c, t0 + 6 * MS);
	m.s.target = 100;
	assert_int_equal(pol_tick(&m.s, &m.c, t0 + 20 * MS), 0);
	assert_int_equal(m.s.floor, 768);
}

/* The tick gate (tick_due_ns, kept by pol_busy_begin and pol_tick from
 * pol_tick_next): no tick before it would change anything. Over mixed
 * loads (short runs, long runs, gaps, falls held by the delay and rises by
 * the rate limit), a CPU that runs pol_tick only on the ticks the gate lets
 * through decides exactly what one that runs it on every tick decides;
 * and the gate stops the common case, a tick in a short busy run. */
static void test_tick_next_never_misses_work(void **state)
{
	const __u64 tick = 4 * MS;
	struct bpfgov_cpu_state ref;
	struct sim m;
	__u64 t, run, gap;
	unsigned int seed = 1, i, yes = 0, no = 0;

	(void)state;
	sim_init(&m);
	ref = m.s;
	assert_int_equal(m.s.tick_due_ns, ~0ull);
	for (i = 0; i < 4000; i++) {
		seed = seed * 1103515245u + 12345u;
		run = (seed >> 8) % 4 == 0 ? (seed >> 12) % (30 * MS) : (seed >> 12) % (200 * US);
		seed = seed * 1103515245u + 12345u;
		gap = (seed >> 12) % ((seed >> 8) % 3 == 0 ? 40 * MS : 2 * MS);
		assert_int_equal(pol_busy_begin(&m.s, &m.c, m.now), pol_busy_begin(&ref, &m.c, m.now));
		for (t = m.now + 1 + (seed >> 4) % tick; t < m.now + run; t += tick) {
			struct bpfgov_cpu_state copy = m.s;
			__u32 flags = pol_tick(&copy, &m.c, t), rflags;
			int work = flags || copy.util != m.s.util || copy.target != m.s.target ||
				   copy.hold_floor != m.s.hold_floor || copy.seg_start_ns != m.s.seg_start_ns ||
				   copy.below_since_ns != m.s.below_since_ns ||
				   copy.fall_peak != m.s.fall_peak;

			if (work)
				assert_true(t >= m.s.tick_due_ns);
			rflags = pol_tick(&ref, &m.c, t);
			if (t >= m.s.tick_due_ns) {
				assert_int_equal(pol_tick(&m.s, &m.c, t), rflags);
				yes++;
			} else {
				assert_int_equal(rflags, 0);
				no++;
			}
			assert_int_equal(m.s.floor, ref.floor);
			assert_int_equal(m.s.util, ref.util);
			assert_int_equal(m.s.target, ref.target);
			assert_int_equal(m.s.hold_floor, ref.hold_floor);
		}
		m.now += run;
		pol_busy_end(&m.s, &m.c, m.now);
		pol_busy_end(&ref, &m.c, m.now);
		/* the gate stays shut on an idle CPU: pol_tick does nothing */
		assert_int_equal(pol_tick_next(&m.s, &m.c), ~0ull);
		m.now += gap + 1;
	}
	assert_int_equal(m.s.nr_floor_changes, ref.nr_floor_changes);
	assert_true(m.s.nr_floor_changes > 10);
	assert_true(yes > 0 && no > yes);

	/* A short run, the last floor change long ago: no tick is due before
	 * the run is tick_busy_us long, and then one is. */
	sim_reinit(&m);
	sim_busy(&m, 50 * US, 0);
	m.now += 10 * MS;
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.tick_due_ns, m.now + m.c.tick_busy_us * US);
	/* an idle CPU never */
	pol_busy_end(&m.s, &m.c, m.now + 200 * US);
	assert_int_equal(pol_tick_next(&m.s, &m.c), ~0ull);
	assert_int_equal(pol_tick(&m.s, &m.c, m.now + 300 * US), 0);
}

/* A time a little before the last floor change (another CPU's clock, or a
 * tick's expiry that the interrupt was raised for before an idle exit) is
 * inside the rate limit and the fall delay, not 2^64 ns after them. */
static void test_floor_time_before_stamps(void **state)
{
	struct sim m;
	__u64 t0;

	(void)state;
	sim_init(&m);
	m.c.tick_busy_us = 2000;
	m.c.rate_limit_us = 3000;
	m.c.headroom_pct = 100;
	sim_reinit(&m);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	assert_int_equal(pol_tick(&m.s, &m.c, t0 + 2 * MS), POL_FLOOR);
	assert_int_equal(m.s.last_floor_ns, t0 + 2 * MS);
	m.s.target = 1024;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t0 + 2 * MS - 1, BPFGOV_R_NONE), 0);
	assert_int_equal(m.s.floor, 512);
	m.s.last_floor_ns = 0;
	m.s.floor = 900;
	m.s.target = 100;
	m.c.fall_delay_us = 1000;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t0 + 3 * MS, BPFGOV_R_NONE), 0);
	assert_int_equal(m.s.below_since_ns, t0 + 3 * MS);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t0 + 3 * MS - 1, BPFGOV_R_NONE), 0);
	assert_int_equal(m.s.floor, 900);
}

static void test_floor_transition_latency(void **state)
{
	struct sim m;
	__u64 t = T0;

	(void)state;
	sim_init(&m);
	/* rate limit 2ms, platform 5ms: the platform wins */
	m.c.rate_limit_us = 2000;
	m.c.transition_latency_us = 5000;
	assert_int_equal(pol_rate_limit_ns(&m.c), 5 * MS);
	m.c.transition_latency_us = 1000;	/* faster platform: rate limit stays */
	assert_int_equal(pol_rate_limit_ns(&m.c), 2 * MS);
	m.c.rate_limit_us = 0;
	m.c.transition_latency_us = 0;
	assert_int_equal(pol_rate_limit_ns(&m.c), 0);
	m.c.transition_latency_us = 700;	/* rate limit 0 but known latency */
	assert_int_equal(pol_rate_limit_ns(&m.c), 700 * US);

	m.c.rate_limit_us = 2000;
	m.c.transition_latency_us = 5000;
	m.s.floor = 100;
	m.s.target = 500;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), POL_FLOOR);
	m.s.target = 900;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 2 * MS, 0), 0);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 5 * MS - 1, 0), 0);
	assert_int_equal(m.s.floor, 500);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 5 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 900);
}

/*
 * An idle CPU's floor must reach floor_min: the deadband exempts the clamp
 * precisely so that a CPU is not left "a deadband above the minimum".
 * Pattern: 100% busy, then a 1us timer blip every 4ms (sample
 * 1000 * 1024 / 4e6 = 0) for 2s.
 *
 * Guards pol_smooth's rounding: with a truncated step util would stall
 * where diff * 4ms < 4ms + 16ms, i.e. at util 4 (target 5), never 0, so the
 * target would never equal floor_min and the deadband would keep the floor
 * at the last value written, up to 15 above the target.
 */
static void test_floor_idle_cpu_reaches_floor_min(void **state)
{
	struct sim m;
	int i;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 200 * MS, 4 * MS);
	assert_int_equal(m.s.floor, 1024);
	for (i = 0; i < 500; i++) {
		sim_idle(&m, 4 * MS - 1 * US, 1, 0);
		sim_busy(&m, 1 * US, 0);
	}
	print_message("  idle CPU: util %u target %u floor %u\n",
		      m.s.util, m.s.target, m.s.floor);
	assert_int_equal(m.s.util, 0);
	assert_int_equal(m.s.floor, m.c.floor_min);
}

/* ------------------------------------------------------------------ */
/* The platform's efficient level (floor_eff)                         */
/* ------------------------------------------------------------------ */

/*
 * floor_eff is a lower clamp beside floor_min (pol_floor_low): below the
 * efficient level a slower clock saves nothing, so no target asks for
 * less. 348 is the floor judge's model (939 MHz of [600, 1600] MHz).
 * Default headroom 125: target = util * 125 / 100.
 */
static void test_floor_eff_clamps_target(void **state)
{
	struct bpfgov_config c;

	(void)state;
	bpfgov_config_defaults(&c);
	assert_int_equal(c.floor_eff, 0);		/* none until the platform says */
	assert_int_equal(pol_target(&c, 0), 0);
	assert_int_equal(pol_target(&c, 100), 125);
	c.floor_eff = 348;
	assert_int_equal(pol_floor_low(&c), 348);
	assert_int_equal(pol_target(&c, 0), 348);	/* an idle CPU too */
	assert_int_equal(pol_target(&c, 100), 348);	/* 125 < 348 */
	assert_int_equal(pol_target(&c, 278), 348);	/* 347 < 348 */
	assert_int_equal(pol_target(&c, 279), 348);	/* 348 itself */
	assert_int_equal(pol_target(&c, 280), 350);	/* above: util decides */
	assert_int_equal(pol_target(&c, 512), 640);
	/* floor_min above it wins */
	c.floor_min = 400;
	assert_int_equal(pol_floor_low(&c), 400);
	assert_int_equal(pol_target(&c, 100), 400);
	/* floor_max below it wins: the user's word */
	c.floor_min = 0;
	c.floor_max = 200;
	assert_int_equal(pol_floor_low(&c), 200);
	assert_int_equal(pol_target(&c, 0), 200);
	assert_int_equal(pol_target(&c, 1024), 200);
}

/* A CPU of the judge's model: floor_eff 348. */
static void sim_eff(struct sim *m)
{
	sim_init(m);
	m->c.floor_eff = 348;
	sim_reinit(m);
}

/* The same CPU after 200 ms busy: floor 1024. */
static void sim_eff_busy(struct sim *m)
{
	sim_eff(m);
	sim_busy(m, 200 * MS, 4 * MS);
	assert_int_equal(m->s.floor, 1024);
}

/* A CPU starts at the efficient level, and keeps it through the lightest
 * load the judge has: 2 us of work every 2 ms (util 0: a sample of
 * 2 * 1024 / 2000 rounds to 1, and the step to it ends at or below 1). */
static void test_floor_eff_start_and_light_load(void **state)
{
	struct sim m;
	int i;

	(void)state;
	sim_eff(&m);
	assert_int_equal(m.s.floor, 348);
	assert_int_equal(m.s.target, 348);
	for (i = 0; i < 2000; i++) {
		sim_busy(&m, 2 * US, 0);
		sim_idle(&m, 2 * MS - 2 * US, 1, 0);
		if (m.s.floor != 348)
			fail_msg("step %d: floor %u, not 348", i, m.s.floor);
	}
	assert_true(m.s.util <= 1);
}

/*
 * A falling load stops at the efficient level: after 200 ms busy (floor
 * 1024) the CPU runs 1 us every 4 ms, util decays to 0, and the floor
 * comes down to 348, never below (with floor_eff 0 the same run ends at
 * floor_min: test_floor_idle_cpu_reaches_floor_min). While util still
 * gives a target of a deadband or more, the target is held at 348 by
 * floor_eff alone, and the fall waits its window like any other (the
 * window starts again while the target still falls); once util is that
 * low the fall is the quiet CPU's clamp. Either way the floor is 348
 * within two fall windows and a period of the target.
 */
static void test_floor_eff_falling_load_stops_there(void **state)
{
	struct sim m;
	__u32 lowest = 1024;
	int i, at_eff = -1, target_at_eff = -1;

	(void)state;
	sim_eff_busy(&m);
	for (i = 0; i < 500; i++) {
		sim_idle(&m, 4 * MS - 1 * US, 1, 0);
		sim_busy(&m, 1 * US, 0);
		if (m.s.floor < lowest)
			lowest = m.s.floor;
		if (target_at_eff < 0 && m.s.target == 348)
			target_at_eff = i;
		if (at_eff < 0 && m.s.floor == 348)
			at_eff = i;
	}
	print_message("  target at 348 after %d periods, floor after %d\n", target_at_eff, at_eff);
	assert_int_equal(m.s.util, 0);
	assert_int_equal(lowest, 348);
	assert_int_equal(m.s.floor, 348);
	assert_true(target_at_eff >= 0 && at_eff >= 0);
	assert_true(at_eff >= target_at_eff);
	assert_true((__u64)(at_eff - target_at_eff) * 4 * MS <=
		    2 * (__u64)m.c.fall_delay_us * US + 4 * MS);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_FALL);
}

/*
 * A busy CPU whose util dips for a moment keeps its floor. After 200 ms
 * busy (floor 1024) it sleeps 60 ms, which takes util to 256: a target
 * of 320, held at 348 by floor_eff alone. That is a light load,
 * not a quiet CPU (util gives more than a deadband): the fall waits the
 * fall window, and the CPU is busy again within it, so the floor never
 * leaves 1024 and nothing is written. A fall to the clamp without the
 * window took the floor to 348 at the wake-up and back up within 4 ms:
 * two writes for a dip the window exists to ride out.
 */
static void test_floor_eff_busy_dip_keeps_floor(void **state)
{
	struct sim m;
	__u32 changes, lowest = 1024;
	int i;

	(void)state;
	sim_eff_busy(&m);
	changes = m.s.nr_floor_changes;
	sim_idle(&m, 60 * MS, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	print_message("  after the dip: util %u, target %u, floor %u\n", m.s.util, m.s.target,
		      m.s.floor);
	assert_true(m.s.util * m.c.headroom_pct / 100 >= m.c.deadband);
	assert_int_equal(m.s.target, 348);	/* held up by floor_eff alone */
	for (i = 1; i <= 12; i++) {
		pol_tick(&m.s, &m.c, m.now + i * 4 * MS);
		if (m.s.floor < lowest)
			lowest = m.s.floor;
	}
	m.now += 50 * MS;
	pol_busy_end(&m.s, &m.c, m.now);
	assert_int_equal(lowest, 1024);
	assert_int_equal(m.s.nr_floor_changes, changes);
}

/* The remote refresh of a sleeping CPU lowers its floor to the efficient
 * level, not below, and leaves a floor already there alone. */
static void test_floor_eff_remote_refresh(void **state)
{
	struct sim m;
	__u64 idle0;

	(void)state;
	sim_eff(&m);
	m.c.fall_delay_us = 0;
	sim_busy(&m, 20 * MS, 4 * MS);
	assert_true(m.s.floor > 348 + 2 * m.c.deadband);
	pol_busy_end(&m.s, &m.c, m.now);
	idle0 = m.now;
	/* after hold_ms and a target decayed to the lowest floor */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 1 * SEC), POL_FLOOR);
	assert_int_equal(m.s.floor, 348);
	assert_int_equal(m.s.target, 348);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_IDLE_DECAY);
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 2 * SEC), 0);
	assert_int_equal(m.s.floor, 348);
}

/* ------------------------------------------------------------------ */
/* Gap memory                                                         */
/* ------------------------------------------------------------------ */

/* Ramp with headroom 100, tick_busy 2ms, tau_rise 2ms: three tick
 * segments give util 512, 768, 896 (see the ramp test); the busy run ends
 * on the third tick, so pre_gap_target = 896, pre_gap_busy = 6ms, and the
 * floor is 896 (writes at 2, 4, 6ms: each 2ms apart = rate limit). */
static void gap_setup(struct sim *m)
{
	__u64 t0;
	int i;

	sim_init(m);
	m->c.headroom_pct = 100;
	m->c.tick_busy_us = 2000;
	m->c.fall_delay_us = 0;		/* the hold alone, no fall hysteresis */
	m->c.rise_band = 0;
	m->c.fall_band = 0;
	sim_reinit(m);
	t0 = m->now;
	pol_busy_begin(&m->s, &m->c, t0);
	for (i = 1; i <= 3; i++)
		pol_tick(&m->s, &m->c, t0 + i * 2 * MS);
	m->now = t0 + 6 * MS;
	pol_busy_end(&m->s, &m->c, m->now);
	assert_int_equal(m->s.util, 896);
	assert_int_equal(m->s.floor, 896);
	assert_int_equal(m->s.pre_gap_target, 896);
	assert_int_equal(m->s.pre_gap_busy_ns, 6 * MS);
}

static void test_gap_arms_hold(void **state)
{
	struct sim m;

	(void)state;
	gap_setup(&m);
	sim_idle(&m, 500 * US, 1, 0);			/* 0.5ms < gap_hold 1ms */
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 784);		/* 896 * 875 / 1000 = 7/8 */
	assert_int_equal(m.s.nr_gap_holds, 1);

	/* edges: gap of 999.999us arms, exactly 1ms does not */
	gap_setup(&m);
	sim_idle(&m, 1 * MS - 1, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 784);
	gap_setup(&m);
	sim_idle(&m, 1 * MS, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.nr_gap_holds, 0);

	/* keep fraction is a tunable: 500 permille -> 448 */
	gap_setup(&m);
	m.c.gap_keep_permille = 500;
	sim_idle(&m, 100 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 448);

	/* arming sets the end hold_ms after the gap */
	gap_setup(&m);
	sim_idle(&m, 100 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_until_ns, m.now + 30 * MS);

	/* a later short gap re-arms at the level before *that* gap, that
	 * run included (the hold follows a periodic load down instead of
	 * keeping a past peak) and pushes the end out. Util dropped to 400:
	 * the 2ms run (its segment all busy) moves it by
	 * ceil(624 * 2 / (2 + 2)) = 312 to 712, pre_gap_target 712. */
	m.s.util = 400;				/* pretend util dropped */
	m.s.target = 400;
	m.now += 2 * MS;
	pol_busy_end(&m.s, &m.c, m.now);
	assert_int_equal(m.s.pre_gap_target, 712);
	sim_idle(&m, 100 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.nr_gap_holds, 2);
	assert_int_equal(m.s.hold_floor, 623);	/* 712 * 875 / 1000 */
	assert_int_equal(m.s.hold_until_ns, m.now + 30 * MS);
}

/* No arming: busy run before the gap too short, feature off, gap too long. */
static void test_gap_no_arm(void **state)
{
	struct sim m;

	(void)state;
	/* busy run 999.999us < gap_min_busy 1ms */
	sim_init(&m);
	m.c.headroom_pct = 100;
	sim_reinit(&m);
	sim_busy(&m, 1 * MS - 1, 0);
	m.s.pre_gap_target = 896;		/* a high target before the gap */
	sim_idle(&m, 100 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.nr_gap_holds, 0);
	/* ... exactly 1ms is enough */
	sim_init(&m);
	sim_busy(&m, 1 * MS, 0);
	m.s.pre_gap_target = 896;
	sim_idle(&m, 100 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 784);
	/* gap_min_busy_us 0: any busy run counts */
	sim_init(&m);
	m.c.gap_min_busy_us = 0;
	sim_busy(&m, 1, 0);
	m.s.pre_gap_target = 896;
	sim_idle(&m, 100 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 784);

	/* gap_hold_us 0: off */
	gap_setup(&m);
	m.c.gap_hold_us = 0;
	sim_idle(&m, 1, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.nr_gap_holds, 0);

	/* gap too long (5ms >= 1ms) */
	gap_setup(&m);
	sim_idle(&m, 5 * MS, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.nr_gap_holds, 0);
}

/* After arming, light load (busy 50us / idle 2ms, sample
 * 50 * 1024 / 2050 = 24) drags util and target far below 784; the floor
 * goes down to the hold and no further while 2ms gaps (>= gap_hold_us) do
 * not re-arm it. hold_ms (30ms) after the arming gap it is released at the
 * next evaluation: floor = target, reason HOLD_END. */
static void test_gap_hold_keeps_floor_and_releases(void **state)
{
	struct sim m;
	__u64 armed;
	int i;

	(void)state;
	gap_setup(&m);
	sim_idle(&m, 500 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	armed = m.now;
	assert_int_equal(m.s.hold_floor, 784);
	m.now += 50 * US;
	pol_busy_end(&m.s, &m.c, m.now);
	/* Each round is 2ms idle + 50us busy = 2.05ms; the busy_begin of
	 * round i (0-based) is at armed + 50us + (i + 1) * 2ms + i * 50us.
	 * Rounds 0..13 begin at most at armed + 28.7ms + 50us < 30ms: held. */
	for (i = 0; i < 14; i++) {
		sim_idle(&m, 2 * MS, 1, 0);
		sim_busy(&m, 50 * US, 1 * MS);
		assert_int_equal(m.s.hold_floor, 784);
		assert_true(m.s.floor >= 784);
	}
	assert_true(m.s.target < 784);
	assert_int_equal(m.s.floor, 784);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_GAP_HOLD);
	assert_int_equal(m.s.nr_gap_holds, 1);	/* 2ms gaps do not re-arm */
	/* round 14 begins at armed + 50us + 30ms + 700us >= armed + 30ms */
	sim_idle(&m, 2 * MS, 1, 0);
	assert_true(m.now >= armed + 30 * MS);
	assert_int_equal(pol_busy_begin(&m.s, &m.c, m.now), POL_FLOOR);
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.floor, m.s.target);
	assert_true(m.s.floor < 784);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_HOLD_END);

	/* The tick releases it too, on a CPU that stays busy. */
	gap_setup(&m);
	sim_idle(&m, 500 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	armed = m.now;
	pol_tick(&m.s, &m.c, armed + 30 * MS - 1);
	assert_int_equal(m.s.hold_floor, 784);
	pol_tick(&m.s, &m.c, armed + 30 * MS);
	assert_int_equal(m.s.hold_floor, 0);
}

/*
 * The linux-pm report's trigger after a short burst: a busy run of 2-4 ms
 * (shorter than a tick, so no segment closes during it) after a quiet
 * second, then a 750-950 us gap. The gap memory must arm from the run
 * itself: the floor after the gap keeps at least 7/8 of the target that
 * the burst's own utilization gives. That target, derived here without the
 * policy's code: the quiet second's segment closes at the burst's begin
 * (util u0, near 0), the burst's segment is all busy, so util moves toward
 * 1024 by B / (B + tau_rise), the step rounded up (pol_smooth), and the
 * target is util * headroom / 100. For B = 2 ms: 512 -> 640, and 7/8 of
 * it is 560; the target after the gap alone (the segment to the gap's end,
 * busy 2 of 2.8 ms) is 533. A timer tick falls at a random phase, inside
 * the burst or not. Defaults otherwise (tick_busy 4 ms, gap_hold 1 ms).
 */
static void test_gap_arms_from_short_burst(void **state)
{
	__u32 x = 7, ok = 0, worst_floor = 0, worst_want = 1, util, want;
	__u64 burst, gap, tick, start, tau;
	double u0;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		struct sim m;

		sim_init(&m);
		tau = (__u64)m.c.tau_rise_us * US;
		sim_busy(&m, 100 * US, 0);
		sim_idle(&m, 1 * SEC, 1, 0);
		burst = 2 * MS + lcg_below(&x, 2 * MS + 1);
		gap = 750 * US + lcg_below(&x, 200 * US + 1);
		tick = lcg_below(&x, 4 * MS);
		start = m.now;
		pol_busy_begin(&m.s, &m.c, start);
		u0 = m.s.util;
		if (tick && tick < burst)
			pol_tick(&m.s, &m.c, start + tick);
		m.now = start + burst;
		pol_busy_end(&m.s, &m.c, m.now);
		sim_idle(&m, gap, 1, 0);
		pol_busy_begin(&m.s, &m.c, m.now);

		util = (__u32)(u0 + (1024.0 - u0) * (double)burst / (double)(burst + tau));
		if (u0 + (1024.0 - u0) * (double)burst / (double)(burst + tau) > util)
			util++;
		want = util * m.c.headroom_pct / 100;
		if (want > 1024)
			want = 1024;
		if (m.s.floor >= want * 7 / 8)
			ok++;
		if (!i || (__u64)m.s.floor * worst_want < (__u64)worst_floor * want) {
			worst_floor = m.s.floor;
			worst_want = want;
		}
		if (!i)
			print_message("  burst %llu us, gap %llu us: target of the burst %u, floor after the gap %u\n",
				      (unsigned long long)(burst / US), (unsigned long long)(gap / US),
				      want, m.s.floor);
	}
	print_message("  floor >= 7/8 of the burst's target in %u of 100 trials; worst %u against %u (%.2f)\n",
		      ok, worst_floor, worst_want, (double)worst_floor / worst_want);
	assert_int_equal(ok, 100);

	/* The figure of the report: B = 2 ms, gap 800 us. */
	{
		struct sim m;

		sim_init(&m);
		sim_busy(&m, 100 * US, 0);
		sim_idle(&m, 1 * SEC, 1, 0);
		sim_busy(&m, 2 * MS, 0);
		sim_idle(&m, 800 * US, 1, 0);
		pol_busy_begin(&m.s, &m.c, m.now);
		assert_int_equal(m.s.target, 533);
		assert_int_equal(m.s.hold_floor, 560);	/* 640 * 875 / 1000 */
		assert_int_equal(m.s.floor, 560);
		assert_int_equal(m.s.floor_reason, BPFGOV_R_GAP_HOLD);
	}
}

/* ------------------------------------------------------------------ */
/* Remote refresh                                                     */
/* ------------------------------------------------------------------ */

/* tau_fall 10ms, headroom 100. Tick at 2ms: util 512, floor 512; the run
 * ends on that tick, so the open segment starts there with no busy time.
 * A refresh 10ms later: sample 0 over 10ms, step = 512 * 10 / 20 = 256.
 * The refresh follows the target (for the status) but moves the floor only
 * once, straight to floor_min, when the target has decayed to within the
 * deadband of it. */
static void test_remote_refresh_idle_decay(void **state)
{
	struct sim m;
	struct bpfgov_cpu_state before;
	__u64 t0, idle0;

	(void)state;
	sim_init(&m);
	m.c.headroom_pct = 100;
	m.c.tick_busy_us = 2000;
	m.c.tau_fall_us = 10000;
	m.c.fall_delay_us = 0;		/* falls at once (hysteresis tested apart) */
	sim_reinit(&m);
	t0 = m.now;
	pol_busy_begin(&m.s, &m.c, t0);
	pol_tick(&m.s, &m.c, t0 + 2 * MS);

	/* no effect on a busy CPU */
	before = m.s;
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, t0 + 1 * SEC), 0);
	assert_memory_equal(&before, &m.s, sizeof(before));

	idle0 = t0 + 2 * MS;
	pol_busy_end(&m.s, &m.c, idle0);
	pol_idle_enter(&m.s, &m.c, 1, idle0);
	assert_int_equal(m.s.floor, 512);
	/* before remote_scan_us (10ms): nothing */
	before = m.s;
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 10 * MS - 1), 0);
	assert_memory_equal(&before, &m.s, sizeof(before));
	/* 10ms: the target follows (256), the floor stays */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 10 * MS), 0);
	assert_int_equal(m.s.target, 256);
	assert_int_equal(m.s.floor, 512);
	/* util and the segment stay owned by the CPU */
	assert_int_equal(m.s.util, 512);
	assert_int_equal(m.s.seg_start_ns, idle0);
	/* 30ms: step = 512 * 30 / 40 = 384 -> 128, the floor still stays */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 30 * MS), 0);
	assert_int_equal(m.s.target, 128);
	assert_int_equal(m.s.floor, 512);
	assert_int_equal(m.s.nr_floor_changes, 1);
	/* the CPU wakes and computes the same util the refresh predicted */
	{
		struct sim w = m;
		__u64 res, lat;

		pol_idle_exit(&w.s, &w.c, idle0 + 30 * MS, &res, &lat);
		pol_busy_begin(&w.s, &w.c, idle0 + 30 * MS);
		assert_int_equal(w.s.util, 128);
		assert_int_equal(w.s.floor, 128);
	}
	/* 400ms: 512 * 10 / 410 -> 12, within the deadband (16) of floor_min:
	 * one decision, to floor_min */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 400 * MS), POL_FLOOR);
	assert_true(m.s.target < m.c.deadband);
	assert_int_equal(m.s.floor, 0);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_IDLE_DECAY);
	assert_int_equal(m.s.nr_floor_changes, 2);
	/* and none after it */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 2 * SEC), 0);
	assert_int_equal(m.s.nr_floor_changes, 2);
}

/* The refresh's one fall waits until the CPU slept hold_ms, and leaves a
 * floor within twice the deadband of floor_min alone. */
static void test_remote_refresh_quiet_only(void **state)
{
	struct sim m;
	__u64 idle0;

	(void)state;
	sim_init(&m);
	m.c.hold_ms = 100;
	m.c.remote_scan_us = 1000;
	sim_busy(&m, 5 * MS, 0);
	idle0 = m.now;
	pol_idle_enter(&m.s, &m.c, 1, idle0);
	m.s.target = 0;
	m.s.util = 0;			/* a target within the deadband at once */
	m.s.seg_busy_ns = 0;
	m.s.floor = 100;
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 50 * MS), 0);
	assert_int_equal(m.s.floor, 100);
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 100 * MS), POL_FLOOR);
	assert_int_equal(m.s.floor, 0);
	/* 2 * deadband - 1 above floor_min: left */
	m.s.floor = 2 * m.c.deadband - 1;
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 200 * MS), 0);
	assert_int_equal(m.s.floor, 2 * m.c.deadband - 1);
	m.s.floor = 2 * m.c.deadband;
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 300 * MS), POL_FLOOR);
	assert_int_equal(m.s.floor, 0);
}

/* The open segment holds the last busy run, not yet in util: over a sleep
 * still short next to that run it raises the target. A sleeping CPU's floor
 * never rises for it. */
static void test_remote_refresh_never_raises(void **state)
{
	struct sim m;
	__u64 idle0;

	(void)state;
	sim_init(&m);
	sim_busy(&m, 100 * US, 0);
	sim_idle(&m, 20 * MS, 1, 0);
	sim_busy(&m, 3 * MS, 0);		/* below tick_busy_us: not in util yet */
	idle0 = m.now;
	pol_idle_enter(&m.s, &m.c, 1, idle0);
	assert_true(m.s.floor < 64);
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 10 * MS), 0);
	assert_true(m.s.target > m.s.floor + m.c.deadband);
	assert_true(m.s.floor < 64);
}

/* With a hold armed, a sleeping CPU keeps its floor: the refresh releases
 * the hold hold_ms after the arming gap, and the CPU's own evaluation
 * lowers the floor when it wakes. */
static void test_remote_refresh_hold_release(void **state)
{
	struct sim m;
	__u64 idle0, armed, res, lat;

	(void)state;
	gap_setup(&m);
	sim_idle(&m, 500 * US, 1, 0);
	pol_busy_begin(&m.s, &m.c, m.now);
	assert_int_equal(m.s.hold_floor, 784);
	armed = m.now;
	m.now += 10 * US;
	pol_busy_end(&m.s, &m.c, m.now);
	idle0 = m.now;
	pol_idle_enter(&m.s, &m.c, 1, idle0);
	assert_int_equal(m.s.floor, 896);
	/* at 10ms and 20ms the target is far below 784 but the hold stays */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 10 * MS), 0);
	assert_true(m.s.target < 784);
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, idle0 + 20 * MS), 0);
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, armed + 30 * MS - 1), 0);
	assert_int_equal(m.s.hold_floor, 784);
	assert_int_equal(m.s.floor, 896);
	/* hold_ms (30ms) after the arming gap: released, the floor stays
	 * (the target is still well above floor_min) */
	assert_int_equal(pol_remote_refresh(&m.s, &m.c, armed + 30 * MS), 0);
	assert_int_equal(m.s.hold_floor, 0);
	assert_int_equal(m.s.floor, 896);
	/* the CPU wakes: its own evaluation falls to the target */
	pol_idle_exit(&m.s, &m.c, armed + 31 * MS, &res, &lat);
	assert_int_equal(pol_busy_begin(&m.s, &m.c, armed + 31 * MS), POL_FLOOR);
	assert_int_equal(m.s.floor, m.s.target);
	assert_true(m.s.floor < 784);
}

/* ------------------------------------------------------------------ */
/* Floor hysteresis                                                   */
/* ------------------------------------------------------------------ */

/* Floor hysteresis, the wait alone (bands 0): a rise at once, a fall
 * once the target stayed below the floor for fall_delay_us; a return at
 * or above the floor cancels the wait. */
static void test_floor_fall_delay(void **state)
{
	struct sim m;
	__u64 t = T0;

	(void)state;
	sim_init(&m);
	m.c.rate_limit_us = 0;
	m.c.rise_band = 0;
	m.c.fall_band = 0;
	assert_int_equal(m.c.fall_delay_us, 10000);
	m.s.floor = 500;
	m.s.target = 600;			/* rise: at once */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 600);
	m.s.target = 400;			/* fall: the wait starts */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 1, 0), 0);
	assert_int_equal(m.s.below_since_ns, t + 1);
	assert_int_equal(m.s.fall_peak, 400);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 1 + 10 * MS - 1, 0), 0);
	assert_int_equal(m.s.floor, 600);
	/* edge: exactly fall_delay later */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 1 + 10 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 400);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_FALL);
	assert_int_equal(m.s.below_since_ns, 0);
	assert_int_equal(m.s.fall_peak, 0);
	/* below, then back at the floor: the wait restarts */
	t += 20 * MS;
	m.s.target = 300;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	m.s.target = 400;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 5 * MS, 0), 0);
	assert_int_equal(m.s.below_since_ns, 0);
	assert_int_equal(m.s.fall_peak, 0);
	m.s.target = 300;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 6 * MS, 0), 0);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 12 * MS, 0), 0);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 16 * MS, 0), POL_FLOOR);
	/* a fall to floor_min is not delayed */
	m.s.target = 0;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 17 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 0);
	/* within the deadband below: the wait starts (the value is the
	 * window's peak), but the window ends without a write and a fresh
	 * one starts at the target then */
	m.s.floor = 500;
	m.s.target = 490;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 30 * MS, 0), 0);
	assert_int_equal(m.s.below_since_ns, t + 30 * MS);
	m.s.target = 300;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 40 * MS, 0), 0);
	assert_int_equal(m.s.floor, 500);
	assert_int_equal(m.s.below_since_ns, t + 40 * MS);
	assert_int_equal(m.s.fall_peak, 300);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 50 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 300);
	/* fall_delay_us = 0: at once, to the target */
	m.c.fall_delay_us = 0;
	m.s.floor = 500;
	m.s.target = 300;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 51 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 300);
	assert_int_equal(m.s.below_since_ns, 0);
}

/* Rise band: a rise is made at once, but only once the floor is more than
 * rise_band/1024 of the target below it. Default 256: with floor 500 the
 * threshold is (t - 500) * 1024 > t * 256, i.e. t > 666.67. */
static void test_floor_rise_band(void **state)
{
	struct sim m;
	__u64 t = T0;

	(void)state;
	sim_init(&m);
	m.c.rate_limit_us = 0;
	assert_int_equal(m.c.rise_band, 256);
	m.s.floor = 500;
	m.s.target = 666;			/* 166 * 1024 = 169984 <= 666 * 256 = 170496 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	assert_int_equal(m.s.floor, 500);
	m.s.target = 667;			/* 167 * 1024 = 171008 > 170752 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 1, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 667);	/* to the whole target */
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_RISE);
	/* a target above the floor within the band cancels a pending fall */
	m.s.target = 300;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 2, 0), 0);
	assert_int_equal(m.s.below_since_ns, t + 2);
	m.s.target = 700;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 3, 0), 0);
	assert_int_equal(m.s.floor, 667);
	assert_int_equal(m.s.below_since_ns, 0);
	assert_int_equal(m.s.fall_peak, 0);
	/* the lowest floor is left at once: any rise past the deadband */
	m.s.floor = 0;
	m.s.target = 15;			/* < deadband 16 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 4, 0), 0);
	m.s.target = 16;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 5, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 16);
	/* reaching floor_max is always written, inside the band too */
	m.s.floor = 900;
	m.s.target = 1024;			/* 124 * 1024 <= 1024 * 256 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 6, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 1024);
	m.c.floor_max = 800;
	m.s.floor = 700;
	m.s.target = 800;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 7, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 800);
	m.c.floor_max = 1024;
	/* the gap memory's level is what is compared: from the lowest floor
	 * the hold is written at once (a short gap never leaves the floor
	 * at the minimum) */
	m.s.floor = 0;
	m.s.target = 0;
	m.s.hold_floor = 784;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 8, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 784);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_GAP_HOLD);
	m.s.hold_floor = 0;
	/* rise_band 0: every rise past the deadband */
	m.c.rise_band = 0;
	m.s.floor = 500;
	m.s.target = 516;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 9, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 516);
	/* the largest band: the floor keeps half the target */
	m.c.rise_band = 512;
	m.s.floor = 500;
	m.s.target = 1000;			/* 500 * 1024 <= 1000 * 512 */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 10, 0), 0);
	m.s.target = 1001;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 11, 0), POL_FLOOR);
}

/* Fall band and window peak: once the target stayed below the floor for
 * fall_delay_us, the floor goes to the highest target of that window, and
 * only if that is more than fall_band/1024 of the floor below it. Default
 * 192 with floor 800: a fall needs (800 - p) * 1024 > 800 * 192 = 153600,
 * i.e. p < 650. */
static void test_floor_fall_band_peak(void **state)
{
	struct sim m;
	__u64 t = T0;

	(void)state;
	sim_init(&m);
	m.c.rate_limit_us = 0;
	assert_int_equal(m.c.fall_band, 192);
	assert_int_equal(m.c.fall_delay_us, 10000);
	m.s.floor = 800;
	m.s.target = 500;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	assert_int_equal(m.s.fall_peak, 500);
	m.s.target = 620;			/* the window's peak */
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 3 * MS, 0), 0);
	m.s.target = 450;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 6 * MS, 0), 0);
	assert_int_equal(m.s.fall_peak, 620);
	/* the window ends: to the peak, not to the trough in it nor to the
	 * target at its end */
	m.s.target = 600;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 10 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 620);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_UTIL_FALL);
	assert_int_equal(m.s.fall_peak, 0);

	/* edge: a peak of 650 is not worth a fall; the window starts again
	 * from the target at its end */
	t += 100 * MS;
	m.s.floor = 800;
	m.s.target = 650;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	m.s.target = 600;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 10 * MS, 0), 0);
	assert_int_equal(m.s.floor, 800);
	assert_int_equal(m.s.below_since_ns, t + 10 * MS);
	assert_int_equal(m.s.fall_peak, 600);
	/* the next window's peak, 649, is: (800 - 649) * 1024 = 154624 */
	m.s.target = 649;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 15 * MS, 0), 0);
	m.s.target = 600;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 20 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 649);

	/* a target still falling at the window's end (more than half the
	 * fall band below its peak): no fall to a peak that another fall
	 * would follow; the window starts again from there */
	t += 100 * MS;
	m.s.floor = 800;
	m.s.target = 700;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	m.s.target = 600;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 5 * MS, 0), 0);
	/* (700 - 500) * 2048 > 700 * 192 */
	m.s.target = 500;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 10 * MS, 0), 0);
	assert_int_equal(m.s.floor, 800);
	assert_int_equal(m.s.below_since_ns, t + 10 * MS);
	assert_int_equal(m.s.fall_peak, 500);
	/* settled: (500 - 460) * 2048 <= 500 * 192; one fall, to the peak */
	m.s.target = 470;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 15 * MS, 0), 0);
	m.s.target = 460;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 20 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 500);

	/* the rate limit holds a due fall back: the window is kept and a
	 * later, higher target still counts */
	t += 100 * MS;
	m.c.rate_limit_us = 2000;
	m.s.floor = 800;
	m.s.last_floor_ns = t + 9 * MS;
	m.s.target = 400;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 10 * MS, 0), 0);
	assert_int_equal(m.s.below_since_ns, t);
	m.s.target = 500;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 11 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 500);
	m.c.rate_limit_us = 0;

	/* the gap memory's level counts as the target in the window */
	t += 100 * MS;
	m.s.floor = 800;
	m.s.target = 100;
	m.s.hold_floor = 600;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t, 0), 0);
	assert_int_equal(m.s.fall_peak, 600);
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 10 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 600);
	assert_int_equal(m.s.floor_reason, BPFGOV_R_GAP_HOLD);
	m.s.hold_floor = 0;

	/* floor_min is reached at once, whatever the window */
	m.s.target = 0;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 11 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 0);

	/* fall_delay_us 0: no window, the band applies to the target */
	m.c.fall_delay_us = 0;
	m.s.floor = 800;
	m.s.target = 650;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 12 * MS, 0), 0);
	assert_int_equal(m.s.below_since_ns, 0);
	m.s.target = 649;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 13 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 649);
	/* fall_band 0: the deadband alone */
	m.c.fall_band = 0;
	m.s.target = 633;
	assert_int_equal(pol_floor_eval(&m.s, &m.c, t + 14 * MS, 0), POL_FLOOR);
	assert_int_equal(m.s.floor, 633);
}

/* A jittered periodic load at 347 Hz: busy and idle each 1.1 ms plus
 * [0, 0.6 ms) (no short gaps: the gap memory stays out). Returns the floor
 * changes over @n periods after 200 ms of settling; checks after every
 * busy start that the floor keeps (1024 - rise_band)/1024 of the target
 * (less the deadband) once the rate limit allows a write. */
static __u64 jitter_load_changes(struct sim *m, int n)
{
	__u32 x = 1;
	__u64 before = 0;
	int i;

	for (i = 0; i < 70 + n; i++) {
		__u64 busy = 1100 * US + lcg_below(&x, 600 * US);
		__u64 idle = 1100 * US + lcg_below(&x, 600 * US);

		if (i == 70)
			before = m->s.nr_floor_changes;
		sim_busy(m, busy, 0);
		sim_idle(m, idle, 1, 0);
		if (m->now - m->s.last_floor_ns >= pol_rate_limit_ns(&m->c))
			assert_true((__u64)(m->s.floor + m->c.deadband) * BPFGOV_SCALE >
				    (__u64)m->s.target * (BPFGOV_SCALE - m->c.rise_band));
	}
	return m->s.nr_floor_changes - before;
}

/* Why the bands exist: on a jittered steady load the target wobbles by
 * about a sixth either way. Without the bands the floor follows each
 * wobble (tens of writes a second); with the defaults it keeps one level
 * (a few writes over the run), and the floor stays within the bands of
 * the target. */
static void test_floor_steady_jitter_keeps_level(void **state)
{
	struct sim m;
	__u64 with, without;

	(void)state;
	sim_init(&m);
	with = jitter_load_changes(&m, 700);	/* ~2 s */
	print_message("  jittered 347 Hz, 2 s: %llu floor changes with the bands\n",
		      (unsigned long long)with);
	assert_true(with <= 4);
	sim_init(&m);
	m.c.rise_band = 0;
	m.c.fall_band = 0;
	without = jitter_load_changes(&m, 700);
	print_message("  jittered 347 Hz, 2 s: %llu floor changes without\n",
		      (unsigned long long)without);
	assert_true(without >= 10 * (with + 1));
}

/* The bands keep the gap memory whole: an impulse (busy 10 ms, a gap of
 * 747-950 us, busy again) never finds the floor at the minimum after the
 * gap, with the default tunables. */
static void test_floor_bands_keep_gap_memory(void **state)
{
	struct sim m;
	__u32 x = 7;
	int i;

	(void)state;
	sim_init(&m);
	for (i = 0; i < 100; i++) {
		int k;

		/* quiet (1 us timer blips every 4 ms): floor at the minimum */
		for (k = 0; k < 150; k++) {
			sim_idle(&m, 4 * MS - 1 * US, 1, 0);
			sim_busy(&m, 1 * US, 0);
		}
		assert_int_equal(m.s.floor, m.c.floor_min);
		sim_busy(&m, 10 * MS, 4 * MS);
		sim_idle(&m, 747 * US + lcg_below(&x, 204 * US), 1, 0);
		pol_busy_begin(&m.s, &m.c, m.now);
		assert_true(m.s.floor > m.c.floor_min);
		assert_true(m.s.hold_floor > 0);
		m.now += 5 * MS;
		pol_tick(&m.s, &m.c, m.now);
		assert_true(m.s.floor > m.c.floor_min);
		pol_busy_end(&m.s, &m.c, m.now);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tunables_defaults_in_range),
		cmocka_unit_test(test_cpu_init),
		cmocka_unit_test(test_util_smooth_arithmetic),
		cmocka_unit_test(test_util_one_segment),
		cmocka_unit_test(test_util_50pct_default_taus),
		cmocka_unit_test(test_util_50pct_any_tau),
		cmocka_unit_test(test_short_cycles_share_a_segment),
		cmocka_unit_test(test_util_rises_fast_falls_slow),
		cmocka_unit_test(test_util_long_busy_ticks_ramp),
		cmocka_unit_test(test_util_long_idle_falls),
		cmocka_unit_test(test_util_clamps_0_1024),
		cmocka_unit_test(test_floor_target_headroom_and_clamps),
		cmocka_unit_test(test_floor_deadband),
		cmocka_unit_test(test_floor_rate_limit_tick_retry),
		cmocka_unit_test(test_tick_next_never_misses_work),
		cmocka_unit_test(test_floor_time_before_stamps),
		cmocka_unit_test(test_floor_transition_latency),
		cmocka_unit_test(test_floor_idle_cpu_reaches_floor_min),
		cmocka_unit_test(test_floor_eff_clamps_target),
		cmocka_unit_test(test_floor_eff_start_and_light_load),
		cmocka_unit_test(test_floor_eff_falling_load_stops_there),
		cmocka_unit_test(test_floor_eff_busy_dip_keeps_floor),
		cmocka_unit_test(test_floor_eff_remote_refresh),
		cmocka_unit_test(test_gap_arms_hold),
		cmocka_unit_test(test_gap_no_arm),
		cmocka_unit_test(test_gap_hold_keeps_floor_and_releases),
		cmocka_unit_test(test_gap_arms_from_short_burst),
		cmocka_unit_test(test_remote_refresh_idle_decay),
		cmocka_unit_test(test_remote_refresh_never_raises),
		cmocka_unit_test(test_remote_refresh_quiet_only),
		cmocka_unit_test(test_remote_refresh_hold_release),
		cmocka_unit_test(test_div100_exact),
		cmocka_unit_test(test_floor_fall_delay),
		cmocka_unit_test(test_floor_rise_band),
		cmocka_unit_test(test_floor_fall_band_peak),
		cmocka_unit_test(test_floor_steady_jitter_keeps_level),
		cmocka_unit_test(test_floor_bands_keep_gap_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
