// SPDX-License-Identifier: GPL-2.0
/*
 * `govlab record FILE`: copy the live busy/idle/wake stream of a running
 * `govloader start` (through the tap ring buffer) into a trace file.
 *
 * Records are kept in memory and sorted once at the end: the ring buffer
 * is shared by all CPUs, so records reach us only roughly in time order,
 * and the format wants them sorted. A record costs 40 bytes here; a very
 * busy 2-CPU host produces well under 1 MB/s.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "common.h"
#include "log.h"
#include "replay.h"
#include "tap.h"
#include "tunables.h"
#include "bpfgov_tunables.h"
#include "govlab_cmds.h"

struct rec_ctx {
	struct trace *t;
	__u64 bad;			/* records we could not place (cpu/state) */
	__u64 counts[BPFGOV_EV__MAX];
	__u64 start_ns;			/* CLOCK_MONOTONIC, as the records' */
	__u64 stale;			/* records that ended before the start */
	int nomem;
};

static volatile sig_atomic_t rec_stop;

static void rec_on_signal(int sig)
{
	(void)sig;
	rec_stop = 1;
}

static int rec_sample(void *ctx, void *data, size_t size)
{
	struct rec_ctx *rc = ctx;
	const struct bpfgov_event *e = data;
	__u32 state = TRACE_NO_STATE;

	if (size < sizeof(*e))
		return 0;
	switch (e->kind) {
	case BPFGOV_EV_IDLE_EXIT:
	case BPFGOV_EV_WAKE_LAT:
		state = e->arg0;
		if (state >= rc->t->nr_states) {
			rc->bad++;
			return 0;
		}
		break;
	case BPFGOV_EV_BUSY:
	case BPFGOV_EV_IDLE_GAP:
		break;
	default:
		return 0;	/* decisions etc. are not part of a trace */
	}
	if (e->cpu >= rc->t->nr_cpus || e->dur_ns > e->ts_ns) {
		rc->bad++;
		return 0;
	}
	/* The tap ring may still hold what an earlier reader left unread
	 * (events from before this recording): a trace begins at its start. */
	if (e->ts_ns < rc->start_ns) {
		rc->stale++;
		return 0;
	}
	/* An idle exit without a residency carries nothing to replay. */
	if (e->kind == BPFGOV_EV_WAKE_LAT && !e->dur_ns)
		return 0;
	if (e->kind == BPFGOV_EV_IDLE_EXIT) {
		/* Version 2 fields: the next timer as read at idle entry
		 * (0: the CPU has not learned where its timer is yet), and
		 * what ended the residency. */
		static const __u32 wake_of[BPFGOV_WAKE__MAX] = {
			[BPFGOV_WAKE_OTHER] = TRACE_WAKE_OTHER,
			[BPFGOV_WAKE_TIMER] = TRACE_WAKE_TIMER,
			[BPFGOV_WAKE_REMOTE] = TRACE_WAKE_IPI,
			[BPFGOV_WAKE_LIMIT] = TRACE_WAKE_LIMIT,
		};

		if (trace_add_idle(rc->t, e->ts_ns, e->dur_ns, e->cpu, state,
				   e->timer_ns ? e->timer_ns : TRACE_NO_TIMER,
				   e->wake < BPFGOV_WAKE__MAX ? wake_of[e->wake] : TRACE_WAKE_UNKNOWN)) {
			rc->nomem = 1;
			return -ENOMEM;
		}
	} else if (trace_add(rc->t, e->ts_ns, e->dur_ns, e->cpu, e->kind, state)) {
		rc->nomem = 1;
		return -ENOMEM;
	}
	rc->counts[e->kind]++;
	return 0;
}

/* The traced machine's idle-state table, from the same source the loader
 * configures bpfgov with (sys_idle_table), plus the state names. */
static int rec_header(struct trace *t, const char *sysfs_root)
{
	struct bpfgov_config c;
	char driver[64], gov[64], path[PATH_MAX], host[64];
	int err;

	bpfgov_config_defaults(&c);
	err = sys_idle_table(sysfs_root, &c, driver, sizeof(driver));
	if (err)
		return err;	/* said why in one line */
	t->nr_cpus = (__u32)sys_nr_cpus();
	if (!t->nr_cpus || t->nr_cpus > BPFGOV_MAX_CPUS)
		t->nr_cpus = t->nr_cpus ? BPFGOV_MAX_CPUS : 1;
	t->nr_states = c.nr_states;
	for (__u32 k = 0; k < t->nr_states; k++) {
		struct trace_state *s = &t->states[k];

		if (fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%u/name",
				sysfs_root, k) < 0 || read_line(path, s->name, sizeof(s->name)))
			snprintf(s->name, sizeof(s->name), "%s", c.state_is_poll[k] ? "POLL" : "HALT");
		s->exit_latency_us = c.state_exit_latency_us[k];
		s->residency_us = c.state_residency_us[k];
		s->is_poll = c.state_is_poll[k];
	}
	if (fmt_checked(path, sizeof(path), "%s/devices/system/cpu/cpuidle/current_governor",
			sysfs_root) < 0 || read_line(path, gov, sizeof(gov)))
		snprintf(gov, sizeof(gov), "none");
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	snprintf(t->source, sizeof(t->source), "record host=%s cpuidle=%s governor=%s", host,
		 driver, gov);
	return 0;
}

