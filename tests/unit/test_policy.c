// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the bpfgov policy core (include/bpfgov_policy.h).
 *
 * The functions are driven the way the BPF hooks drive them:
 *   a busy run ends        -> pol_busy_end (trace: at the idle entry)
 *   cpu_idle enter         -> pol_idle_enter
 *   sched_waking (remote)  -> pol_wake_stamp
 *   cpu_idle exit          -> pol_idle_exit
 *   a busy run begins      -> pol_busy_begin (trace: at the idle exit that a
 *                             task follows, include/bpfgov_runs.h)
 *   timer tick while busy  -> pol_tick
 *   another CPU's hook     -> pol_remote_refresh
 *
 * Every expected number is derived in a comment next to its assertion.
 * Time starts at T0 (not 0: seg_start_ns == 0 means "no segment yet").
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>
#include "bpfgov.h"
#include "bpfgov_tunables.h"
#include "bpfgov_policy.h"

#define US	1000ull
#define MS	1000000ull
#define SEC	1000000000ull
#define T0	(1 * SEC)

/* ------------------------------------------------------------------ */
/* Simulation helpers                                                  */
/* ------------------------------------------------------------------ */

struct sim {
	struct bpfgov_config c;
	struct bpfgov_cpu_state s;
	__u64 now;
};

static void sim_init(struct sim *m)
{
	bpfgov_config_defaults(&m->c);
	pol_cpu_init(&m->s, &m->c);
	m->now = T0;
}

/* Deterministic jitter for the load tests (LCG, Numerical Recipes). */
static __u64 lcg_below(__u32 *x, __u64 n)
{
	*x = *x * 1664525u + 1013904223u;
	return (__u64)(*x >> 8) % n;
}

/* Re-initialise the per-CPU state after the test changed the config. */
static void sim_reinit(struct sim *m)
{
	pol_cpu_init(&m->s, &m->c);
	m->now = T0;
}

/* A busy run of @dur from m->now: switch in, ticks every @tick (0: none)
 * strictly inside the run, switch out. m->now ends at the switch out. */
static void sim_busy(struct sim *m, __u64 dur, __u64 tick)
{
	__u64 start = m->now, t;

	pol_busy_begin(&m->s, &m->c, start);
	if (tick)
		for (t = start + tick; t < start + dur; t += tick)
			pol_tick(&m->s, &m->c, t);
	m->now = start + dur;
	pol_busy_end(&m->s, &m->c, m->now);
}

/* An idle residency of @dur in @state; if @stamp_lat, a waker stamps the
 * CPU @stamp_lat before the exit. Returns pol_idle_exit's flags. */
static __u32 sim_idle(struct sim *m, __u64 dur, __u32 state, __u64 stamp_lat)
{
	__u64 res, lat, start = m->now;
	__u32 r;

	pol_idle_enter(&m->s, &m->c, state, start);
	if (stamp_lat)
		pol_wake_stamp(&m->s, start + dur - stamp_lat);
	m->now = start + dur;
	r = pol_idle_exit(&m->s, &m->c, m->now, &res, &lat);
	assert_int_equal(res, dur);
	assert_int_equal(lat, stamp_lat);
	return r;
}

/* 4-state table used by the idle tests: poll, C1, C2, C3.
 * payback = max(residency, cost * payback_pct / 100), default
 * payback_pct 200, no measured cost (cost = table exit latency):
 *   0: poll -> 0
 *   1: max(resid 2us,   2 * exit 2us)   = 4us
 *   2: max(resid 150us, 2 * exit 50us)  = 150us
 *   3: max(resid 800us, 2 * exit 200us) = 800us
 * Idle worth of a residency without a wake stamp = residency - cost
 * (clamped at 0) for C1..C3: C1 pays back from a 6us residency, C2 from
 * 200us, C3 from 1000us. */
