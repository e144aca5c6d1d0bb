/* Random satisfiable circuits as PCE matrices, with their assignments and
 * .wtns bytes, for the bellperson tests (test_bp_prove.c, test_api.c). */
#ifndef CUZK_TESTS_UNIT_BP_CIRCUIT_H
#define CUZK_TESTS_UNIT_BP_CIRCUIT_H

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "groth16/keygen.h"
#include "groth16/pce.h"
#include "groth16/wtns.h"

typedef bls12_381_fr fr;

/* A circuit of `rows` random constraints over ninp inputs (ONE first) and
 * naux aux variables, its input rows appended (PCE layout, docs/FORMATS.md §7),
 * and a satisfying assignment: each row's A and B are 1-3 random terms;
 * its C is one term on a variable with a non-zero value, scaled so that
 * the row holds.  Aux variables never named by A (resp. B) exist, so the
 * density bitmaps filter.  Values are mostly 0/1, as SHA-256 gadgets make
 * them. */
typedef struct {
  pce_file p;
  fr *w;       /* Montgomery */
  uint8_t *wt; /* the .wtns bytes */
  size_t wt_len;
} circuit;

static inline uint64_t rng_next(uint64_t *s) { return keygen_splitmix64(s); }

static inline void rand_fr(fr *x, uint64_t *s) {
  limb_t k[4];
  do {
    for (int i = 0; i < 4; i++) k[i] = rng_next(s);
    k[3] &= 0x3fffffffffffffffULL;
  } while (!limbs_lt(k, bls12_381_fr_modulus, 4));
  bls12_381_fr_from_canon(x, k);
}

typedef struct {
  uint32_t col;
  fr val;
} term;

static inline int term_cmp(const void *a, const void *b) {
  uint32_t x = ((const term *)a)->col, y = ((const term *)b)->col;
  return x < y ? -1 : x > y;
}

static inline void csr_alloc(pce_csr *m, uint64_t rows, uint64_t cap) {
  m->nrows = rows;
  m->row_ptr = calloc(rows + 1, sizeof *m->row_ptr);
  m->col = malloc((cap ? cap : 1) * sizeof *m->col);
  m->val = malloc((cap ? cap : 1) * sizeof *m->val);
  m->nnz = 0;
}

/* Appends row r's terms (sorted, duplicates merged, zeros dropped). */
static inline void csr_row(pce_csr *m, uint64_t r, term *t, size_t n) {
  if (n)
    qsort(t, n, sizeof *t, term_cmp);
  for (size_t i = 0; i < n; i++) {
    if (m->nnz && m->row_ptr[r] < m->nnz && m->col[m->nnz - 1] == t[i].col) {
      bls12_381_fr_add(&m->val[m->nnz - 1], &m->val[m->nnz - 1], &t[i].val);
      if (bls12_381_fr_is_zero(&m->val[m->nnz - 1]))
        m->nnz--;
      continue;
    }
    m->col[m->nnz] = t[i].col;
    m->val[m->nnz++] = t[i].val;
  }
  m->row_ptr[r + 1] = (uint32_t)m->nnz;
}

static inline void density(pce_density *d, const pce_csr *m, uint64_t first, uint64_t n) {
  d->bit_len = n;
  d->nwords = (n + 63) / 64;
  d->words = calloc(d->nwords ? d->nwords : 1, sizeof *d->words);
  for (uint64_t t = 0; t < m->nnz; t++) {
    uint64_t c = m->col[t];
    if (c >= first && c < first + n)
      d->words[(c - first) / 64] |= 1ull << ((c - first) % 64);
  }
  d->popcount = 0;
  for (uint64_t i = 0; i < d->nwords; i++) d->popcount += (uint64_t)__builtin_popcountll(d->words[i]);
}

static inline fr dot(const term *t, size_t n, const fr *w) {
  fr s, p;
  bls12_381_fr_set_zero(&s);
  for (size_t i = 0; i < n; i++) {
    bls12_381_fr_mul(&p, &t[i].val, &w[t[i].col]);
    bls12_381_fr_add(&s, &s, &p);
  }
  return s;
}

static inline void wtns_bytes(circuit *c) {
  const size_t nv = c->p.num_inputs + c->p.num_aux;
  c->wt_len = WTNS_BLS_HEADER_BYTES + 32 * nv;
  uint8_t *b = c->wt = calloc(1, c->wt_len);
  wtns_bls_header(b, (uint32_t)nv);
  for (size_t i = 0; i < nv; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &c->w[i]);
    limbs_to_le(b + WTNS_BLS_HEADER_BYTES + 32 * i, x, 4);
  }
}

