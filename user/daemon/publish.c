// SPDX-License-Identifier: GPL-2.0
/*
 * What the daemon tells: its state in the `loader_state` map (state.h),
 * written through the map's mapping, the summary line once a second, and
 * the metrics server. Publishing is stores into the mapping: no system
 * call, whoever reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"
#include "actuate.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "json_writer.h"
#include "log.h"
#include "metrics.h"
#include "platform.h"
#include "state.h"
#include "util.h"
#include "daemon.h"

/* The probe's facts: they do not change while we run, so they are
 * rendered once. A JSON object that does not fit is left out (status
 * then shows none), never cut. */
static void pub_platform(struct gov *g, struct bpfgov_loader_state *st)
{
	const struct platform *p = act_platform(g->act);
	json_writer_t *w;
	char *doc = NULL;
	size_t len = 0;
	FILE *f;

	if (!p)
		return;
	plat_summary(p, st->platform_summary, sizeof(st->platform_summary));
	f = open_memstream(&doc, &len);
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
	while (len && doc[len - 1] == '\n')
		doc[--len] = '\0';
	if (len < sizeof(st->platform_json))
		STATE_SET_STR(st->platform_json, doc);
	else
		pr_debug("the platform's facts (%zu bytes) do not fit the state map\n", len);
	free(doc);
}

/* What does not change while we run. */
static void pub_fill(struct gov *g, struct bpfgov_loader_state *st)
{
	st->pid = g->pid;
	st->mode = g->mode;
	st->nr_cpus = g->nr_cpus < BPFGOV_MAX_CPUS ? g->nr_cpus : BPFGOV_MAX_CPUS;
	st->dry_run = g->o->dry_run;
	st->floor_applied = !g->o->no_floor;
	st->idle_applied = !g->o->no_idle;
	STATE_SET_STR(st->idle_driver, g->idle_driver);
	STATE_SET_STR(st->idle_governor, act_idle_governor(g->act));
	cfg_state_put(st, &g->gc);
	pub_platform(g, st);
}

/* The backend: a write refused at run time (EPERM) changes it. */
static void pub_backend(struct gov *g, struct bpfgov_loader_state *st)
{
	st->taints_kernel = act_taints(g->act);
	STATE_SET_STR(st->backend, act_backend_name(act_backend(g->act)));
	STATE_SET_STR(st->backend_reason, act_reason(g->act));
	STATE_SET_STR(st->epp, act_epp(g->act));
	STATE_SET_STR(st->missing, act_missing(g->act));
}

/* The loader's CPU time, all its threads (a system call: once a second). */
static __u64 cpu_time_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The loop's counters, with @cpus the backend and what the actuator
 * applied per CPU, and with @all the loader's CPU time. */
static void pub_copy(struct gov *g, struct bpfgov_loader_state *st, bool cpus, bool all)
{
	struct act_cpu_info ai;
	__u32 cpu;

	st->decisions = g->decisions;
	st->floor_decisions = g->floor_dec;
	st->pick_decisions = g->pick_dec;
	st->actuation_errors = g->act_errors;
	st->seq_gaps = g->seq_gaps;
	st->loop_wakeups = g->wakeups;
	st->scx_restarts = g->scx_restarts;
	st->idle_cpu_writes = g->idle_cpu_writes;
	st->idle_cpu_writes_maybe = g->idle_cpu_writes_maybe;
	st->deferred_floor_changes = g->deferred;
	st->held_reasserts = g->held_reasserts;
	st->held_forced = g->held_forced;
	st->held_floor_waits = g->held_floor_waits;
	st->held_applied_at_wake = g->held_applied;
	st->held_applied_within_2ms = g->held_wake_2ms;
	st->held_apply_max_ns = g->held_wake_ns_max;
	st->reapplies = g->reapplies;
	if (cpus)
		pub_backend(g, st);
	if (all)
		st->loader_cpu_ns = cpu_time_ns();
	for (cpu = 0; cpus && cpu < st->nr_cpus; cpu++) {
		struct bpfgov_loader_cpu *c = &st->cpu[cpu];

		if (act_cpu_info(g->act, cpu, &ai))
			continue;
		c->writes = ai.writes;
		c->reasserts = ai.reasserts;
		c->errors = ai.errors;
		c->driver_rewrites = ai.driver_rewrites;
		c->driver_races = ai.driver_races;
		c->online = ai.online;
		c->hw_min = ai.hw_min;
		c->hw_lowest = ai.hw_lowest;
		c->hw_highest = ai.hw_highest;
		c->last_floor = ai.last_floor;
		c->last_pick = ai.last_pick;
	}
}

/* After the first load (the BPF side mapped the map): what only the
 * loader knows, once. */
void pub_open(struct gov *g)
{
	if (!g->st)
		return;
	pub_fill(g, g->st);
	pub_copy(g, g->st, true, true);
}

void pub_close(struct gov *g)
{
	state_unmap(g->st);
	g->st = NULL;
	if (g->st_fd >= 0)
		close(g->st_fd);
	g->st_fd = -1;
}

/*
 * The counters, after each round of the loop: stores into the mapping.
 * The per-CPU part (a copy from the actuator per CPU) when something was
 * applied, failed or re-applied since the last time, or with @all (once
 * a second: re-asserts, hotplug).
 */
void pub_sync(struct gov *g, bool all)
{
	__u64 seen = g->decisions + g->act_errors + g->reapplies;

	if (!g->st)
		return;
	pub_copy(g, g->st, all || seen != g->st_seen, all);
	g->st_seen = seen;
	g->st->running = 1;
}

/* --report: the state as `status --json` shows it under "actuator",
 * rendered at exit (from the map's mapping, or without one when the first
 * load failed). */
int write_json_file(struct gov *g, const char *path)
{
	struct bpfgov_loader_state *st = g->st;
	char *doc = NULL;
	json_writer_t *w;
	size_t len = 0;
	FILE *f;
	int err;

	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return -ENOMEM;
		pub_fill(g, st);
	}
	pub_copy(g, st, true, true);
	f = open_memstream(&doc, &len);
	err = f ? 0 : -errno;
	if (f) {
		w = jsonw_new(f);
		if (w) {
			state_json(w, st);
			jsonw_destroy(&w);
		} else {
			err = -ENOMEM;
		}
		if (fclose(f) && !err)
			err = -ENOMEM;
	}
	if (!err)
		err = write_buf_atomic(path, 0600, doc, len);
	free(doc);
	if (st != g->st)
		free(st);
	return err;
}

/* One line a second: what the governor decided, per CPU (first 8). */
void print_summary(struct gov *g, double t, __u64 dec_delta)
{
	const struct bpfgov_loader_state *st = g->st;
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
	       (unsigned long long)drops, st ? st->backend : "none",
	       st && st->dry_run ? " (dry-run)" : "");
	fflush(stdout);
}

/* The /metrics server when asked for: its thread starts here, before the
 * event loop turns real-time. It reads the pinned maps at each scrape. */
int start_metrics(struct gov *g)
{
	if (!g->o->metrics_listen)
		return 0;
	return met_server_start(&g->met_srv, g->o->metrics_listen, g->o->pin_root);
}
