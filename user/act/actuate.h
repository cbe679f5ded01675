/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Actuation backends: apply a CPU's floor (0..1024) and idle pick to the
 * hardware or kernel knobs, saving every original first and restoring it on
 * every exit path. User-space only.
 */
#ifndef __BPFGOV_ACTUATE_H
#define __BPFGOV_ACTUATE_H

#ifdef __BPF__
#error "user/act/actuate.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "bpfgov.h"
#include "act_knob.h"	/* act_saved, the save hook, msr_read/write, act_put_back_* */
#include "json_writer.h"

enum act_backend {
	ACT_AUTO = 0,		/* intel-hwp, amd-cppc, cpufreq, none: first that works */
	ACT_NONE,
	ACT_INTEL_HWP,
	ACT_AMD_CPPC,
	ACT_CPUFREQ,
};

struct act_opts {
	const char *msr_root;	/* default "/dev/cpu": <root>/<cpu>/msr */
	const char *sysfs_root;	/* default "/sys" */
	const char *proc_root;	/* default "/proc": cpuinfo (platform facts) */
	enum act_backend backend;
	const char *epp;	/* energy_performance_preference to set, NULL: leave */
	bool quiet;		/* no warning lines: act_last_error() keeps the reason */
	bool dry_run;		/* write nothing, log what would be written */
	bool floor;		/* apply floors (default true) */
	bool idle;		/* apply idle picks (default true) */
	const char *idle_governor; /* cpuidle governor for the run, NULL: leave */
	int nr_cpus;		/* CPUs 0..nr_cpus-1 (possible CPUs) */
};

/* What `status` shows for one CPU. */
struct act_cpu_info {
	bool online;
	__u32 hw_min;		/* min field read back after the last write (backend
				 * units, or kHz for cpufreq); the original before */
	__u32 hw_lowest;	/* backend's lowest / highest, in the same units */
	__u32 hw_highest;
	__u32 last_floor;	/* last floor applied (0..1024) */
	__u32 last_pick;	/* last idle pick applied */
	__u64 writes;		/* successful writes */
	__u64 reasserts;	/* rewrites after someone else changed the register */
	__u64 errors;
	__u64 driver_rewrites;	/* MSR floor: the driver rewrote the register under
				 * bpfgov (seen by a read: before a write, its
				 * read-back, a re-assert) */
	__u64 driver_races;	/* ... of them, between a write and its read-back */
};

struct actuator;

/* Probe and open. On ACT_AUTO with nothing usable the backend is ACT_NONE
 * and act_missing() says what is missing and how to get it. Returns 0 or
 * -errno (with one clear pr_warn line). Nothing is written here. */
int act_open(struct actuator **out, const struct act_opts *o);
enum act_backend act_backend(const struct actuator *a);
const char *act_backend_name(enum act_backend b);
int act_backend_parse(const char *s, enum act_backend *out);	/* -EINVAL if unknown */
const char *act_missing(const struct actuator *a);		/* NULL when a backend works */
bool act_idle_available(const struct actuator *a);		/* per-CPU PM QoS files exist */
/* Why this backend (one line: what `start` prints after "floor backend B: "). */
const char *act_reason(const struct actuator *a);
/* Successful (dry-run: would-be) writes to @cpu's knobs so far. */
__u64 act_writes(const struct actuator *a, int cpu);
/* What the machine offers (platform.c), as found at open. */
struct platform;
const struct platform *act_platform(const struct actuator *a);
/* The EPP being applied, NULL when left as found. */
const char *act_epp(const struct actuator *a);
/* The backend writes MSRs through the msr driver: every write taints. */
bool act_taints(const struct actuator *a);
/* The last act_open() failure's one-line reason (this thread), or NULL. */
const char *act_last_error(void);

/* EPP for a profile: powersave -> "balance_power", performance ->
 * "performance", anything else -> NULL (left as found). */
const char *act_epp_for_profile(const char *profile);
/* Write the EPP of act_opts.epp on every online CPU that offers it
 * (journaled first like every knob). Where the cpufreq governor is
 * `performance` (EPP locked) or the value is not offered, nothing is
 * written and one line says so. Returns the number of CPUs set or -errno. */
int act_apply_epp(struct actuator *a);
/* Switch cpuidle's current_governor to act_opts.idle_governor (journaled
 * first; put back last at restore, after every per-CPU knob). Nothing
 * when it is already in force or none was asked. 1 if switched, 0, or
 * -errno after one pr_warn line. */
int act_apply_idle_governor(struct actuator *a);
/* The cpuidle governor the picks work inside ("" if none is known), and
 * whether bpfgov writes stateK/disable under it (menu, teo). */
const char *act_idle_governor(const struct actuator *a);
bool act_idle_uses_disable(const struct actuator *a);
/* The profile changed at run time: set EPP @epp (NULL: put the original
 * back), as act_apply_epp(). Returns what act_apply_epp() returns. */
int act_set_epp(struct actuator *a, const char *epp);
/* After resume or CPU online the driver rewrote the registers from its
 * own copy: forget what was applied (the next requests write anew),
 * pick up CPUs that came online, and re-write EPP. 0 or -errno. */
int act_reapply(struct actuator *a);

