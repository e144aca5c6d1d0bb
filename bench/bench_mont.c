/* Montgomery arithmetic micro-benchmark: dependent chains (a <- a*b,
 * a <- a^2, a <- a+b, a <- a-b), reference vs fast, 4 and 6 limbs, and
 * Fp2 (x <- x*y, x <- x^2): the reference, the product composed of fast
 * base-field operations (3M + 5 add/sub, the baseline of the fused routine)
 * and the fused routine, the squaring (2M), and a wide product with its
 * reduction.
 *
 * Build and run (the Makefile does not build bench/; the assembly is
 * src/ff/mont_x86.c, also in build/libcuzk.a):
 *   cc -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v3 -madx -Isrc \
 *      bench/bench_mont.c src/ff/mont_x86.c -o build/bench_mont
 *   build/bench_mont [rounds of 1M, default 10]
 *
 * Each chain runs in rounds of 1M operations (10M in all by default), timed
 * on the thread's CPU clock; the best round is printed, since the machines
 * this runs on are shared and a preempted round only ever reads slower.
 * Next to each time is the same time in cycles of a dependent chain of adds
 * (one per cycle), measured alongside, so a throttled or busy clock shows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bytes.h"
#include "ff/consts_bls12_381.h"
#include "ff/mont.h"

static const limb_t fp[6] = BLS12_381_FP_P;
static const limb_t fr[4] = BLS12_381_FR_P;
static const limb_t fp_n0 = BLS12_381_FP_N0, fr_n0 = BLS12_381_FR_N0;

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per cycle: 4M dependent adds, best of 3. */
static double ns_per_cycle(void) {
  double best = 1e30;
  for (int k = 0; k < 3; k++) {
    uint64_t x = 1;
    double t0 = cpu_ns();
    for (int i = 0; i < 1000000; i++)
      __asm__ volatile("addq %0, %0\n\taddq %0, %0\n\taddq %0, %0\n\taddq %0, %0" : "+r"(x));
    double t = (cpu_ns() - t0) / 4e6;
    if (t < best) best = t;
  }
  return best;
}

/* Fp2 over the fast base-field operations: the product composed of them
 * (3M + 5 add/sub), which mont384_fp2_mul replaces, and the squaring as
 * fp2_tmpl.h composes it (2M + 3 add/sub). */
static void fp2_mul_3m(limb_t *r, const limb_t *a, const limb_t *b) {
  limb_t t0[6], t1[6], s0[6], s1[6];
  mont384_mul(t0, a, b, fp, fp_n0);
  mont384_mul(t1, a + 6, b + 6, fp, fp_n0);
  mont384_add(s0, a, a + 6, fp);
  mont384_add(s1, b, b + 6, fp);
  mont384_mul(s0, s0, s1, fp, fp_n0);
  mont384_sub(r, t0, t1, fp);
  mont384_sub(s0, s0, t0, fp);
  mont384_sub(r + 6, s0, t1, fp);
}
static void fp2_sqr_2m(limb_t *r, const limb_t *a) {
  limb_t s[6], d[6], m[6];
  mont384_add(s, a, a + 6, fp);
  mont384_sub(d, a, a + 6, fp);
  mont384_mul(m, a, a + 6, fp, fp_n0);
  mont384_mul(r, s, d, fp, fp_n0);
  mont384_add(r + 6, m, m, fp);
}

#define ROUND 1000000L

#define BENCH(label, stmt)                                                                         \
  do {                                                                                             \
    double best_ = 1e30;                                                                           \
    for (long r_ = 0; r_ < rounds; r_++) {                                                         \
      double t0_ = cpu_ns();                                                                       \
      for (long i_ = 0; i_ < ROUND; i_++) { stmt; }                                                \
      double t_ = (cpu_ns() - t0_) / (double)ROUND;                                                \
      if (t_ < best_) best_ = t_;                                                                  \
    }                                                                                              \
    double c_ = ns_per_cycle();                                                                    \
    printf("%-14s %8.1f ns %8.1f cycles\n", label, best_, best_ / c_);                            \
  } while (0)

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 10;
  if (rounds < 1) rounds = 1;
  printf("assembly: %s; best of %ld rounds of %ld dependent operations\n", MONT_ASM, rounds,
         ROUND);
  printf("clock: %.2f GHz (dependent adds)\n", 1.0 / ns_per_cycle());
  limb_t a[6] = {0x1234567, 0x89abcdef, 0x13579bdf, 0x2468ace0, 0x0f0f0f0f, 0x0123456};
  limb_t b[6] = {0x7654321, 0xfedcba98, 0xfdb97531, 0x0eca8642, 0xf0f0f0f0, 0x0654321};
  limb_t c[4] = {0x1234567, 0x89abcdef, 0x13579bdf, 0x2468ace0};
  limb_t d[4] = {0x7654321, 0xfedcba98, 0xfdb97531, 0x0eca8642};

  BENCH("384 mul ref", mont384_mul_ref(a, a, b, fp, fp_n0));
  BENCH("384 mul", mont384_mul(a, a, b, fp, fp_n0));
  BENCH("384 sqr ref", mont384_sqr_ref(a, a, fp, fp_n0));
  BENCH("384 sqr", mont384_sqr(a, a, fp, fp_n0));
  BENCH("384 add ref", mont384_add_ref(a, a, b, fp));
  BENCH("384 add", mont384_add(a, a, b, fp));
  BENCH("384 sub ref", mont384_sub_ref(a, a, b, fp));
  BENCH("384 sub", mont384_sub(a, a, b, fp));
  /* Fp2: x <- x*y and x <- x^2, x = a:b, y = b:a (u^2 = -1) */
  limb_t x[12], y[12], w[12];
  memcpy(x, a, sizeof a);
  memcpy(x + 6, b, sizeof b);
  memcpy(y, b, sizeof b);
  memcpy(y + 6, a, sizeof a);
  BENCH("fp2 mul ref", mont384_fp2_mul_ref(x, x, y, fp, fp_n0));
  BENCH("fp2 mul 3M", fp2_mul_3m(x, x, y));
  BENCH("fp2 mul", mont384_fp2_mul(x, x, y, fp, fp_n0));
  BENCH("fp2 sqr (2M)", fp2_sqr_2m(x, x));
  /* the lazy pieces: w = x0*x1 (12 limbs), x0 <- redc(w) */
  BENCH("384 wide+redc", (mont384_mul_wide(w, x, x + 6), mont384_redc(x, w, fp, fp_n0)));
  BENCH("256 mul ref", mont256_mul_ref(c, c, d, fr, fr_n0));
  BENCH("256 mul", mont256_mul(c, c, d, fr, fr_n0));
  BENCH("256 sqr ref", mont256_sqr_ref(c, c, fr, fr_n0));
  BENCH("256 sqr", mont256_sqr(c, c, fr, fr_n0));
  BENCH("256 add ref", mont256_add_ref(c, c, d, fr));
  BENCH("256 add", mont256_add(c, c, d, fr));
  BENCH("256 sub ref", mont256_sub_ref(c, c, d, fr));
  BENCH("256 sub", mont256_sub(c, c, d, fr));
  /* print the chains' ends so nothing is optimised away */
  printf("(%016" PRIx64 " %016" PRIx64 " %016" PRIx64 ")\n", a[0], c[0], x[0]);
  return 0;
}
