/* The boundary between msm_gpu_host.c (C: typed entry points, the host-side
 * final sum) and msm_gpu.cu (CUDA: context, kernels).  Not for callers:
 * they include cuda/msm_gpu.h.
 *
 * DESIGN: the .cu side cannot include the C curve headers (src/ff and
 * src/ec are C11), so everything crossing here is untyped: points are
 * `void *` in the host layouts (bls12_381_g1_jac / _g2_jac, and the device
 * XYZZ points, which are the host's bls12_381_g1_xyzz / _g2_xyzz byte for
 * byte), and the group is an msm_gpu_group.  msm_gpu_host.c checks the types. */
#ifndef CUZK_CUDA_MSM_GPU_IMPL_H
#define CUZK_CUDA_MSM_GPU_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "msm/window.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct msm_gpu msm_gpu;

typedef enum { MSM_GPU_G1 = 1, MSM_GPU_G2 = 2 } msm_gpu_group;

/* msm_gpu_new flags. */
#define MSM_GPU_HOST_INPUTS 1u /* also allocate device buffers for host inputs (n_max
                                  bases and scalars) for the _parts and bench entry points */
#define MSM_GPU_EMULATE 2u     /* no GPU: host memory, and every kernel's code run on the
                                  host with emulated carry chains (tests; slow) */
#define MSM_GPU_POISON 4u      /* fill the scratch with 0xA5 bytes before every run, so a
                                  read of memory the run did not write shows (tests) */
#define MSM_GPU_PROFILE 8u     /* record an event after every phase (msm_gpu_profile) */

/* Phases of a run, for msm_gpu_profile. */
typedef enum {
  MSM_GPU_PH_OTHER,      /* memsets (buckets, poison) */
  MSM_GPU_PH_CLASSIFY,   /* split: classification, compaction, the wait for the counts */
  MSM_GPU_PH_KEYS,       /* digits to keys */
  MSM_GPU_PH_SORT,       /* radix sort */
  MSM_GPU_PH_ACCUMULATE, /* bucket accumulation, first round */
  MSM_GPU_PH_MERGE,      /* merge rounds */
  MSM_GPU_PH_REDUCE,     /* bucket reduction (running sums) */
  MSM_GPU_PH_FINISH,     /* window sums, copy to the host, the final sum */
  MSM_GPU_PHASES
} msm_gpu_phase;

/* Bit-scalar split (msm_gpu_opts.split). */
#define MSM_GPU_SPLIT_OFF 0  /* one Pippenger MSM over all points; fully asynchronous */
#define MSM_GPU_SPLIT_AUTO 1 /* classify the scalars (0, 1, other), wait for the counts, and
                                split when at most 3/4 of the points are "other" */
#define MSM_GPU_SPLIT_ON 2   /* classify and always split */

/* How one run is cut; 0 in a field means "the plan's choice".  Tests use
 * the fields to force small windows and many merge rounds.
 * Windows (c, nwin): they tile the 255 bits of a folded scalar with its
 * signed-digit borrow (msm/window.h).  c alone: ceil(255 / c) windows
 * split evenly (floor / ceil(255 / nwin) bits, the wider first), so none
 * is wider than c (msm_gpu_windows_c); nwin alone: nwin windows split
 * evenly; both: nwin uniform c-bit windows (c nwin >= 255 > c (nwin - 1)).
 * The context's buckets hold every even split no wider than its own plan
 * for n_max (msm_gpu_max_buckets): wider or uniform windows may not fit. */
typedef struct {
  unsigned c;           /* window bits, 2..23 (see above) */
  unsigned chunk;       /* points per thread in bucket accumulation, >= 1 */
  unsigned merge_chunk; /* partial sums per thread in a merge round, >= 4 */
  unsigned group;       /* windows sorted and accumulated together, >= 1 */
  unsigned split;       /* MSM_GPU_SPLIT_*; 0 = off */
  unsigned nwin;        /* windows, 12..128 (127 without c; see above) */
  unsigned narrow;      /* split runs: the narrow part's bound in bits (msm_gpu_counts), 1..254 */
} msm_gpu_opts;

/* Counts of the last classification (runs with split != OFF).  A split
 * run sums the ones and runs Pippenger over the others in up to two
 * parts: the narrow ones, whose folded magnitudes have at most
 * narrow_bits bits (windows over narrow_bits + 1 bits only), and the wide
 * rest (every window); the boundary is the one the GPU cost model prices
 * lowest from the others' bit lengths.  A run that does not split plans
 * its windows over the widest scalar's bits. */
