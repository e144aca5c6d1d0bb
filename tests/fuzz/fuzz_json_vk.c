/* verification_key.json (groth16/json.h) on arbitrary text: json_parse_vk,
 * and for a key it accepts, json_vk_string and the parse back to the same
 * key. */
#include "json_roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  groth16_vk vk, back;
  cuzk_err err = {0};
  cuzk_status st = json_parse_vk((const char *)data, size, "vk", &vk, &err);
  if (st != CUZK_OK) {
    FUZZ_REFUSED(st, err);
    FUZZ_ASSERT(!vk.ic, "IC handed out on failure");
    return 0;
  }
  char *text = json_vk_string(&vk);
  if (text) {
    st = json_parse_vk(text, strlen(text), "written", &back, &err);
    FUZZ_ASSERT(st == CUZK_OK, "the writer's vk does not read back: %s", err.msg);
    FUZZ_ASSERT(back.n_public == vk.n_public &&
                    !memcmp(&back.alpha1, &vk.alpha1, sizeof vk.alpha1) &&
                    !memcmp(&back.beta2, &vk.beta2, sizeof vk.beta2) &&
                    !memcmp(&back.gamma2, &vk.gamma2, sizeof vk.gamma2) &&
                    !memcmp(&back.delta2, &vk.delta2, sizeof vk.delta2) &&
                    !memcmp(back.alphabeta, vk.alphabeta, sizeof vk.alphabeta) &&
                    !memcmp(back.ic, vk.ic, (vk.n_public + 1) * sizeof *vk.ic),
                "the vk differs after the round trip");
    groth16_vk_fini(&back);
    free(text);
  }
  groth16_vk_fini(&vk);
  return 0;
}
