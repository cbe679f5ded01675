// SPDX-License-Identifier: GPL-2.0
/*
 * scxbench: small, static workloads for the sched_ext VM tests.
 *
 *   scxbench pingpong SECS [pin]   two threads pass a byte over two pipes;
 *                                  prints "pingpong <loops/s>"; with
 *                                  "pin", the threads are pinned to CPU 0
 *                                  and CPU 1 (every hop is a cross-CPU
 *                                  wake-up)
 *   scxbench wakelat SECS          schbench-style timed wake-up: a
 *                                  messenger stamps the time and wakes a
 *                                  sleeping worker, which measures how
 *                                  late it runs; prints
 *                                  "wakelat <p50 us> <p99 us> <samples>"
 *   scxbench pipe SECS             perf bench sched pipe's measure: two
 *                                  processes pass a word over two pipes;
 *                                  prints "pipe <round trips/s>"
 *   scxbench msg GROUPS SECS       hackbench-style messaging: each group has
 *                                  MSG_SENDERS sender and MSG_RECEIVERS
 *                                  receiver threads, every sender writes
 *                                  100-byte messages to every receiver of
 *                                  its group over socketpairs; prints
 *                                  "msg <messages/s>"
 *   scxbench wakeload SECS HOGS    schbench-style wake-up latency under
 *                                  load: HOGS busy threads, and a timer
 *                                  thread that every WL_PERIOD_US stamps
 *                                  the time and wakes WL_WORKERS sleeping
 *                                  workers, each of which measures how late
 *                                  it runs; prints "wakeload <p50 us>
 *                                  <p99 us> <samples>"
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
 *   scxbench share SECS CPU A B [C [D]]
 *                                  CPU hogs (processes) pinned to CPU, one
 *                                  per spec: "nice:N" (its nice value) or
 *                                  "cg:DIR" (joins the cgroup2 directory
 *                                  DIR); prints "share <A ms> <B ms> ...
 *                                  <A/B>", the CPU time each got (fairness
 *                                  under weights)
 *
 * Linked statically so the guest needs no libraries for it.  Throughput is
 * what the scheduler comparison needs, so every mode reports a rate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *pp_echo(void *arg)
{
	char c;

	if (arg)
		pin_to(1);
	for (;;) {
		if (read(pp_fd[0][0], &c, 1) != 1)
			break;
		if (c == 'q' || write(pp_fd[1][1], &c, 1) != 1)
			break;
	}
	return NULL;
}

static int do_pingpong(double secs, int pin)
{
	pthread_t t;
	unsigned long loops = 0;
	double t0, t1;
	char c = 'x';

	if (pipe(pp_fd[0]) || pipe(pp_fd[1])) {
		perror("pipe");
		return 1;
	}
	if (pin)
		pin_to(0);
	pthread_create(&t, NULL, pp_echo, pin ? (void *)1 : NULL);
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

/* Timed wake-up (schbench's measure): the messenger writes the time it
 * wakes the worker; the worker reads it the moment it runs. */
static int wl_fd[2][2];

