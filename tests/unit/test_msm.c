/* MSM: the Pippenger paths (XYZZ and batch-affine, every split, with and
 * without the endomorphism split into 2 or 4 parts) against the
 * double-and-add reference over fixed-seed random inputs, every n from 1 to
 * 64, larger random n, and the named edge cases; plus the recoding, the
 * scalar split, the batch-affine helpers and the input generator on their
 * own. */
#include "harness.h"

#include <math.h>

#include "ec/ec_batch.h"
#include "msm/msm.h"
#include "msm/msm_internal.h"
#include "test_msm_plans.h"

/* ---- scalars ---- */

static const limb_t R[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                            0x73eda753299d7d48ULL};

static void put_limbs(uint8_t *p, const limb_t *s) { limbs_to_le(p, s, 4); }

/* Uniform below r (rejection from 255 bits). */
static void rand_scalar(uint8_t *p, test_rng *g) {
  limb_t s[4];
  do {
    for (int i = 0; i < 4; i++) s[i] = test_rng_next(g);
    s[3] &= 0x7fffffffffffffffULL;
  } while (!limbs_lt(s, R, 4));
  put_limbs(p, s);
}

static void rand_scalars(uint8_t *p, size_t n, test_rng *g) {
  for (size_t i = 0; i < n; i++) rand_scalar(p + 32 * i, g);
}

/* r + delta, |delta| small. */
static void scalar_r_plus(uint8_t *p, int64_t delta) {
  limb_t s[4], d[4] = {(limb_t)(delta < 0 ? -delta : delta)};
  if (delta < 0) {
    msm_sub4(s, R, d);
  } else {
    limb_t carry = 0;
    for (int i = 0; i < 4; i++) {
      unsigned __int128 v = (unsigned __int128)R[i] + d[i] + carry;
      s[i] = (limb_t)v;
      carry = (limb_t)(v >> 64);
    }
  }
  put_limbs(p, s);
}

static void scalar_u64(uint8_t *p, uint64_t v) {
  limb_t s[4] = {v};
  put_limbs(p, s);
}

/* ---- the two groups behind one interface ---- */

typedef struct {
  const char *name;
  size_t aff;
  unsigned endo_max; /* MSM_G1_ENDO_MAX / MSM_G2_ENDO_MAX */
  cuzk_status (*fast)(void *o, const void *b, const void *s, size_t n, unsigned t);
  cuzk_status (*run)(void *o, const void *b, const void *s, size_t n, const msm_plan *p,
                     msm_stats *st);
  cuzk_status (*naive)(void *o, const void *b, const void *s, size_t n, unsigned t);
  cuzk_status (*gen)(void *o, size_t n, uint64_t seed, unsigned t);
  int (*eq)(const void *a, const void *b);
  int (*is_inf)(const void *a);
  void (*aff_neg)(void *r, const void *a);
  int (*in_subgroup)(const void *a);
} grp;

#define GROUP(G, g)                                                                              \
  static cuzk_status g##_fast(void *o, const void *b, const void *s, size_t n, unsigned t) {     \
    return msm_##g(o, b, s, n, t, NULL);                                                         \
  }                                                                                              \
  static cuzk_status g##_run(void *o, const void *b, const void *s, size_t n, const msm_plan *p, \
                             msm_stats *st) {                                                    \
    return msm_##g##_run(o, b, s, n, p, NULL, st, NULL);                                         \
  }                                                                                              \
  static cuzk_status g##_naive(void *o, const void *b, const void *s, size_t n, unsigned t) {    \
    return msm_##g##_naive(o, b, s, n, t, NULL);                                                 \
  }                                                                                              \
  static cuzk_status g##_gen(void *o, size_t n, uint64_t seed, unsigned t) {                     \
    return msm_##g##_gen_bases(o, n, seed, t, NULL);                                             \
  }                                                                                              \
  static int g##_eq(const void *a, const void *b) { return G##_jac_eq(a, b); }                   \
  static int g##_is_inf(const void *a) { return G##_jac_is_inf(a); }                            \
  static void g##_aff_neg(void *r, const void *a) { G##_aff_neg(r, a); }                         \
  static int g##_in_subgroup(const void *a) { return G##_aff_in_subgroup(a); }                   \
  static const grp g##_grp = {#g,         sizeof(G##_aff), E,           g##_fast,   g##_run,     \
                              g##_naive,  g##_gen,         g##_eq,      g##_is_inf, g##_aff_neg, \
                              g##_in_subgroup};
#define E MSM_G1_ENDO_MAX
GROUP(bls12_381_g1, g1)
#undef E
#define E MSM_G2_ENDO_MAX
GROUP(bls12_381_g2, g2)
#undef E

/* Large enough for a G2 Jacobian point. */
typedef struct {
  uint8_t b[sizeof(bls12_381_g2_jac)];
} pt;

/* The plans every case is run under, besides the default for 1, 2, 3
 * threads: XYZZ and batch-affine, tiny chunks (many chunks, deep trees),
 * several splits, odd window sizes; c = 1, 3, 5 have c * nwin = 255, the
 * tightest the r - s fold allows.  Tiny chunks pay an inversion per tree
 * round and c = 1 has 255 windows, so those run for small n only; large c
 * costs a 2^(c-1)-bucket reduction per window whatever n is, so it runs in
 * random_n only.  The same with the endomorphism split (endo 2 on both
 * groups, 4 on G2): c = 1, 8 have c * nwin = 128 (endo 2) and c = 8 has
 * c * nwin = 64 (endo 4), the tightest msm_split's bounds allow; chunks of
 * 3 and 7 cut a point's parts apart. */
typedef struct {
  unsigned c, nsplit, threads, chunk;
  size_t nmin, nmax; /* run for nmin <= n <= nmax */
  unsigned endo;
} forced_plan;
static const forced_plan forced_plans[] = {
    {1, 1, 1, 0, 0, 64, 1},            /* c = 1: 255 windows of one bucket */
    {4, 2, 2, 0, 0, SIZE_MAX, 1},      /* XYZZ, 2 splits */
    {2, 1, 1, 3, 0, 40, 1},            /* batch-affine, chunks of 3 */
    {5, 3, 2, 7, 0, 40, 1},            /* batch-affine, 3 splits, chunks of 7 */
    {5, 3, 2, 100, 0, SIZE_MAX, 1},    /* the same, chunks of 100 */
    {3, 1, 3, 64, 0, SIZE_MAX, 1},     /* batch-affine, deep trees */
    {8, 2, 2, 50, 0, SIZE_MAX, 1},     /* larger window, two splits */
    {13, 2, 2, 256, 100, SIZE_MAX, 1}, /* 4096 buckets: the batch-affine reduction's chains
                                          (empty buckets, equal running sums) */
    {1, 1, 1, 0, 0, 64, 2},            /* endo 2: c = 1, 128 windows */
    {4, 2, 2, 0, 0, SIZE_MAX, 4},      /* endo 4, XYZZ, 2 splits */
    {2, 1, 1, 3, 0, 40, 2},            /* endo 2, chunks of 3 */
    {5, 3, 2, 7, 0, 40, 4},            /* endo 4, 3 splits, chunks of 7 */
    {8, 2, 2, 50, 0, SIZE_MAX, 2},     /* endo 2, c * nwin = 128 */
    {8, 1, 3, 100, 0, SIZE_MAX, 4},    /* endo 4, c * nwin = 64 */
    {3, 1, 3, 64, 0, SIZE_MAX, 4},     /* endo 4, deep trees */
    {13, 2, 2, 256, 100, SIZE_MAX, 2}, /* endo 2, the reduction's chains */
    {13, 1, 2, 256, 100, SIZE_MAX, 4}  /* endo 4, the same */
};

