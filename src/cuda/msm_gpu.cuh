/* The GPU MSM's internals, shared by msm_gpu.cu (context, entry points,
 * sort and classification) and msm_gpu_g1.cu / msm_gpu_g2.cu (the pipeline
 * instantiated per group, compiled in parallel): Pippenger written once
 * over the point type, G1 = ec_xyzz<Fp>, G2 = ec_xyzz<Fp2>.
 *
 * DESIGN
 *   Scalars are read mod r and folded to s <= (r-1)/2 < 2^254 (s -> r - s,
 *   point negated), then recoded as signed digits over the run's windows
 *   (msm/window.h: msm_geo, msm_digit, the CPU MSM's recoding): the even
 *   split of 255 bits that the planner picks (msm/plan.h,
 *   msm_gpu_windows), windows of floor and ceil(255 / nwin) bits, the
 *   wider first, or what opts ask for.  A run is a fixed sequence of
 *   launches on one stream:
 *
 *   1. keys (per group of g windows): one thread per point reads its scalar
 *      once and writes, for each window of the group, the key: the bucket's
 *      index within the group's buckets (the windows' 2^(c_w-1) buckets
 *      back to back, bucket |d| - 1), or the group's bucket count, a
 *      sentinel above every bucket, for d = 0; and the value (point index,
 *      sign).
 *   2. sort: CUB radix sort of the group's g n (key, value) pairs on the
 *      bits of the sentinel.  Each key's points are now one contiguous
 *      block.
 *   3. accumulate: the sorted list is cut into fixed chunks of `chunk`
 *      entries, one thread each, whatever the bucket sizes: a thread adds
 *      its entries into XYZZ sums run by run (mixed additions, 8M + 2S);
 *      runs strictly inside its chunk are whole buckets and are stored
 *      directly, its first and last runs may continue in the neighbouring
 *      chunks and go to a list of 2 partial sums per thread (key, XYZZ).
 *      That list keeps every key's entries contiguous, so the same kernel
 *      (XYZZ additions, 12M + 2S) merges it, in rounds of merge_chunk
 *      entries per thread (MERGE_CHUNK unless opts say), until
 *      one thread holds the whole list and stores
 *      everything.  Work per thread is bounded by the chunk, never by a
 *      bucket's size: all-equal scalars (one bucket holding every point)
 *      cost log_{merge_chunk}(n / chunk) extra rounds, not a serial sum.
 *      Buckets no run reaches keep the memset's infinity (all-zero bytes).
 *   4. reduce: sum_k k B_k per window by running sums over segments of
 *      `len` buckets, one thread each (2 XYZZ additions per bucket); a
 *      segment starting at bucket j len contributes T + (j len) U, with T
 *      its running-sum total and U its plain sum ([j len] U by
 *      double-and-add).  Every window has the widest one's count of
 *      segments, a narrow window's second half idle (infinity), so a tree
 *      of 16-way sums over rows of one length gives one point per window.
 *   5. the window sums go to pinned host memory, and a host callback on the
 *      stream computes sum_w 2^(o_w) W_w (Horner, msm_gpu_host.c) into the
 *      caller's point.
 *   Every kernel is a functor whose operator() is __host__ __device__ and
 *   is launched by one generic kernel; the emulated mode (MSM_GPU_EMULATE)
 *   runs the same functors in host loops, sorts with std::stable_sort and
 *   compacts serially, so CI checks the whole pipeline without a GPU.
 *
 *   Bit-scalar split (opts.split): a classification kernel counts scalars
 *   equal to 0, to 1 and others, and a histogram of the others' folded bit
 *   lengths.  The run waits for them, picks the narrow part's bound b
 *   (msm_gpu_narrow_bound: the GPU cost model over the histogram), and a second
 *   kernel compacts the indices of the ones, of the others of at most b
 *   bits (from the front of idx2) and of the wider rest (from its back;
 *   one atomic per tile of the scalars and list: order within the lists is
 *   not fixed, results are).  The Pippenger steps then run over each part of the others, the
 *   narrow one on windows that tile b + 1 bits only (words and small sums
 *   take a few windows, not a field element's dozen), each part's window
 *   sums in its own slots, and the ones are summed as a single bucket with
 *   the accumulate kernel (chunked mixed additions + merges).  Without a
 *   split, zero scalars cost a sort slot (their keys are sentinels,
 *   skipped) and ones land in window 0's bucket 1; a classified run that
 *   does not split still plans its windows over the widest scalar's bits.
 *
 *   Memory: all of it is allocated by msm_gpu_new from capacities derived
 *   from n_max (caps_for); a run checks its plan against them.  Nothing is
 *   allocated, freed or synchronised device-wide during a run.
 *
 *   Stopping (a run with a stop hook, base/stop.h: msm_gpu_parts_on_):
 *   the hook is polled before each window group's launches (and between
 *   the staging copies of host inputs, msm_gpu.cu copy_in).  So that a
 *   poll comes while the GPU works, not after the host has queued the
 *   whole run, the host keeps at most two groups queued: before queuing
 *   group i it waits for the event recorded after group i - 2, so the GPU
 *   always has group i - 1 to run meanwhile and never idles for the
 *   pacing.  A stopped run waits for what it queued (its stream, never
 *   the device), so that the context's buffers are free for the next run,
 *   queues no host callback and returns CUZK_CANCELLED: at most about two
 *   groups' time after the stop (one window at 2^26 points and above, the
 *   whole bucket phase below ~2^21, where a group holds every window).
 *   Runs without a hook queue everything at once, as before.
 *
 * Tuning constants (their measurements: bench/RESULTS.md, "GPU MSM"):
 *   windows: the planner's GPU cost model (msm/plan.c).
 *   chunk: items / 2^18 in [4, 256], so that a launch has >= 2^18 threads
 *     (~6 waves of 16 warps per SM at G1's 128 registers) while the merges
 *     stay near 2.8 / chunk of the mixed additions' cost; 256 measured
 *     fastest of 64 / 128 / 256 at G1 2^26 and G2 2^24.
 *   group: windows are sorted and accumulated together up to 2^25 items, so
 *     that small n still fills the GPU. */
