/* Optimal ate pairing on BLS12-381: Miller loop and final exponentiation.
 *
 * DESIGN
 * - G2 is the sextic M-twist E': y^2 = x^3 + b', b' = 4 xi, xi = 1 + u.  The
 *   untwisting map E' -> E(Fp12) is (x, y) -> (x / w^2, y / w^3): indeed
 *   (y/w^3)^2 = (x^3 + 4 xi)/xi = (x/w^2)^3 + 4 since w^6 = xi.
 * - The line through points of E' with slope lambda' (on E', affine), mapped
 *   to E, has slope lambda' / w.  Evaluated at P = (xP, yP) in E(Fp) and
 *   multiplied by w^3, the line through T = (xT, yT) is
 *       l = (lambda' xT - yT) - lambda' xP w^2 + yP w^3,
 *   sparse in the basis {1, w^2, w^3} = coefficients c0.c0, c0.c1, c1.c1
 *   (bls12_381_fp12_mul_by_014).  Factors in Fp2 (clearing denominators) and
 *   the power of w are harmless: the final exponentiation maps them to 1
 *   (Fp2* and Fp6* elements have order dividing p^6 - 1; w^(p^6-1) = -1 and
 *   (p^6+1)/r is even).
 * - T runs in homogeneous projective coordinates (X : Y : Z), x = X/Z,
 *   y = Y/Z, so the loop has no inversions.
 * - The loop scans |x| = 0xd201000000010000 from bit 62 down (63 doublings,
 *   5 additions: |x| has 6 bits set); x < 0 is handled by conjugating the
 *   result (f_{-k} = 1/(f_k v_k), the vertical v_k dies in the final
 *   exponentiation, and 1/f = conj f once f is unitary).  Neither T = +-Q nor
 *   T = O occurs for Q of order r, since |x| < r.
 * - Memory: the per-pair state lives on the stack in groups of
 *   BLS12_381_MILLER_GROUP; no allocation.
 * Costs in Fp multiplications M (squarings counted as M); Fp2 mul 3M, sqr 2M. */
#include "pairing/pairing.h"

typedef bls12_381_fp fp;
typedef bls12_381_fp2 fp2;
typedef bls12_381_fp12 fp12;

typedef struct {
  fp2 x, y, z; /* homogeneous: (x/z, y/z); never infinity inside the loop */
} g2_proj;

typedef struct {
  g2_proj t;            /* running multiple [k]Q */
  bls12_381_g2_aff q;   /* Q, for the addition steps */
  fp nx3p;              /* -3 xP */
  fp nxp;               /* -xP */
  fp yp;                /* yP */
} miller_pair;

/* r = a/2 in Fp: (a + (a odd ? p : 0)) >> 1.  a + p < 2^382 fits in 6 limbs,
 * and halving commutes with the Montgomery factor. */
static void fp_half(fp *r, const fp *a) {
  limb_t mask = (limb_t)0 - (a->l[0] & 1), t[6];
  unsigned __int128 c = 0;
  for (int i = 0; i < 6; i++) {
    c += (unsigned __int128)a->l[i] + (bls12_381_fp_modulus[i] & mask);
    t[i] = (limb_t)c;
    c >>= 64;
  }
  for (int i = 0; i < 5; i++) r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
  r->l[5] = t[5] >> 1;
}

static void fp2_half(fp2 *r, const fp2 *a) {
  fp_half(&r->c0, &a->c0);
  fp_half(&r->c1, &a->c1);
}

/* Doubling step: T <- 2T and the tangent line at T, evaluated at P.
 * With lambda' = 3x^2/(2y), x = X/Z, y = Y/Z, the line above times 2YZ
 * (then simplified with Y^2 Z = X^3 + b' Z^3) is
 *     l = (Y^2 - 3b' Z^2) - 3 X^2 xP w^2 + 2 Y Z yP w^3.
 * Doubling (Costello-Lange-Naehrig, a = 0), with B = Y^2, C = Z^2,
 * E = 3b' C = 12 xi C, H = (Y + Z)^2 - B - C = 2YZ:
 *     X3 = (XY/2)(B - 3E)
 *     Y3 = ((B + 3E)/2)^2 - 3E^2
 *     Z3 = B H
 * (X3/Z3 = X (Y^2 - 9b'Z^2)/(4 Y^2 Z) = lambda'^2 - 2x using x^3 = y^2 - b'.)
 * 3 Fp2 mul + 6 Fp2 sqr + 4M for the line = 25M. */
