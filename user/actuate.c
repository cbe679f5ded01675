// SPDX-License-Identifier: GPL-2.0
/*
 * Actuation backends: apply a CPU's floor (0..1024) and idle pick.
 *
 * Every register or file we may change is a "knob". Before the first write
 * to a knob its original is captured by act_save_original() (the single
 * place a crash-safety journal hooks into), writes happen only on change,
 * act_reassert() rewrites knobs that someone else changed, and act_restore()
 * puts every original back byte-exact.
 *
 * MSR access goes through msr_read()/msr_write() only: that is the one place
 * where a stand-in regular file (MSR X at offset 8*X) and the msr device
 * (offset X) differ.
 *
 * Floor scaling (all backends): min = lowest + round((highest - lowest) *
 * floor / 1024), rounding half up ((range * floor + 512) / 1024 in integers),
 * floor clamped to 1024. With lowest 8, highest 40: 0 -> 8, 512 -> 24,
 * 1024 -> 40. For MSRs the result is capped at the request's max field
 * (unless that field is 0: a request nobody has programmed); for cpufreq at
 * scaling_max_freq.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actuate.h"
#include "log.h"

#define MSR_IA32_PM_ENABLE		0x770
#define MSR_IA32_HWP_CAPABILITIES	0x771
#define MSR_IA32_HWP_REQUEST		0x774
#define MSR_AMD_CPPC_CAP1		0xc00102b0
#define MSR_AMD_CPPC_ENABLE		0xc00102b1
#define MSR_AMD_CPPC_REQ		0xc00102b3

#define KNOB_TEXT	64	/* sysfs values we touch are tiny */

struct msr_layout {
	const char *name;
	__u32 enable, caps, req;
	const char *enable_name;	/* for messages */
	unsigned int cap_lowest_shift, cap_highest_shift;
	unsigned int req_min_shift, req_max_shift;
};

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

struct knob {
	int cpu;
	bool is_msr;
	char *path;
	/* is_msr */
	int fd;			/* the CPU's msr fd (owned by act_cpu) */
	bool is_file;
	__u32 msr;
	unsigned int shift;	/* our 8-bit field: bits shift+7..shift */
	unsigned int max_shift;	/* the request's max field (cap) */
	/* the original, captured by act_save_original() */
	bool saved;		/* restore pending */
	__u64 orig_val;
	char orig_text[KNOB_TEXT];
	size_t orig_len;
	/* what we want and what we saw after our last write */
	bool written;		/* written (dry-run: would have been) */
	__u32 want_field;	/* is_msr: target min, before the max cap */
	__u32 seen_field;	/* is_msr: min field read back after our write */
	char want_text[KNOB_TEXT];	/* !is_msr: normalised */
	char seen_text[KNOB_TEXT];	/* !is_msr: normalised read-back */
};

struct act_cpu {
	bool online;
	bool has_floor;		/* floor backend usable on this CPU */
	int msr_fd;
	bool msr_is_file;
	char *msr_path;
	__u32 lowest, highest;	/* backend units (kHz for cpufreq) */
	__u32 orig_min;		/* min at open, for status before any write */
	struct knob floor;
	bool has_qos;
	struct knob qos;
	char qos_orig[KNOB_TEXT];	/* normalised text at open */
	__u32 qos_orig_us;
	bool qos_orig_na;
	int nr_disable;			/* stateK/disable for K < nr_disable */
	struct knob disable[BPFGOV_MAX_STATES];
	bool floor_set, pick_set;	/* last_* cached: skip unchanged requests */
	bool pick_ever;
	__u32 last_floor, last_pick;
	__u64 writes, reasserts, errors;
};

struct actuator {
	struct act_opts o;
	char *msr_root;
	char *sysfs_root;
	enum act_backend backend;
	const struct msr_layout *layout;	/* MSR backends */
	bool msr_standin;	/* some <msr_root>/N/msr is a regular file */
	bool use_disable;	/* governor honours stateK/disable */
	bool idle_ok;
	char *missing;
	act_save_hook_fn hook;
	void *hook_ctx;
	int nr_cpus;
	struct act_cpu *cpus;
};

/* ------------------------------------------------------------------ */
/* MSR primitive: the only place stand-in and device differ            */

static int msr_xfer(int fd, bool is_file, __u32 msr, __u64 *val, bool wr,
		    ssize_t *got)
{
	off_t off = is_file ? (off_t)msr * 8 : (off_t)msr;
	ssize_t n;

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
	return msr_xfer(fd, is_file, msr, val, false, NULL);
}

