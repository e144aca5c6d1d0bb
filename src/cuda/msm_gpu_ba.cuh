/* The GPU MSM's batch-affine bucket accumulation: the kernels' bodies of
 * one tree round.  Included by msm_gpu.cuh (which runs the rounds, see
 * ba_accumulate there and its DESIGN comment), after the constants and the
 * XYZZ kernels; not for other includers.
 *
 * DESIGN
 *   A round takes a list of entries (key, value) sorted by key, length
 *   `len` (a device word, bounded by the host's m), and writes the list of
 *   the next tree level.  Values: a base (index | NEG_BIT for -P, as the
 *   sort's values) or a pool point (POOL_BIT | index into the previous
 *   round's pool of affine points).  Entries 2j and 2j+1 form pair j.  A
 *   pair of one key (not a sentinel) is replaced by its sum; every other
 *   entry passes unchanged.  Entries at infinity, sentinel keys (zero
 *   digits) and sums at infinity (P + (-P)) are dropped: a bucket that
 *   keeps no entry stays at the memset's infinity.  Keys stay sorted, and a
 *   run of L >= 3 entries of one key always shrinks (to at most L/2 + 1).
 *
 *   Pair kinds, as the host's ec_batch_tmpl.h (aff_add_prep): both finite
 *   and x1 != x2: ADD, den = x2 - x1; x1 = x2, y1 = y2 != 0: DBL,
 *   den = 2 y1; x1 = x2 otherwise: the sum is infinity; one operand at
 *   infinity: the other passes.  ba_kind decides, from x alone unless
 *   x1 = x2 or x = 0, and both kernels below call it on the same data, so
 *   they agree on every pair.
 *
 *   One inversion per block of BA_T threads x k pairs (Montgomery's trick
 *   in two levels), in three launches:
 *     ba_prep_fn (per thread, its k pairs): the running product of its
 *       denominators, the product before each pair saved (excl), the
 *       thread's total to shared memory; then a product tree over the
 *       block's BA_T totals (BA_LOG_T barrier phases), saved to `tree`
 *       (node 1 = the block's product).  Also counts what each pair will
 *       write (entries, pool points) for the scan, and a mask of the
 *       thread's pairs that need an inversion.  Thread t of block b takes
 *       pairs (b k + i) BA_T + t, i < k: the threads of a warp read
 *       adjacent pairs (coalesced keys and values, where k consecutive
 *       pairs per thread made every load of a warp touch 32 sectors), and
 *       the pair index is also the slot of excl and of the counts.
 *     ba_inv_fn (one thread per block): node 1 <- its inverse
 *       (field_inv.cuh, binary Euclid).
 *     ba_finish_fn: the tree walked down (inv(left) = inv(node) right,
 *       inv(right) = inv(node) left), then each thread runs its pairs
 *       backwards: 1/den_i = inv_acc excl_i, inv_acc = inv_acc den_i, the
 *       affine sum (ec_aff::add_given_inv), and writes each pair's entries
 *       and pool points from the end of the pair's range (an inclusive scan
 *       of the per-pair counts in pair order, msm_gpu.cu) downwards.
 *   Cost per addition: 1M (prefix) + 2M (back) + 3M (the sum), plus
 *   ~3M per thread for the tree and ~100M-equivalent per block for the
 *   inversion: ~6.3M at k = 8, against 10M for the XYZZ mixed addition.
 *   Blocks that start beyond the live pairs only write zero counts.
 *
 *   Memory: the pool of a round holds at most m/2 points (each covers two or
 *   more of the round-0 entries, disjointly), so two pools of m/2 suffice
 *   (the round reads one and writes the other); the entry lists alternate
 *   between the sort's two key and value buffers. */
#ifndef CUZK_CUDA_MSM_GPU_BA_CUH
#define CUZK_CUDA_MSM_GPU_BA_CUH

#include "cuda/field_inv.cuh"

