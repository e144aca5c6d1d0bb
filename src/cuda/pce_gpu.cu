/* Resident constraint matrices and the a/b/c and query scalars on the GPU (pce_gpu.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.cuh" /* first: it declares base/err.h extern "C" */

#include "cuda/bls12_381.cuh"
#include "cuda/pce_gpu.h"

typedef bls12_381_fr_t fr_t;

struct cuda_pce {
  bool host;            /* emulated: every buffer in host memory */
  cuda_pce_src src;     /* the host arrays it was made from (for match) */
  uint32_t *row_ptr[3]; /* rows + 1 */
  uint32_t *col[3];
  fr_t *val[3];         /* c R^2 */
  uint32_t *idx_a, *idx_b;
  size_t n_a, n_b;
};

namespace {

#define PCE_THREADS 256

/* sum over row r of matrix k's entries of (c R^2) w = c w R: Montgomery */
CZ_HD fr_t row_sum(const uint32_t *rp, const uint32_t *col, const fr_t *val, const fr_t *w,
                   uint32_t r) {
  fr_t s = fr_t::zero();
  for (uint32_t e = rp[r]; e < rp[r + 1]; e++) s = fr_t::add(s, fr_t::mul(val[e], w[col[e]]));
  return s;
}

struct abc_args {
  const uint32_t *rp[3], *col[3];
  const fr_t *val[3];
  const fr_t *w;
  fr_t *out[3];
  uint32_t rows;
};

CZ_HD void abc_row(const abc_args &a, uint32_t r) {
#pragma unroll
  for (int k = 0; k < 3; k++) a.out[k][r] = row_sum(a.rp[k], a.col[k], a.val[k], a.w, r);
}

__global__ void abc_kernel(const abc_args a) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < a.rows)
    abc_row(a, r);
}

/* v[i] := v[i] R^2 / R: c R -> c R^2 for the matrices' values, a canonical
 * x -> x R (its Montgomery form) for cuda_fr_from_canon */
__global__ void to_r2_kernel(fr_t *v, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = fr_t::from_canon(v[i]);
}

__global__ void check_canon_kernel(const fr_t *v, size_t n, unsigned long long *first) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !fr_t::is_canon(v[i]))
    atomicMin(first, (unsigned long long)i);
}

__global__ void set_u64_kernel(unsigned long long *x, unsigned long long v) { *x = v; }

__global__ void gather_kernel(fr_t *dst, const fr_t *w, const uint32_t *idx, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = w[idx[i]];
}

unsigned blocks(size_t n) { return (unsigned)((n + PCE_THREADS - 1) / PCE_THREADS); }

cuzk_status pce_alloc(cuda_pce *p, void **m, size_t bytes, cuzk_err *err) {
  *m = nullptr;
  if (p->host) {
    if (posix_memalign(m, 256, bytes ? bytes : 1) != 0)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_pce: %zu bytes of host memory", bytes);
    return CUZK_OK;
  }
  cudaError_t e = cuda_gc_malloc(m, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    *m = nullptr;
    return cuda_fail(e, __FILE__, __LINE__, "cudaMalloc (resident constraint matrices)", err);
  }
  return CUZK_OK;
}

cuzk_status pce_put(const cuda_pce *p, void *dst, const void *src, size_t bytes, cuzk_err *err) {
  if (!bytes)
    return CUZK_OK;
  if (p->host)
    memcpy(dst, src, bytes);
  else
    CUDA_TRY(err, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return CUZK_OK;
}

bool bit(const uint64_t *w, size_t i) { return (w[i / 64] >> (i % 64)) & 1; }

/* The index lists of the a and b queries (pce_gpu.h DESIGN), into malloc'd
 * arrays. */
cuzk_status make_indices(const cuda_pce_src *s, uint32_t **ia, size_t *na, uint32_t **ib,
                         size_t *nb, cuzk_err *err) {
  size_t pa = 0, pb = 0;
  for (size_t j = 0; j < s->n_aux; j++) pa += bit(s->a_aux, j), pb += bit(s->b_aux, j);
  for (size_t i = 0; i < s->n_inputs; i++) pb += bit(s->b_input, i);
  *na = s->n_inputs + pa, *nb = pb;
  *ia = (uint32_t *)malloc((*na ? *na : 1) * sizeof **ia);
  *ib = (uint32_t *)malloc((*nb ? *nb : 1) * sizeof **ib);
  if (!*ia || !*ib) {
    free(*ia), free(*ib);
    *ia = *ib = nullptr;
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_pce: index lists of %zu and %zu entries", *na,
                        *nb);
  }
  size_t k = 0, q = 0;
  for (size_t i = 0; i < s->n_inputs; i++) {
    (*ia)[k++] = (uint32_t)i;
    if (bit(s->b_input, i))
      (*ib)[q++] = (uint32_t)i;
  }
  for (size_t j = 0; j < s->n_aux; j++) {
    if (bit(s->a_aux, j))
      (*ia)[k++] = (uint32_t)(s->n_inputs + j);
  }
  for (size_t j = 0; j < s->n_aux; j++) {
    if (bit(s->b_aux, j))
      (*ib)[q++] = (uint32_t)(s->n_inputs + j);
  }
  return CUZK_OK;
}

