/* The .wtns reader (groth16/wtns.h) on arbitrary bytes: wtns_open_mem, the
 * curve check, and every value it hands out lies in the input and below
 * the prime (the prover reads them without checks). */
#include "fuzz.h"

#include "groth16/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wtns_file w;
  cuzk_err err = {0};
  if (wtns_open_mem(&w, data, size, "fuzz.wtns", &err) != CUZK_OK) {
    FUZZ_ASSERT(err.msg[0], "a refusal without a message");
    return 0;
  }
  FUZZ_ASSERT(w.n8 >= 8 && w.n8 <= BINFILE_MAX_N8 && w.n8 % 8 == 0, "n8 %u", w.n8);
  FUZZ_ASSERT(w.n_witness == 0 || wtns_value(&w, w.n_witness - 1) + w.n8 <= data + size,
              "values run past the input");
  for (uint64_t i = 0; i < w.n_witness; i++)
    FUZZ_ASSERT(binfile_lt_prime(wtns_value(&w, i), w.prime, w.n8), "value %llu >= prime",
                (unsigned long long)i);
  cuzk_status st = wtns_check_curve(&w, &err);
  FUZZ_ASSERT((st == CUZK_OK) == (w.prime_id == BINFILE_PRIME_BLS12_381_R), "curve check");
  wtns_close(&w);
  return 0;
}
