/* The public C API (include/cuzk/cuzk.h) over the bellperson reader, the
 * PCE reader and the bellperson prover (groth16/bp*.h, groth16/pce.h).
 *
 * DESIGN: each public object wraps the library's own (bp_params,
 * pce_file, backend, groth16_vk); the API adds the checks a foreign caller
 * needs (NULL arguments, partition counts) and turns each partition's
 * error into a message that names it.  cuzk_error has cuzk_err's layout
 * (checked below), so messages are written straight into the caller's. */
#include "cuzk/cuzk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "base/bytes.h"
#include "base/err.h"
#include "cuzk/version.h"
#include "groth16/bp.h"
#include "groth16/bp_prove.h"
#include "groth16/key.h"
#include "groth16/pce.h"
#include "groth16/zkey.h"
#include "groth16/verify.h"

_Static_assert(sizeof(cuzk_error) == sizeof(cuzk_err) &&
                   offsetof(cuzk_error, msg) == offsetof(cuzk_err, msg) &&
                   sizeof(((cuzk_error *)0)->msg) == CUZK_ERR_MSG_MAX,
               "cuzk_error must have cuzk_err's layout");

#define E(err) ((cuzk_err *)(err))

/* A .params (bp) or a .zkey (zk, mapped; zkey true). */
struct cuzk_key {
  bool zkey;
  bp_params pp;
  zkey_file zk;
  char *path;
};
struct cuzk_circuit {
  pce_file pce;
  char *path;
};
struct cuzk_prover {
  backend *be;
};
struct cuzk_vk {
  groth16_vk vk;
};

CUZK_API const char *cuzk_version(void) { return CUZK_VERSION; }

static cuzk_status need(const void *p, const char *what, cuzk_error *err) {
  return p ? CUZK_OK : cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT, "%s is NULL", what);
}

CUZK_API cuzk_status cuzk_key_open(cuzk_key **key, const char *path, unsigned flags,
                                   cuzk_error *err) {
  cuzk_status st;
  if ((st = need(key, "key", err)) != CUZK_OK || (st = need(path, "path", err)) != CUZK_OK)
    return st;
  *key = NULL;
  cuzk_key *k = calloc(1, sizeof *k);
  if (!k || !(k->path = strdup(path))) {
    free(k);
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  }
  /* a .zkey by its magic; anything else is read as a .params */
  char magic[4] = {0};
  FILE *f = fopen(path, "rb");
  if (f) {
    if (fread(magic, 1, sizeof magic, f) != sizeof magic)
      memset(magic, 0, sizeof magic);
    fclose(f);
  }
  k->zkey = !memcmp(magic, "zkey", 4);
  bp_read_opts o = {.skip_checks = flags & CUZK_KEY_TRUSTED};
  st = k->zkey ? zkey_open(&k->zk, path, E(err)) : bp_params_read(&k->pp, path, &o, E(err));
  if (st != CUZK_OK) {
    free(k->path);
    free(k);
    return st;
  }
  *key = k;
  return CUZK_OK;
}

CUZK_API void cuzk_key_free(cuzk_key *key) {
  if (!key)
    return;
  if (key->zkey)
    zkey_close(&key->zk);
  bp_params_free(&key->pp);
  free(key->path);
  free(key);
}

CUZK_API cuzk_status cuzk_circuit_open(cuzk_circuit **circuit, const char *path, cuzk_error *err) {
  cuzk_status st;
  if ((st = need(circuit, "circuit", err)) != CUZK_OK || (st = need(path, "path", err)) != CUZK_OK)
    return st;
  *circuit = NULL;
  cuzk_circuit *c = calloc(1, sizeof *c);
  if (!c || !(c->path = strdup(path))) {
    free(c);
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  }
  if ((st = pce_open(&c->pce, path, E(err))) != CUZK_OK) {
    free(c->path);
    free(c);
    return st;
  }
  *circuit = c;
  return CUZK_OK;
}

