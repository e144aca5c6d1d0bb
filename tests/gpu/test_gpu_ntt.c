/* The GPU NTT (src/cuda/ntt_gpu.h) against the CPU's (src/poly/ntt.h) and
 * the CPU backend's quotient op, for exact equality.
 *
 * Operations: forward, forward with bit-reversed output, inverse, the
 * snarkjs odd-coset evaluation, inverse(forward(x)) == x, and the quotient
 * h = a b - c on the odd coset (canonical bytes), on the device pointers and
 * through the host-memory function.  Inputs are random elements below r from
 * the run's seed (harness.h: fixed unless --seed or CUZK_TEST_SEED names
 * one; "random" for a fresh one); the host outputs are poisoned (0x5A) and the quotient's device output
 * buffer is filled with 0xA5 before each run.  The transforms work in place,
 * so an element they failed to write would keep its random input.
 *
 * Two kinds of test, as in test_gpu_field.c:
 *   emu_*   the device code run on the host by an emulated plan (no GPU):
 *           every small size, and pass splits, per-thread radices and
 *           block shapes chosen so that small sizes take the multi-pass
 *           paths 2^27 takes; they run wherever the build has CUDA code (CI);
 *   gpu_*   device 0: every size 2^1..2^20, then 2^22 and 2^24, each
 *           configuration, both root chains; skipped without a GPU. */

#include "gpu_test.h"

#include "backend/backend.h"
#include "cuda/cuda.h"
#include "cuda/ntt_gpu.h"
#include "ff/bls12_381.h"
#include "poly/ntt.h"

typedef bls12_381_fr fr;

static void random_fr(test_rng *rng, fr *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    do {
      for (int k = 0; k < 4; k++) x[i].l[k] = test_rng_next(rng);
      x[i].l[3] &= ((limb_t)1 << 63) - 1; /* r < 2^255 */
    } while (!limbs_lt(x[i].l, bls12_381_fr_modulus, 4));
  }
}

static fr *alloc_fr(size_t n) {
  fr *x = aligned_alloc(64, n * sizeof(fr) < 64 ? 64 : n * sizeof(fr));
  CHECK(x);
  return x;
}

static size_t bitrev(size_t x, unsigned bits) {
  size_t r = 0;
  for (unsigned i = 0; i < bits; i++, x >>= 1) r = (r << 1) | (x & 1);
  return r;
}

/* Fails with the first differing element printed. */
static void check_equal(const char *what, const cuda_ntt_config *cfg, unsigned lg, const void *got,
                        const void *want, size_t n) {
  const uint8_t *g = got, *w = want;
  for (size_t i = 0; i < n; i++)
    if (memcmp(g + 32 * i, w + 32 * i, 32) != 0) {
      fprintf(stderr, "  %s 2^%u (cap %u, first %u, %u threads%s%s%s): element %zu of %zu differs\n",
              what, lg, cfg->max_pass_lg, cfg->first_lg, cfg->threads,
              cfg->full_twiddles ? ", full twiddles" : "", cfg->pass1_table ? ", pass-1 table" : "",
              cfg->emulate ? ", emulated" : "", i, n);
      for (int s = 0; s < 2; s++) {
        fprintf(stderr, "    %s =", s ? "cpu" : "gpu");
        for (int k = 3; k >= 0; k--) {
          uint64_t l;
          memcpy(&l, (s ? w : g) + 32 * i + 8 * k, 8);
          fprintf(stderr, " %016" PRIx64, l);
        }
        fprintf(stderr, "\n");
      }
      TEST_FAIL("%s 2^%u: GPU result differs from the CPU's", what, lg);
    }
}

/* The CPU backend's quotient with a given c (the backend op derives c = a o b;
 * this is the same steps with c as given): a, b, c are overwritten. */
