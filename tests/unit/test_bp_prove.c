/* bellperson-convention setup and proving (groth16/bp_setup.h, bp_prove.h)
 * on random satisfiable circuits built here as PCE matrices: every proof
 * verifies against the setup's vk, a changed witness is refused, a key of
 * another circuit is refused by its counts, and the result does not depend
 * on the thread count. */
#include "../harness.h"

#include "backend/backend.h"
#include "base/bytes.h"
#include "base/par.h"
#include "groth16/bp_prove.h"
#include "groth16/bp_setup.h"
#include "groth16/verify.h"

#include "bp_circuit.h"

static void prove_ok(const circuit *c, const bp_params *pp, backend *be, groth16_proof *pr) {
  wtns_file w;
  cuzk_err err = {0};
  CHECK_EQ_INT(wtns_open_mem(&w, c->wt, c->wt_len, "w.wtns", &err), CUZK_OK);
  cuzk_status st = bp_prove(pr, pp, &c->p, &w, be, NULL, NULL, NULL, &err);
  CHECK_MSG(st == CUZK_OK, "bp_prove: %s: %s", cuzk_status_name(st), err.msg);
  wtns_close(&w);
}

/* The proof checked again here, from the vk, with the circuit's inputs. */
static cuzk_status verify_again(const circuit *c, const bp_params *pp, const groth16_proof *pr) {
  groth16_vk vk;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_vk_to_groth16(&pp->vk, &vk, &err), CUZK_OK);
  size_t np = c->p.num_inputs - 1;
  limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
  for (size_t i = 0; i < np; i++) bls12_381_fr_to_canon(pub[i], &c->w[i + 1]);
  cuzk_status st = groth16_verify(&vk, (const limb_t(*)[4])pub, np, pr, &err);
  free(pub);
  groth16_vk_fini(&vk);
  return st;
}

TEST(bp_setup_prove_verify_sizes) {
  backend *be = backend_cpu_new(0);
  static const struct {
    uint32_t ninp, naux, rows;
  } shapes[] = {{1, 3, 1}, {2, 5, 6}, {3, 40, 29}, {5, 300, 251}, {9, 1000, 1100}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    circuit c;
    circuit_make(&c, shapes[i].ninp, shapes[i].naux, shapes[i].rows, 100 + i);
    bp_params pp;
    cuzk_err err = {0};
    cuzk_status st = bp_setup(&pp, &c.p, 7 + i, NULL, &err);
    CHECK_MSG(st == CUZK_OK, "setup %zu: %s", i, err.msg);
    CHECK_EQ_INT(bp_check_key(&pp, &c.p, "k", "c", &err), CUZK_OK);
    CHECK_EQ_INT(pp.n_h, ((size_t)1 << pce_domain_lg(&c.p)) - 1);
    if (c.p.num_aux >= 8)
      CHECK(pp.n_a < c.p.num_inputs + c.p.num_aux && pp.n_b_g1 < c.p.num_inputs + c.p.num_aux);
    groth16_proof pr;
    prove_ok(&c, &pp, be, &pr);
    CHECK_EQ_INT(verify_again(&c, &pp, &pr), CUZK_OK);
    /* the proof of one statement is not a proof of another */
    if (c.p.num_inputs > 1) {
      bls12_381_fr_add(&c.w[1], &c.w[1], &bls12_381_fr_one_mont);
      CHECK_EQ_INT(verify_again(&c, &pp, &pr), CUZK_VERIFY_FAILED);
    }
    bp_params_free(&pp);
    circuit_free(&c);
  }
  backend_free(be);
}

/* A witness value changed breaks a row: the prover refuses to return the
 * proof (UNSATISFIED naming the witness). */
TEST(bp_prove_refuses_unsatisfying_witness) {
  backend *be = backend_cpu_new(0);
  circuit c;
  circuit_make(&c, 3, 60, 50, 3);
  bp_params pp;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_setup(&pp, &c.p, 1, NULL, &err), CUZK_OK);
  /* the variable of the first C term (non-zero value and coefficient):
   * its low bit flipped, the value still < r */
  CHECK(c.p.c.nnz > 0);
  c.wt[76 + 32 * (size_t)c.p.c.col[0]] ^= 1;
  wtns_file w;
  CHECK_EQ_INT(wtns_open_mem(&w, c.wt, c.wt_len, "bad.wtns", &err), CUZK_OK);
  groth16_proof pr;
  cuzk_status st = bp_prove(&pr, &pp, &c.p, &w, be, NULL, NULL, NULL, &err);
  CHECK_EQ_INT(st, CUZK_UNSATISFIED);
  CHECK_MSG(strstr(err.msg, "bad.wtns") && strstr(err.msg, "fails verification"), "%s", err.msg);
  wtns_close(&w);
  bp_params_free(&pp);
  circuit_free(&c);
  backend_free(be);
}

/* A key made for another circuit: refused by its counts before any work;
 * a witness of the wrong length likewise. */
TEST(bp_prove_refuses_other_circuits_key) {
  backend *be = backend_cpu_new(0);
  circuit c, d;
  circuit_make(&c, 3, 60, 50, 4);
  circuit_make(&d, 3, 61, 50, 5);
  bp_params pp;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_setup(&pp, &d.p, 1, NULL, &err), CUZK_OK);
  CHECK_EQ_INT(bp_check_key(&pp, &c.p, "d.params", "c.bin", &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "d.params") && strstr(err.msg, "c.bin") && strstr(err.msg, "l (the aux"),
            "%s", err.msg);
  wtns_file w;
  CHECK_EQ_INT(wtns_open_mem(&w, c.wt, c.wt_len, "c.wtns", &err), CUZK_OK);
  groth16_proof pr;
  CHECK_EQ_INT(bp_prove(&pr, &pp, &d.p, &w, be, NULL, NULL, NULL, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "c.wtns") && strstr(err.msg, "64 variables"), "%s", err.msg);
  wtns_close(&w);
  bp_params_free(&pp);
  circuit_free(&c);
  circuit_free(&d);
  backend_free(be);
}

/* Same seed, 1 or 2 threads: the same parameters, point for point. */
TEST(bp_setup_thread_count_independent) {
  circuit c;
  circuit_make(&c, 4, 200, 180, 6);
  bp_params p1, p2;
  cuzk_err err = {0};
  bp_setup_opts o1 = {.threads = 1}, o2 = {.threads = 2};
  CHECK_EQ_INT(bp_setup(&p1, &c.p, 9, &o1, &err), CUZK_OK);
  CHECK_EQ_INT(bp_setup(&p2, &c.p, 9, &o2, &err), CUZK_OK);
  CHECK_EQ_INT(p1.n_h, p2.n_h);
  CHECK(!memcmp(p1.h, p2.h, p1.n_h * sizeof *p1.h));
  CHECK(!memcmp(p1.l, p2.l, p1.n_l * sizeof *p1.l));
  CHECK(!memcmp(p1.b_g2, p2.b_g2, p1.n_b_g2 * sizeof *p1.b_g2));
  CHECK(!memcmp(&p1.vk.delta_g2, &p2.vk.delta_g2, sizeof p1.vk.delta_g2));
  bp_params p3;
  CHECK_EQ_INT(bp_setup(&p3, &c.p, 10, &o2, &err), CUZK_OK);
  CHECK(memcmp(p1.h, p3.h, p1.n_h * sizeof *p1.h) != 0);
  bp_params_free(&p1);
  bp_params_free(&p2);
  bp_params_free(&p3);
  circuit_free(&c);
}
