// SPDX-License-Identifier: GPL-2.0
/* govloader status: the running instance's state, as text or JSON. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "json_writer.h"
#include "kfeat.h"
#include "log.h"
#include "state.h"
#include "tunables.h"
#include "util.h"
#include "govloader_cmds.h"

static const char status_usage[] =
"Usage: govloader status [--json] [--pin-root DIR]\n"
"Whether bpfgov runs, its mode, per-CPU util / floor / idle pick, actuator\n"
"state, drops and the effective tunables. Exit 3 if it does not run.\n"
"  --json           one JSON object on one line (all counters, stable fields)\n"
"  --pin-root DIR   where the maps are pinned (" DEFAULT_PIN_ROOT ")\n"
"\n"
"The per-CPU table:\n"
"  CPU          CPU number ('*': the CPU this status command ran on; its own\n"
"               run counts in that CPU's UTIL)\n"
"  UTIL         smoothed utilization now, 0..1024 (rises with tau_rise_us,\n"
"               falls with tau_fall_us); start's summary line shows the same\n"
"  TARGET       UTIL * headroom_pct / 100, clamped to [floor_min, floor_max]\n"
"  FLOOR        the performance floor decided, 0..1024 of the highest level\n"
"  FLOOR_WHY    why the floor last changed: util_rise, util_fall, gap_hold\n"
"               (kept up by the gap memory), hold_end (the gap memory let go),\n"
"               idle_decay (lowered while the CPU slept), none\n"
"  HOLD         gap memory: the floor may not fall below this (0: none held)\n"
"  PICK         the idle state picked (cpuidle state index)\n"
"  PICK_WHY     why the pick last changed: history (idle-length history),\n"
"               long_poll (a long poll was seen), qos (PM QoS latency limit),\n"
"               cost (a measured wake-up cost changed), fixed (the one state\n"
"               the CPU has: no cpuidle driver), none\n"
"  EXP_IDLE_us  expected length of the next idle period, microseconds\n"
"  TOO_DEEP     idle periods shorter than the entered state's payback\n"
"  SHALLOW      idle periods long enough for a deeper allowed state\n"
"  HW_MIN       the floor as written to the hardware (backend units; -: none)\n"
"  WRITES       floor and idle writes made for this CPU\n"
"  COST_us      measured wake-up cost of each idle state, state 0 first,\n"
"               microseconds ('-': not measured yet)\n";

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

static void status_json(const struct snapshot *s, pid_t owner)
{
	__u64 up = mono_ns() - s->ctl.started_ns, ev_drops = 0, tap_drops = 0;
	json_writer_t *w = jsonw_new(stdout);
	struct kfeat kf;
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
	/* the loader's state map, as start's --report shows it */
	jsonw_name(w, "actuator");
	state_json(w, s->ld);
	jsonw_string_field(w, "next_timer", timer_src_name(snapshot_timer_src(s)));
	kfeat_read(NULL, &kf);
	jsonw_string_field(w, "next_timer_read",
			   s->ctl.mode == BPFGOV_MODE_TRACE ? kfeat_next_timer(&kf) : NULL);
	/* the idle table the programs were given (the tunables' state_*) */
	jsonw_name(w, "idle_states");
	jsonw_start_array(w);
	for (k = 0; k < (int)s->cfg.nr_states && k < BPFGOV_MAX_STATES; k++) {
		jsonw_start_object(w);
		jsonw_int_field(w, "state", k);
		jsonw_uint_field(w, "exit_latency_us", s->cfg.state_exit_latency_us[k]);
		jsonw_uint_field(w, "residency_us", s->cfg.state_residency_us[k]);
		jsonw_bool_field(w, "poll", s->cfg.state_is_poll[k]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
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
		/* the kernel's poll time limit as learned here (null: no poll
		 * ran into it yet) */
		jsonw_name(w, "poll_limit_us");
		if (c->poll_limit_ns)
			jsonw_float_fmt(w, "%.1f", c->poll_limit_ns / 1000.0);
		else
			jsonw_null(w);
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
	/* where each value came from (start, set and PPD record it) */
	json_str_or_null(w, "profile", s->ld->profile);
	json_str_or_null(w, "config_file", s->ld->config_file);
	jsonw_bool_field(w, "follow_ppd", s->ld->follow_ppd);
	json_str_or_null(w, "ppd_profile", s->ld->follow_ppd ? s->ld->ppd_profile : "");
	jsonw_name(w, "tunable_origins");
	jsonw_start_object(w);
	for (i = 0; i < tunable_count; i++)
		jsonw_string_field(w, tunable_table[i].name,
				   cfg_origin_name((enum cfg_origin)state_origin(s->ld, i)));
	jsonw_end_object(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}

#define STATUS_WIDTH	160

/* "@label: @text", broken after "; " so that no line is longer than
 * STATUS_WIDTH; continuation lines are indented by two. */
static void status_wrapped(const char *label, const char *text)
{
	size_t col, len, ind = strlen(label) + 2;
	const char *p = text, *next;

	printf("%s: ", label);
	col = ind;
	while (*p) {
		next = strstr(p, "; ");
		len = next ? (size_t)(next - p) + 1 : strlen(p);
		if (col > ind && col + len + 1 > STATUS_WIDTH) {
			printf("\n  ");
			col = 2;
		} else if (col > ind) {
			putchar(' ');
			col++;
		}
		/* a single piece wider than the line: cut, it is a summary */
		if (col + len > STATUS_WIDTH)
			len = STATUS_WIDTH - col;
		printf("%.*s", (int)len, p);
		col += len;
		p = next ? next + 2 : p + strlen(p);
	}
	putchar('\n');
}

/* A per-CPU counter of the loader's, summed over its CPUs. */
static __u64 status_sum(const struct bpfgov_loader_state *ld, size_t off)
{
	__u64 n = 0, v;
	__u32 cpu;

	for (cpu = 0; cpu < ld->nr_cpus && cpu < BPFGOV_MAX_CPUS; cpu++) {
		memcpy(&v, (const char *)&ld->cpu[cpu] + off, sizeof(v));
		n += v;
	}
	return n;
}

/* What the loader applied, in a few readable lines. */
static void status_actuator(const struct bpfgov_loader_state *ld)
{
	char line[1100];

	snprintf(line, sizeof(line), "%s: %s%s%s", ld->backend, ld->backend_reason,
		 ld->dry_run ? "; dry run: nothing is written" : "",
		 ld->taints_kernel ? "; every MSR write taints the kernel" : "");
	status_wrapped("floor backend", line);
	printf("decisions: %llu (floors %llu, picks %llu), actuation errors %llu, sequence gaps %llu\n",
	       (unsigned long long)ld->decisions, (unsigned long long)ld->floor_decisions,
	       (unsigned long long)ld->pick_decisions, (unsigned long long)ld->actuation_errors,
	       (unsigned long long)ld->seq_gaps);
	printf("the loader's own cost: %llu wake-ups, %.3f s of CPU time\n",
	       (unsigned long long)ld->loop_wakeups, ld->loader_cpu_ns / 1e9);
	printf("decision to write: p50 %.1f us, p99 %.1f us, max %.1f us (%llu samples)\n",
	       state_lat_quantile(&ld->lat, 0.50), state_lat_quantile(&ld->lat, 0.99),
	       ld->lat.max_ns / 1000.0, (unsigned long long)state_lat_count(&ld->lat));
	printf("writes that reached an idle CPU: %llu (and %llu that may have: it slept or woke "
	       "within the write)\n", (unsigned long long)ld->idle_cpu_writes,
	       (unsigned long long)ld->idle_cpu_writes_maybe);
	printf("floor changes held for idle CPUs: %llu (applied as their CPU ran: %llu)\n",
	       (unsigned long long)ld->deferred_floor_changes,
	       (unsigned long long)ld->held_applied_at_wake);
	printf("re-asserts held for idle CPUs, made as they ran: %llu\n",
	       (unsigned long long)ld->held_reasserts);
	printf("held re-asserts made on a CPU idle again, its runs shorter than the loader's "
	       "wake-up: %llu\n", (unsigned long long)ld->held_forced);
	printf("held floors of such a CPU, left to a check that finds it running: %llu\n",
	       (unsigned long long)ld->held_floor_waits);
	printf("re-applies after online/resume: %llu\n", (unsigned long long)ld->reapplies);
	printf("floor register rewritten by its driver under bpfgov: %llu "
	       "(during a write of ours, its fields kept and our min written again: %llu)\n",
	       (unsigned long long)status_sum(ld, offsetof(struct bpfgov_loader_cpu, driver_rewrites)),
	       (unsigned long long)status_sum(ld, offsetof(struct bpfgov_loader_cpu, driver_races)));
	if (ld->platform_summary[0])
		status_wrapped("platform", ld->platform_summary);
}

static void status_text(const struct snapshot *s, pid_t owner)
{
	__u64 now = mono_ns(), up = now - s->ctl.started_ns, ev_drops = 0, tap_drops = 0;
	const struct bpfgov_loader_state *ld = s->ld;
	int cpu, k, here = sched_getcpu();
	struct kfeat kf;
	char hw[16];
	size_t i;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		ev_drops += s->cpus[cpu].rb_drops;
		tap_drops += s->cpus[cpu].tap_drops;
	}
	printf("bpfgov running: pid %d, mode %s, up %.1f s, %d CPUs\n", (int)owner,
	       mode_name(s->ctl.mode), up / 1e9, s->nr_cpus);
	printf("drops: events %llu, tap %llu; tap reader: %s\n", (unsigned long long)ev_drops,
	       (unsigned long long)tap_drops, s->ctl.tap_owner_pid ? "attached" : "none");
	status_actuator(ld);
	printf("idle states: %u (exit latency/target residency, us):", s->cfg.nr_states);
	for (k = 0; k < (int)s->cfg.nr_states && k < BPFGOV_MAX_STATES; k++)
		printf(" %d:%u/%u%s", k, s->cfg.state_exit_latency_us[k], s->cfg.state_residency_us[k],
		       s->cfg.state_is_poll[k] ? " poll" : "");
	putchar('\n');
	printf("cpuidle: driver %s, picks applied inside the %s governor\n",
	       ld->idle_driver[0] ? ld->idle_driver : "unknown",
	       ld->idle_governor[0] ? ld->idle_governor : "unknown");
	printf("next timer: %s%s\n", timer_src_name(snapshot_timer_src(s)),
	       snapshot_timer_src(s) ? "" : " (idle choice from history alone)");
	if (s->ctl.mode == BPFGOV_MODE_TRACE) {
		kfeat_read(NULL, &kf);
		printf("next timer read: %s\n", kfeat_next_timer(&kf));
	}
	printf("%4s %5s %6s %5s %-10s %5s %4s %-9s %11s %9s %8s %6s %7s  %s\n", "CPU", "UTIL",
	       "TARGET", "FLOOR", "FLOOR_WHY", "HOLD", "PICK", "PICK_WHY", "EXP_IDLE_us",
	       "TOO_DEEP", "SHALLOW", "HW_MIN", "WRITES", "COST_us");
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		const struct bpfgov_cpu_state *c = &s->cpus[cpu];
		const struct bpfgov_loader_cpu *a = &ld->cpu[cpu < BPFGOV_MAX_CPUS ? cpu : 0];

		snprintf(hw, sizeof(hw), "%u", a->hw_min);
		printf("%3d%c %5u %6u %5u %-10s %5u %4u %-9s %11.1f %9llu %8llu %6s %7llu ", cpu,
		       cpu == here ? '*' : ' ', gov_util_now(c, &s->cfg, now), c->target, c->floor,
		       ev_reason_name(c->floor_reason), c->hold_floor, c->idle_pick,
		       ev_reason_name(c->pick_reason), c->expected_idle_ns / 1000.0,
		       (unsigned long long)c->nr_too_deep, (unsigned long long)c->nr_too_shallow,
		       (__u32)cpu < ld->nr_cpus && a->hw_highest ? hw : "-",
		       (unsigned long long)((__u32)cpu < ld->nr_cpus ? a->writes : 0));
		for (k = 0; k < (int)s->cfg.nr_states && k < BPFGOV_MAX_STATES; k++) {
			if (c->wake_cost_ns[k])
				printf(" %.1f", c->wake_cost_ns[k] / 1000.0);
			else
				printf(" -");
		}
		if (!s->cfg.nr_states)
			printf(" -");
		putchar('\n');
	}
	printf("config: profile %s, file %s\n", ld->profile[0] ? ld->profile : "?",
	       ld->config_file[0] ? str_esc(ld->config_file) : "none");
	if (ld->follow_ppd)
		printf("power-profiles-daemon: followed, active profile %s\n",
		       ld->ppd_profile[0] ? ld->ppd_profile : "unknown (not running)");
	printf("tunables (origin in brackets):");
	for (i = 0; i < tunable_count; i++)
		printf("%s%s=%u [%s]", i % 4 ? "  " : "\n  ", tunable_table[i].name,
		       tunable_get(&s->cfg, &tunable_table[i]),
		       cfg_origin_name((enum cfg_origin)state_origin(ld, i)));
	printf("\n");
}

int do_status(int argc, char **argv)
{
	struct cli_opts o = {};
	struct snapshot s;
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
		free(s.cpus);
		free(s.ld);
		return 1;
	}
	if (o.json)
		status_json(&s, owner);
	else
		status_text(&s, owner);
	free(s.cpus);
	free(s.ld);
	return 0;
}
