#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-idle-report.sh LOG [--write DOC]
#
# The report of `make bench-vm-idle`: the live idle judge of `make bench`
# (tests/bench/live.sh) ran in a guest whose kernel has a cpuidle driver
# (acpi_idle, POLL + C1 by HLT: tests/vm/mkacpi-cst.sh).  From the guest's
# console LOG: its table, verdicts and goals, printed by the same functions
# `make bench` uses; the traces it recorded with bpfgov's picks in force go
# to $BUILD/vm/livebench/ (replay them with `govlab replay`).  --write
# DOC splices the section between "<!-- live-guest:begin -->" and
# "<!-- live-guest:end -->" of DOC.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
BUILD=${BUILD:-build}
log=${1:?LOG}
write=
[ "${2:-}" = --write ] && write=${3:?DOC}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/bpfgov-idle-report.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
GOV=./govloader WORK=$BUILD/bpfgov-work PIN=/nonexistent
# bench-lib.sh first: its verdict() (VALUE OP LIMIT) is the guest
# reports'; the goals here are report.sh's (VALUE MET)
. tests/vm/bench-lib.sh
. tests/bench/lib.sh
. tests/bench/report.sh
. tests/bench/live.sh

sed -n 's/^LB-JSON //p' "$log" | tail -n1 >"$OUT/live.json"
if ! jq -e .rows "$OUT/live.json" >/dev/null 2>&1; then
	echo "bench-idle-report: no live judge results in $log" >&2
	exit 1
fi
sed -n '/^LB-CMDS-BEGIN$/,/^LB-CMDS-END$/p' "$log" | sed '1d;$d' >"$OUT/cmds.live"
tr_dir=$BUILD/vm/livebench
rm -rf "$tr_dir" && mkdir -p "$tr_dir"
sed -n '/^LB-TRACES-BEGIN$/,/^LB-TRACES-END$/p' "$log" | sed '1d;$d' | base64 -d 2>/dev/null |
	tar -xz -C "$tr_dir" 2>/dev/null
# (the console's first lines carry the firmware's terminal codes)
kernel=$(grep -o '# kernel [^,]*' "$log" | head -n1 | cut -d' ' -f3)
accel=${VM_ACCEL:-tcg,thread=multi}
facts=$(grep -o '# idle: driver .*' "$log" | head -n1 | sed 's/^# idle: driver //; s/ *,/,/g; s/ *$//')

md() {
	echo "Measured by \`make bench-vm-idle\` in one boot of the test guest (kernel $kernel, QEMU \`$accel\`): driver $facts."
	echo "The guest has a cpuidle driver because the boot gives QEMU's processors a \`_CST\` (an SSDT in the"
	echo "initramfs, \`tests/vm/mkacpi-cst.sh\`): acpi_idle registers POLL and C1 (HLT), the states of a KVM"
	echo "guest's haltpoll driver, with the kernel's own \`poll_idle()\`, its time limit, PM QoS and the"
	echo "ladder and menu governors (this kernel has no haltpoll governor). What bpfgov decides, and"
	echo "what that makes the kernel do, is real: the poll time and halts below are the kernel's own"
	echo "counters. The performance axis is an emulator's: a wake-up from HLT costs what QEMU takes"
	echo "to wake a vCPU thread, BPF programs run emulated, and timed cells swing by tens of percent"
	echo "between rounds (each cell is the median of its rounds). Judge poll time here; judge speed"
	echo "on a real machine (section 4b)."
	echo
	doc_live | sed '1,2d'
	echo
	echo "Goals (\`tests/bench/live.sh\`), in this guest:"
	echo
	goals_table md live_goal_rows
	echo
	if ls "$tr_dir"/live-*.trace >/dev/null 2>&1; then
		echo "The cells of \`bpfgov-balanced-recorded\` were recorded with \`govlab record\`"
		echo "and replayed as actuated (\`govlab replay TRACE -p bpfgov@$(j live.json .governor)\`);"
		echo "\`make bench-vm-idle\` leaves the traces in \`build/vm/livebench/\`."
	fi
}

hdr "Live idle judge in the guest ($facts)"
jq -r '.rows[] | [.config, .workload, (.perf // "n/a"), (.unit // ""), (.poll_pct * 10 | round / 10), (.halts_per_s | round),
	(if .loader_pct == null then "n/a" else (.loader_pct * 100 | round / 100) end), ((.writes_per_cpu_s // 0) * 10 | round / 10),
	(.replay_poll_pct // "-")] | @tsv' \
	"$OUT/live.json" | awk -F'\t' '{ printf "  %-26s %-7s perf %10s %-7s poll %6s%%  halts/s %7s  loader %5s%%  writes/s/cpu %6s  replay poll %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
echo
jq -r "$JQ_VLABEL"'.verdicts | group_by(.workload)[] | "  \(.[0].workload): " + (map("\(vlabel) vs \(.against)") | join(", "))' "$OUT/live.json"
echo
goals_table text live_goal_rows
[ -n "$write" ] && doc_splice bench-idle-report live-guest "$(md)" "$write"
exit 0
