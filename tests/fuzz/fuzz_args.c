// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the argument parser of `govloader start`
 * (user/daemon/start_opts.c start_parse_args), called exactly as main() calls it but
 * without starting anything. The input is split at NUL bytes into at most
 * 64 arguments after "start". Checks: a success leaves consistent options
 * (every --set counted and kept, pointers into argv).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "log.h"

#define MAX_ARGS	64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* pr_warn and --help go through stdio: silence them (sanitizer
	 * reports are written to fd 2 directly and stay visible). */
	stderr = fopen("/dev/null", "w");
	stdout = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS + 2];
	struct start_opts o;
	size_t i, start = 0;
	int argc = 0, err;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "start";
	for (i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	err = start_parse_args(argc, argv, &o);
	log_level = LOG_INFO;
	if (err == 0) {
		if (o.nr_sets < 0 || o.nr_sets > CONFIG_MAX_ITEMS)
			abort();
		for (i = 0; i < (size_t)o.nr_sets; i++)
			if (!o.sets[i] || o.sets[i] < buf || o.sets[i] > buf + size)
				abort();
		if (!o.pin_root || !o.msr_root || !o.sysfs_root)
			abort();
		if (o.profile && !cfg_profile_find(o.profile))
			abort();
	} else if (err != 1 && err != -EINVAL) {
		abort();
	}
	free(buf);
	return 0;
}
