#include "ff/bls12_381.h"

#define FIELD bls12_381_fp
#define FIELD_N 6
#define FIELD_C BLS12_381_FP
#include "ff/field_impl.h"
#undef FIELD
#undef FIELD_N
#undef FIELD_C

#define FIELD bls12_381_fr
#define FIELD_N 4
#define FIELD_C BLS12_381_FR
#include "ff/field_impl.h"
#undef FIELD
#undef FIELD_N
#undef FIELD_C

/* sqrt(a) = a^((p+1)/4), checked by squaring. */
bool bls12_381_fp_sqrt(bls12_381_fp *r, const bls12_381_fp *a) {
  static const limb_t e[6] = BLS12_381_FP_SQRT_EXP;
  bls12_381_fp x, x2;
  bls12_381_fp_pow(&x, a, e, 6);
  bls12_381_fp_sqr(&x2, &x);
  if (!bls12_381_fp_eq(&x2, a))
    return false;
  *r = x;
  return true;
}

/* Adj and Rodriguez-Henriquez, "Square root computation over even extension
 * fields", Algorithm 9 (q = p^2, p = 3 mod 4):
 *   a1 = a^((p-3)/4), x0 = a1*a, alpha = a1*x0 = a^((p-1)/2) (in Fp2)
 *   alpha == -1:  x = u*x0
 *   otherwise:    x = (1 + alpha)^((p-1)/2) * x0
 * then checked by squaring. */
bool bls12_381_fp2_sqrt(bls12_381_fp2 *r, const bls12_381_fp2 *a) {
  static const limb_t e1[6] = BLS12_381_FP_PM3D4;
  static const limb_t e2[6] = BLS12_381_FP_HALF;
  bls12_381_fp2 a1, x0, alpha, x, chk, minus_one;
  if (bls12_381_fp2_is_zero(a)) {
    bls12_381_fp2_set_zero(r);
    return true;
  }
  bls12_381_fp2_pow(&a1, a, e1, 6);
  bls12_381_fp2_mul(&x0, &a1, a);
  bls12_381_fp2_mul(&alpha, &a1, &x0);
  bls12_381_fp2_set_one(&minus_one);
  bls12_381_fp2_neg(&minus_one, &minus_one);
  if (bls12_381_fp2_eq(&alpha, &minus_one)) {
    /* u * (c0 + c1 u) = -c1 + c0 u */
    bls12_381_fp_neg(&x.c0, &x0.c1);
    x.c1 = x0.c0;
  } else {
    bls12_381_fp2 b;
    bls12_381_fp2_set_one(&b);
    bls12_381_fp2_add(&b, &b, &alpha);
    bls12_381_fp2_pow(&b, &b, e2, 6);
    bls12_381_fp2_mul(&x, &b, &x0);
  }
  bls12_381_fp2_sqr(&chk, &x);
  if (!bls12_381_fp2_eq(&chk, a))
    return false;
  *r = x;
  return true;
}

bool bls12_381_fp_is_lex_largest(const bls12_381_fp *y) {
  static const limb_t half[6] = BLS12_381_FP_HALF;
  limb_t c[6];
  bls12_381_fp_to_canon(c, y);
  return limbs_lt(half, c, 6);
}

bool bls12_381_fp2_is_lex_largest(const bls12_381_fp2 *y) {
  if (!bls12_381_fp_is_zero(&y->c1))
    return bls12_381_fp_is_lex_largest(&y->c1);
  return bls12_381_fp_is_lex_largest(&y->c0);
}
