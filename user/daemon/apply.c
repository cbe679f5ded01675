// SPDX-License-Identifier: GPL-2.0
/*
 * The application of a decision: a floor written now, or held until an idle CPU
 * runs (no actuation wakes a sleeping CPU), and the idle pick.
 */
#include <sched.h>
#include <stdbool.h>
#include "bpfgov.h"
#include "actuate.h"
#include "common.h"
#include "log.h"
#include "metrics.h"
#include "util.h"
#include "daemon.h"

/*
 * Ask @cpu's next busy run for a floor record (cpu_state.floor_held,
 * through the writable mapping; the short wake-up path's gate is closed,
 * so that the wake-up takes the full path that sees it). Without the
 * mapping, the floor waits for the loop's once-a-second check. Then the
 * CPU's state again: false when it runs already (the record may have
 * gone before the word was seen: apply now).
 */
static bool floor_hold(struct gov *g, __u32 cpu)
{
	struct bpfgov_cpu_state *m, s;

	if (!g->cpu_mm || cpu >= (__u32)g->nr_cpus)
		return true;
	m = (struct bpfgov_cpu_state *)((char *)g->cpu_mm + cpu * CPU_STATE_STRIDE);
	__atomic_store_n(&m->floor_held, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&m->fast_until_ns, 0, __ATOMIC_SEQ_CST);
	return bpfs_cpu_idle(g, cpu, &s);
}

/*
 * Whether a write made between @t0 and @t1 reached @cpu idle, from its
 * state read after the write: 2 when it slept through the whole write
 * (idle since before @t0), 1 when it may have (idle since within the
 * write, or running since after @t0: idle at @t0), 0 when it ran
 * throughout. A CPU that slept at any moment of the write is never
 * missed, whatever the timing of the reads.
 */
static int write_hit_idle(const struct gov *g, __u32 cpu, __u64 t0, __u64 t1)
{
	struct bpfgov_cpu_state t;

	if (bpfs_read_cpu(g, cpu, &t))
		return 0;
	if (!t.busy && t.idle_since_ns)
		return t.idle_since_ns <= t0 ? 2 : t.idle_since_ns < t1;
	return t.busy_since_ns > t0;
}

/*
 * A CPU idle (@s) again at its own record (its busy run began at @rec_ns):
 * the run ended before the loader, woken by the record, could act on it
 * (measured on the test host: runs of 20-120 us against a wake-up of
 * 30-130 us). true the second time within HOLD_RAN_NS (@last: the
 * previous such record, updated): the CPU's runs are all that short, and
 * asking its next run for a record again would only repeat this.
 */
#define HOLD_RAN_NS	10000000ull

static bool runs_too_short(__u64 *last, const struct bpfgov_cpu_state *s, __u64 rec_ns)
{
	__u64 prev = *last;

	/* the loop's check, or a record not of its own run */
	if (!rec_ns || s->idle_since_ns < rec_ns)
		return false;
	*last = rec_ns;
	return prev && rec_ns - prev <= HOLD_RAN_NS;
}

/*
 * No wake-ups by actuation: an MSR write and a cpufreq limit change run on
 * the target CPU (an IPI). A floor for a CPU that sleeps is never sent
 * to it: it waits until the CPU runs again, when the busy run's floor
 * record (floor_hold) wakes the loader. Writes that may still have reached
 * an idle CPU (it fell asleep between the test and the write) are counted
 * (write_hit_idle). 1 when the floor is held, 0 when applied.
 */
int apply_floor(struct gov *g, __u32 cpu, __u32 floor, __u64 rec_ns)
{
	struct bpfgov_cpu_state s;
	/* running here, the loader keeps its own CPU busy: no map lookup */
	bool self = (__u32)sched_getcpu() == cpu;
	__u64 w0 = act_writes(g->act, cpu), t0;
	int err;

	if (!self && bpfs_cpu_idle(g, cpu, &s)) {
		g->pend_floor[cpu] = floor;
		if (!g->pend[cpu])
			g->deferred++;
		g->pend[cpu] = true;
		/* A CPU whose runs all end before the loader comes is not
		 * asked again: each run would wake the loader for nothing
		 * (in the counted sched_ext guest, a pinned ping-pong's CPU
		 * drew floor records 46 us apart, 2,100 to 4,600 a second).
		 * Its floor waits for a check that finds it running: the
		 * loop's, at least once a second, or one of its records. */
		if (runs_too_short(&g->floor_ran_ns[cpu], &s, rec_ns)) {
			g->held_floor_waits++;
			return 1;
		}
		if (floor_hold(g, cpu))
			return 1;
	}
	g->held_applied += g->pend[cpu];
	g->pend[cpu] = false;
	g->floor_ran_ns[cpu] = 0;
	t0 = mono_ns();
	err = act_set_floor(g->act, cpu, floor);
	if (!self && act_writes(g->act, cpu) != w0) {
		int hit = write_hit_idle(g, cpu, t0, mono_ns());

		g->idle_cpu_writes += hit == 2;
		g->idle_cpu_writes_maybe += hit == 1;
		g->st->cpu[cpu].idle_writes += hit == 2;
		g->st->cpu[cpu].idle_writes_maybe += hit == 1;
	}
	return err;
}

/*
 * A held re-assert of a CPU whose runs are too short to be caught
 * (runs_too_short) is made all the same: a CPU whose runs are all that
 * short would keep the driver's min for good. One IPI to a CPU that wakes
 * that often anyway, at most one a second (the re-assert's period),
 * counted in held_forced. A held floor is not forced (apply_floor):
 * measured on a machine left quiet, daemons' bursts of short runs drew a
 * raise of a quarter of the range about once a second per CPU, whose
 * forced write then left a high min standing until a run was caught for
 * its fall. true: re-assert now.
 */
