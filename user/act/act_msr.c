// SPDX-License-Identifier: GPL-2.0
/*
 * MSR floor backends: intel-hwp (IA32_HWP_REQUEST) and amd-cppc
 * (CPPC_REQ). Our field is the request's 8-bit minimum; the result is
 * capped at the request's max field (unless that field is 0: a request
 * nobody has programmed).
 *
 * MSR access goes through the knob layer (act_knob.c: msr_read(),
 * knob_msr_set()), the one place where a stand-in regular file and the msr
 * device differ.
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

#define MSR_IA32_PM_ENABLE		0x770
#define MSR_IA32_HWP_CAPABILITIES	0x771
#define MSR_IA32_HWP_REQUEST		0x774
#define MSR_AMD_CPPC_CAP1		0xc00102b0
#define MSR_AMD_CPPC_ENABLE		0xc00102b1
#define MSR_AMD_CPPC_REQ		0xc00102b3

struct msr_layout {
	const char *what;		/* for messages: "HWP" */
	__u32 enable, caps, req;
	const char *enable_name;	/* for messages */
	unsigned int cap_lowest_shift, cap_highest_shift;
	unsigned int cap_eff_shift;	/* most efficient / lowest nonlinear */
	unsigned int req_min_shift, req_max_shift;
};

static const struct msr_layout intel_hwp = {
	.what = "HWP",
	.enable = MSR_IA32_PM_ENABLE, .caps = MSR_IA32_HWP_CAPABILITIES,
	.req = MSR_IA32_HWP_REQUEST, .enable_name = "IA32_PM_ENABLE",
	.cap_lowest_shift = 24, .cap_highest_shift = 0,
	.cap_eff_shift = 16,		/* Most_Efficient_Performance */
	.req_min_shift = 0, .req_max_shift = 8,
};

static const struct msr_layout amd_cppc = {
	.what = "CPPC",
	.enable = MSR_AMD_CPPC_ENABLE, .caps = MSR_AMD_CPPC_CAP1,
	.req = MSR_AMD_CPPC_REQ, .enable_name = "CPPC_ENABLE",
	.cap_lowest_shift = 0, .cap_highest_shift = 24,
	.cap_eff_shift = 8,		/* Lowest Nonlinear Performance */
	.req_min_shift = 8, .req_max_shift = 0,
};

/* One CPU's MSR floor knob. -ENOENT: no msr file (skip); other -errno:
 * broken (reason in @why). */
static int probe_msr_cpu(struct act_env *e, const struct msr_layout *L,
			 struct act_cpu *c, int cpu, char *why, size_t n)
{
	__u64 en, caps, req;
	struct stat st;
	int err;

	c->msr_path = fmt_alloc("%s/%d/msr", e->msr_root, cpu);
	if (!c->msr_path)
		return -ENOMEM;
	if (stat(c->msr_path, &st)) {
		err = -errno;
		snprintf(why, n, "%s: %s", c->msr_path, strerror(-err));
		return err;
	}
	c->msr_is_file = S_ISREG(st.st_mode);
	if (c->msr_is_file)
		e->msr_standin = true;
	c->msr_fd = open(c->msr_path, (e->ke.dry_run || (c->msr_is_file && !(st.st_mode & 0222))
				       ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (c->msr_fd < 0) {
		err = -errno;
		snprintf(why, n, "%s: cannot open: %s", c->msr_path, strerror(-err));
		return err == -ENOENT ? -ENODEV : err;
	}
	err = msr_read_why(c->msr_fd, c->msr_is_file, c->msr_path, L->enable, &en, why, n);
	if (err)
		return err;
	if (!(en & 1)) {
		snprintf(why, n, "%s: %s not enabled (%s MSR %#x bit 0 clear)",
			 c->msr_path, L->what,
			 L->enable_name, L->enable);
		return -ENODEV;
	}
	err = msr_read_why(c->msr_fd, c->msr_is_file, c->msr_path, L->caps, &caps, why, n);
	if (err)
		return err;
	c->lowest = field_get(caps, L->cap_lowest_shift);
	c->highest = field_get(caps, L->cap_highest_shift);
	c->efficient = field_get(caps, L->cap_eff_shift);
	if (!c->highest || c->lowest > c->highest) {
		snprintf(why, n, "%s: bad capabilities MSR %#x = %#llx (lowest %u, highest %u)",
			 c->msr_path, L->caps, (unsigned long long)caps,
			 c->lowest, c->highest);
		return -EINVAL;
	}
	err = msr_read_why(c->msr_fd, c->msr_is_file, c->msr_path, L->req, &req, why, n);
	if (err)
		return err;
	c->orig_min = field_get(req, L->req_min_shift);
	knob_init(&c->floor, cpu);
	c->floor.is_msr = true;
	c->floor.path = strdup(c->msr_path);
	c->floor.fd = c->msr_fd;
	c->floor.is_file = c->msr_is_file;
	c->floor.msr = L->req;
	c->floor.shift = L->req_min_shift;
	c->floor.max_shift = L->req_max_shift;
	if (!c->floor.path)
		return -ENOMEM;
	c->has_floor = true;
	return 0;
}

static int hwp_probe_cpu(struct act_env *e, struct act_cpu *c, int cpu, char *why, size_t n)
{
	return probe_msr_cpu(e, &intel_hwp, c, cpu, why, n);
}

static int cppc_probe_cpu(struct act_env *e, struct act_cpu *c, int cpu, char *why, size_t n)
{
	return probe_msr_cpu(e, &amd_cppc, c, cpu, why, n);
}

static int msr_set_floor(struct act_env *e, struct act_cpu *c, int cpu, __u32 want, bool *wrote)
{
	return knob_msr_set(&e->ke, &c->floor, want, wrote);
}

const struct act_floor_ops act_intel_hwp_ops = {
	.name = "intel-hwp",
	.msr = true,
	.absent = "no MSR driver: modprobe msr",
	.probe_cpu = hwp_probe_cpu,
	.set_floor = msr_set_floor,
};

const struct act_floor_ops act_amd_cppc_ops = {
	.name = "amd-cppc",
	.msr = true,
	.absent = "no MSR driver: modprobe msr",
	.probe_cpu = cppc_probe_cpu,
	.set_floor = msr_set_floor,
};
