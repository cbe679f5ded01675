// SPDX-License-Identifier: GPL-2.0
/*
 * Reference models on hand-made inputs whose right answer is known from
 * the kernel's algorithms, and the replay engine on synthetic scenarios.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bpfgov_tunables.h"
#include "refmodels.h"
#include "replay.h"
#include "trace.h"

#define US 1000ull
#define MS 1000000ull

static char tmpdir[] = "/tmp/bpfgov-test-replay-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Three physical states, no polling: C1 2/2 us, C2 10/20 us, C3 50/100 us. */
static void three_states(struct ref_states *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->n = 3;
	rs->exit_ns[0] = 2 * US;   rs->res_ns[0] = 2 * US;
	rs->exit_ns[1] = 10 * US;  rs->res_ns[1] = 20 * US;
	rs->exit_ns[2] = 50 * US;  rs->res_ns[2] = 100 * US;
	rs->tick_ns = REF_TICK_NS_DEFAULT;
}

/* POLL + a C1 whose residency (20 us) is above RESIDENCY_THRESHOLD. */
static void poll_c1(struct ref_states *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->n = 2;
	rs->poll[0] = 1;
	rs->exit_ns[1] = 2 * US;
	rs->res_ns[1] = 20 * US;
	rs->tick_ns = REF_TICK_NS_DEFAULT;
}

/* One select/reflect round: returns the pick. */
static int round_trip(struct ref_idle *m, __u64 sleep, __u64 next_timer)
{
	int idx = ref_idle_select(m, next_timer, REF_TICK_NS_DEFAULT / 2);

	ref_idle_reflect(m, idx, sleep + m->st->exit_ns[idx], 0);
	return idx;
}

static void test_ladder_promote_demote(void **state)
{
	struct ref_states rs;
	struct ref_idle m;

	(void)state;
	three_states(&rs);
	ref_idle_init(&m, REF_LADDER, &rs, NULL);
	/* first select has no history; then 4 long residencies promote */
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);	/* long #1 seen */
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);	/* #2 */
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);	/* #3 */
	assert_int_equal(round_trip(&m, 1 * US, 10 * MS), 1);	/* #4: promoted */
	/* the short residency in C2 (below its 10 us exit latency) demotes
	 * at once: DEMOTION_COUNT 1 */
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);
}

static void test_ladder_balanced(void **state)
{
	struct ref_states rs;
	struct ref_idle m;

	(void)state;
	three_states(&rs);
	ref_idle_init(&m, REF_LADDER_BAL, &rs, NULL);
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);	/* long #1 */
	assert_int_equal(round_trip(&m, 1 * US, 10 * MS), 1);	/* #2: promoted */
	assert_int_equal(round_trip(&m, 1 * US, 10 * MS), 1);	/* short #1: stays */
	assert_int_equal(round_trip(&m, 1 * MS, 10 * MS), 0);	/* short #2: demoted */
}

static void test_ladder_never_polls(void **state)
{
	struct bpfgov_config c;
	struct ref_states rs;
	struct ref_idle m;

	(void)state;
	bpfgov_config_defaults(&c);	/* POLL + HALT, like this host */
	ref_states_from(&rs, &c, 0);
	ref_idle_init(&m, REF_LADDER, &rs, NULL);
	for (int i = 0; i < 20; i++)
		assert_int_equal(round_trip(&m, 1 * US, 10 * MS), 1);
}

static void test_menu_polls_on_short_idles(void **state)
{
	struct ref_states rs;
	struct ref_idle m;
	int idx = -1;

	(void)state;
	poll_c1(&rs);
	ref_idle_init(&m, REF_MENU, &rs, NULL);
	/* No history: the next timer (4 ms away) says C1. */
	assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 1);
	/* Once 8 intervals of ~5 us are known the typical interval wins. */
	for (int i = 0; i < 10; i++)
		idx = round_trip(&m, 5 * US, 4 * MS);
	assert_int_equal(idx, 0);
	/* Long idles move it back to C1. */
	for (int i = 0; i < 10; i++)
		idx = round_trip(&m, 2 * MS, 2 * MS);
	assert_int_equal(idx, 1);
}

