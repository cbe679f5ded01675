// SPDX-License-Identifier: GPL-2.0
/*
 * The one JSON writer (json_writer.h), modelled on bpftool's json_writer.c:
 * a nesting depth and a "separator pending" flag place the commas; strings
 * go through jsonw_puts(), the only place that escapes.
 */
#include <math.h>
#include <stdlib.h>
#include "json_writer.h"

struct json_writer {
	FILE *out;
	unsigned int depth;
	bool pretty;
	char sep;	/* ',' after the first member of a container, else 0 */
};

static void jsonw_indent(json_writer_t *self)
{
	for (unsigned int i = 0; i < self->depth; i++)
		fputs("    ", self->out);
}

static void jsonw_eol(json_writer_t *self)
{
	if (!self->pretty)
		return;
	putc('\n', self->out);
	jsonw_indent(self);
}

/* Before a value or a name: the comma and the line break it needs. */
static void jsonw_eor(json_writer_t *self)
{
	if (self->sep)
		putc(self->sep, self->out);
	self->sep = ',';
}

static void jsonw_puts(json_writer_t *self, const char *str)
{
	putc('"', self->out);
	for (; *str; ++str) {
		unsigned char c = *str;

		switch (c) {
		case '\t': fputs("\\t", self->out); break;
		case '\n': fputs("\\n", self->out); break;
		case '\r': fputs("\\r", self->out); break;
		case '\f': fputs("\\f", self->out); break;
		case '\b': fputs("\\b", self->out); break;
		case '\\': fputs("\\\\", self->out); break;
		case '"':  fputs("\\\"", self->out); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(self->out, "\\u%04x", c);
			else
				putc(c, self->out);
		}
	}
	putc('"', self->out);
}

json_writer_t *jsonw_new(FILE *f)
{
	json_writer_t *self = calloc(1, sizeof(*self));

	if (self)
		self->out = f;
	return self;
}

void jsonw_destroy(json_writer_t **self_p)
{
	json_writer_t *self = *self_p;

	if (!self)
		return;
	putc('\n', self->out);
	fflush(self->out);
	free(self);
	*self_p = NULL;
}

void jsonw_pretty(json_writer_t *self, bool on)
{
	self->pretty = on;
}

static void jsonw_begin(json_writer_t *self, int c)
{
	jsonw_eor(self);
	putc(c, self->out);
	++self->depth;
	self->sep = 0;
}

static void jsonw_end(json_writer_t *self, int c)
{
	if (self->depth)
		--self->depth;
	if (self->sep)
		jsonw_eol(self);
	putc(c, self->out);
	self->sep = ',';
}

void jsonw_name(json_writer_t *self, const char *name)
{
	jsonw_eor(self);
	jsonw_eol(self);
	self->sep = 0;
	jsonw_puts(self, name);
	putc(':', self->out);
	if (self->pretty)
		putc(' ', self->out);
}

void jsonw_start_object(json_writer_t *self)
{
	jsonw_begin(self, '{');
}

void jsonw_end_object(json_writer_t *self)
{
	jsonw_end(self, '}');
}

void jsonw_start_array(json_writer_t *self)
{
	jsonw_begin(self, '[');
}

void jsonw_end_array(json_writer_t *self)
{
	jsonw_end(self, ']');
}

void jsonw_string(json_writer_t *self, const char *value)
{
	jsonw_eor(self);
	if (value)
		jsonw_puts(self, value);
	else
		fputs("null", self->out);
}

void jsonw_bool(json_writer_t *self, bool value)
{
	jsonw_eor(self);
	fputs(value ? "true" : "false", self->out);
}

void jsonw_null(json_writer_t *self)
{
	jsonw_eor(self);
	fputs("null", self->out);
}

void jsonw_uint(json_writer_t *self, uint64_t value)
{
	jsonw_eor(self);
	fprintf(self->out, "%llu", (unsigned long long)value);
}

void jsonw_int(json_writer_t *self, int64_t value)
{
	jsonw_eor(self);
	fprintf(self->out, "%lld", (long long)value);
}

void jsonw_float_fmt(json_writer_t *self, const char *fmt, double value)
{
	jsonw_eor(self);
	if (!isfinite(value)) {
		fputs("null", self->out);
		return;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(self->out, fmt, value);
#pragma GCC diagnostic pop
}

void jsonw_float(json_writer_t *self, double value)
{
	jsonw_float_fmt(self, "%g", value);
}

void jsonw_raw(json_writer_t *self, const char *json)
{
	jsonw_eor(self);
	fputs(json && *json ? json : "null", self->out);
}

void jsonw_string_field(json_writer_t *self, const char *name, const char *value)
{
	jsonw_name(self, name);
	jsonw_string(self, value);
}

void jsonw_bool_field(json_writer_t *self, const char *name, bool value)
{
	jsonw_name(self, name);
	jsonw_bool(self, value);
}

void jsonw_null_field(json_writer_t *self, const char *name)
{
	jsonw_name(self, name);
	jsonw_null(self);
}

void jsonw_uint_field(json_writer_t *self, const char *name, uint64_t value)
{
	jsonw_name(self, name);
	jsonw_uint(self, value);
}

void jsonw_int_field(json_writer_t *self, const char *name, int64_t value)
{
	jsonw_name(self, name);
	jsonw_int(self, value);
}

void jsonw_float_field(json_writer_t *self, const char *name, double value)
{
	jsonw_name(self, name);
	jsonw_float(self, value);
}

void jsonw_float_field_fmt(json_writer_t *self, const char *name, const char *fmt,
			   double value)
{
	jsonw_name(self, name);
	jsonw_float_fmt(self, fmt, value);
}
