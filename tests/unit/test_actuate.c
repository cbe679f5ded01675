// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/act/actuate.c. Everything goes through stand-in files in a
 * mkdtemp directory: an msr stand-in (MSR X at byte offset 8*X) and a fake
 * sysfs tree, i.e. the same code path as on hardware, with no mock layer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
#include "log.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"	/* cmocka's void **state */

#define PM_ENABLE	0x770
#define HWP_CAPS	0x771
#define HWP_REQ_PKG	0x772
#define HWP_REQ		0x774
#define CPPC_CAP1	0xc00102b0
#define CPPC_ENABLE	0xc00102b1
#define CPPC_REQ	0xc00102b3

/* HWP: highest 40, guaranteed 30, most efficient 12, lowest 8 */
#define HWP_CAPS_VAL	0x080c1e28ULL
/* HWP_REQUEST: min 8, max 40, desired 0x20, EPP 0x80, window 0x155, pkg */
#define HWP_REQ_VAL	(0x08ULL | 40ULL << 8 | 0x20ULL << 16 | 0x80ULL << 24 | \
			 0x155ULL << 32 | 1ULL << 42)
/* CPPC_CAP1: lowest 10, lowest nonlinear 30, nominal 150, highest 200 */
#define CPPC_CAP_VAL	(10ULL | 30ULL << 8 | 150ULL << 16 | 200ULL << 24)
/* CPPC_REQ: max 200, min 10, desired 0, EPP 0x80, high bits set */
#define CPPC_REQ_VAL	(200ULL | 10ULL << 8 | 0x80ULL << 24 | 0xabcdULL << 40)

struct env {
	char root[64];
	char msr[PATH_MAX];
	char sys[PATH_MAX];
	char log[PATH_MAX];
	int saved_stderr;
};

/* ---------------------------------------------------------------- helpers */

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

static void pathf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pathf(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
}

/* Write @text to @path, creating parent directories. */
static void put(const char *path, const char *text)
{
	char dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdir_p(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Whole small file as a string (static buffer). */
static const char *get(const char *path)
{
	static char buf[4][256];
	static int i;
	char *b = buf[i++ & 3];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, b, 255);
	close(fd);
	assert_true(n >= 0);
	b[n] = '\0';
	return b;
}

static void sys_put(struct env *e, const char *rel, const char *text)
{
	char p[PATH_MAX];

	pathf(p, "%s/devices/system/cpu/%s", e->sys, rel);
	put(p, text);
}

static const char *sys_get(struct env *e, const char *rel)
{
	char p[PATH_MAX];

	pathf(p, "%s/devices/system/cpu/%s", e->sys, rel);
	return get(p);
}

static void sys_chmod(struct env *e, const char *rel, mode_t m)
{
	char p[PATH_MAX];

	pathf(p, "%s/devices/system/cpu/%s", e->sys, rel);
	assert_int_equal(chmod(p, m), 0);
}

static void msr_path(struct env *e, int cpu, char *out)
{
	pathf(out, "%s/%d/msr", e->msr, cpu);
}

static void msr_set(struct env *e, int cpu, __u32 msr, __u64 v)
{
	char p[PATH_MAX], d[PATH_MAX];
	int fd;

	pathf(d, "%s/%d", e->msr, cpu);
	mkdir_p(d);
	msr_path(e, cpu, p);
	fd = open(p, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(msr_write(fd, true, msr, v), 0);
	close(fd);
}

static __u64 msr_get(struct env *e, int cpu, __u32 msr)
{
	char p[PATH_MAX];
	__u64 v = 0;
	int fd;

	msr_path(e, cpu, p);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(msr_read(fd, true, msr, &v), 0);
	close(fd);
	return v;
}

/* An Intel stand-in: every slot up to 0x780 filled with a pattern, then
 * PM_ENABLE, HWP_CAPABILITIES and HWP_REQUEST seeded. */
static void seed_intel(struct env *e, int cpu)
{
	for (__u32 m = 0x760; m < 0x780; m++)
		msr_set(e, cpu, m, 0x0101010101010101ULL * ((m * 37 + cpu) & 0xff));
	msr_set(e, cpu, PM_ENABLE, 1);
	msr_set(e, cpu, HWP_CAPS, HWP_CAPS_VAL);
	msr_set(e, cpu, HWP_REQ, HWP_REQ_VAL);
}

static void seed_amd(struct env *e, int cpu)
{
	for (__u32 m = CPPC_CAP1 - 2; m < CPPC_REQ + 3; m++)
		msr_set(e, cpu, m, 0x1111111111111111ULL * ((m + cpu) & 0xf));
	msr_set(e, cpu, CPPC_ENABLE, 1);
	msr_set(e, cpu, CPPC_CAP1, CPPC_CAP_VAL);
	msr_set(e, cpu, CPPC_REQ, CPPC_REQ_VAL);
}

/* Bytes of a file range, for byte-exact comparisons. */
static unsigned char *snap(const char *path, off_t off, size_t len)
{
	unsigned char *b = calloc(1, len);
	int fd = open(path, O_RDONLY);

	assert_non_null(b);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, len, off), (ssize_t)len);
	close(fd);
	return b;
}

#define INTEL_LEN	(8 * 0x780)

static unsigned char *snap_intel(struct env *e, int cpu)
{
	char p[PATH_MAX];

	msr_path(e, cpu, p);
	return snap(p, 0, INTEL_LEN);
}

