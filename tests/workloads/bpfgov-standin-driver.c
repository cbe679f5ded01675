// SPDX-License-Identifier: GPL-2.0
/*
 * bpfgov-standin-driver: the driver of a stand-in request register, as
 * intel_pstate (active, HWP) or amd-pstate (active, EPP) is of the real one:
 * it rewrites the register of a random CPU at random times, with a new max,
 * EPP and desired, from its own copy of the register. Every K-th rewrite
 * also takes the min field back to the driver's own (--cache-min, or the
 * value found at start), as intel_pstate does from hwp_req_cached on a
 * policy change; the others keep the min field that is there. The driver's
 * own min is what the register held before bpfgov started: a driver
 * started after bpfgov must be told it (--cache-min), or its "own" min is
 * bpfgov's, and a rewrite from the cache takes nothing away.
 *
 * Before each rewrite it checks that CPU's register: every field but min
 * must be what it wrote last (a field that is not was reverted by another
 * writer). After the last rewrite it waits --settle-ms and checks every
 * CPU again, then prints one line:
 *   rewrites N cache-min M reverted R checked C
 * and, with --state FILE, one line per CPU: "cpu min others" (the
 * register's min field and its other fields, hex, at the final check).
 *
 * --on-read: rewrite a CPU's register as soon as someone else reads it
 * (inotify IN_ACCESS on the stand-in file), to land in the window between
 * a read-modify-write's read and its write; random times otherwise.
 *
 * --epp-root SYSFS: also act as intel_pstate does on a write of a CPU's
 * cpufreq/energy_performance_preference under SYSFS (a profile switch):
 * rewrite that CPU's register from the driver's cache, the new EPP in it
 * and the min field the driver's own (intel_pstate_set_energy_pref_index()
 * writes hwp_req_cached, which holds the driver's min, not bpfgov's). The
 * real driver does this inside the write; here it follows the write's
 * close (inotify), a few tens of microseconds later. These rewrites are
 * counted apart ("epp N") and do not count toward --rewrites.
 *
 * --back-log FILE: after every rewrite that took min back to the driver's
 * own, sample that CPU's register every 100 us (up to --back-ms, 1500)
 * until its min field is no longer the driver's, and write one line per
 * such rewrite: "cache|epp CPU T0_NS BACK_NS" (CLOCK_MONOTONIC; BACK_NS 0:
 * min stayed the driver's). What `govloader tail --json` stamps its
 * records with, so the two can be joined.
 *
 * Layouts (MSR X at byte offset 8*X of <msr-root>/N/msr):
 *   hwp:  HWP_REQUEST 0x774: min 7:0, max 15:8, desired 23:16, EPP 31:24
 *   cppc: CPPC_REQ 0xc00102b3: max 7:0, min 15:8, desired 23:16, EPP 31:24
 *
 * Usage: bpfgov-standin-driver --msr-root DIR --layout hwp|cppc --cpus N
 *        --rewrites N [--gap-us MIN:MAX] [--cache-every K] [--on-read]
 *        [--seed S] [--settle-ms MS] [--state FILE] [--epp-root SYSFS]
 *        [--back-log FILE] [--back-ms MS] [--cache-min V]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS	256

struct layout {
	uint64_t reg;
	unsigned int min_shift, max_shift;
	unsigned int max_lo, max_hi;	/* the range of max the driver sets */
};

static const struct layout hwp = { 0x774, 0, 8, 30, 40 };
static const struct layout cppc = { 0xc00102b3ULL, 8, 0, 150, 200 };

static const struct layout *L;
static int fds[MAX_CPUS], wds[MAX_CPUS], ncpu;
static uint64_t orig[MAX_CPUS], mine[MAX_CPUS];	/* mine: what this driver wrote last */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static unsigned long reverted, checked, epp_rewrites;
static int efd = -1, ewds[MAX_CPUS];	/* --epp-root: inotify on the EPP files */
static const char *eroot;
static FILE *back_log;
static unsigned long back_ms = 1500;
static long cache_min = -1;		/* --cache-min: the driver's own min field */

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static uint64_t minmask(void)
{
	return 0xffULL << L->min_shift;
}

static int reg_read(int cpu, uint64_t *v)
{
	return pread(fds[cpu], v, 8, (off_t)(L->reg * 8)) == 8 ? 0 : -1;
}

