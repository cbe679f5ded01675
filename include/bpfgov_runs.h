/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Busy runs and idle gaps from cpu_idle alone (tracepoint mode): plain C
 * for the BPF program and the unit tests, like bpfgov_policy.h.
 *
 * The idle loop (do_idle) enters idle states until need_resched(); then the
 * idle task switches to the task that was woken. So, with no program on
 * context switches:
 * - at an idle exit, the idle task's TIF_NEED_RESCHED says whether a task
 *   will run: if so, a busy run begins there (an exit without it is an
 *   interrupt that woke nobody: the idle gap goes on);
 * - at the next idle entry, the busy run ends; the idle task's nivcsw (one
 *   more each time it is switched out) says whether a task really ran in
 *   between, which corrects a wrong guess after the fact: a task that ran
 *   although the flag was clear (an interrupt handled only after the exit
 *   was traced, as with mwait and interrupts off) began at that exit
 *   (RUNS_MISSED), and a busy run guessed from a flag that no switch
 *   followed is cut to nothing (RUNS_CUT: it ends where it began);
 * - a tick that interrupts a task on a CPU thought idle starts its busy run
 *   from the last exit (runs_missed_start), so a long run is not missed.
 * Against the switches themselves, a busy run includes the idle loop's own
 * entry and exit work (a few us); task-to-task switches are not seen.
 */
#ifndef __BPFGOV_RUNS_H
#define __BPFGOV_RUNS_H

#include "bpfgov.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Per CPU, written by that CPU only: a cache line. */
struct bpfgov_runs_cpu {
	__u64 exit_ns;		/* last idle exit (0: none seen) */
	__u64 nivcsw;		/* the idle task's nivcsw at the last idle entry */
	__u32 have_nivcsw;	/* nivcsw was read once */
	__u32 guessed;		/* the busy run began on the flag, no entry since */
	__u64 pad[5];
};

enum bpfgov_runs_action {
	RUNS_NONE = 0,		/* nothing begins or ends */
	RUNS_BEGIN,		/* a busy run begins now */
	RUNS_END,		/* the busy run ends now */
	RUNS_CUT,		/* the guessed run never was: it ends at the exit it began at */
	RUNS_MISSED,		/* a run began at the last exit unseen, and ends now */
};

/* An idle exit at @now; @busy: a run is open, @resched: the idle task has
 * TIF_NEED_RESCHED. */
static __always_inline enum bpfgov_runs_action
runs_at_exit(struct bpfgov_runs_cpu *h, int busy, int resched, __u64 now)
{
	h->exit_ns = now;
	if (busy || !resched)
		return RUNS_NONE;
	h->guessed = 1;
	return RUNS_BEGIN;
}

/* An idle entry; @nivcsw: the idle task's. */
static __always_inline enum bpfgov_runs_action
runs_at_enter(struct bpfgov_runs_cpu *h, int busy, __u64 nivcsw)
{
	int switched = h->have_nivcsw && nivcsw != h->nivcsw;
	enum bpfgov_runs_action a = RUNS_NONE;

	if (busy)
		a = h->guessed && h->have_nivcsw && !switched && h->exit_ns ? RUNS_CUT : RUNS_END;
	else if (switched && h->exit_ns)
		a = RUNS_MISSED;
	h->guessed = 0;
	h->nivcsw = nivcsw;
	h->have_nivcsw = 1;
	return a;
}

/* Where a run found open late (RUNS_MISSED, or a tick that interrupts a
 * task on a CPU thought idle) began: at the last exit, or @now if none. */
static __always_inline __u64 runs_missed_start(struct bpfgov_runs_cpu *h, __u64 now)
{
	h->guessed = 0;
	return h->exit_ns && h->exit_ns <= now ? h->exit_ns : now;
}

#endif /* __BPFGOV_RUNS_H */
