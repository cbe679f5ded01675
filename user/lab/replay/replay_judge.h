/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay judge: every idle period is scored on two axes against a
 * hindsight oracle, under a power model (docs/DESIGN.md, "The judge").
 *
 *  - Power model: polling draws 1.0 (full power); each other idle state a
 *    fraction of it; a wake-up out of state k costs cost(k) ns at full
 *    power. Energy of a period spent in k with sleep S:
 *        E_k(S) = frac(k) x S + cost(k)
 *  - Oracle: knowing S, the state that pays back best: the least E_k(S)
 *    among the states whose payback S passed (S >= target residency and
 *    S >= cost x judge_pct / 100); polling always qualifies. Ties go to the
 *    shallower state (less latency for the same energy).
 *  - Energy distance: sum over periods of (E_policy - E_oracle), in % of one
 *    CPU over the trace span. Latency distance: sum of (cost(policy's final
 *    state) - cost(oracle's state)) per idle period, in us.
 *  - Verdict of policy A against reference B on (energy, latency):
 *    tie, win, dominated or trade-off, with tolerances.
 */
#ifndef __BPFGOV_REPLAY_JUDGE_H
#define __BPFGOV_REPLAY_JUDGE_H

#ifdef __BPF__
#error "user/lab/replay/replay_judge.h is for user space only"
#endif

#include <linux/types.h>
#include <stddef.h>
#include "bpfgov.h"
#include "trace.h"

#define JUDGE_DEFAULT_FRAC	0.3	/* first non-polling state (C1 / halt) */
#define JUDGE_TIE_ENERGY_PCT	0.1	/* % of one CPU */
#define JUDGE_TIE_LATENCY_US	0.5	/* us per idle period */

/* Power in each idle state as a fraction of polling (1.0). */
struct power_model {
	__u32 n;
	double frac[BPFGOV_MAX_STATES];
};

/* Defaults for @t's table: polling states 1.0, the first non-polling state
 * JUDGE_DEFAULT_FRAC, every deeper state half of the one above it. */
void power_model_default(struct power_model *pm, const struct trace *t);
/* Check the syntax of a --power-model spec without a trace:
 * "KEY=FRACTION[,KEY=FRACTION...]", KEY a state index or name, FRACTION in
 * [0, 1]. 0 or -EINVAL with one line in @err. */
int power_model_check(const char *spec, char *err, size_t errlen);
/* Defaults, then @spec (may be NULL) applied against @t's state names.
 * A polling state stays at 1.0 (anything else is an error). */
int power_model_build(struct power_model *pm, const char *spec, const struct trace *t,
		      char *err, size_t errlen);

struct judge {
	__u32 n;
	__u64 payback[BPFGOV_MAX_STATES];	/* eligibility: sleep >= this */
	__u64 cost[BPFGOV_MAX_STATES];		/* wake-up cost, ns */
	int poll[BPFGOV_MAX_STATES];
	struct power_model pm;
};

/* What the judge adds up for one policy (all CPUs). */
struct judge_acc {
	__u64 periods;			/* idle periods judged */
	__u64 too_deep;			/* final state deeper than the oracle's */
	__u64 too_shallow;		/* first state shallower than the oracle's */
	double energy_ns;		/* full-power-equivalent ns spent idle */
	double oracle_energy_ns;
	__u64 lat_ns;			/* wake-up cost paid */
	__u64 oracle_lat_ns;
};

/* @cost: per-state wake-up cost (ns); @judge_pct: the latency guard of
 * the payback rule (100: a state pays back no sooner than its cost). */
void judge_init(struct judge *j, const struct trace *t, const __u64 *cost, __u32 judge_pct,
		const struct power_model *pm);
/* E_k(S) of the power model, ns at full power. */
double judge_energy(const struct judge *j, __u32 k, __u64 sleep_ns);
/* The oracle's state for a sleep of @sleep_ns. */
__u32 judge_oracle(const struct judge *j, __u64 sleep_ns);
/*
 * One idle period of sleep @sleep_ns (idle entry to wakeup request): the
 * policy first picked @first, polled @polled_ns in rounds that ended on
 * the poll time limit, and woke from @final after the rest of the sleep.
 */
void judge_period(const struct judge *j, struct judge_acc *a, __u64 sleep_ns, __u32 first,
		  __u32 final, __u64 polled_ns);

/* The two axes of a policy over a trace of @span_ns. */
double judge_energy_pct(const struct judge_acc *a, __u64 span_ns);	/* absolute */
double judge_oracle_energy_pct(const struct judge_acc *a, __u64 span_ns);
double judge_energy_dist_pct(const struct judge_acc *a, __u64 span_ns);
double judge_latency_dist_us(const struct judge_acc *a);

enum judge_verdict {
	JV_TIE = 0,
	JV_WIN,			/* no worse on both axes, better on one */
	JV_DOMINATED,		/* no better on both axes, worse on one */
	JV_TRADEOFF,		/* better on one, worse on the other */
};

/* Verdict of A against B from their distances (lower is better). */
int judge_verdict(double e_a, double l_a, double e_b, double l_b, double tol_energy_pct,
		  double tol_latency_us);
const char *judge_verdict_name(int v);

#endif /* __BPFGOV_REPLAY_JUDGE_H */
