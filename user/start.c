// SPDX-License-Identifier: GPL-2.0
/*
 * `govloader start`: load, pin, actuate, summarise, restore.
 *
 * Order of set-up (undone in reverse by one cleanup path): lock, pin root,
 * actuator, the journaled originals of every knob a decision may write
 * (one flush, so that no decision waits for the disk), BPF load with maps pinned by name, map initialisation, attach, ring buffer.
 * Decisions arrive on `events` and are applied at once; once a second the
 * loader prints a summary and re-asserts registers someone else rewrote.
 * Its actuator state for `status` is published when `status` asks.
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
#include "json_writer.h"
#include "log.h"
#include "metrics.h"
#include "ppd.h"
#include "platform.h"
#include "scx.h"
#include "tunables.h"
#include "util.h"

/* The most recent decisions' latencies: enough for a p99, small enough to
 * select from once a second without a cost worth measuring. */
#define LAT_SAMPLES	4096

struct lat_ring {
	__u64 *ns;
	__u64 n;
	__u64 max;
	__u64 pct_n;		/* n when p50/p99 were last selected */
	double p50, p99;
};

struct gov {
	const struct start_opts *o;
	struct bpfgov_config cfg;
	struct gov_config gc;		/* cfg and where each value came from */
	struct journal *jnl;		/* originals, on disk before each first write */
	char idle_driver[64];
	int nr_cpus;
	enum bpfgov_mode mode;
	int lock_fd;
	bool pins_made;
	struct bpfgov_trace *trace;
	struct scx_ctx *scx;
	struct bpf_object *obj;
	struct ring_buffer *rb;
	int rb_epfd;			/* the ring buffer's epoll instance */
	struct actuator *act;
	char *plat_json;		/* the probe's facts for status, rendered once */
	char plat_line[512];
	int cpu_fd, ctl_fd;
	/* cpu_state mapped (BPF_F_MMAPABLE): read without a system call */
	const void *cpu_mm;
	size_t cpu_mm_len;
	/* what was applied */
	__u64 decisions, floor_dec, pick_dec, act_errors, seq_gaps;
	__u32 *last_seq;
	/* decision -> completed write, and its two parts: the decision's
	 * timestamp to the loader running (woken, or already awake), and
	 * from there to the completed write */
	struct lat_ring lat, lat_wake, lat_proc;
	__u64 *lat_sorted;		/* scratch for the percentiles (reordered) */
	__u64 woke_ns;			/* when the loop last came out of its wait */
	__u64 same_cpu, cross_cpu;	/* applied decisions: loader ran on the deciding CPU or not */
	int scx_restarts;
	struct met_shared *met;		/* counters for the metrics exposition */
	struct met_server *met_srv;	/* --metrics-listen */
	struct ppd *ppd;		/* --follow-ppd */
	/* no wake-ups by actuation (floor_defer) */
	bool *pend;			/* a floor waits until the CPU runs */
	__u32 *pend_floor;
	bool *idle_now;			/* scratch: CPUs idle at the re-assert */
	__u64 idle_cpu_writes;		/* floor writes that reached an idle CPU */
	__u64 prewake_raises;		/* ... of which raises before a predicted wake */
	__u64 deferred;			/* floor changes held for an idle CPU */
	/* resume and hotplug (platform_watch) */
	char online[256];		/* devices/system/cpu/online, last seen */
	int online_fd;			/* ... kept open: one pread per check */
	__s64 boot_off_ns;		/* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	__u64 reapplies;
	__u64 next_watch_ns;
	pid_t pid;
	char *status_doc;		/* the status file's content, last written */
	size_t status_len;
	int req_fd;			/* GOV_STATUS_REQ (-1: none, published every second) */
	bool status_req;		/* a reader asked since the last publish */
};

/* ------------------------------------------------------ start's options */

void start_usage(FILE *f)
{
	fprintf(f,
"Usage: govloader start [OPTIONS]\n"
"Load bpfgov, apply its floor and idle decisions, print a summary every second.\n"
"Stops on SIGINT/SIGTERM, 'govloader stop' or --duration, restoring every knob.\n\n"
"  --mode auto|trace|scx   scx where the kernel has sched_ext, else trace (auto)\n"
"  --dry-run               write nothing; log what would be written\n"
"  --duration S            stop after S seconds\n"
"  --pin-root DIR          where maps are pinned (%s)\n"
"  --msr-root DIR          MSR devices <DIR>/<cpu>/msr (%s); regular files\n"
"                          are stand-ins with MSR X at offset 8*X\n"
"  --sysfs-root DIR        sysfs for cpufreq/cpuidle/PM QoS knobs (%s)\n"
"  --proc-root DIR         procfs: cpuinfo, for the platform facts (%s)\n"
"  --backend B             auto|intel-hwp|amd-cppc|cpufreq|none (auto)\n"
"  --no-floor, --no-idle   do not apply floors / idle picks\n"
"  --no-rt                 keep the event loop at normal priority (default:\n"
"                          SCHED_FIFO 1, so a busy CPU does not delay actuation)\n"
"  --config FILE           key = value tunables (%s when it exists)\n"
"  --profile NAME          powersave|balanced|performance (%s)\n"
"  --set KEY=VALUE         set a tunable (repeatable); beats profile and file\n"
"  --btf FILE              kernel BTF for CO-RE (/sys/kernel/btf/vmlinux)\n"
"  --report FILE           write the final actuation report (JSON) at exit\n"
"  --follow-ppd            follow power-profiles-daemon's active profile\n"
"                          (power-saver/balanced/performance) over D-Bus\n"
"  --metrics-listen ADDR:PORT  serve Prometheus metrics on /metrics (a port\n"
"                          alone binds 127.0.0.1)\n"
"  --scx-partial           scx mode: govern only SCHED_EXT tasks\n"
"  --restart               scx mode: reload after the kernel ejects the scheduler\n"
"  -v, -q                  more / less output\n",
		DEFAULT_PIN_ROOT, DEFAULT_MSR_ROOT, DEFAULT_SYSFS_ROOT, DEFAULT_PROC_ROOT,
		DEFAULT_CONFIG_FILE, DEFAULT_PROFILE);
}

