/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus / OpenMetrics exposition of a running instance, and the
 * counters only the loader knows (actuation), shared through a small
 * mmap'ed file in the run directory. One module renders the text; the HTTP
 * server in `start` (--metrics-listen) and `govloader metrics` both use it.
 *
 * The event loop only bumps plain counters in the shared page (the latency
 * histogram on each applied decision, the per-CPU actuation counters once a
 * second). Everything else is read from the pinned maps when scraped.
 * User space only.
 */
#ifndef __BPFGOV_METRICS_H
#define __BPFGOV_METRICS_H

#ifdef __BPF__
#error "user/state/metrics.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define GOV_METRICS_FILE	"metrics"	/* in the run directory, 0600 */
#define MET_MAGIC		0x4d564f47u	/* "GOVM" */
#define MET_VERSION		2
#define MET_LAT_BUCKETS		13		/* finite upper bounds, see metrics.c */
#define MET_NAME_LEN		32

#ifndef BPFGOV_VERSION
#define BPFGOV_VERSION		"0.1.0"
#endif

struct actuator;

struct met_cpu {
	__u64 writes;		/* successful actuation writes */
	__u64 reasserts;
	__u64 errors;
	__u64 driver_rewrites;	/* the driver rewrote the floor register under bpfgov */
	__u32 hw_min;		/* applied min: backend units (kHz for cpufreq) */
	__u32 online;
};

/* The shared page. Single writer (the event loop); readers load each field
 * with a relaxed atomic load; histogram totals are derived from the buckets
 * so a scrape is always self-consistent. */
struct met_shared {
	__u32 magic, version, size, nr_cpus;
	__u32 pid;
	__u32 follow_ppd;			/* 1 when following power-profiles-daemon */
	char mode[MET_NAME_LEN];
	char backend[MET_NAME_LEN];
	char profile[MET_NAME_LEN];		/* bpfgov profile in force */
	char ppd_profile[MET_NAME_LEN];		/* PPD's active profile ("" unknown) */
	__u64 lat_bucket[MET_LAT_BUCKETS + 1];	/* last one: above every bound */
	__u64 lat_sum_ns;
	__u64 act_errors;
	__u64 profile_switches;
	struct met_cpu cpu[];
};

/* Loader side: create/truncate <run_dir>/metrics for @nr_cpus CPUs. */
struct met_shared *met_create(const char *run_dir, int nr_cpus);
void met_destroy(struct met_shared *m, const char *run_dir);	/* unmap, unlink */
/* Hot path: one applied decision took @ns (decision to completed write). */
void met_observe_latency(struct met_shared *m, __u64 ns);
void met_count_error(struct met_shared *m);
/* Once a second: copy the actuator's per-CPU counters. */
void met_update_actuator(struct met_shared *m, const struct actuator *a);
void met_set_str(char *dst, const char *src);	/* field of MET_NAME_LEN */

/* Reader side: map <run_dir>/metrics read-only. NULL when absent/invalid. */
const struct met_shared *met_open(const char *run_dir, size_t *len);
void met_close(const struct met_shared *m, size_t len);

enum met_format {
	MET_PROMETHEUS = 0,	/* text/plain; version=0.0.4 */
	MET_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};
const char *met_content_type(enum met_format f);

/*
 * Render the exposition: per-CPU state from the maps pinned under
 * @pin_root, loader counters from @m (may be NULL: only what the maps
 * show). @up says whether an instance is running. Returns 0 or -errno.
 */
int met_render(FILE *out, enum met_format fmt, const char *pin_root,
	       const struct met_shared *m, bool up);
/* The same into a malloc'ed buffer (*buf, *len); 0 or -errno. */
int met_render_buf(char **buf, size_t *len, enum met_format fmt, const char *pin_root,
		   const struct met_shared *m, bool up);

/* --metrics-listen: serve met_render over HTTP (user/daemon/http.c). */
struct met_server;
/* Parse "PORT", "ADDR:PORT" or "[V6ADDR]:PORT" (PORT alone binds
 * 127.0.0.1). 0 or -EINVAL. */
int met_listen_parse(const char *s, void *sockaddr_storage, unsigned int *len);
int met_server_start(struct met_server **out, const char *listen, const char *pin_root,
		     const struct met_shared *m);
void met_server_stop(struct met_server *s);

#endif /* __BPFGOV_METRICS_H */
