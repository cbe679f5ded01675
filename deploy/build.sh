#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The build steps of deploy/Containerfile, as a script that also runs
# outside a container (CI runs it):
#
#   deploy/build.sh [--dry-run] STEP...
#
#   deps          Debian build dependencies (libbpf and bpftool from
#                 bookworm-backports)
#   build         make govloader (out of tree in $BUILD)
#   install       make install prefix=/usr DESTDIR=$DESTDIR
#   runtime-deps  the shared libraries govloader needs at run time
#
# --dry-run prints each command instead of running it. Variables: DESTDIR
# (/out), BUILD (build), JOBS (2). Run from the top of the source tree.
set -euo pipefail

BUILD_PKGS=(make gcc clang llvm pkg-config libelf-dev zlib1g-dev
	    libmicrohttpd-dev libsystemd-dev)
BUILD_BP_PKGS=(libbpf-dev bpftool)
RUNTIME_PKGS=(libelf1 zlib1g libmicrohttpd12 libsystemd0)
RUNTIME_BP_PKGS=(libbpf1)
BACKPORTS=/etc/apt/sources.list.d/bpfgov-bookworm-backports.sources

DESTDIR=${DESTDIR:-/out}
BUILD=${BUILD:-build}
JOBS=${JOBS:-2}
DRY=0

run() {
	if [ "$DRY" -eq 1 ]; then
		printf '+ %s\n' "$*"
	else
		"$@"
	fi
}

backports() {
	if [ "$DRY" -eq 1 ]; then
		printf '+ write %s (bookworm-backports, main)\n' "$BACKPORTS"
		return
	fi
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return
	cat >"$BACKPORTS" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
}

# apt_install PKGS... -- BACKPORT-PKGS...
apt_install() {
	local main=() bp=() seen=0 p
	for p in "$@"; do
		if [ "$p" = -- ]; then seen=1; elif [ $seen -eq 0 ]; then main+=("$p"); else bp+=("$p"); fi
	done
	backports
	run env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${main[@]}"
	run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		-t bookworm-backports "${bp[@]}"
	run rm -rf /var/lib/apt/lists/*
}

step() {
	case "$1" in
	deps)
		apt_install "${BUILD_PKGS[@]}" -- "${BUILD_BP_PKGS[@]}" ;;
	build)
		run make -j"$JOBS" BUILD="$BUILD" govloader ;;
	install)
		run make BUILD="$BUILD" install prefix=/usr DESTDIR="$DESTDIR" ;;
	runtime-deps)
		apt_install "${RUNTIME_PKGS[@]}" -- "${RUNTIME_BP_PKGS[@]}" ;;
	*)
		echo "build.sh: unknown step '$1' (deps, build, install, runtime-deps)" >&2
		exit 2 ;;
	esac
}

if [ "${1:-}" = --dry-run ]; then
	DRY=1
	shift
fi
if [ $# -eq 0 ]; then
	echo "usage: deploy/build.sh [--dry-run] STEP... (deps, build, install, runtime-deps)" >&2
	exit 2
fi
for s in "$@"; do
	case "$s" in deps|build|install|runtime-deps) ;; *) step "$s" ;; esac
done
for s in "$@"; do
	step "$s"
done
