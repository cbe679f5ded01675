/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The actuator's backends, below it as the kernel's cpufreq drivers are
 * below the cpufreq core: a floor backend is one struct act_floor_ops in
 * its own file (act_msr.c: intel-hwp, amd-cppc; act_cpufreq.c), which the
 * actuator (actuate.c) lists in its table and calls through; the idle
 * knobs (act_idle.c) and EPP (act_epp.c) are the same kind of part, one
 * each. They see the per-CPU knobs and the environment below, and the
 * knob layer (act_knob.h); never the actuator itself (actuate.h). Not for
 * the rest of govloader. User space only.
 */
#ifndef __BPFGOV_ACT_BACKEND_H
#define __BPFGOV_ACT_BACKEND_H

#ifdef __BPF__
#error "user/act/act_backend.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "bpfgov.h"
#include "act_knob.h"

/* One CPU's knobs and what was applied to them. */
struct act_cpu {
	bool online;
	/* the floor backend's (probe_cpu fills these) */
	bool has_floor;		/* floor backend usable on this CPU */
	int msr_fd;
	bool msr_is_file;
	char *msr_path;
	__u32 lowest, highest;	/* backend units (kHz for cpufreq) */
	__u32 efficient;	/* most efficient / lowest nonlinear level (MSR
				 * backends; 0: not known) */
	__u32 orig_min;		/* min at open, for status before any write */
	struct knob floor;
	/* idle knobs (act_idle.c) */
	bool has_qos;
	struct knob qos;
	char qos_orig[KNOB_TEXT];	/* normalised text at open */
	__u32 qos_orig_us;		/* its limit, 0: none (or n/a) */
	bool qos_orig_na;		/* "n/a": no latency allowed */
	int nr_disable;			/* stateK/disable for K < nr_disable */
	struct knob disable[BPFGOV_MAX_STATES];
	/* EPP (act_epp.c) */
	bool has_epp;
	struct knob epp;		/* energy_performance_preference */
	/* what was applied */
	bool floor_set, pick_set;	/* last_* cached: skip unchanged requests */
	bool pick_ever;
	bool last_poll_ok;		/* with last_pick: polling left to the governor */
	__u32 last_floor, last_pick;
	__u64 writes, reasserts, errors;
};

/* What the backends work in: the roots, the knob environment, the CPUs. */
struct act_env {
	struct knob_env ke;		/* dry-run, the save hook */
	const char *msr_root;		/* <root>/<cpu>/msr */
	const char *sysfs_root;
	bool idle;			/* idle picks applied */
	bool msr_standin;		/* some <msr_root>/N/msr is a regular file */
	bool use_disable;		/* governor honours stateK/disable */
	/* the cpuidle governor the picks work inside (system-wide): the
	 * machine's, or the one --idle-governor switches to for the run */
	char governor[KNOB_TEXT];
	char *gov_want;			/* switch to it at start; NULL: leave */
	struct knob gov;		/* cpuidle/current_governor, when switched */
	bool idle_ok;			/* some CPU has its PM QoS file */
	char *epp;			/* EPP to set, NULL: leave */
	bool epp_probed;
	int nr_cpus;
	struct act_cpu *cpus;
};

static inline struct act_cpu *act_env_cpu(const struct act_env *e, int cpu)
{
	if (!e || cpu < 0 || cpu >= e->nr_cpus)
		return NULL;
	return &e->cpus[cpu];
}

/*
 * A floor backend. Floor scaling is the actuator's: it hands set_floor the
 * target in the backend's units (between the lowest and highest that
 * probe_cpu found).
 */
struct act_floor_ops {
	const char *name;	/* as --backend names it, and in messages */
	bool msr;		/* writes MSRs: taints unless a stand-in; EPERM falls back */
	const char *absent;	/* what a missing one lacks: "no MSR driver: modprobe msr" */
	const char *knob;	/* appended to the reason: "per-CPU scaling_min_freq", NULL */
	/* One CPU: fill c->floor, lowest, highest, orig_min, has_floor
	 * (nothing written). -ENOENT: no such knob on this CPU (skipped);
	 * other -errno: broken (reason in @why). */
	int (*probe_cpu)(struct act_env *e, struct act_cpu *c, int cpu, char *why, size_t n);
	/* Write the floor @want (backend units); @wrote: a write was done. */
	int (*set_floor)(struct act_env *e, struct act_cpu *c, int cpu, __u32 want, bool *wrote);
};

extern const struct act_floor_ops act_intel_hwp_ops;	/* act_msr.c */
extern const struct act_floor_ops act_amd_cppc_ops;	/* act_msr.c */
extern const struct act_floor_ops act_cpufreq_ops;	/* act_cpufreq.c */

/* --- idle knobs (act_idle.c) --- */
/* The cpuidle governor, the per-CPU PM QoS files and stateK/disable.
 * With @e->gov_want, the governor to switch to is checked (nothing
 * written): -EINVAL or -ENOENT after one pr_warn line. */
int idle_probe(struct act_env *e);
/* act_apply_idle_governor() (actuate.h). */
int idle_gov_apply(struct act_env *e);
/* Put the governor back unless someone else switched it while bpfgov ran
 * (theirs stays, one line). */
int idle_gov_restore(struct act_env *e);
/* Idle files we would write must be writable: error (nothing changed). */
int idle_check_writable(struct act_env *e);
/* act_set_idle_poll() (actuate.h) on @cpu. */
int idle_set(struct act_env *e, int cpu, __u32 pick, bool poll_ok,
	     const struct bpfgov_config *cfg);

/* --- EPP (act_epp.c) --- */
/* Find each online CPU's EPP file (nothing written). */
void epp_probe(struct act_env *e);
/* act_apply_epp() and act_set_epp() (actuate.h). */
int epp_apply(struct act_env *e);
int epp_set(struct act_env *e, const char *epp);

#endif /* __BPFGOV_ACT_BACKEND_H */