enum {
	OPT_MODE = 256, OPT_DRY, OPT_DUR, OPT_PIN, OPT_MSR, OPT_SYSFS, OPT_PROC, OPT_BACKEND,
	OPT_NOFLOOR, OPT_NOIDLE, OPT_NORT, OPT_SET, OPT_BTF, OPT_REPORT, OPT_PARTIAL,
	OPT_RESTART, OPT_TEST_ERR, OPT_CONFIG, OPT_PROFILE, OPT_METRICS, OPT_PPD,
};

int start_parse_args(int argc, char **argv, struct start_opts *o)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "duration", required_argument, NULL, OPT_DUR },
		{ "pin-root", required_argument, NULL, OPT_PIN },
		{ "msr-root", required_argument, NULL, OPT_MSR },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
		{ "proc-root", required_argument, NULL, OPT_PROC },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "no-floor", no_argument, NULL, OPT_NOFLOOR },
		{ "no-idle", no_argument, NULL, OPT_NOIDLE },
		{ "no-rt", no_argument, NULL, OPT_NORT },
		{ "set", required_argument, NULL, OPT_SET },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "scx-partial", no_argument, NULL, OPT_PARTIAL },
		{ "restart", no_argument, NULL, OPT_RESTART },
		{ "metrics-listen", required_argument, NULL, OPT_METRICS },
		{ "follow-ppd", no_argument, NULL, OPT_PPD },
		{ "test-scx-error-after", required_argument, NULL, OPT_TEST_ERR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	memset(o, 0, sizeof(*o));
	o->pin_root = DEFAULT_PIN_ROOT;
	o->msr_root = DEFAULT_MSR_ROOT;
	o->sysfs_root = DEFAULT_SYSFS_ROOT;
	o->proc_root = DEFAULT_PROC_ROOT;
	opterr = 0;
	optind = 0;	/* full re-initialisation of getopt (glibc) */
	while ((c = getopt_long(argc, argv, ":vqh", lo, NULL)) != -1) {
		switch (c) {
		case OPT_MODE:
			if (!strcmp(optarg, "auto"))
				o->mode = BPFGOV_MODE_NONE;
			else if (!strcmp(optarg, "trace"))
				o->mode = BPFGOV_MODE_TRACE;
			else if (!strcmp(optarg, "scx"))
				o->mode = BPFGOV_MODE_SCX;
			else {
				pr_warn("start: --mode '%s': expected auto, trace or scx\n", optarg);
				return -EINVAL;
			}
			break;
		case OPT_DRY: o->dry_run = true; break;
		case OPT_DUR:
			if (cli_seconds("start", "duration", optarg, &o->duration))
				return -EINVAL;
			break;
		case OPT_PIN: o->pin_root = optarg; break;
		case OPT_MSR:
			if (cli_root_check("start", "msr-root", optarg))
				return -EINVAL;
			o->msr_root = optarg;
			break;
		case OPT_SYSFS:
			if (cli_root_check("start", "sysfs-root", optarg))
				return -EINVAL;
			o->sysfs_root = optarg;
			break;
		case OPT_PROC:
			if (cli_root_check("start", "proc-root", optarg))
				return -EINVAL;
			o->proc_root = optarg;
			break;
		case OPT_BACKEND:
			if (act_backend_parse(optarg, &o->backend)) {
				pr_warn("start: --backend '%s': expected auto, intel-hwp, amd-cppc, cpufreq or none\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_NOFLOOR: o->no_floor = true; break;
		case OPT_NOIDLE: o->no_idle = true; break;
		case OPT_NORT: o->no_rt = true; break;
		case OPT_SET:
			if (o->nr_sets == CONFIG_MAX_ITEMS) {
				pr_warn("start: more than %d --set options\n", CONFIG_MAX_ITEMS);
				return -EINVAL;
			}
			o->sets[o->nr_sets++] = optarg;
			break;
		case OPT_CONFIG:
			if (!*optarg) {
				pr_warn("start: --config needs a file name\n");
				return -EINVAL;
			}
			o->config_path = optarg;
			break;
		case OPT_PROFILE:
			if (!cfg_profile_find(optarg)) {
				pr_warn("start: --profile '%.64s': expected powersave, balanced or performance\n",
					optarg);
				return -EINVAL;
			}
			o->profile = optarg;
			break;
		case OPT_BTF: o->btf_path = optarg; break;
		case OPT_REPORT: o->report_path = optarg; break;
		case OPT_PARTIAL: o->scx_partial = true; break;
		case OPT_RESTART: o->restart = true; break;
		case OPT_PPD: o->follow_ppd = true; break;
		case OPT_METRICS: {
			struct sockaddr_storage ss;
			unsigned int sl;

			if (met_listen_parse(optarg, &ss, &sl)) {
				pr_warn("start: --metrics-listen '%.64s': expected PORT, ADDR:PORT or [ADDR]:PORT\n",
					optarg);
				return -EINVAL;
			}
			o->metrics_listen = optarg;
			break;
		}
		case OPT_TEST_ERR:
			if (cli_seconds("start", "test-scx-error-after", optarg,
					&o->test_scx_error_after))
				return -EINVAL;
			break;
		case 'h': start_usage(stdout); return 1;
		default:
			err = cli_common_opt("start", NULL, c, argv);
			if (err)
				return err;
		}
	}
	err = cli_no_args("start", argc, argv);
	if (err)
		return err;
	/* A report we could not write is found now, before anything changes. */
	if (o->report_path) {
		err = check_creatable(o->report_path);
		if (err) {
			pr_warn("start: --report %s: cannot write there: %s\n",
				str_esc(o->report_path), strerror(-err));
			return err;
		}
	}
	return 0;
}

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

/* Tunables: defaults and the machine's idle-state table, then profile,
 * config file and --set (config.c). */
static int build_config(struct gov *g, const char *profile)
{
	struct start_opts o = *g->o;
	struct bpfgov_config base;
	char msg[1200];
	int err;

	bpfgov_config_defaults(&base);
	sys_idle_table(g->o->sysfs_root, &base, g->idle_driver, sizeof(g->idle_driver));
	base.transition_latency_us = sys_transition_latency_us(g->o->sysfs_root);
	if (profile)
		o.profile = profile;	/* power-profiles-daemon's, mapped */
	err = cfg_build(&g->gc, &o, &base, msg, sizeof(msg));
	if (err) {
		pr_warn("start: %s\n", msg);
		return err;
	}
	g->cfg = g->gc.cfg;
	return 0;
}

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
static int restore_stale_journal(struct gov *g)
{
	int err, restored, records, pid;

	if (!journal_exists(gov_run_dir()))
		return 0;
	if (g->o->dry_run) {
		pr_warn("a dead instance left changes (journal in %s); 'govloader restore' puts them back\n",
			gov_run_dir());
		return 0;
	}
	err = journal_restore(gov_run_dir(), &restored, &records, &pid);
	if (err == -ENOENT)
		return 0;
	if (err) {
		pr_warn("start refused: the journal %s/%s of a dead instance cannot be restored whole; 'govloader restore' says why, 'govloader restore --discard' drops it once you have checked its knobs\n",
			gov_run_dir(), GOV_JOURNAL_FILE);
		return err;
	}
	pr_warn("restored %d register(s)/file(s) left changed by a dead instance (pid %d) from its journal\n",
		restored, pid);
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
	if (err)
		return err;
	return bpf_map__set_max_entries(m, g->nr_cpus);
}

static int map_fd(struct gov *g, const char *name)
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

/* An array map's values are 8-byte aligned. */
#define CPU_STATE_STRIDE	((sizeof(struct bpfgov_cpu_state) + 7) & ~(size_t)7)

/* The loop reads CPU states on every decision it applies and every
 * second: from the mapping, each read is a copy instead of a system
 * call. Without it (an older object) reads go by lookup. */
static void map_cpu_state(struct gov *g)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = CPU_STATE_STRIDE * g->nr_cpus;
	void *p;

	len = (len + pg - 1) / pg * pg;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, g->cpu_fd, 0);
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
	struct bpfgov_control ctl = {};
	struct bpfgov_cpu_state s;
	__u32 zero = 0, cpu;
	int cfg_fd;

	cfg_fd = map_fd(g, "tunables");
	g->ctl_fd = map_fd(g, "control");
	g->cpu_fd = map_fd(g, "cpu_state");
	if (cfg_fd < 0 || g->ctl_fd < 0 || g->cpu_fd < 0)
		return -ENOENT;
	if (bpf_map_update_elem(cfg_fd, &zero, &g->cfg, BPF_ANY))
		return -errno;
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

static void lat_put(struct lat_ring *r, __u64 ns)
{
	if (ns > r->max)
		r->max = ns;
	r->ns[r->n++ % LAT_SAMPLES] = ns;
}

/* One applied decision made at @ts: the whole delay, and its split at the
 * moment the loader was running to handle it (the later of its wake-up
 * and the decision itself, when it was already awake). */
static void lat_add(struct gov *g, __u64 ts, __u32 cpu)
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
static void lat_pcts(const struct gov *g, struct lat_ring *r, double *p50, double *p99)
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

static int read_cpu(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s);

/* Idle now (cpu_state): no task runs and an idle period is open. */
static bool cpu_idle(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s)
{
	return !read_cpu(g, cpu, s) && !s->busy && s->idle_since_ns;
}

/* The exception to holding a floor for an idle CPU: a raise the policy
 * needs before its predicted wake-up (expected idle nearly over). */
#define WAKE_LEAD_NS	2000000ull

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
static int floor_apply(struct gov *g, __u32 cpu, __u32 floor)
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
static void floor_flush(struct gov *g)
{
	struct bpfgov_cpu_state s;

	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++)
		if (g->pend[cpu] && !cpu_idle(g, cpu, &s) &&
		    floor_apply(g, cpu, g->pend_floor[cpu]) < 0)
			g->act_errors++;
}