static void test_teo_polls_on_short_idles(void **state)
{
	struct ref_states rs;
	struct ref_idle m;
	int idx;

	(void)state;
	poll_c1(&rs);
	ref_idle_init(&m, REF_TEO, &rs, NULL);
	assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 1);
	/* one intercept in bin 0 is already the majority */
	assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 0);
	/* timer-driven long idles (hits in bin 1) bring C1 back */
	for (int i = 0; i < 20; i++)
		idx = round_trip(&m, 2 * MS, 2 * MS);
	assert_int_equal(idx, 1);
}

static void test_menu_teo_trust_the_table(void **state)
{
	struct bpfgov_config c;
	struct ref_states rs;
	struct ref_idle m;

	(void)state;
	/* This host's table: halt claims 1 us, so both always halt, even
	 * on 5 us idles (that is what makes them pay 100 us here). */
	bpfgov_config_defaults(&c);
	ref_states_from(&rs, &c, 0);
	ref_idle_init(&m, REF_MENU, &rs, NULL);
	/* menu's interval history starts zeroed (menu_enable_device), so
	 * its first picks predict 0 us and poll; fill it first. */
	for (int i = 0; i < 8; i++)
		round_trip(&m, 5 * US, 4 * MS);
	for (int i = 0; i < 20; i++)
		assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 1);
	ref_idle_init(&m, REF_TEO, &rs, NULL);
	for (int i = 0; i < 20; i++)
		assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 1);
}

static void test_haltpoll_window(void **state)
{
	struct ref_haltpoll_params hp = { 200000, 2, 2, 50000, 1 };
	struct bpfgov_config c;
	struct ref_states rs;
	struct ref_idle m;

	(void)state;
	bpfgov_config_defaults(&c);
	ref_states_from(&rs, &c, 0);
	ref_idle_init(&m, REF_HALTPOLL, &rs, &hp);
	/* window closed: halt; a 30 us halt opens it at grow_start */
	assert_int_equal(ref_idle_select(&m, 4 * MS, 2 * MS), 1);
	ref_idle_reflect(&m, 1, 30 * US, 0);
	assert_int_equal(m.poll_limit_ns, 50000);
	assert_int_equal(ref_idle_poll_limit(&m), 50000);
	/* after a halt it polls */
	assert_int_equal(ref_idle_select(&m, 4 * MS, 2 * MS), 0);
	/* a poll that ran out its window is followed by a halt */
	ref_idle_reflect(&m, 0, 50000, 1);
	assert_int_equal(ref_idle_select(&m, 4 * MS, 2 * MS), 1);
	/* a 120 us halt grows the window x2 */
	ref_idle_reflect(&m, 1, 120 * US, 0);
	assert_int_equal(m.poll_limit_ns, 100000);
	/* a 1 ms halt shrinks it: 100/2 = 50 us, not below grow_start */
	ref_idle_select(&m, 4 * MS, 2 * MS);
	ref_idle_reflect(&m, 1, 1 * MS, 0);
	assert_int_equal(m.poll_limit_ns, 50000);
	ref_idle_reflect(&m, 1, 1 * MS, 0);
	assert_int_equal(m.poll_limit_ns, 0);

	/* guest_halt_poll_ns=0 (this host): never polls */
	hp.guest_halt_poll_ns = 0;
	ref_idle_init(&m, REF_HALTPOLL, &rs, &hp);
	for (int i = 0; i < 10; i++)
		assert_int_equal(round_trip(&m, 5 * US, 4 * MS), 1);
}

static void test_poll_time_limit(void **state)
{
	struct ref_states rs;

	(void)state;
	poll_c1(&rs);
	/* first non-poll state with >= 10 us residency, capped at TICK/16 */
	assert_int_equal(ref_poll_time(&rs), 20 * US);
	rs.res_ns[1] = 1 * MS;
	assert_int_equal(ref_poll_time(&rs), REF_TICK_NS_DEFAULT / 16);
	rs.res_ns[1] = 1 * US;	/* this host: none qualifies -> a whole tick */
	assert_int_equal(ref_poll_time(&rs), REF_TICK_NS_DEFAULT);
}

