// SPDX-License-Identifier: GPL-2.0
/*
 * MSR floor backends: intel-hwp (IA32_HWP_REQUEST) and amd-cppc
 * (CPPC_REQ). Our field is the request's 8-bit minimum; the result is
 * capped at the request's max field (unless that field is 0: a request
 * nobody has programmed).
 *
 * MSR access goes through msr_read()/msr_write() only: that is the one place
 * where a stand-in regular file (MSR X at offset 8*X) and the msr device
 * (offset X) differ. A stand-in without write bits behaves like the msr
 * device under lockdown or msr.allow_writes=off: it opens and reads, and
 * every write fails with EPERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_internal.h"
#include "log.h"
#include "util.h"

#define MSR_IA32_PM_ENABLE		0x770
#define MSR_IA32_HWP_CAPABILITIES	0x771
#define MSR_IA32_HWP_REQUEST		0x774
#define MSR_AMD_CPPC_CAP1		0xc00102b0
#define MSR_AMD_CPPC_ENABLE		0xc00102b1
#define MSR_AMD_CPPC_REQ		0xc00102b3

static const struct msr_layout intel_hwp = {
	.name = "intel-hwp",
	.enable = MSR_IA32_PM_ENABLE, .caps = MSR_IA32_HWP_CAPABILITIES,
	.req = MSR_IA32_HWP_REQUEST, .enable_name = "IA32_PM_ENABLE",
	.cap_lowest_shift = 24, .cap_highest_shift = 0,
	.req_min_shift = 0, .req_max_shift = 8,
};

static const struct msr_layout amd_cppc = {
	.name = "amd-cppc",
	.enable = MSR_AMD_CPPC_ENABLE, .caps = MSR_AMD_CPPC_CAP1,
	.req = MSR_AMD_CPPC_REQ, .enable_name = "CPPC_ENABLE",
	.cap_lowest_shift = 0, .cap_highest_shift = 24,
	.req_min_shift = 8, .req_max_shift = 0,
};

const struct msr_layout *msr_layout_of(enum act_backend b)
{
	return b == ACT_INTEL_HWP ? &intel_hwp : b == ACT_AMD_CPPC ? &amd_cppc : NULL;
}

/* ------------------------------------------------------------------ */
/* MSR primitive: the only place stand-in and device differ            */

static int msr_xfer(int fd, bool is_file, __u32 msr, __u64 *val, bool wr,
		    bool check_perm, ssize_t *got)
{
	off_t off = is_file ? (off_t)msr * 8 : (off_t)msr;
	struct stat st;
	ssize_t n;

	if (wr && is_file && check_perm && !fstat(fd, &st) && !(st.st_mode & 0222)) {
		if (got)
			*got = -1;
		return -EPERM;	/* what arch/x86/kernel/msr.c answers when writes are refused */
	}
	n = wr ? pwrite(fd, val, sizeof(*val), off)
	       : pread(fd, val, sizeof(*val), off);
	if (got)
		*got = n;
	if (n < 0)
		return -errno;
	if (n != sizeof(*val))
		return -EIO;
	return 0;
}

int msr_read(int fd, bool is_file, __u32 msr, __u64 *val)
{
	return msr_xfer(fd, is_file, msr, val, false, false, NULL);
}

int msr_write(int fd, bool is_file, __u32 msr, __u64 val)
{
	return msr_xfer(fd, is_file, msr, &val, true, true, NULL);
}

/* Read with a one-line reason in @why on failure. */
static int msr_read_why(int fd, bool is_file, const char *path, __u32 msr,
			__u64 *val, char *why, size_t n)
{
	ssize_t got = 0;
	int err = msr_xfer(fd, is_file, msr, val, false, false, &got);

	if (!err)
		return 0;
	if (got >= 0)
		snprintf(why, n, "%s: short read of MSR %#x (%zd of 8 bytes at offset %#llx)",
			 path, msr, got,
			 (unsigned long long)(is_file ? (off_t)msr * 8 : msr));
	else
		snprintf(why, n, "%s: cannot read MSR %#x: %s", path, msr,
			 strerror(-err));
	return err;
}

