/* SPDX-License-Identifier: GPL-2.0 */
/* Logging for govloader, in the style of xdp-tools: pr_warn/pr_info/pr_debug. */
#ifndef __BPFGOV_LOG_H
#define __BPFGOV_LOG_H

#ifdef __BPF__
#error "user/lib/log.h is for user space only"
#endif

enum log_level {
	LOG_WARN = 0,
	LOG_INFO = 1,
	LOG_DEBUG = 2,
};

extern enum log_level log_level;
extern const char *log_prog;	/* prefix of every line, e.g. "govloader" */

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pr_warn(fmt, ...)  log_msg(LOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  log_msg(LOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) log_msg(LOG_DEBUG, fmt, ##__VA_ARGS__)

#endif
