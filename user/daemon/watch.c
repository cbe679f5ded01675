// SPDX-License-Identifier: GPL-2.0
/*
 * The platform watch: resume and CPU hotplug (the loop re-applies everything
 * when the platform may have rewritten it), and power-profiles-daemon's
 * profile (the tunables rebuilt and written).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bpfgov.h"
#include "actuate.h"
#include "common.h"
#include "config.h"
#include "log.h"
#include "metrics.h"
#include "ppd.h"
#include "daemon.h"

/* --follow-ppd: connect and take PPD's profile before anything loads. */
int watch_ppd_open(struct gov *g)
{
	char active[PPD_NAME_LEN];
	const char *prof;
	int err;

	err = ppd_open(&g->ppd, active, sizeof(active));
	if (err)
		return err;
	snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
	prof = ppd_to_profile(active);
	if (active[0] && !prof)
		pr_warn("power-profiles-daemon's profile '%s' is unknown; keeping profile %s\n",
			active, g->gc.profile);
	if (prof && strcmp(prof, g->gc.profile)) {
		err = start_config(g, prof);
		if (err)
			return err;
		snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
	}
	pr_info("following power-profiles-daemon (%s): profile %s\n",
		active[0] ? active : "not running", g->gc.profile);
	return 0;
}

/* PPD switched profile: rebuild the tunables with the mapped profile (the
 * config file and --set still win; `govloader set` values stay on the keys
 * the new profile does not set) and hand them to the running programs. */
void watch_ppd(struct gov *g)
{
	struct cfg_write w = { .how = CFG_WRITE_KEEP, .state = g->st };
	char active[PPD_NAME_LEN], msg[512];
	struct gov_config old;
	const char *prof;
	int fd = g->tun_fd;

	if (!ppd_take(g->ppd, active, sizeof(active)))
		return;
	prof = ppd_to_profile(active);
	old = g->gc;
	if (!prof) {
		pr_warn("power-profiles-daemon's profile '%s' is unknown; keeping profile %s\n",
			active, g->gc.profile);
	} else if (strcmp(prof, g->gc.profile)) {
		if (start_config(g, prof)) {
			g->gc = old;
			g->cfg = old.cfg;
			return;
		}
		w.how = CFG_WRITE_PROFILE;
	}
	snprintf(g->gc.ppd_profile, sizeof(g->gc.ppd_profile), "%s", active);
	if (fd < 0 || cfg_tunables_write(gov_run_dir(), fd, &g->gc, &w, msg, sizeof(msg))) {
		pr_warn("cannot apply profile %s: %s\n", g->gc.profile,
			fd < 0 ? "no tunables map" : msg);
		g->gc = old;
		g->cfg = old.cfg;
		return;
	}
	g->cfg = g->gc.cfg;
	if (w.how != CFG_WRITE_PROFILE)
		return;
	g->st->profile_switches++;
	pr_info("power-profiles-daemon switched to %s: profile %s\n", active, prof);
	if (act_set_epp(g->act, act_epp_for_profile(prof)) < 0)
		g->act_errors++;
}

static __s64 boot_offset_ns(void)
{
	struct timespec b, m;

	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((__s64)b.tv_sec - m.tv_sec) * 1000000000ll + (b.tv_nsec - m.tv_nsec);
}

/* The online mask, read through a descriptor kept open (sysfs renders an
 * attribute again for a read at offset 0): one system call per check
 * where opening it each time costs four. Opened again when a read fails. */
static void read_online(struct gov *g, char *buf, size_t n)
{
	char path[PATH_MAX], *nl;
	ssize_t got = -1;

	buf[0] = '\0';
	if (g->online_fd >= 0) {
		got = pread(g->online_fd, buf, n - 1, 0);
		if (got < 0) {
			close(g->online_fd);
			g->online_fd = -1;
		}
	}
	if (g->online_fd < 0) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/online", g->o->sysfs_root);
		g->online_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (g->online_fd < 0)
			return;
		got = pread(g->online_fd, buf, n - 1, 0);
	}
	if (got <= 0)
		return;
	buf[got] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
}

/* The marks the watch compares against: the online mask and the boot
 * offset at start. */
void watch_init(struct gov *g)
{
	read_online(g, g->online, sizeof(g->online));
	g->boot_off_ns = boot_offset_ns();
}

/* Resume (CLOCK_BOOTTIME runs on through suspend, CLOCK_MONOTONIC does
 * not) and CPU hotplug (the online mask): each is one re-application of
 * everything, by the caller (apply_all()). */
int watch_platform(struct gov *g, __u64 now)
{
	char online[sizeof(g->online)];
	int n = 0;
	__s64 off;

	if (now < g->next_watch_ns)
		return 0;
	g->next_watch_ns = now + 100000000ull;	/* 10 checks a second */
	off = boot_offset_ns();
	if (off - g->boot_off_ns > 500000000ll) {
		pr_info("resumed from suspend (%.1f s asleep): re-applying floors, idle picks and EPP\n",
			(off - g->boot_off_ns) / 1e9);
		g->boot_off_ns = off;
		n++;
	}
	read_online(g, online, sizeof(online));
	/* nothing read (a failed read; a stand-in file caught mid-rewrite)
	 * is not a change */
	if (online[0] && strcmp(online, g->online)) {
		pr_info("online CPUs changed (%s -> %s): re-applying floors, idle picks and EPP\n",
			g->online[0] ? g->online : "?", online[0] ? online : "?");
		snprintf(g->online, sizeof(g->online), "%s", online);
		n++;
	}
	return n;
}
