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
   * Karatsuba: 3M + 5A. */
  static CZ_HD fp2 mul(const fp2 &a, const fp2 &b) {
    const F t0 = F::mul(a.c0, b.c0);
    const F t1 = F::mul(a.c1, b.c1);
    const F s = F::mul(F::add(a.c0, a.c1), F::add(b.c0, b.c1));
    return {F::sub(t0, t1), F::sub(F::sub(s, t0), t1)};
  }
  /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u.  2M + 3A. */
  static CZ_HD fp2 sqr(const fp2 &a) {
    const F m = F::mul(a.c0, a.c1);
    return {F::mul(F::add(a.c0, a.c1), F::sub(a.c0, a.c1)), F::dbl(m)};
  }
  /* a * b for b in the base field.  2M. */
  static CZ_HD fp2 mul_base(const fp2 &a, const F &b) { return {F::mul(a.c0, b), F::mul(a.c1, b)}; }

  /* Montgomery form conversions, coefficient by coefficient. */
  static CZ_HD fp2 from_canon(const fp2 &x) { return {F::from_canon(x.c0), F::from_canon(x.c1)}; }
  static CZ_HD fp2 to_canon(const fp2 &a) { return {F::to_canon(a.c0), F::to_canon(a.c1)}; }
};

#endif
