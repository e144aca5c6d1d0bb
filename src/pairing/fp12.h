/* The BLS12-381 pairing tower over Fp2 = Fp[u]/(u^2 + 1):
 *
 *   Fp6  = Fp2[v]/(v^3 - xi),  xi = 1 + u      element c0 + c1 v + c2 v^2
 *   Fp12 = Fp6[w]/(w^2 - v)                     element c0 + c1 w
 *
 * the same tower as snarkjs (ffjavascript) and @noble/curves, so coefficient
 * lists compare one to one.  Equivalently Fp12 = Fp2[w]/(w^6 - xi) with
 * basis w^k: c0.c0 = w^0, c0.c1 = w^2, c0.c2 = w^4, c1.c0 = w^1,
 * c1.c1 = w^3, c1.c2 = w^5 — the view the Frobenius map and the cyclotomic
 * squaring use.
 *
 * DESIGN: values, not handles; every function takes outputs first and allows
 * any output to alias any input.  Nothing allocates.  Everything here is
 * constant time except *_pow_vartime (exponent public) and inversion of zero.
 * The tower is specific to BLS12-381 (BN254 uses xi = 9 + u); if BN254 needs
 * a pairing this becomes a template over xi like ff/fp2_tmpl.h.
 *
 * Costs below are in Fp multiplications M (a squaring counted as an M; Fp2
 * mul = 3M, Fp2 sqr = 2M). */
#ifndef CUZK_PAIRING_FP12_H
#define CUZK_PAIRING_FP12_H

#include <stdbool.h>
#include <stddef.h>

#include "ff/bls12_381.h"

typedef struct {
  bls12_381_fp2 c0, c1, c2; /* c0 + c1 v + c2 v^2 */
} bls12_381_fp6;

typedef struct {
  bls12_381_fp6 c0, c1; /* c0 + c1 w */
} bls12_381_fp12;

/* ---- Fp2 helpers the tower needs ---- */

/* r = a * xi = (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u.  2 additions. */
static inline void bls12_381_fp2_mul_by_xi(bls12_381_fp2 *r, const bls12_381_fp2 *a) {
  bls12_381_fp t;
  bls12_381_fp_sub(&t, &a->c0, &a->c1);
  bls12_381_fp_add(&r->c1, &a->c0, &a->c1);
  r->c0 = t;
}

/* ---- Fp6 ---- */

static inline void bls12_381_fp6_add(bls12_381_fp6 *r, const bls12_381_fp6 *a, const bls12_381_fp6 *b) {
  bls12_381_fp2_add(&r->c0, &a->c0, &b->c0);
  bls12_381_fp2_add(&r->c1, &a->c1, &b->c1);
  bls12_381_fp2_add(&r->c2, &a->c2, &b->c2);
}
static inline void bls12_381_fp6_sub(bls12_381_fp6 *r, const bls12_381_fp6 *a, const bls12_381_fp6 *b) {
  bls12_381_fp2_sub(&r->c0, &a->c0, &b->c0);
  bls12_381_fp2_sub(&r->c1, &a->c1, &b->c1);
  bls12_381_fp2_sub(&r->c2, &a->c2, &b->c2);
}
static inline void bls12_381_fp6_neg(bls12_381_fp6 *r, const bls12_381_fp6 *a) {
  bls12_381_fp2_neg(&r->c0, &a->c0);
  bls12_381_fp2_neg(&r->c1, &a->c1);
  bls12_381_fp2_neg(&r->c2, &a->c2);
}
static inline void bls12_381_fp6_set_zero(bls12_381_fp6 *r) { memset(r, 0, sizeof *r); }
static inline void bls12_381_fp6_set_one(bls12_381_fp6 *r) {
  memset(r, 0, sizeof *r);
  bls12_381_fp2_set_one(&r->c0);
}
static inline int bls12_381_fp6_is_zero(const bls12_381_fp6 *a) {
  return bls12_381_fp2_is_zero(&a->c0) && bls12_381_fp2_is_zero(&a->c1) &&
         bls12_381_fp2_is_zero(&a->c2);
}
static inline int bls12_381_fp6_eq(const bls12_381_fp6 *a, const bls12_381_fp6 *b) {
  return bls12_381_fp2_eq(&a->c0, &b->c0) && bls12_381_fp2_eq(&a->c1, &b->c1) &&
         bls12_381_fp2_eq(&a->c2, &b->c2);
}
/* r = a v = xi a2 + a0 v + a1 v^2 (v^3 = xi).  Additions only. */
static inline void bls12_381_fp6_mul_by_v(bls12_381_fp6 *r, const bls12_381_fp6 *a) {
  bls12_381_fp2 t;
  bls12_381_fp2_mul_by_xi(&t, &a->c2);
  r->c2 = a->c1;
  r->c1 = a->c0;
  r->c0 = t;
}

