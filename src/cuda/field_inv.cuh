/* Device field inversion, variable time, for mont<C> (mont.cuh) and
 * fp2<F> (fp2.cuh): field_inv_vartime(a) = a^-1, and 0 for 0.
 *
 * DESIGN: the GPU MSM's batch-affine rounds (msm_gpu_ba.cuh) invert one
 * product per 1,000 or so additions, one thread per product, and wait for
 * the slowest thread of a small kernel each round; what matters is the
 * latency of one inversion and the instruction count, not constant time
 * (the MSM is variable time in its scalars anyway).  Fermat's a^(p-2) is
 * ~450 dependent multiplications (~290k instructions, ~1M cycles of
 * latency); the binary extended Euclid below is ~2 log2 p cheap steps of
 * shifts and adds on N-word integers (~60k instructions, no multiplication
 * but the two final ones).
 *
 * Binary extended Euclid (Hankerson, Menezes, Vanstone, "Guide to ECC",
 * Algorithm 2.22) on the integer a (the Montgomery form x R mod p):
 *   u = a, v = p, x1 = 1, x2 = 0; invariants x1 a = u, x2 a = v (mod p)
 *   while u != 1 and v != 1:
 *     while u even: u = u/2, x1 = x1/2 mod p
 *     while v even: v = v/2, x2 = x2/2 mod p
 *     if u >= v: u = u - v, x1 = x1 - x2  else  v = v - u, x2 = x2 - x1
 *   z = x1 if u = 1 else x2                       (z = a^-1 = x^-1 R^-1)
 * then two Montgomery multiplications by R^2 give x^-1 R.  x/2 mod p is
 * x >> 1 for even x and (x + p) >> 1 for odd x (x + p < 2p < 2^(32N)). */
#ifndef CUZK_CUDA_FIELD_INV_CUH
#define CUZK_CUDA_FIELD_INV_CUH

#include "cuda/fp2.cuh"
#include "cuda/mont.cuh"

namespace field_inv_detail {

template <int N>
CZ_HD bool is_one_int(const uint32_t (&a)[N]) {
  uint32_t acc = a[0] ^ 1u;
#pragma unroll
  for (int i = 1; i < N; i++) acc |= a[i];
  return acc == 0;
}

/* a >>= 1 */
template <int N>
CZ_HD void shr1(uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 31);
  a[N - 1] >>= 1;
}

/* a >= b */
template <int N>
CZ_HD bool geq(const uint32_t (&a)[N], const uint32_t (&b)[N]) {
  carry_chain c;
  (void)c.sub_cc(a[0], b[0]);
#pragma unroll
  for (int i = 1; i < N; i++) (void)c.subc_cc(a[i], b[i]);
  return c.subc(0, 0) == 0; /* no borrow */
}

/* a -= b (a >= b) */
template <int N>
CZ_HD void sub_int(uint32_t (&a)[N], const uint32_t (&b)[N]) {
  carry_chain c;
  a[0] = c.sub_cc(a[0], b[0]);
#pragma unroll
  for (int i = 1; i < N - 1; i++) a[i] = c.subc_cc(a[i], b[i]);
  a[N - 1] = c.subc(a[N - 1], b[N - 1]);
}

/* x = x / 2 mod p, x < p */
template <class C>
CZ_HD void half_mod(uint32_t (&x)[C::N]) {
  constexpr int N = C::N;
  if (x[0] & 1) {
    carry_chain c;
    x[0] = c.add_cc(x[0], C::p()[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) x[i] = c.addc_cc(x[i], C::p()[i]);
    x[N - 1] = c.addc(x[N - 1], C::p()[N - 1]);
  }
  shr1<N>(x);
}

} // namespace field_inv_detail

/* a^-1 in Montgomery form (0 for 0); see above. */
template <class C>
__host__ __device__ mont<C> field_inv_vartime(const mont<C> &a) {
  using namespace field_inv_detail;
  typedef mont<C> F;
  constexpr int N = C::N;
  if (F::is_zero(a))
    return F::zero();
  uint32_t u[N], v[N];
  F x1 = F::zero(), x2 = F::zero();
  x1.l[0] = 1;
#pragma unroll
  for (int i = 0; i < N; i++) u[i] = a.l[i], v[i] = C::p()[i];
  while (!is_one_int<N>(u) && !is_one_int<N>(v)) {
    while (!(u[0] & 1)) {
      shr1<N>(u);
      half_mod<C>(x1.l);
    }
    while (!(v[0] & 1)) {
      shr1<N>(v);
      half_mod<C>(x2.l);
    }
    if (geq<N>(u, v)) {
      sub_int<N>(u, v);
      x1 = F::sub(x1, x2);
    } else {
      sub_int<N>(v, u);
      x2 = F::sub(x2, x1);
    }
  }
  F z = is_one_int<N>(u) ? x1 : x2, r2;
#pragma unroll
  for (int i = 0; i < N; i++) r2.l[i] = C::r2()[i];
  return F::mul(F::mul(z, r2), r2); /* z R^2 R^-1 = x^-1, then x^-1 R */
}

/* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2), as u^2 = -1; the norm is 0
 * only for a = 0 (-1 is not a square mod p = 3 mod 4).  One base-field
 * inversion + 2M + 2S. */
template <class F>
__host__ __device__ fp2<F> field_inv_vartime(const fp2<F> &a) {
  const F t = field_inv_vartime(F::add(F::sqr(a.c0), F::sqr(a.c1)));
  return {F::mul(a.c0, t), F::neg(F::mul(a.c1, t))};
}

#endif
