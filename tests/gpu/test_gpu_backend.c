/* The CUDA backend against the CPU backend, operation by operation, through
 * backend.h: zkey_ab, quotient, msm_g1 (one part and several, sparse
 * inputs), msm_g2, for exact equality.  Inputs are random from the run's
 * seed (harness.h: fixed unless --seed or CUZK_TEST_SEED names one;
 * "random" for a fresh one); every output buffer is poisoned before each
 * run.  Skipped, with the reason, where the registry (backend_device_new)
 * finds no usable GPU (CI); the emu_* cases run the backend emulated
 * (backend_device_opts.emulate) there too.  And the stop hook: every
 * operation CANCELLED once it is set, the backend exact again after. */

#include "harness.h"

#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/device.h"
#include "cuda/ab_gpu.h"
#include "gpu_test.h"
#include "msm/msm.h"

/* A canonical scalar below r: 255 random bits, top limb masked below r's. */
static void rand_scalar(uint8_t *p, test_rng *g) {
  limb_t s[4] = {test_rng_next(g), test_rng_next(g), test_rng_next(g),
                 test_rng_next(g) & 0x3fffffffffffffffULL};
  limbs_to_le(p, s, 4);
}

static void rand_fr(bls12_381_fr *a, size_t n, test_rng *g) {
  for (size_t i = 0; i < n; i++) {
    limb_t s[4] = {test_rng_next(g), test_rng_next(g), test_rng_next(g),
                   test_rng_next(g) & 0x3fffffffffffffffULL};
    memcpy(a[i].l, s, sizeof s);
  }
}

