// SPDX-License-Identifier: GPL-2.0
/*
 * EPP (energy_performance_preference) from the profile, through the
 * cpufreq driver's sysfs file where it offers one (intel_pstate active,
 * amd-pstate active): powersave -> balance_power, performance ->
 * performance, balanced -> left as found. A knob like the others: the
 * original is journaled before the first write, re-asserted when the
 * driver rewrites it, restored byte-exact.
 *
 * Under the cpufreq governor `performance` the driver locks EPP (intel_pstate
 * refuses any other value than "performance"): skipped with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act_internal.h"
#include "log.h"
#include "util.h"

const char *act_epp_for_profile(const char *profile)
{
	if (!profile)
		return NULL;
	if (!strcmp(profile, "powersave"))
		return "balance_power";
	if (!strcmp(profile, "performance"))
		return "performance";
	return NULL;
}

void probe_epp(struct actuator *a)
{
	if (a->epp_probed)
		return;
	a->epp_probed = true;
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		char *p;

		if (!c->online)
			continue;
		p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/energy_performance_preference",
			      a->sysfs_root, i);
		if (p && path_exists(p)) {
			c->epp.path = p;
			c->has_epp = true;
		} else {
			free(p);
		}
	}
}

/* Why EPP cannot be set on @cpu, or NULL. */
static const char *epp_blocked(const struct actuator *a, int cpu, char *buf, size_t n)
{
	char gov[KNOB_TEXT] = "", avail[256] = "", *p;

	p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/scaling_governor", a->sysfs_root, cpu);
	if (p && !read_line(p, gov, sizeof(gov)) && !strcmp(gov, "performance")) {
		free(p);
		snprintf(buf, n, "the cpufreq governor is performance (EPP is locked)");
		return buf;
	}
	free(p);
	p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/energy_performance_available_preferences",
		      a->sysfs_root, cpu);
	if (p && !read_line(p, avail, sizeof(avail)) && !str_has_word(avail, a->epp)) {
		free(p);
		snprintf(buf, n, "the driver does not offer '%s' (offers: %s)", a->epp, avail);
		return buf;
	}
	free(p);
	return NULL;
}

int act_apply_epp(struct actuator *a)
{
	char why[320];
	int set = 0, err = 0, none = 1;
	const char *blocked = NULL;

	if (!a || !a->epp)
		return 0;
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		bool wrote;
		int e;

		if (!c->online || !c->has_epp)
			continue;
		none = 0;
		if ((blocked = epp_blocked(a, i, why, sizeof(why))))
			continue;
		e = file_knob_set(a, c, &c->epp, a->epp, &wrote);
		if (e) {
			c->errors++;
			if (!err)
				err = e;
			continue;
		}
		set++;
	}
	if (none) {
		pr_info("EPP left as found: the cpufreq driver offers no energy_performance_preference\n");
		free(a->epp);
		a->epp = NULL;
		return 0;
	}
	if (blocked && !set) {
		pr_info("EPP left as found: %s\n", blocked);
		free(a->epp);
		a->epp = NULL;
		return 0;
	}
	return err ? err : set;
}

int act_set_epp(struct actuator *a, const char *epp)
{
	char *dup = epp ? strdup(epp) : NULL;
	int err = 0;

	if (!a || (epp && !dup)) {
		free(dup);
		return a ? -ENOMEM : -EINVAL;
	}
	free(a->epp);
	a->epp = dup;
	if (!a->epp) {
		for (int i = 0; i < a->nr_cpus; i++) {
			int r = knob_restore(&a->cpus[i].epp);

			if (r && !err)
				err = r;
		}
		return err;
	}
	probe_epp(a);
	return act_apply_epp(a);
}
