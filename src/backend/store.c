/* The store of resident copies (store.h).  Host memory and a lock only:
 * the objects' device memory is made and freed by the callers' make and
 * free functions. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/store.h"

struct backend_res {
  backend_res *next; /* the store's list, while linked */
  void *id;          /* the name, id_len bytes (a copy) */
  size_t id_len;
  void *obj;         /* made: the copy; NULL while being made */
  size_t bytes;
  backend_res_free_fn free_fn;
  unsigned refs;     /* holders, and askers waiting while it is made */
  bool making, failed;
  pthread_mutex_t use; /* backend_res_use_begin/_end */
};

struct backend_store {
  pthread_mutex_t mu;
  pthread_cond_t made; /* an entry was made, or its make failed */
  backend_res *list;
  uint64_t bytes, makes, failures;
  unsigned entries;
};

backend_store *backend_store_new(void) {
  backend_store *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->made, NULL);
  return s;
}

static void res_free(backend_res *r) {
  if (r->obj)
    r->free_fn(r->obj);
  pthread_mutex_destroy(&r->use);
  free(r->id);
  free(r);
}

/* Takes r off the store's list (s->mu held). */
static void res_unlink(backend_store *s, backend_res *r) {
  for (backend_res **p = &s->list; *p; p = &(*p)->next)
    if (*p == r) {
      *p = r->next;
      s->entries--;
      s->bytes -= r->bytes;
      return;
    }
}

void backend_store_free(backend_store *s) {
  if (!s)
    return;
  /* Every backend let go of its entries when destroyed; what is left (a
   * caller that broke that rule) is freed on this thread. */
  for (backend_res *r = s->list, *next; r; r = next) {
    next = r->next;
    res_free(r);
  }
  pthread_cond_destroy(&s->made);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

uint64_t backend_store_bytes(backend_store *s) {
  backend_store_stats st;
  backend_store_stats_get(s, &st);
  return st.bytes;
}

void backend_store_stats_get(backend_store *s, backend_store_stats *out) {
  memset(out, 0, sizeof *out);
  if (!s)
    return;
  pthread_mutex_lock(&s->mu);
  out->bytes = s->bytes, out->entries = s->entries;
  out->makes = s->makes, out->failures = s->failures;
  pthread_mutex_unlock(&s->mu);
}

backend_res *backend_store_acquire(backend_store *s, const void *id, size_t id_len,
                                   backend_res_make_fn make, void *make_ctx,
                                   backend_res_free_fn free_fn) {
  pthread_mutex_lock(&s->mu);
  for (backend_res *r = s->list; r; r = r->next) {
    if (r->id_len != id_len || memcmp(r->id, id, id_len) != 0)
      continue;
    r->refs++;
    while (r->making) pthread_cond_wait(&s->made, &s->mu);
    if (!r->failed) {
      pthread_mutex_unlock(&s->mu);
      return r;
    }
    /* Its make failed (and unlinked it): so does this asker. */
    bool last = --r->refs == 0;
    pthread_mutex_unlock(&s->mu);
    if (last)
      res_free(r);
    return NULL;
  }
  backend_res *r = calloc(1, sizeof *r);
  void *idc = malloc(id_len ? id_len : 1);
  if (!r || !idc) {
    pthread_mutex_unlock(&s->mu);
    free(r), free(idc);
    return NULL;
  }
  memcpy(idc, id, id_len);
  r->id = idc, r->id_len = id_len;
  r->free_fn = free_fn;
  r->refs = 1;
  r->making = true;
  pthread_mutex_init(&r->use, NULL);
  r->next = s->list;
  s->list = r;
  s->entries++;
  pthread_mutex_unlock(&s->mu);

  size_t bytes = 0;
  void *obj = make(make_ctx, &bytes); /* the upload, without the lock */

  pthread_mutex_lock(&s->mu);
  r->making = false;
  bool last = false;
  if (obj) {
    r->obj = obj, r->bytes = bytes;
    s->bytes += bytes;
    s->makes++;
  } else {
    r->failed = true;
    res_unlink(s, r);
    s->failures++;
    last = --r->refs == 0;
  }
  pthread_cond_broadcast(&s->made);
  pthread_mutex_unlock(&s->mu);
  if (last)
    res_free(r);
  return obj ? r : NULL;
}

void backend_store_release(backend_store *s, backend_res *r) {
  if (!r)
    return;
  pthread_mutex_lock(&s->mu);
  bool last = --r->refs == 0;
  if (last)
    res_unlink(s, r);
  pthread_mutex_unlock(&s->mu);
  if (last)
    res_free(r); /* the device free, after the lock: other lookups go on */
}

void *backend_res_object(const backend_res *r) { return r ? r->obj : NULL; }
void backend_res_use_begin(backend_res *r) { pthread_mutex_lock(&r->use); }
void backend_res_use_end(backend_res *r) { pthread_mutex_unlock(&r->use); }
