// SPDX-License-Identifier: GPL-2.0
/*
 * govloader: loads bpfgov's BPF programs, pins their state, applies the
 * decisions they stream, and inspects a running instance.
 *
 * Each command is a do_*() function (govloader_cmds.h); start's work is
 * split into small steps with one cleanup path that undoes them in reverse
 * order, restoring every MSR and sysfs knob that was written. The lab
 * (record, replay, synth, plot, validate) is govlab.
 */
#include <stddef.h>
#include "cli.h"
#include "govloader_cmds.h"
#include "log.h"

#ifndef GOV_VERSION
#define GOV_VERSION "unknown"	/* built without the Makefile */
#endif

static const struct cli_cmd cmds[] = {
	{ "start",  do_start,  "load the governor and apply its decisions" },
	{ "stop",   do_stop,   "stop the running instance and wait until it restored" },
	{ "status", do_status, "state of the running instance (--json)" },
	{ "probe",  do_probe,  "what the platform offers and the floor backend start would pick (--json)" },
	{ "tail",   do_tail,   "stream live decisions (--json, --cpu N, --count N)" },
	{ "dump",   do_dump,   "pinned maps in readable form" },
	{ "set",    do_set,    "change tunables of the running instance (KEY=VALUE ...)" },
	{ "restore", do_restore, "put back what a crashed instance changed (from its journal)" },
	{ "metrics", do_metrics, "print Prometheus metrics once (-o FILE: atomically)" },
	{ NULL, NULL, NULL },
};

/* govlab's: named there in one line. */
static const char *const lab_cmds[] = { "record", "replay", "synth", "plot", "validate", NULL };

int main(int argc, char **argv)
{
	log_prog = "govloader";
	return cli_main(cmds, lab_cmds, "govlab", GOV_VERSION, argc, argv);
}
