// SPDX-License-Identifier: GPL-2.0
/*
 * What `govlab replay` prints: the table (policies as columns) and the
 * same numbers as JSON, from a replay_result of the engine (replay.c).
 */
#include <stdio.h>
#include <string.h>
#include "bpfgov.h"
#include "json_writer.h"
#include "replay_out.h"

/* -------------------------------------------------------------- output */

static void cell_u64(char *b, size_t n, int ok, __u64 v)
{
	if (ok)
		snprintf(b, n, "%llu", (unsigned long long)v);
	else
		snprintf(b, n, "-");
}

static void cell_f(char *b, size_t n, int ok, double v, int prec)
{
	if (ok)
		snprintf(b, n, "%.*f", prec, v);
	else
		snprintf(b, n, "-");
}

enum row_id {
	ROW_EDIST, ROW_LDIST, ROW_V_MENU, ROW_V_TEO, ROW_V_LADDER, ROW_V_HALTPOLL, ROW_ENERGY,
	ROW_DECISIONS, ROW_PICKS, ROW_PERIODS, ROW_DEEP, ROW_SHALLOW, ROW_MISS, ROW_WAKE_MS, ROW_WAKE_US,
	ROW_POLL_MS, ROW_POLL_PCT, ROW_FLOOR, ROW_LOW_MS, ROW_LOW_GAPS, ROW_CHANGES, ROW_DESIRED,
	ROW_WRITES, ROW_FL_E, ROW_FL_D, ROW_FL_SLOW, ROW_FL_LOCKS, ROW_FL_V_AUTO, ROW_FL_V_SU,
	ROW_FL_V_PASSIVE, ROW_FL_V_34, ROW_FL_V_78, ROW__MAX,
};

static const char *const row_names[ROW__MAX] = {
	"energy above oracle, % of a CPU", "latency above oracle, us/idle", "verdict vs menu",
	"verdict vs teo", "verdict vs ladder", "verdict vs haltpoll", "idle energy, % of a CPU",
	"idle decisions", "pick changes /CPU/s", "idle periods", "too deep", "too shallow", "misses % of periods",
	"wake latency paid ms", "mean wake latency us", "poll time ms", "poll % of idle",
	"mean floor /1024", "floor=0 <=30ms after gap<1ms, ms", "short gaps -> floor 0",
	"floor changes /s", "mean HWP desired /1024", "HWP request writes /s",
	"floor: energy above oracle, %", "floor: delay above oracle, us/busy",
	"floor: busy slower than oracle, %", "floor: locks at lowest / trials",
	"floor verdict vs hwp-auto", "floor verdict vs schedutil", "floor verdict vs hwp-passive",
	"floor verdict vs hwp-3/4", "floor verdict vs hwp-7/8",
};

static void cell_fl_verdict(char *b, size_t n, const struct replay_stats *s, int ref)
{
	snprintf(b, n, "%s", s->fl && s->fl_verdict[ref] >= 0 ?
		 judge_verdict_name(s->fl_verdict[ref]) : "-");
}

static void cell_verdict(char *b, size_t n, const struct replay_stats *s, int ref)
{
	snprintf(b, n, "%s", s->idle && s->verdict[ref] >= 0 ? judge_verdict_name(s->verdict[ref])
							      : "-");
}

