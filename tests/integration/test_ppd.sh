#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `start --follow-ppd`: a private system bus (dbus-daemon with a system-bus
# style config in a temp dir) and Debian's real power-profiles-daemon on
# it. PPD runs its platform_profile driver on a stand-in ACPI
# platform_profile file (PPD's own UMOCKDEV_DIR sysfs prefix); writing that
# file is what a firmware hot key does, and PPD announces the new profile on
# D-Bus exactly as for `powerprofilesctl set`. bpfgov must follow
# power-saver/balanced/performance into its pinned tunables, show it in
# `status` and the metrics, ignore the same signal from another sender,
# survive PPD leaving and pick up a restarted PPD.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
for f in dbus-daemon powerprofilesctl gdbus "$PPD"; do
	command -v "$f" >/dev/null || { not_ok "$f missing (scripts/deps.sh installs it)"; t_done; exit 1; }
done

ppd_bus "$T_TMP/bus" "$T_TMP/fake"
check "private system bus is up" test -S "$T_TMP/bus/socket"

check "power-profiles-daemon runs on the private bus" ppd_start
check "PPD follows the stand-in platform profile to power-saver" ppd_fw low-power power-saver
check "PPD uses its platform_profile driver" grep -q "Driver:     platform_profile" <<<"$(powerprofilesctl list 2>&1)"

# Bad input first: unknown config value; no system bus.
printf 'follow_ppd = maybe\n' >"$T_TMP/bad.conf"
chmod 0644 "$T_TMP/bad.conf"
expect_fail "follow_ppd = maybe" 2 "bad.conf:1: follow_ppd 'maybe': expected yes or no" start --config "$T_TMP/bad.conf" --duration 1
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T_TMP/nobus expect_fail "--follow-ppd without a system bus" 1 "cannot connect to the system bus" start --follow-ppd --duration 1

# 1. Start follows PPD's profile at once.
gov_start --follow-ppd --dry-run --metrics-listen $((20000 + RANDOM % 20000))
port=$(grep -o 'http://127.0.0.1:[0-9]*' "$GOV_LOG" | head -n1)
is "start: profile powersave from PPD's power-saver" "$(status_get .profile)" "powersave"
is "status --json: follow_ppd" "$(status_get .follow_ppd)" "true"
is "status --json: ppd_profile" "$(status_get .ppd_profile)" "power-saver"
is "pinned tunables: powersave's headroom" "$(status_get .tunables.headroom_pct)" "110"
check "status text shows the follow" grep -q "power-profiles-daemon: followed, active profile power-saver" <<<"$("$GOV" status)"

# 2. PPD switches: bpfgov follows into the pinned map.
ppd_fw performance performance
check "PPD: performance" status_wait '.ppd_profile == "performance"'
is "bpfgov profile performance" "$(status_get .profile)" "performance"
is "pinned tunables: performance's headroom" "$(status_get .tunables.headroom_pct)" "160"
is "origin of headroom_pct: ppd" "$(status_get .tunable_origins.headroom_pct)" "ppd"
check "metrics show both profiles" grep -q 'bpfgov_profile_info{profile="performance",ppd_profile="performance"} 1' <<<"$(curl -s "$port/metrics")"
ppd_fw balanced balanced
check "PPD: balanced" status_wait '.ppd_profile == "balanced" and .profile == "balanced"'
is "pinned tunables: balanced's headroom" "$(status_get .tunables.headroom_pct)" "125"
check "metrics: two switches counted" grep -qx 'bpfgov_profile_switches_total 2' <<<"$(curl -s "$port/metrics")"

# 3. The same signal from another connection is not PPD's: ignored.
gdbus emit --system --object-path /net/hadess/PowerProfiles \
	--signal org.freedesktop.DBus.Properties.PropertiesChanged \
	"'net.hadess.PowerProfiles'" "{'ActiveProfile': <'performance'>}" "@as []" >/dev/null 2>&1
sleep 1
is "a spoofed PropertiesChanged is ignored" "$(status_get .profile)" "balanced"

# 3b. One writer of the tunables: a `govloader set` survives a PPD switch on
# the keys the new profile does not set (deadband: no profile sets it); a
# key the profile sets (headroom_pct) is the profile's after the switch.
check "govloader set deadband=8 headroom_pct=140" "$GOV" set deadband=8 headroom_pct=140
is "set: deadband 8, origin set" "$(status_get .tunables.deadband) $(status_get .tunable_origins.deadband)" "8 set"
ppd_fw performance performance
check "PPD: performance after the set" status_wait '.profile == "performance"'
is "deadband survives the switch" "$(status_get .tunables.deadband) $(status_get .tunable_origins.deadband)" "8 set"
is "headroom_pct is the new profile's" "$(status_get .tunables.headroom_pct) $(status_get .tunable_origins.headroom_pct)" "160 ppd"
check "origins file: deadband set 8" grep -qx "origin deadband set 8" "$BPFGOV_RUN_DIR/config"
check "origins file: headroom_pct ppd 160" grep -qx "origin headroom_pct ppd 160" "$BPFGOV_RUN_DIR/config"
ppd_fw balanced balanced
check "PPD: back to balanced" status_wait '.profile == "balanced"'
is "deadband survives a second switch" "$(status_get .tunables.deadband) $(status_get .tunable_origins.deadband)" "8 set"
is "balanced's headroom_pct" "$(status_get .tunables.headroom_pct) $(status_get .tunable_origins.headroom_pct)" "125 ppd"
# A scheduler reload (scx --restart) writes the tunables through the same
# function (keeping every `set` value); it needs sched_ext to be driven.
[ -d /sys/kernel/sched_ext ] ||
	diag "skip: no sched_ext (/sys/kernel/sched_ext) here: the scx reload keeping 'set' values is not run"

# 4. `powerprofilesctl set` goes through polkit, which needs an active
# logind session or a local rule: say what it answered.
out=$(powerprofilesctl set power-saver 2>&1)
if [ $? -eq 0 ]; then
	check "powerprofilesctl set power-saver followed" status_wait '.profile == "powersave"'
	ppd_fw balanced balanced
	status_wait '.profile == "balanced"'
else
	diag "powerprofilesctl set (polkit) refused here: $(tr '\n' ' ' <<<"$out" | head -c 200)"
fi

# 5. PPD leaves: the profile stays; a restarted PPD is followed again.
kill "$PPD_PID"; wait "$PPD_PID" 2>/dev/null
sleep 1
check "governor keeps running without PPD" kill -0 "$GOV_PID"
is "profile stays balanced" "$(status_get .profile)" "balanced"
check "PPD restarted" ppd_start
check "PPD switched after its restart" ppd_fw performance performance
check "restarted PPD's performance is followed" status_wait '.profile == "performance" and .ppd_profile == "performance"'
check "start logged PPD leaving and coming back" grep -q "power-profiles-daemon appeared on the system bus" "$GOV_LOG"

"$GOV" stop >/dev/null 2>&1
gov_wait
is "stop: exit 0" "$GOV_RC" 0

# 6. The config key does the same as the option.
ppd_fw low-power power-saver
printf 'follow_ppd = yes\n' >"$T_TMP/ppd.conf"
chmod 0644 "$T_TMP/ppd.conf"
gov_start --config "$T_TMP/ppd.conf" --dry-run
is "follow_ppd = yes in the config file" "$(status_get .follow_ppd) $(status_get .profile)" "true powersave"
"$GOV" stop >/dev/null 2>&1
gov_wait
t_done
