/* A Groth16 proof's outputs: the 192 bytes of the daemon's replies and
 * snarkjs's proof.json and public.json.  The engine and `cuzk prove` make
 * them here, from the proof's points and its witness. */
#ifndef CUZK_GROTH16_PROOF_H
#define CUZK_GROTH16_PROOF_H

#include <stdint.h>

#include "base/err.h"
#include "groth16/types.h"
#include "groth16/wtns.h"

/* Compressed A (48 bytes) || B (96) || C (48), ec/encode.h's encodings. */
#define GROTH16_PROOF_BYTES 192

/* p's points must be on their curves (the prover's are: it verified them). */
void groth16_proof_encode(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof *p);

/* proof.json and public.json for p, made from witness w of a key with
 * n_public public inputs (its values 1..n_public), as `snarkjs groth16
 * prove` writes them (groth16/json.h): two malloc'd strings the caller
 * frees.  On failure both are NULL: INVALID_ARGUMENT for a witness that
 * is not of 32-byte values or has fewer than n_public + 1 of them;
 * NO_MEMORY (also for a public value >= r, which wtns_open refuses). */
cuzk_status groth16_proof_json(char **proof_json, char **public_json, const groth16_proof *p,
                               const wtns_file *w, uint64_t n_public, cuzk_err *err);

#endif
