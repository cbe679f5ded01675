/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reference models of the kernel's governors, for `govlab replay`.
 * Written from the documented algorithms and constants of
 * drivers/cpuidle/governors/{menu,teo,ladder,haltpoll}.c,
 * drivers/cpuidle/poll_state.c / cpuidle.c (poll time limit) and
 * kernel/sched/cpufreq_schedutil.c + PELT; our own code, simplified where
 * a trace carries no information (see docs/trace-format.md, "Replay").
 *
 * Idle models follow the cpuidle calling convention: select() picks a
 * state, reflect() reports the state entered, its measured residency and
 * whether a polling state stopped on its time limit.
 */
#ifndef __BPFGOV_REFMODELS_H
#define __BPFGOV_REFMODELS_H

#include <linux/types.h>
#include "bpfgov.h"

#define REF_NSEC_PER_USEC	1000ull
#define REF_TICK_NS_DEFAULT	4000000ull	/* CONFIG_HZ=250 (Debian) */
#define REF_RESIDENCY_THRESHOLD_NS 15000ull	/* governors/gov.h */
#define REF_MENU_BUCKETS	6
#define REF_MENU_INTERVALS	8
#define REF_LADDER_PROMOTION	4		/* ladder.c PROMOTION_COUNT */
#define REF_LADDER_DEMOTION	1		/* ladder.c DEMOTION_COUNT */
#define REF_LADDER_BAL_COUNT	2		/* our balanced variant: 2 / 2 */
#define REF_NO_LATENCY_REQ	((__s64)0x7fffffffffffffffll)

/* The driver's table as the kernel holds it (ns). */
struct ref_states {
	__u32 n;
	__u64 exit_ns[BPFGOV_MAX_STATES];
	__u64 res_ns[BPFGOV_MAX_STATES];
	int poll[BPFGOV_MAX_STATES];
	int disabled[BPFGOV_MAX_STATES];	/* stateK/disable */
	__u64 tick_ns;
};

enum ref_idle_kind {
	REF_MENU,
	REF_TEO,
	REF_LADDER,
	REF_LADDER_BAL,
	REF_HALTPOLL,
};

struct ref_haltpoll_params {
	__u64 guest_halt_poll_ns;	/* default 200000 */
	__u32 grow, shrink;		/* 2, 2 */
	__u64 grow_start_ns;		/* 50000 */
	int allow_shrink;		/* 1 */
};

struct ref_idle {
	int kind;
	const struct ref_states *st;
	/* cpuidle_device fields the governors read */
	int last_state_idx;
	__u64 last_residency_ns;
	int poll_time_limit;
	__u64 poll_limit_ns;		/* cpuidle_poll_time() cache / haltpoll window */
	/* cpuidle_governor_latency_req(): the PM QoS resume latency limit,
	 * set by the caller before each select (REF_NO_LATENCY_REQ: none;
	 * 0: "n/a", nothing but state 0) */
	__s64 latency_req_ns;
	union {
		struct {
			int needs_update;
			__u64 next_timer_ns;
			__u32 bucket;
			__u32 correction_factor[REF_MENU_BUCKETS];
			__u32 intervals[REF_MENU_INTERVALS];
			int interval_ptr;
		} menu;
		struct {
			__s64 sleep_length_ns;
			struct { __u32 intercepts, hits; } bins[BPFGOV_MAX_STATES];
			__u32 total, total_tick, tick_intercepts, short_idles;
		} teo;
		struct {
			/* ladder_device_state: threshold and stats; states
			 * below first_idx keep zero thresholds, as in the kernel */
			struct {
				__u64 promotion_ns, demotion_ns;
				__u32 promotion_count, demotion_count;
				int promo, demo;
			} st[BPFGOV_MAX_STATES];
		} ladder;
		struct {
			struct ref_haltpoll_params p;
		} hp;
	};
};

void ref_states_from(struct ref_states *rs, const struct bpfgov_config *c, __u64 tick_ns);
void ref_idle_init(struct ref_idle *m, int kind, const struct ref_states *st,
		   const struct ref_haltpoll_params *hp);
/* @next_timer_ns: time till the closest timer (tick_nohz_get_sleep_length);
 * @delta_tick_ns: time till the next tick. */
int ref_idle_select(struct ref_idle *m, __u64 next_timer_ns, __u64 delta_tick_ns);
void ref_idle_reflect(struct ref_idle *m, int idx, __u64 residency_ns, int poll_timed_out);
/* How long a polling state may poll before the idle loop re-selects. */
__u64 ref_idle_poll_limit(struct ref_idle *m);
/* The same, for a governor that keeps no window of its own (bpfgov). */
__u64 ref_poll_time(const struct ref_states *st);

/*
 * Frequency side. Three shapes:
 *  - schedutil's frequency path (sugov_update_single_freq): the floor is
 *    num/den of its target: 1/1 is schedutil, 3/4 and 7/8 are the HWP
 *    minimum proposals of the linux-pm thread "[RFC/RFT][PATCH]
 *    cpufreq: intel_pstate: Accept passive mode with HWP enabled"
 *    (not kernel paths);
 *  - the HWP passive path (sugov_update_single_perf ->
 *    intel_cpufreq_adjust_perf, perf_path = 1): the HWP minimum is bw_min
 *    (deadline bandwidth, IRQ and uclamp_min: none in a trace, so the
 *    platform's lowest, floor 0) and the desired field is the target.
 */
struct ref_freq {
	int perf_path;			/* intel_cpufreq_adjust_perf */
	__u32 desired;			/* perf path: HWP desired = target, 0..1024 */
	__u64 desired_changes;		/* perf path: HWP_REQUEST writes */
	int idle_from_busy_end;		/* no idle records: every busy end is an idle call */
	__u32 num, den;			/* floor = target * num / den */
	__u64 rate_limit_ns;
	double util_avg;		/* PELT-like running signal, 0..1024 */
	double util_est;		/* ewma of util at dequeue (util_est) */
	__u64 last_ns;
	int running;
	__u32 next_freq;		/* schedutil's target, 0..1024 */
	__u64 last_freq_update_ns;
	int have_update;
	__u64 idle_calls, saved_idle_calls;
};

void ref_freq_init(struct ref_freq *f, __u64 rate_limit_us, __u32 num, __u32 den);
/* Each returns 1 when the floor changed. */
int ref_freq_busy_begin(struct ref_freq *f, __u64 now);
int ref_freq_busy_end(struct ref_freq *f, __u64 now);
int ref_freq_tick(struct ref_freq *f, __u64 now);
/* The idle loop ran: tick_nohz_idle_stop_tick() counts an idle call only
 * when the idle governor asked to stop the tick (@stop_tick). */
void ref_freq_idle(struct ref_freq *f, int stop_tick);
/* The HWP passive path. */
void ref_freq_init_passive(struct ref_freq *f, __u64 rate_limit_us);
__u32 ref_freq_floor(const struct ref_freq *f);
/* schedutil's frequency target for a utilization: 1.25 x util, capped. */
__u32 ref_sugov_target(double util);

#endif /* __BPFGOV_REFMODELS_H */
