/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State journal (crash safety): before bpfgov first writes a register or
 * file, its original is in <run dir>/journal and on disk (fdatasync).
 * `start` journals the originals its decisions may need when it starts
 * (held, one flush: act_save_all), others right before their first write.
 * `govloader restore`, or the next `start`, puts every original back after
 * a crash or kill -9.
 *
 * Format (append-only text, one checksummed record per line, readable by
 * eye so that an operator can undo by hand; docs/OPERATIONS.md):
 *
 *   bpfgov-journal 2 pid=<pid> crc=<crc32>
 *   msr cpu=<n> reg=0x<msr> bits=<hi>:<lo> orig=0x<field> written=yes|no path=<escaped> crc=<crc32>
 *   file cpu=<n> len=<n> text=<hex bytes> written=yes|no path=<escaped> crc=<crc32>
 *   wrote cpu=<n> reg=0x<msr>|- path=<escaped> crc=<crc32>
 *
 * crc is the CRC-32 (IEEE) of the line up to " crc=", in 8 hex digits.
 * Paths escape '%', blanks and non-ASCII bytes as %XX. A record is only
 * ever appended whole with one write(); a torn last line (crash during the
 * append, before the knob was written) is ignored.
 *
 * A register that a driver shares with bpfgov (HWP_REQUEST, CPPC_REQ) is
 * journaled as bpfgov's field alone (the min: bits 7:0, resp. 15:8) and its
 * original value; restore writes that field into the register's current
 * value. A file bpfgov owns whole is journaled as its exact bytes.
 * "written=no" is an original saved ahead (start), "wrote" marks it
 * written, always on disk before the first write: a crash restore touches
 * written knobs only.
 *
 * Bounded: a knob has at most one original record and one mark in a
 * journal; when bpfgov puts a knob back and writes it again later (a
 * profile switch), the first original is kept and nothing is appended.
 *
 * Trust: the file decides nothing about where restore writes. Restore
 * takes the roots from its own command line (or the defaults) and writes
 * a record only when it names one of the knobs bpfgov writes, for the
 * CPU it names, resolved beneath those roots (journal_open_entry()).
 * A version 1 journal (an older bpfgov) is read with every record
 * written and an MSR's field taken from its register value.
 * User space only.
 */
#ifndef __BPFGOV_JOURNAL_H
#define __BPFGOV_JOURNAL_H

#ifdef __BPF__
#error "user/act/journal.h is for user space only"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "actuate.h"

#define GOV_JOURNAL_FILE	"journal"
#define JOURNAL_TEXT_MAX	64	/* sysfs values bpfgov touches are tiny */
#define JOURNAL_MAX_SIZE	(4 << 20)

struct journal;

/* The run directory: created 0700 if missing; refused unless it is a real
 * directory (not a symlink) owned by us; its mode is forced to 0700. */
int run_dir_secure(const char *dir);

/* A journal in @dir; the file is created (0600, O_EXCL, O_NOFOLLOW) at the
 * first record. */
int journal_init(struct journal **out, const char *dir);
/* act_save_hook_fn: append @s (its original, or the mark that it is about
 * to be written, s->writing) and fdatasync before the actuator writes.
 * Nothing is appended for a knob the journal already holds as needed. */
int journal_hook(void *ctx, const struct act_saved *s);
/* Records appended between journal_hold() and journal_flush() are flushed
 * together by the latter (one fdatasync for many): for originals saved
 * ahead of any write (act_save_all). Nothing may be written in between. */
void journal_hold(struct journal *j);
int journal_flush(struct journal *j);
int journal_records(const struct journal *j);
/* The first failure to record (-errno, sticky), 0 if none. After one, the
 * hook refuses every further write: no knob is written without its
 * original on disk; `start` stops (and restores) when it sees this. */
int journal_error(const struct journal *j);
/* Everything was restored: remove the file (and fsync the directory). */
int journal_finish(struct journal *j);
/* Close, keeping the file if it exists. NULL is fine. */
void journal_free(struct journal *j);

/* One record as read back. */
struct journal_entry {
	int cpu;
	bool is_msr;
	bool written;		/* marked written: a crash restore puts it back */
	char path[4096];
	__u32 msr;
	unsigned int shift;	/* is_msr: bpfgov's field, bits shift+7..shift */
	__u32 orig;		/* is_msr: that field's original value */
	char text[JOURNAL_TEXT_MAX];
	__u32 len;
};

