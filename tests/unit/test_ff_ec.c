/* Field and curve arithmetic against a naive reference and algebraic laws. */
#include "harness.h"

#include "base/bytes.h"
#include "ec/bls12_381.h"

/* Naive reference: (a*b) mod m by schoolbook product and shift-subtract. */
static void naive_mulmod(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *m, int n) {
  limb_t prod[12] = {0};
  for (int i = 0; i < n; i++) {
    unsigned __int128 c = 0;
    for (int j = 0; j < n; j++) {
      c += (unsigned __int128)a[i] * b[j] + prod[i + j];
      prod[i + j] = (limb_t)c;
      c >>= 64;
    }
    prod[i + n] = (limb_t)c;
  }
  /* remainder by bits, from the top */
  limb_t rem[7] = {0};
  for (int bit = 128 * n - 1; bit >= 0; bit--) {
    /* rem = rem*2 + bit */
    limb_t carry = (prod[bit / 64] >> (bit % 64)) & 1;
    for (int i = 0; i <= n; i++) {
      limb_t nc = rem[i] >> 63;
      rem[i] = rem[i] << 1 | carry;
      carry = nc;
    }
    /* if rem >= m: rem -= m */
    limb_t mm[7] = {0};
    memcpy(mm, m, n * sizeof(limb_t));
    if (!limbs_lt(rem, mm, n + 1)) {
      limb_t borrow = 0;
      for (int i = 0; i <= n; i++) {
        unsigned __int128 d = (unsigned __int128)rem[i] - mm[i] - borrow;
        rem[i] = (limb_t)d;
        borrow = (limb_t)(d >> 64) & 1;
      }
    }
  }
  memcpy(r, rem, n * sizeof(limb_t));
}

static void rand_below(limb_t *r, const limb_t *m, int n, test_rng *g) {
  do {
    for (int i = 0; i < n; i++) r[i] = test_rng_next(g);
    r[n - 1] &= m[n - 1] * 2 - 1 > m[n - 1] ? (~(limb_t)0 >> __builtin_clzll(m[n - 1])) : ~(limb_t)0;
  } while (!limbs_lt(r, m, n));
}

TEST(fp_mul_matches_naive) {
  test_rng g = {test_stream_seed(1)};
  for (int it = 0; it < 2000; it++) {
    limb_t a[6], b[6], want[6], got[6];
    rand_below(a, bls12_381_fp_modulus, 6, &g);
    rand_below(b, bls12_381_fp_modulus, 6, &g);
    if (it == 0) memset(a, 0, sizeof a);
    if (it == 1) { memcpy(a, bls12_381_fp_modulus, sizeof a); a[0] -= 1; memcpy(b, a, sizeof b); }
    naive_mulmod(want, a, b, bls12_381_fp_modulus, 6);
    bls12_381_fp x, y, z;
    bls12_381_fp_from_canon(&x, a);
    bls12_381_fp_from_canon(&y, b);
    bls12_381_fp_mul(&z, &x, &y);
    bls12_381_fp_to_canon(got, &z);
    CHECK_EQ_MEM(got, want, sizeof want);
  }
}

TEST(fr_mul_add_sub_match_naive) {
  test_rng g = {test_stream_seed(2)};
  for (int it = 0; it < 2000; it++) {
    limb_t a[4], b[4], want[4], got[4];
    rand_below(a, bls12_381_fr_modulus, 4, &g);
    rand_below(b, bls12_381_fr_modulus, 4, &g);
    naive_mulmod(want, a, b, bls12_381_fr_modulus, 4);
    bls12_381_fr x, y, z, s, d;
    bls12_381_fr_from_canon(&x, a);
    bls12_381_fr_from_canon(&y, b);
    bls12_381_fr_mul(&z, &x, &y);
    bls12_381_fr_to_canon(got, &z);
    CHECK_EQ_MEM(got, want, sizeof want);
    /* (x + y) - y == x, x - x == 0, -x + x == 0 */
    bls12_381_fr_add(&s, &x, &y);
    bls12_381_fr_sub(&d, &s, &y);
    CHECK(bls12_381_fr_eq(&d, &x));
    bls12_381_fr_neg(&d, &x);
    bls12_381_fr_add(&d, &d, &x);
    CHECK(bls12_381_fr_is_zero(&d));
  }
}

