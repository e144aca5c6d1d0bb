/* Throughput of the four-lane AVX2 Montgomery multiplication (ff/fp_x4.h)
 * and of its hybrid with scalar products (fp_x4_mul_hyb) against the
 * scalar mont384_mul, per multiplication (one lane = one multiplication),
 * and of a batch-affine addition kernel built on each.
 *
 * Build and run (nothing in the Makefile builds bench/; link the library
 * of a CPU-only build dir, e.g. make BUILD=build-x4 CUDA=0 build-x4/libcuzk.a):
 *   cc -std=c11 -D_GNU_SOURCE -O3 -march=x86-64-v3 -madx -Isrc \
 *      bench/bench_fp_x4.c build-x4/libcuzk.a -lm -o build-x4/bench_fp_x4
 *   build-x4/bench_fp_x4 [rounds, default 15]
 *
 * Variants are interleaved round by round (each round runs every variant
 * once), timed on the thread's CPU clock; the minimum and the median over
 * rounds are printed, with the clock measured by dependent adds next to
 * them, since the machine is shared.
 *
 *   independent:  r[i] = a[i] b[i] over NB elements in L1 (NB scalar
 *                 products, NB/4 vector ones), ns per product
 *   dependent:    a <- a b (latency: what a prefix-product chain sees)
 *   hyb 4+k:      fp_x4_mul_hyb, ns per product (4 + k per call)
 *   conv:         from_mont of both operands, mul, to_mont (canonical)
 *   affine:       NA independent affine additions sharing one inversion
 *                 (prefix products, one inversion, back-products, then
 *                 l = dy inv, x3 = l^2 - x1 - x2, y3 = l (x1 - x3) - y1),
 *                 ns per addition; the vector kernel keeps the points in
 *                 fp_x4 form (its inversion goes through the scalar side),
 *                 "+conv" converts the input points in and the results out;
 *                 "hyb 4+8": 12 additions per group, 4 in vector lanes and
 *                 8 scalar, every multiplication an fp_x4_mul_hyb call.
 *
 * Measured on the development VM (AMD EPYC Zen 1, 2.43 GHz by dependent
 * adds; shared: min and median of 40 interleaved rounds, ns per product,
 * lane or addition; medians 5-60 % above the minima, worst for hyb):
 *                        min  median  cycles(min)
 *   scalar mul indep     65.7   84.6   159     (mont384_mul, mulx/adx)
 *   x4 mul indep         92.8  121.0   225     per lane
 *   x4 mul2 indep        80.9  111.5   196     per lane: two interleaved
 *   scalar sqr indep     56.8   72.7   138
 *   x4 sqr indep         79.5  106.0   193
 *   x4 mul dep           92.5  120.6   225     (scalar dep: 166)
 *   hyb 4+6 mul          54.8   87.6   133     per product, 6 scalar + 4 lanes
 *   hyb 4+8 mul          55.2   86.9   134
 *   x4 conv+mul+conv    170.7  237.0   414     from_mont x2, mul, to_mont
 *   x4 from/to_mont     5.3 / 43.5             per lane (to: canonical)
 *   affine scalar       510    643    1239     per addition, 576 per inversion
 *   affine x4           625    843    1518
 *   affine x4+conv      794   1091    1928
 *   affine hyb 4+8      443    683    1074
 * The 4-lane multiplication alone is 0.81x the scalar one.  The reason is
 * Zen 1's FP side: a 4-lane limb product (2 FMA + FP sub + 2 VPADDQ, each
 * 256-bit op split in two 128-bit halves) sustains one per ~4.2 cycles
 * even with operands in registers (a loop of that pattern alone), i.e.
 * ~1 cycle per 48x48-bit lane product, while MULX gives a 64x64-bit
 * product per 2 cycles (1.78 48-bit products' worth); 136 lane products
 * per multiplication put the vector floor near 145 cycles against 159.
 * The hybrid (fp_x4_mul_hyb) overlaps the two: 1.20x at the minima, but
 * 0.97x at the medians (0.95x median of paired per-round ratios over 2000
 * rounds): it only gains while the core's other units are idle.
 * On the GPU host's Xeon (family 6 model 207, 2.69 GHz, AVX-512 IFMA),
 * same binary, min (median): scalar 38.6 (40.2), x4 mul2 31.6 (32.9) =
 * 1.22x, hyb 4+6 32.4; affine scalar 333, x4 344, hyb 4+8 268 (1.24x).
 * There, 52-bit AVX-512 IFMA would be the lever, not this code. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bytes.h"
#include "bench_clock.h"
#include "ff/consts_bls12_381.h"
#include "ff/fp_x4.h"
#include "ff/mont.h"

static const limb_t P[6] = BLS12_381_FP_P;
static const limb_t ONE[6] = BLS12_381_FP_ONE;
static const limb_t PM2[6] = BLS12_381_FP_PM2;
static const limb_t N0 = BLS12_381_FP_N0;


static uint64_t rng_s = 12345;
static uint64_t rng(void) { return bench_rng(&rng_s); }
static void rand_fp(limb_t r[6]) {
  do {
    for (int i = 0; i < 6; i++) r[i] = rng();
    r[5] &= (UINT64_C(1) << 61) - 1;
  } while (!limbs_lt(r, P, 6));
}

static void fp_inv(limb_t r[6], const limb_t a[6]) {
  limb_t acc[6];
  memcpy(acc, ONE, sizeof acc);
  for (int i = 5; i >= 0; i--)
    for (int b = 63; b >= 0; b--) {
      mont384_sqr(acc, acc, P, N0);
      if (PM2[i] >> b & 1)
        mont384_mul(acc, acc, a, P, N0);
    }
  memcpy(r, acc, sizeof acc);
}

static fp_x4_mod M;

/* ---- multiplication kernels ---- */

