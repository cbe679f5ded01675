// SPDX-License-Identifier: GPL-2.0
/*
 * Platform facts: what the machine offers for actuation, and who else
 * writes the registers (below the actuator, which makes its backend plan
 * from these facts: actuate.c).
 *
 * Who may write the performance request register, and at what price:
 * - every write through /dev/cpu/N/msr to a register the msr driver does
 *   not know (HWP_REQUEST, CPPC_REQ) taints the kernel (TAINT_CPU_OUT_OF_SPEC,
 *   'S'); msr.allow_writes=off and kernel lockdown refuse it with EPERM
 *   (arch/x86/kernel/msr.c);
 * - intel_pstate in passive mode (driver intel_cpufreq) and amd-pstate in
 *   passive or guided mode rewrite the min field on every governor update:
 *   a raw write is overwritten within milliseconds, so the floor goes
 *   through the driver's own per-CPU scaling_min_freq;
 * - intel_pstate active (driver intel_pstate) and amd-pstate active
 *   (amd-pstate-epp) write the register only on limit changes, resume and
 *   CPU online: the MSR is usable, its min field alone, with re-assertion;
 * - but intel_pstate active with hwp_dynamic_boost on raises the min field
 *   itself on I/O wake-ups and puts its own back after: two owners of one
 *   field, so the floor goes through scaling_min_freq as in passive mode
 *   (the boost then starts from bpfgov's floor);
 * - any other cpufreq driver (acpi-cpufreq, ...) is talked to through
 *   scaling_min_freq; with no cpufreq driver, nothing else writes the MSR.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "platform.h"
#include "util.h"

static const char *root_or(const char *r, const char *def)
{
	return r && *r ? r : def;
}

/* A path under a root, formatted. */
static const char *pathf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static const char *pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return buf;
}

#define P(...)		pathf(path, sizeof(path), __VA_ARGS__)
/* One line of a small file, without its newline: 0 or -errno. */
#define rd(buf, n, ...)	read_line(P(__VA_ARGS__), buf, n)
#define exists(...)	path_exists(P(__VA_ARGS__))

static void probe_cpuinfo(struct platform *p, const char *proc)
{
	char path[PATH_MAX], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpuinfo", proc);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v++;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "vendor_id", 9) && !strcmp(p->vendor, "unknown"))
			snprintf(p->vendor, sizeof(p->vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10) && p->family < 0)
			p->family = atoi(v);
		else if (!strncmp(line, "model\t", 6) && p->model < 0)
			p->model = atoi(v);
		else if (!strncmp(line, "flags", 5)) {
			p->hwp = str_has_word(v, "hwp");
			p->cppc = str_has_word(v, "cppc");
			p->aperfmperf = str_has_word(v, "aperfmperf");
			p->hypervisor = str_has_word(v, "hypervisor");
			break;	/* the first CPU describes them all */
		}
	}
	fclose(f);
}

/* "none [integrity] confidentiality" -> "integrity". */
static void bracketed(char *s)
{
	char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b) {
		*b = '\0';
		memmove(s, a + 1, strlen(a + 1) + 1);
	}
}

static void probe_hybrid(struct platform *p, const char *sys)
{
	static const char *const types[] = { "cpu_core", "cpu_atom", NULL };
	char cpus[PLAT_STR], path[PATH_MAX];
	size_t off = 0;

	for (int i = 0; types[i]; i++) {
		if (rd(cpus, sizeof(cpus), "%s/devices/%s/cpus", sys, types[i]))
			continue;
		off += snprintf(p->hybrid + off, sizeof(p->hybrid) - off, "%s%s %s",
				off ? "; " : "", types[i], cpus);
		if (off >= sizeof(p->hybrid))
			break;
	}
}

