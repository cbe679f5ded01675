/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * bpfgov contract header: the types shared by the BPF programs and the
 * loader. Only fixed-width __u32/__u64 fields, so the layout is the same on
 * both sides and bpftool can print every map value with named fields.
 *
 * BPF code gets __u32/__u64 from vmlinux.h (included first); user space
 * from <linux/types.h>.
 */
#ifndef __BPFGOV_H
#define __BPFGOV_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#define BPFGOV_NAME		"bpfgov"
#define BPFGOV_MAX_CPUS		256	/* map sizes are cut to the real count at load */
#define BPFGOV_MAX_STATES	10	/* idle states (and history bins) per CPU: the
					 * kernel's CPUIDLE_STATE_MAX, so every table
					 * a cpuidle driver can register fits */
/* Per-state arrays in the maps are this long, a power of two above
 * BPFGOV_MAX_STATES: an index masked by BPFGOV_STATE_MASK is in bounds (one
 * instruction the verifier accepts); slots from BPFGOV_MAX_STATES on stay 0. */
#define BPFGOV_STATE_SLOTS	16
#define BPFGOV_STATE_MASK	(BPFGOV_STATE_SLOTS - 1)
#define BPFGOV_MAX_LLCS		64	/* sched_ext: last-level-cache domains (power of two) */
#define BPFGOV_SCALE		1024	/* util / floor scale, like the scheduler's */
#define BPFGOV_NO_STATE		0xffffffffu

/* Tunables (the `tunables` map, one entry). Defaults and ranges live in
 * include/bpfgov_tunables.h; every field there is documented. */
struct bpfgov_config {
	/* frequency floor */
	__u32 headroom_pct;		/* floor = util * headroom / 100 */
	__u32 floor_min;		/* clamp, 0..1024 */
	__u32 floor_max;		/* clamp, 0..1024 */
	__u32 floor_eff;		/* platform's most efficient level (0: none) */
	__u32 tau_rise_us;		/* util smoothing time constant when rising */
	__u32 tau_fall_us;		/* ... when falling (larger: falls slowly) */
	__u32 tick_busy_us;		/* account a busy run on the tick once it is this long */
	__u32 gap_hold_us;		/* idle gaps shorter than this arm the gap memory */
	__u32 gap_min_busy_us;		/* ... if at least this much busy time preceded them */
	__u32 gap_keep_permille;	/* gap memory keeps this fraction of the pre-gap target */
	__u32 hold_ms;			/* released once the CPU stays quiet this long */
	__u32 rate_limit_us;		/* min time between two floor changes on a CPU */
	__u32 transition_latency_us;	/* platform's, if known (0: unknown); rate limit >= it */
	__u32 deadband;			/* min floor change worth a write (1024 scale) */
	__u32 fall_delay_us;		/* a fall waits until the target stayed below this long */
	__u32 rise_band;		/* rise once the floor is this much of the target below it (/1024) */
	__u32 fall_band;		/* fall once the window's peak is this much of the floor below it (/1024) */
	/* idle choice */
	__u32 nr_states;		/* idle states described below */
	__u32 payback_pct;		/* a state pays back when idle >= cost * payback / 100 */
	__u32 poll_max_us;		/* an idle longer than this is a long one for polling */
	__u32 poll_veto_pct;		/* no polling once this share of recent idles is long */
	__u32 bin_decay_shift;		/* history decays by 1/2^shift per idle period */
	__u32 cost_ewma_shift;		/* wake-up cost running median step 1/2^(shift+1) */
	__u32 pick_band;		/* hysteresis around 4/8 for idle picks, in eighths */
	__u32 history_ctx;		/* 1: idle history per context (class of the recent idles) */
	__u32 pick_dwell_ms;		/* the standing pick moves at most once this long (0: off) */
	__u32 veto_hold;		/* dwell windows voting for polling before it resumes after a veto */
	__u32 tick_us;			/* scheduler tick (TICK_NSEC): the kernel's poll limit derives from it */
	__u32 state_exit_latency_us[BPFGOV_STATE_SLOTS];	/* driver table */
	__u32 state_residency_us[BPFGOV_STATE_SLOTS];	/* driver table */
	__u32 state_is_poll[BPFGOV_STATE_SLOTS];		/* 1 for a polling state */
	/* streaming */
	__u32 wakeup_bytes;		/* tap ring buffer: wake the reader past this fill */
	__u32 remote_scan_us;		/* how often an awake CPU refreshes idle CPUs' floors */
	__u32 idle_state_fixed;		/* 0: the CPU enters the state it is picked; else 1 +
					 * the one it always enters (no cpuidle driver: halt) */
};

