#!/usr/bin/env bash
# Issue 14's shutdown faults: cuzk-daemon stopped (SIGTERM) with 200
# accepted jobs on the tiny key examples/mul (one single-threaded CPU
# worker), with [shutdown] cancel_running false and true.  A Python grpcio
# client submits the 200 jobs, sends SIGTERM, then:
#   - 20 SubmitProof and one Prove after the stop began: each UNAVAILABLE
#     "shutting down" (never CANCELLED: the client could not tell whether
#     the job was accepted)
#   - waits until the drain is over (every job finished or cancelled), then
#     awaits all 200 jobs: each gets its proof (192 bytes) or, cancelled by
#     the stop, CANCELLED with "shutting down"; none is left unanswered.
#     cancel_running = false: all 200 proofs.
#   - the daemon exits 0 soon after the last result is collected, well
#     within [shutdown] grace (60s here), and removes its socket.
# Then a stop with a job never collected: the daemon waits out a 1s grace
# and logs the result never collected.
# Bounded: each daemon run is given at most 150 s.
# Usage: tests/daemon/fault_shutdown.sh [BUILD_DIR]   (default build)
# Prints "N passed, N failed, N skipped" last; exit status 0 when none failed.
set -uo pipefail
. "$(dirname "$0")/common.sh"

need_daemon fault_shutdown
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
if ! "$py" -c 'import grpc, google.protobuf' 2>/dev/null; then
  skip fault_shutdown "python3 lacks grpc or protobuf (apt-get install python3-grpcio python3-protobuf)"; finish
fi
command -v protoc >/dev/null || { skip fault_shutdown "protoc not found (apt-get install protobuf-compiler)"; finish; }
scratch fault-shutdown
mkdir -p "$tmp/gen"
protoc --python_out="$tmp/gen" -Iproto proto/cuzk/v1/proving.proto || { fail "protoc"; finish; }

# The client: submits N jobs to the daemon at ADDR (pid PID, log LOG),
# stops it, checks the refusals and collects every result.  Prints one
# line of counts and exits 0 when every check held.
cat >"$tmp/client.py" <<'EOF'
import os, signal, sys, time
gen, addr, pid, log, wtns, n, cancel = sys.argv[1:8]
sys.path.insert(0, gen)
import grpc
from cuzk.v1 import proving_pb2 as pb
n, pid, cancel = int(n), int(pid), cancel == "true"
SVC = "/cuzk.v1.ProvingEngine/"
ch = grpc.insecure_channel(addr)
def stub(name, rq, rs):
    return ch.unary_unary(SVC + name, request_serializer=rq.SerializeToString, response_deserializer=rs.FromString)
submit = stub("SubmitProof", pb.SubmitProofRequest, pb.SubmitProofResponse)
await_ = stub("AwaitProof", pb.AwaitProofRequest, pb.AwaitProofResponse)
prove = stub("Prove", pb.ProveRequest, pb.ProveResponse)
w = open(wtns, "rb").read()
bad = []
def logged(text):
    with open(log) as f:
        return text in f.read()
def wait(cond, secs, what):
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > secs:
            bad.append("not within %d s: %s" % (secs, what)); return False
        time.sleep(0.02)
    return True

jobs = [submit(pb.SubmitProofRequest(circuit_id="mul", witness=[w], request_id="job-%d" % i), timeout=30).job_id
        for i in range(n)]
os.kill(pid, signal.SIGTERM)
wait(lambda: logged("SIGTERM: stopping"), 30, "the daemon takes the SIGTERM")

# after the stop began: UNAVAILABLE "shutting down", never CANCELLED
refusals = {}
def refused(fn, rq):
    try:
        fn(rq, timeout=30)
        code, text = "OK", ""
    except grpc.RpcError as e:
        code, text = e.code().name, e.details() or ""
    key = code if code != "UNAVAILABLE" or "shutting down" in text else "UNAVAILABLE (%s)" % text[:80]
    refusals[key] = refusals.get(key, 0) + 1
for i in range(20):
    refused(submit, pb.SubmitProofRequest(circuit_id="mul", witness=[w], request_id="late-%d" % i))
refused(prove, pb.ProveRequest(submit=pb.SubmitProofRequest(circuit_id="mul", witness=[w])))
if refusals != {"UNAVAILABLE": 21}:
    bad.append("submissions after the stop: %s (want UNAVAILABLE 'shutting down' x21)" % refusals)

