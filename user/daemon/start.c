// SPDX-License-Identifier: GPL-2.0
/*
 * `govloader start`: load, pin, actuate, summarise, restore.
 *
 * Order of set-up (undone in reverse by one cleanup path): lock, pin root,
 * actuator, the journaled originals of every knob a decision may write
 * (one flush, so that no decision waits for the disk), BPF load with maps
 * pinned by name, map initialisation, attach, ring buffer. Decisions
 * arrive on `events` and are applied at once; once a second the loader
 * prints a summary and re-asserts registers someone else rewrote. Its own
 * state (actuator counters, latency, profile, origins) is the pinned
 * loader_state map, which it writes through a mapping (publish.c).
 *
 * This file is the daemon's hub: it sets up and tears down the parts that
 * live beside it (user/daemon/daemon.h names them), and hands them to the loop
 * (loop.c), which calls them.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "actuate.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "kfeat.h"
#include "log.h"
#include "metrics.h"
#include "platform.h"
#include "ppd.h"
#include "scx.h"
#include "util.h"
#include "daemon.h"
#include "govloader_cmds.h"

/*
 * What --mode auto picks.  bpfgov's sched_ext scheduler would be the default
 * only where it meets every goal of a scheduler users keep (docs/SCX.md,
 * "Goals"): at least 0.95x the kernel's own scheduler on every workload at
 * 2, 4 and 8 CPUs and at least scx_simple's, wake-up p99 within 1.1x the
 * kernel's at 50 % and 100 % load, nice and cgroup shares within 10 % of
 * their weights, the loader under 1 % of a CPU.  Measured, it does not
 * (docs/SCX.md, "Goals", gives the figures): auto is
 * tracepoint mode on every kernel, and scx is opt-in.
 */
#define AUTO_PICKS_SCX	0

static void on_signal(int sig)
{
	(void)sig;
	loop_exiting = 1;
}

/* A journal without a live owner (we hold the lock): a dead instance's
 * originals. Put them back before anything else. */
static int restore_stale_journal(struct gov *g)
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

/* One line: which floor backend and why; once, what its writes cost. */
static void say_backend(const struct gov *g)
{
	enum act_backend b = act_backend(g->act);

	if (g->o->no_floor) {
		pr_info("floors are not applied (--no-floor)\n");
		return;
	}
	if (b == ACT_NONE)
		pr_warn("floor backend none: %s; decisions still flow\n", act_reason(g->act));
	else
		pr_info("floor backend %s%s: %s\n", act_backend_name(b),
			g->o->dry_run ? " (dry-run)" : "", act_reason(g->act));
	if (b == ACT_INTEL_HWP || b == ACT_AMD_CPPC)
		pr_info("note: %s%s\n", plat_msr_taint_note(),
			act_taints(g->act) ? "" : " (stand-in MSR files here: nothing is tainted)");
}

/* One line: the cpuidle governor the idle picks work inside, and what a
 * pick can do there. */
static void say_idle(const struct gov *g)
{
	const char *gov = act_idle_governor(g->act);

	if (g->o->no_idle || !g->cfg.nr_states || g->cfg.idle_state_fixed || !*gov)
		return;	/* said at the table (sysinfo) or by --no-idle */
	if (act_idle_uses_disable(g->act))
		pr_info("idle picks: per-CPU PM QoS limits and stateK/disable, inside the kernel's %s governor, which picks each idle within them\n",
			gov);
	else
		pr_info("idle picks: per-CPU PM QoS limits inside the kernel's %s governor, which picks each idle within them; stateK/disable is left alone, so a halting pick cannot stop %s from polling (--idle-governor switches it for the run)\n",
			gov, gov);
}