CUZK_API void cuzk_circuit_free(cuzk_circuit *circuit) {
  if (!circuit)
    return;
  pce_close(&circuit->pce);
  free(circuit->path);
  free(circuit);
}

CUZK_API void cuzk_circuit_shape(const cuzk_circuit *c, uint64_t *n_inputs, uint64_t *n_aux,
                                 uint64_t *n_rows) {
  if (n_inputs)
    *n_inputs = c ? c->pce.num_inputs : 0;
  if (n_aux)
    *n_aux = c ? c->pce.num_aux : 0;
  if (n_rows)
    *n_rows = c ? c->pce.num_constraints : 0;
}

CUZK_API cuzk_status cuzk_prover_new(cuzk_prover **prover, const char *device, unsigned threads,
                                     cuzk_error *err) {
  cuzk_status st;
  if ((st = need(prover, "prover", err)) != CUZK_OK)
    return st;
  *prover = NULL;
  if (!device)
    device = "auto";
  backend_device_opts o = {.threads = threads};
  backend *be = NULL;
  if (!strcmp(device, "gpu") || !strcmp(device, "auto")) {
    cuzk_err gerr = {0};
    be = backend_device_new(NULL, 0, &o, &gerr);
    if (!be && !strcmp(device, "gpu"))
      return cuzk_err_set(E(err), gerr.status ? gerr.status : CUZK_UNSUPPORTED, "%s", gerr.msg);
  } else if (strcmp(device, "cpu")) {
    return cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT, "device must be cpu, gpu or auto, not '%s'",
                        device);
  }
  if (!be && !(be = backend_cpu_new(threads)))
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  cuzk_prover *p = calloc(1, sizeof *p);
  if (!p) {
    backend_free(be);
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  }
  p->be = be;
  *prover = p;
  return CUZK_OK;
}

CUZK_API void cuzk_prover_free(cuzk_prover *prover) {
  if (!prover)
    return;
  backend_free(prover->be);
  free(prover);
}

/* Partition p's blinding from the options (groth16_prove_opts). */
static groth16_prove_opts blinding(const cuzk_prove_options *o, size_t p, limb_t r[4],
                                   limb_t s[4]) {
  groth16_prove_opts g = {0};
  if (o && o->fixed_r && o->fixed_s) {
    limbs_from_le(r, o->fixed_r + 32 * p, 4);
    limbs_from_le(s, o->fixed_s + 32 * p, 4);
    g.fixed_r = r, g.fixed_s = s;
  }
  return g;
}

static cuzk_status check_options(const cuzk_prove_options *o, size_t k, cuzk_error *err) {
  if (!o || !o->fixed_r || !o->fixed_s)
    return CUZK_OK;
  for (size_t p = 0; p < k; p++) {
    limb_t r[4], s[4];
    limbs_from_le(r, o->fixed_r + 32 * p, 4);
    limbs_from_le(s, o->fixed_s + 32 * p, 4);
    if (!bls12_381_fr_canon_ok(r) || !bls12_381_fr_canon_ok(s))
      return cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT,
                          "partition %zu: fixed_r or fixed_s is not below r", p);
  }
  return CUZK_OK;
}

/* The message of partition p's failure, prefixed with its number. */
static cuzk_status partition_err(cuzk_status st, size_t p, size_t k, cuzk_error *err) {
  if (err && k > 1) {
    char m[sizeof err->msg];
    snprintf(m, sizeof m, "%s", err->msg);
    cuzk_err_set(E(err), st, "partition %zu of %zu: %s", p, k, m);
  }
  return st;
}

