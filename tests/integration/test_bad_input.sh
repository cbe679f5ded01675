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
expect_fail "--duration out of range" 2 "'99999999999999999999': out of range (0, 31536000\] seconds" start --duration 99999999999999999999
expect_fail "stray argument" 2 "unexpected argument" start now
expect_fail "out-of-range tunable" 2 "headroom_pct=5: out of range \[100, 400\]" start --set headroom_pct=5
expect_fail "unknown tunable" 2 "'turbo_boost': unknown tunable" start --set turbo_boost=1
expect_fail "non-numeric tunable" 2 "not a whole number" start --set deadband=lots
expect_fail "inconsistent tunables" 2 "floor_min=900 is above floor_max=100" start --set floor_min=900 --set floor_max=100
expect_fail "unknown backend" 2 "expected auto, intel-hwp" start --backend turbo
expect_fail "missing BTF" 1 "no kernel BTF at /nonexistent/vmlinux" start --btf /nonexistent/vmlinux --duration 1
expect_fail "pin root not on bpffs" 1 "is not on a bpf filesystem" start --pin-root "$T_TMP/notbpf/x" --duration 1 --msr-root "$MSR"
expect_fail "relative pin root" 1 "must be an absolute path" start --pin-root rel/x --duration 1 --msr-root "$MSR"
# The true cause, and no advice to mount over / or /tmp, whether bpffs is
# mounted or not: each state in a private mount namespace of its own, so the
# answer depends on neither what earlier runs left behind nor a new machine's
# bare /sys/fs/bpf, and the machine's own mounts stay as they are.
bpffs_was=$(bpffs_state)
GOV_HOST=$GOV
for state in mounted unmounted; do
	GOV=$(bpffs_ns_wrapper "$state" "$GOV_HOST") || { not_ok "no private mount namespace with bpffs $state (unshare -m)"; continue; }
	is "namespace: bpffs at /sys/fs/bpf is $state there" "$("$GOV" --bpffs-state-probe 2>/dev/null)" "$state"
	if [ "$state" = mounted ]; then
		where=" (bpffs is mounted at /sys/fs/bpf)"
	else
		where=", and none is mounted (mount -t bpf bpf /sys/fs/bpf)"
	fi
	expect_fail "bpffs $state: pin root under /tmp: the true cause" 1 \
		"pin root /tmp/bpfgov-nopin/x: /tmp is not on a bpf filesystem$where" \
		start --pin-root /tmp/bpfgov-nopin/x --duration 1 --msr-root "$MSR"
	check "  ... and no 'mount -t bpf bpf /tmp'" bash -c "! grep -q 'mount -t bpf bpf /tmp' '$T_TMP/err'"
	expect_fail "bpffs $state: pin root /: the true cause" 1 \
		"pin root /: / is not on a bpf filesystem$where" \
		start --pin-root / --duration 1 --msr-root "$MSR"
	check "  ... and no 'mount -t bpf bpf /'" bash -c "! grep -qE 'mount -t bpf bpf /( |\\)|$)' '$T_TMP/err'"
done
GOV=$GOV_HOST
is "the machine's bpffs is as it was ($bpffs_was)" "$(bpffs_state)" "$bpffs_was"
# A control character in a path stays one escaped line.
expect_fail "newline in a path: one line" 1 "pin root /tmp/a\\\\nb/x: /tmp is not on a bpf filesystem" \
	start --pin-root "/tmp/a
