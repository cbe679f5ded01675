// SPDX-License-Identifier: GPL-2.0
/*
 * The one exposition of bpfgov's state in the Prometheus text format 0.0.4
 * and in OpenMetrics 1.0 (see metrics.h). Names carry the bpfgov_ prefix,
 * base units (seconds, hertz, ratios 0..1) and _total on counters; per-CPU
 * series have a `cpu` label.
 *
 * Sources, read at render time: the pinned `cpu_state` and `control` maps
 * (decisions, util, floor, idle pick, counters kept by the BPF programs)
 * and `loader_state` (actuation writes, errors, latency, profile).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bpfgov.h"
#include "actuate.h"
#include "common.h"
#include "log.h"
#include "metrics.h"
#include "state.h"

/* The Prometheus histogram's upper bounds, microseconds: each one is a
 * bound of the state map's finer buckets (state_lat_bounds_ns). */
static const __u64 lat_bounds_us[] = {
	5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 100000,
};

/* ------------------------------------------------------------ rendering */

const char *met_content_type(enum met_format f)
{
	return f == MET_OPENMETRICS ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
}

struct ctx {
	FILE *f;
	enum met_format fmt;
	int cpu_fd, ctl_fd;
	__u32 nr_cpus;
	struct bpfgov_cpu_state *cs;	/* nr_cpus entries, valid[] says which */
	bool *valid;
	struct bpfgov_loader_state *ld;	/* NULL: no loader state */
};

/* A label value, escaped as both formats require. */
static void label_val(FILE *f, const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fputc('?', f);
	}
}

/* HELP and TYPE. @name is the family name: for counters without _total
 * (OpenMetrics names the family so; 0.0.4 names the sample). */
static void family(struct ctx *c, const char *name, const char *type, const char *help)
{
	bool counter = !strcmp(type, "counter");
	const char *sfx = counter && c->fmt == MET_PROMETHEUS ? "_total" : "";

	fprintf(c->f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help, name, sfx, type);
}

static void num(FILE *f, double v)
{
	if (v == (double)(long long)v && v < 1e15 && v > -1e15)
		fprintf(f, "%lld\n", (long long)v);
	else
		fprintf(f, "%.9g\n", v);
}

typedef double (*cpu_val_fn)(const struct ctx *c, __u32 cpu, const void *arg);

/* One sample per CPU whose state was read. */
static void per_cpu(struct ctx *c, const char *sample, const char *extra, cpu_val_fn fn,
		    const void *arg)
{
	__u32 cpu;

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		if (!c->valid[cpu])
			continue;
		fprintf(c->f, "%s{cpu=\"%u\"%s%s} ", sample, cpu, extra ? "," : "",
			extra ? extra : "");
		num(c->f, fn(c, cpu, arg));
	}
}

#define CS_FIELD(c, cpu, off)	(*(const __u64 *)((const char *)&(c)->cs[cpu] + (off)))
#define CS_FIELD32(c, cpu, off)	(*(const __u32 *)((const char *)&(c)->cs[cpu] + (off)))

static double v_ratio32(const struct ctx *c, __u32 cpu, const void *arg)
{
	return CS_FIELD32(c, cpu, (size_t)arg) / (double)BPFGOV_SCALE;
}

static double v_u32(const struct ctx *c, __u32 cpu, const void *arg)
{
	return CS_FIELD32(c, cpu, (size_t)arg);
}

static double v_u64(const struct ctx *c, __u32 cpu, const void *arg)
{
	return (double)CS_FIELD(c, cpu, (size_t)arg);
}

static double v_ns(const struct ctx *c, __u32 cpu, const void *arg)
{
	return CS_FIELD(c, cpu, (size_t)arg) / 1e9;
}

static double v_pick(const struct ctx *c, __u32 cpu, const void *arg)
{
	__u32 p = c->cs[cpu].idle_pick;

	return p == BPFGOV_NO_STATE ? -1.0 : (double)p;
}

/* Loader counters (a __u64 of struct bpfgov_loader_cpu at @arg): from
 * the state map, 0 without it. */
static double v_act(const struct ctx *c, __u32 cpu, const void *arg)
{
	__u64 v;

	if (!c->ld || cpu >= c->ld->nr_cpus || cpu >= BPFGOV_MAX_CPUS)
		return 0;
	memcpy(&v, (const char *)&c->ld->cpu[cpu] + (size_t)arg, sizeof(v));
	return (double)v;
}

