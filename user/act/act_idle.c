// SPDX-License-Identifier: GPL-2.0
/*
 * Idle knobs: the per-CPU PM QoS resume latency limit
 * (power/pm_qos_resume_latency_us), and under menu/teo the cpuidle
 * stateK/disable knobs deeper than the pick, and of the polling states
 * when the pick halts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act_backend.h"
#include "log.h"
#include "util.h"

/* @name is a word of the kernel's available_governors. */
static bool gov_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* --idle-governor: the switch is possible here (nothing written). */
static int gov_check(struct act_env *e, const char *now)
{
	const char *want = e->gov_want;
	char drv[KNOB_TEXT] = "", avail[4 * KNOB_TEXT] = "", *p;
	int err = 0;

	p = fmt_alloc("%s/devices/system/cpu/cpuidle/current_driver", e->sysfs_root);
	if (!p || read_norm(p, drv, sizeof(drv)) || !*drv || !strcmp(drv, "none")) {
		pr_warn("--idle-governor %s: no cpuidle driver here (%s): no governor chooses an idle state\n",
			want, p ? p : "current_driver");
		free(p);
		return -ENOENT;
	}
	free(p);
	p = fmt_alloc("%s/devices/system/cpu/cpuidle/available_governors", e->sysfs_root);
	if (!p || read_text(p, O_NOFOLLOW, avail, sizeof(avail), NULL)) {
		pr_warn("--idle-governor %s: cannot read %s: this kernel lists no cpuidle governors\n",
			want, p ? p : "available_governors");
		free(p);
		return -ENOENT;
	}
	free(p);
	for (char *q = avail; *q; q++)
		if (*q == '\n' || *q == '\t')
			*q = ' ';
	for (size_t n = strlen(avail); n && avail[n - 1] == ' '; n--)
		avail[n - 1] = '\0';
	if (!gov_listed(avail, want)) {
		pr_warn("--idle-governor '%.32s': not one of this kernel's cpuidle governors (%s)\n",
			want, avail);
		return -EINVAL;
	}
	if (!strcmp(now, want))
		return 0;	/* in force: nothing to switch */
	e->gov.path = fmt_alloc("%s/devices/system/cpu/cpuidle/current_governor", e->sysfs_root);
	if (!e->gov.path)
		return -ENOMEM;
	if (!path_exists(e->gov.path)) {
		pr_warn("--idle-governor %s: no %s: this kernel cannot switch cpuidle governors\n",
			want, e->gov.path);
		return -ENOENT;
	}
	if (!e->ke.dry_run && (err = check_writable(e->gov.path)))
		pr_warn("cannot write %s: %s\n", e->gov.path,
			err == -EACCES ? "read-only" : strerror(-err));
	return err;
}

int idle_probe(struct act_env *e)
{
	char gov[KNOB_TEXT] = "", *p;
	int err;

	p = fmt_alloc("%s/devices/system/cpu/cpuidle/current_governor", e->sysfs_root);
	if (!p || read_norm(p, gov, sizeof(gov))) {
		free(p);
		p = fmt_alloc("%s/devices/system/cpu/cpuidle/current_governor_ro",
			     e->sysfs_root);
		if (!p || read_norm(p, gov, sizeof(gov)))
			gov[0] = '\0';
	}
	free(p);
	if (e->gov_want) {
		err = gov_check(e, gov);
		if (err)
			return err;
		snprintf(gov, sizeof(gov), "%s", e->gov_want);
	}
	snprintf(e->governor, sizeof(e->governor), "%s", gov);
	e->use_disable = !strcmp(gov, "menu") || !strcmp(gov, "teo");

	for (int i = 0; i < e->nr_cpus; i++) {
		struct act_cpu *c = &e->cpus[i];
		char *q;

		if (!c->online)
			continue;
		q = fmt_alloc("%s/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
			     e->sysfs_root, i);
		if (q && read_norm(q, c->qos_orig, sizeof(c->qos_orig)) == 0) {
			c->has_qos = true;
			c->qos.path = q;
			c->qos_orig_na = !strcmp(c->qos_orig, "n/a");
			c->qos_orig_us = c->qos_orig_na ? 0 : (__u32)strtoul(c->qos_orig, NULL, 10);
			e->idle_ok = true;
		} else {
			pr_debug("cpu %d: no PM QoS file: idle not actuated there\n", i);
			free(q);
		}
		if (!e->use_disable)
			continue;
		for (int k = 0; k < BPFGOV_MAX_STATES; k++) {
			q = fmt_alloc("%s/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
				     e->sysfs_root, i, k);
			if (!path_exists(q)) {
				free(q);
				break;
			}
			c->disable[k].path = q;
			c->nr_disable = k + 1;
		}
	}
	return 0;
}

int idle_gov_restore(struct act_env *e)
{
	char now[KNOB_TEXT];

	if (!e->gov.saved || !e->gov.written)
		return knob_restore(&e->gov);	/* nothing of ours: clears it */
	/* Someone else chose a governor while bpfgov ran: theirs stays. */
	if (!read_norm(e->gov.path, now, sizeof(now)) && strcmp(now, e->governor)) {
		pr_info("cpuidle governor %s was chosen while bpfgov ran: left as it is\n", now);
		e->gov.written = false;
		return knob_restore(&e->gov);
	}
	return knob_restore(&e->gov);
}

