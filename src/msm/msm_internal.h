/* Internals shared by msm.c (both groups) and plan.c: the per-worker scratch
 * layout and the scalar recoding.  Not part of the msm API. */
#ifndef CUZK_MSM_MSM_INTERNAL_H
#define CUZK_MSM_MSM_INTERNAL_H

#include "base/bytes.h"
#include "msm/msm.h"

/* Batch-affine bucket reduction (msm_impl.h reduce_ba): chains, and the
 * fewest buckets it is used for; below that reduce_aff's XYZZ running sums
 * cost as much (modelled: at nb = 1024, L = 256 the 3L final XYZZ additions
 * and nb/L inversions eat the saving). */
#define MSM_RED_CHAINS 512u
#define MSM_RED_MIN 4096u

/* Per-worker scratch, as byte offsets into one block (each 64-byte aligned).
 * Batch-affine plans (chunk > 0), for k points per chunk and nb buckets:
 *   buckets  nb affine points (the window's buckets; infinity = zeros)
 *   work     k + min(k, nb) affine points: each touched bucket's value
 *            followed by its new points, reduced in place round by round
 *            (at least 2 MSM_RED_CHAINS when nb >= MSM_RED_MIN: the chains)
 *   den,pre  k field elements each (one round has at most k pairs; at
 *            least 2 MSM_RED_CHAINS as above)
 *   segs     min(k, nb) msm_seg (one per touched bucket)
 *   counts   nb uint32 (counts, then write positions)
 *   digits   k uint32
 *   kinds    as many bytes as den has elements (ec_batch kind per pair)
 * XYZZ plans (chunk = 0): buckets only, nb XYZZ points. */
typedef struct {
  size_t k; /* points per chunk */
  size_t buckets, work, den, pre, segs, counts, digits, kinds, total;
} msm_layout;

/* One bucket's run of the work array during the tree rounds. */
typedef struct {
  uint32_t bucket, start, len;
} msm_seg;

void msm_layout_for(msm_layout *l, const msm_plan *p, size_t n, size_t field_bytes);
/* NULL when the plan is consistent, else what is wrong. */
const char *msm_plan_check(const msm_plan *p);

/* r and (r-1)/2, little-endian limbs. */
static const limb_t msm_r[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
static const limb_t msm_half_r[4] = {0x7fffffff80000000ULL, 0xa9ded2017fff2dffULL,
                                     0x199cec0404d0ec02ULL, 0x39f6d3a994cebea4ULL};

/* r = a - b (4 limbs), no modulus. */
static inline void msm_sub4(limb_t *r, const limb_t *a, const limb_t *b) {
  limb_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
    r[i] = (limb_t)d;
    borrow = (limb_t)(d >> 64) & 1;
  }
}

/* s = the 32-byte little-endian scalar at p, reduced mod r (at most twice:
 * 2^256 < 3r) and folded to s <= (r-1)/2 by s -> r - s.  Returns 1 when
 * folded: the point must then be negated ((r - s)(-P) = sP in the group of
 * order r). */
static inline unsigned msm_scalar_load(limb_t s[4], const uint8_t *p) {
  limbs_from_le(s, p, 4);
  while (!limbs_lt(s, msm_r, 4)) msm_sub4(s, s, msm_r);
  if (limbs_lt(msm_half_r, s, 4)) {
    msm_sub4(s, msm_r, s);
    return 1;
  }
  return 0;
}

/* A live point: its scalar reduced and folded (msm_scalar_load), with the
 * fold flag in bit 63 of s[3] (a folded scalar is below 2^254), and its
 * base in the caller's array.  After msm_split for K = plan.endo parts, s
 * holds K signed parts of 4/K limbs each: part j in limbs [j 4/K, (j+1) 4/K),
 * its magnitude below 2^(256/K - 1) and its sign (negate the part's point)
 * in the top bit of its last limb; K = 1 is the form above. */
typedef struct {
  limb_t s[4];
  const uint8_t *base;
} msm_live;