/* Checks every path against the reference for one input. */
static void check_all(const grp *G, const void *bases, const void *sc, size_t n, const char *what) {
  pt want, got;
  CHECK(G->naive(&want, bases, sc, n, 2) == CUZK_OK);
  for (unsigned t = 1; t <= 3; t++) {
    CHECK(G->fast(&got, bases, sc, n, t) == CUZK_OK);
    CHECK_MSG(G->eq(&got, &want), "%s %s n=%zu threads=%u: default plan differs from naive",
              G->name, what, n, t);
  }
  for (size_t i = 0; i < sizeof forced_plans / sizeof forced_plans[0]; i++) {
    const forced_plan *f = &forced_plans[i];
    if (n < f->nmin || n > f->nmax || f->endo > G->endo_max)
      continue;
    msm_plan p = msm_plan_make_endo(f->c, f->nsplit, f->threads, f->chunk, f->endo);
    CHECK(G->run(&got, bases, sc, n, &p, NULL) == CUZK_OK);
    CHECK_MSG(G->eq(&got, &want), "%s %s n=%zu: plan c=%u nsplit=%u chunk=%u endo=%u differs",
              G->name, what, n, p.c, p.nsplit, p.chunk, p.endo);
  }
}

static uint8_t *gen_bases(const grp *G, size_t n, uint64_t seed) {
  uint8_t *b = malloc(n * G->aff + 1);
  CHECK(b);
  CHECK(G->gen(b, n, test_stream_seed(seed), 2) == CUZK_OK);
  return b;
}

/* ---- the recoding ---- */

static void check_digits(const msm_geo *g, unsigned nl, const limb_t *s);

/* The fold: s <= (r-1)/2 and s = +-(the input mod r); then its digits
 * (check_digits), whose sum sum_w d_w 2^(cw) equals s. */
static void check_recode(const uint8_t *p, unsigned c) {
  limb_t s[4], in[4], back[4];
  unsigned neg = msm_scalar_load(s, p);
  CHECK(!limbs_lt(msm_half_r, s, 4));
  limbs_from_le(in, p, 4);
  while (!limbs_lt(in, R, 4)) msm_sub4(in, in, R);
  if (neg)
    msm_sub4(back, R, s);
  else
    memcpy(back, s, sizeof back);
  CHECK_EQ_MEM(back, in, sizeof in);
  /* the plan's uniform c-bit windows: each digit against the reference,
   * and their sum is s */
  const msm_geo g = msm_geo_uniform(c, MSM_REC_BITS);
  CHECK_EQ_INT(g.nwin, msm_plan_make(c, 1, 1, 0).nwin);
  check_digits(&g, 4, s);
}

TEST(recode_signed_digits) {
  test_rng g = {test_stream_seed(11)};
  uint8_t sc[32];
  for (unsigned c = 1; c <= MSM_MAX_C; c++) {
    for (int i = 0; i < 200; i++) {
      rand_scalar(sc, &g);
      check_recode(sc, c);
    }
    int64_t deltas[] = {-1, 0, 1, 5};
    for (size_t i = 0; i < 4; i++) {
      scalar_r_plus(sc, deltas[i]);
      check_recode(sc, c);
    }
    memset(sc, 0xff, 32); /* 2^256 - 1: reduced twice */
    check_recode(sc, c);
    scalar_u64(sc, 0);
    check_recode(sc, c);
    put_limbs(sc, msm_half_r); /* (r-1)/2: not folded */
    check_recode(sc, c);
  }
}

/* ---- the endomorphism split ---- */

/* x = the 4-limb value v mod r as an Fr element (v < 2^256). */
static void fr_of(bls12_381_fr *x, const limb_t v[4]) {
  limb_t t[4] = {v[0], v[1], v[2], v[3]};
  while (!limbs_lt(t, R, 4)) msm_sub4(t, t, R);
  bls12_381_fr_from_canon(x, t);
}

/* Scalars where the split changes behaviour, as Fr elements (so mod r):
 * 0, 1, 2, r-1, r-2, (r-1)/2, (r+1)/2, lambda = u^2 - 1 and its +-1, u^2/2
 * and +-1 (the K = 2 balance boundary), |u|/2 and +-1 (the K = 4 one),
 * |u|^k +- 1 and u^k (k = 1..3), all-digits |u|/2 + 1 (carry chains),
 * all-digits |u| - 1, and sums of those. */
static size_t split_edges(limb_t out[][4]) {
  bls12_381_fr one, u, au, b, half_b, half_u, t, x[64];
  size_t k = 0;
  bls12_381_fr_set_u64(&one, 1);
  bls12_381_fr_set_u64(&au, BLS12_381_X);
  bls12_381_fr_neg(&u, &au);                                   /* u = -|u| */
  bls12_381_fr_mul(&b, &au, &au);                              /* u^2 */
  bls12_381_fr_set_u64(&half_u, BLS12_381_X / 2);
  limb_t hb[4] = {(limb_t)(((unsigned __int128)BLS12_381_X * BLS12_381_X / 2)),
                  (limb_t)(((unsigned __int128)BLS12_381_X * BLS12_381_X / 2) >> 64)};
  bls12_381_fr_from_canon(&half_b, hb);                        /* u^2 / 2 */
  bls12_381_fr_set_u64(&x[k++], 0);
  x[k++] = one;
  bls12_381_fr_set_u64(&x[k++], 2);
  bls12_381_fr_neg(&x[k++], &one);                             /* r - 1 */
  bls12_381_fr_sub(&x[k], &x[k - 1], &one), k++;               /* r - 2 */
  limb_t h[4] = {msm_half_r[0], msm_half_r[1], msm_half_r[2], msm_half_r[3]};
  bls12_381_fr_from_canon(&x[k++], h);                         /* (r-1)/2 */
  bls12_381_fr_add(&x[k], &x[k - 1], &one), k++;               /* (r+1)/2 */
  const bls12_381_fr *centers[] = {&b, &half_b, &half_u, &au};
  for (size_t i = 0; i < 4; i++)
    for (int d = -2; d <= 1; d++) { /* center - 2 .. center + 1: lambda = u^2 - 1 among them */
      bls12_381_fr_set_u64(&t, (uint64_t)(d < 0 ? -d : d));
      if (d < 0)
        bls12_381_fr_sub(&x[k++], centers[i], &t);
      else
        bls12_381_fr_add(&x[k++], centers[i], &t);
    }
  bls12_381_fr p = one, q = one;
  for (int e = 1; e <= 3; e++) {
    bls12_381_fr_mul(&p, &p, &au);
    bls12_381_fr_mul(&q, &q, &u);
    x[k++] = p;                                                /* |u|^e */
    bls12_381_fr_add(&x[k++], &p, &one);
    bls12_381_fr_sub(&x[k++], &p, &one);
    x[k++] = q;                                                /* u^e mod r */
  }
  /* sum_j D |u|^j for the digit D = |u|/2 + 1 and D = |u| - 1 */
  uint64_t ds[2] = {BLS12_381_X / 2 + 1, BLS12_381_X - 1};
  for (size_t i = 0; i < 2; i++) {
    bls12_381_fr acc, d, pw = one;
    bls12_381_fr_set_u64(&acc, 0);
    bls12_381_fr_set_u64(&d, ds[i]);
    for (int j = 0; j < 4; j++) {
      bls12_381_fr_mul(&t, &d, &pw);
      bls12_381_fr_add(&acc, &acc, &t);
      bls12_381_fr_mul(&pw, &pw, &au);
    }
    x[k++] = acc;
    bls12_381_fr_neg(&x[k++], &acc);
  }
  bls12_381_fr_add(&x[k++], &half_b, &half_u);
  bls12_381_fr_sub(&x[k++], &b, &half_u);
  for (size_t i = 0; i < k; i++) bls12_381_fr_to_canon(out[i], &x[i]);
  return k;
}

