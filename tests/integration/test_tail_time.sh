#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `tail --time wall|rel`: a readable time column before the monotonic
# seconds; --json stays exactly as it was; bad values are usage errors.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
expect_fail "tail --time bogus" 2 "tail: --time 'bogus': expected wall or rel" tail --time bogus
expect_fail "tail --time without a value" 2 "needs a value" tail --time

gov_start --dry-run
bg taskset -c 1 "$WORK" sleep-cycle --busy-us 3000 --idle-us 3000 --duration 15 --cpu 1
"$GOV" tail --count 5 --time wall >"$T_TMP/wall" 2>&1
"$GOV" tail --count 5 --time rel >"$T_TMP/rel" 2>&1
"$GOV" tail --count 5 >"$T_TMP/plain" 2>&1
"$GOV" tail --count 5 --json --time wall >"$T_TMP/json" 2>&1
is "--time wall: 5 lines 'HH:MM:SS.us MONO cpuN'" \
	"$(grep -cE '^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{6} +[0-9]+\.[0-9]{6} cpu[0-9]' "$T_TMP/wall")" 5
is "--time rel: 5 lines '+S.us MONO cpuN'" \
	"$(grep -cE '^ *\+[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} cpu[0-9]' "$T_TMP/rel")" 5
is "no --time: lines start with the monotonic seconds" \
	"$(grep -cE '^ *[0-9]+\.[0-9]{6} cpu[0-9]' "$T_TMP/plain")" 5
# The wall clock of a record is the monotonic stamp moved by one offset:
# two lines' wall and monotonic differences agree (to the microsecond).
check "--time wall: wall and monotonic differences agree" awk '
	{ split($1, t, ":"); w = t[1] * 3600 + t[2] * 60 + t[3]; m = $2 }
	NR == 1 { w0 = w; m0 = m }
	END { d = (w - w0) - (m - m0); if (d < 0) d = -d; exit !(d < 0.000002 || (w < w0)) }' "$T_TMP/wall"
is "--json ignores --time: same keys as ever" \
	"$(jq -c 'keys' "$T_TMP/json" | sort -u)" '["arg0","cpu","dur_ns","floor","idle_pick","kind","reason","seq","ts_ns","util"]'
t_done
