/* The GPU MSM (src/cuda/msm_gpu.h) against the CPU MSM (src/msm, msm_g1 /
 * msm_g2) for equality as group elements (jac_eq).
 *
 * Inputs: bases from msm_g?_gen_bases and scalars from a test RNG, both from
 * the run's seed (harness.h: fixed unless --seed or CUZK_TEST_SEED names
 * one; "random" for a fresh one).  Every context is made with MSM_GPU_POISON (the
 * scratch is filled with 0xA5 before every run) and the host result is
 * filled with 0x5A before every call, so neither an unwritten bucket nor an
 * unwritten result can pass.
 *
 * Two kinds of test, as in test_gpu_field.c:
 *   emu_*  the whole pipeline (every kernel's code, the sort, the merges,
 *          the reduction, the split) run on the host with emulated carry
 *          chains: wherever the build has CUDA code, CI included; small
 *          windows and chunks force many buckets per thread, threads per
 *          bucket and merge rounds at small n;
 *   gpu_*  the same on device 0; skipped, with the reason, without one.
 * Edge cases (each named in the output): zero scalars, infinity among the
 * bases, duplicate bases, opposite bases, all-equal scalars (one bucket per
 * window holds every point), scalars 1, r-1, (r-1)/2, (r+1)/2 and >= r,
 * n = 1, n not a power of two, mostly-bit witnesses with the split.  The
 * stop hook: a run stopped between its window groups, and the context's
 * next run exact. */

#include "gpu_test.h"

#include <pthread.h>
#include <time.h>

#include "base/clock.h"
#include "cuda/cuda.h"
#include "cuda/msm_gpu.h"
#include "msm/msm_internal.h"

/* ---- inputs ---- */

typedef enum {
  SC_RANDOM,
  SC_ZERO,
  SC_HALF_ZERO,
  SC_EQUAL,
  SC_BITS,
  SC_EDGE,
  SC_TOP,
  SC_WORDS, /* bits, with others of every width: words, small negatives, field elements */
  SC_SMALL  /* dense values below 2^40 and their negatives */
} scalar_kind;
typedef enum { BA_RANDOM, BA_SOME_INF, BA_DUPLICATE, BA_OPPOSITE, BA_SAME } base_kind;
static const char *const scalar_names[] = {"random", "zero", "half zero", "all equal", "bits",
                                           "edge values", "near (r-1)/2"};
static const char *const base_names[] = {"random", "some infinity", "duplicates", "opposite pairs",
                                         "all the same"};

/* A uniform scalar below r. */
static void random_scalar(test_rng *rng, limb_t s[4]) {
  do {
    for (int i = 0; i < 4; i++) s[i] = test_rng_next(rng);
    s[3] &= ~(limb_t)0 >> 1;
  } while (!limbs_lt(s, bls12_381_fr_modulus, 4));
}

/* r + k for small signed k, and 2^256 - 1 (not canonical: the MSMs read
 * scalars mod r). */
static void r_plus(limb_t s[4], int64_t k) {
  unsigned __int128 c = (unsigned __int128)(uint64_t)k;
  limb_t ext = k < 0 ? ~(limb_t)0 : 0;
  for (int i = 0; i < 4; i++) {
    c += (unsigned __int128)bls12_381_fr_modulus[i] + (i ? ext : 0);
    s[i] = (limb_t)c;
    c >>= 64;
  }
}

static void edge_scalar(test_rng *rng, size_t i, limb_t s[4]) {
  memset(s, 0, 32);
  switch (i % 11) {
  case 0: break;                                   /* 0 */
  case 1: s[0] = 1; break;                         /* 1 */
  case 2: s[0] = 2; break;                         /* 2 */
  case 3: r_plus(s, -1); break;                    /* r - 1 = -1 */
  case 4: r_plus(s, -2); break;                    /* r - 2 */
  case 5: /* (r - 1) / 2: the largest unfolded scalar */
    r_plus(s, -1);
    for (int j = 0; j < 4; j++) s[j] = (s[j] >> 1) | (j < 3 ? s[j + 1] << 63 : 0);
    break;
  case 6: /* (r + 1) / 2: the smallest folded one */
    r_plus(s, 1);
    for (int j = 0; j < 4; j++) s[j] = (s[j] >> 1) | (j < 3 ? s[j + 1] << 63 : 0);
    break;
  case 7: r_plus(s, 0); break;                     /* r = 0 */
  case 8: r_plus(s, 1); break;                     /* r + 1 = 1 */
  case 9: memset(s, 0xff, 32); break;              /* 2^256 - 1 */
  default: random_scalar(rng, s); break;
  }
}

typedef struct {
  int g2;
  size_t n;
  uint8_t *bases, *scalars;
} msm_case;

static size_t base_size(int g2) { return g2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff); }