static bool hold_runs_out(struct gov *g, __u32 cpu, const struct bpfgov_cpu_state *s,
			  __u64 rec_ns)
{
	if (!runs_too_short(&g->hold_ran_ns[cpu], s, rec_ns))
		return false;
	g->held_forced++;
	return true;
}

/* A re-assert held for @cpu, now if it runs (or its runs are too short to
 * be caught: hold_runs_out); if it sleeps, its next busy run is asked for
 * a record again (floor_hold). @rec_ns: the CPU's own record that brought
 * it here (0: the loop's check). */
static void reassert_held(struct gov *g, __u32 cpu, __u64 rec_ns)
{
	struct bpfgov_cpu_state s;

	if (bpfs_cpu_idle(g, cpu, &s) && !hold_runs_out(g, cpu, &s, rec_ns) &&
	    floor_hold(g, cpu))
		return;
	g->re_pend[cpu] = false;
	g->hold_ran_ns[cpu] = 0;
	g->held_reasserts++;
	if (act_reassert_cpu(g->act, cpu) < 0)
		g->act_errors++;
}

/* Held floors and re-asserts of CPUs that run again (the loop's check at
 * every wake-up, and a CPU's own pick record). */
void apply_flush(struct gov *g)
{
	struct bpfgov_cpu_state s;

	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++) {
		if (!g->pend[cpu] && !g->re_pend[cpu])
			continue;
		if (bpfs_cpu_idle(g, cpu, &s))
			continue;
		if (g->pend[cpu] && apply_floor(g, cpu, g->pend_floor[cpu], 0) < 0)
			g->act_errors++;
		if (g->re_pend[cpu])
			reassert_held(g, cpu, 0);
	}
}

/* A floor record: the floor applied, or held for a sleeping CPU (1). */
static int floor_record(struct gov *g, const struct bpfgov_event *e)
{
	bool held = g->pend[e->cpu];
	int err = apply_floor(g, e->cpu, e->floor, e->ts_ns);

	if (held && !err && !g->pend[e->cpu]) {
		/* from the record (the CPU's wake-up, or a newer decision)
		 * to the floor in place */
		__u64 d = mono_ns() - e->ts_ns;

		g->held_wake_ns_max = d > g->held_wake_ns_max ? d : g->held_wake_ns_max;
		g->held_wake_2ms += d <= 2000000ull;
	}
	return err;
}

int apply_event(void *ctx, void *data, size_t size)
{
	const struct bpfgov_event *e = data;
	struct gov *g = ctx;
	int err = 0;

	if (size < sizeof(*e) || e->cpu >= (__u32)g->nr_cpus)
		return 0;
	g->decisions++;
	if (g->last_seq[e->cpu] && e->seq != g->last_seq[e->cpu] + 1)
		g->seq_gaps++;
	g->last_seq[e->cpu] = e->seq;
	if (e->kind == BPFGOV_EV_FLOOR) {
		g->floor_dec++;
		err = g->o->no_floor ? 0 : floor_record(g, e);
		if (g->re_pend[e->cpu])	/* the record it was asked for */
			reassert_held(g, e->cpu, e->ts_ns);
		/* held for a sleeping CPU (not a write now), or no floor */
		if (err > 0 || g->o->no_floor)
			return 0;
	} else if (e->kind == BPFGOV_EV_PICK) {
		g->pick_dec++;
		/* the CPU's own event: it runs */
		if (g->pend[e->cpu] || g->re_pend[e->cpu])
			apply_flush(g);
		if (g->o->no_idle)
			return 0;
		err = act_set_idle_poll(g->act, e->cpu, e->idle_pick, e->arg0 == 1, &g->cfg);
	} else {
		return 0;
	}
	if (err)
		g->act_errors++;
	else
		lat_add(g, e->ts_ns, e->cpu);
	pr_debug("cpu%u %s %s util=%u floor=%u pick=%u\n", e->cpu, ev_kind_name(e->kind),
		 ev_reason_name(e->reason), e->util, e->floor, e->idle_pick);
	return 0;
}

/* Re-assert what others rewrote, except on idle CPUs (a write would wake
 * them): theirs is held, and their next busy run is asked for a record
 * (floor_hold), on which it is made. */
void apply_reassert(struct gov *g)
{
	struct bpfgov_cpu_state s;

	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++)
		g->re_pend[cpu] = bpfs_cpu_idle(g, cpu, &s) && floor_hold(g, cpu);
	act_reassert_skip(g->act, g->re_pend);
}

/* After resume or CPU online the drivers rewrote their registers from
 * their own copies: apply every CPU's current floor and pick again now
 * (an idle CPU's floor waits until it runs, as always). */
void apply_all(struct gov *g)
{
	struct bpfgov_cpu_state s;

	g->reapplies++;
	if (act_reapply(g->act) < 0)
		g->act_errors++;
	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++) {
		if (bpfs_read_cpu(g, cpu, &s))
			continue;
		if (!g->o->no_floor && apply_floor(g, cpu, s.floor, 0) < 0)
			g->act_errors++;
		if (!g->o->no_idle && s.idle_pick != BPFGOV_NO_STATE &&
		    act_set_idle_poll(g->act, cpu, s.idle_pick, s.poll_ok == 1, &g->cfg))
			g->act_errors++;
	}
}
