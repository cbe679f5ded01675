/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Follow power-profiles-daemon's active profile over D-Bus (sd-bus), so the
 * desktop's profile switch also switches bpfgov's profile:
 * power-saver -> powersave, balanced -> balanced, performance -> performance.
 * User space only.
 */
#ifndef __BPFGOV_PPD_H
#define __BPFGOV_PPD_H

#ifdef __BPF__
#error "user/platform/ppd.h is for user space only"
#endif

#include <stdbool.h>
#include <stddef.h>

#define PPD_NAME_LEN	32

struct ppd;

/* bpfgov's profile for PPD's profile @ppd_name; NULL for an unknown one. */
const char *ppd_to_profile(const char *ppd_name);

/* Connect to the system bus ($DBUS_SYSTEM_BUS_ADDRESS or the default),
 * subscribe to PPD's changes and read its active profile into @active
 * ("" when PPD is not running yet: its later start is noticed). -errno
 * with one pr_warn line when there is no system bus. */
int ppd_open(struct ppd **out, char *active, size_t len);
/* Listen in a thread of its own (signals blocked; it sleeps in poll until
 * the bus has something). 0 or -errno. */
int ppd_run(struct ppd *p);
/* The latest active profile, when it changed since the last call (true);
 * cheap, for the event loop. */
bool ppd_take(struct ppd *p, char *active, size_t len);
void ppd_close(struct ppd *p);

#endif /* __BPFGOV_PPD_H */
