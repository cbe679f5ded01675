// SPDX-License-Identifier: GPL-2.0
/*
 * bpfgov-work: workloads for testing and benchmarking bpfgov.
 *
 * Subcommands (see `bpfgov-work SUBCOMMAND --help`):
 *   periodic     fixed work packet at a fixed frequency, optional load sweep
 *                (Doug Smythies' 347 Hz test from linux-pm)
 *   impulse      "inverse impulse response": long busy, one idle gap, then
 *                busy while sampling loop speed right after the gap
 *   pingpong     token passed between thread pairs over pipes
 *   spin         plain busy loop
 *   sleep-cycle  busy/idle cycle with measured wake-up lateness
 *   switchstorm  many threads doing futex/pipe/yield hand-offs
 *
 * Every subcommand validates its options (bad input: one line on stderr,
 * exit status 2), prints what it measured in human-readable form, or as one
 * JSON object on stdout with --json.  SIGINT/SIGTERM stop a run early; the
 * results so far are still printed (with "interrupted": true).
 *
 * Build: gcc -O2 -Wall -Wextra -pthread -o bpfgov-work bpfgov-work.c [-lm]
 * (libm is not needed: only <math.h> macros are used.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG "bpfgov-work"
#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_USEC 1000LL

/* ------------------------------------------------------------------------ */
/* common helpers                                                            */
/* ------------------------------------------------------------------------ */

/* long option ids */
enum {
	OPT_HELP = 'h',
	OPT_JSON = 1000, OPT_DURATION, OPT_CPU, OPT_HZ, OPT_LOAD, OPT_SWEEP,
	OPT_STEP_S, OPT_LPU, OPT_CALIB_MS, OPT_GAP_US, OPT_BUSY_MS, OPT_TRIALS,
	OPT_SAMPLE_US, OPT_POST_MS, OPT_THRESHOLD, OPT_SLOW_MIN_US, OPT_PAIRS,
	OPT_WORK_US, OPT_PIN, OPT_BUSY_US, OPT_IDLE_US, OPT_THREADS, OPT_MODE,
	OPT_SLACK,
};

static const char *g_cmd = PROG;	/* "bpfgov-work periodic" etc. */
static char g_cmdbuf[64];
static volatile sig_atomic_t g_stop;
static atomic_int g_astop;		/* same, visible to worker threads */

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
	atomic_store(&g_astop, 1);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: let clock_nanosleep()/read() return EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static bool stopping(void)
{
	return g_stop || atomic_load_explicit(&g_astop, memory_order_relaxed);
}

/* bad usage: one line on stderr, exit 2 */
__attribute__((format(printf, 1, 2), noreturn))
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", g_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '%s --help')\n", g_cmd);
	exit(2);
}

/* runtime failure: one line on stderr, exit 1 */
__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", g_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* small math helpers, so that the program does not need libm */
static int64_t round_i64(double x)
{
	return (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
}

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};
	return ts;
}

/* absolute sleep on CLOCK_MONOTONIC; returns early only on g_stop */
static void sleep_until_ns(int64_t t)
{
	struct timespec ts = ns_to_ts(t);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (stopping())
			return;
}

/* interruptible relative sleep used by the main thread of threaded tests */
static void sleep_for_ns(int64_t d)
{
	sleep_until_ns(now_ns() + d);
}

static double parse_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
		usage_error("%s: invalid number '%s'", opt, s);
	if (v < lo || v > hi)
		usage_error("%s: %s out of range [%g, %g]", opt, s, lo, hi);
	return v;
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		usage_error("%s: invalid integer '%s'", opt, s);
	if (v < lo || v > hi)
		usage_error("%s: %s out of range [%ld, %ld]", opt, s, lo, hi);
	return v;
}

/* online/allowed CPUs of this process, in ascending order */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		die("sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static int parse_cpu(const char *opt, const char *s)
{
	int cpus[CPU_SETSIZE];
	long c = parse_long(opt, s, 0, CPU_SETSIZE - 1);
	int n = allowed_cpus(cpus, CPU_SETSIZE);

	for (int i = 0; i < n; i++)
		if (cpus[i] == c)
			return (int)c;
	usage_error("%s: CPU %ld is not online or not in this process's affinity mask", opt, c);
}

static void pin_self(int cpu)
{
	cpu_set_t set;
	int err;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err)
		die("cannot pin to CPU %d: %s", cpu, strerror(err));
}

/*
 * Timer slack delays every clock_nanosleep() wake-up by up to the slack
 * (50 us by default), which would swamp the idle-exit latencies and gaps
 * these workloads measure.  The sleeping workloads therefore default to
 * 1 ns; --timer-slack-ns 50000 restores the usual behaviour.
 */
#define SLACK_OPT_HELP \
"  --timer-slack-ns N timer slack for the sleeps (default 1; kernel default\n" \
"                     for normal threads is 50000)\n"
#define LO_SLACK { "timer-slack-ns", required_argument, NULL, OPT_SLACK }

static void set_timer_slack(long ns)
{
	if (prctl(PR_SET_TIMERSLACK, (unsigned long)ns, 0, 0, 0) != 0)
		die("PR_SET_TIMERSLACK: %s", strerror(errno));
}

/* getopt_long wrapper: uniform one-line errors */
static int next_opt(int argc, char **argv, const struct option *lo)
{
	int c = getopt_long(argc, argv, ":h", lo, NULL);

	if (c == '?') {
		const char *a = argv[optind - 1];

		if (optopt >= OPT_JSON)
			usage_error("option '%s' takes no value", a);
		if (optopt > 0 && optopt < 128)
			usage_error("unknown option '-%c'", optopt);
		usage_error("unknown or ambiguous option '%s'", a ? a : "?");
	}
	if (c == ':')
		usage_error("option '%s' needs a value", argv[optind - 1]);
	return c;
}