/* Apply a floor (0..1024) to @cpu. Saves the original before the first
 * write, writes only on change, re-asserts when a read-back differs from
 * what was last written. 0 or -errno.
 * EPERM from an MSR write (lockdown or allow_writes=off the probe could not
 * see) is not an error: what the MSR backend changed is put back, one line
 * says so, and the floor goes through the next backend (cpufreq, else
 * none) from then on. */
int act_set_floor(struct actuator *a, int cpu, __u32 floor);
/* Apply idle pick @pick for @cpu, given the idle-state table in @c:
 * a polling state -> "n/a" in pm_qos_resume_latency_us; the deepest state or
 * BPFGOV_NO_STATE -> the original value; state k in between -> k's exit
 * latency (at least 1, never looser than the original). Under menu/teo the
 * cpuidle stateK/disable knobs deeper than the pick are set too. With
 * nr_states 0 (no cpuidle driver) nothing is written. -EINVAL for a pick
 * beyond the table.
 * Both setters skip a request equal to the last one applied to that CPU;
 * changes made by others are caught by act_reassert(). In dry-run, counters
 * (writes) and act_cpu_info().hw_min show what would have been written. */
int act_set_idle(struct actuator *a, int cpu, __u32 pick, const struct bpfgov_config *c);
/* The same, for a pick that may leave polling to the governor (@poll_ok,
 * the pick event's arg0): a halting pick then keeps the polling states
 * enabled. act_set_idle() is this with @poll_ok false. */
int act_set_idle_poll(struct actuator *a, int cpu, __u32 pick, bool poll_ok,
		      const struct bpfgov_config *c);
/* Read back every written register/file and re-assert where someone else
 * changed it; returns the number of re-assertions or -errno. */
int act_reassert(struct actuator *a);
/* The same, skipping CPUs with @skip[cpu] set (idle CPUs: a write would
 * wake them). @skip may be NULL. */
int act_reassert_skip(struct actuator *a, const bool *skip);
/* The same for one CPU (a skipped one, once it runs). */
int act_reassert_cpu(struct actuator *a, int cpu);
/* Restore every saved original (idempotent). 0 or the first -errno. */
int act_restore(struct actuator *a);
/* Save, ahead of any decision, the original of every knob a floor (and,
 * with @idle, an idle pick) may write on every CPU that has one, through
 * the save hook: their first writes then wait for no disk. A knob saved
 * ahead and never written is left alone by act_restore(). Nothing in
 * dry-run. 0 or the first -errno (nothing written). */
int act_save_all(struct actuator *a, bool idle);
/* Registers/files written, whose original is not yet restored. */
int act_pending(const struct actuator *a);
int act_cpu_info(const struct actuator *a, int cpu, struct act_cpu_info *out);
/* The platform's efficient level as a floor (0..1024: the least floor that
 * scales to at least HWP_CAPABILITIES' most efficient performance, or
 * CPPC_CAP1's lowest nonlinear performance, on the first CPU with a floor
 * knob); 0 when the backend does not know it (cpufreq, none) or it is the
 * lowest level. */
__u32 act_floor_eff(const struct actuator *a);
/* The PM QoS resume latency limit that was in force before bpfgov
 * (microseconds, 0 = none), so the policy honours it. */
__u32 act_orig_qos_us(const struct actuator *a, int cpu);
/* Restore, then free. NULL is fine. */
void act_close(struct actuator *a);

/* act_orig_qos_us() values: 0 = no constraint ("0" in the file), a number =
 * that limit in us, and ACT_QOS_POLL_ONLY (1) for "n/a" (no latency
 * allowed: every governor polls). */
#define ACT_QOS_POLL_ONLY	1u

/* The save hook (struct act_saved, act_knob.h): called with each knob's
 * original before the first write to it. */
void act_set_save_hook(struct actuator *a, act_save_hook_fn fn, void *ctx);

/*
 * The backend order for @want (ACT_AUTO or a forced one) on @p (platform.h):
 * fills @order (ACT_NONE-terminated, at most 4) with the backends to try,
 * first the preferred one, and @reason with the one line `start` prints.
 * Returns 0, or -EPERM when a forced MSR backend is refused (@reason says
 * why; nothing may be written).
 */
int act_backend_plan(const struct platform *p, enum act_backend want,
		     enum act_backend order[4], char *reason, size_t n);

/* What `start` would pick here, found the way it finds it (the actuator
 * opened in dry-run: reads only). */
struct act_choice {
	enum act_backend backend;
	char reason[320];		/* why: the line `start` prints */
	bool taints;			/* an MSR backend: every write taints */
	bool refused;			/* a forced MSR backend was refused */
	bool broken;			/* the roots given are unusable: start exits 1 */
};
struct plat_roots;
void plat_choose(const struct platform *p, const struct plat_roots *r,
		 enum act_backend want, struct act_choice *out);

/* Everything `probe --json` shows, as fields of the open object of @w
 * (probe, validate's report, status), with the backend @ch picks (NULL:
 * none). Here, above both the platform facts and the backend plan. */
void plat_json_fields(json_writer_t *w, const struct platform *p, const char *msr_root,
		      const struct act_choice *ch);

#endif /* __BPFGOV_ACTUATE_H */
