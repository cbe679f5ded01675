// SPDX-License-Identifier: GPL-2.0
/*
 * CPU topology from sysfs (see topo.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "util.h"

/* The first CPU of a cpulist ("0-3,8-11" -> 0), or -1. */
static int cpulist_first(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end == s || v < 0 ? -1 : (int)v;
}

/* The first CPU sharing @cpu's last-level cache, or -1 when unknown. */
static int llc_leader(const char *root, unsigned int cpu)
{
	char path[512], buf[4096];
	int best_level = -1, leader = -1;

	for (int k = 0; k < 16; k++) {
		int level, first;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/cache/index%d/level",
			 root, cpu, k);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		level = atoi(buf);
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/cache/index%d/shared_cpu_list",
			 root, cpu, k);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		first = cpulist_first(buf);
		if (first >= 0 && level > best_level) {
			best_level = level;
			leader = first;
		}
	}
	return leader;
}

unsigned int topo_llc_map(const char *sysfs_root, unsigned int ncpu, __u32 *llc,
			  unsigned int max_llcs)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	int *leader = calloc(ncpu ? ncpu : 1, sizeof(*leader));
	unsigned int n = 0;

	if (!max_llcs)
		max_llcs = 1;
	if (!leader) {
		memset(llc, 0, ncpu * sizeof(*llc));
		return 1;
	}
	for (unsigned int c = 0; c < ncpu; c++)
		leader[c] = llc_leader(root, c);
	/* Dense indices in the order of each domain's first CPU seen. */
	for (unsigned int c = 0; c < ncpu; c++) {
		unsigned int i;

		llc[c] = 0;
		if (leader[c] < 0)
			continue;
		for (i = 0; i < c; i++)
			if (leader[i] == leader[c])
				break;
		if (i < c) {
			llc[c] = llc[i];
			continue;
		}
		llc[c] = n++ % max_llcs;
	}
	free(leader);
	/* CPUs without information share domain 0, which then exists. */
	return n == 0 ? 1 : n < max_llcs ? n : max_llcs;
}
