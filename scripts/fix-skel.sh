#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fix-skel.sh < generated.skel.h > fixed.skel.h
#
# bpftool 7.5 emits `map->link = &obj->links.<map>;` for struct_ops maps, a
# member of struct bpf_map_skeleton that libbpf 1.4.6 (bookworm-backports)
# does not have, so the skeleton does not compile against it.  The line only
# asks bpf_object__attach_skeleton() (libbpf >= 1.5) to attach the struct_ops
# map automatically; bpfgov never relies on that: user/daemon/scx.c attaches it with
# bpf_map__attach_struct_ops() and owns the link.  Dropping the line is
# therefore correct with every libbpf version, and the skeleton's
# links.<map> member simply stays NULL.
#
# Fails if the input is empty, so a broken bpftool run is not hidden.
set -e
out=$(sed -E '/^[[:space:]]*map->link = &obj->links\.[A-Za-z_][A-Za-z0-9_]*;[[:space:]]*$/d')
[ -n "$out" ] || { echo "fix-skel: empty skeleton" >&2; exit 1; }
printf '%s\n' "$out"
