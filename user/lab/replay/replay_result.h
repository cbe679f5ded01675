/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a replay is asked and what it finds: the policies, the options and
 * the results, shared by the engine (replay.c) and its output
 * (replay_out.c). Nothing here calls either of them.
 */
#ifndef __BPFGOV_REPLAY_RESULT_H
#define __BPFGOV_REPLAY_RESULT_H

#ifdef __BPF__
#error "user/lab/replay/replay_result.h is for user space only"
#endif

#include <linux/types.h>
#include <stddef.h>
#include "bpfgov.h"
#include "floor_model.h"
#include "refmodels.h"
#include "replay_judge.h"

enum replay_policy {
	RP_BPFGOV,
	RP_MENU,
	RP_TEO,
	RP_LADDER,
	RP_LADDER_BAL,
	RP_HALTPOLL,
	RP_BPF_MENU,		/* bpfgov as actuated under menu ... */
	RP_BPF_TEO,
	RP_BPF_LADDER,
	RP_BPF_HALTPOLL,
	RP_SCHEDUTIL,
	RP_HWP_34,		/* linux-pm proposal: HWP min = 3/4 of schedutil's target */
	RP_HWP_78,		/* linux-pm proposal: 7/8 */
	RP_HWP_1,		/* floor = schedutil's whole target */
	RP_HWP_PASSIVE,		/* the kernel: intel_cpufreq_adjust_perf() */
	RP_HWP_AUTO,		/* the hardware alone: HWP active, no floor */
	RP__MAX,
};

#define RP_ALL		((1u << RP__MAX) - 1)

struct replay_opts {
	struct bpfgov_config cfg;	/* bpfgov tunables (idle table from the trace) */
	__u32 policies;			/* bitmask of 1 << RP_* */
	__u64 tick_ns;			/* scheduler tick period (HZ) */
	__u64 timer_ns;			/* next timer assumed for remote wakeups */
	__u32 sugov_rate_limit_us;	/* schedutil rate_limit_us */
	__u32 hwp_rate_limit_us;	/* intel_cpufreq passive+HWP transition delay */
	struct ref_haltpoll_params hp;
	__u64 poll_limit_ns;		/* the kernel's poll time limit (0: the trace's, from its
					 * polls that ran into it, else the governor model's) */
	int no_tick;			/* bpfgov: do not feed pol_tick */
	__u32 judge_pct;		/* a state pays back once sleep >= cost x this / 100 */
	const char *power_model;	/* --power-model spec (NULL: defaults) */
	double tie_energy_pct;		/* verdicts: differences up to this are ties */
	double tie_latency_us;
	__u64 short_gap_ns;		/* a gap shorter than this ... */
	__u64 after_gap_ns;		/* ... is watched this long for floor == 0 */
	struct fm_params fm;		/* the floor judge's platform and power models */
	int floor_eff_given;		/* cfg.floor_eff is the user's (else the model's f_eff) */
	double fl_tie_energy_pct;	/* floor verdicts: ties within this % of the oracle */
	double fl_tie_delay_us;		/* ... and this many us per busy segment (< 0:
					 * the same share of the oracle's busy time
					 * per segment as fl_tie_energy_pct) */
	/* Optional (govlab plot): after each event bpfgov's core handled,
	 * the CPU's state at trace time @t_ns. */
	void (*observe)(void *ctx, __u32 cpu, __u64 t_ns, const struct bpfgov_cpu_state *s);
	void *observe_ctx;
};

struct replay_stats {
	int idle, freq;			/* which half of the table applies */
	int bpf;			/* a bpfgov variant: its pick changes apply */
	int passive;			/* hwp-passive: desired and writes apply */
	__u64 decisions;		/* idle state selections */
	__u64 too_deep, too_shallow;	/* idle periods deeper / shallower than the oracle */
	struct judge_acc j;		/* the judge's sums */
	double energy_pct;		/* idle energy, % of one CPU at full power */
	double energy_dist_pct;		/* ... above the oracle's */
	double latency_dist_us;		/* wake-up cost above the oracle's, per idle period */
	int verdict[RP__MAX];		/* enum judge_verdict vs kernel refs, else -1 */
	__u64 wakeups;
	__u64 wake_lat_ns;		/* exit cost paid, all wakeups */
	__u64 poll_ns;			/* time spent polling */
	__u64 idle_ns;			/* time in idle states, exit cost included */
	__u64 state_use[BPFGOV_MAX_STATES];
	double mean_floor;		/* time-weighted, 0..1024 */
	double mean_desired;		/* hwp-passive: HWP desired, time-weighted */
	__u64 request_writes;		/* hwp-passive: HWP_REQUEST writes (desired changes) */
	double request_writes_per_s;
	__u64 lowest_after_gap_ns;	/* floor == 0 within after_gap after a short gap */
	__u64 short_gaps, short_gaps_hit;
	__u64 floor_changes;
	double changes_per_s;
	__u64 pick_changes;		/* bpfgov: changes of the standing pick or poll_ok */
	double pick_changes_per_cpu_s;	/* ... per CPU per second (the idle knob writes) */
	/* the floor judge (floor_model.h) */
	int fl;				/* judged by the floor judge */
	struct fm_acc fa;
	double fl_energy_pct;		/* energy above the oracle, % of its energy */
	double fl_delay_us;		/* completion after the oracle's, us per busy segment */
	double fl_slow_pct;		/* busy segments finished later than the oracle's, % */
	int fl_verdict[RP__MAX];	/* enum judge_verdict vs the floor models, else -1 */
};

struct replay_result {
	double duration_s;
	__u32 nr_cpus;
	size_t nr_recs, nr_idle, nr_busy, nr_wake;
	__u64 cost_ns[BPFGOV_MAX_STATES];	/* wake-up cost per state used by the judge */
	int cost_from[BPFGOV_MAX_STATES];	/* 0 table, 1 samples (median), 2 header */
	__u64 span_ns;				/* trace span (first start to last end) */
	__u64 poll_limit_ns;			/* the kernel's poll time limit replayed (0: model's) */
	int poll_limit_from;			/* 0 the governor model, 1 the trace, 2 the option */
	size_t nr_limit_polls;			/* the trace's polls that ran into the limit */
	struct power_model pm;			/* the judge's power model */
	double oracle_energy_pct;		/* the oracle's idle energy, % of one CPU */
	double oracle_latency_us;		/* its mean wake-up cost per idle period */
	double fl_f_eff_mhz;			/* the floor oracle's least energy per cycle */
	double fl_oracle_busy_us;		/* the oracle's busy time per segment */
	double fl_tie_delay_us;			/* the delay band the verdicts used */
	struct replay_stats p[RP__MAX];
};

/* menu, teo, ladder, haltpoll: the kernel's governors, verdicts' references. */
int replay_policy_is_kernel_ref(int p);
/* hwp-auto, schedutil, hwp-passive, hwp-3/4, hwp-7/8: the floor's references. */
int replay_policy_is_floor_ref(int p);

const char *replay_policy_name(int p);
int replay_policy_parse(const char *s);	/* -1 when unknown */
#endif /* __BPFGOV_REPLAY_RESULT_H */
