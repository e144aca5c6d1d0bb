/* Fp6 and Fp12 arithmetic for the BLS12-381 pairing (tower in fp12.h).
 *
 * DESIGN: every routine reads all of its inputs into locals (or finishes
 * reading an input coefficient before writing the matching output) so that
 * outputs may alias inputs.  Costs count Fp multiplications M (squarings
 * included); additions are not counted. */
#include "pairing/fp12.h"

typedef bls12_381_fp fp;
typedef bls12_381_fp2 fp2;
typedef bls12_381_fp6 fp6;
typedef bls12_381_fp12 fp12;

/* gamma_n[k-1] = xi^(k (p^n - 1)/6), k = 1..5 (tools/gen_consts.py). */
static const fp2 frob1[5] = BLS12_381_MONT_FROB12_1;
static const fp frob2[5] = BLS12_381_MONT_FROB12_2;
static const fp2 frob3[5] = BLS12_381_MONT_FROB12_3;

/* ------------------------------------------------------------------ Fp6 */

/* a b with v^3 = xi, Karatsuba:
 *   t0 = a0 b0, t1 = a1 b1, t2 = a2 b2
 *   r0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2)      [a1 b2 + a2 b1 at v^3]
 *   r1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2        [a2 b2 at v^4 = xi v]
 *   r2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1
 * 6 Fp2 mul = 18M. */
void bls12_381_fp6_mul(fp6 *r, const fp6 *a, const fp6 *b) {
  fp2 t0, t1, t2, s, u, r0, r1, r2;
  bls12_381_fp2_mul(&t0, &a->c0, &b->c0);
  bls12_381_fp2_mul(&t1, &a->c1, &b->c1);
  bls12_381_fp2_mul(&t2, &a->c2, &b->c2);

  bls12_381_fp2_add(&s, &a->c1, &a->c2);
  bls12_381_fp2_add(&u, &b->c1, &b->c2);
  bls12_381_fp2_mul(&s, &s, &u);
  bls12_381_fp2_sub(&s, &s, &t1);
  bls12_381_fp2_sub(&s, &s, &t2); /* a1 b2 + a2 b1 */
  bls12_381_fp2_mul_by_xi(&s, &s);
  bls12_381_fp2_add(&r0, &t0, &s);

  bls12_381_fp2_add(&s, &a->c0, &a->c1);
  bls12_381_fp2_add(&u, &b->c0, &b->c1);
  bls12_381_fp2_mul(&s, &s, &u);
  bls12_381_fp2_sub(&s, &s, &t0);
  bls12_381_fp2_sub(&s, &s, &t1); /* a0 b1 + a1 b0 */
  bls12_381_fp2_mul_by_xi(&u, &t2);
  bls12_381_fp2_add(&r1, &s, &u);

  bls12_381_fp2_add(&s, &a->c0, &a->c2);
  bls12_381_fp2_add(&u, &b->c0, &b->c2);
  bls12_381_fp2_mul(&s, &s, &u);
  bls12_381_fp2_sub(&s, &s, &t0);
  bls12_381_fp2_sub(&s, &s, &t2); /* a0 b2 + a2 b0 */
  bls12_381_fp2_add(&r2, &s, &t1);

  r->c0 = r0;
  r->c1 = r1;
  r->c2 = r2;
}

/* a^2 = (a0^2 + 2 xi a1 a2) + (2 a0 a1 + xi a2^2) v + (a1^2 + 2 a0 a2) v^2,
 * Chung-Hasan SQR2:
 *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
 *   r0 = s0 + xi s3, r1 = s1 + xi s4, r2 = s1 + s2 + s3 - s0 - s4
 * 2 Fp2 mul + 3 Fp2 sqr = 12M. */
