// SPDX-License-Identifier: GPL-2.0
/* The `tap` reader: see tap.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "log.h"
#include "tap.h"

struct tap {
	int ctl_fd;
	int tap_fd;
	struct ring_buffer *rb;
	__u32 kinds;
	bool owner;
};

static int ctl_read(int fd, struct bpfgov_control *c)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(fd, &zero, c) ? -errno : 0;
}

static int ctl_write(int fd, const struct bpfgov_control *c)
{
	__u32 zero = 0;

	return bpf_map_update_elem(fd, &zero, c, BPF_ANY) ? -errno : 0;
}

static bool pid_alive(pid_t pid)
{
	return pid > 0 && (!kill(pid, 0) || errno == EPERM);
}

int tap_open(const char *pin_root, __u32 kinds, ring_buffer_sample_fn fn,
	     void *ctx, struct tap **out)
{
	struct bpfgov_control ctl;
	struct tap *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ctl_fd = t->tap_fd = -1;
	t->kinds = kinds;

	t->ctl_fd = pins_open_map(pin_root, "control");
	t->tap_fd = pins_open_map(pin_root, "tap");
	if (t->ctl_fd < 0 || t->tap_fd < 0) {
		err = t->ctl_fd < 0 ? t->ctl_fd : t->tap_fd;
		pr_warn("bpfgov is not running (no pinned maps under %s: %s); start it with 'govloader start'\n",
			pin_root, strerror(-err));
		goto fail;
	}
	err = ctl_read(t->ctl_fd, &ctl);
	if (err)
		goto fail_io;
	if (!pid_alive((pid_t)ctl.loader_pid)) {
		pr_warn("pins under %s are stale (loader pid %u is gone); start bpfgov again\n",
			pin_root, ctl.loader_pid);
		err = -ESRCH;
		goto fail;
	}
	if (ctl.tap_owner_pid && ctl.tap_owner_pid != (__u32)getpid() &&
	    pid_alive((pid_t)ctl.tap_owner_pid)) {
		pr_warn("another reader (pid %u) is using the tap; one tail or record at a time\n",
			ctl.tap_owner_pid);
		err = -EBUSY;
		goto fail;
	}
	t->rb = ring_buffer__new(t->tap_fd, fn, ctx, NULL);
	if (!t->rb) {
		err = -errno;
		pr_warn("cannot open the tap ring buffer: %s\n", strerror(-err));
		goto fail;
	}
	/* Drop whatever an earlier reader left behind, then subscribe. */
	ctl.tap_owner_pid = (__u32)getpid();
	ctl.tap_kinds = kinds;
	err = ctl_write(t->ctl_fd, &ctl);
	if (err)
		goto fail_io;
	t->owner = true;
	*out = t;
	return 0;
fail_io:
	pr_warn("cannot access the control map under %s: %s\n", pin_root, strerror(-err));
fail:
	tap_close(t);
	return err;
}

int tap_poll(struct tap *t, int timeout_ms)
{
	int n = ring_buffer__poll(t->rb, timeout_ms);

	if (n == -EINTR)
		n = 0;
	/* Detail records are submitted without a wakeup (batched): on a
	 * timeout, read what is queued anyway. */
	if (n == 0)
		n = ring_buffer__consume(t->rb);
	return n;
}

int tap_drain(struct tap *t)
{
	return ring_buffer__consume(t->rb);
}

int tap_loader_alive(struct tap *t)
{
	struct bpfgov_control ctl;

	if (ctl_read(t->ctl_fd, &ctl))
		return 0;
	return pid_alive((pid_t)ctl.loader_pid);
}

void tap_close(struct tap *t)
{
	struct bpfgov_control ctl;

	if (!t)
		return;
	if (t->owner && !ctl_read(t->ctl_fd, &ctl) && ctl.tap_owner_pid == (__u32)getpid()) {
		/* Stop the BPF side writing detail nobody reads. */
		ctl.tap_kinds = 0;
		ctl.tap_owner_pid = 0;
		ctl_write(t->ctl_fd, &ctl);
	}
	ring_buffer__free(t->rb);
	if (t->tap_fd >= 0)
		close(t->tap_fd);
	if (t->ctl_fd >= 0)
		close(t->ctl_fd);
	free(t);
}
