/* PCE .bin: the reader's checks (hand-built files, each malformation named),
 * the writer's round trip, pce_eval against a dense evaluation, and the
 * development circuits' witnesses. */
#include <unistd.h>

#include "base/par.h"
#include "groth16/pce.h"
#include "groth16/pce_gen.h"
#include "groth16/pce_tables.h"
#include "harness.h"

/* ---- a hand-written file -------------------------------------------------
 * ni 2 (ONE, x), naux 2 (a0 = col 2, a1 = col 3), 3 rows:
 *   row 0: (x + a0) * a0 = a1         A [(1,1),(2,1)]  B [(2,1)]  C [(3,1)]
 *   rows 1, 2: the dummy rows           A [(0,1)], [(1,1)]
 * A nnz 4, B 1, C 1; a_aux = {0}, b_input = {}, b_aux = {0}. */
typedef struct {
  uint8_t b[4096];
  size_t n;
  size_t mark[32]; /* byte offsets of the sections, in order */
  int nmark;
} buf;

static void put(buf *x, const void *p, size_t n) {
  memcpy(x->b + x->n, p, n);
  x->n += n;
}
static void u32(buf *x, uint32_t v) { put(x, &v, 4); }
static void u64(buf *x, uint64_t v) { put(x, &v, 8); }
static void mark(buf *x) { x->mark[x->nmark++] = x->n; }

static const bls12_381_fr *one(void) { return &bls12_381_fr_one_mont; }

typedef struct {
  uint32_t rp[3][4];
  uint32_t col[3][2];
  int nnz[3];
  uint64_t dw[3], dbits[3], dpop[3];
  uint64_t total;
} tiny;

static void tiny_default(tiny *t) {
  memset(t, 0, sizeof *t);
  uint32_t rpa[4] = {0, 2, 3, 4}, rpb[4] = {0, 1, 1, 1};
  memcpy(t->rp[0], rpa, sizeof rpa);
  memcpy(t->rp[1], rpb, sizeof rpb);
  memcpy(t->rp[2], rpb, sizeof rpb);
  t->nnz[0] = 4, t->nnz[1] = 1, t->nnz[2] = 1;
  t->dw[0] = 1, t->dw[1] = 0, t->dw[2] = 1;
  t->dbits[0] = 2, t->dbits[1] = 2, t->dbits[2] = 2;
  t->dpop[0] = 1, t->dpop[1] = 0, t->dpop[2] = 1;
  t->total = 6;
}

static void tiny_bytes(buf *x, const tiny *t) {
  static const uint32_t cols[3][4] = {{1, 2, 0, 1}, {2}, {3}};
  memset(x, 0, sizeof *x);
  mark(x);
  put(x, "PCE\x02", 4);
  u32(x, 2), u32(x, 2), u32(x, 2), u32(x, 3);
  u64(x, t->total);
  u32(x, 0);
  for (int m = 0; m < 3; m++) {
    mark(x), u64(x, 4);
    mark(x);
    for (int i = 0; i < 4; i++)
      u32(x, t->rp[m][i]);
    mark(x), u64(x, (uint64_t)t->nnz[m]);
    mark(x);
    for (int i = 0; i < t->nnz[m]; i++)
      u32(x, cols[m][i]);
    mark(x), u64(x, (uint64_t)t->nnz[m]);
    mark(x);
    for (int i = 0; i < t->nnz[m]; i++)
      put(x, one(), 32);
  }
  for (int d = 0; d < 3; d++) {
    mark(x), u64(x, 1);
    mark(x), u64(x, t->dw[d]);
    mark(x), u64(x, t->dbits[d]), u64(x, t->dpop[d]);
  }
}

/* Parses x expecting failure with a message containing want. */
static void expect_fail(const buf *x, const char *want) {
  pce_file f;
  cuzk_err e;
  cuzk_err_clear(&e);
  cuzk_status st = pce_parse(&f, x->b, x->n, "t.bin", &e);
  CHECK_MSG(st != CUZK_OK, "accepted, expected \"%s\"", want);
  CHECK_MSG(strstr(e.msg, want) != NULL, "message \"%s\" lacks \"%s\"", e.msg, want);
  CHECK_MSG(strncmp(e.msg, "t.bin: ", 7) == 0, "message \"%s\" does not name the file", e.msg);
}

