/* Status snapshots and the Prometheus text.
 *
 * DESIGN: both are taken under the engine's lock in one pass, so their
 * numbers agree with each other; the text is formatted after the lock is
 * dropped, from the copy.  Queue counts walk the live jobs (at most the
 * unfinished ones, which the queue budget bounds).  Metric names follow the
 * Rust daemon's where it had one (cuzk_proofs_completed_total,
 * cuzk_proofs_failed_total, cuzk_uptime_seconds, cuzk_queue_depth,
 * cuzk_running_jobs, cuzk_gpu_workers, cuzk_proof_duration_seconds), with
 * a circuit label where it had a proof kind.  A lost GPU stays in both,
 * FAILED with its reason (cuzk_gpu_up 0); its memory is not asked for (no
 * CUDA call on a dead context). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

static engine_tier key_tier(const ekey *k) {
  return k->holds ? ENGINE_TIER_DEVICE : k->tier;
}

/* Per circuit: jobs per state.  The snapshot's queue for k (added when new). */
static engine_queue_status *queue_for(engine_status *s, const char *id) {
  for (size_t i = 0; i < s->nqueues; i++)
    if (!strcmp(s->queues[i].circuit_id, id))
      return &s->queues[i];
  engine_queue_status *q = &s->queues[s->nqueues++];
  memset(q, 0, sizeof *q);
  snprintf(q->circuit_id, sizeof q->circuit_id, "%s", id);
  return q;
}

cuzk_status engine_status_get(engine *e, engine_status *s, cuzk_err *err) {
  memset(s, 0, sizeof *s);
  /* Free device memory and the resident copies' bytes now, before the
   * lock (no device call, no store's lock under it); the device list is
   * fixed once engine_new returns.  A lost GPU is not asked (no CUDA call
   * on its dead context; one lost between the two looks is asked once,
   * and its error only leaves the figures 0). */
  uint64_t vfree[16] = {0}, vtotal[16] = {0}, resident[16] = {0};
  bool lost[16] = {false};
  pthread_mutex_lock(&e->mu);
  for (size_t i = 0; i < e->ndevices && i < 16; i++) lost[i] = e->devices[i].lost;
  pthread_mutex_unlock(&e->mu);
  for (size_t i = 0; i < e->ndevices && i < 16; i++) {
    if (!lost[i])
      workers_gpu_mem_info(e, e->devices[i].ordinal, &vfree[i], &vtotal[i]);
    resident[i] = backend_store_bytes(e->devices[i].store);
  }
  pthread_mutex_lock(&e->mu);
  jobs_expire(e);
  size_t nkeys = 0;
  for (ekey *k = e->keys; k; k = k->next) nkeys++;
  s->keys = calloc(nkeys ? nkeys : 1, sizeof *s->keys);
  s->queues = calloc(nkeys ? nkeys : 1, sizeof *s->queues); /* at most one per key */
  s->gpus = calloc(e->ndevices ? e->ndevices : 1, sizeof *s->gpus);
  if (!s->keys || !s->queues || !s->gpus) {
    pthread_mutex_unlock(&e->mu);
    engine_status_free(s);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the status");
  }
  double now = engine_now();
  for (ekey *k = e->keys; k; k = k->next) {
    engine_key_status *o = &s->keys[s->nkeys++];
    snprintf(o->id, sizeof o->id, "%s", k->id);
    o->tier = key_tier(k);
    o->size_bytes = k->file_bytes;
    o->refcount = k->refs - k->holds; /* partitions proving with it */
    o->idle_ms = k->refs ? 0 : (uint64_t)((now - k->last_used) * 1000.0);
  }
  for (ejob *j = e->live.head; j; j = j->l.next) {
    engine_queue_status *q = queue_for(s, j->key->id);
    switch (jobs_state(j)) {
    case ENGINE_JOB_QUEUED: q->queued++; break;
    case ENGINE_JOB_PREPARING: q->preparing++; break;
    case ENGINE_JOB_PROVING: q->proving++; break;
    default: q->finalizing++; break;
    }
  }
  for (size_t i = 0; i < e->ndevices; i++) {
    const edevice *d = &e->devices[i];
    engine_gpu_status *g = &s->gpus[s->ngpus++];
    g->ordinal = d->ordinal;
    snprintf(g->name, sizeof g->name, "%s", d->name);
    g->state = d->lost ? ENGINE_GPU_FAILED : ENGINE_GPU_UP;
    snprintf(g->reason, sizeof g->reason, "%s", d->lost ? d->lost_reason : "");
    g->budget = d->budget;
    g->used = d->used;
    g->resident = i < 16 ? resident[i] : 0;
    g->slots = d->slots;
    g->express = d->express;
    g->vram_total = i < 16 && vtotal[i] ? vtotal[i] : d->vram_total;
    g->vram_free = i < 16 ? vfree[i] : 0;
    snprintf(g->note, sizeof g->note, "%s", d->note);
    for (size_t w = 0; w < e->nworkers; w++) {
      const eworker *wk = &e->workers[w];
      if (!wk->gpu || wk->ordinal != d->ordinal || !wk->job)
        continue;
      g->busy_slots++;
      if (!g->current_job[0])
        snprintf(g->current_job, sizeof g->current_job, "%s", wk->job->id);
    }
  }
  s->completed = e->completed;
  s->failed = e->failed;
  s->cancelled = e->cancelled;
  s->uptime_s = (uint64_t)(now - e->t_start);
  s->host_budget = e->cfg.host_budget_bytes;
  s->host_used = e->keys_used + e->queue_used;
  s->queue_budget = e->cfg.queue_budget_bytes;
  s->queue_used = e->queue_used;
  s->queue_witness = e->witness_used;
  for (size_t w = 0; w < e->nworkers; w++) s->cpu_workers += !e->workers[w].gpu;
  s->busy_workers = e->busy;
  s->witness_dir = e->witness_dir;
  s->serving_workers = workers_serving(e);
  s->retried = e->retried;
  s->readahead_buffers = e->nra;
  s->readahead_used = e->ra_used;
  for (unsigned i = 0; i < e->nra; i++)
    s->readahead_filled += e->ra[i].state == EWBUF_READY || e->ra[i].state == EWBUF_READING;
  pthread_mutex_unlock(&e->mu);
  return CUZK_OK;
}

