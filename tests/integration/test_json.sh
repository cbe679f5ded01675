#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every JSON output stays valid JSON whatever the strings in it hold:
# `start` with --msr-root, --sysfs-root, --config and --report paths that
# contain quotes, backslashes and control characters (a newline, a tab and
# \001 are allowed in directory names), and a cpuidle driver name with a
# quote and a backslash; then `status --json`, the status file, the report,
# `tail --json` and `replay --json` must parse with jq and give the exact
# strings back.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
# jq_true JQ-ARGS...: the document parses and the filter is true.
jq_true() { jq -e "$@" >/dev/null 2>&1; }
NL=$'\n'
TAB=$'\t'
CTL=$'\001'
D="$T_TMP/q\"uote\\back${NL}new${TAB}tab${CTL}ctl"
mkdir -p "$D"
check "a directory name with a quote, a backslash, a newline, a tab and \\001 exists" test -d "$D"

# An MSR root without MSR devices: the actuator says which path is missing,
# so the path reaches "missing" in the status file and the report.
MSR="$D/no-msr"
mkdir -p "$MSR"
SYS="$D/sys"
REPORT="$D/report \"1\".json"
CONF="$D/bpfgov \"x\".conf"
seed_sysfs_standin "$SYS"
DRIVER='fa"ke\drv'
printf '%s\n' "$DRIVER" >"$SYS/devices/system/cpu/cpuidle/current_driver"
echo "headroom_pct = 130" >"$CONF"

check "start with those paths comes up" gov_start --msr-root "$MSR" --sysfs-root "$SYS" \
	--config "$CONF" --report "$REPORT" --no-idle --duration 30
# the status file is published at start, then whenever `status` asks
for i in $(seq 1 30); do [ -s "$BPFGOV_RUN_DIR/status.json" ] && break; sleep 0.1; done

"$GOV" status --json >"$T_TMP/status.json" 2>"$T_TMP/err"
check "status --json parses" jq_true . "$T_TMP/status.json"
check "status --json: the missing MSR path comes back exact" \
	jq_true --arg p "$MSR/0/msr" '.actuator.missing | contains($p)' "$T_TMP/status.json"
check "status --json: the sysfs path comes back exact" \
	jq_true --arg p "$SYS/devices/system/cpu/cpu0/cpufreq" '.actuator.missing | contains($p)' "$T_TMP/status.json"
check "status --json: the driver name comes back exact" \
	jq_true --arg d "$DRIVER" '.actuator.idle_driver == $d' "$T_TMP/status.json"
check "status --json: the config file name comes back exact" \
	jq_true --arg f "$CONF" '.config_file == $f' "$T_TMP/status.json"
check "the status file parses" jq_true . "$BPFGOV_RUN_DIR/status.json"
check "the status file: the missing MSR path comes back exact" \
	jq_true --arg p "$MSR/0/msr" '.missing | contains($p)' "$BPFGOV_RUN_DIR/status.json"

# Written on request only: nobody asks, the file stays; `status` asks
# through the FIFO and shows what is applied now.
RUNF=$BPFGOV_RUN_DIR/status.json
check "the status request FIFO exists" test -p "$BPFGOV_RUN_DIR/status.req"
d0=$(jq '.actuator.decisions' "$T_TMP/status.json")
ino0=$(stat -c %i "$RUNF")
"$WORK" pingpong --pairs 1 --work-us 0 --duration 1 >/dev/null 2>&1
sleep 1.2
is "no request: the status file is not rewritten" "$(stat -c %i "$RUNF")" "$ino0"
"$GOV" status --json >"$T_TMP/status2.json" 2>/dev/null
check "a request rewrites the status file" test "$(stat -c %i "$RUNF")" != "$ino0"
check "status --json after a workload: the decisions it applied since" \
	jq_true --argjson d "${d0:-0}" '.actuator.decisions > $d' "$T_TMP/status2.json"

"$GOV" tail --json --all --count 20 >"$T_TMP/tail.json" 2>/dev/null &
TAIL=$!
bg "$WORK" pingpong --pairs 1 --work-us 0 --duration 2
wait "$TAIL"
n=$(jq -s length "$T_TMP/tail.json" 2>/dev/null)
is "tail --json: every line parses (count)" "$n" 20

"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0" "$GOV_RC" 0
check "stop removes the status request FIFO" test ! -e "$BPFGOV_RUN_DIR/status.req"
check "the report parses" jq_true . "$REPORT"
check "the report: the missing MSR path and the driver come back exact" \
	jq_true --arg p "$MSR/0/msr" --arg d "$DRIVER" \
	'(.missing | contains($p)) and .idle_driver == $d' "$REPORT"
"$GOV" status --json >"$T_TMP/status.json" 2>/dev/null
check "status --json when nothing runs parses" jq_true '.running == false' "$T_TMP/status.json"

TRACE="$D/t \"r\".trace"
"$LAB" synth periodic --duration 1 -o "$TRACE" >/dev/null 2>&1
"$LAB" replay "$TRACE" --json >"$T_TMP/replay.json" 2>"$T_TMP/err"
check "replay --json parses" jq_true . "$T_TMP/replay.json"
check "replay --json: the trace name comes back exact" \
	jq_true --arg f "$TRACE" '.trace == $f' "$T_TMP/replay.json"
t_done
