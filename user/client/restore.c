// SPDX-License-Identifier: GPL-2.0
/* `govloader restore`: put back what a dead instance changed, from its
 * journal (journal_restore.c puts it back, journal.c reads and writes it),
 * then remove that instance's leftovers. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "common.h"
#include "config.h"
#include "gov.h"
#include "journal.h"
#include "actuate.h"
#include "log.h"
#include "util.h"
#include "govloader_cmds.h"

static const char restore_usage[] =
"Usage: govloader restore [--discard] [--pin-root DIR] [--msr-root DIR]\n"
"                         [--sysfs-root DIR]\n"
"Put back every register and file a dead 'govloader start' wrote (after a\n"
"crash or kill -9), from its journal in $BPFGOV_RUN_DIR or /run/bpfgov, then\n"
"remove the journal and stale pins. Refused while bpfgov runs ('stop'\n"
"restores). With no journal there is nothing to do: one line, exit 0.\n"
"Only knobs bpfgov writes, beneath the roots given here (defaults /dev/cpu\n"
"and /sys, whatever the journal says), are written: of HWP_REQUEST and\n"
"CPPC_REQ the min field alone, into the register's current value. A knob of\n"
"a CPU that is offline or gone counts as restored.\n"
"A journal that cannot be restored whole (a corrupt or refused record, a\n"
"knob that cannot be written) is kept and 'start' refuses to run until it is\n"
"resolved: fix the cause and run 'restore' again, or check the knobs it\n"
"names by hand and decide with --discard: restore what can be, then move\n"
"the journal to journal.discarded (never read again).\n"
"Exit: 0 restored, nothing to do or discarded, 1 error, 4 the journal needs\n"
"an operator (kept).\n";

int do_restore(int argc, char **argv)
{
	struct cli_opts co = {};
	const char *pin_root, *dir = gov_run_dir();
	struct journal_result res;
	int fd = -1, err, ret = 1;
	pid_t owner;

	err = cli_parse("restore", restore_usage, argc, argv, "pin-root discard msr-root sysfs-root", &co);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	pin_root = co.pin_root;
	if (geteuid() != 0) {
		pr_warn("restore needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	if (run_dir_secure(dir))
		return 1;
	err = gov_lock_take(&fd, &owner);
	if (err == -EBUSY) {
		pr_warn("bpfgov is running (pid %d); %s restores everything\n", (int)owner,
			gov_lock_stop_hint());
		return 1;
	}
	if (err)
		return 1;
	err = journal_restore(dir, co.msr_root, co.sysfs_root, &res);
	if (err == -ENOENT) {
		pr_info("nothing to restore: no journal in %s\n", dir);
		ret = 0;
	} else if (err && co.discard) {
		if (journal_discard(dir))
			goto out;
		ret = 0;
	} else if (err) {
		pr_warn("restore incomplete; the journal %s/%s is kept and 'start' refuses to run until it is resolved: %s\n",
			dir, GOV_JOURNAL_FILE, err == -EBADMSG || err == -EINVAL ?
			"check the knobs it names, then 'govloader restore --discard'" :
			"fix the cause and run 'govloader restore' again (or '--discard')");
		ret = EXIT_JOURNAL;
		goto out;
	} else {
		journal_result_say(&res, "from the journal of");
		ret = 0;
	}
	/* The dead instance's other leftovers. */
	if (pins_present(pin_root)) {
		pr_info("removing stale pins under %s\n", pin_root);
		pins_remove(pin_root);
	}
	cfg_origins_remove(dir);
out:
	gov_lock_release(fd);
	return ret;
}