void bls12_381_fp6_sqr(fp6 *r, const fp6 *a) {
  fp2 s0, s1, s2, s3, s4, t;
  bls12_381_fp2_sqr(&s0, &a->c0);
  bls12_381_fp2_mul(&s1, &a->c0, &a->c1);
  bls12_381_fp2_dbl(&s1, &s1);
  bls12_381_fp2_sub(&s2, &a->c0, &a->c1);
  bls12_381_fp2_add(&s2, &s2, &a->c2);
  bls12_381_fp2_sqr(&s2, &s2);
  bls12_381_fp2_mul(&s3, &a->c1, &a->c2);
  bls12_381_fp2_dbl(&s3, &s3);
  bls12_381_fp2_sqr(&s4, &a->c2);

  bls12_381_fp2_add(&r->c2, &s1, &s2);
  bls12_381_fp2_add(&r->c2, &r->c2, &s3);
  bls12_381_fp2_sub(&r->c2, &r->c2, &s0);
  bls12_381_fp2_sub(&r->c2, &r->c2, &s4);
  bls12_381_fp2_mul_by_xi(&t, &s3);
  bls12_381_fp2_add(&r->c0, &s0, &t);
  bls12_381_fp2_mul_by_xi(&t, &s4);
  bls12_381_fp2_add(&r->c1, &s1, &t);
}

/* a (b0 + b1 v):
 *   t0 = a0 b0, t1 = a1 b1
 *   r0 = t0 + xi a2 b1                 [a2 v^2 b1 v = a2 b1 xi]
 *   r1 = (a0 + a1)(b0 + b1) - t0 - t1
 *   r2 = a2 b0 + t1
 * 5 Fp2 mul = 15M. */
void bls12_381_fp6_mul_by_01(fp6 *r, const fp6 *a, const fp2 *b0, const fp2 *b1) {
  fp2 t0, t1, t2, s, u;
  bls12_381_fp2_mul(&t0, &a->c0, b0);
  bls12_381_fp2_mul(&t1, &a->c1, b1);

  bls12_381_fp2_add(&s, &a->c0, &a->c1);
  bls12_381_fp2_add(&u, b0, b1);
  bls12_381_fp2_mul(&s, &s, &u);
  bls12_381_fp2_sub(&s, &s, &t0);
  bls12_381_fp2_sub(&s, &s, &t1); /* r1 */

  bls12_381_fp2_mul(&t2, &a->c2, b0);
  bls12_381_fp2_add(&t2, &t2, &t1); /* r2 */

  bls12_381_fp2_mul(&u, &a->c2, b1);
  bls12_381_fp2_mul_by_xi(&u, &u);
  bls12_381_fp2_add(&r->c0, &t0, &u);
  r->c1 = s;
  r->c2 = t2;
}

/* 3 Fp2 mul = 9M. */
void bls12_381_fp6_mul_by_fp2(fp6 *r, const fp6 *a, const fp2 *b) {
  fp2 bb = *b; /* b may point into r */
  bls12_381_fp2_mul(&r->c0, &a->c0, &bb);
  bls12_381_fp2_mul(&r->c1, &a->c1, &bb);
  bls12_381_fp2_mul(&r->c2, &a->c2, &bb);
}

/* 1/a: with
 *   A = a0^2 - xi a1 a2,  B = xi a2^2 - a0 a1,  C = a1^2 - a0 a2
 * (A + B v + C v^2) a = F lies in Fp2, F = a0 A + xi (a2 B + a1 C), so
 * 1/a = (A, B, C)/F.  Fp2 inversion (one Fp inversion) + 9 Fp2 mul + 3 Fp2 sqr. */
void bls12_381_fp6_inv(fp6 *r, const fp6 *a) {
  fp2 A, B, C, F, t;
  bls12_381_fp2_sqr(&A, &a->c0);
  bls12_381_fp2_mul(&t, &a->c1, &a->c2);
  bls12_381_fp2_mul_by_xi(&t, &t);
  bls12_381_fp2_sub(&A, &A, &t);

  bls12_381_fp2_sqr(&B, &a->c2);
  bls12_381_fp2_mul_by_xi(&B, &B);
  bls12_381_fp2_mul(&t, &a->c0, &a->c1);
  bls12_381_fp2_sub(&B, &B, &t);

  bls12_381_fp2_sqr(&C, &a->c1);
  bls12_381_fp2_mul(&t, &a->c0, &a->c2);
  bls12_381_fp2_sub(&C, &C, &t);

  bls12_381_fp2_mul(&F, &a->c2, &B);
  bls12_381_fp2_mul(&t, &a->c1, &C);
  bls12_381_fp2_add(&F, &F, &t);
  bls12_381_fp2_mul_by_xi(&F, &F);
  bls12_381_fp2_mul(&t, &a->c0, &A);
  bls12_381_fp2_add(&F, &F, &t);
  bls12_381_fp2_inv(&F, &F);

  bls12_381_fp2_mul(&r->c0, &A, &F);
  bls12_381_fp2_mul(&r->c1, &B, &F);
  bls12_381_fp2_mul(&r->c2, &C, &F);
}

