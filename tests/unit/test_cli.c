// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what the commands share for their first contact with a
 * user: paths escaped for one-line messages (str_esc), a file we would
 * create (check_creatable), duplicate KEY=VALUE keys (cfg_kv_dup), seconds
 * out of range (cli_seconds), explicit roots (cli_root_check), start's
 * up-front checks, and the utilization `status` and the summary line show
 * (gov_util_now).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
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

#include "bpfgov.h"
#include "bpfgov_tunables.h"
#include "cli.h"
#include "config.h"
#include "gov.h"
#include "log.h"
#include "util.h"
#include "unit_tmpdir.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"	/* cmocka's void **state */

static void test_str_esc(void **state)
{
	char big[PATH_MAX * 2];
	const char *a, *b;

	assert_string_equal(str_esc("/sys/fs/bpf/x"), "/sys/fs/bpf/x");
	assert_string_equal(str_esc("/tmp/a\nb"), "/tmp/a\\nb");
	assert_string_equal(str_esc("a\tb\x1b[31m\x7f"), "a\\tb\\x1b[31m\\x7f");
	assert_string_equal(str_esc("c:\\x"), "c:\\\\x");
	assert_string_equal(str_esc(NULL), "(null)");
	/* two in one printf do not share a buffer */
	a = str_esc("one\n");
	b = str_esc("two\n");
	assert_string_equal(a, "one\\n");
	assert_string_equal(b, "two\\n");
	/* cut, never overrun, never a raw newline */
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	a = str_esc(big);
	assert_true(strlen(a) <= PATH_MAX + 3);
	assert_null(strchr(a, '\n'));
	assert_string_equal(a + strlen(a) - 3, "...");
}

static void test_check_creatable(void **state)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/r.json", tmpdir);
	assert_int_equal(check_creatable(p), 0);
	assert_int_equal(check_creatable("/nonexistent/dir/r.json"), -ENOENT);
	assert_int_equal(check_creatable(tmpdir), -EISDIR);
	snprintf(p, sizeof(p), "%s/file", tmpdir);
	{
		FILE *f = fopen(p, "w");

		assert_non_null(f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/file/r.json", tmpdir);
	assert_int_equal(check_creatable(p), -ENOTDIR);
	assert_false(path_exists(p));
}

static void test_kv_dup(void **state)
{
	const char *dup[] = { "headroom_pct=150", "deadband=3", "headroom_pct=200" };
	const char *ok[] = { "deadband=3", "dead=1", "deadband_x=2" };
	char msg[256];

	assert_int_equal(cfg_kv_dup(dup, 3, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "duplicate key 'headroom_pct' ('headroom_pct=150', then 'headroom_pct=200')");
	assert_int_equal(cfg_kv_dup(ok, 3, msg, sizeof(msg)), 0);
	assert_int_equal(cfg_kv_dup(dup, 2, msg, sizeof(msg)), 0);
}

static void test_seconds_and_roots(void **state)
{
	char *big_dur[] = { "start", "--duration", "99999999999999999999", NULL };
	char *bad_dur[] = { "start", "--duration", "soon", NULL };
	char *no_msr[] = { "start", "--msr-root", "/nonexistent/msr", NULL };
	char *no_sys[] = { "start", "--sysfs-root", "/nonexistent/sys", NULL };
	char *no_rep[] = { "start", "--report", "/nonexistent/dir/r.json", NULL };
	char *ok[] = { "start", "--msr-root", tmpdir, "--report", NULL, NULL };
	char rep[PATH_MAX];
	struct start_opts o;
	double s;

	assert_int_equal(cli_seconds("t", "duration", "1e20", &s), -EINVAL);
	assert_int_equal(cli_seconds("t", "duration", "x", &s), -EINVAL);
	assert_int_equal(cli_seconds("t", "duration", "31536000", &s), 0);
	assert_true(s == CLI_SECONDS_MAX);
	assert_int_equal(cli_seconds("t", "duration", "31536001", &s), -EINVAL);
	assert_int_equal(cli_root_check("t", "msr-root", tmpdir), 0);
	assert_int_equal(cli_root_check("t", "msr-root", "/nonexistent/msr"), -ENOENT);
	assert_int_equal(start_parse_args(3, big_dur, &o), -EINVAL);
	assert_int_equal(start_parse_args(3, bad_dur, &o), -EINVAL);
	assert_int_equal(start_parse_args(3, no_msr, &o), -EINVAL);
	assert_int_equal(start_parse_args(3, no_sys, &o), -EINVAL);
	assert_true(start_parse_args(3, no_rep, &o) < 0);
	snprintf(rep, sizeof(rep), "%s/r.json", tmpdir);
	ok[4] = rep;
	assert_int_equal(start_parse_args(5, ok, &o), 0);
	assert_string_equal(o.msr_root, tmpdir);
	assert_false(path_exists(rep));	/* checked, not written */
}

/* The map's util is as of the CPU's last event: 759 after a busy burst
 * stays 759 in the map while the CPU then sleeps. Now, 200 ms later, it
 * has decayed by dur / (dur + tau_fall), 16 ms; a CPU busy since then has risen. */
static void test_util_now(void **state)
{
	struct bpfgov_config c;
	struct bpfgov_cpu_state s = {};
	__u64 t0 = 1000000000ull;

	bpfgov_config_defaults(&c);
	s.util = 759;
	s.seg_start_ns = t0;
	s.seg_busy_ns = 0;
	assert_int_equal(gov_util_now(&s, &c, t0), 759);
	assert_true(gov_util_now(&s, &c, t0 + 200000000ull) < 64);	/* 759 * 16 / 216 */
	s.busy = 1;
	s.busy_since_ns = t0;
	assert_true(gov_util_now(&s, &c, t0 + 200000000ull) > 1000);
	/* no event yet on this CPU: the map's value */
	s.seg_start_ns = 0;
	assert_int_equal(gov_util_now(&s, &c, t0 + 200000000ull), 759);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str_esc),
		cmocka_unit_test(test_check_creatable),
		cmocka_unit_test(test_kv_dup),
		cmocka_unit_test(test_seconds_and_roots),
		cmocka_unit_test(test_util_now),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
