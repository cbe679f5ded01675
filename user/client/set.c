// SPDX-License-Identifier: GPL-2.0
/* `govloader set`: change tunables of the running instance. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bpfgov.h"
#include "bpfgov_tunables.h"
#include "cli.h"
#include "common.h"
#include "config.h"
#include "log.h"
#include "state.h"
#include "tunables.h"
#include "govloader_cmds.h"

static const char set_usage[] =
"Usage: govloader set KEY=VALUE [KEY=VALUE ...] [--pin-root DIR]\n"
"Change tunables of the running instance through its pinned 'tunables'\n"
"map; the BPF programs use them at their next event. Every pair is\n"
"validated first (same ranges as 'start --set'); on any error nothing changes.\n"
"'govloader status' shows the new values with origin 'set'. nr_states\n"
"describes the machine and cannot be set at run time.\n"
"Exit: 0 ok, 1 error, 2 bad input, 3 not running.\n";

int do_set(int argc, char **argv)
{
	struct cli_opts co = {};
	const char *pin_root;
	struct cfg_write w = { .how = CFG_WRITE_SET };
	struct bpfgov_config scratch;
	struct gov_config gc = {};
	char msg[512];
	int i, n, fd = -1, ret = 1, err;
	size_t k;

	err = cli_parse("set", set_usage, argc, argv, "pin-root ARGS", &co);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	pin_root = co.pin_root;
	optind = co.argi;
	n = argc - optind;
	if (n <= 0) {
		pr_warn("set: expected KEY=VALUE (try 'govloader set --help')\n");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		pr_warn("set needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return 1;
	}
	/* Validate everything before looking at the running instance. */
	if (cfg_kv_dup((const char *const *)(argv + optind), n, msg, sizeof(msg))) {
		pr_warn("set: %s\n", msg);
		return EXIT_USAGE;
	}
	bpfgov_config_defaults(&scratch);
	for (i = optind; i < argc; i++) {
		if (!strncmp(argv[i], "nr_states=", 10)) {
			pr_warn("set: nr_states describes the machine's idle states and cannot be changed at run time\n");
			return EXIT_USAGE;
		}
		if (tunable_set_kv(&scratch, argv[i], msg, sizeof(msg))) {
			pr_warn("set: %s\n", msg);
			return EXIT_USAGE;
		}
	}
	if (!gov_lock_owner()) {
		pr_warn("bpfgov is not running; use 'govloader start --set %s'\n", argv[optind]);
		return EXIT_NOT_RUNNING;
	}
	fd = pins_open_map(pin_root, "tunables");
	if (fd < 0) {
		pr_warn("set: cannot open %s/tunables: %s\n", pin_root, strerror(-fd));
		goto out;
	}
	/* Under the lock every writer of the tunables takes (config.c);
	 * the origins also go to the state map (none: status shows the old) */
	w.state = state_map_pinned(pin_root);
	w.kv = (const char *const *)(argv + optind);
	w.nr_kv = n;
	err = cfg_tunables_write(gov_run_dir(), fd, &gc, &w, msg, sizeof(msg));
	if (err) {
		pr_warn("set: %s\n", msg);
		ret = err == -ERANGE ? EXIT_USAGE : 1;
		goto out;
	}
	for (k = 0; k < tunable_count; k++) {
		__u32 a = tunable_get(&w.before, &tunable_table[k]);
		__u32 b = tunable_get(&gc.cfg, &tunable_table[k]);

		if (a != b)
			pr_info("%s: %u -> %u\n", tunable_table[k].name, a, b);
	}
	ret = 0;
out:
	state_unmap(w.state);
	if (fd >= 0)
		close(fd);
	return ret;
}
