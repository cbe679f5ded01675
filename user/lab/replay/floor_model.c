// SPDX-License-Identifier: GPL-2.0
/*
 * The floor judge: platform model, power model and hindsight oracle (see
 * floor_model.h for the definitions, docs/DESIGN.md for the sources).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "floor_model.h"
#include "util.h"

/*
 * Defaults. Power: the published V/f operating points of the Intel Pentium M
 * 1.6 GHz (130 nm): 600 MHz at 0.956 V ... 1.6 GHz at 1.484 V, a line
 * through the two ends (the four points between lie within 0.042 V of it).
 * The static share is illustrative (no public figure for that part).
 * Platform: the gap window, share of trials and lock length measured on an
 * i5-9600K under HWP (747-955 us, 86 of 511 trials, 29.8 ms); the
 * hardware's activity window and target are illustrative.
 */
void fm_params_default(struct fm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->f_lo_mhz = 600;
	p->f_max_mhz = 1600;
	p->v_min = 0.956;
	p->v_max = 1.484;
	p->static_frac = 0.3;
	p->hw_tau_us = 8000;
	p->hw_target = 0.5;
	p->lock_gap_lo_us = 747;
	p->lock_gap_hi_us = 955;
	p->lock_busy_us = 2000;
	p->lock_ms = 29.8;
	p->lock_pct = 100.0 * 86 / 511;
	p->seed = 1;
	p->write_local_us = 1;
	p->write_remote_us = 3;
	p->step_us = 50;
}

struct fm_key {
	const char *name;
	size_t off;
	double lo, hi;
};

#define K(n, f, a, b) { n, offsetof(struct fm_params, f), a, b }
static const struct fm_key keys[] = {
	K("f_lo_mhz", f_lo_mhz, 1, 1e5), K("f_max_mhz", f_max_mhz, 1, 1e5),
	K("v_min", v_min, 0.1, 5), K("v_max", v_max, 0.1, 5),
	K("static", static_frac, 0, 100), K("hw_tau_us", hw_tau_us, 1, 1e7),
	K("hw_target", hw_target, 0.01, 1), K("lock_gap_lo_us", lock_gap_lo_us, 0, 1e7),
	K("lock_gap_hi_us", lock_gap_hi_us, 0, 1e7), K("lock_busy_us", lock_busy_us, 0, 1e7),
	K("lock_ms", lock_ms, 0, 1e5), K("lock_pct", lock_pct, 0, 100),
	K("seed", seed, 0, 4294967295.0), K("write_local_us", write_local_us, 0, 1e4),
	K("write_remote_us", write_remote_us, 0, 1e4), K("step_us", step_us, 1, 1e5),
};
#undef K

static int fm_item(char *it, void *ctx, char *err, size_t errlen)
{
	struct fm_params *p = ctx;
	char *eq = strchr(it, '='), *end;
	const struct fm_key *k = NULL;
	double v;

	if (eq)
		*eq = '\0';
	for (size_t i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].name, it))
			k = &keys[i];
	if (!k) {
		snprintf(err, errlen, "--platform: '%s' is not KEY=VALUE with a known KEY (see --help)",
			 it);
		return -EINVAL;
	}
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !(v >= k->lo && v <= k->hi)) {
		snprintf(err, errlen, "--platform: %s=%s is not a number in [%g, %g]", it, eq + 1,
			 k->lo, k->hi);
		return -EINVAL;
	}
	*(double *)((char *)p + k->off) = v;
	return 0;
}

int fm_params_parse(struct fm_params *p, const char *spec, char *err, size_t errlen)
{
	int ret = spec_each(spec, "--platform", "KEY=VALUE[,...]", fm_item, p, err, errlen);

	if (!ret && (p->f_lo_mhz >= p->f_max_mhz || p->v_min > p->v_max ||
		     p->lock_gap_lo_us > p->lock_gap_hi_us)) {
		snprintf(err, errlen,
			 "--platform: need f_lo_mhz < f_max_mhz, v_min <= v_max, lock_gap_lo_us <= lock_gap_hi_us");
		ret = -EINVAL;
	}
	return ret;
}

void fm_params_format(const struct fm_params *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s=%g", i ? "," : "", keys[i].name,
				 *(const double *)((const char *)p + keys[i].off));

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

double fm_voltage(const struct fm_params *p, double f)
{
	if (f <= p->f_lo_mhz)
		return p->v_min;
	return p->v_min + (p->v_max - p->v_min) * (f - p->f_lo_mhz) / (p->f_max_mhz - p->f_lo_mhz);
}