static const char *log_text(struct env *e)
{
	static char buf[8192];
	int fd = open(e->log, O_RDONLY);
	ssize_t n;

	fflush(stderr);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void log_clear(struct env *e)
{
	fflush(stderr);
	assert_int_equal(ftruncate(2, 0), 0);
	lseek(2, 0, SEEK_SET);
}

static struct act_opts opts(struct env *e, enum act_backend b)
{
	struct act_opts o = {
		.msr_root = e->msr, .sysfs_root = e->sys, .backend = b,
		.floor = true, .idle = true, .nr_cpus = 2,
	};
	return o;
}

static struct bpfgov_config cfg3(void)
{
	/* POLL, C1 (2 us), C2 (100 us) */
	struct bpfgov_config c = {
		.nr_states = 3,
		.state_exit_latency_us = { 0, 2, 100 },
		.state_residency_us = { 0, 2, 400 },
		.state_is_poll = { 1, 0, 0 },
	};
	return c;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	int fd;

	if (!e)
		return -1;
	snprintf(e->root, sizeof(e->root), "/tmp/bpfgov-act-XXXXXX");
	if (!mkdtemp(e->root))
		return -1;
	pathf(e->msr, "%s/msr", e->root);
	pathf(e->sys, "%s/sys", e->root);
	pathf(e->log, "%s/log", e->root);
	mkdir_p(e->msr);
	mkdir_p(e->sys);
	fflush(stderr);
	e->saved_stderr = dup(2);
	fd = open(e->log, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || e->saved_stderr < 0)
		return -1;
	dup2(fd, 2);
	close(fd);
	log_level = LOG_INFO;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	fflush(stderr);
	dup2(e->saved_stderr, 2);
	close(e->saved_stderr);
	nftw(e->root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(e);
	return 0;
}

/* ------------------------------------------------------------------ tests */

static void test_backend_names(void **state)
{
	enum act_backend b;

	assert_int_equal(act_backend_parse("intel-hwp", &b), 0);
	assert_int_equal(b, ACT_INTEL_HWP);
	assert_int_equal(act_backend_parse("amd-cppc", &b), 0);
	assert_int_equal(b, ACT_AMD_CPPC);
	assert_int_equal(act_backend_parse("cpufreq", &b), 0);
	assert_int_equal(b, ACT_CPUFREQ);
	assert_int_equal(act_backend_parse("none", &b), 0);
	assert_int_equal(b, ACT_NONE);
	assert_int_equal(act_backend_parse("auto", &b), 0);
	assert_int_equal(b, ACT_AUTO);
	assert_int_equal(act_backend_parse("hwp", &b), -EINVAL);
	assert_string_equal(act_backend_name(ACT_INTEL_HWP), "intel-hwp");
}

/* The primitive: a file keeps MSR X at 8*X, the device at X. */
static void test_msr_primitive(void **state)
{
	struct env *e = *state;
	char p[PATH_MAX];
	__u64 v = 0;
	int fd;

	pathf(p, "%s/f", e->root);
	fd = open(p, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(msr_write(fd, true, 0x771, 0x1122334455667788ULL), 0);
	assert_int_equal(msr_write(fd, true, 0x774, 0x99ULL), 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), 8 * 0x774 + 8);
	assert_int_equal(msr_read(fd, true, 0x771, &v), 0);
	assert_true(v == 0x1122334455667788ULL);
	/* device addressing: offset X */
	assert_int_equal(msr_write(fd, false, 0x10, 0xabULL), 0);
	assert_int_equal(pread(fd, &v, 8, 0x10), 8);
	assert_true(v == 0xab);
	/* short read past the end */
	assert_int_equal(msr_read(fd, true, 0x775, &v), -EIO);
	close(fd);
}

static void test_hwp_floor_scaling(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_AUTO);
	struct act_cpu_info ci;
	struct actuator *a;
	unsigned char *before1 = NULL;
	const __u64 keep = ~0xffULL;

	seed_intel(e, 0);
	seed_intel(e, 1);
	before1 = snap_intel(e, 1);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_backend(a), ACT_INTEL_HWP);
	assert_null(act_missing(a));

	/* 0 -> lowest: already there, nothing written */
	assert_int_equal(act_set_floor(a, 0, 0), 0);
	assert_true(msr_get(e, 0, HWP_REQ) == HWP_REQ_VAL);
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.writes, 0);
	assert_int_equal(ci.hw_lowest, 8);
	assert_int_equal(ci.hw_highest, 40);

	/* min = 8 + round(32 * floor / 1024), half up */
	static const struct { __u32 floor, min; } t[] = {
		{ 1024, 40 }, { 512, 24 }, { 256, 16 }, { 768, 32 },
		{ 16, 9 },	/* 0.5 rounds up */
		{ 15, 8 },	/* 0.47 rounds down */
		{ 5000, 40 },	/* clamped to 1024 */
		{ 0, 8 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		__u64 v;

		assert_int_equal(act_set_floor(a, 0, t[i].floor), 0);
		v = msr_get(e, 0, HWP_REQ);
		assert_int_equal(v & 0xff, t[i].min);
		assert_true((v & keep) == (HWP_REQ_VAL & keep));
	}
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.writes, 8);
	assert_int_equal(ci.hw_min, 8);
	assert_int_equal(ci.last_floor, 0);

	/* neighbours untouched, CPU 1 untouched */
	assert_true(msr_get(e, 0, HWP_CAPS) == HWP_CAPS_VAL);
	assert_true(msr_get(e, 0, PM_ENABLE) == 1);
	assert_true(msr_get(e, 0, HWP_REQ_PKG) == 0x0101010101010101ULL * ((0x772 * 37) & 0xff));
	{
		unsigned char *now1 = snap_intel(e, 1);

		assert_memory_equal(now1, before1, INTEL_LEN);
		free(now1);
	}
	act_close(a);
	free(before1);
}

static void test_hwp_cap_at_max(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	struct actuator *a;
	const __u64 req = (HWP_REQ_VAL & ~0xff00ULL) | 30ULL << 8;

	seed_intel(e, 0);
	seed_intel(e, 1);
	msr_set(e, 0, HWP_REQ, req);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_true(msr_get(e, 0, HWP_REQ) == ((req & ~0xffULL) | 30));
	act_close(a);
	assert_true(msr_get(e, 0, HWP_REQ) == req);
}

