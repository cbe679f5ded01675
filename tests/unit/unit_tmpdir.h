/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A private mkdtemp directory for one cmocka group: `tmpdir`, made by
 * tmpdir_setup() and removed with all it holds by tmpdir_teardown()
 * (pass both to cmocka_run_group_tests()).
 */
#ifndef __BPFGOV_UNIT_TMPDIR_H
#define __BPFGOV_UNIT_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char tmpdir[64];

static int tmpdir_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bpfgov-unit-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int tmpdir_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif /* __BPFGOV_UNIT_TMPDIR_H */
