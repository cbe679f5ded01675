// SPDX-License-Identifier: GPL-2.0
/*
 * Actuation backends: apply a CPU's floor (0..1024) and idle pick.
 *
 * Every register or file we may change is a "knob" (act_knob.c). Before
 * the first write to a knob its original is captured (the single place a
 * crash-safety journal hooks into; act_save_all() captures them ahead, at
 * start), writes happen only on change, act_reassert() rewrites knobs that
 * someone else changed, and act_restore() puts every original of a written
 * knob back byte-exact.
 *
 * This file is the public interface (actuate.h): the backend plan made
 * from the platform's facts (platform.c), the choice of a floor backend
 * from the table below, and the calls through it. The backends sit below
 * (act_backend.h): act_msr.c (intel-hwp, amd-cppc), act_cpufreq.c, and the
 * idle knobs (act_idle.c: PM QoS, cpuidle state knobs) and EPP (act_epp.c).
 *
 * Floor scaling (all backends): min = lowest + round((highest - lowest) *
 * floor / 1024), rounding half up ((range * floor + 512) / 1024 in integers),
 * floor clamped to 1024. With lowest 8, highest 40: 0 -> 8, 512 -> 24,
 * 1024 -> 40. For MSRs the result is capped at the request's max field
 * (unless that field is 0: a request nobody has programmed); for cpufreq at
 * scaling_max_freq.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actuate.h"
#include "act_backend.h"
#include "log.h"
#include "platform.h"
#include "util.h"

struct actuator {
	struct act_env e;		/* what the backends see (act_backend.h) */
	struct act_opts o;
	char *msr_root;
	char *sysfs_root;
	char *proc_root;
	struct platform plat;		/* what the machine offers (platform.c) */
	enum act_backend order[4];	/* the plan, ACT_NONE-terminated */
	int order_pos;			/* the plan entry in use */
	char reason[400];		/* why this backend */
	bool taints;			/* MSR writes through the msr driver */
	enum act_backend backend;
	char *missing;
};

/* The floor backends, by --backend id: a new backend is its own file with
 * its struct act_floor_ops, and a line here. */
static const struct act_floor_ops *const floor_backends[] = {
	[ACT_INTEL_HWP]	= &act_intel_hwp_ops,
	[ACT_AMD_CPPC]	= &act_amd_cppc_ops,
	[ACT_CPUFREQ]	= &act_cpufreq_ops,
};
#define NR_FLOOR_IDS	(int)(sizeof(floor_backends) / sizeof(floor_backends[0]))

/* The backend of @b, NULL for ACT_AUTO, ACT_NONE and unknown ids. */
static const struct act_floor_ops *floor_ops(enum act_backend b)
{
	return (unsigned int)b < NR_FLOOR_IDS ? floor_backends[b] : NULL;
}

static struct act_cpu *act_cpu_get(const struct actuator *a, int cpu)
{
	return a ? act_env_cpu(&a->e, cpu) : NULL;
}


