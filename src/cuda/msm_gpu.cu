/* The GPU MSM's context, entry points, sort and scalar classification
 * (msm_gpu.h); the pipeline itself is msm_gpu.cuh, instantiated per group
 * in msm_gpu_g1.cu and msm_gpu_g2.cu.
 *
 * DESIGN: see msm_gpu.cuh.  All device memory is allocated here, by
 * msm_gpu_new, from capacities derived from n_max; a run allocates
 * nothing.  The CUB sort is compiled here only. */
#include <algorithm>
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cuda/msm_gpu.cuh"
extern "C" {
#include "base/par.h"
#include "base/stop.h"
}

namespace msmg {

uint32_t pow2_floor(size_t x) {
  uint32_t p = 1;
  while ((size_t)p * 2 <= x && p < (1u << 31)) p *= 2;
  return p;
}
uint32_t pow2_ceil(size_t x) {
  uint32_t p = 1;
  while (p < x && p < (1u << 31)) p *= 2;
  return p;
}
unsigned bit_length(uint32_t x) {
  unsigned b = 0;
  while (x >> b) b++;
  return b;
}
uint32_t chunk_auto(size_t items) {
  return std::min<uint32_t>(256, std::max<uint32_t>(4, pow2_floor(items >> 18)));
}

caps caps_for(size_t n_max) {
  caps k;
  k.n_max = n_max;
  k.items = std::max(n_max, std::min(GROUP_ITEMS, (size_t)NWIN_MAX * n_max));
  k.buckets = msm_gpu_max_buckets(n_max);
  /* 2 ceil(x / chunk_auto(x)) over x <= items: chunk_auto is a step
   * function, so the largest counts are at items and just below each step;
   * small contexts (tests) also take chunk = 1 */
  k.part0 = 0;
  for (size_t x = 1; x / 2 < k.items; x *= 2) {
    const size_t xi = std::min(x - 1 ? x - 1 : 1, k.items);
    k.part0 = std::max(k.part0, 2 * ceil_div(xi, chunk_auto(xi)));
  }
  k.part0 = std::max(k.part0, 2 * ceil_div(k.items, chunk_auto(k.items)));
  if (k.items <= (1u << 16))
    k.part0 = 2 * k.items;
  k.part1 = 2 * ceil_div(k.part0, 4) + 2;
  /* the reduction's rows have the widest window's segments (reduce_fn):
   * up to twice the threads of the buckets' own count (plan_for) */
  k.segs0 = 2 * std::min<size_t>(RED_THREADS, k.buckets);
  k.segs1 = k.segs0 / SUM_FANIN + NWIN_MAX;
  return k;
}

cuzk_status plan_for(plan *p, size_t n, const msm_gpu_opts *o, const caps &k, unsigned bits,
                     cuzk_err *err) {
  const unsigned oc = o ? o->c : 0, onw = o ? o->nwin : 0;
  if (oc && (oc < C_MIN || oc > C_MAX))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: window of %u bits (%u..%u)", oc,
                        C_MIN, C_MAX);
  const unsigned onw_min = msm_geo_uniform(C_MAX, SCALAR_BITS).nwin;
  if (onw && (onw < onw_min || onw > NWIN_MAX))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: %u windows (%u..%u)", onw,
                        onw_min, NWIN_MAX);
  if (oc && onw) { /* uniform, as asked */
    if (oc * onw < SCALAR_BITS || oc * (onw - 1) >= SCALAR_BITS)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: %u windows of %u bits for "
                          "%u-bit scalars", onw, oc, SCALAR_BITS);
    p->geo = msm_geo{onw, 0, oc};
  } else if (onw) {
    if (onw > SCALAR_BITS / C_MIN)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: %u windows split %u bits",
                          onw, SCALAR_BITS);
    p->geo = msm_geo_split(onw, SCALAR_BITS);
  } else {
    p->geo = oc ? msm_gpu_windows_c(oc) : msm_gpu_windows(n);
  }
  if (bits < SCALAR_BITS) { /* a narrow run (checked above as a full one would be) */
    const unsigned most = std::max(1u, bits / C_MIN);
    p->geo = oc ? msm_geo_split(std::min(most, (bits + oc - 1) / oc), bits)
                : msm_gpu_windows_bits(n, bits, k.buckets);
  }
  const msm_geo &geo = p->geo;
  if (msm_geo_buckets(&geo) > k.buckets)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu: %u windows of %u..%u bits need %zu buckets, the context has "
                        "%zu", geo.nwin, geo.cl, msm_geo_widest(&geo), msm_geo_buckets(&geo),
                        k.buckets);
  p->g = o && o->group ? std::min(o->group, geo.nwin)
                       : (unsigned)std::min<size_t>(
                             geo.nwin, std::max<size_t>(1, std::min(GROUP_ITEMS, k.items) / n));
  const size_t items = (size_t)p->g * n;
  if (items > k.items)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu: %u windows of %zu points in one sort, the context holds %zu",
                        p->g, n, k.items);
  p->chunk = o && o->chunk ? o->chunk : chunk_auto(items);
  p->merge_chunk = o && o->merge_chunk ? o->merge_chunk : MERGE_CHUNK;
  if (p->merge_chunk < 4)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: merge_chunk %u < 4", p->merge_chunk);
  if (2 * ceil_div(items, p->chunk) > k.part0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu: chunk %u over %zu items needs more partial sums than the "
                        "context has (%zu)", p->chunk, items, k.part0);
  /* segments of len buckets, ~RED_THREADS of them over all buckets; len
   * divides every window's count, the narrow windows leave the last half
   * of their rows idle (reduce_fn) */
  const size_t total = msm_geo_buckets(&geo);
  const uint32_t nb_lo = msm_geo_nb(&geo, geo.nwin - 1);
  p->len = std::min<uint32_t>(nb_lo, std::max<uint32_t>(std::min<uint32_t>(nb_lo, 8),
                                                        pow2_ceil(ceil_div(total, RED_THREADS))));
  p->S = msm_geo_nb(&geo, 0) / p->len;
  if ((size_t)geo.nwin * p->S > k.segs0 ||
      (size_t)geo.nwin * ceil_div(p->S, SUM_FANIN) > k.segs1)
    return cuzk_err_set(err, CUZK_INTERNAL, "msm_gpu: reduction segments over capacity");
  return CUZK_OK;
}

