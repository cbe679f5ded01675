/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The `start` daemon's state and the calls between its parts. User space
 * only, internal to the daemon. start.c is the hub: it sets up and tears
 * down the parts below, and the loop (loop.c) calls them; a part calls no
 * part beside it, only what lies under it (a decision's latency, the
 * configuration it is given). One prefix per part:
 *   start.c        start_   set-up and clean-up (do_start)
 *   start_opts.c   start_   options, their usage and the configuration
 *   loop.c         loop_    the event loop and its once-a-second work
 *   daemon_bpf.c   bpfs_    the BPF side: load, maps, unload, and the
 *                           mode's calls through struct bpfs_ops
 *   bpfs_trace.c   bpfs_    tracepoint mode's bpfs_ops
 *   bpfs_scx.c     bpfs_    sched_ext mode's bpfs_ops
 *   apply.c        apply_   the application of a decision (floor, idle pick)
 *   watch.c        watch_   resume, hotplug and power-profiles-daemon
 *   publish.c      pub_     the state map (loader_state), summary line, metrics server
 *   latency.c      lat_     decision-to-write latency, into the state map
 */
#ifndef __BPFGOV_DAEMON_H
#define __BPFGOV_DAEMON_H

#ifdef __BPF__
#error "user/daemon/daemon.h is for user space only"
#endif

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <bpf/bpf.h>
#include "bpfgov.h"
#include "config.h"

struct journal;
struct bpf_object;
struct bpf_object_open_opts;
struct bpfs_ops;
struct timer_learner;
struct ring_buffer;
struct actuator;
struct met_server;
struct ppd;

