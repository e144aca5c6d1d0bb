/* The CPU backend: every operation of backend.h on the host's cores.
 *
 * DESIGN: stateless apart from the thread count; the NTT domain is built per
 * call (its tables cost one pass over n, small next to the 6 NTTs).  zkey_ab
 * gives each row to one worker, so no two workers write the same element:
 * for entries sorted by row (snarkjs's order) by slicing the entries at row
 * changes, one pass over the section in all; otherwise every worker scans
 * all entries for the rows it owns (T passes over the section).  Sums in Fr
 * are exact, so the result does not depend on the order of the additions or
 * on the thread count.  The stop hook (b->stop) is polled every CPU_POLL
 * entries or elements in zkey_ab and the pointwise passes, inside the NTTs
 * (poly/ntt.h) and between bucket batches in the MSMs (msm/msm.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_impl.h"
#include "base/par.h"
#include "base/stop.h"
#include "msm/msm.h"
#include "poly/ntt.h"

/* Entries or elements between two polls of the stop hook: well under a
 * millisecond of multiplications, and the poll one load per 2^14 of them. */
#define CPU_POLL ((size_t)1 << 14)

static cuzk_status cpu_stopped(const char *what, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_CANCELLED, "cancelled in the %s", what);
}

static bool cpu_supports(const backend *b, cuzk_curve curve, backend_op op) {
  (void)b;
  return curve == CUZK_CURVE_BLS12_381 && op < BACKEND_OP_COUNT;
}

typedef struct {
  bls12_381_fr *a, *b;
  size_t n;
  const uint8_t *entries;
  size_t n_entries;
  const uint8_t *witness;
  size_t n_witness;
  const cuzk_stop *stop;
  atomic_bool unsorted; /* set by a sliced pass that met a row going down */
  atomic_bool bad;      /* an entry out of range was met (bad_at: one such entry) */
  atomic_size_t bad_at;
} ab_ctx;

static inline uint32_t ab_row(const ab_ctx *c, size_t i) { return rd_u32le(c->entries + 44 * i + 4); }

static void ab_flag(ab_ctx *c, size_t i) {
  atomic_store_explicit(&c->bad_at, i, memory_order_relaxed);
  atomic_store_explicit(&c->bad, true, memory_order_relaxed);
}

/* Entry i into a or b.  Bounds contract: nothing is read or written out
 * of bounds whatever the entry holds - an entry with m > 1, row >= n or
 * wire >= n_witness adds nothing, is flagged (c->bad) and returns false,
 * and cpu_zkey_ab then fails.  The readers validate every entry at load
 * (zkey.h), so this costs three compares that never fail on a key that
 * was loaded into memory its owner keeps unchanged; it is what keeps a
 * key changed behind its reader's back from writing outside a and b. */
static inline bool ab_add(ab_ctx *c, size_t i) {
  const uint8_t *e = c->entries + 44 * i;
  uint32_t row = rd_u32le(e + 4), m = rd_u32le(e), wire = rd_u32le(e + 8);
  if (m > 1 || row >= c->n || wire >= c->n_witness) {
    ab_flag(c, i);
    return false;
  }
  bls12_381_fr coef, w, t;
  limbs_from_le(coef.l, e + 12, 4);
  limbs_from_le(w.l, c->witness + 32 * (size_t)wire, 4);
  /* Montgomery product of (c R^2) and canonical w is c w R: Montgomery(c w). */
  bls12_381_fr_mul(&t, &coef, &w);
  bls12_381_fr *dst = m == 0 ? &c->a[row] : &c->b[row];
  bls12_381_fr_add(dst, dst, &t);
  return true;
}

/* Entries sorted by row, as snarkjs writes them: worker k takes the k-th
 * slice of the entries with both ends moved forward to where the row
 * changes, so every row is summed by one worker and the section is read
 * once in all.  A row that goes down marks the entries unsorted. */
static void ab_slice_worker(void *arg, unsigned idx, unsigned nw) {
  ab_ctx *c = arg;
  size_t lo, hi;
  par_range(c->n_entries, idx, nw, &lo, &hi);
  while (lo > 0 && lo < c->n_entries && ab_row(c, lo) == ab_row(c, lo - 1)) lo++;
  while (hi > 0 && hi < c->n_entries && ab_row(c, hi) == ab_row(c, hi - 1)) hi++;
  uint32_t prev = 0;
  for (size_t i = lo; i < hi; i++) {
    if (i % CPU_POLL == 0 && cuzk_stopped(c->stop))
      return;
    uint32_t row = ab_row(c, i);
    if (row < prev) {
      atomic_store_explicit(&c->unsorted, true, memory_order_relaxed);
      return;
    }
    prev = row;
    if (!ab_add(c, i))
      return;
  }
}

/* Any order: every worker scans all entries and adds only the rows it
 * owns. */
static void ab_rows_worker(void *arg, unsigned idx, unsigned nw) {
  ab_ctx *c = arg;
  size_t lo, hi;
  par_range(c->n, idx, nw, &lo, &hi);
  for (size_t i = 0; i < c->n_entries; i++) {
    if (i % CPU_POLL == 0 && cuzk_stopped(c->stop))
      return;
    uint32_t row = ab_row(c, i);
    if (row >= lo && row < hi) {
      if (!ab_add(c, i))
        return;
    } else if (row >= c->n && idx == 0) { /* no worker owns it: one reports it */
      ab_flag(c, i);
      return;
    }
  }
}

