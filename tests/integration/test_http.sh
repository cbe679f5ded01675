#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The metrics server under slow clients (loopback only, bounded): two
# client addresses (127.0.0.2, 127.0.0.3) each keep trying to hold 10
# connections open by sending a request one byte at a time, and reconnect
# whenever the server cuts one, for 12 s. Meanwhile:
#  - every scrape from 127.0.0.1 answers 200 within 2 s;
#  - the server holds at most 2 connections of each slow address;
#  - a connection that says nothing is closed within the idle limit (3 s,
#    the watchdog ticks once a second), one that never finishes its request
#    within the request deadline (5 s);
#  - --metrics-listen takes an IPv6 address without brackets (a pod's
#    address from the downward API), when the machine has ::1.
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
for tool in curl $PY; do
	command -v $tool >/dev/null || { not_ok "$tool missing (scripts/deps.sh installs it)"; t_done; exit 1; }
done
PORT=$((20000 + RANDOM % 20000))
URL=http://127.0.0.1:$PORT/metrics
SLOW=127.0.0.2,127.0.0.3
DUR=12

gov_start --metrics-listen "127.0.0.1:$PORT" --dry-run || { not_ok "start with --metrics-listen"; t_done; exit 1; }
ok "start --metrics-listen 127.0.0.1:$PORT --dry-run"
GPID=$GOV_PID

cat >"$T_TMP/slow.py" <<'EOF'
# slow.py PORT SRC[,SRC...] PER_SRC SECONDS: from each source address, keep
# PER_SRC connections that send a request a byte at a time; reconnect what
# the server closes. Prints the connections made.
import socket, sys, time
port, srcs, per, dur = int(sys.argv[1]), sys.argv[2].split(","), int(sys.argv[3]), float(sys.argv[4])
held = {s: [] for s in srcs}
made = 0
end = time.monotonic() + dur
while time.monotonic() < end:
    for src in srcs:
        live = []
        for c in held[src]:
            try:
                c.send(b"X")
                live.append(c)
            except BlockingIOError:
                live.append(c)
            except OSError:
                c.close()
        held[src] = live
        while len(held[src]) < per:
            c = socket.socket()
            c.bind((src, 0))
            c.settimeout(0.2)
            try:
                c.connect(("127.0.0.1", port))
                c.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                c.setblocking(False)
                held[src].append(c)
                made += 1
            except OSError:
                c.close()
                break
    time.sleep(0.5)
print(made)
EOF
cat >"$T_TMP/held.py" <<'EOF'
# held.py PID PORT: the most established connections to PORT that PID holds
# (accepted: its descriptors) of one peer address other than 127.0.0.1.
import os, sys
pid, port = sys.argv[1], int(sys.argv[2])
inodes = set()
for fd in os.listdir(f"/proc/{pid}/fd"):
    try:
        link = os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])
count = {}
for line in open(f"/proc/{pid}/net/tcp").readlines()[1:]:
    f = line.split()
    if f[3] != "01" or f[9] not in inodes or int(f[1].split(":")[1], 16) != port:
        continue
    h = f[2].split(":")[0]
    ip = ".".join(str(int(h[i:i + 2], 16)) for i in (6, 4, 2, 0))
    count[ip] = count.get(ip, 0) + 1
print(max([n for ip, n in count.items() if ip != "127.0.0.1"] or [0]))
EOF
timeout $((DUR + 10)) $PY "$T_TMP/slow.py" "$PORT" "$SLOW" 10 "$DUR" >"$T_TMP/made" 2>"$T_TMP/slow.err" &
slow=$!
BG_PIDS+=($slow)
sleep 1

# Scrapes and the server's own sockets per peer, once a second.
n=0 good=0 worst=0 held_max=0
for i in $(seq 1 $((DUR - 3))); do
	n=$((n + 1))
	r=$(curl -s -o "$T_TMP/m.prom" -m 2 -w '%{http_code} %{time_total}' "$URL")
	if [ "${r% *}" = 200 ] && grep -qx 'bpfgov_up 1' "$T_TMP/m.prom"; then
		good=$((good + 1))
	fi
	t=${r#* }
	awk -v t="$t" -v w="$worst" 'BEGIN { exit !(t > w) }' && worst=$t
	h=$($PY "$T_TMP/held.py" "$GPID" "$PORT" 2>/dev/null || echo 0)
	[ "$h" -gt "$held_max" ] && held_max=$h
	sleep 1
done
wait $slow
made=$(cat "$T_TMP/made")
diag "slow clients made ${made:-?} connections in $DUR s; scrapes $good of $n, slowest ${worst} s; most held of one slow address: $held_max"
check "slow clients ran (they connected at least 4 times)" test "${made:-0}" -ge 4
is "every scrape during the slow clients answered (200, bpfgov_up 1, within 2 s)" "$good" "$n"
check "the server held at most 2 connections of a slow address (held $held_max)" test "$held_max" -le 2 -a "$held_max" -ge 1

# One connection saying nothing, one sending a byte every half second.
cat >"$T_TMP/one.py" <<'EOF'
import socket, sys, time
port, what = int(sys.argv[1]), sys.argv[2]
c = socket.create_connection(("127.0.0.1", port), timeout=0.5)
if what == "trickle":
    c.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
t0 = time.monotonic()
while time.monotonic() - t0 < 15:
    try:
        if what == "trickle":
            c.send(b"X")
        if c.recv(4096) == b"":
            break
    except socket.timeout:
        continue
    except OSError:
        break
print("%.1f" % (time.monotonic() - t0))
EOF
t=$(timeout 20 $PY "$T_TMP/one.py" "$PORT" idle)
check "a silent connection is closed within 4.5 s ($t s)" awk -v t="${t:-99}" 'BEGIN { exit !(t <= 4.5) }'
t=$(timeout 20 $PY "$T_TMP/one.py" "$PORT" trickle)
check "a request sent a byte at a time is cut within 6.5 s ($t s)" awk -v t="${t:-99}" 'BEGIN { exit !(t <= 6.5) }'
r=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$URL")
is "a scrape afterwards answers 200" "$r" 200

"$GOV" stop >/dev/null 2>&1
gov_wait
is "start exited 0 after stop" "$GOV_RC" 0

# IPv6 without brackets: ADDR:PORT, the port after the last colon.
if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
	P6=$((20000 + RANDOM % 20000))
	if gov_start --metrics-listen "::1:$P6" --dry-run; then
		check "--metrics-listen ::1:$P6 logs http://[::1]:$P6/metrics" grep -q "metrics on http://\[::1\]:$P6/metrics" "$GOV_LOG"
		r=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://[::1]:$P6/metrics")
		is "scrape of [::1]:$P6 answers 200" "$r" 200
		"$GOV" stop >/dev/null 2>&1
		gov_wait
	else
		not_ok "--metrics-listen ::1:$P6 (unbracketed IPv6) starts"
	fi
else
	diag "no ::1 on this machine: the unbracketed IPv6 address is not tried"
fi
t_done