/* Offset of vals[k] of matrix m in the tiny file. */
static size_t val_at(const buf *x, int m, int k) { return x->mark[1 + m * 6 + 5] + 32 * (size_t)k; }
static size_t col_at(const buf *x, int m, int k) { return x->mark[1 + m * 6 + 3] + 4 * (size_t)k; }

TEST(pce_tiny_parses) {
  tiny t;
  buf x;
  tiny_default(&t);
  tiny_bytes(&x, &t);
  pce_file f;
  cuzk_err e;
  CHECK_MSG(pce_parse(&f, x.b, x.n, "t.bin", &e) == CUZK_OK, "%s", e.msg);
  CHECK_EQ_INT(f.num_inputs, 2);
  CHECK_EQ_INT(f.num_aux, 2);
  CHECK_EQ_INT(f.num_constraints, 3);
  CHECK_EQ_INT(f.total_nnz, 6);
  CHECK_EQ_INT(f.a.nnz, 4);
  CHECK_EQ_INT(f.a.row_ptr[1], 2);
  CHECK_EQ_INT(f.a.col[0], 1);
  CHECK_EQ_INT(f.a.col[1], 2);
  CHECK_EQ_INT(f.b.col[0], 2);
  CHECK_EQ_INT(f.c.col[0], 3);
  CHECK(bls12_381_fr_is_one(&f.c.val[0]));
  CHECK(pce_density_get(&f.a_aux, 0) && !pce_density_get(&f.a_aux, 1));
  CHECK(!pce_density_get(&f.b_input, 0) && !pce_density_get(&f.b_input, 1));
  CHECK(pce_density_get(&f.b_aux, 0));
  CHECK_EQ_INT(f.b_aux.popcount, 1);
  CHECK_EQ_INT(pce_domain_lg(&f), 2);
  /* x = 3, a0 = 2, a1 = (3 + 2) * 2 = 10 satisfies row 0. */
  bls12_381_fr w[4];
  bls12_381_fr_set_one(&w[0]);
  bls12_381_fr_set_u64(&w[1], 3), bls12_381_fr_set_u64(&w[2], 2), bls12_381_fr_set_u64(&w[3], 10);
  uint64_t bad;
  CHECK(pce_check(&f, w, &bad, NULL, &e) == CUZK_OK);
  bls12_381_fr_set_u64(&w[3], 11);
  CHECK(pce_check(&f, w, &bad, NULL, &e) == CUZK_UNSATISFIED);
  CHECK_EQ_INT(bad, 0);
  CHECK(strstr(e.msg, "row 0") != NULL);
  /* serialized again: the same bytes */
  uint8_t *out;
  size_t n;
  CHECK(pce_serialize(&f, &out, &n, &e) == CUZK_OK);
  CHECK_EQ_INT(n, x.n);
  CHECK_EQ_MEM(out, x.b, n);
  free(out);
  pce_close(&f);
}

TEST(pce_truncated_everywhere) {
  tiny t;
  buf x;
  tiny_default(&t);
  tiny_bytes(&x, &t);
  for (int i = 0; i < x.nmark; i++) { /* at each section boundary */
    buf y = x;
    y.n = x.mark[i];
    pce_file f;
    cuzk_err e;
    CHECK(pce_parse(&f, y.b, y.n, "t.bin", &e) == CUZK_FORMAT);
    CHECK_MSG(strstr(e.msg, "file ends at byte") || strstr(e.msg, "would run past the end"),
              "truncated at %zu: %s", y.n, e.msg);
  }
  for (size_t n = 0; n < x.n; n++) { /* and at every byte */
    pce_file f;
    CHECK(pce_parse(&f, x.b, n, "t.bin", NULL) == CUZK_FORMAT);
  }
}

