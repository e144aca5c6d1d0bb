"""The daemon's gRPC service tested by an independent client.

Python's grpcio (Debian python3-grpcio) with message classes that protoc
generated from proto/cuzk/v1/proving.proto at test time (run.sh passes the
directory); calls go through channel.unary_unary(path, serializer,
deserializer), so no grpc_tools plugin is needed.  cuzk's own client (the
`cuzk` remote subcommands) is tested too.  Each test gets the daemons it
needs as helper processes (tests/daemon/rpc_serve, or build/cuzk-daemon),
and every error case ends by checking that the daemon still serves.

Every test runs against each daemon of --daemons: rpc_serve (the engine
and rpc_server in one small process, tests/daemon/rpc_serve.c) and
cuzk-daemon (the real daemon, configured by a TOML file written here; it
cannot pause its workers, so the test that needs that runs its other half).

usage: test_daemon.py --build DIR --gen DIR [--only NAME[,NAME]] [--daemons rpc_serve,cuzk-daemon]
Prints "N passed, N failed, N skipped" last.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

ap = argparse.ArgumentParser()
ap.add_argument("--build", required=True)
ap.add_argument("--gen", required=True)
ap.add_argument("--only", default="")
ap.add_argument("--daemons", default="rpc_serve,cuzk-daemon")
args = ap.parse_args()
sys.path.insert(0, args.gen)

import grpc  # noqa: E402
from cuzk.v1 import proving_pb2 as pb  # noqa: E402

BUILD = os.path.abspath(args.build)
CUZK = os.path.join(BUILD, "cuzk")
SERVE = os.path.join(BUILD, "daemon-test", "rpc_serve")
DAEMON = os.path.join(BUILD, "cuzk-daemon")
KIND = "rpc_serve"  # the daemon the current test starts
FX = os.path.join(BUILD, "oracle")
SVC = "/cuzk.v1.ProvingEngine/"
METHODS = {
    "SubmitProof": (pb.SubmitProofRequest, pb.SubmitProofResponse),
    "AwaitProof": (pb.AwaitProofRequest, pb.AwaitProofResponse),
    "Prove": (pb.ProveRequest, pb.ProveResponse),
    "CancelProof": (pb.CancelProofRequest, pb.CancelProofResponse),
    "GetStatus": (pb.GetStatusRequest, pb.GetStatusResponse),
    "GetMetrics": (pb.GetMetricsRequest, pb.GetMetricsResponse),
    "PreloadSRS": (pb.PreloadSrsRequest, pb.PreloadSrsResponse),
    "EvictSRS": (pb.EvictSrsRequest, pb.EvictSrsResponse),
}
MB = 1 << 20
ST = pb.AwaitProofResponse

TMP = tempfile.mkdtemp(prefix="cuzk-daemon-test-")


def read(p):
    with open(p, "rb") as f:
        return f.read()


class Check(Exception):
    pass


def check(cond, what, *got):
    if not cond:
        raise Check(what + ("" if not got else ": got " + " ".join(repr(g)[:300] for g in got)))


def wait_for(cond, what, timeout=60):
    """Polls cond() until it returns a true value, which it returns; fails
    naming what after timeout seconds (a bound far above the milliseconds
    these waits take, so that only a real hang fails)."""
    t0 = time.monotonic()
    while True:
        v = cond()
        if v:
            return v
        check(time.monotonic() - t0 < timeout, "%s: not within %g s" % (what, timeout))
        time.sleep(0.01)


# ---- the daemon as a helper process ---------------------------------------------


class Daemon:
    n = 0

    def __init__(self, circuits, workers=1, max_message=0, tcp=False, extra=(), budget=None):
        Daemon.n += 1
        self.dir = os.path.join(TMP, "d%d" % Daemon.n)
        os.makedirs(self.dir)
        if tcp:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            s.close()
            self.addr = "127.0.0.1:%d" % port
        else:
            self.addr = "unix://" + os.path.join(self.dir, "cuzk.sock")
        self.cmd = daemon_cmd(self.dir, self.addr, circuits, workers, max_message, budget) + list(extra)
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.p = subprocess.Popen(self.cmd, stdout=self.log, stderr=subprocess.STDOUT)
        self.max_message = max_message or 256 * MB
        self.channels = []
        self.can_pause = KIND == "rpc_serve"
        ready = "listening" if KIND == "rpc_serve" else " ready"

        def started():
            if self.p.poll() is not None:
                raise Check("daemon exited at start: " + self.tail())
            return ready in self.text()

        try:
            wait_for(started, "daemon start")
        except Check as e:
            raise Check("%s: %s" % (e, self.tail()))

    def text(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def tail(self):
        return self.text()[-2000:]

    def pause(self, on):
        """Holds (or lets go of) the engine's workers: rpc_serve's SIGUSR1/2."""
        check(self.can_pause, "pause needs rpc_serve")
        want = "paused" if on else "resumed"
        n = self.text().count(want)
        self.p.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)
        wait_for(lambda: self.text().count(want) > n, "daemon " + want)

    def channel(self):
        lim = self.max_message + 2 * MB
        ch = grpc.insecure_channel(self.addr, options=[
            ("grpc.max_send_message_length", lim), ("grpc.max_receive_message_length", lim)])
        self.channels.append(ch)
        return ch

    def stop(self, timeout=30):
        for ch in self.channels:
            ch.close()
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                raise Check("daemon did not stop within %d s after SIGTERM" % timeout)
        rc = self.p.returncode
        self.log.close()
        return rc

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        rc = self.stop()
        if exc[0] is None:
            check(rc == 0, "daemon exit status after SIGTERM", rc, self.tail())


def daemon_cmd(dirname, addr, circuits, workers=1, max_message=0, budget=None):
    """The command line of a daemon of the current KIND on addr; budget:
    (host_budget, queue_budget) in bytes, or None for the defaults."""
    if KIND == "rpc_serve":
        cmd = [SERVE, "--listen", addr, "--cpu-workers", str(workers), "--threads", "1"]
        for cid, path in circuits.items():
            cmd += ["--circuit", "%s=%s" % (cid, path)]
        if max_message:
            cmd += ["--max-message", str(max_message)]
        if budget:
            cmd += ["--host-budget", str(budget[0]), "--queue-budget", str(budget[1])]
        return cmd
    os.makedirs(dirname, exist_ok=True)
    conf = os.path.join(dirname, "cuzk.toml")
    with open(conf, "w") as f:
        f.write('[daemon]\nlisten = "%s"\n' % addr)
        if max_message:
            f.write("max_message_size = %d\n" % max_message)
        f.write('[gpus]\ndevice = "cpu"\n[cpu]\nworkers = %d\nthreads = 1\n' % workers)
        f.write('[shutdown]\ncancel_running = true\ngrace = "1s"\n')  # a prompt stop (fault_shutdown.sh tests the grace)
        if budget:
            f.write("[memory]\nhost_budget = %d\nqueue_budget = %d\n" % budget)
        for cid, path in circuits.items():
            f.write('[[circuits]]\nid = "%s"\npath = "%s"\n' % (cid, path))
    return [DAEMON, "--config", conf]


class Client:
    def __init__(self, ch):
        self.ch = ch
        self.stubs = {}
        for name, (rq, rs) in METHODS.items():
            self.stubs[name] = ch.unary_unary(SVC + name, request_serializer=rq.SerializeToString,
                                              response_deserializer=rs.FromString)

    def __getattr__(self, name):
        return self.stubs[name]

    def raw(self, name, data, timeout=30):
        """Sends bytes as they are (a malformed message)."""
        f = self.ch.unary_unary(SVC + name, request_serializer=lambda b: b,
                                response_deserializer=lambda b: b)
        return f(data, timeout=timeout)


def rpc_error(fn, *a, **kw):
    """The grpc.RpcError a call raises (None when it succeeds)."""
    try:
        fn(*a, **kw)
    except grpc.RpcError as e:
        return e
    return None


# ---- fixtures ---------------------------------------------------------------------

MUL = os.path.join(FX, "mul")
CHAIN = os.path.join(FX, "chain_1k")
CIRCUITS = {"mul": os.path.join(MUL, "circuit.zkey"), "chain": os.path.join(CHAIN, "circuit.zkey")}
W_MUL = None
W_CHAIN = None


def submit_req(cid="mul", wit=None, n=1, json_=True, **kw):
    wit = W_MUL if wit is None else wit
    return pb.SubmitProofRequest(circuit_id=cid, witness=[wit] * n, want_json=json_, **kw)


# ---- proof checks -------------------------------------------------------------------

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab


def g1_check(b48, pt, what):
    """A compressed G1 point (zcash encoding) against snarkjs's [x, y, "1"]."""
    check(len(b48) == 48, what + " length")
    flags = b48[0] >> 5
    check(flags & 4, what + ": compression flag not set")
    check(not flags & 2, what + ": point at infinity")
    x = int.from_bytes(bytes([b48[0] & 0x1f]) + b48[1:], "big")
    jx, jy = int(pt[0]), int(pt[1])
    check(x == jx, what + ": x differs from proof.json", x, jx)
    check((jy * jy - (jx ** 3 + 4)) % P == 0, what + ": proof.json's point is not on the curve")
    check(bool(flags & 1) == (jy > P - jy), what + ": sign flag does not match y")


