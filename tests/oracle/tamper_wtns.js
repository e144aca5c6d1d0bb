#!/usr/bin/env node
// Usage: node tamper_wtns.js IN.wtns OUT.wtns [INDEX] [DELTA]
//
// Copies an iden3 .wtns file and adds DELTA (default 1) mod p to witness
// wire INDEX (default: the last wire, which for circom circuits is an
// internal, non-public signal), so the witness no longer satisfies the R1CS.
//
// .wtns layout (all integers little-endian):
//   "wtns" | u32 version (2) | u32 nSections |
//   nSections x { u32 type | u64 size | payload }
//   section 1: u32 n8 | prime (n8 bytes LE) | u32 nWitness
//   section 2: nWitness x n8-byte LE canonical field elements
"use strict";
const fs = require("fs");

function die(msg) { console.error("tamper_wtns: " + msg); process.exit(2); }

const [inPath, outPath, idxArg, deltaArg] = process.argv.slice(2);
if (!inPath || !outPath) die("usage: tamper_wtns.js IN.wtns OUT.wtns [INDEX] [DELTA]");

const buf = Buffer.from(fs.readFileSync(inPath));
if (buf.toString("latin1", 0, 4) !== "wtns") die("bad magic");
const version = buf.readUInt32LE(4);
if (version !== 2) die("unsupported version " + version);
const nSections = buf.readUInt32LE(8);

const sections = {};
let off = 12;
for (let i = 0; i < nSections; i++) {
    const type = buf.readUInt32LE(off);
    const size = Number(buf.readBigUInt64LE(off + 4));
    sections[type] = { start: off + 12, size };
    off += 12 + size;
}
if (!sections[1] || !sections[2]) die("missing section 1 or 2");

const h = sections[1].start;
const n8 = buf.readUInt32LE(h);
const leToBig = (b) => BigInt("0x" + (Buffer.from(b).reverse().toString("hex") || "0"));
const bigToLe = (x, n) => {
    const hex = x.toString(16).padStart(n * 2, "0");
    return Buffer.from(hex, "hex").reverse();
};
const p = leToBig(buf.subarray(h + 4, h + 4 + n8));
const nWitness = buf.readUInt32LE(h + 4 + n8);
if (sections[2].size !== nWitness * n8) die("section 2 size mismatch");

const idx = idxArg === undefined ? nWitness - 1 : Number(idxArg);
if (!Number.isInteger(idx) || idx < 1 || idx >= nWitness) die("bad index " + idxArg + " (must be 1.." + (nWitness - 1) + ")");
let delta = deltaArg === undefined ? 1n : BigInt(deltaArg);
delta = ((delta % p) + p) % p;
if (delta === 0n) die("delta is 0 mod p");

const pos = sections[2].start + idx * n8;
const oldV = leToBig(buf.subarray(pos, pos + n8));
const newV = (oldV + delta) % p;
bigToLe(newV, n8).copy(buf, pos);
fs.writeFileSync(outPath, buf);
console.log(`tamper_wtns: wire ${idx}/${nWitness}: ${oldV} -> ${newV}`);