/* Per-CPU data symbols appear in kallsyms only with CONFIG_KALLSYMS_ALL. */
static void probe_kallsyms(struct platform *p, const char *proc)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", proc);
	f = fopen(path, "re");
	if (!f)
		return;
	p->kallsyms_known = true;
	while (fgets(line, sizeof(line), f)) {
		char *sym = strrchr(line, ' ');

		if (!sym)
			continue;
		sym[strcspn(sym, "\n\t")] = '\0';
		if (!strcmp(sym + 1, "runqueues")) {
			p->percpu_ksyms = true;
			break;
		}
	}
	fclose(f);
}

int plat_probe(struct platform *p, const struct plat_roots *r)
{
	const char *sys = root_or(r ? r->sysfs_root : NULL, "/sys");
	const char *proc = root_or(r ? r->proc_root : NULL, DEFAULT_PROC_ROOT);
	const char *msr = root_or(r ? r->msr_root : NULL, "/dev/cpu");
	char buf[PLAT_STR], path[PATH_MAX];
	struct stat st;
	__u64 v;

	memset(p, 0, sizeof(*p));
	snprintf(p->vendor, sizeof(p->vendor), "unknown");
	p->family = p->model = -1;
	probe_cpuinfo(p, proc);

	p->nr_cpus = 0;
	if (!rd(buf, sizeof(buf), "%s/devices/system/cpu/possible", sys)) {
		char *dash = strrchr(buf, '-');

		p->nr_cpus = atoi(dash ? dash + 1 : buf) + 1;
	}
	rd(p->online, sizeof(p->online), "%s/devices/system/cpu/online", sys);

	if (rd(p->cpufreq_driver, sizeof(p->cpufreq_driver),
	       "%s/devices/system/cpu/cpu0/cpufreq/scaling_driver", sys))
		snprintf(p->cpufreq_driver, sizeof(p->cpufreq_driver), "none");
	if (rd(p->pstate_mode, sizeof(p->pstate_mode),
	       "%s/devices/system/cpu/intel_pstate/status", sys))
		rd(p->pstate_mode, sizeof(p->pstate_mode),
		   "%s/devices/system/cpu/amd_pstate/status", sys);
	p->hwp_dynamic_boost =
		!rd(buf, sizeof(buf), "%s/devices/system/cpu/intel_pstate/hwp_dynamic_boost", sys) &&
		!strcmp(buf, "1");
	rd(p->cpufreq_governor, sizeof(p->cpufreq_governor),
	   "%s/devices/system/cpu/cpu0/cpufreq/scaling_governor", sys);
	p->epp = !rd(p->epp_now, sizeof(p->epp_now),
		     "%s/devices/system/cpu/cpu0/cpufreq/energy_performance_preference", sys);
	rd(p->epp_avail, sizeof(p->epp_avail),
	   "%s/devices/system/cpu/cpu0/cpufreq/energy_performance_available_preferences", sys);

	snprintf(path, sizeof(path), "%s/0/msr", msr);
	if (!stat(path, &st)) {
		p->msr_driver = true;
		p->msr_standin = S_ISREG(st.st_mode);
	}
	rd(p->allow_writes, sizeof(p->allow_writes), "%s/module/msr/parameters/allow_writes", sys);
	if (!rd(p->lockdown, sizeof(p->lockdown), "%s/kernel/security/lockdown", sys))
		bracketed(p->lockdown);
	if (!rd(buf, sizeof(buf), "%s/sys/kernel/tainted", proc) && !parse_u64(buf, &v)) {
		p->taint = v;
		p->taint_known = true;
	}

	if (rd(p->idle_driver, sizeof(p->idle_driver),
	       "%s/devices/system/cpu/cpuidle/current_driver", sys))
		snprintf(p->idle_driver, sizeof(p->idle_driver), "none");
	if (rd(p->idle_governor, sizeof(p->idle_governor),
	       "%s/devices/system/cpu/cpuidle/current_governor", sys))
		rd(p->idle_governor, sizeof(p->idle_governor),
		   "%s/devices/system/cpu/cpuidle/current_governor_ro", sys);
	probe_hybrid(p, sys);

	p->sched_ext = exists("%s/kernel/sched_ext", sys);
	if (p->sched_ext)
		rd(p->sched_ext_state, sizeof(p->sched_ext_state), "%s/kernel/sched_ext/state", sys);
	p->btf = exists("%s/kernel/btf/vmlinux", sys);
	probe_kallsyms(p, proc);
	return 0;
}

