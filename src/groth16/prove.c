/* The snarkjs-compatible Groth16 prover.
 *
 * DESIGN: the steps of docs/FORMATS.md §3.6, each heavy one a backend call:
 *   a, b  = A w, B w from the coefficient section          (zkey_ab)
 *   h     = (a b - a o b) on the odd coset, 6 NTTs          (quotient)
 *   pi_A, pi_B1, pi_B2, pi_C, pi_H                          (5 MSMs)
 * then blinding with r, s and verification against the key's own
 * verifying data.  A proof that fails verification is not returned; only
 * then are the key's points checked (a scan of every point: too slow to
 * run on every proof of a large key), so that a corrupt key is reported as
 * such and not blamed on the witness (blame).  Memory: 3 n Fr elements (a, b, c; h reuses c) on the
 * host besides the key and witness; the bases are read in place from the
 * key's bytes (the CLI's mapping, the engine's own copy), the coefficient
 * entries from memory that stays unchanged (zkey.h: a copy of a mapped
 * key's). */
#include "groth16/prove.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/clock.h"
#include "groth16/verify.h"

cuzk_status groth16_random_scalar(limb_t out[4], cuzk_err *err) {
  for (int tries = 0; tries < 1000; tries++) {
    uint8_t buf[32];
    size_t got = 0;
    while (got < sizeof buf) {
      ssize_t k = getrandom(buf + got, sizeof buf - got, 0);
      if (k < 0) {
        if (errno == EINTR)
          continue;
        return cuzk_err_set(err, CUZK_INTERNAL, "getrandom failed: %s", strerror(errno));
      }
      got += (size_t)k;
    }
    limbs_from_le(out, buf, 4);
    out[3] &= 0x7fffffffffffffffULL; /* 255 bits; r is 255 bits, accept ~90 % */
    if (limbs_lt(out, bls12_381_fr_modulus, 4))
      return CUZK_OK;
  }
  return cuzk_err_set(err, CUZK_INTERNAL, "random scalar rejection sampling did not terminate");
}

cuzk_status groth16_stage(const groth16_prove_opts *o, const cuzk_stop *stop, const char *name,
                          cuzk_err *err) {
  if (cuzk_stopped(stop))
    return cuzk_err_set(err, CUZK_CANCELLED, "cancelled before stage '%s'", name);
  if (o && o->progress)
    o->progress(o->progress_ctx, name);
  return CUZK_OK;
}

/* r = p in G1 scaled by k.  The blinding scalars r, s, rs and the points
 * A, B1 derived from the witness are secret: every scalar multiplication of
 * the blinding is the constant-time one (ec_tmpl.h jac_mul_ct).  The MSMs
 * are variable time in the witness, as in every fast prover (msm.h). */
static void g1_mul(bls12_381_g1_jac *r, const bls12_381_g1_aff *p, const limb_t k[4]) {
  bls12_381_g1_jac j;
  bls12_381_g1_jac_from_aff(&j, p);
  bls12_381_g1_jac_mul_ct(r, &j, k);
}

cuzk_status groth16_blinding(limb_t r[4], limb_t s[4], const groth16_prove_opts *o,
                             cuzk_err *err) {
  if (o && o->fixed_r && o->fixed_s) {
    memcpy(r, o->fixed_r, 4 * sizeof *r);
    memcpy(s, o->fixed_s, 4 * sizeof *s);
    return CUZK_OK;
  }
  cuzk_status st = groth16_random_scalar(r, err);
  return st != CUZK_OK ? st : groth16_random_scalar(s, err);
}

