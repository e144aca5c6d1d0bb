/* The four-lane AVX2 Montgomery arithmetic of ff/fp_x4.h against the
 * scalar 6-limb routines (mont384_mul, the mulx/adx assembly where built,
 * and mont384_mul_ref): every lane of every result, converted to a
 * canonical residue, must equal the scalar result exactly.  Fixed-seed
 * random inputs (tens of thousands of products), named edge cases in all
 * pairs, non-canonical representatives up to 2^384, signed loose limbs,
 * add/sub/reduce, the batch-affine addition chain, and a check that a
 * one-unit error in any lane is caught. */
#include "harness.h"

#include "base/bytes.h"
#include "ff/consts_bls12_381.h"
#include "ff/fp_x4.h"
#include "ff/mont.h"

#define RANDOM_VECS 20000 /* 4 lanes each */

static const limb_t P[6] = BLS12_381_FP_P;
static const limb_t ONE[6] = BLS12_381_FP_ONE;
static const limb_t N0 = BLS12_381_FP_N0;

static fp_x4_mod mod_get(void) {
  fp_x4_mod m;
  fp_x4_mod_init(&m, P, N0);
  return m;
}

static void rand_below_p(limb_t r[6], test_rng *g) {
  do {
    for (int i = 0; i < 6; i++) r[i] = test_rng_next(g);
    r[5] &= (UINT64_C(1) << 61) - 1; /* 381 bits */
  } while (!limbs_lt(r, P, 6));
}

/* r = a mod p for any 6-limb a (a < 2^384 < 11 p). */
static void reduce_mod_p(limb_t r[6], const limb_t a[6]) {
  memcpy(r, a, 6 * sizeof(limb_t));
  while (!limbs_lt(r, P, 6)) {
    unsigned __int128 b = 0;
    for (int i = 0; i < 6; i++) {
      unsigned __int128 d = (unsigned __int128)r[i] - P[i] - b;
      r[i] = (limb_t)d;
      b = (d >> 64) & 1;
    }
  }
}

static void load4(fp_x4 *r, limb_t v[4][6]) {
  const limb_t *pv[4] = {v[0], v[1], v[2], v[3]};
  fp_x4_from_mont(r, pv);
}

/* Whether lane j of x is the residue want (canonical); prints on mismatch
 * when loud. */
static bool lane_is(const fp_x4 *x, unsigned j, const limb_t want[6], const fp_x4_mod *m,
                    const char *what, bool loud) {
  limb_t got[6];
  fp_x4_lane_to_mont(got, x, j, m);
  if (memcmp(got, want, sizeof got) == 0)
    return true;
  if (loud) {
    fprintf(stderr, "  %s, lane %u:\n    got  ", what, j);
    for (int i = 5; i >= 0; i--) fprintf(stderr, "%016" PRIx64, got[i]);
    fprintf(stderr, "\n    want ");
    for (int i = 5; i >= 0; i--) fprintf(stderr, "%016" PRIx64, want[i]);
    fprintf(stderr, "\n");
  }
  return false;
}

/* Fails unless each lane j of x is want[j]. */
static void check4(const fp_x4 *x, limb_t want[4][6], const fp_x4_mod *m, const char *what,
                   long iter) {
  for (unsigned j = 0; j < 4; j++)
    if (!lane_is(x, j, want[j], m, what, true))
      TEST_FAIL("%s differs from the scalar result (case %ld)", what, iter);
}

/* Both products of the lanes: the vector mul and sqr (and the reference)
 * against mont384_mul and mont384_mul_ref on the residues. */
static void check_products(fp_x4 *a, fp_x4 *b, limb_t ra[4][6], limb_t rb[4][6],
                           const fp_x4_mod *m, long iter) {
  limb_t want[4][6], want_sq[4][6], want_ref[4][6];
  for (int j = 0; j < 4; j++) {
    mont384_mul(want[j], ra[j], rb[j], P, N0);
    mont384_mul_ref(want_ref[j], ra[j], rb[j], P, N0);
    CHECK_EQ_MEM(want[j], want_ref[j], sizeof want[j]);
    mont384_sqr(want_sq[j], ra[j], P, N0);
  }
  fp_x4 r;
  fp_x4_mul(&r, a, b, m);
  check4(&r, want, m, "mul", iter);
  fp_x4_sqr(&r, a, m);
  check4(&r, want_sq, m, "sqr", iter);
  fp_x4_mul_ref(&r, a, b, m);
  check4(&r, want, m, "mul_ref", iter);
  /* aliasing: r = a */
  fp_x4 t = *a;
  fp_x4_mul(&t, &t, b, m);
  check4(&t, want, m, "mul (aliased)", iter);
}

