/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * bpfgov policy core, utilization and floor (included by bpfgov_policy.h).
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
 */
#ifndef __BPFGOV_FLOOR_H
#define __BPFGOV_FLOOR_H

#ifndef __BPFGOV_POLICY_H
#error "include bpfgov_policy.h, which includes bpfgov_floor.h in its place"
#endif

/* x / 100 for any 32-bit x, without a division (exact: the reciprocal
 * rounded up, 0x51eb851f / 2^37, errs by less than one unit below 2^32;
 * a 64-bit division costs tens of cycles on the hot path). */
static __always_inline __u32 pol_div100(__u32 x)
{
	return (__u32)(((__u64)x * 0x51eb851full) >> 37);
}

/*
 * The lowest floor ever requested: floor_min, or the platform's efficient
 * level (floor_eff) where that is higher, never above floor_max.
 *
 * Below the efficient level (HWP_CAPABILITIES' most efficient
 * performance, CPPC's lowest nonlinear performance) a lower frequency
 * saves no energy: the voltage no longer falls with it, so every cycle
 * costs more (static power over a longer run) and ends later. A CPU
 * that runs there loses on both axes, whatever it runs: a floor at that
 * level costs a busy CPU nothing, and an idle one next to nothing (its
 * clock is stopped; a poll is bounded by the poll limit).
 */
static __always_inline __u32 pol_floor_low(const struct bpfgov_config *c)
{
	return pol_max32(c->floor_min, pol_min32(c->floor_eff, c->floor_max));
}

/*
 * A fall to @want is a quiet CPU's clamp, made without the fall window:
 * the lowest floor, asked for by a CPU whose utilization alone gives
 * less than a deadband above floor_min (the remote refresh's test of a
 * CPU that went quiet). With floor_eff 0 that is every fall to
 * floor_min. A target held up by floor_eff alone is a light load, not a
 * quiet CPU: its fall waits the window like any other, so that a busy
 * CPU whose util dips for a moment keeps its floor.
 */
static __always_inline int pol_fall_is_clamp(const struct bpfgov_cpu_state *s,
					     const struct bpfgov_config *c, __u32 want)
{
	return want == pol_floor_low(c) &&
	       (want == c->floor_min ||
		pol_div100(s->util * c->headroom_pct) < c->floor_min + pol_max32(c->deadband, 1));
}

/* util * headroom, clamped to [pol_floor_low, floor_max] and to the scale. */
static __always_inline __u32 pol_target(const struct bpfgov_config *c, __u32 util)
{
	__u32 t = pol_div100(util * c->headroom_pct);

	t = pol_min32(t, BPFGOV_SCALE);
	t = pol_min32(t, c->floor_max);
	return pol_max32(t, pol_floor_low(c));
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
 *   clamp always is (a quiet CPU's fall to the lowest floor,
 *   pol_fall_is_clamp, is not delayed: it gets there through the gap
 *   memory's own expiry and the remote refresh);
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
	} else if (!pol_fall_is_clamp(s, c, want)) {
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
	} else if (!pol_fall_is_clamp(s, c, want)) {
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
 * the deadband of the lowest floor (pol_floor_low: the CPU went quiet), the
 * floor goes there. Before that the floor stays: following the target down costs a
 * decision per fall band while it decays, each undone by a rise when the
 * CPU runs again, and the open segment (the last busy run, not yet in util)
 * can even raise it. None of that would reach the hardware before the CPU
 * wakes (no actuation wakes a sleeping CPU), and the CPU's own evaluation
 * at its wake-up sees the same target. Not before the CPU slept hold_ms
 * either (a short gap before its last busy run is then older than the
 * gap memory, and than the HWP stall it guards against), and a floor
 * within twice the deadband of the lowest floor is left alone: a fall that small
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
	    s->floor < pol_floor_low(c) + 2 * pol_max32(c->deadband, 1) ||
	    s->target - pol_floor_low(c) >= pol_max32(c->deadband, 1))
		return 0;
	if (s->last_floor_ns && now - s->last_floor_ns < pol_rate_limit_ns(c))
		return 0;
	s->floor = pol_floor_low(c);
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

#endif /* __BPFGOV_FLOOR_H */
