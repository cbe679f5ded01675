#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh OUT.cpio
#
# Build the sched_ext test VM's initramfs: an uncompressed newc cpio holding
# busybox-static, govloader with the shared libraries `ldd` lists (static
# linking against bookworm's libbpf/libelf does not work), the BPF objects,
# the workloads and the guest test script.  The guest's /init mounts the
# pseudo filesystems, runs /tests/guest-tests.sh and powers off.
#
# The archive is rebuilt only when an input changed: a manifest of the
# inputs' paths and checksums is stored next to it and compared.
#
# Environment: BUILD (default build), GOVLOADER (default ./govloader),
# EXTRA_BINS (more host binaries to put in /bin, space separated),
# EXTRA_FILES (more files, "HOST-PATH:GUEST-PATH", space separated; a
# dynamic binary among them brings its libraries too).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=${1:-build/vm/initrd.cpio}
BUILD=${BUILD:-build}
GOVLOADER=${GOVLOADER:-./govloader}
busybox=/bin/busybox

if ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked' &&
   ! ldd "$busybox" 2>&1 | grep -q 'not a dynamic'; then
	echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2
	exit 1
fi

# Inputs: guest-side files ("host path:guest path").
inputs=("$busybox:/bin/busybox"
	"tests/vm/guest-tests.sh:/tests/guest-tests.sh"
	"tests/vm/guest-bench.sh:/tests/guest-bench.sh"
	"tests/vm/init.sh:/init")
[ -x "$GOVLOADER" ] && inputs+=("$GOVLOADER:/bin/govloader")
# the test build (start --test-scx-error-after), for the error tests
[ -x "$BUILD/govloader-test" ] && inputs+=("$BUILD/govloader-test:/bin/govloader-test")
for o in "$BUILD"/bpf/*.bpf.o; do
	[ -f "$o" ] && inputs+=("$o:/bpf/$(basename "$o")")
done
for b in "$BUILD/bpfgov-work" "$BUILD/vm/scxbench" "$BUILD/vm/scx-smoke" "$BUILD/vm/bpfgov-veristat" ${EXTRA_BINS:-}; do
	[ -x "$b" ] && inputs+=("$b:/bin/$(basename "$b")")
done
for spec in ${EXTRA_FILES:-}; do
	inputs+=("$spec")
done
# Dynamic binaries bring their libraries and the ELF interpreter.
libs=()
for spec in "${inputs[@]}"; do
	h=${spec%%:*}
	case "$h" in *.o|*.sh) continue ;; esac
	while read -r l; do
		[ -n "$l" ] && libs+=("$l")
	done < <(ldd "$h" 2>/dev/null | grep -o '/[^ ]*' | sort -u)
done
for l in $(printf '%s\n' "${libs[@]}" | sort -u); do
	inputs+=("$(readlink -f "$l"):$l")
done

manifest=$(for spec in "${inputs[@]}"; do
	h=${spec%%:*}
	echo "${spec#*:} $(sha256sum < "$h" | cut -d' ' -f1)"
done; sha256sum < "$0" | cut -d' ' -f1)
if [ -f "$out" ] && [ -f "$out.manifest" ] && [ "$(cat "$out.manifest")" = "$manifest" ]; then
	exit 0
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/bpfgov-initrd.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,bpf,tests,etc,lib64,usr/lib}
for spec in "${inputs[@]}"; do
	h=${spec%%:*}
	g=${spec#*:}
	mkdir -p "$stage/$(dirname "$g")"
	cp -L "$h" "$stage/$g"
done
chmod 755 "$stage/init" "$stage/tests/guest-tests.sh"
# The kernel needs a console node before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "$manifest" > "$out.manifest"
echo "mkinitramfs: wrote $out ($(du -k "$out" | cut -f1) KiB, ${#inputs[@]} files)" >&2
