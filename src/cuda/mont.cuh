/* Device Montgomery arithmetic on N 32-bit limbs, the modulus a parameter.
 *
 * DESIGN: one template, `mont<C>`, serves every prime field; a field is a
 * configuration type C (N, the modulus, R mod p, R^2 mod p, n0) that
 * CZ_FIELD_CONFIG builds from the 64-bit constants of a generated
 * ff/consts_*.h header -- the same header, and so the same numbers, as the
 * host code (STYLE.md habit 3).  BLS12-381 Fp and Fr are two lines in
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
 * IMAD.WIDE.U32.X (both halves, carry in and out).  Measured on the H200
 * (bench/RESULTS.md, "GPU field arithmetic"): this code 23.4e9 Fp mul/s,
 * 83% of the IMAD-bound ceiling of PERF.md (588 IMAD each, 28.2e9/s); the
 * same CIOS on 64-bit limbs with 128-bit accumulation 17.2e9/s.  One chain
 * per thread is fastest (2 and 4 independent chains per thread: -2%, -8%):
 * occupancy alone hides the carry-chain latency.
 *
 * Every routine is __host__ __device__: on the host the carry chains of
 * ptx.cuh are emulated, which lets CI check the exact device algorithm
 * against src/ff without a GPU.
 *
 * Costs (PTX instructions, N limbs): add/sub about 3N, mul 4N^2 + 6N
 * (N=12: 648), sqr = mul for now (a dedicated squaring saves about
 * N^2/2 - N/2 of the 2N^2 product terms; left for when MSM needs it). */
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
  static CZ_HD bool is_zero(const mont &a) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= a.l[i];
    return acc == 0;
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

  /* a + b mod p.  a + b < 2p < 2^(32N): the sum needs no carry word. */
  static CZ_HD mont add(const mont &a, const mont &b) {
    carry_chain c;
    uint32_t t[N];
    t[0] = c.add_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) t[i] = c.addc_cc(a.l[i], b.l[i]);
    t[N - 1] = c.addc(a.l[N - 1], b.l[N - 1]);
    return reduce_once(t);
  }
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

  /* a * b * R^-1 mod p: CIOS (coarsely integrated operand scanning), one
   * word of b per iteration, on an (N+1)-word accumulator t:
   *
   *   t += a * b[i]      two carry chains: the products of the even limbs
   *                      of a (lo to word j, hi to word j+1) cover words
   *                      0..N-1, those of the odd limbs words 1..N, so
   *                      within a chain no two terms land on one word
   *   m  = t[0] * n0     makes t + m*p divisible by 2^32
   *   t += m * p         the same two chains over p
   *   t >>= 32           renaming only: the loops are unrolled
   *
   * Bounds (p < 2^(32N-1)): t < 2p at the top of each iteration; after
   * t += a*b[i], t < p(2^32 + 1); after t += m*p, t < p*2^33 < 2^(32N+32).
   * So N+1 words hold t throughout and no chain carries out of word N.
   * At the end t < 2p, and one conditional subtraction reduces it.
   * Cost: 4N^2 multiply-adds (2N^2 products, lo and hi), 3N carry words,
   * N m's, and the final 2N: N=12 (Fp) 648, N=8 (Fr) 304. */
  static CZ_HD mont mul(const mont &x, const mont &y) {
    const uint32_t *a = x.l, *b = y.l;
    uint32_t t[N + 1];
    carry_chain c;
#pragma unroll
    for (int i = 0; i < N; i++) {
      const uint32_t bi = b[i];
      /* t[0..N-1] += a_even * bi, carry into t[N] */
      if (i == 0) {
        /* t is zero: the even products do not overlap, no carries; one
         * 64-bit product each (IMAD.WIDE.U32) */
#pragma unroll
        for (int j = 0; j < N; j += 2) {
          const uint64_t pr = (uint64_t)a[j] * bi;
          t[j] = (uint32_t)pr;
          t[j + 1] = (uint32_t)(pr >> 32);
        }
        t[N] = 0;
      } else {
        t[0] = c.mad_lo_cc(a[0], bi, t[0]);
        t[1] = c.madc_hi_cc(a[0], bi, t[1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
          t[j] = c.madc_lo_cc(a[j], bi, t[j]);
          t[j + 1] = c.madc_hi_cc(a[j], bi, t[j + 1]);
        }
        t[N] = c.addc(0, 0); /* t[N] was shifted out: it is the carry alone */
      }
      /* t[1..N] += a_odd * bi */
      t[1] = c.mad_lo_cc(a[1], bi, t[1]);
      t[2] = c.madc_hi_cc(a[1], bi, t[2]);
#pragma unroll
      for (int j = 3; j < N - 1; j += 2) {
        t[j] = c.madc_lo_cc(a[j], bi, t[j]);
        t[j + 1] = c.madc_hi_cc(a[j], bi, t[j + 1]);
      }
      t[N - 1] = c.madc_lo_cc(a[N - 1], bi, t[N - 1]);
      t[N] = c.madc_hi(a[N - 1], bi, t[N]);

      /* t += m * p, m chosen so that the low word becomes zero */
      const uint32_t m = t[0] * C::n0;
      (void)c.mad_lo_cc(m, C::p()[0], t[0]); /* = 0; only its carry matters */
      t[1] = c.madc_hi_cc(m, C::p()[0], t[1]);
#pragma unroll
      for (int j = 2; j < N; j += 2) {
        t[j] = c.madc_lo_cc(m, C::p()[j], t[j]);
        t[j + 1] = c.madc_hi_cc(m, C::p()[j], t[j + 1]);
      }
      t[N] = c.addc(t[N], 0);
      t[1] = c.mad_lo_cc(m, C::p()[1], t[1]);
      t[2] = c.madc_hi_cc(m, C::p()[1], t[2]);
#pragma unroll
      for (int j = 3; j < N - 1; j += 2) {
        t[j] = c.madc_lo_cc(m, C::p()[j], t[j]);
        t[j + 1] = c.madc_hi_cc(m, C::p()[j], t[j + 1]);
      }
      t[N - 1] = c.madc_lo_cc(m, C::p()[N - 1], t[N - 1]);
      t[N] = c.madc_hi(m, C::p()[N - 1], t[N]);

      /* t >>= 32 */
#pragma unroll
      for (int j = 0; j < N; j++) t[j] = t[j + 1];
    }
    uint32_t lo[N];
#pragma unroll
    for (int j = 0; j < N; j++) lo[j] = t[j];
    return reduce_once(lo);
  }

  static CZ_HD mont sqr(const mont &a) { return mul(a, a); }

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
