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
 *   bpfgov-journal 1 pid=<pid> msr_root=<escaped> sysfs_root=<escaped> crc=<crc32>
 *   msr cpu=<n> reg=0x<msr> val=0x<16 hex digits> path=<escaped> crc=<crc32>
 *   file cpu=<n> len=<n> text=<hex bytes> path=<escaped> crc=<crc32>
 *
 * crc is the CRC-32 (IEEE) of the line up to " crc=", in 8 hex digits.
 * Paths escape '%', blanks and non-ASCII bytes as %XX. A record is only
 * ever appended whole with one write(); a torn last line (crash during the
 * append, before the knob was written) is ignored. When a knob appears
 * twice, its first record wins: that is the value before bpfgov.
 * User space only.
 */
#ifndef __BPFGOV_JOURNAL_H
#define __BPFGOV_JOURNAL_H

#ifdef __BPF__
#error "user/journal.h is for user space only"
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
 * first record. Its header records the instance's roots: restore writes
 * nothing outside them. */
int journal_init(struct journal **out, const char *dir, const char *msr_root,
		 const char *sysfs_root);
/* act_save_hook_fn: append @s and fdatasync before the actuator writes. */
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
	char path[4096];
	__u32 msr;
	__u64 msr_val;
	char text[JOURNAL_TEXT_MAX];
	__u32 len;
};

bool journal_exists(const char *dir);
/* The roots named by a journal's header (@size bytes each; the defaults
 * for a journal without them). 0 or -EINVAL. */
int journal_roots(const char *buf, size_t len, char *msr_root, char *sysfs_root, size_t size);
/* @e names <msr_root>/<cpu>/msr, or a file under @sysfs_root (no ".."). */
bool journal_entry_in_roots(const struct journal_entry *e, const char *msr_root,
			    const char *sysfs_root);
/* The CRC-32 (IEEE) that seals each journal line. */
__u32 journal_crc32(const void *data, size_t len);
/* Parse a journal's bytes. @out gets the valid records, first record per
 * knob only; *bad the count of records with a bad checksum or syntax (a
 * torn last line is not counted). -EINVAL with @msg when it is not a
 * journal at all, -ENOMEM. @pid: the writer's pid (0 unknown). */
int journal_parse(const char *buf, size_t len, struct journal_entry **out, size_t *nr,
		  int *bad, int *pid, char *msg, size_t msglen);
/* Put one original back: the same steps as the actuator's restore (read
 * back, write only when different; stand-ins and sysfs files need a write
 * bit; MSRs through msr_read/msr_write). 0, 1 if it was already in place,
 * or -errno (one pr_warn line). */
int journal_restore_entry(const struct journal_entry *e);
/*
 * Restore every record of <dir>/journal (last written first) and remove
 * the file when all are back. *restored: knobs rewritten, *records: valid
 * records. Returns 0, -ENOENT (no journal), or the first -errno (the
 * journal is kept so that a later restore retries; -EBADMSG: corrupt
 * records, the rest restored, the journal kept: it blocks start until the
 * user repairs it or discards it, journal_discard()).
 * The caller holds the lock.
 */
int journal_restore(const char *dir, int *restored, int *records, int *pid);

/* The user's decision on a journal that cannot be restored whole: move
 * <dir>/journal to journal.discarded (kept for reference, never read). */
int journal_discard(const char *dir);

/* `govloader restore [--discard] [--pin-root DIR]`. */
int do_restore(int argc, char **argv);

#endif /* __BPFGOV_JOURNAL_H */