static int reg_write(int cpu, uint64_t v)
{
	return pwrite(fds[cpu], &v, 8, (off_t)(L->reg * 8)) == 8 ? 0 : -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The driver's own min, in place in the register. */
static uint64_t own_min(int cpu)
{
	return cache_min >= 0 ? ((uint64_t)cache_min << L->min_shift) & minmask() : orig[cpu] & minmask();
}

/* --back-log: how long until someone else's min replaces the driver's. */
static void log_back(const char *kind, int cpu)
{
	uint64_t t0 = now_ns(), end = t0 + back_ms * 1000000ULL, back = 0, cur;

	if (!back_log)
		return;
	while (now_ns() < end) {
		if (reg_read(cpu, &cur))
			break;
		if ((cur & minmask()) != own_min(cpu)) {
			back = now_ns();
			break;
		}
		sleep_us(100);
	}
	fprintf(back_log, "%s %d %llu %llu\n", kind, cpu, (unsigned long long)t0,
		(unsigned long long)back);
	fflush(back_log);
}

/* Every field but min is what this driver wrote last. */
static int check_cpu(int cpu, uint64_t cur)
{
	checked++;
	if ((cur & ~minmask()) == (mine[cpu] & ~minmask()))
		return 0;
	reverted++;
	fprintf(stderr, "bpfgov-standin-driver: cpu %d: driver fields reverted: wrote %#llx, found %#llx\n",
		cpu, (unsigned long long)mine[cpu], (unsigned long long)cur);
	return 1;
}

static int rewrite(int cpu, int from_cache)
{
	uint64_t cur, v, max, epp, des;

	if (reg_read(cpu, &cur))
		return -1;
	check_cpu(cpu, cur);
	max = L->max_lo + rnd(L->max_hi - L->max_lo + 1);
	epp = rnd(256);
	des = rnd(2) ? 0 : L->max_lo / 2 + rnd(L->max_lo / 2);
	v = orig[cpu] & ~(0xffULL << L->max_shift) & ~(0xffULL << 16) & ~(0xffULL << 24);
	v |= max << L->max_shift | des << 16 | epp << 24;
	v &= ~minmask();
	v |= from_cache ? own_min(cpu) : cur & minmask();
	if (reg_write(cpu, v))
		return -1;
	mine[cpu] = v;
	return 0;
}

/* EPP as intel_pstate maps the strings (epp_values[]): "default" is the
 * value the register held at start. */
static uint64_t epp_value(int cpu, const char *s)
{
	static const struct { const char *name; uint64_t v; } map[] = {
		{ "performance", 0 }, { "balance_performance", 128 },
		{ "balance_power", 192 }, { "power", 255 },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(s, map[i].name, strlen(map[i].name)) &&
		    (s[strlen(map[i].name)] == '\n' || !s[strlen(map[i].name)]))
			return map[i].v;
	return (orig[cpu] >> 24) & 0xff;
}

/* A write of CPU's EPP file: the register from the cache, new EPP, the
 * driver's min. */
static int epp_rewrite(int cpu)
{
	char path[PATH_MAX], buf[64] = "";
	uint64_t cur, v;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/energy_performance_preference",
		 eroot, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || reg_read(cpu, &cur))
		return -1;
	check_cpu(cpu, cur);
	v = mine[cpu] & ~(0xffULL << 24) & ~minmask();
	v |= epp_value(cpu, buf) << 24 | own_min(cpu);
	if (reg_write(cpu, v))
		return -1;
	mine[cpu] = v;
	epp_rewrites++;
	log_back("epp", cpu);
	return 0;
}

/* Wait up to @us, serving EPP writes (--epp-root) meanwhile. */
static int wait_epp(uint64_t us)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	uint64_t end = now_ns() + us * 1000;

	if (efd < 0) {
		sleep_us(us);
		return 0;
	}
	for (;;) {
		uint64_t t = now_ns();
		struct pollfd p = { .fd = efd, .events = POLLIN };
		ssize_t n;

		if (t >= end)
			return 0;
		if (poll(&p, 1, (int)((end - t) / 1000000) + 1) <= 0)
			continue;
		n = read(efd, buf, sizeof(buf));
		for (char *q = buf; n > 0 && q < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)q;

			for (int c = 0; c < ncpu; c++)
				if (ewds[c] == ev->wd && epp_rewrite(c))
					return -1;
			q += sizeof(*ev) + ev->len;
		}
	}
}

/* Wait up to @us for someone else's read of a register: the CPU, or -1. */
static int wait_read(int ifd, uint64_t us)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p = { .fd = ifd, .events = POLLIN };
	ssize_t n;
	int cpu = -1;

	if (poll(&p, 1, (int)(us / 1000) + 1) <= 0)
		return -1;
	n = read(ifd, buf, sizeof(buf));
	for (char *q = buf; n > 0 && q < buf + n;) {
		struct inotify_event *ev = (struct inotify_event *)q;

		for (int c = 0; c < ncpu && cpu < 0; c++)
			if (wds[c] == ev->wd)
				cpu = c;
		q += sizeof(*ev) + ev->len;
	}
	return cpu;
}

