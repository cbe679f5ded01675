/* SPDX-License-Identifier: GPL-2.0 */
/* govloader's subcommands and what they share. User space only. */
#ifndef __BPFGOV_GOV_H
#define __BPFGOV_GOV_H

#ifdef __BPF__
#error "user/gov.h is for user space only"
#endif

#include <stdio.h>
#include "bpfgov.h"

int do_start(int argc, char **argv);
int do_stop(int argc, char **argv);
int do_status(int argc, char **argv);
int do_tail(int argc, char **argv);
int do_dump(int argc, char **argv);
int do_plot(int argc, char **argv);	/* plot.c */

/* `start` publishes what only it knows (actuator state) here, atomically,
 * once a second; `status` reads it. */
#define GOV_STATUS_FILE	"status.json"

/* One record as text or JSON (tail). */
void print_event(FILE *f, const struct bpfgov_event *e, int json);

#endif
