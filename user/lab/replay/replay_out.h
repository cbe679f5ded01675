/* SPDX-License-Identifier: GPL-2.0 */
/* What `govlab replay` prints (replay_out.c), from a replay_result. */
#ifndef __BPFGOV_REPLAY_OUT_H
#define __BPFGOV_REPLAY_OUT_H

#include <stdio.h>
#include "replay_result.h"
#include "trace.h"

/* The table, or one JSON object on one line. */
void replay_print_table(FILE *out, const char *file, const struct trace *t,
			const struct replay_opts *o, const struct replay_result *r);
void replay_print_json(FILE *out, const char *file, const struct trace *t,
		       const struct replay_opts *o, const struct replay_result *r);

#endif /* __BPFGOV_REPLAY_OUT_H */
