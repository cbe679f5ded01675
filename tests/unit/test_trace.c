// SPDX-License-Identifier: GPL-2.0
/*
 * Trace reader/writer: round trip, and every way a file can be damaged
 * must be rejected with "FILE:LINE: reason" (docs/trace-format.md).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace.h"
#include "unit_tmpdir.h"

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void make_trace(struct trace *t)
{
	trace_init(t);
	t->nr_cpus = 2;
	t->nr_states = 2;
	snprintf(t->source, sizeof(t->source), "unit test");
	snprintf(t->states[0].name, TRACE_NAME_LEN, "POLL");
	t->states[0].is_poll = 1;
	t->states[0].cost_ns = 1000;
	snprintf(t->states[1].name, TRACE_NAME_LEN, "haltpoll idle");	/* has a blank */
	t->states[1].exit_latency_us = 1;
	t->states[1].residency_us = 1;
	assert_int_equal(trace_add(t, 1000000, 500000, 0, BPFGOV_EV_BUSY, TRACE_NO_STATE), 0);
	assert_int_equal(trace_add(t, 1200000, 190000, 0, BPFGOV_EV_IDLE_EXIT, 1), 0);
	assert_int_equal(trace_add(t, 1200000, 100000, 0, BPFGOV_EV_WAKE_LAT, 1), 0);
	assert_int_equal(trace_add(t, 1200000, 200000, 0, BPFGOV_EV_IDLE_GAP, TRACE_NO_STATE), 0);
	assert_int_equal(trace_add(t, 1300000, 7000, 1, BPFGOV_EV_IDLE_EXIT, 0), 0);
}

static void test_round_trip(void **state)
{
	struct trace a, b;
	char path[256], err[512];

	(void)state;
	make_trace(&a);
	path_of(path, sizeof(path), "rt.trace");
	assert_int_equal(trace_save(path, &a, err, sizeof(err)), 0);
	assert_int_equal(trace_load(path, &b, err, sizeof(err)), 0);
	assert_int_equal(b.version, 1);	/* no version 2 field: written as 1 */
	assert_int_equal(b.nr_cpus, 2);
	assert_int_equal(b.nr_states, 2);
	assert_string_equal(b.source, "unit test");
	assert_string_equal(b.states[0].name, "POLL");
	assert_string_equal(b.states[1].name, "haltpoll_idle");
	assert_int_equal(b.states[0].is_poll, 1);
	assert_int_equal(b.states[0].cost_ns, 1000);
	assert_int_equal(b.states[1].cost_ns, 0);
	assert_int_equal(b.states[1].exit_latency_us, 1);
	assert_int_equal(b.nr, a.nr);
	for (size_t i = 0; i < a.nr; i++) {
		assert_int_equal(b.recs[i].ts_ns, a.recs[i].ts_ns);
		assert_int_equal(b.recs[i].dur_ns, a.recs[i].dur_ns);
		assert_int_equal(b.recs[i].cpu, a.recs[i].cpu);
		assert_int_equal(b.recs[i].kind, a.recs[i].kind);
		assert_int_equal(b.recs[i].state, a.recs[i].state);
	}
	/* no temp file left behind */
	strcat(path, ".tmp");
	assert_int_not_equal(access(path, F_OK), 0);
	trace_free(&a);
	trace_free(&b);
}

static void test_sort_stable(void **state)
{
	struct trace t;

	(void)state;
	trace_init(&t);
	t.nr_cpus = 1;
	t.nr_states = 1;
	trace_add(&t, 30, 1, 0, BPFGOV_EV_BUSY, TRACE_NO_STATE);
	trace_add(&t, 20, 1, 0, BPFGOV_EV_IDLE_EXIT, 0);
	trace_add(&t, 20, 1, 0, BPFGOV_EV_IDLE_GAP, TRACE_NO_STATE);
	trace_add(&t, 10, 1, 0, BPFGOV_EV_BUSY, TRACE_NO_STATE);
	trace_sort(&t);
	assert_int_equal(t.recs[0].ts_ns, 10);
	assert_int_equal(t.recs[1].kind, BPFGOV_EV_IDLE_EXIT);
	assert_int_equal(t.recs[2].kind, BPFGOV_EV_IDLE_GAP);
	assert_int_equal(t.recs[3].ts_ns, 30);
	trace_free(&t);
}

