// SPDX-License-Identifier: GPL-2.0
/*
 * Measurement sources of `govlab validate` (see measure.h).
 *
 * Delivered frequency: APERF (0xe8) counts at the delivered clock and MPERF
 * (0xe7) at the base clock while the CPU is in C0, so base × ΔAPERF/ΔMPERF
 * is the mean delivered frequency over the busy time. Reading them through
 * the msr driver never taints (only writes do). Without the msr driver, the
 * cpufreq driver's scaling_cur_freq is sampled instead.
 *
 * Energy: powercap's intel-rapl:* zones (intel-rapl:N = package N,
 * intel-rapl:N:M = its subzones: core, uncore, dram; AMD exposes the same
 * interface). energy_uj wraps to 0 past max_energy_range_uj.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "actuate.h"
#include "measure.h"
#include "util.h"

const char *freq_kind_name(enum freq_kind k)
{
	switch (k) {
	case FREQ_APERF_MPERF:	return "aperf-mperf";
	case FREQ_CUR_FREQ:	return "scaling_cur_freq";
	default:		return "none";
	}
}

static __u32 sysfs_khz(const char *sys, int cpu, const char *name)
{
	char path[PATH_MAX];
	__u32 v = 0;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/%s", sys, cpu, name);
	if (read_u32(path, &v))
		return 0;
	return v;
}

int freq_open(struct freq_src *f, const struct plat_roots *r, int nr_cpus)
{
	char path[PATH_MAX], curf[PATH_MAX];
	struct freq_sample s;
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->nr_cpus = nr_cpus;
	f->sysfs_root = strdup(r->sysfs_root);
	f->fd = calloc(nr_cpus, sizeof(*f->fd));
	if (!f->sysfs_root || !f->fd)
		return -ENOMEM;
	for (int i = 0; i < nr_cpus; i++)
		f->fd[i] = -1;
	f->min_khz = sysfs_khz(r->sysfs_root, 0, "cpuinfo_min_freq");
	f->max_khz = sysfs_khz(r->sysfs_root, 0, "cpuinfo_max_freq");
	f->base_khz = sysfs_khz(r->sysfs_root, 0, "base_frequency");
	if (!f->base_khz)
		f->base_khz = f->max_khz;

	snprintf(path, sizeof(path), "%s/0/msr", r->msr_root);
	snprintf(curf, sizeof(curf), "%s/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
		 r->sysfs_root);
	if (stat(path, &st)) {
		snprintf(f->why, sizeof(f->why), "APERF/MPERF: no MSR driver (%.160s missing: modprobe msr)",
			 path);
	} else {
		f->is_file = S_ISREG(st.st_mode);
		for (int i = 0; i < nr_cpus; i++) {
			snprintf(path, sizeof(path), "%s/%d/msr", r->msr_root, i);
			f->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		}
		f->kind = FREQ_APERF_MPERF;
		if (freq_sample(f, 0, &s) || !s.mperf) {
			snprintf(f->why, sizeof(f->why), "APERF/MPERF: %.160s/0/msr: unreadable or MPERF not counting",
				 r->msr_root);
			f->kind = FREQ_NONE;
		} else if (!f->base_khz) {
			snprintf(f->why, sizeof(f->why),
				 "APERF/MPERF readable but the base frequency is unknown (no cpufreq base_frequency or cpuinfo_max_freq)");
			f->kind = FREQ_NONE;
		}
	}
	if (f->kind == FREQ_NONE && path_exists(curf)) {
		f->kind = FREQ_CUR_FREQ;
		return 0;
	}
	if (f->kind == FREQ_NONE) {
		size_t n = strlen(f->why);

		snprintf(f->why + n, sizeof(f->why) - n, "; scaling_cur_freq: no cpufreq driver");
	}
	return 0;
}

int freq_sample(const struct freq_src *f, int cpu, struct freq_sample *s)
{
	char path[PATH_MAX];
	int err;

	memset(s, 0, sizeof(*s));
	if (cpu < 0 || cpu >= f->nr_cpus)
		return -EINVAL;
	switch (f->kind) {
	case FREQ_APERF_MPERF:
		if (f->fd[cpu] < 0)
			return -ENODEV;
		err = msr_read(f->fd[cpu], f->is_file, MSR_IA32_APERF, &s->aperf);
		if (!err)
			err = msr_read(f->fd[cpu], f->is_file, MSR_IA32_MPERF, &s->mperf);
		break;
	case FREQ_CUR_FREQ:
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 f->sysfs_root, cpu);
		err = read_u32(path, &s->cur_khz);
		break;
	default:
		err = -ENODEV;
	}
	s->ok = !err;
	return err;
}

__u32 freq_khz(const struct freq_src *f, const struct freq_sample *a,
	       const struct freq_sample *b)
{
	if (!a->ok || !b->ok)
		return 0;
	if (f->kind == FREQ_CUR_FREQ)
		return b->cur_khz;
	if (f->kind != FREQ_APERF_MPERF || b->mperf <= a->mperf || b->aperf < a->aperf)
		return 0;
	return (__u32)((double)f->base_khz * (double)(b->aperf - a->aperf) /
		       (double)(b->mperf - a->mperf));
}

void freq_close(struct freq_src *f)
{
	if (f->fd)
		for (int i = 0; i < f->nr_cpus; i++)
			if (f->fd[i] >= 0)
				close(f->fd[i]);
	free(f->fd);
	free(f->sysfs_root);
	f->fd = NULL;
	f->sysfs_root = NULL;
}

/* ------------------------------------------------------------ energy */

