/* bellperson .vk (groth16/bp.h) on arbitrary bytes: bp_vk_parse, and for a
 * key it accepts, the encoding back to the same bytes and the conversion
 * for groth16_verify.  Input: one control byte, then the file.  On-curve
 * and subgroup checks (milliseconds a point) run for one input in 16
 * (control & 15 == 0); the others parse with skip_checks. */
#include "fuzz.h"

#include "groth16/bp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  bp_read_opts o = {.skip_checks = (data[0] & 15) != 0};
  const uint8_t *p = data + 1;
  size_t n = size - 1;
  bp_vk vk;
  cuzk_err err = {0};
  cuzk_status st = bp_vk_parse(&vk, p, n, "vk", &o, &err);
  if (st != CUZK_OK) {
    FUZZ_ASSERT(st == CUZK_FORMAT, "status %d: %s", (int)st, err.msg);
    FUZZ_ASSERT(!strncmp(err.msg, "vk: ", 4), "message without the file name: %s", err.msg);
    FUZZ_ASSERT(!vk.ic && !vk.n_ic, "ic handed out on failure");
    return 0;
  }
  FUZZ_ASSERT(vk.n_ic >= 1 && n == BP_VK_FIXED_BYTES + 96 * vk.n_ic, "n_ic %zu for %zu bytes", vk.n_ic, n);
  FUZZ_ASSERT(bp_vk_size(&vk) == n, "size %zu != %zu", bp_vk_size(&vk), n);
  for (size_t i = 0; i < vk.n_ic; i++)
    FUZZ_ASSERT(!bls12_381_g1_aff_is_inf(&vk.ic[i]), "ic[%zu] at infinity accepted", i);
  uint8_t *back = malloc(n);
  bp_vk_encode(back, &vk);
  FUZZ_ASSERT(!memcmp(back, p, n), "the key does not encode back to its bytes");
  free(back);
  if (!o.skip_checks) {
    groth16_vk g;
    FUZZ_ASSERT(bp_vk_to_groth16(&vk, &g, &err) == CUZK_OK, "%s", err.msg);
    FUZZ_ASSERT(g.n_public == vk.n_ic - 1, "n_public");
    groth16_vk_fini(&g);
  }
  bp_vk_free(&vk);
  return 0;
}
