// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/platform/topo.c: the CPU -> last-level cache map read from a
 * stand-in sysfs tree (two sockets, one LLC each; no cache information;
 * more domains than the scheduler keeps).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "topo.h"
#include "unit_tmpdir.h"

static void put(const char *root, unsigned int cpu, int index, const char *file, const char *val)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "d=%s/devices/system/cpu/cpu%u/cache/index%d && mkdir -p $d && echo '%s' > $d/%s",
		 root, cpu, index, val, file);
	assert_int_equal(system(cmd), 0);
}

/* CPU @cpu: L1 (private), L2 (private), L3 shared as @l3. */
static void cpu_caches(const char *root, unsigned int cpu, const char *l3)
{
	char own[16];

	snprintf(own, sizeof(own), "%u", cpu);
	put(root, cpu, 0, "level", "1");
	put(root, cpu, 0, "shared_cpu_list", own);
	put(root, cpu, 2, "level", "2");
	put(root, cpu, 2, "shared_cpu_list", own);
	put(root, cpu, 3, "level", "3");
	put(root, cpu, 3, "shared_cpu_list", l3);
}

static void test_two_sockets(void **state)
{
	char root[128];
	__u32 llc[8];

	(void)state;
	snprintf(root, sizeof(root), "%s/two", tmpdir);
	for (unsigned int c = 0; c < 8; c++)
		cpu_caches(root, c, c < 4 ? "0-3" : "4-7");
	assert_int_equal(topo_llc_map(root, 8, llc, 64), 2);
	for (unsigned int c = 0; c < 8; c++)
		assert_int_equal(llc[c], c < 4 ? 0 : 1);
}

static void test_interleaved(void **state)
{
	char root[128];
	__u32 llc[4];

	(void)state;
	/* Domains numbered in the order of their first CPU: 0,2 and 1,3. */
	snprintf(root, sizeof(root), "%s/inter", tmpdir);
	for (unsigned int c = 0; c < 4; c++)
		cpu_caches(root, c, c % 2 ? "1,3" : "0,2");
	assert_int_equal(topo_llc_map(root, 4, llc, 64), 2);
	assert_int_equal(llc[0], 0);
	assert_int_equal(llc[1], 1);
	assert_int_equal(llc[2], 0);
	assert_int_equal(llc[3], 1);
}

static void test_no_info(void **state)
{
	char root[128];
	__u32 llc[4] = { 7, 7, 7, 7 };

	(void)state;
	snprintf(root, sizeof(root), "%s/none", tmpdir);
	assert_int_equal(topo_llc_map(root, 4, llc, 64), 1);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(llc[c], 0);
}

static void test_folded(void **state)
{
	char root[128], l3[8];
	__u32 llc[6];

	(void)state;
	/* Six private LLCs, at most four kept: 0 1 2 3 0 1. */
	snprintf(root, sizeof(root), "%s/fold", tmpdir);
	for (unsigned int c = 0; c < 6; c++) {
		snprintf(l3, sizeof(l3), "%u", c);
		cpu_caches(root, c, l3);
	}
	assert_int_equal(topo_llc_map(root, 6, llc, 4), 4);
	for (unsigned int c = 0; c < 6; c++)
		assert_int_equal(llc[c], c % 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sockets),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_no_info),
		cmocka_unit_test(test_folded),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
