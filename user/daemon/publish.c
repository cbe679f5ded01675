// SPDX-License-Identifier: GPL-2.0
/*
 * What the daemon tells: the status document (written when `status` asks), the
 * summary line once a second, and the metrics server.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"
#include "bpfgov_tunables.h"
#include "actuate.h"
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "kfeat.h"
#include "json_writer.h"
#include "log.h"
#include "metrics.h"
#include "platform.h"
#include "scx.h"
#include "tunables.h"
#include "util.h"
#include "daemon.h"

/* The probe's facts, for `status`: they do not change while we run, so
 * they are rendered once, not at each status request. */
void render_platform(struct gov *g)
{
	const struct platform *p = act_platform(g->act);
	json_writer_t *w;
	size_t len = 0;
	FILE *f;

	if (!p)
		return;
	plat_summary(p, g->plat_line, sizeof(g->plat_line));
	f = open_memstream(&g->plat_json, &len);
	if (!f)
		return;
	w = jsonw_new(f);
	if (w) {
		jsonw_start_object(w);
		plat_json_fields(w, p, g->o->msr_root, NULL);
		jsonw_end_object(w);
		jsonw_destroy(&w);
	}
	fclose(f);
	while (len && g->plat_json[len - 1] == '\n')
		g->plat_json[--len] = '\0';
}

static void status_platform(json_writer_t *w, const struct gov *g)
{
	if (!g->plat_json)
		return;
	jsonw_string_field(w, "platform_summary", g->plat_line);
	jsonw_name(w, "platform");
	jsonw_raw(w, g->plat_json);
}

static void lat_json(json_writer_t *w, const struct gov *g, struct lat_ring *r)
{
	double p50, p99;

	lat_pcts(g, r, &p50, &p99);
	jsonw_uint_field(w, "samples", r->n);
	jsonw_float_field_fmt(w, "p50", "%.1f", p50);
	jsonw_float_field_fmt(w, "p99", "%.1f", p99);
	jsonw_float_field_fmt(w, "max", "%.1f", r->max / 1000.0);
}

/* Actuator and counters as JSON: the status file and --report. */
static void write_status_json(struct gov *g, FILE *f)
{
	json_writer_t *w = jsonw_new(f);
	__u64 drv_rewrites = 0, drv_races = 0;
	struct act_cpu_info ai;
	int cpu;

	if (!w)
		return;
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		memset(&ai, 0, sizeof(ai));
		act_cpu_info(g->act, cpu, &ai);
		drv_rewrites += ai.driver_rewrites;
		drv_races += ai.driver_races;
	}
	jsonw_start_object(w);
	jsonw_int_field(w, "pid", g->pid);
	jsonw_string_field(w, "mode", mode_name(g->mode));
	jsonw_string_field(w, "backend", act_backend_name(act_backend(g->act)));
	jsonw_string_field(w, "backend_reason", act_reason(g->act));
	jsonw_bool_field(w, "taints_kernel", act_taints(g->act));
	jsonw_uint_field(w, "idle_cpu_writes", g->idle_cpu_writes);
	jsonw_uint_field(w, "idle_cpu_writes_maybe", g->idle_cpu_writes_maybe);
	jsonw_uint_field(w, "held_applied_at_wake", g->held_applied);
	jsonw_uint_field(w, "held_applied_within_2ms", g->held_wake_2ms);
	jsonw_float_field_fmt(w, "held_apply_max_us", "%.1f", g->held_wake_ns_max / 1000.0);
	jsonw_uint_field(w, "deferred_floor_changes", g->deferred);
	jsonw_uint_field(w, "reapplies", g->reapplies);
	jsonw_uint_field(w, "floor_driver_rewrites", drv_rewrites);
	jsonw_uint_field(w, "floor_driver_races", drv_races);
	jsonw_string_field(w, "epp", act_epp(g->act));
	status_platform(w, g);
	jsonw_bool_field(w, "dry_run", g->o->dry_run);
	jsonw_bool_field(w, "floor_applied", !g->o->no_floor);
	jsonw_bool_field(w, "idle_applied", !g->o->no_idle);
	jsonw_string_field(w, "idle_driver", g->idle_driver);
	jsonw_string_field(w, "missing", act_missing(g->act));	/* NULL: null */
	jsonw_uint_field(w, "decisions", g->decisions);
	jsonw_uint_field(w, "floor_decisions", g->floor_dec);
	jsonw_uint_field(w, "pick_decisions", g->pick_dec);
	jsonw_uint_field(w, "actuation_errors", g->act_errors);
	jsonw_uint_field(w, "seq_gaps", g->seq_gaps);
	jsonw_int_field(w, "scx_restarts", g->scx_restarts);
	jsonw_name(w, "latency_us");
	jsonw_start_object(w);
	lat_json(w, g, &g->lat);
	jsonw_name(w, "wake");		/* decision -> loader running */
	jsonw_start_object(w);
	lat_json(w, g, &g->lat_wake);
	jsonw_end_object(w);
	jsonw_name(w, "processing");	/* loader running -> write completed */
	jsonw_start_object(w);
	lat_json(w, g, &g->lat_proc);
	jsonw_end_object(w);
	jsonw_uint_field(w, "on_deciding_cpu", g->same_cpu);
	jsonw_uint_field(w, "on_other_cpu", g->cross_cpu);
	jsonw_end_object(w);
	jsonw_name(w, "cpus");
	jsonw_start_array(w);
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		memset(&ai, 0, sizeof(ai));
		act_cpu_info(g->act, cpu, &ai);
		jsonw_start_object(w);
		jsonw_int_field(w, "cpu", cpu);
		jsonw_bool_field(w, "online", ai.online);
		jsonw_uint_field(w, "hw_min", ai.hw_min);
		jsonw_uint_field(w, "hw_lowest", ai.hw_lowest);
		jsonw_uint_field(w, "hw_highest", ai.hw_highest);
		jsonw_uint_field(w, "last_floor", ai.last_floor);
		jsonw_uint_field(w, "last_pick", ai.last_pick);
		jsonw_uint_field(w, "writes", ai.writes);
		jsonw_uint_field(w, "reasserts", ai.reasserts);
		jsonw_uint_field(w, "errors", ai.errors);
		jsonw_uint_field(w, "driver_rewrites", ai.driver_rewrites);
		jsonw_uint_field(w, "driver_races", ai.driver_races);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

