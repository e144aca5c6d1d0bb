/* The job table: ids to jobs, job lifetime, finishing and expiry.
 *
 * DESIGN: a chained hash table of ids (FNV-1a) doubled when its load
 * passes 1.  A job is in the table from submit until it expires or is
 * replaced (a retried request id), and in exactly one of two lists: live
 * (unfinished, submission order) or finished (finish order, oldest first),
 * which expiry trims from its head: older than the TTL, or beyond
 * max_finished.  Every function here runs with engine.mu held, except
 * jobs_free and jobs_witness_hash, which touch no shared state.  A job's
 * memory goes in two steps: its witnesses when it finishes (or each as its
 * partition ends), the rest (proofs, JSON) when its last reference goes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

static size_t hash_id(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
  return (size_t)(h ^ h >> 29);
}

ejob *jobs_find(engine *e, const char *id) {
  for (ejob *j = e->table[hash_id(id) & (e->table_size - 1)]; j; j = j->hnext)
    if (!strcmp(j->id, id))
      return j;
  return NULL;
}

static void table_grow(engine *e) {
  size_t n = e->table_size * 2;
  ejob **t = calloc(n, sizeof *t);
  if (!t)
    return; /* longer chains, still correct */
  for (size_t i = 0; i < e->table_size; i++)
    for (ejob *j = e->table[i], *next; j; j = next) {
      next = j->hnext;
      size_t b = hash_id(j->id) & (n - 1);
      j->hnext = t[b];
      t[b] = j;
    }
  free(e->table);
  e->table = t;
  e->table_size = n;
}

cuzk_status jobs_insert(engine *e, ejob *j, cuzk_err *err) {
  if (jobs_find(e, j->id))
    return cuzk_err_set(err, CUZK_INTERNAL, "job id '%s' is already in the table", j->id);
  if (e->njobs >= e->table_size)
    table_grow(e);
  size_t b = hash_id(j->id) & (e->table_size - 1);
  j->hnext = e->table[b];
  e->table[b] = j;
  e->njobs++;
  j->in_table = true;
  j->refs = 1;
  elist_push(&e->live, j, offsetof(ejob, l));
  return CUZK_OK;
}

static void table_remove(engine *e, ejob *j) {
  ejob **pp = &e->table[hash_id(j->id) & (e->table_size - 1)];
  while (*pp && *pp != j) pp = &(*pp)->hnext;
  if (*pp) {
    *pp = j->hnext;
    e->njobs--;
  }
  j->in_table = false;
}

void jobs_ref(ejob *j) { j->refs++; }

void jobs_free(ejob *j) {
  for (size_t p = 0; p < j->nparts; p++) {
    epart *pt = &j->parts[p];
    wtns_close(&pt->w);
    free(pt->wit);
    free(pt->proof_json);
    free(pt->public_json);
  }
  free(j->parts);
  free(j);
}

void jobs_unref(engine *e, ejob *j) {
  (void)e;
  if (--j->refs == 0)
    jobs_free(j);
}

/* Out of the table and the finished list, dropping the table's reference. */
void jobs_forget(engine *e, ejob *j) {
  if (!j->in_table)
    return;
  table_remove(e, j);
  if (j->finished)
    elist_remove(&e->fin, j, offsetof(ejob, f));
  jobs_unref(e, j);
}

void jobs_drop_witness(engine *e, ejob *j, size_t p) {
  epart *pt = &j->parts[p];
  if (!pt->wit)
    return;
  wtns_close(&pt->w);
  free(pt->wit);
  pt->wit = NULL;
  e->queue_used -= pt->wit_len;
  j->wit_bytes -= pt->wit_len;
  pt->wit_len = 0;
}

void jobs_finish(engine *e, ejob *j, engine_job_state state, cuzk_status st, const char *msg) {
  if (j->finished)
    return;
  if (j->in_queue)
    sched_remove(e, j);
  /* Partitions no worker took (or requeued ones waiting to be taken again)
   * are dropped now; running ones stop within a chunk of work (j->stop is
   * their prover's stop hook) and their worker frees their witness. */
  for (size_t p = 0; p < j->nparts; p++) {
    epart *pt = &j->parts[p];
    if (p < j->next_part && !pt->requeued)
      continue;
    pt->requeued = false;
    pt->state = state;
    jobs_drop_witness(e, j, p);
  }
  j->next_part = j->nparts;
  j->nrequeued = 0;
  j->stop = true;
  j->finished = true;
  j->state = state;
  j->status = st;
  snprintf(j->error, sizeof j->error, "%s", msg ? msg : "");
  j->t_finish = engine_now();
  joblog_finished(e, j);
  elist_remove(&e->live, j, offsetof(ejob, l));
  elist_push(&e->fin, j, offsetof(ejob, f));
  if (state == ENGINE_JOB_DONE) {
    e->completed++;
    j->key->done++;
    j->key->proof_s += j->t_finish - j->t_submit;
  } else if (state == ENGINE_JOB_FAILED) {
    e->failed++;
    j->key->failed++;
    if ((unsigned)st < CUZK_STATUS_COUNT)
      e->errors[st]++;
  } else {
    e->cancelled++;
    j->key->cancelled++;
  }
  pthread_cond_broadcast(&e->done_cv);
  pthread_cond_broadcast(&e->key_cv); /* a loader waiting for this job stops */
}

void jobs_expire(engine *e) {
  double now = engine_now(), ttl = (double)e->cfg.finished_ttl_ms / 1000.0;
  while (e->fin.head) {
    ejob *j = e->fin.head;
    bool old = e->cfg.finished_ttl_ms && now - j->t_finish > ttl;
    if (!old && e->fin.n <= e->cfg.max_finished)
      break;
    e->expired++;
    jobs_forget(e, j);
  }
}

engine_job_state jobs_state(const ejob *j) {
  if (j->finished)
    return j->state;
  engine_job_state s = ENGINE_JOB_DONE;
  for (size_t p = 0; p < j->nparts; p++)
    if (j->parts[p].state < s)
      s = j->parts[p].state;
  return s;
}

void jobs_free_all(engine *e) {
  for (size_t i = 0; i < e->table_size; i++)
    for (ejob *j = e->table[i], *next; j; j = next) {
      next = j->hnext;
      jobs_unref(e, j);
    }
  memset(e->table, 0, e->table_size * sizeof *e->table);
  e->njobs = 0;
  memset(&e->fin, 0, sizeof e->fin);
}

/* A 64-bit digest of the request's witness bytes (with their lengths), to
 * tell a repeated request id carrying the same request from one carrying
 * another.  Not cryptographic: request ids are the callers' own names. */
uint64_t jobs_witness_hash(const engine_request *rq) {
  const uint64_t m = 0x9e3779b97f4a7c15ULL;
  uint64_t h = rq->nparts * m;
  for (size_t i = 0; i < rq->nparts; i++) {
    const uint8_t *b = rq->witness[i];
    size_t n = rq->witness_len[i], k = 0;
    h = (h ^ n) * m;
    for (; k + 8 <= n; k += 8) {
      uint64_t v;
      memcpy(&v, b + k, 8);
      h = (h ^ v) * m;
      h ^= h >> 31;
    }
    uint64_t tail = 0;
    if (n > k)
      memcpy(&tail, b + k, n - k);
    h = (h ^ tail ^ (uint64_t)(n - k) << 56) * m;
    h ^= h >> 29;
  }
  return h;
}