/* Runtime control (the `control` map, one entry), written by the loader. */
struct bpfgov_control {
	__u32 tap_kinds;		/* bitmask of 1 << BPFGOV_EV_* mirrored to `tap` */
	__u32 tap_owner_pid;		/* who consumes `tap` (0: nobody) */
	__u32 loader_pid;		/* the running `govloader start` */
	__u32 mode;			/* enum bpfgov_mode */
	__u32 actuating;		/* 1 when decisions are applied to hardware */
	__u32 wake_kinds;		/* 1 << BPFGOV_EV_*: `events` records that wake
					 * the loader at once (it applies them); the
					 * rest wait for its next periodic drain */
	__u64 started_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) at start */
};

enum bpfgov_mode {
	BPFGOV_MODE_NONE  = 0,
	BPFGOV_MODE_TRACE = 1,
	BPFGOV_MODE_SCX   = 2,
};

/* Per-CPU state (the `cpu_state` map, key = CPU number). Written by the
 * CPU's own hooks; wake_ts_ns is also written by wakers on other CPUs, and
 * floor/target by the remote refresh when the CPU sleeps (see policy core).
 * Cache-line aligned and padded by a full line: the map packs the entries
 * back to back (from an address that need not be line aligned), and without
 * the pad one CPU's counters would share a line with the next CPU's hot
 * fields, bouncing it between the two on every event of either. */
