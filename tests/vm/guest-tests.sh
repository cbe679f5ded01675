#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check-vm`: runs inside the sched_ext VM (busybox sh).
#
#   guest-tests.sh [GROUP...] [rounds=N] [secs=S] [fairsecs=S] [govopt=--OPTION]...
#       groups: trace smoke scx error restart stress kill9 partial fair bench idle livebench scxidle
#       (default: trace scx error restart stress kill9 partial fair; bench is `make bench-vm`;
#       idle, livebench and scxidle need the cpuidle driver of `make check-vm-idle`;
#       trace is tracepoint mode, which every supported kernel runs; on a
#       kernel without sched_ext the scheduler groups are skipped)
#
# Prints one "ok N - name" / "not ok N - name" line per test, "# ..."
# diagnostics, and ends with the plain "N passed, N failed" line that
# tests/vm/run.sh relays.  The MSR actuation goes to stand-in files under
# /tmp/msr (the TCG guest has no HWP), so the floor's effect is visible as
# the HWP_REQUEST min field.
PATH=/bin:/sbin
GOV=/bin/govloader
# the test build: govloader with its test hooks (--test-scx-error-after)
GOV_TEST=/bin/govloader-test
BENCH=/bin/scxbench
SCX=/sys/kernel/sched_ext
MSR=/tmp/msr
LOG=/tmp/gov.log
n=0 pass=0 fail=0