b/x" --duration 1 --msr-root "$MSR"
# An explicit root that does not exist: one answer, in start and probe.
expect_fail "--msr-root missing (start)" 2 "start: --msr-root $T_TMP/nomsr: No such file or directory" start --msr-root "$T_TMP/nomsr" --duration 1
expect_fail "--msr-root missing (probe)" 2 "probe: --msr-root $T_TMP/nomsr: No such file or directory" probe --msr-root "$T_TMP/nomsr"
expect_fail "--sysfs-root missing (start)" 2 "start: --sysfs-root $T_TMP/nosys: No such file or directory" start --sysfs-root "$T_TMP/nosys" --duration 1
expect_fail "--sysfs-root missing (probe)" 2 "probe: --sysfs-root $T_TMP/nosys: No such file or directory" probe --sysfs-root "$T_TMP/nosys"
expect_fail "--msr-root a file (start)" 2 "start: --msr-root $MSR/0/msr: not a directory" start --msr-root "$MSR/0/msr" --duration 1
mkdir -p "$T_TMP/emptymsr"
expect_fail "MSR files missing (explicit backend)" 1 "modprobe msr" start --backend intel-hwp --msr-root "$T_TMP/emptymsr" --duration 1
# Short stand-in MSR files: one answer from start and probe alike.
mkdir -p "$T_TMP/shortmsr/0" "$T_TMP/shortmsr/1"
head -c 100 /dev/zero >"$T_TMP/shortmsr/0/msr"
head -c 100 /dev/zero >"$T_TMP/shortmsr/1/msr"
expect_fail "short stand-in MSR files (start)" 1 "MSR stand-in unusable" start --msr-root "$T_TMP/shortmsr" --duration 1
expect_fail "short stand-in MSR files (probe)" 1 "probe: MSR stand-in unusable" probe --msr-root "$T_TMP/shortmsr"
# --report where it cannot be written: refused before anything runs.
SECONDS=0
expect_fail "--report in a missing directory" 2 "start: --report /nonexistent/dir/r.json: cannot write there: No such file or directory" \
	start --report /nonexistent/dir/r.json --duration 30 --msr-root "$MSR"
check "  ... at once, not after --duration ($SECONDS s)" test "$SECONDS" -lt 5
# Duplicate keys, as in a config file.
expect_fail "set a=1 a=2" 2 "set: duplicate key 'headroom_pct' ('headroom_pct=150', then 'headroom_pct=200')" set headroom_pct=150 headroom_pct=200
expect_fail "start --set a=1 --set a=2" 2 "duplicate key 'deadband'" start --set deadband=3 --set deadband=4 --duration 1
expect_fail "tail --cpu beyond the possible CPUs" 2 "tail: --cpu 99: not a possible CPU (this machine has CPUs 0-$(($(nr_possible_cpus) - 1)))" tail --cpu 99
expect_fail "stop --pin-root when nothing runs" 3 "not running" stop --pin-root "$PIN"
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
check "first start comes up" gov_start --dry-run --duration 40
"$GOV" start --dry-run --duration 2 >/dev/null 2>"$T_TMP/err2"
rc=$?
check "second start refused with a clear line (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'already running (pid $GOV_PID)' '$T_TMP/err2'"
check "the first start keeps running" kill -0 "$GOV_PID"
check "its pins are still there" test -e "$PIN/cpu_state"
# status for people: short lines, no raw JSON, every column explained.
"$GOV" status >"$T_TMP/st" 2>&1
is "status exits 0" "$?" 0
long=$(awk 'length($0) > 160' "$T_TMP/st" | wc -l)
is "status: no line longer than 160 characters" "$long" 0
check "status: no raw JSON" bash -c "! grep -q '[{}]' '$T_TMP/st'"
hdr=$(grep -E '^ *CPU ' "$T_TMP/st")
check "status has its per-CPU table ($hdr)" test -n "$hdr"
"$GOV" status --help >"$T_TMP/sthelp"
for col in $hdr; do
	check "status --help explains column $col" grep -qE "^  $col " "$T_TMP/sthelp"
done
for code in util_rise util_fall gap_hold hold_end idle_decay history long_poll qos cost fixed; do
	check "status --help explains reason $code" grep -qw "$code" "$T_TMP/sthelp"
