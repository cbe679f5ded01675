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
	[BPFGOV_R_FIXED] = "fixed",
};

const char *ev_kind_name(__u32 kind)
{
	return kind < BPFGOV_EV__MAX && kind_names[kind] ? kind_names[kind] : "unknown";
}

const char *ev_reason_name(__u32 reason)
{
	return reason < BPFGOV_R__MAX && reason_names[reason] ? reason_names[reason] : "unknown";
}

const char *wake_name(__u32 wake)
{
	switch (wake) {
	case BPFGOV_WAKE_TIMER: return "timer";
	case BPFGOV_WAKE_REMOTE: return "ipi";
	case BPFGOV_WAKE_LIMIT: return "limit";
	default: return "other";
	}
}

const char *timer_src_name(__u32 src)
{
	switch (src) {
	case BPFGOV_TIMER_TRACEPOINT: return "hrtimer_cpu_base via tracepoint";
	case BPFGOV_TIMER_BEFORE_TICK: return "hrtimer_cpu_base via tracepoint, before the tick";
	default: return "none";
	}
}

const char *mode_name(__u32 mode)
{
	switch (mode) {
	case BPFGOV_MODE_TRACE: return "trace";
	case BPFGOV_MODE_SCX: return "scx";
	default: return "none";
	}
}

