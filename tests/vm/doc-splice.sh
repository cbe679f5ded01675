# SPDX-License-Identifier: GPL-2.0
# Sourced by the bench-vm reports (bench-report.sh, bench-smp-report.sh).
#
# doc_splice WHO MARK MD DOC...: in each DOC, replace what stands between
# the lines "<!-- MARK:begin -->" and "<!-- MARK:end -->" with MD (the
# markers stay); a DOC without them is left alone, with a message. WHO
# names the caller in the messages.
doc_splice() {
	local who=$1 mark=$2 md=$3 d
	shift 3
	for d in "$@"; do
		[ -f "$d" ] || continue
		grep -q "^<!-- $mark:begin -->\$" "$d" || { echo "$who: no $mark markers in $d" >&2; continue; }
		awk -v f=<(printf '%s\n' "$md") -v b="<!-- $mark:begin -->" -v e="<!-- $mark:end -->" '
			$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == e { skip = 0 }
			!skip' "$d" > "$d.tmp" && mv "$d.tmp" "$d"
		echo "$who: wrote $d" >&2
	done
}