def g2_check(b96, pt, what):
    """A compressed G2 point against [[x.c0, x.c1], [y.c0, y.c1], ...]: x.c1 || x.c0."""
    check(len(b96) == 96, what + " length")
    flags = b96[0] >> 5
    check(flags & 4 and not flags & 2, what + ": flags", flags)
    c1 = int.from_bytes(bytes([b96[0] & 0x1f]) + b96[1:48], "big")
    c0 = int.from_bytes(b96[48:], "big")
    check((c0, c1) == (int(pt[0][0]), int(pt[0][1])), what + ": x differs from proof.json")
    y0, y1 = int(pt[1][0]), int(pt[1][1])
    larger = (y1 > P - y1) if y1 else (y0 > P - y0)
    check(bool(flags & 1) == larger, what + ": sign flag does not match y")


def verify_result(res, circuit_dir, nparts=1, name="proof"):
    """A COMPLETED AwaitProofResponse: 192 bytes per partition that decode to
    the points of proof.json, which `cuzk verify` accepts, and public.json
    as snarkjs wrote it for that witness."""
    check(res.status == ST.COMPLETED, "status COMPLETED", ST.Status.Name(res.status), res.error_message)
    check(len(res.proof) == 192 * nparts, "proof length", len(res.proof))
    check(len(res.proof_json) == nparts and len(res.public_json) == nparts, "json per partition",
          len(res.proof_json), len(res.public_json))
    want_pub = json.loads(read(os.path.join(circuit_dir, "public.json")))
    for i in range(nparts):
        pj = json.loads(res.proof_json[i])
        b = res.proof[192 * i:192 * (i + 1)]
        g1_check(b[0:48], pj["pi_a"], "A")
        g2_check(b[48:144], pj["pi_b"], "B")
        g1_check(b[144:192], pj["pi_c"], "C")
        check(json.loads(res.public_json[i]) == want_pub, "public.json equals snarkjs's")
        pp = os.path.join(TMP, "%s.%d.proof.json" % (name, i))
        qp = os.path.join(TMP, "%s.%d.public.json" % (name, i))
        with open(pp, "w") as f:
            f.write(res.proof_json[i])
        with open(qp, "w") as f:
            f.write(res.public_json[i])
        r = subprocess.run([CUZK, "verify", os.path.join(circuit_dir, "verification_key.json"), qp, pp],
                           capture_output=True, text=True)
        check(r.returncode == 0 and "OK" in r.stdout, "cuzk verify", r.returncode, r.stdout, r.stderr)


def assert_serving(cl, what="after the error"):
    res = cl.Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result
    check(res.status == ST.COMPLETED, "a proof " + what, ST.Status.Name(res.status), res.error_message)


def cli(*argv, check_rc=None, env=None):
    r = subprocess.run([CUZK] + list(argv), capture_output=True, text=True, timeout=120, env=env)
    if check_rc is not None:
        check(r.returncode == check_rc, "cuzk %s exit status" % argv[0], r.returncode, r.stdout, r.stderr)
    return r


def wait_busy(cl):
    """Waits until a worker holds a partition (GetStatus busy_workers)."""
    wait_for(lambda: cl.GetStatus(pb.GetStatusRequest(), timeout=10).busy_workers > 0, "a busy worker")


def await_all(cl, jobs, done):
    """Sends an AwaitProof for each job (futures: every call leaves now, not
    when a thread gets to it), each putting (time it returned, status) in
    done; then a GetStatus on the same channel, answered after the server
    has read the calls sent before it.  Returns the futures."""
    def record(j, f):
        e = f.exception()
        done[j] = (time.monotonic(), None if e else f.result().status)

    futs = []
    for j in jobs:
        f = cl.AwaitProof.future(pb.AwaitProofRequest(job_id=j), timeout=600)
        f.add_done_callback(lambda f, j=j: record(j, f))
        futs.append(f)
    cl.GetStatus(pb.GetStatusRequest(), timeout=10)
    return futs


def join_all(futs, done, n):
    """Waits for the futures of await_all and their n records."""
    for f in futs:
        f.exception()
    wait_for(lambda: len(done) == n, "the awaits' records")


# ---- tests ------------------------------------------------------------------------

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def prove_one():
    with Daemon(CIRCUITS) as d:
        cl = Client(d.channel())
        res = cl.Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result
        verify_result(res, MUL)
        check(res.total_ms >= res.gpu_compute_ms, "timings", res.total_ms, res.gpu_compute_ms)
        # without want_json: the proof bytes alone
        res = cl.Prove(pb.ProveRequest(submit=submit_req(json_=False)), timeout=60).result
        check(res.status == ST.COMPLETED and len(res.proof) == 192 and not res.proof_json, "bytes only")
        # several partitions: one proof per witness, in order
        res = cl.Prove(pb.ProveRequest(submit=submit_req(n=3)), timeout=60).result
        verify_result(res, MUL, nparts=3, name="parts")