TEST(fp_inv_sqrt) {
  test_rng g = {test_stream_seed(3)};
  int squares = 0;
  for (int it = 0; it < 200; it++) {
    limb_t a[6];
    rand_below(a, bls12_381_fp_modulus, 6, &g);
    bls12_381_fp x, y, z;
    bls12_381_fp_from_canon(&x, a);
    bls12_381_fp_inv(&y, &x);
    bls12_381_fp_mul(&z, &x, &y);
    CHECK(bls12_381_fp_is_one(&z));
    if (bls12_381_fp_sqrt(&y, &x)) {
      squares++;
      bls12_381_fp_sqr(&z, &y);
      CHECK(bls12_381_fp_eq(&z, &x));
    }
    bls12_381_fp_sqr(&z, &x);
    CHECK(bls12_381_fp_sqrt(&y, &z));
    bls12_381_fp_sqr(&y, &y);
    CHECK(bls12_381_fp_eq(&y, &z));
  }
  CHECK(squares > 60 && squares < 140); /* about half are squares */
}

TEST(fp2_inv_sqrt) {
  test_rng g = {test_stream_seed(4)};
  for (int it = 0; it < 100; it++) {
    limb_t a[6], b[6];
    rand_below(a, bls12_381_fp_modulus, 6, &g);
    rand_below(b, bls12_381_fp_modulus, 6, &g);
    bls12_381_fp2 x, y, z;
    bls12_381_fp_from_canon(&x.c0, a);
    bls12_381_fp_from_canon(&x.c1, b);
    bls12_381_fp2_inv(&y, &x);
    bls12_381_fp2_mul(&z, &x, &y);
    CHECK(bls12_381_fp2_is_one(&z));
    bls12_381_fp2_sqr(&z, &x);
    CHECK(bls12_381_fp2_sqrt(&y, &z));
    bls12_381_fp2_sqr(&y, &y);
    CHECK(bls12_381_fp2_eq(&y, &z));
    /* sqr agrees with mul */
    bls12_381_fp2_mul(&y, &x, &x);
    CHECK(bls12_381_fp2_eq(&y, &z));
  }
}