double fm_power(const struct fm_params *p, double f)
{
	double v = fm_voltage(p, f), vm = p->v_max;

	return p->static_frac * p->f_max_mhz * vm * vm + f * v * v;
}

double fm_f_eff(const struct fm_params *p)
{
	double best = p->f_lo_mhz, best_e = fm_power(p, best) / best;

	for (int i = 1; i <= 1000; i++) {
		double f = p->f_lo_mhz + (p->f_max_mhz - p->f_lo_mhz) * i / 1000.0;
		double e = fm_power(p, f) / f;

		if (e < best_e) {
			best_e = e;
			best = f;
		}
	}
	return best;
}

/* f_eff as a floor of bpfgov's scale (/1024 of [f_lo, f_max]), rounded up:
 * what the loader reads from HWP_CAPABILITIES / CPPC_CAP1 on a real part. */
__u32 fm_eff_level(const struct fm_params *p)
{
	double x = (fm_f_eff(p) - p->f_lo_mhz) * 1024.0 / (p->f_max_mhz - p->f_lo_mhz);

	return x <= 0 ? 0 : x >= 1024 ? 1024 : (__u32)ceil(x);
}

/* splitmix64: one trial per (seed, cpu, segment), the same for every policy. */
static __u64 mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void fm_mark_locks(const struct fm_params *p, struct fm_seg *s, size_t n, __u32 cpu)
{
	__u64 run = 0;	/* the busy run before the gap: back-to-back segments are one */

	for (size_t i = 0; i < n; i++) {
		__u64 prev_end, gap;

		s[i].lock = 0;
		if (!i)
			continue;
		prev_end = s[i - 1].start_ns + s[i - 1].dur_ns;
		gap = s[i].start_ns > prev_end ? s[i].start_ns - prev_end : 0;
		run += s[i - 1].dur_ns;
		if (!gap)
			continue;
		if (gap >= p->lock_gap_lo_us * 1e3 && gap < p->lock_gap_hi_us * 1e3 &&
		    run >= p->lock_busy_us * 1e3) {
			__u64 h = mix((__u64)p->seed ^ ((__u64)cpu << 40) ^ i);

			s[i].lock = (double)(h % 1000000) < p->lock_pct * 1e4;
		}
		run = 0;
	}
}

static double level_of(const struct fm_params *p, int scale, __u32 v)
{
	double x = v > 1024 ? 1.0 : v / 1024.0;

	if (scale == FM_RANGE)
		return p->f_lo_mhz + (p->f_max_mhz - p->f_lo_mhz) * x;
	x *= p->f_max_mhz;
	return x < p->f_lo_mhz ? p->f_lo_mhz : x;
}

double fm_oracle(const struct fm_params *p, const struct fm_seg *s, double *energy, double *ns)
{
	double work = (double)s->dur_ns * p->f_max_mhz, f = fm_f_eff(p);

	if (s->window_ns && work / (double)s->window_ns > f)
		f = work / (double)s->window_ns;
	if (f > p->f_max_mhz)
		f = p->f_max_mhz;
	*ns = work / f;
	*energy = fm_power(p, f) * *ns;
	return f;
}

/* A cursor on a step function; time only moves forward. */
struct cursor {
	const struct fm_steps *s;
	size_t i;
};

static __u32 cur_at(struct cursor *c, __u64 t)
{
	while (c->i + 1 < c->s->n && c->s->t[c->i + 1] <= t)
		c->i++;
	return c->s->n ? c->s->v[c->i] : 0;
}

/* The next change after @t (~0: none). */
static __u64 cur_next(const struct cursor *c, __u64 t)
{
	for (size_t i = c->i; i + 1 < c->s->n; i++)
		if (c->s->t[i + 1] > t)
			return c->s->t[i + 1];
	return ~0ull;
}

struct sim {
	const struct fm_params *p;
	const struct fm_policy *pol;
	struct cursor fl, de, wr;	/* floor, desired, writes */
	double u;			/* the hardware's activity estimate */
	__u64 t, lock_until, next_write;
};

static double sim_level(struct sim *m)
{
	const struct fm_params *p = m->p;
	double fl = level_of(p, m->pol->mode == FM_DIRECT ? FM_OF_MAX : m->pol->scale,
			     cur_at(&m->fl, m->t)), f;

	if (m->pol->mode == FM_DIRECT || m->t < m->lock_until)
		return fl;
	if (m->pol->mode == FM_HWP_DESIRED)
		f = level_of(p, FM_OF_MAX, cur_at(&m->de, m->t));
	else
		f = p->f_lo_mhz + (p->f_max_mhz - p->f_lo_mhz) *
			(m->u >= p->hw_target ? 1.0 : m->u / p->hw_target);
	return f > fl ? f : fl;
}

