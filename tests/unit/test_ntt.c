/* NTT: known roots, exact orders, fast = naive DFT for every small size,
 * fast = reference for larger random sizes, round trips, the snarkjs odd
 * coset against direct polynomial evaluation (and its stoppable form), and
 * thread-count independence. */
#include "harness.h"

#include <sys/resource.h>

#include "base/par.h"
#include "poly/ntt.h"

typedef bls12_381_fr fr;

/* ---------------------------------------------------------------- helpers */

/* Canonical limbs from a big-endian hex string (no 0x, up to 64 digits). */
static void hex_to_limbs(limb_t out[4], const char *hex) {
  memset(out, 0, 4 * sizeof(limb_t));
  size_t len = strlen(hex);
  for (size_t i = 0; i < len; i++) {
    char ch = hex[len - 1 - i];
    limb_t v = (ch >= '0' && ch <= '9') ? (limb_t)(ch - '0')
               : (ch >= 'a' && ch <= 'f') ? (limb_t)(ch - 'a' + 10)
                                          : (limb_t)(ch - 'A' + 10);
    out[i / 16] |= v << (4 * (i % 16));
  }
}

static void rand_fr(fr *r, test_rng *g) {
  limb_t x[4];
  do {
    for (int i = 0; i < 4; i++) x[i] = test_rng_next(g);
    x[3] &= 0x7fffffffffffffffULL;
  } while (!bls12_381_fr_canon_ok(x));
  bls12_381_fr_from_canon(r, x);
}

static fr *rand_vec(size_t n, uint64_t seed) {
  fr *v = malloc((n ? n : 1) * sizeof *v);
  CHECK(v != NULL);
  test_rng g = {test_stream_seed(seed)};
  for (size_t i = 0; i < n; i++) rand_fr(&v[i], &g);
  return v;
}

static fr *dup_vec(const fr *a, size_t n) {
  fr *v = malloc((n ? n : 1) * sizeof *v);
  CHECK(v != NULL);
  memcpy(v, a, n * sizeof *v);
  return v;
}

/* Reports the first differing element of two vectors. */
#define CHECK_VEC_EQ(a, b, n, what)                                                 \
  do {                                                                             \
    for (size_t i_ = 0; i_ < (n); i_++)                                            \
      if (!bls12_381_fr_eq(&(a)[i_], &(b)[i_]))                                    \
        TEST_FAIL("%s: element %zu of %zu differs", (what), i_, (size_t)(n));      \
  } while (0)

static void domain(ntt_domain *d, unsigned lg, ntt_roots roots) {
  cuzk_err err;
  cuzk_status s = ntt_domain_init(d, lg, roots, &err);
  CHECK_MSG(s == CUZK_OK, "ntt_domain_init(%u): %s", lg, err.msg);
}

/* x^(2^k) */
static void pow2k(fr *r, const fr *x, unsigned k) {
  *r = *x;
  for (unsigned i = 0; i < k; i++) bls12_381_fr_sqr(r, r);
}

static const ntt_roots chains[2] = {NTT_ROOTS_SNARKJS, NTT_ROOTS_BELLPERSON};

/* ------------------------------------------------------------------ roots */