/* got = sum_j +-e_j u^(4j/K) for e split into endo = K parts; checks each
 * part's magnitude against its balanced bound. */
static void split_value(bls12_381_fr *got, const msm_live *e, unsigned endo) {
  bls12_381_fr base, pw, t;
  bls12_381_fr_set_u64(&base, BLS12_381_X);
  if (endo == 2)
    bls12_381_fr_mul(&base, &base, &base); /* u^2 */
  else
    bls12_381_fr_neg(&base, &base);        /* u (negative); K = 1: unused */
  bls12_381_fr_set_u64(got, 0);
  bls12_381_fr_set_u64(&pw, 1);
  const unsigned nl = 4 / endo;
  for (unsigned j = 0; j < endo; j++) {
    limb_t m[4] = {0};
    for (unsigned i = 0; i < nl; i++) m[i] = e->s[j * nl + i];
    unsigned neg = (unsigned)(m[nl - 1] >> 63);
    m[nl - 1] &= ~((limb_t)1 << 63);
    if (endo == 4)
      CHECK_MSG(m[0] <= BLS12_381_X / 2, "endo 4 part %u = %#llx above |u|/2", j,
                (unsigned long long)m[0]);
    if (endo == 2) {
      unsigned __int128 v = (unsigned __int128)m[1] << 64 | m[0];
      CHECK_MSG(v <= (unsigned __int128)BLS12_381_X * BLS12_381_X / 2 + 1,
                "endo 2 part %u above u^2/2 + 1", j);
    }
    fr_of(&t, m);
    bls12_381_fr_mul(&t, &t, &pw);
    if (neg)
      bls12_381_fr_sub(got, got, &t);
    else
      bls12_381_fr_add(got, got, &t);
    bls12_381_fr_mul(&pw, &pw, &base);
  }
}

/* msm_split of the scalar at p (32 bytes) into `endo` parts recombines to
 * the scalar mod r; *e receives the split. */
static void check_split(msm_live *e, const uint8_t *p, unsigned endo) {
  unsigned f = msm_scalar_load(e->s, p);
  e->s[3] |= (limb_t)f << 63;
  msm_split(e, endo);
  bls12_381_fr want, got;
  limb_t in[4];
  limbs_from_le(in, p, 4);
  fr_of(&want, in);
  split_value(&got, e, endo);
  CHECK_MSG(bls12_381_fr_eq(&got, &want), "endo %u split does not recombine", endo);
}

TEST(split_recombines) {
  limb_t edges[64][4];
  size_t ne = split_edges(edges);
  uint8_t sc[32];
  msm_live e;
  test_rng g = {test_stream_seed(12)};
  for (unsigned endo = 1; endo <= 4; endo *= 2) {
    for (size_t i = 0; i < ne; i++) {
      put_limbs(sc, edges[i]);
      check_split(&e, sc, endo);
    }
    memset(sc, 0xff, 32); /* 2^256 - 1 */
    check_split(&e, sc, endo);
    scalar_r_plus(sc, 3);
    check_split(&e, sc, endo);
    for (int i = 0; i < 20000; i++) {
      rand_scalar(sc, &g);
      check_split(&e, sc, endo);
      if (i == 0 && endo > 1) { /* the check can fail: a part off by one */
        bls12_381_fr want, got;
        limb_t in[4];
        limbs_from_le(in, sc, 4);
        fr_of(&want, in);
        e.s[0] ^= 1;
        split_value(&got, &e, endo);
        CHECK(!bls12_381_fr_eq(&got, &want));
      }
    }
  }
}

/* The MSM on the split edge scalars: one point each, and all together. */
static void split_edges_msm(const grp *G) {
  limb_t edges[64][4];
  size_t ne = split_edges(edges);
  uint8_t *b = gen_bases(G, ne, 31), *sc = malloc(32 * ne);
  CHECK(sc);
  for (size_t i = 0; i < ne; i++) {
    put_limbs(sc + 32 * i, edges[i]);
    check_all(G, b + i * G->aff, sc + 32 * i, 1, "split edge scalar");
  }
  check_all(G, b, sc, ne, "split edge scalars");
  free(b);
  free(sc);
}
TEST_TIMEOUT(g1_split_edge_scalars, 300) { split_edges_msm(&g1_grp); }
TEST_TIMEOUT(g2_split_edge_scalars, 600) { split_edges_msm(&g2_grp); }

TEST(plan_is_consistent) {
  size_t ns[] = {0, 1, 2, 5, 64, 100, 1000, 4097, 1u << 14, 1u << 16, 1u << 18, 1u << 20,
                 1u << 24, (size_t)1 << 27};
  for (unsigned t = 1; t <= 8; t++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      msm_plan p = msm_plan_for(ns[i], t);
      CHECK(msm_plan_check(&p) == NULL);
      CHECK(p.c * p.nwin >= MSM_SCALAR_BITS + 1);
      CHECK_EQ_INT(p.threads, t);
      if (t == 2 && (i % 3 == 0 || ns[i] >= 1u << 16))
        printf("  n=%-10zu threads=2: c=%u nwin=%u nsplit=%u chunk=%u\n", ns[i], p.c, p.nwin,
               p.nsplit, p.chunk);
      CHECK_EQ_INT(p.endo, 1);
      msm_plan q[2] = {msm_plan_for_g1(ns[i], t), msm_plan_for_g2(ns[i], t)};
      for (int k = 0; k < 2; k++) {
        CHECK(msm_plan_check(&q[k]) == NULL);
        CHECK(q[k].endo <= (k ? MSM_G2_ENDO_MAX : MSM_G1_ENDO_MAX));
        CHECK(q[k].c * q[k].nwin >= msm_part_bits(q[k].endo) + 1);
        CHECK_EQ_INT(q[k].threads, t);
        if (t == 2 && (i % 3 == 0 || ns[i] >= 1u << 14))
          printf("  n=%-10zu threads=2 %s: endo=%u c=%u nwin=%u nsplit=%u chunk=%u\n", ns[i],
                 k ? "g2" : "g1", q[k].endo, q[k].c, q[k].nwin, q[k].nsplit, q[k].chunk);
      }
    }
  msm_plan bad = msm_plan_make(25, 1, 1, 0);
  CHECK(msm_plan_check(&bad) != NULL);
  bad = msm_plan_make(8, 0, 1, 0);
  CHECK(msm_plan_check(&bad) != NULL);
  bad = msm_plan_make(8, 1, 1, 0);
  bad.nwin--;
  CHECK(msm_plan_check(&bad) != NULL);
  bad = msm_plan_make_endo(8, 1, 1, 0, 3);
  CHECK(msm_plan_check(&bad) != NULL);
  bad = msm_plan_make_endo(8, 1, 1, 0, 2);
  CHECK(msm_plan_check(&bad) == NULL);
  CHECK_EQ_INT(bad.nwin, 16); /* 8 * 16 = 128 = 127 + 1 */
  bad.nwin = 32;              /* the K = 1 count: inconsistent with endo 2 */
  CHECK(msm_plan_check(&bad) != NULL);
  CHECK_EQ_INT(msm_plan_make_endo(16, 1, 1, 0, 4).nwin, 4);
}

/* The planner makes the choices it made before the CPU and GPU planners
 * were merged (test_msm_plans.h): the CPU's at the first and the last n of
 * every run of equal plans in the table. */