TEST(fp_x4_reports_path) {
  printf("  fp_x4: %s\n", fp_x4_accelerated() ? "AVX2 + FMA" : "portable references");
}

TEST(fp_x4_roundtrip) {
  fp_x4_mod m = mod_get();
  test_rng g = {1};
  for (long it = 0; it < RANDOM_VECS; it++) {
    limb_t v[4][6];
    for (int j = 0; j < 4; j++) rand_below_p(v[j], &g);
    fp_x4 x;
    load4(&x, v);
    for (int k = 0; k < 8; k++)
      for (int j = 0; j < 4; j++)
        CHECK(x.l[k][j] >= 0 && x.l[k][j] < 0x1p48 && x.l[k][j] == (double)(int64_t)x.l[k][j]);
    limb_t back[4][6];
    limb_t *pb[4] = {back[0], back[1], back[2], back[3]};
    fp_x4_to_mont(pb, &x, &m);
    CHECK_EQ_MEM(back, v, sizeof v);
    fp_x4 y;
    for (unsigned j = 0; j < 4; j++) fp_x4_lane_from_mont(&y, j, v[j]);
    CHECK_EQ_MEM(&x, &y, sizeof x);
  }
}

TEST(fp_x4_mul_random_vs_scalar) {
  fp_x4_mod m = mod_get();
  test_rng g = {2};
  for (long it = 0; it < RANDOM_VECS; it++) {
    limb_t va[4][6], vb[4][6];
    for (int j = 0; j < 4; j++) {
      rand_below_p(va[j], &g);
      rand_below_p(vb[j], &g);
    }
    fp_x4 a, b;
    load4(&a, va);
    load4(&b, vb);
    check_products(&a, &b, va, vb, &m, it);
  }
}

/* Named values: canonical ones (0, 1, 2, p-1, p-2, (p-1)/2, R mod p,
 * 2^380, 2^381 - 1 mod p, all limbs 2^48 - 1 below 2^381 mod p) and
 * representatives that are not reduced but below 2^384 (p, p + 1, 2p - 1,
 * 2^381 - 1, 2^383, 2^384 - 1), all against the scalar result on their
 * residues mod p. */
#define NEDGE 16
static void edges(limb_t e[NEDGE][6]) {
  memset(e, 0, NEDGE * 6 * sizeof(limb_t));
  e[1][0] = 1;
  e[2][0] = 2;
  memcpy(e[3], P, sizeof e[3]);
  e[3][0] -= 1;
  memcpy(e[4], P, sizeof e[4]);
  e[4][0] -= 2;
  memcpy(e[5], e[3], sizeof e[5]);
  for (int i = 0; i < 6; i++) e[5][i] = e[5][i] >> 1 | (i < 5 ? e[5][i + 1] << 63 : 0);
  memcpy(e[6], ONE, sizeof e[6]);
  e[7][5] = UINT64_C(1) << 60; /* 2^380 < p */
  for (int i = 0; i < 6; i++) e[8][i] = ~(limb_t)0;
  e[8][5] >>= 3; /* 2^381 - 1 */
  memcpy(e[12], e[8], sizeof e[12]); /* kept unreduced below */
  reduce_mod_p(e[8], e[8]);
  for (int i = 0; i < 6; i++) e[9][i] = 0xffffffffffffULL * 0x1000100010001ULL; /* ones */
  e[9][5] >>= 3;
  reduce_mod_p(e[9], e[9]);
  memcpy(e[10], P, sizeof e[10]); /* p */
  memcpy(e[11], P, sizeof e[11]); /* p + 1 */
  e[11][0] += 1;
  /* e[12] = 2^381 - 1 */
  e[13][5] = UINT64_C(1) << 63; /* 2^383 */
  for (int i = 0; i < 6; i++) e[14][i] = ~(limb_t)0; /* 2^384 - 1 */
  unsigned __int128 c = 0; /* 2p - 1 */
  for (int i = 0; i < 6; i++) {
    c += (unsigned __int128)P[i] * 2;
    e[15][i] = (limb_t)c;
    c >>= 64;
  }
  e[15][0] -= 1;
}

