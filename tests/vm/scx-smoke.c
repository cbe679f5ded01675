// SPDX-License-Identifier: GPL-2.0
/*
 * scx-smoke: a minimal driver of user/daemon/scx.c for the VM tests, independent of
 * govloader.  It loads bpfgov_scx with default tunables, attaches it, runs
 * for a while reading the events ring and the cpu_state map, optionally
 * triggers the test-only BPF error, then detaches and reports.
 *
 *   scx-smoke [--partial] [--seconds N] [--error-after S] [--stats] [--sched-only]
 *
 * --sched-only loads the scheduler with the governor switched off (bench).
 *
 * --stats prints the verifier's statistics (instructions processed, time)
 * of every program, and on a load failure the tail of the verifier log.
 *
 * Output (one "key value" per line, easy to grep in guest-tests.sh):
 *   attached state=enabled ops=bpfgov
 *   cpu N util U floor F busy_ns B idle_ns I
 *   events total=T floor=.. pick=.. busy=.. idle_exit=.. exit=..
 *   exited kind=K reason=...          (when the kernel ejected it)
 *   detached state=disabled
 * Exit status: 0 after a clean run, 3 when the scheduler was ejected, 1 on
 * any failure.
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfgov.h"
#include "bpfgov_tunables.h"
#include "bpfgov_policy.h"
#include "scx.h"

static unsigned long long nr_kind[BPFGOV_EV__MAX + 1], nr_events;
static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct bpfgov_event *e = data;

	(void)ctx;
	if (len < sizeof(*e))
		return 0;
	nr_events++;
	nr_kind[e->kind <= BPFGOV_EV__MAX ? e->kind : BPFGOV_EV__MAX]++;
	return 0;
}

static int libbpf_tail(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static char last[64][256];
	static int nlast;

	/* Keep only the last lines of a (huge) verifier log; print them when
	 * libbpf says the load failed. */
	if (level == LIBBPF_DEBUG)
		return 0;
	if (strstr(fmt, "-- END PROG LOAD LOG --") || strstr(fmt, "failed to load")) {
		for (int i = 0; i < nlast && i < 64; i++)
			fputs(last[(nlast - (nlast < 64 ? nlast : 64) + i) % 64], stdout);
		nlast = 0;
		return vprintf(fmt, ap);
	}
	vsnprintf(last[nlast % 64], sizeof(last[0]), fmt, ap);
	nlast++;
	return 0;
}

static struct bpf_map *find_map(struct bpf_object *obj, const char *const *names)
{
	for (; *names; names++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, *names);

		if (m)
			return m;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const char *const cfg_names[] = { ".data.tunables", "tunables", "config", NULL };
	static const char *const st_names[] = { "cpu_state", NULL };
	static const char *const ev_names[] = { "events", NULL };
	struct scx_opts o = { 0 };
	double seconds = 3, error_after = -1, t0;
	struct bpf_map *m_cfg, *m_st, *m_ev;
	struct ring_buffer *rb = NULL;
	struct bpfgov_config cfg;
	struct scx_exit ex;
	struct scx_stats stats;
	struct scx_ctx *c;
	char st[32], name[64], buf[1400];
	int ncpu, err, opt, rc = 0, ejected = 0, triggered = 0, stats_on = 0;
	static char vlog[8][4096];

