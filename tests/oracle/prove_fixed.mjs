#!/usr/bin/env node
// Usage: node prove_fixed.mjs circuit.zkey witness.wtns R S proof.json public.json
//
// Runs snarkjs's own groth16 prover (snarkjs.groth16.prove, unmodified) but
// with the blinding scalars r and s fixed to R and S (decimal or 0x-hex)
// instead of curve.Fr.random(). snarkjs draws r first, then s; everything
// else is identical to `snarkjs groth16 prove`, so the output is a
// deterministic reference proof for byte-exact comparison:
//   pi_a = A + alpha + r*delta1
//   pi_b = B + beta2 + s*delta2
//   pi_c = C + H + s*pi_a + r*(B1 + beta1 + s*delta1) - r*s*delta1
import fs from "fs";
import * as snarkjs from "snarkjs";
import { getCurveFromName } from "ffjavascript";

const [zkey, wtns, rArg, sArg, proofOut, publicOut] = process.argv.slice(2);
if (!publicOut) {
    console.error("usage: prove_fixed.mjs circuit.zkey witness.wtns R S proof.json public.json");
    process.exit(2);
}
// snarkjs's bls12381 curve object is a process-wide singleton
// (globalThis.curve_bls12381), so patching it here affects the prover.
const curve = await getCurveFromName("bls12381");
const r = BigInt(rArg), s = BigInt(sArg);
const queue = [curve.Fr.e(r), curve.Fr.e(s)];
const origRandom = curve.Fr.random;
curve.Fr.random = () => {
    if (queue.length === 0) throw new Error("prove_fixed: unexpected extra Fr.random() call");
    return queue.shift();
};
try {
    const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, wtns);
    if (queue.length !== 0) throw new Error("prove_fixed: r/s were not consumed (snarkjs changed?)");
    if (globalThis.curve_bls12381 !== curve) throw new Error("prove_fixed: curve singleton mismatch");
    // same bytes as the snarkjs CLI (bfj, space 1, no trailing newline)
    fs.writeFileSync(proofOut, JSON.stringify(proof, null, 1));
    fs.writeFileSync(publicOut, JSON.stringify(publicSignals, null, 1));
} finally {
    curve.Fr.random = origRandom;
    await curve.terminate();
}
