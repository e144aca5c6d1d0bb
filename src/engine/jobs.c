/* The job table: ids to jobs, job lifetime, finishing and expiry.
 *
 * DESIGN: a chained hash table of ids (FNV-1a) doubled when its load
 * passes 1.  A job is in the table from submit until it expires or is
 * replaced (a retried request id), and in exactly one of two lists: live
 * (unfinished, submission order) or finished (finish order, oldest first),
 * which expiry trims from its head: older than the TTL, or beyond
 * max_finished.  Every function here runs with engine.mu held, except
 * jobs_free and jobs_request_digest, which touch no shared state.  A job's
 * memory goes in two steps: its witnesses when it finishes (or each as its
 * partition ends), the rest (proofs, JSON) when its last reference goes.
 * Both are charged to the queue budget from submit (wit_bytes, held_bytes,
 * the JSON at its largest), so finished results count until they go; a
 * submission short of room first drops finished jobs whose result an
 * await has already had (jobs_reclaim), oldest first, before it is
 * refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <stdatomic.h>

#include "base/par.h"

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
  j->collected = false;
  e->uncollected++;
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

void jobs_close_witness_file(engine *e, epart *pt) {
  if (pt->wfd < 0)
    return;
  close(pt->wfd);
  pt->wfd = -1;
  atomic_fetch_sub(&e->wfiles_open, 1);
}

void jobs_free(engine *e, ejob *j) {
  for (size_t p = 0; p < j->nparts; p++) {
    epart *pt = &j->parts[p];
    readahead_drop(e, pt); /* READY at most: a reader holds a reference while it reads */
    wtns_close(&pt->w);
    free(pt->wit);
    free(pt->wcopy);
    jobs_close_witness_file(e, pt);
    free(pt->wname);
    free(pt->proof_json);
    free(pt->public_json);
  }
  free(j->parts);
  free(j);
}

void jobs_unref(engine *e, ejob *j) {
  if (--j->refs == 0) {
    e->queue_used -= j->held_bytes;
    jobs_free(e, j);
  }
}

/* Out of the table and the finished list, dropping the table's reference. */
void jobs_forget(engine *e, ejob *j) {
  if (!j->in_table)
    return;
  table_remove(e, j);
  if (!j->collected)
    e->uncollected--;
  if (j->finished)
    elist_remove(&e->fin, j, offsetof(ejob, f));
  jobs_unref(e, j);
}

void jobs_drop_witness(engine *e, ejob *j, size_t p) {
  epart *pt = &j->parts[p];
  readahead_drop(e, pt);
  jobs_close_witness_file(e, pt);
  free(pt->wcopy);
  pt->wcopy = NULL;
  if (!pt->wit)
    return;
  wtns_close(&pt->w);
  free(pt->wit);
  pt->wit = NULL;
  e->queue_used -= pt->wit_len;
  e->witness_used -= pt->wit_len;
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

void jobs_reclaim(engine *e, uint64_t need) {
  for (ejob *j = e->fin.head, *next; j && queue_room(e) < need; j = next) {
    next = j->f.next;
    if (j->collected && j->refs == 1) { /* the table's reference only: freed now */
      e->expired++;
      jobs_forget(e, j);
    }
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
  e->uncollected = 0;
  memset(&e->fin, 0, sizeof e->fin);
}

/* The request's digest is a two-level SHA-256: each witness is cut into
 * JOBS_DIGEST_CHUNK-byte chunks (the last one shorter), the chunks are
 * hashed in parallel - a 2^27 partition's 4.2 GB witness at one core's
 * ~1.4 GB/s would hold its submission for seconds - and the final digest
 * covers the circuit id, the partition count, and per witness its length
 * and its chunks' digests.  The lengths fix where every chunk starts, so
 * two requests with equal digests have equal chunks short of a SHA-256
 * collision. */
#define JOBS_DIGEST_CHUNK ((size_t)16 << 20)

/* A number goes in as 8 bytes, little-endian; a string as its length and
 * its bytes, so that no two requests share an encoding. */
static int digest_u64(EVP_MD_CTX *c, uint64_t n) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(n >> 8 * i);
  return EVP_DigestUpdate(c, b, sizeof b);
}

static int sha256(const void *p, size_t n, uint8_t out[JOBS_DIGEST_BYTES]) {
  unsigned len = 0;
  return EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) && len == JOBS_DIGEST_BYTES;
}

typedef struct {
  const engine_request *rq;
  size_t nchunks;
  size_t *first;  /* first[p]: the index of witness p's first chunk */
  uint8_t *sums;  /* JOBS_DIGEST_BYTES per chunk */
  atomic_bool failed;
} digest_ctx;

static size_t chunks_of(size_t len) { return len ? (len + JOBS_DIGEST_CHUNK - 1) / JOBS_DIGEST_CHUNK : 0; }

