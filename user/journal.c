// SPDX-License-Identifier: GPL-2.0
/*
 * State journal and `govloader restore` (format in journal.h).
 *
 * Writer: the actuator's save hook appends one checksummed line per knob
 * with a single write() on an O_APPEND file and fdatasync()s it before the
 * knob is written; a failure aborts that write. Reader: parse, keep the
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
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "log.h"

#define JOURNAL_MAGIC	"bpfgov-journal 1"
#define LINE_MAX_LEN	(3 * 4096 + 512)

struct journal {
	char dir[PATH_MAX];
	char path[PATH_MAX];
	int fd;
	int nr;
	int err;		/* sticky: the first failure to record */
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

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* ----------------------------------------------------------- writer */

int journal_init(struct journal **out, const char *dir)
{
	struct journal *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	snprintf(j->path, sizeof(j->path), "%s/%s", dir, GOV_JOURNAL_FILE);
	j->fd = -1;
	*out = j;
	return 0;
}

static size_t escape_path(char *dst, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *s && n + 4 < size; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c >= 0x7f || c == '%') {
			dst[n++] = '%';
			dst[n++] = hex[c >> 4];
			dst[n++] = hex[c & 15];
		} else {
			dst[n++] = c;
		}
	}
	dst[n] = '\0';
	return n;
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
	escape_path(esc, sizeof(esc), s->path);
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
	if (!err && fdatasync(j->fd))
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int unescape_path(char *dst, size_t size, const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int h, l;

			if (i + 2 >= len)
				return -EINVAL;
			h = hexval(s[i + 1]);
			l = hexval(s[i + 2]);
			if (h < 0 || l < 0)
				return -EINVAL;
			c = h << 4 | l;
			i += 2;
		}
		if (!c || n + 1 >= size)
			return -EINVAL;
		dst[n++] = c;
	}
	dst[n] = '\0';
	return n ? 0 : -EINVAL;
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
				int h = hexval(v[2 * i]), l = hexval(v[2 * i + 1]);

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
	if (unescape_path(e->path, sizeof(e->path), v, vl) || e->path[0] != '/')
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
			if (pl > (long)ml + 5 && !memcmp(p + ml, " pid=", 5) &&
			    !parse_ull(p + ml + 5, pl - ml - 5, 10, 0x7fffffff, &x))
				*pid = (int)x;
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

/* Read a small file's exact bytes; -EFBIG past @size - 1. */
int journal_restore_entry(const struct journal_entry *e)
{
	struct stat st;
	int fd, err;

	/* The actuator's own put-back: same checks, same writes. */
	if (e->is_msr) {
		fd = open(e->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			err = -errno;
			goto fail;
		}
		if (fstat(fd, &st)) {
			err = -errno;
			close(fd);
			goto fail;
		}
		/* as the actuator: a stand-in's mode bits count */
		if (S_ISREG(st.st_mode) && !(st.st_mode & 0222))
			err = -EACCES;
		else
			err = act_put_back_msr(fd, S_ISREG(st.st_mode), e->msr, e->msr_val);
		close(fd);
	} else {
		err = act_put_back_file(e->path, e->text, e->len);
	}
	if (err >= 0)
		return err;
fail:
	if (e->is_msr)
		pr_warn("%s: cannot restore MSR %#x of cpu %d to %#llx: %s\n", e->path, e->msr,
			e->cpu, (unsigned long long)e->msr_val,
			err == -EACCES ? "read-only" : err == -EIO ? "short write" : strerror(-err));
	else
		pr_warn("cannot restore %s (%u bytes): %s\n", e->path, e->len,
			err == -EACCES ? "read-only" : err == -EIO ? "short write" : strerror(-err));
	return err;
}

static int load_journal(const char *path, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t off = 0;
	int fd, err = 0;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		pr_warn("%s: not a regular file owned by uid %u and writable only by it; not trusted\n",
			path, (unsigned int)geteuid());
		err = -EPERM;
		goto out;
	}
	if (st.st_size > JOURNAL_MAX_SIZE) {
		pr_warn("%s: larger than %d bytes; not a journal bpfgov wrote\n", path,
			JOURNAL_MAX_SIZE);
		err = -EFBIG;
		goto out;
	}
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		err = -ENOMEM;
		goto out;
	}
	while (off < (size_t)st.st_size &&
	       (n = read(fd, *buf + off, st.st_size - off)) > 0)
		off += n;
	*len = off;
