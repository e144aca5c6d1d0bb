/* The CUDA backend: backend.h's operations on one GPU (GPU 0, or the
 * ordinal given to backend_cuda_new_on).
 *
 * DESIGN: the heavy steps run on the GPU through the C entry points of
 * src/cuda (the NTT plan of cuda/ntt_gpu.h for the quotient, one MSM
 * context per group from cuda/msm_gpu.h); zkey_ab, a single pass over the
 * coefficient entries, runs on the host cores (the CPU backend's own
 * operation) unless the key is held (below).  Device memory is reserved up
 * front by `reserve`, from the key's sizes, before the first stage: the NTT
 * plan with its three vectors and the MSM contexts with their input buffers
 * and scratch, so that no operation allocates - except, with hold_bases on,
 * the resident copies, made once on a key's first proof.  A later `reserve` for a larger key frees and
 * remakes what is too small; one for a smaller key keeps what is there.
 * Results are the CPU backend's, bit for bit (tests/gpu).  Errors from CUDA
 * come back as statuses with file and line; the backend does not fall back
 * to the CPU on its own (the caller chooses: `cuzk prove --device`).
 * With hold_bases on, each MSM's base arrays get a device copy the first
 * time they come (msm_gpu_resident_new) and later MSMs over the same arrays
 * upload only their scalars, and zkey_ab runs on the GPU from a resident
 * copy of the coefficient section (cuda/ab_gpu.h, when the entries are
 * sorted by row): a key resident on the GPU between proofs, as
 * `cuzk bench prove --resident` measures.  When the device has no room for
 * a copy, that MSM uploads its bases as usual.  The prover's a, b, c
 * vectors live in page-locked memory from host_vectors (kept between
 * proofs), so the quotient's copies, on the backend's own non-blocking
 * stream, run at the bus's speed; host_staging offers the same for the
 * witness (the engine copies each partition's witness there).
 *
 * Executor duties (DESIGN.md section 3; engine/worker.c makes one backend
 * per slot): every operation first makes the backend's GPU the calling
 * thread's device (a no-op on the slot's own thread, bound at start); the
 * backend's two streams, one at the device's highest stream priority and
 * one at the normal priority, are made at creation and chosen per proof by
 * set_priority; NTT plans are kept per domain size (up to CUDA_MAX_PLANS),
 * so that keys of several sizes, planned at start by `reserve`, do not
 * remake each other's on the job path.  Each upload of a proof's vectors
 * and each stretch of kernels ends with a wait on the backend's own
 * stream (never the device) and is recorded as a span (take_spans). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "base/clock.h"
#include "cuda/ab_gpu.h"
#include "cuda/cuda.h"
#include "cuda/msm_gpu.h"
#include "cuda/ntt_gpu.h"
#include "poly/ntt.h"

#define CUDA_MAX_RES 8   /* resident base sets: a key's A, B1, B2 and C+H, twice */
#define CUDA_MAX_PLANS 6 /* NTT plans kept, one per domain size */
#define CUDA_MAX_SPANS 4096

typedef struct {
  backend *cpu;           /* zkey_ab when the key is not held */
  int ordinal;            /* the GPU */
  cuda_ntt_plan *ntt[CUDA_MAX_PLANS]; /* 3 buffers each, for lg[i] */
  unsigned lg[CUDA_MAX_PLANS];
  unsigned nplans;
  msm_gpu *g1, *g2;
  size_t g1_max, g2_max;
  void *streams[2];                 /* BACKEND_PRI_NORMAL, _HIGH (non-blocking) */
  void *stream;                     /* the one chosen by set_priority */
  bls12_381_fr *vec;                /* host_vectors: page-locked, vec_n elements */
  size_t vec_n;
  void *stage;                      /* host_staging: page-locked, stage_bytes */
  size_t stage_bytes;
  cuda_ab *ab;                      /* hold_bases on: the resident coefficients */
  const void *ab_refused;           /* entries cuda_ab_new refused (not row-sorted) */
  bool hold;                        /* hold_bases on: keep base sets resident */
  msm_gpu_bases *res[CUDA_MAX_RES]; /* the resident sets, oldest first */
  unsigned nres;
  backend_span spans[CUDA_MAX_SPANS]; /* a ring: nspans newest end at span_end */
  size_t nspans, span_end;
} cuda_impl;

static void span_add(cuda_impl *im, backend_span_kind kind, double t0) {
  backend_span *s = &im->spans[im->span_end];
  s->kind = kind, s->t0 = t0, s->t1 = cuzk_now_s();
  im->span_end = (im->span_end + 1) % CUDA_MAX_SPANS;
  if (im->nspans < CUDA_MAX_SPANS)
    im->nspans++;
}

