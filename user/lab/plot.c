// SPDX-License-Identifier: GPL-2.0
/*
 * `govlab plot`: pictures drawn by gnuplot.
 *
 *   timeline: per CPU, util and floor (ratios) and the idle pick over time,
 *             from a trace (bpfgov's policy core replayed over it, as
 *             `govlab replay` does) or from a `tail --json` recording
 *             (the live governor's own decisions);
 *   scatter:  every idle policy of a replay at (wake-up latency above the
 *             oracle, idle energy above the oracle): the judge's two axes;
 *             one point set per trace.
 *
 * Data go to a private temporary directory, gnuplot reads a script on its
 * standard input; PNG (pngcairo) or SVG by the output's extension.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bpfgov.h"
#include "cli.h"
#include "common.h"
#include "gov.h"
#include "log.h"
#include "replay.h"
#include "trace.h"
#include "util.h"
#include "govlab_cmds.h"

#define PLOT_MAX_PANELS	8

static const char plot_usage[] =
"Usage: govlab plot timeline FILE -o OUT [--cpu N]... [--title TEXT]\n"
"       govlab plot scatter TRACE... -o OUT [--title TEXT]\n"
"Draw with gnuplot (Debian: apt-get install gnuplot-nox).\n\n"
"  timeline   per CPU: util and floor (ratio of the CPU's range) and the idle\n"
"             pick over time. FILE is a trace (govlab record/synth: bpfgov's\n"
"             policy core is replayed over it) or a 'govloader tail --json'\n"
"             recording (the live governor's decisions). First 8 CPUs with\n"
"             data unless --cpu picks them.\n"
"  scatter    every idle policy of 'govlab replay' over each TRACE at its\n"
"             wake-up latency and idle energy above the hindsight oracle\n"
"             (the oracle is the origin; lower-left is better).\n\n"
"  -o, --output OUT   OUT.png (pngcairo) or OUT.svg\n"
"  --cpu N            plot CPU N (repeatable; timeline)\n"
"  --title TEXT       title above the plot\n"
"  -v, -q             more / less output\n";

struct series {
	FILE *f;		/* data file: t_s util floor pick */
	__u64 n;
	__u64 last_t;		/* time of the last row written */
	__u32 last_util, last_floor, last_pick;
};

struct tl_ctx {
	struct series *s;	/* BPFGOV_MAX_CPUS */
	__u64 t0, t_end;	/* first and last time seen, any CPU */
	bool t0_set;
	const bool *want;	/* NULL: all */
};

static void tl_row(struct tl_ctx *c, struct series *s, __u64 t)
{
	fprintf(s->f, "%.6f %.4f %.4f %d\n", (double)(t - c->t0) / 1e9, s->last_util / (double)BPFGOV_SCALE,
		s->last_floor / (double)BPFGOV_SCALE, s->last_pick == BPFGOV_NO_STATE ? -1 : (int)s->last_pick);
	s->last_t = t;
}

/* Rows only when a value changes: a steady CPU still runs to the end. */
static void tl_close(struct tl_ctx *c, struct series *s)
{
	if (s->n && s->last_t < c->t_end)
		tl_row(c, s, c->t_end);
}

static void tl_add(struct tl_ctx *c, __u32 cpu, __u64 t, __u32 util, __u32 floor, __u32 pick)
{
	struct series *s;

	if (cpu >= BPFGOV_MAX_CPUS || (c->want && !c->want[cpu]))
		return;
	s = &c->s[cpu];
	if (!s->f)
		return;
	if (!c->t0_set) {
		c->t0 = t;
		c->t0_set = true;
	}
	if (t < c->t0)
		t = c->t0;
	if (t > c->t_end)
		c->t_end = t;
	if (s->n && util == s->last_util && floor == s->last_floor && pick == s->last_pick)
		return;
	s->last_util = util;
	s->last_floor = floor;
	s->last_pick = pick;
	tl_row(c, s, t);
	s->n++;
}

static void on_replay(void *ctx, __u32 cpu, __u64 t, const struct bpfgov_cpu_state *st)
{
	tl_add(ctx, cpu, t, st->util, st->floor, st->idle_pick);
}

/* A number after "key": in one JSON line of `tail --json`. */
static int json_u64(const char *line, const char *key, unsigned long long *v)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return -ENOENT;
	return sscanf(p + strlen(pat), "%llu", v) == 1 ? 0 : -EINVAL;
}

