/* Groth16's a and b on the GPU from a resident zkey coefficient section:
 * backend.h's zkey_ab without the coefficients crossing the bus.  The
 * witness goes up and a and b come back to the host, as backend.h's
 * zkey_ab returns them: in a proof a and b go up again for the quotient,
 * h comes back and goes up again for its MSM, and the witness goes up once
 * per MSM.
 *
 * DESIGN: made once per key (cuda_ab_new) when the key stays resident: the
 * coefficient entries (44 bytes each: u32 matrix, u32 row, u32 wire, the
 * coefficient times R^2 mod r) go to the device as they are, with the index
 * of each row's first entry, which the host computes in one pass after
 * checking that the entries are sorted by row (snarkjs writes them so).
 * Entries in any other order are refused (CUZK_UNSUPPORTED, with the
 * reason), and the caller uses the CPU.  A run uploads the witness, and one
 * thread per row sums its entries' Montgomery products coef * w[wire] into
 * a (matrix 0) or b (matrix 1), exactly as the CPU backend (the same
 * products; sums in Fr are exact, so their order does not matter), then
 * copies a and b back.  All device memory (entries, row index, witness,
 * a and b) is allocated by cuda_ab_new.
 *
 * Emulation (emulate = true): host memory and the same per-row code run on
 * the host, so CI checks it without a GPU (in a CUDA build: only those
 * have src/cuda). */
#ifndef CUZK_CUDA_AB_GPU_H
#define CUZK_CUDA_AB_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuda_ab cuda_ab;

/* A resident copy of n_entries coefficient entries for vectors of n rows and
 * witnesses of n_witness values (entries already validated: row < n,
 * wire < n_witness, matrix 0 or 1). */
cuzk_status cuda_ab_new(cuda_ab **out, const void *entries, size_t n_entries, size_t n,
                        size_t n_witness, bool emulate, cuzk_err *err);
void cuda_ab_free(cuda_ab *ab); /* NULL is fine */
/* Whether ab was made from these host entries and sizes. */
bool cuda_ab_match(const cuda_ab *ab, const void *entries, size_t n_entries, size_t n,
                   size_t n_witness);
/* Device bytes that ab holds. */
size_t cuda_ab_bytes(const cuda_ab *ab);
/* a, b (host, n elements of 32 bytes each, Montgomery form) from the witness
 * (host, n_witness canonical 32-byte little-endian values), on stream (a
 * cudaStream_t, or NULL); returns once a and b are written. */
cuzk_status cuda_ab_run(cuda_ab *ab, void *a, void *b, const void *witness, void *stream,
                        cuzk_err *err);

#ifdef __cplusplus
}
#endif
#endif