#define BPFGOV_CACHE_LINE	64
struct bpfgov_cpu_state {
	/* The first cache line holds what every tick reads (cur_state, busy,
	 * and the two times before which a tick has nothing to do), so that
	 * a tick with nothing to do reads this line alone; and what a waker
	 * on another CPU reads and writes (cur_state, wake_ts_ns), so that a
	 * wake-up stamp touches one line of the sleeping CPU's state. */
	/* what the governor decided */
	__u32 util;			/* smoothed utilization, 0..1024 */
	__u32 target;			/* util * headroom, clamped */
	__u32 floor;			/* current floor decision, 0..1024 */
	__u32 hold_floor;		/* gap memory: floor may not go below this (0: off) */
	__u32 idle_pick;		/* chosen idle state index */
	/* where the CPU is now */
	__u32 busy;			/* 1 while a task runs */
	__u32 cur_state;		/* idle state entered, or BPFGOV_NO_STATE */
	__u32 timer_fired;		/* a local timer interrupt ran during this residency */
	/* next timer: when the CPU's next timer event fires, read at idle
	 * entry from its struct hrtimer_cpu_base (expires_next) */
	__u64 next_timer_ns;		/* absolute, bpf_ktime_get_ns() clock (0: unknown) */
	__u64 wake_ts_ns;		/* first wakeup aimed at this CPU while idle (by the waker) */
	__u64 tick_due_ns;		/* no tick before this has work (pol_tick_next; ~0: none; kept while idle) */
	__u64 scan_due_ns;		/* no remote scan is due from this CPU before this */
	__u32 floor_reason;		/* enum bpfgov_reason of the last floor change */
	__u32 pick_reason;		/* enum bpfgov_reason of the last pick change */
	__u32 qos_limit_us;		/* PM QoS resume latency limit (0: none), from the loader */
	__u32 timer_src;		/* enum bpfgov_timer_src: where next_timer_ns comes from */
	__u32 long_share;		/* decayed share of idles longer than poll_max_us, /1024 */
	__u32 resid_share;		/* decayed share of idles that outlasted a timed-out poll by
					 * more than halt's payback point, /1024 */
	__u32 hist_pick;		/* the history's own pick, before the polling veto: the
					 * reference of the pick hysteresis */
	__u32 short_share;		/* decayed share of idles that the first halting state did
					 * not pay back (their next timer came first, or they were
					 * shorter: the history's polling bin), /65536 */
	__u32 poll_ok;			/* 1: a halting pick leaves the governor free to poll */
	__u32 lost_share;		/* decayed share of the governor's own polls (under a
					 * halting pick) that ran into the kernel's poll time
					 * limit, /65536 */
	/* The history is kept per context, the class of the recent idle periods
	 * (0: polling paid, 1: a halting state did): bins, long_share and
	 * hist_pick are the current context's, alt_* the other one's. */
	__u32 ctx;
	__u32 alt_long_share;
	__u32 alt_hist_pick;
	__u32 alt_bins[BPFGOV_STATE_SLOTS];
	__u64 carry_ns;			/* poll time spent by timed-out polls of this idle period */
	__u64 poll_limit_ns;		/* the kernel's poll time limit, learned from timed-out
					 * polls (0: none seen yet; the formula stands in) */
	__u32 exit_goes_on;		/* set by the caller before an idle exit: no task is to
					 * run (need_resched clear), the idle loop goes on */
	__u32 fast_state;		/* the state the fast_* terms below are of, plus one (0: none) */
	__u32 fall_peak;		/* highest target seen while below the floor */
	__u32 ctx_streak;		/* idles in a row of the other context's class */
	__u64 below_since_ns;		/* target has stayed below the floor since (0: not below) */
	__u64 expected_idle_ns;		/* EWMA of idle worth (time until the wakeup) */
	__u64 seg_start_ns;		/* start of the open utilization segment */
	__u64 seg_busy_ns;		/* busy time inside the open segment */
	__u64 busy_since_ns;		/* start of the current busy run (0: idle) */
	__u64 idle_since_ns;		/* start of the current idle period (0: busy) */
	__u64 state_enter_ns;		/* cpu_idle entry time of cur_state */
	__u64 pre_gap_busy_ns;		/* length of the busy run before the current idle */
	__u32 pre_gap_target;		/* target at the last busy end, that run included */
	__u32 dec_seq;			/* decision records emitted (record seq) */
	__u64 last_floor_ns;		/* time of the last floor change */
	__u64 hold_until_ns;		/* gap memory ends here unless re-armed */
	__u32 wake_reason;		/* enum bpfgov_wake of the last idle exit */
	__u32 :32;
	__u64 last_event_ns;		/* last time any hook ran for this CPU */
	/* idle history: decayed weight of idle worths per bin, fixed
	 * point (1 << 10 per sample); bin k = [payback(k), payback(k+1)) */
	__u32 bins[BPFGOV_STATE_SLOTS];
	/* measured wake-up cost of each state (a running median, ns); 0 until measured */
	__u32 wake_cost_ns[BPFGOV_STATE_SLOTS];
	/* counters since start */
	__u64 nr_switches;		/* scx: context switches; trace: busy run starts and ends */
	__u64 nr_idle;			/* cpu_idle entries */
	__u64 nr_floor_changes;
	__u64 nr_pick_changes;
	__u64 nr_too_deep;		/* idle worth shorter than the entered state's payback */
	__u64 nr_too_shallow;		/* idle worth long enough for a deeper allowed state */
	__u64 nr_gap_holds;		/* short gaps that armed the gap memory */
	__u64 nr_long_polls;		/* polls longer than poll_max_us */
	__u64 nr_wake_samples;		/* wake-up cost samples, all reasons */
	__u64 nr_timer_wakes;		/* idle exits caused by the expiry of the next timer */
	__u64 nr_remote_wakes;		/* idle exits after a wakeup from another CPU */
	__u64 nr_timer_samples;		/* wake-up cost samples from timer wake-ups */
	__u64 busy_ns;
	__u64 idle_ns;
	__u64 poll_ns;			/* residency spent in polling states */
	__u64 rb_drops;			/* decision records lost (events ring full) */
	__u64 tap_drops;		/* tap records lost */
	/* One fixed idle state (no cpuidle driver): the idle entry's gate
	 * for the wake-up that ends it (pol_fast_gate), so that the wake-up,
	 * nearly every one in short cycles, takes its short path on one
	 * comparison (pol_wake_fast); and that state's cost terms as the last
	 * full idle exit left them (pol_fast_terms) */
	__u64 fast_until_ns;		/* a wake-up before this takes the short path (0: none) */
	__u64 fast_horizon_ns;		/* the open segment is young, and no gap memory ends,
					 * until this (pol_fast_horizon) */
	__u64 fast_cost_ns;		/* the state's wake-up cost (pol_state_cost_ns) */
	__u64 fast_res_ns;		/* its target residency, ns */
	__u64 fast_cost_pct;		/* fast_cost_ns * payback_pct (pol_pays_back, no division) */
	/* Minimum dwell (pick_dwell_ms): the window of selects that votes on
	 * the standing pick, and the clock it runs on */
	__u64 exit_ns;			/* time of the last idle exit */
	__u64 dwell_start_ns;		/* the current window began (0: none yet) */
	__u32 votes;			/* the window's votes, each an idle's length (~us) */
	__u32 pick_votes[BPFGOV_STATE_SLOTS];	/* ... of the idles whose evidence pointed at state k */
	__u32 dwell_pending;		/* the last window voted to move: 1 deeper, 2 shallower */
	__u32 vote_weight;		/* the current idle's vote: its length, ~us (ns >> 10) */
	__u32 veto_left;		/* windows that may still not go back to polling (veto_hold) */
	__u32 win_idles;		/* the window's idles */
	__u32 win_long;			/* ... of them longer than poll_max_us */
	/* Polling withdrawn again soon after it was granted (a veto, poll_ok
	 * off) doubles the windows its return waits for (pol_poll_backoff) */
	__u32 poll_hold;		/* those windows now (0: veto_hold) */
	__u32 ok_left;			/* windows that may still not set poll_ok */
	__u64 poll_granted_ns;		/* polling was last granted (0: never) */
	/* The loader's word (the one field it writes, through the mapping):
	 * it holds a floor for this CPU while it sleeps; the busy run that
	 * ends the sleep clears it and sends the loader a floor record, so
	 * that the floor is applied now, not at the loader's next wake-up */
	__u32 floor_held;
} __attribute__((aligned(BPFGOV_CACHE_LINE)));

