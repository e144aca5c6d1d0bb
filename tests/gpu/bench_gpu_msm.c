/* GPU MSM benchmark (src/cuda/msm_gpu.h): G1 and G2 over random dense
 * scalars with the inputs already on the device, median of several runs
 * timed with CUDA events after a warm-up, against the floor and the sppark
 * peer of docs/PERF.md §2.
 *
 *   bench_gpu_msm [--g1 LO HI] [--g2 LO HI] [--reps R] [--check LG] [--sweep]
 *                 [--c C] [--nwin W] [--chunk N] [--merge-chunk M]
 *                 [--scalars random|porep|words]
 *                 [--split off|auto|on] [--narrow B]
 *
 * Sizes 2^LO..2^HI (default G1 20..27, G2 20..26).  Every result is
 * checked: against the CPU MSM (msm_g1/msm_g2, all cores) up to 2^LG points
 * (default 20), above that against a second GPU run with --c 16 (16
 * windows of 16 bits, or 15 of 16 and one of 15 with variable widths: a
 * different recoding, bucket layout and reduction).  The host-to-device
 * copy of the inputs (pageable memory) is timed once per group.  Each size
 * also prints its time per phase (msm_gpu_profile: events between phases,
 * warm-up run included); --sweep times window sizes x chunks at G1 2^26
 * and G2 2^24, one run each.
 *
 * --c forces the widest window and --nwin the window count (msm_gpu_opts:
 * c alone, ceil(255 / c) windows split equally; nwin alone, split equally;
 * both, uniform; 0 = the plan's); --chunk and --merge-chunk the entries per
 * thread of the accumulation and of the first merge round (msm_gpu_opts;
 * 0 = the defaults).
 *
 * --scalars picks the scalars: uniform below r (the default); "porep", the
 * development PoRep witness's mix (42 % zeros, 42 % ones, 16 % others of
 * bit lengths uniform over 2..254, as cuzk circuit gen makes them);
 * "words", a hash gadget's (40 % zeros, 40 % ones, 16 % 32-bit words, 4 %
 * uniform).  --split sets the bit-scalar split (msm_gpu_opts.split) and
 * --narrow the narrow part's bound (254: in effect no narrow part); each
 * split size prints the last run's counts.
 *
 * Output: a line per size, and "summary: NAME: RESULT" lines that
 * bench/gpu.sh turns into its table.  Exit status 1 on a failed check. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda.h"
#include "cuda/msm_gpu.h"

/* docs/PERF.md §1.4: XYZZ floors at 100 % of the IMAD peak (G1 2^26 297 ms,
 * 2^27 570 ms; G2 2^27 1.43 s), scaled linearly in n to the other sizes;
 * §2: sppark on this H200 (0 = not measured). */
static double floor_ms(int g2, unsigned lg) {
  if (g2)
    return 1430.0 * (double)((size_t)1 << lg) / (double)(1u << 27);
  return lg == 27 ? 570.0 : 297.0 * (double)((size_t)1 << lg) / (double)(1u << 26);
}
static double sppark_ms(int g2, unsigned lg) {
  if (!g2)
    return lg == 20 ? 21 : lg == 24 ? 155 : lg == 26 ? 556 : lg == 27 ? 1094 : 0;
  return lg == 20 ? 48 : lg == 24 ? 448 : 0;
}
/* The targets (issue 3). */
static double target_ms(int g2, unsigned lg) {
  if (!g2)
    return lg == 26 ? 400 : lg == 27 ? 780 : 0;
  return lg == 24 ? 320 : 0;
}

static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* n uniform scalars below r (top limb below r's top limb: 1 - 2^-62 of the
 * range, uniform enough for timing). */
static void random_scalars(uint8_t *out, size_t n, uint64_t seed) {
  const uint64_t top = bls12_381_fr_modulus[3];
  for (size_t i = 0; i < n; i++) {
    uint64_t s[4];
    for (int j = 0; j < 4; j++) s[j] = mix(seed ^ (4 * i + j) * 0xd1342543de82ef95ULL);
    s[3] %= top;
    memcpy(out + 32 * i, s, 32);
  }
}