static double v_applied(const struct ctx *c, __u32 cpu, const void *arg)
{
	__u32 v;

	if (!c->ld || cpu >= c->ld->nr_cpus || cpu >= BPFGOV_MAX_CPUS)
		return 0;
	v = c->ld->cpu[cpu].hw_min;
	/* cpufreq reports kHz: base unit hertz. */
	return !strcmp(c->ld->backend, "cpufreq") ? v * 1000.0 : v;
}

#define OFF(f)	((const void *)offsetof(struct bpfgov_cpu_state, f))

static int read_maps(struct ctx *c, const char *pin_root)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info), cpu;

	c->cpu_fd = pins_open_map(pin_root, "cpu_state");
	if (c->cpu_fd < 0)
		return c->cpu_fd;
	c->ctl_fd = pins_open_map(pin_root, "control");
	if (bpf_map_get_info_by_fd(c->cpu_fd, &info, &ilen))
		return -errno;
	if (info.value_size != sizeof(struct bpfgov_cpu_state))
		return -EPROTO;
	c->nr_cpus = info.max_entries > BPFGOV_MAX_CPUS ? BPFGOV_MAX_CPUS : info.max_entries;
	c->cs = calloc(c->nr_cpus ? c->nr_cpus : 1, sizeof(*c->cs));
	c->valid = calloc(c->nr_cpus ? c->nr_cpus : 1, sizeof(*c->valid));
	if (!c->cs || !c->valid)
		return -ENOMEM;
	for (cpu = 0; cpu < c->nr_cpus; cpu++)
		c->valid[cpu] = !bpf_map_lookup_elem(c->cpu_fd, &cpu, &c->cs[cpu]);
	c->ld = malloc(sizeof(*c->ld));
	if (c->ld && state_read(pin_root, c->ld)) {
		free(c->ld);	/* only what the BPF maps show */
		c->ld = NULL;
	}
	return 0;
}

static void render_info(struct ctx *c, bool up)
{
	struct bpfgov_control ctl;
	struct utsname u;
	struct timespec rt, mt;
	__u32 zero = 0;
	bool have_ctl = up && c->ctl_fd >= 0 && !bpf_map_lookup_elem(c->ctl_fd, &zero, &ctl);

	family(c, "bpfgov_up", "gauge", "Whether a running bpfgov instance was read (1) or not (0).");
	fprintf(c->f, "bpfgov_up %d\n", up ? 1 : 0);
	family(c, "bpfgov_build_info", "gauge",
	       "Build and run facts as labels: version, mode, floor backend, kernel release.");
	if (uname(&u))
		strcpy(u.release, "unknown");
	fprintf(c->f, "bpfgov_build_info{version=\"%s\",mode=\"", BPFGOV_VERSION);
	label_val(c->f, have_ctl ? mode_name(ctl.mode) : "none");
	fputs("\",backend=\"", c->f);
	label_val(c->f, c->ld && up ? c->ld->backend : "none");
	fputs("\",kernel=\"", c->f);
	label_val(c->f, u.release);
	fputs("\"} 1\n", c->f);
	if (!have_ctl)
		return;
	/* control.started_ns is CLOCK_MONOTONIC; the start time is wall clock. */
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	family(c, "bpfgov_start_time_seconds", "gauge",
	       "When the running instance started, seconds since the Unix epoch.");
	fprintf(c->f, "bpfgov_start_time_seconds %.3f\n", (rt.tv_sec + rt.tv_nsec / 1e9) -
		((mt.tv_sec * 1e9 + mt.tv_nsec - (double)ctl.started_ns) / 1e9));
	family(c, "bpfgov_actuating", "gauge",
	       "1 when decisions are applied to hardware or kernel knobs, 0 in dry-run or without a backend.");
	fprintf(c->f, "bpfgov_actuating %u\n", ctl.actuating ? 1 : 0);
	if (c->ld) {
		family(c, "bpfgov_profile_info", "gauge",
		       "The bpfgov profile in force, and power-profiles-daemon's active profile when followed.");
		fputs("bpfgov_profile_info{profile=\"", c->f);
		label_val(c->f, c->ld->profile);
		fputs("\",ppd_profile=\"", c->f);
		label_val(c->f, c->ld->follow_ppd ? c->ld->ppd_profile : "");
		fputs("\"} 1\n", c->f);
		family(c, "bpfgov_profile_switches", "counter",
		       "Profile switches applied at run time (power-profiles-daemon changes).");
		fprintf(c->f, "bpfgov_profile_switches_total %llu\n",
			(unsigned long long)c->ld->profile_switches);
	}
}