/* The example of docs/trace-format.md, verbatim. */
static const char doc_example[] =
	"bpfgov-trace 1\n"
	"# written by hand\n"
	"source synth pingpong --work-us 20\n"
	"nr_cpus 2\n"
	"state 0 POLL 0 0 poll 1000\n"
	"state 1 HALT 1 1 - 100000\n"
	"x-comment anything a writer wants to keep\n"
	"records\n"
	"1000025000 0 busy 25000\n"
	"1000026000 1 idle 26000 0\n"
	"1000026000 1 wake 1000 0\n"
	"1000026000 1 gap 26000\n"
	"1000051000 1 busy 25000\n"
	"1000052000 0 idle 27000 0\n"
	"1000052000 0 wake 1000 0\n"
	"1000052000 0 gap 27000\n"
	"end 8\n";

static void test_doc_example(void **state)
{
	struct trace t;
	char path[256], err[512];

	(void)state;
	path_of(path, sizeof(path), "doc.trace");
	write_file(path, doc_example, strlen(doc_example));
	assert_int_equal(trace_load(path, &t, err, sizeof(err)), 0);
	assert_int_equal(t.nr, 8);
	assert_int_equal(t.recs[2].kind, BPFGOV_EV_WAKE_LAT);
	assert_int_equal(t.recs[2].dur_ns, 1000);
	assert_int_equal(t.states[1].cost_ns, 100000);
	trace_free(&t);
}

