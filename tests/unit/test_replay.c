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
#include "govlab_cmds.h"
#include "replay.h"
#include "replay_judge.h"
#include "trace.h"
#include "unit_tmpdir.h"

#define US 1000ull
#define MS 1000000ull

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
	bpfgov_config_defaults(&c);	/* POLL + HALT, like a KVM guest */
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
	/* A KVM guest's table: halt claims 1 us, so both always halt, even
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

	/* guest_halt_poll_ns=0: never polls */
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
	rs.res_ns[1] = 1 * US;	/* haltpoll's table: none qualifies -> TICK/16 */
	assert_int_equal(ref_poll_time(&rs), REF_TICK_NS_DEFAULT / 16);
	rs.res_ns[1] = 20 * US;
	rs.disabled[1] = 1;	/* a disabled state does not count */
	assert_int_equal(ref_poll_time(&rs), REF_TICK_NS_DEFAULT / 16);
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

/* synth SCENARIO with four arguments into the test directory as @name and
 * load it into @t. */
static void synth_load(struct trace *t, const char *name, const char *scen, const char *a,
		       const char *b, const char *c, const char *d)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	assert_int_equal(synth(path, scen, a, b, c, d), 0);
	load_or_fail(path, t);
}

/*
 * The linux-pm report's trigger after a short burst, replayed: 100 trials
 * of a 2-4 ms busy run after a quiet second, then a 750-950 us gap, then
 * 1 ms of work. The floor bpfgov's core holds when the work after the gap
 * begins must be at least 7/8 of the target that the burst's own
 * utilization gives (derived here from the util at the burst's begin, as
 * in test_gap_arms_from_short_burst: util moves toward 1024 by B / (B +
 * tau_rise), the step rounded up; target = util * headroom / 100).
 */
struct burst_obs {
	__u64 begin[100], gap_end[100];
	__u32 u0[100], floor[100];
};

static void burst_observe(void *ctx, __u32 cpu, __u64 t_ns, const struct bpfgov_cpu_state *s)
{
	struct burst_obs *b = ctx;

	(void)cpu;
	for (int i = 0; i < 100; i++) {
		if (t_ns == b->begin[i])
			b->u0[i] = s->util;
		if (t_ns == b->gap_end[i])
			b->floor[i] = s->floor;
	}
}

static void test_bpfgov_gap_after_short_burst(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct burst_obs *b = calloc(1, sizeof(*b));
	struct trace t;
	char path[256], err[512];
	__u64 now = 1000000000ull, burst, gap;
	__u32 x = 11, ok = 0, n = 0, worst_f = 0, worst_w = 1;
	FILE *f;

	(void)state;
	assert_non_null(r);
	assert_non_null(b);
	snprintf(path, sizeof(path), "%s/burst.trace", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "bpfgov-trace 2\nsource test: burst after a quiet second, short gap\nnr_cpus 1\n"
		   "state 0 POLL 0 0 poll 1000\nstate 1 HALT 1 1 - 100000\nrecords\n");
	for (int i = 0; i < 100; i++) {
		x = x * 1103515245u + 12345u;
		burst = 2 * MS + (x >> 8) % (2 * MS + 1);
		x = x * 1103515245u + 12345u;
		gap = 750 * US + (x >> 8) % (200 * US + 1);
		b->begin[i] = now;
		fprintf(f, "%llu 0 busy %llu\n", (unsigned long long)(now + burst),
			(unsigned long long)burst);
		now += burst + gap;
		b->gap_end[i] = now;
		fprintf(f, "%llu 0 idle %llu 1 - timer\n%llu 0 gap %llu\n", (unsigned long long)now,
			(unsigned long long)gap, (unsigned long long)now, (unsigned long long)gap);
		fprintf(f, "%llu 0 busy %llu\n", (unsigned long long)(now + 1 * MS),
			(unsigned long long)(1 * MS));
		now += 1 * MS + 1000 * MS;
		fprintf(f, "%llu 0 idle %llu 1 - timer\n%llu 0 gap %llu\n", (unsigned long long)now,
			(unsigned long long)(1000 * MS), (unsigned long long)now,
			(unsigned long long)(1000 * MS));
		n += 6;
	}
	fprintf(f, "end %u\n", n);
	fclose(f);
	load_or_fail(path, &t);
	replay_opts_default(&o);
	o.observe = burst_observe;
	o.observe_ctx = b;
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	x = 11;
	for (int i = 0; i < 100; i++) {
		double tau = (double)o.cfg.tau_rise_us * US, u, ex;
		__u32 util, want;

		x = x * 1103515245u + 12345u;
		burst = 2 * MS + (x >> 8) % (2 * MS + 1);
		x = x * 1103515245u + 12345u;
		ex = b->u0[i] + (1024.0 - b->u0[i]) * (double)burst / ((double)burst + tau);
		util = (__u32)ex;
		if (ex > util)
			util++;
		want = util * o.cfg.headroom_pct / 100;
		if (want > 1024)
			want = 1024;
		u = (double)b->floor[i] / want;
		ok += b->floor[i] >= want * 7 / 8;	/* as the policy's own test */
		if (!i || u < (double)worst_f / worst_w) {
			worst_f = b->floor[i];
			worst_w = want;
		}
	}
	print_message("  replayed: floor after the gap >= 7/8 of the burst's target in %u of 100 trials; worst %u against %u (%.2f)\n",
		      ok, worst_f, worst_w, (double)worst_f / worst_w);
	assert_int_equal(ok, 100);
	trace_free(&t);
	free(r);
	free(b);
}