TEST(fp_x4_edge_cases_all_pairs) {
  fp_x4_mod m = mod_get();
  limb_t e[NEDGE][6], r[NEDGE][6];
  edges(e);
  for (int i = 0; i < NEDGE; i++) reduce_mod_p(r[i], e[i]);
  /* all NEDGE^2 ordered pairs, four to a vector */
  long it = 0;
  for (int ij = 0; ij < NEDGE * NEDGE; ij += 4, it++) {
    limb_t va[4][6], vb[4][6], ra[4][6], rb[4][6];
    for (int j = 0; j < 4; j++) {
      int x = (ij + j) / NEDGE, y = (ij + j) % NEDGE;
      memcpy(va[j], e[x], sizeof va[j]);
      memcpy(vb[j], e[y], sizeof vb[j]);
      memcpy(ra[j], r[x], sizeof ra[j]);
      memcpy(rb[j], r[y], sizeof rb[j]);
    }
    fp_x4 a, b;
    load4(&a, va);
    load4(&b, vb);
    check_products(&a, &b, ra, rb, &m, it);
  }
}

TEST(fp_x4_unreduced_inputs_vs_scalar) {
  fp_x4_mod m = mod_get();
  test_rng g = {3};
  for (long it = 0; it < RANDOM_VECS / 2; it++) {
    limb_t va[4][6], vb[4][6], ra[4][6], rb[4][6];
    for (int j = 0; j < 4; j++) {
      for (int i = 0; i < 6; i++) {
        va[j][i] = test_rng_next(&g);
        vb[j][i] = test_rng_next(&g);
      }
      reduce_mod_p(ra[j], va[j]);
      reduce_mod_p(rb[j], vb[j]);
    }
    fp_x4 a, b;
    load4(&a, va);
    load4(&b, vb);
    check_products(&a, &b, ra, rb, &m, it);
  }
}

/* Limbs of either sign up to 2^49 - 1 in magnitude (what add/sub leave),
 * the top limb below 2^46: the residue computed exactly by to_mont. */
TEST(fp_x4_signed_loose_limbs_vs_scalar) {
  fp_x4_mod m = mod_get();
  test_rng g = {4};
  for (long it = 0; it < RANDOM_VECS / 2; it++) {
    fp_x4 a, b;
    for (int k = 0; k < 8; k++)
      for (int j = 0; j < 4; j++) {
        int bits = k < 7 ? 50 : 47;
        int64_t u = (int64_t)(test_rng_next(&g) >> (64 - bits)) - ((int64_t)1 << (bits - 1));
        int64_t v = (int64_t)(test_rng_next(&g) >> (64 - bits)) - ((int64_t)1 << (bits - 1));
        if (it < 16) { /* the extremes */
          u = (it & 1 ? 1 : -1) * (((int64_t)1 << (bits - 1)) - 1);
          v = (it & 2 ? 1 : -1) * (((int64_t)1 << (bits - 1)) - 1);
        }
        a.l[k][j] = (double)u;
        b.l[k][j] = (double)v;
      }
    limb_t ra[4][6], rb[4][6];
    for (unsigned j = 0; j < 4; j++) {
      fp_x4_lane_to_mont(ra[j], &a, j, &m);
      fp_x4_lane_to_mont(rb[j], &b, j, &m);
    }
    check_products(&a, &b, ra, rb, &m, it);
  }
}

TEST(fp_x4_mul2_matches_mul) {
  fp_x4_mod m = mod_get();
  test_rng g = {5};
  for (long it = 0; it < RANDOM_VECS / 4; it++) {
    limb_t v[4][4][6];
    for (int s = 0; s < 4; s++)
      for (int j = 0; j < 4; j++) rand_below_p(v[s][j], &g);
    fp_x4 a0, b0, a1, b1, r0, r1, w0, w1;
    load4(&a0, v[0]);
    load4(&b0, v[1]);
    load4(&a1, v[2]);
    load4(&b1, v[3]);
    fp_x4_mul2(&r0, &a0, &b0, &r1, &a1, &b1, &m);
    fp_x4_mul(&w0, &a0, &b0, &m);
    fp_x4_mul(&w1, &a1, &b1, &m);
    CHECK_EQ_MEM(&r0, &w0, sizeof r0);
    CHECK_EQ_MEM(&r1, &w1, sizeof r1);
  }
}