/* ------------------------------------------------------------------ Fp12 */

/* (a0 + a1 w)(b0 + b1 w) with w^2 = v:
 *   t0 = a0 b0, t1 = a1 b1
 *   r0 = t0 + v t1,  r1 = (a0 + a1)(b0 + b1) - t0 - t1
 * 3 Fp6 mul = 54M. */
void bls12_381_fp12_mul(fp12 *r, const fp12 *a, const fp12 *b) {
  fp6 t0, t1, s, u;
  bls12_381_fp6_mul(&t0, &a->c0, &b->c0);
  bls12_381_fp6_mul(&t1, &a->c1, &b->c1);
  bls12_381_fp6_add(&s, &a->c0, &a->c1);
  bls12_381_fp6_add(&u, &b->c0, &b->c1);
  bls12_381_fp6_mul(&s, &s, &u);
  bls12_381_fp6_sub(&s, &s, &t0);
  bls12_381_fp6_sub(&r->c1, &s, &t1);
  bls12_381_fp6_mul_by_v(&t1, &t1);
  bls12_381_fp6_add(&r->c0, &t0, &t1);
}

/* (a0 + a1 w)^2 = (a0^2 + v a1^2) + 2 a0 a1 w, complex method:
 *   t = a0 a1
 *   r0 = (a0 + a1)(a0 + v a1) - t - v t,  r1 = 2 t
 * 2 Fp6 mul = 36M. */
void bls12_381_fp12_sqr(fp12 *r, const fp12 *a) {
  fp6 t, s, u;
  bls12_381_fp6_mul(&t, &a->c0, &a->c1);
  bls12_381_fp6_add(&s, &a->c0, &a->c1);
  bls12_381_fp6_mul_by_v(&u, &a->c1);
  bls12_381_fp6_add(&u, &u, &a->c0);
  bls12_381_fp6_mul(&s, &s, &u);
  bls12_381_fp6_sub(&s, &s, &t);
  bls12_381_fp6_mul_by_v(&u, &t);
  bls12_381_fp6_sub(&r->c0, &s, &u);
  bls12_381_fp6_add(&r->c1, &t, &t);
}

/* (a + b s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (a^2 + xi b^2) + 2ab s, the latter
 * as (a + b)^2 - a^2 - b^2.  3 Fp2 sqr = 6M. */
static void fp4_sqr(fp2 *r0, fp2 *r1, const fp2 *a, const fp2 *b) {
  fp2 t0, t1, s;
  bls12_381_fp2_sqr(&t0, a);
  bls12_381_fp2_sqr(&t1, b);
  bls12_381_fp2_add(&s, a, b);
  bls12_381_fp2_sqr(&s, &s);
  bls12_381_fp2_sub(&s, &s, &t0);
  bls12_381_fp2_sub(r1, &s, &t1);
  bls12_381_fp2_mul_by_xi(&t1, &t1);
  bls12_381_fp2_add(r0, &t0, &t1);
}

/* r = 3 t - 2 g = 2 (t - g) + t. */
static inline void cyc_minus(fp2 *r, const fp2 *t, const fp2 *g) {
  fp2 d;
  bls12_381_fp2_sub(&d, t, g);
  bls12_381_fp2_dbl(&d, &d);
  bls12_381_fp2_add(r, &d, t);
}
/* r = 3 t + 2 g = 2 (t + g) + t. */
static inline void cyc_plus(fp2 *r, const fp2 *t, const fp2 *g) {
  fp2 d;
  bls12_381_fp2_add(&d, t, g);
  bls12_381_fp2_dbl(&d, &d);
  bls12_381_fp2_add(r, &d, t);
}

