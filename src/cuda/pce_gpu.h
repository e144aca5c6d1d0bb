/* A circuit's constraint matrices resident on the GPU (Curio's PCE,
 * docs/FORMATS.md §7): a = A w, b = B w, c = C w and the scalars of the
 * Groth16 a and b queries computed from a witness in device memory, so
 * that a partition's witness crosses the bus once and nothing comes back
 * (the bellperson-convention partition of the CUDA backend, bp_sums).
 *
 * DESIGN: made once per circuit and GPU (cuda_pce_new) from the host
 * arrays of a pce_file, which the caller validated (pce_validate:
 * row_ptr non-decreasing from 0 to nnz, columns below n_inputs + n_aux,
 * values below r, the bitmaps' lengths and popcounts).  The values are
 * kept as c R^2 (converted on the device after the upload), so that the
 * Montgomery product with a canonical witness value w is c w in
 * Montgomery form: the witness needs no conversion of its own and the
 * canonical copy serves the MSMs too.  A matrix whose values repeat
 * (circuits have a few hundred distinct ones: +-1, powers of two, a
 * hash's constants) keeps a 4-byte code per entry and a table of its
 * distinct values (built on the host's cores: groth16/pce_tables.h, the
 * engine's plan counts the same), not 32 bytes per entry;
 * codes for +1 and -1 take no product (their terms are summed canonically
 * and converted once per row).  At PoRep scale that is 2.9 GB of codes
 * instead of 23 GB of values.  One thread per row sums the row's
 * products of each matrix (sums in Fr are exact: the CPU's pce_eval gives
 * the same elements).  The a and b queries' scalars are gathers through
 * index lists the host builds from the density bitmaps: the a query holds
 * every input and the aux variables with an A term, the b query the
 * inputs and aux variables with a B term (bellperson's order: inputs
 * first).  Nothing is allocated after cuda_pce_new, and the runs only read
 * the object, so several streams may use one at once.
 *
 * Emulation (emulate = true): host memory and the same per-row code run
 * on the host, so CI checks it without a GPU.  Streams are cudaStream_t
 * passed as void * (NULL: the legacy default stream). */
#ifndef CUZK_CUDA_PCE_GPU_H
#define CUZK_CUDA_PCE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuda_pce cuda_pce;

/* The host arrays of a validated PCE (pce.h's fields, untyped).  rows = 0
 * with no matrices (row_ptr, col, val NULL) makes an object of the index
 * lists alone, for a, b, c that come from elsewhere (cuda_pce_abc then
 * refuses). */
typedef struct {
  size_t rows;                 /* num_constraints */
  size_t n_inputs, n_aux;      /* n_inputs includes ONE */
  const uint32_t *row_ptr[3];  /* A, B, C: rows + 1 each */
  const uint32_t *col[3];      /* nnz[k] each */
  const void *val[3];          /* nnz[k] Montgomery Fr (32 bytes) each */
  size_t nnz[3];
  const uint64_t *a_aux, *b_input, *b_aux; /* density bitmaps: n_aux, n_inputs, n_aux bits */
} cuda_pce_src;

cuzk_status cuda_pce_new(cuda_pce **out, const cuda_pce_src *src, bool emulate, cuzk_err *err);
void cuda_pce_free(cuda_pce *p); /* NULL is fine */
/* Whether p was made from these host arrays and sizes. */
bool cuda_pce_match(const cuda_pce *p, const cuda_pce_src *src);
/* Device bytes p holds. */
size_t cuda_pce_bytes(const cuda_pce *p);
/* The number of distinct values other than +-1 in the table of matrix k
 * (0 A, 1 B, 2 C), or SIZE_MAX when its values are kept whole (DESIGN). */
size_t cuda_pce_table_size(const cuda_pce *p, int k);
/* The lengths of the a and b queries (n_inputs + |a_aux|, |b_input| + |b_aux|). */
size_t cuda_pce_n_a(const cuda_pce *p);
size_t cuda_pce_n_b(const cuda_pce *p);

/* a, b, c (device, m >= rows elements each, Montgomery; rows m - rows up
 * to m zeroed) from w (device, n_inputs + n_aux canonical 32-byte
 * little-endian values, w[0] = 1), enqueued on stream. */
cuzk_status cuda_pce_abc(const cuda_pce *p, void *a, void *b, void *c, size_t m, const void *w,
                         void *stream, cuzk_err *err);
/* v[i] := the Montgomery form of the canonical value v[i] for i < n, and
 * 0 for n <= i < m (device, or host when emulate), enqueued on stream. */
cuzk_status cuda_fr_from_canon(void *v, size_t n, size_t m, bool emulate, void *stream,
                               cuzk_err *err);
/* *first (device, or host when emulate; 8 bytes) := the index of the
 * first of the n canonical 32-byte little-endian values of v (device) that
 * is not below r, or n when all are; enqueued on stream (emulated: done on
 * return). */
cuzk_status cuda_fr_check_canon(const void *v, size_t n, uint64_t *first, bool emulate,
                                void *stream, cuzk_err *err);
/* dst (device, cuda_pce_n_a / _n_b values) := the a / b query's scalars
 * gathered from w (as above), enqueued on stream. */
cuzk_status cuda_pce_gather_a(const cuda_pce *p, void *dst, const void *w, void *stream,
                              cuzk_err *err);
cuzk_status cuda_pce_gather_b(const cuda_pce *p, void *dst, const void *w, void *stream,
                              cuzk_err *err);

#ifdef __cplusplus
}
#endif
#endif
