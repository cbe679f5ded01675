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

static const char stop_usage[] =
"Usage: govloader stop [--timeout S]\n"
"Ask the running 'govloader start' to stop and wait until it has restored\n"
"every knob it changed (default timeout 15 s). Exit 3 if nothing runs.\n";

int do_stop(int argc, char **argv)
{
	struct cli_opts o = {};
	__u64 end;
	pid_t pid;
	int err = cli_parse("stop", stop_usage, argc, argv, "timeout", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (geteuid() != 0) {
		pr_warn("stop needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	pid = gov_lock_owner();
	if (!pid && (pid = gov_machine_owner())) {
		pr_warn("bpfgov runs (pid %d) with another run directory; %s stops it\n",
			(int)pid, gov_lock_stop_hint());
		return 1;
	}
	if (!pid) {
		pr_warn("bpfgov is not running\n");
		return EXIT_NOT_RUNNING;
	}
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