static cuzk_status cpu_zkey_ab(backend *be, bls12_381_fr *a, bls12_381_fr *b, size_t n,
                               const void *entries, size_t n_entries, const void *witness,
                               size_t n_witness, cuzk_err *err) {
  memset(a, 0, n * sizeof *a);
  memset(b, 0, n * sizeof *b);
  ab_ctx c = {.a = a,
              .b = b,
              .n = n,
              .entries = entries,
              .n_entries = n_entries,
              .witness = witness,
              .n_witness = n_witness,
              .stop = be->stop};
  atomic_init(&c.unsorted, false);
  atomic_init(&c.bad, false);
  atomic_init(&c.bad_at, 0);
  par_run(be->threads, ab_slice_worker, &c);
  if (!atomic_load(&c.bad) && atomic_load(&c.unsorted) && !cuzk_stopped(c.stop)) { /* start again, row by row */
    memset(a, 0, n * sizeof *a);
    memset(b, 0, n * sizeof *b);
    par_run(be->threads, ab_rows_worker, &c);
  }
  if (atomic_load(&c.bad)) {
    size_t i = atomic_load(&c.bad_at);
    const uint8_t *e = (const uint8_t *)entries + 44 * i;
    return cuzk_err_set(err, CUZK_FORMAT,
                        "coefficient entry %zu: matrix %u, row %u, wire %u, expected matrix 0 or "
                        "1, row < %zu and wire < %zu (the key changed after it was checked?); "
                        "nothing written out of bounds",
                        i, rd_u32le(e), rd_u32le(e + 4), rd_u32le(e + 8), n, n_witness);
  }
  return cuzk_stopped(c.stop) ? cpu_stopped("coefficients (a, b)", err) : CUZK_OK;
}

typedef struct {
  bls12_381_fr *a, *b, *c;
  void *h;
  size_t n;
  int stage; /* 0: c = a*b; 1: h = a*b - c */
  const cuzk_stop *stop;
} pw_ctx;

static void pw_worker(void *arg, unsigned idx, unsigned nw) {
  pw_ctx *p = arg;
  size_t lo, hi;
  par_range(p->n, idx, nw, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    if ((i - lo) % CPU_POLL == 0 && cuzk_stopped(p->stop))
      return;
    bls12_381_fr t;
    bls12_381_fr_mul(&t, &p->a[i], &p->b[i]);
    if (p->stage == 0) {
      p->c[i] = t;
    } else {
      limb_t canon[4];
      bls12_381_fr_sub(&t, &t, &p->c[i]);
      bls12_381_fr_to_canon(canon, &t);
      limbs_to_le((uint8_t *)p->h + 32 * i, canon, 4);
    }
  }
}

static cuzk_status cpu_quotient(backend *be, void *h, bls12_381_fr *a, bls12_381_fr *b,
                                bls12_381_fr *c, unsigned lg_n, cuzk_err *err) {
  ntt_domain d;
  CUZK_TRY(ntt_domain_init(&d, lg_n, NTT_ROOTS_SNARKJS, err));
  pw_ctx p = {a, b, c, h, d.n, 0, be->stop};
  par_run(be->threads, pw_worker, &p);
  bool done = ntt_to_odd_coset_stoppable(&d, a, be->threads, be->stop) &&
              ntt_to_odd_coset_stoppable(&d, b, be->threads, be->stop) &&
              ntt_to_odd_coset_stoppable(&d, c, be->threads, be->stop);
  if (done) {
    p.stage = 1;
    par_run(be->threads, pw_worker, &p);
  }
  ntt_domain_fini(&d);
  return cuzk_stopped(be->stop) ? cpu_stopped("quotient", err) : CUZK_OK;
}

static cuzk_status cpu_msm_g1(backend *be, bls12_381_g1_jac *out, const msm_part *parts,
                              size_t nparts, cuzk_err *err) {
  return msm_g1_parts_stoppable(out, parts, nparts, be->threads, be->stop, err);
}

static cuzk_status cpu_msm_g2(backend *be, bls12_381_g2_jac *out, const msm_part *parts,
                              size_t nparts, cuzk_err *err) {
  return msm_g2_parts_stoppable(out, parts, nparts, be->threads, be->stop, err);
}

static void cpu_destroy(backend *b) { free(b); }

static const backend_ops cpu_ops = {
    .name = "cpu",
    .supports = cpu_supports,
    .zkey_ab = cpu_zkey_ab,
    .quotient = cpu_quotient,
    .msm_g1 = cpu_msm_g1,
    .msm_g2 = cpu_msm_g2,
    .bp_sums = cpu_bp_sums,
    .destroy = cpu_destroy,
};

backend *backend_cpu_new(unsigned threads) {
  backend *b = calloc(1, sizeof *b);
  if (!b)
    return NULL;
  b->ops = &cpu_ops;
  b->threads = threads ? threads : par_threads();
  return b;
}

void backend_free(backend *b) {
  if (b)
    b->ops->destroy(b);
}