static void digest_worker(void *arg, unsigned idx, unsigned nw) {
  digest_ctx *d = arg;
  size_t lo, hi, p = 0;
  par_range(d->nchunks, idx, nw, &lo, &hi);
  for (size_t c = lo; c < hi; c++) {
    while (c >= d->first[p + 1]) p++;
    size_t off = (c - d->first[p]) * JOBS_DIGEST_CHUNK, len = d->rq->witness_len[p] - off;
    if (len > JOBS_DIGEST_CHUNK)
      len = JOBS_DIGEST_CHUNK;
    if (!sha256(d->rq->witness[p] + off, len, d->sums + c * JOBS_DIGEST_BYTES))
      atomic_store(&d->failed, true);
  }
}

cuzk_status jobs_request_digest(const engine_request *rq, uint8_t out[JOBS_DIGEST_BYTES],
                                cuzk_err *err) {
  digest_ctx d = {.rq = rq};
  atomic_init(&d.failed, false);
  d.first = malloc((rq->nparts + 1) * sizeof *d.first);
  if (!d.first)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the request's digest");
  for (size_t p = 0; p < rq->nparts; p++) {
    d.first[p] = d.nchunks;
    d.nchunks += chunks_of(rq->witness_len[p]);
  }
  d.first[rq->nparts] = d.nchunks;
  d.sums = malloc(d.nchunks ? d.nchunks * JOBS_DIGEST_BYTES : 1);
  EVP_MD_CTX *c = d.sums ? EVP_MD_CTX_new() : NULL;
  if (!c) {
    free(d.first), free(d.sums);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the request's digest");
  }
  unsigned nw = par_threads();
  if (nw > d.nchunks)
    nw = (unsigned)d.nchunks;
  if (nw)
    par_run(nw, digest_worker, &d);
  unsigned n = 0;
  int ok = !atomic_load(&d.failed) && EVP_DigestInit_ex(c, EVP_sha256(), NULL) &&
           digest_u64(c, strlen(rq->circuit_id)) &&
           EVP_DigestUpdate(c, rq->circuit_id, strlen(rq->circuit_id)) && digest_u64(c, rq->nparts);
  for (size_t p = 0; ok && p < rq->nparts; p++)
    ok = digest_u64(c, rq->witness_len[p]) &&
         (d.first[p + 1] == d.first[p] ||
          EVP_DigestUpdate(c, d.sums + d.first[p] * JOBS_DIGEST_BYTES,
                           (d.first[p + 1] - d.first[p]) * JOBS_DIGEST_BYTES));
  ok = ok && EVP_DigestFinal_ex(c, out, &n) && n == JOBS_DIGEST_BYTES;
  EVP_MD_CTX_free(c);
  free(d.first), free(d.sums);
  return ok ? CUZK_OK : cuzk_err_set(err, CUZK_INTERNAL, "libcrypto's SHA-256 failed");
}

cuzk_status jobs_files_digest(const engine_request *rq, const epart *parts,
                              uint8_t out[JOBS_DIGEST_BYTES], cuzk_err *err) {
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  if (!c)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the request's digest");
  unsigned n = 0;
  static const char tag[] = "witness files"; /* never a byte request's encoding: see below */
  int ok = EVP_DigestInit_ex(c, EVP_sha256(), NULL) && digest_u64(c, UINT64_MAX) &&
           EVP_DigestUpdate(c, tag, sizeof tag) && digest_u64(c, strlen(rq->circuit_id)) &&
           EVP_DigestUpdate(c, rq->circuit_id, strlen(rq->circuit_id)) && digest_u64(c, rq->nparts);
  for (size_t p = 0; ok && p < rq->nparts; p++) {
    const file_ident *id = &parts[p].wident;
    ok = digest_u64(c, (uint64_t)id->dev) && digest_u64(c, (uint64_t)id->ino) &&
         digest_u64(c, id->size) && digest_u64(c, (uint64_t)id->mtime.tv_sec) &&
         digest_u64(c, (uint64_t)id->mtime.tv_nsec);
  }
  ok = ok && EVP_DigestFinal_ex(c, out, &n) && n == JOBS_DIGEST_BYTES;
  EVP_MD_CTX_free(c);
  return ok ? CUZK_OK : cuzk_err_set(err, CUZK_INTERNAL, "libcrypto's SHA-256 failed");
}

/* A bound on proof.json (four G1 coordinates, four of G2 and the
 * constants, each under 116 digits, with snarkjs's layout) and on one
 * public signal in public.json (under 78 digits, quotes, comma, newline
 * and indent); malloc's own overhead per string on top. */
#define JOBS_PROOF_JSON_MAX 2048
#define JOBS_PUBLIC_JSON_PER_SIGNAL 84
#define JOBS_MALLOC_OVERHEAD 32

uint64_t jobs_held_bytes(const ekey *k, size_t nparts, bool want_json) {
  uint64_t per = sizeof(epart);
  if (want_json)
    per += JOBS_PROOF_JSON_MAX + 16 + k->n_public * JOBS_PUBLIC_JSON_PER_SIGNAL + 2 * JOBS_MALLOC_OVERHEAD;
  return sizeof(ejob) + JOBS_MALLOC_OVERHEAD + (uint64_t)nparts * per;
}

