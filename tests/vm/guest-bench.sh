# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench-vm`, sourced by guest-tests.sh (busybox sh).
#
# Rounds alternate between the configurations (the order rotates from one
# round to the next, so drift in the emulated machine does not favour one):
#   default     the kernel's own scheduler, nothing loaded
#   trace       govloader --mode trace --no-floor --no-idle
#   trace-stop  the same with the loader SIGSTOPped (BPF still attached)
#   trace-nort  the same with --no-rt
#   trace-states  trace mode over a stand-in cpuidle tree of two states
#               (POLL, halt: a haltpoll guest's), --sysfs-root: the policy
#               core's path for a machine with a cpuidle driver, which this
#               guest has not (its idle loop halts, which the cpu_idle
#               program sees as state 1, the stand-in's halt)
#   scx         govloader --mode scx, actuating stand-in MSRs (/tmp/msr)
#   sched-only  bpfgov's scheduler with the governor hooks off (scx-smoke
#               --sched-only): what the scheduling policy alone costs
#   null        a sched_ext scheduler without a single callback
#               (tests/vm/scx_null.bpf.c, registered by bpftool): the
#               floor of any sched_ext scheduler; throughput workloads only
#   simple      the kernel's tools/sched_ext/scx_simple (when built)
#   flatcg      the kernel's tools/sched_ext/scx_flatcg (when built)
# Workloads (BENCH_SECS each; default: pin unpin pipe msg wake50 wake100
# nice cgroup):
#   pin         ping-pong pinned to CPU 0 / CPU 1, 0 us work (loops/s)
#   unpin       ping-pong, unpinned (loops/s)
#   pipe        perf bench sched pipe's measure: two processes (round trips/s)
#   msg         hackbench-style messaging, one group of 4 senders and 4
#               receivers per two CPUs (messages/s)
#   wake50, wake100  schbench-style wake-up latency (p50/p99 us): a timer
#               wakes 4 workers every 2 ms while busy threads load half /
#               all of the CPUs (3 x BENCH_SECS)
#   nice        two hogs on CPU 1 at nice 0 and nice 10: CPU time ratio
#               (weights 1024 : 110)
#   cgroup      two hogs on CPU 1 in cgroups of cpu.weight 400 and 100:
#               CPU time ratio
#   threads     8 threads, short work chunks and sleeps (chunks/s)
#   wake        schbench-style timed wake-up, idle machine (p50/p99 us)
#   hackbench   hackbench -g 2 -l 200 (seconds), when present
# trace-stop, trace-nort and trace-states only run `pin`,
# sched-only runs pin, unpin, threads and wake.
#
# Lines for the host report (tests/vm/bench-report.sh):
#   BR <round> <config> <workload> <value> [<value2>]
#   BL <config> <workload> <loader cpu %> <decisions/s> <decisions/s/cpu>
#   BS <config> <program> <ns/call> <calls>
S=$BENCH_SECS
# The wake-up tails (p99) run three times as long: a p99 of 1 s holds the
# 20 slowest of 2000 wake-ups, and rare long waits move it by multiples.
WS=$(awk -v s="$S" 'BEGIN { print s * 3 }')
NCPU=$(nproc)
HZ=100	# USER_HZ: /proc/PID/stat times

have() { [ -x "/bin/$1" ]; }

# pid -> CPU time in 1/100 s of all its threads: from schedstat (ns, one
# file per thread) where the kernel has it, since at 1 % of a CPU a few
# seconds hold only a few USER_HZ ticks.
loader_ticks() {
	if [ -r /proc/$1/schedstat ]; then
		cat /proc/$1/task/*/schedstat 2>/dev/null |
			awk '{ns += $1} END {printf "%.4f\n", ns / 10000000}'
		return
	fi
	awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null || echo 0
}
decisions() {
	$GOV status --json 2>/dev/null | tr ',' '\n' | sed -n 's/^.*"decisions":\([0-9]*\)$/\1/p' | head -n1
}

# run_workload CONFIG ROUND WORKLOAD: one measurement, BR line.
run_workload() {
	case $3 in
	pin)	v=$($BENCH pingpong $S pin | awk '{print $2}') ;;
	unpin)	v=$($BENCH pingpong $S | awk '{print $2}') ;;
	threads) v=$($BENCH threads 8 $S | awk '{print $2}') ;;
	wake)	v=$($BENCH wakelat $S | awk '{print $2, $3}') ;;
	pipe)	v=$($BENCH pipe $S | awk '{print $2}') ;;
	msg)	v=$($BENCH msg $(( NCPU / 2 > 0 ? NCPU / 2 : 1 )) $S | awk '{print $2}') ;;
	wake50)	v=$($BENCH wakeload $WS $(( NCPU / 2 )) | awk '{print $2, $3}') ;;
	wake100) v=$($BENCH wakeload $WS $NCPU | awk '{print $2, $3}') ;;
	nice)	v=$($BENCH share $S 1 nice:0 nice:10 | awk '{print $4}') ;;
	cgroup)	v=$($BENCH share $S 1 cg:$BCG/hi cg:$BCG/lo | awk '{print $4}') ;;
	hackbench) v=$(/bin/hackbench -g 2 -l 200 2>/dev/null | sed -n 's/^Time: *//p') ;;
	esac
	echo "BR $2 $1 $3 ${v:-0}"
}

