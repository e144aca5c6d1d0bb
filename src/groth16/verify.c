/* Groth16 verification with one 4-pair product (one shared Miller loop and
 * one final exponentiation). */
#include "groth16/verify.h"

#include <stdlib.h>

#include "msm/msm.h"
#include "pairing/pairing.h"

static cuzk_status check_point_g1(const bls12_381_g1_aff *p, const char *name, cuzk_err *err) {
  if (!bls12_381_g1_aff_is_on_curve(p))
    return cuzk_err_set(err, CUZK_VERIFY_FAILED, "%s is not on the curve", name);
  if (!bls12_381_g1_aff_in_subgroup(p))
    return cuzk_err_set(err, CUZK_VERIFY_FAILED, "%s is not in the prime-order subgroup", name);
  return CUZK_OK;
}

static cuzk_status check_point_g2(const bls12_381_g2_aff *p, const char *name, cuzk_err *err) {
  if (!bls12_381_g2_aff_is_on_curve(p))
    return cuzk_err_set(err, CUZK_VERIFY_FAILED, "%s is not on the curve", name);
  if (!bls12_381_g2_aff_in_subgroup(p))
    return cuzk_err_set(err, CUZK_VERIFY_FAILED, "%s is not in the prime-order subgroup", name);
  return CUZK_OK;
}

cuzk_status groth16_verify(const groth16_vk *vk, const limb_t (*pub)[4], size_t n_pub,
                           const groth16_proof *proof, cuzk_err *err) {
  if (n_pub != vk->n_public)
    return cuzk_err_set(err, CUZK_FORMAT, "%zu public signals given, the verification key expects %zu",
                        n_pub, vk->n_public);
  for (size_t i = 0; i < n_pub; i++)
    if (!limbs_lt(pub[i], bls12_381_fr_modulus, 4))
      return cuzk_err_set(err, CUZK_FORMAT, "public signal %zu is not below the field modulus r", i);
  CUZK_TRY(check_point_g1(&proof->a, "pi_a", err));
  CUZK_TRY(check_point_g2(&proof->b, "pi_b", err));
  CUZK_TRY(check_point_g1(&proof->c, "pi_c", err));

  /* vk_x = IC_0 + sum pub_i IC_{i+1} */
  bls12_381_g1_jac acc;
  bls12_381_g1_jac_from_aff(&acc, &vk->ic[0]);
  if (n_pub > 0) {
    uint8_t *sc = malloc(32 * n_pub);
    if (!sc)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu public signals", n_pub);
    for (size_t i = 0; i < n_pub; i++) limbs_to_le(sc + 32 * i, pub[i], 4);
    bls12_381_g1_jac s;
    cuzk_status st = msm_g1(&s, vk->ic + 1, sc, n_pub, 1, err);
    free(sc);
    CUZK_TRY(st);
    bls12_381_g1_jac_add(&acc, &acc, &s);
  }
  bls12_381_g1_aff p[4];
  bls12_381_g2_aff q[4];
  bls12_381_g1_aff_neg(&p[0], &proof->a);
  q[0] = proof->b;
  bls12_381_g1_jac_to_aff(&p[1], &acc);
  q[1] = vk->gamma2;
  p[2] = proof->c;
  q[2] = vk->delta2;
  p[3] = vk->alpha1;
  q[3] = vk->beta2;
  if (!bls12_381_pairing_product_is_one(p, q, 4))
    return cuzk_err_set(err, CUZK_VERIFY_FAILED, "the pairing equation does not hold");
  return CUZK_OK;
}

void groth16_vk_compute_alphabeta(groth16_vk *vk) {
  bls12_381_fp12 e;
  bls12_381_pairing(&e, &vk->alpha1, &vk->beta2);
  bls12_381_fp12_to_coeffs(vk->alphabeta, &e);
}
