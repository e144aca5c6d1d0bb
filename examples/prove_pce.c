/* A small program on cuzk's C API (include/cuzk/cuzk.h, libcuzk.so), the
 * way a Rust prover links it after synthesis: open a bellperson key and a
 * Curio constraint file once, prove k partitions from their assignments,
 * verify them with the key's vk, write the proofs.
 *
 *   prove_pce KEY.params CIRCUIT.bin PROOF.bin WITNESS.wtns [WITNESS.wtns ...]
 *
 * The witnesses are iden3 .wtns files (what `cuzk circuit gen` writes);
 * their values section is the assignment the API takes.  Exit status 0
 * when every partition was proven and verified, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"

/* The values of a .wtns file (section 2), read whole: n x 32 bytes. */
static uint8_t *read_assignment(const char *path, uint64_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "prove_pce: cannot open %s\n", path);
    return NULL;
  }
  uint8_t hdr[76];
  uint8_t *v = NULL;
  /* "wtns", version 2, 2 sections; section 1 (n8, prime, count) of 40
   * bytes, then section 2's header: the values follow at byte 76. */
  if (fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, "wtns", 4) ||
      hdr[24] != 32 || hdr[64] != 2) {
    fprintf(stderr, "prove_pce: %s is not a 32-byte iden3 witness laid out as cuzk writes it\n",
            path);
  } else if (!(v = malloc(n * 32)) || fread(v, 32, n, f) != n) {
    fprintf(stderr, "prove_pce: %s holds fewer than %llu values\n", path, (unsigned long long)n);
    free(v);
    v = NULL;
  }
  fclose(f);
  return v;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: prove_pce KEY.params CIRCUIT.bin PROOF.bin WITNESS.wtns...\n");
    return 2;
  }
  const size_t k = (size_t)argc - 4;
  cuzk_error err = {0};
  cuzk_key *key = NULL;
  cuzk_circuit *circ = NULL;
  cuzk_prover *prover = NULL;
  cuzk_vk *vk = NULL;
  uint8_t **asg = calloc(k, sizeof *asg), *proofs = malloc(k * CUZK_PROOF_BYTES), *pub = NULL;
  int rc = 1;
  printf("cuzk %s\n", cuzk_version());
  if (cuzk_key_open(&key, argv[1], 0, &err) != CUZK_OK ||
      cuzk_circuit_open(&circ, argv[2], &err) != CUZK_OK ||
      cuzk_prover_new(&prover, "auto", 0, &err) != CUZK_OK)
    goto fail;
  uint64_t ninp, naux, rows;
  cuzk_circuit_shape(circ, &ninp, &naux, &rows);
  printf("circuit: %llu inputs, %llu aux, %llu rows; %zu partition(s)\n",
         (unsigned long long)ninp, (unsigned long long)naux, (unsigned long long)rows, k);
  for (size_t p = 0; p < k; p++)
    if (!(asg[p] = read_assignment(argv[4 + p], ninp + naux)))
      goto out;
  if (cuzk_prove_witness(prover, key, circ, (const uint8_t *const *)asg, k, proofs, NULL, &err) !=
      CUZK_OK)
    goto fail;
  /* The public inputs of each partition: its values 1 .. ninp - 1. */
  if (cuzk_vk_of_key(&vk, key, &err) != CUZK_OK)
    goto fail;
  const size_t np = cuzk_vk_public_inputs(vk);
  if (!(pub = malloc(k * np * CUZK_FR_BYTES + 1)))
    goto out;
  for (size_t p = 0; p < k; p++)
    memcpy(pub + p * np * CUZK_FR_BYTES, asg[p] + CUZK_FR_BYTES, np * CUZK_FR_BYTES);
  size_t bad = 0;
  if (cuzk_verify(vk, pub, proofs, k, &bad, &err) != CUZK_OK)
    goto fail;
  FILE *f = fopen(argv[3], "wb");
  if (!f || fwrite(proofs, CUZK_PROOF_BYTES, k, f) != k || fclose(f) != 0) {
    fprintf(stderr, "prove_pce: cannot write %s\n", argv[3]);
    goto out;
  }
  printf("%zu proof(s) verified, %zu bytes written to %s\n", k, k * CUZK_PROOF_BYTES, argv[3]);
  rc = 0;
  goto out;
fail:
  fprintf(stderr, "prove_pce: %s: %s\n", cuzk_status_name(err.status), err.msg);
out:
  for (size_t p = 0; p < k; p++) free(asg[p]);
  free(asg);
  free(proofs);
  free(pub);
  cuzk_vk_free(vk);
  cuzk_prover_free(prover);
  cuzk_circuit_free(circ);
  cuzk_key_free(key);
  return rc;
}
