/* Device point formulas for short Weierstrass curves y^2 = x^3 + b (a = 0),
 * written once over a coordinate field F: G1 over Fp (mont<>) and G2 over
 * Fp2 (fp2<>) are two instantiations, and BN254 is another field type.
 *
 * DESIGN: the formulas and their special cases are the host's (src/ec,
 * ec_impl.h: the Explicit-Formulas Database), so device and host agree on
 * every input, doublings and opposite points included; the curve constant b
 * is never needed (a = 0 formulas do not use it).  Every function is
 * __host__ __device__: on the host the carry chains of ptx.cuh are emulated,
 * which lets CI run the device MSM pipeline itself (msm_gpu.cu, "emulated").
 *
 * Forms (the host's layouts, byte for byte, so buffers are shared as is):
 *   ec_aff   (x, y); the point at infinity is x = y = 0 (the zkey file's
 *            convention; (0, 0) is on neither curve since b != 0);
 *   ec_xyzz  (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity
 *            has ZZ = 0, and all-zero bytes are infinity (buckets are
 *            cleared with a memset).
 * Costs in multiplications M and squarings S of F (S = M for now).  The
 * Y3 = A B - C D of each formula is F::mul_sub (mont.cuh: one reduction
 * for the two products where the field does it lazily). */
#ifndef CUZK_CUDA_EC_CUH
#define CUZK_CUDA_EC_CUH

#include "cuda/ptx.cuh"

/* Inlining, measured in compile time: a G2 XYZZ addition is ~45k PTX
 * instructions, and with every formula force-inlined the MSM's kernels took
 * ptxas 12 minutes (2 cores), the host pass (emulated carry chains) as
 * long.  So only the mixed addition, the body of the bucket accumulation
 * loop, is inlined on the device (EC_HOT); the XYZZ addition and doubling
 * (merge rounds, reduction, rare special cases) are real functions there
 * (EC_CALL), and on the host everything is. */
#ifdef __CUDA_ARCH__
#define EC_HOT __host__ __device__ __forceinline__
#else
#define EC_HOT __host__ __device__ __noinline__
#endif
#define EC_CALL __host__ __device__ __noinline__

template <class F>
struct ec_aff {
  F x, y;
  static CZ_HD bool is_inf(const ec_aff &p) { return F::is_zero(p.x) & F::is_zero(p.y); }
  /* -p; infinity stays infinity (neg(0) = 0). */
  static CZ_HD ec_aff neg(const ec_aff &p) { return {p.x, F::neg(p.y)}; }
};

template <class F>
struct ec_xyzz {
  F x, y, zz, zzz;
  typedef F field;
  typedef ec_aff<F> aff;

  static CZ_HD ec_xyzz inf() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  static CZ_HD bool is_inf(const ec_xyzz &p) { return F::is_zero(p.zz); }
  static CZ_HD ec_xyzz from_aff(const aff &q) {
    if (aff::is_inf(q))
      return inf();
    return {q.x, q.y, F::one(), F::one()};
  }

  /* dbl-2008-s-1: 6M + 3S.  U = 2Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2,
   * X3 = M^2 - 2S, Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
   * Infinity (ZZ1 = 0) gives ZZ3 = 0: infinity. */
  static EC_CALL ec_xyzz dbl(const ec_xyzz &p) {
    const F u = F::dbl(p.y);
    const F v = F::sqr(u);
    const F w = F::mul(u, v);
    const F s = F::mul(p.x, v);
    const F x2 = F::sqr(p.x);
    const F m = F::add(F::dbl(x2), x2);
    ec_xyzz r;
    r.x = F::sub(F::sub(F::sqr(m), s), s);
    r.y = F::mul_sub(m, F::sub(s, r.x), w, p.y);
    r.zz = F::mul(v, p.zz);
    r.zzz = F::mul(w, p.zzz);
    return r;
  }

  /* p + q, q affine.  madd-2008-s: 8M + 2S.  U2 = X2 ZZ1, S2 = Y2 ZZZ1,
   * P = U2 - X1, R = S2 - Y1, PP = P^2, PPP = P PP, Q = X1 PP,
   * X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - Y1 PPP, ZZ3 = ZZ1 PP,
   * ZZZ3 = ZZZ1 PPP.  P = 0 means x(p) = x(q): a doubling (R = 0) or
   * opposite points (infinity). */
  static EC_HOT ec_xyzz add_aff(const ec_xyzz &p, const aff &q) {
    if (aff::is_inf(q))
      return p;
    if (is_inf(p))
      return from_aff(q);
    const F u2 = F::mul(q.x, p.zz);
    const F s2 = F::mul(q.y, p.zzz);
    const F pp = F::sub(u2, p.x);
    const F rr = F::sub(s2, p.y);
    if (F::is_zero(pp))
      return F::is_zero(rr) ? dbl(p) : inf();
    const F pp2 = F::sqr(pp);
    const F ppp = F::mul(pp, pp2);
    const F qq = F::mul(p.x, pp2);
    ec_xyzz r;
    r.x = F::sub(F::sub(F::sub(F::sqr(rr), ppp), qq), qq);
    r.y = F::mul_sub(rr, F::sub(qq, r.x), p.y, ppp);
    r.zz = F::mul(p.zz, pp2);
    r.zzz = F::mul(p.zzz, ppp);
    return r;
  }

  /* p + q.  add-2008-s: 12M + 2S.  U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2,
   * S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1, PP = P^2, PPP = P PP,
   * Q = U1 PP, X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP,
   * ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP. */
  static EC_CALL ec_xyzz add(const ec_xyzz &p, const ec_xyzz &q) {
    if (is_inf(q))
      return p;
    if (is_inf(p))
      return q;
    const F u1 = F::mul(p.x, q.zz);
    const F u2 = F::mul(q.x, p.zz);
    const F s1 = F::mul(p.y, q.zzz);
    const F s2 = F::mul(q.y, p.zzz);
    const F pp = F::sub(u2, u1);
    const F rr = F::sub(s2, s1);
    if (F::is_zero(pp))
      return F::is_zero(rr) ? dbl(p) : inf();
    const F pp2 = F::sqr(pp);
    const F ppp = F::mul(pp, pp2);
    const F qq = F::mul(u1, pp2);
    ec_xyzz r;
    r.x = F::sub(F::sub(F::sub(F::sqr(rr), ppp), qq), qq);
    r.y = F::mul_sub(rr, F::sub(qq, r.x), s1, ppp);
    r.zz = F::mul(F::mul(p.zz, q.zz), pp2);
    r.zzz = F::mul(F::mul(p.zzz, q.zzz), ppp);
    return r;
  }

  /* [k] p by double-and-add from the top bit, k < 2^32: at most 32
   * doublings and 32 additions (vartime in k). */
  static EC_CALL ec_xyzz mul_small(const ec_xyzz &p, uint32_t k) {
    ec_xyzz acc = inf();
    for (int b = 31; b >= 0; b--) {
      if (!is_inf(acc))
        acc = dbl(acc);
      if ((k >> b) & 1)
        acc = add(acc, p);
    }
    return acc;
  }
};

#endif