static void dbl_step(fp2 *l0, fp2 *l1, fp2 *l4, miller_pair *s) {
  g2_proj *t = &s->t;
  fp2 a, b, c, e, e3, h, x2, f;
  bls12_381_fp2_mul(&a, &t->x, &t->y);
  fp2_half(&a, &a);                     /* A = XY/2 */
  bls12_381_fp2_sqr(&b, &t->y);         /* B = Y^2 */
  bls12_381_fp2_sqr(&c, &t->z);         /* C = Z^2 */
  bls12_381_fp2_mul_by_xi(&e, &c);      /* xi C */
  bls12_381_fp2_dbl(&e, &e);            /* 2 xi C */
  bls12_381_fp2_dbl(&e, &e);            /* 4 xi C = b' C */
  bls12_381_fp2_dbl(&e3, &e);           /* 2 b' C */
  bls12_381_fp2_add(&e, &e, &e3);       /* E = 3 b' C */
  bls12_381_fp2_add(&h, &t->y, &t->z);
  bls12_381_fp2_sqr(&h, &h);
  bls12_381_fp2_sub(&h, &h, &b);
  bls12_381_fp2_sub(&h, &h, &c);        /* H = 2YZ */
  bls12_381_fp2_sqr(&x2, &t->x);        /* X^2 */

  bls12_381_fp2_sub(l0, &b, &e);        /* Y^2 - 3b'Z^2 */
  bls12_381_fp2_mul_base(l1, &x2, &s->nx3p); /* -3 X^2 xP */
  bls12_381_fp2_mul_base(l4, &h, &s->yp);    /* 2YZ yP */

  bls12_381_fp2_dbl(&e3, &e);
  bls12_381_fp2_add(&e3, &e3, &e);      /* 3E */
  bls12_381_fp2_sub(&f, &b, &e3);
  bls12_381_fp2_mul(&t->x, &a, &f);     /* X3 = A (B - 3E) */
  bls12_381_fp2_add(&f, &b, &e3);
  fp2_half(&f, &f);                     /* (B + 3E)/2 */
  bls12_381_fp2_sqr(&f, &f);
  bls12_381_fp2_sqr(&e3, &e);           /* E^2 */
  bls12_381_fp2_sub(&f, &f, &e3);
  bls12_381_fp2_sub(&f, &f, &e3);
  bls12_381_fp2_sub(&t->y, &f, &e3);    /* Y3 = ((B + 3E)/2)^2 - 3E^2 */
  bls12_381_fp2_mul(&t->z, &b, &h);     /* Z3 = B H */
}

/* Addition step: T <- T + Q (Q affine) and the line through T and Q at P.
 * With theta = yQ Z - Y, delta = xQ Z - X (lambda' = theta/delta), the
 * line above through Q, times delta, is
 *     l = (theta xQ - delta yQ) - theta xP w^2 + delta yP w^3.
 * Mixed homogeneous addition:
 *     A  = theta^2 Z - delta^3 - 2 delta^2 X
 *     X3 = delta A
 *     Y3 = theta (delta^2 X - A) - delta^3 Y
 *     Z3 = delta^3 Z
 * 11 Fp2 mul + 2 Fp2 sqr + 4M for the line = 41M. */
