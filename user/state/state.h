/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader's state map (`loader_state`, struct bpfgov_loader_state in
 * include/bpfgov.h): the one place a running instance shows what only the
 * loader knows. `start` writes it through its mapping (publish.c); every
 * reader (status, metrics, the HTTP server, a report) goes through here.
 * User space only.
 */
#ifndef __BPFGOV_STATE_H
#define __BPFGOV_STATE_H

#ifdef __BPF__
#error "user/state.h is for user space only"
#endif

#include <stdbool.h>
#include <stddef.h>
#include "bpfgov.h"
#include "json_writer.h"

#define STATE_MAP	"loader_state"

/* Upper bounds of the latency buckets but the last, nanoseconds. */
extern const __u64 state_lat_bounds_ns[BPFGOV_LAT_BUCKETS - 1];

/* Map @fd (the loader_state map) read-write; NULL and errno on failure. */
struct bpfgov_loader_state *state_map(int fd);
/* The same, from the pin under @pin_root (`govloader set`). */
struct bpfgov_loader_state *state_map_pinned(const char *pin_root);
void state_unmap(struct bpfgov_loader_state *st);
/* One read of the pin under @pin_root into @st; 0 or -errno. */
int state_read(const char *pin_root, struct bpfgov_loader_state *st);

/* Single writer: one sample of @ns into @h. */
void state_lat_add(struct bpfgov_lat_hist *h, __u64 ns);
__u64 state_lat_count(const struct bpfgov_lat_hist *h);
/* The @q quantile (0..1) of @h in microseconds, interpolated within its
 * bucket (0: no sample). */
double state_lat_quantile(const struct bpfgov_lat_hist *h, double q);

/* A string field (NUL-terminated, cut to @n - 1 bytes). */
void state_set_str(char *dst, size_t n, const char *src);
#define STATE_SET_STR(dst, src)	state_set_str((dst), sizeof(dst), (src))

/* Tunable @i's origin (indexed like tunable_table). */
enum bpfgov_origin state_origin(const struct bpfgov_loader_state *st, size_t i);

/* The "actuator" object of `status --json` and of start's --report: the
 * state's fields, with @st->nr_cpus CPUs. */
void state_json(json_writer_t *w, const struct bpfgov_loader_state *st);

#endif /* __BPFGOV_STATE_H */