#ifndef CUZK_CUDA_MSM_GPU_CUH
#define CUZK_CUDA_MSM_GPU_CUH

#include <algorithm>
#include <stdint.h>
#include <string.h>
#include <vector>

#include "cuda/bls12_381.cuh"
#include "cuda/check.cuh"
#include "cuda/ec.cuh"
#include "cuda/msm_gpu_impl.h"
#include "msm/plan.h"

namespace msmg {

typedef ec_xyzz<bls12_381_fp_t> g1_xyzz;
typedef ec_xyzz<bls12_381_fp2_t> g2_xyzz;
static_assert(sizeof(g1_xyzz) == 192 && sizeof(g1_xyzz::aff) == 96, "G1 layouts");
static_assert(sizeof(g2_xyzz) == 384 && sizeof(g2_xyzz::aff) == 192, "G2 layouts");

/* After the fold every scalar is < 2^254; signed digits need windows over
 * 255 bits (msm/plan.h). */
constexpr unsigned SCALAR_BITS = MSM_REC_BITS;
constexpr unsigned C_MIN = MSM_GPU_C_MIN, C_MAX = MSM_GPU_C_MAX;
constexpr unsigned NWIN_MAX = (SCALAR_BITS + C_MIN - 1) / C_MIN; /* 128 */
constexpr size_t GROUP_ITEMS = (size_t)1 << 25;
constexpr uint32_t RED_THREADS = 1u << 17;
constexpr uint32_t SUM_FANIN = 16;
/* Partial sums per merge thread: a round's launch is small (the list has
 * 2 entries per accumulation thread), so its serial additions per thread
 * are its latency; 8 keeps them few at the price of more rounds. */
constexpr uint32_t MERGE_CHUNK = 8;
constexpr uint32_t SENT_ALL = 0xffffffffu; /* an empty partial-sum slot */
constexpr uint32_t NEG_BIT = MSM_DIGIT_NEG; /* a digit's sign, kept in its value */

/* ---- scalars ---- */

struct limbs64 {
  uint64_t v[4];
};
namespace fr_k {
constexpr uint64_t r64[4] = BLS12_381_FR_P;
constexpr limbs64 r_h = {{r64[0], r64[1], r64[2], r64[3]}};
/* (r - 1) / 2 = r >> 1 (r is odd) */
constexpr limbs64 half_h = {{(r64[0] >> 1) | (r64[1] << 63), (r64[1] >> 1) | (r64[2] << 63),
                             (r64[2] >> 1) | (r64[3] << 63), r64[3] >> 1}};
static constexpr __device__ limbs64 r_d = r_h, half_d = half_h;
} // namespace fr_k

CZ_HD const limbs64 &fr_r() { return CZ_HOST_DEV(fr_k::r_h, fr_k::r_d); }
CZ_HD const limbs64 &fr_half() { return CZ_HOST_DEV(fr_k::half_h, fr_k::half_d); }

CZ_HD bool lt4(const uint64_t *a, const uint64_t *b) {
  bool lt = false, decided = false;
#pragma unroll
  for (int i = 3; i >= 0; i--) {
    if (!decided && a[i] != b[i]) {
      lt = a[i] < b[i];
      decided = true;
    }
  }
  return lt;
}

CZ_HD void sub4(uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t borrow = 0;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const uint64_t d = a[i] - b[i], b1 = a[i] < b[i];
    r[i] = d - borrow;
    borrow = b1 | (d < borrow);
  }
}

