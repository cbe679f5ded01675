// SPDX-License-Identifier: GPL-2.0
/*
 * `govloader probe [--json]`: what this machine offers for actuation and
 * which floor backend `start` would pick, and why. Reads only; every path
 * is under --sysfs-root, --proc-root and --msr-root.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "actuate.h"
#include "common.h"
#include "gov.h"
#include "log.h"
#include "platform.h"

static const char probe_usage[] =
"Usage: govloader probe [--json] [--sysfs-root DIR] [--proc-root DIR] [--msr-root DIR]\n"
"What the machine offers: CPU vendor/family/model, HWP/CPPC, the cpufreq\n"
"driver and its mode, EPP, the cpufreq governor, lockdown, msr allow_writes,\n"
"taint flags, the cpuidle driver and governor, hybrid core types, sched_ext,\n"
"BTF, per-CPU ksyms, and the floor backend 'start' picks with its reason.\n"
"Reads only.\n\n"
"  --json              one JSON object\n"
"  --sysfs-root DIR    sysfs (" DEFAULT_SYSFS_ROOT ")\n"
"  --proc-root DIR     procfs: cpuinfo, kallsyms, sys/kernel/tainted (" DEFAULT_PROC_ROOT ")\n"
"  --msr-root DIR      MSR devices <DIR>/<cpu>/msr (" DEFAULT_MSR_ROOT ")\n";

enum { P_JSON = 256, P_SYSFS, P_PROC, P_MSR };

int probe_parse(const char *cmd, const char *usage, int argc, char **argv,
		struct plat_roots *r, bool *json)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, P_JSON },
		{ "sysfs-root", required_argument, NULL, P_SYSFS },
		{ "proc-root", required_argument, NULL, P_PROC },
		{ "msr-root", required_argument, NULL, P_MSR },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	r->sysfs_root = DEFAULT_SYSFS_ROOT;
	r->proc_root = DEFAULT_PROC_ROOT;
	r->msr_root = DEFAULT_MSR_ROOT;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":vqh", lo, NULL)) != -1) {
		switch (c) {
		case P_JSON:
			if (!json)
				goto unknown;
			*json = true;
			break;
		case P_SYSFS: r->sysfs_root = optarg; break;
		case P_PROC: r->proc_root = optarg; break;
		case P_MSR: r->msr_root = optarg; break;
		case 'v': log_level = LOG_DEBUG; break;
		case 'q': log_level = LOG_WARN; break;
		case 'h': fputs(usage, stdout); return 1;
		case ':':
			pr_warn("%s: option '%s' needs a value (try 'govloader %s --help')\n",
				cmd, argv[optind - 1], cmd);
			return -EINVAL;
		default:
		unknown:
			pr_warn("%s: unknown option '%s' (try 'govloader %s --help')\n",
				cmd, argv[optind - 1], cmd);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		pr_warn("%s: unexpected argument '%s' (try 'govloader %s --help')\n",
			cmd, argv[optind], cmd);
		return -EINVAL;
	}
	return 0;
}

static const char *yn(bool b)
{
	return b ? "yes" : "no";
}

static const char *or_unknown(const char *s)
{
	return *s ? s : "unknown";
}

static void probe_text(const struct platform *p, const struct plat_roots *r,
		       const struct act_choice *ch)
{
	char taint[32];

	printf("cpu            %s", p->vendor);
	if (p->family >= 0)
		printf(" family %d model %d", p->family, p->model);
	printf("%s, %d CPUs (online %s)\n", p->hypervisor ? " (virtual machine)" : "",
	       p->nr_cpus, or_unknown(p->online));
	printf("perf control   HWP %s, CPPC %s, APERF/MPERF %s\n", yn(p->hwp), yn(p->cppc),
	       yn(p->aperfmperf));
	printf("cpufreq        driver %s", p->cpufreq_driver);
	if (*p->pstate_mode)
		printf(", mode %s", p->pstate_mode);
	if (*p->cpufreq_governor)
		printf(", governor %s", p->cpufreq_governor);
	printf("\n");
	if (p->epp)
		printf("EPP            %s (offers: %s)\n", p->epp_now, or_unknown(p->epp_avail));
	else
		printf("EPP            not offered\n");
	if (p->msr_driver)
		printf("msr            %s/N/msr%s, allow_writes %s\n", r->msr_root,
		       p->msr_standin ? " (stand-in files)" : "",
		       *p->allow_writes ? p->allow_writes : "unknown");
	else
		printf("msr            no MSR driver (%s/0/msr missing: modprobe msr)\n", r->msr_root);
	printf("lockdown       %s\n", *p->lockdown ? p->lockdown
	       : "unknown (no kernel/security/lockdown: securityfs not mounted or no lockdown LSM)");
	plat_taint_letters(p->taint, taint, sizeof(taint));
	if (p->taint_known)
		printf("taint          %lu%s%s\n", p->taint, *taint ? " " : " (none)", taint);
	else
		printf("taint          unknown\n");
	printf("cpuidle        driver %s, governor %s\n", p->idle_driver,
	       or_unknown(p->idle_governor));
	printf("hybrid         %s\n", *p->hybrid ? p->hybrid : "not exposed");
	printf("sched_ext      %s%s%s\n", yn(p->sched_ext), *p->sched_ext_state ? ", " : "",
	       p->sched_ext_state);
	printf("BTF            %s\n", yn(p->btf));
	printf("per-CPU ksyms  %s\n", !p->kallsyms_known ? "unknown" : p->percpu_ksyms ? "resolve"
	       : "do not resolve (no per-CPU data in kallsyms: CONFIG_KALLSYMS_ALL unset)");
	printf("floor backend  %s: %s\n", act_backend_name(ch->backend), ch->reason);
	if (ch->taints)
		printf("note           %s\n", plat_msr_taint_note());
}

int do_probe(int argc, char **argv)
{
	struct plat_roots r;
	struct platform p;
	struct act_choice ch;
	bool json = false;
	int err;

	err = probe_parse("probe", probe_usage, argc, argv, &r, &json);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	err = plat_probe(&p, &r);
	if (err) {
		pr_warn("probe: %s\n", strerror(-err));
		return 1;
	}
	act_choose(&p, &r, &ch);
	if (json)
		probe_json(stdout, &p, &r, &ch);
	else
		probe_text(&p, &r, &ch);
	return 0;
}
