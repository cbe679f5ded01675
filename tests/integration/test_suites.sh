#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The shell suites themselves: every counted check prints its own line.
# A check whose output is redirected (`check "..." cmd >/dev/null`) or
# piped sends its "ok N" / "not ok N" line away with the command's output,
# so a failure would count without a name. Such a command is run through
# `quiet` (tests/lib.sh) instead.
. "$(dirname "$0")/../lib.sh"

# One line per suite: "FILE CHECKS", then "FILE:LINE: text" per hidden check.
python3 - "$TOP" >"$T_TMP/scan" <<'EOF'
import glob, os, re, sys
top = sys.argv[1]
call = re.compile(r'(?:^|[;&({]\s*|\bthen\s+|\belse\s+|\bdo\s+)(check|is|ok|not_ok|nok)\s')
for f in sorted(glob.glob(os.path.join(top, 'tests', '**', '*.sh'), recursive=True)):
    rel = os.path.relpath(f, top)
    lines = open(f, errors='replace').read().split('\n')
    n, hidden, i = 0, [], 0
    while i < len(lines):
        s, j = lines[i], i
        while s.endswith('\\') and j + 1 < len(lines):
            j += 1
            s = s[:-1] + lines[j]
        # Quoted text, command and process substitutions are not the call's.
        t = re.sub(r"'[^']*'", "''", s)
        t = re.sub(r'"(\\.|[^"\\])*"', '""', t)
        for _ in range(4):
            t = re.sub(r'[$<]?\([^()]*\)', 'X', t)
        t = re.sub(r'(^|\s)#.*', '', t)
        m = call.search(t)
        if m and not re.match(r'\s*\w+\s*\(\)', t):
            n += 1
            # The call runs to the end of its pipeline: ;, &&, ||, &, }.
            seg = re.split(r';|&&|\|\||(?<![>&])&(?!>)|\}', t[m.start(1):])[0]
            # stdout redirected (>, >>, &>, 1>; not 2>) or piped
            if re.search(r'(^|[^0-9<>&])(&|1)?>>?\s*[^&\s]|\|', seg):
                hidden.append('%s:%d: %s' % (rel, i + 1, s.strip()[:120]))
        i = j + 1
    if n:
        print(rel, n)
        for h in hidden:
            print(h)
EOF
suites=$(grep -c '^tests/[^ ]* [0-9]*$' "$T_TMP/scan")
checks=$(awk 'NF == 2 && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$T_TMP/scan")
check "the scan finds the suites' checks ($checks in $suites files)" [ "$suites" -ge 20 -a "$checks" -ge 500 ]
while read -r f n; do
	h=$(grep -c "^$f:" "$T_TMP/scan")
	if [ "$h" -eq 0 ]; then
		ok "$f: all $n counted checks print their line"
	else
		not_ok "$f: $h of $n counted checks send their line away:"
		grep "^$f:" "$T_TMP/scan" | sed 's/^/#   /'
	fi
done < <(grep '^tests/[^ ]* [0-9]*$' "$T_TMP/scan")
t_done