void engine_status_free(engine_status *s) {
  if (!s)
    return;
  free(s->gpus);
  free(s->keys);
  free(s->queues);
  memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ metrics */

typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} sbuf;

__attribute__((format(printf, 2, 3))) static void put(sbuf *b, const char *fmt, ...) {
  if (b->oom)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = true;
      return;
    }
    if ((size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap * 2 + (size_t)n;
    char *q = realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q, b->cap = cap;
  }
}

static void help(sbuf *b, const char *name, const char *type, const char *text) {
  put(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* A label value with \ " and newline escaped (ids are printable, but say so). */
static const char *esc(char out[2 * ENGINE_ID_MAX], const char *s) {
  size_t o = 0;
  for (; *s && o + 2 < 2 * ENGINE_ID_MAX; s++) {
    if (*s == '\\' || *s == '"')
      out[o++] = '\\', out[o++] = *s;
    else if (*s == '\n')
      out[o++] = '\\', out[o++] = 'n';
    else
      out[o++] = *s;
  }
  out[o] = 0;
  return out;
}

/* One key's numbers, copied under the lock. */
enum { KR_BYTES, KR_LOADS, KR_EVICTIONS, KR_DONE, KR_FAILED, KR_CANCELLED, KR_PARTS, KR_QUEUED,
       KR_RUNNING, KR_N };
typedef struct {
  char id[ENGINE_ID_MAX];
  engine_tier tier;
  uint64_t u[KR_N];
  double load_s, proof_s;
} key_row;

/* One worker's busy time, copied under the lock. */
typedef struct {
  unsigned index;
  int ordinal; /* its GPU, or -1 for a CPU worker */
  double busy_s;
} worker_row;

/* A metric with one series per key: u[field]. */
static void per_key(sbuf *b, const key_row *rows, size_t nk, int field, const char *name,
                    const char *type, const char *text) {
  char l[2 * ENGINE_ID_MAX];
  help(b, name, type, text);
  for (size_t i = 0; i < nk; i++)
    put(b, "%s{circuit=\"%s\"} %llu\n", name, esc(l, rows[i].id),
        (unsigned long long)rows[i].u[field]);
}

/* One GPU's residency: the store's bytes (read before the lock) and the
 * budget's use (copied under it). */
typedef struct {
  int ordinal;
  uint64_t resident, used, budget, up;
} device_row;

char *engine_metrics_text(engine *e) {
  size_t nd = e->ndevices; /* fixed once engine_new returns */
  device_row *drows = calloc(nd ? nd : 1, sizeof *drows);
  for (size_t d = 0; drows && d < nd; d++)
    drows[d].resident = backend_store_bytes(e->devices[d].store);
  /* Copy under the lock, format after. */
  pthread_mutex_lock(&e->mu);
  jobs_expire(e);
  size_t nk = 0;
  for (ekey *k = e->keys; k; k = k->next) nk++;
  key_row *rows = calloc(nk ? nk : 1, sizeof *rows);
  if (!rows) {
    pthread_mutex_unlock(&e->mu);
    free(drows);
    return NULL;
  }
  size_t i = 0;
  for (ekey *k = e->keys; k; k = k->next, i++) {
    key_row *r = &rows[i];
    snprintf(r->id, sizeof r->id, "%s", k->id);
    r->tier = key_tier(k);
    r->u[KR_BYTES] = k->file_bytes;
    r->u[KR_LOADS] = k->loads, r->u[KR_EVICTIONS] = k->evictions;
    r->u[KR_DONE] = k->done, r->u[KR_FAILED] = k->failed, r->u[KR_CANCELLED] = k->cancelled;
    r->u[KR_PARTS] = k->parts_proved;
    r->load_s = k->load_s, r->proof_s = k->proof_s;
  }
  uint32_t queued = 0, running = 0;
  for (ejob *j = e->live.head; j; j = j->l.next) {
    bool started = j->next_part > 0;
    started ? running++ : queued++;
    for (i = 0; i < nk; i++)
      if (rows[i].id[0] && !strcmp(rows[i].id, j->key->id)) {
        rows[i].u[started ? KR_RUNNING : KR_QUEUED]++;
        break;
      }
  }
  const uint64_t completed = e->completed, failed = e->failed, cancelled = e->cancelled,
                 attached = e->attached, refused = e->refused_exhausted, expired = e->expired;
  uint64_t errors[CUZK_STATUS_COUNT];
  memcpy(errors, e->errors, sizeof errors);
  double stage[5];
  memcpy(stage, e->stage_s, sizeof stage);
  const double uptime = engine_now() - e->t_start;
  const uint64_t host_budget = e->cfg.host_budget_bytes, keys_used = e->keys_used,
                 queue_budget = e->cfg.queue_budget_bytes, queue_used = e->queue_used,
                 witness_used = e->witness_used;
  size_t nworkers = e->nworkers, ngpu_workers = 0;
  for (size_t w = 0; w < e->nworkers; w++) ngpu_workers += e->workers[w].gpu;
  /* Busy seconds per worker, the partition in hand counted to now; slots
   * dropped at planning (retired) never prove and are left out. */
  worker_row *wrows = calloc(e->nworkers ? e->nworkers : 1, sizeof *wrows);
  size_t nw = 0;
  for (size_t w = 0; wrows && w < e->nworkers; w++) {
    const eworker *wk = &e->workers[w];
    if (wk->retired)
      continue;
    wrows[nw++] = (worker_row){wk->index, wk->gpu ? wk->ordinal : -1,
                               wk->busy_s + (wk->job ? engine_now() - wk->busy_since : 0)};
  }
  const unsigned busy = e->busy, serving = workers_serving(e);
  const uint64_t retried = e->retried, ra_used = e->ra_used;
  const size_t njobs = e->njobs;
  uint64_t dev_used = 0, dev_budget = 0;
  for (size_t d = 0; d < e->ndevices; d++) {
    dev_used += e->devices[d].used;
    if (drows) {
      drows[d].ordinal = e->devices[d].ordinal;
      drows[d].used = e->devices[d].used, drows[d].budget = e->devices[d].budget;
      drows[d].up = !e->devices[d].lost;
    }
  }
  if (e->ndevices)
    dev_budget = e->devices[0].budget;
  pthread_mutex_unlock(&e->mu);

  sbuf b = {malloc(4096), 0, 4096, false};
  if (!b.p || !wrows || !drows) {
    free(b.p);
    free(rows);
    free(wrows);
    free(drows);
    return NULL;
  }
  char l[2 * ENGINE_ID_MAX];
  help(&b, "cuzk_proofs_completed_total", "counter", "Jobs finished with a verified proof.");
  put(&b, "cuzk_proofs_completed_total %llu\n", (unsigned long long)completed);
  help(&b, "cuzk_proofs_failed_total", "counter", "Jobs that failed.");
  put(&b, "cuzk_proofs_failed_total %llu\n", (unsigned long long)failed);
  help(&b, "cuzk_proofs_cancelled_total", "counter", "Jobs cancelled.");
  put(&b, "cuzk_proofs_cancelled_total %llu\n", (unsigned long long)cancelled);
  help(&b, "cuzk_jobs_total", "counter", "Finished jobs by circuit and outcome.");
  static const char *const outcome[3] = {"done", "failed", "cancelled"};
  for (i = 0; i < nk; i++)
    for (int o = 0; o < 3; o++)
      put(&b, "cuzk_jobs_total{circuit=\"%s\",outcome=\"%s\"} %llu\n", esc(l, rows[i].id),
          outcome[o], (unsigned long long)rows[i].u[KR_DONE + o]);
  per_key(&b, rows, nk, KR_PARTS, "cuzk_partitions_proved_total", "counter",
          "Partitions proved and verified, by circuit.");
  help(&b, "cuzk_errors_total", "counter", "Refused requests and failed jobs, by status code.");
  for (int c = 1; c < CUZK_STATUS_COUNT; c++)
    if (errors[c])
      put(&b, "cuzk_errors_total{code=\"%s\"} %llu\n", cuzk_status_name((cuzk_status)c),
          (unsigned long long)errors[c]);
  help(&b, "cuzk_circuit_jobs", "gauge", "Unfinished jobs by circuit and state.");
  for (i = 0; i < nk; i++) {
    esc(l, rows[i].id);
    put(&b, "cuzk_circuit_jobs{circuit=\"%s\",state=\"queued\"} %llu\n", l,
        (unsigned long long)rows[i].u[KR_QUEUED]);
    put(&b, "cuzk_circuit_jobs{circuit=\"%s\",state=\"running\"} %llu\n", l,
        (unsigned long long)rows[i].u[KR_RUNNING]);
  }
  help(&b, "cuzk_proof_duration_seconds", "summary", "Wall time of done jobs, by circuit.");
  for (i = 0; i < nk; i++) {
    esc(l, rows[i].id);
    put(&b, "cuzk_proof_duration_seconds_sum{circuit=\"%s\"} %.6f\n", l, rows[i].proof_s);
    put(&b, "cuzk_proof_duration_seconds_count{circuit=\"%s\"} %llu\n", l,
        (unsigned long long)rows[i].u[KR_DONE]);
  }
  /* "prove" is the quotient and the MSMs, on whichever device the worker has. */
  static const char *const stages[5] = {"queue_wait", "key_load", "prepare", "prove", "finalize"};
  help(&b, "cuzk_stage_seconds_total", "counter", "Time in each stage, summed over partitions.");
  for (int s = 0; s < 5; s++)
    put(&b, "cuzk_stage_seconds_total{stage=\"%s\"} %.6f\n", stages[s], stage[s]);
  help(&b, "cuzk_key_tier", "gauge",
       "Residency of each key: 0 disk, 1 mapped, 2 pinned, 3 device.");
  for (i = 0; i < nk; i++)
    put(&b, "cuzk_key_tier{circuit=\"%s\",tier=\"%s\"} %d\n", esc(l, rows[i].id),
        engine_tier_name(rows[i].tier), (int)rows[i].tier);
  per_key(&b, rows, nk, KR_BYTES, "cuzk_key_bytes", "gauge",
          "Size of each key (what it costs the host budget when loaded).");
  per_key(&b, rows, nk, KR_LOADS, "cuzk_key_loads_total", "counter", "Key loads, by circuit.");
  help(&b, "cuzk_key_load_seconds_total", "counter", "Time spent loading keys, by circuit.");
  for (i = 0; i < nk; i++)
    put(&b, "cuzk_key_load_seconds_total{circuit=\"%s\"} %.6f\n", esc(l, rows[i].id),
        rows[i].load_s);
  per_key(&b, rows, nk, KR_EVICTIONS, "cuzk_key_evictions_total", "counter",
          "Key unloads, by circuit.");
  const struct {
    const char *name, *type, *text;
    uint64_t v;
  } scalars[] = {
      {"cuzk_requests_attached_total", "counter",
       "Submissions whose request id attached to a known job.", attached},
      {"cuzk_requests_exhausted_total", "counter",
       "Submissions refused because the queue budget was full.", refused},
      {"cuzk_jobs_expired_total", "counter", "Finished jobs forgotten (TTL or count).", expired},
      {"cuzk_jobs_known", "gauge", "Jobs in the table (unfinished and kept finished).", njobs},
      {"cuzk_queue_depth", "gauge", "Jobs waiting with no partition started.", queued},
      {"cuzk_running_jobs", "gauge", "Jobs with a partition started, not finished.", running},
      {"cuzk_host_budget_bytes", "gauge", "Host memory budget (keys and the queue).",
       host_budget},
      {"cuzk_host_used_bytes", "gauge", "Host memory charged: loaded keys and the queue.",
       keys_used + queue_used},
      {"cuzk_keys_used_bytes", "gauge",
       "Host memory held by loaded (or loading) keys and the GPU slots' page-locked buffers.",
       keys_used},
      {"cuzk_queue_budget_bytes", "gauge",
       "Bytes requests and results may hold (witnesses, jobs, results, calls in hand).",
       queue_budget},
      {"cuzk_queue_used_bytes", "gauge", "Bytes charged to the queue budget.", queue_used},
      {"cuzk_queue_witness_bytes", "gauge", "Of the queue's bytes: witnesses of unfinished jobs.",
       witness_used},
      {"cuzk_device_used_bytes", "gauge",
       "Device budget used by resident keys, all GPUs (each key once per GPU).", dev_used},
      {"cuzk_device_budget_bytes", "gauge", "Per-device budget for resident keys.", dev_budget},
      {"cuzk_workers", "gauge", "Proving workers (CPU backends and GPU slots).", nworkers},
      {"cuzk_gpu_workers", "gauge", "GPU slots.", ngpu_workers},
      {"cuzk_busy_workers", "gauge", "Workers proving a partition now.", busy},
      {"cuzk_serving_workers", "gauge",
       "Workers that can take work (0: submissions are refused as unavailable).", serving},
      {"cuzk_partitions_retried_total", "counter",
       "Partitions sent to another worker after their GPU was lost.", retried},
      {"cuzk_witness_readahead_total", "counter",
       "Partitions begun with their witness file's values read ahead.", ra_used},
      {"cuzk_uptime_seconds", "gauge", "Seconds since the engine started.", (uint64_t)uptime},
  };
  for (size_t k = 0; k < sizeof scalars / sizeof *scalars; k++) {
    help(&b, scalars[k].name, scalars[k].type, scalars[k].text);
    put(&b, "%s %llu\n", scalars[k].name, (unsigned long long)scalars[k].v);
  }
  /* A benchmark's busy fraction of a device over a window: the growth of
   * its workers' sums divided by (workers x window). */
  help(&b, "cuzk_worker_busy_seconds_total", "counter",
       "Time each worker (CPU backend or GPU slot) held a partition: key wait, proof, verify.");
  for (size_t w = 0; w < nw; w++) {
    char dev[16] = "cpu";
    if (wrows[w].ordinal >= 0)
      snprintf(dev, sizeof dev, "gpu%d", wrows[w].ordinal);
    put(&b, "cuzk_worker_busy_seconds_total{worker=\"%u\",device=\"%s\"} %.6f\n", wrows[w].index,
        dev, wrows[w].busy_s);
  }
  /* Per GPU: whether it is in service, the copies its slots share, and its
   * budget's use. */
  const struct {
    const char *name, *text;
    size_t off;
  } dm[] = {
      {"cuzk_gpu_up", "1 while a GPU is in service, 0 once a sticky CUDA error lost it.",
       offsetof(device_row, up)},
      {"cuzk_gpu_resident_bytes", "Device bytes of the resident key copies a GPU's slots share.",
       offsetof(device_row, resident)},
      {"cuzk_gpu_used_bytes", "A GPU's budget used by resident keys (each key once).",
       offsetof(device_row, used)},
      {"cuzk_gpu_budget_bytes", "A GPU's budget for resident keys.", offsetof(device_row, budget)},
  };
  for (size_t m = 0; nd && m < sizeof dm / sizeof *dm; m++) {
    help(&b, dm[m].name, "gauge", dm[m].text);
    for (size_t d = 0; d < nd; d++) {
      uint64_t v;
      memcpy(&v, (const char *)&drows[d] + dm[m].off, sizeof v);
      put(&b, "%s{device=\"gpu%d\"} %llu\n", dm[m].name, drows[d].ordinal,
          (unsigned long long)v);
    }
  }
  free(rows);
  free(wrows);
  free(drows);
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  return b.p;
}
