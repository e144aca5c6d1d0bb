/* Element-wise field operations on the device and, with the same code, on
 * the host: the entry points of tests/gpu/test_gpu_field.c (field_ops.h).
 *
 * DESIGN: one kernel per field type, the operation chosen at run time (a
 * uniform branch; these kernels check results, they are not timed).  The
 * operation itself is field_op(), a __host__ __device__ function: the
 * kernel and the host emulation call the same instantiation, so what the
 * emulated tests check in CI is the device algorithm itself. */
#include <string.h>

#include "cuda/bls12_381.cuh"
#include "cuda/check.cuh"
#include "cuda/field_ops.h"

template <class F>
static CZ_HD F field_op(cuda_field_op op, const F &a, const F &b) {
  switch (op) {
  case CUDA_FOP_MUL_WIDE:
    return F::mul_lazy(a, b);
  case CUDA_FOP_MUL_SUB:
    return F::mul_sub(a, b, F::add(a, b), F::sub(a, b));
  case CUDA_FOP_ADD:
    return F::add(a, b);
  case CUDA_FOP_SUB:
    return F::sub(a, b);
  case CUDA_FOP_DBL:
    return F::dbl(a);
  case CUDA_FOP_NEG:
    return F::neg(a);
  case CUDA_FOP_MUL:
    return F::mul(a, b);
  case CUDA_FOP_SQR:
    return F::sqr(a);
  case CUDA_FOP_FROM_CANON:
    return F::from_canon(a);
  default:
    return F::to_canon(a);
  }
}

template <class F>
__global__ void field_apply_kernel(F *r, const F *a, const F *b, size_t n, cuda_field_op op) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    r[i] = field_op(op, a[i], b ? b[i] : a[i]);
}

template <class F>
static cuzk_status apply_device(cuda_field_op op, void *r, const void *a, const void *b, size_t n,
                                cuzk_err *err) {
  const size_t bytes = n * sizeof(F);
  cuda_stream st;
  cuda_buf da, db, dr;
  CUDA_TRY(err, cuda_gc_stream_new(&st.h, cudaStreamNonBlocking, 0));
  CUDA_TRY(err, cuda_gc_malloc(&da.h, bytes));
  CUDA_TRY(err, cuda_gc_malloc(&dr.h, bytes));
  CUDA_TRY(err, cudaMemcpyAsync(da.h, a, bytes, cudaMemcpyHostToDevice, st.h));
  if (b) {
    CUDA_TRY(err, cuda_gc_malloc(&db.h, bytes));
    CUDA_TRY(err, cudaMemcpyAsync(db.h, b, bytes, cudaMemcpyHostToDevice, st.h));
  }
  CUDA_TRY(err, cudaMemsetAsync(dr.h, 0xA5, bytes, st.h)); /* poison */
  const unsigned block = 256;
  const size_t grid = (n + block - 1) / block;
  field_apply_kernel<F><<<(unsigned)grid, block, 0, st.h>>>((F *)dr.h, (const F *)da.h,
                                                             (const F *)db.h, n, op);
  CUDA_TRY(err, cudaGetLastError());
  CUDA_TRY(err, cudaMemcpyAsync(r, dr.h, bytes, cudaMemcpyDeviceToHost, st.h));
  CUDA_TRY(err, cudaStreamSynchronize(st.h));
  return CUZK_OK;
}

/* Host buffers may be less aligned than F (alignas 16): copy through locals. */
template <class F>
static cuzk_status apply_host(cuda_field_op op, void *r, const void *a, const void *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    F x, y, z;
    memcpy(&x, (const char *)a + i * sizeof(F), sizeof(F));
    memcpy(&y, (const char *)(b ? b : a) + i * sizeof(F), sizeof(F));
    z = field_op(op, x, y);
    memcpy((char *)r + i * sizeof(F), &z, sizeof(F));
  }
  return CUZK_OK;
}

static cuzk_status check_args(cuda_field f, cuda_field_op op, void *r, const void *a, const void *b,
                              size_t n, cuzk_err *err) {
  if ((unsigned)f >= CUDA_FIELD_COUNT || (unsigned)op >= CUDA_FOP_COUNT)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_field_apply: field %d, op %d: no such",
                        (int)f, (int)op);
  if (n && (!r || !a || (!b && (op == CUDA_FOP_ADD || op == CUDA_FOP_SUB || op == CUDA_FOP_MUL ||
                        op == CUDA_FOP_MUL_WIDE || op == CUDA_FOP_MUL_SUB))))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_field_apply: %s %s: missing buffer",
                        cuda_field_name(f), cuda_field_op_name(op));
  return CUZK_OK;
}

extern "C" cuzk_status cuda_field_apply(cuda_field f, cuda_field_op op, void *r, const void *a,
                                        const void *b, size_t n, cuzk_err *err) {
  CUZK_TRY(check_args(f, op, r, a, b, n, err));
  if (n == 0)
    return CUZK_OK;
  switch (f) {
  case CUDA_FIELD_BLS12_381_FP:
    return apply_device<bls12_381_fp_t>(op, r, a, b, n, err);
  case CUDA_FIELD_BLS12_381_FR:
    return apply_device<bls12_381_fr_t>(op, r, a, b, n, err);
  default:
    return apply_device<bls12_381_fp2_t>(op, r, a, b, n, err);
  }
}

extern "C" cuzk_status cuda_field_apply_emulated(cuda_field f, cuda_field_op op, void *r,
                                                 const void *a, const void *b, size_t n,
                                                 cuzk_err *err) {
  CUZK_TRY(check_args(f, op, r, a, b, n, err));
  switch (f) {
  case CUDA_FIELD_BLS12_381_FP:
    return apply_host<bls12_381_fp_t>(op, r, a, b, n);
  case CUDA_FIELD_BLS12_381_FR:
    return apply_host<bls12_381_fr_t>(op, r, a, b, n);
  default:
    return apply_host<bls12_381_fp2_t>(op, r, a, b, n);
  }
}