struct gov {
	const struct start_opts *o;
	struct bpfgov_config cfg;
	struct gov_config gc;		/* cfg and where each value came from */
	struct journal *jnl;		/* originals, on disk before each first write */
	char idle_driver[64];
	int nr_cpus;
	enum bpfgov_mode mode;
	int lock_fd;
	bool pins_made;
	const struct bpfs_ops *bops;	/* the mode's BPF side (daemon_bpf.c) */
	void *bmode;			/* ... its object, NULL when unloaded */
	struct bpf_object *obj;
	struct ring_buffer *rb;
	int rb_epfd;			/* the ring buffer's epoll instance */
	struct actuator *act;
	__u32 floor_eff_hw;		/* act_floor_eff(), once the floor backend is open */
	int cpu_fd, ctl_fd, tun_fd;	/* cpu_state, control, tunables */
	/* cpu_state mapped (BPF_F_MMAPABLE): read without a system call */
	const void *cpu_mm;
	size_t cpu_mm_len;
	/* what was applied */
	__u64 decisions, floor_dec, pick_dec, act_errors, seq_gaps;
	__u32 *last_seq;
	__u64 woke_ns;			/* when the loop last came out of its wait */
	__u64 wakeups;			/* ... how many times */
	int scx_restarts;
	/* the loader_state map, mapped (publish.c); its fd outlives reloads */
	struct bpfgov_loader_state *st;
	int st_fd;
	__u64 st_seen;			/* decisions + errors + re-applies at the last sync */
	struct met_server *met_srv;	/* --metrics-listen */
	struct ppd *ppd;		/* --follow-ppd */
	/* no wake-ups by actuation (floor_defer) */
	bool *pend;			/* a floor waits until the CPU runs */
	__u32 *pend_floor;
	bool *re_pend;			/* a re-assert waits until the CPU runs */
	__u64 *hold_ran_ns;		/* a held re-assert's last record that found its CPU
					 * idle again */
	__u64 *floor_ran_ns;		/* ... a held floor's */
	__u64 idle_cpu_writes;		/* floor writes that reached an idle CPU (it slept
					 * through the write: write_hit_idle) */
	__u64 idle_cpu_writes_maybe;	/* ... that may have: it fell asleep or woke
					 * within the write */
	__u64 held_applied;		/* held floors applied once their CPU ran */
	__u64 held_wake_2ms;		/* ... by its record, within 2 ms of it */
	__u64 held_wake_ns_max;		/* ... the longest time from the record */
	__u64 deferred;			/* floor changes held for an idle CPU */
	__u64 held_reasserts;		/* re-asserts held for an idle CPU, made as it ran */
	__u64 held_forced;		/* held re-asserts made on a CPU whose runs end
					 * before the loader can read back (hold_runs_out) */
	__u64 held_floor_waits;	/* held floors of such a CPU, no longer asked for
					 * a record at every run (runs_too_short) */
	/* resume and hotplug (watch_platform) */
	char online[256];		/* devices/system/cpu/online, last seen */
	int online_fd;			/* ... kept open: one pread per check */
	__s64 boot_off_ns;		/* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	__u64 reapplies;
	__u64 next_watch_ns;
	pid_t pid;
};

/* An array map's values are 8-byte aligned. */
#define CPU_STATE_STRIDE	((sizeof(struct bpfgov_cpu_state) + 7) & ~(size_t)7)

/* Set by SIGINT/SIGTERM (start.c's handler): the loop ends, clean-up
 * restores. */
extern volatile sig_atomic_t loop_exiting;

/* --- start_opts.c --- */
/* Tunables: defaults and the machine's idle-state table, then profile,
 * config file and --set. @profile: power-profiles-daemon's, mapped
 * (origin "ppd"), or NULL. */
int start_config(struct gov *g, const char *profile);
void start_floor_eff(struct gov *g);

/* --- daemon_bpf.c: the BPF side --- */
/*
 * A mode's BPF object, behind one table as the actuator's floor backends
 * are (act_backend.h): daemon_bpf.c loads, initialises and unloads it
 * through these calls, the loop drives it through the bpfs_* calls below.
 */
struct bpfs_ops {
	const char *name;
	/* Open the object into g->bmode and g->obj (not loaded); -errno
	 * after one pr_warn line. */
	int (*open)(struct gov *g, const struct bpf_object_open_opts *oo);
	int (*load)(struct gov *g);
	int (*attach)(struct gov *g);
	/* Detach (if attached) and free g->bmode. */
	void (*close)(struct gov *g);
	/* After attach: what the mode adds to the "attached" line. */
	void (*say)(struct gov *g);
	/* Wake-up cost stamps on or off. */
	void (*wake_sample)(struct gov *g, bool on);
	/* The next-timer learner; -ENOENT where the object has none. */
	int (*timer_learner)(struct gov *g, struct timer_learner *t);
	/* NULL where the kernel cannot stop the mode on its own: see
	 * bpfs_ended(). */
	int (*ended)(struct gov *g, char *why, size_t n);
	/* Test build only: raise a BPF-side error (NULL: none). */
	int (*test_error)(struct gov *g);
};

extern const struct bpfs_ops bpfs_trace_ops;	/* bpfs_trace.c */
extern const struct bpfs_ops bpfs_scx_ops;	/* bpfs_scx.c */

/* Open, load, initialise the maps, attach and open the events ring, whose
 * records go to @on_event (ctx: @g), through the mode's @ops (the hub,
 * start.c, picks them); -errno after one pr_warn line. A reload after an
 * ejection keeps what `set` changed. */
int bpfs_load(struct gov *g, const struct bpfs_ops *ops,
	      int (*on_event)(void *ctx, void *data, size_t size));
/* Unpin, detach, free; again is harmless. */
void bpfs_unload(struct gov *g);
/* A map of the loaded object by its pin name, -ENOENT if none. */
int bpfs_map_fd(const struct gov *g, const char *name);
/* Wake-up cost samples on or off. */
void bpfs_wake_sample(struct gov *g, bool on);
/* Attach the next-timer learner while an online CPU has not learned its
 * timer base, detach it once all have. */
void bpfs_timer_learning(struct gov *g);
/* Did the kernel stop the BPF side? 0 while it runs, BPFS_UNREGISTERED or
 * BPFS_EJECTED (an error) with the kernel's reason in @why. */
#define BPFS_UNREGISTERED	1
#define BPFS_EJECTED		2
int bpfs_ended(struct gov *g, char *why, size_t n);
/* Test build only: raise a BPF-side error; -EOPNOTSUPP in a mode without. */
int bpfs_test_error(struct gov *g);

/* A CPU's state as the BPF programs keep it: from the mapped array (as a
 * lookup, a copy that may straddle an update), else by a lookup. */
static inline int bpfs_read_cpu(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s)
{
	if (g->cpu_mm && cpu < (__u32)g->nr_cpus) {
		memcpy(s, (const char *)g->cpu_mm + cpu * CPU_STATE_STRIDE, sizeof(*s));
		return 0;
	}
	return bpf_map_lookup_elem(g->cpu_fd, &cpu, s) ? -errno : 0;
}

/* Idle now (cpu_state): no task runs and an idle period is open. */
static inline bool bpfs_cpu_idle(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s)
{
	return !bpfs_read_cpu(g, cpu, s) && !s->busy && s->idle_since_ns;
}

/* --- latency.c --- */
void lat_add(struct gov *g, __u64 ts, __u32 cpu);

/* --- apply.c --- */
/* A decision record from the events ring (ring_buffer_sample_fn). */
int apply_event(void *ctx, void *data, size_t size);
/* A floor, now or held until the CPU runs: 1 held, 0 applied, -errno.
 * @rec_ns: the time of the CPU's own record that brought it (0: none). */
int apply_floor(struct gov *g, __u32 cpu, __u32 floor, __u64 rec_ns);
/* Held floors of CPUs that run again. */
void apply_flush(struct gov *g);
/* Re-assert what others rewrote, except on idle CPUs. */
void apply_reassert(struct gov *g);
/* Every CPU's floor and pick again (after resume or hotplug). */
void apply_all(struct gov *g);

/* --- publish.c --- */
void pub_open(struct gov *g);
void pub_sync(struct gov *g, bool all);
void pub_close(struct gov *g);
int write_json_file(struct gov *g, const char *path);
void print_summary(struct gov *g, double t, __u64 dec_delta);
int start_metrics(struct gov *g);

/* --- watch.c --- */
/* --follow-ppd: connect and take PPD's profile before anything loads. */
int watch_ppd_open(struct gov *g);
/* PPD switched profile: the tunables rebuilt and written (g->tun_fd). */
void watch_ppd(struct gov *g);
/* The online mask and the boot offset, as the watch starts from them. */
void watch_init(struct gov *g);
/* Resume or hotplug since the last call: how many times everything is to
 * be applied again (0: nothing changed). */
int watch_platform(struct gov *g, __u64 now);

/* --- loop.c --- */
/* Returns 0 on a requested stop, 1 when the BPF side was ejected (an
 * error), -errno on a failure. */
int loop_run(struct gov *g, __u64 t0, __u64 deadline);

#endif