static __u64 field_set(__u64 v, unsigned int shift, __u32 f)
{
	return (v & ~(0xffULL << shift)) | ((__u64)(f & 0xff) << shift);
}

/* The min to write given the register's current value (max cap). */
static __u32 msr_capped(const struct knob *k, __u64 cur, __u32 want)
{
	__u32 max = field_get(cur, k->max_shift);

	return max && want > max ? max : want;
}

int msr_knob_set(struct actuator *a, struct act_cpu *c, struct knob *k,
		 __u32 want, bool *wrote)
{
	char why[256];
	__u64 cur, nv;
	__u32 nmin;
	int err;

	*wrote = false;
	err = msr_read_why(k->fd, k->is_file, k->path, k->msr, &cur, why, sizeof(why));
	if (err) {
		pr_warn("%s\n", why);
		return err;
	}
	nmin = msr_capped(k, cur, want);
	k->want_field = want;
	if (a->o.dry_run) {
		__u32 now = k->written ? k->seen_field : field_get(cur, k->shift);

		if (now == nmin)
			return 0;
		pr_info("dry-run: would write %#018llx to MSR %#x of cpu %d (%s): min %u -> %u\n",
			(unsigned long long)field_set(cur, k->shift, nmin), k->msr,
			k->cpu, k->path, now, nmin);
		k->written = true;
		k->seen_field = nmin;
		*wrote = true;
		c->writes++;
		return 0;
	}
	nv = field_set(cur, k->shift, nmin);
	if (nv == cur) {
		if (k->written)
			k->seen_field = nmin;
		return 0;
	}
	err = act_save_original(a, k, cur, NULL, 0);
	if (err) {
		pr_warn("%s: saving the original of MSR %#x failed: %s\n",
			k->path, k->msr, strerror(-err));
		return err;
	}
	/* A stand-in's write permission (the msr device's EPERM under
	 * lockdown) is checked until a write went through: one system call
	 * per floor change, not two. */
	err = msr_xfer(k->fd, k->is_file, k->msr, &nv, true, !k->written, NULL);
	if (err == -EPERM) {
		k->refused = true;	/* writes refused: the caller falls back, in one line */
		return err;
	}
	if (err) {
		pr_warn("%s: cannot write MSR %#x of cpu %d: %s\n", k->path,
			k->msr, k->cpu, err == -EIO ? "short write" : strerror(-err));
		return err;
	}
	k->written = true;
	*wrote = true;
	c->writes++;
	pr_debug("cpu %d: MSR %#x min %u -> %u\n", k->cpu, k->msr,
		 field_get(cur, k->shift), nmin);
	/* The request register holds what was written (the hardware clamps
	 * the granted performance, not the request): no read-back. */
	k->seen_field = nmin;
	return 0;
}


int probe_msr_cpu(struct actuator *a, const struct msr_layout *L,
		  struct act_cpu *c, int cpu, char *why, size_t n)
{
	__u64 en, caps, req;
	struct stat st;
	int err;

	c->msr_path = fmt_alloc("%s/%d/msr", a->msr_root, cpu);
	if (!c->msr_path)
		return -ENOMEM;
	if (stat(c->msr_path, &st)) {
		err = -errno;
		snprintf(why, n, "%s: %s", c->msr_path, strerror(-err));
		return err;
	}
	c->msr_is_file = S_ISREG(st.st_mode);
	if (c->msr_is_file)
		a->msr_standin = true;
	c->msr_fd = open(c->msr_path, (a->o.dry_run || (c->msr_is_file && !(st.st_mode & 0222))
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
			 c->msr_path, L == &intel_hwp ? "HWP" : "CPPC",
			 L->enable_name, L->enable);
		return -ENODEV;
	}
	err = msr_read_why(c->msr_fd, c->msr_is_file, c->msr_path, L->caps, &caps, why, n);
	if (err)
		return err;
	c->lowest = field_get(caps, L->cap_lowest_shift);
	c->highest = field_get(caps, L->cap_highest_shift);
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
