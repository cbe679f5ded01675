// SPDX-License-Identifier: GPL-2.0
/*
 * scxbench: small, static workloads for the sched_ext VM tests.
 *
 *   scxbench pingpong SECS         two threads pass a byte over two pipes;
 *                                  prints "pingpong <loops/s>"
 *   scxbench threads N SECS        N threads each run short work chunks and
 *                                  sleep briefly every few chunks (lots of
 *                                  wakeups and migrations); prints
 *                                  "threads <chunks/s>"
 *   scxbench spin N SECS           N busy threads (overload stress); prints
 *                                  "spin <chunks/s>"
 *   scxbench busy SECS             one busy thread (utilization goes up)
 *   scxbench ext SECS              switch to SCHED_EXT (policy 7), then
 *                                  alternate work and short sleeps; prints
 *                                  "ext <policy> <chunks/s>" (for
 *                                  --scx-partial, where only such tasks are
 *                                  scheduled by the BPF scheduler)
 *
 * Linked statically so the guest needs no libraries for it.  Throughput is
 * what the scheduler comparison needs, so every mode reports a rate.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop_flag;
static atomic_ullong total;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ~10-20 us of work under TCG; the exact amount does not matter, only that
 * both schedulers run the same amount per chunk. */
static unsigned long work_chunk(unsigned long seed)
{
	volatile unsigned long x = seed;

	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static int pp_fd[2][2];

static void *pp_echo(void *arg)
{
	char c;

	(void)arg;
	for (;;) {
		if (read(pp_fd[0][0], &c, 1) != 1)
			break;
		if (c == 'q' || write(pp_fd[1][1], &c, 1) != 1)
			break;
	}
	return NULL;
}

static int do_pingpong(double secs)
{
	pthread_t t;
	unsigned long loops = 0;
	double t0, t1;
	char c = 'x';

	if (pipe(pp_fd[0]) || pipe(pp_fd[1])) {
		perror("pipe");
		return 1;
	}
	pthread_create(&t, NULL, pp_echo, NULL);
	t0 = now_s();
	do {
		for (int i = 0; i < 256; i++) {
			if (write(pp_fd[0][1], &c, 1) != 1 || read(pp_fd[1][0], &c, 1) != 1) {
				perror("pingpong");
				return 1;
			}
		}
		loops += 256;
		t1 = now_s();
	} while (t1 - t0 < secs);
	c = 'q';
	if (write(pp_fd[0][1], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("pingpong %.0f\n", loops / (t1 - t0));
	return 0;
}

static int sleep_every;	/* 0: never sleep */

static void *worker(void *arg)
{
	unsigned long n = 0, seed = (unsigned long)arg;
	struct timespec nap = { 0, 50000 };

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		seed = work_chunk(seed);
		n++;
		if (sleep_every && n % sleep_every == 0)
			nanosleep(&nap, NULL);
	}
	atomic_fetch_add(&total, n);
	return NULL;
}

static int do_threads(const char *name, int n, double secs, int every)
{
	pthread_t *t = calloc(n, sizeof(*t));
	double t0, t1;

	if (!t)
		return 1;
	sleep_every = every;
	t0 = now_s();
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(unsigned long)(i + 1));
	{
		struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
	}
	atomic_store(&stop_flag, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	t1 = now_s();
	printf("%s %.0f\n", name, atomic_load(&total) / (t1 - t0));
	free(t);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: scxbench pingpong SECS | threads N SECS | spin N SECS | busy SECS | ext SECS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "pingpong"))
		return do_pingpong(atof(argv[2]));
	if (!strcmp(argv[1], "ext")) {
		struct sched_param sp = { 0 };

		/* SCHED_EXT = 7; threads inherit the policy. */
		if (sched_setscheduler(0, 7, &sp)) {
			perror("sched_setscheduler(SCHED_EXT)");
			return 1;
		}
		printf("policy %d\n", sched_getscheduler(0));
		return do_threads("ext", 2, atof(argv[2]), 4);
	}
	if (!strcmp(argv[1], "busy"))
		return do_threads("busy", 1, atof(argv[2]), 0);
	if (argc < 4)
		usage();
	if (!strcmp(argv[1], "threads"))
		return do_threads("threads", atoi(argv[2]), atof(argv[3]), 4);
	if (!strcmp(argv[1], "spin"))
		return do_threads("spin", atoi(argv[2]), atof(argv[3]), 0);
	usage();
	return 2;
}
