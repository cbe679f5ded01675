// SPDX-License-Identifier: GPL-2.0
/*
 * `govloader start`: its options, their usage text and the configuration they build.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "bpfgov.h"
#include "bpfgov_tunables.h"
#include "actuate.h"
#include "cli.h"
#include "common.h"
#include "config.h"
#include "log.h"
#include "metrics.h"
#include "tunables.h"
#include "daemon.h"

enum {
	OPT_MODE = 256, OPT_DRY, OPT_DUR, OPT_PIN, OPT_MSR, OPT_SYSFS, OPT_PROC, OPT_BACKEND,
	OPT_NOFLOOR, OPT_NOIDLE, OPT_NORT, OPT_SET, OPT_BTF, OPT_REPORT, OPT_PARTIAL,
	OPT_RESTART, OPT_TEST_ERR, OPT_CONFIG, OPT_PROFILE, OPT_METRICS, OPT_PPD, OPT_IDLEGOV,
};

void start_usage(FILE *f)
{
	fprintf(f,
"Usage: govloader start [OPTIONS]\n"
"Load bpfgov, apply its floor and idle decisions, print a summary every second.\n"
"Stops on SIGINT/SIGTERM, 'govloader stop' or --duration, restoring every knob.\n\n"
"  --mode auto|trace|scx   trace: observe the kernel's scheduler (auto picks it);\n"
"                          scx: bpfgov as the sched_ext scheduler, opt-in\n"
"  --dry-run               write nothing; log what would be written\n"
"  --duration S            stop after S seconds\n"
"  --pin-root DIR          where maps are pinned (%s)\n"
"  --msr-root DIR          MSR devices <DIR>/<cpu>/msr (%s); regular files\n"
"                          are stand-ins with MSR X at offset 8*X\n"
"  --sysfs-root DIR        sysfs for cpufreq/cpuidle/PM QoS knobs (%s)\n"
"  --proc-root DIR         procfs: cpuinfo, for the platform facts (%s)\n"
"  --backend B             auto|intel-hwp|amd-cppc|cpufreq|none (auto)\n"
"  --no-floor, --no-idle   do not apply floors / idle picks\n"
"  --idle-governor NAME    cpuidle governor the idle picks work inside, for\n"
"                          this run (e.g. menu); put back at stop (default:\n"
"                          the machine's, unchanged)\n"
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
		{ "idle-governor", required_argument, NULL, OPT_IDLEGOV },
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
#ifdef GOV_TEST_HOOKS
		/* the test build's (govloader-test), never the shipped one's */
		{ "test-scx-error-after", required_argument, NULL, OPT_TEST_ERR },
#endif
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
		case OPT_IDLEGOV: {
			size_t n = strspn(optarg, "abcdefghijklmnopqrstuvwxyz0123456789_-");

			if (!*optarg || optarg[n] || n > 15) {
				pr_warn("start: --idle-governor '%.32s': expected a cpuidle governor's name (e.g. menu)\n",
					optarg);
				return -EINVAL;
			}
			o->idle_governor = optarg;
			break;
		}
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

			if (listen_addr_parse(optarg, &ss, &sl)) {
				pr_warn("start: --metrics-listen '%.64s': expected PORT, ADDR:PORT or [ADDR]:PORT\n",
					optarg);
				return -EINVAL;
			}
			o->metrics_listen = optarg;
			break;
		}
#ifdef GOV_TEST_HOOKS
		case OPT_TEST_ERR:
			if (cli_seconds("start", "test-scx-error-after", optarg,
					&o->test_scx_error_after))
				return -EINVAL;
			break;
#endif
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
	if (o->idle_governor && o->no_idle) {
		pr_warn("start: --idle-governor and --no-idle: with no idle picks there is nothing to work inside a governor\n");
		return -EINVAL;
	}
	/* A report we could not write is found now, before anything changes. */
	if (o->report_path) {
		err = check_creatable(o->report_path);
		if (err) {
			pr_warn("start: --report %s: cannot write there: %s\n",
				str_esc(o->report_path), strerror(-err));
			return -EINVAL;
		}
	}
	return 0;
}

/* Tunables: defaults and the machine's idle-state table, then profile,
 * config file and --set (config.c). @profile: power-profiles-daemon's,
 * mapped (origin "ppd"). */
int start_config(struct gov *g, const char *profile)
{
	struct start_opts o = *g->o;
	struct bpfgov_config base;
	char msg[1200];
	int err, i;

	bpfgov_config_defaults(&base);
	err = sys_idle_table(g->o->sysfs_root, &base, g->idle_driver, sizeof(g->idle_driver));
	if (err)
		return err;	/* said why in one line */
	base.transition_latency_us = sys_transition_latency_us(g->o->sysfs_root);
	base.floor_eff = g->floor_eff_hw;	/* 0 until the floor backend is open */
	if (profile)
		o.profile = profile;	/* power-profiles-daemon's, mapped */
	err = cfg_build(&g->gc, &o, &base, msg, sizeof(msg));
	if (err) {
		pr_warn("start: %s\n", msg);
		return err;
	}
	for (i = 0; profile && i < CFG_MAX_TUNABLES; i++)
		if (g->gc.origin[i] == ORIGIN_PROFILE)
			g->gc.origin[i] = ORIGIN_PPD;
	g->cfg = g->gc.cfg;
	return 0;
}

/* The platform's efficient level, known once the floor backend has read
 * the part's capabilities (act_floor_eff): floor_eff from the machine,
 * unless a profile, the config file or --set gave it. Later rebuilds of
 * the configuration (a power-profiles-daemon switch) start from it. */
void start_floor_eff(struct gov *g)
{
	const struct tunable_info *t = tunable_find("floor_eff");
	size_t i = t ? (size_t)(t - tunable_table) : CFG_MAX_TUNABLES;

	g->floor_eff_hw = act_floor_eff(g->act);
	if (!g->floor_eff_hw || i >= CFG_MAX_TUNABLES || g->gc.origin[i] != ORIGIN_DEFAULT)
		return;
	g->gc.cfg.floor_eff = g->floor_eff_hw;
	g->gc.origin[i] = ORIGIN_MACHINE;
	g->cfg = g->gc.cfg;
}