TEST(pce_malformed) {
  tiny t;
  buf x;
  uint64_t big = (uint64_t)1 << 62;
  tiny_default(&t);
  tiny_bytes(&x, &t);
  buf y;
  y = x, memcpy(y.b, "PCE\x01", 4), expect_fail(&y, "not a PCE file");
  y = x, y.b[4] = 3;
  {
    pce_file f;
    cuzk_err e;
    CHECK(pce_parse(&f, y.b, y.n, "t.bin", &e) == CUZK_UNSUPPORTED);
    CHECK(strstr(e.msg, "version at byte 4 is 3, expected 2"));
  }
  y = x, memcpy(y.b + x.mark[1], &big, 8), expect_fail(&y, "A.row_ptrs count at byte 32 is");
  y = x, memcpy(y.b + x.mark[3], &big, 8), expect_fail(&y, "would run past the end");
  y = x, memcpy(y.b + x.mark[9], &big, 8), expect_fail(&y, "B.cols count");
  y = x, y.b[x.mark[5]] = 3, expect_fail(&y, "A.vals count at byte");
  /* row_ptrs */
  t.rp[0][1] = 4, tiny_bytes(&y, &t), expect_fail(&y, "A.row_ptrs[2] at byte 48 is 3, below row_ptrs[1] = 4");
  tiny_default(&t), t.rp[1][0] = 1, tiny_bytes(&y, &t), expect_fail(&y, "B.row_ptrs[0]");
  tiny_default(&t), t.rp[1][3] = 0, t.rp[1][2] = 0, t.rp[1][1] = 0, tiny_bytes(&y, &t),
      expect_fail(&y, "B.row_ptrs[3]");
  tiny_default(&t), tiny_bytes(&x, &t);
  /* columns */
  y = x, y.b[col_at(&x, 0, 1)] = 9, expect_fail(&y, "A.cols[1] at byte");
  expect_fail(&y, "is column 9, expected below num_inputs + num_aux = 4");
  y = x, y.b[col_at(&x, 0, 1)] = 1, expect_fail(&y, "not above the previous column 1");
  y = x, y.b[col_at(&x, 0, 0)] = 2, y.b[col_at(&x, 0, 1)] = 1, expect_fail(&y, "(row 0) is column 1, not above");
  /* values */
  y = x, memcpy(y.b + val_at(&x, 1, 0), bls12_381_fr_modulus, 32), expect_fail(&y, "B.vals[0]");
  expect_fail(&y, "is not below r");
  y = x, memset(y.b + val_at(&x, 2, 0), 0, 32), expect_fail(&y, "C.vals[0] at byte");
  expect_fail(&y, "is zero (zero coefficients are not stored)");
  /* total_nnz */
  tiny_default(&t), t.total = 7, tiny_bytes(&y, &t), expect_fail(&y, "total_nnz at byte 20 is 7, expected 6");
  /* dummy row: A row 2 with column 0 in place of input 1's column */
  y = x, y.b[col_at(&x, 0, 3)] = 0, expect_fail(&y, "is input 1's dummy row");
  {
    bls12_381_fr two;
    bls12_381_fr_dbl(&two, one());
    y = x, memcpy(y.b + val_at(&x, 0, 2), &two, 32), expect_fail(&y, "A row 1");
  }
  /* densities */
  tiny_default(&t), t.dw[0] = 1 | 1u << 5, t.dpop[0] = 2, tiny_bytes(&y, &t),
      expect_fail(&y, "a_aux.words[0] at byte");
  expect_fail(&y, "padding bits set above bit_len 2");
  tiny_default(&t), t.dpop[2] = 5, tiny_bytes(&y, &t), expect_fail(&y, "b_aux.popcount at byte");
  expect_fail(&y, "is 5, expected 1");
  tiny_default(&t), t.dw[0] = 3, t.dpop[0] = 2, tiny_bytes(&y, &t),
      expect_fail(&y, "a_aux bit 1 (a_aux.words[0] at byte");
  expect_fail(&y, "is 1, but column 3 (aux 1) has no term in A");
  tiny_default(&t), t.dw[1] = 1, t.dpop[1] = 1, tiny_bytes(&y, &t),
      expect_fail(&y, "b_input bit 0");
  tiny_default(&t), t.dw[2] = 0, t.dpop[2] = 0, tiny_bytes(&y, &t),
      expect_fail(&y, "is 0, but column 2 (aux 0) has a term in B");
  tiny_default(&t), t.dbits[1] = 3, tiny_bytes(&y, &t), expect_fail(&y, "b_input.bit_len at byte");
  /* trailing */
  y = x, y.b[y.n++] = 0, expect_fail(&y, "1 trailing bytes at byte");
}

/* ---- generated circuits ------------------------------------------------ */

static void gen(pce_file *f, pce_gen_plan *p, const char *shape, unsigned k) {
  cuzk_err e;
  CHECK_MSG(pce_gen_plan_make(p, pce_shape_find(shape), k, &e) == CUZK_OK, "%s", e.msg);
  CHECK_MSG(pce_gen_circuit(f, p, &e) == CUZK_OK, "%s", e.msg);
  CHECK_MSG(pce_validate(f, "gen", &e) == CUZK_OK, "%s %u: %s", shape, k, e.msg);
}

