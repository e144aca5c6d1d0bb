/* Fp2 = Fp[u]/(u^2 + 1) over BLS12-381 p and the lazy-reduction pieces
 * under it: mont384_fp2_mul (Karatsuba with two reductions in the x86-64
 * assembly), mont384_mul_wide and mont384_redc, against the portable
 * references of ff/mont_tmpl.h - which are themselves checked against
 * plainer formulas (the 4M schoolbook product, redc(a*b) = mont_mul(a, b)).  Fixed-seed random inputs, every
 * pair of named edge elements, inputs built to reach the bounds the
 * assembly relies on (mont_x86.c), aliasing, dependent chains, and the
 * bls12_381_fp2 wrappers.  On a build without the assembly the fast
 * routines are the references and the cross-checks still run. */
#include "harness.h"

#include "base/bytes.h"
#include "ff/bls12_381.h"
#include "ff/consts_bls12_381.h"
#include "ff/mont.h"

static const limb_t P[6] = BLS12_381_FP_P;
static const limb_t N0 = BLS12_381_FP_N0;

#define RANDOM_ITERS 200000

/* ---- inputs ---- */

static void rand_fp(limb_t r[6], test_rng *g) {
  do {
    for (int i = 0; i < 6; i++) r[i] = test_rng_next(g);
    r[5] &= (~(limb_t)0) >> 3; /* p < 2^381 */
  } while (!limbs_lt(r, P, 6));
}

/* Each limb 0, 1, all ones, p's limb, p's limb - 1 or random; kept if < p. */
static void rand_fp_extreme(limb_t r[6], test_rng *g) {
  do {
    for (int i = 0; i < 6; i++) {
      switch (test_rng_next(g) % 6) {
      case 0: r[i] = 0; break;
      case 1: r[i] = 1; break;
      case 2: r[i] = ~(limb_t)0; break;
      case 3: r[i] = P[i]; break;
      case 4: r[i] = P[i] - 1; break;
      default: r[i] = test_rng_next(g); break;
      }
    }
  } while (!limbs_lt(r, P, 6));
}

/* Named elements of Fp, all < p: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2,
 * R mod p (Montgomery one), 2^64 - 1, 2^320 - 1 (all-ones low limbs), the
 * top bit of p alone, and p with its top limb decremented over all-ones
 * limbs (the largest value below p with that prefix). */
#define N_EDGES 12
static void edges(limb_t e[N_EDGES][6]) {
  static const limb_t one_mont[6] = BLS12_381_FP_ONE;
  memset(e, 0, sizeof(limb_t) * N_EDGES * 6);
  e[1][0] = 1;
  e[2][0] = 2;
  memcpy(e[3], P, sizeof P);
  e[3][0] -= 1;
  memcpy(e[4], P, sizeof P);
  e[4][0] -= 2;
  for (int i = 0; i < 6; i++) e[5][i] = P[i] >> 1 | (i < 5 ? P[i + 1] << 63 : 0);
  memcpy(e[6], e[5], sizeof P);
  e[6][0] += 1; /* (p+1)/2: the low limb of (p-1)/2 is not all ones */
  memcpy(e[7], one_mont, sizeof P);
  e[8][0] = ~(limb_t)0;
  for (int i = 0; i < 5; i++) e[9][i] = ~(limb_t)0;
  e[10][5] = (limb_t)1 << 60; /* p's top limb is 0x1a01...: bit 380 */
  memcpy(e[11], P, sizeof P);
  e[11][5] -= 1;
  for (int i = 0; i < 5; i++) e[11][i] = ~(limb_t)0;
}

/* ---- plainer oracles for the references ---- */