#define NB 64 /* products per pass (scalar); NB/4 vectors */
static limb_t sa[NB][6], sb[NB][6], sr[NB][6];
static fp_x4 va[NB / 4], vb[NB / 4], vr[NB / 4];
#define PASSES 200

static void k_scalar_indep(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB; i++) mont384_mul(sr[i], sa[i], sb[i], P, N0);
}
static void k_scalar_dep(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB; i++) mont384_mul(sa[0], sa[0], sb[i], P, N0);
}
static void k_x4_indep(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB / 4; i++) fp_x4_mul(&vr[i], &va[i], &vb[i], &M);
}
static void k_x4_indep2(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB / 4; i += 2)
      fp_x4_mul2(&vr[i], &va[i], &vb[i], &vr[i + 1], &va[i + 1], &vb[i + 1], &M);
}
static void k_x4_sqr(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB / 4; i++) fp_x4_sqr(&vr[i], &va[i], &M);
}
static void k_scalar_sqr(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB; i++) mont384_sqr(sr[i], sa[i], P, N0);
}
static void k_x4_dep(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB / 4; i++) fp_x4_mul(&va[0], &va[0], &vb[i], &M);
}
/* hybrid: per call one 4-lane product and k scalar ones */
static void k_hyb(int k) {
  for (int p = 0; p < PASSES / 2; p++)
    for (int i = 0; i < NB / 4; i++) {
      limb_t *rs[8];
      const limb_t *as[8], *bs[8];
      for (int j = 0; j < k; j++) {
        int x = (i * k + j) % NB;
        rs[j] = sr[x];
        as[j] = sa[x];
        bs[j] = sb[x];
      }
      fp_x4_mul_hyb(&vr[i], &va[i], &vb[i], k, rs, as, bs, &M);
    }
}
static void k_hyb6(void) { k_hyb(6); }
static void k_hyb8(void) { k_hyb(8); }
/* with conversions: in from 6x64 (both operands), out to canonical 6x64 */
static void k_x4_conv(void) {
  for (int p = 0; p < PASSES / 4; p++)
    for (int i = 0; i < NB; i += 4) {
      const limb_t *pa[4] = {sa[i], sa[i + 1], sa[i + 2], sa[i + 3]};
      const limb_t *pb[4] = {sb[i], sb[i + 1], sb[i + 2], sb[i + 3]};
      limb_t *pr[4] = {sr[i], sr[i + 1], sr[i + 2], sr[i + 3]};
      fp_x4 a, b, r;
      fp_x4_from_mont(&a, pa);
      fp_x4_from_mont(&b, pb);
      fp_x4_mul(&r, &a, &b, &M);
      fp_x4_to_mont(pr, &r, &M);
    }
}
static void k_x4_from(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB; i += 4) {
      const limb_t *pa[4] = {sa[i], sa[i + 1], sa[i + 2], sa[i + 3]};
      fp_x4_from_mont(&vr[i / 4], pa);
    }
}
static void k_x4_to(void) {
  for (int p = 0; p < PASSES / 4; p++)
    for (int i = 0; i < NB; i += 4) {
      limb_t *pr[4] = {sr[i], sr[i + 1], sr[i + 2], sr[i + 3]};
      fp_x4_to_mont(pr, &va[i / 4], &M);
    }
}
static void k_x4_addsub(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB / 4; i++) {
      fp_x4_sub(&vr[i], &va[i], &vb[i]);
      fp_x4_add(&vr[i], &vr[i], &va[i]);
    }
}
static void k_x4_reduce(void) {
  for (int p = 0; p < PASSES; p++)
    for (int i = 0; i < NB / 4; i++) fp_x4_reduce(&vr[i], &va[i], &M);
}

