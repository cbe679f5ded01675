// SPDX-License-Identifier: GPL-2.0
/*
 * The application of a decision: a floor written now, or held until an idle CPU
 * runs (no actuation wakes a sleeping CPU), and the idle pick.
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
#include "log.h"
#include "metrics.h"
#include "platform.h"
#include "scx.h"
#include "tunables.h"
#include "util.h"
#include "daemon.h"

/* The exception to holding a floor for an idle CPU: a raise the policy
 * needs before its predicted wake-up (expected idle nearly over). */
#define WAKE_LEAD_NS	2000000ull

/* Idle now (cpu_state): no task runs and an idle period is open. */
bool cpu_idle(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s)
{
	return !read_cpu(g, cpu, s) && !s->busy && s->idle_since_ns;
}

static bool raise_before_wake(const struct gov *g, __u32 cpu, __u32 floor,
			      const struct bpfgov_cpu_state *s)
{
	struct act_cpu_info ai = {};
	__u64 now = mono_ns();

	__u64 wake = s->idle_since_ns + s->expected_idle_ns;

	if (!s->expected_idle_ns || act_cpu_info(g->act, cpu, &ai) || floor <= ai.last_floor)
		return false;
	/* predicted to wake within the lead; past its prediction it is no
	 * longer a predicted wake, and the raise waits like the rest */
	return now < wake && now + WAKE_LEAD_NS >= wake;
}

/*
 * No wake-ups by actuation: an MSR write and a cpufreq limit change run on
 * the target CPU (an IPI). A floor for a CPU that sleeps waits until it runs
 * again (its own events, or the loop's check, apply it); only a raise
 * needed before a predicted wake goes through. Writes that still reached
 * an idle CPU are counted. 1 when the floor is held, 0 when applied.
 */
int floor_apply(struct gov *g, __u32 cpu, __u32 floor)
{
	struct bpfgov_cpu_state s;
	/* running here, the loader keeps its own CPU busy: no map lookup */
	bool idle = (__u32)sched_getcpu() != cpu && cpu_idle(g, cpu, &s), prewake = false;
	__u64 w0 = act_writes(g->act, cpu);
	int err;

	if (idle && !(prewake = raise_before_wake(g, cpu, floor, &s))) {
		g->pend[cpu] = true;
		g->pend_floor[cpu] = floor;
		g->deferred++;
		return 1;
	}
	g->pend[cpu] = false;
	err = act_set_floor(g->act, cpu, floor);
	if (idle && act_writes(g->act, cpu) != w0) {
		g->idle_cpu_writes++;
		g->prewake_raises += prewake;
	}
	return err;
}

/* Held floors of CPUs that run again. */
void floor_flush(struct gov *g)
{
	struct bpfgov_cpu_state s;

	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++)
		if (g->pend[cpu] && !cpu_idle(g, cpu, &s) &&
		    floor_apply(g, cpu, g->pend_floor[cpu]) < 0)
			g->act_errors++;
}

int on_decision(void *ctx, void *data, size_t size)
{
	const struct bpfgov_event *e = data;
	struct gov *g = ctx;
	int err = 0;

	if (size < sizeof(*e) || e->cpu >= (__u32)g->nr_cpus)
		return 0;
	g->decisions++;
	if (g->last_seq[e->cpu] && e->seq != g->last_seq[e->cpu] + 1)
		g->seq_gaps++;
	g->last_seq[e->cpu] = e->seq;
	if (e->kind == BPFGOV_EV_FLOOR) {
		g->floor_dec++;
		if (g->o->no_floor)
			return 0;
		err = floor_apply(g, e->cpu, e->floor);
		if (err > 0)
			return 0;	/* held for a sleeping CPU: not a write now */
	} else if (e->kind == BPFGOV_EV_PICK) {
		g->pick_dec++;
		if (g->pend[e->cpu] && !g->o->no_floor)	/* the CPU's own event */
			floor_flush(g);
		if (g->o->no_idle)
			return 0;
		err = act_set_idle_poll(g->act, e->cpu, e->idle_pick, e->arg0 == 1, &g->cfg);
	} else {
		return 0;
	}
	if (err) {
		g->act_errors++;
		met_count_error(g->met);
	} else
		lat_add(g, e->ts_ns, e->cpu);
	pr_debug("cpu%u %s %s util=%u floor=%u pick=%u\n", e->cpu, ev_kind_name(e->kind),
		 ev_reason_name(e->reason), e->util, e->floor, e->idle_pick);
	return 0;
}

/* A CPU's state as the BPF programs keep it: from the mapped array (as a
 * lookup, a copy that may straddle an update), else by a lookup. */
int read_cpu(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s)
{
	if (g->cpu_mm && cpu < (__u32)g->nr_cpus) {
		memcpy(s, (const char *)g->cpu_mm + cpu * CPU_STATE_STRIDE, sizeof(*s));
		return 0;
	}
	return bpf_map_lookup_elem(g->cpu_fd, &cpu, s) ? -errno : 0;
}
