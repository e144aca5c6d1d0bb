/* The bellperson-convention Groth16 prover (bp_prove.h).
 *
 * DESIGN: the partition's heavy steps are one backend operation, bp_sums
 * (backend.h; docs/FORMATS.md §5.5): a, b, c, h and the four MSM sums,
 * on the host's cores or all on one GPU.  Here: the checks of the
 * assignment (every value below r, the counts and densities against the
 * key), then groth16_assemble with fresh r, s and the verification against
 * the key's vk.  A proof that fails verification is never returned. */
#include "groth16/bp_prove.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/par.h"
#include "groth16/verify.h"

/* The key's vector lengths against a circuit of ninp inputs, naux aux,
 * domain m and the three densities' popcounts. */
static cuzk_status check_counts(const bp_params *pp, uint64_t ninp, uint64_t naux, uint64_t m,
                                uint64_t pa, uint64_t pbi, uint64_t pba, const char *key_name,
                                const char *circ_name, cuzk_err *err) {
  const struct {
    const char *what;
    uint64_t have, want;
  } c[] = {
      {"ic (the inputs, ONE included)", pp->vk.n_ic, ninp},
      {"l (the aux variables)", pp->n_l, naux},
      {"h (domain size - 1)", pp->n_h, m - 1},
      {"a (the inputs and the aux with A terms)", pp->n_a, ninp + pa},
      {"b_g1 (the variables with B terms)", pp->n_b_g1, pbi + pba},
      {"b_g2 (the variables with B terms)", pp->n_b_g2, pbi + pba},
  };
  for (size_t i = 0; i < sizeof c / sizeof *c; i++)
    if (c[i].have != c[i].want)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: vector %s has %llu points but the circuit %s needs %llu: the key "
                          "is not this circuit's",
                          key_name, c[i].what, (unsigned long long)c[i].have, circ_name,
                          (unsigned long long)c[i].want);
  return CUZK_OK;
}

cuzk_status bp_check_key(const bp_params *pp, const pce_file *pce, const char *key_name,
                         const char *pce_name, cuzk_err *err) {
  return check_counts(pp, pce->num_inputs, pce->num_aux,
                      (uint64_t)1 << pce_domain_lg(pce), pce->a_aux.popcount,
                      pce->b_input.popcount, pce->b_aux.popcount, key_name, pce_name, err);
}

/* ---- the proof */

/* The proof against pp's vk; when it fails, opts->check_key (if given)
 * says whether the key is to blame (a key read as trusted may hold bad
 * points), as groth16_prove_zkey's does. */
static cuzk_status verify(const groth16_proof *proof, const bp_params *pp,
                          const bp_assignment *as, const groth16_prove_opts *opts,
                          cuzk_err *err) {
  groth16_vk vk;
  cuzk_status st = bp_vk_to_groth16(&pp->vk, &vk, err);
  if (st != CUZK_OK)
    return st;
  size_t np = as->n_inputs - 1; /* the public values: the inputs without ONE */
  limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
  if (!pub) {
    groth16_vk_fini(&vk);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu public values", np);
  }
  for (size_t i = 0; i < np; i++) limbs_from_le(pub[i], as->inputs + 32 * (i + 1), 4);
  cuzk_err verr = {0};
  st = groth16_verify(&vk, (const limb_t(*)[4])pub, np, proof, &verr);
  free(pub);
  groth16_vk_fini(&vk);
  cuzk_err kerr = {0};
  cuzk_status ks;
  if (st == CUZK_VERIFY_FAILED && opts && opts->check_key &&
      (ks = opts->check_key(opts->check_key_ctx, &kerr)) != CUZK_OK)
    return cuzk_err_set(err, ks,
                        "the proving key is corrupt: %s; the proof computed with it fails "
                        "verification (%s); no proof written",
                        kerr.msg, verr.msg);
  if (st == CUZK_VERIFY_FAILED)
    return cuzk_err_set(err, CUZK_UNSATISFIED,
                        "%s: the proof computed from it fails verification (%s): the assignment "
                        "does not satisfy the circuit, or the key is another circuit's; no "
                        "proof written",
                        as->name, verr.msg);
  if (st != CUZK_OK)
    return cuzk_err_set(err, st, "%s", verr.msg);
  return CUZK_OK;
}

