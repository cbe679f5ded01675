// SPDX-License-Identifier: GPL-2.0
/*
 * cpufreq floor backend: scaling_min_freq between cpuinfo_min_freq and
 * cpuinfo_max_freq, capped at scaling_max_freq.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_backend.h"
#include "log.h"
#include "util.h"

static int cpufreq_probe_cpu(struct act_env *e, struct act_cpu *c, int cpu,
			     char *why, size_t n)
{
	char *dir, *p;
	__u32 lo, hi, cur;
	int err;

	dir = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq", e->sysfs_root, cpu);
	if (!dir)
		return -ENOMEM;
	if (!path_exists(dir)) {
		snprintf(why, n, "%s missing", dir);
		free(dir);
		return -ENOENT;
	}
	p = fmt_alloc("%s/cpuinfo_min_freq", dir);
	err = p ? read_u32(p, &lo) : -ENOMEM;
	if (!err) {
		free(p);
		p = fmt_alloc("%s/cpuinfo_max_freq", dir);
		err = p ? read_u32(p, &hi) : -ENOMEM;
	}
	if (!err) {
		free(p);
		p = fmt_alloc("%s/scaling_min_freq", dir);
		err = p ? read_u32(p, &cur) : -ENOMEM;
	}
	if (!err && !e->ke.dry_run)
		err = check_writable(p);
	if (err) {
		snprintf(why, n, "%s: %s", p ? p : dir,
			 err == -EACCES ? "read-only" : err == -EINVAL ? "not a number"
			 : strerror(-err));
		free(p);
		free(dir);
		return err == -ENOENT ? -ENODEV : err;
	}
	free(dir);
	if (!hi || lo > hi) {
		snprintf(why, n, "%s: bad cpuinfo range %u..%u kHz", p, lo, hi);
		free(p);
		return -EINVAL;
	}
	c->lowest = lo;
	c->highest = hi;
	c->orig_min = cur;
	knob_init(&c->floor, cpu);
	c->floor.path = p;
	c->has_floor = true;
	return 0;
}

/* Write min @want (kHz), capped at scaling_max_freq. */
static int cpufreq_set_floor(struct act_env *e, struct act_cpu *c, int cpu, __u32 want,
			     bool *wrote)
{
	char txt[KNOB_TEXT], *p;
	__u32 max;

	p = fmt_alloc("%s/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
		     e->sysfs_root, cpu);
	if (p && read_u32(p, &max) == 0 && max && want > max)
		want = max;
	free(p);
	snprintf(txt, sizeof(txt), "%u", want);
	return knob_file_set(&e->ke, &c->floor, txt, wrote);
}

const struct act_floor_ops act_cpufreq_ops = {
	.name = "cpufreq",
	.msr = false,
	.absent = "no cpufreq driver",
	.knob = "per-CPU scaling_min_freq",
	.probe_cpu = cpufreq_probe_cpu,
	.set_floor = cpufreq_set_floor,
};
