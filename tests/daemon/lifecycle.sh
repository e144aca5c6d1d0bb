#!/usr/bin/env bash
# cuzk-daemon's lifecycle, with the daemon as a helper process:
#   - bad command lines and configs exit 2 with the file, line, key and
#     what was expected; --check prints the effective config, which reads
#     back to itself
#   - start with a config: the socket's directory is made, GET /metrics and
#     /status answer (JSON checked), 404/405 otherwise; HTTP on a unix
#     socket and on TCP port 0
#   - jobs proved through cuzk's client (prove --remote, submit + await)
#     are counted in /status and /metrics
#   - unix sockets: a stale file is replaced, a live one (another daemon)
#     and a non-socket file are not (exit 1)
#   - SIGTERM idle, while jobs run ([shutdown] cancel_running false: they
#     finish, their clients get the proofs, new submissions are refused;
#     true: they are cancelled), while a key loads: exit 0, socket files
#     removed; SIGHUP is ignored; a second SIGTERM exits 1 at once
# The job tests need the gRPC client (build/cuzk submit); without it they
# are skipped.  A daemon that does not stop in time is killed and the test
# fails.
# Usage: tests/daemon/lifecycle.sh [BUILD_DIR]   (default build)
# Prints "N passed, N failed, N skipped" last; exit status 0 when none failed.
set -uo pipefail
. "$(dirname "$0")/common.sh"
py=$(command -v python3)

need_daemon lifecycle
have_client=0
client_built && have_client=1

scratch lifecycle

# ---- helpers -----------------------------------------------------------------

# config NAME [TOML lines...]: writes $tmp/NAME.toml with the example circuit.
config() {
  local name=$1; shift
  { printf '%s\n' "$@"; printf '[[circuits]]\nid = "mul"\npath = "%s/circuit.zkey"\n' "$EX"; } >"$tmp/$name.toml"
  echo "$tmp/$name.toml"
}

# start NAME ARGS...: start_daemon (common.sh) with the log $tmp/NAME.log.
start() {
  local name=$1; shift
  start_daemon "$tmp/$name.log" "$@"
}

# stop_wait PID SECS: waits for PID to exit; $rc its status (124 and a
# SIGKILL when it did not exit in time).
stop_wait() {
  local p=$1 secs=$2
  if wait_for "$secs" exited "$p"; then wait "$p"; rc=$?; return 0; fi
  kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; rc=124
  return 1
}

# get ADDR PATH [METHOD]: an HTTP request to "unix://SOCK" or "HOST:PORT";
# prints the status code on the first line, then the body.
get() {
  "$py" - "$1" "$2" "${3:-GET}" 2>/dev/null <<'EOF'
import http.client, socket, sys
addr, path, method = sys.argv[1:4]
class UnixConn(http.client.HTTPConnection):
    def __init__(self, p): super().__init__("localhost", timeout=10); self.p = p
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); self.sock.settimeout(10); self.sock.connect(self.p)
if addr.startswith("unix://"):
    c = UnixConn(addr[7:])
else:
    h, _, port = addr.rpartition(":"); c = http.client.HTTPConnection(h, int(port), timeout=10)
try:
    c.request(method, path); r = c.getresponse()
    print(r.status); sys.stdout.write(r.read().decode())
except Exception as e:
    print("000"); print(e)
EOF
}

# expect_exit2 NAME WANT ARGS...: the daemon with ARGS exits 2, its
# message contains WANT.
expect_exit2() {
  local name=$1 want=$2; shift 2
  local out
  out=$(timeout 30 "$DAEMON" "$@" 2>&1); rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$out"; then pass "$name"
  else fail "$name" "expected exit 2 with: $want" "got exit $rc: $(head -c 600 <<<"$out")"; fi
}

is_gone() { [ ! -e "$1" ]; }

# bad_config NAME WANT LINES...: a config of LINES (and the example
# circuit) exits 2 with WANT, in which @F stands for the file's path.
bad_config() {
  local name=$1 want=$2; shift 2
  local f
  f=$(config "$name" "$@")
  expect_exit2 "config: $name" "${want//@F/$f}" --config "$f"
}

