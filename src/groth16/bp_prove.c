/* The bellperson-convention Groth16 prover (bp_prove.h).
 *
 * DESIGN: docs/FORMATS.md §5.5 step by step, on the CPU for the vectors
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

/* ---- the filtered scalars */

/* dst := the 32-byte values v[i] for each set bit i of d, in order;
 * returns the count (d->popcount, which the reader checked). */
static size_t compact(uint8_t *dst, const uint8_t *v, const pce_density *d) {
  size_t k = 0;
  for (uint64_t i = 0; i < d->bit_len; i++)
    if (pce_density_get(d, i))
      memcpy(dst + 32 * k++, v + 32 * i, 32);
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

static cuzk_status verify(const groth16_proof *proof, const bp_params *pp,
                          const bp_assignment *as, cuzk_err *err) {
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

/* Everything after a, b, c: h (in c), the MSMs, the blinding, the check.
 * abc: 3 m elements, a, b, c (Montgomery), overwritten. */
static cuzk_status prove_abc(groth16_proof *proof, const bp_params *pp, const bp_assignment *as,
                             bls12_381_fr *abc, unsigned lg, backend *be,
                             const groth16_prove_opts *opts, const cuzk_stop *stop,
                             groth16_timings *tm, cuzk_err *err) {
  const size_t m = (size_t)1 << lg, ninp = as->n_inputs, naux = as->n_aux;
  bls12_381_fr *a = abc, *b = abc + m, *c = abc + 2 * m;
  const size_t nfilt = as->a_aux->popcount + as->b_input->popcount + as->b_aux->popcount;
  cuzk_status st;
  if (be->ops->reserve) {
    size_t g1 = m - 1 + naux > ninp + naux ? m - 1 + naux : ninp + naux;
    if ((st = be->ops->reserve(be, g1, ninp + naux, 0, err)) != CUZK_OK)
      return st;
  }
  uint8_t *filt = malloc(nfilt ? 32 * nfilt : 1);
  if (!filt)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu scalars (%zu MiB)", nfilt,
                        (nfilt * 32) >> 20);
  double t;

  if ((st = groth16_stage(opts, stop, "h (6 NTTs)", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  if ((st = quotient(a, b, c, lg, stop, err)) != CUZK_OK)
    goto out;
  tm->quotient_s = cuzk_now_s() - t;

  if ((st = groth16_stage(opts, stop, "MSMs", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  uint8_t *fa = filt, *fbi = fa + 32 * compact(fa, as->aux, as->a_aux);
  uint8_t *fba = fbi + 32 * compact(fbi, as->inputs, as->b_input);
  compact(fba, as->aux, as->b_aux);
  const size_t pbi = as->b_input->popcount, pba = as->b_aux->popcount;
  const msm_part pt_a[2] = {{pp->a, as->inputs, ninp}, {pp->a + ninp, fa, as->a_aux->popcount}};
  const msm_part pt_b1[2] = {{pp->b_g1, fbi, pbi}, {pp->b_g1 + pbi, fba, pba}};
  const msm_part pt_b2[2] = {{pp->b_g2, fbi, pbi}, {pp->b_g2 + pbi, fba, pba}};
  const msm_part pt_lh[2] = {{pp->l, as->aux, naux}, {pp->h, c, m - 1}};
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
  if ((st = verify(proof, pp, as, err)) != CUZK_OK)
    memset(proof, 0, sizeof *proof);
  tm->verify_s = cuzk_now_s() - t;
out:
  free(filt);
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
  const size_t ninp = pce->num_inputs, naux = pce->num_aux, nv = ninp + naux;
  if (ninp == 0 || pce->num_constraints < 2)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "the circuit has %zu inputs and %u rows: a proof needs ONE and 2 rows",
                        ninp, pce->num_constraints);
  const unsigned lg = pce_domain_lg(pce);
  const size_t m = (size_t)1 << lg;
  bls12_381_fr *buf = malloc((3 * m + nv) * sizeof *buf);
  if (!buf)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu field elements (%zu MiB)",
                        3 * m + nv, ((3 * m + nv) * 32) >> 20);
  bls12_381_fr *a = buf, *b = buf + m, *c = buf + 2 * m, *wm = buf + 3 * m;
  double t0 = cuzk_now_s(), t;
  cuzk_status st;
  if ((st = groth16_stage(opts, stop, "a, b, c", err)) != CUZK_OK)
    goto out;
  t = cuzk_now_s();
  size_t bad = groth16_values_to_mont(wm, values, nv);
  if (bad != nv) {
    st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: value %zu is not below r", name, bad);
    goto out;
  }
  if ((st = pce_eval(pce, wm, a, b, c, stop, err)) != CUZK_OK)
    goto out;
  const size_t rows = pce->num_constraints;
  memset(a + rows, 0, (m - rows) * sizeof *a);
  memset(b + rows, 0, (m - rows) * sizeof *b);
  memset(c + rows, 0, (m - rows) * sizeof *c);
  tm->ab_s = cuzk_now_s() - t;
  const bp_assignment as = {values, ninp, values + 32 * ninp, naux, &pce->a_aux,
                            &pce->b_input, &pce->b_aux, name};
  const cuzk_stop *outer = be->stop;
  be->stop = stop;
  st = prove_abc(proof, pp, &as, buf, lg, be, opts, stop, tm, err);
  be->stop = outer;
out:
  tm->total_s = cuzk_now_s() - t0;
  free(buf);
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

/* a, b, c (canonical bytes) into Montgomery form, each value checked. */
typedef struct {
  const uint8_t *src[3];
  bls12_381_fr *dst;
  size_t n, m;
  uint64_t bad; /* the least index (3 x) of a value >= r, or UINT64_MAX */
} abc_job;

static void abc_part(void *ctx, unsigned idx, unsigned nt) {
  abc_job *j = ctx;
  size_t lo, hi;
  par_range(j->n, idx, nt, &lo, &hi);
  for (int k = 0; k < 3; k++)
    for (size_t i = lo; i < hi; i++) {
      limb_t x[4];
      limbs_from_le(x, j->src[k] + 32 * i, 4);
      if (!bls12_381_fr_canon_ok(x)) {
        uint64_t at = 3 * (uint64_t)i + (uint64_t)k, cur = __atomic_load_n(&j->bad, __ATOMIC_RELAXED);
        while (at < cur && !__atomic_compare_exchange_n(&j->bad, &cur, at, false, __ATOMIC_RELAXED,
                                                        __ATOMIC_RELAXED)) {
        }
        continue;
      }
      bls12_381_fr_from_canon(&j->dst[k * j->m + i], x);
    }
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
  for (size_t i = 0; i < as->n_inputs + as->n_aux; i++) {
    limb_t x[4];
    limbs_from_le(x, i < as->n_inputs ? as->inputs + 32 * i : as->aux + 32 * (i - as->n_inputs), 4);
    if (!bls12_381_fr_canon_ok(x))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: %s value %zu is not below r", as->name,
                          i < as->n_inputs ? "input" : "aux",
                          i < as->n_inputs ? i : i - as->n_inputs);
  }
  unsigned lg = 0;
  while (((uint64_t)1 << lg) < m) lg++;
  bls12_381_fr *buf = calloc(3 * m, sizeof *buf);
  if (!buf)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for 3 x %llu field elements",
                        (unsigned long long)m);
  double t0 = cuzk_now_s();
  abc_job j = {{a, b, c}, buf, abc_size, m, UINT64_MAX};
  par_run(par_threads(), abc_part, &j);
  tm->ab_s = cuzk_now_s() - t0;
  if (j.bad != UINT64_MAX) {
    st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: %c value %llu is not below r", as->name,
                      "abc"[j.bad % 3], (unsigned long long)(j.bad / 3));
  } else {
    const cuzk_stop *outer = be->stop;
    be->stop = stop;
    st = prove_abc(proof, pp, as, buf, lg, be, opts, stop, tm, err);
    be->stop = outer;
  }
  tm->total_s = cuzk_now_s() - t0;
  free(buf);
  return st;
}
