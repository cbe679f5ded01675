/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * bpfgov policy core: plain C compiled into the BPF programs (tracepoint and
 * sched_ext modes) and into user space (unit tests, `govloader replay`).
 * One copy only. No libc, no helpers, no signed division, loops bounded by
 * BPFGOV_MAX_STATES (and by the table's own length, a load-time constant in
 * BPF) so the verifier accepts them; a state index is masked by
 * BPFGOV_STATE_MASK into the BPFGOV_STATE_SLOTS-long per-state arrays.
 *
 * The callers feed scheduler and idle events for one CPU; each function
 * updates that CPU's struct bpfgov_cpu_state and returns POL_* flags saying
 * which decision changed. Emitting records and actuating is the callers' job.
 *
 * Utilization. Time is cut into segments closed at idle exit (one busy run +
 * the idle gap after it) or on the tick during a long busy run. Each
 * segment gives a sample = busy / length, and util moves toward it by
 * length / (length + tau): tau_rise when the sample is above util (rises
 * fast), tau_fall when below (falls slowly). Filtering per segment rather
 * than per instant keeps a steady duty cycle unbiased: a 50% periodic load
 * converges to 512 whatever the ratio of the two time constants.
 *
 * Floor. target = util * headroom, clamped. A short idle gap after busy
 * time (the HWP "stuck at minimum for 30 ms" trigger) arms the gap memory:
 * the floor stays >= gap_keep of the target seen when the gap began, for
 * hold_ms after the last such gap (so a CPU that goes quiet releases it
 * hold_ms later, and a periodic load re-arms it at its current level, not
 * at a past peak). Hysteresis keeps a steady load on one floor: a rise
 * is made at once but only once the floor is more than rise_band of the
 * target below it; a fall waits fall_delay_us, goes to the target's peak
 * over that wait, and only if that is more than fall_band of the floor
 * lower (and once the target settled). Changes smaller than the deadband
 * and changes faster than the rate limit (never below the platform's
 * transition latency) are not made.
 *
 * Idle choice. A state pays back when the idle period (time until the
 * wakeup, without the state's own exit cost) is at least its measured
 * wake-up cost (or its table cost, whichever is larger) times payback_pct,
 * and at least its target residency. Idle worths go into
 * decayed bins bounded by those payback points (teo's idea, with costs that
 * are measured instead of trusted). The pick is the deepest state that the
 * history says pays back at least half the time (with a hysteresis band,
 * pick_band: by default 5/8 to go deeper, 3/8 to stay), whose exit latency fits the PM QoS limit. A polling pick is vetoed when the expected idle is long
 * or a poll ran longer than poll_max_us (the "powernightmares").
 *
 * Near timers. At idle entry the pick is capped by the CPU's next timer
 * (a halt that the timer ends before it pays back costs more than polling
 * until then). A kernel governor under a standing halting pick can do that
 * only if polling stays enabled; it polls then on its own prediction too.
 * So a halting pick that the history made (not the polling veto) leaves
 * polling to the governor (poll_ok) while idles whose next timer comes
 * before the first halting state pays back are a material share of the
 * recent ones (timer_share: one in 32 to allow, one in 64 to keep).
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

/* x / 100 for any 32-bit x, without a division (exact: the reciprocal
 * rounded up, 0x51eb851f / 2^37, errs by less than one unit below 2^32;
 * a 64-bit division costs tens of cycles on the hot path). */
static __always_inline __u32 pol_div100(__u32 x)
{
	return (__u32)(((__u64)x * 0x51eb851full) >> 37);
}

/* util * headroom, clamped to [floor_min, floor_max] and to the scale. */
static __always_inline __u32 pol_target(const struct bpfgov_config *c, __u32 util)
{
	__u32 t = pol_div100(util * c->headroom_pct);

	t = pol_min32(t, BPFGOV_SCALE);
	t = pol_min32(t, c->floor_max);
	return pol_max32(t, c->floor_min);
}

/* The rate limit actually used: never faster than the platform can switch. */
static __always_inline __u64 pol_rate_limit_ns(const struct bpfgov_config *c)
{
	return (__u64)pol_max32(c->rate_limit_us, c->transition_latency_us) * POL_NS_PER_US;
}

/* Move util toward sample by dur / (dur + tau), rounding the step up: the
 * exact step is always below the distance, so this never overshoots, and
 * util does reach 0 and 1024 (rounding down stalls it short of both, which
 * leaves an idle CPU's floor a deadband above the minimum). */
static __always_inline __u32 pol_smooth(const struct bpfgov_config *c, __u32 util,
					__u32 sample, __u64 dur_ns)
{
	__u64 tau, step;

	if (sample > BPFGOV_SCALE)
		sample = BPFGOV_SCALE;
	if (sample == util || !dur_ns)
		return util;
	tau = (__u64)(sample > util ? c->tau_rise_us : c->tau_fall_us) * POL_NS_PER_US;
	if (sample > util) {
		step = ((__u64)(sample - util) * dur_ns + dur_ns + tau - 1) / (dur_ns + tau);
		return util + (__u32)step;
	}
	step = ((__u64)(util - sample) * dur_ns + dur_ns + tau - 1) / (dur_ns + tau);
	return util - (__u32)step;
}

/* util as it would be if the open segment were closed at @now. */
static __always_inline __u32 pol_util_at(const struct bpfgov_cpu_state *s,
					 const struct bpfgov_config *c, __u64 now,
					 __u64 seg_busy_ns)
{
	__u64 dur = now > s->seg_start_ns ? now - s->seg_start_ns : 0;
	__u32 sample;

	if (!dur)
		return s->util;
	/* All busy (a tick in a long run) or all idle: no division. */
	if (seg_busy_ns >= dur)
		sample = BPFGOV_SCALE;
	else if (!seg_busy_ns)
		sample = 0;
	else
		sample = (__u32)(seg_busy_ns * BPFGOV_SCALE / dur);
	return pol_smooth(c, s->util, sample, dur);
}

/*
 * The shortest segment worth closing: an eighth of the faster time
 * constant (250 us at the defaults). A busy run that begins sooner after
 * the segment's start leaves it open: its busy time adds to the same
 * segment, closed at the first busy begin past that age (or by a long
 * run's tick). At every wake-up of a CPU in short cycles (a ping-pong, a
 * pipe: one every few microseconds) closing a segment costs two divisions
 * and a floor evaluation, for a util step of a fraction of a percent and a
 * floor that cannot change within the rate limit anyway; a segment of a few
 * such cycles gives util the same sample (busy / length), so util follows
 * the same curve, in steps of at most 1/9 of the distance, and decisions
 * come at most this much later. Gaps long enough to matter end a segment
 * older than this by themselves (it began before the gap), and the gap
 * memory's arming and expiry always take the full evaluation.
 */
static __always_inline __u64 pol_seg_min_ns(const struct bpfgov_config *c)
{
	return ((__u64)pol_min32(c->tau_rise_us, c->tau_fall_us) * POL_NS_PER_US) >> 3;
}

/*
 * Until when the open segment stays young (pol_seg_young) and no gap
 * memory ends (pol_hold_expire), for the short wake-up path's gate
 * (pol_fast_gate): taken where the segment opens (pol_close_segment, the
 * first busy end) and so after every arming of the gap memory, which
 * closes the segment. Released gap memory leaves it earlier than need
 * be, never later; a `set` of the time constants reaches it at the next
 * segment.
 */
static __always_inline void pol_fast_horizon(struct bpfgov_cpu_state *s,
					     const struct bpfgov_config *c)
{
	__u64 h = s->seg_start_ns ? s->seg_start_ns + pol_seg_min_ns(c) : 0;

	if (s->hold_floor && s->hold_until_ns < h)
		h = s->hold_until_ns;
	s->fast_horizon_ns = h;
}

static __always_inline void pol_close_segment(struct bpfgov_cpu_state *s,
					      const struct bpfgov_config *c, __u64 now)
{
	if (s->seg_start_ns) {		/* else the first event on this CPU */
		s->util = pol_util_at(s, c, now, s->seg_busy_ns);
		s->target = pol_target(c, s->util);
	}
	s->seg_start_ns = now;
	s->seg_busy_ns = 0;
	pol_fast_horizon(s, c);
}

/* Busy time of the current run not yet added to the open segment. */
static __always_inline __u64 pol_open_busy(const struct bpfgov_cpu_state *s, __u64 now)
{
	__u64 from;

	if (!s->busy)
		return 0;
	from = pol_max64(s->busy_since_ns, s->seg_start_ns);
	return now > from ? now - from : 0;
}

/*
 * Decide the floor from target and gap memory. @hint is the reason to
 * report when the gap memory is not what sets the value. Returns POL_FLOOR
 * when s->floor changed.
 *
 * Hysteresis, so that a steady load whose target wobbles keeps one floor:
 * - a rise is made at once, but only once the floor is more than
 *   rise_band/1024 of the target below it (the floor keeps at least
 *   (1024 - rise_band)/1024 of the target);
 * - a fall waits until the target stayed below the floor for fall_delay_us
 *   and goes to the highest value the target took in that window (not to
 *   its latest trough), and only if that is more than fall_band/1024 of
 *   the floor below it; otherwise the window starts again. It also starts
 *   again, from the target at its end, when the target is still falling
 *   then (more than half the fall band below the window's peak, as while
 *   util decays after a burst): the floor comes down in one fall, not in a
 *   staircase of one per window;
 * - changes smaller than the deadband are never made; reaching either
 *   clamp always is (a fall to floor_min is not delayed: a CPU that went
 *   quiet gets there through the gap memory's own expiry and the remote
 *   refresh);
 * - two changes are at least the rate limit apart.
 */
/* The floor the target asks for, the gap memory's hold included (the hold
 * never overrides the clamp: floor_max is the user's word). */
static __always_inline __u32 pol_floor_want(const struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c)
{
	__u32 want = s->target;

	if (s->hold_floor && want < s->hold_floor && want < c->floor_max)
		want = pol_min32(s->hold_floor, c->floor_max);
	return want;
}

/* A rise from @floor to @want is worth a write: beyond the deadband and
 * the rise band, or up to the clamp. */
static __always_inline int pol_rise_worth(const struct bpfgov_config *c, __u32 floor,
					  __u32 want)
{
	__u32 diff = want - floor;

	return want == c->floor_max ||
	       (diff >= c->deadband && diff * BPFGOV_SCALE > want * c->rise_band);
}

/* A fall from @floor to @want is worth a write: beyond the deadband and
 * the fall band (a fall to the clamp is decided by the caller). */
static __always_inline int pol_fall_worth(const struct bpfgov_config *c, __u32 floor,
					  __u32 want)
{
	__u32 diff = floor - want;

	return diff >= c->deadband && diff * BPFGOV_SCALE > floor * c->fall_band;
}

static __always_inline __u32 pol_floor_eval(struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c, __u64 now,
					    __u32 hint)
{
	__u32 want = pol_floor_want(s, c), reason = hint, now_want = want;

	if (want != s->target)
		reason = BPFGOV_R_GAP_HOLD;
	if (want >= s->floor) {
		s->below_since_ns = 0;
		s->fall_peak = 0;
	}
	if (want == s->floor)
		return 0;
	if (want > s->floor) {
		if (!pol_rise_worth(c, s->floor, want))
			return 0;
	} else if (want != c->floor_min) {
		if (c->fall_delay_us) {
			if (!s->below_since_ns) {
				s->below_since_ns = now ? now : 1;
				s->fall_peak = want;
				return 0;
			}
			s->fall_peak = pol_max32(s->fall_peak, want);
			if (now < s->below_since_ns ||
			    now - s->below_since_ns < (__u64)c->fall_delay_us * POL_NS_PER_US)
				return 0;
			/* Still falling (now more than half the fall band
			 * below the window's peak): a fall to that peak
			 * would be followed by another one. */
			if ((s->fall_peak - now_want) * 2 * BPFGOV_SCALE > s->fall_peak * c->fall_band) {
				s->below_since_ns = now ? now : 1;
				s->fall_peak = now_want;
				return 0;
			}
			want = s->fall_peak;
		}
		if (!pol_fall_worth(c, s->floor, want)) {
			/* Not worth a write: watch a fresh window. */
			if (c->fall_delay_us) {
				s->below_since_ns = now ? now : 1;
				s->fall_peak = now_want;
			}
			return 0;
		}
	}
	if (s->last_floor_ns && (now < s->last_floor_ns ||
				 now - s->last_floor_ns < pol_rate_limit_ns(c)))
		return 0;
	if (reason == BPFGOV_R_NONE)
		reason = want > s->floor ? BPFGOV_R_UTIL_RISE : BPFGOV_R_UTIL_FALL;
	s->floor = want;
	s->floor_reason = reason;
	s->below_since_ns = 0;
	s->fall_peak = 0;
	s->last_floor_ns = now;
	s->nr_floor_changes++;
	return POL_FLOOR;
}

/* Release the gap memory once hold_ms passed without another short gap. */
static __always_inline int pol_hold_expire(struct bpfgov_cpu_state *s, __u64 now)
{
	if (!s->hold_floor || now < s->hold_until_ns)
		return 0;
	s->hold_floor = 0;
	return 1;
}

/*
 * The earliest time at which pol_tick() could change anything, judged from
 * the state as pol_busy_begin() or pol_tick() leaves it (they keep it in
 * s->tick_due_ns; nothing else changes what it depends on while the CPU is
 * busy): the tick hook compares the tick's time with it and does nothing
 * before, reading one cache line. Never later than pol_tick() would change
 * something (an earlier time only costs a tick that finds nothing to do):
 * a busy run reaching tick_busy_us, the gap memory's expiry, and a floor
 * change that the rate limit or the fall delay holds back. ~0: nothing
 * while the CPU is not busy. Tunables written meanwhile take effect at the
 * next due tick (at most tick_busy_us later).
 */
static __always_inline __u64 pol_min64(__u64 a, __u64 b) { return a < b ? a : b; }

static __always_inline __u64 pol_tick_next(const struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c)
{
	__u64 due, t;
	__u32 want;

	if (!s->busy)
		return ~0ull;
	due = pol_max64(s->busy_since_ns, s->seg_start_ns) + (__u64)c->tick_busy_us * POL_NS_PER_US;
	if (s->hold_floor)
		due = pol_min64(due, s->hold_until_ns);
	/* pol_floor_eval's bands, with its time-dependent steps. */
	want = pol_floor_want(s, c);
	if (want == s->floor)
		return due;
	if (want > s->floor) {
		if (!pol_rise_worth(c, s->floor, want))
			return due;
	} else if (want != c->floor_min) {
		if (c->fall_delay_us) {
			if (!s->below_since_ns)
				return 0;	/* a fall window opens */
			/* a fall, or a fresh window */
			t = s->below_since_ns + (__u64)c->fall_delay_us * POL_NS_PER_US;
			return pol_min64(due, t);
		}
		if (!pol_fall_worth(c, s->floor, want))
			return due;
	}
	t = s->last_floor_ns ? s->last_floor_ns + pol_rate_limit_ns(c) : 0;
	return pol_min64(due, t);
}

/* A short gap right after busy time arms the gap memory. */
static __always_inline int pol_gap_arms(const struct bpfgov_cpu_state *s,
					const struct bpfgov_config *c, __u64 gap)
{
	return gap && c->gap_hold_us && gap < (__u64)c->gap_hold_us * POL_NS_PER_US &&
	       s->pre_gap_busy_ns >= (__u64)c->gap_min_busy_us * POL_NS_PER_US;
}

/* The idle gap that a busy run beginning at @now ends (0: none known). */
static __always_inline __u64 pol_gap_at(const struct bpfgov_cpu_state *s, __u64 now)
{
	return s->idle_since_ns && now > s->idle_since_ns ? now - s->idle_since_ns : 0;
}

/* The open segment began less than pol_seg_min_ns() before @now. */
static __always_inline int pol_seg_young(const struct bpfgov_cpu_state *s,
					 const struct bpfgov_config *c, __u64 now)
{
	return s->seg_start_ns && now >= s->seg_start_ns &&
	       now - s->seg_start_ns < pol_seg_min_ns(c);
}

/* A busy run beginning at @now, @gap after the last, in a @young segment
 * has nothing to evaluate: no gap memory to arm or to end. */
static __always_inline int pol_begin_quiet(const struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u64 now,
					   __u64 gap, int young)
{
	return young && !pol_gap_arms(s, c, gap) &&
	       !(gap && s->hold_floor && now >= s->hold_until_ns);
}

/* pol_busy_begin() past its accounting: the gap memory, then, unless the
 * segment stays open (@young), the segment's close and the floor. */
POL_ENTRY __u32 pol_busy_eval(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
			      __u64 now, __u64 gap, int young)
{
	__u32 hint = BPFGOV_R_NONE, flags;

	if (!s || !c)
		return 0;
	if (pol_gap_arms(s, c, gap)) {
		/* A short gap right after busy time: keep most of the pre-gap
		 * target so the floor cannot fall to the minimum behind it. */
		s->hold_floor = (__u32)((__u64)s->pre_gap_target * c->gap_keep_permille / 1000);
		s->hold_until_ns = now + (__u64)c->hold_ms * 1000000ull;
		s->nr_gap_holds++;
		young = 0;
	} else if (gap && pol_hold_expire(s, now)) {
		hint = BPFGOV_R_HOLD_END;
		young = 0;
	}
	/* A young segment stays open (pol_seg_min_ns): target and gap memory
	 * are as the last evaluation left them, so is its floor decision, and
	 * tick_due_ns, computed then for an earlier busy run, is no later than
	 * this run's (the gate may open early, never late). */
	if (young)
		return 0;
	pol_close_segment(s, c, now);
	flags = pol_floor_eval(s, c, now, hint);
	s->tick_due_ns = pol_tick_next(s, c);
	return flags;
}

/* Idle period ends, a task starts to run on this CPU. Inline as far as a
 * young segment with no gap memory to arm or release goes (a CPU in short
 * cycles, at nearly every wake-up): nothing else is left to do there, and
 * the call is a good part of that path's cost. */
static __always_inline __u32 pol_busy_begin(struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c, __u64 now)
{
	__u64 gap = 0;
	int young;

	if (!s || !c || s->busy)
		return 0;
	gap = pol_gap_at(s, now);
	s->idle_ns += gap;
	young = pol_seg_young(s, c, now);
	s->busy = 1;
	s->busy_since_ns = now;
	s->idle_since_ns = 0;
	s->last_event_ns = now;
	if (pol_begin_quiet(s, c, now, gap, young))
		return 0;
	return pol_busy_eval(s, c, now, gap, young);
}

/* The level the gap memory arms from if a short gap follows a busy run
 * ending at @now: the target that util gives with the open segment (this
 * run, or the part of it past its last tick) included. The target of the
 * last segment close predates a run shorter than a tick (4 ms: after a
 * quiet second a 2 ms burst gives 640, the stale target 0). A run too short
 * to arm anything keeps the closed target (no division on that path). */
static __always_inline __u32 pol_gap_level(const struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u64 now, __u64 run)
{
	if (!c->gap_hold_us || run < (__u64)c->gap_min_busy_us * POL_NS_PER_US)
		return s->target;
	return pol_max32(s->target, pol_target(c, pol_util_at(s, c, now, s->seg_busy_ns)));
}

/* A busy run ends, the CPU switches to its idle task. The floor is left as
 * it is: lowering it at idle entry is what strands a CPU at the minimum
 * after a short gap. */
static __always_inline __u32 pol_busy_end(struct bpfgov_cpu_state *s,
					  const struct bpfgov_config *c, __u64 now)
{
	__u64 run;

	if (!s->busy)
		return 0;
	run = now > s->busy_since_ns ? now - s->busy_since_ns : 0;
	if (!s->seg_start_ns) {
		s->seg_start_ns = s->busy_since_ns ? s->busy_since_ns : now;
		pol_fast_horizon(s, c);
	}
	s->seg_busy_ns += pol_open_busy(s, now);
	s->busy_ns += run;
	s->pre_gap_busy_ns = run;
	s->pre_gap_target = pol_gap_level(s, c, now, run);
	s->busy = 0;
	s->busy_since_ns = 0;
	s->idle_since_ns = now;
	s->last_event_ns = now;
	/* tick_due_ns stays: pol_tick() does nothing on an idle CPU, and the
	 * next busy run, if its segment is still young, keeps the gate. */
	return 0;
}

/* Periodic hook while a task runs: a long busy run is accounted without
 * waiting for it to end, so a CPU that never idles still ramps up. */
POL_ENTRY __u32 pol_tick(struct bpfgov_cpu_state *s,
				      const struct bpfgov_config *c, __u64 now)
{
	__u64 open;
	__u32 flags;

	if (!s || !c || !s->busy)
		return 0;
	s->last_event_ns = now;
	open = pol_open_busy(s, now);
	if (open >= (__u64)c->tick_busy_us * POL_NS_PER_US) {
		s->seg_busy_ns += open;
		pol_close_segment(s, c, now);
	}
	/* Also retries a change the rate limit held back. */
	flags = pol_floor_eval(s, c, now, pol_hold_expire(s, now) ? BPFGOV_R_HOLD_END : BPFGOV_R_NONE);
	s->tick_due_ns = pol_tick_next(s, c);
	return flags;
}

/*
 * Refresh, from another CPU, the floor of a CPU that sleeps without events
 * (nohz idle). Only floor/target/hold are written; util and the segment stay
 * owned by the CPU itself, which recomputes the same target when it wakes.
 *
 * One decision per sleep at most: once the target has decayed to within
 * the deadband of floor_min (the CPU went quiet), the floor goes to
 * floor_min. Before that the floor stays: following the target down costs a
 * decision per fall band while it decays, each undone by a rise when the
 * CPU runs again, and the open segment (the last busy run, not yet in util)
 * can even raise it. None of that would reach the hardware before the CPU
 * wakes (no actuation wakes a sleeping CPU), and the CPU's own evaluation
 * at its wake-up sees the same target. Not before the CPU slept hold_ms
 * either (a short gap before its last busy run is then older than the
 * gap memory, and than the HWP stall it guards against), and a floor
 * within twice the deadband of floor_min is left alone: a fall that small
 * would be undone by the next wake-up's rise, two decisions for nothing.
 */
POL_ENTRY __u32 pol_remote_refresh(struct bpfgov_cpu_state *s,
						const struct bpfgov_config *c, __u64 now)
{
	__u64 slept;

	if (!s || !c || s->busy || !s->idle_since_ns || now <= s->idle_since_ns)
		return 0;
	slept = now - s->idle_since_ns;
	if (slept < (__u64)c->remote_scan_us * POL_NS_PER_US)
		return 0;
	s->target = pol_target(c, pol_util_at(s, c, now, s->seg_busy_ns));
	pol_hold_expire(s, now);
	if (s->hold_floor || slept < (__u64)c->hold_ms * 1000000ull ||
	    s->floor < c->floor_min + 2 * pol_max32(c->deadband, 1) ||
	    s->target - c->floor_min >= pol_max32(c->deadband, 1))
		return 0;
	if (s->last_floor_ns && now - s->last_floor_ns < pol_rate_limit_ns(c))
		return 0;
	s->floor = c->floor_min;
	s->floor_reason = BPFGOV_R_IDLE_DECAY;
	s->below_since_ns = 0;
	s->fall_peak = 0;
	s->last_floor_ns = now;
	s->nr_floor_changes++;
	/* The wake-up takes the full path, which follows the new floor where
	 * the CPU's own hook sets its perf target (sched_ext): the short path
	 * decides nothing, so it follows nothing. */
	s->fast_until_ns = 0;
	return POL_FLOOR;
}

/* Worst of the table's exit latency and the measured wake-up cost, ns. */
static __always_inline __u64 pol_state_cost_ns(const struct bpfgov_cpu_state *s,
					       const struct bpfgov_config *c, __u32 k)
{
	k &= BPFGOV_STATE_MASK;
	return pol_max64((__u64)c->state_exit_latency_us[k] * POL_NS_PER_US,
			 s->wake_cost_ns[k]);
}

/* Idle length from which state k pays back its cost, ns. */
static __always_inline __u64 pol_payback_ns(const struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c, __u32 k)
{
	k &= BPFGOV_STATE_MASK;
	if (c->state_is_poll[k])
		return 0;
	return pol_max64((__u64)c->state_residency_us[k] * POL_NS_PER_US,
			 pol_state_cost_ns(s, c, k) * c->payback_pct / 100);
}

/* A halting state's payback comparison from its terms: target residency
 * @res_ns, and @cost_pct = its wake-up cost times payback_pct. */
static __always_inline int pol_pays_back_terms(__u64 res_ns, __u64 cost_pct, __u64 idle)
{
	return idle >= res_ns && (idle + 1) * 100 > cost_pct;
}

/* idle >= pol_payback_ns(s, c, k), given @cost == pol_state_cost_ns(s, c,
 * k), without the division: idle >= cost * pct / 100 (rounded down) is
 * (idle + 1) * 100 > cost * pct. For the exit of every idle period. */
static __always_inline int pol_pays_back(const struct bpfgov_config *c, __u32 k,
					 __u64 cost, __u64 idle)
{
	k &= BPFGOV_STATE_MASK;
	return c->state_is_poll[k] ||
	       pol_pays_back_terms((__u64)c->state_residency_us[k] * POL_NS_PER_US,
				   cost * c->payback_pct, idle);
}

/* @x >= pol_payback_ns(s, c, k), without the division. */
static __always_inline int pol_paid(const struct bpfgov_cpu_state *s,
				    const struct bpfgov_config *c, __u32 k, __u64 x)
{
	return pol_pays_back(c, k, pol_state_cost_ns(s, c, k), x);
}

#ifdef __BPF__
/*
 * In BPF the number of idle states is a load-time constant: the loader
 * sets this read-only global from the same table as tunables.nr_states
 * (which `set` cannot change either). The verifier then knows it, and
 * checks each loop over the states for this machine's table alone instead
 * of once for every length the table might have. The default, the largest
 * table, is what a load that does not set it (a verifier-cost probe)
 * checks.
 */
const volatile __u32 pol_nr_states_ro = BPFGOV_MAX_STATES;
#endif

static __always_inline __u32 pol_nr_states(const struct bpfgov_config *c)
{
#ifdef __BPF__
	(void)c;
	return pol_nr_states_ro ? pol_min32(pol_nr_states_ro, BPFGOV_MAX_STATES) : 1;
#else
	return c->nr_states ? pol_min32(c->nr_states, BPFGOV_MAX_STATES) : 1;
#endif
}

/* PM QoS allows a state of wake-up cost @cost (pol_state_cost_ns). */
static __always_inline int pol_allowed_cost(const struct bpfgov_cpu_state *s, __u64 cost)
{
	return !s->qos_limit_us || cost <= (__u64)s->qos_limit_us * POL_NS_PER_US;
}

static __always_inline int pol_allowed(const struct bpfgov_cpu_state *s,
				       const struct bpfgov_config *c, __u32 k)
{
	return pol_allowed_cost(s, pol_state_cost_ns(s, c, k));
}

/* Shallowest non-polling state allowed by PM QoS, or NO_STATE. */
static __always_inline __u32 pol_first_halt(const struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c)
{
	__u32 k, n = pol_nr_states(c);

	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		if (!c->state_is_poll[k] && pol_allowed(s, c, k))
			return k;
	}
	return BPFGOV_NO_STATE;
}