/* sched_ext mode: the scheduler's counters, one block per CPU, each
 * counted by its own CPU (the loader sums them). */
struct bpfgov_scx_counters {
	__u64 local;		/* direct dispatches to an idle CPU */
	__u64 shared;		/* enqueues to an LLC's vtime DSQ */
	__u64 kicks;		/* idle CPUs kicked for an LLC-DSQ task */
	__u64 stolen;		/* tasks taken from another LLC's DSQ */
	__u64 preempts;		/* running tasks preempted for a woken one */
	__u64 perf_sets;	/* scx_bpf_cpuperf_set calls */
	__u64 pinned;		/* enqueues to a CPU's own vtime DSQ */
	__u64 kept;		/* expired slices renewed: prev was first in vtime */
	__u64 rescued;		/* tasks run out of vtime order: waited too long */
} __attribute__((aligned(BPFGOV_CACHE_LINE)));

/* Where a CPU's next timer comes from (cpu_state.timer_src). */
enum bpfgov_timer_src {
	BPFGOV_TIMER_NONE       = 0,	/* unknown: the idle choice uses history alone */
	BPFGOV_TIMER_TRACEPOINT = 1,	/* hrtimer_cpu_base learned from hrtimer_expire_entry */
	BPFGOV_TIMER_BEFORE_TICK = 2,	/* the same, read while the tick runs (sched_ext):
					 * known when an hrtimer is due before the tick */
	BPFGOV_TIMER__MAX,
};

/* Why an idle residency ended (cpu_state.wake_reason, idle_exit records). */
enum bpfgov_wake {
	BPFGOV_WAKE_OTHER  = 0,		/* device interrupt, unknown */
	BPFGOV_WAKE_TIMER  = 1,		/* the CPU's next timer expired */
	BPFGOV_WAKE_REMOTE = 2,		/* another CPU woke a task here (IPI or poll flag) */
	BPFGOV_WAKE_LIMIT  = 3,		/* a poll ran into the kernel's poll time limit: nothing
					 * woke the CPU and its idle loop goes on */
	BPFGOV_WAKE__MAX,
};

/* Record kinds (ring buffers `events` and `tap`). */
enum bpfgov_ev_kind {
	BPFGOV_EV_FLOOR     = 1,	/* floor decision changed */
	BPFGOV_EV_PICK      = 2,	/* idle-state pick (or its poll_ok) changed; arg0 = poll_ok */
	BPFGOV_EV_IDLE_EXIT = 3,	/* arg0 = entered state, dur_ns = residency */
	BPFGOV_EV_BUSY      = 4,	/* dur_ns = busy run that just ended */
	BPFGOV_EV_WAKE_LAT  = 5,	/* arg0 = state, dur_ns = wakeup-to-exit latency */
	BPFGOV_EV_IDLE_GAP  = 6,	/* dur_ns = idle period (busy run to busy run) that ended */
	BPFGOV_EV_EXIT      = 7,	/* BPF side stops (scx exit); reason = exit kind */
	BPFGOV_EV__MAX,
};

