// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include "log.h"

enum log_level log_level = LOG_INFO;
const char *log_prog = "govloader";

/* Warnings and info go to stderr so stdout stays machine-readable
 * (status --json, tail --json). */
void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	fprintf(stderr, "%s: ", log_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
