/* mont384_mul_kara_x86 (ff/mont_x86_kara.h, the one-level Karatsuba 6-limb
 * Montgomery multiplication) against mont384_mul_x86 and the portable
 * mont384_mul_ref: BLS12-381 p and a 383-bit odd modulus (the contract's
 * bound, where the 193-bit sums a0 + a1 carry often).  Named edge cases and
 * every pair of them, inputs chosen so that a0 + a1 and b0 + b1 carry out
 * of 192 bits, 100k fixed-seed random pairs per modulus, a = b, and the
 * output aliasing a, b or both.  Skips where the assembly is not built. */
#include "harness.h"

#include "base/bytes.h"
#include "ff/consts_bls12_381.h"
#include "ff/mont.h"
#include "ff/mont_x86_kara.h"

#define RANDOM_ITERS 100000

#if defined(CUZK_MONT_X86) && defined(__ELF__)

typedef struct {
  const char *name;
  limb_t p[6];
  limb_t n0;
} modulus;

/* -p^-1 mod 2^64 by Newton's iteration x <- x(2 - p x). */
static limb_t neg_inv64(limb_t p0) {
  limb_t x = p0;
  for (int i = 0; i < 6; i++) x *= 2 - p0 * x;
  return (limb_t)0 - x;
}

static void moduli(modulus ms[2]) {
  static const limb_t bls_fp[6] = BLS12_381_FP_P;
  /* An odd 383-bit modulus (fixed digits, nothing special about it). */
  static const limb_t p383[6] = {0x9c2f6a1e5b3d7f11ULL, 0xd1e2f3a4b5c6d7e8ULL,
                                 0x0123456789abcdefULL, 0xfedcba9876543210ULL,
                                 0xa5a5a5a5a5a5a5a5ULL, 0x7fc3b2a1908f7e6dULL};
  ms[0].name = "bls12_381 p";
  memcpy(ms[0].p, bls_fp, sizeof bls_fp);
  ms[1].name = "383-bit odd";
  memcpy(ms[1].p, p383, sizeof p383);
  for (int i = 0; i < 2; i++) ms[i].n0 = neg_inv64(ms[i].p[0]);
}

static void rand_below(limb_t *r, const modulus *m, test_rng *g) {
  limb_t mask = ~(limb_t)0 >> __builtin_clzll(m->p[5]);
  do {
    for (int i = 0; i < 6; i++) r[i] = test_rng_next(g);
    r[5] &= mask;
  } while (!limbs_lt(r, m->p, 6));
}

/* A random value < p whose low three limbs are all ones but for a random
 * low limb, so that a0 + a1 carries out of 192 bits unless a1 is tiny. */
static void rand_carry(limb_t *r, const modulus *m, test_rng *g) {
  rand_below(r, m, g);
  r[1] = r[2] = ~(limb_t)0;
}

#define MAX_EDGES 40
/* 0, 1, 2, p-1, p-2, (p-1)/2, 2^(64j)-1 (j = 1..5), p with limb j
 * decremented over all-ones limbs, the top bit of p alone, 2^192 - 1 +
 * 2^192 (a0 all ones, a1 = 1), and p-1 with its low half all ones. */
static int edge_cases(limb_t e[MAX_EDGES][6], const modulus *m) {
  int k = 0;
  memset(e, 0, sizeof(limb_t) * MAX_EDGES * 6);
  k++;
  e[k++][0] = 1;
  e[k++][0] = 2;
  memcpy(e[k], m->p, 48);
  e[k++][0] -= 1;
  memcpy(e[k], m->p, 48);
  e[k++][0] -= 2;
  for (int i = 0; i < 6; i++) e[k][i] = m->p[i] >> 1 | (i + 1 < 6 ? m->p[i + 1] << 63 : 0);
  k++;
  for (int j = 1; j < 6; j++, k++)
    for (int i = 0; i < j; i++) e[k][i] = ~(limb_t)0;
  for (int j = 1; j < 6; j++) {
    if (m->p[j] == 0) continue;
    memcpy(e[k], m->p, 48);
    e[k][j] -= 1;
    for (int i = 0; i < j; i++) e[k][i] = ~(limb_t)0;
    k++;
  }
  e[k++][5] = (limb_t)1 << (63 - __builtin_clzll(m->p[5]));
  e[k][0] = e[k][1] = e[k][2] = ~(limb_t)0;
  e[k++][3] = 1;
  memcpy(e[k], m->p, 48); /* p - 1 with a0 = 2^192 - 1 (below p: a1 < p1) */
  e[k][3] -= 1;
  e[k][0] = e[k][1] = e[k][2] = ~(limb_t)0;
  k++;
  return k;
}

