/* The MSM window plan: window size, accumulation mode and work split.
 *
 * DESIGN: msm_plan_for tries every c <= MSM_PLAN_MAX_C, split and mode and
 * keeps the cheapest by a model of the slowest worker's time, in units of
 * one multiplication M of the group's coordinate field: (waves of tasks) x
 * (points x cost per point and window + chunk overheads + bucket reduction)
 * + the final Horner sum.  Constants below, with the measurements behind
 * them.  The GPU backend reads the same plan fields (c, nwin, nbuckets,
 * nsplit) and keeps its own cost model for choosing them. */
#include <math.h>

#include "base/par.h"
#include "msm/msm_internal.h"

/* Model constants in M, measured on the dev machine (2-core EPYC, gcc 12)
 * by timing each operation over 4096 independent G1 inputs and dividing by
 * the time of one Fp multiplication; the same ratios held with the portable
 * C multiply (156 ns) and with the mulx/adx one (65 ns):
 *   batch-affine add 6.9-7.4 (5M + 1S + 6 add/sub + 1/4096 inversion),
 *   XYZZ mixed add 10.4-11.4, XYZZ add 14.3-15.0, inversion 570-690. */
#define COST_BA_ADD 7.6     /* + digit, counting sort, scatter, per point */
#define COST_RED_ADD 7.0    /* a reduction chain's affine addition */
#define COST_XYZZ_MADD 11.0 /* 8M + 2S + 6 add/sub */
#define COST_XYZZ_ADD 15.0  /* 12M + 2S + 6 add/sub */
#define COST_INV 650.0      /* Fermat inversion in Fp: 381 S + ~190 M */
#define COST_SCAN 0.05      /* per bucket per chunk: clear, count, lay out */
/* Memory: the bucket array is read and written at random, once per point
 * and window.  Measured cost per counted M on 2 threads (G1, mulx/adx Fp):
 *   2^18 points: c = 13 (buckets 384 KiB, in L2) 87 ns, c = 14 (768 KiB)
 *                95 ns, c = 15 (1.5 MiB) 104 ns, c = 16 (3 MiB) 103 ns;
 *   2^20 points: c = 13 92 ns, c = 16 106 ns, c = 17 (6 MiB) 107 ns,
 * i.e. roughly 0.5 / 1.2 / 1.8 M more per point and window once the G1
 * buckets pass the 512 KiB L2 / 1 MiB / 4 MiB (L3 share).  With that term
 * the model picks what measured fastest: c = 13 at 2^18 (91k vs 87k points
 * per CPU-second for c = 16) and c = 16 at 2^20 (94k vs 88k for c = 13). */
static double far_cost(unsigned nb) {
  double bytes = (double)nb * 96;
  return bytes <= (512 << 10) ? 0.0 : bytes <= (1 << 20) ? 0.5 : bytes <= (4 << 20) ? 1.2 : 1.8;
}

/* Points per batch-affine chunk: at least MSM_CHUNK_MIN and at least one per
 * bucket, so that the per-chunk bucket scan and the ~4 tree rounds (each one
 * inversion) stay under 0.1 M per point.  Measured on 2^16 G1 points, c = 13,
 * one thread: chunks of 2^12 .. 2^16 within 4 % of each other (noise); on
 * 2^20, c = 16, two threads: 2^13 / 2^14 / 2^15 within 3 %. */
#define MSM_CHUNK_MIN (1u << 14)

/* Largest window the CPU plan takes: per worker 2^(c-1) buckets plus a chunk
 * of at least as many points, ~40 MB of scratch at c = 18 for G1.  Above
 * 2^20 points nothing was measured on the 2-core dev machine; the model's
 * memory term is a guess there, and the GPU plans its own windows. */
#define MSM_PLAN_MAX_C 18

static unsigned nwin_for(unsigned c) { return (MSM_SCALAR_BITS + 1 + c - 1) / c; }

msm_plan msm_plan_make(unsigned c, unsigned nsplit, unsigned threads, unsigned chunk) {
  msm_plan p = {0};
  p.c = c;
  p.nwin = c ? nwin_for(c) : 0;
  p.nbuckets = c && c <= MSM_MAX_C ? 1u << (c - 1) : 0;
  p.nsplit = nsplit;
  p.threads = threads;
  p.chunk = chunk;
  return p;
}

const char *msm_plan_check(const msm_plan *p) {
  if (p->c < 1 || p->c > MSM_MAX_C)
    return "window bits c must be 1..24";
  if (p->nwin != nwin_for(p->c) || p->nbuckets != 1u << (p->c - 1))
    return "nwin or nbuckets inconsistent with c";
  if (p->nsplit < 1 || p->threads < 1)
    return "nsplit and threads must be at least 1";
  if ((uint64_t)p->nwin * p->nsplit > (1u << 24) || p->threads > (1u << 24))
    return "more than 2^24 tasks or threads";
  return NULL;
}

static size_t up64(size_t x) { return (x + 63) & ~(size_t)63; }

void msm_layout_for(msm_layout *l, const msm_plan *p, size_t n, size_t field_bytes) {
  size_t aff = 2 * field_bytes, nb = p->nbuckets, off = 0;
  size_t per_task = (n + p->nsplit - 1) / p->nsplit;
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

/* Modelled cost of one task of nt points with nb buckets. */
static double task_cost(size_t nt, unsigned nb, unsigned chunk) {
  if (chunk == 0)
    return nt * COST_XYZZ_MADD + nb * 2.0 * COST_XYZZ_ADD;
  double k = nt < chunk ? (double)nt : (double)chunk;
  double chunks = ceil(nt / (k > 0 ? k : 1));
  /* Tree depth: log2 of the longest bucket list; with k/nb points per
   * bucket on average the longest of nb lists is a few more than that. */
  double rounds = ceil(log2(k / nb + 1.0)) + 3.0;
  double far = far_cost(nb);
  double reduce = nb >= MSM_RED_MIN
                      ? nb * 2.0 * COST_RED_ADD + (nb / MSM_RED_CHAINS + 1.0) * COST_INV +
                            MSM_RED_CHAINS * (2 * COST_XYZZ_MADD + COST_XYZZ_ADD)
                      : nb * (COST_XYZZ_MADD + COST_XYZZ_ADD);
  return nt * (COST_BA_ADD + far) + chunks * (rounds * COST_INV + nb * COST_SCAN) + reduce;
}

msm_plan msm_plan_for(size_t n, unsigned threads) {
  if (threads == 0)
    threads = par_threads();
  msm_plan best = msm_plan_make(1, 1, threads, 0);
  double best_cost = INFINITY;
  for (unsigned c = 1; c <= MSM_PLAN_MAX_C; c++) {
    unsigned nwin = nwin_for(c), nb = 1u << (c - 1);
    for (unsigned nsplit = 1; nsplit <= 4 * threads; nsplit++) {
      if (nsplit > 1 && (size_t)nsplit > n)
        break;
      size_t nt = (n + nsplit - 1) / nsplit;
      unsigned ntask = nwin * nsplit, waves = (ntask + threads - 1) / threads;
      unsigned chunk = nb > MSM_CHUNK_MIN ? nb : MSM_CHUNK_MIN;
      for (int ba = 0; ba <= 1; ba++) {
        unsigned ch = ba ? chunk : 0;
        /* + the final sum: nwin*nsplit Jacobian additions, 255 doublings */
        double cost = waves * task_cost(nt, nb, ch) + ntask * 16.0 + 255 * 8.0;
        if (cost < best_cost * 0.999) {
          best_cost = cost;
          best = msm_plan_make(c, nsplit, threads, ch);
        }
      }
    }
  }
  return best;
}
