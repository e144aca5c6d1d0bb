/* Four-lane Montgomery arithmetic in AVX2 doubles (see fp_x4.h for the
 * representation and the bounds).
 *
 * DESIGN
 *
 * Exact limb products with two FMAs.  For integer doubles a, b with
 * |a b| < 2^99 and C = 3 * 2^99, C + a b lies in [2^100, 2^101), where a
 * double's unit in the last place is 2^48, so
 *     hi = fma(a, b, C)                 = C + H, H = a b rounded to 2^48
 *     lo = fma(a, b, (C + L) - hi)      = L + (a b - H), L = 3 * 2^51
 * are both exact: a b - H is in [-2^47, 2^47] (round to nearest), and
 * L + that lies in [2^52, 2^53), where the unit is 1.  Within one binade
 * the bit pattern of a double is an integer linear in its value, so
 *     bits(hi) - bits(C) = H / 2^48,    bits(lo) - bits(L) = a b - H,
 * and a column of the product is summed with 64-bit integer additions of
 * the raw bits; the bits(C) and bits(L) of every term are subtracted once,
 * folded into the column's start value (mul_init, sqr_init: the number of
 * high and low terms per column is fixed).  One limb product is thus
 * 2 FMA + 1 FP subtraction + 2 integer additions on four lanes.
 *
 * Montgomery reduction by product scanning (FIPS), one column at a time:
 * column k collects a_i b_j (i + j = k, low halves; i + j = k - 1, high
 * halves), q_i p_j likewise for the q already known, and the carry of
 * column k - 1.  For k < 8 the column then fixes
 *     q_k = t_k n' mod 2^48, n' = -p^-1,   signed in [-2^47, 2^47]
 * (the same FMA split on t_k mod 2^48 and n'), adds q_k p_0, which clears
 * its low 48 bits, and carries t_k / 2^48 on.  Columns 8..15 are the
 * result, normalised as they complete.  Signed q and signed limbs are
 * fine: the split works for |a b| < 2^99 of either sign, and the result is
 * (a b + q p) / 2^384 with |q| < 2^383, so |r| < |a||b|/2^384 + p/2.
 *
 * Carries in 64-bit lanes without an arithmetic shift (AVX2 has none for
 * 64 bits): every column is kept at 2^62 + its true value, which stays
 * positive (the true values are below 2^57), and its carry, taken with a
 * logical shift, is 2^14 too large; the next column's start value is
 * 2^14 lower.  The raw-bit sums wrap modulo 2^64; only the final value
 * matters.
 *
 * Costs are measured by bench/bench_fp_x4.c; its header has the numbers. */
#include "ff/fp_x4.h"

#include <math.h>

#include "ff/mont.h"

#define X4_MASK48 ((UINT64_C(1) << 48) - 1)

/* ---- scalar helpers: slicing, exact values, canonical residues ---- */

/* l = the 48-bit digits of the 6-limb value w. */
static void x4_slice(uint64_t l[8], const limb_t w[6]) {
  l[0] = w[0] & X4_MASK48;
  l[1] = (w[0] >> 48 | w[1] << 16) & X4_MASK48;
  l[2] = (w[1] >> 32 | w[2] << 32) & X4_MASK48;
  l[3] = w[2] >> 16;
  l[4] = w[3] & X4_MASK48;
  l[5] = (w[3] >> 48 | w[4] << 16) & X4_MASK48;
  l[6] = (w[4] >> 32 | w[5] << 32) & X4_MASK48;
  l[7] = w[5] >> 16;
}

/* w (7 words, two's complement) = sum_k l[k] 2^(48k) for integer doubles
 * |l[k]| < 2^53. */