static void row_cell(char *b, size_t n, int row, const struct replay_stats *s)
{
	double per = s->j.periods ? (double)s->j.periods : 1;

	switch (row) {
	case ROW_EDIST: cell_f(b, n, s->idle, s->energy_dist_pct, 2); break;
	case ROW_LDIST: cell_f(b, n, s->idle, s->latency_dist_us, 1); break;
	case ROW_V_MENU: cell_verdict(b, n, s, RP_MENU); break;
	case ROW_V_TEO: cell_verdict(b, n, s, RP_TEO); break;
	case ROW_V_LADDER: cell_verdict(b, n, s, RP_LADDER); break;
	case ROW_V_HALTPOLL: cell_verdict(b, n, s, RP_HALTPOLL); break;
	case ROW_ENERGY: cell_f(b, n, s->idle, s->energy_pct, 2); break;
	case ROW_DECISIONS: cell_u64(b, n, s->idle, s->decisions); break;
	case ROW_PICKS: cell_f(b, n, s->idle && s->bpf, s->pick_changes_per_cpu_s, 1); break;
	case ROW_PERIODS: cell_u64(b, n, s->idle, s->j.periods); break;
	case ROW_DEEP: cell_u64(b, n, s->idle, s->too_deep); break;
	case ROW_SHALLOW: cell_u64(b, n, s->idle, s->too_shallow); break;
	case ROW_MISS: cell_f(b, n, s->idle, 100.0 * (s->too_deep + s->too_shallow) / per, 1); break;
	case ROW_WAKE_MS: cell_f(b, n, s->idle, s->wake_lat_ns / 1e6, 1); break;
	case ROW_WAKE_US:
		cell_f(b, n, s->idle, s->wakeups ? s->wake_lat_ns / 1e3 / s->wakeups : 0, 1);
		break;
	case ROW_POLL_MS: cell_f(b, n, s->idle, s->poll_ns / 1e6, 1); break;
	case ROW_POLL_PCT:
		cell_f(b, n, s->idle, s->idle_ns ? 100.0 * s->poll_ns / s->idle_ns : 0, 1);
		break;
	case ROW_FLOOR: cell_f(b, n, s->freq, s->mean_floor, 0); break;
	case ROW_LOW_MS: cell_f(b, n, s->freq, s->lowest_after_gap_ns / 1e6, 1); break;
	case ROW_LOW_GAPS:
		if (s->freq)
			snprintf(b, n, "%llu/%llu", (unsigned long long)s->short_gaps_hit,
				 (unsigned long long)s->short_gaps);
		else
			snprintf(b, n, "-");
		break;
	case ROW_CHANGES: cell_f(b, n, s->freq, s->changes_per_s, 1); break;
	case ROW_DESIRED: cell_f(b, n, s->freq && s->passive, s->mean_desired, 0); break;
	case ROW_WRITES: cell_f(b, n, s->freq && s->passive, s->request_writes_per_s, 1); break;
	case ROW_FL_E: cell_f(b, n, s->fl, s->fl_energy_pct, 2); break;
	case ROW_FL_D: cell_f(b, n, s->fl, s->fl_delay_us, 1); break;
	case ROW_FL_SLOW: cell_f(b, n, s->fl, s->fl_slow_pct, 1); break;
	case ROW_FL_LOCKS:
		if (s->fl)
			snprintf(b, n, "%llu/%llu", (unsigned long long)s->fa.locks_low,
				 (unsigned long long)s->fa.locks);
		else
			snprintf(b, n, "-");
		break;
	case ROW_FL_V_AUTO: cell_fl_verdict(b, n, s, RP_HWP_AUTO); break;
	case ROW_FL_V_SU: cell_fl_verdict(b, n, s, RP_SCHEDUTIL); break;
	case ROW_FL_V_PASSIVE: cell_fl_verdict(b, n, s, RP_HWP_PASSIVE); break;
	case ROW_FL_V_34: cell_fl_verdict(b, n, s, RP_HWP_34); break;
	case ROW_FL_V_78: cell_fl_verdict(b, n, s, RP_HWP_78); break;
	}
}

static const char *const cost_src[] = { "table", "measured median", "header" };

static int col_width(int p)
{
	int w = (int)strlen(replay_policy_name(p));

	return w > 9 ? w : 9;
}

