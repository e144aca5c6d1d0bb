/* The proving workers: one thread per CPU worker or GPU slot, each owning
 * its backend.
 *
 * DESIGN: a worker loops: take the next partition (sched_take) under the
 * lock, then, without it, acquire the job's key (keys.c: maybe loading
 * it), prove with groth16_key_prove (groth16/key.h: the key's kind's
 * prover) on its own backend (which
 * verifies the proof before returning it), encode the 192 proof bytes
 * (and the snarkjs JSON when asked: groth16/proof.h), and take the lock
 * again to store the result, free the partition's witness and finish the
 * job when it was the last partition or failed.  Cancellation is cooperative: the job's
 * stop flag is the prover's stop hook (base/stop.h), which the prover asks
 * at each stage and the backend within its operations, so a cancelled
 * partition ends within one chunk of work (CPU: an MSM window batch, an
 * NTT block; GPU: the kernel launches of a stage already made) and its
 * worker takes the next one.  A partition whose job finished meanwhile
 * (cancelled, or failed in another partition) has its result dropped.
 *
 * Workers: device AUTO or GPU with a usable GPU: gpu_workers_per_device
 * slots on each GPU used (the configured ordinals, or every usable GPU
 * that runs every BLS12-381 operation), each with its own backend from the
 * device registry (backend/device.h: this build's GPUs, or the stand-ins
 * of engine_config.devices); otherwise cpu_workers CPU backends with
 * `threads` threads each (0: the online cores divided among the workers,
 * at least one each).  The engine makes no device call of its own: it
 * asks the registry (count, usable, name, memory, capabilities, a
 * backend, page-locked memory for PINNED keys: keys.c).
 *
 * The GPU executor (docs/DESIGN.md §3).  Invariants:
 *   - A slot's thread owns its device context: it makes its backend
 *     (backend_device_new, which binds the thread to the device: CUDA
 *     makes it current there) over its device's store of resident copies
 *     and plans it on that thread (the CUDA backend: its two streams;
 *     reserve for the largest registered key and
 *     one NTT plan per registered domain size; host_vectors: page-locked
 *     a, b, c; host_staging: page-locked room for a witness, which each
 *     partition copies there before proving).  Slots are planned one
 *     after another, at engine_new, which waits for each (done_cv): a
 *     slot that does not fit (NO_MEMORY) is dropped and the GPU keeps the
 *     slots planned before it, so K is lowered, not overcommitted.  With
 *     keys_on_device the plan is one resident copy per GPU plus K slots'
 *     scratch: a slot after the first must leave free the room of one
 *     copy of the largest registered key (copy_reserve: its device_bytes,
 *     at most a configured device budget) plus DEVICE_MARGIN, else it is
 *     dropped the same way; the auto device budget is what is free after
 *     the slots, less DEVICE_MARGIN, so it holds at least that copy.
 *   - After start-up a slot makes no device-global CUDA call (cuda/gcall.h
 *     counts them; tests/gpu/test_gpu_engine.c checks the count does not
 *     move over a run of jobs) as long as its keys were registered (a key
 *     found in param_dir of a new size makes its plan on first use),
 *     the key tier is not PINNED (its load and unload are
 *     cudaMallocHost/cudaFreeHost), and keys_on_device is off or the
 *     device's copy of the key is made (first proof of the key on that
 *     GPU; the copy is freed when its last holder drops the hold).  Each
 *     slot waits only on its own streams.
 *   - Overlap: the slots of one GPU run concurrently on their own streams,
 *     so one slot's uploads (copy engine) run while another's kernels run.
 *   - Express slot (express_max_lg): one more slot per GPU, planned last
 *     for the registered keys of at most 2^express_max_lg rows alone (a
 *     WinningPoSt's: little memory), and kept only if it fits as a slot
 *     does; it takes HIGH and CRITICAL partitions of such keys and nothing
 *     else (sched_take_express), so an urgent small proof starts while
 *     the K slots are inside a large key's partitions.
 *   - Priority ordering of kernel phases, per GPU: before each partition a
 *     slot picks its backend's high-priority stream for HIGH and CRITICAL
 *     jobs and the normal one otherwise (backend set_priority; CUDA stream
 *     priorities, made at start).  When kernels of several slots wait for
 *     the GPU, the block scheduler starts the high-priority stream's blocks
 *     first, so a PoSt's phases overtake a PoRep's running on the other
 *     slot at kernel (block) granularity, with no host lock between slots
 *     and no extra synchronization.  A per-device token queue would order
 *     whole phases instead, but it serializes the slots' phases and is what
 *     the Rust daemon's GPU mutex did; stream priorities keep the overlap.
 *     Every phase is ordered so: the NTTs, a and b, and the MSMs (the
 *     backend runs its MSM contexts on its chosen stream).
 *
 * DEVICE tier (GPU slots with keys_on_device): a slot keeps the bases of
 * the keys it last proved resident (backend hold_bases), up to
 * ENGINE_SLOT_HOLDS of them while the device's budget has room for them
 * all, so that a CRITICAL job of another circuit does not cost the
 * stream's key its copy, and counts a hold on each key (so the key stays
 * loaded, as hold_bases requires).  The slots
 * of one GPU share one copy (their backends share the device's store), so
 * the key's device_bytes count against the device's budget once: when
 * the first slot of the device takes a hold on it, given back when the
 * last one drops its hold; a slot joining a key its device holds already
 * needs no room.  With no room a slot proves with streamed bases instead.
 * A slot drops all its holds (the backend lets go of everything at once)
 * before proving with a key for which there is no room beside them, or
 * one that must be loaded first (the load may need their host memory),
 * and when a held key is to be evicted (evict_pending: engine_evict or an
 * LRU eviction that chose it), which an idle slot notices when work_cv
 * wakes it and a busy one when its partition ends; the copy itself is
 * freed by the store when the last slot using it lets go, so an eviction
 * never takes a copy from under a slot that is proving with it.  The
 * holds (w->held, nheld) are written under the
 * lock (other slots read it to count their device's holders); the
 * backend call that lets go of the copy comes before the accounting, so
 * the budget never shows room that is still taken.
 *
 * Lost GPUs (docs/DESIGN.md §3: "a GPU fault fails the job, not the
 * daemon").  A partition that ends in CUZK_DEVICE_LOST on a slot (cuda_fail
 * gives it for the sticky CUDA errors: every later call on that GPU fails
 * too), or in any failure on a slot whose GPU is lost already, calls
 * device_lose under the lock: the first call marks the device lost (for
 * good), logs it once at ERROR, wakes the idle slots, and - device AUTO,
 * no GPU left in service - starts the CPU fallback: cpu_workers CPU
 * workers, in entries set aside at start (the worker array never moves).
 * Then the partition is requeued (sched_requeue, keeping its witness) if
 * it was not requeued before and a worker is left to take it; else its
 * job fails with DEVICE_LOST naming the GPU and the CUDA error.  A slot of
 * a lost GPU takes nothing more: at the top of its loop it leaves, drops
 * its hold (the device's budget gets the key's bytes back once its last
 * holder lets go), frees its backend on its own thread - the only CUDA
 * calls made on the dead context after the loss: frees, whose errors the
 * backend ignores, so the host memory they own is not leaked - and ends.
 * A slot that took a partition just before the loss does not start
 * proving it (device_lost_before) but hands it back the same way, which
 * does not use up the partition's one retry (it never ran there).  When no
 * worker is left at all, e->unavailable says why: submissions are refused
 * with it (UNAVAILABLE) and jobs with no partition on a worker fail at
 * once (fail_stranded) instead of waiting for ever.  The lock is held
 * across the fallback's backend_cpu_new (an allocation) and pthread_create
 * (its threads wait for the lock), the only exceptions to engine_impl.h's
 * rule, so that "a worker is left" and the retry are decided in one step. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine/engine_impl.h"
#include "base/par.h"
#include "groth16/bp_prove.h"
#include "groth16/json.h"
#include "groth16/proof.h"
#include "groth16/prove.h"
#include "groth16/types.h"

typedef struct {
  eworker *w;
  ejob *j;
  size_t part;
} part_ctx;

static void hook(engine *e, ejob *j, size_t p, engine_job_state s) {
  if (e->cfg.test_hook)
    e->cfg.test_hook(e->cfg.test_hook_ctx, j->id, p, s);
}

/* The prover's stage names (prove.c) to job states. */
static void on_stage(void *ctx, const char *name) {
  part_ctx *c = ctx;
  engine *e = c->w->e;
  engine_job_state s = !strncmp(name, "verify", 6)     ? ENGINE_JOB_FINALIZING
                       : !strncmp(name, "quotient", 8) ? ENGINE_JOB_PROVING
                       : !strncmp(name, "MSM", 3)      ? ENGINE_JOB_PROVING
                       : !strncmp(name, "a, b, c", 7)  ? ENGINE_JOB_PROVING /* bp_prove's */
                                                       : ENGINE_JOB_PREPARING;
  pthread_mutex_lock(&e->mu);
  epart *pt = &c->j->parts[c->part];
  bool changed = !c->j->finished && pt->state < s;
  if (changed)
    pt->state = s;
  pthread_mutex_unlock(&e->mu);
  if (changed)
    hook(e, c->j, c->part, s);
}

