#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fetch-vm-kernel.sh [--source] [OUTDIR]
#
# Fetch Debian trixie-backports' cloud kernel (which has
# CONFIG_SCHED_CLASS_EXT=y) for the sched_ext VM tests, without touching the
# system's apt configuration: apt runs against a private sources file, list
# directory, cache and empty dpkg status under OUTDIR, and we only ever
# `apt-get download` + `dpkg -x` (nothing from that suite is installed).
#
# Result: OUTDIR/vmlinuz (a copy of the image), OUTDIR/KERNEL_VERSION, and the
# extracted package under OUTDIR/pkg/<ver>/.  Prints the kernel version.
# If OUTDIR/vmlinuz already holds the resolved version, nothing is downloaded.
#
# --source: instead, fetch the same suite's linux-source-<major.minor>
# (~160 MB, for building tools/sched_ext's reference schedulers in
# `make bench-vm` only), extract its tools/sched_ext into
# OUTDIR/src/linux-source-<major.minor>/ and print that directory.  Cached:
# the package and its tarball are deleted after extraction.
#
# Environment:
#   BPFGOV_KERNEL_MIRROR  archive URL (default http://deb.debian.org/debian)
#   BPFGOV_KERNEL_SUITE   suite (default trixie-backports)
#   BPFGOV_KERNEL_OFFLINE=1  skip apt update; reuse whatever is cached
set -euo pipefail

want_source=0
if [ "${1:-}" = --source ]; then
	want_source=1
	shift
fi
out=${1:-build/vm}
mirror=${BPFGOV_KERNEL_MIRROR:-http://deb.debian.org/debian}
suite=${BPFGOV_KERNEL_SUITE:-trixie-backports}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$out"
out=$(cd "$out" && pwd)
apt_dir=$out/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc"
: > "$apt_dir/status"
cat > "$apt_dir/etc/sources.list" <<EOF
deb [signed-by=$keyring] $mirror $suite main
EOF

# Every option that could make apt read or write the system's state is
# redirected here.  Sandbox::User=root because _apt cannot write OUTDIR.
apt_opts=(
	-o Dir::Etc::SourceList="$apt_dir/etc/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o Dir::Etc::Preferences=/dev/null
	-o Dir::Etc::PreferencesParts=/dev/null
	-o Dir::State::Lists="$apt_dir/lists"
	-o Dir::State::status="$apt_dir/status"
	-o Dir::Cache="$apt_dir/cache"
	-o Dir::Cache::pkgcache="$apt_dir/cache/pkgcache.bin"
	-o Dir::Cache::srcpkgcache="$apt_dir/cache/srcpkgcache.bin"
	-o APT::Architecture=amd64
	-o APT::Architectures=amd64
	-o APT::Sandbox::User=root
	-o Acquire::Languages=none
	-o Debug::NoLocking=1
)

if [ "${BPFGOV_KERNEL_OFFLINE:-0}" != 1 ] || ! ls "$apt_dir/lists/"*Packages >/dev/null 2>&1; then
	apt-get "${apt_opts[@]}" -qq update >&2
fi

# linux-image-cloud-amd64 depends on linux-image-<ver>-cloud-amd64 (signed or
# unsigned); the image itself lives in that package or in linux-binary-<ver>.
dep=$(apt-cache "${apt_opts[@]}" depends linux-image-cloud-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[^ ]*-cloud-amd64\)\(-unsigned\)\?$/\1/p' | head -n1)
if [ -z "$dep" ]; then
	echo "fetch-vm-kernel: cannot resolve linux-image-cloud-amd64 in $suite" >&2
	exit 1
fi
ver=${dep#linux-image-}

if [ $want_source = 1 ]; then
	mm=$(echo "$ver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	src=$out/src/linux-source-$mm
	if [ ! -f "$src/tools/sched_ext/scx_simple.bpf.c" ]; then
		dl=$out/deb
		mkdir -p "$dl" "$out/src"
		rm -f "$dl"/*.deb
		(cd "$dl" && apt-get "${apt_opts[@]}" -qq download "linux-source-$mm" >&2)
		rm -rf "$out/src/pkg"
		dpkg -x "$dl"/linux-source-"$mm"_*.deb "$out/src/pkg"
		tar -xJf "$out/src/pkg/usr/src/linux-source-$mm.tar.xz" -C "$out/src" \
			"linux-source-$mm/tools/sched_ext"
		rm -rf "$out/src/pkg" "$dl"/*.deb
	fi
	echo "$src"
	exit 0
fi

if [ -f "$out/vmlinuz" ] && [ "$(cat "$out/KERNEL_VERSION" 2>/dev/null)" = "$ver" ]; then
	echo "$ver"
	exit 0
fi

# Pick the first package name that exists and ships the image.
pkgdir=$out/pkg/$ver
rm -rf "$pkgdir"
mkdir -p "$pkgdir"
dl=$out/deb
mkdir -p "$dl"
found=
for p in "linux-binary-$ver" "linux-image-$ver-unsigned" "linux-image-$ver"; do
	if apt-cache "${apt_opts[@]}" show "$p" >/dev/null 2>&1; then
		rm -f "$dl"/*.deb
		(cd "$dl" && apt-get "${apt_opts[@]}" -qq download "$p" >&2)
		dpkg -x "$dl"/"$p"_*.deb "$pkgdir"
		img=$(find "$pkgdir" -name vmlinuz -o -name "vmlinuz-$ver" | head -n1)
		if [ -n "$img" ]; then
			found=$img
			break
		fi
	fi
done
if [ -z "$found" ]; then
	echo "fetch-vm-kernel: no vmlinuz found for $ver" >&2
	exit 1
fi
cp "$found" "$out/vmlinuz.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
echo "$ver" > "$out/KERNEL_VERSION"
rm -f "$dl"/*.deb
echo "$ver"