done
nst=$(status_get .tunables.nr_states)
ncost=$(awk '/^ *CPU /{f=1;next} f && /^ *[0-9]+\*? /{print NF - 13; exit}' "$T_TMP/st")
is "status: COST_us shows every state ($nst)" "$ncost" "$nst"
check "status: an unmeasured cost is '-', not 0.0" bash -c "! awk '/^ *CPU /{f=1;next} f && /^ *[0-9]/ { for (i = 14; i <= NF; i++) print \$i }' '$T_TMP/st' | grep -qx '0\.0'"
check "status: the CPU it ran on is marked" grep -qE '^ *[0-9]+\* ' "$T_TMP/st"
# tail: only records with a duration show one.
timeout 10 "$GOV" tail --all --count 40 >"$T_TMP/tail" 2>&1
check "tail --all printed records ($(wc -l <"$T_TMP/tail"))" test "$(wc -l <"$T_TMP/tail")" -ge 10
timeout 10 "$GOV" tail --count 4 >>"$T_TMP/tail" 2>&1
check "  ... floor/pick lines carry no 'dur'" bash -c "! awk '\$3 == \"floor\" || \$3 == \"pick\"' '$T_TMP/tail' | grep -q ' dur '"
check "  ... there are floor/pick lines" bash -c "awk '\$3 == \"floor\" || \$3 == \"pick\"' '$T_TMP/tail' | grep -q ."
check "  ... busy/idle_gap lines carry 'dur'" bash -c "awk '\$3 == \"busy\" || \$3 == \"idle_gap\"' '$T_TMP/tail' | grep -q ' dur '"
# stop --pin-root: another root is not this instance; its own root stops it.
"$GOV" stop --pin-root /sys/fs/bpf/bpfgov-other >/dev/null 2>"$T_TMP/err3"
rc=$?
check "stop --pin-root elsewhere: refused, rc $rc ($(head -c 200 "$T_TMP/err3"))" \
	bash -c "[ $rc -eq 1 ] && grep -q 'has no pins under /sys/fs/bpf/bpfgov-other' '$T_TMP/err3'"
check "  ... the instance keeps running" kill -0 "$GOV_PID"
"$GOV" stop --pin-root "$PIN" >/dev/null 2>&1
is "stop --pin-root $PIN exits 0" "$?" 0
gov_wait
is "first start exits 0" "$GOV_RC" 0

# A pin root whose parent is missing on bpffs: made, not blamed on bpffs.
DEEP=/sys/fs/bpf/bpfgov-deep-$$
"$GOV" start --dry-run --duration 1 --pin-root "$DEEP/x/y" >"$T_TMP/deep" 2>&1
rc=$?
check "pin root with missing parents on bpffs: runs (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && ! grep -q 'bpf filesystem' '$T_TMP/deep'"
rmdir "$DEEP/x" "$DEEP" 2>/dev/null

# A report that cannot be written at the end: exit 1.
mkdir -p "$T_TMP/rep"
"$GOV" start --duration 3 --msr-root "$MSR" --report "$T_TMP/rep/r.json" >/dev/null 2>"$T_TMP/reperr" &
rp=$!
sleep 1
rm -rf "$T_TMP/rep"
wait "$rp"
rc=$?
check "report write failing at exit: rc $rc, says so" \
	bash -c "[ $rc -eq 1 ] && grep -q 'cannot write report $T_TMP/rep/r.json' '$T_TMP/reperr'"
check "  ... and the MSR stand-ins are restored" diff -r "$MSR" "$T_TMP/msr.orig"

# -q silences the taint note; without it, the note is there.
"$GOV" start --duration 1 --msr-root "$MSR" >/dev/null 2>"$T_TMP/note"
check "the taint note without -q" grep -q 'note: every MSR write taints' "$T_TMP/note"
"$GOV" -q start --duration 1 --msr-root "$MSR" >/dev/null 2>"$T_TMP/note"
check "no taint note with -q ($(head -c 200 "$T_TMP/note"))" bash -c "! grep -q 'note:' '$T_TMP/note'"
t_done
