/* The MSM planner: how an MSM of n points is cut into windows, for the CPU
 * MSM (msm.c, msm_plan) and for the GPU MSM (cuda/msm_gpu*, msm_geo).  Plain
 * C (plan.c), callable from the CUDA files.
 *
 * DESIGN
 *   Both targets recode a folded scalar (s <= (r-1)/2 < 2^254) into signed
 *   digits over windows that tile MSM_REC_BITS = 255 bits or more
 *   (window.h); they differ in the windows their cost models pick:
 *   - CPU: uniform c-bit windows (msm_geo_uniform over the bits of one
 *     endomorphism part plus one), with the work split into tasks and a
 *     bucket accumulation mode; the model counts field multiplications of
 *     the slowest worker (plan.c: the CPU cost model).
 *   - GPU: windows of two widths splitting the 255 bits evenly
 *     (msm_geo_split), their count minimising mixed additions plus bucket
 *     reduction (plan.c: the GPU cost model); a context sizes its buckets by
 *     msm_gpu_max_buckets.
 *   Both are pure functions of their arguments. */
#ifndef CUZK_MSM_PLAN_H
#define CUZK_MSM_PLAN_H

#include <stddef.h>

#include "msm/window.h"

#define MSM_SCALAR_BITS 254 /* after the r - s fold: every scalar is <= (r-1)/2 < 2^254 */
#define MSM_REC_BITS 255    /* bits a recoding of a folded scalar tiles: one more (its borrow) */
#define MSM_MAX_C 24
/* Largest endomorphism split per group (msm_plan.endo). */
#define MSM_G1_ENDO_MAX 2
#define MSM_G2_ENDO_MAX 4

/* GPU window widths: opts.c may ask for MSM_GPU_C_MIN..MSM_GPU_C_MAX
 * (bucket indices of a window group and the sentinel fit the sort's 32-bit
 * keys), the planner itself takes at most MSM_GPU_C_AUTO_MAX (wider windows
 * only add buckets at the sizes a GPU holds: msm_gpu_windows). */
#define MSM_GPU_C_MIN 2
#define MSM_GPU_C_MAX 23
#define MSM_GPU_C_AUTO_MAX 22

#ifdef __cplusplus
extern "C" {
#endif

/* How one CPU MSM is cut up.  Produced by msm_plan_for_*, or written by
 * hand (tests, tuning) and checked by the run. */
typedef struct {
  unsigned c;        /* window bits, 1..MSM_MAX_C */
  unsigned nwin;     /* windows: msm_plan_geo's, c * nwin >= msm_part_bits(endo) + 1 */
  unsigned nbuckets; /* buckets per window: 2^(c-1) */
  unsigned nsplit;   /* point ranges per window; tasks = nwin * nsplit */
  unsigned threads;  /* workers, >= 1 (at most the number of tasks are started) */
  unsigned chunk;    /* batch-affine: points per chunk (of the K n split points); 0: XYZZ */
  unsigned endo;     /* K, scalar parts per point: 1 (none), 2 or 4 (G2 only); msm.h */
} msm_plan;

/* Bits of a part's magnitude for endo = K (1, 2, 4): 254, 127, 63. */
unsigned msm_part_bits(unsigned endo);
/* The windows of a CPU plan with c-bit windows and endo parts: uniform,
 * covering msm_part_bits(endo) + 1 bits (the digits' borrow). */
msm_geo msm_plan_geo(unsigned c, unsigned endo);

/* The plan for n points of G1 / G2 on `threads` workers (0 = par_threads()):
 * window size, accumulation mode, split and endomorphism split minimising
 * the CPU cost model.  msm_g1 / msm_g2 / _parts use these. */
msm_plan msm_plan_for_g1(size_t n, unsigned threads);
msm_plan msm_plan_for_g2(size_t n, unsigned threads);
/* The plan without endomorphism (endo = 1), by G1's model, usable for
 * either group. */
msm_plan msm_plan_for(size_t n, unsigned threads);
/* A plan with the given c, nsplit, threads and chunk and the derived fields
 * filled in; endo = 1. */
msm_plan msm_plan_make(unsigned c, unsigned nsplit, unsigned threads, unsigned chunk);
/* The same with endo = K parts (1, 2, or 4; 4 is for G2 only). */
msm_plan msm_plan_make_endo(unsigned c, unsigned nsplit, unsigned threads, unsigned chunk,
                            unsigned endo);

/* The GPU's windows for n points: the even split of MSM_REC_BITS into the
 * count of windows, no wider than MSM_GPU_C_AUTO_MAX bits, that minimises
 * the GPU cost model. */
msm_geo msm_gpu_windows(size_t n);
/* The same for scalars whose folded magnitudes have fewer than `bits`
 * bits (2 <= bits <= MSM_REC_BITS: the windows tile [0, bits), msm/
 * window.h), among the splits of at most max_buckets buckets: what a run
 * over narrow scalars (words, small sums) plans with. */
msm_geo msm_gpu_windows_bits(size_t n, unsigned bits, size_t max_buckets);
/* The GPU cost model's figure for n points over the windows g (in mixed
 * additions): nwin (n + a launch and sort overhead) + 3 per bucket. */
double msm_gpu_cost(const msm_geo *g, size_t n);
/* The same for the points whose folded magnitudes have b bits, hist[b] of
 * them for lo <= b <= hi: each adds into the windows that start at or
 * below bit b only (the recoding's digits above are zero and skipped). */
double msm_gpu_cost_hist(const msm_geo *g, const uint32_t *hist, unsigned lo, unsigned hi);
/* The work of the GPU split's Pippenger at its floor, in mixed additions
 * (benchmarks price it at the IMAD rate: docs/PERF.md §1.4): the ones'
 * sum (ones - 1 additions) and, for the others of hist[b] folded bits
 * (1 <= b <= 254), one addition per point and window starting at or below
 * its length plus 2 XYZZ additions (2.8 mixed ones) per bucket, over the
 * cheapest even split of 255 bits, or of a narrow part's bits and 255 for
 * the rest; no launch, sort or key costs.  Zero scalars cost nothing. */
double msm_gpu_floor_adds(const uint32_t *hist, size_t ones);
/* The GPU split's boundary (msm_gpu_opts.narrow): `others` points of
 * hist[b] with b folded bits (1 <= b <= 254) go to a narrow part, those of
 * at most the bound's bits, on windows over bound + 1 bits, and a wide
 * part of the rest on every window; the bound the histogram's cost model
 * prices lowest, or 0 (no narrow part) when one part costs least.  Each
 * part within max_buckets buckets. */
unsigned msm_gpu_narrow_bound(const uint32_t *hist, size_t others, size_t max_buckets);
/* The windows opts.c = c asks for on the GPU: ceil(255 / c) windows split
 * evenly, so none is wider than c. */
msm_geo msm_gpu_windows_c(unsigned c);
/* Buckets (all windows) a GPU context for up to n_max points holds: the most
 * any even split takes whose widest window is no wider than that of
 * msm_gpu_windows(n_max), so that the plan for every n <= n_max and every
 * opts.c or opts.nwin up to that width fit (no smaller n takes a wider
 * window: the cheapest window count falls as n grows). */
size_t msm_gpu_max_buckets(size_t n_max);

#ifdef __cplusplus
}
#endif
#endif