static size_t cuda_take_spans(backend *be, backend_span *out, size_t cap) {
  cuda_impl *im = be->impl;
  size_t n = im->nspans < cap ? im->nspans : cap;
  size_t first = (im->span_end + CUDA_MAX_SPANS - im->nspans) % CUDA_MAX_SPANS;
  for (size_t i = 0; i < n; i++) out[i] = im->spans[(first + i) % CUDA_MAX_SPANS];
  im->nspans -= n;
  return n;
}

static void cuda_set_priority(backend *be, backend_priority p) {
  cuda_impl *im = be->impl;
  im->stream = im->streams[p == BACKEND_PRI_HIGH ? 1 : 0];
}

/* The plan for 2^lg, or NULL. */
static cuda_ntt_plan *plan_for(cuda_impl *im, unsigned lg) {
  for (unsigned i = 0; i < im->nplans; i++)
    if (im->lg[i] == lg)
      return im->ntt[i];
  return NULL;
}

static bool cuda_supports(const backend *b, cuzk_curve curve, backend_op op) {
  (void)b;
  return curve == CUZK_CURVE_BLS12_381 && op < BACKEND_OP_COUNT;
}

/* *ctx holds an MSM context for at least n points of group g (remade when
 * smaller; *max is its size). */
static cuzk_status msm_reserve(msm_gpu **ctx, size_t *max, msm_gpu_group g, size_t n,
                               cuzk_err *err) {
  if (n <= *max)
    return CUZK_OK;
  msm_gpu_free(*ctx);
  *ctx = NULL, *max = 0;
  cuzk_status st = msm_gpu_new(ctx, g, n, MSM_GPU_HOST_INPUTS, err);
  if (st == CUZK_OK)
    *max = n;
  return st;
}

static cuzk_status cuda_reserve(backend *be, size_t max_g1, size_t max_g2, unsigned lg_domain,
                                cuzk_err *err) {
  cuda_impl *im = be->impl;
  cuzk_status st;
  CUZK_TRY(cuzk_cuda_use_device(im->ordinal, err));
  if (lg_domain && !plan_for(im, lg_domain)) {
    if (im->nplans == CUDA_MAX_PLANS) { /* the oldest plan makes room */
      cuda_ntt_plan_free(im->ntt[0]);
      memmove(im->ntt, im->ntt + 1, (CUDA_MAX_PLANS - 1) * sizeof *im->ntt);
      memmove(im->lg, im->lg + 1, (CUDA_MAX_PLANS - 1) * sizeof *im->lg);
      im->nplans--;
    }
    cuda_ntt_config cfg = {.buffers = 3};
    cuda_ntt_plan *p = NULL;
    if ((st = cuda_ntt_plan_new(&p, lg_domain, NTT_ROOTS_SNARKJS, &cfg, err)) != CUZK_OK)
      return st;
    im->ntt[im->nplans] = p, im->lg[im->nplans] = lg_domain;
    im->nplans++;
  }
  if ((st = msm_reserve(&im->g1, &im->g1_max, MSM_GPU_G1, max_g1, err)) != CUZK_OK)
    return st;
  return msm_reserve(&im->g2, &im->g2_max, MSM_GPU_G2, max_g2, err);
}

/* *p: page-locked memory of at least `need` bytes (*have), grown (freed
 * and remade) when smaller. */
static void *pinned_grow(cuda_impl *im, void **p, size_t *have, size_t need, cuzk_err *err) {
  if (need <= *have)
    return *p;
  if (cuzk_cuda_use_device(im->ordinal, err) != CUZK_OK)
    return NULL;
  cuzk_cuda_host_free(*p);
  *p = NULL, *have = 0;
  if (cuzk_cuda_host_alloc(p, need, err) != CUZK_OK)
    return NULL;
  *have = need;
  return *p;
}

static bls12_381_fr *cuda_host_vectors(backend *be, size_t n, cuzk_err *err) {
  cuda_impl *im = be->impl;
  if (n > SIZE_MAX / sizeof *im->vec) {
    cuzk_err_set(err, CUZK_NO_MEMORY, "cuda backend: %zu field elements", n);
    return NULL;
  }
  size_t have = im->vec_n * sizeof *im->vec;
  void *p = im->vec;
  bls12_381_fr *v = pinned_grow(im, &p, &have, n * sizeof *im->vec, err);
  im->vec = p, im->vec_n = have / sizeof *im->vec;
  return v;
}

static void *cuda_host_staging(backend *be, size_t bytes, cuzk_err *err) {
  cuda_impl *im = be->impl;
  return pinned_grow(im, &im->stage, &im->stage_bytes, bytes, err);
}

