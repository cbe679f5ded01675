// SPDX-License-Identifier: GPL-2.0
/*
 * `govlab validate [--out DIR] [--quick]`: the validation kit for real
 * hardware. Runs the workloads behind bpfgov's rules under the machine's
 * own governors and under bpfgov, in alternation, and writes report.md and
 * report.json (and SVG plots where gnuplot exists) to DIR:
 *
 * - impulse: 300 ms busy, a 750-950 us idle gap, then busy while the loop
 *   rate and the delivered frequency are sampled every millisecond. A trial
 *   where the CPU stays at its minimum for >= 10 ms after the gap is the
 *   failure reported on linux-pm for HWP (up to 30 ms at minimum, ~17% of
 *   trials);
 * - periodic: a fixed work packet at 347 Hz over a load sweep (the same
 *   thread's test): time per packet, overruns, delivered frequency;
 * - ping-pong: a token over pipes between two CPUs with 0, 20, 100 and
 *   500 us of work per hop: round trips per second and wake-up latency.
 *
 * Every workload is a fixed amount of work, calibrated once before either
 * arm runs, so the two arms compare on its completion time and on the
 * energy RAPL counted meanwhile (bpfgov / governors for both; the measured
 * side of replay's floor axes, delay and energy).
 *
 * Each measure says where it came from (APERF/MPERF, else scaling_cur_freq;
 * powercap RAPL with wrap-around) or why it is missing; nothing missing
 * fails the run. Every knob bpfgov may write is snapshotted first and
 * compared at the end: the report states that all were left as found.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "actuate.h"
#include "cli.h"
#include "common.h"
#include "gov.h"
#include "json_writer.h"
#include "log.h"
#include "measure.h"
#include "platform.h"
#include "state.h"
#include "util.h"
#include "govlab_cmds.h"

static const char validate_usage[] =
"Usage: govlab validate [--out DIR] [--quick] [--sysfs-root DIR] [--proc-root DIR]\n"
"                          [--msr-root DIR] [--pin-root DIR]\n"
"Run the validation workloads (impulse trials, a 347 Hz periodic sweep,\n"
"ping-pong at 0/20/100/500 us of work) under the machine's own governors and\n"
"under bpfgov, in alternation, and write DIR/report.md and DIR/report.json\n"
"(and SVG plots where gnuplot exists). Needs root for the bpfgov runs; what\n"
"cannot be measured is named in the report with the reason. Everything\n"
"touched is restored, and the report says so.\n\n"
"Each workload does the same fixed work under both. For each, validate\n"
"prints its completion time (s) and the energy RAPL counted meanwhile (J:\n"
"powercap's intel-rapl:*/energy_uj in sysfs, on Intel and AMD alike, with\n"
"its wrap-around at max_energy_range_uj; no MSR driver needed) under each,\n"
"and bpfgov / governors for both. Without powercap it says \"Energy: no RAPL\n"
"(powercap) here\" and still times the work. The idle axes come from cpuidle's\n"
"own counters (cpuN/cpuidle/stateK/time, usage): time polling (awake: the\n"
"energy a VM without RAPL spends), time halted and halts (each a wake-up\n"
"paid), per second of work over all CPUs; without a cpuidle driver it says\n"
"\"Idle states: no cpuidle driver here\".\n\n"
"Checking replay's floor verdicts: the report names the replay model of the\n"
"machine's governors (hwp-auto for intel_pstate or amd-pstate active,\n"
"hwp-passive or schedutil under schedutil). `govlab replay` says per\n"
"scenario whether bpfgov's floor costs more or less energy (E) and delay (D)\n"
"than that model; the time ratio here is the measured side of D, the energy\n"
"ratio that of E. A ratio below 1 by more than the run-to-run spread means\n"
"bpfgov took less, above 1 by more that it took more: a replay difference of\n"
"the same sign is confirmed, of the other sign refuted; within the spread\n"
"the machine cannot tell. Use a full run (two rounds of each arm): --quick\n"
"has one round and no spread. docs/HARDWARE.md has the steps.\n\n"
"  --out DIR          where the report goes (bpfgov-validate)\n"
"  --quick            short runs (about 15 s in all) instead of about 3 minutes\n"
"  --sysfs-root DIR   sysfs (" DEFAULT_SYSFS_ROOT "), also for the powercap energy counters\n"
"  --proc-root DIR    procfs (" DEFAULT_PROC_ROOT ")\n"
"  --msr-root DIR     MSR devices <DIR>/<cpu>/msr (" DEFAULT_MSR_ROOT ")\n"
"  --pin-root DIR     pin root of the bpfgov runs (" DEFAULT_PIN_ROOT ")\n";

#define ARMS		2	/* 0: the machine's governors, 1: bpfgov */
#define POST_WIN	30	/* impulse: 1 ms windows sampled after the gap */
#define STUCK_WIN	10	/* >= 10 ms at minimum after the gap */
#define MAX_STEPS	9
#define NR_PP		4
#define LAT_CAP		(1 << 17)
#define MAX_ROUNDS	2
#define NR_WL		3

static const double pp_work_us[NR_PP] = { 0, 20, 100, 500 };
static const char *const arm_name[ARMS] = { "governors", "bpfgov" };

struct vopts {
	const char *out;
	bool quick;
	struct plat_roots r;
	const char *pin_root;
};

struct impulse_res {
	int trials;
	int stuck_freq;			/* >= 10 ms at min frequency (freq source) */
	int slow_loop;			/* >= 10 ms below 3/4 of the pre-gap loop rate */
	double recover_ms;		/* sum: ms until the first window back at speed */
	double post_ms;			/* sum: ms to do the post-gap work */
	double pre_khz, post_khz;	/* sums: pre-gap and first 10 ms after */
	int khz_samples;
	double win_ratio[POST_WIN];	/* sums: loop rate / pre-gap rate */
};

struct periodic_res {
	int steps;
	double duty[MAX_STEPS];
	double packet_us[MAX_STEPS];	/* sums of mean time per work packet */
	double overrun_pct[MAX_STEPS];
	double khz[MAX_STEPS];
	int khz_n[MAX_STEPS];
	int runs;
};

struct pp_res {
	double loops_s[NR_PP];
	double lat_p50[NR_PP], lat_p99[NR_PP];
	int runs;
};

struct arm_res {
	bool measured;
	char why[512];
	int rounds;
	struct impulse_res imp;
	struct periodic_res per;
	struct pp_res pp;
	/* per workload (0 impulse, 1 periodic, 2 pingpong), sums over the
	 * rounds: package and core uJ, completion s */
	double pkg_uj[NR_WL], core_uj[NR_WL], secs[NR_WL];
	/* per round: completion s and uJ of the compared domain */
	double r_secs[MAX_ROUNDS][NR_WL], r_uj[MAX_ROUNDS][NR_WL];
	/* per workload, sums over the rounds and CPUs: time in polling and
	 * in halting idle states (us) and entries of halting states (each a
	 * wake-up to pay), from cpuidle's own counters */
	double poll_us[NR_WL], halt_us[NR_WL], halts[NR_WL];
};

/* cpuidle's counters summed over the CPUs (stateK/time in us, usage) */
struct idle_counts {
	bool have;			/* some CPU has cpuidle state directories */
	__u64 poll_us, halt_us, halts;
};

struct vctx {
	struct vopts o;
	struct platform plat;
	struct act_choice choice;
	struct freq_src freq;
	struct energy_src energy;
	int cpu_a, cpu_b;		/* ping-pong pair; b runs impulse/periodic */
	double iters_per_us;		/* work kernel calibration */
	/* The fixed work of each workload, the same under both arms. */
	__u64 imp_ramp_iters, imp_pre_iters, imp_win_iters;
	int imp_trials, per_packets;
	__u64 pp_hops[NR_PP];
	/* RAPL reads during a workload: the last one, the longest interval
	 * between two (a wrap is seen when this is below the wrap period). */
	__u64 e_last_ns, e_max_gap_ns;
	bool e_in_wl;
	bool idle_states;		/* cpuidle's per-state counters exist */
	struct arm_res arm[ARMS];
	pid_t gov_pid;
	char notes[1024];
};

static volatile sig_atomic_t v_stop;

static void v_on_signal(int sig)
{
	(void)sig;
	v_stop = 1;
}

/* The energy axis where RAPL is missing (every VM): time in each kind of
 * idle state and the wake-ups out of halting ones, as the kernel counts
 * them (<sysfs>/devices/system/cpu/cpuN/cpuidle/stateK/{name,time,usage}).
 * A machine without a cpuidle driver has no such files. */
