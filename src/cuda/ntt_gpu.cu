/* NTT over BLS12-381 Fr on the GPU (ntt_gpu.h).
 *
 * DESIGN
 *
 * The transform of size n = 2^L is the CPU's four-step split (poly/ntt.c)
 * applied recursively: L = lp_0 + lp_1 + ... (at most 10 each, balanced:
 * 2^27 = 9 + 9 + 9), one pass over memory per part.  Pass i sees the array
 * as blocks of M = 2^(lp_i + r_i) elements, r_i = the bits after this part,
 * each block a 2^lp_i x 2^r_i row-major matrix, and does
 *
 *   G_i  a radix-2 decimation-in-frequency (DIF) of size 2^lp_i down every
 *        column (stride S = 2^r_i): natural order in, bit-reversed out;
 *   D_i  position (t, cc) times w_M^(cc * bitrev(t)) (none when r_i = 0).
 *
 * After the last pass, position p holds X[bitrev_L(p)] (poly/ntt.c, step 2
 * applied to the rows recursively), so F = B P_k ... P_1 with P_i = D_i G_i
 * and B the bit-reversal permutation.  F is symmetric, hence also
 * F = P_1^T ... P_k^T B with P_i^T = G_i^T D_i: the same diagonal first, then
 * the transposed butterflies (u, v) -> (u + w v, u - w v) with the same
 * twiddles, spans increasing -- a decimation in time (DIT) that takes
 * bit-reversed input to natural output.  So:
 *
 *   forward            three passes: self-sorting DIF passes (below); else
 *                      DIF passes, then B (one in-place permutation pass)
 *   forward_bitrev     DIF passes only
 *   inverse            as forward with w^-1, 1/n folded into the last pass
 *   to_odd_coset       DIF with w^-1, the last pass multiplying position p by
 *                      g^bitrev(p) / n (g the coset shift), then DIT passes
 *                      with w: no permutation pass at all
 *
 * Self-sorting (plans of three passes, L >= 21 by default): B costs a whole
 * pass over memory, and three passes can do without it.
 * Write L = m + mid + m (m = lp_0) and an index as digits (a, b, c) of m,
 * mid and m bits.  Each pass stores row t of its column at row bitrev(t),
 * so its digit comes out as the frequency digit itself (k1, k2, k3 of
 * k = k1 + 2^m k2 + 2^(m+mid) k3), and what is left of B is the exchange of
 * the outer digits, (x, ., y) <-> (y, ., x): a transposition, every element
 * in a 2-cycle.  The middle pass does it.  Its columns (x, ., y) are
 * exactly the sets the exchange maps onto each other, so one block takes
 * both columns of a pair (swap_column) -- it reads both before it writes
 * either -- and stores each into the other's place.  The last pass then
 * finds the c digit on top and runs like the first (stride 2^(L-m), no
 * D), its output k3 on top: natural order in place, three passes over
 * memory instead of four.  The D_i factors are those of the plain DIF (the
 * row written at bitrev(t) is multiplied as row t); only addresses change.
 * The swapped columns are read and written 32 bytes at a time, as the
 * others already are at two columns per block.
 *
 * One pass is one kernel launch.  A block takes C = 2^lc adjacent columns
 * (coalesced rows of C elements) of 2^lp rows; each of its threads (256) holds
 * 2^e elements (e = 2, or 1 in a pass of a single stage) of one column in
 * registers and does e radix-2 stages on them at a time (a "round"),
 * exchanging through shared memory between rounds.  A round works on the
 * rows whose bits outside a window [w0, w0 + e) are fixed; the bottom round
 * (w0 = 0) has twiddle indices known at compile time, so its twiddle-1
 * butterflies skip the multiplication.  Loads come from global memory
 * straight into the first round's registers, stores go straight out of the
 * last round's: each element is read and written once per pass.
 *
 * Why e = 2 with at most 64 registers (4 blocks of 256 threads per SM): the
 * pass is bound by chains of dependent multiply-adds, and warps in flight
 * hide them better than more independent butterflies per thread do.  2^1
 * and 2^3 elements per thread, 2^2 without the register cap, 3 blocks per
 * SM, blocks of 512 threads and outer passes of 10 stages were all slower
 * at 2^27 on the H200 (bench/RESULTS.md: "GPU NTT" and the NTT sections
 * below it).  A pass of lp stages is floor(lp / 2) rounds of two stages and, for
 * odd lp, one round of a single stage, the odd round (lp = 9: five rounds).
 *
 * Warp-uniform groups: a DIF stage at bit b has twiddle 1 where
 * t mod 2^b = 0.  The bottom round knows which at compile time; in the
 * round above it (window [2, 4)) t mod 2^b is made of the group's low bits,
 * and setup() rotates the group out of the thread index so that those are
 * the warp's bits: a quarter of the warps skip 3 of their 4 multiplications
 * there (0.19 per element and pass of 3.75).  The odd round goes where its
 * window starts at those bits too (round_w0, shape_of), so that its stage
 * skips twiddle-1 products warp by warp as well (at lp = 9, 16 more of 1824
 * per 512 elements).  Shared memory is swizzled instead of padded for that
 * layout (sm_row).  The same layout keeps a warp's rows fixed across the
 * upper rounds (their windows start at or above bit wb), so the exchanges
 * between them need only __syncwarp (warp_local): at lp = 9, the first two
 * of a pass's four.
 *
 * Twiddles, all computed by the host code of poly/ntt.h (ntt_host.c) when
 * the plan is made, in one device allocation:
 *   w[dir]     w_1024^(+-i), i < 512: every stage inside a pass (strided);
 *   thi, tlo   omega^(i 2^tlo_bits) and omega^i, tlo_bits = lp_0: the D_i
 *              factor is thi[e >> tlo_bits] * tlo[e & mask] (e = the
 *              exponent of omega); for passes after the first, e is a
 *              multiple of 2^tlo_bits and thi alone serves.  With
 *              full_twiddles, thi is all n powers (tlo_bits = 0) and the
 *              first pass saves that multiplication.  The inverse reads the
 *              same tables at n - e.
 *   glo, ghi   g^i and g^(i 2^glo_bits) / n for the coset multiplier (g:
 *              omega_2n, or cfg.coset_gen);
 *   gilo, gihi g^-i and g^-(i 2^glo_bits), to take a coset's
 *              interpolation back (cuda_ntt_coset_quotient_dev).
 *   d1         (cfg.pass1_table) the first pass's D factors of the forward
 *              direction, n of them, at the position of the element they
 *              multiply: (t, cc) at t 2^r + cc.  The first pass of the
 *              forward (and of the odd-coset DIT) reads them like its data
 *              -- no product, and no gather over a 2^L table as with
 *              full_twiddles -- at the price of 32n bytes of memory and 32n
 *              bytes read per pass; a DIF pass prefetches its entries into
 *              L2 while its rounds run (ntt_thread::begin).  The inverse
 *              direction keeps thi * tlo.
 *
 * Cost at 2^27 (3 passes of 9, e = 2): per element and pass 3.75
 * multiplications in the butterflies (15 per 4 elements), less 0.19 and
 * 0.03 skipped warp by warp (above); one by D_i in each of the first two
 * passes, and one for pass 1's product twiddle (none with d1 or
 * full_twiddles): 13.6 Fr products per element, 1.82e9 in all.  At 240
 * IMAD each (mont.cuh's product for r, counted as docs/PERF.md §1.1 counts) and
 * its 1.656e13 IMAD/s that is 26.4 ms, against 6 ms for the 25.8 GB
 * the three passes move at 4.3 TB/s: the transform is bound by the
 * products and the ALU work around them (bench/RESULTS.md), not by memory.
 * (bench_gpu_ntt's floor is docs/PERF.md §1.4's coarser (n/2) lg n products of 264
 * IMAD: 28.9 ms.)
 *
 * Everything that runs per thread is a member of ntt_thread (and the small
 * per-element functions below), __host__ __device__: the kernels call them
 * between barriers, and the emulator (emulate plans) calls the same
 * functions for every thread of a block in the same phase order on the
 * host.  So what the CI tests check without a GPU is the device algorithm,
 * index for index; only the CUDA execution model is left to the GPU run.
 *
 * No device-wide synchronization and no allocation on the operation path:
 * every operation is kernels enqueued on the caller's stream (the
 * stoppable quotient also waits for that stream between its evaluations). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <new>
#include <vector>

#include "base/stop.h"
#include "cuda/bls12_381.cuh"
#include "cuda/check.cuh"
#include "cuda/ntt_gpu.h"
#include "cuda/ntt_host.h"

typedef bls12_381_fr_t fr_t;

/* The in-pass twiddle table holds w_(2^NTT_LG_W)^i, i < 2^(NTT_LG_W-1): a pass
 * has at most NTT_LG_W stages. */
#define NTT_LG_W 10
/* A thread holds 2^NTT_E_LG elements of its column (DESIGN: why e = 2). */
#define NTT_E_LG 2
#define NTT_MAX_THREADS 512
#define NTT_DEF_THREADS 256
#define NTT_MAX_PASSES 8

enum { NTT_POST_NONE, NTT_POST_SCALE, NTT_POST_COSET };

/* ------------------------------------------------------------ helpers */

/* An element as two 16-byte halves, and back. */
static CZ_HD fr_t fr_of(const uint4 &lo, const uint4 &hi) {
  fr_t r;
  r.l[0] = lo.x, r.l[1] = lo.y, r.l[2] = lo.z, r.l[3] = lo.w;
  r.l[4] = hi.x, r.l[5] = hi.y, r.l[6] = hi.z, r.l[7] = hi.w;
  return r;
}
static CZ_HD uint4 lo_of(const fr_t &x) { return make_uint4(x.l[0], x.l[1], x.l[2], x.l[3]); }
static CZ_HD uint4 hi_of(const fr_t &x) { return make_uint4(x.l[4], x.l[5], x.l[6], x.l[7]); }