#define POL_POLL_MIN_NS	(10ull * POL_NS_PER_US)	/* CPUIDLE_POLL_MIN */

/* timer_share: fixed point (1 << 16: every idle), decayed by 1/256 per
 * idle period, a rate over the last few hundred idles that one idle moves
 * by 1/256: poll_ok stands through a load, rather than flipping (each flip
 * a write) with every near timer or pair of them. poll_ok from 1/32, kept
 * down to 1/64. */
#define POL_TSHARE_ONE		65536u
#define POL_TSHARE_SHIFT	8
#define POL_TSHARE_ON		(POL_TSHARE_ONE / 32)
#define POL_TSHARE_OFF		(POL_TSHARE_ONE / 64)

/*
 * How long the kernel polls before it gives up (cpuidle_poll_time(),
 * drivers/cpuidle/cpuidle.c): the target residency of the first
 * non-polling state that has one of at least 10 us, capped at TICK_NSEC/16,
 * or that cap alone.
 */
static __always_inline __u64 pol_poll_limit_ns(const struct bpfgov_config *c)
{
	__u64 max = (__u64)(c->tick_us ? c->tick_us : 4000) * POL_NS_PER_US / 16, r;
	__u32 k, n = pol_nr_states(c);

	for (k = 1; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		r = (__u64)c->state_residency_us[k] * POL_NS_PER_US;
		if (c->state_is_poll[k] || r < POL_POLL_MIN_NS)
			continue;
		return r < max ? r : max;
	}
	return max;
}

