#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The loader's files import each other in no circle. Module X (X.c with
# X.h, in one of user/'s folders) imports Y when:
#   include: X.c or X.h includes Y.h (directly, or through a header with no
#            .c of its own) and a Y.c exists;
#   link:    X's object under build/user/ uses a symbol Y's object defines
#            (what a header shared by several files hides from the include
#            graph).
# Every circle found is listed, each import of it on its own line.
# Then the shape: no folder of user/ holds more than 15 files; each object
# imports only from folders below its own; no lab object
# (user/lab/) is linked into govloader (an object is linked when a global
# symbol it defines is in the binary); the lines govloader is built from
# (the user/ sources and headers of its objects, from their -MMD lists)
# against the goal of 8k; the daemon's call chain (the longest path of the
# link graph among user/daemon/'s objects from start.o) against the goal
# of 4 files. A goal not met yet is said, with its figure, not failed.
. "$(dirname "$0")/../lib.sh"

FOLDER_MAX=15
LOADER_LINES_GOAL=8000
DAEMON_DEPTH_GOAL=4

# Circles tolerated while their fix lands elsewhere, as "graph: a b"
# (a circle's modules, sorted); empty: every circle fails.
TOLERATED=()

graph() { # MODE: one line per circle, "MODE: a b c", then "  a -> b" lines
	python3 - "$TOP/user" "$TOP/build/user" "$1" <<'EOF'
import os, re, subprocess, sys
src, obj, mode = sys.argv[1:4]
# user/ is a tree of folders; a file is known by its name alone (the
# Makefile puts every folder on the include path)
path = {}
for d, _, fs in os.walk(src):
    for f in fs:
        if f.endswith(('.c', '.h')):
            if f in path:
                sys.exit('two files named ' + f + ' under user/')
            path[f] = os.path.join(d, f)
mods = {f[:-2] for f in path if f.endswith('.c')}
g = {m: set() for m in mods}
if mode == 'include':
    inc = {}
    for f, p in path.items():
        text = open(p, errors='replace').read()
        inc[f] = [h for h in re.findall(r'^\s*#\s*include\s+"([^"/]+)"', text, re.M)
                  if h in path]
    def reach(f, seen):
        out = set()
        for h in inc.get(f, []):
            if h not in seen:
                seen.add(h)
                out |= {h[:-2]} if h[:-2] in mods else reach(h, seen)
        return out
    for f in inc:
        if f[:-2] in mods:
            g[f[:-2]] |= reach(f, set()) - {f[:-2]}
else:
    defs, uses = {}, {}
    for m in sorted(mods):
        o = os.path.join(obj, os.path.relpath(path[m + '.c'], src)[:-2] + '.o')
        if not os.path.exists(o):
            sys.exit('missing ' + o + ' (run make first)')
        for line in subprocess.run(['nm', o], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == 'U':
                uses.setdefault(m, set()).add(p[1])
            elif len(p) == 3 and p[1] in 'TDRBCGVW':
                defs.setdefault(p[2], m)
    for m, us in uses.items():
        g[m] |= {defs[s] for s in us if s in defs and defs[s] != m}
# strongly connected components (Tarjan): each with more than one module
# is a circle
idx, low, stack, on, n = {}, {}, [], set(), [0]
sys.setrecursionlimit(100000)
def visit(v):
    idx[v] = low[v] = n[0]; n[0] += 1
    stack.append(v); on.add(v)
    for w in sorted(g[v]):
        if w not in idx:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            c.sort()
            print(mode + ': ' + ' '.join(c))
            for a in c:
                print('  %s -> %s' % (a, ' '.join(sorted(g[a] & set(c)))))
for v in sorted(g):
    if v not in idx:
        visit(v)
EOF
}

for mode in include link; do
	out=$(graph "$mode")
	rc=$?
	check "$mode graph of user/ computed" [ "$rc" -eq 0 ]
	bad=0
	while IFS= read -r line; do
		case "$line" in
		"") continue ;;
		"  "*) diag "$line"; continue ;;
		esac
		tol=
		for t in "${TOLERATED[@]}"; do [ "$t" = "$line" ] && tol=1; done
		if [ -n "$tol" ]; then
			diag "tolerated for now: $line"
		else
			not_ok "$mode imports in a circle: ${line#*: }"
			bad=$((bad + 1))
		fi
	done <<<"$out"
	[ "$bad" -eq 0 ] && ok "$mode: user/ imports in no circle (tolerated ones aside)"
done