/* Loads and stores of one element as two 16-byte accesses; ld_ro goes
 * through the read-only data cache (tables). */
static CZ_HD fr_t ld_fr(const fr_t *p) {
#ifdef __CUDA_ARCH__
  const uint4 *q = reinterpret_cast<const uint4 *>(p);
  return fr_of(q[0], q[1]);
#else
  return *p;
#endif
}

static CZ_HD fr_t ld_ro(const fr_t *p) {
#ifdef __CUDA_ARCH__
  const uint4 *q = reinterpret_cast<const uint4 *>(p);
  return fr_of(__ldg(q), __ldg(q + 1));
#else
  return *p;
#endif
}

static CZ_HD void st_fr(fr_t *p, const fr_t &x) {
#ifdef __CUDA_ARCH__
  uint4 *q = reinterpret_cast<uint4 *>(p);
  q[0] = lo_of(x);
  q[1] = hi_of(x);
#else
  *p = x;
#endif
}

/* Shared memory holds an element as two 16-byte halves in two arrays, so
 * that 8 threads reading 8 adjacent elements' halves touch 8 distinct bank
 * groups. */
static CZ_HD void sm_put(uint4 *lo, uint4 *hi, unsigned s, const fr_t &x) {
  lo[s] = lo_of(x);
  hi[s] = hi_of(x);
}

static CZ_HD fr_t sm_get(const uint4 *lo, const uint4 *hi, unsigned s) { return fr_of(lo[s], hi[s]); }

/* The low `bits` bits of x reversed (bits <= 32; 0 gives 0). */
static CZ_HD unsigned brev(unsigned x, unsigned bits) {
  if (bits == 0)
    return 0;
#ifdef __CUDA_ARCH__
  return __brev(x) >> (32 - bits);
#else
  unsigned r = 0;
  for (unsigned i = 0; i < bits; i++, x >>= 1) r = (r << 1) | (x & 1);
  return r;
#endif
}

/* ------------------------------------------------------------- passes */

/* Everything one pass kernel needs, by value. */
struct ntt_pass_args {
  fr_t *a;
  const fr_t *w;         /* w_1024^(+-i), i < 512: this direction's stage twiddles */
  const fr_t *thi, *tlo; /* omega^(i 2^tlo_bits), omega^i (forward roots) */
  const fr_t *glo, *ghi; /* g^i, g^(i 2^glo_bits) / n */
  const fr_t *d1;        /* pass1_table, in the forward's first pass only; else NULL */
  fr_t scale;            /* the NTT_POST_SCALE factor */
  unsigned lg_n;         /* L */
  unsigned lp;           /* stages in this pass */
  unsigned r;            /* column stride 2^r (r = 0: the last pass) */
  unsigned lc;           /* 2^lc columns per block */
  unsigned k_top;        /* stages of the odd round: lp mod e, or e */
  unsigned odd;          /* the DIF index of that round (0: the top one) */
  unsigned tlo_bits, glo_bits;
  unsigned inverse;      /* D_i exponents negated */
  unsigned post;         /* NTT_POST_*: the last DIF pass only */
  unsigned last;         /* the last pass: no D_i (post instead) */
  unsigned nat;          /* row t is stored at row bitrev(t): natural order */
  unsigned swap;         /* the middle self-sorting pass (swap_column) */
  unsigned wb;           /* the low wb bits of a thread's group are its warp's (below) */
  unsigned swz;          /* shared-memory rows swizzled from bit swz up; 0: padded */
};

/* The index of the highest set bit of x (x != 0). */
static CZ_HD unsigned top_bit(unsigned x) {
#ifdef __CUDA_ARCH__
  return 31 - __clz(x);
#else
  return 31 - __builtin_clz(x);
#endif
}

/* The columns of the self-sorting middle pass (m = its column bits, the
 * first and last passes' stages): column (x, y) -- block x, column y --
 * is read, transformed and stored as column (y, x).  Columns go two by
 * two, f and f ^ 1, so that a block holds both before it writes either:
 * slot f/2 = (s, xr), s < 2^m, xr < 2^(m-1).  s = 0: the diagonal columns
 * (2 xr, 2 xr) and (2 xr + 1, 2 xr + 1), each stored onto itself.  s > 0:
 * x0 = xr with a 0 bit inserted at the top bit of s, and the pair
 * (x0, x0 ^ s), (x0 ^ s, x0): every unordered pair {x, y}, x != y, once
 * (x0 is the one of the two with that bit clear). */
static CZ_HD void swap_column(unsigned f, unsigned m, unsigned &x, unsigned &y) {
  const unsigned side = f & 1, slot = f >> 1;
  const unsigned s = slot >> (m - 1), xr = slot & ((1u << (m - 1)) - 1);
  if (s == 0) {
    x = y = 2 * xr + side;
    return;
  }
  const unsigned b = top_bit(s);
  const unsigned x0 = ((xr >> b) << (b + 1)) | (xr & ((1u << b) - 1));
  x = side ? x0 ^ s : x0;
  y = side ? x0 : x0 ^ s;
}

/* Row index of a thread's element m in a round whose window is
 * [w0, w0 + e): the window bits are m, the others are g's bits in order. */
static CZ_HD unsigned row_of(unsigned g, unsigned m, unsigned w0, unsigned e) {
  const unsigned low = (1u << w0) - 1;
  return (g & low) | (m << w0) | ((g & ~low) << e);
}

/* Rounds of a pass: the odd one does k_top stages, the others e each. */
static CZ_HD unsigned n_rounds(const ntt_pass_args &p, unsigned e) {
  return 1 + (p.lp - p.k_top) / e;
}

/* Window low bit and stage count of round r.  DIF goes from the top bits
 * down, e stages a round, except the odd round (DIF index `odd`, never the
 * bottom one), whose window [w0, w0 + e) does only its upper k_top bits:
 * rounds k < odd have w0 = lp - (k+1) e, the odd one lp - (odd+1) e, those
 * after it lp - k_top - k e, the bottom one 0.  odd = 0 puts the single
 * stages on top; shape_of puts them where the window starts at the
 * warp-uniform bits where it can, so that they too skip twiddle-1
 * multiplications warp by warp.  DIT is the same rounds in the opposite
 * order. */
template <bool DIT>
static CZ_HD unsigned round_w0(const ntt_pass_args &p, unsigned r, unsigned e) {
  const unsigned nr = n_rounds(p, e);
  const unsigned k = DIT ? nr - 1 - r : r; /* DIF round index */
  return k <= p.odd ? p.lp - (k + 1) * e : p.lp - p.k_top - k * e;
}
template <bool DIT>
static CZ_HD unsigned round_ks(const ntt_pass_args &p, unsigned r, unsigned e) {
  const unsigned nr = n_rounds(p, e);
  return (DIT ? nr - 1 - r : r) == p.odd ? p.k_top : e;
}

/* Whether the exchange before round r (r >= 1) stays inside each warp, so
 * that __syncwarp orders it.  A warp's threads share their group's low wb
 * bits (ntt_thread::setup) and cover every value of the others, for all
 * the columns they hold; row_of puts group bit j at row bit j below the
 * window and j + e above it.  So the rows a warp holds
 * in a round are those with fixed bits at min(w0, wb) low places and
 * wb - min(w0, wb) places above the window, and two rounds hold the same
 * rows -- the exchange between them moves data between the warp's own
 * threads -- when min(w0, wb) agrees (wb = 0: a column's threads are all
 * in one warp).  At lp = 9, e = 2, wb = 3 (2^27) the rounds' windows start
 * at bits 7, 5, 3, 2, 0: the first two exchanges of four. */
template <bool DIT>
static CZ_HD bool warp_local(const ntt_pass_args &p, unsigned r, unsigned e) {
  const unsigned a = round_w0<DIT>(p, r - 1, e), b = round_w0<DIT>(p, r, e);
  return (a < p.wb ? a : p.wb) == (b < p.wb ? b : p.wb);
}

/* Shared memory of a pass, in 16-byte units per half: the element at (row,
 * column c) is at (sm_row(row) << lc) + c.  Padded (swz = 0):
 * sm_row(t) = t + t/2^e, one padding row every 2^e rows, so that the
 * threads of a quarter warp, whose rows differ by 1 or by 2^e + 1, fall in
 * distinct bank groups.  Swizzled (swz = S >= 3, the layout of warp-uniform
 * groups, ntt_thread::setup): sm_row(t) = t xor (((t >> S) xor (t >> (S+e)))
 * mod 8).  A quarter warp then holds 2^(3-lc) groups that differ in group
 * bits S.. (S = wb), which a round puts at row bits S+j or S+j+e; each such
 * bit lands in bank bit j, plus at most one other bank bit on the same
 * side of it, so the map from those bits to bank groups is triangular,
 * hence one-to-one: no conflicts, and no padding. */
static CZ_HD size_t smem_half(unsigned lp, unsigned e, unsigned lc, unsigned swz) {
  return (((size_t)1 << lp) + (swz ? 0 : ((size_t)1 << (lp - e)))) << lc;
}
static CZ_HD unsigned sm_row(unsigned t, unsigned e, unsigned swz) {
  return swz ? t ^ (((t >> swz) ^ (t >> (swz + e))) & 7) : t + (t >> e);
}

/* DIF butterfly (u, v) -> (u + v, (u - v) w); DIT (u, v) -> (u + w v, u - w v). */
template <bool DIT>
static CZ_HD void butterfly(fr_t &u, fr_t &v, const fr_t &w) {
  if (DIT) {
    const fr_t t = fr_t::mul(v, w);
    v = fr_t::sub(u, t);
    u = fr_t::add(u, t);
  } else {
    const fr_t d = fr_t::sub(u, v);
    u = fr_t::add(u, v);
    v = fr_t::mul(d, w);
  }
}
static CZ_HD void butterfly1(fr_t &u, fr_t &v) { /* twiddle 1, either way */
  const fr_t d = fr_t::sub(u, v);
  u = fr_t::add(u, v);
  v = d;
}

