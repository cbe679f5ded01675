// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/act/journal.c: records written through the actuator's
 * save hook (the real actuator on stand-in files) read back exactly, torn
 * and corrupt lines, first-record-wins, restore of a shared register's
 * field alone and of sysfs files byte for byte, written knobs only, CPUs
 * gone, a bounded journal over 10,000 profile switches, a failed restore
 * keeping the journal, and the run directory checks. The crafted-journal
 * corpus is tests/integration/test_journal_trust.sh.
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
#define CPPC_REQ	0xc00102b3
#define REQ_VAL		0x0000002a80002808ULL	/* min 8, max 40, EPP 0x80, window 0x2a */
#define CPPC_VAL	0x0000000080141414ULL	/* max 20 (7:0), min 20 (15:8), desired 20, EPP 0x80 */

static char root[64], run[128], msr0[256], msr1[256], qos0[256], qos1[256], epp0[256];
static char jpath[256], msr_dir[128], sys_dir[128];
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
	char cmd[2048];
	int fd;

	snprintf(root, sizeof(root), "/tmp/bpfgov-jnl-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(run, sizeof(run), "%s/run", root);
	snprintf(msr_dir, sizeof(msr_dir), "%s/msr", root);
	snprintf(sys_dir, sizeof(sys_dir), "%s/sys", root);
	snprintf(msr0, sizeof(msr0), "%s/0/msr", msr_dir);
	snprintf(msr1, sizeof(msr1), "%s/1/msr", msr_dir);
	snprintf(qos0, sizeof(qos0), "%s/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us",
		 sys_dir);
	snprintf(qos1, sizeof(qos1), "%s/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us",
		 sys_dir);
	snprintf(epp0, sizeof(epp0), "%s/devices/system/cpu/cpu0/cpufreq/energy_performance_preference",
		 sys_dir);
	snprintf(jpath, sizeof(jpath), "%s/%s", run, GOV_JOURNAL_FILE);
	snprintf(cmd, sizeof(cmd), "set -e; d=%s/devices/system/cpu; "
		 "mkdir -p %s/0 %s/1 $d/cpu0/power $d/cpu1/power $d/cpufreq/policy0; "
		 "ln -s ../cpufreq/policy0 $d/cpu0/cpufreq; "
		 "echo 1 >$d/cpu0/online; echo 1 >$d/cpu1/online; "
		 "echo 'default performance balance_performance balance_power power' "
		 ">$d/cpufreq/policy0/energy_performance_available_preferences; "
		 "echo powersave >$d/cpufreq/policy0/scaling_governor; "
		 "truncate -s %d %s %s",
		 sys_dir, msr_dir, msr_dir, 8 * 0x775, msr0, msr1);
	if (system(cmd))
		return -1;
	if (run_dir_secure(run))
		return -1;
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(getenv("TEST_VERBOSE") ? "/dev/stderr" : "/dev/null", O_WRONLY);
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
static void hook_msr(struct journal *j, const char *path, int cpu, __u32 msr, __u64 v,
		     bool writing)
{
	struct act_saved s = { .cpu = cpu, .is_msr = true, .path = path, .msr = msr,
			       .shift = msr == CPPC_REQ ? 8 : 0, .msr_val = v,
			       .writing = writing };

	assert_int_equal(journal_hook(j, &s), 0);
}

static void hook_file(struct journal *j, const char *path, const char *text, __u32 len,
		      bool writing)
{
	struct act_saved s = { .cpu = 0, .path = path, .text = text, .len = len,
			       .writing = writing };

	assert_int_equal(journal_hook(j, &s), 0);
}

static char *slurp(const char *path, size_t *len)
{
	static char buf[1 << 17];

	*len = get_file(path, buf, sizeof(buf));
	return buf;
}

static int restore(struct journal_result *r)
{
	return journal_restore(run, msr_dir, sys_dir, r);
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
	assert_int_equal(journal_init(&j, run), 0);
	assert_false(journal_exists(run));		/* created at the first record */
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);
	hook_file(j, qos0, "0\n", 2, false);		/* saved ahead */
	hook_file(j, epp0, "", 0, true);		/* empty original */
	hook_file(j, qos0, "n/a\n", 4, false);		/* known: nothing appended */
	assert_int_equal(journal_records(j), 3);
	hook_file(j, qos0, "n/a\n", 4, true);		/* its first write: the mark */
	hook_file(j, qos0, "n/a\n", 4, true);		/* marked: nothing */
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL | 0x20, true);
	assert_int_equal(journal_records(j), 4);
	assert_true(journal_exists(run));
	/* held: appended now, flushed together */
	journal_hold(j);
	hook_msr(j, msr1, 1, CPPC_REQ, CPPC_VAL, false);
	assert_int_equal(journal_records(j), 5);
	assert_int_equal(journal_flush(j), 0);
	assert_int_equal(journal_flush(j), 0);		/* nothing held: nothing to do */
	assert_int_equal(stat(jpath, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	buf = slurp(jpath, &len);
	buf[len] = '\0';
	assert_non_null(strstr(buf, "bpfgov-journal 2 pid="));
	assert_null(strstr(buf, "root="));		/* the file names no roots */
	assert_non_null(strstr(buf, "msr cpu=0 reg=0x774 bits=7:0 orig=0x08 written=yes path="));
	assert_non_null(strstr(buf, "msr cpu=1 reg=0xc00102b3 bits=15:8 orig=0x14 written=no path="));
	assert_non_null(strstr(buf, "file cpu=0 len=2 text=300a written=no path="));
	assert_non_null(strstr(buf, "wrote cpu=0 reg=- path="));
	assert_int_equal(journal_parse(buf, len, &v, &n, &bad, &pid, NULL, 0), 0);
	assert_int_equal(n, 4);				/* one per knob */
	assert_int_equal(bad, 0);
	assert_int_equal(pid, getpid());
	assert_true(v[0].is_msr && v[0].written);
	assert_string_equal(v[0].path, msr0);
	assert_int_equal(v[0].msr, HWP_REQ);
	assert_int_equal(v[0].shift, 0);
	assert_int_equal(v[0].orig, 8);
	assert_false(v[1].is_msr);
	assert_string_equal(v[1].path, qos0);
	assert_int_equal(v[1].len, 2);
	assert_memory_equal(v[1].text, "0\n", 2);	/* first record wins */
	assert_true(v[1].written);			/* by its mark */
	assert_string_equal(v[2].path, epp0);
	assert_int_equal(v[2].len, 0);
	assert_int_equal(v[3].shift, 8);
	assert_int_equal(v[3].orig, 0x14);
	assert_false(v[3].written);
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
	assert_int_equal(journal_init(&j, run), 0);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);
	hook_file(j, qos0, "0\n", 2, true);
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
		char *p = strstr(buf, "orig=0x");

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
	unlink(jpath);
}

