// SPDX-License-Identifier: GPL-2.0
/*
 * Actuation backends: apply a CPU's floor (0..1024) and idle pick.
 *
 * Every register or file we may change is a "knob". Before the first write
 * to a knob its original is captured by act_save_original() (the single
 * place a crash-safety journal hooks into; act_save_all() captures them
 * ahead, at start), writes happen only on change, act_reassert() rewrites
 * knobs that someone else changed, and act_restore() puts every original
 * of a written knob back byte-exact.
 *
 * This file is the knob core and the public interface (actuate.h); the
 * backends live in act_msr.c (intel-hwp, amd-cppc), act_cpufreq.c and
 * act_idle.c (PM QoS, cpuidle state knobs), sharing act_internal.h.
 *
 * Floor scaling (all backends): min = lowest + round((highest - lowest) *
 * floor / 1024), rounding half up ((range * floor + 512) / 1024 in integers),
 * floor clamped to 1024. With lowest 8, highest 40: 0 -> 8, 512 -> 24,
 * 1024 -> 40. For MSRs the result is capped at the request's max field
 * (unless that field is 0: a request nobody has programmed); for cpufreq at
 * scaling_max_freq.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_internal.h"
#include "log.h"
#include "util.h"

int read_norm(const char *path, char *buf, size_t size)
{
	char raw[KNOB_TEXT];
	int err = read_text(path, O_NOFOLLOW, raw, sizeof(raw), NULL);

	if (err)
		return err;
	str_rstrip_copy(buf, size, raw);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Save / write / restore                                              */

/*
 * The single place where originals are captured, before the first write
 * to a knob (@cur: the register's 8 bytes, or the file's exact text).
 * A state journal for crash safety hooks in here (act_set_save_hook).
 */