static void x4_lane_value(uint64_t w[7], const fp_x4 *a, unsigned j) {
  uint64_t d[8];
  int64_t carry = 0;
  for (int k = 0; k < 8; k++) {
    int64_t t = (int64_t)a->l[k][j] + carry;
    d[k] = (uint64_t)t & X4_MASK48;
    carry = t >> 48; /* arithmetic: gcc and clang on x86-64 */
  }
  /* v = sum d[k] 2^(48k) + carry 2^384 */
  w[0] = d[0] | d[1] << 48;
  w[1] = d[1] >> 16 | d[2] << 32;
  w[2] = d[2] >> 32 | d[3] << 16;
  w[3] = d[4] | d[5] << 48;
  w[4] = d[5] >> 16 | d[6] << 32;
  w[5] = d[6] >> 32 | d[7] << 16;
  w[6] = (uint64_t)carry;
}

/* w += k p (7 words, two's complement, p of 6). */
static void x4_add_kp(uint64_t w[7], int64_t k, const limb_t p[6]) {
  __int128 c = 0;
  for (int i = 0; i < 7; i++) {
    __int128 s = (__int128)w[i] + c + (i < 6 ? (__int128)k * (__int128)p[i] : 0);
    w[i] = (uint64_t)s;
    c = s >> 64;
  }
}

/* r = w mod p, for |w| < 2^400 (7 words, two's complement). */
static void x4_canon(limb_t r[6], uint64_t w[7], const fp_x4_mod *m) {
  double v = ldexp((double)(int64_t)w[6], 384) + ldexp((double)w[5], 320) +
             ldexp((double)w[4], 256);
  int64_t k = (int64_t)floor(v / m->pd);
  if (k)
    x4_add_kp(w, -k, m->p64);
  while ((int64_t)w[6] < 0) x4_add_kp(w, 1, m->p64);
  while (w[6] != 0 || !limbs_lt(w, m->p64, 6)) x4_add_kp(w, -1, m->p64);
  memcpy(r, w, 6 * sizeof(limb_t));
}

void fp_x4_lane_to_mont(limb_t r[6], const fp_x4 *a, unsigned j, const fp_x4_mod *m) {
  uint64_t w[7];
  x4_lane_value(w, a, j);
  x4_canon(r, w, m);
}

void fp_x4_lane_from_mont(fp_x4 *r, unsigned j, const limb_t a[6]) {
  uint64_t l[8];
  x4_slice(l, a);
  for (int k = 0; k < 8; k++) r->l[k][j] = (double)l[k];
}

void fp_x4_to_mont(limb_t *const r[4], const fp_x4 *a, const fp_x4_mod *m) {
  for (unsigned j = 0; j < 4; j++) fp_x4_lane_to_mont(r[j], a, j, m);
}

/* ---- the modulus ---- */

/* Number of limb products (i, j), 0 <= i, j < 8, with i + j = k; for the
 * squaring, of pairs i <= j. */
static int x4_terms(int k, int sqr) {
  int n = 0;
  for (int i = 0; i < 8; i++)
    for (int j = sqr ? i : 0; j < 8; j++) n += i + j == k;
  return n;
}

static uint64_t x4_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

#define X4_C 0x1.8p+100  /* 3 * 2^99: hi = fma(a, b, C) */
#define X4_C2 (0x1.8p+100 + 0x1.8p+52) /* C + L, exact */
#define X4_L 0x1.8p+52   /* 3 * 2^51: lo lands in [2^52, 2^53) */
#define X4_BIAS (UINT64_C(1) << 62)
#define X4_CARRY_BIAS (UINT64_C(1) << 14) /* X4_BIAS >> 48 */