/* One thread of a pass: 2^E_LG elements of column c, group g. */
template <int E_LG>
struct ntt_thread {
  static constexpr int E = 1 << E_LG;
  fr_t x[E];
  unsigned g, c; /* group, column in the block */
  unsigned f;    /* column over the whole array (block of M, cc): < 2^30 */

  /* Group g of a column is rotated out of the thread index so that its low
   * wb bits are the warp's (all lanes alike): the rounds whose window
   * starts at or below bit wb then know, warp by warp, which butterflies
   * have twiddle 1 (round). */
  CZ_HD void setup(const ntt_pass_args &p, unsigned block, unsigned tid) {
    c = tid & ((1u << p.lc) - 1);
    const unsigned gt = tid >> p.lc, lane_bits = p.lp - E_LG - p.wb;
    g = (gt >> lane_bits) | ((gt & ((1u << lane_bits) - 1)) << p.wb);
    f = (block << p.lc) + c;
  }

  /* Where column f is: block x of M, column cc in it; row j is read at
   * x M + cc + (j << r), stored at *out + (j << r) -- the same place, or
   * for swap the mirror column's.  Computed where needed rather than held
   * through the rounds: the registers go to the multiplications. */
  CZ_HD unsigned place(const ntt_pass_args &p, fr_t *&col, fr_t **out) const {
    unsigned x = f >> p.r, cc = f & ((1u << p.r) - 1);
    if (p.swap)
      swap_column(f, p.r, x, cc);
    col = p.a + ((size_t)x << (p.lp + p.r)) + cc;
    if (out)
      *out = p.swap ? p.a + ((size_t)cc << (p.lp + p.r)) + x : col;
    return cc;
  }

  /* D_i: w_M^(cc bitrev(t)) = omega^e, e = cc bitrev(t) n/M. */
  CZ_HD fr_t boundary(const ntt_pass_args &p, unsigned cc, unsigned t) const {
    if (p.d1) /* the first pass: M = n, so f = cc */
      return ld_ro(p.d1 + ((size_t)t << p.r) + cc);
    const unsigned shift = p.lg_n - p.lp - p.r;
    unsigned e = (cc * brev(t, p.lp)) << shift;
    if (p.inverse)
      e = (0u - e) & (unsigned)(((size_t)1 << p.lg_n) - 1);
    const fr_t hi = ld_ro(p.thi + (e >> p.tlo_bits));
    if (shift >= p.tlo_bits) /* uniform: e is a multiple of 2^tlo_bits */
      return hi;
    return fr_t::mul(hi, ld_ro(p.tlo + (e & ((1u << p.tlo_bits) - 1))));
  }

  /* Reads the column: DIF the top round's rows; DIT the bottom round's,
   * times D_i. */
  template <bool DIT>
  CZ_HD void begin(const ntt_pass_args &p) {
    const unsigned w0 = round_w0<DIT>(p, 0, E_LG);
    fr_t *col;
    const unsigned cc = place(p, col, nullptr);
#pragma unroll
    for (int m = 0; m < E; m++) {
      const unsigned t = row_of(g, m, w0, E_LG);
      x[m] = ld_fr(col + ((size_t)t << p.r));
      if (DIT && !p.last)
        x[m] = fr_t::mul(x[m], boundary(p, cc, t));
    }
#ifdef __CUDA_ARCH__
    /* the pass-1 table entries end() will multiply by (the bottom round's
     * rows), on their way from memory while the rounds run */
    if (!DIT && p.d1) {
#pragma unroll
      for (int m = 0; m < E; m++)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(p.d1 + ((size_t)row_of(g, m, 0, E_LG) << p.r) + cc));
    }
#endif
  }

  /* Writes the column: DIF the bottom round's rows times D_i (or the
   * post-multiplier); DIT the top round's rows.  Row t goes to row t of
   * `out`, or with nat to row bitrev(t), where its frequency belongs. */
  template <bool DIT>
  CZ_HD void end(const ntt_pass_args &p) {
    const unsigned w0 = round_w0<DIT>(p, n_rounds(p, E_LG) - 1, E_LG);
    fr_t *col, *out;
    const unsigned cc = place(p, col, &out);
#pragma unroll
    for (int m = 0; m < E; m++) {
      const unsigned t = row_of(g, m, w0, E_LG);
      if (!DIT) {
        if (!p.last) {
          x[m] = fr_t::mul(x[m], boundary(p, cc, t));
        } else if (p.post == NTT_POST_SCALE) {
          x[m] = fr_t::mul(x[m], p.scale);
        } else if (p.post == NTT_POST_COSET) {
          /* position (f << lp) | t holds coefficient k = bitrev_L of it */
          const unsigned k = brev((f << p.lp) | t, p.lg_n);
          const fr_t s = fr_t::mul(ld_ro(p.glo + (k & ((1u << p.glo_bits) - 1))),
                                   ld_ro(p.ghi + (k >> p.glo_bits)));
          x[m] = fr_t::mul(x[m], s);
        }
      }
      st_fr(out + ((size_t)(p.nat ? brev(t, p.lp) : t) << p.r), x[m]);
    }
  }

  /* The stages of one round: window [w0, w0 + E_LG), the ks upper bits of
   * it (all but the top round: all).  Stage at bit b pairs rows t and
   * t + 2^b (bit b of t clear) with twiddle w_(2^(b+1))^(t mod 2^b) =
   * w_1024^((t mod 2^b) 2^(9-b)). */
  template <bool DIT>
  CZ_HD void round(const ntt_pass_args &p, unsigned w0, unsigned ks) {
    if (w0 == 0) {
      bottom<DIT>(p.w);
      return;
    }
    /* t mod 2^b is 0 when g's low w0 bits and m's low sb bits are: the
     * former warp-uniform when w0 <= wb */
    const bool low0 = w0 <= p.wb && (g & ((1u << w0) - 1)) == 0;
#pragma unroll
    for (int i = 0; i < E_LG; i++) {
      const int sb = DIT ? i : E_LG - 1 - i;
      if (sb < E_LG - (int)ks)
        continue;
      const unsigned b = w0 + sb;
#pragma unroll
      for (int m = 0; m < E; m++) {
        if (m & (1 << sb))
          continue;
        if (low0 && (m & ((1 << sb) - 1)) == 0) {
          butterfly1(x[m], x[m | (1 << sb)]);
          continue;
        }
        const unsigned t = row_of(g, m, w0, E_LG);
        const fr_t w = ld_ro(p.w + ((t & ((1u << b) - 1)) << (NTT_LG_W - 1 - b)));
        butterfly<DIT>(x[m], x[m | (1 << sb)], w);
      }
    }
  }

  /* The bottom round (w0 = 0, all E_LG stages): t mod 2^b = m mod 2^b is a
   * compile-time constant, and index 0 (twiddle 1) skips the multiply. */
  template <bool DIT>
  CZ_HD void bottom(const fr_t *w) {
#pragma unroll
    for (int i = 0; i < E_LG; i++) {
      const int sb = DIT ? i : E_LG - 1 - i;
#pragma unroll
      for (int m = 0; m < E; m++) {
        if (m & (1 << sb))
          continue;
        const unsigned j = (unsigned)(m & ((1 << sb) - 1)) << (NTT_LG_W - 1 - sb);
        if (j == 0)
          butterfly1(x[m], x[m | (1 << sb)]);
        else
          butterfly<DIT>(x[m], x[m | (1 << sb)], ld_ro(w + j));
      }
    }
  }

  /* The exchange between rounds: write at the old window's rows, (barrier),
   * read at the new window's rows, (barrier). */
  CZ_HD void put(const ntt_pass_args &p, uint4 *lo, uint4 *hi, unsigned w0) const {
#pragma unroll
    for (int m = 0; m < E; m++) {
      const unsigned t = row_of(g, m, w0, E_LG);
      sm_put(lo, hi, (sm_row(t, E_LG, p.swz) << p.lc) + c, x[m]);
    }
  }
  CZ_HD void get(const ntt_pass_args &p, const uint4 *lo, const uint4 *hi, unsigned w0) {
#pragma unroll
    for (int m = 0; m < E; m++) {
      const unsigned t = row_of(g, m, w0, E_LG);
      x[m] = sm_get(lo, hi, (sm_row(t, E_LG, p.swz) << p.lc) + c);
    }
  }
};

/* Compiled for 1024 threads per SM (4 blocks of 256, the default; the
 * bounds count blocks of NTT_MAX_THREADS), i.e. at most 64 of the 64K
 * registers per thread: see DESIGN, why e = 2. */
#define NTT_MIN_BLOCKS (1024 / NTT_MAX_THREADS)
template <int E_LG, bool DIT>
__global__ void __launch_bounds__(NTT_MAX_THREADS, NTT_MIN_BLOCKS)
    ntt_pass_kernel(const ntt_pass_args p) {
  extern __shared__ uint4 ntt_smem[];
  uint4 *lo = ntt_smem, *hi = ntt_smem + smem_half(p.lp, E_LG, p.lc, p.swz);
  ntt_thread<E_LG> th;
  th.setup(p, blockIdx.x, threadIdx.x);
  th.template begin<DIT>(p);
  const unsigned nr = n_rounds(p, E_LG);
#pragma unroll 1
  for (unsigned r = 0; r < nr; r++) {
    if (r) {
      /* uniform over the block; blocks under a warp keep __syncthreads */
      const bool wl = warp_local<DIT>(p, r, E_LG) && blockDim.x >= 32;
      th.put(p, lo, hi, round_w0<DIT>(p, r - 1, E_LG));
      if (wl)
        __syncwarp();
      else
        __syncthreads();
      th.get(p, lo, hi, round_w0<DIT>(p, r, E_LG));
      if (wl)
        __syncwarp();
      else
        __syncthreads();
    }
    th.template round<DIT>(p, round_w0<DIT>(p, r, E_LG), round_ks<DIT>(p, r, E_LG));
  }
  th.template end<DIT>(p);
}

