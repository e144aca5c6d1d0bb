/* One interface over the two kinds of proving key (key.h). */
#include "groth16/key.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "groth16/bp_prove.h"
#include "groth16/types.h"

groth16_key groth16_key_of_zkey(const zkey_file *zk) {
  groth16_key k;
  memset(&k, 0, sizeof k);
  k.kind = GROTH16_KEY_ZKEY;
  k.n_vars = zk->n_vars;
  k.n_public = zk->n_public;
  k.lg_domain = zk->lg_domain;
  k.roots = NTT_ROOTS_SNARKJS;
  k.zk = zk;
  return k;
}

cuzk_status groth16_key_of_bp(groth16_key *k, const bp_params *pp, const pce_file *pce,
                              const char *key_name, const char *pce_name, cuzk_err *err) {
  memset(k, 0, sizeof *k);
  CUZK_TRY(bp_check_key(pp, pce, key_name, pce_name, err));
  k->kind = GROTH16_KEY_BP;
  k->n_vars = (uint64_t)pce->num_inputs + pce->num_aux;
  k->n_public = pce->num_inputs - 1;
  k->lg_domain = pce_domain_lg(pce);
  k->roots = NTT_ROOTS_BELLPERSON;
  k->bp = pp;
  k->pce = pce;
  return CUZK_OK;
}

/* What an owning key holds: the zkey's index, or the .params and PCE read. */
struct groth16_key_own {
  zkey_file zk;
  bp_params bp;
  pce_file pce;
};

static void own_free(struct groth16_key_own *o, groth16_key_kind kind) {
  if (!o)
    return;
  if (kind == GROTH16_KEY_ZKEY) {
    zkey_close(&o->zk);
  } else {
    bp_params_free(&o->bp);
    pce_close(&o->pce);
  }
  free(o);
}

cuzk_status groth16_key_open_zkey_mem(groth16_key *k, const void *mem, size_t len,
                                      const char *name, cuzk_err *err) {
  memset(k, 0, sizeof *k);
  struct groth16_key_own *o = calloc(1, sizeof *o);
  if (!o)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for the key's index", name);
  cuzk_status st = zkey_open_mem(&o->zk, mem, len, name, err);
  if (st != CUZK_OK) {
    free(o);
    return st;
  }
  *k = groth16_key_of_zkey(&o->zk);
  k->own = o;
  return CUZK_OK;
}

cuzk_status groth16_key_read_bp(groth16_key *k, const char *params_path, const char *pce_path,
                                bool trusted, cuzk_err *err) {
  memset(k, 0, sizeof *k);
  struct groth16_key_own *o = calloc(1, sizeof *o);
  if (!o)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for the key", params_path);
  const bp_read_opts ro = {.skip_checks = trusted};
  cuzk_status st = bp_params_read(&o->bp, params_path, &ro, err);
  if (st == CUZK_OK)
    st = pce_open(&o->pce, pce_path, err);
  if (st == CUZK_OK)
    st = groth16_key_of_bp(k, &o->bp, &o->pce, params_path, pce_path, err);
  if (st != CUZK_OK) {
    own_free(o, GROTH16_KEY_BP);
    memset(k, 0, sizeof *k);
    return st;
  }
  k->own = o;
  return CUZK_OK;
}

void groth16_key_close(groth16_key *k) {
  own_free(k->own, k->kind);
  memset(k, 0, sizeof *k);
}

cuzk_status groth16_key_prove(groth16_proof *proof, const groth16_key *k, const wtns_file *w,
                              const char *name, backend *be, const groth16_prove_opts *opts,
                              const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err) {
  if (w->n_witness != k->n_vars)
    return cuzk_err_set(err, CUZK_FORMAT, "%s: %llu values, the key takes %llu", name,
                        (unsigned long long)w->n_witness, (unsigned long long)k->n_vars);
  if (k->kind == GROTH16_KEY_ZKEY)
    return groth16_prove_zkey_stoppable(proof, k->zk, w, be, opts, stop, tm, err);
  CUZK_TRY(wtns_check_curve(w, err));
  return bp_prove_values(proof, k->bp, k->pce, w->values, name, be, opts, stop, tm, err);
}

cuzk_status groth16_key_prove_values(groth16_proof *proof, const groth16_key *k,
                                     const uint8_t *values, const char *name, backend *be,
                                     const groth16_prove_opts *opts, const cuzk_stop *stop,
                                     groth16_timings *tm, cuzk_err *err) {
  if (k->kind == GROTH16_KEY_BP)
    return bp_prove_values(proof, k->bp, k->pce, values, name, be, opts, stop, tm, err);
  /* a .wtns file's view of the values (wtns_open's checks, the value scan
   * here), for the zkey prover */
  const size_t bad = groth16_values_check(values, (size_t)k->n_vars, be->threads);
  if (bad != (size_t)k->n_vars)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: value %zu is not below r", name, bad);
  wtns_file w;
  memset(&w, 0, sizeof w);
  snprintf(w.bf.map.path, sizeof w.bf.map.path, "%s", name);
  w.bf.borrowed = true;
  w.n8 = 32;
  memcpy(w.prime, bls12_381_fr_modulus, 4 * sizeof(limb_t));
  w.prime_id = BINFILE_PRIME_BLS12_381_R;
  w.n_witness = k->n_vars;
  w.values = values;
  return groth16_prove_zkey_stoppable(proof, k->zk, &w, be, opts, stop, tm, err);
}

cuzk_status groth16_key_check_points(const groth16_key *k, unsigned threads, cuzk_err *err) {
  if (k->kind == GROTH16_KEY_ZKEY)
    return zkey_validate_points(k->zk, threads, err);
  return bp_params_validate_points(k->bp, threads, err);
}