static void test_restore(void **state)
{
	struct journal_result r;
	struct journal *j;
	char buf[64];

	unlink(jpath);
	msr_put(msr0, HWP_REQ, REQ_VAL);
	put_file(qos0, "0\n", 2);
	put_file(epp0, "", 0);
	assert_int_equal(journal_init(&j, run), 0);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);
	hook_file(j, qos0, "0\n", 2, true);
	hook_file(j, epp0, "", 0, true);
	journal_free(j);				/* "crash" */
	msr_put(msr0, HWP_REQ, (REQ_VAL & ~0xffULL) | 0x20);
	put_file(qos0, "n/a\n", 4);
	assert_int_equal(restore(&r), 0);
	assert_int_equal(r.records, 3);
	assert_int_equal(r.restored, 2);
	assert_int_equal(r.in_place, 1);		/* epp was already in place */
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0\n", 2);
	assert_false(journal_exists(run));		/* removed */
	assert_int_equal(restore(&r), -ENOENT);

	/* a read-only knob: restore fails, the journal stays for a retry */
	assert_int_equal(journal_init(&j, run), 0);
	hook_file(j, qos0, "0\n", 2, true);
	journal_free(j);
	put_file(qos0, "7\n", 2);
	chmod(qos0, 0444);
	assert_int_equal(restore(&r), -EACCES);
	assert_true(journal_exists(run));
	chmod(qos0, 0644);
	assert_int_equal(restore(&r), 0);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0\n", 2);
	assert_false(journal_exists(run));

	/* a corrupt record: the rest restored, the journal kept where it is
	 * (every retry says the same) until journal_discard() moves it */
	assert_int_equal(journal_init(&j, run), 0);
	hook_file(j, qos0, "0\n", 2, true);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);
	journal_free(j);
	{
		char jb[8192], moved[PATH_MAX + 16];
		size_t jl = get_file(jpath, jb, sizeof(jb));
		char *p = strstr(jb, "orig=0x");

		p[8] ^= 1;
		put_file(jpath, jb, jl);
		put_file(qos0, "7\n", 2);
		assert_int_equal(restore(&r), -EBADMSG);
		assert_int_equal(r.records, 1);
		assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
		assert_memory_equal(buf, "0\n", 2);	/* the valid one is back */
		assert_true(journal_exists(run));
		assert_int_equal(restore(&r), -EBADMSG);
		assert_true(journal_exists(run));
		assert_int_equal(journal_discard(run), 0);
		assert_false(journal_exists(run));
		snprintf(moved, sizeof(moved), "%s.discarded", jpath);
		assert_int_equal(get_file(moved, buf, sizeof(buf)) > 0, 1);
		unlink(moved);
	}

	/* journal_finish after a clean stop removes it */
	assert_int_equal(journal_init(&j, run), 0);
	hook_file(j, qos0, "0\n", 2, true);
	assert_int_equal(journal_finish(j), 0);
	journal_free(j);
	assert_false(journal_exists(run));
}

