/* store.h: resident copies shared by the backends of one device.
 *
 * A store holds objects a backend keeps on its device between proofs (an
 * MSM base set, a key's a/b coefficients), so that the backends of one
 * device (the engine's K slots of a GPU, each with its own backend) upload
 * such an object once and use it together: the device's memory holds a
 * key once, not once per slot.  The store itself is host memory and a
 * lock (making one needs no device); its owner frees it after every
 * backend using it is destroyed.  The CUDA backend (backend_device_opts
 * .store) and the tests' stand-in GPUs use it.
 *
 * DESIGN: an entry is one resident object named by an id, a byte string
 * the caller builds from what the object copies (the host arrays'
 * addresses and sizes), compared with memcmp.  backend_store_acquire finds
 * the entry and takes a reference, or makes it: the first asker links a
 * "being made" entry under the store's lock, then calls make without the
 * lock (an upload of gigabytes must not block backends that want other
 * entries); later askers of the same id wait on the store's condition
 * variable until it is made, so two backends asking at once upload once.
 * A make that fails (no room on the device) fails every asker waiting for
 * it (each then streams its bases) and leaves no entry.  A reference is
 * held by one user (a backend with hold_bases on) until it lets go
 * (hold_bases off, destroy); the last release unlinks the entry under the
 * lock and frees its object after dropping it.  Entries are only read by
 * their users' kernels (the MSM reads its bases), except objects whose
 * runs write scratch of their own (the CUDA a/b copy: the witness, a and
 * b): their users bracket each run with backend_res_use_begin/_end, a
 * mutex per entry, so such runs of several backends take turns.
 *
 * Lock order: the store's lock is a leaf (nothing is called under it but
 * memcmp, malloc and free); an entry's use mutex is taken without the
 * store's lock and held across one run.  make and free_fn run on the
 * calling thread, which must be the one the store's device expects (the
 * CUDA backend: its GPU current). */
#ifndef CUZK_BACKEND_STORE_H
#define CUZK_BACKEND_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "msm/msm.h"

typedef struct backend_store backend_store;
typedef struct backend_res backend_res;

/* NULL on no memory. */
backend_store *backend_store_new(void);
/* NULL is fine.  Entries still held (a user that broke the rule above)
 * are freed on the calling thread. */
void backend_store_free(backend_store *s);
/* Device bytes its objects hold now (0 for NULL). */
uint64_t backend_store_bytes(backend_store *s);

/* Makes the object of a new entry (ctx: the asker's); NULL when it cannot
 * (no room: the asker goes on without it).  *bytes: device bytes it holds. */
typedef void *(*backend_res_make_fn)(void *ctx, size_t *bytes);
typedef void (*backend_res_free_fn)(void *obj);

/* The entry named by id (id_len bytes, copied), referenced for the caller:
 * found, waited for while another thread makes it, or made now with make
 * (freed later with free_fn).  NULL when it was not made (or no host
 * memory for the entry). */
backend_res *backend_store_acquire(backend_store *s, const void *id, size_t id_len,
                                   backend_res_make_fn make, void *make_ctx,
                                   backend_res_free_fn free_fn);
/* Drops the caller's reference (NULL is fine); the last one frees the object. */
void backend_store_release(backend_store *s, backend_res *r);
void *backend_res_object(const backend_res *r);
/* Exclusive use of an entry whose runs write scratch inside the object. */
void backend_res_use_begin(backend_res *r);
void backend_res_use_end(backend_res *r);

/* The name of an MSM base set: its group and each part's host array and
 * count (the scalars are not part of it), zero-padded so that equal sets
 * have equal bytes.  backend_bases_id_make fills it and returns its
 * length, or 0 for more than BACKEND_ID_PARTS parts (such a set is not
 * shared). */
#define BACKEND_ID_PARTS 8
typedef struct {
  int group; /* 1: G1, 2: G2 (or the backend's own numbering) */
  size_t nparts;
  struct {
    const void *bases;
    size_t n;
  } part[BACKEND_ID_PARTS];
} backend_bases_id;

static inline size_t backend_bases_id_make(backend_bases_id *id, int group, const msm_part *parts,
                                           size_t nparts) {
  if (nparts > BACKEND_ID_PARTS)
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
} backend_store_stats;
void backend_store_stats_get(backend_store *s, backend_store_stats *out);

#endif
