#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [--timeout SECS] [--kernel VMLINUZ] [--initrd CPIO] [--log FILE] [-- GUEST-ARGS]
#
# Boot the sched_ext kernel under QEMU (TCG, which needs no KVM) with
# the test initramfs, stream the guest's serial console, and exit non-zero
# unless the guest test script reported "N passed, 0 failed" with N > 0.
# GUEST-ARGS reach tests/vm/guest-tests.sh (e.g. a list of test names, or
# "bench" for the scheduler comparison).
#
# The last line printed is always a plain "N passed, N failed" summary; a
# boot failure or timeout counts as one more failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
timeout_s=${VM_TIMEOUT:-600}
kernel=
initrd=$BUILD/vm/initrd.cpio
log=$BUILD/vm/check-vm.log
mem=${VM_MEM:-1024}
# VM_SMP: vCPUs (default 2).  From 8 on (an even count), two sockets, each
# its own last-level cache, and two NUMA nodes of half the memory each.
smp=${VM_SMP:-2}
topo=(-smp "$smp" -m "$mem")
if [ "$smp" -ge 8 ] && [ $((smp % 2)) = 0 ]; then
	half=$((smp / 2))
	mem=$(( (mem + 1) / 2 * 2 ))
	topo=(-smp "$smp,sockets=2,cores=$half,threads=1" -m "$mem"
	      -object "memory-backend-ram,id=m0,size=$((mem / 2))M"
	      -object "memory-backend-ram,id=m1,size=$((mem / 2))M"
	      -numa "node,nodeid=0,cpus=0-$((half - 1)),memdev=m0"
	      -numa "node,nodeid=1,cpus=$half-$((smp - 1)),memdev=m1")
fi
guest_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout_s=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--) shift; guest_args=("$@"); break ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ -z "$kernel" ]; then
	ver=$("$top/scripts/fetch-vm-kernel.sh" "$BUILD/vm" | tail -n1) || {
		echo "run.sh: cannot fetch the VM kernel"; echo "0 passed, 1 failed"; exit 1; }
	kernel=$BUILD/vm/vmlinuz
	echo "run.sh: kernel $ver"
fi
[ -f "$initrd" ] || { echo "run.sh: no initramfs $initrd"; echo "0 passed, 1 failed"; exit 1; }

# VM_IDLE=1: the guest gets a cpuidle driver (tests/vm/mkacpi-cst.sh: an
# SSDT in front of the initramfs gives acpi_idle POLL + C1 by HLT); the CPU
# model then has no MONITOR/MWAIT, so C1 is HLT.
cpu=${VM_CPU:-max}
if [ -n "${VM_IDLE:-}" ]; then
	cst=$BUILD/vm/acpi-cst-smp$smp.cpio
	bash "$top/tests/vm/mkacpi-cst.sh" "$smp" "$cst" || {
		echo "run.sh: cannot build the _CST table"; echo "0 passed, 1 failed"; exit 1; }
	cat "$cst" "$initrd" > "$initrd.idle"
	initrd=$initrd.idle
	cpu=${VM_CPU:-max,monitor=off}
fi

