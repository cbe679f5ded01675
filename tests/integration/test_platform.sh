#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Platform-aware actuation through stand-in platform trees (--sysfs-root,
# --proc-root, --msr-root): the backend picked on each platform with its
# reason line, refused forced MSR backends, the EPERM fallback, EPP from
# the profile, CPU online re-apply, and `probe` telling the truth here.
. "$(dirname "$0")/../lib.sh"

P=$T_TMP/plat
CPU1_MIN=$P/sys/devices/system/cpu/cpu1/cpufreq/scaling_min_freq

snapshot() { rm -rf "$T_TMP/orig" && cp -a "$P" "$T_TMP/orig"; }
msr_same() { diff -r "$P/msr" "$T_TMP/orig/msr" >/dev/null; }
sys_same() { diff -r "$P/sys" "$T_TMP/orig/sys" >/dev/null; }
hwp_min() { echo $(( $(msr_file_read "$P/msr/$1/msr" $((0x774))) & 0xff )); }

# 1. The backend and its reason on each platform (probe opens the actuator
#    read-only, exactly as start does).
while read -r kind backend reason; do
	seed_platform "$P" "$kind"
	out=$("$GOV" probe --json $(plat_roots "$P"))
	is "$kind: backend" "$(echo "$out" | jq -r .backend)" "$backend"
	r=$(echo "$out" | jq -r .backend_reason)
	check "$kind: reason '$r' says '$reason'" grep -q -- "$reason" <<<"$r"
done <<'EOF'
intel-active intel-hwp intel_pstate active mode leaves the min field to its limits
intel-passive cpufreq intel_pstate passive mode rewrites HWP_REQUEST.min on every update; per-CPU scaling_min_freq
amd-active amd-cppc amd-pstate active mode leaves the min field to its limits
amd-guided cpufreq amd-pstate guided mode rewrites CPPC_REQ.min on every update; per-CPU scaling_min_freq
acpi cpufreq cpufreq driver acpi-cpufreq owns the performance requests; per-CPU scaling_min_freq
nocpufreq intel-hwp no cpufreq driver: nothing else writes the min field
lockdown cpufreq kernel lockdown \[integrity\] refuses MSR writes; per-CPU scaling_min_freq
allow-off cpufreq msr.allow_writes=off refuses MSR writes; per-CPU scaling_min_freq
EOF

# 2. probe tells the truth about this machine.
out=$("$GOV" probe --json)
is "probe here: cpufreq driver" "$(echo "$out" | jq -r .cpufreq.driver)" \
	"$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 2>/dev/null || echo none)"
want_msr=false; [ -e /dev/cpu/0/msr ] && want_msr=true
is "probe here: msr driver" "$(echo "$out" | jq -r .msr.driver)" "$want_msr"
is "probe here: cpuidle driver" "$(echo "$out" | jq -r .cpuidle.driver)" \
	"$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
is "probe here: BTF" "$(echo "$out" | jq -r .bpf.btf)" \
	"$([ -e /sys/kernel/btf/vmlinux ] && echo true || echo false)"
check "probe text names the cpuidle driver" bash -c "'$GOV' probe | grep -q '^cpuidle  *driver $(echo "$out" | jq -r .cpuidle.driver)'"

# 3. A forced MSR backend where the driver owns the register, or under
#    lockdown, is refused before anything is written.
unchanged() { msr_same && sys_same; }
for kind in intel-passive lockdown allow-off; do
	seed_platform "$P" "$kind"
	snapshot
	expect_fail "$kind: --backend intel-hwp refused in one line, nothing changed" 1 \
		"refused: .*(use --backend cpufreq)" start --backend intel-hwp $(plat_roots "$P") --duration 2
done
unchanged() { true; }