static void test_bpfgov_impulse_floor(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char err[512];

	(void)state;
	assert_non_null(r);
	synth_load(&t, "impulse.trace", "impulse", "--gap-us", "747:950", "--trials", "60");
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
	/* the floor judge: the same lock trials for every HWP policy; the
	 * hardware alone falls to the lowest level in each, bpfgov's floor
	 * holds it; the non-HWP driver never locks */
	assert_true(r->p[RP_HWP_AUTO].fa.locks > 0);
	assert_int_equal(r->p[RP_HWP_AUTO].fa.locks_low, r->p[RP_HWP_AUTO].fa.locks);
	assert_int_equal(r->p[RP_BPFGOV].fa.locks, r->p[RP_HWP_AUTO].fa.locks);
	assert_int_equal(r->p[RP_BPFGOV].fa.locks_low, 0);
	assert_int_equal(r->p[RP_SCHEDUTIL].fa.locks, 0);
	assert_true(r->p[RP_HWP_AUTO].fl_delay_us > r->p[RP_BPFGOV].fl_delay_us + 1000);
	assert_int_equal(r->p[RP_BPFGOV].fa.segments, r->nr_busy);
	assert_int_not_equal(r->p[RP_BPFGOV].fl_verdict[RP_HWP_AUTO], -1);
	assert_int_equal(r->p[RP_BPFGOV].fl_verdict[RP_HWP_1], -1);	/* not a reference */
	assert_int_equal(r->p[RP_HWP_AUTO].fl_verdict[RP_BPFGOV], -1);
	trace_free(&t);
	free(r);
}

static void test_pingpong_judge(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char err[512];

	(void)state;
	assert_non_null(r);
	synth_load(&t, "pp0.trace", "pingpong", "--work-us", "0", "--duration", "0.2");
	assert_int_equal(t.nr_cpus, 2);
	replay_opts_default(&o);
	o.hp.guest_halt_poll_ns = 0;	/* a guest whose host halt-polls */
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
	/* verdicts: bpfgov wins on both axes against each kernel model */
	assert_int_equal(r->p[RP_BPFGOV].verdict[RP_MENU], JV_WIN);
	assert_int_equal(r->p[RP_BPFGOV].verdict[RP_HALTPOLL], JV_WIN);
	assert_int_equal(r->p[RP_MENU].verdict[RP_BPFGOV], -1);	/* not a reference */
	assert_int_equal(r->p[RP_MENU].verdict[RP_LADDER], JV_TIE);
	assert_int_equal(r->p[RP_MENU].verdict[RP_MENU], -1);
	assert_true(r->p[RP_BPFGOV].energy_dist_pct < r->p[RP_MENU].energy_dist_pct);
	/* every idle period judged once, whatever the number of selections */
	assert_int_equal(r->p[RP_MENU].j.periods, r->p[RP_BPFGOV].j.periods);
	assert_int_equal(r->p[RP_MENU].j.periods, r->nr_idle);
	trace_free(&t);
	free(r);
}

/* 106 us sleeps, halt costs 100 us: whether halting pays back depends on
 * the power model (and the judge's latency guard): with halt at 0.3 of full
 * power polling is cheaper (107 vs 131.8 us), with a free halt halting is
 * (100 vs 107 us) unless the guard asks for 2 x the cost. */
