#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Docs match the code: every tunable in include/bpfgov_tunables.h is in the
# README's table with its default and range, every subcommand has a --help
# and a README mention.
. "$(dirname "$0")/../lib.sh"

while read -r name def lo hi; do
	row=$(grep -E "^\| \`$name\` \|" "$TOP/README.md")
	check "README documents tunable $name" [ -n "$row" ]
	# A range written as BPFGOV_MAX_STATES is 10.
	[ "$hi" = BPFGOV_MAX_STATES ] && hi=10
	want="| \`$name\` | $def | $lo–$hi |"
	is "README default and range of $name" "${row:0:${#want}}" "$want"
done < <(grep -oE '^\s*X\([a-z_]+, +[0-9]+, +[0-9]+, +[A-Z_0-9]+' "$TOP/include/bpfgov_tunables.h" |
	 sed -E 's/^\s*X\(//; s/,\s*/ /g')

for prog in govloader govlab; do
	for c in $("$TOP/$prog" --help | awk '/^Commands:/{f=1;next} /^$/{if(f)exit} f {print $1}'); do
		check "'$prog $c --help' works" bash -c "'$TOP/$prog' $c --help >/dev/null"
		check "README mentions $prog $c" grep -q "$prog $c" "$TOP/README.md"
	done
done
# License: our BPF programs and the headers they share are dual GPL/BSD
# (vendored headers keep their own).
SPDX_BPF="SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause"
for f in "$TOP"/bpf/bpfgov*.bpf.[ch] "$TOP"/include/bpfgov*.h; do
	check "${f#"$TOP"/}: $SPDX_BPF" bash -c "head -n1 '$f' | grep -qF '$SPDX_BPF'"
done
for o in "$TOP"/build/bpf/*.bpf.o; do
	lic=$(readelf -p license "$o" 2>/dev/null | sed -nE 's/^ *\[ *[0-9a-f]+\] +//p')
	is "${o#"$TOP"/}: declares the license \"Dual BSD/GPL\"" "$lic" "Dual BSD/GPL"
done
check "README states the BPF license" grep -qF "GPL-2.0 OR BSD-3-Clause" "$TOP/README.md"

# The commands shown in the docs' shell blocks: each `govloader CMD` or
# `govlab CMD` is a command of that binary and every option on the line is
# in that command's --help.
n=0
while IFS=$'\t' read -r doc prog cmd opts; do
	n=$((n + 1))
	help=$("$TOP/$prog" "$cmd" --help 2>/dev/null)
	check "$doc: '$prog $cmd' is a command" test -n "$help"
	for o in $opts; do
		check "$doc: '$prog $cmd $o' is in its --help" grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$help"
	done
done < <(for d in README.md docs/OPERATIONS.md; do
	awk -v doc="$d" '/^```sh/ { f = 1; next } /^```/ { f = 0 } f' "$TOP/$d" |
	sed 's/#.*//' | grep -oE '(^|[ (])(\./)?gov(loader|lab) [a-z]+[^|;&]*' |
	while read -r line; do
		prog=$(sed -E 's/^[ (]*(\.\/)?(gov(loader|lab)) .*/\2/' <<<"$line")
		cmd=$(sed -E 's/^[ (]*(\.\/)?gov(loader|lab) ([a-z]+).*/\3/' <<<"$line")
		opts=$(grep -oE '(^| )--?[a-z][a-z0-9-]*' <<<"${line#*$prog $cmd}" | tr -d ' ' | sort -u | tr '\n' ' ')
		printf '%s\t%s\t%s\t%s\n' "$d" "$prog" "$cmd" "$opts"
	done
done)
check "the docs show 20+ govloader and govlab commands ($n)" test "$n" -ge 20

# Every measured section names its run: the provenance table of each doc
# lists every block a benchmark writes (a block added without it fails),
# and every block written from now on starts with its run's line. Which
# sections are stale is printed, not judged: a later commit may well
# change what an earlier run measured until `make bench-all` runs again.
for d in docs/BENCHMARKS.md docs/SCX.md docs/KERNELS.md; do
	want=$(cd "$TOP" && bash tests/bench/provenance.sh "$d" | awk -F' [|] ' '/^[|] / && !/^[|] section [|]/ && !/^[|]---/ { sub(/^[|] /, "", $1); print $1 }')
	have=$(awk '/^<!-- provenance:begin -->$/ { on = 1; next } /^<!-- provenance:end -->$/ { on = 0 } on' "$TOP/$d" |
		awk -F' [|] ' '/^[|] / && !/^[|] section [|]/ && !/^[|]---/ { sub(/^[|] /, "", $1); print $1 }')
	is "$d: its provenance table lists every measured section ($(echo $want | tr ' ' ','))" "$have" "$want"
	bad=$(awk '/^<!-- provenance:(begin|end) -->$/ { next }
		match($0, /^<!-- [a-z0-9-]+:begin -->$/) { n = substr($0, 6, length($0) - 15); first = 1; next }
		first && /^$/ { next }
		first { if ($0 !~ /^\*Run of record: commit [0-9a-f]+/ && !(n in old)) print n; first = 0 }' "$TOP/$d" |
		grep -vxF -f <(awk '/^<!-- provenance:begin -->$/ { on = 1; next } /^<!-- provenance:end -->$/ { on = 0 }
			on && /not recorded/' "$TOP/$d" | awk -F' [|] ' '{ sub(/^[|] /, "", $1); print $1 }') | paste -sd, -)
	is "$d: every block names its run, or its table says 'not recorded'" "$bad" ""
	diag "$d: $(cd "$TOP" && bash tests/bench/provenance.sh "$d" | grep -c '| stale: ') stale section(s) (tests/bench/provenance.sh)"
done
t_done
