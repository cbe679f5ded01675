// SPDX-License-Identifier: GPL-2.0
/* Option parsing shared by the small subcommands (see cli.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "common.h"
#include "log.h"
#include "util.h"

enum {
	O_PIN = 256, O_JSON, O_CPU, O_COUNT, O_ALL, O_TIMEOUT, O_TIME, O_SYSFS, O_PROC,
	O_MSR, O_OUT, O_QUICK, O_DISCARD,
};

int cli_common_opt(const char *cmd, const char *usage, int c, char **argv)
{
	switch (c) {
	case 'v':
		log_level = LOG_DEBUG;
		return 0;
	case 'q':
		log_level = LOG_WARN;
		return 0;
	case 'h':
		if (usage)
			fputs(usage, stdout);
		return 1;
	case ':':
		pr_warn("%s: option '%s' needs a value (try '%s %s --help')\n",
			cmd, argv[optind - 1], log_prog, cmd);
		return -EINVAL;
	default:
		pr_warn("%s: unknown option '%s' (try '%s %s --help')\n",
			cmd, argv[optind - 1], log_prog, cmd);
		return -EINVAL;
	}
}

int cli_seconds(const char *cmd, const char *opt, const char *arg, double *out)
{
	int err = parse_seconds(arg, out);

	if (err == -ERANGE && strtod(arg, NULL) > 0)
		pr_warn("%s: --%s '%s': out of range (0, %d] seconds\n", cmd, opt,
			str_esc(arg), CLI_SECONDS_MAX);
	else if (err)
		pr_warn("%s: --%s '%s': expected seconds > 0\n", cmd, opt, str_esc(arg));
	return err ? -EINVAL : 0;
}

int cli_root_check(const char *cmd, const char *opt, const char *dir)
{
	struct stat st;
	int err;

	/* The default MSR root is absent where the msr driver is not loaded:
	 * a platform fact (backend none, "modprobe msr"), not a mistake, even
	 * when a caller such as validate names it explicitly. */
	if (!strcmp(opt, "msr-root") && !strcmp(dir, DEFAULT_MSR_ROOT))
		return 0;
	if (stat(dir, &st)) {
		err = -errno;
		pr_warn("%s: --%s %s: %s\n", cmd, opt, str_esc(dir), strerror(-err));
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_warn("%s: --%s %s: not a directory\n", cmd, opt, str_esc(dir));
		return -ENOTDIR;
	}
	return 0;
}

int cli_no_args(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	pr_warn("%s: unexpected argument '%s' (try '%s %s --help')\n",
		cmd, argv[optind], log_prog, cmd);
	return -EINVAL;
}

int cli_parse(const char *cmd, const char *usage, int argc, char **argv,
	      const char *allowed, struct cli_opts *o)
{
	static const struct option lo[] = {
		{ "pin-root", required_argument, NULL, O_PIN },
		{ "json", no_argument, NULL, O_JSON },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "count", required_argument, NULL, O_COUNT },
		{ "all", no_argument, NULL, O_ALL },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "time", required_argument, NULL, O_TIME },
		{ "sysfs-root", required_argument, NULL, O_SYSFS },
		{ "proc-root", required_argument, NULL, O_PROC },
		{ "msr-root", required_argument, NULL, O_MSR },
		{ "out", required_argument, NULL, O_OUT },
		{ "quick", no_argument, NULL, O_QUICK },
		{ "discard", no_argument, NULL, O_DISCARD },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name;
	__u32 v;
	int c, idx, err;

	o->pin_root = DEFAULT_PIN_ROOT;
	o->cpu = -1;
	o->count = -1;
	o->timeout = 15;
	o->sysfs_root = DEFAULT_SYSFS_ROOT;
	o->proc_root = DEFAULT_PROC_ROOT;
	o->msr_root = DEFAULT_MSR_ROOT;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":vqh", lo, &idx)) != -1) {
		if (c >= O_PIN && c <= O_DISCARD) {
			name = lo[c - O_PIN].name;
			if (!str_has_word(allowed, name)) {
				pr_warn("%s: unknown option '--%s' (try '%s %s --help')\n",
					cmd, name, log_prog, cmd);
				return -EINVAL;
			}
		}
		switch (c) {
		case O_PIN: o->pin_root = optarg; break;
		case O_JSON: o->json = true; break;
		case O_ALL: o->all = true; break;
		case O_SYSFS:
			if (cli_root_check(cmd, "sysfs-root", optarg))
				return -EINVAL;
			o->sysfs_root = optarg;
			break;
		case O_PROC:
			if (cli_root_check(cmd, "proc-root", optarg))
				return -EINVAL;
			o->proc_root = optarg;
			break;
		case O_MSR:
			if (cli_root_check(cmd, "msr-root", optarg))
				return -EINVAL;
			o->msr_root = optarg;
			break;
		case O_OUT: o->out = optarg; break;
		case O_QUICK: o->quick = true; break;
		case O_DISCARD: o->discard = true; break;
		case O_CPU:
			if (parse_u32(optarg, 0, BPFGOV_MAX_CPUS - 1, &v)) {
				pr_warn("%s: --cpu '%s': expected a CPU number\n", cmd, optarg);
				return -EINVAL;
			}
			o->cpu = v;
			break;
		case O_COUNT:
			if (parse_u32(optarg, 1, 0x7fffffff, &v)) {
				pr_warn("%s: --count '%s': expected a number >= 1\n", cmd, optarg);
				return -EINVAL;
			}
			o->count = v;
			break;
		case O_TIMEOUT:
			if (cli_seconds(cmd, "timeout", optarg, &o->timeout))
				return -EINVAL;
			break;
		case O_TIME:
			if (!strcmp(optarg, "wall"))
				o->time = CLI_TIME_WALL;
			else if (!strcmp(optarg, "rel") || !strcmp(optarg, "relative"))
				o->time = CLI_TIME_REL;
			else {
				pr_warn("%s: --time '%.64s': expected wall or rel\n", cmd, optarg);
				return -EINVAL;
			}
			break;
		default:
			err = cli_common_opt(cmd, usage, c, argv);
			if (err)
				return err;
		}
	}
	o->argi = optind;
	if (!str_has_word(allowed, "ARGS"))
		return cli_no_args(cmd, argc, argv);
	return 0;
}

