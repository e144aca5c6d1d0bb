/* BLS12-381 groups: G1 over Fp and G2 over Fp2, instantiated from the one
 * set of formulas in ec/ec_tmpl.h. */
#ifndef CUZK_EC_BLS12_381_H
#define CUZK_EC_BLS12_381_H

#include "ff/bls12_381.h"

#define EC_TMPL "ec/ec_tmpl.h"
#include "ec/groups.h"

/* Endomorphisms, on affine points of the prime-order subgroups, where they
 * act as multiplication by a power of the BLS parameter u = -0xd201000000010000
 * (r = u^4 - u^2 + 1; constants from tools/gen_consts.py).  Off the subgroup
 * they are still curve endomorphisms but act otherwise.  Infinity (zeros)
 * maps to infinity; r may alias p.
 *   g1_aff_mul_u2  [u^2]P = (beta x, -y), beta a cube root of unity in Fp: 1M
 *   g2_aff_mul_u2  [u^2]Q = psi^2(Q) = (w x, -y), w the other cube root: 2M (Fp)
 *   g2_aff_psi     [u]Q = psi(Q) = (cx conj(x), cy conj(y)), the untwisted
 *                  Frobenius (psi acts as p, and p = u mod r); cx = cx1 * u
 *                  is imaginary: 2M + 3M (Fp) */
void bls12_381_g1_aff_mul_u2(bls12_381_g1_aff *r, const bls12_381_g1_aff *p);
void bls12_381_g2_aff_mul_u2(bls12_381_g2_aff *r, const bls12_381_g2_aff *p);
void bls12_381_g2_aff_psi(bls12_381_g2_aff *r, const bls12_381_g2_aff *p);

#endif
