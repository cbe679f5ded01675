#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The manual pages: govloader(8), govlab(8) and bpfgov.conf(5) pass
# `mandoc -Tlint` and `groff -ww -z` without a message; every command of
# `govloader --help` has a section in govloader(8), every command of
# `govlab --help` one in govlab(8), and the reverse; in each section the options are exactly
# those of the command's --help and of its option parser (struct option and
# getopt strings in user/**/*.c, cli_parse's allowed list); bpfgov.conf(5)
# lists exactly the keys the configuration parser accepts; a command of one
# binary given to the other is refused in one line; `make install` puts
# both binaries under sbin/ and the pages under man8/ and man5/, and
# `make uninstall` removes them.
. "$(dirname "$0")/../lib.sh"

MAN8=$TOP/man/govloader.8
MAN8L=$TOP/man/govlab.8
MAN5=$TOP/man/bpfgov.conf.5
GLOBAL="--help --quiet --verbose -h -q -v"

check "govloader.8 exists" test -s "$MAN8"
check "govlab.8 exists" test -s "$MAN8L"
check "bpfgov.conf.5 exists" test -s "$MAN5"
for p in "$MAN8" "$MAN8L" "$MAN5"; do
	out=$(mandoc -Tlint "$p" 2>&1)
	is "mandoc -Tlint ${p#"$TOP"/}: no message" "$out" ""
	out=$(groff -man -ww -z "$p" 2>&1)
	is "groff -ww -z ${p#"$TOP"/}: no message" "$out" ""
	check "mandoc renders ${p#"$TOP"/}" bash -c "mandoc -Tascii '$p' | sed 's/.\x08//g' | grep -q '^NAME'"
done

