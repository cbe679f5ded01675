// SPDX-License-Identifier: GPL-2.0
/*
 * bpfgov-veristat OBJ...: load each BPF object as the kernel would verify
 * it, without pinning or attaching anything, and print per program the
 * verifier's figures (log level BPF_LOG_STATS: "processed N insns",
 * "verification time N usec") and the object's load time:
 *
 *   veristat <object> <program> insns <N> verify_us <N> states <N>
 *   veristat <object> load_ms <N> rc <N>
 *
 * The lines are parsed by tests/vm/kernels.sh into the kernel matrix table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#define LOG_SZ	(64 * 1024)

static int quiet(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	if (l == LIBBPF_WARN && getenv("VERISTAT_VERBOSE"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static unsigned long long field(const char *log, const char *key)
{
	const char *p = strstr(log, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int one(const char *path)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	struct timespec a, b;
	char *logs[64] = {};
	int n = 0, i, err;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		err = -errno;
		printf("veristat %s open_failed rc %d\n", base, err);
		return 1;
	}
	bpf_object__for_each_map(map, obj)
		bpf_map__set_pin_path(map, NULL);
	bpf_object__for_each_program(prog, obj) {
		if (n == 64 || !bpf_program__autoload(prog))
			continue;
		logs[n] = calloc(1, LOG_SZ);
		if (!logs[n])
			return 1;
		bpf_program__set_log_buf(prog, logs[n], LOG_SZ);
		bpf_program__set_log_level(prog, 4);	/* BPF_LOG_STATS */
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = bpf_object__load(obj);
	clock_gettime(CLOCK_MONOTONIC, &b);
	i = 0;
	bpf_object__for_each_program(prog, obj) {
		if (i == n || !bpf_program__autoload(prog))
			continue;
		printf("veristat %s %s insns %llu verify_us %llu states %llu\n", base,
		       bpf_program__name(prog), field(logs[i], "processed "),
		       field(logs[i], "verification time "), field(logs[i], "total_states "));
		free(logs[i]);
		i++;
	}
	printf("veristat %s load_ms %ld rc %d\n", base,
	       (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000), err);
	bpf_object__close(obj);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	libbpf_set_print(quiet);
	for (i = 1; i < argc; i++)
		rc |= one(argv[i]);
	return rc;
}