static void test_schedutil_target(void **state)
{
	struct ref_freq f;

	(void)state;
	assert_int_equal(ref_sugov_target(512), 640);
	assert_int_equal(ref_sugov_target(800), 1000);
	assert_int_equal(ref_sugov_target(1000), 1024);	/* capped */
	assert_int_equal(ref_sugov_target(0), 0);

	/* PELT half-life: 32 ms of running from zero is util 512 ->
	 * schedutil asks for 640 (no util_est yet, first task run). */
	ref_freq_init(&f, 2000, 1, 1);
	ref_freq_busy_begin(&f, 1 * MS);
	ref_freq_tick(&f, 1 * MS + 32 * 1024 * US);
	assert_true(f.util_avg > 510 && f.util_avg < 514);
	assert_true(ref_freq_floor(&f) >= 638 && ref_freq_floor(&f) <= 642);
	/* rate limit: an update 1 ms later is not evaluated */
	assert_int_equal(ref_freq_tick(&f, 1 * MS + 33 * 1024 * US), 0);
	assert_true(ref_freq_floor(&f) <= 642);
	/* no lowering without idle in between (sugov_hold_freq) */
	ref_freq_busy_end(&f, 1 * MS + 40 * 1024 * US);	/* dequeue: no idle yet */
	assert_true(ref_freq_floor(&f) >= 638);
}

static void test_hwp_floors(void **state)
{
	struct ref_freq f[3];
	__u32 num[3] = { 3, 7, 1 }, den[3] = { 4, 8, 1 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		ref_freq_init(&f[i], 5000, num[i], den[i]);
		ref_freq_busy_begin(&f[i], 1 * MS);
		for (__u64 t = 5 * MS; t < 500 * MS; t += 4 * MS)
			ref_freq_tick(&f[i], t);
	}
	/* fully busy: schedutil's target is the maximum */
	assert_int_equal(f[2].next_freq, 1024);
	assert_int_equal(ref_freq_floor(&f[0]), 768);
	assert_int_equal(ref_freq_floor(&f[1]), 896);
	assert_int_equal(ref_freq_floor(&f[2]), 1024);
}

static int synth(const char *file, const char *a, const char *b, const char *c, const char *d,
		 const char *e)
{
	char *argv[] = { "synth", (char *)a, (char *)b, (char *)c, (char *)d, (char *)e,
			 "-o", (char *)file, NULL };

	return do_synth(8, argv);
}