/* ---- batch-affine addition: NA independent P_i + Q_i, one inversion ---- */

#define NA 576 /* 48 groups of 12: 4 vector lanes + 8 scalar in the hybrid */
#define HK 8   /* scalar products per hybrid call */
static limb_t px[NA][6], py[NA][6], qx[NA][6], qy[NA][6], rx[NA][6], ry[NA][6];
static limb_t den[NA][6], pre[NA][6];
static fp_x4 vpx[NA / 4], vpy[NA / 4], vqx[NA / 4], vqy[NA / 4], vrx[NA / 4], vry[NA / 4];
static fp_x4 vden[NA / 4], vpre[NA / 4];

static void k_aff_scalar(void) {
  for (int i = 0; i < NA; i++) mont384_sub(den[i], qx[i], px[i], P);
  memcpy(pre[0], den[0], sizeof pre[0]);
  for (int i = 1; i < NA; i++) mont384_mul(pre[i], pre[i - 1], den[i], P, N0);
  limb_t acc[6], t[6];
  fp_inv(acc, pre[NA - 1]);
  for (int i = NA - 1; i > 0; i--) {
    mont384_mul(t, acc, pre[i - 1], P, N0);
    mont384_mul(acc, acc, den[i], P, N0);
    memcpy(den[i], t, sizeof t);
  }
  memcpy(den[0], acc, sizeof acc);
  for (int i = 0; i < NA; i++) {
    limb_t l[6], x3[6];
    mont384_sub(t, qy[i], py[i], P);
    mont384_mul(l, t, den[i], P, N0);
    mont384_sqr(x3, l, P, N0);
    mont384_sub(x3, x3, px[i], P);
    mont384_sub(x3, x3, qx[i], P);
    mont384_sub(t, px[i], x3, P);
    mont384_mul(t, l, t, P, N0);
    mont384_sub(ry[i], t, py[i], P);
    memcpy(rx[i], x3, sizeof x3);
  }
}

/* The vector kernel on fp_x4 points: lane j of vector g is addition
 * 4g + j; four prefix chains (one per lane), their four totals inverted
 * on the scalar side with one inversion between them. */