/* With hold_bases on, a and b come from the resident coefficients on the
 * GPU (only the witness is uploaded); otherwise, or when the entries are
 * not sorted by row or the device has no room, from the host's cores. */
static cuzk_status cuda_zkey_ab(backend *be, bls12_381_fr *a, bls12_381_fr *b, size_t n,
                                const void *entries, size_t n_entries, const void *witness,
                                size_t n_witness, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(cuzk_cuda_use_device(im->ordinal, err));
  if (im->hold && entries != im->ab_refused) {
    if (!cuda_ab_match(im->ab, entries, n_entries, n, n_witness)) {
      cuda_ab_free(im->ab);
      im->ab = NULL;
      cuzk_err e = {0};
      if (cuda_ab_new(&im->ab, entries, n_entries, n, n_witness, false, &e) != CUZK_OK)
        im->ab = NULL, im->ab_refused = entries;
    }
    if (im->ab) { /* one stretch: the witness up, the kernels, a and b down */
      double t0 = cuzk_now_s();
      cuzk_status st = cuda_ab_run(im->ab, a, b, witness, im->stream, err);
      span_add(im, BACKEND_SPAN_COMPUTE, t0);
      return st;
    }
  }
  return im->cpu->ops->zkey_ab(im->cpu, a, b, n, entries, n_entries, witness, n_witness, err);
}

static cuzk_status cuda_quotient(backend *be, void *h, bls12_381_fr *a, bls12_381_fr *bv,
                                 bls12_381_fr *c, unsigned lg_n, cuzk_err *err) {
  cuda_impl *im = be->impl;
  (void)c;
  cuzk_status st = cuda_reserve(be, 0, 0, lg_n, err);
  if (st != CUZK_OK)
    return st;
  cuda_ntt_plan *p = plan_for(im, lg_n);
  /* cuda_ntt_quotient's steps, with a wait after the upload so that the
   * timeline tells the copy from the kernels: a, b into buffers 0, 1; h
   * (c = a o b computed on the device) into buffer 2 and back. */
  double t0 = cuzk_now_s();
  if ((st = cuda_ntt_upload(p, 0, a, im->stream, err)) != CUZK_OK ||
      (st = cuda_ntt_upload(p, 1, bv, im->stream, err)) != CUZK_OK ||
      (st = cuda_ntt_sync(p, im->stream, err)) != CUZK_OK)
    return st;
  span_add(im, BACKEND_SPAN_UPLOAD, t0);
  t0 = cuzk_now_s();
  void *b0 = cuda_ntt_plan_buffer(p, 0), *b1 = cuda_ntt_plan_buffer(p, 1),
       *b2 = cuda_ntt_plan_buffer(p, 2);
  if ((st = cuda_ntt_quotient_dev(p, b2, b0, b1, b2, true, im->stream, err)) != CUZK_OK ||
      (st = cuda_ntt_download(p, h, 2, im->stream, err)) != CUZK_OK ||
      (st = cuda_ntt_sync(p, im->stream, err)) != CUZK_OK)
    return st;
  span_add(im, BACKEND_SPAN_COMPUTE, t0);
  return CUZK_OK;
}

static size_t parts_total(const msm_part *parts, size_t nparts) {
  size_t n = 0;
  for (size_t k = 0; k < nparts; k++) n += parts[k].n;
  return n;
}

static void drop_resident(cuda_impl *im) {
  for (unsigned i = 0; i < im->nres; i++) msm_gpu_bases_free(im->res[i]);
  im->nres = 0;
  cuda_ab_free(im->ab);
  im->ab = NULL, im->ab_refused = NULL;
}

static cuzk_status cuda_hold_bases(backend *be, bool on, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(cuzk_cuda_use_device(im->ordinal, err));
  if (!on)
    drop_resident(im);
  im->hold = on;
  return CUZK_OK;
}

/* With hold_bases on, the resident set for parts' bases: found, or made
 * now (the oldest set makes room when all slots are taken).  NULL when off,
 * or when the device has no room for it: the MSM then uploads its bases. */
static const msm_gpu_bases *resident_for(cuda_impl *im, msm_gpu_group g, const msm_part *parts,
                                         size_t nparts) {
  if (!im->hold)
    return NULL;
  for (unsigned i = 0; i < im->nres; i++)
    if (msm_gpu_resident_match(im->res[i], parts, nparts))
      return im->res[i];
  if (im->nres == CUDA_MAX_RES) {
    msm_gpu_bases_free(im->res[0]);
    memmove(im->res, im->res + 1, (CUDA_MAX_RES - 1) * sizeof *im->res);
    im->nres--;
  }
  cuzk_err e = {0};
  msm_gpu_bases *b;
  if (msm_gpu_resident_new(&b, g, parts, nparts, 0, &e) != CUZK_OK)
    return NULL;
  im->res[im->nres++] = b;
  return b;
}