/* Schoolbook Fp2: c0 = a0b0 - a1b1, c1 = a0b1 + a1b0 (4M). */
static void fp2_mul_schoolbook(limb_t r[12], const limb_t a[12], const limb_t b[12]) {
  limb_t t0[6], t1[6], t2[6], t3[6];
  mont384_mul_ref(t0, a, b, P, N0);
  mont384_mul_ref(t1, a + 6, b + 6, P, N0);
  mont384_mul_ref(t2, a, b + 6, P, N0);
  mont384_mul_ref(t3, a + 6, b, P, N0);
  mont384_sub_ref(r, t0, t1, P);
  mont384_add_ref(r + 6, t2, t3, P);
}

/* ---- checks ---- */

static void dump(const char *name, const limb_t *x, int n) {
  fprintf(stderr, "    %s:", name);
  for (int i = n - 1; i >= 0; i--) fprintf(stderr, " %016" PRIx64, x[i]);
  fprintf(stderr, "\n");
}

static void check_same(const char *op, const limb_t *got, const limb_t *want, int n,
                       const limb_t *a, const limb_t *b, int na) {
  if (memcmp(got, want, (size_t)n * sizeof(limb_t)) == 0) return;
  fprintf(stderr, "  %s mismatch\n", op);
  dump("a", a, na);
  if (b) dump("b", b, na);
  dump("got", got, n);
  dump("want", want, n);
  CHECK_EQ_MEM(got, want, (size_t)n * sizeof(limb_t));
}

static int reduced2(const limb_t x[12]) { return limbs_lt(x, P, 6) && limbs_lt(x + 6, P, 6); }

/* mul on one pair, fast against reference, every aliasing. */
static void check_fp2(const limb_t a[12], const limb_t b[12]) {
  limb_t want[12], got[12], x[12];
  mont384_fp2_mul_ref(want, a, b, P, N0);
  mont384_fp2_mul(got, a, b, P, N0);
  check_same("fp2 mul", got, want, 12, a, b, 12);
  CHECK(reduced2(got));
  memcpy(x, a, sizeof x);
  mont384_fp2_mul(x, x, b, P, N0);
  check_same("fp2 mul r=a", x, want, 12, a, b, 12);
  memcpy(x, b, sizeof x);
  mont384_fp2_mul(x, a, x, P, N0);
  check_same("fp2 mul r=b", x, want, 12, a, b, 12);

  mont384_fp2_mul_ref(want, a, a, P, N0);
  mont384_fp2_mul(got, a, a, P, N0);
  check_same("fp2 mul a=b", got, want, 12, a, NULL, 12);
  memcpy(x, a, sizeof x);
  mont384_fp2_mul(x, x, x, P, N0);
  check_same("fp2 mul r=a=b", x, want, 12, a, NULL, 12);
}

/* The lazy pieces on one pair of base elements: the wide product against
 * its reference and against mont_mul through redc. */
static void check_wide(const limb_t a[6], const limb_t b[6]) {
  limb_t want[12], got[12], r[6], m[6];
  mont384_mul_wide_ref(want, a, b);
  mont384_mul_wide(got, a, b);
  check_same("mul_wide", got, want, 12, a, b, 6);
  mont384_redc(r, got, P, N0);
  mont384_mul_ref(m, a, b, P, N0);
  check_same("redc(mul_wide) = mul", r, m, 6, a, b, 6);
  mont384_redc_ref(r, want, P, N0);
  check_same("redc_ref(mul_wide_ref) = mul_ref", r, m, 6, a, b, 6);
}

static void check_redc(const limb_t t[12]) {
  limb_t want[6], got[6];
  mont384_redc_ref(want, t, P, N0);
  mont384_redc(got, t, P, N0);
  check_same("redc", got, want, 6, t, NULL, 12);
  CHECK(limbs_lt(got, P, 6));
}

TEST(fp2_references_match_schoolbook) {
  test_rng g = {test_stream_seed(0xf2f2u)};
  for (int it = 0; it < 20000; it++) {
    limb_t a[12], b[12], want[12], got[12];
    rand_fp(a, &g);
    rand_fp(a + 6, &g);
    rand_fp(b, &g);
    rand_fp(b + 6, &g);
    fp2_mul_schoolbook(want, a, b);
    mont384_fp2_mul_ref(got, a, b, P, N0);
    check_same("fp2_mul_ref vs schoolbook", got, want, 12, a, b, 12);
    fp2_mul_schoolbook(want, a, a);
    mont384_fp2_mul_ref(got, a, a, P, N0);
    check_same("fp2_mul_ref(a, a) vs schoolbook", got, want, 12, a, NULL, 12);
  }
}