enum { SC_RANDOM, SC_POREP, SC_WORDS };

/* Scalars of the --scalars mixes (see the top): kinds drawn per index. */
static void mixed_scalars(uint8_t *out, size_t n, uint64_t seed, int kind) {
  if (kind == SC_RANDOM)
    return;
  for (size_t i = 0; i < n; i++) {
    uint64_t u = mix(seed ^ i * 0x9e3779b97f4a7c15ULL) % 100, s[4] = {0};
    const uint64_t bits_of = mix(seed + 7 * i);
    uint8_t *p = out + 32 * i;
    if (u < (kind == SC_POREP ? 42u : 40u)) {
      memset(p, 0, 32);
    } else if (u < (kind == SC_POREP ? 84u : 80u)) {
      memset(p, 0, 32);
      p[0] = 1;
    } else if (kind == SC_WORDS && u >= 96) {
      /* uniform: leave random_scalars' value */
    } else {
      unsigned bits = kind == SC_WORDS ? 32 : 2 + (unsigned)(bits_of % 253); /* 2..254 */
      memcpy(s, p, 32);
      for (unsigned w = 0; w < 4; w++) {
        unsigned lo = 64 * w;
        if (bits <= lo)
          s[w] = 0;
        else if (bits < lo + 64)
          s[w] &= (1ULL << (bits - lo)) - 1;
      }
      s[(bits - 1) / 64] |= 1ULL << ((bits - 1) % 64); /* exactly `bits` bits */
      memcpy(p, s, 32);
    }
  }
}

/* The time per phase of the runs since the last call, one line. */
static void print_phases(msm_gpu *ctx, const char *name, unsigned lg) {
  static const char *const ph[MSM_GPU_PHASES] = {"other", "classify", "keys", "sort",
                                                 "accumulate", "merge", "reduce", "finish"};
  double ms[MSM_GPU_PHASES];
  unsigned runs = 0;
  cuzk_err err = {0};
  if (msm_gpu_profile(ctx, ms, &runs, &err) != CUZK_OK || runs == 0)
    return;
  printf("phases %s 2^%u (ms per run, %u runs):", name, lg, runs);
  for (int i = 0; i < MSM_GPU_PHASES; i++)
    if (ms[i] > 0)
      printf(" %s %.2f", ph[i], ms[i] / runs);
  printf("\n");
}

/* One timed run at 2^lg under o, checked against `want`; one line. */
static int sweep_one(msm_gpu *ctx, int g2, unsigned lg, const msm_gpu_opts *o, const void *want,
                     const char *what) {
  bls12_381_g1_jac r1;
  bls12_381_g2_jac r2;
  double ms = 0;
  cuzk_err err = {0};
  cuzk_status st = g2 ? msm_gpu_g2_time(ctx, &r2, (size_t)1 << lg, o, 1, &ms, &err)
                      : msm_gpu_g1_time(ctx, &r1, (size_t)1 << lg, o, 1, &ms, &err);
  int ok = st == CUZK_OK && (g2 ? bls12_381_g2_jac_eq(&r2, want) : bls12_381_g1_jac_eq(&r1, want));
  printf("sweep %s 2^%u %s: %.1f ms%s%s\n", g2 ? "G2" : "G1", lg, what, ms, ok ? "" : " WRONG ",
         st == CUZK_OK ? "" : err.msg);
  fflush(stdout);
  return !ok;
}

/* Window bits x chunk at 2^lg: one timed run each, result checked against
 * `want`. */
static int sweep(msm_gpu *ctx, int g2, unsigned lg, const void *want) {
  const unsigned cs[] = {18, 19, 20, 21, 22}, chunks[] = {64, 128, 256};
  int bad = 0;
  for (unsigned i = 0; i < sizeof cs / sizeof *cs; i++)
    for (unsigned j = 0; j < sizeof chunks / sizeof *chunks; j++) {
      if (cs[i] < (g2 ? 18u : 19u) || cs[i] > (g2 ? 21u : 22u))
        continue;
      msm_gpu_opts o = {.c = cs[i], .chunk = chunks[j]};
      char what[64];
      snprintf(what, sizeof what, "c %u chunk %u", cs[i], chunks[j]);
      bad |= sweep_one(ctx, g2, lg, &o, want, what);
    }
  print_phases(ctx, g2 ? "G2 sweep" : "G1 sweep", lg);
  return bad;
}

