/* The Fp6/Fp12 tower against a plain reference: schoolbook multiplication in
 * Fp2[w]/(w^6 - xi), which shares no code with the Karatsuba tower; the fast
 * special cases (sparse line product, cyclotomic squaring, Frobenius) against
 * the general routines; and the pairing's timings (printed, not asserted
 * beyond a gross bound). */
#include "harness.h"

#include <time.h>

#include "pairing/pairing.h"

typedef bls12_381_fp fp;
typedef bls12_381_fp2 fp2;
typedef bls12_381_fp6 fp6;
typedef bls12_381_fp12 fp12;

static void rand_fp(fp *r, test_rng *g) {
  limb_t x[6];
  for (int i = 0; i < 6; i++) x[i] = test_rng_next(g);
  x[5] &= 0x0fffffffffffffffULL; /* < 2^380 < p */
  bls12_381_fp_from_canon(r, x);
}
static void rand_fp2(fp2 *r, test_rng *g) {
  rand_fp(&r->c0, g);
  rand_fp(&r->c1, g);
}
static void rand_fp12(fp12 *r, test_rng *g) {
  fp c[12];
  for (int i = 0; i < 12; i++) rand_fp(&c[i], g);
  bls12_381_fp12_from_coeffs(r, c);
}

/* The w^k coefficients of f (w^6 = xi): c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2. */
static void to_w(fp2 g[6], const fp12 *f) {
  g[0] = f->c0.c0, g[1] = f->c1.c0, g[2] = f->c0.c1;
  g[3] = f->c1.c1, g[4] = f->c0.c2, g[5] = f->c1.c2;
}
static void from_w(fp12 *f, const fp2 g[6]) {
  f->c0.c0 = g[0], f->c1.c0 = g[1], f->c0.c1 = g[2];
  f->c1.c1 = g[3], f->c0.c2 = g[4], f->c1.c2 = g[5];
}

/* Plain reference: 36 Fp2 products, then w^(6+k) = xi w^k. */
static void naive_mul(fp12 *r, const fp12 *a, const fp12 *b) {
  fp2 x[6], y[6], z[11], t;
  to_w(x, a);
  to_w(y, b);
  memset(z, 0, sizeof z);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      bls12_381_fp2_mul(&t, &x[i], &y[j]);
      bls12_381_fp2_add(&z[i + j], &z[i + j], &t);
    }
  for (int k = 0; k < 5; k++) {
    bls12_381_fp2_mul_by_xi(&t, &z[k + 6]);
    bls12_381_fp2_add(&z[k], &z[k], &t);
  }
  from_w(r, z);
}

/* The element with the easy part applied: in the cyclotomic subgroup. */
static void rand_cyclotomic(fp12 *r, test_rng *g) {
  fp12 f, t;
  rand_fp12(&f, g);
  bls12_381_fp12_inv(&t, &f);
  bls12_381_fp12_conj(&f, &f);
  bls12_381_fp12_mul(&f, &f, &t);
  bls12_381_fp12_frobenius(&t, &f, 2);
  bls12_381_fp12_mul(r, &t, &f);
}

TEST(fp12_mul_sqr_match_naive) {
  test_rng g = {test_stream_seed(1)};
  for (int it = 0; it < 200; it++) {
    fp12 a, b, want, got;
    rand_fp12(&a, &g);
    rand_fp12(&b, &g);
    naive_mul(&want, &a, &b);
    bls12_381_fp12_mul(&got, &a, &b);
    CHECK(bls12_381_fp12_eq(&got, &want));
    got = a; /* aliasing: r = a, then r = b */
    bls12_381_fp12_mul(&got, &got, &b);
    CHECK(bls12_381_fp12_eq(&got, &want));
    got = b;
    bls12_381_fp12_mul(&got, &a, &got);
    CHECK(bls12_381_fp12_eq(&got, &want));
    naive_mul(&want, &a, &a);
    bls12_381_fp12_sqr(&got, &a);
    CHECK(bls12_381_fp12_eq(&got, &want));
    bls12_381_fp12_sqr(&a, &a);
    CHECK(bls12_381_fp12_eq(&a, &want));
  }
}

