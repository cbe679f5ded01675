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
#   build         make govloader govlab (out of tree in $BUILD)
#   install       make install prefix=/usr DESTDIR=$DESTDIR
#   runtime-deps  the shared libraries govloader needs at run time
#   image         build the image (deploy/Containerfile) with $ENGINE, tag
#                 it $IMAGE, push it and record NAME@sha256:DIGEST, the
#                 digest the registry gave it, in $BUILD/image.ref
#   manifest      print deploy/bpfgov-daemonset.yaml with its image pinned
#                 to $IMAGE_REF, else to what the image step recorded
#
#   IMAGE=registry.example.com/bpfgov deploy/build.sh image manifest >bpfgov-node.yaml
#
# --dry-run prints each command instead of running it. Variables: DESTDIR
# (/out), BUILD (build), JOBS (2), IMAGE (REGISTRY/NAME[:TAG], for image),
# ENGINE (podman, else docker), IMAGE_REF (NAME@sha256:DIGEST, for
# manifest). Run from the top of the source tree.
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
IMAGE=${IMAGE:-}
IMAGE_REF=${IMAGE_REF:-}
ENGINE=${ENGINE:-}
MANIFEST=deploy/bpfgov-daemonset.yaml
# A pin: a name and the sha256 digest of its manifest, never a tag alone.
REF_RE='^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$'
STEPS="deps, build, install, runtime-deps, image, manifest"
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

# IMAGE without its tag (a colon after the last slash).
image_name() {
	local name=${IMAGE:-NAME}

	[[ ${name##*/} == *:* ]] && name=${name%:*}
	echo "$name"
}

# image: build, push, record NAME@DIGEST. Build and push output goes to
# stderr, so that `image manifest` prints the manifest alone.
image() {
	local name digest=
	local eng=${ENGINE:-$(command -v podman >/dev/null && echo podman || echo docker)}

	name=$(image_name)
	[ "$DRY" -eq 1 ] || mkdir -p "$BUILD"
	run "$eng" build -f deploy/Containerfile -t "$IMAGE" . >&2
	if [ "$eng" = podman ]; then
		run podman push --digestfile "$BUILD/image.digest" "$IMAGE" >&2
		[ "$DRY" -eq 1 ] || digest=$(cat "$BUILD/image.digest")
	else
		run "$eng" push "$IMAGE" >&2
		[ "$DRY" -eq 1 ] || digest=$("$eng" inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$IMAGE" |
			sed -n "s|^$name@||p" | head -n1)
	fi
	if [ "$DRY" -eq 1 ]; then
		printf '+ write %s (%s@<the pushed digest>)\n' "$BUILD/image.ref" "$name" >&2
		return
	fi
	if ! [[ $name@$digest =~ $REF_RE ]]; then
		echo "build.sh image: no sha256 digest for $name after the push (got '$digest')" >&2
		exit 1
	fi
	echo "$name@$digest" >"$BUILD/image.ref"
	echo "build.sh image: $name@$digest" >&2
}

# manifest: the DaemonSet's manifest with image: NAME@sha256:DIGEST.
manifest() {
	local ref=$IMAGE_REF

	[ -z "$ref" ] && [ -f "$BUILD/image.ref" ] && ref=$(cat "$BUILD/image.ref")
	if [ -z "$ref" ] && [ "$DRY" -eq 1 ]; then
		printf '+ print %s with image: %s@<the pushed digest>\n' "$MANIFEST" "$(image_name)"
		return
	fi
	if [ -z "$ref" ]; then
		echo "build.sh manifest: no image to pin: run the image step first or set IMAGE_REF=NAME@sha256:DIGEST" >&2
		exit 2
	fi
	if ! [[ $ref =~ $REF_RE ]]; then
		echo "build.sh manifest: '$ref' is not NAME@sha256:DIGEST (64 hex digits): a tag is not a pin" >&2
		exit 2
	fi
	sed -E "s|^( +image: ).*|\1$ref|" "$MANIFEST"
}

step() {
	case "$1" in
	deps)
		apt_install "${BUILD_PKGS[@]}" -- "${BUILD_BP_PKGS[@]}" ;;
	build)
		run make -j"$JOBS" BUILD="$BUILD" govloader govlab ;;
	install)
		run make BUILD="$BUILD" install prefix=/usr DESTDIR="$DESTDIR" ;;
	runtime-deps)
		apt_install "${RUNTIME_PKGS[@]}" -- "${RUNTIME_BP_PKGS[@]}" ;;
	image)
		image ;;
	manifest)
		manifest ;;
	*)
		echo "build.sh: unknown step '$1' ($STEPS)" >&2
		exit 2 ;;
	esac
}

if [ "${1:-}" = --dry-run ]; then
	DRY=1
	shift
fi
if [ $# -eq 0 ]; then
	echo "usage: deploy/build.sh [--dry-run] STEP... ($STEPS)" >&2
	exit 2
fi
for s in "$@"; do
	case "$s" in deps|build|install|runtime-deps|manifest) ;; image)
		if [ -z "$IMAGE" ]; then
			echo "build.sh image: set IMAGE=REGISTRY/NAME[:TAG], where the nodes pull from" >&2
			exit 2
		fi ;;
	*) step "$s" ;; esac
done
for s in "$@"; do
	step "$s"
done
