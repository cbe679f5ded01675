#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Config file, profiles and `govloader set`: a bad-input table (each bad
# config, value, key or command gives one line naming file, line and
# reason, the documented exit code, and changes nothing), the precedence
# default < profile < file < --set as `status` shows it with each value's
# origin, and `set` changing the running policy through the pinned map.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
C=$T_TMP/conf
mkdir -p "$C"

# conf NAME LINE...: a config file (root, 0644).
conf() {
	local f=$C/$1
	shift
	printf '%s\n' "$@" >"$f"
	chmod 0644 "$f"
	echo "$f"
}

# expect_fail (tests/lib.sh): config errors stop start before the lock, so
# there is no journal or origins file either.
unchanged() { [ ! -e "$BPFGOV_RUN_DIR/journal" ] && [ ! -e "$BPFGOV_RUN_DIR/config" ]; }

# 1. Bad input table.
f=$(conf noeq.conf "# a comment" "" "headroom_pct 130")
expect_fail "line without '='" 2 "$f:3: expected 'key = value'" start --config "$f" --duration 1
f=$(conf unknown.conf "headroom_pct = 130" "turbo_boost = 1")
expect_fail "unknown key" 2 "$f:2: 'turbo_boost': unknown tunable" start --config "$f" --duration 1
f=$(conf range.conf "headroom_pct = 5")
expect_fail "out-of-range value" 2 "$f:1: headroom_pct=5: out of range \[100, 400\]" start --config "$f" --duration 1
f=$(conf nan.conf "deadband = lots")
expect_fail "value not a number" 2 "$f:1: deadband='lots': not a whole number" start --config "$f" --duration 1
f=$(conf neg.conf "deadband = -1")
expect_fail "negative value" 2 "$f:1: deadband='-1': not a whole number" start --config "$f" --duration 1
f=$(conf big.conf "rate_limit_us = 99999999999999999999")
expect_fail "overflowing value" 2 "$f:1: rate_limit_us=" start --config "$f" --duration 1
f=$(conf empty.conf "deadband =")
expect_fail "missing value" 2 "$f:1: deadband: missing value" start --config "$f" --duration 1
f=$(conf nokey.conf " = 3")
expect_fail "missing key" 2 "$f:1: missing key before '='" start --config "$f" --duration 1
f=$(conf two.conf "deadband = 3 4")
expect_fail "two values" 2 "$f:1: deadband: invalid character in value" start --config "$f" --duration 1
f=$(conf dup.conf "deadband = 3" "# again" "deadband = 4")
expect_fail "duplicate key" 2 "$f:3: duplicate key 'deadband' (first set on line 1)" start --config "$f" --duration 1
f=$(conf prof.conf "profile = turbo")
expect_fail "unknown profile in the file" 2 "$f:1: profile 'turbo': expected powersave, balanced or performance" start --config "$f" --duration 1
f=$(conf cross.conf "floor_min = 900" "floor_max = 100")
expect_fail "inconsistent values in the file" 2 "floor_min=900 is above floor_max=100" start --config "$f" --duration 1
expect_fail "missing --config file" 2 "$C/none.conf: cannot open: No such file" start --config "$C/none.conf" --duration 1
ln -sf "$C/range.conf" "$C/link.conf"
expect_fail "config that is a symlink" 2 "link.conf: is a symbolic link" start --config "$C/link.conf" --duration 1
f=$(conf gw.conf "deadband = 3")
chmod 0664 "$f"
expect_fail "group-writable config" 2 "must be owned by root and not writable by group or others" start --config "$f" --duration 1
expect_fail "config that is a directory" 2 "$C: not a regular file" start --config "$C" --duration 1
expect_fail "unknown --profile" 2 "--profile 'turbo': expected powersave, balanced or performance" start --profile turbo
expect_fail "--set still validated over a good file" 2 "--set headroom_pct=1: out of range" start --config "$(conf ok.conf "deadband = 3")" --set headroom_pct=1
expect_fail "set while not running" 3 "bpfgov is not running" set headroom_pct=150
expect_fail "set with an out-of-range value" 2 "set: headroom_pct=5: out of range \[100, 400\]" set headroom_pct=5
expect_fail "set with an unknown key" 2 "set: 'turbo': unknown tunable" set turbo=1
expect_fail "set with no pair" 2 "set: expected KEY=VALUE" set
expect_fail "set nr_states at run time" 2 "nr_states describes the machine" set nr_states=3
expect_fail "set --bogus" 2 "set: unknown option '--bogus'" set --bogus headroom_pct=150
"$GOV" restore >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "restore with no journal: one line, exit 0 (rc $rc)" \
	bash -c "[ $rc -eq 0 ] && [ \$(wc -l <'$T_TMP/err') -eq 1 ] && grep -q 'nothing to restore' '$T_TMP/err'"
for c in set restore; do
	"$GOV" "$c" --help >/dev/null 2>&1
	is "$c --help exits 0" "$?" 0
done

