#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Metrics: `start --metrics-listen` and `govloader metrics` pass
# `promtool check metrics` in both formats; a real Prometheus server,
# started here on 127.0.0.1 with a temporary config and data directory,
# scrapes the running governor and its query API returns bpfgov_cpu_floor
# for every CPU; a misbehaving client (bad method, huge header, garbage, a
# slowloris, a connection flood) gets errors or a closed socket, and the
# governor keeps running and serving.
. "$(dirname "$0")/../lib.sh"

export BPFGOV_RUN_DIR=$T_TMP/run
PORT=$((20000 + RANDOM % 20000))
PPORT=$((PORT + 1))
URL=http://127.0.0.1:$PORT/metrics
NCPU=$(nr_possible_cpus)

# Debian's python3 (its prometheus_client parses OpenMetrics strictly).
PY=/usr/bin/python3
for tool in promtool prometheus curl $PY; do
	command -v $tool >/dev/null || { not_ok "$tool missing (scripts/deps.sh installs it)"; t_done; exit 1; }
done

# 1. Bad values: usage error, one line, nothing started.
expect_fail "--metrics-listen without a port" 2 "expected PORT, ADDR:PORT" start --metrics-listen 127.0.0.1 --duration 1
expect_fail "--metrics-listen port out of range" 2 "expected PORT, ADDR:PORT" start --metrics-listen 70000 --duration 1
expect_fail "--metrics-listen host name" 2 "expected PORT, ADDR:PORT" start --metrics-listen localhost:9 --duration 1
expect_fail "metrics: unknown option" 2 "metrics: unknown option '--bogus'" metrics --bogus
expect_fail "metrics: -o without a value" 2 "needs a value" metrics -o

# 2. Not running: the one-shot says bpfgov_up 0, still valid.
out=$("$GOV" metrics)
check "metrics when not running: bpfgov_up 0" grep -qx 'bpfgov_up 0' <<<"$out"
check "metrics when not running: promtool check metrics" promtool check metrics <<<"$out"

# 3. A port already taken: a clear runtime error before anything loads.
$PY -c 'import socket,sys,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$PORT" &
busy=$!
sleep 0.5
expect_fail "--metrics-listen on a busy port" 1 "cannot serve" start --metrics-listen "127.0.0.1:$PORT" --dry-run --duration 5
kill $busy; wait $busy 2>/dev/null

# 4. Serve, in dry-run (the metrics path is the same either way).
gov_start --metrics-listen "$PORT" --dry-run
check "start --metrics-listen logs its URL" grep -q "metrics on http://127.0.0.1:$PORT/metrics" "$GOV_LOG"
bg taskset -c 1 "$WORK" sleep-cycle --busy-us 3000 --idle-us 3000 --duration 20 --cpu 1 >/dev/null 2>&1
sleep 2
curl -sS -D "$T_TMP/h" -o "$T_TMP/m.prom" "$URL"
check "GET /metrics: 200 text/plain version=0.0.4" grep -qi '^content-type: text/plain; version=0.0.4' "$T_TMP/h"
check "served text passes promtool check metrics" promtool check metrics <"$T_TMP/m.prom"
check "bpfgov_up 1" grep -qx 'bpfgov_up 1' "$T_TMP/m.prom"
is "bpfgov_cpu_floor for every CPU" "$(grep -c '^bpfgov_cpu_floor{cpu=' "$T_TMP/m.prom")" "$NCPU"
for m in bpfgov_build_info bpfgov_cpu_util bpfgov_cpu_applied_min bpfgov_cpu_idle_pick \
	 'bpfgov_decisions_total{cpu="0",kind="floor"}' 'bpfgov_decisions_total{cpu="0",kind="pick"}' \
	 bpfgov_idle_too_deep_total bpfgov_idle_too_shallow_total bpfgov_ringbuf_drops_total \
	 bpfgov_actuation_writes_total bpfgov_actuation_errors_total \
	 bpfgov_loader_wakeups_total bpfgov_loader_cpu_seconds_total \
	 'bpfgov_actuation_latency_seconds_bucket{le="+Inf"}' bpfgov_actuation_latency_seconds_count; do
	check "exposition has $m" grep -qF "$m" "$T_TMP/m.prom"
