/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the machine offers for actuation, read under a sysfs root, a proc
 * root and an MSR root (so stand-in trees drive every branch). Below the
 * actuator: the backend plan made from these facts is the actuator's
 * (act_backend_plan(), actuate.h). User space only.
 */
#ifndef __BPFGOV_PLATFORM_H
#define __BPFGOV_PLATFORM_H

#ifdef __BPF__
#error "user/platform/platform.h is for user space only"
#endif

#include <stdbool.h>
#include <stddef.h>
#include "common.h"
#include "json_writer.h"

#define PLAT_STR		64

struct plat_roots {
	const char *sysfs_root;		/* default /sys */
	const char *proc_root;		/* default /proc */
	const char *msr_root;		/* default /dev/cpu */
};

struct platform {
	/* CPU (proc/cpuinfo) */
	char vendor[PLAT_STR];		/* GenuineIntel, AuthenticAMD, "unknown" */
	int family, model;		/* -1 when unknown */
	bool hwp;			/* cpuinfo flag "hwp" */
	bool cppc;			/* cpuinfo flag "cppc" (CPPC_REQ MSR) */
	bool aperfmperf;		/* cpuinfo flag "aperfmperf" */
	bool hypervisor;
	int nr_cpus;			/* possible CPUs (sysfs) */
	char online[PLAT_STR];		/* devices/system/cpu/online */
	/* cpufreq */
	char cpufreq_driver[PLAT_STR];	/* cpu0's scaling_driver, "none" */
	char pstate_mode[PLAT_STR];	/* intel_pstate/ or amd_pstate/status, "" */
	bool hwp_dynamic_boost;		/* intel_pstate/hwp_dynamic_boost is 1: the
					 * driver raises HWP_REQUEST.min itself */
	char cpufreq_governor[PLAT_STR];	/* cpu0's scaling_governor, "" */
	bool epp;			/* cpu0 has energy_performance_preference */
	char epp_now[PLAT_STR];		/* its value, "" */
	char epp_avail[256];		/* energy_performance_available_preferences */
	/* MSR access and what it costs */
	bool msr_driver;		/* <msr_root>/0/msr exists */
	bool msr_standin;		/* ... and is a regular file */
	char allow_writes[PLAT_STR];	/* module/msr/parameters/allow_writes, "" */
	char lockdown[PLAT_STR];	/* none, integrity, confidentiality, "" (unknown) */
	unsigned long taint;		/* proc/sys/kernel/tainted */
	bool taint_known;
	/* cpuidle */
	char idle_driver[PLAT_STR];	/* "none" without one */
	char idle_governor[PLAT_STR];
	/* hybrid core types: "cpu_core 0-7; cpu_atom 8-15", "" when not exposed */
	char hybrid[256];
	/* BPF */
	bool sched_ext;			/* kernel/sched_ext exists */
	char sched_ext_state[PLAT_STR];
	bool btf;			/* kernel/btf/vmlinux */
	bool percpu_ksyms;		/* per-CPU data in kallsyms (KALLSYMS_ALL) */
	bool kallsyms_known;
};

/* Read everything; missing files leave their field at its "unknown" value.
 * Never fails on a missing file; -ENOMEM only. */
int plat_probe(struct platform *p, const struct plat_roots *r);

/* The CPU speaks AMD's CPPC MSRs (AuthenticAMD, HygonGenuine), else
 * Intel's HWP ones. */
bool plat_msr_amd(const struct platform *p);

/* Who owns the MSR's min field: NULL when nobody rewrites it on its own
 * updates (intel_pstate active without hwp_dynamic_boost, amd-pstate
 * active, no cpufreq driver), else a short reason ("intel_pstate passive
 * mode rewrites HWP_REQUEST.min on every update"). */
const char *plat_msr_owner(const struct platform *p, char *buf, size_t n);
/* Why MSR writes are refused: NULL when permitted, else the reason
 * ("kernel lockdown (integrity)", "msr.allow_writes=off"). */
const char *plat_msr_refused(const struct platform *p, char *buf, size_t n);

/* TAINT_* letters of @taint, like the kernel's print_tainted(). */
void plat_taint_letters(unsigned long taint, char *buf, size_t n);
#define PLAT_TAINT_CPU_OUT_OF_SPEC	2	/* 'S': set by every MSR write */

/* The taint warning for MSR backends: one line. */
const char *plat_msr_taint_note(void);
/* One line for `status`: CPU, cpufreq driver/mode/governor, EPP, msr
 * access, lockdown, taint, cpuidle driver/governor. */
void plat_summary(const struct platform *p, char *buf, size_t n);

#endif /* __BPFGOV_PLATFORM_H */
