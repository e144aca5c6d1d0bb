/* CPU Pippenger MSM for BLS12-381 G1 and G2: msm_impl.h instantiated twice,
 * each with its group's endomorphism images (msm.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "ec/ec_batch.h"
#include "msm/msm_internal.h"

/* Points ahead to prefetch when scattering points into the work array
 * (measured +7 % on 2^19 G1 points, c = 16, one thread). */
#define MSM_PREFETCH 8

/* img[0] = [u^2]P (endo = 2). */
static void msm_g1_images(bls12_381_g1_aff *img, const bls12_381_g1_aff *p, unsigned endo) {
  (void)endo;
  bls12_381_g1_aff_mul_u2(&img[0], p);
}

/* img[j - 1] = [u^(4j/K)]Q, j = 1 .. K - 1: [u^2]Q = psi^2(Q) for K = 2;
 * psi(Q), psi^2(Q), psi^3(Q) = psi(psi^2(Q)) for K = 4 (2 + 5 + 5 M in Fp). */
static void msm_g2_images(bls12_381_g2_aff *img, const bls12_381_g2_aff *p, unsigned endo) {
  if (endo == 2) {
    bls12_381_g2_aff_mul_u2(&img[0], p);
    return;
  }
  bls12_381_g2_aff_psi(&img[0], p);
  bls12_381_g2_aff_mul_u2(&img[1], p);
  bls12_381_g2_aff_psi(&img[2], &img[1]);
}

#define EC bls12_381_g1
#define EC_F bls12_381_fp
#define MSM msm_g1
#define MSM_ENDO_MAX MSM_G1_ENDO_MAX
#define MSM_PLAN_FOR msm_plan_for_g1
#define MSM_IMAGES msm_g1_images
#include "msm/msm_impl.h"
#undef EC
#undef EC_F
#undef MSM
#undef MSM_ENDO_MAX
#undef MSM_PLAN_FOR
#undef MSM_IMAGES

#define EC bls12_381_g2
#define EC_F bls12_381_fp2
#define MSM msm_g2
#define MSM_ENDO_MAX MSM_G2_ENDO_MAX
#define MSM_PLAN_FOR msm_plan_for_g2
#define MSM_IMAGES msm_g2_images
#include "msm/msm_impl.h"
#undef EC
#undef EC_F
#undef MSM
#undef MSM_ENDO_MAX
#undef MSM_PLAN_FOR
#undef MSM_IMAGES
