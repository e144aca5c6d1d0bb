/* The MSM planner (plan.h): window geometry for both targets, the CPU cost
 * model (msm_plan_for_*) and the GPU cost model (msm_gpu_windows).
 *
 * DESIGN: each model is a pure function of n (and, on the CPU, the worker
 * count) that walks its candidates in a fixed order and keeps the first of
 * the cheapest, so a plan never depends on anything but its arguments.
 * The measurements behind the constants are in bench/RESULTS.md ("MSM
 * planner and code health"). */
#include <math.h>
#include <stdint.h>

#include "base/par.h"
#include "msm/msm_internal.h"

/* ---- the CPU cost model ----
 *
 * msm_plan_for_g1/_g2 try every endomorphism split K the group has,
 * c <= MSM_PLAN_MAX_C, split and accumulation mode, and keep the cheapest
 * by a model of the slowest worker's time, in units of one multiplication
 * M of the group's coordinate field: (waves of tasks) x (K points x cost
 * per point and window + chunk overheads + bucket reduction) + the final
 * Horner sum + the split's own cost.  msm_plan_for is the same without a
 * split.
 *
 * Operation costs in M, each the time of the operation over independent G1
 * inputs divided by that of one Fp multiplication (the same ratios for the
 * portable and the mulx/adx multiplication). */
#define COST_BA_ADD 7.1     /* a bucket tree's addition, with its share of the scatter */
#define COST_BA_POINT 0.5   /* per point: digit, counting sort (a bucket's first point is
                             * copied, not added: COST_BA_POINT only) */
#define COST_RED_ADD 7.0    /* a reduction chain's affine addition */
#define COST_XYZZ_MADD 11.0 /* 8M + 2S + 6 add/sub */
#define COST_XYZZ_ADD 15.0  /* 12M + 2S + 6 add/sub */
#define COST_INV 650.0      /* Fermat inversion in Fp: 381 S + ~190 M */
#define COST_SCAN 0.05      /* per bucket per chunk: clear, count, lay out */
/* Memory: the bucket array and the chunk's work array (at least as many
 * points) are written at random, once per point and window, so the cost
 * per point and window grows once the buckets pass the 512 KiB L2: the
 * extra M per point below, by the buckets' bytes, fit the measured times
 * of c = 13..17 with and without the endomorphism split to 2.3 % rms.  G2's
 * buckets are twice the bytes, so they pass each step at one c less. */
static double far_cost(unsigned nb, size_t aff_bytes) {
  double bytes = (double)nb * aff_bytes;
  return bytes <= (512 << 10) ? 0.0
         : bytes <= (1 << 20) ? 0.15
         : bytes <= (2 << 20) ? 0.3
         : bytes <= (4 << 20) ? 1.2
                              : 1.8;
}

/* Points per batch-affine chunk: at least MSM_CHUNK_MIN and at least one per
 * bucket, so that the per-chunk bucket scan and the ~4 tree rounds (each one
 * inversion) stay under 0.1 M per point; chunks of 2^12 .. 2^16 measured
 * within noise of each other. */
#define MSM_CHUNK_MIN (1u << 14)

/* Largest window the CPU plan takes: per worker 2^(c-1) buckets plus a chunk
 * of at least as many points, ~40 MB of scratch at c = 18 for G1.  The
 * model's memory term was fitted up to 2^20 points; above, it is an
 * extrapolation. */
#define MSM_PLAN_MAX_C 18

unsigned msm_part_bits(unsigned endo) {
  return endo == 4 ? 63 : endo == 2 ? 127 : MSM_SCALAR_BITS; /* msm_split's bounds */
}

msm_geo msm_plan_geo(unsigned c, unsigned endo) {
  return msm_geo_uniform(c, msm_part_bits(endo) + 1);
}
static unsigned nwin_for(unsigned c, unsigned endo) { return msm_plan_geo(c, endo).nwin; }

