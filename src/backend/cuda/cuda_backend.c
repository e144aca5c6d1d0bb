/* The CUDA backend: backend.h's operations on one GPU, and the provider
 * of the registry (device.h) that lists the GPUs and makes such backends.
 *
 * DESIGN: the heavy steps run on the GPU through the C entry points of
 * src/cuda (the NTT plan of cuda/ntt_gpu.h for the quotient, one MSM
 * context per group from cuda/msm_gpu.h); zkey_ab, a single pass over the
 * coefficient entries, runs on the host cores (the CPU backend's own
 * operation) unless the key is held (below).  Device memory is reserved up
 * front by `reserve`, from the key's sizes, before the first stage: the NTT
 * plan with its three vectors and the MSM contexts with their input buffers
 * and scratch, so that no operation allocates - except, with hold_bases on,
 * the resident copies, made once on a key's first proof.  A later `reserve`
 * for a larger key frees and remakes what is too small; one for a smaller
 * key keeps what is there.  Results are the CPU backend's, bit for bit
 * (tests/gpu).  Errors from CUDA come back as statuses with file and line;
 * the backend does not fall back to the CPU on its own (the caller chooses:
 * `cuzk prove --device`).
 *
 * Resident copies (hold_bases on): each MSM's base arrays get a device copy
 * the first time they come (msm_gpu_resident_new) and later MSMs over the
 * same arrays upload only their scalars, and zkey_ab runs on the GPU from a
 * resident copy of the coefficient section (cuda/ab_gpu.h, when the entries
 * are sorted by row): a key resident on the GPU between proofs, as
 * `cuzk bench prove --resident` measures.  The copies live in a store
 * (backend/store.h): the backend's own, or one shared by every backend of
 * the GPU (backend_device_opts.store: the engine's K slots of a device),
 * so that a key is resident once per GPU, not once per slot.  The backend
 * keeps a reference on each entry it has used (at most CUDA_MAX_RES base
 * sets, the oldest let go first, and one coefficient set) until hold_bases
 * off or destroy; an entry is freed when its last holder lets go, so no backend
 * frees a copy another still uses.  Base sets are only read by the MSM's
 * kernels, so several slots run over one at once; a coefficient set holds
 * its run's scratch (witness, a, b on the device), so slots take turns
 * with it (backend_res_use_begin: one zkey_ab at a time per key and GPU, a
 * few per cent of a proof).  A copy is made by synchronous copies on the
 * legacy default stream, which may return before the last DMA lands; the
 * maker waits for that stream before publishing the entry, so every
 * slot's non-blocking streams see the whole copy.  When the device has no
 * room for a copy, that MSM uploads its bases as usual.  The prover's a,
 * b, c vectors live in page-locked memory from host_vectors (kept between
 * proofs), so the quotient's copies run at the bus's speed; host_staging
 * offers the same for the witness (the engine copies each partition's
 * witness there).
 *
 * Executor duties (docs/DESIGN.md §3; engine/worker.c makes one backend
 * per slot): every operation first makes the backend's GPU the calling
 * thread's device (a no-op on the slot's own thread, bound at start); the
 * backend's two streams, one at the device's highest stream priority and
 * one at the normal priority, are made at creation and chosen per proof by
 * set_priority, and every operation runs all its device work on the chosen
 * one: the quotient's NTTs, zkey_ab and the MSMs (msm_gpu_g1_parts_on; the
 * MSM contexts' own streams stay idle).  Each operation ends with that
 * stream synchronized (its results are host memory), so no device data
 * passes from one stream to another and a priority change between
 * operations needs no event.  NTT plans are kept per domain size (up to
 * CUDA_MAX_PLANS), so that keys of several sizes, planned at start by
 * `reserve`, do not remake each other's on the job path; each is made with
 * the backend's options (backend_device_opts.ntt_pass1_table).  Each
 * upload of a proof's vectors and each stretch of kernels ends with a wait
 * on the backend's own stream (never the device) and is recorded as a
 * span (take_spans).
 *
 * Stopping (backend.h): the MSMs poll the caller's stop hook between their
 * staging copies and window groups (msm_gpu.h msm_gpu_parts_on_), the
 * quotient between its odd-coset evaluations
 * (cuda_ntt_quotient_dev_stoppable), and zkey_ab on the host's cores
 * within its passes (the CPU backend's, given the same hook); the GPU's
 * zkey_ab from resident coefficients, a few per cent of a proof, runs
 * whole.  A stopped operation has waited for its stream, so the next
 * operation (the next partition's) finds it idle.
 *
 * Emulation (backend_device_opts.emulate, tests only): the same code with
 * the NTT plans, MSM contexts, resident sets and a/b copies made in their
 * emulated form (host memory, the kernels' code run on the host), host
 * memory from malloc instead of cudaMallocHost, no streams and no device
 * made current: no CUDA call at all, so tests/gpu runs the backend's paths
 * where there is no GPU. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/store.h"
#include "base/clock.h"
#include "cuda/ab_gpu.h"
#include "cuda/cuda.h"
#include "cuda/msm_gpu.h"
#include "cuda/ntt_gpu.h"
#include "cuda/fixed_gpu.h"
#include "cuda/pce_gpu.h"
#include "ec/bls12_381.h"
#include "poly/ntt.h"

#define CUDA_MAX_RES 16  /* resident base sets held: a zkey's 4 (A, B1, B2, C+H) or a
                            bellperson key's 5 (a, b_g1, b_g2, l, h), for the keys a slot
                            holds at once (engine ENGINE_SLOT_HOLDS) with room to spare */
#define CUDA_MAX_PCE 2   /* resident circuits (bp_sums) held at once */
#define CUDA_MAX_PLANS 6 /* NTT plans kept, one per domain size */
#define CUDA_MAX_SPANS 4096

