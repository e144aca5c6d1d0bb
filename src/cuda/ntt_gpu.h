/* NTT over BLS12-381 Fr on the GPU: forward, inverse, the snarkjs odd-coset
 * evaluation and the Groth16 quotient step, in place on device buffers.
 *
 * DESIGN: a plan is made once per size 2^lg_n (1..30; tested to 2^28) and
 * root chain (an ntt_roots value of poly/ntt.h: NTT_ROOTS_SNARKJS 5^t or
 * NTT_ROOTS_BELLPERSON 7^t).  It holds every twiddle table in one device
 * allocation made at creation, and optionally `buffers` device vectors of
 * n elements for the caller; the operations allocate nothing, enqueue
 * kernels on the caller's stream and never synchronize the device.  A plan
 * is immutable after creation, so several streams may use one plan at once
 * on different data.  The operations have the semantics, and give the
 * bytes, of the CPU's poly/ntt.h on the same chain (the tests check exact
 * equality): elements are 32 bytes, Montgomery form, little-endian limbs,
 * natural order in and out.
 *
 * `stream` is a cudaStream_t passed as void * (C callers see no CUDA type);
 * NULL is the legacy default stream.  Device pointers must be 16-byte
 * aligned (cudaMalloc gives 256).  Errors: CUZK_INVALID_ARGUMENT for bad
 * arguments, CUDA failures as a status with file and line (check.cuh).
 * Only a CUDA build has src/cuda.
 *
 * Emulation: a plan made with cfg.emulate runs the very same per-thread
 * kernel code on the host, block by block, with host pointers and no GPU
 * (the carry chains of ptx.cuh emulated).  It is slow and exists for tests:
 * CI checks the device algorithm, index for index, without a GPU. */
#ifndef CUZK_CUDA_NTT_GPU_H
#define CUZK_CUDA_NTT_GPU_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "base/err.h"

#define CUDA_NTT_LG_MAX 30
#define CUDA_NTT_MAX_BUFFERS 4

typedef struct cuda_ntt_plan cuda_ntt_plan;

/* Plan options; an all-zero struct gives the defaults. */
typedef struct {
  unsigned buffers;     /* device vectors of n elements owned by the plan (0..4) */
  unsigned max_pass_lg; /* radix-2 stages per pass over memory, 1..10 (0: 10) */
  /* stages of the first pass (0: the passes balanced, larger first); a
   * self-sorting plan's last pass takes as many.  Ignored where the other
   * passes could not hold the rest. */
  unsigned first_lg;
  unsigned threads;     /* threads per block: 32..512, a power of two (0: 256) */
  /* One table of all n powers of omega (32n bytes) instead of two of about
   * sqrt(n) each: saves one multiplication per element in the first pass. */
  bool full_twiddles;
  /* The first pass's D factors of the forward direction as one more table
   * of n elements (32n bytes, 4 GiB at 2^27) in the data's own order, (row
   * t, column cc) at t 2^r + cc: read like the data (coalesced, streaming),
   * where the full table is gathered at cc bitrev(t), and no product in the
   * product mode.  On the H200 at 2^27 it takes about 5 % off the forward
   * and 3 % off the odd-coset evaluation (bench/RESULTS.md); plans of one
   * pass have no such factors and ignore it. */
  bool pass1_table;
  /* The coset of the coset operations: 0, the odd coset {omega_2n^(2j+1)}
   * (snarkjs; cuda_ntt_to_odd_coset, the quotient); k > 0, the coset
   * {k omega^j} of the field element k (bellperson's 7, with the 7^t
   * roots; cuda_ntt_to_odd_coset then evaluates there, and
   * cuda_ntt_coset_quotient_dev needs it).  k^n must not be 1. */
  unsigned coset_gen;
  bool emulate;         /* run on the host (see above); no GPU used */
} cuda_ntt_config;

/* Makes a plan for size 2^lg_n.  On success *out owns the device memory
 * (twiddles: about 32 (2 sqrt(n) + 1536) bytes, 32 n more with
 * full_twiddles and 32 n more with pass1_table; plus 32 n per buffer).  Synchronous: it uploads the tables
 * and waits for them.  CUZK_NO_MEMORY when the device memory is not there. */
cuzk_status cuda_ntt_plan_new(cuda_ntt_plan **out, unsigned lg_n, int roots,
                              const cuda_ntt_config *cfg, cuzk_err *err);
/* Frees the plan and its device memory (NULL is fine).  No operation on the
 * plan may be in flight. */
void cuda_ntt_plan_free(cuda_ntt_plan *p);

/* Device pointer of the plan's buffer i (n elements, 32 n bytes), NULL if
 * there is no such buffer.  For an emulated plan, a host pointer. */
void *cuda_ntt_plan_buffer(const cuda_ntt_plan *p, unsigned i);
/* Device bytes the plan holds (tables and buffers). */
size_t cuda_ntt_plan_bytes(const cuda_ntt_plan *p);
/* One line: size, passes, kernel shapes, twiddle layout. */
void cuda_ntt_plan_describe(const cuda_ntt_plan *p, char *buf, size_t n);

/* a[i] := sum_j a[j] omega^(ij) (ntt_forward). */
cuzk_status cuda_ntt_forward(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err);
/* The same transform with the output left in bit-reversed order:
 * a[bitrev(i)] := sum_j a[j] omega^(ij).  One memory pass fewer. */