static int on_decision(void *ctx, void *data, size_t size)
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
static int read_cpu(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s)
{
	if (g->cpu_mm && cpu < (__u32)g->nr_cpus) {
		memcpy(s, (const char *)g->cpu_mm + cpu * CPU_STATE_STRIDE, sizeof(*s));
		return 0;
	}
	return bpf_map_lookup_elem(g->cpu_fd, &cpu, s) ? -errno : 0;
}

/* The probe's facts, for `status`: they do not change while we run, so
 * they are rendered once, not at each status request. */
static void render_platform(struct gov *g)
{
	const struct platform *p = act_platform(g->act);
	json_writer_t *w;
	size_t len = 0;
	FILE *f;

	if (!p)
		return;
	plat_summary(p, g->plat_line, sizeof(g->plat_line));
	f = open_memstream(&g->plat_json, &len);
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
	while (len && g->plat_json[len - 1] == '\n')
		g->plat_json[--len] = '\0';
}

static void status_platform(json_writer_t *w, const struct gov *g)
{
	if (!g->plat_json)
		return;
	jsonw_string_field(w, "platform_summary", g->plat_line);
	jsonw_name(w, "platform");
	jsonw_raw(w, g->plat_json);
}

static void lat_json(json_writer_t *w, const struct gov *g, struct lat_ring *r)
{
	double p50, p99;

	lat_pcts(g, r, &p50, &p99);
	jsonw_uint_field(w, "samples", r->n);
	jsonw_float_field_fmt(w, "p50", "%.1f", p50);
	jsonw_float_field_fmt(w, "p99", "%.1f", p99);
	jsonw_float_field_fmt(w, "max", "%.1f", r->max / 1000.0);
}

