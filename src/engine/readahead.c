/* Witness read-ahead: the values of witness files read into page-locked
 * buffers before a worker takes their partitions.
 *
 * DESIGN: a GPU slot that begins a partition whose witness is a file
 * (engine_request.witness_file) first reads its values into its staging
 * (32 bytes per variable: gigabytes at 2^27), and its GPU work waits for
 * that read; two slots that finish together both wait, and the GPU idles
 * (bench/RESULTS.md measures both).  With cfg.witness_readahead = N the engine keeps N more buffers
 * of the staging's size (the largest registered key's witness), from the
 * devices' page-locked memory, and one reader thread fills them while the
 * slots prove: it walks the untaken partitions in the order the
 * scheduler takes them (sched_each_untaken), skips those read already
 * and those with bytes in the request, and reads the first one whose
 * witness fits, into a free buffer, as long as it is among the next N
 * such partitions.  It reads with a descriptor of its own (dup), so that
 * a cancel that closes the partition's (jobs_drop_witness) cannot close
 * it under the read, and it holds a reference on the job meanwhile.
 * What it reads is checked as the worker's own read is (the file is the
 * one submitted; for a .zkey circuit every value below r).  A read that
 * fails marks the partition (ra_failed): its worker reads it itself and
 * reports why, as without read-ahead.
 *
 * The order is a guess, not a reservation: the scheduler is unchanged, so
 * a CRITICAL job submitted later still goes first, and a buffer of a
 * partition taken later only waits.  A worker that begins a partition
 * with a buffer waits for a read in progress (it would read the same
 * bytes itself), then exchanges the buffer for its staging
 * (backend host_staging_swap: no copy), and the old staging becomes the
 * pool's free buffer; a worker whose staging is smaller (an express slot)
 * copies from the buffer instead, a CPU worker (the fallback) reads
 * itself.  A partition whose witness is dropped (its job ended) gives its
 * buffer back: free at once when READY, by the reader when READING
 * (abandoned).
 *
 * Buffers are charged to the keys' share of the host budget, as the
 * slots' staging is, when they are made after the slots (workers_start);
 * they are freed at engine_free, after every job, with the provider's
 * host_free.  Everything here runs with e->mu held unless said. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/par.h"
#include "engine/engine_impl.h"
#include "groth16/types.h"

/* ------------------------------------------------------------ reading */

typedef struct {
  int fd;
  uint8_t *dst;
  uint64_t at, len;
  _Atomic int err; /* an errno, or -1 for a short read */
} wread_ctx;

#define WREAD_CHUNK ((uint64_t)64 << 20)

static void wread_part(void *arg, unsigned idx, unsigned nw) {
  wread_ctx *c = arg;
  const uint64_t nchunks = (c->len + WREAD_CHUNK - 1) / WREAD_CHUNK;
  size_t lo, hi;
  par_range((size_t)nchunks, idx, nw, &lo, &hi);
  for (uint64_t k = lo; k < hi && !atomic_load(&c->err); k++) {
    uint64_t off = k * WREAD_CHUNK, end = off + WREAD_CHUNK < c->len ? off + WREAD_CHUNK : c->len;
    while (off < end) {
      ssize_t r = pread(c->fd, c->dst + off, (size_t)(end - off), (off_t)(c->at + off));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) {
        atomic_store(&c->err, r < 0 ? errno : -1);
        return;
      }
      off += (uint64_t)r;
    }
  }
}

