/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `govlab validate` measures on the machine: delivered frequency
 * (APERF/MPERF, else scaling_cur_freq), energy (powercap RAPL domains, with
 * wrap-around), and a snapshot of every knob bpfgov may write so the run
 * can prove it left them as found. Each source says why it is missing.
 * User space only.
 */
#ifndef __BPFGOV_MEASURE_H
#define __BPFGOV_MEASURE_H

#ifdef __BPF__
#error "user/lab/measure.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include "platform.h"

#define MSR_IA32_MPERF	0xe7
#define MSR_IA32_APERF	0xe8

enum freq_kind { FREQ_NONE = 0, FREQ_APERF_MPERF, FREQ_CUR_FREQ };

struct freq_src {
	enum freq_kind kind;
	char why[256];		/* FREQ_NONE: why nothing; else what was skipped */
	__u32 base_khz;		/* APERF/MPERF: MPERF's rate (base frequency) */
	__u32 min_khz;		/* the lowest frequency (cpuinfo_min_freq), 0 unknown */
	__u32 max_khz;
	int nr_cpus;
	int *fd;		/* per CPU msr fd (APERF/MPERF) */
	bool is_file;
	char *sysfs_root;
};

struct freq_sample {
	__u64 aperf, mperf;	/* APERF/MPERF */
	__u32 cur_khz;		/* scaling_cur_freq */
	bool ok;
};

int freq_open(struct freq_src *f, const struct plat_roots *r, int nr_cpus);
/* Read @cpu's counters. Reading another CPU's MSR runs on that CPU (an
 * IPI): callers sample the CPU they run on, or a busy one. */
int freq_sample(const struct freq_src *f, int cpu, struct freq_sample *s);
/* Delivered kHz between two samples (0 when unknown). */
__u32 freq_khz(const struct freq_src *f, const struct freq_sample *a,
	       const struct freq_sample *b);
void freq_close(struct freq_src *f);
const char *freq_kind_name(enum freq_kind k);

#define ENERGY_MAX_DOMAINS	8
struct energy_dom {
	char name[64];		/* package-0, core, dram, psys, ... */
	char dir[4096];
	__u64 max_uj;		/* max_energy_range_uj: the counter wraps past it */
	__u64 last_uj;
	__u64 total_uj;		/* accumulated across wraps since energy_open */
	__u32 wraps;		/* wrap-arounds seen */
};

struct energy_src {
	int nr;
	struct energy_dom dom[ENERGY_MAX_DOMAINS];
	char why[256];		/* nr == 0: why */
};

int energy_open(struct energy_src *e, const struct plat_roots *r);
/* Fold the counters' progress into total_uj (call at least once per wrap
 * period; every workload does at its start and end). */
void energy_update(struct energy_src *e);
/* Progress of one counter from @prev to @now with wrap at @max. */
__u64 energy_delta(__u64 prev, __u64 now, __u64 max);
/* Sum of total_uj over the domains whose name starts with @prefix (every
 * package-N for "package"), or -1 when there is none. */
long long energy_total(const struct energy_src *e, const char *prefix);
/* The domain prefix a comparison uses: "package" where a package domain
 * exists, else the first domain's name; NULL without RAPL. */
const char *energy_main(const struct energy_src *e);

/* Everything bpfgov may write (per-CPU scaling_min_freq, EPP, PM QoS,
 * stateK/disable, the request MSR), captured as bytes. */
struct knob_snap;
struct knob_snap *snap_take(const struct plat_roots *r, int nr_cpus);
/* Number of knobs that differ now, listing up to @n bytes of their names
 * in @diff. */
int snap_compare(const struct knob_snap *s, char *diff, size_t n);
int snap_count(const struct knob_snap *s);
void snap_free(struct knob_snap *s);

#endif /* __BPFGOV_MEASURE_H */
