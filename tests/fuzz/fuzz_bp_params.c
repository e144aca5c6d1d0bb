/* bellperson .params (groth16/bp.h) on arbitrary bytes: bp_params_parse,
 * and for parameters it accepts, the sizes the counts imply, no point at
 * infinity in the vectors, and the encoding back to the same bytes.
 * Input: one control byte, then the file; the on-curve and subgroup checks
 * run for one input in 16 (control & 15 == 0), as in fuzz_bp_vk.c. */
#include "fuzz.h"

#include "groth16/bp.h"

static void no_inf_g1(const bls12_381_g1_aff *v, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    FUZZ_ASSERT(!bls12_381_g1_aff_is_inf(&v[i]), "%s[%zu] at infinity accepted", what, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  bp_read_opts o = {.skip_checks = (data[0] & 15) != 0};
  const uint8_t *p = data + 1;
  size_t n = size - 1;
  bp_params pp;
  cuzk_err err = {0};
  cuzk_status st = bp_params_parse(&pp, p, n, "params", &o, &err);
  if (st != CUZK_OK) {
    FUZZ_ASSERT(st == CUZK_FORMAT, "status %d: %s", (int)st, err.msg);
    FUZZ_ASSERT(!strncmp(err.msg, "params: ", 8), "message without the file name: %s", err.msg);
    FUZZ_ASSERT(!pp.vk.ic && !pp.h && !pp.l && !pp.a && !pp.b_g1 && !pp.b_g2,
                "vectors handed out on failure");
    return 0;
  }
  FUZZ_ASSERT(bp_params_size(&pp) == n, "size %zu != %zu", bp_params_size(&pp), n);
  FUZZ_ASSERT((pp.n_h == 0) == (pp.h == NULL) && (pp.n_b_g2 == 0) == (pp.b_g2 == NULL),
              "an empty vector with storage, or a vector without");
  no_inf_g1(pp.vk.ic, pp.vk.n_ic, "ic");
  no_inf_g1(pp.h, pp.n_h, "h");
  no_inf_g1(pp.l, pp.n_l, "l");
  no_inf_g1(pp.a, pp.n_a, "a");
  no_inf_g1(pp.b_g1, pp.n_b_g1, "b_g1");
  for (size_t i = 0; i < pp.n_b_g2; i++)
    FUZZ_ASSERT(!bls12_381_g2_aff_is_inf(&pp.b_g2[i]), "b_g2[%zu] at infinity accepted", i);
  uint8_t *back = malloc(n);
  bp_params_encode(back, &pp);
  FUZZ_ASSERT(!memcmp(back, p, n), "the parameters do not encode back to their bytes");
  free(back);
  bp_params_free(&pp);
  return 0;
}