void groth16_assemble(groth16_proof *proof, const bls12_381_g1_jac *pa,
                      const bls12_381_g1_jac *pb1, const bls12_381_g2_jac *pb2,
                      const bls12_381_g1_jac *pch, const groth16_blind_key *k, const limb_t r[4],
                      const limb_t s[4]) {
  limb_t rs[4];
  bls12_381_fr fr_r, fr_s, fr_rs;
  bls12_381_fr_from_canon(&fr_r, r);
  bls12_381_fr_from_canon(&fr_s, s);
  bls12_381_fr_mul(&fr_rs, &fr_r, &fr_s);
  bls12_381_fr_to_canon(rs, &fr_rs);
  bls12_381_g1_jac A, B1, C, t1;
  bls12_381_g2_jac B2, t2, d2;
  /* A = alpha1 + pi_A + r delta1 */
  g1_mul(&t1, k->delta1, r);
  bls12_381_g1_jac_add_aff(&A, pa, k->alpha1);
  bls12_381_g1_jac_add(&A, &A, &t1);
  /* B2 = beta2 + pi_B2 + s delta2 */
  bls12_381_g2_jac_from_aff(&d2, k->delta2);
  bls12_381_g2_jac_mul_ct(&t2, &d2, s);
  bls12_381_g2_jac_add_aff(&B2, pb2, k->beta2);
  bls12_381_g2_jac_add(&B2, &B2, &t2);
  /* B1 = beta1 + pi_B1 + s delta1 */
  g1_mul(&t1, k->delta1, s);
  bls12_381_g1_jac_add_aff(&B1, pb1, k->beta1);
  bls12_381_g1_jac_add(&B1, &B1, &t1);
  /* C = pi_C + pi_H + s A + r B1 - r s delta1 */
  C = *pch;
  bls12_381_g1_jac_mul_ct(&t1, &A, s);
  bls12_381_g1_jac_add(&C, &C, &t1);
  bls12_381_g1_jac_mul_ct(&t1, &B1, r);
  bls12_381_g1_jac_add(&C, &C, &t1);
  g1_mul(&t1, k->delta1, rs);
  bls12_381_g1_jac_neg(&t1, &t1);
  bls12_381_g1_jac_add(&C, &C, &t1);
  bls12_381_g1_jac_to_aff(&proof->a, &A);
  bls12_381_g2_jac_to_aff(&proof->b, &B2);
  bls12_381_g1_jac_to_aff(&proof->c, &C);
}

/* The proof failed verification (why: the verifier's reason): the key is
 * to blame when one of its points is invalid, else the witness.  Points
 * replaced by other valid points and altered coefficients pass every cheap
 * check of the key, so the second message names that possibility too. */
static cuzk_status blame(const zkey_file *zk, const wtns_file *w, const groth16_prove_opts *o,
                         const char *why, cuzk_err *err) {
  cuzk_err kerr = {0};
  cuzk_status ks = o && o->check_key ? o->check_key(o->check_key_ctx, &kerr)
                                     : zkey_validate_points(zk, 0, &kerr);
  if (ks != CUZK_OK)
    return cuzk_err_set(err, ks,
                        "the proving key is corrupt: %s; the proof computed with it fails "
                        "verification (%s); no proof written",
                        kerr.msg, why);
  return cuzk_err_set(err, CUZK_UNSATISFIED,
                      "%s: the proof computed from it fails verification against %s (%s): the "
                      "witness does not satisfy the circuit, or the key is inconsistent (its "
                      "points are all valid); no proof written",
                      binfile_path(&w->bf), binfile_path(&zk->bf), why);
}

cuzk_status groth16_prove_zkey(groth16_proof *proof, const zkey_file *zk, const wtns_file *w,
                               backend *be, const groth16_prove_opts *opts,
                               groth16_timings *timings, cuzk_err *err) {
  return groth16_prove_zkey_stoppable(proof, zk, w, be, opts, NULL, timings, err);
}

