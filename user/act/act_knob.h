/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Knobs: a register field or a sysfs file the actuator may change. Below
 * the actuator and its backends (act_backend.h): the one place originals
 * are captured before a first write (the save hook: the state journal),
 * where writes happen only on change, read back, re-asserted, and put
 * back byte-exact. Also the MSR primitive, shared with the journal's
 * restore and the validation kit. User space only.
 */
#ifndef __BPFGOV_ACT_KNOB_H
#define __BPFGOV_ACT_KNOB_H

#ifdef __BPF__
#error "user/act/act_knob.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/* What a knob's original was, handed to the save hook when it is saved
 * (ahead, at start) and again right before its first write (@writing; and
 * again after a restore when it is written anew). The state journal
 * (crash safety) hooks in here: if the hook returns non-zero the write is
 * not done and that value is returned. Never called in dry-run (nothing
 * is written). */
struct act_saved {
	int cpu;
	bool is_msr;
	bool writing;		/* a write follows (else saved ahead) */
	const char *path;	/* the msr device/stand-in, or the sysfs file */
	__u32 msr;		/* is_msr: register number */
	unsigned int shift;	/* is_msr: bpfgov's field, bits shift+7..shift */
	__u64 msr_val;		/* is_msr: the original 8 bytes */
	const char *text;	/* !is_msr: the original content, exact */
	__u32 len;		/* !is_msr: its length in bytes */
};
typedef int (*act_save_hook_fn)(void *ctx, const struct act_saved *s);

/* The one primitive where a stand-in file and the msr device differ:
 * /dev/cpu/N/msr reads MSR X at offset X, a regular file at offset 8*X. */
int msr_read(int fd, bool is_file, __u32 msr, __u64 *val);
int msr_write(int fd, bool is_file, __u32 msr, __u64 val);
/* Read with a one-line reason in @why on failure (short read, errno). */
int msr_read_why(int fd, bool is_file, const char *path, __u32 msr,
		 __u64 *val, char *why, size_t n);

/* Put one original back unless it is already in place (the journal's
 * crash restore uses these too): 1 = in place, 0 = written, -errno. A
 * stand-in file without write bits counts as read-only (-EACCES). A
 * shared register gets bpfgov's field alone (bits shift+7..shift set to
 * @orig in its current value): the driver's newer fields stay. */
int act_put_back_msr(int fd, bool is_file, __u32 msr, unsigned int shift, __u32 orig);
int act_put_back_file(const char *path, const char *text, size_t len);

#define KNOB_TEXT	64	/* sysfs values we touch are tiny */

/* What every knob write goes by: dry-run, and where originals go. */
struct knob_env {
	bool dry_run;		/* write nothing, log what would be written */
	act_save_hook_fn hook;
	void *hook_ctx;
};

struct knob {
	int cpu;
	bool is_msr;
	char *path;
	/* !is_msr: the file, opened at its first use and kept open */
	int tfd;
	bool tfd_open;
	/* is_msr */
	int fd;			/* the CPU's msr fd (owned by its floor backend) */
	bool is_file;
	__u32 msr;
	unsigned int shift;	/* our 8-bit field: bits shift+7..shift */
	unsigned int max_shift;	/* the request's max field (cap) */
	/* the original, captured by knob_save_original() */
	bool saved;		/* restore pending */
	bool marked;		/* the save hook heard of the first write */
	__u64 orig_val;
	char orig_text[KNOB_TEXT];
	size_t orig_len;
	/* what we want and what we saw after our last write */
	bool written;		/* written (dry-run: would have been) */
	bool refused;		/* is_msr: the kernel refused a write (EPERM) */
	__u32 want_field;	/* is_msr: target min, before the max cap */
	__u32 seen_field;	/* is_msr: min field of our last write */
	/* is_msr: the register's other fields (ours masked out) as the
	 * driver last set them, from the last read; what a write must keep */
	bool drv_known;
	__u64 drv_fields;
	__u64 drv_rewrites;	/* the driver rewrote the register under us */
	__u64 drv_races;	/* ... between our write and its read-back: redone */
	char want_text[KNOB_TEXT];	/* !is_msr: normalised */
	char seen_text[KNOB_TEXT];	/* !is_msr: normalised read-back */
};

static inline __u32 field_get(__u64 v, unsigned int shift)
{
	return (v >> shift) & 0xff;
}

void knob_init(struct knob *k, int cpu);
void knob_free(struct knob *k);
/* A knob file's text without trailing white space (O_NOFOLLOW). */
int read_norm(const char *path, char *buf, size_t size);
/* Capture a knob's original right before its first write (calls the save
 * hook); @cur: the register's 8 bytes, or the file's exact text. */
int knob_save_original(const struct knob_env *e, struct knob *k, __u64 cur,
		       const char *text, size_t len);
/* A file knob's writability (mode bits, as check_writable()). */
int knob_check_writable(const struct knob_env *e, struct knob *k);
/* Set a file knob to @want (normalised text; written with a newline).
 * @wrote: a write was done (dry-run: would have been). */
int knob_file_set(const struct knob_env *e, struct knob *k, const char *want, bool *wrote);
/* Read-modify-write our field of an MSR knob to @want (uncapped target;
 * capped at the request's max field), the other fields as the driver last
 * set them: read back after the write, and where the driver changed the
 * register meanwhile, its fields taken with our min and written again
 * (once). EPERM: writes refused (k->refused). */
int knob_msr_set(const struct knob_env *e, struct knob *k, __u32 want, bool *wrote);
/* One knob's original, saved now (no write follows yet). */
int knob_save_ahead(const struct knob_env *e, struct knob *k);
/* Re-assert a written knob: 1 if rewritten (@wrote), 0 if fine, -errno.
 * An MSR knob compares and rewrites its min field alone, and counts the
 * driver's rewrites of the register (drv_rewrites). */
int knob_reassert(const struct knob_env *e, struct knob *k);
/* Put a written knob's original back; pending again after a failure. */
int knob_restore(struct knob *k);

#endif /* __BPFGOV_ACT_KNOB_H */
