// SPDX-License-Identifier: GPL-2.0
/* govloader dump: the pinned maps with their BTF field names. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "common.h"
#include "gov.h"
#include "log.h"
#include "govloader_cmds.h"

static const char dump_usage[] =
"Usage: govloader dump [--pin-root DIR]\n"
"Print the pinned maps (tunables, control, cpu_state) with their BTF field\n"
"names, like 'bpftool map dump pinned DIR/cpu_state'.\n";

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	(void)ctx;
	vprintf(fmt, args);
}

/* The type to print a value as: a BPF global's map (tunables, control)
 * has its section as value type, one variable at offset 0: print that
 * variable's type, as for the other maps. */
static __u32 value_type(const struct btf *btf, __u32 id, __u32 size)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_var_secinfo *vs;

	if (!t || !btf_is_datasec(t) || btf_vlen(t) != 1)
		return id;
	vs = btf_var_secinfos(t);
	t = btf__type_by_id(btf, vs->type);
	if (vs->offset || !t || !btf_is_var(t) || btf__resolve_size(btf, t->type) > size)
		return id;
	return t->type;
}

static int dump_map(const char *pin_root, const char *name)
{
	LIBBPF_OPTS(btf_dump_type_data_opts, dopts, .compact = false, .emit_zeroes = true);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key;
	struct btf_dump *d = NULL;
	struct btf *btf = NULL;
	void *val = NULL;
	int fd, err = 0;

	fd = pins_open_map(pin_root, name);
	if (fd < 0)
		return fd;
	if (bpf_map_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf) {
		err = -errno;
		goto out;
	}
	d = btf_dump__new(btf, dump_printf, NULL, NULL);
	val = calloc(1, info.value_size);
	if (!d || !val) {
		err = -ENOMEM;
		goto out;
	}
	printf("== %s (%u entries)\n", name, info.max_entries);
	for (key = 0; key < info.max_entries; key++) {
		if (bpf_map_lookup_elem(fd, &key, val)) {
			err = -errno;
			goto out;
		}
		printf("[%u] = ", key);
		err = btf_dump__dump_type_data(d, value_type(btf, info.btf_value_type_id, info.value_size),
						val, info.value_size, &dopts);
		printf("\n");
		if (err < 0)
			goto out;
		err = 0;
	}
out:
	free(val);
	btf_dump__free(d);
	btf__free(btf);
	close(fd);
	return err;
}

int do_dump(int argc, char **argv)
{
	static const char *const maps[] = { "tunables", "control", "cpu_state", NULL };
	struct cli_opts o = {};
	pid_t owner;
	int i, err = cli_parse("dump", dump_usage, argc, argv, "pin-root", &o);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (!pins_present(o.pin_root)) {
		pr_warn("nothing pinned under %s: bpfgov is not running\n", o.pin_root);
		return EXIT_NOT_RUNNING;
	}
	owner = gov_lock_owner();
	if (!owner)
		pr_warn("note: no live owner; these pins are stale\n");
	for (i = 0; maps[i]; i++) {
		err = dump_map(o.pin_root, maps[i]);
		if (err) {
			pr_warn("cannot dump %s/%s: %s\n", o.pin_root, maps[i], strerror(-err));
			return 1;
		}
	}
	return 0;
}
