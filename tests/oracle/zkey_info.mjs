#!/usr/bin/env node
// Usage: node zkey_info.mjs circuit.r1cs circuit.zkey
// Prints one line: nConstraints nPubInputs nOutputs nPublic nVars domainSize
// (from the r1cs header, section 1, and the groth16 zkey header, section 2).
import fs from "fs";

function sections(path, magic) {
    const b = fs.readFileSync(path);
    if (b.toString("latin1", 0, 4) !== magic) throw new Error(path + ": bad magic");
    const n = b.readUInt32LE(8);
    const s = {};
    let off = 12;
    for (let i = 0; i < n; i++) {
        const type = b.readUInt32LE(off);
        const size = Number(b.readBigUInt64LE(off + 4));
        if (!(type in s)) s[type] = off + 12;
        off += 12 + size;
    }
    return { b, s };
}
const [r1csPath, zkeyPath] = process.argv.slice(2);
const R = sections(r1csPath, "r1cs");
let o = R.s[1];
const fs8 = R.b.readUInt32LE(o); o += 4 + fs8;
const nWires = R.b.readUInt32LE(o);
const nOutputs = R.b.readUInt32LE(o + 4);
const nPubInputs = R.b.readUInt32LE(o + 8);
const nConstraints = R.b.readUInt32LE(o + 24);
const Z = sections(zkeyPath, "zkey");
if (Z.b.readUInt32LE(Z.s[1]) !== 1) throw new Error("not a groth16 zkey");
o = Z.s[2];
const n8q = Z.b.readUInt32LE(o); o += 4 + n8q;
const n8r = Z.b.readUInt32LE(o); o += 4 + n8r;
const nVars = Z.b.readUInt32LE(o);
const nPublic = Z.b.readUInt32LE(o + 4);
const domainSize = Z.b.readUInt32LE(o + 8);
console.log(`nConstraints=${nConstraints} nPubInputs=${nPubInputs} nOutputs=${nOutputs} nPublic=${nPublic} nVars=${nVars} nWires=${nWires} domainSize=${domainSize} (2^${Math.log2(domainSize)})`);
