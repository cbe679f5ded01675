// SPDX-License-Identifier: GPL-2.0
/*
 * The replay judge: energy and latency of each idle period against a
 * hindsight oracle under a configurable power model. See replay_judge.h
 * for the definitions and docs/DESIGN.md for why they are the yardstick.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "replay_judge.h"
#include "util.h"

void power_model_default(struct power_model *pm, const struct trace *t)
{
	double f = JUDGE_DEFAULT_FRAC;
	int seen_halt = 0;

	memset(pm, 0, sizeof(*pm));
	pm->n = t->nr_states > BPFGOV_MAX_STATES ? BPFGOV_MAX_STATES : t->nr_states;
	for (__u32 k = 0; k < pm->n; k++) {
		if (t->states[k].is_poll) {
			pm->frac[k] = 1.0;
			continue;
		}
		if (seen_halt)
			f /= 2;
		seen_halt = 1;
		pm->frac[k] = f;
	}
}

/* One "KEY=FRACTION" item; @key and @val point into @item (modified). */
static int split_item(char *item, char **key, double *val, char *err, size_t errlen)
{
	char *eq = strchr(item, '='), *end;

	if (!eq || eq == item || !eq[1]) {
		snprintf(err, errlen, "--power-model: '%s' is not STATE=FRACTION", item);
		return -EINVAL;
	}
	*eq = '\0';
	*key = item;
	*val = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !(*val >= 0.0 && *val <= 1.0)) {
		snprintf(err, errlen, "--power-model: fraction '%s' for '%s' is not a number in [0, 1]",
			 eq + 1, item);
		return -EINVAL;
	}
	return 0;
}

struct walk_ctx {
	struct power_model *pm;
	const struct trace *t;
};

static int walk_item(char *it, void *ctx, char *err, size_t errlen)
{
	const struct walk_ctx *w = ctx;
	const struct trace *t = w->t;
	__u32 k = ~0u;
	char *end, *key;
	unsigned long idx;
	double val;
	int ret;

	ret = split_item(it, &key, &val, err, errlen);
	if (ret || !t)
		return ret;
	idx = strtoul(key, &end, 10);
	if (end != key && !*end && idx < t->nr_states)
		k = (__u32)idx;
	for (__u32 s = 0; k == ~0u && s < t->nr_states; s++)
		if (!strcasecmp(key, t->states[s].name))
			k = s;
	if (k == ~0u) {
		snprintf(err, errlen, "--power-model: the trace has no idle state '%s'", key);
		return -EINVAL;
	}
	if (t->states[k].is_poll && val != 1.0) {
		snprintf(err, errlen, "--power-model: state %u (%s) polls: its power is 1.0 by definition",
			 k, t->states[k].name);
		return -EINVAL;
	}
	w->pm->frac[k] = val;
	return 0;
}

static int walk_spec(const char *spec, struct power_model *pm, const struct trace *t,
		     char *err, size_t errlen)
{
	struct walk_ctx w = { pm, t };

	return spec_each(spec, "--power-model", "STATE=FRACTION[,...]", walk_item, &w, err, errlen);
}

int power_model_check(const char *spec, char *err, size_t errlen)
{
	return walk_spec(spec, NULL, NULL, err, errlen);
}

int power_model_build(struct power_model *pm, const char *spec, const struct trace *t,
		      char *err, size_t errlen)
{
	power_model_default(pm, t);
	return spec ? walk_spec(spec, pm, t, err, errlen) : 0;
}

void judge_init(struct judge *j, const struct trace *t, const __u64 *cost, __u32 judge_pct,
		const struct power_model *pm)
{
	memset(j, 0, sizeof(*j));
	j->n = t->nr_states > BPFGOV_MAX_STATES ? BPFGOV_MAX_STATES : t->nr_states;
	j->pm = *pm;
	for (__u32 k = 0; k < j->n; k++) {
		__u64 res = (__u64)t->states[k].residency_us * 1000;
		__u64 pay = cost[k] * judge_pct / 100;

		j->poll[k] = t->states[k].is_poll;
		j->cost[k] = cost[k];
		j->payback[k] = j->poll[k] ? 0 : (res > pay ? res : pay);
	}
}

double judge_energy(const struct judge *j, __u32 k, __u64 sleep_ns)
{
	if (k >= j->n)
		k = j->n - 1;
	return j->pm.frac[k] * (double)sleep_ns + (double)j->cost[k];
}

__u32 judge_oracle(const struct judge *j, __u64 sleep_ns)
{
	__u32 best = 0;
	double e_best = judge_energy(j, 0, sleep_ns);

	for (__u32 k = 1; k < j->n; k++) {
		double e;

		if (sleep_ns < j->payback[k])
			continue;
		e = judge_energy(j, k, sleep_ns);
		if (e < e_best) {
			e_best = e;
			best = k;
		}
	}
	return best;
}

void judge_period(const struct judge *j, struct judge_acc *a, __u64 sleep_ns, __u32 first,
		  __u32 final, __u64 polled_ns)
{
	__u32 o = judge_oracle(j, sleep_ns);
	__u64 rest = polled_ns < sleep_ns ? sleep_ns - polled_ns : 0;

	if (final >= j->n)
		final = j->n - 1;
	a->periods++;
	/* Rounds that ended on the poll limit drew full power, woke nobody. */
	a->energy_ns += (double)(sleep_ns - rest) + judge_energy(j, final, rest);
	a->oracle_energy_ns += judge_energy(j, o, sleep_ns);
	a->lat_ns += j->cost[final];
	a->oracle_lat_ns += j->cost[o];
	if (final > o)
		a->too_deep++;
	else if (first < o)
		a->too_shallow++;
}

double judge_energy_pct(const struct judge_acc *a, __u64 span_ns)
{
	return span_ns ? 100.0 * a->energy_ns / (double)span_ns : 0;
}

double judge_oracle_energy_pct(const struct judge_acc *a, __u64 span_ns)
{
	return span_ns ? 100.0 * a->oracle_energy_ns / (double)span_ns : 0;
}

double judge_energy_dist_pct(const struct judge_acc *a, __u64 span_ns)
{
	return span_ns ? 100.0 * (a->energy_ns - a->oracle_energy_ns) / (double)span_ns : 0;
}

double judge_latency_dist_us(const struct judge_acc *a)
{
	return a->periods ? ((double)a->lat_ns - (double)a->oracle_lat_ns) / 1e3 / a->periods : 0;
}

int judge_verdict(double e_a, double l_a, double e_b, double l_b, double tol_energy_pct,
		  double tol_latency_us)
{
	/* On the differences, so that the band is the same both ways: B
	 * against A is exactly the mirror (e_b - e_a == -(e_a - e_b)). */
	double de = e_a - e_b, dl = l_a - l_b;
	int e_better = de < -tol_energy_pct, e_worse = de > tol_energy_pct;
	int l_better = dl < -tol_latency_us, l_worse = dl > tol_latency_us;

	if ((e_better && l_worse) || (e_worse && l_better))
		return JV_TRADEOFF;
	if (e_better || l_better)
		return JV_WIN;
	if (e_worse || l_worse)
		return JV_DOMINATED;
	return JV_TIE;
}

const char *judge_verdict_name(int v)
{
	static const char *const names[] = {
		[JV_TIE] = "tie", [JV_WIN] = "win", [JV_DOMINATED] = "dominated",
		[JV_TRADEOFF] = "trade-off",
	};

	return v >= 0 && v <= JV_TRADEOFF ? names[v] : "?";
}
