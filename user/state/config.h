/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Configuration of `govloader start`: its command line, the config file
 * (/etc/bpfgov.conf or --config), the built-in profiles, the record of
 * where each tunable's value came from, and `govloader set`.
 *
 * Precedence, lowest first: default (or what the machine reports) <
 * profile (or power-profiles-daemon's, mapped) < file < start --set <
 * `govloader set`. A profile switch takes back the keys the new profile
 * sets from `govloader set`; a scheduler reload keeps every value.
 * cfg_tunables_write() is the one writer of the running tunables.
 * Everything is validated with the tunables table (user/state/tunables.c) before
 * anything is changed. User space only.
 */
#ifndef __BPFGOV_CONFIG_H
#define __BPFGOV_CONFIG_H

#ifdef __BPF__
#error "user/state/config.h is for user space only"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "bpfgov.h"
#include "actuate.h"

#define DEFAULT_CONFIG_FILE	"/etc/bpfgov.conf"
#define DEFAULT_PROFILE		"balanced"
#define CONFIG_MAX_ITEMS	64	/* key = value lines in a file, --set options */
#define CONFIG_MAX_LINE		1024
#define CONFIG_MAX_SIZE		(64 * 1024)
#define CONFIG_PROFILE_LEN	32
/* In the run directory: the effective configuration's values and origins,
 * written by cfg_tunables_write() alone; read by status. 0600, root. */
#define GOV_ORIGINS_FILE	"config"

/* --------------------------------------------------- start's options */

struct start_opts {
	enum bpfgov_mode mode;		/* NONE = auto */
	bool dry_run;
	double duration;
	const char *pin_root;
	const char *msr_root;
	const char *sysfs_root;
	const char *proc_root;
	const char *btf_path;
	const char *report_path;
	const char *config_path;	/* NULL: DEFAULT_CONFIG_FILE if it exists */
	const char *profile;		/* NULL: the file's, else DEFAULT_PROFILE */
	enum act_backend backend;
	bool no_floor, no_idle;
	const char *idle_governor;	/* --idle-governor: for the run (NULL: leave) */
	bool no_rt;			/* keep the event loop at normal priority */
	bool scx_partial, restart;
	double test_scx_error_after;	/* test only: raise a BPF-side error */
	const char *metrics_listen;	/* serve /metrics here (NULL: off) */
	bool follow_ppd;		/* --follow-ppd */
	const char *sets[CONFIG_MAX_ITEMS];
	int nr_sets;
};

/* start_opts.c */
void start_usage(FILE *f);
/* Parse `start`'s arguments (argv[0] is "start"). No side effects beyond
 * @o, getopt's state and the log level (-v/-q). Returns 0, 1 after --help
 * (printed), or -EINVAL after one pr_warn line. Safe to call repeatedly
 * (resets getopt). */
int start_parse_args(int argc, char **argv, struct start_opts *o);

/* ------------------------------------------------------------ origins */

enum cfg_origin {
	ORIGIN_DEFAULT = 0,
	ORIGIN_MACHINE,		/* read from the machine (idle states, latency) */
	ORIGIN_PROFILE,
	ORIGIN_FILE,
	ORIGIN_SET,		/* govloader set */
	ORIGIN_CMDLINE,		/* start --set */
	ORIGIN_PPD,		/* the profile power-profiles-daemon selected */
	ORIGIN_NR,
};
const char *cfg_origin_name(enum cfg_origin o);
int cfg_origin_parse(const char *s);	/* enum value or -EINVAL */

#define CFG_MAX_TUNABLES	64

/* The effective configuration and where each tunable came from (indexed
 * like tunable_table). */
struct gov_config {
	struct bpfgov_config cfg;
	unsigned char origin[CFG_MAX_TUNABLES];
	char profile[CONFIG_PROFILE_LEN];
	char file[4096];		/* config file read, "" when none */
	bool follow_ppd;		/* --follow-ppd or `follow_ppd = yes` */
	char ppd_profile[CONFIG_PROFILE_LEN];	/* PPD's active profile ("" unknown) */
};

/* Among @n "key=value" strings, a key given twice (as in a config file,
 * where that is an error too): -EINVAL with @msg naming both, else 0. */
int cfg_kv_dup(const char *const *kv, int n, char *msg, size_t len);
/* Set "key=value" @kv into @gc and record @origin. 0 or -errno with @msg. */
int cfg_set_kv(struct gov_config *gc, const char *kv, enum cfg_origin origin,
	       char *msg, size_t len);

/* --------------------------------------------------------- profiles */

struct cfg_profile {
	const char *name;
	const char *desc;
	const char *const *kv;		/* "key=value", NULL-terminated */
};
extern const struct cfg_profile cfg_profiles[];	/* NULL-named end */
const struct cfg_profile *cfg_profile_find(const char *name);
/* Apply profile @name over @gc (origin PROFILE). -ENOENT with @msg. */
int cfg_profile_apply(struct gov_config *gc, const char *name, char *msg, size_t len);

/* ------------------------------------------------------ config file */

struct cfg_item {
	char kv[CONFIG_MAX_LINE];	/* normalised "key=value" */
	int line;
};

struct cfg_file {
	char profile[CONFIG_PROFILE_LEN];	/* "" when the file names none */
	int profile_line;
	int follow_ppd;				/* 0 unset, 1 yes, 2 no */
	int follow_ppd_line;
	struct cfg_item items[CONFIG_MAX_ITEMS];
	int nr;
};

/*
 * Parse a config text of @len bytes (need not be NUL-terminated): lines of
 * "key = value", blank lines, '#' comments (whole line or after a value).
 * `profile = NAME` selects a profile. Every key and value is validated
 * against the tunables table; a duplicate key is an error. On error returns
 * -EINVAL / -ERANGE / -ENOENT / -E2BIG and writes one line
 * "NAME:LINE: reason" (no newline) to @msg; @out is then unspecified.
 */
int cfg_parse(const char *buf, size_t len, const char *name, struct cfg_file *out,
	      char *msg, size_t msglen);
/* Read and parse @path. With @optional, a missing file is not an error
 * (returns -ENOENT without a message, @out empty). As root, a file that
 * is not a regular file owned by root, or is writable by group or others,
 * is refused (anyone who can write it could steer the governor). */
int cfg_load_file(const char *path, bool optional, struct cfg_file *out,
		  char *msg, size_t msglen);

/*
 * The whole build: @base (the defaults with what the machine reports: idle
 * states, transition latency; NULL for the plain defaults; values that
 * differ from the defaults get origin "machine") < profile (--profile,
 * else the file's `profile =`, else balanced) < file (--config FILE, else
 * /etc/bpfgov.conf when it exists) < --set, then the cross-field checks.
 * Errors: -errno and one line in @msg; nothing else is touched.
 */
int cfg_build(struct gov_config *gc, const struct start_opts *o,
	      const struct bpfgov_config *base, char *msg, size_t msglen);

/* Origins file in @dir: written atomically (temp + rename, 0600,
 * O_NOFOLLOW). Read fills profile, file and origin[] (values come from
 * the pinned map). */
int cfg_origins_write(const char *dir, const struct gov_config *gc);
int cfg_origins_read(const char *dir, struct gov_config *gc);
void cfg_origins_remove(const char *dir);

/* ------------------------------------- the running instance's tunables */

enum cfg_write_how {
	CFG_WRITE_START,	/* a fresh instance: @gc as built, nothing kept */
	CFG_WRITE_KEEP,		/* @gc as rebuilt, every `set` value kept (reload) */
	CFG_WRITE_PROFILE,	/* @gc with a new profile: `set` values kept for
				 * the keys that profile does not set */
	CFG_WRITE_SET,		/* `govloader set`: @kv over the running values */
};

struct cfg_write {
	enum cfg_write_how how;
	const char *const *kv;		/* CFG_WRITE_SET: "key=value", validated */
	int nr_kv;
	struct bpfgov_config before;	/* out: what the map held (CFG_WRITE_SET) */
	struct bpfgov_loader_state *state;	/* the state map, mapped: origins and
						 * profile go there too (NULL: not) */
};

/*
 * The one writer of the running tunables: the pinned map @map_fd, the
 * origins file in @dir and the state map's origins (@w->state), both under an exclusive flock on @dir, so that a
 * `govloader set`, a power-profiles-daemon switch and a scheduler reload
 * never undo each other. @gc is the daemon's copy (in: as built; out: as
 * written); for CFG_WRITE_SET it is out only. 0, or -errno with one line in
 * @msg (the map unchanged on a validation error).
 */
int cfg_tunables_write(const char *dir, int map_fd, struct gov_config *gc,
		       struct cfg_write *w, char *msg, size_t len);

/* The configuration's part of the loader_state map: origins, profile,
 * PPD, config file (the tunables' writer calls it under its lock; start
 * at set-up). */
void cfg_state_put(struct bpfgov_loader_state *st, const struct gov_config *gc);

#endif /* __BPFGOV_CONFIG_H */