static void cpu_quotient_given_c(uint8_t *h, fr *a, fr *b, fr *c, unsigned lg) {
  ntt_domain d;
  cuzk_err err = {0};
  CHECK(ntt_domain_init(&d, lg, NTT_ROOTS_SNARKJS, &err) == CUZK_OK);
  ntt_to_odd_coset(&d, a, 0);
  ntt_to_odd_coset(&d, b, 0);
  ntt_to_odd_coset(&d, c, 0);
  for (size_t i = 0; i < d.n; i++) {
    fr t;
    limb_t canon[4];
    bls12_381_fr_mul(&t, &a[i], &b[i]);
    bls12_381_fr_sub(&t, &t, &c[i]);
    bls12_381_fr_to_canon(canon, &t);
    limbs_to_le(h + 32 * i, canon, 4);
  }
  ntt_domain_fini(&d);
}

/* Every operation at size 2^lg under cfg (which needs 4 buffers), compared
 * with the CPU.  roots: the chain. */
static void check_size(const cuda_ntt_config *cfg, unsigned lg, int roots, test_rng *rng) {
  const size_t n = (size_t)1 << lg;
  cuda_ntt_plan *p = NULL;
  {
    cuzk_err err_ = {0};
    cuzk_status s_ = cuda_ntt_plan_new(&p, lg, roots, cfg, &err_);
    CHECK_MSG(s_ == CUZK_OK, "plan 2^%u: %s: %s", lg, cuzk_status_name(s_), err_.msg);
  }
  ntt_domain d;
  {
    cuzk_err err = {0};
    CHECK(ntt_domain_init(&d, lg, (ntt_roots)roots, &err) == CUZK_OK);
  }
  fr *x = alloc_fr(n), *want = alloc_fr(n), *got = alloc_fr(n);
  fr *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n);
  void *d0 = cuda_ntt_plan_buffer(p, 0);
  cuzk_err err_ = {0};
#define RUN(call)                                                                            \
  do {                                                                                       \
    cuzk_status s_ = (call);                                                                 \
    CHECK_MSG(s_ == CUZK_OK, "2^%u: %s: %s: %s", lg, #call, cuzk_status_name(s_), err_.msg); \
  } while (0)

  typedef void (*cpu_fn)(const ntt_domain *, fr *, unsigned);
  typedef cuzk_status (*gpu_fn)(const cuda_ntt_plan *, void *, void *, cuzk_err *);
  static const struct {
    const char *name;
    cpu_fn cpu;
    gpu_fn gpu;
    int bitrev_out;
  } ops[] = {
      {"forward", ntt_forward, cuda_ntt_forward, 0},
      {"forward_bitrev", ntt_forward, cuda_ntt_forward_bitrev, 1},
      {"inverse", ntt_inverse, cuda_ntt_inverse, 0},
      {"to_odd_coset", ntt_to_odd_coset, cuda_ntt_to_odd_coset, 0},
  };
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    random_fr(rng, x, n);
    memcpy(want, x, n * sizeof(fr));
    ops[o].cpu(&d, want, 0);
    if (ops[o].bitrev_out) {
      memcpy(got, want, n * sizeof(fr));
      for (size_t i = 0; i < n; i++) want[bitrev(i, lg)] = got[i];
    }
    memset(got, 0x5A, n * sizeof(fr));
    RUN(cuda_ntt_upload(p, 0, x, NULL, &err_));
    RUN(ops[o].gpu(p, d0, NULL, &err_));
    RUN(cuda_ntt_download(p, got, 0, NULL, &err_));
    RUN(cuda_ntt_sync(p, NULL, &err_));
    check_equal(ops[o].name, cfg, lg, got, want, n);
  }

  /* inverse(forward(x)) == x, on the device without a round trip */
  random_fr(rng, x, n);
  memset(got, 0x5A, n * sizeof(fr));
  RUN(cuda_ntt_upload(p, 0, x, NULL, &err_));
  RUN(cuda_ntt_forward(p, d0, NULL, &err_));
  RUN(cuda_ntt_inverse(p, d0, NULL, &err_));
  RUN(cuda_ntt_download(p, got, 0, NULL, &err_));
  RUN(cuda_ntt_sync(p, NULL, &err_));
  check_equal("inverse(forward(x))", cfg, lg, got, x, n);

  /* quotient on device pointers: h in its own poisoned buffer (3) */
  if (roots == NTT_ROOTS_SNARKJS) {
    backend *be = backend_cpu_new(0);
    CHECK(be);
    random_fr(rng, a, n);
    random_fr(rng, b, n);
    RUN(cuda_ntt_upload(p, 0, a, NULL, &err_));
    RUN(cuda_ntt_upload(p, 1, b, NULL, &err_));
    RUN(cuda_ntt_fill(p, 2, 0xA5, NULL, &err_)); /* c: computed on the device */
    RUN(cuda_ntt_fill(p, 3, 0xA5, NULL, &err_)); /* h */
    RUN(cuda_ntt_quotient_dev(p, cuda_ntt_plan_buffer(p, 3), d0, cuda_ntt_plan_buffer(p, 1),
                              cuda_ntt_plan_buffer(p, 2), true, NULL, &err_));
    memset(got, 0x5A, n * sizeof(fr));
    RUN(cuda_ntt_download(p, got, 3, NULL, &err_));
    RUN(cuda_ntt_sync(p, NULL, &err_));
    cuzk_err e2 = {0};
    CHECK_MSG(be->ops->quotient(be, want, a, b, c, lg, &e2) == CUZK_OK, "cpu quotient: %s", e2.msg);
    check_equal("quotient (c = a o b)", cfg, lg, got, want, n);
    backend_free(be);
  }
  free(x);
  free(want);
  free(got);
  free(a);
  free(b);
  free(c);
  ntt_domain_fini(&d);
  cuda_ntt_plan_free(p);
