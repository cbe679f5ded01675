// SPDX-License-Identifier: GPL-2.0
/* govloader tail: stream the live decisions from the tap ring buffer. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "common.h"
#include "gov.h"
#include "json_writer.h"
#include "log.h"
#include "tap.h"
#include "govloader_cmds.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static const char tail_usage[] =
"Usage: govloader tail [--json] [--cpu N] [--count N] [--all] [--time wall|rel]\n"
"                     [--pin-root DIR]\n"
"Stream live decisions of the running instance. It reads its own ring\n"
"buffer ('tap'), so it never takes records 'start' needs to actuate. Each\n"
"line starts with the record's CLOCK_MONOTONIC seconds.\n"
"  --json            one JSON object per record (ts_ns: monotonic)\n"
"  --cpu N           only CPU N (a possible CPU of this machine)\n"
"  --all             also per-event detail: idle exits, busy runs, idle gaps,\n"
"                    wake latencies (only these lines carry 'dur')\n"
"  --count N         stop after N records\n"
"  --time wall|rel   add a readable time before the monotonic seconds: the\n"
"                    wall clock (HH:MM:SS.us, local time) or the seconds since\n"
"                    tail started (+S.us); --json output is unchanged\n"
"  --pin-root DIR    where the maps are pinned (" DEFAULT_PIN_ROOT ")\n";

struct tail_ctx {
	struct cli_opts *o;
	long printed;
	__s64 wall_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
	__u64 t0_ns;		/* CLOCK_MONOTONIC when tail started */
};

/* --time: the readable column before the monotonic seconds. */
static void print_time(const struct tail_ctx *t, __u64 ts_ns)
{
	struct tm tm;
	time_t sec;
	__s64 wall, rel;

	if (t->o->time == CLI_TIME_WALL) {
		wall = (__s64)ts_ns + t->wall_off_ns;
		sec = wall / 1000000000;
		localtime_r(&sec, &tm);
		printf("%02d:%02d:%02d.%06lld ", tm.tm_hour, tm.tm_min, tm.tm_sec,
		       (long long)(wall % 1000000000) / 1000);
	} else if (t->o->time == CLI_TIME_REL) {
		rel = (__s64)(ts_ns - t->t0_ns);
		printf("%+11.6f ", rel / 1e9);
	}
}

void print_event(FILE *f, const struct bpfgov_event *e, int json)
{
	json_writer_t *w;

	if (!json && e->kind == BPFGOV_EV_IDLE_EXIT) {
		fprintf(f, "%14.6f cpu%-3u %-9s state %u util %4u floor %4u pick %u dur %.1fus "
			"next timer %.1fus wake %s\n",
			e->ts_ns / 1e9, e->cpu, ev_kind_name(e->kind), e->arg0, e->util, e->floor,
			e->idle_pick, e->dur_ns / 1000.0, e->timer_ns / 1000.0, wake_name(e->wake));
		return;
	}
	if (!json) {
		fprintf(f, "%14.6f cpu%-3u %-9s %-10s util %4u floor %4u pick %u",
			e->ts_ns / 1e9, e->cpu, ev_kind_name(e->kind), ev_reason_name(e->reason),
			e->util, e->floor, e->idle_pick);
		/* only these kinds carry a duration (bpfgov.h) */
		if (e->kind == BPFGOV_EV_BUSY || e->kind == BPFGOV_EV_WAKE_LAT ||
		    e->kind == BPFGOV_EV_IDLE_GAP)
			fprintf(f, " dur %.1fus", e->dur_ns / 1000.0);
		fprintf(f, "%s\n", e->kind == BPFGOV_EV_PICK && e->arg0 ? " poll_ok" : "");
		return;
	}
	w = jsonw_new(f);
	if (!w)
		return;
	jsonw_start_object(w);
	jsonw_uint_field(w, "ts_ns", e->ts_ns);
	jsonw_uint_field(w, "cpu", e->cpu);
	jsonw_string_field(w, "kind", ev_kind_name(e->kind));
	jsonw_string_field(w, "reason", ev_reason_name(e->reason));
	jsonw_uint_field(w, "util", e->util);
	jsonw_uint_field(w, "floor", e->floor);
	jsonw_uint_field(w, "idle_pick", e->idle_pick);
	jsonw_uint_field(w, "dur_ns", e->dur_ns);
	jsonw_uint_field(w, "arg0", e->arg0);
	jsonw_uint_field(w, "seq", e->seq);
	if (e->kind == BPFGOV_EV_IDLE_EXIT) {
		jsonw_float_field_fmt(w, "next_timer_us", "%.1f", e->timer_ns / 1000.0);
		jsonw_string_field(w, "wake", wake_name(e->wake));
	}
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

static int on_tail(void *ctx, void *data, size_t size)
{
	struct tail_ctx *t = ctx;
	const struct bpfgov_event *e = data;

	if (size < sizeof(*e))
		return 0;
	if (t->o->cpu >= 0 && e->cpu != (__u32)t->o->cpu)
		return 0;
	if (t->o->count >= 0 && t->printed >= t->o->count)
		return 1;	/* stop consuming: we are done */
	if (!t->o->json)
		print_time(t, e->ts_ns);
	print_event(stdout, e, t->o->json);
	t->printed++;
	return 0;
}

int do_tail(int argc, char **argv)
{
	struct cli_opts o = {};
	struct tail_ctx t = { .o = &o };
	struct tap *tap = NULL;
	int ret = 0;
	__u32 kinds;
	__u64 next_check;
	pid_t owner;
	int n, err = cli_parse("tail", tail_usage, argc, argv, "pin-root json cpu count all time", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	n = sys_nr_cpus();
	if (o.cpu >= 0 && n > 0 && o.cpu >= n) {
		pr_warn("tail: --cpu %ld: not a possible CPU (this machine has CPUs 0-%d)\n",
			o.cpu, n - 1);
		return EXIT_USAGE;
	}
	err = check_running(o.pin_root, &owner);
	if (err)
		return err;
	kinds = (1u << BPFGOV_EV_FLOOR) | (1u << BPFGOV_EV_PICK) | (1u << BPFGOV_EV_EXIT);
	if (o.all)
		kinds |= (1u << BPFGOV_EV_IDLE_EXIT) | (1u << BPFGOV_EV_BUSY) |
			 (1u << BPFGOV_EV_WAKE_LAT) | (1u << BPFGOV_EV_IDLE_GAP);
	err = tap_open(o.pin_root, kinds, on_tail, &t, &tap);
	if (err)
		return 1;
	catch_signals();
	setvbuf(stdout, NULL, _IOLBF, 0);
	{
		struct timespec rt;

		t.t0_ns = mono_ns();
		clock_gettime(CLOCK_REALTIME, &rt);
		t.wall_off_ns = (__s64)rt.tv_sec * 1000000000ll + rt.tv_nsec - (__s64)t.t0_ns;
	}
	next_check = mono_ns() + 1000000000ull;
	while (!exiting && (o.count < 0 || t.printed < o.count)) {
		err = tap_poll(tap, 200);
		if (err < 0) {
			pr_warn("tail: ring buffer poll failed: %s\n", strerror(-err));
			ret = 1;
			break;
		}
		if (mono_ns() >= next_check) {
			if (!tap_loader_alive(tap)) {
				pr_warn("tail: bpfgov stopped\n");
				ret = 1;
				break;
			}
			next_check += 1000000000ull;
		}
	}
	tap_close(tap);
	return ret;
}
