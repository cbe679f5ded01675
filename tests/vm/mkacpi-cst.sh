#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# mkacpi-cst.sh NCPUS OUT.cpio
#
# A cpuidle driver for the TCG guest.  QEMU's processor objects
# (\_SB.CPUS.C000 ...) carry no _CST, so the guest kernel registers no
# cpuidle driver and never polls.  This builds an SSDT that gives each of
# NCPUS processors one C-state, C1 entered by HLT (a FixedHW register the
# guest cannot use as MWAIT: QEMU runs with -cpu ...,monitor=off), and puts
# it where the kernel's ACPI table upgrade (CONFIG_ACPI_TABLE_UPGRADE, on
# in Debian's kernels) finds it: kernel/firmware/acpi/ of an uncompressed
# cpio placed first in the initramfs.  acpi_idle then registers POLL + C1,
# the shape of a KVM guest's haltpoll driver, with the kernel's own
# poll_idle() and its time limit, PM QoS and the ladder and menu governors.
# The kernel taints itself (TAINT_OVERRIDDEN_ACPI_TABLE, "A"): a test VM
# only.  Needs iasl (acpica-tools).
set -euo pipefail
n=${1:?NCPUS}
out=${2:?OUT.cpio}
command -v iasl >/dev/null || { echo "mkacpi-cst: iasl not found (install acpica-tools)" >&2; exit 1; }
stage=$(mktemp -d "${TMPDIR:-/tmp}/bpfgov-cst.XXXXXX")
trap 'rm -rf "$stage"' EXIT
{
	echo 'DefinitionBlock ("", "SSDT", 2, "BPFGOV", "CST", 1)'
	echo '{'
	for i in $(seq 0 $((n - 1))); do
		printf '    External (\\_SB.CPUS.C%03X, ProcessorObj)\n' "$i"
	done
	for i in $(seq 0 $((n - 1))); do
		printf '    Scope (\\_SB.CPUS.C%03X)\n    {\n' "$i"
		echo '        Name (_CST, Package () { 1,'
		echo '            Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 } })'
		echo '    }'
	done
	echo '}'
} >"$stage/cst.asl"
iasl -p "$stage/cst" "$stage/cst.asl" >"$stage/iasl.log" 2>&1 || { cat "$stage/iasl.log" >&2; exit 1; }
mkdir -p "$stage/root/kernel/firmware/acpi"
cp "$stage/cst.aml" "$stage/root/kernel/firmware/acpi/bpfgov-cst.aml"
mkdir -p "$(dirname "$out")"
(cd "$stage/root" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
