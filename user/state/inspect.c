// SPDX-License-Identifier: GPL-2.0
/*
 * What the subcommands that talk to a running instance (stop.c, status.c,
 * tail.c, dump.c) share: whether an owner runs behind the pins, and one
 * consistent read of the pinned maps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "common.h"
#include "gov.h"
#include "log.h"
#include "state.h"
#include "bpfgov_policy.h"

__u32 gov_util_now(const struct bpfgov_cpu_state *s, const struct bpfgov_config *c, __u64 now)
{
	if (!s->seg_start_ns || now <= s->seg_start_ns)
		return s->util;
	return pol_util_at(s, c, now, s->seg_busy_ns + pol_open_busy(s, now));
}

int snapshot_read(const char *pin_root, struct snapshot *s)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, cpu;
	int cpu_fd, cfg_fd, ctl_fd, err = 0;

	memset(s, 0, sizeof(*s));
	cpu_fd = pins_open_map(pin_root, "cpu_state");
	cfg_fd = pins_open_map(pin_root, "tunables");
	ctl_fd = pins_open_map(pin_root, "control");
	if (cpu_fd < 0 || cfg_fd < 0 || ctl_fd < 0) {
		err = cpu_fd < 0 ? cpu_fd : cfg_fd < 0 ? cfg_fd : ctl_fd;
		goto out;
	}
	if (bpf_map_get_info_by_fd(cpu_fd, &info, &len) ||
	    bpf_map_lookup_elem(cfg_fd, &zero, &s->cfg) ||
	    bpf_map_lookup_elem(ctl_fd, &zero, &s->ctl)) {
		err = -errno;
		goto out;
	}
	s->nr_cpus = info.max_entries;
	s->cpus = calloc(s->nr_cpus, sizeof(*s->cpus));
	if (!s->cpus) {
		err = -ENOMEM;
		goto out;
	}
	for (cpu = 0; cpu < (__u32)s->nr_cpus; cpu++) {
		if (bpf_map_lookup_elem(cpu_fd, &cpu, &s->cpus[cpu])) {
			err = -errno;
			goto out;
		}
	}
	s->ld = calloc(1, sizeof(*s->ld));
	err = s->ld ? state_read(pin_root, s->ld) : -ENOMEM;
out:
	if (cpu_fd >= 0)
		close(cpu_fd);
	if (cfg_fd >= 0)
		close(cfg_fd);
	if (ctl_fd >= 0)
		close(ctl_fd);
	return err;
}

/* Is a running owner behind these pins? Explains what is wrong if not. */
int check_running(const char *pin_root, pid_t *owner)
{
	*owner = gov_lock_owner();
	if (!*owner && (*owner = gov_machine_owner())) {
		pr_warn("bpfgov runs (pid %d) with another run directory; %s stops it\n",
			(int)*owner, gov_lock_stop_hint());
		return 1;
	}
	if (!*owner) {
		if (pins_present(pin_root))
			pr_warn("bpfgov is not running (stale pins under %s; the next start removes them)\n",
				pin_root);
		else
			pr_warn("bpfgov is not running\n");
		return EXIT_NOT_RUNNING;
	}
	if (!pins_present(pin_root)) {
		pr_warn("bpfgov runs (pid %d) but has no pins under %s (see its --pin-root)\n",
			(int)*owner, pin_root);
		return 1;
	}
	return 0;
}