/* Actuator and counters as JSON: the status file and --report. */
static void write_status_json(struct gov *g, FILE *f)
{
	json_writer_t *w = jsonw_new(f);
	struct act_cpu_info ai;
	int cpu;

	if (!w)
		return;
	jsonw_start_object(w);
	jsonw_int_field(w, "pid", g->pid);
	jsonw_string_field(w, "mode", mode_name(g->mode));
	jsonw_string_field(w, "backend", act_backend_name(act_backend(g->act)));
	jsonw_string_field(w, "backend_reason", act_reason(g->act));
	jsonw_bool_field(w, "taints_kernel", act_taints(g->act));
	jsonw_uint_field(w, "idle_cpu_writes", g->idle_cpu_writes);
	jsonw_uint_field(w, "prewake_raises", g->prewake_raises);
	jsonw_uint_field(w, "deferred_floor_changes", g->deferred);
	jsonw_uint_field(w, "reapplies", g->reapplies);
	jsonw_string_field(w, "epp", act_epp(g->act));
	status_platform(w, g);
	jsonw_bool_field(w, "dry_run", g->o->dry_run);
	jsonw_bool_field(w, "floor_applied", !g->o->no_floor);
	jsonw_bool_field(w, "idle_applied", !g->o->no_idle);
	jsonw_string_field(w, "idle_driver", g->idle_driver);
	jsonw_string_field(w, "missing", act_missing(g->act));	/* NULL: null */
	jsonw_uint_field(w, "decisions", g->decisions);
	jsonw_uint_field(w, "floor_decisions", g->floor_dec);
	jsonw_uint_field(w, "pick_decisions", g->pick_dec);
	jsonw_uint_field(w, "actuation_errors", g->act_errors);
	jsonw_uint_field(w, "seq_gaps", g->seq_gaps);
	jsonw_int_field(w, "scx_restarts", g->scx_restarts);
	jsonw_name(w, "latency_us");
	jsonw_start_object(w);
	lat_json(w, g, &g->lat);
	jsonw_name(w, "wake");		/* decision -> loader running */
	jsonw_start_object(w);
	lat_json(w, g, &g->lat_wake);
	jsonw_end_object(w);
	jsonw_name(w, "processing");	/* loader running -> write completed */
	jsonw_start_object(w);
	lat_json(w, g, &g->lat_proc);
	jsonw_end_object(w);
	jsonw_uint_field(w, "on_deciding_cpu", g->same_cpu);
	jsonw_uint_field(w, "on_other_cpu", g->cross_cpu);
	jsonw_end_object(w);
	jsonw_name(w, "cpus");
	jsonw_start_array(w);
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		memset(&ai, 0, sizeof(ai));
		act_cpu_info(g->act, cpu, &ai);
		jsonw_start_object(w);
		jsonw_int_field(w, "cpu", cpu);
		jsonw_bool_field(w, "online", ai.online);
		jsonw_uint_field(w, "hw_min", ai.hw_min);
		jsonw_uint_field(w, "hw_lowest", ai.hw_lowest);
		jsonw_uint_field(w, "hw_highest", ai.hw_highest);
		jsonw_uint_field(w, "last_floor", ai.last_floor);
		jsonw_uint_field(w, "last_pick", ai.last_pick);
		jsonw_uint_field(w, "writes", ai.writes);
		jsonw_uint_field(w, "reasserts", ai.reasserts);
		jsonw_uint_field(w, "errors", ai.errors);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

static int fill_status_json(FILE *f, void *g)
{
	write_status_json(g, f);
	return 0;
}

static int write_json_file(struct gov *g, const char *path)
{
	return write_file_atomic(path, 0600, false, fill_status_json, g);
}

/*
 * The status file: rendered in memory and written whole, by a rename (four
 * system calls: create, write, close, rename). At start, then when a
 * reader asks (GOV_STATUS_REQ); @force writes it even unchanged, since
 * the reader waits for a new file. Without the request FIFO, once a second
 * and only when it differs from what the file holds.
 */
static void publish_status(struct gov *g, bool force)
{
	char path[PATH_MAX], *doc = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&doc, &len);
	if (!f)
		return;
	write_status_json(g, f);
	if (fclose(f) || !doc) {
		free(doc);
		return;
	}
	if (!force && g->status_doc && len == g->status_len && !memcmp(doc, g->status_doc, len)) {
		free(doc);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_FILE);
	err = write_buf_atomic(path, 0600, doc, len);
	if (err) {
		pr_debug("cannot write %s: %s\n", path, strerror(-err));
		free(doc);
		return;
	}
	free(g->status_doc);
	g->status_doc = doc;
	g->status_len = len;
}