static int start_main(struct start_opts *o)
{
	struct act_opts ao = {};
	struct gov g = { .o = o, .lock_fd = -1, .cpu_fd = -1, .ctl_fd = -1, .tun_fd = -1, .online_fd = -1,
			 .st_fd = -1, .pid = getpid() };
	struct sigaction sa = { .sa_handler = on_signal };
	__u64 t0, deadline = 0;
	pid_t owner;
	int err, ret = 1;

	if (geteuid() != 0) {
		pr_warn("start needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	if (!sys_have_btf(o->btf_path)) {
		pr_warn("no kernel BTF at %s: bpfgov needs CONFIG_DEBUG_INFO_BTF=y\n",
			o->btf_path ? o->btf_path : "/sys/kernel/btf/vmlinux");
		return 1;
	}
	g.nr_cpus = sys_nr_cpus();
	if (g.nr_cpus <= 0) {
		pr_warn("cannot count CPUs: %s\n", strerror(-g.nr_cpus));
		return 1;
	}
	g.mode = o->mode;
	if (g.mode == BPFGOV_MODE_NONE) {
		g.mode = AUTO_PICKS_SCX && sys_have_sched_ext() ? BPFGOV_MODE_SCX : BPFGOV_MODE_TRACE;
		if (g.mode == BPFGOV_MODE_TRACE && sys_have_sched_ext())
			pr_info("this kernel has sched_ext: --mode scx loads bpfgov as the scheduler (opt-in)\n");
	}
	if (g.mode == BPFGOV_MODE_SCX && !scx_supported()) {
		pr_warn("--mode scx: this kernel has no sched_ext (/sys/kernel/sched_ext); use --mode trace\n");
		return 1;
	}
	if (g.mode == BPFGOV_MODE_TRACE && kfeat_check_trace(o->btf_path))
		return 1;
	if (start_config(&g, NULL))
		return EXIT_USAGE;
	if (g.gc.follow_ppd && watch_ppd_open(&g))
		return 1;

	if (run_dir_secure(gov_run_dir()))
		return 1;
	err = gov_lock_take(&g.lock_fd, &owner);
	if (err == -EBUSY) {
		pr_warn("bpfgov is already running (pid %d); %s first\n", (int)owner,
			gov_lock_stop_hint());
		return 1;
	}
	if (err)
		return 1;
	/* We hold the lock: any pins left under our root belong to a dead
	 * instance. Reusing them would resurrect its state. */
	if (pins_present(o->pin_root)) {
		pr_info("removing stale pins under %s left by a dead instance\n", o->pin_root);
		pins_remove(o->pin_root);
	}
	if (restore_stale_journal(&g)) {
		ret = EXIT_JOURNAL;	/* an operator decides: no restart helps */
		goto cleanup;
	}
	/* A dead instance's origins are not ours; loading writes ours. */
	cfg_origins_remove(gov_run_dir());

	err = pins_prepare(o->pin_root);
	if (err)
		goto cleanup;
	g.pins_made = true;

	g.last_seq = calloc(g.nr_cpus, sizeof(*g.last_seq));
	g.pend = calloc(g.nr_cpus, sizeof(*g.pend));
	g.pend_floor = calloc(g.nr_cpus, sizeof(*g.pend_floor));
	g.re_pend = calloc(g.nr_cpus, sizeof(*g.re_pend));
	g.hold_ran_ns = calloc(g.nr_cpus, sizeof(*g.hold_ran_ns));
	g.floor_ran_ns = calloc(g.nr_cpus, sizeof(*g.floor_ran_ns));
	if (!g.last_seq || !g.pend || !g.pend_floor || !g.re_pend || !g.hold_ran_ns ||
	    !g.floor_ran_ns) {
		pr_warn("out of memory\n");
		goto cleanup;
	}

	ao.msr_root = o->msr_root;
	ao.sysfs_root = o->sysfs_root;
	ao.proc_root = o->proc_root;
	ao.epp = act_epp_for_profile(g.gc.profile);
	ao.backend = o->backend;
	ao.dry_run = o->dry_run;
	ao.floor = !o->no_floor;
	ao.idle = !o->no_idle;
	ao.idle_governor = o->idle_governor;
	ao.nr_cpus = g.nr_cpus;
	err = act_open(&g.act, &ao);
	if (err)
		goto cleanup;
	start_floor_eff(&g);
	if (!o->dry_run) {
		err = journal_init(&g.jnl, gov_run_dir());
		if (err) {
			pr_warn("out of memory\n");
			goto cleanup;
		}
		act_set_save_hook(g.act, journal_hook, g.jnl);
		/* Every original a decision may need goes to disk now, with
		 * one flush: no decision then waits for the disk. */
		journal_hold(g.jnl);
		err = act_save_all(g.act, !o->no_idle && g.cfg.nr_states && !g.cfg.idle_state_fixed);
		if (journal_flush(g.jnl)) {
			pr_warn("cannot keep the state journal (%s): stopping, nothing is written without its original on disk\n",
				strerror(-journal_error(g.jnl)));
			goto cleanup;
		}
		if (err)
			goto cleanup;	/* act_save_all said which knob */
	}
	if (act_apply_idle_governor(g.act) < 0)
		goto cleanup;
	if (ao.epp && act_apply_epp(g.act) < 0)
		goto cleanup;
	watch_init(&g);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	err = start_metrics(&g);
	if (err)
		goto cleanup;
	if (g.ppd && ppd_run(g.ppd))
		goto cleanup;

	t0 = mono_ns();
	if (o->duration > 0)
		deadline = t0 + (__u64)(o->duration * 1e9);
	for (;;) {
		err = bpfs_load(&g, g.mode == BPFGOV_MODE_SCX ? &bpfs_scx_ops : &bpfs_trace_ops,
				apply_event);
		if (err)
			goto cleanup;
		if (!g.scx_restarts) {
			pub_open(&g);
			say_backend(&g);	/* once, when everything is up */
			say_idle(&g);
		}
		err = loop_run(&g, t0, deadline);
		bpfs_unload(&g);
		if (err < 0)
			goto cleanup;
		if (err == 1) {
			if (o->restart && !loop_exiting && g.scx_restarts < 5) {
				g.scx_restarts++;
				pr_warn("restarting the scheduler (%d/5)\n", g.scx_restarts);
				continue;
			}
			goto cleanup;	/* ejected: restore and exit non-zero */
		}
		break;
	}
	ret = 0;
cleanup:
	ppd_close(g.ppd);
	met_server_stop(g.met_srv);
	bpfs_unload(&g);
	if (g.pins_made)
		pins_remove(o->pin_root);
	if (g.act) {
		int n = act_pending(g.act);

		err = act_restore(g.act);
		if (err) {
			pr_warn("restoring actuated state failed: %s\n", strerror(-err));
			ret = 1;
		} else if (n) {
			pr_info("restored the %d register(s)/file(s) bpfgov changed\n", n);
		}
		if (act_pending(g.act))
			pr_warn("the originals stay in %s/%s: 'govloader restore' retries\n",
				gov_run_dir(), GOV_JOURNAL_FILE);
		else
			journal_finish(g.jnl);
	}
	journal_free(g.jnl);
	if (o->report_path && g.act) {
		err = write_json_file(&g, o->report_path);
		if (err) {
			pr_warn("cannot write report %s: %s\n", str_esc(o->report_path),
				strerror(-err));
			ret = 1;
		}
	}
	act_close(g.act);
	pub_close(&g);
	if (g.lock_fd >= 0)
		cfg_origins_remove(gov_run_dir());
	if (g.online_fd >= 0)
		close(g.online_fd);
	free(g.pend);
	free(g.pend_floor);
	free(g.re_pend);
	free(g.floor_ran_ns);
	free(g.hold_ran_ns);
	free(g.last_seq);
	gov_lock_release(g.lock_fd);
	return ret;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && log_level < LOG_DEBUG)
		return 0;
	if (level == LIBBPF_INFO && log_level < LOG_DEBUG)
		return 0;
	if (level == LIBBPF_WARN && log_level < LOG_DEBUG)
		return 0;	/* our own pr_warn says what failed, in one line */
	return vfprintf(stderr, fmt, ap);
}

int do_start(int argc, char **argv)
{
	struct start_opts o = {};
	int err;

	err = start_parse_args(argc, argv, &o);
	if (err > 0)
		return 0;	/* --help */
	if (err)
		return EXIT_USAGE;
	libbpf_set_print(libbpf_print);
	return start_main(&o);
}