/* The hybrid: the vector lanes as fp_x4_mul, each scalar product as
 * mont384_mul, for every k from 0 to 9 (interleaved or not), with the
 * edge values mixed into the scalar operands. */
TEST(fp_x4_mul_hyb_vs_scalar) {
  fp_x4_mod m = mod_get();
  test_rng g = {9};
  limb_t e[NEDGE][6];
  edges(e);
  printf("  hybrid interleaved: %s\n", fp_x4_hyb_native() ? "yes" : "no (sequential)");
  for (long it = 0; it < RANDOM_VECS / 4; it++) {
    int k = (int)(it % 10);
    limb_t va[4][6], vb[4][6], sa[9][6], sb[9][6], sr[9][6], want[9][6];
    limb_t *rs[9];
    const limb_t *as[9], *bs[9];
    for (int j = 0; j < 4; j++) {
      rand_below_p(va[j], &g);
      rand_below_p(vb[j], &g);
    }
    for (int i = 0; i < k; i++) {
      rand_below_p(sa[i], &g);
      rand_below_p(sb[i], &g);
      if (it % 7 == 0) /* canonical edge values */
        reduce_mod_p(sa[i], e[(it / 7 + (unsigned)i) % NEDGE]);
      mont384_mul(want[i], sa[i], sb[i], P, N0);
      rs[i] = sr[i];
      as[i] = sa[i];
      bs[i] = sb[i];
    }
    if (k > 1 && it % 3 == 0) { /* an output aliasing its own input */
      rs[1] = sa[1];
      as[1] = sa[1];
    }
    fp_x4 a, b, r, w;
    load4(&a, va);
    load4(&b, vb);
    fp_x4_mul_hyb(&r, &a, &b, k, rs, as, bs, &m);
    fp_x4_mul(&w, &a, &b, &m);
    CHECK_EQ_MEM(&r, &w, sizeof r);
    for (int i = 0; i < k; i++)
      CHECK_MSG(memcmp(rs[i], want[i], sizeof want[i]) == 0,
                "hyb scalar product %d of %d differs (case %ld)", i, k, it);
  }
}

TEST(fp_x4_add_sub_reduce_vs_scalar) {
  fp_x4_mod m = mod_get();
  test_rng g = {6};
  for (long it = 0; it < RANDOM_VECS; it++) {
    limb_t va[4][6], vb[4][6], sum[4][6], dif[4][6];
    for (int j = 0; j < 4; j++) {
      rand_below_p(va[j], &g);
      rand_below_p(vb[j], &g);
      mont384_add(sum[j], va[j], vb[j], P);
      mont384_sub(dif[j], va[j], vb[j], P);
    }
    fp_x4 a, b, r, t;
    load4(&a, va);
    load4(&b, vb);
    fp_x4_add(&r, &a, &b);
    check4(&r, sum, &m, "add", it);
    fp_x4_sub(&r, &a, &b);
    check4(&r, dif, &m, "sub", it);
    /* reduce: same residue, |limbs| <= 2^47 + 32, |value| < 0.51 p, from
     * a - b - b - b + a (limbs up to 5 * 2^48) */
    fp_x4_sub(&t, &a, &b);
    fp_x4_sub(&t, &t, &b);
    fp_x4_sub(&t, &t, &b);
    fp_x4_add(&t, &t, &a);
    limb_t want[4][6];
    for (int j = 0; j < 4; j++) {
      mont384_sub(want[j], va[j], vb[j], P);
      mont384_sub(want[j], want[j], vb[j], P);
      mont384_sub(want[j], want[j], vb[j], P);
      mont384_add(want[j], want[j], va[j], P);
    }
    fp_x4_reduce(&r, &t, &m);
    check4(&r, want, &m, "reduce", it);
    for (int j = 0; j < 4; j++) {
      double v = 0;
      for (int k = 7; k >= 0; k--) {
        CHECK(r.l[k][j] <= 0x1p47 + 32 && r.l[k][j] >= -0x1p47 - 32);
        v = v * 0x1p48 + r.l[k][j];
      }
      CHECK(v < 0.51 * m.pd && v > -0.51 * m.pd);
    }
  }
}

/* Batch-affine addition chains kept in vector form, as an MSM bucket would
 * be: (x1, y1) <- (x1, y1) + (x2, y2) with the formula's operations (the
 * "points" are random field elements: the formula is field arithmetic),
 * inverse from the scalar side, results reduced as fp_x4.h suggests;
 * compared with the scalar computation at every step. */