backend_bp_key bp_key_view(const bp_params *pp, const pce_file *pce, const pce_density *a_aux,
                           const pce_density *b_input, const pce_density *b_aux,
                           size_t n_inputs, size_t n_aux, unsigned lg_domain) {
  return (backend_bp_key){.lg_domain = lg_domain,
                          .n_inputs = n_inputs,
                          .n_aux = n_aux,
                          .pce = pce,
                          .a_aux = a_aux,
                          .b_input = b_input,
                          .b_aux = b_aux,
                          .a = pp->a,
                          .b_g1 = pp->b_g1,
                          .l = pp->l,
                          .h = pp->h,
                          .b_g2 = pp->b_g2,
                          .n_a = pp->n_a,
                          .n_b = pp->n_b_g1};
}

/* The backend's sums for the key and the assignment's densities, then the
 * blinding, the assembly and the check (as->inputs and as->aux are the
 * consecutive values). */
static cuzk_status prove_sums(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
                              const bp_assignment *as, const backend_bp_abc *abc, unsigned lg,
                              backend *be, const groth16_prove_opts *opts, const cuzk_stop *stop,
                              groth16_timings *tm, cuzk_err *err) {
  if (!be->ops->bp_sums || !backend_supports(be, CUZK_CURVE_BLS12_381, BACKEND_OP_BP_SUMS))
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "backend %s cannot prove bellperson partitions",
                        be->ops->name);
  const backend_bp_key k = bp_key_view(pp, abc ? NULL : pce, as->a_aux, as->b_input, as->b_aux,
                                       as->n_inputs, as->n_aux, lg);
  backend_bp_sums sm = {0};
  cuzk_status st;
  if ((st = groth16_stage(opts, stop, "a, b, c, h, MSMs", err)) != CUZK_OK)
    return st;
  const cuzk_stop *outer = be->stop;
  be->stop = stop;
  st = be->ops->bp_sums(be, &sm, &k, as->inputs, abc, err);
  be->stop = outer;
  if (st == CUZK_INVALID_ARGUMENT && sm.bad1) { /* the backend checks the values as it reads them */
    const size_t i = sm.bad1 - 1;
    return cuzk_err_set(err, st, "%s: value %zu is not below r (%s %zu)", as->name, i,
                        i < as->n_inputs ? "input" : "aux",
                        i < as->n_inputs ? i : i - as->n_inputs);
  }
  tm->ab_s = sm.abc_s, tm->quotient_s = sm.h_s;
  for (int i = 0; i < 4; i++) tm->msm_each_s[i] = sm.msm_s[i], tm->msm_s += sm.msm_s[i];
  if (st != CUZK_OK)
    return st;

  limb_t r[4], s[4];
  if ((st = groth16_blinding(r, s, opts, err)) != CUZK_OK)
    return st;
  const groth16_blind_key bk = {&pp->vk.alpha_g1, &pp->vk.beta_g1, &pp->vk.delta_g1,
                                &pp->vk.beta_g2, &pp->vk.delta_g2};
  groth16_assemble(proof, &sm.a, &sm.b1, &sm.b2, &sm.lh, &bk, r, s);

  if ((st = groth16_stage(opts, stop, "verify", err)) != CUZK_OK)
    return st;
  double t = cuzk_now_s();
  if ((st = verify(proof, pp, as, opts, err)) != CUZK_OK)
    memset(proof, 0, sizeof *proof);
  tm->verify_s = cuzk_now_s() - t;
  return st;
}

cuzk_status bp_prove_values(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
                            const uint8_t *values, const char *name, backend *be,
                            const groth16_prove_opts *opts, const cuzk_stop *stop,
                            groth16_timings *tm, cuzk_err *err) {
  groth16_timings local = {0};
  if (!tm)
    tm = &local;
  memset(tm, 0, sizeof *tm);
  const size_t ninp = pce->num_inputs, naux = pce->num_aux;
  if (ninp == 0 || pce->num_constraints < 2)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "the circuit has %zu inputs and %u rows: a proof needs ONE and 2 rows",
                        ninp, pce->num_constraints);
  double t0 = cuzk_now_s();
  const bp_assignment as = {values, ninp, values + 32 * ninp, naux, &pce->a_aux,
                            &pce->b_input, &pce->b_aux, name};
  cuzk_status st = prove_sums(proof, pp, pce, &as, NULL, pce_domain_lg(pce), be, opts, stop, tm,
                              err);
  tm->total_s = cuzk_now_s() - t0;
  return st;
}

