// SPDX-License-Identifier: GPL-2.0
/*
 * `govloader metrics`: the /metrics exposition once, on stdout or into a
 * file replaced atomically (node_exporter's textfile collector reads
 * *.prom files at any moment: it must never see half a file).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "common.h"
#include "log.h"
#include "metrics.h"
#include "util.h"
#include "govloader_cmds.h"

static const char metrics_usage[] =
"Usage: govloader metrics [-o FILE] [--pin-root DIR]\n"
"Print bpfgov's metrics once in the Prometheus text format (the same as\n"
"'start --metrics-listen' serves). When bpfgov is not running the output\n"
"says bpfgov_up 0.\n\n"
"  -o, --output FILE   write FILE atomically (temp file + rename), e.g. for\n"
"                      node_exporter's textfile collector (*.prom)\n"
"  --pin-root DIR      where the maps are pinned (" DEFAULT_PIN_ROOT ")\n"
"  -v, -q              more / less output\n";

struct text {
	const char *buf;
	size_t len;
};

static int fill_text(FILE *f, void *ctx)
{
	const struct text *t = ctx;

	return fwrite(t->buf, 1, t->len, f) == t->len ? 0 : -EIO;
}

/* Temp file beside @path, fsync'ed, 0644, renamed over it. */
static int write_atomic(const char *path, const char *buf, size_t len)
{
	struct text t = { buf, len };

	return write_file_atomic(path, 0644, true, fill_text, &t);
}

int do_metrics(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pin-root", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *pin_root = DEFAULT_PIN_ROOT;
	size_t len = 0;
	char *buf = NULL;
	bool up;
	int c, err;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":o:vqh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'P': pin_root = optarg; break;
		default:
			err = cli_common_opt("metrics", metrics_usage, c, argv);
			if (err)
				return err > 0 ? 0 : EXIT_USAGE;
		}
	}
	if (cli_no_args("metrics", argc, argv))
		return EXIT_USAGE;
	if (out && !*out) {
		pr_warn("metrics: -o needs a file name\n");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		pr_warn("metrics needs root (the pinned maps are root's)\n");
		return 1;
	}
	up = gov_lock_owner() != 0;
	err = met_render_buf(&buf, &len, MET_PROMETHEUS, pin_root, up);
	if (err) {
		pr_warn("metrics: %s\n", strerror(-err));
		return 1;
	}
	if (out) {
		err = write_atomic(out, buf, len);
		if (err)
			pr_warn("metrics: cannot write %s: %s\n", out, strerror(-err));
	} else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		err = -EIO;
	}
	free(buf);
	return err ? 1 : 0;
}
