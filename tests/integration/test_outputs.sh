#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Root tools do not follow planted symlinks with their outputs: `record`
# writes nothing before its trace (no probe file: the trace is written to
# a private temp file and renamed), and `validate` uses an existing output
# directory only when it is a real directory owned by root that nobody
# else may write, and creates its files O_EXCL | O_NOFOLLOW. Run in a
# world-writable sticky directory, as /tmp is. No governor is started.
. "$(dirname "$0")/../lib.sh"

W=$T_TMP/world
mkdir -p "$W" && chmod 1777 "$W"
echo "do not touch" >"$T_TMP/victim"

# record: a planted FILE.tmp -> victim. bpfgov is not running: record
# stops (exit 3), and must not have truncated the victim on its way.
ln -s "$T_TMP/victim" "$W/out.trace.tmp"
(cd "$W" && "$LAB" record --pin-root "$T_TMP/nopins" out.trace) >"$T_TMP/out" 2>&1
rc=$?
is "record with a planted out.trace.tmp: the symlink's target is untouched (rc $rc)" \
	"$(cat "$T_TMP/victim")" "do not touch"
check "record wrote no file of its own" bash -c "[ ! -e '$W/out.trace' ]"
(cd "$W" && "$LAB" record --pin-root "$T_TMP/nopins" nodir/out.trace) >"$T_TMP/out" 2>&1
rc=$?
check "record into a directory that does not exist: one line, exit 1 (rc $rc)" \
	bash -c "[ $rc = 1 ] && [ \$(wc -l <'$T_TMP/out') = 1 ] && grep -q 'cannot write nodir/out.trace' '$T_TMP/out'"

# validate: planted output directories.
refused() { # DESCRIPTION DIR
	(cd "$W" && "$LAB" validate --quick --out "$2") >"$T_TMP/out" 2>&1
	local rc=$?
	check "validate refuses $1: one line, exit 1 (rc $rc)" \
		bash -c "[ $rc = 1 ] && [ \$(wc -l <'$T_TMP/out') = 1 ] && grep -q 'is not a directory owned by uid' '$T_TMP/out'"
}
mkdir -p "$T_TMP/elsewhere"
ln -s "$T_TMP/elsewhere" "$W/bpfgov-validate"
refused "a symlink as its output directory" bpfgov-validate
check "nothing written through the symlink" bash -c "[ -z \"\$(ls -A '$T_TMP/elsewhere')\" ]"
rm "$W/bpfgov-validate"
mkdir "$W/open" && chmod 0777 "$W/open"
ln -s "$T_TMP/victim" "$W/open/report.json"
refused "a directory others may write" open
if id nobody >/dev/null 2>&1; then
	mkdir "$W/theirs" && chown nobody "$W/theirs" && chmod 0755 "$W/theirs"
	refused "a directory owned by another user" theirs
fi
is "the victim behind the planted report.json is untouched" "$(cat "$T_TMP/victim")" "do not touch"
t_done
