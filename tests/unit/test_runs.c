// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of busy runs from cpu_idle alone (include/bpfgov_runs.h),
 * driven as the tracepoint program drives them: runs_at_exit at each idle
 * exit with the idle task's need-resched flag, runs_at_enter at each idle
 * entry with its nivcsw, runs_missed_start from a tick that finds a task
 * on a CPU thought idle. `busy` is what the policy state says, kept here
 * as the program keeps it (BEGIN/MISSED open a run, END/CUT close it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>
#include "bpfgov_runs.h"

struct cpu {
	struct bpfgov_runs_cpu h;
	int busy;
	__u64 begin_ns, end_ns;		/* the last run's bounds, as the policy saw them */
	__u64 nivcsw;			/* the idle task's */
};

static enum bpfgov_runs_action do_exit(struct cpu *c, int resched, __u64 now)
{
	enum bpfgov_runs_action a = runs_at_exit(&c->h, c->busy, resched, now);

	if (a == RUNS_BEGIN) {
		c->busy = 1;
		c->begin_ns = now;
	}
	return a;
}

static enum bpfgov_runs_action do_enter(struct cpu *c, __u64 now)
{
	enum bpfgov_runs_action a = runs_at_enter(&c->h, c->busy, c->nivcsw);

	switch (a) {
	case RUNS_END:
		c->busy = 0;
		c->end_ns = now;
		break;
	case RUNS_CUT:
		c->busy = 0;
		c->end_ns = c->h.exit_ns;
		break;
	case RUNS_MISSED:
		c->begin_ns = runs_missed_start(&c->h, now);
		c->end_ns = now;
		break;
	default:
		break;
	}
	return a;
}

/* A task is switched in and out again: the idle task left the CPU once. */
static void task_ran(struct cpu *c)
{
	c->nivcsw++;
}

/* The usual wake-up: flag set at the exit, a task runs, the CPU idles. */
static void test_wakeup_run(void **state)
{
	struct cpu c = { .nivcsw = 7 };

	(void)state;
	assert_int_equal(do_enter(&c, 100), RUNS_NONE);		/* first entry: nothing open */
	assert_int_equal(do_exit(&c, 1, 200), RUNS_BEGIN);
	task_ran(&c);
	assert_int_equal(do_enter(&c, 500), RUNS_END);
	assert_int_equal(c.begin_ns, 200);
	assert_int_equal(c.end_ns, 500);
	assert_int_equal(c.busy, 0);
}

/* An interrupt that wakes nobody: no run, the gap goes on. */
static void test_interrupt_only_exit(void **state)
{
	struct cpu c = { .nivcsw = 3 };

	(void)state;
	do_enter(&c, 100);
	assert_int_equal(do_exit(&c, 0, 200), RUNS_NONE);
	assert_int_equal(do_enter(&c, 210), RUNS_NONE);	/* nivcsw unchanged */
	assert_int_equal(c.busy, 0);
	assert_int_equal(do_exit(&c, 0, 300), RUNS_NONE);
	assert_int_equal(do_enter(&c, 305), RUNS_NONE);
	assert_int_equal(c.end_ns, 0);
}

/* A task ran although the flag was clear at the exit (its wake-up was
 * handled after the exit was traced): found at the next entry, it began at
 * that exit. */
static void test_missed_run(void **state)
{
	struct cpu c = { .nivcsw = 3 };

	(void)state;
	do_enter(&c, 100);
	assert_int_equal(do_exit(&c, 0, 200), RUNS_NONE);
	task_ran(&c);
	assert_int_equal(do_enter(&c, 900), RUNS_MISSED);
	assert_int_equal(c.begin_ns, 200);
	assert_int_equal(c.end_ns, 900);
	assert_int_equal(c.busy, 0);
	/* Caught up: the next quiet period is quiet again. */
	assert_int_equal(do_exit(&c, 0, 1000), RUNS_NONE);
	assert_int_equal(do_enter(&c, 1010), RUNS_NONE);
}

/* The flag was set but no task followed (the woken task went elsewhere):
 * the guessed run ends where it began, no busy time. */
static void test_guess_cut(void **state)
{
	struct cpu c = { .nivcsw = 3 };

	(void)state;
	do_enter(&c, 100);
	assert_int_equal(do_exit(&c, 1, 200), RUNS_BEGIN);
	assert_int_equal(do_enter(&c, 260), RUNS_CUT);
	assert_int_equal(c.begin_ns, 200);
	assert_int_equal(c.end_ns, 200);
	assert_int_equal(c.busy, 0);
}

/* Before the first entry nivcsw is unknown: a run guessed at an exit seen
 * first is ended, never cut. */
static void test_no_history(void **state)
{
	struct cpu c = { .nivcsw = 3 };

	(void)state;
	assert_int_equal(do_exit(&c, 1, 200), RUNS_BEGIN);
	assert_int_equal(do_enter(&c, 400), RUNS_END);
	assert_int_equal(c.end_ns, 400);
	/* An entry with a changed nivcsw but no exit seen: nothing to place. */
	memset(&c, 0, sizeof(c));
	c.nivcsw = 3;
	assert_int_equal(do_enter(&c, 100), RUNS_NONE);
	task_ran(&c);
	c.h.exit_ns = 0;
	assert_int_equal(do_enter(&c, 200), RUNS_NONE);
}

/* A tick finds a task on a CPU thought idle: its run began at the last
 * exit (or at the tick when no exit was seen, e.g. right after attach);
 * the entry after it ends the run normally. */
static void test_tick_finds_task(void **state)
{
	struct cpu c = { .nivcsw = 3 };

	(void)state;
	assert_int_equal(runs_missed_start(&c.h, 50), 50);	/* nothing seen yet */
	do_enter(&c, 100);
	do_exit(&c, 0, 200);
	assert_int_equal(runs_missed_start(&c.h, 4200), 200);
	c.busy = 1;
	task_ran(&c);
	assert_int_equal(do_enter(&c, 9000), RUNS_END);
	assert_int_equal(c.end_ns, 9000);
}

/* Several switches in one busy period (the idle task ran in between
 * without entering a state) still make one run. */
static void test_back_to_back_tasks(void **state)
{
	struct cpu c = { .nivcsw = 10 };

	(void)state;
	do_enter(&c, 100);
	assert_int_equal(do_exit(&c, 1, 200), RUNS_BEGIN);
	task_ran(&c);
	task_ran(&c);
	assert_int_equal(do_enter(&c, 800), RUNS_END);
	assert_int_equal(c.begin_ns, 200);
	assert_int_equal(c.end_ns, 800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakeup_run),
		cmocka_unit_test(test_interrupt_only_exit),
		cmocka_unit_test(test_missed_run),
		cmocka_unit_test(test_guess_cut),
		cmocka_unit_test(test_no_history),
		cmocka_unit_test(test_tick_finds_task),
		cmocka_unit_test(test_back_to_back_tasks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
