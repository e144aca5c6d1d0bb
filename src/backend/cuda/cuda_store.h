/* The store of resident copies that the CUDA backends of one GPU share
 * (backend.h: backend_cuda_store): the inside view, for cuda_backend.c and
 * for tests that stand in for the GPU (tests/unit/test_engine.c).
 *
 * DESIGN: an entry is one resident object (an MSM base set, a key's a/b
 * coefficients) named by an id, a byte string the caller builds from what
 * the object copies (the host arrays' addresses and sizes), compared with
 * memcmp.  cuda_store_acquire finds the entry and takes a reference, or
 * makes it: the first asker links a "being made" entry under the store's
 * lock, then calls make without the lock (an upload of gigabytes must not
 * block slots that want other entries); later askers of the same id wait
 * on the store's condition variable until it is made, so two slots asking
 * at once upload once.  A make that fails (no room on the device) fails
 * every asker waiting for it (each then streams its bases) and leaves no
 * entry.  A reference is held by one user (a backend with hold_bases on)
 * until it lets go (hold_bases off, destroy); the last release unlinks the
 * entry under the lock and frees its object after dropping it.  Entries
 * are only read by their users' kernels (the MSM reads its bases), except
 * objects whose runs write scratch of their own (cuda_ab: the witness, a
 * and b): their users bracket each run with cuda_res_use_begin/_end, a
 * mutex per entry, so such runs of several slots take turns.
 *
 * Lock order: the store's lock is a leaf (nothing is called under it but
 * memcmp, malloc and free); an entry's use mutex is taken without the
 * store's lock and held across one run.  make and free_fn run on the
 * calling thread, which must have the store's GPU current. */
#ifndef CUZK_BACKEND_CUDA_STORE_H
#define CUZK_BACKEND_CUDA_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backend/backend.h"

typedef struct backend_cuda_res backend_cuda_res;

/* Makes the object of a new entry (ctx: the asker's); NULL when it cannot
 * (no room: the asker goes on without it).  *bytes: device bytes it holds. */
typedef void *(*cuda_res_make_fn)(void *ctx, size_t *bytes);
typedef void (*cuda_res_free_fn)(void *obj);

/* The entry named by id (id_len bytes, copied), referenced for the caller:
 * found, waited for while another thread makes it, or made now with make
 * (freed later with free_fn).  NULL when it was not made (or no host
 * memory for the entry). */
backend_cuda_res *cuda_store_acquire(backend_cuda_store *s, const void *id, size_t id_len,
                                     cuda_res_make_fn make, void *make_ctx,
                                     cuda_res_free_fn free_fn);
/* Drops the caller's reference; the last one frees the object. */
void cuda_store_release(backend_cuda_store *s, backend_cuda_res *r);
void *cuda_res_object(const backend_cuda_res *r);
/* Exclusive use of an entry whose runs write scratch inside the object. */
void cuda_res_use_begin(backend_cuda_res *r);
void cuda_res_use_end(backend_cuda_res *r);

/* The name of an MSM base set: its group and each part's host array and
 * count (the scalars are not part of it), zero-padded so that equal sets
 * have equal bytes.  cuda_bases_id fills it and returns its length, or 0
 * for more than CUDA_ID_PARTS parts (such a set is not shared). */
#define CUDA_ID_PARTS 8
typedef struct {
  int group; /* msm_gpu_group */
  size_t nparts;
  struct {
    const void *bases;
    size_t n;
  } part[CUDA_ID_PARTS];
} cuda_bases_id;

static inline size_t cuda_bases_id_make(cuda_bases_id *id, int group, const msm_part *parts,
                                        size_t nparts) {
  if (nparts > CUDA_ID_PARTS)
    return 0;
  memset(id, 0, sizeof *id);
  id->group = group, id->nparts = nparts;
  for (size_t i = 0; i < nparts; i++) id->part[i].bases = parts[i].bases, id->part[i].n = parts[i].n;
  return sizeof *id;
}

typedef struct {
  uint64_t bytes;    /* device bytes of the entries made and not yet freed */
  unsigned entries;  /* entries linked (made or being made) */
  uint64_t makes;    /* objects made since the store was */
  uint64_t failures; /* makes that failed */
} cuda_store_stats;
void cuda_store_stats_get(backend_cuda_store *s, cuda_store_stats *out);

#endif
