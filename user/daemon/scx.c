// SPDX-License-Identifier: GPL-2.0
/*
 * sched_ext mode, loader side (see scx.h).
 *
 * The struct_ops map is attached here with bpf_map__attach_struct_ops()
 * rather than through the skeleton: the bpftool 7.5 skeleton's automatic
 * struct_ops attach needs libbpf >= 1.5 and scripts/fix-skel.sh removes it.
 *
 * Kernel differences are handled before load with the scx project's own
 * helpers (include/scx/compat.h): the enums the BPF side reads are filled
 * from the running kernel's BTF (SCX_ENUM_INIT), ops flags are read from
 * it too (a flag the kernel lacks reads as 0; SWITCH_PARTIAL missing is an
 * error, it was asked for explicitly), and ops members the kernel's struct
 * sched_ext_ops lacks are cleared (libbpf skips zeroed members it cannot
 * find) and their programs not loaded.  The exit info is the scx
 * user_exit_info record (UEI_*).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <scx/common.h>
#include "scx.h"
#include "bpfgov.h"		/* the types of the skeleton's globals */
#include "topo.h"
#include "util.h"
#include "bpfgov_scx.skel.h"

#define SCX_SYSFS		"/sys/kernel/sched_ext"
#define KERNEL_BTF		"/sys/kernel/btf/vmlinux"

struct scx_ctx {
	struct bpfgov_scx *skel;
	struct bpf_link *link;
	bool loaded;
};

int scx_state(char *buf, size_t len)
{
	return read_line(SCX_SYSFS "/state", buf, len);
}

int scx_ops_name(char *buf, size_t len)
{
	int err = read_line(SCX_SYSFS "/root/ops", buf, len);

	/* Older kernels only have the top-level ops file. */
	if (err == -ENOENT)
		err = read_line(SCX_SYSFS "/ops", buf, len);
	if (err == -ENOENT) {
		buf[0] = 0;
		return 0;
	}
	return err;
}