TEST(root_known_answers) {
  /* docs/FORMATS.md §3.4 */
  static const struct {
    ntt_roots roots;
    const char *hex;
  } kat[] = {
      {NTT_ROOTS_SNARKJS, "212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"},
      {NTT_ROOTS_BELLPERSON, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"},
  };
  for (size_t i = 0; i < 2; i++) {
    fr w;
    limb_t got[4], want[4];
    ntt_root(&w, kat[i].roots, 32);
    bls12_381_fr_to_canon(got, &w);
    hex_to_limbs(want, kat[i].hex);
    CHECK_EQ_MEM(got, want, sizeof want);
  }
  /* and w[32] = g^t, t = (r - 1) / 2^32, for g = 5 and 7 */
  limb_t t[4];
  memcpy(t, bls12_381_fr_modulus, sizeof t);
  t[0] -= 1;
  for (int i = 0; i < 4; i++) t[i] = (t[i] >> 32) | (i < 3 ? t[i + 1] << 32 : 0);
  for (size_t i = 0; i < 2; i++) {
    fr g, want, got;
    bls12_381_fr_set_u64(&g, i == 0 ? 5 : 7);
    bls12_381_fr_pow(&want, &g, t, 4);
    ntt_root(&got, chains[i], 32);
    CHECK(bls12_381_fr_eq(&got, &want));
  }
  /* the chains differ */
  fr a, b;
  ntt_root(&a, NTT_ROOTS_SNARKJS, 20);
  ntt_root(&b, NTT_ROOTS_BELLPERSON, 20);
  CHECK(!bls12_381_fr_eq(&a, &b));
}

TEST(root_chain_exact_orders) {
  for (size_t c = 0; c < 2; c++) {
    for (unsigned k = 0; k <= 32; k++) {
      fr w, x, one, minus_one;
      bls12_381_fr_set_one(&one);
      bls12_381_fr_neg(&minus_one, &one);
      ntt_root(&w, chains[c], k);
      pow2k(&x, &w, k);
      CHECK_MSG(bls12_381_fr_is_one(&x), "chain %zu: w[%u]^(2^%u) != 1", c, k, k);
      if (k > 0) {
        pow2k(&x, &w, k - 1);
        CHECK_MSG(bls12_381_fr_eq(&x, &minus_one), "chain %zu: w[%u] has order below 2^%u", c, k, k);
      }
      if (k < 32) {
        fr up;
        ntt_root(&up, chains[c], k + 1);
        bls12_381_fr_sqr(&up, &up);
        CHECK(bls12_381_fr_eq(&up, &w));
      }
    }
    fr z;
    ntt_root(&z, chains[c], 33);
    CHECK(bls12_381_fr_is_zero(&z));
  }
}

TEST(domain_constants) {
  for (size_t c = 0; c < 2; c++) {
    for (unsigned lg = 0; lg <= 24; lg++) {
      ntt_domain d;
      domain(&d, lg, chains[c]);
      CHECK_EQ_INT(d.n, (size_t)1 << lg);
      CHECK_EQ_INT(d.lg_n, lg);
      fr x, one, minus_one, nn;
      bls12_381_fr_set_one(&one);
      bls12_381_fr_neg(&minus_one, &one);
      pow2k(&x, &d.omega, lg);
      CHECK(bls12_381_fr_is_one(&x));
      if (lg > 0) {
        pow2k(&x, &d.omega, lg - 1);
        CHECK(bls12_381_fr_eq(&x, &minus_one));
      }
      bls12_381_fr_mul(&x, &d.omega, &d.omega_inv);
      CHECK(bls12_381_fr_is_one(&x));
      bls12_381_fr_set_u64(&nn, d.n);
      bls12_381_fr_mul(&x, &nn, &d.n_inv);
      CHECK(bls12_381_fr_is_one(&x));
      /* the coset shift squares to omega */
      ntt_coset_shift(&x, &d);
      bls12_381_fr_sqr(&x, &x);
      CHECK(bls12_381_fr_eq(&x, &d.omega));
      ntt_domain_fini(&d);
    }
  }
}

TEST(domain_bounds) {
  ntt_domain d;
  cuzk_err err;
  CHECK_EQ_INT(ntt_domain_init(&d, 33, NTT_ROOTS_SNARKJS, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(err.status, CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(ntt_domain_init(&d, 40, NTT_ROOTS_SNARKJS, NULL), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(ntt_domain_init(&d, 4, (ntt_roots)7, NULL), CUZK_INVALID_ARGUMENT);
  ntt_domain_fini(&d); /* harmless on a failed init */
  /* 2^32 is accepted (tables are O(sqrt n)); its coset shift is snarkjs's 25 */
  domain(&d, 32, NTT_ROOTS_SNARKJS);
  fr w, s, t;
  ntt_root(&w, NTT_ROOTS_SNARKJS, 32);
  CHECK(bls12_381_fr_eq(&w, &d.omega));
  ntt_coset_shift(&s, &d);
  bls12_381_fr_set_u64(&t, 25);
  CHECK(bls12_381_fr_eq(&s, &t));
  ntt_domain_fini(&d);
  ntt_domain_fini(&d); /* idempotent */
}

/* -------------------------------------------------------- small: vs naive */

TEST(forward_inverse_match_naive_dft_all_small) {
  for (size_t c = 0; c < 2; c++) {
    for (unsigned lg = 0; lg <= 6; lg++) {
      ntt_domain d;
      domain(&d, lg, chains[c]);
      size_t n = d.n;
      fr *in = rand_vec(n, 100 + lg), *want = rand_vec(n, 0), *a = dup_vec(in, n);
      ntt_dft_naive(want, in, n, &d.omega);
      for (unsigned th = 1; th <= 3; th++) {
        memcpy(a, in, n * sizeof *a);
        ntt_forward(&d, a, th);
        CHECK_VEC_EQ(a, want, n, "forward vs naive");
      }
      memcpy(a, in, n * sizeof *a);
      ntt_forward_ref(&d, a, 1);
      CHECK_VEC_EQ(a, want, n, "forward_ref vs naive");

      /* inverse: naive DFT with omega^-1, times 1/n */
      ntt_dft_naive(want, in, n, &d.omega_inv);
      for (size_t i = 0; i < n; i++) bls12_381_fr_mul(&want[i], &want[i], &d.n_inv);
      memcpy(a, in, n * sizeof *a);
      ntt_inverse(&d, a, 2);
      CHECK_VEC_EQ(a, want, n, "inverse vs naive");
      memcpy(a, in, n * sizeof *a);
      ntt_inverse_ref(&d, a, 1);
      CHECK_VEC_EQ(a, want, n, "inverse_ref vs naive");
      free(in), free(want), free(a);
      ntt_domain_fini(&d);
    }
  }
}

/* The paths switch at lg_n = 12 (direct radix-2) / 13 (four-step); the
 * naive DFT is still cheap enough just either side of it. */
TEST(forward_matches_naive_dft_around_plan_switch) {
  unsigned lgs[] = {9, 13};
  for (size_t k = 0; k < 2; k++) {
    ntt_domain d;
    domain(&d, lgs[k], NTT_ROOTS_SNARKJS);
    size_t n = d.n;
    fr *in = rand_vec(n, 7 + k), *want = rand_vec(n, 0), *a = dup_vec(in, n);
    ntt_dft_naive(want, in, n, &d.omega);
    ntt_forward(&d, a, 2);
    CHECK_VEC_EQ(a, want, n, "forward vs naive");
    free(in), free(want), free(a);
    ntt_domain_fini(&d);
  }
}

TEST(edge_cases_n1_zero_constant_delta) {
  for (unsigned lg = 0; lg <= 14; lg++) {
    ntt_domain d;
    domain(&d, lg, NTT_ROOTS_SNARKJS);
    size_t n = d.n;
    fr *a = rand_vec(n, 1), one, c, nc;
    bls12_381_fr_set_one(&one);
    /* zeros stay zero, both ways */
    memset(a, 0, n * sizeof *a);
    ntt_forward(&d, a, 2);
    for (size_t i = 0; i < n; i++) CHECK(bls12_381_fr_is_zero(&a[i]));
    ntt_to_odd_coset(&d, a, 2);
    for (size_t i = 0; i < n; i++) CHECK(bls12_381_fr_is_zero(&a[i]));
    /* delta at 0 -> all ones */
    a[0] = one;
    ntt_forward(&d, a, 3);
    for (size_t i = 0; i < n; i++) CHECK(bls12_381_fr_is_one(&a[i]));
    /* all equal c -> (n c, 0, ..., 0) */
    test_rng g = {test_stream_seed(lg)};
    rand_fr(&c, &g);
    for (size_t i = 0; i < n; i++) a[i] = c;
    ntt_forward(&d, a, 2);
    bls12_381_fr_set_u64(&nc, n);
    bls12_381_fr_mul(&nc, &nc, &c);
    CHECK(bls12_381_fr_eq(&a[0], &nc));
    for (size_t i = 1; i < n; i++) CHECK(bls12_381_fr_is_zero(&a[i]));
    /* constant evaluations are a constant polynomial: the odd coset keeps them */
    for (size_t i = 0; i < n; i++) a[i] = c;
    ntt_to_odd_coset(&d, a, 2);
    for (size_t i = 0; i < n; i++) CHECK(bls12_381_fr_eq(&a[i], &c));
    /* delta at 1 -> omega^i */
    memset(a, 0, n * sizeof *a);
    if (n > 1) {
      a[1] = one;
      ntt_forward(&d, a, 2);
      fr x = one;
      for (size_t i = 0; i < n; i++) {
        CHECK(bls12_381_fr_eq(&a[i], &x));
        bls12_381_fr_mul(&x, &x, &d.omega);
      }
    }
    free(a);
    ntt_domain_fini(&d);
  }
}

/* --------------------------------------------------------- large: vs ref */

TEST_TIMEOUT(forward_inverse_match_ref_random_sizes, 300) {
  /* every size 2^7..2^16, fixed seeds, both chains alternating */
  for (unsigned lg = 7; lg <= 16; lg++) {
    ntt_domain d;
    domain(&d, lg, chains[lg & 1]);
    size_t n = d.n;
    fr *in = rand_vec(n, 1000 + lg), *want = dup_vec(in, n), *a = dup_vec(in, n);
    ntt_forward_ref(&d, want, 1);
    for (unsigned th = 1; th <= 3; th++) {
      memcpy(a, in, n * sizeof *a);
      ntt_forward(&d, a, th);
      CHECK_VEC_EQ(a, want, n, "forward vs ref");
    }
    memcpy(want, in, n * sizeof *a);
    ntt_inverse_ref(&d, want, 1);
    for (unsigned th = 1; th <= 3; th++) {
      memcpy(a, in, n * sizeof *a);
      ntt_inverse(&d, a, th);
      CHECK_VEC_EQ(a, want, n, "inverse vs ref");
    }
    free(in), free(want), free(a);
    ntt_domain_fini(&d);
  }
}

TEST_TIMEOUT(forward_matches_ref_2_20, 300) {
  ntt_domain d;
  domain(&d, 20, NTT_ROOTS_SNARKJS);
  size_t n = d.n;
  fr *in = rand_vec(n, 20), *want = dup_vec(in, n), *a = dup_vec(in, n);
  ntt_forward_ref(&d, want, 1);
  ntt_forward(&d, a, 2);
  CHECK_VEC_EQ(a, want, n, "forward vs ref at 2^20");
  free(in), free(want), free(a);
  ntt_domain_fini(&d);
}

TEST_TIMEOUT(round_trips_are_identity, 300) {
  for (unsigned lg = 0; lg <= 17; lg++) {
    ntt_domain d;
    domain(&d, lg, chains[lg % 2]);
    size_t n = d.n;
    fr *in = rand_vec(n, 50 + lg), *a = dup_vec(in, n);
    unsigned th = 1 + lg % 3;
    ntt_forward(&d, a, th);
    ntt_inverse(&d, a, th);
    CHECK_VEC_EQ(a, in, n, "inverse(forward(a))");
    ntt_inverse(&d, a, th);
    ntt_forward(&d, a, th);
    CHECK_VEC_EQ(a, in, n, "forward(inverse(a))");
    free(in), free(a);
    ntt_domain_fini(&d);
  }
}

/* ---------------------------------------------------------- odd coset */

/* Evaluations on D -> coefficients (naive inverse DFT) -> Horner at
 * w_2n^(2j+1).  Independent of every transform in ntt.c. */
TEST(odd_coset_matches_direct_evaluation_small) {
  for (size_t c = 0; c < 2; c++) {
    for (unsigned lg = 0; lg <= 6; lg++) {
      ntt_domain d;
      domain(&d, lg, chains[c]);
      size_t n = d.n;
      fr *ev = rand_vec(n, 300 + lg), *coef = rand_vec(n, 0), *a = dup_vec(ev, n);
      ntt_dft_naive(coef, ev, n, &d.omega_inv);
      for (size_t i = 0; i < n; i++) bls12_381_fr_mul(&coef[i], &coef[i], &d.n_inv);
      fr w2n, w2n_sq, x; /* x = w_2n^(2j+1) */
      ntt_root(&w2n, chains[c], lg + 1);
      bls12_381_fr_sqr(&w2n_sq, &w2n);
      x = w2n;
      for (unsigned th = 1; th <= 3; th++) {
        memcpy(a, ev, n * sizeof *a);
        ntt_to_odd_coset(&d, a, th);
        x = w2n;
        for (size_t j = 0; j < n; j++) {
          fr acc;
          bls12_381_fr_set_zero(&acc);
          for (size_t k = n; k-- > 0;) {
            bls12_381_fr_mul(&acc, &acc, &x);
            bls12_381_fr_add(&acc, &acc, &coef[k]);
          }
          CHECK_MSG(bls12_381_fr_eq(&a[j], &acc), "lg %u chain %zu threads %u: point %zu", lg, c,
                    th, j);
          bls12_381_fr_mul(&x, &x, &w2n_sq);
        }
      }
      memcpy(a, ev, n * sizeof *a);
      ntt_to_odd_coset_ref(&d, a, 1);
      x = w2n;
      for (size_t j = 0; j < n; j++) {
        fr acc;
        bls12_381_fr_set_zero(&acc);
        for (size_t k = n; k-- > 0;) {
          bls12_381_fr_mul(&acc, &acc, &x);
          bls12_381_fr_add(&acc, &acc, &coef[k]);
        }
        CHECK(bls12_381_fr_eq(&a[j], &acc));
        bls12_381_fr_mul(&x, &x, &w2n_sq);
      }
      free(ev), free(coef), free(a);
      ntt_domain_fini(&d);
    }
  }
}

TEST_TIMEOUT(odd_coset_matches_ref_larger, 300) {
  unsigned lgs[] = {10, 12, 13, 15};
  for (size_t k = 0; k < 4; k++) {
    ntt_domain d;
    domain(&d, lgs[k], NTT_ROOTS_SNARKJS);
    size_t n = d.n;
    fr *in = rand_vec(n, 400 + k), *want = dup_vec(in, n), *a = dup_vec(in, n);
    ntt_to_odd_coset_ref(&d, want, 1);
    ntt_to_odd_coset(&d, a, 1 + k % 3);
    CHECK_VEC_EQ(a, want, n, "odd coset vs ref");
    free(in), free(want), free(a);
    ntt_domain_fini(&d);
  }
}

/* The stoppable coset transform: an unset hook changes nothing; a set
 * one ends it early, false, on the direct path and the four-step one. */
TEST(odd_coset_stoppable) {
  const unsigned lgs[] = {10, 14};
  for (size_t k = 0; k < 2; k++) {
    ntt_domain d;
    domain(&d, lgs[k], NTT_ROOTS_SNARKJS);
    fr *in = rand_vec(d.n, 600 + k), *want = dup_vec(in, d.n), *a = dup_vec(in, d.n);
    ntt_to_odd_coset(&d, want, 2);
    cuzk_stop stop;
    atomic_init(&stop, false);
    CHECK(ntt_to_odd_coset_stoppable(&d, a, 2, &stop));
    CHECK_VEC_EQ(a, want, d.n, "odd coset under an unset stop hook");
    atomic_store(&stop, true);
    for (unsigned th = 1; th <= 2; th++) CHECK(!ntt_to_odd_coset_stoppable(&d, a, th, &stop));
    free(in), free(want), free(a);
    ntt_domain_fini(&d);
  }
}

TEST(scale_powers_matches_ref) {
  size_t sizes[] = {0, 1, 2, 3, 17, 4095, 4096, 10000, 65537};
  test_rng g = {test_stream_seed(9)};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    fr s;
    rand_fr(&s, &g);
    fr *in = rand_vec(n, 500 + k), *want = dup_vec(in, n), *a = dup_vec(in, n);
    ntt_scale_powers_ref(want, n, &s, 1);
    for (unsigned th = 1; th <= 5; th += 2) {
      memcpy(a, in, n * sizeof *a);
      ntt_scale_powers(a, n, &s, th);
      CHECK_VEC_EQ(a, want, n, "scale_powers vs ref");
    }
    free(in), free(want), free(a);
  }
}

/* ------------------------------------------------------- thread counts */

TEST_TIMEOUT(thread_counts_give_identical_results, 300) {
  /* direct path, both four-step parities, and sizes where a thread would
   * have no column block or row of its own */
  unsigned lgs[] = {5, 12, 13, 14, 17, 18};
  unsigned ths[] = {2, 3, 0, 7, 64};
  for (size_t k = 0; k < sizeof lgs / sizeof lgs[0]; k++) {
    ntt_domain d;
    domain(&d, lgs[k], NTT_ROOTS_SNARKJS);
    size_t n = d.n;
    fr *in = rand_vec(n, 600 + k), *one = dup_vec(in, n), *a = dup_vec(in, n);
    ntt_forward(&d, one, 1);
    for (size_t t = 0; t < sizeof ths / sizeof ths[0]; t++) {
      memcpy(a, in, n * sizeof *a);
      ntt_forward(&d, a, ths[t]);
      CHECK_EQ_MEM(a, one, n * sizeof *a);
    }
    memcpy(one, in, n * sizeof *a);
    ntt_to_odd_coset(&d, one, 1);
    for (size_t t = 0; t < sizeof ths / sizeof ths[0]; t++) {
      memcpy(a, in, n * sizeof *a);
      ntt_to_odd_coset(&d, a, ths[t]);
      CHECK_EQ_MEM(a, one, n * sizeof *a);
    }
    free(in), free(one), free(a);
    ntt_domain_fini(&d);
  }
}

/* One domain used by several callers at once (it is immutable). */
typedef struct {
  const ntt_domain *d;
  fr *bufs[4];
} shared_ctx;

static void shared_worker(void *vctx, unsigned idx, unsigned n) {
  shared_ctx *c = vctx;
  ntt_forward(c->d, c->bufs[idx], 2);
}

TEST(domain_shared_between_concurrent_callers) {
  ntt_domain d;
  domain(&d, 15, NTT_ROOTS_BELLPERSON);
  size_t n = d.n;
  fr *in = rand_vec(n, 77), *want = dup_vec(in, n);
  ntt_forward_ref(&d, want, 1);
  shared_ctx c = {&d, {0}};
  for (int i = 0; i < 4; i++) c.bufs[i] = dup_vec(in, n);
  par_run(4, shared_worker, &c);
  for (int i = 0; i < 4; i++) {
    CHECK_VEC_EQ(c.bufs[i], want, n, "concurrent forward");
    free(c.bufs[i]);
  }
  free(in), free(want);
  ntt_domain_fini(&d);
}

/* The scratch-free fallback: under an address-space limit the per-worker
 * scratch (256 KiB at 2^18, an mmap) and the worker threads (8 MiB stacks)
 * cannot be allocated; par_run then runs the workers in turn and the column
 * step transforms the strided data in place.  Same answer. */
TEST_TIMEOUT(no_scratch_fallback_matches_ref, 300) {
#if defined(__SANITIZE_ADDRESS__)
  TEST_SKIP("AddressSanitizer's allocator aborts instead of returning NULL");
#endif
  ntt_domain d;
  domain(&d, 18, NTT_ROOTS_SNARKJS);
  size_t n = d.n;
  fr *in = rand_vec(n, 18), *want = dup_vec(in, n), *a = dup_vec(in, n);
  ntt_forward_ref(&d, want, 1);
  long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld", &pages) != 1)
    TEST_SKIP("no /proc/self/statm");
  fclose(f);
  struct rlimit rl = {(rlim_t)pages * 4096, (rlim_t)pages * 4096};
  if (setrlimit(RLIMIT_AS, &rl) != 0)
    TEST_SKIP("setrlimit(RLIMIT_AS) failed");
  void *probe = malloc(256 << 10);
  if (probe)
    TEST_SKIP("a 256 KiB allocation still succeeds under the limit");
  ntt_forward(&d, a, 2);
  CHECK_VEC_EQ(a, want, n, "forward without scratch vs ref");
  ntt_inverse(&d, a, 3);
  CHECK_VEC_EQ(a, in, n, "inverse without scratch");
}