static struct actuator *hwp_actuator(int nr_cpus, bool idle)
{
	struct act_opts o = { .backend = ACT_INTEL_HWP, .floor = true, .idle = idle,
			      .nr_cpus = nr_cpus, .msr_root = msr_dir, .sysfs_root = sys_dir };
	struct actuator *a;
	int c;

	for (c = 0; c < nr_cpus; c++) {
		const char *m = c ? msr1 : msr0;

		msr_put(m, 0x770, 1);
		msr_put(m, 0x771, 0x080c1e28ULL);
		msr_put(m, HWP_REQ, REQ_VAL);
	}
	assert_int_equal(act_open(&a, &o), 0);
	return a;
}

/* The real actuator with the journal as its save hook: what it saved is
 * what the journal restores after a "crash". */
static void test_with_actuator(void **state)
{
	struct bpfgov_config c;
	struct journal_result r;
	struct actuator *a;
	struct journal *j;
	char buf[64];

	put_file(qos0, "0\n", 2);
	bpfgov_config_defaults(&c);
	unlink(jpath);
	assert_int_equal(journal_init(&j, run), 0);
	a = hwp_actuator(1, true);
	act_set_save_hook(a, journal_hook, j);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);	/* poll: "n/a" */
	assert_true(msr_get(msr0, HWP_REQ) != REQ_VAL);
	assert_int_equal(journal_records(j), 2);
	/* crash: nothing restored by the actuator */
	journal_free(j);
	act_set_save_hook(a, NULL, NULL);
	assert_int_equal(restore(&r), 0);
	assert_int_equal(r.restored, 2);
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "0\n", 2);
	act_close(a);				/* finds everything in place */
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
}

/* A driver rewrites the shared register's other fields while bpfgov runs
 * (max, desired, EPP, window, as intel_pstate does on a policy or profile
 * change): at stop and at crash restore, min is the original and every
 * other field the driver's latest. 20 trials each, random fields. */
