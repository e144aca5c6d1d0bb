#!/usr/bin/env bash
# Fault tests of the daemon's HTTP status listener (issue 14, item 5): a
# client that opens many idle TCP connections must not lock /status and
# /metrics out.
#   - 200 idle connections to the default listener: /status still answers
#     within 1 s, and so does /metrics
#   - with status_max_connections = 16: the connections over the limit are
#     closed within 2 s (the oldest idle ones first), never left queued
#   - with status_idle_timeout = "5s": an idle connection is closed within
#     the timeout and 3 s more
# All on 127.0.0.1 with an ephemeral port; 400 connections in all.
# Usage: tests/daemon/fault_http.sh [BUILD_DIR]   (default build)
set -uo pipefail
. "$(dirname "$0")/common.sh"
py=$(command -v python3)
need_daemon fault_http
[ -n "$py" ] || { skip fault_http "python3 is not installed"; finish; }
if ! ls "$build"/.grpc-*-mhd-1* >/dev/null 2>&1 && ls "$build"/.grpc-*-mhd-0* >/dev/null 2>&1; then
  skip fault_http "built without libmicrohttpd (MHD=0)"; finish
fi
scratch fault_http

# flood PORT N WAIT: opens N idle connections to 127.0.0.1:PORT, then
# times GET /status and /metrics on a fresh connection (1 s each at most),
# then counts how many of the N the daemon has closed after 2 s and after
# WAIT s more.  Prints "status=CODE metrics=CODE ms=MS closed2=K closedW=K".
flood() {
  "$py" - "$@" <<'PY'
import socket, sys, time, select
port, n, wait = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
idle, refused = [], 0
for _ in range(n):
    try:
        idle.append(socket.create_connection(("127.0.0.1", port), timeout=1))
    except OSError:  # a full backlog: counted as closed
        refused += 1
def get(path):
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.settimeout(max(0.01, 1 - (time.monotonic() - t0)))
        s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
        code = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "000"
    except OSError:
        code = "000"
    return code, (time.monotonic() - t0) * 1000
c1, ms1 = get(b"/status")
c2, ms2 = get(b"/metrics")
closed = set()
def scan(until):
    while time.monotonic() < until:
        open_ = [s for s in idle if s not in closed]
        if not open_:
            return
        r, _, _ = select.select(open_, [], [], max(0, min(0.1, until - time.monotonic())))
        for s in r:
            try:
                if s.recv(1) == b"":
                    closed.add(s)
            except OSError:
                closed.add(s)
scan(time.monotonic() + 2)
k2 = len(closed) + refused
scan(time.monotonic() + wait)
print(f"status={c1} metrics={c2} ms={max(ms1, ms2):.0f} closed2={k2} closedW={len(closed) + refused}")
PY
}

field() { grep -o "$1=[0-9]*" <<<"$2" | cut -d= -f2; }

# answered NAME RESULT: /status and /metrics both 200 within 1 s in RESULT.
answered() {
  if [ "$(field status "$2")" = 200 ] && [ "$(field metrics "$2")" = 200 ] && [ "$(field ms "$2")" -lt 1000 ]; then
    pass "$1 ($2)"
  else fail "$1" "$2"; fi
}

# ---- 200 idle connections, the default limits ----------------------------------

printf '[daemon]\nlisten = "unix://%s/d.sock"\nstatus_listen = "127.0.0.1:0"\n' "$tmp" >"$tmp/a.toml"
if start_daemon "$tmp/a.log" --config "$tmp/a.toml"; then
  port=$(logged_port "$tmp/a.log" HTTP)
  answered "200 idle connections: /status and /metrics answer within 1 s" "$(flood "$port" 200 0)"
  kill -TERM "$pid"; wait "$pid" 2>/dev/null
else fail "daemon with status_listen starts" "exit $rc" "$(tail -5 "$tmp/a.log")"; fi

# ---- a limit of 16, an idle timeout of 5 s ---------------------------------------

# The idle timeout (5 s) well past the 2 s window in which the connections
# over the limit must be closed, so that a loaded machine does not see the
# kept 16 closed by the timeout inside the window too.
printf '[daemon]\nlisten = "unix://%s/d.sock"\nstatus_listen = "127.0.0.1:0"\nstatus_max_connections = 16\nstatus_idle_timeout = "5s"\n' \
  "$tmp" >"$tmp/b.toml"
if start_daemon "$tmp/b.log" --config "$tmp/b.toml"; then
  port=$(logged_port "$tmp/b.log" HTTP)
  r=$(flood "$port" 200 6)
  answered "limit 16, 200 idle connections: /status and /metrics answer within 1 s" "$r"
  # 200 opened, at most 16 kept: at least 184 closed at once, not queued
  k2=$(field closed2 "$r")
  if [ -n "$k2" ] && [ "$k2" -ge 184 ] && [ "$k2" -lt 200 ]; then pass "connections over the limit closed within 2 s ($k2 of 200)"
  else fail "connections over the limit closed within 2 s" "$r"; fi
  kw=$(field closedW "$r")
  if [ "$kw" = 200 ]; then pass "idle connections closed after status_idle_timeout (all 200)"
  else fail "idle connections closed after status_idle_timeout" "$r"; fi
  kill -TERM "$pid"; wait "$pid" 2>/dev/null
else fail "daemon with status_max_connections starts" "exit $rc" "$(tail -5 "$tmp/b.log")"; fi

finish
