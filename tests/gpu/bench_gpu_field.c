/* GPU field throughput: dependent chains of Fp, Fr and Fp2 multiplications
 * (and Fp squarings) on device 0, every run checked against the host.
 *
 *   bench_gpu_field [--quick] [--reps N]
 *
 * Each row runs cuda_field_bench (src/cuda/field_bench.cu): `threads`
 * threads, each with ilp independent chains of `iters` operations on
 * random elements (seed 0, or CUZK_TEST_SEED's as in the tests; printed);
 * the median kernel time of `reps` runs after a warm-up (CUDA events).
 * 4M chains per row, so the input (201 MB for Fp) is
 * several times the 60 MB L2 and the grid is 15 to 25 waves deep (the
 * partial last wave costs at most a few per cent).  The outputs of 64
 * random threads are recomputed on the host and must be equal.
 *
 * The ceiling printed beside each figure is the IMAD-bound one of docs/PERF.md §1.1:
 * 1.656e13 IMAD/s over the IMADs per operation (Fp mul 588, Fr mul 264,
 * Fp2 mul 3 x 588).  The last lines are the summary that bench/gpu.sh
 * tabulates ("summary: ...").  Exit status 1 if a check or a run failed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../seed.h"
#include "cuda/cuda.h"
#include "cuda/field_ops.h"
#include "ff/bls12_381.h"

#define IMAD_PER_S 1.656e13

static uint64_t rng_state;
static uint64_t rng_next(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* n random elements below the modulus (coeffs per element, limbs each). */
static void *random_elems(size_t n, int coeffs, const limb_t *p, int limbs, int top_bits) {
  limb_t *x = malloc(n * (size_t)coeffs * (size_t)limbs * sizeof(limb_t));
  if (!x)
    return NULL;
  for (size_t i = 0; i < n * (size_t)coeffs; i++) {
    limb_t *e = x + i * (size_t)limbs;
    do {
      for (int k = 0; k < limbs; k++) e[k] = rng_next();
      e[limbs - 1] &= ((limb_t)1 << top_bits) - 1;
    } while (!limbs_lt(e, p, limbs));
  }
  return x;
}

/* The host's chain for one thread's value: v <- v*y (or v^2), iters times. */
static void host_chain(cuda_field f, bool sqr, void *v, const void *y, unsigned iters) {
  for (unsigned k = 0; k < iters; k++) {
    if (f == CUDA_FIELD_BLS12_381_FP) {
      if (sqr) bls12_381_fp_sqr(v, v);
      else bls12_381_fp_mul(v, v, y);
    } else if (f == CUDA_FIELD_BLS12_381_FR) {
      if (sqr) bls12_381_fr_sqr(v, v);
      else bls12_381_fr_mul(v, v, y);
    } else {
      if (sqr) bls12_381_fp2_sqr(v, v);
      else bls12_381_fp2_mul(v, v, y);
    }
  }
}

typedef struct {
  const char *label;
  cuda_field f;
  cuda_field_op op;
  unsigned ilp, limb64;
  double imad; /* IMADs per operation, the cost model of docs/PERF.md §1.1 */
} row;

static const row rows[] = {
    {"fp mul", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL, 1, 0, 588},
    {"fp mul", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL, 2, 0, 588},
    {"fp mul", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL, 4, 0, 588},
    {"fp mul (64-bit limbs)", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL, 1, 1, 588},
    {"fp mul (64-bit limbs)", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL, 2, 1, 588},
    {"fp sqr", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_SQR, 2, 0, 588},
    {"fr mul", CUDA_FIELD_BLS12_381_FR, CUDA_FOP_MUL, 1, 0, 264},
    {"fr mul", CUDA_FIELD_BLS12_381_FR, CUDA_FOP_MUL, 2, 0, 264},
    {"fr mul", CUDA_FIELD_BLS12_381_FR, CUDA_FOP_MUL, 4, 0, 264},
    {"fp2 mul", CUDA_FIELD_BLS12_381_FP2, CUDA_FOP_MUL, 1, 0, 3 * 588},
    {"fp2 mul", CUDA_FIELD_BLS12_381_FP2, CUDA_FOP_MUL, 2, 0, 3 * 588},
    /* the lazily reduced products (mont wide_mul + redc_wide, fp2 mul_lazy;
     * the ceiling stays the plain product's) */
    {"fp mul wide+redc", CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL_WIDE, 1, 0, 588},
    {"fp2 mul lazy", CUDA_FIELD_BLS12_381_FP2, CUDA_FOP_MUL_WIDE, 1, 0, 3 * 588},
    {"fp2 mul lazy", CUDA_FIELD_BLS12_381_FP2, CUDA_FOP_MUL_WIDE, 2, 0, 3 * 588},
};
#define NROWS (sizeof rows / sizeof rows[0])

