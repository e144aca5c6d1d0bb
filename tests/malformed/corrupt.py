#!/usr/bin/env python3
"""Writes into OUTDIR inputs whose proof fails verification, from a good
key and witness (tests/malformed/cli.sh, tests/daemon/joblog.sh):
  off_curve.zkey   A point 2 with one bit of its x flipped: off its curve
  off_curve.expect where cuzk must say it is ("section 5 (A): point 2 at
                   offset N: not on the curve")
  swapped.zkey     A points 2 and 3 swapped: every point valid, the key
                   inconsistent
  tampered.wtns    wire 5 (private) changed by one bit, still below r
  values.hex       every witness value's 32 bytes as hex, in both byte
                   orders, one a line (for checks that none is logged)
Usage: corrupt.py circuit.zkey witness.wtns OUTDIR"""
import struct
import sys


def sections(b):
    """(type, data offset, size) of each section of a zkey/wtns container."""
    off, n = 12, struct.unpack_from("<I", b, 8)[0]
    for _ in range(n):
        t, size = struct.unpack_from("<IQ", b, off)
        yield t, off + 12, size
        off += 12 + size


def main():
    zkey, wtns, out = sys.argv[1:4]
    k = open(zkey, "rb").read()
    a = next(o for t, o, _ in sections(k) if t == 5)  # the A points, 96 bytes each
    bad = bytearray(k)
    bad[a + 2 * 96] ^= 1  # point 2's x, lowest byte
    open(out + "/off_curve.zkey", "wb").write(bad)
    with open(out + "/off_curve.expect", "w") as f:
        f.write("section 5 (A): point 2 at offset %d: not on the curve" % (a + 2 * 96))
    sw = bytearray(k)
    sw[a + 2 * 96:a + 4 * 96] = k[a + 3 * 96:a + 4 * 96] + k[a + 2 * 96:a + 3 * 96]
    open(out + "/swapped.zkey", "wb").write(sw)
    w = bytearray(open(wtns, "rb").read())
    v, size = next((o, s) for t, o, s in sections(w) if t == 2)  # the values, 32 bytes each
    with open(out + "/values.hex", "w") as f:
        for i in range(size // 32):
            b = bytes(w[v + 32 * i:v + 32 * (i + 1)])
            f.write(b.hex() + "\n" + b[::-1].hex() + "\n")
    w[v + 5 * 32] ^= 1
    open(out + "/tampered.wtns", "wb").write(w)


if __name__ == "__main__":
    main()