/* Load @text from a file and expect the error "PATH:LINE: <reason...>". */
static void expect_reject(const char *name, const char *text, size_t len, int line,
			  const char *reason)
{
	struct trace t;
	char path[256], err[512], want[600];

	path_of(path, sizeof(path), name);
	if (len == (size_t)-1)
		len = strlen(text);
	write_file(path, text, len);
	assert_int_not_equal(trace_load(path, &t, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s:%d: %s", path, line, reason);
	if (strncmp(err, want, strlen(want)))
		fail_msg("got '%s'\nwant prefix '%s'", err, want);
	assert_null(strchr(err, '\n'));
	assert_int_equal(t.nr, 0);
	assert_null(t.recs);
}

static void test_truncated(void **state)
{
	size_t n = strlen(doc_example);
	const char *end_line = strstr(doc_example, "end 8\n");
	const char *rec_line = strstr(doc_example, "1000051000");

	(void)state;
	/* cut before the trailer: the records read fine, the end is missing */
	expect_reject("cut-end.trace", doc_example, end_line - doc_example, 16,
		      "truncated: no 'end' line after 8 records");
	/* cut in the middle of a record line */
	expect_reject("cut-mid.trace", doc_example, rec_line - doc_example + 7, 13,
		      "truncated: last line has no newline");
	/* cut inside the header */
	expect_reject("cut-hdr.trace", doc_example, strstr(doc_example, "records") - doc_example,
		      7, "truncated: header never reaches the 'records' line");
	expect_reject("empty.trace", "", 0, 0, "empty file");
	/* a trailer from a longer file: records were lost */
	{
		char buf[1024];

		snprintf(buf, sizeof(buf), "%.*send 9\n", (int)(end_line - doc_example), doc_example);
		expect_reject("count.trace", buf, strlen(buf), 17, "'end' says 9 records but 8");
	}
	(void)n;
}

static void expect_line_reject(const char *name, const char *bad_line, int line,
			       const char *reason)
{
	char buf[2048];
	const char *recs = strstr(doc_example, "1000025000");

	/* doc example with @bad_line inserted as the first record (line 9) */
	snprintf(buf, sizeof(buf), "%.*s%s\n%s", (int)(recs - doc_example), doc_example, bad_line,
		 recs);
	expect_reject(name, buf, strlen(buf), line, reason);
}

static void test_corrupt(void **state)
{
	(void)state;
	expect_reject("magic.trace", "hello 1\nnr_cpus 1\n", 18, 1, "not a bpfgov trace");
	expect_reject("version.trace", "bpfgov-trace 3\n", 15, 1, "unsupported trace version '3'");
	expect_reject("nocpus.trace", "bpfgov-trace 1\nstate 0 POLL 0 0 poll\nrecords\nend 0\n", 48, 3,
		      "header has no 'nr_cpus' line");
	expect_reject("nostate.trace", "bpfgov-trace 1\nnr_cpus 1\nrecords\nend 0\n", 38, 3,
		      "header describes no idle state");
	expect_reject("hole.trace",
		      "bpfgov-trace 1\nnr_cpus 1\nstate 1 C1 1 1 -\nrecords\nend 0\n", 54, 4,
		      "idle states must be numbered 0..N-1");
	expect_reject("key.trace", "bpfgov-trace 1\nnr_cpuz 1\n", 25, 2, "unknown header line 'nr_cpuz'");
	expect_line_reject("kind.trace", "1000000000 0 sleep 5", 9, "unknown record kind 'sleep'");
	expect_line_reject("cpu.trace", "1000000000 2 busy 5", 9, "cpu '2' is not below nr_cpus 2");
	expect_line_reject("num.trace", "10x0 0 busy 5", 9, "timestamp '10x0' is not an unsigned integer");
	expect_line_reject("neg.trace", "1000 0 busy -5", 9, "duration '-5' is not an unsigned integer");
	expect_line_reject("dur.trace", "1000 0 busy 5000", 9, "duration 5000 ns is longer than the timestamp");
	expect_line_reject("state.trace", "1000000000 0 idle 5 7", 9, "state '7' is not below the 2 states");
	expect_line_reject("nostate2.trace", "1000000000 0 idle 5", 9, "'idle' record needs a STATE field");
	expect_line_reject("extra.trace", "1000000000 0 busy 5 1", 9, "'busy' record takes no STATE field");
	expect_line_reject("order.trace", "2000000000 0 busy 5", 10, "timestamp 1000025000 goes backwards (line 9 has 2000000000)");
	{
		static const char nul[] = "bpfgov-trace 1\nnr_cpus 1\nstate 0 P 0 0 poll\nrecords\n12\0 0 busy 1\nend 1\n";

		expect_reject("nul.trace", nul, sizeof(nul) - 1, 5, "NUL byte");
	}
	{
		char buf[2048];

		snprintf(buf, sizeof(buf), "%sgarbage\n", doc_example);
		expect_reject("after.trace", buf, strlen(buf), 18, "data after the 'end' line");
	}
}

/* Every table the kernel registers (CPUIDLE_STATE_MAX, 10 states): records
 * in states 8 and 9 read back as themselves; an eleventh state is refused. */
static void test_ten_states(void **state)
{
	static const char ten[] =
		"bpfgov-trace 1\nnr_cpus 1\n"
		"state 0 POLL 0 0 poll\nstate 1 C1 2 2 -\nstate 2 C1E 10 20 -\n"
		"state 3 C3 70 100 -\nstate 4 C6 85 200 -\nstate 5 C7s 124 800 -\n"
		"state 6 C8 200 800 -\nstate 7 C9 480 5000 -\nstate 8 C10 890 5000 -\n"
		"state 9 X 1000 9000 -\nrecords\n"
		"1000000000 0 idle 20000000 8\n1030000000 0 idle 20000000 9\nend 2\n";
	char path[256], err[512], buf[1024];
	struct trace b;

	(void)state;
	path_of(path, sizeof(path), "ten.trace");
	write_file(path, ten, sizeof(ten) - 1);
	if (trace_load(path, &b, err, sizeof(err)))
		fail_msg("ten states: %s", err);
	assert_int_equal(b.nr_states, 10);
	assert_int_equal(b.states[8].residency_us, 5000);
	assert_int_equal(b.nr, 2);
	assert_int_equal(b.recs[0].state, 8);
	assert_int_equal(b.recs[1].state, 9);
	trace_free(&b);
	/* an eleventh state (index 10): refused, not cut */
	snprintf(buf, sizeof(buf), "%.*sstate 10 Y 1 1 -\n%s",
		 (int)(strstr(ten, "records") - ten), ten, strstr(ten, "records"));
	expect_reject("eleven.trace", buf, strlen(buf), 13, "state index '10' is not 0..9");
}

static void test_open_error(void **state)
{
	struct trace t;
	char err[512];

	(void)state;
	assert_int_equal(trace_load("/nonexistent/x.trace", &t, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/x.trace: cannot open: No such file or directory");
}

/* Version 2: idle records carry the next timer and the wake reason; a
 * version 2 reader skips later fields and kinds; version 1 stays strict. */
static const char v2_text[] =
	"bpfgov-trace 2\n"
	"nr_cpus 1\n"
	"state 0 POLL 0 0 poll 1000\n"
	"state 1 HALT 100 100 - 100000\n"
	"records\n"
	"1000000000 0 busy 500000\n"
	"1000200000 0 idle 200000 1 199000 timer\n"
	"1000200000 0 gap 200000 later-field\n"
	"1000300000 0 idle 50000 1 - ipi 77 x\n"
	"1000300000 0 wake 40000 1\n"
	"1000400000 0 irq-burst 5 8 9\n"
	"1000500000 0 idle 90000 0\n"
	"1000600000 0 idle 90000 1 4000000\n"
	"end 8\n";

static void test_v2(void **state)
{
	struct trace t, u;
	char path[256], err[512];

	(void)state;
	path_of(path, sizeof(path), "v2.trace");
	write_file(path, v2_text, strlen(v2_text));
	if (trace_load(path, &t, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(t.version, 2);
	assert_int_equal(t.nr, 7);		/* the unknown kind is skipped */
	assert_int_equal(t.recs[1].next_timer_ns, 199000);
	assert_int_equal(t.recs[1].wake, TRACE_WAKE_TIMER);
	assert_int_equal(t.recs[2].kind, BPFGOV_EV_IDLE_GAP);
	assert_true(t.recs[3].next_timer_ns == TRACE_NO_TIMER);
	assert_int_equal(t.recs[3].wake, TRACE_WAKE_IPI);
	assert_true(t.recs[5].next_timer_ns == TRACE_NO_TIMER);	/* fields omitted */
	assert_int_equal(t.recs[5].wake, TRACE_WAKE_UNKNOWN);
	assert_int_equal(t.recs[6].next_timer_ns, 4000000);
	assert_int_equal(t.recs[6].wake, TRACE_WAKE_UNKNOWN);
	assert_true(trace_has_v2(&t));
	/* written back as version 2, the fields kept */
	path_of(path, sizeof(path), "v2b.trace");
	assert_int_equal(trace_save(path, &t, err, sizeof(err)), 0);
	assert_int_equal(trace_load(path, &u, err, sizeof(err)), 0);
	assert_int_equal(u.version, 2);
	assert_int_equal(u.nr, t.nr);
	for (size_t i = 0; i < t.nr; i++) {
		assert_true(u.recs[i].next_timer_ns == t.recs[i].next_timer_ns);
		assert_int_equal(u.recs[i].wake, t.recs[i].wake);
	}
	trace_free(&u);
	/* the recorder's entry point */
	assert_int_equal(trace_add_idle(&t, 1000700000, 5, 0, 1, 123, TRACE_WAKE_OTHER), 0);
	assert_int_equal(t.recs[t.nr - 1].kind, BPFGOV_EV_IDLE_EXIT);
	assert_int_equal(t.recs[t.nr - 1].wake, TRACE_WAKE_OTHER);
	assert_int_equal(t.recs[t.nr - 1].next_timer_ns, 123);
	assert_string_equal(trace_wake_name(TRACE_WAKE_IPI), "ipi");
	assert_int_equal(trace_wake_parse("bogus"), TRACE_WAKE__MAX);
	trace_free(&t);
	/* damaged version 2 fields are still errors */
	expect_reject("v2-reason.trace",
		      "bpfgov-trace 2\nnr_cpus 1\nstate 0 POLL 0 0 poll\nrecords\n10 0 idle 5 0 3 soon\nend 1\n",
		      (size_t)-1, 5, "wake reason 'soon' is not timer, ipi, other or -");
	expect_reject("v2-timer.trace",
		      "bpfgov-trace 2\nnr_cpus 1\nstate 0 POLL 0 0 poll\nrecords\n10 0 idle 5 0 x3 timer\nend 1\n",
		      (size_t)-1, 5, "next timer 'x3' is not a number of ns or '-'");
	/* the unknown kind counts for 'end' */
	expect_reject("v2-end.trace",
		      "bpfgov-trace 2\nnr_cpus 1\nstate 0 POLL 0 0 poll\nrecords\n10 0 later 5\nend 0\n",
		      (size_t)-1, 6, "'end' says 0 records but 1 were read");
	/* a version 1 trace with version 2 fields is refused */
	expect_reject("v1-extra.trace",
		      "bpfgov-trace 1\nnr_cpus 1\nstate 0 POLL 0 0 poll\nrecords\n10 0 idle 5 0 3 timer\nend 1\n",
		      (size_t)-1, 5, "record needs 'TS_NS CPU KIND DUR_NS [STATE]', got 7 fields");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_sort_stable),
		cmocka_unit_test(test_doc_example),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_ten_states),
		cmocka_unit_test(test_open_error),
		cmocka_unit_test(test_v2),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
