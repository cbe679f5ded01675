/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulation shared by the policy core's unit tests
 * (tests/unit/test_policy_*.c, include/bpfgov_policy.h).
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
 * Time starts at T0 (not 0: seg_start_ns == 0 means "no segment yet").
 */
#ifndef BPFGOV_POLICY_SIM_H
#define BPFGOV_POLICY_SIM_H

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

struct sim {
	struct bpfgov_config c;
	struct bpfgov_cpu_state s;
	__u64 now;
};

static inline void sim_init(struct sim *m)
{
	bpfgov_config_defaults(&m->c);
	/* the history's own pick, idle by idle: the dwell's tests set it */
	m->c.pick_dwell_ms = 0;
	pol_cpu_init(&m->s, &m->c);
	m->now = T0;
}

/* Deterministic jitter for the load tests (LCG, Numerical Recipes). */
static inline __u64 lcg_below(__u32 *x, __u64 n)
{
	*x = *x * 1664525u + 1013904223u;
	return (__u64)(*x >> 8) % n;
}

/* Re-initialise the per-CPU state after the test changed the config. */
static inline void sim_reinit(struct sim *m)
{
	pol_cpu_init(&m->s, &m->c);
	m->now = T0;
}

/* A busy run of @dur from m->now: switch in, ticks every @tick (0: none)
 * strictly inside the run, switch out. m->now ends at the switch out. */
static inline void sim_busy(struct sim *m, __u64 dur, __u64 tick)
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
static inline __u32 sim_idle(struct sim *m, __u64 dur, __u32 state, __u64 stamp_lat)
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
static inline void cfg_four_states(struct bpfgov_config *c)
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

/* intel_idle's skl_cstates (drivers/idle/intel_idle.c, Skylake to Coffee
 * Lake clients), POLL first: exit latency / target residency, us.
 * Paybacks (payback_pct 200, table costs): C1 4, C1E 20, C3 140, C6 200,
 * C7s 800, C8 800, C9 5000, C10 5000 us. */
__attribute__((unused)) static const __u32 skl_lat[] = { 0, 2, 10, 70, 85, 124, 200, 480, 890 };
__attribute__((unused)) static const __u32 skl_res[] = { 0, 2, 20, 100, 200, 800, 800, 5000, 5000 };

static inline void cfg_table(struct bpfgov_config *c, const __u32 *lat, const __u32 *res, __u32 n)
{
	c->nr_states = n;
	for (__u32 k = 0; k < n; k++) {
		c->state_is_poll[k] = k == 0;
		c->state_exit_latency_us[k] = lat[k];
		c->state_residency_us[k] = res[k];
	}
}

static inline void skl_setup(struct sim *m)
{
	sim_init(m);
	cfg_table(&m->c, skl_lat, skl_res, 9);
	sim_reinit(m);
}

#endif /* BPFGOV_POLICY_SIM_H */