# 4. Passive mode and lockdown: scaling_min_freq follows the load, the MSR
#    stand-in bytes never change, everything comes back byte-exact.
for kind in intel-passive lockdown; do
	seed_platform "$P" "$kind"
	snapshot
	check "$kind: start comes up" gov_start $(plat_roots "$P") --no-idle --duration 8
	check "$kind: one reason line at start" grep -q "floor backend cpufreq: .*per-CPU scaling_min_freq" "$GOV_LOG"
	is "$kind: status backend" "$(status_get .actuator.backend)" cpufreq
	check "$kind: status backend_reason" bash -c "'$GOV' status --json | jq -e '.actuator.backend_reason | test(\"scaling_min_freq\")' >/dev/null"
	is "$kind: status taints_kernel" "$(status_get .actuator.taints_kernel)" false
	check "$kind: status idle_cpu_writes is a number" \
		bash -c "'$GOV' status --json | jq -e '.actuator.idle_cpu_writes | type == \"number\"' >/dev/null"
	bg taskset -c 1 "$WORK" spin --cpu 1 --duration 4
	sleep 1.5
	w0=$(status_get .actuator.idle_cpu_writes)
	# Read while cpu1 still runs: once it sleeps, its floor may fall, and
	# the loader applies it if it happens to run on cpu1 itself.
	m=$(cat "$CPU1_MIN")
	sleep 3		# steady: cpu1 busy to the end, then everything quiet
	w1=$(status_get .actuator.idle_cpu_writes)
	diag "$kind: idle_cpu_writes $w0 -> $w1, held applied at wake $(status_get .actuator.held_applied_at_wake), held $(status_get .actuator.deferred_floor_changes)"
	check "$kind: cpu1 scaling_min_freq rose with load ($m > $PLAT_MIN_KHZ)" [ "$m" -gt "$PLAT_MIN_KHZ" ]
	check "$kind: MSR stand-in bytes unchanged while running" msr_same
	is "$kind: steady state (busy, then quiet): no floor write reached an idle CPU" "$((w1 - w0))" 0
	gov_wait
	is "$kind: start exits 0" "$GOV_RC" 0
	check "$kind: sysfs restored byte-exact" sys_same
	check "$kind: MSR stand-in bytes unchanged after" msr_same
done

# 4b. intel_pstate active with hwp_dynamic_boost on: the driver moves the
#     min field itself, so the floor goes through scaling_min_freq as in
#     passive mode; a forced intel-hwp is refused; the MSR is never written.
DYNBOOST=1 seed_platform "$P" intel-active
snapshot
out=$("$GOV" probe --json $(plat_roots "$P"))
is "dynamic boost: probe sees it" "$(echo "$out" | jq -r .cpufreq.hwp_dynamic_boost)" true
is "dynamic boost: probe picks cpufreq" "$(echo "$out" | jq -r .backend)" cpufreq
check "dynamic boost: probe text says why" bash -c \
	"'$GOV' probe $(plat_roots "$P") | grep -q '^floor backend  cpufreq: intel_pstate hwp_dynamic_boost raises HWP_REQUEST.min on I/O wake-ups'"
unchanged() { msr_same && sys_same; }
expect_fail "dynamic boost: --backend intel-hwp refused in one line, nothing changed" 1 \
	"refused: intel_pstate hwp_dynamic_boost.*(use --backend cpufreq)" \
	start --backend intel-hwp $(plat_roots "$P") --duration 2
unchanged() { true; }
check "dynamic boost: start comes up" gov_start $(plat_roots "$P") --no-idle --duration 6
check "dynamic boost: one reason line at start" \
	grep -q "floor backend cpufreq: intel_pstate hwp_dynamic_boost raises HWP_REQUEST.min on I/O wake-ups; per-CPU scaling_min_freq" "$GOV_LOG"
bg taskset -c 1 "$WORK" spin --cpu 1 --duration 3.5
sleep 2.5
m=$(cat "$CPU1_MIN")
check "dynamic boost: cpu1 scaling_min_freq rose with load ($m > $PLAT_MIN_KHZ)" [ "$m" -gt "$PLAT_MIN_KHZ" ]
check "dynamic boost: MSR stand-in bytes unchanged while running" msr_same
gov_wait
is "dynamic boost: start exits 0" "$GOV_RC" 0
check "dynamic boost: sysfs restored byte-exact" sys_same

# 5. intel_pstate active: HWP_REQUEST, and the taint note once.
seed_platform "$P" intel-active
snapshot
check "intel-active: start comes up" gov_start $(plat_roots "$P") --no-idle --duration 5
check "intel-active: reason line" grep -q "floor backend intel-hwp: intel_pstate active mode" "$GOV_LOG"
is "intel-active: taint note once" "$(grep -c 'every MSR write taints the kernel' "$GOV_LOG")" 1
"$GOV" status >"$T_TMP/status.txt" 2>&1
check "intel-active: status names the backend and its reason" \
	grep -q "^floor backend: intel-hwp: intel_pstate active mode leaves the min field to its limits$" "$T_TMP/status.txt"
check "intel-active: status counts writes that reached an idle CPU" \
	grep -qE "^writes that reached an idle CPU: [0-9]+ " "$T_TMP/status.txt"