/* ------------------------------------------------------------ the backend */

typedef struct {
  backend *cpu;           /* zkey_ab when the key is not held */
  int ordinal;            /* the GPU */
  bool emulate;           /* backend_device_opts.emulate: no CUDA call */
  bool pass1_table;       /* backend_device_opts.ntt_pass1_table, for every plan */
  cuda_ntt_plan *ntt[CUDA_MAX_PLANS]; /* 3 buffers each, for lg[i] and roots[i] */
  unsigned lg[CUDA_MAX_PLANS];
  int roots[CUDA_MAX_PLANS];        /* NTT_ROOTS_SNARKJS (odd coset), _BELLPERSON (coset 7) */
  unsigned nplans;
  msm_gpu *g1, *g2;
  size_t g1_max, g2_max;
  bool g1_host, g2_host;            /* made with MSM_GPU_HOST_INPUTS (msm_g1, msm_g2 need it) */
  void *wdev, *xdev;                /* bp_sums: the values; gather scratch past the domain */
  size_t wdev_bytes, xdev_bytes;
  void *bad_dev;                    /* bp_sums: the first value not below r (8 bytes) */
  size_t bad_bytes;
  backend_res *pce[CUDA_MAX_PCE];   /* bp_sums: the resident matrices and index lists held,
                                       the most recently used first */
  void *streams[2];                 /* BACKEND_PRI_NORMAL, _HIGH (non-blocking; NULL emulated) */
  void *stream;                     /* the one chosen by set_priority */
  bls12_381_fr *vec;                /* host_vectors: page-locked, vec_n elements */
  size_t vec_n;
  void *stage;                      /* host_staging: page-locked, stage_bytes */
  size_t stage_bytes;
  backend_store *store;             /* the resident copies: shared, or own_store */
  bool own_store;
  backend_res *ab;                  /* hold_bases on: the resident coefficients held */
  const void *ab_refused;           /* entries not made resident (not row-sorted, no room) */
  bool hold;                        /* hold_bases on: keep base sets resident */
  backend_res *res[CUDA_MAX_RES];   /* the base sets held, oldest first */
  cuda_fixed *fixed[2];             /* fixed_base: G1's and G2's last generator's tables */
  uint8_t fixed_gen[2][192];        /* and those generators (host affine bytes) */
  unsigned nres;
  backend_span spans[CUDA_MAX_SPANS]; /* a ring: nspans newest end at span_end */
  size_t nspans, span_end;
} cuda_impl;

/* Makes the backend's GPU the calling thread's device (nothing emulated). */
static cuzk_status bind(const cuda_impl *im, cuzk_err *err) {
  return im->emulate ? CUZK_OK : cuzk_cuda_use_device(im->ordinal, err);
}

