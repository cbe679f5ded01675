#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input: one clear line on stderr, a non-zero exit, and nothing changed
# (no pins, no lock owner, MSR and sysfs stand-ins byte-identical).
. "$(dirname "$0")/../lib.sh"

MSR=$T_TMP/msr
seed_msr_standins "$MSR"
cp -a "$MSR" "$T_TMP/msr.orig"
orig_qos=$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us)

# expect_fail (tests/lib.sh) also checks that nothing was changed:
unchanged() {
	diff -r "$MSR" "$T_TMP/msr.orig" >/dev/null &&
	[ "$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us)" = "$orig_qos" ]
}

expect_fail "no command" 2 "no command" 
expect_fail "unknown command" 2 "unknown command 'frobnicate'" frobnicate
expect_fail "unknown global option" 2 "unknown option" --bogus start
expect_fail "unknown start option" 2 "unknown option '--turbo'" start --turbo
expect_fail "option without its value" 2 "needs a value" start --duration
expect_fail "bad --mode" 2 "expected auto, trace or scx" start --mode fast
expect_fail "bad --duration" 2 "expected seconds" start --duration -3
expect_fail "stray argument" 2 "unexpected argument" start now
expect_fail "out-of-range tunable" 2 "headroom_pct=5: out of range \[100, 400\]" start --set headroom_pct=5
expect_fail "unknown tunable" 2 "'turbo_boost': unknown tunable" start --set turbo_boost=1
expect_fail "non-numeric tunable" 2 "not a whole number" start --set deadband=lots
expect_fail "inconsistent tunables" 2 "floor_min=900 is above floor_max=100" start --set floor_min=900 --set floor_max=100
expect_fail "unknown backend" 2 "expected auto, intel-hwp" start --backend turbo
expect_fail "missing BTF" 1 "no kernel BTF at /nonexistent/vmlinux" start --btf /nonexistent/vmlinux --duration 1
expect_fail "pin root not on bpffs" 1 "is not on a bpf filesystem" start --pin-root "$T_TMP/notbpf/x" --duration 1 --msr-root "$MSR"
expect_fail "relative pin root" 1 "must be an absolute path" start --pin-root rel/x --duration 1 --msr-root "$MSR"
expect_fail "MSR files missing (explicit backend)" 1 "modprobe msr" start --backend intel-hwp --msr-root "$T_TMP/nomsr" --duration 1
truncate -s 100 "$T_TMP/short"
mkdir -p "$T_TMP/shortmsr/0" "$T_TMP/shortmsr/1"
cp "$T_TMP/short" "$T_TMP/shortmsr/0/msr"; cp "$T_TMP/short" "$T_TMP/shortmsr/1/msr"
expect_fail "short MSR files" 1 "short" start --msr-root "$T_TMP/shortmsr" --duration 1
expect_fail "status --bogus" 2 "unknown option" status --bogus
expect_fail "tail --count 0" 2 "expected a number >= 1" tail --count 0
expect_fail "tail --cpu x" 2 "expected a CPU number" tail --cpu x
expect_fail "stop when nothing runs" 3 "not running" stop
expect_fail "tail when nothing runs" 3 "not running" tail
expect_fail "dump when nothing runs" 3 "not running" dump

# Non-root: one line naming the capabilities, nothing changed.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$GOV" start --duration 1 >/dev/null 2>"$T_TMP/err"
	rc=$?
	check "non-root start: one line, needs root (CAP_BPF, CAP_SYS_ADMIN), rc $rc" \
		bash -c "[ $rc -ne 0 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q 'needs root (CAP_BPF, CAP_SYS_ADMIN)' '$T_TMP/err'"
fi

# Help works everywhere, exit 0.
for c in start stop status tail dump; do
	"$GOV" "$c" --help >/dev/null 2>&1
	is "$c --help exits 0" "$?" 0
done
"$GOV" --help | grep -q "Commands:"
is "govloader --help lists the commands" "$?" 0

# A second start is refused while the first keeps running.
check "first start comes up" gov_start --dry-run --duration 8
"$GOV" start --dry-run --duration 2 >/dev/null 2>"$T_TMP/err2"
rc=$?
check "second start refused with a clear line (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'already running (pid $GOV_PID)' '$T_TMP/err2'"
check "the first start keeps running" kill -0 "$GOV_PID"
check "its pins are still there" test -e "$PIN/cpu_state"
"$GOV" stop >/dev/null 2>&1
gov_wait
is "first start exits 0" "$GOV_RC" 0
t_done
