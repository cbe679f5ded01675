#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --idle-governor: the cpuidle governor the idle picks work inside, switched
# for the run. The switch is journaled before it is made and put back at
# stop, by `restore` after kill -9, and by the next start; bad input
# changes nothing. A stand-in sysfs tree with the haltpoll driver and
# governor (a KVM guest's) goes through the same code path (--sysfs-root);
# then the machine's own governor, where it has a cpuidle driver.
. "$(dirname "$0")/../lib.sh"

JNL=${BPFGOV_RUN_DIR:-/run/bpfgov}/journal
SYS=$T_TMP/sys
G=$SYS/devices/system/cpu/cpuidle/current_governor
seed_sysfs_standin "$SYS" haltpoll
echo haltpoll >"$G"
cp -a "$SYS" "$T_TMP/sys.orig"
same() { diff -r "$T_TMP/sys.orig" "$SYS" >/dev/null; }
unchanged() { same && [ ! -e "$JNL" ]; }

# 1. Bad input: one line, a non-zero exit, nothing written.
expect_fail "a governor this kernel does not list: one line, exit 1" 1 \
	"not one of this kernel's cpuidle governors (ladder menu teo haltpoll)" \
	start --mode trace --sysfs-root "$SYS" --no-floor --duration 1 --idle-governor bogus
expect_fail "a name that is no governor's: exit 2" 2 "expected a cpuidle governor's name" \
	start --mode trace --sysfs-root "$SYS" --no-floor --duration 1 --idle-governor 'menu;ladder'
expect_fail "with --no-idle: exit 2" 2 "--idle-governor and --no-idle" \
	start --mode trace --sysfs-root "$SYS" --no-floor --duration 1 --idle-governor menu --no-idle
echo none >"$SYS/devices/system/cpu/cpuidle/current_driver"
cp "$SYS/devices/system/cpu/cpuidle/current_driver" "$T_TMP/sys.orig/devices/system/cpu/cpuidle/"
expect_fail "no cpuidle driver: exit 1, nothing to switch" 1 "no cpuidle driver here" \
	start --mode trace --sysfs-root "$SYS" --no-floor --duration 1 --idle-governor menu
echo haltpoll >"$SYS/devices/system/cpu/cpuidle/current_driver"
cp "$SYS/devices/system/cpu/cpuidle/current_driver" "$T_TMP/sys.orig/devices/system/cpu/cpuidle/"

# 2. A run: menu while it runs, with the knobs menu honours; haltpoll back
# at stop, and every file of the tree as it was.
check "start --idle-governor menu (stand-in, haltpoll) comes up" \
	gov_start --sysfs-root "$SYS" --no-floor --duration 60 --idle-governor menu
is "the governor is menu while bpfgov runs" "$(cat "$G")" menu
status_wait '.actuator.idle_governor == "menu"'
is "status: the picks work inside menu" "$(status_get .actuator.idle_governor)" menu
check "start says the switch, and what it was" grep -q "cpuidle governor menu for this run (was haltpoll; put back at stop)" "$GOV_LOG"
check "start says the picks use stateK/disable under menu" \
	grep -q "idle picks: per-CPU PM QoS limits and stateK/disable, inside the kernel's menu governor" "$GOV_LOG"
is "the journal's first record is the governor's original (restored last)" \
	"$(sed -n 2p "$JNL" | grep -o 'path=[^ ]*')" "path=$G"
check "its original is haltpoll (hex text)" grep -q "text=$(printf 'haltpoll\n' | od -An -tx1 | tr -d ' \n') .*path=$G " "$JNL"
"$GOV" status | grep -q "cpuidle: driver haltpoll, picks applied inside the menu governor" &&
	ok "status says the governor the picks work inside" || not_ok "status: $("$GOV" status | grep cpuidle:)"
"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exits 0" "$GOV_RC" 0
is "haltpoll is back at stop" "$(cat "$G")" haltpoll
check "every file of the stand-in is as it was" same
check "no journal is left" [ ! -e "$JNL" ]