/*
 * Minimum dwell and time hysteresis (pick_dwell_ms). The pick is a
 * standing constraint that the kernel's governor chooses inside, idle by
 * idle; each change is a write of its knobs, often on a CPU that sleeps.
 * Where idle lengths straddle a payback point, a history of a few idles
 * would move it hundreds of times a second. So the selects vote: each
 * gives the state the evidence points at the idle's length (time, not a
 * count: a quiet CPU's few short blips do not outvote its long sleeps),
 * and the pick may move only at the end of a window of pick_dwell_ms, and
 * only where two windows in a row voted the same way: deeper, to the
 * deepest state that 5/8 of this window's votes reached or passed; or
 * shallower, to the shallowest that 5/8 of them did not pass. poll_ok
 * follows at a window's end. A steady load that straddles a boundary
 * keeps its pick; a load that moves is followed within two or three
 * windows. The polling veto does not wait (pol_dwell_reset): polling
 * through a lull is what it exists to stop.
 */
static __always_inline void pol_dwell_reset(struct bpfgov_cpu_state *s)
{
	s->dwell_start_ns = s->exit_ns ? s->exit_ns : 1;
	s->votes = 0;
	__builtin_memset(s->pick_votes, 0, sizeof(s->pick_votes));
}

/* 1: the standing pick (and poll_ok) hold; 0: a window is over, and
 * @pick is where the votes moved it (or the standing pick). */