void fp_x4_mod_init(fp_x4_mod *m, const limb_t p[6], limb_t n0) {
  memset(m, 0, sizeof *m);
  memcpy(m->p64, p, sizeof m->p64);
  m->n0 = n0;
  uint64_t l[8];
  x4_slice(l, p);
  m->pd = 0;
  for (int k = 7; k >= 0; k--) m->pd = m->pd * 0x1p48 + (double)l[k];
  for (int j = 0; j < 4; j++) {
    for (int k = 0; k < 8; k++) m->p[k][j] = (double)l[k];
    m->n48[j] = (double)(n0 & X4_MASK48);
    m->rp[j] = 0x1p336 / m->pd;
  }
  /* Column k of a*b + q p receives lo terms from the products of column k
   * and hi terms from those of column k - 1, from both halves. */
  for (int sqr = 0; sqr < 2; sqr++) {
    for (int k = 0; k < 16; k++) {
      uint64_t nlo = (uint64_t)(x4_terms(k, sqr) + x4_terms(k, 0));
      uint64_t nhi = k ? (uint64_t)(x4_terms(k - 1, sqr) + x4_terms(k - 1, 0)) : 0;
      uint64_t v = X4_BIAS - nlo * x4_bits(X4_L) - nhi * x4_bits(X4_C);
      if (k)
        v -= X4_CARRY_BIAS;
      if (k == 15)
        v += x4_bits(X4_L) - X4_BIAS; /* the top limb is read as L + value */
      for (int j = 0; j < 4; j++) (sqr ? m->sqr_init : m->mul_init)[k][j] = v;
    }
  }
}

/* ---- references: one lane at a time through mont384_mul ---- */

void fp_x4_mul_ref(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, const fp_x4_mod *m) {
  limb_t x[4][6], y[4][6];
  for (unsigned j = 0; j < 4; j++) {
    fp_x4_lane_to_mont(x[j], a, j, m);
    fp_x4_lane_to_mont(y[j], b, j, m);
  }
  for (unsigned j = 0; j < 4; j++) {
    mont384_mul(x[j], x[j], y[j], m->p64, m->n0);
    fp_x4_lane_from_mont(r, j, x[j]);
  }
}

void fp_x4_sqr_ref(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m) {
  fp_x4_mul_ref(r, a, a, m);
}

#if defined(FP_X4_AVX2)

#include <immintrin.h>

typedef __m256d vd;
typedef __m256i vi;

#define X4_AI __attribute__((always_inline)) static inline

int fp_x4_accelerated(void) { return 1; }

/* lo += bits of the low part of x*y, hi += bits of its high part; x and y
 * are read from memory.  In asm so that the compiler neither keeps all the
 * operands live in registers (gcc 12 did, and spilled: 1900 instructions
 * per 4-lane multiplication, 310 cycles per lane; clang 14: 1300) nor
 * reorders: the core does that.  Loading x twice measured as fast as
 * loading it once and copying C (the ymm move is not free on Zen 1) and
 * faster (209 against 220 cycles per lane) than loading x and y once each
 * into registers. */
X4_AI void x4_prod(const double *x, const double *y, vi *lo, vi *hi, vd c, vd c2) {
  vd h, l, t;
  __asm__("vmovapd %[x], %[h]\n\t"
          "vfmadd132pd %[y], %[c], %[h]\n\t"  /* h = x y + C */
          "vsubpd %[h], %[c2], %[l]\n\t"      /* l = C + L - h */
          "vmovapd %[x], %[t]\n\t"
          "vfmadd231pd %[y], %[t], %[l]\n\t"  /* l = x y + l */
          "vpaddq %[h], %[hi], %[hi]\n\t"
          "vpaddq %[l], %[lo], %[lo]"
          : [h] "=&x"(h), [l] "=&x"(l), [t] "=&x"(t), [hi] "+x"(*hi), [lo] "+x"(*lo)
          : [x] "m"(*(const vd *)x), [y] "m"(*(const vd *)y), [c] "x"(c), [c2] "x"(c2));
}

/* A 48-bit non-negative integer in a 64-bit lane, as a double. */
X4_AI vd x4_u48_to_pd(vi x) {
  const vd two52 = _mm256_set1_pd(0x1p52);
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, _mm256_castpd_si256(two52))),
                       two52);
}