/* One line a second: what the governor decided, per CPU (first 8). */
static void print_summary(struct gov *g, double t, __u64 dec_delta)
{
	struct bpfgov_cpu_state s;
	__u64 drops = 0;
	int cpu;

	printf("[%6.1fs] %s", t, mode_name(g->mode));
	for (cpu = 0; cpu < g->nr_cpus; cpu++) {
		if (read_cpu(g, cpu, &s))
			continue;
		drops += s.rb_drops;
		if (cpu < 8)
			printf(" | cpu%d util %4u floor %4u pick %u", cpu,
			       gov_util_now(&s, &g->cfg, mono_ns()), s.floor, s.idle_pick);
	}
	if (g->nr_cpus > 8)
		printf(" | ...");
	printf(" | %llu dec/s drops %llu act %s%s\n", (unsigned long long)dec_delta,
	       (unsigned long long)drops, act_backend_name(act_backend(g->act)),
	       g->o->dry_run ? " (dry-run)" : "");
	fflush(stdout);
}

/* The request FIFO in the ring buffer's epoll set, told apart from the
 * ring (libbpf numbers its rings from 0) by its tag. */
#define STATUS_REQ_TAG	UINT64_MAX

/* GOV_STATUS_REQ: a FIFO that `status` writes one byte to, to have the
 * status file written now. Opened for reading and writing, so that it has
 * a writer at all times (no hang-up to report when a reader's end closes).
 * Without one (a file system without FIFOs) the file is written every
 * second instead. */
static void status_req_open(struct gov *g)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_REQ);
	unlink(path);
	if (mkfifo(path, 0600)) {
		pr_debug("cannot create %s (%s): the status file is written every second\n",
			 path, strerror(errno));
		return;
	}
	g->req_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (g->req_fd < 0) {
		pr_debug("cannot open %s (%s): the status file is written every second\n",
			 path, strerror(errno));
		unlink(path);
	}
}

static void status_req_close(struct gov *g)
{
	char path[PATH_MAX];

	if (g->req_fd < 0)
		return;
	close(g->req_fd);
	g->req_fd = -1;
	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_REQ);
	unlink(path);
}

/* Into each new ring buffer's epoll set (a scheduler reload makes one). */
static void status_req_watch(struct gov *g)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = STATUS_REQ_TAG };

	if (g->req_fd >= 0 && epoll_ctl(g->rb_epfd, EPOLL_CTL_ADD, g->req_fd, &ev)) {
		pr_debug("cannot watch %s (%s): the status file is written every second\n",
			 GOV_STATUS_REQ, strerror(errno));
		status_req_close(g);
	}
}

static void unload_bpf(struct gov *g)
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

static int load_bpf(struct gov *g)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = g->o->btf_path,
		    .pin_root_path = g->o->pin_root);
	int err;

	if (g->mode == BPFGOV_MODE_SCX) {
		struct scx_opts so = { .partial = g->o->scx_partial, .nr_cpus = g->nr_cpus,
				       .pin_root = g->o->pin_root, .btf_path = g->o->btf_path };

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
	status_req_watch(g);
	pr_info("%s mode attached on %d CPUs; maps pinned under %s\n", mode_name(g->mode),
		g->nr_cpus, g->o->pin_root);
	if (!g->o->no_idle && !act_idle_available(g->act))
		pr_warn("no per-CPU PM QoS files under %s: idle picks are not applied\n",
			g->o->sysfs_root);
	return 0;
}

/*
 * Actuation latency: woken for a decision, the loader would otherwise wait
 * behind whatever runs on its CPU (a busy task: milliseconds). SCHED_FIFO
 * priority 1 runs it first; it only ever runs briefly (poll, write, sleep).
 * Set once the BPF side is loaded, so a slow verification never runs at
 * real-time priority.
 */
static void set_rt(const struct gov *g)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (g->o->no_rt)
		return;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		pr_debug("cannot run at SCHED_FIFO 1 (%s); actuation may wait behind busy tasks\n",
			 strerror(errno));
}

/* The shared counters, and the /metrics server when asked for: its thread
 * starts here, before the event loop turns real-time. */
static int start_metrics(struct gov *g)
{
	g->met = met_create(gov_run_dir(), g->nr_cpus);
	if (!g->met) {
		pr_warn("cannot create %s/%s: %s\n", gov_run_dir(), GOV_METRICS_FILE, strerror(errno));
		return -errno;
	}
	met_set_str(g->met->mode, mode_name(g->mode));
	met_set_str(g->met->backend, act_backend_name(act_backend(g->act)));
	met_set_str(g->met->profile, g->gc.profile);
	if (!g->o->metrics_listen)
		return 0;
	return met_server_start(&g->met_srv, g->o->metrics_listen, g->o->pin_root, g->met);
}

/* --follow-ppd: connect and take PPD's profile before anything loads. */
static int open_ppd(struct gov *g)
{
	char active[PPD_NAME_LEN];
	const char *prof;
	int err;

	err = ppd_open(&g->ppd, active, sizeof(active));
	if (err)
		return err;
	snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
	prof = ppd_to_profile(active);
	if (active[0] && !prof)
		pr_warn("power-profiles-daemon's profile '%s' is unknown; keeping profile %s\n",
			active, g->gc.profile);
	if (prof && strcmp(prof, g->gc.profile)) {
		err = build_config(g, prof);
		if (err)
			return err;
		snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
	}
	pr_info("following power-profiles-daemon (%s): profile %s\n",
		active[0] ? active : "not running", g->gc.profile);
	return 0;
}