msm_plan msm_plan_make_endo(unsigned c, unsigned nsplit, unsigned threads, unsigned chunk,
                            unsigned endo) {
  msm_plan p = {0};
  p.c = c;
  p.endo = endo;
  p.nwin = c && (endo == 1 || endo == 2 || endo == 4) ? nwin_for(c, endo) : 0;
  p.nbuckets = c && c <= MSM_MAX_C ? 1u << (c - 1) : 0;
  p.nsplit = nsplit;
  p.threads = threads;
  p.chunk = chunk;
  return p;
}

msm_plan msm_plan_make(unsigned c, unsigned nsplit, unsigned threads, unsigned chunk) {
  return msm_plan_make_endo(c, nsplit, threads, chunk, 1);
}

const char *msm_plan_check(const msm_plan *p) {
  if (p->c < 1 || p->c > MSM_MAX_C)
    return "window bits c must be 1..24";
  if (p->endo != 1 && p->endo != 2 && p->endo != 4)
    return "endo must be 1, 2 or 4";
  if (p->nwin != nwin_for(p->c, p->endo) || p->nbuckets != 1u << (p->c - 1))
    return "nwin or nbuckets inconsistent with c and endo";
  if (p->nsplit < 1 || p->threads < 1)
    return "nsplit and threads must be at least 1";
  if ((uint64_t)p->nwin * p->nsplit > (1u << 24) || p->threads > (1u << 24))
    return "more than 2^24 tasks or threads";
  return NULL;
}

static size_t up64(size_t x) { return (x + 63) & ~(size_t)63; }

void msm_layout_for(msm_layout *l, const msm_plan *p, size_t n, size_t field_bytes) {
  size_t aff = 2 * field_bytes, nb = p->nbuckets, off = 0;
  size_t per_task = (n + p->nsplit - 1) / p->nsplit * p->endo; /* split points */
  *l = (msm_layout){0};
  if (p->chunk == 0) {
    l->buckets = 0;
    l->total = up64(nb * 4 * field_bytes);
    return;
  }
  size_t k = p->chunk < per_task ? p->chunk : per_task;
  if (k == 0)
    k = 1;
  size_t touched = k < nb ? k : nb;
  size_t nwork = k + touched, npair = k;
  if (nb >= MSM_RED_MIN && npair < 2 * MSM_RED_CHAINS)
    npair = 2 * MSM_RED_CHAINS; /* the reduction's chains and their batch */
  if (nwork < npair)
    nwork = npair;
  l->k = k;
  l->buckets = off, off += up64(nb * aff);
  l->work = off, off += up64(nwork * aff);
  l->den = off, off += up64(npair * field_bytes);
  l->pre = off, off += up64(npair * field_bytes);
  l->segs = off, off += up64(touched * sizeof(msm_seg));
  l->counts = off, off += up64(nb * sizeof(uint32_t));
  l->digits = off, off += up64(k * sizeof(uint32_t));
  l->kinds = off, off += up64(npair);
  l->total = off;
}

/* What the model needs to know of a group beyond the per-M constants
 * above, which are G1's in Fp M: the largest endomorphism split it has;
 * the bytes of an affine point and the weight of the memory term in the
 * group's M (1 for both: a smaller weight for G2, as the cost ratio of its
 * multiplication suggests, picked plans that measured slower); an
 * inversion of the field in its M (Fp2: one Fp inversion and a few M,
 * ~650 / 2.5 + 40); and the split's own costs in M, per live point, spread
 * over the workers: msm_split (three 256-by-64-bit divisions) and the
 * K - 1 images (G1 [u^2]: 1 Fp M; G2 [u^2]: 2 Fp M, psi: 5 Fp M each).
 * Per split point and window COST_ENDO_POINT: the larger stream of bases
 * (K n points instead of n), fitted with the far costs. */
typedef struct {
  unsigned endo_max;
  size_t aff_bytes;
  double far_scale;
  double inv;
  double split;
  double images[5]; /* all K - 1 images of a point, by K */
} group_model;