out:
	close(fd);
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

int journal_restore(const char *dir, int *restored, int *records, int *pid)
{
	char path[PATH_MAX], bad_path[PATH_MAX + 8], msg[128], *buf = NULL;
	struct journal_entry *v = NULL;
	size_t len = 0, nr = 0, i;
	int err, bad = 0, first = 0, r;

	*restored = *records = *pid = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, GOV_JOURNAL_FILE);
	err = load_journal(path, &buf, &len);
	if (err == -ENOENT)
		return err;
	if (err) {
		if (err != -EPERM && err != -EFBIG)
			pr_warn("cannot read the journal %s: %s\n", path, strerror(-err));
		return err;
	}
	err = journal_parse(buf, len, &v, &nr, &bad, pid, msg, sizeof(msg));
	free(buf);
	if (err == -EINVAL && len == 0) {
		/* created, crashed before the header reached the disk: no
		 * knob was written after it */
		unlink(path);
		return 0;
	}
	if (err) {
		pr_warn("%s: %s; move it away by hand after checking it\n", path, msg);
		return err;
	}
	*records = nr;
	for (i = nr; i-- > 0;) {
		r = journal_restore_entry(&v[i]);
		if (r < 0 && !first)
			first = r;
		else if (r == 0)
			(*restored)++;
	}
	free(v);
	if (first)
		return first;	/* keep the journal: a later restore retries */
	if (bad) {
		snprintf(bad_path, sizeof(bad_path), "%s.bad", path);
		pr_warn("%s: %d corrupt record(s) could not be restored; kept as %s\n", path, bad,
			bad_path);
		if (rename(path, bad_path))
			unlink(path);
		fsync_dir(dir);
		return -EBADMSG;
	}
	if (unlink(path) && errno != ENOENT)
		return -errno;
	fsync_dir(dir);
	return 0;
}

/* ------------------------------------------------------------ restore */

static const char restore_usage[] =
"Usage: govloader restore [--pin-root DIR]\n"
"Put back every register and file a dead 'govloader start' changed (after a\n"
"crash or kill -9), from its journal in $BPFGOV_RUN_DIR or /run/bpfgov, then\n"
"remove the journal and stale pins. Refused while bpfgov runs ('stop'\n"
"restores). With no journal there is nothing to do: one line, exit 0.\n"
"Exit: 0 restored or nothing to do, 1 error (journal kept).\n";

int do_restore(int argc, char **argv)
{
	struct cli_opts co = {};
	const char *pin_root, *dir = gov_run_dir();
	char path[PATH_MAX];
	int fd = -1, err, ret = 1, restored, records, pid;
	pid_t owner;

	err = cli_parse("restore", restore_usage, argc, argv, "pin-root", &co);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	pin_root = co.pin_root;
	if (geteuid() != 0) {
		pr_warn("restore needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	if (run_dir_secure(dir))
		return 1;
	err = gov_lock_take(&fd, &owner);
	if (err == -EBUSY) {
		pr_warn("bpfgov is running (pid %d); 'govloader stop' restores everything\n",
			(int)owner);
		return 1;
	}
	if (err)
		return 1;
	err = journal_restore(dir, &restored, &records, &pid);
	if (err == -ENOENT) {
		pr_info("nothing to restore: no journal in %s\n", dir);
		ret = 0;
	} else if (err) {
		pr_warn("restore incomplete; the journal %s/%s is kept, fix the cause and run 'govloader restore' again\n",
			dir, GOV_JOURNAL_FILE);
		goto out;
	} else {
		pr_info("restored %d of %d register(s)/file(s) from the journal of pid %d (%d already in place)\n",
			restored, records, pid, records - restored);
		ret = 0;
	}
	/* The dead instance's other leftovers. */
	if (pins_present(pin_root)) {
		pr_info("removing stale pins under %s\n", pin_root);
		pins_remove(pin_root);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, GOV_STATUS_FILE);
	unlink(path);
	cfg_origins_remove(dir);
out:
	gov_lock_release(fd);
	return ret;
}