int msr_write(int fd, bool is_file, __u32 msr, __u64 val)
{
	return msr_xfer(fd, is_file, msr, &val, true, NULL);
}

/* Read with a one-line reason in @why on failure. */
static int msr_read_why(int fd, bool is_file, const char *path, __u32 msr,
			__u64 *val, char *why, size_t n)
{
	ssize_t got = 0;
	int err = msr_xfer(fd, is_file, msr, val, false, &got);

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

/* ------------------------------------------------------------------ */
/* Small file helpers                                                   */

static char *path_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *path_fmt(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		p = NULL;
	va_end(ap);
	return p;
}

static bool path_exists(const char *p)
{
	struct stat st;

	return p && stat(p, &st) == 0;
}

/* Read a whole small file: exact bytes in @buf (NUL-terminated). */
static int read_text(const char *path, char *buf, size_t size, size_t *len)
{
	ssize_t n;
	size_t off = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf + off, size - 1 - off);
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		off += n;
		if (off == size - 1) {
			char c;

			if (read(fd, &c, 1) > 0)
				err = -EFBIG;
			break;
		}
	}
	close(fd);
	buf[off] = '\0';
	if (len)
		*len = off;
	return err;
}

/* Copy @s without trailing whitespace. */
static void norm(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static int read_norm(const char *path, char *buf, size_t size)
{
	char raw[KNOB_TEXT];
	int err = read_text(path, raw, sizeof(raw), NULL);

	if (err)
		return err;
	norm(buf, size, raw);
	return 0;
}

static int read_u32(const char *path, __u32 *v)
{
	char buf[KNOB_TEXT], *end;
	unsigned long x;
	int err = read_norm(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	x = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || x > 0xffffffffUL)
		return -EINVAL;
	*v = x;
	return 0;
}

/* A file we would write: exists, has a write bit (sysfs files without a
 * store method are 0444; root would otherwise get past a stand-in's mode)
 * and opens for writing. Writes nothing. */
static int check_writable(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st))
		return -errno;
	if (!(st.st_mode & 0222))
		return -EACCES;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int write_exact(const char *path, const char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	err = check_writable(path);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* ------------------------------------------------------------------ */
/* Save / write / restore                                              */

/*
 * The single place where originals are captured, right before the first
 * write to a knob (@cur: the register's 8 bytes, or the file's exact text).
 * A state journal for crash safety hooks in here (act_set_save_hook).
 */
static int act_save_original(struct actuator *a, struct knob *k, __u64 cur,
			     const char *text, size_t len)
{
	struct act_saved s = {
		.cpu = k->cpu, .is_msr = k->is_msr, .path = k->path,
		.msr = k->msr, .msr_val = cur,
	};
	int err;

	if (k->saved)
		return 0;
	if (!k->is_msr) {
		if (len >= sizeof(k->orig_text))
			return -EFBIG;
		memcpy(k->orig_text, text, len);
		k->orig_text[len] = '\0';
		k->orig_len = len;
		s.text = k->orig_text;
		s.len = len;
	}
	k->orig_val = cur;
	if (a->hook) {
		err = a->hook(a->hook_ctx, &s);
		if (err)
			return err < 0 ? err : -EIO;
	}
	k->saved = true;
	return 0;
}

static __u32 field_get(__u64 v, unsigned int shift)
{
	return (v >> shift) & 0xff;
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

/* Read-modify-write our field of an MSR knob to @want (uncapped target). */
static int msr_knob_set(struct actuator *a, struct act_cpu *c, struct knob *k,
			__u32 want, bool *wrote)
{
	char why[256];
	__u64 cur, nv, back;
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
	err = msr_write(k->fd, k->is_file, k->msr, nv);
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
	if (msr_read(k->fd, k->is_file, k->msr, &back) == 0)
		k->seen_field = field_get(back, k->shift);
	else
		k->seen_field = nmin;
	return 0;
}

/* Set a file knob to @want (normalised text; written with a newline). */
static int file_knob_set(struct actuator *a, struct act_cpu *c, struct knob *k,
			 const char *want, bool *wrote)
{
	char raw[KNOB_TEXT], cur[KNOB_TEXT], out[KNOB_TEXT + 1];
	size_t len;
	int err, n;

	*wrote = false;
	if (a->o.dry_run && k->written) {
		if (!strcmp(k->seen_text, want))
			return 0;
	} else {
		err = read_text(k->path, raw, sizeof(raw), &len);
		if (err) {
			pr_warn("cannot read %s: %s\n", k->path, strerror(-err));
			return err;
		}
		norm(cur, sizeof(cur), raw);
		if (!strcmp(cur, want)) {
			snprintf(k->want_text, sizeof(k->want_text), "%s", want);
			if (k->written)
				snprintf(k->seen_text, sizeof(k->seen_text), "%s", cur);
			return 0;
		}
	}
	snprintf(k->want_text, sizeof(k->want_text), "%s", want);
	if (a->o.dry_run) {
		pr_info("dry-run: would write '%s' to %s\n", want, k->path);
		if (!k->written) {	/* tracked, not saved: nothing to restore */
			snprintf(k->orig_text, sizeof(k->orig_text), "%s", raw);
			k->orig_len = len;
		}
		k->written = true;
		snprintf(k->seen_text, sizeof(k->seen_text), "%s", want);
		*wrote = true;
		c->writes++;
		return 0;
	}
	err = act_save_original(a, k, 0, raw, len);
	if (err) {
		pr_warn("%s: saving the original failed: %s\n", k->path, strerror(-err));
		return err;
	}
	n = snprintf(out, sizeof(out), "%s\n", want);
	err = write_exact(k->path, out, n);
	if (err) {
		pr_warn("cannot write '%s' to %s: %s\n", want, k->path,
			err == -EACCES ? "read-only" : err == -EIO ? "short write" : strerror(-err));
		return err;
	}
	k->written = true;
	*wrote = true;
	c->writes++;
	pr_debug("cpu %d: %s: '%s' -> '%s'\n", k->cpu, k->path, cur, want);
	if (read_norm(k->path, k->seen_text, sizeof(k->seen_text)))
		snprintf(k->seen_text, sizeof(k->seen_text), "%s", want);
	return 0;
}

/* Re-assert one knob: 1 if rewritten, 0 if fine, -errno. */
static int knob_reassert(struct actuator *a, struct act_cpu *c, struct knob *k)
{
	bool wrote;
	int err;

	if (!k->written || a->o.dry_run)
		return 0;
	if (k->is_msr) {
		__u64 cur;

		err = msr_read(k->fd, k->is_file, k->msr, &cur);
		if (err) {
			pr_warn("%s: cannot read MSR %#x back: %s\n", k->path, k->msr,
				err == -EIO ? "short read" : strerror(-err));
			return err;
		}
		if (field_get(cur, k->shift) == k->seen_field)
			return 0;
		pr_debug("cpu %d: MSR %#x min changed behind us (%u, ours %u)\n",
			 k->cpu, k->msr, field_get(cur, k->shift), k->seen_field);
		err = msr_knob_set(a, c, k, k->want_field, &wrote);
	} else {
		char now[KNOB_TEXT], want[KNOB_TEXT];

		err = read_norm(k->path, now, sizeof(now));
		if (err) {
			pr_warn("cannot read %s back: %s\n", k->path, strerror(-err));
			return err;
		}
		if (!strcmp(now, k->seen_text))
			return 0;
		pr_debug("%s changed behind us ('%s', ours '%s')\n", k->path, now,
			 k->seen_text);
		snprintf(want, sizeof(want), "%s", k->want_text);
		err = file_knob_set(a, c, k, want, &wrote);
	}
	if (err)
		return err;
	if (wrote)
		c->reasserts++;
	return wrote;
}

/* Put a knob's original back if it differs. */
/* Put an original back unless it is already there: 1 = already in place,
 * 0 = written, -errno. Shared with the journal's restore (journal.c), so a
 * crash restore takes the same path as a normal exit. */
int act_put_back_msr(int fd, bool is_file, __u32 msr, __u64 orig)
{
	__u64 cur;
	int err;

	if (msr_read(fd, is_file, msr, &cur) == 0 && cur == orig)
		return 1;
	err = msr_write(fd, is_file, msr, orig);
	return err ? err : 0;
}

int act_put_back_file(const char *path, const char *text, size_t len)
{
	char cur[KNOB_TEXT];
	size_t n;
	int err;

	if (len < sizeof(cur) && read_text(path, cur, sizeof(cur), &n) == 0 &&
	    n == len && !memcmp(cur, text, len))
		return 1;
	err = write_exact(path, text, len);
	return err ? err : 0;
}

static int knob_restore(struct knob *k)
{
	int err = 0;

	if (!k->saved)
		goto out;
	if (k->is_msr) {
		err = act_put_back_msr(k->fd, k->is_file, k->msr, k->orig_val);
		if (err < 0)
			pr_warn("%s: cannot restore MSR %#x of cpu %d to %#llx: %s\n",
				k->path, k->msr, k->cpu, (unsigned long long)k->orig_val,
				err == -EIO ? "short write" : strerror(-err));
	} else {
		err = act_put_back_file(k->path, k->orig_text, k->orig_len);
		if (err < 0) {
			char t[KNOB_TEXT];

			norm(t, sizeof(t), k->orig_text);
			pr_warn("cannot restore %s to '%s': %s\n", k->path, t,
				strerror(-err));
		}
	}
	if (err < 0)
		return err;	/* keep it pending: a later restore retries */
out:
	k->saved = false;
	k->written = false;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Probing                                                              */

static bool cpu_online(const struct actuator *a, int cpu)
{
	char buf[KNOB_TEXT], *p;
	bool on = true;

	p = path_fmt("%s/devices/system/cpu/cpu%d/online", a->sysfs_root, cpu);
	if (p && read_norm(p, buf, sizeof(buf)) == 0 && !strcmp(buf, "0"))
		on = false;
	free(p);
	return on;
}

static void knob_init(struct knob *k, int cpu)
{
	memset(k, 0, sizeof(*k));
	k->cpu = cpu;
	k->fd = -1;
}

static void knob_free(struct knob *k)
{
	free(k->path);
	k->path = NULL;
}

/* Undo a floor-backend probe on every CPU. */
static void floor_reset(struct actuator *a)
{
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];

		if (c->msr_fd >= 0)
			close(c->msr_fd);
		c->msr_fd = -1;
		free(c->msr_path);
		c->msr_path = NULL;
		knob_free(&c->floor);
		knob_init(&c->floor, i);
		c->has_floor = false;
		c->lowest = c->highest = c->orig_min = 0;
	}
	a->layout = NULL;
}

/* One CPU's MSR backend. -ENOENT: no msr file (skip); other -errno: broken
 * (reason in @why). */
static int probe_msr_cpu(struct actuator *a, const struct msr_layout *L,
			 struct act_cpu *c, int cpu, char *why, size_t n)
{
	__u64 en, caps, req;
	struct stat st;
	int err;

	c->msr_path = path_fmt("%s/%d/msr", a->msr_root, cpu);
	if (!c->msr_path)
		return -ENOMEM;
	if (stat(c->msr_path, &st)) {
		err = -errno;
		snprintf(why, n, "%s: %s", c->msr_path, strerror(-err));
		return err;
	}
	c->msr_is_file = S_ISREG(st.st_mode);
	if (c->msr_is_file) {
		a->msr_standin = true;
		if (!a->o.dry_run && !(st.st_mode & 0222)) {
			snprintf(why, n, "%s: read-only", c->msr_path);
			return -EACCES;
		}
	}
	c->msr_fd = open(c->msr_path, (a->o.dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC);
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

static int probe_cpufreq_cpu(struct actuator *a, struct act_cpu *c, int cpu,
			     char *why, size_t n)
{
	char *dir, *p;
	__u32 lo, hi, cur;
	int err;

	dir = path_fmt("%s/devices/system/cpu/cpu%d/cpufreq", a->sysfs_root, cpu);
	if (!dir)
		return -ENOMEM;
	if (!path_exists(dir)) {
		snprintf(why, n, "%s missing", dir);
		free(dir);
		return -ENOENT;
	}
	p = path_fmt("%s/cpuinfo_min_freq", dir);
	err = p ? read_u32(p, &lo) : -ENOMEM;
	if (!err) {
		free(p);
		p = path_fmt("%s/cpuinfo_max_freq", dir);
		err = p ? read_u32(p, &hi) : -ENOMEM;
	}
	if (!err) {
		free(p);
		p = path_fmt("%s/scaling_min_freq", dir);
		err = p ? read_u32(p, &cur) : -ENOMEM;
	}
	if (!err && !a->o.dry_run)
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

/* Probe a floor backend on every online CPU. 0 when at least one CPU works
 * and none is broken; -ENOENT when no CPU has it (@why names the first
 * missing file); another -errno when broken (@why says why). */
static int probe_backend(struct actuator *a, enum act_backend b, char *why, size_t n)
{
	char first[256] = "";
	int ok = 0, err;

	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		char w[256] = "";

		if (!c->online) {
			pr_debug("cpu %d offline: skipped\n", i);
			continue;
		}
		if (b == ACT_CPUFREQ)
			err = probe_cpufreq_cpu(a, c, i, w, sizeof(w));
		else
			err = probe_msr_cpu(a, b == ACT_INTEL_HWP ? &intel_hwp : &amd_cppc,
					    c, i, w, sizeof(w));
		if (err == -ENOENT) {
			pr_debug("%s: cpu %d: %s: skipped\n", act_backend_name(b), i, w);
			if (!first[0])
				snprintf(first, sizeof(first), "%s", w);
			c->has_floor = false;
			continue;
		}
		if (err) {
			snprintf(why, n, "%s", w);
			floor_reset(a);
			return err;
		}
		ok++;
	}
	if (!ok) {
		snprintf(why, n, "%s", first[0] ? first : "no online CPU");
		floor_reset(a);
		return -ENOENT;
	}
	if (b != ACT_CPUFREQ)
		a->layout = b == ACT_INTEL_HWP ? &intel_hwp : &amd_cppc;
	return 0;
}

static void probe_idle(struct actuator *a)
{
	char gov[KNOB_TEXT] = "", *p;

	p = path_fmt("%s/devices/system/cpu/cpuidle/current_governor", a->sysfs_root);
	if (!p || read_norm(p, gov, sizeof(gov))) {
		free(p);
		p = path_fmt("%s/devices/system/cpu/cpuidle/current_governor_ro",
			     a->sysfs_root);
		if (!p || read_norm(p, gov, sizeof(gov)))
			gov[0] = '\0';
	}
	free(p);
	a->use_disable = !strcmp(gov, "menu") || !strcmp(gov, "teo");

	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		char *q;

		if (!c->online)
			continue;
		q = path_fmt("%s/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
			     a->sysfs_root, i);
		if (q && read_norm(q, c->qos_orig, sizeof(c->qos_orig)) == 0) {
			c->has_qos = true;
			c->qos.path = q;
			c->qos_orig_na = !strcmp(c->qos_orig, "n/a");
			c->qos_orig_us = c->qos_orig_na ? ACT_QOS_POLL_ONLY
					 : (__u32)strtoul(c->qos_orig, NULL, 10);
			a->idle_ok = true;
		} else {
			pr_debug("cpu %d: no PM QoS file: idle not actuated there\n", i);
			free(q);
		}
		if (!a->use_disable)
			continue;
		for (int k = 0; k < BPFGOV_MAX_STATES; k++) {
			q = path_fmt("%s/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
				     a->sysfs_root, i, k);
			if (!path_exists(q)) {
				free(q);
				break;
			}
			c->disable[k].path = q;
			c->nr_disable = k + 1;
		}
	}
}

/* Idle files we would write must be writable: error (nothing changed). */
static int check_idle_writable(struct actuator *a)
{
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		int err;

		if (c->has_qos && (err = check_writable(c->qos.path))) {
			pr_warn("cannot write %s: %s\n", c->qos.path,
				err == -EACCES ? "read-only" : strerror(-err));
			return err;
		}
		for (int k = 0; k < c->nr_disable; k++) {
			err = check_writable(c->disable[k].path);
			if (err) {
				pr_warn("cannot write %s: %s\n", c->disable[k].path,
					err == -EACCES ? "read-only" : strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Public API                                                           */

const char *act_backend_name(enum act_backend b)
{
	switch (b) {
	case ACT_AUTO:		return "auto";
	case ACT_NONE:		return "none";
	case ACT_INTEL_HWP:	return "intel-hwp";
	case ACT_AMD_CPPC:	return "amd-cppc";
	case ACT_CPUFREQ:	return "cpufreq";
	}
	return "?";
}

int act_backend_parse(const char *s, enum act_backend *out)
{
	for (int b = ACT_AUTO; b <= ACT_CPUFREQ; b++) {
		if (s && !strcmp(s, act_backend_name(b))) {
			*out = b;
			return 0;
		}
	}
	return -EINVAL;
}

enum act_backend act_backend(const struct actuator *a)
{
	return a ? a->backend : ACT_NONE;
}

const char *act_missing(const struct actuator *a)
{
	return a ? a->missing : NULL;
}

bool act_idle_available(const struct actuator *a)
{
	return a && a->idle_ok;
}

void act_set_save_hook(struct actuator *a, act_save_hook_fn fn, void *ctx)
{
	if (!a)
		return;
	a->hook = fn;
	a->hook_ctx = ctx;
}

static int open_floor(struct actuator *a)
{
	char wi[256] = "", wa[256] = "", wc[256] = "";
	enum act_backend b = a->o.backend;
	int ei, ea, ec;

	if (!a->o.floor) {
		a->backend = ACT_NONE;
		return 0;
	}
	switch (b) {
	case ACT_NONE:
		a->backend = ACT_NONE;
		return 0;
	case ACT_INTEL_HWP:
	case ACT_AMD_CPPC:
		ei = probe_backend(a, b, wi, sizeof(wi));
		if (ei) {
			pr_warn("%s: %s%s\n", act_backend_name(b), wi,
				ei == -ENOENT ? " (no MSR driver: modprobe msr)" : "");
			return ei;
		}
		a->backend = b;
		return 0;
	case ACT_CPUFREQ:
		ec = probe_backend(a, b, wc, sizeof(wc));
		if (ec) {
			pr_warn("cpufreq: %s%s\n", wc,
				ec == -ENOENT ? " (no cpufreq driver)" : "");
			return ec;
		}
		a->backend = b;
		return 0;
	case ACT_AUTO:
		break;
	default:
		pr_warn("unknown actuation backend %d\n", b);
		return -EINVAL;
	}

	ei = probe_backend(a, ACT_INTEL_HWP, wi, sizeof(wi));
	if (!ei) {
		a->backend = ACT_INTEL_HWP;
		return 0;
	}
	ea = probe_backend(a, ACT_AMD_CPPC, wa, sizeof(wa));
	if (!ea) {
		a->backend = ACT_AMD_CPPC;
		return 0;
	}
	/* Stand-in files are put there on purpose: one that works for neither
	 * layout is a broken input, not a missing driver. */
	if (a->msr_standin && (ei != -ENOENT || ea != -ENOENT)) {
		pr_warn("MSR stand-in unusable: intel-hwp: %s; amd-cppc: %s\n", wi, wa);
		return ei != -ENOENT && ei != -ENODEV ? ei : ea != -ENOENT ? ea : ei;
	}
	ec = probe_backend(a, ACT_CPUFREQ, wc, sizeof(wc));
	if (!ec) {
		a->backend = ACT_CPUFREQ;
		return 0;
	}
	a->backend = ACT_NONE;
	if (ei == -ENOENT && ea == -ENOENT) {
		char *p = path_fmt("%s/0/msr", a->msr_root);

		a->missing = path_fmt("no MSR driver (%s): modprobe msr; no cpufreq driver (%s)",
				      p ? p : a->msr_root, wc);
		free(p);
	} else {
		a->missing = path_fmt("no usable MSR backend (intel-hwp: %s; amd-cppc: %s); "
				      "no cpufreq driver (%s)", wi, wa, wc);
	}
	if (!a->missing)
		return -ENOMEM;
	pr_debug("actuation: %s\n", a->missing);
	return 0;
}

int act_open(struct actuator **out, const struct act_opts *o)
{
	struct actuator *a;
	long n;
	int err;

	if (!out || !o)
		return -EINVAL;
	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->o = *o;
	a->msr_root = strdup(o->msr_root ? o->msr_root : "/dev/cpu");
	a->sysfs_root = strdup(o->sysfs_root ? o->sysfs_root : "/sys");
	a->o.msr_root = a->msr_root;
	a->o.sysfs_root = a->sysfs_root;
	n = o->nr_cpus > 0 ? o->nr_cpus : sysconf(_SC_NPROCESSORS_CONF);
	if (n <= 0)
		n = 1;
	if (n > BPFGOV_MAX_CPUS)
		n = BPFGOV_MAX_CPUS;
	a->nr_cpus = n;
	a->cpus = calloc(n, sizeof(*a->cpus));
	if (!a->msr_root || !a->sysfs_root || !a->cpus) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];

		c->msr_fd = -1;
		knob_init(&c->floor, i);
		knob_init(&c->qos, i);
		for (int k = 0; k < BPFGOV_MAX_STATES; k++)
			knob_init(&c->disable[k], i);
		c->online = cpu_online(a, i);
	}

	err = open_floor(a);
	if (err)
		goto fail;
	if (o->idle) {
		probe_idle(a);
		if (!o->dry_run) {
			err = check_idle_writable(a);
			if (err)
				goto fail;
		}
	}
	if (a->backend != ACT_NONE)
		pr_debug("actuation: %s, lowest %u highest %u on cpu 0%s\n",
			 act_backend_name(a->backend), a->cpus[0].lowest,
			 a->cpus[0].highest, o->dry_run ? " (dry-run)" : "");
	*out = a;
	return 0;
fail:
	act_close(a);
	return err;
}

static struct act_cpu *cpu_get(const struct actuator *a, int cpu)
{
	if (!a || cpu < 0 || cpu >= a->nr_cpus)
		return NULL;
	return &a->cpus[cpu];
}

static __u32 scale_floor(__u32 lo, __u32 hi, __u32 floor)
{
	if (floor > BPFGOV_SCALE)
		floor = BPFGOV_SCALE;
	return lo + (__u32)(((__u64)(hi - lo) * floor + BPFGOV_SCALE / 2) / BPFGOV_SCALE);
}

int act_set_floor(struct actuator *a, int cpu, __u32 floor)
{
	struct act_cpu *c = cpu_get(a, cpu);
	bool wrote;
	__u32 want;
	int err;

	if (!c)
		return -EINVAL;
	if (floor > BPFGOV_SCALE)
		floor = BPFGOV_SCALE;
	if (!a->o.floor || a->backend == ACT_NONE || !c->has_floor) {
		if (a->backend != ACT_NONE && a->o.floor && !c->has_floor)
			pr_debug("cpu %d: offline or missing: floor not applied\n", cpu);
		c->last_floor = floor;
		c->floor_set = true;
		return 0;
	}
	if (c->floor_set && c->last_floor == floor)
		return 0;	/* unchanged: act_reassert() watches for drift */
	want = scale_floor(c->lowest, c->highest, floor);
	if (c->floor.is_msr) {
		err = msr_knob_set(a, c, &c->floor, want, &wrote);
	} else {
		char txt[KNOB_TEXT], *p;
		__u32 max;

		p = path_fmt("%s/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
			     a->sysfs_root, cpu);
		if (p && read_u32(p, &max) == 0 && max && want > max)
			want = max;
		free(p);
		snprintf(txt, sizeof(txt), "%u", want);
		err = file_knob_set(a, c, &c->floor, txt, &wrote);
	}
	if (err) {
		c->errors++;
		return err;
	}
	c->last_floor = floor;
	c->floor_set = true;
	return 0;
}

/* What pm_qos_resume_latency_us should hold for @pick (normalised text). */
static void qos_text(const struct act_cpu *c, __u32 pick, const struct bpfgov_config *cfg,
		     char *buf, size_t n)
{
	__u32 lim;

	if (c->qos_orig_na || pick == BPFGOV_NO_STATE || pick + 1 >= cfg->nr_states) {
		snprintf(buf, n, "%s", c->qos_orig);	/* deepest: no new limit */
		return;
	}
	if (cfg->state_is_poll[pick]) {
		snprintf(buf, n, "n/a");
		return;
	}
	/* Intermediate: the tightest limit that still allows @pick, so deeper
	 * states with a larger exit latency are excluded; 0 in the file means
	 * "no constraint", so at least 1. Never looser than the original. */
	lim = cfg->state_exit_latency_us[pick];
	if (!lim)
		lim = 1;
	if (c->qos_orig_us && lim >= c->qos_orig_us)
		snprintf(buf, n, "%s", c->qos_orig);
	else
		snprintf(buf, n, "%u", lim);
}

int act_set_idle(struct actuator *a, int cpu, __u32 pick, const struct bpfgov_config *cfg)
{
	struct act_cpu *c = cpu_get(a, cpu);
	char want[KNOB_TEXT];
	bool wrote;
	int err = 0, e;

	if (!c || !cfg || cfg->nr_states > BPFGOV_MAX_STATES)
		return -EINVAL;
	if (pick != BPFGOV_NO_STATE && pick >= cfg->nr_states && cfg->nr_states)
		return -EINVAL;
	if (!a->o.idle || !c->has_qos || !cfg->nr_states) {
		if (a->o.idle)
			pr_debug("cpu %d: offline or no PM QoS file: pick not applied\n", cpu);
		c->last_pick = pick;
		c->pick_set = c->pick_ever = true;
		return 0;
	}
	if (c->pick_set && c->last_pick == pick)
		return 0;	/* unchanged: act_reassert() watches for drift */

	/* Check everything first so a read-only file changes nothing. */
	if (!a->o.dry_run) {
		e = check_writable(c->qos.path);
		if (e) {
			pr_warn("cannot write %s: %s\n", c->qos.path,
				e == -EACCES ? "read-only" : strerror(-e));
			c->errors++;
			return e;
		}
	}
	qos_text(c, pick, cfg, want, sizeof(want));
	err = file_knob_set(a, c, &c->qos, want, &wrote);

	/* menu/teo honour stateK/disable: disable states deeper than the pick,
	 * give the others their original back. */
	for (int k = 0; !err && a->use_disable && k < c->nr_disable &&
			k < (int)cfg->nr_states; k++) {
		struct knob *d = &c->disable[k];
		bool deeper = pick != BPFGOV_NO_STATE && (__u32)k > pick;
		char orig[KNOB_TEXT];

		if (deeper) {
			err = file_knob_set(a, c, d, "1", &wrote);
		} else if (d->written) {
			norm(orig, sizeof(orig), d->orig_text);
			err = file_knob_set(a, c, d, orig, &wrote);
		}
	}
	if (err) {
		c->errors++;
		return err;
	}
	c->last_pick = pick;
	c->pick_set = c->pick_ever = true;
	return 0;
}

int act_reassert(struct actuator *a)
{
	int total = 0, first = 0, r;

	if (!a)
		return -EINVAL;
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		struct knob *ks[2 + BPFGOV_MAX_STATES];
		int n = 0;

		ks[n++] = &c->floor;
		ks[n++] = &c->qos;
		for (int k = 0; k < c->nr_disable; k++)
			ks[n++] = &c->disable[k];
		for (int j = 0; j < n; j++) {
			if (!ks[j]->path)
				continue;
			r = knob_reassert(a, c, ks[j]);
			if (r < 0) {
				c->errors++;
				if (!first)
					first = r;
			} else {
				total += r;
			}
		}
	}
	return first ? first : total;
}

int act_restore(struct actuator *a)
{
	int first = 0, r;

	if (!a || !a->cpus)
		return 0;
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];

		r = knob_restore(&c->floor);
		if (r && !first)
			first = r;
		for (int k = 0; k < c->nr_disable; k++) {
			r = knob_restore(&c->disable[k]);
			if (r && !first)
				first = r;
		}
		r = knob_restore(&c->qos);
		if (r && !first)
			first = r;
		/* the next request applies anew */
		c->floor_set = false;
		c->pick_set = false;
	}
	return first;
}

int act_cpu_info(const struct actuator *a, int cpu, struct act_cpu_info *out)
{
	const struct act_cpu *c = cpu_get(a, cpu);

	if (!c || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->online = c->online;
	out->hw_lowest = c->lowest;
	out->hw_highest = c->highest;
	out->hw_min = c->orig_min;
	if (c->has_floor) {
		if (c->floor.is_msr) {
			__u64 v;

			if (a->o.dry_run && c->floor.written)
				out->hw_min = c->floor.seen_field;
			else if (msr_read(c->floor.fd, c->floor.is_file, c->floor.msr, &v) == 0)
				out->hw_min = field_get(v, c->floor.shift);
		} else {
			__u32 v;

			if (a->o.dry_run && c->floor.written)
				out->hw_min = strtoul(c->floor.seen_text, NULL, 10);
			else if (read_u32(c->floor.path, &v) == 0)
				out->hw_min = v;
		}
	}
	out->last_floor = c->last_floor;
	out->last_pick = c->pick_ever ? c->last_pick : BPFGOV_NO_STATE;
	out->writes = c->writes;
	out->reasserts = c->reasserts;
	out->errors = c->errors;
	return 0;
}

__u32 act_orig_qos_us(const struct actuator *a, int cpu)
{
	const struct act_cpu *c = cpu_get(a, cpu);

	return c && c->has_qos ? c->qos_orig_us : 0;
}

void act_close(struct actuator *a)
{
	if (!a)
		return;
	act_restore(a);
	if (a->cpus) {
		floor_reset(a);
		for (int i = 0; i < a->nr_cpus; i++) {
			knob_free(&a->cpus[i].qos);
			for (int k = 0; k < BPFGOV_MAX_STATES; k++)
				knob_free(&a->cpus[i].disable[k]);
		}
	}
	free(a->cpus);
	free(a->missing);
	free(a->msr_root);
	free(a->sysfs_root);
	free(a);
}

int act_pending(const struct actuator *a)
{
	int n = 0;

	if (!a || !a->cpus)
		return 0;
	for (int i = 0; i < a->nr_cpus; i++) {
		const struct act_cpu *c = &a->cpus[i];

		n += c->floor.saved + c->qos.saved;
		for (int k = 0; k < c->nr_disable; k++)
			n += c->disable[k].saved;
	}
	return n;
}
