// SPDX-License-Identifier: GPL-2.0
/*
 * `govlab synth`: write the scenarios of the linux-pm reports
 * (docs/DESIGN.md, "References") as
 * traces, with a KVM guest's cost model, so replay has known inputs:
 *  - periodic: fixed work per period at F Hz (Doug Smythies' 347 Hz load
 *    sweep that exposed the HWP "stuck at minimum" problem);
 *  - impulse: long busy, one short gap, busy again (the inverse impulse
 *    response test: gaps of 747-950 us);
 *  - pingpong: a token bounced between two CPUs with W us of work per hop.
 *
 * The trace is written as if recorded under one idle state (--recorded,
 * default halt, what a KVM guest's haltpoll governor picks when its host
 * halt-polls): every
 * idle residency is the sleep the workload asked for plus that state's
 * wake-up cost, and wakeups from the other CPU carry a wake latency sample.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "log.h"
#include "replay.h"
#include "govlab_cmds.h"

#define NS_PER_US	1000ull
#define NS_PER_MS	1000000ull
#define NS_PER_S	1000000000ull
#define T0		1000000000ull	/* traces start at 1 s: no zero timestamps */

/*
 * Idle-state tables of real machines, POLL first: exit latency / target
 * residency in us as the kernel registers them. A wake-up from a halting
 * state costs its exit latency (bare metal: the table is the hardware's
 * own claim), POLL --poll-cost-us.
 *  skl: intel_idle's skl_cstates (drivers/idle/intel_idle.c), Skylake to
 *       Coffee Lake clients: nine states, CPUIDLE_STATE_MAX's ten less one.
 *  spr: intel_idle's spr_cstates, Sapphire Rapids servers.
 *  zen: acpi_idle (drivers/acpi/processor_idle.c: exit latency = the _CST
 *       latency, target residency = latency x latency_factor 2) on the _CST
 *       that AMD Zen desktops and servers commonly report: C1 FFH MWAIT 0x0
 *       1 us, C2 I/O port 0x414 18 us, C3 I/O port 0x415 350 us. Firmware
 *       writes _CST: another board may list other latencies (assumed
 *       typical, not one vendor's guarantee).
 *  haltpoll: cpuidle-haltpoll's table (a KVM guest's), its own claim of
 *       1 us; `vm` is the same table with a guest's measured wake-up cost.
 * Power per state is not in a trace: the replay judge's default model
 * (polling 1, the first halting state 0.3 of full power, each deeper one
 * half of the one above) is an assumption on every table (docs/DESIGN.md).
 */
struct synth_table {
	const char *name;
	__u32 nr;
	struct { const char *name; __u32 lat_us, res_us; } st[BPFGOV_MAX_STATES];
};

static const struct synth_table synth_tables[] = {
	{ "skl", 9, { { "POLL", 0, 0 }, { "C1", 2, 2 }, { "C1E", 10, 20 }, { "C3", 70, 100 },
		      { "C6", 85, 200 }, { "C7s", 124, 800 }, { "C8", 200, 800 },
		      { "C9", 480, 5000 }, { "C10", 890, 5000 } } },
	{ "spr", 4, { { "POLL", 0, 0 }, { "C1", 1, 1 }, { "C1E", 2, 4 }, { "C6", 290, 800 } } },
	{ "zen", 4, { { "POLL", 0, 0 }, { "C1", 1, 2 }, { "C2", 18, 36 }, { "C3", 350, 700 } } },
	{ "haltpoll", 2, { { "POLL", 0, 0 }, { "haltpoll idle", 1, 1 } } },
};

static const struct synth_table *synth_table_find(const char *name)
{
	for (size_t i = 0; i < sizeof(synth_tables) / sizeof(synth_tables[0]); i++)
		if (!strcmp(name, synth_tables[i].name))
			return &synth_tables[i];
	return NULL;
}

struct synth {
	struct trace t;
	__u32 rec_state;		/* state the idle periods are spent in */
	__u64 cost_ns;			/* its wake-up cost */
	/* periodic: an open busy run that continues into the next period */
	__u64 busy_open;
	__u64 jitter_ns;		/* added to each work/gap length: [0, jitter) */
	__u64 rng;
};

/* xorshift64*: reproducible draws from --seed, no libc state. */
static __u64 rnd(struct synth *s)
{
	__u64 x = s->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return x * 0x2545f4914f6cdd1dull >> 11;
}