done
check "the loader counts its own wake-ups and CPU time ($(grep -E '^bpfgov_loader_(wakeups|cpu_seconds)_total' "$T_TMP/m.prom" | tr '\n' ' '))" \
	awk '$1 == "bpfgov_loader_wakeups_total" && $2 > 0 { w = 1 } $1 == "bpfgov_loader_cpu_seconds_total" && $2 > 0 { c = 1 } END { exit !(w && c) }' "$T_TMP/m.prom"
check "ratios stay within 0..1" awk '/^bpfgov_cpu_(util|floor|target)\{/ { if ($2 < 0 || $2 > 1) bad = 1 } END { exit bad }' "$T_TMP/m.prom"
check "every counter ends in _total" awk '/^# TYPE / && $4 == "counter" && $3 !~ /_total$/ { bad = 1 } END { exit bad }' "$T_TMP/m.prom"

curl -sS -D "$T_TMP/h2" -H 'Accept: application/openmetrics-text; version=1.0.0' -o "$T_TMP/m.om" "$URL"
check "Accept openmetrics: openmetrics content type" grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$T_TMP/h2"
is "OpenMetrics ends with # EOF" "$(tail -n1 "$T_TMP/m.om")" "# EOF"
check "OpenMetrics counter families have no _total" grep -qx '# TYPE bpfgov_decisions counter' "$T_TMP/m.om"
check "OpenMetrics parses with prometheus_client's strict OpenMetrics parser" $PY -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
fams = list(parse(open(sys.argv[1]).read()))
assert any(f.name == "bpfgov_cpu_floor" for f in fams)' "$T_TMP/m.om"

"$GOV" metrics >"$T_TMP/once.prom"
check "govloader metrics passes promtool check metrics" promtool check metrics <"$T_TMP/once.prom"
is "govloader metrics: same series as the server" \
	"$(grep -v '^#' "$T_TMP/once.prom" | sed 's/[ ][^ ]*$//' | sort | md5sum)" \
	"$(grep -v '^#' "$T_TMP/m.prom" | sed 's/[ ][^ ]*$//' | sort | md5sum)"
mkdir -p "$T_TMP/textfile"
"$GOV" metrics -o "$T_TMP/textfile/bpfgov.prom"
check "metrics -o FILE passes promtool" promtool check metrics <"$T_TMP/textfile/bpfgov.prom"
is "metrics -o leaves only FILE (no temp file), mode 0644" \
	"$(ls -A "$T_TMP/textfile") $(stat -c %a "$T_TMP/textfile/bpfgov.prom")" "bpfgov.prom 644"
expect_fail_o() { "$GOV" metrics -o "$T_TMP/nodir/x.prom" 2>"$T_TMP/err"; }
check "metrics -o into a missing directory: exit 1" test "$(expect_fail_o; echo $?)" = 1

# 5. A real Prometheus scrapes it.
mkdir -p "$T_TMP/prom"
cat >"$T_TMP/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: bpfgov
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
check "promtool check config accepts the scrape config" quiet promtool check config "$T_TMP/prom/prometheus.yml"
timeout 120 prometheus --config.file="$T_TMP/prom/prometheus.yml" \
	--storage.tsdb.path="$T_TMP/prom/data" --web.listen-address="127.0.0.1:$PPORT" \
	--storage.tsdb.retention.time=1h >"$T_TMP/prom/log" 2>&1 &
prom=$!
BG_PIDS+=($prom)
n=0
for i in $(seq 1 90); do
	n=$(curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=bpfgov_cpu_floor" |
	    jq -r '[.data.result[] | select(.metric.job == "bpfgov")] | length' 2>/dev/null)
	[ "${n:-0}" -ge "$NCPU" ] && break
	sleep 1