static int fill_status_json(FILE *f, void *g)
{
	write_status_json(g, f);
	return 0;
}

int write_json_file(struct gov *g, const char *path)
{
	return write_file_atomic(path, 0600, false, fill_status_json, g);
}

/*
 * The status file: rendered in memory and written whole, by a rename (four
 * system calls: create, write, close, rename). At start, then when a
 * reader asks (GOV_STATUS_REQ); @force writes it even unchanged, since
 * the reader waits for a new file. Without the request FIFO, once a second
 * and only when it differs from what the file holds.
 */
void publish_status(struct gov *g, bool force)
{
	char path[PATH_MAX], *doc = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&doc, &len);
	if (!f)
		return;
	write_status_json(g, f);
	if (fclose(f) || !doc) {
		free(doc);
		return;
	}
	if (!force && g->status_doc && len == g->status_len && !memcmp(doc, g->status_doc, len)) {
		free(doc);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_FILE);
	err = write_buf_atomic(path, 0600, doc, len);
	if (err) {
		pr_debug("cannot write %s: %s\n", path, strerror(-err));
		free(doc);
		return;
	}
	free(g->status_doc);
	g->status_doc = doc;
	g->status_len = len;
}

/* One line a second: what the governor decided, per CPU (first 8). */
void print_summary(struct gov *g, double t, __u64 dec_delta)
{
	struct bpfgov_cpu_state s;
	__u64 drops = 0;
	int cpu;

	printf("[%6.1fs] %s", t, mode_name(g->mode));
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		if (bpfs_read_cpu(g, cpu, &s))
			continue;
		drops += s.rb_drops;
		if (cpu < 8)
			printf(" | cpu%d util %4u floor %4u pick %u", cpu,
			       gov_util_now(&s, &g->cfg, mono_ns()), s.floor, s.idle_pick);
	}
	if (g->nr_cpus > 8)
		printf(" | ...");
	printf(" | %llu dec/s drops %llu act %s%s\n", (unsigned long long)dec_delta,
	       (unsigned long long)drops, act_backend_name(act_backend(g->act)),
	       g->o->dry_run ? " (dry-run)" : "");
	fflush(stdout);
}

/* GOV_STATUS_REQ: a FIFO that `status` writes one byte to, to have the
 * status file written now. Opened for reading and writing, so that it has
 * a writer at all times (no hang-up to report when a reader's end closes).
 * Without one (a file system without FIFOs) the file is written every
 * second instead. */
void status_req_open(struct gov *g)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_REQ);
	unlink(path);
	if (mkfifo(path, 0600)) {
		pr_debug("cannot create %s (%s): the status file is written every second\n",
			 path, strerror(errno));
		return;
	}
	g->req_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (g->req_fd < 0) {
		pr_debug("cannot open %s (%s): the status file is written every second\n",
			 path, strerror(errno));
		unlink(path);
	}
}

void status_req_close(struct gov *g)
{
	char path[PATH_MAX];

	if (g->req_fd < 0)
		return;
	close(g->req_fd);
	g->req_fd = -1;
	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_REQ);
	unlink(path);
}

/* Into each new ring buffer's epoll set (a scheduler reload makes one). */
void status_req_watch(struct gov *g)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = STATUS_REQ_TAG };

	if (g->req_fd >= 0 && epoll_ctl(g->rb_epfd, EPOLL_CTL_ADD, g->req_fd, &ev)) {
		pr_debug("cannot watch %s (%s): the status file is written every second\n",
			 GOV_STATUS_REQ, strerror(errno));
		status_req_close(g);
	}
}

/* The shared counters, and the /metrics server when asked for: its thread
 * starts here, before the event loop turns real-time. */
int start_metrics(struct gov *g)
{
	g->met = met_create(gov_run_dir(), g->nr_cpus);
	if (!g->met) {
		pr_warn("cannot create %s/%s: %s\n", gov_run_dir(), GOV_METRICS_FILE, strerror(errno));
		return -errno;
	}
	met_set_str(g->met->mode, mode_name(g->mode));
	met_set_str(g->met->backend, act_backend_name(act_backend(g->act)));
	met_set_str(g->met->profile, g->gc.profile);
	if (!g->o->metrics_listen)
		return 0;
	return met_server_start(&g->met_srv, g->o->metrics_listen, g->o->pin_root, g->met);
}