void replay_print_table(FILE *out, const char *file, const struct trace *t,
			const struct replay_opts *o, const struct replay_result *r)
{
	char cell[64], plat[512];

	fprintf(out, "trace    %s (%s)\n", file, t->source[0] ? t->source : "no source");
	fprintf(out, "span     %.3f s, %u CPUs, %zu records (%zu busy, %zu idle, %zu wake)\n",
		r->duration_s, r->nr_cpus, r->nr_recs, r->nr_busy, r->nr_idle, r->nr_wake);
	for (__u32 k = 0; k < t->nr_states; k++)
		fprintf(out, "state %u  %-10s table %u/%u us%s, wake-up cost %.1f us (%s)\n", k,
			t->states[k].name, t->states[k].exit_latency_us, t->states[k].residency_us,
			t->states[k].is_poll ? " poll" : "", r->cost_ns[k] / 1e3,
			cost_src[r->cost_from[k]]);
	fprintf(out, "models   tick %llu us, next timer for remote wakeups %llu us, schedutil rate limit %u us, hwp %u us, haltpoll %llu ns\n",
		(unsigned long long)(o->tick_ns / 1000), (unsigned long long)(o->timer_ns / 1000),
		o->sugov_rate_limit_us, o->hwp_rate_limit_us,
		(unsigned long long)o->hp.guest_halt_poll_ns);
	if (r->poll_limit_from == 2)
		fprintf(out, "polls    the kernel's poll time limit %.1f us (--poll-limit-us)\n",
			r->poll_limit_ns / 1e3);
	else if (r->poll_limit_from == 1)
		fprintf(out, "polls    the kernel's poll time limit %.1f us (median of the trace's %zu polls that ran into it)\n",
			r->poll_limit_ns / 1e3, r->nr_limit_polls);
	else
		fprintf(out, "polls    the kernel's poll time limit: the governor models' (cpuidle_poll_time(), haltpoll's window)\n");
	fprintf(out, "power    full power = polling = 1;");
	for (__u32 k = 0; k < t->nr_states; k++)
		fprintf(out, " %s %.3g", t->states[k].name, r->pm.frac[k]);
	fprintf(out, "; a wake-up costs its latency at full power\n");
	fprintf(out, "oracle   the state of least energy among those paid back (sleep >= max(target residency, cost x %u%%)): idle energy %.2f %% of a CPU, latency %.1f us/idle\n",
		o->judge_pct, r->oracle_energy_pct, r->oracle_latency_us);
	fprintf(out, "verdict  against each kernel model, ties within %.2f %% of a CPU and %.2f us/idle\n",
		o->tie_energy_pct, o->tie_latency_us);
	fprintf(out, "columns  bpfgov@GOV: bpfgov's pick as actuated under that kernel governor (PM QoS cap);\n"
		"         hwp-3/4, hwp-7/8: linux-pm proposals (HWP min = part of schedutil's target),\n"
		"         hwp-1: min = the whole target, not kernel paths; hwp-passive: the kernel's\n"
		"         intel_cpufreq_adjust_perf (min = bw_min, desired = target); hwp-auto: the\n"
		"         hardware alone (no floor); schedutil: a non-HWP driver (target = frequency)\n");
	fm_params_format(&o->fm, plat, sizeof(plat));
	fprintf(out, "floor    platform and power model: %s\n", plat);
	fprintf(out, "         oracle: each busy segment at max(%.0f MHz (least energy per cycle), work / time to the next segment); ties within %.2f %% of its energy and %.2f us/busy segment%s\n\n",
		r->fl_f_eff_mhz, o->fl_tie_energy_pct, r->fl_tie_delay_us,
		o->fl_tie_delay_us >= 0 ? "" : " (the same share of its busy time)");
	fprintf(out, "%-33s", "");
	for (int p = 0; p < RP__MAX; p++)
		if (o->policies & (1u << p))
			fprintf(out, " %*s", col_width(p), replay_policy_name(p));
	fputc('\n', out);
	for (int row = 0; row < ROW__MAX; row++) {
		fprintf(out, "%-33s", row_names[row]);
		for (int p = 0; p < RP__MAX; p++) {
			if (!(o->policies & (1u << p)))
				continue;
			row_cell(cell, sizeof(cell), row, &r->p[p]);
			fprintf(out, " %*s", col_width(p), cell);
		}
		fputc('\n', out);
	}
}

/* "references": the selected policies @is_ref accepts. */
static void json_refs(json_writer_t *w, const struct replay_opts *o, int (*is_ref)(int p))
{
	jsonw_name(w, "references");
	jsonw_start_array(w);
	for (int p = 0; p < RP__MAX; p++)
		if (is_ref(p) && (o->policies & (1u << p)))
			jsonw_string(w, replay_policy_name(p));
	jsonw_end_array(w);
}