bool plat_msr_amd(const struct platform *p)
{
	return !strcmp(p->vendor, "AuthenticAMD") || !strcmp(p->vendor, "HygonGenuine");
}

static bool is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

const char *plat_msr_owner(const struct platform *p, char *buf, size_t n)
{
	const char *drv = p->cpufreq_driver, *mode = p->pstate_mode;

	if (is(drv, "none"))
		return NULL;
	if (is(drv, "intel_pstate") && (is(mode, "active") || !*mode) && p->hwp_dynamic_boost) {
		snprintf(buf, n, "intel_pstate hwp_dynamic_boost raises HWP_REQUEST.min "
			 "on I/O wake-ups");
		return buf;
	}
	if (is(drv, "intel_pstate") && (is(mode, "active") || !*mode))
		return NULL;
	if (is(drv, "amd-pstate-epp") && (is(mode, "active") || !*mode))
		return NULL;
	if (is(drv, "intel_cpufreq") || is(drv, "intel_pstate"))
		snprintf(buf, n, "intel_pstate %s mode rewrites HWP_REQUEST.min on every update",
			 *mode ? mode : "passive");
	else if (is(drv, "amd-pstate") || is(drv, "amd-pstate-epp"))
		snprintf(buf, n, "amd-pstate %s mode rewrites CPPC_REQ.min on every update",
			 *mode ? mode : "passive");
	else
		snprintf(buf, n, "cpufreq driver %s owns the performance requests", drv);
	return buf;
}

const char *plat_msr_refused(const struct platform *p, char *buf, size_t n)
{
	if (*p->lockdown && !is(p->lockdown, "none")) {
		snprintf(buf, n, "kernel lockdown [%s] refuses MSR writes", p->lockdown);
		return buf;
	}
	if (is(p->allow_writes, "off")) {
		snprintf(buf, n, "msr.allow_writes=off refuses MSR writes");
		return buf;
	}
	return NULL;
}

void plat_taint_letters(unsigned long taint, char *buf, size_t n)
{
	/* kernel/panic.c taint_flags, bit order */
	static const char letters[] = "PFSRMBUDAWCIOELKXTNJ";
	size_t o = 0;

	for (size_t i = 0; letters[i] && o + 1 < n; i++)
		if (taint & (1UL << i))
			buf[o++] = letters[i];
	buf[o] = '\0';
}

void plat_summary(const struct platform *p, char *buf, size_t n)
{
	char t[32];

	plat_taint_letters(p->taint, t, sizeof(t));
	snprintf(buf, n, "%s family %d model %d; cpufreq %s%s%s%s%s%s; EPP %s; msr %s%s%s; "
		 "lockdown %s; taint %s; cpuidle %s/%s",
		 p->vendor, p->family, p->model, p->cpufreq_driver,
		 *p->pstate_mode ? " " : "", p->pstate_mode,
		 p->hwp_dynamic_boost ? " (hwp_dynamic_boost)" : "",
		 *p->cpufreq_governor ? ", governor " : "", p->cpufreq_governor,
		 p->epp ? (*p->epp_now ? p->epp_now : "offered") : "not offered",
		 p->msr_driver ? (p->msr_standin ? "stand-in" : "driver") : "no driver",
		 *p->allow_writes ? ", allow_writes=" : "", p->allow_writes,
		 *p->lockdown ? p->lockdown : "unknown",
		 !p->taint_known ? "unknown" : *t ? t : "none",
		 p->idle_driver, *p->idle_governor ? p->idle_governor : "-");
}

const char *plat_msr_taint_note(void)
{
	return "every MSR write taints the kernel (TAINT_CPU_OUT_OF_SPEC, 'S') and logs "
	       "'Write to unrecognized MSR'; --backend cpufreq avoids it";
}
