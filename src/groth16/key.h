/* A proving key of either kind behind one interface: what the engine
 * holds and proves with (src/engine), so that no layer above the provers
 * knows a zkey_file from a bellperson key.
 *
 *   GROTH16_KEY_ZKEY  a snarkjs .zkey (zkey.h): a and b from its
 *                     coefficient section, c = a o b, the 5^t-root domain
 *                     and its odd coset, the queries over every variable
 *                     (groth16_prove_zkey);
 *   GROTH16_KEY_BP    a bellperson .params with its circuit's PCE (bp.h,
 *                     pce.h): a, b, c from the three matrices, the 7^t-root
 *                     domain and the coset 7, the a and b queries filtered
 *                     by the PCE's densities, h over m - 1 bases
 *                     (bp_prove_values).
 *
 * Either way a partition's witness is n_vars canonical values, ONE first
 * and the public inputs after it, and its proof is 192 compressed bytes.
 * A groth16_key holds pointers to the kind's objects, which the caller
 * keeps alive and unchanged while the key is used. */
#ifndef CUZK_GROTH16_KEY_H
#define CUZK_GROTH16_KEY_H

#include "groth16/bp.h"
#include "groth16/pce.h"
#include "groth16/prove.h"
#include "groth16/zkey.h"
#include "poly/ntt.h"

typedef enum { GROTH16_KEY_ZKEY, GROTH16_KEY_BP } groth16_key_kind;

typedef struct {
  groth16_key_kind kind;
  uint64_t n_vars;   /* the witness's values */
  uint64_t n_public; /* public inputs, ONE not counted */
  unsigned lg_domain;
  ntt_roots roots;   /* the domain's root chain */
  const zkey_file *zk; /* GROTH16_KEY_ZKEY */
  const bp_params *bp; /* GROTH16_KEY_BP: the key and its circuit */
  const pce_file *pce;
} groth16_key;

/* The key of an open zkey. */
groth16_key groth16_key_of_zkey(const zkey_file *zk);
/* The key of a bellperson key and its circuit, after bp_check_key (names
 * for its message): CUZK_FORMAT when their counts disagree. */
cuzk_status groth16_key_of_bp(groth16_key *k, const bp_params *pp, const pce_file *pce,
                              const char *key_name, const char *pce_name, cuzk_err *err);

/* One partition's verified proof from witness w (n_vars values below r,
 * w's prime the key's: checked), with the kind's prover.  opts and the
 * errors as groth16_prove_zkey's and bp_prove_values'. */
cuzk_status groth16_key_prove(groth16_proof *proof, const groth16_key *k, const wtns_file *w,
                              const char *name, backend *be, const groth16_prove_opts *opts,
                              const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err);

/* The same from the values alone (n_vars canonical 32-byte little-endian
 * values, ONE first; name stands for them in messages): CUZK_INVALID_
 * ARGUMENT for a value not below r.  What an embedder that has the
 * assignment, not a .wtns file, calls (the C API). */
cuzk_status groth16_key_prove_values(groth16_proof *proof, const groth16_key *k,
                                     const uint8_t *values, const char *name, backend *be,
                                     const groth16_prove_opts *opts, const cuzk_stop *stop,
                                     groth16_timings *tm, cuzk_err *err);

/* Every point of the key valid (on its curve, in its subgroup where the
 * kind asks it; bellperson's vectors hold no infinity), on `threads`
 * threads (0: all): CUZK_OK, else CUZK_FORMAT naming the first bad point. */
cuzk_status groth16_key_check_points(const groth16_key *k, unsigned threads, cuzk_err *err);

#endif