namespace msmg {

constexpr unsigned BA_LOG_T = 7;
constexpr uint32_t BA_T = 1u << BA_LOG_T; /* threads per block of a round */
constexpr uint32_t BA_K_MAX = 32;         /* pairs per thread (a 32-bit mask) */
constexpr uint32_t BA_K_AUTO = 8;         /* 1,024 additions per inversion */
constexpr uint32_t POOL_BIT = 0x40000000u;
constexpr uint32_t IDX_MASK = 0x3fffffffu; /* base or pool index: the BA path needs n <= 2^30 */
constexpr uint64_t BA_ENTRY = 1ull << 32;  /* one list entry in a count; pool points count 1 */

/* Where an entry's point lies: bases, or the pool of the previous round. */
template <class P>
struct ba_src {
  typedef typename P::aff A;
  typedef typename P::field F;
  const A *bases, *pool;
  static CZ_HD bool is_pool(uint32_t v) { return v & POOL_BIT; }
  CZ_HD const A &at(uint32_t v) const { return is_pool(v) ? pool[v & IDX_MASK] : bases[v & IDX_MASK]; }
  CZ_HD F x(uint32_t v) const { return at(v).x; }
  CZ_HD F y(uint32_t v) const {
    const F y = at(v).y;
    return v & NEG_BIT ? F::neg(y) : y;
  }
  CZ_HD A point(uint32_t v) const { return {x(v), y(v)}; }
  /* not infinity, given x = x(v) (y is read only when x = 0) */
  CZ_HD bool live(uint32_t v, const F &x) const { return !F::is_zero(x) || !F::is_zero(at(v).y); }
  /* what an entry passed on adds to a count */
  static CZ_HD uint64_t count(uint32_t v) { return BA_ENTRY | (is_pool(v) ? 1 : 0); }
};

/* BA_SPLIT: the pair's entries are not one bucket's; each may pass on */
enum { BA_ADD, BA_DBL, BA_KEEP_P, BA_KEEP_Q, BA_NONE, BA_SPLIT };

/* The kind of the sum of the entries v0, v1 of one bucket; x1, x2 their x,
 * den the value to invert for BA_ADD and BA_DBL. */
template <class P>
CZ_HD int ba_kind(const ba_src<P> &src, uint32_t v0, uint32_t v1, typename P::field &x1,
                  typename P::field &x2, typename P::field &den) {
  typedef typename P::field F;
  x1 = src.x(v0);
  x2 = src.x(v1);
  const bool l1 = src.live(v0, x1), l2 = src.live(v1, x2);
  if (!l1 || !l2)
    return l1 ? BA_KEEP_P : l2 ? BA_KEEP_Q : BA_NONE;
  if (!F::eq(x1, x2)) {
    den = F::sub(x2, x1);
    return BA_ADD;
  }
  const F y1 = src.y(v0);
  if (F::eq(y1, src.y(v1)) && !F::is_zero(y1)) {
    den = F::dbl(y1);
    return BA_DBL;
  }
  return BA_NONE; /* P + (-P) */
}

/* What ba_prep_fn and ba_finish_fn share: the round's input and shape. */
template <class P>
struct ba_round {
  typedef typename P::field F;
  ba_src<P> src;
  const uint32_t *keys, *vals;
  const uint32_t *len_in; /* the list's length, or NULL for len0 (round 0) */
  uint32_t len0, k;       /* k: pairs per thread */
  uint32_t sent;          /* keys >= sent are sentinels (accumulate_fn) */
  F *excl, *tree; /* prefix products; 2 BA_T tree nodes per block */
  uint32_t *kmask;
  uint64_t *tcnt; /* per pair (slot): entries << 32 | pool points it writes */

  CZ_HD uint32_t len() const { return len_in ? *len_in : len0; }
  CZ_HD bool sentinel(uint32_t key) const { return key >= sent; }
  /* pairs of a list of n entries (the last may be a single entry) */
  static CZ_HD uint32_t pairs_of(uint32_t n) { return n / 2 + (n & 1); }
  CZ_HD bool idle(uint32_t b, uint32_t pairs) const { return (size_t)b * BA_T * k >= pairs; }
  /* pair i of thread t of block b: also its slot in excl and the counts */
  CZ_HD size_t slot(uint32_t b, uint32_t i, uint32_t t) const {
    return ((size_t)b * k + i) * BA_T + t;
  }
  /* Pair j of a list of n entries: its keys and values (a missing second
   * entry has key ~key0), and whether they are one bucket's. */
  struct pair {
    uint32_t key0, key1, v0, v1;
    bool two, same;
  };
  CZ_HD pair pair_at(size_t j, uint32_t n) const {
    pair p;
    const uint32_t i0 = (uint32_t)(2 * j), i1 = i0 + 1;
    p.key0 = keys[i0];
    p.v0 = vals[i0];
    p.two = i1 < n;
    p.key1 = p.two ? keys[i1] : ~p.key0;
    p.v1 = p.two ? vals[i1] : 0;
    p.same = p.key1 == p.key0 && !sentinel(p.key0);
    return p;
  }
  /* whether the entry (key, v) of a BA_SPLIT pair passes on */
  CZ_HD bool passes(uint32_t key, uint32_t v) const { return !sentinel(key) && src.live(v, src.x(v)); }
  /* the pair's kind (ba_kind, or BA_SPLIT) */
  CZ_HD int kind_of(const pair &pr, F &x1, F &x2, F &den) const {
    return pr.same ? ba_kind<P>(src, pr.v0, pr.v1, x1, x2, den) : BA_SPLIT;
  }
};

/* Round, first launch (see DESIGN): phase 0 the threads' chains, phases
 * 1..BA_LOG_T the tree levels, the last phase stores the tree. */
template <class P>
struct ba_prep_fn {
  typedef typename P::field F;
  static constexpr int block = BA_T;
  static constexpr int min_blocks = 1;
  static constexpr unsigned phases = BA_LOG_T + 2;
  struct shared {
    F node[2 * BA_T]; /* node i = node 2i * node 2i+1; leaves BA_T + t */
  };
  ba_round<P> r;