static edevice *device_of(const engine *e, const eworker *w) {
  for (size_t i = 0; i < e->ndevices; i++)
    if (e->devices[i].ordinal == w->ordinal)
      return &e->devices[i];
  return NULL;
}

/* Whether the slot holds k (read by its own thread, or with e->mu held). */
static bool slot_holds(const eworker *w, const ekey *k) {
  for (unsigned i = 0; i < w->nheld; i++)
    if (w->held[i] == k)
      return true;
  return false;
}

/* Whether a slot of w's device other than w holds k (e->mu held). */
static bool device_holds(const engine *e, const eworker *w, const ekey *k) {
  for (size_t i = 0; i < e->nworkers; i++) {
    const eworker *o = &e->workers[i];
    if (o != w && o->gpu && o->ordinal == w->ordinal && slot_holds(o, k))
      return true;
  }
  return false;
}

/* Drops every hold of the slot (without the lock): its backend lets go of
 * the device's copies (hold_bases off: each freed there when no other
 * slot holds it), then the device's budget gets each key's bytes back if
 * no other slot of the device holds it. */
static void hold_drop(eworker *w) {
  engine *e = w->e;
  if (!w->nheld) /* only this thread writes its holds */
    return;
  cuzk_err ignored = {0};
  if (w->be->ops->hold_bases)
    w->be->ops->hold_bases(w->be, false, &ignored);
  ekey *ks[ENGINE_SLOT_HOLDS];
  unsigned n = w->nheld;
  pthread_mutex_lock(&e->mu);
  memcpy(ks, w->held, n * sizeof *ks);
  w->nheld = 0;
  edevice *d = device_of(e, w);
  for (unsigned i = 0; i < n; i++) {
    if (d && !device_holds(e, w, ks[i]))
      d->used -= ks[i]->device_bytes;
    ks[i]->holds--;
  }
  /* slots of other GPUs may have left jobs of these keys to this one */
  pthread_cond_broadcast(&e->work_cv);
  pthread_mutex_unlock(&e->mu);
  for (unsigned i = 0; i < n; i++)
    keys_release(e, ks[i]); /* each hold's reference: may unload an evict_pending key */
}

/* Whether one of the slot's held keys is to be evicted (e->mu held). */
static bool hold_evicting(const eworker *w) {
  for (unsigned i = 0; i < w->nheld; i++)
    if (w->held[i]->evict_pending)
      return true;
  return false;
}

/* Before proving with k (referenced): keep its bases on the device when
 * configured and there is room - none needed when another slot of the
 * device holds k already - beside the keys the slot holds, so that a
 * slot that proves a CRITICAL job of another circuit comes back to its
 * first key's copy (without the lock).  With no room beside them (or the
 * slot's holds full) it lets go of them all and tries again with k alone:
 * the backend can only let go of everything (hold_bases off). */
static void hold_take(eworker *w, ekey *k) {
  engine *e = w->e;
  edevice *d = w->gpu ? device_of(e, w) : NULL; /* the device list is fixed */
  if (!d || !d->resident || !w->be->ops->hold_bases || slot_holds(w, k))
    return;
  bool ok = false, again = false;
  for (int attempt = 0; attempt < 2 && !ok; attempt++) {
    pthread_mutex_lock(&e->mu);
    if (!k->evict_pending) {
      bool joined = device_holds(e, w, k);
      if (w->nheld < ENGINE_SLOT_HOLDS && (joined || d->used + k->device_bytes <= d->budget)) {
        if (!joined)
          d->used += k->device_bytes;
        k->holds++;
        k->refs++; /* the hold's own reference, released by hold_drop */
        w->held[w->nheld++] = k;
        ok = true;
      }
    }
    again = !ok && w->nheld && !k->evict_pending;
    pthread_mutex_unlock(&e->mu);
    if (!again)
      break;
    hold_drop(w); /* room for k alone */
  }
  if (!ok)
    return;
  cuzk_err err = {0};
  if (w->be->ops->hold_bases(w->be, true, &err) != CUZK_OK)
    hold_drop(w);
}

/* Whether a serving slot (not express, not retired or exited, its GPU
 * not lost) of a GPU other than w's holds k (e->mu held). */
