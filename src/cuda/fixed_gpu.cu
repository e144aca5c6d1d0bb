/* Fixed-base scalar products on the GPU (fixed_gpu.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/check.cuh" /* first: it declares base/err.h extern "C" */

#include "cuda/bls12_381.cuh"
#include "cuda/ec.cuh"
#include "cuda/fixed_gpu.h"
#include "cuda/gcall.cuh"

namespace {

typedef bls12_381_fp_t fp_t;
typedef bls12_381_fp2_t fp2_t;

#define FIXED_THREADS 128
#define FIXED_CHUNK ((size_t)1 << 22) /* points per pass through the device buffers */

/* a^(p - 2) = 1/a (a != 0), by squaring and multiplying from the top bit
 * of p - 2 (p odd, its low word above 2: no borrow). */
template <class F>
CZ_HD F inv_fermat(const F &a) {
  F r = F::one();
  const auto &p = F::modulus();
  bool started = false;
  for (int w = F::N - 1; w >= 0; w--) {
    const uint32_t e = w == 0 ? p[0] - 2 : p[w];
    for (int b = 31; b >= 0; b--) {
      if (started)
        r = F::sqr(r);
      if ((e >> b) & 1) {
        r = started ? F::mul(r, a) : a;
        started = true;
      }
    }
  }
  return r;
}

/* The inverse in Fp2 = Fp[u]/(u^2 + 1): conj(a) / (c0^2 + c1^2). */
CZ_HD fp2_t inv_of(const fp2_t &a) {
  const fp_t t = inv_fermat(fp_t::add(fp_t::sqr(a.c0), fp_t::sqr(a.c1)));
  return {fp_t::mul(a.c0, t), fp_t::neg(fp_t::mul(a.c1, t))};
}
CZ_HD fp_t inv_of(const fp_t &a) { return inv_fermat(a); }

#define FIXED_BATCH 8 /* points per thread sharing one inversion */

/* k G in XYZZ for the 4-limb scalar k (two 32-bit words per limb) from
 * table t. */
template <class F>
CZ_HD ec_xyzz<F> fixed_xyzz(const ec_aff<F> *t, const uint32_t *k) {
  typedef ec_xyzz<F> X;
  X acc = X::inf();
  for (int j = 0; j < CUDA_FIXED_WINDOWS; j++) {
    const uint32_t d = (k[j / 4] >> (8 * (j % 4))) & 0xff;
    if (d)
      acc = X::add_aff(acc, t[j * CUDA_FIXED_DIGITS + d - 1]);
  }
  return acc;
}

/* Points i = first + s * stride for s < count (count <= FIXED_BATCH), made
 * affine with one inversion for the batch (Montgomery's trick over the
 * ZZZs, an infinity's taken as 1): out[i] = k[i] G. */
template <class F>
CZ_HD void fixed_batch(ec_aff<F> *out, const ec_aff<F> *t, const uint32_t *k, size_t first,
                       size_t stride, int count) {
  ec_xyzz<F> p[FIXED_BATCH];
  F pre[FIXED_BATCH];
  F run = F::one();
  for (int s = 0; s < count; s++) {
    p[s] = fixed_xyzz<F>(t, k + 8 * (first + s * stride));
    if (!ec_xyzz<F>::is_inf(p[s]))
      run = F::mul(run, p[s].zzz);
    pre[s] = run; /* the product of the ZZZs up to s */
  }
  F inv = inv_of(run);
  for (int s = count - 1; s >= 0; s--) {
    ec_aff<F> &o = out[first + s * stride];
    if (ec_xyzz<F>::is_inf(p[s])) {
      o = {F::zero(), F::zero()};
      continue;
    }
    const F iz3 = s ? F::mul(inv, pre[s - 1]) : inv; /* 1 / ZZZ_s */
    inv = F::mul(inv, p[s].zzz);
    const F iz3s = F::sqr(iz3);
    o = {F::mul(p[s].x, F::mul(F::sqr(p[s].zz), iz3s)), F::mul(p[s].y, iz3)};
  }
}

/* Thread g of the grid takes points g, g + G, g + 2G, ... (G threads in
 * all), so that a warp's loads and stores of one step are adjacent. */
template <class F>
__global__ void fixed_kernel(ec_aff<F> *out, const ec_aff<F> *t, const uint32_t *k, size_t n) {
  const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t G = (size_t)gridDim.x * blockDim.x;
  if (g >= n)
    return;
  const size_t mine = (n - g + G - 1) / G; /* points of this thread */
  fixed_batch<F>(out, t, k, g, G, (int)mine);
}

} // namespace

struct cuda_fixed {
  bool g2, host;
  void *table;  /* CUDA_FIXED_TABLE points */
  void *k, *out; /* FIXED_CHUNK scalars and points (device, when not emulated) */
};

