/* The CPU backend's bp_sums (backend.h): a bellperson-convention partition
 * up to its MSM sums on the host's cores.
 *
 * DESIGN: docs/FORMATS.md §5.5 step by step:
 *   a, b, c = A w, B w, C w            (pce_eval, or abc's converted)
 *   h       = iNTT a, b; scale by 7^i; NTT (values on the coset 7 w^i);
 *             iNTT c (its coefficients); t = a b / (7^m - 1); iNTT;
 *             h_i = 7^-i t_i - c_i / (7^m - 1): six transforms where the
 *             definition's seven take c to the coset and back too, equal
 *             to it whenever a b - c vanishes on the domain (the proof
 *             verifies only then; cuda/ntt_gpu.h says why)
 *   the a, b (G1, G2) and l + h MSMs   (msm.h)
 * The queries' scalars are the values themselves where a query covers
 * every variable (the inputs of a, the aux of l) and compacted copies
 * where a density bitmap filters them.  Memory: 3 m + n_inputs + n_aux
 * field elements for the vectors and the Montgomery witness, then the
 * filtered scalars (at most n_inputs + 2 n_aux). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_impl.h"
#include "base/clock.h"
#include "base/par.h"
#include "groth16/types.h"
#include "msm/msm.h"
#include "poly/ntt.h"

typedef struct {
  bls12_381_fr *a, *b, *c;
  bls12_381_fr zinv; /* 1 / (g^m - 1) */
  size_t n;
  bool sub; /* false: a[i] := a[i] b[i] zinv; true: c[i] := a[i] - zinv c[i] */
} quot_job;

static void quot_part(void *ctx, unsigned idx, unsigned nt) {
  const quot_job *q = ctx;
  size_t lo, hi;
  par_range(q->n, idx, nt, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    bls12_381_fr t;
    if (q->sub) {
      bls12_381_fr_mul(&t, &q->c[i], &q->zinv);
      bls12_381_fr_sub(&q->c[i], &q->a[i], &t);
    } else {
      bls12_381_fr_mul(&t, &q->a[i], &q->b[i]);
      bls12_381_fr_mul(&q->a[i], &t, &q->zinv);
    }
  }
}

/* h (in c, canonical bytes, m of them, the last 0 for a satisfied
 * circuit) from a, b, c (m each, Montgomery, evaluations on the domain;
 * all three overwritten). */
static cuzk_status quotient(backend *be, bls12_381_fr *a, bls12_381_fr *b, bls12_381_fr *c,
                            unsigned lg, cuzk_err *err) {
  ntt_domain d;
  CUZK_TRY(ntt_domain_init(&d, lg, NTT_ROOTS_BELLPERSON, err));
  const size_t m = d.n;
  bls12_381_fr g, ginv, gm;
  const limb_t seven[4] = {7, 0, 0, 0}, em[1] = {(limb_t)m};
  bls12_381_fr_from_canon(&g, seven);
  bls12_381_fr_inv(&ginv, &g);
  bls12_381_fr *v[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    if (cuzk_stopped(be->stop)) {
      ntt_domain_fini(&d);
      return cuzk_err_set(err, CUZK_CANCELLED, "cancelled in the quotient");
    }
    ntt_inverse(&d, v[k], be->threads);
    ntt_scale_powers(v[k], m, &g, be->threads);
    ntt_forward(&d, v[k], be->threads);
  }
  ntt_inverse(&d, c, be->threads);
  quot_job q = {.a = a, .b = b, .c = c, .n = m};
  bls12_381_fr_pow(&gm, &g, em, 1);
  bls12_381_fr_sub(&gm, &gm, &bls12_381_fr_one_mont);
  bls12_381_fr_inv(&q.zinv, &gm);
  par_run(be->threads, quot_part, &q);
  ntt_inverse(&d, a, be->threads);
  ntt_scale_powers(a, m, &ginv, be->threads);
  q.sub = true;
  par_run(be->threads, quot_part, &q);
  groth16_values_from_mont((uint8_t *)c, c, m, be->threads);
  ntt_domain_fini(&d);
  return CUZK_OK;
}

/* dst := the 32-byte values v[i] for each set bit i of d, in order;
 * returns the count. */
static size_t compact(uint8_t *dst, const uint8_t *v, const pce_density *d) {
  size_t k = 0;
  for (uint64_t i = 0; i < d->bit_len; i++)
    if (pce_density_get(d, i))
      memcpy(dst + 32 * k++, v + 32 * i, 32);
  return k;
}