/* The same block by block on the host: every thread through each phase
 * before any thread enters the next, as the barriers order them. */
template <int E_LG, bool DIT>
static void ntt_pass_emulate(const ntt_pass_args &p, size_t grid, unsigned threads) {
  std::vector<ntt_thread<E_LG>> th(threads);
  std::vector<uint4> sm(2 * smem_half(p.lp, E_LG, p.lc, p.swz));
  uint4 *lo = sm.data(), *hi = lo + smem_half(p.lp, E_LG, p.lc, p.swz);
  const unsigned nr = n_rounds(p, E_LG);
  for (size_t b = 0; b < grid; b++) {
    for (unsigned t = 0; t < threads; t++) {
      th[t].setup(p, (unsigned)b, t);
      th[t].template begin<DIT>(p);
    }
    for (unsigned r = 0; r < nr; r++) {
      if (r) {
        /* an exchange the kernel orders with __syncwarp only: warp by
         * warp, so that a warp reading a row another warp writes would
         * read that row's previous round here, and the tests fail */
        const unsigned step = warp_local<DIT>(p, r, E_LG) && threads >= 32 ? 32 : threads;
        for (unsigned w = 0; w < threads; w += step) {
          for (unsigned t = w; t < w + step; t++) th[t].put(p, lo, hi, round_w0<DIT>(p, r - 1, E_LG));
          for (unsigned t = w; t < w + step; t++) th[t].get(p, lo, hi, round_w0<DIT>(p, r, E_LG));
        }
      }
      for (unsigned t = 0; t < threads; t++)
        th[t].template round<DIT>(p, round_w0<DIT>(p, r, E_LG), round_ks<DIT>(p, r, E_LG));
    }
    for (unsigned t = 0; t < threads; t++) th[t].template end<DIT>(p);
  }
}

/* ------------------------------------------------- bit reversal, in place */

/* For L >= 2 BR_T: index i = (h, mid, l), h and l of BR_T bits, and
 * bitrev(i) = (rev l, rev mid, rev h).  Block `mid` (when mid <= rev mid)
 * loads the 2^BR_T x 2^BR_T tiles A (this mid) and B (rev mid) -- rows h of
 * 2^BR_T contiguous elements -- and writes A[h][l] = B[rev l][rev h] and
 * B[h][l] = A[rev l][rev h].  Blocks touch disjoint elements and read all
 * before writing: in place is safe.  Shared memory swizzles the column by
 * row/4 so that both the row-wise writes and the transposed reads of a
 * quarter warp hit 8 distinct bank groups. */
#define BR_T 5
#define BR_THREADS 256
#define BR_TILE (1u << (2 * BR_T))

static CZ_HD unsigned br_phys(unsigned row, unsigned col) {
  return (row << BR_T) | (col ^ ((row >> 2) & 7));
}

struct bitrev_args {
  fr_t *a;
  unsigned lg_n;
};

static CZ_HD bool br_active(const bitrev_args &p, unsigned mid) {
  return mid <= brev(mid, p.lg_n - 2 * BR_T);
}

static CZ_HD size_t br_index(const bitrev_args &p, unsigned h, unsigned mid, unsigned l) {
  return ((size_t)h << (p.lg_n - BR_T)) | ((size_t)mid << BR_T) | l;
}

static CZ_HD void br_load(const bitrev_args &p, unsigned mid, unsigned tid, uint4 *sm) {
  const unsigned rm = brev(mid, p.lg_n - 2 * BR_T);
  uint4 *alo = sm, *ahi = sm + BR_TILE, *blo = sm + 2 * BR_TILE, *bhi = sm + 3 * BR_TILE;
  for (unsigned q = tid; q < BR_TILE; q += BR_THREADS) {
    const unsigned h = q >> BR_T, l = q & ((1u << BR_T) - 1);
    sm_put(alo, ahi, br_phys(h, l), ld_fr(p.a + br_index(p, h, mid, l)));
    if (rm != mid)
      sm_put(blo, bhi, br_phys(h, l), ld_fr(p.a + br_index(p, h, rm, l)));
  }
}

static CZ_HD void br_store(const bitrev_args &p, unsigned mid, unsigned tid, const uint4 *sm) {
  const unsigned rm = brev(mid, p.lg_n - 2 * BR_T);
  const uint4 *alo = sm, *ahi = sm + BR_TILE;
  const uint4 *blo = rm != mid ? sm + 2 * BR_TILE : alo, *bhi = rm != mid ? sm + 3 * BR_TILE : ahi;
  for (unsigned q = tid; q < BR_TILE; q += BR_THREADS) {
    const unsigned h = q >> BR_T, l = q & ((1u << BR_T) - 1);
    const unsigned s = br_phys(brev(l, BR_T), brev(h, BR_T));
    st_fr(p.a + br_index(p, h, mid, l), sm_get(blo, bhi, s));
    if (rm != mid)
      st_fr(p.a + br_index(p, h, rm, l), sm_get(alo, ahi, s));
  }
}

__global__ void __launch_bounds__(BR_THREADS) ntt_bitrev_kernel(const bitrev_args p) {
  extern __shared__ uint4 ntt_smem[];
  if (!br_active(p, blockIdx.x))
    return; /* the whole block: its pair belongs to block rev(mid) */
  br_load(p, blockIdx.x, threadIdx.x, ntt_smem);
  __syncthreads();
  br_store(p, blockIdx.x, threadIdx.x, ntt_smem);
}

/* Small sizes (L < 2 BR_T): thread i swaps a[i] and a[bitrev(i)] if i < bitrev(i). */
static CZ_HD void br_small_one(const bitrev_args &p, unsigned i) {
  const unsigned j = brev(i, p.lg_n);
  if (i < j) {
    const fr_t t = ld_fr(p.a + i);
    st_fr(p.a + i, ld_fr(p.a + j));
    st_fr(p.a + j, t);
  }
}

__global__ void ntt_bitrev_small_kernel(const bitrev_args p) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (1u << p.lg_n))
    br_small_one(p, i);
}

/* ----------------------------------------------------------- pointwise */

/* c[i] = a[i] b[i] */
static CZ_HD void pw_mul_one(fr_t *c, const fr_t *a, const fr_t *b, size_t i) {
  st_fr(c + i, fr_t::mul(ld_fr(a + i), ld_fr(b + i)));
}
/* h[i] = a[i] b[i] - c[i], canonical: 8 little-endian 32-bit limbs, which on
 * a little-endian machine are the 32 little-endian bytes.  h may be c. */
static CZ_HD void pw_quot_one(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, size_t i) {
  const fr_t t = fr_t::sub(fr_t::mul(ld_fr(a + i), ld_fr(b + i)), ld_fr(c + i));
  st_fr(h + i, fr_t::to_canon(t));
}
/* a[i] = a[i] b[i] z: the coset product over x^n - 1, which is the
 * constant 1/z on the coset (Montgomery out) */
static CZ_HD void pw_mulz_one(fr_t *a, const fr_t *b, const fr_t &z, size_t i) {
  st_fr(a + i, fr_t::mul(fr_t::mul(ld_fr(a + i), ld_fr(b + i)), z));
}
/* h[i] = x[i] g^-i - c[i] z, canonical (lo[i mod 2^bits] hi[i >> bits] =
 * g^-i); h may be x or c */
static CZ_HD void uncoset_sub_one(fr_t *h, const fr_t *x, const fr_t *c, const fr_t *lo,
                                  const fr_t *hi, const fr_t &z, unsigned bits, size_t i) {
  const fr_t s = fr_t::mul(ld_ro(lo + (i & (((size_t)1 << bits) - 1))), ld_ro(hi + (i >> bits)));
  st_fr(h + i, fr_t::to_canon(fr_t::sub(fr_t::mul(ld_fr(x + i), s), fr_t::mul(ld_fr(c + i), z))));
}
/* t[e] = hi[e >> lo_bits] lo[e mod 2^lo_bits]: the full twiddle table */
static CZ_HD void full_tw_one(fr_t *t, const fr_t *hi, const fr_t *lo, unsigned lo_bits, size_t e) {
  st_fr(t + e, fr_t::mul(ld_fr(hi + (e >> lo_bits)), ld_fr(lo + (e & (((size_t)1 << lo_bits) - 1)))));
}

/* d1[(t << r) + cc] = omega^(cc bitrev_lp(t)), the first pass's D (r its
 * column bits, lp its stages): hi[e] (lo_bits = 0: the full table) or
 * hi[e >> lo_bits] lo[e mod 2^lo_bits] */
static CZ_HD void d1_one(fr_t *d1, const fr_t *hi, const fr_t *lo, unsigned lo_bits, unsigned r,
                         unsigned lp, size_t i) {
  const size_t cc = i & (((size_t)1 << r) - 1), e = cc * brev((unsigned)(i >> r), lp);
  fr_t x = ld_fr(hi + (e >> lo_bits));
  if (lo_bits)
    x = fr_t::mul(x, ld_fr(lo + (e & (((size_t)1 << lo_bits) - 1))));
  st_fr(d1 + i, x);
}

__global__ void ntt_d1_kernel(fr_t *d1, const fr_t *hi, const fr_t *lo, unsigned lo_bits,
                              unsigned r, unsigned lp, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d1_one(d1, hi, lo, lo_bits, r, lp, i);
}

