/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Every tunable of the policy core, once: name, default, range, unit and
 * meaning. X-macro so the loader (validation, `status`, README table) and
 * the unit tests read the same list; plain C, no libc.
 *
 * X(name, default, min, max, unit, help)
 */
#ifndef __BPFGOV_TUNABLES_H
#define __BPFGOV_TUNABLES_H

#define BPFGOV_TUNABLES(X)						\
	X(headroom_pct,        125,  100,    400, "%",    "floor = util x headroom / 100 (schedutil uses 125)") \
	X(floor_min,             0,    0,   1024, "/1024", "lowest floor ever requested") \
	X(floor_max,          1024,    0,   1024, "/1024", "highest floor ever requested") \
	X(floor_eff,             0,    0,   1024, "/1024", "the platform's most efficient level: a CPU with a load worth a floor gets at least this (0: none; filled from HWP_CAPABILITIES / CPPC_CAP1)") \
	X(tau_rise_us,        2000,  100, 100000, "us",   "util smoothing time constant when load rises (fast)") \
	X(tau_fall_us,       16000,  100, 1000000, "us",  "util smoothing time constant when load falls (slow)") \
	X(tick_busy_us,       4000,  500, 100000, "us",   "a busy run this long is accounted on the timer tick") \
	X(gap_hold_us,        1000,    0, 100000, "us",   "idle gaps shorter than this arm the gap memory (0: off)") \
	X(gap_min_busy_us,    1000,    0, 1000000, "us",  "busy time that must precede a gap for it to count") \
	X(gap_keep_permille,   875,    0,   1000, "/1000", "gap memory keeps this much of the pre-gap target (7/8)") \
	X(hold_ms,              30,    1,  10000, "ms",   "gap memory ends this long after the last short gap") \
	X(rate_limit_us,      2000,    0, 1000000, "us",  "min time between two floor changes of one CPU") \
	X(transition_latency_us, 0,    0, 1000000, "us",  "platform transition latency; rate limit never below it (0: unknown)") \
	X(deadband,             16,    0,    512, "/1024", "smallest floor change worth a write") \
	X(fall_delay_us,     10000,    0, 1000000, "us",  "the floor falls only once the target stayed below it this long and settled (ends within half of fall_band of its peak), to that peak (0: at once)") \
	X(rise_band,           256,    0,    512, "/1024", "the floor rises (at once) only once it is more than this share of the target below it") \
	X(fall_band,           192,    0,    512, "/1024", "the floor falls only if the target's peak over fall_delay_us is more than this share of the floor below it") \
	X(nr_states,             2,    1, BPFGOV_MAX_STATES, "", "idle states (filled from the cpuidle driver)") \
	X(payback_pct,         200,   10,   1000, "%",    "a state pays back once idle >= measured wake cost x this") \
	X(poll_max_us,         200,    0, 100000, "us",   "idles longer than this are long ones for polling; a poll that overran it halts next (0: no veto by length)") \
	X(poll_veto_pct,        50,    1,    100, "%",    "no polling once this share of recent idles was long (100: only after a long poll)") \
	X(bin_decay_shift,       3,    1,     10, "",     "idle history decays by 1/2^shift per idle period") \
	X(cost_ewma_shift,       3,    0,     10, "",     "wake-up cost running median: a sample moves it by 1/2^(shift+1) of itself") \
	X(pick_band,             1,    0,      3, "/8",   "idle pick hysteresis: deeper needs (4+band)/8 of the history, staying (4-band)/8") \
	X(history_ctx,           1,    0,      1, "",     "idle history per context, the class of the recent idle periods (1), or one history (0)") \
	X(pick_dwell_ms,       100,    0,  10000, "ms",   "the standing idle pick moves at most once this long, to where 5/8 of that time's idles pointed; the polling veto does not wait (0: off)") \
	X(veto_hold,             4,    1,    100, "",     "after a polling veto, the pick polls again only once this many dwell windows in a row voted for it; twice as many each time polling is taken back before it stood that long, up to 64") \
	X(tick_us,            4000,  100, 100000, "us",   "scheduler tick, from CONFIG_HZ (the kernel's poll limit is at most tick/16)") \
	X(wakeup_bytes,      65536, 4096, 1048576, "B",   "tap ring: wake the reader once this much is queued") \
	X(remote_scan_us,    10000, 1000, 1000000, "us",  "how often a sleeping CPU's floor is refreshed from another CPU")

/* After the list: bpfgov.h names the tunables' origins with it. */
#include "bpfgov.h"

/* Fill the scalar tunables with their defaults. The idle-state table is
 * described by bpfgov_config_default_states() below. */
static inline void bpfgov_config_defaults(struct bpfgov_config *c)
{
	__builtin_memset(c, 0, sizeof(*c));
#define __BPFGOV_DEF(n, d, lo, hi, u, h) c->n = (d);
	BPFGOV_TUNABLES(__BPFGOV_DEF)
#undef __BPFGOV_DEF
	/* Without a cpuidle driver the kernel either polls (state 0,
	 * cpu_idle_poll) or halts (state 1, default_idle_call): model that. */
	c->nr_states = 2;
	c->state_is_poll[0] = 1;
	c->state_exit_latency_us[0] = 0;
	c->state_residency_us[0] = 0;
	c->state_exit_latency_us[1] = 1;
	c->state_residency_us[1] = 1;
}

#endif /* __BPFGOV_TUNABLES_H */
