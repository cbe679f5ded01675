#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The minimum kernel: `start` checks the kernel's BTF for what the
# tracepoint programs need before it changes anything. A BTF that lacks it
# (a hand-made one here: one int type, as a kernel without BTF-typed
# tracepoints would show) gets one line naming the feature and exit 1,
# nothing changed; `probe` states the minimum and what degrades.
. "$(dirname "$0")/../lib.sh"

qos=$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us)
unchanged() {
	[ ! -e /run/bpfgov/journal ] &&
	[ "$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us)" = "$qos" ]
}

# Raw BTF: header (magic 0xeb9f, version 1, 24 bytes), one INT "int" of
# 32 bits, string section "\0int\0".
le32() { printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $((($1 >> 8) & 255)))\\$(printf %03o $((($1 >> 16) & 255)))\\$(printf %03o $((($1 >> 24) & 255)))"; }
{
	printf '\237\353\001\000'
	le32 24; le32 0; le32 16; le32 16; le32 5
	le32 1; le32 $((1 << 24)); le32 4; le32 32
	printf '\000int\000'
} >"$T_TMP/old.btf"
check "the hand-made BTF parses (bpftool)" bash -c "bpftool btf dump file '$T_TMP/old.btf' >/dev/null"

expect_fail "kernel without tp_btf/cpu_idle: one line naming it" 1 \
	"lacks tp_btf/cpu_idle (Linux 5.5); bpfgov needs Linux 6.1 or later" \
	start --mode trace --btf "$T_TMP/old.btf" --duration 1
check "the error never says a bare EINVAL" bash -c "! grep -q 'Invalid argument' '$T_TMP/err'"

"$GOV" probe >"$T_TMP/probe.txt"
check "probe states the minimum kernel" grep -q '^kernel .*(minimum 6.1)' "$T_TMP/probe.txt"
check "probe says how the next timer is read" grep -q '^next timer ' "$T_TMP/probe.txt"
check "probe --json: kernel.minimum" quiet jq -e '.kernel.minimum == "6.1" and .kernel.supported' \
	<("$GOV" probe --json)
t_done