static __always_inline int pol_dwell_hold(struct bpfgov_cpu_state *s,
					  const struct bpfgov_config *c, __u32 *pick)
{
	__u32 k, n = pol_nr_states(c), cur = s->idle_pick, to = s->idle_pick, dir = 0;
	__u64 acc = 0, need;

	s->votes += s->vote_weight;
	s->pick_votes[*pick & BPFGOV_STATE_MASK] += s->vote_weight;
	if (s->dwell_start_ns &&
	    s->exit_ns - s->dwell_start_ns < (__u64)c->pick_dwell_ms * 1000000ull)
		return 1;
	need = (__u64)s->votes * 5;
	for (k = n - 1; k > cur; k--) {		/* deeper */
		acc += s->pick_votes[k];
		if (acc * 8 >= need) {
			to = k;
			dir = 1;
			break;
		}
	}
	acc = 0;
	for (k = 0; !dir && k < n && k < cur; k++) {	/* shallower */
		acc += s->pick_votes[k];
		if (acc * 8 >= need) {
			to = k;
			dir = 2;
		}
	}
	/* the first window of a CPU (none before it) moves at once */
	*pick = !dir || (s->dwell_pending == dir || !s->dwell_start_ns) ? to : cur;
	s->dwell_pending = dir;
	pol_dwell_reset(s);
	return 0;
}