  __host__ __device__ void chain(uint32_t b, uint32_t t, uint32_t n, uint32_t pairs,
                                 shared &sh) const {
    const ba_src<P> &src = r.src;
    const uint32_t gt = b * BA_T + t;
    F acc = F::one();
    uint32_t mask = 0;
#pragma unroll 1
    for (uint32_t i = 0; i < r.k; i++) {
      const size_t j = r.slot(b, i, t);
      uint64_t cnt = 0;
      if (j >= pairs) {
        r.tcnt[j] = 0;
        continue;
      }
      const typename ba_round<P>::pair pr = r.pair_at(j, n);
      F x1, x2, den;
      switch (r.kind_of(pr, x1, x2, den)) {
      case BA_ADD:
      case BA_DBL:
        if (mask) {
          r.excl[r.slot(b, i, t)] = acc; /* the product before pair i */
          acc = F::mul(acc, den);
        } else {
          acc = den;
        }
        mask |= 1u << i;
        cnt = BA_ENTRY | 1; /* the sum: an entry and a pool point */
        break;
      case BA_KEEP_P:
        cnt = src.count(pr.v0);
        break;
      case BA_KEEP_Q:
        cnt = src.count(pr.v1);
        break;
      case BA_SPLIT:
        cnt = (r.passes(pr.key0, pr.v0) ? src.count(pr.v0) : 0) +
              (pr.two && r.passes(pr.key1, pr.v1) ? src.count(pr.v1) : 0);
        break;
      }
      r.tcnt[j] = cnt;
    }
    r.kmask[gt] = mask;
    sh.node[BA_T + t] = acc;
  }

  CZ_HD void operator()(uint32_t b, uint32_t t, unsigned ph, shared &sh) const {
    const uint32_t n = r.len(), pairs = ba_round<P>::pairs_of(n);
    if (r.idle(b, pairs)) {
      if (ph == 0)
        for (uint32_t i = 0; i < r.k; i++) r.tcnt[r.slot(b, i, t)] = 0;
      return;
    }
    if (ph == 0) {
      chain(b, t, n, pairs, sh);
    } else if (ph <= BA_LOG_T) {
      const uint32_t l = BA_T >> ph, i = l + t;
      if (t < l)
        sh.node[i] = F::mul(sh.node[2 * i], sh.node[2 * i + 1]);
    } else {
      F *tr = r.tree + (size_t)b * 2 * BA_T;
      tr[BA_T + t] = sh.node[BA_T + t];
      if (t)
        tr[t] = sh.node[t];
    }
  }
};

/* Round, second launch: each active block's product -> its inverse. */
template <class P>
struct ba_inv_fn {
  typedef typename P::field F;
  static constexpr int block = 64;
  ba_round<P> r;
  CZ_HD void operator()(uint32_t b) const {
    if (r.idle(b, ba_round<P>::pairs_of(r.len())))
      return;
    F *root = r.tree + (size_t)b * 2 * BA_T + 1;
    *root = field_inv_vartime(*root);
  }
};

/* Round, third launch: phase 0 loads the tree, phases 1..BA_LOG_T walk it
 * down, the last phase sums and writes (see DESIGN).  Block 0's thread 0
 * also stores the new list's length (the scan's total). */
template <class P>
struct ba_finish_fn {
  typedef typename P::field F;
  typedef typename P::aff A;
  static constexpr int block = BA_T;
  /* G1: 4 blocks (16 warps, <= 128 registers) per SM, as the XYZZ
   * accumulation; left alone, ptxas takes 156 registers (12 warps).  G2
   * needs its 255. */
  static constexpr int min_blocks = sizeof(F) <= 48 ? 4 : 1;
  static constexpr unsigned phases = BA_LOG_T + 2;
  typedef typename ba_prep_fn<P>::shared shared;
  ba_round<P> r;
  const uint64_t *toff; /* inclusive scan of tcnt over nslots pairs (slots) */
  uint32_t nslots;
  uint32_t *keys_out, *vals_out, *len_out;
  A *pool_out;