#define COST_ENDO_POINT 0.1
static const group_model model_plain = {1, 96, 1.0, COST_INV, 0, {0}};
static const group_model model_g1 = {MSM_G1_ENDO_MAX, 96, 1.0, COST_INV, 0.5, {0, 0, 1.0, 0, 0}};
static const group_model model_g2 = {MSM_G2_ENDO_MAX, 192, 1.0, 300.0, 0.2, {0, 0, 0.8, 0, 4.8}};

/* Modelled cost of one task of nt points (per_point more each: the split's
 * memory) with nb buckets of group g.  Of nt random digits, about
 * nb (1 - e^(-nt/nb)) land first in their bucket: copies, not additions. */
static double task_cost(size_t nt, unsigned nb, unsigned chunk, const group_model *g,
                        double per_point) {
  double first = nb * (1.0 - exp(-(double)nt / nb));
  if (chunk == 0)
    return (nt - first) * COST_XYZZ_MADD + nt * per_point + nb * 2.0 * COST_XYZZ_ADD;
  double k = nt < chunk ? (double)nt : (double)chunk;
  double chunks = ceil(nt / (k > 0 ? k : 1));
  /* Tree depth: log2 of the longest bucket list; with k/nb points per
   * bucket on average the longest of nb lists is a few more than that. */
  double rounds = ceil(log2(k / nb + 1.0)) + 3.0;
  double far = g->far_scale * far_cost(nb, g->aff_bytes);
  double reduce = nb >= MSM_RED_MIN
                      ? nb * 2.0 * COST_RED_ADD + (nb / MSM_RED_CHAINS + 1.0) * g->inv +
                            MSM_RED_CHAINS * (2 * COST_XYZZ_MADD + COST_XYZZ_ADD)
                      : nb * (COST_XYZZ_MADD + COST_XYZZ_ADD);
  return nt * (COST_BA_POINT + far + per_point) + (nt - first) * COST_BA_ADD +
         chunks * (rounds * g->inv + nb * COST_SCAN) + reduce;
}

/* The images take (K - 1) n affine points of scratch for the whole run; a
 * split that needs more than this is not considered (above 2^23.4 G1
 * points, or 2^22.4 / 2^20.8 G2 points for K = 2 / 4), so that a CPU prove
 * at 2^24 does not add gigabytes to a process that holds the key; the
 * model drops the split well below that anyway (msm_plan_for_g1 at 2^20). */
#define MSM_ENDO_MAX_BYTES ((size_t)1 << 30)

static msm_plan plan_for(size_t n, unsigned threads, const group_model *g) {
  if (threads == 0)
    threads = par_threads();
  msm_plan best = msm_plan_make(1, 1, threads, 0);
  double best_cost = INFINITY;
  for (unsigned endo = 1; endo <= g->endo_max; endo *= 2) {
    if (endo > 1 && (endo - 1) * g->aff_bytes > MSM_ENDO_MAX_BYTES / (n ? n : 1))
      break;
    /* the split and the images, once per live point, on all workers */
    double prep = endo > 1 ? ceil((double)n / threads) * (g->split + g->images[endo]) : 0.0;
    unsigned bits = msm_part_bits(endo);
    for (unsigned c = 1; c <= MSM_PLAN_MAX_C; c++) {
      unsigned nwin = nwin_for(c, endo), nb = 1u << (c - 1);
      for (unsigned nsplit = 1; nsplit <= 4 * threads; nsplit++) {
        if (nsplit > 1 && (size_t)nsplit > n)
          break;
        size_t nt = (n + nsplit - 1) / nsplit * endo; /* split points per task */
        unsigned ntask = nwin * nsplit, waves = (ntask + threads - 1) / threads;
        unsigned chunk = nb > MSM_CHUNK_MIN ? nb : MSM_CHUNK_MIN;
        for (int ba = 0; ba <= 1; ba++) {
          unsigned ch = ba ? chunk : 0;
          /* + the final sum: nwin*nsplit Jacobian additions, about
           * bits + 1 doublings */
          double cost =
              waves * task_cost(nt, nb, ch, g, endo > 1 ? COST_ENDO_POINT : 0.0) +
              ntask * 16.0 + (bits + 1) * 8.0 + prep;
          if (cost < best_cost * 0.999) {
            best_cost = cost;
            best = msm_plan_make_endo(c, nsplit, threads, ch, endo);
          }
        }
      }
    }
  }
  return best;
}

