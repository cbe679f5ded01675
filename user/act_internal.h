/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the actuator: the knob core (actuate.c) and its backends
 * (act_msr.c: intel-hwp / amd-cppc, act_cpufreq.c, act_idle.c: PM QoS and
 * cpuidle state knobs). Not for the rest of govloader: actuate.h is the
 * public interface.
 */
#ifndef __BPFGOV_ACT_INTERNAL_H
#define __BPFGOV_ACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "actuate.h"
#include "platform.h"

#define KNOB_TEXT	64	/* sysfs values we touch are tiny */

struct msr_layout {
	const char *name;
	__u32 enable, caps, req;
	const char *enable_name;	/* for messages */
	unsigned int cap_lowest_shift, cap_highest_shift;
	unsigned int req_min_shift, req_max_shift;
};

struct knob {
	int cpu;
	bool is_msr;
	char *path;
	/* !is_msr: the file, opened at its first use and kept open */
	int tfd;
	bool tfd_open;
	/* is_msr */
	int fd;			/* the CPU's msr fd (owned by act_cpu) */
	bool is_file;
	__u32 msr;
	unsigned int shift;	/* our 8-bit field: bits shift+7..shift */
	unsigned int max_shift;	/* the request's max field (cap) */
	/* the original, captured by act_save_original() */
	bool saved;		/* restore pending */
	__u64 orig_val;
	char orig_text[KNOB_TEXT];
	size_t orig_len;
	/* what we want and what we saw after our last write */
	bool written;		/* written (dry-run: would have been) */
	bool refused;		/* is_msr: the kernel refused a write (EPERM) */
	__u32 want_field;	/* is_msr: target min, before the max cap */
	__u32 seen_field;	/* is_msr: min field of our last write */
	char want_text[KNOB_TEXT];	/* !is_msr: normalised */
	char seen_text[KNOB_TEXT];	/* !is_msr: normalised read-back */
};

struct act_cpu {
	bool online;
	bool has_floor;		/* floor backend usable on this CPU */
	int msr_fd;
	bool msr_is_file;
	char *msr_path;
	__u32 lowest, highest;	/* backend units (kHz for cpufreq) */
	__u32 orig_min;		/* min at open, for status before any write */
	struct knob floor;
	bool has_qos;
	struct knob qos;
	char qos_orig[KNOB_TEXT];	/* normalised text at open */
	__u32 qos_orig_us;
	bool qos_orig_na;
	bool has_epp;
	struct knob epp;		/* energy_performance_preference */
	int nr_disable;			/* stateK/disable for K < nr_disable */
	struct knob disable[BPFGOV_MAX_STATES];
	bool floor_set, pick_set;	/* last_* cached: skip unchanged requests */
	bool pick_ever;
	bool last_poll_ok;		/* with last_pick: polling left to the governor */
	__u32 last_floor, last_pick;
	__u64 writes, reasserts, errors;
};

struct actuator {
	struct act_opts o;
	char *msr_root;
	char *sysfs_root;
	char *proc_root;
	char *epp;			/* EPP to set, NULL: leave */
	bool epp_probed;
	struct platform plat;		/* what the machine offers (platform.c) */
	enum act_backend order[4];	/* the plan, ACT_NONE-terminated */
	int order_pos;			/* the plan entry in use */
	char reason[400];		/* why this backend */
	bool taints;			/* MSR writes through the msr driver */
	enum act_backend backend;
	const struct msr_layout *layout;	/* MSR backends */
	bool msr_standin;	/* some <msr_root>/N/msr is a regular file */
	bool use_disable;	/* governor honours stateK/disable */
	bool idle_ok;
	char *missing;
	act_save_hook_fn hook;
	void *hook_ctx;
	int nr_cpus;
	struct act_cpu *cpus;
};

/* --- knob core (actuate.c) --- */
/* Capture a knob's original right before its first write (calls the save
 * hook); @cur: the register's 8 bytes, or the file's exact text. */
int act_save_original(struct actuator *a, struct knob *k, __u64 cur,
		      const char *text, size_t len);
/* Set a file knob to @want (normalised text; written with a newline). */
int file_knob_set(struct actuator *a, struct act_cpu *c, struct knob *k,
		  const char *want, bool *wrote);
/* A file knob's writability (mode bits, as check_writable()). */
int knob_check_writable(struct actuator *a, struct knob *k);
/* A knob file's text without trailing white space (O_NOFOLLOW). */
int read_norm(const char *path, char *buf, size_t size);
void knob_init(struct knob *k, int cpu);
struct act_cpu *act_cpu_get(const struct actuator *a, int cpu);

/* --- MSR backends (act_msr.c) --- */
static inline __u32 field_get(__u64 v, unsigned int shift)
{
	return (v >> shift) & 0xff;
}

const struct msr_layout *msr_layout_of(enum act_backend b);
/* One CPU's MSR backend. -ENOENT: no msr file (skip); other -errno: broken
 * (reason in @why). */
int probe_msr_cpu(struct actuator *a, const struct msr_layout *L,
		  struct act_cpu *c, int cpu, char *why, size_t n);
/* Read-modify-write our field of an MSR knob to @want (uncapped target). */
int msr_knob_set(struct actuator *a, struct act_cpu *c, struct knob *k,
		 __u32 want, bool *wrote);

/* --- cpufreq backend (act_cpufreq.c) --- */
int probe_cpufreq_cpu(struct actuator *a, struct act_cpu *c, int cpu,
		      char *why, size_t n);
/* Write min @want (kHz), capped at scaling_max_freq. */
int cpufreq_floor_set(struct actuator *a, struct act_cpu *c, int cpu, __u32 want,
		      bool *wrote);

/* --- EPP (act_epp.c) --- */
/* Find each online CPU's EPP file (nothing written). */
void probe_epp(struct actuator *a);
int knob_restore(struct knob *k);
void knob_free(struct knob *k);

/* --- idle knobs (act_idle.c) --- */
/* The cpuidle governor, the per-CPU PM QoS files and stateK/disable. */
void probe_idle(struct actuator *a);
/* Idle files we would write must be writable: error (nothing changed). */
int check_idle_writable(struct actuator *a);

#endif /* __BPFGOV_ACT_INTERNAL_H */
