// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel features for the tracepoint programs, from the kernel's BTF:
 * a tracepoint a tp_btf program attaches to has a btf_trace_<name>
 * typedef, and the helpers and map types the kernel knows are the
 * enumerators of its enum bpf_func_id and enum bpf_map_type. Checked
 * before anything is changed, so that an old kernel gets one line naming
 * what it lacks instead of the verifier's EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "kfeat.h"
#include "log.h"

struct kreq {
	const char *what;	/* named in the error */
	const char *since;	/* Linux version */
	const char *enum_name;	/* NULL: a typedef named @name */
	const char *name;
};

static const struct kreq kreqs[] = {
	{ "tp_btf/cpu_idle", "5.5", NULL, "btf_trace_cpu_idle" },
	{ "tp_btf/sched_waking", "5.5", NULL, "btf_trace_sched_waking" },
	{ "tp_btf/local_timer_entry", "5.5", NULL, "btf_trace_local_timer_entry" },
	{ "tp_btf/hrtimer_expire_entry", "5.5", NULL, "btf_trace_hrtimer_expire_entry" },
	{ "the BPF ring buffer", "5.8", "bpf_map_type", "BPF_MAP_TYPE_RINGBUF" },
	{ "the bpf_get_current_task_btf helper", "5.11", "bpf_func_id",
	  "BPF_FUNC_get_current_task_btf" },
};

static bool btf_has_enumerator(const struct btf *btf, const char *enum_name, const char *name)
{
	__s32 id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	__u16 i;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
			return true;
	return false;
}

/* "6.1.0-50-cloud-amd64" older than "6.1"? */
static bool release_below(const char *rel, const char *min)
{
	int a = 0, b = 0, ma = 0, mb = 0;

	if (sscanf(rel, "%d.%d", &a, &b) != 2 || sscanf(min, "%d.%d", &ma, &mb) != 2)
		return false;
	return a < ma || (a == ma && b < mb);
}

void kfeat_read(const char *btf_path, struct kfeat *f)
{
	struct utsname u;
	struct btf *btf;
	size_t i;
	bool have;

	memset(f, 0, sizeof(*f));
	if (!uname(&u)) {
		snprintf(f->release, sizeof(f->release), "%s", u.release);
		f->below_min = release_below(u.release, KFEAT_MIN_KERNEL);
	}
	btf = btf__parse(btf_path ? btf_path : "/sys/kernel/btf/vmlinux", NULL);
	if (!btf) {
		f->missing = "kernel BTF (CONFIG_DEBUG_INFO_BTF=y)";
		f->since = "5.4";
		return;
	}
	f->read = true;
	for (i = 0; i < sizeof(kreqs) / sizeof(kreqs[0]) && !f->missing; i++) {
		const struct kreq *q = &kreqs[i];

		have = q->enum_name ? btf_has_enumerator(btf, q->enum_name, q->name)
			: btf__find_by_name_kind(btf, q->name, BTF_KIND_TYPEDEF) >= 0;
		if (!have) {
			f->missing = q->what;
			f->since = q->since;
		}
	}
	f->rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) >= 0;
	btf__free(btf);
}

int kfeat_check_trace(const char *btf_path)
{
	struct kfeat f;

	kfeat_read(btf_path, &f);
	if (f.missing) {
		pr_warn("this kernel (%s) lacks %s (Linux %s); bpfgov needs Linux %s or later\n",
			*f.release ? f.release : "unknown", f.missing, f.since, KFEAT_MIN_KERNEL);
		return 1;
	}
	if (f.below_min)
		pr_warn("kernel %s is older than %s, the oldest bpfgov is tested on: loading anyway\n",
			f.release, KFEAT_MIN_KERNEL);
	return 0;
}

const char *kfeat_next_timer(const struct kfeat *f)
{
	if (!f->read)
		return "unavailable on this kernel (no BTF)";
	return f->rdonly_cast ? "direct load (bpf_rdonly_cast)"
		: "bpf_probe_read_kernel (no bpf_rdonly_cast kfunc before 6.2): a helper call per idle entry";
}

void kfeat_print(const struct kfeat *f)
{
	printf("kernel         %s: %s (minimum %s)\n", *f->release ? f->release : "unknown",
	       f->missing ? "too old for trace mode" : f->below_min ? "older than the oldest tested"
	       : "supported", KFEAT_MIN_KERNEL);
	if (f->missing)
		printf("missing        %s (Linux %s)\n", f->missing, f->since);
	printf("next timer     %s\n", kfeat_next_timer(f));
}

void kfeat_json(json_writer_t *w, const struct kfeat *f)
{
	jsonw_name(w, "kernel");
	jsonw_start_object(w);
	jsonw_string_field(w, "release", *f->release ? f->release : NULL);
	jsonw_string_field(w, "minimum", KFEAT_MIN_KERNEL);
	jsonw_bool_field(w, "supported", !f->missing);
	jsonw_bool_field(w, "below_minimum", f->below_min);
	jsonw_string_field(w, "missing", f->missing);
	jsonw_string_field(w, "missing_since", f->missing ? f->since : NULL);
	jsonw_bool_field(w, "rdonly_cast", f->rdonly_cast);
	jsonw_string_field(w, "next_timer_read", f->read ? (f->rdonly_cast ? "direct" : "probe_read") : NULL);
	jsonw_end_object(w);
}
