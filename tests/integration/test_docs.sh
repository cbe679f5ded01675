#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Docs match the code: every tunable in include/bpfgov_tunables.h is in the
# README's table with its default and range, every subcommand has a --help
# and a README mention.
. "$(dirname "$0")/../lib.sh"

while read -r name def lo hi; do
	row=$(grep -E "^\| \`$name\` \|" "$TOP/README.md")
	check "README documents tunable $name" [ -n "$row" ]
	# A range written as BPFGOV_MAX_STATES is 8.
	[ "$hi" = BPFGOV_MAX_STATES ] && hi=8
	want="| \`$name\` | $def | $lo–$hi |"
	is "README default and range of $name" "${row:0:${#want}}" "$want"
done < <(grep -oE '^\s*X\([a-z_]+, +[0-9]+, +[0-9]+, +[A-Z_0-9]+' "$TOP/include/bpfgov_tunables.h" |
	 sed -E 's/^\s*X\(//; s/,\s*/ /g')

for c in $("$GOV" --help | awk '/^Commands:/{f=1;next} /^$/{if(f)exit} f {print $1}'); do
	check "'$c --help' works" bash -c "'$GOV' $c --help >/dev/null"
	check "README mentions govloader $c" grep -q "govloader $c" "$TOP/README.md"
done
t_done