static void load_or_fail(const char *path, struct trace *t)
{
	char err[512];

	if (trace_load(path, t, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_bpfgov_impulse_floor(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char path[256], err[512];

	(void)state;
	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/impulse.trace", tmpdir);
	assert_int_equal(synth(path, "impulse", "--gap-us", "747:950", "--trials", "60"), 0);
	load_or_fail(path, &t);
	replay_opts_default(&o);
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_int_equal(r->p[RP_BPFGOV].short_gaps, 60);
	assert_int_equal(r->p[RP_BPFGOV].short_gaps_hit, 0);
	assert_int_equal(r->p[RP_BPFGOV].lowest_after_gap_ns, 0);
	assert_true(r->p[RP_BPFGOV].mean_floor > 512);
	/* the HWP models' floors are their fraction of schedutil's */
	assert_true(r->p[RP_HWP_34].mean_floor < r->p[RP_HWP_78].mean_floor);
	assert_true(r->p[RP_HWP_78].mean_floor < r->p[RP_HWP_1].mean_floor);
	assert_true(r->p[RP_HWP_34].mean_floor > 0.74 * r->p[RP_HWP_1].mean_floor);
	assert_true(r->p[RP_HWP_34].mean_floor < 0.76 * r->p[RP_HWP_1].mean_floor);
	trace_free(&t);
	free(r);
}

static void test_pingpong_judge(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char path[256], err[512];

	(void)state;
	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/pp0.trace", tmpdir);
	assert_int_equal(synth(path, "pingpong", "--work-us", "0", "--duration", "0.2"), 0);
	load_or_fail(path, &t);
	assert_int_equal(t.nr_cpus, 2);
	replay_opts_default(&o);
	o.hp.guest_halt_poll_ns = 0;	/* this host's haltpoll */
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	/* 6 us sleeps, halt really costs 100 us: the table-trusting models
	 * halt every time and every one of those decisions is too deep. */
	assert_true(r->p[RP_MENU].decisions > 1000);
	assert_int_equal(r->p[RP_MENU].too_deep, r->p[RP_MENU].decisions);
	assert_int_equal(r->p[RP_LADDER].too_deep, r->p[RP_LADDER].decisions);
	assert_int_equal(r->p[RP_HALTPOLL].too_deep, r->p[RP_HALTPOLL].decisions);
	assert_int_equal(r->p[RP_MENU].wake_lat_ns, r->p[RP_MENU].wakeups * 100 * US);
	/* bpfgov measures the cost on its first halts and then polls */
	assert_true(r->p[RP_BPFGOV].too_deep + r->p[RP_BPFGOV].too_shallow <= 4);
	assert_true(r->p[RP_BPFGOV].poll_ns > 0);
	trace_free(&t);
	free(r);
}

/* 106 us sleeps, halt costs 100 us: whether halting pays back depends on
 * the judge's multiplier; bpfgov (payback_pct default) polls here. */
static void test_judge_pct(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char path[256], err[512];

	(void)state;
	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/pp100.trace", tmpdir);
	assert_int_equal(synth(path, "pingpong", "--work-us", "100", "--duration", "0.2"), 0);
	load_or_fail(path, &t);
	replay_opts_default(&o);
	o.policies = (1u << RP_BPFGOV) | (1u << RP_MENU);
	o.judge_pct = 100;
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_int_equal(r->p[RP_MENU].too_deep, 0);		/* 106 >= 100 */
	if (r->p[RP_BPFGOV].state_use[0] > r->p[RP_BPFGOV].decisions / 2)
		assert_true(r->p[RP_BPFGOV].too_shallow > 0);
	o.judge_pct = 200;
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_int_equal(r->p[RP_MENU].too_deep, r->p[RP_MENU].decisions);	/* 106 < 200 */
	assert_int_equal(r->p[RP_BPFGOV].too_shallow, 0);
	trace_free(&t);
	free(r);
}

static void test_wake_pairing(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char err[512];

	(void)state;
	/* A recorded-looking trace: wake samples give the cost (median). */
	trace_init(&t);
	t.nr_cpus = 1;
	t.nr_states = 2;
	t.states[0].is_poll = 1;
	t.states[1].exit_latency_us = 1;
	t.states[1].residency_us = 1;
	for (int i = 0; i < 9; i++) {
		__u64 base = 1000 * MS + i * 1 * MS;

		trace_add(&t, base + 500 * US, 500 * US, 0, BPFGOV_EV_BUSY, TRACE_NO_STATE);
		trace_add(&t, base + 1 * MS, 500 * US, 0, BPFGOV_EV_IDLE_EXIT, 1);
		trace_add(&t, base + 1 * MS, (90 + i) * US, 0, BPFGOV_EV_WAKE_LAT, 1);
	}
	replay_opts_default(&o);
	o.policies = 1u << RP_MENU;
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_int_equal(r->cost_from[1], 1);
	assert_int_equal(r->cost_ns[1], 94 * US);
	assert_int_equal(r->cost_ns[0], 0);
	assert_int_equal(r->p[RP_MENU].decisions, 9);
	assert_int_equal(r->p[RP_MENU].too_deep, 0);
	assert_int_equal(r->p[RP_MENU].wake_lat_ns, 9 * 94 * US);
	trace_free(&t);
	free(r);
}

static void test_policy_names(void **state)
{
	(void)state;
	for (int p = 0; p < RP__MAX; p++)
		assert_int_equal(replay_policy_parse(replay_policy_name(p)), p);
	assert_int_equal(replay_policy_parse("hwp-3/4"), RP_HWP_34);
	assert_int_equal(replay_policy_parse("nope"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ladder_promote_demote),
		cmocka_unit_test(test_ladder_balanced),
		cmocka_unit_test(test_ladder_never_polls),
		cmocka_unit_test(test_menu_polls_on_short_idles),
		cmocka_unit_test(test_teo_polls_on_short_idles),
		cmocka_unit_test(test_menu_teo_trust_the_table),
		cmocka_unit_test(test_haltpoll_window),
		cmocka_unit_test(test_poll_time_limit),
		cmocka_unit_test(test_schedutil_target),
		cmocka_unit_test(test_hwp_floors),
		cmocka_unit_test(test_bpfgov_impulse_floor),
		cmocka_unit_test(test_pingpong_judge),
		cmocka_unit_test(test_judge_pct),
		cmocka_unit_test(test_wake_pairing),
		cmocka_unit_test(test_policy_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