static int wait_state(const char *want, int timeout_ms)
{
	char st[32];

	for (int waited = 0;; waited += 10) {
		if (!scx_state(st, sizeof(st)) && !strcmp(st, want))
			return 0;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

int scx_supported(void)
{
	/* compat.h's BTF helpers abort without a kernel BTF: check first. */
	if (access(SCX_SYSFS "/state", R_OK) || access(KERNEL_BTF, R_OK))
		return 0;
	return __COMPAT_struct_has_field("sched_ext_ops", "dispatch");
}

struct scx_ctx *scx_open(const struct scx_opts *o)
{
	struct scx_opts dflt = { 0 };
	struct scx_ctx *c;
	unsigned int ncpu;
	long hseq;
	int err = 0;

	if (!o)
		o = &dflt;
	if (!scx_supported()) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = o->pin_root,
			    .btf_custom_path = o->btf_path);

		c->skel = bpfgov_scx__open_opts(&oo);
	}
	if (!c->skel) {
		err = -errno;
		goto fail;
	}
	/* What SCX_OPS_OPEN() does, without its exit() on failure. */
	hseq = scx_hotplug_seq();
	if (hseq >= 0)
		c->skel->struct_ops.bpfgov_ops->hotplug_seq = hseq;
	SCX_ENUM_INIT(c->skel);

	/* Same sizing as tracepoint mode, so pinned maps are interchangeable. */
	ncpu = o->nr_cpus ? o->nr_cpus : (unsigned int)libbpf_num_possible_cpus();
	c->skel->rodata->nr_cpus = ncpu;
	/* the idle table's length (0: the largest), a constant the verifier knows */
	c->skel->rodata->pol_nr_states_ro = o->nr_states ? o->nr_states : BPFGOV_MAX_STATES;
	bpf_map__set_max_entries(c->skel->maps.cpu_state, ncpu);
	/* One vtime DSQ per last-level cache: which CPU shares which. */
	{
		__u32 *llc = c->skel->rodata->scx_cpu_llc;
		unsigned int n = ncpu < BPFGOV_MAX_CPUS ? ncpu : BPFGOV_MAX_CPUS;

		c->skel->rodata->scx_nr_llcs = topo_llc_map(o->topo_root, n, llc, BPFGOV_MAX_LLCS);
		for (unsigned int i = 0; i < n; i++)
			c->skel->rodata->scx_llc_nr_cpus[llc[i]]++;
	}
	c->skel->rodata->scx_sched_only = o->sched_only;
	/* Nothing governed: no next timer to learn. */
	if (o->sched_only)
		bpf_program__set_autoload(c->skel->progs.bpfgov_timer_base, false);
	/* Idle states to choose from: cpu_idle books the state the kernel's
	 * governor entered. One state (or nothing governed): not loaded, and
	 * the scheduler's hooks book that state themselves. */
	if (o->idle_states && !o->sched_only)
		c->skel->rodata->scx_cpuidle_tp = true;
	else
		bpf_program__set_autoload(c->skel->progs.bpfgov_scx_cpu_idle, false);
	if (o->timeout_ms)
		c->skel->struct_ops.bpfgov_ops->timeout_ms = o->timeout_ms;
	{
		typeof(c->skel->struct_ops.bpfgov_ops) ops = c->skel->struct_ops.bpfgov_ops;
		struct { const char *name; struct bpf_program **slot; } hooks[] = {
			{ "select_cpu", &ops->select_cpu }, { "enqueue", &ops->enqueue },
			{ "dispatch", &ops->dispatch }, { "running", &ops->running },
			{ "stopping", &ops->stopping }, { "tick", &ops->tick },
			{ "update_idle", &ops->update_idle }, { "enable", &ops->enable },
			{ "init", &ops->init }, { "exit", &ops->exit },
			{ "cgroup_init", &ops->cgroup_init },
			{ "cgroup_set_weight", &ops->cgroup_set_weight },
			{ "cgroup_move", &ops->cgroup_move },
		};

		for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
			if (!*hooks[i].slot ||
			    __COMPAT_struct_has_field("sched_ext_ops", hooks[i].name))
				continue;
			fprintf(stderr, "scx: kernel's sched_ext_ops has no %s, running without it\n",
				hooks[i].name);
			bpf_program__set_autoload(*hooks[i].slot, false);
			*hooks[i].slot = NULL;
		}
		ops->flags = 0;
		if (o->partial) {
			if (!SCX_OPS_SWITCH_PARTIAL) {
				fprintf(stderr, "scx: kernel does not support SCX_OPS_SWITCH_PARTIAL\n");
				err = -EOPNOTSUPP;
				goto fail;
			}
			ops->flags |= SCX_OPS_SWITCH_PARTIAL;
		}
		/*
		 * With every task on sched_ext, dispatch() and running() see
		 * each idle period begin and end; update_idle() would be two
		 * more program runs per idle period.  Partially switched, tasks
		 * of other classes run unseen: only update_idle() tells idle
		 * from busy then.  It would turn off the built-in idle tracking
		 * that scx_bpf_select_cpu_dfl() needs, unless we keep it.
		 */
		if (o->partial && ops->update_idle) {
			c->skel->rodata->scx_idle_hook = true;
			ops->flags |= SCX_OPS_KEEP_BUILTIN_IDLE;
		} else if (ops->update_idle) {
			bpf_program__set_autoload(ops->update_idle, false);
			ops->update_idle = NULL;
		}
	}
	return c;
fail:
	scx_close(c);
	errno = -err;
	return NULL;
}

int scx_timer_learner(struct scx_ctx *c, struct timer_learner *t)
{
	if (!c || !c->skel || !c->skel->bss || bpf_program__fd(c->skel->progs.bpfgov_timer_base) < 0)
		return -ENOENT;
	t->prog = c->skel->progs.bpfgov_timer_base;
	t->link = &c->skel->links.bpfgov_timer_base;
	t->bases = c->skel->bss->timer_base;
	return 0;
}

struct bpf_object *scx_obj(struct scx_ctx *c)
{
	return c && c->skel ? c->skel->obj : NULL;
}

int scx_load(struct scx_ctx *c)
{
	int err;

	UEI_SET_SIZE(c->skel, bpfgov_ops, uei);
	err = bpfgov_scx__load(c->skel);

	if (!err)
		c->loaded = true;
	return err;
}

int scx_attach(struct scx_ctx *c)
{
	char st[32];
	int err;

	if (!scx_state(st, sizeof(st)) && strcmp(st, "disabled")) {
		char name[64];

		scx_ops_name(name, sizeof(name));
		fprintf(stderr, "scx: another sched_ext scheduler is active (state %s, ops %s)\n",
			st, name[0] ? name : "?");
		return -EBUSY;
	}
	c->link = bpf_map__attach_struct_ops(c->skel->maps.bpfgov_ops);
	if (!c->link) {
		err = -errno;
		return err ? err : -EINVAL;
	}
	err = wait_state("enabled", 5000);
	if (err && scx_exited(c, NULL))
		return -ECANCELED;	/* ejected while enabling: see scx_exited() */
	if (err || !c->skel->rodata->scx_cpuidle_tp)
		return err;
	/* Once the scheduler runs: idle states before it are not its CPUs'. */
	c->skel->links.bpfgov_scx_cpu_idle = bpf_program__attach(c->skel->progs.bpfgov_scx_cpu_idle);
	if (!c->skel->links.bpfgov_scx_cpu_idle) {
		err = -errno;
		return err ? err : -EINVAL;
	}
	return 0;
}

