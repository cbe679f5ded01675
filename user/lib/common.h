/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by govloader's subcommands. User space only. */
#ifndef __BPFGOV_COMMON_H
#define __BPFGOV_COMMON_H

#ifdef __BPF__
#error "user/lib/common.h is for user space only"
#endif

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "bpfgov.h"
#include "util.h"

#define DEFAULT_PIN_ROOT	"/sys/fs/bpf/bpfgov"
#define DEFAULT_RUN_DIR		"/run/bpfgov"
#define DEFAULT_SYSFS_ROOT	"/sys"
#define DEFAULT_MSR_ROOT	"/dev/cpu"
#define DEFAULT_PROC_ROOT	"/proc"

/* Exit codes: 0 ok, 1 runtime error, 2 usage error, 3 not running,
 * 4 the state journal of a dead instance needs an operator (kept: restore
 * could not put it back whole; start refuses until it is resolved). */
#define EXIT_USAGE		2
#define EXIT_NOT_RUNNING	3
#define EXIT_JOURNAL		4

/* The maps every mode pins, by name (see bpf/bpfgov_common.bpf.h). */
extern const char *const gov_pinned_maps[];

/* --- paths, bpffs, pins (pins.c) --- */
const char *gov_run_dir(void);		/* $BPFGOV_RUN_DIR or /run/bpfgov */
int pins_prepare(const char *pin_root);	/* bpffs mounted, root dir exists */
int pins_remove(const char *pin_root);	/* unlink our pins, rmdir; 0 if none */
bool pins_present(const char *pin_root);
int pins_open_map(const char *pin_root, const char *name);	/* fd or -errno */
struct bpf_object;
struct bpf_map;
/* A map of @obj by its pin name (one of gov_pinned_maps), NULL if absent:
 * "tunables" and "control" are BPF globals, the maps of their sections. */
struct bpf_map *gov_obj_map(const struct bpf_object *obj, const char *name);
/* Between open and load: pin those globals' maps under @pin_root too (the
 * others are pinned by name through the open options' pin_root_path). */
int gov_obj_pin_globals(struct bpf_object *obj, const char *pin_root);

/* --- single-instance locks (pins.c) --- */
/* One instance per machine, whatever its run directory and pin root. */
#define GOV_MACHINE_LOCK	"/run/bpfgov.lock"
/* Take the machine lock and the run directory's (non-blocking). On -EBUSY
 * *owner is the live owner; -EEXIST: a dead instance's journal waits in
 * another run directory (said in one line). */
int gov_lock_take(int *fd, pid_t *owner);
/* Live owner's pid of this run directory, 0 if nobody holds its lock. */
pid_t gov_lock_owner(void);
/* Live owner's pid of the machine lock (any run directory), 0 if none. */
pid_t gov_machine_owner(void);
/* -EXDEV (said in one line) when the machine lock's holder, @pid, is of
 * another PID namespace than ours, where @pid names another process or
 * none; 0 when it is ours or unknown (a lock written without one). */
int gov_owner_pidns_check(pid_t pid);
/* After gov_lock_take()'s -EBUSY or gov_machine_owner(): how to stop
 * that owner ("'govloader stop'", with its BPFGOV_RUN_DIR when not ours). */
const char *gov_lock_stop_hint(void);
void gov_lock_release(int fd);

/* --- system facts (sysinfo.c) --- */
int sys_nr_cpus(void);
/* Fill the idle-state table of @c from <sysfs_root>'s cpuidle driver;
 * without one, model the kernel's poll/halt pair. Writes the driver name
 * ("none" without one) to @driver. 0, or -E2BIG (said on stderr) for a
 * table longer than BPFGOV_MAX_STATES: refused, never cut. */
int sys_idle_table(const char *sysfs_root, struct bpfgov_config *c,
		   char *driver, size_t len);
/* cpufreq transition latency in us (0 when unknown). */
__u32 sys_transition_latency_us(const char *sysfs_root);
bool sys_have_sched_ext(void);
bool sys_have_btf(const char *btf_path);

/* --- names (names.c) --- */
const char *ev_kind_name(__u32 kind);
const char *ev_reason_name(__u32 reason);
const char *mode_name(__u32 mode);
const char *wake_name(__u32 wake);		/* enum bpfgov_wake: timer, ipi, other */
const char *timer_src_name(__u32 src);	/* enum bpfgov_timer_src */

#endif /* __BPFGOV_COMMON_H */
