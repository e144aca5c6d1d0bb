/* a and b on the GPU from a resident coefficient section (ab_gpu.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.cuh" /* first: it declares base/err.h extern "C" */

#include "cuda/ab_gpu.h"
#include "cuda/bls12_381.cuh"

typedef bls12_381_fr_t fr_t;

struct cuda_ab {
  bool host;               /* emulated: every buffer in host memory */
  const void *src;         /* the host entries it was made from */
  size_t n_entries, n, n_witness;
  uint8_t *entries;        /* 44 n_entries bytes */
  uint32_t *first;         /* n + 1: row r's entries are [first[r], first[r + 1]) */
  fr_t *witness, *a, *b;   /* n_witness, n, n */
};

namespace {

constexpr size_t ENTRY = 44;

/* Row r's sums (an entry's coefficient is 4-byte aligned: word loads). */
CZ_HD void ab_row(const uint8_t *entries, const uint32_t *first, const fr_t *w, fr_t *a,
                  fr_t *b, uint32_t r) {
  fr_t sa = fr_t::zero(), sb = fr_t::zero();
  for (uint32_t e = first[r]; e < first[r + 1]; e++) {
    const uint32_t *q = (const uint32_t *)(entries + ENTRY * e);
    fr_t c;
#pragma unroll
    for (int k = 0; k < 8; k++) c.l[k] = q[3 + k];
    /* Montgomery product of (c R^2) and canonical w: c w R, i.e. c w in
     * Montgomery form, as the CPU backend. */
    const fr_t t = fr_t::mul(c, w[q[2]]);
    if (q[0] == 0)
      sa = fr_t::add(sa, t);
    else
      sb = fr_t::add(sb, t);
  }
  a[r] = sa;
  b[r] = sb;
}

__global__ void ab_kernel(const uint8_t *entries, const uint32_t *first, const fr_t *w, fr_t *a,
                          fr_t *b, uint32_t n) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n)
    ab_row(entries, first, w, a, b, r);
}

void ab_release(cuda_ab *ab) {
  void *bufs[] = {ab->entries, ab->first, ab->witness, ab->a, ab->b};
  for (void *p : bufs) {
    if (!p)
      continue;
    if (ab->host)
      free(p);
    else
      cuda_gc_free(p);
  }
}

cuzk_status ab_alloc(cuda_ab *ab, void **p, size_t bytes, cuzk_err *err) {
  *p = nullptr;
  if (ab->host) {
    if (posix_memalign(p, 256, bytes ? bytes : 1) != 0)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_ab: %zu bytes of host memory", bytes);
    return CUZK_OK;
  }
  cudaError_t e = cuda_gc_malloc(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    *p = nullptr;
    return cuda_fail(e, __FILE__, __LINE__, "cudaMalloc (resident coefficients)", err);
  }
  return CUZK_OK;
}

cuzk_status ab_put(const cuda_ab *ab, void *dst, const void *src, size_t bytes, cuzk_err *err) {
  if (ab->host)
    memcpy(dst, src, bytes);
  else
    CUDA_TRY(err, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return CUZK_OK;
}

} // namespace

extern "C" void cuda_ab_free(cuda_ab *ab) {
  if (!ab)
    return;
  ab_release(ab);
  free(ab);
}

