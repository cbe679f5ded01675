// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the loader's state map's contents (user/state.c): the
 * latency histogram's buckets and quantiles, the origins by tunable name,
 * and the JSON `status --json` and start's --report render from it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bpfgov.h"
#include "config.h"
#include "json_writer.h"
#include "state.h"
#include "tunables.h"

static int bucket_of(__u64 ns)
{
	struct bpfgov_lat_hist h = {};
	int i;

	state_lat_add(&h, ns);
	for (i = 0; i < BPFGOV_LAT_BUCKETS; i++)
		if (h.bucket[i])
			return i;
	return -1;
}

/* A sample equal to a bound is in that bound's bucket, one above it in the
 * next; above 100 ms in the last. */
static void test_buckets(void **state)
{
	int i;

	(void)state;
	assert_int_equal(bucket_of(0), 0);
	assert_int_equal(bucket_of(1000), 0);
	assert_int_equal(bucket_of(1001), 1);
	for (i = 0; i < BPFGOV_LAT_BUCKETS - 1; i++) {
		assert_int_equal(bucket_of(state_lat_bounds_ns[i]), i);
		assert_int_equal(bucket_of(state_lat_bounds_ns[i] + 1), i + 1);
		if (i)
			assert_true(state_lat_bounds_ns[i] > state_lat_bounds_ns[i - 1]);
	}
	assert_int_equal(state_lat_bounds_ns[BPFGOV_LAT_BUCKETS - 2], 100000000ull);
	assert_int_equal(bucket_of(5000000000ull), BPFGOV_LAT_BUCKETS - 1);
}

/* The exposition's bounds are bounds of the state's buckets: its
 * cumulative counts are exact, not estimates. */
static void test_exposition_bounds(void **state)
{
	static const __u64 prom_us[] = { 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000,
					 10000, 25000, 100000 };
	size_t i, b;
	bool found;

	(void)state;
	for (i = 0; i < sizeof(prom_us) / sizeof(prom_us[0]); i++) {
		found = false;
		for (b = 0; b < BPFGOV_LAT_BUCKETS - 1; b++)
			found |= state_lat_bounds_ns[b] == prom_us[i] * 1000;
		assert_true(found);
	}
}

static void test_quantiles(void **state)
{
	struct bpfgov_lat_hist h = {};
	double p50, p99;
	int i;

	(void)state;
	assert_true(state_lat_quantile(&h, 0.5) == 0);
	/* 99 samples of 2.6 us, one of 40 ms */
	for (i = 0; i < 99; i++)
		state_lat_add(&h, 2600);
	state_lat_add(&h, 40000000);
	assert_int_equal(state_lat_count(&h), 100);
	assert_int_equal(h.max_ns, 40000000);
	assert_int_equal(h.sum_ns, 99 * 2600 + 40000000ull);
	p50 = state_lat_quantile(&h, 0.50);
	p99 = state_lat_quantile(&h, 0.99);
	/* within the samples' bucket (2.5, 3] us, interpolated by rank */
	assert_true(p50 > 2.5 && p50 < p99 && p99 <= 3.0);
	/* the top one: in (30, 40] ms, the largest sample its upper end */
	assert_true(state_lat_quantile(&h, 1.0) > 30000 && state_lat_quantile(&h, 1.0) <= 40000);
	/* a bucket holding the largest sample ends there */
	memset(&h, 0, sizeof(h));
	state_lat_add(&h, 2600);
	state_lat_add(&h, 2600);
	assert_true(state_lat_quantile(&h, 0.99) <= 2.6);
}

static size_t tunable_index(const char *name)
{
	const struct tunable_info *t = tunable_find(name);

	assert_non_null(t);
	return (size_t)(t - tunable_table);
}

/* Origins land by tunable name, in the order of the tunables' list. */
static void test_origins(void **state)
{
	struct bpfgov_loader_state *st = calloc(1, sizeof(*st));
	struct gov_config *gc = calloc(1, sizeof(*gc));

	(void)state;
	assert_non_null(st);
	assert_non_null(gc);
	gc->origin[tunable_index("headroom_pct")] = ORIGIN_FILE;
	gc->origin[tunable_index("poll_max_us")] = ORIGIN_PROFILE;
	gc->origin[tunable_index("remote_scan_us")] = ORIGIN_SET;
	snprintf(gc->profile, sizeof(gc->profile), "%s", "powersave");
	snprintf(gc->file, sizeof(gc->file), "%s", "/etc/bpfgov.conf");
	gc->follow_ppd = true;
	cfg_state_put(st, gc);
	assert_int_equal(st->origin.headroom_pct, BPFGOV_ORIGIN_FILE);
	assert_int_equal(st->origin.poll_max_us, BPFGOV_ORIGIN_PROFILE);
	assert_int_equal(st->origin.remote_scan_us, BPFGOV_ORIGIN_SET);
	assert_int_equal(st->origin.floor_min, BPFGOV_ORIGIN_DEFAULT);
	assert_int_equal(state_origin(st, tunable_index("poll_max_us")), BPFGOV_ORIGIN_PROFILE);
	assert_int_equal(state_origin(st, tunable_count + 5), BPFGOV_ORIGIN_DEFAULT);
	assert_string_equal(st->profile, "powersave");
	assert_string_equal(st->config_file, "/etc/bpfgov.conf");
	assert_int_equal(st->follow_ppd, 1);
	free(st);
	free(gc);
}

/* A string longer than its field is cut and stays terminated. */
static void test_strings(void **state)
{
	char b[8];

	(void)state;
	memset(b, 'x', sizeof(b));
	STATE_SET_STR(b, "0123456789");
	assert_string_equal(b, "0123456");
	STATE_SET_STR(b, NULL);
	assert_string_equal(b, "");
}

static void test_json(void **state)
{
	struct bpfgov_loader_state *st = calloc(1, sizeof(*st));
	char *doc = NULL;
	size_t len = 0;
	json_writer_t *w;
	FILE *f;

	(void)state;
	assert_non_null(st);
	st->pid = 42;
	st->mode = BPFGOV_MODE_TRACE;
	st->nr_cpus = 2;
	st->decisions = 7;
	STATE_SET_STR(st->backend, "intel-hwp");
	STATE_SET_STR(st->idle_driver, "fa\"ke");
	st->cpu[1].writes = 3;
	st->cpu[0].driver_rewrites = 2;
	st->cpu[1].driver_rewrites = 5;
	state_lat_add(&st->lat, 3000);
	f = open_memstream(&doc, &len);
	assert_non_null(f);
	w = jsonw_new(f);
	assert_non_null(w);
	state_json(w, st);
	jsonw_destroy(&w);
	fclose(f);
	assert_non_null(strstr(doc, "{\"pid\":42,\"mode\":\"trace\",\"backend\":\"intel-hwp\","));
	assert_non_null(strstr(doc, "\"decisions\":7,"));
	assert_non_null(strstr(doc, "\"floor_driver_rewrites\":7,"));
	assert_non_null(strstr(doc, "\"idle_driver\":\"fa\\\"ke\""));
	assert_non_null(strstr(doc, "\"missing\":null"));
	assert_non_null(strstr(doc, "\"latency_us\":{\"samples\":1,"));
	assert_non_null(strstr(doc, "{\"cpu\":1,\"online\":false,"));
	assert_non_null(strstr(doc, "\"writes\":3,"));
	assert_null(strstr(doc, "\"cpu\":2,"));
	assert_null(strstr(doc, "\"platform\""));	/* none rendered: none shown */
	free(doc);
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_exposition_bounds),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_origins),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
