/* The public C API (include/cuzk/cuzk.h) on files written here: a random
 * satisfiable circuit's PCE and its INSECURE bellperson key.  The two
 * proving paths (assignment + PCE, and a, b, c + assignment + densities)
 * give the same proof for the same blinding; proofs verify; a changed
 * proof or public input is reported with its partition; bad arguments get
 * INVALID_ARGUMENT with a message.  A snarkjs .zkey opens through the same
 * calls and proves from whole assignments with no circuit. */
#include "../harness.h"

#include <unistd.h>

#include "cuzk/cuzk.h"
#include "groth16/bp.h"
#include "groth16/bp_setup.h"
#include "groth16/keygen.h"

#include "bp_circuit.h"

typedef struct {
  char dir[64], key[128], pce[128], vk[128];
  circuit c;
} api_env;

static void env_make(api_env *v, uint64_t seed) {
  snprintf(v->dir, sizeof v->dir, "/tmp/cuzk-api-XXXXXX");
  CHECK(mkdtemp(v->dir));
  snprintf(v->key, sizeof v->key, "%s/k.params", v->dir);
  snprintf(v->pce, sizeof v->pce, "%s/pce-c.bin", v->dir);
  snprintf(v->vk, sizeof v->vk, "%s/k.vk", v->dir);
  circuit_make(&v->c, 4, 120, 100, seed);
  bp_params pp;
  cuzk_err err = {0};
  CHECK_MSG(bp_setup(&pp, &v->c.p, seed, NULL, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(bp_params_write(&pp, v->key, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(bp_vk_write(&pp.vk, v->vk, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(pce_write(&v->c.p, v->pce, &err) == CUZK_OK, "%s", err.msg);
  bp_params_free(&pp);
}

static void env_free(api_env *v) {
  unlink(v->key), unlink(v->pce), unlink(v->vk);
  rmdir(v->dir);
  circuit_free(&v->c);
}

/* The assignment's canonical bytes (the .wtns values section). */
static const uint8_t *assignment(const api_env *v) { return v->c.wt + 76; }

/* a, b, c of the circuit at its assignment, canonical bytes, evaluated
 * here row by row (independently of pce_eval). */
static uint8_t *abc_bytes(const circuit *c) {
  const pce_file *p = &c->p;
  const size_t rows = p->num_constraints;
  uint8_t *out = malloc(3 * rows * 32);
  const pce_csr *m[3] = {&p->a, &p->b, &p->c};
  for (int k = 0; k < 3; k++)
    for (size_t r = 0; r < rows; r++) {
      fr s, t;
      bls12_381_fr_set_zero(&s);
      for (uint32_t i = m[k]->row_ptr[r]; i < m[k]->row_ptr[r + 1]; i++) {
        bls12_381_fr_mul(&t, &m[k]->val[i], &c->w[m[k]->col[i]]);
        bls12_381_fr_add(&s, &s, &t);
      }
      limb_t x[4];
      bls12_381_fr_to_canon(x, &s);
      limbs_to_le(out + 32 * (k * rows + r), x, 4);
    }
  return out;
}

TEST(api_prove_paths_agree_and_verify) {
  api_env v;
  env_make(&v, 21);
  cuzk_error err = {0};
  cuzk_key *key;
  cuzk_circuit *circ;
  cuzk_prover *pr;
  CHECK_MSG(cuzk_key_open(&key, v.key, 0, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(cuzk_circuit_open(&circ, v.pce, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(cuzk_prover_new(&pr, "cpu", 0, &err) == CUZK_OK, "%s", err.msg);
  uint64_t ni, na, nr;
  cuzk_circuit_shape(circ, &ni, &na, &nr);
  CHECK_EQ_INT(ni, 4);
  CHECK_EQ_INT(na, 120);
  CHECK_EQ_INT(nr, v.c.p.num_constraints);
  CHECK(nr >= 104);
  /* two partitions with fixed blinding, by both paths */
  uint8_t rs[2][64] = {{0}};
  rs[0][0] = 5, rs[0][32] = 6, rs[1][0] = 7, rs[1][32] = 9;
  uint8_t fr2[64], fs2[64];
  memcpy(fr2, rs[0], 32), memcpy(fr2 + 32, rs[1], 32);
  memcpy(fs2, rs[0] + 32, 32), memcpy(fs2 + 32, rs[1] + 32, 32);
  cuzk_prove_options o = {fr2, fs2};
  const uint8_t *as[2] = {assignment(&v), assignment(&v)};
  uint8_t p1[2 * CUZK_PROOF_BYTES], p2[2 * CUZK_PROOF_BYTES];
  CHECK_MSG(cuzk_prove_witness(pr, key, circ, as, 2, p1, &o, &err) == CUZK_OK, "%s", err.msg);
  CHECK(memcmp(p1, p1 + CUZK_PROOF_BYTES, CUZK_PROOF_BYTES) != 0); /* other r, s */
  uint8_t *abc = abc_bytes(&v.c);
  const size_t rows = v.c.p.num_constraints;
  cuzk_assignment a = {abc, abc + 32 * rows, abc + 64 * rows, rows, assignment(&v), 4,
                       assignment(&v) + 4 * 32, 120, v.c.p.a_aux.words, v.c.p.b_input.words,
                       v.c.p.b_aux.words};
  cuzk_assignment parts[2] = {a, a};
  CHECK_MSG(cuzk_prove_assignment(pr, key, parts, 2, p2, &o, &err) == CUZK_OK, "%s", err.msg);
  CHECK_EQ_MEM(p1, p2, sizeof p1);
  /* verify, with the .vk file and with the key's vk */
  cuzk_vk *vk, *vk2;
  CHECK_MSG(cuzk_vk_open(&vk, v.vk, &err) == CUZK_OK, "%s", err.msg);
  CHECK_EQ_INT(cuzk_vk_of_key(&vk2, key, &err), CUZK_OK);
  CHECK_EQ_INT(cuzk_vk_public_inputs(vk), 3);
  uint8_t pub[2 * 3 * 32];
  memcpy(pub, assignment(&v) + 32, 96), memcpy(pub + 96, assignment(&v) + 32, 96);
  size_t bad = 99;
  CHECK_MSG(cuzk_verify(vk, pub, p1, 2, &bad, &err) == CUZK_OK, "%s", err.msg);
  CHECK_EQ_INT(cuzk_verify(vk2, pub, p1, 2, &bad, &err), CUZK_OK);
  /* a public input of partition 1 changed: partition 1 named */
  pub[96 + 5] ^= 1;
  CHECK_EQ_INT(cuzk_verify(vk, pub, p1, 2, &bad, &err), CUZK_VERIFY_FAILED);
  CHECK_EQ_INT(bad, 1);
  CHECK_MSG(strstr(err.msg, "partition 1 of 2"), "%s", err.msg);
  pub[96 + 5] ^= 1;
  /* partition 0's A replaced by partition 1's: a valid point, a bad proof */
  memcpy(p2, p1 + CUZK_PROOF_BYTES, 48);
  CHECK_EQ_INT(cuzk_verify(vk, pub, p2, 2, &bad, &err), CUZK_VERIFY_FAILED);
  CHECK_EQ_INT(bad, 0);
  free(abc);
  cuzk_vk_free(vk);
  cuzk_vk_free(vk2);
  cuzk_prover_free(pr);
  cuzk_circuit_free(circ);
  cuzk_key_free(key);
  env_free(&v);
}

TEST(api_refuses_bad_arguments) {
  api_env v;
  env_make(&v, 22);
  cuzk_error err = {0};
  cuzk_key *key;
  cuzk_circuit *circ;
  cuzk_prover *pr;
  CHECK_EQ_INT(cuzk_key_open(&key, v.key, CUZK_KEY_TRUSTED, &err), CUZK_OK);
  CHECK_EQ_INT(cuzk_circuit_open(&circ, v.pce, &err), CUZK_OK);
  CHECK_EQ_INT(cuzk_prover_new(&pr, "cpu", 1, &err), CUZK_OK);
  uint8_t proofs[CUZK_PROOF_BYTES];
  CHECK_EQ_INT(cuzk_prove_witness(pr, NULL, circ, NULL, 1, proofs, NULL, &err),
               CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "key is NULL"), "%s", err.msg);
  cuzk_prover *pr2;
  CHECK_EQ_INT(cuzk_prover_new(&pr2, "tpu", 1, &err), CUZK_INVALID_ARGUMENT);
  CHECK(pr2 == NULL);
  CHECK_MSG(strstr(err.msg, "tpu"), "%s", err.msg);
  /* an assignment value >= r */
  uint8_t *bad = malloc(32 * 124);
  memcpy(bad, assignment(&v), 32 * 124);
  memset(bad + 32 * 7, 0xff, 32);
  const uint8_t *as[1] = {bad};
  CHECK_EQ_INT(cuzk_prove_witness(pr, key, circ, as, 1, proofs, NULL, &err),
               CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "value 7 is not below r (aux 3)"), "%s", err.msg);
  /* an unsatisfying assignment: no proof */
  memcpy(bad, assignment(&v), 32 * 124);
  bad[32 * v.c.p.c.col[0]] ^= 1;
  CHECK_EQ_INT(cuzk_prove_witness(pr, key, circ, as, 1, proofs, NULL, &err), CUZK_UNSATISFIED);
  /* a density whose popcount is not the key's */
  uint8_t *abc = abc_bytes(&v.c);
  const size_t rows = v.c.p.num_constraints;
  uint64_t dens[2];
  memcpy(dens, v.c.p.a_aux.words, sizeof dens);
  dens[0] ^= 1ull << 63;
  cuzk_assignment a = {abc, abc + 32 * rows, abc + 64 * rows, rows, assignment(&v), 4,
                       assignment(&v) + 4 * 32, 120, dens, v.c.p.b_input.words,
                       v.c.p.b_aux.words};
  CHECK_EQ_INT(cuzk_prove_assignment(pr, key, &a, 1, proofs, NULL, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "vector a "), "%s", err.msg);
  /* padding bits past n_aux = 120 */
  memcpy(dens, v.c.p.a_aux.words, sizeof dens);
  dens[1] |= 1ull << 60;
  CHECK_EQ_INT(cuzk_prove_assignment(pr, key, &a, 1, proofs, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "bits set past bit 120"), "%s", err.msg);
  /* an aux value >= r, found by the backend as it reads the values */
  a.a_aux_density = v.c.p.a_aux.words;
  uint8_t *badaux = malloc(32 * 120);
  CHECK(badaux);
  memcpy(badaux, assignment(&v) + 4 * 32, 32 * 120);
  memset(badaux + 32 * 5, 0xff, 32);
  a.aux = badaux;
  CHECK_EQ_INT(cuzk_prove_assignment(pr, key, &a, 1, proofs, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "value 9 is not below r (aux 5)"), "%s", err.msg);
  free(badaux);
  /* a key file that is not there */
  cuzk_key *k2;
  CHECK(cuzk_key_open(&k2, "/nonexistent/k.params", 0, &err) != CUZK_OK);
  CHECK_MSG(strstr(err.msg, "/nonexistent/k.params"), "%s", err.msg);
  free(abc);
  free(bad);
  cuzk_prover_free(pr);
  cuzk_circuit_free(circ);
  cuzk_key_free(key);
  env_free(&v);
}

/* A .zkey key (an INSECURE chain key of 2^10): two partitions from the
 * witness's values with no circuit, verified against the key's own vk;
 * a changed public input names its partition; a circuit passed with it,
 * and the a, b, c path, are refused. */
TEST(api_zkey_key) {
  char dir[64] = "/tmp/cuzk-api-zkey-XXXXXX", zk[128], wt[128];
  CHECK(mkdtemp(dir));
  snprintf(zk, sizeof zk, "%s/c.zkey", dir);
  snprintf(wt, sizeof wt, "%s/c.wtns", dir);
  keygen_chain ch;
  cuzk_err e = {0};
  CHECK(keygen_chain_from_seed(&ch, KEYGEN_CHAIN_STEPS(10), 77, &e) == CUZK_OK);
  keygen_opts ko = {.threads = 1};
  CHECK_MSG(keygen_chain_write(&ch, zk, wt, &ko, NULL, &e) == CUZK_OK, "%s", e.msg);
  size_t wlen = 0;
  char *w = test_read_file(wt, &wlen);
  CHECK(w && wlen > 76);
  const uint8_t *vals = (const uint8_t *)w + 76; /* the values section of a BLS12-381 .wtns */
  cuzk_error err = {0};
  cuzk_key *key = NULL;
  CHECK_MSG(cuzk_key_open(&key, zk, 0, &err) == CUZK_OK, "%s", err.msg);
  cuzk_prover *pr = NULL;
  CHECK_MSG(cuzk_prover_new(&pr, "cpu", 2, &err) == CUZK_OK, "%s", err.msg);
  const uint8_t *as[2] = {vals, vals};
  uint8_t proofs[2 * CUZK_PROOF_BYTES];
  CHECK_MSG(cuzk_prove_witness(pr, key, NULL, as, 2, proofs, NULL, &err) == CUZK_OK, "%s",
            err.msg);
  cuzk_vk *vk = NULL;
  CHECK_MSG(cuzk_vk_of_key(&vk, key, &err) == CUZK_OK, "%s", err.msg);
  const size_t np = cuzk_vk_public_inputs(vk);
  CHECK_EQ_INT(np, KEYGEN_CHAIN_PUBLIC);
  uint8_t pub[2 * KEYGEN_CHAIN_PUBLIC * 32];
  for (int p = 0; p < 2; p++) memcpy(pub + 32 * np * p, vals + 32, 32 * np);
  size_t bad = 99;
  CHECK_MSG(cuzk_verify(vk, pub, proofs, 2, &bad, &err) == CUZK_OK, "%s", err.msg);
  pub[32 * np] ^= 1; /* partition 1's first input */
  CHECK_EQ_INT(cuzk_verify(vk, pub, proofs, 2, &bad, &err), CUZK_VERIFY_FAILED);
  CHECK_EQ_INT(bad, 1);
  /* refusals */
  api_env v;
  env_make(&v, 5);
  cuzk_circuit *c = NULL;
  CHECK(cuzk_circuit_open(&c, v.pce, &err) == CUZK_OK);
  CHECK_EQ_INT(cuzk_prove_witness(pr, key, c, as, 1, proofs, NULL, &err), CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "pass no circuit"), "%s", err.msg);
  cuzk_assignment a = {0};
  CHECK_EQ_INT(cuzk_prove_assignment(pr, key, &a, 1, proofs, NULL, &err), CUZK_UNSUPPORTED);
  cuzk_circuit_free(c);
  env_free(&v);
  cuzk_vk_free(vk);
  cuzk_prover_free(pr);
  cuzk_key_free(key);
  free(w);
  unlink(zk), unlink(wt), rmdir(dir);
}