/* Granger-Scott (PKC 2010).  Write a = sum g_k w^k (w^6 = xi) and group it
 * over Fp4 = Fp2[s], s = w^3, s^2 = xi:  a = A0 + A1 w + A2 w^2 with
 *   A0 = g0 + g3 s,  A1 = g1 + g4 s,  A2 = g2 + g5 s,  w^3 = s.
 * For a of order dividing p^4 - p^2 + 1 = Phi_6(p^2), conj_{Fp4/Fp2}(A) =
 * A^(p^2) (s -> -s) and
 *   a^2 = (3 A0^2 - 2 conj A0) + (3 s A2^2 + 2 conj A1) w + (3 A1^2 - 2 conj A2) w^2.
 * In coordinates, with (t0, t1) = A0^2, (t2, t3) = A2^2, (t4, t5) = A1^2:
 *   g0' = 3 t0 - 2 g0,     g3' = 3 t1 + 2 g3,
 *   g1' = 3 xi t3 + 2 g1,  g4' = 3 t2 - 2 g4,
 *   g2' = 3 t4 - 2 g2,     g5' = 3 t5 + 2 g5.
 * 3 Fp4 sqr = 9 Fp2 sqr = 18M (against 36M for bls12_381_fp12_sqr). */
void bls12_381_fp12_cyclotomic_sqr(fp12 *r, const fp12 *a) {
  /* g0 = c0.c0, g1 = c1.c0, g2 = c0.c1, g3 = c1.c1, g4 = c0.c2, g5 = c1.c2 */
  fp2 t0, t1, t2, t3, t4, t5;
  fp4_sqr(&t0, &t1, &a->c0.c0, &a->c1.c1);
  fp4_sqr(&t2, &t3, &a->c0.c1, &a->c1.c2);
  fp4_sqr(&t4, &t5, &a->c1.c0, &a->c0.c2);
  bls12_381_fp2_mul_by_xi(&t3, &t3);
  cyc_minus(&r->c0.c0, &t0, &a->c0.c0);
  cyc_plus(&r->c1.c1, &t1, &a->c1.c1);
  cyc_plus(&r->c1.c0, &t3, &a->c1.c0);
  cyc_minus(&r->c0.c2, &t2, &a->c0.c2);
  cyc_minus(&r->c0.c1, &t4, &a->c0.c1);
  cyc_plus(&r->c1.c2, &t5, &a->c1.c2);
}

/* a l, l = (l0 + l1 v) + (l4 v) w:
 *   t0 = a0 (l0 + l1 v)                      mul_by_01, 15M
 *   t1 = a1 l4 v                             9M
 *   r1 = (a0 + a1)(l0 + (l1 + l4) v) - t0 - t1   mul_by_01, 15M
 *   r0 = t0 + v t1
 * 39M (against 54M for a full bls12_381_fp12_mul). */
void bls12_381_fp12_mul_by_014(fp12 *r, const fp12 *a, const fp2 *l0, const fp2 *l1, const fp2 *l4) {
  fp6 t0, t1, s;
  fp2 m;
  bls12_381_fp6_mul_by_01(&t0, &a->c0, l0, l1);
  bls12_381_fp6_mul_by_fp2(&t1, &a->c1, l4);
  bls12_381_fp6_mul_by_v(&t1, &t1);
  bls12_381_fp6_add(&s, &a->c0, &a->c1);
  bls12_381_fp2_add(&m, l1, l4);
  bls12_381_fp6_mul_by_01(&s, &s, l0, &m);
  bls12_381_fp6_sub(&s, &s, &t0);
  bls12_381_fp6_sub(&r->c1, &s, &t1);
  bls12_381_fp6_mul_by_v(&t1, &t1);
  bls12_381_fp6_add(&r->c0, &t0, &t1);
}

/* (a0 + a1 w)(a0 - a1 w) = a0^2 - v a1^2 in Fp6, so
 * 1/a = (a0 - a1 w)/(a0^2 - v a1^2).  One Fp6 inversion + 2 Fp6 sqr + 2 Fp6 mul. */