static void no_positional(int argc, char **argv)
{
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

static void set_cmd(const char *sub)
{
	snprintf(g_cmdbuf, sizeof(g_cmdbuf), "%s %s", PROG, sub);
	g_cmd = g_cmdbuf;
}

static const char *jbool(bool b)
{
	return b ? "true" : "false";
}

/* ------------------------------------------------------------------------ */
/* the work loop                                                             */
/* ------------------------------------------------------------------------ */

/*
 * One "loop" is one step of a 64-bit LCG: a dependent multiply-add chain
 * that cannot be vectorised or folded, so its duration scales with the core
 * clock and does not depend on memory.
 */
static volatile uint64_t g_sink;

static inline uint64_t work_loops(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

static void do_work(uint64_t n)
{
	g_sink = work_loops(n, g_sink);
}

/*
 * Calibrate loops per microsecond at full speed: spin for most of calib_ms
 * so that a frequency governor ramps the CPU up, then time short fixed-size
 * batches and keep the fastest (the least disturbed) one.
 */
struct calib {
	double loops_per_us;
	bool given;		/* --loops-per-us instead of measuring */
	double calib_ms;
};

static void calibrate(struct calib *c)
{
	int64_t t0, end, best = INT64_MAX;
	uint64_t batch = 1000;
	uint64_t x = g_sink;

	if (c->given)
		return;
	/* find a batch that takes ~200 us */
	for (;;) {
		t0 = now_ns();
		x = work_loops(batch, x);
		if (now_ns() - t0 >= 200 * NSEC_PER_USEC || batch >= (1ULL << 40))
			break;
		batch *= 2;
	}
	/* warm-up: 3/4 of the budget */
	end = now_ns() + (int64_t)(c->calib_ms * 0.75 * 1e6);
	while (now_ns() < end)
		x = work_loops(batch, x);
	/* measure: the rest of the budget, at least 10 batches */
	end = now_ns() + (int64_t)(c->calib_ms * 0.25 * 1e6);
	for (int i = 0; i < 10 || now_ns() < end; i++) {
		int64_t t1, dt;

		t0 = now_ns();
		x = work_loops(batch, x);
		t1 = now_ns();
		dt = t1 - t0;
		if (dt > 0 && dt < best)
			best = dt;
	}
	g_sink = x;
	c->loops_per_us = (double)batch * 1000.0 / (double)best;
}

#define CALIB_OPTS_HELP \
"  --loops-per-us X   use X loops/us instead of calibrating (reuse the\n" \
"                     \"loops_per_us\" of an earlier run for identical work)\n" \
"  --calib-ms M       calibration time incl. warm-up spin (default 250)\n"


#define LO_COMMON \
	{ "help", no_argument, NULL, OPT_HELP }, \
	{ "json", no_argument, NULL, OPT_JSON }

#define LO_CALIB \
	{ "loops-per-us", required_argument, NULL, OPT_LPU }, \
	{ "calib-ms", required_argument, NULL, OPT_CALIB_MS }

static bool handle_calib_opt(int c, struct calib *cal)
{
	if (c == OPT_LPU) {
		cal->loops_per_us = parse_double("--loops-per-us", optarg, 1e-3, 1e6);
		cal->given = true;
		return true;
	}
	if (c == OPT_CALIB_MS) {
		cal->calib_ms = parse_double("--calib-ms", optarg, 10, 60000);
		return true;
	}
	return false;
}

#define MAX_DURATION_S 86400.0

/* ------------------------------------------------------------------------ */
/* periodic                                                                  */
/* ------------------------------------------------------------------------ */

static const char periodic_help[] =
"Usage: " PROG " periodic --hz F (--load PCT | --sweep LO:HI:STEP) [options]\n"
"\n"
"Work/sleep at F Hz.  The work per period is a fixed loop count (\"work\n"
"packet\") calibrated once at start at full speed so that it takes PCT% of\n"
"the period there; it does not change with the CPU frequency afterwards.\n"
"After the packet the thread sleeps with clock_nanosleep(TIMER_ABSTIME)\n"
"until the next period start.  A period whose work ends after the next\n"
"period start is an overrun; the schedule then restarts from that moment\n"
"(no catch-up burst).\n"
"\n"
"  --hz F             work/sleep frequency, 0.1..100000 (e.g. 347)\n"
"  --load PCT         work packet size as % of the period at full speed\n"
"  --duration S       run time for --load (default 10); with --sweep, the\n"
"                     sweep repeats until S seconds have passed (default:\n"
"                     once)\n"
"  --sweep LO:HI:STEP load LO, LO+STEP, .. up to HI and back down to LO\n"
"  --step-s S         seconds per sweep step (default 3)\n"
"  --cpu N            pin to CPU N\n"
CALIB_OPTS_HELP
SLACK_OPT_HELP
"  --json             print one JSON object\n"
"\n"
"Reported per step and overall: periods, overruns, work_pct (busy time /\n"
"period, averaged over periods; >= load when the CPU is slower than at\n"
"calibration), wake-up lateness after each sleep.\n"
"Example (the linux-pm report's load): periodic --hz 347 --sweep 0:100:5 --step-s 3 --cpu 1\n";

struct pstep {
	double load_pct;
	uint64_t packet;
	uint64_t periods, overruns;
	int64_t busy_ns;		/* sum of work time */
	int64_t max_busy_ns;
	int64_t elapsed_ns;
	int64_t wake_lat_sum_ns, wake_lat_max_ns;
	uint64_t sleeps;
};

static void periodic_step(struct pstep *s, int64_t period_ns, int64_t *next,
			  int64_t step_ns)
{
	int64_t t_begin = *next, step_end = *next + step_ns;

	while (*next < step_end && !stopping()) {
		int64_t start = *next, t0, t1;

		t0 = now_ns();
		do_work(s->packet);
		t1 = now_ns();
		s->busy_ns += t1 - t0;
		if (t1 - t0 > s->max_busy_ns)
			s->max_busy_ns = t1 - t0;
		s->periods++;
		*next = start + period_ns;
		if (t1 >= *next) {
			s->overruns++;
			*next = t1;	/* restart the schedule now */
		} else {
			int64_t lat;

			sleep_until_ns(*next);
			lat = now_ns() - *next;
			if (lat < 0)
				lat = 0;
			s->wake_lat_sum_ns += lat;
			if (lat > s->wake_lat_max_ns)
				s->wake_lat_max_ns = lat;
			s->sleeps++;
		}
	}
	s->elapsed_ns += *next - t_begin;
}

static double step_work_pct(const struct pstep *s, int64_t period_ns)
{
	return s->periods ? 100.0 * (double)s->busy_ns /
			    ((double)s->periods * (double)period_ns) : 0.0;
}

static int cmd_periodic(int argc, char **argv)
{
	static const struct option lo[] = {
		LO_COMMON, LO_CALIB,
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "load", required_argument, NULL, OPT_LOAD },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		{ "step-s", required_argument, NULL, OPT_STEP_S },
		{ "cpu", required_argument, NULL, OPT_CPU },
		LO_SLACK,
		{ 0 }
	};
	struct calib cal = { .calib_ms = 250 };
	long slack = 1;
	double hz = 0, load = -1, duration = -1, step_s = -1;
	double sw_lo = 0, sw_hi = 0, sw_step = 0;
	bool json = false, sweep = false;
	int cpu = -1, c, nsteps;
	struct pstep *steps;
	int64_t period_ns, next, t_start, t_end;
	uint64_t tot_periods = 0, tot_overruns = 0, tot_sleeps = 0;
	int64_t tot_busy = 0, max_busy = 0, lat_sum = 0, lat_max = 0;

	set_cmd("periodic");
	while ((c = next_opt(argc, argv, lo)) != -1) {
		if (handle_calib_opt(c, &cal))
			continue;
		switch (c) {
		case OPT_HELP: fputs(periodic_help, stdout); return 0;
		case OPT_JSON: json = true; break;
		case OPT_HZ: hz = parse_double("--hz", optarg, 0.1, 100000); break;
		case OPT_LOAD: load = parse_double("--load", optarg, 0, 100); break;
		case OPT_DURATION:
			duration = parse_double("--duration", optarg, 0.001, MAX_DURATION_S);
			break;
		case OPT_STEP_S:
			step_s = parse_double("--step-s", optarg, 0.001, MAX_DURATION_S);
			break;
		case OPT_CPU: cpu = parse_cpu("--cpu", optarg); break;
		case OPT_SLACK:
			slack = parse_long("--timer-slack-ns", optarg, 1, 1000000000L);
			break;
		case OPT_SWEEP: {
			char extra;

			if (sscanf(optarg, "%lf:%lf:%lf%c", &sw_lo, &sw_hi, &sw_step, &extra) != 3)
				usage_error("--sweep: expected LO:HI:STEP, got '%s'", optarg);
			if (!(sw_lo >= 0 && sw_hi <= 100 && sw_lo < sw_hi))
				usage_error("--sweep: need 0 <= LO < HI <= 100, got '%s'", optarg);
			if (!(sw_step > 0 && sw_step <= sw_hi - sw_lo))
				usage_error("--sweep: need 0 < STEP <= HI-LO, got '%s'", optarg);
			sweep = true;
			break;
		}
		}
	}
	no_positional(argc, argv);
	if (hz == 0)
		usage_error("--hz is required");
	if (sweep && load >= 0)
		usage_error("--load and --sweep are mutually exclusive");
	if (!sweep && load < 0)
		usage_error("one of --load or --sweep is required");
	if (!sweep && step_s >= 0)
		usage_error("--step-s only applies to --sweep");
	if (duration < 0 && !sweep)
		duration = 10;
	if (step_s < 0)
		step_s = 3;

	if (sweep) {
		int up = (int)((sw_hi - sw_lo) / sw_step + 1e-9);	/* >= 1 */

		nsteps = 2 * up + 1;
		steps = calloc(nsteps, sizeof(*steps));
		if (!steps)
			die("out of memory");
		for (int i = 0; i <= up; i++)
			steps[i].load_pct = sw_lo + i * sw_step;
		for (int i = 0; i < up; i++)
			steps[up + 1 + i].load_pct = steps[up - 1 - i].load_pct;
	} else {
		nsteps = 1;
		steps = calloc(1, sizeof(*steps));
		if (!steps)
			die("out of memory");
		steps[0].load_pct = load;
		step_s = duration;
	}

	install_signals();
	set_timer_slack(slack);
	pin_self(cpu);
	calibrate(&cal);
	period_ns = round_i64(1e9 / hz);
	for (int i = 0; i < nsteps; i++)
		steps[i].packet = (uint64_t)round_i64(steps[i].load_pct / 100.0 *
					(double)period_ns / 1000.0 * cal.loops_per_us);

	t_start = next = now_ns();
	int done = 0;
	/* --sweep with --duration: the sweep again until then */
	for (int k = 0; !stopping(); k++) {
		if (duration < 0 ? k >= nsteps : now_ns() - t_start >= round_i64(duration * 1e9))
			break;
		periodic_step(&steps[k % nsteps], period_ns, &next, round_i64(step_s * 1e9));
		done = k < nsteps ? k + 1 : nsteps;
	}
	t_end = now_ns();
	for (int i = 0; i < done; i++) {
		tot_periods += steps[i].periods;
		tot_overruns += steps[i].overruns;
		tot_busy += steps[i].busy_ns;
		tot_sleeps += steps[i].sleeps;
		lat_sum += steps[i].wake_lat_sum_ns;
		if (steps[i].max_busy_ns > max_busy)
			max_busy = steps[i].max_busy_ns;
		if (steps[i].wake_lat_max_ns > lat_max)
			lat_max = steps[i].wake_lat_max_ns;
	}
	double work_pct = tot_periods ? 100.0 * (double)tot_busy /
			  ((double)tot_periods * (double)period_ns) : 0;
	double elapsed_s = (double)(t_end - t_start) / 1e9;

	if (json) {
		printf("{\"workload\":\"periodic\",\"hz\":%.6g,\"period_us\":%.3f,"
		       "\"loops_per_us\":%.4f,\"cpu\":%d,\"timer_slack_ns\":%ld,\"sweep\":%s,"
		       "\"step_s\":%.6g,\"steps\":[",
		       hz, period_ns / 1e3, cal.loops_per_us, cpu, slack, jbool(sweep),
		       step_s);
		for (int i = 0; i < done; i++) {
			const struct pstep *s = &steps[i];

			printf("%s{\"load_pct\":%.6g,\"packet_loops\":%llu,\"periods\":%llu,"
			       "\"overruns\":%llu,\"work_pct\":%.4f,\"max_work_pct\":%.4f,"
			       "\"wake_lat_us_mean\":%.3f,\"wake_lat_us_max\":%.3f,"
			       "\"elapsed_s\":%.6f}",
			       i ? "," : "", s->load_pct, (unsigned long long)s->packet,
			       (unsigned long long)s->periods, (unsigned long long)s->overruns,
			       step_work_pct(s, period_ns),
			       100.0 * (double)s->max_busy_ns / (double)period_ns,
			       s->sleeps ? (double)s->wake_lat_sum_ns / s->sleeps / 1e3 : 0.0,
			       s->wake_lat_max_ns / 1e3, s->elapsed_ns / 1e9);
		}
		printf("],\"periods\":%llu,\"overruns\":%llu,\"work_pct\":%.4f,"
		       "\"max_work_pct\":%.4f,\"wake_lat_us_mean\":%.3f,"
		       "\"wake_lat_us_max\":%.3f,\"elapsed_s\":%.6f,\"interrupted\":%s}\n",
		       (unsigned long long)tot_periods, (unsigned long long)tot_overruns,
		       work_pct, 100.0 * (double)max_busy / (double)period_ns,
		       tot_sleeps ? (double)lat_sum / tot_sleeps / 1e3 : 0.0,
		       lat_max / 1e3, elapsed_s, jbool(stopping()));
	} else {
		printf("periodic: %.6g Hz (period %.1f us), %.2f loops/us, cpu %d\n",
		       hz, period_ns / 1e3, cal.loops_per_us, cpu);
		printf("%8s %12s %9s %9s %10s %10s %12s\n", "load%", "packet", "periods",
		       "overruns", "work%", "maxwork%", "wakelat_us");
		for (int i = 0; i < done; i++) {
			const struct pstep *s = &steps[i];

			printf("%8.2f %12llu %9llu %9llu %10.3f %10.2f %12.2f\n",
			       s->load_pct, (unsigned long long)s->packet,
			       (unsigned long long)s->periods, (unsigned long long)s->overruns,
			       step_work_pct(s, period_ns),
			       100.0 * (double)s->max_busy_ns / (double)period_ns,
			       s->sleeps ? (double)s->wake_lat_sum_ns / s->sleeps / 1e3 : 0.0);
		}
		printf("Periods: %llu\nOverruns: %llu\nAve. work percent: %.6f\n"
		       "Wake-up lateness: mean %.2f us, max %.2f us\nElapsed: %.3f s%s\n",
		       (unsigned long long)tot_periods, (unsigned long long)tot_overruns,
		       work_pct, tot_sleeps ? (double)lat_sum / tot_sleeps / 1e3 : 0.0,
		       lat_max / 1e3, elapsed_s, stopping() ? " (interrupted)" : "");
	}
	free(steps);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* impulse                                                                   */
/* ------------------------------------------------------------------------ */

static const char impulse_help[] =
"Usage: " PROG " impulse --gap-us G [options]\n"
"\n"
"Inverse impulse response test.  Each trial: busy for B ms while timing the\n"
"loop over windows of S us (pre-gap speed = median window speed of the\n"
"second half), one idle gap of G us (clock_nanosleep; the actual gap is\n"
"measured), then busy for P ms sampling windows again.  The recovery time\n"
"is the start of the first post-gap window whose speed is >= T% of the\n"
"pre-gap speed (P ms if none).  A trial \"ran slow\" if its recovery time\n"
"is >= the --slow-min-us threshold.\n"
"\n"
"  --gap-us G         idle gap in microseconds (1..10000000), required\n"
"  --busy-ms B        busy time before the gap (default 100)\n"
"  --post-ms P        busy sampling time after the gap (default 50)\n"
"  --trials N         number of trials (default 10)\n"
"  --sample-us S      sample window (default 100)\n"
"  --threshold T      slow if speed < T% of pre-gap speed (default 80)\n"
"  --slow-min-us U    minimum recovery time of a slow trial (default 1000)\n"
"  --cpu N            pin to CPU N (recommended)\n"
CALIB_OPTS_HELP
SLACK_OPT_HELP
"  --json             print one JSON object\n"
"\n"
"Example (the linux-pm report's gaps): impulse --gap-us 842 --trials 100 --cpu 1\n";

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct window {
	int64_t start;	/* ns, relative to phase start */
	double speed;	/* loops per us */
};

/*
 * Busy for dur_ns, recording per-window loop speed.  Returns the number of
 * windows stored (at most max).
 */
static int busy_sampled(int64_t dur_ns, int64_t win_ns, uint64_t chunk,
			struct window *w, int max, int64_t *phase_start)
{
	int64_t t0 = now_ns(), end = t0 + dur_ns, ws = t0, t;
	uint64_t loops = 0, x = g_sink;
	int n = 0;

	*phase_start = t0;
	do {
		x = work_loops(chunk, x);
		loops += chunk;
		t = now_ns();
		if (t - ws >= win_ns) {
			if (n < max) {
				w[n].start = ws - t0;
				w[n].speed = (double)loops * 1e3 / (double)(t - ws);
				n++;
			}
			ws = t;
			loops = 0;
		}
	} while (t < end && !stopping());
	g_sink = x;
	return n;
}

static int cmd_impulse(int argc, char **argv)
{
	static const struct option lo[] = {
		LO_COMMON, LO_CALIB,
		{ "gap-us", required_argument, NULL, OPT_GAP_US },
		{ "busy-ms", required_argument, NULL, OPT_BUSY_MS },
		{ "post-ms", required_argument, NULL, OPT_POST_MS },
		{ "trials", required_argument, NULL, OPT_TRIALS },
		{ "sample-us", required_argument, NULL, OPT_SAMPLE_US },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "slow-min-us", required_argument, NULL, OPT_SLOW_MIN_US },
		{ "cpu", required_argument, NULL, OPT_CPU },
		LO_SLACK,
		{ 0 }
	};
	struct calib cal = { .calib_ms = 250 };
	long slack = 1;
	double gap_us = -1, busy_ms = 100, post_ms = 50, sample_us = 100;
	double threshold = 80, slow_min_us = 1000;
	long trials = 10;
	int cpu = -1, c;
	bool json = false;

	set_cmd("impulse");
	while ((c = next_opt(argc, argv, lo)) != -1) {
		if (handle_calib_opt(c, &cal))
			continue;
		switch (c) {
		case OPT_HELP: fputs(impulse_help, stdout); return 0;
		case OPT_JSON: json = true; break;
		case OPT_GAP_US: gap_us = parse_double("--gap-us", optarg, 1, 1e7); break;
		case OPT_BUSY_MS: busy_ms = parse_double("--busy-ms", optarg, 1, 60000); break;
		case OPT_POST_MS: post_ms = parse_double("--post-ms", optarg, 1, 60000); break;
		case OPT_TRIALS: trials = parse_long("--trials", optarg, 1, 1000000); break;
		case OPT_SAMPLE_US:
			sample_us = parse_double("--sample-us", optarg, 5, 100000);
			break;
		case OPT_THRESHOLD:
			threshold = parse_double("--threshold", optarg, 1, 100);
			break;
		case OPT_SLOW_MIN_US:
			slow_min_us = parse_double("--slow-min-us", optarg, 0, 6e7);
			break;
		case OPT_CPU: cpu = parse_cpu("--cpu", optarg); break;
		case OPT_SLACK:
			slack = parse_long("--timer-slack-ns", optarg, 1, 1000000000L);
			break;
		}
	}
	no_positional(argc, argv);
	if (gap_us < 0)
		usage_error("--gap-us is required");
	if (sample_us * 1e-3 * 4 > busy_ms)
		usage_error("--sample-us %g too long for --busy-ms %g (need >= 4 windows)",
			    sample_us, busy_ms);
	if (sample_us * 1e-3 > post_ms)
		usage_error("--sample-us %g longer than --post-ms %g", sample_us, post_ms);

	install_signals();
	set_timer_slack(slack);
	pin_self(cpu);
	calibrate(&cal);

	int64_t win_ns = round_i64(sample_us * 1e3);
	int maxw_pre = (int)(busy_ms * 1e3 / sample_us) + 2;
	int maxw_post = (int)(post_ms * 1e3 / sample_us) + 2;
	struct window *pre = calloc(maxw_pre, sizeof(*pre));
	struct window *post = calloc(maxw_post, sizeof(*post));
	double *tmp = calloc(maxw_pre, sizeof(*tmp));
	/* chunk ~ 1/20 of a window at full speed, so windows end close to S */
	uint64_t chunk = (uint64_t)dmax(16.0, cal.loops_per_us * sample_us / 20.0);
	long done = 0, slow = 0, censored = 0;
	double gap_sum = 0, gap_min = INFINITY, gap_max = 0;
	double slow_sum = 0, slow_max = 0, rec_sum = 0, pre_sum = 0, first_sum = 0;

	if (!pre || !post || !tmp)
		die("out of memory");

	for (long t = 0; t < trials && !stopping(); t++) {
		int64_t ps, gs, ge, post_start;
		int npre, npost, m = 0;
		double pre_speed, rec_us = -1;

		npre = busy_sampled(round_i64(busy_ms * 1e6), win_ns, chunk, pre, maxw_pre, &ps);
		for (int i = npre / 2; i < npre; i++)
			tmp[m++] = pre[i].speed;
		if (m == 0)
			break;	/* interrupted */
		qsort(tmp, m, sizeof(*tmp), cmp_double);
		pre_speed = tmp[m / 2];

		gs = now_ns();
		sleep_until_ns(gs + round_i64(gap_us * 1e3));
		ge = now_ns();
		if (stopping())
			break;

		npost = busy_sampled(round_i64(post_ms * 1e6), win_ns, chunk, post,
				     maxw_post, &post_start);
		if (npost == 0)
			break;
		for (int i = 0; i < npost; i++) {
			if (post[i].speed >= threshold / 100.0 * pre_speed) {
				rec_us = (double)(post[i].start + post_start - ge) / 1e3;
				break;
			}
		}
		if (rec_us < 0) {
			rec_us = post_ms * 1e3;
			censored++;
		}
		done++;
		gap_sum += (ge - gs) / 1e3;
		gap_min = dmin(gap_min, (ge - gs) / 1e3);
		gap_max = dmax(gap_max, (ge - gs) / 1e3);
		pre_sum += pre_speed;
		first_sum += post[0].speed / pre_speed;
		rec_sum += rec_us;
		if (rec_us >= slow_min_us) {
			slow++;
			slow_sum += rec_us;
			slow_max = dmax(slow_max, rec_us);
		}
	}

	double gap_mean = done ? gap_sum / done : 0;
	double slow_mean = slow ? slow_sum / slow : 0;

	if (!done)
		gap_min = 0;
	if (json) {
		printf("{\"workload\":\"impulse\",\"gap_us\":%.6g,\"busy_ms\":%.6g,"
		       "\"post_ms\":%.6g,\"sample_us\":%.6g,\"threshold_pct\":%.6g,"
		       "\"slow_min_us\":%.6g,\"loops_per_us\":%.4f,\"cpu\":%d,\"timer_slack_ns\":%ld,"
		       "\"trials\":%ld,\"slow_trials\":%ld,\"slow_pct\":%.3f,"
		       "\"slow_us_mean\":%.3f,\"slow_us_max\":%.3f,\"censored\":%ld,"
		       "\"recover_us_mean\":%.3f,\"gap_us_mean\":%.3f,\"gap_us_min\":%.3f,"
		       "\"gap_us_max\":%.3f,\"pre_speed_mean\":%.4f,"
		       "\"first_window_ratio_mean\":%.4f,\"interrupted\":%s}\n",
		       gap_us, busy_ms, post_ms, sample_us, threshold, slow_min_us,
		       cal.loops_per_us, cpu, slack, done, slow,
		       done ? 100.0 * slow / done : 0.0, slow_mean, slow_max, censored,
		       done ? rec_sum / done : 0.0, gap_mean, gap_min, gap_max,
		       done ? pre_sum / done : 0.0, done ? first_sum / done : 0.0,
		       jbool(stopping()));
	} else {
		printf("impulse: gap %.0f us, busy %.0f ms, post %.0f ms, window %.0f us, "
		       "threshold %.0f%%, slow >= %.0f us\n",
		       gap_us, busy_ms, post_ms, sample_us, threshold, slow_min_us);
		printf("Test runs: %ld\nBad runs: %ld (%.1f%%)\n"
		       "Slow duration: mean %.1f us, max %.1f us (never recovered: %ld)\n"
		       "Recovery time (all runs): mean %.1f us\n"
		       "Actual gap: mean %.1f us, min %.1f, max %.1f\n"
		       "Pre-gap speed: %.2f loops/us (calibrated %.2f); first window after gap: %.1f%%%s\n",
		       done, slow, done ? 100.0 * slow / done : 0.0, slow_mean, slow_max,
		       censored, done ? rec_sum / done : 0.0, gap_mean, gap_min, gap_max,
		       done ? pre_sum / done : 0.0, cal.loops_per_us,
		       done ? 100.0 * first_sum / done : 0.0,
		       stopping() ? " (interrupted)" : "");
	}
	free(pre);
	free(post);
	free(tmp);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* pingpong (also used by switchstorm --mode pipe)                           */
/* ------------------------------------------------------------------------ */

static const char pingpong_help[] =
"Usage: " PROG " pingpong [options]\n"
"\n"
"A one-byte token passed back and forth over pipes between the two threads\n"
"of each pair.  Each thread does W us of busy work (a calibrated loop count,\n"
"not a sleep) every time it receives the token, then passes it on.  One\n"
"loop is one round trip (A -> B -> A).\n"
"\n"
"  --pairs N          thread pairs (default 1, max 256)\n"
"  --work-us W        busy work per hop in microseconds (default 0)\n"
"  --duration S       run time in seconds (default 5)\n"
"  --pin              pin pair i: A to CPU 2i, B to CPU 2i+1, round robin\n"
"                     over the allowed CPUs (pair 0: CPUs 0 and 1)\n"
CALIB_OPTS_HELP
"  --json             print one JSON object\n";

struct pp_pair {
	int a2b[2], b2a[2];
	int cpu_a, cpu_b;
	uint64_t work;			/* loops per hop */
	pthread_barrier_t *bar;
	uint64_t loops;			/* written by A */
	pthread_t ta, tb;
};

static void write_token(int fd, char v)
{
	while (write(fd, &v, 1) != 1)
		if (errno != EINTR)
			die("pipe write: %s", strerror(errno));
}

/* returns the token, or 0 on EOF */
static char read_token(int fd)
{
	char v;
	ssize_t r;

	while ((r = read(fd, &v, 1)) != 1) {
		if (r == 0)
			return 0;
		if (errno != EINTR)
			die("pipe read: %s", strerror(errno));
	}
	return v;
}

static void block_signals_in_thread(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static void *pp_a(void *arg)
{
	struct pp_pair *p = arg;
	uint64_t n = 0;

	block_signals_in_thread();
	pin_self(p->cpu_a);
	pthread_barrier_wait(p->bar);
	while (!atomic_load_explicit(&g_astop, memory_order_relaxed)) {
		write_token(p->a2b[1], 1);
		if (read_token(p->b2a[0]) != 1)
			break;
		if (p->work)
			do_work(p->work);
		n++;
	}
	write_token(p->a2b[1], 0);	/* tell B to stop */
	p->loops = n;
	return NULL;
}

static void *pp_b(void *arg)
{
	struct pp_pair *p = arg;

	block_signals_in_thread();
	pin_self(p->cpu_b);
	pthread_barrier_wait(p->bar);
	for (;;) {
		if (read_token(p->a2b[0]) != 1)
			break;
		if (p->work)
			do_work(p->work);
		write_token(p->b2a[1], 1);
	}
	return NULL;
}

/* runs the pairs for duration_s; fills p[i].loops; returns elapsed ns */
static int64_t pingpong_run(struct pp_pair *p, int pairs, uint64_t work, bool pin,
			    double duration_s)
{
	int cpus[CPU_SETSIZE], ncpu = allowed_cpus(cpus, CPU_SETSIZE);
	pthread_barrier_t bar;
	int64_t t0, t1;
	int err;

	pthread_barrier_init(&bar, NULL, 2 * pairs + 1);
	for (int i = 0; i < pairs; i++) {
		if (pipe(p[i].a2b) || pipe(p[i].b2a))
			die("pipe: %s", strerror(errno));
		p[i].cpu_a = pin ? cpus[(2 * i) % ncpu] : -1;
		p[i].cpu_b = pin ? cpus[(2 * i + 1) % ncpu] : -1;
		p[i].work = work;
		p[i].bar = &bar;
		p[i].loops = 0;
		if ((err = pthread_create(&p[i].ta, NULL, pp_a, &p[i])) ||
		    (err = pthread_create(&p[i].tb, NULL, pp_b, &p[i])))
			die("pthread_create: %s", strerror(err));
	}
	pthread_barrier_wait(&bar);
	t0 = now_ns();
	sleep_for_ns(round_i64(duration_s * 1e9));
	atomic_store(&g_astop, 1);
	t1 = now_ns();
	for (int i = 0; i < pairs; i++) {
		pthread_join(p[i].ta, NULL);
		pthread_join(p[i].tb, NULL);
		close(p[i].a2b[0]); close(p[i].a2b[1]);
		close(p[i].b2a[0]); close(p[i].b2a[1]);
	}
	pthread_barrier_destroy(&bar);
	return t1 - t0;
}

static int cmd_pingpong(int argc, char **argv)
{
	static const struct option lo[] = {
		LO_COMMON, LO_CALIB,
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		{ "work-us", required_argument, NULL, OPT_WORK_US },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "pin", no_argument, NULL, OPT_PIN },
		{ 0 }
	};
	struct calib cal = { .calib_ms = 250 };
	double work_us = 0, duration = 5;
	long pairs = 1;
	bool json = false, pin = false;
	int c;

	set_cmd("pingpong");
	while ((c = next_opt(argc, argv, lo)) != -1) {
		if (handle_calib_opt(c, &cal))
			continue;
		switch (c) {
		case OPT_HELP: fputs(pingpong_help, stdout); return 0;
		case OPT_JSON: json = true; break;
		case OPT_PAIRS: pairs = parse_long("--pairs", optarg, 1, 256); break;
		case OPT_WORK_US: work_us = parse_double("--work-us", optarg, 0, 1e6); break;
		case OPT_DURATION:
			duration = parse_double("--duration", optarg, 0.001, MAX_DURATION_S);
			break;
		case OPT_PIN: pin = true; break;
		}
	}
	no_positional(argc, argv);

	install_signals();
	if (work_us > 0)
		calibrate(&cal);
	else if (!cal.given)
		cal.loops_per_us = 0;

	uint64_t work = (uint64_t)round_i64(work_us * cal.loops_per_us);
	struct pp_pair *p = calloc(pairs, sizeof(*p));

	if (!p)
		die("out of memory");
	int64_t el = pingpong_run(p, (int)pairs, work, pin, duration);
	uint64_t total = 0;

	for (int i = 0; i < pairs; i++)
		total += p[i].loops;
	double el_s = el / 1e9;

	if (json) {
		printf("{\"workload\":\"pingpong\",\"pairs\":%ld,\"work_us\":%.6g,"
		       "\"work_loops\":%llu,\"loops_per_us\":%.4f,\"pin\":%s,"
		       "\"elapsed_s\":%.6f,\"loops\":%llu,\"loops_per_s\":%.3f,"
		       "\"us_per_loop\":%.4f,\"per_pair\":[",
		       pairs, work_us, (unsigned long long)work, cal.loops_per_us,
		       jbool(pin), el_s, (unsigned long long)total, total / el_s,
		       total ? el / 1e3 / ((double)total / pairs) : 0.0);
		for (int i = 0; i < pairs; i++)
			printf("%s{\"pair\":%d,\"cpu_a\":%d,\"cpu_b\":%d,\"loops\":%llu,"
			       "\"loops_per_s\":%.3f}", i ? "," : "", i, p[i].cpu_a,
			       p[i].cpu_b, (unsigned long long)p[i].loops, p[i].loops / el_s);
		printf("],\"interrupted\":%s}\n", jbool(g_stop));
	} else {
		printf("pingpong: %ld pair(s), %.1f us work per hop (%llu loops), %s\n",
		       pairs, work_us, (unsigned long long)work, pin ? "pinned" : "not pinned");
		for (int i = 0; i < pairs; i++)
			printf("  pair %d (cpu %d/%d): %llu loops, %.1f loops/s\n", i,
			       p[i].cpu_a, p[i].cpu_b, (unsigned long long)p[i].loops,
			       p[i].loops / el_s);
		printf("Total: %llu loops in %.3f s = %.1f loops/s (%.2f us per loop per pair)%s\n",
		       (unsigned long long)total, el_s, total / el_s,
		       total ? el / 1e3 / ((double)total / pairs) : 0.0,
		       g_stop ? " (interrupted)" : "");
	}
	free(p);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* spin                                                                      */
/* ------------------------------------------------------------------------ */

static const char spin_help[] =
"Usage: " PROG " spin --duration S [options]\n"
"\n"
"Busy loop for S seconds.  Reports the loop speed (loops/us) over 10 ms\n"
"windows: mean, min, max.\n"
"\n"
"  --duration S       run time in seconds, required\n"
"  --cpu N            pin to CPU N\n"
"  --json             print one JSON object\n";

static int cmd_spin(int argc, char **argv)
{
	static const struct option lo[] = {
		LO_COMMON,
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ 0 }
	};
	double duration = -1;
	int cpu = -1, c;
	bool json = false;

	set_cmd("spin");
	while ((c = next_opt(argc, argv, lo)) != -1) {
		switch (c) {
		case OPT_HELP: fputs(spin_help, stdout); return 0;
		case OPT_JSON: json = true; break;
		case OPT_DURATION:
			duration = parse_double("--duration", optarg, 0.001, MAX_DURATION_S);
			break;
		case OPT_CPU: cpu = parse_cpu("--cpu", optarg); break;
		}
	}
	no_positional(argc, argv);
	if (duration < 0)
		usage_error("--duration is required");

	install_signals();
	pin_self(cpu);

	const int64_t win = 10 * 1000000LL;
	const uint64_t chunk = 2000;
	int64_t t0 = now_ns(), end = t0 + round_i64(duration * 1e9), ws = t0, t;
	uint64_t loops = 0, wl = 0, nwin = 0, x = g_sink;
	double smin = INFINITY, smax = 0;

	do {
		x = work_loops(chunk, x);
		wl += chunk;
		t = now_ns();
		if (t - ws >= win || t >= end) {
			double s = (double)wl * 1e3 / (double)(t - ws);

			/* a short trailing window is too noisy to count in min/max */
			if (t - ws >= win / 2 || nwin == 0) {
				smin = dmin(smin, s);
				smax = dmax(smax, s);
				nwin++;
			}
			loops += wl;
			wl = 0;
			ws = t;
		}
	} while (t < end && !g_stop);
	loops += wl;
	g_sink = x;
	double el = (double)(t - t0);

	if (json)
		printf("{\"workload\":\"spin\",\"cpu\":%d,\"elapsed_s\":%.6f,\"loops\":%llu,"
		       "\"loops_per_us\":%.4f,\"loops_per_us_min\":%.4f,"
		       "\"loops_per_us_max\":%.4f,\"windows\":%llu,\"interrupted\":%s}\n",
		       cpu, el / 1e9, (unsigned long long)loops, loops * 1e3 / el,
		       smin, smax, (unsigned long long)nwin, jbool(g_stop));
	else
		printf("spin: %llu loops in %.3f s on cpu %d: %.2f loops/us "
		       "(10 ms windows: min %.2f, max %.2f)%s\n",
		       (unsigned long long)loops, el / 1e9, cpu, loops * 1e3 / el,
		       smin, smax, g_stop ? " (interrupted)" : "");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* sleep-cycle                                                               */
/* ------------------------------------------------------------------------ */

static const char sleep_cycle_help[] =
"Usage: " PROG " sleep-cycle --busy-us B --idle-us I --duration S [options]\n"
"\n"
"Cycle: busy-wait (timed, running the work loop) for B us, then sleep with\n"
"clock_nanosleep(TIMER_ABSTIME) for I us.  Reports cycles, measured busy\n"
"percent, the loop speed while busy, the actual idle time and the wake-up\n"
"lateness (actual - requested wake time: mean, p50, p99, max).\n"
"\n"
"  --busy-us B        busy time per cycle (0..10000000)\n"
"  --idle-us I        idle time per cycle (1..10000000)\n"
"  --duration S       run time in seconds\n"
"  --cpu N            pin to CPU N\n"
SLACK_OPT_HELP
"  --json             print one JSON object\n";

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmd_sleep_cycle(int argc, char **argv)
{
	static const struct option lo[] = {
		LO_COMMON,
		{ "busy-us", required_argument, NULL, OPT_BUSY_US },
		{ "idle-us", required_argument, NULL, OPT_IDLE_US },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "cpu", required_argument, NULL, OPT_CPU },
		LO_SLACK,
		{ 0 }
	};
	long slack = 1;
	double busy_us = -1, idle_us = -1, duration = -1;
	int cpu = -1, c;
	bool json = false;

	set_cmd("sleep-cycle");
	while ((c = next_opt(argc, argv, lo)) != -1) {
		switch (c) {
		case OPT_HELP: fputs(sleep_cycle_help, stdout); return 0;
		case OPT_JSON: json = true; break;
		case OPT_BUSY_US: busy_us = parse_double("--busy-us", optarg, 0, 1e7); break;
		case OPT_IDLE_US: idle_us = parse_double("--idle-us", optarg, 1, 1e7); break;
		case OPT_DURATION:
			duration = parse_double("--duration", optarg, 0.001, MAX_DURATION_S);
			break;
		case OPT_CPU: cpu = parse_cpu("--cpu", optarg); break;
		case OPT_SLACK:
			slack = parse_long("--timer-slack-ns", optarg, 1, 1000000000L);
			break;
		}
	}
	no_positional(argc, argv);
	if (busy_us < 0)
		usage_error("--busy-us is required");
	if (idle_us < 0)
		usage_error("--idle-us is required");
	if (duration < 0)
		usage_error("--duration is required");

	install_signals();
	set_timer_slack(slack);
	pin_self(cpu);

	/* keep up to 1M lateness samples for percentiles (reservoir not needed:
	 * stop recording when full, mean/max keep counting) */
	const size_t maxs = 1 << 20;
	size_t ns = 0;
	int64_t *lat = malloc(maxs * sizeof(*lat));
	int64_t busy_ns = round_i64(busy_us * 1e3), idle_ns = round_i64(idle_us * 1e3);
	int64_t t0 = now_ns(), end = t0 + round_i64(duration * 1e9), t = t0;
	int64_t busy_sum = 0, idle_sum = 0, lat_sum = 0, lat_max = 0;
	uint64_t cycles = 0, loops = 0, x = g_sink;

	if (!lat)
		die("out of memory");
	while (t < end && !g_stop) {
		int64_t bs = now_ns(), be = bs + busy_ns, wake, w;

		t = bs;
		while (t < be) {
			x = work_loops(200, x);
			loops += 200;
			t = now_ns();
		}
		busy_sum += t - bs;
		wake = t + idle_ns;
		sleep_until_ns(wake);
		w = now_ns();
		if (w < wake)	/* interrupted: drop this cycle's idle part */
			break;
		idle_sum += w - t;
		if (w - wake > lat_max)
			lat_max = w - wake;
		lat_sum += w - wake;
		if (ns < maxs)
			lat[ns++] = w - wake;
		cycles++;
		t = w;
	}
	g_sink = x;
	qsort(lat, ns, sizeof(*lat), cmp_i64);

	double el = (double)(t - t0);
	double p50 = ns ? lat[ns / 2] / 1e3 : 0;
	double p99 = ns ? lat[(size_t)((ns - 1) * 0.99)] / 1e3 : 0;
	double lat_mean = cycles ? (double)lat_sum / cycles / 1e3 : 0;
	double speed = busy_sum ? loops * 1e3 / (double)busy_sum : 0;

	if (json)
		printf("{\"workload\":\"sleep-cycle\",\"busy_us\":%.6g,\"idle_us\":%.6g,"
		       "\"cpu\":%d,\"timer_slack_ns\":%ld,\"elapsed_s\":%.6f,\"cycles\":%llu,"
		       "\"busy_pct\":%.4f,"
		       "\"loops_per_us\":%.4f,\"idle_us_mean\":%.3f,"
		       "\"wake_lat_us_mean\":%.3f,\"wake_lat_us_p50\":%.3f,"
		       "\"wake_lat_us_p99\":%.3f,\"wake_lat_us_max\":%.3f,\"interrupted\":%s}\n",
		       busy_us, idle_us, cpu, slack, el / 1e9, (unsigned long long)cycles,
		       el > 0 ? 100.0 * busy_sum / el : 0.0, speed,
		       cycles ? (double)idle_sum / cycles / 1e3 : 0.0,
		       lat_mean, p50, p99, lat_max / 1e3, jbool(g_stop));
	else
		printf("sleep-cycle: busy %.0f us / idle %.0f us: %llu cycles in %.3f s, "
		       "busy %.2f%%, %.2f loops/us while busy\n"
		       "Actual idle: mean %.2f us; wake-up lateness: mean %.2f, p50 %.2f, "
		       "p99 %.2f, max %.2f us%s\n",
		       busy_us, idle_us, (unsigned long long)cycles, el / 1e9,
		       el > 0 ? 100.0 * busy_sum / el : 0.0, speed,
		       cycles ? (double)idle_sum / cycles / 1e3 : 0.0,
		       lat_mean, p50, p99, lat_max / 1e3, g_stop ? " (interrupted)" : "");
	free(lat);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* switchstorm                                                               */
/* ------------------------------------------------------------------------ */

static const char switchstorm_help[] =
"Usage: " PROG " switchstorm --threads N --duration S [options]\n"
"\n"
"N threads making the scheduler switch as often as possible: pairs of\n"
"threads hand a turn back and forth (futex wait/wake, or a byte over pipes);\n"
"with an odd N the last thread calls sched_yield() in a loop.  In yield mode\n"
"every thread loops on sched_yield().  Reports hand-offs per second and\n"
"context switches per second (getrusage(RUSAGE_SELF) ru_nvcsw + ru_nivcsw\n"
"deltas over all threads).\n"
"\n"
"  --threads N        threads (1..4096)\n"
"  --duration S       run time in seconds\n"
"  --mode M           futex (default), pipe or yield\n"
"  --json             print one JSON object\n";

enum ss_mode { SS_FUTEX, SS_PIPE, SS_YIELD };

struct ss_thr {
	atomic_int *turn;	/* shared by a futex pair */
	int me;			/* 0 or 1 in the pair */
	uint64_t count;
	pthread_barrier_t *bar;
	pthread_t th;
};

static long sys_futex(atomic_int *uaddr, int op, int val, const struct timespec *to)
{
	return syscall(SYS_futex, (int *)uaddr, op, val, to, NULL, 0);
}

static void *ss_futex_thr(void *arg)
{
	struct ss_thr *t = arg;
	const struct timespec to = { .tv_sec = 0, .tv_nsec = 20 * 1000000L };
	uint64_t n = 0;

	block_signals_in_thread();
	pthread_barrier_wait(t->bar);
	while (!atomic_load_explicit(&g_astop, memory_order_relaxed)) {
		int v = atomic_load(t->turn);

		if (v != t->me) {
			/* timeout so that a stop request is noticed */
			sys_futex(t->turn, FUTEX_WAIT_PRIVATE, v, &to);
			continue;
		}
		atomic_store(t->turn, !t->me);
		sys_futex(t->turn, FUTEX_WAKE_PRIVATE, 1, NULL);
		n++;
	}
	t->count = n;
	return NULL;
}

static void *ss_yield_thr(void *arg)
{
	struct ss_thr *t = arg;
	uint64_t n = 0;

	block_signals_in_thread();
	pthread_barrier_wait(t->bar);
	while (!atomic_load_explicit(&g_astop, memory_order_relaxed)) {
		sched_yield();
		n++;
	}
	t->count = n;
	return NULL;
}

static int cmd_switchstorm(int argc, char **argv)
{
	static const struct option lo[] = {
		LO_COMMON,
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ 0 }
	};
	static const char *const mode_names[] = { "futex", "pipe", "yield" };
	long threads = -1;
	double duration = -1;
	enum ss_mode mode = SS_FUTEX;
	bool json = false;
	int c;

	set_cmd("switchstorm");
	while ((c = next_opt(argc, argv, lo)) != -1) {
		switch (c) {
		case OPT_HELP: fputs(switchstorm_help, stdout); return 0;
		case OPT_JSON: json = true; break;
		case OPT_THREADS: threads = parse_long("--threads", optarg, 1, 4096); break;
		case OPT_DURATION:
			duration = parse_double("--duration", optarg, 0.001, MAX_DURATION_S);
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "futex"))
				mode = SS_FUTEX;
			else if (!strcmp(optarg, "pipe"))
				mode = SS_PIPE;
			else if (!strcmp(optarg, "yield"))
				mode = SS_YIELD;
			else
				usage_error("--mode: expected futex, pipe or yield, got '%s'", optarg);
			break;
		}
	}
	no_positional(argc, argv);
	if (threads < 0)
		usage_error("--threads is required");
	if (duration < 0)
		usage_error("--duration is required");

	install_signals();

	int pairs = mode == SS_YIELD ? 0 : (int)(threads / 2);
	int yielders = (int)threads - 2 * pairs;
	struct ss_thr *t = calloc(threads, sizeof(*t));
	atomic_int *turns = calloc(pairs ? pairs : 1, sizeof(*turns));
	struct pp_pair *pp = mode == SS_PIPE && pairs ? calloc(pairs, sizeof(*pp)) : NULL;
	pthread_barrier_t bar;
	struct rusage r0, r1;
	uint64_t handoffs = 0, yields = 0;
	int64_t t0, t1;
	int err;

	if (!t || !turns || (mode == SS_PIPE && pairs && !pp))
		die("out of memory");

	getrusage(RUSAGE_SELF, &r0);
	if (mode == SS_PIPE) {
		/* pipe pairs: reuse pingpong; yielders run alongside */
		pthread_barrier_init(&bar, NULL, yielders + 1);
		for (int i = 0; i < yielders; i++) {
			t[i].bar = &bar;
			if ((err = pthread_create(&t[i].th, NULL, ss_yield_thr, &t[i])))
				die("pthread_create: %s", strerror(err));
		}
		pthread_barrier_wait(&bar);
		t0 = now_ns();
		if (pairs) {
			t1 = t0 + pingpong_run(pp, pairs, 0, false, duration);
		} else {
			sleep_for_ns(round_i64(duration * 1e9));
			atomic_store(&g_astop, 1);
			t1 = now_ns();
		}
		for (int i = 0; i < yielders; i++) {
			pthread_join(t[i].th, NULL);
			yields += t[i].count;
		}
		for (int i = 0; i < pairs; i++)
			handoffs += 2 * pp[i].loops;
	} else {
		pthread_barrier_init(&bar, NULL, (unsigned)threads + 1);
		for (int i = 0; i < threads; i++) {
			bool paired = i < 2 * pairs;

			t[i].bar = &bar;
			t[i].turn = paired ? &turns[i / 2] : NULL;
			t[i].me = i % 2;
			if ((err = pthread_create(&t[i].th, NULL,
						  paired ? ss_futex_thr : ss_yield_thr, &t[i])))
				die("pthread_create: %s", strerror(err));
		}
		pthread_barrier_wait(&bar);
		t0 = now_ns();
		sleep_for_ns(round_i64(duration * 1e9));
		atomic_store(&g_astop, 1);
		t1 = now_ns();
		for (int i = 0; i < threads; i++) {
			pthread_join(t[i].th, NULL);
			if (i < 2 * pairs)
				handoffs += t[i].count;
			else
				yields += t[i].count;
		}
	}
	getrusage(RUSAGE_SELF, &r1);
	pthread_barrier_destroy(&bar);

	double el = (t1 - t0) / 1e9;
	long vol = r1.ru_nvcsw - r0.ru_nvcsw, invol = r1.ru_nivcsw - r0.ru_nivcsw;

	if (json)
		printf("{\"workload\":\"switchstorm\",\"threads\":%ld,\"mode\":\"%s\","
		       "\"pairs\":%d,\"yielders\":%d,\"elapsed_s\":%.6f,\"handoffs\":%llu,"
		       "\"handoffs_per_s\":%.3f,\"yields\":%llu,\"vol_ctxt_switches\":%ld,"
		       "\"invol_ctxt_switches\":%ld,\"switches_per_s\":%.3f,\"interrupted\":%s}\n",
		       threads, mode_names[mode], pairs, yielders, el,
		       (unsigned long long)handoffs, handoffs / el,
		       (unsigned long long)yields, vol, invol, (vol + invol) / el,
		       jbool(g_stop));
	else
		printf("switchstorm: %ld threads (%d %s pairs, %d yielding) for %.3f s\n"
		       "Hand-offs: %llu (%.0f/s), yields: %llu\n"
		       "Context switches: %ld voluntary + %ld involuntary = %.0f/s%s\n",
		       threads, pairs, mode_names[mode], yielders, el,
		       (unsigned long long)handoffs, handoffs / el,
		       (unsigned long long)yields, vol, invol, (vol + invol) / el,
		       g_stop ? " (interrupted)" : "");
	free(t);
	free(turns);
	free(pp);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* main                                                                      */
/* ------------------------------------------------------------------------ */

static const char main_help[] =
"Usage: " PROG " SUBCOMMAND [options]   (" PROG " SUBCOMMAND --help)\n"
"\n"
"Workloads for testing and benchmarking CPU frequency and idle governors.\n"
"\n"
"  periodic     fixed work packet at F Hz, optional load sweep (347 Hz test)\n"
"  impulse      inverse impulse response: busy, idle gap, busy + speed samples\n"
"  pingpong     token passed between thread pairs over pipes, loops/s\n"
"  spin         busy loop\n"
"  sleep-cycle  busy/idle cycle, wake-up lateness\n"
"  switchstorm  many threads doing futex/pipe/yield hand-offs, switches/s\n"
"\n"
"Every subcommand accepts --json (one JSON object on stdout) and --help.\n"
"Bad options exit with status 2; SIGINT/SIGTERM stop early and still report.\n";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} cmds[] = {
	{ "periodic", cmd_periodic },
	{ "impulse", cmd_impulse },
	{ "pingpong", cmd_pingpong },
	{ "spin", cmd_spin },
	{ "sleep-cycle", cmd_sleep_cycle },
	{ "switchstorm", cmd_switchstorm },
};

int main(int argc, char **argv)
{
	if (argc < 2)
		usage_error("missing subcommand");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(main_help, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			opterr = 0;
			optind = 1;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	usage_error("unknown subcommand '%s'", argv[1]);
}