done
is "Prometheus query API: bpfgov_cpu_floor for every CPU" "${n:-0}" "$NCPU"
up=$(curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=up%7Bjob%3D%22bpfgov%22%7D" | jq -r '.data.result[0].value[1]')
is "Prometheus: up{job=bpfgov} is 1" "$up" "1"
lat=$(curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=bpfgov_actuation_latency_seconds_count" | jq -r '.data.result | length')
is "Prometheus: the latency histogram is ingested" "$lat" "1"
err=$(curl -s "http://127.0.0.1:$PPORT/api/v1/targets" | jq -r '.data.activeTargets[0].lastError')
is "Prometheus: no scrape error" "$err" ""
kill $prom 2>/dev/null; wait $prom 2>/dev/null

# 6. A misbehaving client over a raw socket.
cat >"$T_TMP/bad.py" <<'EOF'
import socket, sys, time
port = int(sys.argv[1]); what = sys.argv[2]
def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    return s
def status(s):
    data = b""
    try:
        while not data.endswith(b"\r\n\r\n") and b"\r\n" not in data[:200]:
            b = s.recv(4096)
            if not b: break
            data += b
    except (ConnectionResetError, socket.timeout):
        pass
    line = data.split(b"\r\n")[0].decode("latin1")
    return line or "closed"
if what == "method":
    s = conn(); s.sendall(b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); print(status(s))
elif what == "post":
    s = conn(); s.sendall(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"); print(status(s))
elif what == "header":
    s = conn()
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    print(status(s))
elif what == "garbage":
    s = conn(); s.sendall(bytes(range(256)) * 8 + b"\r\n\r\n"); print(status(s))
elif what == "version":
    s = conn(); s.sendall(b"GET /metrics HTTP/9.9\r\n\r\n"); print(status(s))
elif what == "path":
    s = conn(); s.sendall(b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"); print(status(s))
elif what.startswith("get:"):
    s = conn(); s.sendall(b"GET " + what[4:].encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"); print(status(s))
elif what == "slowloris":
    # One header byte a second, never finishing: the server must cut it.
    s = conn(); s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 60:
            s.sendall(b"X")
            time.sleep(1)
            s.setblocking(False)
            try:
                if s.recv(4096) == b"":
                    break
            except BlockingIOError:
                pass
            s.setblocking(True)
    except (BrokenPipeError, ConnectionResetError):
        pass
    print("cut" if time.monotonic() - t0 < 60 else "still open")
elif what == "flood":
    socks = []
    for i in range(40):
        try:
            socks.append(conn())
        except OSError:
            break
    time.sleep(1)
    alive = 0
    for s in socks:
        s.setblocking(False)
        try:
            alive += s.recv(1) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    print("open %d" % alive)
EOF
bad() { timeout 90 $PY "$T_TMP/bad.py" "$PORT" "$1" 2>&1; }
r=$(bad method);  check "DELETE: 405 ($r)" grep -q ' 405 ' <<<"$r"
r=$(bad post);    check "POST: 405 ($r)" grep -q ' 405 ' <<<"$r"
r=$(bad header);  check "200 kB header: 4xx or closed ($r)" grep -Eq ' 4[0-9][0-9] |closed' <<<"$r"
r=$(bad garbage); check "binary garbage: 400 or closed ($r)" grep -Eq ' 400 |closed' <<<"$r"
r=$(bad version); check "HTTP/9.9: 505/400 or closed ($r)" grep -Eq ' 505 | 400 |closed' <<<"$r"
r=$(bad path);    check "other path: 404 ($r)" grep -q ' 404 ' <<<"$r"
# Only the exact path, after decoding: an encoded NUL or a suffix is not it.
for p in '/metrics%00.txt' '/metrics%00' '/metrics.txt' '/metrics/' '/%6detrics%00x' '/metrics%zz'; do
	r=$(bad "get:$p"); check "GET $p: 404 ($r)" grep -q ' 404 ' <<<"$r"
done
r=$(bad get:/%6detrics); check "GET /%6detrics (encoded /metrics): 200 ($r)" grep -q ' 200 ' <<<"$r"
r=$(bad slowloris); is "slowloris is cut within the request deadline" "$r" "cut"
r=$(bad flood);   check "connection flood: at most 16 kept ($r)" test "${r#open }" -le 16
# Flooded connections time out; then scrapes work again.
for i in $(seq 1 30); do
	curl -s -m 2 -o "$T_TMP/after.prom" "$URL" && break
	sleep 1
done
check "governor still running after the bad clients" kill -0 "$GOV_PID"
check "status still answers" quiet "$GOV" status
check "the next scrape works and passes promtool" promtool check metrics <"$T_TMP/after.prom"

"$GOV" stop >/dev/null 2>&1
gov_wait
is "stop: exit 0" "$GOV_RC" 0
check "the loader's state map is unpinned at exit" test ! -e "$PIN/loader_state"
check "nothing listens after stop" bash -c "! curl -s -m 2 -o /dev/null '$URL'"
t_done