__global__ void ntt_pw_mul_kernel(fr_t *c, const fr_t *a, const fr_t *b, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    pw_mul_one(c, a, b, i);
}
__global__ void ntt_pw_quot_kernel(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    pw_quot_one(h, a, b, c, i);
}
__global__ void ntt_pw_mulz_kernel(fr_t *a, const fr_t *b, const fr_t z, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    pw_mulz_one(a, b, z, i);
}
__global__ void ntt_uncoset_sub_kernel(fr_t *h, const fr_t *x, const fr_t *c, const fr_t *lo,
                                       const fr_t *hi, const fr_t z, unsigned bits, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    uncoset_sub_one(h, x, c, lo, hi, z, bits, i);
}
__global__ void ntt_full_tw_kernel(fr_t *t, const fr_t *hi, const fr_t *lo, unsigned lo_bits,
                                   size_t n) {
  const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n)
    full_tw_one(t, hi, lo, lo_bits, e);
}

/* ---------------------------------------------------------------- plan */

struct ntt_pass_shape {
  unsigned lp, r, e_lg, lc, k_top, odd, threads, wb, swz;
  size_t grid, smem;
};

struct cuda_ntt_plan {
  unsigned lg_n;
  size_t n;
  int roots;
  cuda_ntt_config cfg;
  bool emulate;
  unsigned npass;
  ntt_pass_shape pass[NTT_MAX_PASSES]; /* pass[0] takes the top bits */
  /* The self-sorting forward and inverse (DESIGN): passes of m, L - 2m and
   * m stages, m = pass[0].lp: pass[0]'s shape, smid, pass[0]'s again. */
  bool sorted;
  ntt_pass_shape smid;
  unsigned tlo_bits, glo_bits;
  fr_t *tables; /* one allocation: w[0], w[1], [full], thi, tlo, glo, ghi, gilo, gihi, [d1] */
  fr_t *w[2], *thi, *tlo, *glo, *ghi, *gilo, *gihi, *d1;
  fr_t n_inv;
  fr_t zinv; /* 1 / (g^n - 1) for cfg.coset_gen = g */
  void *buf[CUDA_NTT_MAX_BUFFERS];
  size_t bytes;
};

/* Where the work goes: kernels on a stream, or the host emulation. */
struct ntt_exec {
  bool emulate;
  cudaStream_t s;
  cuzk_err *err;
  const void *stop; /* the quotient's stop hook (base/stop.h), NULL: none */
};

/* A stoppable quotient between its evaluations: with a hook, waits for the
 * stream (so that the poll sees the work queued so far done, and a stop
 * leaves nothing running on the plan's buffers), then CUZK_CANCELLED when
 * the hook is set.  The wait idles the GPU for the host's next launches,
 * a few tens of microseconds, three times per quotient. */
static cuzk_status poll_stop(const ntt_exec &x) {
  if (!x.stop)
    return CUZK_OK;
  if (!x.emulate)
    CUDA_TRY(x.err, cudaStreamSynchronize(x.s));
  if (cuzk_stop_requested(x.stop))
    return cuzk_err_set(x.err, CUZK_CANCELLED, "cuda NTT: cancelled in the quotient");
  return CUZK_OK;
}

#define PW_THREADS 256

static size_t blocks_for(size_t n, unsigned threads) { return (n + threads - 1) / threads; }

template <int E_LG, bool DIT>
static cuzk_status launch_pass(const ntt_exec &x, const ntt_pass_args &a, const ntt_pass_shape &s) {
  if (x.emulate) {
    ntt_pass_emulate<E_LG, DIT>(a, s.grid, s.threads);
    return CUZK_OK;
  }
  ntt_pass_kernel<E_LG, DIT><<<(unsigned)s.grid, s.threads, s.smem, x.s>>>(a);
  CUDA_TRY(x.err, cudaGetLastError());
  return CUZK_OK;
}

/* What a pass does besides its butterflies (ntt_pass_args). */
struct ntt_pass_role {
  bool first, last, dit, nat, swap;
};

static cuzk_status run_pass(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a,
                            const ntt_pass_shape &s, ntt_pass_role role, int dir, unsigned post) {
  const bool dit = role.dit;
  ntt_pass_args g;
  g.a = a;
  g.w = P->w[dir];
  g.thi = P->thi;
  g.tlo = P->tlo;
  g.glo = P->glo;
  g.ghi = P->ghi;
  g.d1 = role.first && dir == 0 ? P->d1 : nullptr; /* null without pass1_table */
  g.scale = P->n_inv;
  g.lg_n = P->lg_n;
  g.lp = s.lp;
  g.r = s.r;
  g.lc = s.lc;
  g.k_top = s.k_top;
  g.odd = s.odd;
  g.tlo_bits = P->tlo_bits;
  g.glo_bits = P->glo_bits;
  g.inverse = (unsigned)dir;
  g.post = role.last ? post : NTT_POST_NONE;
  g.last = role.last;
  g.nat = role.nat;
  g.swap = role.swap;
  g.wb = s.wb;
  g.swz = s.swz;
  if (s.e_lg == 1) /* a pass of one stage */
    return dit ? launch_pass<1, true>(x, g, s) : launch_pass<1, false>(x, g, s);
  return dit ? launch_pass<NTT_E_LG, true>(x, g, s) : launch_pass<NTT_E_LG, false>(x, g, s);
}

/* DIF passes (natural in, bit-reversed out); post applies in the last. */
static cuzk_status run_dif(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a, int dir,
                           unsigned post) {
  for (unsigned i = 0; i < P->npass; i++) {
    const ntt_pass_role role = {i == 0, i + 1 == P->npass, false, false, false};
    CUZK_TRY(run_pass(P, x, a, P->pass[i], role, dir, post));
  }
  return CUZK_OK;
}

/* DIT passes (bit-reversed in, natural out). */
static cuzk_status run_dit(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a, int dir) {
  for (unsigned i = P->npass; i-- > 0;) {
    const ntt_pass_role role = {i == 0, i + 1 == P->npass, true, false, false};
    CUZK_TRY(run_pass(P, x, a, P->pass[i], role, dir, NTT_POST_NONE));
  }
  return CUZK_OK;
}

/* The self-sorting DIF (natural in, natural out; DESIGN). */
static cuzk_status run_sorted(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a, int dir,
                              unsigned post) {
  for (unsigned i = 0; i < 3; i++) {
    const ntt_pass_role role = {i == 0, i == 2, false, true, i == 1};
    CUZK_TRY(run_pass(P, x, a, i == 1 ? P->smid : P->pass[0], role, dir, post));
  }
  return CUZK_OK;
}

static cuzk_status run_bitrev(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a) {
  if (P->lg_n < 2)
    return CUZK_OK;
  bitrev_args b = {a, P->lg_n};
  if (P->lg_n < 2 * BR_T) {
    if (x.emulate) {
      for (unsigned i = 0; i < (1u << P->lg_n); i++) br_small_one(b, i);
      return CUZK_OK;
    }
    ntt_bitrev_small_kernel<<<1, 1u << P->lg_n, 0, x.s>>>(b);
    CUDA_TRY(x.err, cudaGetLastError());
    return CUZK_OK;
  }
  const unsigned mids = 1u << (P->lg_n - 2 * BR_T);
  const size_t smem = 4 * BR_TILE * sizeof(uint4);
  if (x.emulate) {
    std::vector<uint4> sm(4 * BR_TILE);
    for (unsigned mid = 0; mid < mids; mid++) {
      if (!br_active(b, mid))
        continue;
      for (unsigned t = 0; t < BR_THREADS; t++) br_load(b, mid, t, sm.data());
      for (unsigned t = 0; t < BR_THREADS; t++) br_store(b, mid, t, sm.data());
    }
    return CUZK_OK;
  }
  ntt_bitrev_kernel<<<mids, BR_THREADS, smem, x.s>>>(b);
  CUDA_TRY(x.err, cudaGetLastError());
  return CUZK_OK;
}

static cuzk_status run_pw_mul(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *c, const fr_t *a,
                              const fr_t *b) {
  if (x.emulate) {
    for (size_t i = 0; i < P->n; i++) pw_mul_one(c, a, b, i);
    return CUZK_OK;
  }
  ntt_pw_mul_kernel<<<(unsigned)blocks_for(P->n, PW_THREADS), PW_THREADS, 0, x.s>>>(c, a, b, P->n);
  CUDA_TRY(x.err, cudaGetLastError());
  return CUZK_OK;
}

static cuzk_status run_pw_quot(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *h, const fr_t *a,
                               const fr_t *b, const fr_t *c) {
  if (x.emulate) {
    for (size_t i = 0; i < P->n; i++) pw_quot_one(h, a, b, c, i);
    return CUZK_OK;
  }
  ntt_pw_quot_kernel<<<(unsigned)blocks_for(P->n, PW_THREADS), PW_THREADS, 0, x.s>>>(h, a, b, c,
                                                                                     P->n);
  CUDA_TRY(x.err, cudaGetLastError());
  return CUZK_OK;
}

static cuzk_status run_pw_mulz(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a,
                               const fr_t *b) {
  if (x.emulate) {
    for (size_t i = 0; i < P->n; i++) pw_mulz_one(a, b, P->zinv, i);
    return CUZK_OK;
  }
  ntt_pw_mulz_kernel<<<(unsigned)blocks_for(P->n, PW_THREADS), PW_THREADS, 0, x.s>>>(a, b, P->zinv,
                                                                                     P->n);
  CUDA_TRY(x.err, cudaGetLastError());
  return CUZK_OK;
}

static cuzk_status run_uncoset_sub(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *h,
                                   const fr_t *v, const fr_t *c) {
  if (x.emulate) {
    for (size_t i = 0; i < P->n; i++)
      uncoset_sub_one(h, v, c, P->gilo, P->gihi, P->zinv, P->glo_bits, i);
    return CUZK_OK;
  }
  ntt_uncoset_sub_kernel<<<(unsigned)blocks_for(P->n, PW_THREADS), PW_THREADS, 0, x.s>>>(
      h, v, c, P->gilo, P->gihi, P->zinv, P->glo_bits, P->n);
  CUDA_TRY(x.err, cudaGetLastError());
  return CUZK_OK;
}

