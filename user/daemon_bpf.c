// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's BPF side: pins secured, a dead instance's journal restored, the object
 * prepared, loaded, its maps initialised and pinned; unloaded in reverse.
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
#include "bpfgov_trace.skel.h"
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
#include "state.h"
#include "tunables.h"
#include "util.h"
#include "daemon.h"

/* Pinned maps are root's alone: 0600 (the pin root is 0700). */
static int secure_pins(struct gov *g)
{
	char path[PATH_MAX];
	int i;

	if (chmod(g->o->pin_root, 0700))
		return -errno;
	for (i = 0; gov_pinned_maps[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", g->o->pin_root, gov_pinned_maps[i]);
		if (chmod(path, 0600) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* A journal without a live owner (we hold the lock): a dead instance's
 * originals. Put them back before anything else. */
int restore_stale_journal(struct gov *g)
{
	struct journal_result res;
	int err;

	if (!journal_exists(gov_run_dir()))
		return 0;
	if (g->o->dry_run) {
		pr_warn("a dead instance left changes (journal in %s); 'govloader restore' puts them back\n",
			gov_run_dir());
		return 0;
	}
	err = journal_restore(gov_run_dir(), g->o->msr_root, g->o->sysfs_root, &res);
	if (err == -ENOENT)
		return 0;
	if (err) {
		pr_warn("start refused: the journal %s/%s of a dead instance cannot be restored whole; 'govloader restore' says why, 'govloader restore --discard' drops it once you have checked its knobs\n",
			gov_run_dir(), GOV_JOURNAL_FILE);
		return err;
	}
	pr_warn("restored %d register(s)/file(s) left changed by a dead instance (pid %d) from its journal (%d already in place, %d of CPUs offline or gone: counted as restored)\n",
		res.restored, res.pid, res.in_place, res.offline);
	return 0;
}

/* Between open and load: size the per-CPU map. The shared maps are pinned
 * by name under the pin root given to the open options (pin_root_path),
 * the globals among them by gov_obj_pin_globals(). */
static int prepare_obj(struct gov *g)
{
	struct bpf_map *m;
	int i, err;

	m = bpf_object__find_map_by_name(g->obj, "cpu_state");
	if (!m)
		return -ENOENT;
	for (i = 0; gov_pinned_maps[i]; i++) {
		if (!gov_obj_map(g->obj, gov_pinned_maps[i])) {
			pr_warn("BPF object has no map '%s'\n", gov_pinned_maps[i]);
			return -ENOENT;
		}
	}
	err = gov_obj_pin_globals(g->obj, g->o->pin_root);
	if (!err)
		err = pub_reuse(g);
	if (err)
		return err;
	return bpf_map__set_max_entries(m, g->nr_cpus);
}

int map_fd(struct gov *g, const char *name)
{
	struct bpf_map *m = gov_obj_map(g->obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

/* The decisions worth waking for at once: those we apply (or, with
 * --dry-run, log), and the scheduler's exit. The rest are counted on the
 * periodic drain. */
static __u32 wake_kinds(const struct gov *g)
{
	__u32 k = 1u << BPFGOV_EV_EXIT;

	if (!g->o->no_floor && !act_missing(g->act))
		k |= 1u << BPFGOV_EV_FLOOR;
	if (!g->o->no_idle && act_idle_available(g->act))
		k |= 1u << BPFGOV_EV_PICK;
	return k;
}

/* The loop reads CPU states on every decision it applies and every
 * second: from the mapping, each read is a copy instead of a system
 * call. Without it (an older object) reads go by lookup. */
static void map_cpu_state(struct gov *g)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = CPU_STATE_STRIDE * g->nr_cpus;
	void *p;

	len = (len + pg - 1) / pg * pg;
	/* writable for floor_held alone (floor_hold(), apply.c) */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, g->cpu_fd, 0);
	if (p == MAP_FAILED) {
		pr_debug("cpu_state not mapped (%s): reading it by lookup\n", strerror(errno));
		return;
	}
	g->cpu_mm = p;
	g->cpu_mm_len = len;
}

/* After load, before attach: tunables, control, fresh per-CPU state. */
static int init_maps(struct gov *g)
{
	/* A reload keeps what `govloader set` changed; a start begins anew. */
	struct cfg_write w = { .how = g->scx_restarts ? CFG_WRITE_KEEP : CFG_WRITE_START,
			       .state = g->st };
	struct bpfgov_control ctl = {};
	struct bpfgov_cpu_state s;
	__u32 zero = 0, cpu;
	char msg[512];
	int cfg_fd, err;

	cfg_fd = map_fd(g, "tunables");
	g->ctl_fd = map_fd(g, "control");
	g->cpu_fd = map_fd(g, "cpu_state");
	if (cfg_fd < 0 || g->ctl_fd < 0 || g->cpu_fd < 0)
		return -ENOENT;
	err = cfg_tunables_write(gov_run_dir(), cfg_fd, &g->gc, &w, msg, sizeof(msg));
	if (err) {
		pr_warn("%s\n", msg);
		return err;
	}
	g->cfg = g->gc.cfg;
	for (cpu = 0; cpu < (__u32)g->nr_cpus; cpu++) {
		struct act_cpu_info ai = {};

		pol_cpu_init(&s, &g->cfg);
		/* The floor the CPU has is the one applied (none at the
		 * first load): a floor_min above it is then a decision like
		 * a run-time 'set floor_min', applied the same way (a
		 * sleeping CPU's when it runs), not a state taken for done. */
		act_cpu_info(g->act, cpu, &ai);
		s.floor = ai.last_floor;
		s.qos_limit_us = act_orig_qos_us(g->act, cpu);
		if (bpf_map_update_elem(g->cpu_fd, &cpu, &s, BPF_ANY))
			return -errno;
	}
	ctl.loader_pid = (__u32)getpid();
	ctl.mode = g->mode;
	ctl.actuating = !g->o->dry_run && act_backend(g->act) != ACT_NONE;
	ctl.wake_kinds = wake_kinds(g);
	ctl.started_ns = mono_ns();
	if (bpf_map_update_elem(g->ctl_fd, &zero, &ctl, BPF_ANY))
		return -errno;
	map_cpu_state(g);
	return 0;
}

void unload_bpf(struct gov *g)
{
	if (g->cpu_mm)
		munmap((void *)g->cpu_mm, g->cpu_mm_len);
	g->cpu_mm = NULL;
	ring_buffer__free(g->rb);
	g->rb = NULL;
	/* Pins outlive the object; remove them so a new load starts fresh
	 * (the pin root itself stays until the end). */
	if (g->obj)
		bpf_object__unpin_maps(g->obj, NULL);
	if (g->scx) {
		scx_detach(g->scx);
		scx_close(g->scx);
		g->scx = NULL;
	}
	if (g->trace) {
		bpfgov_trace__destroy(g->trace);
		g->trace = NULL;
	}
	g->obj = NULL;
}

int load_bpf(struct gov *g)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = g->o->btf_path,
		    .pin_root_path = g->o->pin_root);
	int err;

	if (g->mode == BPFGOV_MODE_SCX) {
		struct scx_opts so = { .partial = g->o->scx_partial, .nr_cpus = g->nr_cpus,
				       .nr_states = g->cfg.nr_states,
				       .pin_root = g->o->pin_root, .btf_path = g->o->btf_path,
				       .topo_root = g->o->sysfs_root,
				       .idle_states = g->cfg.nr_states && !g->cfg.idle_state_fixed };

		g->scx = scx_open(&so);
		if (!g->scx) {
			err = -errno;
			pr_warn("cannot open the sched_ext scheduler: %s\n", strerror(-err));
			return err;
		}
		g->obj = scx_obj(g->scx);
	} else {
		g->trace = bpfgov_trace__open_opts(&oo);
		if (!g->trace) {
			err = -errno;
			pr_warn("cannot open the BPF object: %s\n", strerror(-err));
			return err;
		}
		g->trace->rodata->nr_cpus = g->nr_cpus;
		/* the idle table's length, a constant the verifier then knows */
		g->trace->rodata->pol_nr_states_ro = g->cfg.nr_states;
		g->obj = g->trace->obj;
	}
	err = prepare_obj(g);
	if (err) {
		pr_warn("cannot prepare maps: %s\n", strerror(-err));
		return err;
	}
	err = g->scx ? scx_load(g->scx) : bpfgov_trace__load(g->trace);
	if (err) {
		pr_warn("cannot load the BPF programs into the kernel: %s (run with -v for the verifier log)\n",
			strerror(-err));
		return err;
	}
	err = secure_pins(g);
	if (err) {
		pr_warn("cannot make the pins under %s private: %s\n", g->o->pin_root,
			strerror(-err));
		return err;
	}
	err = pub_open(g);
	if (err) {
		pr_warn("cannot map the %s map: %s\n", STATE_MAP, strerror(-err));
		return err;
	}
	err = init_maps(g);
	if (err) {
		pr_warn("cannot initialise maps: %s\n", strerror(-err));
		return err;
	}
	err = g->scx ? scx_attach(g->scx) : bpfgov_trace__attach(g->trace);
	if (err) {
		pr_warn("cannot attach the BPF programs: %s\n", strerror(-err));
		return err;
	}
	g->rb = ring_buffer__new(map_fd(g, "events"), on_decision, g, NULL);
	if (!g->rb) {
		err = -errno;
		pr_warn("cannot open the events ring buffer: %s\n", strerror(-err));
		return err;
	}
	g->rb_epfd = ring_buffer__epoll_fd(g->rb);
	pr_info("%s mode attached on %d CPUs; maps pinned under %s\n", mode_name(g->mode),
		g->nr_cpus, g->o->pin_root);
	if (g->scx)
		pr_info("scheduler: one run queue per last-level cache, %u\n", scx_nr_llcs(g->scx));
	if (!g->o->no_idle && !act_idle_available(g->act))
		pr_warn("no per-CPU PM QoS files under %s: idle picks are not applied\n",
			g->o->sysfs_root);
	return 0;
}