CUZK_API cuzk_status cuzk_prove_witness(cuzk_prover *prover, const cuzk_key *key,
                                        const cuzk_circuit *circuit,
                                        const uint8_t *const *assignments, size_t k,
                                        uint8_t *proofs, const cuzk_prove_options *options,
                                        cuzk_error *err) {
  cuzk_status st;
  if ((st = need(prover, "prover", err)) != CUZK_OK || (st = need(key, "key", err)) != CUZK_OK ||
      (st = need(assignments, "assignments", err)) != CUZK_OK ||
      (st = need(proofs, "proofs", err)) != CUZK_OK ||
      (st = check_options(options, k, err)) != CUZK_OK)
    return st;
  /* One interface over both kinds (groth16/key.h): a .zkey carries its
   * constraints, a .params takes them from the circuit. */
  groth16_key gk;
  if (key->zkey && circuit)
    return cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT,
                        "%s is a .zkey, which carries its own constraints: pass no circuit",
                        key->path);
  if (key->zkey)
    gk = groth16_key_of_zkey(&key->zk);
  else if ((st = need(circuit, "circuit", err)) != CUZK_OK ||
           (st = groth16_key_of_bp(&gk, &key->pp, &circuit->pce, key->path, circuit->path,
                                   E(err))) != CUZK_OK)
    return st;
  for (size_t p = 0; p < k; p++) {
    if (!assignments[p])
      return partition_err(cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT, "assignment is NULL"), p,
                           k, err);
    char name[64];
    snprintf(name, sizeof name, "assignment %zu", p);
    limb_t r[4], s[4];
    groth16_prove_opts go = blinding(options, p, r, s);
    groth16_proof pr;
    if ((st = groth16_key_prove_values(&pr, &gk, assignments[p], name, prover->be, &go, NULL,
                                       NULL, E(err))) != CUZK_OK)
      return partition_err(st, p, k, err);
    bp_proof_encode(proofs + CUZK_PROOF_BYTES * p, &pr);
  }
  return CUZK_OK;
}

CUZK_API cuzk_status cuzk_prove_assignment(cuzk_prover *prover, const cuzk_key *key,
                                           const cuzk_assignment *parts, size_t k,
                                           uint8_t *proofs, const cuzk_prove_options *options,
                                           cuzk_error *err) {
  cuzk_status st;
  if ((st = need(prover, "prover", err)) != CUZK_OK || (st = need(key, "key", err)) != CUZK_OK ||
      (st = need(parts, "parts", err)) != CUZK_OK || (st = need(proofs, "proofs", err)) != CUZK_OK ||
      (st = check_options(options, k, err)) != CUZK_OK)
    return st;
  if (key->zkey)
    return cuzk_err_set(E(err), CUZK_UNSUPPORTED,
                        "%s is a .zkey: it proves from whole assignments (cuzk_prove_witness), "
                        "not from a, b, c",
                        key->path);
  for (size_t p = 0; p < k; p++) {
    const cuzk_assignment *a = &parts[p];
    if (!a->a || !a->b || !a->c || !a->inputs || (a->n_aux && !a->aux) ||
        (a->n_aux && (!a->a_aux_density || !a->b_aux_density)) || !a->b_input_density)
      return partition_err(cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT,
                                        "a, b, c, inputs, aux or a density is NULL"),
                           p, k, err);
    pce_density d[3];
    const uint64_t *w[3] = {a->a_aux_density, a->b_input_density, a->b_aux_density};
    const size_t bits[3] = {a->n_aux, a->n_inputs, a->n_aux};
    for (int i = 0; i < 3; i++) {
      d[i].words = (uint64_t *)w[i];
      d[i].bit_len = bits[i];
      d[i].nwords = (bits[i] + 63) / 64;
      d[i].popcount = 0;
      for (size_t j = 0; j < d[i].nwords; j++) d[i].popcount += (uint64_t)__builtin_popcountll(w[i][j]);
    }
    char name[64];
    snprintf(name, sizeof name, "assignment %zu", p);
    const bp_assignment as = {a->inputs, a->n_inputs, a->aux, a->n_aux, &d[0], &d[1], &d[2], name};
    limb_t r[4], s[4];
    groth16_prove_opts go = blinding(options, p, r, s);
    groth16_proof pr;
    st = bp_prove_assignment(&pr, &key->pp, &as, a->a, a->b, a->c, a->abc_size, prover->be, &go,
                             NULL, NULL, E(err));
    if (st != CUZK_OK)
      return partition_err(st, p, k, err);
    bp_proof_encode(proofs + CUZK_PROOF_BYTES * p, &pr);
  }
  return CUZK_OK;
}

