// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/state/config.c: the config file parser (every accepted form
 * and every error with its file:line message), the profiles, the
 * precedence default < machine < profile < file < --set, start's argument
 * parser, the origins file and the one writer of the running tunables
 * (on a real BPF array map, as the pinned one is).
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
#include <bpf/bpf.h>

#include "bpfgov_tunables.h"
#include "config.h"
#include "log.h"
#include "tunables.h"
#include "unit_tmpdir.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"	/* cmocka's void **state */

static char msg[2048];
static struct cfg_file cf;

static int parse(const char *text)
{
	msg[0] = '\0';
	return cfg_parse(text, strlen(text), "t.conf", &cf, msg, sizeof(msg));
}

static __u32 get(const struct bpfgov_config *c, const char *key)
{
	const struct tunable_info *t = tunable_find(key);

	assert_non_null(t);
	return tunable_get(c, t);
}

static int origin(const struct gov_config *gc, const char *key)
{
	const struct tunable_info *t = tunable_find(key);

	assert_non_null(t);
	return gc->origin[t - tunable_table];
}

/* Silence pr_warn of the argument parser (to /dev/null, restored). */
static FILE *saved_stderr;
static void quiet(void)
{
	saved_stderr = stderr;
	stderr = fopen("/dev/null", "w");
}
static void loud(void)
{
	fclose(stderr);
	stderr = saved_stderr;
}

