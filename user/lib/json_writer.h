/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer of govloader, after bpftool's json_writer: every
 * string is escaped (quotes, backslashes, control characters), separators
 * are placed by the writer, numbers that are not finite become null.
 *
 *	json_writer_t *w = jsonw_new(stdout);
 *	jsonw_start_object(w);
 *	jsonw_string_field(w, "mode", "trace");
 *	jsonw_uint_field(w, "pid", 42);
 *	jsonw_end_object(w);
 *	jsonw_destroy(&w);		(ends the line and flushes)
 */
#ifndef __BPFGOV_JSON_WRITER_H
#define __BPFGOV_JSON_WRITER_H

#ifdef __BPF__
#error "user/lib/json_writer.h is for user space only"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_writer json_writer_t;

json_writer_t *jsonw_new(FILE *f);		/* NULL when out of memory */
void jsonw_destroy(json_writer_t **self_p);	/* newline, flush, free */
void jsonw_pretty(json_writer_t *self, bool on);

/* Object keys. */
void jsonw_name(json_writer_t *self, const char *name);

/* Values. */
void jsonw_string(json_writer_t *self, const char *value);	/* NULL -> null */
void jsonw_bool(json_writer_t *self, bool value);
void jsonw_null(json_writer_t *self);
void jsonw_uint(json_writer_t *self, uint64_t value);
void jsonw_int(json_writer_t *self, int64_t value);
void jsonw_float(json_writer_t *self, double value);		/* %g */
void jsonw_float_fmt(json_writer_t *self, const char *fmt, double value)
	__attribute__((format(printf, 2, 0)));
/* A value that is already JSON (e.g. a document this program wrote). */
void jsonw_raw(json_writer_t *self, const char *json);

void jsonw_start_object(json_writer_t *self);
void jsonw_end_object(json_writer_t *self);
void jsonw_start_array(json_writer_t *self);
void jsonw_end_array(json_writer_t *self);

/* name: value in one call. */
void jsonw_string_field(json_writer_t *self, const char *name, const char *value);
void jsonw_bool_field(json_writer_t *self, const char *name, bool value);
void jsonw_null_field(json_writer_t *self, const char *name);
void jsonw_uint_field(json_writer_t *self, const char *name, uint64_t value);
void jsonw_int_field(json_writer_t *self, const char *name, int64_t value);
void jsonw_float_field(json_writer_t *self, const char *name, double value);
void jsonw_float_field_fmt(json_writer_t *self, const char *name, const char *fmt,
			   double value) __attribute__((format(printf, 3, 0)));

#endif /* __BPFGOV_JSON_WRITER_H */
