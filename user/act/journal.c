// SPDX-License-Identifier: GPL-2.0
/*
 * State journal (format in journal.h); journal_restore.c puts it back.
 *
 * Writer: the actuator's save hook appends one checksummed line per knob
 * (its original) and one when it is first written (the mark), each with a
 * single write() on an O_APPEND file, fdatasync()ed before the knob is
 * written (or, held, at journal_flush()); a failure aborts that write. The
 * writer remembers the knobs it holds, so a knob written, put back and
 * written again (a profile switch) appends nothing: the journal is bounded
 * by the number of knobs. Reader: parse, keep the first record of each
 * knob and its mark, decide each record from restore's own roots (never
 * the file's), restore written ones in reverse order, remove the file.
 * Whoever holds the single-instance lock owns the journal: a journal found
 * while taking the lock was left by a dead instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
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

#define JOURNAL_MAGIC	"bpfgov-journal 2"
#define JOURNAL_MAGIC_V1	"bpfgov-journal 1"
#define LINE_MAX_LEN	(3 * 4096 + 512)

#define MSR_HWP_REQUEST	0x774
#define MSR_CPPC_REQ	0xc00102b3

/* A knob the journal holds: its original is on disk, and its mark once
 * it was written. */
struct jknob {
	char *path;
	__u32 msr;
	bool is_msr;
	bool marked;
};

