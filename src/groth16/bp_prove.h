/* Groth16 proving for bellperson keys from Curio's constraint files
 * (docs/FORMATS.md §5.5): the post-synthesis path of Filecoin circuits. */
#ifndef CUZK_GROTH16_BP_PROVE_H
#define CUZK_GROTH16_BP_PROVE_H

#include "backend/backend.h"
#include "groth16/bp.h"
#include "groth16/pce.h"
#include "groth16/prove.h"
#include "groth16/wtns.h"

/* CUZK_OK when the key's vector lengths are those of the circuit: n_ic =
 * inputs, n_l = aux, n_h = m - 1 (m: pce_domain_lg), n_a = inputs + |a_aux|, n_b_g1 = n_b_g2 =
 * |b_input| + |b_aux|; else CUZK_FORMAT naming both files and the first
 * count that disagrees.  key_name, pce_name: for the message. */
cuzk_status bp_check_key(const bp_params *pp, const pce_file *pce, const char *key_name,
                         const char *pce_name, cuzk_err *err);

/* A partition's assignment as synthesis hands it over (SupraSeal's
 * boundary, docs/FORMATS.md §5.5): the values are canonical 32-byte
 * little-endian integers, inputs[0] = ONE; the density bitmaps say which
 * variables the a and b queries hold (bit i of words[i / 64]). */
typedef struct {
  const uint8_t *inputs;
  size_t n_inputs;
  const uint8_t *aux;
  size_t n_aux;
  const pce_density *a_aux, *b_input, *b_aux;
  const char *name; /* names the assignment in messages */
} bp_assignment;

/* The backend's view (backend.h bp_sums) of key pp for a circuit of
 * n_inputs (ONE included) and n_aux variables over 2^lg_domain, with these
 * densities and matrices (pce NULL: a, b, c are given). */
backend_bp_key bp_key_view(const bp_params *pp, const pce_file *pce, const pce_density *a_aux,
                           const pce_density *b_input, const pce_density *b_aux,
                           size_t n_inputs, size_t n_aux, unsigned lg_domain);

/* One partition's proof from its witness w (the whole assignment in the
 * PCE's column order: ONE, the inputs, the aux): a, b, c = A w, B w, C w
 * (pce_eval); h, the m - 1 monomial coefficients of (a b - c) / Z over the
 * domain of 7^t roots, through the coset g = 7; the MSMs
 *     pa  = sum a-query     (inputs in full, aux filtered by a_aux)
 *     pb  = sum b-query     (G1 and G2; inputs by b_input, aux by b_aux)
 *     pch = sum aux l + sum h H
 * and groth16_assemble; the proof is verified against the key's own vk
 * before it is returned, as every cuzk prover does.  opts: fixed_r,
 * fixed_s, progress and check_key as for groth16_prove_zkey (without
 * check_key a proof that fails verification blames the witness: the key
 * was checked when read, unless read as trusted).
 * Errors: CUZK_FORMAT when the witness is not the circuit's (count, prime)
 * or the key's counts are not (bp_check_key), CUZK_UNSATISFIED when the
 * proof fails verification (the witness does not satisfy the circuit or
 * the key is another circuit's), CUZK_CANCELLED under stop, CUZK_NO_MEMORY.
 * Memory: 3 m + the filtered scalars (<= inputs + 2 aux) field elements
 * besides the key, the PCE and the witness.  tm may be NULL; its ab_s is
 * the a, b, c evaluation, quotient_s the h polynomial, msm_each_s A, B1,
 * B2 (G2), L + H. */
cuzk_status bp_prove(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
                     const wtns_file *w, backend *be, const groth16_prove_opts *opts,
                     const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err);

/* The same from the assignment's values alone (n_inputs + n_aux canonical
 * 32-byte little-endian values, ONE first; name stands for them in
 * messages): CUZK_INVALID_ARGUMENT for a value >= r.  bp_prove is this on
 * a .wtns file's values, after checking its prime and count. */
cuzk_status bp_prove_values(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
                            const uint8_t *values, const char *name, backend *be,
                            const groth16_prove_opts *opts, const cuzk_stop *stop,
                            groth16_timings *tm, cuzk_err *err);

/* The same from a, b, c already evaluated (abc_size rows each, canonical
 * 32-byte little-endian; the rows up to the domain are zero) and the
 * assignment.  The domain is the key's (m = n_h + 1, a power of two >=
 * abc_size); the counts are checked against the key as bp_check_key does,
 * and every value is checked to be < r.  Errors as bp_prove's. */
cuzk_status bp_prove_assignment(groth16_proof *proof, const bp_params *pp, const bp_assignment *as,
                                const uint8_t *a, const uint8_t *b, const uint8_t *c,
                                size_t abc_size, backend *be, const groth16_prove_opts *opts,
                                const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err);

#endif
