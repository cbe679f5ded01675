// SPDX-License-Identifier: GPL-2.0
/*
 * Subcommands that talk to a running instance: stop, status, tail, dump.
 * They only need the pinned maps, the lock and the status file, so they
 * work the same for every mode.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "json_writer.h"
#include "log.h"
#include "cli.h"
#include "tap.h"
#include "tunables.h"

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

/* ---------------------------------------------------------------- stop */

static const char stop_usage[] =
"Usage: govloader stop [--timeout S]\n"
"Ask the running 'govloader start' to stop and wait until it has restored\n"
"every knob it changed (default timeout 15 s). Exit 3 if nothing runs.\n";

int do_stop(int argc, char **argv)
{
	struct cli_opts o = {};
	__u64 end;
	pid_t pid;
	int err = cli_parse("stop", stop_usage, argc, argv, "timeout", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (geteuid() != 0) {
		pr_warn("stop needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	pid = gov_lock_owner();
	if (!pid) {
		pr_warn("bpfgov is not running\n");
		return EXIT_NOT_RUNNING;
	}
	if (kill(pid, SIGTERM)) {
		pr_warn("cannot signal pid %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	end = mono_ns() + (__u64)(o.timeout * 1e9);
	while (gov_lock_owner() == pid) {
		if (mono_ns() > end) {
			pr_warn("pid %d did not stop within %.0f s\n", (int)pid, o.timeout);
			return 1;
		}
		usleep(20000);
	}
	pr_info("stopped (pid %d) and restored\n", (int)pid);
	return 0;
}

/* ---------------------------------------------------------- shared reads */

struct snapshot {
	int nr_cpus;
	struct bpfgov_control ctl;
	struct bpfgov_config cfg;
	struct bpfgov_cpu_state *cpus;
};

static int snapshot_read(const char *pin_root, struct snapshot *s)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, cpu;
	int cpu_fd, cfg_fd, ctl_fd, err = 0;

	memset(s, 0, sizeof(*s));
	cpu_fd = pins_open_map(pin_root, "cpu_state");
	cfg_fd = pins_open_map(pin_root, "tunables");
	ctl_fd = pins_open_map(pin_root, "control");
	if (cpu_fd < 0 || cfg_fd < 0 || ctl_fd < 0) {
		err = cpu_fd < 0 ? cpu_fd : cfg_fd < 0 ? cfg_fd : ctl_fd;
		goto out;
	}
	if (bpf_map_get_info_by_fd(cpu_fd, &info, &len) ||
	    bpf_map_lookup_elem(cfg_fd, &zero, &s->cfg) ||
	    bpf_map_lookup_elem(ctl_fd, &zero, &s->ctl)) {
		err = -errno;
		goto out;
	}
	s->nr_cpus = info.max_entries;
	s->cpus = calloc(s->nr_cpus, sizeof(*s->cpus));
	if (!s->cpus) {
		err = -ENOMEM;
		goto out;
	}
	for (cpu = 0; cpu < (__u32)s->nr_cpus; cpu++) {
		if (bpf_map_lookup_elem(cpu_fd, &cpu, &s->cpus[cpu])) {
			err = -errno;
			goto out;
		}
	}
out:
	if (cpu_fd >= 0)
		close(cpu_fd);
	if (cfg_fd >= 0)
		close(cfg_fd);
	if (ctl_fd >= 0)
		close(ctl_fd);
	return err;
}

/* Is a running owner behind these pins? Explains what is wrong if not. */
static int check_running(const char *pin_root, pid_t *owner)
{
	*owner = gov_lock_owner();
	if (!*owner) {
		if (pins_present(pin_root))
			pr_warn("bpfgov is not running (stale pins under %s; the next start removes them)\n",
				pin_root);
		else
			pr_warn("bpfgov is not running\n");
		return EXIT_NOT_RUNNING;
	}
	if (!pins_present(pin_root)) {
		pr_warn("bpfgov runs (pid %d) but has no pins under %s (see its --pin-root)\n",
			(int)*owner, pin_root);
		return 1;
	}
	return 0;
}

/* -------------------------------------------------------------- status */

static const char status_usage[] =
"Usage: govloader status [--json] [--pin-root DIR]\n"
"Whether bpfgov runs, its mode, per-CPU util / floor / idle pick, actuator\n"
"state, drops and the effective tunables. Exit 3 if it does not run.\n";

/* A JSON string, or null for an empty one. */
static void json_str_or_null(json_writer_t *w, const char *name, const char *v)
{
	jsonw_name(w, name);
	if (v && *v)
		jsonw_string(w, v);
	else
		jsonw_null(w);
}

/* How the CPUs learn their next timer: the source every CPU has, or none
 * (a CPU learns it from the first hrtimer that expires on it). */
static __u32 snapshot_timer_src(const struct snapshot *s)
{
	__u32 src = BPFGOV_TIMER__MAX;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		if (s->cpus[cpu].timer_src < src)
			src = s->cpus[cpu].timer_src;
	return src == BPFGOV_TIMER__MAX ? BPFGOV_TIMER_NONE : src;
}

static void status_json(const struct snapshot *s, pid_t owner, const char *act,
			const struct gov_config *gc)
{
	__u64 up = mono_ns() - s->ctl.started_ns, ev_drops = 0, tap_drops = 0;
	json_writer_t *w = jsonw_new(stdout);
	size_t i;
	int cpu, k;

	if (!w)
		return;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		ev_drops += s->cpus[cpu].rb_drops;
		tap_drops += s->cpus[cpu].tap_drops;
	}
	jsonw_start_object(w);
	jsonw_bool_field(w, "running", true);
	jsonw_int_field(w, "pid", owner);
	jsonw_string_field(w, "mode", mode_name(s->ctl.mode));
	jsonw_float_field_fmt(w, "uptime_s", "%.1f", up / 1e9);
	jsonw_uint_field(w, "tap_reader_pid", s->ctl.tap_owner_pid);
	jsonw_name(w, "drops");
	jsonw_start_object(w);
	jsonw_uint_field(w, "events", ev_drops);
	jsonw_uint_field(w, "tap", tap_drops);
	jsonw_end_object(w);
	/* the status file 'start' writes through this same writer */
	jsonw_name(w, "actuator");
	jsonw_raw(w, act);
	jsonw_string_field(w, "next_timer", timer_src_name(snapshot_timer_src(s)));
	jsonw_name(w, "cpus");
	jsonw_start_array(w);
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		const struct bpfgov_cpu_state *c = &s->cpus[cpu];

		jsonw_start_object(w);
		jsonw_int_field(w, "cpu", cpu);
		jsonw_uint_field(w, "util", c->util);
		jsonw_uint_field(w, "target", c->target);
		jsonw_uint_field(w, "floor", c->floor);
		jsonw_string_field(w, "floor_reason", ev_reason_name(c->floor_reason));
		jsonw_uint_field(w, "hold_floor", c->hold_floor);
		jsonw_uint_field(w, "idle_pick", c->idle_pick);
		jsonw_string_field(w, "pick_reason", ev_reason_name(c->pick_reason));
		jsonw_uint_field(w, "busy", c->busy);
		jsonw_float_field_fmt(w, "expected_idle_us", "%.1f", c->expected_idle_ns / 1000.0);
		jsonw_uint_field(w, "qos_limit_us", c->qos_limit_us);
		jsonw_name(w, "wake_cost_us");
		jsonw_start_array(w);
		for (k = 0; k < (int)s->cfg.nr_states && k < BPFGOV_MAX_STATES; k++)
			jsonw_float_fmt(w, "%.1f", c->wake_cost_ns[k] / 1000.0);
		jsonw_end_array(w);
		jsonw_uint_field(w, "switches", c->nr_switches);
		jsonw_uint_field(w, "idle_entries", c->nr_idle);
		jsonw_uint_field(w, "floor_changes", c->nr_floor_changes);
		jsonw_uint_field(w, "pick_changes", c->nr_pick_changes);
		jsonw_uint_field(w, "too_deep", c->nr_too_deep);
		jsonw_uint_field(w, "too_shallow", c->nr_too_shallow);
		jsonw_uint_field(w, "gap_holds", c->nr_gap_holds);
		jsonw_uint_field(w, "long_polls", c->nr_long_polls);
		jsonw_float_field_fmt(w, "busy_ms", "%.1f", c->busy_ns / 1e6);
		jsonw_float_field_fmt(w, "idle_ms", "%.1f", c->idle_ns / 1e6);
		jsonw_float_field_fmt(w, "poll_ms", "%.1f", c->poll_ns / 1e6);
		jsonw_string_field(w, "next_timer", timer_src_name(c->timer_src));
		jsonw_uint_field(w, "timer_wakes", c->nr_timer_wakes);
		jsonw_uint_field(w, "ipi_wakes", c->nr_remote_wakes);
		jsonw_uint_field(w, "timer_cost_samples", c->nr_timer_samples);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_name(w, "tunables");
	jsonw_start_object(w);
	for (i = 0; i < tunable_count; i++)
		jsonw_uint_field(w, tunable_table[i].name, tunable_get(&s->cfg, &tunable_table[i]));
	jsonw_end_object(w);
	/* config.h: where each value came from (start/set record it) */
	json_str_or_null(w, "profile", gc->profile);
	json_str_or_null(w, "config_file", gc->file);
	jsonw_bool_field(w, "follow_ppd", gc->follow_ppd);
	json_str_or_null(w, "ppd_profile", gc->follow_ppd ? gc->ppd_profile : "");
	jsonw_name(w, "tunable_origins");
	jsonw_start_object(w);
	for (i = 0; i < tunable_count; i++)
		jsonw_string_field(w, tunable_table[i].name,
				   cfg_origin_name(i < CFG_MAX_TUNABLES ? gc->origin[i]
						   : ORIGIN_DEFAULT));
	jsonw_end_object(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

static void status_text(const struct snapshot *s, pid_t owner, const char *act,
			const struct gov_config *gc)
{
	__u64 up = mono_ns() - s->ctl.started_ns, ev_drops = 0, tap_drops = 0;
	size_t i;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		ev_drops += s->cpus[cpu].rb_drops;
		tap_drops += s->cpus[cpu].tap_drops;
	}
	printf("bpfgov running: pid %d, mode %s, up %.1f s, %d CPUs\n", (int)owner,
	       mode_name(s->ctl.mode), up / 1e9, s->nr_cpus);
	printf("drops: events %llu, tap %llu; tap reader: %s\n", (unsigned long long)ev_drops,
	       (unsigned long long)tap_drops, s->ctl.tap_owner_pid ? "attached" : "none");
	printf("actuator: %s\n", act ? act : "(no status published yet)");
	printf("next timer: %s%s\n", timer_src_name(snapshot_timer_src(s)),
	       snapshot_timer_src(s) ? "" : " (idle choice from history alone)");
	printf("%4s %5s %6s %5s %-10s %5s %4s %-9s %10s %9s %9s %9s\n", "CPU", "UTIL", "TARGET",
	       "FLOOR", "WHY", "HOLD", "PICK", "WHY", "EXP_IDLEus", "COST1_us", "TOO_DEEP",
	       "SHALLOW");
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		const struct bpfgov_cpu_state *c = &s->cpus[cpu];

		printf("%4d %5u %6u %5u %-10s %5u %4u %-9s %10.1f %9.1f %9llu %9llu\n", cpu, c->util,
		       c->target, c->floor, ev_reason_name(c->floor_reason), c->hold_floor,
		       c->idle_pick, ev_reason_name(c->pick_reason), c->expected_idle_ns / 1000.0,
		       c->wake_cost_ns[1] / 1000.0, (unsigned long long)c->nr_too_deep,
		       (unsigned long long)c->nr_too_shallow);
	}
	printf("config: profile %s, file %s\n", gc->profile[0] ? gc->profile : "?",
	       gc->file[0] ? gc->file : "none");
	if (gc->follow_ppd)
		printf("power-profiles-daemon: followed, active profile %s\n",
		       gc->ppd_profile[0] ? gc->ppd_profile : "unknown (not running)");
	printf("tunables (origin in brackets):");
	for (i = 0; i < tunable_count; i++)
		printf("%s%s=%u [%s]", i % 4 ? "  " : "\n  ", tunable_table[i].name,
		       tunable_get(&s->cfg, &tunable_table[i]),
		       cfg_origin_name(i < CFG_MAX_TUNABLES ? gc->origin[i] : ORIGIN_DEFAULT));
	printf("\n");
}

int do_status(int argc, char **argv)
{
	struct cli_opts o = {};
	struct gov_config gc = {};
	struct snapshot s;
	char path[PATH_MAX], *act;
	pid_t owner;
	int err = cli_parse("status", status_usage, argc, argv, "pin-root json", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	err = check_running(o.pin_root, &owner);
	if (err) {
		if (o.json && err == EXIT_NOT_RUNNING) {
			json_writer_t *w = jsonw_new(stdout);

			if (w) {
				jsonw_start_object(w);
				jsonw_bool_field(w, "running", false);
				jsonw_end_object(w);
				jsonw_destroy(&w);
			}
		}
		return err;
	}
	err = snapshot_read(o.pin_root, &s);
	if (err) {
		pr_warn("cannot read the pinned maps under %s: %s\n", o.pin_root, strerror(-err));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", gov_run_dir(), GOV_STATUS_FILE);
	act = read_file(path);
	cfg_origins_read(gov_run_dir(), &gc);	/* missing: all "default" */
	if (o.json)
		status_json(&s, owner, act, &gc);
	else
		status_text(&s, owner, act, &gc);
	free(act);
	free(s.cpus);
	return 0;
}

/* ---------------------------------------------------------------- tail */

static const char tail_usage[] =
"Usage: govloader tail [--json] [--cpu N] [--count N] [--all] [--time wall|rel]\n"
"                     [--pin-root DIR]\n"
"Stream live decisions of the running instance. It reads its own ring\n"
"buffer ('tap'), so it never takes records 'start' needs to actuate. Each\n"
"line starts with the record's CLOCK_MONOTONIC seconds.\n"
"  --json            one JSON object per record (ts_ns: monotonic)\n"
"  --cpu N           only CPU N\n"
"  --all             also per-event detail: idle exits, busy runs, idle gaps,\n"
"                    wake latencies\n"
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
		fprintf(f, "%14.6f cpu%-3u %-9s %-10s util %4u floor %4u pick %u dur %.1fus\n",
			e->ts_ns / 1e9, e->cpu, ev_kind_name(e->kind), ev_reason_name(e->reason),
			e->util, e->floor, e->idle_pick, e->dur_ns / 1000.0);
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
	int err = cli_parse("tail", tail_usage, argc, argv, "pin-root json cpu count all time", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
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

/* ---------------------------------------------------------------- dump */

static const char dump_usage[] =
"Usage: govloader dump [--pin-root DIR]\n"
"Print the pinned maps (tunables, control, cpu_state) with their BTF field\n"
"names, like 'bpftool map dump pinned DIR/cpu_state'.\n";

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	(void)ctx;
	vprintf(fmt, args);
}

static int dump_map(const char *pin_root, const char *name)
{
	LIBBPF_OPTS(btf_dump_type_data_opts, dopts, .compact = false, .emit_zeroes = true);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key;
	struct btf_dump *d = NULL;
	struct btf *btf = NULL;
	void *val = NULL;
	int fd, err = 0;

	fd = pins_open_map(pin_root, name);
	if (fd < 0)
		return fd;
	if (bpf_map_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		err = -errno;
		goto out;
	}
	d = btf_dump__new(btf, dump_printf, NULL, NULL);
	val = calloc(1, info.value_size);
	if (!d || !val) {
		err = -ENOMEM;
		goto out;
	}
	printf("== %s (%u entries)\n", name, info.max_entries);
	for (key = 0; key < info.max_entries; key++) {
		if (bpf_map_lookup_elem(fd, &key, val)) {
			err = -errno;
			goto out;
		}
		printf("[%u] = ", key);
		err = btf_dump__dump_type_data(d, info.btf_value_type_id, val, info.value_size, &dopts);
		printf("\n");
		if (err < 0)
			goto out;
		err = 0;
	}
out:
	free(val);
	btf_dump__free(d);
	btf__free(btf);
	close(fd);
	return err;
}

int do_dump(int argc, char **argv)
{
	static const char *const maps[] = { "tunables", "control", "cpu_state", NULL };
	struct cli_opts o = {};
	pid_t owner;
	int i, err = cli_parse("dump", dump_usage, argc, argv, "pin-root", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (!pins_present(o.pin_root)) {
		pr_warn("nothing pinned under %s: bpfgov is not running\n", o.pin_root);
		return EXIT_NOT_RUNNING;
	}
	owner = gov_lock_owner();
	if (!owner)
		pr_warn("note: no live owner; these pins are stale\n");
	for (i = 0; maps[i]; i++) {
		err = dump_map(o.pin_root, maps[i]);
		if (err) {
			pr_warn("cannot dump %s/%s: %s\n", o.pin_root, maps[i], strerror(-err));
			return 1;
		}
	}
	return 0;
}