static void check_one(const modulus *m, const char *what, const limb_t *got, const limb_t *want,
                      const limb_t *a, const limb_t *b) {
  if (memcmp(got, want, 48) == 0 && limbs_lt(got, m->p, 6)) return;
  fprintf(stderr, "  %s: %s mismatch\n", m->name, what);
  for (int i = 5; i >= 0; i--)
    fprintf(stderr, "    a %016" PRIx64 "  b %016" PRIx64 "  got %016" PRIx64 "  want %016" PRIx64
                    "\n",
            a[i], b[i], got[i], want[i]);
  CHECK_EQ_MEM(got, want, 48);
  CHECK(limbs_lt(got, m->p, 6));
}

/* One pair: Karatsuba vs reference and vs mont384_mul_x86, then with r
 * aliasing a, b, and both (a = b). */
static void check_pair(const modulus *m, const limb_t *a, const limb_t *b) {
  limb_t want[6], asm_r[6], got[6], x[6];
  mont384_mul_ref(want, a, b, m->p, m->n0);
  mont384_mul_x86(asm_r, a, b, m->p, m->n0);
  check_one(m, "mont384_mul_x86 vs ref", asm_r, want, a, b);
  mont384_mul_kara_x86(got, a, b, m->p, m->n0);
  check_one(m, "kara", got, want, a, b);
  memcpy(x, a, 48);
  mont384_mul_kara_x86(x, x, b, m->p, m->n0);
  check_one(m, "kara r=a", x, want, a, b);
  memcpy(x, b, 48);
  mont384_mul_kara_x86(x, a, x, m->p, m->n0);
  check_one(m, "kara r=b", x, want, a, b);

  mont384_mul_ref(want, a, a, m->p, m->n0);
  mont384_mul_kara_x86(got, a, a, m->p, m->n0);
  check_one(m, "kara a=b", got, want, a, a);
  memcpy(x, a, 48);
  mont384_mul_kara_x86(x, x, x, m->p, m->n0);
  check_one(m, "kara r=a=b", x, want, a, a);
}

TEST(mont_kara_edges) {
  modulus ms[2];
  moduli(ms);
  limb_t e[MAX_EDGES][6];
  for (int t = 0; t < 2; t++) {
    int n = edge_cases(e, &ms[t]);
    for (int i = 0; i < n; i++) CHECK(limbs_lt(e[i], ms[t].p, 6));
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) check_pair(&ms[t], e[i], e[j]);
  }
}

TEST(mont_kara_random) {
  modulus ms[2];
  moduli(ms);
  for (int t = 0; t < 2; t++) {
    test_rng g = {0x6b617261u + (uint64_t)t};
    limb_t a[6], b[6];
    for (int i = 0; i < RANDOM_ITERS; i++) {
      /* every 4th pair forces carries out of a0 + a1 and/or b0 + b1 */
      if ((i & 3) == 1) rand_carry(a, &ms[t], &g);
      else rand_below(a, &ms[t], &g);
      if ((i & 7) == 1 || (i & 3) == 2) rand_carry(b, &ms[t], &g);
      else rand_below(b, &ms[t], &g);
      check_pair(&ms[t], a, b);
    }
  }
}

/* A long dependent chain a <- a b against the reference's. */
TEST(mont_kara_chain) {
  modulus ms[2];
  moduli(ms);
  for (int t = 0; t < 2; t++) {
    test_rng g = {0x636861696eu + (uint64_t)t};
    limb_t x[6], y[6], b[6];
    rand_below(x, &ms[t], &g);
    rand_below(b, &ms[t], &g);
    memcpy(y, x, 48);
    for (int i = 0; i < 100000; i++) {
      mont384_mul_kara_x86(x, x, b, ms[t].p, ms[t].n0);
      mont384_mul_ref(y, y, b, ms[t].p, ms[t].n0);
    }
    check_one(&ms[t], "kara chain", x, y, b, b);
  }
}

#else
TEST(mont_kara_skipped) { TEST_SKIP("no x86-64 mulx/adx assembly in this build"); }
#endif
