/* Montgomery arithmetic on MONT_N 64-bit limbs, modulus as a parameter.
 *
 * Instantiated by mont.h for 4 limbs (mont256_*) and 6 limbs (mont384_*).
 * Inputs and outputs are fully reduced (< p).  All moduli used here leave the
 * top bit of the top limb clear (BLS12-381 p: 381 bits, r: 255; BN254: 254),
 * which the add/sub/mul below rely on: a + b < 2^(64N) never overflows.
 *
 * Costs (N limbs): add/sub N+N adc, mul 2N^2 64x64 multiplies (CIOS),
 * mul_wide N^2, redc N^2. */

#define MONT_CAT2(a, b) a##b
#define MONT_CAT(a, b) MONT_CAT2(a, b)
#define MONT_FN(name) MONT_CAT(MONT_PREFIX, name)

typedef unsigned __int128 mont_u128;

/* r = a - p if a >= p (a < 2p). */
static inline void MONT_FN(reduce_once)(limb_t *r, const limb_t *a, const limb_t *p) {
  limb_t t[MONT_N];
  limb_t borrow = 0;
  for (int i = 0; i < MONT_N; i++) {
    mont_u128 d = (mont_u128)a[i] - p[i] - borrow;
    t[i] = (limb_t)d;
    borrow = (limb_t)(d >> 64) & 1;
  }
  /* borrow = 1: a < p, keep a. */
  limb_t mask = (limb_t)0 - borrow;
  for (int i = 0; i < MONT_N; i++) r[i] = (a[i] & mask) | (t[i] & ~mask);
}

/* r = a + b mod p.  (mont.h binds MONT_FN(add) to this or to assembly.) */
static inline void MONT_FN(add_ref)(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  limb_t t[MONT_N];
  limb_t carry = 0;
  for (int i = 0; i < MONT_N; i++) {
    mont_u128 s = (mont_u128)a[i] + b[i] + carry;
    t[i] = (limb_t)s;
    carry = (limb_t)(s >> 64);
  }
  MONT_FN(reduce_once)(r, t, p);
}

/* r = a - b mod p.  (Likewise bound to MONT_FN(sub) by mont.h.) */
static inline void MONT_FN(sub_ref)(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  limb_t t[MONT_N];
  limb_t borrow = 0;
  for (int i = 0; i < MONT_N; i++) {
    mont_u128 d = (mont_u128)a[i] - b[i] - borrow;
    t[i] = (limb_t)d;
    borrow = (limb_t)(d >> 64) & 1;
  }
  /* On borrow add p back. */
  limb_t mask = (limb_t)0 - borrow, carry = 0;
  for (int i = 0; i < MONT_N; i++) {
    mont_u128 s = (mont_u128)t[i] + (p[i] & mask) + carry;
    r[i] = (limb_t)s;
    carry = (limb_t)(s >> 64);
  }
}

/* r = -a mod p (0 stays 0). */
static inline void MONT_FN(neg)(limb_t *r, const limb_t *a, const limb_t *p) {
  limb_t nz = 0;
  for (int i = 0; i < MONT_N; i++) nz |= a[i];
  limb_t mask = nz ? ~(limb_t)0 : 0, borrow = 0;
  for (int i = 0; i < MONT_N; i++) {
    mont_u128 d = (mont_u128)p[i] - a[i] - borrow;
    r[i] = (limb_t)d & mask;
    borrow = (limb_t)(d >> 64) & 1;
  }
}

/* r = a * b * 2^(-64N) mod p, CIOS.  n0 = -p^-1 mod 2^64.
 * t holds N+1 limbs; with p < 2^(64N-1) the running value stays < 2p.
 * The portable reference: mont.h binds MONT_FN(mul) to this or to the
 * assembly in mont_x86.h, and tests/unit/test_mont.c compares the two. */
static inline void MONT_FN(mul_ref)(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                                limb_t n0) {
  limb_t t[MONT_N + 1] = {0};
  for (int i = 0; i < MONT_N; i++) {
    /* t += a * b[i] */
    mont_u128 c = 0;
    for (int j = 0; j < MONT_N; j++) {
      c += (mont_u128)a[j] * b[i] + t[j];
      t[j] = (limb_t)c;
      c >>= 64;
    }
    limb_t hi = t[MONT_N] + (limb_t)c; /* cannot overflow: t < 2p*2^64 */
    /* t = (t + m*p) / 2^64 with m making the low limb zero */
    limb_t m = t[0] * n0;
    c = (mont_u128)m * p[0] + t[0];
    c >>= 64;
    for (int j = 1; j < MONT_N; j++) {
      c += (mont_u128)m * p[j] + t[j];
      t[j - 1] = (limb_t)c;
      c >>= 64;
    }
    c += hi;
    t[MONT_N - 1] = (limb_t)c;
    t[MONT_N] = (limb_t)(c >> 64);
  }
  MONT_FN(reduce_once)(r, t, p);
}

