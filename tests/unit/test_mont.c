/* Montgomery arithmetic: the fast routines (mont.h's mont256_* / mont384_*,
 * the assembly of mont_x86.h on BMI2+ADX builds) against the portable
 * references (mont*_mul_ref, ...) over four moduli: BLS12-381 Fp and Fr and
 * BN254 p and r.  Fixed-seed random inputs (100k per operation, width and
 * modulus), named edge cases, every pair of edge cases, aliasing, long
 * dependent chains, and a quick timing of a dependent chain (printed, not
 * checked).  n0 = -p^-1 mod 2^64 is computed here, not taken from a table. */
#include <time.h>

#include "harness.h"

#include "base/bytes.h"
#include "ff/consts_bls12_381.h"
#include "ff/mont.h"

#define RANDOM_ITERS 100000

typedef struct {
  const char *name;
  int n; /* limbs: 4 or 6 */
  limb_t p[6];
  limb_t n0;
} modulus;

static const limb_t bls_fp[6] = BLS12_381_FP_P;
static const limb_t bls_fr[4] = BLS12_381_FR_P;
/* BN254 (alt_bn128) base field p and scalar field r, little-endian limbs. */
static const limb_t bn_p[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                               0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const limb_t bn_r[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                               0xb85045b68181585dULL, 0x30644e72e131a029ULL};

/* -p^-1 mod 2^64 by Newton's iteration x <- x(2 - p x): each step doubles
 * the correct low bits, and x = p is right to 3 bits for odd p. */
static limb_t neg_inv64(limb_t p0) {
  limb_t x = p0;
  for (int i = 0; i < 6; i++) x *= 2 - p0 * x;
  return (limb_t)0 - x;
}

static modulus mod_make(const char *name, const limb_t *p, int n) {
  modulus m = {.name = name, .n = n};
  memcpy(m.p, p, (size_t)n * sizeof(limb_t));
  m.n0 = neg_inv64(p[0]);
  return m;
}

static int mod_count(modulus *ms) {
  ms[0] = mod_make("bls12_381 p", bls_fp, 6);
  ms[1] = mod_make("bls12_381 r", bls_fr, 4);
  ms[2] = mod_make("bn254 p", bn_p, 4);
  ms[3] = mod_make("bn254 r", bn_r, 4);
  return 4;
}

/* ---- the operations under test, by width ---- */

static void fast_mul(const modulus *m, limb_t *r, const limb_t *a, const limb_t *b) {
  if (m->n == 6) mont384_mul(r, a, b, m->p, m->n0);
  else mont256_mul(r, a, b, m->p, m->n0);
}
static void ref_mul(const modulus *m, limb_t *r, const limb_t *a, const limb_t *b) {
  if (m->n == 6) mont384_mul_ref(r, a, b, m->p, m->n0);
  else mont256_mul_ref(r, a, b, m->p, m->n0);
}
static void fast_sqr(const modulus *m, limb_t *r, const limb_t *a) {
  if (m->n == 6) mont384_sqr(r, a, m->p, m->n0);
  else mont256_sqr(r, a, m->p, m->n0);
}
static void ref_sqr(const modulus *m, limb_t *r, const limb_t *a) {
  if (m->n == 6) mont384_sqr_ref(r, a, m->p, m->n0);
  else mont256_sqr_ref(r, a, m->p, m->n0);
}
static void fast_add(const modulus *m, limb_t *r, const limb_t *a, const limb_t *b) {
  if (m->n == 6) mont384_add(r, a, b, m->p);
  else mont256_add(r, a, b, m->p);
}
static void ref_add(const modulus *m, limb_t *r, const limb_t *a, const limb_t *b) {
  if (m->n == 6) mont384_add_ref(r, a, b, m->p);
  else mont256_add_ref(r, a, b, m->p);
}
static void fast_sub(const modulus *m, limb_t *r, const limb_t *a, const limb_t *b) {
  if (m->n == 6) mont384_sub(r, a, b, m->p);
  else mont256_sub(r, a, b, m->p);
}
static void ref_sub(const modulus *m, limb_t *r, const limb_t *a, const limb_t *b) {
  if (m->n == 6) mont384_sub_ref(r, a, b, m->p);
  else mont256_sub_ref(r, a, b, m->p);
}

/* ---- inputs ---- */

static void rand_below(limb_t *r, const modulus *m, test_rng *g) {
  int top = m->n - 1;
  limb_t mask = ~(limb_t)0 >> __builtin_clzll(m->p[top]);
  do {
    for (int i = 0; i < m->n; i++) r[i] = test_rng_next(g);
    r[top] &= mask;
  } while (!limbs_lt(r, m->p, (size_t)m->n));
}

/* Named edge cases, all < p: 0, 1, 2, p-1, p-2, (p-1)/2, 2^64-1 and other
 * all-ones low limbs, p with one limb decremented and every limb below it
 * all ones (the largest values below p with a given prefix), and 2^(64N-2)
 * style values near the top bit.  Returns the count. */
#define MAX_EDGES 32
static int edge_cases(limb_t e[MAX_EDGES][6], const modulus *m) {
  int n = m->n, k = 0;
  memset(e, 0, sizeof(limb_t) * MAX_EDGES * 6);
  k++;                                  /* 0 */
  e[k++][0] = 1;                        /* 1 */
  e[k++][0] = 2;                        /* 2 */
  memcpy(e[k], m->p, sizeof(limb_t) * (size_t)n);
  e[k++][0] -= 1;                       /* p-1 (p is odd: no borrow) */
  memcpy(e[k], m->p, sizeof(limb_t) * (size_t)n);
  e[k++][0] -= 2;                       /* p-2 */
  for (int i = 0; i < n; i++)           /* (p-1)/2 */
    e[k][i] = m->p[i] >> 1 | (i + 1 < n ? m->p[i + 1] << 63 : 0);
  k++;
  for (int j = 1; j < n; j++, k++)      /* 2^(64j) - 1: j all-ones limbs */
    for (int i = 0; i < j; i++) e[k][i] = ~(limb_t)0;
  for (int j = 1; j < n; j++) {         /* p[j]-1 over all-ones limbs */
    if (m->p[j] == 0) continue;
    memcpy(e[k], m->p, sizeof(limb_t) * (size_t)n);
    e[k][j] -= 1;
    for (int i = 0; i < j; i++) e[k][i] = ~(limb_t)0;
    k++;
  }
  e[k++][n - 1] = (limb_t)1 << (63 - __builtin_clzll(m->p[n - 1])); /* top bit of p alone */
  for (int i = 0; i < n; i++) e[k][i] = 0x5555555555555555ULL & (i == n - 1 ? m->p[i] >> 1 : ~0ULL);
  k++;
  return k;
}

static void check_same(const modulus *m, const char *op, const limb_t *got, const limb_t *want,
                       const limb_t *a, const limb_t *b) {
  size_t bytes = (size_t)m->n * sizeof(limb_t);
  if (memcmp(got, want, bytes) == 0 && limbs_lt(got, m->p, (size_t)m->n)) return;
  fprintf(stderr, "  %s %s mismatch\n", m->name, op);
  for (int i = m->n - 1; i >= 0; i--) fprintf(stderr, "    a[%d] %016" PRIx64 "\n", i, a[i]);
  for (int i = m->n - 1; b && i >= 0; i--) fprintf(stderr, "    b[%d] %016" PRIx64 "\n", i, b[i]);
  for (int i = m->n - 1; i >= 0; i--)
    fprintf(stderr, "    got %016" PRIx64 " want %016" PRIx64 "\n", got[i], want[i]);
  CHECK_EQ_MEM(got, want, bytes);
  CHECK(limbs_lt(got, m->p, (size_t)m->n));
}

/* All four binary/unary operations on one input pair, fast vs reference,
 * also with the output aliasing each input. */
static void check_pair(const modulus *m, const limb_t *a, const limb_t *b) {
  size_t bytes = (size_t)m->n * sizeof(limb_t);
  limb_t want[6], got[6], x[6];
  ref_mul(m, want, a, b);
  fast_mul(m, got, a, b);
  check_same(m, "mul", got, want, a, b);
  memcpy(x, a, bytes);
  fast_mul(m, x, x, b); /* r = a */
  check_same(m, "mul r=a", x, want, a, b);
  memcpy(x, b, bytes);
  fast_mul(m, x, a, x); /* r = b */
  check_same(m, "mul r=b", x, want, a, b);

  ref_sqr(m, want, a);
  fast_sqr(m, got, a);
  check_same(m, "sqr", got, want, a, NULL);
  memcpy(x, a, bytes);
  fast_sqr(m, x, x);
  check_same(m, "sqr r=a", x, want, a, NULL);
  fast_mul(m, got, a, a); /* a = b: mul and sqr agree */
  check_same(m, "mul a=b", got, want, a, NULL);
  memcpy(x, a, bytes);
  fast_mul(m, x, x, x); /* r = a = b */
  check_same(m, "mul r=a=b", x, want, a, NULL);

  ref_add(m, want, a, b);
  fast_add(m, got, a, b);
  check_same(m, "add", got, want, a, b);
  memcpy(x, a, bytes);
  fast_add(m, x, x, b);
  check_same(m, "add r=a", x, want, a, b);

  ref_sub(m, want, a, b);
  fast_sub(m, got, a, b);
  check_same(m, "sub", got, want, a, b);
  memcpy(x, b, bytes);
  fast_sub(m, x, a, x);
  check_same(m, "sub r=b", x, want, a, b);
}

TEST(mont_n0_matches_constants) {
  modulus ms[4];
  mod_count(ms);
  CHECK(ms[0].n0 == BLS12_381_FP_N0);
  CHECK(ms[1].n0 == BLS12_381_FR_N0);
  for (int i = 0; i < 4; i++) {
    CHECK((ms[i].p[0] * ms[i].n0) == ~(limb_t)0); /* p * (-p^-1) = -1 */
    CHECK(ms[i].p[ms[i].n - 1] >> 63 == 0);      /* what the assembly relies on */
  }
}

TEST(mont_edge_cases_all_pairs) {
  modulus ms[4];
  int nm = mod_count(ms);
  limb_t e[MAX_EDGES][6];
  for (int mi = 0; mi < nm; mi++) {
    int ne = edge_cases(e, &ms[mi]);
    for (int i = 0; i < ne; i++) {
      CHECK(limbs_lt(e[i], ms[mi].p, (size_t)ms[mi].n));
      for (int j = 0; j < ne; j++) check_pair(&ms[mi], e[i], e[j]);
    }
  }
}

TEST(mont_random_vs_ref) {
  modulus ms[4];
  int nm = mod_count(ms);
  for (int mi = 0; mi < nm; mi++) {
    test_rng g = {test_stream_seed(0x6d6f6e74u + (uint64_t)mi)};
    for (int it = 0; it < RANDOM_ITERS; it++) {
      limb_t a[6], b[6];
      rand_below(a, &ms[mi], &g);
      rand_below(b, &ms[mi], &g);
      check_pair(&ms[mi], a, b);
    }
  }
}

/* Random values biased to the extremes: each limb drawn from {0, 1, all
 * ones, the limb of p, the limb of p minus one, random}, kept if < p.
 * These reach the carry paths uniform draws almost never do. */
TEST(mont_random_extreme_limbs_vs_ref) {
  modulus ms[4];
  int nm = mod_count(ms);
  for (int mi = 0; mi < nm; mi++) {
    const modulus *m = &ms[mi];
    test_rng g = {test_stream_seed(0xe47e3eu + (uint64_t)mi)};
    for (int it = 0; it < RANDOM_ITERS; it++) {
      limb_t v[2][6];
      for (int k = 0; k < 2; k++) {
        do {
          for (int i = 0; i < m->n; i++) {
            uint64_t s = test_rng_next(&g);
            switch (s % 6) {
            case 0: v[k][i] = 0; break;
            case 1: v[k][i] = 1; break;
            case 2: v[k][i] = ~(limb_t)0; break;
            case 3: v[k][i] = m->p[i]; break;
            case 4: v[k][i] = m->p[i] - 1; break;
            default: v[k][i] = test_rng_next(&g); break;
            }
          }
        } while (!limbs_lt(v[k], m->p, (size_t)m->n));
      }
      check_pair(m, v[0], v[1]);
    }
  }
}

/* x <- x*y and z <- z^2 for many steps, fast and reference in lockstep:
 * outputs feed inputs, as in real use. */
TEST(mont_chains_vs_ref) {
  modulus ms[4];
  int nm = mod_count(ms);
  for (int mi = 0; mi < nm; mi++) {
    const modulus *m = &ms[mi];
    size_t bytes = (size_t)m->n * sizeof(limb_t);
    test_rng g = {test_stream_seed(0xc4a1u + (uint64_t)mi)};
    limb_t xf[6], xr[6], y[6], zf[6], zr[6], sf[6], sr[6];
    rand_below(xf, m, &g);
    rand_below(y, m, &g);
    rand_below(zf, m, &g);
    memcpy(xr, xf, bytes);
    memcpy(zr, zf, bytes);
    memcpy(sf, xf, bytes);
    memcpy(sr, xf, bytes);
    for (int it = 0; it < 100000; it++) {
      fast_mul(m, xf, xf, y);
      ref_mul(m, xr, xr, y);
      fast_sqr(m, zf, zf);
      ref_sqr(m, zr, zr);
      fast_add(m, sf, sf, xf);
      ref_add(m, sr, sr, xr);
      fast_sub(m, sf, sf, zf);
      ref_sub(m, sr, sr, zr);
      if (memcmp(xf, xr, bytes) || memcmp(zf, zr, bytes) || memcmp(sf, sr, bytes))
        TEST_FAIL("%s: chains diverge at step %d", m->name, it);
    }
  }
}

/* ---- a quick timing: dependent chains, a <- a*b and a <- a^2 ----
 * On the thread's CPU clock, best of three rounds, as the machines are
 * shared; printed, not checked.  bench/bench_mont.c runs longer chains and
 * add/sub as well. */

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define TIME_CHAIN(label, n, stmt)                                                                 \
  do {                                                                                             \
    double best_ = 1e30;                                                                           \
    for (int r_ = 0; r_ < 3; r_++) {                                                               \
      double t0_ = cpu_ns();                                                                       \
      for (long i_ = 0; i_ < (n); i_++) { stmt; }                                                  \
      double t_ = (cpu_ns() - t0_) / (double)(n);                                                  \
      if (t_ < best_) best_ = t_;                                                                  \
    }                                                                                              \
    printf("  %-12s %7.1f ns\n", label, best_);                                                    \
  } while (0)

TEST(mont_quick_timing) {
  const long n = 300000;
  modulus ms[4];
  mod_count(ms);
  const modulus *fp = &ms[0], *fr = &ms[1];
  test_rng g = {test_stream_seed(42)};
  limb_t a[6], b[6];
  printf("  assembly: %s; dependent chains of %ld, best of 3\n", MONT_ASM, n);
  rand_below(a, fp, &g);
  rand_below(b, fp, &g);
  TIME_CHAIN("384 mul ref", n, mont384_mul_ref(a, a, b, fp->p, fp->n0));
  TIME_CHAIN("384 mul", n, mont384_mul(a, a, b, fp->p, fp->n0));
  TIME_CHAIN("384 sqr ref", n, mont384_sqr_ref(a, a, fp->p, fp->n0));
  TIME_CHAIN("384 sqr", n, mont384_sqr(a, a, fp->p, fp->n0));
  rand_below(a, fr, &g);
  rand_below(b, fr, &g);
  TIME_CHAIN("256 mul ref", n, mont256_mul_ref(a, a, b, fr->p, fr->n0));
  TIME_CHAIN("256 mul", n, mont256_mul(a, a, b, fr->p, fr->n0));
  TIME_CHAIN("256 sqr ref", n, mont256_sqr_ref(a, a, fr->p, fr->n0));
  TIME_CHAIN("256 sqr", n, mont256_sqr(a, a, fr->p, fr->n0));
  CHECK(limbs_lt(a, fr->p, 4)); /* keeps the chains live */
}