static void aff_x4_core(void) {
  enum { G = NA / 4 };
  for (int g = 0; g < G; g++) fp_x4_sub(&vden[g], &vqx[g], &vpx[g]);
  vpre[0] = vden[0];
  for (int g = 1; g < G; g++) fp_x4_mul(&vpre[g], &vpre[g - 1], &vden[g], &M);
  limb_t tot[4][6], lp[4][6], inv[6];
  limb_t *pt[4] = {tot[0], tot[1], tot[2], tot[3]};
  fp_x4_to_mont(pt, &vpre[G - 1], &M);
  /* 1/t_j for four t_j with one inversion */
  memcpy(lp[0], tot[0], sizeof lp[0]);
  for (int j = 1; j < 4; j++) mont384_mul(lp[j], lp[j - 1], tot[j], P, N0);
  fp_inv(inv, lp[3]);
  for (int j = 3; j > 0; j--) {
    limb_t t[6];
    mont384_mul(t, inv, lp[j - 1], P, N0);
    mont384_mul(inv, inv, tot[j], P, N0);
    memcpy(tot[j], t, sizeof t);
  }
  memcpy(tot[0], inv, sizeof inv);
  fp_x4 acc, t;
  const limb_t *ct[4] = {tot[0], tot[1], tot[2], tot[3]};
  fp_x4_from_mont(&acc, ct);
  for (int g = G - 1; g > 0; g--) {
    fp_x4_mul2(&t, &acc, &vpre[g - 1], &acc, &acc, &vden[g], &M);
    vden[g] = t;
  }
  vden[0] = acc;
  for (int g = 0; g < G; g++) {
    fp_x4 l, x3, u;
    fp_x4_sub(&u, &vqy[g], &vpy[g]);
    fp_x4_mul(&l, &u, &vden[g], &M);
    fp_x4_sqr(&x3, &l, &M);
    fp_x4_sub(&x3, &x3, &vpx[g]);
    fp_x4_sub(&x3, &x3, &vqx[g]);
    fp_x4_reduce(&vrx[g], &x3, &M);
    fp_x4_sub(&u, &vpx[g], &vrx[g]);
    fp_x4_mul(&u, &l, &u, &M);
    fp_x4_sub(&u, &u, &vpy[g]);
    fp_x4_reduce(&vry[g], &u, &M);
  }
}
static void k_aff_x4(void) { aff_x4_core(); }
static void k_aff_x4_conv(void) {
  for (int g = 0; g < NA / 4; g++) {
    const limb_t *a[4] = {px[4 * g], px[4 * g + 1], px[4 * g + 2], px[4 * g + 3]};
    const limb_t *b[4] = {py[4 * g], py[4 * g + 1], py[4 * g + 2], py[4 * g + 3]};
    const limb_t *c[4] = {qx[4 * g], qx[4 * g + 1], qx[4 * g + 2], qx[4 * g + 3]};
    const limb_t *d[4] = {qy[4 * g], qy[4 * g + 1], qy[4 * g + 2], qy[4 * g + 3]};
    fp_x4_from_mont(&vpx[g], a);
    fp_x4_from_mont(&vpy[g], b);
    fp_x4_from_mont(&vqx[g], c);
    fp_x4_from_mont(&vqy[g], d);
  }
  aff_x4_core();
  for (int g = 0; g < NA / 4; g++) {
    limb_t *a[4] = {rx[4 * g], rx[4 * g + 1], rx[4 * g + 2], rx[4 * g + 3]};
    limb_t *b[4] = {ry[4 * g], ry[4 * g + 1], ry[4 * g + 2], ry[4 * g + 3]};
    fp_x4_to_mont(a, &vrx[g], &M);
    fp_x4_to_mont(b, &vry[g], &M);
  }
}

/* The hybrid kernel: group g holds additions 12g .. 12g + 11, the first 4
 * as the lanes of vector g, the other 8 as scalar additions carried by
 * the same fp_x4_mul_hyb calls; 12 prefix chains, their totals inverted
 * together. */
