/* Groth16 verification (snarkjs semantics, BLS12-381). */
#ifndef CUZK_GROTH16_VERIFY_H
#define CUZK_GROTH16_VERIFY_H

#include "base/err.h"
#include "groth16/types.h"

/* Checks e(-A, B) e(IC_0 + sum_i pub_i IC_{i+1}, gamma) e(C, delta) e(alpha, beta) = 1
 * after checking that A, B, C are on their curves and in the prime-order
 * subgroups.  pub: n_pub canonical little-endian 4-limb integers, each < r.
 * Returns CUZK_OK for a valid proof, CUZK_VERIFY_FAILED (with the reason in
 * err) for an invalid one, CUZK_FORMAT when n_pub != vk->n_public or a
 * public value is >= r. */
cuzk_status groth16_verify(const groth16_vk *vk, const limb_t (*pub)[4], size_t n_pub,
                           const groth16_proof *proof, cuzk_err *err);

/* vk->alphabeta := e(alpha1, beta2) in snarkjs's coefficient order. */
void groth16_vk_compute_alphabeta(groth16_vk *vk);

#endif