/* ---- hybrid: scalar mulx/adx products inside the vector instruction stream ----
 *
 * The vector products keep Zen 1's FP pipes busy and leave the integer
 * multiplier idle; mont384_mul is the opposite.  x4_mont can therefore
 * carry k scalar CIOS multiplications (rows of mont_x86.c's algorithm, 13
 * pieces each: 6 times a*b_i then a reduction step, and the final
 * subtraction) spread evenly between its 136 vector products, so that
 * the core overlaps them.  Each piece is one asm statement (carry flags
 * never cross statements); its accumulators t0..t6 stay in C variables,
 * which the compiler keeps in registers.  Bounds as in mont_x86.c
 * (p < 2^383: t < 2p between rows, no eighth limb).
 * Measured per product, k = 6 or 8, against mont384_mul alone: 54 against
 * 67 ns at best (quiet minutes), a median ratio of 0.95 over 2000 paired
 * rounds at other times.  The fused code is large (~15 KB per k, beyond
 * the op cache: the front end decodes it at ~16 bytes a cycle), and the
 * gain exists only while the core's other resources are idle. */
#if defined(CUZK_MONT_X86) && defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
#define X4_HYB 1

typedef struct {
  int k;       /* scalar products carried */
  limb_t t[7]; /* CIOS accumulator */
  limb_t *const *r;
  const limb_t *const *a, *const *b;
  const limb_t *p; /* p64, n0 at p[6] */
} x4_sc;

#define X4_SC_PIECES 13
#define X4_ROW_STEP(j, tj, tj1)                                                                    \
  "mulxq " #j "*8(%[x]), %[lo], %[hi]\n\tadcxq %[lo], %[" tj "]\n\tadoxq %[hi], %[" tj1 "]\n\t"
#define X4_ROW_BODY                                                                                \
  X4_ROW_STEP(0, "t0", "t1") X4_ROW_STEP(1, "t1", "t2") X4_ROW_STEP(2, "t2", "t3")                 \
  X4_ROW_STEP(3, "t3", "t4") X4_ROW_STEP(4, "t4", "t5") X4_ROW_STEP(5, "t5", "t6")                 \
  "movl $0, %k[lo]\n\tadcxq %[lo], %[t6]"
#define X4_T_OUT                                                                                   \
  [t0] "+r"(t[0]), [t1] "+r"(t[1]), [t2] "+r"(t[2]), [t3] "+r"(t[3]), [t4] "+r"(t[4]),              \
      [t5] "+r"(t[5]), [t6] "+r"(t[6]), [lo] "=&r"(lo), [hi] "=&r"(hi)

/* t += a b_i (t[6] = 0 before). */
X4_AI void x4_sc_mulrow(limb_t *t, const limb_t *a, limb_t bi) {
  limb_t lo, hi;
  __asm__("xorl %k[lo], %k[lo]\n\t" X4_ROW_BODY
          : X4_T_OUT
          : [x] "r"(a), "d"(bi)
          : "cc");
}

/* t = (t + m p) / 2^64, m = t_0 n0. */
X4_AI void x4_sc_redrow(limb_t *t, const limb_t *p) {
  limb_t lo, hi, mm;
  __asm__("movq %[t0], %%rdx\n\timulq 48(%[x]), %%rdx\n\txorl %k[lo], %k[lo]\n\t" X4_ROW_BODY
          : X4_T_OUT, "=&d"(mm)
          : [x] "r"(p)
          : "cc");
  for (int i = 0; i < 6; i++) t[i] = t[i + 1];
  t[6] = 0;
}

