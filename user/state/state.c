// SPDX-License-Identifier: GPL-2.0
/*
 * The loader's state map: mapping, reading, the latency histogram and the
 * JSON every reader shows (state.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "common.h"
#include "log.h"
#include "state.h"
#include "tunables.h"

#define US	1000ull
#define MS	1000000ull
const __u64 state_lat_bounds_ns[BPFGOV_LAT_BUCKETS - 1] = {
	1 * US, 1200, 1500, 2 * US, 2500, 3 * US, 4 * US, 5 * US, 6 * US, 8 * US,
	10 * US, 12 * US, 15 * US, 20 * US, 25 * US, 30 * US, 40 * US, 50 * US, 60 * US, 80 * US,
	100 * US, 120 * US, 150 * US, 200 * US, 250 * US, 300 * US, 400 * US, 500 * US,
	600 * US, 800 * US,
	1 * MS, 1200 * US, 1500 * US, 2 * MS, 2500 * US, 3 * MS, 4 * MS, 5 * MS, 6 * MS, 8 * MS,
	10 * MS, 12 * MS, 15 * MS, 20 * MS, 25 * MS, 30 * MS, 40 * MS, 50 * MS, 60 * MS, 80 * MS,
	100 * MS,
};


static size_t state_len(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return (sizeof(struct bpfgov_loader_state) + pg - 1) / pg * pg;
}

struct bpfgov_loader_state *state_map(int fd)
{
	void *p = mmap(NULL, state_len(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct bpfgov_loader_state *state_map_pinned(const char *pin_root)
{
	struct bpfgov_loader_state *st;
	int fd = pins_open_map(pin_root, STATE_MAP), err;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	st = state_map(fd);
	err = errno;
	close(fd);
	errno = err;
	return st;
}

void state_unmap(struct bpfgov_loader_state *st)
{
	if (st)
		munmap(st, state_len());
}

int state_read(const char *pin_root, struct bpfgov_loader_state *st)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	int fd = pins_open_map(pin_root, STATE_MAP), err = 0;

	if (fd < 0)
		return fd;
	if (bpf_map_get_info_by_fd(fd, &info, &len))
		err = -errno;
	else if (info.value_size != sizeof(*st))
		err = -EPROTO;		/* a loader of another build */
	else if (bpf_map_lookup_elem(fd, &zero, st))
		err = -errno;
	close(fd);
	if (err)
		return err;
	/* what anyone with the pin wrote: strings end in the field */
#define TERM(f)	(st->f[sizeof(st->f) - 1] = '\0')
	TERM(backend);
	TERM(epp);
	TERM(profile);
	TERM(ppd_profile);
	TERM(idle_driver);
	TERM(idle_governor);
	TERM(backend_reason);
	TERM(missing);
	TERM(config_file);
	TERM(platform_summary);
	TERM(platform_json);
#undef TERM
	return 0;
}