/* Page-locked host memory (malloc'd when emulated); *p NULL on failure. */
static cuzk_status host_alloc(const cuda_impl *im, void **p, size_t bytes, cuzk_err *err) {
  if (!im->emulate)
    return cuzk_cuda_host_alloc(p, bytes, err);
  if (!(*p = malloc(bytes ? bytes : 1)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda backend (emulated): %zu bytes", bytes);
  return CUZK_OK;
}

/* Device memory (host memory when emulated); *p NULL on failure. */
static cuzk_status dev_alloc(const cuda_impl *im, void **p, size_t bytes, cuzk_err *err) {
  if (!im->emulate)
    return cuzk_cuda_dev_alloc(p, bytes, err);
  if (posix_memalign(p, 256, bytes ? bytes : 1) != 0) {
    *p = NULL;
    return cuzk_err_set(err, CUZK_NO_MEMORY, "cuda backend (emulated): %zu bytes", bytes);
  }
  return CUZK_OK;
}

static void dev_free(const cuda_impl *im, void *p) {
  if (im->emulate)
    free(p);
  else
    cuzk_cuda_dev_free(p);
}

/* *p: device memory of at least `need` bytes (*have), remade when smaller. */
static cuzk_status dev_grow(const cuda_impl *im, void **p, size_t *have, size_t need,
                            cuzk_err *err) {
  if (need <= *have)
    return CUZK_OK;
  dev_free(im, *p);
  *p = NULL, *have = 0;
  CUZK_TRY(dev_alloc(im, p, need, err));
  *have = need;
  return CUZK_OK;
}

/* A host-to-device copy on the backend's stream (memcpy when emulated). */
static cuzk_status to_dev(const cuda_impl *im, void *dev, const void *host, size_t bytes,
                          cuzk_err *err) {
  if (im->emulate) {
    memcpy(dev, host, bytes);
    return CUZK_OK;
  }
  return cuzk_cuda_copy_to_device(dev, host, bytes, im->stream, err);
}

static cuzk_status to_host(const cuda_impl *im, void *host, const void *dev, size_t bytes,
                           cuzk_err *err) {
  if (im->emulate) {
    memcpy(host, dev, bytes);
    return CUZK_OK;
  }
  return cuzk_cuda_copy_to_host(host, dev, bytes, im->stream, err);
}

static cuzk_status wait_stream(const cuda_impl *im, cuzk_err *err) {
  return im->emulate ? CUZK_OK : cuzk_cuda_stream_sync(im->stream, err);
}

static void host_free(const cuda_impl *im, void *p) {
  if (im->emulate)
    free(p);
  else
    cuzk_cuda_host_free(p);
}

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

/* The stream of every operation that follows, the MSMs' included (each
 * operation leaves its stream idle, so the switch needs no event). */
static void cuda_set_priority(backend *be, backend_priority p) {
  cuda_impl *im = be->impl;
  im->stream = im->streams[p == BACKEND_PRI_HIGH ? 1 : 0];
}

/* The plan for 2^lg on roots, or NULL. */
static cuda_ntt_plan *plan_for(cuda_impl *im, unsigned lg, int roots) {
  for (unsigned i = 0; i < im->nplans; i++)
    if (im->lg[i] == lg && im->roots[i] == roots)
      return im->ntt[i];
  return NULL;
}

/* Makes the plan for 2^lg on roots unless there is one: three buffers, and
 * the coset 7 for bellperson's roots (the odd coset for snarkjs's). */
static cuzk_status plan_make(cuda_impl *im, unsigned lg, int roots, cuzk_err *err) {
  if (plan_for(im, lg, roots))
    return CUZK_OK;
  if (im->nplans == CUDA_MAX_PLANS) { /* the oldest plan makes room */
    cuda_ntt_plan_free(im->ntt[0]);
    memmove(im->ntt, im->ntt + 1, (CUDA_MAX_PLANS - 1) * sizeof *im->ntt);
    memmove(im->lg, im->lg + 1, (CUDA_MAX_PLANS - 1) * sizeof *im->lg);
    memmove(im->roots, im->roots + 1, (CUDA_MAX_PLANS - 1) * sizeof *im->roots);
    im->nplans--;
  }
  cuda_ntt_config cfg = {.buffers = 3,
                         .pass1_table = im->pass1_table,
                         .coset_gen = roots == NTT_ROOTS_BELLPERSON ? 7 : 0,
                         .emulate = im->emulate};
  cuda_ntt_plan *p = NULL;
  CUZK_TRY(cuda_ntt_plan_new(&p, lg, roots, &cfg, err));
  im->ntt[im->nplans] = p, im->lg[im->nplans] = lg, im->roots[im->nplans] = roots;
  im->nplans++;
  return CUZK_OK;
}

/* What this backend's code runs: every operation of BLS12-381. */
static bool curve_op_supported(cuzk_curve curve, backend_op op) {
  return curve == CUZK_CURVE_BLS12_381 && op < BACKEND_OP_COUNT;
}

static bool cuda_supports(const backend *b, cuzk_curve curve, backend_op op) {
  (void)b;
  return curve_op_supported(curve, op);
}

/* *ctx holds an MSM context for at least n points of group g, with input
 * buffers for host arrays when host_inputs (remade when smaller or
 * without them; *max is its size, *host whether it has them).  bp_sums
 * reads device arrays only and asks without: a context it makes holds
 * no input buffers (at 2^27 G1 points, 17 GB fewer). */
static cuzk_status msm_reserve(const cuda_impl *im, msm_gpu **ctx, size_t *max, bool *host,
                               msm_gpu_group g, size_t n, bool host_inputs, cuzk_err *err) {
  if (n == 0 || (n <= *max && (*host || !host_inputs)))
    return CUZK_OK;
  if (n < *max)
    n = *max;
  msm_gpu_free(*ctx);
  *ctx = NULL, *max = 0, *host = false;
  cuzk_status st = msm_gpu_new(ctx, g, n,
                               (host_inputs ? MSM_GPU_HOST_INPUTS : 0) |
                                   (im->emulate ? MSM_GPU_EMULATE : 0),
                               err);
  if (st == CUZK_OK)
    *max = n, *host = host_inputs;
  return st;
}

static cuzk_status cuda_reserve(backend *be, size_t max_g1, size_t max_g2, unsigned lg_domain,
                                cuzk_err *err) {
  cuda_impl *im = be->impl;
  cuzk_status st;
  CUZK_TRY(bind(im, err));
  if (lg_domain && (st = plan_make(im, lg_domain, NTT_ROOTS_SNARKJS, err)) != CUZK_OK)
    return st;
  if ((st = msm_reserve(im, &im->g1, &im->g1_max, &im->g1_host, MSM_GPU_G1, max_g1, true,
                        err)) != CUZK_OK)
    return st;
  return msm_reserve(im, &im->g2, &im->g2_max, &im->g2_host, MSM_GPU_G2, max_g2, true, err);
}

/* *p: page-locked memory of at least `need` bytes (*have), grown (freed
 * and remade) when smaller. */
static void *pinned_grow(cuda_impl *im, void **p, size_t *have, size_t need, cuzk_err *err) {
  if (need <= *have)
    return *p;
  if (bind(im, err) != CUZK_OK)
    return NULL;
  host_free(im, *p);
  *p = NULL, *have = 0;
  if (host_alloc(im, p, need, err) != CUZK_OK)
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

/* The staging and the provider's buffers are both cudaMallocHost memory
 * (dev_host_alloc); an emulated backend's staging is malloc's. */
static void *cuda_host_staging_swap(backend *be, void *p, size_t bytes, size_t *old_bytes) {
  cuda_impl *im = be->impl;
  if (im->emulate || !im->stage || im->stage_bytes < bytes)
    return NULL;
  void *old = im->stage;
  *old_bytes = im->stage_bytes;
  im->stage = p, im->stage_bytes = bytes;
  return old;
}

/* The store's entries: a key's coefficients (named by ab_req) and its
 * MSM base sets (cuda_bases_id), made by the first backend that asks. */
typedef struct {
  const void *entries;
  size_t n_entries, n, n_witness;
  bool emulate;
} ab_req;

/* A made object (st: its maker's status), returned once the copies that
 * made it, on the legacy default stream, have landed (see DESIGN); NULL,
 * obj freed, when either failed. */
static void *published(cuzk_status st, bool emulate, void *obj, size_t obj_bytes,
                       backend_res_free_fn free_fn, size_t *bytes) {
  cuzk_err e = {0};
  if (st != CUZK_OK)
    return NULL;
  if (!emulate && cuzk_cuda_stream_sync(NULL, &e) != CUZK_OK) {
    free_fn(obj);
    return NULL;
  }
  *bytes = obj_bytes;
  return obj;
}

static void ab_free(void *obj) { cuda_ab_free(obj); }

static void *ab_make(void *ctx, size_t *bytes) {
  const ab_req *q = ctx;
  cuda_ab *ab = NULL;
  cuzk_err e = {0};
  cuzk_status st = cuda_ab_new(&ab, q->entries, q->n_entries, q->n, q->n_witness, q->emulate, &e);
  return published(st, q->emulate, ab, cuda_ab_bytes(ab), ab_free, bytes);
}

/* With hold_bases on, a and b come from the resident coefficients on the
 * GPU (only the witness is uploaded), found in the store or made there;
 * otherwise, or when the entries are not sorted by row or the device has
 * no room, from the host's cores. */
static cuzk_status cuda_zkey_ab(backend *be, bls12_381_fr *a, bls12_381_fr *b, size_t n,
                                const void *entries, size_t n_entries, const void *witness,
                                size_t n_witness, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(bind(im, err));
  if (im->hold && entries != im->ab_refused) {
    if (!cuda_ab_match(backend_res_object(im->ab), entries, n_entries, n, n_witness)) {
      backend_store_release(im->store, im->ab);
      ab_req q = {entries, n_entries, n, n_witness, im->emulate};
      /* The store compares ids bytewise, so the id has no padding: every
       * field is 8 bytes wide (a struct copy of q would carry q's
       * indeterminate padding, which differs between slot threads, and
       * each slot would upload its own copy). */
      const uint64_t id[6] = {'A', (uint64_t)(uintptr_t)entries, n_entries, n, n_witness,
                              im->emulate};
      if (!(im->ab = backend_store_acquire(im->store, id, sizeof id, ab_make, &q, ab_free)))
        im->ab_refused = entries;
    }
    if (im->ab) { /* one stretch: the witness up, the kernels, a and b down */
      double t0 = cuzk_now_s();
      backend_res_use_begin(im->ab); /* its device scratch: one run at a time */
      cuzk_status st = cuda_ab_run(backend_res_object(im->ab), a, b, witness, im->stream, err);
      backend_res_use_end(im->ab);
      span_add(im, BACKEND_SPAN_COMPUTE, t0);
      return st;
    }
  }
  im->cpu->stop = be->stop;
  cuzk_status st = im->cpu->ops->zkey_ab(im->cpu, a, b, n, entries, n_entries, witness, n_witness,
                                         err);
  im->cpu->stop = NULL;
  return st;
}

static cuzk_status cuda_quotient(backend *be, void *h, bls12_381_fr *a, bls12_381_fr *bv,
                                 bls12_381_fr *c, unsigned lg_n, cuzk_err *err) {
  cuda_impl *im = be->impl;
  (void)c;
  cuzk_status st = cuda_reserve(be, 0, 0, lg_n, err);
  if (st != CUZK_OK)
    return st;
  cuda_ntt_plan *p = plan_for(im, lg_n, NTT_ROOTS_SNARKJS);
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
  if ((st = cuda_ntt_quotient_dev_stoppable(p, b2, b0, b1, b2, true, im->stream, be->stop,
                                             err)) != CUZK_OK ||
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

/* Lets go of every entry the backend holds (freed when it was the last). */
static void drop_resident(cuda_impl *im) {
  for (unsigned i = 0; i < im->nres; i++) backend_store_release(im->store, im->res[i]);
  im->nres = 0;
  backend_store_release(im->store, im->ab);
  im->ab = NULL, im->ab_refused = NULL;
  for (unsigned i = 0; i < CUDA_MAX_PCE; i++) {
    backend_store_release(im->store, im->pce[i]);
    im->pce[i] = NULL;
  }
}

static cuzk_status cuda_hold_bases(backend *be, bool on, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(bind(im, err));
  if (!on)
    drop_resident(im);
  im->hold = on;
  return CUZK_OK;
}

typedef struct {
  msm_gpu_group g;
  const msm_part *parts;
  size_t nparts;
  bool emulate;
} bases_req;

static void bases_free(void *obj) { msm_gpu_bases_free(obj); }

static void *bases_make(void *ctx, size_t *bytes) {
  const bases_req *q = ctx;
  msm_gpu_bases *b = NULL;
  cuzk_err e = {0};
  cuzk_status st =
      msm_gpu_resident_new(&b, q->g, q->parts, q->nparts, q->emulate ? MSM_GPU_EMULATE : 0, &e);
  return published(st, q->emulate, b, msm_gpu_bases_bytes(b), bases_free, bytes);
}

/* With hold_bases on, the resident set for parts' bases: one this backend
 * holds, or one from the store (found there, or made now), which it then
 * holds (its oldest set is let go when it holds CUDA_MAX_RES).  NULL when
 * off, or when the device has no room for it: the MSM then uploads its
 * bases. */
static const msm_gpu_bases *resident_for(cuda_impl *im, msm_gpu_group g, const msm_part *parts,
                                         size_t nparts) {
  backend_bases_id id;
  const size_t id_len = backend_bases_id_make(&id, g, parts, nparts);
  if (!im->hold || !id_len)
    return NULL;
  for (unsigned i = 0; i < im->nres; i++)
    if (msm_gpu_resident_match(backend_res_object(im->res[i]), parts, nparts))
      return backend_res_object(im->res[i]);
  if (im->nres == CUDA_MAX_RES) {
    backend_store_release(im->store, im->res[0]);
    memmove(im->res, im->res + 1, (CUDA_MAX_RES - 1) * sizeof *im->res);
    im->nres--;
  }
  bases_req q = {g, parts, nparts, im->emulate};
  backend_res *r = backend_store_acquire(im->store, &id, id_len, bases_make, &q, bases_free);
  if (!r)
    return NULL;
  im->res[im->nres++] = r;
  return backend_res_object(r);
}

/* The witness's MSMs of a .zkey proof are mostly 0 and 1 in circuits of
 * bits (hashes, comparisons): classify every run and split it where that
 * pays (msm_gpu.h); a run of uniform scalars (h) costs one more pass over
 * its scalars and stays whole. */
static const msm_gpu_opts msm_auto_split = {.split = MSM_GPU_SPLIT_AUTO};

static cuzk_status cuda_msm_g1(backend *be, bls12_381_g1_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  cuda_impl *im = be->impl;
  cuzk_status st = cuda_reserve(be, parts_total(parts, nparts), 0, 0, err);
  if (st != CUZK_OK)
    return st;
  const msm_gpu_bases *res = resident_for(im, MSM_GPU_G1, parts, nparts);
  double t0 = cuzk_now_s(); /* the scalars (and bases) go up inside: one stretch */
  st = msm_gpu_g1_parts_on(im->g1, out, res, parts, nparts, &msm_auto_split, im->stream, be->stop,
                           err);
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
  st = msm_gpu_g2_parts_on(im->g2, out, res, parts, nparts, &msm_auto_split, im->stream, be->stop,
                           err);
  span_add(im, BACKEND_SPAN_COMPUTE, t0);
  return st;
}

/* ---------------------------------------------- bellperson partitions */

/* The store's name of a circuit's resident matrices and index lists:
 * every field is 8 bytes wide (no padding), so equal circuits have equal
 * bytes. */
typedef struct {
  uint64_t tag, emulate;
  cuda_pce_src src;
} pce_id;

static void pce_obj_free(void *obj) { cuda_pce_free(obj); }

static void *pce_make(void *ctx, size_t *bytes) {
  const pce_id *q = ctx;
  cuda_pce *p = NULL;
  cuzk_err e = {0};
  cuzk_status st = cuda_pce_new(&p, &q->src, q->emulate, &e);
  return published(st, q->emulate, p, cuda_pce_bytes(p), pce_obj_free, bytes);
}

/* The resident circuit for k (its matrices, or only the index lists of
 * its densities when a, b, c come from the caller): held, or from the
 * store.  NULL when the device has no room. */
static const cuda_pce *pce_for(cuda_impl *im, const backend_bp_key *k, bool matrices) {
  pce_id id;
  memset(&id, 0, sizeof id);
  id.tag = 'P', id.emulate = im->emulate;
  cuda_pce_src *s = &id.src;
  s->n_inputs = k->n_inputs, s->n_aux = k->n_aux;
  s->a_aux = k->a_aux->words, s->b_input = k->b_input->words, s->b_aux = k->b_aux->words;
  if (matrices) {
    const pce_csr *m[3] = {&k->pce->a, &k->pce->b, &k->pce->c};
    s->rows = k->pce->num_constraints;
    for (int i = 0; i < 3; i++)
      s->row_ptr[i] = m[i]->row_ptr, s->col[i] = m[i]->col, s->val[i] = m[i]->val,
      s->nnz[i] = m[i]->nnz;
  }
  /* Held ones first (moved to the front when used); the least recently
   * used is let go to make room. */
  unsigned i = 0;
  while (i < CUDA_MAX_PCE && !cuda_pce_match(backend_res_object(im->pce[i]), s)) i++;
  backend_res *r;
  if (i < CUDA_MAX_PCE) {
    r = im->pce[i];
  } else {
    i = CUDA_MAX_PCE - 1;
    backend_store_release(im->store, im->pce[i]);
    im->pce[i] = NULL;
    if (!(r = backend_store_acquire(im->store, &id, sizeof id, pce_make, &id, pce_obj_free)))
      return NULL;
  }
  memmove(im->pce + 1, im->pce, i * sizeof *im->pce);
  im->pce[0] = r;
  return backend_res_object(r);
}

/* The device copy of a key vector (resident, made on first use). */
static const void *bases_dev(cuda_impl *im, msm_gpu_group g, const void *bases, size_t n) {
  const msm_part part = {bases, NULL, n};
  return msm_gpu_bases_data(resident_for(im, g, &part, 1));
}

/* The pipeline (backend.h bp_sums) with everything reserved: values up
 * into wdev; a, b, c into the plan's buffers 0..2; h into buffer 2; the
 * a and b scalars gathered into buffers 0 and 1 (or xdev, for a query
 * longer than the domain); the MSMs over resident bases.  Each stage ends
 * with a wait on the stream, for its time and for the stop hook. */
static cuzk_status bp_run(cuda_impl *im, backend *be, backend_bp_sums *out,
                          const backend_bp_key *k, const void *values, const backend_bp_abc *abc,
                          cuda_ntt_plan *p, const cuda_pce *cp, const void *const bd[5],
                          cuzk_err *err) {
  const size_t m = (size_t)1 << k->lg_domain, ninp = k->n_inputs, nv = ninp + k->n_aux;
  uint8_t *w = im->wdev;
  void *v[3] = {cuda_ntt_plan_buffer(p, 0), cuda_ntt_plan_buffer(p, 1),
                cuda_ntt_plan_buffer(p, 2)};
  cuzk_status st;
  double t = cuzk_now_s();
  CUZK_TRY(to_dev(im, w, values, 32 * nv, err));
  CUZK_TRY(cuda_fr_check_canon(w, nv, im->bad_dev, im->emulate, im->stream, err));
  if (abc) {
    const void *src[3] = {abc->a, abc->b, abc->c};
    for (int i = 0; i < 3; i++) CUZK_TRY(to_dev(im, v[i], src[i], 32 * abc->rows, err));
  }
  CUZK_TRY(wait_stream(im, err));
  span_add(im, BACKEND_SPAN_UPLOAD, t);
  t = cuzk_now_s();
  if (abc) {
    for (int i = 0; i < 3; i++)
      CUZK_TRY(cuda_fr_from_canon(v[i], abc->rows, m, im->emulate, im->stream, err));
  } else {
    CUZK_TRY(cuda_pce_abc(cp, v[0], v[1], v[2], m, w, im->stream, err));
  }
  uint64_t bad;
  CUZK_TRY(to_host(im, &bad, im->bad_dev, sizeof bad, err));
  CUZK_TRY(wait_stream(im, err));
  out->abc_s = cuzk_now_s() - t;
  if (bad < nv) {
    out->bad1 = (size_t)bad + 1;
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "bp_sums: value %zu is not below r",
                        (size_t)bad);
  }
  if (cuzk_stopped(be->stop))
    return cuzk_err_set(err, CUZK_CANCELLED, "cancelled before the quotient");
  double th = cuzk_now_s();
  CUZK_TRY(cuda_ntt_coset_quotient_dev(p, v[2], v[0], v[1], v[2], im->stream, be->stop, err));
  CUZK_TRY(wait_stream(im, err));
  out->h_s = cuzk_now_s() - th;
  /* The a, b and l queries' scalars are mostly 0 and 1 in Filecoin's
   * circuits: split them (msm_gpu.h); h's are uniform. */
  const msm_gpu_opts *split = &msm_auto_split;
  const size_t na = cuda_pce_n_a(cp), nb = cuda_pce_n_b(cp);
  void *sa = na <= m ? v[0] : im->xdev, *sb = nb <= m ? v[1] : im->xdev;
  bls12_381_g1_jac lsum, hsum;
  double tm = cuzk_now_s();
#define BP_MSM(i, call)                                                                          \
  do {                                                                                           \
    if (cuzk_stopped(be->stop))                                                                  \
      return cuzk_err_set(err, CUZK_CANCELLED, "cancelled between the MSMs");                   \
    if ((st = (call)) != CUZK_OK || (st = wait_stream(im, err)) != CUZK_OK)                     \
      return st;                                                                                 \
    out->msm_s[i] += cuzk_now_s() - tm, tm = cuzk_now_s();                                       \
  } while (0)
  BP_MSM(0, cuda_pce_gather_a(cp, sa, w, im->stream, err) == CUZK_OK
                ? msm_gpu_g1(im->g1, &out->a, bd[0], sa, na, split, im->stream, err)
                : err->status);
  BP_MSM(1, cuda_pce_gather_b(cp, sb, w, im->stream, err) == CUZK_OK
                ? msm_gpu_g1(im->g1, &out->b1, bd[1], sb, nb, split, im->stream, err)
                : err->status);
  BP_MSM(2, msm_gpu_g2(im->g2, &out->b2, bd[2], sb, nb, split, im->stream, err));
  BP_MSM(3, msm_gpu_g1(im->g1, &lsum, bd[3], w + 32 * ninp, k->n_aux, split, im->stream, err));
  BP_MSM(3, msm_gpu_g1(im->g1, &hsum, bd[4], v[2], m - 1, NULL, im->stream, err));
#undef BP_MSM
  bls12_381_g1_jac_add(&out->lh, &lsum, &hsum);
  span_add(im, BACKEND_SPAN_COMPUTE, t);
  return CUZK_OK;
}

/* What bp_sums runs with (backend.h reserve_bp): the bellperson NTT plan,
 * MSM contexts for the longest G1 vector (h's m - 1, l's n_aux, the a and
 * b queries) and for the G2 b query, without host input buffers (the
 * scalars are on the device), the witness, and room for a query longer
 * than the domain. */
static cuzk_status bp_reserve(cuda_impl *im, unsigned lg, size_t nv, size_t n_aux, size_t n_a,
                              size_t n_b, cuzk_err *err) {
  const size_t m = (size_t)1 << lg;
  size_t g1n = m - 1;
  const size_t sizes[3] = {n_aux, n_a, n_b};
  for (int i = 0; i < 3; i++) g1n = sizes[i] > g1n ? sizes[i] : g1n;
  const size_t xa = n_a > m ? n_a : 0, xb = n_b > m ? n_b : 0, xn = xa > xb ? xa : xb;
  cuzk_status st;
  if ((st = plan_make(im, lg, NTT_ROOTS_BELLPERSON, err)) != CUZK_OK ||
      (st = msm_reserve(im, &im->g1, &im->g1_max, &im->g1_host, MSM_GPU_G1, g1n, false, err)) !=
          CUZK_OK ||
      (st = msm_reserve(im, &im->g2, &im->g2_max, &im->g2_host, MSM_GPU_G2, n_b, false, err)) !=
          CUZK_OK ||
      (st = dev_grow(im, &im->wdev, &im->wdev_bytes, 32 * nv, err)) != CUZK_OK ||
      (st = dev_grow(im, &im->bad_dev, &im->bad_bytes, sizeof(uint64_t), err)) != CUZK_OK ||
      (xn && (st = dev_grow(im, &im->xdev, &im->xdev_bytes, 32 * xn, err)) != CUZK_OK))
    return st;
  return CUZK_OK;
}

static cuzk_status cuda_reserve_bp(backend *be, unsigned lg, size_t nv, size_t n_aux, size_t n_a,
                                   size_t n_b, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(bind(im, err));
  return bp_reserve(im, lg, nv, n_aux, n_a, n_b, err);
}

static cuzk_status cuda_bp_sums(backend *be, backend_bp_sums *out, const backend_bp_key *k,
                                const void *values, const backend_bp_abc *abc, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(bind(im, err));
  memset(out, 0, sizeof *out);
  const size_t m = (size_t)1 << k->lg_domain, nv = k->n_inputs + k->n_aux;
  const size_t rows = abc ? abc->rows : k->pce ? k->pce->num_constraints : 0;
  if ((!abc && !k->pce) || rows > m || m < 2)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "bp_sums: %zu rows of a, b, c (%s) for a domain of %zu", rows,
                        abc ? "given" : k->pce ? "the circuit's" : "none given", m);
  cuzk_status st = bp_reserve(im, k->lg_domain, nv, k->n_aux, k->n_a, k->n_b, err);
  if (st != CUZK_OK)
    return st;
  /* Resident copies, held for later partitions while hold_bases is on and
   * let go at the end of this one otherwise (the pipeline reads device
   * arrays only). */
  const bool held = im->hold;
  im->hold = true;
  const cuda_pce *cp = pce_for(im, k, !abc);
  const void *bd[5] = {bases_dev(im, MSM_GPU_G1, k->a, k->n_a),
                       bases_dev(im, MSM_GPU_G1, k->b_g1, k->n_b),
                       bases_dev(im, MSM_GPU_G2, k->b_g2, k->n_b),
                       bases_dev(im, MSM_GPU_G1, k->l, k->n_aux),
                       bases_dev(im, MSM_GPU_G1, k->h, m - 1)};
  if (!cp || !bd[0] || !bd[1] || !bd[2] || !bd[3] || !bd[4]) {
    st = cuzk_err_set(err, CUZK_NO_MEMORY,
                      "cuda GPU %d: no room for the %s of the key (resident copies of the "
                      "circuit's matrices and the key's vectors are needed)",
                      im->ordinal, !cp ? "circuit's matrices" : "vectors");
  } else if (cuda_pce_n_a(cp) != k->n_a || cuda_pce_n_b(cp) != k->n_b) {
    st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                      "bp_sums: the densities give queries of %zu and %zu points, the key has "
                      "%zu and %zu",
                      cuda_pce_n_a(cp), cuda_pce_n_b(cp), k->n_a, k->n_b);
  } else {
    st = bp_run(im, be, out, k, values, abc, plan_for(im, k->lg_domain, NTT_ROOTS_BELLPERSON), cp,
                bd, err);
    if (st != CUZK_OK && !im->emulate) { /* leave the stream idle for the next operation */
      cuzk_err ignored = {0};
      cuzk_cuda_stream_sync(im->stream, &ignored);
    }
  }
  im->hold = held;
  if (!held)
    drop_resident(im);
  return st;
}

/* The window table of fixed_gpu.h for g: T[j][d - 1] = d 2^(8j) g, made
 * with the host's formulas (8,160 points, an inversion each: a fraction of
 * a second, once per generator). */
#define FIXED_TABLE(G, AFF, JAC)                                                                 \
  static void fixed_table_##G(AFF *t, const AFF *g) {                                           \
    JAC base, acc;                                                                               \
    bls12_381_##G##_jac_from_aff(&base, g);                                                      \
    for (int j = 0; j < CUDA_FIXED_WINDOWS; j++) {                                               \
      acc = base;                                                                                \
      for (int d = 1; d <= CUDA_FIXED_DIGITS; d++) {                                             \
        bls12_381_##G##_jac_to_aff(&t[j * CUDA_FIXED_DIGITS + d - 1], &acc);                     \
        bls12_381_##G##_jac_add(&acc, &acc, &base);                                              \
      }                                                                                          \
      for (int i = 0; i < 8; i++) bls12_381_##G##_jac_dbl(&base, &base);                         \
    }                                                                                            \
  }
FIXED_TABLE(g1, bls12_381_g1_aff, bls12_381_g1_jac)
FIXED_TABLE(g2, bls12_381_g2_aff, bls12_381_g2_jac)
#undef FIXED_TABLE

static cuzk_status cuda_fixed_base(backend *be, bool g2, const void *g, const limb_t (*k)[4],
                                   size_t n, void *out, cuzk_err *err) {
  cuda_impl *im = be->impl;
  CUZK_TRY(bind(im, err));
  const size_t pb = g2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff);
  /* The object of the last generator of each group is kept for the next
   * vector of the same set-up. */
  if (!im->fixed[g2] || memcmp(im->fixed_gen[g2], g, pb) != 0) {
    cuda_fixed_free(im->fixed[g2]);
    im->fixed[g2] = NULL;
    void *t = malloc(CUDA_FIXED_TABLE * pb);
    if (!t)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "fixed-base table");
    if (g2)
      fixed_table_g2(t, g);
    else
      fixed_table_g1(t, g);
    cuzk_status st = cuda_fixed_new(&im->fixed[g2], g2, t, im->emulate, err);
    free(t);
    if (st != CUZK_OK)
      return st;
    memcpy(im->fixed_gen[g2], g, pb);
  }
  return cuda_fixed_mul(im->fixed[g2], out, k, n, im->stream, err);
}