/* Choose the idle state; @long_poll says a poll just overran poll_max_us
 * or ran into the kernel's poll time limit. */
POL_ENTRY __u32 pol_idle_select(struct bpfgov_cpu_state *s,
				const struct bpfgov_config *c, int long_poll)
{
	__u32 k, n, pick = 0, reason = BPFGOV_R_HISTORY, band, ok = 0;
	__u64 total = 0, acc = 0;
	int found = 0, qos_cut = 0;

	if (!s || !c)
		return 0;
	n = pol_nr_states(c);

	/* The CPU enters one state whatever is picked (no cpuidle driver):
	 * the pick set at init stands, and no decision is made for nothing. */
	if (c->idle_state_fixed)
		return 0;
	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		total += s->bins[k];
	}
	/*
	 * Walk from the deepest state: pick the first one that the history
	 * says pays back at least half of the time (any, with no history).
	 * With a band around one half (pick_band eighths, default 1): going
	 * deeper than the current pick takes 5/8 of the history, staying at
	 * or above it 3/8. A bare median flips between two states on every
	 * other idle period when the history sits near the boundary, and each
	 * flip is a sysfs write. The band is around the history's own last
	 * pick (hist_pick), not the veto's: a halt forced by one long poll
	 * must not make the history's next halt easier (3/8 instead of 5/8),
	 * or one long idle among short ones halts the next few short ones.
	 */
	band = pol_min32(c->pick_band, 3);
	for (k = n - 1; k > 0; k--) {
		acc += s->bins[k];
		if (total && acc * 8 < total * (k > s->hist_pick ? 4 + band : 4 - band))
			continue;
		if (!pol_allowed(s, c, k)) {
			qos_cut = 1;
			continue;
		}
		pick = k;
		found = 1;
		break;
	}
	if (!found)
		pick = 0;
	if (qos_cut)
		reason = BPFGOV_R_QOS;
	s->hist_pick = pick;
	/*
	 * Polling veto (poll_max_us = 0 turns it off): right after a poll
	 * that overran poll_max_us (poll, then halt: the next idle of a lull
	 * is not polled again), or when at least poll_veto_pct of the recent
	 * idle periods were longer than poll_max_us. A share, not a mean:
	 * one long lull moves it by one sample's weight, so the short idles
	 * that follow it are still polled.
	 */
	if (c->state_is_poll[pick & BPFGOV_STATE_MASK] && c->poll_max_us &&
	    (long_poll || (__u64)s->long_share * 100 >= (__u64)c->poll_veto_pct * POL_BIN_ONE)) {
		__u32 h = pol_first_halt(s, c);

		if (h != BPFGOV_NO_STATE) {
			pick = h;
			reason = BPFGOV_R_LONG_POLL;
		}
	}
	/* A halting pick of the history's own (not the veto's) leaves polling
	 * to the governor while near timers are common (see the top). */
	if (c->state_is_poll[0] && !c->state_is_poll[pick & BPFGOV_STATE_MASK] &&
	    pick == s->hist_pick)
		ok = s->timer_share >= (s->poll_ok ? POL_TSHARE_OFF : POL_TSHARE_ON);
	if (c->pick_dwell_ms) {
		if (reason == BPFGOV_R_LONG_POLL)
			pol_dwell_reset(s);
		else if (pol_dwell_hold(s, c, &pick))
			return 0;
	}
	if (pick == s->idle_pick && ok == s->poll_ok)
		return 0;
	s->poll_ok = ok;
	s->nr_pick_changes++;
	if (pick == s->idle_pick)
		return POL_PICK;	/* poll_ok alone: the reason stands */
	s->idle_pick = pick;
	s->pick_reason = reason;
	return POL_PICK;
}

/*
 * The pick capped by the next timer, as teo does it: no state whose
 * payback point lies beyond the time left until the CPU's next timer
 * fires (a halt that a timer ends before it pays back costs more than
 * polling until then). @timer_ns is that time (0: unknown, no cap).
 */
POL_ENTRY __u32 pol_timer_cap(const struct bpfgov_cpu_state *s,
			      const struct bpfgov_config *c, __u32 pick, __u64 timer_ns)
{
	__u32 k;

	if (!s || !c || !timer_ns)
		return pick;
	for (k = pol_min32(pick, pol_nr_states(c) - 1); k > 0; k--) {
		if (pol_paid(s, c, k, timer_ns))
			return k;
	}
	return 0;
}

/*
 * One fixed idle state: the terms of pol_pays_back() for state @st of
 * wake-up cost @cost, for the short path (pol_wake_fast). They change only
 * where a full idle exit measures a wake-up cost, or with the tunables:
 * each full exit (and the CPU's start) takes them afresh, so a `set`
 * reaches them at the next full exit, within a segment (pol_seg_min_ns) of
 * a CPU in short cycles. A polling state always pays back, and has no
 * short path.
 */
static __always_inline void pol_fast_terms(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 st, __u64 cost)
{
	st &= BPFGOV_STATE_MASK;
	s->fast_cost_ns = cost;
	if (c->state_is_poll[st]) {	/* polling always pays (pol_pays_back) */
		s->fast_state = 0;
		s->fast_res_ns = 0;
		s->fast_cost_pct = 0;
		return;
	}
	s->fast_state = st + 1;
	s->fast_res_ns = (__u64)c->state_residency_us[st] * POL_NS_PER_US;
	s->fast_cost_pct = cost * c->payback_pct;
}