TEST_TIMEOUT(quotient_matches_cpu, 600) {
  backend *gb = gpu_or_skip(), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  for (unsigned lg = 1; lg <= 20; lg += (lg < 12 ? 1 : 4)) {
    size_t n = (size_t)1 << lg;
    bls12_381_fr *in = malloc(2 * n * sizeof *in), *w = malloc(3 * n * sizeof *w);
    uint8_t *h1 = malloc(32 * n), *h2 = malloc(32 * n);
    CHECK(in && w && h1 && h2);
    rand_fr(in, 2 * n, &g);
    memcpy(w, in, 2 * n * sizeof *w);
    memset(h1, 0x5a, 32 * n);
    CHECK(cb->ops->quotient(cb, h1, w, w + n, w + 2 * n, lg, NULL) == CUZK_OK);
    memcpy(w, in, 2 * n * sizeof *w);
    memset(h2, 0xa5, 32 * n);
    cuzk_err err = {0};
    CHECK_MSG(gb->ops->quotient(gb, h2, w, w + n, w + 2 * n, lg, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(memcmp(h1, h2, 32 * n) == 0, "quotient 2^%u differs", lg);
    free(in), free(w), free(h1), free(h2);
  }
  backend_free(gb), backend_free(cb);
}

/* n points; some bases infinity and some scalars 0 or 1 when sparse. */
static void msm_case(backend *gb, backend *cb, int group, size_t n, int sparse, test_rng *g) {
  size_t pb = group == 1 ? sizeof(bls12_381_g1_aff) : sizeof(bls12_381_g2_aff);
  uint8_t *bases = malloc(n * pb), *sc = malloc(32 * n);
  CHECK(bases && sc);
  cuzk_status st = group == 1 ? msm_g1_gen_bases(bases, n, test_rng_next(g), 0, NULL)
                              : msm_g2_gen_bases(bases, n, test_rng_next(g), 0, NULL);
  CHECK(st == CUZK_OK);
  for (size_t i = 0; i < n; i++) {
    rand_scalar(sc + 32 * i, g);
    if (sparse) {
      uint64_t k = test_rng_next(g) % 6;
      if (k == 0)
        memset(bases + i * pb, 0, pb);
      else if (k == 1 || k == 2)
        memset(sc + 32 * i, 0, 32), sc[32 * i] = (uint8_t)(k - 1); /* 0 or 1 */
    }
  }
  size_t cut = n / 3;
  msm_part parts[2] = {{bases, sc, cut}, {bases + cut * pb, sc + 32 * cut, n - cut}};
  for (size_t np = 1; np <= 2; np++) {
    msm_part one = {bases, sc, n};
    const msm_part *pp = np == 1 ? &one : parts;
    cuzk_err err = {0};
    if (group == 1) {
      bls12_381_g1_jac want, got;
      memset(&got, 0xa5, sizeof got);
      CHECK(cb->ops->msm_g1(cb, &want, pp, np, NULL) == CUZK_OK);
      CHECK_MSG(gb->ops->msm_g1(gb, &got, pp, np, &err) == CUZK_OK, "%s", err.msg);
      CHECK_MSG(bls12_381_g1_jac_eq(&got, &want), "G1 n=%zu sparse=%d parts=%zu differs", n,
                sparse, np);
    } else {
      bls12_381_g2_jac want, got;
      memset(&got, 0xa5, sizeof got);
      CHECK(cb->ops->msm_g2(cb, &want, pp, np, NULL) == CUZK_OK);
      CHECK_MSG(gb->ops->msm_g2(gb, &got, pp, np, &err) == CUZK_OK, "%s", err.msg);
      CHECK_MSG(bls12_381_g2_jac_eq(&got, &want), "G2 n=%zu sparse=%d parts=%zu differs", n,
                sparse, np);
    }
  }
  free(bases), free(sc);
}

TEST_TIMEOUT(msm_g1_matches_cpu, 900) {
  backend *gb = gpu_or_skip(), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const size_t ns[] = {1, 2, 3, 31, 64, 1000, 4097, 65537, (1u << 18) + 11};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    for (int sparse = 0; sparse <= 1; sparse++) msm_case(gb, cb, 1, ns[i], sparse, &g);
  backend_free(gb), backend_free(cb);
}

TEST_TIMEOUT(msm_g2_matches_cpu, 900) {
  backend *gb = gpu_or_skip(), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const size_t ns[] = {1, 5, 64, 1000, 20011};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    for (int sparse = 0; sparse <= 1; sparse++) msm_case(gb, cb, 2, ns[i], sparse, &g);
  backend_free(gb), backend_free(cb);
}

/* hold_bases on: the same base arrays with fresh scalars each round, G1 in
 * two parts (as C + H) and G2 in one, equal to the CPU backend; then off. */
TEST_TIMEOUT(msm_resident_matches_cpu, 900) {
  backend *gb = gpu_or_skip(), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const size_t n1 = 100003, n2 = 20011;
  uint8_t *b1 = malloc(n1 * sizeof(bls12_381_g1_aff)), *b2 = malloc(n2 * sizeof(bls12_381_g2_aff));
  uint8_t *sc = malloc(32 * n1);
  CHECK(b1 && b2 && sc);
  CHECK(msm_g1_gen_bases(b1, n1, test_rng_next(&g), 0, NULL) == CUZK_OK);
  CHECK(msm_g2_gen_bases(b2, n2, test_rng_next(&g), 0, NULL) == CUZK_OK);
  CHECK(gb->ops->hold_bases != NULL);
  CHECK(gb->ops->hold_bases(gb, true, NULL) == CUZK_OK);
  const size_t cut = n1 / 3;
  msm_part p1[2] = {{b1, sc, cut}, {b1 + cut * sizeof(bls12_381_g1_aff), sc + 32 * cut, n1 - cut}};
  msm_part p2 = {b2, sc, n2};
  for (int round = 0; round < 3; round++) {
    for (size_t i = 0; i < n1; i++) rand_scalar(sc + 32 * i, &g);
    cuzk_err err = {0};
    bls12_381_g1_jac w1, g1;
    bls12_381_g2_jac w2, g2;
    memset(&g1, 0xa5, sizeof g1), memset(&g2, 0xa5, sizeof g2);
    CHECK(cb->ops->msm_g1(cb, &w1, p1, 2, NULL) == CUZK_OK);
    CHECK_MSG(gb->ops->msm_g1(gb, &g1, p1, 2, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(bls12_381_g1_jac_eq(&g1, &w1), "resident G1, round %d, differs", round);
    CHECK(cb->ops->msm_g2(cb, &w2, &p2, 1, NULL) == CUZK_OK);
    CHECK_MSG(gb->ops->msm_g2(gb, &g2, &p2, 1, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(bls12_381_g2_jac_eq(&g2, &w2), "resident G2, round %d, differs", round);
    if (round == 1) /* new bases in the same arrays: the caller drops the copies first */
      CHECK(gb->ops->hold_bases(gb, false, NULL) == CUZK_OK &&
            msm_g1_gen_bases(b1, n1, test_rng_next(&g), 0, NULL) == CUZK_OK &&
            gb->ops->hold_bases(gb, true, NULL) == CUZK_OK);
  }
  CHECK(gb->ops->hold_bases(gb, false, NULL) == CUZK_OK);
  free(b1), free(b2), free(sc);
  backend_free(gb), backend_free(cb);
}

TEST(zkey_ab_matches_cpu) {
  backend *gb = gpu_or_skip(), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const size_t n = 4096, nw = 1000, ne = 20000;
  uint8_t *ent = malloc(44 * ne), *wit = malloc(32 * nw);
  bls12_381_fr *a1 = malloc(n * sizeof *a1), *b1 = malloc(n * sizeof *b1),
               *a2 = malloc(n * sizeof *a2), *b2 = malloc(n * sizeof *b2);
  CHECK(ent && wit && a1 && b1 && a2 && b2);
  for (size_t i = 0; i < nw; i++) rand_scalar(wit + 32 * i, &g);
  for (size_t i = 0; i < ne; i++) {
    uint8_t *e = ent + 44 * i;
    uint32_t m = (uint32_t)(test_rng_next(&g) & 1), row = (uint32_t)(test_rng_next(&g) % n),
             wire = (uint32_t)(test_rng_next(&g) % nw);
    memcpy(e, &m, 4), memcpy(e + 4, &row, 4), memcpy(e + 8, &wire, 4);
    rand_scalar(e + 12, &g);
  }
  memset(a2, 0xa5, n * sizeof *a2), memset(b2, 0xa5, n * sizeof *b2);
  CHECK(cb->ops->zkey_ab(cb, a1, b1, n, ent, ne, wit, nw, NULL) == CUZK_OK);
  CHECK(gb->ops->zkey_ab(gb, a2, b2, n, ent, ne, wit, nw, NULL) == CUZK_OK);
  CHECK(memcmp(a1, a2, n * sizeof *a1) == 0 && memcmp(b1, b2, n * sizeof *b1) == 0);
  free(ent), free(wit), free(a1), free(b1), free(a2), free(b2);
  backend_free(gb), backend_free(cb);
}

/* ne coefficient entries over n rows, sorted by row (as snarkjs writes
 * them; rows_used < n leaves the top rows empty), for nw witness values. */
static uint8_t *sorted_entries(size_t ne, size_t rows_used, size_t nw, test_rng *g) {
  uint8_t *ent = malloc(44 * ne + 1);
  CHECK(ent != NULL);
  uint32_t row = 0;
  for (size_t i = 0; i < ne; i++) {
    if (test_rng_next(g) % 3 == 0 && row + 1 < rows_used)
      row += 1 + (uint32_t)(test_rng_next(g) % 2); /* some rows get no entry */
    if (row >= rows_used)
      row = (uint32_t)rows_used - 1;
    uint8_t *e = ent + 44 * i;
    uint32_t m = (uint32_t)(test_rng_next(g) & 1), wire = (uint32_t)(test_rng_next(g) % nw);
    memcpy(e, &m, 4), memcpy(e + 4, &row, 4), memcpy(e + 8, &wire, 4);
    rand_scalar(e + 12, g);
  }
  return ent;
}

/* cuda/ab_gpu.h emulated (runs in CI): a, b equal to the CPU backend's for
 * row-sorted entries with fresh witnesses; unsorted entries refused. */
TEST(ab_emulated_matches_cpu) {
  backend *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const size_t n = 1024, nw = 300, ne = 3000;
  uint8_t *ent = sorted_entries(ne, 900, nw, &g), *wit = malloc(32 * nw);
  bls12_381_fr *a1 = malloc(n * sizeof *a1), *b1 = malloc(n * sizeof *b1),
               *a2 = malloc(n * sizeof *a2), *b2 = malloc(n * sizeof *b2);
  CHECK(wit && a1 && b1 && a2 && b2);
  cuda_ab *ab = NULL;
  cuzk_err err = {0};
  CHECK_MSG(cuda_ab_new(&ab, ent, ne, n, nw, true, &err) == CUZK_OK, "%s", err.msg);
  CHECK(cuda_ab_match(ab, ent, ne, n, nw) && !cuda_ab_match(ab, ent, ne - 1, n, nw));
  for (int round = 0; round < 2; round++) {
    for (size_t i = 0; i < nw; i++) rand_scalar(wit + 32 * i, &g);
    memset(a2, 0xa5, n * sizeof *a2), memset(b2, 0x5a, n * sizeof *b2);
    CHECK(cb->ops->zkey_ab(cb, a1, b1, n, ent, ne, wit, nw, NULL) == CUZK_OK);
    CHECK_MSG(cuda_ab_run(ab, a2, b2, wit, NULL, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(!memcmp(a1, a2, n * sizeof *a1) && !memcmp(b1, b2, n * sizeof *b1),
              "emulated a, b differ from the CPU's, round %d", round);
  }
  cuda_ab_free(ab);
  /* Two entries swapped out of row order: refused, the caller uses the CPU. */
  uint8_t tmp[44];
  memcpy(tmp, ent, 44), memcpy(ent, ent + 44 * (ne - 1), 44), memcpy(ent + 44 * (ne - 1), tmp, 44);
  CHECK_EQ_INT(cuda_ab_new(&ab, ent, ne, n, nw, true, &err), CUZK_UNSUPPORTED);
  CHECK(ab == NULL);
  free(ent), free(wit), free(a1), free(b1), free(a2), free(b2);
  backend_free(cb);
}

/* The backend with hold_bases on computes a, b on the GPU for row-sorted
 * entries (and on the CPU for unsorted ones): equal to the CPU backend. */
TEST(zkey_ab_resident_matches_cpu) {
  backend *gb = gpu_or_skip(), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const size_t n = 1u << 16, nw = 50000, ne = 200000;
  uint8_t *ent = sorted_entries(ne, n - 3, nw, &g), *wit = malloc(32 * nw);
  bls12_381_fr *a1 = malloc(n * sizeof *a1), *b1 = malloc(n * sizeof *b1),
               *a2 = malloc(n * sizeof *a2), *b2 = malloc(n * sizeof *b2);
  CHECK(wit && a1 && b1 && a2 && b2);
  CHECK(gb->ops->hold_bases(gb, true, NULL) == CUZK_OK);
  for (int round = 0; round < 3; round++) {
    for (size_t i = 0; i < nw; i++) rand_scalar(wit + 32 * i, &g);
    memset(a2, 0xa5, n * sizeof *a2), memset(b2, 0x5a, n * sizeof *b2);
    CHECK(cb->ops->zkey_ab(cb, a1, b1, n, ent, ne, wit, nw, NULL) == CUZK_OK);
    cuzk_err err = {0};
    CHECK_MSG(gb->ops->zkey_ab(gb, a2, b2, n, ent, ne, wit, nw, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(!memcmp(a1, a2, n * sizeof *a1) && !memcmp(b1, b2, n * sizeof *b1),
              "resident a, b differ from the CPU's, round %d", round);
  }
  CHECK(gb->ops->hold_bases(gb, false, NULL) == CUZK_OK);
  free(ent), free(wit), free(a1), free(b1), free(a2), free(b2);
  backend_free(gb), backend_free(cb);
}

/* ---- the backend emulated: CI ---- */

static backend *emulated(bool pass1_table) {
  const backend_device_opts o = {.emulate = true, .ntt_pass1_table = pass1_table};
  cuzk_err err = {0};
  backend *b = backend_cuda_new(0, &o, &err);
  CHECK_MSG(b, "%s", err.msg);
  return b;
}

/* backend_device_opts.ntt_pass1_table reaches the backend's NTT plans: a
 * plan of more than one pass (2^11 and up: one pass holds at most 2^10
 * stages) gets the pass-1 table with it and not without it (the plan's own
 * description says), and the quotient equals the CPU backend's either way. */
TEST_TIMEOUT(emu_ntt_pass1_table_reaches_the_plan, 600) {
  backend *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  const unsigned lg = 11;
  const size_t n = (size_t)1 << lg;
  bls12_381_fr *in = malloc(2 * n * sizeof *in), *w = malloc(3 * n * sizeof *w);
  uint8_t *h1 = malloc(32 * n), *h2 = malloc(32 * n);
  CHECK(in && w && h1 && h2);
  rand_fr(in, 2 * n, &g);
  memcpy(w, in, 2 * n * sizeof *w);
  CHECK(cb->ops->quotient(cb, h1, w, w + n, w + 2 * n, lg, NULL) == CUZK_OK);
  for (int table = 0; table <= 1; table++) {
    backend *gb = emulated(table);
    cuzk_err err = {0};
    CHECK_MSG(gb->ops->reserve(gb, 0, 0, lg, &err) == CUZK_OK, "%s", err.msg);
    char desc[1024];
    gb->ops->describe(gb, desc, sizeof desc);
    printf("  %s\n", desc);
    CHECK_MSG(strstr(desc, "(emulated)") && strstr(desc, "2^11"), "%s", desc);
    CHECK_MSG(!strstr(desc, "pass-1 table") == !table, "table %d: %s", table, desc);
    memcpy(w, in, 2 * n * sizeof *w);
    memset(h2, 0xa5, 32 * n);
    CHECK_MSG(gb->ops->quotient(gb, h2, w, w + n, w + 2 * n, lg, &err) == CUZK_OK, "%s", err.msg);
    CHECK_MSG(memcmp(h1, h2, 32 * n) == 0, "emulated quotient 2^%u (table %d) differs", lg, table);
    backend_free(gb);
  }
  free(in), free(w), free(h1), free(h2);
  backend_free(cb);
}

/* The emulated backend's MSMs, streamed and over resident sets, and its
 * a, b from a resident coefficient copy, equal the CPU backend's. */
TEST_TIMEOUT(emu_msm_and_ab_match_cpu, 600) {
  backend *gb = emulated(false), *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  for (int hold = 0; hold <= 1; hold++) {
    CHECK(gb->ops->hold_bases(gb, hold, NULL) == CUZK_OK);
    const size_t n1[] = {1, 40, 300}, n2[] = {1, 20};
    for (size_t i = 0; i < sizeof n1 / sizeof *n1; i++) msm_case(gb, cb, 1, n1[i], (int)i & 1, &g);
    for (size_t i = 0; i < sizeof n2 / sizeof *n2; i++) msm_case(gb, cb, 2, n2[i], 1, &g);
  }
  const size_t n = 256, nw = 100, ne = 700;
  uint8_t *ent = sorted_entries(ne, 200, nw, &g), *wit = malloc(32 * nw);
  bls12_381_fr *a1 = malloc(n * sizeof *a1), *b1 = malloc(n * sizeof *b1),
               *a2 = malloc(n * sizeof *a2), *b2 = malloc(n * sizeof *b2);
  CHECK(wit && a1 && b1 && a2 && b2);
  for (size_t i = 0; i < nw; i++) rand_scalar(wit + 32 * i, &g);
  memset(a2, 0xa5, n * sizeof *a2), memset(b2, 0x5a, n * sizeof *b2);
  CHECK(cb->ops->zkey_ab(cb, a1, b1, n, ent, ne, wit, nw, NULL) == CUZK_OK);
  cuzk_err err = {0};
  CHECK_MSG(gb->ops->zkey_ab(gb, a2, b2, n, ent, ne, wit, nw, &err) == CUZK_OK, "%s", err.msg);
  CHECK(!memcmp(a1, a2, n * sizeof *a1) && !memcmp(b1, b2, n * sizeof *b1));
  CHECK(gb->ops->hold_bases(gb, false, NULL) == CUZK_OK);
  free(ent), free(wit), free(a1), free(b1), free(a2), free(b2);
  backend_free(gb), backend_free(cb);
}

/* The stop hook (backend.h) on the CUDA backend gb: once set, every
 * operation returns CANCELLED (zkey_ab on the host's cores, the quotient
 * after its first evaluation, the MSMs before their first window group);
 * then, the hook unset again, the same backend's operations, the MSMs'
 * paced path included, equal the CPU backend's: a stopped operation leaves
 * its stream and buffers fit for the next. */
static void stop_cases(backend *gb) {
  backend *cb = backend_cpu_new(0);
  test_rng g = {test_seed()};
  cuzk_stop stop;
  atomic_init(&stop, true);
  gb->stop = &stop;
  const unsigned lg = 11;
  const size_t n = (size_t)1 << lg, nw = 100, ne = 700, np = 300;
  uint8_t *ent = sorted_entries(ne, 200, nw, &g), *wit = malloc(32 * nw), *h = malloc(32 * n),
          *b1 = malloc(np * sizeof(bls12_381_g1_aff)), *s1 = malloc(32 * np),
          *b2 = malloc(np * sizeof(bls12_381_g2_aff));
  bls12_381_fr *w = malloc(3 * n * sizeof *w);
  CHECK(wit && h && b1 && s1 && b2 && w);
  for (size_t i = 0; i < nw; i++) rand_scalar(wit + 32 * i, &g);
  for (size_t i = 0; i < np; i++) rand_scalar(s1 + 32 * i, &g);
  rand_fr(w, 2 * n, &g);
  CHECK(msm_g1_gen_bases(b1, np, 1, 0, NULL) == CUZK_OK);
  CHECK(msm_g2_gen_bases(b2, np, 2, 0, NULL) == CUZK_OK);
  const msm_part p1 = {b1, s1, np}, p2 = {b2, s1, np};
  bls12_381_g1_jac o1;
  bls12_381_g2_jac o2;
  cuzk_err err = {0};
  CHECK_EQ_INT(gb->ops->zkey_ab(gb, w, w + n, n, ent, ne, wit, nw, &err), CUZK_CANCELLED);
  CHECK_EQ_INT(gb->ops->quotient(gb, h, w, w + n, w + 2 * n, lg, &err), CUZK_CANCELLED);
  CHECK_EQ_INT(gb->ops->msm_g1(gb, &o1, &p1, 1, &err), CUZK_CANCELLED);
  CHECK_EQ_INT(gb->ops->msm_g2(gb, &o2, &p2, 1, &err), CUZK_CANCELLED);
  CHECK_MSG(strstr(err.msg, "cancelled"), "%s", err.msg);
  atomic_store(&stop, false);
  msm_case(gb, cb, 1, 1000, 1, &g);
  msm_case(gb, cb, 2, 64, 1, &g);
  uint8_t *h2 = malloc(32 * n);
  bls12_381_fr *w2 = malloc(3 * n * sizeof *w2);
  CHECK(h2 && w2);
  rand_fr(w, 2 * n, &g);
  memcpy(w2, w, 2 * n * sizeof *w);
  CHECK(cb->ops->quotient(cb, h2, w2, w2 + n, w2 + 2 * n, lg, NULL) == CUZK_OK);
  CHECK_MSG(gb->ops->quotient(gb, h, w, w + n, w + 2 * n, lg, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(!memcmp(h, h2, 32 * n), "the quotient after a stopped one differs from the CPU's");
  gb->stop = NULL;
  free(ent), free(wit), free(h), free(h2), free(b1), free(s1), free(b2), free(w), free(w2);
  backend_free(cb);
}

TEST_TIMEOUT(emu_stop_hook_cancels_every_operation, 600) {
  backend *gb = emulated(false);
  stop_cases(gb);
  backend_free(gb);
}

TEST_TIMEOUT(stop_hook_cancels_every_operation, 600) {
  backend *gb = gpu_or_skip();
  stop_cases(gb);
  backend_free(gb);
}

/* Fills a stretch of the stack below the caller's frame with `pattern`,
 * where the next call's frame will lie. */
static __attribute__((noinline)) void dirty_stack(int pattern) {
  volatile uint8_t junk[1 << 14];
  for (size_t i = 0; i < sizeof junk; i++) junk[i] = (uint8_t)pattern;
}

/* Two backends of one store (two slots of a GPU) share one resident copy of
 * a key's coefficients: the second finds the first's by its id, whatever
 * the bytes on its thread's stack (the id once carried a struct's padding,
 * and each slot uploaded its own copy). */
TEST_TIMEOUT(emu_ab_copy_shared_by_a_store, 600) {
  backend_store *store = backend_store_new();
  CHECK(store);
  const backend_device_opts o = {.emulate = true, .store = store};
  cuzk_err err = {0};
  backend *g1 = backend_cuda_new(0, &o, &err), *g2 = g1 ? backend_cuda_new(0, &o, &err) : NULL;
  CHECK_MSG(g1 && g2, "%s", err.msg);
  test_rng g = {test_seed()};
  const size_t n = 128, nw = 50, ne = 300;
  uint8_t *ent = sorted_entries(ne, 100, nw, &g), *wit = malloc(32 * nw);
  bls12_381_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  CHECK(wit && a && b);
  for (size_t i = 0; i < nw; i++) rand_scalar(wit + 32 * i, &g);
  CHECK(g1->ops->hold_bases(g1, true, NULL) == CUZK_OK);
  CHECK(g2->ops->hold_bases(g2, true, NULL) == CUZK_OK);
  dirty_stack(0x00);
  CHECK_MSG(g1->ops->zkey_ab(g1, a, b, n, ent, ne, wit, nw, &err) == CUZK_OK, "%s", err.msg);
  const uint64_t one = backend_store_bytes(store);
  CHECK(one > 0);
  dirty_stack(0xff);
  CHECK_MSG(g2->ops->zkey_ab(g2, a, b, n, ent, ne, wit, nw, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(backend_store_bytes(store) == one, "the store holds %llu bytes, one copy is %llu",
            (unsigned long long)backend_store_bytes(store), (unsigned long long)one);
  backend_free(g1), backend_free(g2);
  CHECK_EQ_INT(backend_store_bytes(store), 0);
  backend_store_free(store);
  free(ent), free(wit), free(a), free(b);
}
