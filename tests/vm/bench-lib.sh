# SPDX-License-Identifier: GPL-2.0
# Sourced by the bench-vm reports (bench-report.sh, bench-smp-report.sh).
#
# lines REGEX LOG: the lines of LOG that match (none is no error: a log
# without a kind of line reports it as not measured).
lines() { grep -E "$1" "$2" || true; }
#
# summary LOG: "config workload median [median2]" lines from the guest's
# BR lines (tests/vm/guest-bench.sh), medians over the rounds of that boot.
summary() {
	lines '^BR [0-9]+ ' "$1" | awk '
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
#
# verdict VALUE OP LIMIT: "**met**" or "**not met**" for VALUE OP (>= or <=)
# LIMIT; "**not measured** (not met)" where there is no value (n/a or empty):
# a goal without its data is not met.
verdict() {
	case "${1:-n/a}" in
	n/a|null|nan|-nan) echo "**not measured** (not met)"; return ;;
	esac
	awk -v x="$1" -v op="$2" -v l="$3" 'BEGIN { ok = (op == ">=") ? x >= l : x <= l; print ok ? "**met**" : "**not met**" }'
}