/* The inverse, natural order in and out. */
static cuzk_status run_inverse(const cuda_ntt_plan *P, const ntt_exec &x, fr_t *a) {
  if (P->sorted)
    return run_sorted(P, x, a, 1, NTT_POST_SCALE);
  CUZK_TRY(run_dif(P, x, a, 1, NTT_POST_SCALE));
  return run_bitrev(P, x, a);
}

/* The operations, on any executor. */
static cuzk_status op_run(const cuda_ntt_plan *P, const ntt_exec &x, cuda_ntt_op op, fr_t *a,
                          fr_t *b, fr_t *c, fr_t *h, bool compute_c) {
  switch (op) {
  case CUDA_NTT_OP_FORWARD:
    if (P->sorted)
      return run_sorted(P, x, a, 0, NTT_POST_NONE);
    CUZK_TRY(run_dif(P, x, a, 0, NTT_POST_NONE));
    return run_bitrev(P, x, a);
  case CUDA_NTT_OP_FORWARD_BITREV:
    return run_dif(P, x, a, 0, NTT_POST_NONE);
  case CUDA_NTT_OP_INVERSE:
    return run_inverse(P, x, a);
  case CUDA_NTT_OP_TO_ODD_COSET:
    CUZK_TRY(run_dif(P, x, a, 1, NTT_POST_COSET));
    return run_dit(P, x, a, 0);
  case CUDA_NTT_OP_COSET_QUOTIENT:
    /* Six transforms (ntt_gpu.h): a and b to the coset, c to its
     * coefficients, the product back to coefficients. */
    for (fr_t *v : {a, b}) {
      if (v != a)
        CUZK_TRY(poll_stop(x)); /* one coset evaluation per poll */
      CUZK_TRY(run_dif(P, x, v, 1, NTT_POST_COSET));
      CUZK_TRY(run_dit(P, x, v, 0));
    }
    CUZK_TRY(poll_stop(x));
    CUZK_TRY(run_inverse(P, x, c));
    CUZK_TRY(run_pw_mulz(P, x, a, b));
    CUZK_TRY(poll_stop(x));
    CUZK_TRY(run_inverse(P, x, a));
    return run_uncoset_sub(P, x, h, a, c);
  default: /* quotient */
    if (compute_c)
      CUZK_TRY(run_pw_mul(P, x, c, a, b));
    for (fr_t *v : {a, b, c}) {
      if (v != a)
        CUZK_TRY(poll_stop(x)); /* one odd-coset evaluation per poll */
      CUZK_TRY(run_dif(P, x, v, 1, NTT_POST_COSET));
      CUZK_TRY(run_dit(P, x, v, 0));
    }
    CUZK_TRY(poll_stop(x));
    return run_pw_quot(P, x, h, a, b, c);
  }
}

/* The shape of a pass of lp stages over columns of stride 2^r at size 2^L:
 * e = min(NTT_E_LG, lp); 2^(lp - e) threads per column, 2^lc columns per
 * block so that a block has cfg.threads threads (fewer when the array is
 * small). */
static cuzk_status shape_of(const cuda_ntt_plan *P, unsigned lp, unsigned r, ntt_pass_shape &s,
                            cuzk_err *err) {
  const unsigned L = P->lg_n, lt = __builtin_ctz(P->cfg.threads);
  s.lp = lp;
  s.r = r;
  s.e_lg = std::min((unsigned)NTT_E_LG, s.lp);
  s.k_top = s.lp % s.e_lg ? s.lp % s.e_lg : s.e_lg;
  if (s.lp - s.e_lg > lt)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda ntt: a pass of %u stages with 2^%u elements per thread needs %u "
                        "threads per block, more than the %u configured",
                        s.lp, s.e_lg, 1u << (s.lp - s.e_lg), P->cfg.threads);
  s.lc = std::min(lt - (s.lp - s.e_lg), L - s.lp);
  s.threads = 1u << (s.lp - s.e_lg + s.lc);
  s.grid = (size_t)1 << (L - s.lp - s.lc);
  /* warp-uniform group bits: those above the 5 - lc lane bits of a group */
  const unsigned gb = s.lp - s.e_lg, lane = s.lc >= 5 ? 0 : 5 - s.lc;
  s.wb = gb > lane ? gb - lane : 0;
  s.swz = s.wb >= 3 && s.lp > s.wb ? s.wb : 0;
  /* the odd round's window starting at bit wb: DIF index (lp - e - wb) / e,
   * when that is a whole number of rounds above the bottom one */
  s.odd = 0;
  if (s.k_top < s.e_lg && s.wb && s.lp >= 2 * s.e_lg + s.wb &&
      (s.lp - s.e_lg - s.wb) % s.e_lg == 0)
    s.odd = (s.lp - s.e_lg - s.wb) / s.e_lg;
  s.smem = 2 * smem_half(s.lp, s.e_lg, s.lc, s.swz) * sizeof(uint4);
  return CUZK_OK;
}

/* Pass shapes for size 2^L: ceil(L / cap) passes, sizes balanced (larger
 * first).  With three of them the forward and inverse self-sort (DESIGN):
 * passes of m, L - 2m, m stages (m = pass[0].lp), when the middle one has
 * at least one stage and two columns per block (its columns go in pairs). */
static cuzk_status make_shapes(cuda_ntt_plan *P, cuzk_err *err) {
  const unsigned L = P->lg_n, cap = P->cfg.max_pass_lg;
  P->npass = L ? (L + cap - 1) / cap : 0;
  if (P->npass > NTT_MAX_PASSES)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda ntt: 2^%u in passes of at most %u stages is more than %u passes", L,
                        cap, NTT_MAX_PASSES);
  /* cfg.first_lg: the first pass (and so the outer ones of a self-sorting
   * plan) takes that many stages, the others share the rest, balanced */
  const unsigned first = P->cfg.first_lg;
  const unsigned lead = first && P->npass >= 2 && first < L && first <= cap &&
                                L - first <= cap * (P->npass - 1) ? 1 : 0;
  const unsigned rest = L - (lead ? first : 0), k = P->npass - lead;
  unsigned done = 0;
  for (unsigned i = 0; i < P->npass; i++) {
    const unsigned lp = i < lead ? first : rest / k + (i - lead < rest % k ? 1 : 0);
    done += lp;
    CUZK_TRY(shape_of(P, lp, L - done, P->pass[i], err));
  }
  P->sorted = false;
  if (P->npass != 3)
    return CUZK_OK;
  const unsigned m = P->pass[0].lp;
  if (L < 2 * m + 1)
    return CUZK_OK;
  ntt_pass_shape mid;
  cuzk_err ignored = {};
  if (shape_of(P, L - 2 * m, m, mid, &ignored) != CUZK_OK || mid.lc == 0)
    return CUZK_OK;
  P->smid = mid;
  P->sorted = true;
  return CUZK_OK;
}

/* Raises the dynamic shared-memory limit of every kernel a plan launches. */
static cuzk_status set_smem_limits(const cuda_ntt_plan *P, cuzk_err *err) {
  for (unsigned i = 0; i < P->npass + (P->sorted ? 1 : 0); i++) {
    const ntt_pass_shape &s = i < P->npass ? P->pass[i] : P->smid;
    const int sm = (int)s.smem;
    const void *const k[2] = {
        s.e_lg == 1 ? (const void *)ntt_pass_kernel<1, false>
                    : (const void *)ntt_pass_kernel<NTT_E_LG, false>,
        s.e_lg == 1 ? (const void *)ntt_pass_kernel<1, true>
                    : (const void *)ntt_pass_kernel<NTT_E_LG, true>};
    for (const void *f : k) {
      cudaFuncAttributes attr;
      CUDA_TRY(err, cudaFuncGetAttributes(&attr, f));
      if (attr.maxDynamicSharedSizeBytes < sm)
        CUDA_TRY(err, cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, sm));
    }
  }
  CUDA_TRY(err, cudaFuncSetAttribute((const void *)ntt_bitrev_kernel,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)(4 * BR_TILE * sizeof(uint4))));
  return CUZK_OK;
}

/* Frees what a (possibly half-made) plan holds. */
static void plan_release(cuda_ntt_plan *P) {
  void *mem[1 + CUDA_NTT_MAX_BUFFERS] = {P->tables};
  for (unsigned i = 0; i < CUDA_NTT_MAX_BUFFERS; i++) mem[1 + i] = P->buf[i];
  for (void *m : mem) {
    if (!m)
      continue;
    if (P->emulate)
      free(m);
    else
      cuda_gc_free(m); /* plan teardown, not the operation path */
  }
}

static cuzk_status plan_alloc(cuda_ntt_plan *P, void **m, size_t bytes, const char *what,
                              cuzk_err *err) {
  if (P->emulate) {
    *m = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!*m)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda ntt (emulated): no host memory for %s (%zu bytes)",
                          what, bytes);
  } else {
    cudaError_t e = cuda_gc_malloc(m, bytes);
    if (e != cudaSuccess) {
      *m = nullptr;
      cudaGetLastError(); /* clear it: out of memory is not sticky */
      char call[96];
      snprintf(call, sizeof call, "cuda ntt 2^%u: cudaMalloc of %zu bytes for %s", P->lg_n, bytes,
               what);
      /* cuda_fail's mapping, so that a lost device reads as DEVICE_LOST */
      return cuda_fail(e, __FILE__, __LINE__, call, err);
    }
  }
  P->bytes += bytes;
  return CUZK_OK;
}