static void test_hwp_restore_exact(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	unsigned char *b0, *b1, *n0, *n1;
	struct actuator *a;

	seed_intel(e, 0);
	seed_intel(e, 1);
	b0 = snap_intel(e, 0);
	b1 = snap_intel(e, 1);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_set_floor(a, 0, 700), 0);
	assert_int_equal(act_set_floor(a, 1, 1024), 0);
	assert_int_not_equal(msr_get(e, 1, HWP_REQ), HWP_REQ_VAL);
	assert_int_equal(act_restore(a), 0);
	n0 = snap_intel(e, 0);
	n1 = snap_intel(e, 1);
	assert_memory_equal(n0, b0, INTEL_LEN);
	assert_memory_equal(n1, b1, INTEL_LEN);
	free(n0);
	free(n1);
	/* idempotent */
	assert_int_equal(act_restore(a), 0);
	/* usable after a restore; close restores again */
	assert_int_equal(act_set_floor(a, 1, 1024), 0);
	assert_true((msr_get(e, 1, HWP_REQ) & 0xff) == 40);
	act_close(a);
	n0 = snap_intel(e, 0);
	n1 = snap_intel(e, 1);
	assert_memory_equal(n0, b0, INTEL_LEN);
	assert_memory_equal(n1, b1, INTEL_LEN);
	free(n0);
	free(n1);
	free(b0);
	free(b1);
}

/* Stand-ins of @b's registers for CPUs 0 and 1, opened for floors alone. */
static struct actuator *open_floors(struct env *e, enum act_backend b)
{
	struct act_opts o = opts(e, b);
	struct actuator *a;

	for (int c = 0; c < 2; c++) {
		if (b == ACT_AMD_CPPC)
			seed_amd(e, c);
		else
			seed_intel(e, c);
	}
	o.idle = false;
	assert_int_equal(act_open(&a, &o), 0);
	return a;
}

static void test_hwp_reassert(void **state)
{
	struct env *e = *state;
	struct actuator *a = open_floors(e, ACT_INTEL_HWP);
	struct act_cpu_info ci;
	__u64 ext, v;

	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(act_reassert(a), 0);
	/* intel_pstate-style rewrite: its own min and a new EPP */
	ext = (HWP_REQ_VAL & ~(0xffULL << 24)) | 0x40ULL << 24;
	msr_set(e, 0, HWP_REQ, ext);
	assert_int_equal(act_reassert(a), 1);
	v = msr_get(e, 0, HWP_REQ);
	assert_true(v == ((ext & ~0xffULL) | 40));	/* min back, EPP 0x40 kept */
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.reasserts, 1);
	assert_int_equal(act_reassert(a), 0);
	/* a repeated request does not hide drift from reassert */
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	act_close(a);
	/* the min field's original back; the driver's EPP 0x40 stays */
	assert_true(msr_get(e, 0, HWP_REQ) == ((ext & ~0xffULL) | (HWP_REQ_VAL & 0xff)));
}

static void test_dry_run(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_AUTO);
	struct bpfgov_config c = cfg3();
	unsigned char *b0, *n0;
	struct act_cpu_info ci;
	struct actuator *a;

	seed_intel(e, 0);
	seed_intel(e, 1);
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	sys_put(e, "cpuidle/current_governor", "menu\n");
	for (int k = 0; k < 3; k++) {
		char r[64];

		snprintf(r, sizeof(r), "cpu0/cpuidle/state%d/disable", k);
		sys_put(e, r, "0\n");
	}
	b0 = snap_intel(e, 0);
	o.dry_run = true;
	assert_int_equal(act_open(&a, &o), 0);
	log_clear(e);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_int_equal(act_reassert(a), 0);
	assert_non_null(strstr(log_text(e), "dry-run: would write"));
	assert_non_null(strstr(log_text(e), "'n/a'"));
	/* a halting pick: the knobs of the deeper and the polling state */
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);
	assert_non_null(strstr(log_text(e), "state2/disable"));
	assert_non_null(strstr(log_text(e), "state0/disable"));
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.last_floor, 1024);
	assert_int_equal(ci.last_pick, 0);
	assert_int_equal(ci.hw_min, 40);	/* what it would be */
	/* tracked: the same request again logs nothing new */
	log_clear(e);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_string_equal(log_text(e), "");
	act_close(a);
	n0 = snap_intel(e, 0);
	assert_memory_equal(n0, b0, INTEL_LEN);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	free(n0);
	free(b0);
}

static void test_idle_pm_qos(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_NONE);
	struct bpfgov_config c = cfg3();
	struct act_cpu_info ci;
	struct actuator *a;
	const char *q0 = "cpu0/power/pm_qos_resume_latency_us";

	sys_put(e, q0, "0\n");
	sys_put(e, "cpu1/power/pm_qos_resume_latency_us", "0\n");
	sys_put(e, "cpuidle/current_governor", "haltpoll\n");
	assert_int_equal(act_open(&a, &o), 0);
	assert_true(act_idle_available(a));
	assert_int_equal(act_orig_qos_us(a, 0), 0);

	assert_int_equal(act_set_idle(a, 0, 2, &c), 0);	/* deepest: as is */
	assert_string_equal(sys_get(e, q0), "0\n");
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);	/* poll */
	assert_string_equal(sys_get(e, q0), "n/a\n");
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);	/* C1: <= 2 us */
	assert_string_equal(sys_get(e, q0), "2\n");
	assert_int_equal(act_set_idle(a, 0, 2, &c), 0);
	assert_string_equal(sys_get(e, q0), "0\n");
	assert_int_equal(act_set_idle(a, 0, BPFGOV_NO_STATE, &c), 0);
	assert_int_equal(act_set_idle(a, 0, 7, &c), -EINVAL);
	{	/* no cpuidle driver (empty table): nothing to apply */
		struct bpfgov_config none = { .nr_states = 0 };

		assert_int_equal(act_set_idle(a, 1, 0, &none), 0);
		assert_string_equal(sys_get(e, "cpu1/power/pm_qos_resume_latency_us"), "0\n");
	}
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.writes, 3);

	/* reassert after an outside write */
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	sys_put(e, q0, "0\n");
	assert_int_equal(act_reassert(a), 1);
	assert_string_equal(sys_get(e, q0), "n/a\n");
	act_close(a);
	assert_string_equal(sys_get(e, q0), "0\n");
	assert_string_equal(sys_get(e, "cpu1/power/pm_qos_resume_latency_us"), "0\n");
}