/* PPD switched profile: rebuild the tunables with the mapped profile (the
 * config file and --set still win) and hand them to the running programs. */
static void follow_ppd(struct gov *g)
{
	char active[PPD_NAME_LEN];
	struct gov_config old;
	const char *prof;
	__u32 zero = 0;
	int fd;

	if (!ppd_take(g->ppd, active, sizeof(active)))
		return;
	snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
	met_set_str(g->met->ppd_profile, active);
	prof = ppd_to_profile(active);
	if (!prof) {
		pr_warn("power-profiles-daemon's profile '%s' is unknown; keeping profile %s\n",
			active, g->gc.profile);
	} else if (strcmp(prof, g->gc.profile)) {
		old = g->gc;
		if (build_config(g, prof)) {
			g->gc = old;
			g->cfg = old.cfg;
			return;
		}
		snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
		fd = map_fd(g, "tunables");
		if (fd < 0 || bpf_map_update_elem(fd, &zero, &g->cfg, BPF_ANY)) {
			pr_warn("cannot apply profile %s: %s\n", prof, strerror(errno));
			g->gc = old;
			g->cfg = old.cfg;
			return;
		}
		met_set_str(g->met->profile, prof);
		__atomic_store_n(&g->met->profile_switches, g->met->profile_switches + 1,
				 __ATOMIC_RELAXED);
		pr_info("power-profiles-daemon switched to %s: profile %s\n", active, prof);
		if (act_set_epp(g->act, act_epp_for_profile(prof)) < 0)
			g->act_errors++;
	}
	cfg_origins_write(gov_run_dir(), &g->gc);
}

/*
 * Wake-up cost samples. sched_waking runs on every wake-up in the system,
 * yet it only stamps the rare wake-up aimed at a sleeping CPU, and the
 * cost it measures (per idle state, averaged) moves slowly. So it is
 * attached WAKE_SAMPLE_ON seconds in WAKE_SAMPLE_PERIOD (from the start,
 * as the programs are attached): the average keeps learning, and the other
 * seconds pay nothing. One window of four seconds rather than four windows
 * of one: the same share of wake-ups sampled, a quarter of the attach and
 * detach calls (each patches the tracepoint's call sites in kernel text).
 * sched_ext mode takes its stamps in select_cpu/enqueue, which run anyway:
 * there a flag in the scheduler's mapped data turns the stamp (a clock
 * read per wake-up of a sleeping CPU) on for the same seconds.
 */
#define WAKE_SAMPLE_ON		4
#define WAKE_SAMPLE_PERIOD	16

static void wake_sampling(struct gov *g, unsigned long sec)
{
	struct bpf_link **l;
	bool want = sec % WAKE_SAMPLE_PERIOD < WAKE_SAMPLE_ON;

	if (g->scx) {
		scx_wake_sample(g->scx, want);
		return;
	}
	if (!g->trace)
		return;
	l = &g->trace->links.bpfgov_waking;
	if (want && !*l) {
		*l = bpf_program__attach(g->trace->progs.bpfgov_waking);
		if (!*l)
			pr_debug("cannot attach sched_waking: %s\n", strerror(errno));
	} else if (!want && *l) {
		bpf_link__destroy(*l);
		*l = NULL;
	}
}

/* Re-assert what others rewrote, except on idle CPUs (a write would wake
 * them: they are re-asserted once they run). */
static void reassert(struct gov *g)
{
	struct bpfgov_cpu_state s;

	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++)
		g->idle_now[cpu] = cpu_idle(g, cpu, &s);
	act_reassert_skip(g->act, g->idle_now);
}

static __s64 boot_offset_ns(void)
{
	struct timespec b, m;

	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((__s64)b.tv_sec - m.tv_sec) * 1000000000ll + (b.tv_nsec - m.tv_nsec);
}

/* The online mask, read through a descriptor kept open (sysfs renders an
 * attribute again for a read at offset 0): one system call per check
 * where opening it each time costs four. Opened again when a read fails. */
static void read_online(struct gov *g, char *buf, size_t n)
{
	char path[PATH_MAX], *nl;
	ssize_t got = -1;

	buf[0] = '\0';
	if (g->online_fd >= 0) {
		got = pread(g->online_fd, buf, n - 1, 0);
		if (got < 0) {
			close(g->online_fd);
			g->online_fd = -1;
		}
	}
	if (g->online_fd < 0) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/online", g->o->sysfs_root);
		g->online_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (g->online_fd < 0)
			return;
		got = pread(g->online_fd, buf, n - 1, 0);
	}
	if (got <= 0)
		return;
	buf[got] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
}

/* After resume or CPU online the drivers rewrote their registers from
 * their own copies: apply every CPU's current floor and pick again now
 * (an idle CPU's floor waits until it runs, as always). */
static void reapply_all(struct gov *g)
{
	struct bpfgov_cpu_state s;

	g->reapplies++;
	if (act_reapply(g->act) < 0)
		g->act_errors++;
	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++) {
		if (read_cpu(g, cpu, &s))
			continue;
		if (!g->o->no_floor && floor_apply(g, cpu, s.floor) < 0)
			g->act_errors++;
		if (!g->o->no_idle && s.idle_pick != BPFGOV_NO_STATE &&
		    act_set_idle_poll(g->act, cpu, s.idle_pick, s.poll_ok == 1, &g->cfg))
			g->act_errors++;
	}
}