/* r = t - p if t >= p, else t (t < 2p). */
X4_AI void x4_sc_final(limb_t *r, limb_t *t, const limb_t *p) {
  limb_t x, s[6];
#define X4_SUB(op, j, tj) "movq %[" tj "], %[x]\n\t" op " " #j "*8(%[p]), %[x]\n\tmovq %[x], %[s" #j "]\n\t"
#define X4_SEL(j, tj) "cmovncq %[s" #j "], %[" tj "]\n\t"
  __asm__(X4_SUB("subq", 0, "t0") X4_SUB("sbbq", 1, "t1") X4_SUB("sbbq", 2, "t2")
              X4_SUB("sbbq", 3, "t3") X4_SUB("sbbq", 4, "t4") X4_SUB("sbbq", 5, "t5")
                  X4_SEL(0, "t0") X4_SEL(1, "t1") X4_SEL(2, "t2") X4_SEL(3, "t3")
                      X4_SEL(4, "t4") X4_SEL(5, "t5")
          : [t0] "+r"(t[0]), [t1] "+r"(t[1]), [t2] "+r"(t[2]), [t3] "+r"(t[3]), [t4] "+r"(t[4]),
            [t5] "+r"(t[5]), [x] "=&r"(x), [s0] "=m"(s[0]), [s1] "=m"(s[1]), [s2] "=m"(s[2]),
            [s3] "=m"(s[3]), [s4] "=m"(s[4]), [s5] "=m"(s[5])
          : [p] "r"(p)
          : "cc");
#undef X4_SUB
#undef X4_SEL
  for (int i = 0; i < 6; i++) r[i] = t[i];
}

/* Piece `step` of the k scalar products. */
X4_AI void x4_sc_piece(x4_sc *sc, int step) {
  int mi = step / X4_SC_PIECES, ph = step % X4_SC_PIECES;
  if (ph == 12) {
    x4_sc_final(sc->r[mi], sc->t, sc->p);
    return;
  }
  if (ph == 0)
    for (int i = 0; i < 7; i++) sc->t[i] = 0;
  if (ph % 2 == 0)
    x4_sc_mulrow(sc->t, sc->a[mi], sc->b[mi][ph / 2]);
  else
    x4_sc_redrow(sc->t, sc->p);
}

/* After vector product g (1-based) of n: the pieces due by then. */
X4_AI void x4_sc_tick(x4_sc *sc, int g, int n) {
  if (!sc || !sc->k)
    return;
  int total = X4_SC_PIECES * sc->k;
  for (int step = (g - 1) * total / n; step < g * total / n; step++) x4_sc_piece(sc, step);
}
#else
typedef struct {
  int k;
} x4_sc;
X4_AI void x4_sc_tick(x4_sc *sc, int g, int n) { (void)sc, (void)g, (void)n; }
#endif

/* The Montgomery multiplication by product scanning, on NS independent
 * operand pairs (NS = 1 or 2, interleaved column by column), or the
 * squaring of a[s] (b ignored).  Column k: a_i b_j and q_i p_j (j > 0) of
 * the column, then for k < 8 q_k and q_k p_0, for k >= 8 the normalised
 * limb.  The a b products of a column keep the core busy while q_k waits
 * for its column (a chain of ~40 cycles per column); a two-phase variant
 * (a b first, with b in registers: two loads per product instead of
 * four) measured slower, 243 against 205-225 cycles per lane, its
 * reduction phase exposing that chain.  Holding b in registers within
 * this scan gained nothing (205 against 191-193).
 * sc: scalar products to interleave (NULL: none). */