/* CUB's scratch for the sort of k.items pairs (0 when the query fails). */
size_t cub_bytes(const caps &k) {
  cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
  size_t bytes = 0;
  if (cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, (int)k.items, 0, 32) != cudaSuccess)
    return 0;
  return bytes;
}

void layout_for(layout *l, msm_gpu_group g, size_t n_max, unsigned flags, size_t cub) {
  const caps k = caps_for(n_max);
  const size_t ps = g == MSM_GPU_G1 ? sizeof(g1_xyzz) : sizeof(g2_xyzz);
  const size_t as = g == MSM_GPU_G1 ? sizeof(g1_xyzz::aff) : sizeof(g2_xyzz::aff);
  const bool in = flags & MSM_GPU_HOST_INPUTS;
  size_t *b = l->bytes;
  b[B_KEYS0] = b[B_KEYS1] = b[B_VALS0] = b[B_VALS1] = 4 * k.items;
  b[B_BUCKETS] = ps * k.buckets;
  b[B_PK0] = 4 * k.part0;
  b[B_PK1] = 4 * k.part1;
  b[B_PP0] = ps * k.part0;
  b[B_PP1] = ps * k.part1;
  b[B_SEGS0] = ps * k.segs0;
  b[B_SEGS1] = ps * k.segs1;
  b[B_ONES] = ps;
  b[B_IDX1] = b[B_IDX2] = 4 * n_max;
  b[B_COUNTS] = 4 * CNT_WORDS;
  b[B_CUB] = cub;
  b[B_IN_BASES] = in ? as * n_max : 0;
  b[B_IN_SCALARS] = in ? 32 * n_max : 0;
}

/* The split's two passes walk the scalars grid-stride in tiles of
 * SPLIT_TILE (SPLIT_ITEMS per thread, blocks of SPLIT_BLOCK threads, at
 * most SPLIT_GRID blocks) and add to the global counters once per block
 * (classify) or once per tile and list (place): the lists' three or four
 * counters are single addresses every block contends for, and one atomic
 * per warp on them (n / 32 per counter) serialises in L2. */
constexpr unsigned SPLIT_BLOCK = 256, SPLIT_ITEMS = 8, SPLIT_TILE = SPLIT_BLOCK * SPLIT_ITEMS,
                   SPLIT_GRID = 1024;

unsigned split_grid(uint32_t n) {
  return (unsigned)std::max<size_t>(1, std::min<size_t>(SPLIT_GRID, ceil_div(n, SPLIT_TILE)));
}

/* Split, pass 1: counts[k] += points of class k, counts[CNT_HIST + b] +=
 * others of b folded bits (summed per block in shared memory first). */
__global__ void __launch_bounds__(SPLIT_BLOCK) classify_kernel(const uint8_t *scalars, uint32_t n,
                                                               uint32_t *counts) {
  __shared__ uint32_t h[SPLIT_BLOCK], c[3];
  h[threadIdx.x] = 0;
  if (threadIdx.x < 3)
    c[threadIdx.x] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  uint32_t mine[3] = {0, 0, 0};
  /* the loop's bound is the block's, so every warp runs whole through it
   * and the warp-wide votes below see all 32 lanes */
  for (uint64_t at = (uint64_t)blockIdx.x * SPLIT_BLOCK; at < n;
       at += (uint64_t)gridDim.x * SPLIT_BLOCK) {
    const uint64_t i = at + threadIdx.x;
    unsigned bits = 0;
    const unsigned cls = i < n ? scalar_class(scalars, (uint32_t)i, &bits) : 3;
    mine[0] += cls == 0;
    mine[1] += cls == 1;
    mine[2] += cls == 2;
    /* one shared atomic per bit length and warp: uniform scalars crowd
     * into two or three lengths */
    const unsigned peers = __match_any_sync(0xffffffffu, cls == 2 ? bits : 0x100u + cls);
    if (cls == 2 && lane == (unsigned)__ffs(peers) - 1)
      atomicAdd(&h[bits], (uint32_t)__popc(peers));
  }
  for (unsigned k = 0; k < 3; k++) {
    for (unsigned d = 16; d; d >>= 1) mine[k] += __shfl_xor_sync(0xffffffffu, mine[k], d);
    if (lane == 0 && mine[k])
      atomicAdd(&c[k], mine[k]);
  }
  __syncthreads();
  if (threadIdx.x < 3 && c[threadIdx.x])
    atomicAdd(&counts[threadIdx.x], c[threadIdx.x]);
  if (h[threadIdx.x])
    atomicAdd(&counts[CNT_HIST + threadIdx.x], h[threadIdx.x]);
}

/* Split, pass 2: the ones' indices to idx1, the others' to idx2 (those of
 * at most `narrow` folded bits from the front, the rest from idx2[n - 1]
 * down); pos[0..2]: the three lists' lengths so far.  A tile's entries of
 * one list go out as one run, in the order (warp, item, lane), so that a
 * warp's stores for one item are contiguous; the lists' order is not
 * the scalars' (the sums do not depend on it). */
