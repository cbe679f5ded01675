// SPDX-License-Identifier: GPL-2.0
/* Facts about the running system, read under a sysfs root. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "log.h"

int sys_nr_cpus(void)
{
	int n = libbpf_num_possible_cpus();

	if (n > BPFGOV_MAX_CPUS) {
		pr_warn("%d possible CPUs, only the first %d are governed\n", n, BPFGOV_MAX_CPUS);
		n = BPFGOV_MAX_CPUS;
	}
	return n;
}

/* CONFIG_HZ of the running kernel as a tick in us, from /proc/config.gz or
 * /boot/config-<release> (gzread reads plain files too); 0 when neither
 * says. */
static __u32 sys_tick_us(void)
{
	char path[PATH_MAX], line[128];
	struct utsname u;
	unsigned long hz = 0;
	gzFile f;

	f = gzopen("/proc/config.gz", "rb");
	if (!f && !uname(&u) &&
	    fmt_checked(path, sizeof(path), "/boot/config-%s", u.release) >= 0)
		f = gzopen(path, "rb");
	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (sscanf(line, "CONFIG_HZ=%lu", &hz) == 1)
			break;
	gzclose(f);
	return hz >= 10 && hz <= 10000 ? (__u32)(1000000 / hz) : 0;
}

int sys_idle_table(const char *sysfs_root, struct bpfgov_config *c, char *driver, size_t len)
{
	__u32 tick = sys_tick_us();

	if (tick)
		c->tick_us = tick;
	char path[PATH_MAX], name[64];
	__u32 k, lat, res;

	if (fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpuidle/current_driver",
			sysfs_root) < 0 || read_line(path, driver, len))
		snprintf(driver, len, "none");

	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%u/name",
				sysfs_root, k) < 0 || read_line(path, name, sizeof(name)))
			break;
		if (fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%u/latency",
				sysfs_root, k) < 0 || read_u32(path, &lat))
			break;
		if (fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%u/residency",
				sysfs_root, k) < 0 || read_u32(path, &res))
			break;
		c->state_exit_latency_us[k] = lat;
		c->state_residency_us[k] = res;
		c->state_is_poll[k] = !strcmp(name, "POLL");
	}
	/* CPUIDLE_STATE_MAX bounds every table the kernel registers; a
	 * longer one is refused whole rather than cut (a cut table would
	 * book the states past the cut as others and leave their knobs). */
	if (k == BPFGOV_MAX_STATES &&
	    fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%u",
			sysfs_root, k) >= 0 && path_exists(path)) {
		pr_warn("cpuidle: %s has more than %d idle states (state%u exists), bpfgov handles at most %d\n",
			driver, BPFGOV_MAX_STATES, k, BPFGOV_MAX_STATES);
		return -E2BIG;
	}
	if (k > 0) {
		c->nr_states = k;
		return 0;
	}
	/* No driver: the kernel polls (state 0) or halts (state 1); keep
	 * the model bpfgov_config_defaults() set up. It halts whatever is
	 * picked (default_idle_call), which hooks that do not see the state
	 * entered (sched_ext's update_idle) must assume. */
	c->idle_state_fixed = 1 + 1;
	return 0;
}

__u32 sys_transition_latency_us(const char *sysfs_root)
{
	char path[PATH_MAX];
	__u32 ns = 0;

	if (fmt_checked(path, sizeof(path),
			"%s/devices/system/cpu/cpu0/cpufreq/cpuinfo_transition_latency",
			sysfs_root) < 0 || read_u32(path, &ns) || ns == 0xffffffffu)	/* CPUFREQ_ETERNAL */
		return 0;
	return (ns + 999) / 1000;
}

bool sys_have_sched_ext(void)
{
	return !access("/sys/kernel/sched_ext", F_OK);
}

bool sys_have_btf(const char *btf_path)
{
	return !access(btf_path ? btf_path : "/sys/kernel/btf/vmlinux", R_OK);
}