#undef RUN
}


/* Configurations that make small sizes take the paths of large ones:
 * several passes (cap), passes of one stage (2^1 elements per thread),
 * narrow and wide blocks, the twiddle tables. */
static const cuda_ntt_config configs[] = {
    {.buffers = 4},                                                   /* default */
    {.buffers = 4, .max_pass_lg = 3},                                 /* rounds of 2 + 1 */
    {.buffers = 4, .max_pass_lg = 3, .first_lg = 1},    /* first passes of 1 stage */
    {.buffers = 4, .max_pass_lg = 4, .threads = 32},                  /* narrow blocks */
    {.buffers = 4, .max_pass_lg = 5, .threads = 64},                  /* top round of 1 stage */
    {.buffers = 4, .max_pass_lg = 8, .threads = 64},    /* a column's threads fill a block */
    {.buffers = 4, .max_pass_lg = 3, .full_twiddles = true},          /* one twiddle table */
    {.buffers = 4, .max_pass_lg = 3, .pass1_table = true},            /* D_1 in data order */
    {.buffers = 4, .max_pass_lg = 4, .full_twiddles = true, .pass1_table = true},
    {.buffers = 4, .max_pass_lg = 9},                                 /* 2^27's pass shape */
    {.buffers = 4, .max_pass_lg = 5, .threads = 512},                 /* wider blocks */
    {.buffers = 4, .max_pass_lg = 5, .first_lg = 5, .pass1_table = true}, /* outer passes of 5 */
};
#define NCONFIGS (sizeof configs / sizeof configs[0])

static void describe(const cuda_ntt_config *cfg, unsigned lg) {
  cuda_ntt_plan *p = NULL;
  cuzk_err err = {0};
  char line[512];
  if (cuda_ntt_plan_new(&p, lg, NTT_ROOTS_SNARKJS, cfg, &err) == CUZK_OK) {
    cuda_ntt_plan_describe(p, line, sizeof line);
    printf("    %s\n", line);
  }
  cuda_ntt_plan_free(p);
}

/* ---------------------------------------------------------- emulated */

