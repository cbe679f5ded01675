#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make soak: user code under AddressSanitizer/UBSan and valgrind, then a
# long switch-heavy run of a sanitized `govloader start` with `tail`
# attached half of the time, sampling the loader's RSS and open fds.
# Writes docs/SOAK.md. SOAK_SECONDS (default 300) sets the long run.
. "$(dirname "$0")/../lib.sh"
set -o pipefail

SOAK_SECONDS=${SOAK_SECONDS:-300}
ASAN_BUILD=$TOP/build/asan
ASAN_GOV=$ASAN_BUILD/govloader
ASAN_LAB=$ASAN_BUILD/govlab
SAN="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
REPORT=$TOP/docs/SOAK.md
MSR=$T_TMP/msr
seed_msr_standins "$MSR"

make -C "$TOP" --no-print-directory BUILD="$ASAN_BUILD" GOVLOADER="$ASAN_GOV" GOVLAB="$ASAN_LAB" \
	CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined" \
	"$ASAN_GOV" "$ASAN_LAB" $(cd "$TOP" && ls tests/unit/test_*.c | sed "s|tests/unit/\(.*\)\.c|$ASAN_BUILD/tests/\1|") \
	>"$T_TMP/build.log" 2>&1 || sed 's/^/# /' "$T_TMP/build.log"
check "sanitized build" test -x "$ASAN_GOV" -a -x "$ASAN_LAB"

# 1. Unit tests under ASan/UBSan and under valgrind (memcheck, leaks).
for t in "$ASAN_BUILD"/tests/test_*; do
	case $t in *.o|*.d) continue ;; esac
	check "ASan/UBSan: $(basename "$t")" bash -c "'$t' >'$T_TMP/u.log' 2>&1"
done
for t in "$TOP"/build/tests/test_*; do
	case $t in *.o|*.d) continue ;; esac
	check "valgrind: $(basename "$t")" bash -c "valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite '$t' >'$T_TMP/v.log' 2>&1"
done

# 2. Every subcommand of the sanitized loader against a live instance.
GOV_SAVE=$GOV LAB_SAVE=$LAB
GOV=$ASAN_GOV LAB=$ASAN_LAB
check "sanitized start comes up" gov_start --msr-root "$MSR" --no-idle --duration 30
check "status --json (ASan)" bash -c "set -o pipefail; '$GOV' status --json | jq -e '.running == true' >/dev/null"
check "tail --count 20 (ASan)" bash -c "set -o pipefail; timeout 20 '$GOV' tail --json --count 20 | jq -e -s 'length == 20' >/dev/null"
check "dump (ASan)" bash -c "'$GOV' dump >/dev/null"
check "set (ASan)" "$GOV" set headroom_pct=130
check "record 2 s (ASan)" "$LAB" record "$T_TMP/rec.trace" --duration 2
check "replay of the recording (ASan)" bash -c "set -o pipefail; '$LAB' replay '$T_TMP/rec.trace' --json | jq -e . >/dev/null"
"$GOV" stop >/dev/null 2>&1
gov_wait
is "sanitized start exits 0 (no ASan/UBSan report)" "$GOV_RC" 0
check "no sanitizer report in its log" bash -c "! grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' '$GOV_LOG'"

# 3. Long run: switch-heavy load, tail attached for the second half. The
# production binary: ASan's quarantine keeps freed memory on purpose, so a
# sanitized loader's RSS says nothing about leaks (those it reports itself,
# above).
GOV=$GOV_SAVE LAB=$LAB_SAVE
check "long-run start comes up" gov_start --msr-root "$MSR" --no-idle --duration $((SOAK_SECONDS + 30))
bg "$WORK" switchstorm --threads 16 --duration "$SOAK_SECONDS"
samples=()
half=$((SOAK_SECONDS / 2))
t=0
tail_pid=
while [ "$t" -lt "$SOAK_SECONDS" ]; do
	if [ "$t" -ge "$half" ] && [ -z "$tail_pid" ]; then
		"$GOV" tail --all --json >/dev/null 2>&1 &
		tail_pid=$!
	fi
	rss=$(awk '/^VmRSS/{print $2}' /proc/"$GOV_PID"/status)
	fds=$(gov_fds "$GOV_PID")
	samples+=("$t $rss $fds")
	sleep 10
	t=$((t + 10))
done
st=$("$GOV" status --json)
kill "$tail_pid" 2>/dev/null; wait "$tail_pid" 2>/dev/null
ev_drops=$(echo "$st" | jq '.drops.events')
tap_drops=$(echo "$st" | jq '.drops.tap')
gaps=$(echo "$st" | jq '.actuator.seq_gaps')
decisions=$(echo "$st" | jq '.actuator.decisions')
"$GOV" stop >/dev/null 2>&1
gov_wait
is "long-run start exits 0" "$GOV_RC" 0
first=(${samples[1]}); last=(${samples[-1]})
growth=$(( last[1] - first[1] ))
is "no decision records lost (events drops)" "$ev_drops" 0
is "decision sequence has no gaps" "$gaps" 0
check "RSS sampled (${#samples[@]} samples)" [ "${first[1]:-0}" -gt 0 ]
check "RSS bounded: ${first[1]} kB at ${first[0]} s -> ${last[1]} kB at ${last[0]} s (growth $growth kB < 2048)" [ "$growth" -lt 2048 ]
is "no fd growth (${first[2]} -> ${last[2]})" "${last[2]}" "${first[2]}"

{
	echo "# Soak results"
	echo
	echo "Produced by \`make soak\` (tests/soak/run.sh) on $(date -u +%Y-%m-%d), kernel $(uname -r),"
	echo "$(nproc --all) CPUs. Reproduce: \`SOAK_SECONDS=$SOAK_SECONDS make soak\`."
	echo
	echo "- Unit tests under AddressSanitizer/UBSan and under valgrind memcheck (definite leaks are errors), then every subcommand of a sanitized loader; all soak checks: $T_PASS passed, $T_FAIL failed."
	echo "- A sanitized \`govloader\` ran start, status, tail, dump, set, record, replay and stop with no report."
	echo "- Long run (production build): $SOAK_SECONDS s of \`bpfgov-work switchstorm --threads 16\`, MSR stand-ins, \`tail --all\` attached for the second half."
	echo
	echo "| metric | value |"
	echo "|---|---|"
	echo "| decisions applied | $decisions |"
	echo "| events ring drops | $ev_drops |"
	echo "| decision sequence gaps | $gaps |"
	echo "| tap ring drops (counted by BPF, reported by status) | $tap_drops |"
	echo "| loader RSS first / last sample (kB) | ${first[1]} / ${last[1]} |"
	echo "| loader open fds first / last | ${first[2]} / ${last[2]} |"
	echo
	echo "RSS and fds every 10 s (t, RSS kB, fds):"
	echo
	echo '```'
	printf '%s\n' "${samples[@]}"
	echo '```'
} >"$REPORT"
diag "wrote $REPORT"
t_done
