#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install bpfgov's build and test dependencies when they are missing.
# Everything comes from Debian bookworm and bookworm-backports; never from
# trixie or sid (they would replace libc).
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# Packages from bookworm proper.
# clang-19 builds the sched_ext scheduler (the scx headers need a clang that
# emits BTF for every extern kfunc); linux-perf, rt-tests and rt-app are the
# field's benchmarks (`perf bench sched pipe`, hackbench, cyclictest, rt-app's
# periodic tasks) in `make bench`; acpica-tools' iasl builds the guest's
# _CST table (tests/vm/mkacpi-cst.sh: a cpuidle driver in the test VM);
# systemd's systemd-analyze rates the unit's sandbox (test_unit.sh).
base_pkgs=(clang llvm make gcc pkg-config libelf-dev zlib1g-dev libcmocka-dev
	   libclang-rt-14-dev busybox-static qemu-system-x86 cpio zstd jq valgrind
	   libmicrohttpd-dev libsystemd-dev prometheus curl python3 python3-prometheus-client
	   python3-yaml gnuplot-nox mandoc groff-base dbus-daemon power-profiles-daemon
	   clang-19 linux-perf rt-tests rt-app acpica-tools systemd)
# Daemons installed only for the tests (which start private instances):
# their system services stay off.
test_daemons=(prometheus power-profiles-daemon)
# Packages that must come from bookworm-backports (libbpf >= 1.4, bpftool 7.5).
bp_pkgs=(libbpf-dev bpftool)

for p in "${base_pkgs[@]}"; do have_pkg "$p" || need+=("$p"); done

bp_need=()
libbpf_ok() {
	local v
	v=$(dpkg-query -W -f='${Version}' libbpf-dev 2>/dev/null) || return 1
	dpkg --compare-versions "$v" ge "1:1.4" 
}
libbpf_ok || bp_need+=(libbpf-dev)
{ have_pkg bpftool && command -v bpftool >/dev/null && bpftool version >/dev/null 2>&1; } || bp_need+=(bpftool)

if [ ${#need[@]} -eq 0 ] && [ ${#bp_need[@]} -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages (${need[*]} ${bp_need[*]}); run as root to install them" >&2
	exit 1
fi

if [ ${#bp_need[@]} -gt 0 ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deps: adding the bookworm-backports suite" >&2
	cat > /etc/apt/sources.list.d/bpfgov-bookworm-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

echo "deps: installing ${need[*]} ${bp_need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg run (unattended upgrades, a parallel make) instead
# of failing on its lock.
apt_lock=(-o DPkg::Lock::Timeout=600)
apt-get "${apt_lock[@]}" update -qq
if [ ${#need[@]} -gt 0 ]; then
	apt-get "${apt_lock[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ ${#bp_need[@]} -gt 0 ]; then
	apt-get "${apt_lock[@]}" install -y -qq --no-install-recommends -t bookworm-backports "${bp_need[@]}" >/dev/null
fi
if [ -d /run/systemd/system ]; then
	for p in "${test_daemons[@]}"; do
		case " ${need[*]} " in
		*" $p "*) systemctl disable --now "$p.service" >/dev/null 2>&1 || true ;;
		esac
	done
fi
