#!/usr/bin/env node
// Usage: node fast_ptau.mjs POWER OUT.ptau [SEED] [--unprepared]
//
// TEST-ONLY powers of tau for BLS12-381 with secrets tau, alpha, beta derived
// from SEED (sha256, so the file is deterministic and the "toxic waste" is
// public: never use it for anything but tests).
//
// Why: `snarkjs powersoftau prepare phase2` computes the Lagrange sections
// with group FFTs (n log n scalar multiplications); on a 2-core machine that
// is ~3 min at power 12 and would be ~1-2 hours at power 16-17.  Here every
// point is computed directly as s*G from its scalar s (known because tau is
// known), with a fixed-base 8-bit window table in ffjavascript's wasm
// (~32 mixed additions per point), in worker threads.
//
// The output has the same layout and the same bytes as
//   ptau with the same tau/alpha/beta  ->  snarkjs powersoftau prepare phase2
// (sections 1-7, 12-15; section 7 lists 0 contributions, so
// `snarkjs powersoftau verify` rejects it, but `groth16 setup` accepts it).
// With --unprepared only sections 1-7 are written (that is what
// `make_fixtures.sh` feeds to snarkjs's own prepare phase2 at a small power
// to check the prepared output byte for byte).
//
// Points are stored as snarkjs does: affine, x|y, little-endian Montgomery
// (ffjavascript's internal form).
import fs from "fs";
import os from "os";
import crypto from "crypto";
import { fork } from "child_process";
import { fileURLToPath } from "url";
import { buildBls12381 } from "ffjavascript";

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const Q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;

// ------------------------------------------------------------------ worker
if (process.argv[2] === "--worker-child") {
    // (a child process, not a worker_thread: ffjavascript's web-worker
    // dependency takes over any worker_thread that imports it)
    const curve = await buildBls12381(true);
    const ex = curve.tm.instance.exports;
    const mem = curve.tm.memory;
    // bump allocator on the wasm heap (word 0 is the module's free pointer,
    // which its functions also use for temporaries: keep slack above it)
    const tm = {
        u8: new Uint8Array(mem.buffer),
        u32: new Uint32Array(mem.buffer),
        alloc(len) {
            while (this.u32[0] & 7) this.u32[0]++;
            const res = this.u32[0];
            const need = res + len + (64 << 20);
            if (need > mem.buffer.byteLength) {
                mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
                this.u8 = new Uint8Array(mem.buffer);
                this.u32 = new Uint32Array(mem.buffer);
            }
            this.u32[0] = res + len;
            return res;
        },
    };
    const ctx = {};
    for (const name of ["G1", "G2"]) {
        const G = curve[name];
        const pre = name === "G1" ? "g1m_" : "g2m_";
        const n8 = G.F.n8;                // bytes of one coordinate
        const sJ = n8 * 3, sA = n8 * 2;
        // table[j][d-1] = d * 2^(8j) * G, affine, for j = 0..31, d = 1..255
        const nT = 32 * 255;
        const pTabJ = tm.alloc(nT * sJ);
        const pTab = tm.alloc(nT * sA);
        const pBase = tm.alloc(sJ);
        const pTmp = tm.alloc(sJ);
        tm.u8.set(G.g, pBase);            // generator, jacobian Montgomery
        for (let j = 0; j < 32; j++) {
            ex[pre + "copy"](pBase, pTmp);
            for (let d = 1; d <= 255; d++) {
                const dst = pTabJ + (j * 255 + d - 1) * sJ;
                if (d === 1) ex[pre + "copy"](pBase, dst);
                else ex[pre + "add"](dst - sJ, pBase, dst);
            }
            // next base = 256 * base
            for (let k = 0; k < 8; k++) ex[pre + "double"](pBase, pBase);
        }
        ex[pre + "batchToAffine"](pTabJ, nT, pTab);
        ctx[name] = { pre, sJ, sA, pTab };
    }
    let cap = 0, pSc = 0, pAcc = 0, pOut = 0;
    process.on("message", ({ id, group, scalars }) => {
        const c = ctx[group];
        const n = scalars.length / 32;
        if (n > cap) {
            cap = n;
            pSc = tm.alloc(n * 32);
            pAcc = tm.alloc(n * ctx.G2.sJ);
            pOut = tm.alloc(n * ctx.G2.sA);
        }
        tm.u8.set(scalars, pSc);
        const u8 = tm.u8;
        const addMixed = ex[c.pre + "addMixed"], zero = ex[c.pre + "zero"];
        for (let i = 0; i < n; i++) {
            const acc = pAcc + i * c.sJ;
            zero(acc);
            const s = pSc + i * 32;
            for (let j = 0; j < 32; j++) {
                const d = u8[s + j];
                if (d) addMixed(acc, c.pTab + (j * 255 + d - 1) * c.sA, acc);
            }
        }
        ex[c.pre + "batchToAffine"](pAcc, n, pOut);
        const out = tm.u8.slice(pOut, pOut + n * c.sA);
        process.send({ id, out });
    });
    process.on("disconnect", () => process.exit(0));
    process.send({ ready: true });
} else {
    await main();
}

