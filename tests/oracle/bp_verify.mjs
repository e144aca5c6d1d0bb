#!/usr/bin/env node
// Usage: node tests/oracle/bp_verify.mjs KEY.vk PUBLIC.json PROOF.bin
//
// An independent verifier of bellperson Groth16 proofs on @noble/curves
// (pinned in tests/oracle/package.json), sharing no code with cuzk: it
// parses the .vk bytes and the proof bytes itself (docs/FORMATS.md §5.3,
// §5.4) and checks, per partition,
//     e(A, B) == e(alpha_g1, beta_g2) * e(IC_0 + sum x_i IC_i, gamma_g2) * e(C, delta_g2)
// with four separate pairings.  PUBLIC.json: the inputs without ONE as
// decimal strings, an array of such arrays when PROOF.bin holds k > 1
// proofs of 192 bytes (compressed A 48 | B 96 | C 48).
// Prints OK (exit 0), "INVALID: partition I ..." (exit 1), or an error on
// stderr (exit 2).
import fs from "fs";
import path from "path";
import { fileURLToPath, pathToFileURL } from "url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NM = path.join(HERE, "node_modules");
const { bls12_381 } = await import(pathToFileURL(path.join(NM, "@noble/curves/bls12-381.js")).href);
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const Fp12 = bls12_381.fields.Fp12;
const R = bls12_381.fields.Fr.ORDER;

function die(msg) {
  process.stderr.write(`bp_verify: ${msg}\n`);
  process.exit(2);
}

const [vkPath, pubPath, proofPath] = process.argv.slice(2);
if (!proofPath) die("usage: bp_verify.mjs KEY.vk PUBLIC.json PROOF.bin");

// ---- the .vk: six uncompressed points, u32 BE ic_len, ic_len G1 points
const vkb = fs.readFileSync(vkPath);
let off = 0;
function take(n, what) {
  if (off + n > vkb.length) die(`${vkPath}: ${what} at byte offset ${off}: file ends`);
  const b = vkb.subarray(off, off + n);
  off += n;
  return b;
}
function point(P, n, what, noInf) {
  const at = off;
  let p;
  try {
    p = P.fromBytes(take(n, what));
    p.assertValidity();
  } catch (e) {
    die(`${vkPath}: ${what} at byte offset ${at}: ${e.message}`);
  }
  if (noInf && p.equals(P.ZERO)) die(`${vkPath}: ${what} at byte offset ${at}: point at infinity`);
  if (!p.equals(P.ZERO) && !p.isTorsionFree()) die(`${vkPath}: ${what}: not in the subgroup`);
  return p;
}
const alpha = point(G1, 96, "alpha_g1");
point(G1, 96, "beta_g1");
const beta = point(G2, 192, "beta_g2");
const gamma = point(G2, 192, "gamma_g2");
point(G1, 96, "delta_g1");
const delta = point(G2, 192, "delta_g2");
const nIc = take(4, "ic_len").readUInt32BE(0);
if (nIc < 1) die(`${vkPath}: ic_len is 0`);
if (vkb.length !== 868 + 96 * nIc) die(`${vkPath}: ${vkb.length} bytes, expected 868 + 96 * ${nIc}`);
const ic = [];
for (let i = 0; i < nIc; i++) ic.push(point(G1, 96, `ic[${i}]`, true));

// ---- the proofs
const pb = fs.readFileSync(proofPath);
if (pb.length === 0 || pb.length % 192) die(`${proofPath}: ${pb.length} bytes, not a positive multiple of 192`);
const k = pb.length / 192;

// ---- the inputs
let pub;
try {
  pub = JSON.parse(fs.readFileSync(pubPath, "utf8"));
} catch (e) {
  die(`${pubPath}: ${e.message}`);
}
if (!Array.isArray(pub)) die(`${pubPath}: not an array`);
const nested = pub.length > 0 && Array.isArray(pub[0]);
const parts = nested ? pub : [pub];
if (parts.length !== k) die(`${pubPath}: ${parts.length} input sets for ${k} proofs`);
const inputs = parts.map((arr, p) => {
  if (!Array.isArray(arr) || arr.length !== nIc - 1)
    die(`${pubPath}: partition ${p}: expected ${nIc - 1} inputs`);
  return arr.map((s, i) => {
    if (typeof s !== "string" || !/^[0-9]+$/.test(s)) die(`${pubPath}: [${p}][${i}]: not a decimal string`);
    const v = BigInt(s);
    if (v >= R) die(`${pubPath}: [${p}][${i}]: not below r`);
    return v;
  });
});

const eAB = bls12_381.pairing(alpha, beta);
let bad = null;
for (let p = 0; p < k && bad === null; p++) {
  const bytes = pb.subarray(p * 192, p * 192 + 192);
  let A, B, C;
  try {
    A = G1.fromBytes(bytes.subarray(0, 48));
    B = G2.fromBytes(bytes.subarray(48, 144));
    C = G1.fromBytes(bytes.subarray(144, 192));
    for (const q of [A, B, C]) {
      q.assertValidity();
      if (q.equals(q.constructor.ZERO)) throw new Error("point at infinity");
      if (!q.isTorsionFree()) throw new Error("not in the subgroup");
    }
  } catch (e) {
    bad = `partition ${p}: ${e.message}`;
    break;
  }
  let acc = ic[0];
  inputs[p].forEach((x, i) => {
    if (x !== 0n) acc = acc.add(ic[i + 1].multiplyUnsafe(x));
  });
  const lhs = bls12_381.pairing(A, B);
  const rhs = Fp12.mul(Fp12.mul(eAB, bls12_381.pairing(acc, gamma)), bls12_381.pairing(C, delta));
  if (!Fp12.eql(lhs, rhs)) bad = `partition ${p}: the pairing equation does not hold`;
}
if (bad !== null) {
  console.log(`INVALID: ${bad}`);
  process.exit(1);
}
console.log("OK");
