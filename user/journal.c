// SPDX-License-Identifier: GPL-2.0
/*
 * State journal (format in journal.h); restore.c puts it back.
 *
 * Writer: the actuator's save hook appends one checksummed line per knob
 * with a single write() on an O_APPEND file and fdatasync()s it before the
 * knob is written (or, held, at journal_flush()); a failure aborts that
 * write. Reader: parse, keep the
 * first record of each knob, restore in reverse order, remove the file.
 * Whoever holds the single-instance lock owns the journal: a journal found
 * while taking the lock was left by a dead instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "gov.h"
#include "journal.h"
#include "log.h"
#include "util.h"

#define JOURNAL_MAGIC	"bpfgov-journal 1"
#define LINE_MAX_LEN	(3 * 4096 + 512)

struct journal {
	char dir[PATH_MAX];
	char roots[2 * 3 * PATH_MAX + 32];	/* " msr_root=.. sysfs_root=..", escaped */
	char path[PATH_MAX];
	int fd;
	int nr;
	int err;		/* sticky: the first failure to record */
	bool held;		/* journal_hold(): records wait for journal_flush() */
};

/* ------------------------------------------------------------- crc32 */

__u32 journal_crc32(const void *data, size_t len)
{
	const unsigned char *p = data;
	__u32 crc = 0xffffffffu;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* ---------------------------------------------------------- run dir */

int run_dir_secure(const char *dir)
{
	char buf[PATH_MAX], *p;
	struct stat st;
	size_t len = strlen(dir);

	if (dir[0] != '/' || len >= sizeof(buf)) {
		pr_warn("run directory '%s' must be an absolute path\n", dir);
		return -EINVAL;
	}
	memcpy(buf, dir, len + 1);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST) {
			pr_warn("cannot create %s: %s\n", buf, strerror(errno));
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		pr_warn("cannot create %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (lstat(dir, &st)) {
		pr_warn("cannot stat %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		pr_warn("%s is not a directory owned by uid %u (a symlink or planted by someone else?)\n",
			dir, (unsigned int)geteuid());
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0700 && chmod(dir, 0700)) {
		pr_warn("cannot chmod 0700 %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/* ----------------------------------------------------------- writer */

int journal_init(struct journal **out, const char *dir, const char *msr_root,
		 const char *sysfs_root)
{
	struct journal *j = calloc(1, sizeof(*j));
	char m[3 * PATH_MAX], y[3 * PATH_MAX];

	if (!j)
		return -ENOMEM;
	if (pct_escape(m, sizeof(m), msr_root) < 0 || pct_escape(y, sizeof(y), sysfs_root) < 0 ||
	    fmt_checked(j->roots, sizeof(j->roots), " msr_root=%s sysfs_root=%s", m, y) < 0 ||
	    fmt_checked(j->dir, sizeof(j->dir), "%s", dir) < 0 ||
	    fmt_checked(j->path, sizeof(j->path), "%s/%s", dir, GOV_JOURNAL_FILE) < 0) {
		free(j);
		return -ENAMETOOLONG;
	}
	j->fd = -1;
	*out = j;
	return 0;
}

/* Finish @line (len bytes, no crc yet) with " crc=XXXXXXXX\n". */
static size_t seal(char *line, size_t len, size_t size)
{
	__u32 crc = journal_crc32(line, len);

	return len + snprintf(line + len, size - len, " crc=%08x\n", crc);
}

static int journal_create(struct journal *j)
{
	char line[sizeof(j->roots) + 128];
	size_t n;
	int err;

	j->fd = open(j->path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		     0600);
	if (j->fd < 0) {
		err = -errno;
		pr_warn("cannot create the journal %s: %s\n", j->path, strerror(-err));
		return err;
	}
	n = snprintf(line, sizeof(line), "%s pid=%d%s", JOURNAL_MAGIC, (int)getpid(), j->roots);
	n = seal(line, n, sizeof(line));
	err = write_full(j->fd, line, n);
	if (!err && fdatasync(j->fd))
		err = -errno;
	if (err) {
		pr_warn("cannot write the journal %s: %s\n", j->path, strerror(-err));
		close(j->fd);
		j->fd = -1;
		unlink(j->path);
		return err;
	}
	fsync_dir(j->dir);
	return 0;
}

int journal_hook(void *ctx, const struct act_saved *s)
{
	struct journal *j = ctx;
	char *line, esc[3 * 4096 + 4];
	size_t n, i;
	int err;

	if (!j || !s || !s->path)
		return -EINVAL;
	if (j->err)
		return j->err;	/* said once; start stops at its next tick */
	if (!s->is_msr && s->len >= JOURNAL_TEXT_MAX)
		return -EFBIG;
	if (j->fd < 0) {
		err = journal_create(j);
		if (err)
			return j->err = err;
	}
	line = malloc(LINE_MAX_LEN);
	if (!line)
		return -ENOMEM;
	if (pct_escape(esc, sizeof(esc), s->path) < 0) {
		free(line);
		return -ENAMETOOLONG;
	}
	if (s->is_msr) {
		n = snprintf(line, LINE_MAX_LEN, "msr cpu=%d reg=%#x val=%#018llx path=%s",
			     s->cpu, s->msr, (unsigned long long)s->msr_val, esc);
	} else {
		n = snprintf(line, LINE_MAX_LEN, "file cpu=%d len=%u text=", s->cpu, s->len);
		for (i = 0; i < s->len; i++)
			n += snprintf(line + n, LINE_MAX_LEN - n, "%02x",
				      (unsigned char)s->text[i]);
		if (!s->len)
			n += snprintf(line + n, LINE_MAX_LEN - n, "-");
		n += snprintf(line + n, LINE_MAX_LEN - n, " path=%s", esc);
	}
	n = seal(line, n, LINE_MAX_LEN);
	err = write_full(j->fd, line, n);
	if (!err && !j->held && fdatasync(j->fd))
		err = -errno;
	free(line);
	if (err) {
		pr_warn("cannot append to the journal %s: %s; not writing %s\n", j->path,
			strerror(-err), s->path);
		return j->err = err;
	}
	j->nr++;
	return 0;
}

void journal_hold(struct journal *j)
{
	if (j)
		j->held = true;
}

int journal_flush(struct journal *j)
{
	if (!j || !j->held)
		return j ? j->err : 0;
	j->held = false;
	if (j->err || j->fd < 0)
		return j->err;
	if (fdatasync(j->fd)) {
		j->err = -errno;
		pr_warn("cannot write the journal %s: %s\n", j->path, strerror(-j->err));
	}
	return j->err;
}

int journal_records(const struct journal *j)
{
	return j ? j->nr : 0;
}

int journal_error(const struct journal *j)
{
	return j ? j->err : 0;
}

int journal_finish(struct journal *j)
{
	int err = 0;

	if (!j)
		return 0;
	if (j->fd >= 0) {
		close(j->fd);
		j->fd = -1;
		if (unlink(j->path) && errno != ENOENT)
			err = -errno;
		fsync_dir(j->dir);
	}
	return err;
}

void journal_free(struct journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j);
}

/* ----------------------------------------------------------- reader */

bool journal_exists(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, GOV_JOURNAL_FILE);
	return !lstat(path, &st);
}

/* "name=" at *p: the value up to the next blank; advances *p. */
static int field(const char **p, const char *end, const char *name, const char **v,
		 size_t *vlen)
{
	size_t nl = strlen(name);
	const char *s = *p, *e;

	if ((size_t)(end - s) < nl + 1 || memcmp(s, name, nl) || s[nl] != '=')
		return -EINVAL;
	s += nl + 1;
	e = s;
	while (e < end && *e != ' ')
		e++;
	*v = s;
	*vlen = e - s;
	*p = e < end ? e + 1 : e;
	return 0;
}

static int parse_ull(const char *s, size_t len, int base, unsigned long long max,
		     unsigned long long *out)
{
	char buf[32], *end;
	unsigned long long v;

	if (!len || len >= sizeof(buf) || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, base);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* One record line (without crc and newline) into @e. */
static int parse_record(const char *s, size_t len, struct journal_entry *e)
{
	const char *p = s, *end = s + len, *v;
	unsigned long long x;
	size_t vl, i;

	memset(e, 0, sizeof(*e));
	if (len > 4 && !memcmp(s, "msr ", 4)) {
		e->is_msr = true;
		p += 4;
		if (field(&p, end, "cpu", &v, &vl) || parse_ull(v, vl, 10, BPFGOV_MAX_CPUS, &x))
			return -EINVAL;
		e->cpu = x;
		if (field(&p, end, "reg", &v, &vl) || parse_ull(v, vl, 16, 0xffffffffull, &x))
			return -EINVAL;
		e->msr = x;
		if (field(&p, end, "val", &v, &vl) || parse_ull(v, vl, 16, ~0ull, &x))
			return -EINVAL;
		e->msr_val = x;
	} else if (len > 5 && !memcmp(s, "file ", 5)) {
		p += 5;
		if (field(&p, end, "cpu", &v, &vl) || parse_ull(v, vl, 10, BPFGOV_MAX_CPUS, &x))
			return -EINVAL;
		e->cpu = x;
		if (field(&p, end, "len", &v, &vl) ||
		    parse_ull(v, vl, 10, JOURNAL_TEXT_MAX - 1, &x))
			return -EINVAL;
		e->len = x;
		if (field(&p, end, "text", &v, &vl))
			return -EINVAL;
		if (!e->len) {
			if (vl != 1 || v[0] != '-')
				return -EINVAL;
		} else {
			if (vl != 2 * e->len)
				return -EINVAL;
			for (i = 0; i < e->len; i++) {
				int h = hex_digit(v[2 * i]), l = hex_digit(v[2 * i + 1]);

				if (h < 0 || l < 0)
					return -EINVAL;
				e->text[i] = h << 4 | l;
			}
		}
	} else {
		return -EINVAL;
	}
	if (field(&p, end, "path", &v, &vl) || p != end)
		return -EINVAL;
	if (pct_unescape(e->path, sizeof(e->path), v, vl) || e->path[0] != '/')
		return -EINVAL;
	return 0;
}

/* Check and strip " crc=XXXXXXXX" from a line; returns the payload length
 * or -EBADMSG. */
static long check_crc(const char *s, size_t len)
{
	unsigned long long x;
	const size_t tail = 13;	/* " crc=" + 8 */

	if (len < tail || memcmp(s + len - tail, " crc=", 5))
		return -EBADMSG;
	if (parse_ull(s + len - 8, 8, 16, 0xffffffffull, &x))
		return -EBADMSG;
	if (journal_crc32(s, len - tail) != (__u32)x)
		return -EBADMSG;
	return (long)(len - tail);
}

static bool same_knob(const struct journal_entry *a, const struct journal_entry *b)
{
	return a->is_msr == b->is_msr && (!a->is_msr || a->msr == b->msr) &&
	       !strcmp(a->path, b->path);
}

int journal_parse(const char *buf, size_t len, struct journal_entry **out, size_t *nr,
		  int *bad, int *pid, char *msg, size_t msglen)
{
	struct journal_entry *v = NULL, e;
	size_t off = 0, n = 0, cap = 0, i;
	int line = 0;
	long pl;

	*out = NULL;
	*nr = 0;
	*bad = 0;
	*pid = 0;
	if (len > JOURNAL_MAX_SIZE) {
		snprintf(msg, msglen, "larger than %d bytes", JOURNAL_MAX_SIZE);
		return -EINVAL;
	}
	while (off < len) {
		const char *p = buf + off, *nl = memchr(p, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - p) : len - off;

		line++;
		off += ll + (nl ? 1 : 0);
		pl = nl ? check_crc(p, ll) : -EBADMSG;
		if (line == 1) {
			size_t ml = strlen(JOURNAL_MAGIC);
			unsigned long long x;

			if (pl < (long)ml || memcmp(p, JOURNAL_MAGIC, ml)) {
				snprintf(msg, msglen, "not a bpfgov journal (bad header)");
				free(v);
				return -EINVAL;
			}
			if (pl > (long)ml + 5 && !memcmp(p + ml, " pid=", 5)) {
				const char *b = p + ml + 5, *e = memchr(b, ' ', p + pl - b);

				if (!parse_ull(b, (e ? e : p + pl) - b, 10, 0x7fffffff, &x))
					*pid = (int)x;
			}
			continue;
		}
		if (!nl)
			break;		/* torn append: its knob was never written */
		if (pl < 0 || parse_record(p, pl, &e)) {
			(*bad)++;
			continue;
		}
		for (i = 0; i < n; i++)
			if (same_knob(&v[i], &e))
				break;
		if (i < n)
			continue;	/* first record wins */
		if (n == cap) {
			struct journal_entry *nv;

			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				snprintf(msg, msglen, "out of memory");
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = e;
	}
	if (line == 0) {
		snprintf(msg, msglen, "empty");
		return -EINVAL;
	}
	*out = v;
	*nr = n;
	return 0;
}

/* "name=<escaped>" among the header's fields, unescaped into @out. */
static int header_field(const char *hdr, size_t len, const char *name, char *out, size_t size)
{
	const char *p = hdr, *end = hdr + len, *v;
	size_t vl;

	while (p < end && (p = memchr(p, ' ', end - p))) {
		p++;
		if (!field(&p, end, name, &v, &vl))
			return pct_unescape(out, size, v, vl) || out[0] != '/' ? -EINVAL : 0;
	}
	return -ENOENT;
}

int journal_roots(const char *buf, size_t len, char *msr_root, char *sysfs_root, size_t size)
{
	const char *nl = memchr(buf, '\n', len);
	size_t hl = nl ? (size_t)(nl - buf) : len;
	int err;

	if (hl > 13)
		hl -= 13;	/* " crc=XXXXXXXX", checked by journal_parse() */
	err = header_field(buf, hl, "msr_root", msr_root, size);
	if (err == -ENOENT)	/* a journal of an older bpfgov: the defaults */
		snprintf(msr_root, size, "%s", DEFAULT_MSR_ROOT);
	else if (err)
		return err;
	err = header_field(buf, hl, "sysfs_root", sysfs_root, size);
	if (err == -ENOENT)
		snprintf(sysfs_root, size, "%s", DEFAULT_SYSFS_ROOT);
	else if (err)
		return err;
	return 0;
}

bool journal_entry_in_roots(const struct journal_entry *e, const char *msr_root,
			    const char *sysfs_root)
{
	char want[PATH_MAX + 32];
	size_t rl = strlen(sysfs_root);
	const char *p;

	if (e->is_msr)
		return snprintf(want, sizeof(want), "%s/%d/msr", msr_root, e->cpu) <
		       (int)sizeof(want) && !strcmp(e->path, want);
	if (strncmp(e->path, sysfs_root, rl) || (e->path[rl] != '/' && (!rl || sysfs_root[rl - 1] != '/')))
		return false;
	for (p = e->path; (p = strstr(p, "/..")); p += 3)
		if (p[3] == '/' || !p[3])
			return false;	/* no way out of the root */
	return true;
}