X4_AI void x4_mont(int ns, int sqr, fp_x4 *const *r, const fp_x4 *const *a,
                   const fp_x4 *const *b, const fp_x4_mod *m, x4_sc *sc) {
  const vi mask = _mm256_set1_epi64x((long long)X4_MASK48);
  const vd cc = _mm256_set1_pd(X4_C), c2 = _mm256_set1_pd(X4_C2);
  const uint64_t(*init)[4] = sqr ? m->sqr_init : m->mul_init;
  const int nprod = ns * ((sqr ? 36 : 64) + 56); /* the ticked products */
  int g = 0;
  _Alignas(32) double q[2][8][4], a2[2][8][4];
  vi cur[2], nxt[2];
  for (int s = 0; s < ns; s++) {
    cur[s] = _mm256_load_si256((const vi *)init[0]);
    nxt[s] = _mm256_load_si256((const vi *)init[1]);
    if (sqr)
      for (int i = 0; i < 8; i++) {
        vd x = _mm256_load_pd(a[s]->l[i]);
        _mm256_store_pd(a2[s][i], _mm256_add_pd(x, x));
      }
  }
#pragma GCC unroll 16
  for (int k = 0; k < 16; k++) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      int j = k - i;
      if (j < 0 || j > 7 || (sqr && j < i))
        continue;
      for (int s = 0; s < ns; s++) {
        const double *x = sqr && j > i ? a2[s][i] : a[s]->l[i];
        const double *y = sqr ? a[s]->l[j] : b[s]->l[j];
        x4_prod(x, y, &cur[s], &nxt[s], cc, c2);
        x4_sc_tick(sc, ++g, nprod);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      int j = k - i;
      if (i >= k || j < 1 || j > 7)
        continue;
      for (int s = 0; s < ns; s++) {
        x4_prod(q[s][i], m->p[j], &cur[s], &nxt[s], cc, c2);
        x4_sc_tick(sc, ++g, nprod);
      }
    }
    for (int s = 0; s < ns; s++) {
      if (k < 8) {
        /* q_k = t_k n' mod 2^48, signed: the low part of (t_k mod 2^48) n' */
        const vd n48 = _mm256_load_pd(m->n48);
        vd t = x4_u48_to_pd(_mm256_and_si256(cur[s], mask));
        vd h = _mm256_fmadd_pd(t, n48, cc);
        _mm256_store_pd(q[s][k], _mm256_fmadd_pd(t, n48, _mm256_sub_pd(cc, h)));
        x4_prod(q[s][k], m->p[0], &cur[s], &nxt[s], cc, c2);
      } else if (k < 15) {
        _mm256_store_pd(r[s]->l[k - 8], x4_u48_to_pd(_mm256_and_si256(cur[s], mask)));
      } else {
        _mm256_store_pd(r[s]->l[7],
                        _mm256_sub_pd(_mm256_castsi256_pd(cur[s]), _mm256_set1_pd(X4_L)));
        continue;
      }
      /* carry: column k is 2^62 + 2^48 c, the next one 2^14 short */
      cur[s] = _mm256_add_epi64(nxt[s], _mm256_srli_epi64(cur[s], 48));
      if (k < 14)
        nxt[s] = _mm256_load_si256((const vi *)init[k + 2]);
    }
  }
}

void fp_x4_mul(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, const fp_x4_mod *m) {
  fp_x4 t;
  fp_x4 *rr[1] = {&t};
  const fp_x4 *aa[1] = {a}, *bb[1] = {b};
  x4_mont(1, 0, rr, aa, bb, m, NULL);
  *r = t;
}

void fp_x4_sqr(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m) {
  fp_x4 t;
  fp_x4 *rr[1] = {&t};
  const fp_x4 *aa[1] = {a};
  x4_mont(1, 1, rr, aa, aa, m, NULL);
  *r = t;
}

void fp_x4_mul2(fp_x4 *r0, const fp_x4 *a0, const fp_x4 *b0, fp_x4 *r1, const fp_x4 *a1,
                const fp_x4 *b1, const fp_x4_mod *m) {
  fp_x4 t0, t1;
  fp_x4 *rr[2] = {&t0, &t1};
  const fp_x4 *aa[2] = {a0, a1}, *bb[2] = {b0, b1};
  x4_mont(2, 0, rr, aa, bb, m, NULL);
  *r0 = t0;
  *r1 = t1;
}

#if defined(X4_HYB)
int fp_x4_hyb_native(void) { return 1; }

#define X4_HYB_CASE(kk)                                                                            \
  case kk: {                                                                                       \
    x4_sc sc = {.k = kk, .r = rs, .a = as, .b = bs, .p = m->p64};                                  \
    x4_mont(1, 0, rr, aa, bb, m, &sc);                                                             \
    break;                                                                                         \
  }