extern "C" cuzk_status cuda_ab_new(cuda_ab **out, const void *entries, size_t n_entries, size_t n,
                                   size_t n_witness, bool emulate, cuzk_err *err) {
  *out = nullptr;
  if (!entries || n == 0 || n >= ((size_t)1 << 31) || n_entries >= ((size_t)1 << 32) ||
      n_witness == 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_ab_new: %zu entries, %zu rows, %zu witness values", n_entries, n,
                        n_witness);
  /* Row starts, in one pass that also checks the order. */
  uint32_t *first = (uint32_t *)calloc(n + 1, sizeof *first);
  if (!first)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_ab_new: row index of %zu rows", n);
  const uint8_t *src = (const uint8_t *)entries;
  uint32_t prev = 0;
  for (size_t i = 0; i < n_entries; i++) {
    uint32_t row;
    memcpy(&row, src + ENTRY * i + 4, 4);
    if (row < prev || row >= n) {
      free(first);
      return cuzk_err_set(err, CUZK_UNSUPPORTED,
                          "cuda_ab_new: coefficient entry %zu has row %u after row %u "
                          "(not sorted by row, or out of range): computed on the CPU",
                          i, row, prev);
    }
    first[row + 1]++;
    prev = row;
  }
  for (size_t r = 0; r < n; r++) first[r + 1] += first[r];

  cuda_ab *ab = (cuda_ab *)calloc(1, sizeof *ab);
  if (!ab) {
    free(first);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_ab_new");
  }
  ab->host = emulate;
  ab->src = entries;
  ab->n_entries = n_entries, ab->n = n, ab->n_witness = n_witness;
  cuzk_status st;
  if ((st = ab_alloc(ab, (void **)&ab->entries, ENTRY * n_entries, err)) != CUZK_OK ||
      (st = ab_alloc(ab, (void **)&ab->first, (n + 1) * sizeof *first, err)) != CUZK_OK ||
      (st = ab_alloc(ab, (void **)&ab->witness, n_witness * sizeof(fr_t), err)) != CUZK_OK ||
      (st = ab_alloc(ab, (void **)&ab->a, n * sizeof(fr_t), err)) != CUZK_OK ||
      (st = ab_alloc(ab, (void **)&ab->b, n * sizeof(fr_t), err)) != CUZK_OK ||
      (st = ab_put(ab, ab->entries, entries, ENTRY * n_entries, err)) != CUZK_OK ||
      (st = ab_put(ab, ab->first, first, (n + 1) * sizeof *first, err)) != CUZK_OK) {
    free(first);
    cuda_ab_free(ab);
    return st;
  }
  free(first);
  *out = ab;
  return CUZK_OK;
}

extern "C" bool cuda_ab_match(const cuda_ab *ab, const void *entries, size_t n_entries, size_t n,
                              size_t n_witness) {
  return ab && ab->src == entries && ab->n_entries == n_entries && ab->n == n &&
         ab->n_witness == n_witness;
}

extern "C" size_t cuda_ab_bytes(const cuda_ab *ab) {
  if (!ab)
    return 0;
  return ENTRY * ab->n_entries + (ab->n + 1) * 4 + (ab->n_witness + 2 * ab->n) * sizeof(fr_t);
}

extern "C" cuzk_status cuda_ab_run(cuda_ab *ab, void *a, void *b, const void *witness,
                                   void *stream, cuzk_err *err) {
  if (!ab || !a || !b || !witness)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_ab_run: missing argument");
  const size_t vb = ab->n * sizeof(fr_t);
  if (ab->host) {
    memcpy(ab->witness, witness, ab->n_witness * sizeof(fr_t));
    for (uint32_t r = 0; r < (uint32_t)ab->n; r++)
      ab_row(ab->entries, ab->first, ab->witness, ab->a, ab->b, r);
    memcpy(a, ab->a, vb);
    memcpy(b, ab->b, vb);
    return CUZK_OK;
  }
  cudaStream_t st = (cudaStream_t)stream;
  CUDA_TRY(err, cudaMemcpyAsync(ab->witness, witness, ab->n_witness * sizeof(fr_t),
                                cudaMemcpyHostToDevice, st));
  ab_kernel<<<(unsigned)((ab->n + 127) / 128), 128, 0, st>>>(ab->entries, ab->first, ab->witness,
                                                              ab->a, ab->b, (uint32_t)ab->n);
  CUDA_TRY(err, cudaGetLastError());
  CUDA_TRY(err, cudaMemcpyAsync(a, ab->a, vb, cudaMemcpyDeviceToHost, st));
  CUDA_TRY(err, cudaMemcpyAsync(b, ab->b, vb, cudaMemcpyDeviceToHost, st));
  CUDA_TRY(err, cudaStreamSynchronize(st));
  return CUZK_OK;
}
