/* bellperson-convention setup and proving (groth16/bp_setup.h, bp_prove.h)
 * on random satisfiable circuits built here as PCE matrices: every proof
 * verifies against the setup's vk, a changed witness is refused, a key of
 * another circuit is refused by its counts, and the result does not depend
 * on the thread count. */
#include "../harness.h"

#include "backend/backend.h"
#include "base/bytes.h"
#include "base/par.h"
#include "groth16/bp_prove.h"
#include "groth16/bp_setup.h"
#include "groth16/verify.h"

typedef bls12_381_fr fr;

/* A circuit of `rows` random constraints over ninp inputs (ONE first) and
 * naux aux variables, its input rows appended (PCE layout, FORMATS.md §7),
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

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void rand_fr(fr *x, uint64_t *s) {
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

static int term_cmp(const void *a, const void *b) {
  uint32_t x = ((const term *)a)->col, y = ((const term *)b)->col;
  return x < y ? -1 : x > y;
}

static void csr_alloc(pce_csr *m, uint64_t rows, uint64_t cap) {
  m->nrows = rows;
  m->row_ptr = calloc(rows + 1, sizeof *m->row_ptr);
  m->col = malloc((cap ? cap : 1) * sizeof *m->col);
  m->val = malloc((cap ? cap : 1) * sizeof *m->val);
  m->nnz = 0;
}

/* Appends row r's terms (sorted, duplicates merged, zeros dropped). */
static void csr_row(pce_csr *m, uint64_t r, term *t, size_t n) {
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

static void density(pce_density *d, const pce_csr *m, uint64_t first, uint64_t n) {
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

static fr dot(const term *t, size_t n, const fr *w) {
  fr s, p;
  bls12_381_fr_set_zero(&s);
  for (size_t i = 0; i < n; i++) {
    bls12_381_fr_mul(&p, &t[i].val, &w[t[i].col]);
    bls12_381_fr_add(&s, &s, &p);
  }
  return s;
}

static void wtns_bytes(circuit *c) {
  const size_t nv = c->p.num_inputs + c->p.num_aux;
  c->wt_len = 12 + 12 + 40 + 12 + 32 * nv;
  uint8_t *b = c->wt = calloc(1, c->wt_len);
  memcpy(b, "wtns", 4);
  wr_u32le(b + 4, 2);
  wr_u32le(b + 8, 2);
  wr_u32le(b + 12, 1);
  wr_u64le(b + 16, 40);
  wr_u32le(b + 24, 32);
  limbs_to_le(b + 28, bls12_381_fr_modulus, 4);
  wr_u32le(b + 60, (uint32_t)nv);
  wr_u32le(b + 64, 2);
  wr_u64le(b + 68, 32 * nv);
  for (size_t i = 0; i < nv; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &c->w[i]);
    limbs_to_le(b + 76 + 32 * i, x, 4);
  }
}

static void circuit_make(circuit *c, uint32_t ninp, uint32_t naux, uint32_t rows, uint64_t seed) {
  memset(c, 0, sizeof *c);
  const uint32_t nv = ninp + naux, total = rows + ninp;
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
  csr_alloc(&p->a, total, 3ull * total);
  csr_alloc(&p->b, total, 3ull * total);
  csr_alloc(&p->c, total, 1ull * total);
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
  }
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

static void circuit_free(circuit *c) {
  pce_csr *m[3] = {&c->p.a, &c->p.b, &c->p.c};
  for (int i = 0; i < 3; i++) free(m[i]->row_ptr), free(m[i]->col), free(m[i]->val);
  free(c->p.a_aux.words), free(c->p.b_input.words), free(c->p.b_aux.words);
  free(c->w), free(c->wt);
}

static void prove_ok(const circuit *c, const bp_params *pp, backend *be, groth16_proof *pr) {
  wtns_file w;
  cuzk_err err = {0};
  CHECK_EQ_INT(wtns_open_mem(&w, c->wt, c->wt_len, "w.wtns", &err), CUZK_OK);
  cuzk_status st = bp_prove(pr, pp, &c->p, &w, be, NULL, NULL, NULL, &err);
  CHECK_MSG(st == CUZK_OK, "bp_prove: %s: %s", cuzk_status_name(st), err.msg);
  wtns_close(&w);
}

/* The proof checked again here, from the vk, with the circuit's inputs. */
static cuzk_status verify_again(const circuit *c, const bp_params *pp, const groth16_proof *pr) {
  groth16_vk vk;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_vk_to_groth16(&pp->vk, &vk, &err), CUZK_OK);
  size_t np = c->p.num_inputs - 1;
  limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
  for (size_t i = 0; i < np; i++) bls12_381_fr_to_canon(pub[i], &c->w[i + 1]);
  cuzk_status st = groth16_verify(&vk, (const limb_t(*)[4])pub, np, pr, &err);
  free(pub);
  groth16_vk_fini(&vk);
  return st;
}

