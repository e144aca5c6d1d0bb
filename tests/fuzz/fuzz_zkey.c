/* The .zkey reader (groth16/zkey.h) on arbitrary bytes: zkey_open_mem's
 * full open and, for a key it accepts, what the prover and `cuzk
 * export-vk` then read without further checks: every section at its
 * stated size, the verification key and its snarkjs JSON (written, read
 * back, equal), the point scan of sections 2-9. */
#include "fuzz.h"

#include "groth16/json.h"
#include "groth16/zkey.h"

static void vk_roundtrip(const zkey_file *z) {
  groth16_vk vk, back;
  cuzk_err err = {0};
  if (zkey_read_vk(z, &vk, &err) != CUZK_OK)
    return;
  FUZZ_ASSERT(vk.n_public == z->n_public, "n_public %zu vs %u", vk.n_public, z->n_public);
  char *text = json_vk_string(&vk);
  if (text) {
    cuzk_status st = json_parse_vk(text, strlen(text), "vk", &back, &err);
    FUZZ_ASSERT(st == CUZK_OK, "the vk the writer made does not read back: %s", err.msg);
    FUZZ_ASSERT(back.n_public == vk.n_public, "n_public");
    FUZZ_ASSERT(!memcmp(&back.alpha1, &vk.alpha1, sizeof vk.alpha1) &&
                    !memcmp(&back.beta2, &vk.beta2, sizeof vk.beta2) &&
                    !memcmp(&back.gamma2, &vk.gamma2, sizeof vk.gamma2) &&
                    !memcmp(&back.delta2, &vk.delta2, sizeof vk.delta2),
                "header points differ after the JSON round trip");
    FUZZ_ASSERT(!memcmp(back.ic, vk.ic, (vk.n_public + 1) * sizeof *vk.ic),
                "IC differs after the JSON round trip");
    groth16_vk_fini(&back);
    free(text);
  }
  groth16_vk_fini(&vk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zkey_file z;
  cuzk_err err = {0};
  if (zkey_open_mem(&z, data, size, "fuzz.zkey", &err) != CUZK_OK) {
    FUZZ_ASSERT(err.msg[0], "a refusal without a message");
    return 0;
  }
  /* The invariants of zkey.h, which the prover indexes by. */
  FUZZ_ASSERT(z.domain_size == 1u << z.lg_domain && z.n_vars > z.n_public, "shape");
  const uint8_t *end = data + size;
  FUZZ_ASSERT(z.ic + z.n_ic * ZKEY_G1_BYTES <= end && z.a + z.n_a * ZKEY_G1_BYTES <= end &&
                  z.b1 + z.n_a * ZKEY_G1_BYTES <= end && z.b2 + z.n_a * ZKEY_G2_BYTES <= end &&
                  z.c + z.n_c * ZKEY_G1_BYTES <= end && z.h + z.n_h * ZKEY_G1_BYTES <= end &&
                  z.coefs + z.n_coefs * ZKEY_COEF_BYTES <= end,
              "a section runs past the input");
  for (uint64_t i = 0; i < z.n_coefs; i++) {
    const uint8_t *e = z.coefs + i * ZKEY_COEF_BYTES;
    FUZZ_ASSERT(rd_u32le(e) <= 1 && rd_u32le(e + 4) < z.domain_size && rd_u32le(e + 8) < z.n_vars,
                "coefficient %llu out of range", (unsigned long long)i);
  }
  vk_roundtrip(&z);
  /* The point scan checks the six header points' subgroups (milliseconds
   * under the sanitizers): one accepted key in 64, picked by its last byte,
   * keeps the harness fast and the scan covered. */
  if ((data[size - 1] & 63) == 0) {
    uint32_t sec;
    uint64_t idx;
    bool bad = zkey_find_bad_point(&z, 1, &sec, &idx);
    cuzk_status st = zkey_validate_points(&z, 1, &err);
    FUZZ_ASSERT(bad == (st != CUZK_OK), "find_bad_point and validate_points disagree");
  }
  zkey_close(&z);
  return 0;
}
