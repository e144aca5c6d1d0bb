/* The CPU backend's zkey_ab against a plain one-thread sum: coefficient
 * entries in row order (the sliced single pass) and in any order (the
 * row-owner fallback), every thread count from 1 to 7, rows shared by many
 * entries and slices that end inside a row; and its stop hook (backend.h):
 * no effect while unset, CANCELLED from every operation once set, and an
 * MSM stopped while it runs ending within a chunk. */
#include "harness.h"

#include <pthread.h>
#include <time.h>

#include "backend/backend.h"
#include "base/bytes.h"
#include "base/clock.h"

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

/* ------------------------------------------------------------ stop hook */

/* n pseudo-random G1 bases and canonical scalars (caller frees both). */
static void msm_inputs(uint8_t **bases, uint8_t **scalars, size_t n, size_t point_bytes,
                       bool g2, test_rng *g) {
  *bases = malloc(n * point_bytes), *scalars = malloc(32 * n);
  CHECK(*bases && *scalars);
  for (size_t i = 0; i < n; i++) rand_canon(*scalars + 32 * i, g);
  cuzk_status st = g2 ? msm_g2_gen_bases(*bases, n, test_rng_next(g), 2, NULL)
                      : msm_g1_gen_bases(*bases, n, test_rng_next(g), 2, NULL);
  CHECK(st == CUZK_OK);
}

/* Under an unset hook every operation gives the plain result; once it is
 * set, each returns CUZK_CANCELLED (backend.h). */
TEST(stop_hook_cancels_every_operation) {
  test_rng g = {test_seed()};
  const size_t n = 1024, nw = 64, ne = 3000, np = 700;
  uint8_t *ent = malloc(44 * ne), *wit = malloc(32 * nw), *h = malloc(32 * n), *b1, *s1, *b2,
          *s2;
  fr *a0 = malloc(n * sizeof *a0), *b0 = malloc(n * sizeof *b0), *a = malloc(n * sizeof *a),
     *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  CHECK(ent && wit && h && a0 && b0 && a && b && c);
  for (size_t i = 0; i < nw; i++) rand_canon(wit + 32 * i, &g);
  for (size_t i = 0; i < ne; i++)
    put_entry(ent + 44 * i, (uint32_t)(test_rng_next(&g) & 1), (uint32_t)(i * n / ne),
              (uint32_t)(test_rng_next(&g) % nw), &g);
  plain_ab(a0, b0, n, ent, ne, wit);
  msm_inputs(&b1, &s1, np, sizeof(bls12_381_g1_aff), false, &g);
  msm_inputs(&b2, &s2, np / 4, sizeof(bls12_381_g2_aff), true, &g);
  const msm_part p1 = {b1, s1, np}, p2 = {b2, s2, np / 4};
  bls12_381_g1_jac want1, got1;
  bls12_381_g2_jac want2, got2;
  CHECK(msm_g1_parts(&want1, &p1, 1, 1, NULL) == CUZK_OK);
  CHECK(msm_g2_parts(&want2, &p2, 1, 1, NULL) == CUZK_OK);

  backend *be = backend_cpu_new(2);
  CHECK(be);
  cuzk_stop stop;
  atomic_init(&stop, false);
  be->stop = &stop;
  CHECK(be->ops->zkey_ab(be, a, b, n, ent, ne, wit, nw, NULL) == CUZK_OK);
  CHECK(!memcmp(a, a0, n * sizeof *a) && !memcmp(b, b0, n * sizeof *b));
  CHECK(be->ops->quotient(be, h, a, b, c, 10, NULL) == CUZK_OK);
  CHECK(be->ops->msm_g1(be, &got1, &p1, 1, NULL) == CUZK_OK);
  CHECK(bls12_381_g1_jac_eq(&got1, &want1));
  CHECK(be->ops->msm_g2(be, &got2, &p2, 1, NULL) == CUZK_OK);
  CHECK(bls12_381_g2_jac_eq(&got2, &want2));

  atomic_store(&stop, true);
  cuzk_err err = {0};
  CHECK_EQ_INT(be->ops->zkey_ab(be, a, b, n, ent, ne, wit, nw, &err), CUZK_CANCELLED);
  CHECK_EQ_INT(be->ops->quotient(be, h, a, b, c, 10, &err), CUZK_CANCELLED);
  CHECK_EQ_INT(be->ops->msm_g1(be, &got1, &p1, 1, &err), CUZK_CANCELLED);
  CHECK_EQ_INT(be->ops->msm_g2(be, &got2, &p2, 1, &err), CUZK_CANCELLED);
  CHECK_MSG(strstr(err.msg, "cancelled"), "%s", err.msg);
  backend_free(be);
  free(ent), free(wit), free(h), free(a0), free(b0), free(a), free(b), free(c);
  free(b1), free(s1), free(b2), free(s2);
}

typedef struct {
  cuzk_stop *stop;
  double t_set;
} stopper;

static void *stop_later(void *arg) {
  stopper *s = arg;
  struct timespec ts = {0, 50 * 1000000L};
  nanosleep(&ts, NULL);
  s->t_set = cuzk_now_s();
  atomic_store(s->stop, true);
  return NULL;
}

/* A G1 MSM of 2^16 points on one thread (~0.5 s on the development
 * machine, its chunks of 2^15-2^16 points a few tens of milliseconds per
 * window) stopped 50 ms in returns CANCELLED within 200 ms of the stop. */
TEST(stop_hook_ends_msm_within_a_chunk) {
  test_rng g = {test_seed()};
  const size_t n = (size_t)1 << 16;
  uint8_t *bases, *scalars;
  msm_inputs(&bases, &scalars, n, sizeof(bls12_381_g1_aff), false, &g);
  const msm_part p = {bases, scalars, n};
  cuzk_stop stop;
  atomic_init(&stop, false);
  stopper s = {&stop, 0};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, stop_later, &s) == 0);
  bls12_381_g1_jac out;
  cuzk_err err = {0};
  cuzk_status st = msm_g1_parts_stoppable(&out, &p, 1, 1, &stop, &err);
  const double t_end = cuzk_now_s();
  pthread_join(th, NULL);
  CHECK_MSG(st == CUZK_CANCELLED, "the MSM ended (%s) before the stop: make it larger",
            cuzk_status_name(st));
  CHECK_MSG(t_end - s.t_set <= 0.2, "the MSM ran %.0f ms after the stop (at most 200)",
            (t_end - s.t_set) * 1e3);
  free(bases), free(scalars);
}
