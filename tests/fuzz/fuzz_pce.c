/* The PCE .bin reader (groth16/pce.h) on arbitrary bytes: pce_parse; for a
 * file it accepts, what its users rely on (row_ptrs and columns in range,
 * the densities' bits the matrices' columns), the writer's bytes equal to
 * the input, and, on a small file, pce_eval against a per-row evaluation
 * and pce_check agreeing with it. */
#include "fuzz.h"

#include "groth16/pce.h"

static void dot(bls12_381_fr *r, const pce_csr *x, uint64_t row, const bls12_381_fr *w) {
  bls12_381_fr t;
  bls12_381_fr_set_zero(r);
  for (uint64_t k = x->row_ptr[row]; k < x->row_ptr[row + 1]; k++) {
    bls12_381_fr_mul(&t, &x->val[k], &w[x->col[k]]);
    bls12_381_fr_add(r, r, &t);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pce_file f;
  cuzk_err err = {0};
  if (pce_parse(&f, data, size, "fuzz.bin", &err) != CUZK_OK) {
    FUZZ_ASSERT(err.msg[0], "a refusal without a message");
    FUZZ_ASSERT(!strncmp(err.msg, "fuzz.bin: ", 10), "message without the name: %s", err.msg);
    return 0;
  }
  const uint64_t nv = (uint64_t)f.num_inputs + f.num_aux;
  const pce_csr *M[3] = {&f.a, &f.b, &f.c};
  for (int m = 0; m < 3; m++) {
    FUZZ_ASSERT(M[m]->nrows == f.num_constraints && M[m]->row_ptr[0] == 0 &&
                    M[m]->row_ptr[M[m]->nrows] == M[m]->nnz,
                "matrix %d rows", m);
    for (uint64_t k = 0; k < M[m]->nnz; k++)
      FUZZ_ASSERT(M[m]->col[k] < nv, "matrix %d column %u", m, M[m]->col[k]);
  }
  for (uint64_t k = 0; k < f.a.nnz; k++)
    if (f.a.col[k] >= f.num_inputs)
      FUZZ_ASSERT(pce_density_get(&f.a_aux, f.a.col[k] - f.num_inputs), "a_aux bit");
  for (uint64_t k = 0; k < f.b.nnz; k++)
    FUZZ_ASSERT(f.b.col[k] < f.num_inputs ? pce_density_get(&f.b_input, f.b.col[k])
                                          : pce_density_get(&f.b_aux, f.b.col[k] - f.num_inputs),
                "b density bit");
  uint8_t *out;
  size_t n;
  FUZZ_ASSERT(pce_serialize(&f, &out, &n, &err) == CUZK_OK, "serialize: %s", err.msg);
  FUZZ_ASSERT(n == size && !memcmp(out, data, size), "the written bytes differ from the input");
  free(out);
  if (f.num_constraints <= 4096 && nv <= 4096) {
    const uint64_t nc = f.num_constraints;
    bls12_381_fr *w = malloc(nv * 32), *abc = malloc(3 * nc * 32 + 32);
    FUZZ_ASSERT(w && abc, "no memory");
    uint64_t s = size;
    for (uint64_t i = 0; i < nv; i++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      bls12_381_fr_set_u64(&w[i], i % 3 ? s >> 60 : s);
    }
    bls12_381_fr_set_one(&w[0]);
    FUZZ_ASSERT(pce_eval(&f, w, abc, abc + nc, abc + 2 * nc, 0, NULL, &err) == CUZK_OK, "eval");
    uint64_t first = UINT64_MAX;
    for (uint64_t r = 0; r < nc; r++) {
      bls12_381_fr v[3], ab;
      for (int m = 0; m < 3; m++) {
        dot(&v[m], M[m], r, w);
        FUZZ_ASSERT(bls12_381_fr_eq(&v[m], &abc[m * nc + r]), "eval row %llu matrix %d",
                    (unsigned long long)r, m);
      }
      bls12_381_fr_mul(&ab, &v[0], &v[1]);
      if (first == UINT64_MAX && !bls12_381_fr_eq(&ab, &v[2]))
        first = r;
    }
    uint64_t bad;
    cuzk_status st = pce_check(&f, w, &bad, NULL, &err);
    FUZZ_ASSERT((st == CUZK_OK) == (first == UINT64_MAX) && bad == first, "check row");
    free(w), free(abc);
  }
  pce_close(&f);
  return 0;
}