void release(cuda_pce *p) {
  void *bufs[] = {p->row_ptr[0], p->row_ptr[1], p->row_ptr[2], p->col[0], p->col[1],
                  p->col[2],     p->val[0],     p->val[1],     p->val[2], p->idx_a,
                  p->idx_b};
  for (void *b : bufs) {
    if (!b)
      continue;
    if (p->host)
      free(b);
    else
      cuda_gc_free(b);
  }
}

} // namespace

extern "C" void cuda_pce_free(cuda_pce *p) {
  if (!p)
    return;
  release(p);
  free(p);
}

extern "C" cuzk_status cuda_pce_new(cuda_pce **out, const cuda_pce_src *s, bool emulate,
                                    cuzk_err *err) {
  *out = nullptr;
  const size_t nv = s ? s->n_inputs + s->n_aux : 0;
  if (!s || s->rows >= ((size_t)1 << 31) || s->n_inputs == 0 ||
      nv >= ((size_t)1 << 32) || !s->a_aux || !s->b_input || !s->b_aux)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_pce_new: %zu rows, %zu variables, density bitmaps %s",
                        s ? s->rows : 0, nv, s && s->a_aux ? "given" : "missing");
  for (int k = 0; k < 3 && s->rows; k++)
    if (!s->row_ptr[k] || s->row_ptr[k][0] != 0 || s->row_ptr[k][s->rows] != s->nnz[k] ||
        (s->nnz[k] && (!s->col[k] || !s->val[k])))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "cuda_pce_new: matrix %c's row pointers do not span its %zu entries",
                          "ABC"[k], s->nnz[k]);
  cuda_pce *p = (cuda_pce *)calloc(1, sizeof *p);
  if (!p)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_pce_new");
  p->host = emulate;
  p->src = *s;
  uint32_t *ia = nullptr, *ib = nullptr;
  cuzk_status st = make_indices(s, &ia, &p->n_a, &ib, &p->n_b, err);
  for (int k = 0; st == CUZK_OK && s->rows && k < 3; k++) {
    const size_t rpb = (s->rows + 1) * sizeof(uint32_t);
    if ((st = pce_alloc(p, (void **)&p->row_ptr[k], rpb, err)) != CUZK_OK ||
        (st = pce_alloc(p, (void **)&p->col[k], s->nnz[k] * sizeof(uint32_t), err)) != CUZK_OK ||
        (st = pce_alloc(p, (void **)&p->val[k], s->nnz[k] * sizeof(fr_t), err)) != CUZK_OK ||
        (st = pce_put(p, p->row_ptr[k], s->row_ptr[k], rpb, err)) != CUZK_OK ||
        (st = pce_put(p, p->col[k], s->col[k], s->nnz[k] * sizeof(uint32_t), err)) != CUZK_OK ||
        (st = pce_put(p, p->val[k], s->val[k], s->nnz[k] * sizeof(fr_t), err)) != CUZK_OK)
      break;
    if (p->host) {
      for (size_t i = 0; i < s->nnz[k]; i++) p->val[k][i] = fr_t::from_canon(p->val[k][i]);
    } else if (s->nnz[k]) {
      to_r2_kernel<<<blocks(s->nnz[k]), PCE_THREADS>>>(p->val[k], s->nnz[k]);
      if (cudaError_t e = cudaGetLastError())
        st = cuda_fail(e, __FILE__, __LINE__, "to_r2_kernel", err);
    }
  }
  if (st == CUZK_OK && (st = pce_alloc(p, (void **)&p->idx_a, p->n_a * 4, err)) == CUZK_OK &&
      (st = pce_alloc(p, (void **)&p->idx_b, p->n_b * 4, err)) == CUZK_OK &&
      (st = pce_put(p, p->idx_a, ia, p->n_a * 4, err)) == CUZK_OK)
    st = pce_put(p, p->idx_b, ib, p->n_b * 4, err);
  if (st == CUZK_OK && !p->host) /* the conversions ran on the legacy stream: done before use */
    if (cudaError_t e = cudaStreamSynchronize(0))
      st = cuda_fail(e, __FILE__, __LINE__, "cudaStreamSynchronize (resident matrices)", err);
  free(ia), free(ib);
  if (st != CUZK_OK) {
    cuda_pce_free(p);
    return st;
  }
  *out = p;
  return CUZK_OK;
}

extern "C" bool cuda_pce_match(const cuda_pce *p, const cuda_pce_src *s) {
  return p && s && memcmp(&p->src, s, sizeof *s) == 0;
}

extern "C" size_t cuda_pce_bytes(const cuda_pce *p) {
  if (!p)
    return 0;
  size_t b = 4 * (p->n_a + p->n_b);
  for (int k = 0; k < 3; k++) b += (p->src.rows + 1) * 4 + p->src.nnz[k] * (4 + sizeof(fr_t));
  return b;
}

