/* Device quadratic extension F[u]/(u^2 + 1) over a field type F from
 * mont.cuh: c0 + c1*u.  u^2 = -1 holds for BLS12-381 and BN254.
 *
 * DESIGN: the operation names and signatures are the base field's (static
 * members returning values), so point formulas written once over a field
 * type run over Fp for G1 and over Fp2 for G2.  The formulas are the host's
 * (src/ff/fp2_tmpl.h: Karatsuba multiplication, complex squaring); every
 * output is fully reduced on both sides, so device and host results are
 * bit-identical.  The layout is the host's (c0 then c1): buffers are shared
 * as they are. */
#ifndef CUZK_CUDA_FP2_CUH
#define CUZK_CUDA_FP2_CUH

#include "cuda/ptx.cuh"

/* 1 (the default): Fp2 products lazily reduced (fp2::mul_lazy) and out of
 * line on the device, squares through them; 0: Karatsuba over F::mul.
 * Measured on the H200 (bench/RESULTS.md, 2026-12-01, A/B in one call):
 * G2 MSM 2^24 380.5 -> 313.5 ms (XYZZ), batch-affine 371.2 -> 325.2; Fp2
 * mul 8.57e9 -> 9.34e9/s (100 % of the IMAD ceiling); G1 unchanged. */
#ifndef CZ_FP2_LAZY
#define CZ_FP2_LAZY 1
#endif
/* 1: fp2::mul_sub lazily reduced and out of line on the device (an A/B
 * candidate for G2, as mont::mul_sub was for G1); 0: two products. */
#ifndef CZ_FP2_MUL_SUB
#define CZ_FP2_MUL_SUB 0
#endif

template <class F>
struct fp2 {
  F c0, c1;

  static CZ_HD fp2 zero() { return {F::zero(), F::zero()}; }
  static CZ_HD fp2 one() { return {F::one(), F::zero()}; }
  static CZ_HD bool is_zero(const fp2 &a) { return F::is_zero(a.c0) & F::is_zero(a.c1); }
  static CZ_HD bool eq(const fp2 &a, const fp2 &b) { return F::eq(a.c0, b.c0) & F::eq(a.c1, b.c1); }

  static CZ_HD fp2 add(const fp2 &a, const fp2 &b) { return {F::add(a.c0, b.c0), F::add(a.c1, b.c1)}; }
  static CZ_HD fp2 sub(const fp2 &a, const fp2 &b) { return {F::sub(a.c0, b.c0), F::sub(a.c1, b.c1)}; }
  static CZ_HD fp2 dbl(const fp2 &a) { return {F::dbl(a.c0), F::dbl(a.c1)}; }
  static CZ_HD fp2 neg(const fp2 &a) { return {F::neg(a.c0), F::neg(a.c1)}; }
  static CZ_HD fp2 conj(const fp2 &a) { return {a.c0, F::neg(a.c1)}; }