enum bpfgov_reason {
	BPFGOV_R_NONE        = 0,
	BPFGOV_R_UTIL_RISE   = 1,	/* floor raised: util went up */
	BPFGOV_R_UTIL_FALL   = 2,	/* floor lowered: util went down */
	BPFGOV_R_GAP_HOLD    = 3,	/* floor kept up by the gap memory */
	BPFGOV_R_HOLD_END    = 4,	/* gap memory released: CPU stayed quiet */
	BPFGOV_R_IDLE_DECAY  = 5,	/* floor lowered for a sleeping CPU (remote refresh) */
	BPFGOV_R_HISTORY     = 6,	/* pick follows the idle-duration history */
	BPFGOV_R_LONG_POLL   = 7,	/* a long poll was seen: never poll on long idles */
	BPFGOV_R_QOS         = 8,	/* pick limited by the PM QoS latency limit */
	BPFGOV_R_COST        = 9,	/* pick changed because a measured cost changed */
	BPFGOV_R_FIXED       = 10,	/* pick is the one state the CPU enters (no cpuidle driver) */
	BPFGOV_R__MAX,
};

/* One ring-buffer record. 64 bytes. */
struct bpfgov_event {
	__u64 ts_ns;			/* bpf_ktime_get_ns() */
	__u64 dur_ns;			/* kind-specific duration */
	__u32 cpu;
	__u32 kind;			/* enum bpfgov_ev_kind */
	__u32 reason;			/* enum bpfgov_reason */
	__u32 util;
	__u32 floor;
	__u32 idle_pick;
	__u32 arg0;			/* kind-specific */
	__u32 seq;			/* per-CPU decision sequence (gaps = drops) */
	/* BPFGOV_EV_IDLE_EXIT only (0 elsewhere): */
	__u64 timer_ns;			/* idle entry to the next timer's expiry (0: unknown) */
	__u32 wake;			/* enum bpfgov_wake */
	__u32 pad;
};

/*
 * The loader's state: the `loader_state` map, one entry, BPF_F_MMAPABLE and
 * pinned with the others. Declared with the BPF maps for its pin and its
 * BTF (`bpftool map dump pinned PIN/loader_state` shows every field by
 * name); the programs never touch it. `govloader start` writes it through
 * its mapping, a store per counter and no system call; `status`,
 * `metrics`, the HTTP /metrics server and the summary line read it.
 * Strings are NUL-terminated; counters count from the start.
 */

/* Where a tunable's value came from. */
enum bpfgov_origin {
	BPFGOV_ORIGIN_DEFAULT = 0,
	BPFGOV_ORIGIN_MACHINE = 1,	/* read from the machine (idle states, latency) */
	BPFGOV_ORIGIN_PROFILE = 2,
	BPFGOV_ORIGIN_FILE    = 3,	/* the config file */
	BPFGOV_ORIGIN_SET     = 4,	/* `govloader set` */
	BPFGOV_ORIGIN_CMDLINE = 5,	/* `start --set` */
	BPFGOV_ORIGIN_PPD     = 6,	/* the profile power-profiles-daemon selected */
	BPFGOV_ORIGIN__MAX,
};

/* The tunables' list (its X-macro), for their origins by name. */
#include "bpfgov_tunables.h"

/* One origin per tunable, named and ordered as the tunables' list. */
struct bpfgov_origins {
#define __BPFGOV_ORIGIN(n, d, lo, hi, u, h) enum bpfgov_origin n;
	BPFGOV_TUNABLES(__BPFGOV_ORIGIN)
#undef __BPFGOV_ORIGIN
};

/* Decision-to-write latency, in fixed buckets. Upper bounds 1, 1.2, 1.5,
 * 2, 2.5, 3, 4, 5, 6 and 8 us times 10^k, from 1 us to 100 ms (51 bounds,
 * among them the 13 of the Prometheus histogram); the last bucket holds
 * what is above 100 ms. */
#define BPFGOV_LAT_BUCKETS	52
struct bpfgov_lat_hist {
	__u64 bucket[BPFGOV_LAT_BUCKETS];
	__u64 sum_ns;
	__u64 max_ns;
};

