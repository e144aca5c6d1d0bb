/* A proof's outputs (proof.h). */
#include <stdlib.h>

#include "ec/encode.h"
#include "groth16/json.h"
#include "groth16/proof.h"

void groth16_proof_encode(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof *p) {
  bls12_381_g1_encode_compressed(out, &p->a);
  bls12_381_g2_encode_compressed(out + BLS12_381_G1_COMPRESSED_BYTES, &p->b);
  bls12_381_g1_encode_compressed(out + BLS12_381_G1_COMPRESSED_BYTES + BLS12_381_G2_COMPRESSED_BYTES,
                                 &p->c);
}

_Static_assert(GROTH16_PROOF_BYTES ==
                   2 * BLS12_381_G1_COMPRESSED_BYTES + BLS12_381_G2_COMPRESSED_BYTES,
               "A || B || C compressed");

cuzk_status groth16_proof_json(char **proof_json, char **public_json, const groth16_proof *p,
                               const wtns_file *w, uint64_t n_public, cuzk_err *err) {
  *proof_json = *public_json = NULL;
  if (w->n8 != 32 || w->n_witness < n_public + 1)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "proof JSON: a witness of %llu values of %u bytes has no %llu public "
                        "signals of 32 bytes after the constant 1",
                        (unsigned long long)w->n_witness, w->n8, (unsigned long long)n_public);
  char *pj = json_proof_string(p);
  if (!pj)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for proof.json");
  char *pub = json_public_string(wtns_value(w, 1), (size_t)n_public);
  if (!pub) { /* wtns_open refused values >= r already, so this is memory */
    free(pj);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for public.json (or a signal >= r)");
  }
  *proof_json = pj, *public_json = pub;
  return CUZK_OK;
}
