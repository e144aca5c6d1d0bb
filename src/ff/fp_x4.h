/* Four independent 6-limb Montgomery residues at once, in AVX2 doubles: an
 * experiment in using Zen 1's two 128-bit FMA pipes for the MSM's base
 * field, next to the scalar mulx/adx multiplication of mont_x86.c.
 *
 * Representation.  An fp_x4 holds four elements, lane j in l[k][j], each
 * as 8 limbs of radix 2^48 held in doubles:
 *     x_j = sum_k l[k][j] 2^(48 k),
 * every limb an integer, possibly negative, |l| < 2^49 ("loose").  The
 * value is a Montgomery residue with R = 2^384 = 2^(8*48), the same R as
 * the 6x64-bit form, so converting is re-slicing bits: no multiplication.
 * Values are not reduced: x_j is any integer congruent to the residue,
 * and each operation states the bound it needs and the one it returns, in
 * units of p.  The bounds below are for p < R/8 (BLS12-381: p/R = 0.1016).
 *
 * Why 48-bit limbs in doubles.  A double holds integers below 2^53, and
 * an FMA computes a*b + c with one rounding, so two FMAs split a product
 * of two limbs (|a b| < 2^98) exactly into a high part H, a multiple of
 * 2^48, and a low part a b - H (fp_x4.c has the constants).  48 bits
 * leave a bit of headroom below 2^49 for add/sub without carries, and 8
 * of them make exactly 384 bits (52-bit limbs would not).  The integer
 * alternative, 32x32-bit VPMULUDQ, runs on one pipe of Zen 1 at half the
 * rate of the FMAs and needs 14 limbs of 28 bits.
 *
 * Contract of the fast routines and their references (the *_ref, one lane
 * at a time through mont384_mul, defined in every build and what the
 * tests compare against): outputs may alias inputs; `m` from
 * fp_x4_mod_init.  Without AVX2 and FMA (FP_X4_AVX2 undefined) the fast
 * names are the references: the tree builds everywhere, only slower. */
#ifndef CUZK_FF_FP_X4_H
#define CUZK_FF_FP_X4_H

#include "base/bytes.h"

#if defined(__AVX2__) && defined(__FMA__)
#define FP_X4_AVX2 1
#endif

/* Four elements, limb-major: l[k][j] is limb k of lane j (32-byte
 * aligned, one AVX2 register per limb). */
typedef struct {
  _Alignas(32) double l[8][4];
} fp_x4;

/* The modulus and its derived constants, broadcast to four lanes. */
typedef struct {
  _Alignas(32) double p[8][4];    /* p in radix 2^48 */
  _Alignas(32) double n48[4];     /* -p^-1 mod 2^48 */
  _Alignas(32) double rp[4];      /* 2^336 / p, for fp_x4_reduce's quotient */
  _Alignas(32) uint64_t mul_init[16][4], sqr_init[16][4]; /* column start values */
  limb_t p64[6], n0;
  double pd;                      /* p as a double */
} fp_x4_mod;

/* m = the constants for the 6-limb modulus p (p odd, p < 2^381 so that the
 * bounds hold) with n0 = -p^-1 mod 2^64. */
void fp_x4_mod_init(fp_x4_mod *m, const limb_t p[6], limb_t n0);

/* Whether the vector routines are the AVX2 ones (1) or the references. */
int fp_x4_accelerated(void);

/* r = the four 6-limb values a[0..3] (any values below 2^384; canonical
 * residues < p in practice), limbs in [0, 2^48). */
void fp_x4_from_mont(fp_x4 *r, const limb_t *const a[4]);
/* r[j] = lane j as a canonical residue (< p, 6 limbs), from any fp_x4
 * with |x_j| < 2^390. */
void fp_x4_to_mont(limb_t *const r[4], const fp_x4 *a, const fp_x4_mod *m);
/* One lane: r = lane j, canonical. */
void fp_x4_lane_to_mont(limb_t r[6], const fp_x4 *a, unsigned j, const fp_x4_mod *m);
/* Lane j of r = the 6-limb value a (as fp_x4_from_mont). */
void fp_x4_lane_from_mont(fp_x4 *r, unsigned j, const limb_t a[6]);

/* r = a*b / R mod p lane by lane (the Montgomery product of the residues;
 * with canonical inputs and outputs it is mont384_mul exactly).
 * Needs: loose limbs, |a| |b| < 2^766 (so that the output's top limb stays
 * loose).  Gives: limbs 0..6 in [0, 2^48), top limb signed,
 *     |r| < |a| |b| / 2^384 + p/2      (e.g. |a|, |b| < 2p: |r| < 0.91 p).
 * 128 limb products (8x8 for a*b, 8x8 for the reduction), each 2 FMA + 1
 * FP subtraction + 2 integer additions, on four lanes at once. */
void fp_x4_mul(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, const fp_x4_mod *m);
void fp_x4_mul_ref(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, const fp_x4_mod *m);
/* r = a^2 / R mod p, same bounds as fp_x4_mul(r, a, a); 36 + 64 products. */
void fp_x4_sqr(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m);
void fp_x4_sqr_ref(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m);
/* Two independent products in one pass (interleaved, for the latency of
 * the reduction chain): r0 = a0 b0 / R, r1 = a1 b1 / R; as fp_x4_mul. */
void fp_x4_mul2(fp_x4 *r0, const fp_x4 *a0, const fp_x4 *b0, fp_x4 *r1, const fp_x4 *a1,
                const fp_x4 *b1, const fp_x4_mod *m);

/* r = a b / R (four lanes, as fp_x4_mul) and, for i < k, rs[i] = as[i] bs[i]
 * / R (6 limbs, canonical, exactly mont384_mul; rs[i] may alias as[i] or
 * bs[i] only), the k scalar products interleaved with the vector ones in
 * one instruction stream so that the integer multiplier and the FP pipes
 * work at once.  k = 6 and 8 are interleaved (when fp_x4_hyb_native()
 * says so: optimised, non-sanitizer x86-64 builds); other k, or other
 * builds, run the products one after another.  Measured on the shared
 * Zen 1 VM (bench_fp_x4.c): from 1.25x mont384_mul's throughput per
 * product in quiet spells down to 0.95x typical: it needs the core's
 * idle units, which the VM's neighbours take. */
void fp_x4_mul_hyb(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, int k, limb_t *const rs[],
                   const limb_t *const as[], const limb_t *const bs[], const fp_x4_mod *m);
int fp_x4_hyb_native(void);

/* r = a + b and r = a - b limb by limb, no carries and no reduction: the
 * caller keeps the limbs loose (|l| < 2^49; e.g. two operands with limbs
 * in [0, 2^48) or |l| <= 2^47 + 2^5) and tracks the value's bound. */
void fp_x4_add(fp_x4 *r, const fp_x4 *a, const fp_x4 *b);
void fp_x4_sub(fp_x4 *r, const fp_x4 *a, const fp_x4 *b);

/* r = a - k p for the k nearest a/p (estimated from the top limb), then one
 * parallel carry step: from limbs |l| < 2^51 and |a| < 8p, gives limbs
 * |l| <= 2^47 + 2^5 and |r| < 0.51 p.  ~45 vector operations, about a
 * twentieth of a multiplication: for the results of add/sub that are
 * stored or fed to more add/sub. */
void fp_x4_reduce(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m);

#endif
