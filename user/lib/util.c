// SPDX-License-Identifier: GPL-2.0
/* The one helper module of govloader (util.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "util.h"

int read_text(const char *path, int oflags, char *buf, size_t size, size_t *len)
{
	size_t off = 0;
	ssize_t n;
	int fd, err = 0;

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | oflags);
	if (fd < 0)
		return -errno;
	while (off < size - 1) {
		n = read(fd, buf + off, size - 1 - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		off += n;
	}
	if (!err && off == size - 1) {
		char c;

		if (read(fd, &c, 1) > 0)
			err = -EFBIG;
	}
	close(fd);
	buf[off] = '\0';
	if (len)
		*len = off;
	return err;
}

static bool is_blank(char c)
{
	return c == '\n' || c == ' ' || c == '\t' || c == '\r';
}

int read_line(const char *path, char *buf, size_t size)
{
	size_t n;
	char *nl;
	int err = read_text(path, 0, buf, size, NULL);

	nl = buf ? strchr(buf, '\n') : NULL;
	if (err == -EFBIG && nl)
		err = 0;	/* the first line fits; the rest is not ours */
	if (err) {
		if (size)
			buf[0] = '\0';
		return err;
	}
	if (nl)
		*nl = '\0';
	n = strlen(buf);
	while (n && is_blank(buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = n + 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, 4096, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

int read_u32(const char *path, __u32 *out)
{
	char buf[64];
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	return parse_u32(buf, 0, 0xffffffffu, out) ? -EINVAL : 0;
}

int parse_u64(const char *s, __u64 *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_u32(const char *s, __u32 lo, __u32 hi, __u32 *out)
{
	__u64 v;

	if (parse_u64(s, &v))
		return -EINVAL;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = (__u32)v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	if (v <= 0 || v > 365.0 * 24 * 3600)
		return -ERANGE;
	*out = v;
	return 0;
}

int pct_escape(char *dst, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = *s;

		if (n + 4 > size)
			return -ENAMETOOLONG;
		if (c <= ' ' || c >= 0x7f || c == '%') {
			dst[n++] = '%';
			dst[n++] = hex[c >> 4];
			dst[n++] = hex[c & 15];
		} else {
			dst[n++] = c;
		}
	}
	if (n >= size)
		return -ENAMETOOLONG;
	dst[n] = '\0';
	return n;
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int pct_unescape(char *dst, size_t size, const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			int h, l;

			if (i + 2 >= len)
				return -EINVAL;
			h = hex_digit(s[i + 1]);
			l = hex_digit(s[i + 2]);
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

void str_rstrip_copy(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (!size)
		return;
	while (n && is_blank(s[n - 1]))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int fmt_checked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= size ? -ENAMETOOLONG : n;
}

bool str_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	if (!n)
		return false;
	for (const char *s = list; (s = strstr(s, word)); s += n)
		if ((s == list || isspace((unsigned char)s[-1])) &&
		    (s[n] == '\0' || isspace((unsigned char)s[n])))
			return true;
	return false;
}

char *fmt_alloc(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		p = NULL;
	va_end(ap);
	return p;
}

int write_full(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int check_writable(const char *path)
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

int write_exact(const char *path, const char *buf, size_t len)
{
	int fd, err;

	err = check_writable(path);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	err = write_full(fd, buf, len);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int write_file_atomic(const char *path, mode_t mode, bool durable,
		      int (*fill)(FILE *f, void *ctx), void *ctx)
{
	const char *base = strrchr(path, '/');
	char tmp[PATH_MAX], dir[PATH_MAX];
	FILE *f;
	int fd, err;

	base = base ? base + 1 : path;
	if (fmt_checked(dir, sizeof(dir), "%.*s", (int)(base - path), path) < 0 ||
	    fmt_checked(tmp, sizeof(tmp), "%s.%s.XXXXXX", dir, base) < 0)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	err = fill(f, ctx);
	if ((fflush(f) || fchmod(fd, mode) || (durable && fsync(fd))) && !err)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	else if (durable)
		fsync_dir(dir[0] ? dir : ".");
	return err;
}

int write_buf_atomic(const char *path, mode_t mode, const char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	char tmp[PATH_MAX];
	ssize_t n;
	int fd, err = 0;

	base = base ? base + 1 : path;
	if (fmt_checked(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)(base - path), path, base) < 0)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (!err && mode != 0600 && fchmod(fd, mode))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

const char *str_esc(const char *s)
{
	static char bufs[4][PATH_MAX + 4];
	static unsigned int next;
	char *out = bufs[next++ % 4];
	size_t o = 0, room = PATH_MAX;
	unsigned char c;

	if (!s)
		return "(null)";
	for (; *s; s++) {
		char e[5];
		size_t n;

		c = (unsigned char)*s;
		if (c == '\n')
			n = (size_t)snprintf(e, sizeof(e), "\\n");
		else if (c == '\t')
			n = (size_t)snprintf(e, sizeof(e), "\\t");
		else if (c == '\\')
			n = (size_t)snprintf(e, sizeof(e), "\\\\");
		else if (c < ' ' || c == 0x7f)
			n = (size_t)snprintf(e, sizeof(e), "\\x%02x", c);
		else
			e[0] = (char)c, n = 1;
		if (o + n > room) {
			memcpy(out + o, "...", 4);
			return out;
		}
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return out;
}

int check_creatable(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	if (!path || !*path || strlen(path) >= sizeof(dir))
		return !path || !*path ? -EINVAL : -ENAMETOOLONG;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

bool path_exists(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0;
}

__u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int spec_each(const char *spec, const char *opt, const char *want,
	      int (*item)(char *it, void *ctx, char *err, size_t errlen), void *ctx,
	      char *err, size_t errlen)
{
	char *dup, *save = NULL;
	int ret = 0;

	if (!spec || !*spec) {
		snprintf(err, errlen, "%s: empty (want %s)", opt, want);
		return -EINVAL;
	}
	dup = strdup(spec);
	if (!dup) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (char *it = strtok_r(dup, ",", &save); it && !ret; it = strtok_r(NULL, ",", &save))
		ret = item(it, ctx, err, errlen);
	free(dup);
	return ret;
}

int listen_addr_parse(const char *s, void *ss_, unsigned int *len)
{
	struct sockaddr_storage *ss = ss_;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	char host[64];
	const char *port_s, *end;
	unsigned long port;
	char *e;

	memset(ss, 0, sizeof(*ss));
	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || end[1] != ':' || (size_t)(end - s - 1) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, end - s - 1);
		host[end - s - 1] = '\0';
		port_s = end + 2;
	} else if ((end = strrchr(s, ':'))) {
		if (end == s || (size_t)(end - s) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, end - s);
		host[end - s] = '\0';
		port_s = end + 1;
	} else {
		strcpy(host, "127.0.0.1");
		port_s = s;
	}
	if (*port_s < '0' || *port_s > '9')
		return -EINVAL;
	errno = 0;
	port = strtoul(port_s, &e, 10);
	if (errno || *e || port < 1 || port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		*len = sizeof(*a4);
		return 0;
	}
	/* IPv6 bracketed or not: the port is after the last colon (a pod's
	 * address from the downward API comes without brackets). */
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = sizeof(*a6);
		return 0;
	}
	return -EINVAL;
}