static void add_step(fp2 *l0, fp2 *l1, fp2 *l4, miller_pair *s) {
  g2_proj *t = &s->t;
  const bls12_381_g2_aff *q = &s->q;
  fp2 th, de, tt, dd, ddd, ddx, a, u;
  bls12_381_fp2_mul(&th, &q->y, &t->z);
  bls12_381_fp2_sub(&th, &th, &t->y);   /* theta */
  bls12_381_fp2_mul(&de, &q->x, &t->z);
  bls12_381_fp2_sub(&de, &de, &t->x);   /* delta */
  bls12_381_fp2_sqr(&tt, &th);
  bls12_381_fp2_sqr(&dd, &de);
  bls12_381_fp2_mul(&ddd, &dd, &de);    /* delta^3 */
  bls12_381_fp2_mul(&ddx, &dd, &t->x);  /* delta^2 X */
  bls12_381_fp2_mul(&a, &tt, &t->z);
  bls12_381_fp2_sub(&a, &a, &ddd);
  bls12_381_fp2_sub(&a, &a, &ddx);
  bls12_381_fp2_sub(&a, &a, &ddx);      /* A */

  bls12_381_fp2_mul(&t->x, &de, &a);    /* X3 */
  bls12_381_fp2_sub(&u, &ddx, &a);
  bls12_381_fp2_mul(&u, &th, &u);
  bls12_381_fp2_mul(&a, &ddd, &t->y);
  bls12_381_fp2_sub(&t->y, &u, &a);     /* Y3 */
  bls12_381_fp2_mul(&t->z, &ddd, &t->z); /* Z3 */

  bls12_381_fp2_mul(l0, &th, &q->x);
  bls12_381_fp2_mul(&u, &de, &q->y);
  bls12_381_fp2_sub(l0, l0, &u);        /* theta xQ - delta yQ */
  bls12_381_fp2_mul_base(l1, &th, &s->nxp); /* -theta xP */
  bls12_381_fp2_mul_base(l4, &de, &s->yp);  /* delta yP */
}

/* f = prod_j f_{|x|, Q_j}(P_j) for m pairs, one squaring chain.
 * Per bit: 1 Fp12 sqr (36M) + m (dbl 25M + line 39M); per set bit
 * m (add 41M + line 39M).  One pair: 62*36 + 63*64 + 5*80 ~ 6700M; each
 * further pair ~ 4400M. */
static void miller_group(fp12 *f, miller_pair *s, size_t m) {
  fp2 l0, l1, l4;
  bls12_381_fp12_set_one(f);
  for (int i = 62; i >= 0; i--) {
    if (i != 62) /* f = 1 on the first bit */
      bls12_381_fp12_sqr(f, f);
    for (size_t j = 0; j < m; j++) {
      dbl_step(&l0, &l1, &l4, &s[j]);
      bls12_381_fp12_mul_by_014(f, f, &l0, &l1, &l4);
    }
    if ((BLS12_381_X >> i) & 1)
      for (size_t j = 0; j < m; j++) {
        add_step(&l0, &l1, &l4, &s[j]);
        bls12_381_fp12_mul_by_014(f, f, &l0, &l1, &l4);
      }
  }
}

void bls12_381_miller_loop(fp12 *out, const bls12_381_g1_aff *p, const bls12_381_g2_aff *q, size_t n) {
  miller_pair s[BLS12_381_MILLER_GROUP];
  fp12 acc, f;
  bls12_381_fp12_set_one(&acc);
  size_t i = 0;
  int first = 1;
  while (i < n) {
    size_t m = 0;
    for (; i < n && m < BLS12_381_MILLER_GROUP; i++) {
      if (bls12_381_g1_aff_is_inf(&p[i]) || bls12_381_g2_aff_is_inf(&q[i]))
        continue; /* e(O, Q) = e(P, O) = 1 */
      miller_pair *sp = &s[m++];
      sp->q = q[i];
      sp->t.x = q[i].x;
      sp->t.y = q[i].y;
      bls12_381_fp2_set_one(&sp->t.z);
      bls12_381_fp_neg(&sp->nxp, &p[i].x);
      bls12_381_fp_dbl(&sp->nx3p, &sp->nxp);
      bls12_381_fp_add(&sp->nx3p, &sp->nx3p, &sp->nxp);
      sp->yp = p[i].y;
    }
    if (m == 0)
      break;
    miller_group(&f, s, m);
    if (first)
      acc = f, first = 0;
    else
      bls12_381_fp12_mul(&acc, &acc, &f);
  }
  bls12_381_fp12_conj(out, &acc); /* x < 0 */
}