static int load_tail_json(const char *path, FILE *f, struct tl_ctx *c, char *err, size_t len)
{
	unsigned long long ts, cpu, util, floor, pick;
	char line[1024];
	int n = 0, lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] != '{')
			continue;
		if (json_u64(line, "ts_ns", &ts) || json_u64(line, "cpu", &cpu) ||
		    json_u64(line, "util", &util) || json_u64(line, "floor", &floor) ||
		    json_u64(line, "idle_pick", &pick)) {
			snprintf(err, len, "%s:%d: not a 'govloader tail --json' record", path, lineno);
			return -EINVAL;
		}
		tl_add(c, cpu, ts, util, floor, pick);
		n++;
	}
	if (!n) {
		snprintf(err, len, "%s: no records (a trace starts with 'bpfgov-trace', a tail --json recording with '{')",
			 path);
		return -EINVAL;
	}
	return 0;
}

/* gnuplot from $GNUPLOT or PATH; NULL when it is not installed. */
static const char *find_gnuplot(char *buf, size_t len)
{
	const char *env = getenv("GNUPLOT"), *path = getenv("PATH");
	char *dirs, *d, *save = NULL;

	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	dirs = strdup(path && *path ? path : "/usr/bin:/bin");
	if (!dirs)
		return NULL;
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (fmt_checked(buf, len, "%s/gnuplot", d) >= 0 && !access(buf, X_OK)) {
			free(dirs);
			return buf;
		}
	}
	free(dirs);
	return NULL;
}