static void make_case(msm_case *c, int g2, size_t n, uint64_t seed, scalar_kind sk, base_kind bk) {
  c->g2 = g2;
  c->n = n;
  const size_t bs = base_size(g2);
  c->bases = malloc(n * bs + 1);
  c->scalars = malloc(n * 32 + 1);
  CHECK(c->bases && c->scalars);
  cuzk_err err = {0};
  cuzk_status st = g2 ? msm_g2_gen_bases(c->bases, n, seed, 0, &err)
                      : msm_g1_gen_bases(c->bases, n, seed, 0, &err);
  CHECK_MSG(st == CUZK_OK, "gen_bases: %s", err.msg);
  for (size_t i = 0; i < n; i++) {
    uint8_t *b = c->bases + i * bs;
    switch (bk) {
    case BA_SOME_INF:
      if (i % 5 == 2)
        memset(b, 0, bs);
      break;
    case BA_DUPLICATE:
      if (i >= 3)
        memcpy(b, c->bases + (i % 3) * bs, bs);
      break;
    case BA_OPPOSITE: /* base 2k+1 = -base 2k */
      if (i % 2 == 1) {
        if (g2)
          bls12_381_g2_aff_neg((bls12_381_g2_aff *)b, (const bls12_381_g2_aff *)(b - bs));
        else
          bls12_381_g1_aff_neg((bls12_381_g1_aff *)b, (const bls12_381_g1_aff *)(b - bs));
      }
      break;
    case BA_SAME:
      if (i)
        memcpy(b, c->bases, bs);
      break;
    default:
      break;
    }
  }
  test_rng rng = {seed ^ 0x5ca1a25ULL};
  limb_t equal[4];
  random_scalar(&rng, equal);
  for (size_t i = 0; i < n; i++) {
    limb_t s[4] = {0, 0, 0, 0};
    switch (sk) {
    case SC_RANDOM: random_scalar(&rng, s); break;
    case SC_ZERO: break;
    case SC_HALF_ZERO:
      if (test_rng_next(&rng) & 1)
        random_scalar(&rng, s);
      break;
    case SC_EQUAL: memcpy(s, equal, 32); break;
    case SC_WORDS: { /* 40 % zeros, 30 % ones; the others: 32-bit words (15 %),
                        r - k for k < 2^20 (5 %), sums up to 2^40 (5 %), field
                        elements (5 %) */
      const uint64_t u = test_rng_next(&rng) % 100, x = test_rng_next(&rng);
      if (u >= 40 && u < 70)
        s[0] = 1;
      else if (u >= 70 && u < 85)
        s[0] = x & 0xffffffffu;
      else if (u >= 85 && u < 90)
        r_plus(s, -(int64_t)(x & 0xfffff) - 1);
      else if (u >= 90 && u < 95)
        s[0] = x & 0xffffffffffull;
      else if (u >= 95)
        random_scalar(&rng, s);
      break;
    }
    case SC_SMALL: {
      const uint64_t x = test_rng_next(&rng) & 0xffffffffffull;
      if (x & 1)
        r_plus(s, -(int64_t)x);
      else
        s[0] = x;
      break;
    }
    case SC_BITS: { /* a Filecoin-like witness: 60 % zeros, 36 % ones, 4 % others */
      uint64_t u = test_rng_next(&rng) % 100;
      if (u >= 60 && u < 96)
        s[0] = 1;
      else if (u >= 96)
        random_scalar(&rng, s);
      break;
    }
    case SC_EDGE: edge_scalar(&rng, i, s); break;
    case SC_TOP: { /* (r-1)/2 -+ k, k < 2^40: the largest folded scalars, both sides of the
                      fold, whose top windows hold the largest digits */
      const int64_t k = (int64_t)(test_rng_next(&rng) >> 24);
      r_plus(s, i & 1 ? 1 + 2 * k : -1 - 2 * k); /* r -+ (2k + 1), halved below */
      for (int j = 0; j < 4; j++) s[j] = (s[j] >> 1) | (j < 3 ? s[j + 1] << 63 : 0);
      break;
    }
    }
    limbs_to_le(c->scalars + i * 32, s, 4);
  }
}

static void free_case(msm_case *c) {
  free(c->bases);
  free(c->scalars);
}

/* ---- comparison ---- */

static void print_jac(const char *name, const void *p, size_t bytes) {
  fprintf(stderr, "    %s:", name);
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t l;
    memcpy(&l, (const uint8_t *)p + i, 8);
    fprintf(stderr, "%s%016" PRIx64, i % 48 ? " " : "\n      ", l);
  }
  fprintf(stderr, "\n");
}

/* Runs the case on ctx and on the CPU; fails the test on a difference. */
static void check_case(msm_gpu *ctx, const msm_case *c, const msm_gpu_opts *opts, const char *what) {
  cuzk_err err = {0};
  msm_part part = {c->bases, c->scalars, c->n};
  int equal;
  if (c->g2) {
    bls12_381_g2_jac got, want;
    memset(&got, 0x5A, sizeof got);
    cuzk_status st = msm_gpu_g2_parts(ctx, &got, &part, 1, opts, &err);
    CHECK_MSG(st == CUZK_OK, "%s: msm_gpu_g2_parts: %s: %s", what, cuzk_status_name(st), err.msg);
    CHECK(msm_g2(&want, c->bases, c->scalars, c->n, 0, &err) == CUZK_OK);
    equal = bls12_381_g2_jac_eq(&got, &want);
    if (!equal) {
      print_jac("gpu", &got, sizeof got);
      print_jac("cpu", &want, sizeof want);
    }
  } else {
    bls12_381_g1_jac got, want;
    memset(&got, 0x5A, sizeof got);
    cuzk_status st = msm_gpu_g1_parts(ctx, &got, &part, 1, opts, &err);
    CHECK_MSG(st == CUZK_OK, "%s: msm_gpu_g1_parts: %s: %s", what, cuzk_status_name(st), err.msg);
    CHECK(msm_g1(&want, c->bases, c->scalars, c->n, 0, &err) == CUZK_OK);
    equal = bls12_381_g1_jac_eq(&got, &want);
    if (!equal) {
      print_jac("gpu", &got, sizeof got);
      print_jac("cpu", &want, sizeof want);
    }
  }
  if (!equal)
    TEST_FAIL("%s: G%d MSM of %zu points (c %u, nwin %u, chunk %u, merge %u, group %u, split %u): "
              "GPU != CPU", what, c->g2 ? 2 : 1, c->n, opts ? opts->c : 0, opts ? opts->nwin : 0,
              opts ? opts->chunk : 0, opts ? opts->merge_chunk : 0, opts ? opts->group : 0,
              opts ? opts->split : 0);
}

