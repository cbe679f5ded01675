# SPDX-License-Identifier: GPL-2.0
# Helpers for tests/bench/run.sh: numbers (jq/awk), the governor under
# benchmark, host facts and the restore-everything exit path.
# Sourced by run.sh; expects TOP, GOV, LAB, WORK, PIN, OUT to be set.

# The line that names a run in the blocks it writes (prov_line).
. "$(dirname "${BASH_SOURCE[0]}")/provenance.sh"

# ---------------------------------------------------------------- output

say()  { printf '%s\n' "$*"; }
hdr()  { printf '\n== %s\n' "$*"; }
warn() { printf 'bench: %s\n' "$*" >&2; }

# logrun SECTION COMMAND...: run a command and remember it, once, as the
# exact command behind a number (docs/BENCHMARKS.md lists them per section).
logrun() {
	note_cmd "$1" "$(shift; echo "$*")"
	shift
	"$@"
}
# note_cmd SECTION "text": a command line for the doc (deduplicated).
note_cmd() {
	touch "$OUT/cmds.$1"
	grep -qxF -- "$2" "$OUT/cmds.$1" || printf '%s\n' "$2" >>"$OUT/cmds.$1"
}

# ---------------------------------------------------------------- numbers

# proc_cpu_ns PID: the CPU time of all a process's threads in ns, from the
# kernel's own account (schedstat, one file per thread): /proc/PID/stat
# counts 10 ms ticks, more than the loader spends in a few seconds.
# -1 where the kernel keeps no schedstat (no figure, not 0).
proc_cpu_ns() {
	local t v ns=-1
	for t in /proc/"$1"/task/*/schedstat; do
		read -r v _ 2>/dev/null <"$t" && ns=$((ns < 0 ? v : ns + v))
	done
	echo "$ns"
}
# now_s: CLOCK_MONOTONIC-like seconds with a fraction (uptime).
now_s() { cut -d' ' -f1 /proc/uptime; }

# JQ_MED: the median as a jq function, `med` (nulls left out; none -> null),
# for the jq programs of the bench to put in front of their own.
JQ_MED='def med: map(select(. != null)) | sort |
	if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;'
# median of numbers given as arguments (empty -> null)
median() { printf '%s\n' "$@" | jq -s "$JQ_MED med"; }
# fmt X [DECIMALS]: round for printing; "null"/"" -> "n/a"
fmt() {
	local x=${1:-null} d=${2:-1}
	if [ "$x" = null ] || [ -z "$x" ]; then echo "n/a"; return; fi
	awk -v x="$x" -v d="$d" 'BEGIN { printf "%.*f\n", d, x }'
}
# calc EXPR: floating point arithmetic via awk ("null" in -> "null" out)
calc() {
	case "$*" in *null*) echo null; return;; esac
	awk "BEGIN { v = $*; printf \"%.6g\n\", v }"
}
# le A B / ge A B: numeric comparisons that fail on "null"
le() { [ "$1" != null ] && [ "$2" != null ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
ge() { [ "$1" != null ] && [ "$2" != null ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
lt() { [ "$1" != null ] && [ "$2" != null ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# ---------------------------------------------------------------- host

load1() { cut -d' ' -f1 /proc/loadavg; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# cpu_busy_pct, wait_quiet, busiest: tests/host.sh (nothing of ours runs
# while they sample: what they see is what others use).
. "$(dirname "${BASH_SOURCE[0]}")/../host.sh"

no_foreign_progs() { [ "$(foreign_progs)" = 0 ]; }

# quiet SECTION: wait (up to $QUIET_WAIT s) until other work uses < 10% of
# the CPUs and no other bpfgov programs are loaded, then record what was
# seen in $OUT/quiet.jsonl.
quiet() {
	wait_quiet "$QUIET_WAIT" no_foreign_progs
	jq -nc --arg s "$1" --argjson b "$QUIET_BUSY" --argjson w "$QUIET_WAITED" --arg l "$(loadavg)" \
		--argjson f "$(foreign_progs)" \
		'{section: $s, busy_pct: $b, waited_s: $w, load: $l, foreign_progs: $f}' >>"$OUT/quiet.jsonl"
	say "  (before the section: other work used $(fmt "$QUIET_BUSY" 0)% of the CPUs, waited $QUIET_WAITED s, load $(loadavg), other bpfgov programs: $(foreign_progs))"
	lt "$QUIET_BUSY" 10 || say "  (busiest: $(busiest | paste -sd ';' -))"
}

# after_section SECTION: other work just after the section, same file.
after_section() {
	local b
	b=$(cpu_busy_pct)
	jq -nc --arg s "$1" --argjson b "$b" '{section: $s, after_pct: $b}' >>"$OUT/quiet.jsonl"
	say "  (after the section: other work used $(fmt "$b" 0)% of the CPUs)"
}

CPUIDLE=/sys/devices/system/cpu/cpuidle
idle_driver()   { cat "$CPUIDLE/current_driver" 2>/dev/null || echo none; }
idle_governor() { cat "$CPUIDLE/current_governor" 2>/dev/null || cat "$CPUIDLE/current_governor_ro" 2>/dev/null || echo none; }
idle_governors() { echo $(cat "$CPUIDLE/available_governors" 2>/dev/null); }
nr_cpus() { local r; r=$(cat /sys/devices/system/cpu/possible); echo $(( ${r##*-} + 1 )); }

# BPF programs named bpfgov_* that are not ours (another instance, another
# test): they would run on every context switch of every measurement.
foreign_progs() {
	local mine
	mine=$(our_map_id)
	bpftool prog show -j 2>/dev/null | jq --argjson m "${mine:-0}" \
		'[.[] | select((.name // "") | startswith("bpfgov_")) |
		  select(((.map_ids // []) | index($m)) | not)] | length'
}

# ---------------------------------------------------------------- governor

GOV_PID=
GOV_LOG=
GOV_WRAP=()	# e.g. (chrt -f 10): a command the loader runs under

# gov_up NAME ARGS...: start `govloader start --pin-root $PIN ARGS` in the
# background (log $OUT/NAME.log) and wait until `status` answers (15 s).
gov_up() {
	local name=$1 i
	shift
	GOV_LOG=$OUT/$name.log
	[ -n "${SEC:-}" ] && note_cmd "$SEC" "${GOV_WRAP[*]}${GOV_WRAP[*]:+ }./govloader start --pin-root $PIN${*:+ }$*"
	"${GOV_WRAP[@]}" "$GOV" start --pin-root "$PIN" "$@" >"$GOV_LOG" 2>&1 &
	GOV_PID=$!
	for i in $(seq 1 150); do
		if [ -e "$PIN/cpu_state" ] &&
		   "$GOV" status --json --pin-root "$PIN" 2>/dev/null | jq -e '.mode != "none"' >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$GOV_PID" 2>/dev/null || break
		sleep 0.1
	done
	warn "govloader start did not come up ($*); its log:"
	sed 's/^/  /' "$GOV_LOG" >&2
	gov_down
	return 1
}

# gov_down: SIGTERM our instance and wait until it has restored and exited.
gov_down() {
	[ -n "$GOV_PID" ] || return 0
	if kill -0 "$GOV_PID" 2>/dev/null; then
		kill -TERM "$GOV_PID" 2>/dev/null
	fi
	wait "$GOV_PID" 2>/dev/null
	GOV_PID=
}

gov_status() { "$GOV" status --json --pin-root "$PIN" 2>/dev/null; }

our_map_id() {
	[ -e "$PIN/cpu_state" ] || return 0
	bpftool map show pinned "$PIN/cpu_state" -j 2>/dev/null | jq -r '.id // empty'
}

# prog_stats: {name: {run_time_ns, run_cnt}} of our instance's programs.
prog_stats() {
	local m
	m=$(our_map_id)
	bpftool prog show -j 2>/dev/null | jq -c --argjson m "${m:-0}" \
		'[.[] | select((.name // "") | startswith("bpfgov_")) |
		  select((.map_ids // []) | index($m))] |
		 map({key: .name, value: {run_time_ns: (.run_time_ns // 0), run_cnt: (.run_cnt // 0)}}) |
		 from_entries'
}

# The machine's floor for one program run: minimal programs on the same
# tracepoints (tests/bench/ref.bpf.c, built into build/bench/), attached
# beside ours while bpf_stats counts. REF_DIR holds their pinned links.
REF_OBJ=build/bench/ref.bpf.o
REF_DIR=
ref_up() {
	[ -s "$REF_OBJ" ] || { warn "no $REF_OBJ (make all builds it): no reference"; return 1; }
	REF_DIR=$PIN-ref
	rm -rf "$REF_DIR"
	if ! bpftool prog loadall "$REF_OBJ" "$REF_DIR" autoattach >/dev/null 2>&1; then
		warn "cannot load the reference programs ($REF_OBJ)"
		ref_down
		return 1
	fi
}
# ref_min_up: one minimal program per tracepoint bpfgov uses (the clock
# readers, and the empty sched_waking one): the least a governor on these
# events can attach, for the ping-pong ratio it costs by itself.
ref_min_up() {
	ref_up || return 1
	rm -f "$REF_DIR/ref_idle_empty" "$REF_DIR/ref_tick_empty"
}
ref_down() {
	[ -n "$REF_DIR" ] && rm -rf "$REF_DIR"
	REF_DIR=
}
# ref_stats: {name: {run_time_ns, run_cnt}} of the reference programs.
ref_stats() {
	local f ids=()
	[ -n "$REF_DIR" ] || { echo '{}'; return; }
	for f in "$REF_DIR"/*; do
		[ -e "$f" ] && ids+=("$(bpftool link show pinned "$f" -j 2>/dev/null | jq -r '.prog_id // empty')")
	done
	bpftool prog show -j 2>/dev/null | jq -c --argjson ids "$(printf '%s\n' "${ids[@]}" | jq -s 'map(select(. != null))')" \
		'[.[] | select(.id as $i | $ids | index($i))] |
		 map({key: .name, value: {run_time_ns: (.run_time_ns // 0), run_cnt: (.run_cnt // 0)}}) |
		 from_entries'
}

# ---------------------------------------------------------------- restore

ORIG_GOVERNOR=
ORIG_BPF_STATS=
QOS_SAVED=()
BG_PIDS=()

save_qos() {
	local c f
	QOS_SAVED=()
	for c in $(seq 0 $(($(nr_cpus) - 1))); do
		f=/sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us
		[ -w "$f" ] && QOS_SAVED+=("$f=$(cat "$f")")
	done
}
restore_qos() {
	local e
	for e in "${QOS_SAVED[@]}"; do
		printf '%s\n' "${e#*=}" >"${e%%=*}" 2>/dev/null
	done
	QOS_SAVED=()
}

set_governor() {
	printf '%s\n' "$1" >"$CPUIDLE/current_governor" 2>/dev/null &&
		[ "$(idle_governor)" = "$1" ]
}

bench_cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	gov_down
	ref_down
	restore_qos
	declare -F live_restore_hp >/dev/null && live_restore_hp
	if [ -n "$ORIG_GOVERNOR" ] && [ "$(idle_governor)" != "$ORIG_GOVERNOR" ]; then
		set_governor "$ORIG_GOVERNOR" || warn "could not restore cpuidle governor $ORIG_GOVERNOR"
	fi
	if [ -n "$ORIG_BPF_STATS" ]; then
		sysctl -q -w kernel.bpf_stats_enabled="$ORIG_BPF_STATS" >/dev/null 2>&1
	fi
}
