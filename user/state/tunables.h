/* SPDX-License-Identifier: GPL-2.0 */
/* Validate and set tunables by name (the X-macro in bpfgov_tunables.h). */
#ifndef __BPFGOV_USER_TUNABLES_H
#define __BPFGOV_USER_TUNABLES_H

#ifdef __BPF__
#error "user/state/tunables.h is for user space only"
#endif

#include <linux/types.h>
#include <stddef.h>
#include "bpfgov.h"

struct tunable_info {
	const char *name;
	size_t offset;		/* of the __u32 in struct bpfgov_config */
	__u32 def, min, max;
	const char *unit;
	const char *help;
};

extern const struct tunable_info tunable_table[];
extern const size_t tunable_count;

const struct tunable_info *tunable_find(const char *name);
/* Parse "key=value" into @c. On error returns -EINVAL/-ERANGE/-ENOENT and
 * writes one line (without newline) to @msg. */
int tunable_set_kv(struct bpfgov_config *c, const char *kv, char *msg, size_t len);
__u32 tunable_get(const struct bpfgov_config *c, const struct tunable_info *t);
/* Cross-field checks (floor_min <= floor_max, ...); same error style. */
int tunable_check(const struct bpfgov_config *c, char *msg, size_t len);

#endif