static bool other_gpu_holds(const engine *e, const eworker *w, const ekey *k) {
  for (size_t i = 0; i < e->nworkers; i++) {
    const eworker *o = &e->workers[i];
    const edevice *d = o->gpu && o->ordinal != w->ordinal ? device_of(e, o) : NULL;
    if (d && !d->lost && !o->express && !o->retired && !o->exited && slot_holds(o, k))
      return true;
  }
  return false;
}

/* Key placement over several GPUs (sched_take_ranked; e->mu held): for a
 * slot, job j ranks 3 (SCHED_RANK_BEST) when its GPU holds j's key, 2 when the key's
 * copy fits beside the GPU's copies, 1 when no other GPU holds it, and 0
 * when another serving GPU holds it and making a copy here would cost this
 * GPU its own: left to that GPU (a PoRep-size copy takes seconds to make,
 * a partition there about one), so that two keys that do not fit one GPU
 * together stay one per GPU instead of trading places.  A job left so for
 * cfg.placement_wait_ms since its submission ranks 1 (its GPU is behind);
 * rc->wake gets the soonest such time, for the slot's wait.  A GPU lost,
 * or its slots gone, holds nothing here. */
typedef struct {
  eworker *w;
  double now, wake; /* wake: INFINITY, or when a job left now ranks 1 */
} rank_ctx;

static int take_rank(void *ctx, const ejob *j) {
  rank_ctx *rc = ctx;
  const eworker *w = rc->w;
  engine *e = w->e;
  const edevice *d = device_of(e, w);
  const ekey *k = j->key;
  if (slot_holds(w, k) || device_holds(e, w, k))
    return SCHED_RANK_BEST;
  if (d->used + k->device_bytes <= d->budget)
    return 2;
  if (!other_gpu_holds(e, w, k))
    return 1;
  const double due = j->t_submit + (double)e->cfg.placement_wait_ms / 1000.0;
  if (rc->now >= due)
    return 1;
  if (due < rc->wake)
    rc->wake = due;
  return 0;
}

/* ------------------------------------------------------------ lost GPUs */

unsigned workers_serving(const engine *e) {
  unsigned n = 0;
  for (size_t i = 0; i < e->nworkers; i++) {
    const eworker *w = &e->workers[i];
    if (!w->started || w->retired || w->exited)
      continue;
    const edevice *d = w->gpu ? device_of(e, w) : NULL;
    n += !(d && d->lost);
  }
  return n;
}

/* Whether w's GPU was lost before w began to prove (without the lock):
 * then the partition is not run there, so no CUDA call touches the dead
 * context. */
static bool device_lost_before(eworker *w, cuzk_err *err) {
  engine *e = w->e;
  pthread_mutex_lock(&e->mu);
  const edevice *d = device_of(e, w);
  bool lost = d && d->lost;
  if (lost)
    cuzk_err_set(err, CUZK_DEVICE_LOST, "not run: the GPU was lost before (%s)", d->lost_reason);
  pthread_mutex_unlock(&e->mu);
  return lost;
}

static cuzk_status start_thread(eworker *w, cuzk_err *err);

/* CPU threads per CPU worker: `threads`, or the cores shared among them. */
static unsigned cpu_threads(const engine *e) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned t = e->cfg.threads;
  if (!t)
    t = cores > (long)e->cfg.cpu_workers ? (unsigned)(cores / (long)e->cfg.cpu_workers) : 1;
  return t;
}

/* Device AUTO, every GPU lost: cpu_workers CPU workers join (e->mu held:
 * backend_cpu_new only allocates; each new thread waits for the lock).
 * Their entries were set aside at start (workers_cap). */
static void start_cpu_fallback(engine *e) {
  e->fallback = true;
  const unsigned t = cpu_threads(e);
  unsigned started = 0;
  for (unsigned i = 0; i < e->cfg.cpu_workers && e->nworkers < e->workers_cap; i++) {
    eworker *w = &e->workers[e->nworkers];
    w->e = e;
    w->index = (unsigned)e->nworkers;
    w->ordinal = -1;
    if (!(w->be = backend_cpu_new(t)))
      break;
    e->nworkers++; /* workers_join frees its backend, started or not */
    started += start_thread(w, NULL) == CUZK_OK;
  }
  engine_log_queued(e, ENGINE_LOG_WARN,
       "every GPU is out of service; device = auto: proving on %u CPU worker%s from now on",
       started, started == 1 ? "" : "s");
}

/* Takes d out of service (e->mu held; the first call for d does it, later
 * ones only return): its slots take no more work (they leave their loops
 * when work_cv wakes them or their partition ends, drop their holds and
 * free their backends: worker_main), the loss is logged once, the CPU
 * fallback starts when it was the last GPU in service under device AUTO,
 * and when no worker is left at all the reason is kept for submissions
 * and the queued jobs fail. */
static void device_lose(engine *e, edevice *d, const cuzk_err *err) {
  if (d->lost)
    return;
  d->lost = true;
  e->ngpus_lost++;
  snprintf(d->lost_reason, sizeof d->lost_reason, "%s", err->msg);
  unsigned live = 0;
  for (size_t i = 0; i < e->nworkers; i++) {
    const eworker *w = &e->workers[i];
    live += w->gpu && w->ordinal == d->ordinal && w->started && !w->retired && !w->exited;
  }
  d->lost_live = live;
  pthread_cond_broadcast(&e->work_cv); /* its idle slots leave */
  bool gpus_left = false;
  for (size_t i = 0; i < e->ndevices; i++) gpus_left |= !e->devices[i].lost;
  if (!gpus_left && e->cfg.device == ENGINE_DEVICE_AUTO && !e->fallback && !e->draining)
    start_cpu_fallback(e);
  const unsigned serving = workers_serving(e);
  engine_log_queued(e, ENGINE_LOG_ERROR,
       "GPU %d (%s) is out of service: %s: %s; its %u slot%s take no more work and free what "
       "they hold; %u worker%s left; restart the daemon to use this GPU again, after checking "
       "it (nvidia-smi, the kernel log's Xid lines) or resetting it",
       d->ordinal, d->name, cuzk_status_message(CUZK_DEVICE_LOST), d->lost_reason, d->slots,
       d->slots == 1 ? "" : "s", serving, serving == 1 ? "" : "s");
  if (serving)
    return;
  snprintf(e->unavailable, sizeof e->unavailable,
           "no worker can prove: every GPU is out of service (last: GPU %d (%s): %.200s)%s; "
           "restart the daemon once the GPU is checked or reset",
           d->ordinal, d->name, d->lost_reason,
           e->cfg.device == ENGINE_DEVICE_AUTO ? " and the CPU fallback did not start"
                                               : " and device = gpu has no CPU fallback");
  engine_log_queued(e, ENGINE_LOG_ERROR,
                    "%s; queued jobs fail, submissions are refused (unavailable)", e->unavailable);
}