static msm_gpu *new_ctx(int g2, size_t n_max, int emulate) {
  msm_gpu *ctx = NULL;
  cuzk_err err = {0};
  unsigned flags = MSM_GPU_HOST_INPUTS | MSM_GPU_POISON | (emulate ? MSM_GPU_EMULATE : 0);
  cuzk_status st = msm_gpu_new(&ctx, g2 ? MSM_GPU_G2 : MSM_GPU_G1, n_max, flags, &err);
  CHECK_MSG(st == CUZK_OK, "msm_gpu_new(G%d, %zu): %s: %s", g2 ? 2 : 1, n_max,
            cuzk_status_name(st), err.msg);
  return ctx;
}

/* One case: make, check, free. */
static void run_one(msm_gpu *ctx, int g2, size_t n, uint64_t seed, scalar_kind sk, base_kind bk,
                    const msm_gpu_opts *opts) {
  char what[128];
  snprintf(what, sizeof what, "%s scalars, %s bases", scalar_names[sk], base_names[bk]);
  msm_case c;
  make_case(&c, g2, n, seed, sk, bk);
  check_case(ctx, &c, opts, what);
  free_case(&c);
}

/* Whether the MSM of the parts on ctx (over res's device bases when res is
 * not NULL) equals the CPU MSM of the case's whole arrays; fails the test
 * when the GPU call does. */
static int parts_equal_cpu(msm_gpu *ctx, const msm_gpu_bases *res, const msm_case *c,
                           const msm_part *parts, size_t nparts) {
  cuzk_err err = {0};
  if (c->g2) {
    bls12_381_g2_jac got, want;
    memset(&got, 0x5A, sizeof got);
    cuzk_status st = res ? msm_gpu_g2_parts_resident(ctx, &got, res, parts, nparts, NULL, &err)
                         : msm_gpu_g2_parts(ctx, &got, parts, nparts, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "%s", err.msg);
    CHECK(msm_g2(&want, c->bases, c->scalars, c->n, 0, &err) == CUZK_OK);
    return bls12_381_g2_jac_eq(&got, &want);
  }
  bls12_381_g1_jac got, want;
  memset(&got, 0x5A, sizeof got);
  cuzk_status st = res ? msm_gpu_g1_parts_resident(ctx, &got, res, parts, nparts, NULL, &err)
                       : msm_gpu_g1_parts(ctx, &got, parts, nparts, NULL, &err);
  CHECK_MSG(st == CUZK_OK, "%s", err.msg);
  CHECK(msm_g1(&want, c->bases, c->scalars, c->n, 0, &err) == CUZK_OK);
  return bls12_381_g1_jac_eq(&got, &want);
}

/* parts[0..3) = the case cut at a and a + b (the last part the rest). */
static void cut_three(msm_part parts[3], const msm_case *c, size_t a, size_t b) {
  const size_t bs = base_size(c->g2);
  parts[0] = (msm_part){c->bases, c->scalars, a};
  parts[1] = (msm_part){c->bases + a * bs, c->scalars + a * 32, b};
  parts[2] = (msm_part){c->bases + (a + b) * bs, c->scalars + (a + b) * 32, c->n - a - b};
}

/* The case cut into three parts (sizes n/3, n/3 and the rest; some may be
 * empty) through the _parts entry point, against the CPU on the whole. */
static void check_three_parts(msm_gpu *ctx, const msm_case *c) {
  msm_part parts[3];
  cut_three(parts, c, c->n / 3, c->n / 3);
  CHECK_MSG(parts_equal_cpu(ctx, NULL, c, parts, 3),
            "G%d MSM of %zu points in three parts: GPU != CPU", c->g2 ? 2 : 1, c->n);
}

static void parts_check(int g2, size_t n, int emulate) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(g2, n, emulate);
  for (size_t k = 1; k <= n; k = k * 3 + 1) {
    msm_case c;
    make_case(&c, g2, k, seed + k, SC_RANDOM, BA_RANDOM);
    check_three_parts(ctx, &c);
    free_case(&c);
  }
  printf("  G%d: three-part MSMs up to n = %zu equal to the CPU MSM\n", g2 ? 2 : 1, n);
  msm_gpu_free(ctx);
}

/* A resident base set over three parts, reused with fresh scalars: each run
 * equal to the CPU MSM; parts that name other arrays are refused. */
static void resident_check(int g2, size_t n, int emulate) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(g2, n, emulate);
  msm_case c;
  make_case(&c, g2, n, seed, SC_RANDOM, BA_SOME_INF);
  const size_t a = n / 3, b = n / 2;
  msm_part parts[3];
  cut_three(parts, &c, a, b);
  cuzk_err err = {0};
  msm_gpu_bases *res = NULL;
  CHECK_MSG(msm_gpu_resident_new(&res, g2 ? MSM_GPU_G2 : MSM_GPU_G1, parts, 3,
                                 emulate ? MSM_GPU_EMULATE : 0, &err) == CUZK_OK,
            "%s", err.msg);
  CHECK(msm_gpu_bases_bytes(res) == n * base_size(g2) && msm_gpu_resident_match(res, parts, 3));
  for (int round = 0; round < 3; round++) {
    for (size_t i = 0; i < n; i++) {
      limb_t s[4];
      random_scalar(&(test_rng){seed + 7919 * (uint64_t)(round + 1) + i}, s);
      limbs_to_le(c.scalars + 32 * i, s, 4);
    }
    CHECK_MSG(parts_equal_cpu(ctx, res, &c, parts, 3),
              "G%d resident MSM of %zu points, round %d: GPU != CPU", g2 ? 2 : 1, n, round);
  }
  /* Other arrays, or the same ones cut differently, are not this set. */
  msm_part other[2] = {{c.bases, c.scalars, a + b}, parts[2]};
  CHECK(!msm_gpu_resident_match(res, other, 2));
  bls12_381_g1_jac g1o;
  bls12_381_g2_jac g2o;
  cuzk_status st = g2 ? msm_gpu_g2_parts_resident(ctx, &g2o, res, other, 2, NULL, &err)
                      : msm_gpu_g1_parts_resident(ctx, &g1o, res, other, 2, NULL, &err);
  CHECK_EQ_INT(st, CUZK_INVALID_ARGUMENT);
  printf("  G%d: resident set of %zu points, three runs equal to the CPU MSM\n", g2 ? 2 : 1, n);
  msm_gpu_bases_free(res);
  free_case(&c);
  msm_gpu_free(ctx);
}