ok()  { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; [ -z "$2" ] || echo "# $2"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
diag() { echo "# $*"; }

state() { cat $SCX/state 2>/dev/null; }
ops()   { cat $SCX/root/ops 2>/dev/null || cat $SCX/ops 2>/dev/null; }
now()   { cut -d' ' -f1 /proc/uptime; }

# wait_for SECS CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	t=$(( $1 * 5 )); shift
	while [ $t -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		t=$((t - 1))
	done
	return 1
}
is_state() { [ "$(state)" = "$1" ]; }
is_enabled_bpfgov() { is_state enabled && [ "$(ops)" = bpfgov ]; }
alive() { kill -0 "$1" 2>/dev/null; }
# Loading takes ~8 s under TCG (verifier); stop waiting if govloader died.
gov_up_or_dead() { is_enabled_bpfgov || ! alive $gpid; }

# Stand-in MSR files: IA32_PM_ENABLE (0x770) = 1, HWP_CAPABILITIES (0x771)
# lowest 8 / efficient 16 / guaranteed 30 / highest 40, HWP_REQUEST (0x774)
# min 8, max 40, EPP 0x80.  MSR X is the 8 bytes at offset 8*X.
put_msr() { # file msr octal-bytes
	printf "$3" | dd of="$1" bs=8 seek=$(($2)) conv=notrunc 2>/dev/null
}
make_msr() {
	rm -rf $MSR
	for c in $(seq 0 $(($(nproc) - 1))); do
		mkdir -p $MSR/$c
		dd if=/dev/zero of=$MSR/$c/msr bs=8 count=$((0x800)) 2>/dev/null
		put_msr $MSR/$c/msr 0x770 '\001\000\000\000\000\000\000\000'
		put_msr $MSR/$c/msr 0x771 '\050\036\020\010\000\000\000\000'
		put_msr $MSR/$c/msr 0x774 '\010\050\000\200\000\000\000\000'
	done
}
# HWP_REQUEST min field (bits 7:0) of a CPU's stand-in.
msr_min() { dd if=$MSR/$1/msr bs=8 skip=$((0x774)) count=1 2>/dev/null | od -An -tu1 | awk '{print $1}'; }
msr_req() { dd if=$MSR/$1/msr bs=8 skip=$((0x774)) count=1 2>/dev/null | od -An -tx1 | tr -d ' \n'; }
max_min() {
	m=0
	for c in $(seq 0 $(($(nproc) - 1))); do
		v=$(msr_min $c); [ "${v:-0}" -gt $m ] && m=$v
	done
	echo $m
}

# status --json field of one CPU (first match), from a snapshot FILE if
# given, else from a status call.
cpu_field() { # cpu field [file]
	{ if [ -n "$3" ]; then cat "$3"; else $GOV status --json 2>/dev/null; fi; } |
		tr '{' '\n' | grep "^\"cpu\":$1," |
		sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" | head -n1
}
max_field() { # field [file] -> max over CPUs
	m=0
	for c in $(seq 0 $(($(nproc) - 1))); do
		v=$(cpu_field $c $1 $2); v=${v%.*}; [ "${v:-0}" -gt $m ] && m=$v
	done
	echo $m
}

min_field() { # field -> min over CPUs
	m=999999
	for c in $(seq 0 $(($(nproc) - 1))); do
		v=$(cpu_field $c $1); v=${v%.*}; [ "${v:-0}" -lt $m ] && m=${v:-0}
	done
	echo $m
}

# start_gov ARGS...: start govloader in scx mode in the background, wait
# until the kernel runs it.  Sets $gpid.
start_gov() {
	: > $LOG
	$GOV start --mode scx --msr-root $MSR --backend intel-hwp "$@" > $LOG 2>&1 &
	gpid=$!
	t0=$(now)
	wait_for 120 gov_up_or_dead
	is_enabled_bpfgov
	r=$?
	diag "govloader pid $gpid: state $(state), ops '$(ops)' after $(awk "BEGIN{print $(now) - $t0}") s"
	return $r
}
stop_gov() {
	$GOV stop --timeout 20 > /tmp/stop.log 2>&1
	src=$?
	wait $gpid 2>/dev/null
	grc=$?
	diag "stop rc=$src, govloader rc=$grc"
	[ $src = 0 ] && [ $grc = 0 ]
}
dump_log() { sed 's/^/#   /' $LOG | tail -n ${1:-15}; }

# busy_read OP VALUE BOUND: VALUE OP BOUND, read while the load still ran.
busy_read() { [ "$alive" = 1 ] && [ "${2:-0}" $1 "$3" ]; }

# busy_checks PREFIX: both CPUs spin -> util, floor and the MSR min go up.
# One status snapshot and the MSRs, read while the load runs: floors fall
# within tens of ms after it ends, and a status call takes up to a second
# in an emulated guest, so the load runs until they are read and is
# stopped then (a load that had ended fails the checks: no verdict from a
# read made after it).
busy_checks() {
	$BENCH spin 2 60 > /dev/null &
	bpid=$!
	sleep 3
	$GOV status --json > /tmp/busy.json 2>/dev/null
	m_busy=$(max_min)
	kill -0 $bpid 2>/dev/null && alive=1 || alive=0
	kill $bpid 2>/dev/null
	wait $bpid 2>/dev/null
	u_busy=$(max_field util /tmp/busy.json); f_busy=$(max_field floor /tmp/busy.json)
	diag "${1}busy: max util $u_busy, max floor $f_busy, max HWP min $m_busy (orig 8), load still running after the reads: $alive"
	check "${1}busy workload raises util (>= 600)" busy_read -ge "$u_busy" 600
	check "${1}busy workload raises the floor (>= 600)" busy_read -ge "$f_busy" 600
	check "${1}fake --msr-root: HWP_REQUEST min moved up (> 8)" busy_read -gt "$m_busy" 8
}

# Arguments: group names, plus rounds=N / secs=N / configs=A,B / workloads=A,B
# / icount=1 (the VM counts instructions: tests/vm/run.sh) for the bench.
groups= BENCH_ROUNDS=2 BENCH_SECS=3 BENCH_ICOUNT= FAIR_SECS=3 LIVE_ROUNDS=1 BENCH_GOVOPT= LIVE_VARIANT=
for a in "$@"; do
	case "$a" in
	fairsecs=*) FAIR_SECS=${a#fairsecs=} ;;
	liverounds=*) LIVE_ROUNDS=${a#liverounds=} ;;
	livevariant=*) LIVE_VARIANT=${a#livevariant=} ;;
	rounds=*) BENCH_ROUNDS=${a#rounds=} ;;
	govopt=*) BENCH_GOVOPT="$BENCH_GOVOPT ${a#govopt=}" ;;
	secs=*) BENCH_SECS=${a#secs=} ;;
	icount=*) BENCH_ICOUNT=${a#icount=} ;;
	configs=*) BENCH_CONFIGS=$(echo "${a#configs=}" | tr , ' ') ;;
	workloads=*) BENCH_WORKLOADS=$(echo "${a#workloads=}" | tr , ' ') ;;
	*) groups="$groups $a" ;;
	esac
done
groups=${groups:-trace scx error restart stress kill9 partial fair}
want() { case " $groups " in *" $1 "*) return 0 ;; esac; return 1; }

echo "# kernel $(uname -r), $(nproc) CPUs, groups: $groups"
[ -x $GOV ] || nok "govloader present in the initramfs"
{ want error || want restart; } && ! [ -x $GOV_TEST ] && nok "govloader-test present in the initramfs"
if [ -d $SCX ]; then
	want_scx=0
	for g in smoke scx error restart stress kill9 partial fair bench scxidle; do want $g && want_scx=1; done
	[ $want_scx = 0 ] || check "kernel has sched_ext, idle at boot (state $(state))" is_state disabled
else
	# No sched_ext: the scheduler's groups cannot run here.
	for g in smoke scx error restart stress kill9 partial fair bench scxidle; do
		want $g && diag "SKIP $g: no sched_ext in this kernel ($(uname -r))"
	done
	groups=$(for g in $groups; do case $g in smoke|scx|error|stress|kill9|partial|fair|bench|scxidle) ;; *) echo $g ;; esac; done | tr "\n" " ")
fi