/* Run gnuplot on @script (stdin); its errors go to our stderr. */
static int run_gnuplot(const char *gp, const char *script)
{
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		dup2(pfd[0], 0);
		close(pfd[0]);
		close(pfd[1]);
		execl(gp, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	if (write_full(pfd[1], script, strlen(script)))
		pr_debug("plot: gnuplot closed its input early\n");
	close(pfd[1]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* The terminal line for @out's extension; NULL when unsupported. */
static const char *terminal_for(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (dot && !strcmp(dot, ".png"))
		return "pngcairo noenhanced font 'sans,10'";
	if (dot && !strcmp(dot, ".svg"))
		return "svg noenhanced font 'sans,10'";
	return NULL;
}

/* A string for a gnuplot single-quoted literal: quotes doubled. */
static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

static int timeline(const char *in, const char *out, const char *title, const bool *want,
		    bool any_want, const char *dir, FILE *gp)
{
	struct tl_ctx c = { .want = any_want ? want : NULL };
	struct replay_opts o;
	struct replay_result *r = NULL;
	struct trace t;
	char path[PATH_MAX], msg[512], head[32] = "";
	int cpu, panels = 0, nr_states = 2, err = 0;
	FILE *f;

	trace_init(&t);
	c.s = calloc(BPFGOV_MAX_CPUS, sizeof(*c.s));
	if (!c.s)
		return -ENOMEM;
	for (cpu = 0; cpu < BPFGOV_MAX_CPUS; cpu++) {
		if (any_want && !want[cpu])
			continue;
		if (fmt_checked(path, sizeof(path), "%s/cpu%d.dat", dir, cpu) < 0 ||
		    !(c.s[cpu].f = fopen(path, "w"))) {
			err = -errno;
			goto out;
		}
	}
	f = fopen(in, "r");
	if (!f) {
		err = -errno;
		pr_warn("plot: cannot open %s: %s\n", in, strerror(errno));
		goto out;
	}
	if (!fgets(head, sizeof(head), f))
		head[0] = '\0';
	if (!strncmp(head, "bpfgov-trace", 12)) {
		fclose(f);
		err = trace_load(in, &t, msg, sizeof(msg));
		if (!err) {
			replay_opts_default(&o);
			o.policies = 1u << RP_BPFGOV;
			o.observe = on_replay;
			o.observe_ctx = &c;
			nr_states = t.nr_states;
			r = calloc(1, sizeof(*r));
			err = r ? replay_run(&t, &o, r, msg, sizeof(msg)) : -ENOMEM;
		}
	} else {
		rewind(f);
		err = load_tail_json(in, f, &c, msg, sizeof(msg));
		fclose(f);
	}
	if (err) {
		pr_warn("plot: %s\n", err == -ENOMEM ? "out of memory" : msg);
		goto out;
	}
	for (cpu = 0; cpu < BPFGOV_MAX_CPUS; cpu++) {
		if (c.s[cpu].f)
			tl_close(&c, &c.s[cpu]);
		if (c.s[cpu].f && fclose(c.s[cpu].f) && !err)
			err = -errno;
		c.s[cpu].f = NULL;
		if (c.s[cpu].n && panels < PLOT_MAX_PANELS)
			panels++;
	}
	if (!panels) {
		pr_warn("plot: %s: no data for the CPUs asked for\n", in);
		err = -ENODATA;
		goto out;
	}
	if (nr_states < 1)
		nr_states = 1;
	fprintf(gp, "set terminal %s size 1100,%d\nset output ", terminal_for(out), 140 + 200 * panels);
	gp_quote(gp, out);
	fprintf(gp, "\nset multiplot layout %d,1 title ", panels);
	gp_quote(gp, title ? title : in);
	fprintf(gp, "\nset grid\nset key top left horizontal\nset yrange [0:1.05]\n"
		"set ylabel 'util, floor (ratio)'\nset y2range [-0.3:%d.3]\nset y2tics 0,1,%d\n"
		"set ytics nomirror\nset y2label 'idle pick (state)'\n"
		"set lmargin 10\nset rmargin 10\n",
		nr_states - 1, nr_states - 1);
	panels = 0;
	for (cpu = 0; cpu < BPFGOV_MAX_CPUS && panels < PLOT_MAX_PANELS; cpu++) {
		if (!c.s[cpu].n)
			continue;
		panels++;
		fprintf(gp, "set title 'CPU %d'\n", cpu);
		fprintf(gp, "set xlabel 'time (s)'\n");
		fprintf(gp, "plot '%s/cpu%d.dat' using 1:2 with lines lw 1 lc rgb '#1f77b4' title 'util', "
			"'' using 1:3 with steps lw 2 lc rgb '#d62728' title 'floor', "
			"'' using 1:4 axes x1y2 with steps lw 1 dt 2 lc rgb '#2ca02c' title 'idle pick'\n",
			dir, cpu);
	}
	fprintf(gp, "unset multiplot\n");
out:
	for (cpu = 0; cpu < BPFGOV_MAX_CPUS; cpu++)
		if (c.s[cpu].f)
			fclose(c.s[cpu].f);
	free(c.s);
	free(r);
	trace_free(&t);
	return err;
}

static int scatter(char **traces, int n, const char *out, const char *title, const char *dir,
		   FILE *gp)
{
	char names[512] = "";
	int rows = (n + 1) / 2, cols = n > 1 ? 2 : 1;
	struct replay_opts o;
	struct replay_result *r;
	struct trace t;
	char path[PATH_MAX], msg[512];
	const char *base;
	int i, p, err = 0;
	FILE *f;
	/* Per panel: the extent of the points and the origin (the oracle). */
	struct { double x0, x1, y0, y1; } *ext;

	r = calloc(1, sizeof(*r));
	ext = calloc(n, sizeof(*ext));
	if (!r || !ext) {
		free(r);
		free(ext);
		return -ENOMEM;
	}
	for (i = 0; i < n && !err; i++) {
		trace_init(&t);
		replay_opts_default(&o);
		err = trace_load(traces[i], &t, msg, sizeof(msg));
		if (!err)
			err = replay_run(&t, &o, r, msg, sizeof(msg));
		trace_free(&t);
		if (err) {
			pr_warn("plot: %s\n", msg);
			break;
		}
		if (fmt_checked(path, sizeof(path), "%s/scatter%d.dat", dir, i) < 0 ||
		    !(f = fopen(path, "w"))) {
			err = -errno;
			break;
		}
		for (p = 0; p < RP__MAX; p++) {
			if (!r->p[p].idle)
				continue;
			fprintf(f, "%s %.3f %.4f\n", replay_policy_name(p),
				r->p[p].latency_dist_us, r->p[p].energy_dist_pct);
			ext[i].x0 = fmin(ext[i].x0, r->p[p].latency_dist_us);
			ext[i].x1 = fmax(ext[i].x1, r->p[p].latency_dist_us);
			ext[i].y0 = fmin(ext[i].y0, r->p[p].energy_dist_pct);
			ext[i].y1 = fmax(ext[i].y1, r->p[p].energy_dist_pct);
		}
		if (fclose(f))
			err = -errno;
	}
	/* The policies that have an idle side, in table order: one point
	 * style each (bpfgov's filled, the kernel's open), one legend. */
	for (p = 0; p < RP__MAX; p++)
		if (r->p[p].idle && strlen(names) + strlen(replay_policy_name(p)) + 2 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 names[0] ? " " : "", replay_policy_name(p));
	free(r);
	if (err) {
		free(ext);
		return err;
	}
	fprintf(gp, "P = '%s'\n", names);
	fprintf(gp, "pt_of(n) = (strstrt(n, 'bpfgov') ? word('7 5 9 11 13 15', (i %% 6) + 1) : "
		"word('6 4 8 10 12 14', (i %% 6) + 1)) + 0\n");
	fprintf(gp, "set terminal %s size %d,%d\nset output ", terminal_for(out),
		cols * 640 + 220, 80 + rows * 460);
	gp_quote(gp, out);
	fprintf(gp, "\nset multiplot layout %d,%d title ", rows, cols);
	gp_quote(gp, title ? title : "idle policies: energy and latency above the hindsight oracle (origin); lower left is better");
	fprintf(gp, "\nset grid\nset key outside right top title 'policy'\n"
		"set xlabel 'wake-up latency above the oracle (us per idle period)'\n"
		"set ylabel 'idle energy above the oracle (%% of one CPU)'\n"
		"set offsets graph 0.08, graph 0.35, graph 0.12, graph 0.08\n"
		"set label 1 'oracle' at first 0, first 0 point pt 3 ps 2 offset 0.8,-0.8 tc rgb '#555555'\n");
	for (i = 0; i < n; i++) {
		base = strrchr(traces[i], '/') ? strrchr(traces[i], '/') + 1 : traces[i];
		fprintf(gp, "set title ");
		gp_quote(gp, base);
		/* Every policy on the oracle: a range of its own around it
		 * (gnuplot's autoscale would warn about an empty range). */
		if (ext[i].x1 - ext[i].x0 < 1e-3)
			fprintf(gp, "\nset xrange [%.3f:%.3f]", ext[i].x0 - 1, ext[i].x1 + 1);
		else
			fprintf(gp, "\nset autoscale x");
		if (ext[i].y1 - ext[i].y0 < 1e-3)
			fprintf(gp, "\nset yrange [%.3f:%.3f]", ext[i].y0 - 1, ext[i].y1 + 1);
		else
			fprintf(gp, "\nset autoscale y");
		fprintf(gp, "\nplot for [i=1:words(P)] '%s/scatter%d.dat' "
			"using (strcol(1) eq word(P, i) ? $2 : 1/0):3 with points "
			"pt pt_of(word(P, i)) ps 1.8 lw 2 lc i title word(P, i)\n", dir, i);
	}
	fprintf(gp, "unset multiplot\n");
	free(ext);
	return 0;
}

static void rm_dir(const char *dir)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < BPFGOV_MAX_CPUS; i++) {
		if (fmt_checked(path, sizeof(path), "%s/cpu%d.dat", dir, i) >= 0)
			unlink(path);
		if (fmt_checked(path, sizeof(path), "%s/scatter%d.dat", dir, i) >= 0)
			unlink(path);
	}
	rmdir(dir);
}

int do_plot(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "title", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool want[BPFGOV_MAX_CPUS] = { false }, any_want = false;
	const char *out = NULL, *title = NULL, *gpath, *what;
	char gbuf[PATH_MAX], dir[PATH_MAX], *script = NULL;
	const char *tmp = getenv("TMPDIR");
	size_t slen = 0;
	__u32 v;
	FILE *gp;
	int c, err;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":o:vqh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': title = optarg; break;
		case 'c':
			if (parse_u32(optarg, 0, BPFGOV_MAX_CPUS - 1, &v)) {
				pr_warn("plot: --cpu '%.32s': expected a CPU number\n", optarg);
				return EXIT_USAGE;
			}
			want[v] = any_want = true;
			break;
		default:
			err = cli_common_opt("plot", plot_usage, c, argv);
			if (err)
				return err > 0 ? 0 : EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		pr_warn("plot: say timeline or scatter (try 'govlab plot --help')\n");
		return EXIT_USAGE;
	}
	what = argv[optind++];
	if (strcmp(what, "timeline") && strcmp(what, "scatter")) {
		pr_warn("plot: '%.32s': expected timeline or scatter\n", what);
		return EXIT_USAGE;
	}
	if (optind >= argc || (!strcmp(what, "timeline") && optind != argc - 1)) {
		pr_warn("plot %s: need %s\n", what,
			!strcmp(what, "timeline") ? "exactly one FILE" : "at least one TRACE");
		return EXIT_USAGE;
	}
	if (!strcmp(what, "scatter") && any_want) {
		pr_warn("plot scatter: --cpu is for timeline\n");
		return EXIT_USAGE;
	}
	if (!out || !terminal_for(out)) {
		pr_warn("plot: -o OUT.png or OUT.svg is required\n");
		return EXIT_USAGE;
	}
	gpath = find_gnuplot(gbuf, sizeof(gbuf));
	if (!gpath) {
		pr_warn("plot: gnuplot is not installed (Debian: apt-get install gnuplot-nox)\n");
		return 1;
	}
	if (fmt_checked(dir, sizeof(dir), "%s/bpfgov-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 ||
	    !mkdtemp(dir)) {
		pr_warn("plot: cannot create a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	gp = open_memstream(&script, &slen);
	if (!gp) {
		rmdir(dir);
		return 1;
	}
	if (!strcmp(what, "timeline"))
		err = timeline(argv[optind], out, title, want, any_want, dir, gp);
	else
		err = scatter(argv + optind, argc - optind, out, title, dir, gp);
	if (fclose(gp) && !err)
		err = -EIO;
	if (!err) {
		err = run_gnuplot(gpath, script);
		if (err)
			pr_warn("plot: gnuplot failed to draw %s\n", out);
	}
	free(script);
	rm_dir(dir);
	if (!err)
		pr_info("plot: wrote %s\n", out);
	return err ? 1 : 0;
}