/* No worker is left (e->unavailable set): every unfinished job with no
 * partition on a worker fails now instead of waiting for ever (e->mu
 * held); those with one fail when it ends. */
static void fail_stranded(engine *e) {
  char msg[CUZK_ERR_MSG_MAX + 32];
  snprintf(msg, sizeof msg, "%s: %s", cuzk_status_name(CUZK_UNAVAILABLE), e->unavailable);
  for (ejob *j = e->live.head, *next; j; j = next) {
    next = j->l.next;
    if (!j->nrunning)
      jobs_finish(e, j, ENGINE_JOB_FAILED, CUZK_UNAVAILABLE, msg);
  }
}

static uint64_t ms(double s) { return (uint64_t)(s * 1000.0 + 0.5); }

#define SPANS_MAX ((size_t)1 << 20) /* per slot; later ones are dropped */

/* Moves the backend's spans into the slot's timeline (without the lock;
 * takes it to append). */
static void spans_collect(eworker *w) {
  engine *e = w->e;
  if (!e->cfg.record_timeline || !w->be->ops->take_spans)
    return;
  backend_span bs[256];
  size_t n;
  while ((n = w->be->ops->take_spans(w->be, bs, sizeof bs / sizeof *bs)) > 0) {
    pthread_mutex_lock(&e->mu);
    if (w->nspans + n > w->spans_cap && w->spans_cap < SPANS_MAX) {
      size_t cap = w->spans_cap ? 2 * w->spans_cap : 1024;
      while (cap < w->nspans + n) cap *= 2;
      if (cap > SPANS_MAX)
        cap = SPANS_MAX;
      engine_span *p = realloc(w->spans, cap * sizeof *p);
      if (p)
        w->spans = p, w->spans_cap = cap;
    }
    for (size_t i = 0; i < n && w->nspans < w->spans_cap; i++)
      w->spans[w->nspans++] = (engine_span){.ordinal = w->ordinal,
                                            .slot = w->slot,
                                            .upload = bs[i].kind == BACKEND_SPAN_UPLOAD,
                                            .t0 = bs[i].t0,
                                            .t1 = bs[i].t1};
    pthread_mutex_unlock(&e->mu);
  }
}

static int span_cmp(const void *a, const void *b) {
  double x = ((const engine_span *)a)->t0, y = ((const engine_span *)b)->t0;
  return x < y ? -1 : x > y;
}

cuzk_status engine_timeline(engine *e, engine_span **out, size_t *n, cuzk_err *err) {
  *out = NULL, *n = 0;
  pthread_mutex_lock(&e->mu);
  size_t total = 0;
  for (size_t i = 0; i < e->nworkers; i++) total += e->workers[i].nspans;
  engine_span *all = total ? malloc(total * sizeof *all) : NULL;
  if (total && !all) {
    pthread_mutex_unlock(&e->mu);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu spans", total);
  }
  size_t k = 0;
  for (size_t i = 0; i < e->nworkers; i++) {
    eworker *w = &e->workers[i];
    if (w->nspans)
      memcpy(all + k, w->spans, w->nspans * sizeof *all);
    k += w->nspans;
    w->nspans = 0;
  }
  pthread_mutex_unlock(&e->mu);
  if (total)
    qsort(all, total, sizeof *all, span_cmp);
  *out = all, *n = total;
  return CUZK_OK;
}

/* Partition p's witness values where the worker proves from them: a GPU
 * slot's staging (page-locked, planned at start), else the witness's own
 * copy.  Bytes carried by the request are copied to the staging (or used
 * where they are); a witness file's values come from the read-ahead's
 * buffer when it has them (readahead.c: exchanged for the staging, or
 * copied into a smaller one), else are read from the descriptor kept
 * since submit - into the staging, or into the partition's working copy
 * (epart.wcopy, outside the budgets as the prover's vectors are;
 * jobs_drop_witness frees it) - and checked (witness_read_values: the
 * file's identity must be the one at submit; for a .zkey circuit every
 * value below the prime, bp_prove_values checking a bellperson
 * witness's).  *wv: the header with values set (without the lock). */
static cuzk_status stage_witness(eworker *w, ejob *j, size_t p, wtns_file *wv, cuzk_err *err) {
  engine *e = w->e;
  epart *pt = &j->parts[p];
  *wv = pt->w;
  const size_t wbytes = (size_t)wv->n_witness * wv->n8;
  cuzk_err ignored = {0};
  uint8_t *stage = w->gpu && w->be->ops->host_staging
                       ? w->be->ops->host_staging(w->be, wbytes, &ignored)
                       : NULL;
  if (pt->wfd < 0) {
    if (stage) {
      memcpy(stage, wv->values, wbytes);
      wv->values = stage;
    }
    return CUZK_OK;
  }
  if (stage) {
    pthread_mutex_lock(&e->mu);
    ewbuf *b = readahead_take(e, pt); /* waits for a read in progress */
    pthread_mutex_unlock(&e->mu);
    if (b) {
      size_t old_bytes = 0;
      void *old = w->be->ops->host_staging_swap
                      ? w->be->ops->host_staging_swap(w->be, b->p, b->bytes, &old_bytes)
                      : NULL;
      if (old) {
        stage = b->p;
        b->p = old, b->bytes = old_bytes;
      } else {
        memcpy(stage, b->p, wbytes);
      }
      pthread_mutex_lock(&e->mu);
      readahead_give(e, b);
      pthread_mutex_unlock(&e->mu);
      wv->values = stage;
      return CUZK_OK;
    }
  }
  if (!stage && pt->wcopy) {
    stage = pt->wcopy; /* a retry after a lost GPU: the copy the first attempt made */
  } else if (!stage) {
    uint8_t *copy = malloc(wbytes ? wbytes : 1);
    if (!copy)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for its %zu bytes of values",
                          pt->wname, wbytes);
    pthread_mutex_lock(&e->mu); /* jobs_drop_witness frees it, with the lock */
    pt->wcopy = stage = copy;
    pthread_mutex_unlock(&e->mu);
  }
  unsigned nw = w->gpu ? WITNESS_READ_THREADS : (w->be->threads ? w->be->threads : 1);
  CUZK_TRY(witness_read_values(pt, pt->wfd, j->key->kind != EKEY_BP, stage, nw, err));
  wv->values = stage;
  return CUZK_OK;
}