if want trace && [ -x $GOV ]; then
	# Tracepoint mode: loads, decides (a busy load raises the floor, which
	# the stand-in MSR shows), and restores at stop.
	make_msr
	orig=$(msr_req 0)
	qos_orig=$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us 2>/dev/null)
	$GOV probe > /tmp/probe.txt 2>&1
	sed 's/^/#   probe: /' /tmp/probe.txt
	# Verifier figures, each object loaded alone (nothing attached).
	if [ -x /bin/bpfgov-veristat ]; then
		objs=/bpf/bpfgov_trace.bpf.o
		[ -d $SCX ] && objs="$objs /bpf/bpfgov_scx.bpf.o"
		/bin/bpfgov-veristat $objs 2>&1 | sed 's/^/# /'
	fi
	: > $LOG
	t0=$(now)
	$GOV start --mode trace --msr-root $MSR --backend intel-hwp > $LOG 2>&1 &
	gpid=$!
	wait_for 120 sh -c "grep -q 'mode attached' $LOG || ! kill -0 $gpid 2>/dev/null"
	diag "trace: attached after $(awk "BEGIN{print $(now) - $t0}") s"
	if grep -q 'trace mode attached' $LOG && alive $gpid; then
		ok "trace: start --mode trace loads and attaches"
		check "trace: status reports mode trace" sh -c "$GOV status --json | grep -q '\"mode\":\"trace\"'"
		$GOV status > /tmp/status.txt 2>&1
		sed 's/^/#   status: /' /tmp/status.txt | head -n 12
		busy_checks "trace: "
		ie=$(max_field idle_entries)
		check "trace: cpu_idle events counted ($ie)" [ "${ie:-0}" -gt 0 ]
		stop_gov; r=$?
		check "trace: stop, govloader exits 0" [ $r = 0 ]
		diag "trace: HWP_REQUEST cpu0 before $orig after $(msr_req 0)"
		check "trace: HWP_REQUEST restored byte-exact" [ "$(msr_req 0)" = "$orig" ]
		check "trace: PM QoS restored" [ "$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us 2>/dev/null)" = "$qos_orig" ]
		check "trace: pins removed" [ ! -e /sys/fs/bpf/bpfgov/cpu_state ]
	else
		nok "trace: start --mode trace loads and attaches"
		dump_log 10
		# Again with -v: the verifier log says what this kernel refuses.
		$GOV start --mode trace -v --dry-run --duration 1 2>&1 | grep -v '^libbpf: prog.*: -- BEGIN\|^$' | tail -n 60 | sed 's/^/#   /' | cut -c1-300
	fi
fi

if want smoke; then
	# govloader-independent: user/daemon/scx.c through tests/vm/scx-smoke.c.
	/bin/scx-smoke --stats --seconds 2 > /tmp/smoke.out 2>&1
	r=$?
	sed 's/^/#   /' /tmp/smoke.out | cut -c1-400
	check "scx-smoke: load, attach, detach (rc $r)" [ $r = 0 ]
	if [ $r != 0 ]; then
		# Again without statistics: libbpf then prints the verifier log.
		/bin/scx-smoke --seconds 1 2>&1 | tail -n 70 | sed 's/^/#   /' | cut -c1-300
	fi
fi

if want scx && [ -x $GOV ]; then
	make_msr
	orig=$(msr_req 0)
	if start_gov; then
		ok "start --mode scx: state enabled, root/ops is bpfgov"
	else
		nok "start --mode scx: state enabled, root/ops is bpfgov"
		dump_log 30
		groups=$(echo " $groups " | sed 's/ scx / /')
	fi
