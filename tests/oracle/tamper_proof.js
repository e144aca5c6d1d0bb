#!/usr/bin/env node
// Usage: node tamper_proof.js MODE IN.json OUT.json
//
// Writes a tampered copy of a snarkjs groth16 proof.json / public.json
// for negative tests. MODE:
//   a_is_c    proof: replace pi_a by pi_c (valid G1 point, wrong proof)
//   swap_ac   proof: swap pi_a and pi_c
//   offcurve  proof: add 1 to pi_a's y coordinate (point not on the curve)
//   public    public.json: add 1 (mod r) to the first public signal;
//             exits with status 3 (and writes nothing) if there are none.
"use strict";
const fs = require("fs");

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;

const [mode, inPath, outPath] = process.argv.slice(2);
if (!mode || !inPath || !outPath) {
    console.error("usage: tamper_proof.js a_is_c|swap_ac|offcurve|public IN.json OUT.json");
    process.exit(2);
}
const j = JSON.parse(fs.readFileSync(inPath, "utf8"));

switch (mode) {
case "a_is_c":
    j.pi_a = j.pi_c.slice();
    break;
case "swap_ac": {
    const t = j.pi_a; j.pi_a = j.pi_c; j.pi_c = t;
    break;
}
case "offcurve":
    j.pi_a = j.pi_a.slice();
    j.pi_a[1] = ((BigInt(j.pi_a[1]) + 1n) % P).toString();
    break;
case "public":
    if (!Array.isArray(j)) { console.error("tamper_proof: public.json must be an array"); process.exit(2); }
    if (j.length === 0) { console.error("tamper_proof: no public signals to tamper"); process.exit(3); }
    j[0] = ((BigInt(j[0]) + 1n) % R).toString();
    break;
default:
    console.error("tamper_proof: unknown mode " + mode);
    process.exit(2);
}
fs.writeFileSync(outPath, JSON.stringify(j, null, 1) + "\n");