static double write_ns(const struct sim *m)
{
	return (m->pol->remote_writes ? m->p->write_remote_us : m->p->write_local_us) * 1e3;
}

/* The CPU is idle until @to: activity decays, writes wake it. */
static void sim_idle(struct sim *m, struct fm_acc *a, __u64 to)
{
	while (m->t < to) {
		__u64 end = m->next_write < to ? m->next_write : to;

		m->u *= exp(-(double)(end - m->t) / (m->p->hw_tau_us * 1e3));
		m->t = end;
		if (end == m->next_write) {
			a->writes++;
			a->energy += fm_power(m->p, sim_level(m)) * write_ns(m);
			m->next_write = cur_next(&m->wr, m->t);
			cur_at(&m->wr, m->t);
		}
	}
}

void fm_run(const struct fm_params *p, const struct fm_seg *s, size_t n,
	    const struct fm_policy *pol, struct fm_acc *a)
{
	struct sim m = { .p = p, .pol = pol };
	double tau = p->hw_tau_us * 1e3, step = p->step_us * 1e3;

	if (!n)
		return;
	m.fl.s = &pol->floor;
	m.de.s = &pol->desired;
	m.wr.s = pol->mode == FM_HWP_DESIRED ? &pol->desired : &pol->floor;
	m.t = s[0].start_ns;
	if (m.wr.s->n && m.wr.s->t[0] > m.t)
		m.t = m.wr.s->t[0];
	cur_at(&m.wr, m.t);
	m.next_write = cur_next(&m.wr, m.t);
	for (size_t i = 0; i < n; i++) {
		double work = (double)s[i].dur_ns * p->f_max_mhz, oe, ons, fin;

		sim_idle(&m, a, s[i].start_ns);
		if (s[i].lock && pol->mode != FM_DIRECT) {
			m.lock_until = m.t + (__u64)(p->lock_ms * 1e6);
			a->locks++;
			a->locks_low += level_of(p, pol->scale, cur_at(&m.fl, m.t)) <= p->f_lo_mhz;
		}
		while (work > 0) {
			double f = sim_level(&m), dt = step, need = work / f;
			__u64 bound = m.next_write;

			if (m.t < m.lock_until && m.lock_until < bound)
				bound = m.lock_until;
			if (cur_next(&m.fl, m.t) < bound)
				bound = cur_next(&m.fl, m.t);
			if (pol->mode == FM_HWP_DESIRED && cur_next(&m.de, m.t) < bound)
				bound = cur_next(&m.de, m.t);
			if (bound != ~0ull && (double)(bound - m.t) < dt)
				dt = (double)(bound - m.t);
			if (need < dt)
				dt = ceil(need);
			dt = floor(dt);
			if (dt < 1)
				dt = 1;
			a->energy += fm_power(p, f) * dt;
			work -= f * dt;
			m.u = 1.0 - (1.0 - m.u) * exp(-dt / tau);
			m.t += (__u64)dt;
			if (m.t >= m.next_write) {
				/* the write runs on this CPU, in the way of the work */
				a->writes++;
				work += write_ns(&m) * f;
				cur_at(&m.wr, m.t);
				m.next_write = cur_next(&m.wr, m.t);
			}
		}
		fm_oracle(p, &s[i], &oe, &ons);
		fin = (double)s[i].start_ns + ons;
		a->segments++;
		a->oracle_energy += oe;
		a->oracle_ns += ons;
		a->delay_ns += (double)m.t - fin;
		a->slow += (double)m.t - fin > FM_TIE_DELAY_US * 1e3;
	}
}

double fm_energy_dist_pct(const struct fm_acc *a)
{
	return a->oracle_energy > 0 ? 100.0 * (a->energy - a->oracle_energy) / a->oracle_energy : 0;
}

double fm_delay_us(const struct fm_acc *a)
{
	return a->segments ? a->delay_ns / 1e3 / (double)a->segments : 0;
}

double fm_oracle_busy_us(const struct fm_acc *a)
{
	return a->segments ? a->oracle_ns / 1e3 / (double)a->segments : 0;
}

double fm_slow_pct(const struct fm_acc *a)
{
	return a->segments ? 100.0 * (double)a->slow / (double)a->segments : 0;
}