fi
if want scx && [ -x $GOV ]; then
	alive $gpid && ok "govloader keeps running" || nok "govloader keeps running"
	check "status reports mode scx" sh -c "$GOV status --json | grep -q '\"mode\":\"scx\"'"

	# tail --json: a reader on the tap ring while load comes and goes.
	timeout 30 $GOV tail --json --count 4 > /tmp/tail.json 2>/tmp/tail.err &
	tpid=$!
	sleep 1

	busy_checks ""

	# Sleep: util and floor fall.  Judged from the decisions streamed
	# meanwhile (reading `status` would itself make a CPU busy).
	timeout 4 $GOV tail --json > /tmp/idle.json 2>/dev/null &
	ipid=$!
	sleep 4
	wait $ipid
	u_idle=$(sed -n 's/.*"util":\([0-9]*\).*/\1/p' /tmp/idle.json | sort -n | head -n1)
	f_idle=$(sed -n 's/.*"floor":\([0-9]*\).*/\1/p' /tmp/idle.json | sort -n | head -n1)
	m_idle=$(max_min)
	diag "idle: $(grep -c kind /tmp/idle.json) decisions, lowest util $u_idle, lowest floor $f_idle; max HWP min now $m_idle"
	check "sleep lets util fall (< busy/2)" [ "${u_idle:-9999}" -lt $((u_busy / 2)) ]
	check "sleep lets the floor fall (< busy/2)" [ "${f_idle:-9999}" -lt $((f_busy / 2)) ]

	# Decision counters moved: records reached `start` through `events`.
	fc=$(max_field floor_changes)
	check "floor decisions made ($fc)" [ "${fc:-0}" -gt 0 ]

	# A steady load draws few floor records. A pinned ping-pong's CPU is
	# idle for moments between its tasks; a floor held for it asked each
	# run for a record that the loader, woken by it, found idle again, and
	# asked again: 49 records per CPU a second in this check, 197 in the
	# timed bench, 1,149 to 2,316 in the counted one, each a wake-up of
	# the loader. With such a CPU's held floor left to a check that finds
	# it running: 3 here. At most 20.
	fd0=$($GOV status --json | sed -n 's/.*"floor_decisions":\([0-9]*\).*/\1/p')
	$BENCH pingpong 3 pin > /dev/null
	fd1=$($GOV status --json | sed -n 's/.*"floor_decisions":\([0-9]*\).*/\1/p')
	fdr=$(( (${fd1:-0} - ${fd0:-0}) / 3 / $(nproc) ))
	diag "pinned ping-pong: $(( ${fd1:-0} - ${fd0:-0} )) floor records in 3 s; held floors left to a running check: $($GOV status --json | sed -n 's/.*"held_floor_waits":\([0-9]*\).*/\1/p')"
	check "pinned ping-pong: at most 20 floor records per CPU a second ($fdr)" [ -n "$fd1" -a "$fdr" -le 20 ]
	$BENCH threads 4 1 > /dev/null
	wait $tpid
	nt=$(grep -c '"kind"' /tmp/tail.json)
	diag "tail --json got $nt records; first: $(head -n1 /tmp/tail.json)"
	check "tail --json receives decision records" [ "$nt" -ge 1 ]

	# Next timer at idle entry. The scheduler's idle entry is dispatch()
	# finding nothing, while the tick still runs: an hrtimer due before
	# the tick is the next timer, the tick itself reads as unknown (0). A
	# sleeper on CPU 1 whose timer is due every 2 ms (the tick at HZ 250
	# is 4 ms away at most): its idle periods carry a next timer, at most
	# one period away.
	check "status names the next-timer source (before the tick)" \
		sh -c "$GOV status --json | grep -q '\"next_timer\":\"hrtimer_cpu_base via tracepoint, before the tick\"'"
	/bin/bpfgov-work periodic --hz 500 --load 10 --duration 4 --cpu 1 > /dev/null 2>&1 &
	ppid=$!
	sleep 1
	timeout 10 $GOV tail --all --json --cpu 1 --count 300 > /tmp/nt.json 2>/dev/null
	wait $ppid
	grep '"kind":"idle_exit"' /tmp/nt.json | sed -n 's/.*"next_timer_us":\([0-9.]*\).*/\1/p' > /tmp/nt.us
	ne=$(grep -c '"kind":"idle_exit"' /tmp/nt.json)
	nk=$(awk '$1 > 0' /tmp/nt.us | wc -l)
	nin=$(awk '$1 > 0 && $1 <= 2100' /tmp/nt.us | wc -l)
	diag "next timer: $nk of $ne idle exits on CPU 1 carry one, $nin within the sleeper's 2000 us; first: $(head -n 5 /tmp/nt.us | tr '\n' ' ')"
	check "idle exits on CPU 1 carry a next timer ($nk of $ne)" [ "$nk" -gt 0 ]
	check "next timers are within the sleeper's period ($nin of $nk)" [ "$((nin * 10))" -ge "$((nk * 9))" ]

	stop_gov; r=$?
	check "stop: govloader exits 0" [ $r = 0 ]
	check "stop: state back to disabled" wait_for 5 is_state disabled
	now_req=$(msr_req 0)
	diag "HWP_REQUEST cpu0 before $orig after $now_req"
	check "stop: HWP_REQUEST restored byte-exact" [ "$now_req" = "$orig" ]
	grep -q 'restored' $LOG && ok "stop: govloader reports the restore" ||
		{ nok "stop: govloader reports the restore"; dump_log; }
fi

if want error && [ -x $GOV_TEST ]; then
	make_msr
	orig=$(msr_req 0)
	: > $LOG
	$GOV_TEST start --mode scx --msr-root $MSR --backend intel-hwp --test-scx-error-after 3 > $LOG 2>&1 &
	gpid=$!
	wait_for 120 gov_up_or_dead
	is_enabled_bpfgov && ok "error test: attached" || nok "error test: attached"
	# The error is raised from ops.tick, which only runs on a busy CPU:
	# keep both CPUs busy past the 3 s trigger (an idle nohz guest may
	# otherwise not tick for a minute).
	$BENCH spin 2 8 > /dev/null &
	bpid=$!
	wait $gpid
	grc=$?
	diag "govloader rc=$grc, state $(state)"
	dump_log 8
	check "BPF error: govloader exits non-zero" [ $grc != 0 ]
	check "BPF error: kernel ejected the scheduler (state disabled)" wait_for 5 is_state disabled
	check "BPF error: reason reported (scx_bpf_error + message)" \
		sh -c "grep -q 'scx_bpf_error' $LOG && grep -q 'test-only error' $LOG"
	check "BPF error: HWP_REQUEST restored" [ "$(msr_req 0)" = "$orig" ]
	check "BPF error: kernel log names the error" sh -c "dmesg | grep -q 'bpfgov.*disabled (scx_bpf_error)'"
	wait $bpid