static const char *const SHAPES[] = {"porep-32g", "snap-32g", "wpost-32g", "winning-32g"};

TEST(pce_full_scale_plans) {
  pce_gen_plan p;
  cuzk_err e;
  CHECK(pce_gen_plan_make(&p, pce_shape_find("porep-32g"), 0, &e) == CUZK_OK);
  CHECK_EQ_INT(p.rows, 130278869);
  CHECK_EQ_INT(p.ni, 328);
  CHECK_EQ_INT(p.naux, 130169893);
  uint64_t a = p.n_in + p.nb + p.nx + p.nk + p.pack_terms + p.ni, b = p.rows - p.ni,
           c = p.n_in + p.nb + 3 * p.nx + p.np + p.nk;
  CHECK_EQ_INT(a + b + c, 722388891);
  CHECK(a > 309350000 && a < 309450000);
  CHECK_EQ_INT(p.nb, 33112281); /* b_aux popcount */
  for (int s = 1; s < 4; s++)
    CHECK(pce_gen_plan_make(&p, pce_shape_find(SHAPES[s]), 0, &e) == CUZK_OK);
  CHECK(pce_shape_find("nope") == NULL);
}

TEST(pce_roundtrip) {
  pce_file f, g;
  pce_gen_plan p;
  cuzk_err e;
  gen(&f, &p, "porep-32g", 12);
  uint8_t *b1, *b2;
  size_t n1, n2;
  CHECK(pce_serialize(&f, &b1, &n1, &e) == CUZK_OK);
  CHECK_EQ_INT(n1, pce_file_bytes(&f));
  CHECK_MSG(pce_parse(&g, b1, n1, "mem", &e) == CUZK_OK, "%s", e.msg);
  CHECK(pce_serialize(&g, &b2, &n2, &e) == CUZK_OK);
  CHECK_EQ_INT(n1, n2);
  CHECK_EQ_MEM(b1, b2, n1);
  char path[] = "/tmp/cuzk-pce-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  CHECK_MSG(pce_write(&f, path, &e) == CUZK_OK, "%s", e.msg);
  pce_close(&g);
  CHECK_MSG(pce_open(&g, path, &e) == CUZK_OK, "%s", e.msg);
  free(b2);
  CHECK(pce_serialize(&g, &b2, &n2, &e) == CUZK_OK);
  CHECK_EQ_INT(n2, n1);
  CHECK_EQ_MEM(b1, b2, n1);
  unlink(path);
  free(b1), free(b2);
  pce_close(&f), pce_close(&g);
}

/* a, b, c by expanding each row into a dense vector over every column. */
TEST(pce_eval_matches_dense) {
  for (int s = 0; s < 4; s++) {
    pce_file f;
    pce_gen_plan p;
    gen(&f, &p, SHAPES[s], 10);
    uint64_t nv = p.ni + p.naux, nc = f.num_constraints;
    bls12_381_fr *w = malloc(nv * 32), *out = malloc(3 * nc * 32), *row = malloc(nv * 32);
    test_rng r = {test_seed() + (uint64_t)s};
    for (uint64_t i = 0; i < nv; i++)
      bls12_381_fr_set_u64(&w[i], test_rng_next(&r));
    bls12_381_fr_set_one(&w[0]);
    cuzk_err e;
    CHECK(pce_eval(&f, w, out, out + nc, out + 2 * nc, 0, NULL, &e) == CUZK_OK);
    const pce_csr *M[3] = {&f.a, &f.b, &f.c};
    for (int m = 0; m < 3; m++)
      for (uint64_t i = 0; i < nc; i++) {
        memset(row, 0, nv * 32);
        for (uint64_t k = M[m]->row_ptr[i]; k < M[m]->row_ptr[i + 1]; k++)
          row[M[m]->col[k]] = M[m]->val[k];
        bls12_381_fr acc, t;
        bls12_381_fr_set_zero(&acc);
        for (uint64_t j = 0; j < nv; j++) {
          bls12_381_fr_mul(&t, &row[j], &w[j]);
          bls12_381_fr_add(&acc, &acc, &t);
        }
        CHECK_MSG(bls12_381_fr_eq(&acc, &out[m * nc + i]), "%s %c row %llu", SHAPES[s], "ABC"[m],
                  (unsigned long long)i);
      }
    free(w), free(out), free(row);
    pce_close(&f);
  }
}