static void render_cpus(struct ctx *c)
{
	static const char *const kinds[] = { "floor", "pick" };
	char extra[48];
	__u32 k, cpu;

	family(c, "bpfgov_cpu_util", "gauge", "Smoothed utilization of the CPU, ratio 0..1.");
	per_cpu(c, "bpfgov_cpu_util", NULL, v_ratio32, OFF(util));
	family(c, "bpfgov_cpu_target", "gauge", "Performance target (util x headroom, clamped), ratio 0..1.");
	per_cpu(c, "bpfgov_cpu_target", NULL, v_ratio32, OFF(target));
	family(c, "bpfgov_cpu_floor", "gauge", "Performance floor decided for the CPU, ratio 0..1 of its range.");
	per_cpu(c, "bpfgov_cpu_floor", NULL, v_ratio32, OFF(floor));
	family(c, "bpfgov_cpu_hold_floor", "gauge",
	       "Floor kept by the gap memory, ratio 0..1 (0: not holding).");
	per_cpu(c, "bpfgov_cpu_hold_floor", NULL, v_ratio32, OFF(hold_floor));
	family(c, "bpfgov_cpu_applied_min", "gauge",
	       "Min field applied by the backend: HWP/CPPC performance level, or hertz for cpufreq.");
	per_cpu(c, "bpfgov_cpu_applied_min", NULL, v_applied, NULL);
	family(c, "bpfgov_cpu_idle_pick", "gauge",
	       "Idle state the governor picked for the CPU (index; -1: none).");
	per_cpu(c, "bpfgov_cpu_idle_pick", NULL, v_pick, NULL);
	family(c, "bpfgov_cpu_wake_cost_seconds", "gauge",
	       "Measured wake-up cost of each idle state (running median; absent until measured).");
	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		if (!c->valid[cpu])
			continue;
		for (k = 0; k < BPFGOV_MAX_STATES; k++) {
			if (!c->cs[cpu].wake_cost_ns[k])
				continue;
			fprintf(c->f, "bpfgov_cpu_wake_cost_seconds{cpu=\"%u\",state=\"%u\"} ", cpu, k);
			num(c->f, c->cs[cpu].wake_cost_ns[k] / 1e9);
		}
	}
	family(c, "bpfgov_decisions", "counter", "Decisions emitted by the BPF programs, by kind.");
	for (k = 0; k < 2; k++) {
		snprintf(extra, sizeof(extra), "kind=\"%s\"", kinds[k]);
		per_cpu(c, "bpfgov_decisions_total", extra, v_u64,
			k ? OFF(nr_pick_changes) : OFF(nr_floor_changes));
	}
	family(c, "bpfgov_idle_too_deep", "counter",
	       "Idle periods shorter than the entered state's payback (state too deep).");
	per_cpu(c, "bpfgov_idle_too_deep_total", NULL, v_u64, OFF(nr_too_deep));
	family(c, "bpfgov_idle_too_shallow", "counter",
	       "Idle periods long enough for a deeper allowed state (state too shallow).");
	per_cpu(c, "bpfgov_idle_too_shallow_total", NULL, v_u64, OFF(nr_too_shallow));
	family(c, "bpfgov_gap_holds", "counter", "Short idle gaps that armed the gap memory.");
	per_cpu(c, "bpfgov_gap_holds_total", NULL, v_u64, OFF(nr_gap_holds));
	family(c, "bpfgov_long_polls", "counter", "Polls longer than poll_max_us.");
	per_cpu(c, "bpfgov_long_polls_total", NULL, v_u64, OFF(nr_long_polls));
	family(c, "bpfgov_ringbuf_drops", "counter",
	       "Records lost because a ring buffer was full (events: decisions; tap: tail).");
	per_cpu(c, "bpfgov_ringbuf_drops_total", "ring=\"events\"", v_u64, OFF(rb_drops));
	per_cpu(c, "bpfgov_ringbuf_drops_total", "ring=\"tap\"", v_u64, OFF(tap_drops));
	family(c, "bpfgov_cpu_busy_seconds", "counter", "Time the CPU ran tasks.");
	per_cpu(c, "bpfgov_cpu_busy_seconds_total", NULL, v_ns, OFF(busy_ns));
	family(c, "bpfgov_cpu_idle_seconds", "counter", "Time the CPU was idle.");
	per_cpu(c, "bpfgov_cpu_idle_seconds_total", NULL, v_ns, OFF(idle_ns));
	family(c, "bpfgov_cpu_poll_seconds", "counter", "Idle time spent in polling states.");
	per_cpu(c, "bpfgov_cpu_poll_seconds_total", NULL, v_ns, OFF(poll_ns));
	(void)v_u32;
}