/* ---- the stop hook ---- */

typedef struct {
  cuzk_stop *stop;
  double delay_s, t_set;
} stopper;

static void *stop_later(void *arg) {
  stopper *s = arg;
  const long ns = (long)(s->delay_s * 1e9);
  struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
  nanosleep(&ts, NULL);
  s->t_set = cuzk_now_s();
  atomic_store(s->stop, true);
  return NULL;
}

/* One G1 run of parts over res under stop (msm_gpu_parts_on_, the
 * context's stream); *secs its wall time. */
static cuzk_status stop_run(msm_gpu *ctx, const msm_gpu_bases *res, const msm_part *parts,
                            const msm_gpu_opts *o, const cuzk_stop *stop, bls12_381_g1_jac *out,
                            double *secs) {
  cuzk_err err = {0};
  const double t0 = cuzk_now_s();
  memset(out, 0x5A, sizeof *out);
  cuzk_status st = msm_gpu_g1_parts_on(ctx, out, res, parts, 3, o, NULL, stop, &err);
  *secs = cuzk_now_s() - t0;
  CHECK_MSG(st == CUZK_OK || st == CUZK_CANCELLED, "%s: %s", cuzk_status_name(st), err.msg);
  return st;
}

/* A G1 run of n points over a resident set, one window of c bits (0: the
 * plan's) per group, so that the hook is polled between the groups'
 * launches, and the bucket phase is most of the run (small windows when
 * emulated, where the reduction of wide ones takes longer than the
 * buckets of a few hundred points): under an unset
 * hook it equals the CPU MSM (the paced path); with the hook set before
 * it, CANCELLED; with the hook set a quarter of an unstopped run's time
 * into it, CANCELLED within a quarter of that time after the stop (a
 * group is 1/nwin of it: up to two groups are queued); then the context
 * runs again and equals the CPU MSM (the stopped run left its stream idle
 * and its buffers to the next). */
static void stop_check(size_t n, unsigned c_bits, int emulate) {
  msm_gpu *ctx = new_ctx(0, n, emulate);
  msm_case c;
  make_case(&c, 0, n, test_seed(), SC_RANDOM, BA_RANDOM);
  msm_part parts[3];
  cut_three(parts, &c, n / 3, n / 3);
  cuzk_err err = {0};
  msm_gpu_bases *res = NULL;
  CHECK_MSG(msm_gpu_resident_new(&res, MSM_GPU_G1, parts, 3, emulate ? MSM_GPU_EMULATE : 0,
                                 &err) == CUZK_OK, "%s", err.msg);
  bls12_381_g1_jac want, got;
  CHECK(msm_g1(&want, c.bases, c.scalars, n, 0, &err) == CUZK_OK);
  const msm_gpu_opts o = {.c = c_bits, .group = 1};
  cuzk_stop stop;
  atomic_init(&stop, false);
  double full, t;
  for (int round = 0; round < 2; round++) { /* a warm-up, then the run timed */
    CHECK_EQ_INT(stop_run(ctx, res, parts, &o, &stop, &got, &full), CUZK_OK);
    CHECK_MSG(bls12_381_g1_jac_eq(&got, &want), "G1 %zu points under an unset stop hook: GPU != CPU", n);
  }
  atomic_store(&stop, true);
  CHECK_EQ_INT(stop_run(ctx, res, parts, &o, &stop, &got, &t), CUZK_CANCELLED);
  atomic_store(&stop, false);
  stopper s = {&stop, full / 4, 0};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, stop_later, &s) == 0);
  cuzk_status st = stop_run(ctx, res, parts, &o, &stop, &got, &t);
  const double t_end = cuzk_now_s();
  pthread_join(th, NULL);
  CHECK_MSG(st == CUZK_CANCELLED, "the run (%.1f ms) ended before the stop at %.1f ms", t * 1e3,
            full / 4 * 1e3);
  const double after = t_end - s.t_set;
  CHECK_MSG(after <= full / 4, "the run went on %.1f ms after the stop (a whole run: %.1f ms)",
            after * 1e3, full * 1e3);
  CHECK_EQ_INT(stop_run(ctx, res, parts, &o, NULL, &got, &t), CUZK_OK);
  CHECK_MSG(bls12_381_g1_jac_eq(&got, &want), "G1 %zu points after a stopped run: GPU != CPU", n);
  printf("  G1 %zu points, one window (c %u) per group: a run %.1f ms; stopped %.1f ms after "
         "the stop\n", n, c_bits, full * 1e3, after * 1e3);
  msm_gpu_bases_free(res);
  free_case(&c);
  msm_gpu_free(ctx);
}

TEST_TIMEOUT(emu_stop_between_groups, 600) { stop_check(300, 4, 1); }

TEST_TIMEOUT(gpu_stop_between_groups, 600) {
  need_gpu();
  stop_check((size_t)1 << 22, 0, 0);
}

