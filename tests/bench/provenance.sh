#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where each measured section of the docs comes from, and whether it is
# still the build's.
#
#   tests/bench/provenance.sh [--write] [DOC...]
#
# Every block a benchmark writes into a doc starts with one line (prov_line):
#   *Run of record: commit C, DATE, host ..., `COMMAND`.*
# `make bench`'s own sections carry the commit and date in their machine
# table instead. For each section of each DOC (default docs/BENCHMARKS.md,
# docs/SCX.md, docs/KERNELS.md) this prints the commit, date and command,
# and whether it is current: no later commit touches what it measures
# (PROV_PATHS: the BPF, the policy, the loader, the benchmarks and the
# guest, less what the section's command does not read: prov_unread). A
# section from an older commit is stale, with the later commits
# that make it so. A block written before blocks carried the line says
# "not recorded" and is judged from the commit that last wrote it (a lower
# bound: the run was older still). --write puts the table into each DOC,
# between "<!-- provenance:begin -->" and "<!-- provenance:end -->".
#
# Sourced (by the reports that write blocks), it defines prov_line and
# prov_command only.

# The paths whose changes can move a measured figure.
PROV_PATHS=(bpf include user vmlinux Makefile mk tests/bench tests/vm tests/workloads)
# ... but not these: they run the benchmarks and write this table, and
# measure nothing themselves.
PROV_EXCLUDE=(mk/bench-all.mk tests/bench/provenance.sh)

# prov_line COMMAND: the first line of a block written now by COMMAND.
prov_line() {
	local c dirty=
	c=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	git status --porcelain -- "${PROV_PATHS[@]}" 2>/dev/null | grep -qv '^??' && dirty=' with uncommitted changes'
	printf '*Run of record: commit %s%s, %s, host %s (%s CPUs, %s), `%s`.*\n' "$c" "$dirty" \
		"$(date -u '+%Y-%m-%d %H:%M UTC')" "$(uname -sr)" "$(getconf _NPROCESSORS_ONLN)" \
		"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//; s/ *$//')" "$1"
}

# The guest judge's variant as `make bench-vm-idle` was given it (its row
# is in the block), taken where this file is first sourced: the report
# then sources tests/bench/live.sh, whose LIVE_VARIANT is its own.
PROV_LIVE_VARIANT=${PROV_LIVE_VARIANT-${LIVE_VARIANT:-}}

# prov_command MARK: the command that writes the block MARK.
prov_command() {
	case "$1" in
	live-guest) echo "make bench-vm-idle${PROV_LIVE_VARIANT:+ LIVE_VARIANT=$PROV_LIVE_VARIANT}" ;;
	floor) echo "make bench" ;;
	bench-vm) echo "make bench-vm" ;;
	bench-vm-icount) echo "make bench-vm VM_ICOUNT=1" ;;
	bench-vm-smp) echo "make bench-vm VM_ICOUNT=1 (2, 4 and 8 vCPUs)" ;;
	kernel-matrix) echo "make check-kernels" ;;
	*) echo "-" ;;
	esac
}

[ "${BASH_SOURCE[0]}" != "$0" ] && return 0

set -u
cd "$(dirname "$0")/../.."
write=
docs=()
for a in "$@"; do
	case "$a" in
	--write) write=1 ;;
	-h | --help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "provenance.sh: unknown option '$a'" >&2; exit 2 ;;
	*) docs+=("$a") ;;
	esac
done
[ ${#docs[@]} -gt 0 ] || docs=(docs/BENCHMARKS.md docs/SCX.md docs/KERNELS.md)

# sections DOC: "NAME<TAB>FIRST<TAB>LAST" line ranges of the measured
# blocks (between begin/end markers) and, for a doc written by `make
# bench`, its own body (the machine table names the run).
sections() {
	awk '
		/^<!-- provenance:(begin|end) -->$/ { next }
		match($0, /^<!-- [a-z0-9-]+:begin -->$/) { n = substr($0, 6, length($0) - 15); s = NR; next }
		/^<!-- kernel-matrix -->$/ { n = "kernel-matrix"; s = NR; next }
		n != "" && ($0 == "<!-- " n ":end -->" || (n == "kernel-matrix" && $0 == "<!-- /kernel-matrix -->")) {
			printf "%s\t%d\t%d\n", n, s + 1, NR - 1; n = "" }
	' "$1"
	grep -q '^| commit | ' "$1" && printf 'make bench\t1\t%d\n' "$(wc -l <"$1")"
}

# blame_commit DOC FIRST LAST: the newest commit that wrote those lines.
blame_commit() {
	git blame --line-porcelain -L "$2,$3" -- "$1" 2>/dev/null |
		awk '/^[0-9a-f]+ [0-9]+ [0-9]+/ { c = $1 } /^committer-time / { if ($2 > t) { t = $2; best = c } } END { print substr(best, 1, 7) }'
}

# prov_unread COMMAND: paths of PROV_PATHS that the section's command does
# not read. The guest's scheduler benchmarks and the kernel matrix boot
# images that hold no script of tests/bench (tests/vm/vm.mk: only the
# idle guest's image has them), and read only this file from there.
prov_unread() {
	case "$1" in
	"make bench-vm-idle"*) ;;
	"make bench-vm"* | "make check-kernels"*) echo tests/bench ;;
	esac
}