static void cuda_destroy(backend *b) {
  cuda_impl *im = b->impl;
  if (im) {
    cuzk_err ignored = {0};
    bind(im, &ignored);
    drop_resident(im);
    if (im->own_store)
      backend_store_free(im->store);
    host_free(im, im->vec);
    host_free(im, im->stage);
    dev_free(im, im->wdev);
    dev_free(im, im->xdev);
    dev_free(im, im->bad_dev);
    for (unsigned i = 0; i < 2; i++) cuzk_cuda_stream_free(im->streams[i]);
    for (unsigned i = 0; i < im->nplans; i++) cuda_ntt_plan_free(im->ntt[i]);
    msm_gpu_free(im->g1);
    msm_gpu_free(im->g2);
    cuda_fixed_free(im->fixed[0]);
    cuda_fixed_free(im->fixed[1]);
    backend_free(im->cpu);
    free(im);
  }
  free(b);
}

/* "cuda GPU 0: NTT 2^16: <plan>; NTT 2^20: <plan>" (or "cuda (emulated)"):
 * the plans that reserve made, each as cuda_ntt_plan_describe writes it. */
static void cuda_describe(const backend *be, char *buf, size_t n) {
  const cuda_impl *im = be->impl;
  if (!buf || !n)
    return;
  size_t k = (size_t)snprintf(buf, n, "cuda %s%d", im->emulate ? "(emulated) GPU " : "GPU ",
                              im->ordinal);
  for (unsigned i = 0; i < im->nplans && k < n; i++) {
    char plan[512];
    cuda_ntt_plan_describe(im->ntt[i], plan, sizeof plan);
    k += (size_t)snprintf(buf + k, n - k, "%s NTT %s", i ? ";" : ":", plan);
  }
}