CUZK_API cuzk_status cuzk_vk_open(cuzk_vk **vk, const char *path, cuzk_error *err) {
  cuzk_status st;
  if ((st = need(vk, "vk", err)) != CUZK_OK || (st = need(path, "path", err)) != CUZK_OK)
    return st;
  *vk = NULL;
  bp_vk b;
  if ((st = bp_vk_read(&b, path, NULL, E(err))) != CUZK_OK)
    return st;
  cuzk_vk *v = calloc(1, sizeof *v);
  if (!v) {
    bp_vk_free(&b);
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  }
  st = bp_vk_to_groth16(&b, &v->vk, E(err));
  bp_vk_free(&b);
  if (st != CUZK_OK) {
    free(v);
    return st;
  }
  *vk = v;
  return CUZK_OK;
}

CUZK_API cuzk_status cuzk_vk_of_key(cuzk_vk **vk, const cuzk_key *key, cuzk_error *err) {
  cuzk_status st;
  if ((st = need(vk, "vk", err)) != CUZK_OK || (st = need(key, "key", err)) != CUZK_OK)
    return st;
  *vk = NULL;
  cuzk_vk *v = calloc(1, sizeof *v);
  if (!v)
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  st = key->zkey ? zkey_read_vk(&key->zk, &v->vk, E(err))
                  : bp_vk_to_groth16(&key->pp.vk, &v->vk, E(err));
  if (st == CUZK_OK && key->zkey)
    groth16_vk_compute_alphabeta(&v->vk);
  if (st != CUZK_OK) {
    free(v);
    return st;
  }
  *vk = v;
  return CUZK_OK;
}

CUZK_API void cuzk_vk_free(cuzk_vk *vk) {
  if (!vk)
    return;
  groth16_vk_fini(&vk->vk);
  free(vk);
}

CUZK_API size_t cuzk_vk_public_inputs(const cuzk_vk *vk) { return vk ? vk->vk.n_public : 0; }

CUZK_API cuzk_status cuzk_verify(const cuzk_vk *vk, const uint8_t *public_inputs,
                                 const uint8_t *proofs, size_t k, size_t *bad, cuzk_error *err) {
  cuzk_status st;
  if ((st = need(vk, "vk", err)) != CUZK_OK || (st = need(proofs, "proofs", err)) != CUZK_OK)
    return st;
  const size_t np = vk->vk.n_public;
  if (np && !public_inputs)
    return cuzk_err_set(E(err), CUZK_INVALID_ARGUMENT, "public_inputs is NULL");
  limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
  if (!pub)
    return cuzk_err_set(E(err), CUZK_NO_MEMORY, "out of memory");
  for (size_t p = 0; p < k; p++) {
    groth16_proof pr;
    if ((st = bp_proof_decode(&pr, proofs + CUZK_PROOF_BYTES * p, "proofs", p, E(err))) !=
        CUZK_OK)
      goto out;
    for (size_t i = 0; i < np; i++) limbs_from_le(pub[i], public_inputs + 32 * (p * np + i), 4);
    cuzk_err verr = {0};
    st = groth16_verify(&vk->vk, (const limb_t(*)[4])pub, np, &pr, &verr);
    if (st != CUZK_OK) {
      if (bad)
        *bad = p;
      cuzk_err_set(E(err), st, "partition %zu of %zu: %s", p, k, verr.msg);
      goto out;
    }
  }
out:
  free(pub);
  return st;
}
