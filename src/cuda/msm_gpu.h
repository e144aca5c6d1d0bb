/* Multi-scalar multiplication on the GPU: out = sum_i s_i P_i over
 * BLS12-381 G1 and G2, equal as group elements to msm_g1 / msm_g2
 * (src/msm), which stay the reference.
 *
 * DESIGN (the algorithm is described in msm_gpu.cu)
 *   A context (msm_gpu_new) is made once per group and maximum size: it
 *   allocates all its device memory then (msm_gpu_device_bytes says how
 *   much), plus a stream and an event; a run allocates nothing and never
 *   waits on the device as a whole.  A run is enqueued on the caller's
 *   stream; its result, a Jacobian point on the host, is written by a host
 *   callback at the end of the run's work on that stream, so it is valid
 *   once the stream has passed it (cudaStreamSynchronize or an event
 *   recorded after the call).  A context serves one run at a time: a run
 *   first waits (on the host) for the context's previous run to finish.
 *   With split = MSM_GPU_SPLIT_AUTO or _ON a run also waits, once, for its
 *   own scalar classification (a stream synchronisation of the caller's
 *   stream), to size the rest from the counts.
 *
 * Inputs are the CPU MSM's: bases in the zkey layout (affine x, y,
 * little-endian Montgomery limbs; infinity is all zero bytes; in the
 * prime-order subgroup), scalars 32-byte little-endian (taken mod r).
 * Device buffers must be 16-byte aligned (cudaMalloc's are).  n < 2^31.
 *
 * Nothing here names a CUDA type: streams are `void *` (a cudaStream_t; NULL
 * means the context's own stream).  Only a CUDA build has src/cuda. */
#ifndef CUZK_CUDA_MSM_GPU_H
#define CUZK_CUDA_MSM_GPU_H

#include "cuda/msm_gpu_impl.h"
#include "ec/bls12_381.h"
#include "msm/msm.h"

/* Context lifetime (declared in msm_gpu_impl.h):
 *   cuzk_status msm_gpu_new(msm_gpu **ctx, msm_gpu_group g, size_t n_max,
 *                           unsigned flags, cuzk_err *err);
 *       flags: MSM_GPU_HOST_INPUTS, MSM_GPU_EMULATE, MSM_GPU_POISON,
 *       MSM_GPU_PROFILE.
 *       CUZK_NO_MEMORY when the device memory is not there.
 *   void msm_gpu_free(msm_gpu *ctx);           (NULL is fine)
 *   size_t msm_gpu_device_bytes(g, n_max, flags);
 *   cuzk_status msm_gpu_last_counts(ctx, counts, err);   after a split run
 *   cuzk_status msm_gpu_profile(ctx, ms[MSM_GPU_PHASES], &runs, err);
 *       time per phase (a context made with MSM_GPU_PROFILE) */

/* *out = sum_i scalars[i] * bases[i] over n points held in device memory,
 * enqueued on stream; *out is written when the stream reaches the end of the
 * run (see above), so it must stay valid until then.  opts may be NULL. */
cuzk_status msm_gpu_g1(msm_gpu *ctx, bls12_381_g1_jac *out, const void *bases_dev,
                       const void *scalars_dev, size_t n, const msm_gpu_opts *opts, void *stream,
                       cuzk_err *err);
cuzk_status msm_gpu_g2(msm_gpu *ctx, bls12_381_g2_jac *out, const void *bases_dev,
                       const void *scalars_dev, size_t n, const msm_gpu_opts *opts, void *stream,
                       cuzk_err *err);

/* The same over host arrays, like msm_g1_parts: the parts are copied to the
 * device buffers of a context made with MSM_GPU_HOST_INPUTS (sum of n at most
 * n_max), and the call returns with *out written.  Pageable sources travel
 * through the context's two page-locked staging buffers; on the device the
 * scalars of bases at infinity are zeroed, so those points skip the buckets. */
cuzk_status msm_gpu_g1_parts(msm_gpu *ctx, bls12_381_g1_jac *out, const msm_part *parts,
                             size_t nparts, const msm_gpu_opts *opts, cuzk_err *err);
cuzk_status msm_gpu_g2_parts(msm_gpu *ctx, bls12_381_g2_jac *out, const msm_part *parts,
                             size_t nparts, const msm_gpu_opts *opts, cuzk_err *err);

