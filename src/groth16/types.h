/* Groth16 objects shared by the readers, writers, prover and verifier
 * (BLS12-381).  Points are affine, Montgomery form, infinity = all zero. */
#ifndef CUZK_GROTH16_TYPES_H
#define CUZK_GROTH16_TYPES_H

#include <stddef.h>

#include "ec/bls12_381.h"

typedef struct {
  bls12_381_g1_aff a;
  bls12_381_g2_aff b;
  bls12_381_g1_aff c;
} groth16_proof;

/* A snarkjs verification key.  `ic` holds n_public + 1 points and is owned
 * by the key (groth16_vk_fini frees it).  `alphabeta` is e(alpha1, beta2) as
 * 12 Fp coefficients in snarkjs's vk_alphabeta_12 order:
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, ...
 * (Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - (1+u)), Fp2 = Fp[u]/(u^2+1)). */
typedef struct {
  size_t n_public;
  bls12_381_g1_aff alpha1;
  bls12_381_g2_aff beta2, gamma2, delta2;
  bls12_381_fp alphabeta[12];
  bls12_381_g1_aff *ic;
} groth16_vk;

void groth16_vk_fini(groth16_vk *vk);

/* out[i] := in's value i (32-byte little-endian canonical) in Montgomery
 * form, for i < n, on `threads` workers (0: par_threads(); a backend
 * passes its own count, so that workers sharing the cores do not each
 * take them all).  Returns n when every value is < r, else the least
 * index of one that is not (out is then partly written). */
size_t groth16_values_to_mont(bls12_381_fr *out, const uint8_t *in, size_t n, unsigned threads);
/* The same check without the conversion: the least index of a value >= r,
 * or n. */
size_t groth16_values_check(const uint8_t *in, size_t n, unsigned threads);
/* out's value i := in[i] as 32 canonical little-endian bytes, for i < n,
 * on `threads` workers (0: par_threads()); out may be in itself (element
 * by element). */
void groth16_values_from_mont(uint8_t *out, const bls12_381_fr *in, size_t n, unsigned threads);

#endif