msm_plan msm_plan_for(size_t n, unsigned threads) { return plan_for(n, threads, &model_plain); }
msm_plan msm_plan_for_g1(size_t n, unsigned threads) { return plan_for(n, threads, &model_g1); }
msm_plan msm_plan_for_g2(size_t n, unsigned threads) { return plan_for(n, threads, &model_g2); }

/* ---- the GPU cost model ----
 *
 * A run costs about nwin (n + 2^16) + 3 B, B the buckets of all windows:
 * every window takes each point once (a mixed addition; a bucket's first
 * point is a copy, which the count leaves out) plus a per-window overhead
 * of launches and sort passes worth ~2^16 additions, and the reduction
 * costs 2 XYZZ additions per bucket of ~1.4 mixed ones each, 3 in all.
 * The model predicted the H200's times over uniform windows to 0.5 %, and
 * the even split beat uniform windows of the same widest width
 * (bench/RESULTS.md).  Scalars narrower than the windows are cheaper than
 * that: their zero digits take no sort slot and no addition, which the
 * histogram form (msm_gpu_cost_hist) counts and the split's boundary
 * (msm_gpu_narrow_bound) needs: priced as if every point took every
 * window, a narrow part looked cheaper for the generator's PoRep witness
 * (lengths uniform over 2..254) than it runs (bench/RESULTS.md). */
#define GPU_WINDOW_OVERHEAD 65536.0
#define GPU_BUCKET_COST 3.0

double msm_gpu_cost(const msm_geo *g, size_t n) {
  return g->nwin * ((double)n + GPU_WINDOW_OVERHEAD) +
         GPU_BUCKET_COST * (double)msm_geo_buckets(g);
}

/* Over the folded bit lengths hist[lo..hi]: a b-bit magnitude's recoding
 * is zero in every window that starts above bit b (the digit of the window
 * holding bit b - 1 may borrow one into the next, which starts at most at
 * b), and zero digits take no sort slot or addition, so a point costs one
 * addition per window starting at or below its length. */
static double hist_adds(const msm_geo *g, const uint32_t *hist, unsigned lo, unsigned hi) {
  double adds = 0;
  unsigned w = 0; /* windows starting at or below b */
  for (unsigned b = lo; b <= hi; b++) {
    while (w < g->nwin && msm_geo_offset(g, w) <= b) w++;
    adds += (double)hist[b] * w;
  }
  return adds;
}

double msm_gpu_cost_hist(const msm_geo *g, const uint32_t *hist, unsigned lo, unsigned hi) {
  return hist_adds(g, hist, lo, hi) + g->nwin * GPU_WINDOW_OVERHEAD +
         GPU_BUCKET_COST * (double)msm_geo_buckets(g);
}

/* Window counts of the even splits the GPU plans for `bits` bits: from
 * the fewest that keep windows within MSM_GPU_C_AUTO_MAX bits to the most
 * that keep them at least MSM_GPU_C_MIN bits (one window, at least). */
static unsigned gpu_nwin_lo(unsigned bits, unsigned cmax) { return (bits + cmax - 1) / cmax; }
static unsigned gpu_nwin_hi(unsigned bits) {
  return bits / MSM_GPU_C_MIN ? bits / MSM_GPU_C_MIN : 1;
}