# measure CONFIG ROUND WORKLOAD...: with a loader ($gpid set), also its CPU
# time and the decisions it applied during each workload.
measure() {
	cfg=$1 r=$2; shift 2
	for w in "$@"; do
		if [ -n "$gpid" ]; then
			d0=$(decisions); c0=$(loader_ticks $gpid); t0=$(now)
		fi
		run_workload $cfg $r $w
		if [ -n "$gpid" ]; then
			c1=$(loader_ticks $gpid); t1=$(now); d1=$(decisions)
			awk -v c="$(awk -v a=$c0 -v b=$c1 'BEGIN { print b - a }')" -v d="$(( ${d1:-0} - ${d0:-0} ))" -v t0=$t0 -v t1=$t1 \
			    -v n=$NCPU -v hz=$HZ -v cfg=$cfg -v w=$w \
			    'BEGIN { t = t1 - t0; if (t <= 0) t = 1
				 printf "BL %s %s %.2f %.1f %.1f\n", cfg, w, 100 * c / hz / t, d / t, d / t / n }'
		fi
	done
}

WL="pin unpin pipe msg wake50 wake100 nice cgroup"
[ -n "${BENCH_WORKLOADS:-}" ] && WL=$BENCH_WORKLOADS
# cgroup: two cgroups of cpu.weight 400 and 100 (no cpu controller: the
# workload is dropped).
BCG=/sys/fs/cgroup/bench
case " $WL " in *" cgroup "*)
	echo +cpu > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p $BCG/hi $BCG/lo
	echo +cpu > $BCG/cgroup.subtree_control 2>/dev/null
	if ! { echo 400 > $BCG/hi/cpu.weight && echo 100 > $BCG/lo/cpu.weight; } 2>/dev/null; then
		diag "bench: no cgroup2 cpu controller: cgroup shares not measured"
		WL=$(echo " $WL " | sed 's/ cgroup / /')
	fi ;;
esac
# sched-only: our own workloads (pin unpin threads wake) among those chosen.
# null: the throughput workloads among them.
wl_among() { # LIST: the chosen workloads that are in LIST, in their order
	local w out=
	for w in $WL; do case " $1 " in *" $w "*) out="$out $w" ;; esac; done
	echo $out
}
SO_WL=$(wl_among "pin unpin threads wake")
NULL_WL=$(wl_among "pin unpin pipe msg")

start_trace() { # ARGS...
	: > $LOG
	$GOV start --mode trace --no-floor --no-idle "$@" > $LOG 2>&1 &
	gpid=$!
	wait_for 120 sh -c "grep -q 'attached' $LOG || ! kill -0 $gpid"
	grep -q attached $LOG && alive $gpid
}

# The stand-in of trace-states: PM QoS at 0, POLL (0 us) and halt (1 us),
# no state disabled.
IDLESYS=/tmp/idlesys
make_idle_standin() {
	rm -rf $IDLESYS
	mkdir -p $IDLESYS/devices/system/cpu/cpuidle
	echo haltpoll > $IDLESYS/devices/system/cpu/cpuidle/current_governor
	echo haltpoll > $IDLESYS/devices/system/cpu/cpuidle/current_driver
	for c in $(seq 0 $(($(nproc) - 1))); do
		d=$IDLESYS/devices/system/cpu/cpu$c
		mkdir -p $d/power $d/cpuidle/state0 $d/cpuidle/state1
		echo 0 > $d/power/pm_qos_resume_latency_us
		echo POLL > $d/cpuidle/state0/name
		echo 0 > $d/cpuidle/state0/latency
		echo 0 > $d/cpuidle/state0/residency
		echo halt > $d/cpuidle/state1/name
		echo 1 > $d/cpuidle/state1/latency
		echo 1 > $d/cpuidle/state1/residency
		echo 0 > $d/cpuidle/state0/disable
		echo 0 > $d/cpuidle/state1/disable
	done
}