TEST(fp_x4_affine_chain_vs_scalar) {
  fp_x4_mod m = mod_get();
  test_rng g = {7};
  static const limb_t pm2[6] = BLS12_381_FP_PM2;
  limb_t sx[4][6], sy[4][6];
  for (int j = 0; j < 4; j++) {
    rand_below_p(sx[j], &g);
    rand_below_p(sy[j], &g);
  }
  fp_x4 x1, y1;
  load4(&x1, sx);
  load4(&y1, sy);
  for (long it = 0; it < 2000; it++) {
    limb_t qx[4][6], qy[4][6], inv[4][6];
    for (int j = 0; j < 4; j++) {
      rand_below_p(qx[j], &g);
      rand_below_p(qy[j], &g);
    }
    fp_x4 x2, y2, den, l, t, x3;
    load4(&x2, qx);
    load4(&y2, qy);
    fp_x4_sub(&den, &x2, &x1);
    for (int j = 0; j < 4; j++) { /* scalar: inv = den^(p-2) */
      limb_t d[6];
      mont384_sub(d, qx[j], sx[j], P);
      memcpy(inv[j], ONE, sizeof inv[j]);
      for (int i = 5; i >= 0; i--)
        for (int bit = 63; bit >= 0; bit--) {
          mont384_sqr(inv[j], inv[j], P, N0);
          if (pm2[i] >> bit & 1)
            mont384_mul(inv[j], inv[j], d, P, N0);
        }
    }
    fp_x4 vinv;
    /* the vector den must be the scalar one */
    limb_t dd[4][6];
    for (int j = 0; j < 4; j++) mont384_sub(dd[j], qx[j], sx[j], P);
    check4(&den, dd, &m, "den", it);
    load4(&vinv, inv);
    fp_x4_sub(&t, &y2, &y1);
    fp_x4_mul(&l, &t, &vinv, &m);  /* l = (y2 - y1) / (x2 - x1) */
    fp_x4_sqr(&x3, &l, &m);        /* x3 = l^2 - x1 - x2 */
    fp_x4_sub(&x3, &x3, &x1);
    fp_x4_sub(&x3, &x3, &x2);
    fp_x4_reduce(&x3, &x3, &m);
    fp_x4_sub(&t, &x1, &x3);       /* y3 = l (x1 - x3) - y1 */
    fp_x4_mul(&t, &l, &t, &m);
    fp_x4_sub(&y1, &t, &y1);
    fp_x4_reduce(&y1, &y1, &m);
    x1 = x3;
    for (int j = 0; j < 4; j++) {
      limb_t sl[6], tt[6], x3s[6];
      mont384_sub(tt, qy[j], sy[j], P);
      mont384_mul(sl, tt, inv[j], P, N0);
      mont384_sqr(x3s, sl, P, N0);
      mont384_sub(x3s, x3s, sx[j], P);
      mont384_sub(x3s, x3s, qx[j], P);
      mont384_sub(tt, sx[j], x3s, P);
      mont384_mul(tt, sl, tt, P, N0);
      mont384_sub(sy[j], tt, sy[j], P);
      memcpy(sx[j], x3s, sizeof x3s);
    }
    check4(&x1, sx, &m, "chain x", it);
    check4(&y1, sy, &m, "chain y", it);
  }
}

/* The comparison is not vacuous: a result one unit off in any limb of any
 * lane, or one lane swapped, is reported. */
TEST(fp_x4_check_detects_errors) {
  fp_x4_mod m = mod_get();
  test_rng g = {8};
  limb_t va[4][6], vb[4][6], want[4][6];
  for (int j = 0; j < 4; j++) {
    rand_below_p(va[j], &g);
    rand_below_p(vb[j], &g);
    mont384_mul(want[j], va[j], vb[j], P, N0);
  }
  fp_x4 a, b, r;
  load4(&a, va);
  load4(&b, vb);
  fp_x4_mul(&r, &a, &b, &m);
  for (unsigned j = 0; j < 4; j++) CHECK(lane_is(&r, j, want[j], &m, "", false));
  for (int k = 0; k < 8; k++)
    for (unsigned j = 0; j < 4; j++) {
      fp_x4 bad = r;
      bad.l[k][j] += 1;
      CHECK(!lane_is(&bad, j, want[j], &m, "", false));
    }
  CHECK(!lane_is(&r, 0, want[1], &m, "", false));
}
