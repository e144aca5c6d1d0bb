/* The CUDA entry points of a build without CUDA code (no nvcc, or
 * `make CUDA=0`): each says so.  The Makefile compiles this file only into
 * such builds; a CUDA build gets device.cu and field_ops.cu instead. */
#include <stdio.h>

#include "cuda/cuda.h"
#include "cuda/field_ops.h"

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
