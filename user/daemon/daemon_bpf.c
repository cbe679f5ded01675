// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's BPF side: the mode's object (struct bpfs_ops: bpfs_trace.c,
 * bpfs_scx.c) opened, its maps prepared, loaded, initialised and pinned,
 * attached; unloaded in reverse. The loop drives it through bpfs_*.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"
#include "actuate.h"
#include "common.h"
#include "config.h"
#include "log.h"
#include "scx.h"
#include "state.h"
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

/* Between open and load: size the per-CPU map. The shared maps are pinned
 * by name under the pin root given to the open options (pin_root_path),
 * the globals among them by gov_obj_pin_globals(). */
static int prepare_obj(struct gov *g)
{
	struct bpf_map *m, *st;
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
	if (err)
		return err;
	/* a reload keeps the loader_state map the loader has mapped */
	st = gov_obj_map(g->obj, STATE_MAP);
	if (!st)
		return -ENOENT;
	if (g->st_fd >= 0 && (err = bpf_map__reuse_fd(st, g->st_fd)))
		return err;
	return bpf_map__set_max_entries(m, g->nr_cpus);
}

int bpfs_map_fd(const struct gov *g, const char *name)
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
	int err;

	g->tun_fd = bpfs_map_fd(g, "tunables");
	g->ctl_fd = bpfs_map_fd(g, "control");
	g->cpu_fd = bpfs_map_fd(g, "cpu_state");
	if (g->tun_fd < 0 || g->ctl_fd < 0 || g->cpu_fd < 0)
		return -ENOENT;
	err = cfg_tunables_write(gov_run_dir(), g->tun_fd, &g->gc, &w, msg, sizeof(msg));
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

void bpfs_unload(struct gov *g)
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
	if (g->bmode)
		g->bops->close(g);
	g->bmode = NULL;
	g->obj = NULL;
}

/* The loader_state map, mapped once, at the first load: its fd outlives
 * every reload (prepare_obj() reuses it). */
static int state_open(struct gov *g)
{
	int fd;

	if (g->st)
		return 0;
	fd = bpfs_map_fd(g, STATE_MAP);
	if (fd < 0)
		return fd;
	g->st_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (g->st_fd < 0)
		return -errno;
	g->st = state_map(g->st_fd);
	return g->st ? 0 : -errno;
}

int bpfs_load(struct gov *g, const struct bpfs_ops *ops,
	      int (*on_event)(void *ctx, void *data, size_t size))
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = g->o->btf_path,
		    .pin_root_path = g->o->pin_root);
	int err;

	g->bops = ops;
	err = g->bops->open(g, &oo);
	if (err)
		return err;
	err = prepare_obj(g);
	if (err) {
		pr_warn("cannot prepare maps: %s\n", strerror(-err));
		return err;
	}
	err = g->bops->load(g);
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
	err = state_open(g);
	if (err) {
		pr_warn("cannot map the %s map: %s\n", STATE_MAP, strerror(-err));
		return err;
	}
	err = init_maps(g);
	if (err) {
		pr_warn("cannot initialise maps: %s\n", strerror(-err));
		return err;
	}
	err = g->bops->attach(g);
	if (err) {
		pr_warn("cannot attach the BPF programs: %s\n", strerror(-err));
		return err;
	}
	g->rb = ring_buffer__new(bpfs_map_fd(g, "events"), on_event, g, NULL);
	if (!g->rb) {
		err = -errno;
		pr_warn("cannot open the events ring buffer: %s\n", strerror(-err));
		return err;
	}
	g->rb_epfd = ring_buffer__epoll_fd(g->rb);
	pr_info("%s mode attached on %d CPUs; maps pinned under %s\n", mode_name(g->mode),
		g->nr_cpus, g->o->pin_root);
	if (g->bops->say)
		g->bops->say(g);
	if (!g->o->no_idle && !act_idle_available(g->act))
		pr_warn("no per-CPU PM QoS files under %s: idle picks are not applied\n",
			g->o->sysfs_root);
	return 0;
}

void bpfs_wake_sample(struct gov *g, bool on)
{
	g->bops->wake_sample(g, on);
}

/*
 * Next-timer learning. The hrtimer_expire_entry program only has to see
 * one expiry per CPU to learn where its hrtimer_cpu_base is; after that it
 * would still run on every hrtimer expiry for nothing. So it is detached
 * once every online CPU has learned, and attached again while an online
 * CPU (one brought up later) has not.
 */
static bool cpu_is_online(int cpu)
{
	char path[64], buf[8];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* No file: a CPU that cannot be offlined (CPU0 usually). */
	return read_line(path, buf, sizeof(buf)) || strcmp(buf, "0");
}

void bpfs_timer_learning(struct gov *g)
{
	struct timer_learner t;
	bool need = false;
	int cpu;

	if (g->bops->timer_learner(g, &t))
		return;
	for (cpu = 0; cpu < g->nr_cpus && cpu < BPFGOV_MAX_CPUS; cpu++) {
		if (!t.bases[cpu] && cpu_is_online(cpu)) {
			need = true;
			break;
		}
	}
	if (need && !*t.link) {
		*t.link = bpf_program__attach(t.prog);
		if (!*t.link)
			pr_debug("cannot attach hrtimer_expire_entry: %s\n", strerror(errno));
	} else if (!need && *t.link) {
		bpf_link__destroy(*t.link);
		*t.link = NULL;
		pr_debug("next timer learned on every online CPU: hrtimer_expire_entry detached\n");
	}
}

int bpfs_ended(struct gov *g, char *why, size_t n)
{
	return g->bops->ended ? g->bops->ended(g, why, n) : 0;
}

int bpfs_test_error(struct gov *g)
{
	return g->bops->test_error ? g->bops->test_error(g) : -EOPNOTSUPP;
}
