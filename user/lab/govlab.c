// SPDX-License-Identifier: GPL-2.0
/*
 * govlab: bpfgov's lab. Records the live event stream of a running
 * `govloader start`, synthesizes the linux-pm reports' scenarios, replays
 * traces through the same policy core as the BPF programs and the kernel's
 * reference governors, plots them, and validates bpfgov against the
 * machine's governors (driving `govloader start` as a child).
 *
 * Each command is a do_*() function (govlab_cmds.h).
 */
#include <stddef.h>
#include "cli.h"
#include "govlab_cmds.h"
#include "log.h"

#ifndef GOV_VERSION
#define GOV_VERSION "unknown"	/* built without the Makefile */
#endif

static const struct cli_cmd cmds[] = {
	{ "record", do_record, "record the live event stream to a trace file" },
	{ "replay", do_replay, "run the policy core and reference governors over a trace" },
	{ "synth",  do_synth,  "write a synthetic trace of a linux-pm scenario" },
	{ "plot",   do_plot,   "draw a timeline or the energy/latency scatter (gnuplot)" },
	{ "validate", do_validate, "measure bpfgov against the machine's governors; write a report" },
	{ NULL, NULL, NULL },
};

/* govloader's: named there in one line. */
static const char *const loader_cmds[] = {
	"start", "stop", "status", "probe", "tail", "dump", "set", "restore", "metrics", NULL
};

int main(int argc, char **argv)
{
	log_prog = "govlab";
	return cli_main(cmds, loader_cmds, "govloader", GOV_VERSION, argc, argv);
}
