/* cuzk's C API at the post-synthesis boundary: what a Rust prover such as
 * bellperson or filecoin-proofs links against (libcuzk.so) to have its
 * Groth16 partitions proven by cuzk, after its own synthesis, as it would
 * link SupraSeal's C2.
 *
 * Objects: a key (bellperson .params, resident in memory once opened), a
 * circuit (Curio's constraint file, PCE .bin: the R1CS as matrices, so that
 * a witness alone is enough) and a prover (a device: the CPU or a GPU, and
 * its threads).  Each is opened once and used for any number of proofs;
 * keys and circuits are read-only after opening and may be shared by
 * provers in several threads; one prover is used by one thread at a time.
 *
 * Values: field elements are canonical (not Montgomery) 32-byte
 * little-endian integers below r; a proof is 192 bytes, compressed A (48)
 * || B (96) || C (48) in the zcash encoding, partitions concatenated in
 * order (Filecoin's MultiProof).  Every proof is verified against the key
 * before it is returned: a function that returns CUZK_OK has written only
 * valid proofs.
 *
 * Errors: every function returns a cuzk_status (cuzk/status.h) and, when
 * err is not NULL, a message naming the file, the partition and the field
 * at fault.  Nothing aborts the process. */
#ifndef CUZK_CUZK_H
#define CUZK_CUZK_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_PROOF_BYTES 192
#define CUZK_FR_BYTES 32

typedef struct {
  cuzk_status status;
  char msg[512];
} cuzk_error;

typedef struct cuzk_key cuzk_key;
typedef struct cuzk_circuit cuzk_circuit;
typedef struct cuzk_prover cuzk_prover;
typedef struct cuzk_vk cuzk_vk;

/* "0.4.0": the library's version (cuzk/version.h). */
CUZK_API const char *cuzk_version(void);

/* ---- keys and circuits */

/* CUZK_KEY_TRUSTED: skip the on-curve and subgroup checks of the key's
 * points (a file you made or checked before; every proof is verified
 * anyway, so a bad point gives an error, never a bad proof). */
#define CUZK_KEY_TRUSTED 1u

/* Opens a key: a bellperson .params file, read into memory (its points
 * checked unless CUZK_KEY_TRUSTED), or a snarkjs .zkey (BLS12-381,
 * recognised by its magic; mapped, its structure and coefficients
 * checked, its points checked when a proof with it fails). */
CUZK_API cuzk_status cuzk_key_open(cuzk_key **key, const char *path, unsigned flags,
                                   cuzk_error *err);
CUZK_API void cuzk_key_free(cuzk_key *key);

/* Opens a PCE constraint file into memory (every field validated). */
CUZK_API cuzk_status cuzk_circuit_open(cuzk_circuit **circuit, const char *path, cuzk_error *err);
CUZK_API void cuzk_circuit_free(cuzk_circuit *circuit);
/* The circuit's inputs (ONE included), aux variables and rows (input rows
 * included).  Any pointer may be NULL. */
CUZK_API void cuzk_circuit_shape(const cuzk_circuit *circuit, uint64_t *n_inputs, uint64_t *n_aux,
                                 uint64_t *n_rows);

/* ---- proving */

/* device: "cpu", "gpu" (an error when no GPU is usable) or "auto";
 * threads: CPU threads, 0 = all online CPUs. */
CUZK_API cuzk_status cuzk_prover_new(cuzk_prover **prover, const char *device, unsigned threads,
                                     cuzk_error *err);
CUZK_API void cuzk_prover_free(cuzk_prover *prover);

typedef struct {
  /* TESTING ONLY: k blinding pairs (r, s), 32 bytes each, instead of fresh
   * random ones; NULL in production. */
  const uint8_t *fixed_r, *fixed_s;
} cuzk_prove_options;

/* k partitions from their full assignments: assignments[p] holds the
 * circuit's n_inputs + n_aux values in its column order (ONE, the inputs,
 * the aux), canonical 32-byte little-endian.  A .zkey key takes no circuit
 * (NULL: it carries its constraints) and its nVars values in its wire
 * order.  proofs: k x 192 bytes.  options may be NULL. */
CUZK_API cuzk_status cuzk_prove_witness(cuzk_prover *prover, const cuzk_key *key,
                                        const cuzk_circuit *circuit,
                                        const uint8_t *const *assignments, size_t k,
                                        uint8_t *proofs, const cuzk_prove_options *options,
                                        cuzk_error *err);

/* One partition as bellperson's synthesis leaves it (no constraint file):
 * the A, B and C evaluations (abc_size values each), the input and aux
 * assignments, and the density bitmaps of the a and b queries (bit i of
 * word i / 64 set when variable i has terms in A resp. B; ceil(n / 64)
 * words, zero padding bits). */
typedef struct {
  const uint8_t *a, *b, *c;
  size_t abc_size;
  const uint8_t *inputs; /* n_inputs values, ONE first */
  size_t n_inputs;
  const uint8_t *aux;
  size_t n_aux;
  const uint64_t *a_aux_density, *b_input_density, *b_aux_density;
} cuzk_assignment;

CUZK_API cuzk_status cuzk_prove_assignment(cuzk_prover *prover, const cuzk_key *key,
                                           const cuzk_assignment *parts, size_t k,
                                           uint8_t *proofs, const cuzk_prove_options *options,
                                           cuzk_error *err);

/* ---- verifying */

/* A bellperson .vk file, or the vk of an open key (cuzk_vk_of_key). */
CUZK_API cuzk_status cuzk_vk_open(cuzk_vk **vk, const char *path, cuzk_error *err);
CUZK_API cuzk_status cuzk_vk_of_key(cuzk_vk **vk, const cuzk_key *key, cuzk_error *err);
CUZK_API void cuzk_vk_free(cuzk_vk *vk);
/* The number of public inputs a proof has (the vk's inputs without ONE). */
CUZK_API size_t cuzk_vk_public_inputs(const cuzk_vk *vk);

/* CUZK_OK when all k proofs verify: public holds k x cuzk_vk_public_inputs
 * values.  CUZK_VERIFY_FAILED naming the first partition that does not
 * (in *bad when bad is not NULL), CUZK_FORMAT for proof bytes that do not
 * decode (off the curve, outside the subgroup, infinity). */
CUZK_API cuzk_status cuzk_verify(const cuzk_vk *vk, const uint8_t *public_inputs,
                                 const uint8_t *proofs, size_t k, size_t *bad, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