static int bench_group(int g2, unsigned lo, unsigned hi, unsigned reps, unsigned check,
                       unsigned lg_sweep, const msm_gpu_opts *opts, int kind) {
  const char *name = g2 ? "G2" : "G1";
  const size_t nmax = (size_t)1 << hi, bs = g2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff);
  cuzk_err err = {0};
  uint8_t *bases = malloc(nmax * bs), *scalars = malloc(nmax * 32);
  if (!bases || !scalars) {
    printf("%s: no host memory for 2^%u points\n", name, hi);
    return 1;
  }
  cuzk_status st = g2 ? msm_g2_gen_bases(bases, nmax, 0xb0a5e5, 0, &err)
                      : msm_g1_gen_bases(bases, nmax, 0xb0a5e5, 0, &err);
  if (st != CUZK_OK) {
    printf("%s: gen_bases: %s\n", name, err.msg);
    return 1;
  }
  random_scalars(scalars, nmax, 0x5ca1a25);
  mixed_scalars(scalars, nmax, 0x5ca1a25, kind);
  msm_gpu *ctx = NULL;
  st = msm_gpu_new(&ctx, g2 ? MSM_GPU_G2 : MSM_GPU_G1, nmax,
                   MSM_GPU_HOST_INPUTS | MSM_GPU_PROFILE, &err);
  if (st != CUZK_OK) {
    printf("%s: msm_gpu_new(2^%u): %s\n", name, hi, err.msg);
    return 1;
  }
  double h2d = 0;
  if (msm_gpu_upload(ctx, bases, scalars, nmax, &h2d, &err) != CUZK_OK) {
    printf("%s: upload: %s\n", name, err.msg);
    return 1;
  }
  printf("summary: %s inputs 2^%u to the device: %.0f ms (%.1f GB/s, pageable host memory)\n",
         name, hi, h2d, (double)nmax * (bs + 32) / h2d / 1e6);
  int bad = 0;
  for (unsigned lg = lo; lg <= hi; lg++) {
    const size_t n = (size_t)1 << lg;
    /* the reference */
    bls12_381_g1_jac c1;
    bls12_381_g2_jac c2;
    const char *how;
    if (lg <= check) {
      how = "= CPU";
      st = g2 ? msm_g2(&c2, bases, scalars, n, 0, &err) : msm_g1(&c1, bases, scalars, n, 0, &err);
    } else {
      how = "= 16-bit-window run";
      msm_gpu_opts o = {.c = 16};
      double unused;
      st = g2 ? msm_gpu_g2_time(ctx, &c2, n, &o, 1, &unused, &err)
              : msm_gpu_g1_time(ctx, &c1, n, &o, 1, &unused, &err);
    }
    if (st != CUZK_OK) {
      printf("summary: %s MSM 2^%u: FAILED: the reference (%s): %s\n", name, lg, how, err.msg);
      bad = 1;
      continue;
    }
    const void *want = g2 ? (const void *)&c2 : (const void *)&c1;
    char label[64];
    snprintf(label, sizeof label, "%s MSM 2^%u", name, lg);
    double ms = 0, dummy[MSM_GPU_PHASES];
    unsigned druns;
    bls12_381_g1_jac r1;
    bls12_381_g2_jac r2;
    msm_gpu_profile(ctx, dummy, &druns, NULL); /* reset */
    st = g2 ? msm_gpu_g2_time(ctx, &r2, n, opts, reps, &ms, &err)
            : msm_gpu_g1_time(ctx, &r1, n, opts, reps, &ms, &err);
    if (st != CUZK_OK) {
      printf("summary: %s: FAILED: %s\n", label, err.msg);
      bad = 1;
      continue;
    }
    print_phases(ctx, name, lg);
    msm_gpu_counts cnt;
    if (opts->split && msm_gpu_last_counts(ctx, &cnt, &err) == CUZK_OK)
      printf("counts %s 2^%u: zeros %zu ones %zu others %zu, %s: narrow %zu (<= %u bits) wide %zu\n",
             name, lg, cnt.zeros, cnt.ones, cnt.others, cnt.split ? "split" : "not split",
             cnt.narrow, cnt.narrow_bits, cnt.wide);
    if (!(g2 ? bls12_381_g2_jac_eq(&r2, want) : bls12_381_g1_jac_eq(&r1, want))) {
      printf("summary: %s: WRONG RESULT (%s check failed)\n", label, how);
      bad = 1;
      continue;
    }
    if (lg == lg_sweep)
      bad |= sweep(ctx, g2, lg, want);
    const double floor = floor_ms(g2, lg);
    const double peer = sppark_ms(g2, lg), target = target_ms(g2, lg);
    char extra[160] = "";
    if (peer > 0)
      snprintf(extra, sizeof extra, "; sppark %.0f ms, %.2fx", peer, ms / peer);
    if (target > 0)
      snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; target %.0f ms: %s",
               target, ms <= target ? "met" : "missed");
    printf("summary: %s: %.1f ms (floor %.1f ms, %.2fx floor%s) %s, median of %u\n", label, ms,
           floor, ms / floor, extra, how, reps);
    fflush(stdout);
  }
  msm_gpu_free(ctx);
  free(bases);
  free(scalars);
  return bad;
}