/* Every Fp2 element with both halves named edges, against every other:
 * 144^2 pairs. */
TEST(fp2_edge_elements_all_pairs) {
  limb_t e[N_EDGES][6];
  edges(e);
  for (int i = 0; i < N_EDGES; i++) CHECK(limbs_lt(e[i], P, 6));
  for (int i = 0; i < N_EDGES * N_EDGES; i++) {
    limb_t a[12];
    memcpy(a, e[i / N_EDGES], 48);
    memcpy(a + 6, e[i % N_EDGES], 48);
    for (int j = 0; j < N_EDGES * N_EDGES; j++) {
      limb_t b[12];
      memcpy(b, e[j / N_EDGES], 48);
      memcpy(b + 6, e[j % N_EDGES], 48);
      check_fp2(a, b);
    }
    check_wide(a, a + 6);
  }
}

/* Inputs that reach the bounds of mont_x86.c's lazy reduction:
 *  - c0's input a0b0 - a1b1 at -1 (the largest t after adding p R:
 *    p R - 1), at -(p-1)^2 (the most negative) and at (p-1)^2 - 0;
 *  - c1's a0b1 + a1b0 at its largest, 2 (p-1)^2, and the Karatsuba sums
 *    a0+a1, b0+b1 at 2p - 2;
 *  - redc on t = 0, p R - 1, and t_hi = p - 1 under every t_lo pattern. */
