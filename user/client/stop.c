// SPDX-License-Identifier: GPL-2.0
/* govloader stop: ask the running instance to stop, wait until it restored. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "common.h"
#include "gov.h"
#include "log.h"
#include "govloader_cmds.h"

static const char stop_usage[] =
"Usage: govloader stop [--timeout S] [--pin-root DIR]\n"
"Ask the running 'govloader start' to stop and wait until it has restored\n"
"every knob it changed. Exit 3 if nothing runs; exit 1, signalling nothing,\n"
"from another PID namespace than the instance's.\n"
"  --timeout S       how long to wait (15 s)\n"
"  --pin-root DIR    the instance whose maps are pinned there (" DEFAULT_PIN_ROOT "):\n"
"                    one that pins elsewhere is not stopped (exit 1)\n";

int do_stop(int argc, char **argv)
{
	struct cli_opts o = {};
	__u64 end;
	pid_t pid;
	int err = cli_parse("stop", stop_usage, argc, argv, "timeout pin-root", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (geteuid() != 0) {
		pr_warn("stop needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	err = check_running(o.pin_root, &pid);
	if (err)
		return err;
	/* A pid from another PID namespace would signal a stranger. */
	if (gov_owner_pidns_check(pid))
		return 1;
	if (kill(pid, SIGTERM)) {
		pr_warn("cannot signal pid %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	end = mono_ns() + (__u64)(o.timeout * 1e9);
	while (gov_lock_owner() == pid) {
		if (mono_ns() > end) {
			pr_warn("pid %d did not stop within %.0f s\n", (int)pid, o.timeout);
			return 1;
		}
		usleep(20000);
	}
	pr_info("stopped (pid %d) and restored\n", (int)pid);
	return 0;
}
