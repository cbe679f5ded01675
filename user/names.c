// SPDX-License-Identifier: GPL-2.0
/* Names of record kinds, reasons and modes; strict number parsing. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "common.h"

static const char *const kind_names[BPFGOV_EV__MAX] = {
	[BPFGOV_EV_FLOOR] = "floor",
	[BPFGOV_EV_PICK] = "pick",
	[BPFGOV_EV_IDLE_EXIT] = "idle_exit",
	[BPFGOV_EV_BUSY] = "busy",
	[BPFGOV_EV_WAKE_LAT] = "wake_lat",
	[BPFGOV_EV_IDLE_GAP] = "idle_gap",
	[BPFGOV_EV_EXIT] = "exit",
};

static const char *const reason_names[BPFGOV_R__MAX] = {
	[BPFGOV_R_NONE] = "none",
	[BPFGOV_R_UTIL_RISE] = "util_rise",
	[BPFGOV_R_UTIL_FALL] = "util_fall",
	[BPFGOV_R_GAP_HOLD] = "gap_hold",
	[BPFGOV_R_HOLD_END] = "hold_end",
	[BPFGOV_R_IDLE_DECAY] = "idle_decay",
	[BPFGOV_R_HISTORY] = "history",
	[BPFGOV_R_LONG_POLL] = "long_poll",
	[BPFGOV_R_QOS] = "qos",
	[BPFGOV_R_COST] = "cost",
};

const char *ev_kind_name(__u32 kind)
{
	return kind < BPFGOV_EV__MAX && kind_names[kind] ? kind_names[kind] : "unknown";
}

const char *ev_reason_name(__u32 reason)
{
	return reason < BPFGOV_R__MAX && reason_names[reason] ? reason_names[reason] : "unknown";
}

const char *mode_name(__u32 mode)
{
	switch (mode) {
	case BPFGOV_MODE_TRACE: return "trace";
	case BPFGOV_MODE_SCX: return "scx";
	default: return "none";
	}
}

int parse_u32(const char *s, __u32 lo, __u32 hi, __u32 *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = (__u32)v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	if (v <= 0 || v > 365.0 * 24 * 3600)
		return -ERANGE;
	*out = v;
	return 0;
}
