// SPDX-License-Identifier: GPL-2.0
/*
 * bpfgov-standin-driver: the driver of a stand-in request register, as
 * intel_pstate (active, HWP) or amd-pstate (active, EPP) is of the real one:
 * it rewrites the register of a random CPU at random times, with a new max,
 * EPP and desired, from its own copy of the register. Every K-th rewrite
 * also takes the min field back to the driver's own (the value found at
 * start), as intel_pstate does from hwp_req_cached on a policy change; the
 * others keep the min field that is there.
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
 * Layouts (MSR X at byte offset 8*X of <msr-root>/N/msr):
 *   hwp:  HWP_REQUEST 0x774: min 7:0, max 15:8, desired 23:16, EPP 31:24
 *   cppc: CPPC_REQ 0xc00102b3: max 7:0, min 15:8, desired 23:16, EPP 31:24
 *
 * Usage: bpfgov-standin-driver --msr-root DIR --layout hwp|cppc --cpus N
 *        --rewrites N [--gap-us MIN:MAX] [--cache-every K] [--on-read]
 *        [--seed S] [--settle-ms MS] [--state FILE]
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
static unsigned long reverted, checked;

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

static int rewrite(int cpu, int cache_min)
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
	v |= (cache_min ? orig[cpu] : cur) & minmask();
	if (reg_write(cpu, v))
		return -1;
	mine[cpu] = v;
	return 0;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
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
		{ "state", 1, 0, 'o' }, { 0, 0, 0, 0 },
	};
	const char *root = NULL, *state = NULL;
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
		default: ncpu = -1;
		}
	}
	if (!root || !L || ncpu <= 0 || ncpu > MAX_CPUS || optind != argc) {
		fprintf(stderr, "usage: bpfgov-standin-driver --msr-root DIR --layout hwp|cppc --cpus N "
			"--rewrites N [--gap-us MIN:MAX] [--cache-every K] [--on-read] [--seed S] "
			"[--settle-ms MS] [--state FILE]\n");
		return 2;
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
	}
	while (done < n) {
		uint64_t gap = gmin + rnd(gmax - gmin + 1);
		int cpu = -1, cache_min;

		if (on_read)
			cpu = wait_read(ifd, gap);
		else
			sleep_us(gap);
		if (cpu < 0)
			cpu = (int)rnd(ncpu);
		cache_min = k && (done + 1) % k == 0;
		if (rewrite(cpu, cache_min)) {
			fprintf(stderr, "bpfgov-standin-driver: cpu %d: %s\n", cpu, strerror(errno));
			return 1;
		}
		if (on_read)
			drain(ifd);
		done++;
		cached += cache_min;
	}
	sleep_us(settle * 1000);
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
	printf("rewrites %lu cache-min %lu reverted %lu checked %lu\n", done, cached, reverted, checked);
	return reverted ? 3 : 0;
}
