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
. "$(dirname "$0")/../lib.sh"

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
t_done