# later COMMIT [COMMAND]: the commits after COMMIT that touch what it
# measures (what COMMAND reads).
later() {
	local ex=("${PROV_EXCLUDE[@]}")
	[ -n "${2:-}" ] && mapfile -t -O "${#ex[@]}" ex < <(prov_unread "$2")
	git log --format='%h' "$1..HEAD" -- "${PROV_PATHS[@]}" "${ex[@]/#/:(exclude)}" 2>/dev/null
}

table() { # DOC
	local doc=$1 name first last line commit date cmd status n list
	echo "| section | commit | date | command | status |"
	echo "|---|---|---|---|---|"
	while IFS=$'\t' read -r name first last; do
		if [ "$name" = "make bench" ]; then
			commit=$(sed -n 's/^| commit | \([0-9a-f]*\).*/\1/p' "$doc" | head -n1)
			date=$(sed -n 's/^| date | \(.*\) |$/\1/p' "$doc" | head -n1)
			cmd='make bench'
			name='sections 1-5 and the goals'
		else
			line=$(sed -n "${first},${last}p" "$doc" | grep -m1 '^\*Run of record: commit ')
			commit=$(sed -n 's/^\*Run of record: commit \([0-9a-f]*\).*/\1/p' <<<"$line")
			date=$(sed -n 's/^\*Run of record: commit [^,]*, \([^,]*\),.*/\1/p' <<<"$line")
			cmd=$(sed -n 's/.*, `\(.*\)`\.\*$/\1/p' <<<"$line")
		fi
		if [ -z "$commit" ]; then
			commit=$(blame_commit "$doc" "$first" "$last")
			date="not recorded"
			cmd=$(prov_command "$name")
			commit="not recorded (written by $commit)"
		fi
		list=$(later "$(grep -oE '[0-9a-f]{7,}' <<<"$commit" | tail -n1)" "$cmd")
		n=$(grep -c . <<<"$list")
		if ! grep -qE '[0-9a-f]{7,}' <<<"$commit"; then
			status="unknown: no commit found"
		elif ! git cat-file -e "$(grep -oE '[0-9a-f]{7,}' <<<"$commit" | tail -n1)^{commit}" 2>/dev/null ||
		     ! git merge-base --is-ancestor "$(grep -oE '[0-9a-f]{7,}' <<<"$commit" | tail -n1)" HEAD 2>/dev/null; then
			status="unknown: that commit is not in this build's history"
		elif [ "$n" -eq 0 ]; then
			status=current
		else
			status="stale: $n later commit$([ "$n" -gt 1 ] && echo 's touch' || echo ' touches') what it measures ($(head -n 8 <<<"$list" | paste -sd ' ' -)$([ "$n" -gt 8 ] && echo ' ...'))"
		fi
		echo "| $name | $commit | $date | \`$cmd\` | $status |"
	done < <(sections "$doc")
}

for d in "${docs[@]}"; do
	[ -f "$d" ] || { echo "provenance.sh: no $d" >&2; exit 1; }
	t=$(table "$d")
	echo "== $d"
	echo "$t"
	if [ -n "$write" ]; then
		if ! grep -q '^<!-- provenance:begin -->$' "$d"; then
			echo "provenance.sh: no provenance markers in $d" >&2
			exit 1
		fi
		awk -v f=<(printf '%s\n' "As of commit $(git rev-parse --short HEAD) (\`tests/bench/provenance.sh --write\`):" "" "$t") '
			$0 == "<!-- provenance:begin -->" { print; while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == "<!-- provenance:end -->" { skip = 0 }
			!skip' "$d" >"$d.tmp" && mv "$d.tmp" "$d"
	fi
done