static void test_idle_orig_limit(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_NONE);
	struct bpfgov_config c = {
		.nr_states = 4,
		.state_exit_latency_us = { 0, 2, 80, 200 },
		.state_is_poll = { 1, 0, 0, 0 },
	};
	struct act_cpu_info ci;
	struct actuator *a;
	const char *q0 = "cpu0/power/pm_qos_resume_latency_us";
	const char *q1 = "cpu1/power/pm_qos_resume_latency_us";

	sys_put(e, q0, "50\n");
	sys_put(e, q1, "n/a\n");
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_orig_qos_us(a, 0), 50);
	assert_int_equal(act_orig_qos_us(a, 1), ACT_QOS_POLL_ONLY);

	/* C2 needs 80 us: never looser than the original 50 */
	assert_int_equal(act_set_idle(a, 0, 2, &c), 0);
	assert_string_equal(sys_get(e, q0), "50\n");
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.writes, 0);
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);
	assert_string_equal(sys_get(e, q0), "2\n");
	assert_int_equal(act_set_idle(a, 0, 3, &c), 0);
	assert_string_equal(sys_get(e, q0), "50\n");

	/* "n/a" originally: nothing is looser than that, nothing written */
	for (__u32 p = 0; p < 4; p++)
		assert_int_equal(act_set_idle(a, 1, p, &c), 0);
	assert_string_equal(sys_get(e, q1), "n/a\n");
	assert_int_equal(act_cpu_info(a, 1, &ci), 0);
	assert_int_equal(ci.writes, 0);
	act_close(a);
	assert_string_equal(sys_get(e, q0), "50\n");
}

static void test_idle_disable_menu(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_NONE);
	struct bpfgov_config c = {
		.nr_states = 4,
		.state_exit_latency_us = { 0, 2, 50, 50 },
		.state_is_poll = { 1, 0, 0, 0 },
	};
	struct actuator *a;

	sys_put(e, "cpuidle/current_governor", "menu\n");
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	for (int k = 0; k < 4; k++) {
		char r[64];

		snprintf(r, sizeof(r), "cpu0/cpuidle/state%d/disable", k);
		sys_put(e, r, k == 3 ? "1\n" : "0\n");	/* state3 disabled by the admin */
	}
	assert_int_equal(act_open(&a, &o), 0);
	/* a halting pick: deeper states and the polling one disabled (the
	 * limit alone cannot stop menu from polling) */
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "2\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "1\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "1\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state3/disable"), "1\n");

	/* C2 and C3 share an exit latency: only the knob tells them apart */
	assert_int_equal(act_set_idle(a, 0, 2, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "50\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state3/disable"), "1\n");

	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "1\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "0\n");

	/* deepest: originals everywhere (state3 stays as the admin set it)
	 * but polling, still disabled */
	assert_int_equal(act_set_idle(a, 0, 3, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "1\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state3/disable"), "1\n");

	/* the same pick leaving polling to the governor (poll_ok): polling
	 * gets its original back, the rest as before; and shut again */
	assert_int_equal(act_set_idle_poll(a, 0, 3, true, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state3/disable"), "1\n");
	assert_int_equal(act_set_idle_poll(a, 0, 1, true, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "2\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "1\n");
	assert_int_equal(act_set_idle_poll(a, 0, 1, false, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "1\n");
	assert_int_equal(act_set_idle(a, 0, 3, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "1\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");

	/* polling: the polling state gets its original back; "n/a" already
	 * excludes every state with an exit latency, so their knobs keep
	 * their originals (disabling them would stretch the kernel's poll
	 * time limit to TICK_NSEC/16) */
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "n/a\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state3/disable"), "1\n");
	/* edge: a state claiming exit latency 0 passes "n/a": disabled */
	c.state_exit_latency_us[1] = 0;
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "1\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	act_close(a);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state3/disable"), "1\n");
}

/* intel_idle's nine Skylake states under menu: the ninth state's knob
 * (state8, C10) is tracked like the others, written for a shallow pick and
 * given its original back on close. */
static void test_idle_disable_skl(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_NONE);
	struct bpfgov_config c = {
		.nr_states = 9,
		.state_exit_latency_us = { 0, 2, 10, 70, 85, 124, 200, 480, 890 },
		.state_residency_us = { 0, 2, 20, 100, 200, 800, 800, 5000, 5000 },
		.state_is_poll = { 1 },
	};
	struct actuator *a;
	char r[64];

	sys_put(e, "cpuidle/current_governor", "menu\n");
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	for (int k = 0; k < 9; k++) {
		snprintf(r, sizeof(r), "cpu0/cpuidle/state%d/disable", k);
		sys_put(e, r, "0\n");
	}
	assert_int_equal(act_open(&a, &o), 0);
	/* C1E: C3 to C10 disabled, polling too */
	assert_int_equal(act_set_idle(a, 0, 2, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "10\n");
	for (int k = 0; k < 9; k++) {
		snprintf(r, sizeof(r), "cpu0/cpuidle/state%d/disable", k);
		assert_string_equal(sys_get(e, r), k == 1 || k == 2 ? "0\n" : "1\n");
	}
	/* C9: only C10 stays disabled */
	assert_int_equal(act_set_idle(a, 0, 7, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state7/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state8/disable"), "1\n");
	act_close(a);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "0\n");
	for (int k = 0; k < 9; k++) {
		snprintf(r, sizeof(r), "cpu0/cpuidle/state%d/disable", k);
		assert_string_equal(sys_get(e, r), "0\n");
	}
}

/* haltpoll (and ladder) ignore stateK/disable: leave them alone */
static void test_idle_disable_haltpoll(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_NONE);
	struct bpfgov_config c = cfg3();
	struct actuator *a;

	sys_put(e, "cpuidle/current_governor", "haltpoll\n");
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	sys_put(e, "cpu0/cpuidle/state0/disable", "0\n");
	sys_put(e, "cpu0/cpuidle/state1/disable", "0\n");
	sys_put(e, "cpu0/cpuidle/state2/disable", "0\n");
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "n/a\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state1/disable"), "0\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state2/disable"), "0\n");
	/* a halting pick leaves the polling state alone too */
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	act_close(a);
	assert_string_equal(sys_get(e, "cpu0/power/pm_qos_resume_latency_us"), "0\n");
}

