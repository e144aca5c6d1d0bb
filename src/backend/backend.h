/* backend.h: the one interface between the Groth16 prover and the hardware
 * that runs its heavy steps.
 *
 * DESIGN: a backend is a table of functions plus a capability query (docs/DESIGN.md
 * §2.1): the prover asks `backend_supports(b, curve, op)` instead of using
 * #ifdef, and calls the same entry points on the CPU backend (cpu/) and the
 * CUDA backend (cuda/, made through the device registry, device.h).  Every
 * operation is deterministic and must give results identical to the CPU
 * backend's, bit for bit, which is what the backend tests check
 * (tests/unit/test_backend_cpu.c, tests/gpu/test_gpu_backend.c).  Inputs
 * are host memory; pointers into mapped files may be unaligned, so
 * byte-layout arguments are `const void *`.  The caller owns all buffers
 * (docs/DESIGN.md §2.1); a backend allocates only its own scratch.  A backend
 * object is used by one prover at a time.
 *
 * Stopping: while the caller's stop hook (struct backend's stop, base/stop.h)
 * is set, zkey_ab, quotient, msm_g1 and msm_g2 end early with CUZK_CANCELLED:
 * the CPU backend between chunks of its loops (a batch of an MSM window's
 * bucket accumulation, a block of NTT columns or rows, a slice of the
 * coefficient entries or of the pointwise products), the CUDA backend
 * between the kernel launches of a stage, after waiting for the launches
 * already made on its own stream (never the device), so that the stream is
 * idle and its buffers free for the next operation.  A stopped operation
 * frees what it allocated; its outputs are unspecified. */
#ifndef CUZK_BACKEND_H
#define CUZK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/stop.h"
#include "ec/bls12_381.h"
#include "groth16/pce.h"
#include "msm/msm.h"

typedef enum { CUZK_CURVE_BLS12_381 = 1, CUZK_CURVE_BN254 = 2 } cuzk_curve;

typedef enum {
  BACKEND_OP_ZKEY_AB,    /* a, b from the zkey coefficient section and a witness */
  BACKEND_OP_QUOTIENT,   /* h on the odd coset from a, b (snarkjs, 6 NTTs) */
  BACKEND_OP_MSM_G1,
  BACKEND_OP_MSM_G2,
  BACKEND_OP_BP_SUMS,    /* a bellperson-convention partition's MSM sums (bp_sums) */
  BACKEND_OP_COUNT
} backend_op;

/* What bp_sums needs of a bellperson key and its circuit (docs/FORMATS.md
 * §5.5): the domain, the variables (n_inputs counts ONE), the constraint
 * matrices (pce: a, b, c = A w, B w, C w; NULL when a, b, c are given),
 * the density bitmaps of the a and b queries (a_aux over the aux
 * variables, b_input over the inputs, b_aux over the aux: pce's own, or a
 * synthesized assignment's), and the key's query bases in the layout of
 * msm.h: a (n_inputs + |a_aux|: every input, then the aux with A terms),
 * b_g1 and b_g2 (|b_input| + |b_aux|), l (n_aux), h (2^lg_domain - 1).
 * The caller checked every count against the others (bp_check_key) and
 * keeps every array unchanged while a backend may hold copies of them
 * (hold_bases). */
typedef struct {
  unsigned lg_domain;
  size_t n_inputs, n_aux;
  const pce_file *pce;
  const pce_density *a_aux, *b_input, *b_aux;
  const bls12_381_g1_aff *a, *b_g1, *l, *h;
  const bls12_381_g2_aff *b_g2;
  size_t n_a, n_b;
} backend_bp_key;

/* a, b, c given instead of evaluated (SupraSeal's boundary): rows values
 * each (rows <= 2^lg_domain, the rest of the domain zero), canonical
 * 32-byte little-endian, each below r (the caller checked). */
typedef struct {
  const void *a, *b, *c;
  size_t rows;
} backend_bp_abc;

/* A partition's four MSM sums and where the time went (seconds, each
 * stage's device work waited for). */
typedef struct {
  bls12_381_g1_jac a, b1, lh; /* the a query, the b query in G1, l + h */
  bls12_381_g2_jac b2;        /* the b query in G2 */
  double abc_s, h_s, msm_s[4]; /* a, b, c; h; the MSMs a, b1, b2, l + h */
  size_t bad1; /* bp_sums failed for a value not below r: 1 + its index (else 0) */
} backend_bp_sums;

typedef struct backend backend;

/* A stretch of a backend's device work, for timelines (executor tests and
 * benchmarks): host monotonic seconds (cuzk_now_s) around host-to-device
 * copies of a proof's vectors (UPLOAD) or around kernels and the small
 * copies that go with them (COMPUTE), each ended by a wait on the
 * backend's own stream. */
