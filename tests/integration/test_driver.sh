#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A stand-in driver (build/bpfgov-standin-driver) rewrites max, EPP and
# desired of the stand-in request register (HWP_REQUEST on the Intel
# stand-in, CPPC_REQ on the AMD one) at random times while bpfgov runs,
# every fourth time with its own min too, as intel_pstate does from its
# cached copy; a second run rewrites a register as soon as someone reads
# it (the read-modify-write's window).
#
# Part A, the live write path: during the run, the min field is bpfgov's
# and every other field is the driver's latest (the driver checks its
# fields before each rewrite and at the end: none reverted).
# Part B, what stop and restore put back: min the original, every other
# field the driver's latest (after `stop`, and after kill -9 + `restore`).
. "$(dirname "$0")/../lib.sh"

DRV=$TOP/build/bpfgov-standin-driver
MSR=$T_TMP/msr
NCPU=$(online_cpus | wc -l)
CPUS=$(online_cpus | paste -sd,)

# load SECONDS: a load sweep on every online CPU (the floor moves, so
# bpfgov writes), then every CPU busy at the lowest priority for the rest
# (no CPU idle: the once-a-second re-assert reaches each).
load() {
	local c
	for c in $(online_cpus); do
		bg taskset -c "$c" "$WORK" periodic --hz 250 --sweep 10:90:20 --step-s 0.4 \
			--cpu "$c" >/dev/null
		bg nice -n 19 taskset -c "$c" "$WORK" spin --cpu "$c" --duration "$1" >/dev/null
	done
}

# reg CPU: the register's value (decimal).
reg() { msr_file_read "$MSR/$1/msr" "$REG"; }

# state_ok: for each CPU in the driver's final state, min is bpfgov's
# (status hw_min) and the driver found its fields (its exit status).
mins_are_bpfgovs() {
	local c m o hm bad=
	while read -r c m o; do
		hm=$(status_get ".actuator.cpus[$c].hw_min")
		[ "$m" = "$hm" ] || bad+=" cpu$c:$m/$hm"
	done <"$T_TMP/state"
	[ -z "$bad" ] || diag "min field not bpfgov's (register/status):$bad"
	[ -z "$bad" ]
}

# after_restore WHAT: min the original, other fields the driver's latest.
after_restore() {
	local c m o v bad=
	while read -r c m o; do
		v=$(reg "$c")
		[ $(( (v >> MIN_SHIFT) & 0xff )) -eq "$ORIG_MIN" ] || bad+=" cpu$c:min=$(( (v >> MIN_SHIFT) & 0xff ))"
		[ $(( v & ~(0xff << MIN_SHIFT) )) -eq $((o)) ] || bad+=" cpu$c:others=$(printf '%#x' $(( v & ~(0xff << MIN_SHIFT) )))/want=$o"
	done <"$T_TMP/state"
	[ -z "$bad" ] || diag "$1:$bad"
	[ -z "$bad" ]
}

for L in hwp cppc; do
	if [ $L = hwp ]; then
		seed=seed_msr_standins REG=$((0x774)) MIN_SHIFT=0 ORIG_MIN=$HWP_LOWEST BACKEND=intel-hwp
	else
		seed=seed_cppc_standins REG=$((0xc00102b3)) MIN_SHIFT=8 ORIG_MIN=$CPPC_LOWEST BACKEND=amd-cppc
	fi

	# A. 100 rewrites at random times (2-60 ms apart).
	$seed "$MSR"
	check "$L: start comes up" gov_start --backend $BACKEND --msr-root "$MSR" --no-idle --duration 40
	load 25	# through A and A2 (each ~6 s, slower under load): no CPU idles
	"$DRV" --msr-root "$MSR" --layout $L --cpus "$NCPU" --rewrites 100 --gap-us 2000:60000 \
		--cache-every 4 --seed 7 --settle-ms 2500 --state "$T_TMP/state" >"$T_TMP/drv" 2>"$T_TMP/drv.err"
	rc=$?
	sed 's/^/# /' "$T_TMP/drv.err" | head -n 5
	is "$L: A: the driver's 100 rewrites, 0 of its fields reverted ($(cat "$T_TMP/drv"))" \
		"$rc $(awk '{print $2, $6}' "$T_TMP/drv")" "0 100 0"
	check "$L: A: during the run, every CPU's min field is bpfgov's" mins_are_bpfgovs
	n=$(status_get .actuator.floor_driver_rewrites)
	diag "$L: A: status: floor register rewritten by its driver $n times, $(status_get .actuator.floor_driver_races) during a write"
	check "$L: A: status counts the driver's rewrites ($n > 0)" [ "${n:-0}" -gt 0 ]
	check "$L: A: metrics count them too" bash -c \
		"'$GOV' metrics | grep -q '^bpfgov_actuation_driver_rewrites_total{cpu=\"[0-9]*\"} [1-9]'"

	# A2. Rewrites as soon as bpfgov reads a register (inside its
	# read-modify-write when the timing allows): figures for the window.
	"$DRV" --msr-root "$MSR" --layout $L --cpus "$NCPU" --rewrites 100 --gap-us 2000:60000 \
		--cache-every 4 --seed 8 --on-read --settle-ms 2500 --state "$T_TMP/state" \
		>"$T_TMP/drv" 2>"$T_TMP/drv.err"
	rc=$?
	diag "$L: A2 (on read): $(cat "$T_TMP/drv"); status: driver rewrites $(status_get .actuator.floor_driver_rewrites), during a write $(status_get .actuator.floor_driver_races)"
	sed 's/^/# /' "$T_TMP/drv.err" | head -n 5
	check "$L: A2: the driver's rewrites on bpfgov's reads ran (rc $rc: 0 none reverted, 3 some)" \
		[ "$rc" = 0 ] || [ "$rc" = 3 ]
	check "$L: A2: during the run, every CPU's min field is bpfgov's" mins_are_bpfgovs

	# B. (restore: the field-level journal) stop puts back the min field alone.
	"$GOV" stop >/dev/null 2>&1
	gov_wait
	check "$L: B: after stop, min is the original and every other field the driver's latest" \
		after_restore "$L: after stop"

	# B2. kill -9, then restore.
	$seed "$MSR"
	check "$L: B2: start comes up" gov_start --backend $BACKEND --msr-root "$MSR" --no-idle --duration 40
	load 6
	"$DRV" --msr-root "$MSR" --layout $L --cpus "$NCPU" --rewrites 40 --gap-us 2000:40000 \
		--cache-every 4 --seed 9 --settle-ms 1500 --state "$T_TMP/state" >"$T_TMP/drv" 2>/dev/null
	kill -9 "$GOV_PID"
	gov_wait
	"$GOV" restore --msr-root "$MSR" >/dev/null 2>&1
	is "$L: B2: restore after kill -9 exits 0" "$?" 0
	check "$L: B2: after kill -9 + restore, min is the original and every other field the driver's latest" \
		after_restore "$L: after restore"
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	BG_PIDS=()
	wait 2>/dev/null
done
t_done
