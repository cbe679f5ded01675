#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# gen-vmlinux.sh [OUTDIR]
#
# Regenerate vmlinux/x86/vmlinux.h from the BTF of the sched_ext-capable VM
# kernel (Debian trixie-backports cloud kernel), so that one header carries
# both the host's tracepoint types and struct sched_ext_ops.  CO-RE relocates
# field accesses at load time, so objects built against it still load on the
# host's older kernel.  The result is committed; run this only to refresh it.
#
# Compiling against this header needs -fms-extensions -Wno-microsoft-anon-tag
# (several structs embed anonymous structs).
set -euo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/vm}
dest=$top/vmlinux/x86

ver=$("$top/scripts/fetch-vm-kernel.sh" "$out" | tail -n1)
img=$out/vmlinuz

# bzImage: the zstd payload starts at the first zstd frame magic 28 b5 2f fd.
# zstd stops at the end of the frame and ignores the trailer with a warning.
off=$(grep -aobUP -m1 '\x28\xb5\x2f\xfd' "$img" | sed -n '1s/:.*//p' || true)
if [ -z "$off" ]; then
	echo "gen-vmlinux: no zstd payload in $img" >&2
	exit 1
fi
elf=$out/vmlinux
tail -c +"$((off + 1))" "$img" | zstd -dq -c > "$elf.tmp" 2>/dev/null || true
if [ "$(head -c4 "$elf.tmp" | od -An -tx1 | tr -d ' ')" != 7f454c46 ]; then
	echo "gen-vmlinux: decompressed payload is not an ELF" >&2
	exit 1
fi
mv "$elf.tmp" "$elf"

mkdir -p "$dest"
bpftool btf dump file "$elf" format c > "$dest/vmlinux.h.tmp"
grep -q 'struct sched_ext_ops {' "$dest/vmlinux.h.tmp" || {
	echo "gen-vmlinux: BTF lacks struct sched_ext_ops" >&2
	exit 1
}
mv "$dest/vmlinux.h.tmp" "$dest/vmlinux.h"
{
	echo "kernel: $ver (Debian trixie-backports linux-image-cloud-amd64)"
	echo "generated: $(date -u +%Y-%m-%d)"
	echo "tool: $(bpftool version | head -n1)"
	echo "sha256: $(sha256sum "$dest/vmlinux.h" | cut -d' ' -f1)"
} > "$dest/VERSION"
echo "gen-vmlinux: wrote $dest/vmlinux.h for $ver"
