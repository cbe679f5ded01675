/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The floor judge of `govlab replay`: a platform model of an HWP/CPPC
 * part, a power model, a hindsight oracle and the two axes (docs/DESIGN.md,
 * "The floor judge").
 *
 *  - Power while busy at frequency f (MHz):
 *        P(f) = static + c x f x V(f)^2
 *    V(f) = v_min at and below f_lo, rising linearly to v_max at f_max.
 *    Idle energy is the idle judge's business: a CPU draws nothing here
 *    between its busy segments.
 *  - Work: a busy segment of the trace is its duration at f_max, in cycles;
 *    at a lower frequency it takes longer. A segment starts at its traced
 *    start or when the previous one finishes, whichever is later.
 *  - The hardware (HWP active): its own level from recent activity (an
 *    EWMA of busy time, window tau), lowest + (max - lowest) x
 *    min(1, activity / target), never below the floor. After a gap in
 *    [lock_gap_lo, lock_gap_hi) that follows a busy run of lock_busy or
 *    more, a share lock_pct of trials lock the part at its lowest level for
 *    lock_ns unless the floor holds it. Trials are drawn from the trace
 *    (its gaps, a fixed seed), so every policy faces the same ones.
 *  - A floor write costs write_local_ns on the CPU; a remote one (from
 *    another CPU, an IPI) write_remote_ns; during a busy segment it delays
 *    the work.
 *  - Oracle: knowing each segment's work and the next segment's start, the
 *    constant frequency of least energy that finishes the work before the
 *    next segment starts: max(f_eff, work / window), within [f_lo, f_max],
 *    f_eff the frequency of least energy per cycle.
 *  - Axes: energy above the oracle's in % of the oracle's energy; delay
 *    above it, us of later completion per busy segment (negative: faster
 *    than the oracle, paid in energy), and the share of segments finished
 *    later than the oracle's.
 */
#ifndef __BPFGOV_FLOOR_MODEL_H
#define __BPFGOV_FLOOR_MODEL_H

#ifdef __BPF__
#error "user/lab/replay/floor_model.h is for user space only"
#endif

#include <linux/types.h>
#include <stddef.h>

#define FM_TIE_ENERGY_PCT	0.5	/* % of the oracle's energy */
#define FM_TIE_DELAY_US		1.0	/* us per busy segment: a segment later than
					 * the oracle's by more is a slow one */

struct fm_params {
	/* power model */
	double f_lo_mhz, f_max_mhz;
	double v_min, v_max;		/* V at f_lo and at f_max */
	double static_frac;		/* static power, part of the dynamic power at f_max */
	/* platform model */
	double hw_tau_us;		/* the hardware's activity window */
	double hw_target;		/* activity at which it runs at max (0..1] */
	double lock_gap_lo_us, lock_gap_hi_us;
	double lock_busy_us;		/* busy run before the gap */
	double lock_ms;
	double lock_pct;		/* share of trials that lock */
	double seed;
	double write_local_us, write_remote_us;
	double step_us;			/* integration step */
};

void fm_params_default(struct fm_params *p);
/* "KEY=VALUE[,...]" over the defaults; 0 or -EINVAL with one line in @err. */
int fm_params_parse(struct fm_params *p, const char *spec, char *err, size_t errlen);
/* One line listing every key and its value. */
void fm_params_format(const struct fm_params *p, char *buf, size_t len);

/* Power model */
double fm_voltage(const struct fm_params *p, double f_mhz);
double fm_power(const struct fm_params *p, double f_mhz);	/* units of c: W / (MHz V^2) = 1 */
double fm_f_eff(const struct fm_params *p);
__u32 fm_eff_level(const struct fm_params *p);			/* least energy per cycle */

/* How a policy's floor becomes a frequency, and who sets the level. */
enum fm_mode {
	FM_HWP,			/* HWP active: max(floor, the hardware's own level); locks */
	FM_HWP_DESIRED,		/* HWP with a desired level: max(floor, desired); locks */
	FM_DIRECT,		/* a non-HWP driver: the floor is the frequency; no locks */
};

enum fm_scale {
	FM_RANGE,		/* floor/1024 of [f_lo, f_max] (bpfgov) */
	FM_OF_MAX,		/* floor/1024 of f_max, at least f_lo (the kernel's targets) */
};

struct fm_seg {
	__u64 start_ns, dur_ns;		/* as traced */
	__u64 window_ns;		/* to the next segment's start (0: last) */
	int lock;			/* a lock trial fires at this segment's start */
};

/* A step function: value v[i] from t[i] on (t ascending, t[0] <= first use). */
struct fm_steps {
	const __u64 *t;
	const __u32 *v;
	size_t n;
};

struct fm_policy {
	int mode, scale;
	int remote_writes;		/* floor writes arrive by IPI */
	struct fm_steps floor;
	struct fm_steps desired;	/* FM_HWP_DESIRED; its changes are the writes */
};

struct fm_acc {
	__u64 segments, slow;		/* slow: finished later than the oracle */
	double energy, oracle_energy;	/* P x ns */
	double delay_ns;		/* sum of (finish - oracle finish) */
	double oracle_ns;		/* sum of the oracle's busy time */
	__u64 writes, locks, locks_low;	/* locks_low: at the lowest level */
};

/* Mark the lock trials of one CPU's segments (sorted by start). */
void fm_mark_locks(const struct fm_params *p, struct fm_seg *s, size_t n, __u32 cpu);
/* The oracle of one segment: its frequency, energy (P x ns) and duration. */
double fm_oracle(const struct fm_params *p, const struct fm_seg *s, double *energy, double *ns);
/* One CPU's segments under one policy, added to @a. */
void fm_run(const struct fm_params *p, const struct fm_seg *s, size_t n,
	    const struct fm_policy *pol, struct fm_acc *a);

double fm_energy_dist_pct(const struct fm_acc *a);
double fm_delay_us(const struct fm_acc *a);
/* The oracle's busy time per segment, us. */
double fm_oracle_busy_us(const struct fm_acc *a);
double fm_slow_pct(const struct fm_acc *a);

#endif /* __BPFGOV_FLOOR_MODEL_H */
