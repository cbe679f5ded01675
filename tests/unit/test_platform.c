// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/platform/platform.c and user/lab/measure.c, with the backend plan
 * (actuate.c) for each platform mode (who owns the request register,
 * lockdown, allow_writes), refused forced MSR backends, taint letters, and
 * the RAPL energy counters: wrap-around, and a stand-in powercap tree.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actuate.h"
#include "bpfgov_tunables.h"
#include "common.h"
#include "measure.h"
#include "platform.h"
#include "unit_tmpdir.h"

static struct platform plat(const char *vendor, const char *drv, const char *mode)
{
	struct platform p;

	memset(&p, 0, sizeof(p));
	snprintf(p.vendor, sizeof(p.vendor), "%s", vendor);
	snprintf(p.cpufreq_driver, sizeof(p.cpufreq_driver), "%s", drv);
	snprintf(p.pstate_mode, sizeof(p.pstate_mode), "%s", mode);
	snprintf(p.lockdown, sizeof(p.lockdown), "none");
	snprintf(p.allow_writes, sizeof(p.allow_writes), "default");
	p.msr_driver = true;
	return p;
}

static void plan(const struct platform *p, enum act_backend want, int rc,
		 enum act_backend first, const char *reason)
{
	enum act_backend order[4];
	char why[320];

	assert_int_equal(act_backend_plan(p, want, order, why, sizeof(why)), rc);
	if (!rc)
		assert_int_equal(order[0], first);
	if (!strstr(why, reason))
		fail_msg("reason '%s' lacks '%s'", why, reason);
}

static void test_plan_modes(void **state)
{
	struct platform p;

	p = plat("GenuineIntel", "intel_pstate", "active");
	plan(&p, ACT_AUTO, 0, ACT_INTEL_HWP, "intel_pstate active mode");
	p = plat("GenuineIntel", "intel_cpufreq", "passive");
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "passive mode rewrites HWP_REQUEST.min");
	p = plat("AuthenticAMD", "amd-pstate-epp", "active");
	plan(&p, ACT_AUTO, 0, ACT_AMD_CPPC, "amd-pstate active mode");
	p = plat("AuthenticAMD", "amd-pstate", "guided");
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "guided mode rewrites CPPC_REQ.min");
	p = plat("AuthenticAMD", "amd-pstate", "passive");
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "passive mode rewrites CPPC_REQ.min");
	p = plat("GenuineIntel", "acpi-cpufreq", "");
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "acpi-cpufreq owns");
	p = plat("GenuineIntel", "none", "");
	plan(&p, ACT_AUTO, 0, ACT_INTEL_HWP, "no cpufreq driver");
	p.msr_driver = false;
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "modprobe msr");
	/* intel_pstate's dynamic boost moves the min field itself */
	p = plat("GenuineIntel", "intel_pstate", "active");
	p.hwp_dynamic_boost = true;
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "hwp_dynamic_boost raises HWP_REQUEST.min");
	plan(&p, ACT_INTEL_HWP, -EPERM, ACT_NONE,
	     "--backend intel-hwp refused: intel_pstate hwp_dynamic_boost");
	p = plat("GenuineIntel", "intel_pstate", "active");
	snprintf(p.lockdown, sizeof(p.lockdown), "integrity");
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "lockdown [integrity]");
	p = plat("GenuineIntel", "intel_pstate", "active");
	snprintf(p.allow_writes, sizeof(p.allow_writes), "off");
	plan(&p, ACT_AUTO, 0, ACT_CPUFREQ, "allow_writes=off");
}

static void test_plan_forced(void **state)
{
	struct platform p = plat("GenuineIntel", "intel_cpufreq", "passive");

	plan(&p, ACT_INTEL_HWP, -EPERM, ACT_NONE, "--backend intel-hwp refused: intel_pstate passive");
	plan(&p, ACT_CPUFREQ, 0, ACT_CPUFREQ, "forced");
	p = plat("GenuineIntel", "intel_pstate", "active");
	snprintf(p.lockdown, sizeof(p.lockdown), "confidentiality");
	plan(&p, ACT_AMD_CPPC, -EPERM, ACT_NONE, "lockdown [confidentiality]");
	p = plat("GenuineIntel", "intel_pstate", "active");
	plan(&p, ACT_INTEL_HWP, 0, ACT_INTEL_HWP, "forced");
}

