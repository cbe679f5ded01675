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

/* Put one journaled original back through the actuator's own put-back. */
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
	char path[PATH_MAX], msg[128], *buf = NULL;
	char msr_root[PATH_MAX], sysfs_root[PATH_MAX];
	struct journal_entry *v = NULL;
	size_t len = 0, nr = 0, i;
	int err, bad = 0, refused = 0, first = 0, r;

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
	if (!err && journal_roots(buf, len, msr_root, sysfs_root, sizeof(msr_root))) {
		free(v);
		snprintf(msg, sizeof(msg), "bad roots in the header");
		err = -EINVAL;
	}
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
	*records = nr;
	for (i = nr; i-- > 0;) {
		if (!journal_entry_in_roots(&v[i], msr_root, sysfs_root)) {
			pr_warn("%s: refused to write %s: outside the roots the instance was started with (MSR %s, sysfs %s)\n",
				path, v[i].path, msr_root, sysfs_root);
			refused++;
			continue;
		}
		r = journal_restore_entry(&v[i]);
		if (r < 0 && !first)
			first = r;
		else if (r == 0)
			(*restored)++;
	}
	free(v);
	if (first)
		return first;	/* keep the journal: a later restore retries */
	if (refused && !bad)
		return -EBADMSG;	/* kept, as below; each said in its line */
	if (bad) {
		/* kept where it is: until the user decides, it blocks start */
		pr_warn("%s: %d corrupt record(s) cannot be restored (the other %d are back); their knobs may still be changed\n",
			path, bad, (int)nr - refused);
		return -EBADMSG;
	}
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
"Usage: govloader restore [--discard] [--pin-root DIR]\n"
"Put back every register and file a dead 'govloader start' changed (after a\n"
"crash or kill -9), from its journal in $BPFGOV_RUN_DIR or /run/bpfgov, then\n"
"remove the journal and stale pins. Refused while bpfgov runs ('stop'\n"
"restores). With no journal there is nothing to do: one line, exit 0.\n"
"A journal that cannot be restored whole (a corrupt record, a knob that\n"
"cannot be written) is kept and 'start' refuses to run until it is resolved:\n"
"fix the cause and run 'restore' again, or check the knobs it names by hand\n"
"and decide with --discard: restore what can be, then move the journal to\n"
"journal.discarded (never read again).\n"
"Exit: 0 restored, nothing to do or discarded, 1 error (journal kept).\n";

int do_restore(int argc, char **argv)
{
	struct cli_opts co = {};
	const char *pin_root, *dir = gov_run_dir();
	char path[PATH_MAX];
	int fd = -1, err, ret = 1, restored, records, pid;
	pid_t owner;

	err = cli_parse("restore", restore_usage, argc, argv, "pin-root discard", &co);
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
	err = journal_restore(dir, &restored, &records, &pid);
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
	snprintf(path, sizeof(path), "%s/%s", dir, GOV_STATUS_REQ);
	unlink(path);
	cfg_origins_remove(dir);
out:
	gov_lock_release(fd);
	return ret;
}
