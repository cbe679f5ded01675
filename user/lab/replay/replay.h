/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay traces (docs/trace-format.md) through the policy core and the
 * reference governors; govlab's replay and plot commands drive it.
 */
#ifndef __BPFGOV_REPLAY_H
#define __BPFGOV_REPLAY_H

#ifdef __BPF__
#error "user/lab/replay/replay.h is for user space only"
#endif

#include <linux/types.h>
#include <stddef.h>
#include "replay_out.h"
#include "replay_result.h"
#include "trace.h"

/* Defaults: bpfgov_config_defaults(), all policies, HZ=250, 2 ms / 5 ms
 * rate limits, haltpoll module defaults, 1 ms gaps watched for 30 ms. */
void replay_opts_default(struct replay_opts *o);
/* Run the selected policies over @t. The idle-state table of @o->cfg is
 * replaced by the trace's. 0 or -errno with one line in @err. */
int replay_run(const struct trace *t, const struct replay_opts *o, struct replay_result *r,
	       char *err, size_t errlen);

#endif /* __BPFGOV_REPLAY_H */