int main(int argc, char **argv) {
  unsigned g1lo = 20, g1hi = 27, g2lo = 20, g2hi = 26, reps = 3, check = 20, do_sweep = 0;
  msm_gpu_opts opts = {0};
  int kind = SC_RANDOM;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--g1") && i + 2 < argc) {
      g1lo = (unsigned)atoi(argv[++i]);
      g1hi = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--g2") && i + 2 < argc) {
      g2lo = (unsigned)atoi(argv[++i]);
      g2hi = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--sweep")) {
      do_sweep = 1;
    } else if (!strcmp(argv[i], "--check") && i + 1 < argc) {
      check = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--c") && i + 1 < argc) {
      opts.c = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--nwin") && i + 1 < argc) {
      opts.nwin = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
      opts.chunk = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--merge-chunk") && i + 1 < argc) {
      opts.merge_chunk = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--narrow") && i + 1 < argc) {
      opts.narrow = (unsigned)atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--scalars") && i + 1 < argc &&
               (!strcmp(argv[i + 1], "random") || !strcmp(argv[i + 1], "porep") ||
                !strcmp(argv[i + 1], "words"))) {
      ++i;
      kind = !strcmp(argv[i], "porep") ? SC_POREP : !strcmp(argv[i], "words") ? SC_WORDS : SC_RANDOM;
    } else if (!strcmp(argv[i], "--split") && i + 1 < argc &&
               (!strcmp(argv[i + 1], "off") || !strcmp(argv[i + 1], "auto") ||
                !strcmp(argv[i + 1], "on"))) {
      ++i;
      opts.split = !strcmp(argv[i], "auto") ? MSM_GPU_SPLIT_AUTO
                   : !strcmp(argv[i], "on") ? MSM_GPU_SPLIT_ON
                                            : MSM_GPU_SPLIT_OFF;
    } else {
      fprintf(stderr, "usage: %s [--g1 LO HI] [--g2 LO HI] [--reps R] [--check LG] [--sweep] "
              "[--c C] [--nwin W] [--chunk N] [--merge-chunk M] [--scalars random|porep|words] "
              "[--split off|auto|on] [--narrow B]\n", argv[0]);
      return 2;
    }
  }
  char why[512];
  if (!cuzk_cuda_available(why, sizeof why)) {
    printf("bench_gpu_msm: skipped: %s\n", why);
    return 0;
  }
  cuzk_cuda_describe(why, sizeof why);
  printf("%s\n", why);
  int bad = 0;
  if (g1lo <= g1hi)
    bad |= bench_group(0, g1lo, g1hi, reps, check, do_sweep ? 26 : 0, &opts, kind);
  if (g2lo <= g2hi)
    bad |= bench_group(1, g2lo, g2hi, reps, check, do_sweep ? 24 : 0, &opts, kind);
  return bad;
}