/* @name: { reference: verdict } for the verdicts that apply. */
static void json_verdicts(json_writer_t *w, const char *name, const int *verdict)
{
	jsonw_name(w, name);
	jsonw_start_object(w);
	for (int q = 0; q < RP__MAX; q++)
		if (verdict[q] >= 0)
			jsonw_string_field(w, replay_policy_name(q), judge_verdict_name(verdict[q]));
	jsonw_end_object(w);
}

void replay_print_json(FILE *out, const char *file, const struct trace *t,
		       const struct replay_opts *o, const struct replay_result *r)
{
	json_writer_t *w = jsonw_new(out);

	if (!w)
		return;
	jsonw_start_object(w);
	jsonw_string_field(w, "trace", file);
	jsonw_string_field(w, "source", t->source);
	jsonw_float_field_fmt(w, "duration_s", "%.6f", r->duration_s);
	jsonw_uint_field(w, "nr_cpus", r->nr_cpus);
	jsonw_uint_field(w, "records", r->nr_recs);
	jsonw_name(w, "states");
	jsonw_start_array(w);
	for (__u32 k = 0; k < t->nr_states; k++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", t->states[k].name);
		jsonw_uint_field(w, "exit_latency_us", t->states[k].exit_latency_us);
		jsonw_uint_field(w, "residency_us", t->states[k].residency_us);
		jsonw_bool_field(w, "poll", t->states[k].is_poll);
		jsonw_uint_field(w, "cost_ns", r->cost_ns[k]);
		jsonw_string_field(w, "cost_from", cost_src[r->cost_from[k]]);
		jsonw_float_field_fmt(w, "power", "%.4f", r->pm.frac[k]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_uint_field(w, "poll_limit_ns", r->poll_limit_ns);
	jsonw_string_field(w, "poll_limit_from",
			   r->poll_limit_from == 2 ? "option" : r->poll_limit_from ? "trace" : "model");
	jsonw_uint_field(w, "limit_polls", r->nr_limit_polls);
	jsonw_name(w, "judge");
	jsonw_start_object(w);
	jsonw_name(w, "power_model");
	jsonw_start_array(w);
	for (__u32 k = 0; k < t->nr_states; k++)
		jsonw_float_fmt(w, "%.4f", r->pm.frac[k]);
	jsonw_end_array(w);
	jsonw_uint_field(w, "judge_pct", o->judge_pct);
	jsonw_float_field_fmt(w, "tie_energy_pct", "%.4f", o->tie_energy_pct);
	jsonw_float_field_fmt(w, "tie_latency_us", "%.4f", o->tie_latency_us);
	jsonw_uint_field(w, "span_ns", r->span_ns);
	jsonw_name(w, "oracle");
	jsonw_start_object(w);
	jsonw_float_field_fmt(w, "energy_pct", "%.4f", r->oracle_energy_pct);
	jsonw_float_field_fmt(w, "latency_us", "%.3f", r->oracle_latency_us);
	jsonw_end_object(w);
	json_refs(w, o, replay_policy_is_kernel_ref);
	jsonw_end_object(w);
	jsonw_name(w, "floor_judge");
	jsonw_start_object(w);
	{
		char plat[512];

		fm_params_format(&o->fm, plat, sizeof(plat));
		jsonw_string_field(w, "platform", plat);
	}
	jsonw_float_field_fmt(w, "oracle_f_eff_mhz", "%.1f", r->fl_f_eff_mhz);
	jsonw_float_field_fmt(w, "tie_energy_pct", "%.4f", o->fl_tie_energy_pct);
	jsonw_float_field_fmt(w, "tie_delay_us", "%.4f", r->fl_tie_delay_us);
	jsonw_string_field(w, "tie_delay_rule", o->fl_tie_delay_us >= 0 ? "absolute" : "relative");
	jsonw_float_field_fmt(w, "oracle_busy_us", "%.3f", r->fl_oracle_busy_us);
	json_refs(w, o, replay_policy_is_floor_ref);
	jsonw_end_object(w);
	jsonw_name(w, "models");
	jsonw_start_object(w);
	jsonw_uint_field(w, "tick_us", o->tick_ns / 1000);
	jsonw_uint_field(w, "timer_us", o->timer_ns / 1000);
	jsonw_uint_field(w, "schedutil_rate_limit_us", o->sugov_rate_limit_us);
	jsonw_uint_field(w, "hwp_rate_limit_us", o->hwp_rate_limit_us);
	jsonw_uint_field(w, "haltpoll_ns", o->hp.guest_halt_poll_ns);
	jsonw_uint_field(w, "judge_pct", o->judge_pct);
	jsonw_end_object(w);
	jsonw_name(w, "policies");
	jsonw_start_object(w);
	for (int p = 0; p < RP__MAX; p++) {
		const struct replay_stats *s = &r->p[p];

		if (!(o->policies & (1u << p)))
			continue;
		jsonw_name(w, replay_policy_name(p));
		jsonw_start_object(w);
		if (s->idle) {
			jsonw_name(w, "idle");
			jsonw_start_object(w);
			jsonw_uint_field(w, "decisions", s->decisions);
			if (s->bpf)
				jsonw_float_field_fmt(w, "pick_changes_per_cpu_s", "%.2f",
						      s->pick_changes_per_cpu_s);
			jsonw_uint_field(w, "too_deep", s->too_deep);
			jsonw_uint_field(w, "too_shallow", s->too_shallow);
			jsonw_uint_field(w, "wakeups", s->wakeups);
			jsonw_uint_field(w, "wake_latency_ns", s->wake_lat_ns);
			jsonw_uint_field(w, "poll_ns", s->poll_ns);
			jsonw_uint_field(w, "idle_ns", s->idle_ns);
			jsonw_name(w, "state_use");
			jsonw_start_array(w);
			for (__u32 k = 0; k < t->nr_states; k++)
				jsonw_uint(w, s->state_use[k]);
			jsonw_end_array(w);
			jsonw_uint_field(w, "periods", s->j.periods);
			jsonw_float_field_fmt(w, "energy_pct", "%.4f", s->energy_pct);
			jsonw_float_field_fmt(w, "energy_distance_pct", "%.4f", s->energy_dist_pct);
			jsonw_float_field_fmt(w, "latency_distance_us", "%.3f", s->latency_dist_us);
			json_verdicts(w, "verdicts", s->verdict);
			jsonw_end_object(w);
		} else {
			jsonw_null_field(w, "idle");
		}
		if (s->freq) {
			jsonw_name(w, "freq");
			jsonw_start_object(w);
			jsonw_float_field_fmt(w, "mean_floor", "%.2f", s->mean_floor);
			jsonw_uint_field(w, "lowest_after_short_gap_ns", s->lowest_after_gap_ns);
			jsonw_uint_field(w, "short_gaps", s->short_gaps);
			jsonw_uint_field(w, "short_gaps_to_lowest", s->short_gaps_hit);
			jsonw_uint_field(w, "floor_changes", s->floor_changes);
			jsonw_float_field_fmt(w, "floor_changes_per_s", "%.3f", s->changes_per_s);
			jsonw_uint_field(w, "busy_segments", s->fa.segments);
			jsonw_float_field_fmt(w, "energy_above_oracle_pct", "%.4f", s->fl_energy_pct);
			jsonw_float_field_fmt(w, "delay_above_oracle_us", "%.3f", s->fl_delay_us);
			jsonw_float_field_fmt(w, "slowdown_pct", "%.3f", s->fl_slow_pct);
			jsonw_uint_field(w, "floor_writes", s->fa.writes);
			jsonw_uint_field(w, "locks", s->fa.locks);
			jsonw_uint_field(w, "locks_at_lowest", s->fa.locks_low);
			json_verdicts(w, "floor_verdicts", s->fl_verdict);
			if (s->passive) {
				jsonw_float_field_fmt(w, "mean_desired", "%.2f", s->mean_desired);
				jsonw_uint_field(w, "request_writes", s->request_writes);
				jsonw_float_field_fmt(w, "request_writes_per_s", "%.3f",
						      s->request_writes_per_s);
			}
			jsonw_end_object(w);
		} else {
			jsonw_null_field(w, "freq");
		}
		jsonw_end_object(w);
	}
	jsonw_end_object(w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
}