static size_t point_bytes(bool g2) { return g2 ? sizeof(ec_aff<fp2_t>) : sizeof(ec_aff<fp_t>); }

static_assert(sizeof(ec_aff<fp_t>) == 96 && sizeof(ec_aff<fp2_t>) == 192,
              "the host's affine layouts");

extern "C" void cuda_fixed_free(cuda_fixed *f) {
  if (!f)
    return;
  void *bufs[] = {f->table, f->k, f->out};
  for (void *b : bufs) {
    if (!b)
      continue;
    if (f->host)
      free(b);
    else
      cuda_gc_free(b);
  }
  free(f);
}

static cuzk_status fixed_alloc(cuda_fixed *f, void **m, size_t bytes, cuzk_err *err) {
  *m = nullptr;
  if (f->host) {
    if (!(*m = malloc(bytes)))
      return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_fixed: %zu bytes of host memory", bytes);
    return CUZK_OK;
  }
  cudaError_t e = cuda_gc_malloc(m, bytes);
  if (e != cudaSuccess) {
    *m = nullptr;
    return cuda_fail(e, __FILE__, __LINE__, "cudaMalloc (fixed-base buffers)", err);
  }
  return CUZK_OK;
}

extern "C" cuzk_status cuda_fixed_new(cuda_fixed **out, bool g2, const void *table, bool emulate,
                                      cuzk_err *err) {
  *out = nullptr;
  cuda_fixed *f = (cuda_fixed *)calloc(1, sizeof *f);
  if (!f)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_fixed_new");
  f->g2 = g2, f->host = emulate;
  const size_t pb = point_bytes(g2), tb = CUDA_FIXED_TABLE * pb;
  /* emulated, one chunk is the whole call: out and k are the caller's */
  cuzk_status st = fixed_alloc(f, &f->table, tb, err);
  if (st == CUZK_OK && !emulate && (st = fixed_alloc(f, &f->k, FIXED_CHUNK * 32, err)) == CUZK_OK)
    st = fixed_alloc(f, &f->out, FIXED_CHUNK * pb, err);
  if (st == CUZK_OK) {
    if (emulate)
      memcpy(f->table, table, tb);
    else if (cudaError_t e = cudaMemcpy(f->table, table, tb, cudaMemcpyHostToDevice))
      st = cuda_fail(e, __FILE__, __LINE__, "cudaMemcpy (fixed-base table)", err);
  }
  if (st != CUZK_OK) {
    cuda_fixed_free(f);
    return st;
  }
  *out = f;
  return CUZK_OK;
}

template <class F>
static cuzk_status run(cuda_fixed *f, ec_aff<F> *out, const uint32_t *k, size_t n,
                       cudaStream_t s, cuzk_err *err) {
  const ec_aff<F> *t = (const ec_aff<F> *)f->table;
  if (f->host) { /* the same batches, each its own "thread" */
    for (size_t at = 0; at < n; at += FIXED_BATCH)
      fixed_batch<F>(out, t, k, at, 1, (int)(n - at < FIXED_BATCH ? n - at : FIXED_BATCH));
    return CUZK_OK;
  }
  for (size_t at = 0; at < n; at += FIXED_CHUNK) {
    const size_t c = n - at < FIXED_CHUNK ? n - at : FIXED_CHUNK;
    CUDA_TRY(err, cudaMemcpyAsync(f->k, k + 8 * at, c * 32, cudaMemcpyHostToDevice, s));
    const size_t threads = (c + FIXED_BATCH - 1) / FIXED_BATCH; /* each takes <= FIXED_BATCH */
    fixed_kernel<F><<<(unsigned)((threads + FIXED_THREADS - 1) / FIXED_THREADS), FIXED_THREADS, 0,
                      s>>>((ec_aff<F> *)f->out, t, (const uint32_t *)f->k, c);
    if (cudaError_t e = cudaGetLastError())
      return cuda_fail(e, __FILE__, __LINE__, "fixed_kernel", err);
    CUDA_TRY(err, cudaMemcpyAsync(out + at, f->out, c * sizeof *out, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(err, cudaStreamSynchronize(s));
  }
  return CUZK_OK;
}

extern "C" cuzk_status cuda_fixed_mul(cuda_fixed *f, void *out, const void *k, size_t n,
                                      void *stream, cuzk_err *err) {
  if (!f || (n && (!out || !k)))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_fixed_mul: no object or arrays");
  cudaStream_t s = (cudaStream_t)stream;
  return f->g2 ? run<fp2_t>(f, (ec_aff<fp2_t> *)out, (const uint32_t *)k, n, s, err)
               : run<fp_t>(f, (ec_aff<fp_t> *)out, (const uint32_t *)k, n, s, err);
}