static void record_usage(FILE *out)
{
	fprintf(out,
		"Usage: govlab record FILE [--duration S] [--pin-root DIR] [--sysfs-root DIR]\n"
		"Record per-CPU busy runs, idle gaps, idle-state residencies and wake-up latency\n"
		"samples from a running 'govloader start' into a trace (docs/trace-format.md).\n"
		"  -d, --duration S      stop after S seconds (default: until Ctrl-C)\n"
		"  -p, --pin-root DIR    bpffs directory of the running instance (%s)\n"
		"  -s, --sysfs-root DIR  where to read the idle-state table (%s)\n"
		"  -h, --help            this text\n", DEFAULT_PIN_ROOT, DEFAULT_SYSFS_ROOT);
}

int do_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "pin-root", required_argument, NULL, 'p' },
		{ "sysfs-root", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pin_root = DEFAULT_PIN_ROOT, *sysfs_root = DEFAULT_SYSFS_ROOT, *file;
	struct sigaction sa = { .sa_handler = rec_on_signal };
	struct rec_ctx rc = { 0 };
	struct tap *tap = NULL;
	struct trace t;
	double duration = 0, start, last_check;
	char msg[512];
	int c, ret = 2, err;

	trace_init(&t);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "d:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (cli_seconds("record", "duration", optarg, &duration))
				return 2;
			break;
		case 'p':
			pin_root = optarg;
			break;
		case 's':
			sysfs_root = optarg;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			pr_warn("record: unknown or incomplete option '%s' (see --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		pr_warn("record: need exactly one output FILE (see --help)\n");
		return 2;
	}
	file = argv[optind];

	/* Fail now rather than after a long recording, writing nothing: the
	 * writer creates a private temp file (O_EXCL) beside FILE and renames
	 * it over FILE. */
	err = check_creatable(file);
	if (err) {
		pr_warn("record: cannot write %s: %s\n", file, strerror(-err));
		return 1;
	}
	if (rec_header(&t, sysfs_root)) {
		ret = 1;
		goto out;
	}
	rc.t = &t;
	rc.start_ns = mono_ns();
	err = tap_open(pin_root, (1u << BPFGOV_EV_IDLE_EXIT) | (1u << BPFGOV_EV_BUSY) |
				 (1u << BPFGOV_EV_IDLE_GAP) | (1u << BPFGOV_EV_WAKE_LAT),
		       rec_sample, &rc, &tap);
	if (err) {
		/* tap_open said why in one line. */
		ret = err == -ENOENT || err == -ESRCH ? EXIT_NOT_RUNNING : 1;
		goto out;
	}
	rec_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pr_info("record: recording to %s%s\n", file, duration ? "" : " until Ctrl-C");
	start = last_check = mono_ns() / 1e9;
	ret = 1;
	while (!rec_stop) {
		double now;

		err = tap_poll(tap, 100);
		if (err < 0 && err != -EINTR) {
			pr_warn("record: reading the tap failed: %s\n", strerror(-err));
			goto out;
		}
		if (rc.nomem) {
			pr_warn("record: out of memory after %zu records\n", t.nr);
			goto out;
		}
		now = mono_ns() / 1e9;
		if (duration && now - start >= duration)
			break;
		if (now - last_check >= 1.0) {
			last_check = now;
			if (!tap_loader_alive(tap)) {
				pr_warn("record: 'govloader start' went away; saving what was recorded\n");
				break;
			}
		}
	}
	tap_drain(tap);
	tap_close(tap);
	tap = NULL;
	if (rc.nomem) {
		pr_warn("record: out of memory after %zu records\n", t.nr);
		goto out;
	}
	trace_sort(&t);
	if (trace_save(file, &t, msg, sizeof(msg))) {
		pr_warn("record: %s\n", msg);
		goto out;
	}
	pr_info("record: %zu records (%llu busy, %llu gap, %llu idle, %llu wake) in %.1f s to %s%s\n",
		t.nr, (unsigned long long)rc.counts[BPFGOV_EV_BUSY],
		(unsigned long long)rc.counts[BPFGOV_EV_IDLE_GAP],
		(unsigned long long)rc.counts[BPFGOV_EV_IDLE_EXIT],
		(unsigned long long)rc.counts[BPFGOV_EV_WAKE_LAT], mono_ns() / 1e9 - start, file,
		rc.bad ? " (some records skipped: CPU or state out of range)" : "");
	if (rc.stale)
		pr_info("record: %llu records of events before the start (left in the tap ring) skipped\n",
			(unsigned long long)rc.stale);
	ret = 0;
out:
	tap_close(tap);
	trace_free(&t);
	return ret;
}
