/* NTT over BLS12-381 Fr on the GPU (ntt_gpu.h): plans (passes, shapes,
 * twiddle tables) and the operations that launch the kernels of
 * ntt_kernels.cuh, whose DESIGN describes the transform.
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
#include "cuda/ntt_kernels.cuh"

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