static void test_parse_forms(void **state)
{
	assert_int_equal(parse(""), 0);
	assert_int_equal(cf.nr, 0);
	assert_int_equal(parse("# only a comment\n\n   \n\t# indented comment\n"), 0);
	assert_int_equal(cf.nr, 0);
	assert_int_equal(parse("headroom_pct = 130\n"
			       "  deadband=8   # trailing comment\n"
			       "\trate_limit_us\t=\t3000\r\n"
			       "poll_max_us = 100"), 0);	/* no final newline */
	assert_int_equal(cf.nr, 4);
	assert_string_equal(cf.items[0].kv, "headroom_pct=130");
	assert_int_equal(cf.items[0].line, 1);
	assert_string_equal(cf.items[1].kv, "deadband=8");
	assert_string_equal(cf.items[2].kv, "rate_limit_us=3000");
	assert_string_equal(cf.items[3].kv, "poll_max_us=100");
	assert_int_equal(cf.items[3].line, 4);
	assert_string_equal(cf.profile, "");
	assert_int_equal(parse("profile = performance\n"), 0);
	assert_string_equal(cf.profile, "performance");
	assert_int_equal(cf.profile_line, 1);
	assert_int_equal(cf.nr, 0);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text;
		int err;
		const char *msg;
	} cases[] = {
		{ "headroom_pct 130\n", -EINVAL, "t.conf:1: expected 'key = value'" },
		{ "\n\nturbo = 1\n", -ENOENT, "t.conf:3: 'turbo': unknown tunable" },
		{ "headroom_pct = 5\n", -ERANGE, "t.conf:1: headroom_pct=5: out of range [100, 400] %" },
		{ "headroom_pct = 401\n", -ERANGE, "t.conf:1: headroom_pct=401: out of range [100, 400] %" },
		{ "deadband = lots\n", -EINVAL, "t.conf:1: deadband='lots': not a whole number" },
		{ "deadband = -1\n", -EINVAL, "t.conf:1: deadband='-1': not a whole number" },
		{ "deadband = 0x10\n", -EINVAL, "t.conf:1: deadband='0x10': not a whole number" },
		{ "deadband = 99999999999999999999999\n", -EINVAL,
		  "t.conf:1: deadband='99999999999999999999999': not a whole number" },
		{ "deadband =\n", -EINVAL, "t.conf:1: deadband: missing value" },
		{ "deadband = # nothing\n", -EINVAL, "t.conf:1: deadband: missing value" },
		{ " = 3\n", -EINVAL, "t.conf:1: missing key before '='" },
		{ "deadband = 3 4\n", -EINVAL, "t.conf:1: deadband: invalid character in value (0x20)" },
		{ "deadband = 3 = 4\n", -EINVAL, "t.conf:1: deadband: invalid character in value (0x20)" },
		{ "dead band = 3\n", -EINVAL, "t.conf:1: invalid character in key (0x20)" },
		{ "deadband = 3\ndeadband = 4\n", -EINVAL,
		  "t.conf:2: duplicate key 'deadband' (first set on line 1)" },
		{ "profile = turbo\n", -ENOENT,
		  "t.conf:1: profile 'turbo': expected powersave, balanced or performance" },
		{ "profile = balanced\nprofile = balanced\n", -EINVAL,
		  "t.conf:2: duplicate key 'profile' (first set on line 1)" },
		{ "nr_states = 11\n", -ERANGE, "t.conf:1: nr_states=11: out of range [1, 10]" },
		{ "deadband = 3\x01\n", -EINVAL, "t.conf:1: deadband: invalid character in value (0x01)" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = parse(cases[i].text);

		/* the message starts with the expected text */
		if (err != cases[i].err || strncmp(msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: got %d '%s', want %d '%s'", i, err, msg, cases[i].err,
				 cases[i].msg);
	}
	/* NUL bytes, overlong lines, oversized files */
	assert_int_equal(cfg_parse("deadband = 3\0\n", 15, "t.conf", &cf, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "t.conf:1: not a text line (NUL byte)");
	{
		char *big = malloc(CONFIG_MAX_SIZE + 2);

		assert_non_null(big);
		memset(big, '#', CONFIG_MAX_LINE + 5);
		big[CONFIG_MAX_LINE + 5] = '\0';
		assert_int_equal(parse(big), -EINVAL);
		assert_string_equal(msg, "t.conf:1: line longer than 1023 bytes");
		memset(big, '\n', CONFIG_MAX_SIZE + 1);
		assert_int_equal(cfg_parse(big, CONFIG_MAX_SIZE + 1, "t.conf", &cf, msg, sizeof(msg)),
				 -E2BIG);
		free(big);
	}
}

static void test_profiles(void **state)
{
	struct gov_config ps = {}, bal = {}, perf = {};
	const struct cfg_profile *p;
	char m[256];
	int i;

	/* every pair of every profile is valid */
	for (p = cfg_profiles; p->name; p++) {
		struct gov_config gc = {};

		bpfgov_config_defaults(&gc.cfg);
		assert_int_equal(cfg_profile_apply(&gc, p->name, m, sizeof(m)), 0);
		assert_string_equal(gc.profile, p->name);
		assert_int_equal(tunable_check(&gc.cfg, m, sizeof(m)), 0);
		for (i = 0; p->kv[i]; i++)
			assert_non_null(tunable_find(strtok(strdupa(p->kv[i]), "=")));
	}
	bpfgov_config_defaults(&ps.cfg);
	bpfgov_config_defaults(&bal.cfg);
	bpfgov_config_defaults(&perf.cfg);
	assert_int_equal(cfg_profile_apply(&ps, "powersave", m, sizeof(m)), 0);
	assert_int_equal(cfg_profile_apply(&bal, "balanced", m, sizeof(m)), 0);
	assert_int_equal(cfg_profile_apply(&perf, "performance", m, sizeof(m)), 0);
	/* balanced is the defaults */
	{
		struct bpfgov_config d;

		bpfgov_config_defaults(&d);
		assert_memory_equal(&d, &bal.cfg, sizeof(d));
	}
	/* coherent: each knob moves the same way from powersave to performance */
	assert_true(get(&ps.cfg, "headroom_pct") < get(&bal.cfg, "headroom_pct"));
	assert_true(get(&bal.cfg, "headroom_pct") < get(&perf.cfg, "headroom_pct"));
	assert_true(get(&ps.cfg, "gap_hold_us") < get(&bal.cfg, "gap_hold_us"));
	assert_true(get(&bal.cfg, "gap_hold_us") < get(&perf.cfg, "gap_hold_us"));
	assert_true(get(&ps.cfg, "gap_keep_permille") < get(&perf.cfg, "gap_keep_permille"));
	assert_true(get(&ps.cfg, "rate_limit_us") > get(&perf.cfg, "rate_limit_us"));
	assert_true(get(&ps.cfg, "payback_pct") < get(&bal.cfg, "payback_pct"));
	assert_true(get(&bal.cfg, "payback_pct") < get(&perf.cfg, "payback_pct"));
	assert_true(get(&ps.cfg, "poll_max_us") < get(&perf.cfg, "poll_max_us"));
	assert_int_equal(origin(&perf, "headroom_pct"), ORIGIN_PROFILE);
	assert_int_equal(origin(&perf, "floor_min"), ORIGIN_DEFAULT);
	assert_int_equal(cfg_profile_apply(&ps, "turbo", m, sizeof(m)), -ENOENT);
	assert_null(cfg_profile_find("turbo"));
	assert_null(cfg_profile_find(NULL));
}

static const char *write_conf(const char *name, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0644);
	return path;
}

static void test_precedence(void **state)
{
	struct start_opts o;
	struct gov_config gc;
	struct bpfgov_config base;
	const char *path;

	path = write_conf("p.conf", "profile = powersave\nheadroom_pct = 130\nrate_limit_us = 3000\n");
	memset(&o, 0, sizeof(o));
	o.config_path = path;
	o.sets[o.nr_sets++] = "rate_limit_us=2500";
	bpfgov_config_defaults(&base);
	base.nr_states = 4;		/* what the machine reported */
	assert_int_equal(cfg_build(&gc, &o, &base, msg, sizeof(msg)), 0);
	assert_string_equal(gc.profile, "powersave");
	assert_string_equal(gc.file, path);
	assert_int_equal(get(&gc.cfg, "nr_states"), 4);
	assert_int_equal(origin(&gc, "nr_states"), ORIGIN_MACHINE);
	assert_int_equal(get(&gc.cfg, "gap_hold_us"), 500);
	assert_int_equal(origin(&gc, "gap_hold_us"), ORIGIN_PROFILE);
	assert_int_equal(get(&gc.cfg, "headroom_pct"), 130);
	assert_int_equal(origin(&gc, "headroom_pct"), ORIGIN_FILE);
	assert_int_equal(get(&gc.cfg, "rate_limit_us"), 2500);
	assert_int_equal(origin(&gc, "rate_limit_us"), ORIGIN_CMDLINE);
	assert_int_equal(get(&gc.cfg, "floor_max"), 1024);
	assert_int_equal(origin(&gc, "floor_max"), ORIGIN_DEFAULT);

	/* --profile beats the file's profile, the file still beats both */
	o.profile = "performance";
	assert_int_equal(cfg_build(&gc, &o, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(gc.profile, "performance");
	assert_int_equal(get(&gc.cfg, "gap_hold_us"), 3000);
	assert_int_equal(get(&gc.cfg, "headroom_pct"), 130);

	/* errors name the source */
	o.sets[o.nr_sets++] = "headroom_pct=1";
	assert_int_equal(cfg_build(&gc, &o, NULL, msg, sizeof(msg)), -ERANGE);
	assert_string_equal(msg, "--set headroom_pct=1: out of range [100, 400] %");
	o.nr_sets = 0;
	o.config_path = write_conf("x.conf", "floor_min = 900\nfloor_max = 100\n");
	assert_int_equal(cfg_build(&gc, &o, NULL, msg, sizeof(msg)), -ERANGE);
	assert_string_equal(msg, "floor_min=900 is above floor_max=100");
	o.config_path = write_conf("y.conf", "\nwhat\n");
	assert_int_equal(cfg_build(&gc, &o, NULL, msg, sizeof(msg)), -EINVAL);
	assert_true(strstr(msg, "y.conf:2: expected 'key = value'") != NULL);
	/* an explicit --config must exist */
	snprintf(msg, sizeof(msg), "%s/none.conf", tmpdir);
	o.config_path = strdupa(msg);
	assert_int_equal(cfg_build(&gc, &o, NULL, msg, sizeof(msg)), -ENOENT);
	assert_true(strstr(msg, "none.conf: cannot open: No such file") != NULL);
}

static void test_load_file_checks(void **state)
{
	char link[PATH_MAX];
	const char *path = write_conf("ok.conf", "deadband = 3\n");

	assert_int_equal(cfg_load_file(path, false, &cf, msg, sizeof(msg)), 0);
	assert_int_equal(cf.nr, 1);
	snprintf(link, sizeof(link), "%s/link.conf", tmpdir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(cfg_load_file(link, false, &cf, msg, sizeof(msg)), -ELOOP);
	assert_true(strstr(msg, "is a symbolic link") != NULL);
	assert_int_equal(cfg_load_file(tmpdir, false, &cf, msg, sizeof(msg)), -EINVAL);
	assert_true(strstr(msg, "not a regular file") != NULL);
	if (geteuid() == 0) {
		chmod(path, 0666);
		assert_int_equal(cfg_load_file(path, false, &cf, msg, sizeof(msg)), -EPERM);
		assert_true(strstr(msg, "not writable by group or others (mode 0666") != NULL);
	}
	snprintf(link, sizeof(link), "%s/absent.conf", tmpdir);
	assert_int_equal(cfg_load_file(link, true, &cf, msg, sizeof(msg)), -ENOENT);
}

static void test_start_args(void **state)
{
	char *ok[] = { "start", "--config", "/x.conf", "--profile", "powersave", "--set",
		       "deadband=3", "--set", "hold_ms=5", "--dry-run", "--duration", "2.5",
		       "--mode", "trace", NULL };
	char *bad_prof[] = { "start", "--profile", "turbo", NULL };
	char *bad_opt[] = { "start", "--turbo", NULL };
	char *no_val[] = { "start", "--config", NULL };
	char *stray[] = { "start", "now", NULL };
	char *empty_cfg[] = { "start", "--config", "", NULL };
	struct start_opts o;
	int i;

	quiet();
	assert_int_equal(start_parse_args(14, ok, &o), 0);
	assert_string_equal(o.config_path, "/x.conf");
	assert_string_equal(o.profile, "powersave");
	assert_int_equal(o.nr_sets, 2);
	assert_string_equal(o.sets[1], "hold_ms=5");
	assert_true(o.dry_run);
	assert_true(o.duration == 2.5);
	assert_int_equal(o.mode, BPFGOV_MODE_TRACE);
	assert_string_equal(o.pin_root, "/sys/fs/bpf/bpfgov");
	/* re-entrant: a second parse starts from scratch */
	assert_int_equal(start_parse_args(3, bad_prof, &o), -EINVAL);
	assert_int_equal(start_parse_args(2, bad_opt, &o), -EINVAL);
	assert_int_equal(start_parse_args(2, no_val, &o), -EINVAL);
	assert_int_equal(start_parse_args(2, stray, &o), -EINVAL);
	assert_int_equal(start_parse_args(3, empty_cfg, &o), -EINVAL);
	/* too many --set */
	{
		char *many[2 + 2 * (CONFIG_MAX_ITEMS + 1)];
		int n = 0;

		many[n++] = "start";
		for (i = 0; i <= CONFIG_MAX_ITEMS; i++) {
			many[n++] = "--set";
			many[n++] = "deadband=1";
		}
		many[n] = NULL;
		assert_int_equal(start_parse_args(n, many, &o), -EINVAL);
	}
	loud();
	assert_int_equal(start_parse_args(14, ok, &o), 0);	/* still works */
	log_level = LOG_INFO;
}

static void test_origins_file(void **state)
{
	struct gov_config a = {}, b = {};
	char path[PATH_MAX];
	struct stat st;

	bpfgov_config_defaults(&a.cfg);
	snprintf(a.profile, sizeof(a.profile), "performance");
	snprintf(a.file, sizeof(a.file), "/etc/with space.conf");
	a.origin[0] = ORIGIN_FILE;
	a.origin[3] = ORIGIN_SET;
	a.origin[13] = ORIGIN_MACHINE;
	a.origin[5] = ORIGIN_PROFILE;
	a.origin[6] = ORIGIN_PPD;
	a.origin[7] = ORIGIN_CMDLINE;
	a.cfg.headroom_pct = 150;	/* the values travel with the origins */
	assert_int_equal(cfg_origins_write(tmpdir, &a), 0);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, GOV_ORIGINS_FILE);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(cfg_origins_read(tmpdir, &b), 0);
	assert_string_equal(b.profile, "performance");
	assert_string_equal(b.file, "/etc/with space.conf");
	assert_memory_equal(a.origin, b.origin, sizeof(a.origin));
	for (size_t i = 0; i < tunable_count; i++)
		assert_int_equal(tunable_get(&a.cfg, &tunable_table[i]),
				 tunable_get(&b.cfg, &tunable_table[i]));
	cfg_origins_remove(tmpdir);
	assert_int_equal(cfg_origins_read(tmpdir, &b), -ENOENT);
	assert_string_equal(cfg_origin_name(ORIGIN_SET), "set");
	assert_string_equal(cfg_origin_name(ORIGIN_CMDLINE), "cmdline");
	assert_string_equal(cfg_origin_name(ORIGIN_PPD), "ppd");
	assert_int_equal(cfg_origin_parse("machine"), ORIGIN_MACHINE);
	assert_int_equal(cfg_origin_parse("bogus"), -EINVAL);
}

/* A tunables map as the programs' .data.tunables: one array element. */
static int tunables_map(void)
{
	return bpf_map_create(BPF_MAP_TYPE_ARRAY, "tunables", sizeof(__u32),
			      sizeof(struct bpfgov_config), 1, NULL);
}

static void built(struct gov_config *gc, const char *profile)
{
	memset(gc, 0, sizeof(*gc));
	bpfgov_config_defaults(&gc->cfg);
	assert_int_equal(cfg_profile_apply(gc, profile, msg, sizeof(msg)), 0);
}

static void map_get(int fd, struct bpfgov_config *c)
{
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(fd, &zero, c), 0);
}

/* start, govloader set, a profile switch and a scheduler reload, all
 * through cfg_tunables_write: a `set` key survives what does not set it. */
static void test_tunables_write(void **state)
{
	const char *const sets[] = { "deadband=8", "headroom_pct=140" };
	const char *const bad[] = { "floor_min=900", "floor_max=800" };
	const char *const again[] = { "headroom_pct=150" };
	struct cfg_write w = {};
	struct gov_config gc, file = {};
	struct bpfgov_config m;
	int fd = tunables_map(), fd2;

	if (fd < 0) {
		print_message("skip: cannot create a BPF map (%s): needs CAP_BPF\n",
			      strerror(errno));
		skip();
	}
	/* start: as built */
	built(&gc, "balanced");
	w.how = CFG_WRITE_START;
	assert_int_equal(cfg_tunables_write(tmpdir, fd, &gc, &w, msg, sizeof(msg)), 0);
	map_get(fd, &m);
	assert_int_equal(get(&m, "headroom_pct"), 125);

	/* govloader set */
	w = (struct cfg_write){ .how = CFG_WRITE_SET, .kv = sets, .nr_kv = 2 };
	assert_int_equal(cfg_tunables_write(tmpdir, fd, &gc, &w, msg, sizeof(msg)), 0);
	assert_int_equal(get(&w.before, "headroom_pct"), 125);
	map_get(fd, &m);
	assert_int_equal(get(&m, "deadband"), 8);
	assert_int_equal(get(&m, "headroom_pct"), 140);
	assert_int_equal(cfg_origins_read(tmpdir, &file), 0);
	assert_int_equal(origin(&file, "deadband"), ORIGIN_SET);
	assert_string_equal(file.profile, "balanced");

	/* a bad set changes nothing */
	w = (struct cfg_write){ .how = CFG_WRITE_SET, .kv = bad, .nr_kv = 2 };
	assert_int_equal(cfg_tunables_write(tmpdir, fd, &gc, &w, msg, sizeof(msg)), -ERANGE);
	map_get(fd, &m);
	assert_int_equal(get(&m, "floor_min"), 0);

	/* PPD switches to performance: deadband stays set, headroom_pct is
	 * the profile's (the daemon's copy never saw the set) */
	built(&gc, "performance");
	w = (struct cfg_write){ .how = CFG_WRITE_PROFILE };
	assert_int_equal(cfg_tunables_write(tmpdir, fd, &gc, &w, msg, sizeof(msg)), 0);
	map_get(fd, &m);
	assert_int_equal(get(&m, "deadband"), 8);
	assert_int_equal(origin(&gc, "deadband"), ORIGIN_SET);
	assert_int_equal(get(&m, "headroom_pct"), 160);
	assert_int_equal(origin(&gc, "headroom_pct"), ORIGIN_PROFILE);

	/* set headroom_pct again, then a scheduler reload on a new map:
	 * every set value is kept, the profile's key too */
	w = (struct cfg_write){ .how = CFG_WRITE_SET, .kv = again, .nr_kv = 1 };
	assert_int_equal(cfg_tunables_write(tmpdir, fd, &gc, &w, msg, sizeof(msg)), 0);
	fd2 = tunables_map();
	assert_true(fd2 >= 0);
	built(&gc, "performance");
	w = (struct cfg_write){ .how = CFG_WRITE_KEEP };
	assert_int_equal(cfg_tunables_write(tmpdir, fd2, &gc, &w, msg, sizeof(msg)), 0);
	map_get(fd2, &m);
	assert_int_equal(get(&m, "deadband"), 8);
	assert_int_equal(get(&m, "headroom_pct"), 150);
	assert_int_equal(origin(&gc, "headroom_pct"), ORIGIN_SET);
	assert_int_equal(get(&m, "gap_hold_us"), 3000);

	/* a new start keeps nothing */
	built(&gc, "balanced");
	w = (struct cfg_write){ .how = CFG_WRITE_START };
	assert_int_equal(cfg_tunables_write(tmpdir, fd2, &gc, &w, msg, sizeof(msg)), 0);
	map_get(fd2, &m);
	assert_int_equal(get(&m, "deadband"), 16);
	cfg_origins_remove(tmpdir);
	close(fd2);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_load_file_checks),
		cmocka_unit_test(test_start_args),
		cmocka_unit_test(test_origins_file),
		cmocka_unit_test(test_tunables_write),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
