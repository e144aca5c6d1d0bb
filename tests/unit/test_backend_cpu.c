/* The CPU backend's zkey_ab against a plain one-thread sum: coefficient
 * entries in row order (the sliced single pass) and in any order (the
 * row-owner fallback), every thread count from 1 to 7, rows shared by many
 * entries and slices that end inside a row. */
#include "harness.h"

#include "backend/backend.h"
#include "base/bytes.h"

typedef bls12_381_fr fr;

/* A canonical value below r (the top limb masked well under r's). */
static void rand_canon(uint8_t *p, test_rng *g) {
  limb_t s[4] = {test_rng_next(g), test_rng_next(g), test_rng_next(g),
                 test_rng_next(g) & 0x0fffffffffffffffULL};
  limbs_to_le(p, s, 4);
}

static void put_entry(uint8_t *e, uint32_t m, uint32_t row, uint32_t wire, test_rng *g) {
  memcpy(e, &m, 4), memcpy(e + 4, &row, 4), memcpy(e + 8, &wire, 4);
  rand_canon(e + 12, g);
}

/* The sum the backend must give, entry by entry. */
static void plain_ab(fr *a, fr *b, size_t n, const uint8_t *ent, size_t ne, const uint8_t *wit) {
  memset(a, 0, n * sizeof *a), memset(b, 0, n * sizeof *b);
  for (size_t i = 0; i < ne; i++) {
    const uint8_t *e = ent + 44 * i;
    uint32_t m, row, wire;
    memcpy(&m, e, 4), memcpy(&row, e + 4, 4), memcpy(&wire, e + 8, 4);
    fr c, w, t;
    limbs_from_le(c.l, e + 12, 4);
    limbs_from_le(w.l, wit + 32 * (size_t)wire, 4);
    bls12_381_fr_mul(&t, &c, &w);
    fr *d = m ? &b[row] : &a[row];
    bls12_381_fr_add(d, d, &t);
  }
}

static int by_row(const void *x, const void *y) {
  uint32_t r1, r2;
  memcpy(&r1, (const uint8_t *)x + 4, 4), memcpy(&r2, (const uint8_t *)y + 4, 4);
  return (r1 > r2) - (r1 < r2);
}

/* ne entries over n rows and nw wires; rows drawn from [0, rows_used). */
static void check(size_t n, size_t ne, size_t nw, size_t rows_used, int sorted, test_rng *g) {
  uint8_t *ent = malloc(44 * ne + 1), *wit = malloc(32 * nw);
  fr *a0 = malloc(n * sizeof *a0), *b0 = malloc(n * sizeof *b0), *a = malloc(n * sizeof *a),
     *b = malloc(n * sizeof *b);
  CHECK(ent && wit && a0 && b0 && a && b);
  for (size_t i = 0; i < nw; i++) rand_canon(wit + 32 * i, g);
  for (size_t i = 0; i < ne; i++)
    put_entry(ent + 44 * i, (uint32_t)(test_rng_next(g) & 1),
              (uint32_t)(test_rng_next(g) % rows_used), (uint32_t)(test_rng_next(g) % nw), g);
  if (sorted)
    qsort(ent, ne, 44, by_row);
  plain_ab(a0, b0, n, ent, ne, wit);
  for (unsigned t = 1; t <= 7; t++) {
    backend *be = backend_cpu_new(t);
    CHECK(be != NULL);
    memset(a, 0xa5, n * sizeof *a), memset(b, 0x5a, n * sizeof *b);
    CHECK(be->ops->zkey_ab(be, a, b, n, ent, ne, wit, nw, NULL) == CUZK_OK);
    CHECK_MSG(!memcmp(a, a0, n * sizeof *a) && !memcmp(b, b0, n * sizeof *b),
              "zkey_ab differs: n %zu, %zu entries, rows < %zu, %s, %u threads", n, ne, rows_used,
              sorted ? "sorted" : "unsorted", t);
    backend_free(be);
  }
  free(ent), free(wit), free(a0), free(b0), free(a), free(b);
}

TEST(zkey_ab_sorted_entries) {
  test_rng g = {test_seed()};
  check(1024, 5000, 300, 1024, 1, &g);
  check(1024, 5000, 300, 3, 1, &g); /* few rows: slices end inside rows */
  check(64, 7, 5, 64, 1, &g);       /* fewer entries than some thread counts */
  check(16, 1000, 9, 1, 1, &g);     /* one row for everything */
  check(8, 0, 1, 8, 1, &g);         /* no entries */
}

TEST(zkey_ab_unsorted_entries) {
  test_rng g = {test_seed()};
  check(1024, 5000, 300, 1024, 0, &g);
  check(64, 200, 17, 5, 0, &g);
}

