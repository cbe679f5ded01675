// SPDX-License-Identifier: GPL-2.0
/*
 * Pin root, bpffs and the single-instance locks. Every mode pins the same
 * maps by name under one root (LIBBPF_PIN_BY_NAME), so status/tail/dump
 * work without knowing which mode produced them. The lock, not a pid file,
 * says whether an owner is alive: a dead owner's flock is gone with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "journal.h"
#include "log.h"
#include "util.h"

const char *const gov_pinned_maps[] = {
	"cpu_state", "tunables", "control", "events", "tap", "loader_state", NULL,
};

/* Pinned maps that are BPF globals, each in a section of its own (libbpf
 * makes it a one-entry array map named after the section): the BPF side
 * reads them with a plain load instead of a map lookup. */
static const struct {
	const char *pin, *sec;
} gov_pinned_globals[] = {
	{ "tunables", ".data.tunables" },
	{ "control", ".data.control" },
};

struct bpf_map *gov_obj_map(const struct bpf_object *obj, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(gov_pinned_globals) / sizeof(gov_pinned_globals[0]); i++)
		if (!strcmp(name, gov_pinned_globals[i].pin))
			name = gov_pinned_globals[i].sec;
	return bpf_object__find_map_by_name(obj, name);
}

int gov_obj_pin_globals(struct bpf_object *obj, const char *pin_root)
{
	char path[PATH_MAX];
	struct bpf_map *m;
	size_t i;
	int err;

	for (i = 0; i < sizeof(gov_pinned_globals) / sizeof(gov_pinned_globals[0]); i++) {
		m = bpf_object__find_map_by_name(obj, gov_pinned_globals[i].sec);
		if (!m)
			return -ENOENT;
		if (snprintf(path, sizeof(path), "%s/%s", pin_root,
			     gov_pinned_globals[i].pin) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		err = bpf_map__set_pin_path(m, path);
		if (err)
			return err;
	}
	return 0;
}

const char *gov_run_dir(void)
{
	const char *d = getenv("BPFGOV_RUN_DIR");

	return d && *d ? d : DEFAULT_RUN_DIR;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	char *p;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* Where bpf filesystems are mounted (/proc/self/mounts), for a message:
 * "mounted at A, B" or "" when none is. */
static void bpffs_mounts(char *out, size_t n)
{
	struct mntent *m;
	size_t o = 0;
	FILE *f;

	out[0] = '\0';
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return;
	while ((m = getmntent(f)) && o < n) {
		if (strcmp(m->mnt_type, "bpf"))
			continue;
		o += (size_t)snprintf(out + o, n - o, "%s%s", o ? ", " : "bpffs is mounted at ",
				      str_esc(m->mnt_dir));
	}
	endmntent(f);
}

int pins_prepare(const char *pin_root)
{
	char near[PATH_MAX], mounts[256];
	char *slash;
	int err;

	if (!pin_root || pin_root[0] != '/') {
		pr_warn("pin root '%s' must be an absolute path\n", str_esc(pin_root ? pin_root : ""));
		return -EINVAL;
	}
	if (strlen(pin_root) >= sizeof(near)) {
		pr_warn("pin root '%s' is too long\n", str_esc(pin_root));
		return -ENAMETOOLONG;
	}

	/* bpffs is not mounted by default on some systems: mount the
	 * standard one if our root lives under it. */
	if (!strncmp(pin_root, "/sys/fs/bpf/", 12) && !is_bpffs("/sys/fs/bpf")) {
		pr_debug("mounting bpffs on /sys/fs/bpf\n");
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			err = -errno;
			pr_warn("cannot mount bpffs on /sys/fs/bpf: %s\n", strerror(-err));
			return err;
		}
	}
	/* The nearest existing ancestor decides: on bpffs, the missing
	 * directories below it are made; elsewhere nothing is. */
	strcpy(near, pin_root);
	do {
		slash = strrchr(near, '/');
		if (slash == near)
			near[1] = '\0';
		else
			*slash = '\0';
	} while (!path_exists(near));
	if (!is_bpffs(near)) {
		bpffs_mounts(mounts, sizeof(mounts));
		if (mounts[0])
			pr_warn("pin root %s: %s is not on a bpf filesystem (%s)\n",
				str_esc(pin_root), str_esc(near), mounts);
		else
			pr_warn("pin root %s: %s is not on a bpf filesystem, and none is mounted (mount -t bpf bpf /sys/fs/bpf)\n",
				str_esc(pin_root), str_esc(near));
		return -EINVAL;
	}
	err = mkdir_p(pin_root, 0700);
	if (err) {
		pr_warn("cannot create pin root %s: %s\n", str_esc(pin_root), strerror(-err));
		return err;
	}
	return 0;
}

bool pins_present(const char *pin_root)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/cpu_state", pin_root);
	return !access(path, F_OK);
}

