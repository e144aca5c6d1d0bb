/* The GPU MSM pipeline (msm_gpu.cuh) for BLS12-381 G1: a translation unit
 * of its own so that the two groups' kernels compile in parallel. */
#include "cuda/msm_gpu.cuh"

namespace msmg {

cuzk_status run_g1(msm_gpu *ctx, void *out, const void *bases, const void *scalars, size_t n,
                   const msm_gpu_opts *opts, cudaStream_t st, cuzk_err *err) {
  return run_group<g1_xyzz>(ctx, out, bases, scalars, n, opts, st, err);
}

} // namespace msmg
