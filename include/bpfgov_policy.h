/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * bpfgov policy core: plain C compiled into the BPF programs (tracepoint and
 * sched_ext modes) and into user space (unit tests, `govlab replay`).
 * One copy only. No libc, no helpers, no signed division, loops bounded by
 * BPFGOV_MAX_STATES (and by the table's own length, a load-time constant in
 * BPF) so the verifier accepts them; a state index is masked by
 * BPFGOV_STATE_MASK into the BPFGOV_STATE_SLOTS-long per-state arrays.
 *
 * The callers feed scheduler and idle events for one CPU; each function
 * updates that CPU's struct bpfgov_cpu_state and returns POL_* flags saying
 * which decision changed. Emitting records and actuating is the callers' job.
 *
 * Three subjects, one header each, included below in this order (the
 * timer header uses what the other two define):
 *   bpfgov_floor.h  utilization, and the performance floor from it;
 *   bpfgov_idle.h   the idle choice: payback points, the history, the pick;
 *   bpfgov_timer.h  timers and the short path: idle entry and exit, the
 *                   wake-up and its cost, near timers.
 * Users include this header alone. In BPF the whole core is one
 * compilation unit with its caller; the event entry points (POL_ENTRY)
 * are global subprograms, laid out in the order they are defined here.
 */
#ifndef __BPFGOV_POLICY_H
#define __BPFGOV_POLICY_H

#include "bpfgov.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/*
 * The event entry points. In BPF they are global subprograms: the verifier
 * checks each once, with unknown arguments, instead of once per call site
 * and per path into it (inlined, the idle-exit path alone exceeds the 1M
 * instruction budget). Hence the NULL checks at their tops: a global
 * subprogram must not assume its pointers are valid.
 */
#ifdef __BPF__
#define POL_ENTRY __attribute__((noinline))
#else
#define POL_ENTRY static inline
#endif

#define POL_FLOOR	1u	/* s->floor changed */
#define POL_PICK	2u	/* s->idle_pick changed */

#define POL_NS_PER_US	1000ull
#define POL_BIN_ONE	1024u	/* weight of one sample in the history bins */

static __always_inline __u32 pol_min32(__u32 a, __u32 b) { return a < b ? a : b; }
static __always_inline __u32 pol_max32(__u32 a, __u32 b) { return a > b ? a : b; }
static __always_inline __u64 pol_max64(__u64 a, __u64 b) { return a > b ? a : b; }
static __always_inline __u64 pol_min64(__u64 a, __u64 b) { return a < b ? a : b; }

#include "bpfgov_floor.h"
#include "bpfgov_idle.h"
#include "bpfgov_timer.h"

/* Fresh state for a CPU at load time. */
static __always_inline void pol_cpu_init(struct bpfgov_cpu_state *s,
					 const struct bpfgov_config *c)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->cur_state = BPFGOV_NO_STATE;
	s->tick_due_ns = ~0ull;
	s->floor = pol_floor_low(c);
	s->target = pol_floor_low(c);
	s->idle_pick = pol_nr_states(c) - 1;
	s->hist_pick = s->idle_pick;
	s->ctx = s->idle_pick > 0;	/* as after an idle that a halt paid */
	/* No cpuidle driver: the pick is the state the CPU always enters,
	 * for good (pol_idle_select leaves it alone). */
	if (c->idle_state_fixed) {
		s->idle_pick = c->idle_state_fixed - 1;
		s->pick_reason = BPFGOV_R_FIXED;
		pol_fast_terms(s, c, s->idle_pick, pol_state_cost_ns(s, c, s->idle_pick));
	}
}

#endif /* __BPFGOV_POLICY_H */