/* r = a^x for a in the cyclotomic subgroup, x = -|x|: 63 cyclotomic
 * squarings + 5 mul, then conj (the inverse there).  63*18 + 5*54 = 1404M. */
static void cyc_exp_x(fp12 *r, const fp12 *a) {
  fp12 acc = *a;
  for (int i = 62; i >= 0; i--) {
    bls12_381_fp12_cyclotomic_sqr(&acc, &acc);
    if ((BLS12_381_X >> i) & 1)
      bls12_381_fp12_mul(&acc, &acc, a);
  }
  bls12_381_fp12_conj(r, &acc);
}

/* f^(3 (p^12-1)/r) = f^((p^6-1)(p^2+1) * 3 (p^4-p^2+1)/r).
 *
 * Easy part: m = f^((p^6-1)(p^2+1)) = (conj(f)/f)^(p^2+1).  After it m is
 * in the cyclotomic subgroup (order p^4-p^2+1): conj is the inverse there and
 * cyclotomic squaring applies.
 *
 * Hard part, from 3 (p^4-p^2+1)/r = (x-1)^2 (x+p)(x^2+p^2-1) + 3 expanded:
 *   (x-1)^2 [ (x^3 - x) + (x^2 - 1) p + x p^2 + p^3 ] + 3
 * so with a = m^((x-1)^2), b = a^x, d = a^(x^2-1), e = a^(x^3-x):
 *   m^(3h) = e * d^p * b^(p^2) * a^(p^3) * m^3.
 * 5 exponentiations by x (~7000M) + 9 mul + 3 Frobenius; with the easy part
 * (one Fp12 inversion, 2 mul) about 7700M + one Fp inversion. */
void bls12_381_final_exp(fp12 *out, const fp12 *f) {
  fp12 m, t, a, b, d, e;
  /* easy part */
  bls12_381_fp12_inv(&t, f);
  bls12_381_fp12_conj(&m, f);
  bls12_381_fp12_mul(&m, &m, &t);      /* f^(p^6 - 1) */
  bls12_381_fp12_frobenius(&t, &m, 2);
  bls12_381_fp12_mul(&m, &t, &m);      /* ^(p^2 + 1) */

  /* hard part */
  cyc_exp_x(&t, &m);
  bls12_381_fp12_conj(&a, &m);
  bls12_381_fp12_mul(&t, &t, &a);      /* m^(x-1) */
  cyc_exp_x(&a, &t);
  bls12_381_fp12_conj(&t, &t);
  bls12_381_fp12_mul(&a, &a, &t);      /* a = m^((x-1)^2) */
  cyc_exp_x(&b, &a);                   /* b = a^x */
  cyc_exp_x(&d, &b);
  bls12_381_fp12_conj(&t, &a);
  bls12_381_fp12_mul(&d, &d, &t);      /* d = a^(x^2 - 1) */
  cyc_exp_x(&e, &d);                   /* e = a^(x^3 - x) */

  bls12_381_fp12_frobenius(&t, &d, 1);
  bls12_381_fp12_mul(&e, &e, &t);      /* * d^p */
  bls12_381_fp12_frobenius(&t, &b, 2);
  bls12_381_fp12_mul(&e, &e, &t);      /* * b^(p^2) */
  bls12_381_fp12_frobenius(&t, &a, 3);
  bls12_381_fp12_mul(&e, &e, &t);      /* * a^(p^3) */
  bls12_381_fp12_cyclotomic_sqr(&t, &m);
  bls12_381_fp12_mul(&t, &t, &m);      /* m^3 */
  bls12_381_fp12_mul(out, &e, &t);
}

void bls12_381_pairing(fp12 *out, const bls12_381_g1_aff *p, const bls12_381_g2_aff *q) {
  fp12 f;
  bls12_381_miller_loop(&f, p, q, 1);
  bls12_381_final_exp(out, &f);
}

bool bls12_381_pairing_product_is_one(const bls12_381_g1_aff *p, const bls12_381_g2_aff *q, size_t n) {
  fp12 f;
  bls12_381_miller_loop(&f, p, q, n);
  bls12_381_final_exp(&f, &f);
  return bls12_381_fp12_is_one(&f);
}