__global__ void __launch_bounds__(SPLIT_BLOCK) place_kernel(const uint8_t *scalars, uint32_t n,
                                                            unsigned narrow, uint32_t *idx1,
                                                            uint32_t *idx2, uint32_t *pos) {
  constexpr unsigned WARPS = SPLIT_BLOCK / 32;
  __shared__ uint32_t ws[WARPS][3], base[3];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const unsigned below = (1u << lane) - 1;
  for (uint64_t t0 = (uint64_t)blockIdx.x * SPLIT_TILE; t0 < n;
       t0 += (uint64_t)gridDim.x * SPLIT_TILE) {
    /* list of item j: 0 ones, 1 narrow others, 2 wide others, 3 none */
    uint8_t list[SPLIT_ITEMS];
    uint32_t wc[3] = {0, 0, 0}; /* the warp's entries per list (uniform) */
#pragma unroll
    for (unsigned j = 0; j < SPLIT_ITEMS; j++) {
      const uint64_t i = t0 + (uint64_t)warp * 32 * SPLIT_ITEMS + j * 32 + lane;
      unsigned bits = 0;
      const unsigned cls = i < n ? scalar_class(scalars, (uint32_t)i, &bits) : 0;
      list[j] = cls == 1 ? 0 : cls == 2 ? (bits <= narrow ? 1 : 2) : 3;
#pragma unroll
      for (unsigned k = 0; k < 3; k++) wc[k] += __popc(__ballot_sync(0xffffffffu, list[j] == k));
    }
    if (lane == 0)
      for (unsigned k = 0; k < 3; k++) ws[warp][k] = wc[k];
    __syncthreads();
    if (threadIdx.x < 3) { /* the warps' offsets in the tile's run, and the run's place */
      uint32_t t = 0;
      for (unsigned w = 0; w < WARPS; w++) {
        const uint32_t v = ws[w][threadIdx.x];
        ws[w][threadIdx.x] = t;
        t += v;
      }
      base[threadIdx.x] = t ? atomicAdd(&pos[threadIdx.x], t) : 0;
    }
    __syncthreads();
    uint32_t off[3];
#pragma unroll
    for (unsigned k = 0; k < 3; k++) off[k] = base[k] + ws[warp][k];
#pragma unroll
    for (unsigned j = 0; j < SPLIT_ITEMS; j++) {
      const uint32_t i = (uint32_t)(t0 + (uint64_t)warp * 32 * SPLIT_ITEMS + j * 32 + lane);
#pragma unroll
      for (unsigned k = 0; k < 3; k++) {
        const unsigned m = __ballot_sync(0xffffffffu, list[j] == k);
        if (list[j] == k) {
          const uint32_t at = off[k] + __popc(m & below);
          if (k == 0)
            idx1[at] = i;
          else
            idx2[k == 2 ? n - 1 - at : at] = i;
        }
        off[k] += __popc(m);
      }
    }
    __syncthreads(); /* ws and base are the next tile's */
  }
}

cuzk_status exec::fill(void *p, int byte, size_t bytes) const {
  if (ctx->host) {
    memset(p, byte, bytes);
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaMemsetAsync(p, byte, bytes, st));
  return CUZK_OK;
}
cuzk_status exec::to_host(void *dst, const void *src, size_t bytes) const {
  if (ctx->host) {
    memcpy(dst, src, bytes);
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st));
  return CUZK_OK;
}
cuzk_status exec::sort(size_t items, unsigned bits, const uint32_t **K,
                       const uint32_t **V) const {
  if (ctx->host) {
    std::vector<std::pair<uint32_t, uint32_t>> v(items);
    for (size_t i = 0; i < items; i++) v[i] = {ctx->keys[0][i], ctx->vals[0][i]};
    std::stable_sort(v.begin(), v.end(), [](const std::pair<uint32_t, uint32_t> &a,
                                            const std::pair<uint32_t, uint32_t> &b) {
      return a.first < b.first;
    });
    for (size_t i = 0; i < items; i++) ctx->keys[0][i] = v[i].first, ctx->vals[0][i] = v[i].second;
    *K = ctx->keys[0];
    *V = ctx->vals[0];
    return CUZK_OK;
  }
  cub::DoubleBuffer<uint32_t> dk(ctx->keys[0], ctx->keys[1]), dv(ctx->vals[0], ctx->vals[1]);
  size_t bytes = 0;
  CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, (int)items, 0, (int)bits,
                                                st));
  if (bytes > ctx->cub_bytes)
    return cuzk_err_set(err, CUZK_INTERNAL, "msm_gpu: sort of %zu items needs %zu bytes, "
                        "the context has %zu", items, bytes, ctx->cub_bytes);
  CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(ctx->cub_tmp, bytes, dk, dv, (int)items, 0,
                                                (int)bits, st));
  *K = dk.Current();
  *V = dv.Current();
  return CUZK_OK;
}
cuzk_status exec::classify(const uint8_t *scalars, uint32_t n) const {
  if (ctx->host) {
    uint32_t *c = ctx->counts_host;
    memset(c, 0, 4 * CNT_WORDS);
    for (uint32_t i = 0; i < n; i++) {
      unsigned bits;
      const unsigned k = scalar_class(scalars, i, &bits);
      c[k]++;
      if (k == 2)
        c[CNT_HIST + bits]++;
    }
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaMemsetAsync(ctx->counts_dev, 0, 4 * CNT_WORDS, st));
  classify_kernel<<<split_grid(n), SPLIT_BLOCK, 0, st>>>(scalars, n, ctx->counts_dev);
  CUDA_TRY(err, cudaGetLastError());
  CUDA_TRY(err, cudaMemcpyAsync(ctx->counts_host, ctx->counts_dev, 4 * CNT_POS,
                                cudaMemcpyDeviceToHost, st));
  CUDA_TRY(err, cudaStreamSynchronize(st));
  return CUZK_OK;
}
cuzk_status exec::place(const uint8_t *scalars, uint32_t n, unsigned narrow) const {
  if (ctx->host) {
    uint32_t pos[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
      unsigned bits, k = scalar_class(scalars, i, &bits);
      if (k == 1)
        ctx->idx1[pos[0]++] = i;
      else if (k == 2 && bits <= narrow)
        ctx->idx2[pos[1]++] = i;
      else if (k == 2)
        ctx->idx2[n - 1 - pos[2]++] = i;
    }
    return CUZK_OK;
  }
  uint32_t *pos = ctx->counts_dev + CNT_POS;
  CUDA_TRY(err, cudaMemsetAsync(pos, 0, 4 * (CNT_WORDS - CNT_POS), st));
  place_kernel<<<split_grid(n), SPLIT_BLOCK, 0, st>>>(scalars, n, narrow, ctx->idx1,
                                                           ctx->idx2, pos);
  CUDA_TRY(err, cudaGetLastError());
  return CUZK_OK;
}

