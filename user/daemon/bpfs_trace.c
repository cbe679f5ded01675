// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint mode's BPF side (struct bpfs_ops, daemon.h): the
 * bpfgov_trace skeleton, whose tp_btf programs observe the kernel's own
 * scheduler.
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "bpfgov_trace.skel.h"
#include "log.h"
#include "scx.h"
#include "daemon.h"

static struct bpfgov_trace *skel(const struct gov *g)
{
	return g->bmode;
}

static int trace_open(struct gov *g, const struct bpf_object_open_opts *oo)
{
	struct bpfgov_trace *t = bpfgov_trace__open_opts(oo);
	int err;

	if (!t) {
		err = -errno;
		pr_warn("cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	t->rodata->nr_cpus = g->nr_cpus;
	/* the idle table's length, a constant the verifier then knows */
	t->rodata->pol_nr_states_ro = g->cfg.nr_states;
	g->bmode = t;
	g->obj = t->obj;
	return 0;
}

static int trace_load(struct gov *g)
{
	return bpfgov_trace__load(skel(g));
}

static int trace_attach(struct gov *g)
{
	return bpfgov_trace__attach(skel(g));
}

static void trace_close(struct gov *g)
{
	bpfgov_trace__destroy(skel(g));
}

/* sched_waking stamps for the sampled seconds alone: a flag in the
 * program's data (bpfgov_trace.bpf.c), never a detach, which would patch
 * kernel text and interrupt every CPU. */
static void trace_wake_sample(struct gov *g, bool on)
{
	struct bpfgov_trace *t = skel(g);

	if (t->data)
		((volatile struct bpfgov_trace__data *)t->data)->trace_wake_sample = on;
}

static int trace_timer_learner(struct gov *g, struct timer_learner *tl)
{
	struct bpfgov_trace *t = skel(g);

	if (!t->bss)
		return -ENOENT;
	tl->prog = t->progs.bpfgov_timer_base;
	tl->link = &t->links.bpfgov_timer_base;
	tl->bases = (const unsigned long long *)t->bss->timer_base;
	return 0;
}

const struct bpfs_ops bpfs_trace_ops = {
	.name		= "trace",
	.open		= trace_open,
	.load		= trace_load,
	.attach		= trace_attach,
	.close		= trace_close,
	.wake_sample	= trace_wake_sample,
	.timer_learner	= trace_timer_learner,
};