void state_lat_add(struct bpfgov_lat_hist *h, __u64 ns)
{
	int lo = 0, hi = BPFGOV_LAT_BUCKETS - 1;

	/* the first bucket whose bound is >= ns (the last: above all) */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (ns <= state_lat_bounds_ns[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	h->bucket[lo]++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

__u64 state_lat_count(const struct bpfgov_lat_hist *h)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < BPFGOV_LAT_BUCKETS; i++)
		n += h->bucket[i];
	return n;
}

double state_lat_quantile(const struct bpfgov_lat_hist *h, double q)
{
	__u64 n = state_lat_count(h), cum = 0, lo, hi;
	double rank = q * n;
	int i;

	if (!n)
		return 0;
	for (i = 0; i < BPFGOV_LAT_BUCKETS; i++) {
		if (!h->bucket[i] || cum + h->bucket[i] < rank) {
			cum += h->bucket[i];
			continue;
		}
		lo = i ? state_lat_bounds_ns[i - 1] : 0;
		hi = i < BPFGOV_LAT_BUCKETS - 1 ? state_lat_bounds_ns[i] : h->max_ns;
		if (hi > h->max_ns)
			hi = h->max_ns;		/* no sample above the largest one */
		if (lo > hi)
			lo = hi;
		return (lo + (hi - lo) * ((rank - cum) / h->bucket[i])) / 1000.0;
	}
	return h->max_ns / 1000.0;
}

void state_set_str(char *dst, size_t n, const char *src)
{
	size_t len = src ? strnlen(src, n - 1) : 0;

	memcpy(dst, src ? src : "", len);
	memset(dst + len, 0, n - len);
}

enum bpfgov_origin state_origin(const struct bpfgov_loader_state *st, size_t i)
{
	const enum bpfgov_origin *o = (const enum bpfgov_origin *)&st->origin;

	return i < sizeof(st->origin) / sizeof(*o) ? o[i] : BPFGOV_ORIGIN_DEFAULT;
}

/* A string, or null for an empty one. */
static void str_or_null(json_writer_t *w, const char *name, const char *v)
{
	jsonw_name(w, name);
	if (*v)
		jsonw_string(w, v);
	else
		jsonw_null(w);
}

static void lat_json(json_writer_t *w, const struct bpfgov_lat_hist *h)
{
	jsonw_uint_field(w, "samples", state_lat_count(h));
	jsonw_float_field_fmt(w, "p50", "%.1f", state_lat_quantile(h, 0.50));
	jsonw_float_field_fmt(w, "p99", "%.1f", state_lat_quantile(h, 0.99));
	jsonw_float_field_fmt(w, "max", "%.1f", h->max_ns / 1000.0);
}

void state_json(json_writer_t *w, const struct bpfgov_loader_state *st)
{
	__u64 drv_rewrites = 0, drv_races = 0;
	__u32 n = st->nr_cpus < BPFGOV_MAX_CPUS ? st->nr_cpus : BPFGOV_MAX_CPUS, cpu;

	for (cpu = 0; cpu < n; cpu++) {
		drv_rewrites += st->cpu[cpu].driver_rewrites;
		drv_races += st->cpu[cpu].driver_races;
	}
	jsonw_start_object(w);
	jsonw_int_field(w, "pid", st->pid);
	jsonw_string_field(w, "mode", mode_name(st->mode));
	jsonw_string_field(w, "backend", st->backend);
	jsonw_string_field(w, "backend_reason", st->backend_reason);
	jsonw_bool_field(w, "taints_kernel", st->taints_kernel);
	jsonw_uint_field(w, "idle_cpu_writes", st->idle_cpu_writes);
	jsonw_uint_field(w, "idle_cpu_writes_maybe", st->idle_cpu_writes_maybe);
	jsonw_uint_field(w, "held_applied_at_wake", st->held_applied_at_wake);
	jsonw_uint_field(w, "held_applied_within_2ms", st->held_applied_within_2ms);
	jsonw_float_field_fmt(w, "held_apply_max_us", "%.1f", st->held_apply_max_ns / 1000.0);
	jsonw_uint_field(w, "deferred_floor_changes", st->deferred_floor_changes);
	jsonw_uint_field(w, "held_reasserts", st->held_reasserts);
	jsonw_uint_field(w, "held_forced", st->held_forced);
	jsonw_uint_field(w, "held_floor_waits", st->held_floor_waits);
	jsonw_uint_field(w, "reapplies", st->reapplies);
	jsonw_uint_field(w, "floor_driver_rewrites", drv_rewrites);
	jsonw_uint_field(w, "floor_driver_races", drv_races);
	str_or_null(w, "epp", st->epp);
	if (st->platform_json[0]) {
		jsonw_string_field(w, "platform_summary", st->platform_summary);
		jsonw_name(w, "platform");
		jsonw_raw(w, st->platform_json);
	}
	jsonw_bool_field(w, "dry_run", st->dry_run);
	jsonw_bool_field(w, "floor_applied", st->floor_applied);
	jsonw_bool_field(w, "idle_applied", st->idle_applied);
	jsonw_string_field(w, "idle_driver", st->idle_driver);
	str_or_null(w, "idle_governor", st->idle_governor);
	str_or_null(w, "missing", st->missing);
	jsonw_uint_field(w, "decisions", st->decisions);
	jsonw_uint_field(w, "floor_decisions", st->floor_decisions);
	jsonw_uint_field(w, "pick_decisions", st->pick_decisions);
	jsonw_uint_field(w, "actuation_errors", st->actuation_errors);
	jsonw_uint_field(w, "seq_gaps", st->seq_gaps);
	jsonw_uint_field(w, "loop_wakeups", st->loop_wakeups);
	jsonw_float_field_fmt(w, "loader_cpu_s", "%.3f", st->loader_cpu_ns / 1e9);
	jsonw_int_field(w, "scx_restarts", st->scx_restarts);
	jsonw_name(w, "latency_us");
	jsonw_start_object(w);
	lat_json(w, &st->lat);
	jsonw_name(w, "wake");		/* decision -> loader running */
	jsonw_start_object(w);
	lat_json(w, &st->lat_wake);
	jsonw_end_object(w);
	jsonw_name(w, "processing");	/* loader running -> write completed */
	jsonw_start_object(w);
	lat_json(w, &st->lat_proc);
	jsonw_end_object(w);
	jsonw_uint_field(w, "on_deciding_cpu", st->on_deciding_cpu);
	jsonw_uint_field(w, "on_other_cpu", st->on_other_cpu);
	jsonw_end_object(w);
	jsonw_name(w, "cpus");
	jsonw_start_array(w);
	for (cpu = 0; cpu < n; cpu++) {
		const struct bpfgov_loader_cpu *c = &st->cpu[cpu];

		jsonw_start_object(w);
		jsonw_int_field(w, "cpu", cpu);
		jsonw_bool_field(w, "online", c->online);
		jsonw_uint_field(w, "hw_min", c->hw_min);
		jsonw_uint_field(w, "hw_lowest", c->hw_lowest);
		jsonw_uint_field(w, "hw_highest", c->hw_highest);
		jsonw_uint_field(w, "last_floor", c->last_floor);
		jsonw_uint_field(w, "last_pick", c->last_pick);
		jsonw_uint_field(w, "writes", c->writes);
		jsonw_uint_field(w, "reasserts", c->reasserts);
		jsonw_uint_field(w, "errors", c->errors);
		jsonw_uint_field(w, "driver_rewrites", c->driver_rewrites);
		jsonw_uint_field(w, "driver_races", c->driver_races);
		jsonw_uint_field(w, "idle_writes", c->idle_writes);
		jsonw_uint_field(w, "idle_writes_maybe", c->idle_writes_maybe);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}