/* Uniform in [0, n). */
static __u64 rnd_below(struct synth *s, __u64 n)
{
	return n ? rnd(s) % n : 0;
}

static __u64 jitter(struct synth *s)
{
	return s->jitter_ns ? rnd_below(s, s->jitter_ns) : 0;
}

static int add(struct synth *s, __u64 ts, __u64 dur, __u32 cpu, __u32 kind, __u32 state)
{
	return trace_add(&s->t, ts, dur, cpu, kind, state);
}

static int add_busy(struct synth *s, __u32 cpu, __u64 start, __u64 end)
{
	return end > start ? add(s, end, end - start, cpu, BPFGOV_EV_BUSY, TRACE_NO_STATE) : 0;
}

/* One idle period [start, end), spent in one residency of rec_state.
 * @wake_lat: latency sample when another CPU woke us (0: a timer did, or
 * a device interrupt when @wake says so). Version 2 fields: a timer wakeup
 * carries its timer (entry to expiry: the sleep); any other wakeup "-"
 * (the CPU's next timer is not known to the scenario). */
static int add_idle_why(struct synth *s, __u32 cpu, __u64 start, __u64 end, __u64 wake_lat,
			__u32 wake)
{
	__u64 sleep = end - start;
	int err;

	if (end <= start)
		return 0;
	if (!wake)
		wake = wake_lat ? TRACE_WAKE_IPI : TRACE_WAKE_TIMER;
	sleep = wake_lat ? (wake_lat < sleep ? sleep - wake_lat : 0)
			 : (s->cost_ns < sleep ? sleep - s->cost_ns : 0);
	err = trace_add_idle(&s->t, end, end - start, cpu, s->rec_state,
			     wake == TRACE_WAKE_TIMER ? sleep : TRACE_NO_TIMER, wake);
	if (!err && wake_lat)
		err = add(s, end, wake_lat, cpu, BPFGOV_EV_WAKE_LAT, s->rec_state);
	if (!err)
		err = add(s, end, end - start, cpu, BPFGOV_EV_IDLE_GAP, TRACE_NO_STATE);
	return err;
}

static int add_idle(struct synth *s, __u32 cpu, __u64 start, __u64 end, __u64 wake_lat)
{
	return add_idle_why(s, cpu, start, end, wake_lat, 0);
}

/*
 * bursty: a server. A burst of @burst requests, each @work busy and
 * separated by short idles of @gap (woken by another CPU), then a lull of
 * uniform [@lull_lo, @lull_hi) ended by a device interrupt (a new
 * connection). The long lulls keep any mean of idle lengths high while the
 * short idles that follow them are the common case.
 */
static int bursty(struct synth *s, __u64 end, __u32 burst, __u64 work, __u64 gap,
		  __u64 lull_lo, __u64 lull_hi)
{
	__u64 now = s->busy_open;
	int err = 0;

	while (!err && now < end) {
		for (__u32 i = 0; !err && i < burst; i++) {
			__u64 w = work + jitter(s), g = gap + jitter(s);

			err = add_busy(s, 0, now, now + w);
			now += w;
			if (!err && i + 1 < burst)
				err = add_idle(s, 0, now, now + g + s->cost_ns, s->cost_ns);
			if (i + 1 < burst)
				now += g + s->cost_ns;
		}
		if (!err) {
			__u64 l = lull_lo + rnd_below(s, lull_hi > lull_lo ? lull_hi - lull_lo : 0);

			err = add_idle_why(s, 0, now, now + l + s->cost_ns, 0, TRACE_WAKE_OTHER);
			now += l + s->cost_ns;
		}
	}
	s->busy_open = now;
	return err;
}

/*
 * mix: bimodal idles after @work of busy each: short ones (@short_ns, woken
 * by another CPU) and long ones (@long_ns, a timer), @long_pm permille of
 * them long. With @phase_ns, not mixed at random but in phases: @phase_ns
 * of short idles, then @phase_ns of long ones, and so on.
 */