int main(int argc, char **argv) {
  bool quick = false;
  unsigned reps = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick"))
      quick = true;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = (unsigned)atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_gpu_field [--quick] [--reps N]\n");
      return 2;
    }
  }
  char why[512];
  if (!cuzk_cuda_available(why, sizeof why)) {
    printf("bench_gpu_field: skipped: no usable GPU: %s\n", why);
    return 0;
  }
  cuzk_cuda_describe(why, sizeof why);
  printf("device: %s\n", why);
  bool fresh;
  rng_state = test_env_seed("bench_gpu_field", &fresh);
  printf("seed 0x%016" PRIx64 "%s\n", rng_state, fresh ? " (fresh: CUZK_TEST_SEED=random)" : "");

  const size_t chains = quick ? (size_t)1 << 18 : (size_t)1 << 22;
  const unsigned iters = quick ? 16 : 64;
  int failed = 0;
  double best[NROWS] = {0};
  printf("%-22s %4s %9s %6s %10s %10s %9s  %s\n", "operation", "ilp", "threads", "iters",
         "ms", "Gop/s", "ceiling", "check");
  for (size_t r = 0; r < NROWS; r++) {
    const row *w = &rows[r];
    const bool fp = w->f != CUDA_FIELD_BLS12_381_FR;
    const int limbs = fp ? 6 : 4, coeffs = w->f == CUDA_FIELD_BLS12_381_FP2 ? 2 : 1;
    const limb_t *p = fp ? bls12_381_fp_modulus : bls12_381_fr_modulus;
    const int top = fp ? 61 : 63;
    const size_t es = cuda_field_elem_size(w->f);
    /* Fp2: half the chains, a quarter of the iterations (each is 3 Fp muls) */
    const size_t nchains = w->f == CUDA_FIELD_BLS12_381_FP2 ? chains / 2 : chains;
    const unsigned it = w->f == CUDA_FIELD_BLS12_381_FP2 ? iters / 4 : iters;
    cuda_field_bench_cfg cfg = {.threads = nchains / w->ilp, .ilp = w->ilp, .iters = it,
                                .reps = reps, .limb64 = w->limb64};
    uint8_t *x = random_elems(nchains, coeffs, p, limbs, top);
    uint8_t *y = random_elems(cfg.threads, coeffs, p, limbs, top);
    uint8_t *out = malloc(nchains * es);
    if (!x || !y || !out) {
      fprintf(stderr, "bench_gpu_field: out of host memory\n");
      return 1;
    }
    double ms = 0;
    cuzk_err err = {0};
    cuzk_status s = cuda_field_bench(w->f, w->op, &cfg, out, x, y, &ms, &err);
    if (s != CUZK_OK) {
      printf("%-22s %4u: FAILED: %s: %s\n", w->label, w->ilp, cuzk_status_name(s), err.msg);
      failed++;
    } else {
      /* check 64 random threads, all their chains */
      int bad = 0;
      for (int k = 0; k < 64 && !bad; k++) {
        const size_t t = rng_next() % cfg.threads;
        for (unsigned j = 0; j < w->ilp; j++) {
          limb_t v[12]; /* one element, aligned for the host types */
          const size_t idx = j * cfg.threads + t;
          memcpy(v, x + idx * es, es);
          host_chain(w->f, w->op == CUDA_FOP_SQR, v, y + t * es, it);
          if (memcmp(v, out + idx * es, es) != 0) {
            bad = 1;
            break;
          }
        }
      }
      const double ops = (double)nchains * it, gops = ops / (ms * 1e-3) / 1e9;
      const double ceil_g = IMAD_PER_S / w->imad / 1e9;
      printf("%-22s %4u %9zu %6u %10.3f %10.2f %9.2f  %s\n", w->label, w->ilp, cfg.threads, it, ms,
             gops, ceil_g, bad ? "MISMATCH" : "ok");
      if (bad)
        failed++;
      else
        best[r] = gops;
    }
    free(x);
    free(y);
    free(out);
  }
  /* summary: the best ilp of each operation, as a fraction of its ceiling */
  for (size_t r = 0; r < NROWS; r++) {
    if (r > 0 && !strcmp(rows[r].label, rows[r - 1].label))
      continue;
    double b = 0;
    unsigned bi = 0;
    for (size_t q = r; q < NROWS && !strcmp(rows[q].label, rows[r].label); q++)
      if (best[q] > b) {
        b = best[q];
        bi = rows[q].ilp;
      }
    const double ceil_g = IMAD_PER_S / rows[r].imad / 1e9;
    printf("summary: %s: %.2f Gop/s (ilp %u), %.0f%% of the IMAD ceiling %.2f Gop/s\n",
           rows[r].label, b, bi, 100.0 * b / ceil_g, ceil_g);
  }
  if (failed)
    printf("bench_gpu_field: %d rows FAILED\n", failed);
  return failed ? 1 : 0;
}