fi

# A scheduler reload (--restart) keeps the loader's state map: the pinned
# loader_state after the reload is the one the loader writes (its pid,
# its count of restarts).
if want restart && [ -x $GOV_TEST ]; then
	make_msr
	: > $LOG
	$GOV_TEST start --mode scx --msr-root $MSR --backend intel-hwp --restart \
		--test-scx-error-after 3 > $LOG 2>&1 &
	gpid=$!
	wait_for 120 gov_up_or_dead
	$BENCH spin 2 8 > /dev/null &
	bpid=$!
	check "restart: the scheduler is reloaded after its error" \
		wait_for 60 grep -q 'restarting the scheduler (1/5)' $LOG
	check "restart: attached again" wait_for 60 is_enabled_bpfgov
	restarted() { $GOV status --json 2>/dev/null | grep -q "\"actuator\":{\"pid\":$gpid,.*\"scx_restarts\":[1-5],"; }
	check "restart: status reads the same state map (pid $gpid, scx_restarts >= 1)" \
		wait_for 30 restarted
	dump_log 6
	$GOV stop --timeout 20 > /dev/null 2>&1
	wait $gpid 2>/dev/null
	wait $bpid
fi

if want stress && [ -x $GOV ]; then
	make_msr
	if start_gov; then
		# 8 spinners + 16 sleepy workers on 2 CPUs for 20 s: the watchdog
		# (10 s timeout) fires if any runnable task waits too long.
		$BENCH spin 8 20 > /tmp/spin.out &
		p1=$!
		$BENCH threads 16 20 > /tmp/thr.out &
		p2=$!
		wait $p1 $p2
		diag "stress: $(cat /tmp/spin.out) / $(cat /tmp/thr.out)"
		check "stress: still enabled after 20 s overload" is_enabled_bpfgov
		check "stress: govloader still running" alive $gpid
		check "stress: no watchdog/stall exit" sh -c "! dmesg | grep sched_ext | grep -qi 'stall\|watchdog'"
		stop_gov
		check "stress: clean stop" wait_for 5 is_state disabled
	else
		nok "stress: attach"; dump_log
	fi
fi

if want kill9 && [ -x $GOV ]; then
	# The loader dies without restoring: the kernel must unload the
	# scheduler (its struct_ops link dies with the process) and
	# `govloader restore` must put the MSR and PM QoS back from the journal.
	make_msr
	orig=$(msr_req 1)
	qos_orig=$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us 2>/dev/null)
	if start_gov; then
		$BENCH spin 2 3 > /dev/null &
		bpid=$!
		sleep 2
		moved=$(msr_req 1)
		kill -9 $gpid
		wait $gpid 2>/dev/null
		wait $bpid
		diag "HWP_REQUEST cpu1 before $orig, at kill $moved, now $(msr_req 1)"
		check "kill -9: the floor had moved the MSR" [ "$moved" != "$orig" ]
		check "kill -9: kernel unloads the scheduler (state disabled)" wait_for 10 is_state disabled
		check "kill -9: the journal survives" [ -s /run/bpfgov/journal ]
		$GOV restore --msr-root $MSR > /tmp/restore.log 2>&1
		r=$?
		sed 's/^/#   /' /tmp/restore.log
		check "kill -9: restore exits 0" [ $r = 0 ]
		check "kill -9: HWP_REQUEST restored byte-exact" [ "$(msr_req 1)" = "$orig" ]
		check "kill -9: PM QoS restored" [ "$(cat /sys/devices/system/cpu/cpu*/power/pm_qos_resume_latency_us 2>/dev/null)" = "$qos_orig" ]
		check "kill -9: journal removed" [ ! -e /run/bpfgov/journal ]
	else
		nok "kill -9: attach"; dump_log
	fi
fi

if want partial && [ -x $GOV ]; then
	make_msr
	if start_gov --scx-partial; then
		ok "partial: attached"
		check "partial: switch_all is 0" [ "$(cat $SCX/switch_all)" = 0 ]
		out=$($BENCH ext 2 2>&1)
		diag "SCHED_EXT task: $(echo $out)"
		check "partial: a SCHED_EXT task runs under bpfgov" sh -c "echo '$out' | grep -q '^ext [1-9]'"
		stop_gov
		check "partial: clean stop" wait_for 5 is_state disabled
	else
		nok "partial: attached"; dump_log
	fi