/* The 32-byte little-endian scalar j (16-byte aligned array), reduced mod r:
 * at most twice, 2^256 < 3r. */
CZ_HD void scalar_load(uint64_t s[4], const uint8_t *scalars, uint32_t j) {
  const uint4 *p = reinterpret_cast<const uint4 *>(scalars) + 2 * (size_t)j;
  const uint4 a = p[0], b = p[1];
  s[0] = a.x | (uint64_t)a.y << 32;
  s[1] = a.z | (uint64_t)a.w << 32;
  s[2] = b.x | (uint64_t)b.y << 32;
  s[3] = b.z | (uint64_t)b.w << 32;
  const uint64_t *r = fr_r().v;
  if (!lt4(s, r))
    sub4(s, s, r);
  if (!lt4(s, r))
    sub4(s, s, r);
}

/* s -> r - s when s > (r-1)/2; returns 1 then (the point must be negated). */
CZ_HD unsigned scalar_fold(uint64_t s[4]) {
  if (lt4(fr_half().v, s)) {
    sub4(s, fr_r().v, s);
    return 1;
  }
  return 0;
}

/* 0: s = 0 mod r, 1: s = 1 mod r, 2: anything else; *bits: for class 2,
 * the bit length of the folded magnitude (1..254), what a recoding of it
 * needs less one. */
CZ_HD unsigned scalar_class(const uint8_t *scalars, uint32_t j, unsigned *bits) {
  uint64_t s[4];
  scalar_load(s, scalars, j);
  *bits = 0;
  if ((s[1] | s[2] | s[3]) == 0 && s[0] <= 1)
    return (unsigned)s[0];
  scalar_fold(s);
#pragma unroll /* constant indices: s stays in registers */
  for (int i = 3; i >= 0; i--)
    if (s[i] && !*bits) {
#ifdef __CUDA_ARCH__
      *bits = 64 * i + 64 - __clzll((long long)s[i]);
#else
      *bits = 64 * i + 64 - __builtin_clzll(s[i]);
#endif
    }
  return 2;
}

/* The split's counters (counts_dev, counts_host): the classes' counts,
 * the others' bit-length histogram, the placement's positions. */
constexpr unsigned CNT_HIST = 4, CNT_POS = CNT_HIST + 256, CNT_WORDS = CNT_POS + 4;

/* ---- the kernels' bodies ---- */

/* Step 1: keys and values of points i < n (through idx when not NULL) for
 * windows w0 .. w0+g-1; window k of the group at offset k n.  Keys are
 * bucket indices within the group, base(w0 + k) - base(w0) + |d| - 1,
 * and `sent` (the group's bucket count, above every bucket) for d = 0. */
struct keys_fn {
  static constexpr int block = 256;
  const uint8_t *scalars;
  const uint32_t *idx;
  uint32_t *keys, *vals;
  uint32_t n;
  unsigned w0, g;
  msm_geo geo;
  CZ_HD void operator()(uint32_t i) const {
    const uint32_t j = idx ? idx[i] : i;
    uint64_t s[4];
    scalar_load(s, scalars, j);
    const unsigned neg = scalar_fold(s);
    const size_t b0 = msm_geo_base(&geo, w0);
    const uint32_t sent = (uint32_t)(msm_geo_base(&geo, w0 + g) - b0);
    for (unsigned k = 0; k < g; k++) {
      const unsigned w = w0 + k;
      const uint32_t d = msm_digit(s, 4, msm_geo_offset(&geo, w), msm_geo_width(&geo, w), neg),
                     mag = d & ~NEG_BIT;
      keys[(size_t)k * n + i] = mag ? (uint32_t)(msm_geo_base(&geo, w) - b0) + mag - 1 : sent;
      vals[(size_t)k * n + i] = j | (d & NEG_BIT);
    }
  }
};

/* Entry sources of the accumulate kernel: affine bases through (index,
 * sign) values (round 0), or XYZZ partial sums (merge rounds). */
