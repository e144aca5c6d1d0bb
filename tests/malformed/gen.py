#!/usr/bin/env python3
"""Writes small valid .wtns/.r1cs/.zkey files and malformed variants of them
into OUTDIR, with OUTDIR/MANIFEST listing, one per line,
    <file>|<expected exit of `cuzk info`>|<extra args>|<substring of its output>
for tests/malformed/run.sh.  Self-contained: no snarkjs needed.

Usage: tests/malformed/gen.py OUTDIR
"""
import os
import struct
import sys
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
BN_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
BN_Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
G1 = (0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
      0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)
G2 = ((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
       0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
      (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
       0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))
assert (G1[1] ** 2 - G1[0] ** 3 - 4) % P == 0

u32 = lambda v: struct.pack("<I", v)
u64 = lambda v: struct.pack("<Q", v)
le = lambda v, n: v.to_bytes(n, "little")
mont = lambda v: le(v * 2**384 % P, 48)  # zkey points: Montgomery, R = 2^384


def g1(p=G1):
    return bytes(96) if p is None else mont(p[0]) + mont(p[1])


def g2(p=G2):
    return bytes(192) if p is None else b"".join(mont(c) for xy in p for c in xy)


def container(magic, version, sections, nsec=None):
    out = magic + u32(version) + u32(len(sections) if nsec is None else nsec)
    for sid, data, *size in sections:
        out += u32(sid) + u64(size[0] if size else len(data)) + data
    return out


# circuit: a*b = out; 5a - b = d; w = {1, 33, 3, 11, 4}
W = [1, 33, 3, 11, 4]


def wtns(vals=W, prime=R, nwit=None):
    return [(1, u32(32) + le(prime, 32) + u32(len(vals) if nwit is None else nwit)),
            (2, b"".join(le(v, 32) for v in vals))]


def lc(*terms):
    return u32(len(terms)) + b"".join(u32(w) + le(c, 32) for w, c in terms)


def r1cs(prime=R, wire=3):
    cons = lc((2, 1)) + lc((3, 1)) + lc((1, 1)) + lc((2, 5), (wire, R - 1)) + lc((0, 1)) + lc((4, 1))
    hdr = u32(32) + le(prime, 32) + u32(5) + u32(1) + u32(0) + u32(2) + u64(5) + u32(2)
    return [(2, cons), (1, hdr), (3, b"".join(u64(i) for i in range(5)))]


def zkey(protocol=1, h_bad=False, q=P, n8q=48):
    hdr = (u32(n8q) + le(q, n8q) + u32(32) + le(R, 32) + u32(5) + u32(1) + u32(4) +
           g1() + g1() + g2() + g2() + g1() + g2())
    ents = [(0, 0, 2, 1), (1, 0, 3, 1), (0, 1, 2, 5), (0, 1, 3, R - 1), (1, 1, 0, 1), (0, 2, 0, 1), (0, 3, 1, 1)]
    coefs = u32(len(ents)) + b"".join(u32(m) + u32(r) + u32(w) + le(v, 32) for m, r, w, v in ents)
    h = [g1() for _ in range(4)]
    if h_bad:
        h[2] = h[2][:48] + bytes([h[2][48] ^ 1]) + h[2][49:]
    params = bytes([1, 4]) + b"test"
    contrib = bytes(64) + u32(1) + bytes(3 * 96 + 192 + 64) + u32(0) + u32(len(params)) + params
    return [(1, u32(protocol)), (2, hdr), (4, coefs), (3, g1() + g1(None)), (9, b"".join(h)),
            (8, g1() * 3), (5, g1() * 4 + g1(None)), (6, g1() * 5), (7, g2(None) + g2() * 4), (10, contrib)]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = []

    def put(name, data, rc, sub, args=""):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        manifest.append(f"{name}|{rc}|{args}|{sub}")

    vw = container(b"wtns", 2, wtns())
    vr = container(b"r1cs", 1, r1cs())
    vz = container(b"zkey", 1, zkey())
    put("valid.wtns", vw, 0, "5 values of 32 bytes")
    put("valid.r1cs", vr, 0, "constraints:    2")
    put("valid.zkey", vz, 0, "domain size:    4 (2^2)")
    put("valid_points.zkey", vz, 0, "points ok:", "--check-points")
    # the witness against the circuit: satisfied, then not
    put("sat.wtns", vw, 0, "satisfies all 2 constraints", "--r1cs valid.r1cs")
    put("unsat.wtns", container(b"wtns", 2, wtns([1, 33, 3, 11, 5])), 1, "constraint 1 of 2 fails",
        "--r1cs valid.r1cs")

    # truncations: header, section table, inside a section
    for name, data in (("wtns", vw), ("r1cs", vr), ("zkey", vz)):
        put(f"cut_header.{name}", data[:7], 2, "too short for the 12-byte header")
        put(f"cut_table.{name}", data[:18], 2, "needs a 12-byte header")
        put(f"cut_section.{name}", data[:len(data) - 10], 2, "runs past the end of the file")
        put(f"magic.{name}", b"ptau" + data[4:], 2, "unknown file type")
        put(f"version.{name}", data[:4] + u32(9) + data[8:], 2, "version 9 at offset 4")
        put(f"nsections.{name}", data[:8] + u32(0xffffffff) + data[12:], 2, "section table: entry")
        # the first section's 64-bit size: past the end, and wrapping offset + size
        put(f"size_past_end.{name}", data[:16] + u64(len(data)) + data[24:], 2, "runs past the end")
        put(f"size_wraps.{name}", data[:16] + u64(2**64 - 12) + data[24:], 2,
            "size 18446744073709551604 bytes runs past the end")

    put("length.wtns", container(b"wtns", 2, wtns(nwit=6)), 2,
        "section 2 (witness): size 160 bytes, expected 192 (nWitness 6 x n8 32)")
    put("value_ge_r.wtns", container(b"wtns", 2, wtns([1, 33, R, 11, 4])), 2,
        "value 2 at offset 140 is not below the prime")
    put("missing.wtns", container(b"wtns", 2, wtns()[:1]), 2, "section 2 (witness) is missing")
    put("dup.wtns", container(b"wtns", 2, wtns() + wtns()[:1]), 2, "section 1 (header) appears 2 times")
    put("bn254.wtns", container(b"wtns", 2, wtns(prime=BN_R)), 0, "BN254 (not supported yet)")
    put("wire.r1cs", container(b"r1cs", 1, r1cs(wire=5)), 2, "wire 5, expected < nWires 5")
    put("missing.r1cs", container(b"r1cs", 1, r1cs()[:1]), 2, "section 1 (header) is missing")
    put("protocol2.zkey", container(b"zkey", 1, zkey(protocol=2)), 2, "this is a PLONK key")
    put("bn254.zkey", container(b"zkey", 1, zkey(q=BN_Q, n8q=32)), 2, "BN254 keys are not supported yet")
    put("dup.zkey", container(b"zkey", 1, zkey() + zkey()[4:5]), 2, "section 9 (H) appears 2 times")
    put("missing.zkey", container(b"zkey", 1, zkey()[:4] + zkey()[5:]), 2, "section 9 (H) is missing")
    z = zkey()
    z[4] = (9, z[4][1][:-96])
    put("h_size.zkey", container(b"zkey", 1, z), 2,
        "section 9 (H): size 288 bytes, expected 384 (domainSize 4 x 96)")
    put("h_bad_point.zkey", container(b"zkey", 1, zkey(h_bad=True)), 0, "domain size")
    put("h_bad_point_checked.zkey", container(b"zkey", 1, zkey(h_bad=True)), 2,
        "section 9 (H): point 2 at offset", "--check-points")

    put("proof.json", b'{"pi_a":["1","2","1"],"protocol":"groth16","curve":"bls12381"}', 2,
        'missing key "pi_b"')
    good = open(os.path.join(REPO, "examples", "mul", "proof.json"), "rb").read()
    put("good_proof.json", good, 0, "snarkjs Groth16 proof")
    put("public.json", b'[\n "33"\n]', 0, "signals:        1")
    put("other.json", b'{"hello": 1}', 2, "neither a snarkjs proof")
    put("empty.bin", b"", 2, "unknown file type")

    with open(os.path.join(out, "MANIFEST"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"{len(manifest)} files in {out}")


main()
