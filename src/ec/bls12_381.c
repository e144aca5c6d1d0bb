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

/* |u| = 0xd201000000010000 (u < 0): Hamming weight 6, so [|u|]P is 63
 * doublings and 5 additions. */
static const limb_t u_abs[1] = {0xd201000000010000ULL};

/* Bowe's test (eprint 2019/814): a point P of E(Fp) is in G1 iff
 * sigma(P) = (beta x, y) equals [-u^2]P, that is iff g1_aff_mul_u2(P) =
 * (beta x, -y) equals [u^2]P = [|u|]([|u|]P): ~128 doublings against the
 * reference's 255 doublings and ~128 additions. */
int bls12_381_g1_aff_in_subgroup(const bls12_381_g1_aff *p) {
  if (!bls12_381_g1_aff_is_on_curve(p))
    return 0;
  if (bls12_381_g1_aff_is_inf(p))
    return 1;
  bls12_381_g1_jac j, t;
  bls12_381_g1_aff e;
  bls12_381_g1_jac_from_aff(&j, p);
  bls12_381_g1_jac_mul_vartime(&t, &j, u_abs, 1);
  bls12_381_g1_jac_mul_vartime(&j, &t, u_abs, 1);
  bls12_381_g1_aff_mul_u2(&e, p);
  bls12_381_g1_jac_from_aff(&t, &e);
  return bls12_381_g1_jac_eq(&j, &t);
}

/* Scott's test ("A note on group membership tests for G1, G2 and GT on
 * BLS pairing-friendly curves", 2021): a point Q of E'(Fp2) is in G2 iff
 * psi(Q) = [u]Q = -[|u|]Q: 63 doublings and 5 additions in Fp2 against
 * the reference's 255 and ~128. */
int bls12_381_g2_aff_in_subgroup(const bls12_381_g2_aff *p) {
  if (!bls12_381_g2_aff_is_on_curve(p))
    return 0;
  if (bls12_381_g2_aff_is_inf(p))
    return 1;
  bls12_381_g2_jac j, t;
  bls12_381_g2_aff e;
  bls12_381_g2_jac_from_aff(&j, p);
  bls12_381_g2_jac_mul_vartime(&t, &j, u_abs, 1);
  bls12_381_g2_jac_neg(&t, &t);
  bls12_381_g2_aff_psi(&e, p);
  bls12_381_g2_jac_from_aff(&j, &e);
  return bls12_381_g2_jac_eq(&t, &j);
}