fi

# fair: CPU shares under weights, the default scheduler and bpfgov's in
# this boot.  Two hogs share CPU 1 (taskset-style pinning): nice 0 against
# nice 10 (weights 1024 : 110), then one hog in each of two cgroups with
# cpu.weight 400 and 100.  Each share is printed with the goal "within
# 10 % of the weight ratio"; the assertion is looser (nice >= 4 : 1,
# cgroups >= 2 : 1), so the ordering by weight cannot regress unseen.
# The heavy hog sits one level down (fair-hi/in, weight 100, its parent's
# only child), so the share is its parent's: the flattened hierarchy.
# Under bpfgov its parent's weight is 200 when the scheduler starts (its
# cgroup_init) and set to 400 while it runs (cgroup_set_weight).
CG=/sys/fs/cgroup
# fair_share CONFIG KIND SPEC-A SPEC-B WANT: one measurement, a "BF" line
# (config kind ms-a ms-b ratio want) and a line for people; sets $ratio.
fair_share() {
	out=$($BENCH share $FAIR_SECS 1 "$3" "$4" 2>&1)
	set -- "$1" "$2" "$3" "$4" "$5" $out
	ratio=${9:-0}
	echo "BF $1 $2 $7 $8 $ratio $5"
	diag "fair: $1: $2: ${3#*:} gets ${7:-?} ms, ${4#*:} ${8:-?} ms: ratio $ratio (weights $5): goal within 10 %:" \
		"$(awk -v r=$ratio -v w=$5 'BEGIN { d = r / w - 1; if (d < 0) d = -d; print (d <= 0.10 ? "met" : "not met") }')"
}
fair_run() { # CONFIG: sets $r_nice, $r_cg
	fair_share $1 nice nice:0 nice:10 9.309; r_nice=$ratio
	if [ -d $CG/fair-hi ]; then
		fair_share $1 cgroup cg:$CG/fair-hi/in cg:$CG/fair-lo 4.000; r_cg=$ratio
	else
		r_cg=0
	fi
}
if want fair && [ -x $GOV ]; then
	cg_ok=0
	if [ -f $CG/cgroup.controllers ] && grep -qw cpu $CG/cgroup.controllers; then
		echo +cpu > $CG/cgroup.subtree_control 2>/dev/null
		mkdir -p $CG/fair-hi $CG/fair-lo
		echo +cpu > $CG/fair-hi/cgroup.subtree_control 2>/dev/null
		mkdir -p $CG/fair-hi/in
		echo 400 > $CG/fair-hi/cpu.weight && echo 100 > $CG/fair-lo/cpu.weight &&
			[ -f $CG/fair-hi/in/cpu.weight ] && cg_ok=1
	fi
	[ $cg_ok = 1 ] || { diag "fair: no cgroup2 cpu controller: cgroup shares not measured"
		rmdir $CG/fair-hi/in $CG/fair-hi $CG/fair-lo 2>/dev/null; }
	fair_run default
	make_msr
	[ $cg_ok = 1 ] && echo 200 > $CG/fair-hi/cpu.weight
	if start_gov; then
		[ $cg_ok = 1 ] && echo 400 > $CG/fair-hi/cpu.weight
		fair_run bpfgov
		check "fair: bpfgov: nice 0 : nice 10 on one CPU >= 4 : 1 ($r_nice)" \
			awk "BEGIN { exit !($r_nice >= 4) }"
		[ $cg_ok = 1 ] && check "fair: bpfgov: cpu.weight 400 : 100 on one CPU >= 2 : 1 ($r_cg)" \
			awk "BEGIN { exit !($r_cg >= 2) }"
		# Weights must not starve anyone past the watchdog (10 s): two
		# hogs at nice -20 and one at nice 19 (88761 : 88761 : 15) for 12 s.
		out=$($BENCH share 12 1 nice:-20 nice:-20 nice:19 2>&1)
		set -- $out
		diag "fair: bpfgov: nice -20, -20, 19 for 12 s: ${2:-?} ms, ${3:-?} ms, ${4:-?} ms (weights 5917 : 5917 : 1)"
		low_ran() { [ "${1%.*}" -gt 0 ] 2>/dev/null; }
		check "fair: bpfgov: nice -20, -20, 19 for 12 s: the nice 19 hog runs (${4:-?} ms)" low_ran "${4:-0}"
		check "fair: still enabled (no watchdog exit)" is_enabled_bpfgov
		stop_gov
		check "fair: clean stop" wait_for 5 is_state disabled
	else
		nok "fair: attach"; dump_log
	fi
	rmdir $CG/fair-hi/in $CG/fair-hi $CG/fair-lo 2>/dev/null
fi

