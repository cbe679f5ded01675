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
# The loader's state is one pinned map, typed: bpftool names its fields,
# and the strings come back exact there too.
bpftool -j map dump pinned "$PIN/loader_state" >"$T_TMP/state.json" 2>"$T_TMP/err"
check "bpftool map dump pinned loader_state parses" jq_true . "$T_TMP/state.json"
check "bpftool: the state's idle driver comes back exact, by field name" \
	jq_true --arg d "$DRIVER" '.[0].formatted.value.idle_driver == $d' "$T_TMP/state.json"
check "bpftool: origins by tunable name" \
	jq_true '.[0].formatted.value.origin.headroom_pct == "BPFGOV_ORIGIN_FILE"' "$T_TMP/state.json"
check "no status file and no request FIFO in the run directory" \
	test ! -e "$BPFGOV_RUN_DIR/status.json" -a ! -e "$BPFGOV_RUN_DIR/status.req"

# Published through the map's mapping as it happens: `status` shows what
# is applied now, without asking the loader.
d0=$(jq '.actuator.decisions' "$T_TMP/status.json")
"$WORK" pingpong --pairs 1 --work-us 0 --duration 1 >/dev/null 2>&1
"$GOV" status --json >"$T_TMP/status2.json" 2>/dev/null
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
check "stop removes the state map's pin" test ! -e "$PIN/loader_state"
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