#define LD_OFF(f)	((const void *)offsetof(struct bpfgov_loader_cpu, f))

static void render_actuation(struct ctx *c)
{
	const struct bpfgov_lat_hist *h;
	__u64 cum = 0;
	size_t i, b = 0;

	family(c, "bpfgov_actuation_writes", "counter",
	       "Register and file writes made to apply decisions.");
	per_cpu(c, "bpfgov_actuation_writes_total", NULL, v_act, LD_OFF(writes));
	family(c, "bpfgov_actuation_reasserts", "counter",
	       "Rewrites after someone else changed a register bpfgov owns.");
	per_cpu(c, "bpfgov_actuation_reasserts_total", NULL, v_act, LD_OFF(reasserts));
	family(c, "bpfgov_actuation_errors", "counter", "Writes that failed.");
	per_cpu(c, "bpfgov_actuation_errors_total", NULL, v_act, LD_OFF(errors));
	family(c, "bpfgov_actuation_driver_rewrites", "counter",
	       "Rewrites of the floor register (HWP_REQUEST, CPPC_REQ) by its driver under bpfgov.");
	per_cpu(c, "bpfgov_actuation_driver_rewrites_total", NULL, v_act,
		LD_OFF(driver_rewrites));
	if (!c->ld)
		return;
	family(c, "bpfgov_loader_wakeups", "counter",
	       "Times the loader's event loop woke (records, the summary, signals).");
	fprintf(c->f, "bpfgov_loader_wakeups_total %llu\n",
		(unsigned long long)c->ld->loop_wakeups);
	family(c, "bpfgov_loader_cpu_seconds", "counter",
	       "The loader's CPU time, all threads (refreshed once a second).");
	fprintf(c->f, "bpfgov_loader_cpu_seconds_total %.9g\n", c->ld->loader_cpu_ns / 1e9);
	h = &c->ld->lat;
	family(c, "bpfgov_actuation_latency_seconds", "histogram",
	       "From the BPF decision to the completed write.");
	/* the state's buckets summed up to each bound of the exposition */
	for (i = 0; i < sizeof(lat_bounds_us) / sizeof(lat_bounds_us[0]); i++) {
		for (; b < BPFGOV_LAT_BUCKETS - 1 &&
		       state_lat_bounds_ns[b] <= lat_bounds_us[i] * 1000; b++)
			cum += h->bucket[b];
		fprintf(c->f, "bpfgov_actuation_latency_seconds_bucket{le=\"%g\"} %llu\n",
			lat_bounds_us[i] / 1e6, (unsigned long long)cum);
	}
	cum = state_lat_count(h);
	fprintf(c->f, "bpfgov_actuation_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
		(unsigned long long)cum);
	fprintf(c->f, "bpfgov_actuation_latency_seconds_sum %.9g\n", h->sum_ns / 1e9);
	fprintf(c->f, "bpfgov_actuation_latency_seconds_count %llu\n", (unsigned long long)cum);
}

int met_render(FILE *out, enum met_format fmt, const char *pin_root, bool up)
{
	struct ctx c = { .f = out, .fmt = fmt, .cpu_fd = -1, .ctl_fd = -1 };
	int err = 0;

	if (up) {
		err = read_maps(&c, pin_root);
		if (err)
			up = false;	/* between a stop and the next start */
	}
	render_info(&c, up);
	if (up) {
		render_cpus(&c);
		render_actuation(&c);
	}
	if (fmt == MET_OPENMETRICS)
		fputs("# EOF\n", out);
	if (c.cpu_fd >= 0)
		close(c.cpu_fd);
	if (c.ctl_fd >= 0)
		close(c.ctl_fd);
	free(c.cs);
	free(c.valid);
	free(c.ld);
	return ferror(out) ? -EIO : 0;
}

int met_render_buf(char **buf, size_t *len, enum met_format fmt, const char *pin_root,
		   bool up)
{
	FILE *f = open_memstream(buf, len);
	int err;

	if (!f)
		return -errno;
	err = met_render(f, fmt, pin_root, up);
	if (fclose(f) && !err)
		err = -EIO;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}
