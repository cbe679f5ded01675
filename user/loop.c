// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's event loop: it sleeps until a decision, the next second or the
 * deadline; once a second it prints the summary, re-asserts registers someone
 * else rewrote, samples wake-ups and learns the timer base.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"
#include "bpfgov_tunables.h"
#include "bpfgov_trace.skel.h"
#include "actuate.h"
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "kfeat.h"
#include "log.h"
#include "metrics.h"
#include "platform.h"
#include "scx.h"
#include "tunables.h"
#include "util.h"
#include "daemon.h"

/* Set by start's SIGINT/SIGTERM handler: the loop ends, clean-up restores. */
volatile sig_atomic_t gov_exiting;

/*
 * Wake-up cost samples. sched_waking runs on every wake-up in the system,
 * yet it only stamps the rare wake-up aimed at a sleeping CPU, and the
 * cost it measures (per idle state, averaged) moves slowly. So it is
 * attached WAKE_SAMPLE_ON seconds in WAKE_SAMPLE_PERIOD (from the start,
 * as the programs are attached): the average keeps learning, and the other
 * seconds pay nothing. One window of four seconds rather than four windows
 * of one: the same share of wake-ups sampled, a quarter of the attach and
 * detach calls (each patches the tracepoint's call sites in kernel text).
 * sched_ext mode takes its stamps in select_cpu/enqueue, which run anyway:
 * there a flag in the scheduler's mapped data turns the stamp (a clock
 * read per wake-up of a sleeping CPU) on for the same seconds.
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

static void wake_sampling(struct gov *g, unsigned long sec)
{
	struct bpf_link **l;
	bool want = sec % WAKE_SAMPLE_PERIOD < WAKE_SAMPLE_ON;

	if (g->scx) {
		scx_wake_sample(g->scx, want);
		return;
	}
	if (!g->trace)
		return;
	l = &g->trace->links.bpfgov_waking;
	if (want && !*l) {
		*l = bpf_program__attach(g->trace->progs.bpfgov_waking);
		if (!*l)
			pr_debug("cannot attach sched_waking: %s\n", strerror(errno));
	} else if (!want && *l) {
		bpf_link__destroy(*l);
		*l = NULL;
	}
}

/* Re-assert what others rewrote, except on idle CPUs (a write would wake
 * them: they are re-asserted once they run). */
static void reassert(struct gov *g)
{
	struct bpfgov_cpu_state s;

	for (__u32 cpu = 0; cpu < (__u32)g->nr_cpus; cpu++)
		g->idle_now[cpu] = cpu_idle(g, cpu, &s);
	act_reassert_skip(g->act, g->idle_now);
}

/* Attach the next-timer learner while some online CPU has not learned its
 * timer base, detach it once all have (each mode's object has one). */
static void timer_learning(struct gov *g)
{
	struct timer_learner t;
	bool need = false;
	int cpu;

	if (g->trace && g->trace->bss) {
		t.prog = g->trace->progs.bpfgov_timer_base;
		t.link = &g->trace->links.bpfgov_timer_base;
		t.bases = (const unsigned long long *)g->trace->bss->timer_base;
	} else if (!g->scx || scx_timer_learner(g->scx, &t)) {
		return;
	}
	for (cpu = 0; cpu < g->nr_cpus && cpu < BPFGOV_MAX_CPUS; cpu++) {
		if (!t.bases[cpu] && cpu_is_online(cpu)) {
			need = true;
			break;
		}
	}
	if (need && !*t.link) {
		*t.link = bpf_program__attach(t.prog);
		if (!*t.link)
			pr_debug("cannot attach hrtimer_expire_entry: %s\n", strerror(errno));
	} else if (!need && *t.link) {
		bpf_link__destroy(*t.link);
		*t.link = NULL;
		pr_debug("next timer learned on every online CPU: hrtimer_expire_entry detached\n");
	}
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
	if (n <= 0)
		return n;
	return ring_buffer__consume(g->rb);
}

/* Returns 0 on a requested stop, 1 when the scx scheduler was ejected,
 * -errno on a failure. */
int run_loop(struct gov *g, __u64 t0, __u64 deadline)
{
	__u64 now = mono_ns(), next = now + 1000000000ull, last_dec = g->decisions, err_at = 0;
	unsigned long sec = 0;
	struct scx_exit ex;
	char buf[1200];
	int err;

	if (g->scx && g->o->test_scx_error_after > 0)
		err_at = now + (__u64)(g->o->test_scx_error_after * 1e9);
	pub_sync(g, true);
	set_rt(g);
	while (!gov_exiting) {
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
		if (g->scx && scx_exited(g->scx, &ex)) {
			ring_buffer__consume(g->rb);
			scx_format_exit(&ex, buf, sizeof(buf));
			if (scx_exit_is_error(&ex)) {
				pr_warn("the kernel stopped the scheduler: %s\n", buf);
				return 1;
			}
			pr_warn("the scheduler was unregistered: %s\n", buf);
			return 0;
		}
		if (g->ppd)
			follow_ppd(g);
		if (err_at && now >= err_at) {
			err_at = 0;
			pr_info("test: triggering a BPF-side error\n");
			scx_trigger_test_error(g->scx);
		}
		platform_watch(g, now);
		pub_sync(g, false);
		if (now >= next) {
			g->woke_ns = mono_ns();
			ring_buffer__consume(g->rb);	/* what did not wake us */
			print_summary(g, (mono_ns() - t0) / 1e9, g->decisions - last_dec);
			last_dec = g->decisions;
			if (!g->o->dry_run)
				reassert(g);
			if (journal_error(g->jnl)) {
				pr_warn("cannot keep the state journal (%s): stopping, nothing is written without its original on disk\n",
					strerror(-journal_error(g->jnl)));
				return journal_error(g->jnl);
			}
			pub_sync(g, true);
			wake_sampling(g, ++sec);
			timer_learning(g);
			next += 1000000000ull;
			now = mono_ns();
		}
		if (deadline && now >= deadline)
			break;
	}
	return 0;
}