// ------------------------------------------------------------------ main
function modpow(b, e, m) {
    let r = 1n; b %= m;
    while (e > 0n) { if (e & 1n) r = r * b % m; b = b * b % m; e >>= 1n; }
    return r;
}
function inv(x) { return modpow(x, R - 2n, R); }

function seedScalar(seed, label) {
    const h = crypto.createHash("sha512").update(`cuzk-test-ptau|${seed}|${label}`).digest("hex");
    const v = BigInt("0x" + h) % R;
    if (v === 0n) throw new Error("zero secret");
    return v;
}

function scalarsToLE(arr) {
    const out = new Uint8Array(arr.length * 32);
    for (let i = 0; i < arr.length; i++) {
        let x = arr[i];
        for (let k = 0; k < 32; k++) { out[i * 32 + k] = Number(x & 0xffn); x >>= 8n; }
    }
    return out;
}

async function main() {
    const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
    const unprepared = process.argv.includes("--unprepared");
    const [powerArg, outPath, seedArg] = args;
    if (!powerArg || !outPath) {
        console.error("usage: fast_ptau.mjs POWER OUT.ptau [SEED] [--unprepared]");
        process.exit(2);
    }
    const P = Number(powerArg);
    if (!(P >= 1 && P <= 27)) throw new Error("bad power");
    const seed = seedArg || "cuzk";
    const tau = seedScalar(seed, "tau");
    const alpha = seedScalar(seed, "alpha");
    const beta = seedScalar(seed, "beta");

    // roots of unity exactly as ffjavascript/snarkjs use them
    const ffCurve = await buildBls12381(true);
    const Fr = ffCurve.Fr;
    const omega = (p) => BigInt(Fr.toObject(Fr.w[p]));
    const g1one = ffCurve.G1.oneAffine, g2one = ffCurve.G2.oneAffine;

    // --- workers
    const nW = Math.max(1, Math.min(os.cpus().length, 8));
    const workers = [];
    for (let i = 0; i < nW; i++) {
        const w = fork(fileURLToPath(import.meta.url), ["--worker-child"], { serialization: "advanced" });
        await new Promise((res, rej) => { w.once("message", res); w.once("error", rej); });
        w.pending = new Map();
        w.on("message", ({ id, out }) => { const f = w.pending.get(id); w.pending.delete(id); f(out); });
        w.on("exit", (code) => { if (w.pending.size || code) { console.error("fast_ptau: worker died", code); process.exit(1); } });
        workers.push(w);
    }
    let nextId = 0, rr = 0;
    const mulBase = (group, scalarsLE) => {
        const w = workers[rr++ % nW];
        const id = nextId++;
        return new Promise((res) => { w.pending.set(id, res); w.send({ id, group, scalars: scalarsLE }); });
    };

    const fd = fs.openSync(outPath + ".part", "w");
    const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
    const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
    const write = (b) => fs.writeSync(fd, b);

    fs.writeSync(fd, Buffer.from("ptau"));
    write(u32(1));
    write(u32(unprepared ? 7 : 11));
    // section 1: header
    write(u32(1)); write(u64(4 + 48 + 4 + 4));
    write(u32(48));
    { const b = Buffer.alloc(48); let x = Q; for (let k = 0; k < 48; k++) { b[k] = Number(x & 0xffn); x >>= 8n; } write(b); }
    write(u32(P)); write(u32(P));

    const CH = 1 << 13;          // scalars per worker job
    // write the points for a list of scalars (generated lazily by gen(i))
    async function writePoints(group, n, gen) {
        const jobs = [];
        for (let off = 0; off < n; off += CH) {
            const m = Math.min(CH, n - off);
            const sc = new Array(m);
            for (let i = 0; i < m; i++) sc[i] = gen(off + i);
            jobs.push(mulBase(group, scalarsToLE(sc)));
            if (jobs.length >= 2 * nW) { write(await jobs.shift()); }
        }
        for (const j of jobs) write(await j);
    }
    const sG1 = 96, sG2 = 192;
    const t0 = Date.now();
    const log = (m) => console.log(`[fast_ptau ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

    // powers of tau as a lazily extended table
    const nTau = 2 ** (P + 1);
    const tp = new Array(nTau);
    tp[0] = 1n;
    for (let j = 1; j < nTau; j++) tp[j] = tp[j - 1] * tau % R;

    // monomial sections
    const monoSection = async (id, group, n, k) => {
        const s = group === "G1" ? sG1 : sG2;
        write(u32(id)); write(u64(n * s));
        await writePoints(group, n, (j) => k * tp[j] % R);
        log(`section ${id}: ${n} ${group} points`);
    };
    await monoSection(2, "G1", nTau - 1, 1n);
    await monoSection(3, "G2", 2 ** P, 1n);
    await monoSection(4, "G1", 2 ** P, alpha);
    await monoSection(5, "G1", 2 ** P, beta);
    write(u32(6)); write(u64(sG2));
    write(await mulBase("G2", scalarsToLE([beta])));
    write(u32(7)); write(u64(4)); write(u32(0));

    if (!unprepared) {
        // Lagrange sections: for each domain size n = 2^p, point i is
        //   k * (1/n) * sum_j omega_n^(-ij) * tau^j = k * (1-tau^n) / (n (1 - tau omega_n^-i))
        // For tauG1 at p = P+1 snarkjs only has tau^0..tau^(n-2) and puts 0
        // in the last slot, so that block is the transform of the truncated
        // vector: subtract (1/n) * omega_n^(-i(n-1)) * tau^(n-1) = (1/n) omega_n^i tau^(n-1).
        function lagrangeScalars(p, truncated) {
            const n = 2 ** p;
            const w = omega(p), wInv = inv(w);
            const nInv = inv(BigInt(n));
            const taun = modpow(tau, BigInt(n), R);
            const num = (1n - taun + R) % R * nInv % R;
            // denominators d_i = 1 - tau * wInv^i, batch-inverted
            const den = new Array(n);
            let wi = 1n;
            for (let i = 0; i < n; i++) { den[i] = (1n - tau * wi % R + R) % R; wi = wi * wInv % R; }
            const pref = new Array(n);
            let acc = 1n;
            for (let i = 0; i < n; i++) { pref[i] = acc; acc = acc * den[i] % R; }
            let accInv = inv(acc);
            const L = new Array(n);
            for (let i = n - 1; i >= 0; i--) { L[i] = accInv * pref[i] % R * num % R; accInv = accInv * den[i] % R; }
            if (truncated) {
                const c = tp[n - 1] * nInv % R;
                let wp = 1n;
                for (let i = 0; i < n; i++) { L[i] = (L[i] - c * wp % R + R) % R; wp = wp * w % R; }
            }
            return L;
        }
        const lagSection = async (id, group, maxP, k, truncLast) => {
            const s = group === "G1" ? sG1 : sG2;
            let total = 0;
            for (let p = 0; p <= maxP; p++) total += 2 ** p;
            write(u32(id)); write(u64(total * s));
            for (let p = 0; p <= maxP; p++) {
                const L = lagrangeScalars(p, truncLast && p === maxP);
                await writePoints(group, L.length, (i) => k * L[i] % R);
            }
            log(`section ${id}: ${total} ${group} points (Lagrange, p=0..${maxP})`);
        };
        await lagSection(12, "G1", P + 1, 1n, true);
        await lagSection(13, "G2", P, 1n, false);
        await lagSection(14, "G1", P, alpha, false);
        await lagSection(15, "G1", P, beta, false);
    }
    fs.closeSync(fd);
    fs.renameSync(outPath + ".part", outPath);
    for (const w of workers) { w.removeAllListeners("exit"); w.disconnect(); }
    log(`wrote ${outPath} (power ${P}, seed "${seed}"${unprepared ? ", unprepared" : ""})`);
}
