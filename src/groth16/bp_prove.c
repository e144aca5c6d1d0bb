/* The bellperson-convention Groth16 prover (bp_prove.h).
 *
 * DESIGN: docs/FORMATS.md §5.3 step by step, on the CPU for the vectors
 * and through the backend for the MSMs:
 *   a, b, c = A w, B w, C w                         (pce_eval)
 *   h       = monomial coefficients 0 .. m-2 of (a b - c) / (x^m - 1):
 *             iNTT a, b, c; scale by 7^i; NTT (values on the coset 7 w^i);
 *             t = (a b - c) / (7^m - 1); iNTT; scale by 7^-i
 *   pa, pb1, pb2, pch                                (4 MSMs)
 * then groth16_assemble and verification against the key's vk.  The
 * queries' scalars are the witness's canonical bytes where a query covers
 * every variable (the inputs of a, the aux of l) and compacted copies where
 * a density bitmap filters them.  A proof that fails verification is
 * never returned. */
#include "groth16/bp_prove.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/par.h"
#include "groth16/verify.h"
#include "poly/ntt.h"

unsigned bp_lg_domain(uint64_t rows) {
  unsigned lg = 0;
  while (lg < 63 && ((uint64_t)1 << lg) < rows) lg++;
  return lg;
}

cuzk_status bp_check_key(const bp_params *pp, const pce_file *pce, const char *key_name,
                         const char *pce_name, cuzk_err *err) {
  const uint64_t m = (uint64_t)1 << bp_lg_domain(pce->num_constraints);
  const uint64_t nb = pce->b_input.popcount + pce->b_aux.popcount;
  const struct {
    const char *what;
    uint64_t have, want;
  } c[] = {
      {"ic (the inputs, ONE included)", pp->vk.n_ic, pce->num_inputs},
      {"l (the aux variables)", pp->n_l, pce->num_aux},
      {"h (domain size - 1)", pp->n_h, m - 1},
      {"a (the inputs and the aux with A terms)", pp->n_a,
       (uint64_t)pce->num_inputs + pce->a_aux.popcount},
      {"b_g1 (the variables with B terms)", pp->n_b_g1, nb},
      {"b_g2 (the variables with B terms)", pp->n_b_g2, nb},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++)
    if (c[i].have != c[i].want)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: vector %s has %llu points but the circuit %s needs %llu: the key "
                          "is not this circuit's",
                          key_name, c[i].what, (unsigned long long)c[i].have, pce_name,
                          (unsigned long long)c[i].want);
  return CUZK_OK;
}

/* ---- the witness in Montgomery form, and the filtered scalars */

typedef struct {
  const wtns_file *w;
  bls12_381_fr *out;
} mont_job;

static void mont_part(void *ctx, unsigned idx, unsigned n) {
  const mont_job *j = ctx;
  size_t lo, hi;
  par_range(j->w->n_witness, idx, n, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    limb_t x[4];
    limbs_from_le(x, wtns_value(j->w, i), 4);
    bls12_381_fr_from_canon(&j->out[i], x);
  }
}

/* dst := the 32-byte values of w at first + i for each set bit i of d, in
 * order; returns the count (d->popcount, which the reader checked). */
static size_t compact(uint8_t *dst, const wtns_file *w, uint64_t first, const pce_density *d) {
  size_t k = 0;
  for (uint64_t i = 0; i < d->bit_len; i++)
    if (pce_density_get(d, i))
      memcpy(dst + 32 * k++, wtns_value(w, first + i), 32);
  return k;
}

/* ---- h */

typedef struct {
  bls12_381_fr *a, *b, *c;
  bls12_381_fr zinv; /* 1 / (g^m - 1) */
  size_t n;
} quot_job;

/* c[i] := (a[i] b[i] - c[i]) / (g^m - 1) */
static void quot_part(void *ctx, unsigned idx, unsigned n) {
  const quot_job *q = ctx;
  size_t lo, hi;
  par_range(q->n, idx, n, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    bls12_381_fr t;
    bls12_381_fr_mul(&t, &q->a[i], &q->b[i]);
    bls12_381_fr_sub(&t, &t, &q->c[i]);
    bls12_381_fr_mul(&q->c[i], &t, &q->zinv);
  }
}

/* v[i] := the canonical little-endian bytes of v[i] (same 32 bytes). */
static void canon_part(void *ctx, unsigned idx, unsigned n) {
  const quot_job *q = ctx;
  size_t lo, hi;
  par_range(q->n, idx, n, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &q->c[i]);
    limbs_to_le((uint8_t *)&q->c[i], x, 4);
  }
}