static void *wl_worker(void *arg)
{
	double *lat = arg, sent;
	unsigned long n = 0;

	while (read(wl_fd[0][0], &sent, sizeof(sent)) == sizeof(sent) && sent > 0) {
		lat[n++] = (now_s() - sent) * 1e6;
		work_chunk(n);		/* think time, then ack and sleep */
		if (write(wl_fd[1][1], "a", 1) != 1)
			break;
	}
	lat[n] = -1;
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int do_wakelat(double secs)
{
	enum { MAX = 1 << 20 };
	struct timespec nap = { 0, 500000 };
	double *lat = calloc(MAX + 1, sizeof(*lat)), t0, t;
	unsigned long n = 0;
	pthread_t w;
	char c;

	if (!lat || pipe(wl_fd[0]) || pipe(wl_fd[1])) {
		perror("wakelat");
		return 1;
	}
	pthread_create(&w, NULL, wl_worker, lat);
	t0 = now_s();
	do {
		nanosleep(&nap, NULL);	/* let the worker's CPU go idle */
		t = now_s();
		if (write(wl_fd[0][1], &t, sizeof(t)) != sizeof(t) || read(wl_fd[1][0], &c, 1) != 1)
			return 1;
		n++;
	} while (t - t0 < secs && n < MAX);
	t = 0;
	if (write(wl_fd[0][1], &t, sizeof(t)) != sizeof(t))
		return 1;
	pthread_join(w, NULL);
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("wakelat %.1f %.1f %lu\n", lat[(n - 1) / 2], lat[(n - 1) * 99 / 100], n);
	free(lat);
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

/* Two hogs on one CPU, one process each (a cgroup holds processes): each
 * applies its spec, then both spin from the same moment until the parent
 * says stop, and report the CPU time they got. */
struct share_slot {
	atomic_int ready;
	unsigned long long cpu_ns;
	int err;
};
#define SHARE_MAX 4
struct share_shm {
	atomic_int go, stop;
	struct share_slot slot[SHARE_MAX];
};

static int share_apply(const char *spec)
{
	if (!strncmp(spec, "nice:", 5)) {
		errno = 0;
		if (setpriority(PRIO_PROCESS, 0, atoi(spec + 5))) {
			perror("setpriority");
			return -1;
		}
		return 0;
	}
	if (!strncmp(spec, "cg:", 3)) {
		char path[512];
		int fd, ok;

		snprintf(path, sizeof(path), "%s/cgroup.procs", spec + 3);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "scxbench: cannot open %s: %s\n", path, strerror(errno));
			return -1;
		}
		ok = write(fd, "0", 1) == 1;
		if (!ok)
			fprintf(stderr, "scxbench: cannot join %s: %s\n", spec + 3, strerror(errno));
		close(fd);
		return ok ? 0 : -1;
	}
	fprintf(stderr, "scxbench: share spec '%s' is neither nice:N nor cg:DIR\n", spec);
	return -1;
}

static void share_child(struct share_shm *m, int i, int cpu, const char *spec)
{
	struct timespec ts;
	unsigned long seed = (unsigned long)i + 1;

	pin_to(cpu);
	m->slot[i].err = share_apply(spec);
	atomic_store(&m->slot[i].ready, 1);
	while (!atomic_load(&m->go))
		;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	m->slot[i].cpu_ns = -(ts.tv_sec * 1000000000ull + ts.tv_nsec);
	while (!atomic_load_explicit(&m->stop, memory_order_relaxed))
		seed = work_chunk(seed);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	m->slot[i].cpu_ns += ts.tv_sec * 1000000000ull + ts.tv_nsec;
	_exit(seed == 0);
}

static int do_share(double secs, int cpu, int n, char **spec)
{
	struct share_shm *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	struct timespec nap = { 0, 1000000 };
	pid_t pid[SHARE_MAX];
	double ms[SHARE_MAX];
	int ready, err = 0;

	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("fork");
			return 1;
		}
		if (pid[i] == 0)
			share_child(m, i, cpu, spec[i]);
	}
	do {
		nanosleep(&nap, NULL);
		ready = 0;
		for (int i = 0; i < n; i++)
			ready += atomic_load(&m->slot[i].ready);
	} while (ready < n);
	atomic_store(&m->go, 1);
	nanosleep(&ts, NULL);
	atomic_store(&m->stop, 1);
	for (int i = 0; i < n; i++) {
		waitpid(pid[i], NULL, 0);
		err |= m->slot[i].err;
		ms[i] = m->slot[i].cpu_ns / 1e6;
	}
	if (err)
		return 1;
	printf("share");
	for (int i = 0; i < n; i++)
		printf(" %.1f", ms[i]);
	printf(" %.3f\n", ms[1] > 0 ? ms[0] / ms[1] : 0.0);
	return 0;
}

