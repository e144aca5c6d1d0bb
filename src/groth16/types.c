/* Groth16 objects shared by the readers, prover and verifier: see types.h. */
#include "groth16/types.h"

#include "base/bytes.h"
#include "base/par.h"

#include <stdlib.h>

void groth16_vk_fini(groth16_vk *vk) {
  free(vk->ic);
  vk->ic = NULL;
  vk->n_public = 0;
}

typedef struct {
  bls12_381_fr *out;
  const uint8_t *in;
  size_t n, bad; /* the least index of a value >= r, n when none */
} mont_job;

static void mont_part(void *ctx, unsigned idx, unsigned nw) {
  mont_job *j = ctx;
  size_t lo, hi;
  par_range(j->n, idx, nw, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    limb_t x[4];
    limbs_from_le(x, j->in + 32 * i, 4);
    if (!bls12_381_fr_canon_ok(x)) {
      size_t cur = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
      while (i < cur && !__atomic_compare_exchange_n(&j->bad, &cur, i, false, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
      }
      return; /* a later index of this range cannot be the least */
    }
    if (j->out)
      bls12_381_fr_from_canon(&j->out[i], x);
  }
}

size_t groth16_values_to_mont(bls12_381_fr *out, const uint8_t *in, size_t n, unsigned threads) {
  mont_job j = {out, in, n, n};
  par_run(threads ? threads : par_threads(), mont_part, &j);
  return j.bad;
}

size_t groth16_values_check(const uint8_t *in, size_t n, unsigned threads) {
  return groth16_values_to_mont(NULL, in, n, threads);
}

typedef struct {
  uint8_t *out;
  const bls12_381_fr *in;
  size_t n;
} canon_job;

static void canon_part(void *ctx, unsigned idx, unsigned nw) {
  const canon_job *j = ctx;
  size_t lo, hi;
  par_range(j->n, idx, nw, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &j->in[i]);
    limbs_to_le(j->out + 32 * i, x, 4);
  }
}

void groth16_values_from_mont(uint8_t *out, const bls12_381_fr *in, size_t n, unsigned threads) {
  canon_job j = {out, in, n};
  par_run(threads ? threads : par_threads(), canon_part, &j);
}