void fp_x4_mul_hyb(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, int k, limb_t *const rs[],
                   const limb_t *const as[], const limb_t *const bs[], const fp_x4_mod *m) {
  fp_x4 t;
  fp_x4 *rr[1] = {&t};
  const fp_x4 *aa[1] = {a}, *bb[1] = {b};
  switch (k) {
    X4_HYB_CASE(6)
    X4_HYB_CASE(8)
  default:
    x4_mont(1, 0, rr, aa, bb, m, NULL);
    for (int i = 0; i < k; i++) mont384_mul(rs[i], as[i], bs[i], m->p64, m->n0);
  }
  *r = t;
}
#undef X4_HYB_CASE
#endif

void fp_x4_add(fp_x4 *r, const fp_x4 *a, const fp_x4 *b) {
  for (int k = 0; k < 8; k++)
    _mm256_store_pd(r->l[k], _mm256_add_pd(_mm256_load_pd(a->l[k]), _mm256_load_pd(b->l[k])));
}

void fp_x4_sub(fp_x4 *r, const fp_x4 *a, const fp_x4 *b) {
  for (int k = 0; k < 8; k++)
    _mm256_store_pd(r->l[k], _mm256_sub_pd(_mm256_load_pd(a->l[k]), _mm256_load_pd(b->l[k])));
}

void fp_x4_reduce(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m) {
  const vd magic = _mm256_set1_pd(0x1.8p52); /* x + magic - magic rounds x < 2^51 */
  const vd down = _mm256_set1_pd(0x1p-48), up = _mm256_set1_pd(0x1p48);
  vd x[8], c[8];
  vd k = _mm256_sub_pd(
      _mm256_fmadd_pd(_mm256_load_pd(a->l[7]), _mm256_load_pd(m->rp), magic), magic);
  for (int i = 0; i < 8; i++)
    x[i] = _mm256_fnmadd_pd(k, _mm256_load_pd(m->p[i]), _mm256_load_pd(a->l[i]));
  for (int i = 0; i < 7; i++)
    c[i] = _mm256_sub_pd(_mm256_fmadd_pd(x[i], down, magic), magic);
  for (int i = 0; i < 8; i++) {
    vd y = i < 7 ? _mm256_fnmadd_pd(c[i], up, x[i]) : x[i];
    _mm256_store_pd(r->l[i], i ? _mm256_add_pd(y, c[i - 1]) : y);
  }
}

/* Vector slicing of four 6-limb values: a 4x4 transpose of words 0..3 and
 * of words 4..5, then the digits as in x4_slice. */
void fp_x4_from_mont(fp_x4 *r, const limb_t *const a[4]) {
  const vi mask = _mm256_set1_epi64x((long long)X4_MASK48);
  vi w[6];
  {
    vi r0 = _mm256_loadu_si256((const vi *)a[0]), r1 = _mm256_loadu_si256((const vi *)a[1]);
    vi r2 = _mm256_loadu_si256((const vi *)a[2]), r3 = _mm256_loadu_si256((const vi *)a[3]);
    vi t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
    vi t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
    w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
    __m128i u0 = _mm_loadu_si128((const __m128i *)(a[0] + 4));
    __m128i u1 = _mm_loadu_si128((const __m128i *)(a[1] + 4));
    __m128i u2 = _mm_loadu_si128((const __m128i *)(a[2] + 4));
    __m128i u3 = _mm_loadu_si128((const __m128i *)(a[3] + 4));
    vi v01 = _mm256_set_m128i(u2, u0), v23 = _mm256_set_m128i(u3, u1);
    /* v01 = [a0.4 a0.5 a2.4 a2.5], v23 = [a1.4 a1.5 a3.4 a3.5] */
    w[4] = _mm256_unpacklo_epi64(v01, v23);
    w[5] = _mm256_unpackhi_epi64(v01, v23);
  }
#define X4_SL(x, n) _mm256_slli_epi64(x, n)
#define X4_SR(x, n) _mm256_srli_epi64(x, n)
  vi l[8];
  l[0] = _mm256_and_si256(w[0], mask);
  l[1] = _mm256_and_si256(_mm256_or_si256(X4_SR(w[0], 48), X4_SL(w[1], 16)), mask);
  l[2] = _mm256_and_si256(_mm256_or_si256(X4_SR(w[1], 32), X4_SL(w[2], 32)), mask);
  l[3] = X4_SR(w[2], 16);
  l[4] = _mm256_and_si256(w[3], mask);
  l[5] = _mm256_and_si256(_mm256_or_si256(X4_SR(w[3], 48), X4_SL(w[4], 16)), mask);
  l[6] = _mm256_and_si256(_mm256_or_si256(X4_SR(w[4], 32), X4_SL(w[5], 32)), mask);
  l[7] = X4_SR(w[5], 16);
#undef X4_SL
#undef X4_SR
  for (int k = 0; k < 8; k++) _mm256_store_pd(r->l[k], x4_u48_to_pd(l[k]));
}

