/* The one-level Karatsuba 6-limb Montgomery multiplication
 * (mont384_mul_kara_x86, ff/mont_x86_kara.h) against the CIOS one
 * (mont384_mul_x86), BLS12-381 p, ns per multiplication.
 *
 * Build and run (nothing in the Makefile builds bench/; link the library
 * of a CPU-only build dir, e.g. make BUILD=build-kara CUDA=0 build-kara/libcuzk.a):
 *   cc -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v3 -madx -Isrc \
 *      bench/bench_mont_kara.c build-kara/libcuzk.a -lm -o build-kara/bench_mont_kara
 *   build-kara/bench_mont_kara [rounds, default 40]
 *
 *   indep:  r[i] = a[i] b[i] over NB elements in L1, repeated (throughput)
 *   dep:    x <- x b, one chain (latency)
 * Variants are interleaved round by round, the order alternating between
 * rounds; each is timed on the thread's CPU clock, and the minimum and
 * median over rounds are printed with the cycles at the clock that
 * dependent adds measure (the machine is shared and noisy).  Also the
 * median of the per-round ratios scalar/kara, which cancels slow phases
 * that hit both variants of one round alike.
 *
 * Measured, 40-60 rounds (details and the why in ff/mont_x86_kara.c):
 *   Zen 1 2.5 GHz: scalar indep 65.1-65.8 / 66-68 ns (min / median),
 *   kara 69.4-70.5 / 70-73; dep 65.8-66.2 / 67-69 against 69.1-70.3 /
 *   70-73; per-round ratio scalar/kara 0.92-0.94 (indep), 0.94-0.96 (dep).
 *   Xeon 3.0 GHz: indep 33.7 / 35.4 against 35.6 / 37.3 (0.95), dep 39.2
 *   / 40.8 against 39.8 / 42.0 (0.97). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bytes.h"
#include "bench_clock.h"
#include "ff/consts_bls12_381.h"
#include "ff/mont.h"
#include "ff/mont_x86_kara.h"

#if !defined(CUZK_MONT_X86)
int main(void) {
  puts("bench_mont_kara: needs the x86-64 mulx/adx build");
  return 0;
}
#else

#define NB 64        /* independent products per pass */
#define PASSES 4000  /* passes per round: 256k products */
#define CHAIN 200000 /* dependent products per round */

static const limb_t P[6] = BLS12_381_FP_P;
static const limb_t N0 = BLS12_381_FP_N0;

typedef void (*mul_fn)(limb_t *, const limb_t *, const limb_t *, const limb_t *, limb_t);


static uint64_t rng_s = 0x6b617261;
static uint64_t rng(void) { return bench_rng(&rng_s); }
static void rand_fp(limb_t r[6]) {
  do {
    for (int i = 0; i < 6; i++) r[i] = rng();
    r[5] &= (UINT64_C(1) << 61) - 1;
  } while (!limbs_lt(r, P, 6));
}

static limb_t A[NB][6], B[NB][6], R[NB][6], X0[6], XB[6];
static volatile limb_t sink;

/* ns per product, NB x PASSES independent products. */
static double run_indep(mul_fn f) {
  double t0 = cpu_ns();
  for (int k = 0; k < PASSES; k++)
    for (int i = 0; i < NB; i++) f(R[i], A[i], B[i], P, N0);
  double t = (cpu_ns() - t0) / ((double)NB * PASSES);
  sink = R[NB - 1][0];
  return t;
}

/* ns per product, a chain of CHAIN dependent products. */
static double run_dep(mul_fn f) {
  limb_t x[6];
  memcpy(x, X0, sizeof x);
  double t0 = cpu_ns();
  for (int i = 0; i < CHAIN; i++) f(x, x, XB, P, N0);
  double t = (cpu_ns() - t0) / CHAIN;
  sink = x[0];
  return t;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_d);
  return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  if (rounds < 1) rounds = 1;
  for (int i = 0; i < NB; i++) {
    rand_fp(A[i]);
    rand_fp(B[i]);
  }
  rand_fp(X0);
  rand_fp(XB);

  /* They agree (the unit test is the real check). */
  for (int i = 0; i < NB; i++) {
    limb_t u[6], v[6];
    mont384_mul_x86(u, A[i], B[i], P, N0);
    mont384_mul_kara_x86(v, A[i], B[i], P, N0);
    if (memcmp(u, v, sizeof u) != 0) {
      puts("bench_mont_kara: results differ");
      return 1;
    }
  }

  /* Variants: f[v], independent (even v) or dependent (odd v). */
  enum { NF = 2, NV = 2 * NF };
  static const mul_fn fs[NF] = {mont384_mul_x86, mont384_mul_kara_x86};
  static const char *names[NF] = {"scalar", "kara"};
  double *t[NV], *ratio[NV];
  for (int v = 0; v < NV; v++) {
    t[v] = malloc(sizeof(double) * (size_t)rounds);
    ratio[v] = malloc(sizeof(double) * (size_t)rounds);
  }
  double nspc = ns_per_cycle();
  for (int k = 0; k < NF; k++) run_indep(fs[k]); /* warm up */
  for (int r = 0; r < rounds; r++) {
    for (int j = 0; j < NF; j++) { /* order rotates with the round */
      int k = (j + r) % NF;
      t[2 * k][r] = run_indep(fs[k]);
    }
    for (int j = 0; j < NF; j++) {
      int k = (j + r) % NF;
      t[2 * k + 1][r] = run_dep(fs[k]);
    }
    for (int v = 0; v < NV; v++) ratio[v][r] = t[v & 1][r] / t[v][r];
  }
  double nspc2 = ns_per_cycle();
  if (nspc2 < nspc) nspc = nspc2;
  printf("clock %.2f GHz (dependent adds, best), %d rounds\n", 1.0 / nspc, rounds);
  printf("%-16s %8s %8s %11s %14s\n", "", "min ns", "med ns", "cycles(min)", "scalar/this");
  for (int v = 0; v < NV; v++) {
    double mn = 1e30;
    for (int r = 0; r < rounds; r++)
      if (t[v][r] < mn) mn = t[v][r];
    printf("%-8s %-7s %8.2f %8.2f %11.0f %14.3f\n", names[v / 2], v & 1 ? "dep" : "indep", mn,
           median(t[v], rounds), mn / nspc, median(ratio[v], rounds));
  }
  puts("(scalar/this: median over rounds of the per-round ratio)");
  return 0;
}
#endif