/* pipe: two processes, one word each way per round trip. */
static int do_pipe(double secs)
{
	int a[2], b[2], v = 0;
	unsigned long loops = 0;
	double t0, t1;
	pid_t pid;

	if (pipe(a) || pipe(b)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		while (read(a[0], &v, sizeof(v)) == sizeof(v) && v >= 0)
			if (write(b[1], &v, sizeof(v)) != sizeof(v))
				break;
		_exit(0);
	}
	t0 = now_s();
	do {
		for (int i = 0; i < 256; i++) {
			if (write(a[1], &v, sizeof(v)) != sizeof(v) || read(b[0], &v, sizeof(v)) != sizeof(v)) {
				perror("pipe");
				return 1;
			}
		}
		loops += 256;
		t1 = now_s();
	} while (t1 - t0 < secs);
	v = -1;
	if (write(a[1], &v, sizeof(v)) != sizeof(v))
		return 1;
	waitpid(pid, NULL, 0);
	printf("pipe %.0f\n", loops / (t1 - t0));
	return 0;
}

/* msg: hackbench's pattern (threads, socketpairs), run for a time. */
#define MSG_SENDERS	4
#define MSG_RECEIVERS	4
#define MSG_SIZE	100

struct msg_group {
	int fd[MSG_RECEIVERS][2];	/* [r][0]: receiver's end, [r][1]: senders' */
	unsigned long received[MSG_RECEIVERS];
};

struct msg_arg {
	struct msg_group *g;
	int r;
};

static void *msg_sender(void *arg)
{
	struct msg_group *g = arg;
	char buf[MSG_SIZE] = { 0 };

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed))
		for (int r = 0; r < MSG_RECEIVERS; r++)
			if (write(g->fd[r][1], buf, sizeof(buf)) != sizeof(buf))
				return NULL;
	return NULL;
}

static void *msg_receiver(void *arg)
{
	struct msg_arg *a = arg;
	char buf[MSG_SIZE * 4];
	unsigned long bytes = 0;
	ssize_t n;

	while ((n = read(a->g->fd[a->r][0], buf, sizeof(buf))) > 0)
		bytes += n;
	a->g->received[a->r] = bytes / MSG_SIZE;
	return NULL;
}

static int do_msg(int groups, double secs)
{
	struct msg_group *g = calloc(groups, sizeof(*g));
	struct msg_arg *ra = calloc(groups * MSG_RECEIVERS, sizeof(*ra));
	pthread_t *ts = calloc(groups * MSG_SENDERS, sizeof(*ts));
	pthread_t *tr = calloc(groups * MSG_RECEIVERS, sizeof(*tr));
	struct timespec ts_run = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	unsigned long total_msgs = 0;
	double t0, t1;

	if (!g || !ra || !ts || !tr)
		return 1;
	for (int i = 0; i < groups; i++)
		for (int r = 0; r < MSG_RECEIVERS; r++)
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, g[i].fd[r])) {
				perror("socketpair");
				return 1;
			}
	t0 = now_s();
	for (int i = 0; i < groups; i++) {
		for (int r = 0; r < MSG_RECEIVERS; r++) {
			ra[i * MSG_RECEIVERS + r] = (struct msg_arg){ &g[i], r };
			pthread_create(&tr[i * MSG_RECEIVERS + r], NULL, msg_receiver, &ra[i * MSG_RECEIVERS + r]);
		}
		for (int k = 0; k < MSG_SENDERS; k++)
			pthread_create(&ts[i * MSG_SENDERS + k], NULL, msg_sender, &g[i]);
	}
	nanosleep(&ts_run, NULL);
	atomic_store(&stop_flag, 1);
	for (int i = 0; i < groups * MSG_SENDERS; i++)
		pthread_join(ts[i], NULL);
	t1 = now_s();
	for (int i = 0; i < groups; i++)
		for (int r = 0; r < MSG_RECEIVERS; r++)
			shutdown(g[i].fd[r][1], SHUT_WR);
	for (int i = 0; i < groups * MSG_RECEIVERS; i++)
		pthread_join(tr[i], NULL);
	for (int i = 0; i < groups; i++)
		for (int r = 0; r < MSG_RECEIVERS; r++)
			total_msgs += g[i].received[r];
	printf("msg %.0f\n", total_msgs / (t1 - t0));
	return 0;
}

/* wakeload: the timer wakes every worker each period; a worker stamps how
 * late it ran, thinks briefly and sleeps again.  The hogs spin meanwhile. */
#define WL_WORKERS	4
#define WL_PERIOD_US	2000
#define WL_MAX		(1 << 18)