/* Resident bases: a device copy of the concatenated bases of parts (their
 * scalars are not read), made once so that later MSMs over the same host
 * arrays upload only their scalars (a key kept on the GPU between proofs).
 * flags: MSM_GPU_EMULATE to hold it in host memory for emulated contexts.
 * The set remembers the host addresses only: the caller keeps those arrays
 * unchanged while the set is in use (a mapped key stays mapped).  Runs
 * over it zero the scalars of its bases at infinity on the device, as runs
 * over uploaded bases do (see the _parts entry points).
 *   void msm_gpu_bases_free(msm_gpu_bases *b);            (NULL is fine)
 *   size_t msm_gpu_bases_bytes(const msm_gpu_bases *b);   its device bytes
 *   const void *msm_gpu_bases_data(const msm_gpu_bases *b); the device copy */
cuzk_status msm_gpu_resident_new(msm_gpu_bases **out, msm_gpu_group g, const msm_part *parts,
                                 size_t nparts, unsigned flags, cuzk_err *err);
/* Whether parts name the same host arrays and counts, in order, as b. */
bool msm_gpu_resident_match(const msm_gpu_bases *b, const msm_part *parts, size_t nparts);

/* msm_gpu_g1_parts over res's device bases: parts must match res
 * (msm_gpu_bases_match); only their scalars are copied. */
cuzk_status msm_gpu_g1_parts_resident(msm_gpu *ctx, bls12_381_g1_jac *out,
                                      const msm_gpu_bases *res, const msm_part *parts,
                                      size_t nparts, const msm_gpu_opts *opts, cuzk_err *err);
cuzk_status msm_gpu_g2_parts_resident(msm_gpu *ctx, bls12_381_g2_jac *out,
                                      const msm_gpu_bases *res, const msm_part *parts,
                                      size_t nparts, const msm_gpu_opts *opts, cuzk_err *err);

/* The _parts entry points above on a stream of the caller's choice: res
 * NULL uploads the bases (msm_gpu_g1_parts), else res is a resident set
 * that parts match (msm_gpu_g1_parts_resident); stream is a cudaStream_t
 * of the context's device, or NULL for the context's own stream (what
 * the entry points above use).  Every copy and kernel of the run goes on
 * that stream, so its priority orders them against other streams' work
 * (the CUDA backend's set_priority), and the call returns once the stream
 * has passed the run: the next run may use another stream.  stop: the
 * run's stop hook (a const cuzk_stop *, base/stop.h; NULL: none), polled
 * between the staging copies and before each window group's launches,
 * with at most two groups queued (msm_gpu.cuh, Stopping): once it is set
 * the run waits for its stream and returns CUZK_CANCELLED, *out
 * unspecified, the context ready for the next run. */
cuzk_status msm_gpu_parts_on_(msm_gpu *ctx, msm_gpu_group g, void *out, const msm_gpu_bases *res,
                              const msm_gpu_part *parts, size_t nparts, const msm_gpu_opts *opts,
                              void *stream, const void *stop, cuzk_err *err);
static inline cuzk_status msm_gpu_g1_parts_on(msm_gpu *ctx, bls12_381_g1_jac *out,
                                              const msm_gpu_bases *res, const msm_part *parts,
                                              size_t nparts, const msm_gpu_opts *opts,
                                              void *stream, const cuzk_stop *stop,
                                              cuzk_err *err) {
  return msm_gpu_parts_on_(ctx, MSM_GPU_G1, out, res, (const msm_gpu_part *)parts, nparts, opts,
                           stream, stop, err);
}
static inline cuzk_status msm_gpu_g2_parts_on(msm_gpu *ctx, bls12_381_g2_jac *out,
                                              const msm_gpu_bases *res, const msm_part *parts,
                                              size_t nparts, const msm_gpu_opts *opts,
                                              void *stream, const cuzk_stop *stop,
                                              cuzk_err *err) {
  return msm_gpu_parts_on_(ctx, MSM_GPU_G2, out, res, (const msm_gpu_part *)parts, nparts, opts,
                           stream, stop, err);
}

/* Benchmarking (needs MSM_GPU_HOST_INPUTS):
 *   msm_gpu_upload(ctx, bases, scalars, n, &ms, err) copies n host points
 *       into the context's input buffers (ms: the copy's time, may be NULL);
 *   msm_gpu_g1_time / _g2_time run the MSM over the first n uploaded points
 *       once to warm up, then reps times, each timed with CUDA events on the
 *       context's stream; *ms_median is the median and *out the last result. */
cuzk_status msm_gpu_g1_time(msm_gpu *ctx, bls12_381_g1_jac *out, size_t n,
                            const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                            cuzk_err *err);
cuzk_status msm_gpu_g2_time(msm_gpu *ctx, bls12_381_g2_jac *out, size_t n,
                            const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                            cuzk_err *err);

#endif