start_trace_states() {
	make_idle_standin
	start_trace --sysfs-root $IDLESYS
}

# The null scheduler: registered by bpftool, its link pinned (the
# scheduler stays while the pin does).
NULL_PIN=/sys/fs/bpf/scx-null
start_null() {
	mkdir -p $NULL_PIN
	bpftool struct_ops register /bin/scx_null.bpf.o $NULL_PIN > /tmp/null.log 2>&1 &&
		wait_for 60 is_state enabled && [ "$(cat $SCX/root/ops 2>/dev/null)" = null ]
}
stop_null() {
	rm -f $NULL_PIN/*
	wait_for 10 is_state disabled
}

start_simple() { # [NAME]: scx_simple, or another of the kernel's examples
	/bin/${1:-scx_simple} > /tmp/simple.log 2>&1 &
	spid=$!
	wait_for 60 sh -c "[ \"\$(cat $SCX/state)\" = enabled ] || ! kill -0 $spid"
	[ "$(state)" = enabled ]
}

bench_config() { # CONFIG ROUND
	gpid=
	case $1 in
	default) measure default $2 $WL ;;
	trace)
		if start_trace; then measure trace $2 $WL; stop_gov; else nok "bench: trace attach"; dump_log; fi ;;
	trace-stop)
		if start_trace; then
			kill -STOP $gpid; g=$gpid; gpid=
			measure trace-stop $2 pin
			kill -CONT $g; gpid=$g; stop_gov
		else nok "bench: trace attach"; fi ;;
	trace-nort)
		if start_trace --no-rt; then measure trace-nort $2 pin; stop_gov; else nok "bench: trace attach"; fi ;;
	trace-states)
		if start_trace_states; then measure trace-states $2 pin; stop_gov
		else nok "bench: trace attach (stand-in idle states)"; dump_log; fi ;;
	scx)
		make_msr
		if start_gov $BENCH_GOVOPT; then
			measure scx $2 $WL; stop_gov; wait_for 5 is_state disabled
		else nok "bench: scx attach"; dump_log; fi ;;
	sched-only)
		/bin/scx-smoke --sched-only --seconds 600 > /tmp/smoke-bench.out 2>&1 &
		spid=$!
		if wait_for 60 is_enabled_bpfgov; then measure sched-only $2 $SO_WL
		else nok "bench: sched-only attach"; fi
		kill -INT $spid; wait $spid; wait_for 5 is_state disabled ;;
	null)
		have bpftool && [ -r /bin/scx_null.bpf.o ] || return 0
		if start_null; then measure null $2 $NULL_WL
		else nok "bench: null scheduler attach"; sed 's/^/#   /' /tmp/null.log | tail -n 20; fi
		stop_null ;;
	simple)
		have scx_simple || return 0
		if start_simple; then
			measure simple $2 $WL
			kill -INT $spid; wait $spid; wait_for 5 is_state disabled
		else nok "bench: scx_simple attach"; sed 's/^/#   /' /tmp/simple.log | tail -n 20; fi ;;
	flatcg)
		have scx_flatcg || return 0
		if start_simple scx_flatcg; then
			measure flatcg $2 $WL
			kill -INT $spid; wait $spid; wait_for 5 is_state disabled
		else nok "bench: scx_flatcg attach"; sed 's/^/#   /' /tmp/simple.log | tail -n 20; fi ;;
	esac
	diag "round $2 $1 done at $(now) s"
}

# Per-program cost: bpf_stats on only while this runs (it adds two clock
# reads per program run).
bpf_cost() { # CONFIG WORKLOAD
	have bpftool || return 0
	sysctl -w kernel.bpf_stats_enabled=1 > /dev/null
	bpftool prog show 2>/dev/null | awk '/ name /{for(i=1;i<=NF;i++){if($i=="name")n=$(i+1);if($i=="run_time_ns")t=$(i+1);if($i=="run_cnt")c=$(i+1)} print n, t+0, c+0; n=t=c=""}' > /tmp/bs0
	run_workload "$1-stats" 0 $2 > /dev/null
	bpftool prog show 2>/dev/null | awk '/ name /{for(i=1;i<=NF;i++){if($i=="name")n=$(i+1);if($i=="run_time_ns")t=$(i+1);if($i=="run_cnt")c=$(i+1)} print n, t+0, c+0; n=t=c=""}' > /tmp/bs1
	sysctl -w kernel.bpf_stats_enabled=0 > /dev/null
	awk -v cfg=$1 -v w=$2 'NR==FNR {t[$1]=$2; c[$1]=$3; next}
		$3 > c[$1] && ($1 ~ /^bpfgov/ || $1 ~ /^simple/) {
			printf "BS %s %s:%s %.0f %d\n", cfg, $1, w, ($2 - t[$1]) / ($3 - c[$1]), $3 - c[$1] }' /tmp/bs0 /tmp/bs1
}

CONFIGS=${BENCH_CONFIGS:-default scx null simple flatcg}
echo "# bench: $BENCH_ROUNDS rounds x $S s, workloads: $WL, configurations: $CONFIGS"
# The topology the scheduler sees: CPUs, last-level caches, NUMA nodes.
llcs=$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | tr '\n' ' ')
diag "bench: $NCPU CPUs, LLCs (shared_cpu_list): ${llcs:-none}, NUMA nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
# The clock source prices every clock read, the kernel's and the programs'
# (bpf_ktime_get_ns): an emulated device's is an exit to the emulator.
CS=/sys/devices/system/clocksource/clocksource0
diag "bench: clock source $(cat $CS/current_clocksource 2>/dev/null) (available: $(cat $CS/available_clocksource 2>/dev/null))"
# The report reads this line: every time below is then instructions.
[ -n "$BENCH_ICOUNT" ] &&
	diag "bench: instruction-count mode: 1 ns of guest time per instruction executed"
# One run of each workload first, unmeasured: the first run after boot
# pays for page faults, caches and deferred work, and would fall to the
# first configuration of round 1.
for w in $WL; do run_workload warmup 0 $w > /dev/null; done
for round in $(seq 1 $BENCH_ROUNDS); do
	# Rotate the order: round r starts at configuration r.
	set -- $CONFIGS
	i=1
	while [ $i -lt $round ]; do x=$1; shift; set -- "$@" $x; i=$((i + 1)); done
	for cfg in "$@"; do bench_config $cfg $round; done
done
# Per-program cost of the configurations measured, then done.
in_configs() { case " $CONFIGS " in *" $1 "*) return 0 ;; esac; return 1; }
if in_configs trace && start_trace; then bpf_cost trace pin; bpf_cost trace threads; stop_gov; fi
if in_configs trace-states && start_trace_states; then
	bpf_cost trace-states pin; stop_gov
fi
make_msr
if in_configs scx && start_gov $BENCH_GOVOPT; then
	t_up=$(now)
	# The loader has wake-ups sampled (a clock read for each stamped one,
	# and its target's full idle exit) 4 s in every 16 from its start:
	# the first figures are of those seconds. The pinned ping-pong again
	# in the other 12 (`scx-quiet`).
	bpf_cost scx pin; bpf_cost scx threads
	if awk "BEGIN { exit !($(now) < $t_up + 10) }"; then
		while awk "BEGIN { exit !($(now) < $t_up + 5) }"; do sleep 0.2; done
		bpf_cost scx-quiet pin
	else
		diag "bench: the loader's unsampled seconds were missed: no scx-quiet cost"
	fi
	stop_gov; wait_for 5 is_state disabled
fi
# The scheduler alone, for the governor's share of each hook.
if in_configs sched-only || in_configs scx; then
	/bin/scx-smoke --sched-only --seconds 600 > /tmp/smoke-bench.out 2>&1 &
	spid=$!
	wait_for 60 is_enabled_bpfgov && bpf_cost sched-only pin
	kill -INT $spid; wait $spid; wait_for 5 is_state disabled
fi
if in_configs simple && have scx_simple && start_simple; then
	bpf_cost simple pin; bpf_cost simple threads
	kill -INT $spid; wait $spid; wait_for 5 is_state disabled
fi
check "bench: default and bpfgov measured" sh -c "true"
