// SPDX-License-Identifier: GPL-2.0
/*
 * `govloader probe [--json]`: what this machine offers for actuation and
 * which floor backend `start` would pick, and why. Reads only; every path
 * is under --sysfs-root, --proc-root and --msr-root.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "actuate.h"
#include "cli.h"
#include "common.h"
#include "gov.h"
#include "log.h"
#include "json_writer.h"
#include "kfeat.h"
#include "platform.h"
#include "govloader_cmds.h"

static const char probe_usage[] =
"Usage: govloader probe [--json] [--sysfs-root DIR] [--proc-root DIR] [--msr-root DIR]\n"
"What the machine offers: CPU vendor/family/model, HWP/CPPC, the cpufreq\n"
"driver and its mode, EPP, the cpufreq governor, lockdown, msr allow_writes,\n"
"taint flags, the cpuidle driver and governor, hybrid core types, sched_ext,\n"
"BTF, per-CPU ksyms, the floor backend 'start' picks with its reason, and\n"
"the kernel against bpfgov's minimum (" KFEAT_MIN_KERNEL "): what it lacks, what degrades.\n"
"Reads only.\n\n"
"  --json              one JSON object\n"
"  --sysfs-root DIR    sysfs (" DEFAULT_SYSFS_ROOT ")\n"
"  --proc-root DIR     procfs: cpuinfo, kallsyms, sys/kernel/tainted (" DEFAULT_PROC_ROOT ")\n"
"  --msr-root DIR      MSR devices <DIR>/<cpu>/msr (" DEFAULT_MSR_ROOT ")\n";

static const char *yesno(bool b)
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
	printf("perf control   HWP %s, CPPC %s, APERF/MPERF %s\n", yesno(p->hwp), yesno(p->cppc),
	       yesno(p->aperfmperf));
	printf("cpufreq        driver %s", p->cpufreq_driver);
	if (*p->pstate_mode)
		printf(", mode %s", p->pstate_mode);
	if (p->hwp_dynamic_boost)
		printf(", hwp_dynamic_boost on");
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
	printf("sched_ext      %s%s%s\n", yesno(p->sched_ext), *p->sched_ext_state ? ", " : "",
	       p->sched_ext_state);
	printf("BTF            %s\n", yesno(p->btf));
	printf("per-CPU ksyms  %s\n", !p->kallsyms_known ? "unknown" : p->percpu_ksyms ? "resolve"
	       : "do not resolve (no per-CPU data in kallsyms: CONFIG_KALLSYMS_ALL unset)");
	printf("floor backend  %s: %s\n", act_backend_name(ch->backend), ch->reason);
	if (ch->taints)
		printf("note           %s\n", plat_msr_taint_note());
}

int do_probe(int argc, char **argv)
{
	struct cli_opts o = {};
	struct plat_roots r;
	struct platform p;
	struct act_choice ch;
	struct kfeat kf;
	int err;

	err = cli_parse("probe", probe_usage, argc, argv, "json sysfs-root proc-root msr-root", &o);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	r.sysfs_root = o.sysfs_root;
	r.proc_root = o.proc_root;
	r.msr_root = o.msr_root;
	err = plat_probe(&p, &r);
	if (err) {
		pr_warn("probe: %s\n", strerror(-err));
		return 1;
	}
	plat_choose(&p, &r, ACT_AUTO, &ch);
	kfeat_read(NULL, &kf);
	if (o.json) {
		json_writer_t *w = jsonw_new(stdout);

		if (!w)
			return 1;
		jsonw_start_object(w);
		plat_json_fields(w, &p, r.msr_root, &ch);
		kfeat_json(w, &kf);
		jsonw_end_object(w);
		jsonw_destroy(&w);
	}
	else {
		probe_text(&p, &r, &ch);
		kfeat_print(&kf);
	}
	/* One answer to one mistake: roots that `start` refuses fail here too. */
	if (ch.broken) {
		pr_warn("probe: %s\n", ch.reason);
		return 1;
	}
	return 0;
}