TEST(fp6_sqr_inv_and_sparse) {
  test_rng g = {test_stream_seed(2)};
  for (int it = 0; it < 200; it++) {
    fp6 a, b, want, got, one;
    rand_fp2(&a.c0, &g), rand_fp2(&a.c1, &g), rand_fp2(&a.c2, &g);
    rand_fp2(&b.c0, &g), rand_fp2(&b.c1, &g);
    bls12_381_fp2_set_zero(&b.c2);
    bls12_381_fp6_mul(&want, &a, &a);
    bls12_381_fp6_sqr(&got, &a);
    CHECK(bls12_381_fp6_eq(&got, &want));
    bls12_381_fp6_mul(&want, &a, &b);
    bls12_381_fp6_mul_by_01(&got, &a, &b.c0, &b.c1);
    CHECK(bls12_381_fp6_eq(&got, &want));
    bls12_381_fp6_inv(&got, &a);
    bls12_381_fp6_mul(&got, &got, &a);
    bls12_381_fp6_set_one(&one);
    CHECK(bls12_381_fp6_eq(&got, &one));
  }
  fp6 z, r;
  bls12_381_fp6_set_zero(&z);
  bls12_381_fp6_inv(&r, &z);
  CHECK(bls12_381_fp6_is_zero(&r)); /* inv(0) = 0 */
}

TEST(fp12_mul_by_014_matches_mul) {
  test_rng g = {test_stream_seed(3)};
  for (int it = 0; it < 200; it++) {
    fp12 a, l, want, got;
    fp2 l0, l1, l4;
    rand_fp12(&a, &g);
    rand_fp2(&l0, &g), rand_fp2(&l1, &g), rand_fp2(&l4, &g);
    memset(&l, 0, sizeof l);
    l.c0.c0 = l0, l.c0.c1 = l1, l.c1.c1 = l4;
    naive_mul(&want, &a, &l);
    bls12_381_fp12_mul_by_014(&got, &a, &l0, &l1, &l4);
    CHECK(bls12_381_fp12_eq(&got, &want));
    bls12_381_fp12_mul_by_014(&a, &a, &l0, &l1, &l4);
    CHECK(bls12_381_fp12_eq(&a, &want));
  }
}

TEST(fp12_inv) {
  test_rng g = {test_stream_seed(4)};
  for (int it = 0; it < 50; it++) {
    fp12 a, b, t;
    rand_fp12(&a, &g);
    bls12_381_fp12_inv(&b, &a);
    bls12_381_fp12_mul(&t, &a, &b);
    CHECK(bls12_381_fp12_is_one(&t));
    bls12_381_fp12_inv(&a, &a); /* aliasing */
    CHECK(bls12_381_fp12_eq(&a, &b));
  }
}

TEST(cyclotomic_sqr_matches_sqr) {
  test_rng g = {test_stream_seed(5)};
  for (int it = 0; it < 50; it++) {
    fp12 a, want, got, t;
    rand_cyclotomic(&a, &g);
    /* conj is the inverse in the cyclotomic subgroup */
    bls12_381_fp12_conj(&t, &a);
    bls12_381_fp12_mul(&t, &t, &a);
    CHECK(bls12_381_fp12_is_one(&t));
    bls12_381_fp12_sqr(&want, &a);
    bls12_381_fp12_cyclotomic_sqr(&got, &a);
    CHECK(bls12_381_fp12_eq(&got, &want));
    bls12_381_fp12_cyclotomic_sqr(&a, &a);
    CHECK(bls12_381_fp12_eq(&a, &want));
  }
}

/* r = a * b for little-endian limb numbers; r has na + nb limbs. */
static void big_mul(limb_t *r, const limb_t *a, size_t na, const limb_t *b, size_t nb) {
  memset(r, 0, (na + nb) * sizeof *r);
  for (size_t i = 0; i < na; i++) {
    unsigned __int128 c = 0;
    for (size_t j = 0; j < nb; j++) {
      c += (unsigned __int128)a[i] * b[j] + r[i + j];
      r[i + j] = (limb_t)c;
      c >>= 64;
    }
    r[i + nb] = (limb_t)c;
  }
}

TEST(frobenius_matches_pow) {
  test_rng g = {test_stream_seed(6)};
  limb_t pn[4][24] = {{0}};
  memcpy(pn[1], bls12_381_fp_modulus, 6 * sizeof(limb_t));
  big_mul(pn[2], pn[1], 6, bls12_381_fp_modulus, 6);
  big_mul(pn[3], pn[2], 12, bls12_381_fp_modulus, 6);
  for (int it = 0; it < 3; it++) {
    fp12 a, want, got;
    rand_fp12(&a, &g);
    for (unsigned n = 1; n <= 3; n++) {
      bls12_381_fp12_pow_vartime(&want, &a, pn[n], 6 * n);
      bls12_381_fp12_frobenius(&got, &a, n);
      CHECK_MSG(bls12_381_fp12_eq(&got, &want), "a^(p^%u)", n);
    }
    /* composition: p^6 is conj, p^12 the identity */
    bls12_381_fp12_frobenius(&got, &a, 6);
    bls12_381_fp12_conj(&want, &a);
    CHECK(bls12_381_fp12_eq(&got, &want));
    bls12_381_fp12_frobenius(&got, &a, 12);
    CHECK(bls12_381_fp12_eq(&got, &a));
    bls12_381_fp12_frobenius(&got, &a, 5);
    bls12_381_fp12_frobenius(&want, &a, 2);
    bls12_381_fp12_frobenius(&want, &want, 3);
    CHECK(bls12_381_fp12_eq(&got, &want));
  }
}

