// SPDX-License-Identifier: GPL-2.0
/*
 * govloader: loads bpfgov's BPF programs, pins their state, applies the
 * decisions they stream, and inspects a running instance.
 *
 * Each subcommand is a do_*() function; start's work is split into small
 * steps with one cleanup path that undoes them in reverse order, restoring
 * every MSR and sysfs knob that was written.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfgov.h"
#include "bpfgov_policy.h"
#include "bpfgov_tunables.h"
#include "actuate.h"
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "log.h"
#include "metrics.h"
#include "replay.h"
#include "tunables.h"
#include "util.h"

#ifndef GOV_VERSION
#define GOV_VERSION "unknown"	/* built without the Makefile */
#endif

static const char version_usage[] =
"Usage: govloader version\n"
"Print the version of govloader; 'govloader --version' prints the same.\n";

static int do_version(int argc, char **argv)
{
	struct cli_opts o = {};
	int err = cli_parse("version", version_usage, argc, argv, "", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	printf("govloader %s\n", GOV_VERSION);
	return 0;
}

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "start",  do_start,  "load the governor and apply its decisions" },
	{ "stop",   do_stop,   "stop the running instance and wait until it restored" },
	{ "status", do_status, "state of the running instance (--json)" },
	{ "probe",  do_probe,  "what the platform offers and the floor backend start would pick (--json)" },
	{ "validate", do_validate, "measure bpfgov against the machine's governors; write a report" },
	{ "tail",   do_tail,   "stream live decisions (--json, --cpu N, --count N)" },
	{ "dump",   do_dump,   "pinned maps in readable form" },
	{ "set",    do_set,    "change tunables of the running instance (KEY=VALUE ...)" },
	{ "restore", do_restore, "put back what a crashed instance changed (from its journal)" },
	{ "record", do_record, "record the live event stream to a trace file" },
	{ "replay", do_replay, "run the policy core and reference governors over a trace" },
	{ "synth",  do_synth,  "write a synthetic trace of a linux-pm scenario" },
	{ "plot",   do_plot,   "draw a timeline or the energy/latency scatter (gnuplot)" },
	{ "metrics", do_metrics, "print Prometheus metrics once (-o FILE: atomically)" },
	{ "version", do_version, "print govloader's version (also --version)" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f, "Usage: govloader [-v|-q] COMMAND [OPTIONS]\n"
		   "       govloader --version | help [COMMAND]\n\nCommands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->help);
	fprintf(f, "\n'govloader COMMAND --help' shows each command's options.\n");
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	int i = 1;

	/* Global verbosity before the command; commands accept it too. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_level = LOG_DEBUG;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			log_level = LOG_WARN;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			return do_version(1, argv + i);
		} else {
			pr_warn("unknown option '%s' (try 'govloader --help')\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		pr_warn("no command given (try 'govloader --help')\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 >= argc) {
			usage(stdout);
			return 0;
		}
		/* help CMD: CMD's own usage, as CMD --help prints it */
		for (c = cmds; c->name; c++) {
			if (!strcmp(c->name, argv[i + 1])) {
				char *hargv[] = { argv[i + 1], "--help", NULL };

				optind = 1;
				return c->fn(2, hargv);
			}
		}
		pr_warn("help: unknown command '%s' (try 'govloader --help')\n", str_esc(argv[i + 1]));
		return EXIT_USAGE;
	}
	for (c = cmds; c->name; c++) {
		if (!strcmp(c->name, argv[i])) {
			optind = 1;
			return c->fn(argc - i, argv + i);
		}
	}
	pr_warn("unknown command '%s' (try 'govloader --help')\n", argv[i]);
	return EXIT_USAGE;
}
