/* The NTT's kernels and their per-thread code (ntt_gpu.h; the plans and
 * operations that launch them: ntt_gpu.cu).
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
 * Everything here is included by ntt_gpu.cu alone (one translation unit:
 * the kernels' templates are instantiated where its plans launch them). */
#ifndef CUZK_CUDA_NTT_KERNELS_CUH
#define CUZK_CUDA_NTT_KERNELS_CUH

#include <stdint.h>

#include "cuda/bls12_381.cuh"

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

#endif
