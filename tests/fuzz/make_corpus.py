#!/usr/bin/env python3
"""Writes the crafted seeds of tests/fuzz/corpus/ (the others are copies of
examples/mul): small .r1cs, .wtns and header-only .zkey files, TOML and
config texts, and programs for the engine and rpc harnesses in the op
formats of fuzz_engine.c and fuzz_rpc.c.  Run from anywhere; rewrites the
files it owns (names starting with "c-")."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
BN254_R = 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001


def put(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "c-" + name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def container(magic, version, sections):
    out = magic + struct.pack("<II", version, len(sections))
    for sid, payload in sections:
        out += struct.pack("<IQ", sid, len(payload)) + payload
    return out


def fe(v, n=32):
    return v.to_bytes(n, "little")


# ---- .wtns: mul's shape (4 values), another prime, and an empty witness
def wtns(prime, values, n8=32):
    return container(b"wtns", 2, [(1, struct.pack("<I", n8) + fe(prime, n8) + struct.pack("<I", len(values))),
                                  (2, b"".join(fe(v, n8) for v in values))])


put("wtns", "four.wtns", wtns(R, [1, 33, 3, 11]))
put("wtns", "bn254.wtns", wtns(BN254_R, [1, 2]))
put("wtns", "none.wtns", wtns(R, []))
put("wtns", "n8-64.wtns", wtns(R, [1, R - 1], 64))

# ---- .r1cs: c = a * b (circom's mul), with a wire map; and one with custom gates
def lc(terms):
    return struct.pack("<I", len(terms)) + b"".join(struct.pack("<I", w) + fe(c) for w, c in terms)


hdr = struct.pack("<I", 32) + fe(R) + struct.pack("<IIIIQI", 4, 1, 0, 2, 4, 1)
cons = lc([(2, R - 1)]) + lc([(3, 1)]) + lc([(1, R - 1)])
wmap = b"".join(struct.pack("<Q", i) for i in range(4))
put("r1cs", "mul.r1cs", container(b"r1cs", 1, [(1, hdr), (2, cons), (3, wmap)]))
gates = struct.pack("<I", 1) + b"gate\0" + struct.pack("<I", 1) + fe(5)
uses = struct.pack("<I", 1) + struct.pack("<II", 0, 2) + struct.pack("<QQ", 1, 2)
put("r1cs", "gates.r1cs", container(b"r1cs", 1, [(1, hdr), (2, cons), (4, gates), (5, uses)]))

# ---- .zkey header only: mul's sections 1 and 2 (all zkey_read_header reads)
mul = open(os.path.join(here, "..", "..", "examples", "mul", "circuit.zkey"), "rb").read()
n = struct.unpack_from("<I", mul, 8)[0]
pos, secs = 12, {}
for _ in range(n):
    sid, size = struct.unpack_from("<IQ", mul, pos)
    secs[sid] = mul[pos + 12:pos + 12 + size]
    pos += 12 + size
put("zkey_header", "mul-1-2.zkey", container(b"zkey", 1, [(1, secs[1]), (2, secs[2])]))
put("zkey_header", "mul-2-1.zkey", container(b"zkey", 1, [(2, secs[2]), (1, secs[1])]))

# ---- TOML: every construct the reader takes, and the config's sections
put("toml", "all.toml", """# every construct toml.h reads
title = "t" # comment
'literal key' = 'C:\\path'
"quoted.key" = "tab\\tnl\\nq\\"u\\u00e9\\U0001F600"
a.b.c = 1_000
hex = 0xdead_beef
oct = 0o755
bin = 0b1010
neg = -17
f = 6.02e23
g = -inf
h = nan
yes = true
no = false
arr = [ 1, [2, 3], ["x", 'y'], ]
multi = [
  1, # one
  2,
]
[table]
x = 1
[table.sub]
y = 2
[[items]]
id = "a"
[[items]]
id = "b"
[items.extra]
z = 3
""")
put("toml", "crlf.toml", "a = 1\r\n[b]\r\nc = \"d\"\r\n")

put("config", "all.toml", """[daemon]
listen = "127.0.0.1:9820"
status_listen = "127.0.0.1:9821"
max_message_size = "64MiB"
[memory]
host_budget = "2GiB"
safety_margin = "1.5GB"
queue_budget = 268435456
eviction_min_idle = "1h30m"
pin_keys = true
[gpus]
device = "cpu"
devices = [0, 2]
gpu_workers_per_device = 3
device_budget = "auto"
keys_on_device = true
ntt_pass1_table = false
[cpu]
workers = 4
threads = 0
[srs]
param_dir = "params"
[jobs]
finished_ttl = "500ms"
max_finished = 7
[shutdown]
cancel_running = true
[logging]
level = "debug"
[[circuits]]
id = "mul"
path = "mul/circuit.zkey"
[[circuits]]
id = "abs"
path = "/var/lib/cuzk/abs.zkey"
""")
put("config", "unix.toml", '[daemon]\nlisten = "unix:///tmp/cuzk.sock"\nstatus_listen = ""\n')

# ---- the engine harness's programs (fuzz_engine.c): f, g, then ops
SUBMIT, AWAIT, CANCEL, STATUS, PRELOAD, EVICT, PAUSE = 0, 1, 3, 4, 5, 6, 7
K, BAD, P, SHORT = 0, 1, 2, 3


def fuzzed_id(s):
    return bytes([0xC0, len(s)]) + s


def submit(rid, circuit, nparts, kinds, pri=2, json=False):
    out = bytes([SUBMIT]) + rid + bytes([circuit, nparts | pri << 3 | (0x80 if json else 0)])
    for k in kinds:
        out += k
    return out


W_K, W_P = b"\x00", b"\x01"
def w_mut(at, val):
    return b"\x02" + struct.pack("<H", at) + bytes([val])
def w_raw(data):
    return b"\x03" + struct.pack("<H", len(data)) + data


POOL0 = b"\x00"
ok = bytes([0x4F, 0x27]) + submit(fuzzed_id(b"r1"), K, 1, [W_K], json=True) + \
    bytes([AWAIT]) + POOL0 + b"\x03" + bytes([STATUS]) + bytes([AWAIT]) + POOL0 + b"\x03"
put("engine", "prove.bin", ok)
put("engine", "two-keys.bin", bytes([0x4F, 0x07]) +
    submit(fuzzed_id(b"x"), K, 2, [W_K, W_K], pri=4) + submit(fuzzed_id(b"y"), P, 1, [W_P], pri=1) +
    bytes([PRELOAD, BAD, EVICT, K, STATUS, AWAIT]) + POOL0 + b"\x03")
put("engine", "bad-key.bin", bytes([0x4F, 0x20]) + submit(fuzzed_id(b"b"), BAD, 1, [W_K]) +
    bytes([AWAIT]) + POOL0 + b"\x03" + bytes([CANCEL]) + POOL0)
put("engine", "paused.bin", bytes([0x01, 0x00, PAUSE | 8]) + submit(b"\x81", K, 1, [w_mut(300, 7)]) +
    submit(b"\x81", K, 1, [W_K]) + bytes([CANCEL]) + POOL0 + bytes([STATUS, PAUSE]))
put("engine", "raw.bin", bytes([0x0F, 0x00]) + submit(b"\x40", SHORT, 1, [w_raw(b"")]) +
    submit(b"\x41", K, 3, [w_raw(b"wtns\x02\x00\x00\x00"), W_P, W_K]) + bytes([PRELOAD, P, EVICT, P]))

# ---- the rpc harness's programs (fuzz_rpc.c): f, g, then {u8 method, u16 len, body}
def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(num, wt, payload):
    key = varint(num << 3 | wt)
    if wt == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def submit_msg(rid, circuit, witnesses, pri=0, json=False):
    m = field(1, 2, rid) if rid else b""
    if pri:
        m += field(5, 0, pri)
    m += field(100, 2, circuit)
    for w in witnesses:
        m += field(101, 2, w)
    if json:
        m += field(102, 0, 1)
    return m


def rec(method, body):
    return bytes([method]) + struct.pack("<H", len(body)) + body


GO = b"\x80"  # unpause
put("rpc", "submit-await.bin", bytes([0x0F, 0x00]) + GO + rec(0, submit_msg(b"r", b"k", [b"K"], 3, True)) +
    rec(1, field(1, 2, b"r") + field(2, 0, 2)) + rec(4, b"") + rec(5, b"") + rec(1, field(1, 2, b"r")))
put("rpc", "prove.bin", bytes([0x0F, 0x20]) + GO + rec(2, field(1, 2, submit_msg(b"", b"p", [b"P"]))))
put("rpc", "keys.bin", bytes([0x0F, 0x00]) + rec(6, field(1, 2, b"k")) + rec(6, field(1, 2, b"p")) +
    rec(7, field(1, 2, b"k")) + rec(7, field(1, 2, b"short")) + rec(6, field(1, 2, b"bad")))
put("rpc", "refusals.bin", bytes([0x0F, 0x00]) + rec(0, submit_msg(b"x", b"k", [])) +
    rec(0, submit_msg(b"x", b"", [b"K"])) + rec(0, submit_msg(b"x", b"k", [b"K"], 9)) +
    rec(0, submit_msg(b"x", b"k", [b""])) + rec(0, field(2, 0, 1)) + rec(2, b"") +
    rec(3, field(1, 2, b"x")) + rec(3, b"") + rec(1, b""))
put("rpc", "cancel.bin", bytes([0x03, 0x00]) + rec(0, submit_msg(b"c", b"k", [b"K", b"K"], 4)) +
    rec(3, field(1, 2, b"c")) + rec(0, submit_msg(b"c", b"k", [b"K", b"K"], 4)) + GO +
    rec(1, field(1, 2, b"c") + field(2, 0, 1)))

# ---- PCE .bin (Curio cuzk, docs/FORMATS.md "PCE"): rows are (A, B, C) lists of
# (column, value); the dummy rows, densities and counts are added here.
RM = (1 << 256) % R


def pce(ni, naux, rows):
    rows = list(rows) + [([(i, 1)], [], []) for i in range(ni)]
    out = b"PCE\x02" + struct.pack("<IIII", 2, ni, naux, len(rows))
    mats = b""
    total = 0
    dens = [set(), set(), set()]
    for m in range(3):
        rp, cols, vals = [0], [], []
        for r in rows:
            for c, v in sorted(r[m]):
                cols.append(c)
                vals.append(v * RM % R)
                if m == 0 and c >= ni:
                    dens[0].add(c - ni)
                if m == 1:
                    (dens[1].add(c) if c < ni else dens[2].add(c - ni))
            rp.append(len(cols))
        total += len(cols)
        mats += struct.pack("<Q", len(rp)) + b"".join(struct.pack("<I", x) for x in rp)
        mats += struct.pack("<Q", len(cols)) + b"".join(struct.pack("<I", x) for x in cols)
        mats += struct.pack("<Q", len(vals)) + b"".join(fe(x) for x in vals)
    out += struct.pack("<QI", total, 0) + mats
    for d, bits in zip(dens, (naux, ni, naux)):
        words = [0] * ((bits + 63) // 64)
        for i in d:
            words[i // 64] |= 1 << (i % 64)
        out += struct.pack("<Q", len(words)) + b"".join(struct.pack("<Q", x) for x in words)
        out += struct.pack("<QQ", bits, len(d))
    return out


# (x + a0) * a0 = a1 over ONE, x; a XOR row (2a)(b) = a + b - c; a pack row
put("pce", "tiny.bin", pce(2, 2, [([(1, 1), (2, 1)], [(2, 1)], [(3, 1)])]))
put("pce", "xor.bin", pce(1, 3, [([(1, 1)], [(1, 1)], [(1, 1)]), ([(2, 2)], [(1, 1)], [(1, 1), (2, 1), (3, R - 1)])]))
put("pce", "pack.bin", pce(3, 4, [([(3, 1), (4, 2), (5, 4)], [(0, 1)], [(6, 1)]), ([(1, 1)], [(0, 1)], [(2, 1)])]))
put("pce", "inputs-only.bin", pce(1, 0, []))
