/* Groth16 objects shared by the readers, prover and verifier: see types.h. */
#include "groth16/types.h"

#include <stdlib.h>

void groth16_vk_fini(groth16_vk *vk) {
  free(vk->ic);
  vk->ic = NULL;
  vk->n_public = 0;
}