template <class P>
struct src_bases {
  const typename P::aff *bases;
  const uint32_t *vals;
  CZ_HD typename P::aff load(uint32_t i) const {
    const uint32_t v = vals[i];
    typename P::aff q = bases[v & ~NEG_BIT];
    if (v & NEG_BIT)
      q.y = P::field::neg(q.y);
    return q;
  }
  CZ_HD P first(uint32_t i) const { return P::from_aff(load(i)); }
  CZ_HD P add(const P &acc, uint32_t i) const { return P::add_aff(acc, load(i)); }
};
template <class P>
struct src_partials {
  const P *pts;
  CZ_HD P first(uint32_t i) const { return pts[i]; }
  CZ_HD P add(const P &acc, uint32_t i) const { return P::add(acc, pts[i]); }
};

/* Step 3, one round: thread t sums entries [t chunk, (t+1) chunk) of the
 * list (keys[i], src entry i), i < m, run by run.  A key >= sent is a
 * sentinel (skipped): a zero digit's, or SENT_ALL.  Runs inside the chunk
 * go to buckets[key]; the
 * first and the last to partial slots 2t and 2t+1 (SENT_ALL and infinity
 * when there is no such run), unless `last_round`, when all runs are
 * whole and everything is stored. */
template <class P, class S>
struct accumulate_fn {
  static constexpr int block = 128;
  S src;
  const uint32_t *keys;
  uint32_t m, chunk;
  uint32_t sent;
  P *buckets;
  uint32_t *part_keys;
  P *part_pts;
  bool last_round;

  CZ_HD bool sentinel(uint32_t key) const { return key >= sent; }
  CZ_HD void store(uint32_t key, const P &v) const { buckets[key] = v; }
  CZ_HD void partial(uint32_t slot, uint32_t key, const P &v) const {
    part_keys[slot] = key;
    part_pts[slot] = v;
  }
  CZ_HD void operator()(uint32_t t) const {
    const uint32_t lo = t * chunk, hi = lo >= m ? lo : m - lo < chunk ? m : lo + chunk;
    uint32_t i = lo;
    while (i < hi && sentinel(keys[i])) i++;
    if (i == hi) {
      if (!last_round) {
        partial(2 * t, SENT_ALL, P::inf());
        partial(2 * t + 1, SENT_ALL, P::inf());
      }
      return;
    }
    uint32_t key = keys[i];
    P acc = src.first(i);
    bool first = true;
    for (i++; i < hi; i++) {
      const uint32_t k = keys[i];
      if (sentinel(k))
        continue;
      if (k == key) {
        acc = src.add(acc, i);
        continue;
      }
      if (first && !last_round)
        partial(2 * t, key, acc);
      else
        store(key, acc);
      first = false;
      key = k;
      acc = src.first(i);
    }
    if (last_round) {
      store(key, acc);
    } else if (first) {
      partial(2 * t, key, acc);
      partial(2 * t + 1, SENT_ALL, P::inf());
    } else {
      partial(2 * t + 1, key, acc);
    }
  }
};

/* Step 4: thread t = w S + j: segment j of window w, buckets j len ..
 * (j+1) len - 1 of the window, bucket b holding digit b + 1:
 *   T = sum_i (i+1) B_(j len + i) by running sums from the top, U = sum_i B,
 *   out[t] = T + (j len) U.
 * S = nb(0) / len segments per window, the widest's; a narrower window's
 * segments past its nb(w) / len are infinity (idle threads), so that the
 * window sums below see rows of one length. */
template <class P>
struct reduce_fn {
  static constexpr int block = 128;
  const P *buckets;
  P *out;
  msm_geo geo;
  uint32_t len, S;
  CZ_HD void operator()(uint32_t t) const {
    const uint32_t w = t / S, j = t % S;
    if ((size_t)j * len >= msm_geo_nb(&geo, w)) {
      out[t] = P::inf();
      return;
    }
    const P *b = buckets + msm_geo_base(&geo, w) + (size_t)j * len;
    P run = P::inf(), tot = P::inf();
    for (uint32_t i = len; i-- > 0;) {
      run = P::add(run, b[i]);
      tot = P::add(tot, run);
    }
    if (j)
      tot = P::add(tot, P::mul_small(run, j * len));
    out[t] = tot;
  }
};

/* Row r of `rows` rows of cin points: out[r cout + i] = the sum of
 * in[r cin + i F .. r cin + min((i+1) F, cin) - 1], F = SUM_FANIN. */
template <class P>
struct sum_fn {
  static constexpr int block = 128;
  const P *in;
  P *out;
  uint32_t cin, cout;
  CZ_HD void operator()(uint32_t t) const {
    const uint32_t r = t / cout, i = t % cout;
    const uint32_t lo = i * SUM_FANIN, hi = cin - lo < SUM_FANIN ? cin : lo + SUM_FANIN;
    const P *x = in + (size_t)r * cin;
    P acc = x[lo];
    for (uint32_t k = lo + 1; k < hi; k++) acc = P::add(acc, x[k]);
    out[t] = acc;
  }
};

