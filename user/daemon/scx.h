/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_ext mode, loader side: open/load/attach the bpfgov_scx skeleton and
 * report why the kernel stopped it.  The caller (govloader) treats the
 * returned bpf_object like the tracepoint object: it finds the shared maps
 * by name (cpu_state, config, control, events, tap, ...) to size, reuse or
 * pin them between scx_open() and scx_load(), so status/tail/dump do not
 * care which mode produced them.
 *
 * Typical use:
 *	if (scx_supported()) {
 *		c = scx_open(&(struct scx_opts){ .partial = p });
 *		... configure maps through scx_obj(c) ...
 *		scx_load(c); ... fill config/cpu_state ...; scx_attach(c);
 *		while (running) { ...; if (scx_exited(c, &e)) break; }
 *		scx_detach(c); scx_close(c);
 *	}
 * Every int function returns 0 or a negative errno.
 */
#ifndef __BPFGOV_SCX_H
#define __BPFGOV_SCX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct bpf_object;
struct bpf_program;
struct bpf_link;
struct scx_ctx;

struct scx_opts {
	bool partial;		/* SCX_OPS_SWITCH_PARTIAL: only SCHED_EXT tasks */
	unsigned int nr_cpus;	/* 0: libbpf_num_possible_cpus(); sets the
				 * nr_cpus rodata and cpu_state's size */
	const char *pin_root;	/* pin_root_path for the LIBBPF_PIN_BY_NAME
				 * maps (NULL: libbpf's /sys/fs/bpf) */
	const char *btf_path;	/* btf_custom_path for CO-RE (NULL: the
				 * kernel's own BTF) */
	unsigned int timeout_ms;/* watchdog timeout (0: the object's 10 s) */
	bool sched_only;	/* bench/test only: schedule, do not govern */
	unsigned int nr_states;	/* idle states of the machine's table (0: the
				 * largest table); a rodata constant */
	const char *topo_root;	/* sysfs root the CPU -> last-level cache map
				 * is read from (NULL: "/sys"; user/platform/topo.c) */
	bool idle_states;	/* the cpuidle driver offers states to choose
				 * from: cpu_idle books the state entered */
};

struct scx_exit {
	int kind;		/* enum scx_exit_kind (0: still running) */
	long long code;		/* exit_code (scx_bpf_exit) */
	char reason[128];	/* kernel's short reason */
	char msg[1024];		/* scx_bpf_error()/watchdog message */
};

/* 1 when this kernel can run a sched_ext scheduler, else 0. */
int scx_supported(void);

/* The next-timer learner of a loaded object (hrtimer_expire_entry): its
 * program, the slot of its link, and the timer bases it fills in. */
struct timer_learner {
	struct bpf_program *prog;
	struct bpf_link **link;
	const unsigned long long *bases;	/* [BPFGOV_MAX_CPUS] */
};
/* The scheduler's learner; -ENOENT where it is not loaded (--sched-only). */
int scx_timer_learner(struct scx_ctx *c, struct timer_learner *t);

/* Open the skeleton and apply @o; NULL (errno set) on failure. */
struct scx_ctx *scx_open(const struct scx_opts *o);
/* The libbpf object, for the caller's map handling before/after load. */
struct bpf_object *scx_obj(struct scx_ctx *c);
int scx_load(struct scx_ctx *c);
/* Register the scheduler; waits (<= 5 s) for state "enabled". */
int scx_attach(struct scx_ctx *c);
/* 1 once the kernel has stopped the scheduler (error, watchdog, sysrq,
 * unregister), filling @e when not NULL; 0 while it runs. Cheap: reads an
 * mmapped variable, meant for the loader's poll loop. */
int scx_exited(struct scx_ctx *c, struct scx_exit *e);
/* Test only: make the BPF side raise scx_bpf_error() on its next tick. */
int scx_trigger_test_error(struct scx_ctx *c);
/* Wake-up cost stamps on (the default) or off: the loader samples them
 * four seconds in sixteen. */
int scx_wake_sample(struct scx_ctx *c, bool on);
/* Unregister (if attached) and wait (<= 5 s) for state "disabled". */
int scx_detach(struct scx_ctx *c);
void scx_close(struct scx_ctx *c);

/* "error (BPF): scx_bpf_error: <msg>"-style one-line description. */
void scx_format_exit(const struct scx_exit *e, char *buf, size_t len);
/* true for the kinds that mean something went wrong (kind >= 1024). */
bool scx_exit_is_error(const struct scx_exit *e);
/* Name of an exit kind ("error_bpf", "unreg", ...). */
const char *scx_exit_kind_name(int kind);

/* /sys/kernel/sched_ext/state into @buf ("enabled", "disabled", ...). */
int scx_state(char *buf, size_t len);
/* The running scheduler's name (root/ops), "" when none. */
int scx_ops_name(char *buf, size_t len);
/* Counters kept by the BPF side, for `status`. */
struct scx_stats {
	unsigned long long nr_local, nr_shared, nr_kicks, nr_perf_sets, nr_pinned, nr_kept,
			   nr_rescued, nr_stolen, nr_preempts;
};
int scx_get_stats(struct scx_ctx *c, struct scx_stats *st);
/* Last-level-cache domains the scheduler queues by (one DSQ each). */
unsigned int scx_nr_llcs(struct scx_ctx *c);

#endif /* __BPFGOV_SCX_H */