/* The sums from h (in c) and the values. */
static cuzk_status sums(backend *be, backend_bp_sums *out, const backend_bp_key *k,
                        const uint8_t *values, const uint8_t *h, cuzk_err *err) {
  const size_t ninp = k->n_inputs, naux = k->n_aux, m = (size_t)1 << k->lg_domain;
  const size_t pa = k->a_aux->popcount, pbi = k->b_input->popcount, pba = k->b_aux->popcount;
  const uint8_t *inputs = values, *aux = values + 32 * ninp;
  uint8_t *filt = malloc(32 * (pa + pbi + pba) + 1);
  if (!filt)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu scalars (%zu MiB)",
                        pa + pbi + pba, ((pa + pbi + pba) * 32) >> 20);
  uint8_t *fa = filt, *fb = fa + 32 * compact(fa, aux, k->a_aux);
  compact(fb + 32 * compact(fb, inputs, k->b_input), aux, k->b_aux);
  const msm_part pt_a[2] = {{k->a, inputs, ninp}, {k->a + ninp, fa, pa}};
  const msm_part pt_b1[1] = {{k->b_g1, fb, pbi + pba}};
  const msm_part pt_b2[1] = {{k->b_g2, fb, pbi + pba}};
  const msm_part pt_lh[2] = {{k->l, aux, naux}, {k->h, h, m - 1}};
  cuzk_status st;
  double t = cuzk_now_s();
  if ((st = msm_g1_parts_stoppable(&out->a, pt_a, 2, be->threads, be->stop, err)) == CUZK_OK &&
      (out->msm_s[0] = cuzk_now_s() - t, t = cuzk_now_s(),
       st = msm_g1_parts_stoppable(&out->b1, pt_b1, 1, be->threads, be->stop, err)) == CUZK_OK &&
      (out->msm_s[1] = cuzk_now_s() - t, t = cuzk_now_s(),
       st = msm_g2_parts_stoppable(&out->b2, pt_b2, 1, be->threads, be->stop, err)) == CUZK_OK &&
      (out->msm_s[2] = cuzk_now_s() - t, t = cuzk_now_s(),
       st = msm_g1_parts_stoppable(&out->lh, pt_lh, 2, be->threads, be->stop, err)) == CUZK_OK)
    out->msm_s[3] = cuzk_now_s() - t;
  free(filt);
  return st;
}

cuzk_status cpu_bp_sums(backend *be, backend_bp_sums *out, const backend_bp_key *k,
                        const void *values, const backend_bp_abc *abc, cuzk_err *err) {
  const size_t ninp = k->n_inputs, naux = k->n_aux, nv = ninp + naux;
  const size_t m = (size_t)1 << k->lg_domain;
  const size_t rows = abc ? abc->rows : k->pce ? k->pce->num_constraints : 0;
  if ((!abc && !k->pce) || rows > m || m < 2)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "bp_sums: %zu rows of a, b, c (%s) for a domain of %zu", rows,
                        abc ? "given" : k->pce ? "the circuit's" : "none given", m);
  memset(out, 0, sizeof *out);
  /* a, b, c, then the witness in Montgomery form (pce_eval's input) */
  bls12_381_fr *buf = malloc((3 * m + (abc ? 0 : nv)) * sizeof *buf);
  if (!buf)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu field elements (%zu MiB)",
                        3 * m + nv, ((3 * m + nv) * 32) >> 20);
  bls12_381_fr *a = buf, *b = buf + m, *c = buf + 2 * m;
  cuzk_status st = CUZK_OK;
  double t = cuzk_now_s();
  /* the values checked below r as they are read (backend.h) */
  size_t bad;
  if (abc) { /* a, b, c below r: the caller checked */
    bad = groth16_values_check(values, nv, be->threads);
    groth16_values_to_mont(a, abc->a, rows, be->threads);
    groth16_values_to_mont(b, abc->b, rows, be->threads);
    groth16_values_to_mont(c, abc->c, rows, be->threads);
  } else {
    bad = groth16_values_to_mont(buf + 3 * m, values, nv, be->threads);
  }
  if (bad != nv) {
    out->bad1 = bad + 1;
    st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "bp_sums: value %zu is not below r", bad);
  } else if (!abc) {
    st = pce_eval(k->pce, buf + 3 * m, a, b, c, be->threads, be->stop, err);
  }
  if (st == CUZK_OK) {
    for (bls12_381_fr *v = a; v <= c; v += m) memset(v + rows, 0, (m - rows) * sizeof *v);
    out->abc_s = cuzk_now_s() - t;
    t = cuzk_now_s();
    if ((st = quotient(be, a, b, c, k->lg_domain, err)) == CUZK_OK) {
      out->h_s = cuzk_now_s() - t;
      st = cuzk_stopped(be->stop) ? cuzk_err_set(err, CUZK_CANCELLED, "cancelled before the MSMs")
                                  : sums(be, out, k, values, (const uint8_t *)c, err);
    }
  }
  free(buf);
  return st;
}
