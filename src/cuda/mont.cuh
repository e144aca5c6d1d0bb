/* Device Montgomery arithmetic on N 32-bit limbs, the modulus a parameter.
 *
 * DESIGN: one template, `mont<C>`, serves every prime field; a field is a
 * configuration type C (N, the modulus, R mod p, R^2 mod p, n0) that
 * CZ_FIELD_CONFIG builds from the 64-bit constants of a generated
 * ff/consts_*.h header -- the same header, and so the same numbers, as the
 * host code (docs/DESIGN.md §2.1).  BLS12-381 Fp and Fr are two lines in
 * cuda/bls12_381.cuh; BN254 will be two more.
 *
 * Representation: x*R mod p, R = 2^(32N), fully reduced (< p), N 32-bit
 * limbs, least significant first.  2^(32N) = 2^(64*N/2), so an element's
 * bytes are exactly those of the host type (src/ff: N/2 64-bit limbs,
 * little-endian, R = 2^(64*N/2)) and buffers are copied between host and
 * device as they are.
 *
 * Preconditions, checked at compile time by CZ_FIELD_CONFIG: N even, p odd,
 * p < 2^(32N-1) (the top bit clear: BLS12-381 p has 381 of 384 bits, r 255
 * of 256, BN254 254 of 256), n0 = -p^-1 mod 2^32.
 *
 * Why 32-bit limbs: NVIDIA GPUs multiply 32x32 bits natively (IMAD, its .HI
 * and .WIDE forms); a 64x64-bit product costs four of them plus carries.
 * PTX exposes carry-propagating 32-bit multiply-adds, and ptxas (CUDA 13.0,
 * sm_90) fuses each mad.lo.cc/madc.hi.cc pair on the same operands into one
 * IMAD.WIDE.U32.X (both halves, carry in and out).  The same CIOS on
 * 64-bit limbs with 128-bit accumulation (field_bench.cu's baseline) runs
 * at two thirds of this code's rate on the H200 (bench/RESULTS.md, "GPU
 * field arithmetic").  Each product is one dependent chain: occupancy, not
 * independent chains within a thread, hides the carry-chain latency.
 *
 * Every routine is __host__ __device__: on the host the carry chains of
 * ptx.cuh are emulated, which lets CI check the exact device algorithm
 * against src/ff without a GPU.
 *
 * Costs (PTX instructions, N limbs): add/sub about 3N, mul 4N^2 + 6N
 * (N=12: 648), sqr = mul (see sqr). */
#ifndef CUZK_CUDA_MONT_CUH
#define CUZK_CUDA_MONT_CUH

#include <stdint.h>

#include "cuda/ptx.cuh"

/* N 32-bit words as a literal type, so that constants can be computed at
 * compile time and placed in device code as immediates. */
template <int N>
struct limbs32 {
  uint32_t v[N];
  CZ_HD constexpr uint32_t operator[](int i) const { return v[i]; }
};

/* The 32-bit limbs of a value given as N64 64-bit limbs (both little-endian). */
template <int N64>
constexpr limbs32<2 * N64> limbs32_of(const uint64_t (&a)[N64]) {
  limbs32<2 * N64> s{};
  for (int i = 0; i < 2 * N64; i++) s.v[i] = (uint32_t)(a[i / 2] >> (32 * (i % 2)));
  return s;
}

/* Device code reads the __device__ copy of a constant (folded to immediates
 * in unrolled code), host code the plain constexpr one. */
#ifdef __CUDA_ARCH__
#define CZ_HOST_DEV(h, d) d
#else
#define CZ_HOST_DEV(h, d) h
#endif

/* CZ_FIELD_CONFIG(cfg, N64, K) defines the configuration type `cfg` of the
 * prime field whose constants are K##_P, K##_ONE (R mod p), K##_R2 and K##_N0
 * (-p^-1 mod 2^64), each N64 64-bit limbs, from an ff/consts_*.h header. */