static int mix(struct synth *s, __u64 end, __u64 work, __u64 short_ns, __u64 long_ns,
	       __u32 long_pm, __u64 phase_ns)
{
	__u64 now = s->busy_open, t0 = now;
	int err = 0;

	while (!err && now < end) {
		__u64 w = work + jitter(s);
		int is_long = phase_ns ? (int)(((now - t0) / phase_ns) & 1)
				       : rnd_below(s, 1000) < long_pm;
		__u64 g = (is_long ? long_ns : short_ns) + jitter(s);

		err = add_busy(s, 0, now, now + w);
		now += w;
		if (!err && is_long)
			err = add_idle(s, 0, now, now + g + s->cost_ns, 0);
		else if (!err)
			err = add_idle(s, 0, now, now + g + s->cost_ns, s->cost_ns);
		now += g + s->cost_ns;
	}
	s->busy_open = now;
	return err;
}

/* periodic: @load_pm permille of each period busy; a period with no idle
 * extends the busy run instead of closing it. */
static int periodic_span(struct synth *s, __u64 *now, __u64 period, __u32 load_pm, __u64 span)
{
	__u64 end = *now + span, min_busy = 2 * NS_PER_US;
	int err = 0;

	while (!err && *now + period <= end) {
		__u64 busy = period * load_pm / 1000 + jitter(s);

		/* Even "no load" wakes up and runs a little. */
		if (busy < min_busy)
			busy = min_busy;
		if (busy >= period) {
			*now += period;
			continue;
		}
		err = add_busy(s, 0, s->busy_open, *now + busy);
		if (!err)
			err = add_idle(s, 0, *now + busy, *now + period, 0);
		*now += period;
		s->busy_open = *now;
	}
	return err;
}

static int parse_range(const char *arg, double *lo, double *hi, double *step, int need_step)
{
	char *end;

	*lo = strtod(arg, &end);
	if (end == arg || *end != ':')
		return -EINVAL;
	arg = end + 1;
	*hi = strtod(arg, &end);
	if (end == arg || (need_step ? *end != ':' : *end != '\0'))
		return -EINVAL;
	if (!need_step)
		return 0;
	arg = end + 1;
	*step = strtod(arg, &end);
	if (end == arg || *end || *step <= 0)
		return -EINVAL;
	return 0;
}

static void synth_usage(FILE *out)
{
	fprintf(out,
		"Usage: govlab synth SCENARIO [options] -o FILE\n"
		"Write a scenario of the linux-pm reports as a trace (docs/trace-format.md).\n"
		"Scenarios:\n"
		"  periodic --hz F --load PCT [--duration S]    work/sleep at F Hz (default 347, 50%%, 10 s)\n"
		"  periodic --hz F --sweep LO:HI:STEP [--step-s S]  load LO..HI and back, S s a step (3)\n"
		"  impulse --gap-us G|LO:HI [--trials N] [--busy-ms B]  long busy, one gap, busy\n"
		"                                                (default 842 us, 100 trials, 100 ms)\n"
		"  pingpong --work-us W [--duration S] [--hop-us H] [--quiet-s Q]  token between\n"
		"                      CPU0 and CPU1, W us of work per hop (+H us overhead, 5),\n"
		"                      then Q s of a quiet machine: timers alone wake each CPU,\n"
		"                      every 5..50 ms (0)\n"
		"  bursty [--burst N] [--work-us W] [--gap-us G] [--lull-ms LO:HI] [--duration S]\n"
		"                      a server: N requests of W us with G us idle between them\n"
		"                      (8, 50, 30), then a lull of LO..HI ms (5:20), 10 s\n"
		"  mix [--work-us W] [--short-us S] [--long-us L] [--long-pct P] [--phase-ms M]\n"
		"                      W us busy (50) between short S (20) and long L (2000) us\n"
		"                      idles, P %% long (30) at random, or in phases of M ms\n"
		"Idle-state table: --table vm (POLL + HALT claiming 1/1 us, as the haltpoll\n"
		"                      driver does; default) or truthful (HALT claims its cost);\n"
		"                      or a real machine's, each wake-up costing the table's exit\n"
		"                      latency: skl (intel_idle, Skylake clients, 9 states), spr\n"
		"                      (intel_idle, Sapphire Rapids), zen (acpi_idle, an AMD Zen\n"
		"                      _CST), haltpoll (cpuidle-haltpoll, 1/1 us)\n"
		"Cost model (vm and truthful: a KVM guest's): --halt-cost-us N (100),\n"
		"  --poll-cost-us N (1, every table)\n"
		"  --jitter-us J       add uniform [0, J) us to each work/gap length (0)\n"
		"  --seed N            jitter seed (1); same seed, same trace\n"
		"  --recorded poll|halt: state the idle time is spent in (default: halt;\n"
		"                      pingpong: poll, so sleeps are the workload's own)\n"
		"  -o, --output FILE   trace to write (required)\n"
		"  -h, --help          this text\n");
}