@test
def concurrent_50_clients_x4():
    """50 clients, each on its own channel, 4 jobs each (Prove, and
    SubmitProof + AwaitProof alternately): 200 proofs that all verify."""
    with Daemon(CIRCUITS, workers=2) as d:
        results, errors = [], []
        lock = threading.Lock()

        def client(k):
            try:
                cl = Client(d.channel())
                for j in range(4):
                    pri = 1 + (k + j) % 4
                    if j % 2 == 0:
                        res = cl.Prove(pb.ProveRequest(submit=submit_req(priority=pri)), timeout=600).result
                    else:
                        t = cl.SubmitProof(submit_req(priority=pri), timeout=60)
                        res = cl.AwaitProof(pb.AwaitProofRequest(job_id=t.job_id), timeout=600)
                    with lock:
                        results.append(res)
            except Exception as e:  # noqa: BLE001
                with lock:
                    errors.append(repr(e)[:300])

        ths = [threading.Thread(target=client, args=(k,)) for k in range(50)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        check(not errors, "client errors", errors[:3])
        check(len(results) == 200, "200 results", len(results))
        check(len({r.job_id for r in results}) == 200, "200 distinct jobs")
        for i, r in enumerate(results):
            verify_result(r, MUL, name="c%d" % i)
        st = Client(d.channel()).GetStatus(pb.GetStatusRequest(), timeout=10)
        check(st.total_proofs_completed == 200, "completed count", st.total_proofs_completed)


def paused_queue(d, cl, done):
    d.pause(True)
    normal = [cl.SubmitProof(submit_req("chain", W_CHAIN, json_=False, priority=2), timeout=60)
              for _ in range(11)]
    check([t.queue_position for t in normal] == list(range(11)), "NORMAL queue positions",
          [t.queue_position for t in normal])
    crit = cl.SubmitProof(submit_req("chain", W_CHAIN, json_=False, priority=4), timeout=60)
    check(crit.queue_position == 0, "CRITICAL goes to the front", crit.queue_position)
    jobs = [crit.job_id] + [t.job_id for t in normal]
    futs = await_all(cl, jobs, done)  # every await waits before the first job runs
    d.pause(False)
    join_all(futs, done, len(jobs))
    check(all(s == ST.COMPLETED for _, s in done.values()), "all completed")
    tc = done[crit.job_id][0]
    before = [j for j in jobs[1:] if done[j][0] < tc]
    check(not before, "NORMAL jobs finished before the CRITICAL one", len(before))


@test
def critical_jumps_the_queue():
    """One worker, held paused while eleven NORMAL jobs and then a CRITICAL
    one queue: once it runs, the CRITICAL job finishes before every NORMAL
    one.  And without the pause: behind a running job and a queue of NORMAL
    ones, a CRITICAL job is next."""
    with Daemon(CIRCUITS, workers=1) as d:
        cl = Client(d.channel())
        done = {}
        if d.can_pause:
            paused_queue(d, cl, done)

        # unpaused: a 4-partition job running, ten NORMAL jobs queued
        first = cl.SubmitProof(submit_req("chain", W_CHAIN, n=4, json_=False, priority=2), timeout=60)
        normal = [cl.SubmitProof(submit_req("chain", W_CHAIN, json_=False, priority=2), timeout=60).job_id
                  for _ in range(10)]
        crit = cl.SubmitProof(submit_req("chain", W_CHAIN, json_=False, priority=4), timeout=60)
        done.clear()
        jobs = [first.job_id, crit.job_id] + normal
        join_all(await_all(cl, jobs, done), done, len(jobs))
        check(all(s == ST.COMPLETED for _, s in done.values()), "all completed")
        tc = done[crit.job_id][0]
        before = [j for j in normal if done[j][0] < tc]
        check(len(before) <= 1, "NORMAL jobs finished before the CRITICAL one", len(before))


@test
def cancel_queued_and_running():
    with Daemon(CIRCUITS, workers=1) as d:
        cl = Client(d.channel())
        # a long job (many partitions) and one queued behind it
        run = cl.SubmitProof(submit_req("chain", W_CHAIN, n=40, json_=False), timeout=60).job_id
        queued = cl.SubmitProof(submit_req("chain", W_CHAIN, json_=False), timeout=60).job_id
        wait_busy(cl)  # one worker: a partition of the first job is under way
        r = cl.CancelProof(pb.CancelProofRequest(job_id=queued), timeout=10)
        check(not r.was_running, "queued job: was_running false")
        r = cl.CancelProof(pb.CancelProofRequest(job_id=run), timeout=10)
        check(r.was_running, "running job: was_running true")
        t0 = time.monotonic()
        for j in (queued, run):
            res = cl.AwaitProof(pb.AwaitProofRequest(job_id=j, timeout_ms=60000), timeout=70)
            check(res.status == ST.CANCELLED, "await of a cancelled job", ST.Status.Name(res.status))
            check(not res.proof, "no proof from a cancelled job")
        check(time.monotonic() - t0 < 20, "the cancelled job stopped")
        # cancelling again, or a finished job: no error, not running
        r = cl.CancelProof(pb.CancelProofRequest(job_id=run), timeout=10)
        check(not r.was_running, "second cancel")
        e = rpc_error(cl.CancelProof, pb.CancelProofRequest(job_id="no-such-job"), timeout=10)
        check(e and e.code() == grpc.StatusCode.NOT_FOUND, "cancel of an unknown job", e and e.code())
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=10)
        check(st.total_proofs_cancelled == 2, "cancelled count", st.total_proofs_cancelled)
        assert_serving(cl, "after the cancels")


@test
def repeated_request_id_proves_once():
    with Daemon(CIRCUITS, workers=2) as d:
        cl = Client(d.channel())
        a = cl.SubmitProof(submit_req(request_id="porep-1000-7"), timeout=60)
        b = cl.SubmitProof(submit_req(request_id="porep-1000-7"), timeout=60)
        check(a.job_id == b.job_id, "same job id", a.job_id, b.job_id)
        check(not a.attached and b.attached, "attached flags", a.attached, b.attached)
        # Prove with the id (Curio's retry after its timeout) attaches too,
        # concurrently from several clients: one proof, the same bytes
        outs = []

        def prove():
            outs.append(Client(d.channel()).Prove(
                pb.ProveRequest(submit=submit_req(request_id="porep-1000-7")), timeout=60).result)

        ths = [threading.Thread(target=prove) for _ in range(5)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        first = cl.AwaitProof(pb.AwaitProofRequest(job_id=a.job_id), timeout=60)
        verify_result(first, MUL, name="dup")
        check(len(outs) == 5 and all(o.proof == first.proof for o in outs),
              "every caller got the one proof (random r, s: a second proving would differ)")
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=10)
        check(st.total_proofs_completed == 1, "proved once", st.total_proofs_completed)
        # a late retry after a client-side deadline attaches as well; a
        # HIGH job of 200 partitions ahead of it makes the 0.3 s deadline
        # pass while it waits, however fast the machine
        blocker = cl.SubmitProof(submit_req("chain", W_CHAIN, n=200, json_=False, priority=3,
                                            request_id="blocker"), timeout=60)
        e = rpc_error(cl.Prove, pb.ProveRequest(submit=submit_req("chain", W_CHAIN, n=12, json_=False,
                                                                   request_id="wdpost-9")), timeout=0.3)
        check(e and e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, "short deadline", e and e.code())
        res = cl.Prove(pb.ProveRequest(submit=submit_req("chain", W_CHAIN, n=12, json_=False,
                                                         request_id="wdpost-9")), timeout=600).result
        check(res.status == ST.COMPLETED and len(res.proof) == 12 * 192, "the retry completed")
        done = cl.AwaitProof(pb.AwaitProofRequest(job_id=blocker.job_id), timeout=600)
        check(done.status == ST.COMPLETED, "the blocking job completed")
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=10)
        check(st.total_proofs_completed == 3, "the timed-out job was not proved twice",
              st.total_proofs_completed)