int act_save_original(struct actuator *a, struct knob *k, __u64 cur,
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

/*
 * A file knob's descriptor, opened at its first use and kept: a change then
 * costs a read, a write and a read back on it instead of an open and a
 * close around each (and a stand-in file is rewritten in place, not
 * truncated by open). -errno when it cannot be opened; the callers then
 * go by the path, which reports the error as before.
 */
static int knob_fd(struct actuator *a, struct knob *k)
{
	int fd;

	if (k->tfd_open)
		return k->tfd;
	fd = open(k->path, (a->o.dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	k->tfd = fd;
	k->tfd_open = true;
	return fd;
}

static void knob_fd_close(struct knob *k)
{
	if (k->tfd_open)
		close(k->tfd);
	k->tfd_open = false;
}

/* The knob's text as read_text() gives it; the file is read from its
 * start (sysfs regenerates an attribute read at offset 0). */
static int knob_read(struct actuator *a, struct knob *k, char *buf, size_t size, size_t *len)
{
	int fd = knob_fd(a, k);
	ssize_t n;

	if (fd < 0)
		return read_text(k->path, O_NOFOLLOW, buf, size, len);
	n = pread(fd, buf, size, 0);
	if (n < 0 && (errno == ENODEV || errno == ESTALE)) {
		knob_fd_close(k);	/* the attribute went away and came back */
		return read_text(k->path, O_NOFOLLOW, buf, size, len);
	}
	if (n < 0)
		return -errno;
	if ((size_t)n >= size) {
		buf[0] = '\0';
		return -EFBIG;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return 0;
}

static int knob_read_norm(struct actuator *a, struct knob *k, char *buf, size_t size)
{
	char raw[KNOB_TEXT];
	int err = knob_read(a, k, raw, sizeof(raw), NULL);

	if (err)
		return err;
	str_rstrip_copy(buf, size, raw);
	return 0;
}

int knob_check_writable(struct actuator *a, struct knob *k)
{
	int fd = knob_fd(a, k);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return check_writable(k->path);
	return st.st_mode & 0222 ? 0 : -EACCES;
}

/* write_exact() on the kept descriptor: the whole text at offset 0; a
 * regular file (a stand-in) is cut to it. */
static int knob_write(struct actuator *a, struct knob *k, const char *buf, size_t len)
{
	int fd = knob_fd(a, k);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return write_exact(k->path, buf, len);
	if (fstat(fd, &st))
		return -errno;
	if (!(st.st_mode & 0222))
		return -EACCES;
	n = pwrite(fd, buf, len, 0);
	if (n < 0 && (errno == ENODEV || errno == ESTALE)) {
		knob_fd_close(k);
		return write_exact(k->path, buf, len);
	}
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	if (S_ISREG(st.st_mode) && st.st_size > (off_t)len && ftruncate(fd, len))
		return -errno;
	return 0;
}

int file_knob_set(struct actuator *a, struct act_cpu *c, struct knob *k,
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
		err = knob_read(a, k, raw, sizeof(raw), &len);
		if (err) {
			pr_warn("cannot read %s: %s\n", k->path, strerror(-err));
			return err;
		}
		str_rstrip_copy(cur, sizeof(cur), raw);
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
	err = knob_write(a, k, out, n);
	if (err) {
		pr_warn("cannot write '%s' to %s: %s\n", want, k->path,
			err == -EACCES ? "read-only" : err == -EIO ? "short write" : strerror(-err));
		return err;
	}
	k->written = true;
	*wrote = true;
	c->writes++;
	pr_debug("cpu %d: %s: '%s' -> '%s'\n", k->cpu, k->path, cur, want);
	if (knob_read_norm(a, k, k->seen_text, sizeof(k->seen_text)))
		snprintf(k->seen_text, sizeof(k->seen_text), "%s", want);
	return 0;
}

/* One knob's original, saved now (no write follows yet). */
static int knob_save_ahead(struct actuator *a, struct knob *k)
{
	char raw[KNOB_TEXT];
	size_t len;
	__u64 cur;
	int err;

	if (!k->path || k->saved)
		return 0;
	if (k->is_msr)
		err = msr_read(k->fd, k->is_file, k->msr, &cur);
	else
		err = knob_read(a, k, raw, sizeof(raw), &len);
	if (err) {
		pr_warn("cannot read %s: %s\n", k->path, strerror(-err));
		return err;
	}
	return k->is_msr ? act_save_original(a, k, cur, NULL, 0)
			 : act_save_original(a, k, 0, raw, len);
}

int act_save_all(struct actuator *a, bool idle)
{
	int err = 0;

	if (!a || a->o.dry_run)
		return 0;
	for (int i = 0; i < a->nr_cpus && !err; i++) {
		struct act_cpu *c = &a->cpus[i];

		if (a->o.floor && a->backend != ACT_NONE && c->has_floor)
			err = knob_save_ahead(a, &c->floor);
		if (err || !idle || !a->o.idle || !c->has_qos)
			continue;
		err = knob_save_ahead(a, &c->qos);
		for (int k = 0; !err && a->use_disable && k < c->nr_disable; k++)
			err = knob_save_ahead(a, &c->disable[k]);
	}
	return err;
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

		err = knob_read_norm(a, k, now, sizeof(now));
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

	if (len < sizeof(cur) && read_text(path, O_NOFOLLOW, cur, sizeof(cur), &n) == 0 &&
	    n == len && !memcmp(cur, text, len))
		return 1;
	err = write_exact(path, text, len);
	return err ? err : 0;
}

int knob_restore(struct knob *k)
{
	int err = 0;

	/* Saved ahead (act_save_all) and never written: nothing of ours to
	 * put back, and a value someone else wrote since stays. */
	if (!k->saved || !k->written)
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

			str_rstrip_copy(t, sizeof(t), k->orig_text);
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

	p = fmt_alloc("%s/devices/system/cpu/cpu%d/online", a->sysfs_root, cpu);
	if (p && read_norm(p, buf, sizeof(buf)) == 0 && !strcmp(buf, "0"))
		on = false;
	free(p);
	return on;
}

void knob_init(struct knob *k, int cpu)
{
	memset(k, 0, sizeof(*k));
	k->cpu = cpu;
	k->fd = -1;
}

void knob_free(struct knob *k)
{
	knob_fd_close(k);
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
			err = probe_msr_cpu(a, msr_layout_of(b), c, i, w, sizeof(w));
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
		a->layout = msr_layout_of(b);
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

const char *act_reason(const struct actuator *a)
{
	return a ? a->reason : "";
}

__u64 act_writes(const struct actuator *a, int cpu)
{
	const struct act_cpu *c = act_cpu_get(a, cpu);

	return c ? c->writes : 0;
}

const struct platform *act_platform(const struct actuator *a)
{
	return a ? &a->plat : NULL;
}

const char *act_epp(const struct actuator *a)
{
	return a ? a->epp : NULL;
}

bool act_taints(const struct actuator *a)
{
	return a && a->taints;
}

/* CPUs that came online since the last probe get their floor knob (the
 * backend in use) and PM QoS file; every CPU forgets what was applied so
 * the next request writes anew (the driver rewrote the registers). */
int act_reapply(struct actuator *a)
{
	char w[256];

	if (!a)
		return -EINVAL;
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		bool was = c->online;

		c->online = cpu_online(a, i);
		c->floor_set = false;
		c->pick_set = false;
		if (!c->online || was || c->has_floor || a->backend == ACT_NONE)
			continue;
		w[0] = '\0';
		if (a->backend == ACT_CPUFREQ ? probe_cpufreq_cpu(a, c, i, w, sizeof(w))
		    : probe_msr_cpu(a, msr_layout_of(a->backend), c, i, w, sizeof(w)))
			pr_debug("cpu %d came online without a usable floor knob: %s\n", i, w);
	}
	return a->epp ? act_apply_epp(a) : 0;
}

void act_set_save_hook(struct actuator *a, act_save_hook_fn fn, void *ctx)
{
	if (!a)
		return;
	a->hook = fn;
	a->hook_ctx = ctx;
}

static __thread char last_error[512];

const char *act_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

/* An act_open() failure: one line, kept for act_last_error(). */
static void act_fail(const struct actuator *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void act_fail(const struct actuator *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (!a->o.quiet)
		pr_warn("%s\n", last_error);
}

static void set_reason(struct actuator *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_reason(struct actuator *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->reason, sizeof(a->reason), fmt, ap);
	va_end(ap);
}

static bool is_msr_backend(enum act_backend b)
{
	return b == ACT_INTEL_HWP || b == ACT_AMD_CPPC;
}

/* A backend is in use: say why, and whether its writes taint. */
static void floor_chosen(struct actuator *a, enum act_backend b, const char *why)
{
	a->backend = b;
	a->taints = is_msr_backend(b) && !a->msr_standin;
	if (b == ACT_CPUFREQ)
		set_reason(a, "%s; per-CPU scaling_min_freq", why);
	else
		set_reason(a, "%s", why);
}

#define NO_MSRS	"no usable HWP/CPPC MSRs: "

/*
 * The floor backend: the platform's plan (plat_backend_plan: who owns the
 * register, whether MSR writes are permitted), then the first backend of
 * the plan that works on the machine. Nothing is written here.
 */
static int open_floor(struct actuator *a)
{
	char why[320], w[256] = "", first_fail[600] = "";
	enum act_backend want = a->o.backend;
	int err = 0, msr_err = 0, k;

	a->backend = ACT_NONE;
	if (!a->o.floor) {
		set_reason(a, "floors are not applied (--no-floor)");
		return 0;
	}
	if (want > ACT_CPUFREQ) {
		act_fail(a, "unknown actuation backend %d", want);
		return -EINVAL;
	}
	err = plat_backend_plan(&a->plat, want, a->order, why, sizeof(why));
	if (err) {
		act_fail(a, "%s", why);
		return err;
	}
	if (want != ACT_AUTO) {
		if (want == ACT_NONE) {
			set_reason(a, "forced by --backend");
			return 0;
		}
		err = probe_backend(a, want, w, sizeof(w));
		if (err) {
			act_fail(a, "%s: %s%s", act_backend_name(want), w,
				 err != -ENOENT ? "" : want == ACT_CPUFREQ ? " (no cpufreq driver)"
				 : " (no MSR driver: modprobe msr)");
			return err;
		}
		floor_chosen(a, want, why);
		return 0;
	}
	for (k = 0; a->order[k] != ACT_NONE; k++) {
		enum act_backend b = a->order[k];
		size_t n = strlen(first_fail);

		err = probe_backend(a, b, w, sizeof(w));
		if (!err) {
			a->order_pos = k;
			floor_chosen(a, b, is_msr_backend(b) || !msr_err ? why : first_fail);
			return 0;
		}
		pr_debug("%s: %s\n", act_backend_name(b), w);
		if (!is_msr_backend(b))
			continue;
		if (!msr_err || msr_err == -ENOENT)
			msr_err = err;
		snprintf(first_fail + n, sizeof(first_fail) - n, "%s%s: %s",
			 n ? "; " : NO_MSRS, act_backend_name(b), w);
		/* Stand-in files are put there on purpose: ones that work for
		 * no layout are a broken input, not a missing driver. */
		if (!is_msr_backend(a->order[k + 1]) && a->msr_standin && msr_err != -ENOENT) {
			act_fail(a, "MSR stand-in unusable: %s", first_fail + strlen(NO_MSRS));
			return msr_err;
		}
	}
	a->order_pos = k;
	if (!first_fail[0] && !a->plat.msr_driver)	/* say where it looked */
		a->missing = fmt_alloc("no MSR driver (%s/0/msr): modprobe msr; no cpufreq driver (%s)",
				       a->msr_root, w);
	else
		a->missing = fmt_alloc("%s; no cpufreq driver (%s)", first_fail[0] ? first_fail : why, w);
	if (!a->missing)
		return -ENOMEM;
	set_reason(a, "nothing to actuate the floor with: %s", a->missing);
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
	a->proc_root = strdup(o->proc_root ? o->proc_root : DEFAULT_PROC_ROOT);
	a->o.msr_root = a->msr_root;
	a->o.sysfs_root = a->sysfs_root;
	a->o.proc_root = a->proc_root;
	a->o.epp = NULL;
	last_error[0] = '\0';
	n = o->nr_cpus > 0 ? o->nr_cpus : sysconf(_SC_NPROCESSORS_CONF);
	if (n <= 0)
		n = 1;
	if (n > BPFGOV_MAX_CPUS)
		n = BPFGOV_MAX_CPUS;
	a->nr_cpus = n;
	a->cpus = calloc(n, sizeof(*a->cpus));
	if (!a->msr_root || !a->sysfs_root || !a->proc_root || !a->cpus ||
	    (o->epp && !(a->epp = strdup(o->epp)))) {
		err = -ENOMEM;
		goto fail;
	}
	{
		struct plat_roots r = {
			.sysfs_root = a->sysfs_root, .proc_root = a->proc_root,
			.msr_root = a->msr_root,
		};

		err = plat_probe(&a->plat, &r);
		if (err)
			goto fail;
	}
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];

		c->msr_fd = -1;
		knob_init(&c->floor, i);
		knob_init(&c->qos, i);
		knob_init(&c->epp, i);
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
	if (a->epp)
		probe_epp(a);
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

struct act_cpu *act_cpu_get(const struct actuator *a, int cpu)
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

/*
 * EPERM from the first real MSR write: the kernel refuses MSR writes
 * (lockdown or msr.allow_writes=off) although the probe could not tell.
 * Put back what the MSR backend changed, then continue with the next
 * backend of the plan. One line.
 */
static int floor_fallback(struct actuator *a, int cpu)
{
	enum act_backend from = a->backend;
	char w[256] = "";
	int err = 0, k;

	for (int i = 0; i < a->nr_cpus; i++) {
		int r = knob_restore(&a->cpus[i].floor);

		if (r && !err)
			err = r;
		a->cpus[i].floor_set = false;
	}
	if (err)
		return err;	/* still pending: the normal restore path retries */
	floor_reset(a);
	a->backend = ACT_NONE;
	a->taints = false;
	for (k = a->order_pos + 1; a->order[k] != ACT_NONE; k++) {
		if (is_msr_backend(a->order[k]))
			continue;
		if (!probe_backend(a, a->order[k], w, sizeof(w))) {
			a->order_pos = k;
			floor_chosen(a, a->order[k], "MSR writes refused (EPERM)");
			break;
		}
	}
	if (a->backend == ACT_NONE) {
		free(a->missing);
		a->missing = fmt_alloc("MSR writes refused (EPERM); no cpufreq driver (%s)", w);
		set_reason(a, "nothing to actuate the floor with: %s",
			   a->missing ? a->missing : "MSR writes refused (EPERM)");
	}
	pr_warn("%s: writing MSRs of cpu %d failed with EPERM (writes refused by the kernel): "
		"nothing left changed, floor backend now %s\n", act_backend_name(from), cpu,
		act_backend_name(a->backend));
	return 0;
}

int act_set_floor(struct actuator *a, int cpu, __u32 floor)
{
	struct act_cpu *c = act_cpu_get(a, cpu);
	bool wrote;
	__u32 want;
	int err;

	if (!c)
		return -EINVAL;
	if (floor > BPFGOV_SCALE)
		floor = BPFGOV_SCALE;
again:
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
		if (err == -EPERM && c->floor.refused && !(err = floor_fallback(a, cpu)))
			goto again;
	} else {
		err = cpufreq_floor_set(a, c, cpu, want, &wrote);
	}
	if (err) {
		c->errors++;
		return err;
	}
	c->last_floor = floor;
	c->floor_set = true;
	return 0;
}

int act_reassert(struct actuator *a)
{
	return act_reassert_skip(a, NULL);
}

int act_reassert_skip(struct actuator *a, const bool *skip)
{
	int total = 0, first = 0, r;

	if (!a)
		return -EINVAL;
	for (int i = 0; i < a->nr_cpus; i++) {
		struct act_cpu *c = &a->cpus[i];
		struct knob *ks[3 + BPFGOV_MAX_STATES];
		int n = 0;

		if (skip && skip[i])
			continue;
		ks[n++] = &c->floor;
		ks[n++] = &c->qos;
		ks[n++] = &c->epp;
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
		r = knob_restore(&c->epp);
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
	const struct act_cpu *c = act_cpu_get(a, cpu);

	if (!c || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->online = c->online;
	out->hw_lowest = c->lowest;
	out->hw_highest = c->highest;
	/* What was read back after the last write (or re-assertion), not
	 * the register now: reading a CPU's MSR interrupts that CPU, and
	 * this runs for every CPU, asleep or not, each second. */
	out->hw_min = c->orig_min;
	if (c->has_floor && c->floor.written)
		out->hw_min = c->floor.is_msr ? c->floor.seen_field
					      : (__u32)strtoul(c->floor.seen_text, NULL, 10);
	out->last_floor = c->last_floor;
	out->last_pick = c->pick_ever ? c->last_pick : BPFGOV_NO_STATE;
	out->writes = c->writes;
	out->reasserts = c->reasserts;
	out->errors = c->errors;
	return 0;
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
			knob_free(&a->cpus[i].epp);
			for (int k = 0; k < BPFGOV_MAX_STATES; k++)
				knob_free(&a->cpus[i].disable[k]);
		}
	}
	free(a->cpus);
	free(a->missing);
	free(a->msr_root);
	free(a->sysfs_root);
	free(a->proc_root);
	free(a->epp);
	free(a);
}

int act_pending(const struct actuator *a)
{
	int n = 0;

	if (!a || !a->cpus)
		return 0;
	for (int i = 0; i < a->nr_cpus; i++) {
		const struct act_cpu *c = &a->cpus[i];

		n += (c->floor.saved && c->floor.written) + (c->qos.saved && c->qos.written) +
		     (c->epp.saved && c->epp.written);
		for (int k = 0; k < c->nr_disable; k++)
			n += c->disable[k].saved && c->disable[k].written;
	}
	return n;
}
