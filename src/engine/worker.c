/* The proving workers: one thread per CPU worker or GPU slot, each owning
 * its backend.
 *
 * DESIGN: a worker loops: take the next partition (sched_take) under the
 * lock, then, without it, acquire the job's key (keys.c: maybe loading
 * it), prove with groth16_prove_zkey_stoppable on its own backend (which
 * verifies the proof before returning it), encode the 192 proof bytes
 * (and the snarkjs JSON when asked), and take the lock again to store the
 * result, free the partition's witness and finish the job when it was the
 * last partition or failed.  Cancellation is cooperative: the stop hook,
 * asked at each prover stage, reads the job's stop flag, so a cancelled
 * partition ends at its next stage boundary (backend work already launched
 * completes first).  A partition whose job finished meanwhile (cancelled,
 * or failed in another partition) has its result dropped.
 *
 * Workers: device AUTO or GPU with a usable GPU: gpu_workers_per_device
 * slots on GPU 0, each with its own CUDA backend (backend_cuda_new drives
 * device 0 only; other ordinals are refused or ignored, engine.h);
 * otherwise cpu_workers CPU backends with `threads` threads each (0: the
 * online cores divided among the workers, at least one each).
 *
 * DEVICE tier (GPU slots with keys_on_device): a slot keeps the bases of
 * the key it last proved resident (backend hold_bases) and counts a hold
 * on the key (so the key stays mapped, as hold_bases requires) and the
 * key's device_bytes against its device's budget; with no room it proves
 * with streamed bases instead.  It drops the hold before proving with
 * another key, and when the key is to be evicted (evict_pending: engine_evict
 * or an LRU eviction that chose it), which an idle slot notices when
 * work_cv wakes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/cuda.h"
#include "ec/encode.h"
#include "engine/engine_impl.h"
#include "groth16/json.h"
#include "groth16/prove.h"

typedef struct {
  eworker *w;
  ejob *j;
  size_t part;
} part_ctx;

static void hook(engine *e, ejob *j, size_t p, engine_job_state s) {
  if (e->cfg.test_hook)
    e->cfg.test_hook(e->cfg.test_hook_ctx, j->id, p, s);
}

static bool stop_cb(void *ctx) {
  part_ctx *c = ctx;
  engine *e = c->w->e;
  pthread_mutex_lock(&e->mu);
  bool s = c->j->stop;
  pthread_mutex_unlock(&e->mu);
  return s;
}

/* The prover's stage names (prove.c) to job states. */
static void on_stage(void *ctx, const char *name) {
  part_ctx *c = ctx;
  engine *e = c->w->e;
  engine_job_state s = !strncmp(name, "verify", 6)     ? ENGINE_JOB_FINALIZING
                       : !strncmp(name, "quotient", 8) ? ENGINE_JOB_PROVING
                       : !strncmp(name, "MSM", 3)      ? ENGINE_JOB_PROVING
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

static edevice *device_of(engine *e, const eworker *w) {
  for (size_t i = 0; i < e->ndevices; i++)
    if (e->devices[i].ordinal == w->ordinal)
      return &e->devices[i];
  return NULL;
}

/* Drops the slot's hold (without the lock). */
static void hold_drop(eworker *w) {
  engine *e = w->e;
  ekey *k = w->held;
  if (!k)
    return;
  cuzk_err ignored = {0};
  if (w->be->ops->hold_bases)
    w->be->ops->hold_bases(w->be, false, &ignored);
  w->held = NULL;
  pthread_mutex_lock(&e->mu);
  edevice *d = device_of(e, w);
  if (d)
    d->used -= k->device_bytes;
  k->holds--;
  pthread_mutex_unlock(&e->mu);
  keys_release(e, k); /* the hold's reference: may unload an evict_pending key */
}

/* Before proving with k (referenced): keep its bases on the device when
 * configured and there is room (without the lock). */
static void hold_take(eworker *w, ekey *k) {
  engine *e = w->e;
  if (!w->gpu || !e->cfg.keys_on_device || !w->be->ops->hold_bases || w->held == k)
    return;
  bool ok = false;
  pthread_mutex_lock(&e->mu);
  edevice *d = device_of(e, w);
  if (d && !k->evict_pending && d->used + k->device_bytes <= d->budget) {
    d->used += k->device_bytes;
    k->holds++;
    k->refs++; /* the hold's own reference, released by hold_drop */
    ok = true;
  }
  pthread_mutex_unlock(&e->mu);
  if (!ok)
    return;
  cuzk_err err = {0};
  w->held = k;
  if (w->be->ops->hold_bases(w->be, true, &err) != CUZK_OK)
    hold_drop(w);
}

static void encode_proof(uint8_t out[ENGINE_PROOF_BYTES], const groth16_proof *p) {
  bls12_381_g1_encode_compressed(out, &p->a);
  bls12_381_g2_encode_compressed(out + BLS12_381_G1_COMPRESSED_BYTES, &p->b);
  bls12_381_g1_encode_compressed(out + BLS12_381_G1_COMPRESSED_BYTES + BLS12_381_G2_COMPRESSED_BYTES,
                                 &p->c);
}

static uint64_t ms(double s) { return (uint64_t)(s * 1000.0 + 0.5); }

/* Proves partition p of j; called and returns without the lock. */
static void run_partition(eworker *w, ejob *j, size_t p) {
  engine *e = w->e;
  ekey *k = j->key;
  epart *pt = &j->parts[p];
  hook(e, j, p, ENGINE_JOB_PREPARING);
  cuzk_err err = {0};
  groth16_proof proof;
  groth16_timings tm = {0};
  double load_s = 0;
  if (w->held && w->held != k)
    hold_drop(w); /* before a load that may need its room */
  cuzk_status st = keys_acquire(e, k, j, true, &load_s, &err);
  if (st == CUZK_OK) {
    hold_take(w, k);
    part_ctx c = {w, j, p};
    groth16_prove_opts opts = {.progress = on_stage, .progress_ctx = &c};
    st = groth16_prove_zkey_stoppable(&proof, &k->zk, &pt->w, w->be, &opts, stop_cb, &c, &tm,
                                      &err);
    keys_release(e, k);
  }
  double t_enc = engine_now();
  uint8_t bytes[ENGINE_PROOF_BYTES];
  char *pj = NULL, *pub = NULL;
  if (st == CUZK_OK) {
    encode_proof(bytes, &proof);
    if (j->want_json) {
      pj = json_proof_string(&proof);
      pub = json_public_string(wtns_value(&pt->w, 1), (size_t)k->n_public);
      if (!pj || !pub)
        st = cuzk_err_set(&err, CUZK_NO_MEMORY, "no memory for the proof's JSON");
    }
  }
  double fin_s = tm.verify_s + (engine_now() - t_enc);

  pthread_mutex_lock(&e->mu);
  pt->tm.key_load_ms = ms(load_s);
  pt->tm.prepare_ms = ms(tm.ab_s);
  pt->tm.gpu_ms = ms(tm.quotient_s + tm.msm_s);
  pt->tm.finalize_ms = ms(fin_s);
  pt->tm.total_ms = pt->tm.queue_wait_ms + ms(load_s + tm.total_s);
  e->stage_s[1] += load_s;
  e->stage_s[2] += tm.ab_s;
  e->stage_s[3] += tm.quotient_s + tm.msm_s;
  e->stage_s[4] += fin_s;
  j->nrunning--;
  jobs_drop_witness(e, j, p);
  if (j->finished) {
    free(pj), free(pub); /* cancelled, or failed in another partition */
  } else if (st == CUZK_OK) {
    memcpy(pt->proof, bytes, sizeof bytes);
    pt->proof_json = pj, pt->public_json = pub;
    pt->state = ENGINE_JOB_DONE;
    k->parts_proved++;
    if (++j->ndone == j->nparts)
      jobs_finish(e, j, ENGINE_JOB_DONE, CUZK_OK, NULL);
  } else {
    free(pj), free(pub);
    pt->state = ENGINE_JOB_FAILED;
    char msg[CUZK_ERR_MSG_MAX + 64];
    snprintf(msg, sizeof msg, "%s: partition %zu: %s", cuzk_status_name(st), p, err.msg);
    jobs_finish(e, j, st == CUZK_CANCELLED ? ENGINE_JOB_CANCELLED : ENGINE_JOB_FAILED, st, msg);
  }
  pthread_mutex_unlock(&e->mu);
}

static void *worker_main(void *arg) {
  eworker *w = arg;
  engine *e = w->e;
  pthread_mutex_lock(&e->mu);
  for (;;) {
    if (w->held && w->held->evict_pending) {
      pthread_mutex_unlock(&e->mu);
      hold_drop(w);
      pthread_mutex_lock(&e->mu);
      continue;
    }
    size_t p = 0;
    ejob *j = e->paused ? NULL : sched_take(e, &p);
    if (!j) {
      if (e->draining)
        break;
      pthread_cond_wait(&e->work_cv, &e->mu);
      continue;
    }
    jobs_ref(j);
    j->nrunning++;
    j->parts[p].state = ENGINE_JOB_PREPARING;
    double wait_s = engine_now() - j->t_submit;
    j->parts[p].tm.queue_wait_ms = ms(wait_s);
    e->stage_s[0] += wait_s;
    w->job = j;
    e->busy++;
    pthread_mutex_unlock(&e->mu);

    run_partition(w, j, p);

    pthread_mutex_lock(&e->mu);
    w->job = NULL;
    e->busy--;
    jobs_unref(e, j);
    jobs_expire(e);
  }
  pthread_mutex_unlock(&e->mu);
  hold_drop(w);
  return NULL;
}

/* ------------------------------------------------------------ start, join */

static cuzk_status add_gpu_workers(engine *e, cuzk_err *err) {
  for (size_t i = 0; i < e->cfg.ngpus; i++)
    if (e->cfg.gpus[i] != 0 && e->cfg.device == ENGINE_DEVICE_GPU)
      return cuzk_err_set(err, CUZK_UNSUPPORTED,
                          "GPU %d: only GPU 0 is usable (the CUDA backend drives device 0)",
                          e->cfg.gpus[i]);
  bool want0 = !e->cfg.ngpus;
  for (size_t i = 0; i < e->cfg.ngpus; i++) want0 |= e->cfg.gpus[i] == 0;
  if (!want0)
    return CUZK_OK; /* AUTO with only other ordinals listed: the CPU */
  if (!(e->devices = calloc(1, sizeof *e->devices)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  edevice *d = &e->devices[0];
  d->ordinal = 0;
  char desc[256];
  cuzk_cuda_describe(desc, sizeof desc);
  size_t n = strcspn(desc, ",");
  snprintf(d->name, sizeof d->name, "%.*s", (int)(n < sizeof d->name ? n : sizeof d->name - 1),
           desc);
  /* No free-memory query is exposed by cuda.h yet: without a configured
   * budget, holds are unbounded here and the backend itself falls back to
   * streamed bases when the device has no room for a copy. */
  d->budget = e->cfg.device_budget_bytes ? e->cfg.device_budget_bytes : UINT64_MAX;
  d->slots = e->cfg.gpu_workers_per_device;
  e->ndevices = 1;
  for (unsigned s = 0; s < d->slots; s++) {
    eworker *w = &e->workers[e->nworkers];
    w->gpu = true;
    w->ordinal = 0;
    w->be = backend_cuda_new(e->cfg.threads, err);
    if (!w->be)
      return err ? err->status : CUZK_UNSUPPORTED;
    e->nworkers++;
  }
  return CUZK_OK;
}

cuzk_status workers_start(engine *e, cuzk_err *err) {
  char why[256] = "";
  bool gpu = e->cfg.device != ENGINE_DEVICE_CPU && cuzk_cuda_available(why, sizeof why);
  if (e->cfg.device == ENGINE_DEVICE_GPU && !gpu)
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "device = gpu, but no GPU is usable: %s", why);
  /* GPU slots, or CPU workers when no listed GPU is usable (AUTO). */
  size_t max = e->cfg.cpu_workers > e->cfg.gpu_workers_per_device ? e->cfg.cpu_workers
                                                                  : e->cfg.gpu_workers_per_device;
  if (!(e->workers = calloc(max, sizeof *e->workers)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the workers");
  cuzk_status st;
  if (gpu && (st = add_gpu_workers(e, err)) != CUZK_OK)
    return st;
  if (!e->nworkers) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned t = e->cfg.threads;
    if (!t)
      t = cores > (long)e->cfg.cpu_workers ? (unsigned)(cores / (long)e->cfg.cpu_workers) : 1;
    for (unsigned i = 0; i < e->cfg.cpu_workers; i++) {
      eworker *w = &e->workers[e->nworkers];
      w->ordinal = -1;
      if (!(w->be = backend_cpu_new(t)))
        return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a CPU backend");
      e->nworkers++;
    }
  }
  for (size_t i = 0; i < e->nworkers; i++) {
    eworker *w = &e->workers[i];
    w->e = e;
    w->index = (unsigned)i;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
      return cuzk_err_set(err, CUZK_INTERNAL, "cannot start worker thread %zu", i);
    w->started = true;
  }
  return CUZK_OK;
}

void workers_join(engine *e) {
  for (size_t i = 0; i < e->nworkers; i++) {
    eworker *w = &e->workers[i];
    if (w->started)
      pthread_join(w->thread, NULL);
    w->started = false;
    backend_free(w->be);
    w->be = NULL;
  }
}