  /* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u.
   * Karatsuba: 3M + 5A.  With CZ_FP2_LAZY (see mul_lazy) the lazily reduced
   * form, out of line on the device, and sqr = mul: one hot body. */
  static CZ_HD fp2 mul(const fp2 &a, const fp2 &b) {
#if CZ_FP2_LAZY
#ifdef __CUDA_ARCH__
    return mul_call(a, b);
#else
    return mul_lazy(a, b);
#endif
#else
    const F t0 = F::mul(a.c0, b.c0);
    const F t1 = F::mul(a.c1, b.c1);
    const F s = F::mul(F::add(a.c0, a.c1), F::add(b.c0, b.c1));
    return {F::sub(t0, t1), F::sub(F::sub(s, t0), t1)};
#endif
  }
#if CZ_FP2_LAZY && defined(__CUDA_ARCH__)
  static __device__ __noinline__ fp2 mul_call(const fp2 a, const fp2 b) { return mul_lazy(a, b); }
#endif
  /* Karatsuba on 2N-word products with two reductions instead of three:
   * T0 = a0 b0, T1 = a1 b1, T2 = (a0 + a1)(b0 + b1) (sums not reduced,
   * < 2p), c0 = REDC(T0 - T1, + p R when negative), c1 = REDC(T2 - T0 -
   * T1) = REDC(a0 b1 + a1 b0).  REDC needs its input below p R: T0 - T1 +
   * p R < p R when T0 < T1, and a0 b1 + a1 b0 < 2 p^2 < p R.  Products
   * 3 N^2 and reductions 2 N^2 multiply-adds, against 3 (N^2 + N^2). */
  static CZ_HD fp2 mul_lazy(const fp2 &a, const fp2 &b) {
    constexpr int N = F::N;
    uint32_t t0[2 * N], t1[2 * N], t2[2 * N];
    wide_parts(a, b, t0, t1, t2);
    /* t0 -= t1, then + p R (p into the high half) on a borrow */
    F::add_p_r(t0, F::sub_wide(t0, t1));
    return {F::redc_wide(t0), F::redc_wide(t2)};
  }
  /* Karatsuba's 2N-word parts: t0 = a0 b0, t1 = a1 b1, t2 = (a0 + a1)(b0 +
   * b1) - t0 - t1 = a0 b1 + a1 b0 (the sums not reduced, < 2p; the
   * subtractions never borrow) */
  static CZ_HD void wide_parts(const fp2 &a, const fp2 &b, uint32_t (&t0)[2 * F::N],
                               uint32_t (&t1)[2 * F::N], uint32_t (&t2)[2 * F::N]) {
    F::wide_mul(a.c0, b.c0, t0);
    F::wide_mul(a.c1, b.c1, t1);
    F::wide_mul(F::add_raw(a.c0, a.c1), F::add_raw(b.c0, b.c1), t2);
    (void)F::sub_wide(t2, t0);
    (void)F::sub_wide(t2, t1);
  }
  /* a b - c d (ec.cuh's Y3).  On the device with CZ_FP2_MUL_SUB (and
   * CZ_FP2_LAZY) one out-of-line body, mul_sub_lazy: six 2N-word products
   * and two reductions instead of two lazy products' four; otherwise two
   * products and a subtraction.  On the host (with CZ_FP2_LAZY) always
   * mul_sub_lazy, so CI's emulated MSM tests run it. */
  static CZ_HD fp2 mul_sub(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) {
#if CZ_FP2_LAZY && (CZ_FP2_MUL_SUB || !defined(__CUDA_ARCH__))
#ifdef __CUDA_ARCH__
    return mul_sub_call(a, b, c, d);
#else
    return mul_sub_lazy(a, b, c, d);
#endif
#else
    return sub(mul(a, b), mul(c, d));
#endif
  }
#if CZ_FP2_LAZY && CZ_FP2_MUL_SUB && defined(__CUDA_ARCH__)
  static __device__ __noinline__ fp2 mul_sub_call(const fp2 a, const fp2 b, const fp2 c,
                                                  const fp2 d) {
    return mul_sub_lazy(a, b, c, d);
  }
#endif
  /* With T = a b and U = c d as in mul_lazy (Karatsuba, 2N-word parts):
   *   c0 = REDC((T0 + U1) - (T1 + U0))
   *   c1 = REDC((T2 - T0 - T1) - (U2 - U0 - U1)) = REDC((a0 b1 + a1 b0) - (c0 d1 + c1 d0))
   * Each bracket is below 2 p^2, so each difference lies in (-2 p^2, 2 p^2);
   * p R is added when it is negative, which leaves it in [0, p R) because
   * 2 p^2 < p R (2p < R = 2^(32N)): REDC's input bound.  The sums fit 2N
   * words: 2 p^2 < 2^(64N). */
  static CZ_HD fp2 mul_sub_lazy(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) {
    constexpr int N = F::N;
    uint32_t t0[2 * N], t1[2 * N], t2[2 * N], u0[2 * N], u1[2 * N], u2[2 * N];
    wide_parts(a, b, t0, t1, t2);
    wide_parts(c, d, u0, u1, u2);
    /* c1: the difference of the cross terms */
    F::add_p_r(t2, F::sub_wide(t2, u2));
    /* c0: (t0 + u1) - (t1 + u0) */
    F::add_wide(t0, u1);
    F::add_wide(t1, u0);
    F::add_p_r(t0, F::sub_wide(t0, t1));
    return {F::redc_wide(t0), F::redc_wide(t2)};
  }
  /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u.  2M + 3A. */
  static CZ_HD fp2 sqr(const fp2 &a) {
#if CZ_FP2_LAZY
    return mul(a, a);
#else
    const F m = F::mul(a.c0, a.c1);
    return {F::mul(F::add(a.c0, a.c1), F::sub(a.c0, a.c1)), F::dbl(m)};
#endif
  }
  /* a * b for b in the base field.  2M. */
  static CZ_HD fp2 mul_base(const fp2 &a, const F &b) { return {F::mul(a.c0, b), F::mul(a.c1, b)}; }

  /* Montgomery form conversions, coefficient by coefficient. */
  static CZ_HD fp2 from_canon(const fp2 &x) { return {F::from_canon(x.c0), F::from_canon(x.c1)}; }
  static CZ_HD fp2 to_canon(const fp2 &a) { return {F::to_canon(a.c0), F::to_canon(a.c1)}; }
};

#endif