TEST(pce_gen_witnesses_satisfy) {
  for (int s = 0; s < 4; s++)
    for (unsigned k = 9; k <= 14; k += 5) {
      pce_file f;
      pce_gen_plan p;
      gen(&f, &p, SHAPES[s], k);
      uint64_t nv = p.ni + p.naux;
      bls12_381_fr *w = malloc(nv * 32), *w2 = malloc(nv * 32);
      cuzk_err e;
      uint64_t bad;
      pce_gen_witness(&p, 7, 0, w);
      CHECK_MSG(pce_check(&f, w, &bad, NULL, &e) == CUZK_OK, "%s %u: %s", SHAPES[s], k, e.msg);
      pce_gen_witness(&p, 7, 1, w2); /* another partition: other inputs, also satisfying */
      CHECK(pce_check(&f, w2, &bad, NULL, &e) == CUZK_OK);
      CHECK(memcmp(&w[1], &w2[1], 32) != 0);
      /* mostly 0/1 */
      uint64_t bits = 0;
      for (uint64_t i = 0; i < nv; i++)
        bits += bls12_381_fr_is_zero(&w[i]) || bls12_381_fr_is_one(&w[i]);
      CHECK_MSG(bits * 10 > nv * 7, "%llu of %llu are 0/1", (unsigned long long)bits,
                (unsigned long long)nv);
      /* the first BOOL bit: its BOOL row (row n_in) fails first */
      bls12_381_fr_set_u64(&w[p.ni + p.n_in], 2);
      CHECK(pce_check(&f, w, &bad, NULL, &e) == CUZK_UNSATISFIED);
      CHECK_EQ_INT(bad, p.n_in);
      /* input 1: its input row (row 0) */
      pce_gen_witness(&p, 7, 0, w);
      bls12_381_fr_add(&w[1], &w[1], &w[0]);
      CHECK(pce_check(&f, w, &bad, NULL, &e) == CUZK_UNSATISFIED);
      CHECK_EQ_INT(bad, 0);
      CHECK(strstr(e.msg, "row 0:") != NULL);
      free(w), free(w2);
      pce_close(&f);
    }
}

TEST(pce_gen_proportions) {
  pce_file f;
  pce_gen_plan p;
  gen(&f, &p, "porep-32g", 16);
  double a = (double)f.a_aux.popcount / f.num_aux, b = (double)f.b_aux.popcount / f.num_aux;
  CHECK_MSG(a > 0.99 && a <= 1.0, "a_aux density %.4f", a);
  CHECK_MSG(b > 0.24 && b < 0.27, "b_aux density %.4f", b);
  CHECK_EQ_INT(f.b_input.popcount, 1);
  CHECK_EQ_INT(pce_domain_lg(&f), 16);
  double an = (double)f.a.nnz / f.num_constraints, cn = (double)f.c.nnz / f.num_constraints;
  CHECK_MSG(an > 2.3 && an < 2.45, "A nnz/row %.3f", an);
  CHECK_MSG(cn > 2.1 && cn < 2.25, "C nnz/row %.3f", cn);
  pce_close(&f);
}

TEST(pce_eval_stops) {
  pce_file f;
  pce_gen_plan p;
  gen(&f, &p, "porep-32g", 10);
  uint64_t nv = p.ni + p.naux, nc = f.num_constraints;
  bls12_381_fr *w = calloc(nv, 32), *out = malloc(3 * nc * 32);
  bls12_381_fr_set_one(&w[0]);
  cuzk_stop stop;
  atomic_init(&stop, true);
  cuzk_err e;
  CHECK(pce_eval(&f, w, out, out + nc, out + 2 * nc, 0, &stop, &e) == CUZK_CANCELLED);
  CHECK(pce_check(&f, w, NULL, &stop, &e) == CUZK_CANCELLED);
  atomic_store(&stop, false);
  CHECK(pce_eval(&f, w, out, out + nc, out + 2 * nc, 0, &stop, &e) == CUZK_OK);
  free(w), free(out);
  pce_close(&f);
}

TEST(pce_open_errors) {
  pce_file f;
  cuzk_err e;
  CHECK(pce_open(&f, "/nonexistent/pce.bin", &e) == CUZK_IO);
  CHECK(strstr(e.msg, "/nonexistent/pce.bin") != NULL);
  char path[] = "/tmp/cuzk-pce-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  CHECK(write(fd, "PCE\x02\x02\x00\x00\x00", 8) == 8);
  close(fd);
  CHECK(pce_open(&f, path, &e) == CUZK_FORMAT);
  CHECK(strstr(e.msg, "inside the 32-byte header") != NULL);
  unlink(path);
}