# The idle groups run the project's own bash tests from the tree copied
# into /src (tests/vm/vm.mk: IDLE_VM_FILES), on a cpuidle driver that the
# boot gives the guest (tests/vm/mkacpi-cst.sh: acpi_idle, POLL + C1 HLT).
# relay PREFIX SUITE RC < OUTPUT: a bash suite's "ok"/"not ok" lines become
# this script's, its "#" lines pass through; then its summary and exit
# status, each a check: a suite that crashed, stopped early or skipped
# before its summary fails here, as one whose status disagrees with it.
relay() {
	r_np=0 r_nf=0 r_sum=
	while IFS= read -r l; do
		case "$l" in
		"ok "*) ok "$1${l#ok * - }"; r_np=$((r_np + 1)) ;;
		"not ok "*) nok "$1${l#not ok * - }"; r_nf=$((r_nf + 1)) ;;
		"#"*) echo "$l" ;;
		[0-9]*" passed, "[0-9]*" failed") r_sum=$l ;;
		esac
	done
	diag "$1$2: exit status $3, summary '${r_sum:-none}'"
	check "$1$2: ran to its summary, which counts the $((r_np + r_nf)) lines relayed" \
		[ "$r_sum" = "$r_np passed, $r_nf failed" -a $((r_np + r_nf)) -gt 0 ]
	if [ "$r_nf" = 0 ]; then
		check "$1$2: exit status 0 (got $3)" [ "$3" = 0 ]
	else
		check "$1$2: exit status non-zero after a failure (got $3)" [ "$3" != 0 ]
	fi
}
# run_suite PREFIX SUITE: tests/integration/SUITE from /src, live parts
# required (TEST_LIVE=1), relayed; a suite missing from the image fails.
run_suite() {
	if [ -x /src/govloader ] && [ -r /src/tests/integration/$2 ]; then
		(cd /src && TEST_LIVE=1 PATH=/usr/bin:/bin:/sbin bash tests/integration/$2 > /tmp/suite.out 2>&1)
		relay "$1" "$2" $? < /tmp/suite.out
	else
		nok "$1$2: in the image (/src/govloader, /src/tests/integration/$2)"
	fi
}
idle_driver_ok() {
	d=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)
	[ -n "$d" ] && [ "$d" != none ] &&
		[ "$(cat /sys/devices/system/cpu/cpu0/cpuidle/state0/name 2>/dev/null)" = POLL ]
}
# Multi-threaded TCG (VM_ACCEL=tcg,thread=multi: one host thread per
# vCPU, so a polling vCPU does not take the other's time) oopses on an
# int3 when kernel text is patched while another vCPU runs it
# (tests/vm/run.sh). Attaching bpfgov to a tracepoint with no probe flips
# its static key, and with one probe re-points its static call: both
# patch the call sites. So hold two probes on each from here on: the
# tracefs event, enabled with tracing off, and an empty BPF program
# (tests/vm/hold.bpf.c, pinned links). bpfgov's attach and detach then
# only swap the probe array. Each event costs two early returns more,
# the same in every configuration.
hold_tracepoints() {
	T=/sys/kernel/tracing
	if [ -d $T/events ]; then
		echo 0 > $T/tracing_on
		for e in power/cpu_idle timer/hrtimer_expire_entry irq_vectors/local_timer_entry sched/sched_waking; do
			echo 1 > $T/events/$e/enable 2>/dev/null || diag "idle: cannot hold tracepoint $e"
		done
	fi
	if [ -s /src/hold.bpf.o ]; then
		/usr/bin/bpftool prog loadall /src/hold.bpf.o /sys/fs/bpf/hold autoattach 2>/tmp/hold.err ||
			diag "idle: cannot hold the tracepoints with /src/hold.bpf.o: $(tail -n 3 /tmp/hold.err | tr '\n' ' ')"
		diag "idle: tracepoints held by $(ls /sys/fs/bpf/hold 2>/dev/null | wc -l) pinned programs and tracefs"
	fi
}
if want idle || want livebench || want scxidle; then
	if idle_driver_ok; then
		diag "idle: driver $(cat /sys/devices/system/cpu/cpuidle/current_driver)," \
			"governors $(cat /sys/devices/system/cpu/cpuidle/available_governors)," \
			"states $(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name | tr '\n' ' ')"
		hold_tracepoints
	else
		nok "idle: a cpuidle driver with a POLL state (got $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null))"
		groups=$(echo " $groups " | sed 's/ idle / /; s/ livebench / /; s/ scxidle / /')
	fi
fi
if want idle; then
	# As `make check` runs them on a host with a driver: the live
	# stuck-poll test (a burst that polls, then a quiet machine after it
	# and after a timer load), the idle actuation test (a polling pick
	# on the real PM QoS, set under load and released after) and the
	# governor switch of --idle-governor (ladder or menu, put back).
	run_suite "idle: " test_stuck_poll.sh
	run_suite "idle: " test_idle.sh
	run_suite "idle: " test_idle_governor.sh
