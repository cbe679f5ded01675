/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU topology for the sched_ext scheduler: which last-level cache (LLC)
 * each CPU shares, from sysfs.
 */
#ifndef __BPFGOV_TOPO_H
#define __BPFGOV_TOPO_H

#include <linux/types.h>

/*
 * Fill @llc[0..@ncpu) with a dense LLC index per CPU (0, 1, ... in the
 * order of each domain's first CPU) from @sysfs_root (NULL: "/sys"):
 * devices/system/cpu/cpuN/cache/indexK/{level,shared_cpu_list}, the
 * highest level of each CPU's caches.  More than @max_llcs domains are
 * folded onto @max_llcs (index modulo).  A CPU without cache information
 * joins domain 0; nothing at all readable gives one domain.  Returns the
 * number of domains (>= 1).
 */
unsigned int topo_llc_map(const char *sysfs_root, unsigned int ncpu, __u32 *llc,
			  unsigned int max_llcs);

#endif /* __BPFGOV_TOPO_H */
