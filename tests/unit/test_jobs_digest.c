/* engine/jobs.c jobs_request_digest: the two-level SHA-256 that decides
 * whether a repeated request id carries the same request.  Every byte of
 * every witness counts, in chunks past the first too; where the bytes are
 * cut into partitions counts; the digest is a pure function of the
 * request (the chunks are hashed on several threads). */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "engine/engine_impl.h"

#define MIB ((size_t)1 << 20)

static void digest(const char *circuit, const uint8_t *const *w, const size_t *len, size_t n,
                   uint8_t out[JOBS_DIGEST_BYTES]) {
  engine_request rq = {.circuit_id = circuit, .nparts = n, .witness = w, .witness_len = len};
  cuzk_err err = {0};
  CHECK_MSG(jobs_request_digest(&rq, out, &err) == CUZK_OK, "%s", err.msg);
}

TEST(every_byte_and_cut_counts) {
  const size_t n = 40 * MIB + 123; /* three chunks, the last one short */
  uint8_t *a = malloc(n), *b = malloc(n);
  CHECK(a && b);
  for (size_t i = 0; i < n; i++) a[i] = (uint8_t)(i * 131 + (i >> 13));
  memcpy(b, a, n);
  uint8_t d0[32], d1[32];
  const uint8_t *wa[] = {a}, *wb[] = {b};
  size_t len[] = {n};
  digest("c", wa, len, 1, d0);
  par_set_threads(1);
  digest("c", wb, len, 1, d1); /* one thread or many: the same digest */
  par_set_threads(0);
  CHECK(memcmp(d0, d1, 32) == 0);
  const size_t at[] = {0, 16 * MIB - 1, 16 * MIB, 33 * MIB + 5, n - 1};
  for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
    b[at[k]] ^= 1;
    digest("c", wb, len, 1, d1);
    CHECK_MSG(memcmp(d0, d1, 32) != 0, "a flipped bit at byte %zu left the digest equal", at[k]);
    b[at[k]] ^= 1;
  }
  digest("d", wa, len, 1, d1);
  CHECK(memcmp(d0, d1, 32) != 0); /* the circuit id counts */
  /* the same bytes cut into two partitions, at a chunk boundary and off it */
  const size_t cuts[] = {16 * MIB, 7};
  for (size_t k = 0; k < 2; k++) {
    const uint8_t *w2[] = {a, a + cuts[k]};
    size_t l2[] = {cuts[k], n - cuts[k]};
    digest("c", w2, l2, 2, d1);
    CHECK_MSG(memcmp(d0, d1, 32) != 0, "a cut at %zu left the digest equal", cuts[k]);
  }
  /* an empty partition is not nothing */
  const uint8_t *w3[] = {a, a};
  size_t l3[] = {n, 0};
  digest("c", w3, l3, 2, d1);
  CHECK(memcmp(d0, d1, 32) != 0);
  free(a), free(b);
}
