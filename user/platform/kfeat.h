/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers the BPF programs, read from its BTF
 * (kfeat.c): the minimum kernel check of `start`, and the lines `probe`
 * and `status` print about what degrades.
 */
#ifndef __BPFGOV_KFEAT_H
#define __BPFGOV_KFEAT_H

#include <stdbool.h>
#include <sys/utsname.h>
#include "json_writer.h"

/* The oldest kernel the programs are verified on (the kernel matrix of
 * `make check-kernels`); the features they need arrived by 5.11. */
#define KFEAT_MIN_KERNEL	"6.1"

struct kfeat {
	bool read;		/* the BTF could be parsed */
	const char *missing;	/* first required feature missing, or NULL */
	const char *since;	/* the Linux version it arrived in */
	bool rdonly_cast;	/* bpf_rdonly_cast kfunc (6.2) */
	bool below_min;		/* uname release older than KFEAT_MIN_KERNEL */
	char release[sizeof(((struct utsname *)0)->release)];
};

/* Fill @f from the BTF at @btf_path (NULL: /sys/kernel/btf/vmlinux). */
void kfeat_read(const char *btf_path, struct kfeat *f);
/* `start --mode trace`: 0, or 1 after one line naming the missing feature. */
int kfeat_check_trace(const char *btf_path);
/* How the next timer's expiry is read on this kernel (one phrase). */
const char *kfeat_next_timer(const struct kfeat *f);
void kfeat_print(const struct kfeat *f);
void kfeat_json(json_writer_t *w, const struct kfeat *f);

#endif