/* |u|; BLS12-381's parameter is u = -|u| and r = u^4 - u^2 + 1. */
#define MSM_U BLS12_381_X

/* d = the base-|u| digits of s < |u|^4 (0 <= d_j < |u|): three divisions
 * by |u|, limb by limb from the top (s / |u|^k has 4 - k limbs). */
static inline void msm_digits_u(limb_t d[4], const limb_t s[4]) {
  limb_t q[4] = {s[0], s[1], s[2], s[3]};
  for (int k = 0; k < 3; k++) {
    unsigned __int128 rem = 0;
    for (int i = 3 - k; i >= 0; i--) {
      unsigned __int128 cur = rem << 64 | q[i];
      q[i] = (limb_t)(cur / MSM_U);
      rem = cur - (unsigned __int128)q[i] * MSM_U;
    }
    d[k] = (limb_t)rem;
  }
  d[3] = q[0];
}

/* Rewrites e's folded scalar (the K = 1 form) as endo = K parts (1, 2, 4):
 * with d the base-|u| digits of s <= (r-1)/2 and the fold's sign f,
 *   K = 2:  s = e0 + e1 u^2, e0 = d0 + d1 |u|, e1 = d2 + d3 |u|, made
 *           balanced (e0 > u^2/2: e0 -= u^2, e1 += 1): |e0| <= u^2/2 and
 *           e1 <= (u^2 - 1)/2 + 1, both < 2^127;
 *   K = 4:  s = sum d_j |u|^j = sum (-1)^j d_j u^j with the d_j balanced
 *           (d_j > |u|/2: d_j -= |u|, d_(j+1) += 1): |d_j| <= |u|/2 < 2^63
 *           (d3 too: s < |u|^4 / 2);
 * each part's sign is f xor its own (and (-1)^j for K = 4), so that
 * sum_j part_j [u^(4j/K)]P = (+-s) P as before the split. */
static inline void msm_split(msm_live *e, unsigned endo) {
  if (endo == 1)
    return;
  const limb_t u = MSM_U, top = (limb_t)1 << 63;
  const unsigned f = (unsigned)(e->s[3] >> 63);
  limb_t s[4] = {e->s[0], e->s[1], e->s[2], e->s[3] & ~top}, d[4];
  msm_digits_u(d, s);
  if (endo == 4) {
    for (unsigned j = 0; j < 4; j++) {
      unsigned neg = f ^ (j & 1);
      limb_t v = d[j];
      if (j < 3 && v > u / 2) {
        v = u - v;
        neg ^= 1;
        d[j + 1]++;
      }
      e->s[j] = v | (limb_t)neg << 63;
    }
    return;
  }
  const unsigned __int128 b = (unsigned __int128)u * u;
  unsigned __int128 e0 = d[0] + (unsigned __int128)d[1] * u, e1 = d[2] + (unsigned __int128)d[3] * u;
  unsigned neg0 = f;
  if (e0 > b / 2) {
    e0 = b - e0;
    neg0 ^= 1;
    e1++;
  }
  e->s[0] = (limb_t)e0;
  e->s[1] = (limb_t)(e0 >> 64) | (limb_t)neg0 << 63;
  e->s[2] = (limb_t)e1;
  e->s[3] = (limb_t)(e1 >> 64) | (limb_t)f << 63;
}

/* The digit of window w of part j of e (split into endo = K parts), its
 * sign included. */
static inline uint32_t msm_live_digit(const msm_live *e, unsigned endo, unsigned j, unsigned w,
                                      unsigned c) {
  const unsigned nl = 4 / endo;
  limb_t m[4];
  for (unsigned i = 0; i < nl; i++) m[i] = e->s[j * nl + i];
  unsigned neg = (unsigned)(m[nl - 1] >> 63);
  m[nl - 1] &= ~((limb_t)1 << 63);
  return msm_digit(m, nl, w * c, c, neg);
}

#endif