TEST(plan_cpu_choices_unchanged) {
  msm_plan (*const model[3])(size_t, unsigned) = {msm_plan_for, msm_plan_for_g1, msm_plan_for_g2};
  const size_t rows = sizeof msm_cpu_plans / sizeof *msm_cpu_plans;
  size_t checked = 0;
  for (size_t i = 0; i < rows; i++) {
    const msm_cpu_plan_row *r = &msm_cpu_plans[i], *next = i + 1 < rows ? r + 1 : NULL;
    size_t ns[2] = {r->n, 0};
    if (next && next->model == r->model && next->threads == r->threads && next->n - 1 > r->n)
      ns[1] = next->n - 1;
    for (int k = 0; k < 2 && ns[k]; k++, checked++) {
      const msm_plan p = model[r->model](ns[k], r->threads);
      CHECK_MSG(p.c == r->c && p.nsplit == r->nsplit && p.chunk == r->chunk && p.endo == r->endo,
                "model %d, %u threads, n = %zu: c %u nsplit %u chunk %u endo %u, was %u %u %u %u",
                r->model, r->threads, ns[k], p.c, p.nsplit, p.chunk, p.endo, r->c, r->nsplit,
                r->chunk, r->endo);
      CHECK(msm_plan_check(&p) == NULL);
    }
  }
  printf("  %zu CPU plans as before\n", checked);
}

/* The GPU's windows and context buckets at the first, second, middle and
 * last n of every run of the table, up to 2^28.  Each candidate's cost is
 * affine in n with slope nwin, so the chosen count never rises with n: equal
 * at both ends of a run, the choice is equal at every n between. */
TEST(plan_gpu_choices_unchanged) {
  const size_t rows = sizeof msm_gpu_plans / sizeof *msm_gpu_plans;
  for (size_t i = 0; i < rows; i++) {
    const msm_gpu_plan_row *r = &msm_gpu_plans[i];
    const size_t last = i + 1 < rows ? msm_gpu_plans[i + 1].n - 1 : (size_t)1 << 28;
    const size_t ns[4] = {r->n, r->n + 1 <= last ? r->n + 1 : last, r->n + (last - r->n) / 2, last};
    for (int k = 0; k < 4; k++) {
      const msm_geo g = msm_gpu_windows(ns[k]);
      CHECK_MSG(g.nwin == r->nwin && g.nh == r->nh && g.cl == r->cl,
                "n = %zu: %u windows (%u of %u + 1 bits), was %u (%u of %u + 1)", ns[k], g.nwin,
                g.nh, g.cl, r->nwin, r->nh, r->cl);
      CHECK_EQ_INT(msm_geo_bits(&g), MSM_REC_BITS);
      CHECK_EQ_INT(msm_gpu_max_buckets(ns[k]), r->buckets);
    }
  }
  /* opts.c: ceil(255 / c) windows split evenly, none wider than c */
  for (unsigned c = MSM_GPU_C_MIN; c <= MSM_GPU_C_MAX; c++) {
    const msm_geo g = msm_gpu_windows_c(c);
    CHECK_EQ_INT(g.nwin, (MSM_REC_BITS + c - 1) / c);
    CHECK(msm_geo_widest(&g) <= c && msm_geo_bits(&g) == MSM_REC_BITS);
  }
  printf("  %zu runs of GPU windows over n = 1..2^28 as before\n", rows);
}

/* ---- the signed-digit recoding against a plain reference ---- */

static unsigned bit_at(const limb_t *s, unsigned nl, long i) {
  return i < 0 || i >= 64 * (long)nl ? 0 : (unsigned)(s[i / 64] >> (i % 64)) & 1;
}

/* The window's c bits x, read one by one: d = x + s_(off-1) - 2^c s_(off+c-1). */
static int64_t ref_digit(const limb_t *s, unsigned nl, unsigned off, unsigned c) {
  int64_t x = 0;
  for (unsigned k = 0; k < c; k++) x |= (int64_t)bit_at(s, nl, (long)off + k) << k;
  return x + bit_at(s, nl, (long)off - 1) - ((int64_t)bit_at(s, nl, (long)off + c - 1) << c);
}

/* Every window of g over the nl-limb s < 2^(T-1): msm_digit equals the
 * reference, neg flips only its sign, |d| <= 2^(width-1), and
 * sum_w d_w 2^(off_w) = s (five-limb two's complement). */
static void check_digits(const msm_geo *g, unsigned nl, const limb_t *s) {
  limb_t acc[6] = {0};
  for (unsigned w = 0; w < g->nwin; w++) {
    const unsigned off = msm_geo_offset(g, w), c = msm_geo_width(g, w);
    const uint32_t d = msm_digit(s, nl, off, c, 0), dn = msm_digit(s, nl, off, c, 1);
    const uint32_t mag = d & ~MSM_DIGIT_NEG;
    const int64_t want = ref_digit(s, nl, off, c);
    CHECK_MSG((d & MSM_DIGIT_NEG ? -(int64_t)mag : (int64_t)mag) == want,
              "window %u of %u (offset %u, %u bits), %u limbs: %s%u, want %" PRId64, w, g->nwin,
              off, c, nl, d & MSM_DIGIT_NEG ? "-" : "", mag, want);
    CHECK(mag <= 1u << (c - 1));
    CHECK((dn & ~MSM_DIGIT_NEG) == mag && (!mag || (dn ^ d) == MSM_DIGIT_NEG));
    limb_t t[6] = {0};
    t[off / 64] = (limb_t)mag << (off % 64);
    if (off % 64)
      t[off / 64 + 1] = (limb_t)mag >> (64 - off % 64);
    limb_t carry = 0;
    for (int i = 0; i < 6; i++) {
      unsigned __int128 v = (d & MSM_DIGIT_NEG) ? (unsigned __int128)acc[i] - t[i] - carry
                                                : (unsigned __int128)acc[i] + t[i] + carry;
      acc[i] = (limb_t)v;
      carry = (limb_t)(v >> 64) & 1;
    }
  }
  limb_t want[6] = {0};
  memcpy(want, s, nl * sizeof *s);
  CHECK_MSG(!memcmp(acc, want, sizeof acc), "%u windows of %u..%u bits, %u limbs: the digits "
            "do not sum to s", g->nwin, g->cl, msm_geo_widest(g), nl);
}

/* Edge and random scalars of `bits` bits (< 2^bits) in nl limbs through g:
 * 0, 1, the largest, r - 1 and (r-1)/2 where they fit, all windows all ones
 * or only their top bit set (a borrow out of every window), alternating
 * bits, and random ones. */
static void digits_over(const msm_geo *g, unsigned nl, unsigned bits, test_rng *rng) {
  limb_t s[4];
  const limb_t *fixed[] = {R, msm_half_r};
  for (int k = 0; k < 8 + 24; k++) {
    memset(s, 0, sizeof s);
    switch (k) {
    case 0: break;
    case 1: s[0] = 1; break;
    case 2: memset(s, 0xff, sizeof s); break; /* all ones */
    case 3:
    case 4:
      memcpy(s, fixed[k - 3], sizeof s);
      if (k == 3)
        s[0] -= 1; /* r - 1 */
      break;
    case 5: /* each window's top bit */
      for (unsigned w = 0; w < g->nwin; w++) {
        const unsigned b = msm_geo_offset(g, w) + msm_geo_width(g, w) - 1;
        if (b < 256)
          s[b / 64] |= (limb_t)1 << (b % 64);
      }
      break;
    case 6: memset(s, 0x55, sizeof s); break;
    case 7: memset(s, 0xaa, sizeof s); break;
    default:
      for (int i = 0; i < 4; i++) s[i] = test_rng_next(rng);
    }
    /* keep `bits` bits: r - 1 and (r-1)/2 only when they already fit */
    int fits = 1;
    for (unsigned b = bits; b < 256; b++)
      if (bit_at(s, 4, b)) {
        fits = 0;
        s[b / 64] &= ~((limb_t)1 << (b % 64));
      }
    if ((k == 3 || k == 4) && !fits)
      continue;
    check_digits(g, nl, s);
  }
}

