// SPDX-License-Identifier: GPL-2.0
/* Decision-to-write latency, into the state map's histograms. */
#include <sched.h>
#include "bpfgov.h"
#include "common.h"
#include "state.h"
#include "util.h"
#include "daemon.h"

/* One applied decision made at @ts: the whole delay, and its split at the
 * moment the loader was running to handle it (the later of its wake-up
 * and the decision itself, when it was already awake). */
void lat_add(struct gov *g, __u64 ts, __u32 cpu)
{
	__u64 now = mono_ns(), run = g->woke_ns > ts ? g->woke_ns : ts;
	struct bpfgov_loader_state *st = g->st;

	if (!st)
		return;
	if (now < run)
		now = run;
	state_lat_add(&st->lat, now - ts);
	state_lat_add(&st->lat_wake, run - ts);
	state_lat_add(&st->lat_proc, now - run);
	if ((__u32)sched_getcpu() == cpu)
		st->on_deciding_cpu++;
	else
		st->on_other_cpu++;
}