int idle_gov_apply(struct act_env *e)
{
	char was[KNOB_TEXT] = "";
	bool wrote;
	int err;

	if (!e->gov.path)
		return 0;
	if (read_norm(e->gov.path, was, sizeof(was)))
		was[0] = '\0';
	err = knob_file_set(&e->ke, &e->gov, e->governor, &wrote);
	if (err)
		return err;
	if (wrote && !e->ke.dry_run)
		pr_info("cpuidle governor %s for this run (was %s; put back at stop)\n",
			e->governor, *was ? was : "unknown");
	return wrote;
}

int idle_check_writable(struct act_env *e)
{
	for (int i = 0; i < e->nr_cpus; i++) {
		struct act_cpu *c = &e->cpus[i];
		int err;

		if (c->has_qos && (err = check_writable(c->qos.path))) {
			pr_warn("cannot write %s: %s\n", c->qos.path,
				err == -EACCES ? "read-only" : strerror(-err));
			return err;
		}
		for (int k = 0; k < c->nr_disable; k++) {
			err = check_writable(c->disable[k].path);
			if (err) {
				pr_warn("cannot write %s: %s\n", c->disable[k].path,
					err == -EACCES ? "read-only" : strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

static void qos_text(const struct act_cpu *c, __u32 pick, const struct bpfgov_config *cfg,
		     char *buf, size_t n)
{
	__u32 lim;

	if (c->qos_orig_na || pick == BPFGOV_NO_STATE || pick + 1 >= cfg->nr_states) {
		snprintf(buf, n, "%s", c->qos_orig);	/* deepest: no new limit */
		return;
	}
	if (cfg->state_is_poll[pick]) {
		snprintf(buf, n, "n/a");
		return;
	}
	/* Intermediate: the tightest limit that still allows @pick, so deeper
	 * states with a larger exit latency are excluded; 0 in the file means
	 * "no constraint", so at least 1. Never looser than the original. */
	lim = cfg->state_exit_latency_us[pick];
	if (!lim)
		lim = 1;
	if (c->qos_orig_us && lim >= c->qos_orig_us)
		snprintf(buf, n, "%s", c->qos_orig);
	else
		snprintf(buf, n, "%u", lim);
}

int idle_set(struct act_env *e, int cpu, __u32 pick, bool poll_ok,
	     const struct bpfgov_config *cfg)
{
	struct act_cpu *c = act_env_cpu(e, cpu);
	char want[KNOB_TEXT];
	bool wrote;
	int err = 0, r;

	if (!c || !cfg || cfg->nr_states > BPFGOV_MAX_STATES)
		return -EINVAL;
	if (pick != BPFGOV_NO_STATE && pick >= cfg->nr_states && cfg->nr_states)
		return -EINVAL;
	if (!e->idle || !c->has_qos || !cfg->nr_states || cfg->idle_state_fixed) {
		/* With no cpuidle driver the CPU enters one state whatever
		 * PM QoS says: nothing to write. */
		if (e->idle && !cfg->idle_state_fixed)
			pr_debug("cpu %d: offline or no PM QoS file: pick not applied\n", cpu);
		c->last_pick = pick;
		c->last_poll_ok = poll_ok;
		c->pick_set = c->pick_ever = true;
		return 0;
	}
	if (c->pick_set && c->last_pick == pick && c->last_poll_ok == poll_ok)
		return 0;	/* unchanged: act_reassert() watches for drift */

	/* Check everything first so a read-only file changes nothing. */
	if (!e->ke.dry_run) {
		r = knob_check_writable(&e->ke, &c->qos);
		if (r) {
			pr_warn("cannot write %s: %s\n", c->qos.path,
				r == -EACCES ? "read-only" : strerror(-r));
			c->errors++;
			return r;
		}
	}
	qos_text(c, pick, cfg, want, sizeof(want));
	err = knob_file_set(&e->ke, &c->qos, want, &wrote);
	c->writes += wrote;

	/* menu/teo honour stateK/disable: disable states deeper than the pick,
	 * and the polling states when the pick halts (the PM QoS limit only
	 * caps the governor's choice: without this a halting pick could not
	 * stop it from polling) unless it leaves polling to the governor
	 * (@poll_ok: the governor polls where the next timer is near, as
	 * bpfgov's own entry pick would); give the others their original back. A
	 * polling pick leaves alone the deeper states that its "n/a" limit
	 * already excludes (a non-zero exit latency): the kernel's poll time
	 * limit is the first enabled halting state's target residency, and
	 * with none enabled a whole TICK_NSEC/16. */
	for (int k = 0; !err && e->use_disable && k < c->nr_disable &&
			k < (int)cfg->nr_states; k++) {
		struct knob *d = &c->disable[k];
		bool deeper = pick != BPFGOV_NO_STATE && (__u32)k > pick &&
			      !(cfg->state_is_poll[pick] && cfg->state_exit_latency_us[k]);
		bool poll = pick != BPFGOV_NO_STATE && (__u32)k < pick && cfg->state_is_poll[k] &&
			    !cfg->state_is_poll[pick] && !poll_ok;
		char orig[KNOB_TEXT];

		if (deeper || poll) {
			err = knob_file_set(&e->ke, d, "1", &wrote);
			c->writes += wrote;
		} else if (d->written) {
			str_rstrip_copy(orig, sizeof(orig), d->orig_text);
			err = knob_file_set(&e->ke, d, orig, &wrote);
			c->writes += wrote;
		}
	}
	if (err) {
		c->errors++;
		return err;
	}
	c->last_pick = pick;
	c->last_poll_ok = poll_ok;
	c->pick_set = c->pick_ever = true;
	return 0;
}