struct journal {
	char dir[PATH_MAX];
	char path[PATH_MAX];
	int fd;
	int nr;
	int err;		/* sticky: the first failure to record */
	bool held;		/* journal_hold(): records wait for journal_flush() */
	struct jknob *knobs;
	size_t nr_knobs, cap_knobs;
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

int journal_init(struct journal **out, const char *dir)
{
	struct journal *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	if (fmt_checked(j->dir, sizeof(j->dir), "%s", dir) < 0 ||
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
	char line[128];
	size_t n;
	int err;

	j->fd = open(j->path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		     0600);
	if (j->fd < 0) {
		err = -errno;
		pr_warn("cannot create the journal %s: %s\n", j->path, strerror(-err));
		return err;
	}
	n = snprintf(line, sizeof(line), "%s pid=%d", JOURNAL_MAGIC, (int)getpid());
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

static struct jknob *jknob_find(struct journal *j, const struct act_saved *s)
{
	size_t i;

	for (i = 0; i < j->nr_knobs; i++) {
		struct jknob *k = &j->knobs[i];

		if (k->is_msr == s->is_msr && (!k->is_msr || k->msr == s->msr) &&
		    !strcmp(k->path, s->path))
			return k;
	}
	return NULL;
}

static struct jknob *jknob_add(struct journal *j, const struct act_saved *s)
{
	struct jknob *k;

	if (j->nr_knobs == j->cap_knobs) {
		size_t cap = j->cap_knobs ? 2 * j->cap_knobs : 32;

		k = realloc(j->knobs, cap * sizeof(*k));
		if (!k)
			return NULL;
		j->knobs = k;
		j->cap_knobs = cap;
	}
	k = &j->knobs[j->nr_knobs];
	k->path = strdup(s->path);
	if (!k->path)
		return NULL;
	k->is_msr = s->is_msr;
	k->msr = s->msr;
	k->marked = false;
	j->nr_knobs++;
	return k;
}

int journal_hook(void *ctx, const struct act_saved *s)
{
	struct journal *j = ctx;
	struct jknob *k;
	char *line, esc[3 * 4096 + 4];
	size_t n, i;
	int err;

	if (!j || !s || !s->path)
		return -EINVAL;
	if (j->err)
		return j->err;	/* said once; start stops at its next tick */
	if (!s->is_msr && s->len >= JOURNAL_TEXT_MAX)
		return -EFBIG;
	if (s->is_msr && s->shift > 56)
		return -EINVAL;
	k = jknob_find(j, s);
	if (k && (k->marked || !s->writing))
		return 0;	/* on disk already: the first original is kept */
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
	if (k) {
		n = snprintf(line, LINE_MAX_LEN, "wrote cpu=%d reg=", s->cpu);
		n += s->is_msr ? snprintf(line + n, LINE_MAX_LEN - n, "%#x", s->msr)
			       : snprintf(line + n, LINE_MAX_LEN - n, "-");
		n += snprintf(line + n, LINE_MAX_LEN - n, " path=%s", esc);
	} else if (s->is_msr) {
		n = snprintf(line, LINE_MAX_LEN, "msr cpu=%d reg=%#x bits=%u:%u orig=%#04x written=%s path=%s",
			     s->cpu, s->msr, s->shift + 7, s->shift,
			     (unsigned int)((s->msr_val >> s->shift) & 0xff),
			     s->writing ? "yes" : "no", esc);
	} else {
		n = snprintf(line, LINE_MAX_LEN, "file cpu=%d len=%u text=", s->cpu, s->len);
		for (i = 0; i < s->len; i++)
			n += snprintf(line + n, LINE_MAX_LEN - n, "%02x",
				      (unsigned char)s->text[i]);
		if (!s->len)
			n += snprintf(line + n, LINE_MAX_LEN - n, "-");
		n += snprintf(line + n, LINE_MAX_LEN - n, " written=%s path=%s",
			      s->writing ? "yes" : "no", esc);
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
	if (!k) {
		k = jknob_add(j, s);
		if (!k) {
			pr_warn("out of memory keeping the journal\n");
			return j->err = -ENOMEM;
		}
	}
	k->marked = s->writing;
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
	size_t i;

	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	for (i = 0; i < j->nr_knobs; i++)
		free(j->knobs[i].path);
	free(j->knobs);
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

int journal_msr_shift(__u32 msr)
{
	return msr == MSR_HWP_REQUEST ? 0 : msr == MSR_CPPC_REQ ? 8 : -1;
}

/* "written=yes|no" */
static int parse_written(const char **p, const char *end, bool *w)
{
	const char *v;
	size_t vl;

	if (field(p, end, "written", &v, &vl))
		return -EINVAL;
	if (vl == 3 && !memcmp(v, "yes", 3))
		*w = true;
	else if (vl == 2 && !memcmp(v, "no", 2))
		*w = false;
	else
		return -EINVAL;
	return 0;
}

/* "reg=0x<msr>" of a shared register bpfgov writes (any other: refused
 * later, by journal_entry_check(); here it is only syntax). */
static int parse_reg(const char **p, const char *end, struct journal_entry *e)
{
	unsigned long long x;
	const char *v;
	size_t vl;

	if (field(p, end, "reg", &v, &vl) || parse_ull(v, vl, 16, 0xffffffffull, &x))
		return -EINVAL;
	e->msr = x;
	return 0;
}

/* One record line (without crc and newline) into @e; *mark: a "wrote"
 * line. @v1: a version 1 journal (full register values, no marks). */
static int parse_record(const char *s, size_t len, struct journal_entry *e, bool *mark, bool v1)
{
	const char *p = s, *end = s + len, *v;
	unsigned long long x;
	size_t vl, i;
	int sh;

	memset(e, 0, sizeof(*e));
	*mark = false;
	if (len > 6 && !memcmp(s, "wrote ", 6) && !v1) {
		*mark = true;
		p += 6;
		if (field(&p, end, "cpu", &v, &vl) || parse_ull(v, vl, 10, BPFGOV_MAX_CPUS, &x))
			return -EINVAL;
		e->cpu = x;
		if (p + 6 <= end && !memcmp(p, "reg=- ", 6)) {
			p += 6;
		} else {
			if (parse_reg(&p, end, e))
				return -EINVAL;
			e->is_msr = true;
		}
	} else if (len > 4 && !memcmp(s, "msr ", 4)) {
		e->is_msr = true;
		p += 4;
		if (field(&p, end, "cpu", &v, &vl) || parse_ull(v, vl, 10, BPFGOV_MAX_CPUS, &x))
			return -EINVAL;
		e->cpu = x;
		if (parse_reg(&p, end, e))
			return -EINVAL;
		sh = journal_msr_shift(e->msr);
		if (v1) {
			/* the whole register: bpfgov's field of it */
			if (field(&p, end, "val", &v, &vl) || parse_ull(v, vl, 16, ~0ull, &x))
				return -EINVAL;
			e->shift = sh < 0 ? 0 : sh;
			e->orig = (x >> e->shift) & 0xff;
			e->written = true;
		} else {
			unsigned long long hi, lo;
			const char *c;

			if (field(&p, end, "bits", &v, &vl) || !(c = memchr(v, ':', vl)) ||
			    parse_ull(v, c - v, 10, 63, &hi) ||
			    parse_ull(c + 1, v + vl - c - 1, 10, 56, &lo) || hi != lo + 7)
				return -EINVAL;
			e->shift = lo;
			if (field(&p, end, "orig", &v, &vl) || vl < 3 || memcmp(v, "0x", 2) ||
			    parse_ull(v + 2, vl - 2, 16, 0xff, &x))
				return -EINVAL;
			e->orig = x;
			if (parse_written(&p, end, &e->written))
				return -EINVAL;
		}
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
		if (v1)
			e->written = true;
		else if (parse_written(&p, end, &e->written))
			return -EINVAL;
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
	bool v1 = false, mark;
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

			v1 = pl >= (long)ml && !memcmp(p, JOURNAL_MAGIC_V1, ml);
			if (pl < (long)ml || (memcmp(p, JOURNAL_MAGIC, ml) && !v1) ||
			    (p[ml] != ' ' && (long)ml != pl)) {
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
		if (pl < 0 || parse_record(p, pl, &e, &mark, v1)) {
			(*bad)++;
			continue;
		}
		for (i = 0; i < n; i++)
			if (same_knob(&v[i], &e))
				break;
		if (mark && i == n)
			(*bad)++;	/* the mark of no knob */
		if (mark && i < n && v[i].cpu == e.cpu)
			v[i].written = true;
		else if (mark && i < n)
			(*bad)++;
		if (i < n || mark)
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

/* ----------------------------------------------------- restore's decisions */

/* @root without trailing slashes: its length (at least 1: "/"). */
static size_t root_len(const char *root)
{
	size_t rl = strlen(root);

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	return rl;
}

/* The knobs bpfgov writes for cpu @cpu, below the sysfs root. */
static bool sysfs_knob(const char *rel, int cpu)
{
	static const char *const names[] = {
		"cpufreq/scaling_min_freq",
		"cpufreq/energy_performance_preference",
		"power/pm_qos_resume_latency_us",
	};
	char pre[64];
	const char *p;
	size_t pl, i;
	unsigned long k = 0;

	/* the one system-wide knob (--idle-governor), journaled as cpu 0 */
	if (!strcmp(rel, "devices/system/cpu/cpuidle/current_governor"))
		return cpu == 0;
	pl = snprintf(pre, sizeof(pre), "devices/system/cpu/cpu%d/", cpu);
	if (strncmp(rel, pre, pl))
		return false;
	p = rel + pl;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(p, names[i]))
			return true;
	/* cpuidle/state<K>/disable, K a plain decimal below the state limit */
	if (strncmp(p, "cpuidle/state", 13))
		return false;
	p += 13;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] != '/'))
		return false;
	while (*p >= '0' && *p <= '9' && k < BPFGOV_MAX_STATES)
		k = 10 * k + (*p++ - '0');
	return k < BPFGOV_MAX_STATES && !strcmp(p, "/disable");
}

int journal_entry_check(const struct journal_entry *e, const char *msr_root,
			const char *sysfs_root, const char **root, const char **rel,
			char *why, size_t whylen)
{
	const char *r = e->is_msr ? msr_root : sysfs_root;
	size_t rl = root_len(r);
	char want[32];
	int sh;

	*root = r;
	*rel = NULL;
	if (r[0] != '/') {
		snprintf(why, whylen, "the root %s is not an absolute path", r);
		return -EPERM;
	}
	if (e->cpu < 0 || e->cpu >= BPFGOV_MAX_CPUS) {
		snprintf(why, whylen, "cpu %d out of range", e->cpu);
		return -EPERM;
	}
	if (strncmp(e->path, r, rl) || (rl > 1 && e->path[rl] != '/')) {
		snprintf(why, whylen, "outside the %s root %s", e->is_msr ? "MSR" : "sysfs", r);
		return -EPERM;
	}
	*rel = e->path + rl + (rl > 1);
	if (e->is_msr) {
		sh = journal_msr_shift(e->msr);
		if (sh < 0 || (unsigned int)sh != e->shift) {
			snprintf(why, whylen, "MSR %#x bits %u:%u is not a field bpfgov writes (HWP_REQUEST 7:0, CPPC_REQ 15:8)",
				 e->msr, e->shift + 7, e->shift);
			return -EPERM;
		}
		snprintf(want, sizeof(want), "%d/msr", e->cpu);
		if (strcmp(*rel, want)) {
			snprintf(why, whylen, "not the MSR device of cpu %d under %s", e->cpu, r);
			return -EPERM;
		}
		return 0;
	}
	if (!sysfs_knob(*rel, e->cpu)) {
		snprintf(why, whylen, "not a knob bpfgov writes for cpu %d under %s", e->cpu, r);
		return -EPERM;
	}
	return 0;
}

/* @rel beneath the directory @root (absolute): openat2 with every
 * component kept beneath it, no magic links, the last not a symlink. */
static int open_beneath(const char *root, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (__u64)(flags | O_NOFOLLOW | O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY)),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int dfd, fd, err;

	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	err = fd < 0 ? -errno : 0;
	close(dfd);
	return err ? err : fd;
}

int journal_open_entry(const struct journal_entry *e, const char *msr_root,
		       const char *sysfs_root, int flags, char *why, size_t whylen)
{
	const char *root, *rel;
	struct stat st;
	int fd, err;

	err = journal_entry_check(e, msr_root, sysfs_root, &root, &rel, why, whylen);
	if (err)
		return err;
	fd = open_beneath(root, rel, flags);
	if (fd < 0) {
		err = fd;
		snprintf(why, whylen, "%s", err == -EXDEV ? "a link leads outside its root" :
			 err == -ELOOP ? "a symlink or a magic link on its path" :
			 err == -ENOSYS ? "openat2 is not available (Linux 5.6 or later needed)" :
			 strerror(-err));
		return err == -EXDEV || err == -ELOOP ? -EPERM : err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		snprintf(why, whylen, "%s", strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode) && !(e->is_msr && S_ISCHR(st.st_mode))) {
		close(fd);
		snprintf(why, whylen, "not a regular file%s", e->is_msr ? " or the msr device" : "");
		return -EPERM;
	}
	return fd;
}

bool journal_cpu_gone(const struct journal_entry *e, const char *msr_root,
		      const char *sysfs_root, int err)
{
	char rel[64], on[8];
	ssize_t n;
	int fd;

	(void)msr_root;
	if (err == -ENXIO && e->is_msr)
		return true;	/* the msr device of an offline CPU */
	if (err != -ENOENT && err != -ENODEV && err != -ENXIO)
		return false;
	/* sysfs decides, for an MSR record too: a missing /dev/cpu (the msr
	 * module not loaded) is a failure, not a CPU gone */
	fd = open(sysfs_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d", e->cpu);
	fd = open_beneath(sysfs_root, rel, O_PATH | O_DIRECTORY);
	if (fd == -ENOENT)
		return true;	/* unplugged */
	if (fd < 0)
		return false;
	close(fd);
	strncat(rel, "/online", sizeof(rel) - strlen(rel) - 1);
	fd = open_beneath(sysfs_root, rel, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, on, sizeof(on) - 1);
	close(fd);
	return n > 0 && on[0] == '0';
}
