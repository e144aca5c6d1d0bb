/* Field throughput on the device: long dependent chains of multiplications
 * or squarings, several independent chains per thread (field_ops.h,
 * cuda_field_bench).
 *
 * DESIGN: the chains keep every operand in registers, so the kernel measures
 * arithmetic, not memory: each thread reads ilp values once, applies `iters`
 * operations to each, and writes them back.  The results are returned so
 * that the caller checks them against the host (a benchmark that is not
 * checked measures nothing).  Independent chains per thread (ilp) give the
 * scheduler instructions to issue while a carry chain waits on its
 * predecessor.
 *
 * The 64-bit-limb baseline (limb64) is the host's portable CIOS (src/ff,
 * mont_tmpl.h mul_ref) on 6 limbs with 128-bit accumulation, compiled for
 * the device: the alternative to mont.cuh's 32-bit PTX carry chains, timed
 * in the same kernel so the two figures compare directly. */
#include "cuda/bls12_381.cuh"
#include "cuda/check.cuh"
#include "cuda/field_ops.h"

/* ---- the 64-bit-limb baseline (Fp only) ---- */

struct fp64_baseline {
  uint64_t l[6];
};
static constexpr __device__ uint64_t fp64_p[6] = BLS12_381_FP_P;

__device__ __forceinline__ fp64_baseline fp64_mul(const fp64_baseline &a, const fp64_baseline &b) {
  typedef unsigned __int128 u128;
  const uint64_t n0 = BLS12_381_FP_N0;
  uint64_t t[7] = {0};
#pragma unroll
  for (int i = 0; i < 6; i++) {
    u128 c = 0;
#pragma unroll
    for (int j = 0; j < 6; j++) {
      c += (u128)a.l[j] * b.l[i] + t[j];
      t[j] = (uint64_t)c;
      c >>= 64;
    }
    const uint64_t hi = t[6] + (uint64_t)c;
    const uint64_t m = t[0] * n0;
    c = (u128)m * fp64_p[0] + t[0];
    c >>= 64;
#pragma unroll
    for (int j = 1; j < 6; j++) {
      c += (u128)m * fp64_p[j] + t[j];
      t[j - 1] = (uint64_t)c;
      c >>= 64;
    }
    c += hi;
    t[5] = (uint64_t)c;
    t[6] = (uint64_t)(c >> 64);
  }
  fp64_baseline s, r;
  uint64_t borrow = 0;
#pragma unroll
  for (int i = 0; i < 6; i++) {
    u128 d = (u128)t[i] - fp64_p[i] - borrow;
    s.l[i] = (uint64_t)d;
    borrow = (uint64_t)(d >> 64) & 1;
  }
#pragma unroll
  for (int i = 0; i < 6; i++) r.l[i] = borrow ? t[i] : s.l[i];
  return r;
}

struct fp64_ops {
  typedef fp64_baseline F;
  static __device__ __forceinline__ F mul(const F &a, const F &b) { return fp64_mul(a, b); }
  static __device__ __forceinline__ F sqr(const F &a) { return fp64_mul(a, a); }
};

/* ---- the chain kernel ---- */

template <class F>
struct field_ops_of {
  typedef F T;
  static __device__ __forceinline__ F mul(const F &a, const F &b) { return F::mul(a, b); }
  static __device__ __forceinline__ F sqr(const F &a) { return F::sqr(a); }
};

template <class F>
struct wide_ops_of {
  typedef F T;
  static __device__ __forceinline__ F mul(const F &a, const F &b) { return F::mul_lazy(a, b); }
  static __device__ __forceinline__ F sqr(const F &a) { return F::mul_lazy(a, a); }
};

template <class O, class T, int ILP, bool SQR>
__global__ void __launch_bounds__(256) field_chain_kernel(T *out, const T *x, const T *y,
                                                          size_t threads, unsigned iters) {
  const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads)
    return;
  T v[ILP];
#pragma unroll
  for (int j = 0; j < ILP; j++) v[j] = x[j * threads + t];
  T m;
  if (!SQR)
    m = y[t];
#pragma unroll 1
  for (unsigned k = 0; k < iters; k++) {
#pragma unroll
    for (int j = 0; j < ILP; j++) v[j] = SQR ? O::sqr(v[j]) : O::mul(v[j], m);
  }
#pragma unroll
  for (int j = 0; j < ILP; j++) out[j * threads + t] = v[j];
}

typedef void (*chain_launch)(void *out, const void *x, const void *y, size_t threads,
                             unsigned iters, unsigned grid, unsigned block, cudaStream_t s);

template <class O, class T, int ILP, bool SQR>
static void launch(void *out, const void *x, const void *y, size_t threads, unsigned iters,
                   unsigned grid, unsigned block, cudaStream_t s) {
  field_chain_kernel<O, T, ILP, SQR>
      <<<grid, block, 0, s>>>((T *)out, (const T *)x, (const T *)y, threads, iters);
}

template <class O, class T>
static chain_launch pick(unsigned ilp, bool sqr) {
  if (sqr)
    return ilp == 1 ? launch<O, T, 1, true> : ilp == 2 ? launch<O, T, 2, true> : launch<O, T, 4, true>;
  return ilp == 1 ? launch<O, T, 1, false> : ilp == 2 ? launch<O, T, 2, false> : launch<O, T, 4, false>;
}

