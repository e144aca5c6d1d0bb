/* proof.json (groth16/json.h) on arbitrary text: json_parse_proof, and for
 * a proof it accepts, json_proof_string and the parse back to the same
 * points. */
#include "json_roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  groth16_proof p, q;
  cuzk_err err = {0};
  cuzk_status st = json_parse_proof((const char *)data, size, "proof", &p, &err);
  if (st != CUZK_OK) {
    FUZZ_REFUSED(st, err);
    return 0;
  }
  char *text = json_proof_string(&p);
  if (!text)
    return 0;
  st = json_parse_proof(text, strlen(text), "written", &q, &err);
  FUZZ_ASSERT(st == CUZK_OK, "the writer's proof does not read back: %s", err.msg);
  FUZZ_ASSERT(!memcmp(&p, &q, sizeof p), "the proof differs after the round trip");
  free(text);
  return 0;
}
