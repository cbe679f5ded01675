#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kernels.sh [--write DOC] [KERNEL...]
#
# `make check-kernels`: boot each kernel of the matrix under QEMU/TCG with
# the test initramfs and run the guest tests that apply to it (trace mode
# everywhere; the sched_ext groups where the kernel has sched_ext, skipped
# with a reason elsewhere), then print one table: boot, tests, trace
# mode's load-to-attached time, and the verifier's processed instructions
# and verification time per program (tests/vm/veristat.c). "host" runs
# only the verifier figures in the running kernel (its trace mode is
# tested by the integration suite).
#
# KERNEL: 6.1 6.12 7.3 host (default: all). --write DOC replaces the table
# between the "kernel-matrix" markers of DOC. Each kernel is fetched into
# $BUILD/vm-<name> (7.3: $BUILD/vm) by scripts/fetch-vm-kernel.sh, which
# never touches the system's apt configuration. Exit 1 if any test failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/bench/provenance.sh
BUILD=${BUILD:-build}
initrd=${VM_INITRD:-$BUILD/vm/initrd.cpio}
timeout_s=${VM_TIMEOUT:-600}
write=
if [ "${1:-}" = --write ]; then write=$2; shift 2; fi

# name|suite|dir|kernel options|guest groups|why the options
matrix=(
"6.1|bookworm|$BUILD/vm-6.1||trace scx|"
"6.12|bookworm-backports|$BUILD/vm-6.12|mitigations=off|trace scx|6.12.95 double-faults at random places under QEMU 7.2's TCG, rarely with mitigations=off"
"7.3|trixie-backports|$BUILD/vm||trace scx error stress kill9 partial fair|"
)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(6.1 6.12 7.3 host)
wanted() { local w; for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }

rows=() progs=() fail=0
vrow() { # kernel log
	grep '^# veristat .* insns ' "$2" | while read -r _ _ obj prog _ insns _ us _ st; do
		echo "| $1 | ${obj%.bpf.o} | $prog | $insns | $(awk -v u="$us" 'BEGIN{printf "%.1f", u / 1000}') | $st |"
	done
}
for spec in "${matrix[@]}"; do
	IFS='|' read -r name suite dir append groups why <<<"$spec"
	wanted "$name" || continue
	echo "== kernel $name ($suite)"
	ver=$(BPFGOV_KERNEL_SUITE=$suite bash scripts/fetch-vm-kernel.sh "$dir" | tail -n1) || {
		rows+=("| $name | ($suite) | fetch failed | | | |"); fail=1; continue; }
	log=$dir/check-kernels.log
	# A double fault with a corrupt frame at a random place is the
	# emulator (6.12 under QEMU 7.2's TCG, see docs/KERNELS.md), not
	# bpfgov: boot again, up to 3 boots, and say how many it took.
	for boots in 1 2 3; do
		VM_APPEND=$append bash tests/vm/run.sh --timeout "$timeout_s" --kernel "$dir/vmlinuz" \
			--initrd "$initrd" --log "$log" -- $groups | tail -n 3
		rc=${PIPESTATUS[0]}
		grep -q 'Oops: double fault' "$log" || break
		echo "kernels.sh: kernel $name double-faulted (emulator), boot $boots"
	done
	[ "$rc" = 0 ] || fail=1
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	boot=yes
	grep -q '# kernel .*groups:' "$log" || boot="no (see $log)"
	att=$(sed -n 's/^# trace: attached after \([0-9.]*\) s/\1 s/p' "$log" | head -n1)
	scx="not run"
	if grep -q 'SKIP scx' "$log"; then
		scx="skipped: no sched_ext"
	elif grep -q '^ok .* start --mode scx' "$log"; then
		scx="yes: ${groups#trace }"
	fi
	[ "$boots" -gt 1 ] && boot="$boot, $boots boots"
	rows+=("| $name | $ver | $boot${append:+ (\`$append\`)} | ${sum:-none} | ${att:-–} | $scx |")
	[ -n "$why" ] && rows+=("|  | | $why | | | |")
	while read -r l; do progs+=("$l"); done < <(vrow "$name" "$log")
done
if wanted host; then
	echo "== host kernel $(uname -r): verifier figures"
	"$BUILD/vm/bpfgov-veristat" "$BUILD/bpf/bpfgov_trace.bpf.o" | sed 's/^/# /' > "$BUILD/vm/veristat-host.log"
	cat "$BUILD/vm/veristat-host.log"
	while read -r l; do progs+=("$l"); done < <(vrow "host $(uname -r | cut -d- -f1)" "$BUILD/vm/veristat-host.log")
fi

table=$(
	prov_line "$(prov_command kernel-matrix)"
	echo
	echo "| kernel | release | boots | guest tests | trace load to attached | sched_ext |"
	echo "|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "| kernel | object | program | processed insns | verification ms | states |"
	echo "|---|---|---|---|---|---|"
	printf '%s\n' "${progs[@]}"
)
echo "$table"
if [ -n "$write" ]; then
	awk -v t="$table" '/<!-- kernel-matrix -->/ { print; print t; skip = 1; next }
		/<!-- \/kernel-matrix -->/ { skip = 0 } !skip' "$write" > "$write.tmp" && mv "$write.tmp" "$write"
	echo "kernels.sh: table written to $write"
fi
exit $fail
