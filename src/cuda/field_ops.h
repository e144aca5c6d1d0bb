/* Field arithmetic on the device, element by element: the entry points of
 * the GPU field tests and the field benchmark.
 *
 * DESIGN: these exist to check and to time the device field code
 * (mont.cuh, fp2.cuh) against src/ff; they are not a proving path.  Each
 * call allocates its device buffers, copies host buffers in and out, and
 * frees them (the prover's own ops will use memory planned once, docs/DESIGN.md
 * §3).  Element layouts are the host's (bls12_381_fp, _fr, _fp2):
 * Montgomery form, little-endian limbs.  Errors carry the CUDA call, file
 * and line (check.cuh).  Only a CUDA build has them (src/cuda). */
#ifndef CUZK_CUDA_FIELD_OPS_H
#define CUZK_CUDA_FIELD_OPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "base/err.h"

typedef enum {
  CUDA_FIELD_BLS12_381_FP,
  CUDA_FIELD_BLS12_381_FR,
  CUDA_FIELD_BLS12_381_FP2,
  CUDA_FIELD_COUNT
} cuda_field;

/* r = op(a, b); the unary ops (dbl, neg, sqr, from/to_canon) ignore b.
 * from_canon: a holds canonical limbs (< p), r = a*R mod p (Montgomery).
 * to_canon: the inverse. */
typedef enum {
  CUDA_FOP_ADD,
  CUDA_FOP_SUB,
  CUDA_FOP_DBL,
  CUDA_FOP_NEG,
  CUDA_FOP_MUL,
  CUDA_FOP_SQR,
  CUDA_FOP_FROM_CANON,
  CUDA_FOP_TO_CANON,
  CUDA_FOP_MUL_WIDE, /* the product through the lazily reduced path: Fp, Fr
                      * REDC(wide_mul(a, b)), Fp2 mul_lazy (mont.cuh, fp2.cuh);
                      * equal to mul */
  CUDA_FOP_MUL_SUB,  /* a b - (a + b)(a - b) through the point formulas'
                      * mul_sub (mont.cuh: two products, one reduction;
                      * fp2.cuh: two products, a subtraction) */
  CUDA_FOP_COUNT
} cuda_field_op;

static inline const char *cuda_field_name(cuda_field f) {
  static const char *const names[] = {"bls12_381 fp", "bls12_381 fr", "bls12_381 fp2"};
  return (unsigned)f < CUDA_FIELD_COUNT ? names[f] : "?";
}
static inline const char *cuda_field_op_name(cuda_field_op op) {
  static const char *const names[] = {"add", "sub", "dbl", "neg",
                                      "mul", "sqr", "from_canon", "to_canon", "mul_wide",
                                      "mul_sub"};
  return (unsigned)op < CUDA_FOP_COUNT ? names[op] : "?";
}
/* Bytes per element: 48, 32, 96. */
static inline size_t cuda_field_elem_size(cuda_field f) {
  return f == CUDA_FIELD_BLS12_381_FP ? 48 : f == CUDA_FIELD_BLS12_381_FR ? 32 : 96;
}

/* r[i] = op(a[i], b[i]) for i < n, computed on device 0.  r, a, b are host
 * buffers of n elements (b may be NULL for unary ops).  The device output
 * buffer is filled with 0xA5 bytes before the kernel runs, so an element the
 * kernel fails to write cannot pass for a result. */
cuzk_status cuda_field_apply(cuda_field f, cuda_field_op op, void *r, const void *a, const void *b,
                             size_t n, cuzk_err *err);

/* The same computation by the same device code compiled for the host, with
 * the carry chains of ptx.cuh emulated: needs no GPU. */
cuzk_status cuda_field_apply_emulated(cuda_field f, cuda_field_op op, void *r, const void *a,
                                      const void *b, size_t n, cuzk_err *err);

/* Throughput of dependent chains of multiplications (op MUL) or squarings
 * (op SQR).  threads threads each hold ilp (1, 2 or 4) independent values
 * x[j*threads + t] (j < ilp) and apply `iters` times x <- x*y[t] (MUL) or
 * x <- x^2 (SQR); out receives the final values (threads*ilp elements, for
 * checking against the host).  The kernel runs once to warm up and then
 * `reps` times; *ms is the median kernel time (CUDA events).  Operations per
 * run: threads * ilp * iters (for Fp2, Fp2 operations). */
typedef struct {
  size_t threads;
  unsigned ilp;   /* 1, 2 or 4 */
  unsigned iters; /* operations per chain */
  unsigned reps;  /* timed runs, at least 1 */
  unsigned block; /* threads per block (0: 256) */
  /* 1: time the 64-bit-limb baseline of field_bench.cu instead of mont.cuh
   * (Fp MUL only): the measurement behind mont.cuh's choice of 32-bit limbs. */
  unsigned limb64;
} cuda_field_bench_cfg;
cuzk_status cuda_field_bench(cuda_field f, cuda_field_op op, const cuda_field_bench_cfg *cfg,
                             void *out, const void *x, const void *y, double *ms, cuzk_err *err);

#ifdef __cplusplus
}
#endif
#endif