enum { HG = NA / 12 };
static fp_x4 hpx[HG], hpy[HG], hqx[HG], hqy[HG], hrx[HG], hry[HG], hden[HG], hpre[HG];
static limb_t spx[HG][HK][6], spy[HG][HK][6], sqx[HG][HK][6], sqy[HG][HK][6];
static limb_t srx[HG][HK][6], sry[HG][HK][6], sden[HG][HK][6], spre[HG][HK][6];

/* vector r = a b and scalar sr[j] = sa[j] sb[j], j < HK */
static void hmul(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, limb_t (*s_r)[6],
                 limb_t (*s_a)[6], limb_t (*s_b)[6]) {
  limb_t *rs[HK];
  const limb_t *as[HK], *bs[HK];
  for (int j = 0; j < HK; j++) {
    rs[j] = s_r[j];
    as[j] = s_a[j];
    bs[j] = s_b[j];
  }
  fp_x4_mul_hyb(r, a, b, HK, rs, as, bs, &M);
}

static void aff_hyb_core(void) {
  for (int g = 0; g < HG; g++) {
    fp_x4_sub(&hden[g], &hqx[g], &hpx[g]);
    for (int j = 0; j < HK; j++) mont384_sub(sden[g][j], sqx[g][j], spx[g][j], P);
  }
  hpre[0] = hden[0];
  memcpy(spre[0], sden[0], sizeof spre[0]);
  for (int g = 1; g < HG; g++) hmul(&hpre[g], &hpre[g - 1], &hden[g], spre[g], spre[g - 1], sden[g]);
  /* the 12 chain totals: one inversion */
  limb_t tot[12][6], lp[12][6], inv[6], t6[6];
  limb_t *pt[4] = {tot[0], tot[1], tot[2], tot[3]};
  fp_x4_to_mont(pt, &hpre[HG - 1], &M);
  memcpy(tot[4], spre[HG - 1], sizeof spre[HG - 1]);
  memcpy(lp[0], tot[0], sizeof lp[0]);
  for (int j = 1; j < 12; j++) mont384_mul(lp[j], lp[j - 1], tot[j], P, N0);
  fp_inv(inv, lp[11]);
  for (int j = 11; j > 0; j--) {
    mont384_mul(t6, inv, lp[j - 1], P, N0);
    mont384_mul(inv, inv, tot[j], P, N0);
    memcpy(tot[j], t6, sizeof t6);
  }
  memcpy(tot[0], inv, sizeof inv);
  fp_x4 acc, t;
  limb_t sacc[HK][6], st[HK][6];
  const limb_t *ct[4] = {tot[0], tot[1], tot[2], tot[3]};
  fp_x4_from_mont(&acc, ct);
  memcpy(sacc, tot[4], sizeof sacc);
  for (int g = HG - 1; g > 0; g--) {
    hmul(&t, &acc, &hpre[g - 1], st, sacc, spre[g - 1]);
    hmul(&acc, &acc, &hden[g], sacc, sacc, sden[g]);
    hden[g] = t;
    memcpy(sden[g], st, sizeof st);
  }
  hden[0] = acc;
  memcpy(sden[0], sacc, sizeof sacc);
  for (int g = 0; g < HG; g++) {
    fp_x4 l, x3, u;
    limb_t sl[HK][6], sx3[HK][6], su[HK][6];
    fp_x4_sub(&u, &hqy[g], &hpy[g]);
    for (int j = 0; j < HK; j++) mont384_sub(su[j], sqy[g][j], spy[g][j], P);
    hmul(&l, &u, &hden[g], sl, su, sden[g]);
    hmul(&x3, &l, &l, sx3, sl, sl);
    fp_x4_sub(&x3, &x3, &hpx[g]);
    fp_x4_sub(&x3, &x3, &hqx[g]);
    fp_x4_reduce(&hrx[g], &x3, &M);
    fp_x4_sub(&u, &hpx[g], &hrx[g]);
    for (int j = 0; j < HK; j++) {
      mont384_sub(sx3[j], sx3[j], spx[g][j], P);
      mont384_sub(srx[g][j], sx3[j], sqx[g][j], P);
      mont384_sub(su[j], spx[g][j], srx[g][j], P);
    }
    hmul(&u, &l, &u, su, sl, su);
    fp_x4_sub(&u, &u, &hpy[g]);
    fp_x4_reduce(&hry[g], &u, &M);
    for (int j = 0; j < HK; j++) mont384_sub(sry[g][j], su[j], spy[g][j], P);
  }
}
static void k_aff_hyb(void) { aff_hyb_core(); }
/* loads the hybrid kernel's inputs from px.. (vector lanes converted) */
static void aff_hyb_load(void) {
  for (int g = 0; g < HG; g++) {
    const limb_t *a[4] = {px[12 * g], px[12 * g + 1], px[12 * g + 2], px[12 * g + 3]};
    const limb_t *b[4] = {py[12 * g], py[12 * g + 1], py[12 * g + 2], py[12 * g + 3]};
    const limb_t *c[4] = {qx[12 * g], qx[12 * g + 1], qx[12 * g + 2], qx[12 * g + 3]};
    const limb_t *d[4] = {qy[12 * g], qy[12 * g + 1], qy[12 * g + 2], qy[12 * g + 3]};
    fp_x4_from_mont(&hpx[g], a);
    fp_x4_from_mont(&hpy[g], b);
    fp_x4_from_mont(&hqx[g], c);
    fp_x4_from_mont(&hqy[g], d);
    for (int j = 0; j < HK; j++) {
      memcpy(spx[g][j], px[12 * g + 4 + j], 48);
      memcpy(spy[g][j], py[12 * g + 4 + j], 48);
      memcpy(sqx[g][j], qx[12 * g + 4 + j], 48);
      memcpy(sqy[g][j], qy[12 * g + 4 + j], 48);
    }
  }
}
/* the hybrid kernel's results, as rx, ry */
static void aff_hyb_store(void) {
  for (int g = 0; g < HG; g++) {
    limb_t *a[4] = {rx[12 * g], rx[12 * g + 1], rx[12 * g + 2], rx[12 * g + 3]};
    limb_t *b[4] = {ry[12 * g], ry[12 * g + 1], ry[12 * g + 2], ry[12 * g + 3]};
    fp_x4_to_mont(a, &hrx[g], &M);
    fp_x4_to_mont(b, &hry[g], &M);
    for (int j = 0; j < HK; j++) {
      memcpy(rx[12 * g + 4 + j], srx[g][j], 48);
      memcpy(ry[12 * g + 4 + j], sry[g][j], 48);
    }
  }
}