extern "C" cuzk_status cuda_field_bench(cuda_field f, cuda_field_op op,
                                        const cuda_field_bench_cfg *cfg, void *out,
                                        const void *x, const void *y, double *ms,
                                        cuzk_err *err) {
  if ((unsigned)f >= CUDA_FIELD_COUNT ||
      (op != CUDA_FOP_MUL && op != CUDA_FOP_SQR && op != CUDA_FOP_MUL_WIDE) ||
      !cfg || !out ||
      !x || (op != CUDA_FOP_SQR && !y) || !ms || cfg->threads == 0 || cfg->reps == 0 || cfg->reps > 63 ||
      (cfg->ilp != 1 && cfg->ilp != 2 && cfg->ilp != 4) ||
      (cfg->limb64 && f != CUDA_FIELD_BLS12_381_FP))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_field_bench: want MUL, SQR or MUL_WIDE, ilp 1, 2 or 4, "
                        "threads > 0, reps 1..63, all buffers, limb64 only for Fp");
  const bool sqr = op == CUDA_FOP_SQR;
  chain_launch fn;
  if (cfg->limb64)
    fn = pick<fp64_ops, fp64_baseline>(cfg->ilp, sqr);
  else if (op == CUDA_FOP_MUL_WIDE && f == CUDA_FIELD_BLS12_381_FP)
    fn = pick<wide_ops_of<bls12_381_fp_t>, bls12_381_fp_t>(cfg->ilp, false);
  else if (op == CUDA_FOP_MUL_WIDE && f == CUDA_FIELD_BLS12_381_FR)
    fn = pick<wide_ops_of<bls12_381_fr_t>, bls12_381_fr_t>(cfg->ilp, false);
  else if (op == CUDA_FOP_MUL_WIDE)
    fn = pick<wide_ops_of<bls12_381_fp2_t>, bls12_381_fp2_t>(cfg->ilp, false);
  else if (f == CUDA_FIELD_BLS12_381_FP)
    fn = pick<field_ops_of<bls12_381_fp_t>, bls12_381_fp_t>(cfg->ilp, sqr);
  else if (f == CUDA_FIELD_BLS12_381_FR)
    fn = pick<field_ops_of<bls12_381_fr_t>, bls12_381_fr_t>(cfg->ilp, sqr);
  else
    fn = pick<field_ops_of<bls12_381_fp2_t>, bls12_381_fp2_t>(cfg->ilp, sqr);

  const size_t es = cuda_field_elem_size(f), nx = cfg->threads * cfg->ilp;
  const unsigned block = cfg->block ? cfg->block : 256;
  const size_t grid = (cfg->threads + block - 1) / block;
  if (block > 256 || grid > 0x7fffffff)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_field_bench: block %u > 256 or grid too large",
                        block);
  cuda_stream st;
  cuda_buf dx, dy, dout;
  cuda_event e0, e1;
  CUDA_TRY(err, cuda_gc_stream_new(&st.h, cudaStreamNonBlocking, 0));
  CUDA_TRY(err, cuda_gc_event_new(&e0.h, cudaEventDefault));
  CUDA_TRY(err, cuda_gc_event_new(&e1.h, cudaEventDefault));
  CUDA_TRY(err, cuda_gc_malloc(&dx.h, nx * es));
  CUDA_TRY(err, cuda_gc_malloc(&dout.h, nx * es));
  CUDA_TRY(err, cudaMemcpyAsync(dx.h, x, nx * es, cudaMemcpyHostToDevice, st.h));
  if (!sqr) {
    CUDA_TRY(err, cuda_gc_malloc(&dy.h, cfg->threads * es));
    CUDA_TRY(err, cudaMemcpyAsync(dy.h, y, cfg->threads * es, cudaMemcpyHostToDevice, st.h));
  }
  float times[64];
  unsigned nt = 0;
  for (unsigned rep = 0; rep <= cfg->reps; rep++) { /* rep 0 warms up */
    CUDA_TRY(err, cudaMemsetAsync(dout.h, 0xA5, nx * es, st.h)); /* poison */
    CUDA_TRY(err, cudaEventRecord(e0.h, st.h));
    fn(dout.h, dx.h, dy.h, cfg->threads, cfg->iters, (unsigned)grid, block, st.h);
    CUDA_TRY(err, cudaGetLastError());
    CUDA_TRY(err, cudaEventRecord(e1.h, st.h));
    CUDA_TRY(err, cudaEventSynchronize(e1.h));
    float t = 0;
    CUDA_TRY(err, cudaEventElapsedTime(&t, e0.h, e1.h));
    if (rep > 0) /* insertion sort, for the median */
      for (unsigned i = nt++; ; i--) {
        if (i == 0 || times[i - 1] <= t) {
          times[i] = t;
          break;
        }
        times[i] = times[i - 1];
      }
  }
  CUDA_TRY(err, cudaMemcpyAsync(out, dout.h, nx * es, cudaMemcpyDeviceToHost, st.h));
  CUDA_TRY(err, cudaStreamSynchronize(st.h));
  *ms = times[nt / 2];
  return CUZK_OK;
}