/* Resume (CLOCK_BOOTTIME runs on through suspend, CLOCK_MONOTONIC does
 * not) and CPU hotplug (the online mask) re-apply at once; held floors of
 * CPUs that run again are applied. */
static void platform_watch(struct gov *g, __u64 now)
{
	char online[sizeof(g->online)];
	__s64 off;

	if (!g->o->no_floor)
		floor_flush(g);
	if (now < g->next_watch_ns)
		return;
	g->next_watch_ns = now + 100000000ull;	/* 10 checks a second */
	off = boot_offset_ns();
	if (off - g->boot_off_ns > 500000000ll) {
		pr_info("resumed from suspend (%.1f s asleep): re-applying floors, idle picks and EPP\n",
			(off - g->boot_off_ns) / 1e9);
		g->boot_off_ns = off;
		reapply_all(g);
	}
	read_online(g, online, sizeof(online));
	/* nothing read (a failed read; a stand-in file caught mid-rewrite)
	 * is not a change */
	if (online[0] && strcmp(online, g->online)) {
		pr_info("online CPUs changed (%s -> %s): re-applying floors, idle picks and EPP\n",
			g->online[0] ? g->online : "?", online[0] ? online : "?");
		snprintf(g->online, sizeof(g->online), "%s", online);
		reapply_all(g);
	}
}

/*
 * Next-timer learning (tracepoint mode). The hrtimer_expire_entry program
 * only has to see one expiry per CPU to learn where its hrtimer_cpu_base
 * is; after that it would still run on every hrtimer expiry for nothing.
 * So it is detached once every online CPU has learned, and attached again
 * while an online CPU (one brought up later) has not.
 */
static bool cpu_is_online(int cpu)
{
	char path[64], buf[8];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* No file: a CPU that cannot be offlined (CPU0 usually). */
	return read_line(path, buf, sizeof(buf)) || strcmp(buf, "0");
}

static void timer_learning(struct gov *g)
{
	struct bpf_link **l;
	bool need = false;
	int cpu;

	if (!g->trace || !g->trace->bss)
		return;
	for (cpu = 0; cpu < g->nr_cpus && cpu < BPFGOV_MAX_CPUS; cpu++) {
		if (!g->trace->bss->timer_base[cpu] && cpu_is_online(cpu)) {
			need = true;
			break;
		}
	}
	l = &g->trace->links.bpfgov_timer_base;
	if (need && !*l) {
		*l = bpf_program__attach(g->trace->progs.bpfgov_timer_base);
		if (!*l)
			pr_debug("cannot attach hrtimer_expire_entry: %s\n", strerror(errno));
	} else if (!need && *l) {
		bpf_link__destroy(*l);
		*l = NULL;
		pr_debug("next timer learned on every online CPU: hrtimer_expire_entry detached\n");
	}
}

/* Sleep until the ring buffer has a record that wakes us, a reader asks
 * for the status (or @timeout_ms), note when we came out of the wait,
 * then apply what is there. */
static int wait_decisions(struct gov *g, int timeout_ms)
{
	struct epoll_event ev[2];
	char buf[64];
	int n, i;

	n = epoll_wait(g->rb_epfd, ev, 2, timeout_ms);
	if (n < 0)
		n = -errno;
	g->woke_ns = mono_ns();
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		if (ev[i].data.u64 != STATUS_REQ_TAG)
			continue;
		while (read(g->req_fd, buf, sizeof(buf)) > 0)
			;
		g->status_req = true;
	}
	return ring_buffer__consume(g->rb);
}

/* Returns 0 on a requested stop, 1 when the scx scheduler was ejected,
 * -errno on a failure. */
