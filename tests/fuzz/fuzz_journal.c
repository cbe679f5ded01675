// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the state journal reader (user/act/journal.c
 * journal_parse) and restore's decisions on what it read
 * (journal_entry_check, journal_open_entry): what `govloader restore`
 * writes back, and where.
 *
 * "@M" and "@S" in the input stand for the MSR and sysfs roots of a
 * stand-in tree made at start (so that seeds reach accepted records); the
 * input is parsed as is, and again with a valid " crc=" appended to every
 * line that lacks one, so that mutations reach the record parser behind
 * the checksum. Checks:
 * - every record returned has an absolute path, a text length in range
 *   and is unique per knob;
 * - a record accepted by journal_entry_check() names, by an independent
 *   test, one of the knobs bpfgov writes for its own CPU beneath the
 *   roots (HWP_REQUEST bits 7:0 or CPPC_REQ bits 15:8 on <M>/<cpu>/msr;
 *   the four per-CPU sysfs knobs under <S>; for cpu 0 also the one
 *   system-wide knob, cpuidle's current_governor);
 * - every file journal_open_entry() opens (read-only: nothing is written)
 *   is one of the allowed stand-in knobs, by inode: never a file outside
 *   the roots, a planted symlink's target, or another file in the tree.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "journal.h"

static char tree[64], msr_root[128], sys_root[128];
/* the inodes of the allowed knobs in the stand-in tree */
static ino_t allowed[16];
static int nr_allowed;

static void mk(const char *rel, bool knob)
{
	char p[512], cmd[1024];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && echo 0 >'%s'", p, p);
	if (system(cmd) || stat(p, &st))
		abort();
	if (knob)
		allowed[nr_allowed++] = st.st_ino;
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	if (system(cmd))
		return;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char cmd[2048];

	(void)argc;
	(void)argv;
	snprintf(tree, sizeof(tree), "/tmp/bpfgov-fuzz-jnl-XXXXXX");
	if (!mkdtemp(tree))
		abort();
	snprintf(msr_root, sizeof(msr_root), "%s/msr", tree);
	snprintf(sys_root, sizeof(sys_root), "%s/sys", tree);
	mk("msr/0/msr", true);
	mk("msr/1/msr", true);
	mk("sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us", true);
	mk("sys/devices/system/cpu/cpu0/cpuidle/state1/disable", true);
	mk("sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq", true);
	mk("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference", true);
	mk("sys/devices/system/cpu/cpuidle/current_governor", true);
	/* not knobs: beside them, outside the roots, behind planted links */
	mk("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", false);
	mk("sys/devices/system/cpu/cpu0/online", false);
	mk("sys/devices/system/cpu/cpuidle/current_driver", false);
	mk("sys/fs/cgroup/cgroup.procs", false);
	mk("proc/sys/kernel/core_pattern", false);
	mk("outside/power/pm_qos_resume_latency_us", false);
	mk("outside/msr", false);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && ln -s ../cpufreq/policy0 sys/devices/system/cpu/cpu0/cpufreq && "
		 "mkdir -p sys/devices/system/cpu/cpu1 msr/3 && "
		 "ln -s ../../../../../outside/power sys/devices/system/cpu/cpu1/power && "
		 "ln -s '%s/outside' msr/2 && ln -s ../../outside/msr msr/3/msr && "
		 "ln -s /proc/self/cwd sys/devices/system/cpu/cpu2",
		 tree, tree);
	if (system(cmd))
		abort();
	atexit(cleanup);
	return 0;
}

