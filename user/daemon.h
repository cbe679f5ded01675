/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The `start` daemon's state and the calls between its parts. User space
 * only, internal to the daemon:
 *   start.c        set-up, the loop, clean-up (do_start)
 *   start_opts.c   options, their usage and the configuration they build
 *   daemon_bpf.c   pins, the stale journal, BPF load, maps, unload
 *   apply.c        the application of a decision (floor, idle pick)
 *   latency.c      decision-to-write latency, into the state map
 *   publish.c      the state map (loader_state), summary line, metrics server
 *   watch.c        resume, hotplug and power-profiles-daemon
 *   loop.c         the event loop and its once-a-second work
 */
#ifndef __BPFGOV_DAEMON_H
#define __BPFGOV_DAEMON_H

#ifdef __BPF__
#error "user/daemon.h is for user space only"
#endif

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "bpfgov.h"
#include "config.h"

struct journal;
struct bpfgov_trace;
struct scx_ctx;
struct bpf_object;
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
	struct bpfgov_trace *trace;
	struct scx_ctx *scx;
	struct bpf_object *obj;
	struct ring_buffer *rb;
	int rb_epfd;			/* the ring buffer's epoll instance */
	struct actuator *act;
	int cpu_fd, ctl_fd;
	/* cpu_state mapped (BPF_F_MMAPABLE): read without a system call */
	const void *cpu_mm;
	size_t cpu_mm_len;
	/* what was applied */
	__u64 decisions, floor_dec, pick_dec, act_errors, seq_gaps;
	__u32 *last_seq;
	__u64 woke_ns;			/* when the loop last came out of its wait */
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
	bool *idle_now;			/* scratch: CPUs idle at the re-assert */
	__u64 idle_cpu_writes;		/* floor writes that reached an idle CPU (it slept
					 * through the write: write_hit_idle) */
	__u64 idle_cpu_writes_maybe;	/* ... that may have: it fell asleep or woke
					 * within the write */
	__u64 held_applied;		/* held floors applied once their CPU ran */
	__u64 held_wake_2ms;		/* ... by its record, within 2 ms of it */
	__u64 held_wake_ns_max;		/* ... the longest time from the record */
	__u64 deferred;			/* floor changes held for an idle CPU */
	/* resume and hotplug (platform_watch) */
	char online[256];		/* devices/system/cpu/online, last seen */
	int online_fd;			/* ... kept open: one pread per check */
	__s64 boot_off_ns;		/* CLOCK_BOOTTIME - CLOCK_MONOTONIC */
	__u64 reapplies;
	__u64 next_watch_ns;
	pid_t pid;
};

/* An array map's values are 8-byte aligned. */
#define CPU_STATE_STRIDE	((sizeof(struct bpfgov_cpu_state) + 7) & ~(size_t)7)

/* Set by SIGINT/SIGTERM (start.c's handler; loop.c): the loop ends,
 * clean-up restores. */
extern volatile sig_atomic_t gov_exiting;

/* start_opts.c */
int build_config(struct gov *g, const char *profile);

/* daemon_bpf.c */
int restore_stale_journal(struct gov *g);
int map_fd(struct gov *g, const char *name);
void unload_bpf(struct gov *g);
int load_bpf(struct gov *g);

/* latency.c */
void lat_add(struct gov *g, __u64 ts, __u32 cpu);

/* apply.c */
int on_decision(void *ctx, void *data, size_t size);
bool cpu_idle(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s);
int floor_apply(struct gov *g, __u32 cpu, __u32 floor);
void floor_flush(struct gov *g);
int read_cpu(const struct gov *g, __u32 cpu, struct bpfgov_cpu_state *s);

/* publish.c */
int pub_reuse(struct gov *g);
int pub_open(struct gov *g);
void pub_sync(struct gov *g, bool all);
void pub_close(struct gov *g);
int write_json_file(struct gov *g, const char *path);
void print_summary(struct gov *g, double t, __u64 dec_delta);
int start_metrics(struct gov *g);

/* watch.c */
int open_ppd(struct gov *g);
void follow_ppd(struct gov *g);
__s64 boot_offset_ns(void);
void read_online(struct gov *g, char *buf, size_t n);
void platform_watch(struct gov *g, __u64 now);
bool cpu_is_online(int cpu);

/* loop.c */
int run_loop(struct gov *g, __u64 t0, __u64 deadline);

#endif