@test
def errors_keep_serving():
    with Daemon(CIRCUITS, workers=1, max_message=4 * MB) as d:
        cl = Client(d.channel())

        def expect(code, fn, req, what, text=None):
            e = rpc_error(fn, req, timeout=30)
            check(e is not None and e.code() == code, what, e and e.code(), e and e.details())
            if text:
                check(text in e.details(), what + ": message", e.details())
            assert_serving(cl, "after " + what)
            return e

        e = expect(grpc.StatusCode.NOT_FOUND, cl.SubmitProof, submit_req("nosuch"), "unknown circuit")
        check(e.details().startswith("not_found: "), "message starts with the status name", e.details())
        expect(grpc.StatusCode.NOT_FOUND, cl.Prove, pb.ProveRequest(submit=submit_req("nosuch")),
               "unknown circuit (Prove)")
        expect(grpc.StatusCode.NOT_FOUND, cl.AwaitProof, pb.AwaitProofRequest(job_id="nosuch"),
               "unknown job")
        expect(grpc.StatusCode.INVALID_ARGUMENT, cl.SubmitProof, submit_req(wit=b"not a witness" * 10),
               "garbage witness")
        expect(grpc.StatusCode.INVALID_ARGUMENT, cl.SubmitProof, submit_req(wit=W_MUL[:len(W_MUL) // 2]),
               "truncated witness")
        expect(grpc.StatusCode.INVALID_ARGUMENT, cl.SubmitProof, submit_req(wit=W_CHAIN),
               "another circuit's witness")
        expect(grpc.StatusCode.INVALID_ARGUMENT, cl.SubmitProof, pb.SubmitProofRequest(circuit_id="mul"),
               "no witness")
        expect(grpc.StatusCode.INVALID_ARGUMENT, cl.SubmitProof, submit_req(request_id="x" * 200),
               "too long request id")
        for name in ("SubmitProof", "Prove", "AwaitProof", "GetStatus"):
            e = rpc_error(cl.raw, name, b"\xff\xff\xff\xff\x0f")
            check(e and e.code() == grpc.StatusCode.INVALID_ARGUMENT, "malformed protobuf to " + name,
                  e and e.code())
            assert_serving(cl, "after a malformed " + name)
        big = submit_req(wit=W_MUL + b"\0" * (5 * MB))
        expect(grpc.StatusCode.RESOURCE_EXHAUSTED, cl.SubmitProof, big, "message over the 4 MiB limit")
        # Filecoin kinds: no vanilla-proof synthesis, and never a fake proof
        for kind in (1, 2, 3, 4):
            req = pb.SubmitProofRequest(request_id="fc-%d" % kind, proof_kind=kind, sector_size=32 << 30,
                                        registered_proof=8, vanilla_proof=b"{}", priority=2)
            expect(grpc.StatusCode.UNIMPLEMENTED, cl.SubmitProof, req, "proof kind %d" % kind,
                   "not implemented")
            expect(grpc.StatusCode.UNIMPLEMENTED, cl.Prove, pb.ProveRequest(submit=req),
                   "Prove of kind %d" % kind, "not implemented")
        # a witness that parses but does not satisfy: accepted, then FAILED
        bad = read(os.path.join(MUL, "witness_bad.wtns"))
        res = cl.Prove(pb.ProveRequest(submit=submit_req(wit=bad)), timeout=60).result
        check(res.status == ST.FAILED and res.error_code and res.error_message and not res.proof,
              "unsatisfied witness fails the job", ST.Status.Name(res.status), res.error_code)
        assert_serving(cl, "after a failed job")
        # the daemon counted what it answered
        m = cl.GetMetrics(pb.GetMetricsRequest(), timeout=10).prometheus_text
        check('cuzk_rpc_calls_total{method="SubmitProof",code="NOT_FOUND"}' in m, "errors counted by code")


@test
def default_limit_256mib():
    """With the default limit a message of 257 MiB is refused and a 100 MiB
    one is not (it is read, then refused as a witness for the key)."""
    with Daemon(CIRCUITS) as d:
        cl = Client(d.channel())
        e = rpc_error(cl.SubmitProof, submit_req(wit=b"\0" * (257 * MB)), timeout=120)
        check(e and e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, "257 MiB", e and e.code())
        # (the engine may take the witness with its trailing bytes, or refuse it)
        e = rpc_error(cl.SubmitProof, submit_req(wit=W_MUL + b"\0" * (100 * MB)), timeout=120)
        check(e is None or e.code() == grpc.StatusCode.INVALID_ARGUMENT, "100 MiB reaches the engine",
              e and e.code(), e and e.details())
        assert_serving(cl)


@test
def await_timeout():
    with Daemon(CIRCUITS, workers=1) as d:
        cl = Client(d.channel())
        # 200 partitions: still running after the 300 ms however fast the machine
        job = cl.SubmitProof(submit_req("chain", W_CHAIN, n=200, json_=False), timeout=60).job_id
        t0 = time.monotonic()
        r = cl.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=300), timeout=30)
        dt = time.monotonic() - t0
        check(r.status == ST.TIMEOUT, "TIMEOUT", ST.Status.Name(r.status))
        check(r.state in ("queued", "preparing", "proving", "finalizing"), "state named", r.state)
        check(0.25 <= dt < 5, "returned after about 300 ms", dt)
        # a waiting call does not hold up others
        t0 = time.monotonic()
        th = threading.Thread(target=lambda: cl.AwaitProof(pb.AwaitProofRequest(job_id=job), timeout=600))
        th.start()
        for _ in range(20):
            cl.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(time.monotonic() - t0 < 5, "status calls while an await waits")
        cl.CancelProof(pb.CancelProofRequest(job_id=job), timeout=10)
        th.join(30)
        check(not th.is_alive(), "the await returned after the cancel")


