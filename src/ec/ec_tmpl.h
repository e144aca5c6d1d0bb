/* Short Weierstrass points y^2 = x^3 + b (a = 0), formulas written once.
 *
 * Include with EC (prefix, e.g. bls12_381_g1) and EC_F (its coordinate field:
 * bls12_381_fp for G1, bls12_381_fp2 for G2).  Three forms:
 *   _aff   (x, y); the point at infinity is x = y = 0, which is on neither
 *          curve (b != 0) and is also the zkey file's convention;
 *   _jac   Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; infinity has Z = 0;
 *   _xyzz  (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity has
 *          ZZ = 0.  Cheapest for accumulating affine points (buckets).
 * Costs are in field multiplications M and squarings S of EC_F. */

#define E_CAT2(a, b) a##b
#define E_CAT(a, b) E_CAT2(a, b)
#define E_FN(name) E_CAT(EC, E_CAT(_, name))
#define E_T(name) E_CAT(EC, E_CAT(_, name))
#define F_FN(name) E_CAT(EC_F, E_CAT(_, name))

typedef struct {
  EC_F x, y;
} E_T(aff);
typedef struct {
  EC_F x, y, z;
} E_T(jac);
typedef struct {
  EC_F x, y, zz, zzz;
} E_T(xyzz);

extern const EC_F E_FN(b);             /* curve constant b (Montgomery form) */
extern const E_T(aff) E_FN(generator); /* the standard generator */

static inline int E_FN(aff_is_inf)(const E_T(aff) * p) {
  return F_FN(is_zero)(&p->x) && F_FN(is_zero)(&p->y);
}
static inline void E_FN(aff_set_inf)(E_T(aff) * p) { memset(p, 0, sizeof *p); }
static inline void E_FN(aff_neg)(E_T(aff) * r, const E_T(aff) * p) {
  r->x = p->x;
  F_FN(neg)(&r->y, &p->y);
}
static inline int E_FN(aff_eq)(const E_T(aff) * p, const E_T(aff) * q) {
  return F_FN(eq)(&p->x, &q->x) && F_FN(eq)(&p->y, &q->y);
}
static inline int E_FN(jac_is_inf)(const E_T(jac) * p) { return F_FN(is_zero)(&p->z); }
static inline void E_FN(jac_set_inf)(E_T(jac) * p) { memset(p, 0, sizeof *p); F_FN(set_one)(&p->x); F_FN(set_one)(&p->y); }
static inline void E_FN(jac_neg)(E_T(jac) * r, const E_T(jac) * p) {
  *r = *p;
  F_FN(neg)(&r->y, &p->y);
}
static inline void E_FN(jac_from_aff)(E_T(jac) * r, const E_T(aff) * p) {
  if (E_FN(aff_is_inf)(p)) {
    E_FN(jac_set_inf)(r);
    return;
  }
  r->x = p->x;
  r->y = p->y;
  F_FN(set_one)(&r->z);
}
static inline int E_FN(xyzz_is_inf)(const E_T(xyzz) * p) { return F_FN(is_zero)(&p->zz); }
static inline void E_FN(xyzz_set_inf)(E_T(xyzz) * p) { memset(p, 0, sizeof *p); }
static inline void E_FN(xyzz_from_aff)(E_T(xyzz) * r, const E_T(aff) * p) {
  if (E_FN(aff_is_inf)(p)) {
    E_FN(xyzz_set_inf)(r);
    return;
  }
  r->x = p->x;
  r->y = p->y;
  F_FN(set_one)(&r->zz);
  F_FN(set_one)(&r->zzz);
}

/* y^2 == x^3 + b; the point at infinity counts as on the curve. */
int E_FN(aff_is_on_curve)(const E_T(aff) * p);
/* On the curve and in the prime-order subgroup.  aff_in_subgroup is the
 * curve's fast test (an endomorphism against a short multiple, defined in
 * the curve's file: ec/bls12_381.c); aff_in_subgroup_ref its reference,
 * [r]P = O by double-and-add.  Both vartime. */
int E_FN(aff_in_subgroup)(const E_T(aff) * p);
int E_FN(aff_in_subgroup_ref)(const E_T(aff) * p);

/* dbl-2009-l: 2M + 5S. */
void E_FN(jac_dbl)(E_T(jac) * r, const E_T(jac) * p);
/* add-2007-bl: 11M + 5S; handles P = Q, P = -Q and infinity. */
void E_FN(jac_add)(E_T(jac) * r, const E_T(jac) * p, const E_T(jac) * q);
/* madd-2007-bl: 7M + 4S; handles all special cases. */
void E_FN(jac_add_aff)(E_T(jac) * r, const E_T(jac) * p, const E_T(aff) * q);
/* One inversion + 4M. */
void E_FN(jac_to_aff)(E_T(aff) * r, const E_T(jac) * p);
/* Do p and q represent the same point? */
int E_FN(jac_eq)(const E_T(jac) * p, const E_T(jac) * q);
/* r = [k]p, k canonical little-endian limbs of klimbs limbs.  Double-and-add,
 * variable time in k: for public scalars only (subgroup checks, tests); use
 * jac_mul_ct for secrets. */
void E_FN(jac_mul_vartime)(E_T(jac) * r, const E_T(jac) * p, const limb_t *k, size_t klimbs);
/* r = [k]p for a secret 256-bit k (4 little-endian limbs, any value; p any
 * point of the prime-order subgroup, infinity included).  Constant time in k:
 * fixed 4-bit windows over all 64 nibbles, the table entry picked by masks
 * (every entry read), and the complete projective formulas of Renes,
 * Costello and Batina (2016, algorithms 7 and 9 for a = 0), which have no
 * exceptional cases on a group without 2-torsion, so no branch depends on
 * k (only on whether p is infinity).  The field operations are branch-free
 * in the x86-64 asm (cmov).  About
 * 64 x (4 doublings + 1 addition) = ~3000 M. */
void E_FN(jac_mul_ct)(E_T(jac) * r, const E_T(jac) * p, const limb_t k[4]);

/* madd-2008-s: 8M + 2S.  r may alias p. */
void E_FN(xyzz_add_aff)(E_T(xyzz) * r, const E_T(xyzz) * p, const E_T(aff) * q);
/* add-2008-s: 12M + 2S. */
void E_FN(xyzz_add)(E_T(xyzz) * r, const E_T(xyzz) * p, const E_T(xyzz) * q);
/* dbl-2008-s-1: 6M + 3S. */
void E_FN(xyzz_dbl)(E_T(xyzz) * r, const E_T(xyzz) * p);
void E_FN(xyzz_to_jac)(E_T(jac) * r, const E_T(xyzz) * p);
void E_FN(xyzz_to_aff)(E_T(aff) * r, const E_T(xyzz) * p);

#undef E_CAT2
#undef E_CAT
#undef E_FN
#undef E_T
#undef F_FN