cuzk_status exec::mark(int phase) const {
  if (!ctx->pev || ctx->npev == ctx->pev_cap)
    return CUZK_OK;
  CUDA_TRY(err, cudaEventRecord(ctx->pev[ctx->npev], st));
  ctx->pphase[ctx->npev++] = phase;
  return CUZK_OK;
}

cuzk_status exec::poll() const {
  if (!cuzk_stop_requested(ctx->stop))
    return CUZK_OK;
  if (!ctx->host)
    CUDA_TRY(err, cudaStreamSynchronize(st)); /* what is queued, before the buffers are reused */
  return cuzk_err_set(err, CUZK_CANCELLED, "msm_gpu: cancelled");
}

cuzk_status exec::pace(unsigned i) const {
  if (!ctx->stop)
    return CUZK_OK;
  if (!ctx->host && i >= 2)
    CUDA_TRY(err, cudaEventSynchronize(ctx->grp_ev[i % 2])); /* group i - 2 has run */
  return poll();
}

cuzk_status exec::paced(unsigned i) const {
  if (ctx->stop && !ctx->host)
    CUDA_TRY(err, cudaEventRecord(ctx->grp_ev[i % 2], st));
  return CUZK_OK;
}

cuzk_status prof_collect(msm_gpu *ctx, cuzk_err *err) {
  if (!ctx->pev || ctx->npev < 2) {
    if (ctx->pev)
      ctx->npev = 0;
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaEventSynchronize(ctx->pev[ctx->npev - 1]));
  for (unsigned i = 1; i < ctx->npev; i++) {
    float f = 0;
    CUDA_TRY(err, cudaEventElapsedTime(&f, ctx->pev[i - 1], ctx->pev[i]));
    if (ctx->pphase[i] >= 0 && ctx->pphase[i] < MSM_GPU_PHASES)
      ctx->prof_ms[ctx->pphase[i]] += f;
  }
  ctx->prof_runs++;
  ctx->npev = 0;
  return CUZK_OK;
}

void CUDART_CB finish_cb(void *p) {
  msm_gpu *ctx = (msm_gpu *)p;
  msm_gpu_finish(ctx->group, ctx->job_out, ctx->win_host, ctx->job_parts, ctx->job_nparts,
                 ctx->job_ones ? (const uint8_t *)ctx->win_host + WIN_ONES * ctx->psize : nullptr);
}

cuzk_status check_ctx(const msm_gpu *ctx, msm_gpu_group g, size_t n, cuzk_err *err) {
  if (!ctx)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: no context");
  if (ctx->group != g)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: a G%d context asked for a G%d MSM",
                        (int)ctx->group, (int)g);
  if (n > ctx->n_max)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: %zu points, the context holds %zu",
                        n, ctx->n_max);
  return CUZK_OK;
}

cuzk_status run_any(msm_gpu *ctx, msm_gpu_group g, void *out, const void *bases,
                    const void *scalars, size_t n, const msm_gpu_opts *opts, void *stream,
                    cuzk_err *err) {
  CUZK_TRY(check_ctx(ctx, g, n, err));
  if (n && (!out || !bases || !scalars || ((uintptr_t)bases | (uintptr_t)scalars) % 16))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: missing or misaligned buffer");
  cudaStream_t st = stream ? (cudaStream_t)stream : ctx->stream;
  return g == MSM_GPU_G1 ? run_g1(ctx, out, bases, scalars, n, opts, st, err)
                         : run_g2(ctx, out, bases, scalars, n, opts, st, err);
}

} // namespace msmg

using namespace msmg;

/* ---- entry points ---- */

extern "C" size_t msm_gpu_device_bytes(msm_gpu_group g, size_t n_max, unsigned flags) {
  if (n_max == 0 || n_max >= (1u << 31))
    return 0;
  layout l;
  size_t cub = flags & MSM_GPU_EMULATE ? 0 : cub_bytes(caps_for(n_max));
  layout_for(&l, g, n_max, flags, cub);
  size_t total = 0;
  for (unsigned i = 0; i < B_COUNT; i++) total += l.bytes[i];
  return total;
}