static void test_shared_field(void **state)
{
	struct journal_result r;
	struct actuator *a;
	struct journal *j;
	int t, crash, good[2] = { 0, 0 };

	srandom(38);
	for (crash = 0; crash < 2; crash++) {
		for (t = 0; t < 20; t++) {
			__u64 drv, now;
			int k;

			unlink(jpath);
			assert_int_equal(journal_init(&j, run), 0);
			a = hwp_actuator(1, false);
			act_set_save_hook(a, journal_hook, j);
			for (k = 0; k < 4; k++) {
				assert_int_equal(act_set_floor(a, 0, 256 + random() % 768), 0);
				/* the driver: new max >= 30, desired, EPP, window; min kept */
				now = msr_get(msr0, HWP_REQ);
				drv = (now & 0xff) | (__u64)(30 + random() % 10) << 8 |
				      (__u64)(random() & 0xff) << 16 | (__u64)(random() & 0xff) << 24 |
				      (__u64)(random() & 0x3ff) << 32;
				msr_put(msr0, HWP_REQ, drv);
			}
			assert_true((msr_get(msr0, HWP_REQ) & 0xff) != (REQ_VAL & 0xff));
			if (crash) {
				journal_free(j);		/* kill -9 */
				act_set_save_hook(a, NULL, NULL);
				/* the driver writes once more after the crash */
				drv = (drv & ~0xff00ULL) | (__u64)(30 + random() % 10) << 8;
				msr_put(msr0, HWP_REQ, drv);
				assert_int_equal(restore(&r), 0);
				assert_int_equal(r.restored, 1);
				act_close(a);
			} else {
				act_close(a);			/* stop: the actuator restores */
				assert_int_equal(journal_finish(j), 0);
				journal_free(j);
			}
			now = msr_get(msr0, HWP_REQ);
			good[crash] += (now & 0xff) == (REQ_VAL & 0xff) &&
				       (now & ~0xffULL) == (drv & ~0xffULL);
		}
	}
	print_message("shared register: min original, driver's fields latest: stop %d/20, kill -9 + restore %d/20\n",
		      good[0], good[1]);
	assert_int_equal(good[0], 20);
	assert_int_equal(good[1], 20);

	/* CPPC_REQ: min is bits 15:8, max 7:0 */
	unlink(jpath);
	msr_put(msr1, CPPC_REQ, CPPC_VAL);
	assert_int_equal(journal_init(&j, run), 0);
	hook_msr(j, msr1, 1, CPPC_REQ, CPPC_VAL, true);
	journal_free(j);
	msr_put(msr1, CPPC_REQ, 0x00000000c032c8c8ULL);	/* min 200, max 200, EPP, desired */
	assert_int_equal(restore(&r), 0);
	assert_true(msr_get(msr1, CPPC_REQ) == 0x00000000c03214c8ULL);
}

/* Saved ahead, never written: a crash restore leaves it as another tool
 * set it; a written one comes back. */
static void test_written_only(void **state)
{
	struct journal_result r;
	struct journal *j;
	char buf[64];

	unlink(jpath);
	put_file(qos0, "0\n", 2);
	msr_put(msr0, HWP_REQ, REQ_VAL);
	assert_int_equal(journal_init(&j, run), 0);
	journal_hold(j);
	hook_file(j, qos0, "0\n", 2, false);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, false);
	assert_int_equal(journal_flush(j), 0);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);	/* the floor is written */
	journal_free(j);
	put_file(qos0, "20\n", 3);			/* another tool, not bpfgov */
	msr_put(msr0, HWP_REQ, REQ_VAL | 0x30);
	assert_int_equal(restore(&r), 0);
	assert_int_equal(r.unwritten, 1);
	assert_int_equal(r.restored, 1);
	assert_int_equal(get_file(qos0, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "20\n", 3);		/* left as the tool set it */
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
}

/* A CPU unplugged (its msr device and its sysfs directory gone) or offline
 * (online = 0): its knobs count as restored, the journal is removed. */
