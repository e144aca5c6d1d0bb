/* The CUDA entry points of a build without CUDA code (no nvcc, or
 * `make CUDA=0`): each says so.  The Makefile compiles this file only into
 * such builds; a CUDA build gets device.cu and field_ops.cu instead. */
#include <stdio.h>

#include "cuda/ab_gpu.h"
#include "cuda/cuda.h"
#include "cuda/field_ops.h"
#include "cuda/ntt_gpu.h"

#define NO_CUDA "this build has no CUDA code (nvcc was not found, or CUDA=0)"

bool cuzk_cuda_compiled(void) { return false; }

bool cuzk_cuda_available(char *why, size_t n) {
  if (why && n)
    snprintf(why, n, "%s", NO_CUDA);
  return false;
}

void cuzk_cuda_describe(char *buf, size_t n) {
  if (buf && n)
    snprintf(buf, n, "%s", NO_CUDA);
}

int cuzk_cuda_device_count(char *why, size_t n) {
  cuzk_cuda_available(why, n);
  return 0;
}

bool cuzk_cuda_device_usable(int ordinal, char *why, size_t n) { return cuzk_cuda_available(why, n); }

void cuzk_cuda_device_describe(int ordinal, char *buf, size_t n) { cuzk_cuda_describe(buf, n); }

void cuzk_cuda_device_name(int ordinal, char *buf, size_t n) {
  if (buf && n)
    snprintf(buf, n, "GPU %d (no CUDA)", ordinal);
}

cuzk_status cuzk_cuda_use_device(int ordinal, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status cuzk_cuda_mem_info(int ordinal, uint64_t *free_bytes, uint64_t *total_bytes,
                               cuzk_err *err) {
  *free_bytes = *total_bytes = 0;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status cuzk_cuda_stream_new_priority(void **stream, int priority, cuzk_err *err) {
  return cuzk_cuda_stream_new(stream, err);
}

cuzk_status cuzk_cuda_stream_priorities(int *normal, int *high, cuzk_err *err) {
  *normal = *high = 0;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status cuzk_cuda_stream_sync(void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status cuzk_cuda_host_alloc(void **p, size_t bytes, cuzk_err *err) {
  *p = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

void cuzk_cuda_host_free(void *p) {}

cuzk_status cuzk_cuda_stream_new(void **stream, cuzk_err *err) {
  *stream = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

void cuzk_cuda_stream_free(void *stream) {}

cuzk_status cuda_ab_new(cuda_ab **out, const void *entries, size_t n_entries, size_t n,
                        size_t n_witness, bool emulate, cuzk_err *err) {
  *out = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

void cuda_ab_free(cuda_ab *ab) {}

bool cuda_ab_match(const cuda_ab *ab, const void *entries, size_t n_entries, size_t n,
                   size_t n_witness) {
  return false;
}

size_t cuda_ab_bytes(const cuda_ab *ab) { return 0; }

cuzk_status cuda_ab_run(cuda_ab *ab, void *a, void *b, const void *witness, void *stream,
                        cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status cuda_field_apply(cuda_field f, cuda_field_op op, void *r, const void *a, const void *b,
                             size_t n, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}

cuzk_status cuda_field_apply_emulated(cuda_field f, cuda_field_op op, void *r, const void *a,
                                      const void *b, size_t n, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}

cuzk_status cuda_field_bench(cuda_field f, cuda_field_op op, const cuda_field_bench_cfg *cfg,
                             void *out, const void *x, const void *y, double *ms, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}

/* ---- GPU MSM (msm_gpu_impl.h); msm_gpu_host.c's typed entry points call these ---- */

#include "cuda/msm_gpu_impl.h"

cuzk_status msm_gpu_new(msm_gpu **ctx, msm_gpu_group g, size_t n_max, unsigned flags,
                        cuzk_err *err) {
  if (ctx)
    *ctx = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

void msm_gpu_free(msm_gpu *ctx) {}

size_t msm_gpu_device_bytes(msm_gpu_group g, size_t n_max, unsigned flags) { return 0; }

cuzk_status msm_gpu_last_counts(const msm_gpu *ctx, msm_gpu_counts *counts, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status msm_gpu_profile(msm_gpu *ctx, double ms[MSM_GPU_PHASES], unsigned *runs,
                            cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status msm_gpu_run_(msm_gpu *ctx, msm_gpu_group g, void *out, const void *bases,
                         const void *scalars, size_t n, const msm_gpu_opts *opts, void *stream,
                         cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status msm_gpu_parts_(msm_gpu *ctx, msm_gpu_group g, void *out, const msm_gpu_part *parts,
                           size_t nparts, const msm_gpu_opts *opts, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status msm_gpu_bases_new(msm_gpu_bases **out, msm_gpu_group g, const msm_gpu_part *parts,
                              size_t nparts, unsigned flags, cuzk_err *err) {
  *out = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

void msm_gpu_bases_free(msm_gpu_bases *b) {}

bool msm_gpu_bases_match(const msm_gpu_bases *b, const msm_gpu_part *parts, size_t nparts) {
  return false;
}

size_t msm_gpu_bases_bytes(const msm_gpu_bases *b) { return 0; }

cuzk_status msm_gpu_parts_resident_(msm_gpu *ctx, msm_gpu_group g, void *out,
                                    const msm_gpu_bases *res, const msm_gpu_part *parts,
                                    size_t nparts, const msm_gpu_opts *opts, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

/* Declared in msm_gpu.h (the stream-choosing _parts entry point). */
cuzk_status msm_gpu_parts_on_(msm_gpu *ctx, msm_gpu_group g, void *out, const msm_gpu_bases *res,
                              const msm_gpu_part *parts, size_t nparts, const msm_gpu_opts *opts,
                              void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status msm_gpu_upload(msm_gpu *ctx, const void *bases, const void *scalars, size_t n,
                           double *ms, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

cuzk_status msm_gpu_time_(msm_gpu *ctx, msm_gpu_group g, void *out, size_t n,
                          const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                          cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "not compiled with CUDA: %s", NO_CUDA);
}

/* ntt_gpu.h */
cuzk_status cuda_ntt_plan_new(cuda_ntt_plan **out, unsigned lg_n, int roots,
                              const cuda_ntt_config *cfg, cuzk_err *err) {
  if (out)
    *out = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
void cuda_ntt_plan_free(cuda_ntt_plan *p) {}
void *cuda_ntt_plan_buffer(const cuda_ntt_plan *p, unsigned i) { return NULL; }
size_t cuda_ntt_plan_bytes(const cuda_ntt_plan *p) { return 0; }
void cuda_ntt_plan_describe(const cuda_ntt_plan *p, char *buf, size_t n) {
  if (buf && n)
    snprintf(buf, n, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_forward(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_forward_bitrev(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_inverse(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_to_odd_coset(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_quotient_dev(const cuda_ntt_plan *p, void *h, void *a, void *b, void *c,
                                  bool compute_c, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_quotient(cuda_ntt_plan *p, void *h, const void *a, const void *b,
                              const void *c, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_upload(cuda_ntt_plan *p, unsigned i, const void *host, void *stream,
                            cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_download(cuda_ntt_plan *p, void *host, unsigned i, void *stream,
                              cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_fill(cuda_ntt_plan *p, unsigned i, int byte, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_sync(const cuda_ntt_plan *p, void *stream, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
cuzk_status cuda_ntt_time(cuda_ntt_plan *p, cuda_ntt_op op, unsigned reps, double *ms,
                          cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", NO_CUDA);
}