static void emu_sweep(const cuda_ntt_config *base, unsigned lg_lo, unsigned lg_hi) {
  cuda_ntt_config cfg = *base;
  cfg.emulate = true;
  test_rng rng = {test_seed()};
  for (unsigned lg = lg_lo; lg <= lg_hi; lg++) check_size(&cfg, lg, NTT_ROOTS_SNARKJS, &rng);
  describe(&cfg, lg_hi);
  printf("  emulated: 2^%u..2^%u equal to the CPU (5 ops + round trip)\n", lg_lo, lg_hi);
}

TEST(emu_default) {
  emu_sweep(&configs[0], 0, 13);
}
TEST(emu_configs) {
  for (size_t i = 1; i < NCONFIGS; i++) emu_sweep(&configs[i], 1, 11);
}
/* 9 + 9 stages: the pass shape of 2^27 (passes of 9: 5 rounds at 2^2 per
 * thread) and its product twiddles, on the host; blocks of 256 and 512. */
TEST_TIMEOUT(emu_two_passes_of_9, 600) {
  cuda_ntt_config cfg = {.buffers = 4, .max_pass_lg = 9, .emulate = true};
  test_rng rng = {test_seed()};
  check_size(&cfg, 18, NTT_ROOTS_SNARKJS, &rng);
  describe(&cfg, 18);
  cfg.threads = 512; /* 4 columns a block: warp-uniform groups of 4 bits */
  check_size(&cfg, 18, NTT_ROOTS_SNARKJS, &rng);
  describe(&cfg, 18);
}
/* The self-sorting forward and inverse (three passes, the middle one
 * exchanging the outer digits): the plans say they self-sort, and every
 * shape gives the CPU's bytes -- middle passes of 1 to 6 stages, two
 * columns a block (the fewest a swapping pass takes) and more, the pass-1
 * table, both root chains. */
static bool plan_self_sorts(const cuda_ntt_config *cfg, unsigned lg) {
  cuda_ntt_plan *p = NULL;
  cuzk_err err = {0};
  char line[512] = "";
  CHECK_MSG(cuda_ntt_plan_new(&p, lg, NTT_ROOTS_SNARKJS, cfg, &err) == CUZK_OK, "%s", err.msg);
  cuda_ntt_plan_describe(p, line, sizeof line);
  cuda_ntt_plan_free(p);
  return strstr(line, "self-sorting") != NULL;
}
TEST_TIMEOUT(emu_self_sorting, 600) {
  static const cuda_ntt_config cfgs[] = {
      {.buffers = 4, .max_pass_lg = 6, .emulate = true},
      {.buffers = 4, .max_pass_lg = 7, .threads = 64, .pass1_table = true, .emulate = true},
      {.buffers = 4, .max_pass_lg = 7, .first_lg = 7, .emulate = true}, /* 7 + (1..4) + 7 */
  };
  test_rng rng = {test_seed()};
  for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
    const unsigned lo = 2 * cfgs[i].max_pass_lg + 1, hi = lo + 3; /* three passes */
    for (unsigned lg = lo; lg <= hi; lg++) {
      CHECK_MSG(plan_self_sorts(&cfgs[i], lg), "config %zu, 2^%u: no self-sorting plan", i, lg);
      check_size(&cfgs[i], lg, lg & 1 ? NTT_ROOTS_BELLPERSON : NTT_ROOTS_SNARKJS, &rng);
    }
    describe(&cfgs[i], hi);
  }
  /* the default plans: self-sorting from three passes (2^21) up */
  cuda_ntt_config def = {.emulate = true};
  CHECK(!plan_self_sorts(&def, 20));
  for (unsigned lg = 21; lg <= 28; lg++) CHECK_MSG(plan_self_sorts(&def, lg), "2^%u", lg);
  printf("  self-sorting plans equal to the CPU, 2^13..2^18\n");
}

TEST(emu_bellperson_roots) {
  cuda_ntt_config cfg = {.buffers = 4, .max_pass_lg = 4, .emulate = true};
  test_rng rng = {test_seed()};
  for (unsigned lg = 1; lg <= 10; lg++) check_size(&cfg, lg, NTT_ROOTS_BELLPERSON, &rng);
}