	static const struct option lo[] = {
		{ "partial", no_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "error-after", required_argument, NULL, 'e' },
		{ "stats", no_argument, NULL, 'S' },
		{ "sched-only", no_argument, NULL, 'O' },
		{ 0 }
	};
	while ((opt = getopt_long(argc, argv, "ps:e:", lo, NULL)) != -1) {
		switch (opt) {
		case 'p': o.partial = true; break;
		case 's': seconds = atof(optarg); break;
		case 'e': error_after = atof(optarg); break;
		case 'S': stats_on = 1; break;
		case 'O': o.sched_only = true; break;
		default:
			fprintf(stderr, "usage: scx-smoke [--partial] [--seconds N] [--error-after S]\n");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);

	t0 = now_s();
	if (!scx_supported()) {
		printf("unsupported: no sched_ext in this kernel\n");
		return 1;
	}
	printf("supported check %.2fs\n", now_s() - t0);
	ncpu = libbpf_num_possible_cpus();
	o.pin_root = "/sys/fs/bpf/scx-smoke";
	mkdir(o.pin_root, 0700);
	t0 = now_s();
	c = scx_open(&o);
	if (!c) {
		printf("open failed: %s\n", strerror(errno));
		return 1;
	}
	m_cfg = find_map(scx_obj(c), cfg_names);
	m_st = find_map(scx_obj(c), st_names);
	m_ev = find_map(scx_obj(c), ev_names);
	if (!m_cfg || !m_st || !m_ev) {
		printf("maps not found (config %p cpu_state %p events %p)\n",
		       (void *)m_cfg, (void *)m_st, (void *)m_ev);
		return 1;
	}
	printf("opened in %.2fs\n", now_s() - t0);
	/* Without our log buffers libbpf retries a failed load with a
	 * verifier log and prints it: keep its tail only. */
	libbpf_set_print(libbpf_tail);
	if (stats_on) {
		struct bpf_program *prog;
		int i = 0;

		bpf_object__for_each_program(prog, scx_obj(c)) {
			if (i >= 8)
				break;
			bpf_program__set_log_level(prog, 4);	/* BPF_LOG_STATS */
			bpf_program__set_log_buf(prog, vlog[i++], sizeof(vlog[0]));
		}
	}
	t0 = now_s();
	err = scx_load(c);
	if (stats_on) {
		struct bpf_program *prog;
		int i = 0;

		bpf_object__for_each_program(prog, scx_obj(c)) {
			char *l = vlog[i], *p;

			if (i++ >= 8)
				break;
			char *t = strstr(l, "verification time"), *q = strstr(l, "processed");

			while ((p = strchr(l, '\n')))
				*p = ' ';
			/* "verification time N usec" ... "processed N insns (limit ..)" */
			if (t && (p = strstr(t, "usec")))
				p[4] = 0;
			if (q && (p = strstr(q, "insns")))
				p[5] = 0;
			printf("verifier %s: %s, %s\n", bpf_program__name(prog), t ? t : "?", q ? q : "?");
		}
	}
	if (err) {
		printf("load failed: %s\n", strerror(-err));
		return 1;
	}
	printf("loaded in %.2fs\n", now_s() - t0);

	bpfgov_config_defaults(&cfg);
	{
		__u32 zero = 0;

		if (bpf_map__update_elem(m_cfg, &zero, sizeof(zero), &cfg, sizeof(cfg), 0))
			printf("warning: config update: %s\n", strerror(errno));
		for (__u32 i = 0; i < (__u32)ncpu; i++) {
			struct bpfgov_cpu_state s;

			pol_cpu_init(&s, &cfg);
			bpf_map__update_elem(m_st, &i, sizeof(i), &s, sizeof(s), 0);
		}
	}
	rb = ring_buffer__new(bpf_map__fd(m_ev), on_event, NULL, NULL);

	t0 = now_s();
	err = scx_attach(c);
	if (err) {
		printf("attach failed: %s\n", strerror(-err));
		if (scx_exited(c, &ex)) {
			scx_format_exit(&ex, buf, sizeof(buf));
			printf("exited %s\n", buf);
		}
		scx_close(c);
		return 1;
	}
	scx_state(st, sizeof(st));
	scx_ops_name(name, sizeof(name));
	printf("attached in %.2fs state=%s ops=%s\n", now_s() - t0, st, name);

	t0 = now_s();
	while (!stop && now_s() - t0 < seconds) {
		if (rb)
			ring_buffer__poll(rb, 100);
		else
			usleep(100000);
		if (!triggered && error_after >= 0 && now_s() - t0 >= error_after) {
			scx_trigger_test_error(c);
			triggered = 1;
			printf("triggered test error\n");
		}
		if (scx_exited(c, &ex)) {
			ejected = 1;
			break;
		}
	}
	if (rb)
		ring_buffer__consume(rb);

	for (__u32 i = 0; i < (__u32)ncpu; i++) {
		struct bpfgov_cpu_state s;

		if (!bpf_map__lookup_elem(m_st, &i, sizeof(i), &s, sizeof(s), 0))
			printf("cpu %u util %u floor %u busy_ns %llu idle_ns %llu switches %llu idle %llu\n",
			       i, s.util, s.floor, (unsigned long long)s.busy_ns,
			       (unsigned long long)s.idle_ns, (unsigned long long)s.nr_switches,
			       (unsigned long long)s.nr_idle);
	}
	printf("events total=%llu floor=%llu pick=%llu idle_exit=%llu busy=%llu wake_lat=%llu exit=%llu\n",
	       nr_events, nr_kind[BPFGOV_EV_FLOOR], nr_kind[BPFGOV_EV_PICK],
	       nr_kind[BPFGOV_EV_IDLE_EXIT], nr_kind[BPFGOV_EV_BUSY],
	       nr_kind[BPFGOV_EV_WAKE_LAT], nr_kind[BPFGOV_EV_EXIT]);
	if (!scx_get_stats(c, &stats))
		printf("stats local=%llu shared=%llu kicks=%llu perf_sets=%llu pinned=%llu kept=%llu rescued=%llu stolen=%llu preempts=%llu llcs=%u\n",
		       stats.nr_local, stats.nr_shared, stats.nr_kicks, stats.nr_perf_sets,
		       stats.nr_pinned, stats.nr_kept, stats.nr_rescued, stats.nr_stolen, stats.nr_preempts,
		       scx_nr_llcs(c));
	if (ejected) {
		scx_format_exit(&ex, buf, sizeof(buf));
		scx_state(st, sizeof(st));
		printf("exited state=%s %s\n", st, buf);
		rc = 3;
	}
	err = scx_detach(c);
	scx_state(st, sizeof(st));
	printf("detached state=%s%s\n", st, err ? " (detach error)" : "");
	if (err)
		rc = 1;
	ring_buffer__free(rb);
	/* Pins are this driver's own: leave nothing behind for the next run. */
	bpf_object__unpin_maps(scx_obj(c), NULL);
	rmdir(o.pin_root);
	scx_close(c);
	return rc;
}