/* What the loader applied to one CPU (backend units: HWP/CPPC levels, or
 * kHz for cpufreq). */
struct bpfgov_loader_cpu {
	__u64 writes;			/* successful floor and idle writes */
	__u64 reasserts;		/* rewrites after someone else changed a knob */
	__u64 errors;			/* writes that failed */
	__u64 driver_rewrites;		/* MSR floor: its driver rewrote the register */
	__u64 driver_races;		/* ... of them, between a write and its read-back */
	__u64 idle_writes;		/* floor writes that reached the CPU asleep (woke it) */
	__u64 idle_writes_maybe;	/* ... that may have: it slept or woke within the write */
	__u32 online;
	__u32 hw_min;			/* min field read back after the last write */
	__u32 hw_lowest;
	__u32 hw_highest;
	__u32 last_floor;		/* last floor applied, 0..1024 */
	__u32 last_pick;		/* last idle pick applied (BPFGOV_NO_STATE: none) */
};

#define BPFGOV_NAME_LEN		32
struct bpfgov_loader_state {
	__u32 pid;			/* the running `govloader start` */
	__u32 running;			/* 1 once the programs are attached and the loop runs */
	enum bpfgov_mode mode;
	__u32 nr_cpus;			/* entries of cpu[] in use */
	__u32 dry_run;
	__u32 floor_applied;		/* 0: --no-floor */
	__u32 idle_applied;		/* 0: --no-idle */
	__u32 taints_kernel;		/* every MSR write taints the kernel */
	__u32 follow_ppd;		/* following power-profiles-daemon */
	__u32 scx_restarts;
	char backend[BPFGOV_NAME_LEN];	/* floor backend */
	char epp[BPFGOV_NAME_LEN];	/* energy-performance preference set ("": none) */
	char profile[BPFGOV_NAME_LEN];	/* bpfgov profile in force */
	char ppd_profile[BPFGOV_NAME_LEN];	/* PPD's active profile ("": unknown) */
	char idle_driver[64];
	char idle_governor[BPFGOV_NAME_LEN];	/* cpuidle governor the picks work inside */
	char backend_reason[512];	/* why that backend */
	char missing[1024];		/* what a floor backend lacks ("": nothing) */
	/* counters of the event loop */
	__u64 decisions;		/* records read from `events` */
	__u64 floor_decisions;
	__u64 pick_decisions;
	__u64 actuation_errors;
	__u64 seq_gaps;			/* decisions lost (per-CPU sequence gaps) */
	/* the loader's own cost: its wake-ups, and its CPU time (all
	 * threads, refreshed once a second and at exit) */
	__u64 loop_wakeups;
	__u64 loader_cpu_ns;
	__u64 idle_cpu_writes;		/* sum of cpu[].idle_writes */
	__u64 idle_cpu_writes_maybe;
	__u64 deferred_floor_changes;	/* floor changes held for a sleeping CPU */
	__u64 held_applied_at_wake;	/* ... applied once their CPU ran */
	__u64 held_applied_within_2ms;	/* ... within 2 ms of its record */
	__u64 held_apply_max_ns;
	__u64 held_reasserts;		/* re-asserts held for a sleeping CPU, made as it ran */
	__u64 held_forced;		/* held re-asserts made on a CPU whose busy runs
					 * end before the loader can read back */
	__u64 held_floor_waits;		/* held floors of such a CPU, left to a check that
					 * finds it running instead of a record per run */
	__u64 reapplies;		/* after CPU online or resume */
	__u64 profile_switches;		/* power-profiles-daemon switches applied */
	__u64 on_deciding_cpu;		/* applied decisions: the loader ran on the deciding CPU */
	__u64 on_other_cpu;		/* ... or not */
	/* decision to completed write, and its two parts: to the loader
	 * running (woken, or already awake), and from there to the write */
	struct bpfgov_lat_hist lat;
	struct bpfgov_lat_hist lat_wake;
	struct bpfgov_lat_hist lat_proc;
	struct bpfgov_origins origin;
	char config_file[4096];		/* "": none */
	/* the platform probe's facts, rendered once at start (they do not
	 * change while it runs): a summary line and a JSON object */
	char platform_summary[512];
	char platform_json[4096];
	struct bpfgov_loader_cpu cpu[BPFGOV_MAX_CPUS];
};

#endif /* __BPFGOV_H */