/*
 * One fixed idle state: until when a wake-up from the idle period that
 * begins at @now in state @st may take the short path (pol_wake_fast), 0
 * for never. Everything the short path's conditions depend on that is
 * known here is decided here: a halting state whose terms are known
 * (pol_fast_terms), no poll time carried, a segment that stays young
 * until the returned time, no gap memory that could arm (the busy run
 * before this gap was too short to count) and none that expires before
 * then. What can still change before the wake-up closes the gate where it
 * changes: a waker's stamp (pol_wake_stamp), a timer interrupt in the
 * residency (pol_timer_fire), the exit itself, a remote refresh that
 * lowers the floor (pol_remote_refresh: the full path follows it where
 * the CPU sets its own perf target). A remote refresh's other change, a
 * released gap memory, leaves the gate as conservative as it was. Racing
 * with the wake-up, a refresh's floor is followed at the next full path,
 * within a segment (pol_seg_min_ns) of a CPU in short cycles.
 */
static __always_inline __u64 pol_fast_gate(const struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 st, __u64 now)
{
	if (s->fast_state != st + 1 || s->carry_ns || s->fast_horizon_ns <= now ||
	    (c->gap_hold_us && s->pre_gap_busy_ns >= (__u64)c->gap_min_busy_us * POL_NS_PER_US))
		return 0;
	return s->fast_horizon_ns;
}

/*
 * The CPU enters idle state @state (cpu_idle tracepoint or scx update_idle).
 * The caller has stored the CPU's next timer expiry in s->next_timer_ns
 * (0: unknown), which the exit learns from (timer_share, poll_ok). The
 * pick is not capped by that timer here: the pick is a standing
 * constraint that the kernel's governor works inside, and the governor
 * caps its own choice by the next timer at each entry. pol_timer_cap()
 * is replay's ideal column only.
 */
static __always_inline void pol_idle_enter(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 state, __u64 now)
{
	s->cur_state = state;
	s->state_enter_ns = now;
	s->timer_fired = 0;
	s->nr_idle++;
	s->fast_until_ns = c->idle_state_fixed ? pol_fast_gate(s, c, state, now) : 0;
}

/* A local timer interrupt ran while the CPU was in an idle state. */
static __always_inline void pol_timer_fire(struct bpfgov_cpu_state *s)
{
	s->timer_fired = 1;
	s->fast_until_ns = 0;
}

/* Largest wake-up cost sample taken from a timer wake-up: beyond it the
 * vCPU or the interrupt was late for reasons that are not the state's. */
#define POL_TIMER_COST_MAX_NS	(2000ull * POL_NS_PER_US)

/*
 * A running median (the "frugal" estimator): each sample moves the
 * estimate by 1/2^(cost_ewma_shift + 1) of itself toward the sample, whatever
 * the sample's size. An outlier (a halted vCPU the host did not run at
 * once, a wake-up that waited behind a build) moves it as little as an
 * ordinary sample, and a run of them must outnumber the ordinary ones to
 * carry it away: the estimate settles where half of the samples lie above
 * it. Never below 1 ns once measured (a step of 0 would stall it).
 */
static __always_inline __u32 pol_median_step(__u32 est, __u32 x, __u32 shift)
{
	__u32 step;

	if (!est)
		return x ? x : 1;
	step = est >> (shift + 1);
	if (!step)
		step = 1;
	if (x > est)
		return x - est < step ? x : est + step;
	if (x < est) {
		est = est - x < step ? x : est - step;
		return est ? est : 1;
	}
	return est;
}

static __always_inline void pol_cost_sample(struct bpfgov_cpu_state *s,
					    const struct bpfgov_config *c, __u32 st, __u64 lat)
{
	__u32 l32 = lat > 0xffffffffull ? 0xffffffffu : (__u32)lat;

	st &= BPFGOV_STATE_MASK;
	s->wake_cost_ns[st] = pol_median_step(s->wake_cost_ns[st], l32, c->cost_ewma_shift);
	s->nr_wake_samples++;
}

/* The kernel's poll time limit as this CPU sees it: learned from its polls
 * that ran into it (a running median of their lengths), the formula of
 * cpuidle_poll_time() until one did. */
static __always_inline __u64 pol_cpu_poll_limit_ns(const struct bpfgov_cpu_state *s,
						   const struct bpfgov_config *c)
{
	return s->poll_limit_ns ? s->poll_limit_ns : pol_poll_limit_ns(c);
}

/* The expected idle length (the loader's figure): an EWMA of idle worth,
 * 1/8 per idle period. */
static __always_inline void pol_expect_idle(struct bpfgov_cpu_state *s, __u64 idle)
{
	s->expected_idle_ns = s->expected_idle_ns - (s->expected_idle_ns >> 3) + (idle >> 3);
}

/* What one fixed idle state learns from an idle period worth @idle, with
 * the state's terms (pol_fast_terms): the above count and the expected
 * idle length (the history that would choose among states has nothing
 * to choose). */
static __always_inline void pol_fixed_learn(struct bpfgov_cpu_state *s, __u64 idle)
{
	if (!pol_pays_back_terms(s->fast_res_ns, s->fast_cost_pct, idle))
		s->nr_too_deep++;
	pol_expect_idle(s, idle);
}

/*
 * What an idle period teaches, once its worth is known: above/below
 * counters, the history bins, the long-idle share; then the pick. @idle is
 * the worth of the residency in state @st_flags & BPFGOV_STATE_MASK, @hist
 * what goes into the history. A separate entry point: in BPF the verifier then checks the
 * loops once, not once per way the wakeup was classified.
 */
/*
 * The history that predicts the next idle period is the one of the class
 * of this one (@cls: 0 when polling paid, 1 when a halting state did): a
 * first-order context. Where short and long idles come in runs (phases, a
 * server's bursts and lulls), each context learns its own run and a change
 * of phase costs one wrong pick, not the several that a single history
 * needs to turn over; where they are mixed at random, both contexts learn
 * the same mix. A context never visited (or faded
 * by quiet periods, see POL_QUIET_SHIFT) starts as a copy of the other.
 */
/* Idles in a row of the other class before the history context swaps. */
#define POL_CTX_STREAK	2u

static __always_inline void pol_switch_ctx(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u32 cls)
{
	__u32 k, t, seen = 0, n = pol_nr_states(c);

	if (cls == s->ctx)
		return;
	for (k = 0; k < n; k++)
		seen += s->alt_bins[k];
	s->ctx = cls;
	/* Less than half a sample's weight left (never visited, or faded
	 * by quiet periods): as good as never visited. */
	if (seen < POL_BIN_ONE / 2) {
		for (k = 0; k < BPFGOV_MAX_STATES; k++)	/* once: fixed length, no memmove */
			s->alt_bins[k] = s->bins[k];
		s->alt_long_share = s->long_share;
		s->alt_hist_pick = s->hist_pick;
		return;
	}
	for (k = 0; k < n; k++) {
		t = s->bins[k];
		s->bins[k] = s->alt_bins[k];
		s->alt_bins[k] = t;
	}
	t = s->long_share;
	s->long_share = s->alt_long_share;
	s->alt_long_share = t;
	t = s->hist_pick;
	s->hist_pick = s->alt_hist_pick;
	s->alt_hist_pick = t;
}