/* Every size 1..nmax with random inputs; opts varied with n when `vary`. */
static void sweep(int g2, size_t nmax, int emulate, int vary) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(g2, nmax, emulate);
  for (size_t n = 1; n <= nmax; n++) {
    msm_gpu_opts o = {0};
    if (vary)
      o = (msm_gpu_opts){.c = 2 + (unsigned)(n % 5), .chunk = 1 + (unsigned)(n % 3),
                         .merge_chunk = 4 + (unsigned)(n % 2), .group = 1 + (unsigned)(n % 4)};
    run_one(ctx, g2, n, seed + n, SC_RANDOM, BA_RANDOM, vary ? &o : NULL);
  }
  printf("  G%d: n = 1..%zu equal to the CPU MSM\n", g2 ? 2 : 1, nmax);
  msm_gpu_free(ctx);
}

/* Every scalar kind with every base kind at n points. */
static void edges(int g2, size_t n, int emulate, const msm_gpu_opts *opts) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(g2, n, emulate);
  for (int sk = 0; sk <= SC_TOP; sk++)
    for (int bk = 0; bk <= BA_SAME; bk++) run_one(ctx, g2, n, seed + 7 * sk + bk, sk, bk, opts);
  printf("  G%d: %d scalar kinds x %d base kinds at n = %zu equal to the CPU MSM\n", g2 ? 2 : 1,
         SC_TOP + 1, BA_SAME + 1, n);
  msm_gpu_free(ctx);
}

/* Scalars of kind sk through the auto split, which keeps one MSM. */
static void auto_unsplit(msm_gpu *ctx, int g2, size_t n, uint64_t seed, scalar_kind sk,
                         const msm_gpu_opts *base_opts, const char *what) {
  msm_case c;
  make_case(&c, g2, n, seed, sk, BA_RANDOM);
  msm_gpu_opts o = base_opts ? *base_opts : (msm_gpu_opts){0};
  o.split = MSM_GPU_SPLIT_AUTO;
  check_case(ctx, &c, &o, what);
  msm_gpu_counts got;
  CHECK(msm_gpu_last_counts(ctx, &got, NULL) == CUZK_OK);
  CHECK_EQ_INT(got.split, 0);
  free_case(&c);
}

/* Mostly-bit witnesses through the split: counts and result. */
static void split_check(int g2, size_t n, int emulate, const msm_gpu_opts *base_opts) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(g2, n, emulate);
  msm_case c;
  make_case(&c, g2, n, seed, SC_BITS, BA_SOME_INF);
  /* Counted as the run sees them: the scalar of a base at infinity is
   * zeroed on the device before the classification. */
  size_t want[3] = {0, 0, 0};
  const size_t bs = base_size(g2);
  for (size_t i = 0; i < n; i++) {
    limb_t s[4];
    limbs_from_le(s, c.scalars + i * 32, 4);
    uint8_t any = 0;
    for (size_t k = 0; k < bs; k++) any |= c.bases[i * bs + k];
    want[!any ? 0 : (s[1] | s[2] | s[3]) || s[0] > 1 ? 2 : s[0]]++;
  }
  const unsigned modes[] = {MSM_GPU_SPLIT_OFF, MSM_GPU_SPLIT_AUTO, MSM_GPU_SPLIT_ON};
  for (int k = 0; k < 3; k++) {
    msm_gpu_opts o = base_opts ? *base_opts : (msm_gpu_opts){0};
    o.split = modes[k];
    check_case(ctx, &c, &o, "bit witness");
    if (modes[k] == MSM_GPU_SPLIT_OFF)
      continue;
    msm_gpu_counts got;
    cuzk_err err = {0};
    CHECK_MSG(msm_gpu_last_counts(ctx, &got, &err) == CUZK_OK, "%s", err.msg);
    CHECK_EQ_INT(got.zeros, want[0]);
    CHECK_EQ_INT(got.ones, want[1]);
    CHECK_EQ_INT(got.others, want[2]);
    CHECK_EQ_INT(got.split, 1); /* 4 % others: auto splits too */
  }
  /* others of every width: the narrow ones (words, small negatives, sums)
   * apart from the field elements, each part on its own windows */
  free_case(&c);
  make_case(&c, g2, n, seed + 2, SC_WORDS, BA_SOME_INF);
  size_t wide = 0; /* the field elements: more than 40 bits folded */
  for (size_t i = 0; i < n; i++) {
    limb_t s[4];
    msm_scalar_load(s, c.scalars + i * 32); /* the CPU MSM's fold */
    uint8_t any = 0;
    for (size_t k = 0; k < bs; k++) any |= c.bases[i * bs + k];
    wide += any && (s[1] || s[2] || s[3] || s[0] >> 40);
  }
  const unsigned bounds[] = {0, 40, 254}; /* the cost model's, the words', all narrow */
  for (int k = 0; k < 4; k++) {
    msm_gpu_opts o = base_opts ? *base_opts : (msm_gpu_opts){0};
    o.split = k ? MSM_GPU_SPLIT_ON : MSM_GPU_SPLIT_AUTO;
    o.narrow = k ? bounds[k - 1] : 0;
    check_case(ctx, &c, &o, "words");
    msm_gpu_counts got;
    cuzk_err err = {0};
    CHECK_MSG(msm_gpu_last_counts(ctx, &got, &err) == CUZK_OK, "%s", err.msg);
    CHECK_EQ_INT(got.split, 1);
    CHECK_EQ_INT(got.narrow + got.wide, got.others);
    if (o.narrow == 40) {
      CHECK_EQ_INT(got.wide, wide);
      CHECK_EQ_INT(got.narrow_bits, 40);
    } else if (o.narrow == 254) {
      CHECK_EQ_INT(got.wide, 0);
    }
    if (k == 0)
      printf("  G%d: words of %zu points: %zu narrow (<= %u bits), %zu wide (the model's)\n",
             g2 ? 2 : 1, n, got.narrow, got.narrow_bits, got.wide);
  }
  free_case(&c);
  /* dense narrow scalars (one MSM over 41-bit windows) and dense field
   * elements: auto keeps one MSM */
  auto_unsplit(ctx, g2, n, seed + 3, SC_SMALL, base_opts, "small");
  auto_unsplit(ctx, g2, n, seed + 1, SC_RANDOM, base_opts, "dense through auto split");
  printf("  G%d: bit witness of %zu points (%zu zeros, %zu ones, %zu others): split off, auto, "
         "on equal to the CPU MSM\n", g2 ? 2 : 1, n, want[0], want[1], want[2]);
  msm_gpu_free(ctx);
}

