/* SPDX-License-Identifier: GPL-2.0 */
/*
 * govlab's commands: the lab, one do_*() each. argv[0] is the command's
 * name; each returns the process's exit status (0, 1 runtime error,
 * EXIT_USAGE, EXIT_NOT_RUNNING: record without a running instance).
 */
#ifndef __BPFGOV_GOVLAB_CMDS_H
#define __BPFGOV_GOVLAB_CMDS_H

int do_record(int argc, char **argv);	/* lab/record.c */
int do_replay(int argc, char **argv);	/* lab/replay/replay.c */
int do_synth(int argc, char **argv);	/* lab/synth.c */
int do_plot(int argc, char **argv);	/* lab/plot.c */
int do_validate(int argc, char **argv);	/* lab/validate.c */

#endif /* __BPFGOV_GOVLAB_CMDS_H */