TEST(decimal_and_hex_roundtrip) {
  char buf[200];
  limb_t a[4] = {0}, b[4];
  limbs_to_dec(buf, a, 4);
  CHECK_EQ_STR(buf, "0");
  a[0] = 10000000000000000000ULL;
  limbs_to_dec(buf, a, 4);
  CHECK_EQ_STR(buf, "10000000000000000000");
  limbs_to_dec(buf, bls12_381_fr_modulus, 4);
  CHECK_EQ_STR(buf, "52435875175126190479447740508185965837690552500527637822603658699938581184513");
  CHECK(limbs_from_dec(b, 4, buf, strlen(buf)));
  CHECK_EQ_MEM(b, bls12_381_fr_modulus, 32);
  CHECK(!limbs_from_dec(b, 4, "12a", 3));
  CHECK(!limbs_from_dec(b, 4, "", 0));
  /* 2^256 overflows 4 limbs */
  const char *big = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
  CHECK(!limbs_from_dec(b, 4, big, strlen(big)));
  CHECK(limbs_from_hex(b, 4, "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 66));
  CHECK_EQ_MEM(b, bls12_381_fr_modulus, 32);
}

#define GROUP_LAWS(G, seed)                                                                 \
  do {                                                                                      \
    test_rng g = {test_stream_seed(seed)};                                                  \
    CHECK(G##_aff_is_on_curve(&G##_generator));                                             \
    CHECK(G##_aff_in_subgroup(&G##_generator));                                             \
    G##_jac gen, a, b, c, d;                                                                \
    G##_jac_from_aff(&gen, &G##_generator);                                                 \
    for (int it = 0; it < 20; it++) {                                                       \
      limb_t k1[4] = {test_rng_next(&g), test_rng_next(&g), 0, 0};                          \
      limb_t k2[4] = {test_rng_next(&g), 0, 0, 0};                                          \
      limb_t k12[4] = {k1[0] + k2[0], k1[1] + (k1[0] + k2[0] < k1[0]), 0, 0};               \
      G##_jac_mul_vartime(&a, &gen, k1, 4);                                                 \
      G##_jac_mul_vartime(&b, &gen, k2, 4);                                                 \
      G##_jac_mul_vartime(&c, &gen, k12, 4);                                                \
      G##_jac_add(&d, &a, &b); /* [k1]G + [k2]G == [k1+k2]G */                              \
      CHECK(G##_jac_eq(&d, &c));                                                            \
      G##_aff aa, ba;                                                                       \
      G##_jac_to_aff(&aa, &a);                                                              \
      G##_jac_to_aff(&ba, &b);                                                              \
      CHECK(G##_aff_is_on_curve(&aa));                                                      \
      G##_jac_add_aff(&d, &a, &ba); /* mixed add */                                         \
      CHECK(G##_jac_eq(&d, &c));                                                            \
      G##_xyzz x, y;                                                                        \
      G##_xyzz_from_aff(&x, &aa);                                                           \
      G##_xyzz_from_aff(&y, &ba);                                                           \
      G##_xyzz_add_aff(&x, &x, &ba);                                                        \
      G##_xyzz_to_jac(&d, &x);                                                              \
      CHECK(G##_jac_eq(&d, &c));                                                            \
      G##_xyzz_dbl(&x, &x); /* 2(a+b) two ways */                                           \
      G##_xyzz_from_aff(&y, &aa);                                                           \
      G##_xyzz_add_aff(&y, &y, &ba);                                                        \
      G##_xyzz_add(&y, &y, &y);                                                             \
      G##_jac_dbl(&c, &c);                                                                  \
      G##_xyzz_to_jac(&d, &x);                                                              \
      CHECK(G##_jac_eq(&d, &c));                                                            \
      G##_xyzz_to_jac(&d, &y);                                                              \
      CHECK(G##_jac_eq(&d, &c));                                                            \
      G##_aff ca;                                                                           \
      G##_xyzz_to_aff(&ca, &x);                                                             \
      G##_jac_from_aff(&d, &ca);                                                            \
      CHECK(G##_jac_eq(&d, &c));                                                            \
      /* P + (-P) = O in every form */                                                      \
      G##_aff na;                                                                           \
      G##_aff_neg(&na, &aa);                                                                \
      G##_jac_add_aff(&d, &a, &na);                                                         \
      CHECK(G##_jac_is_inf(&d));                                                            \
      G##_xyzz_from_aff(&x, &aa);                                                           \
      G##_xyzz_add_aff(&x, &x, &na);                                                        \
      CHECK(G##_xyzz_is_inf(&x));                                                           \
    }                                                                                       \
    /* [r]G = O, [r-1]G = -G */                                                             \
    G##_jac_mul_vartime(&a, &gen, bls12_381_fr_modulus, 4);                                 \
    CHECK(G##_jac_is_inf(&a));                                                              \
    limb_t rm1[4];                                                                          \
    memcpy(rm1, bls12_381_fr_modulus, sizeof rm1);                                          \
    rm1[0] -= 1;                                                                            \
    G##_jac_mul_vartime(&a, &gen, rm1, 4);                                                  \
    G##_jac_neg(&b, &gen);                                                                  \
    CHECK(G##_jac_eq(&a, &b));                                                              \
  } while (0)

TEST(g1_group_laws) { GROUP_LAWS(bls12_381_g1, 5); }
TEST(g2_group_laws) { GROUP_LAWS(bls12_381_g2, 6); }

TEST(g1_off_curve_and_off_subgroup_rejected) {
  bls12_381_g1_aff p = bls12_381_g1_generator;
  bls12_381_fp one;
  bls12_381_fp_set_one(&one);
  bls12_381_fp_add(&p.y, &p.y, &one);
  CHECK(!bls12_381_g1_aff_is_on_curve(&p));
  CHECK(!bls12_381_g1_aff_in_subgroup(&p));
  /* A point on the curve but outside G1: x = 0 gives y^2 = 4, y = 2; the
   * cofactor of G1 is large, so (0, 2) is not in the r-torsion. */
  bls12_381_g1_aff q;
  bls12_381_fp_set_zero(&q.x);
  bls12_381_fp_set_u64(&q.y, 2);
  CHECK(bls12_381_g1_aff_is_on_curve(&q));
  CHECK(!bls12_381_g1_aff_in_subgroup(&q));
}

/* jac_mul_ct against jac_mul_vartime: random full-width scalars (also above
 * r: any 256-bit k), edge scalars, random and infinite points, and points
 * given in Jacobian form with Z != 1. */
#define MUL_CT(G, seed)                                                                     \
  do {                                                                                      \
    test_rng g = {test_stream_seed(seed)};                                                  \
    G##_jac gen, p, want, got;                                                              \
    G##_jac_from_aff(&gen, &G##_generator);                                                 \
    limb_t rm1[4];                                                                          \
    memcpy(rm1, bls12_381_fr_modulus, sizeof rm1);                                          \
    rm1[0] -= 1;                                                                            \
    const limb_t edge[][4] = {{0}, {1}, {2}, {15}, {16}, {17}, {0, 0, 0, 1ULL << 60},       \
                              {~0ULL, ~0ULL, ~0ULL, ~0ULL}, {rm1[0], rm1[1], rm1[2], rm1[3]}}; \
    for (int it = 0; it < 24; it++) {                                                       \
      limb_t j[4] = {test_rng_next(&g), test_rng_next(&g), 0, 0}, k[4];                     \
      G##_jac_mul_vartime(&p, &gen, j, 4); /* a point with Z != 1 */                        \
      if (it == 0)                                                                          \
        G##_jac_set_inf(&p);                                                                \
      if (it == 1)                                                                          \
        p = gen;                                                                            \
      size_t ne = sizeof edge / sizeof edge[0];                                             \
      if (it < (int)ne)                                                                     \
        memcpy(k, edge[it], sizeof k);                                                      \
      else                                                                                  \
        for (int i = 0; i < 4; i++) k[i] = test_rng_next(&g);                               \
      G##_jac_mul_vartime(&want, &p, k, 4);                                                 \
      G##_jac_mul_ct(&got, &p, k);                                                          \
      CHECK_MSG(G##_jac_eq(&got, &want), #G " mul_ct case %d differs", it);                \
      G##_jac_mul_ct(&p, &p, k); /* aliasing */                                             \
      CHECK(G##_jac_eq(&p, &want));                                                         \
    }                                                                                       \
    G##_jac_mul_ct(&got, &gen, bls12_381_fr_modulus); /* [r]G = O */                        \
    CHECK(G##_jac_is_inf(&got));                                                            \
  } while (0)

TEST(g1_mul_ct) { MUL_CT(bls12_381_g1, 7); }
TEST(g2_mul_ct) { MUL_CT(bls12_381_g2, 8); }

/* The endomorphisms (ec/bls12_381.h) against double-and-add on random
 * subgroup points: [u^2]P on G1 and G2, psi(Q) = [u]Q = -[|u|]Q, psi^2 =
 * mul_u2, psi^4 - psi^2 + 1 = 0 (r = u^4 - u^2 + 1), infinity fixed, r
 * aliasing p.  The wrong cube root (beta^2) must fail the G1 check: the
 * test tells the two apart. */
static const limb_t U_ABS[1] = {BLS12_381_X};
static const limb_t U_SQ[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL}; /* u^2 */

TEST(u_constants) {
  /* u^2 = |u| * |u|, and u^4 - u^2 + 1 = r */
  unsigned __int128 sq = (unsigned __int128)BLS12_381_X * BLS12_381_X;
  CHECK_EQ_INT(U_SQ[0], (limb_t)sq);
  CHECK_EQ_INT(U_SQ[1], (limb_t)(sq >> 64));
  limb_t u4[4] = {0}, acc[4];
  for (int i = 0; i < 2; i++) {
    unsigned __int128 c = 0;
    for (int j = 0; j < 2; j++) {
      c += (unsigned __int128)U_SQ[i] * U_SQ[j] + u4[i + j];
      u4[i + j] = (limb_t)c;
      c >>= 64;
    }
    u4[i + 2] = (limb_t)c;
  }
  limb_t lo[4] = {U_SQ[0] - 1, U_SQ[1], 0, 0}; /* u^2 - 1 (no borrow: U_SQ[0] > 0) */
  limb_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    unsigned __int128 d = (unsigned __int128)u4[i] - lo[i] - borrow;
    acc[i] = (limb_t)d;
    borrow = (limb_t)(d >> 64) & 1;
  }
  CHECK_EQ_MEM(acc, bls12_381_fr_modulus, sizeof acc);
}

/* *a = the generator (it = 0) or a random multiple of it, affine; *j = the
 * same in Jacobian form. */
#define RAND_POINT(G, a, j, g, it)                                                          \
  do {                                                                                      \
    G##_jac gen_;                                                                           \
    limb_t k_[4] = {test_rng_next(g), test_rng_next(g), test_rng_next(g), 0};               \
    G##_jac_from_aff(&gen_, &G##_generator);                                                \
    *(a) = G##_generator;                                                                   \
    if ((it) > 0) {                                                                         \
      G##_jac_mul_vartime(&gen_, &gen_, k_, 4);                                             \
      G##_jac_to_aff((a), &gen_);                                                           \
    }                                                                                       \
    G##_jac_from_aff((j), (a));                                                             \
  } while (0)

TEST(g1_mul_u2_is_mul_by_u_squared) {
  test_rng g = {test_stream_seed(31)};
  bls12_381_g1_jac p, want, got;
  for (int it = 0; it < 12; it++) {
    bls12_381_g1_aff a, m;
    RAND_POINT(bls12_381_g1, &a, &p, &g, it);
    bls12_381_g1_jac_mul_vartime(&want, &p, U_SQ, 2);
    bls12_381_g1_aff_mul_u2(&m, &a);
    bls12_381_g1_jac_from_aff(&got, &m);
    CHECK_MSG(bls12_381_g1_jac_eq(&got, &want), "G1 mul_u2 case %d", it);
    /* Twice: (beta^2 x, y) = [u^4]P (aliasing r and p). */
    bls12_381_g1_aff w = m;
    bls12_381_g1_aff_mul_u2(&w, &w);
    bls12_381_g1_jac_from_aff(&got, &w);
    bls12_381_g1_jac_mul_vartime(&want, &want, U_SQ, 2);
    CHECK(bls12_381_g1_jac_eq(&got, &want));
    /* The map with the other cube root, (beta^2 x, -y) = [1 - u^2]P, is not
     * [u^2]P: the check above tells the two roots apart. */
    bls12_381_fp_neg(&w.y, &w.y);
    bls12_381_g1_jac_from_aff(&got, &w);
    bls12_381_g1_jac_from_aff(&p, &a);
    bls12_381_g1_jac_mul_vartime(&want, &p, U_SQ, 2);
    CHECK(!bls12_381_g1_jac_eq(&got, &want));
  }
  bls12_381_g1_aff inf, m;
  bls12_381_g1_aff_set_inf(&inf);
  bls12_381_g1_aff_mul_u2(&m, &inf);
  CHECK(bls12_381_g1_aff_is_inf(&m));
}

TEST(g2_psi_is_mul_by_u) {
  test_rng g = {test_stream_seed(32)};
  bls12_381_g2_jac q, want, got;
  for (int it = 0; it < 8; it++) {
    bls12_381_g2_aff a, s, s2, s3, s4, m;
    RAND_POINT(bls12_381_g2, &a, &q, &g, it);
    /* psi(Q) = [u]Q = -[|u|]Q */
    bls12_381_g2_jac_mul_vartime(&want, &q, U_ABS, 1);
    bls12_381_g2_jac_neg(&want, &want);
    bls12_381_g2_aff_psi(&s, &a);
    CHECK(bls12_381_g2_aff_is_on_curve(&s));
    bls12_381_g2_jac_from_aff(&got, &s);
    CHECK_MSG(bls12_381_g2_jac_eq(&got, &want), "G2 psi case %d", it);
    /* mul_u2 = [u^2]Q = psi^2(Q) */
    bls12_381_g2_jac_mul_vartime(&want, &q, U_SQ, 2);
    bls12_381_g2_aff_mul_u2(&m, &a);
    bls12_381_g2_jac_from_aff(&got, &m);
    CHECK_MSG(bls12_381_g2_jac_eq(&got, &want), "G2 mul_u2 case %d", it);
    bls12_381_g2_aff_psi(&s2, &s);
    CHECK(bls12_381_g2_aff_eq(&s2, &m));
    /* psi^4 - psi^2 + 1 = 0 */
    bls12_381_g2_aff_psi(&s3, &s2);
    bls12_381_g2_aff_psi(&s4, &s3);
    bls12_381_g2_jac_from_aff(&got, &s4);
    bls12_381_g2_aff_neg(&s2, &s2);
    bls12_381_g2_jac_add_aff(&got, &got, &s2);
    bls12_381_g2_jac_add_aff(&got, &got, &a);
    CHECK(bls12_381_g2_jac_is_inf(&got));
    bls12_381_g2_aff_psi(&a, &a); /* aliasing */
    CHECK(bls12_381_g2_aff_eq(&a, &s));
  }
  bls12_381_g2_aff inf, m;
  bls12_381_g2_aff_set_inf(&inf);
  bls12_381_g2_aff_psi(&m, &inf);
  CHECK(bls12_381_g2_aff_is_inf(&m));
  bls12_381_g2_aff_mul_u2(&m, &inf);
  CHECK(bls12_381_g2_aff_is_inf(&m));
}

/* The endomorphism subgroup tests against the [r]P reference, on points
 * in the subgroup ([k]G), on curve points found from small x (all but
 * certainly outside), on G-multiples plus a torsion point T = [r]R of the
 * cofactor part (outside whenever T != O: what a crafted point would be),
 * and on infinity. */
#define SUBGROUP_FAST_VS_REF(G, FP, SET_X, SQRT, seed)                                         \
  do {                                                                                       \
    test_rng g = {test_stream_seed(seed)};                                                   \
    G##_jac gen, a, t;                                                                       \
    G##_aff p, r, inf;                                                                       \
    memset(&inf, 0, sizeof inf);                                                             \
    CHECK(G##_aff_in_subgroup(&inf) && G##_aff_in_subgroup_ref(&inf));                       \
    G##_jac_from_aff(&gen, &G##_generator);                                                  \
    int inside = 0, outside = 0, torsion = 0;                                                \
    for (uint64_t x = 1; x < 400 && (outside < 12 || torsion < 12); x++) {                   \
      limb_t k[4] = {test_rng_next(&g), test_rng_next(&g), test_rng_next(&g), 0};            \
      G##_jac_mul_vartime(&a, &gen, k, 4);                                                   \
      G##_jac_to_aff(&p, &a);                                                                \
      CHECK(G##_aff_in_subgroup(&p) && G##_aff_in_subgroup_ref(&p));                         \
      inside++;                                                                              \
      FP rhs;                                                                                \
      SET_X(&r.x, x);                                                                        \
      FP##_sqr(&rhs, &r.x);                                                                  \
      FP##_mul(&rhs, &rhs, &r.x);                                                            \
      FP##_add(&rhs, &rhs, &G##_b);                                                          \
      if (!SQRT(&r.y, &rhs))                                                                 \
        continue;                                                                            \
      CHECK(G##_aff_is_on_curve(&r));                                                        \
      int ref = G##_aff_in_subgroup_ref(&r);                                                 \
      CHECK_MSG(G##_aff_in_subgroup(&r) == ref, "x = %llu: fast %d, ref %d",                 \
                (unsigned long long)x, !ref, ref);                                           \
      outside += !ref;                                                                       \
      /* T = [r]R: a point of the cofactor part; P + T */                                    \
      G##_jac_from_aff(&t, &r);                                                              \
      G##_jac_mul_vartime(&t, &t, bls12_381_fr_modulus, 4);                                  \
      if (G##_jac_is_inf(&t))                                                                \
        continue;                                                                            \
      G##_jac_add(&t, &t, &a);                                                               \
      G##_jac_to_aff(&p, &t);                                                                \
      CHECK(!G##_aff_in_subgroup_ref(&p));                                                   \
      CHECK_MSG(!G##_aff_in_subgroup(&p), "x = %llu: [k]G + [r]R taken for a subgroup point",  \
                (unsigned long long)x);                                                      \
      torsion++;                                                                             \
    }                                                                                        \
    CHECK(inside >= 12 && outside >= 12 && torsion >= 12);                                   \
  } while (0)

static void g1_set_x(bls12_381_fp *x, uint64_t v) { bls12_381_fp_set_u64(x, v); }
static void g2_set_x(bls12_381_fp2 *x, uint64_t v) {
  bls12_381_fp_set_u64(&x->c0, v);
  bls12_381_fp_set_u64(&x->c1, v / 3 + 1);
}

TEST(g1_subgroup_test_matches_reference) {
  SUBGROUP_FAST_VS_REF(bls12_381_g1, bls12_381_fp, g1_set_x, bls12_381_fp_sqrt, 41);
}
TEST(g2_subgroup_test_matches_reference) {
  SUBGROUP_FAST_VS_REF(bls12_381_g2, bls12_381_fp2, g2_set_x, bls12_381_fp2_sqrt, 42);
}