static void test_amd_layout(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_AUTO);
	const off_t off = 8ULL * (CPPC_CAP1 - 2);
	const size_t len = 8 * 8;
	unsigned char *b0, *n0;
	char p[PATH_MAX];
	struct actuator *a;
	__u64 v;

	seed_amd(e, 0);
	seed_amd(e, 1);
	msr_path(e, 0, p);
	b0 = snap(p, off, len);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_backend(a), ACT_AMD_CPPC);
	/* min (15:8) = 10 + round(190 * floor / 1024) */
	assert_int_equal(act_set_floor(a, 0, 512), 0);
	v = msr_get(e, 0, CPPC_REQ);
	assert_int_equal((v >> 8) & 0xff, 105);
	assert_true((v & ~0xff00ULL) == (CPPC_REQ_VAL & ~0xff00ULL));
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal((msr_get(e, 0, CPPC_REQ) >> 8) & 0xff, 200);
	assert_int_equal(act_set_floor(a, 0, 100), 0);	/* 18.55 -> 19 */
	assert_int_equal((msr_get(e, 0, CPPC_REQ) >> 8) & 0xff, 29);
	act_close(a);
	n0 = snap(p, off, len);
	assert_memory_equal(n0, b0, len);
	free(n0);
	free(b0);
}

/* One of @cpu's cpufreq files. */
static void cpufreq_put(struct env *e, int cpu, const char *file, const char *text)
{
	char r[128];

	snprintf(r, sizeof(r), "cpu%d/cpufreq/%s", cpu, file);
	sys_put(e, r, text);
}

static void seed_cpufreq(struct env *e, int cpu)
{
	cpufreq_put(e, cpu, "cpuinfo_min_freq", "800000\n");
	cpufreq_put(e, cpu, "cpuinfo_max_freq", "3200000\n");
	cpufreq_put(e, cpu, "scaling_min_freq", "800000\n");
	cpufreq_put(e, cpu, "scaling_max_freq", "3200000\n");
}

static void test_cpufreq(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_AUTO);
	struct act_cpu_info ci;
	struct actuator *a;

	seed_cpufreq(e, 0);
	seed_cpufreq(e, 1);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), 0);	/* no msr files: cpufreq */
	assert_int_equal(act_backend(a), ACT_CPUFREQ);
	assert_int_equal(act_set_floor(a, 0, 512), 0);
	assert_string_equal(sys_get(e, "cpu0/cpufreq/scaling_min_freq"), "2000000\n");
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.hw_min, 2000000);
	assert_int_equal(ci.hw_lowest, 800000);
	assert_int_equal(ci.hw_highest, 3200000);
	sys_put(e, "cpu0/cpufreq/scaling_max_freq", "3000000\n");
	assert_int_equal(act_set_floor(a, 0, 1024), 0);	/* capped at scaling_max */
	assert_string_equal(sys_get(e, "cpu0/cpufreq/scaling_min_freq"), "3000000\n");
	sys_put(e, "cpu0/cpufreq/scaling_min_freq", "800000\n");
	assert_int_equal(act_reassert(a), 1);
	assert_string_equal(sys_get(e, "cpu0/cpufreq/scaling_min_freq"), "3000000\n");
	assert_string_equal(sys_get(e, "cpu1/cpufreq/scaling_min_freq"), "800000\n");
	act_close(a);
	assert_string_equal(sys_get(e, "cpu0/cpufreq/scaling_min_freq"), "800000\n");
}

static void test_msr_missing(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	struct actuator *a = (void *)1;
	char p[PATH_MAX];

	o.idle = false;
	assert_int_equal(act_open(&a, &o), -ENOENT);
	assert_null(a);
	msr_path(e, 0, p);
	assert_non_null(strstr(log_text(e), p));
	assert_non_null(strstr(log_text(e), "modprobe msr"));
}

static void test_msr_short(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	unsigned char *b0, *n0;
	struct actuator *a;
	char p[PATH_MAX];

	seed_intel(e, 0);
	seed_intel(e, 1);
	msr_path(e, 1, p);
	assert_int_equal(truncate(p, 8 * HWP_CAPS + 4), 0);
	b0 = snap(p, 0, 8 * HWP_CAPS + 4);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), -EIO);
	assert_non_null(strstr(log_text(e), p));
	assert_non_null(strstr(log_text(e), "short read of MSR 0x771"));
	/* the same with auto: a broken stand-in is an error, not "missing" */
	log_clear(e);
	o.backend = ACT_AUTO;
	assert_int_equal(act_open(&a, &o), -EIO);
	assert_non_null(strstr(log_text(e), "short read"));
	n0 = snap(p, 0, 8 * HWP_CAPS + 4);
	assert_memory_equal(n0, b0, 8 * HWP_CAPS + 4);
	assert_true(msr_get(e, 0, HWP_REQ) == HWP_REQ_VAL);
	free(n0);
	free(b0);
}