TEST(bp_setup_prove_verify_sizes) {
  backend *be = backend_cpu_new(0);
  static const struct {
    uint32_t ninp, naux, rows;
  } shapes[] = {{1, 3, 1}, {2, 5, 6}, {3, 40, 29}, {5, 300, 251}, {9, 1000, 1100}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    circuit c;
    circuit_make(&c, shapes[i].ninp, shapes[i].naux, shapes[i].rows, 100 + i);
    bp_params pp;
    cuzk_err err = {0};
    cuzk_status st = bp_setup(&pp, &c.p, 7 + i, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "setup %zu: %s", i, err.msg);
    CHECK_EQ_INT(bp_check_key(&pp, &c.p, "k", "c", &err), CUZK_OK);
    CHECK_EQ_INT(pp.n_h, ((size_t)1 << bp_lg_domain(c.p.num_constraints)) - 1);
    if (c.p.num_aux >= 8)
      CHECK(pp.n_a < c.p.num_inputs + c.p.num_aux && pp.n_b_g1 < c.p.num_inputs + c.p.num_aux);
    groth16_proof pr;
    prove_ok(&c, &pp, be, &pr);
    CHECK_EQ_INT(verify_again(&c, &pp, &pr), CUZK_OK);
    /* the proof of one statement is not a proof of another */
    if (c.p.num_inputs > 1) {
      bls12_381_fr_add(&c.w[1], &c.w[1], &bls12_381_fr_one_mont);
      CHECK_EQ_INT(verify_again(&c, &pp, &pr), CUZK_VERIFY_FAILED);
    }
    bp_params_free(&pp);
    circuit_free(&c);
  }
  backend_free(be);
}

/* A witness value changed breaks a row: the prover refuses to return the
 * proof (UNSATISFIED naming the witness). */
TEST(bp_prove_refuses_unsatisfying_witness) {
  backend *be = backend_cpu_new(0);
  circuit c;
  circuit_make(&c, 3, 60, 50, 3);
  bp_params pp;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_setup(&pp, &c.p, 1, NULL, &err), CUZK_OK);
  /* the variable of the first C term (non-zero value and coefficient):
   * its low bit flipped, the value still < r */
  CHECK(c.p.c.nnz > 0);
  c.wt[76 + 32 * (size_t)c.p.c.col[0]] ^= 1;
  wtns_file w;
  CHECK_EQ_INT(wtns_open_mem(&w, c.wt, c.wt_len, "bad.wtns", &err), CUZK_OK);
  groth16_proof pr;
  cuzk_status st = bp_prove(&pr, &pp, &c.p, &w, be, NULL, NULL, NULL, &err);
  CHECK_EQ_INT(st, CUZK_UNSATISFIED);
  CHECK_MSG(strstr(err.msg, "bad.wtns") && strstr(err.msg, "fails verification"), "%s", err.msg);
  wtns_close(&w);
  bp_params_free(&pp);
  circuit_free(&c);
  backend_free(be);
}

/* A key made for another circuit: refused by its counts before any work;
 * a witness of the wrong length likewise. */
TEST(bp_prove_refuses_other_circuits_key) {
  backend *be = backend_cpu_new(0);
  circuit c, d;
  circuit_make(&c, 3, 60, 50, 4);
  circuit_make(&d, 3, 61, 50, 5);
  bp_params pp;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_setup(&pp, &d.p, 1, NULL, &err), CUZK_OK);
  CHECK_EQ_INT(bp_check_key(&pp, &c.p, "d.params", "c.bin", &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "d.params") && strstr(err.msg, "c.bin") && strstr(err.msg, "l (the aux"),
            "%s", err.msg);
  wtns_file w;
  CHECK_EQ_INT(wtns_open_mem(&w, c.wt, c.wt_len, "c.wtns", &err), CUZK_OK);
  groth16_proof pr;
  CHECK_EQ_INT(bp_prove(&pr, &pp, &d.p, &w, be, NULL, NULL, NULL, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "c.wtns") && strstr(err.msg, "64 variables"), "%s", err.msg);
  wtns_close(&w);
  bp_params_free(&pp);
  circuit_free(&c);
  circuit_free(&d);
  backend_free(be);
}

/* Same seed, 1 or 2 threads: the same parameters, point for point. */
TEST(bp_setup_thread_count_independent) {
  circuit c;
  circuit_make(&c, 4, 200, 180, 6);
  bp_params p1, p2;
  cuzk_err err = {0};
  bp_setup_opts o1 = {.threads = 1}, o2 = {.threads = 2};
  CHECK_EQ_INT(bp_setup(&p1, &c.p, 9, &o1, &err), CUZK_OK);
  CHECK_EQ_INT(bp_setup(&p2, &c.p, 9, &o2, &err), CUZK_OK);
  CHECK_EQ_INT(p1.n_h, p2.n_h);
  CHECK(!memcmp(p1.h, p2.h, p1.n_h * sizeof *p1.h));
  CHECK(!memcmp(p1.l, p2.l, p1.n_l * sizeof *p1.l));
  CHECK(!memcmp(p1.b_g2, p2.b_g2, p1.n_b_g2 * sizeof *p1.b_g2));
  CHECK(!memcmp(&p1.vk.delta_g2, &p2.vk.delta_g2, sizeof p1.vk.delta_g2));
  bp_params p3;
  CHECK_EQ_INT(bp_setup(&p3, &c.p, 10, &o2, &err), CUZK_OK);
  CHECK(memcmp(p1.h, p3.h, p1.n_h * sizeof *p1.h) != 0);
  bp_params_free(&p1);
  bp_params_free(&p2);
  bp_params_free(&p3);
  circuit_free(&c);
}