/* Over PAR_MIN rows the checks run on several workers: the failure reported
 * is still the first in the file. */
TEST(pce_parallel_first_failure) {
  par_set_threads(4);
  pce_file f;
  pce_gen_plan p;
  gen(&f, &p, "porep-32g", 18);
  CHECK(f.num_constraints > 3 * 65536); /* over PAR_MIN: 4 workers */
  uint8_t *b;
  size_t n;
  cuzk_err e;
  CHECK(pce_serialize(&f, &b, &n, &e) == CUZK_OK);
  uint64_t cols_at = 32 + 8 + (f.a.nrows + 1) * 4 + 8; /* A.cols[0] */
  uint64_t early = f.a.nnz / 3, late = f.a.nnz * 5 / 6;
  uint32_t big = 0xfffffff0u;
  memcpy(b + cols_at + 4 * late, &big, 4);
  memcpy(b + cols_at + 4 * early, &big, 4);
  pce_file g;
  CHECK(pce_parse(&g, b, n, "par.bin", &e) == CUZK_FORMAT);
  char want[64];
  snprintf(want, sizeof want, "A.cols[%llu] at byte %llu", (unsigned long long)early,
           (unsigned long long)(cols_at + 4 * early));
  CHECK_MSG(strstr(e.msg, want) != NULL, "%s lacks %s", e.msg, want);
  free(b);
  pce_close(&f);
}

/* ---- value tables (pce_tables.h) ---- */

/* Every entry's code stands for its value (+-1, or the table's), on 1 and
 * on 4 workers; the count alone agrees; a table is refused once distinct
 * values pass one in PCE_TABLE_SHARE entries. */
static void check_table(const bls12_381_fr *val, size_t nnz, size_t want_ntab) {
  bls12_381_fr one, minus_one;
  bls12_381_fr_set_one(&one);
  bls12_381_fr_neg(&minus_one, &one);
  for (unsigned th = 1; th <= 4; th += 3) {
    par_set_threads(th);
    uint32_t *code;
    void *tab;
    size_t ntab, count;
    CHECK(pce_table_build(val, nnz, &code, &tab, &ntab));
    CHECK_MSG(ntab == want_ntab, "%zu distinct, want %zu (%u workers)", ntab, want_ntab, th);
    CHECK(pce_table_build(val, nnz, NULL, NULL, &count) && count == ntab);
    const bls12_381_fr *t = tab;
    for (size_t e = 0; e < nnz; e++) {
      const bls12_381_fr *v = code[e] == PCE_CODE_ONE         ? &one
                              : code[e] == PCE_CODE_MINUS_ONE ? &minus_one
                              : code[e] - PCE_CODE_TAB < ntab ? &t[code[e] - PCE_CODE_TAB]
                                                              : NULL;
      CHECK_MSG(v && !memcmp(v, &val[e], sizeof *v), "entry %zu: code %u", e, code[e]);
    }
    free(code);
    free(tab);
  }
  par_set_threads(0);
}

TEST(pce_tables) {
  const size_t n = 40000;
  bls12_381_fr *v = malloc(n * sizeof *v);
  CHECK(v);
  bls12_381_fr one;
  bls12_381_fr_set_one(&one);
  for (size_t e = 0; e < n; e++) bls12_381_fr_neg(&v[e], &one), v[e] = e % 3 ? one : v[e];
  check_table(v, n, 0); /* +-1 alone: an empty table */
  for (size_t e = 0; e < n; e += 7) bls12_381_fr_set_u64(&v[e], 2 + e % 9); /* 2..10 */
  check_table(v, n, 9);
  /* n / 4 distinct values pay, one more does not */
  for (size_t e = 0; e < n; e++) bls12_381_fr_set_u64(&v[e], 2 + e % (n / PCE_TABLE_SHARE));
  check_table(v, n, n / PCE_TABLE_SHARE);
  bls12_381_fr_set_u64(&v[1], 1000000007);
  size_t ntab = 7;
  uint32_t *code = (uint32_t *)&ntab;
  void *tab = &ntab;
  CHECK(!pce_table_build(v, n, &code, &tab, &ntab) && !code && !tab && ntab == 0);
  CHECK(!pce_table_build(v, n, NULL, NULL, &ntab));
  CHECK(!pce_table_build(v, 0, &code, &tab, &ntab)); /* no entries: nothing to code */
  free(v);
}