msm_geo msm_gpu_windows_bits(size_t n, unsigned bits, size_t max_buckets) {
  const unsigned hi = gpu_nwin_hi(bits);
  msm_geo best = msm_geo_split(hi, bits);
  double best_cost = -1;
  for (unsigned w = gpu_nwin_lo(bits, MSM_GPU_C_AUTO_MAX); w <= hi; w++) {
    const msm_geo g = msm_geo_split(w, bits);
    if (msm_geo_buckets(&g) > max_buckets)
      continue;
    const double cost = msm_gpu_cost(&g, n);
    if (best_cost < 0 || cost < best_cost)
      best = g, best_cost = cost;
  }
  return best;
}

msm_geo msm_gpu_windows(size_t n) { return msm_gpu_windows_bits(n, MSM_REC_BITS, SIZE_MAX); }

/* The floor leaves out what the model adds for launches and sorts, and
 * prices the reduction at what its additions cost (2 XYZZ additions per
 * bucket, 12M + 2S against a mixed addition's 8M + 2S). */
#define FLOOR_BUCKET_COST (2.0 * 14.0 / 10.0)

/* The cheapest even split of `bits` bits for hist[lo..hi] (0 when empty). */
static double floor_part(const uint32_t *hist, unsigned lo, unsigned hi, unsigned bits) {
  double n = 0, best = 0;
  for (unsigned b = lo; b <= hi; b++) n += hist[b];
  for (unsigned w = gpu_nwin_lo(bits, MSM_GPU_C_MAX); n && w <= gpu_nwin_hi(bits); w++) {
    const msm_geo g = msm_geo_split(w, bits);
    const double adds = hist_adds(&g, hist, lo, hi) + FLOOR_BUCKET_COST * (double)msm_geo_buckets(&g);
    if (best == 0 || adds < best)
      best = adds;
  }
  return best;
}

double msm_gpu_floor_adds(const uint32_t *hist, size_t ones) {
  const unsigned top = MSM_REC_BITS - 1;
  double best = floor_part(hist, 1, top, MSM_REC_BITS);
  for (unsigned b = 1; b < top; b++) /* a narrow part of at most b bits and the rest */
    if (hist[b]) {
      const double two = floor_part(hist, 1, b, b + 1) + floor_part(hist, b + 1, top, MSM_REC_BITS);
      if (two < best)
        best = two;
    }
  return best + (ones > 1 ? (double)(ones - 1) : 0);
}

unsigned msm_gpu_narrow_bound(const uint32_t *hist, size_t others, size_t max_buckets) {
  const unsigned top = MSM_REC_BITS - 1; /* folded magnitudes have at most 254 bits */
  const msm_geo wide = msm_gpu_windows_bits(others, MSM_REC_BITS, max_buckets);
  double best = msm_gpu_cost_hist(&wide, hist, 1, top);
  unsigned bound = 0;
  size_t cn = 0;
  for (unsigned b = 1; b < top; b++) {
    if (!hist[b])
      continue;
    cn += hist[b];
    const size_t cw = others - cn;
    const msm_geo gn = msm_gpu_windows_bits(cn, b + 1, max_buckets);
    double cost = msm_gpu_cost_hist(&gn, hist, 1, b);
    if (cw) {
      const msm_geo gw = msm_gpu_windows_bits(cw, MSM_REC_BITS, max_buckets);
      cost += msm_gpu_cost_hist(&gw, hist, b + 1, top);
    }
    if (cost < best)
      best = cost, bound = b;
  }
  return bound;
}

msm_geo msm_gpu_windows_c(unsigned c) {
  return msm_geo_split(msm_geo_uniform(c, MSM_REC_BITS).nwin, MSM_REC_BITS);
}

size_t msm_gpu_max_buckets(size_t n_max) {
  const msm_geo top = msm_gpu_windows(n_max);
  size_t b = 0;
  /* every split of gpu_nwin_lo(widest) windows or more is no wider */
  for (unsigned w = gpu_nwin_lo(MSM_REC_BITS, msm_geo_widest(&top)); w <= gpu_nwin_hi(MSM_REC_BITS);
       w++) {
    const msm_geo g = msm_geo_split(w, MSM_REC_BITS);
    if (msm_geo_buckets(&g) > b)
      b = msm_geo_buckets(&g);
  }
  return b;
}