int pins_remove(const char *pin_root)
{
	char path[PATH_MAX];
	int i, err = 0;

	for (i = 0; gov_pinned_maps[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", pin_root, gov_pinned_maps[i]);
		if (unlink(path) && errno != ENOENT && !err)
			err = -errno;
	}
	if (rmdir(pin_root) && errno != ENOENT && errno != ENOTEMPTY && !err)
		err = -errno;
	return err;
}

int pins_open_map(const char *pin_root, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pin_root, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static int lock_path(char *buf, size_t len)
{
	int err = mkdir_p(gov_run_dir(), 0700);

	if (err) {
		pr_warn("cannot create %s: %s\n", gov_run_dir(), strerror(-err));
		return err;
	}
	snprintf(buf, len, "%s/lock", gov_run_dir());
	return 0;
}

static pid_t read_pid(int fd)
{
	char buf[32] = {};
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? (pid_t)strtol(buf, NULL, 10) : 0;
}

/*
 * The machine lock: registers, sysfs knobs and the cpufreq/idle state
 * belong to the machine, not to a run directory, so one instance runs per
 * machine whatever its run directory and pin root. It holds "<pid>\n<run
 * directory>\n<PID namespace>\n" of its holder; the holder's run directory
 * stays in it after a crash (it is emptied only when that directory has no
 * journal left), so that an instance elsewhere does not journal a dead
 * one's changed values as originals. The PID namespace ("pid:[INODE]", as
 * /proc/self/ns/pid reads) says where the pid means that process: /run
 * may be shared with a container that has PID namespaces of its own.
 */
#define PIDNS_LEN	64
static int machine_fd = -1;
static char machine_dir[PATH_MAX];	/* the other instance's run directory */
static char machine_pidns[PIDNS_LEN];	/* and its PID namespace ("" unknown) */

/* Our PID namespace into @buf ("pid:[INODE]"), "" when /proc cannot say. */
static void pidns_self(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/ns/pid", buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/* *pid, the run directory (into machine_dir) and the PID namespace (into
 * machine_pidns) recorded in @fd. */
static pid_t read_machine(int fd)
{
	char buf[PATH_MAX + PIDNS_LEN + 32] = {};
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *nl, *dir, *ns;

	machine_dir[0] = '\0';
	machine_pidns[0] = '\0';
	if (n <= 0)
		return 0;
	dir = strchr(buf, '\n');
	if (dir && (nl = strchr(++dir, '\n')) && *dir == '/') {
		*nl = '\0';
		snprintf(machine_dir, sizeof(machine_dir), "%s", dir);
		ns = nl + 1;
		if (!strncmp(ns, "pid:[", 5) && (nl = strchr(ns, '\n'))) {
			*nl = '\0';
			snprintf(machine_pidns, sizeof(machine_pidns), "%s", ns);
		}
	}
	return (pid_t)strtol(buf, NULL, 10);
}

static int machine_open(void)
{
	const char *path = GOV_MACHINE_LOCK;
	struct stat st;
	int fd, err;

	/* /run is a tmpfs made at boot; where it is missing, make it as
	 * the boot would (root's, 0755) */
	if (mkdir("/run", 0755) && errno != EEXIST) {
		err = -errno;
		pr_warn("cannot create /run for the machine lock %s: %s\n", path, strerror(-err));
		return err;
	}
	if (lstat("/run", &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		pr_warn("/run is not a directory owned by root and writable only by it; the machine lock %s is not trusted there\n",
			path);
		return -EPERM;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0) {
		err = -errno;
		pr_warn("cannot open the machine lock %s: %s\n", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		pr_warn("%s is not a regular file owned by uid %u (planted by someone else?)\n",
			path, (unsigned int)geteuid());
		close(fd);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600)) {
		err = -errno;
		pr_warn("cannot chmod 0600 %s: %s\n", path, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

/* The machine lock, or -EBUSY with *owner its live holder's pid (and its
 * run directory in machine_dir); -EEXIST when a dead holder left a
 * journal in another run directory (said in one line). */
static int machine_take(pid_t *owner)
{
	char buf[PATH_MAX + PIDNS_LEN + 32], jnl[PATH_MAX + 16], ns[PIDNS_LEN];
	const char *dir = gov_run_dir();
	struct stat st;
	pid_t prev;
	int fd, err, n;

	fd = machine_open();
	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		*owner = read_machine(fd);
		close(fd);
		return err == -EWOULDBLOCK ? -EBUSY : err;
	}
	prev = read_machine(fd);
	if (machine_dir[0] && strcmp(machine_dir, dir) &&
	    snprintf(jnl, sizeof(jnl), "%s/%s", machine_dir, GOV_JOURNAL_FILE) < (int)sizeof(jnl) &&
	    !lstat(jnl, &st)) {
		pr_warn("a dead instance (pid %d) left its journal %s: run 'BPFGOV_RUN_DIR=%s govloader restore' first\n",
			(int)prev, jnl, machine_dir);
		close(fd);
		return -EEXIST;
	}
	pidns_self(ns, sizeof(ns));
	n = snprintf(buf, sizeof(buf), "%d\n%s\n%s%s", (int)getpid(), dir, ns, ns[0] ? "\n" : "");
	if (n >= (int)sizeof(buf) || ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n) {
		err = n >= (int)sizeof(buf) ? -ENAMETOOLONG : -errno;
		pr_warn("cannot write the machine lock %s: %s\n", GOV_MACHINE_LOCK, strerror(-err));
		close(fd);
		return err;
	}
	machine_fd = fd;
	return 0;
}

const char *gov_lock_stop_hint(void)
{
	static char hint[PATH_MAX + 64];

	if (!machine_dir[0] || !strcmp(machine_dir, gov_run_dir()))
		return "'govloader stop'";
	snprintf(hint, sizeof(hint), "'BPFGOV_RUN_DIR=%s govloader stop'", machine_dir);
	return hint;
}

int gov_owner_pidns_check(pid_t pid)
{
	char ns[PIDNS_LEN];

	if (gov_machine_owner() != pid || !machine_pidns[0])
		return 0;
	pidns_self(ns, sizeof(ns));
	if (!ns[0] || !strcmp(ns, machine_pidns))
		return 0;
	pr_warn("bpfgov runs as pid %d of another PID namespace (%s, this is %s): stop it from there (the host, or its container)\n",
		(int)pid, machine_pidns, ns);
	return -EXDEV;
}

pid_t gov_machine_owner(void)
{
	pid_t pid = 0;
	int fd = open(GOV_MACHINE_LOCK, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);

	machine_dir[0] = '\0';
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			pid = read_machine(fd);
	} else {
		flock(fd, LOCK_UN);
	}
	close(fd);
	return pid;
}

int gov_lock_take(int *out_fd, pid_t *owner)
{
	char path[PATH_MAX], buf[32];
	int fd, err, n;

	*owner = 0;
	err = lock_path(path, sizeof(path));
	if (err)
		return err;
	err = machine_take(owner);
	if (err)
		return err;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		err = -errno;
		pr_warn("cannot open lock %s: %s\n", path, strerror(-err));
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		*owner = read_pid(fd);
		close(fd);
		err = err == -EWOULDBLOCK ? -EBUSY : err;
		goto fail;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n) {
		err = -errno;
		pr_warn("cannot write lock %s: %s\n", path, strerror(-err));
		close(fd);
		goto fail;
	}
	*out_fd = fd;
	return 0;
fail:
	close(machine_fd);
	machine_fd = -1;
	return err;
}

pid_t gov_lock_owner(void)
{
	char path[PATH_MAX];
	pid_t pid = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/lock", gov_run_dir());
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			pid = read_pid(fd);
	} else {
		flock(fd, LOCK_UN);
	}
	close(fd);
	return pid;
}

void gov_lock_release(int fd)
{
	char jnl[PATH_MAX];

	if (fd < 0)
		return;
	/* Keep the files: unlinking them would race with a new taker. */
	if (ftruncate(fd, 0))
		pr_debug("cannot truncate lock: %s\n", strerror(errno));
	close(fd);
	if (machine_fd < 0)
		return;
	/* a journal left behind keeps our run directory named */
	snprintf(jnl, sizeof(jnl), "%s/%s", gov_run_dir(), GOV_JOURNAL_FILE);
	if (!path_exists(jnl) && ftruncate(machine_fd, 0))
		pr_debug("cannot truncate %s: %s\n", GOV_MACHINE_LOCK, strerror(errno));
	close(machine_fd);
	machine_fd = -1;
}
