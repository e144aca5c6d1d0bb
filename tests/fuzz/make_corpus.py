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

# ---- bellperson .vk / .params / proofs (groth16/bp.h).  Points are the
# standard generators and their doubles (zcash encodings, from @noble/curves);
# bp_vk and bp_params take a control byte first (0: every check; 1: skip_checks).
G1U = bytes.fromhex(
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")
G1U2 = bytes.fromhex(
    "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"
    "166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86881979749d28")
G2U = bytes.fromhex(
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801")
G1C = bytes.fromhex(
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
G1C2 = bytes.fromhex(
    "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e")
G2C = bytes.fromhex(
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")
INF1U = b"\x40" + bytes(95)
INF2U = b"\x40" + bytes(191)
INF1C = b"\xc0" + bytes(47)


def bp_vec(points):
    return struct.pack(">I", len(points)) + b"".join(points)


def bp_vk(ic):
    return G1U + G1U2 + G2U + G2U + G1U + G2U + bp_vec(ic)


vk2 = bp_vk([G1U, G1U2])
put("bp_vk", "valid.vk", b"\x00" + vk2)
put("bp_vk", "valid-unchecked.vk", b"\x01" + vk2)
put("bp_vk", "ic1.vk", b"\x00" + bp_vk([G1U2]))
put("bp_vk", "inf-alpha.vk", b"\x00" + INF1U + vk2[96:])
put("bp_vk", "inf-ic.vk", b"\x00" + bp_vk([G1U, INF1U]))
put("bp_vk", "ic0.vk", b"\x00" + bp_vk([]))
put("bp_vk", "trailing.vk", b"\x01" + vk2 + b"\x00")
put("bp_vk", "short.vk", b"\x01" + vk2[:-50])
put("bp_vk", "count-big.vk", b"\x01" + vk2[:864] + b"\xff\xff\xff\xff" + vk2[868:])

params = (bp_vk([G1U, G1U2]) + bp_vec([G1U, G1U2, G1U]) + bp_vec([G1U2]) + bp_vec([G1U, G1U]) +
          bp_vec([]) + bp_vec([G2U]))
put("bp_params", "valid.params", b"\x00" + params)
put("bp_params", "valid-unchecked.params", b"\x01" + params)
put("bp_params", "empty-vectors.params", b"\x01" + bp_vk([G1U]) + bp_vec([]) * 5)
put("bp_params", "inf-h.params", b"\x01" + bp_vk([G1U]) + bp_vec([INF1U]) + bp_vec([]) * 4)
put("bp_params", "inf-b_g2.params", b"\x01" + bp_vk([G1U]) + bp_vec([]) * 4 + bp_vec([INF2U]))
put("bp_params", "trailing.params", b"\x01" + params + b"\x00")
put("bp_params", "short.params", b"\x01" + params[:-1])
put("bp_params", "count-big.params", b"\x01" + bp_vk([G1U]) + b"\xff\xff\xff\xff" + G1U)

proof = G1C + G2C + G1C2
put("bp_proof", "one.bin", proof)
put("bp_proof", "two.bin", proof + G1C2 + G2C + G1C)
put("bp_proof", "inf-c.bin", G1C + G2C + INF1C)
put("bp_proof", "uncompressed-flag.bin", bytes([G1C[0] & 0x7F]) + G1C[1:] + G2C + G1C2)
put("bp_proof", "sort-flipped.bin", bytes([G1C[0] ^ 0x20]) + G1C[1:] + G2C + G1C2)
put("bp_proof", "short.bin", proof[:191])

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
