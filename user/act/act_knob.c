// SPDX-License-Identifier: GPL-2.0
/*
 * Knobs: a register field or a sysfs file the actuator may change.
 *
 * Before the first write to a knob its original is captured by
 * knob_save_original() (the single place the state journal hooks into;
 * knob_save_ahead() captures it ahead, at start), writes happen only on
 * change, knob_reassert() rewrites a knob someone else changed, and
 * knob_restore() puts the original of a written knob back: a file
 * byte-exact, a register's field alone.
 *
 * MSR access goes through msr_read()/msr_write() only: that is the one place
 * where a stand-in regular file (MSR X at offset 8*X) and the msr device
 * (offset X) differ. A stand-in without write bits behaves like the msr
 * device under lockdown or msr.allow_writes=off: it opens and reads, and
 * every write fails with EPERM.
 *
 * Below the actuator (actuate.c) and its backends: nothing here knows
 * which backend a knob belongs to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_knob.h"
#include "log.h"
#include "util.h"

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
int msr_read_why(int fd, bool is_file, const char *path, __u32 msr,
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

/*
 * Note the driver's fields in @cur, a fresh read of the register: the
 * other fields than ours. While our write stands, a change of them since
 * the last read, or our min gone, is a rewrite of the register by its
 * driver (intel_pstate writes the whole register from its cache on every
 * policy, limits and EPP change; amd-pstate likewise).
 */
static void msr_note_driver(struct knob *k, __u64 cur)
{
	__u64 other = cur & ~(0xffULL << k->shift);

	if (k->written && k->drv_known &&
	    (other != k->drv_fields || field_get(cur, k->shift) != k->seen_field))
		k->drv_rewrites++;
	k->drv_fields = other;
	k->drv_known = true;
}

/* Write @nv; a stand-in's write permission (the msr device's EPERM under
 * lockdown) is checked until a write went through: one system call per
 * floor change, not two. */
static int msr_put(struct knob *k, __u64 nv)
{
	int err = msr_xfer(k->fd, k->is_file, k->msr, &nv, true, !k->written, NULL);

	if (err == -EPERM) {
		k->refused = true;	/* writes refused: the caller falls back, in one line */
		return err;
	}
	if (err)
		pr_warn("%s: cannot write MSR %#x of cpu %d: %s\n", k->path,
			k->msr, k->cpu, err == -EIO ? "short write" : strerror(-err));
	return err;
}

/*
 * Our min into the register whose value was @cur a moment ago. Between
 * that read and the write the register is not ours: a change the driver
 * makes there is overwritten by the write, and the write is not atomic
 * (two operations, each an IPI to the CPU). So the register is read back:
 * where it is not what was written, the driver wrote it meanwhile, and
 * its fields are taken, with our min, in one more write (never more: a
 * driver that keeps writing owns the register until the next re-assert).
 * The first write's save, or its mark where the original was saved
 * ahead (a journal record, synced), takes longest: the register is read
 * again after it.
 */
static int msr_set_from(const struct knob_env *e, struct knob *k, __u64 cur, __u32 want,
			bool *wrote)
{
	__u64 nv, back;
	__u32 nmin;
	int err;

	*wrote = false;
	nmin = msr_capped(k, cur, want);
	k->want_field = want;
	if (e->dry_run) {
		__u32 now = k->written ? k->seen_field : field_get(cur, k->shift);

		if (now == nmin)
			return 0;
		pr_info("dry-run: would write %#018llx to MSR %#x of cpu %d (%s): min %u -> %u\n",
			(unsigned long long)field_set(cur, k->shift, nmin), k->msr,
			k->cpu, k->path, now, nmin);
		k->written = true;
		k->seen_field = nmin;
		*wrote = true;
		return 0;
	}
	msr_note_driver(k, cur);
	nv = field_set(cur, k->shift, nmin);
	if (nv != cur && !(k->saved && k->marked)) {	/* first write: saved, or marked */
		err = knob_save_original(e, k, cur, NULL, 0);
		if (err) {
			pr_warn("%s: saving the original of MSR %#x failed: %s\n",
				k->path, k->msr, strerror(-err));
			return err;
		}
		err = msr_read(k->fd, k->is_file, k->msr, &cur);
		if (err)
			goto read_failed;
		msr_note_driver(k, cur);
		nmin = msr_capped(k, cur, want);
		nv = field_set(cur, k->shift, nmin);
	}
	if (nv == cur) {
		if (k->written)
			k->seen_field = nmin;
		return 0;
	}
	err = msr_put(k, nv);
	if (err)
		return err;
	k->written = true;
	*wrote = true;
	k->seen_field = nmin;
	pr_debug("cpu %d: MSR %#x min %u -> %u\n", k->cpu, k->msr,
		 field_get(cur, k->shift), nmin);
	/* The request register holds what was written (the hardware clamps
	 * the granted performance, not the request). */
	err = msr_read(k->fd, k->is_file, k->msr, &back);
	if (err)
		goto read_failed;
	if (back == nv)
		return 0;
	k->drv_rewrites++;
	k->drv_races++;
	k->drv_fields = back & ~(0xffULL << k->shift);
	nmin = msr_capped(k, back, want);
	nv = field_set(back, k->shift, nmin);
	pr_debug("cpu %d: MSR %#x rewritten by its driver during our write (%#llx): "
		 "its fields kept, min %u again\n", k->cpu, k->msr,
		 (unsigned long long)back, nmin);
	if (nv != back) {
		err = msr_put(k, nv);
		if (err)
			return err;
	}
	k->seen_field = nmin;
	return 0;
read_failed:
	pr_warn("%s: cannot read MSR %#x of cpu %d back: %s\n", k->path, k->msr, k->cpu,
		err == -EIO ? "short read" : strerror(-err));
	return err;
}

