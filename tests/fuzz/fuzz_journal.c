// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the state journal reader (user/journal.c
 * journal_parse), which decides what `govloader restore` writes back.
 * The input is parsed as is, and again with a valid " crc=" appended to
 * every line that lacks one, so that mutations reach the record parser
 * behind the checksum. Checks: every record returned has an absolute path,
 * a text length in range and is unique per knob.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "journal.h"


static void check(const char *buf, size_t len)
{
	struct journal_entry *v;
	size_t n, i, k;
	int bad, pid;
	char msg[128];

	if (journal_parse(buf, len, &v, &n, &bad, &pid, msg, sizeof(msg)))
		return;
	for (i = 0; i < n; i++) {
		if (v[i].path[0] != '/' || v[i].len >= JOURNAL_TEXT_MAX ||
		    strnlen(v[i].path, sizeof(v[i].path)) >= sizeof(v[i].path))
			abort();
		for (k = 0; k < i; k++)
			if (v[k].is_msr == v[i].is_msr && v[k].msr == v[i].msr &&
			    !strcmp(v[k].path, v[i].path))
				abort();
	}
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t off = 0, o = 0;
	char *out;

	check(in, size);
	out = malloc(size + (size + 1) * 14 + 1);
	if (!out)
		return 0;
	while (off < size) {
		const char *nl = memchr(in + off, '\n', size - off);
		size_t ll = nl ? (size_t)(nl - (in + off)) : size - off;

		memcpy(out + o, in + off, ll);
		if (ll < 13 || memcmp(in + off + ll - 13, " crc=", 5))
			o += sprintf(out + o + ll, " crc=%08x", journal_crc32(in + off, ll));
		o += ll;
		if (nl)
			out[o++] = '\n';
		off += ll + (nl ? 1 : 0);
	}
	check(out, o);
	free(out);
	return 0;
}
