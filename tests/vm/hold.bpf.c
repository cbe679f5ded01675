// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The guest's tracepoint hold (tests/vm/guest-tests.sh, hold_tracepoints):
 * one empty program on each tracepoint bpfgov attaches to, pinned for the
 * whole boot beside the tracefs event held enabled. With two probes
 * already there, a third one attaching or detaching only swaps the
 * tracepoint's probe array; from one probe to two, the kernel re-points
 * the tracepoint's static call, which patches every call site in kernel
 * text, and multi-threaded TCG then now and then runs a stale
 * translation of a patched site (an int3 oops in cpuidle_enter_state:
 * tests/vm/run.sh). Each program returns at once, in every configuration
 * the guest compares. Not part of the product.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* HOLD(tp): an empty program on tracepoint @tp */
#define HOLD(tp)				\
	SEC("tp_btf/" #tp)			\
	int hold_##tp(void *ctx)		\
	{					\
		return 0;			\
	}

HOLD(cpu_idle)
HOLD(local_timer_entry)
HOLD(sched_waking)
HOLD(hrtimer_expire_entry)