@test
def status_metrics_preload_evict():
    with Daemon(CIRCUITS, workers=2) as d:
        cl = Client(d.channel())
        p = cl.PreloadSRS(pb.PreloadSrsRequest(circuit_id="mul"), timeout=60)
        check(not p.already_loaded, "first preload loads")
        p = cl.PreloadSRS(pb.PreloadSrsRequest(circuit_id="mul"), timeout=60)
        check(p.already_loaded, "second preload: already loaded")
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=10)
        keys = {k.circuit_id: k for k in st.loaded_srs}
        check("mul" in keys and keys["mul"].cuzk_tier in ("mapped", "pinned", "device"), "mul loaded",
              [(k.circuit_id, k.cuzk_tier) for k in st.loaded_srs])
        check(keys["mul"].size_bytes > 0, "key size reported")
        check(st.cpu_workers == 2 and st.uptime_seconds >= 0, "workers", st.cpu_workers)
        e = cl.EvictSRS(pb.EvictSrsRequest(circuit_id="mul"), timeout=60)
        check(e.was_loaded, "evict: was loaded")
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=10)
        tiers = {k.circuit_id: k.cuzk_tier for k in st.loaded_srs}
        check(tiers.get("mul", "disk") == "disk", "evicted to disk", tiers)
        for fn, req in ((cl.PreloadSRS, pb.PreloadSrsRequest(circuit_id="nosuch")),
                        (cl.EvictSRS, pb.EvictSrsRequest(circuit_id="nosuch"))):
            e = rpc_error(fn, req, timeout=10)
            check(e and e.code() == grpc.StatusCode.NOT_FOUND, "unknown key", e and e.code())
        assert_serving(cl, "after evicting its key")
        m = cl.GetMetrics(pb.GetMetricsRequest(), timeout=10).prometheus_text
        check("# TYPE" in m and 'cuzk_rpc_calls_total{method="Prove",code="OK"} 1' in m, "metrics text", m[-400:])


@test
def lost_gpu_keeps_serving():
    """rpc_serve only (its stand-in GPUs: CPU backends from a device provider
    given to the engine, engine_config.devices): of two GPUs, GPU 1 fails every MSM with DEVICE_LOST.  Every
    job still returns a proof that verifies (the partition that hit GPU 1 is
    retried on GPU 0); GetStatus then shows GPU 1 failed, with the reason,
    and GPU 0 up; `cuzk status` prints both."""
    if KIND != "rpc_serve":
        return  # cuzk-daemon has no stand-in GPUs
    with Daemon(CIRCUITS, extra=("--test-gpus", "2", "--lose-gpu", "1")) as d:
        cl = Client(d.channel())
        jobs = [cl.SubmitProof(submit_req(request_id="lost-%d" % i), timeout=30).job_id for i in range(6)]
        for j in jobs:
            res = cl.AwaitProof(pb.AwaitProofRequest(job_id=j, timeout_ms=60000), timeout=90)
            verify_result(res, MUL, name="lost-gpu proof")
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=10)
        gpus = {g.ordinal: g for g in st.gpus}
        check(sorted(gpus) == [0, 1], "two stand-in GPUs", sorted(gpus))
        check(gpus[0].state == "up" and not gpus[0].state_reason, "GPU 0 up", gpus[0].state)
        check(gpus[1].state == "failed" and "lost" in gpus[1].state_reason, "GPU 1 failed with its reason",
              gpus[1].state, gpus[1].state_reason)
        m = cl.GetMetrics(pb.GetMetricsRequest(), timeout=10).prometheus_text
        check("cuzk_gpu_up" in m, "cuzk_gpu_up in the metrics", m[-400:])
        r = cli("status", "--addr", d.addr, check_rc=0)
        check("failed" in r.stdout and "lost" in r.stdout, "cuzk status shows the lost GPU", r.stdout[-600:])


@test
def tcp_listener():
    with Daemon(CIRCUITS, tcp=True) as d:
        cl = Client(d.channel())
        verify_result(cl.Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result, MUL, name="tcp")
        out = os.path.join(TMP, "tcp")
        cli("prove", "--remote", d.addr, "--circuit", "mul", "--quiet", os.path.join(MUL, "witness.wtns"),
            out + ".proof.json", out + ".public.json", check_rc=0)
        cli("verify", os.path.join(MUL, "verification_key.json"), out + ".public.json", out + ".proof.json",
            check_rc=0)


@test
def listen_errors():
    """A second server on a live socket or port fails (and the first keeps
    serving); so do a missing directory and a malformed address."""
    with Daemon(CIRCUITS) as d:
        with Daemon(CIRCUITS, tcp=True) as t:
            cases = [(d.addr, "another", 1), (t.addr, "cannot listen", 1), ("127.0.0.1:99999", "", 2),
                     ("nonsense", "", 2)]
            if KIND == "rpc_serve":  # (cuzk-daemon makes a missing directory)
                cases.append(("unix:///nonexistent-dir/x.sock", "does not exist", 1))
            for i, (addr, text, rc) in enumerate(cases):
                if KIND == "rpc_serve":
                    rc = 1  # rpc_serve exits 1 on any start failure
                cmd = daemon_cmd(os.path.join(TMP, "l%d" % i), addr, {"mul": CIRCUITS["mul"]})
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
                check(r.returncode == rc and text in r.stderr, "listen on " + addr, r.returncode, r.stderr[-500:])
            assert_serving(Client(d.channel()), "after a second server tried its socket")
            assert_serving(Client(t.channel()), "after a second server tried its port")


def rss_kib(pid):
    """The process's resident set (VmRSS of /proc/PID/status), in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Check("no VmRSS in /proc/%d/status" % pid)


@test
def unknown_method_unimplemented():
    """A method the service does not have (of the service, or of another)
    is answered UNIMPLEMENTED at once and freed: 2,000 of them leave the
    daemon's RSS within a few MiB (each one held would cost ~14 KB)."""
    with Daemon(CIRCUITS) as d:
        ch = d.channel()
        cl = Client(ch)
        paths = [SVC + "NoSuchMethod", "/other.v1.Service/Prove", "/cuzk.v1.ProvingEngine/", "/x"]
        calls = [ch.unary_unary(p, request_serializer=lambda b: b, response_deserializer=lambda b: b)
                 for p in paths]
        for p, f in zip(paths, calls):
            t0 = time.monotonic()
            e = rpc_error(f, b"\x0a\x03abc", timeout=10)
            dt = time.monotonic() - t0
            check(e is not None and e.code() == grpc.StatusCode.UNIMPLEMENTED, p + ": UNIMPLEMENTED",
                  e and e.code(), e and e.details())
            check(dt < 1.0, p + ": answered within a second", dt)
        # four bursts of 2,000 concurrent calls: the first fills gRPC's and
        # malloc's caches to the burst's peak (~6 MiB); the later ones must
        # reuse them.  A burst's peak depends on how many calls are in
        # flight at once (the machine's load), so one later burst may reach
        # past the first's: the least growth of the three is bounded, which
        # a leak (~28 MiB a burst) would exceed in every one
        grew = []
        for burst in range(4):
            before = rss_kib(d.p.pid)
            futs = [calls[i % 4].future(b"x" * 64, timeout=30) for i in range(2000)]
            codes = [f.exception() and f.exception().code() for f in futs]
            check(all(c == grpc.StatusCode.UNIMPLEMENTED for c in codes), "2,000 calls: all UNIMPLEMENTED",
                  sorted(set(str(c) for c in codes)))
            grew.append(rss_kib(d.p.pid) - before)
        # (under ASan freed memory sits in its quarantine: no RSS bound there;
        # LeakSanitizer at the daemon's exit checks that every call was freed)
        if b"__asan_init" not in read(SERVE if KIND == "rpc_serve" else DAEMON):
            check(min(grew[1:]) < 4 * 1024,
                  "RSS grew by less than 4 MiB over one of bursts 2-4 of 2,000 unknown calls",
                  "%s KiB (burst by burst)" % grew)
        m = cl.GetMetrics(pb.GetMetricsRequest(), timeout=10).prometheus_text
        check('cuzk_rpc_calls_total{method="unknown",code="UNIMPLEMENTED"} 8004' in m,
              "the unknown calls are counted", [x for x in m.splitlines() if "unknown" in x])
        assert_serving(cl, "after 8,004 unknown calls")


