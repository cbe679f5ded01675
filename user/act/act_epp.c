// SPDX-License-Identifier: GPL-2.0
/*
 * EPP (energy_performance_preference) from the profile, through the
 * cpufreq driver's sysfs file where it offers one (intel_pstate active,
 * amd-pstate active): powersave -> balance_power, performance ->
 * performance, balanced -> left as found (act_epp_for_profile(), in
 * actuate.c). A knob like the others: the
 * original is journaled before the first write, re-asserted when the
 * driver rewrites it, restored byte-exact. Every EPP write of bpfgov's is
 * followed by the floor's re-assert (epp_floor_back).
 *
 * Under the cpufreq governor `performance` the driver locks EPP (intel_pstate
 * refuses any other value than "performance"): skipped with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act_backend.h"
#include "log.h"
#include "util.h"

void epp_probe(struct act_env *e)
{
	if (e->epp_probed)
		return;
	e->epp_probed = true;
	for (int i = 0; i < e->nr_cpus; i++) {
		struct act_cpu *c = &e->cpus[i];
		char *p;

		if (!c->online)
			continue;
		p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/energy_performance_preference",
			      e->sysfs_root, i);
		if (p && path_exists(p)) {
			c->epp.path = p;
			c->has_epp = true;
		} else {
			free(p);
		}
	}
}

/* Why EPP cannot be set on @cpu, or NULL. */
static const char *epp_blocked(const struct act_env *e, int cpu, char *buf, size_t n)
{
	char gov[KNOB_TEXT] = "", avail[256] = "", *p;

	p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/scaling_governor", e->sysfs_root, cpu);
	if (p && !read_line(p, gov, sizeof(gov)) && !strcmp(gov, "performance")) {
		free(p);
		snprintf(buf, n, "the cpufreq governor is performance (EPP is locked)");
		return buf;
	}
	free(p);
	p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/energy_performance_available_preferences",
		      e->sysfs_root, cpu);
	if (p && !read_line(p, avail, sizeof(avail)) && !str_has_word(avail, e->epp)) {
		free(p);
		snprintf(buf, n, "the driver does not offer '%s' (offers: %s)", e->epp, avail);
		return buf;
	}
	free(p);
	return NULL;
}

/*
 * intel_pstate (active) writes HWP_REQUEST from its cached copy when EPP
 * changes, within the sysfs write (amd-pstate likewise CPPC_REQ): its
 * cached min, not bpfgov's. So after bpfgov's own EPP write the floor is
 * put back at once (its min field alone, into the driver's fields), not
 * at the next re-assert up to a second later. The driver's write already
 * reached the CPU: this adds no wake-up.
 */
static void epp_floor_back(struct act_env *e, struct act_cpu *c)
{
	int r;

	if (!c->has_floor || !c->floor.path || e->ke.dry_run)
		return;
	r = knob_reassert(&e->ke, &c->floor);
	if (r < 0) {
		c->errors++;
		return;
	}
	c->writes += r;
	c->reasserts += r;
}

int epp_apply(struct act_env *e)
{
	char why[320];
	int set = 0, err = 0, none = 1;
	const char *blocked = NULL;

	if (!e || !e->epp)
		return 0;
	for (int i = 0; i < e->nr_cpus; i++) {
		struct act_cpu *c = &e->cpus[i];
		bool wrote;
		int r;

		if (!c->online || !c->has_epp)
			continue;
		none = 0;
		if ((blocked = epp_blocked(e, i, why, sizeof(why))))
			continue;
		r = knob_file_set(&e->ke, &c->epp, e->epp, &wrote);
		c->writes += wrote;
		if (wrote)
			epp_floor_back(e, c);
		if (r) {
			c->errors++;
			if (!err)
				err = r;
			continue;
		}
		set++;
	}
	if (none) {
		pr_info("EPP left as found: the cpufreq driver offers no energy_performance_preference\n");
		free(e->epp);
		e->epp = NULL;
		return 0;
	}
	if (blocked && !set) {
		pr_info("EPP left as found: %s\n", blocked);
		free(e->epp);
		e->epp = NULL;
		return 0;
	}
	return err ? err : set;
}

int epp_set(struct act_env *e, const char *epp)
{
	char *dup = epp ? strdup(epp) : NULL;
	int err = 0;

	if (!e || (epp && !dup)) {
		free(dup);
		return e ? -ENOMEM : -EINVAL;
	}
	free(e->epp);
	e->epp = dup;
	if (!e->epp) {
		for (int i = 0; i < e->nr_cpus; i++) {
			bool was = e->cpus[i].epp.written;
			int r = knob_restore(&e->cpus[i].epp);

			if (r && !err)
				err = r;
			if (was)
				epp_floor_back(e, &e->cpus[i]);
		}
		return err;
	}
	epp_probe(e);
	return epp_apply(e);
}