int knob_msr_set(const struct knob_env *e, struct knob *k, __u32 want, bool *wrote)
{
	char why[256];
	__u64 cur;
	int err;

	*wrote = false;
	err = msr_read_why(k->fd, k->is_file, k->path, k->msr, &cur, why, sizeof(why));
	if (err) {
		pr_warn("%s\n", why);
		return err;
	}
	return msr_set_from(e, k, cur, want, wrote);
}

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
 * The single place where originals are captured: ahead (@writing false)
 * or before the first write to a knob (@cur: the register's 8 bytes, or
 * the file's exact text). A state journal for crash safety hooks in here
 * (act_set_save_hook) and hears of both.
 */
static int knob_capture(const struct knob_env *e, struct knob *k, __u64 cur,
			const char *text, size_t len, bool writing)
{
	struct act_saved s = {
		.cpu = k->cpu, .is_msr = k->is_msr, .path = k->path, .writing = writing,
		.msr = k->msr, .shift = k->shift, .msr_val = cur,
	};
	int err;

	if (k->saved && (k->marked || !writing))
		return 0;
	if (k->saved) {
		s.msr_val = k->orig_val;	/* the mark of one saved ahead */
	} else if (!k->is_msr) {
		if (len >= sizeof(k->orig_text))
			return -EFBIG;
		memcpy(k->orig_text, text, len);
		k->orig_text[len] = '\0';
		k->orig_len = len;
	}
	s.text = k->orig_text;
	s.len = k->orig_len;
	if (e->hook) {
		err = e->hook(e->hook_ctx, &s);
		if (err)
			return err < 0 ? err : -EIO;
	}
	if (!k->saved)
		k->orig_val = cur;
	k->saved = true;
	k->marked = writing;
	return 0;
}

int knob_save_original(const struct knob_env *e, struct knob *k, __u64 cur,
		       const char *text, size_t len)
{
	return knob_capture(e, k, cur, text, len, true);
}

/*
 * A file knob's descriptor, opened at its first use and kept: a change then
 * costs a read, a write and a read back on it instead of an open and a
 * close around each (and a stand-in file is rewritten in place, not
 * truncated by open). -errno when it cannot be opened; the callers then
 * go by the path, which reports the error as before.
 */
static int knob_fd(const struct knob_env *e, struct knob *k)
{
	int fd;

	if (k->tfd_open)
		return k->tfd;
	fd = open(k->path, (e->dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NOFOLLOW);
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
static int knob_read(const struct knob_env *e, struct knob *k, char *buf, size_t size, size_t *len)
{
	int fd = knob_fd(e, k);
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

static int knob_read_norm(const struct knob_env *e, struct knob *k, char *buf, size_t size)
{
	char raw[KNOB_TEXT];
	int err = knob_read(e, k, raw, sizeof(raw), NULL);

	if (err)
		return err;
	str_rstrip_copy(buf, size, raw);
	return 0;
}

int knob_check_writable(const struct knob_env *e, struct knob *k)
{
	int fd = knob_fd(e, k);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return check_writable(k->path);
	return st.st_mode & 0222 ? 0 : -EACCES;
}

/* write_exact() on the kept descriptor: the whole text at offset 0; a
 * regular file (a stand-in) is cut to it. */
static int knob_write(const struct knob_env *e, struct knob *k, const char *buf, size_t len)
{
	int fd = knob_fd(e, k);
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

int knob_file_set(const struct knob_env *e, struct knob *k, const char *want, bool *wrote)
{
	char raw[KNOB_TEXT], cur[KNOB_TEXT], out[KNOB_TEXT + 1];
	size_t len;
	int err, n;

	*wrote = false;
	if (e->dry_run && k->written) {
		if (!strcmp(k->seen_text, want))
			return 0;
	} else {
		err = knob_read(e, k, raw, sizeof(raw), &len);
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
	if (e->dry_run) {
		pr_info("dry-run: would write '%s' to %s\n", want, k->path);
		if (!k->written) {	/* tracked, not saved: nothing to restore */
			snprintf(k->orig_text, sizeof(k->orig_text), "%s", raw);
			k->orig_len = len;
		}
		k->written = true;
		snprintf(k->seen_text, sizeof(k->seen_text), "%s", want);
		*wrote = true;
		return 0;
	}
	err = knob_save_original(e, k, 0, raw, len);
	if (err) {
		pr_warn("%s: saving the original failed: %s\n", k->path, strerror(-err));
		return err;
	}
	n = snprintf(out, sizeof(out), "%s\n", want);
	err = knob_write(e, k, out, n);
	if (err) {
		pr_warn("cannot write '%s' to %s: %s\n", want, k->path,
			err == -EACCES ? "read-only" : err == -EIO ? "short write" : strerror(-err));
		return err;
	}
	k->written = true;
	*wrote = true;
	pr_debug("cpu %d: %s: '%s' -> '%s'\n", k->cpu, k->path, cur, want);
	if (knob_read_norm(e, k, k->seen_text, sizeof(k->seen_text)))
		snprintf(k->seen_text, sizeof(k->seen_text), "%s", want);
	return 0;
}

int knob_save_ahead(const struct knob_env *e, struct knob *k)
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
		err = knob_read(e, k, raw, sizeof(raw), &len);
	if (err) {
		pr_warn("cannot read %s: %s\n", k->path, strerror(-err));
		return err;
	}
	return k->is_msr ? knob_capture(e, k, cur, NULL, 0, false)
			 : knob_capture(e, k, 0, raw, len, false);
}

/* Re-assert one knob: 1 if rewritten, 0 if fine, -errno. */
int knob_reassert(const struct knob_env *e, struct knob *k)
{
	bool wrote;
	int err;

	if (!k->written || e->dry_run)
		return 0;
	if (k->is_msr) {
		__u64 cur;

		err = msr_read(k->fd, k->is_file, k->msr, &cur);
		if (err) {
			pr_warn("%s: cannot read MSR %#x back: %s\n", k->path, k->msr,
				err == -EIO ? "short read" : strerror(-err));
			return err;
		}
		/* Our field alone is compared and put back; the driver's
		 * fields are its own (counted when it rewrote them). */
		if (field_get(cur, k->shift) == k->seen_field) {
			msr_note_driver(k, cur);
			return 0;
		}
		pr_debug("cpu %d: MSR %#x min changed behind us (%u, ours %u)\n",
			 k->cpu, k->msr, field_get(cur, k->shift), k->seen_field);
		err = msr_set_from(e, k, cur, k->want_field, &wrote);
	} else {
		char now[KNOB_TEXT], want[KNOB_TEXT];

		err = knob_read_norm(e, k, now, sizeof(now));
		if (err) {
			pr_warn("cannot read %s back: %s\n", k->path, strerror(-err));
			return err;
		}
		if (!strcmp(now, k->seen_text))
			return 0;
		pr_debug("%s changed behind us ('%s', ours '%s')\n", k->path, now,
			 k->seen_text);
		snprintf(want, sizeof(want), "%s", k->want_text);
		err = knob_file_set(e, k, want, &wrote);
	}
	if (err)
		return err;
	return wrote;
}

/* Put an original back unless it is already there: 1 = already in place,
 * 0 = written, -errno. Shared with the journal's restore (journal.c), so a
 * crash restore takes the same path as a normal exit. */
int act_put_back_msr(int fd, bool is_file, __u32 msr, unsigned int shift, __u32 orig)
{
	__u64 cur;
	int err;

	err = msr_read(fd, is_file, msr, &cur);
	if (err)
		return err;
	if (field_get(cur, shift) == (orig & 0xff))
		return 1;
	err = msr_write(fd, is_file, msr, field_set(cur, shift, orig));
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
		err = act_put_back_msr(k->fd, k->is_file, k->msr, k->shift,
				       field_get(k->orig_val, k->shift));
		if (err < 0)
			pr_warn("%s: cannot restore bits %u:%u of MSR %#x of cpu %d to %#x: %s\n",
				k->path, k->shift + 7, k->shift, k->msr, k->cpu,
				field_get(k->orig_val, k->shift),
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
	k->marked = false;
	k->written = false;
	return 0;
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