@test
def shutdown_with_pending_calls():
    d = Daemon(CIRCUITS, workers=1)
    cl = Client(d.channel())
    job = cl.SubmitProof(submit_req("chain", W_CHAIN, n=200, json_=False), timeout=60).job_id
    wait_busy(cl)
    futs = await_all(cl, [job] * 5, {})  # five calls pending when the daemon stops
    t0 = time.monotonic()
    # SIGTERM with the channel open, so that the daemon, not the client, ends
    # the calls: UNAVAILABLE, or the job's CANCELLED result (cuzk-daemon's
    # [shutdown] cancel_running = true cancels it first)
    d.p.send_signal(signal.SIGTERM)
    try:
        ends = [f.exception(timeout=60) or f.result().status for f in futs]
        d.p.wait(60)
    finally:
        rc = d.stop()  # kills it if it is still running
    check(rc == 0, "exit status 0 after SIGTERM", rc, d.tail())
    check(all(e == ST.CANCELLED or (isinstance(e, grpc.RpcError) and e.code() == grpc.StatusCode.UNAVAILABLE)
              for e in ends), "the pending calls ended: UNAVAILABLE or CANCELLED",
          [e.code() if isinstance(e, grpc.RpcError) else ST.Status.Name(e) for e in ends])
    check(time.monotonic() - t0 < 60, "shut down promptly")


# ---- cuzk's own client ---------------------------------------------------------------


@test
def cli_commands():
    with Daemon(CIRCUITS, workers=1) as d:
        a = ["--addr", d.addr]
        wt = os.path.join(MUL, "witness.wtns")
        vk = os.path.join(MUL, "verification_key.json")
        out = os.path.join(TMP, "cli")
        # submit + await with JSON outputs
        r = cli("submit", *a, "--json", "--priority", "high", "mul", wt, check_rc=0)
        job = r.stdout.strip()
        check(job, "submit prints the job id")
        cli("await", *a, job, out + ".proof.json", out + ".public.json", check_rc=0)
        cli("verify", vk, out + ".public.json", out + ".proof.json", check_rc=0)
        check(json.loads(read(out + ".public.json")) == json.loads(read(os.path.join(MUL, "public.json"))),
              "public.json")
        cli("await", *a, job, "--proof-out", out + ".bin", check_rc=0)
        check(len(read(out + ".bin")) == 192, "--proof-out writes 192 bytes")
        # submit without --json: the JSON travels with the job all the same
        job2 = cli("submit", *a, "mul", wt, check_rc=0).stdout.strip()
        cli("await", *a, job2, out + "2.proof.json", out + "2.public.json", check_rc=0)
        cli("verify", vk, out + "2.public.json", out + "2.proof.json", check_rc=0)
        # a job another client submitted without want_json has only the bytes
        cl = Client(d.channel())
        job2b = cl.SubmitProof(submit_req(json_=False), timeout=60).job_id
        r = cli("await", *a, job2b, out + "2b.proof.json", out + "2b.public.json", check_rc=2)
        check("want_json" in r.stderr and "--proof-out" in r.stderr, "says the job has no JSON", r.stderr)
        cli("await", *a, job2b, "--proof-out", out + "2b.bin", check_rc=0)
        # outputs that are one file are refused before the wait, and a
        # partition's name that is another output's too
        r = cli("await", *a, job, out + "x.json", out + "x.json", check_rc=2)
        check("same file" in r.stderr and not os.path.exists(out + "x.json"), "await: two outputs, one file", r.stderr)
        r = cli("await", *a, "--proof-out", out + "x.json", job, out + "x.json", out + "y.json", check_rc=2)
        check("same file" in r.stderr, "await: --proof-out is proof.json", r.stderr)
        # several witnesses: one file per partition
        job3 = cli("submit", *a, "--json", "mul", wt, wt, check_rc=0).stdout.strip()
        cli("await", *a, job3, out + "3.proof.json", out + "3.public.json", check_rc=0)
        for i in range(2):
            cli("verify", vk, "%s3.public.%d.json" % (out, i), "%s3.proof.%d.json" % (out, i), check_rc=0)
        # request id: the second submit attaches
        j1 = cli("submit", *a, "--request-id", "cli-dup", "mul", wt, check_rc=0)
        j2 = cli("submit", *a, "--request-id", "cli-dup", "mul", wt, check_rc=0)
        check(j1.stdout == j2.stdout and "attached" in j2.stderr, "cli request id", j1.stdout, j2.stderr)
        # prove --circuit ID with --addr A (as every remote command), or
        # --remote A: the outputs of a local prove
        cli("prove", "--addr", d.addr, "--circuit", "mul", "--priority", "critical", wt,
            out + "4.proof.json", out + "4.public.json", check_rc=0)
        cli("verify", vk, out + "4.public.json", out + "4.proof.json", check_rc=0)
        cli("prove", "--circuit", "mul", "--remote", d.addr, wt, out + "4r.proof.json", out + "4r.public.json",
            check_rc=0)
        cli("verify", vk, out + "4r.public.json", out + "4r.proof.json", check_rc=0)
        r = cli("prove", "--addr", d.addr, "--circuit", "mul", wt, wt, out + "4w.public.json", check_rc=2)
        check("is the input" in r.stderr and read(wt) == W_MUL, "prove --circuit: the witness as an output", r.stderr)
        # status (table and JSON), metrics, preload, evict, cancel
        r = cli("status", *a, check_rc=0)
        check("completed" in r.stdout and "workers" in r.stdout, "status table", r.stdout)
        js = json.loads(cli("status", *a, "--json", check_rc=0).stdout)
        check(js["total_proofs_completed"] >= 4 and js["cpu_workers"] == 1, "status --json", js)
        r = cli("metrics", *a, check_rc=0)
        check("cuzk_rpc_calls_total" in r.stdout, "metrics")
        cli("preload", *a, "chain", check_rc=0)
        r = cli("evict", *a, "chain", check_rc=0)
        check("chain" in r.stdout, "evict output", r.stdout)
        long_job = cli("submit", *a, "chain", os.path.join(CHAIN, "witness.wtns"), check_rc=0).stdout.strip()
        r = cli("cancel", *a, long_job, check_rc=0)
        check("cancel" in r.stdout, "cancel output", r.stdout)
        r = cli("await", *a, long_job, check_rc=2)
        check("cancelled" in r.stderr, "await of a cancelled job", r.stderr)
        # await with a timeout on a job still running: exit 1
        slow = cli("submit", *a, "chain", *([os.path.join(CHAIN, "witness.wtns")] * 200), check_rc=0).stdout.strip()
        r = cli("await", *a, "--timeout-ms", "100", slow, check_rc=1)
        check("still" in r.stderr, "timeout message", r.stderr)
        cli("cancel", *a, slow, check_rc=0)
        # errors: exit 2 with the reason
        r = cli("submit", *a, "nosuch", wt, check_rc=2)
        check("not_found" in r.stderr or "unknown" in r.stderr, "unknown circuit message", r.stderr)
        r = cli("prove", "--remote", d.addr, "--circuit", "mul", os.path.join(MUL, "witness_bad.wtns"),
                out + "5.proof.json", out + "5.public.json", check_rc=2)
        check(not os.path.exists(out + "5.proof.json"), "no output from a failed proof")
        r = cli("await", *a, "nosuch", check_rc=2)
        r = cli("preload", *a, "nosuch", check_rc=2)
        # $CUZK_ADDR, for prove --circuit too
        env = dict(os.environ, CUZK_ADDR=d.addr)
        cli("status", check_rc=0, env=env)
        cli("prove", "--circuit", "mul", wt, out + "6.proof.json", out + "6.public.json", check_rc=0, env=env)
        cli("verify", vk, out + "6.public.json", out + "6.proof.json", check_rc=0)
        # usage errors
        cli("submit", *a, "mul", check_rc=2)
        cli("await", *a, check_rc=2)
        cli("status", *a, "--bogus", check_rc=2)
        cli("prove", "--remote", d.addr, wt, out + ".p", out + ".q", check_rc=2)  # no --circuit
        r = cli("prove", "--remote", "--circuit", "mul", wt, out + ".p", out + ".q", check_rc=2)
        check("--remote needs the daemon's address" in r.stderr, "--remote's value is not an option", r.stderr)
        for c in ("submit", "await", "cancel", "status", "metrics", "preload", "evict"):
            r = cli(c, "--help", check_rc=0)
            check(r.stdout.startswith("usage: cuzk " + c), c + " --help", r.stdout[:80])


