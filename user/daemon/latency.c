// SPDX-License-Identifier: GPL-2.0
/*
 * Decision-to-write latency statistics: a ring of the most recent samples and
 * their p50/p99, selected once a second.
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

static void lat_put(struct lat_ring *r, __u64 ns)
{
	if (ns > r->max)
		r->max = ns;
	r->ns[r->n++ % LAT_SAMPLES] = ns;
}

/* One applied decision made at @ts: the whole delay, and its split at the
 * moment the loader was running to handle it (the later of its wake-up
 * and the decision itself, when it was already awake). */
void lat_add(struct gov *g, __u64 ts, __u32 cpu)
{
	__u64 now = mono_ns(), run = g->woke_ns > ts ? g->woke_ns : ts;

	if (now < run)
		now = run;
	met_observe_latency(g->met, now - ts);
	lat_put(&g->lat, now - ts);
	lat_put(&g->lat_wake, run - ts);
	lat_put(&g->lat_proc, now - run);
	if ((__u32)sched_getcpu() == cpu)
		g->same_cpu++;
	else
		g->cross_cpu++;
}

/* The @k-th smallest of v[0..n) (quickselect; v is reordered so that
 * v[0..k] hold the k+1 smallest): linear, where a sort is n log n. */
static __u64 kth_smallest(__u64 *v, long n, long k)
{
	long lo = 0, hi = n - 1;

	while (lo < hi) {
		__u64 pivot = v[lo + (hi - lo) / 2], t;
		long i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

/* p50/p99 over the retained samples, in us; selected again only when
 * samples came in since the last time (the status is written every
 * second, mostly with the same samples). */
void lat_pcts(const struct gov *g, struct lat_ring *r, double *p50, double *p99)
{
	long n = r->n < LAT_SAMPLES ? (long)r->n : LAT_SAMPLES, k99 = (n - 1) * 99 / 100;

	if (r->pct_n != r->n) {
		r->pct_n = r->n;
		r->p50 = r->p99 = 0;
		if (n) {
			memcpy(g->lat_sorted, r->ns, n * sizeof(*g->lat_sorted));
			r->p99 = kth_smallest(g->lat_sorted, n, k99) / 1000.0;
			r->p50 = kth_smallest(g->lat_sorted, k99 + 1, (n - 1) / 2) / 1000.0;
		}
	}
	*p50 = r->p50;
	*p99 = r->p99;
}