# the clients come back once the drain is over
wait(lambda: logged("every job is finished") or logged(" stopped"), 120, "the end of the drain")
got = {"proof": 0, "cancelled": 0}
t0 = time.monotonic()
futs = [await_.future(pb.AwaitProofRequest(job_id=j), timeout=60) for j in jobs]
for j, f in zip(jobs, futs):
    try:
        r = f.result()
        ST = pb.AwaitProofResponse
        if r.status == ST.COMPLETED and len(r.proof) == 192:
            k = "proof"
        elif r.status == ST.CANCELLED and "shutting down" in r.error_message:
            k = "cancelled"
        else:
            k = "%s %r" % (ST.Status.Name(r.status), r.error_message[:60])
    except grpc.RpcError as e:
        k = "error %s" % e.code().name
    got[k] = got.get(k, 0) + 1
last = time.monotonic()
if got["proof"] + got["cancelled"] != n:
    bad.append("results: %s (want a proof or CANCELLED 'shutting down' for each of %d)" % (got, n))
if not cancel and got["proof"] != n:
    bad.append("cancel_running = false: %d proofs of %d" % (got["proof"], n))
ch.close()
# the grace ends with the last collection, not after its 60 s
def exited():  # the shell is the parent: a zombie still answers kill 0
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped between the open and the read
        return True
wait(exited, 20, "the daemon exits after the last result is collected")
print("jobs %d, refused after the stop %s, results %s, exit %.1f s after the last" %
      (n, refusals, got, time.monotonic() - last))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF

# conf NAME CANCEL GRACE: $tmp/NAME.toml, the mul key, one CPU worker.
conf() {
  printf '[gpus]\ndevice = "cpu"\n[cpu]\nworkers = 1\nthreads = 1\n[shutdown]\ncancel_running = %s\ngrace = "%s"\n' "$2" "$3" >"$tmp/$1.toml"
  printf '[[circuits]]\nid = "mul"\npath = "%s/circuit.zkey"\n' "$EX" >>"$tmp/$1.toml"
}

# run NAME CANCEL: the daemon with 200 jobs stopped under the client.
run() {
  local name=$1 cancel=$2 s=$tmp/$1.sock
  conf "$name" "$cancel" 60s
  "$DAEMON" --config "$tmp/$name.toml" --listen "unix://$s" >"$tmp/$name.log" 2>&1 &
  pid=$!
  if ! wait_for 60 in_log "$tmp/$name.log" ' ready$'; then
    fail "$name: start" "$(tail -5 "$tmp/$name.log")"; return
  fi
  out=$(timeout 150 "$py" "$tmp/client.py" "$tmp/gen" "unix://$s" "$pid" "$tmp/$name.log" "$EX/witness.wtns" 200 "$cancel" 2>&1)
  crc=$?
  wait_for 20 exited "$pid"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"; drc=$?
  if [ "$crc" -eq 0 ] && [ "$drc" -eq 0 ] && [ ! -e "$s" ]; then
    pass "SIGTERM with 200 accepted jobs (cancel_running = $cancel): every client answered; $(head -1 <<<"$out")"
  else
    fail "SIGTERM with 200 accepted jobs (cancel_running = $cancel)" "client exit $crc, daemon exit $drc" "$out" \
      "$(grep -E 'stopping|stopped|error' "$tmp/$name.log" | tail -6)"
  fi
}

run drain false
run cancel true

# a result never collected: the grace (1 s) runs out, the daemon says so
conf lost false 1s
"$DAEMON" --config "$tmp/lost.toml" --listen "unix://$tmp/lost.sock" >"$tmp/lost.log" 2>&1 &
pid=$!
if wait_for 60 in_log "$tmp/lost.log" ' ready$' &&
   "$CUZK" submit --addr "unix://$tmp/lost.sock" mul "$EX/witness.wtns" >/dev/null 2>"$tmp/lost-c.log"; then
  t0=$SECONDS
  kill -TERM "$pid"
  wait_for 60 exited "$pid"; kill -KILL "$pid" 2>/dev/null; wait "$pid"; rc=$?
  if [ "$rc" -eq 0 ] && in_log "$tmp/lost.log" "1 result not yet collected, served for up to 1s" &&
     in_log "$tmp/lost.log" "1 result was never collected" && [ $((SECONDS - t0)) -lt 30 ]; then
    pass "a result never collected: the 1s grace runs out, logged, exit 0"
  else
    fail "a result never collected: the grace runs out" "exit $rc after $((SECONDS - t0)) s" \
      "$(grep -E 'stopping|stopped' "$tmp/lost.log" | tail -5)"
  fi
else
  fail "a result never collected: start and submit" "$(tail -3 "$tmp/lost.log" "$tmp/lost-c.log")"
fi

finish