@test
def cli_unreachable():
    sock = os.path.join(TMP, "nobody-here.sock")
    for c in (["status"], ["metrics"], ["cancel", "j"], ["await", "j"], ["preload", "x"], ["evict", "x"],
              ["submit", "mul", os.path.join(MUL, "witness.wtns")]):
        r = cli(c[0], "--addr", "unix://" + sock, *c[1:], check_rc=2)
        check(("unix://" + sock) in r.stderr and "cannot reach" in r.stderr, c[0] + ": names the address",
              r.stderr)
    r = cli("prove", "--remote", "127.0.0.1:1", "--circuit", "mul", os.path.join(MUL, "witness.wtns"),
            os.path.join(TMP, "u.p"), os.path.join(TMP, "u.q"), check_rc=2)
    check("127.0.0.1:1" in r.stderr, "prove --remote names the address", r.stderr)


# ---- memory: compressed floods, concurrent large submissions, many awaits (issue 14) ----


def rss(d):
    """The daemon's resident set (VmRSS of /proc/PID/status), in bytes."""
    with open("/proc/%d/status" % d.p.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise Check("no VmRSS for pid %d" % d.p.pid)


@test
def compressed_flood():
    """4 gzip-compressed SubmitProofs of 100 MiB of zeros (about 100 KiB on
    the wire each): each refused with a definite status before it is
    inflated, the daemon's RSS within 32 MiB of where it started, and the
    daemon still serving."""
    with Daemon(CIRCUITS) as d:
        cl = Client(d.channel())
        assert_serving(cl, "before the flood")
        base = rss(d)
        req = submit_req(wit=bytes(100 * MB))
        peak = base
        for i in range(4):
            e = rpc_error(cl.SubmitProof, req, timeout=60, compression=grpc.Compression.Gzip)
            check(e is not None, "compressed call %d refused" % i)
            check(e.code() == grpc.StatusCode.UNIMPLEMENTED and "compression" in e.details().lower(),
                  "compressed call %d: UNIMPLEMENTED naming compression" % i, e.code(), e.details())
            peak = max(peak, rss(d))
        del req
        check(peak - base < 32 * MB, "RSS growth under 32 MiB", base, peak)
        assert_serving(cl, "after the compressed flood")
        # an uncompressed request on the same channel is still served
        res = cl.Prove(pb.ProveRequest(submit=submit_req()), timeout=60,
                       compression=grpc.Compression.NoCompression).result
        check(res.status == ST.COMPLETED, "uncompressed Prove", ST.Status.Name(res.status))


# The daemon's memory past its host budget in these tests: the process
# itself, gRPC's and the allocator's fixed costs, the control calls' slack
# and the mapped keys' pages (docs/daemon.md, "Memory").
FIXED_OVERHEAD = 64 * MB
# What an idle CPU daemon holds (measured 17 MiB), within FIXED_OVERHEAD;
# an idle daemon above it (a build whose runtime libraries hold more, as
# CUDA's may) has the difference added to the bound.
IDLE = 24 * MB


def rss_bound(d, host, idle_rss):
    """The largest RSS the flood tests allow: host budget + FIXED_OVERHEAD,
    plus what the idle daemon held above IDLE; None under a sanitizer
    (its shadow memory and quarantine are no part of the daemon's)."""
    with open("/proc/%d/maps" % d.p.pid) as f:
        if any(x in f.read() for x in ("libasan", "libtsan", "libmsan")):
            return None
    return host + FIXED_OVERHEAD + max(0, idle_rss - IDLE)


def check_rss(d, peak, bound, *info):
    if bound is not None:
        check(peak < bound, "peak RSS under host budget + fixed overhead", peak, bound, *info)


def rss_sampler(d):
    """Samples the daemon's RSS every 5 ms on a thread until stopped;
    returns (stop, peak) where peak() is the largest sample."""
    box = {"peak": rss(d), "run": True}

    def loop():
        while box["run"]:
            try:
                box["peak"] = max(box["peak"], rss(d))
            except (OSError, Check):
                return
            time.sleep(0.005)

    th = threading.Thread(target=loop, daemon=True)
    th.start()

    def stop():
        box["run"] = False
        th.join()
        return box["peak"]
    return stop


@test
def await_flood():
    """4,000 concurrent AwaitProofs on a queued job with a 16 MiB queue
    budget: the calls past the budget are refused RESOURCE_EXHAUSTED at
    once, the others get the proof, and the daemon's RSS stays under its
    64 MiB host budget plus FIXED_OVERHEAD.  (rpc_serve: it pauses its
    workers so the job waits.)"""
    if KIND != "rpc_serve":
        return
    host, queue = 64 * MB, 16 * MB
    with Daemon(CIRCUITS, max_message=1 * MB, budget=(host, queue)) as d:
        cl = Client(d.channel())
        assert_serving(cl, "before the flood")
        bound = rss_bound(d, host, rss(d))
        d.pause(True)
        job = cl.SubmitProof(submit_req(), timeout=30).job_id
        stop = rss_sampler(d)
        done = {}
        futs = []
        t0 = time.monotonic()
        for i in range(4000):
            f = cl.AwaitProof.future(pb.AwaitProofRequest(job_id=job), timeout=120)
            futs.append(f)
        st = cl.GetStatus(pb.GetStatusRequest(), timeout=30)  # answered after the awaits were read
        check(st.queue_used_bytes <= st.queue_budget_bytes + 4 * MB, "queue charges within the budget",
              st.queue_used_bytes, st.queue_budget_bytes)
        refused = [f for f in futs if f.done() and f.exception() is not None]
        d.pause(False)
        codes = {}
        for f in futs:
            e = f.exception()
            k = "ok" if e is None else e.code().name
            codes[k] = codes.get(k, 0) + 1
            if e is None:
                check(f.result().status == ST.COMPLETED, "an admitted await gets the proof")
            elif e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise Check("await refused with %s: %s" % (e.code(), e.details()))
        peak = stop()
        check(codes.get("RESOURCE_EXHAUSTED", 0) > 0 and codes.get("ok", 0) > 0,
              "some awaits refused, some served", codes)
        check(len(refused) > 0 and "queue budget" in refused[0].exception().details(),
              "refused at once, naming the queue budget", len(refused))
        check_rss(d, peak, bound, codes, time.monotonic() - t0)
        print("        await_flood: %s, peak RSS %.1f MiB" % (codes, peak / MB), flush=True)
        assert_serving(cl, "after the await flood")


@test
def concurrent_large_submits():
    """24 concurrent 3.5 MiB SubmitProofs (a witness that is not a .wtns:
    each is received, unpacked and copied before it is found bad) against
    a 24 MiB queue budget, twice: each answered INVALID_ARGUMENT or
    RESOURCE_EXHAUSTED (some of those; or UNAVAILABLE with GOAWAY, a
    failed reconnect after one, or a broken pipe or reset, when gRPC's
    resource quota turns a connection away before its calls are
    processed), and the daemon's RSS stays under its 64 MiB host budget
    plus FIXED_OVERHEAD."""
    host, queue = 64 * MB, 24 * MB
    with Daemon(CIRCUITS, max_message=4 * MB, budget=(host, queue)) as d:
        chans = [Client(d.channel()) for _ in range(24)]
        assert_serving(chans[0], "before the flood")
        req = submit_req(wit=b"\x01" * (3 * MB + MB // 2))
        bound = rss_bound(d, host, rss(d))
        stop = rss_sampler(d)
        codes, lock = {}, threading.Lock()

        def one(cl):
            for _ in range(2):
                e = rpc_error(cl.SubmitProof, req, timeout=60)
                k = "ok" if e is None else e.code().name
                if e is not None and e.code() == grpc.StatusCode.UNAVAILABLE and any(
                        m in e.details() for m in ("GOAWAY", "failed to connect",
                                                   "Broken pipe", "Connection reset")):
                    # gRPC's quota turned the connection away (a GOAWAY, the
                    # reconnect after one refused, or the connection closed
                    # while the client still wrote its 3.5 MiB: a broken pipe
                    # or a reset): the call was not processed
                    k = "GOAWAY"
                elif e is not None and e.code() == grpc.StatusCode.UNAVAILABLE:
                    k = "UNAVAILABLE: " + e.details()[:60]
                with lock:
                    codes[k] = codes.get(k, 0) + 1

        ths = [threading.Thread(target=one, args=(c,)) for c in chans]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        peak = stop()
        check(set(codes) <= {"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "GOAWAY"}, "answers", codes)
        check(codes.get("RESOURCE_EXHAUSTED", 0) > 0, "some refused RESOURCE_EXHAUSTED", codes)
        check_rss(d, peak, bound, codes)
        print("        concurrent_large_submits: %s, peak RSS %.1f MiB" % (codes, peak / MB), flush=True)
        assert_serving(chans[0], "after the flood")


# A key whose proof takes seconds on one thread (2^15 chain: ~2.7 s on the
# 2-core development machine, the MSMs nearly all of it), made once per run
# by `cuzk bench keygen` (~2.4 s), and how soon a cancel must free its worker.
BIG_LG = 15
STOP_S = 0.5
_big = []


def big_key():
    if not _big:
        out = os.path.join(TMP, "big")
        cli("bench", "keygen", "--lg", str(BIG_LG), "--out", out, "--threads", "2", check_rc=0)
        _big.append(out)
    return _big[0]


@test
def cancel_frees_the_worker():
    """CancelProof of a partition in its MSMs frees the worker within
    STOP_S (the backend polls the job's stop flag between chunks of work,
    not only between the prover's stages), the job is CANCELLED, and the
    daemon proves the next job."""
    key = big_key()
    circuits = dict(CIRCUITS, big=os.path.join(key, "circuit.zkey"))
    with Daemon(circuits, workers=1) as d:
        cl = Client(d.channel())
        w = read(os.path.join(key, "witness.wtns"))
        j = cl.SubmitProof(submit_req("big", w, json_=False), timeout=60).job_id

        def proving():
            r = cl.AwaitProof(pb.AwaitProofRequest(job_id=j, timeout_ms=1), timeout=10)
            return r.state == "proving"

        wait_for(proving, "the job proving")
        time.sleep(0.3)  # past the quotient (~0.1 s of the proof), into the MSMs
        t0 = time.monotonic()
        r = cl.CancelProof(pb.CancelProofRequest(job_id=j), timeout=10)
        check(r.was_running, "the job was running when cancelled")
        wait_for(lambda: cl.GetStatus(pb.GetStatusRequest(), timeout=10).busy_workers == 0,
                 "an idle worker", 30)
        dt = time.monotonic() - t0
        check(dt <= STOP_S, "the worker was free %.0f ms after the cancel (at most %.0f ms)"
              % (dt * 1e3, STOP_S * 1e3))
        res = cl.AwaitProof(pb.AwaitProofRequest(job_id=j, timeout_ms=10000), timeout=20)
        check(res.status == ST.CANCELLED, "await of the cancelled job", ST.Status.Name(res.status))
        verify_result(cl.Prove(pb.ProveRequest(submit=submit_req()), timeout=60).result, MUL)


# ---- runner ----------------------------------------------------------------------------


def main():
    global W_MUL, W_CHAIN
    passed = failed = skipped = 0
    global KIND
    only = set(filter(None, args.only.split(",")))
    todo = [t for t in TESTS if not only or t.__name__ in only]
    W_MUL = read(os.path.join(MUL, "witness.wtns"))
    W_CHAIN = read(os.path.join(CHAIN, "witness.wtns"))
    for KIND in args.daemons.split(","):
        binary = SERVE if KIND == "rpc_serve" else DAEMON
        missing = [p for p in (CUZK, binary) if not os.path.exists(p)]
        for t in todo:
            name = "%s [%s]" % (t.__name__, KIND)
            if missing:
                skipped += 1
                print("  skip  %-46s missing %s" % (name, ", ".join(missing)), flush=True)
                continue
            t0 = time.monotonic()
            try:
                t()
                passed += 1
                print("  ok    %-46s %6.1f s" % (name, time.monotonic() - t0), flush=True)
            except Exception as e:  # noqa: BLE001
                failed += 1
                print("  FAIL  %-46s %s" % (name, e), flush=True)
                if not isinstance(e, Check):
                    traceback.print_exc(limit=4)
    shutil.rmtree(TMP, ignore_errors=True)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


sys.exit(main())
