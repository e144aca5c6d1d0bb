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

#define EC_TMPL "ec/ec_impl.h"
#include "ec/groups.h"

void bls12_381_g1_aff_mul_u2(bls12_381_g1_aff *r, const bls12_381_g1_aff *p) {
  static const bls12_381_fp beta = {BLS12_381_MONT_G1_ENDO_BETA};
  bls12_381_fp_mul(&r->x, &p->x, &beta);
  bls12_381_fp_neg(&r->y, &p->y);
}

void bls12_381_g2_aff_mul_u2(bls12_381_g2_aff *r, const bls12_381_g2_aff *p) {
  static const bls12_381_fp w = {BLS12_381_MONT_G2_PSI2_W};
  bls12_381_fp2_mul_base(&r->x, &p->x, &w);
  bls12_381_fp2_neg(&r->y, &p->y);
}

void bls12_381_g2_aff_psi(bls12_381_g2_aff *r, const bls12_381_g2_aff *p) {
  static const bls12_381_fp cx1 = {BLS12_381_MONT_G2_PSI_CX1};
  static const bls12_381_fp2 cy = {{BLS12_381_MONT_G2_PSI_CY0}, {BLS12_381_MONT_G2_PSI_CY1}};
  bls12_381_fp2 t;
  /* cx1 u (x0 - x1 u) = cx1 x1 + cx1 x0 u */
  bls12_381_fp_mul(&t.c0, &p->x.c1, &cx1);
  bls12_381_fp_mul(&t.c1, &p->x.c0, &cx1);
  r->x = t;
  bls12_381_fp2_conj(&t, &p->y);
  bls12_381_fp2_mul(&r->y, &cy, &t);
}