# bigconf NAME LINES...: $tmp/NAME.toml of LINES, one single-threaded CPU
# worker and the 2^16 key "big".
bigconf() {
  local name=$1; shift
  { printf '%s\n' "$@"; printf '[cpu]\nworkers = 1\nthreads = 1\n[[circuits]]\nid = "big"\npath = "%s/circuit.zkey"\n' "$big"; } \
    >"$tmp/$name.toml"
}

# ---- command line and configs ----------------------------------------------

out=$("$DAEMON" --help 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q "usage: cuzk-daemon" <<<"$out" && grep -q "exit status" <<<"$out"; then pass "help"
else fail "help" "exit $rc: $out"; fi
expect_exit2 "unknown option" "unknown option '--bogus'" --bogus
expect_exit2 "option without value" "--config needs a value" --config

expect_exit2 "config: missing file" "config file: $tmp/nope.toml: cannot open: No such file" --config "$tmp/nope.toml"
bad_config syntax "@F:2:10: expected a value" '[daemon]' 'listen = unix'
bad_config unknown_key "@F:2:1: [memory] unknown key 'host_budgte' (did you mean 'host_budget'?)" \
  '[memory]' 'host_budgte = "1GiB"'
bad_config unknown_section "@F:1:2: unknown section [scheduler]" '[scheduler]' 'max_batch_size = 1'
bad_config wrong_type "@F:2:11: [cpu] workers: expected an integer from 1 to 256, found string \"2\"" \
  '[cpu]' 'workers = "2"'
bad_config out_of_range "@F:2:26: [gpus] gpu_workers_per_device: expected an integer from 1 to 16, found 0" \
  '[gpus]' 'gpu_workers_per_device = 0'
bad_config bad_size "@F:2:15: [memory] host_budget: expected \"auto\" or a size like \"512GiB\"" \
  '[memory]' 'host_budget = "lots"'
bad_config bad_duration "@F:2:21: [memory] eviction_min_idle: expected a duration like \"500ms\"" \
  '[memory]' 'eviction_min_idle = "5 minutes"'
bad_config bad_address "@F:2:10: [daemon] listen: expected \"unix:///path/to.sock\" or \"host:port\"" \
  '[daemon]' 'listen = "localhost"'
bad_config budgets "@F:3: [memory] queue_budget (2GiB) must be below host_budget" \
  '[memory]' 'host_budget = "2GiB"' 'queue_budget = "2GiB"'
# A [[circuits]] key that is missing, or not a BLS12-381 key: --check and
# the start refuse it with one message, "circuit ID: " then the reader's.
"$py" "$repo/tests/malformed/gen.py" "$tmp/mal" >/dev/null
bad_key() { # bad_key ID PATH WANT
  local id=$1 path=$2 want=$3 c s crc src
  printf '[[circuits]]\nid = "%s"\npath = "%s"\n' "$id" "$path" >"$tmp/key-$id.toml"
  c=$("$DAEMON" --check --config "$tmp/key-$id.toml" 2>&1 >/dev/null); crc=$?
  s=$(timeout 30 "$DAEMON" --config "$tmp/key-$id.toml" --listen "unix://$tmp/key-$id.sock" 2>&1); src=$?
  if [ "$crc" -eq 2 ] && [ "$src" -eq 2 ] && [ "$c" = "$s" ] && grep -qF -- "cuzk-daemon: circuit $id: $path: " <<<"$c" &&
     grep -qF -- "$want" <<<"$c" &&
     ! grep -qF ': : ' <<<"$c"; then pass "config: key $id refused by --check as by the start"
  else fail "config: key $id refused by --check as by the start" "--check: exit $crc: $c" "start: exit $src: $(head -c 600 <<<"$s")"; fi
  is_gone "$tmp/key-$id.sock" && pass "refused start leaves no socket ($id)" || fail "refused start leaves no socket ($id)" "$tmp/key-$id.sock exists"
}
bad_key gone "$tmp/none.zkey" "cannot open: No such file or directory"
bad_key bn "$tmp/mal/bn254.zkey" "BN254 keys are not supported yet"
chmod 000 "$tmp/mal/valid.zkey"
[ -r "$tmp/mal/valid.zkey" ] || bad_key unreadable "$tmp/mal/valid.zkey" "cannot open: Permission denied"
chmod 644 "$tmp/mal/valid.zkey"
expect_exit2 "--listen validated" "--listen: expected \"unix:///path/to.sock\" or \"host:port\"" --listen nowhere
expect_exit2 "--log-level validated" "--log-level: expected \"error\", \"warn\", \"info\" or \"debug\"" --log-level loud
out=$("$DAEMON" --check --status-listen 127.0.0.1:1 2>&1); rc=$?
if [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && grep -q "built without libmicrohttpd" <<<"$out"; }; then
  pass "status_listen without libmicrohttpd says so"
else fail "status_listen without libmicrohttpd says so" "exit $rc: $out"; fi

# --check: a value from the command line is printed as such, not "(default)"
out=$("$DAEMON" --check --listen "unix://$tmp/cli.sock" --log-level warn 2>&1)
if grep -qF "listen = \"unix://$tmp/cli.sock\"" <<<"$out" && grep -E '^listen = ' <<<"$out" | grep -qF '(from --listen)' &&
   grep -E '^level = "warn"' <<<"$out" | grep -qF '(from --log-level)' && ! grep -E '^(listen|level) = ' <<<"$out" | grep -q '(default)'; then
  pass "--check marks command-line values (from --option)"
else fail "--check marks command-line values (from --option)" "$(grep -E '^(listen|level) = ' <<<"$out")"; fi

# device_budget = "auto": the margin the printed config states (the code's
# ENGINE_DEVICE_MARGIN_MIB) is the one examples/cuzk.toml and docs/daemon.md state.
m_code=$(grep -E '^device_budget = ' <<<"$out" | grep -oE 'less [0-9]+ ?[KMG]iB')
m_example=$(grep -B3 '^device_budget' examples/cuzk.toml | tr '\n' ' ' | grep -oE 'less [0-9]+ ?[KMG]iB')
m_doc=$(grep -F '| `device_budget` |' docs/daemon.md | grep -oE 'less [0-9]+ ?[KMG]iB')
if [ -n "$m_code" ] && [ "$m_code" = "$m_example" ] && [ "$m_code" = "$m_doc" ]; then pass "device_budget auto margin: code, example and docs agree ($m_code)"
else fail "device_budget auto margin: code, example and docs agree" "printed: '$m_code'" "examples/cuzk.toml: '$m_example'" "docs/daemon.md: '$m_doc'"; fi

# --check: the effective config, read back to itself
"$DAEMON" --check --config examples/cuzk.toml >"$tmp/eff1.toml" 2>"$tmp/check.err"; rc=$?
"$DAEMON" --check --config "$tmp/eff1.toml" >"$tmp/eff2.toml" 2>>"$tmp/check.err"; rc2=$?
if [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] &&
   diff <(sed 's/  #.*//; /^# read from/d' "$tmp/eff1.toml") <(sed 's/  #.*//; /^# read from/d' "$tmp/eff2.toml") >"$tmp/check.diff" &&
   grep -q "path = \"$EX/circuit.zkey\"" "$tmp/eff1.toml" && grep -q 'workers = 2  #' "$tmp/eff1.toml"; then
  pass "--check prints the effective config, which reads back to itself"
else fail "--check prints the effective config, which reads back to itself" "exit $rc/$rc2" "$(cat "$tmp/check.err" "$tmp/check.diff" 2>/dev/null | head -20)"; fi

# ---- start, HTTP ----------------------------------------------------------------

sock=$tmp/run/sub/cuzk.sock     # its directory does not exist yet
hsock=$tmp/run/http.sock
f=$(config main '[cpu]' 'workers = 1' 'threads = 1')
if start main --config "$f" --listen "unix://$sock" --status-listen "unix://$hsock"; then
  main_pid=$pid
  pass "start (socket directory made)"
  grep -q '^\[memory\]' "$tmp/main.log" && grep -q 'effective config' "$tmp/main.log" &&
    grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z info  cuzk-daemon starting' "$tmp/main.log" &&
    pass "logs: effective config and timestamped lines" || fail "logs: effective config and timestamped lines" "$(head -5 "$tmp/main.log")"
  r=$(get "unix://$hsock" /metrics)
  if [ "$(head -1 <<<"$r")" = 200 ] && grep -q '^cuzk_proofs_completed_total 0' <<<"$r"; then pass "GET /metrics"
  else fail "GET /metrics" "$(head -5 <<<"$r")"; fi
  r=$(get "unix://$hsock" /status)
  if [ "$(head -1 <<<"$r")" = 200 ] && tail -n +2 <<<"$r" | "$py" -c '
import json, sys
d = json.load(sys.stdin)
for k in ("uptime_s", "devices", "cpu", "keys", "queues", "budgets", "counters"):
    assert k in d, k
k = [x for x in d["keys"] if x["id"] == "mul"][0]
assert k["tier"] in ("disk", "mapped", "pinned", "device") and k["size_bytes"] > 0 and k["refcount"] == 0, k
assert d["cpu"]["workers"] == 1, d["cpu"]
assert d["budgets"]["host"]["budget_bytes"] > d["budgets"]["queue"]["budget_bytes"] > 0, d["budgets"]
assert d["counters"] == {"completed": 0, "failed": 0, "cancelled": 0}, d["counters"]
' 2>"$tmp/json.err"; then pass "GET /status (JSON: devices, keys, queues, budgets, counters, uptime)"
  else fail "GET /status (JSON: devices, keys, queues, budgets, counters, uptime)" "$(head -3 <<<"$r")" "$(cat "$tmp/json.err")"; fi
  r=$(get "unix://$hsock" /nope)
  [ "$(head -1 <<<"$r")" = 404 ] && grep -q '"code":"not_found"' <<<"$r" && pass "GET /nope is 404" || fail "GET /nope is 404" "$r"
  r=$(get "unix://$hsock" /status POST)
  [ "$(head -1 <<<"$r")" = 405 ] && pass "POST /status is 405" || fail "POST /status is 405" "$r"

  # jobs through cuzk's client
  if [ "$have_client" = 1 ]; then
    A=unix://$sock
    ok=1; msgs=()
    "$CUZK" prove --addr "$A" --circuit mul "$EX/witness.wtns" "$tmp/p0.json" "$tmp/pub0.json" 2>"$tmp/c.err" ||
      { ok=0; msgs+=("prove --addr: $(cat "$tmp/c.err")"); }
    jobs=()
    for i in 1 2 3; do # (no --json: the JSON travels with the job)
      j=$("$CUZK" submit --addr "$A" mul "$EX/witness.wtns" 2>>"$tmp/c.err") || { ok=0; msgs+=("submit: $(cat "$tmp/c.err")"); }
      jobs+=("$j")
    done
    for i in 1 2 3; do
      "$CUZK" await --addr "$A" "${jobs[$((i-1))]}" "$tmp/p$i.json" "$tmp/pub$i.json" 2>>"$tmp/c.err" ||
        { ok=0; msgs+=("await ${jobs[$((i-1))]}: $(cat "$tmp/c.err")"); }
    done
    for i in 0 1 2 3; do
      "$CUZK" verify "$EX/verification_key.json" "$tmp/pub$i.json" "$tmp/p$i.json" >/dev/null 2>&1 ||
        { ok=0; msgs+=("proof $i does not verify"); }
    done
    [ "$ok" = 1 ] && pass "4 jobs proved through the client, proofs verify" || fail "4 jobs proved through the client, proofs verify" "${msgs[@]}"
    r=$(get "unix://$hsock" /status)
    tail -n +2 <<<"$r" | "$py" -c 'import json,sys; d=json.load(sys.stdin); assert d["counters"]["completed"] == 4, d["counters"]' 2>"$tmp/json.err" &&
      grep -q '^cuzk_proofs_completed_total 4' <<<"$(get "unix://$hsock" /metrics)" &&
      pass "/status and /metrics count the 4 proofs" || fail "/status and /metrics count the 4 proofs" "$(cat "$tmp/json.err")"
    # the CPU's proving time is stage "prove", whatever the device
    m=$(get "unix://$hsock" /metrics)
    grep -qE '^cuzk_stage_seconds_total\{stage="prove"\} [0-9.]*[1-9]' <<<"$m" && ! grep -q 'stage="gpu"' <<<"$m" &&
      pass "/metrics: the quotient and MSMs are stage=\"prove\"" ||
      fail "/metrics: the quotient and MSMs are stage=\"prove\"" "$(grep cuzk_stage_seconds_total <<<"$m")"
  else
    skip "jobs through the client" "build/cuzk has no gRPC client (submit)"
  fi

  kill -HUP "$pid"; wait_for 60 in_log "$tmp/main.log" SIGHUP
  [ "$(get "unix://$hsock" /status | head -1)" = 200 ] && grep -q "SIGHUP" "$tmp/main.log" && pass "SIGHUP is logged and ignored" ||
    fail "SIGHUP is logged and ignored" "$(tail -3 "$tmp/main.log")"

  # another daemon on the same socket: refused, the first one unharmed
  if start second --config "$f" --listen "unix://$sock"; then
    fail "a second daemon on a live socket exits 1" "it started"; kill -KILL "$pid"
  else
    [ "$rc" -eq 1 ] && grep -q "another process is listening" "$tmp/second.log" && [ -S "$sock" ] &&
      pass "a second daemon on a live socket exits 1, the socket stays" || fail "a second daemon on a live socket exits 1, the socket stays" "exit $rc: $(tail -2 "$tmp/second.log")"
  fi
  [ "$(get "unix://$hsock" /status | head -1)" = 200 ] || fail "the first daemon still serves" "no answer"

  kill -TERM "$main_pid"
  stop_wait "$main_pid" 20
  if [ "$rc" -eq 0 ] && is_gone "$sock" && is_gone "$hsock" && grep -q ' stopped$' "$tmp/main.log"; then
    pass "SIGTERM when idle: exit 0, socket files removed"
  else fail "SIGTERM when idle: exit 0, socket files removed" "exit $rc" "$(ls -la "$tmp/run" "$tmp/run/sub" 2>&1)" "$(tail -3 "$tmp/main.log")"; fi
else
  fail "start (socket directory made)" "exit $rc" "$(tail -20 "$tmp/main.log")"
fi

# HTTP on TCP port 0: the port is logged
if start tcp --config "$f" --listen "unix://$tmp/tcp.sock" --status-listen 127.0.0.1:0; then
  port=$(grep -o 'on 127.0.0.1:0 (port [0-9]*)' "$tmp/tcp.log" | grep -o '[0-9]*)$' | tr -d ')')
  if [ -n "$port" ] && [ "$(get "127.0.0.1:$port" /metrics | head -1)" = 200 ]; then pass "HTTP on TCP port 0 (port $port logged)"
  else fail "HTTP on TCP port 0" "port '$port'" "$(grep HTTP "$tmp/tcp.log")"; fi
  kill -INT "$pid"; stop_wait "$pid" 20
  [ "$rc" -eq 0 ] && is_gone "$tmp/tcp.sock" && pass "SIGINT: exit 0" || fail "SIGINT: exit 0" "exit $rc"
else
  fail "HTTP on TCP port 0" "exit $rc" "$(tail -5 "$tmp/tcp.log")"
fi

# ---- socket files ---------------------------------------------------------------

stale=$tmp/stale.sock
"$py" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$stale"
if [ -S "$stale" ] && start stale --config "$f" --listen "unix://$stale"; then
  pass "a stale socket file is replaced"
  kill -TERM "$pid"; stop_wait "$pid" 20
else
  fail "a stale socket file is replaced" "exit ${rc:-?}: $(tail -3 "$tmp/stale.log" 2>/dev/null)"
fi
echo "precious" >"$tmp/file.sock"
if start notsock --config "$f" --listen "unix://$tmp/file.sock"; then
  fail "a file that is not a socket is never replaced" "it started"; kill -KILL "$pid"
else
  [ "$rc" -eq 1 ] && grep -q "is not a socket" "$tmp/notsock.log" && [ "$(cat "$tmp/file.sock")" = precious ] &&
    pass "a file that is not a socket is never replaced (exit 1)" || fail "a file that is not a socket is never replaced" "exit $rc: $(tail -2 "$tmp/notsock.log")"
fi

# ---- SIGTERM with work in flight ------------------------------------------------

if [ "$have_client" = 1 ]; then
  big=$tmp/k16
  if "$CUZK" bench keygen --lg 16 --out "$big" >"$tmp/keygen.log" 2>&1 &&
     "$CUZK" export-vk "$big/circuit.zkey" "$big/verification_key.json" >>"$tmp/keygen.log" 2>&1; then
    # slowjobs NAME CANCEL: 3 jobs of 2^16 on one single-threaded worker,
    # each awaited by a client in the background; SIGTERM once one runs.
    slowjobs() {
      local name=$1 cancel=$2
      bigconf "$name" '[shutdown]' "cancel_running = $cancel"
      local s=$tmp/$name.sock h=unix://$tmp/$name-http.sock
      start "$name" --config "$tmp/$name.toml" --listen "unix://$s" --status-listen "$h" ||
        { fail "$name: start" "exit $rc"; return 1; }
      dpid=$pid
      awaits=()
      for i in 1 2 3; do
        "$CUZK" prove --remote "unix://$s" --circuit big "$big/witness.wtns" "$tmp/$name-p$i.json" "$tmp/$name-pub$i.json" \
          >"$tmp/$name-c$i.log" 2>&1 &
        awaits+=($!)
      done
      busy() { get "$h" /status | grep -q '"busy_workers":1'; }
      wait_for 60 busy
      kill -TERM "$dpid"
      wait_for 60 in_log "$tmp/$name.log" "SIGTERM: stopping" # the drain has begun
      refused=$("$CUZK" submit --addr "unix://$s" big "$big/witness.wtns" 2>&1); refused_rc=$?
      stop_wait "$dpid" 300 # three 2^16 proofs on one thread: ~10 s on a quiet machine
      drc=$rc
      crcs=()
      for a in "${awaits[@]}"; do wait "$a"; crcs+=($?); done
      gone=0; is_gone "$s" && gone=1
      return 0
    }
    if slowjobs finish false; then
      ok=1
      for i in 0 1 2; do [ "${crcs[$i]}" -eq 0 ] || ok=0; done
      for i in 1 2 3; do
        "$CUZK" verify "$big/verification_key.json" "$tmp/finish-pub$i.json" "$tmp/finish-p$i.json" >/dev/null 2>&1 || ok=0
      done
      if [ "$drc" -eq 0 ] && [ "$gone" = 1 ] && [ "$ok" = 1 ] && grep -q "jobs in flight will finish" "$tmp/finish.log"; then
        pass "SIGTERM while jobs run (cancel_running = false): they finish, clients get proofs, exit 0, socket removed"
      else
        fail "SIGTERM while jobs run (cancel_running = false)" "daemon exit $drc, socket gone $gone, clients ${crcs[*]}" \
          "$(tail -4 "$tmp/finish.log")" "$(cat "$tmp"/finish-c*.log | head -6)"
      fi
      if [ "$refused_rc" -ne 0 ] && grep -qi "unavailable\|shutting down\|connect" <<<"$refused"; then
        pass "a submission during the drain is refused"
      else fail "a submission during the drain is refused" "exit $refused_rc: $refused"; fi
    fi
    if slowjobs cancel true; then
      ncancel=0
      for i in 0 1 2; do [ "${crcs[$i]}" -ne 0 ] && ncancel=$((ncancel+1)); done
      if [ "$drc" -eq 0 ] && [ "$gone" = 1 ] && [ "$ncancel" -ge 1 ] && grep -q "jobs in flight will be cancelled" "$tmp/cancel.log" &&
         grep -q "was cancelled: the engine is shutting down" "$tmp"/cancel-c*.log; then
        pass "SIGTERM while jobs run (cancel_running = true): $ncancel of 3 cancelled, exit 0, socket removed"
      else
        fail "SIGTERM while jobs run (cancel_running = true)" "daemon exit $drc, socket gone $gone, clients ${crcs[*]}" \
          "$(tail -4 "$tmp/cancel.log")" "$(cat "$tmp"/cancel-c*.log | head -6)"
      fi
    fi

    # while a key loads: preload (pinned: the whole file is copied) and a
    # first job, SIGTERM as soon as the job is in the engine (its key
    # loading, or just loaded: the daemon must stop cleanly either way)
    bigconf load '[memory]' 'pin_keys = true'
    hl=unix://$tmp/load-http.sock
    job_known() {
      get "$hl" /status | tail -n +2 | "$py" -c '
import json, sys
q = [x for x in json.load(sys.stdin)["queues"] if x["circuit_id"] == "big"]
sys.exit(0 if q and q[0]["queued"] + q[0]["preparing"] + q[0]["proving"] + q[0]["finalizing"] else 1)' 2>/dev/null
    }
    if start load --config "$tmp/load.toml" --listen "unix://$tmp/load.sock" --status-listen "$hl"; then
      "$CUZK" preload --addr "unix://$tmp/load.sock" big >"$tmp/load-c.log" 2>&1 &
      cp1=$!
      "$CUZK" prove --remote "unix://$tmp/load.sock" --circuit big "$big/witness.wtns" "$tmp/load-p.json" "$tmp/load-pub.json" >>"$tmp/load-c.log" 2>&1 &
      cp2=$!
      job_in_engine() { job_known || exited "$cp2"; }
      wait_for 60 job_in_engine
      kill -TERM "$pid"; stop_wait "$pid" 300
      wait "$cp1" "$cp2" 2>/dev/null
      [ "$rc" -eq 0 ] && is_gone "$tmp/load.sock" && pass "SIGTERM while a key loads: exit 0, socket removed" ||
        fail "SIGTERM while a key loads" "exit $rc" "$(tail -4 "$tmp/load.log")"
    else
      fail "SIGTERM while a key loads: start" "exit $rc"
    fi

    # a second SIGTERM during the drain exits at once
    bigconf twice
    if start twice --config "$tmp/twice.toml" --listen "unix://$tmp/twice.sock"; then
      for i in 1 2 3; do
        "$CUZK" submit --addr "unix://$tmp/twice.sock" big "$big/witness.wtns" >/dev/null 2>&1
      done
      kill -TERM "$pid"
      wait_for 60 in_log "$tmp/twice.log" "SIGTERM: stopping" # the first one is handled
      kill -TERM "$pid"
      stop_wait "$pid" 5
      [ "$rc" -eq 1 ] && is_gone "$tmp/twice.sock" && grep -q "second SIGTERM" "$tmp/twice.log" &&
        pass "a second SIGTERM exits 1 at once, socket removed" || fail "a second SIGTERM exits 1 at once" "exit $rc" "$(tail -3 "$tmp/twice.log")"
    else
      fail "a second SIGTERM: start" "exit $rc"
    fi
  else
    fail "SIGTERM with work in flight: keygen" "$(tail -3 "$tmp/keygen.log")"
  fi
else
  skip "SIGTERM with work in flight" "build/cuzk has no gRPC client (submit)"
fi

finish