static int read_counter(const char *path, __u64 *v)
{
	char buf[32];

	return read_line(path, buf, sizeof(buf)) ? -1 : parse_u64(buf, v);
}

static void idle_counts_read(const char *sysfs_root, struct idle_counts *ic)
{
	char path[PATH_MAX], name[32];
	__u64 t, u;

	memset(ic, 0, sizeof(*ic));
	for (int cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d", sysfs_root, cpu);
		if (access(path, F_OK))
			break;
		for (int k = 0; k < BPFGOV_MAX_STATES; k++) {
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpuidle/state%d/name",
				 sysfs_root, cpu, k);
			if (read_line(path, name, sizeof(name)))
				break;
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpuidle/state%d/time",
				 sysfs_root, cpu, k);
			if (read_counter(path, &t))
				continue;
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpuidle/state%d/usage",
				 sysfs_root, cpu, k);
			if (read_counter(path, &u))
				u = 0;
			ic->have = true;
			if (!strcmp(name, "POLL")) {
				ic->poll_us += t;
			} else {
				ic->halt_us += t;
				ic->halts += u;
			}
		}
	}
}

/* ---------------------------------------------------------- work kernel */

static volatile __u64 v_sink;

static __u64 spin(__u64 n)
{
	__u64 x = 0x9e3779b97f4a7c15ull;

	for (__u64 i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	v_sink = x;
	return n;
}

/* Busy until @end_ns; returns the iterations done. */
static __u64 busy_until(__u64 end_ns, __u64 chunk)
{
	__u64 n = 0;

	while (mono_ns() < end_ns)
		n += spin(chunk);
	return n;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void sleep_until(__u64 t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull, .tv_nsec = t % 1000000000ull };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

#define ENERGY_READ_NS	200000000ull	/* read RAPL every 200 ms in a workload */

static void energy_read(struct vctx *v)
{
	__u64 now = mono_ns();

	energy_update(&v->energy);
	if (v->e_in_wl && now - v->e_last_ns > v->e_max_gap_ns)
		v->e_max_gap_ns = now - v->e_last_ns;
	v->e_last_ns = now;
}

/* A read when the last is ENERGY_READ_NS old: the counters wrap (past
 * max_energy_range_uj) every few minutes on real parts, and only a read
 * per wrap period tells a wrap from a small step. */
static void energy_tick(struct vctx *v)
{
	if (v->energy.nr && mono_ns() - v->e_last_ns >= ENERGY_READ_NS)
		energy_read(v);
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Iterations of the work kernel per µs at the speed the CPU reaches under
 * sustained load, and from it the fixed work of every workload: each arm
 * does the same work, so its completion time and energy compare. */
static void pp_level(struct vctx *v, int i, __u64 end_ns, __u64 hops, struct pp_res *r,
		     __u64 *loops, double *secs);

static void calibrate(struct vctx *v)
{
	double per_step = v->o.quick ? 0.3 : 2.0, pp_s = v->o.quick ? 0.3 : 2.0;
	double cal_s = v->o.quick ? 0.1 : 0.5;
	__u64 t0, n = 0;

	pin_to(v->cpu_b);
	busy_until(mono_ns() + 50000000ull, 256);	/* ramp up */
	t0 = mono_ns();
	n = busy_until(t0 + 50000000ull, 256);
	v->iters_per_us = (double)n / ((mono_ns() - t0) / 1000.0);
	if (v->iters_per_us <= 0)
		v->iters_per_us = 1;
	v->imp_trials = v->o.quick ? 3 : 20;
	v->imp_ramp_iters = (__u64)(v->iters_per_us * 250000);
	v->imp_pre_iters = (__u64)(v->iters_per_us * 50000);
	v->imp_win_iters = (__u64)(v->iters_per_us * 1000) + 1;
	v->per_packets = (int)(per_step * 347 + 0.5);
	/* Ping-pong: the round trips each level makes in pp_s here, before
	 * either arm ran. */
	for (int i = 0; i < NR_PP && !v_stop; i++) {
		__u64 loops = 0;
		double secs = 0;

		pp_level(v, i, mono_ns() + (__u64)(cal_s * 1e9), 0, NULL, &loops, &secs);
		v->pp_hops[i] = secs > 0 ? (__u64)(loops * pp_s / secs) : 0;
		if (v->pp_hops[i] < 10)
			v->pp_hops[i] = 10;
	}
}

/* ------------------------------------------------------------- impulse */

/* Each trial: 300 ms of work (at the calibrated speed), a 750-950 µs gap,
 * then 30 windows of 1 ms of work each, timed. A window is slow below 3/4
 * of the pre-gap rate, at the minimum when its delivered frequency is
 * within 10 % of cpuinfo_min_freq (else 60 % of the pre-gap frequency). */
static void impulse_run(struct vctx *v, struct impulse_res *r, int trials)
{
	__u64 chunk = (__u64)(v->iters_per_us * 10) + 1;	/* ~10 us */
	unsigned int seed = 347;

	pin_to(v->cpu_b);
	for (int t = 0; t < trials && !v_stop; t++) {
		struct freq_sample f0, f1, fa, fb;
		__u64 pre_t, gap_ns, post0, win_t0[POST_WIN], win_ns[POST_WIN];
		__u32 win_khz[POST_WIN];
		double pre_rate, pre_khz, post_ms, rec_ms = -1, min_ms = -1, post_khz = 0;
		int nkhz = 0;

		for (__u64 d = 0; d < v->imp_ramp_iters; d += chunk) {
			spin(chunk);
			energy_tick(v);
		}
		if (v->energy.nr)
			energy_read(v);	/* the next ~85 ms have no read */
		freq_sample(&v->freq, v->cpu_b, &f0);
		pre_t = mono_ns();
		spin(v->imp_pre_iters);
		freq_sample(&v->freq, v->cpu_b, &f1);
		pre_rate = (double)v->imp_pre_iters / ((mono_ns() - pre_t) / 1e6);	/* per ms */
		pre_khz = freq_khz(&v->freq, &f0, &f1);

		gap_ns = (750 + rand_r(&seed) % 201) * 1000ull;
		sleep_ns(gap_ns);

		post0 = mono_ns();
		freq_sample(&v->freq, v->cpu_b, &fa);
		for (int w = 0; w < POST_WIN; w++) {
			win_t0[w] = mono_ns();
			spin(v->imp_win_iters);
			freq_sample(&v->freq, v->cpu_b, &fb);
			win_khz[w] = freq_khz(&v->freq, &fa, &fb);
			fa = fb;
			win_ns[w] = mono_ns() - win_t0[w];
		}
		post_ms = (mono_ns() - post0) / 1e6;
		for (int w = 0; w < POST_WIN; w++) {
			double rate = win_ns[w] ? v->imp_win_iters / (win_ns[w] / 1e6) : 0;
			double ratio = pre_rate > 0 ? rate / pre_rate : 0;
			double at_ms = (win_t0[w] - post0) / 1e6;

			r->win_ratio[w] += ratio;
			if (rec_ms < 0 && ratio >= 0.75)
				rec_ms = at_ms;
		}
		if (rec_ms < 0)
			rec_ms = post_ms;
		if (v->freq.kind != FREQ_NONE && pre_khz > 0) {
			double lim = v->freq.min_khz ? v->freq.min_khz * 1.1 : pre_khz * 0.6;

			for (int w = 0; w < POST_WIN; w++) {
				double at_ms = (win_t0[w] - post0) / 1e6;

				if (min_ms < 0 && !(win_khz[w] && win_khz[w] <= lim))
					min_ms = at_ms;
				if (at_ms < STUCK_WIN && win_khz[w]) {
					post_khz += win_khz[w];
					nkhz++;
				}
			}
			if (min_ms < 0)
				min_ms = post_ms;
			r->pre_khz += pre_khz;
			r->post_khz += nkhz ? post_khz / nkhz : 0;
			r->khz_samples++;
			if (min_ms >= STUCK_WIN)
				r->stuck_freq++;
		}
		if (rec_ms >= STUCK_WIN)
			r->slow_loop++;
		energy_tick(v);
		r->recover_ms += rec_ms;
		r->post_ms += post_ms;
		r->trials++;
	}
}

/* ------------------------------------------------------------ periodic */

/* A fixed number of work packets at 347 Hz per duty step; a packet that
 * overruns its period starts the next at once. */
static void periodic_run(struct vctx *v, struct periodic_res *r)
{
	static const double quick_duty[] = { 20, 50, 80 };
	const __u64 period = 1000000000ull / 347;
	int nsteps = v->o.quick ? 3 : 9;

	pin_to(v->cpu_b);
	r->steps = nsteps;
	for (int s = 0; s < nsteps && !v_stop; s++) {
		double duty = v->o.quick ? quick_duty[s] : 10.0 * (s + 1);
		__u64 packet = (__u64)(v->iters_per_us * period / 1000.0 * duty / 100.0);
		__u64 next = mono_ns(), busy = 0;
		struct freq_sample fa, fb;
		int n = 0, over = 0;
		__u32 khz;

		freq_sample(&v->freq, v->cpu_b, &fa);
		while (n < v->per_packets && !v_stop) {
			__u64 b0 = mono_ns();

			spin(packet);
			busy += mono_ns() - b0;
			n++;
			next += period;
			energy_tick(v);
			if (mono_ns() > next) {
				over++;
				next = mono_ns();
			} else if (n < v->per_packets) {
				sleep_until(next);
			}
		}
		freq_sample(&v->freq, v->cpu_b, &fb);
		khz = freq_khz(&v->freq, &fa, &fb);
		r->duty[s] = duty;
		r->packet_us[s] += n ? busy / 1000.0 / n : 0;
		r->overrun_pct[s] += n ? 100.0 * over / n : 0;
		if (khz) {
			r->khz[s] += khz;
			r->khz_n[s]++;
		}
	}
	r->runs++;
}

/* ----------------------------------------------------------- ping-pong */

struct pp_side {
	struct vctx *v;
	int cpu, rfd, wfd;
	__u64 work_iters;
	__u64 end_ns, hops;		/* stop at end_ns, or after hops */
	bool starter;
	__u64 loops;
	__u32 *lat_ns;
	size_t nlat;
};

static void *pp_thread(void *arg)
{
	struct pp_side *s = arg;
	__u64 ts;

	pin_to(s->cpu);
	if (s->starter) {
		ts = mono_ns();
		if (write(s->wfd, &ts, sizeof(ts)) != sizeof(ts))
			return NULL;
	}
	for (;;) {
		if (read(s->rfd, &ts, sizeof(ts)) != sizeof(ts))
			break;
		if (ts == 0)		/* stop token: pass it on once */
			break;
		if (s->nlat < LAT_CAP)
			s->lat_ns[s->nlat++] = (__u32)(mono_ns() - ts);
		if (s->work_iters)
			spin(s->work_iters);
		s->loops++;
		ts = mono_ns();
		if ((s->hops && s->loops >= s->hops) || (s->end_ns && ts >= s->end_ns) || v_stop)
			ts = 0;
		if (write(s->wfd, &ts, sizeof(ts)) != sizeof(ts) || ts == 0)
			break;
	}
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* One level of work per hop, until @end_ns or for @hops round trips; adds
 * to @r when given. */
static void pp_level(struct vctx *v, int i, __u64 end_ns, __u64 hops, struct pp_res *r,
		     __u64 *loops, double *secs)
{
	__u64 work = (__u64)(v->iters_per_us * pp_work_us[i]);
	struct pp_side a = { .v = v, .cpu = v->cpu_a, .work_iters = work, .starter = true,
			     .end_ns = end_ns, .hops = hops };
	struct pp_side b = { .v = v, .cpu = v->cpu_b, .work_iters = work, .end_ns = end_ns,
			     .hops = hops };
	int ab[2], ba[2];
	pthread_t ta, tb;
	__u64 t0;
	size_t n;

	*loops = 0;
	*secs = 0;
	if (pipe(ab))
		return;
	if (pipe(ba)) {
		close(ab[0]);
		close(ab[1]);
		return;
	}
	a.rfd = ba[0]; a.wfd = ab[1];
	b.rfd = ab[0]; b.wfd = ba[1];
	a.lat_ns = calloc(LAT_CAP, sizeof(__u32));
	b.lat_ns = calloc(LAT_CAP, sizeof(__u32));
	t0 = mono_ns();
	if (a.lat_ns && b.lat_ns && !pthread_create(&tb, NULL, pp_thread, &b)) {
		if (!pthread_create(&ta, NULL, pp_thread, &a)) {
			/* wait, reading RAPL meanwhile when the last read is
			 * ENERGY_READ_NS old */
			for (;;) {
				__u64 now = mono_ns(), due = v->e_last_ns + ENERGY_READ_NS;
				__u64 wait = v->energy.nr && due > now ? due - now : ENERGY_READ_NS;
				struct timespec ts;

				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += wait % 1000000000ull;
				ts.tv_sec += wait / 1000000000ull + ts.tv_nsec / 1000000000;
				ts.tv_nsec %= 1000000000;
				if (pthread_timedjoin_np(ta, NULL, &ts) != ETIMEDOUT)
					break;
				energy_tick(v);
			}
		} else {
			close(ab[1]);
		}
		pthread_join(tb, NULL);
		*secs = (mono_ns() - t0) / 1e9;
		*loops = (a.loops + b.loops) / 2;
		if (r && *secs > 0) {
			r->loops_s[i] += (a.loops + b.loops) / 2.0 / *secs;
			/* both sides' latencies: merge into a's buffer */
			n = a.nlat;
			for (size_t k = 0; k < b.nlat && n < LAT_CAP; k++)
				a.lat_ns[n++] = b.lat_ns[k];
			if (n) {
				qsort(a.lat_ns, n, sizeof(__u32), cmp_u32);
				r->lat_p50[i] += a.lat_ns[(n - 1) / 2] / 1000.0;
				r->lat_p99[i] += a.lat_ns[(n - 1) * 99 / 100] / 1000.0;
			}
		}
	}
	free(a.lat_ns);
	free(b.lat_ns);
	close(ab[0]); close(ab[1]); close(ba[0]); close(ba[1]);
}

static void pingpong_run(struct vctx *v, struct pp_res *r)
{
	for (int i = 0; i < NR_PP && !v_stop; i++) {
		__u64 loops;
		double secs;

		pp_level(v, i, 0, v->pp_hops[i], r, &loops, &secs);
		energy_tick(v);
	}
	r->runs++;
}

/* -------------------------------------------------- the bpfgov runs */

/* The govloader binary that runs the bpfgov arms: the one beside govlab
 * (the build tree, an install), else the first on $PATH. */
static int govloader_exe(char *buf, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", buf, n - 1);
	char *slash;

	if (k < 0)
		return -errno;
	buf[k] = '\0';
	slash = strrchr(buf, '/');
	if (slash && (size_t)(slash - buf) + sizeof("/govloader") <= n) {
		strcpy(slash, "/govloader");
		if (!access(buf, X_OK))
			return 0;
	}
	if (n < sizeof("govloader"))
		return -ENAMETOOLONG;
	strcpy(buf, "govloader");	/* execlp: searched on $PATH */
	return 0;
}

/* Whether the child runs: its state map says it attached. */
static bool gov_attached(const struct vctx *v)
{
	struct bpfgov_loader_state *ld = malloc(sizeof(*ld));
	bool up = ld && !state_read(v->o.pin_root, ld) && ld->running &&
		  ld->pid == (__u32)v->gov_pid;

	free(ld);
	return up;
}

/* Start `govloader start` on the same roots; 0 once it runs, else -errno
 * and @why. */
static int gov_up(struct vctx *v, char *why, size_t n)
{
	char exe[PATH_MAX], log[PATH_MAX];
	pid_t owner = gov_lock_owner();
	__u64 end;
	int fd;

	if (geteuid() != 0) {
		snprintf(why, n, "needs root (CAP_BPF, CAP_SYS_ADMIN) to load bpfgov");
		return -EPERM;
	}
	if (owner) {
		snprintf(why, n, "bpfgov already runs (pid %d): 'govloader stop' first, so both arms are measured apart",
			 (int)owner);
		return -EBUSY;
	}
	if (govloader_exe(exe, sizeof(exe))) {
		snprintf(why, n, "cannot find the govloader binary (/proc/self/exe)");
		return -ENOENT;
	}
	snprintf(log, sizeof(log), "%s/bpfgov-start.log", v->o.out);
	v->gov_pid = fork();
	if (v->gov_pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		return -errno;
	}
	if (v->gov_pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp(exe, exe, "start", "--sysfs-root", v->o.r.sysfs_root, "--msr-root",
		      v->o.r.msr_root, "--proc-root", v->o.r.proc_root, "--pin-root",
		      v->o.pin_root, "--duration", "900", (char *)NULL);
		_exit(127);
	}
	end = mono_ns() + 60000000000ull;
	while (mono_ns() < end && !v_stop) {
		int st;

		if (waitpid(v->gov_pid, &st, WNOHANG) == v->gov_pid) {
			v->gov_pid = 0;
			snprintf(why, n, "govloader start exited (status %d); see bpfgov-start.log",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			return -ECHILD;
		}
		if (gov_lock_owner() == v->gov_pid && gov_attached(v))
			return 0;
		usleep(50000);
	}
	kill(v->gov_pid, SIGTERM);
	waitpid(v->gov_pid, NULL, 0);
	v->gov_pid = 0;
	snprintf(why, n, "govloader start did not come up within 60 s; see bpfgov-start.log");
	return -ETIMEDOUT;
}

static int gov_down(struct vctx *v)
{
	int st = 0;

	if (v->gov_pid <= 0)
		return 0;
	kill(v->gov_pid, SIGTERM);
	if (waitpid(v->gov_pid, &st, 0) < 0)
		st = 0;
	v->gov_pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ------------------------------------------------------------ one arm */

/* Each workload's fixed work, timed from its start to its completion, with
 * the energy the RAPL counters (sysfs, no MSR driver needed) counted in
 * that time. */
static void run_arm(struct vctx *v, struct arm_res *a)
{
	const char *main_dom = energy_main(&v->energy);
	int rd = a->rounds < MAX_ROUNDS ? a->rounds : MAX_ROUNDS - 1;
	long long p0, c0, m0;
	struct idle_counts i0, i1;
	double secs;
	__u64 t0;

	for (int wl = 0; wl < NR_WL && !v_stop; wl++) {
		idle_counts_read(v->o.r.sysfs_root, &i0);
		energy_read(v);
		v->e_in_wl = true;
		p0 = energy_total(&v->energy, "package");
		c0 = energy_total(&v->energy, "core");
		m0 = main_dom ? energy_total(&v->energy, main_dom) : -1;
		t0 = mono_ns();
		if (wl == 0)
			impulse_run(v, &a->imp, v->imp_trials);
		else if (wl == 1)
			periodic_run(v, &a->per);
		else
			pingpong_run(v, &a->pp);
		secs = (mono_ns() - t0) / 1e9;
		energy_read(v);
		idle_counts_read(v->o.r.sysfs_root, &i1);
		v->idle_states = i0.have && i1.have;
		if (v->idle_states) {
			a->poll_us[wl] += i1.poll_us > i0.poll_us ? (double)(i1.poll_us - i0.poll_us) : 0;
			a->halt_us[wl] += i1.halt_us > i0.halt_us ? (double)(i1.halt_us - i0.halt_us) : 0;
			a->halts[wl] += i1.halts > i0.halts ? (double)(i1.halts - i0.halts) : 0;
		}
		v->e_in_wl = false;
		a->secs[wl] += secs;
		a->r_secs[rd][wl] = secs;
		if (p0 >= 0)
			a->pkg_uj[wl] += energy_total(&v->energy, "package") - p0;
		if (c0 >= 0)
			a->core_uj[wl] += energy_total(&v->energy, "core") - c0;
		if (m0 >= 0)
			a->r_uj[rd][wl] = energy_total(&v->energy, main_dom) - m0;
	}
	a->rounds++;
}

/* -------------------------------------------------------------- report */

static double avg(double sum, int n)
{
	return n ? sum / n : 0;
}

static const char *wl_name[NR_WL] = { "impulse", "periodic", "pingpong" };

/* ------------------------------------------------ the same work, compared */

struct cmp_row {
	double secs[ARMS], uj[ARMS];	/* means per round; 0: not measured */
	double t_ratio, e_ratio;	/* bpfgov / governors; 0: unknown */
	double t_spread, e_spread;	/* %: largest difference between two rounds
					 * of one arm over their mean; -1: one round */
};

static double rel_diff_pct(double a, double b)
{
	double m = (a + b) / 2;

	return m > 0 ? 100 * (a > b ? a - b : b - a) / m : 0;
}

static void cmp_row(const struct vctx *v, int wl, struct cmp_row *c)
{
	bool energy = energy_main(&v->energy) != NULL;

	memset(c, 0, sizeof(*c));
	c->t_spread = c->e_spread = -1;
	for (int k = 0; k < ARMS; k++) {
		const struct arm_res *a = &v->arm[k];
		int n = a->rounds < MAX_ROUNDS ? a->rounds : MAX_ROUNDS;

		if (!a->measured || !n)
			continue;
		for (int r = 0; r < n; r++) {
			c->secs[k] += a->r_secs[r][wl] / n;
			c->uj[k] += a->r_uj[r][wl] / n;
		}
		if (n >= 2) {
			double t = rel_diff_pct(a->r_secs[0][wl], a->r_secs[1][wl]);
			double e = rel_diff_pct(a->r_uj[0][wl], a->r_uj[1][wl]);

			c->t_spread = t > c->t_spread ? t : c->t_spread;
			if (energy)
				c->e_spread = e > c->e_spread ? e : c->e_spread;
		}
	}
	if (c->secs[0] > 0 && c->secs[1] > 0)
		c->t_ratio = c->secs[1] / c->secs[0];
	if (energy && c->uj[0] > 0 && c->uj[1] > 0)
		c->e_ratio = c->uj[1] / c->uj[0];
}

static void wl_work(const struct vctx *v, int wl, char *buf, size_t n)
{
	switch (wl) {
	case 0:
		snprintf(buf, n, "%d trials: 300 ms of work, a 750-950 us gap, 30 ms of work",
			 v->imp_trials);
		break;
	case 1:
		snprintf(buf, n, "%d packets at 347 Hz in each of %d duty steps", v->per_packets,
			 v->o.quick ? 3 : 9);
		break;
	default:
		snprintf(buf, n, "%llu/%llu/%llu/%llu round trips at 0/20/100/500 us of work a hop",
			 (unsigned long long)v->pp_hops[0], (unsigned long long)v->pp_hops[1],
			 (unsigned long long)v->pp_hops[2], (unsigned long long)v->pp_hops[3]);
	}
}

/* The model of `govlab replay`'s floor judge that stands for the
 * machine's own frequency governors, or NULL; @why says which and why. */
static const char *replay_model(const struct platform *p, char *why, size_t n)
{
	const char *drv = p->cpufreq_driver, *gov = p->cpufreq_governor;
	bool schedutil = !strcmp(gov, "schedutil");

	if (!strcmp(gov, "performance")) {
		snprintf(why, n, "governor performance runs at the highest level: no replay model");
		return NULL;
	}
	if (!strcmp(drv, "intel_pstate") && p->hwp) {
		snprintf(why, n, "intel_pstate active: the hardware picks the level (HWP)");
		return "hwp-auto";
	}
	if (!strcmp(drv, "amd-pstate-epp")) {
		snprintf(why, n, "amd-pstate active: the hardware picks the level (CPPC)");
		return "hwp-auto";
	}
	if (schedutil && (!strcmp(drv, "intel_cpufreq") && p->hwp)) {
		snprintf(why, n, "intel_pstate passive with HWP, schedutil: min = lowest, desired = target");
		return "hwp-passive";
	}
	if (schedutil && !strcmp(drv, "amd-pstate") && !strcmp(p->pstate_mode, "guided")) {
		snprintf(why, n, "amd-pstate guided, schedutil: min = target, the hardware above it");
		return "hwp-1";
	}
	if (schedutil && !strcmp(drv, "amd-pstate")) {
		snprintf(why, n, "amd-pstate passive, schedutil: min = lowest, desired = target");
		return "hwp-passive";
	}
	if (schedutil && strcmp(drv, "none")) {
		snprintf(why, n, "%s, schedutil: the target is the frequency", drv);
		return "schedutil";
	}
	snprintf(why, n, "cpufreq driver %s, governor %s: no replay model", drv, *gov ? gov : "none");
	return NULL;
}

static const char no_rapl[] = "Energy: no RAPL (powercap) here";

static const char no_idle_states[] =
	"Idle states: no cpuidle driver here (no per-state time or usage to count)";

/* Idle-state time of one arm and workload, per second of completion. */
static void idle_row(const struct vctx *v, int k, int wl, double *poll_ms, double *halt_ms,
		     double *halts)
{
	const struct arm_res *a = &v->arm[k];
	double s = a->secs[wl];

	*poll_ms = s > 0 ? a->poll_us[wl] / 1e3 / s : 0;
	*halt_ms = s > 0 ? a->halt_us[wl] / 1e3 / s : 0;
	*halts = s > 0 ? a->halts[wl] / s : 0;
}

/* The idle axes: time polling (energy spent awake), time halted and
 * wake-ups out of halting states (each one's cost paid), per second of the
 * workload, summed over CPUs. */
static void print_idle(const struct vctx *v)
{
	double p, h, n;

	if (!v->idle_states) {
		printf("%s\n", no_idle_states);
		return;
	}
	printf("Idle states per second of work, all CPUs (poll ms, halt ms, halts):\n");
	for (int wl = 0; wl < NR_WL; wl++) {
		printf("  %-9s", wl_name[wl]);
		for (int k = 0; k < ARMS; k++) {
			if (v->arm[k].secs[wl] <= 0) {
				printf("  %s not measured", arm_name[k]);
				continue;
			}
			idle_row(v, k, wl, &p, &h, &n);
			printf("  %s %.1f / %.1f / %.0f", arm_name[k], p, h, n);
		}
		printf("\n");
	}
}


static void json_compare(struct vctx *v, json_writer_t *w)
{
	const char *dom = energy_main(&v->energy), *model;
	char why[256], work[160];

	model = replay_model(&v->plat, why, sizeof(why));
	jsonw_name(w, "comparison");
	jsonw_start_object(w);
	jsonw_string_field(w, "energy_domain", dom);
	jsonw_string_field(w, "energy_note", dom ? NULL : no_rapl);
	jsonw_string_field(w, "idle_states_note", v->idle_states ? NULL : no_idle_states);
	jsonw_string_field(w, "replay_model", model);
	jsonw_string_field(w, "replay_model_why", why);
	jsonw_name(w, "workloads");
	jsonw_start_array(w);
	for (int wl = 0; wl < NR_WL; wl++) {
		struct cmp_row c;

		cmp_row(v, wl, &c);
		wl_work(v, wl, work, sizeof(work));
		jsonw_start_object(w);
		jsonw_string_field(w, "workload", wl_name[wl]);
		jsonw_string_field(w, "work", work);
		for (int k = 0; k < ARMS; k++) {
			jsonw_name(w, arm_name[k]);
			if (c.secs[k] <= 0) {
				jsonw_null(w);
				continue;
			}
			jsonw_start_object(w);
			jsonw_float_field_fmt(w, "seconds", "%.4f", c.secs[k]);
			if (dom)
				jsonw_float_field_fmt(w, "energy_j", "%.4f", c.uj[k] / 1e6);
			else
				jsonw_null_field(w, "energy_j");
			if (v->idle_states) {
				double p, h, n;

				idle_row(v, k, wl, &p, &h, &n);
				jsonw_float_field_fmt(w, "poll_ms_per_s", "%.3f", p);
				jsonw_float_field_fmt(w, "halt_ms_per_s", "%.3f", h);
				jsonw_float_field_fmt(w, "halts_per_s", "%.1f", n);
			} else {
				jsonw_null_field(w, "poll_ms_per_s");
				jsonw_null_field(w, "halt_ms_per_s");
				jsonw_null_field(w, "halts_per_s");
			}
			jsonw_end_object(w);
		}
		if (c.t_ratio > 0)
			jsonw_float_field_fmt(w, "time_ratio", "%.4f", c.t_ratio);
		else
			jsonw_null_field(w, "time_ratio");
		if (c.e_ratio > 0)
			jsonw_float_field_fmt(w, "energy_ratio", "%.4f", c.e_ratio);
		else
			jsonw_null_field(w, "energy_ratio");
		if (c.t_spread >= 0)
			jsonw_float_field_fmt(w, "spread_time_pct", "%.2f", c.t_spread);
		else
			jsonw_null_field(w, "spread_time_pct");
		if (c.e_spread >= 0)
			jsonw_float_field_fmt(w, "spread_energy_pct", "%.2f", c.e_spread);
		else
			jsonw_null_field(w, "spread_energy_pct");
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

static void md_compare(struct vctx *v, FILE *f)
{
	const char *dom = energy_main(&v->energy), *model;
	char why[256], work[160];

	model = replay_model(&v->plat, why, sizeof(why));
	fprintf(f, "\n## Energy and completion time: the same work under both\n\n");
	fprintf(f, "Each workload does a fixed amount of work (calibrated once, before either arm ran); completion time is from its start to its last piece of work");
	if (dom)
		fprintf(f, ", energy what the RAPL %s domain%s counted in that time", dom,
			strcmp(dom, "package") ? "" : "s");
	else
		fprintf(f, ".\n\n%s — %s", no_rapl, v->energy.why);
	fprintf(f, ". Ratios are bpfgov ÷ governors: below 1, bpfgov took less. Run-to-run is the largest difference between two rounds of one arm (one round: `-`, run without --quick); a ratio within it of 1 is noise.\n\n");
	if (dom)
		fprintf(f, "| workload | work per run | governors: s / J | bpfgov: s / J | bpfgov ÷ governors: time / energy | run-to-run: time / energy |\n|---|---|---|---|---|---|\n");
	else
		fprintf(f, "| workload | work per run | governors: s | bpfgov: s | bpfgov ÷ governors: time | run-to-run: time |\n|---|---|---|---|---|---|\n");
	for (int wl = 0; wl < NR_WL; wl++) {
		struct cmp_row c;

		cmp_row(v, wl, &c);
		wl_work(v, wl, work, sizeof(work));
		fprintf(f, "| %s | %s |", wl_name[wl], work);
		for (int k = 0; k < ARMS; k++) {
			if (c.secs[k] <= 0)
				fprintf(f, " not measured |");
			else if (dom)
				fprintf(f, " %.3f / %.3f |", c.secs[k], c.uj[k] / 1e6);
			else
				fprintf(f, " %.3f |", c.secs[k]);
		}
		if (c.t_ratio > 0)
			fprintf(f, " %.3f", c.t_ratio);
		else
			fprintf(f, " -");
		if (dom)
			fprintf(f, c.e_ratio > 0 ? " / %.3f |" : " / - |", c.e_ratio);
		else
			fprintf(f, " |");
		if (c.t_spread >= 0)
			fprintf(f, " %.1f %%", c.t_spread);
		else
			fprintf(f, " -");
		if (dom)
			fprintf(f, c.e_spread >= 0 ? " / %.1f %% |\n" : " / - |\n", c.e_spread);
		else
			fprintf(f, " |\n");
	}
	if (v->idle_states) {
		fprintf(f, "\nThe idle axes, from cpuidle's own counters, per second of work and summed over CPUs: time polling (the CPU stays awake: energy), time halted, and halts (each a wake-up whose cost is paid).\n\n| workload | governors: poll ms / halt ms / halts | bpfgov: poll ms / halt ms / halts |\n|---|---|---|\n");
		for (int wl = 0; wl < NR_WL; wl++) {
			double p, h, n;

			fprintf(f, "| %s |", wl_name[wl]);
			for (int k = 0; k < ARMS; k++) {
				if (v->arm[k].secs[wl] <= 0) {
					fprintf(f, " not measured |");
					continue;
				}
				idle_row(v, k, wl, &p, &h, &n);
				fprintf(f, " %.1f / %.1f / %.0f |", p, h, n);
			}
			fprintf(f, "\n");
		}
	} else {
		fprintf(f, "\n%s.\n", no_idle_states);
	}
	if (model)
		fprintf(f, "\nThe replay's model of these governors is `%s` (%s): compare with `govlab replay`'s floor verdict of bpfgov against `%s` on the same scenarios (docs/HARDWARE.md, \"Confirming replay's floor verdicts\").\n",
			model, why, model);
	else
		fprintf(f, "\nThe replay has no model of these governors (%s).\n", why);
}

/* The comparison on stdout: what a user reads first. */
static void print_compare(struct vctx *v)
{
	const char *dom = energy_main(&v->energy), *model;
	char why[256];

	model = replay_model(&v->plat, why, sizeof(why));
	printf("The same work under both (completion s%s; bpfgov / governors):\n",
	       dom ? ", RAPL energy J" : "");
	for (int wl = 0; wl < NR_WL; wl++) {
		struct cmp_row c;

		cmp_row(v, wl, &c);
		printf("  %-9s", wl_name[wl]);
		for (int k = 0; k < ARMS; k++) {
			if (c.secs[k] <= 0)
				printf("  %s not measured", arm_name[k]);
			else if (dom)
				printf("  %s %.3f s %.3f J", arm_name[k], c.secs[k], c.uj[k] / 1e6);
			else
				printf("  %s %.3f s", arm_name[k], c.secs[k]);
		}
		if (c.t_ratio > 0)
			printf("  time %.3f", c.t_ratio);
		if (c.e_ratio > 0)
			printf("  energy %.3f", c.e_ratio);
		printf("\n");
	}
	if (!dom)
		printf("%s (%s)\n", no_rapl, v->energy.why);
	print_idle(v);
	if (model)
		printf("Replay's model of these governors: %s (%s)\n", model, why);
}

static void json_report(struct vctx *v, FILE *f, int restored_bad, const char *diff,
			int nr_snap, bool plots, const char *plot_why)
{
	json_writer_t *w = jsonw_new(f);
	const struct platform *p = &v->plat;

	if (!w)
		return;
	jsonw_pretty(w, true);
	jsonw_start_object(w);
	jsonw_string_field(w, "tool", "govlab validate");
	jsonw_bool_field(w, "quick", v->o.quick);

	jsonw_name(w, "platform");
	jsonw_start_object(w);
	plat_json_fields(w, p, v->o.r.msr_root, &v->choice);
	jsonw_end_object(w);

	jsonw_name(w, "sources");
	jsonw_start_object(w);
	jsonw_name(w, "frequency");
	jsonw_start_object(w);
	jsonw_string_field(w, "source", freq_kind_name(v->freq.kind));
	jsonw_string_field(w, "note", v->freq.why[0] ? v->freq.why : NULL);
	jsonw_uint_field(w, "min_khz", v->freq.min_khz);
	jsonw_uint_field(w, "base_khz", v->freq.base_khz);
	jsonw_end_object(w);
	jsonw_name(w, "energy");
	jsonw_start_object(w);
	jsonw_string_field(w, "source", v->energy.nr ? "powercap-rapl" : "none");
	jsonw_string_field(w, "note", v->energy.nr ? NULL : v->energy.why);
	jsonw_name(w, "domains");
	jsonw_start_array(w);
	for (int i = 0; i < v->energy.nr; i++)
		jsonw_string(w, v->energy.dom[i].name);
	jsonw_end_array(w);
	{
		__u64 wraps = 0;

		for (int i = 0; i < v->energy.nr; i++)
			wraps += v->energy.dom[i].wraps;
		jsonw_uint_field(w, "wraps", wraps);
		jsonw_float_field_fmt(w, "max_read_interval_ms", "%.1f", v->e_max_gap_ns / 1e6);
	}
	jsonw_end_object(w);
	jsonw_name(w, "plots");
	jsonw_start_object(w);
	jsonw_bool_field(w, "drawn", plots);
	jsonw_string_field(w, "note", plots ? NULL : plot_why);
	jsonw_end_object(w);
	jsonw_end_object(w);

	jsonw_name(w, "not_measured");
	jsonw_start_array(w);
	if (v->freq.kind == FREQ_NONE)
		jsonw_string(w, v->freq.why);
	if (!v->energy.nr)
		jsonw_string(w, v->energy.why);
	for (int k = 0; k < ARMS; k++)
		if (!v->arm[k].measured)
			jsonw_string(w, v->arm[k].why);
	if (!plots)
		jsonw_string(w, plot_why);
	jsonw_end_array(w);

	jsonw_name(w, "arms");
	jsonw_start_object(w);
	for (int k = 0; k < ARMS; k++) {
		const struct arm_res *a = &v->arm[k];
		const struct impulse_res *im = &a->imp;

		jsonw_name(w, arm_name[k]);
		jsonw_start_object(w);
		jsonw_bool_field(w, "measured", a->measured);
		if (!a->measured) {
			jsonw_string_field(w, "why", a->why);
			jsonw_end_object(w);
			continue;
		}
		jsonw_int_field(w, "rounds", a->rounds);
		jsonw_name(w, "impulse");
		jsonw_start_object(w);
		jsonw_int_field(w, "trials", im->trials);
		if (im->khz_samples) {
			jsonw_int_field(w, "stuck_at_min_10ms", im->stuck_freq);
			jsonw_float_field_fmt(w, "pre_gap_khz", "%.0f", avg(im->pre_khz, im->khz_samples));
			jsonw_float_field_fmt(w, "post_gap_10ms_khz", "%.0f",
					      avg(im->post_khz, im->khz_samples));
		} else {
			jsonw_null_field(w, "stuck_at_min_10ms");
		}
		jsonw_int_field(w, "slow_loop_10ms", im->slow_loop);
		jsonw_float_field_fmt(w, "recover_ms", "%.1f", avg(im->recover_ms, im->trials));
		jsonw_float_field_fmt(w, "post_gap_work_ms", "%.3f", avg(im->post_ms, im->trials));
		jsonw_end_object(w);

		jsonw_name(w, "periodic");
		jsonw_start_array(w);
		for (int s = 0; s < a->per.steps; s++) {
			jsonw_start_object(w);
			jsonw_float_field_fmt(w, "duty_pct", "%.0f", a->per.duty[s]);
			jsonw_float_field_fmt(w, "packet_us", "%.1f", avg(a->per.packet_us[s], a->per.runs));
			jsonw_float_field_fmt(w, "overrun_pct", "%.2f",
					      avg(a->per.overrun_pct[s], a->per.runs));
			if (a->per.khz_n[s])
				jsonw_float_field_fmt(w, "khz", "%.0f", avg(a->per.khz[s], a->per.khz_n[s]));
			else
				jsonw_null_field(w, "khz");
			jsonw_end_object(w);
		}
		jsonw_end_array(w);

		jsonw_name(w, "pingpong");
		jsonw_start_array(w);
		for (int i = 0; i < NR_PP; i++) {
			jsonw_start_object(w);
			jsonw_float_field_fmt(w, "work_us", "%.0f", pp_work_us[i]);
			jsonw_float_field_fmt(w, "loops_per_s", "%.0f", avg(a->pp.loops_s[i], a->pp.runs));
			jsonw_float_field_fmt(w, "wake_latency_p50_us", "%.1f",
					      avg(a->pp.lat_p50[i], a->pp.runs));
			jsonw_float_field_fmt(w, "wake_latency_p99_us", "%.1f",
					      avg(a->pp.lat_p99[i], a->pp.runs));
			jsonw_end_object(w);
		}
		jsonw_end_array(w);

		jsonw_name(w, "energy");
		jsonw_start_object(w);
		for (int i = 0; i < NR_WL; i++) {
			int n = a->rounds ? a->rounds : 1;

			jsonw_name(w, wl_name[i]);
			jsonw_start_object(w);
			jsonw_float_field_fmt(w, "seconds", "%.3f", a->secs[i] / n);
			if (v->energy.nr && energy_total(&v->energy, "package") >= 0) {
				jsonw_float_field_fmt(w, "package_j", "%.3f", a->pkg_uj[i] / 1e6 / n);
				jsonw_float_field_fmt(w, "package_w", "%.2f",
						      a->secs[i] > 0 ? a->pkg_uj[i] / 1e6 / a->secs[i] : 0);
			} else {
				jsonw_null_field(w, "package_j");
			}
			if (v->energy.nr && energy_total(&v->energy, "core") >= 0)
				jsonw_float_field_fmt(w, "core_j", "%.3f", a->core_uj[i] / 1e6 / n);
			else
				jsonw_null_field(w, "core_j");
			jsonw_end_object(w);
		}
		jsonw_end_object(w);
		jsonw_end_object(w);
	}
	jsonw_end_object(w);

	json_compare(v, w);

	jsonw_name(w, "restore");
	jsonw_start_object(w);
	jsonw_int_field(w, "knobs_checked", nr_snap);
	jsonw_int_field(w, "changed", restored_bad);
	jsonw_bool_field(w, "restored", restored_bad == 0);
	jsonw_string_field(w, "changed_knobs", restored_bad ? diff : NULL);
	jsonw_end_object(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

static void md_arm_cell(FILE *f, const struct arm_res *a, const char *fmt, double x)
{
	if (!a->measured)
		fprintf(f, " not measured |");
	else {
		fprintf(f, " ");
		fprintf(f, fmt, x);
		fprintf(f, " |");
	}
}

static void md_report(struct vctx *v, FILE *f, int restored_bad, const char *diff, int nr_snap,
		      bool plots, const char *plot_why)
{
	const struct platform *p = &v->plat;
	const struct arm_res *A = v->arm;
	int any_missing = 0;

	fprintf(f, "# bpfgov validation report\n\n");
	fprintf(f, "Workloads ran under the machine's own governors and under bpfgov, in alternation (%d round(s) each%s).\n\n",
		A[0].rounds > A[1].rounds ? A[0].rounds : A[1].rounds, v->o.quick ? ", --quick" : "");
	fprintf(f, "## Platform\n\n");
	fprintf(f, "| | |\n|---|---|\n");
	fprintf(f, "| CPU | %s family %d model %d%s |\n", p->vendor, p->family, p->model,
		p->hypervisor ? " (virtual machine)" : "");
	fprintf(f, "| HWP / CPPC | %s / %s |\n", p->hwp ? "yes" : "no", p->cppc ? "yes" : "no");
	fprintf(f, "| cpufreq | %s%s%s%s%s |\n", p->cpufreq_driver, *p->pstate_mode ? ", mode " : "",
		p->pstate_mode, *p->cpufreq_governor ? ", governor " : "", p->cpufreq_governor);
	fprintf(f, "| cpuidle | %s, governor %s |\n", p->idle_driver,
		*p->idle_governor ? p->idle_governor : "unknown");
	fprintf(f, "| lockdown | %s |\n", *p->lockdown ? p->lockdown : "unknown");
	fprintf(f, "| bpfgov floor backend | %s: %s |\n", act_backend_name(v->choice.backend),
		v->choice.reason);
	if (v->choice.taints)
		fprintf(f, "| note | %s |\n", plat_msr_taint_note());
	fprintf(f, "\n## What was measured, and what was not\n\n");
	fprintf(f, "- Delivered frequency: %s%s%s\n", freq_kind_name(v->freq.kind),
		v->freq.why[0] ? " — " : "", v->freq.why);
	if (v->energy.nr) {
		fprintf(f, "- Energy: powercap RAPL (");
		for (int i = 0; i < v->energy.nr; i++)
			fprintf(f, "%s%s", i ? ", " : "", v->energy.dom[i].name);
		fprintf(f, "), read from sysfs (no MSR driver needed), wrap-around at max_energy_range_uj handled\n");
	} else {
		fprintf(f, "- %s — %s\n", no_rapl, v->energy.why);
	}
	fprintf(f, "- Throughput and wake-up latency: measured by the workloads themselves\n");
	for (int k = 0; k < ARMS; k++)
		if (!A[k].measured)
			fprintf(f, "- Runs under %s: not measured — %s\n", arm_name[k], A[k].why);
	fprintf(f, "- Plots: %s\n", plots ? "impulse.svg, periodic.svg, pingpong.svg" : plot_why);
	any_missing = v->freq.kind == FREQ_NONE || !v->energy.nr || !A[0].measured ||
		      !A[1].measured || !plots;
	fprintf(f, "\n%s\n", any_missing ? "Missing measures are named above with the reason; every other section is complete."
		: "Every measure was available.");

	fprintf(f, "\n## Impulse trials (300 ms busy, 750–950 µs gap, busy)\n\n");
	fprintf(f, "A trial fails when the CPU stays at its minimum for ≥ 10 ms after the gap.\n\n");
	fprintf(f, "| | governors | bpfgov |\n|---|---|---|\n");
	fprintf(f, "| trials |");
	for (int k = 0; k < ARMS; k++)
		md_arm_cell(f, &A[k], "%.0f", A[k].imp.trials);
	fprintf(f, "\n| at minimum frequency ≥ 10 ms |");
	for (int k = 0; k < ARMS; k++) {
		if (A[k].measured && !A[k].imp.khz_samples)
			fprintf(f, " no frequency source |");
		else
			md_arm_cell(f, &A[k], "%.0f", A[k].imp.stuck_freq);
	}
	fprintf(f, "\n| loop rate < 3/4 of pre-gap for ≥ 10 ms |");
	for (int k = 0; k < ARMS; k++)
		md_arm_cell(f, &A[k], "%.0f", A[k].imp.slow_loop);
	fprintf(f, "\n| back at speed after (ms, mean) |");
	for (int k = 0; k < ARMS; k++)
		md_arm_cell(f, &A[k], "%.1f", avg(A[k].imp.recover_ms, A[k].imp.trials));
	fprintf(f, "\n| 30 ms of work after the gap done in (ms, mean) |");
	for (int k = 0; k < ARMS; k++)
		md_arm_cell(f, &A[k], "%.2f", avg(A[k].imp.post_ms, A[k].imp.trials));
	fprintf(f, "\n| delivered kHz before / first 10 ms after the gap |");
	for (int k = 0; k < ARMS; k++) {
		if (A[k].measured && A[k].imp.khz_samples)
			fprintf(f, " %.0f / %.0f |", avg(A[k].imp.pre_khz, A[k].imp.khz_samples),
				avg(A[k].imp.post_khz, A[k].imp.khz_samples));
		else
			fprintf(f, " %s |", A[k].measured ? "no frequency source" : "not measured");
	}

	fprintf(f, "\n\n## Periodic load at 347 Hz\n\n");
	fprintf(f, "| duty | governors: µs per packet / overruns %% / kHz | bpfgov: µs per packet / overruns %% / kHz |\n|---|---|---|\n");
	for (int s = 0; s < MAX_STEPS; s++) {
		const struct periodic_res *r0 = &A[0].per, *r1 = &A[1].per;
		int steps = r0->steps > r1->steps ? r0->steps : r1->steps;

		if (s >= steps)
			break;
		fprintf(f, "| %.0f%% |", r0->steps ? r0->duty[s] : r1->duty[s]);
		for (int k = 0; k < ARMS; k++) {
			const struct periodic_res *r = &A[k].per;

			if (!A[k].measured || s >= r->steps) {
				fprintf(f, " not measured |");
				continue;
			}
			fprintf(f, " %.1f / %.2f / ", avg(r->packet_us[s], r->runs),
				avg(r->overrun_pct[s], r->runs));
			if (r->khz_n[s])
				fprintf(f, "%.0f |", avg(r->khz[s], r->khz_n[s]));
			else
				fprintf(f, "n/a |");
		}
		fprintf(f, "\n");
	}

	fprintf(f, "\n## Ping-pong (CPU %d ↔ CPU %d)\n\n", v->cpu_a, v->cpu_b);
	fprintf(f, "| work per hop | governors: loops/s, wake p50/p99 µs | bpfgov: loops/s, wake p50/p99 µs |\n|---|---|---|\n");
	for (int i = 0; i < NR_PP; i++) {
		fprintf(f, "| %.0f µs |", pp_work_us[i]);
		for (int k = 0; k < ARMS; k++) {
			const struct pp_res *r = &A[k].pp;

			if (!A[k].measured)
				fprintf(f, " not measured |");
			else
				fprintf(f, " %.0f, %.1f / %.1f |", avg(r->loops_s[i], r->runs),
					avg(r->lat_p50[i], r->runs), avg(r->lat_p99[i], r->runs));
		}
		fprintf(f, "\n");
	}

	md_compare(v, f);
	if (v->energy.nr) {
		fprintf(f, "\nPer RAPL domain, per run:\n\n");
		fprintf(f, "| workload | governors: package J (W) / core J | bpfgov: package J (W) / core J |\n|---|---|---|\n");
		for (int i = 0; i < NR_WL; i++) {
			fprintf(f, "| %s |", wl_name[i]);
			for (int k = 0; k < ARMS; k++) {
				const struct arm_res *a = &A[k];

				if (!a->measured || !a->rounds)
					fprintf(f, " not measured |");
				else
					fprintf(f, " %.2f (%.1f) / %.2f |", a->pkg_uj[i] / 1e6 / a->rounds,
						a->secs[i] > 0 ? a->pkg_uj[i] / 1e6 / a->secs[i] : 0,
						a->core_uj[i] / 1e6 / a->rounds);
			}
			fprintf(f, "\n");
		}
	}

	fprintf(f, "\n## Plots\n\n");
	if (plots)
		fprintf(f, "![impulse](impulse.svg)\n![periodic](periodic.svg)\n![pingpong](pingpong.svg)\n");
	else
		fprintf(f, "Not drawn: %s.\n", plot_why);

	fprintf(f, "\n## Restore\n\n");
	if (restored_bad)
		fprintf(f, "**%d of %d knobs differ from before the run**: %s\n", restored_bad, nr_snap, diff);
	else
		fprintf(f, "All %d knobs bpfgov may write (scaling_min_freq, scaling_max_freq, EPP, PM QoS, cpuidle disable, request MSRs) are byte-for-byte as before the run.\n",
			nr_snap);
	fprintf(f, "\n## Sharing this report\n\nAttach report.md and report.json (and the plots) as they are: they hold the platform facts above and no host names or user data.\n");
}

static bool have_gnuplot(char *why, size_t n)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t l = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)l, path);
		if (!access(buf, X_OK))
			return true;
		path += l + (path[l] == ':');
	}
	snprintf(why, n, "gnuplot not found (apt-get install gnuplot-nox)");
	return false;
}

/* A new file @name in the output directory (checked: ours, not writable
 * by others): what was there is removed, the file is created O_EXCL and
 * never followed through a symlink. */
static FILE *out_open(const struct vctx *v, const char *name, char *path, size_t n)
{
	FILE *f;
	int fd;

	snprintf(path, n, "%s/%s", v->o.out, name);
	if (unlink(path) && errno != ENOENT)
		return NULL;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

static int write_plots(struct vctx *v, char *why, size_t n)
{
	char path[PATH_MAX];
	const struct arm_res *A = v->arm;
	FILE *f;
	pid_t pid;
	int rc;

	if (!have_gnuplot(why, n))
		return -ENOENT;
	f = out_open(v, "plots.dat", path, sizeof(path));
	if (!f)
		goto io;
	fprintf(f, "# impulse: ms of work after the gap, loop rate / pre-gap (governors, bpfgov)\n");
	for (int w = 0; w < POST_WIN; w++)
		fprintf(f, "%d %.3f %.3f\n", w + 1, avg(A[0].imp.win_ratio[w], A[0].imp.trials),
			avg(A[1].imp.win_ratio[w], A[1].imp.trials));
	fprintf(f, "\n\n# periodic: duty, us per packet (governors, bpfgov)\n");
	for (int s = 0; s < A[0].per.steps || s < A[1].per.steps; s++)
		fprintf(f, "%.0f %.1f %.1f\n", A[0].per.steps ? A[0].per.duty[s] : A[1].per.duty[s],
			avg(A[0].per.packet_us[s], A[0].per.runs),
			avg(A[1].per.packet_us[s], A[1].per.runs));
	fprintf(f, "\n\n# pingpong: work us, loops/s (governors, bpfgov)\n");
	for (int i = 0; i < NR_PP; i++)
		fprintf(f, "%.0f %.0f %.0f\n", pp_work_us[i], avg(A[0].pp.loops_s[i], A[0].pp.runs),
			avg(A[1].pp.loops_s[i], A[1].pp.runs));
	if (fclose(f))
		goto io;
	f = out_open(v, "plots.gp", path, sizeof(path));
	if (!f)
		goto io;
	fprintf(f, "set terminal svg size 720,420\nset key top left\nset grid\n"
		"set output 'impulse.svg'\nset title 'Impulse: loop rate after the gap'\n"
		"set xlabel 'work after the gap (ms at the pre-gap rate)'\nset ylabel 'rate / pre-gap rate'\n"
		"plot 'plots.dat' index 0 using 1:2 with linespoints title 'governors', '' index 0 using 1:3 with linespoints title 'bpfgov'\n"
		"set output 'periodic.svg'\nset title 'Periodic 347 Hz: time per work packet'\n"
		"set xlabel 'duty %%'\nset ylabel 'us per packet'\n"
		"plot 'plots.dat' index 1 using 1:2 with linespoints title 'governors', '' index 1 using 1:3 with linespoints title 'bpfgov'\n"
		"set output 'pingpong.svg'\nset title 'Ping-pong'\nset logscale y\n"
		"set xlabel 'work per hop (us)'\nset ylabel 'round trips / s'\n"
		"plot 'plots.dat' index 2 using 1:2 with linespoints title 'governors', '' index 2 using 1:3 with linespoints title 'bpfgov'\n");
	if (fclose(f))
		goto io;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd >= 0)
			dup2(fd, 2);
		if (!chdir(v->o.out))
			execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &rc, 0) < 0 || !WIFEXITED(rc) || WEXITSTATUS(rc)) {
		snprintf(why, n, "gnuplot failed (%s)", pid < 0 ? strerror(errno) : "see plots.gp");
		return -EIO;
	}
	return 0;
io:
	snprintf(why, n, "cannot write plot data in %s: %s", v->o.out, strerror(errno));
	return -errno;
}

static int write_reports(struct vctx *v, int bad, const char *diff, int nr_snap)
{
	char path[PATH_MAX], plot_why[256] = "";
	bool plots = write_plots(v, plot_why, sizeof(plot_why)) == 0;
	FILE *f;

	f = out_open(v, "report.json", path, sizeof(path));
	if (!f)
		return -errno;
	json_report(v, f, bad, diff, nr_snap, plots, plot_why);
	if (fclose(f))
		return -errno;
	f = out_open(v, "report.md", path, sizeof(path));
	if (!f)
		return -errno;
	md_report(v, f, bad, diff, nr_snap, plots, plot_why);
	return fclose(f) ? -errno : 0;
}

/* ------------------------------------------------------------- command */

static int validate_parse(int argc, char **argv, struct vopts *o)
{
	struct cli_opts c = {};
	int err;

	err = cli_parse("validate", validate_usage, argc, argv, "out quick sysfs-root proc-root msr-root pin-root", &c);
	if (err)
		return err;
	memset(o, 0, sizeof(*o));
	o->out = c.out ? c.out : "bpfgov-validate";
	o->quick = c.quick;
	o->r.sysfs_root = c.sysfs_root;
	o->r.proc_root = c.proc_root;
	o->r.msr_root = c.msr_root;
	o->pin_root = c.pin_root;
	if (!*o->out) {
		pr_warn("validate: --out needs a directory\n");
		return -EINVAL;
	}
	return 0;
}

int do_validate(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = v_on_signal };
	struct stat st;
	struct knob_snap *snap = NULL;
	struct vctx *v;
	char diff[2048] = "";
	int err, bad = 0, ret = 1, rounds, ncpu;

	v = calloc(1, sizeof(*v));
	if (!v) {
		pr_warn("validate: out of memory\n");
		return 1;
	}
	err = validate_parse(argc, argv, &v->o);
	if (err) {
		free(v);
		return err > 0 ? 0 : EXIT_USAGE;
	}
	if (mkdir(v->o.out, 0755) && errno != EEXIST) {
		pr_warn("validate: cannot create %s: %s\n", v->o.out, strerror(errno));
		goto out;
	}
	/* An existing directory is used only if it is ours and nobody else
	 * may write in it: a planted one (or a symlink) could redirect the
	 * reports. */
	if (lstat(v->o.out, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		pr_warn("validate: %s is not a directory owned by uid %u and writable only by it (a symlink or planted by someone else?)\n",
			str_esc(v->o.out), (unsigned int)geteuid());
		goto out;
	}
	if (access(v->o.out, W_OK)) {
		pr_warn("validate: %s is not writable: %s\n", v->o.out, strerror(errno));
		goto out;
	}
	plat_probe(&v->plat, &v->o.r);
	ncpu = v->plat.nr_cpus > 0 ? v->plat.nr_cpus : (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu > BPFGOV_MAX_CPUS)
		ncpu = BPFGOV_MAX_CPUS;
	plat_choose(&v->plat, &v->o.r, ACT_AUTO, &v->choice);
	v->cpu_a = 0;
	v->cpu_b = ncpu > 1 ? 1 : 0;
	err = freq_open(&v->freq, &v->o.r, ncpu);
	if (!err)
		err = energy_open(&v->energy, &v->o.r);
	snap = err ? NULL : snap_take(&v->o.r, ncpu);
	if (err || !snap) {
		pr_warn("validate: out of memory\n");
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	pr_info("validate: frequency from %s, energy from %s; report in %s\n",
		freq_kind_name(v->freq.kind), v->energy.nr ? "powercap" : "nowhere", v->o.out);
	calibrate(v);
	rounds = v->o.quick ? 1 : 2;
	for (int r = 0; r < rounds && !v_stop; r++) {
		for (int i = 0; i < ARMS && !v_stop; i++) {
			int k = r % 2 ? ARMS - 1 - i : i;	/* ABBA: neither goes first twice */
			struct arm_res *a = &v->arm[k];

			if (k == 1) {
				char why[sizeof(a->why) - 16];

				if (gov_up(v, why, sizeof(why))) {
					if (!a->rounds)
						snprintf(a->why, sizeof(a->why), "bpfgov: %s", why);
					pr_warn("validate: bpfgov runs not measured: %s\n", why);
					continue;
				}
			}
			pr_info("validate: round %d/%d under %s\n", r + 1, rounds, arm_name[k]);
			run_arm(v, a);
			a->measured = true;
			if (k == 1 && gov_down(v))
				pr_warn("validate: govloader start exited non-zero; see %s/bpfgov-start.log\n",
					v->o.out);
		}
	}
	gov_down(v);
	if (!v->arm[0].measured)
		snprintf(v->arm[0].why, sizeof(v->arm[0].why), "interrupted");
	bad = snap_compare(snap, diff, sizeof(diff));
	err = write_reports(v, bad, diff, snap_count(snap));
	if (err) {
		pr_warn("validate: cannot write the report in %s: %s\n", v->o.out, strerror(-err));
		goto out;
	}
	print_compare(v);
	if (bad) {
		pr_warn("validate: %d knob(s) differ from before the run: %s\n", bad, diff);
		goto out;
	}
	pr_info("validate: report written to %s/report.md and %s/report.json\n", v->o.out, v->o.out);
	ret = v_stop ? 1 : 0;
out:
	gov_down(v);
	snap_free(snap);
	freq_close(&v->freq);
	free(v);
	return ret;
}
