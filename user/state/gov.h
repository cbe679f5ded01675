/* SPDX-License-Identifier: GPL-2.0 */
/* What the daemon and its clients share: the status file, events as text,
 * map snapshots (inspect.c). User space only. */
#ifndef __BPFGOV_GOV_H
#define __BPFGOV_GOV_H

#ifdef __BPF__
#error "user/state/gov.h is for user space only"
#endif

#include <stdio.h>
#include <sys/types.h>
#include "bpfgov.h"


/* One record as text or JSON (tail.c). */
void print_event(FILE *f, const struct bpfgov_event *e, int json);

/* inspect.c: what stop, status, tail and dump share. */
struct snapshot {
	int nr_cpus;
	struct bpfgov_control ctl;
	struct bpfgov_config cfg;
	struct bpfgov_cpu_state *cpus;	/* nr_cpus entries, the caller frees */
	struct bpfgov_loader_state *ld;	/* the loader's state, the caller frees */
};

/* A CPU's smoothed utilization (0..1024) as of @now (CLOCK_MONOTONIC),
 * the open segment included, as the policy would close it then: the map's
 * util is as of the CPU's last scheduler event, stale on a CPU that idles.
 * What `status` and start's summary line both show. */
__u32 gov_util_now(const struct bpfgov_cpu_state *s, const struct bpfgov_config *c, __u64 now);
/* One read of the pinned maps (cpu_state, tunables, control,
 * loader_state); -errno. */
int snapshot_read(const char *pin_root, struct snapshot *s);
/* Is a running owner behind these pins? Explains what is wrong if not:
 * 0, EXIT_NOT_RUNNING or 1. */
int check_running(const char *pin_root, pid_t *owner);

#endif
