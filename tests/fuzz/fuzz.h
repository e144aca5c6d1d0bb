/* What the libFuzzer harnesses of tests/fuzz share: the entry point's
 * declaration, a failed invariant (abort, which libFuzzer reports as a
 * crash and saves the input), and a reader that takes numbers and byte
 * strings off the front of the fuzz input (the op-stream harnesses).
 * A read past the end yields zeros and empty strings, so every input is a
 * valid program of operations. */
#ifndef CUZK_TESTS_FUZZ_H
#define CUZK_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant of the code under test does not hold: a finding. */
#define FUZZ_ASSERT(cond, ...)                                                \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__,    \
              #cond);                                                         \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, "\n");                                                  \
      abort();                                                                \
    }                                                                         \
  } while (0)

typedef struct {
  const uint8_t *p;
  size_t n;
} fz_in;

static inline uint8_t fz_u8(fz_in *in) {
  if (!in->n)
    return 0;
  in->n--;
  return *in->p++;
}
static inline uint16_t fz_u16(fz_in *in) {
  uint16_t v = fz_u8(in);
  return (uint16_t)(v | (uint16_t)fz_u8(in) << 8);
}
/* Up to n bytes (fewer at the end of the input); *len gets the count. */
static inline const uint8_t *fz_bytes(fz_in *in, size_t n, size_t *len) {
  const uint8_t *p = in->p;
  *len = n < in->n ? n : in->n;
  in->p += *len;
  in->n -= *len;
  return p;
}

#endif