/* Proves partition p of j; called and returns without the lock. */
static void run_partition(eworker *w, ejob *j, size_t p) {
  engine *e = w->e;
  ekey *k = j->key;
  epart *pt = &j->parts[p];
  hook(e, j, p, ENGINE_JOB_PREPARING);
  cuzk_err err = {0};
  groth16_proof proof;
  groth16_timings tm = {0};
  double load_s = 0, stage_s = 0;
  wtns_file wv = pt->w;
  /* A hold on k is kept only while k's file is unchanged (keys_stale).
   * The slot's holds go before k's reload, and before a load that may
   * need the host memory they keep (a load waiting for room that this
   * slot holds would wait for ever); holds on other keys stay while k is
   * loaded already or its load fits beside them. */
  bool held = slot_holds(w, k) && !keys_stale(e, k);
  pthread_mutex_lock(&e->mu);
  bool fits = (k->tier >= ENGINE_TIER_MAPPED && !k->loading && !k->stale) ||
              e->keys_used + k->file_bytes <= e->keys_budget;
  pthread_mutex_unlock(&e->mu);
  if (w->nheld && !held && (!fits || slot_holds(w, k)))
    hold_drop(w);
  cuzk_status st = keys_acquire(e, k, j, true, held, &load_s, &err);
  bool not_run = false; /* taken just before its GPU was lost: handed back unrun */
  if (st == CUZK_OK && w->gpu && (not_run = device_lost_before(w, &err))) {
    st = CUZK_DEVICE_LOST; /* no CUDA call on it: the partition goes elsewhere */
    keys_release(e, k);
  } else if (st == CUZK_OK) {
    hold_take(w, k);
    if (w->be->ops->set_priority)
      w->be->ops->set_priority(w->be, j->pri >= ENGINE_PRI_HIGH ? BACKEND_PRI_HIGH
                                                                : BACKEND_PRI_NORMAL);
    part_ctx c = {w, j, p};
    keycheck_ctx kc = {e, k};
    groth16_prove_opts opts = {.progress = on_stage,
                               .progress_ctx = &c,
                               .check_key = keys_check_points,
                               .check_key_ctx = &kc};
    /* GPU slots: the witness values in the slot's page-locked staging, so
     * that their uploads run at the bus's speed. */
    joblog_started(e, w, j, p, load_s);
    double t_stage = engine_now();
    st = stage_witness(w, j, p, &wv, &err);
    stage_s = engine_now() - t_stage;
    char wname[64];
    snprintf(wname, sizeof wname, "witness %zu", p);
    if (st == CUZK_OK)
      st = groth16_key_prove(&proof, &k->key, &wv, pt->wname ? pt->wname : wname, w->be, &opts,
                             &j->stop, &tm, &err);
    keys_release(e, k);
  }
  double t_enc = engine_now();
  uint8_t bytes[GROTH16_PROOF_BYTES];
  char *pj = NULL, *pub = NULL;
  if (st == CUZK_OK) {
    groth16_proof_encode(bytes, &proof);
    if (j->want_json && k->kind == EKEY_ZKEY) {
      st = groth16_proof_json(&pj, &pub, &proof, &wv, k->n_public, &err);
    } else if (j->want_json) { /* bellperson: the inputs without ONE, as its PUBLIC.json */
      if (!(pub = json_public_string(wv.values + wv.n8, (size_t)k->n_public)))
        st = cuzk_err_set(&err, CUZK_NO_MEMORY, "no memory for the public inputs' JSON");
    }
  }
  double fin_s = tm.verify_s + (engine_now() - t_enc);

  spans_collect(w);

  pthread_mutex_lock(&e->mu);
  pt->tm.key_load_ms = ms(load_s);
  pt->tm.prepare_ms = ms(stage_s + tm.ab_s);
  pt->tm.gpu_ms = ms(tm.quotient_s + tm.msm_s);
  pt->tm.finalize_ms = ms(fin_s);
  pt->tm.total_ms = pt->tm.queue_wait_ms + ms(load_s + stage_s + tm.total_s);
  e->stage_s[1] += load_s;
  e->stage_s[2] += stage_s + tm.ab_s;
  e->stage_s[3] += tm.quotient_s + tm.msm_s;
  e->stage_s[4] += fin_s;
  j->nrunning--;
  /* A failure on a lost GPU (the sticky error itself, or whatever a slot
   * of that GPU met after it) is the GPU's, not the job's. */
  edevice *d = w->gpu ? device_of(e, w) : NULL;
  bool lost = d && st != CUZK_OK && st != CUZK_CANCELLED && (st == CUZK_DEVICE_LOST || d->lost);
  if (lost)
    device_lose(e, d, &err);
  if (lost && !j->finished && (!pt->retried || not_run) && workers_serving(e)) {
    free(pj), free(pub);
    pt->retried = true; /* a hand-back that never ran costs no retry of its own */
    e->retried++;
    sched_requeue(e, j, p); /* the witness stays for the retry */
    pthread_cond_broadcast(&e->work_cv);
    engine_log_queued(e, ENGINE_LOG_WARN,
                      "job %s partition %zu: GPU %d was lost under it; retried on another worker",
                      j->id, p, d->ordinal);
  } else if (j->finished) {
    jobs_drop_witness(e, j, p);
    free(pj), free(pub); /* cancelled, or failed in another partition */
  } else if (lost) {
    jobs_drop_witness(e, j, p);
    pt->state = ENGINE_JOB_FAILED;
    char msg[CUZK_ERR_MSG_MAX + 256];
    snprintf(msg, sizeof msg, "%s: partition %zu: GPU %d (%s) lost, %s: %s",
             cuzk_status_name(CUZK_DEVICE_LOST), p, d->ordinal, d->name,
             pt->retried ? "and the partition was already retried once after a GPU loss"
                         : "and no other worker is left to retry it",
             err.msg);
    jobs_finish(e, j, ENGINE_JOB_FAILED, CUZK_DEVICE_LOST, msg);
  } else if (st == CUZK_OK) {
    jobs_drop_witness(e, j, p);
    memcpy(pt->proof, bytes, sizeof bytes);
    pt->proof_json = pj, pt->public_json = pub;
    pt->state = ENGINE_JOB_DONE;
    k->parts_proved++;
    if (++j->ndone == j->nparts)
      jobs_finish(e, j, ENGINE_JOB_DONE, CUZK_OK, NULL);
  } else {
    jobs_drop_witness(e, j, p);
    free(pj), free(pub);
    pt->state = ENGINE_JOB_FAILED;
    char msg[CUZK_ERR_MSG_MAX + 64];
    snprintf(msg, sizeof msg, "%s: partition %zu: %s", cuzk_status_name(st), p, err.msg);
    jobs_finish(e, j, st == CUZK_CANCELLED ? ENGINE_JOB_CANCELLED : ENGINE_JOB_FAILED, st, msg);
  }
  if (e->unavailable[0])
    fail_stranded(e);
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
}

/* The largest shapes among the registered keys, as groth16_prove_zkey
 * asks backend reserve and host_vectors for them. */