# VM_APPEND adds kernel options, VM_CPU picks the CPU model (max),
# VM_QEMU_OPTS adds QEMU options (one kernel may need a recipe of its own:
# tests/vm/kernels.sh).
append="console=ttyS0 quiet loglevel=4 panic=-1 rdinit=/init${VM_APPEND:+ $VM_APPEND}"
[ ${#guest_args[@]} -gt 0 ] && append="$append -- ${guest_args[*]}"

mkdir -p "$(dirname "$log")"
# Single-threaded TCG.  With multi-threaded TCG the guest oopses now and
# then on an int3 in code the kernel is live-patching (static keys flip on
# every sched_ext enable/disable, and at boot): cross-vCPU code patching is
# not coherent there.  One host thread for all vCPUs avoids that race.
accel=${VM_ACCEL:-tcg,thread=single}
# VM_ICOUNT=1: instruction counting (TCG only). The guest's clock then
# advances one nanosecond per instruction executed and jumps over time
# when every vCPU idles, so what the guest measures is path length,
# repeatable from boot to boot and unmoved by the host's load (cache
# misses and slow instructions are not counted).
icount=()
[ -n "${VM_ICOUNT:-}" ] && icount=(-icount shift=0,sleep=off)
# The TCG guest kernel now and then oopses on an int3 at a call site
# whose text is being patched (text_poke_bp: a tracepoint's static call
# or key flipped as any BPF program attaches or detaches, or at boot):
# the other vCPU runs a stale translation of the patched bytes after the
# kernel has removed its int3 handler entry.  Seen at 2.2 and 2.9 s of
# boot on 7.3, before any bpfgov ran, and at 658 s of the live bench in
# cpuidle_enter_state.  Real CPUs serialize such cross-modifying code
# (the kernel's protocol is built for them), so that is QEMU/TCG, not a
# bpfgov fault: boot again when the guest tests never started (their
# groups line, and for the live bench its first line, LB, before which
# no bpfgov runs), or when the boot ended in that oops (the live bench
# then starts over: its ratios stay within one boot).  The crashed
# boot's log is kept beside the log (.bootN).  Any other crash fails.
started() {
	grep -q '# kernel .*groups:' "$log" || return 1
	grep -q '# kernel .*groups:.* livebench' "$log" || return 0
	grep -q '^LB ' "$log"
}
tcg_int3() { grep -q 'Oops: int3' "$log"; }
for attempt in $(seq 1 "${VM_BOOTS:-3}"); do
	echo "run.sh: qemu $accel${icount:+ ${icount[*]}}, -smp ${topo[1]}, ${mem} MiB, timeout ${timeout_s}s, log $log (boot $attempt)"
	start=$(date +%s)
	# The serial console ends lines with CR LF; strip the CR so summary
	# lines are plain.  stdin is /dev/null: qemu must not read the
	# caller's terminal.
	timeout -k 10 "$timeout_s" qemu-system-x86_64 -accel "$accel" "${icount[@]}" -cpu "$cpu" "${topo[@]}" ${VM_QEMU_OPTS:-} \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-nographic -no-reboot -nodefaults -serial stdio -monitor none \
		< /dev/null 2>&1 | sed -u 's/\r//g' | tee "$log"
	qrc=${PIPESTATUS[0]}
	echo "run.sh: qemu exited rc=$qrc after $(( $(date +%s) - start ))s"
	if ! started; then
		echo "run.sh: the guest never reached the tests (boot failure); booting again"
	elif tcg_int3 && [ "$attempt" -lt "${VM_BOOTS:-3}" ]; then
		cp "$log" "$log.boot$attempt"
		echo "run.sh: the guest oopsed on an int3 in patched kernel text (TCG; $(grep -m1 -o 'RIP: [^ ]*' "$log")), log kept in $log.boot$attempt; booting again"
	else
		break
	fi
done

summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
passed=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<<"$summary")
failed=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' <<<"$summary")
passed=${passed:-0}
failed=${failed:-0}
rc=0
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run.sh: TIMEOUT after ${timeout_s}s"
	failed=$((failed + 1))
elif [ -z "$summary" ]; then
	echo "run.sh: the guest printed no summary (boot failure or crash?)"
	failed=$((failed + 1))
elif ! grep -q '^GUEST-EXIT rc=' "$log"; then
	echo "run.sh: the guest did not finish cleanly"
	failed=$((failed + 1))
elif ! grep -q '^GUEST-EXIT rc=0$' "$log" && [ "$failed" -eq 0 ]; then
	echo "run.sh: the guest tests exited $(grep -m1 '^GUEST-EXIT rc=' "$log" | cut -d= -f2) with no failure counted"
	failed=$((failed + 1))
fi
if grep -q 'Kernel panic' "$log"; then
	echo "run.sh: guest kernel panic"
	failed=$((failed + 1))
fi
[ "$failed" -gt 0 ] || [ "$passed" -eq 0 ] && rc=1
echo "$passed passed, $failed failed"
exit $rc