/* Sizes: powers of two lg_lo..lg_hi and `nrand` random sizes below 2^lg_hi;
 * opts may be NULL. */
static void sizes(int g2, unsigned lg_lo, unsigned lg_hi, unsigned nrand, const msm_gpu_opts *opts) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(g2, (size_t)1 << lg_hi, 0);
  test_rng rng = {seed};
  for (unsigned k = 0; k < nrand; k++) {
    size_t n = 65 + test_rng_next(&rng) % (((size_t)1 << lg_hi) - 65);
    run_one(ctx, g2, n, seed + k, SC_RANDOM, BA_RANDOM, opts);
    printf("  G%d: n = %zu equal\n", g2 ? 2 : 1, n);
  }
  for (unsigned lg = lg_lo; lg <= lg_hi; lg++) {
    run_one(ctx, g2, (size_t)1 << lg, seed + 100 + lg, SC_RANDOM, BA_RANDOM, opts);
    printf("  G%d: n = 2^%u equal\n", g2 ? 2 : 1, lg);
  }
  msm_gpu_free(ctx);
}

/* ---- emulated: CI ---- */

TEST_TIMEOUT(emu_g1_sweep, 600) {
  sweep(0, 64, 1, 1);
}
TEST_TIMEOUT(emu_g2_sweep, 600) {
  sweep(1, 24, 1, 1);
}
TEST_TIMEOUT(emu_g1_edges, 600) {
  msm_gpu_opts o = {.c = 4, .chunk = 3, .merge_chunk = 4, .group = 5};
  edges(0, 23, 1, &o);
  o = (msm_gpu_opts){.c = 7, .chunk = 2, .merge_chunk = 4, .group = 2};
  edges(0, 301, 1, &o);
}
TEST_TIMEOUT(emu_g2_edges, 600) {
  msm_gpu_opts o = {.c = 3, .chunk = 2, .merge_chunk = 5, .group = 7};
  edges(1, 11, 1, &o);
  o = (msm_gpu_opts){.c = 5, .chunk = 4, .merge_chunk = 4};
  edges(1, 97, 1, &o);
}
/* The plan's own choices (21 windows of 13 and 12 bits at these sizes). */
TEST_TIMEOUT(emu_g1_auto_plan, 600) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(0, 2000, 1);
  run_one(ctx, 0, 40, seed, SC_RANDOM, BA_RANDOM, NULL);
  run_one(ctx, 0, 37, seed + 1, SC_EQUAL, BA_DUPLICATE, NULL);
  run_one(ctx, 0, 2000, seed + 2, SC_RANDOM, BA_RANDOM, NULL);
  run_one(ctx, 0, 1999, seed + 3, SC_EQUAL, BA_RANDOM, NULL);
  msm_gpu_free(ctx);
  ctx = new_ctx(1, 300, 1);
  run_one(ctx, 1, 300, seed + 4, SC_RANDOM, BA_SOME_INF, NULL);
  msm_gpu_free(ctx);
}
TEST_TIMEOUT(emu_split, 600) {
  msm_gpu_opts o = {.c = 5, .chunk = 2, .merge_chunk = 4};
  split_check(0, 200, 1, &o);
  o.c = 3;
  split_check(1, 60, 1, &o);
}

TEST_TIMEOUT(emu_parts, 600) {
  parts_check(0, 400, 1);
  parts_check(1, 130, 1);
}

TEST_TIMEOUT(emu_resident, 600) {
  resident_check(0, 300, 1);
  resident_check(1, 100, 1);
}

/* ---- emulated, window widths ---- */

/* Windows split equally (opts.nwin: floor / ceil(255 / nwin) bits, the
 * wider first): counts whose
 * splits mix two widths (20: 15 x 13 + 5 x 12 bits; 21: 3 x 13 + 18 x 12;
 * 23: 2 x 12 + 21 x 11;
 * 37: 33 x 7 + 4 x 6; 100: 55 x 3 + 45 x 2; 127: 1 x 3 + 126 x 2), and
 * ones that do not (51 x 5, 85 x 3); groups that straddle the change of
 * width.  A bit offset, a bucket base or a doubling count that is off by
 * one shifts some window's sum by a power of two: the CPU MSM differs. */
static const unsigned split_counts[] = {20, 21, 23, 26, 29, 37, 51, 85, 100, 127};

