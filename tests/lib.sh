# SPDX-License-Identifier: GPL-2.0
# Shared helpers for bpfgov's shell tests: TAP-style lines, a plain
# "N passed, N failed" summary, and start/stop of a governor under test.
# Source from a test with: . "$(dirname "$0")/../lib.sh"

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOV="$TOP/govloader"
WORK="$TOP/build/bpfgov-work"
PIN=/sys/fs/bpf/bpfgov
T_PASS=0
T_FAIL=0
T_N=0
T_TMP=$(mktemp -d /tmp/bpfgov-test.XXXXXX)
GOV_PID=
GOV_LOG="$T_TMP/start.log"
BG_PIDS=()

# Run the test's own commands on CPU0 so that CPU1, where the workloads
# are pinned, only shows what the workload does.
taskset -cp 0 $$ >/dev/null 2>&1 || true

ok()     { T_N=$((T_N + 1)); T_PASS=$((T_PASS + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1)); echo "not ok $T_N - $*"; }
# check "description" command...: passes when the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# is "description" actual expected
is() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', want '$3')"; fi; }
diag() { echo "# $*"; }

t_cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	if [ -n "$GOV_PID" ] && kill -0 "$GOV_PID" 2>/dev/null; then
		kill -TERM "$GOV_PID" 2>/dev/null
		wait "$GOV_PID" 2>/dev/null
	fi
	rm -rf "$T_TMP"
}
trap t_cleanup EXIT

t_done() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}

# gov_start ARGS...: start the governor in the background and wait until
# its pins exist and `status` answers (10 s). Returns non-zero otherwise.
gov_start() {
	local i pin=$PIN a prev=
	for a in "$@"; do
		[ "$prev" = "--pin-root" ] && pin=$a
		prev=$a
	done
	"$GOV" start "$@" >"$GOV_LOG" 2>&1 &
	GOV_PID=$!
	for i in $(seq 1 100); do
		# Pins appear at load, the control map is filled just after.
		if [ -e "$pin/cpu_state" ] &&
		   "$GOV" status --json --pin-root "$pin" 2>/dev/null | jq -e '.mode != "none"' >/dev/null; then
			return 0
		fi
		kill -0 "$GOV_PID" 2>/dev/null || break
		sleep 0.1
	done
	diag "start did not come up; its log:"
	sed 's/^/#   /' "$GOV_LOG"
	return 1
}

# gov_wait: wait for the background start to exit; sets GOV_RC.
gov_wait() {
	wait "$GOV_PID"
	GOV_RC=$?
	GOV_PID=
}

# status_get JQ-EXPR: one value from `status --json`.
status_get() { "$GOV" status --json 2>/dev/null | jq -r "$1"; }

bg() { "$@" & BG_PIDS+=($!); }

nr_possible_cpus() {
	local r
	r=$(cat /sys/devices/system/cpu/possible)
	echo $(( ${r##*-} + 1 ))
}

# MSR stand-ins: MSR X at byte offset 8*X, little endian.
msr_file_write() { # FILE MSR VALUE
	local f=$1 msr=$2 val=$3 i bytes=
	for i in 0 1 2 3 4 5 6 7; do
		bytes+=$(printf '\\x%02x' $(( (val >> (8 * i)) & 0xff )))
	done
	printf "$bytes" | dd of="$f" bs=1 seek=$((8 * msr)) conv=notrunc status=none
}
msr_file_read() { # FILE MSR -> decimal
	local hex
	hex=$(od -An -t x8 -j $((8 * $2)) -N 8 "$1" | tr -d ' \n')
	echo $((16#$hex))
}