extern "C" void msm_gpu_free(msm_gpu *ctx) {
  if (!ctx)
    return;
  for (unsigned i = 0; i < ctx->ndev; i++) {
    if (ctx->host)
      free(ctx->dev_allocs[i]);
    else
      cuda_gc_free(ctx->dev_allocs[i]);
  }
  for (unsigned i = 0; i < ctx->npinned; i++) {
    if (ctx->host)
      free(ctx->pinned_allocs[i]);
    else
      cuda_gc_free_host(ctx->pinned_allocs[i]);
  }
  if (ctx->pev) {
    for (unsigned i = 0; i < ctx->pev_cap; i++)
      if (ctx->pev[i])
        cuda_gc_event_destroy(ctx->pev[i]);
    free(ctx->pev);
  }
  free(ctx->pphase);
  if (!ctx->host) {
    for (int i = 0; i < 2; i++)
      if (ctx->stage_ev[i])
        cuda_gc_event_destroy(ctx->stage_ev[i]);
    if (ctx->done)
      cuda_gc_event_destroy(ctx->done);
    if (ctx->ev0)
      cuda_gc_event_destroy(ctx->ev0);
    if (ctx->ev1)
      cuda_gc_event_destroy(ctx->ev1);
    for (int i = 0; i < 2; i++)
      if (ctx->grp_ev[i])
        cuda_gc_event_destroy(ctx->grp_ev[i]);
    if (ctx->stream)
      cuda_gc_stream_destroy(ctx->stream);
  }
  free(ctx);
}

namespace {

cuzk_status ctx_alloc(msm_gpu *ctx, void **p, size_t bytes, bool pinned, cuzk_err *err) {
  *p = nullptr;
  if (bytes == 0)
    return CUZK_OK;
  if (ctx->host) {
    if (posix_memalign(p, 256, bytes) != 0)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "msm_gpu: %zu bytes of host memory", bytes);
  } else if (pinned) {
    CUDA_TRY(err, cuda_gc_malloc_host(p, bytes));
  } else {
    CUDA_TRY(err, cuda_gc_malloc(p, bytes));
  }
  if (pinned)
    ctx->pinned_allocs[ctx->npinned++] = *p;
  else
    ctx->dev_allocs[ctx->ndev++] = *p;
  return CUZK_OK;
}

cuzk_status ctx_init(msm_gpu *ctx, cuzk_err *err) {
  if (!ctx->host) {
    CUDA_TRY(err, cuda_gc_stream_new(&ctx->stream, cudaStreamNonBlocking, 0));
    CUDA_TRY(err, cuda_gc_event_new(&ctx->done, cudaEventDisableTiming));
    CUDA_TRY(err, cuda_gc_event_new(&ctx->ev0, cudaEventDefault));
    CUDA_TRY(err, cuda_gc_event_new(&ctx->ev1, cudaEventDefault));
    for (int i = 0; i < 2; i++)
      CUDA_TRY(err, cuda_gc_event_new(&ctx->grp_ev[i], cudaEventDisableTiming));
    if (ctx->flags & MSM_GPU_PROFILE) {
      ctx->pev_cap = 8 * NWIN_MAX + 16;
      ctx->pev = (cudaEvent_t *)calloc(ctx->pev_cap, sizeof *ctx->pev);
      ctx->pphase = (int *)calloc(ctx->pev_cap, sizeof *ctx->pphase);
      if (!ctx->pev || !ctx->pphase)
        return cuzk_err_set(err, CUZK_NO_MEMORY, "msm_gpu: profile events");
      for (unsigned i = 0; i < ctx->pev_cap; i++) CUDA_TRY(err, cuda_gc_event_new(&ctx->pev[i], cudaEventDefault));
    }
    ctx->cub_bytes = cub_bytes(ctx->k);
    if (ctx->cub_bytes == 0)
      return cuzk_err_set(err, CUZK_INTERNAL, "msm_gpu: CUB sort size query failed");
  }
  layout l;
  layout_for(&l, ctx->group, ctx->n_max, ctx->flags, ctx->cub_bytes);
  void **dst[B_COUNT] = {(void **)&ctx->keys[0], (void **)&ctx->keys[1], (void **)&ctx->vals[0],
                         (void **)&ctx->vals[1], &ctx->buckets, (void **)&ctx->part_keys[0],
                         (void **)&ctx->part_keys[1], &ctx->part_pts[0], &ctx->part_pts[1],
                         &ctx->segs[0], &ctx->segs[1], &ctx->ones_dev, (void **)&ctx->idx1,
                         (void **)&ctx->idx2, (void **)&ctx->counts_dev, &ctx->cub_tmp,
                         &ctx->in_bases, &ctx->in_scalars};
  for (unsigned i = 0; i < B_COUNT; i++) CUZK_TRY(ctx_alloc(ctx, dst[i], l.bytes[i], false, err));
  CUZK_TRY(ctx_alloc(ctx, &ctx->win_host, WIN_SLOTS * ctx->psize, true, err));
  if (!ctx->host && (ctx->flags & MSM_GPU_HOST_INPUTS))
    for (int i = 0; i < 2; i++) {
      CUZK_TRY(ctx_alloc(ctx, &ctx->stage[i], STAGE_BYTES, true, err));
      CUDA_TRY(err, cuda_gc_event_new(&ctx->stage_ev[i], cudaEventDisableTiming));
    }
  CUZK_TRY(ctx_alloc(ctx, (void **)&ctx->counts_host, 4 * CNT_WORDS, true, err));
  return CUZK_OK;
}

} // namespace