/* q = a / d (bit-serial long division), a of na limbs, d of 4 limbs; the
 * remainder must come out zero. */
static void big_div_exact(limb_t *q, const limb_t *a, size_t na, const limb_t d[4]) {
  limb_t rem[5] = {0};
  memset(q, 0, na * sizeof *q);
  for (size_t bit = 64 * na; bit-- > 0;) {
    limb_t carry = (a[bit / 64] >> (bit % 64)) & 1;
    for (int i = 0; i < 5; i++) {
      limb_t nc = rem[i] >> 63;
      rem[i] = rem[i] << 1 | carry;
      carry = nc;
    }
    limb_t dd[5] = {d[0], d[1], d[2], d[3], 0};
    if (!limbs_lt(rem, dd, 5)) {
      limb_t borrow = 0;
      for (int i = 0; i < 5; i++) {
        unsigned __int128 t = (unsigned __int128)rem[i] - dd[i] - borrow;
        rem[i] = (limb_t)t;
        borrow = (limb_t)(t >> 64) & 1;
      }
      q[bit / 64] |= (limb_t)1 << (bit % 64);
    }
  }
  for (int i = 0; i < 5; i++) CHECK(rem[i] == 0);
}

/* The plain reference for bls12_381_final_exp: square-and-multiply by the
 * whole exponent 3 (p^12 - 1)/r (4,560 bits), computed here from p and r. */
TEST_TIMEOUT(final_exp_matches_plain_pow, 300) {
  enum { L = 72 };
  static const limb_t r[4] = BLS12_381_FR_P;
  limb_t pk[L + 6] = {0}, t[L + 6], e[L];
  memcpy(pk, bls12_381_fp_modulus, 6 * sizeof(limb_t));
  for (size_t n = 6; n < L; n += 6) { /* pk = p^12 after 11 steps */
    big_mul(t, pk, n, bls12_381_fp_modulus, 6);
    memcpy(pk, t, (n + 6) * sizeof(limb_t));
  }
  for (size_t i = 0; pk[i]-- == 0; i++) {} /* p^12 - 1 */
  limb_t three[1] = {3};
  big_mul(t, pk, L, three, 1);
  CHECK(t[L] == 0);
  big_div_exact(e, t, L, r); /* e = 3 (p^12 - 1)/r */
  test_rng g = {test_stream_seed(7)};
  for (int it = 0; it < 3; it++) {
    fp12 f, want, got;
    rand_fp12(&f, &g);
    bls12_381_fp12_pow_vartime(&want, &f, e, L);
    bls12_381_final_exp(&got, &f);
    CHECK(bls12_381_fp12_eq(&got, &want));
  }
}

/* ------------------------------------------------------------------ timings */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of REPS runs of each: printed for the record; asserted only against
 * the 50 ms bound for a 4-pair product check, and only in optimized builds
 * without sanitizers (make asan runs ~10x slower). */
TEST_TIMEOUT(pairing_timings, 300) {
  enum { REPS = 15 };
  bls12_381_g1_aff p[4];
  bls12_381_g2_aff q[4];
  for (int i = 0; i < 4; i++) {
    p[i] = bls12_381_g1_generator;
    q[i] = bls12_381_g2_generator;
  }
  bls12_381_g1_aff_neg(&p[1], &p[1]);
  fp12 f, e;
  double t[4][REPS];
  volatile int sink = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = now_ms();
    bls12_381_miller_loop(&f, p, q, 1);
    double t1 = now_ms();
    bls12_381_final_exp(&e, &f);
    double t2 = now_ms();
    bls12_381_pairing(&e, p, q);
    double t3 = now_ms();
    sink += bls12_381_pairing_product_is_one(p, q, 4);
    double t4 = now_ms();
    t[0][r] = t1 - t0, t[1][r] = t2 - t1, t[2][r] = t3 - t2, t[3][r] = t4 - t3;
  }
  static const char *names[4] = {"miller loop, 1 pair", "final exponentiation", "pairing",
                                 "4-pair product check"};
  for (int k = 0; k < 4; k++) {
    qsort(t[k], REPS, sizeof(double), cmp_double);
    printf("  %-22s median %.3f ms (min %.3f)\n", names[k], t[k][REPS / 2], t[k][0]);
  }
  CHECK(sink == 0);
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
  CHECK_MSG(t[3][REPS / 2] < 50.0, "4-pair product %.1f ms", t[3][REPS / 2]);
#endif
}
