/* Development circuits in PCE form (`cuzk circuit gen`): synthetic R1CS with
 * the constraint and input counts, nnz per matrix and A/B densities of
 * Filecoin's circuits, and witnesses that satisfy them.
 *
 * DESIGN
 * Rows: [input rows][blocks ...][dummy rows].  Input row k-1 (k = 1 ..
 * num_inputs-1): input_k * ONE = z_k (z_k = aux k-1).  A block is
 *   nb BOOL rows   x*x = x           (x fresh bits; the only aux in B)
 *   nx XOR rows    (2a)*(b) = a+b-c  (a the previous XOR output, b a BOOL
 *                                     bit, c = a xor b fresh)
 *   np PACK rows   (2^m w' + sum 2^u c_u) * ONE = w  (m XOR outputs, w' the
 *                                     previous pack: larger values)
 *   nk CHECK rows  x*x = x on a BOOL bit again (no new variable)
 * The per-block counts are floor((b+1) n / B) - floor(b n / B) of global
 * counts n, and pack p has floor((p+1) T / P) - floor(p T / P) A terms, so
 * every block's rows, variables and nnz offsets have closed forms: blocks
 * are generated in parallel (par_run), linear in time and memory.  The
 * witness is 0/1 but for the inputs, z and the pack values. */
#ifndef CUZK_GROTH16_PCE_GEN_H
#define CUZK_GROTH16_PCE_GEN_H

#include "groth16/pce.h"

typedef struct {
  const char *name;
  uint32_t num_inputs;      /* with ONE */
  uint64_t num_constraints; /* with the dummy rows */
  uint64_t num_aux;
  uint64_t nnz_a, nnz_c;    /* nnz_b = the circuit's own rows (one B term each) */
  uint64_t a_aux_pop, b_aux_pop;
} pce_shape;

/* porep-32g, snap-32g, wpost-32g, winning-32g; NULL for another name. */
const pce_shape *pce_shape_find(const char *name);
/* "porep-32g|snap-32g|..." for usage lines. */
const char *pce_shape_names(void);

typedef struct {
  uint32_t ni;               /* inputs, with ONE */
  uint64_t rows;             /* num_constraints, with dummies */
  uint64_t n_in;             /* input rows = ni - 1 */
  uint64_t blocks;
  uint64_t nb, nx, np, nk;   /* BOOL, XOR, PACK, CHECK rows in all */
  uint64_t pack_terms;       /* A terms of all PACK rows */
  uint64_t naux;
} pce_gen_plan;

/* The plan for shape s at full scale (scale_lg 0) or about 2^scale_lg
 * constraints (scale_lg 8..27), the same proportions.  CUZK_INVALID_ARGUMENT
 * when the scale is too small for the shape's gadgets. */
cuzk_status pce_gen_plan_make(pce_gen_plan *p, const pce_shape *s, unsigned scale_lg, cuzk_err *err);
/* The circuit (f zeroed first; pce_close frees it). */
cuzk_status pce_gen_circuit(pce_file *f, const pce_gen_plan *p, cuzk_err *err);
/* A satisfying assignment, w[ni + naux] in Montgomery form: ONE, the inputs
 * (a function of seed and partition), the aux. */
void pce_gen_witness(const pce_gen_plan *p, uint64_t seed, uint32_t partition, bls12_381_fr *w);
/* Writes w (n values, Montgomery) as an iden3 .wtns for BLS12-381. */
cuzk_status pce_write_wtns(const char *path, const bls12_381_fr *w, uint64_t n, cuzk_err *err);

#endif