cuzk_status bp_prove(groth16_proof *proof, const bp_params *pp, const pce_file *pce,
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
                        binfile_path(&w->bf), (unsigned long long)w->n_witness, nv,
                        ninp ? ninp - 1 : 0, naux);
  return bp_prove_values(proof, pp, pce, w->values, binfile_path(&w->bf), be, opts, stop, tm, err);
}

static cuzk_status density_ok(const pce_density *d, uint64_t n, const char *what, const char *name,
                              cuzk_err *err) {
  if (d->bit_len != n || d->nwords != (n + 63) / 64)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: density %s has %llu bits in %llu words, expected %llu bits", name,
                        what, (unsigned long long)d->bit_len, (unsigned long long)d->nwords,
                        (unsigned long long)n);
  uint64_t pop = 0;
  for (uint64_t i = 0; i < d->nwords; i++) pop += (uint64_t)__builtin_popcountll(d->words[i]);
  if (n % 64 && d->nwords && d->words[d->nwords - 1] >> (n % 64))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: density %s has bits set past bit %llu",
                        name, what, (unsigned long long)n);
  if (pop != d->popcount)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: density %s has %llu bits set, its popcount says %llu", name, what,
                        (unsigned long long)pop, (unsigned long long)d->popcount);
  return CUZK_OK;
}

cuzk_status bp_prove_assignment(groth16_proof *proof, const bp_params *pp, const bp_assignment *as,
                                const uint8_t *a, const uint8_t *b, const uint8_t *c,
                                size_t abc_size, backend *be, const groth16_prove_opts *opts,
                                const cuzk_stop *stop, groth16_timings *tm, cuzk_err *err) {
  groth16_timings local = {0};
  if (!tm)
    tm = &local;
  memset(tm, 0, sizeof *tm);
  const uint64_t m = (uint64_t)pp->n_h + 1;
  cuzk_status st;
  if (as->n_inputs == 0 || m < 2 || (m & (m - 1)) || abc_size > m)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: %zu inputs and %zu rows of a, b, c against a key of domain %llu: "
                        "needs ONE and at most the domain's rows",
                        as->name, as->n_inputs, abc_size, (unsigned long long)m);
  if ((st = density_ok(as->a_aux, as->n_aux, "a_aux", as->name, err)) != CUZK_OK ||
      (st = density_ok(as->b_input, as->n_inputs, "b_input", as->name, err)) != CUZK_OK ||
      (st = density_ok(as->b_aux, as->n_aux, "b_aux", as->name, err)) != CUZK_OK ||
      (st = check_counts(pp, as->n_inputs, as->n_aux, m, as->a_aux->popcount,
                         as->b_input->popcount, as->b_aux->popcount, "the key", as->name, err)) !=
          CUZK_OK)
    return st;
  /* a, b, c here; the inputs and the aux where bp_sums reads them */
  const uint8_t *v[3] = {a, b, c};
  size_t bad;
  for (int k = 0; k < 3; k++)
    if ((bad = groth16_values_check(v[k], abc_size, be->threads)) != abc_size)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: %c value %zu is not below r", as->name,
                          "abc"[k], bad);
  unsigned lg = 0;
  while (((uint64_t)1 << lg) < m) lg++;
  /* bp_sums takes the values as one array, ONE first */
  const size_t nv = as->n_inputs + as->n_aux;
  uint8_t *values = malloc(32 * nv);
  if (!values)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu values (%zu MiB)", nv,
                        (32 * nv) >> 20);
  memcpy(values, as->inputs, 32 * as->n_inputs);
  memcpy(values + 32 * as->n_inputs, as->aux, 32 * as->n_aux);
  const bp_assignment cat = {values,       as->n_inputs, values + 32 * as->n_inputs,
                             as->n_aux,    as->a_aux,    as->b_input,
                             as->b_aux,    as->name};
  const backend_bp_abc abc = {a, b, c, abc_size};
  double t0 = cuzk_now_s();
  st = prove_sums(proof, pp, NULL, &cat, &abc, lg, be, opts, stop, tm, err);
  tm->total_s = cuzk_now_s() - t0;
  free(values);
  return st;
}