/* The proof itself; be->stop is set around it (groth16_prove_zkey_stoppable). */
static cuzk_status prove(groth16_proof *proof, const zkey_file *zk, const wtns_file *w,
                         backend *be, const groth16_prove_opts *opts, const cuzk_stop *stop,
                         groth16_timings *timings, cuzk_err *err) {
  groth16_timings tm = {0};
  double t0 = cuzk_now_s(), t;
  cuzk_status st;
  st = zkey_check_witness(zk, w, err);
  if (st != CUZK_OK)
    return st;
  if (!backend_supports(be, CUZK_CURVE_BLS12_381, BACKEND_OP_QUOTIENT))
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "backend %s cannot prove BLS12-381", be->ops->name);

  const size_t n = zk->domain_size;
  if (be->ops->reserve) {
    size_t nv = zk->n_vars, nch = zk->n_vars - zk->n_public - 1 + n;
    st = be->ops->reserve(be, nv > nch ? nv : nch, nv, zk->lg_domain, err);
    if (st != CUZK_OK)
      return st;
  }
  /* a, b, c: the backend's own memory when it has faster memory to offer. */
  const bool own_buf = !be->ops->host_vectors;
  bls12_381_fr *buf;
  if (own_buf) {
    if (!(buf = malloc(3 * n * sizeof *buf)))
      return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for 3 x %zu field elements (%zu MiB)",
                          n, (3 * n * sizeof *buf) >> 20);
  } else {
    cuzk_err e = {0};
    if (!(buf = be->ops->host_vectors(be, 3 * n, &e)))
      return cuzk_err_set(err, e.status, "%s", e.msg);
  }
  bls12_381_fr *a = buf, *b = buf + n, *c = buf + 2 * n;
  bls12_381_g1_jac pa, pb1, pch;
  bls12_381_g2_jac pb2;

  if ((st = groth16_stage(opts, stop, "a, b", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  st = be->ops->zkey_ab(be, a, b, n, zk->coefs, zk->n_coefs, w->values, w->n_witness, err);
  tm.ab_s = cuzk_now_s() - t;
  if (st != CUZK_OK)
    goto out;

  if ((st = groth16_stage(opts, stop, "quotient (6 NTTs)", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  st = be->ops->quotient(be, c, a, b, c, zk->lg_domain, err);
  tm.quotient_s = cuzk_now_s() - t;
  if (st != CUZK_OK)
    goto out;

  if ((st = groth16_stage(opts, stop, "MSMs", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  const size_t nv = zk->n_vars, np = zk->n_public;
  const uint8_t *wv = w->values;
  /* pi_C + pi_H is one MSM over the C points and the H points. */
  const msm_part pt_a = {zk->a, wv, nv}, pt_b1 = {zk->b1, wv, nv}, pt_b2 = {zk->b2, wv, nv};
  const msm_part pt_ch[2] = {{zk->c, wv + 32 * (np + 1), nv - np - 1}, {zk->h, c, n}};
  double tq = t;
  /* Each MSM is a stage of its own for the stop hook (not for progress). */
#define MSM_TIMED(k, call)                                                                       \
  (cuzk_stopped(stop) ? (st = cuzk_err_set(err, CUZK_CANCELLED, "cancelled between MSMs"), 0)    \
   : (st = (call)) == CUZK_OK                                                                    \
       ? (tm.msm_each_s[k] = cuzk_now_s() - tq, tq += tm.msm_each_s[k], 1)                       \
       : 0)
  if (!MSM_TIMED(0, be->ops->msm_g1(be, &pa, &pt_a, 1, err)) ||
      !MSM_TIMED(1, be->ops->msm_g1(be, &pb1, &pt_b1, 1, err)) ||
      !MSM_TIMED(2, be->ops->msm_g2(be, &pb2, &pt_b2, 1, err)) ||
      !MSM_TIMED(3, be->ops->msm_g1(be, &pch, pt_ch, 2, err)))
    goto out;
#undef MSM_TIMED
  tm.msm_s = cuzk_now_s() - t;

  /* Blinding (docs/FORMATS.md §3.6 step 6), constant time in r and s. */
  limb_t r[4], s[4];
  if ((st = groth16_blinding(r, s, opts, err)) != CUZK_OK)
    goto out;
  const groth16_blind_key bk = {&zk->alpha1, &zk->beta1, &zk->delta1, &zk->beta2, &zk->delta2};
  groth16_assemble(proof, &pa, &pb1, &pb2, &pch, &bk, r, s);

  /* Verify before returning (never hand out an invalid proof). */
  if ((st = groth16_stage(opts, stop, "verify", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  {
    groth16_vk vk;
    if ((st = zkey_read_vk(zk, &vk, err)) != CUZK_OK)
      goto out;
    limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
    if (!pub) {
      groth16_vk_fini(&vk);
      st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for public signals");
      goto out;
    }
    for (size_t i = 0; i < np; i++) limbs_from_le(pub[i], wv + 32 * (i + 1), 4);
    cuzk_err verr = {0};
    st = groth16_verify(&vk, (const limb_t(*)[4])pub, np, proof, &verr);
    free(pub);
    groth16_vk_fini(&vk);
    if (st == CUZK_VERIFY_FAILED) {
      memset(proof, 0, sizeof *proof);
      st = blame(zk, w, opts, verr.msg, err);
    } else if (st != CUZK_OK) {
      cuzk_err_set(err, st, "%s", verr.msg);
    }
  }
  tm.verify_s = cuzk_now_s() - t;

out:
  tm.total_s = cuzk_now_s() - t0;
  if (timings)
    *timings = tm;
  if (own_buf)
    free(buf);
  return st;
}

cuzk_status groth16_prove_zkey_stoppable(groth16_proof *proof, const zkey_file *zk,
                                         const wtns_file *w, backend *be,
                                         const groth16_prove_opts *opts, const cuzk_stop *stop,
                                         groth16_timings *timings, cuzk_err *err) {
  const cuzk_stop *outer = be->stop; /* a caller's own hook, put back after */
  be->stop = stop;
  cuzk_status st = prove(proof, zk, w, be, opts, stop, timings, err);
  be->stop = outer;
  return st;
}