shape() { # one "figure value..." line each
	python3 - "$TOP" <<'EOF'
import os, re, subprocess, sys
top = sys.argv[1]
src, obj = os.path.join(top, 'user'), os.path.join(top, 'build', 'user')
for d, _, fs in sorted(os.walk(src)):
    print('folder', os.path.relpath(d, top), sum(os.path.isfile(os.path.join(d, f)) for f in fs))
def syms(path, kinds):
    # main aside: each binary has its own
    out = subprocess.run(['nm', '--defined-only', path], capture_output=True, text=True).stdout
    return {p[2] for p in (l.split() for l in out.splitlines())
            if len(p) == 3 and p[1] in kinds and p[2] != 'main'}
objs = {}
for d, _, fs in os.walk(obj):
    for f in fs:
        if f.endswith('.o'):
            objs[os.path.relpath(os.path.join(d, f), obj)] = syms(os.path.join(d, f), 'TDRB')
def linked(binary):
    # an object is in a binary when a global symbol it defines is there
    have = syms(os.path.join(top, binary), 'TDRB')
    return sorted(o for o, s in objs.items() if s & have)
def lines(os_):
    files = set()
    for o in os_:
        dep = open(os.path.join(obj, o[:-2] + '.d')).read().replace('\\\n', ' ')
        for line in dep.splitlines():
            if ':' in line and not line.startswith(' '):
                files |= {f for f in line.split(':', 1)[1].split()
                          if f.startswith('user/') and f.endswith(('.c', '.h'))}
    return sum(sum(1 for _ in open(os.path.join(top, f), errors='replace')) for f in files), len(files)
gl, gb = linked('govloader'), linked('govlab')
print('loader_objects', len(gl))
for o in gl:
    if o.startswith('lab/'):
        print('lab_in_loader', o)
print('loader_lines', *lines(gl))
print('lab_lines', *lines(gb))
own = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(src, 'lab')) for f in fs]
print('lab_own_lines', sum(sum(1 for _ in open(f, errors='replace')) for f in own), len(own))
# arrows between folders: each object imports from folders below its own
# (the two mains, client/govloader.o and lab/govlab.o, are above all)
rank = {'lib': 0, 'platform': 1, 'act': 2, 'state': 3, 'daemon': 4, 'client': 4, 'lab': 5}
mains = {'client/govloader.o', 'lab/govlab.o'}
defs = {}
for o, s in objs.items():
    for x in s:
        defs.setdefault(x, o)
for o in sorted(objs):
    if o in mains:
        continue
    out = subprocess.run(['nm', '--undefined-only', os.path.join(obj, o)],
                         capture_output=True, text=True).stdout
    for x in sorted({l.split()[-1] for l in out.splitlines() if l.strip()}):
        to = defs.get(x)
        fo, ft = o.split('/')[0], (to or '').split('/')[0]
        if to and fo != ft and (ft not in rank or fo not in rank or rank[ft] >= rank[fo]):
            print('arrow', o, to, x)
print('folders_ranked', len(rank))
# the daemon's chain: the longest path from start among daemon/ objects
d = {o[len('daemon/'):-2]: s for o, s in objs.items() if o.startswith('daemon/')}
uses = {}
for m in d:
    out = subprocess.run(['nm', '--undefined-only', os.path.join(obj, 'daemon', m + '.o')],
                         capture_output=True, text=True).stdout
    u = {l.split()[-1] for l in out.splitlines() if l.strip()}
    uses[m] = {n for n, s in d.items() if n != m and s & u}
def longest(m, seen=()):
    best = []
    for n in sorted(uses[m]):
        if n not in seen:
            p = longest(n, seen + (m,))
            if len(p) > len(best):
                best = p
    return [m] + best
if 'start' in d:
    print('daemon_chain', *longest('start'))
EOF
}
fig=$(shape)
check "shape of user/ computed" test -n "$fig"
while read -r _ dir n; do
	diag "$dir: $n files"
	[ "$n" -le "$FOLDER_MAX" ] || not_ok "$dir holds $n files (at most $FOLDER_MAX)"
done < <(grep '^folder ' <<<"$fig")
over=$(awk -v max="$FOLDER_MAX" '$1 == "folder" && $3 > max' <<<"$fig" | wc -l)
[ "$over" -eq 0 ] && ok "no folder of user/ holds more than $FOLDER_MAX files"
arrows=$(awk '$1 == "arrow" { print "  " $2 " -> " $3 " (" $4 ")" }' <<<"$fig")
[ -z "$arrows" ] || diag "$arrows"
is "no folder imports from one beside or above it (lib < platform < act < state < daemon, client < lab)" \
	"$(grep -c . <<<"$arrows")" 0
nobj=$(awk '$1 == "loader_objects" { print $2 }' <<<"$fig")
check "govloader's objects found by their symbols ($nobj)" test "${nobj:-0}" -ge 20
lab=$(awk '$1 == "lab_in_loader" { print $2 }' <<<"$fig" | tr '\n' ' ')
is "no lab object linked into govloader" "$lab" ""
read -r _ lines nfiles < <(grep '^loader_lines ' <<<"$fig")
read -r _ lablines labfiles < <(grep '^lab_lines ' <<<"$fig")
read -r _ ownlines ownfiles < <(grep '^lab_own_lines ' <<<"$fig")
diag "govlab: built from $lablines lines of user/ in $labfiles files; user/lab/ holds $ownlines lines in $ownfiles files"
if [ "${lines:-0}" -gt 0 ] && [ "$lines" -le "$LOADER_LINES_GOAL" ]; then
	ok "govloader is built from $lines lines of user/ in $nfiles files (goal: at most $LOADER_LINES_GOAL)"
else
	check "govloader's lines counted: $lines in $nfiles files" test "${lines:-0}" -gt 0
	diag "not met: govloader is built from $lines lines of user/ (goal: at most $LOADER_LINES_GOAL)"
fi
chain=$(awk '$1 == "daemon_chain" { $1 = ""; print substr($0, 2) }' <<<"$fig")
depth=$(wc -w <<<"$chain")
if [ "$depth" -gt 0 ] && [ "$depth" -le "$DAEMON_DEPTH_GOAL" ]; then
	ok "the daemon's chain is $depth files deep: ${chain// / -> } (goal: at most $DAEMON_DEPTH_GOAL)"
else
	check "the daemon's chain measured: $depth files, ${chain// / -> }" test "$depth" -gt 0
	diag "not met: the daemon's chain is $depth files deep (goal: at most $DAEMON_DEPTH_GOAL)"
fi
t_done