/* msm_digit over every geometry cuzk uses: the CPU's uniform windows of
 * 1..MSM_MAX_C bits for each endomorphism part (254, 127, 63 bits in 4, 2,
 * 1 limbs), the GPU's even splits of 255 bits into 12..128 windows and its
 * uniform c x nwin windows, and the key generator's comb windows of 2..20
 * bits over 256. */
TEST(digits_match_reference) {
  test_rng rng = {0xd161d5};
  unsigned geos = 0;
  for (unsigned endo = 1; endo <= 4; endo *= 2)
    for (unsigned c = 1; c <= MSM_MAX_C; c++, geos++) {
      const msm_geo g = msm_plan_geo(c, endo);
      CHECK(msm_geo_bits(&g) >= msm_part_bits(endo) + 1);
      digits_over(&g, 4 / endo, msm_part_bits(endo), &rng);
    }
  for (unsigned nwin = 12; nwin <= 128; nwin++, geos++) {
    const msm_geo g = msm_geo_split(nwin, MSM_REC_BITS);
    CHECK_EQ_INT(msm_geo_bits(&g), MSM_REC_BITS);
    digits_over(&g, 4, MSM_SCALAR_BITS, &rng);
  }
  for (unsigned c = MSM_GPU_C_MIN; c <= MSM_GPU_C_MAX; c++, geos++) {
    const msm_geo g = msm_geo_uniform(c, MSM_REC_BITS);
    digits_over(&g, 4, MSM_SCALAR_BITS, &rng);
  }
  for (unsigned c = 2; c <= 20; c++, geos++) {
    const msm_geo g = msm_geo_uniform(c, 256);
    digits_over(&g, 4, 255, &rng);
  }
  /* the GPU split's narrow parts: windows over `bits` bits for scalars
   * below 2^(bits - 1) */
  for (unsigned bits = 2; bits <= MSM_REC_BITS; bits += bits < 40 ? 1 : 23, geos++) {
    const msm_geo g = msm_gpu_windows_bits((size_t)1 << 20, bits, SIZE_MAX);
    digits_over(&g, 4, bits - 1, &rng);
  }
  printf("  %u window geometries, 32 scalars each\n", geos);
}

/* The narrow runs' windows: they tile exactly `bits` bits, none wider than
 * the auto plans' widest nor narrower than MSM_GPU_C_MIN (one window of
 * `bits` below that), within max_buckets, fewer as the bits fall, and over
 * MSM_REC_BITS the same as msm_gpu_windows. */
TEST(plan_gpu_narrow_windows) {
  const size_t ns[] = {1, 1000, (size_t)1 << 16, (size_t)1 << 20, (size_t)1 << 24, 20915656};
  for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
    const msm_geo full = msm_gpu_windows(ns[k]), same = msm_gpu_windows_bits(ns[k], MSM_REC_BITS,
                                                                              SIZE_MAX);
    CHECK(full.nwin == same.nwin && full.nh == same.nh && full.cl == same.cl);
    unsigned prev = 0;
    for (unsigned bits = 2; bits <= MSM_REC_BITS; bits++) {
      const size_t cap = msm_gpu_max_buckets(ns[k]);
      const msm_geo g = msm_gpu_windows_bits(ns[k], bits, cap);
      CHECK_EQ_INT(msm_geo_bits(&g), bits);
      CHECK_MSG(msm_geo_widest(&g) <= MSM_GPU_C_AUTO_MAX && msm_geo_buckets(&g) <= cap,
                "n %zu, %u bits: %u windows, widest %u, %zu buckets (cap %zu)", ns[k], bits,
                g.nwin, msm_geo_widest(&g), msm_geo_buckets(&g), cap);
      CHECK(g.cl >= MSM_GPU_C_MIN || g.nwin == 1);
      CHECK_MSG(g.nwin >= prev, "n %zu: %u windows at %u bits, %u at one bit fewer", ns[k],
                g.nwin, bits, prev);
      prev = g.nwin;
    }
  }
  /* a 33-bit word at 2^24 points: two windows, where a field element takes 12 */
  const msm_geo w = msm_gpu_windows_bits((size_t)1 << 24, 34, SIZE_MAX);
  CHECK_MSG(w.nwin == 2, "%u windows", w.nwin);
}

/* The GPU split's cost over bit lengths: one addition per point and window
 * starting at or below its length, so over full-width scalars it is the
 * uniform model's; the narrow boundary it picks, for the mixes
 * bench_gpu_msm measured on the H200 at 2^25 (bench/RESULTS.md, the split
 * on the generator's and a hash gadget's mixes): no narrow part for the
 * generator's others (lengths uniform over 2..254, where a narrow part
 * measured slower), 32 bits for words beside a few field elements (where
 * it measured faster), everything for short sums alone, nothing for
 * uniform scalars. */
TEST(plan_gpu_narrow_bound) {
  static uint32_t hist[256];
  const size_t n = (size_t)1 << 25, cap = msm_gpu_max_buckets(n);
  for (unsigned nwin = 12; nwin <= 20; nwin += 4) {
    const msm_geo g = msm_geo_split(nwin, MSM_REC_BITS);
    memset(hist, 0, sizeof hist);
    hist[254] = 1000000;
    CHECK(msm_gpu_cost_hist(&g, hist, 1, 254) == msm_gpu_cost(&g, 1000000));
    memset(hist, 0, sizeof hist);
    hist[32] = 1000000; /* words touch the windows starting at or below bit 32 only */
    const unsigned touched = 32 / msm_geo_width(&g, nwin - 1) + 1;
    CHECK(msm_gpu_cost_hist(&g, hist, 1, 254) <
          msm_gpu_cost(&g, 1000000) - (double)(nwin - touched - 1) * 1000000);
  }
  /* the generator's mix: 16 % others */
  memset(hist, 0, sizeof hist);
  size_t others = 0;
  for (unsigned b = 2; b <= 254; b++) others += hist[b] = (uint32_t)(n * 16 / 100 / 253);
  CHECK_EQ_INT(msm_gpu_narrow_bound(hist, others, cap), 0);
  /* words and a few field elements (folded: mostly 252..254 bits) */
  memset(hist, 0, sizeof hist);
  hist[32] = (uint32_t)(n * 16 / 100);
  hist[254] = (uint32_t)(n * 2 / 100), hist[253] = (uint32_t)(n / 100);
  hist[252] = (uint32_t)(n / 200);
  others = (size_t)hist[32] + hist[254] + hist[253] + hist[252];
  CHECK_EQ_INT(msm_gpu_narrow_bound(hist, others, cap), 32);
  /* short sums alone: all narrow */
  memset(hist, 0, sizeof hist);
  others = 0;
  for (unsigned b = 2; b <= 20; b++) others += hist[b] = 100000;
  CHECK_EQ_INT(msm_gpu_narrow_bound(hist, others, cap), 20);
  /* uniform scalars: none */
  memset(hist, 0, sizeof hist);
  hist[254] = (uint32_t)(n / 2), hist[253] = (uint32_t)(n / 4), hist[252] = (uint32_t)(n / 8);
  CHECK_EQ_INT(msm_gpu_narrow_bound(hist, (size_t)hist[254] + hist[253] + hist[252], cap), 0);
}

/* The split's floor (bench bp's ratios): known answers.  2^27 uniform
 * scalars take the 12 windows of 22 and 21 bits (15,728,640 buckets; 11
 * windows would be 24 bits wide, above MSM_GPU_C_MAX): 12 n + 2.8 buckets.
 * A million 32-bit words alone: a narrow part of two windows over 33 bits
 * (17 + 16 bits: 98,304 buckets), where the full width would take 2 of 12
 * windows too but far more buckets.  Ones cost one addition each but the
 * first; zeros nothing. */