/* cfg.pass1_table is the one way to ask for the pass-1 table: a plan of two
 * or more passes made with it holds exactly 32n bytes more and says so,
 * one of a single pass ignores it; the results with it are checked above
 * (configs, emu_self_sorting). */
TEST(emu_pass1_table) {
  for (unsigned lg = 1; lg <= 12; lg++) {
    cuda_ntt_config cfg = {.max_pass_lg = 4, .emulate = true};
    cuda_ntt_plan *p = NULL, *q = NULL;
    cuzk_err err = {0};
    CHECK_MSG(cuda_ntt_plan_new(&p, lg, NTT_ROOTS_SNARKJS, &cfg, &err) == CUZK_OK, "%s", err.msg);
    cfg.pass1_table = true;
    CHECK_MSG(cuda_ntt_plan_new(&q, lg, NTT_ROOTS_SNARKJS, &cfg, &err) == CUZK_OK, "%s", err.msg);
    char dp[512], dq[512];
    cuda_ntt_plan_describe(p, dp, sizeof dp);
    cuda_ntt_plan_describe(q, dq, sizeof dq);
    const bool passes = lg > 4; /* max_pass_lg 4: two passes or more */
    const size_t extra = passes ? (size_t)32 << lg : 0;
    CHECK_MSG(cuda_ntt_plan_bytes(q) == cuda_ntt_plan_bytes(p) + extra,
              "2^%u: %zu bytes with the table, %zu without, want %zu more", lg,
              cuda_ntt_plan_bytes(q), cuda_ntt_plan_bytes(p), extra);
    CHECK_MSG(!strstr(dp, "pass-1 table"), "2^%u: %s", lg, dp);
    CHECK_MSG((strstr(dq, "pass-1 table") != NULL) == passes, "2^%u: %s", lg, dq);
    cuda_ntt_plan_free(p);
    cuda_ntt_plan_free(q);
  }
}