/* ---- driver ---- */

typedef struct {
  const char *name;
  void (*fn)(void);
  double per; /* operations per call */
  double t[64];
} variant;

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 15;
  if (rounds < 1) rounds = 1;
  if (rounds > 64) rounds = 64;
  fp_x4_mod_init(&M, P, N0);
  for (int i = 0; i < NB; i++) {
    rand_fp(sa[i]);
    rand_fp(sb[i]);
  }
  for (int i = 0; i < NB; i += 4) {
    const limb_t *pa[4] = {sa[i], sa[i + 1], sa[i + 2], sa[i + 3]};
    const limb_t *pb[4] = {sb[i], sb[i + 1], sb[i + 2], sb[i + 3]};
    fp_x4_from_mont(&va[i / 4], pa);
    fp_x4_from_mont(&vb[i / 4], pb);
  }
  for (int i = 0; i < NA; i++) {
    rand_fp(px[i]);
    rand_fp(py[i]);
    rand_fp(qx[i]);
    rand_fp(qy[i]);
  }
  /* the vector affine kernel must agree with the scalar one */
  k_aff_scalar();
  limb_t sx[NA][6], sy[NA][6];
  memcpy(sx, rx, sizeof sx);
  memcpy(sy, ry, sizeof sy);
  k_aff_x4_conv();
  if (memcmp(sx, rx, sizeof sx) || memcmp(sy, ry, sizeof sy)) {
    fprintf(stderr, "affine kernels disagree\n");
    return 1;
  }
  memset(rx, 0, sizeof rx);
  aff_hyb_load();
  aff_hyb_core();
  aff_hyb_store();
  if (memcmp(sx, rx, sizeof sx) || memcmp(sy, ry, sizeof sy)) {
    fprintf(stderr, "hybrid affine kernel disagrees\n");
    return 1;
  }
  variant v[] = {
      {"scalar mul indep", k_scalar_indep, PASSES * NB, {0}},
      {"x4 mul indep", k_x4_indep, PASSES * NB, {0}},
      {"x4 mul2 indep", k_x4_indep2, PASSES * NB, {0}},
      {"scalar sqr indep", k_scalar_sqr, PASSES * NB, {0}},
      {"x4 sqr indep", k_x4_sqr, PASSES * NB, {0}},
      {"scalar mul dep", k_scalar_dep, PASSES * NB, {0}},
      {"x4 mul dep", k_x4_dep, PASSES * NB, {0}},
      {"hyb 4+6 mul", k_hyb6, PASSES / 2 * NB / 4 * 10, {0}},
      {"hyb 4+8 mul", k_hyb8, PASSES / 2 * NB / 4 * 12, {0}},
      {"x4 conv+mul+conv", k_x4_conv, PASSES / 4 * NB, {0}},
      {"x4 from_mont", k_x4_from, PASSES * NB, {0}},
      {"x4 to_mont", k_x4_to, PASSES / 4 * NB, {0}},
      {"x4 sub+add", k_x4_addsub, PASSES * NB, {0}},
      {"x4 reduce", k_x4_reduce, PASSES * NB, {0}},
      {"affine scalar", k_aff_scalar, NA, {0}},
      {"affine x4", k_aff_x4, NA, {0}},
      {"affine x4+conv", k_aff_x4_conv, NA, {0}},
      {"affine hyb 4+8", k_aff_hyb, NA, {0}},
  };
  int nv = (int)(sizeof v / sizeof v[0]);
  double clk[64];
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < nv; i++) {
      int reps = v[i].per < 1000 ? 20 : 1; /* affine: 20 batches per sample */
      double t0 = cpu_ns();
      for (int k = 0; k < reps; k++) v[i].fn();
      v[i].t[r] = (cpu_ns() - t0) / (v[i].per * reps);
    }
    clk[r] = ns_per_cycle();
  }
  qsort(clk, (size_t)rounds, sizeof clk[0], cmp_d);
  double c = clk[0];
  printf("fp_x4: %s, hybrid %s; %d rounds; clock %.2f GHz (best), %.2f GHz (median) by dependent adds\n",
         fp_x4_accelerated() ? "AVX2 + FMA" : "references",
         fp_x4_hyb_native() ? "interleaved" : "sequential", rounds, 1 / clk[0],
         1 / clk[rounds / 2]);
  printf("%-20s %9s %9s %9s   (ns per product / per lane / per addition)\n", "", "min ns",
         "median", "cycles");
  for (int i = 0; i < nv; i++) {
    qsort(v[i].t, (size_t)rounds, sizeof v[i].t[0], cmp_d);
    printf("%-20s %9.1f %9.1f %9.0f\n", v[i].name, v[i].t[0], v[i].t[rounds / 2], v[i].t[0] / c);
  }
  printf("(%016" PRIx64 " %016" PRIx64 " %g)\n", sr[0][0], sa[0][0], vr[0].l[0][0]);
  return 0;
}