template <class K>
__global__ void __launch_bounds__(K::block) for_each_kernel(const K k, uint32_t n) {
  const uint32_t i = blockIdx.x * (uint32_t)K::block + threadIdx.x;
  if (i < n)
    k(i);
}

/* ---- plans and capacities (msm_gpu.cu) ---- */

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
/* Entries per accumulation thread for a list of `items`. */
uint32_t chunk_auto(size_t items);
/* Bits of x (0 for 0). */
unsigned bit_length(uint32_t x);

/* Element counts of the scratch buffers, for n_max points. */
struct caps {
  size_t items;        /* keys and values per buffer: one window group */
  size_t buckets;      /* XYZZ buckets of all windows */
  size_t part0;        /* partial sums of the first accumulation round */
  size_t part1;        /* ... of the second (rounds alternate between the two) */
  size_t segs0, segs1; /* reduction segments, then the first tree level */
  size_t n_max;
};
caps caps_for(size_t n_max);

struct plan {
  msm_geo geo; /* the windows */
  unsigned g; /* windows per group */
  uint32_t chunk, merge_chunk;
  uint32_t len, S; /* reduction: buckets per segment, segments per window (the
                      widest's; reduce_fn) */
};
/* The plan for n points under opts (may be NULL), checked against k. */
/* The plan for n points whose folded scalars have fewer than `bits` bits
 * (SCALAR_BITS: any; fewer: a narrow run, whose windows tile [0, bits):
 * the cost model's, or opts.c's width as the widest; opts.nwin and
 * uniform windows apply to full-width runs). */
cuzk_status plan_for(plan *p, size_t n, const msm_gpu_opts *o, const caps &k, unsigned bits,
                     cuzk_err *err);

/* The sizes of the context's buffers (B_*), for allocation and poisoning. */
enum { B_KEYS0, B_KEYS1, B_VALS0, B_VALS1, B_BUCKETS, B_PK0, B_PK1, B_PP0, B_PP1, B_SEGS0, B_SEGS1,
       B_ONES, B_IDX1, B_IDX2, B_COUNTS, B_CUB, B_IN_BASES, B_IN_SCALARS, B_COUNT };
struct layout {
  size_t bytes[B_COUNT];
};
void layout_for(layout *l, msm_gpu_group g, size_t n_max, unsigned flags, size_t cub);

} // namespace msmg

/* ---- the context ---- */

#define B_COUNT_MAX 32 /* device allocations of a context, at most */
static_assert(msmg::B_COUNT <= B_COUNT_MAX, "msm_gpu: more buffers than allocation slots");

/* Owns every buffer of the MSM (see msm_gpu_new); one run at a time. */
struct msm_gpu {
  msm_gpu_group group;
  size_t n_max;
  unsigned flags;
  bool host; /* MSM_GPU_EMULATE */
  size_t psize, asize; /* bytes of an XYZZ point and of an affine base */
  msmg::caps k;
  cudaStream_t stream;
  cudaEvent_t done, ev0, ev1;
  cudaEvent_t grp_ev[2]; /* a stoppable run's pacing: the end of group i, in slot i % 2 */
  bool done_recorded;
  const void *stop; /* the current run's stop hook (NULL: none), set by run_parts */
  uint32_t *keys[2], *vals[2], *part_keys[2], *idx1, *idx2, *counts_dev, *counts_host;
  void *buckets, *part_pts[2], *segs[2], *ones_dev, *win_host, *cub_tmp, *in_bases, *in_scalars;
  size_t cub_bytes;
  msm_gpu_counts counts;
  /* the run whose host callback is pending */
  void *job_out;
  msm_gpu_win_part job_parts[2]; /* its Pippenger parts (narrow, wide), job_nparts of them */
  unsigned job_nparts;
  bool job_ones;
  /* MSM_GPU_PROFILE: the events of the current run and the phase each one
   * ends; totals per phase over the collected runs */
  cudaEvent_t *pev;
  int *pphase;
  unsigned npev, pev_cap, prof_runs;
  double prof_ms[MSM_GPU_PHASES];
  /* MSM_GPU_HOST_INPUTS on a device: two page-locked staging buffers of
   * STAGE_BYTES, each with the event of its last copy to the device */
  void *stage[2];
  cudaEvent_t stage_ev[2];
  /* allocations, for msm_gpu_free */
  void *dev_allocs[B_COUNT_MAX], *pinned_allocs[4];
  unsigned ndev, npinned;
};


/* window sums (two parts of at most NWIN_MAX windows), then the ones' sum */
#define WIN_SLOTS (2 * msmg::NWIN_MAX + 1)
#define WIN_ONES (2 * msmg::NWIN_MAX)
/* A staging buffer for host inputs: big enough that a copy's fixed costs
 * vanish, small enough that two are cheap to keep page-locked. */
