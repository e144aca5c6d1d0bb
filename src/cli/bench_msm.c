/* cuzk bench msm-g1|msm-g2: time the CPU Pippenger MSM on random bases and
 * scalars, print time, points/s, points/s/core and the operation counts. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/par.h"
#include "cli/cli.h"
#include "msm/msm.h"

static void bench_msm_usage(FILE *f, const char *what) {
  fprintf(f,
          "usage: cuzk bench %s [--lg N | --from A --to B] [--threads T] [--reps R]\n"
          "                      [--c C] [--split S] [--chunk K] [--check]\n"
          "  --lg N       one size, 2^N points (default 16)\n"
          "  --from A --to B  every size 2^A .. 2^B\n"
          "  --threads T  workers (default: all online CPUs, %u here)\n"
          "  --reps R     timed runs per size after one warm-up; the median is shown (default 3)\n"
          "  --c C, --split S, --chunk K  override the plan's window bits, point ranges per\n"
          "               window, points per batch-affine chunk (0 = XYZZ buckets)\n"
          "  --check      compare with the double-and-add reference (slow: ~0.5 ms/point)\n"
          "The plan is msm_g1's / msm_g2's; K is its endomorphism split (scalar parts per point).\n"
          "Bases are pseudo-random subgroup points (msm_*_gen_bases), scalars uniform below r.\n"
          "points/s/core divides by the worker count; pts/cpu-s divides by the process\n"
          "CPU time (the per-core rate, less sensitive to other load on a shared machine).\n"
          "M/point counts multiplications of the group's coordinate field (Fp for G1, Fp2\n"
          "for G2; a squaring as one): 6 per batch-affine addition, 10 per XYZZ mixed and\n"
          "14 per XYZZ addition, ~570 (G1) or ~200 (G2) per inversion (one per round);\n"
          "adds/pt counts the point additions into buckets and in the bucket reduction.\n",
          what, par_threads());
}

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* splitmix64 */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void random_scalars(uint8_t *out, size_t n, uint64_t seed) {
  static const limb_t r[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                              0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
  for (size_t i = 0; i < n; i++) {
    limb_t s[4];
    do {
      for (int j = 0; j < 4; j++) s[j] = rng_next(&seed);
      s[3] >>= 1;
    } while (!limbs_lt(s, r, 4));
    limbs_to_le(out + 32 * i, s, 4);
  }
}

/* Field multiplications per operation, for the op-count summary. */
static double stats_mults(const msm_stats *st, double inv_m) {
  return st->aff_adds * 6.0 + st->rounds * (inv_m + 0.0) + st->xyzz_madds * 10.0 +
         st->xyzz_adds * 14.0 + st->jac_ops * 12.0;
}

int bench_msm(int argc, char **argv, int group) {
  const char *what = argv[0];
  unsigned long lo = 16, hi = 16, threads = 0, reps = 3, c = 0, split = 0, chunk = ~0UL;
  int check = 0;
  if (cli_wants_help(argc, argv)) {
    bench_msm_usage(stdout, what);
    return CLI_OK;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    unsigned long x;
    if (!strcmp(a, "--check")) {
      check = 1;
      continue;
    }
    if (!strcmp(a, "--chunk")) {
      char *end;
      if (!v || !*v || (x = strtoul(v, &end, 10), *end)) {
        fprintf(stderr, "cuzk: --chunk needs a number\n");
        return CLI_USAGE;
      }
      chunk = x, i++;
      continue;
    }
    if (!v || !cli_parse_uint(a, v, &x)) {
      if (!v)
        fprintf(stderr, "cuzk bench %s: unknown or incomplete option '%s'\n", what, a);
      bench_msm_usage(stderr, what);
      return CLI_USAGE;
    }
    i++;
    if (!strcmp(a, "--lg"))
      lo = hi = x;
    else if (!strcmp(a, "--from"))
      lo = x;
    else if (!strcmp(a, "--to"))
      hi = x;
    else if (!strcmp(a, "--threads"))
      threads = x;
    else if (!strcmp(a, "--reps"))
      reps = x;
    else if (!strcmp(a, "--c"))
      c = x;
    else if (!strcmp(a, "--split"))
      split = x;
    else {
      fprintf(stderr, "cuzk bench %s: unknown option '%s'\n", what, a);
      bench_msm_usage(stderr, what);
      return CLI_USAGE;
    }
  }
  if (lo > hi || hi > 30 || (c && c > MSM_MAX_C) || reps > 1000) {
    fprintf(stderr, "cuzk bench %s: need --from <= --to <= 30, --c <= %d, --reps <= 1000\n",
            what, MSM_MAX_C);
    return CLI_USAGE;
  }
  if (threads == 0)
    threads = par_threads();

  const size_t aff = group == 1 ? sizeof(bls12_381_g1_aff) : sizeof(bls12_381_g2_aff);
  const size_t nmax = (size_t)1 << hi;
  uint8_t *bases = malloc(nmax * aff), *sc = malloc(nmax * 32);
  double *times = malloc(2 * reps * sizeof *times), *cpus = times + reps;
  if (!bases || !sc || !times) {
    fprintf(stderr, "cuzk bench %s: out of memory for 2^%lu points\n", what, hi);
    free(bases), free(sc), free(times);
    return CLI_USAGE;
  }
  cuzk_err err = {0};
  double t0 = cuzk_now_s();
  cuzk_status st = group == 1 ? msm_g1_gen_bases(bases, nmax, 1, (unsigned)threads, &err)
                              : msm_g2_gen_bases(bases, nmax, 1, (unsigned)threads, &err);
  random_scalars(sc, nmax, 2);
  double tgen = cuzk_now_s() - t0;
  printf("# %s: %lu thread(s); inputs for 2^%lu points made in %.2f s\n", what, threads, hi,
         tgen);
  printf("# %4s %2s %3s %4s %5s %6s %9s %11s %11s %11s %8s %8s %7s\n", "lg", "K", "c", "nwin", "split",
         "chunk", "ms", "points/s", "pts/s/core", "pts/cpu-s", "M/point", "adds/pt", "rounds");
  int rc = CLI_OK;
  for (unsigned long lg = lo; lg <= hi && st == CUZK_OK; lg++) {
    size_t n = (size_t)1 << lg;
    /* The plan msm_g1 / msm_g2 choose (endomorphism split included). */
    msm_plan plan = group == 1 ? msm_plan_for_g1(n, (unsigned)threads)
                               : msm_plan_for_g2(n, (unsigned)threads);
    if (c || split || chunk != ~0UL) {
      unsigned cc = c ? (unsigned)c : plan.c, ss = split ? (unsigned)split : plan.nsplit;
      unsigned kk = chunk != ~0UL ? (unsigned)chunk : plan.chunk;
      if (chunk == ~0UL && c && plan.chunk) /* keep the plan's chunk rule for a new c */
        kk = (1u << (cc - 1)) > (1u << 14) ? 1u << (cc - 1) : 1u << 14;
      plan = msm_plan_make_endo(cc, ss, (unsigned)threads, kk, plan.endo);
    }
    /* Scratch allocated once per size, outside the timed runs. */
    size_t sb = group == 1 ? msm_g1_scratch_bytes(&plan, n) : msm_g2_scratch_bytes(&plan, n);
    void *scratch = NULL;
    if (sb == SIZE_MAX || posix_memalign(&scratch, 64, sb ? sb : 64) != 0) {
      st = cuzk_err_set(&err, CUZK_NO_MEMORY, "%zu bytes of MSM scratch", sb);
      break;
    }
    msm_stats ms = {0};
    bls12_381_g1_jac o1;
    bls12_381_g2_jac o2;
    for (unsigned long r = 0; r <= reps && st == CUZK_OK; r++) {
      double t = cuzk_now_s(), u = cpu_s();
      st = group == 1 ? msm_g1_run(&o1, bases, sc, n, &plan, scratch, &ms, &err)
                      : msm_g2_run(&o2, bases, sc, n, &plan, scratch, &ms, &err);
      t = cuzk_now_s() - t, u = cpu_s() - u;
      if (r > 0)
        times[r - 1] = t, cpus[r - 1] = u;
    }
    free(scratch);
    if (st != CUZK_OK)
      break;
    qsort(times, reps, sizeof *times, cmp_double);
    qsort(cpus, reps, sizeof *cpus, cmp_double);
    double t = times[reps / 2], u = cpus[reps / 2];
    /* Inversion by Fermat: ~381 S + ~190 M in Fp (G1); in Fp2 one Fp
     * inversion plus a few M, about a third as many Fp2 multiplications. */
    double mults = stats_mults(&ms, group == 1 ? 570.0 : 200.0);
    printf("  %4lu %2u %3u %4u %5u %6u %9.1f %11.0f %11.0f %11.0f %8.1f %8.2f %7" PRIu64 "\n", lg,
           plan.endo, plan.c, plan.nwin, plan.nsplit, plan.chunk, t * 1e3, n / t, n / t / threads, n / u,
           mults / n, (double)(ms.aff_adds + ms.xyzz_madds + ms.xyzz_adds) / n, ms.rounds);
    if (check) {
      bls12_381_g1_jac w1;
      bls12_381_g2_jac w2;
      st = group == 1 ? msm_g1_naive(&w1, bases, sc, n, (unsigned)threads, &err)
                      : msm_g2_naive(&w2, bases, sc, n, (unsigned)threads, &err);
      int ok = st == CUZK_OK &&
               (group == 1 ? bls12_381_g1_jac_eq(&o1, &w1) : bls12_381_g2_jac_eq(&o2, &w2));
      printf("    check against double-and-add: %s\n", ok ? "equal" : "DIFFERENT");
      if (!ok)
        rc = CLI_NO;
    }
  }
  if (st != CUZK_OK) {
    fprintf(stderr, "cuzk bench %s: %s: %s\n", what, cuzk_status_name(st), err.msg);
    rc = CLI_USAGE;
  }
  free(bases), free(sc), free(times);
  return rc;
}