int act_save_all(struct actuator *a, bool idle)
{
	int err = 0;

	if (!a || a->o.dry_run)
		return 0;
	/* the governor first: a crash restore, last record first, puts it
	 * back after every per-CPU knob, as act_restore() does */
	if (a->o.idle && a->e.gov.path)
		err = knob_save_ahead(&a->e.ke, &a->e.gov);
	for (int i = 0; i < a->e.nr_cpus && !err; i++) {
		struct act_cpu *c = &a->e.cpus[i];

		if (a->o.floor && a->backend != ACT_NONE && c->has_floor)
			err = knob_save_ahead(&a->e.ke, &c->floor);
		if (err || !idle || !a->o.idle || !c->has_qos)
			continue;
		err = knob_save_ahead(&a->e.ke, &c->qos);
		for (int k = 0; !err && a->e.use_disable && k < c->nr_disable; k++)
			err = knob_save_ahead(&a->e.ke, &c->disable[k]);
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Probing                                                              */

static bool cpu_online(const struct actuator *a, int cpu)
{
	char buf[KNOB_TEXT], *p;
	bool on = true;

	p = fmt_alloc("%s/devices/system/cpu/cpu%d/online", a->sysfs_root, cpu);
	if (p && read_norm(p, buf, sizeof(buf)) == 0 && !strcmp(buf, "0"))
		on = false;
	free(p);
	return on;
}

/* Undo a floor-backend probe on every CPU. */
static void floor_reset(struct actuator *a)
{
	for (int i = 0; i < a->e.nr_cpus; i++) {
		struct act_cpu *c = &a->e.cpus[i];

		if (c->msr_fd >= 0)
			close(c->msr_fd);
		c->msr_fd = -1;
		free(c->msr_path);
		c->msr_path = NULL;
		knob_free(&c->floor);
		knob_init(&c->floor, i);
		c->has_floor = false;
		c->lowest = c->highest = c->orig_min = 0;
	}
}

/* Probe a floor backend on every online CPU. 0 when at least one CPU works
 * and none is broken; -ENOENT when no CPU has it (@why names the first
 * missing file); another -errno when broken (@why says why). */
static int probe_backend(struct actuator *a, enum act_backend b, char *why, size_t n)
{
	const struct act_floor_ops *ops = floor_ops(b);
	char first[256] = "";
	int ok = 0, err;

	for (int i = 0; i < a->e.nr_cpus; i++) {
		struct act_cpu *c = &a->e.cpus[i];
		char w[256] = "";

		if (!c->online) {
			pr_debug("cpu %d offline: skipped\n", i);
			continue;
		}
		err = ops->probe_cpu(&a->e, c, i, w, sizeof(w));
		if (err == -ENOENT) {
			pr_debug("%s: cpu %d: %s: skipped\n", act_backend_name(b), i, w);
			if (!first[0])
				snprintf(first, sizeof(first), "%s", w);
			c->has_floor = false;
			continue;
		}
		if (err) {
			snprintf(why, n, "%s", w);
			floor_reset(a);
			return err;
		}
		ok++;
	}
	if (!ok) {
		snprintf(why, n, "%s", first[0] ? first : "no online CPU");
		floor_reset(a);
		return -ENOENT;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Public API                                                           */

const char *act_backend_name(enum act_backend b)
{
	const struct act_floor_ops *ops = floor_ops(b);

	if (ops)
		return ops->name;
	return b == ACT_AUTO ? "auto" : b == ACT_NONE ? "none" : "?";
}

int act_backend_parse(const char *s, enum act_backend *out)
{
	for (int b = ACT_AUTO; b < NR_FLOOR_IDS; b++) {
		if (s && !strcmp(s, act_backend_name(b))) {
			*out = b;
			return 0;
		}
	}
	return -EINVAL;
}

enum act_backend act_backend(const struct actuator *a)
{
	return a ? a->backend : ACT_NONE;
}

const char *act_missing(const struct actuator *a)
{
	return a ? a->missing : NULL;
}

bool act_idle_available(const struct actuator *a)
{
	return a && a->e.idle_ok;
}

const char *act_reason(const struct actuator *a)
{
	return a ? a->reason : "";
}

__u64 act_writes(const struct actuator *a, int cpu)
{
	const struct act_cpu *c = act_cpu_get(a, cpu);

	return c ? c->writes : 0;
}

const struct platform *act_platform(const struct actuator *a)
{
	return a ? &a->plat : NULL;
}

const char *act_epp(const struct actuator *a)
{
	return a ? a->e.epp : NULL;
}

bool act_taints(const struct actuator *a)
{
	return a && a->taints;
}

/* CPUs that came online since the last probe get their floor knob (the
 * backend in use) and PM QoS file; every CPU forgets what was applied so
 * the next request writes anew (the driver rewrote the registers). */
int act_reapply(struct actuator *a)
{
	char w[256];

	if (!a)
		return -EINVAL;
	for (int i = 0; i < a->e.nr_cpus; i++) {
		struct act_cpu *c = &a->e.cpus[i];
		bool was = c->online;

		c->online = cpu_online(a, i);
		c->floor_set = false;
		c->pick_set = false;
		if (!c->online || was || c->has_floor || a->backend == ACT_NONE)
			continue;
		w[0] = '\0';
		if (floor_ops(a->backend)->probe_cpu(&a->e, c, i, w, sizeof(w)))
			pr_debug("cpu %d came online without a usable floor knob: %s\n", i, w);
	}
	return a->e.epp ? act_apply_epp(a) : 0;
}

void act_set_save_hook(struct actuator *a, act_save_hook_fn fn, void *ctx)
{
	if (!a)
		return;
	a->e.ke.hook = fn;
	a->e.ke.hook_ctx = ctx;
}

static __thread char last_error[512];

const char *act_last_error(void)
{
	return last_error[0] ? last_error : NULL;
}

/* An act_open() failure: one line, kept for act_last_error(). */
static void act_fail(const struct actuator *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void act_fail(const struct actuator *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (!a->o.quiet)
		pr_warn("%s\n", last_error);
}

static void set_reason(struct actuator *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_reason(struct actuator *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->reason, sizeof(a->reason), fmt, ap);
	va_end(ap);
}

static bool is_msr_backend(enum act_backend b)
{
	const struct act_floor_ops *ops = floor_ops(b);

	return ops && ops->msr;
}

/* A backend is in use: say why, and whether its writes taint. */
static void floor_chosen(struct actuator *a, enum act_backend b, const char *why)
{
	const struct act_floor_ops *ops = floor_ops(b);

	a->backend = b;
	a->taints = ops->msr && !a->e.msr_standin;
	if (ops->knob)
		set_reason(a, "%s; %s", why, ops->knob);
	else
		set_reason(a, "%s", why);
}

/* The plan: who owns the register and whether MSR writes are permitted
 * (platform.c facts) decide which backends to try, in which order. */
int act_backend_plan(const struct platform *p, enum act_backend want,
		     enum act_backend order[4], char *reason, size_t n)
{
	char obuf[160], rbuf[160];
	const char *owner = plat_msr_owner(p, obuf, sizeof(obuf));
	const char *refused = plat_msr_refused(p, rbuf, sizeof(rbuf));
	int k = 0;

	if (want == ACT_INTEL_HWP || want == ACT_AMD_CPPC) {
		if (owner || refused) {
			snprintf(reason, n, "--backend %s refused: %s (use --backend cpufreq)",
				 act_backend_name(want), refused ? refused : owner);
			order[0] = ACT_NONE;
			return -EPERM;
		}
		order[k++] = want;
		order[k] = ACT_NONE;
		snprintf(reason, n, "forced by --backend");
		return 0;
	}
	if (want == ACT_CPUFREQ || want == ACT_NONE) {
		order[k++] = want;
		order[k] = ACT_NONE;
		snprintf(reason, n, "forced by --backend");
		return 0;
	}
	if (refused || owner) {
		snprintf(reason, n, "%s", refused ? refused : owner);
	} else if (!p->msr_driver) {
		snprintf(reason, n, "no MSR driver (modprobe msr)");
	} else {
		if (plat_msr_amd(p)) {
			order[k++] = ACT_AMD_CPPC;
			order[k++] = ACT_INTEL_HWP;
		} else {
			order[k++] = ACT_INTEL_HWP;
			order[k++] = ACT_AMD_CPPC;
		}
		if (!strcmp(p->cpufreq_driver, "none"))
			snprintf(reason, n, "no cpufreq driver: nothing else writes the min field");
		else
			snprintf(reason, n, "%s %s mode leaves the min field to its limits",
				 !strcmp(p->cpufreq_driver, "intel_pstate") ? "intel_pstate" : "amd-pstate",
				 *p->pstate_mode ? p->pstate_mode : "active");
	}
	order[k++] = ACT_CPUFREQ;
	order[k] = ACT_NONE;
	return 0;
}

#define NO_MSRS	"no usable HWP/CPPC MSRs: "

/*
 * The floor backend: the plan (act_backend_plan: who owns the
 * register, whether MSR writes are permitted), then the first backend of
 * the plan that works on the machine. Nothing is written here.
 */
static int open_floor(struct actuator *a)
{
	char why[320], w[256] = "", first_fail[600] = "";
	enum act_backend want = a->o.backend;
	int err = 0, msr_err = 0, k;

	a->backend = ACT_NONE;
	if (!a->o.floor) {
		set_reason(a, "floors are not applied (--no-floor)");
		return 0;
	}
	if (want != ACT_AUTO && want != ACT_NONE && !floor_ops(want)) {
		act_fail(a, "unknown actuation backend %d", want);
		return -EINVAL;
	}
	err = act_backend_plan(&a->plat, want, a->order, why, sizeof(why));
	if (err) {
		act_fail(a, "%s", why);
		return err;
	}
	if (want != ACT_AUTO) {
		if (want == ACT_NONE) {
			set_reason(a, "forced by --backend");
			return 0;
		}
		err = probe_backend(a, want, w, sizeof(w));
		if (err) {
			char absent[80] = "";

			if (err == -ENOENT)
				snprintf(absent, sizeof(absent), " (%s)", floor_ops(want)->absent);
			act_fail(a, "%s: %s%s", act_backend_name(want), w, absent);
			return err;
		}
		floor_chosen(a, want, why);
		return 0;
	}
	for (k = 0; a->order[k] != ACT_NONE; k++) {
		enum act_backend b = a->order[k];
		size_t n = strlen(first_fail);

		err = probe_backend(a, b, w, sizeof(w));
		if (!err) {
			a->order_pos = k;
			floor_chosen(a, b, is_msr_backend(b) || !msr_err ? why : first_fail);
			return 0;
		}
		pr_debug("%s: %s\n", act_backend_name(b), w);
		if (!is_msr_backend(b))
			continue;
		if (!msr_err || msr_err == -ENOENT)
			msr_err = err;
		snprintf(first_fail + n, sizeof(first_fail) - n, "%s%s: %s",
			 n ? "; " : NO_MSRS, act_backend_name(b), w);
		/* Stand-in files are put there on purpose: ones that work for
		 * no layout are a broken input, not a missing driver. */
		if (!is_msr_backend(a->order[k + 1]) && a->e.msr_standin && msr_err != -ENOENT) {
			act_fail(a, "MSR stand-in unusable: %s", first_fail + strlen(NO_MSRS));
			return msr_err;
		}
	}
	a->order_pos = k;
	if (!first_fail[0] && !a->plat.msr_driver)	/* say where it looked */
		a->missing = fmt_alloc("no MSR driver (%s/0/msr): modprobe msr; no cpufreq driver (%s)",
				       a->msr_root, w);
	else
		a->missing = fmt_alloc("%s; no cpufreq driver (%s)", first_fail[0] ? first_fail : why, w);
	if (!a->missing)
		return -ENOMEM;
	set_reason(a, "nothing to actuate the floor with: %s", a->missing);
	pr_debug("actuation: %s\n", a->missing);
	return 0;
}

int act_open(struct actuator **out, const struct act_opts *o)
{
	struct actuator *a;
	long n;
	int err;

	if (!out || !o)
		return -EINVAL;
	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->o = *o;
	a->msr_root = strdup(o->msr_root ? o->msr_root : "/dev/cpu");
	a->sysfs_root = strdup(o->sysfs_root ? o->sysfs_root : "/sys");
	a->proc_root = strdup(o->proc_root ? o->proc_root : DEFAULT_PROC_ROOT);
	a->o.msr_root = a->msr_root;
	a->o.sysfs_root = a->sysfs_root;
	a->o.proc_root = a->proc_root;
	a->o.epp = NULL;
	a->e.ke.dry_run = o->dry_run;
	a->e.msr_root = a->msr_root;
	a->e.sysfs_root = a->sysfs_root;
	a->e.idle = o->idle;
	knob_init(&a->e.gov, 0);
	last_error[0] = '\0';
	n = o->nr_cpus > 0 ? o->nr_cpus : sysconf(_SC_NPROCESSORS_CONF);
	if (n <= 0)
		n = 1;
	if (n > BPFGOV_MAX_CPUS)
		n = BPFGOV_MAX_CPUS;
	a->e.nr_cpus = n;
	a->e.cpus = calloc(n, sizeof(*a->e.cpus));
	if (!a->msr_root || !a->sysfs_root || !a->proc_root || !a->e.cpus ||
	    (o->epp && !(a->e.epp = strdup(o->epp))) ||
	    (o->idle_governor && !(a->e.gov_want = strdup(o->idle_governor)))) {
		err = -ENOMEM;
		goto fail;
	}
	{
		struct plat_roots r = {
			.sysfs_root = a->sysfs_root, .proc_root = a->proc_root,
			.msr_root = a->msr_root,
		};

		err = plat_probe(&a->plat, &r);
		if (err)
			goto fail;
	}
	for (int i = 0; i < a->e.nr_cpus; i++) {
		struct act_cpu *c = &a->e.cpus[i];

		c->msr_fd = -1;
		knob_init(&c->floor, i);
		knob_init(&c->qos, i);
		knob_init(&c->epp, i);
		for (int k = 0; k < BPFGOV_MAX_STATES; k++)
			knob_init(&c->disable[k], i);
		c->online = cpu_online(a, i);
	}

	err = open_floor(a);
	if (err)
		goto fail;
	if (o->idle) {
		err = idle_probe(&a->e);
		if (err)
			goto fail;
		if (!o->dry_run) {
			err = idle_check_writable(&a->e);
			if (err)
				goto fail;
		}
	}
	if (a->e.epp)
		epp_probe(&a->e);
	if (a->backend != ACT_NONE)
		pr_debug("actuation: %s, lowest %u highest %u on cpu 0%s\n",
			 act_backend_name(a->backend), a->e.cpus[0].lowest,
			 a->e.cpus[0].highest, o->dry_run ? " (dry-run)" : "");
	*out = a;
	return 0;
fail:
	act_close(a);
	return err;
}

static __u32 scale_floor(__u32 lo, __u32 hi, __u32 floor)
{
	if (floor > BPFGOV_SCALE)
		floor = BPFGOV_SCALE;
	return lo + (__u32)(((__u64)(hi - lo) * floor + BPFGOV_SCALE / 2) / BPFGOV_SCALE);
}

/*
 * EPERM from the first real MSR write: the kernel refuses MSR writes
 * (lockdown or msr.allow_writes=off) although the probe could not tell.
 * Put back what the MSR backend changed, then continue with the next
 * backend of the plan. One line.
 */
static int floor_fallback(struct actuator *a, int cpu)
{
	enum act_backend from = a->backend;
	char w[256] = "";
	int err = 0, k;

	for (int i = 0; i < a->e.nr_cpus; i++) {
		int r = knob_restore(&a->e.cpus[i].floor);

		if (r && !err)
			err = r;
		a->e.cpus[i].floor_set = false;
	}
	if (err)
		return err;	/* still pending: the normal restore path retries */
	floor_reset(a);
	a->backend = ACT_NONE;
	a->taints = false;
	for (k = a->order_pos + 1; a->order[k] != ACT_NONE; k++) {
		if (is_msr_backend(a->order[k]))
			continue;
		if (!probe_backend(a, a->order[k], w, sizeof(w))) {
			a->order_pos = k;
			floor_chosen(a, a->order[k], "MSR writes refused (EPERM)");
			break;
		}
	}
	if (a->backend == ACT_NONE) {
		free(a->missing);
		a->missing = fmt_alloc("MSR writes refused (EPERM); no cpufreq driver (%s)", w);
		set_reason(a, "nothing to actuate the floor with: %s",
			   a->missing ? a->missing : "MSR writes refused (EPERM)");
	}
	pr_warn("%s: writing MSRs of cpu %d failed with EPERM (writes refused by the kernel): "
		"nothing left changed, floor backend now %s\n", act_backend_name(from), cpu,
		act_backend_name(a->backend));
	return 0;
}

int act_set_floor(struct actuator *a, int cpu, __u32 floor)
{
	struct act_cpu *c = act_cpu_get(a, cpu);
	bool wrote;
	__u32 want;
	int err;

	if (!c)
		return -EINVAL;
	if (floor > BPFGOV_SCALE)
		floor = BPFGOV_SCALE;
again:
	if (!a->o.floor || a->backend == ACT_NONE || !c->has_floor) {
		if (a->backend != ACT_NONE && a->o.floor && !c->has_floor)
			pr_debug("cpu %d: offline or missing: floor not applied\n", cpu);
		c->last_floor = floor;
		c->floor_set = true;
		return 0;
	}
	if (c->floor_set && c->last_floor == floor)
		return 0;	/* unchanged: act_reassert() watches for drift */
	want = scale_floor(c->lowest, c->highest, floor);
	err = floor_ops(a->backend)->set_floor(&a->e, c, cpu, want, &wrote);
	c->writes += wrote;
	/* EPERM from an MSR write: the kernel refuses MSR writes */
	if (err == -EPERM && c->floor.refused && !(err = floor_fallback(a, cpu)))
		goto again;
	if (err) {
		c->errors++;
		return err;
	}
	c->last_floor = floor;
	c->floor_set = true;
	return 0;
}

int act_set_idle(struct actuator *a, int cpu, __u32 pick, const struct bpfgov_config *cfg)
{
	return act_set_idle_poll(a, cpu, pick, false, cfg);
}

int act_set_idle_poll(struct actuator *a, int cpu, __u32 pick, bool poll_ok,
		      const struct bpfgov_config *cfg)
{
	return idle_set(a ? &a->e : NULL, cpu, pick, poll_ok, cfg);
}

__u32 act_orig_qos_us(const struct actuator *a, int cpu)
{
	const struct act_cpu *c = act_cpu_get(a, cpu);

	if (!c || !c->has_qos)
		return 0;
	return c->qos_orig_na ? ACT_QOS_POLL_ONLY : c->qos_orig_us;
}

const char *act_epp_for_profile(const char *profile)
{
	if (!profile)
		return NULL;
	if (!strcmp(profile, "powersave"))
		return "balance_power";
	if (!strcmp(profile, "performance"))
		return "performance";
	return NULL;
}

int act_apply_epp(struct actuator *a)
{
	return a ? epp_apply(&a->e) : 0;
}

int act_apply_idle_governor(struct actuator *a)
{
	return a && a->o.idle ? idle_gov_apply(&a->e) : 0;
}

const char *act_idle_governor(const struct actuator *a)
{
	return a ? a->e.governor : "";
}

bool act_idle_uses_disable(const struct actuator *a)
{
	return a && a->e.use_disable;
}

int act_set_epp(struct actuator *a, const char *epp)
{
	return a ? epp_set(&a->e, epp) : -EINVAL;
}

int act_reassert(struct actuator *a)
{
	return act_reassert_skip(a, NULL);
}

/* One CPU's knobs: read back, re-assert where someone else changed them. */
static int reassert_cpu(struct actuator *a, struct act_cpu *c)
{
	struct knob *ks[3 + BPFGOV_MAX_STATES];
	int n = 0, total = 0, first = 0, r;

	/* EPP first: the driver rewrites the request register when EPP is
	 * written, so the floor comes after it. */
	ks[n++] = &c->epp;
	ks[n++] = &c->floor;
	ks[n++] = &c->qos;
	for (int k = 0; k < c->nr_disable; k++)
		ks[n++] = &c->disable[k];
	for (int j = 0; j < n; j++) {
		if (!ks[j]->path)
			continue;
		r = knob_reassert(&a->e.ke, ks[j]);
		if (r < 0) {
			c->errors++;
			if (!first)
				first = r;
		} else {
			c->writes += r;
			c->reasserts += r;
			total += r;
		}
	}
	return first ? first : total;
}

int act_reassert_cpu(struct actuator *a, int cpu)
{
	struct act_cpu *c = act_cpu_get(a, cpu);

	return c ? reassert_cpu(a, c) : -EINVAL;
}

int act_reassert_skip(struct actuator *a, const bool *skip)
{
	int total = 0, first = 0, r;

	if (!a)
		return -EINVAL;
	for (int i = 0; i < a->e.nr_cpus; i++) {
		if (skip && skip[i])
			continue;
		r = reassert_cpu(a, &a->e.cpus[i]);
		if (r < 0) {
			if (!first)
				first = r;
		} else {
			total += r;
		}
	}
	return first ? first : total;
}

int act_restore(struct actuator *a)
{
	int first = 0, r;

	if (!a || !a->e.cpus)
		return 0;
	for (int i = 0; i < a->e.nr_cpus; i++) {
		struct act_cpu *c = &a->e.cpus[i];

		r = knob_restore(&c->floor);
		if (r && !first)
			first = r;
		for (int k = 0; k < c->nr_disable; k++) {
			r = knob_restore(&c->disable[k]);
			if (r && !first)
				first = r;
		}
		r = knob_restore(&c->qos);
		if (r && !first)
			first = r;
		r = knob_restore(&c->epp);
		if (r && !first)
			first = r;
		/* the next request applies anew */
		c->floor_set = false;
		c->pick_set = false;
	}
	/* the governor last: its switch back finds the per-CPU knobs as
	 * they were when it was switched */
	r = idle_gov_restore(&a->e);
	if (r && !first)
		first = r;
	return first;
}

__u32 act_floor_eff(const struct actuator *a)
{
	for (int i = 0; a && i < a->e.nr_cpus; i++) {
		const struct act_cpu *c = &a->e.cpus[i];

		if (!c->has_floor)
			continue;
		if (!c->floor.is_msr || c->efficient <= c->lowest || c->highest <= c->lowest)
			return 0;
		/* the least floor that scale_floor() takes to it */
		for (__u32 f = 1; f <= BPFGOV_SCALE; f++)
			if (scale_floor(c->lowest, c->highest, f) >= c->efficient)
				return f;
		return BPFGOV_SCALE;
	}
	return 0;
}

int act_cpu_info(const struct actuator *a, int cpu, struct act_cpu_info *out)
{
	const struct act_cpu *c = act_cpu_get(a, cpu);

	if (!c || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->online = c->online;
	out->hw_lowest = c->lowest;
	out->hw_highest = c->highest;
	/* What was read back after the last write (or re-assertion), not
	 * the register now: reading a CPU's MSR interrupts that CPU, and
	 * this runs for every CPU, asleep or not, each second. */
	out->hw_min = c->orig_min;
	if (c->has_floor && c->floor.written)
		out->hw_min = c->floor.is_msr ? c->floor.seen_field
					      : (__u32)strtoul(c->floor.seen_text, NULL, 10);
	out->last_floor = c->last_floor;
	out->last_pick = c->pick_ever ? c->last_pick : BPFGOV_NO_STATE;
	out->writes = c->writes;
	out->reasserts = c->reasserts;
	out->errors = c->errors;
	if (c->has_floor && c->floor.is_msr) {
		out->driver_rewrites = c->floor.drv_rewrites;
		out->driver_races = c->floor.drv_races;
	}
	return 0;
}

void act_close(struct actuator *a)
{
	if (!a)
		return;
	act_restore(a);
	if (a->e.cpus) {
		floor_reset(a);
		for (int i = 0; i < a->e.nr_cpus; i++) {
			knob_free(&a->e.cpus[i].qos);
			knob_free(&a->e.cpus[i].epp);
			for (int k = 0; k < BPFGOV_MAX_STATES; k++)
				knob_free(&a->e.cpus[i].disable[k]);
		}
	}
	knob_free(&a->e.gov);
	free(a->e.gov_want);
	free(a->e.cpus);
	free(a->missing);
	free(a->msr_root);
	free(a->sysfs_root);
	free(a->proc_root);
	free(a->e.epp);
	free(a);
}

int act_pending(const struct actuator *a)
{
	int n = 0;

	if (!a || !a->e.cpus)
		return 0;
	n = a->e.gov.saved && a->e.gov.written;
	for (int i = 0; i < a->e.nr_cpus; i++) {
		const struct act_cpu *c = &a->e.cpus[i];

		n += (c->floor.saved && c->floor.written) + (c->qos.saved && c->qos.written) +
		     (c->epp.saved && c->epp.written);
		for (int k = 0; k < c->nr_disable; k++)
			n += c->disable[k].saved && c->disable[k].written;
	}
	return n;
}

void plat_choose(const struct platform *p, const struct plat_roots *r,
		 enum act_backend want, struct act_choice *out)
{
	struct act_opts ao = {
		.msr_root = r->msr_root, .sysfs_root = r->sysfs_root,
		.proc_root = r->proc_root, .backend = want, .dry_run = true,
		.floor = true, .idle = false, .nr_cpus = p->nr_cpus, .quiet = true,
	};
	struct actuator *a = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	err = act_open(&a, &ao);
	if (err) {
		out->backend = ACT_NONE;
		out->refused = err == -EPERM;
		out->broken = !out->refused;
		/* truncated to fit, as the line it comes from may be longer */
		fmt_checked(out->reason, sizeof(out->reason), "%s",
			    act_last_error() ? act_last_error() : strerror(-err));
		return;
	}
	out->backend = act_backend(a);
	fmt_checked(out->reason, sizeof(out->reason), "%s", act_reason(a));
	out->taints = act_taints(a);
	act_close(a);
}

void plat_json_fields(json_writer_t *w, const struct platform *p, const char *msr_root,
		      const struct act_choice *ch)
{
	char taint[32];

	plat_taint_letters(p->taint, taint, sizeof(taint));
	jsonw_name(w, "cpu");
	jsonw_start_object(w);
	jsonw_string_field(w, "vendor", p->vendor);
	jsonw_int_field(w, "family", p->family);
	jsonw_int_field(w, "model", p->model);
	jsonw_bool_field(w, "hwp", p->hwp);
	jsonw_bool_field(w, "cppc", p->cppc);
	jsonw_bool_field(w, "aperfmperf", p->aperfmperf);
	jsonw_bool_field(w, "hypervisor", p->hypervisor);
	jsonw_int_field(w, "nr_cpus", p->nr_cpus);
	jsonw_string_field(w, "online", p->online);
	jsonw_end_object(w);
	jsonw_name(w, "cpufreq");
	jsonw_start_object(w);
	jsonw_string_field(w, "driver", p->cpufreq_driver);
	jsonw_string_field(w, "mode", *p->pstate_mode ? p->pstate_mode : NULL);
	jsonw_bool_field(w, "hwp_dynamic_boost", p->hwp_dynamic_boost);
	jsonw_string_field(w, "governor", *p->cpufreq_governor ? p->cpufreq_governor : NULL);
	jsonw_bool_field(w, "epp", p->epp);
	jsonw_string_field(w, "epp_now", p->epp ? p->epp_now : NULL);
	jsonw_string_field(w, "epp_available", *p->epp_avail ? p->epp_avail : NULL);
	jsonw_end_object(w);
	jsonw_name(w, "msr");
	jsonw_start_object(w);
	jsonw_bool_field(w, "driver", p->msr_driver);
	jsonw_bool_field(w, "standin", p->msr_standin);
	jsonw_string_field(w, "root", msr_root);
	jsonw_string_field(w, "allow_writes", *p->allow_writes ? p->allow_writes : NULL);
	jsonw_end_object(w);
	jsonw_string_field(w, "lockdown", *p->lockdown ? p->lockdown : NULL);
	jsonw_name(w, "taint");
	jsonw_start_object(w);
	if (p->taint_known)
		jsonw_uint_field(w, "value", p->taint);
	else
		jsonw_null_field(w, "value");
	jsonw_string_field(w, "flags", taint);
	jsonw_end_object(w);
	jsonw_name(w, "cpuidle");
	jsonw_start_object(w);
	jsonw_string_field(w, "driver", p->idle_driver);
	jsonw_string_field(w, "governor", *p->idle_governor ? p->idle_governor : NULL);
	jsonw_end_object(w);
	jsonw_string_field(w, "hybrid", *p->hybrid ? p->hybrid : NULL);
	jsonw_name(w, "bpf");
	jsonw_start_object(w);
	jsonw_bool_field(w, "sched_ext", p->sched_ext);
	jsonw_string_field(w, "sched_ext_state", *p->sched_ext_state ? p->sched_ext_state : NULL);
	jsonw_bool_field(w, "btf", p->btf);
	if (p->kallsyms_known)
		jsonw_bool_field(w, "percpu_ksyms", p->percpu_ksyms);
	else
		jsonw_null_field(w, "percpu_ksyms");
	jsonw_end_object(w);
	if (!ch)
		return;
	jsonw_string_field(w, "backend", act_backend_name(ch->backend));
	jsonw_string_field(w, "backend_reason", ch->reason);
	jsonw_bool_field(w, "taints_kernel", ch->taints);
}