int scx_exited(struct scx_ctx *c, struct scx_exit *e)
{
	const struct user_exit_info *u;

	if (!c || !c->skel || !c->skel->data || !UEI_EXITED(c->skel, uei))
		return 0;
	u = &c->skel->data->uei;
	if (e) {
		memset(e, 0, sizeof(*e));
		e->kind = u->kind;
		e->code = u->exit_code;
		memcpy(e->reason, u->reason, sizeof(e->reason) - 1);
		memcpy(e->msg, u->msg, sizeof(e->msg) - 1);
	}
	return 1;
}

int scx_trigger_test_error(struct scx_ctx *c)
{
	if (!c || !c->skel || !c->skel->bss)
		return -EINVAL;
	((volatile struct bpfgov_scx__bss *)c->skel->bss)->scx_test_error = 1;
	return 0;
}

int scx_wake_sample(struct scx_ctx *c, bool on)
{
	if (!c || !c->skel || !c->skel->data)
		return -EINVAL;
	((volatile struct bpfgov_scx__data *)c->skel->data)->scx_wake_sample = on;
	return 0;
}

int scx_detach(struct scx_ctx *c)
{
	int err = 0;

	if (!c || !c->link)
		return 0;
	if (c->skel->links.bpfgov_scx_cpu_idle) {
		bpf_link__destroy(c->skel->links.bpfgov_scx_cpu_idle);
		c->skel->links.bpfgov_scx_cpu_idle = NULL;
	}
	err = bpf_link__destroy(c->link);
	c->link = NULL;
	if (err)
		return err;
	return wait_state("disabled", 5000);
}

void scx_close(struct scx_ctx *c)
{
	if (!c)
		return;
	if (c->link)
		scx_detach(c);
	bpfgov_scx__destroy(c->skel);
	free(c);
}

int scx_get_stats(struct scx_ctx *c, struct scx_stats *st)
{
	const volatile struct bpfgov_scx_counters *k;
	__u32 cpu, n;

	if (!c || !c->skel || !c->skel->bss || !c->skel->rodata)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	n = c->skel->rodata->nr_cpus;
	for (cpu = 0; cpu < n && cpu < BPFGOV_MAX_CPUS; cpu++) {
		k = &c->skel->bss->scx_cnt[cpu];
		st->nr_local += k->local;
		st->nr_shared += k->shared;
		st->nr_kicks += k->kicks;
		st->nr_perf_sets += k->perf_sets;
		st->nr_pinned += k->pinned;
		st->nr_kept += k->kept;
		st->nr_rescued += k->rescued;
		st->nr_stolen += k->stolen;
		st->nr_preempts += k->preempts;
	}
	return 0;
}

unsigned int scx_nr_llcs(struct scx_ctx *c)
{
	return c && c->skel && c->skel->rodata ? c->skel->rodata->scx_nr_llcs : 0;
}

const char *scx_exit_kind_name(int kind)
{
	switch (kind) {
	case 0: return "none";
	case 1: return "done";
	case 64: return "unregistered";
	case 65: return "unregistered by BPF";
	case 66: return "unregistered by the kernel";
	case 67: return "sysrq";
	case 68: return "parent exited";
	case 69: return "killed by parent";
	case 1024: return "error";
	case 1025: return "BPF error";
	case 1026: return "watchdog: runnable task stalled";
	case 1027: return "re-enqueue error";
	case 1028: return "rescue error";
	default: return kind >= 1024 ? "error" : "exit";
	}
}

bool scx_exit_is_error(const struct scx_exit *e)
{
	return e && e->kind >= 1024;
}

void scx_format_exit(const struct scx_exit *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s (kind %d%s%s%s%s, code %lld)",
		 scx_exit_kind_name(e->kind), e->kind,
		 e->reason[0] ? ", reason: " : "", e->reason,
		 e->msg[0] ? ", message: " : "", e->msg, e->code);
}