extern "C" cuzk_status msm_gpu_new(msm_gpu **out, msm_gpu_group g, size_t n_max, unsigned flags,
                                   cuzk_err *err) {
  *out = nullptr;
  if (g != MSM_GPU_G1 && g != MSM_GPU_G2)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu_new: group %d", (int)g);
  if (n_max == 0 || n_max >= (1u << 31))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu_new: n_max %zu (1..2^31-1)", n_max);
  msm_gpu *ctx = (msm_gpu *)calloc(1, sizeof *ctx);
  if (!ctx)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm_gpu_new: context");
  ctx->group = g;
  ctx->n_max = n_max;
  ctx->flags = flags;
  ctx->host = flags & MSM_GPU_EMULATE;
  ctx->psize = g == MSM_GPU_G1 ? sizeof(g1_xyzz) : sizeof(g2_xyzz);
  ctx->asize = g == MSM_GPU_G1 ? sizeof(g1_xyzz::aff) : sizeof(g2_xyzz::aff);
  ctx->k = caps_for(n_max);
  ctx->counts.split = -1;
  cuzk_status s = ctx_init(ctx, err);
  if (s != CUZK_OK) {
    msm_gpu_free(ctx);
    return s;
  }
  *out = ctx;
  return CUZK_OK;
}

extern "C" cuzk_status msm_gpu_last_counts(const msm_gpu *ctx, msm_gpu_counts *counts,
                                           cuzk_err *err) {
  if (!ctx || ctx->counts.split < 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: no classified run yet");
  *counts = ctx->counts;
  return CUZK_OK;
}

extern "C" cuzk_status msm_gpu_profile(msm_gpu *ctx, double ms[MSM_GPU_PHASES], unsigned *runs,
                                       cuzk_err *err) {
  if (!ctx || !ctx->pev)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu_profile: needs MSM_GPU_PROFILE");
  if (ctx->done_recorded)
    CUDA_TRY(err, cudaEventSynchronize(ctx->done));
  CUZK_TRY(prof_collect(ctx, err));
  for (int i = 0; i < MSM_GPU_PHASES; i++) ms[i] = ctx->prof_ms[i], ctx->prof_ms[i] = 0;
  *runs = ctx->prof_runs;
  ctx->prof_runs = 0;
  return CUZK_OK;
}

extern "C" cuzk_status msm_gpu_run_(msm_gpu *ctx, msm_gpu_group g, void *out, const void *bases,
                                    const void *scalars, size_t n, const msm_gpu_opts *opts,
                                    void *stream, cuzk_err *err) {
  return run_any(ctx, g, out, bases, scalars, n, opts, stream, err);
}

/* A device copy of a base set (msm_gpu_bases_new). */
struct msm_gpu_bases {
  msm_gpu_group group;
  bool host;                /* MSM_GPU_EMULATE: host memory */
  void *data;               /* the bases of all parts, in order */
  size_t n, nparts, asize;
  const void **src;         /* each part's host bases, and its count */
  size_t *count;
};

/* scalars[i] = 0 where bases[i] is infinity (all-zero bytes); asize is a
 * multiple of 16 and bases 16-byte aligned. */
__global__ void zero_inf_scalars_kernel(const uint8_t *bases, uint8_t *scalars, uint32_t n,
                                        uint32_t asize) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const uint4 *p = (const uint4 *)(bases + (size_t)asize * i);
  uint32_t acc = 0;
  for (uint32_t k = 0; k < asize / 16; k++) {
    const uint4 v = p[k];
    acc |= v.x | v.y | v.z | v.w;
  }
  if (acc == 0) {
    uint4 *q = (uint4 *)(scalars + 32 * (size_t)i);
    q[0] = make_uint4(0, 0, 0, 0);
    q[1] = make_uint4(0, 0, 0, 0);
  }
}

