/* The .r1cs reader (groth16/r1cs.h) on arbitrary bytes: r1cs_open_mem, the
 * unchecked iterator over every constraint it accepted, and the witness
 * check against a made-up witness (wire 0 = 1, then the input's first
 * bytes as values) for circuits of at most FUZZ_R1CS_WIRES wires. */
#include "fuzz.h"

#include "groth16/r1cs.h"

#define FUZZ_R1CS_WIRES 4096

/* A .wtns image of n BLS12-381 values: 1, then values taken from seed
 * (reduced below r by clearing the top bits), written into buf. */
static size_t make_wtns(uint8_t *buf, const r1cs_file *r, const uint8_t *seed, size_t seed_len) {
  uint8_t *p = buf;
  memcpy(p, "wtns", 4), wr_u32le(p + 4, 2), wr_u32le(p + 8, 2);
  p += 12;
  wr_u32le(p, 1), wr_u64le(p + 4, 40), wr_u32le(p + 12, 32);
  limbs_to_le(p + 16, r->prime, 4);
  wr_u32le(p + 48, r->n_wires);
  p += 52;
  wr_u32le(p, 2), wr_u64le(p + 4, (uint64_t)r->n_wires * 32);
  p += 12;
  for (uint32_t i = 0; i < r->n_wires; i++, p += 32) {
    memset(p, 0, 32);
    if (i == 0)
      p[0] = 1;
    else if (seed_len)
      for (int k = 0; k < 31; k++)
        p[k] = seed[((size_t)i * 31 + k) % seed_len];
  }
  return (size_t)(p - buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  r1cs_file r;
  cuzk_err err = {0};
  if (r1cs_open_mem(&r, data, size, "fuzz.r1cs", &err) != CUZK_OK) {
    FUZZ_ASSERT(err.msg[0], "a refusal without a message");
    return 0;
  }
  r1cs_iter it;
  r1cs_constraint k;
  uint64_t n = 0, terms = 0;
  const uint8_t *end = data + size;
  r1cs_iter_init(&it, &r);
  while (r1cs_iter_next(&it, &k)) {
    const r1cs_lc *lcs[3] = {&k.a, &k.b, &k.c};
    for (int l = 0; l < 3; l++) {
      terms += lcs[l]->n_terms;
      for (uint32_t t = 0; t < lcs[l]->n_terms; t++) {
        FUZZ_ASSERT(r1cs_term_coef(&r, lcs[l], t) + r.fs <= end, "a term runs past the input");
        FUZZ_ASSERT(r1cs_term_wire(&r, lcs[l], t) < r.n_wires, "wire out of range");
      }
    }
    n++;
  }
  FUZZ_ASSERT(n == r.n_constraints && terms == r.n_terms, "iterator counts");
  if (r.prime_id == BINFILE_PRIME_BLS12_381_R && r.n_wires <= FUZZ_R1CS_WIRES) {
    size_t cap = 64 + 32 * (size_t)r.n_wires + 64;
    uint8_t *img = malloc(cap);
    if (img) {
      size_t len = make_wtns(img, &r, data, size);
      wtns_file w;
      if (wtns_open_mem(&w, img, len, "made.wtns", &err) == CUZK_OK) {
        size_t bad;
        (void)r1cs_check_witness(&r, &w, &bad, &err);
        wtns_close(&w);
      }
      free(img);
    }
  }
  r1cs_close(&r);
  return 0;
}