typedef struct {
  size_t max_g1, max_g2, max_n, max_witness; /* max_witness: bytes */
  unsigned lgs[8];
  unsigned nlgs;
  /* bellperson keys: what bp_sums needs (reserve_bp), the largest of each */
  unsigned bp_lg;
  size_t bp_vars, bp_aux, bp_a, bp_b;
} plan_shape;

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

/* max_lg: only keys of at most 2^max_lg rows (an express slot's), or all
 * (UINT_MAX). */
static void registered_shape(engine *e, plan_shape *p, unsigned max_lg) {
  memset(p, 0, sizeof *p);
  for (ekey *k = e->keys; k; k = k->next) {
    if (k->lg_domain > max_lg)
      continue;
    size_t nv = (size_t)k->n_vars, n = (size_t)k->domain_size;
    if (k->kind == EKEY_BP) { /* no zkey vectors or snarkjs NTT plans */
      p->bp_lg = k->lg_domain > p->bp_lg ? k->lg_domain : p->bp_lg;
      p->bp_vars = max_sz(p->bp_vars, nv);
      p->bp_aux = max_sz(p->bp_aux, (size_t)k->n_aux);
      p->bp_a = max_sz(p->bp_a, (size_t)k->n_a);
      p->bp_b = max_sz(p->bp_b, (size_t)k->n_b);
      p->max_witness = max_sz(p->max_witness, 32 * nv);
      continue;
    }
    size_t nch = nv - (size_t)k->n_public - 1 + n;
    size_t g1 = nv > nch ? nv : nch;
    if (g1 > p->max_g1)
      p->max_g1 = g1;
    if (nv > p->max_g2)
      p->max_g2 = nv;
    if (n > p->max_n)
      p->max_n = n;
    if (32 * nv > p->max_witness) /* n8 = 32: BLS12-381 Fr */
      p->max_witness = 32 * nv;
    bool seen = false;
    for (unsigned i = 0; i < p->nlgs; i++) seen |= p->lgs[i] == k->lg_domain;
    if (!seen && p->nlgs < sizeof p->lgs / sizeof *p->lgs)
      p->lgs[p->nlgs++] = k->lg_domain;
  }
}

/* ------------------------------------------------------------ GPUs */

void workers_gpu_mem_info(engine *e, int ordinal, uint64_t *free_bytes, uint64_t *total_bytes) {
  cuzk_err ignored = {0};
  backend_device_mem_info(e->devs, ordinal, free_bytes, total_bytes, &ignored);
}

#define DEVICE_MARGIN ((uint64_t)ENGINE_DEVICE_MARGIN_MIB << 20) /* engine.h */

/* A GPU slot's start-up, on its own thread: bind the device, make the
 * backend (over the device's store), plan its memory for the registered
 * keys, and check that one resident copy still fits beside it. */
static cuzk_status slot_plan(eworker *w, cuzk_err *err) {
  engine *e = w->e;
  edevice *d = device_of(e, w); /* the device list is fixed before slots start */
  const backend_device_opts bo = {.threads = e->cfg.threads,
                                  .store = d->store,
                                  .slot = w->slot,
                                  .ntt_pass1_table = e->cfg.ntt_pass1_table};
  if (!(w->be = backend_device_new(e->devs, w->ordinal, &bo, err)))
    return err && err->status != CUZK_OK ? err->status : CUZK_INTERNAL;
  plan_shape p;
  /* keys_init is done; keys are read-only until workers run */
  registered_shape(e, &p, w->express ? e->cfg.express_max_lg : UINT_MAX);
  const backend_ops *o = w->be->ops;
  for (unsigned i = 0; i < p.nlgs; i++)
    if (o->reserve)
      CUZK_TRY(o->reserve(w->be, 0, 0, p.lgs[i], err));
  if (o->reserve && (p.max_g1 || p.max_g2))
    CUZK_TRY(o->reserve(w->be, p.max_g1, p.max_g2, 0, err));
  if (o->reserve_bp && p.bp_vars)
    CUZK_TRY(o->reserve_bp(w->be, p.bp_lg, p.bp_vars, p.bp_aux, p.bp_a, p.bp_b, err));
  /* The page-locked vectors and staging live as long as the backend:
   * charged to the keys' share of the host budget before they are made. */
  uint64_t hb = (o->host_vectors ? (uint64_t)3 * p.max_n * sizeof(bls12_381_fr) : 0) +
                (o->host_staging ? (uint64_t)p.max_witness : 0);
  pthread_mutex_lock(&e->mu);
  bool fits = hb <= e->keys_budget - (e->keys_used < e->keys_budget ? e->keys_used : e->keys_budget);
  if (fits) {
    e->keys_used += hb;
    w->host_bytes = hb;
  }
  pthread_mutex_unlock(&e->mu);
  if (!fits)
    return cuzk_err_set(err, CUZK_NO_MEMORY, /* as a slot that does not fit the GPU: fewer slots */
                        "slot %u: its page-locked vectors and staging (%llu bytes) do not fit in "
                        "the host budget's share for keys", w->slot, (unsigned long long)hb);
  if (o->host_vectors && p.max_n && !o->host_vectors(w->be, 3 * p.max_n, err))
    return err ? err->status : CUZK_NO_MEMORY;
  if (o->host_staging && p.max_witness && !o->host_staging(w->be, p.max_witness, err))
    return err ? err->status : CUZK_NO_MEMORY;
  if (w->slot > 0 && d->copy_reserve) {
    uint64_t vfree, vtotal;
    workers_gpu_mem_info(e, w->ordinal, &vfree, &vtotal);
    if (vfree < d->copy_reserve + DEVICE_MARGIN)
      return cuzk_err_set(err, CUZK_NO_MEMORY,
                          "slot %u would leave %.2f GiB free, less than one resident copy "
                          "(%.2f GiB) and 0.5 GiB", w->slot, (double)vfree / 1073741824.0,
                          (double)d->copy_reserve / 1073741824.0);
  }
  return CUZK_OK;
}

/* Frees the slot's backend (on its own thread, or after it was joined)
 * and gives its host buffers' charge back. */
static void slot_backend_free(eworker *w) {
  backend_free(w->be);
  w->be = NULL;
  pthread_mutex_lock(&w->e->mu);
  w->e->keys_used -= w->host_bytes;
  w->host_bytes = 0;
  pthread_mutex_unlock(&w->e->mu);
}

/* The GPU of the slot whose thread this is, or -1 (workers_thread_gpu). */
static _Thread_local int thread_gpu = -1;

int workers_thread_gpu(void) { return thread_gpu; }