static const backend_ops cuda_ops = {
    .name = "cuda",
    .supports = cuda_supports,
    .reserve = cuda_reserve,
    .hold_bases = cuda_hold_bases,
    .host_vectors = cuda_host_vectors,
    .host_staging = cuda_host_staging,
    .host_staging_swap = cuda_host_staging_swap,
    .zkey_ab = cuda_zkey_ab,
    .quotient = cuda_quotient,
    .msm_g1 = cuda_msm_g1,
    .msm_g2 = cuda_msm_g2,
    .bp_sums = cuda_bp_sums,
    .reserve_bp = cuda_reserve_bp,
    .fixed_base = cuda_fixed_base,
    .set_priority = cuda_set_priority,
    .take_spans = cuda_take_spans,
    .describe = cuda_describe,
    .destroy = cuda_destroy,
};

backend *backend_cuda_new(int ordinal, const backend_device_opts *o, cuzk_err *err) {
  backend *b = calloc(1, sizeof *b);
  cuda_impl *im = calloc(1, sizeof *im);
  backend *cpu = backend_cpu_new(o->threads);
  backend_store *own = o->store ? NULL : backend_store_new();
  if (!b || !im || !cpu || (!o->store && !own)) {
    free(b), free(im), backend_free(cpu), backend_store_free(own);
    cuzk_err_set(err, CUZK_NO_MEMORY, "cuda backend: no host memory");
    return NULL;
  }
  im->cpu = cpu;
  im->ordinal = ordinal;
  im->emulate = o->emulate;
  im->pass1_table = o->ntt_pass1_table;
  im->store = o->store ? o->store : own;
  im->own_store = !o->store;
  b->ops = &cuda_ops;
  b->threads = cpu->threads;
  b->impl = im;
  if (im->emulate)
    return b; /* no streams: every operation runs on the host */
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

/* ------------------------------------------------------------ the provider */

static int dev_count(const backend_devices *d, char *why, size_t n) {
  (void)d;
  return cuzk_cuda_device_count(why, n);
}

static bool dev_usable(const backend_devices *d, int ordinal, char *why, size_t n) {
  (void)d;
  return cuzk_cuda_device_usable(ordinal, why, n);
}

static void dev_name(const backend_devices *d, int ordinal, char *buf, size_t n) {
  (void)d;
  cuzk_cuda_device_name(ordinal, buf, n);
}

static void dev_describe(const backend_devices *d, int ordinal, char *buf, size_t n) {
  (void)d;
  cuzk_cuda_device_describe(ordinal, buf, n);
}

static cuzk_status dev_mem_info(const backend_devices *d, int ordinal, uint64_t *free_bytes,
                                uint64_t *total_bytes, cuzk_err *err) {
  (void)d;
  return cuzk_cuda_mem_info(ordinal, free_bytes, total_bytes, err);
}

/* A usable GPU runs every operation of this build's code. */
static bool dev_supports(const backend_devices *d, int ordinal, cuzk_curve curve, backend_op op) {
  (void)d;
  return curve_op_supported(curve, op) && cuzk_cuda_device_usable(ordinal, NULL, 0);
}

static bool dev_has(const backend_devices *d, int ordinal, backend_cap cap) {
  (void)d, (void)ordinal;
  return cap == BACKEND_CAP_RESIDENT || cap == BACKEND_CAP_HOST_PINNED;
}

static backend *dev_backend_new(const backend_devices *d, int ordinal,
                                const backend_device_opts *o, cuzk_err *err) {
  (void)d;
  return backend_cuda_new(ordinal, o, err);
}

static cuzk_status dev_host_alloc(const backend_devices *d, int ordinal, void **p, size_t bytes,
                                  cuzk_err *err) {
  (void)d;
  *p = NULL;
  CUZK_TRY(cuzk_cuda_use_device(ordinal, err));
  return cuzk_cuda_host_alloc(p, bytes, err);
}

static void dev_host_free(const backend_devices *d, void *p) {
  (void)d;
  cuzk_cuda_host_free(p);
}

static const backend_devices_ops cuda_devices_ops = {
    .kind = "cuda",
    .count = dev_count,
    .usable = dev_usable,
    .name = dev_name,
    .describe = dev_describe,
    .mem_info = dev_mem_info,
    .supports = dev_supports,
    .has = dev_has,
    .backend_new = dev_backend_new,
    .host_alloc = dev_host_alloc,
    .host_free = dev_host_free,
};

const backend_devices backend_cuda_devices = {.ops = &cuda_devices_ops};