cuzk_status witness_read_values(const epart *pt, int fd, bool check_values, uint8_t *dst,
                                unsigned nthreads, cuzk_err *err) {
  const size_t wbytes = (size_t)pt->w.n_witness * pt->w.n8;
  wread_ctx c = {.fd = fd, .dst = dst, .at = pt->w.values_at, .len = wbytes};
  atomic_init(&c.err, 0);
  uint64_t nchunks = (wbytes + WREAD_CHUNK - 1) / WREAD_CHUNK;
  unsigned nw = nthreads ? nthreads : 1;
  par_run(nw < nchunks ? nw : (unsigned)(nchunks ? nchunks : 1), wread_part, &c);
  int rerr = atomic_load(&c.err);
  if (rerr)
    return cuzk_err_set(err, CUZK_FORMAT, "%s: reading its values failed: %s", pt->wname,
                        rerr < 0 ? "the file ends early (it changed after it was submitted)"
                                 : strerror(rerr));
  struct stat sb;
  if (fstat(fd, &sb) != 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot stat it again: %s", pt->wname, strerror(errno));
  file_ident now;
  char what[160];
  file_ident_of_stat(&now, &sb);
  /* Not the ctime: a client links its witness into the directory and
   * unlinks it once submitted (cuzk submit), which changes the ctime and
   * not the bytes; size and mtime tell a write.  (A writer who also sets
   * the mtime back is not caught here; the values are still checked below
   * and the proof verified: a job's witness is its client's.) */
  now.ctime = pt->wident.ctime;
  if (file_ident_differs(&pt->wident, &now, what, sizeof what))
    return cuzk_err_set(err, CUZK_FORMAT, "%s changed after it was submitted (%s)", pt->wname,
                        what);
  size_t n = (size_t)pt->w.n_witness;
  size_t bad = check_values ? groth16_values_check(dst, n, nthreads) : n;
  if (bad != n)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: value %zu at offset %llu is not below the prime (r): values must be "
                        "canonical",
                        pt->wname, bad,
                        (unsigned long long)(pt->w.values_at + (uint64_t)bad * pt->w.n8));
  return CUZK_OK;
}

/* ------------------------------------------------------------ the reader */

/* The next partition to read (sched_each_untaken's walk). */
typedef struct {
  engine *e;
  unsigned left; /* partitions with file witnesses still to look at */
  ejob *j;
  size_t p;
} ra_pick;

static bool ra_candidate(void *ctx, ejob *j, size_t p) {
  ra_pick *k = ctx;
  const epart *pt = &j->parts[p];
  if (pt->wfd < 0)
    return false; /* bytes in the request: nothing to read */
  if (!k->left)
    return true; /* past the next N: stop, none picked */
  k->left--;
  if (pt->ra || pt->ra_failed || (size_t)pt->w.n_witness * pt->w.n8 > k->e->ra_bytes)
    return false;
  k->j = j, k->p = p;
  return true;
}

static ewbuf *ra_free_buffer(engine *e) {
  for (unsigned i = 0; i < e->nra; i++)
    if (e->ra[i].state == EWBUF_FREE)
      return &e->ra[i];
  return NULL;
}

static void *ra_main(void *arg) {
  engine *e = arg;
  pthread_mutex_lock(&e->mu);
  while (!e->ra_stop) {
    ewbuf *b = ra_free_buffer(e);
    ra_pick k = {.e = e, .left = e->nra};
    /* with every GPU lost the CPU workers read for themselves (they have
     * no staging to take a buffer as) */
    if (!b || e->fallback || !sched_each_untaken(e, ra_candidate, &k) || !k.j) {
      pthread_cond_wait(&e->ra_cv, &e->mu);
      continue;
    }
    ejob *j = k.j;
    epart *pt = &j->parts[k.p];
    int fd = dup(pt->wfd);
    if (fd < 0) { /* out of descriptors: its worker reads it */
      pt->ra_failed = true;
      continue;
    }
    b->state = EWBUF_READING, b->abandoned = false;
    pt->ra = b;
    jobs_ref(j);
    const bool check = j->key->kind != EKEY_BP; /* bp_sums checks a bellperson witness's */
    pthread_mutex_unlock(&e->mu);

    cuzk_err err = {0};
    cuzk_status st = witness_read_values(pt, fd, check, b->p, WITNESS_READ_THREADS, &err);
    close(fd);

    pthread_mutex_lock(&e->mu);
    if (b->abandoned || st != CUZK_OK) {
      if (!b->abandoned)
        pt->ra = NULL, pt->ra_failed = true;
      b->state = EWBUF_FREE;
    } else {
      b->state = EWBUF_READY;
    }
    pthread_cond_broadcast(&e->ra_cv); /* a worker waiting for this read */
    jobs_unref(e, j);
  }
  pthread_mutex_unlock(&e->mu);
  return NULL;
}