/* h (in c, canonical bytes, m - 1 of them used) from a, b, c (m each,
 * Montgomery, the evaluations on the domain; all three overwritten). */
static cuzk_status quotient(bls12_381_fr *a, bls12_381_fr *b, bls12_381_fr *c, unsigned lg,
                            const cuzk_stop *stop, cuzk_err *err) {
  ntt_domain d;
  cuzk_status st = ntt_domain_init(&d, lg, NTT_ROOTS_BELLPERSON, err);
  if (st != CUZK_OK)
    return st;
  const size_t m = d.n;
  bls12_381_fr g, ginv, gm;
  const limb_t seven[4] = {7, 0, 0, 0}, em[1] = {(limb_t)m};
  bls12_381_fr_from_canon(&g, seven);
  bls12_381_fr_inv(&ginv, &g);
  bls12_381_fr *v[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    if (cuzk_stopped(stop)) {
      ntt_domain_fini(&d);
      return cuzk_err_set(err, CUZK_CANCELLED, "cancelled during the quotient");
    }
    ntt_inverse(&d, v[k], 0);
    ntt_scale_powers(v[k], m, &g, 0);
    ntt_forward(&d, v[k], 0);
  }
  quot_job q = {a, b, c, {{0}}, m};
  bls12_381_fr_pow(&gm, &g, em, 1);
  bls12_381_fr_sub(&gm, &gm, &bls12_381_fr_one_mont);
  bls12_381_fr_inv(&q.zinv, &gm);
  par_run(par_threads(), quot_part, &q);
  ntt_inverse(&d, c, 0);
  ntt_scale_powers(c, m, &ginv, 0);
  par_run(par_threads(), canon_part, &q);
  ntt_domain_fini(&d);
  return CUZK_OK;
}

/* ---- the proof */

static cuzk_status verify(const groth16_proof *proof, const bp_params *pp, const wtns_file *w,
                          size_t ninp, cuzk_err *err) {
  groth16_vk vk;
  cuzk_status st = bp_vk_to_groth16(&pp->vk, &vk, err);
  if (st != CUZK_OK)
    return st;
  size_t np = ninp - 1; /* the public values: the inputs without ONE */
  limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
  if (!pub) {
    groth16_vk_fini(&vk);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu public values", np);
  }
  for (size_t i = 0; i < np; i++) limbs_from_le(pub[i], wtns_value(w, i + 1), 4);
  cuzk_err verr = {0};
  st = groth16_verify(&vk, (const limb_t(*)[4])pub, np, proof, &verr);
  free(pub);
  groth16_vk_fini(&vk);
  if (st == CUZK_VERIFY_FAILED)
    return cuzk_err_set(err, CUZK_UNSATISFIED,
                        "%s: the proof computed from it fails verification (%s): the witness "
                        "does not satisfy the circuit, or the key is another circuit's; no "
                        "proof written",
                        binfile_path(&w->bf), verr.msg);
  if (st != CUZK_OK)
    return cuzk_err_set(err, st, "%s", verr.msg);
  return CUZK_OK;
}