static void test_taint_letters(void **state)
{
	char buf[32];

	plat_taint_letters(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	plat_taint_letters(1UL << PLAT_TAINT_CPU_OUT_OF_SPEC, buf, sizeof(buf));
	assert_string_equal(buf, "S");
	plat_taint_letters((1UL << 0) | (1UL << 9) | (1UL << 12), buf, sizeof(buf));
	assert_string_equal(buf, "PWO");
}

static void test_energy_wrap(void **state)
{
	const __u64 range = 262143328850ull;	/* a real package's max_energy_range_uj */

	(void)state;
	assert_true(energy_delta(100, 350, 1000) == 250);
	assert_true(energy_delta(900, 100, 1000) == 200);	/* wrapped past max */
	assert_true(energy_delta(1000, 0, 1000) == 0);
	assert_true(energy_delta(5, 5, 1000) == 0);
	assert_true(energy_delta(999, 0, 1000) == 1);		/* the last step before 0 */
	assert_true(energy_delta(range - 1000, 500, range) == 1500);
	assert_true(energy_delta(range - 1, range - 1, range) == 0);
	/* Unknown range (max_energy_range_uj unreadable): count from 0. */
	assert_true(energy_delta(900, 100, 0) == 100);
	/* A previous reading past the range (a range that shrank): from 0. */
	assert_true(energy_delta(5000, 100, 1000) == 100);
}

static void put(const char *dir, const char *file, const char *val)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
}

static char *zone(const char *root, const char *name, const char *dname, const char *max,
		  const char *uj)
{
	static char dir[4][512];
	static int n;
	char *d = dir[n++ % 4];

	snprintf(d, sizeof(dir[0]), "%s/class/powercap/%s", root, name);
	assert_int_equal(mkdir(d, 0755), 0);
	if (dname)
		put(d, "name", dname);
	if (max)
		put(d, "max_energy_range_uj", max);
	if (uj)
		put(d, "energy_uj", uj);
	return d;
}

/* energy_open/energy_update through a stand-in powercap tree (sysfs only,
 * no MSR): the package and core counters wrap, twice for the package
 * between reads, and are summed across packages; control types and
 * intel-rapl-mmio (the same package again) are not counted. */