/* The independent test: @e names a knob bpfgov writes for its own CPU. */
static bool knob_ok(const struct journal_entry *e)
{
	char want[256];
	const char *rel;
	size_t sl = strlen(sys_root);
	unsigned int k;
	int n = 0;

	if (e->is_msr) {
		snprintf(want, sizeof(want), "%s/%d/msr", msr_root, e->cpu);
		return !strcmp(e->path, want) &&
		       ((e->msr == 0x774 && e->shift == 0) ||
			(e->msr == 0xc00102b3 && e->shift == 8));
	}
	if (strncmp(e->path, sys_root, sl) || e->path[sl] != '/')
		return false;
	rel = e->path + sl + 1;
	if (!strcmp(rel, "devices/system/cpu/cpuidle/current_governor"))
		return e->cpu == 0;
	snprintf(want, sizeof(want), "devices/system/cpu/cpu%d/", e->cpu);
	if (strncmp(rel, want, strlen(want)))
		return false;
	rel += strlen(want);
	if (!strcmp(rel, "cpufreq/scaling_min_freq") ||
	    !strcmp(rel, "cpufreq/energy_performance_preference") ||
	    !strcmp(rel, "power/pm_qos_resume_latency_us"))
		return true;
	if (sscanf(rel, "cpuidle/state%u/disable%n", &k, &n) != 1 || rel[n] || k >= 10 /* CPUIDLE_STATE_MAX */)
		return false;
	snprintf(want, sizeof(want), "cpuidle/state%u/disable", k);
	return !strcmp(rel, want);
}

static void decide(const struct journal_entry *e)
{
	const char *root, *rel;
	char why[512];
	struct stat st;
	int fd, i;

	if (journal_entry_check(e, msr_root, sys_root, &root, &rel, why, sizeof(why)))
		return;
	if (!knob_ok(e))
		abort();	/* accepted a record that names no knob of ours */
	fd = journal_open_entry(e, msr_root, sys_root, O_RDONLY, why, sizeof(why));
	if (fd < 0)
		return;
	if (fstat(fd, &st))
		abort();
	close(fd);
	for (i = 0; i < nr_allowed; i++)
		if (st.st_ino == allowed[i])
			return;
	abort();		/* resolved to a file that is no knob */
}

static void check(const char *buf, size_t len)
{
	struct journal_entry *v;
	size_t n, i, k;
	int bad, pid;
	char msg[128];

	if (journal_parse(buf, len, &v, &n, &bad, &pid, msg, sizeof(msg)))
		return;
	for (i = 0; i < n; i++) {
		if (v[i].path[0] != '/' || v[i].len >= JOURNAL_TEXT_MAX ||
		    strnlen(v[i].path, sizeof(v[i].path)) >= sizeof(v[i].path))
			abort();
		for (k = 0; k < i; k++)
			if (v[k].is_msr == v[i].is_msr && v[k].msr == v[i].msr &&
			    !strcmp(v[k].path, v[i].path))
				abort();
		decide(&v[i]);
	}
	free(v);
}

/* @in with "@M"/"@S" replaced by the roots (malloc'd, length in *olen). */
static char *expand(const char *in, size_t size, size_t *olen)
{
	size_t cap = size * (strlen(sys_root) + 1) + 1, o = 0, i;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	for (i = 0; i < size; i++) {
		if (in[i] == '@' && i + 1 < size && (in[i + 1] == 'M' || in[i + 1] == 'S')) {
			const char *r = in[i + 1] == 'M' ? msr_root : sys_root;

			memcpy(out + o, r, strlen(r));
			o += strlen(r);
			i++;
		} else {
			out[o++] = in[i];
		}
	}
	*olen = o;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0, o = 0, size2;
	char *in, *out;

	in = expand((const char *)data, size, &size2);
	if (!in)
		return 0;
	size = size2;
	check(in, size);
	out = malloc(size + (size + 1) * 14 + 1);
	if (!out) {
		free(in);
		return 0;
	}
	while (off < size) {
		const char *nl = memchr(in + off, '\n', size - off);
		size_t ll = nl ? (size_t)(nl - (in + off)) : size - off;

		memcpy(out + o, in + off, ll);
		if (ll < 13 || memcmp(in + off + ll - 13, " crc=", 5))
			o += sprintf(out + o + ll, " crc=%08x", journal_crc32(in + off, ll));
		o += ll;
		if (nl)
			out[o++] = '\n';
		off += ll + (nl ? 1 : 0);
	}
	check(out, o);
	free(out);
	free(in);
	return 0;
}
