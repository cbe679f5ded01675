# SPDX-License-Identifier: GPL-2.0
# What other work does on this machine, for the test runner and the
# benchmarks: how much of the CPUs it uses, and who. Checks that assert
# what an idle CPU does (a floor that falls, an idle pick that is written)
# cannot pass while something else keeps that CPU busy; these helpers let
# the runner wait for such work to end, and name it when it does not.
# Sourcing this file defines functions only.

# _cpu_times: "total idle" jiffies of all CPUs.
_cpu_times() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $5 + $6; exit }' /proc/stat
}

# cpu_busy_pct: % of all CPUs' time not idle over the next second.
cpu_busy_pct() {
	local a b
	a=$(_cpu_times)
	sleep 1
	b=$(_cpu_times)
	echo "$a $b" | awk '{ dt = $3 - $1; di = $4 - $2; printf "%.6g\n", (dt > 0 ? 100 * (1 - di / dt) : 0) }'
}

# _proc_times: "pid ticks comm cpu" of every process (user + system time of
# all its threads; the CPU it last ran on). The command name may hold
# spaces and parentheses: it ends at the last ") ".
_proc_times() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk '
		match($0, /^[0-9]+ \(.*\) /) {
			o = index($0, "(")
			c = substr($0, o + 1, RLENGTH - o - 2)
			gsub(/[ \t]/, "_", c)
			split(substr($0, RLENGTH + 1), a, " ")
			print $1, a[12] + a[13], c, a[37]
		}'
}

# busiest: up to five processes that used more than 5% of a CPU over the
# next second, the busiest first, as "PID COMM PCT% cpuN".
busiest() {
	local a b hz
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	a=$(_proc_times)
	sleep 1
	b=$(_proc_times)
	awk -v hz="$hz" 'NR == FNR { t[$1] = $2; next }
		($1 in t) { p = ($2 - t[$1]) * 100 / hz; if (p > 5) printf "%d %s %.0f%% cpu%s\n", $1, $3, p, $4 }' \
		<(echo "$a") <(echo "$b") | sort -k3 -nr | head -n 5
}

# wait_quiet MAX_S [CMD...]: wait up to MAX_S seconds until other work
# uses less than 10% of the CPUs (and CMD, if given, succeeds). Leaves the
# last reading in QUIET_BUSY (%) and the wait in QUIET_WAITED (s); fails
# when the machine did not get quiet.
wait_quiet() {
	local max=$1
	shift
	QUIET_WAITED=0
	QUIET_BUSY=$(cpu_busy_pct)
	until awk -v b="$QUIET_BUSY" 'BEGIN { exit !(b < 10) }' && { [ $# -eq 0 ] || "$@"; }; do
		[ "$QUIET_WAITED" -ge "$max" ] && return 1
		sleep 4
		QUIET_WAITED=$((QUIET_WAITED + 5))
		QUIET_BUSY=$(cpu_busy_pct)
	done
}

# settle NAME MAX_S: wait_quiet; if the machine stays busy, say how much
# and who, and fail.
settle() {
	wait_quiet "$2" && return 0
	echo "# before $1: other work still uses $(printf '%.0f' "$QUIET_BUSY")% of the CPUs after" \
		"$QUIET_WAITED s; checks of idle CPUs may fail. Busiest: $(busiest | paste -sd ';' -)"
	return 1
}
