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
 * base in the caller's array. */
typedef struct {
  limb_t s[4];
  const uint8_t *base;
} msm_live;

/* s = e's folded scalar; returns its fold flag. */
static inline unsigned msm_live_scalar(limb_t s[4], const msm_live *e) {
  s[0] = e->s[0], s[1] = e->s[1], s[2] = e->s[2];
  s[3] = e->s[3] & ~((limb_t)1 << 63);
  return (unsigned)(e->s[3] >> 63);
}

#define MSM_DIGIT_NEG 0x80000000u

/* Signed (Booth) digit of window w:  with the c+1 bits v = s[cw-1 .. cw+c-1]
 * (the lowest one borrowed from the window below, zero for w = 0),
 *   d = (v + 1) / 2 - v_c 2^c,  -2^(c-1) <= d <= 2^(c-1),
 * and sum_w d_w 2^(cw) = s when the top window's top bit is zero, which
 * c * nwin >= 255 > log2(s) guarantees.  Encoded as |d| | MSM_DIGIT_NEG when
 * d, negated once more if neg, is negative. */
static inline uint32_t msm_digit(const limb_t s[4], unsigned w, unsigned c, unsigned neg) {
  uint64_t v;
  if (w == 0) {
    v = s[0] << 1;
  } else {
    unsigned pos = c * w - 1, li = pos / 64, sh = pos % 64;
    v = s[li] >> sh;
    if (sh && li + 1 < 4)
      v |= s[li + 1] << (64 - sh);
  }
  v &= (2ULL << c) - 1;
  uint64_t top = v >> c;
  int64_t d = (int64_t)((v + 1) >> 1) - (int64_t)(top << c);
  uint32_t mag = (uint32_t)(d < 0 ? -d : d);
  return mag | (((uint32_t)(d < 0) ^ neg) ? MSM_DIGIT_NEG : 0);
}

#endif