static int run_loop(struct gov *g, __u64 t0, __u64 deadline)
{
	__u64 now = mono_ns(), next = now + 1000000000ull, last_dec = g->decisions, err_at = 0;
	unsigned long sec = 0;
	struct scx_exit ex;
	char buf[1200];
	int err;

	if (g->scx && g->o->test_scx_error_after > 0)
		err_at = now + (__u64)(g->o->test_scx_error_after * 1e9);
	publish_status(g, false);
	set_rt(g);
	while (!exiting) {
		/* Sleep until a decision to apply, the next summary, the
		 * deadline or a signal: nothing polls faster than that. The
		 * clock is read once per wake-up (the end of the wait), for
		 * every check below: a guest whose clock has no vDSO pays a
		 * system call for each read. The timeout counts from there, so
		 * the summary may come as late as this round's work. */
		__u64 until = next;
		int timeout_ms;

		if (err_at && err_at < until)
			until = err_at;
		if (deadline && deadline < until)
			until = deadline;
		timeout_ms = until > now ? (int)((until - now + 999999) / 1000000) : 0;
		err = wait_decisions(g, timeout_ms);
		now = g->woke_ns;
		if (err < 0 && err != -EINTR) {
			pr_warn("ring buffer poll failed: %s\n", strerror(-err));
			return err;
		}
		if (g->scx && scx_exited(g->scx, &ex)) {
			ring_buffer__consume(g->rb);
			scx_format_exit(&ex, buf, sizeof(buf));
			if (scx_exit_is_error(&ex)) {
				pr_warn("the kernel stopped the scheduler: %s\n", buf);
				return 1;
			}
			pr_warn("the scheduler was unregistered: %s\n", buf);
			return 0;
		}
		if (g->ppd)
			follow_ppd(g);
		if (err_at && now >= err_at) {
			err_at = 0;
			pr_info("test: triggering a BPF-side error\n");
			scx_trigger_test_error(g->scx);
		}
		platform_watch(g, now);
		if (g->status_req) {
			/* with every record up to the request: consumed above */
			g->status_req = false;
			publish_status(g, true);
		}
		if (now >= next) {
			g->woke_ns = mono_ns();
			ring_buffer__consume(g->rb);	/* what did not wake us */
			print_summary(g, (mono_ns() - t0) / 1e9, g->decisions - last_dec);
			last_dec = g->decisions;
			if (!g->o->dry_run)
				reassert(g);
			if (journal_error(g->jnl)) {
				pr_warn("cannot keep the state journal (%s): stopping, nothing is written without its original on disk\n",
					strerror(-journal_error(g->jnl)));
				return journal_error(g->jnl);
			}
			if (g->req_fd < 0)
				publish_status(g, false);
			met_update_actuator(g->met, g->act);
			wake_sampling(g, ++sec);
			timer_learning(g);
			next += 1000000000ull;
			now = mono_ns();
		}
		if (deadline && now >= deadline)
			break;
	}
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

static int start_main(struct start_opts *o)
{
	struct act_opts ao = {};
	struct gov g = { .o = o, .lock_fd = -1, .cpu_fd = -1, .ctl_fd = -1, .online_fd = -1,
			 .req_fd = -1, .pid = getpid() };
	struct sigaction sa = { .sa_handler = on_signal };
	char path[PATH_MAX];
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
	if (g.mode == BPFGOV_MODE_NONE)
		g.mode = sys_have_sched_ext() ? BPFGOV_MODE_SCX : BPFGOV_MODE_TRACE;
	if (g.mode == BPFGOV_MODE_SCX && !scx_supported()) {
		pr_warn("--mode scx: this kernel has no sched_ext (/sys/kernel/sched_ext); use --mode trace\n");
		return 1;
	}
	if (g.mode == BPFGOV_MODE_TRACE && kfeat_check_trace(o->btf_path))
		return 1;
	if (build_config(&g, NULL))
		return EXIT_USAGE;
	if (g.gc.follow_ppd && open_ppd(&g))
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
	if (restore_stale_journal(&g))
		goto cleanup;
	status_req_open(&g);
	err = cfg_origins_write(gov_run_dir(), &g.gc);
	if (err)
		pr_warn("cannot write %s/%s: %s\n", gov_run_dir(), GOV_ORIGINS_FILE, strerror(-err));

	err = pins_prepare(o->pin_root);
	if (err)
		goto cleanup;
	g.pins_made = true;

	g.last_seq = calloc(g.nr_cpus, sizeof(*g.last_seq));
	g.lat.ns = calloc(LAT_SAMPLES, sizeof(__u64));
	g.lat_wake.ns = calloc(LAT_SAMPLES, sizeof(__u64));
	g.lat_proc.ns = calloc(LAT_SAMPLES, sizeof(__u64));
	g.lat_sorted = calloc(LAT_SAMPLES, sizeof(*g.lat_sorted));
	g.pend = calloc(g.nr_cpus, sizeof(*g.pend));
	g.pend_floor = calloc(g.nr_cpus, sizeof(*g.pend_floor));
	g.idle_now = calloc(g.nr_cpus, sizeof(*g.idle_now));
	if (!g.last_seq || !g.lat.ns || !g.lat_wake.ns || !g.lat_proc.ns || !g.lat_sorted || !g.pend || !g.pend_floor || !g.idle_now) {
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
	ao.nr_cpus = g.nr_cpus;
	err = act_open(&g.act, &ao);
	if (err)
		goto cleanup;
	render_platform(&g);
	if (!o->dry_run) {
		err = journal_init(&g.jnl, gov_run_dir(), o->msr_root, o->sysfs_root);
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
	if (ao.epp && act_apply_epp(g.act) < 0)
		goto cleanup;
	read_online(&g, g.online, sizeof(g.online));
	g.boot_off_ns = boot_offset_ns();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	err = start_metrics(&g);
	if (err)
		goto cleanup;
	if (g.met) {
		g.met->follow_ppd = g.gc.follow_ppd;
		met_set_str(g.met->ppd_profile, g.gc.ppd_profile);
	}
	if (g.ppd && ppd_run(g.ppd))
		goto cleanup;

	t0 = mono_ns();
	if (o->duration > 0)
		deadline = t0 + (__u64)(o->duration * 1e9);
	for (;;) {
		err = load_bpf(&g);
		if (err)
			goto cleanup;
		if (!g.scx_restarts)
			say_backend(&g);	/* once, when everything is up */
		err = run_loop(&g, t0, deadline);
		unload_bpf(&g);
		if (err < 0)
			goto cleanup;
		if (err == 1) {
			if (o->restart && !exiting && g.scx_restarts < 5) {
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
	unload_bpf(&g);
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
	status_req_close(&g);
	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_FILE);
	unlink(path);
	if (g.lock_fd >= 0)
		cfg_origins_remove(gov_run_dir());
	met_destroy(g.met, gov_run_dir());
	free(g.plat_json);
	free(g.status_doc);
	if (g.online_fd >= 0)
		close(g.online_fd);
	free(g.pend);
	free(g.pend_floor);
	free(g.idle_now);
	free(g.lat_sorted);
	free(g.lat.ns);
	free(g.lat_wake.ns);
	free(g.lat_proc.ns);
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
