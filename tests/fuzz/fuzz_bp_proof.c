/* bellperson proof bytes (groth16/bp.h): bp_proof_decode on each 192-byte
 * partition of the input (at most 4 a run: a decoded proof costs ~3 ms of
 * subgroup checks), and for a proof it accepts, no point at infinity and
 * the encoding back to the same bytes; the message names the partition. */
#include "fuzz.h"

#include "groth16/bp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t k = size / BP_PROOF_BYTES;
  if (k > 4)
    k = 4;
  for (size_t i = 0; i < k; i++) {
    const uint8_t *in = data + i * BP_PROOF_BYTES;
    groth16_proof pr;
    cuzk_err err = {0};
    cuzk_status st = bp_proof_decode(&pr, in, "proof", i, &err);
    if (st != CUZK_OK) {
      char want[48];
      snprintf(want, sizeof want, "proof: partition %zu, ", i);
      FUZZ_ASSERT(st == CUZK_FORMAT, "status %d: %s", (int)st, err.msg);
      FUZZ_ASSERT(!strncmp(err.msg, want, strlen(want)), "message without the partition: %s", err.msg);
      continue;
    }
    FUZZ_ASSERT(!bls12_381_g1_aff_is_inf(&pr.a) && !bls12_381_g2_aff_is_inf(&pr.b) &&
                    !bls12_381_g1_aff_is_inf(&pr.c),
                "a point at infinity accepted");
    uint8_t back[BP_PROOF_BYTES];
    bp_proof_encode(back, &pr);
    FUZZ_ASSERT(!memcmp(back, in, BP_PROOF_BYTES), "partition %zu does not encode back", i);
  }
  return 0;
}
