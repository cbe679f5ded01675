/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The `tap` ring buffer: a second consumer beside `govloader start`.
 * BPF mirrors the record kinds set in control.tap_kinds to `tap`, so a
 * reader (tail, record) never steals the `events` records that `start`
 * needs to actuate. One tap reader at a time (control.tap_owner_pid).
 */
#ifndef __BPFGOV_TAP_H
#define __BPFGOV_TAP_H

#ifdef __BPF__
#error "user/state/tap.h is for user space only"
#endif

#include <linux/types.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"

struct tap;

/* Open the pinned maps under @pin_root, claim the tap for this process and
 * ask BPF for @kinds (bitmask of 1u << BPFGOV_EV_*). @fn gets each record
 * (data points to a struct bpfgov_event). 0 or -errno with a clear line. */
int tap_open(const char *pin_root, __u32 kinds, ring_buffer_sample_fn fn,
	     void *ctx, struct tap **out);
/* Poll up to @timeout_ms; returns records consumed or -errno (-EINTR ok). */
int tap_poll(struct tap *t, int timeout_ms);
/* Drain what is queued without waiting. */
int tap_drain(struct tap *t);
/* True while the `govloader start` that owns the pins is alive. */
int tap_loader_alive(struct tap *t);
/* Release the tap (tap_kinds = 0) and free. NULL is fine. */
void tap_close(struct tap *t);

#endif
