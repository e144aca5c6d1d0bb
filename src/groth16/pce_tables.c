/* PCE matrices' value tables (pce_tables.h). */
#include "groth16/pce_tables.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "ff/bls12_381.h"
#include "groth16/pce.h"

#define PROBE_MAX 64

/* An open-addressed set of values numbered in the order first seen, of at
 * most `max` values; its slots double as it fills (at most half used). */
typedef struct {
  uint32_t *slot; /* 1 + index into vals; 0: empty */
  size_t nslot;   /* a power of two */
  bls12_381_fr *vals;
  size_t n, cap, max;
  bool full; /* max reached, a probe too long, or no memory: no more values */
} vset;

static uint64_t vhash(const bls12_381_fr *v) { /* splitmix64's finalizer over the limbs */
  uint64_t h = 0;
  for (int i = 0; i < 4; i++) {
    h = (h ^ v->l[i]) + 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
  }
  return h;
}

/* The slot of slots[0..nslot) holding v or, when v is absent, the empty
 * slot it would take; SIZE_MAX after PROBE_MAX occupied slots without v. */
static size_t find(const uint32_t *slot, size_t nslot, const bls12_381_fr *vals,
                   const bls12_381_fr *v) {
  const size_t mask = nslot - 1;
  size_t i = vhash(v) & mask;
  for (unsigned probes = 0; slot[i] && memcmp(&vals[slot[i] - 1], v, sizeof *v) != 0;
       i = (i + 1) & mask)
    if (++probes > PROBE_MAX)
      return SIZE_MAX;
  return i;
}

static bool vset_init(vset *s, size_t max) {
  memset(s, 0, sizeof *s);
  s->max = max;
  s->nslot = 64;
  s->slot = calloc(s->nslot, sizeof *s->slot);
  return s->slot != NULL;
}

static void vset_fini(vset *s) {
  free(s->slot);
  free(s->vals);
}

/* Doubles the slots; false (the set stays as it was) without memory or
 * when a probe runs too long. */
static bool rehash(vset *s) {
  const size_t nslot = 2 * s->nslot;
  uint32_t *slot = calloc(nslot, sizeof *slot);
  if (!slot)
    return false;
  for (size_t t = 0; t < s->n; t++) {
    const size_t at = find(slot, nslot, s->vals, &s->vals[t]); /* distinct: an empty slot */
    if (at == SIZE_MAX) {
      free(slot);
      return false;
    }
    slot[at] = (uint32_t)(t + 1);
  }
  free(s->slot);
  s->slot = slot;
  s->nslot = nslot;
  return true;
}

/* v's index, added if new; UINT32_MAX once the set is full. */
static uint32_t vset_index(vset *s, const bls12_381_fr *v) {
  if (s->full)
    return UINT32_MAX;
  const size_t i = find(s->slot, s->nslot, s->vals, v);
  if (i != SIZE_MAX && s->slot[i])
    return s->slot[i] - 1;
  if (i == SIZE_MAX || s->n == s->max) {
    s->full = true;
    return UINT32_MAX;
  }
  if (s->n == s->cap) {
    const size_t cap = s->cap ? (2 * s->cap < s->max ? 2 * s->cap : s->max) : 64;
    bls12_381_fr *vals = realloc(s->vals, cap * sizeof *vals);
    if (!vals) {
      s->full = true;
      return UINT32_MAX;
    }
    s->vals = vals, s->cap = cap;
  }
  s->vals[s->n++] = *v;
  s->slot[i] = (uint32_t)s->n;
  if (2 * s->n > s->nslot && !rehash(s)) {
    s->full = true; /* v is in, but nothing more goes */
    return UINT32_MAX;
  }
  return (uint32_t)(s->n - 1);
}

typedef struct {
  const uint8_t *val; /* nnz values of 32 bytes, at any alignment (a mapped file's) */
  size_t nnz;
  uint32_t *code; /* NULL: count only */
  bls12_381_fr one, minus_one;
  vset *local;      /* one per worker */
  uint32_t **remap; /* worker t's index i -> the merged set's */
  atomic_bool over; /* some worker's set is full: all stop */
} dict_job;

/* Pass 1, per worker: its range's codes against its own set (PCE_CODE_TAB
 * + its local index). */
static void dict_local(void *ctx, unsigned t, unsigned n) {
  dict_job *j = ctx;
  size_t lo, hi;
  par_range(j->nnz, t, n, &lo, &hi);
  vset *v = &j->local[t];
  for (size_t e = lo; e < hi && !atomic_load_explicit(&j->over, memory_order_relaxed); e++) {
    bls12_381_fr x;
    memcpy(&x, j->val + 32 * e, sizeof x);
    uint32_t c;
    if (!memcmp(&x, &j->one, sizeof x)) {
      c = PCE_CODE_ONE;
    } else if (!memcmp(&x, &j->minus_one, sizeof x)) {
      c = PCE_CODE_MINUS_ONE;
    } else {
      const uint32_t i = vset_index(v, &x);
      if (i == UINT32_MAX) {
        atomic_store(&j->over, true);
        return;
      }
      c = PCE_CODE_TAB + i;
    }
    if (j->code)
      j->code[e] = c;
  }
}