/* Fills the tables (host copies; see DESIGN) and moves them to the device. */
static cuzk_status make_tables(cuda_ntt_plan *P, cuzk_err *err) {
  const unsigned L = P->lg_n;
  const bool boundary = P->npass >= 2, full = boundary && P->cfg.full_twiddles;
  /* the product split: tlo_bits = lp_0 (full: L/2 for the scratch pair) */
  const unsigned split = full ? L / 2 : boundary ? P->pass[0].lp : 0;
  P->tlo_bits = full ? 0 : split;
  P->glo_bits = (L + 1) / 2;
  const size_t nw = (size_t)1 << (NTT_LG_W - 1);
  const size_t nhi = boundary ? (size_t)1 << (L - split) : 0, nlo = boundary ? (size_t)1 << split : 0;
  const size_t nfull = full ? (size_t)1 << L : 0;
  const size_t nd1 = boundary && P->cfg.pass1_table ? (size_t)1 << L : 0;
  const size_t nglo = (size_t)1 << P->glo_bits, nghi = (size_t)1 << (L - P->glo_bits);
  const size_t nhost = 2 * nw + nhi + nlo + 2 * (nglo + nghi), total = nhost + nfull + nd1;

  std::vector<fr_t> h;
  try {
    h.resize(nhost);
  } catch (const std::bad_alloc &) {
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda ntt 2^%u: no host memory for the tables", L);
  }
  fr_t *w0 = h.data(), *w1 = w0 + nw, *hi = w1 + nw, *lo = hi + nhi, *glo = lo + nlo,
       *ghi = glo + nglo, *gilo = ghi + nghi, *gihi = gilo + nglo;
  fr_t r, g, gs;
  cuda_ntt_host_root(&r, P->roots, NTT_LG_W, false);
  cuda_ntt_host_powers(w0, nw, nullptr, &r);
  cuda_ntt_host_root(&r, P->roots, NTT_LG_W, true);
  cuda_ntt_host_powers(w1, nw, nullptr, &r);
  if (boundary) {
    cuda_ntt_host_root(&r, P->roots, L - split, false); /* omega^(2^split) */
    cuda_ntt_host_powers(hi, nhi, nullptr, &r);
    cuda_ntt_host_root(&r, P->roots, L, false);
    cuda_ntt_host_powers(lo, nlo, nullptr, &r);
  }
  cuda_ntt_host_inv_pow2(&P->n_inv, L);
  if (P->cfg.coset_gen) {
    cuda_ntt_host_small(&g, P->cfg.coset_gen);
    cuda_ntt_host_vanishing_inv(&P->zinv, &g, L);
  } else {
    cuda_ntt_host_coset_shift(&g, P->roots, L);
  }
  cuda_ntt_host_powers(glo, nglo, nullptr, &g);
  cuda_ntt_host_sqr_k(&gs, &g, P->glo_bits);
  cuda_ntt_host_powers(ghi, nghi, &P->n_inv, &gs);
  cuda_ntt_host_inv(&g, &g);
  cuda_ntt_host_powers(gilo, nglo, nullptr, &g);
  cuda_ntt_host_sqr_k(&gs, &g, P->glo_bits);
  cuda_ntt_host_powers(gihi, nghi, nullptr, &gs);

  void *mem;
  CUZK_TRY(plan_alloc(P, &mem, total * sizeof(fr_t), "twiddle tables", err));
  P->tables = (fr_t *)mem;
  /* device layout: w0 w1 [full] hi lo glo ghi gilo gihi [d1] */
  fr_t *d = P->tables;
  P->w[0] = d;
  P->w[1] = d + nw;
  fr_t *dfull = d + 2 * nw, *dhi = dfull + nfull, *dlo = dhi + nhi;
  P->glo = dlo + nlo;
  P->ghi = P->glo + nglo;
  P->gilo = P->ghi + nghi;
  P->gihi = P->gilo + nglo;
  P->thi = full ? dfull : dhi;
  P->tlo = full ? nullptr : dlo;
  P->d1 = nd1 ? P->gihi + nghi : nullptr;
  const unsigned d1_r = P->pass[0].r, d1_lp = P->pass[0].lp;
  if (P->emulate) {
    memcpy(d, w0, 2 * nw * sizeof(fr_t));
    memcpy(dhi, hi, (nhost - 2 * nw) * sizeof(fr_t));
    if (full)
      for (size_t e = 0; e < nfull; e++) full_tw_one(dfull, dhi, dlo, split, e);
    for (size_t i = 0; i < nd1; i++) d1_one(P->d1, P->thi, P->tlo, P->tlo_bits, d1_r, d1_lp, i);
    return CUZK_OK;
  }
  cuda_stream st;
  CUDA_TRY(err, cuda_gc_stream_new(&st.h, cudaStreamNonBlocking, 0));
  CUDA_TRY(err, cudaMemcpyAsync(d, w0, 2 * nw * sizeof(fr_t), cudaMemcpyHostToDevice, st.h));
  CUDA_TRY(err, cudaMemcpyAsync(dhi, hi, (nhost - 2 * nw) * sizeof(fr_t),
                                cudaMemcpyHostToDevice, st.h));
  if (full) {
    ntt_full_tw_kernel<<<(unsigned)blocks_for(nfull, PW_THREADS), PW_THREADS, 0, st.h>>>(
        dfull, dhi, dlo, split, nfull);
    CUDA_TRY(err, cudaGetLastError());
  }
  if (nd1) { /* after the full table, which it may read */
    ntt_d1_kernel<<<(unsigned)blocks_for(nd1, PW_THREADS), PW_THREADS, 0, st.h>>>(
        P->d1, P->thi, P->tlo, P->tlo_bits, d1_r, d1_lp, nd1);
    CUDA_TRY(err, cudaGetLastError());
  }
  CUDA_TRY(err, cudaStreamSynchronize(st.h)); /* h is freed on return */
  return CUZK_OK;
}

extern "C" cuzk_status cuda_ntt_plan_new(cuda_ntt_plan **out, unsigned lg_n, int roots,
                                         const cuda_ntt_config *cfg_in, cuzk_err *err) {
  if (!out)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_ntt_plan_new: out is NULL");
  *out = nullptr;
  cuda_ntt_config cfg = {};
  if (cfg_in)
    cfg = *cfg_in;
  if (!cfg.max_pass_lg)
    cfg.max_pass_lg = NTT_LG_W;
  if (!cfg.threads)
    cfg.threads = NTT_DEF_THREADS;
  if (lg_n > CUDA_NTT_LG_MAX || !cuda_ntt_host_roots_ok(roots) || cfg.buffers > CUDA_NTT_MAX_BUFFERS ||
      cfg.max_pass_lg > NTT_LG_W || cfg.threads < 32 ||
      cfg.threads > NTT_MAX_THREADS || (cfg.threads & (cfg.threads - 1)))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_ntt_plan_new: want lg_n <= %u (got %u), a known root chain (%d), "
                        "buffers <= %u, max_pass_lg <= %u, threads a power of two "
                        "in 32..%u",
                        CUDA_NTT_LG_MAX, lg_n, roots, CUDA_NTT_MAX_BUFFERS, NTT_LG_W,
                        NTT_MAX_THREADS);
  cuda_ntt_plan *P = new (std::nothrow) cuda_ntt_plan();
  if (!P)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda_ntt_plan_new: no host memory");
  P->lg_n = lg_n;
  P->n = (size_t)1 << lg_n;
  P->roots = roots;
  P->cfg = cfg;
  P->emulate = cfg.emulate;
  cuzk_status s = make_shapes(P, err);
  if (s == CUZK_OK && !P->emulate)
    s = set_smem_limits(P, err);
  if (s == CUZK_OK)
    s = make_tables(P, err);
  for (unsigned i = 0; s == CUZK_OK && i < cfg.buffers; i++)
    s = plan_alloc(P, &P->buf[i], P->n * sizeof(fr_t), "a data buffer", err);
  if (s != CUZK_OK) {
    plan_release(P);
    delete P;
    return s;
  }
  *out = P;
  return CUZK_OK;
}

extern "C" void cuda_ntt_plan_free(cuda_ntt_plan *p) {
  if (!p)
    return;
  plan_release(p);
  delete p;
}

extern "C" void *cuda_ntt_plan_buffer(const cuda_ntt_plan *p, unsigned i) {
  return p && i < CUDA_NTT_MAX_BUFFERS ? p->buf[i] : nullptr;
}

extern "C" size_t cuda_ntt_plan_bytes(const cuda_ntt_plan *p) { return p ? p->bytes : 0; }

extern "C" void cuda_ntt_plan_describe(const cuda_ntt_plan *p, char *buf, size_t n) {
  if (!buf || !n)
    return;
  if (!p) {
    snprintf(buf, n, "(no plan)");
    return;
  }
  int k = snprintf(buf, n, "2^%u%s: %u pass%s", p->lg_n, p->emulate ? " (emulated)" : "", p->npass,
                   p->npass == 1 ? "" : "es");
  for (unsigned i = 0; i < p->npass && k > 0 && (size_t)k < n; i++) {
    const ntt_pass_shape &s = p->pass[i];
    char odd[48] = "";
    if (s.odd)
      snprintf(odd, sizeof odd, ", single stage in round %u", s.odd);
    k += snprintf(buf + k, n - k, "%s%u (2^%u/thread%s, %u thr x %zu blk, %zu KiB)",
                  i ? " + " : " ", s.lp, s.e_lg, odd, s.threads, s.grid, s.smem >> 10);
  }
  if (p->sorted && k > 0 && (size_t)k < n) {
    const ntt_pass_shape &s = p->smid;
    k += snprintf(buf + k, n - k, "; self-sorting %u + %u (2^%u/thread, %u thr x %zu blk) + %u",
                  p->pass[0].lp, s.lp, s.e_lg, s.threads, s.grid, p->pass[0].lp);
  }
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - k, "; twiddles %s%s, %.1f MiB", p->tlo_bits ? "hi*lo" : "full",
             p->d1 ? " + pass-1 table" : "",
             (double)(p->bytes - p->cfg.buffers * p->n * sizeof(fr_t)) / (1 << 20));
}