TEST(plan_gpu_floor) {
  static uint32_t hist[256];
  memset(hist, 0, sizeof hist);
  CHECK(msm_gpu_floor_adds(hist, 0) == 0);
  CHECK(msm_gpu_floor_adds(hist, 1) == 0);
  CHECK(msm_gpu_floor_adds(hist, 1000) == 999);
  hist[254] = 1u << 27;
  CHECK_MSG(fabs(msm_gpu_floor_adds(hist, 0) - (12.0 * (1u << 27) + 2.8 * 15728640)) < 1,
            "%.1f", msm_gpu_floor_adds(hist, 0));
  memset(hist, 0, sizeof hist);
  hist[32] = 1000000;
  CHECK_MSG(fabs(msm_gpu_floor_adds(hist, 5) - (2.0 * 1000000 + 2.8 * 98304 + 4)) < 1e-3,
            "%.3f", msm_gpu_floor_adds(hist, 5));
}

/* ---- helpers ---- */

static void gen_in_subgroup_and_thread_independent(const grp *G) {
  size_t n = 9000; /* two full generator blocks and a part */
  uint8_t *a = gen_bases(G, n, 5), *b = malloc(n * G->aff);
  CHECK(b);
  for (unsigned t = 1; t <= 3; t += 2) {
    CHECK(G->gen(b, n, test_stream_seed(5), t) == CUZK_OK); /* gen_bases(G, n, 5)'s seed */
    CHECK_EQ_MEM(a, b, n * G->aff);
  }
  size_t idx[] = {0, 1, 511, 512, 4095, 4096, 8191, 8192, 8999};
  for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
    pt p;
    memcpy(&p, a + idx[i] * G->aff, G->aff);
    CHECK_MSG(G->in_subgroup(&p), "%s gen point %zu not in the subgroup", G->name, idx[i]);
    CHECK(memcmp(a + idx[i] * G->aff, a + ((idx[i] + 1) % n) * G->aff, G->aff) != 0);
  }
  free(a);
  free(b);
}
TEST(g1_gen_bases) { gen_in_subgroup_and_thread_independent(&g1_grp); }
TEST(g2_gen_bases) { gen_in_subgroup_and_thread_independent(&g2_grp); }

/* aff_batch_add against jac_add, every special case; jac_batch_to_aff
 * against jac_to_aff. */
