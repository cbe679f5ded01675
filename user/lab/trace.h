/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfgov trace files (docs/trace-format.md): a versioned text format that
 * `govlab record` and `govlab synth` write and `govlab replay`
 * reads. Text on purpose: other tools (awk, python, a spreadsheet) can
 * write a trace without a library, and a damaged file is readable by eye.
 */
#ifndef __BPFGOV_TRACE_H
#define __BPFGOV_TRACE_H

#ifdef __BPF__
#error "user/lab/trace.h is for user space only"
#endif

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>
#include "bpfgov.h"

#define TRACE_MAGIC		"bpfgov-trace"
#define TRACE_VERSION		2	/* the newest this reader knows; it reads 1 too */
#define TRACE_VERSION_MIN	1
#define TRACE_NO_TIMER		(~0ull)	/* next timer unknown */
#define TRACE_NAME_LEN		32
#define TRACE_SOURCE_LEN	256
#define TRACE_NO_STATE		0xffffffffu

/* One idle state of the traced machine, as its cpuidle driver describes it,
 * plus what a wake-up out of it really costs when the writer knows that. */
struct trace_state {
	char name[TRACE_NAME_LEN];
	__u32 exit_latency_us;		/* driver table */
	__u32 residency_us;		/* driver table (target residency) */
	__u32 is_poll;			/* 1: a polling state */
	__u64 cost_ns;			/* real wake-up cost; 0: unknown */
};

/* What ended an idle residency (trace version 2, `idle` records). */
enum trace_wake {
	TRACE_WAKE_UNKNOWN = 0,		/* "-": not recorded (every version 1 trace) */
	TRACE_WAKE_TIMER   = 1,		/* "timer": a timer (or the tick) expired */
	TRACE_WAKE_IPI     = 2,		/* "ipi": another CPU woke it (IPI or need_resched) */
	TRACE_WAKE_OTHER   = 3,		/* "other": a device interrupt or anything else */
	TRACE_WAKE_LIMIT   = 4,		/* "limit": a poll ran into the kernel's poll time
					 * limit; the idle period goes on in the next record */
	TRACE_WAKE__MAX,
};

/* Record kinds reuse the ring-buffer numbering so a recorder copies them.
 * A recorder fills an `idle` record with trace_add_idle(). */
struct trace_rec {
	__u64 ts_ns;			/* end of the interval (CLOCK_MONOTONIC) */
	__u64 dur_ns;			/* length of the interval ending at ts_ns */
	__u32 cpu;
	__u32 kind;			/* BPFGOV_EV_BUSY/IDLE_GAP/IDLE_EXIT/WAKE_LAT */
	__u32 state;			/* idle/wake: state index; else TRACE_NO_STATE */
	__u32 wake;			/* idle: enum trace_wake */
	__u64 next_timer_ns;		/* idle: idle entry to the CPU's next timer expiry
					 * as programmed at entry; TRACE_NO_TIMER: unknown */
};

struct trace {
	__u32 version;			/* as read; the writer picks the lowest that fits */
	__u32 nr_cpus;
	__u32 nr_states;
	struct trace_state states[BPFGOV_MAX_STATES];
	char source[TRACE_SOURCE_LEN];
	struct trace_rec *recs;
	size_t nr, cap;
};

void trace_init(struct trace *t);
void trace_free(struct trace *t);
/* Append one record (no ordering check; see trace_sort). 0 or -ENOMEM. */
int trace_add(struct trace *t, __u64 ts_ns, __u64 dur_ns, __u32 cpu, __u32 kind, __u32 state);
/* Append an `idle` record with the version 2 fields: @next_timer_ns from
 * idle entry (TRACE_NO_TIMER: unknown), @wake an enum trace_wake. */
int trace_add_idle(struct trace *t, __u64 ts_ns, __u64 dur_ns, __u32 cpu, __u32 state,
		   __u64 next_timer_ns, __u32 wake);
/* "timer", "ipi", "other", "-" and back (TRACE_WAKE__MAX when unknown). */
const char *trace_wake_name(__u32 wake);
__u32 trace_wake_parse(const char *s);
/* 1 when some record carries a version 2 field. */
int trace_has_v2(const struct trace *t);
/* Stable sort by end time, so a writer may produce records out of order. */
void trace_sort(struct trace *t);
/* The kinds a trace holds, by file name ("busy", ...) and back. */
const char *trace_kind_name(__u32 kind);
__u32 trace_kind_parse(const char *s);	/* 0 when unknown */

/*
 * Read @path. On failure returns -errno (-EINVAL for a malformed file) and
 * writes one line "PATH:LINE: reason" (no newline) to @err; the caller
 * decides whether to print it.
 */
int trace_load(const char *path, struct trace *t, char *err, size_t errlen);
/* Parse from an open stream; @name is used in messages. */
int trace_parse(FILE *f, const char *name, struct trace *t, char *err, size_t errlen);
/* Check header and records as the reader would (writer side self-check). */
int trace_validate(const struct trace *t, char *err, size_t errlen);
/* Write @t to @path atomically (temp file + rename). 0 or -errno, @err set. */
int trace_save(const char *path, const struct trace *t, char *err, size_t errlen);
int trace_write(FILE *f, const struct trace *t);

#endif /* __BPFGOV_TRACE_H */