/*
 * A quiet CPU forgets: an idle period of 2^POL_QUIET_SHIFT ns (8.4 ms) or
 * more halves the history it is learned into once per such length (at most
 * POL_QUIET_MAX times), on top of the decay by idle count. Evidence of short
 * idles then lapses with time, not only with the number of idles that
 * follow it: after a burst, the second quiet idle in a row turns the pick
 * (a lone lull among short idles adds one sample and still leaves them the
 * majority). A sleeping CPU is never woken for it: it is learned at the
 * exit of the idle period that was quiet.
 */
#define POL_QUIET_SHIFT		23
#define POL_QUIET_MAX		7u

#define POL_LEARN_LONG_POLL	0x100u	/* @st_flags: a poll overran poll_max_us */
#define POL_LEARN_SELECT_ONLY	0x200u	/* @st_flags: the period goes on, learn nothing yet */
#define POL_LEARN_TIMER_NEAR	0x400u	/* @st_flags: the next timer came before halt paid back */

POL_ENTRY __u32 pol_idle_learn(struct bpfgov_cpu_state *s, const struct bpfgov_config *c,
			       __u32 st_flags, __u64 idle, __u64 hist)
{
	__u32 k, n, bin = 0, deepest_ok = 0, st = st_flags & BPFGOV_STATE_MASK, quiet;
	int long_poll = !!(st_flags & POL_LEARN_LONG_POLL);
	__u64 cost[BPFGOV_MAX_STATES];

	if (!s || !c)
		return 0;
	/* the idle's vote (pick_dwell_ms): its length, ~us, at least 1, at
	 * most ~1 s (a window's sum stays far below 2^32) */
	s->vote_weight = (__u32)pol_min64((hist >> 10) + 1, 1u << 20);
	if (st_flags & POL_LEARN_SELECT_ONLY)
		return pol_idle_select(s, c, long_poll);
	n = pol_nr_states(c);
	/* Above/below accounting, as the kernel's cpuidle does it. Each
	 * state's wake-up cost is worked out once, and compared with the
	 * idle period through pol_pays_back(): no division. */
	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		cost[k] = pol_state_cost_ns(s, c, k);
		if (pol_allowed_cost(s, cost[k]) && pol_pays_back(c, k, cost[k], idle))
			deepest_ok = k;
	}
	if (!pol_paid(s, c, st, idle))
		s->nr_too_deep++;
	else if (deepest_ok > st)
		s->nr_too_shallow++;

	/* The history's bin for this idle period: that of the deepest state
	 * whose payback point is <= hist. */
	for (k = 1; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		if (pol_pays_back(c, k, cost[k], hist))
			bin = k;
	}
	/* History: decay (by count, and by time for a quiet period), then
	 * add this idle period to its bin. */
	quiet = (__u32)pol_min64(hist >> POL_QUIET_SHIFT, POL_QUIET_MAX);
	for (k = 0; k < BPFGOV_MAX_STATES; k++) {
		if (k >= n)
			break;
		s->bins[k] -= s->bins[k] >> c->bin_decay_shift;
		s->bins[k] >>= quiet;
		s->alt_bins[k] >>= quiet;	/* the other context's evidence ages too */
	}
	s->bins[bin & BPFGOV_STATE_MASK] += POL_BIN_ONE;
	pol_expect_idle(s, idle);
	s->long_share -= s->long_share >> c->bin_decay_shift;
	if (c->poll_max_us && hist > (__u64)c->poll_max_us * POL_NS_PER_US)
		s->long_share += POL_BIN_ONE >> c->bin_decay_shift;
	s->timer_share -= s->timer_share >> POL_TSHARE_SHIFT;
	if (st_flags & POL_LEARN_TIMER_NEAR)
		s->timer_share += POL_TSHARE_ONE >> POL_TSHARE_SHIFT;
	/* The context follows the class of the recent idles, not of the last
	 * one alone: a short and a long idle taking turns (a timer between
	 * housekeeping wake-ups) would swap the histories, and the pick, on
	 * every idle period, each swap a write. POL_CTX_STREAK idles in a row. */
	if (c->history_ctx) {
		if ((__u32)(bin > 0) == s->ctx) {
			s->ctx_streak = 0;
		} else if (++s->ctx_streak >= POL_CTX_STREAK) {
			s->ctx_streak = 0;
			pol_switch_ctx(s, c, bin > 0);
		}
	}

	return pol_idle_select(s, c, long_poll);
}

/*
 * The CPU leaves its idle state. @wake_lat_ns receives the wake-up cost
 * measured on this exit (0: none), @residency_ns the residency. The cost
 * is measured from the wakeup request to the exit: the stamp of a waker on
 * another CPU, or the programmed expiry of the next timer when the local
 * timer interrupt ended the residency (s->timer_fired, set by the caller)
 * at or after it. Returns POL_PICK when the idle pick changed.
 */