static void *worker_main(void *arg) {
  eworker *w = arg;
  engine *e = w->e;
  if (w->gpu) {
    thread_gpu = w->ordinal;
    cuzk_err err = {0};
    cuzk_status st = slot_plan(w, &err);
    uint64_t vfree = 0, vtotal = 0;
    if (st == CUZK_OK)
      workers_gpu_mem_info(e, w->ordinal, &vfree, &vtotal);
    pthread_mutex_lock(&e->mu);
    w->planned = true;
    w->plan_status = st;
    snprintf(w->plan_msg, sizeof w->plan_msg, "%s", st == CUZK_OK ? "" : err.msg);
    edevice *d = device_of(e, w);
    if (st == CUZK_OK && d) {
      d->vram_total = vtotal;
      d->vram_free_planned = vfree;
    }
    w->retired = st != CUZK_OK;
    pthread_cond_broadcast(&e->done_cv);
    pthread_mutex_unlock(&e->mu);
    if (st != CUZK_OK) {
      slot_backend_free(w); /* what it made so far, on its own thread */
      return NULL;
    }
  }
  pthread_mutex_lock(&e->mu);
  edevice *dev = w->gpu ? device_of(e, w) : NULL;
  for (;;) {
    if (dev && dev->lost)
      break; /* out of service: take nothing more */
    if (hold_evicting(w)) {
      pthread_mutex_unlock(&e->mu);
      hold_drop(w);
      pthread_mutex_lock(&e->mu);
      continue;
    }
    size_t p = 0;
    /* with resident copies on several GPUs, a slot ranks the jobs by
     * where their keys are (take_rank) */
    const bool ranked = dev && dev->resident && e->ndevices > 1;
    rank_ctx rc = {w, engine_now(), INFINITY};
    ejob *j = e->paused     ? NULL
              : w->express ? sched_take_express(e, &p, e->cfg.express_max_lg)
              : ranked     ? sched_take_ranked(e, &p, take_rank, &rc)
                           : sched_take(e, &p);
    if (!j) {
      if (e->draining)
        break;
      if (rc.wake < INFINITY) { /* a job left to another GPU: look again when it is due */
        struct timespec dl;
        engine_deadline(&dl, rc.wake - rc.now + 0.001);
        pthread_cond_timedwait(&e->work_cv, &e->mu, &dl);
      } else {
        pthread_cond_wait(&e->work_cv, &e->mu);
      }
      continue;
    }
    jobs_ref(j);
    j->nrunning++;
    j->parts[p].state = ENGINE_JOB_PREPARING;
    double wait_s = engine_now() - j->t_submit;
    j->parts[p].tm.queue_wait_ms = ms(wait_s);
    e->stage_s[0] += wait_s;
    w->job = j;
    w->busy_since = engine_now();
    e->busy++;
    pthread_mutex_unlock(&e->mu);

    run_partition(w, j, p);

    pthread_mutex_lock(&e->mu);
    w->job = NULL;
    w->busy_s += engine_now() - w->busy_since;
    e->busy--;
    jobs_unref(e, j);
    jobs_expire(e);
  }
  w->exited = true;
  const bool lost = dev && dev->lost;
  pthread_mutex_unlock(&e->mu);
  /* The slot's device memory is freed on the thread that owns it.  On a
   * lost GPU these are the only CUDA calls left: the frees (of the
   * resident copies its hold shares, then the backend's own memory,
   * streams and page-locked buffers) fail on the dead context, and the
   * backend ignores that; the host side is freed either way. */
  hold_drop(w);
  if (w->gpu)
    slot_backend_free(w);
  if (lost) {
    pthread_mutex_lock(&e->mu);
    w->lost = true;
    bool last = dev->lost_live && --dev->lost_live == 0;
    pthread_mutex_unlock(&e->mu);
    if (last)
      engine_log(e, ENGINE_LOG_INFO,
                 "GPU %d: its slots have stopped and freed their memory (the CUDA errors of "
                 "those frees on the lost context are ignored)", dev->ordinal);
  }
  return NULL;
}

/* ------------------------------------------------------------ start, join */

/* The GPUs to use: the configured ordinals (each must be usable, and run
 * every BLS12-381 operation, when device = GPU; AUTO skips the others),
 * or every such GPU. */
static cuzk_status gpu_ordinals(engine *e, int **out, size_t *n, cuzk_err *err) {
  *out = NULL, *n = 0;
  char why[256] = "";
  int count = backend_device_count(e->devs, why, sizeof why);
  size_t want = e->cfg.ngpus ? e->cfg.ngpus : (size_t)(count > 0 ? count : 0);
  int *ord = calloc(want ? want : 1, sizeof *ord);
  if (!ord)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  for (size_t i = 0; i < want; i++) {
    int g = e->cfg.ngpus ? e->cfg.gpus[i] : (int)i;
    bool dup = false;
    for (size_t k = 0; k < *n; k++) dup |= ord[k] == g;
    if (dup) {
      free(ord);
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "GPU %d is listed twice", g);
    }
    bool usable = backend_device_usable(e->devs, g, why, sizeof why);
    if (usable && !backend_device_supports_all(e->devs, g, CUZK_CURVE_BLS12_381)) {
      snprintf(why, sizeof why, "it cannot run every BLS12-381 proving operation");
      usable = false;
    }
    if (!usable) {
      if (e->cfg.device == ENGINE_DEVICE_GPU) {
        free(ord);
        return cuzk_err_set(err, CUZK_UNSUPPORTED, "GPU %d is not usable: %s", g, why);
      }
      continue;
    }
    ord[(*n)++] = g;
  }
  *out = ord;
  return CUZK_OK;
}

static cuzk_status start_thread(eworker *w, cuzk_err *err) {
  if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
    return cuzk_err_set(err, CUZK_INTERNAL, "cannot start worker thread %u", w->index);
  w->started = true;
  return CUZK_OK;
}

/* The room the plan keeps for one resident copy per device: the largest
 * registered key's, at most a configured device budget (0 when keys stay
 * off the device). */
static uint64_t copy_reserve(const engine *e) {
  if (!e->cfg.keys_on_device)
    return 0;
  uint64_t r = 0;
  for (const ekey *k = e->keys; k; k = k->next)
    if (k->device_bytes > r)
      r = k->device_bytes;
  if (e->cfg.device_budget_bytes && e->cfg.device_budget_bytes < r)
    r = e->cfg.device_budget_bytes;
  return r;
}

/* GPU slots: one device entry (with its store of resident copies) per
 * ordinal, made before any slot starts; K slots each, planned one at a
 * time (each slot's thread plans, this thread waits for it). */
