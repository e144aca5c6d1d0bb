/* The snarkjs JSON harnesses' oracle: what a reader accepts, the writer
 * writes, and the reader reads back to the same value (json.h: the writers
 * produce what the readers accept). */
#ifndef CUZK_TESTS_FUZZ_JSON_ROUNDTRIP_H
#define CUZK_TESTS_FUZZ_JSON_ROUNDTRIP_H

#include "fuzz.h"

#include "groth16/json.h"

#define FUZZ_REFUSED(st, err)                                                          \
  FUZZ_ASSERT((st) == CUZK_FORMAT || (st) == CUZK_UNSUPPORTED || (st) == CUZK_NO_MEMORY, \
              "status %s for text: %s", cuzk_status_name(st), (err).msg);              \
  FUZZ_ASSERT((err).msg[0], "a refusal without a message")

#endif
