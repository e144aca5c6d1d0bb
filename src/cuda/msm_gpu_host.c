/* The typed entry points of the GPU MSM (msm_gpu.h) and its last step on
 * the host (C, compiled with the rest of src/cuda into a CUDA build).
 *
 * DESIGN: the CUDA side (msm_gpu.cu) works on untyped points; this file
 * holds the types (checked below against the device layouts) and the one
 * piece of host arithmetic of a run, the Horner sum over windows, done with
 * the CPU MSM's own formulas (src/ec). */
#include <stddef.h>
#include <string.h>

#include "cuda/msm_gpu.h"

_Static_assert(sizeof(msm_gpu_part) == sizeof(msm_part) &&
                   offsetof(msm_gpu_part, bases) == offsetof(msm_part, bases) &&
                   offsetof(msm_gpu_part, scalars) == offsetof(msm_part, scalars) &&
                   offsetof(msm_gpu_part, n) == offsetof(msm_part, n),
               "msm_gpu_part repeats msm_part's layout");
/* The device XYZZ points (cuda/ec.cuh) are four coordinates in a row, as here. */
_Static_assert(sizeof(bls12_381_g1_xyzz) == 4 * 48 && sizeof(bls12_381_g2_xyzz) == 4 * 96,
               "XYZZ layouts: x, y, zz, zzz without padding");

#define FINISH(G)                                                                          \
  static void finish_##G(bls12_381_##G##_jac *out, const uint8_t *win,                     \
                         const msm_gpu_win_part *parts, unsigned nparts,                   \
                         const uint8_t *ones) {                                            \
    bls12_381_##G##_xyzz p;                                                                \
    bls12_381_##G##_jac t, acc;                                                            \
    bls12_381_##G##_jac_set_inf(out);                                                      \
    for (unsigned k = 0; k < nparts; k++) {                                                \
      const msm_geo *geo = &parts[k].geo;                                                  \
      bls12_381_##G##_jac_set_inf(&acc);                                                   \
      for (unsigned w = geo->nwin; w-- > 0;) {                                             \
        if (w + 1 < geo->nwin)                                                             \
          for (unsigned b = 0; b < msm_geo_width(geo, w); b++)                             \
            bls12_381_##G##_jac_dbl(&acc, &acc);                                           \
        memcpy(&p, win + (size_t)(parts[k].slot + w) * sizeof p, sizeof p);               \
        bls12_381_##G##_xyzz_to_jac(&t, &p);                                               \
        bls12_381_##G##_jac_add(&acc, &acc, &t);                                           \
      }                                                                                    \
      bls12_381_##G##_jac_add(out, out, &acc);                                             \
    }                                                                                      \
    if (ones) {                                                                            \
      memcpy(&p, ones, sizeof p);                                                          \
      bls12_381_##G##_xyzz_to_jac(&t, &p);                                                 \
      bls12_381_##G##_jac_add(out, out, &t);                                               \
    }                                                                                      \
  }
FINISH(g1)
FINISH(g2)

void msm_gpu_finish(msm_gpu_group g, void *out, const void *win, const msm_gpu_win_part *parts,
                    unsigned nparts, const void *ones) {
  if (g == MSM_GPU_G1)
    finish_g1(out, win, parts, nparts, ones);
  else
    finish_g2(out, win, parts, nparts, ones);
}

cuzk_status msm_gpu_g1(msm_gpu *ctx, bls12_381_g1_jac *out, const void *bases_dev,
                       const void *scalars_dev, size_t n, const msm_gpu_opts *opts, void *stream,
                       cuzk_err *err) {
  return msm_gpu_run_(ctx, MSM_GPU_G1, out, bases_dev, scalars_dev, n, opts, stream, err);
}
cuzk_status msm_gpu_g2(msm_gpu *ctx, bls12_381_g2_jac *out, const void *bases_dev,
                       const void *scalars_dev, size_t n, const msm_gpu_opts *opts, void *stream,
                       cuzk_err *err) {
  return msm_gpu_run_(ctx, MSM_GPU_G2, out, bases_dev, scalars_dev, n, opts, stream, err);
}

cuzk_status msm_gpu_g1_parts(msm_gpu *ctx, bls12_381_g1_jac *out, const msm_part *parts,
                             size_t nparts, const msm_gpu_opts *opts, cuzk_err *err) {
  return msm_gpu_parts_(ctx, MSM_GPU_G1, out, (const msm_gpu_part *)parts, nparts, opts, err);
}
cuzk_status msm_gpu_g2_parts(msm_gpu *ctx, bls12_381_g2_jac *out, const msm_part *parts,
                             size_t nparts, const msm_gpu_opts *opts, cuzk_err *err) {
  return msm_gpu_parts_(ctx, MSM_GPU_G2, out, (const msm_gpu_part *)parts, nparts, opts, err);
}

cuzk_status msm_gpu_g1_time(msm_gpu *ctx, bls12_381_g1_jac *out, size_t n,
                            const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                            cuzk_err *err) {
  return msm_gpu_time_(ctx, MSM_GPU_G1, out, n, opts, reps, ms_median, err);
}
cuzk_status msm_gpu_g2_time(msm_gpu *ctx, bls12_381_g2_jac *out, size_t n,
                            const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                            cuzk_err *err) {
  return msm_gpu_time_(ctx, MSM_GPU_G2, out, n, opts, reps, ms_median, err);
}

cuzk_status msm_gpu_g1_parts_resident(msm_gpu *ctx, bls12_381_g1_jac *out,
                                      const msm_gpu_bases *res, const msm_part *parts,
                                      size_t nparts, const msm_gpu_opts *opts, cuzk_err *err) {
  return msm_gpu_parts_resident_(ctx, MSM_GPU_G1, out, res, (const msm_gpu_part *)parts, nparts,
                                 opts, err);
}
cuzk_status msm_gpu_g2_parts_resident(msm_gpu *ctx, bls12_381_g2_jac *out,
                                      const msm_gpu_bases *res, const msm_part *parts,
                                      size_t nparts, const msm_gpu_opts *opts, cuzk_err *err) {
  return msm_gpu_parts_resident_(ctx, MSM_GPU_G2, out, res, (const msm_gpu_part *)parts, nparts,
                                 opts, err);
}

cuzk_status msm_gpu_resident_new(msm_gpu_bases **out, msm_gpu_group g, const msm_part *parts,
                                 size_t nparts, unsigned flags, cuzk_err *err) {
  return msm_gpu_bases_new(out, g, (const msm_gpu_part *)parts, nparts, flags, err);
}
bool msm_gpu_resident_match(const msm_gpu_bases *b, const msm_part *parts, size_t nparts) {
  return msm_gpu_bases_match(b, (const msm_gpu_part *)parts, nparts);
}