/* Karatsuba over the cubic extension: 6 Fp2 mul = 18M. */
void bls12_381_fp6_mul(bls12_381_fp6 *r, const bls12_381_fp6 *a, const bls12_381_fp6 *b);
/* Chung-Hasan SQR2: 2 Fp2 mul + 3 Fp2 sqr = 12M. */
void bls12_381_fp6_sqr(bls12_381_fp6 *r, const bls12_381_fp6 *a);
/* r = a (b0 + b1 v): the sparse product the line functions need.  5 Fp2 mul = 15M. */
void bls12_381_fp6_mul_by_01(bls12_381_fp6 *r, const bls12_381_fp6 *a, const bls12_381_fp2 *b0,
                             const bls12_381_fp2 *b1);
/* r = a b for b in Fp2.  9M. */
void bls12_381_fp6_mul_by_fp2(bls12_381_fp6 *r, const bls12_381_fp6 *a, const bls12_381_fp2 *b);
/* 1/a via the norm to Fp2; inv(0) = 0.  One Fp2 inversion + 9 Fp2 mul + 3 Fp2 sqr. */
void bls12_381_fp6_inv(bls12_381_fp6 *r, const bls12_381_fp6 *a);

/* ---- Fp12 ---- */

static inline void bls12_381_fp12_set_one(bls12_381_fp12 *r) {
  bls12_381_fp6_set_one(&r->c0);
  bls12_381_fp6_set_zero(&r->c1);
}
static inline int bls12_381_fp12_is_one(const bls12_381_fp12 *a) {
  bls12_381_fp6 one;
  bls12_381_fp6_set_one(&one);
  return bls12_381_fp6_eq(&a->c0, &one) && bls12_381_fp6_is_zero(&a->c1);
}
static inline int bls12_381_fp12_eq(const bls12_381_fp12 *a, const bls12_381_fp12 *b) {
  return bls12_381_fp6_eq(&a->c0, &b->c0) && bls12_381_fp6_eq(&a->c1, &b->c1);
}
/* r = conj(a) = a0 - a1 w = a^(p^6); the inverse on the cyclotomic subgroup. */
static inline void bls12_381_fp12_conj(bls12_381_fp12 *r, const bls12_381_fp12 *a) {
  r->c0 = a->c0;
  bls12_381_fp6_neg(&r->c1, &a->c1);
}

/* Karatsuba over the quadratic extension: 3 Fp6 mul = 54M. */
void bls12_381_fp12_mul(bls12_381_fp12 *r, const bls12_381_fp12 *a, const bls12_381_fp12 *b);
/* Complex squaring: 2 Fp6 mul = 36M. */
void bls12_381_fp12_sqr(bls12_381_fp12 *r, const bls12_381_fp12 *a);
/* Granger-Scott squaring, valid only for a in the cyclotomic subgroup
 * (a^(p^4 - p^2 + 1) = 1, e.g. after the easy part of the final
 * exponentiation): 9 Fp2 sqr = 18M.  Plain reference: bls12_381_fp12_sqr. */
void bls12_381_fp12_cyclotomic_sqr(bls12_381_fp12 *r, const bls12_381_fp12 *a);
/* r = a l for the sparse line value l = l0 + l1 w^2 + l4 w^3, i.e. the
 * element with coefficients c0.c0 = l0, c0.c1 = l1, c1.c1 = l4 and zeros
 * elsewhere (positions 0, 1, 4 of the coefficient list).  13 Fp2 mul = 39M.
 * Plain reference: bls12_381_fp12_mul. */
void bls12_381_fp12_mul_by_014(bls12_381_fp12 *r, const bls12_381_fp12 *a, const bls12_381_fp2 *l0,
                               const bls12_381_fp2 *l1, const bls12_381_fp2 *l4);
/* 1/a = (a0 - a1 w)/(a0^2 - v a1^2); inv(0) = 0. */
void bls12_381_fp12_inv(bls12_381_fp12 *r, const bls12_381_fp12 *a);
/* r = a^(p^n) for any n >= 0: w^k picks up gamma_n[k] = xi^(k (p^n-1)/6)
 * (tables for n = 1, 2, 3 in ff/consts_bls12_381.h), Fp2 coefficients are
 * conjugated for odd n.  n = 2: 10M (gamma_2 in Fp); n = 1, 3: 15M; other n
 * compose these.  Plain reference: bls12_381_fp12_pow_vartime by p^n. */
void bls12_381_fp12_frobenius(bls12_381_fp12 *r, const bls12_381_fp12 *a, unsigned n);
/* r = a^e, e little-endian limbs (public; variable time).  Square and multiply. */
void bls12_381_fp12_pow_vartime(bls12_381_fp12 *r, const bls12_381_fp12 *a, const limb_t *e,
                                size_t elimbs);

/* The 12 Fp coefficients in snarkjs's vk_alphabeta_12 order: c0.c0.c0,
 * c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, ..., c1.c2.c1
 * (Montgomery-form field elements, as everywhere in cuzk). */
void bls12_381_fp12_to_coeffs(bls12_381_fp out[12], const bls12_381_fp12 *f);
void bls12_381_fp12_from_coeffs(bls12_381_fp12 *f, const bls12_381_fp in[12]);

#endif