static void test_hwp_disabled(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	struct actuator *a;

	seed_intel(e, 0);
	seed_intel(e, 1);
	msr_set(e, 0, PM_ENABLE, 0);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), -ENODEV);
	assert_non_null(strstr(log_text(e), "HWP not enabled"));
	assert_non_null(strstr(log_text(e), "0x770"));
}

static void test_auto_none(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_AUTO);
	struct bpfgov_config c = cfg3();
	struct actuator *a;
	const char *m;

	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_backend(a), ACT_NONE);
	m = act_missing(a);
	assert_non_null(m);
	assert_null(strchr(m, '\n'));
	assert_non_null(strstr(m, "no MSR driver"));
	assert_non_null(strstr(m, "modprobe msr"));
	assert_non_null(strstr(m, "no cpufreq driver"));
	assert_false(act_idle_available(a));
	/* decisions still flow */
	assert_int_equal(act_set_floor(a, 0, 900), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_int_equal(act_reassert(a), 0);
	assert_int_equal(act_restore(a), 0);
	act_close(a);
	act_close(NULL);

	/* explicit none: nothing missing */
	o.backend = ACT_NONE;
	assert_int_equal(act_open(&a, &o), 0);
	assert_null(act_missing(a));
	act_close(a);
}

static void test_readonly(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_CPUFREQ);
	struct bpfgov_config c = cfg3();
	const char *q0 = "cpu0/power/pm_qos_resume_latency_us";
	struct actuator *a;

	/* read-only scaling_min_freq: open fails, nothing changed */
	seed_cpufreq(e, 0);
	seed_cpufreq(e, 1);
	sys_chmod(e, "cpu1/cpufreq/scaling_min_freq", 0444);
	o.idle = false;
	assert_int_equal(act_open(&a, &o), -EACCES);
	assert_non_null(strstr(log_text(e), "scaling_min_freq: read-only"));
	assert_string_equal(sys_get(e, "cpu0/cpufreq/scaling_min_freq"), "800000\n");
	assert_string_equal(sys_get(e, "cpu1/cpufreq/scaling_min_freq"), "800000\n");

	/* read-only PM QoS file at open */
	sys_put(e, q0, "0\n");
	sys_chmod(e, q0, 0444);
	o.backend = ACT_NONE;
	o.idle = true;
	assert_int_equal(act_open(&a, &o), -EACCES);

	/* ... or turned read-only later: the write fails, nothing changed */
	sys_chmod(e, q0, 0644);
	assert_int_equal(act_open(&a, &o), 0);
	sys_chmod(e, q0, 0444);
	log_clear(e);
	assert_int_equal(act_set_idle(a, 0, 0, &c), -EACCES);
	assert_non_null(strstr(log_text(e), "read-only"));
	assert_string_equal(sys_get(e, q0), "0\n");
	{
		struct act_cpu_info ci;

		assert_int_equal(act_cpu_info(a, 0, &ci), 0);
		assert_int_equal(ci.errors, 1);
		assert_int_equal(ci.writes, 0);
	}
	act_close(a);
	assert_string_equal(sys_get(e, q0), "0\n");
}

static void test_offline_and_missing_cpus(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	struct act_cpu_info ci;
	struct actuator *a;

	seed_intel(e, 0);
	seed_intel(e, 1);
	sys_put(e, "cpu1/online", "0\n");
	o.nr_cpus = 3;		/* cpu2 has no msr file at all */
	o.idle = false;
	log_level = LOG_DEBUG;
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_set_floor(a, 1, 1024), 0);
	assert_int_equal(act_set_floor(a, 2, 1024), 0);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_true(msr_get(e, 1, HWP_REQ) == HWP_REQ_VAL);
	assert_int_equal(msr_get(e, 0, HWP_REQ) & 0xff, 40);
	assert_int_equal(act_cpu_info(a, 1, &ci), 0);
	assert_false(ci.online);
	assert_int_equal(ci.errors, 0);
	assert_int_equal(act_set_floor(a, 3, 1024), -EINVAL);
	assert_non_null(strstr(log_text(e), "cpu 1 offline"));
	act_close(a);
}

struct hook_log {
	int calls;
	__u64 val;
	int ret;
};

static int hook(void *ctx, const struct act_saved *s)
{
	struct hook_log *h = ctx;

	h->calls++;
	if (s->is_msr)
		h->val = s->msr_val;
	else
		h->val = s->len;
	return h->ret;
}

static void test_save_hook(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	struct bpfgov_config c = cfg3();
	struct hook_log h = { 0 };
	struct actuator *a;

	seed_intel(e, 0);
	seed_intel(e, 1);
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	assert_int_equal(act_open(&a, &o), 0);
	act_set_save_hook(a, hook, &h);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(h.calls, 1);
	assert_true(h.val == HWP_REQ_VAL);
	assert_int_equal(act_set_floor(a, 0, 512), 0);
	assert_int_equal(h.calls, 1);		/* saved once */
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_int_equal(h.calls, 2);
	assert_int_equal(h.val, 2);		/* "0\n" */
	/* a failing hook stops the write */
	h.ret = -EPERM;
	assert_int_equal(act_set_floor(a, 1, 1024), -EPERM);
	assert_true(msr_get(e, 1, HWP_REQ) == HWP_REQ_VAL);
	act_close(a);
	assert_true(msr_get(e, 0, HWP_REQ) == HWP_REQ_VAL);
}

/* A driver (intel_pstate, amd-pstate) that rewrites its fields of the
 * request register while bpfgov's first write saves its original (the
 * journal's synced record: the widest window between bpfgov's read and its
 * write). */
struct drv_hook {
	struct env *e;
	__u32 msr;
	__u64 val;		/* what the driver writes */
	int calls;
};

static int drv_hook(void *ctx, const struct act_saved *s)
{
	struct drv_hook *d = ctx;

	if (s->is_msr && s->msr == d->msr && !d->calls++)
		msr_set(d->e, s->cpu, d->msr, d->val);
	return 0;
}

