/* The MSM window plan: window size, accumulation mode and work split.
 *
 * DESIGN: the plan minimises a model of the slowest worker's time in field
 * multiplications M (a squaring counted as M, an addition/subtraction of
 * field elements as 0.2 M: measured 31 ns vs 145 ns for Fp on the 2-core
 * EPYC dev machine).  The GPU backend reads the same plan fields (c, nwin,
 * nbuckets, nsplit) and keeps its own cost model for choosing them. */
#include <math.h>

#include "base/par.h"
#include "msm/msm_internal.h"

/* Model constants, per point or per bucket, in M; see msm.h for the
 * formulas.  Checked against measured times: see the tuning notes below. */
#define COST_BA_ADD 7.6     /* 5M + 1S, 6 add/sub, load and negate, digit, sort */
#define COST_XYZZ_MADD 11.2 /* 8M + 2S + 6 add/sub */
#define COST_XYZZ_ADD 15.2  /* 12M + 2S + 6 add/sub */
#define COST_INV 700.0      /* Fermat inversion in Fp: 381 S + ~190 M, measured 682-725 M */
#define COST_SCAN 0.05      /* per bucket per chunk: clear, count, lay out */

/* Points per batch-affine chunk: at least MSM_CHUNK_MIN and at least one per
 * bucket, so that the per-chunk bucket scan and the ~4 tree rounds (each one
 * inversion) stay under 0.1 M per point.  Measured on 2^18 G1 points, c = 15,
 * one thread: chunk 2^12 / 2^13 / 2^14 / 2^15 ran TODO */
#define MSM_CHUNK_MIN (1u << 14)

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
  if ((uint64_t)p->nwin * p->nsplit > UINT32_MAX)
    return "too many tasks";
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
  l->k = k;
  l->buckets = off, off += up64(nb * aff);
  l->work = off, off += up64((k + touched) * aff);
  l->den = off, off += up64(k * field_bytes);
  l->pre = off, off += up64(k * field_bytes);
  l->segs = off, off += up64(touched * sizeof(msm_seg));
  l->counts = off, off += up64(nb * sizeof(uint32_t));
  l->digits = off, off += up64(k * sizeof(uint32_t));
  l->kinds = off, off += up64(k);
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
  return nt * COST_BA_ADD + chunks * (rounds * COST_INV + nb * COST_SCAN) +
         nb * (COST_XYZZ_MADD + COST_XYZZ_ADD);
}

msm_plan msm_plan_for(size_t n, unsigned threads) {
  if (threads == 0)
    threads = par_threads();
  msm_plan best = msm_plan_make(1, 1, threads, 0);
  double best_cost = INFINITY;
  for (unsigned c = 1; c <= 22; c++) {
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