static void test_cpu_gone(void **state)
{
	struct journal_result r;
	struct journal *j;
	char cmd[512], on1[300];

	unlink(jpath);
	assert_int_equal(journal_init(&j, run), 0);
	hook_msr(j, msr1, 1, HWP_REQ, REQ_VAL, true);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);
	{
		struct act_saved s = { .cpu = 1, .path = qos1, .text = "0\n", .len = 2,
				       .writing = true };

		assert_int_equal(journal_hook(j, &s), 0);
	}
	journal_free(j);
	msr_put(msr0, HWP_REQ, REQ_VAL | 0x30);
	/* cpu1: msr device gone, sysfs says offline */
	snprintf(cmd, sizeof(cmd), "mv %s/1 %s/1.away", msr_dir, msr_dir);
	assert_int_equal(system(cmd), 0);
	snprintf(on1, sizeof(on1), "%s/devices/system/cpu/cpu1/online", sys_dir);
	put_file(on1, "0\n", 2);
	unlink(qos1);					/* gone with the CPU */
	assert_int_equal(restore(&r), 0);
	assert_int_equal(r.offline, 2);
	assert_int_equal(r.restored, 1);
	assert_false(journal_exists(run));
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
	/* a knob missing on an online CPU is a failure, not "gone" */
	assert_int_equal(journal_init(&j, run), 0);
	hook_file(j, qos0, "0\n", 2, true);
	journal_free(j);
	unlink(qos0);
	assert_int_equal(restore(&r), -ENOENT);
	assert_true(journal_exists(run));
	put_file(qos0, "0\n", 2);
	assert_int_equal(restore(&r), 0);
	snprintf(cmd, sizeof(cmd), "mv %s/1.away %s/1", msr_dir, msr_dir);
	assert_int_equal(system(cmd), 0);
	put_file(on1, "1\n", 2);
	/* no MSR root at all (the msr module not loaded): a failure, kept */
	assert_int_equal(journal_init(&j, run), 0);
	hook_msr(j, msr0, 0, HWP_REQ, REQ_VAL, true);
	journal_free(j);
	snprintf(cmd, sizeof(cmd), "mv %s %s.away", msr_dir, msr_dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(restore(&r), -ENOENT);
	assert_int_equal(r.offline, 0);
	assert_true(journal_exists(run));
	snprintf(cmd, sizeof(cmd), "mv %s.away %s", msr_dir, msr_dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(restore(&r), 0);
}

/* 10,000 profile switches (EPP set, then put back, as power-profiles-daemon
 * toggles), then a crash: the journal stays under 64 KiB and restores. */
static void test_bounded(void **state)
{
	struct journal_result r;
	struct actuator *a;
	struct journal *j;
	struct stat st;
	char buf[64];
	int i;

	unlink(jpath);
	put_file(epp0, "balance_performance\n", 20);
	assert_int_equal(journal_init(&j, run), 0);
	a = hwp_actuator(2, false);
	act_set_save_hook(a, journal_hook, j);
	assert_int_equal(act_set_floor(a, 0, 900), 0);
	for (i = 0; i < 10000; i++) {
		assert_int_equal(act_set_epp(a, i & 1 ? "performance" : "balance_power"), 1);
		assert_int_equal(act_set_epp(a, NULL), 0);
	}
	assert_int_equal(act_set_epp(a, "power"), 1);
	assert_int_equal(stat(jpath, &st), 0);
	print_message("journal after 10,000 profile switches: %lld bytes, %d records\n",
		      (long long)st.st_size, journal_records(j));
	assert_true(st.st_size < 64 * 1024);
	journal_free(j);				/* kill -9 */
	act_set_save_hook(a, NULL, NULL);
	assert_int_equal(restore(&r), 0);
	assert_int_equal(r.restored, 2);
	assert_int_equal(get_file(epp0, buf, sizeof(buf)), 20);
	assert_memory_equal(buf, "balance_performance\n", 20);
	assert_true(msr_get(msr0, HWP_REQ) == REQ_VAL);
	act_close(a);
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
		cmocka_unit_test(test_shared_field),
		cmocka_unit_test(test_written_only),
		cmocka_unit_test(test_cpu_gone),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_run_dir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