/* Pass 3, per worker: local indices to the merged set's. */
static void dict_remap(void *ctx, unsigned t, unsigned n) {
  dict_job *j = ctx;
  size_t lo, hi;
  par_range(j->nnz, t, n, &lo, &hi);
  const uint32_t *m = j->remap[t];
  for (size_t e = lo; e < hi; e++)
    if (j->code[e] >= PCE_CODE_TAB)
      j->code[e] = PCE_CODE_TAB + m[j->code[e] - PCE_CODE_TAB];
}

bool pce_table_build(const void *val, size_t nnz, uint32_t **code, void **tab, size_t *ntab) {
  if (code)
    *code = NULL;
  if (tab)
    *tab = NULL;
  *ntab = 0;
  if (!nnz)
    return false;
  const size_t max = PCE_TABLE_MAX < nnz / PCE_TABLE_SHARE ? PCE_TABLE_MAX : nnz / PCE_TABLE_SHARE;
  size_t nt = par_threads();
  if (nt > nnz / 4096)
    nt = nnz / 4096;
  if (nt < 1)
    nt = 1;
  dict_job j = {.val = val, .nnz = nnz};
  atomic_init(&j.over, false);
  bls12_381_fr_set_one(&j.one);
  bls12_381_fr_neg(&j.minus_one, &j.one);
  bool ok = (!code || (j.code = malloc(nnz * sizeof *j.code))) &&
            (j.local = calloc(nt, sizeof *j.local)) && (j.remap = calloc(nt, sizeof *j.remap));
  size_t made = 0;
  for (; ok && made < nt; made++) ok = vset_init(&j.local[made], max);
  vset all;
  bool all_made = false;
  if (ok) {
    par_run((unsigned)nt, dict_local, &j);
    ok = !atomic_load(&j.over) && (all_made = vset_init(&all, max));
  }
  for (size_t t = 0; ok && t < nt; t++) { /* pass 2: merge, in worker order */
    const vset *v = &j.local[t];
    if (code && !(j.remap[t] = malloc((v->n ? v->n : 1) * sizeof *j.remap[t])))
      ok = false;
    for (size_t i = 0; ok && i < v->n; i++) {
      const uint32_t k = vset_index(&all, &v->vals[i]);
      if (k == UINT32_MAX)
        ok = false;
      else if (code)
        j.remap[t][i] = k;
    }
  }
  if (ok && code)
    par_run((unsigned)nt, dict_remap, &j);
  for (size_t t = 0; t < made; t++) vset_fini(&j.local[t]);
  for (size_t t = 0; j.remap && t < nt; t++) free(j.remap[t]);
  free(j.local);
  free(j.remap);
  if (ok) {
    *ntab = all.n;
    if (code) {
      *code = j.code;
      *tab = all.n ? (void *)all.vals : NULL;
      all.vals = NULL;
    }
  } else {
    free(j.code);
  }
  if (all_made)
    vset_fini(&all);
  return ok;
}

/* u64 at off of the mapping, or false past its end. */
static bool map_u64(const mapfile *m, uint64_t off, uint64_t *v) {
  if (off > m->size || m->size - off < 8)
    return false;
  memcpy(v, m->data + off, 8); /* little-endian host (the format's) */
  return true;
}

cuzk_status pce_table_sizes(const pce_file *f, const char *path, size_t ntab[3], uint64_t nnz[3],
                            file_ident *id, cuzk_err *err) {
  const pce_csr *mats[3] = {f ? &f->a : NULL, f ? &f->b : NULL, f ? &f->c : NULL};
  if (f) {
    for (int k = 0; k < 3; k++) {
      nnz[k] = mats[k]->nnz;
      if (!pce_table_build(mats[k]->val, nnz[k], NULL, NULL, &ntab[k]))
        ntab[k] = SIZE_MAX;
    }
    return CUZK_OK;
  }
  pce_file h;
  CUZK_TRY(pce_read_header(&h, path, err));
  mapfile m;
  CUZK_TRY(mapfile_open(&m, path, err));
  cuzk_status st = CUZK_OK;
  uint64_t off = PCE_HEADER_BYTES;
  for (int k = 0; k < 3 && st == CUZK_OK; k++) {
    /* u64 rows + 1, row_ptrs u32[]; u64 nnz, cols u32[]; u64 nnz, vals [32] */
    uint64_t rp, n, nv;
    const uint64_t at = off;
    bool ok = map_u64(&m, off, &rp) && rp == (uint64_t)h.num_constraints + 1;
    off += 8 + 4 * rp;
    ok = ok && map_u64(&m, off, &n) && n < ((uint64_t)1 << 32);
    off += 8 + 4 * n;
    ok = ok && map_u64(&m, off, &nv) && nv == n && off + 8 <= m.size &&
         (m.size - off - 8) / 32 >= n;
    off += 8;
    if (!ok) {
      st = cuzk_err_set(err, CUZK_FORMAT,
                        "%s: matrix %c (from byte %llu): its counts do not fit the file's %llu "
                        "bytes",
                        path, "ABC"[k], (unsigned long long)at, (unsigned long long)m.size);
      break;
    }
    nnz[k] = n;
    if (!pce_table_build(m.data + off, n, NULL, NULL, &ntab[k]))
      ntab[k] = SIZE_MAX;
    off += 32 * n;
  }
  if (st == CUZK_OK && (st = mapfile_check(&m, err)) == CUZK_OK && id)
    *id = m.id;
  mapfile_close(&m);
  return st;
}
