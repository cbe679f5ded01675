// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/platform.c and user/measure.c, with the backend plan
 * (actuate.c) for each platform mode (who owns the request register,
 * lockdown, allow_writes), refused forced MSR backends, taint letters, and
 * the RAPL energy counter's wrap-around.
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

#include "actuate.h"
#include "measure.h"
#include "platform.h"

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
	assert_true(energy_delta(100, 350, 1000) == 250);
	assert_true(energy_delta(900, 100, 1000) == 200);	/* wrapped past max */
	assert_true(energy_delta(1000, 0, 1000) == 0);
	assert_true(energy_delta(5, 5, 1000) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_modes),
		cmocka_unit_test(test_plan_forced),
		cmocka_unit_test(test_taint_letters),
		cmocka_unit_test(test_energy_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
