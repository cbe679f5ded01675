/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one helper module of govloader: small files, numbers, exact writes,
 * checked formatting and time. User space only; every function returns 0
 * or -errno unless it says otherwise.
 */
#ifndef __BPFGOV_UTIL_H
#define __BPFGOV_UTIL_H

#ifdef __BPF__
#error "user/lib/util.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* --- reading --- */
/* A whole small file: its exact bytes in @buf, NUL-terminated; -EFBIG when
 * it does not fit in @size - 1 bytes. @oflags adds open(2) flags (e.g.
 * O_NOFOLLOW). @len (may be NULL) gets the byte count. */
int read_text(const char *path, int oflags, char *buf, size_t size, size_t *len);
/* The first line of a file, trailing white space removed ("" for an empty
 * file). -EFBIG when that line does not fit. */
int read_line(const char *path, char *buf, size_t size);
/* A whole file of any size, trailing newlines removed; malloc'd, NULL with
 * errno set on failure. */
char *read_file(const char *path);
/* A decimal number: the first line of the file, parsed by parse_u32(). */
int read_u32(const char *path, __u32 *out);

/* --- numbers: the one rule --- */
/* The whole string is an unsigned decimal in [lo, hi]: no sign, no blanks,
 * no trailing text. -EINVAL if it is not a number (or overflows 64 bits),
 * -ERANGE outside [lo, hi]. */
int parse_u32(const char *s, __u32 lo, __u32 hi, __u32 *out);
int parse_u64(const char *s, __u64 *out);
/* Seconds: finite, > 0, at most a year. */
int parse_seconds(const char *s, double *out);

/* --- strings --- */
/* Copy @s to @dst without trailing white space (truncated to fit). */
void str_rstrip_copy(char *dst, size_t size, const char *s);
/* A string as one blank-free token: bytes <= ' ', >= 0x7f and '%' become
 * %XX. The length, or -ENAMETOOLONG when it does not fit in @size. */
int pct_escape(char *dst, size_t size, const char *s);
/* Back from pct_escape() (@len bytes of @s): 0, or -EINVAL for a bad %XX,
 * a NUL byte, an empty result or one that does not fit. */
int pct_unescape(char *dst, size_t size, const char *s, size_t len);
int hex_digit(char c);		/* 0..15, -1 if not a hex digit */
/* snprintf that reports truncation: the length, or -ENAMETOOLONG when
 * the result did not fit (@buf then holds the truncated text). */
int fmt_checked(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* @word is one of the white-space separated words of @list. */
bool str_has_word(const char *list, const char *word);
/* @s fit for a one-line message: control bytes (a newline, a tab, ESC...)
 * and DEL become \n, \t or \xNN, a backslash \\. The result lives in
 * one of four static buffers (so up to four in one printf), cut to
 * PATH_MAX bytes with "..." at the end. NULL prints as "(null)". */
const char *str_esc(const char *s);
/* A malloc'd formatted string, NULL on failure. */
char *fmt_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- writing --- */
/* All of @len bytes to @fd in one write: -EIO on a short write. */
int write_full(int fd, const void *buf, size_t len);
/* A file we would write: exists, has a write bit (sysfs files without a
 * store method are 0444; root would otherwise get past a stand-in's mode)
 * and opens for writing (O_NOFOLLOW). Writes nothing. */
int check_writable(const char *path);
/* Replace the content of an existing file with exactly @len bytes, in one
 * write(2) as sysfs wants it (check_writable() first, O_NOFOLLOW). */
int write_exact(const char *path, const char *buf, size_t len);

/* Replace @path as a whole: @fill writes a new private temp file beside it
 * (".<name>.XXXXXX"), which gets @mode and is renamed over @path, so a
 * reader never sees half a file. @durable: the file is fsync'ed before the
 * rename and the directory after it. 0 or -errno (the temp file removed). */
int write_file_atomic(const char *path, mode_t mode, bool durable,
		      int (*fill)(FILE *f, void *ctx), void *ctx);
/* The same for @len bytes already in memory, not durable, in four system
 * calls (create, write, close, rename; a chmod only for a mode other than
 * mkostemp's 0600). 0 or -errno. */
int write_buf_atomic(const char *path, mode_t mode, const char *buf, size_t len);

/* --- option lists --- */
/* Call @item on each comma-separated item of a copy of @spec (modifiable),
 * stopping at the first non-zero return. An empty @spec is an error
 * "@opt: empty (want @want)". 0 or the first error, with one line in @err. */
int spec_each(const char *spec, const char *opt, const char *want,
	      int (*item)(char *it, void *ctx, char *err, size_t errlen), void *ctx,
	      char *err, size_t errlen);

/* --- files --- */
bool path_exists(const char *path);
/* A file we would create or replace (write_file_atomic): @path is not a
 * directory, and its directory exists and is writable. Writes nothing. */
int check_creatable(const char *path);
/* Make a directory's entries durable (after create/rename/unlink). */
void fsync_dir(const char *dir);

/* --- time --- */
__u64 mono_ns(void);	/* CLOCK_MONOTONIC in ns */

/* Parse "PORT", "ADDR:PORT" or "[V6ADDR]:PORT" (PORT alone binds
 * 127.0.0.1). 0 or -EINVAL. */
int listen_addr_parse(const char *s, void *sockaddr_storage, unsigned int *len);

#endif /* __BPFGOV_UTIL_H */