typedef struct {
  size_t zeros, ones, others; /* scalars = 0, = 1, anything else (mod r) */
  int split;                  /* whether the run split */
  size_t narrow, wide;        /* split: the others in each part (narrow + wide = others) */
  unsigned narrow_bits;       /* split: the narrow part's bound (0: no narrow part) */
} msm_gpu_counts;

/* A run of points: as msm_part (msm/msm.h), whose layout it repeats. */
typedef struct {
  const void *bases, *scalars;
  size_t n;
} msm_gpu_part;

/* ---- implemented in msm_gpu.cu ---- */

cuzk_status msm_gpu_new(msm_gpu **ctx, msm_gpu_group g, size_t n_max, unsigned flags,
                        cuzk_err *err);
void msm_gpu_free(msm_gpu *ctx);
size_t msm_gpu_device_bytes(msm_gpu_group g, size_t n_max, unsigned flags);
cuzk_status msm_gpu_last_counts(const msm_gpu *ctx, msm_gpu_counts *counts, cuzk_err *err);
/* ms[phase] = milliseconds spent in each phase, summed over the runs since
 * the previous call (their number in *runs), then reset.  Waits for the
 * context's last run.  Needs MSM_GPU_PROFILE. */
cuzk_status msm_gpu_profile(msm_gpu *ctx, double ms[MSM_GPU_PHASES], unsigned *runs,
                            cuzk_err *err);

/* g: the group the caller means (checked against ctx's); out: a host
 * Jacobian point of that group. */
cuzk_status msm_gpu_run_(msm_gpu *ctx, msm_gpu_group g, void *out, const void *bases,
                         const void *scalars, size_t n, const msm_gpu_opts *opts, void *stream,
                         cuzk_err *err);
cuzk_status msm_gpu_parts_(msm_gpu *ctx, msm_gpu_group g, void *out, const msm_gpu_part *parts,
                           size_t nparts, const msm_gpu_opts *opts, cuzk_err *err);
/* A base set kept in device memory (msm_gpu.h: msm_gpu_bases_new). */
typedef struct msm_gpu_bases msm_gpu_bases;
cuzk_status msm_gpu_bases_new(msm_gpu_bases **out, msm_gpu_group g, const msm_gpu_part *parts,
                              size_t nparts, unsigned flags, cuzk_err *err);
void msm_gpu_bases_free(msm_gpu_bases *b);
bool msm_gpu_bases_match(const msm_gpu_bases *b, const msm_gpu_part *parts, size_t nparts);
size_t msm_gpu_bases_bytes(const msm_gpu_bases *b);
/* The device copy: the parts' bases concatenated, in order (host memory
 * when emulated), for msm_gpu_g1 / _g2 over a stretch of it. */
const void *msm_gpu_bases_data(const msm_gpu_bases *b);
cuzk_status msm_gpu_parts_resident_(msm_gpu *ctx, msm_gpu_group g, void *out,
                                    const msm_gpu_bases *res, const msm_gpu_part *parts,
                                    size_t nparts, const msm_gpu_opts *opts, cuzk_err *err);
cuzk_status msm_gpu_upload(msm_gpu *ctx, const void *bases, const void *scalars, size_t n,
                           double *ms, cuzk_err *err);
cuzk_status msm_gpu_time_(msm_gpu *ctx, msm_gpu_group g, void *out, size_t n,
                          const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                          cuzk_err *err);

/* ---- implemented in msm_gpu_host.c ---- */

/* One Pippenger part of a run: its windows, whose sums lie from window-sum
 * slot `slot` on. */
typedef struct {
  msm_geo geo;
  unsigned slot;
} msm_gpu_win_part;

/* out = sum over the parts of sum_w 2^(o_w) win[slot + w] (+ ones, when
 * not NULL): the last step of a run, on the host (Horner per part,
 * o_(nwin-1) doublings), o_w = msm_geo_offset of the part's window w.
 * win: XYZZ points of the group (host layout), ones: one more or NULL.
 * Called from the stream's host callback: no CUDA, no allocation. */
void msm_gpu_finish(msm_gpu_group g, void *out, const void *win, const msm_gpu_win_part *parts,
                    unsigned nparts, const void *ones);

#ifdef __cplusplus
}
#endif
#endif
