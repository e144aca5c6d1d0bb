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
 * A groth16_key holds pointers to the kind's objects: a view
 * (groth16_key_of_*) points to the caller's, which the caller keeps alive
 * and unchanged while the key is used; an owning key (groth16_key_open_*,
 * groth16_key_read_bp) holds objects of its own, which groth16_key_close
 * frees (a view's close frees nothing).  A key may be moved by copying the
 * struct; the copy is then the one to close. */
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
  struct groth16_key_own *own; /* an owning key's objects; NULL for a view */
} groth16_key;

/* The key of an open zkey. */
groth16_key groth16_key_of_zkey(const zkey_file *zk);
/* The key of a bellperson key and its circuit, after bp_check_key (names
 * for its message): CUZK_FORMAT when their counts disagree. */
cuzk_status groth16_key_of_bp(groth16_key *k, const bp_params *pp, const pce_file *pce,
                              const char *key_name, const char *pce_name, cuzk_err *err);

/* An owning key of the .zkey whose bytes are mem[0..len) (zkey_open_mem:
 * mem stays the caller's, alive and unchanged until the close; name for
 * messages). */
cuzk_status groth16_key_open_zkey_mem(groth16_key *k, const void *mem, size_t len,
                                      const char *name, cuzk_err *err);
/* An owning key of a bellperson .params and its circuit's PCE, read into
 * memory (bp_params_read, its point checks skipped when trusted;
 * pce_open) and checked against each other (groth16_key_of_bp). */
cuzk_status groth16_key_read_bp(groth16_key *k, const char *params_path, const char *pce_path,
                                bool trusted, cuzk_err *err);
/* Frees what an owning key holds (nothing for a view) and zeroes *k. */
void groth16_key_close(groth16_key *k);

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