/*
 * The floor's write owns the min field alone: a driver's change of the
 * other fields made between bpfgov's read and its write is kept, and so
 * is one the re-assert finds (only the min field is compared and put
 * back); the driver's rewrites are counted.
 */
static void test_hwp_driver_fields(void **state)
{
	struct env *e = *state;
	/* the driver: max 35, EPP 0x40, desired 0 */
	const __u64 drv = (HWP_REQ_VAL & ~0xffffff00ULL) | 35ULL << 8 | 0x40ULL << 24;
	struct drv_hook d = { .e = e, .msr = HWP_REQ, .val = drv };
	struct actuator *a = open_floors(e, ACT_INTEL_HWP);
	struct act_cpu_info ci;
	__u64 v, drv2;

	act_set_save_hook(a, drv_hook, &d);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(d.calls, 1);
	v = msr_get(e, 0, HWP_REQ);
	/* the driver's fields, our min (capped at the driver's max 35) */
	assert_true(v == ((drv & ~0xffULL) | 35));
	/* the driver changes EPP alone: nothing to write, a rewrite counted */
	drv2 = (v & ~(0xffULL << 24)) | 0xc0ULL << 24;
	msr_set(e, 0, HWP_REQ, drv2);
	assert_int_equal(act_reassert(a), 0);
	assert_true(msr_get(e, 0, HWP_REQ) == drv2);
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.driver_rewrites, 1);
	assert_int_equal(ci.reasserts, 0);
	/* the driver rewrites the whole register from its cache (its min 8,
	 * max 38, EPP 0x80): our min back, every other field the driver's */
	drv2 = (HWP_REQ_VAL & ~0xff00ULL) | 38ULL << 8;
	msr_set(e, 0, HWP_REQ, drv2);
	assert_int_equal(act_reassert(a), 1);
	assert_true(msr_get(e, 0, HWP_REQ) == ((drv2 & ~0xffULL) | 38));
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.driver_rewrites, 2);
	assert_int_equal(ci.reasserts, 1);
	/* a floor change carries the driver's latest fields too */
	drv2 = (msr_get(e, 0, HWP_REQ) & ~(0xffULL << 24)) | 0x11ULL << 24;
	msr_set(e, 0, HWP_REQ, drv2);
	assert_int_equal(act_set_floor(a, 0, 512), 0);
	v = msr_get(e, 0, HWP_REQ);
	assert_true((v & ~0xffULL) == (drv2 & ~0xffULL));
	assert_int_equal(v & 0xff, 24);		/* 8 + round(32 * 512 / 1024) */
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.driver_rewrites, 3);
	assert_int_equal(ci.driver_races, 0);
	act_close(a);
}

/* The same on AMD's CPPC_REQ, whose min is bits 15:8 (max 7:0). */
static void test_cppc_driver_fields(void **state)
{
	struct env *e = *state;
	/* the driver: max 180, EPP 0x40 */
	const __u64 drv = (CPPC_REQ_VAL & ~0xff0000ffULL) | 180ULL | 0x40ULL << 24;
	struct drv_hook d = { .e = e, .msr = CPPC_REQ, .val = drv };
	struct actuator *a = open_floors(e, ACT_AMD_CPPC);
	struct act_cpu_info ci;
	__u64 drv2;

	act_set_save_hook(a, drv_hook, &d);
	assert_int_equal(act_set_floor(a, 0, 512), 0);
	/* min 105 (10 + round(190 * 512 / 1024)) into the driver's fields */
	assert_true(msr_get(e, 0, CPPC_REQ) == ((drv & ~0xff00ULL) | 105ULL << 8));
	drv2 = (CPPC_REQ_VAL & ~0xffULL) | 190ULL;	/* its min 10, max 190 */
	msr_set(e, 0, CPPC_REQ, drv2);
	assert_int_equal(act_reassert(a), 1);
	assert_true(msr_get(e, 0, CPPC_REQ) == ((drv2 & ~0xff00ULL) | 105ULL << 8));
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.driver_rewrites, 1);
	act_close(a);
}

/*
 * bpfgov's own EPP write: intel_pstate rewrites HWP_REQUEST from its
 * cached copy within it (its min, not bpfgov's). Here the driver's copy is
 * in the register before the write (a stand-in file has no driver to do it
 * during the write); after act_set_epp() returns, the floor is back, with
 * no re-assert between: min bpfgov's, the driver's EPP 0x40 and max kept.
 */
static void test_epp_floor_back(void **state)
{
	struct env *e = *state;
	const __u64 drv = (HWP_REQ_VAL & ~(0xffULL << 24)) | 0x40ULL << 24;
	struct act_cpu_info ci;
	struct actuator *a;

	for (int c = 0; c < 2; c++) {
		cpufreq_put(e, c, "energy_performance_preference", "balance_performance\n");
		cpufreq_put(e, c, "energy_performance_available_preferences",
			    "default performance balance_performance balance_power power\n");
		cpufreq_put(e, c, "scaling_governor", "powersave\n");
	}
	a = open_floors(e, ACT_INTEL_HWP);
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(msr_get(e, 0, HWP_REQ) & 0xff, 40);
	msr_set(e, 0, HWP_REQ, drv);			/* the driver's copy: min 8 */
	assert_true(act_set_epp(a, "balance_power") > 0);
	assert_string_equal(sys_get(e, "cpu0/cpufreq/energy_performance_preference"),
			    "balance_power\n");
	assert_true(msr_get(e, 0, HWP_REQ) == ((drv & ~0xffULL) | 40));
	assert_int_equal(act_cpu_info(a, 0, &ci), 0);
	assert_int_equal(ci.reasserts, 1);
	/* and when the EPP goes back (profile balanced: left as found) */
	msr_set(e, 0, HWP_REQ, drv);
	assert_int_equal(act_set_epp(a, NULL), 0);
	assert_string_equal(sys_get(e, "cpu0/cpufreq/energy_performance_preference"),
			    "balance_performance\n");
	assert_true(msr_get(e, 0, HWP_REQ) == ((drv & ~0xffULL) | 40));
	act_close(a);
}

