/* zkey_read_header (the cheap look at a key that the config check and the
 * engine's registration take) on arbitrary bytes, and its agreement with
 * the full open: a key zkey_open_mem accepts has the same header. */
#include "fuzz.h"

#include "groth16/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zkey_file h, z;
  cuzk_err err = {0};
  cuzk_status hs = zkey_read_header_mem(&h, data, size, "fuzz.zkey", &err);
  FUZZ_ASSERT(hs == CUZK_OK || err.msg[0], "a refusal without a message");
  FUZZ_ASSERT(!h.ic && !h.a && !h.b1 && !h.b2 && !h.c && !h.h && !h.coefs,
              "the header holds a section pointer");
  if (zkey_open_mem(&z, data, size, "fuzz.zkey", &err) == CUZK_OK) {
    FUZZ_ASSERT(hs == CUZK_OK, "the full open accepts what the header refuses");
    FUZZ_ASSERT(h.n_vars == z.n_vars && h.n_public == z.n_public &&
                    h.domain_size == z.domain_size &&
                    !memcmp(&h.alpha1, &z.alpha1, sizeof z.alpha1) &&
                    !memcmp(&h.delta2, &z.delta2, sizeof z.delta2),
                "header fields differ from the full open's");
    zkey_close(&z);
  }
  return 0;
}
