// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the config file parser (user/state/config.c cfg_parse).
 * Besides the sanitizers, it checks what the parser promises: an error
 * comes with one line naming the file and line; a success yields items that
 * the tunables table accepts again, in line order, and a known profile.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bpfgov_tunables.h"
#include "config.h"
#include "tunables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cfg_file cf;
	struct bpfgov_config c;
	char msg[512], m2[512];
	int err, i;

	err = cfg_parse((const char *)data, size, "f.conf", &cf, msg, sizeof(msg));
	if (err) {
		if (strncmp(msg, "f.conf:", 7) || strchr(msg, '\n'))
			abort();	/* an error names the file, in one line */
		return 0;
	}
	if (cf.profile[0] && !cfg_profile_find(cf.profile))
		abort();
	bpfgov_config_defaults(&c);
	for (i = 0; i < cf.nr; i++) {
		if (tunable_set_kv(&c, cf.items[i].kv, m2, sizeof(m2)))
			abort();	/* accepted once, accepted again */
		if (i && cf.items[i].line <= cf.items[i - 1].line)
			abort();
	}
	return 0;
}