# (a summary over 160 characters goes on in lines indented by two)
check "intel-active: status summarises the platform" \
	grep -q "^platform: GenuineIntel family 6 model 151; cpufreq intel_pstate active, governor powersave; EPP balance_performance; msr stand-in, allow_writes=default; lockdown none; taint none; cpuidle " \
	<(sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  / /g' "$T_TMP/status.txt")
is "intel-active: no status line over 160 characters" "$(awk 'length($0) > 160' "$T_TMP/status.txt" | wc -l)" 0
bg taskset -c 1 "$WORK" spin --cpu 1 --duration 2.5
sleep 2
m=$(hwp_min 1)
check "intel-active: HWP_REQUEST.min rises with load ($m > $HWP_LOWEST)" [ "$m" -gt "$HWP_LOWEST" ]
gov_wait
check "intel-active: MSR restored byte-exact" msr_same

# 6. EPERM at the first real MSR write (a read-only stand-in behaves like
#    the msr device under lockdown): one line, fall back to cpufreq,
#    nothing left changed.
seed_platform "$P" intel-active
chmod 0444 "$P"/msr/*/msr
snapshot
check "EPERM: start comes up" gov_start $(plat_roots "$P") --no-idle --duration 6
bg taskset -c 1 "$WORK" spin --cpu 1 --duration 3.5
sleep 3
is "EPERM: one fallback line" "$(grep -c 'failed with EPERM' "$GOV_LOG")" 1
check "EPERM: the line says nothing was left changed and names the new backend" \
	grep -q "nothing left changed, floor backend now cpufreq" "$GOV_LOG"
is "EPERM: status backend" "$(status_get .actuator.backend)" cpufreq
check "EPERM: status reason" bash -c "'$GOV' status --json | jq -e '.actuator.backend_reason | test(\"EPERM\")' >/dev/null"
m=$(cat "$CPU1_MIN")
check "EPERM: scaling_min_freq follows the load instead ($m > $PLAT_MIN_KHZ)" [ "$m" -gt "$PLAT_MIN_KHZ" ]
check "EPERM: MSR bytes unchanged" msr_same
gov_wait
is "EPERM: start exits 0" "$GOV_RC" 0
check "EPERM: everything restored byte-exact" bash -c "diff -r '$P' '$T_TMP/orig' >/dev/null"
chmod 0644 "$P"/msr/*/msr

# 7. EPP from the profile: written, journaled, restored byte-exact.
EPP0=$P/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference
for prof in powersave:balance_power performance:performance balanced:balance_performance; do
	name=${prof%%:*} want=${prof#*:}
	seed_platform "$P" intel-active
	snapshot
	check "EPP $name: start comes up" gov_start $(plat_roots "$P") --no-idle --no-floor --profile "$name" --duration 3
	is "EPP $name: cpu0 EPP while running" "$(cat "$EPP0")" "$want"
	[ "$name" = powersave ] && check "EPP powersave: journaled" grep -q energy_performance_preference "${BPFGOV_RUN_DIR:-/run/bpfgov}/journal"
	gov_wait
	check "EPP $name: restored byte-exact" sys_same
done
GOVERNOR=performance seed_platform "$P" intel-active
snapshot
check "EPP under the performance governor: start comes up" gov_start $(plat_roots "$P") --no-idle --no-floor --profile powersave --duration 2
gov_wait
check "EPP skipped with a line" grep -q "EPP left as found: the cpufreq governor is performance" "$GOV_LOG"
check "EPP file untouched" sys_same

# 8. A CPU that comes online gets its floor at once.
seed_platform "$P" intel-active
echo 0 >"$P/sys/devices/system/cpu/cpu1/online"
echo 0 >"$P/sys/devices/system/cpu/online"
snapshot
check "hotplug: start comes up with cpu1 offline" gov_start $(plat_roots "$P") --no-idle --duration 6
bg taskset -c 1 "$WORK" spin --cpu 1 --duration 4.5
sleep 1.5
is "hotplug: offline cpu1 is not written" "$(hwp_min 1)" "$HWP_LOWEST"
echo 1 >"$P/sys/devices/system/cpu/cpu1/online"
echo 0-1 >"$P/sys/devices/system/cpu/online"
# seen at the loop's next wake-up: a decision, or the second's round
for i in $(seq 1 25); do
	grep -q "online CPUs changed" "$GOV_LOG" && break
	sleep 0.1
done
check "hotplug: the change is seen and re-applied" grep -q "online CPUs changed (0 -> 0-1): re-applying" "$GOV_LOG"
m=$(hwp_min 1)
check "hotplug: cpu1 HWP_REQUEST.min set after online ($m > $HWP_LOWEST)" [ "$m" -gt "$HWP_LOWEST" ]
gov_wait
check "hotplug: MSR restored byte-exact" msr_same
t_done
