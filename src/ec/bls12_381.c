#include "ec/bls12_381.h"

#define EC_ORDER bls12_381_fr_modulus
#define EC_ORDER_N 4

const bls12_381_fp bls12_381_g1_b = {BLS12_381_MONT_B1};
const bls12_381_g1_aff bls12_381_g1_generator = {{BLS12_381_MONT_G1_X}, {BLS12_381_MONT_G1_Y}};
/* b' = 4(1 + u) */
const bls12_381_fp2 bls12_381_g2_b = {{BLS12_381_MONT_B1}, {BLS12_381_MONT_B1}};
const bls12_381_g2_aff bls12_381_g2_generator = {
    {{BLS12_381_MONT_G2_X0}, {BLS12_381_MONT_G2_X1}},
    {{BLS12_381_MONT_G2_Y0}, {BLS12_381_MONT_G2_Y1}}};

#define EC bls12_381_g1
#define EC_F bls12_381_fp
#include "ec/ec_impl.h"
#undef EC
#undef EC_F

#define EC bls12_381_g2
#define EC_F bls12_381_fp2
#include "ec/ec_impl.h"
#undef EC
#undef EC_F