TEST(bad_arguments) {
  cuda_ntt_plan *p = (cuda_ntt_plan *)1;
  cuzk_err err = {0};
  cuda_ntt_config cfg = {.emulate = true, .threads = 48};
  CHECK_EQ_INT(cuda_ntt_plan_new(&p, 31, NTT_ROOTS_SNARKJS, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK(p == NULL);
  CHECK_EQ_INT(cuda_ntt_plan_new(&p, 4, 7, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(cuda_ntt_plan_new(&p, 4, NTT_ROOTS_SNARKJS, &cfg, &err), CUZK_INVALID_ARGUMENT);
  cfg = (cuda_ntt_config){.emulate = true, .max_pass_lg = 11};
  CHECK_EQ_INT(cuda_ntt_plan_new(&p, 4, NTT_ROOTS_SNARKJS, &cfg, &err), CUZK_INVALID_ARGUMENT);
  cfg = (cuda_ntt_config){.emulate = true, .threads = 32};
  /* a pass of 10 stages at 2^2 elements per thread needs 256 threads */
  CHECK_EQ_INT(cuda_ntt_plan_new(&p, 10, NTT_ROOTS_SNARKJS, &cfg, &err), CUZK_INVALID_ARGUMENT);
  CHECK(strstr(err.msg, "threads") != NULL);
  cfg = (cuda_ntt_config){.emulate = true, .buffers = 1};
  CHECK_EQ_INT(cuda_ntt_plan_new(&p, 4, NTT_ROOTS_SNARKJS, &cfg, &err), CUZK_OK);
  uint8_t h[16 * 32];
  CHECK_EQ_INT(cuda_ntt_forward(p, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(cuda_ntt_forward(p, (char *)cuda_ntt_plan_buffer(p, 0) + 8, NULL, &err),
               CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(cuda_ntt_quotient(p, h, h, h, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK(cuda_ntt_plan_buffer(p, 1) == NULL);
  cuda_ntt_plan_free(p);
}

/* --------------------------------------------------------------- GPU */

TEST_TIMEOUT(gpu_every_size, 600) {
  need_gpu();
  test_rng rng = {test_seed()};
  for (unsigned lg = 0; lg <= 20; lg++) check_size(&configs[0], lg, NTT_ROOTS_SNARKJS, &rng);
  describe(&configs[0], 20);
  printf("  2^0..2^20 equal to the CPU (5 ops + round trip)\n");
}

TEST_TIMEOUT(gpu_large, 600) {
  need_gpu();
  test_rng rng = {test_seed()};
  for (unsigned lg = 22; lg <= 24; lg += 2) {
    check_size(&configs[0], lg, NTT_ROOTS_SNARKJS, &rng);
    describe(&configs[0], lg);
  }
  printf("  2^22, 2^24 equal to the CPU\n");
}

TEST_TIMEOUT(gpu_configs, 600) {
  need_gpu();
  test_rng rng = {test_seed()};
  static const unsigned sizes[] = {1, 2, 3, 5, 9, 10, 11, 13, 16, 19};
  for (size_t i = 1; i < NCONFIGS; i++) {
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
      check_size(&configs[i], sizes[k], NTT_ROOTS_SNARKJS, &rng);
    describe(&configs[i], 19);
  }
  cuda_ntt_config full = {.buffers = 4, .full_twiddles = true};
  check_size(&full, 20, NTT_ROOTS_SNARKJS, &rng);
  describe(&full, 20);
  printf("  %zu configurations equal to the CPU\n", NCONFIGS);
}

TEST_TIMEOUT(gpu_bellperson_roots, 300) {
  need_gpu();
  test_rng rng = {test_seed()};
  for (unsigned lg = 1; lg <= 18; lg += 3) check_size(&configs[0], lg, NTT_ROOTS_BELLPERSON, &rng);
}

/* The host-memory quotient: c derived (the backend op), and c given. */
TEST_TIMEOUT(gpu_quotient_host, 300) {
  need_gpu();
  test_rng rng = {test_seed()};
  backend *be = backend_cpu_new(0);
  CHECK(be);
  static const unsigned sizes[] = {0, 1, 4, 10, 17, 21};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    const unsigned lg = sizes[k];
    const size_t n = (size_t)1 << lg;
    cuda_ntt_config cfg = {.buffers = 3};
    cuda_ntt_plan *p = NULL;
    cuzk_err err = {0};
    CHECK_MSG(cuda_ntt_plan_new(&p, lg, NTT_ROOTS_SNARKJS, &cfg, &err) == CUZK_OK, "%s", err.msg);
    fr *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n), *a2 = alloc_fr(n), *b2 = alloc_fr(n);
    uint8_t *h = malloc(32 * n), *want = malloc(32 * n);
    CHECK(h && want);
    for (int given = 0; given < 2; given++) {
      random_fr(&rng, a, n);
      random_fr(&rng, b, n);
      random_fr(&rng, c, n); /* given: any c, not a o b */
      memcpy(a2, a, n * sizeof(fr));
      memcpy(b2, b, n * sizeof(fr));
      memset(h, 0x5A, 32 * n);
      CHECK_MSG(cuda_ntt_quotient(p, h, a, b, given ? c : NULL, NULL, &err) == CUZK_OK, "%s",
                err.msg);
      if (given) {
        cpu_quotient_given_c(want, a2, b2, c, lg);
      } else {
        CHECK(be->ops->quotient(be, want, a2, b2, c, lg, &err) == CUZK_OK);
      }
      check_equal(given ? "host quotient (c given)" : "host quotient (c = a o b)", &cfg, lg, h,
                  want, n);
    }
    free(a);
    free(b);
    free(c);
    free(a2);
    free(b2);
    free(h);
    free(want);
    cuda_ntt_plan_free(p);
  }
  backend_free(be);
  printf("  host quotient equal to the CPU backend's at 2^0..2^21\n");
}