TEST_TIMEOUT(emu_varwin_split, 900) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(0, 160, 1);
  for (unsigned i = 0; i < sizeof split_counts / sizeof *split_counts; i++) {
    const unsigned w = split_counts[i];
    msm_gpu_opts o = {.nwin = w, .chunk = 1 + i % 3, .merge_chunk = 4 + i % 2,
                      .group = 1 + (i * 7) % 5};
    run_one(ctx, 0, 37 + 12 * i, seed + 11 * i, SC_TOP, BA_RANDOM, &o);
    run_one(ctx, 0, 29, seed + 11 * i + 1, SC_EDGE, BA_SOME_INF, &o);
    run_one(ctx, 0, 16, seed + 11 * i + 2, SC_EQUAL, BA_RANDOM, &o);
    run_one(ctx, 0, 9, seed + 11 * i + 3, SC_ZERO, BA_RANDOM, &o);
    o.group = 0; /* the plan's: all windows in one sort at this n */
    run_one(ctx, 0, 160, seed + 11 * i + 4, SC_RANDOM, BA_RANDOM, &o);
    printf("  G1: %u windows split equally: near-(r-1)/2, edge, all-equal, zero and random "
           "scalars equal to the CPU MSM\n", w);
  }
  msm_gpu_free(ctx);
  ctx = new_ctx(1, 40, 1);
  for (unsigned i = 0; i < sizeof split_counts / sizeof *split_counts; i += 3) {
    msm_gpu_opts o = {.nwin = split_counts[i], .chunk = 2, .merge_chunk = 4, .group = 3};
    run_one(ctx, 1, 40, seed + 500 + i, SC_TOP, BA_DUPLICATE, &o);
    run_one(ctx, 1, 13, seed + 600 + i, SC_EDGE, BA_OPPOSITE, &o);
  }
  printf("  G2: 4 window counts split equally equal to the CPU MSM\n");
  msm_gpu_free(ctx);
}

/* Every scalar and base kind through mixed widths; the split (ones apart)
 * over mixed widths. */
TEST_TIMEOUT(emu_varwin_edges, 900) {
  edges(0, 41, 1, &(msm_gpu_opts){.nwin = 23, .chunk = 3, .merge_chunk = 4, .group = 3});
  edges(1, 17, 1, &(msm_gpu_opts){.nwin = 37, .chunk = 2, .merge_chunk = 5, .group = 6});
  msm_gpu_opts o = {.nwin = 20, .chunk = 2, .merge_chunk = 4};
  split_check(0, 200, 1, &o);
  o = (msm_gpu_opts){.nwin = 29, .chunk = 2, .merge_chunk = 4, .group = 2};
  split_check(1, 60, 1, &o);
}

/* Uniform windows asked for explicitly (c and nwin), one past 255 bits
 * among them; the window options' bounds. */
TEST_TIMEOUT(emu_varwin_uniform, 600) {
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(0, 100, 1);
  static const unsigned cw[][2] = {{4, 64}, {7, 37}, {9, 29}, {2, 128}, {12, 22}};
  for (unsigned i = 0; i < sizeof cw / sizeof *cw; i++) {
    msm_gpu_opts o = {.c = cw[i][0], .nwin = cw[i][1], .chunk = 2, .merge_chunk = 4,
                      .group = 1 + i};
    run_one(ctx, 0, 100, seed + i, SC_TOP, BA_RANDOM, &o);
    run_one(ctx, 0, 33, seed + 50 + i, SC_EDGE, BA_SOME_INF, &o);
    printf("  G1: %u uniform windows of %u bits equal to the CPU MSM\n", cw[i][1], cw[i][0]);
  }
  /* opts.c alone: the build's meaning (split or uniform), either must hold */
  for (unsigned c = 3; c <= 13; c += 5)
    run_one(ctx, 0, 100, seed + 90 + c, SC_TOP, BA_RANDOM, &(msm_gpu_opts){.c = c});
  uint8_t buf[16 * 96] __attribute__((aligned(16))) = {0}, sc[16 * 32] __attribute__((aligned(16))) = {0};
  bls12_381_g1_jac out;
  cuzk_err err = {0};
  static const unsigned bad[][2] = {
      {0, 11},  /* too few windows for 23-bit widths */
      {0, 128}, /* 128 windows split 255 bits: some of 1 bit */
      {0, 129}, {4, 63} /* 252 bits */, {4, 65} /* a window past 255 bits */, {24, 12},
      {1, 0}};
  for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
    msm_gpu_opts o = {.c = bad[i][0], .nwin = bad[i][1]};
    CHECK_MSG(msm_gpu_g1(ctx, &out, buf, sc, 4, &o, NULL, &err) == CUZK_INVALID_ARGUMENT,
              "c %u nwin %u accepted", bad[i][0], bad[i][1]);
  }
  msm_gpu_free(ctx);
}

