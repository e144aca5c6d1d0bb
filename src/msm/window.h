/* MSM windows and their signed digits, shared by the CPU MSM (msm.c), the
 * GPU MSM (cuda/msm_gpu*) and the key generator's comb (groth16/keygen.c).
 * Plain C with every function inline; in a CUDA translation unit the same
 * functions are __host__ __device__, so host and device recode alike.
 *
 * DESIGN
 *   A scalar s of at most T - 1 bits is cut into nwin windows that tile the
 *   bits [0, T): the first nh windows of cl + 1 bits, the others of cl
 *   (nh = 0: uniform windows).  Window w starts at bit msm_geo_offset(w),
 *   is msm_geo_width(w) bits wide and has nb(w) = 2^(width - 1) buckets:
 *   its signed digit d_w (msm_digit) lies in [-nb(w), nb(w)], bucket
 *   |d| - 1 takes the point, negated for d < 0.  The buckets of all windows
 *   lie back to back, window w's from msm_geo_base(w).  The wider windows
 *   come first so that the top window, whose bits the scalar may not fill,
 *   is a narrow one.
 *
 * Nothing here allocates or fails; callers check widths (1..31) and
 * counts. */
#ifndef CUZK_MSM_WINDOW_H
#define CUZK_MSM_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MSM_HD static __host__ __device__ __forceinline__
#else
#define MSM_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The windows of one recoding (see DESIGN). */
typedef struct {
  unsigned nwin, nh, cl;
} msm_geo;

/* Windows of width cl + 1 below w. */
MSM_HD unsigned msm_geo_lo(const msm_geo *g, unsigned w) { return w < g->nh ? w : g->nh; }
MSM_HD unsigned msm_geo_width(const msm_geo *g, unsigned w) { return g->cl + (w < g->nh); }
MSM_HD unsigned msm_geo_offset(const msm_geo *g, unsigned w) {
  return w * g->cl + msm_geo_lo(g, w);
}
MSM_HD uint32_t msm_geo_nb(const msm_geo *g, unsigned w) {
  return 1u << (msm_geo_width(g, w) - 1);
}
/* nb(v) summed over v < w: 2^(cl-1) per window, twice that for wide ones. */
MSM_HD size_t msm_geo_base(const msm_geo *g, unsigned w) {
  return ((size_t)w + msm_geo_lo(g, w)) << (g->cl - 1);
}
MSM_HD size_t msm_geo_buckets(const msm_geo *g) { return msm_geo_base(g, g->nwin); }
MSM_HD unsigned msm_geo_widest(const msm_geo *g) { return msm_geo_width(g, 0); }
/* Bits the windows tile: T. */
MSM_HD unsigned msm_geo_bits(const msm_geo *g) { return g->nwin * g->cl + g->nh; }

/* ceil(bits / c) windows of c bits: T = c nwin >= bits. */
MSM_HD msm_geo msm_geo_uniform(unsigned c, unsigned bits) {
  msm_geo g = {(bits + c - 1) / c, 0, c};
  return g;
}
/* nwin windows of floor and ceil(bits / nwin) bits, the ceil ones first:
 * T = bits exactly. */
MSM_HD msm_geo msm_geo_split(unsigned nwin, unsigned bits) {
  msm_geo g = {nwin, bits % nwin, bits / nwin};
  return g;
}

/* Set in a digit when the bucket takes the point negated. */
#define MSM_DIGIT_NEG 0x80000000u

/* Limb i of the nl-limb s (nl <= 4), 0 from nl on; a chain of compares
 * rather than s[i], so that the device keeps s in registers. */
MSM_HD uint64_t msm_limb(const uint64_t *s, unsigned nl, unsigned i) {
  return i == 0              ? s[0]
         : i == 1 && nl > 1 ? s[1]
         : i == 2 && nl > 2 ? s[2]
         : i == 3 && nl > 3 ? s[3]
                            : 0;
}

/* Signed (Booth) digit of the c-bit window at bit offset off of the nl-limb
 * magnitude s (c <= 31): with the c + 1 bits v = s[off-1 .. off+c-1] (the
 * lowest borrowed from the window below, zero for off = 0),
 *   d = (v + 1) / 2 - v_c 2^c,  -2^(c-1) <= d <= 2^(c-1).
 * Over windows that tile [0, T), whatever their widths, the borrows
 * telescope: sum_w d_w 2^(off_w) = s - s_(T-1) 2^T, which is s when
 * s < 2^(T-1).  Returns |d|, with MSM_DIGIT_NEG set when d, negated once
 * more if neg, is negative.  Each digit depends on c + 1 bits of s only,
 * so windows recode independently (one GPU thread per point and window). */
MSM_HD uint32_t msm_digit(const uint64_t *s, unsigned nl, unsigned off, unsigned c,
                          unsigned neg) {
  uint64_t v;
  if (off == 0) {
    v = s[0] << 1;
  } else {
    const unsigned pos = off - 1, li = pos / 64, sh = pos % 64;
    v = msm_limb(s, nl, li) >> sh;
    if (sh)
      v |= msm_limb(s, nl, li + 1) << (64 - sh);
  }
  v &= (2ull << c) - 1;
  const uint64_t top = v >> c;
  const int64_t d = (int64_t)((v + 1) >> 1) - (int64_t)(top << c);
  const uint32_t mag = (uint32_t)(d < 0 ? -d : d);
  return mag | (((unsigned)(d < 0) ^ neg) ? MSM_DIGIT_NEG : 0);
}

#ifdef __cplusplus
}
#endif
#endif