/* ---------------------------------------------------------- operations */

static cuzk_status check_ptr(const cuda_ntt_plan *p, const void *a, const char *fn, cuzk_err *err) {
  if (!p)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: no plan", fn);
  if (!a || ((uintptr_t)a & 15))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: buffer %p is NULL or not 16-byte aligned",
                        fn, a);
  return CUZK_OK;
}

static ntt_exec exec_of(const cuda_ntt_plan *p, void *stream, cuzk_err *err) {
  return ntt_exec{p->emulate, (cudaStream_t)stream, err, nullptr};
}

static cuzk_status transform(const cuda_ntt_plan *p, cuda_ntt_op op, void *a, void *stream,
                             const char *fn, cuzk_err *err) {
  CUZK_TRY(check_ptr(p, a, fn, err));
  return op_run(p, exec_of(p, stream, err), op, (fr_t *)a, nullptr, nullptr, nullptr, false);
}

extern "C" cuzk_status cuda_ntt_forward(const cuda_ntt_plan *p, void *a, void *stream,
                                        cuzk_err *err) {
  return transform(p, CUDA_NTT_OP_FORWARD, a, stream, "cuda_ntt_forward", err);
}
extern "C" cuzk_status cuda_ntt_forward_bitrev(const cuda_ntt_plan *p, void *a, void *stream,
                                               cuzk_err *err) {
  return transform(p, CUDA_NTT_OP_FORWARD_BITREV, a, stream, "cuda_ntt_forward_bitrev", err);
}
extern "C" cuzk_status cuda_ntt_inverse(const cuda_ntt_plan *p, void *a, void *stream,
                                        cuzk_err *err) {
  return transform(p, CUDA_NTT_OP_INVERSE, a, stream, "cuda_ntt_inverse", err);
}
extern "C" cuzk_status cuda_ntt_to_odd_coset(const cuda_ntt_plan *p, void *a, void *stream,
                                             cuzk_err *err) {
  return transform(p, CUDA_NTT_OP_TO_ODD_COSET, a, stream, "cuda_ntt_to_odd_coset", err);
}

extern "C" cuzk_status cuda_ntt_quotient_dev(const cuda_ntt_plan *p, void *h, void *a, void *b,
                                             void *c, bool compute_c, void *stream,
                                             cuzk_err *err) {
  return cuda_ntt_quotient_dev_stoppable(p, h, a, b, c, compute_c, stream, nullptr, err);
}

/* Either quotient on device buffers, its arguments checked (the coset one
 * needs a coset_gen plan). */
static cuzk_status quotient_op(const cuda_ntt_plan *p, cuda_ntt_op op, void *h, void *a, void *b,
                               void *c, bool compute_c, void *stream, const void *stop,
                               const char *fn, cuzk_err *err) {
  for (void *v : {a, b, c, h})
    CUZK_TRY(check_ptr(p, v, fn, err));
  if (a == b || a == c || b == c)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: a, b and c must be distinct buffers", fn);
  if (op == CUDA_NTT_OP_COSET_QUOTIENT && !p->cfg.coset_gen)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: the plan has the odd coset (made without coset_gen)", fn);
  ntt_exec x = exec_of(p, stream, err);
  x.stop = stop;
  return op_run(p, x, op, (fr_t *)a, (fr_t *)b, (fr_t *)c, (fr_t *)h, compute_c);
}

extern "C" cuzk_status cuda_ntt_coset_quotient_dev(const cuda_ntt_plan *p, void *h, void *a,
                                                   void *b, void *c, void *stream,
                                                   const void *stop, cuzk_err *err) {
  return quotient_op(p, CUDA_NTT_OP_COSET_QUOTIENT, h, a, b, c, false, stream, stop,
                     "cuda_ntt_coset_quotient_dev", err);
}

extern "C" cuzk_status cuda_ntt_quotient_dev_stoppable(const cuda_ntt_plan *p, void *h, void *a,
                                                       void *b, void *c, bool compute_c,
                                                       void *stream, const void *stop,
                                                       cuzk_err *err) {
  return quotient_op(p, CUDA_NTT_OP_QUOTIENT, h, a, b, c, compute_c, stream, stop,
                     "cuda_ntt_quotient_dev", err);
}

static cuzk_status check_buf(const cuda_ntt_plan *p, unsigned i, const void *host, const char *fn,
                             cuzk_err *err) {
  if (!p || i >= CUDA_NTT_MAX_BUFFERS || !p->buf[i] || !host)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: no plan, no buffer %u, or no host memory",
                        fn, i);
  return CUZK_OK;
}

/* Buffer i to or from host memory (to_dev: host -> buffer i). */
static cuzk_status buf_copy(cuda_ntt_plan *p, unsigned i, void *host, bool to_dev, void *stream,
                            const char *fn, cuzk_err *err) {
  CUZK_TRY(check_buf(p, i, host, fn, err));
  const size_t bytes = p->n * sizeof(fr_t);
  void *dst = to_dev ? p->buf[i] : host, *src = to_dev ? host : p->buf[i];
  if (p->emulate) {
    memcpy(dst, src, bytes);
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaMemcpyAsync(dst, src, bytes,
                                to_dev ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                (cudaStream_t)stream));
  return CUZK_OK;
}

extern "C" cuzk_status cuda_ntt_upload(cuda_ntt_plan *p, unsigned i, const void *host,
                                       void *stream, cuzk_err *err) {
  return buf_copy(p, i, (void *)host, true, stream, "cuda_ntt_upload", err);
}

extern "C" cuzk_status cuda_ntt_download(cuda_ntt_plan *p, void *host, unsigned i, void *stream,
                                         cuzk_err *err) {
  return buf_copy(p, i, host, false, stream, "cuda_ntt_download", err);
}

extern "C" cuzk_status cuda_ntt_fill(cuda_ntt_plan *p, unsigned i, int byte, void *stream,
                                     cuzk_err *err) {
  CUZK_TRY(check_buf(p, i, p, "cuda_ntt_fill", err));
  const size_t bytes = p->n * sizeof(fr_t);
  if (p->emulate) {
    memset(p->buf[i], byte, bytes);
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaMemsetAsync(p->buf[i], byte, bytes, (cudaStream_t)stream));
  return CUZK_OK;
}

extern "C" cuzk_status cuda_ntt_sync(const cuda_ntt_plan *p, void *stream, cuzk_err *err) {
  if (!p)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "cuda_ntt_sync: no plan");
  if (!p->emulate)
    CUDA_TRY(err, cudaStreamSynchronize((cudaStream_t)stream));
  return CUZK_OK;
}

extern "C" cuzk_status cuda_ntt_quotient(cuda_ntt_plan *p, void *h, const void *a, const void *b,
                                         const void *c, void *stream, cuzk_err *err) {
  if (!p || !h || !a || !b || p->cfg.buffers < 3)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_ntt_quotient: needs a plan with 3 buffers, and h, a, b");
  CUZK_TRY(cuda_ntt_upload(p, 0, a, stream, err));
  CUZK_TRY(cuda_ntt_upload(p, 1, b, stream, err));
  if (c)
    CUZK_TRY(cuda_ntt_upload(p, 2, c, stream, err));
  CUZK_TRY(cuda_ntt_quotient_dev(p, p->buf[2], p->buf[0], p->buf[1], p->buf[2], c == nullptr,
                                 stream, err));
  CUZK_TRY(cuda_ntt_download(p, h, 2, stream, err));
  return cuda_ntt_sync(p, stream, err);
}

extern "C" cuzk_status cuda_ntt_time(cuda_ntt_plan *p, cuda_ntt_op op, unsigned reps, double *ms,
                                     cuzk_err *err) {
  const unsigned need = op == CUDA_NTT_OP_QUOTIENT || op == CUDA_NTT_OP_COSET_QUOTIENT ? 4 : 1;
  if (!p || p->emulate || (unsigned)op >= CUDA_NTT_OP_COUNT || reps == 0 || reps > 63 || !ms ||
      p->cfg.buffers < need || (op == CUDA_NTT_OP_COSET_QUOTIENT && !p->cfg.coset_gen))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "cuda_ntt_time: want a device plan with %u buffer(s), a known op "
                        "(the coset quotient: a coset_gen plan), reps 1..63",
                        need);
  cuda_stream st;
  cuda_event e0, e1;
  CUDA_TRY(err, cuda_gc_stream_new(&st.h, cudaStreamNonBlocking, 0));
  CUDA_TRY(err, cuda_gc_event_new(&e0.h, cudaEventDefault));
  CUDA_TRY(err, cuda_gc_event_new(&e1.h, cudaEventDefault));
  const ntt_exec x = {false, st.h, err, nullptr};
  fr_t *b0 = (fr_t *)p->buf[0], *b1 = (fr_t *)p->buf[1], *b2 = (fr_t *)p->buf[2],
       *b3 = (fr_t *)p->buf[3];
  float t[64];
  for (unsigned rep = 0; rep <= reps; rep++) { /* rep 0 warms up */
    CUDA_TRY(err, cudaEventRecord(e0.h, st.h));
    CUZK_TRY(op_run(p, x, op, b0, b1, b2, b3, true));
    CUDA_TRY(err, cudaEventRecord(e1.h, st.h));
    CUDA_TRY(err, cudaEventSynchronize(e1.h));
    if (rep)
      CUDA_TRY(err, cudaEventElapsedTime(&t[rep - 1], e0.h, e1.h));
  }
  std::sort(t, t + reps);
  *ms = t[reps / 2];
  return CUZK_OK;
}
