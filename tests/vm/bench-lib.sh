# SPDX-License-Identifier: GPL-2.0
# Sourced by the bench-vm reports (bench-report.sh, bench-smp-report.sh).
#
# summary LOG: "config workload median [median2]" lines from the guest's
# BR lines (tests/vm/guest-bench.sh), medians over the rounds of that boot.
summary() {
	grep -E '^BR [0-9]+ ' "$1" | awk '
		{ k = $3 " " $4; n[k]++; v[k, n[k]] = $5; w[k, n[k]] = (NF >= 6 ? $6 : "") }
		function med(a, k, m,   i, j, t, x) {
			for (i = 1; i <= m; i++) x[i] = a[k, i] + 0
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
		}
		END { for (k in n) { s = k " " med(v, k, n[k]); if (w[k, 1] != "") s = s " " med(w, k, n[k]); print s } }'
}
#
# doc_splice WHO MARK MD DOC...: in each DOC, replace what stands between
# the lines "<!-- MARK:begin -->" and "<!-- MARK:end -->" with MD (the
# markers stay), under the line that names this run (commit, date, host,
# command: tests/bench/provenance.sh); a DOC without them is left alone,
# with a message. WHO names the caller in the messages.
. "$(dirname "${BASH_SOURCE[0]}")/../bench/provenance.sh"
doc_splice() {
	local who=$1 mark=$2 md d
	md="$(prov_line "$(prov_command "$mark")")"$'\n\n'"$3"
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