  __host__ __device__ void finish(uint32_t b, uint32_t t, uint32_t n, uint32_t pairs,
                                  shared &sh) const {
    const ba_src<P> &src = r.src;
    const uint32_t gt = b * BA_T + t;
    F inv = sh.node[BA_T + t]; /* 1 / (the product of the dens not yet undone) */
    const uint32_t mask = r.kmask[gt];
#pragma unroll 1
    for (uint32_t i = r.k; i-- > 0;) {
      const size_t j = r.slot(b, i, t);
      if (j >= pairs)
        continue;
      const uint64_t end = toff[j]; /* this pair's outputs end here */
      uint32_t le = (uint32_t)(end >> 32), pe = (uint32_t)end;
      const typename ba_round<P>::pair pr = r.pair_at(j, n);
      F x1, x2, den;
      const int kind = r.kind_of(pr, x1, x2, den);
      if (kind == BA_ADD || kind == BA_DBL) {
        F inv_i = inv;
        if (mask & ((1u << i) - 1)) { /* earlier pairs of the thread are in inv */
          inv_i = F::mul(inv, r.excl[r.slot(b, i, t)]);
          inv = F::mul(inv, den);
        }
        const A p = {x1, src.y(pr.v0)}, q = {x2, src.y(pr.v1)};
        pool_out[--pe] = A::add_given_inv(p, q, inv_i, kind == BA_DBL);
        keys_out[--le] = pr.key0;
        vals_out[le] = POOL_BIT | pe;
      } else if (kind == BA_KEEP_P || kind == BA_KEEP_Q) {
        emit(kind == BA_KEEP_P ? pr.v0 : pr.v1, pr.key0, le, pe);
      } else if (kind == BA_SPLIT) { /* backwards: the second entry first */
        if (pr.two && r.passes(pr.key1, pr.v1))
          emit(pr.v1, pr.key1, le, pe);
        if (r.passes(pr.key0, pr.v0))
          emit(pr.v0, pr.key0, le, pe);
      }
    }
  }

  /* an entry passed on: a pool point moves to this round's pool */
  CZ_HD void emit(uint32_t v, uint32_t key, uint32_t &le, uint32_t &pe) const {
    keys_out[--le] = key;
    if (ba_src<P>::is_pool(v)) {
      pool_out[--pe] = r.src.pool[v & IDX_MASK];
      vals_out[le] = POOL_BIT | pe;
    } else {
      vals_out[le] = v;
    }
  }

  CZ_HD void operator()(uint32_t b, uint32_t t, unsigned ph, shared &sh) const {
    if (ph == 0 && b == 0 && t == 0)
      *len_out = (uint32_t)(toff[nslots - 1] >> 32);
    const uint32_t n = r.len(), pairs = ba_round<P>::pairs_of(n);
    if (r.idle(b, pairs))
      return;
    const F *tr = r.tree + (size_t)b * 2 * BA_T;
    if (ph == 0) {
      sh.node[BA_T + t] = tr[BA_T + t];
      if (t)
        sh.node[t] = tr[t]; /* node 1: the inverse, from ba_inv_fn */
    } else if (ph <= BA_LOG_T) {
      const uint32_t l = 1u << (ph - 1), i = l + t;
      if (t < l) {
        const F inv = sh.node[i], a = sh.node[2 * i], c = sh.node[2 * i + 1];
        sh.node[2 * i] = F::mul(inv, c);
        sh.node[2 * i + 1] = F::mul(inv, a);
      }
    } else {
      finish(b, t, n, pairs, sh);
    }
  }
};

/* The XYZZ pass after the rounds: the list's points through its values. */
template <class P>
struct src_list {
  ba_src<P> s;
  const uint32_t *vals;
  CZ_HD P first(uint32_t i) const { return P::from_aff(s.point(vals[i])); }
  CZ_HD P add(const P &acc, uint32_t i) const { return P::add_aff(acc, s.point(vals[i])); }
};

} // namespace msmg

#endif