static void test_judge_pct(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char err[512];

	(void)state;
	assert_non_null(r);
	synth_load(&t, "pp100.trace", "pingpong", "--work-us", "100", "--duration", "0.2");
	replay_opts_default(&o);
	o.policies = (1u << RP_BPFGOV) | (1u << RP_MENU);
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_true(r->p[RP_MENU].j.periods > 1000);
	assert_int_equal(r->p[RP_MENU].too_deep, r->p[RP_MENU].j.periods);
	assert_true(r->p[RP_MENU].energy_dist_pct > 10);
	assert_true(r->p[RP_MENU].latency_dist_us > 98);
	assert_int_equal(r->oracle_latency_us > 1.5, 0);
	o.power_model = "HALT=0";
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_int_equal(r->p[RP_MENU].too_deep, 0);
	assert_true(r->p[RP_MENU].latency_dist_us < 0.5);
	if (r->p[RP_BPFGOV].state_use[0] > r->p[RP_BPFGOV].decisions / 2)
		assert_true(r->p[RP_BPFGOV].too_shallow > 0);
	o.judge_pct = 200;
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	assert_int_equal(r->p[RP_MENU].too_deep, r->p[RP_MENU].j.periods);	/* 106 < 200 */
	/* an unknown state in the model is an error, nothing replayed */
	o.power_model = "C6=0.1";
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "C6"));
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

/* ---------------------------------------------------------------- judge */

/* The host's pair: POLL (cost 1 us) and a halt the table claims at 1/1 us
 * that really costs 100 us to leave. */
static void poll_halt_trace(struct trace *t)
{
	trace_init(t);
	t->nr_cpus = 1;
	t->nr_states = 2;
	snprintf(t->states[0].name, TRACE_NAME_LEN, "POLL");
	t->states[0].is_poll = 1;
	snprintf(t->states[1].name, TRACE_NAME_LEN, "HALT");
	t->states[1].exit_latency_us = 1;
	t->states[1].residency_us = 1;
}

