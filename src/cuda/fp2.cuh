/* Device quadratic extension F[u]/(u^2 + 1) over a field type F from
 * mont.cuh: c0 + c1*u.  u^2 = -1 holds for BLS12-381 and BN254.
 *
 * DESIGN: the operation names and signatures are the base field's (static
 * members returning values), so point formulas written once over a field
 * type run over Fp for G1 and over Fp2 for G2.  The product is the host's
 * Karatsuba (src/ff/fp2_tmpl.h), lazily reduced; every output is fully
 * reduced on both sides, so device and host results are bit-identical.
 * The layout is the host's (c0 then c1): buffers are shared as they are. */
#ifndef CUZK_CUDA_FP2_CUH
#define CUZK_CUDA_FP2_CUH

#include "cuda/ptx.cuh"

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

  /* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u,
   * lazily reduced (mul_lazy); out of line on the device, where it is one
   * hot body for the G2 formulas' products and squares alike. */
  static CZ_HD fp2 mul(const fp2 &a, const fp2 &b) {
#ifdef __CUDA_ARCH__
    return mul_call(a, b);
#else
    return mul_lazy(a, b);
#endif
  }
#ifdef __CUDA_ARCH__
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
    F::wide_mul(a.c0, b.c0, t0);
    F::wide_mul(a.c1, b.c1, t1);
    F::wide_mul(F::add_raw(a.c0, a.c1), F::add_raw(b.c0, b.c1), t2);
    /* t2 - t0 - t1 = a0 b1 + a1 b0: never borrows */
    (void)F::sub_wide(t2, t0);
    (void)F::sub_wide(t2, t1);
    /* t0 -= t1, then + p R (p into the high half) on a borrow */
    F::add_p_r(t0, F::sub_wide(t0, t1));
    return {F::redc_wide(t0), F::redc_wide(t2)};
  }
  /* a b - c d (ec.cuh's Y3): two products and a subtraction, on the device
   * and in the host emulation alike.  One reduction per coefficient for
   * both products (mont::mul_sub's way) costs G2 more registers live across
   * six wide products than it saves (bench/RESULTS.md, "G2 lazily reduced
   * Fp2 mul_sub"). */
  static CZ_HD fp2 mul_sub(const fp2 &a, const fp2 &b, const fp2 &c, const fp2 &d) {
    return sub(mul(a, b), mul(c, d));
  }
  /* (a0 + a1 u)^2 by mul: the one out-of-line body serves both. */
  static CZ_HD fp2 sqr(const fp2 &a) { return mul(a, a); }
  /* a * b for b in the base field.  2M. */
  static CZ_HD fp2 mul_base(const fp2 &a, const F &b) { return {F::mul(a.c0, b), F::mul(a.c1, b)}; }

  /* Montgomery form conversions, coefficient by coefficient. */
  static CZ_HD fp2 from_canon(const fp2 &x) { return {F::from_canon(x.c0), F::from_canon(x.c1)}; }
  static CZ_HD fp2 to_canon(const fp2 &a) { return {F::to_canon(a.c0), F::to_canon(a.c1)}; }
};

#endif
