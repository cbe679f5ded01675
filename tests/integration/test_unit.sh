#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The systemd unit (dist/bpfgov.service): its sandbox, rated by
# `systemd-analyze security --offline=true` (no running systemd needed):
# exposure 4.0 or lower; each setting the hardening relies on is there;
# exit 2 and 4 (a bad option, a journal that needs an operator) are not
# restarted; SCHED_FIFO stays possible; docs/OPERATIONS.md quotes the
# score. Nothing is started.
. "$(dirname "$0")/../lib.sh"

UNIT=$TOP/dist/bpfgov.service
DOC=$TOP/docs/OPERATIONS.md
# the value of KEY= in the unit (the last one)
val() { sed -n "s/^$1=//p" "$UNIT" | tail -n1; }

if ! command -v systemd-analyze >/dev/null; then
	not_ok "systemd-analyze is installed (package systemd)"
	t_done
	exit 1
fi
cp "$UNIT" "$T_TMP/bpfgov.service"
systemd-analyze security --offline=true "$T_TMP/bpfgov.service" >"$T_TMP/sec" 2>&1
score=$(sed -n 's/.*Overall exposure level for bpfgov.service: \([0-9.]*\).*/\1/p' "$T_TMP/sec")
diag "systemd-analyze security: exposure ${score:-?}"
check "systemd-analyze rates the unit (exposure ${score:-none})" test -n "$score"
check "exposure $score is 4.0 or lower" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 4.0) }'
check "docs/OPERATIONS.md quotes that score ($score)" grep -q "exposure $score" "$DOC"

is "ProtectSystem=strict" "$(val ProtectSystem)" strict
is "ReadWritePaths: the lock, the per-CPU knobs and the pins only" "$(val ReadWritePaths)" \
	"/run/bpfgov.lock /sys/devices/system/cpu /sys/fs/bpf"
is "the run directory is the unit's, 0700, kept across stops (the journal)" \
	"$(val RuntimeDirectory) $(val RuntimeDirectoryMode) $(val RuntimeDirectoryPreserve)" "bpfgov 0700 yes"
for kv in ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes UMask=0077 ProtectKernelTunables=yes \
	  ProtectKernelModules=yes ProtectControlGroups=yes SystemCallArchitectures=native \
	  DevicePolicy=closed "DeviceAllow=char-cpu/msr rw" RestrictNamespaces=yes \
	  RestrictSUIDSGID=yes MemoryDenyWriteExecute=yes LockPersonality=yes; do
	is "$kv" "${kv%%=*}=$(val "${kv%%=*}")" "$kv"
done
is "CapabilityBoundingSet: exactly what it uses" "$(val CapabilityBoundingSet | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_NICE CAP_SYS_RAWIO "
is "RestrictAddressFamilies: D-Bus and metrics" "$(val RestrictAddressFamilies)" "AF_UNIX AF_INET AF_INET6"
is "SCHED_FIFO stays possible (RestrictRealtime=no, CAP_SYS_NICE kept)" "$(val RestrictRealtime)" no
check "sched_setscheduler is not filtered" bash -c "! grep -q '^SystemCallFilter=.*@resources' '$UNIT'"
check "bpf, perf_event_open and mount are not filtered" \
	bash -c "! grep -qE '^SystemCallFilter=.*@(privileged|debug|mount)' '$UNIT'"
is "not restarted on a bad option (2) or a journal that needs an operator (4)" \
	"$(val RestartPreventExitStatus)" "2 4"
check "ExecStopPost restores the journal" grep -q '^ExecStopPost=.*govloader restore$' "$UNIT"
t_done
