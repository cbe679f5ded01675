// SPDX-License-Identifier: GPL-2.0
/*
 * bpfgov-counters: advances the counters of a stand-in platform tree, the
 * way hardware would, until killed:
 *   - APERF (0xe8) / MPERF (0xe7) in <msr-root>/N/msr (MSR X at offset 8*X):
 *     MPERF at the base clock, APERF at a delivered clock that follows the
 *     request's min field (HWP_REQUEST 0x774 or CPPC_REQ 0xc00102b3), else
 *     scaling_min_freq: a raised floor shows up as a higher frequency;
 *   - cpuN/cpufreq/scaling_cur_freq = that delivered clock;
 *   - class/powercap/intel-rapl:*\/energy_uj from the clock (package 6 W,
 *     core 3 W since the start, from the value found), wrapping to 0 at
 *     max_energy_range_uj as the kernel's counter does: the energy of any
 *     interval is its length times the power, whatever the writer's own
 *     scheduling.
 *
 * Usage: bpfgov-counters --msr-root DIR --sysfs-root DIR [--cpus N]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BASE_KHZ	2000000ull
#define MIN_KHZ		800000ull
#define MAX_KHZ		4000000ull

static volatile sig_atomic_t stop;

static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

static int msr_rd(int fd, uint32_t msr, uint64_t *v)
{
	return pread(fd, v, 8, (off_t)msr * 8) == 8 ? 0 : -1;
}

static void msr_wr(int fd, uint32_t msr, uint64_t v)
{
	if (pwrite(fd, &v, 8, (off_t)msr * 8) != 8)
		perror("bpfgov-counters: pwrite");
}

static uint64_t file_u64(const char *path, uint64_t def)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;

	if (!f)
		return def;
	if (fscanf(f, "%llu", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/* Replace the value atomically (a reader never sees an empty file, as
 * with sysfs). */
static void file_put(const char *path, uint64_t v)
{
	char buf[32], tmp[4200];
	int n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)v), fd;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, buf, n) != n)
		perror("bpfgov-counters: write");
	close(fd);
	if (rename(tmp, path))
		perror("bpfgov-counters: rename");
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* Delivered kHz from the request's min field, as a fraction of its range. */
static uint64_t delivered_khz(int fd, const char *sys, int cpu)
{
	uint64_t en = 0, caps, req, lo, hi, min;
	char path[4096];

	if (fd >= 0 && !msr_rd(fd, 0x770, &en) && (en & 1) && !msr_rd(fd, 0x771, &caps) &&
	    !msr_rd(fd, 0x774, &req)) {
		lo = (caps >> 24) & 0xff;
		hi = caps & 0xff;
		min = req & 0xff;
	} else if (fd >= 0 && !msr_rd(fd, 0xc00102b1, &en) && (en & 1) &&
		   !msr_rd(fd, 0xc00102b0, &caps) && !msr_rd(fd, 0xc00102b3, &req)) {
		lo = caps & 0xff;
		hi = (caps >> 24) & 0xff;
		min = (req >> 8) & 0xff;
	} else {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/scaling_min_freq",
			 sys, cpu);
		lo = MIN_KHZ;
		hi = MAX_KHZ;
		min = file_u64(path, MIN_KHZ);
	}
	if (hi <= lo || min <= lo)
		return MIN_KHZ;
	if (min > hi)
		min = hi;
	return MIN_KHZ + (MAX_KHZ - MIN_KHZ) * (min - lo) / (hi - lo);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "msr-root", required_argument, NULL, 'm' },
		{ "sysfs-root", required_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *msr = NULL, *sys = NULL;
	char path[4096], rapl[8][4096];
	int ncpu = 2, nr = 0, c, *fd;
	uint64_t rapl_w[8], rapl_max[8], rapl_e0[8], t0;
	struct timespec ts = { 0, 1000000 };
	DIR *d;
	struct dirent *de;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'm': msr = optarg; break;
		case 's': sys = optarg; break;
		case 'c': ncpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: bpfgov-counters --msr-root DIR --sysfs-root DIR [--cpus N]\n");
			return 2;
		}
	}
	if (!msr || !sys || ncpu <= 0) {
		fprintf(stderr, "usage: bpfgov-counters --msr-root DIR --sysfs-root DIR [--cpus N]\n");
		return 2;
	}
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	fd = calloc(ncpu, sizeof(*fd));
	if (!fd)
		return 1;
	for (int i = 0; i < ncpu; i++) {
		snprintf(path, sizeof(path), "%s/%d/msr", msr, i);
		fd[i] = open(path, O_RDWR | O_CLOEXEC);
	}
	snprintf(path, sizeof(path), "%s/class/powercap", sys);
	d = opendir(path);
	while (d && (de = readdir(d)) && nr < 8) {
		char name[64] = "", f2[4096 + 320];
		FILE *f;

		if (strncmp(de->d_name, "intel-rapl:", 11) || strlen(path) + 300 > sizeof(rapl[nr]))
			continue;
		snprintf(f2, sizeof(f2), "%s/%s/name", path, de->d_name);
		f = fopen(f2, "re");
		if (f) {
			if (!fgets(name, sizeof(name), f))
				name[0] = '\0';
			fclose(f);
		}
		rapl_w[nr] = strncmp(name, "core", 4) ? 6 : 3;	/* uJ per us: 6 W, 3 W */
		snprintf(f2, sizeof(f2), "%s/%s/max_energy_range_uj", path, de->d_name);
		rapl_max[nr] = file_u64(f2, 262143328850ull);
		snprintf(f2, sizeof(f2), "%s/%s/energy_uj", path, de->d_name);
		memcpy(rapl[nr], f2, strlen(f2) + 1);
		rapl_e0[nr] = file_u64(f2, 0);
		nr++;
	}
	if (d)
		closedir(d);
	t0 = now_us();

	while (!stop) {
		for (int i = 0; i < ncpu; i++) {
			uint64_t a = 0, m = 0, khz = delivered_khz(fd[i], sys, i);

			if (fd[i] >= 0 && !msr_rd(fd[i], 0xe8, &a) && !msr_rd(fd[i], 0xe7, &m)) {
				msr_wr(fd[i], 0xe7, m + BASE_KHZ);
				msr_wr(fd[i], 0xe8, a + khz);
			}
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
				 sys, i);
			if (!access(path, F_OK))
				file_put(path, khz);
		}
		for (int k = 0; k < nr; k++) {
			uint64_t e = rapl_e0[k] + rapl_w[k] * (now_us() - t0);

			file_put(rapl[k], rapl_max[k] ? e % rapl_max[k] : e);
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}
