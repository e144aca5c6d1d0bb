/* Resident constraint matrices and the a/b/c and query scalars on the GPU (pce_gpu.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.cuh" /* first: it declares base/err.h extern "C" */

#include "cuda/bls12_381.cuh"
#include "cuda/pce_gpu.h"
#include "groth16/pce_tables.h"

typedef bls12_381_fr_t fr_t;

struct cuda_pce {
  bool host;            /* emulated: every buffer in host memory */
  cuda_pce_src src;     /* the host arrays it was made from (for match) */
  uint32_t *row_ptr[3]; /* rows + 1 */
  uint32_t *col[3];
  /* Matrix k's values: either coded (code[k], nnz[k] words: CODE_ONE,
   * CODE_MINUS_ONE, or CODE_TAB + i for tab[k][i] = c R^2, the matrix's
   * distinct values other than +-1) or, where a table would not pay
   * (dict_build), val[k] = c R^2 per entry. */
  uint32_t *code[3];
  fr_t *tab[3];
  size_t ntab[3];
  fr_t *val[3];
  uint32_t *idx_a, *idx_b;
  size_t n_a, n_b;
  size_t bytes; /* device bytes held */
};

namespace {

#define PCE_THREADS 256

constexpr uint32_t CODE_ONE = PCE_CODE_ONE, CODE_MINUS_ONE = PCE_CODE_MINUS_ONE,
                   CODE_TAB = PCE_CODE_TAB;
/* What row_sum reads for an entry of a matrix kept whole (no code array):
 * above every code (CODE_TAB + PCE_TABLE_MAX at most). */
constexpr uint32_t CODE_WHOLE = 0xffffffffu;

/* One matrix's view for the row sums: coded values when code is set. */
struct mat_view {
  const uint32_t *rp, *col, *code;
  const fr_t *tab, *val;
};

/* The sum over row r of the matrix's entries c w (Montgomery), w canonical.
 * Terms with c = +-1 are summed canonically (addition does not depend on
 * the representation) and converted once at the end, so they cost no
 * product; the others multiply c R^2 by w (Montgomery: c w R). */
CZ_HD fr_t row_sum(const mat_view &m, const fr_t *w, uint32_t r) {
  fr_t s = fr_t::zero(), u = fr_t::zero();
  bool units = false;
  for (uint32_t e = m.rp[r]; e < m.rp[r + 1]; e++) {
    const fr_t &x = w[m.col[e]];
    const uint32_t c = m.code ? m.code[e] : CODE_WHOLE; /* uniform across the grid */
    if (c == CODE_ONE)
      u = fr_t::add(u, x), units = true;
    else if (c == CODE_MINUS_ONE)
      u = fr_t::sub(u, x), units = true;
    else
      s = fr_t::add(s, fr_t::mul(c == CODE_WHOLE ? m.val[e] : m.tab[c - CODE_TAB], x));
  }
  return units ? fr_t::add(s, fr_t::from_canon(u)) : s;
}

struct abc_args {
  mat_view m[3];
  const fr_t *w;
  fr_t *out[3];
  uint32_t rows;
};

CZ_HD void abc_row(const abc_args &a, uint32_t r) {
#pragma unroll
  for (int k = 0; k < 3; k++) a.out[k][r] = row_sum(a.m[k], a.w, r);
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

/* ---- the value tables ---- */

void release(cuda_pce *p) {
  void *bufs[] = {p->row_ptr[0], p->row_ptr[1], p->row_ptr[2], p->col[0],  p->col[1],
                  p->col[2],     p->val[0],     p->val[1],     p->val[2],  p->code[0],
                  p->code[1],    p->code[2],    p->tab[0],     p->tab[1],  p->tab[2],
                  p->idx_a,      p->idx_b};
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
    const size_t rpb = (s->rows + 1) * sizeof(uint32_t), nnz = s->nnz[k];
    if ((st = pce_alloc(p, (void **)&p->row_ptr[k], rpb, err)) != CUZK_OK ||
        (st = pce_alloc(p, (void **)&p->col[k], nnz * sizeof(uint32_t), err)) != CUZK_OK ||
        (st = pce_put(p, p->row_ptr[k], s->row_ptr[k], rpb, err)) != CUZK_OK ||
        (st = pce_put(p, p->col[k], s->col[k], nnz * sizeof(uint32_t), err)) != CUZK_OK)
      break;
    p->bytes += rpb + nnz * sizeof(uint32_t);
    /* the values as a table and codes where that pays, else as they are;
     * either way converted to c R^2 where they lie */
    uint32_t *code = nullptr;
    void *tab = nullptr;
    size_t ntab = 0;
    const bool coded = pce_table_build(s->val[k], nnz, &code, &tab, &ntab);
    fr_t *conv = nullptr;
    size_t nconv = 0;
    if (coded) {
      p->ntab[k] = ntab;
      if ((st = pce_alloc(p, (void **)&p->code[k], nnz * sizeof(uint32_t), err)) == CUZK_OK &&
          (st = pce_alloc(p, (void **)&p->tab[k], ntab * sizeof(fr_t), err)) == CUZK_OK &&
          (st = pce_put(p, p->code[k], code, nnz * sizeof(uint32_t), err)) == CUZK_OK && ntab)
        st = pce_put(p, p->tab[k], tab, ntab * sizeof(fr_t), err);
      free(code);
      free(tab);
      conv = p->tab[k], nconv = ntab;
    } else {
      if ((st = pce_alloc(p, (void **)&p->val[k], nnz * sizeof(fr_t), err)) == CUZK_OK)
        st = pce_put(p, p->val[k], s->val[k], nnz * sizeof(fr_t), err);
      conv = p->val[k], nconv = nnz;
    }
    static_assert(sizeof(fr_t) == 32, "pce_values_bytes counts 32-byte values");
    p->bytes += pce_values_bytes(nnz, coded ? ntab : SIZE_MAX);
    if (st != CUZK_OK)
      break;
    if (p->host) {
      for (size_t i = 0; i < nconv; i++) conv[i] = fr_t::from_canon(conv[i]);
    } else if (nconv) {
      to_r2_kernel<<<blocks(nconv), PCE_THREADS>>>(conv, nconv);
      if (cudaError_t e = cudaGetLastError())
        st = cuda_fail(e, __FILE__, __LINE__, "to_r2_kernel", err);
    }
  }
  if (st == CUZK_OK && (st = pce_alloc(p, (void **)&p->idx_a, p->n_a * 4, err)) == CUZK_OK &&
      (st = pce_alloc(p, (void **)&p->idx_b, p->n_b * 4, err)) == CUZK_OK &&
      (st = pce_put(p, p->idx_a, ia, p->n_a * 4, err)) == CUZK_OK)
    st = pce_put(p, p->idx_b, ib, p->n_b * 4, err);
  p->bytes += 4 * (p->n_a + p->n_b);
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

extern "C" size_t cuda_pce_bytes(const cuda_pce *p) { return p ? p->bytes : 0; }

extern "C" size_t cuda_pce_table_size(const cuda_pce *p, int k) {
  return p && k >= 0 && k < 3 && p->code[k] ? p->ntab[k] : SIZE_MAX;
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
  for (int k = 0; k < 3; k++)
    g.m[k] = {p->row_ptr[k], p->col[k], p->code[k], p->tab[k], p->val[k]};
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