# options FILE SECTION-REGEX: the option names in the .TP tags of one
# section (from its .SS/.SH line up to the next .SS/.SH), sorted, one line.
options() {
	awk -v want="$2" '
		/^\.S[SH] / { sec = ($0 ~ "^\\.S[SH] " want "$") ; next }
		sec && tag { print; tag = 0; next }
		sec && /^\.TP/ { tag = 1 }' "$1" |
	sed -E 's/\\-/-/g; s/\\f[BIRP]//g' |
	grep -oE '(^|[ ",])--?[a-z][a-z0-9-]*' | grep -oE -- '--?[a-z][a-z0-9-]*' |
	sort -u | tr '\n' ' ' | sed 's/ $//'
}
# minus "A B C" "B": words of the first list not in the second, one line.
minus() {
	comm -23 <(tr ' ' '\n' <<<"$1" | grep . | sort -u) <(tr ' ' '\n' <<<"$2" | grep . | sort -u) |
		tr '\n' ' ' | sed 's/ $//'
}
# help_options CMD: the options `$bin CMD --help` names ('quoted'
# examples of other commands left out).
help_options() {
	"$bin" "$1" --help | sed "s/'[^']*'//g" |
	grep -oE '(^|[^a-zA-Z0-9-])--?[a-z][a-z0-9-]*' | grep -oE -- '--?[a-z][a-z0-9-]*' |
	sort -u | tr '\n' ' ' | sed 's/ $//'
}
# parser_options CMD: what the command's parser accepts, from its source.
parser_options() {
	local cmd=$1 allowed file shorts
	allowed=$(grep -ohE "cli_parse\(\"$cmd\", [a-z_]+, argc, argv, \"[^\"]*\"" "$TOP"/user/*/*.c "$TOP"/user/*/*/*.c |
		  sed -E 's/.*"([^"]*)"$/\1/')
	# a command of no options of its own passes "" to cli_parse
	if grep -qE "cli_parse\(\"$cmd\", " "$TOP"/user/*/*.c "$TOP"/user/*/*/*.c; then
		{ for w in $allowed; do [ "$w" = ARGS ] || echo "--$w"; done
		  echo "$GLOBAL" | tr ' ' '\n'; } | sort -u | tr '\n' ' ' | sed 's/ $//'
		return
	fi
	# the parser lives in <cmd>_opts.c where the command has one, else with do_<cmd>
	file=$(grep -lE "^int ${cmd}_parse_args\(" "$TOP"/user/*/*.c "$TOP"/user/*/*/*.c | head -n1)
	[ -n "$file" ] || file=$(grep -lE "^int do_$cmd\(int argc" "$TOP"/user/*/*.c "$TOP"/user/*/*/*.c)
	[ -n "$file" ] || return
	shorts=$(grep -oE 'getopt_long\([^,]+, [^,]+, "[^"]*"' "$file" | sed -E 's/.*"([^"]*)"$/\1/' |
		 tr -d ':' | fold -w1 | sed 's/^/-/')
	{ grep -oE '\{ *"[a-z][a-z0-9-]*", *(no|required|optional)_argument' "$file" |
	  sed -E 's/\{ *"([^"]*)".*/--\1/'
	  echo "$shorts"; } | grep . | grep -v -- '^--test-' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# page_checks PROG PAGE BIGGEST-COMMAND: the page of a binary (govloader,
# govlab) against its --help, its parsers and its main().
page_checks() {
	local prog=$1 page=$2 big=$3 bin=$TOP/$1 cmds sections total c o man help parser arg v
	# Global options: the page, the top-level usage and main()'s parser agree.
	is "$prog: GLOBAL OPTIONS are -h/-q/-v and their long forms" "$(options "$page" "GLOBAL OPTIONS")" "$GLOBAL"
	for o in $GLOBAL; do
		check "$prog: cli_main() accepts $o" grep -q "strcmp(argv\[i\], \"$o\")" "$TOP/user/lib/cli.c"
	done

	cmds=$("$bin" --help | awk '/^Commands:/{f=1;next} /^$/{if(f)exit} f {print $1}')
	sections=$(awk '/^\.SH COMMANDS/{f=1;next} /^\.SH /{f=0} f && /^\.SS /{print $2}' "$page")
	is "$prog: one section per command, in the order of --help" "$(echo $sections)" "$(echo $cmds)"
	total=0
	for c in $cmds; do
		man=$(options "$page" "$c")
		help=$(minus "$(help_options "$c")" "$GLOBAL")
		parser=$(parser_options "$c")
		total=$((total + $(wc -w <<<"$man")))
		check "$c: the parser was found in the source" test -n "$parser"
		check "$c: the parser accepts --help" bash -c "grep -qw -- --help <<<'$parser'"
		parser=$(minus "$parser" "$GLOBAL")
		is "$c: options in --help missing from the page" "$(minus "$help" "$man")" ""
		is "$c: options in the page missing from --help" "$(minus "$man" "$help")" ""
		is "$c: options the parser accepts missing from the page" "$(minus "$parser" "$man")" ""
		is "$c: options in the page the parser does not accept" "$(minus "$man" "$parser")" ""
		# The parser is strict, so what it lists is all it accepts.
		arg=; [ "$c" = synth ] && arg=periodic
		"$bin" "$c" $arg --no-such-option </dev/null >/dev/null 2>&1
		is "$c: an unknown option is a usage error (exit 2)" "$?" 2
	done
	# Options for the tests alone (--test-*) are accepted but not shown.
	for c in $cmds; do
		check "$c --help shows no test-only option" bash -c "! '$bin' $c --help | grep -q -- '--test-'"
	done
	check "$prog: the page shows no test-only option" bash -c "! grep -q -- '\\\\-\\\\-test\\\\-' '$page'"
	# help CMD is CMD --help; --version and version print one version line.
	for c in $cmds; do
		is "'$prog help $c' prints '$c --help'" "$("$bin" help "$c" 2>&1 | md5sum)" "$("$bin" "$c" --help 2>&1 | md5sum)"
	done
	v=$("$bin" --version)
	check "--version prints '$prog VERSION' ($v)" grep -qE "^$prog [0-9]+\.[0-9]+\.[0-9]+" <<<"$v"
	is "'$prog version' prints the same" "$("$bin" version)" "$v"
	diag "$prog: $total command options compared"
	check "$prog: the comparison is not vacuous ($big alone has 15+)" test "$(wc -w <<<"$(options "$page" "$big")")" -ge 15
}
page_checks govloader "$MAN8" start
page_checks govlab "$MAN8L" replay
# A command of the other binary is refused in one line that names it.
for c in record replay synth plot validate; do
	is "govloader $c: one line naming 'govlab $c' (exit 2)" "$("$GOV" $c x 2>&1; echo "rc=$?")" "govloader: $c is a govlab command: govlab $c ...
rc=2"
done
for c in start stop status tail dump set restore metrics probe; do
	is "govlab $c: one line naming 'govloader $c' (exit 2)" "$("$LAB" $c 2>&1; echo "rc=$?")" "govlab: $c is a govloader command: govloader $c ...
rc=2"
done
# The shipped govloader has no test-only option: they are compiled into
# the test build alone (build/govloader-test, -DGOV_TEST_HOOKS). Each is
# an unknown option to every command (the parser stops at it, before
# anything starts).
cmds=$("$GOV" --help | awk '/^Commands:/{f=1;next} /^$/{if(f)exit} f {print $1}')
hooks=$(grep -ohE '\{ *"test-[a-z0-9-]+"' "$TOP"/user/*/*.c | grep -oE 'test-[a-z0-9-]+' | sort -u)
check "the source has test-only options to look for ($(echo $hooks))" test -n "$hooks"
for o in $hooks; do
	for c in $cmds; do
		err=$("$GOV" "$c" "--$o" 1 --no-such-option </dev/null 2>&1 >/dev/null)
		check "$c: --$o is unknown to the shipped govloader" grep -q -- "'--$o'" <<<"$err"
	done
done

# bpfgov.conf(5): the tunables of include/bpfgov_tunables.h and the keys
# the configuration parser handles itself.
keys_page=$(awk '/^\.S[SH] /{f = ($0 ~ /^\.SH KEYS$/) || (f && /^\.SS /); next}
		 f && tag { print $2; tag = 0; next } f && /^\.TP/ { tag = 1 }' "$MAN5" | sort -u | tr '\n' ' ' | sed 's/ $//')
keys_code=$( { grep -oE '^\s*X\([a-z_]+,' "$TOP/include/bpfgov_tunables.h" | sed -E 's/^\s*X\(([a-z_]+),/\1/'
	       grep -oE 'memcmp\(ks, "[a-z_]+"' "$TOP/user/state/config.c" | sed -E 's/.*"([a-z_]+)"/\1/'; } |
	     sort -u | tr '\n' ' ' | sed 's/ $//')
check "the configuration parser has 20+ keys" test "$(wc -w <<<"$keys_code")" -ge 20
is "bpfgov.conf(5): keys missing from the page" "$(minus "$keys_code" "$keys_page")" ""
is "bpfgov.conf(5): keys in the page the parser does not know" "$(minus "$keys_page" "$keys_code")" ""
# Defaults and ranges as the header says.
while read -r name def lo hi; do
	[ "$hi" = BPFGOV_MAX_STATES ] && hi=10
	check "bpfgov.conf(5): $name default $def, range $lo-$hi" \
		bash -c "grep -A3 '^\\.BR $name ' '$MAN5' | grep -q 'Default $def, range $lo\\\\(en$hi'"
done < <(grep -oE '^\s*X\([a-z_]+, +[0-9]+, +[0-9]+, +[A-Z_0-9]+' "$TOP/include/bpfgov_tunables.h" |
	 sed -E 's/^\s*X\(//; s/,\s*/ /g')
# The example in the page is a file start accepts.
sed -n '/^\.SH EXAMPLES/,/^\.EE/p' "$MAN5" | sed '1,2d;$d' >"$T_TMP/example.conf"
check "the page's example has settings" grep -q '=' "$T_TMP/example.conf"
ex_keys=$(sed -E 's/#.*//; s/=.*//; s/ //g' "$T_TMP/example.conf" | grep . | sort -u | tr '\n' ' ' | sed 's/ $//')
is "the example uses keys the parser knows" "$(minus "$ex_keys" "$keys_code")" ""
# make install / uninstall.
D=$T_TMP/dest
check "make install DESTDIR=... prefix=/usr" quiet make -s -C "$TOP" install DESTDIR="$D" prefix=/usr
check "  ... man8/govloader.8 (0644)" test "$(stat -c %a "$D/usr/share/man/man8/govloader.8" 2>/dev/null)" = 644
check "  ... man5/bpfgov.conf.5 (0644)" test "$(stat -c %a "$D/usr/share/man/man5/bpfgov.conf.5" 2>/dev/null)" = 644
check "  ... the installed page is the tree's" cmp -s "$MAN8" "$D/usr/share/man/man8/govloader.8"
check "  ... man8/govlab.8, the tree's" cmp -s "$MAN8L" "$D/usr/share/man/man8/govlab.8"
check "  ... sbin/govloader and sbin/govlab (0755)" test "$(stat -c %a "$D/usr/sbin/govloader" "$D/usr/sbin/govlab" 2>/dev/null | sort -u)" = 755
if command -v man >/dev/null; then
	check "man -M finds the installed govloader(8)" \
		bash -c "MANPAGER=cat MANWIDTH=80 man -M '$D/usr/share/man' 8 govloader 2>/dev/null | grep -q 'metrics-listen'"
fi
check "make uninstall" quiet make -s -C "$TOP" uninstall DESTDIR="$D" prefix=/usr
check "  ... removes the pages and both binaries" bash -c "! ls '$D'/usr/share/man/man?/* '$D'/usr/sbin/* 2>/dev/null | grep -q ."
t_done