struct wl_worker_arg {
	int fd[2];
	double *lat;
	unsigned long n;
};

static void *wl_load_worker(void *arg)
{
	struct wl_worker_arg *w = arg;
	double sent;

	while (read(w->fd[0], &sent, sizeof(sent)) == sizeof(sent) && sent > 0) {
		if (w->n < WL_MAX)
			w->lat[w->n++] = (now_s() - sent) * 1e6;
		work_chunk(w->n);
	}
	return NULL;
}

static void *spin_hog(void *arg)
{
	unsigned long seed = (unsigned long)arg;

	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed))
		seed = work_chunk(seed);
	return (void *)seed;
}

static int do_wakeload(double secs, int hogs)
{
	struct wl_worker_arg w[WL_WORKERS];
	pthread_t tw[WL_WORKERS], *th = calloc(hogs > 0 ? hogs : 1, sizeof(*th));
	struct timespec next;
	double *all, t0, t;
	unsigned long n = 0;

	for (int i = 0; i < WL_WORKERS; i++) {
		w[i].lat = calloc(WL_MAX, sizeof(double));
		w[i].n = 0;
		if (!w[i].lat || pipe(w[i].fd)) {
			perror("wakeload");
			return 1;
		}
		pthread_create(&tw[i], NULL, wl_load_worker, &w[i]);
	}
	for (int i = 0; i < hogs; i++)
		pthread_create(&th[i], NULL, spin_hog, (void *)(unsigned long)(i + 1));
	clock_gettime(CLOCK_MONOTONIC, &next);
	t0 = now_s();
	do {
		next.tv_nsec += WL_PERIOD_US * 1000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		for (int i = 0; i < WL_WORKERS; i++) {
			t = now_s();
			if (write(w[i].fd[1], &t, sizeof(t)) != sizeof(t))
				return 1;
		}
	} while (t - t0 < secs);
	t = 0;
	for (int i = 0; i < WL_WORKERS; i++) {
		if (write(w[i].fd[1], &t, sizeof(t)) != sizeof(t))
			return 1;
		pthread_join(tw[i], NULL);
	}
	atomic_store(&stop_flag, 1);
	for (int i = 0; i < hogs; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < WL_WORKERS; i++)
		n += w[i].n;
	all = calloc(n + 1, sizeof(double));
	if (!all || !n)
		return 1;
	n = 0;
	for (int i = 0; i < WL_WORKERS; i++)
		for (unsigned long k = 0; k < w[i].n; k++)
			all[n++] = w[i].lat[k];
	qsort(all, n, sizeof(*all), cmp_double);
	printf("wakeload %.1f %.1f %lu\n", all[(n - 1) / 2], all[(n - 1) * 99 / 100], n);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: scxbench pingpong SECS [pin] | wakelat SECS | pipe SECS | msg GROUPS SECS | wakeload SECS HOGS | threads N SECS | spin N SECS | busy SECS | ext SECS | share SECS CPU A B [C [D]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "pingpong"))
		return do_pingpong(atof(argv[2]), argc > 3 && !strcmp(argv[3], "pin"));
	if (!strcmp(argv[1], "wakelat"))
		return do_wakelat(atof(argv[2]));
	if (!strcmp(argv[1], "pipe"))
		return do_pipe(atof(argv[2]));
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
	if (!strcmp(argv[1], "share") && argc >= 6 && argc <= 4 + SHARE_MAX)
		return do_share(atof(argv[2]), atoi(argv[3]), argc - 4, argv + 4);
	if (!strcmp(argv[1], "busy"))
		return do_threads("busy", 1, atof(argv[2]), 0);
	if (argc < 4)
		usage();
	if (!strcmp(argv[1], "msg"))
		return do_msg(atoi(argv[2]), atof(argv[3]));
	if (!strcmp(argv[1], "wakeload"))
		return do_wakeload(atof(argv[2]), atoi(argv[3]));
	if (!strcmp(argv[1], "threads"))
		return do_threads("threads", atoi(argv[2]), atof(argv[3]), 4);
	if (!strcmp(argv[1], "spin"))
		return do_threads("spin", atoi(argv[2]), atof(argv[3]), 0);
	usage();
	return 2;
}
