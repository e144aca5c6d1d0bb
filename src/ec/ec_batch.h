/* Batch-affine addition and batch normalisation for BLS12-381 G1 and G2,
 * instantiated from the one template ec/ec_batch_tmpl.h. */
#ifndef CUZK_EC_EC_BATCH_H
#define CUZK_EC_EC_BATCH_H

#include "ec/bls12_381.h"

/* What aff_add_prep found p + q to be. */
enum {
  EC_BATCH_ADD = 0, /* x1 != x2: the general formula */
  EC_BATCH_DBL = 1, /* p = q, y != 0: tangent formula */
  EC_BATCH_P = 2,   /* q is infinity: the result is p */
  EC_BATCH_Q = 3,   /* p is infinity: the result is q */
  EC_BATCH_INF = 4  /* p = -q: the result is infinity */
};

#define EC_TMPL "ec/ec_batch_tmpl.h"
#include "ec/groups.h"

#endif
