/* BLS12-381 groups: G1 over Fp and G2 over Fp2, instantiated from the one
 * set of formulas in ec/ec_tmpl.h. */
#ifndef CUZK_EC_BLS12_381_H
#define CUZK_EC_BLS12_381_H

#include "ff/bls12_381.h"

#define EC bls12_381_g1
#define EC_F bls12_381_fp
#include "ec/ec_tmpl.h"
#undef EC
#undef EC_F

#define EC bls12_381_g2
#define EC_F bls12_381_fp2
#include "ec/ec_tmpl.h"
#undef EC
#undef EC_F

#endif