cuzk_status cuda_ntt_forward_bitrev(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err);
/* a[i] := (1/n) sum_j a[j] omega^(-ij) (ntt_inverse). */
cuzk_status cuda_ntt_inverse(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err);
/* ntt_to_odd_coset: a holds evaluations on {omega^i}; on return a[j] is the
 * same polynomial at omega_2n^(2j+1) (docs/FORMATS.md §3.6 step 3). */
cuzk_status cuda_ntt_to_odd_coset(const cuda_ntt_plan *p, void *a, void *stream, cuzk_err *err);

/* The quotient step of the CPU backend's `quotient` op (docs/FORMATS.md §3.6
 * steps 3-4) on device buffers: with c = a o b when compute_c (else c as
 * given), evaluate a, b, c on the odd coset in place and write
 * h_j = a_j b_j - c_j as canonical 32-byte little-endian integers to h
 * (n entries; h may be c, or any buffer of 32 n bytes). */
cuzk_status cuda_ntt_quotient_dev(const cuda_ntt_plan *p, void *h, void *a, void *b, void *c,
                                  bool compute_c, void *stream, cuzk_err *err);
/* The same under a stop hook (a const cuzk_stop *, base/stop.h; NULL:
 * none), polled after each odd-coset evaluation once the stream has
 * passed it: when it is set the call returns CUZK_CANCELLED with the
 * stream idle, h unspecified. */
cuzk_status cuda_ntt_quotient_dev_stoppable(const cuda_ntt_plan *p, void *h, void *a, void *b,
                                            void *c, bool compute_c, void *stream,
                                            const void *stop, cuzk_err *err);
/* bellperson's quotient (docs/FORMATS.md §5.5) on device buffers, for a
 * plan made with coset_gen = g, in six transforms where the definition
 * takes seven: a, b, c hold evaluations on the domain {omega^i}
 * (Montgomery); a and b are taken to the coset {g omega^j} in place, c to
 * its coefficients c_i, a gets t_j = a_j b_j / (g^n - 1), and h the n
 * values h_i = g^-i (iNTT t)_i - c_i / (g^n - 1), as canonical 32-byte
 * little-endian integers (h may be c).  Why that is the quotient: when
 * a b - c vanishes on the domain, A B = C + H (x^n - 1) with deg C < n and
 * deg H <= n - 2, so on the coset, where x^n = g^n, the product
 * interpolates to C + (g^n - 1) H, and the coset's interpolation of C is
 * C itself; h_i is H's coefficient, and h_(n-1) is 0.  For other inputs h
 * is neither the definition's nor a quotient (no proof made from it
 * verifies).  a, b, c are overwritten.  stop as for
 * cuda_ntt_quotient_dev_stoppable (polled after each coset evaluation). */
cuzk_status cuda_ntt_coset_quotient_dev(const cuda_ntt_plan *p, void *h, void *a, void *b,
                                        void *c, void *stream, const void *stop, cuzk_err *err);

/* The same from host memory, on one stream: uploads a and b (and c when not
 * NULL; NULL means c = a o b, as the backend op) into the plan's buffers
 * 0..2 (the plan needs 3), runs cuda_ntt_quotient_dev with h in buffer 2,
 * downloads h (32 n bytes) and waits for the stream.  Host memory that is
 * pinned (cudaHostAlloc) copies about 8 times faster than pageable. */
cuzk_status cuda_ntt_quotient(cuda_ntt_plan *p, void *h, const void *a, const void *b,
                              const void *c, void *stream, cuzk_err *err);

/* Stream-ordered copies between host memory and the plan's buffer i
 * (32 n bytes), a fill of buffer i with one byte value (to poison outputs),
 * and a wait for the stream.  Emulated plans copy at once. */
cuzk_status cuda_ntt_upload(cuda_ntt_plan *p, unsigned i, const void *host, void *stream,
                            cuzk_err *err);
cuzk_status cuda_ntt_download(cuda_ntt_plan *p, void *host, unsigned i, void *stream,
                              cuzk_err *err);
cuzk_status cuda_ntt_fill(cuda_ntt_plan *p, unsigned i, int byte, void *stream, cuzk_err *err);
cuzk_status cuda_ntt_sync(const cuda_ntt_plan *p, void *stream, cuzk_err *err);

/* Timing (benchmarks): runs `op` on the plan's buffers (one for the
 * transforms; the quotient uses 0..3 with h in 3, so it needs 4 buffers, and
 * recomputes c each run) once to warm up and then `reps` times (1..63) on a
 * private stream, each run timed by CUDA events; *ms gets the median.  The
 * transforms run on their own output again and again: upload fresh input
 * afterwards to check a result. */
typedef enum {
  CUDA_NTT_OP_FORWARD,
  CUDA_NTT_OP_FORWARD_BITREV,
  CUDA_NTT_OP_INVERSE,
  CUDA_NTT_OP_TO_ODD_COSET,
  CUDA_NTT_OP_QUOTIENT,
  CUDA_NTT_OP_COSET_QUOTIENT, /* cuda_ntt_coset_quotient_dev: 4 buffers, a coset_gen plan */
  CUDA_NTT_OP_COUNT
} cuda_ntt_op;
cuzk_status cuda_ntt_time(cuda_ntt_plan *p, cuda_ntt_op op, unsigned reps, double *ms,
                          cuzk_err *err);

#ifdef __cplusplus
}
#endif
#endif