static void cli_usage(FILE *f, const struct cli_cmd *cmds)
{
	const struct cli_cmd *c;

	fprintf(f, "Usage: %s [-v|-q] COMMAND [OPTIONS]\n"
		   "       %s --version | help [COMMAND]\n\nCommands:\n", log_prog, log_prog);
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->help);
	fprintf(f, "  %-8s print %s's version (also --version)\n", "version", log_prog);
	fprintf(f, "\n'%s COMMAND --help' shows each command's options.\n", log_prog);
}

/* `PROG version`, `PROG --version`: one line, "PROG VERSION". */
static int cli_version(const char *version, int argc, char **argv)
{
	struct cli_opts o = {};
	char usage[256];
	int err;

	snprintf(usage, sizeof(usage), "Usage: %s version\n"
		 "Print the version of %s; '%s --version' prints the same.\n",
		 log_prog, log_prog, log_prog);
	err = cli_parse("version", usage, argc, argv, "", &o);
	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	printf("%s %s\n", log_prog, version);
	return 0;
}

static const struct cli_cmd *cli_find(const struct cli_cmd *cmds, const char *name)
{
	for (; cmds->name; cmds++)
		if (!strcmp(cmds->name, name))
			return cmds;
	return NULL;
}

/* @name is a command of the other binary: say so in one line. */
static bool cli_moved(const char *const *moved, const char *other, const char *name)
{
	for (; *moved; moved++) {
		if (!strcmp(*moved, name)) {
			pr_warn("%s is a %s command: %s %s ...\n", name, other, other, name);
			return true;
		}
	}
	return false;
}

int cli_main(const struct cli_cmd *cmds, const char *const *moved, const char *other,
	     const char *version, int argc, char **argv)
{
	const struct cli_cmd *c;
	int i = 1;

	/* Global verbosity before the command; commands accept it too. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			log_level = LOG_DEBUG;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			log_level = LOG_WARN;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_usage(stdout, cmds);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			optind = 1;
			return cli_version(version, 1, argv + i);
		} else {
			pr_warn("unknown option '%s' (try '%s --help')\n", argv[i], log_prog);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		pr_warn("no command given (try '%s --help')\n", log_prog);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 >= argc) {
			cli_usage(stdout, cmds);
			return 0;
		}
		/* help CMD: CMD's own usage, as CMD --help prints it */
		c = cli_find(cmds, argv[i + 1]);
		if (c || !strcmp(argv[i + 1], "version")) {
			char *hargv[] = { argv[i + 1], "--help", NULL };

			optind = 1;
			return c ? c->fn(2, hargv) : cli_version(version, 2, hargv);
		}
		if (!cli_moved(moved, other, argv[i + 1]))
			pr_warn("help: unknown command '%s' (try '%s --help')\n",
				str_esc(argv[i + 1]), log_prog);
		return EXIT_USAGE;
	}
	c = cli_find(cmds, argv[i]);
	if (c || !strcmp(argv[i], "version")) {
		optind = 1;
		return c ? c->fn(argc - i, argv + i) : cli_version(version, argc - i, argv + i);
	}
	if (!cli_moved(moved, other, argv[i]))
		pr_warn("unknown command '%s' (try '%s --help')\n", str_esc(argv[i]), log_prog);
	return EXIT_USAGE;
}