static void test_energy_tree(void **state)
{
	struct plat_roots r = { .sysfs_root = tmpdir, .proc_root = tmpdir, .msr_root = tmpdir };
	char path[512];
	struct energy_src e;
	char *p0, *c0, *p1;

	(void)state;
	assert_int_equal(energy_open(&e, &r), 0);
	assert_int_equal(e.nr, 0);
	assert_non_null(strstr(e.why, "no powercap"));
	assert_null(energy_main(&e));

	snprintf(path, sizeof(path), "%s/class", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/class/powercap", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(energy_open(&e, &r), 0);
	assert_int_equal(e.nr, 0);
	assert_non_null(strstr(e.why, "no readable intel-rapl"));

	zone(tmpdir, "intel-rapl", NULL, NULL, NULL);			/* control type */
	zone(tmpdir, "intel-rapl-mmio:0", "package-0", "1000", "10");	/* same package */
	p0 = zone(tmpdir, "intel-rapl:0", "package-0", "1000", "900");
	c0 = zone(tmpdir, "intel-rapl:0:0", "core", "2000", "1990");
	p1 = zone(tmpdir, "intel-rapl:1", "package-1", "1000", "0");
	assert_int_equal(energy_open(&e, &r), 0);
	assert_int_equal(e.nr, 3);
	assert_string_equal(energy_main(&e), "package");
	assert_int_equal(energy_total(&e, "package"), 0);
	assert_int_equal(energy_total(&e, "dram"), -1);

	put(p0, "energy_uj", "100");	/* 900 -> 1000 = 0 -> 100: 200 */
	put(c0, "energy_uj", "5");	/* 1990 -> 2000 = 0 -> 5: 15 */
	put(p1, "energy_uj", "300");
	energy_update(&e);
	assert_int_equal(energy_total(&e, "package"), 200 + 300);
	assert_int_equal(energy_total(&e, "package-0"), 200);
	assert_int_equal(energy_total(&e, "core"), 15);
	put(p0, "energy_uj", "999");
	energy_update(&e);
	put(p0, "energy_uj", "0");	/* one step: 999 -> 0 */
	energy_update(&e);
	put(p0, "energy_uj", "50");
	energy_update(&e);
	assert_int_equal(energy_total(&e, "package-0"), 200 + 899 + 1 + 50);
	assert_int_equal(energy_total(&e, "package"), 1150 + 300);
	for (int i = 0; i < e.nr; i++)
		if (!strcmp(e.dom[i].name, "package-0"))
			assert_int_equal(e.dom[i].wraps, 2);
		else if (!strcmp(e.dom[i].name, "core"))
			assert_int_equal(e.dom[i].wraps, 1);
		else
			assert_int_equal(e.dom[i].wraps, 0);
	/* An unreadable counter keeps its total; the others go on. */
	snprintf(path, sizeof(path), "%s/energy_uj", c0);
	assert_int_equal(unlink(path), 0);
	put(p1, "energy_uj", "400");
	energy_update(&e);
	assert_int_equal(energy_total(&e, "core"), 15);
	assert_int_equal(energy_total(&e, "package-1"), 400);
}

/* A stand-in cpu0/cpuidle of @n states under @root (made fresh): state k
 * named C<k> (state0 POLL), exit latency k*10 us, residency k*20 us. */
static void idle_tree(const char *root, int n)
{
	char d[512], cmd[600], v[32];

	snprintf(d, sizeof(d), "rm -rf '%s/devices'", root);
	assert_int_equal(system(d), 0);
	snprintf(d, sizeof(d), "mkdir -p '%s/devices/system/cpu/cpuidle'", root);
	assert_int_equal(system(d), 0);
	snprintf(d, sizeof(d), "%s/devices/system/cpu/cpuidle", root);
	put(d, "current_driver", "intel_idle");
	for (int k = 0; k < n; k++) {
		snprintf(d, sizeof(d), "%s/devices/system/cpu/cpu0/cpuidle/state%d", root, k);
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", d);
		assert_int_equal(system(cmd), 0);
		snprintf(v, sizeof(v), k ? "C%d" : "POLL", k);
		put(d, "name", v);
		snprintf(v, sizeof(v), "%d", k * 10);
		put(d, "latency", v);
		snprintf(v, sizeof(v), "%d", k * 20);
		put(d, "residency", v);
	}
}

/* sys_idle_table reads every table the kernel can register (up to
 * CPUIDLE_STATE_MAX, 10 states: the ninth and tenth included) and refuses
 * a longer one whole, never cutting it. */
static void test_idle_table_lengths(void **state)
{
	struct bpfgov_config c;
	char drv[64];

	(void)state;
	idle_tree(tmpdir, 9);
	bpfgov_config_defaults(&c);
	assert_int_equal(sys_idle_table(tmpdir, &c, drv, sizeof(drv)), 0);
	assert_string_equal(drv, "intel_idle");
	assert_int_equal(c.nr_states, 9);
	assert_int_equal(c.state_exit_latency_us[8], 80);
	assert_int_equal(c.state_residency_us[8], 160);
	assert_int_equal(c.state_is_poll[8], 0);
	assert_int_equal(c.state_is_poll[0], 1);
	idle_tree(tmpdir, 10);
	bpfgov_config_defaults(&c);
	assert_int_equal(sys_idle_table(tmpdir, &c, drv, sizeof(drv)), 0);
	assert_int_equal(c.nr_states, 10);
	assert_int_equal(c.state_residency_us[9], 180);
	idle_tree(tmpdir, 11);
	bpfgov_config_defaults(&c);
	assert_int_equal(sys_idle_table(tmpdir, &c, drv, sizeof(drv)), -E2BIG);
	idle_tree(tmpdir, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_modes),
		cmocka_unit_test(test_plan_forced),
		cmocka_unit_test(test_taint_letters),
		cmocka_unit_test(test_energy_wrap),
		cmocka_unit_test(test_energy_tree),
		cmocka_unit_test(test_idle_table_lengths),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
