/* SPDX-License-Identifier: GPL-2.0 */
/*
 * govloader's commands: the daemon and its clients, one do_*() each.
 * argv[0] is the command's name; each returns the process's exit status
 * (common.h: 0, 1 runtime error, EXIT_USAGE, EXIT_NOT_RUNNING, EXIT_JOURNAL).
 * The lab's commands are govlab's (govlab_cmds.h).
 */
#ifndef __BPFGOV_GOVLOADER_CMDS_H
#define __BPFGOV_GOVLOADER_CMDS_H

int do_start(int argc, char **argv);	/* daemon/start.c */
int do_stop(int argc, char **argv);	/* client/stop.c */
int do_status(int argc, char **argv);	/* client/status.c */
int do_probe(int argc, char **argv);	/* client/probe.c */
int do_tail(int argc, char **argv);	/* client/tail.c */
int do_dump(int argc, char **argv);	/* client/dump.c */
int do_set(int argc, char **argv);	/* client/set.c */
int do_restore(int argc, char **argv);	/* client/restore.c */
int do_metrics(int argc, char **argv);	/* client/metrics_cmd.c */

#endif /* __BPFGOV_GOVLOADER_CMDS_H */
