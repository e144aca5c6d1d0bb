/* The optimal ate pairing on BLS12-381, for Groth16 verification.
 *
 *   e(P, Q) = f_{x,Q}(P)^(3 (p^12 - 1)/r),   P in G1 (over Fp), Q in G2 (over Fp2)
 *
 * with x = -0xd201000000010000 the BLS parameter.  The exponent 3 (p^12-1)/r
 * (rather than (p^12-1)/r) is the convention of snarkjs (ffjavascript) and
 * @noble/curves, found by comparing against both: their values are the cubes
 * of f^((p^12-1)/r).  It comes from the hard-part identity
 * 3 (p^4 - p^2 + 1)/r = (x-1)^2 (x+p) (x^2+p^2-1) + 3 (Hayashida-Hayasaka-
 * Teruya).  Since 3 is prime to r the result is still a non-degenerate
 * bilinear pairing, and it matches those libraries bit for bit
 * (tests/kat/test_pairing.c), which is what snarkjs's vk_alphabeta_12 needs.
 *
 * Inputs are affine; the point at infinity (x = y = 0) is accepted and its
 * pair contributes 1.  Points are assumed on their curves and in the order-r
 * subgroups: checking that is the caller's job (ec aff_in_subgroup); on
 * other inputs the result is some Fp12 value, never a crash.
 * Variable time only in which inputs are the point at infinity. */
#ifndef CUZK_PAIRING_PAIRING_H
#define CUZK_PAIRING_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "ec/bls12_381.h"
#include "pairing/fp12.h"

/* out = prod_{i<n} f_{x,q[i]}(p[i]), before the final exponentiation, with one
 * squaring chain shared by all pairs (pairs handled in groups of
 * BLS12_381_MILLER_GROUP on the stack; no allocation).  n = 0 or all pairs
 * at infinity: out = 1.  The value is defined only up to factors the final
 * exponentiation removes. */
void bls12_381_miller_loop(bls12_381_fp12 *out, const bls12_381_g1_aff *p, const bls12_381_g2_aff *q,
                           size_t n);
#define BLS12_381_MILLER_GROUP 16

/* out = f^(3 (p^12 - 1)/r). */
void bls12_381_final_exp(bls12_381_fp12 *out, const bls12_381_fp12 *f);

/* out = e(p, q). */
void bls12_381_pairing(bls12_381_fp12 *out, const bls12_381_g1_aff *p, const bls12_381_g2_aff *q);

/* prod_{i<n} e(p[i], q[i]) == 1: one shared Miller loop, one final
 * exponentiation.  The Groth16 check e(A,B) = e(alpha,beta) e(L,gamma)
 * e(C,delta) is this with A negated and n = 4. */
bool bls12_381_pairing_product_is_one(const bls12_381_g1_aff *p, const bls12_381_g2_aff *q, size_t n);

#endif