TEST(bad_arguments) {
  msm_gpu *ctx = new_ctx(0, 16, 1);
  uint8_t buf[16 * 96] __attribute__((aligned(16))) = {0}, sc[16 * 32] __attribute__((aligned(16))) = {0};
  bls12_381_g1_jac out;
  bls12_381_g2_jac out2;
  cuzk_err err = {0};
  msm_gpu_opts o = {.c = 1};
  CHECK_EQ_INT(msm_gpu_g1(ctx, &out, buf, sc, 4, &o, NULL, &err), CUZK_INVALID_ARGUMENT);
  o.c = 24;
  CHECK_EQ_INT(msm_gpu_g1(ctx, &out, buf, sc, 4, &o, NULL, &err), CUZK_INVALID_ARGUMENT);
  o = (msm_gpu_opts){.merge_chunk = 3};
  CHECK_EQ_INT(msm_gpu_g1(ctx, &out, buf, sc, 4, &o, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(msm_gpu_g1(ctx, &out, buf, sc, 17, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(msm_gpu_g2(ctx, &out2, buf, sc, 4, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK(strstr(err.msg, "G1 context") != NULL);
  CHECK_EQ_INT(msm_gpu_g1(ctx, &out, buf + 8, sc, 4, NULL, NULL, &err), CUZK_INVALID_ARGUMENT);
  /* n = 0 is infinity */
  memset(&out, 0x5A, sizeof out);
  CHECK_EQ_INT(msm_gpu_g1(ctx, &out, NULL, NULL, 0, NULL, NULL, &err), CUZK_OK);
  CHECK(bls12_381_g1_jac_is_inf(&out));
  msm_gpu_free(ctx);
  CHECK_EQ_INT(msm_gpu_new(&ctx, MSM_GPU_G1, 0, MSM_GPU_EMULATE, &err), CUZK_INVALID_ARGUMENT);
}

/* ---- on the GPU ---- */

TEST(gpu_device) {
  char line[512];
  need_gpu();
  cuzk_cuda_describe(line, sizeof line);
  printf("  %s\n", line);
  printf("  device bytes for 2^27 G1 points: %.2f GiB; 2^26 G2: %.2f GiB (without inputs)\n",
         msm_gpu_device_bytes(MSM_GPU_G1, (size_t)1 << 27, 0) / 1073741824.0,
         msm_gpu_device_bytes(MSM_GPU_G2, (size_t)1 << 26, 0) / 1073741824.0);
}
TEST_TIMEOUT(gpu_g1_sweep, 600) {
  need_gpu();
  sweep(0, 64, 0, 0);
  sweep(0, 40, 0, 1);
}
TEST_TIMEOUT(gpu_g2_sweep, 600) {
  need_gpu();
  sweep(1, 64, 0, 0);
  sweep(1, 24, 0, 1);
}
TEST_TIMEOUT(gpu_g1_edges, 600) {
  need_gpu();
  edges(0, 4099, 0, NULL);
  msm_gpu_opts o = {.c = 6, .chunk = 3, .merge_chunk = 4};
  edges(0, 1001, 0, &o);
}
TEST_TIMEOUT(gpu_g2_edges, 600) {
  need_gpu();
  edges(1, 2051, 0, NULL);
}
TEST_TIMEOUT(gpu_parts, 600) {
  need_gpu();
  parts_check(0, 100000, 0);
  parts_check(1, 30000, 0);
}
TEST_TIMEOUT(gpu_resident, 600) {
  need_gpu();
  resident_check(0, 200000, 0);
  resident_check(1, 40000, 0);
}

/* All-equal scalars at sizes where one bucket per window holds 2^16 and 2^20
 * points: the chunked accumulation must not serialise on it. */
TEST_TIMEOUT(gpu_equal_scalars, 600) {
  need_gpu();
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(0, 1u << 20, 0);
  run_one(ctx, 0, 1u << 16, seed, SC_EQUAL, BA_RANDOM, NULL);
  run_one(ctx, 0, 1u << 20, seed + 1, SC_EQUAL, BA_RANDOM, NULL);
  run_one(ctx, 0, (1u << 20) - 3, seed + 2, SC_EQUAL, BA_SAME, NULL);
  msm_gpu_free(ctx);
  ctx = new_ctx(1, 1u << 16, 0);
  run_one(ctx, 1, 1u << 16, seed + 3, SC_EQUAL, BA_RANDOM, NULL);
  msm_gpu_free(ctx);
  printf("  all-equal scalars at 2^16, 2^20 (G1) and 2^16 (G2) equal to the CPU MSM\n");
}
TEST_TIMEOUT(gpu_split, 600) {
  need_gpu();
  split_check(0, (1u << 20) + 5, 0, NULL);
  split_check(1, (1u << 16) + 3, 0, NULL);
}
TEST_TIMEOUT(gpu_g1_sizes, 900) {
  need_gpu();
  sizes(0, 7, 20, 12, NULL);
}
TEST_TIMEOUT(gpu_g2_sizes, 900) {
  need_gpu();
  sizes(1, 7, 18, 8, NULL);
}
/* One 2^22 and one 2^24 G1 MSM (the CPU reference takes seconds). */
TEST_TIMEOUT(gpu_g1_large, 900) {
  need_gpu();
  sizes(0, 22, 22, 0, NULL);
  sizes(0, 24, 24, 0, NULL);
}

/* Equal splits forced on the device (the kernels, the CUB sort on the
 * sentinel's bits, the idle reduction rows): mixed and uniform widths,
 * random, near-(r-1)/2 and all-equal scalars.  The plan's own 2^22 and
 * 2^24 windows (3 x 19 + 11 x 18, 8 x 20 + 5 x 19 bits) are
 * gpu_g1_large's. */
TEST_TIMEOUT(gpu_varwin, 900) {
  need_gpu();
  uint64_t seed = test_seed();
  msm_gpu *ctx = new_ctx(0, 1u << 18, 0);
  static const unsigned counts[] = {17, 18, 20, 23, 37};
  for (unsigned i = 0; i < sizeof counts / sizeof *counts; i++) {
    msm_gpu_opts o = {.nwin = counts[i]};
    run_one(ctx, 0, (1u << 18) - 5, seed + 10 * i, SC_RANDOM, BA_RANDOM, &o);
    run_one(ctx, 0, 5000, seed + 10 * i + 1, SC_TOP, BA_SOME_INF, &o);
    run_one(ctx, 0, 70000, seed + 10 * i + 2, SC_EQUAL, BA_RANDOM, &o);
    o.group = 2;
    run_one(ctx, 0, 3001, seed + 10 * i + 3, SC_EDGE, BA_DUPLICATE, &o);
    printf("  G1: %u windows split equally at n = 2^18 - 5 and smaller equal to the CPU MSM\n",
           counts[i]);
  }
  msm_gpu_free(ctx);
  ctx = new_ctx(1, 1u << 16, 0);
  for (unsigned w = 19; w <= 21; w++) {
    run_one(ctx, 1, 1u << 16, seed + 100 + w, SC_RANDOM, BA_RANDOM, &(msm_gpu_opts){.nwin = w});
    run_one(ctx, 1, 999, seed + 200 + w, SC_TOP, BA_OPPOSITE, &(msm_gpu_opts){.nwin = w});
  }
  printf("  G2: 19..21 windows split equally at n = 2^16 equal to the CPU MSM\n");
  msm_gpu_free(ctx);
}