/* snarkjs's own order: per row the A terms, then the B terms, then the
 * input rows at the end - sorted, so the single pass takes it. */
TEST(zkey_ab_snarkjs_order) {
  test_rng g = {test_seed()};
  const size_t n = 512, nw = 40, ne = 3 * 500 + 3;
  uint8_t *ent = malloc(44 * ne), *wit = malloc(32 * nw);
  fr *a0 = malloc(n * sizeof *a0), *b0 = malloc(n * sizeof *b0), *a = malloc(n * sizeof *a),
     *b = malloc(n * sizeof *b);
  CHECK(ent && wit && a0 && b0 && a && b);
  for (size_t i = 0; i < nw; i++) rand_canon(wit + 32 * i, &g);
  size_t k = 0;
  for (uint32_t row = 0; row < 500; row++) {
    put_entry(ent + 44 * k++, 0, row, (uint32_t)(test_rng_next(&g) % nw), &g);
    put_entry(ent + 44 * k++, 0, row, (uint32_t)(test_rng_next(&g) % nw), &g);
    put_entry(ent + 44 * k++, 1, row, (uint32_t)(test_rng_next(&g) % nw), &g);
  }
  for (uint32_t j = 0; j < 3; j++) put_entry(ent + 44 * k++, 0, 500 + j, j, &g);
  plain_ab(a0, b0, n, ent, ne, wit);
  backend *be = backend_cpu_new(3);
  CHECK(be && be->ops->zkey_ab(be, a, b, n, ent, ne, wit, nw, NULL) == CUZK_OK);
  CHECK(!memcmp(a, a0, n * sizeof *a) && !memcmp(b, b0, n * sizeof *b));
  backend_free(be);
  free(ent), free(wit), free(a0), free(b0), free(a), free(b);
}

/* The bounds contract of zkey_ab (cpu.c ab_add): an entry whose row is not
 * below n, whose wire is not below n_witness or whose matrix is not 0/1
 * (a key changed after its reader checked it) writes nothing outside a and
 * b - the guard elements after them keep their bytes - and the call fails
 * with FORMAT naming the entry; sorted (the sliced pass) and unsorted (the
 * row-owner pass), every thread count from 1 to 4. */
TEST(zkey_ab_entry_out_of_range_writes_nothing_outside) {
  test_rng g = {test_seed()};
  const size_t n = 64, nw = 9, ne = 200, guard = 4096;
  uint8_t *ent = malloc(44 * ne), *wit = malloc(32 * nw);
  fr *buf = malloc((2 * n + 2 * guard) * sizeof *buf);
  CHECK(ent && wit && buf);
  fr *a = buf, *ga = buf + n, *b = ga + guard, *gb = b + n;
  for (size_t i = 0; i < nw; i++) rand_canon(wit + 32 * i, &g);
  /* bad: 0 row n + 100 (inside a's guard or b's), 1 row 2^31, 2 wire nw,
   * 3 matrix 2 */
  for (int bad = 0; bad < 4; bad++) {
    for (int sorted = 0; sorted < 2; sorted++) {
      for (size_t i = 0; i < ne; i++)
        put_entry(ent + 44 * i, (uint32_t)(i & 1), (uint32_t)(sorted ? i * n / ne : (i * 37) % n),
                  (uint32_t)(i % nw), &g);
      const size_t at = ne / 2;
      uint32_t v = bad == 0 ? (uint32_t)n + 100 : bad == 1 ? 1u << 31 : bad == 2 ? (uint32_t)nw : 2;
      memcpy(ent + 44 * at + (bad == 2 ? 8 : bad == 3 ? 0 : 4), &v, 4);
      for (unsigned t = 1; t <= 4; t++) {
        backend *be = backend_cpu_new(t);
        CHECK(be != NULL);
        memset(ga, 0xa5, guard * sizeof *ga), memset(gb, 0x5a, guard * sizeof *gb);
        cuzk_err err = {0};
        cuzk_status st = be->ops->zkey_ab(be, a, b, n, ent, ne, wit, nw, &err);
        CHECK_MSG(st == CUZK_FORMAT, "bad %d, %s, %u threads: %s (%s)", bad,
                  sorted ? "sorted" : "unsorted", t, cuzk_status_name(st), err.msg);
        CHECK_MSG(strstr(err.msg, "coefficient entry") && strstr(err.msg, "out of bounds"), "%s",
                  err.msg);
        for (size_t k = 0; k < guard * sizeof *ga; k++) {
          CHECK_MSG(((uint8_t *)ga)[k] == 0xa5 && ((uint8_t *)gb)[k] == 0x5a,
                    "bad %d, %s, %u threads: guard byte %zu written", bad,
                    sorted ? "sorted" : "unsorted", t, k);
        }
        backend_free(be);
      }
    }
  }
  free(ent), free(wit), free(buf);
}