/* ------------------------------------------------------------ pool */

/* Without the lock, from workers_start (after the slots are planned, so
 * that their buffers come first in the host budget). */
void readahead_start(engine *e, size_t bytes) {
  unsigned want = e->cfg.witness_readahead;
  /* host_pinned: GPU slots started, on devices that all give such memory */
  if (!want || !bytes || !e->host_pinned || !e->witness_dir)
    return;
  if (!(e->ra = calloc(want, sizeof *e->ra)))
    return;
  unsigned made = 0;
  for (; made < want; made++) {
    pthread_mutex_lock(&e->mu);
    bool fits = e->keys_used <= e->keys_budget && bytes <= e->keys_budget - e->keys_used;
    if (fits)
      e->keys_used += bytes;
    pthread_mutex_unlock(&e->mu);
    void *p = NULL;
    cuzk_err err = {0};
    /* on the engine's first GPU, whose context its slots made */
    if (fits && backend_device_host_alloc(e->devs, e->devices[0].ordinal, &p, bytes, &err) !=
                    CUZK_OK) {
      pthread_mutex_lock(&e->mu);
      e->keys_used -= bytes;
      pthread_mutex_unlock(&e->mu);
      fits = false;
    }
    if (!fits) {
      engine_log(e, ENGINE_LOG_WARN,
                 "witness read-ahead: %u of %u buffers of %zu bytes made (%s)", made, want, bytes,
                 err.msg[0] ? err.msg : "no room in the host budget's share for keys");
      break;
    }
    e->ra[made] = (ewbuf){.p = p, .bytes = bytes, .state = EWBUF_FREE};
  }
  e->nra = made;
  e->ra_bytes = bytes;
  if (made && pthread_create(&e->ra_thread, NULL, ra_main, e) == 0)
    e->ra_started = true;
}

/* Without the lock: stops the reader (after the workers are joined). */
void readahead_join(engine *e) {
  if (!e->ra_started)
    return;
  pthread_mutex_lock(&e->mu);
  e->ra_stop = true;
  pthread_cond_broadcast(&e->ra_cv);
  pthread_mutex_unlock(&e->mu);
  pthread_join(e->ra_thread, NULL);
  e->ra_started = false;
}

/* Without the lock, at engine_free once no job is left. */
void readahead_free(engine *e) {
  readahead_join(e);
  for (unsigned i = 0; i < e->nra; i++) {
    backend_device_host_free(e->devs, e->ra[i].p);
    e->keys_used -= e->ra_bytes; /* the charge (a buffer swapped in may be larger) */
  }
  free(e->ra);
  e->ra = NULL, e->nra = 0;
}

ewbuf *readahead_take(engine *e, epart *pt) {
  while (pt->ra && pt->ra->state == EWBUF_READING) pthread_cond_wait(&e->ra_cv, &e->mu);
  ewbuf *b = pt->ra;
  if (!b)
    return NULL;
  pt->ra = NULL;
  b->state = EWBUF_TAKEN;
  e->ra_used++;
  return b;
}

void readahead_give(engine *e, ewbuf *b) {
  b->state = EWBUF_FREE;
  pthread_cond_broadcast(&e->ra_cv);
}

void readahead_drop(engine *e, epart *pt) {
  ewbuf *b = pt->ra;
  if (!b)
    return;
  pt->ra = NULL;
  if (b->state == EWBUF_READING) {
    b->abandoned = true; /* the reader frees it when its read ends */
    return;
  }
  b->state = EWBUF_FREE;
  pthread_cond_broadcast(&e->ra_cv);
}