static cuzk_status cuda_msm_g1(backend *be, bls12_381_g1_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  cuda_impl *im = be->impl;
  cuzk_status st = cuda_reserve(be, parts_total(parts, nparts), 0, 0, err);
  if (st != CUZK_OK)
    return st;
  const msm_gpu_bases *res = resident_for(im, MSM_GPU_G1, parts, nparts);
  double t0 = cuzk_now_s(); /* the scalars (and bases) go up inside: one stretch */
  st = res ? msm_gpu_g1_parts_resident(im->g1, out, res, parts, nparts, NULL, err)
           : msm_gpu_g1_parts(im->g1, out, parts, nparts, NULL, err);
  span_add(im, BACKEND_SPAN_COMPUTE, t0);
  return st;
}

static cuzk_status cuda_msm_g2(backend *be, bls12_381_g2_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  cuda_impl *im = be->impl;
  cuzk_status st = cuda_reserve(be, 0, parts_total(parts, nparts), 0, err);
  if (st != CUZK_OK)
    return st;
  const msm_gpu_bases *res = resident_for(im, MSM_GPU_G2, parts, nparts);
  double t0 = cuzk_now_s();
  st = res ? msm_gpu_g2_parts_resident(im->g2, out, res, parts, nparts, NULL, err)
           : msm_gpu_g2_parts(im->g2, out, parts, nparts, NULL, err);
  span_add(im, BACKEND_SPAN_COMPUTE, t0);
  return st;
}

static void cuda_destroy(backend *b) {
  cuda_impl *im = b->impl;
  if (im) {
    cuzk_err ignored = {0};
    cuzk_cuda_use_device(im->ordinal, &ignored);
    drop_resident(im);
    cuzk_cuda_host_free(im->vec);
    cuzk_cuda_host_free(im->stage);
    for (unsigned i = 0; i < 2; i++) cuzk_cuda_stream_free(im->streams[i]);
    for (unsigned i = 0; i < im->nplans; i++) cuda_ntt_plan_free(im->ntt[i]);
    msm_gpu_free(im->g1);
    msm_gpu_free(im->g2);
    backend_free(im->cpu);
    free(im);
  }
  free(b);
}

static const backend_ops cuda_ops = {
    .name = "cuda",
    .supports = cuda_supports,
    .reserve = cuda_reserve,
    .hold_bases = cuda_hold_bases,
    .host_vectors = cuda_host_vectors,
    .host_staging = cuda_host_staging,
    .zkey_ab = cuda_zkey_ab,
    .quotient = cuda_quotient,
    .msm_g1 = cuda_msm_g1,
    .msm_g2 = cuda_msm_g2,
    .set_priority = cuda_set_priority,
    .take_spans = cuda_take_spans,
    .destroy = cuda_destroy,
};

backend *backend_cuda_new(unsigned threads, cuzk_err *err) {
  return backend_cuda_new_on(0, threads, err);
}

backend *backend_cuda_new_on(int ordinal, unsigned threads, cuzk_err *err) {
  char why[256];
  if (!cuzk_cuda_device_usable(ordinal, why, sizeof why)) {
    cuzk_err_set(err, CUZK_UNSUPPORTED, "no usable GPU %d: %s", ordinal, why);
    return NULL;
  }
  backend *b = calloc(1, sizeof *b);
  cuda_impl *im = calloc(1, sizeof *im);
  backend *cpu = backend_cpu_new(threads);
  if (!b || !im || !cpu) {
    free(b), free(im), backend_free(cpu);
    cuzk_err_set(err, CUZK_NO_MEMORY, "cuda backend: no host memory");
    return NULL;
  }
  im->cpu = cpu;
  im->ordinal = ordinal;
  b->ops = &cuda_ops;
  b->threads = cpu->threads;
  b->impl = im;
  int normal = 0, high = 0;
  if (cuzk_cuda_use_device(ordinal, err) != CUZK_OK ||
      cuzk_cuda_stream_priorities(&normal, &high, err) != CUZK_OK ||
      cuzk_cuda_stream_new_priority(&im->streams[0], normal, err) != CUZK_OK ||
      cuzk_cuda_stream_new_priority(&im->streams[1], high, err) != CUZK_OK) {
    cuda_destroy(b);
    return NULL;
  }
  im->stream = im->streams[0];
  return b;
}