#define CZ_FIELD_CONFIG(cfg, N64, K)                                                      \
  namespace cfg##_k {                                                                     \
  constexpr uint64_t p64[N64] = K##_P, one64[N64] = K##_ONE, r2_64[N64] = K##_R2;         \
  constexpr limbs32<2 * N64> p_h = limbs32_of(p64), one_h = limbs32_of(one64),            \
                             r2_h = limbs32_of(r2_64);                                    \
  static constexpr __device__ limbs32<2 * N64> p_d = p_h, one_d = one_h, r2_d = r2_h;    \
  static_assert((p64[0] & 1) == 1, #K ": the modulus must be odd");                       \
  static_assert(p64[N64 - 1] >> 63 == 0, #K ": the top bit of the modulus must be clear"); \
  static_assert((uint32_t)((uint32_t)K##_N0 * (uint32_t)p64[0]) == 0xffffffffu,            \
                #K ": N0 is not -p^-1");                                                  \
  }                                                                                       \
  struct cfg {                                                                            \
    static constexpr int N = 2 * N64;                                                     \
    static constexpr uint32_t n0 = (uint32_t)K##_N0; /* -p^-1 mod 2^32 */                 \
    static CZ_HD constexpr const limbs32<N> &p() { return CZ_HOST_DEV(cfg##_k::p_h, cfg##_k::p_d); } \
    static CZ_HD constexpr const limbs32<N> &one() {                                      \
      return CZ_HOST_DEV(cfg##_k::one_h, cfg##_k::one_d);                                 \
    }                                                                                     \
    static CZ_HD constexpr const limbs32<N> &r2() {                                       \
      return CZ_HOST_DEV(cfg##_k::r2_h, cfg##_k::r2_d);                                   \
    }                                                                                     \
  }

template <class C>
struct alignas((4 * C::N) % 16 == 0 ? 16 : 4) mont {
  static constexpr int N = C::N;
  static_assert(N % 2 == 0, "the multiplication pairs limbs: N must be even");
  static_assert(N >= 4, "the reduction chains (add_mp_even, mp_even_from4) take N >= 4");
  uint32_t l[N];

  static CZ_HD mont zero() {
    mont r;
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = 0;
    return r;
  }
  /* 1 in Montgomery form (R mod p). */
  static CZ_HD mont one() {
    mont r;
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = C::one()[i];
    return r;
  }
  static CZ_HD constexpr const limbs32<N> &modulus() { return C::p(); }
  static CZ_HD bool is_zero(const mont &a) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= a.l[i];
    return acc == 0;
  }
  /* Whether the limbs, read as a plain integer (a canonical value, not a
   * Montgomery form), are below p. */
  static CZ_HD bool is_canon(const mont &a) {
    for (int i = N - 1; i >= 0; i--)
      if (a.l[i] != C::p()[i])
        return a.l[i] < C::p()[i];
    return false;
  }
  static CZ_HD bool eq(const mont &a, const mont &b) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
  }

  /* r = t - p if t >= p, else t (t < 2p).  N subtractions, N selects. */
  static CZ_HD mont reduce_once(const uint32_t (&t)[N]) {
    carry_chain c;
    uint32_t s[N];
    s[0] = c.sub_cc(t[0], C::p()[0]);
#pragma unroll
    for (int i = 1; i < N; i++) s[i] = c.subc_cc(t[i], C::p()[i]);
    const uint32_t keep = c.subc(0, 0); /* all ones when t < p (borrow) */
    mont r;
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = (t[i] & keep) | (s[i] & ~keep);
    return r;
  }

  /* a + b mod p.  a + b < 2p < 2^(32N): the sum (add_raw) needs no carry
   * word. */
  static CZ_HD mont add(const mont &a, const mont &b) { return reduce_once(add_raw(a, b).l); }
  static CZ_HD mont dbl(const mont &a) { return add(a, a); }

  /* a - b mod p: subtract, then add p back under the borrow mask. */
  static CZ_HD mont sub(const mont &a, const mont &b) {
    carry_chain c;
    uint32_t t[N];
    t[0] = c.sub_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < N; i++) t[i] = c.subc_cc(a.l[i], b.l[i]);
    const uint32_t mask = c.subc(0, 0); /* all ones on borrow (a < b) */
    mont r;
    r.l[0] = c.add_cc(t[0], C::p()[0] & mask);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.l[i] = c.addc_cc(t[i], C::p()[i] & mask);
    r.l[N - 1] = c.addc(t[N - 1], C::p()[N - 1] & mask);
    return r;
  }

  /* -a mod p: p - a, and 0 for a = 0 (p masked to 0). */
  static CZ_HD mont neg(const mont &a) {
    uint32_t nz = 0;
#pragma unroll
    for (int i = 0; i < N; i++) nz |= a.l[i];
    const uint32_t mask = nz ? ~0u : 0u;
    carry_chain c;
    mont r;
    r.l[0] = c.sub_cc(C::p()[0] & mask, a.l[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.l[i] = c.subc_cc(C::p()[i] & mask, a.l[i]);
    r.l[N - 1] = c.subc(C::p()[N - 1] & mask, a.l[N - 1]);
    return r;
  }

  /* Fields of at least this many 32-bit limbs multiply out of line on the
   * device (mul, mul_sub): Fp's 12, and so Fp2's, whose products inlined
   * at every use of the point formulas overflow the instruction cache;
   * Fr's 8 stay inline, where the NTT runs its products back to back and
   * a call was slower (bench/RESULTS.md, "Pair-aligned Montgomery
   * multiplication and out-of-line Fp products"). */
  static constexpr int call_limbs = 12;

  /* a * b * R^-1 mod p (mul_eo below).
   *
   * On the device, fields of at least call_limbs limbs multiply through one
   * out-of-line copy (mul_call) instead of inlining ~650 instructions at
   * every use: a G1 XYZZ addition holds ten of them, ~120 KB of machine
   * code, more than the instruction caches hold. */
  static CZ_HD mont mul(const mont &x, const mont &y) {
#ifdef __CUDA_ARCH__
    if constexpr (N >= call_limbs)
      return mul_call(x, y);
#endif
    return mul_eo(x, y);
  }
#ifdef __CUDA_ARCH__
  /* by value: arguments and result travel in registers, not local memory */
  static __device__ __noinline__ mont mul_call(const mont x, const mont y) {
    return mul_eo(x, y);
  }
#endif

  /* CIOS (coarsely integrated operand scanning): for each word b_i of b,
   * t += a b_i, then t += m p with m = t_0 n0 (the low word becomes 0),
   * then t >>= 32; at the end t < 2p and one conditional subtraction
   * reduces it.  The accumulator is split in two so that every 64-bit
   * multiply-add (mad.lo.cc + madc.hi.cc on the same operands, which ptxas
   * fuses into one IMAD.WIDE.U32.X: a 32x32-bit product added to a
   * register pair) works on an aligned register pair.  With a single
   * accumulator the odd limbs' products land on pairs (j, j+1), j odd, and
   * the shift by one word each iteration swaps even and odd, which ptxas
   * pays for with register moves (bench/RESULTS.md, "Pair-aligned
   * Montgomery multiplication"):
   *
   *   t = X + 2^32 Y + z     X: N+1 words at positions 0..N (X[N] a carry
   *                          word), Y: N words at positions 1..N, z: one
   *                          word at position 0
   *   t += a b_i             a_even b_i into X (pairs (j, j+1), j even),
   *                          a_odd b_i into Y (a_j at Y[j-1], Y[j]): both
   *                          chains pair-aligned; z goes into X[0] first and
   *                          its carry into Y[0], the odd chain's first word
   *   m = X[0] n0            only X has a word at position 0
   *   t += m p               p's even limbs into X, odd limbs into Y
   *                          (add_mp_p1 where p[0] = 1)
   *   t >>= 32               X[0] is 0 now; the new X is Y (positions 0..N-1),
   *                          the new Y is X[2..N] (positions 1..N-1), the new
   *                          z is X[1]: renamings by 0 and 2 words, so pairs
   *                          stay pairs
   *
   * Bounds (p < 2^(32N-1), a < p, b any N words): t < 2p at the top of
   * each iteration and t < 2p + 2 (2^32 - 1) p = p 2^33 < 2^(32N+32)
   * before the shift (b enters one word b_i < 2^32 at a time); all three
   * parts are non-negative, so X fits N+1 words and Y N words (its chains
   * carry out nothing).  At the end r = (a b + M p) / 2^(32N), M < 2^(32N),
   * so r < p + p b / 2^(32N) < 2p: one conditional subtraction reduces
   * it.  Cost: 4N^2 multiply-adds (2N^2 products, lo and hi, fused in
   * pairs), about 3N carry words, N m's, N for the final sum and 2N for
   * the subtraction: N = 12 (Fp) about 650. */
  static CZ_HD mont mul_eo(const mont &x, const mont &y) {
    const uint32_t *a = x.l, *b = y.l;
    uint32_t X[N + 1], Y[N], z = 0;
    carry_chain c;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint32_t bi = b[i];
      if (i == 0) { /* X = Y = 0: plain products, no carries */
#pragma unroll
        for (int j = 0; j < N; j += 2) {
          const uint64_t e = (uint64_t)a[j] * bi, o = (uint64_t)a[j + 1] * bi;
          X[j] = (uint32_t)e;
          X[j + 1] = (uint32_t)(e >> 32);
          Y[j] = (uint32_t)o;
          Y[j + 1] = (uint32_t)(o >> 32);
        }
        X[N] = 0;
      } else {
        X[0] = c.add_cc(X[0], z); /* carry to position 1: Y[0] */
#pragma unroll
        for (int j = 1; j < N - 1; j += 2) {
          Y[j - 1] = c.madc_lo_cc(a[j], bi, Y[j - 1]);
          Y[j] = c.madc_hi_cc(a[j], bi, Y[j]);
        }
        Y[N - 2] = c.madc_lo_cc(a[N - 1], bi, Y[N - 2]);
        Y[N - 1] = c.madc_hi(a[N - 1], bi, Y[N - 1]);
        X[0] = c.mad_lo_cc(a[0], bi, X[0]);
        X[1] = c.madc_hi_cc(a[0], bi, X[1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
          X[j] = c.madc_lo_cc(a[j], bi, X[j]);
          X[j + 1] = c.madc_hi_cc(a[j], bi, X[j + 1]);
        }
        X[N] = c.addc(0, 0);
      }
      /* t += m p */
      if constexpr (p1_form) {
        add_mp_p1(c, X, Y);
      } else {
        const uint32_t m = X[0] * C::n0;
        add_mp_even(c, X, m);
        add_mp_odd(c, Y, m, false);
      }
      shift_word(X, Y, z);
    }
    uint32_t r[N];
    fold(c, X, Y, z, r);
    return reduce_once(r);
  }

  /* p1_form: the modulus's low 32-bit limb is 1 (BLS12-381 r =
   * 0x73ed...00000001; not BLS12-381 p, not BN254).  Then n0 = -p^-1 mod
   * 2^32 = 2^32 - 1 and, with t0 = X[0] the low word of t:
   *
   *   m = t0 n0 mod 2^32 = -t0 mod 2^32    (no multiply)
   *   t0 + m p[0] = t0 + m = 2^32 c        c = (t0 != 0): the low word
   *                                        vanishes and carries c, and
   *                                        m p[0] = m has no high word
   *
   * so a round of the reduction needs neither the product m nor m p[0]:
   * the remaining m p[1..N-1] are 2N - 2 of the generic 2N + 1
   * multiply-adds (N = 8: 240 instead of 264 IMADs per product, counted as
   * docs/PERF.md §1.1 does).  t + m p is the very integer of add_mp_even +
   * add_mp_odd, so mul_eo's bounds hold as they are; only the split
   * differs: c enters the odd chain at Y[0] (position 1) instead of X[1],
   * which m p[0] leaves untouched, and X[0] keeps t0 -- its true value
   * t0 + m = 2^32 c is the c now in Y, and shift_word drops X[0].  Y's
   * chain still carries nothing out: 2^32 Y is at most the whole sum,
   * below 2^(32N+32), and X, the other part, is not negative.
   *
   *   m = 0 - t0 (sub.cc), then CF = c (add.cc t0 + m, whose sum is 0)
   *   Y[0..N-1] += m p_odd (p[1], p[3], ...) + c    the chain going on
   *   X[2..N] += m p_even (p[2], p[4], ...)         a fresh chain
   *
   * m comes out of a carry chain rather than as t0 n0 so that ptxas keeps
   * each m p[j] one IMAD.WIDE.U32.X: from t0 * (2^32 - 1) it rewrites m p[j]
   * as t0 (-p[j]), whose lo and hi halves no longer share operands.  m p[1]
   * (p[1] = 2^32 - 1 for r) could be had without a multiply as well, but
   * for more ALU instructions than the one IMAD.WIDE it saves, and the
   * NTT's kernels, which run Fr products back to back, are bound by the ALU
   * pipe (bench/RESULTS.md, "where a pass's time goes"). */
  static constexpr bool p1_form = C::p()[0] == 1;

  static CZ_HD void add_mp_p1(carry_chain &c, uint32_t (&X)[N + 1], uint32_t (&Y)[N]) {
    const uint32_t t0 = X[0];
    const uint32_t m = c.sub_cc(0, t0);
    (void)c.add_cc(t0, m); /* = 0, carry c = (t0 != 0) */
    add_mp_odd(c, Y, m, true);
    mp_even_from2(c, X, m);
  }

  /* the chains' common tails: Y += m p_j for odd j >= 3 (p_j at Y[j-1],
   * Y[j]), continuing the carry; X += m p_j for even j >= 4, continuing the
   * carry, which ends in X[N] */
  static CZ_HD void mp_odd_from3(carry_chain &c, uint32_t (&Y)[N], uint32_t m) {
#pragma unroll
    for (int j = 3; j < N - 1; j += 2) {
      Y[j - 1] = c.madc_lo_cc(m, C::p()[j], Y[j - 1]);
      Y[j] = c.madc_hi_cc(m, C::p()[j], Y[j]);
    }
    Y[N - 2] = c.madc_lo_cc(m, C::p()[N - 1], Y[N - 2]);
    Y[N - 1] = c.madc_hi(m, C::p()[N - 1], Y[N - 1]);
  }
  /* X += m p_j for even j >= 2 as a fresh chain (add_mp_p1: X[0..1] are
   * settled by then) */
  static CZ_HD void mp_even_from2(carry_chain &c, uint32_t (&X)[N + 1], uint32_t m) {
    X[2] = c.mad_lo_cc(m, C::p()[2], X[2]);
    X[3] = c.madc_hi_cc(m, C::p()[2], X[3]);
    mp_even_from4(c, X, m);
  }
  static CZ_HD void mp_even_from4(carry_chain &c, uint32_t (&X)[N + 1], uint32_t m) {
#pragma unroll
    for (int j = 4; j < N; j += 2) {
      X[j] = c.madc_lo_cc(m, C::p()[j], X[j]);
      X[j + 1] = c.madc_hi_cc(m, C::p()[j], X[j + 1]);
    }
    X[N] = c.addc(X[N], 0);
  }

  /* mul_eo's and redc_wide's pieces, on t = X + 2^32 Y + z (see mul_eo).
   * add_mp_even: X += m p_even (pairs (j, j+1), j even; X[0] becomes 0,
   * its carry goes on), the chain's carry into X[N]. */
  static CZ_HD void add_mp_even(carry_chain &c, uint32_t (&X)[N + 1], uint32_t m) {
    (void)c.mad_lo_cc(m, C::p()[0], X[0]); /* = 0; only its carry matters */
    X[1] = c.madc_hi_cc(m, C::p()[0], X[1]);
    X[2] = c.madc_lo_cc(m, C::p()[2], X[2]);
    X[3] = c.madc_hi_cc(m, C::p()[2], X[3]);
    mp_even_from4(c, X, m);
  }
  /* Y += m p_odd (p_j at Y[j-1], Y[j]); carry_in: the chain takes the
   * carry left by the instruction before it (z added to X[0]) */
  static CZ_HD void add_mp_odd(carry_chain &c, uint32_t (&Y)[N], uint32_t m, bool carry_in) {
    if (carry_in)
      Y[0] = c.madc_lo_cc(m, C::p()[1], Y[0]);
    else
      Y[0] = c.mad_lo_cc(m, C::p()[1], Y[0]);
    Y[1] = c.madc_hi_cc(m, C::p()[1], Y[1]);
    mp_odd_from3(c, Y, m);
  }
  /* t >>= 32 once X[0] is 0: X <- Y, Y <- X[2..N], z <- X[1] (renamings) */
  static CZ_HD void shift_word(uint32_t (&X)[N + 1], uint32_t (&Y)[N], uint32_t &z) {
    z = X[1];
    uint32_t nx[N];
#pragma unroll
    for (int k = 0; k < N; k++) nx[k] = Y[k];
#pragma unroll
    for (int k = 0; k + 2 <= N; k++) Y[k] = X[k + 2];
    Y[N - 1] = 0;
#pragma unroll
    for (int k = 0; k < N; k++) X[k] = nx[k];
    X[N] = 0;
  }
  /* r = X + z + 2^32 Y, N words (the caller knows it fits) */
  static CZ_HD void fold(carry_chain &c, const uint32_t (&X)[N + 1], const uint32_t (&Y)[N],
                         uint32_t z, uint32_t (&r)[N]) {
    r[0] = c.add_cc(X[0], z);
#pragma unroll
    for (int k = 1; k < N - 1; k++) r[k] = c.addc_cc(X[k], Y[k - 1]);
    r[N - 1] = c.addc(X[N - 1], Y[N - 2]);
  }

  /* a * a * R^-1 mod p, by mul: a dedicated squaring, faster alone, is a
   * second out-of-line body in the MSM's accumulation loop, which then
   * thrashes the instruction cache (bench/RESULTS.md, "Two more tries"). */
  static CZ_HD mont sqr(const mont &a) { return mul(a, a); }

  /* ---- lazily reduced products (fp2::mul_lazy, mul_sub) ----
   *
   * wide_mul: T = a b as a 2N-word integer (no reduction).  Pair-aligned as
   * mul_eo: products with i + j even go to E (words i + j, i + j + 1),
   * those with i + j odd to O (O[k] is word k + 1); row i's chains carry
   * through the words above them that earlier rows wrote and end in a new
   * top word, E's N (row 0) or N + i + 1, O's N + i (none past the end:
   * E < 2^(64N) and O < 2^(64N-32), so those carries are 0).  Then
   * T = E + 2^32 O. */
  static CZ_HD void wide_mul(const mont &x, const mont &y, uint32_t (&T)[2 * N]) {
    const uint32_t *a = x.l, *b = y.l;
    uint32_t O[2 * N - 1];
#pragma unroll
    for (int k = 0; k < 2 * N; k++) T[k] = 0;
#pragma unroll
    for (int k = 0; k < 2 * N - 1; k++) O[k] = 0;
    carry_chain c;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const int odd = i & 1;
      /* E: j = odd, odd + 2, ...: pair T[i+j], T[i+j+1] */
#pragma unroll
      for (int j = 0; j < N; j++) {
        if ((i + j) & 1)
          continue;
        if (j == odd) {
          T[i + j] = c.mad_lo_cc(a[i], b[j], T[i + j]);
        } else {
          T[i + j] = c.madc_lo_cc(a[i], b[j], T[i + j]);
        }
        T[i + j + 1] = c.madc_hi_cc(a[i], b[j], T[i + j + 1]);
      }
      {
        const int he = i + N - 1 + odd, te = i == 0 ? N : N + i + 1;
#pragma unroll
        for (int k = 0; k < 2 * N; k++)
          if (k > he && k < te)
            T[k] = c.addc_cc(T[k], 0);
        if (te < 2 * N)
          T[te] = c.addc(T[te], 0);
      }
      /* O: j = 1 - odd, 3 - odd, ...: pair O[i+j-1], O[i+j] */
#pragma unroll
      for (int j = 0; j < N; j++) {
        if (!((i + j) & 1))
          continue;
        if (j == 1 - odd) {
          O[i + j - 1] = c.mad_lo_cc(a[i], b[j], O[i + j - 1]);
        } else {
          O[i + j - 1] = c.madc_lo_cc(a[i], b[j], O[i + j - 1]);
        }
        O[i + j] = c.madc_hi_cc(a[i], b[j], O[i + j]);
      }
      {
        const int ho = i + N - 1 - odd, to = N + i;
#pragma unroll
        for (int k = 0; k < 2 * N - 1; k++)
          if (k > ho && k < to)
            O[k] = c.addc_cc(O[k], 0);
        if (to < 2 * N - 1)
          O[to] = c.addc(O[to], 0);
      }
    }
    T[1] = c.add_cc(T[1], O[0]);
#pragma unroll
    for (int k = 2; k < 2 * N - 1; k++) T[k] = c.addc_cc(T[k], O[k - 1]);
    T[2 * N - 1] = c.addc(T[2 * N - 1], O[2 * N - 2]);
  }

  /* T R^-1 mod p for T < p R (Montgomery reduction of a 2N-word value):
   * t = (T_lo + M p) / R by N rounds of mul_eo's reduction half (t = X +
   * 2^32 Y + z), then t + T_hi.  (T_lo + M p) / R < 1 + p, so t <= p, and
   * T_hi < p: the sum is below 2p, one conditional subtraction. */
  static CZ_HD mont redc_wide(const uint32_t (&T)[2 * N]) {
    uint32_t X[N + 1], Y[N], z = 0;
#pragma unroll
    for (int k = 0; k < N; k++) X[k] = T[k], Y[k] = 0;
    X[N] = 0;
    carry_chain c;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint32_t m = (X[0] + z) * C::n0;
      if (i)
        X[0] = c.add_cc(X[0], z); /* carry to position 1: Y[0] */
      add_mp_odd(c, Y, m, i != 0);
      add_mp_even(c, X, m);
      shift_word(X, Y, z);
    }
    uint32_t r[N];
    fold(c, X, Y, z, r);
    r[0] = c.add_cc(r[0], T[N]);
#pragma unroll
    for (int k = 1; k < N - 1; k++) r[k] = c.addc_cc(r[k], T[N + k]);
    r[N - 1] = c.addc(r[N - 1], T[2 * N - 1]);
    return reduce_once(r);
  }

  /* a b R^-1 through the lazily reduced path: redc_wide(wide_mul(a, b));
   * equal to mul (the field tests check it; fp2::mul_lazy builds on the
   * two halves) */
  static CZ_HD mont mul_lazy(const mont &a, const mont &b) {
    uint32_t t[2 * N];
    wide_mul(a, b, t);
    return redc_wide(t);
  }

  /* (a b - c d) R^-1 mod p with one reduction instead of two: T = a b - c d
   * on 2N words, + p R (p into the high half) when it borrowed, then
   * redc_wide.  Its input is below p R: a b - c d < p^2 < p R when
   * non-negative, and in (p R - p^2, p R) when p R was added.  Used for
   * the Y3 = R (Q - X3) - Y1 PPP of ec.cuh's XYZZ formulas: 9.5 instead of
   * 10 multiplications' work per mixed addition.  On the device, where mul
   * is out of line, so is this (mul_sub_call): called once per addition,
   * this second body pays where a dedicated squaring did not (see sqr;
   * bench/RESULTS.md, "One lazily reduced product in the XYZZ formulas"). */
  static CZ_HD mont mul_sub(const mont &a, const mont &b, const mont &c, const mont &d) {
#ifdef __CUDA_ARCH__
    if constexpr (N >= call_limbs)
      return mul_sub_call(a, b, c, d);
#endif
    return mul_sub_lazy(a, b, c, d);
  }
#ifdef __CUDA_ARCH__
  static __device__ __noinline__ mont mul_sub_call(const mont a, const mont b, const mont c,
                                                   const mont d) {
    return mul_sub_lazy(a, b, c, d);
  }
#endif
  static CZ_HD mont mul_sub_lazy(const mont &a, const mont &b, const mont &c, const mont &d) {
    uint32_t t0[2 * N], t1[2 * N];
    wide_mul(a, b, t0);
    wide_mul(c, d, t1);
    add_p_r(t0, sub_wide(t0, t1));
    return redc_wide(t0);
  }

  /* a -= b on 2N-word integers; all ones when it borrowed (a < b), else 0 */
  static CZ_HD uint32_t sub_wide(uint32_t (&a)[2 * N], const uint32_t (&b)[2 * N]) {
    carry_chain c;
    a[0] = c.sub_cc(a[0], b[0]);
#pragma unroll
    for (int k = 1; k < 2 * N; k++) a[k] = c.subc_cc(a[k], b[k]);
    return c.subc(0, 0);
  }
  /* t += p R (p into the high half) where mask is all ones: a 2N-word
   * difference that borrowed (sub_wide's mask) brought back into [0, p R) */
  static CZ_HD void add_p_r(uint32_t (&t)[2 * N], uint32_t mask) {
    carry_chain c;
    t[N] = c.add_cc(t[N], C::p()[0] & mask);
#pragma unroll
    for (int k = 1; k < N - 1; k++) t[N + k] = c.addc_cc(t[N + k], C::p()[k] & mask);
    t[2 * N - 1] = c.addc(t[2 * N - 1], C::p()[N - 1] & mask);
  }

  /* a + b < 2p as N words, not reduced (p < 2^(32N-1): no carry out) */
  static CZ_HD mont add_raw(const mont &a, const mont &b) {
    carry_chain c;
    mont r;
    r.l[0] = c.add_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.l[i] = c.addc_cc(a.l[i], b.l[i]);
    r.l[N - 1] = c.addc(a.l[N - 1], b.l[N - 1]);
    return r;
  }

  /* Conversions.  from_canon: x (canonical limbs, x < p) -> x*R mod p, a
   * multiplication by R^2.  to_canon: a -> a*R^-1, a multiplication by 1. */
  static CZ_HD mont from_canon(const mont &x) {
    mont r2;
#pragma unroll
    for (int i = 0; i < N; i++) r2.l[i] = C::r2()[i];
    return mul(x, r2);
  }
  static CZ_HD mont to_canon(const mont &a) {
    mont one = zero();
    one.l[0] = 1;
    return mul(a, one);
  }
};

#endif
