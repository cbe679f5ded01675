// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the trace reader (user/lab/trace.c trace_parse) on an
 * in-memory stream. Checks: an error comes with a message naming the file;
 * a trace that parses also passes the writer's own validation and
 * survives a write/parse round trip with the same records.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t, t2;
	char err[512], *out = NULL;
	size_t outlen = 0;
	FILE *f;
	int ret;

	if (!size)
		return 0;	/* fmemopen needs a buffer */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	ret = trace_parse(f, "f.trace", &t, err, sizeof(err));
	fclose(f);
	if (ret) {
		if (strncmp(err, "f.trace", 7))
			abort();
		return 0;
	}
	if (trace_validate(&t, err, sizeof(err)))
		abort();	/* the reader accepted what the writer would refuse */
	f = open_memstream(&out, &outlen);
	if (f) {
		if (trace_write(f, &t))
			abort();
		fclose(f);
		f = fmemopen(out, outlen, "r");
		if (!f || trace_parse(f, "f2.trace", &t2, err, sizeof(err)))
			abort();
		fclose(f);
		if (t2.nr != t.nr || (t.nr && memcmp(t.recs, t2.recs, t.nr * sizeof(*t.recs))))
			abort();
		trace_free(&t2);
		free(out);
	}
	trace_free(&t);
	return 0;
}