bool journal_exists(const char *dir);
/* The one field of a shared register bpfgov writes: 0 (HWP_REQUEST min,
 * bits 7:0) or 8 (CPPC_REQ min, 15:8); -1 for any other register. */
int journal_msr_shift(__u32 msr);
/* Restore's decision on a record, from the roots it was given (never the
 * journal's): 0 when @e names one of the knobs bpfgov writes for its CPU
 * (HWP_REQUEST/CPPC_REQ and that register's min field on <msr_root>/<cpu>/msr;
 * scaling_min_freq, energy_performance_preference, pm_qos_resume_latency_us
 * or cpuidle/stateK/disable of devices/system/cpu/cpu<cpu> under
 * @sysfs_root; for cpu 0 also devices/system/cpu/cpuidle/current_governor,
 * the one system-wide knob, switched by --idle-governor), with @rel pointing at its path below the root and @root
 * set to that root; else -EPERM and the reason in @why. */
int journal_entry_check(const struct journal_entry *e, const char *msr_root,
			const char *sysfs_root, const char **root, const char **rel,
			char *why, size_t whylen);
/* Open the knob of an accepted record (@flags: O_RDONLY or O_RDWR) with
 * every component resolved beneath its root: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS), the last component not a symlink, a regular file
 * (or, for an MSR, the character device). The fd or -errno with the
 * reason in @why; -EPERM when refused by journal_entry_check(). */
int journal_open_entry(const struct journal_entry *e, const char *msr_root,
		       const char *sysfs_root, int flags, char *why, size_t whylen);
/* The CPU of @e is offline or gone (its cpuN directory under the sysfs
 * root is missing, its "online" reads 0, or its msr device answers
 * ENXIO): the kernel resets its knobs when it comes back. A missing MSR
 * root (the msr module not loaded) is not that. @err: the open's error. */
bool journal_cpu_gone(const struct journal_entry *e, const char *msr_root,
		      const char *sysfs_root, int err);
/* The CRC-32 (IEEE) that seals each journal line. */
__u32 journal_crc32(const void *data, size_t len);
/* Parse a journal's bytes. @out gets the valid records, first record per
 * knob only, with their marks; *bad the count of records with a bad
 * checksum or syntax, or a mark of no knob (a torn last line is not
 * counted). -EINVAL with @msg when it is not a
 * journal at all, -ENOMEM. @pid: the writer's pid (0 unknown). */
int journal_parse(const char *buf, size_t len, struct journal_entry **out, size_t *nr,
		  int *bad, int *pid, char *msg, size_t msglen);
/* Put one written original back, opened by journal_open_entry(): a
 * shared register's field into its current value, a file's exact bytes
 * (written only when different; a stand-in needs a write bit). 0, 1 if it
 * was already in place, 2 if its CPU is offline or gone (counts as
 * restored), -EPERM if refused, or -errno (one pr_warn line each). */
int journal_restore_entry(const struct journal_entry *e, const char *msr_root,
			  const char *sysfs_root);
/* How journal_restore() went. */
struct journal_result {
	int records;		/* valid records */
	int restored;		/* knobs rewritten */
	int in_place;		/* written knobs already back */
	int offline;		/* knobs of CPUs offline or gone */
	int unwritten;		/* saved, never written: left as they are */
	int refused;		/* records naming no knob bpfgov writes */
	int pid;		/* the writer's pid (0 unknown) */
};
/*
 * Restore every written record of <dir>/journal (last written first)
 * beneath @msr_root and @sysfs_root, and remove the file when all are back.
 * Returns 0, -ENOENT (no journal), or the first -errno (the journal is
 * kept so that a later restore retries; -EBADMSG: corrupt or refused
 * records, the rest restored, the journal kept: it blocks start until the
 * user repairs it or discards it, journal_discard()).
 * The caller holds the lock.
 */
int journal_restore(const char *dir, const char *msr_root, const char *sysfs_root,
		    struct journal_result *res);
/* One line (pr_info) of @r: "restored N of M register(s)/file(s) @what pid P (...)". */
void journal_result_say(const struct journal_result *r, const char *what);

/* The user's decision on a journal that cannot be restored whole: move
 * <dir>/journal to journal.discarded (kept for reference, never read). */
int journal_discard(const char *dir);

#endif /* __BPFGOV_JOURNAL_H */
