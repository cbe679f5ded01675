/* SPDX-License-Identifier: GPL-2.0 */
/* Option parsing shared by govloader's small subcommands. User space only. */
#ifndef __BPFGOV_CLI_H
#define __BPFGOV_CLI_H

#ifdef __BPF__
#error "user/lib/cli.h is for user space only"
#endif

#include <stdbool.h>

enum { CLI_TIME_NONE = 0, CLI_TIME_WALL, CLI_TIME_REL };

struct cli_opts {
	const char *pin_root;	/* --pin-root (DEFAULT_PIN_ROOT) */
	bool json;		/* --json */
	bool all;		/* --all */
	long cpu;		/* --cpu N (-1: all) */
	long count;		/* --count N (-1: no limit) */
	double timeout;		/* --timeout S (15) */
	int time;		/* --time wall|rel: CLI_TIME_* */
	const char *sysfs_root;	/* --sysfs-root (DEFAULT_SYSFS_ROOT) */
	const char *proc_root;	/* --proc-root (DEFAULT_PROC_ROOT) */
	const char *msr_root;	/* --msr-root (DEFAULT_MSR_ROOT) */
	const char *out;	/* --out DIR (NULL) */
	bool quick;		/* --quick */
	bool discard;		/* --discard */
	int argi;		/* first positional argument */
};

/*
 * Parse -v/-q/-h and the long options named in @allowed (space separated:
 * "pin-root json cpu count all timeout sysfs-root proc-root msr-root out
 * quick discard"; "ARGS" admits positional
 * arguments, from argv[o->argi]). Returns 0, 1 after printing @usage for
 * --help, or -EINVAL after one clear line.
 */
int cli_parse(const char *cmd, const char *usage, int argc, char **argv,
	      const char *allowed, struct cli_opts *o);

/*
 * For a subcommand with its own getopt_long loop (optstring starting with
 * ':'), on every option @c it does not handle itself: -v, -q, -h (prints
 * @usage unless NULL), a missing value, an unknown option. Returns 0 to go
 * on, 1 after --help, or -EINVAL after one clear line.
 */
int cli_common_opt(const char *cmd, const char *usage, int c, char **argv);
/* --@opt S: seconds in (0, CLI_SECONDS_MAX]. 0, or -EINVAL after one line
 * that says whether @arg is no number or out of that range. */
#define CLI_SECONDS_MAX	(365 * 24 * 3600)
int cli_seconds(const char *cmd, const char *opt, const char *arg, double *out);
/* A root given with --@opt DIR (--msr-root, --sysfs-root, --proc-root)
 * must be an existing directory (a default root that is missing is a
 * platform fact, not a mistake). 0, or -errno after one line. */
int cli_root_check(const char *cmd, const char *opt, const char *dir);
/* No positional arguments left after getopt: 0, or -EINVAL after one line. */
int cli_no_args(const char *cmd, int argc, char **argv);

/* A binary's commands (govloader's, govlab's), NULL-terminated. */
struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};
/*
 * A binary's main() after log_prog is set: -v/-q before the command,
 * -h/--help, help [COMMAND], --version and a last command, version (both
 * print "PROG @version"), then COMMAND's do_*() with argv from COMMAND on.
 * A command of @moved (NULL-terminated) belongs to the binary @other:
 * refused in one line that names it there. Returns the exit status.
 */
int cli_main(const struct cli_cmd *cmds, const char *const *moved, const char *other,
	     const char *version, int argc, char **argv);

#endif
