#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every bpfgov test and print one closing line "N passed, N failed".
#   tests/run-all.sh [unit|workloads|integration|fuzz|vm ...]   (default: all)
# Unit tests are cmocka programs (each prints its own summary); the shell
# suites print TAP-style lines and their own "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/host.sh
. tests/machine.sh
BUILD=${BUILD:-build}
# Seconds each workload or integration suite waits for other work to
# leave the CPUs (their checks watch what idle CPUs do); once such work
# outlasted a wait, the next suites only look (it is not leaving).
QUIET_WAIT=${TEST_QUIET_WAIT:-60}
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(unit workloads integration fuzz vm)
pass=0
fail=0
failed=()
# What a suite's checks look at, for the split above the closing line:
# surfaces (text, options, docs, parsers, the tree) or behaviour (a
# governor's decision, an actuated file, a map, a live CPU). A suite not
# named here checks behaviour.
SURFACE_SUITES=" unit/test_cli unit/test_config integration/test_bad_input integration/test_config
	integration/test_deploy integration/test_docs integration/test_json integration/test_layout
	integration/test_man integration/test_plot integration/test_reports integration/test_suites integration/test_unit fuzz tree "
declare -A kind_pass=([behaviour]=0 [surfaces]=0) kind_fail=([behaviour]=0 [surfaces]=0)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The tests leave nothing in the tree: every fixture lives under $BUILD or
# a mktemp directory. Compared before and after, so local edits are fine.
tree_state() { git status --porcelain --untracked-files=all 2>/dev/null; }
tree_before=$(tree_state)
# ... and the machine as they found it (tests/machine.sh): each suite starts
# from the mounts the run started from.
machine_before=$(machine_state)

want() { local s; for s in "${suites[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# account NAME RC: add the counts of the last run (from $log) to the totals.
account() {
	local name=$1 rc=$2 p f line
	if line=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | tail -n1) && [ -n "$line" ]; then
		# cmocka
		p=$(echo "$line" | grep -oE '[0-9]+' | head -n1)
		f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | tail -n1 | grep -oE '[0-9]+' | head -n1)
		f=${f:-0}
	elif line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1) && [ -n "$line" ]; then
		p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
		f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
	else
		p=0
		f=1	# a suite that died before its summary counts as a failure
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	local kind=behaviour
	case "$SURFACE_SUITES" in *[[:space:]]"$name"[[:space:]]*) kind=surfaces ;; esac
	kind_pass[$kind]=$((kind_pass[$kind] + p))
	kind_fail[$kind]=$((kind_fail[$kind] + f))
	[ "$f" -ne 0 ] && failed+=("$name")
	echo "== $name: $p passed, $f failed"
}

run() { # NAME CMD...
	local name=$1 rc
	shift
	echo "== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	account "$name" "$rc"
	machine_settle "$machine_before"
}

if want unit; then
	for t in "$BUILD"/tests/test_*; do
		[ -x "$t" ] || continue
		case "$t" in *.o|*.d) continue ;; esac
		run "unit/$(basename "$t")" "$t"
	done
fi
if want workloads; then
	settle workloads "$QUIET_WAIT" || QUIET_WAIT=0
	run "workloads" bash tests/workloads/test_workloads.sh "$BUILD/bpfgov-work"
fi
if want integration; then
	for t in tests/integration/test_*.sh; do
		settle "integration/$(basename "$t" .sh)" "$QUIET_WAIT" || QUIET_WAIT=0
		run "integration/$(basename "$t" .sh)" bash "$t"
	done
fi
if want fuzz; then
	run "fuzz" bash tests/fuzz/run.sh
fi
if want vm; then
	if [ -f tests/vm/run.sh ]; then
		run "vm" make --no-print-directory check-vm
		# A guest with a cpuidle driver (POLL + C1): the live stuck-poll test.
		run "vm-idle" make --no-print-directory check-vm-idle
		# The oldest kernel of the matrix (docs/KERNELS.md): trace mode.
		run "vm-6.1" make --no-print-directory check-kernels KERNELS=6.1
		# ... and its live stuck-poll test, with a cpuidle driver
		run "vm-idle-6.1" make --no-print-directory check-vm-idle IDLE_KERNEL="$BUILD/vm-6.1/vmlinuz"
	fi
fi

# same NAME BEFORE AFTER OK NOT_OK: one counted check that AFTER is BEFORE
# ("ok 1 - OK"), or "not ok 1 - NOT_OK:" with the lines that differ.
same() {
	echo "== $1"
	if [ "$3" = "$2" ]; then
		printf 'ok 1 - %s\n1 passed, 0 failed\n' "$4" >"$log"
	else
		{
			echo "not ok 1 - $5:"
			diff <(echo "$2") <(echo "$3") | sed -n 's/^[<>] /#   &/p'
			echo "0 passed, 1 failed"
		} >"$log"
	fi
	cat "$log"
	account "$1" 0
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	same tree "$tree_before" "$(tree_state)" "the tests left no files in the tree outside $BUILD/" \
		"the tests changed the tree outside $BUILD/"
fi
# The unit tests and the fuzzers touch no machine state: a run of those
# alone leaves the machine to whatever else runs on it.
if want workloads || want integration || want vm; then
	same machine "$machine_before" "$(machine_state)" \
		"the tests left the machine as they found it ($(grep -E '^(bpffs|tracefs|cpuidle_governor) ' <<<"$machine_before" | paste -sd, -))" \
		"the tests changed the machine"
fi

echo
[ ${#failed[@]} -gt 0 ] && echo "failed suites: ${failed[*]}"
echo "checks of behaviour (decisions, actuated files, maps, live CPUs): ${kind_pass[behaviour]} passed," \
	"${kind_fail[behaviour]} failed; checks of surfaces (text, options, docs): ${kind_pass[surfaces]} passed," \
	"${kind_fail[surfaces]} failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