/* The long name of option @val: @opts is not in the order of its values. */
static const char *opt_name(const struct option *opts, int val)
{
	for (; opts->name; opts++)
		if (opts->val == val)
			return opts->name;
	return "?";
}

int do_synth(int argc, char **argv)
{
	enum { O_HZ = 256, O_LOAD, O_DUR, O_SWEEP, O_STEP, O_GAP, O_TRIALS, O_BUSY, O_WORK,
	       O_HOP, O_BURST, O_LULL, O_SHORT, O_LONG, O_LONGPCT, O_PHASE, O_HALT, O_POLL, O_REC,
	       O_JITTER, O_SEED, O_TABLE, O_QUIET };
	static const struct option opts[] = {
		{ "hz", required_argument, NULL, O_HZ },
		{ "load", required_argument, NULL, O_LOAD },
		{ "duration", required_argument, NULL, O_DUR },
		{ "sweep", required_argument, NULL, O_SWEEP },
		{ "step-s", required_argument, NULL, O_STEP },
		{ "gap-us", required_argument, NULL, O_GAP },
		{ "trials", required_argument, NULL, O_TRIALS },
		{ "busy-ms", required_argument, NULL, O_BUSY },
		{ "work-us", required_argument, NULL, O_WORK },
		{ "hop-us", required_argument, NULL, O_HOP },
		{ "quiet-s", required_argument, NULL, O_QUIET },
		{ "burst", required_argument, NULL, O_BURST },
		{ "lull-ms", required_argument, NULL, O_LULL },
		{ "short-us", required_argument, NULL, O_SHORT },
		{ "long-us", required_argument, NULL, O_LONG },
		{ "long-pct", required_argument, NULL, O_LONGPCT },
		{ "phase-ms", required_argument, NULL, O_PHASE },
		{ "halt-cost-us", required_argument, NULL, O_HALT },
		{ "poll-cost-us", required_argument, NULL, O_POLL },
		{ "recorded", required_argument, NULL, O_REC },
		{ "jitter-us", required_argument, NULL, O_JITTER },
		{ "seed", required_argument, NULL, O_SEED },
		{ "table", required_argument, NULL, O_TABLE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* Which options each scenario takes, so a misplaced one is an error
	 * rather than silently ignored. */
	static const char *const takes[] = { "periodic", "hz load duration sweep step-s",
					     "impulse", "gap-us trials busy-ms",
					     "pingpong", "work-us duration hop-us quiet-s",
					     "bursty", "burst work-us gap-us lull-ms duration",
					     "mix", "work-us short-us long-us long-pct phase-ms duration" };
	const int nr_scen = (int)(sizeof(takes) / sizeof(takes[0]));
	struct synth s;
	const char *scen, *out = NULL;
	double hz = 347, load = 50, dur = -1, step_s = 3, lo = 0, hi = 0, step = 0;
	double gap_lo = 842, gap_hi = 842, busy_ms = 100, work_us = 0, hop_us = 5;
	double halt_us = 100, poll_us = 1, lull_lo = 5, lull_hi = 20, short_us = 20, long_us = 2000;
	double long_pct = 30, phase_ms = 0, burst = 8, quiet_s = 0;
	__u32 trials = 100;
	int truthful = 0, work_set = 0, gap_set = 0, halt_set = 0;
	const struct synth_table *real = NULL;
	int c, sweep = 0, ret = 2, scen_idx = -1;
	char msg[512], *src;
	size_t used = 0;

	memset(&s, 0, sizeof(s));
	trace_init(&s.t);
	s.rng = 1;
	s.rec_state = TRACE_NO_STATE;	/* per scenario, below */
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		synth_usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		pr_warn("synth: need a SCENARIO: periodic, impulse, pingpong, bursty or mix (see --help)\n");
		return 2;
	}
	scen = argv[1];
	for (int i = 0; i < nr_scen; i += 2)
		if (!strcmp(scen, takes[i]))
			scen_idx = i;
	if (scen_idx < 0) {
		pr_warn("synth: unknown scenario '%s' (periodic, impulse, pingpong, bursty, mix)\n",
			scen);
		return 2;
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, "o:h", opts, NULL)) != -1) {
		double v = 0;
		char *end = NULL;

		if (c == 'h') {
			synth_usage(stdout);
			ret = 0;
			goto out;
		}
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			pr_warn("synth: unknown or incomplete option '%s' (see --help)\n",
				argv[optind]);
			goto out;
		}
		if (c != O_SWEEP && c != O_GAP && c != O_REC && c != O_LULL && c != O_TABLE) {
			v = strtod(optarg, &end);
			if (end == optarg || *end || v < 0 || v > 1e9) {
				pr_warn("synth: bad value '%s' for --%s\n", optarg, opt_name(opts, c));
				goto out;
			}
		}
		if (c < O_HALT) {
			const char *name = opt_name(opts, c), *list = takes[scen_idx + 1], *hit;
			size_t nl = strlen(name);

			hit = strstr(list, name);
			while (hit && ((hit != list && hit[-1] != ' ') || (hit[nl] && hit[nl] != ' ')))
				hit = strstr(hit + 1, name);
			if (!hit) {
				pr_warn("synth: --%s does not apply to '%s' (it takes: %s)\n", name,
					scen, list);
				goto out;
			}
		}
		switch (c) {
		case O_HZ: hz = v; break;
		case O_LOAD: load = v; break;
		case O_DUR: dur = v; break;
		case O_STEP: step_s = v; break;
		case O_TRIALS: trials = (__u32)v; break;
		case O_BUSY: busy_ms = v; break;
		case O_WORK: work_us = v; work_set = 1; break;
		case O_BURST: burst = v; break;
		case O_SHORT: short_us = v; break;
		case O_LONG: long_us = v; break;
		case O_LONGPCT: long_pct = v; break;
		case O_PHASE: phase_ms = v; break;
		case O_LULL:
			if (parse_range(optarg, &lull_lo, &lull_hi, NULL, 0) || lull_lo > lull_hi ||
			    lull_lo < 0 || lull_hi > 1e6) {
				pr_warn("synth: --lull-ms wants LO:HI in ms\n");
				goto out;
			}
			break;
		case O_TABLE:
			real = NULL;
			if (!strcmp(optarg, "truthful"))
				truthful = 1;
			else if (!strcmp(optarg, "vm"))
				truthful = 0;
			else if (!(real = synth_table_find(optarg))) {
				pr_warn("synth: --table wants vm, truthful, skl, spr, zen or haltpoll\n");
				goto out;
			}
			break;
		case O_HOP: hop_us = v; break;
		case O_QUIET: quiet_s = v; break;
		case O_HALT: halt_us = v; halt_set = 1; break;
		case O_POLL: poll_us = v; break;
		case O_JITTER: s.jitter_ns = (__u64)(v * NS_PER_US); break;
		case O_SEED: s.rng = (__u64)v; break;
		case O_SWEEP:
			if (parse_range(optarg, &lo, &hi, &step, 1) || lo < 0 || hi > 100 || lo > hi) {
				pr_warn("synth: --sweep wants LO:HI:STEP in percent, 0 <= LO <= HI <= 100\n");
				goto out;
			}
			sweep = 1;
			break;
		case O_GAP:
			gap_set = 1;
			if (strchr(optarg, ':')) {
				if (parse_range(optarg, &gap_lo, &gap_hi, NULL, 0) || gap_lo > gap_hi ||
				    gap_lo < 0) {
					pr_warn("synth: --gap-us wants G or LO:HI in us\n");
					goto out;
				}
			} else {
				gap_lo = gap_hi = strtod(optarg, &end);
				if (end == optarg || *end || gap_lo < 0) {
					pr_warn("synth: --gap-us wants G or LO:HI in us\n");
					goto out;
				}
			}
			break;
		case O_REC:
			if (!strcmp(optarg, "poll"))
				s.rec_state = 0;
			else if (!strcmp(optarg, "halt"))
				s.rec_state = 1;
			else {
				pr_warn("synth: --recorded wants poll or halt\n");
				goto out;
			}
			break;
		}
	}
	if (optind + 1 != argc) {
		pr_warn("synth: unexpected argument '%s'\n", argv[optind + 1]);
		goto out;
	}
	if (!out) {
		pr_warn("synth: missing -o FILE\n");
		goto out;
	}
	if (real && halt_set) {
		pr_warn("synth: --halt-cost-us is for --table vm or truthful; %s's wake-ups cost its exit latencies\n",
			real->name);
		goto out;
	}
	if (!s.rng)
		s.rng = 1;	/* xorshift's fixed point */
	if (hz <= 0 || hz > 100000 || load > 100 || trials < 1 || busy_ms <= 0 || dur == 0 ||
	    step_s <= 0 || long_pct > 100 || burst < 1) {
		pr_warn("synth: out of range: need 0 < hz <= 100000, load <= 100, trials >= 1, busy-ms > 0, duration > 0, long-pct <= 100, burst >= 1\n");
		goto out;
	}

	/* The host: state0 POLL, state1 the halt state the driver claims
	 * costs 1 us; the costs are what a wake-up really takes here. */
	s.t.nr_states = 2;
	snprintf(s.t.states[0].name, TRACE_NAME_LEN, "POLL");
	s.t.states[0].is_poll = 1;
	s.t.states[0].cost_ns = (__u64)(poll_us * NS_PER_US);
	snprintf(s.t.states[1].name, TRACE_NAME_LEN, "HALT");
	/* vm: what the haltpoll driver claims (1/1 us); truthful: the table
	 * says what a wake-up from halt really costs. */
	s.t.states[1].exit_latency_us = truthful ? (__u32)(halt_us + 0.5) : 1;
	s.t.states[1].residency_us = truthful ? (__u32)(halt_us + 0.5) : 1;
	s.t.states[1].cost_ns = (__u64)(halt_us * NS_PER_US);
	if (real) {	/* a real machine's table, each state's own cost */
		s.t.nr_states = real->nr;
		for (__u32 k = 1; k < real->nr; k++) {
			struct trace_state *ts = &s.t.states[k];

			snprintf(ts->name, TRACE_NAME_LEN, "%s", real->st[k].name);
			ts->is_poll = 0;
			ts->exit_latency_us = real->st[k].lat_us;
			ts->residency_us = real->st[k].res_us;
			ts->cost_ns = (__u64)real->st[k].lat_us * NS_PER_US;
		}
	}
	/* Ping-pong's sleep is the peer's work plus the peer's wake-up: a
	 * trace "recorded" under halt would bake 100 us of halt latency into
	 * every sleep and make polling look wrong even at 0 us of work. So
	 * ping-pong is written as if polling (the workload's own timing);
	 * timer-driven scenarios sleep the same either way and are written
	 * as a KVM guest's haltpoll governor runs them, in halt. */
	if (s.rec_state == TRACE_NO_STATE)
		s.rec_state = !strcmp(scen, "pingpong") ? 0 : 1;
	s.cost_ns = s.t.states[s.rec_state].cost_ns;
	/* The command line that made the trace, minus the output name. */
	src = s.t.source;
	used = snprintf(src, sizeof(s.t.source), "synth %s", scen);
	for (int i = 2; i < argc && used < sizeof(s.t.source); i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--output=", 9) || !strncmp(argv[i], "-o", 2))
			continue;
		used += snprintf(src + used, sizeof(s.t.source) - used, " %s", argv[i]);
	}

	ret = 1;
	if (!strcmp(scen, "periodic")) {
		__u64 period = (__u64)(NS_PER_S / hz), now = T0;

		s.t.nr_cpus = 1;
		s.busy_open = now;
		if (!sweep) {
			__u64 span = (__u64)((dur > 0 ? dur : 10) * NS_PER_S);

			if (periodic_span(&s, &now, period, (__u32)(load * 10), span))
				goto nomem;
		} else {
			int n = (int)((hi - lo) / step + 1e-9);
			__u64 span = (__u64)(step_s * NS_PER_S);

			/* up LO..HI, then back down, like the report's test */
			for (int i = 0; i <= 2 * n; i++) {
				double l = i <= n ? lo + i * step : lo + (2 * n - i) * step;

				if (periodic_span(&s, &now, period, (__u32)(l * 10 + 0.5), span))
					goto nomem;
			}
		}
		if (add_busy(&s, 0, s.busy_open, now))
			goto nomem;
	} else if (!strcmp(scen, "impulse")) {
		__u64 now = T0, busy = (__u64)(busy_ms * NS_PER_MS);

		s.t.nr_cpus = 1;
		for (__u32 i = 0; i < trials; i++) {
			double g = trials > 1 ? gap_lo + (gap_hi - gap_lo) * i / (trials - 1) : gap_lo;
			__u64 gap = (__u64)(g * NS_PER_US) + jitter(&s);

			if (add_busy(&s, 0, now, now + busy) ||
			    add_idle(&s, 0, now + busy, now + busy + gap, 0))
				goto nomem;
			now += busy + gap;
		}
		if (add_busy(&s, 0, now, now + busy))
			goto nomem;
	} else if (!strcmp(scen, "bursty")) {
		s.t.nr_cpus = 1;
		s.busy_open = T0;
		if (bursty(&s, T0 + (__u64)((dur > 0 ? dur : 10) * NS_PER_S), (__u32)burst,
			   (__u64)((work_set ? work_us : 50) * NS_PER_US),
			   (__u64)((gap_set ? gap_lo : 30) * NS_PER_US),
			   (__u64)(lull_lo * NS_PER_MS), (__u64)(lull_hi * NS_PER_MS)))
			goto nomem;
	} else if (!strcmp(scen, "mix")) {
		s.t.nr_cpus = 1;
		s.busy_open = T0;
		if (mix(&s, T0 + (__u64)((dur > 0 ? dur : 10) * NS_PER_S),
			(__u64)((work_set ? work_us : 50) * NS_PER_US), (__u64)(short_us * NS_PER_US),
			(__u64)(long_us * NS_PER_US), (__u32)(long_pct * 10 + 0.5),
			(__u64)(phase_ms * NS_PER_MS)))
			goto nomem;
	} else {
		/* CPU0 works, wakes CPU1, sleeps until CPU1 wakes it back. */
		__u64 w = (__u64)((work_us + hop_us) * NS_PER_US), L = s.cost_ns, now = T0;
		__u64 end = T0 + (__u64)((dur > 0 ? dur : 2) * NS_PER_S);
		__u64 idle1_since = T0;

		if (!w) {
			pr_warn("synth: pingpong needs --work-us + --hop-us > 0\n");
			ret = 2;
			goto out;
		}
		s.t.nr_cpus = 2;
		for (;;) {
			__u64 w0 = w + jitter(&s), w1 = w + jitter(&s);

			if (now + w0 + w1 + 2 * L > end)
				break;
			if (add_busy(&s, 0, now, now + w0) ||
			    add_idle(&s, 1, idle1_since, now + w0 + L, L) ||
			    add_busy(&s, 1, now + w0 + L, now + w0 + w1 + L) ||
			    add_idle(&s, 0, now + w0, now + w0 + w1 + 2 * L, L))
				goto nomem;
			idle1_since = now + w0 + w1 + L;
			now += w0 + w1 + 2 * L;
		}
		/* A quiet machine: each CPU sleeps until a timer of its own
		 * (known at idle entry), runs 10 us, sleeps again. */
		if (quiet_s > 0) {
			__u64 qend = now + (__u64)(quiet_s * NS_PER_S), since[2] = { now, idle1_since };

			for (__u32 cpu = 0; cpu < 2; cpu++) {
				for (__u64 t = since[cpu];;) {
					__u64 sl = 5 * NS_PER_MS + rnd_below(&s, 45 * NS_PER_MS);

					if (t + sl + 10 * NS_PER_US > qend)
						break;
					if (add_idle(&s, cpu, t, t + sl, 0) ||
					    add_busy(&s, cpu, t + sl, t + sl + 10 * NS_PER_US))
						goto nomem;
					t += sl + 10 * NS_PER_US;
				}
			}
		}
	}
	trace_sort(&s.t);
	if (trace_save(out, &s.t, msg, sizeof(msg))) {
		pr_warn("synth: %s\n", msg);
		goto out;
	}
	pr_info("synth: wrote %zu records to %s\n", s.t.nr, out);
	ret = 0;
	goto out;
nomem:
	pr_warn("synth: out of memory\n");
out:
	trace_free(&s.t);
	return ret;
}