void bls12_381_fp12_inv(fp12 *r, const fp12 *a) {
  fp6 t0, t1;
  bls12_381_fp6_sqr(&t0, &a->c0);
  bls12_381_fp6_sqr(&t1, &a->c1);
  bls12_381_fp6_mul_by_v(&t1, &t1);
  bls12_381_fp6_sub(&t0, &t0, &t1);
  bls12_381_fp6_inv(&t0, &t0);
  bls12_381_fp6_mul(&r->c0, &a->c0, &t0);
  bls12_381_fp6_mul(&t1, &a->c1, &t0);
  bls12_381_fp6_neg(&r->c1, &t1);
}

/* a^(p^n), n odd (1 or 3): conjugate each Fp2 coefficient (u^(p^n) = -u),
 * then w^k -> gamma[k-1] w^k.  5 Fp2 mul = 15M. */
static void frob_odd(fp12 *r, const fp12 *a, const fp2 g[5]) {
  fp2 t;
  bls12_381_fp2_conj(&r->c0.c0, &a->c0.c0);                                   /* w^0 */
  bls12_381_fp2_conj(&t, &a->c1.c0), bls12_381_fp2_mul(&r->c1.c0, &t, &g[0]); /* w^1 */
  bls12_381_fp2_conj(&t, &a->c0.c1), bls12_381_fp2_mul(&r->c0.c1, &t, &g[1]); /* w^2 */
  bls12_381_fp2_conj(&t, &a->c1.c1), bls12_381_fp2_mul(&r->c1.c1, &t, &g[2]); /* w^3 */
  bls12_381_fp2_conj(&t, &a->c0.c2), bls12_381_fp2_mul(&r->c0.c2, &t, &g[3]); /* w^4 */
  bls12_381_fp2_conj(&t, &a->c1.c2), bls12_381_fp2_mul(&r->c1.c2, &t, &g[4]); /* w^5 */
}

/* a^(p^2): Fp2 is fixed, w^k -> gamma_2[k-1] w^k with gamma_2 in Fp.  10M. */
static void frob_2(fp12 *r, const fp12 *a) {
  r->c0.c0 = a->c0.c0;
  bls12_381_fp2_mul_base(&r->c1.c0, &a->c1.c0, &frob2[0]);
  bls12_381_fp2_mul_base(&r->c0.c1, &a->c0.c1, &frob2[1]);
  bls12_381_fp2_mul_base(&r->c1.c1, &a->c1.c1, &frob2[2]);
  bls12_381_fp2_mul_base(&r->c0.c2, &a->c0.c2, &frob2[3]);
  bls12_381_fp2_mul_base(&r->c1.c2, &a->c1.c2, &frob2[4]);
}

void bls12_381_fp12_frobenius(fp12 *r, const fp12 *a, unsigned n) {
  n %= 12; /* a^(p^12) = a */
  *r = *a;
  for (; n >= 3; n -= 3) frob_odd(r, r, frob3);
  if (n == 2)
    frob_2(r, r);
  else if (n == 1)
    frob_odd(r, r, frob1);
}

void bls12_381_fp12_pow_vartime(fp12 *r, const fp12 *a, const limb_t *e, size_t elimbs) {
  fp12 acc, base = *a;
  bls12_381_fp12_set_one(&acc);
  for (size_t i = elimbs; i-- > 0;)
    for (int b = 63; b >= 0; b--) {
      bls12_381_fp12_sqr(&acc, &acc);
      if ((e[i] >> b) & 1)
        bls12_381_fp12_mul(&acc, &acc, &base);
    }
  *r = acc;
}

/* ------------------------------------------------------------------ coefficients */

void bls12_381_fp12_to_coeffs(fp out[12], const fp12 *f) {
  const fp6 *h[2] = {&f->c0, &f->c1};
  for (int i = 0; i < 2; i++) {
    const fp2 *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
    for (int j = 0; j < 3; j++) {
      out[6 * i + 2 * j] = c[j]->c0;
      out[6 * i + 2 * j + 1] = c[j]->c1;
    }
  }
}

void bls12_381_fp12_from_coeffs(fp12 *f, const fp in[12]) {
  fp6 *h[2] = {&f->c0, &f->c1};
  for (int i = 0; i < 2; i++) {
    fp2 *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
    for (int j = 0; j < 3; j++) {
      c[j]->c0 = in[6 * i + 2 * j];
      c[j]->c1 = in[6 * i + 2 * j + 1];
    }
  }
}
