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

/* Points of an XYZZ task between two polls of the stop hook: XYZZ tasks
 * are the small ones (plan.c), so this is a fraction of a millisecond. */
#define MSM_POLL_XYZZ 4096

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

/* Per group (ec/groups.h): MSM the function prefix, MSM_ENDO_MAX the
 * largest plan.endo, MSM_PLAN_FOR its plan function, MSM_IMAGES its images. */
#define MSM_CAT2(a, b) a##b
#define MSM_CAT(a, b) MSM_CAT2(a, b)
#define MSM MSM_CAT(msm_, EC_NAME)
#define MSM_ENDO_MAX MSM_CAT(MSM, _endo_max)
#define MSM_PLAN_FOR MSM_CAT(msm_plan_for_, EC_NAME)
#define MSM_IMAGES MSM_CAT(MSM, _images)
static const unsigned msm_g1_endo_max = MSM_G1_ENDO_MAX, msm_g2_endo_max = MSM_G2_ENDO_MAX;
#define EC_TMPL "msm/msm_impl.h"
#include "ec/groups.h"
