// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "bpfgov.h"
#include "bpfgov_tunables.h"
#include "common.h"
#include "tunables.h"

const struct tunable_info tunable_table[] = {
#define __T(n, d, lo, hi, u, h) \
	{ #n, offsetof(struct bpfgov_config, n), (d), (lo), (hi), (u), (h) },
	BPFGOV_TUNABLES(__T)
#undef __T
};
const size_t tunable_count = sizeof(tunable_table) / sizeof(tunable_table[0]);

const struct tunable_info *tunable_find(const char *name)
{
	size_t i;

	for (i = 0; i < tunable_count; i++)
		if (!strcmp(tunable_table[i].name, name))
			return &tunable_table[i];
	return NULL;
}

__u32 tunable_get(const struct bpfgov_config *c, const struct tunable_info *t)
{
	__u32 v;

	memcpy(&v, (const char *)c + t->offset, sizeof(v));
	return v;
}

int tunable_set_kv(struct bpfgov_config *c, const char *kv, char *msg, size_t len)
{
	const struct tunable_info *t;
	char key[64];
	const char *eq = strchr(kv, '=');
	size_t klen;
	__u32 v;
	int err;

	if (!eq || eq == kv) {
		snprintf(msg, len, "'%s': expected KEY=VALUE", kv);
		return -EINVAL;
	}
	klen = (size_t)(eq - kv);
	if (klen >= sizeof(key)) {
		snprintf(msg, len, "'%.*s...': unknown tunable", 32, kv);
		return -ENOENT;
	}
	memcpy(key, kv, klen);
	key[klen] = '\0';
	t = tunable_find(key);
	if (!t) {
		snprintf(msg, len, "'%s': unknown tunable (see 'govloader status' or README)", key);
		return -ENOENT;
	}
	err = parse_u32(eq + 1, t->min, t->max, &v);
	if (err == -EINVAL) {
		snprintf(msg, len, "%s='%s': not a whole number", key, eq + 1);
		return err;
	}
	if (err) {
		snprintf(msg, len, "%s=%s: out of range [%u, %u]%s%s", key, eq + 1,
			 t->min, t->max, *t->unit ? " " : "", t->unit);
		return err;
	}
	memcpy((char *)c + t->offset, &v, sizeof(v));
	return 0;
}

int tunable_check(const struct bpfgov_config *c, char *msg, size_t len)
{
	if (c->floor_min > c->floor_max) {
		snprintf(msg, len, "floor_min=%u is above floor_max=%u", c->floor_min, c->floor_max);
		return -ERANGE;
	}
	return 0;
}
