// SPDX-License-Identifier: GPL-2.0
/*
 * sched_ext mode's BPF side (struct bpfs_ops, daemon.h): bpfgov as the
 * scheduler, through scx.c. The kernel may stop it on its own (an error,
 * the watchdog, sysrq): bpfs_ended() says so.
 */
#include <errno.h>
#include <string.h>
#include "bpfgov.h"
#include "log.h"
#include "scx.h"
#include "daemon.h"

static int scx_mode_open(struct gov *g, const struct bpf_object_open_opts *oo)
{
	struct scx_opts so = { .partial = g->o->scx_partial, .nr_cpus = g->nr_cpus,
			       .nr_states = g->cfg.nr_states,
			       .pin_root = g->o->pin_root, .btf_path = g->o->btf_path,
			       .topo_root = g->o->sysfs_root,
			       .idle_states = g->cfg.nr_states && !g->cfg.idle_state_fixed };
	struct scx_ctx *c = scx_open(&so);
	int err;

	if (!c) {
		err = -errno;
		pr_warn("cannot open the sched_ext scheduler: %s\n", strerror(-err));
		return err;
	}
	g->bmode = c;
	g->obj = scx_obj(c);
	return 0;
}

static int scx_mode_load(struct gov *g)
{
	return scx_load(g->bmode);
}

static int scx_mode_attach(struct gov *g)
{
	return scx_attach(g->bmode);
}

static void scx_mode_close(struct gov *g)
{
	scx_detach(g->bmode);
	scx_close(g->bmode);
}

static void scx_mode_say(struct gov *g)
{
	pr_info("scheduler: one run queue per last-level cache, %u\n", scx_nr_llcs(g->bmode));
}

/* The stamps are taken in select_cpu/enqueue, which run anyway: a flag
 * in the scheduler's mapped data turns them on. */
static void scx_mode_wake_sample(struct gov *g, bool on)
{
	scx_wake_sample(g->bmode, on);
}

static int scx_mode_timer_learner(struct gov *g, struct timer_learner *t)
{
	return scx_timer_learner(g->bmode, t);
}

static int scx_mode_ended(struct gov *g, char *why, size_t n)
{
	struct scx_exit ex;

	if (!scx_exited(g->bmode, &ex))
		return 0;
	scx_format_exit(&ex, why, n);
	return scx_exit_is_error(&ex) ? BPFS_EJECTED : BPFS_UNREGISTERED;
}

static int scx_mode_test_error(struct gov *g)
{
	return scx_trigger_test_error(g->bmode);
}

const struct bpfs_ops bpfs_scx_ops = {
	.name		= "scx",
	.open		= scx_mode_open,
	.load		= scx_mode_load,
	.attach		= scx_mode_attach,
	.close		= scx_mode_close,
	.say		= scx_mode_say,
	.wake_sample	= scx_mode_wake_sample,
	.timer_learner	= scx_mode_timer_learner,
	.ended		= scx_mode_ended,
	.test_error	= scx_mode_test_error,
};