typedef enum { BACKEND_SPAN_UPLOAD, BACKEND_SPAN_COMPUTE } backend_span_kind;
typedef struct {
  backend_span_kind kind;
  double t0, t1;
} backend_span;

/* Priority of a backend's device work (set_priority). */
typedef enum { BACKEND_PRI_NORMAL, BACKEND_PRI_HIGH } backend_priority;

typedef struct {
  const char *name;
  bool (*supports)(const backend *b, cuzk_curve curve, backend_op op);
  /* May be NULL.  Sets aside, before a proof's first operation, what the
   * operations need for G1 MSMs of up to max_g1 points, G2 MSMs of up to
   * max_g2 and a quotient over 2^lg_domain (0: none), so that they allocate
   * nothing later (the GPU's device memory). */
  cuzk_status (*reserve)(backend *b, size_t max_g1, size_t max_g2, unsigned lg_domain,
                         cuzk_err *err);
  /* May be NULL.  on: from now on the backend may keep copies of the MSM
   * base arrays it is given (in device memory, for a GPU) and reuse them
   * when the same arrays - same addresses and counts - come again: a key
   * kept resident between proofs.  The caller then keeps those arrays
   * unchanged and mapped until hold_bases(b, false), which lets go of
   * every copy: a copy shared with other backends of the same GPU (their
   * store, backend/store.h) is freed when the last of them lets go. */
  cuzk_status (*hold_bases)(backend *b, bool on, cuzk_err *err);
  /* May be NULL.  Host memory for the prover's working vectors (n field
   * elements), from the backend because it can move that memory faster
   * than malloc's (the CUDA backend: page-locked, made once and kept for
   * later proofs of the same or a smaller size).  The memory stays the
   * backend's: valid until the next host_vectors call or destroy.  NULL,
   * with err set, on failure. */
  bls12_381_fr *(*host_vectors)(backend *b, size_t n, cuzk_err *err);
  /* May be NULL.  Host memory of at least `bytes` for a proof's inputs
   * (the witness values), on the same terms as host_vectors' and apart
   * from it: a caller that copies the witness there gets its uploads (the
   * MSM scalars, the a, b witness) at the bus's speed instead of through
   * pageable bounce buffers.  NULL, with err set, on failure. */
  void *(*host_staging)(backend *b, size_t bytes, cuzk_err *err);
  /* May be NULL (with host_staging).  Exchanges the staging for p, `bytes`
   * of page-locked memory from backend_device_host_alloc of this
   * backend's device provider (backend/device.h), when the staging holds
   * at least `bytes`: the backend keeps p as its staging (as if made by
   * host_staging(b, bytes)) and returns the one it had, *old_bytes its
   * size, which the caller now owns and frees with
   * backend_device_host_free.  NULL, nothing changed, when the staging is
   * smaller or the backend cannot take such memory (an emulated one).  A
   * witness read ahead into a buffer of the engine's becomes the
   * staging's contents without a copy (engine/readahead.c). */
  void *(*host_staging_swap)(backend *b, void *p, size_t bytes, size_t *old_bytes);
  /* a[row] += c*w[wire] (m = 0) or b[row] += c*w[wire] (m = 1) for each
   * 44-byte zkey coefficient entry {u32 m, u32 row, u32 wire, 32-byte c*R^2};
   * a and b (n elements, Montgomery) are zeroed first.  Entries were
   * validated by the reader (row < n, wire < n_witness, m in {0,1}), in
   * memory that stays unchanged (zkey.h: a mapped key's entries are a
   * copy the zkey_file owns).  The CPU backend checks every entry again
   * and fails with CUZK_FORMAT, writing nothing out of bounds, for one
   * that is not (cpu.c ab_add); the CUDA copy checks the rows when it is
   * made (cuda/ab_gpu.cu) and relies on the reader for the rest.
   * witness: n_witness canonical 32-byte little-endian values. */
  cuzk_status (*zkey_ab)(backend *b, bls12_381_fr *a, bls12_381_fr *bv, size_t n,
                         const void *entries, size_t n_entries, const void *witness,
                         size_t n_witness, cuzk_err *err);
  /* docs/FORMATS.md §3.6 steps 3-4: with c = a o b, evaluate a, b, c on the odd
   * coset {w_2n^(2j+1)} and write h_j = a_j b_j - c_j as canonical 32-byte
   * little-endian integers into h (n entries; h may alias c).  a, b and c
   * (n = 2^lg_n elements each) are scratch and are overwritten. */
  cuzk_status (*quotient)(backend *b, void *h, bls12_381_fr *a, bls12_381_fr *bv,
                          bls12_381_fr *c, unsigned lg_n, cuzk_err *err);
  /* out = sum over the parts of sum scalars[i]*bases[i] (msm/msm.h
   * msm_part): bases in the zkey point layout (x, y little-endian
   * Montgomery, infinity all zero); scalars canonical 32-byte little-endian,
   * < r.  Several parts are one MSM over their concatenation (Groth16's C
   * and H sums). */
  cuzk_status (*msm_g1)(backend *b, bls12_381_g1_jac *out, const msm_part *parts,
                        size_t nparts, cuzk_err *err);
  cuzk_status (*msm_g2)(backend *b, bls12_381_g2_jac *out, const msm_part *parts,
                        size_t nparts, cuzk_err *err);
  /* One bellperson-convention partition up to its MSM sums (docs/FORMATS.md
   * §5.5): a, b, c = A w, B w, C w (or abc's, when not NULL); h, the
   * coefficients of (a b - c) / (x^m - 1) through the coset 7 of the
   * 7^t-root domain; and the sums of the a, b (G1, G2) and l + h queries.
   * values: n_inputs + n_aux canonical 32-byte little-endian values, ONE
   * first; each is checked to be below r where the backend reads it (on
   * the GPU after its upload: no host pass over them), CUZK_INVALID_
   * ARGUMENT and out->bad1 1 + its index for the first that is not.  The CPU backend works in
   * host memory; the CUDA backend keeps everything on the GPU (the values
   * go up once, the matrices and bases are resident copies, only the
   * sums come back).  CUZK_CANCELLED under the stop hook, at its stage
   * boundaries (and inside the CPU's stages). */
  cuzk_status (*bp_sums)(backend *b, backend_bp_sums *out, const backend_bp_key *k,
                         const void *values, const backend_bp_abc *abc, cuzk_err *err);
  /* May be NULL.  reserve's counterpart for bp_sums: sets aside what
   * bp_sums needs for keys of up to n_vars variables (ONE, inputs and
   * aux), n_aux aux, a queries of up to n_a points and b queries of up to
   * n_b, over 2^lg_domain, so that a slot plans its memory at start. */
  cuzk_status (*reserve_bp)(backend *b, unsigned lg_domain, size_t n_vars, size_t n_aux,
                            size_t n_a, size_t n_b, cuzk_err *err);
  /* May be NULL (the caller then uses the CPU's comb, groth16/keygen).
   * out[i] := k[i] g for i < n, in G2 when g2 else G1: g affine (the host
   * layout, not infinity), k canonical 4-limb scalars below r, out affine
   * Montgomery in the host layout, all zero bytes for k[i] = 0; the same
   * bytes as the CPU's products.  A key's set-up, not a proof's path: the
   * backend may allocate (the CUDA backend: a window table of g and chunk
   * buffers, cuda/fixed_gpu.h). */
  cuzk_status (*fixed_base)(backend *b, bool g2, const void *g, const limb_t (*k)[4], size_t n,
                            void *out, cuzk_err *err);
  /* May be NULL.  The priority of the device work of the operations that
   * follow (the CUDA backend: its high- or normal-priority stream, made at
   * creation, carries every operation's copies and kernels, the MSMs'
   * included), so that a high-priority proof's kernels go first when
   * several backends share a GPU. */
  void (*set_priority)(backend *b, backend_priority p);
  /* May be NULL.  Moves up to cap spans recorded since the last call
   * (oldest first) to out and forgets them; returns how many.  A backend
   * keeps at most a few thousand; older ones are dropped. */
  size_t (*take_spans)(backend *b, backend_span *out, size_t cap);
  /* May be NULL.  One line (always NUL-terminated) saying what the
   * backend runs on and how, e.g. its GPU and the NTT plans it made. */
  void (*describe)(const backend *b, char *buf, size_t n);
  void (*destroy)(backend *b);
} backend_ops;

struct backend {
  const backend_ops *ops;
  unsigned threads; /* CPU worker threads this backend may use */
  /* The stop hook its operations poll (NULL: none), set by the prover
   * (groth16_prove_zkey_stoppable) for the length of one proof; the flag
   * is the caller's and outlives the proof. */
  const cuzk_stop *stop;
  void *impl;
};

static inline bool backend_supports(const backend *b, cuzk_curve curve, backend_op op) {
  return b->ops->supports(b, curve, op);
}

/* The CPU backend; threads = 0 means all online CPUs.  NULL on no memory.
 * Backends of other devices come from the registry (device.h). */
backend *backend_cpu_new(unsigned threads);
/* b->ops->destroy(b); NULL is fine. */
void backend_free(backend *b);

#endif