/* Events of our own reads: dropped. */
static void drain(int ifd)
{
	char buf[4096];

	while (read(ifd, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "msr-root", 1, 0, 'm' }, { "layout", 1, 0, 'l' }, { "cpus", 1, 0, 'c' },
		{ "rewrites", 1, 0, 'n' }, { "gap-us", 1, 0, 'g' }, { "cache-every", 1, 0, 'k' },
		{ "on-read", 0, 0, 'r' }, { "seed", 1, 0, 's' }, { "settle-ms", 1, 0, 'w' },
		{ "state", 1, 0, 'o' }, { "epp-root", 1, 0, 'e' }, { "back-log", 1, 0, 'b' },
		{ "back-ms", 1, 0, 'B' }, { "cache-min", 1, 0, 'M' }, { 0, 0, 0, 0 },
	};
	const char *root = NULL, *state = NULL, *blog = NULL;
	unsigned long n = 100, k = 4, gmin = 2000, gmax = 50000, settle = 1500, done = 0, cached = 0;
	int o, on_read = 0, ifd = -1;
	char path[PATH_MAX];
	FILE *f;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'm': root = optarg; break;
		case 'l': L = !strcmp(optarg, "hwp") ? &hwp : !strcmp(optarg, "cppc") ? &cppc : NULL; break;
		case 'c': ncpu = atoi(optarg); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'g': if (sscanf(optarg, "%lu:%lu", &gmin, &gmax) != 2 || gmax < gmin) ncpu = -1; break;
		case 'k': k = strtoul(optarg, NULL, 0); break;
		case 'r': on_read = 1; break;
		case 's': rng ^= strtoull(optarg, NULL, 0) * 0x2545f4914f6cdd1dULL; break;
		case 'w': settle = strtoul(optarg, NULL, 0); break;
		case 'o': state = optarg; break;
		case 'e': eroot = optarg; break;
		case 'b': blog = optarg; break;
		case 'B': back_ms = strtoul(optarg, NULL, 0); break;
		case 'M': cache_min = strtol(optarg, NULL, 0); if (cache_min < 0 || cache_min > 255) ncpu = -1; break;
		default: ncpu = -1;
		}
	}
	if (!root || !L || ncpu <= 0 || ncpu > MAX_CPUS || optind != argc) {
		fprintf(stderr, "usage: bpfgov-standin-driver --msr-root DIR --layout hwp|cppc --cpus N "
			"--rewrites N [--gap-us MIN:MAX] [--cache-every K] [--on-read] [--seed S] "
			"[--settle-ms MS] [--state FILE] [--epp-root SYSFS] [--back-log FILE] "
			"[--back-ms MS] [--cache-min V]\n");
		return 2;
	}
	if (blog && !(back_log = fopen(blog, "w"))) {
		fprintf(stderr, "bpfgov-standin-driver: %s: %s\n", blog, strerror(errno));
		return 1;
	}
	if (eroot && (efd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		perror("bpfgov-standin-driver: inotify");
		return 1;
	}
	if (on_read) {
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd < 0) {
			perror("bpfgov-standin-driver: inotify");
			return 1;
		}
	}
	for (int c = 0; c < ncpu; c++) {
		snprintf(path, sizeof(path), "%s/%d/msr", root, c);
		fds[c] = open(path, O_RDWR | O_CLOEXEC);
		if (fds[c] < 0 || reg_read(c, &orig[c])) {
			fprintf(stderr, "bpfgov-standin-driver: %s: %s\n", path, strerror(errno));
			return 1;
		}
		mine[c] = orig[c];
		if (on_read && (wds[c] = inotify_add_watch(ifd, path, IN_ACCESS)) < 0) {
			perror("bpfgov-standin-driver: inotify_add_watch");
			return 1;
		}
		if (eroot) {
			snprintf(path, sizeof(path),
				 "%s/devices/system/cpu/cpu%d/cpufreq/energy_performance_preference", eroot, c);
			if ((ewds[c] = inotify_add_watch(efd, path, IN_CLOSE_WRITE)) < 0) {
				fprintf(stderr, "bpfgov-standin-driver: %s: %s\n", path, strerror(errno));
				return 1;
			}
		}
	}
	while (done < n) {
		uint64_t gap = gmin + rnd(gmax - gmin + 1);
		int cpu = -1, from_cache;

		if (on_read)
			cpu = wait_read(ifd, gap);
		else if (wait_epp(gap)) {
			fprintf(stderr, "bpfgov-standin-driver: EPP rewrite: %s\n", strerror(errno));
			return 1;
		}
		if (cpu < 0)
			cpu = (int)rnd(ncpu);
		from_cache = k && (done + 1) % k == 0;
		if (rewrite(cpu, from_cache)) {
			fprintf(stderr, "bpfgov-standin-driver: cpu %d: %s\n", cpu, strerror(errno));
			return 1;
		}
		if (on_read)
			drain(ifd);
		done++;
		cached += from_cache;
		if (from_cache)
			log_back("cache", cpu);
	}
	if (wait_epp(settle * 1000)) {
		fprintf(stderr, "bpfgov-standin-driver: EPP rewrite: %s\n", strerror(errno));
		return 1;
	}
	f = state ? fopen(state, "w") : NULL;
	for (int c = 0; c < ncpu; c++) {
		uint64_t cur;

		if (reg_read(c, &cur))
			return 1;
		check_cpu(c, cur);
		if (f)
			fprintf(f, "%d %llu %#llx\n", c, (unsigned long long)((cur & minmask()) >> L->min_shift),
				(unsigned long long)(cur & ~minmask()));
	}
	if (f)
		fclose(f);
	if (back_log)
		fclose(back_log);
	printf("rewrites %lu cache-min %lu reverted %lu checked %lu", done, cached, reverted, checked);
	if (eroot)
		printf(" epp %lu", epp_rewrites);
	printf("\n");
	return reverted ? 3 : 0;
}