/* The counter runs from 0 up to below max_energy_range_uj and starts again
 * at 0; an unknown range (0) counts a wrap from 0. */
__u64 energy_delta(__u64 prev, __u64 now, __u64 max)
{
	if (now >= prev)
		return now - prev;
	/* wrapped: prev .. max, then 0 .. now */
	return max >= prev ? max - prev + now : now;
}

static int energy_read(const struct energy_dom *d, __u64 *uj)
{
	char path[PATH_MAX + 16], buf[64];
	int err;

	snprintf(path, sizeof(path), "%s/energy_uj", d->dir);
	err = read_line(path, buf, sizeof(buf));
	return err ? err : parse_u64(buf, uj);
}

int energy_open(struct energy_src *e, const struct plat_roots *r)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], buf[64];
	struct dirent *de;
	DIR *d;

	memset(e, 0, sizeof(*e));
	snprintf(dir, sizeof(dir), "%s/class/powercap", r->sysfs_root);
	d = opendir(dir);
	if (!d) {
		snprintf(e->why, sizeof(e->why), "no powercap (%.160s missing: CONFIG_POWERCAP, intel_rapl_msr)",
			 dir);
		return 0;
	}
	while ((de = readdir(d)) && e->nr < ENERGY_MAX_DOMAINS) {
		struct energy_dom *x = &e->dom[e->nr];

		if (strncmp(de->d_name, "intel-rapl:", 11))
			continue;
		if (fmt_checked(x->dir, sizeof(x->dir), "%s/%s", dir, de->d_name) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/name", x->dir);
		if (read_line(path, x->name, sizeof(x->name)))
			snprintf(x->name, sizeof(x->name), "%.63s", de->d_name);
		snprintf(path, sizeof(path), "%s/max_energy_range_uj", x->dir);
		if (read_line(path, buf, sizeof(buf)) || parse_u64(buf, &x->max_uj))
			x->max_uj = 0;
		if (energy_read(x, &x->last_uj))
			continue;	/* unreadable (not root): skip */
		e->nr++;
	}
	closedir(d);
	if (!e->nr)
		snprintf(e->why, sizeof(e->why), "no readable intel-rapl:* energy_uj under %.160s", dir);
	return 0;
}

void energy_update(struct energy_src *e)
{
	for (int i = 0; i < e->nr; i++) {
		struct energy_dom *x = &e->dom[i];
		__u64 now;

		if (energy_read(x, &now))
			continue;
		x->total_uj += energy_delta(x->last_uj, now, x->max_uj);
		x->wraps += now < x->last_uj;
		x->last_uj = now;
	}
}

long long energy_total(const struct energy_src *e, const char *prefix)
{
	long long sum = -1;

	for (int i = 0; i < e->nr; i++)
		if (!strncmp(e->dom[i].name, prefix, strlen(prefix)))
			sum = (sum < 0 ? 0 : sum) + (long long)e->dom[i].total_uj;
	return sum;
}