#define BATCH_HELPERS(G, F, grp)                                                              \
  do {                                                                                        \
    enum { N = 40 };                                                                          \
    G##_aff *pts = (G##_aff *)gen_bases(grp, N, 3);                                           \
    G##_aff a[N], b[N], r[N];                                                                 \
    G##_jac ja[N];                                                                            \
    F scratch[2 * N];                                                                         \
    for (int i = 0; i < N; i++) {                                                             \
      a[i] = pts[i];                                                                          \
      b[i] = pts[(i * 7 + 3) % N];                                                            \
    }                                                                                         \
    b[0] = a[0];                   /* P + P */                                                \
    G##_aff_neg(&b[1], &a[1]);     /* P + (-P) */                                             \
    G##_aff_set_inf(&a[2]);        /* O + Q */                                                \
    G##_aff_set_inf(&b[3]);        /* P + O */                                                \
    G##_aff_set_inf(&a[4]);                                                                   \
    G##_aff_set_inf(&b[4]);        /* O + O */                                                \
    G##_aff_batch_add(r, a, b, N, scratch);                                                   \
    for (int i = 0; i < N; i++) {                                                             \
      G##_jac x, y;                                                                           \
      G##_jac_from_aff(&x, &a[i]);                                                            \
      G##_jac_from_aff(&y, &b[i]);                                                            \
      G##_jac_add(&x, &x, &y);                                                                \
      G##_jac_from_aff(&y, &r[i]);                                                            \
      CHECK_MSG(G##_jac_eq(&x, &y), #G " batch add pair %d", i);                             \
      CHECK(G##_aff_is_on_curve(&r[i]));                                                      \
      ja[i] = x;                                                                              \
    }                                                                                         \
    G##_aff_batch_add(a, a, b, N, scratch); /* r aliasing a */                                \
    CHECK_EQ_MEM(a, r, sizeof r);                                                             \
    G##_jac_batch_to_aff(r, ja, N, scratch);                                                  \
    for (int i = 0; i < N; i++) {                                                             \
      G##_aff w;                                                                              \
      G##_jac_to_aff(&w, &ja[i]);                                                             \
      CHECK_EQ_MEM(&w, &r[i], sizeof w);                                                      \
    }                                                                                         \
    free(pts);                                                                                \
  } while (0)
TEST(g1_batch_affine_helpers) { BATCH_HELPERS(bls12_381_g1, bls12_381_fp, &g1_grp); }
TEST(g2_batch_affine_helpers) { BATCH_HELPERS(bls12_381_g2, bls12_381_fp2, &g2_grp); }

/* ---- fast = naive over random inputs ---- */

static void every_n(const grp *G, size_t nmax) {
  uint8_t *sc = malloc(32 * nmax);
  CHECK(sc);
  for (size_t n = 1; n <= nmax; n++) {
    test_rng g = {test_stream_seed(1000 + n)};
    uint8_t *b = gen_bases(G, n, 100 + n);
    rand_scalars(sc, n, &g);
    check_all(G, b, sc, n, "random");
    free(b);
  }
  free(sc);
}
TEST_TIMEOUT(g1_every_n_1_to_64, 300) { every_n(&g1_grp, 64); }
TEST_TIMEOUT(g2_every_n_1_to_64, 600) { every_n(&g2_grp, 64); }

static void random_n(const grp *G, size_t n, uint64_t seed) {
  test_rng g = {test_stream_seed(seed)};
  uint8_t *b = gen_bases(G, n, seed), *sc = malloc(32 * n);
  CHECK(sc);
  rand_scalars(sc, n, &g);
  pt want, got;
  CHECK(G->naive(&want, b, sc, n, 2) == CUZK_OK);
  for (unsigned t = 1; t <= 3; t++) {
    CHECK(G->fast(&got, b, sc, n, t) == CUZK_OK);
    CHECK_MSG(G->eq(&got, &want), "%s n=%zu threads=%u differs from naive", G->name, n, t);
  }
  /* Large windows (c = 15: c * nwin = 255), several chunks with a short
   * last one, 3 splits; G2 keeps c small (its reduction costs 3x). */
  unsigned big = G->aff == sizeof(bls12_381_g1_aff) ? 15 : 11;
  msm_plan plans[] = {msm_plan_make(13, 3, 2, 1000), msm_plan_make(big, 1, 2, 1u << 14),
                      msm_plan_make(9, 2, 3, 0),
                      /* the split: c * nwin = 128 (endo 2) and 64 (endo 4) at c = 16 */
                      msm_plan_make_endo(16, 1, 2, 1u << 15, 2),
                      msm_plan_make_endo(16, 2, 2, 1u << 15, G->endo_max),
                      msm_plan_make_endo(11, 3, 2, 5000, G->endo_max)};
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
    msm_stats st;
    CHECK(G->run(&got, b, sc, n, &plans[i], &st) == CUZK_OK);
    CHECK_MSG(G->eq(&got, &want), "%s n=%zu plan c=%u endo=%u differs", G->name, n, plans[i].c,
              plans[i].endo);
    CHECK_EQ_INT(st.images, (uint64_t)(plans[i].endo - 1) * st.live);
  }
  free(b);
  free(sc);
}
TEST_TIMEOUT(g1_random_1000_4097_16384, 600) {
  random_n(&g1_grp, 1000, 1);
  random_n(&g1_grp, 4097, 2);
  random_n(&g1_grp, 1u << 14, 3);
}
TEST_TIMEOUT(g2_random_1000_4097, 600) {
  random_n(&g2_grp, 1000, 4);
  random_n(&g2_grp, 4097, 5);
}

/* ---- edge cases ---- */

static void edge_cases(const grp *G) {
  enum { N = 300 };
  test_rng g = {test_stream_seed(77)};
  uint8_t *b = gen_bases(G, N, 9), *b2 = malloc(N * G->aff), *sc = malloc(32 * N + 3);
  CHECK(b2 && sc);
  pt got;

  /* n = 0: infinity. */
  CHECK(G->fast(&got, b, sc, 0, 2) == CUZK_OK);
  CHECK(G->is_inf(&got));
  CHECK(G->naive(&got, b, sc, 0, 2) == CUZK_OK);
  CHECK(G->is_inf(&got));

  /* n = 1 with special scalars, and an infinity base. */
  uint8_t one[32];
  int64_t rd[] = {-1, -2, 1, 0};
  for (size_t i = 0; i < 4; i++) {
    scalar_r_plus(one, rd[i]); /* r-1, r-2, r+1, r */
    check_all(G, b, one, 1, "n=1 r+delta");
  }
  uint64_t small[] = {0, 1, 2, 3};
  for (size_t i = 0; i < 4; i++) {
    scalar_u64(one, small[i]);
    check_all(G, b, one, 1, "n=1 small scalar");
  }
  put_limbs(one, msm_half_r);
  check_all(G, b, one, 1, "n=1 (r-1)/2");
  limb_t h1[4];
  memcpy(h1, msm_half_r, sizeof h1);
  h1[0]++;
  put_limbs(one, h1);
  check_all(G, b, one, 1, "n=1 (r+1)/2");
  memset(b2, 0, G->aff);
  rand_scalar(one, &g);
  check_all(G, b2, one, 1, "n=1 infinity base");

  /* Zero scalars: all, then every other. */
  memset(sc, 0, 32 * N);
  check_all(G, b, sc, N, "all-zero scalars");
  CHECK(G->fast(&got, b, sc, N, 2) == CUZK_OK);
  CHECK(G->is_inf(&got));
  rand_scalars(sc, N, &g);
  for (size_t i = 0; i < N; i += 2) memset(sc + 32 * i, 0, 32);
  check_all(G, b, sc, N, "half-zero scalars");

  /* Infinity bases (every third), then all. */
  rand_scalars(sc, N, &g);
  memcpy(b2, b, N * G->aff);
  for (size_t i = 0; i < N; i += 3) memset(b2 + i * G->aff, 0, G->aff);
  check_all(G, b2, sc, N, "every third base infinity");
  memset(b2, 0, N * G->aff);
  check_all(G, b2, sc, N, "all bases infinity");

  /* Duplicate bases: all the same; cycling among three. */
  for (size_t i = 0; i < N; i++) memcpy(b2 + i * G->aff, b, G->aff);
  check_all(G, b2, sc, N, "all bases equal");
  for (size_t i = 0; i < N; i++) memcpy(b2 + i * G->aff, b + (i % 3) * G->aff, G->aff);
  check_all(G, b2, sc, N, "three distinct bases");

  /* All-equal scalars: random bases; equal bases too (pure doublings). */
  rand_scalar(sc, &g);
  for (size_t i = 1; i < N; i++) memcpy(sc + 32 * i, sc, 32);
  check_all(G, b, sc, N, "all scalars equal");
  for (size_t i = 0; i < N; i++) memcpy(b2 + i * G->aff, b, G->aff);
  check_all(G, b2, sc, N, "all scalars and bases equal");

  /* Scalar r-1 everywhere: the sum of -P_i. */
  for (size_t i = 0; i < N; i++) scalar_r_plus(sc + 32 * i, -1);
  check_all(G, b, sc, N, "all scalars r-1");

  /* Points equal to negatives of others: P_i, -P_i with equal scalars, and
   * P_i, P_i with scalars s, r - s: both sum to infinity. */
  rand_scalars(sc, N, &g);
  for (size_t i = 0; i < N; i += 2) {
    memcpy(b2 + i * G->aff, b + i * G->aff, G->aff);
    G->aff_neg(b2 + (i + 1) * G->aff, b + i * G->aff);
    memcpy(sc + 32 * (i + 1), sc + 32 * i, 32);
  }
  check_all(G, b2, sc, N, "P and -P, equal scalars");
  CHECK(G->fast(&got, b2, sc, N, 2) == CUZK_OK);
  CHECK(G->is_inf(&got));
  for (size_t i = 0; i < N; i += 2) {
    memcpy(b2 + (i + 1) * G->aff, b + i * G->aff, G->aff);
    limb_t s[4], t[4];
    limbs_from_le(s, sc + 32 * i, 4);
    msm_sub4(t, R, s);
    put_limbs(sc + 32 * (i + 1), t);
  }
  check_all(G, b2, sc, N, "P with s and r - s");
  CHECK(G->fast(&got, b2, sc, N, 2) == CUZK_OK);
  CHECK(G->is_inf(&got));
  /* Half of the points negatives of the other half, random scalars. */
  for (size_t i = 0; i < N; i += 2) G->aff_neg(b2 + (i + 1) * G->aff, b + i * G->aff);
  rand_scalars(sc, N, &g);
  check_all(G, b2, sc, N, "P and -P, random scalars");

  /* Scalars at and above r: taken mod r. */
  for (size_t i = 0; i < N; i++) {
    if (i % 3 == 0)
      scalar_r_plus(sc + 32 * i, (int64_t)(i % 7));
    else if (i % 3 == 1)
      memset(sc + 32 * i, 0xff, 32);
  }
  check_all(G, b, sc, N, "scalars >= r");

  /* Unaligned bases and scalars. */
  uint8_t *ub = malloc(N * G->aff + 1);
  CHECK(ub);
  memcpy(ub + 1, b, N * G->aff);
  rand_scalars(sc + 3, N, &g);
  check_all(G, ub + 1, sc + 3, N, "unaligned");
  free(ub);
  free(b);
  free(b2);
  free(sc);
}
TEST_TIMEOUT(g1_edge_cases, 300) { edge_cases(&g1_grp); }
TEST_TIMEOUT(g2_edge_cases, 600) { edge_cases(&g2_grp); }

/* The result depends on the plan only: the same plan on 1, 2 or 3 workers
 * gives the same bytes (the latter two in caller-owned scratch). */
TEST(g1_same_plan_any_threads_same_bytes) {
  size_t n = 3000;
  test_rng g = {test_stream_seed(8)};
  uint8_t *b = gen_bases(&g1_grp, n, 8), *sc = malloc(32 * n);
  rand_scalars(sc, n, &g);
  bls12_381_g1_jac ref, got;
  for (unsigned endo = 1; endo <= 2; endo++) {
    msm_plan p = msm_plan_make_endo(9, 2, 3, 256, endo);
    size_t bytes = msm_g1_scratch_bytes(&p, n);
    void *scratch = NULL;
    CHECK(bytes > 0 && posix_memalign(&scratch, 64, bytes) == 0);
    p.threads = 1;
    CHECK(bytes >= msm_g1_scratch_bytes(&p, n));
    CHECK(msm_g1_run(&ref, b, sc, n, &p, NULL, NULL, NULL) == CUZK_OK);
    for (unsigned t = 2; t <= 3; t++) {
      p.threads = t;
      CHECK(msm_g1_run(&got, b, sc, n, &p, scratch, NULL, NULL) == CUZK_OK);
      CHECK_EQ_MEM(&got, &ref, sizeof got);
    }
    free(scratch);
  }
  free(b);
  free(sc);
}

/* Under AddressSanitizer a failed huge allocation must return NULL, as it
 * does without it, instead of aborting: ASan's documented default-options
 * hook, read once at start-up (exported: the build hides symbols). */
#if defined(__SANITIZE_ADDRESS__)
#define MSM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MSM_TEST_ASAN 1
#endif
#endif
#ifdef MSM_TEST_ASAN
__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

TEST(no_memory_and_bad_plan_reported) {
  uint8_t b[96] = {0}, sc[32] = {0};
  bls12_381_g1_jac out;
  cuzk_err err = {0};
  /* 1000 workers with 2^23 buckets each: ~840 GB (780 GiB) of scratch. */
  msm_plan p = msm_plan_make(24, 100, 1000, 1);
  CHECK(msm_g1_scratch_bytes(&p, 1) > (size_t)700 << 30);
  CHECK_EQ_INT(msm_g1_run(&out, b, sc, 1, &p, NULL, NULL, &err), CUZK_NO_MEMORY);
  CHECK_EQ_INT(err.status, CUZK_NO_MEMORY);
  p = msm_plan_make(0, 1, 1, 0);
  CHECK_EQ_INT(msm_g1_run(&out, b, sc, 1, &p, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  p = msm_plan_make_endo(8, 1, 1, 0, 4); /* G1 has no 4-way split */
  CHECK_EQ_INT(msm_g1_run(&out, b, sc, 1, &p, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(msm_g1_scratch_bytes(&p, 1), 0);
  p = msm_plan_make(8, 1u << 22, 1, 0); /* 32 * 2^22 tasks */
  CHECK_EQ_INT(msm_g1_run(&out, b, sc, 1, &p, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  p = msm_plan_make(8, 1, 1, 0);
  void *scratch = NULL;
  CHECK(posix_memalign(&scratch, 64, msm_g1_scratch_bytes(&p, 1) + 64) == 0);
  CHECK_EQ_INT(msm_g1_run(&out, b, sc, 1, &p, (uint8_t *)scratch + 8, NULL, &err),
               CUZK_INVALID_ARGUMENT); /* misaligned scratch */
  free(scratch);
}

/* Operation counts of the batch-affine path: one tree addition (or copy,
 * when an operand is infinity, e.g. after a partial sum P + (-P)) per point
 * with a non-zero digit, less one per bucket that ends non-empty. */
TEST(g1_stats_count_additions) {
  size_t n = 1u << 12;
  test_rng g = {test_stream_seed(21)};
  uint8_t *b = gen_bases(&g1_grp, n, 21), *sc = malloc(32 * n);
  rand_scalars(sc, n, &g);
  msm_plan p = msm_plan_make(8, 1, 2, 1024);
  msm_stats st;
  bls12_381_g1_jac out;
  CHECK(msm_g1_run(&out, b, sc, n, &p, NULL, &st, NULL) == CUZK_OK);
  /* Per window: adds = nonzero digits - buckets left non-empty. */
  uint64_t want = 0;
  for (unsigned w = 0; w < p.nwin; w++) {
    static uint8_t used[1 << 7];
    memset(used, 0, sizeof used);
    for (size_t i = 0; i < n; i++) {
      limb_t s[4];
      unsigned neg = msm_scalar_load(s, sc + 32 * i);
      uint32_t mag = msm_digit(s, 4, w * p.c, p.c, neg) & ~MSM_DIGIT_NEG;
      if (mag) {
        want++;
        if (!used[mag - 1])
          want--, used[mag - 1] = 1;
      }
    }
  }
  printf("  n=%zu c=%u: %" PRIu64 " affine adds, %" PRIu64 " copies, %" PRIu64 " rounds\n", n,
         p.c, st.aff_adds, st.aff_copies, st.rounds);
  CHECK_EQ_INT(st.aff_adds + st.aff_copies, want);
  free(b);
  free(sc);
}

/* msm_*_parts: one MSM over several runs of points (some empty), with
 * infinity bases and zero scalars sprinkled in, equals the reference over
 * the concatenation; msm_stats.live counts exactly the other points. */
#define PARTS_TEST(G, g)                                                                         \
  static void g##_parts_case(size_t n, uint64_t seed) {                                          \
    test_rng rg = {test_stream_seed(seed)};                                                      \
    uint8_t *b = gen_bases(&g##_grp, n, seed), *sc = malloc(32 * n);                             \
    CHECK(sc != NULL);                                                                           \
    rand_scalars(sc, n, &rg);                                                                    \
    size_t live = 0;                                                                             \
    for (size_t i = 0; i < n; i++) {                                                             \
      uint64_t k = test_rng_next(&rg) % 5;                                                       \
      if (k == 0)                                                                                \
        memset(b + i * sizeof(G##_aff), 0, sizeof(G##_aff));                                     \
      else if (k == 1)                                                                           \
        memset(sc + 32 * i, 0, 32);                                                              \
      else if (k == 2)                                                                           \
        scalar_r_plus(sc + 32 * i, 0); /* r: zero mod r */                                       \
      else                                                                                       \
        live++;                                                                                  \
    }                                                                                            \
    msm_part parts[6];                                                                           \
    size_t np = 0, at = 0;                                                                       \
    while (at < n && np < 5) {                                                                   \
      size_t len = test_rng_next(&rg) % (n - at + 1);                                            \
      parts[np++] = (msm_part){b + at * sizeof(G##_aff), sc + 32 * at, len};                     \
      at += len;                                                                                 \
    }                                                                                            \
    parts[np++] = (msm_part){b + at * sizeof(G##_aff), sc + 32 * at, n - at};                    \
    G##_jac want, got;                                                                           \
    CHECK(msm_##g##_naive(&want, b, sc, n, 2, NULL) == CUZK_OK);                                 \
    for (unsigned t = 1; t <= 3; t++) {                                                          \
      CHECK(msm_##g##_parts(&got, parts, np, t, NULL) == CUZK_OK);                               \
      CHECK_MSG(G##_jac_eq(&got, &want), #g " parts n=%zu nparts=%zu threads=%u differs", n, np, \
                t);                                                                              \
    }                                                                                            \
    msm_plan p = msm_plan_make(5, 2, 2, 16);                                                     \
    msm_stats st;                                                                                \
    CHECK(msm_##g##_run(&got, b, sc, n, &p, NULL, &st, NULL) == CUZK_OK);                        \
    CHECK(G##_jac_eq(&got, &want));                                                              \
    CHECK_EQ_INT(st.live, live);                                                                 \
    free(b);                                                                                     \
    free(sc);                                                                                    \
  }
PARTS_TEST(bls12_381_g1, g1)
PARTS_TEST(bls12_381_g2, g2)

TEST_TIMEOUT(parts_sparse_inputs, 600) {
  for (uint64_t seed = 1; seed <= 6; seed++) g1_parts_case(1 + seed * 211, seed);
  g1_parts_case(5000, 77);
  for (uint64_t seed = 1; seed <= 3; seed++) g2_parts_case(1 + seed * 97, seed);
  /* No parts, and only empty ones: infinity. */
  bls12_381_g1_jac out;
  msm_part empty = {NULL, NULL, 0};
  CHECK(msm_g1_parts(&out, NULL, 0, 2, NULL) == CUZK_OK);
  CHECK(bls12_381_g1_jac_is_inf(&out));
  CHECK(msm_g1_parts(&out, &empty, 1, 2, NULL) == CUZK_OK);
  CHECK(bls12_381_g1_jac_is_inf(&out));
}