static inline void circuit_make(circuit *c, uint32_t ninp, uint32_t naux, uint32_t rows, uint64_t seed) {
  memset(c, 0, sizeof *c);
  const uint32_t nv = ninp + naux;
  uint32_t total = rows + ninp;
  pce_file *p = &c->p;
  p->num_inputs = ninp, p->num_aux = naux, p->num_constraints = total;
  c->w = malloc(nv * sizeof *c->w);
  uint64_t s = seed;
  bls12_381_fr_set_one(&c->w[0]);
  for (uint32_t i = 1; i < nv; i++) {
    uint64_t k = rng_next(&s) % 8;
    if (k < 3)
      bls12_381_fr_set_zero(&c->w[i]);
    else if (k < 7)
      bls12_381_fr_set_one(&c->w[i]);
    else
      rand_fr(&c->w[i], &s);
  }
  /* Room for one extra row per variable: each variable no random row
   * names gets a row of its own (v * 1 = v), as every variable of a real
   * circuit is constrained (bellperson keys hold no point at infinity, and
   * an unconstrained variable's l point would be one). */
  csr_alloc(&p->a, total + nv, 3ull * (total + nv));
  csr_alloc(&p->b, total + nv, 3ull * (total + nv));
  csr_alloc(&p->c, total + nv, 1ull * (total + nv));
  uint8_t *used = calloc(nv, 1);
  /* Aux variables below naux / 4 never appear in A, those in the next
   * quarter never in B: the filters have something to drop. */
  const uint32_t noA = naux / 4, noB = naux / 2;
  for (uint32_t r = 0; r < rows; r++) {
    term ta[3], tb[3], tc[1];
    size_t na = 1 + rng_next(&s) % 3, nb = 1 + rng_next(&s) % 3;
    for (size_t i = 0; i < na; i++) {
      uint32_t v;
      do v = (uint32_t)(rng_next(&s) % nv);
      while (v >= ninp && v - ninp < noA);
      ta[i].col = v;
      rand_fr(&ta[i].val, &s);
    }
    for (size_t i = 0; i < nb; i++) {
      uint32_t v;
      do v = (uint32_t)(rng_next(&s) % nv);
      while (v >= ninp && v - ninp >= noA && v - ninp < noB);
      tb[i].col = v;
      rand_fr(&tb[i].val, &s);
    }
    fr prod, av = dot(ta, na, c->w), bv = dot(tb, nb, c->w);
    bls12_381_fr_mul(&prod, &av, &bv);
    uint32_t v;
    do v = (uint32_t)(rng_next(&s) % nv);
    while (bls12_381_fr_is_zero(&c->w[v]));
    fr inv;
    bls12_381_fr_inv(&inv, &c->w[v]);
    tc[0].col = v;
    bls12_381_fr_mul(&tc[0].val, &prod, &inv);
    csr_row(&p->a, r, ta, na);
    csr_row(&p->b, r, tb, nb);
    csr_row(&p->c, r, tc, bls12_381_fr_is_zero(&tc[0].val) ? 0 : 1);
    const pce_csr *ms[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++)
      for (uint32_t t = ms[k]->row_ptr[r]; t < ms[k]->row_ptr[r + 1]; t++) used[ms[k]->col[t]] = 1;
  }
  for (uint32_t v = 1; v < nv; v++) {
    if (used[v])
      continue;
    /* v * 1 = v: v on the side its exclusion allows, ONE on the other */
    int v_in_b = v >= ninp && v - ninp < noA;
    term t1 = {v, {{0}}}, t0 = {0, {{0}}}, tc = {v, {{0}}};
    bls12_381_fr_set_one(&t1.val), bls12_381_fr_set_one(&t0.val), bls12_381_fr_set_one(&tc.val);
    csr_row(&p->a, rows, v_in_b ? &t0 : &t1, 1);
    csr_row(&p->b, rows, v_in_b ? &t1 : &t0, 1);
    csr_row(&p->c, rows, &tc, 1);
    rows++;
  }
  free(used);
  total = rows + ninp;
  p->num_constraints = total;
  p->a.nrows = p->b.nrows = p->c.nrows = total;
  for (uint32_t i = 0; i < ninp; i++) { /* input rows: A = [(i, 1)] */
    term t = {i, {{0}}};
    bls12_381_fr_set_one(&t.val);
    csr_row(&p->a, rows + i, &t, 1);
    csr_row(&p->b, rows + i, NULL, 0);
    csr_row(&p->c, rows + i, NULL, 0);
  }
  p->total_nnz = p->a.nnz + p->b.nnz + p->c.nnz;
  density(&p->a_aux, &p->a, ninp, naux);
  density(&p->b_input, &p->b, 0, ninp);
  density(&p->b_aux, &p->b, ninp, naux);
  wtns_bytes(c);
}

static inline void circuit_free(circuit *c) {
  pce_csr *m[3] = {&c->p.a, &c->p.b, &c->p.c};
  for (int i = 0; i < 3; i++) free(m[i]->row_ptr), free(m[i]->col), free(m[i]->val);
  free(c->p.a_aux.words), free(c->p.b_input.words), free(c->p.b_aux.words);
  free(c->w), free(c->wt);
}

#endif