static cuzk_status prove(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
                         const wtns_file *w, backend *be, const groth16_prove_opts *opts,
                         const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err) {
  const size_t ninp = pce->num_inputs, naux = pce->num_aux, nv = ninp + naux;
  cuzk_status st = wtns_check_curve(w, err);
  if (st != CUZK_OK)
    return st;
  if (w->n8 != 32 || w->n_witness != nv)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: %llu values, but the circuit has %zu variables (ONE, %zu inputs "
                        "after it, %zu aux)",
                        binfile_path(&w->bf), (unsigned long long)w->n_witness, nv, ninp - 1,
                        naux);
  if (ninp == 0)
    return cuzk_err_set(err, CUZK_FORMAT, "the circuit has no inputs (ONE is input 0)");
  const unsigned lg = bp_lg_domain(pce->num_constraints);
  const size_t m = (size_t)1 << lg;
  if (lg < 1)
    return cuzk_err_set(err, CUZK_FORMAT, "the circuit has %u rows: a domain needs 2 or more",
                        pce->num_constraints);
  const size_t nfilt = pce->a_aux.popcount + pce->b_input.popcount + pce->b_aux.popcount;
  if (be->ops->reserve) {
    size_t g1 = m - 1 + naux > nv ? m - 1 + naux : nv;
    if ((st = be->ops->reserve(be, g1, nv, 0, err)) != CUZK_OK)
      return st;
  }
  bls12_381_fr *buf = malloc((3 * m + nv) * sizeof *buf);
  uint8_t *filt = malloc(nfilt ? 32 * nfilt : 1);
  if (!buf || !filt) {
    free(buf);
    free(filt);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu field elements (%zu MiB)",
                        3 * m + nv + nfilt, ((3 * m + nv + nfilt) * 32) >> 20);
  }
  bls12_381_fr *a = buf, *b = buf + m, *c = buf + 2 * m, *wm = buf + 3 * m;
  double t0 = cuzk_now_s(), t;

  if ((st = groth16_stage(opts, stop, "a, b, c", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  mont_job mj = {w, wm};
  par_run(par_threads(), mont_part, &mj);
  if ((st = pce_eval(pce, wm, a, b, c, stop, err)) != CUZK_OK)
    goto out;
  const size_t rows = pce->num_constraints;
  memset(a + rows, 0, (m - rows) * sizeof *a);
  memset(b + rows, 0, (m - rows) * sizeof *b);
  memset(c + rows, 0, (m - rows) * sizeof *c);
  tm->ab_s = cuzk_now_s() - t;

  if ((st = groth16_stage(opts, stop, "h (6 NTTs)", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  if ((st = quotient(a, b, c, lg, stop, err)) != CUZK_OK)
    goto out;
  tm->quotient_s = cuzk_now_s() - t;

  if ((st = groth16_stage(opts, stop, "MSMs", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  uint8_t *fa = filt, *fbi = fa + 32 * compact(fa, w, ninp, &pce->a_aux);
  uint8_t *fba = fbi + 32 * compact(fbi, w, 0, &pce->b_input);
  compact(fba, w, ninp, &pce->b_aux);
  const size_t pbi = pce->b_input.popcount;
  const msm_part pt_a[2] = {{pp->a, w->values, ninp},
                            {pp->a + ninp, fa, pce->a_aux.popcount}};
  const msm_part pt_b1[2] = {{pp->b_g1, fbi, pbi}, {pp->b_g1 + pbi, fba, pce->b_aux.popcount}};
  const msm_part pt_b2[2] = {{pp->b_g2, fbi, pbi}, {pp->b_g2 + pbi, fba, pce->b_aux.popcount}};
  const msm_part pt_lh[2] = {{pp->l, wtns_value(w, ninp), naux}, {pp->h, c, m - 1}};
  bls12_381_g1_jac pa, pb1, pch;
  bls12_381_g2_jac pb2;
  double tq = t;
#define MSM_TIMED(k, call)                                                                       \
  (cuzk_stopped(stop) ? (st = cuzk_err_set(err, CUZK_CANCELLED, "cancelled between MSMs"), 0)    \
   : (st = (call)) == CUZK_OK                                                                    \
       ? (tm->msm_each_s[k] = cuzk_now_s() - tq, tq += tm->msm_each_s[k], 1)                     \
       : 0)
  if (!MSM_TIMED(0, be->ops->msm_g1(be, &pa, pt_a, 2, err)) ||
      !MSM_TIMED(1, be->ops->msm_g1(be, &pb1, pt_b1, 2, err)) ||
      !MSM_TIMED(2, be->ops->msm_g2(be, &pb2, pt_b2, 2, err)) ||
      !MSM_TIMED(3, be->ops->msm_g1(be, &pch, pt_lh, 2, err)))
    goto out;
#undef MSM_TIMED
  tm->msm_s = cuzk_now_s() - t;

  limb_t r[4], s[4];
  if ((st = groth16_blinding(r, s, opts, err)) != CUZK_OK)
    goto out;
  const groth16_blind_key bk = {&pp->vk.alpha_g1, &pp->vk.beta_g1, &pp->vk.delta_g1,
                                &pp->vk.beta_g2, &pp->vk.delta_g2};
  groth16_assemble(proof, &pa, &pb1, &pb2, &pch, &bk, r, s);

  if ((st = groth16_stage(opts, stop, "verify", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  if ((st = verify(proof, pp, w, ninp, err)) != CUZK_OK)
    memset(proof, 0, sizeof *proof);
  tm->verify_s = cuzk_now_s() - t;

out:
  tm->total_s = cuzk_now_s() - t0;
  free(buf);
  free(filt);
  return st;
}

cuzk_status bp_prove(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
                     const wtns_file *w, backend *be, const groth16_prove_opts *opts,
                     const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err) {
  groth16_timings local = {0};
  if (tm)
    memset(tm, 0, sizeof *tm);
  const cuzk_stop *outer = be->stop;
  be->stop = stop;
  cuzk_status st = prove(proof, pp, pce, w, be, opts, stop, tm ? tm : &local, err);
  be->stop = outer;
  return st;
}