#else /* !FP_X4_AVX2: the references */

int fp_x4_accelerated(void) { return 0; }

static void x4_add_ref(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, double sign) {
  for (int k = 0; k < 8; k++)
    for (int j = 0; j < 4; j++) r->l[k][j] = a->l[k][j] + sign * b->l[k][j];
}

static void x4_reduce_ref(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m) {
  fp_x4 t;
  for (int j = 0; j < 4; j++) {
    double k = nearbyint(a->l[7][j] * m->rp[j]);
    for (int i = 0; i < 8; i++) t.l[i][j] = a->l[i][j] - k * m->p[i][j];
    double c[8];
    for (int i = 0; i < 7; i++) c[i] = nearbyint(ldexp(t.l[i][j], -48));
    for (int i = 0; i < 8; i++)
      r->l[i][j] = t.l[i][j] - (i < 7 ? ldexp(c[i], 48) : 0) + (i ? c[i - 1] : 0);
  }
}

void fp_x4_mul(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, const fp_x4_mod *m) {
  fp_x4_mul_ref(r, a, b, m);
}
void fp_x4_sqr(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m) { fp_x4_mul_ref(r, a, a, m); }
void fp_x4_mul2(fp_x4 *r0, const fp_x4 *a0, const fp_x4 *b0, fp_x4 *r1, const fp_x4 *a1,
                const fp_x4 *b1, const fp_x4_mod *m) {
  fp_x4_mul_ref(r0, a0, b0, m);
  fp_x4_mul_ref(r1, a1, b1, m);
}
void fp_x4_add(fp_x4 *r, const fp_x4 *a, const fp_x4 *b) { x4_add_ref(r, a, b, 1.0); }
void fp_x4_sub(fp_x4 *r, const fp_x4 *a, const fp_x4 *b) { x4_add_ref(r, a, b, -1.0); }
void fp_x4_reduce(fp_x4 *r, const fp_x4 *a, const fp_x4_mod *m) { x4_reduce_ref(r, a, m); }
void fp_x4_from_mont(fp_x4 *r, const limb_t *const a[4]) {
  for (unsigned j = 0; j < 4; j++) fp_x4_lane_from_mont(r, j, a[j]);
}

#endif

#if !defined(X4_HYB)
int fp_x4_hyb_native(void) { return 0; }

void fp_x4_mul_hyb(fp_x4 *r, const fp_x4 *a, const fp_x4 *b, int k, limb_t *const rs[],
                   const limb_t *const as[], const limb_t *const bs[], const fp_x4_mod *m) {
  fp_x4_mul(r, a, b, m);
  for (int i = 0; i < k; i++) mont384_mul(rs[i], as[i], bs[i], m->p64, m->n0);
}
#endif