TEST(fp2_bounds) {
  limb_t z[6] = {0}, o[6] = {1}, pm1[6];
  memcpy(pm1, P, sizeof P);
  pm1[0] -= 1;
  const limb_t *cases[][4] = {
      {z, o, z, o},       /* a0b0 - a1b1 = 0 - 1 */
      {o, o, z, o},       /* b0 = 0 */
      {z, pm1, z, pm1},   /* -(p-1)^2 */
      {pm1, z, pm1, z},   /* (p-1)^2 */
      {pm1, pm1, pm1, pm1}, /* c1 = 2(p-1)^2, sums 2p-2 */
      {pm1, z, z, pm1},   /* c0 = 0, c1 = (p-1)^2 */
      {pm1, pm1, o, z},   /* a = b: c0 = 0, c1 = 2(p-1)^2 */
      {pm1, o, o, pm1},   /* a0b0 = a1b1: c0 = 0, c1 = (p-1)^2 + 1 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    limb_t a[12], b[12];
    memcpy(a, cases[k][0], 48);
    memcpy(a + 6, cases[k][1], 48);
    memcpy(b, cases[k][2], 48);
    memcpy(b + 6, cases[k][3], 48);
    check_fp2(a, b);
    check_fp2(b, a);
  }
  /* redc at the ends of its domain t < p R */
  limb_t t[12];
  memset(t, 0, sizeof t);
  check_redc(t);
  for (int i = 0; i < 6; i++) t[i] = ~(limb_t)0;
  memcpy(t + 6, pm1, sizeof pm1); /* p R - 1 */
  check_redc(t);
  test_rng g = {test_stream_seed(0x7ed0u)};
  for (int it = 0; it < 20000; it++) {
    for (int i = 0; i < 6; i++) {
      uint64_t s = test_rng_next(&g) % 3;
      t[i] = s == 0 ? 0 : s == 1 ? ~(limb_t)0 : test_rng_next(&g);
    }
    check_redc(t); /* t_hi = p - 1 */
  }
}

/* RANDOM_ITERS pairs, every half drawn by draw. */
static void random_pairs(uint64_t seed, void (*draw)(limb_t *, test_rng *)) {
  test_rng g = {test_stream_seed(seed)};
  for (int it = 0; it < RANDOM_ITERS; it++) {
    limb_t a[12], b[12];
    draw(a, &g);
    draw(a + 6, &g);
    draw(b, &g);
    draw(b + 6, &g);
    check_fp2(a, b);
  }
}
TEST(fp2_random_vs_ref) { random_pairs(0xf2a11u, rand_fp); }
TEST(fp2_random_extreme_limbs_vs_ref) { random_pairs(0xe47f2u, rand_fp_extreme); }

TEST(fp2_wide_and_redc_random_vs_ref) {
  test_rng g = {test_stream_seed(0x3c0du)};
  for (int it = 0; it < RANDOM_ITERS; it++) {
    limb_t a[6], b[6], t[12];
    if (it & 1) {
      rand_fp_extreme(a, &g);
      rand_fp_extreme(b, &g);
    } else {
      rand_fp(a, &g);
      rand_fp(b, &g);
    }
    check_wide(a, b);
    /* any t < p R: t_lo arbitrary, t_hi < p */
    for (int i = 0; i < 6; i++) t[i] = test_rng_next(&g);
    if (it & 1) rand_fp_extreme(t + 6, &g);
    else rand_fp(t + 6, &g);
    check_redc(t);
  }
}

/* x <- x*y and z <- z^2, fast and reference in lockstep. */
TEST(fp2_chains_vs_ref) {
  test_rng g = {test_stream_seed(0xc4a2u)};
  limb_t xf[12], xr[12], y[12], zf[12], zr[12];
  for (int i = 0; i < 2; i++) {
    rand_fp(xf + 6 * i, &g);
    rand_fp(y + 6 * i, &g);
    rand_fp(zf + 6 * i, &g);
  }
  memcpy(xr, xf, sizeof xr);
  memcpy(zr, zf, sizeof zr);
  for (int it = 0; it < 100000; it++) {
    mont384_fp2_mul(xf, xf, y, P, N0);
    mont384_fp2_mul_ref(xr, xr, y, P, N0);
    mont384_fp2_mul(zf, zf, zf, P, N0);
    mont384_fp2_mul_ref(zr, zr, zr, P, N0);
    if (memcmp(xf, xr, sizeof xf) || memcmp(zf, zr, sizeof zf))
      TEST_FAIL("chains diverge at step %d", it);
  }
}

/* The field-level wrappers (ff/fp2_tmpl.h through field_tmpl.h) pass the
 * whole element: compare with the limb-level reference, aliasing too; and
 * the squaring (2M over the base field) with the product. */
TEST(fp2_field_wrappers) {
  test_rng g = {test_stream_seed(0x31f2u)};
  for (int it = 0; it < 10000; it++) {
    bls12_381_fp2 a, b, r;
    limb_t want[12];
    rand_fp(a.c0.l, &g);
    rand_fp(a.c1.l, &g);
    rand_fp(b.c0.l, &g);
    rand_fp(b.c1.l, &g);
    limb_t al[12], bl[12];
    memcpy(al, a.c0.l, 48);
    memcpy(al + 6, a.c1.l, 48);
    memcpy(bl, b.c0.l, 48);
    memcpy(bl + 6, b.c1.l, 48);
    mont384_fp2_mul_ref(want, al, bl, P, N0);
    bls12_381_fp2_mul(&r, &a, &b);
    CHECK_EQ_MEM(r.c0.l, want, 48);
    CHECK_EQ_MEM(r.c1.l, want + 6, 48);
    bls12_381_fp2_mul(&a, &a, &b);
    CHECK_EQ_MEM(a.c0.l, want, 48);
    CHECK_EQ_MEM(a.c1.l, want + 6, 48);
    mont384_fp2_mul_ref(want, bl, bl, P, N0);
    bls12_381_fp2_sqr(&b, &b);
    CHECK_EQ_MEM(b.c0.l, want, 48);
    CHECK_EQ_MEM(b.c1.l, want + 6, 48);
  }
}