static void cfg_four_states(struct bpfgov_config *c)
{
	c->nr_states = 4;
	c->state_is_poll[0] = 1;
	c->state_exit_latency_us[0] = 0;  c->state_residency_us[0] = 0;
	c->state_is_poll[1] = 0;
	c->state_exit_latency_us[1] = 2;  c->state_residency_us[1] = 2;
	c->state_is_poll[2] = 0;
	c->state_exit_latency_us[2] = 50; c->state_residency_us[2] = 150;
	c->state_is_poll[3] = 0;
	c->state_exit_latency_us[3] = 200; c->state_residency_us[3] = 800;
}

/* ------------------------------------------------------------------ */
/* Tunables table                                                      */
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
	assert_int_equal(n, 28);	/* every X() line was visited */
}

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
/* Utilization                                                         */
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
/* Floor                                                               */
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
/* Gap memory                                                          */
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
/* Remote refresh                                                      */
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
/* Idle choice                                                         */
/* ------------------------------------------------------------------ */

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
	/* poll_max_us = 0 (no veto): a timeout is still carried, the pick
	 * stays, and the whole period is learned when it ends */
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
	assert_int_equal(m.s.idle_pick, 0);
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
 * governor (poll_ok) once one idle in 32 had its next timer before halt
 * paid back, and takes it back below one in 64; the veto's halt never
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
	assert_int_equal(m.s.timer_share, 0);
	assert_int_equal(m.s.poll_ok, 0);
	reason = m.s.pick_reason;
	/* one in 8 has its timer 60us away (< 100us): poll_ok comes, once */
	for (i = 0; i < 400; i++) {
		sim_busy(&m, 100 * US, 0);
		r = i % 8 ? sim_timed_idle(&m, 1 * MS, 10 * MS) : sim_timed_idle(&m, 80 * US, 60 * US);
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
	assert_true(m.s.timer_share >= 65536 / 32);
	/* a timer at the payback point itself is not near */
	r = m.s.timer_share;
	sim_busy(&m, 100 * US, 0);
	sim_timed_idle(&m, 1 * MS, 100 * US);
	assert_int_equal(m.s.timer_share, r - (r >> 8));
	/* far timers only: kept down to 1/64, then taken back, once */
	for (i = 0; i < 1000; i++) {
		sim_busy(&m, 100 * US, 0);
		r = sim_timed_idle(&m, 1 * MS, 10 * MS);
		if ((int)m.s.poll_ok != ok) {
			assert_true(r & POL_PICK);
			assert_true(m.s.timer_share < 65536 / 64);
			ok = (int)m.s.poll_ok;
			flips++;
		}
		if (ok)
			assert_true(m.s.timer_share >= 65536 / 64);
	}
	assert_int_equal(m.s.poll_ok, 0);
	assert_int_equal(flips, 2);
	/* the veto's halt (the history says poll) shuts polling again */
	m.s.timer_share = 65536 / 2;
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

/* poll_max_us = 0 turns the long-poll veto off in both places: no poll
 * is counted long at idle exit, and pol_idle_select keeps a polling pick
 * whatever the expected idle or the long_poll argument. */
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
	/* direct: neither a long share nor the long_poll flag veto */
	m.s.long_share = 1024;
	assert_int_equal(pol_idle_select(&m.s, &m.c, 0), 0);
	assert_int_equal(pol_idle_select(&m.s, &m.c, 1), 0);
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

/* ------------------------------------------------------------------ */
/* Tables of up to CPUIDLE_STATE_MAX states                            */
/* ------------------------------------------------------------------ */

/* intel_idle's skl_cstates (drivers/idle/intel_idle.c, Skylake to Coffee
 * Lake clients), POLL first: exit latency / target residency, us.
 * Paybacks (payback_pct 200, table costs): C1 4, C1E 20, C3 140, C6 200,
 * C7s 800, C8 800, C9 5000, C10 5000 us. */
static const __u32 skl_lat[] = { 0, 2, 10, 70, 85, 124, 200, 480, 890 };
static const __u32 skl_res[] = { 0, 2, 20, 100, 200, 800, 800, 5000, 5000 };

static void cfg_table(struct bpfgov_config *c, const __u32 *lat, const __u32 *res, __u32 n)
{
	c->nr_states = n;
	for (__u32 k = 0; k < n; k++) {
		c->state_is_poll[k] = k == 0;
		c->state_exit_latency_us[k] = lat[k];
		c->state_residency_us[k] = res[k];
	}
}

static void skl_setup(struct sim *m)
{
	sim_init(m);
	cfg_table(&m->c, skl_lat, skl_res, 9);
	sim_reinit(m);
}

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

/*
 * Exponential idles straddling a state's payback point, through the policy
 * core (defaults, history per context): how often the standing pick
 * changes per simulated second, each change a write of the idle knobs.
 * Each idle follows a 20 us busy run and is spent in the standing pick (a
 * halting state's residency is the idle plus its exit latency).
 */
static double straddle_rate(struct sim *m, __u64 mean_ns, __u64 span_ns, __u32 seed)
{
	__u64 start = m->now, changes = m->s.nr_pick_changes;
	__u32 x = seed;

	while (m->now - start < span_ns) {
		double u = (lcg_below(&x, 1u << 24) + 0.5) / (double)(1u << 24);
		__u64 idle = (__u64)(-log(u) * (double)mean_ns), res;
		__u32 st = m->s.idle_pick;

		sim_busy(m, 20 * US, 0);
		res = idle + (m->c.state_is_poll[st] ? 0 : m->c.state_exit_latency_us[st] * US);
		if (!res)
			res = 1;
		sim_idle(m, res, st, 0);
	}
	return (double)(m->s.nr_pick_changes - changes) * SEC / (double)(m->now - start);
}

static void test_idle_straddle_rates(void **state)
{
	/* the payback points of skl (payback_pct 200): C1 4, C1E 20, C3 140,
	 * C6 200, C7s and C8 800, C9 and C10 5000 us */
	static const __u64 means_us[] = { 4, 20, 140, 200, 800, 5000 };
	/* the four states of the report: POLL, C1 2/2, C1E 10/20, C6 133/133 */
	static const __u32 lat4[] = { 0, 2, 10, 133 }, res4[] = { 0, 2, 20, 133 };
	static const __u64 means4_us[] = { 10, 30, 1000 };
	const struct { __u32 pick_dwell_ms; } d = { 100 };
	double r0, r;
	struct sim m;

	(void)state;
	for (size_t i = 0; i < sizeof(means_us) / sizeof(means_us[0]); i++) {
		skl_setup(&m);	/* no dwell: the history alone */
		r0 = straddle_rate(&m, means_us[i] * US, 2 * SEC, 7 + (__u32)i);
		skl_setup(&m);
		m.c.pick_dwell_ms = d.pick_dwell_ms;
		r = straddle_rate(&m, means_us[i] * US, 2 * SEC, 7 + (__u32)i);
		print_message("  skl, exponential idles of mean %llu us: %.1f pick changes/s, %.1f with the %u ms dwell (standing at %u)\n",
			      (unsigned long long)means_us[i], r0, r, d.pick_dwell_ms, m.s.idle_pick);
		assert_true(r <= 10.0);
	}
	for (size_t i = 0; i < sizeof(means4_us) / sizeof(means4_us[0]); i++) {
		sim_init(&m);
		cfg_table(&m.c, lat4, res4, 4);
		sim_reinit(&m);
		r0 = straddle_rate(&m, means4_us[i] * US, 2 * SEC, 11 + (__u32)i);
		m.c.pick_dwell_ms = d.pick_dwell_ms;
		sim_reinit(&m);
		r = straddle_rate(&m, means4_us[i] * US, 2 * SEC, 11 + (__u32)i);
		print_message("  POLL/C1/C1E/C6, mean %llu us: %.1f pick changes/s, %.1f with the dwell (standing at %u)\n",
			      (unsigned long long)means4_us[i], r0, r, m.s.idle_pick);
		assert_true(r <= 10.0);
	}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tunables_defaults_in_range),
		cmocka_unit_test(test_idle_skl_c10_books_as_c10),
		cmocka_unit_test(test_idle_skl_deep_exit_not_poll_limit),
		cmocka_unit_test(test_idle_state9),
		cmocka_unit_test(test_idle_straddle_rates),
		cmocka_unit_test(test_idle_dwell_steady),
		cmocka_unit_test(test_idle_dwell_votes_veto_does_not),
		cmocka_unit_test(test_tunables_default_state_table),
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
		cmocka_unit_test(test_gap_arms_hold),
		cmocka_unit_test(test_gap_no_arm),
		cmocka_unit_test(test_gap_hold_keeps_floor_and_releases),
		cmocka_unit_test(test_gap_arms_from_short_burst),
		cmocka_unit_test(test_remote_refresh_idle_decay),
		cmocka_unit_test(test_remote_refresh_never_raises),
		cmocka_unit_test(test_remote_refresh_quiet_only),
		cmocka_unit_test(test_remote_refresh_hold_release),
		cmocka_unit_test(test_idle_payback_points),
		cmocka_unit_test(test_idle_no_history_deepest_allowed),
		cmocka_unit_test(test_idle_history_short_picks_poll_long_picks_halt),
		cmocka_unit_test(test_idle_fixed_state_never_repicks),
		cmocka_unit_test(test_wake_fast_is_exit_then_begin),
		cmocka_unit_test(test_div100_exact),
		cmocka_unit_test(test_paid_is_payback_compare),
		cmocka_unit_test(test_idle_measured_cost_raises_payback),
		cmocka_unit_test(test_idle_long_poll_veto),
		cmocka_unit_test(test_idle_qos_limit),
		cmocka_unit_test(test_idle_qos_reason_multi_state),
		cmocka_unit_test(test_idle_too_deep_too_shallow),
		cmocka_unit_test(test_idle_bins_decay),
		cmocka_unit_test(test_idle_poll_max_zero_no_veto),
		cmocka_unit_test(test_idle_worth_wake_stamp),
		cmocka_unit_test(test_idle_worth_residency_minus_cost),
		cmocka_unit_test(test_idle_worth_stamp_at_exit),
		cmocka_unit_test(test_idle_poll_share_veto),
		cmocka_unit_test(test_idle_lull_then_short_idles_poll),
		cmocka_unit_test(test_idle_hysteresis_around_history_pick),
		cmocka_unit_test(test_idle_context_switch),
		cmocka_unit_test(test_idle_context_alternation_no_churn),
		cmocka_unit_test(test_idle_context_phases),
		cmocka_unit_test(test_idle_context_random_mix),
		cmocka_unit_test(test_idle_timed_out_poll_carried),
		cmocka_unit_test(test_idle_poll_timeout_edges),
		cmocka_unit_test(test_idle_poll_limit_learned),
		cmocka_unit_test(test_idle_quiet_decay),
		cmocka_unit_test(test_idle_cost_median_outliers),
		cmocka_unit_test(test_idle_poll_limit),
		cmocka_unit_test(test_idle_timer_cap),
		cmocka_unit_test(test_idle_near_timer_poll_ok),
		cmocka_unit_test(test_idle_timer_wake_cost),
		cmocka_unit_test(test_idle_wake_reason_first_wins),
		cmocka_unit_test(test_floor_fall_delay),
		cmocka_unit_test(test_floor_rise_band),
		cmocka_unit_test(test_floor_fall_band_peak),
		cmocka_unit_test(test_floor_steady_jitter_keeps_level),
		cmocka_unit_test(test_floor_bands_keep_gap_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