static __always_inline __u32 pol_idle_exit_inline(struct bpfgov_cpu_state *s,
						   const struct bpfgov_config *c, __u64 now,
						   __u64 *residency_ns, __u64 *wake_lat_ns)
{
	__u32 st, wake = BPFGOV_WAKE_OTHER, near = 0;
	__u64 res, idle, lat = 0, hist, cost, timer = s ? s->next_timer_ns : 0;
	int long_poll = 0, stamped = 0, sampled = 0, remote, timed_out = 0, goes_on;

	if (!s || !c || !residency_ns || !wake_lat_ns)
		return 0;
	goes_on = s->exit_goes_on;	/* for this exit only, whatever follows */
	s->exit_goes_on = 0;
	st = s->cur_state;
	*residency_ns = 0;
	*wake_lat_ns = 0;
	if (st == BPFGOV_NO_STATE || now < s->state_enter_ns)
		return 0;
	st &= BPFGOV_STATE_MASK;
	s->cur_state = BPFGOV_NO_STATE;
	s->fast_until_ns = 0;
	res = now - s->state_enter_ns;
	*residency_ns = res;

	if (c->state_is_poll[st]) {
		s->poll_ns += res;
		if (c->poll_max_us && res > (__u64)c->poll_max_us * POL_NS_PER_US)
			long_poll = 1;
	}
	if (timer < s->state_enter_ns)
		timer = 0;

	/* Why the CPU woke, and what that wakeup cost: a remote stamp, or the
	 * timer's expiry, as the state tells (below). A poll after which
	 * no task is to run (the caller saw need_resched clear: s->exit_goes_on)
	 * ran into the kernel's poll time limit, whatever its length:
	 * poll_idle() ends only on need_resched or on that limit, and the
	 * idle loop goes on. Neither a waker nor a timer ended it.
	 * A halting state ends at its first interrupt: when the timer's
	 * interrupt came in the residency (at or after its expiry), the timer
	 * woke the CPU, whatever was stamped before. Such a stamp was aimed
	 * at a CPU the wakeup did not go to (tracepoint mode stamps where the
	 * task last ran, before the scheduler picks where it runs); booked as
	 * remote, its "cost" would be the sleep until the timer. A poll ends
	 * on need_resched, which a wakeup sets at once, and runs on through
	 * interrupts that set none: of a stamp and a timer that came in it,
	 * the later one ended it. */
	remote = s->wake_ts_ns && s->wake_ts_ns >= s->state_enter_ns && now >= s->wake_ts_ns &&
		 !(s->timer_fired && timer && timer <= now &&
		   (!c->state_is_poll[st] || timer >= s->wake_ts_ns));
	if (c->state_is_poll[st] && goes_on) {
		timed_out = 1;
		wake = BPFGOV_WAKE_LIMIT;
		s->poll_limit_ns = pol_median_step((__u32)s->poll_limit_ns,
						   res > 0xffffffffull ? 0xffffffffu : (__u32)res,
						   c->cost_ewma_shift);
	} else if (remote) {
		lat = now - s->wake_ts_ns;
		wake = BPFGOV_WAKE_REMOTE;
		s->nr_remote_wakes++;
		stamped = 1;
		sampled = 1;
	} else if (s->timer_fired && timer && now >= timer) {
		wake = BPFGOV_WAKE_TIMER;
		s->nr_timer_wakes++;
		if (now - timer <= POL_TIMER_COST_MAX_NS) {
			lat = now - timer;
			s->nr_timer_samples++;
			sampled = 1;
		}
		stamped = 1;
	} else if (s->timer_fired) {
		wake = BPFGOV_WAKE_TIMER;	/* a timer armed during the residency */
	}
	if (sampled) {
		pol_cost_sample(s, c, st, lat);
		*wake_lat_ns = lat;
	}
	s->wake_reason = wake;
	cost = pol_state_cost_ns(s, c, st);

	/*
	 * What the idle period was worth: the time until the wakeup, without
	 * the exit cost the state itself added (a residency always covers its
	 * own wake-up, so comparing it with that cost would prove nothing).
	 */
	if (stamped)
		idle = now - lat - s->state_enter_ns;
	else if (!c->state_is_poll[st])
		idle = res > cost ? res - cost : 0;
	else
		idle = res;
	s->wake_ts_ns = 0;
	s->timer_fired = 0;

	/*
	 * A poll cut short by the kernel's time limit: the idle period goes
	 * on, and the time already polled is carried into it. Poll, then
	 * halt: polling goes on while the carried time is below the first
	 * halting state's payback point (past it, halting would already have
	 * paid: the ski-rental rule, never worse than twice the best choice),
	 * unless the history says that idles which outlast one poll limit
	 * mostly go on for long (resid_share).
	 */
	if (timed_out) {
		__u32 h = pol_first_halt(s, c);

		s->carry_ns += res;
		long_poll = h == BPFGOV_NO_STATE ||
			    pol_paid(s, c, h, s->carry_ns) ||
			    s->resid_share * 2 >= POL_BIN_ONE;
		s->nr_long_polls += long_poll;
		s->exit_ns = now;	/* the pick's clock (pick_dwell_ms) */
		return pol_idle_learn(s, c, st | POL_LEARN_SELECT_ONLY |
				      (long_poll ? POL_LEARN_LONG_POLL : 0), idle, idle);
	}
	s->nr_long_polls += long_poll;
	/* The whole idle period goes into the history, timed-out polls
	 * included; and whether it outlasted its first poll limit by more
	 * than halt's payback point. */
	hist = idle + s->carry_ns;
	if (s->carry_ns) {
		__u32 h = pol_first_halt(s, c);
		__u64 first = pol_cpu_poll_limit_ns(s, c);

		s->resid_share -= s->resid_share >> c->bin_decay_shift;
		if (h != BPFGOV_NO_STATE && hist > first && pol_paid(s, c, h, hist - first))
			s->resid_share += POL_BIN_ONE >> c->bin_decay_shift;
		s->carry_ns = 0;
	}
	/* One state whatever is picked (no cpuidle driver): the history
	 * that would choose among states has nothing to choose; only what is
	 * read elsewhere is kept (the above/below count, the expected idle
	 * length the loader uses). */
	if (c->idle_state_fixed) {
		pol_fast_terms(s, c, st, cost);
		pol_fixed_learn(s, idle);
		return 0;
	}
	/* Its last residency's next timer came before a halt paid back: the
	 * entry pick polls there, and so would a governor left free to. Only
	 * with a known timer and a polling state to leave. */
	if (timer && c->state_is_poll[0]) {
		__u32 h = pol_first_halt(s, c);

		if (h != BPFGOV_NO_STATE && !pol_paid(s, c, h, timer - s->state_enter_ns))
			near = POL_LEARN_TIMER_NEAR;
	}
	s->exit_ns = now;
	return pol_idle_learn(s, c, st | near | (long_poll ? POL_LEARN_LONG_POLL : 0), idle, hist);
}

/* The same as a global subprogram (POL_ENTRY): the common caller. With one
 * fixed idle state the BPF side calls pol_idle_exit_inline() instead: the
 * path is short there (no history to learn), and the call with its two
 * out parameters was a fifth of it. */
POL_ENTRY __u32 pol_idle_exit(struct bpfgov_cpu_state *s,
					   const struct bpfgov_config *c, __u64 now,
					   __u64 *residency_ns, __u64 *wake_lat_ns)
{
	return pol_idle_exit_inline(s, c, now, residency_ns, wake_lat_ns);
}

/*
 * A CPU with one fixed idle state (no cpuidle driver) wakes and a task
 * begins to run at the same instant @now: pol_idle_exit() then
 * pol_busy_begin(), on the path a CPU in short cycles takes at nearly
 * every wake-up, in one pass over the state that writes what those two
 * write there. That path: a halting state, no poll time carried, a wake-up
 * neither stamped by its waker nor ended by a timer (nothing to measure),
 * a young segment, no gap memory to arm or end. Anything else returns 0
 * and writes nothing: the caller takes the two steps. Returns 1 when done
 * (no decision: the floor and the pick stay). The caller checks that no
 * tap reader asked for idle exits or gaps (their records come from the
 * two steps), and that the CPU is not busy (both callers know it already:
 * the hook's own test, or the run tracking's RUNS_BEGIN).
 */
static __always_inline int pol_wake_fast(struct bpfgov_cpu_state *s, __u64 now)
{
	__u64 enter = s->state_enter_ns, res, idle, cost = s->fast_cost_ns, gap;

	/* The idle entry's gate (pol_fast_gate) holds every condition but
	 * the time. */
	if (now >= s->fast_until_ns || now < enter)
		return 0;
	/* Idle exit (pol_idle_exit_inline, one fixed halting state). */
	res = now - enter;
	idle = res > cost ? res - cost : 0;
	pol_fixed_learn(s, idle);
	s->cur_state = BPFGOV_NO_STATE;
	s->fast_until_ns = 0;
	s->wake_reason = BPFGOV_WAKE_OTHER;
	/* Busy begin (pol_busy_begin, a young segment). */
	gap = pol_gap_at(s, now);
	s->idle_ns += gap;
	s->busy = 1;
	s->busy_since_ns = now;
	s->idle_since_ns = 0;
	s->last_event_ns = now;
	return 1;
}

/* A wakeup from another CPU is aimed at this (sleeping) CPU: stamp it once
 * per residency. A wakeup raised on the sleeping CPU itself comes from an
 * interrupt handler that runs after the exit began: the caller skips it. */
static __always_inline void pol_wake_stamp(struct bpfgov_cpu_state *s, __u64 now)
{
	if (s->cur_state != BPFGOV_NO_STATE && !s->wake_ts_ns) {
		s->wake_ts_ns = now;
		s->fast_until_ns = 0;	/* a stamped wake-up is measured */
	}
}

/* Fresh state for a CPU at load time. */
static __always_inline void pol_cpu_init(struct bpfgov_cpu_state *s,
					 const struct bpfgov_config *c)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->cur_state = BPFGOV_NO_STATE;
	s->tick_due_ns = ~0ull;
	s->floor = c->floor_min;
	s->target = c->floor_min;
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