namespace {

struct copy_job {
  uint8_t *dst;
  const uint8_t *src;
  size_t bytes;
};

void copy_worker(void *arg, unsigned idx, unsigned n) {
  const copy_job *j = (const copy_job *)arg;
  size_t lo, hi;
  par_range(j->bytes, idx, n, &lo, &hi);
  memcpy(j->dst + lo, j->src + lo, hi - lo);
}

/* bytes from host memory to the device at dst, on stream st.
 * Page-locked sources go straight; pageable ones (a mapped key, a witness)
 * through the two staging buffers: while the device copies one, host
 * threads fill the other, which the bus takes at its full speed, against
 * ~8 GB/s for cudaMemcpy from pageable memory (bench/RESULTS.md). */
cuzk_status copy_in(msm_gpu *ctx, void *dst, const void *src, size_t bytes, unsigned *turn,
                    cudaStream_t st, cuzk_err *err) {
  if (bytes == 0)
    return CUZK_OK;
  cudaPointerAttributes at;
  if (cudaPointerGetAttributes(&at, src) == cudaSuccess && at.type == cudaMemoryTypeHost) {
    CUDA_TRY(err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
    return CUZK_OK;
  }
  cudaGetLastError(); /* a pageable pointer is not an error */
  const unsigned threads = par_threads() < 8 ? par_threads() : 8;
  for (size_t o = 0; o < bytes; o += STAGE_BYTES) {
    const size_t len = bytes - o < STAGE_BYTES ? bytes - o : STAGE_BYTES;
    const unsigned k = (*turn)++ & 1;
    CUDA_TRY(err, cudaEventSynchronize(ctx->stage_ev[k])); /* its last copy is done */
    CUZK_TRY((exec{ctx, st, err}.poll())); /* the copies pace the host: poll per buffer */
    copy_job j = {(uint8_t *)ctx->stage[k], (const uint8_t *)src + o, len};
    par_run(len >= ((size_t)4 << 20) ? threads : 1, copy_worker, &j);
    CUDA_TRY(err, cudaMemcpyAsync((uint8_t *)dst + o, ctx->stage[k], len, cudaMemcpyHostToDevice,
                                  st));
    CUDA_TRY(err, cudaEventRecord(ctx->stage_ev[k], st));
  }
  return CUZK_OK;
}

/* The parts' scalars (and, without res, their bases) into the context's
 * input buffers, then the MSM over them (or over res's device bases), all
 * on `stream` (NULL: the context's own), under the stop hook `stop`
 * (NULL: none). */
cuzk_status run_parts_(msm_gpu *ctx, msm_gpu_group g, void *out, const msm_gpu_bases *res,
                       const msm_gpu_part *parts, size_t nparts, const msm_gpu_opts *opts,
                       void *stream, cuzk_err *err) {
  size_t n = 0;
  for (size_t i = 0; i < nparts; i++) n += parts[i].n;
  CUZK_TRY(check_ctx(ctx, g, n, err));
  const cudaStream_t st = stream ? (cudaStream_t)stream : ctx->stream;
  if (!ctx->in_bases)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu: host inputs need a context made with MSM_GPU_HOST_INPUTS");
  if (res && !msm_gpu_bases_match(res, parts, nparts))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu: the parts' bases are not the resident set's");
  if (res && res->host != ctx->host)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu: resident set and context differ in MSM_GPU_EMULATE");
  size_t off = 0;
  unsigned turn = 0;
  for (size_t i = 0; i < nparts; i++) {
    const size_t k = parts[i].n;
    uint8_t *b = (uint8_t *)ctx->in_bases + off * ctx->asize, *s = (uint8_t *)ctx->in_scalars + off * 32;
    if (ctx->host) {
      if (!res)
        memcpy(b, parts[i].bases, k * ctx->asize);
      memcpy(s, parts[i].scalars, k * 32);
    } else {
      if (!res)
        CUZK_TRY(copy_in(ctx, b, parts[i].bases, k * ctx->asize, &turn, st, err));
      CUZK_TRY(copy_in(ctx, s, parts[i].scalars, k * 32, &turn, st, err));
    }
    off += k;
  }
  /* A base at infinity adds nothing whatever its scalar: a zero scalar
   * takes it out of the buckets (half of circom's B columns).  The bases
   * are scanned where they lie, uploaded or resident (~1 ms per 3 GB). */
  const uint8_t *bases = (const uint8_t *)(res ? res->data : ctx->in_bases);
  if (n && ctx->host) {
    for (size_t i = 0; i < n; i++) {
      const uint8_t *p = bases + i * ctx->asize;
      uint8_t acc = 0;
      for (size_t k = 0; k < ctx->asize; k++) acc |= p[k];
      if (!acc)
        memset((uint8_t *)ctx->in_scalars + 32 * i, 0, 32);
    }
  } else if (n) {
    zero_inf_scalars_kernel<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(
        bases, (uint8_t *)ctx->in_scalars, (uint32_t)n, (uint32_t)ctx->asize);
    CUDA_TRY(err, cudaGetLastError());
  }
  CUZK_TRY(run_any(ctx, g, out, bases, ctx->in_scalars, n, opts, st, err));
  if (!ctx->host)
    CUDA_TRY(err, cudaStreamSynchronize(st));
  return CUZK_OK;
}

cuzk_status run_parts(msm_gpu *ctx, msm_gpu_group g, void *out, const msm_gpu_bases *res,
                      const msm_gpu_part *parts, size_t nparts, const msm_gpu_opts *opts,
                      void *stream, const void *stop, cuzk_err *err) {
  if (!ctx)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: no context");
  ctx->stop = stop; /* read by exec's poll and pace (and copy_in) during this run only */
  cuzk_status s = run_parts_(ctx, g, out, res, parts, nparts, opts, stream, err);
  ctx->stop = nullptr;
  return s;
}

} // namespace

extern "C" cuzk_status msm_gpu_parts_(msm_gpu *ctx, msm_gpu_group g, void *out,
                                      const msm_gpu_part *parts, size_t nparts,
                                      const msm_gpu_opts *opts, cuzk_err *err) {
  return run_parts(ctx, g, out, nullptr, parts, nparts, opts, nullptr, nullptr, err);
}

extern "C" cuzk_status msm_gpu_parts_resident_(msm_gpu *ctx, msm_gpu_group g, void *out,
                                               const msm_gpu_bases *res,
                                               const msm_gpu_part *parts, size_t nparts,
                                               const msm_gpu_opts *opts, cuzk_err *err) {
  if (!res)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu: no resident set");
  return run_parts(ctx, g, out, res, parts, nparts, opts, nullptr, nullptr, err);
}

extern "C" cuzk_status msm_gpu_parts_on_(msm_gpu *ctx, msm_gpu_group g, void *out,
                                         const msm_gpu_bases *res, const msm_gpu_part *parts,
                                         size_t nparts, const msm_gpu_opts *opts, void *stream,
                                         const void *stop, cuzk_err *err) {
  return run_parts(ctx, g, out, res, parts, nparts, opts, stream, stop, err);
}

extern "C" void msm_gpu_bases_free(msm_gpu_bases *b) {
  if (!b)
    return;
  if (b->host)
    free(b->data);
  else if (b->data)
    cuda_gc_free(b->data);
  free(b->src);
  free(b->count);
  free(b);
}

extern "C" cuzk_status msm_gpu_bases_new(msm_gpu_bases **out, msm_gpu_group g,
                                         const msm_gpu_part *parts, size_t nparts,
                                         unsigned flags, cuzk_err *err) {
  *out = nullptr;
  if (g != MSM_GPU_G1 && g != MSM_GPU_G2)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu_bases_new: group %d", (int)g);
  msm_gpu_bases *b = (msm_gpu_bases *)calloc(1, sizeof *b);
  if (!b)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm_gpu_bases_new: set");
  b->group = g;
  b->host = flags & MSM_GPU_EMULATE;
  b->asize = g == MSM_GPU_G1 ? sizeof(g1_xyzz::aff) : sizeof(g2_xyzz::aff);
  b->nparts = nparts;
  b->src = (const void **)calloc(nparts ? nparts : 1, sizeof *b->src);
  b->count = (size_t *)calloc(nparts ? nparts : 1, sizeof *b->count);
  if (!b->src || !b->count) {
    msm_gpu_bases_free(b);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm_gpu_bases_new: %zu parts", nparts);
  }
  for (size_t i = 0; i < nparts; i++) {
    if (parts[i].n > ((size_t)1 << 31) - b->n) {
      msm_gpu_bases_free(b);
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm_gpu_bases_new: 2^31 points or more");
    }
    b->src[i] = parts[i].bases;
    b->count[i] = parts[i].n;
    b->n += parts[i].n;
  }
  const size_t bytes = b->n * b->asize;
  cuzk_status st = CUZK_OK;
  if (b->host) {
    if (posix_memalign(&b->data, 256, bytes ? bytes : 1) != 0)
      st = cuzk_err_set(err, CUZK_NO_MEMORY, "msm_gpu_bases_new: %zu bytes", bytes);
  } else if (bytes) {
    cudaError_t e = cuda_gc_malloc(&b->data, bytes);
    if (e != cudaSuccess) {
      b->data = nullptr;
      st = cuda_fail(e, __FILE__, __LINE__, "cudaMalloc of resident bases", err);
    }
  }
  for (size_t i = 0, off = 0; st == CUZK_OK && i < nparts; off += parts[i++].n) {
    uint8_t *dst = (uint8_t *)b->data + off * b->asize;
    if (b->host)
      memcpy(dst, parts[i].bases, parts[i].n * b->asize);
    else if (parts[i].n) {
      cudaError_t e = cudaMemcpy(dst, parts[i].bases, parts[i].n * b->asize,
                                 cudaMemcpyHostToDevice);
      if (e != cudaSuccess)
        st = cuda_fail(e, __FILE__, __LINE__, "cudaMemcpy of resident bases", err);
    }
  }
  if (st != CUZK_OK) {
    msm_gpu_bases_free(b);
    return st;
  }
  *out = b;
  return CUZK_OK;
}

extern "C" bool msm_gpu_bases_match(const msm_gpu_bases *b, const msm_gpu_part *parts,
                                    size_t nparts) {
  if (!b || b->nparts != nparts)
    return false;
  for (size_t i = 0; i < nparts; i++)
    if (b->src[i] != parts[i].bases || b->count[i] != parts[i].n)
      return false;
  return true;
}

extern "C" size_t msm_gpu_bases_bytes(const msm_gpu_bases *b) { return b ? b->n * b->asize : 0; }
extern "C" const void *msm_gpu_bases_data(const msm_gpu_bases *b) { return b ? b->data : nullptr; }

extern "C" cuzk_status msm_gpu_upload(msm_gpu *ctx, const void *bases, const void *scalars,
                                      size_t n, double *ms, cuzk_err *err) {
  if (!ctx || !ctx->in_bases || n > ctx->n_max)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu_upload: needs an MSM_GPU_HOST_INPUTS context of >= %zu points", n);
  if (ctx->host) {
    memcpy(ctx->in_bases, bases, n * ctx->asize);
    memcpy(ctx->in_scalars, scalars, n * 32);
    if (ms)
      *ms = 0;
    return CUZK_OK;
  }
  CUDA_TRY(err, cudaEventRecord(ctx->ev0, ctx->stream));
  CUDA_TRY(err, cudaMemcpyAsync(ctx->in_bases, bases, n * ctx->asize, cudaMemcpyHostToDevice,
                                ctx->stream));
  CUDA_TRY(err, cudaMemcpyAsync(ctx->in_scalars, scalars, n * 32, cudaMemcpyHostToDevice,
                                ctx->stream));
  CUDA_TRY(err, cudaEventRecord(ctx->ev1, ctx->stream));
  CUDA_TRY(err, cudaEventSynchronize(ctx->ev1));
  float f = 0;
  CUDA_TRY(err, cudaEventElapsedTime(&f, ctx->ev0, ctx->ev1));
  if (ms)
    *ms = f;
  return CUZK_OK;
}

extern "C" cuzk_status msm_gpu_time_(msm_gpu *ctx, msm_gpu_group g, void *out, size_t n,
                                     const msm_gpu_opts *opts, unsigned reps, double *ms_median,
                                     cuzk_err *err) {
  CUZK_TRY(check_ctx(ctx, g, n, err));
  if (!ctx->in_bases || ctx->host || reps == 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "msm_gpu_time: needs a device context with MSM_GPU_HOST_INPUTS, reps >= 1");
  CUZK_TRY(run_any(ctx, g, out, ctx->in_bases, ctx->in_scalars, n, opts, ctx->stream, err));
  CUDA_TRY(err, cudaStreamSynchronize(ctx->stream));
  std::vector<double> t(reps);
  for (unsigned r = 0; r < reps; r++) {
    CUDA_TRY(err, cudaEventRecord(ctx->ev0, ctx->stream));
    CUZK_TRY(run_any(ctx, g, out, ctx->in_bases, ctx->in_scalars, n, opts, ctx->stream, err));
    CUDA_TRY(err, cudaEventRecord(ctx->ev1, ctx->stream));
    CUDA_TRY(err, cudaEventSynchronize(ctx->ev1));
    float f = 0;
    CUDA_TRY(err, cudaEventElapsedTime(&f, ctx->ev0, ctx->ev1));
    t[r] = f;
  }
  std::sort(t.begin(), t.end());
  *ms_median = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
  return CUZK_OK;
}