#define STAGE_BYTES ((size_t)32 << 20)

namespace msmg {

/* Launches and primitives, on the device or (emulated) on the host. */
struct exec {
  msm_gpu *ctx;
  cudaStream_t st;
  cuzk_err *err;

  template <class K>
  cuzk_status run(const K &k, size_t n) const {
    if (n == 0)
      return CUZK_OK;
    if (ctx->host) {
      for (size_t i = 0; i < n; i++) k((uint32_t)i);
      return CUZK_OK;
    }
    const size_t grid = ceil_div(n, K::block);
    for_each_kernel<K><<<(unsigned)grid, K::block, 0, st>>>(k, (uint32_t)n);
    CUDA_TRY(err, cudaGetLastError());
    return CUZK_OK;
  }
  /* memset on the stream */
  cuzk_status fill(void *p, int byte, size_t bytes) const;
  /* device to (pinned) host on the stream */
  cuzk_status to_host(void *dst, const void *src, size_t bytes) const;
  /* Sorts ctx's keys[0], vals[0] (items pairs) by the key bits [0, bits);
   * *K, *V: the sorted arrays (in either buffer). */
  cuzk_status sort(size_t items, unsigned bits, const uint32_t **K, const uint32_t **V) const;
  /* The split's first pass: counts_host[0..2] = scalars equal to 0, 1,
   * other, counts_host[CNT_HIST + b] = others of b folded bits.  Waits for
   * the counts (a stream synchronisation). */
  cuzk_status classify(const uint8_t *scalars, uint32_t n) const;
  /* The second: idx1 = the ones' indices, idx2 = the others' of at most
   * `narrow` folded bits from idx2[0] up and the rest from idx2[n - 1]
   * down (any order within each). */
  cuzk_status place(const uint8_t *scalars, uint32_t n, unsigned narrow) const;
  /* MSM_GPU_PROFILE: an event on the stream closing `phase`; nothing otherwise */
  cuzk_status mark(int phase) const;
  /* CUZK_CANCELLED, after waiting for the stream, when the run's stop hook
   * is set; CUZK_OK otherwise (at once without a hook). */
  cuzk_status poll() const;
  /* A stoppable run before queuing window group i: waits for the end of
   * group i - 2 (see Stopping), then polls. */
  cuzk_status pace(unsigned i) const;
  /* A stoppable run after queuing group i: records its end for pace. */
  cuzk_status paced(unsigned i) const;
};

/* Step 3 over a sorted list of m entries from src, keys < sent bucket indices from `buckets` (the
 * window group's base), the others sentinels. */
template <class P, class S>
cuzk_status accumulate(const exec &ex, const S &src, const uint32_t *keys, size_t m,
                       uint32_t chunk, uint32_t merge_chunk, uint32_t sent, P *buckets) {
  msm_gpu *ctx = ex.ctx;
  size_t T = ceil_div(m, chunk);
  bool last = T == 1;
  CUZK_TRY(ex.run(accumulate_fn<P, S>{src, keys, (uint32_t)m, chunk, sent, buckets, ctx->part_keys[0],
                                      (P *)ctx->part_pts[0], last},
                  T));
  CUZK_TRY(ex.mark(MSM_GPU_PH_ACCUMULATE));
  int cur = 0;
  while (!last) {
    m = 2 * T;
    T = ceil_div(m, merge_chunk);
    last = T == 1;
    src_partials<P> ps{(const P *)ctx->part_pts[cur]};
    CUZK_TRY(ex.run(accumulate_fn<P, src_partials<P>>{ps, ctx->part_keys[cur], (uint32_t)m,
                                                      merge_chunk, sent, buckets,
                                                      ctx->part_keys[cur ^ 1],
                                                      (P *)ctx->part_pts[cur ^ 1], last},
                    T));
    cur ^= 1;
  }
  return ex.mark(MSM_GPU_PH_MERGE);
}

/* Steps 1-4 over n points (idx: their indices, or NULL for 0..n-1); the
 * nwin window sums are copied to win_host from slot `slot` on. */
template <class P>
cuzk_status pippenger(const exec &ex, const plan &pl, const typename P::aff *bases,
                      const uint8_t *scalars, const uint32_t *idx, uint32_t n, unsigned slot) {
  msm_gpu *ctx = ex.ctx;
  P *buckets = (P *)ctx->buckets;
  const msm_geo &geo = pl.geo;
  CUZK_TRY(ex.fill(buckets, 0, sizeof(P) * msm_geo_buckets(&geo)));
  CUZK_TRY(ex.mark(MSM_GPU_PH_OTHER));
  for (unsigned w0 = 0; w0 < geo.nwin; w0 += pl.g) {
    CUZK_TRY(ex.pace(w0 / pl.g));
    const unsigned g = std::min(pl.g, geo.nwin - w0);
    /* the group's buckets, and its keys' sentinel: their count */
    P *gb = buckets + msm_geo_base(&geo, w0);
    const uint32_t sent = (uint32_t)(msm_geo_base(&geo, w0 + g) - msm_geo_base(&geo, w0));
    CUZK_TRY(ex.run(keys_fn{scalars, idx, ctx->keys[0], ctx->vals[0], n, w0, g, geo}, n));
    CUZK_TRY(ex.mark(MSM_GPU_PH_KEYS));
    const uint32_t *K, *V;
    CUZK_TRY(ex.sort((size_t)g * n, bit_length(sent), &K, &V));
    CUZK_TRY(ex.mark(MSM_GPU_PH_SORT));
    CUZK_TRY(accumulate<P>(ex, src_bases<P>{bases, V}, K, (size_t)g * n, pl.chunk,
                           pl.merge_chunk, sent, gb));
    CUZK_TRY(ex.paced(w0 / pl.g));
  }
  CUZK_TRY(ex.poll()); /* a last one before the reduction */
  P *a = (P *)ctx->segs[0], *b = (P *)ctx->segs[1];
  CUZK_TRY(ex.run(reduce_fn<P>{buckets, a, geo, pl.len, pl.S}, (size_t)geo.nwin * pl.S));
  CUZK_TRY(ex.mark(MSM_GPU_PH_REDUCE));
  for (uint32_t cin = pl.S; cin > 1;) {
    const uint32_t cout = (uint32_t)ceil_div(cin, SUM_FANIN);
    CUZK_TRY(ex.run(sum_fn<P>{a, b, cin, cout}, (size_t)geo.nwin * cout));
    std::swap(a, b);
    cin = cout;
  }
  CUZK_TRY(ex.to_host((uint8_t *)ctx->win_host + (size_t)slot * sizeof(P), a,
                      sizeof(P) * geo.nwin));
  return ex.mark(MSM_GPU_PH_FINISH);
}

/* MSM_GPU_PROFILE: adds the phase times of the context's last run (which
 * has completed) to its totals. */
cuzk_status prof_collect(msm_gpu *ctx, cuzk_err *err);

/* The stream's host callback: msm_gpu_finish with the pending job. */
void CUDART_CB finish_cb(void *ctx);

template <class P>
cuzk_status run_group(msm_gpu *ctx, void *out, const void *bases_v, const void *scalars_v,
                      size_t n, const msm_gpu_opts *opts, cudaStream_t st, cuzk_err *err) {
  const exec ex{ctx, st, err};
  const typename P::aff *bases = (const typename P::aff *)bases_v;
  const uint8_t *scalars = (const uint8_t *)scalars_v;
  if (!ctx->host && ctx->done_recorded)
    CUDA_TRY(err, cudaEventSynchronize(ctx->done)); /* the previous run's callback has run */
  CUZK_TRY(prof_collect(ctx, err));
  CUZK_TRY(ex.mark(-1));
  if (ctx->flags & MSM_GPU_POISON) {
    layout l;
    layout_for(&l, ctx->group, ctx->n_max, ctx->flags, ctx->cub_bytes);
    const int poisoned[] = {B_KEYS0, B_KEYS1, B_VALS0, B_VALS1, B_BUCKETS, B_PK0, B_PK1, B_PP0,
                            B_PP1, B_SEGS0, B_SEGS1, B_ONES, B_IDX1, B_IDX2};
    void *ptr[] = {ctx->keys[0], ctx->keys[1], ctx->vals[0], ctx->vals[1], ctx->buckets,
                   ctx->part_keys[0], ctx->part_keys[1], ctx->part_pts[0], ctx->part_pts[1],
                   ctx->segs[0], ctx->segs[1], ctx->ones_dev, ctx->idx1, ctx->idx2};
    static_assert(sizeof poisoned / sizeof *poisoned == sizeof ptr / sizeof *ptr, "poison list");
    for (unsigned i = 0; i < sizeof poisoned / sizeof *poisoned; i++)
      if (ptr[i])
        CUZK_TRY(ex.fill(ptr[i], 0xA5, l.bytes[poisoned[i]]));
    memset(ctx->win_host, 0xA5, WIN_SLOTS * ctx->psize);
  }
  CUZK_TRY(ex.mark(MSM_GPU_PH_OTHER));

  const unsigned split = opts ? opts->split : MSM_GPU_SPLIT_OFF;
  /* the Pippenger parts: one over every point, or (split) the narrow and
   * the wide others; and the ones' sum */
  struct part_spec {
    const uint32_t *idx;
    size_t m;
    unsigned bits;
  } parts[2] = {{nullptr, n, SCALAR_BITS}, {}};
  unsigned nparts = n ? 1 : 0;
  size_t m1 = 0;
  if (split != MSM_GPU_SPLIT_OFF && n) {
    CUZK_TRY(ex.classify(scalars, (uint32_t)n));
    const uint32_t *c = ctx->counts_host, *hist = c + CNT_HIST;
    const bool do_split = split == MSM_GPU_SPLIT_ON || 4 * (size_t)c[2] <= 3 * n;
    unsigned top = c[1] ? 1 : 0; /* the widest folded magnitude */
    for (unsigned b = 1; b < 256; b++)
      if (hist[b])
        top = b;
    ctx->counts = {c[0], c[1], c[2], do_split, 0, 0, 0};
    if (do_split) {
      /* the boundary: the narrow part takes the others of at most b bits */
      const unsigned b = opts && opts->narrow ? std::min(opts->narrow, SCALAR_BITS - 1)
                                              : msm_gpu_narrow_bound(hist, c[2], ctx->k.buckets);
      size_t cn = 0;
      for (unsigned l = 1; l <= b; l++) cn += hist[l];
      const size_t cw = c[2] - cn;
      CUZK_TRY(ex.place(scalars, (uint32_t)n, b));
      nparts = 0;
      if (cn)
        parts[nparts++] = {ctx->idx2, cn, b + 1};
      if (cw)
        parts[nparts++] = {ctx->idx2 + (n - cw), cw, SCALAR_BITS};
      m1 = c[1];
      ctx->counts.narrow = cn, ctx->counts.wide = cw, ctx->counts.narrow_bits = cn ? b : 0;
    } else {
      parts[0].bits = (top > 1 ? top : 1) + 1; /* <= SCALAR_BITS: top <= 254 */
    }
    CUZK_TRY(ex.mark(MSM_GPU_PH_CLASSIFY));
  }
  unsigned slot = 0;
  for (unsigned k = 0; k < nparts; k++) {
    plan pl = {};
    CUZK_TRY(plan_for(&pl, parts[k].m, opts, ctx->k, parts[k].bits, err));
    CUZK_TRY(pippenger<P>(ex, pl, bases, scalars, parts[k].idx, (uint32_t)parts[k].m, slot));
    ctx->job_parts[k] = {pl.geo, slot};
    slot += pl.geo.nwin;
  }
  if (m1) {
    /* the ones: one bucket (key 0, sentinels from 1), values = their indices */
    CUZK_TRY(ex.fill(ctx->keys[0], 0, 4 * m1));
    const uint32_t chunk = opts && opts->chunk ? opts->chunk : chunk_auto(m1);
    const uint32_t mchunk = opts && opts->merge_chunk ? opts->merge_chunk : MERGE_CHUNK;
    if (2 * ceil_div(m1, chunk) > ctx->k.part0 || mchunk < 4)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: chunk %u / merge_chunk %u for "
                          "%zu ones", chunk, mchunk, m1);
    CUZK_TRY(accumulate<P>(ex, src_bases<P>{bases, ctx->idx1}, ctx->keys[0], m1, chunk, mchunk,
                           1, (P *)ctx->ones_dev));
    CUZK_TRY(ex.to_host((uint8_t *)ctx->win_host + WIN_ONES * ctx->psize, ctx->ones_dev,
                        sizeof(P)));
  }
  ctx->job_out = out;
  ctx->job_nparts = nparts;
  ctx->job_ones = m1 != 0;
  if (ctx->host) {
    finish_cb(ctx);
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaLaunchHostFunc(st, finish_cb, ctx));
  CUZK_TRY(ex.mark(MSM_GPU_PH_FINISH));
  CUDA_TRY(err, cudaEventRecord(ctx->done, st));
  ctx->done_recorded = true;
  return CUZK_OK;
}

/* run_group per group, in msm_gpu_g1.cu and msm_gpu_g2.cu. */
cuzk_status run_g1(msm_gpu *ctx, void *out, const void *bases, const void *scalars, size_t n,
                   const msm_gpu_opts *opts, cudaStream_t st, cuzk_err *err);
cuzk_status run_g2(msm_gpu *ctx, void *out, const void *bases, const void *scalars, size_t n,
                   const msm_gpu_opts *opts, cudaStream_t st, cuzk_err *err);

} // namespace msmg

#endif