/* Originals saved ahead: every knob through the hook at once, none again
 * at its first write; one never written is left as someone else set it. */
static void test_save_ahead(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_INTEL_HWP);
	struct bpfgov_config c = cfg3();
	struct hook_log h = { 0 };
	struct actuator *a;

	seed_intel(e, 0);
	seed_intel(e, 1);
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	sys_put(e, "cpu1/power/pm_qos_resume_latency_us", "0\n");
	assert_int_equal(act_open(&a, &o), 0);
	act_set_save_hook(a, hook, &h);
	assert_int_equal(act_save_all(a, false), 0);
	assert_int_equal(h.calls, 2);			/* the two floors */
	assert_int_equal(act_save_all(a, true), 0);
	assert_int_equal(h.calls, 4);			/* and the two PM QoS files */
	assert_int_equal(act_pending(a), 0);		/* nothing written yet */
	assert_int_equal(act_set_floor(a, 0, 1024), 0);
	assert_int_equal(act_set_idle(a, 0, 0, &c), 0);
	assert_int_equal(h.calls, 6);			/* the two first writes: marked */
	assert_int_equal(act_pending(a), 2);
	assert_true(msr_get(e, 0, HWP_REQ) != HWP_REQ_VAL);
	/* someone else changes a knob bpfgov never wrote: it stays */
	sys_put(e, "cpu1/power/pm_qos_resume_latency_us", "7\n");
	assert_int_equal(act_restore(a), 0);
	assert_true(msr_get(e, 0, HWP_REQ) == HWP_REQ_VAL);
	assert_int_equal(act_pending(a), 0);
	act_close(a);
	assert_true(msr_get(e, 1, HWP_REQ) == HWP_REQ_VAL);
	assert_string_equal(sys_get(e, "cpu1/power/pm_qos_resume_latency_us"), "7\n");
}

/* --idle-governor: checked at open (nothing written), journaled first at
 * save_all, switched, and put back after every per-CPU knob; a governor
 * someone else chose while bpfgov ran stays. */
static void test_idle_governor_switch(void **state)
{
	struct env *e = *state;
	struct act_opts o = opts(e, ACT_NONE);
	struct bpfgov_config c = cfg3();
	struct hook_log h = { 0 };
	struct actuator *a;
	const char *g = "cpuidle/current_governor";

	sys_put(e, g, "haltpoll\n");
	sys_put(e, "cpuidle/current_driver", "haltpoll\n");
	sys_put(e, "cpuidle/available_governors", "ladder menu haltpoll \n");
	sys_put(e, "cpu0/power/pm_qos_resume_latency_us", "0\n");
	sys_put(e, "cpu0/cpuidle/state0/disable", "0\n");
	sys_put(e, "cpu0/cpuidle/state1/disable", "0\n");
	sys_put(e, "cpu0/cpuidle/state2/disable", "0\n");

	/* not listed, a prefix of a listed one: refused, nothing written */
	o.idle_governor = "teo";
	assert_int_equal(act_open(&a, &o), -EINVAL);
	o.idle_governor = "men";
	assert_int_equal(act_open(&a, &o), -EINVAL);
	assert_string_equal(sys_get(e, g), "haltpoll\n");
	/* no cpuidle driver: nothing to switch */
	sys_put(e, "cpuidle/current_driver", "none\n");
	o.idle_governor = "menu";
	assert_int_equal(act_open(&a, &o), -ENOENT);
	sys_put(e, "cpuidle/current_driver", "haltpoll\n");

	assert_int_equal(act_open(&a, &o), 0);
	assert_string_equal(act_idle_governor(a), "menu");
	assert_true(act_idle_uses_disable(a));	/* menu's knobs, before the switch */
	assert_string_equal(sys_get(e, g), "haltpoll\n");
	act_set_save_hook(a, hook, &h);
	assert_int_equal(act_save_all(a, true), 0);
	assert_int_equal(h.calls, 5);	/* the governor, PM QoS, 3 disable */
	assert_int_equal(act_apply_idle_governor(a), 1);
	assert_string_equal(sys_get(e, g), "menu\n");
	assert_int_equal(act_apply_idle_governor(a), 0);	/* in force */
	/* a halting pick under menu disables the polling state */
	assert_int_equal(act_set_idle(a, 0, 1, &c), 0);
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "1\n");
	assert_int_equal(act_pending(a), 4);	/* the governor, PM QoS, state0, state2 */
	assert_int_equal(act_restore(a), 0);
	assert_string_equal(sys_get(e, g), "haltpoll\n");
	assert_string_equal(sys_get(e, "cpu0/cpuidle/state0/disable"), "0\n");
	assert_int_equal(act_pending(a), 0);
	act_close(a);

	/* someone else's choice while bpfgov ran stays */
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_apply_idle_governor(a), 1);
	sys_put(e, g, "ladder\n");
	act_close(a);
	assert_string_equal(sys_get(e, g), "ladder\n");

	/* already in force: nothing to write, nothing to put back */
	sys_put(e, g, "menu\n");
	assert_int_equal(act_open(&a, &o), 0);
	assert_int_equal(act_apply_idle_governor(a), 0);
	assert_int_equal(act_pending(a), 0);
	act_close(a);
	assert_string_equal(sys_get(e, g), "menu\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_backend_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_msr_primitive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwp_floor_scaling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwp_cap_at_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwp_restore_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwp_reassert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_pm_qos, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_orig_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_disable_menu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_disable_skl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_disable_haltpoll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_governor_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_amd_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpufreq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_msr_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_msr_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwp_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_and_missing_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_hook, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hwp_driver_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cppc_driver_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epp_floor_back, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