extern "C" size_t cuda_pce_n_a(const cuda_pce *p) { return p ? p->n_a : 0; }
extern "C" size_t cuda_pce_n_b(const cuda_pce *p) { return p ? p->n_b : 0; }

extern "C" cuzk_status cuda_pce_abc(const cuda_pce *p, void *a, void *b, void *c, size_t m,
                                    const void *w, void *stream, cuzk_err *err) {
  if (!p || !p->src.rows || !a || !b || !c || !w || m < p->src.rows)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_pce_abc: no matrices, a missing argument, or %zu rows for %zu "
                        "constraints",
                        m,
                        p ? p->src.rows : 0);
  abc_args g;
  for (int k = 0; k < 3; k++) g.rp[k] = p->row_ptr[k], g.col[k] = p->col[k], g.val[k] = p->val[k];
  g.w = (const fr_t *)w;
  g.out[0] = (fr_t *)a, g.out[1] = (fr_t *)b, g.out[2] = (fr_t *)c;
  g.rows = (uint32_t)p->src.rows;
  const size_t tail = (m - p->src.rows) * sizeof(fr_t);
  if (p->host) {
    for (uint32_t r = 0; r < g.rows; r++) abc_row(g, r);
    for (int k = 0; k < 3; k++) memset(g.out[k] + g.rows, 0, tail);
    return CUZK_OK;
  }
  cudaStream_t st = (cudaStream_t)stream;
  abc_kernel<<<blocks(g.rows), PCE_THREADS, 0, st>>>(g);
  CUDA_TRY(err, cudaGetLastError());
  if (tail)
    for (int k = 0; k < 3; k++) CUDA_TRY(err, cudaMemsetAsync(g.out[k] + g.rows, 0, tail, st));
  return CUZK_OK;
}

extern "C" cuzk_status cuda_fr_from_canon(void *v, size_t n, size_t m, bool emulate,
                                          void *stream, cuzk_err *err) {
  if (!v || n > m)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_fr_from_canon: %zu values of %zu", n, m);
  fr_t *x = (fr_t *)v;
  if (emulate) {
    for (size_t i = 0; i < n; i++) x[i] = fr_t::from_canon(x[i]);
    memset(x + n, 0, (m - n) * sizeof *x);
    return CUZK_OK;
  }
  cudaStream_t st = (cudaStream_t)stream;
  if (n) {
    to_r2_kernel<<<blocks(n), PCE_THREADS, 0, st>>>(x, n);
    CUDA_TRY(err, cudaGetLastError());
  }
  if (m > n)
    CUDA_TRY(err, cudaMemsetAsync(x + n, 0, (m - n) * sizeof *x, st));
  return CUZK_OK;
}

extern "C" cuzk_status cuda_fr_check_canon(const void *v, size_t n, uint64_t *first, bool emulate,
                                           void *stream, cuzk_err *err) {
  if ((!v && n) || !first)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_fr_check_canon: missing argument");
  const fr_t *x = (const fr_t *)v;
  if (emulate) {
    size_t i = 0;
    while (i < n && fr_t::is_canon(x[i])) i++;
    *first = i;
    return CUZK_OK;
  }
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "atomicMin's width");
  unsigned long long *f = (unsigned long long *)first;
  cudaStream_t st = (cudaStream_t)stream;
  set_u64_kernel<<<1, 1, 0, st>>>(f, n);
  CUDA_TRY(err, cudaGetLastError());
  if (n) {
    check_canon_kernel<<<blocks(n), PCE_THREADS, 0, st>>>(x, n, f);
    CUDA_TRY(err, cudaGetLastError());
  }
  return CUZK_OK;
}

static cuzk_status gather(const cuda_pce *p, void *dst, const void *w, const uint32_t *idx,
                          size_t n, void *stream, const char *fn, cuzk_err *err) {
  if (!p || !dst || !w)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: missing argument", fn);
  if (!n)
    return CUZK_OK;
  if (p->host) {
    for (size_t i = 0; i < n; i++) ((fr_t *)dst)[i] = ((const fr_t *)w)[idx[i]];
    return CUZK_OK;
  }
  gather_kernel<<<blocks(n), PCE_THREADS, 0, (cudaStream_t)stream>>>((fr_t *)dst, (const fr_t *)w,
                                                                      idx, n);
  CUDA_TRY(err, cudaGetLastError());
  return CUZK_OK;
}

extern "C" cuzk_status cuda_pce_gather_a(const cuda_pce *p, void *dst, const void *w,
                                         void *stream, cuzk_err *err) {
  return gather(p, dst, w, p ? p->idx_a : nullptr, p ? p->n_a : 0, stream, "cuda_pce_gather_a",
                err);
}

extern "C" cuzk_status cuda_pce_gather_b(const cuda_pce *p, void *dst, const void *w,
                                         void *stream, cuzk_err *err) {
  return gather(p, dst, w, p ? p->idx_b : nullptr, p ? p->n_b : 0, stream, "cuda_pce_gather_b",
                err);
}
