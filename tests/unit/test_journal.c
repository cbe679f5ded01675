// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/journal.c: records written through the actuator's
 * save hook (the real actuator on stand-in files) read back exactly, torn
 * and corrupt lines, first-record-wins, restore of MSR stand-ins and sysfs
 * files byte for byte, a failed restore keeping the journal, and the run
 * directory checks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "actuate.h"
#include "bpfgov_tunables.h"
#include "journal.h"
#include "log.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"	/* cmocka's void **state */

#define HWP_REQ		0x774
#define REQ_VAL		0x0000002a80002808ULL	/* min 8, max 40, EPP 0x80, window 0x2a */

static char root[64], run[128], msr0[256], qos0[256], odd[256];
static char jpath[256], msr_dir[128];
static int saved_stderr = -1;

static void put_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static size_t get_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size);
	close(fd);
	assert_true(n >= 0);
	return n;
}

static void msr_put(const char *path, __u32 msr, __u64 v)
{
	int fd = open(path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(msr_write(fd, true, msr, v), 0);
	close(fd);
}

static __u64 msr_get(const char *path, __u32 msr)
{
	int fd = open(path, O_RDONLY);
	__u64 v = 0;

	assert_true(fd >= 0);
	assert_int_equal(msr_read(fd, true, msr, &v), 0);
	close(fd);
	return v;
}

static int setup(void **state)
{
	char cmd[1024];
	int fd;

	snprintf(root, sizeof(root), "/tmp/bpfgov-jnl-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(run, sizeof(run), "%s/run", root);
	snprintf(msr0, sizeof(msr0), "%s/msr/0/msr", root);
	snprintf(qos0, sizeof(qos0), "%s/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us",
		 root);
	snprintf(odd, sizeof(odd), "%s/a dir%%with 100%% odd\tname", root);
	snprintf(jpath, sizeof(jpath), "%s/%s", run, GOV_JOURNAL_FILE);
	snprintf(msr_dir, sizeof(msr_dir), "%s/msr", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/msr/0 %s/sys/devices/system/cpu/cpu0/power && "
		 "truncate -s %d %s", root, root, 8 * 0x775, msr0);
	if (system(cmd))
		return -1;
	if (run_dir_secure(run))
		return -1;
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s'; rm -rf '%s'", root, root);
	return system(cmd) == 0 ? 0 : -1;
}

/* Append records through the hook as the actuator would. */
static void hook_msr(struct journal *j, const char *path, __u32 msr, __u64 v)
{
	struct act_saved s = { .cpu = 0, .is_msr = true, .path = path, .msr = msr, .msr_val = v };

	assert_int_equal(journal_hook(j, &s), 0);
}

static void hook_file(struct journal *j, const char *path, const char *text, __u32 len)
{
	struct act_saved s = { .cpu = 0, .path = path, .text = text, .len = len };

	assert_int_equal(journal_hook(j, &s), 0);
}

static char *slurp(const char *path, size_t *len)
{
	static char buf[65536];

	*len = get_file(path, buf, sizeof(buf));
	return buf;
}

static void test_roundtrip(void **state)
{
	struct journal_entry *v;
	struct journal *j;
	struct stat st;
	size_t n, len;
	int bad, pid;
	char *buf;

	unlink(jpath);
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	assert_false(journal_exists(run));		/* created at the first record */
	hook_msr(j, msr0, HWP_REQ, REQ_VAL);
	hook_file(j, qos0, "0\n", 2);
	hook_file(j, odd, "", 0);			/* empty original, odd path */
	hook_file(j, qos0, "n/a\n", 4);			/* second record: ignored */
	assert_int_equal(journal_records(j), 4);
	assert_true(journal_exists(run));
	/* held: appended now, flushed together */
	journal_hold(j);
	hook_file(j, qos0, "1\n", 2);
	hook_file(j, qos0, "2\n", 2);
	assert_int_equal(journal_records(j), 6);
	assert_int_equal(journal_flush(j), 0);
	assert_int_equal(journal_flush(j), 0);		/* nothing held: nothing to do */
	assert_int_equal(stat(jpath, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	buf = slurp(jpath, &len);
	assert_true(strstr(buf, "msr cpu=0 reg=0x774 val=0x0000002a80002808 path=") != NULL);
	assert_true(strstr(buf, "file cpu=0 len=2 text=300a path=") != NULL);
	assert_true(strstr(buf, "%25with%20100%25%20odd%09name crc=") != NULL);
	assert_int_equal(journal_parse(buf, len, &v, &n, &bad, &pid, NULL, 0), 0);
	assert_int_equal(n, 3);				/* first record per knob */
	assert_int_equal(bad, 0);
	assert_int_equal(pid, getpid());
	assert_true(v[0].is_msr);
	assert_string_equal(v[0].path, msr0);
	assert_int_equal(v[0].msr, HWP_REQ);
	assert_true(v[0].msr_val == REQ_VAL);
	assert_false(v[1].is_msr);
	assert_string_equal(v[1].path, qos0);
	assert_int_equal(v[1].len, 2);
	assert_memory_equal(v[1].text, "0\n", 2);	/* first record wins */
	assert_string_equal(v[2].path, odd);
	assert_int_equal(v[2].len, 0);
	free(v);
	journal_free(j);
	assert_true(journal_exists(run));		/* free keeps the file */
	unlink(jpath);
}

static void test_torn_and_corrupt(void **state)
{
	struct journal_entry *v;
	struct journal *j;
	char buf[8192], msg[128];
	size_t n, len;
	int bad, pid;

	unlink(jpath);
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	hook_msr(j, msr0, HWP_REQ, REQ_VAL);
	hook_file(j, qos0, "0\n", 2);
	journal_free(j);
	len = get_file(jpath, buf, sizeof(buf));
	/* torn last line: ignored, not counted */
	memcpy(buf + len, "file cpu=1 len=2 te", 19);
	assert_int_equal(journal_parse(buf, len + 19, &v, &n, &bad, &pid, msg, sizeof(msg)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(bad, 0);
	free(v);
	/* a flipped bit in a record: counted bad, the others kept */
	{
		char *p = strstr(buf, "val=0x");

		p[8] ^= 1;
		assert_int_equal(journal_parse(buf, len, &v, &n, &bad, &pid, msg, sizeof(msg)), 0);
		assert_int_equal(n, 1);
		assert_int_equal(bad, 1);
		free(v);
		p[8] ^= 1;
	}
	/* not a journal */
	assert_int_equal(journal_parse("hello\n", 6, &v, &n, &bad, &pid, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "not a bpfgov journal (bad header)");
	assert_int_equal(journal_parse("", 0, &v, &n, &bad, &pid, msg, sizeof(msg)), -EINVAL);
	/* a record with a good crc but a relative path is refused */
	unlink(jpath);
}

static void test_restore(void **state)
{
	struct journal *j;
	char buf[64];
	int restored, records, pid;

	unlink(jpath);
	msr_put(msr0, HWP_REQ, REQ_VAL);
	put_file(qos0, "0\n", 2);
	put_file(odd, "", 0);
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	hook_msr(j, msr0, HWP_REQ, REQ_VAL);
	hook_file(j, qos0, "0\n", 2);
	hook_file(j, odd, "", 0);
	journal_free(j);				/* "crash" */
	msr_put(msr0, HWP_REQ, (REQ_VAL & ~0xffULL) | 0x20);
	put_file(qos0, "n/a\n", 4);
	assert_int_equal(journal_restore(run, &restored, &records, &pid), 0);
	assert_int_equal(records, 3);
	assert_int_equal(restored, 2);			/* odd was already in place */
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0\n", 2);
	assert_false(journal_exists(run));		/* removed */
	assert_int_equal(journal_restore(run, &restored, &records, &pid), -ENOENT);

	/* a read-only knob: restore fails, the journal stays for a retry */
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	hook_file(j, qos0, "0\n", 2);
	journal_free(j);
	put_file(qos0, "7\n", 2);
	chmod(qos0, 0444);
	assert_int_equal(journal_restore(run, &restored, &records, &pid), -EACCES);
	assert_true(journal_exists(run));
	chmod(qos0, 0644);
	assert_int_equal(journal_restore(run, &restored, &records, &pid), 0);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0\n", 2);
	assert_false(journal_exists(run));

	/* a corrupt record: the rest restored, the journal kept where it is
	 * (every retry says the same) until journal_discard() moves it */
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	hook_file(j, qos0, "0\n", 2);
	hook_msr(j, msr0, HWP_REQ, REQ_VAL);
	journal_free(j);
	{
		char jb[8192], moved[PATH_MAX + 16];
		size_t jl = get_file(jpath, jb, sizeof(jb));
		char *p = strstr(jb, "val=0x");

		p[8] ^= 1;
		put_file(jpath, jb, jl);
		put_file(qos0, "7\n", 2);
		assert_int_equal(journal_restore(run, &restored, &records, &pid), -EBADMSG);
		assert_int_equal(records, 1);
		assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
		assert_memory_equal(buf, "0\n", 2);	/* the valid one is back */
		assert_true(journal_exists(run));
		assert_int_equal(journal_restore(run, &restored, &records, &pid), -EBADMSG);
		assert_true(journal_exists(run));
		assert_int_equal(journal_discard(run), 0);
		assert_false(journal_exists(run));
		snprintf(moved, sizeof(moved), "%s.discarded", jpath);
		assert_int_equal(get_file(moved, buf, sizeof(buf)) > 0, 1);
		unlink(moved);
	}

	/* journal_finish after a clean stop removes it */
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	hook_file(j, qos0, "0\n", 2);
	assert_int_equal(journal_finish(j), 0);
	journal_free(j);
	assert_false(journal_exists(run));
}

/* The real actuator with the journal as its save hook: what it saved is
 * what the journal restores after a "crash". */
static void test_with_actuator(void **state)
{
	struct act_opts o = { .backend = ACT_INTEL_HWP, .floor = true, .idle = true, .nr_cpus = 1 };
	struct bpfgov_config c;
	struct actuator *a;
	struct journal *j;
	char msr_root[PATH_MAX], sys_root[PATH_MAX], buf[64];
	int restored, records, pid;

	snprintf(msr_root, sizeof(msr_root), "%s/msr", root);
	snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
	o.msr_root = msr_root;
	o.sysfs_root = sys_root;
	msr_put(msr0, 0x770, 1);
	msr_put(msr0, 0x771, 0x080c1e28ULL);
	msr_put(msr0, HWP_REQ, REQ_VAL);
	put_file(qos0, "0\n", 2);
	bpfgov_config_defaults(&c);
	unlink(jpath);
	assert_int_equal(journal_init(&j, run, msr_dir, root), 0);
	assert_int_equal(act_open(&a, &o), 0);
	act_set_save_hook(a, journal_hook, j);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);	/* poll: "n/a" */
	assert_true(msr_get(msr0, HWP_REQ) != REQ_VAL);
	assert_int_equal(journal_records(j), 2);
	/* crash: nothing restored by the actuator */
	journal_free(j);
	act_set_save_hook(a, NULL, NULL);
	assert_int_equal(journal_restore(run, &restored, &records, &pid), 0);
	assert_int_equal(restored, 2);
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0\n", 2);
	act_close(a);				/* finds everything in place */
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
}

static void test_run_dir(void **state)
{
	char p[PATH_MAX], l[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/deep/er/run", root);
	assert_int_equal(run_dir_secure(p), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	chmod(p, 0755);
	assert_int_equal(run_dir_secure(p), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(l, sizeof(l), "%s/link", root);
	assert_int_equal(symlink(p, l), 0);
	assert_int_equal(run_dir_secure(l), -EPERM);
	assert_int_equal(run_dir_secure("relative"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_torn_and_corrupt),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_with_actuator),
		cmocka_unit_test(test_run_dir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