# 3. kill -9: the switch outlives the loader (what the journal is for),
# and `restore` puts it back; then again, and the next start does.
check "start --idle-governor menu, to be killed" \
	gov_start --sysfs-root "$SYS" --no-floor --duration 60 --idle-governor menu
{ kill -9 "$GOV_PID"; gov_wait; } 2>/dev/null
is "after kill -9 the governor is still menu" "$(cat "$G")" menu
"$GOV" restore --sysfs-root "$SYS" >"$T_TMP/out" 2>&1
is "restore exits 0" "$?" 0
is "restore puts haltpoll back" "$(cat "$G")" haltpoll
check "and the whole tree is as it was" same
check "gov_start again, to be killed" \
	gov_start --sysfs-root "$SYS" --no-floor --duration 60 --idle-governor menu
{ kill -9 "$GOV_PID"; gov_wait; } 2>/dev/null
check "the next start (no --idle-governor) comes up" gov_start --sysfs-root "$SYS" --no-floor --duration 60
# (gov_start may have seen the dead instance's pins before the new one
# removed them: wait for the new one's own, said in its log)
up() { for i in $(seq 1 100); do grep -q "attached on" "$GOV_LOG" && return 0; sleep 0.1; done; return 1; }
check "it attached" up
sleep 1.2	# status is published once a second
check "it restored the dead instance's switch first" grep -q "left changed by a dead instance" "$GOV_LOG"
is "haltpoll, under the new instance" "$(cat "$G")" haltpoll
is "status: the picks work inside haltpoll" "$(status_get .actuator.idle_governor)" haltpoll
check "start says haltpoll leaves stateK/disable alone" \
	grep -q "inside the kernel's haltpoll governor.*stateK/disable is left alone" "$GOV_LOG"
"$GOV" stop >/dev/null 2>&1
gov_wait
check "the tree is as it was" same

# 4. Someone else switches it while bpfgov runs: theirs stays, at stop too.
check "start --idle-governor menu, then a user's switch" \
	gov_start --sysfs-root "$SYS" --no-floor --duration 60 --idle-governor menu
echo ladder >"$G"
"$GOV" stop >/dev/null 2>&1
gov_wait
is "the user's ladder stays at stop" "$(cat "$G")" ladder
check "stop says so" grep -q "cpuidle governor ladder was chosen while bpfgov ran: left as it is" "$GOV_LOG"
check "no journal is left" [ ! -e "$JNL" ]
echo haltpoll >"$G"

# 5. Already in force: nothing is written, nothing journaled for it.
echo menu >"$G"
touch -d '2001-01-01 00:00:00' "$G"
m0=$(stat -c %Y "$G")
check "start --idle-governor menu where menu is in force" \
	gov_start --sysfs-root "$SYS" --no-floor --duration 60 --idle-governor menu
is "the governor file is not written (its mtime)" "$(stat -c %Y "$G")" "$m0"
check "and not journaled" bash -c "! grep -q 'cpuidle/current_governor' '$JNL'"
"$GOV" stop >/dev/null 2>&1
gov_wait
is "menu stays" "$(cat "$G")" menu

# 6. The machine's own governor, where it has a cpuidle driver: switched
# for the run on the real kernel, left switched by kill -9, put back by
# restore and by stop.
DRIVER=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
RG=/sys/devices/system/cpu/cpuidle/current_governor
orig=$(cat "$RG" 2>/dev/null)
other=
for g in menu ladder teo haltpoll; do
	[ "$g" != "$orig" ] && grep -qw "$g" /sys/devices/system/cpu/cpuidle/available_governors 2>/dev/null &&
		{ other=$g; break; }
done
diag "cpuidle driver $DRIVER, governor ${orig:--}, switching to ${other:--}"
if [ "$DRIVER" = none ] || [ -z "$other" ] || [ ! -w "$RG" ]; then
	live_skip "no cpuidle driver, or one governor only: nothing to switch on the real kernel"
else
	check "live: start --idle-governor $other comes up" gov_start --no-floor --duration 60 --idle-governor "$other"
	is "live: the kernel's governor is $other while bpfgov runs" "$(cat "$RG")" "$other"
	{ kill -9 "$GOV_PID"; gov_wait; } 2>/dev/null
	is "live: after kill -9 it is still $other" "$(cat "$RG")" "$other"
	"$GOV" restore >"$T_TMP/out" 2>&1
	is "live: restore exits 0" "$?" 0
	is "live: restore puts $orig back" "$(cat "$RG")" "$orig"
	check "live: start --idle-governor $other again" gov_start --no-floor --duration 60 --idle-governor "$other"
	is "live: $other again" "$(cat "$RG")" "$other"
	"$GOV" stop >/dev/null 2>&1
	gov_wait
	is "live: start exits 0" "$GOV_RC" 0
	is "live: stop puts $orig back" "$(cat "$RG")" "$orig"
fi
t_done