# 2. Precedence: default < profile < file < --set, with origins in status.
f=$(conf prec.conf "# powersave, then the file's own values" "profile = powersave  # the file picks one" \
	"headroom_pct = 130" "rate_limit_us=3000" "	tau_rise_us	=	3000	")
check "start with profile (file), file values and --set comes up" \
	gov_start --dry-run --config "$f" --set rate_limit_us=2500 --set gap_hold_us=0
j=$("$GOV" status --json)
t() { echo "$j" | jq -r "$1"; }
is "profile from the file" "$(t .profile)" powersave
is "config_file" "$(t .config_file)" "$f"
is "poll_max_us from the profile" "$(t .tunables.poll_max_us) $(t .tunable_origins.poll_max_us)" "150 profile"
is "headroom_pct: file beats profile" "$(t .tunables.headroom_pct) $(t .tunable_origins.headroom_pct)" "130 file"
is "tau_rise_us: blanks and tabs around '='" "$(t .tunables.tau_rise_us) $(t .tunable_origins.tau_rise_us)" "3000 file"
is "rate_limit_us: --set beats file" "$(t .tunables.rate_limit_us) $(t .tunable_origins.rate_limit_us)" "2500 cmdline"
is "floor_max: default" "$(t .tunables.floor_max) $(t .tunable_origins.floor_max)" "1024 default"
"$GOV" status >"$T_TMP/st" 2>&1
check "text status shows profile, file and origins" \
	bash -c "grep -q 'config: profile powersave, file $f' '$T_TMP/st' && grep -q 'headroom_pct=130 \[file\]' '$T_TMP/st' && grep -q 'rate_limit_us=2500 \[cmdline\]' '$T_TMP/st'"

# 3. govloader set at run time.
"$GOV" set headroom_pct=200 deadband=8 >/dev/null 2>"$T_TMP/err"
is "set exits 0" "$?" 0
check "set reports the change" grep -q "headroom_pct: 130 -> 200" "$T_TMP/err"
j=$("$GOV" status --json)
is "status shows the new value with origin set" "$(t .tunables.headroom_pct) $(t .tunable_origins.headroom_pct)" "200 set"
is "second key too" "$(t .tunables.deadband) $(t .tunable_origins.deadband)" "8 set"
is "other origins kept" "$(t .tunable_origins.poll_max_us) $(t .profile)" "profile powersave"
check "the pinned map holds it (bpftool)" bash -c \
	"bpftool map dump pinned '$PIN/tunables' | grep -q '\"headroom_pct\": 200'"
"$GOV" set floor_min=900 floor_max=100 >/dev/null 2>"$T_TMP/err"
rc=$?
check "set with inconsistent values is refused (rc $rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'floor_min=900 is above floor_max=100' '$T_TMP/err'"
"$GOV" set headroom_pct=150 turbo=1 >/dev/null 2>&1
is "a bad pair refuses the whole set" "$(status_get .tunables.headroom_pct)" 200
# The policy uses the map at once: pin every floor at 1024, then at 0
# (this instance runs with gap memory off: a hold armed before floor_max
# drops is not bounded by it, see the report to the policy's owner).
"$GOV" set floor_min=1024 >/dev/null 2>&1
bg taskset -c 0,1 "$WORK" pingpong --pairs 1 --pin --work-us 0 --duration 6 >/dev/null
all_floors() { [ "$(status_get '[.cpus[].floor] | unique | join(",")')" = "$1" ]; }
ok_hi=no
for i in $(seq 1 30); do all_floors 1024 && { ok_hi=yes; break; }; sleep 0.1; done
is "set floor_min=1024: every CPU's floor goes to 1024" "$ok_hi" yes
"$GOV" set floor_min=0 floor_max=0 >/dev/null 2>&1
ok_lo=no
for i in $(seq 1 30); do all_floors 0 && { ok_lo=yes; break; }; sleep 0.1; done
is "set floor_max=0: every CPU's floor goes to 0" "$ok_lo" yes
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0" "$GOV_RC" 0
check "origins file removed at stop" test ! -e "$BPFGOV_RUN_DIR/config"

# 4. --profile beats the file's profile; profiles are distinct.
check "start --profile performance over a file naming powersave" \
	gov_start --dry-run --config "$f" --profile performance --duration 4
j=$("$GOV" status --json)
is "profile performance" "$(t .profile)" performance
is "performance gap hold" "$(t .tunables.gap_hold_us) $(t .tunable_origins.gap_hold_us)" "3000 profile"
is "file still beats the profile" "$(t .tunables.headroom_pct)" 130
gov_wait
if [ ! -e /etc/bpfgov.conf ]; then
	check "no /etc/bpfgov.conf: defaults with profile balanced" gov_start --dry-run --duration 3
	j=$("$GOV" status --json)
	is "profile balanced, no config file" "$(t .profile) $(t .config_file)" "balanced null"
	is "balanced headroom" "$(t .tunables.headroom_pct) $(t .tunable_origins.headroom_pct)" "125 profile"
	gov_wait
fi
t_done