static void test_power_model(void **state)
{
	struct power_model pm;
	struct trace t;
	char err[256];

	(void)state;
	poll_halt_trace(&t);
	assert_int_equal(power_model_build(&pm, NULL, &t, err, sizeof(err)), 0);
	assert_true(pm.frac[0] == 1.0);
	assert_true(pm.frac[1] == JUDGE_DEFAULT_FRAC);
	assert_int_equal(power_model_build(&pm, "halt=0.1", &t, err, sizeof(err)), 0);
	assert_true(pm.frac[1] == 0.1);
	assert_int_equal(power_model_build(&pm, "1=0.2,POLL=1", &t, err, sizeof(err)), 0);
	assert_true(pm.frac[1] == 0.2 && pm.frac[0] == 1.0);
	/* a polling state draws full power by definition */
	assert_int_equal(power_model_build(&pm, "POLL=0.5", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "polls"));
	assert_int_equal(power_model_build(&pm, "C6=0.1", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no idle state 'C6'"));
	assert_int_equal(power_model_build(&pm, "2=0.1", &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(power_model_check("HALT=1.5", err, sizeof(err)), -EINVAL);
	assert_int_equal(power_model_check("HALT", err, sizeof(err)), -EINVAL);
	assert_int_equal(power_model_check("HALT=0.1x", err, sizeof(err)), -EINVAL);
	assert_int_equal(power_model_check("", err, sizeof(err)), -EINVAL);
	assert_int_equal(power_model_check("C6=0,C1=0.25", err, sizeof(err)), 0);
	/* deeper states default to half of the one above */
	t.nr_states = 4;
	t.states[2].residency_us = 50;
	t.states[3].residency_us = 200;
	power_model_default(&pm, &t);
	assert_true(pm.frac[2] == JUDGE_DEFAULT_FRAC / 2 && pm.frac[3] == JUDGE_DEFAULT_FRAC / 4);
}

static void judge_for(struct judge *j, __u32 pct)
{
	static const __u64 cost[2] = { 1 * US, 100 * US };
	struct power_model pm;
	struct trace t;

	poll_halt_trace(&t);
	power_model_default(&pm, &t);	/* halt 0.3 */
	judge_init(j, &t, cost, pct, &pm);
}

static void test_judge_oracle(void **state)
{
	struct judge j;

	(void)state;
	judge_for(&j, 100);
	/* halt pays back once 0.3 S + 100 < S + 1: S > 141.4 us */
	assert_int_equal(judge_oracle(&j, 5 * US), 0);
	assert_int_equal(judge_oracle(&j, 101 * US), 0);
	assert_int_equal(judge_oracle(&j, 141 * US), 0);
	assert_int_equal(judge_oracle(&j, 142 * US), 1);
	assert_int_equal(judge_oracle(&j, 4 * MS), 1);
	/* the latency guard: with 300 %, halt needs S >= 300 us */
	judge_for(&j, 300);
	assert_int_equal(judge_oracle(&j, 250 * US), 0);
	assert_int_equal(judge_oracle(&j, 300 * US), 1);
}

/* The examples: a 5 us sleep in halt costs ~95 us of energy and
 * 99 us of latency above the oracle; a 101 us sleep polled costs nothing. */
static void test_judge_costs_not_counts(void **state)
{
	struct judge j;
	struct judge_acc a;

	(void)state;
	judge_for(&j, 100);
	memset(&a, 0, sizeof(a));
	judge_period(&j, &a, 5 * US, 1, 1, 0);
	assert_int_equal(a.periods, 1);
	assert_int_equal(a.too_deep, 1);
	assert_true(a.energy_ns - a.oracle_energy_ns > 95.4 * US &&
		    a.energy_ns - a.oracle_energy_ns < 95.6 * US);
	assert_int_equal(a.lat_ns - a.oracle_lat_ns, 99 * US);
	memset(&a, 0, sizeof(a));
	judge_period(&j, &a, 101 * US, 0, 0, 0);
	assert_int_equal(a.too_deep + a.too_shallow, 0);
	assert_true(a.energy_ns == a.oracle_energy_ns);
	assert_true(judge_latency_dist_us(&a) == 0);
	/* 1 ms: polled 250 us to the limit, then halted: one period, too
	 * shallow once, 250 us at full power instead of 0.3 */
	memset(&a, 0, sizeof(a));
	judge_period(&j, &a, 1 * MS, 0, 1, 250 * US);
	assert_int_equal(a.periods, 1);
	assert_int_equal(a.too_shallow, 1);
	assert_int_equal(a.too_deep, 0);
	assert_true(a.energy_ns - a.oracle_energy_ns > 174.9 * US &&
		    a.energy_ns - a.oracle_energy_ns < 175.1 * US);
	assert_int_equal(a.lat_ns, a.oracle_lat_ns);
	/* over a 10 ms span that is 1.75 % of one CPU */
	assert_true(judge_energy_dist_pct(&a, 10 * MS) > 1.749 &&
		    judge_energy_dist_pct(&a, 10 * MS) < 1.751);
	assert_true(judge_energy_pct(&a, 10 * MS) > judge_oracle_energy_pct(&a, 10 * MS));
}

static void test_judge_verdict(void **state)
{
	(void)state;
	assert_int_equal(judge_verdict(1.0, 5, 1.05, 5.2, 0.1, 0.5), JV_TIE);
	assert_int_equal(judge_verdict(0.5, 5, 1.0, 5, 0.1, 0.5), JV_WIN);
	assert_int_equal(judge_verdict(1.0, 2, 1.0, 5, 0.1, 0.5), JV_WIN);
	assert_int_equal(judge_verdict(0.5, 2, 1.0, 5, 0.1, 0.5), JV_WIN);
	assert_int_equal(judge_verdict(2.0, 5, 1.0, 5, 0.1, 0.5), JV_DOMINATED);
	assert_int_equal(judge_verdict(1.0, 9, 1.0, 5, 0.1, 0.5), JV_DOMINATED);
	assert_int_equal(judge_verdict(0.5, 9, 1.0, 5, 0.1, 0.5), JV_TRADEOFF);
	assert_int_equal(judge_verdict(2.0, 1, 1.0, 5, 0.1, 0.5), JV_TRADEOFF);
	assert_string_equal(judge_verdict_name(JV_TRADEOFF), "trade-off");
	assert_string_equal(judge_verdict_name(JV_DOMINATED), "dominated");
}

/* The tie band is the same both ways on both axes: A against B is the
 * mirror of B against A, also at the band's edge (0.06 against 0.56 with a
 * band of 0.5: 0.56 - 0.5 rounds below 0.06 while 0.06 + 0.5 does not
 * round above 0.56, so bounds shifted by the band differ by direction). */
static int mirror(int v)
{
	return v == JV_WIN ? JV_DOMINATED : v == JV_DOMINATED ? JV_WIN : v;
}

static void test_judge_verdict_symmetric(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(judge_verdict(0.06, 0, 0.56, 0, 0.5, 1), JV_TIE);
	assert_int_equal(judge_verdict(0.56, 0, 0.06, 0, 0.5, 1), JV_TIE);
	assert_int_equal(judge_verdict(0, 0.34, 0, 0.84, 1, 0.5), JV_TIE);
	assert_int_equal(judge_verdict(0, 0.84, 0, 0.34, 1, 0.5), JV_TIE);
	for (int i = 0; i < 400; i++) {
		for (int j = 0; j < 60; j++) {
			double a = i * 0.01, b = j * 0.07;
			int ab_e = judge_verdict(a, 0, b, 0, 0.5, 1);
			int ab_l = judge_verdict(0, a, 0, b, 1, 0.5);

			n += ab_e != mirror(judge_verdict(b, 0, a, 0, 0.5, 1));
			n += ab_l != mirror(judge_verdict(0, b, 0, a, 1, 0.5));
			n += ab_e != ab_l;
		}
	}
	assert_int_equal(n, 0);
}

/* A version 2 trace: sleeps alternate 20 / 300 us. Ended by their timers,
 * menu and teo are handed the exact sleep; ended by a device interrupt
 * with the next timer 4 ms away (--timer-us), they have to guess. */
static void run_alternating(__u32 wake, struct replay_result *r)
{
	struct replay_opts o;
	struct trace t;
	char err[512];
	__u64 now = 1000 * MS;

	trace_init(&t);
	t.nr_cpus = 1;
	t.nr_states = 2;
	t.states[0].is_poll = 1;
	t.states[1].exit_latency_us = 10;
	t.states[1].residency_us = 100;
	t.states[1].cost_ns = 10 * US;
	t.states[0].cost_ns = 1;
	for (int i = 0; i < 400; i++) {
		__u64 sleep = (i & 1 ? 300 : 20) * US;

		trace_add(&t, now + 50 * US, 50 * US, 0, BPFGOV_EV_BUSY, TRACE_NO_STATE);
		now += 50 * US;
		assert_int_equal(trace_add_idle(&t, now + sleep + 10 * US, sleep + 10 * US, 0, 1,
						TRACE_NO_TIMER, wake), 0);
		now += sleep + 10 * US;
	}
	replay_opts_default(&o);
	o.policies = (1u << RP_MENU) | (1u << RP_TEO);
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	trace_free(&t);
}

static void test_next_timer_only_from_timers(void **state)
{
	struct replay_result *r = calloc(1, sizeof(*r)), *r2 = calloc(1, sizeof(*r2));

	(void)state;
	assert_non_null(r);
	assert_non_null(r2);
	run_alternating(TRACE_WAKE_TIMER, r);
	run_alternating(TRACE_WAKE_OTHER, r2);
	assert_int_equal(r->p[RP_MENU].j.periods, 400);
	/* told the timer, nothing is too deep (menu's typical interval, 20 us
	 * once the 300 us outliers are dropped, still polls some long ones) */
	assert_int_equal(r->p[RP_MENU].too_deep, 0);
	assert_int_equal(r->p[RP_TEO].too_deep, 0);
	assert_true(r->p[RP_TEO].too_shallow <= 8);
	/* guessing: a third of the periods or more go too deep */
	assert_true(r2->p[RP_MENU].too_deep > 100);
	assert_true(r2->p[RP_TEO].too_deep > 100);
	assert_true(r2->p[RP_TEO].energy_dist_pct > r->p[RP_TEO].energy_dist_pct);
	free(r);
	free(r2);
}

/* synth: --table, the new scenarios, and the version 2 fields they carry. */
static void test_synth_v2_tables(void **state)
{
	struct trace t;
	char path[256];
	size_t timers = 0, ipis = 0, others = 0, idles = 0;

	(void)state;
	synth_load(&t, "bursty.trace", "bursty", "--duration", "0.5", "--table", "truthful");
	assert_int_equal(t.version, 2);
	assert_int_equal(t.states[1].exit_latency_us, 100);
	assert_int_equal(t.states[1].residency_us, 100);
	for (size_t i = 0; i < t.nr; i++) {
		const struct trace_rec *r = &t.recs[i];

		if (r->kind != BPFGOV_EV_IDLE_EXIT)
			continue;
		idles++;
		ipis += r->wake == TRACE_WAKE_IPI;
		others += r->wake == TRACE_WAKE_OTHER;
		/* only a timer wakeup knows its timer */
		assert_true(r->next_timer_ns == TRACE_NO_TIMER);
		/* lulls are 5..20 ms */
		if (r->wake == TRACE_WAKE_OTHER)
			assert_true(r->dur_ns >= 5 * MS && r->dur_ns < 20 * MS + 200 * US);
	}
	assert_true(others > 10);
	assert_int_equal(ipis, 7 * others);	/* 8 requests: 7 short idles per lull */
	assert_int_equal(idles, ipis + others);
	trace_free(&t);

	synth_load(&t, "mix.trace", "mix", "--long-pct", "50", "--table", "vm");
	assert_int_equal(t.states[1].exit_latency_us, 1);
	ipis = 0;
	for (size_t i = 0; i < t.nr; i++) {
		const struct trace_rec *r = &t.recs[i];

		if (r->kind != BPFGOV_EV_IDLE_EXIT)
			continue;
		if (r->wake == TRACE_WAKE_TIMER) {
			timers++;
			/* the sleep: the residency less the recorded state's cost */
			assert_int_equal(r->next_timer_ns, r->dur_ns - t.states[1].cost_ns);
		} else {
			ipis++;
		}
	}
	assert_true(timers > ipis / 2 && ipis > timers / 2);
	trace_free(&t);
	/* bad values */
	assert_int_equal(synth(path, "mix", "--table", "honest", "--seed", "1"), 2);
	assert_int_equal(synth(path, "bursty", "--lull-ms", "9", "--seed", "1"), 2);
	assert_int_equal(synth(path, "periodic", "--burst", "3", "--seed", "1"), 2);
}

/* synth --table of a real machine: the kernel's own table, each halting
 * state's wake-up cost its exit latency; replay runs every policy on it. */
static void test_synth_real_tables(void **state)
{
	static const struct { const char *name; __u32 n, last_lat, last_res; } want[] = {
		{ "skl", 9, 890, 5000 },	/* intel_idle skl_cstates: C10 */
		{ "spr", 4, 290, 800 },		/* spr_cstates: C6 */
		{ "zen", 4, 350, 700 },		/* acpi_idle: residency = 2 x latency */
		{ "haltpoll", 2, 1, 1 },
	};
	struct replay_result *r = calloc(1, sizeof(*r));
	struct replay_opts o;
	struct trace t;
	char path[256], err[256];

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		__u32 n = want[i].n;

		synth_load(&t, "real.trace", "mix", "--duration", "0.5", "--table", want[i].name);
		assert_int_equal(t.nr_states, n);
		assert_int_equal(t.states[0].is_poll, 1);
		assert_int_equal(t.states[n - 1].is_poll, 0);
		assert_int_equal(t.states[n - 1].exit_latency_us, want[i].last_lat);
		assert_int_equal(t.states[n - 1].residency_us, want[i].last_res);
		for (__u32 k = 1; k < n; k++)
			assert_int_equal(t.states[k].cost_ns, t.states[k].exit_latency_us * US);
		replay_opts_default(&o);
		if (replay_run(&t, &o, r, err, sizeof(err)))
			fail_msg("%s: %s", want[i].name, err);
		assert_true(r->p[RP_BPFGOV].j.periods > 100);
		assert_int_equal(r->p[RP_BPFGOV].j.periods, r->p[RP_MENU].j.periods);
		trace_free(&t);
	}
	/* skl's ninth state is C10 */
	synth_load(&t, "real.trace", "periodic", "--duration", "0.1", "--table", "skl");
	assert_string_equal(t.states[8].name, "C10");
	assert_string_equal(t.states[2].name, "C1E");
	trace_free(&t);
	/* a real table's costs are its own */
	snprintf(path, sizeof(path), "%s/bad.trace", tmpdir);
	assert_int_equal(synth(path, "mix", "--table", "skl", "--halt-cost-us", "5"), 2);
	free(r);
}

/* sugov_hold_freq(): the target only falls after an idle in which the
 * tick was asked to stop (tick_nohz_get_idle_calls_cpu()). */
static void test_sugov_hold_tick_stopped(void **state)
{
	struct ref_freq f;
	__u32 high;

	(void)state;
	ref_freq_init(&f, 2000, 1, 1);
	ref_freq_busy_begin(&f, 1 * MS);
	ref_freq_tick(&f, 100 * MS);
	ref_freq_busy_end(&f, 101 * MS);
	high = ref_freq_floor(&f);
	assert_true(high > 800);
	/* short idles with the tick kept: held however long the lull */
	for (__u64 t = 110 * MS; t < 400 * MS; t += 10 * MS) {
		ref_freq_idle(&f, 0);
		ref_freq_busy_begin(&f, t);
		ref_freq_busy_end(&f, t + 10 * US);
	}
	assert_int_equal(ref_freq_floor(&f), high);
	/* one tick-stopped idle: the next evaluation may lower it */
	ref_freq_idle(&f, 1);
	ref_freq_busy_begin(&f, 500 * MS);
	assert_true(ref_freq_floor(&f) < high / 2);
}

/* The kernel's HWP passive path: min = bw_min (the lowest), desired =
 * schedutil's target, a request write each time desired changes. */
static void test_hwp_passive(void **state)
{
	struct ref_freq f;

	(void)state;
	ref_freq_init_passive(&f, 5000);
	ref_freq_busy_begin(&f, 1 * MS);
	for (__u64 t = 5 * MS; t < 500 * MS; t += 4 * MS)
		ref_freq_tick(&f, t);
	assert_int_equal(ref_freq_floor(&f), 0);
	assert_int_equal(f.desired, 1024);
	assert_true(f.desired_changes > 3);
}

/* As actuated: bpfgov learns to poll on 6 us ping-pong sleeps; its pick
 * (PM QoS "n/a") caps every governor, so all four columns poll like the
 * ideal one. On 1 ms timer sleeps bpfgov halts, which is the deepest
 * state: no limit, and each governor's own pick stands. */
static void test_as_actuated(void **state)
{
	struct replay_opts o;
	struct replay_result *r = calloc(1, sizeof(*r));
	struct trace t;
	char err[512];
	static const int act[] = { RP_BPF_MENU, RP_BPF_TEO, RP_BPF_LADDER, RP_BPF_HALTPOLL };

	(void)state;
	assert_non_null(r);
	synth_load(&t, "pp0a.trace", "pingpong", "--work-us", "0", "--duration", "0.2");
	replay_opts_default(&o);
	o.hp.guest_halt_poll_ns = 0;
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		const struct replay_stats *a = &r->p[act[i]];

		assert_int_equal(a->idle, 1);
		assert_int_equal(a->freq, 0);
		assert_int_equal(a->j.periods, r->p[RP_BPFGOV].j.periods);
		/* the ideal column's poll share, give or take the first picks */
		assert_true(a->state_use[0] + 8 >= r->p[RP_BPFGOV].state_use[0]);
		assert_int_equal(a->verdict[RP_MENU], JV_WIN);
	}
	trace_free(&t);

	/* a periodic load at 347 Hz, 50 %: ~1.4 ms sleeps, every model halts */
	synth_load(&t, "per.trace", "periodic", "--duration", "1", "--hz", "347");
	replay_opts_default(&o);
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++)
		assert_true(r->p[act[i]].state_use[1] >= r->p[RP_BPFGOV].state_use[1] - 2);
	trace_free(&t);
	free(r);
}

/* As actuated, near timers: long timer sleeps (bpfgov halts) and one in 4
 * a 40 us sleep whose timer is that near, before halt (50/50 us) pays back.
 * The halting pick leaves polling to menu and teo (poll_ok), which poll
 * those as bpfgov's own entry pick does; shut, they would halt them all. */
static void test_as_actuated_near_timers(void **state)
{
	struct replay_result *r = calloc(1, sizeof(*r));
	struct replay_opts o;
	struct trace t;
	char err[512];
	__u64 now = 1000 * MS;
	__u32 near = 0;

	(void)state;
	assert_non_null(r);
	trace_init(&t);
	t.nr_cpus = 1;
	t.nr_states = 2;
	t.states[0].is_poll = 1;
	t.states[0].cost_ns = 1;
	t.states[1].exit_latency_us = 50;
	t.states[1].residency_us = 50;
	t.states[1].cost_ns = 50 * US;
	for (int i = 0; i < 1600; i++) {
		__u64 sleep = (i % 4 == 3 ? 40 : 700) * US;

		near += i % 4 == 3;
		trace_add(&t, now + 300 * US, 300 * US, 0, BPFGOV_EV_BUSY, TRACE_NO_STATE);
		now += 300 * US;
		assert_int_equal(trace_add_idle(&t, now + sleep + 50 * US, sleep + 50 * US, 0, 1,
						sleep, TRACE_WAKE_TIMER), 0);
		now += sleep + 50 * US;
	}
	replay_opts_default(&o);
	o.policies = (1u << RP_BPFGOV) | (1u << RP_MENU) | (1u << RP_BPF_MENU) |
		     (1u << RP_BPF_TEO);
	assert_int_equal(replay_run(&t, &o, r, err, sizeof(err)), 0);
	/* the ideal column polls the near ones at entry (timer cap) */
	assert_true(r->p[RP_BPFGOV].state_use[0] + 10 >= near);
	assert_true(r->p[RP_BPFGOV].state_use[1] >= 1600 - near - 10);
	/* as actuated: all of them once near timers are one in 8 of the
	 * recent idles (short_share, from 0: about 180 idles, 45 near ones,
	 * at one in 4), and the pick's windows have seen it */
	assert_true(r->p[RP_BPF_MENU].state_use[0] + 64 >= near);
	assert_true(r->p[RP_BPF_TEO].state_use[0] + 64 >= near);
	assert_true(r->p[RP_BPF_MENU].state_use[0] <= r->p[RP_MENU].state_use[0]);
	/* near sleeps halted cost 50 us each: 12.5 us per idle if all were,
	 * a fifth of that for those of the warm-up alone */
	assert_true(r->p[RP_BPF_MENU].latency_dist_us < 2.5);
	trace_free(&t);
	free(r);
}

/* The PM QoS limit and stateK/disable in each model, as in the kernel. */
static void test_models_latency_req(void **state)
{
	struct ref_states rs, hp_rs;
	struct ref_idle m;
	int idx;

	(void)state;
	three_states(&rs);
	/* menu: 0 means state 0; a limit between states caps the pick */
	ref_idle_init(&m, REF_MENU, &rs, NULL);
	m.latency_req_ns = 0;
	assert_int_equal(round_trip(&m, 1 * MS, 1 * MS), 0);
	m.latency_req_ns = 10 * US;	/* C2's exit latency: C3 excluded */
	for (int i = 0; i < 10; i++)
		idx = round_trip(&m, 1 * MS, 1 * MS);
	assert_int_equal(idx, 1);
	m.latency_req_ns = REF_NO_LATENCY_REQ;
	assert_int_equal(round_trip(&m, 1 * MS, 1 * MS), 2);
	/* a disabled state is skipped: C3 off leaves C2 */
	rs.disabled[2] = 1;
	assert_int_equal(round_trip(&m, 1 * MS, 1 * MS), 1);
	rs.disabled[2] = 0;

	/* teo: the constraint index */
	ref_idle_init(&m, REF_TEO, &rs, NULL);
	m.latency_req_ns = 10 * US;
	for (int i = 0; i < 10; i++)
		idx = round_trip(&m, 1 * MS, 1 * MS);
	assert_int_equal(idx, 1);
	m.latency_req_ns = REF_NO_LATENCY_REQ;
	for (int i = 0; i < 10; i++)
		idx = round_trip(&m, 1 * MS, 1 * MS);
	assert_int_equal(idx, 2);

	/* ladder: 0 selects state 0; a tighter limit demotes at once */
	ref_idle_init(&m, REF_LADDER, &rs, NULL);
	for (int i = 0; i < 12; i++)
		idx = round_trip(&m, 1 * MS, 1 * MS);
	assert_int_equal(idx, 2);
	m.latency_req_ns = 2 * US;	/* only C1 */
	assert_int_equal(round_trip(&m, 1 * MS, 1 * MS), 0);	/* first_idx is 0 here */
	m.latency_req_ns = 0;
	assert_int_equal(round_trip(&m, 1 * MS, 1 * MS), 0);

	/* haltpoll: "n/a" polls even with a closed window, and the poll
	 * limit that poll_idle() asks for is cached as the window */
	memset(&hp_rs, 0, sizeof(hp_rs));
	hp_rs.n = 2;
	hp_rs.poll[0] = 1;
	hp_rs.exit_ns[1] = 1 * US;
	hp_rs.res_ns[1] = 1 * US;
	hp_rs.tick_ns = REF_TICK_NS_DEFAULT;
	{
		struct ref_haltpoll_params hp = { .guest_halt_poll_ns = 0, .grow = 2, .shrink = 2,
						  .grow_start_ns = 50000, .allow_shrink = 1 };

		ref_idle_init(&m, REF_HALTPOLL, &hp_rs, &hp);
		assert_int_equal(ref_idle_select(&m, 1 * MS, 1 * MS), 1);	/* window closed */
		ref_idle_reflect(&m, 1, 1 * MS, 0);
		m.latency_req_ns = 0;
		assert_int_equal(ref_idle_select(&m, 1 * MS, 1 * MS), 0);
		assert_int_equal(ref_idle_poll_limit(&m), REF_TICK_NS_DEFAULT / 16);
		ref_idle_reflect(&m, 0, 20 * US, 0);
		m.latency_req_ns = REF_NO_LATENCY_REQ;
		/* the cached window now makes haltpoll poll after a poll */
		assert_int_equal(ref_idle_select(&m, 1 * MS, 1 * MS), 0);
		ref_idle_reflect(&m, 0, 1 * MS, 1);		/* poll ran out */
		assert_int_equal(ref_idle_select(&m, 1 * MS, 1 * MS), 1);
		/* a long halt shrinks it (guest_halt_poll_ns 0): 250 -> 125 us */
		ref_idle_reflect(&m, 1, 1 * MS, 0);
		assert_int_equal(m.poll_limit_ns, REF_TICK_NS_DEFAULT / 32);
	}
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
		cmocka_unit_test(test_bpfgov_gap_after_short_burst),
		cmocka_unit_test(test_pingpong_judge),
		cmocka_unit_test(test_judge_pct),
		cmocka_unit_test(test_next_timer_only_from_timers),
		cmocka_unit_test(test_synth_v2_tables),
		cmocka_unit_test(test_synth_real_tables),
		cmocka_unit_test(test_sugov_hold_tick_stopped),
		cmocka_unit_test(test_hwp_passive),
		cmocka_unit_test(test_as_actuated),
		cmocka_unit_test(test_as_actuated_near_timers),
		cmocka_unit_test(test_models_latency_req),
		cmocka_unit_test(test_wake_pairing),
		cmocka_unit_test(test_policy_names),
		cmocka_unit_test(test_power_model),
		cmocka_unit_test(test_judge_oracle),
		cmocka_unit_test(test_judge_costs_not_counts),
		cmocka_unit_test(test_judge_verdict),
		cmocka_unit_test(test_judge_verdict_symmetric),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
