// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's event loop: it sleeps until a decision, the next second or the
 * deadline; once a second it prints the summary, re-asserts registers someone
 * else rewrote, samples wake-ups and learns the timer base.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "journal.h"
#include "log.h"
#include "metrics.h"
#include "util.h"
#include "daemon.h"

/* Set by start's SIGINT/SIGTERM handler: the loop ends, clean-up restores. */
volatile sig_atomic_t loop_exiting;

/*
 * Wake-up cost samples. sched_waking runs on every wake-up in the system,
 * yet it only stamps the rare wake-up aimed at a sleeping CPU, and the
 * cost it measures (per idle state, averaged) moves slowly. So stamps are
 * taken WAKE_SAMPLE_ON seconds in WAKE_SAMPLE_PERIOD (from the start):
 * the average keeps learning, and the other seconds pay one load of a
 * flag per wake-up. The flag lives in the program's mapped data, in both
 * modes (bpfs_wake_sample()): attaching and detaching sched_waking instead
 * would patch kernel text twice a period, and each patch interrupts every
 * online CPU, sleeping ones included (text_poke_sync's IPIs).
 */
#define WAKE_SAMPLE_ON		4
#define WAKE_SAMPLE_PERIOD	16

/*
 * Actuation latency: woken for a decision, the loader would otherwise wait
 * behind whatever runs on its CPU (a busy task: milliseconds). SCHED_FIFO
 * priority 1 runs it first; it only ever runs briefly (poll, write, sleep).
 * Set once the BPF side is loaded, so a slow verification never runs at
 * real-time priority.
 */
static void set_rt(const struct gov *g)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (g->o->no_rt)
		return;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		pr_debug("cannot run at SCHED_FIFO 1 (%s); actuation may wait behind busy tasks\n",
			 strerror(errno));
}

/* Sleep until the ring buffer has a record that wakes us (or
 * @timeout_ms), note when we came out of the wait, then apply what is
 * there. */
static int wait_decisions(struct gov *g, int timeout_ms)
{
	struct epoll_event ev;
	int n;

	n = epoll_wait(g->rb_epfd, &ev, 1, timeout_ms);
	if (n < 0)
		n = -errno;
	g->woke_ns = mono_ns();
	g->wakeups++;
	if (n <= 0)
		return n;
	return ring_buffer__consume(g->rb);
}

/* Returns 0 on a requested stop, 1 when the scx scheduler was ejected,
 * -errno on a failure. */
int loop_run(struct gov *g, __u64 t0, __u64 deadline)
{
	__u64 now = mono_ns(), next = now + 1000000000ull, last_dec = g->decisions, err_at = 0;
	unsigned long sec = 0;
	char buf[1200];
	int err, n;

#ifdef GOV_TEST_HOOKS
	if (g->bops->test_error && g->o->test_scx_error_after > 0)
		err_at = now + (__u64)(g->o->test_scx_error_after * 1e9);
#endif
	pub_sync(g, true);
	set_rt(g);
	while (!loop_exiting) {
		/* Sleep until a decision to apply, the next summary, the
		 * deadline or a signal: nothing polls faster than that. The
		 * clock is read once per wake-up (the end of the wait), for
		 * every check below: a guest whose clock has no vDSO pays a
		 * system call for each read. The timeout counts from there, so
		 * the summary may come as late as this round's work. */
		__u64 until = next;
		int timeout_ms;

		if (err_at && err_at < until)
			until = err_at;
		if (deadline && deadline < until)
			until = deadline;
		timeout_ms = until > now ? (int)((until - now + 999999) / 1000000) : 0;
		err = wait_decisions(g, timeout_ms);
		now = g->woke_ns;
		if (err < 0 && err != -EINTR) {
			pr_warn("ring buffer poll failed: %s\n", strerror(-err));
			return err;
		}
		n = bpfs_ended(g, buf, sizeof(buf));
		if (n) {
			ring_buffer__consume(g->rb);
			if (n == BPFS_EJECTED) {
				pr_warn("the kernel stopped the scheduler: %s\n", buf);
				return 1;
			}
			pr_warn("the scheduler was unregistered: %s\n", buf);
			return 0;
		}
		if (g->ppd)
			watch_ppd(g);
#ifdef GOV_TEST_HOOKS
		if (err_at && now >= err_at) {
			err_at = 0;
			pr_info("test: triggering a BPF-side error\n");
			bpfs_test_error(g);
		}
#endif
		apply_flush(g);
		/* resume and hotplug: the drivers rewrote their registers */
		for (n = watch_platform(g, now); n > 0; n--)
			apply_all(g);
		pub_sync(g, false);
		if (now >= next) {
			g->woke_ns = mono_ns();
			ring_buffer__consume(g->rb);	/* what did not wake us */
			print_summary(g, (mono_ns() - t0) / 1e9, g->decisions - last_dec);
			last_dec = g->decisions;
			if (!g->o->dry_run)
				apply_reassert(g);
			if (journal_error(g->jnl)) {
				pr_warn("cannot keep the state journal (%s): stopping, nothing is written without its original on disk\n",
					strerror(-journal_error(g->jnl)));
				return journal_error(g->jnl);
			}
			pub_sync(g, true);
			++sec;
			bpfs_wake_sample(g, sec % WAKE_SAMPLE_PERIOD < WAKE_SAMPLE_ON);
			bpfs_timer_learning(g);
			next += 1000000000ull;
			now = mono_ns();
		}
		if (deadline && now >= deadline)
			break;
	}
	return 0;
}