const char *energy_main(const struct energy_src *e)
{
	if (!e->nr)
		return NULL;
	return energy_total(e, "package") >= 0 ? "package" : e->dom[0].name;
}

/* ---------------------------------------------------------- snapshot */

struct snap_item {
	char *path;
	bool is_msr;
	__u32 msr;
	char text[128];
	size_t len;
	__u64 val;
};

struct knob_snap {
	int nr, cap;
	struct snap_item *it;
};

static int snap_add(struct knob_snap *s, char *path, bool is_msr, __u32 msr)
{
	struct snap_item *x;
	int fd;

	if (!path)
		return -ENOMEM;
	if (s->nr == s->cap) {
		int cap = s->cap ? 2 * s->cap : 64;
		void *p = realloc(s->it, cap * sizeof(*s->it));

		if (!p) {
			free(path);
			return -ENOMEM;
		}
		s->it = p;
		s->cap = cap;
	}
	x = &s->it[s->nr];
	memset(x, 0, sizeof(*x));
	x->path = path;
	x->is_msr = is_msr;
	x->msr = msr;
	if (is_msr) {
		struct stat st;

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) ||
		    msr_read(fd, S_ISREG(st.st_mode), msr, &x->val)) {
			if (fd >= 0)
				close(fd);
			free(path);
			return 0;	/* absent or not this vendor's register */
		}
		close(fd);
	} else if (read_text(path, 0, x->text, sizeof(x->text), &x->len)) {
		free(path);
		return 0;
	}
	s->nr++;
	return 0;
}

struct knob_snap *snap_take(const struct plat_roots *r, int nr_cpus)
{
	static const char *const files[] = {
		"cpufreq/scaling_min_freq", "cpufreq/scaling_max_freq",
		"cpufreq/energy_performance_preference", "power/pm_qos_resume_latency_us",
		NULL,
	};
	struct knob_snap *s = calloc(1, sizeof(*s));
	int err = 0;

	if (!s)
		return NULL;
	for (int c = 0; c < nr_cpus && !err; c++) {
		for (int i = 0; files[i] && !err; i++)
			err = snap_add(s, fmt_alloc("%s/devices/system/cpu/cpu%d/%s",
						    r->sysfs_root, c, files[i]), false, 0);
		for (int k = 0; k < BPFGOV_MAX_STATES && !err; k++)
			err = snap_add(s, fmt_alloc("%s/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
						    r->sysfs_root, c, k), false, 0);
		if (!err)
			err = snap_add(s, fmt_alloc("%s/%d/msr", r->msr_root, c), true, 0x774);
		if (!err)
			err = snap_add(s, fmt_alloc("%s/%d/msr", r->msr_root, c), true, 0xc00102b3);
	}
	if (err) {
		snap_free(s);
		return NULL;
	}
	return s;
}

int snap_compare(const struct knob_snap *s, char *diff, size_t n)
{
	size_t off = 0;
	int bad = 0;

	if (n)
		diff[0] = '\0';
	for (int i = 0; i < s->nr; i++) {
		const struct snap_item *x = &s->it[i];
		bool same;

		if (x->is_msr) {
			struct stat st;
			__u64 v = 0;
			int fd = open(x->path, O_RDONLY | O_CLOEXEC);

			same = fd >= 0 && !fstat(fd, &st) &&
			       !msr_read(fd, S_ISREG(st.st_mode), x->msr, &v) && v == x->val;
			if (fd >= 0)
				close(fd);
		} else {
			char now[128];
			size_t len;

			same = !read_text(x->path, 0, now, sizeof(now), &len) && len == x->len &&
			       !memcmp(now, x->text, len);
		}
		if (same)
			continue;
		bad++;
		if (off < n)
			off += snprintf(diff + off, n - off, "%s%s%s", off ? ", " : "", x->path,
					x->is_msr ? (x->msr == 0x774 ? " (MSR 0x774)" : " (MSR 0xc00102b3)")
						  : "");
	}
	return bad;
}

int snap_count(const struct knob_snap *s)
{
	return s ? s->nr : 0;
}

void snap_free(struct knob_snap *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr; i++)
		free(s->it[i].path);
	free(s->it);
	free(s);
}