static cuzk_status add_gpu_workers(engine *e, const int *ord, size_t nord, cuzk_err *err) {
  if (!(e->devices = calloc(nord, sizeof *e->devices)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  if (e->cfg.keys_on_device)
    keys_count_tables(e); /* before copy_reserve reads device_bytes */
  const uint64_t reserve = copy_reserve(e);
  for (size_t i = 0; i < nord; i++) {
    edevice *d = &e->devices[e->ndevices++];
    d->ordinal = ord[i];
    d->resident =
        e->cfg.keys_on_device && backend_device_has(e->devs, ord[i], BACKEND_CAP_RESIDENT);
    d->copy_reserve = d->resident ? reserve : 0;
    backend_device_name(e->devs, ord[i], d->name, sizeof d->name);
    if (!(d->store = backend_store_new()))
      return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  }
  const unsigned K = e->cfg.gpu_workers_per_device;
  for (size_t i = 0; i < nord; i++) {
    edevice *d = &e->devices[i];
    for (unsigned s = 0; s < K; s++) {
      eworker *w = &e->workers[e->nworkers++];
      w->e = e;
      w->index = (unsigned)(e->nworkers - 1);
      w->gpu = true;
      w->ordinal = ord[i];
      w->slot = s;
      CUZK_TRY(start_thread(w, err));
      pthread_mutex_lock(&e->mu);
      while (!w->planned) pthread_cond_wait(&e->done_cv, &e->mu);
      cuzk_status st = w->plan_status;
      pthread_mutex_unlock(&e->mu);
      if (st == CUZK_OK) {
        d->slots++;
        continue;
      }
      if (st == CUZK_NO_MEMORY && s > 0) { /* K does not fit: keep the slots that do */
        snprintf(d->note, sizeof d->note, "%u of %u slots fit: %.100s", s, K, w->plan_msg);
        break;
      }
      return cuzk_err_set(err, st, "GPU %d slot %u: %s", ord[i], s, w->plan_msg);
    }
    /* The express slot, when a registered key is small enough for it: planned
     * last, for those keys alone, and kept only if it fits as a slot does. */
    bool small = false;
    for (const ekey *k = e->keys; k; k = k->next) small |= k->lg_domain <= e->cfg.express_max_lg;
    if (e->cfg.express_max_lg && small && d->slots) {
      eworker *w = &e->workers[e->nworkers++];
      w->e = e;
      w->index = (unsigned)(e->nworkers - 1);
      w->gpu = true;
      w->express = true;
      w->ordinal = ord[i];
      w->slot = d->slots;
      CUZK_TRY(start_thread(w, err));
      pthread_mutex_lock(&e->mu);
      while (!w->planned) pthread_cond_wait(&e->done_cv, &e->mu);
      cuzk_status st = w->plan_status;
      pthread_mutex_unlock(&e->mu);
      if (st == CUZK_OK)
        d->express = true;
      else if (st == CUZK_NO_MEMORY)
        snprintf(d->note, sizeof d->note, "no express slot: %.120s", w->plan_msg);
      else
        return cuzk_err_set(err, st, "GPU %d express slot: %s", ord[i], w->plan_msg);
    }
    d->budget = e->cfg.device_budget_bytes ? e->cfg.device_budget_bytes
                : d->vram_free_planned > DEVICE_MARGIN ? d->vram_free_planned - DEVICE_MARGIN
                                                       : 0;
  }
  return CUZK_OK;
}

cuzk_status workers_start(engine *e, cuzk_err *err) {
  char why[256] = "";
  int *ord = NULL;
  size_t nord = 0;
  cuzk_status st;
  e->devs = e->cfg.devices ? e->cfg.devices : backend_devices_system();
  if (e->cfg.device != ENGINE_DEVICE_CPU) {
    if (backend_device_count(e->devs, why, sizeof why) <= 0) {
      if (e->cfg.device == ENGINE_DEVICE_GPU)
        return cuzk_err_set(err, CUZK_UNSUPPORTED, "device = gpu, but no GPU is usable: %s", why);
    } else if ((st = gpu_ordinals(e, &ord, &nord, err)) != CUZK_OK) {
      return st;
    }
    if (e->cfg.device == ENGINE_DEVICE_GPU && !nord) {
      free(ord);
      return cuzk_err_set(err, CUZK_UNSUPPORTED, "device = gpu, but no listed GPU is usable");
    }
  }
  /* GPU slots, or CPU workers when no listed GPU is usable (AUTO); with
   * GPUs under AUTO, room for the CPU workers that take over if every GPU
   * is lost (start_cpu_fallback).  The array never moves: workers are
   * referred to by address. */
  size_t ngpu = nord * (e->cfg.gpu_workers_per_device + (e->cfg.express_max_lg ? 1 : 0));
  size_t max = ngpu ? ngpu : e->cfg.cpu_workers;
  if (ngpu && e->cfg.device == ENGINE_DEVICE_AUTO)
    max += e->cfg.cpu_workers;
  if (!(e->workers = calloc(max ? max : 1, sizeof *e->workers))) {
    free(ord);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the workers");
  }
  e->workers_cap = max;
  /* PINNED keys go to the devices' page-locked memory when every GPU used
   * has it (keys.c); asked once, here, not per load. */
  e->host_pinned = nord > 0;
  for (size_t i = 0; i < nord; i++)
    e->host_pinned &= backend_device_has(e->devs, ord[i], BACKEND_CAP_HOST_PINNED);
  st = nord ? add_gpu_workers(e, ord, nord, err) : CUZK_OK;
  free(ord);
  if (st != CUZK_OK)
    return st;
  if (nord) {
    plan_shape p;
    registered_shape(e, &p, UINT_MAX);
    readahead_start(e, p.max_witness); /* after the slots' own buffers */
  }
  if (!e->nworkers) {
    const unsigned t = cpu_threads(e);
    for (unsigned i = 0; i < e->cfg.cpu_workers; i++) {
      eworker *w = &e->workers[e->nworkers];
      w->e = e;
      w->index = (unsigned)e->nworkers;
      w->ordinal = -1;
      if (!(w->be = backend_cpu_new(t)))
        return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a CPU backend");
      e->nworkers++;
    }
    for (size_t i = 0; i < e->nworkers; i++)
      CUZK_TRY(start_thread(&e->workers[i], err));
  }
  return CUZK_OK;
}

void workers_join(engine *e) {
  for (size_t i = 0; i < e->nworkers; i++) {
    eworker *w = &e->workers[i];
    if (w->started)
      pthread_join(w->thread, NULL);
    w->started = false;
    slot_backend_free(w);
    free(w->spans);
    w->spans = NULL, w->nspans = w->spans_cap = 0;
  }
  readahead_join(e); /* it read ahead for the draining workers until now */
}

void workers_free_devices(engine *e) {
  for (size_t i = 0; i < e->ndevices; i++) backend_store_free(e->devices[i].store);
  free(e->devices);
  e->devices = NULL, e->ndevices = 0;
}