/* r = a^2 * 2^(-64N) mod p: the reference is the multiplication itself. */
static inline void MONT_FN(sqr_ref)(limb_t *r, const limb_t *a, const limb_t *p, limb_t n0) {
  MONT_FN(mul_ref)(r, a, a, p, n0);
}

/* r = a*b, the full 2N-limb product, no reduction.  r must not overlap a
 * or b.  The reference for mont384_mul_wide (lazy reduction). */
static inline void MONT_FN(mul_wide_ref)(limb_t *r, const limb_t *a, const limb_t *b) {
  limb_t t[2 * MONT_N] = {0};
  for (int i = 0; i < MONT_N; i++) {
    mont_u128 c = 0;
    for (int j = 0; j < MONT_N; j++) {
      c += (mont_u128)a[j] * b[i] + t[i + j];
      t[i + j] = (limb_t)c;
      c >>= 64;
    }
    t[i + MONT_N] = (limb_t)c;
  }
  memcpy(r, t, sizeof t);
}

/* r = t / 2^(64N) mod p for a 2N-limb t < p 2^(64N): Montgomery reduction
 * word by word, each step's carry run to the top.  (t + M p) / 2^(64N) <
 * 2p, so one conditional subtraction finishes.  The reference for
 * mont384_redc. */
static inline void MONT_FN(redc_ref)(limb_t *r, const limb_t *t, const limb_t *p, limb_t n0) {
  limb_t x[2 * MONT_N + 1];
  memcpy(x, t, 2 * MONT_N * sizeof(limb_t));
  x[2 * MONT_N] = 0;
  for (int i = 0; i < MONT_N; i++) {
    limb_t m = x[i] * n0;
    mont_u128 c = 0;
    for (int j = 0; j < MONT_N; j++) {
      c += (mont_u128)m * p[j] + x[i + j];
      x[i + j] = (limb_t)c;
      c >>= 64;
    }
    for (int j = i + MONT_N; c && j <= 2 * MONT_N; j++) {
      c += x[j];
      x[j] = (limb_t)c;
      c >>= 64;
    }
  }
  MONT_FN(reduce_once)(r, x + MONT_N, p); /* x[2N] = 0: the value is < 2p */
}

/* r = a*b in Fp2 = F[u]/(u^2 + 1) on 2N-limb pairs x = x[0..N) + x[N..2N) u,
 * inputs and output reduced, r may alias a or b.  The reference for
 * mont384_fp2_mul: the plain formula over mul_ref, add_ref, sub_ref,
 *   (a0 + a1 u)(b0 + b1 u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u.  3M */
static inline void MONT_FN(fp2_mul_ref)(limb_t *r, const limb_t *a, const limb_t *b,
                                        const limb_t *p, limb_t n0) {
  limb_t t0[MONT_N], t1[MONT_N], s0[MONT_N], s1[MONT_N];
  MONT_FN(mul_ref)(t0, a, b, p, n0);
  MONT_FN(mul_ref)(t1, a + MONT_N, b + MONT_N, p, n0);
  MONT_FN(add_ref)(s0, a, a + MONT_N, p);
  MONT_FN(add_ref)(s1, b, b + MONT_N, p);
  MONT_FN(mul_ref)(s0, s0, s1, p, n0);
  MONT_FN(sub_ref)(r, t0, t1, p);
  MONT_FN(sub_ref)(s0, s0, t0, p);
  MONT_FN(sub_ref)(r + MONT_N, s0, t1, p);
}

static inline int MONT_FN(is_zero)(const limb_t *a) {
  limb_t acc = 0;
  for (int i = 0; i < MONT_N; i++) acc |= a[i];
  return acc == 0;
}

static inline int MONT_FN(eq)(const limb_t *a, const limb_t *b) {
  limb_t acc = 0;
  for (int i = 0; i < MONT_N; i++) acc |= a[i] ^ b[i];
  return acc == 0;
}

#undef MONT_FN
#undef MONT_CAT
#undef MONT_CAT2
