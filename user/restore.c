// SPDX-License-Identifier: GPL-2.0
/* `govloader restore`: put back what a dead instance changed, from its
 * journal (journal.c reads and writes it), through the actuator's own
 * put-back. start uses journal_restore() for a stale journal too. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "actuate.h"
#include "log.h"
#include "util.h"

/* A file's exact bytes back through @fd, unless already in place: 1 in
 * place, 0 written, -errno. A stand-in (a regular file) needs a write bit
 * and is cut to the text. */
static int put_back_fd(int fd, const struct stat *st, const char *text, size_t len)
{
	char cur[JOURNAL_TEXT_MAX];
	ssize_t n;

	n = pread(fd, cur, sizeof(cur), 0);
	if (n >= 0 && (size_t)n == len && !memcmp(cur, text, len))
		return 1;
	if (S_ISREG(st->st_mode) && !(st->st_mode & 0222))
		return -EACCES;
	n = pwrite(fd, text, len, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	if (S_ISREG(st->st_mode) && st->st_size > (off_t)len && ftruncate(fd, len))
		return -errno;
	return 0;
}

int journal_restore_entry(const struct journal_entry *e, const char *msr_root,
			  const char *sysfs_root)
{
	char why[PATH_MAX + 128];
	struct stat st;
	int fd, err;

	fd = journal_open_entry(e, msr_root, sysfs_root, O_RDWR, why, sizeof(why));
	if (fd == -EPERM) {
		pr_warn("refused to write %s (cpu %d%s): %s\n", str_esc(e->path), e->cpu,
			e->is_msr ? ", an MSR record" : "", why);
		return fd;
	}
	if (fd < 0 && journal_cpu_gone(e, msr_root, sysfs_root, fd)) {
		pr_info("%s: cpu %d is offline or gone: counts as restored (the kernel resets it when the CPU returns)\n",
			str_esc(e->path), e->cpu);
		return 2;
	}
	if (fd < 0) {
		err = fd;
		goto fail;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		goto fail;
	}
	if (e->is_msr) {
		/* as the actuator: a stand-in's mode bits count */
		if (S_ISREG(st.st_mode) && !(st.st_mode & 0222))
			err = -EACCES;
		else
			err = act_put_back_msr(fd, S_ISREG(st.st_mode), e->msr, e->shift, e->orig);
	} else {
		err = put_back_fd(fd, &st, e->text, e->len);
	}
	close(fd);
	if (err >= 0)
		return err;
fail:
	if (e->is_msr)
		pr_warn("%s: cannot restore bits %u:%u of MSR %#x of cpu %d to %#x: %s\n",
			str_esc(e->path), e->shift + 7, e->shift, e->msr, e->cpu, e->orig,
			err == -EACCES ? "read-only" : err == -EIO ? "short write" : strerror(-err));
	else
		pr_warn("cannot restore %s (%u bytes): %s\n", str_esc(e->path), e->len,
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

int journal_restore(const char *dir, const char *msr_root, const char *sysfs_root,
		    struct journal_result *res)
{
	char path[PATH_MAX], msg[128], *buf = NULL;
	struct journal_entry *v = NULL;
	size_t len = 0, nr = 0, i;
	int err, bad = 0, first = 0, r;

	memset(res, 0, sizeof(*res));
	snprintf(path, sizeof(path), "%s/%s", dir, GOV_JOURNAL_FILE);
	err = load_journal(path, &buf, &len);
	if (err == -ENOENT)
		return err;
	if (err) {
		if (err != -EPERM && err != -EFBIG)
			pr_warn("cannot read the journal %s: %s\n", path, strerror(-err));
		return err;
	}
	err = journal_parse(buf, len, &v, &nr, &bad, &res->pid, msg, sizeof(msg));
	free(buf);
	if (err == -EINVAL && len == 0) {
		/* created, crashed before the header reached the disk: no
		 * knob was written after it */
		unlink(path);
		return 0;
	}
	if (err) {
		pr_warn("%s: %s\n", path, msg);
		return err;
	}
	res->records = nr;
	for (i = nr; i-- > 0;) {
		if (!v[i].written) {
			res->unwritten++;	/* saved, never written: not ours */
			continue;
		}
		r = journal_restore_entry(&v[i], msr_root, sysfs_root);
		if (r == -EPERM)
			res->refused++;
		else if (r < 0 && !first)
			first = r;
		else if (r == 0)
			res->restored++;
		else if (r == 1)
			res->in_place++;
		else if (r == 2)
			res->offline++;
	}
	free(v);
	if (first)
		return first;	/* keep the journal: a later restore retries */
	if (res->refused)
		pr_warn("%s: %d record(s) refused: they name no knob bpfgov writes beneath the roots restore was given (MSR %s, sysfs %s); nothing was written there\n",
			path, res->refused, msr_root, sysfs_root);
	if (bad)
		pr_warn("%s: %d corrupt record(s) cannot be restored (the other %d are back); their knobs may still be changed\n",
			path, bad, (int)nr - res->refused);
	if (bad || res->refused)
		return -EBADMSG;	/* kept where it is: until the user decides, it blocks start */
	if (unlink(path) && errno != ENOENT)
		return -errno;
	fsync_dir(dir);
	return 0;
}

int journal_discard(const char *dir)
{
	char path[PATH_MAX], to[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", dir, GOV_JOURNAL_FILE);
	snprintf(to, sizeof(to), "%s.discarded", path);
	if (rename(path, to)) {
		pr_warn("cannot move %s to %s: %s\n", path, to, strerror(errno));
		return -errno;
	}
	fsync_dir(dir);
	pr_warn("discarded: the journal is moved to %s and never read again; what it could not restore stays as it is now\n",
		to);
	return 0;
}

static const char restore_usage[] =
"Usage: govloader restore [--discard] [--pin-root DIR] [--msr-root DIR]\n"
"                         [--sysfs-root DIR]\n"
"Put back every register and file a dead 'govloader start' wrote (after a\n"
"crash or kill -9), from its journal in $BPFGOV_RUN_DIR or /run/bpfgov, then\n"
"remove the journal and stale pins. Refused while bpfgov runs ('stop'\n"
"restores). With no journal there is nothing to do: one line, exit 0.\n"
"Only knobs bpfgov writes, beneath the roots given here (defaults /dev/cpu\n"
"and /sys, whatever the journal says), are written: of HWP_REQUEST and\n"
"CPPC_REQ the min field alone, into the register's current value. A knob of\n"
"a CPU that is offline or gone counts as restored.\n"
"A journal that cannot be restored whole (a corrupt or refused record, a\n"
"knob that cannot be written) is kept and 'start' refuses to run until it is\n"
"resolved: fix the cause and run 'restore' again, or check the knobs it\n"
"names by hand and decide with --discard: restore what can be, then move\n"
"the journal to journal.discarded (never read again).\n"
"Exit: 0 restored, nothing to do or discarded, 1 error, 4 the journal needs\n"
"an operator (kept).\n";

void journal_result_say(const struct journal_result *r, const char *what)
{
	pr_info("restored %d of %d register(s)/file(s) %s pid %d (%d already in place, %d of CPUs offline or gone: counted as restored, %d saved but never written: left as they are)\n",
		r->restored, r->records, what, r->pid, r->in_place, r->offline, r->unwritten);
}

int do_restore(int argc, char **argv)
{
	struct cli_opts co = {};
	const char *pin_root, *dir = gov_run_dir();
	struct journal_result res;
	int fd = -1, err, ret = 1;
	pid_t owner;

	err = cli_parse("restore", restore_usage, argc, argv, "pin-root discard msr-root sysfs-root", &co);
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
		pr_warn("bpfgov is running (pid %d); %s restores everything\n", (int)owner,
			gov_lock_stop_hint());
		return 1;
	}
	if (err)
		return 1;
	err = journal_restore(dir, co.msr_root, co.sysfs_root, &res);
	if (err == -ENOENT) {
		pr_info("nothing to restore: no journal in %s\n", dir);
		ret = 0;
	} else if (err && co.discard) {
		if (journal_discard(dir))
			goto out;
		ret = 0;
	} else if (err) {
		pr_warn("restore incomplete; the journal %s/%s is kept and 'start' refuses to run until it is resolved: %s\n",
			dir, GOV_JOURNAL_FILE, err == -EBADMSG || err == -EINVAL ?
			"check the knobs it names, then 'govloader restore --discard'" :
			"fix the cause and run 'govloader restore' again (or '--discard')");
		ret = EXIT_JOURNAL;
		goto out;
	} else {
		journal_result_say(&res, "from the journal of");
		ret = 0;
	}
	/* The dead instance's other leftovers. */
	if (pins_present(pin_root)) {
		pr_info("removing stale pins under %s\n", pin_root);
		pins_remove(pin_root);
	}
	cfg_origins_remove(dir);
out:
	gov_lock_release(fd);
	return ret;
}