fi
# Sums over the CPUs: the kernel's count or time (us) of idle state K,
# and a per-CPU field of `status --json`.
idle_sum() { # state field
	cat /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state$1/$2 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
gov_sum() { # field
	$GOV status --json 2>/dev/null | tr '{' '\n' | grep '^"cpu":' |
		sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
# within A B PCT ABS: |A - B| <= PCT % of B + ABS.
within() { awk -v a="$1" -v b="$2" -v p="$3" -v m="$4" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100 + m) }'; }
idle_snap() { # prefix: the kernel's usage and time of POLL and C1, bpfgov's entries and poll time
	eval "${1}u0=$(idle_sum 0 usage) ${1}u1=$(idle_sum 1 usage) ${1}t0=$(idle_sum 0 time) ${1}t1=$(idle_sum 1 time)"
	eval "${1}e=$(gov_sum idle_entries) ${1}p=$(gov_sum poll_ms)"
}
if want scxidle && [ -x $GOV ]; then
	# sched_ext mode on a cpuidle driver: the states the kernel's governor
	# entered (POLL and C1 here) are what bpfgov books, as the kernel
	# counts them: idle entries = POLL + C1 usage, poll time = POLL time;
	# and a poll that ran into the kernel's time limit is learned as such.
	make_msr
	if start_gov; then
		ok "scxidle: start --mode scx on $(cat /sys/devices/system/cpu/cpuidle/current_driver)"
		sleep 1
		idle_snap a_
		# Short idles (ping-pong), a quiet machine, and polling forced
		# by a global PM QoS request (0 us) on quiet CPUs, which ends
		# each poll at the kernel's time limit.
		/bin/bpfgov-work pingpong --work-us 20 --duration 2 > /dev/null 2>&1
		sleep 2
		exec 3> /dev/cpu_dma_latency
		echo 0 >&3
		sleep 1
		exec 3>&-
		sleep 1
		idle_snap b_
		du0=$((b_u0 - a_u0)) du1=$((b_u1 - a_u1)) dt0=$((b_t0 - a_t0)) dt1=$((b_t1 - a_t1))
		de=$((b_e - a_e)) dp_us=$(((b_p - a_p) * 1000))
		diag "scxidle: kernel: POLL $du0 entries $dt0 us, C1 $du1 entries $dt1 us; bpfgov: $de entries, poll $dp_us us"
		check "scxidle: both states entered (POLL $du0, C1 $du1)" [ "$du0" -gt 0 -a "$du1" -gt 0 ]
		check "scxidle: idle entries booked = POLL + C1 entries ($de vs $((du0 + du1)), 5 % + 50)" \
			within "$de" "$((du0 + du1))" 5 50
		check "scxidle: poll time booked = POLL time ($dp_us vs $dt0 us, 10 % + 20 ms)" \
			within "$dp_us" "$dt0" 10 20000
		pl=$($GOV status --json 2>/dev/null | tr '{' '\n' | grep '^"cpu":' | grep -c '"poll_limit_us":[0-9]')
		check "scxidle: polls that ran into the kernel's limit are learned ($pl CPUs with a poll limit)" [ "$pl" -gt 0 ]
		stop_gov
		check "scxidle: clean stop" wait_for 5 is_state disabled
	else
		nok "scxidle: start --mode scx on $(cat /sys/devices/system/cpu/cpuidle/current_driver)"
		dump_log 30
	fi
fi

if want livebench && [ -x /src/govloader ]; then
	# `make bench`'s live idle judge (tests/bench/live.sh) in this boot.
	(cd /src && PATH=/usr/bin:/bin:/sbin BENCH_DOC=- BENCH_OUT=/tmp/bench BENCH_QUIET_WAIT=0 \
		BENCH_LIVE_ROUNDS=$LIVE_ROUNDS BENCH_LIVE_GOVOPT="$BENCH_GOVOPT" BENCH_LIVE_TIE_PERF_PCT=10 \
		BENCH_LIVE_VARIANT="$LIVE_VARIANT" \
		bash tests/bench/run.sh live 2>&1 | sed 's/^/LB /')
	check "livebench: the live judge wrote its table" [ -s /tmp/bench/live.json ]
	echo "LB-JSON $(tr -d '\n' < /tmp/bench/live.json)"
	echo "LB-CMDS-BEGIN"; cat /tmp/bench/cmds.live 2>/dev/null; echo "LB-CMDS-END"
	# The recorded traces, for replay on the host (tests/vm/bench-idle-report.sh).
	echo "LB-TRACES-BEGIN"
	(cd /tmp/bench && tar -cz live-*.trace 2>/dev/null) | base64
	echo "LB-TRACES-END"
fi

if want bench; then
	# Side by side in this boot: tests/vm/guest-bench.sh.
	. /tests/guest-bench.sh
fi

dmesg | grep 'sched_ext' | sed 's/^/# dmesg: /' | tail -n 20
echo "$pass passed, $fail failed"
[ $fail = 0 ]
