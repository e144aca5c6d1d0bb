/* INSECURE bellperson parameters from a seed (bp_setup.h).
 *
 * DESIGN: every stage is a parallel pass over arrays (base/par.h), exact
 * arithmetic, so the result does not depend on the thread count:
 *   Lagrange  L_i(tau) for i < m: the denominators tau - w^i inverted in
 *             batches (one inversion per worker's range, 3M per element)
 *   columns   u, v, w (A, B, C at tau), nv elements each: worker t owns the
 *             columns of its range and scans every row for them, so nothing
 *             is shared and nothing beyond the three vectors is allocated
 *             (each worker reads all nnz column indices; one product per
 *             term is done once, by the owner)
 *   scalars   the vectors' canonical scalars, then comb products in
 *             chunks of SETUP_CHUNK per worker.
 * Memory: m + 3 nv field elements, the scalars of the largest vector and
 * the points themselves. */
#include "groth16/bp_setup.h"

#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "groth16/bp_prove.h"
#include "groth16/keygen.h"
#include "poly/ntt.h"

typedef bls12_381_fr fr;

#define SETUP_CHUNK 1024 /* scalars per comb_mul call: ~1/1024 inversion each */

/* ---- Lagrange values at tau */

typedef struct {
  fr *L;
  size_t m;
  fr tau, omega, omega_inv, c; /* c = (tau^m - 1) / m */
} lag_job;

/* L[i] = c w^i / (tau - w^i) over the worker's range, the denominators
 * inverted together: a forward pass keeps the prefix products in L, one
 * inversion, a backward pass (w^i stepped down by w^-1) turns each prefix
 * into 1 / d_i.  ~6M per element. */
static void lag_part(void *ctx, unsigned idx, unsigned n) {
  const lag_job *j = ctx;
  size_t lo, hi;
  par_range(j->m, idx, n, &lo, &hi);
  if (lo == hi)
    return;
  fr wi, acc, d, inv, t;
  const limb_t e[1] = {(limb_t)lo};
  bls12_381_fr_pow(&wi, &j->omega, e, 1);
  bls12_381_fr_set_one(&acc);
  for (size_t i = lo; i < hi; i++) {
    j->L[i] = acc; /* prod of d_k, lo <= k < i */
    bls12_381_fr_sub(&d, &j->tau, &wi);
    bls12_381_fr_mul(&acc, &acc, &d);
    bls12_381_fr_mul(&wi, &wi, &j->omega);
  }
  bls12_381_fr_inv(&inv, &acc); /* non-zero: tau is off the domain */
  for (size_t i = hi; i-- > lo;) {
    bls12_381_fr_mul(&wi, &wi, &j->omega_inv); /* w^i */
    bls12_381_fr_sub(&d, &j->tau, &wi);
    bls12_381_fr_mul(&t, &inv, &j->L[i]); /* 1 / d_i */
    bls12_381_fr_mul(&inv, &inv, &d);     /* 1 / prod d_k, k < i */
    bls12_381_fr_mul(&t, &t, &wi);
    bls12_381_fr_mul(&j->L[i], &t, &j->c);
  }
}

/* ---- columns at tau */

typedef struct {
  const pce_csr *m[3];
  const fr *L;
  fr *col[3]; /* u, v, w */
  size_t nv;
} col_job;

static void col_part(void *ctx, unsigned idx, unsigned n) {
  const col_job *j = ctx;
  size_t lo, hi;
  par_range(j->nv, idx, n, &lo, &hi);
  for (int k = 0; k < 3; k++) {
    const pce_csr *M = j->m[k];
    fr *out = j->col[k];
    for (uint64_t r = 0; r < M->nrows; r++)
      for (uint32_t t = M->row_ptr[r]; t < M->row_ptr[r + 1]; t++) {
        uint32_t c = M->col[t];
        if (c < lo || c >= hi)
          continue;
        fr p;
        bls12_381_fr_mul(&p, &M->val[t], &j->L[r]);
        bls12_381_fr_add(&out[c], &out[c], &p);
      }
  }
}

/* ---- comb products */

typedef struct {
  const bls12_381_g1_comb *c1;
  const bls12_381_g2_comb *c2; /* exactly one of the two */
  void *out;
  const limb_t (*k)[4];
  size_t n;
  int failed;
} mul_job;

static void mul_part(void *ctx, unsigned idx, unsigned n) {
  mul_job *j = ctx;
  size_t lo, hi;
  par_range(j->n, idx, n, &lo, &hi);
  if (lo == hi)
    return;
  size_t sz = j->c1 ? bls12_381_g1_comb_scratch_sizeof(j->c1, SETUP_CHUNK)
                    : bls12_381_g2_comb_scratch_sizeof(j->c2, SETUP_CHUNK);
  void *scratch = malloc(sz);
  if (!scratch) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (size_t i = lo; i < hi; i += SETUP_CHUNK) {
    size_t cnt = hi - i < SETUP_CHUNK ? hi - i : SETUP_CHUNK;
    if (j->c1)
      bls12_381_g1_comb_mul(j->c1, (bls12_381_g1_aff *)j->out + i, j->k + i, cnt, scratch);
    else
      bls12_381_g2_comb_mul(j->c2, (bls12_381_g2_aff *)j->out + i, j->k + i, cnt, scratch);
  }
  free(scratch);
}

/* ---- the setup */

typedef struct {
  const pce_file *pce;
  const fr *u, *v, *w;
  fr alpha, beta, gamma_inv, delta_inv, tau, zd; /* zd = (tau^m - 1) / delta */
} toxic;

/* The scalars of vector `which` into k (canonical limbs); returns the count
 * and sets *zero to the index of a zero scalar (a point at infinity), or
 * SIZE_MAX when none is. */
enum { V_IC, V_L, V_A, V_B, V_H };

static size_t scalars(limb_t (*k)[4], int which, const toxic *t, size_t m, size_t *zero) {
  const pce_file *p = t->pce;
  const size_t ninp = p->num_inputs, naux = p->num_aux;
  size_t n = 0;
  *zero = SIZE_MAX;
#define PUT(x)                                                                                   \
  do {                                                                                           \
    if (bls12_381_fr_is_zero(&(x)) && *zero == SIZE_MAX)                                        \
      *zero = n;                                                                                 \
    bls12_381_fr_to_canon(k[n++], &(x));                                                        \
  } while (0)
  switch (which) {
  case V_IC:
  case V_L: {
    const fr *s = which == V_IC ? &t->gamma_inv : &t->delta_inv;
    size_t lo = which == V_IC ? 0 : ninp, hi = which == V_IC ? ninp : ninp + naux;
    for (size_t j = lo; j < hi; j++) {
      fr x, y;
      bls12_381_fr_mul(&x, &t->beta, &t->u[j]);
      bls12_381_fr_mul(&y, &t->alpha, &t->v[j]);
      bls12_381_fr_add(&x, &x, &y);
      bls12_381_fr_add(&x, &x, &t->w[j]);
      bls12_381_fr_mul(&x, &x, s);
      PUT(x);
    }
    break;
  }
  case V_A:
    for (size_t j = 0; j < ninp; j++) PUT(t->u[j]);
    for (size_t j = 0; j < naux; j++)
      if (pce_density_get(&p->a_aux, j))
        PUT(t->u[ninp + j]);
    break;
  case V_B:
    for (size_t j = 0; j < ninp; j++)
      if (pce_density_get(&p->b_input, j))
        PUT(t->v[j]);
    for (size_t j = 0; j < naux; j++)
      if (pce_density_get(&p->b_aux, j))
        PUT(t->v[ninp + j]);
    break;
  case V_H: {
    fr x = t->zd;
    for (size_t i = 0; i + 1 < m; i++) {
      PUT(x);
      bls12_381_fr_mul(&x, &x, &t->tau);
    }
    break;
  }
  }
#undef PUT
  return n;
}

static const char *const vec_names[] = {"ic", "l", "a", "b_g1/b_g2", "h"};

static void *points(int group, size_t n) { return malloc((n ? n : 1) * (group == 1 ? 96 : 192)); }

cuzk_status bp_setup(bp_params *pp, const pce_file *pce, uint64_t seed, const bp_setup_opts *o,
                     cuzk_err *err) {
  memset(pp, 0, sizeof *pp);
  const size_t ninp = pce->num_inputs, naux = pce->num_aux, nv = ninp + naux;
  const unsigned lg = pce_domain_lg(pce);
  const size_t m = (size_t)1 << lg;
  if (ninp == 0 || pce->num_constraints < 2)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "a circuit with %zu inputs and %u rows: a setup needs ONE and 2 rows",
                        ninp, pce->num_constraints);
  const unsigned threads = o && o->threads ? o->threads : par_threads();
#define STAGE(name)                                                                              \
  do {                                                                                           \
    if (o && o->progress)                                                                        \
      o->progress(o->progress_ctx, name);                                                        \
  } while (0)

  /* The toxic waste and the generators. */
  uint64_t s = seed ^ 0x6270736574757031ULL; /* "bpsetup1" */
  limb_t kt[4], ka[4], kb[4], kg[4], kd[4], k1[4], k2[4];
  toxic t = {.pce = pce};
  fr one, tm;
  bls12_381_fr_set_one(&one);
  const limb_t em[1] = {(limb_t)m};
  for (;;) { /* tau off the domain: tau^m != 1 */
    keygen_draw_scalar(kt, &s);
    bls12_381_fr_from_canon(&t.tau, kt);
    bls12_381_fr_pow(&tm, &t.tau, em, 1);
    if (!bls12_381_fr_eq(&tm, &one))
      break;
  }
  keygen_draw_scalar(ka, &s);
  keygen_draw_scalar(kb, &s);
  keygen_draw_scalar(kg, &s);
  keygen_draw_scalar(kd, &s);
  keygen_draw_scalar(k1, &s);
  keygen_draw_scalar(k2, &s);
  fr gamma, delta;
  bls12_381_fr_from_canon(&t.alpha, ka);
  bls12_381_fr_from_canon(&t.beta, kb);
  bls12_381_fr_from_canon(&gamma, kg);
  bls12_381_fr_from_canon(&delta, kd);
  bls12_381_fr_inv(&t.gamma_inv, &gamma);
  bls12_381_fr_inv(&t.delta_inv, &delta);
  fr z; /* tau^m - 1 */
  bls12_381_fr_sub(&z, &tm, &one);
  bls12_381_fr_mul(&t.zd, &z, &t.delta_inv);

  bls12_381_g1_aff g1;
  bls12_381_g2_aff g2;
  {
    bls12_381_g1_jac j1;
    bls12_381_g2_jac j2;
    bls12_381_g1_jac_from_aff(&j1, &bls12_381_g1_generator);
    bls12_381_g1_jac tmp1 = j1;
    bls12_381_g1_jac_mul_vartime(&j1, &tmp1, k1, 4);
    bls12_381_g1_jac_to_aff(&g1, &j1);
    bls12_381_g2_jac_from_aff(&j2, &bls12_381_g2_generator);
    bls12_381_g2_jac tmp2 = j2;
    bls12_381_g2_jac_mul_vartime(&j2, &tmp2, k2, 4);
    bls12_381_g2_jac_to_aff(&g2, &j2);
  }

  cuzk_status st = CUZK_OK;
  fr *L = NULL, *cols = NULL;
  limb_t(*k)[4] = NULL;
  bls12_381_g1_comb c1 = {0};
  bls12_381_g2_comb c2 = {0};

  /* Lagrange values and the columns. */
  STAGE("Lagrange values at tau");
  L = malloc(m * sizeof *L);
  cols = calloc(3 * nv, sizeof *cols);
  if (!L || !cols) {
    st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu field elements (%zu MiB)",
                      m + 3 * nv, ((m + 3 * nv) * 32) >> 20);
    goto out;
  }
  lag_job lj = {L, m, t.tau, {{0}}, {{0}}, {{0}}};
  ntt_root(&lj.omega, NTT_ROOTS_BELLPERSON, lg);
  bls12_381_fr_inv(&lj.omega_inv, &lj.omega);
  {
    fr minv;
    const limb_t mm[4] = {(limb_t)m, 0, 0, 0};
    bls12_381_fr_from_canon(&minv, mm);
    bls12_381_fr_inv(&minv, &minv);
    bls12_381_fr_mul(&lj.c, &z, &minv);
  }
  par_run(threads, lag_part, &lj);
  STAGE("A, B, C at tau");
  col_job cj = {{&pce->a, &pce->b, &pce->c}, L, {cols, cols + nv, cols + 2 * nv}, nv};
  par_run(threads, col_part, &cj);
  free(L);
  L = NULL;
  t.u = cols, t.v = cols + nv, t.w = cols + 2 * nv;

  /* The comb tables. */
  STAGE("comb tables");
  const size_t nb = pce->b_input.popcount + pce->b_aux.popcount;
  backend *be = o && o->backend && o->backend->ops->fixed_base ? o->backend : NULL;
  /* With the backend's products the combs serve the vk's six points only. */
  const size_t ng1 = be ? 3 : ninp + naux + (ninp + pce->a_aux.popcount) + nb + (m - 1) + 3;
  if ((st = bls12_381_g1_comb_init(&c1, &g1, keygen_comb_pick_bits(ng1), threads, err)) !=
          CUZK_OK ||
      (st = bls12_381_g2_comb_init(&c2, &g2, keygen_comb_pick_bits(be ? 3 : nb + 3), threads,
                                   err)) !=
          CUZK_OK)
    goto out;

  /* The vectors, largest first for the scalar buffer's size. */
  size_t kcap = m - 1 > nv ? m - 1 : nv;
  if (!(k = malloc((kcap + 3) * sizeof *k))) {
    st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu scalars", kcap);
    goto out;
  }
  static const struct {
    int which, group;
    const char *stage;
  } plan[] = {{V_IC, 1, "ic"}, {V_L, 1, "l"},      {V_A, 1, "a"},
              {V_B, 1, "b_g1"}, {V_B, 2, "b_g2"}, {V_H, 1, "h"}};
  for (size_t v = 0; v < sizeof plan / sizeof *plan; v++) {
    STAGE(plan[v].stage);
    size_t zero, n = scalars(k, plan[v].which, &t, m, &zero);
    if (zero != SIZE_MAX) {
      st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "point %zu of vector %s would be at infinity, which bellperson keys "
                        "may not hold: its variable's columns are zero at tau (a variable that "
                        "no constraint names; with negligible probability, seed %llu: try "
                        "another)",
                        zero, vec_names[plan[v].which], (unsigned long long)seed);
      goto out;
    }
    void *out = points(plan[v].group, n);
    if (!out) {
      st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu points of vector %s", n,
                        plan[v].stage);
      goto out;
    }
    mul_job mj = {plan[v].group == 1 ? &c1 : NULL, plan[v].group == 2 ? &c2 : NULL, out,
                  (const limb_t(*)[4])k, n, 0};
    if (be)
      st = be->ops->fixed_base(be, plan[v].group == 2,
                               plan[v].group == 2 ? (const void *)&g2 : (const void *)&g1,
                               (const limb_t(*)[4])k, n, out, err);
    else
      par_run(threads, mul_part, &mj);
    switch (v) {
    case 0: pp->vk.ic = out, pp->vk.n_ic = n; break;
    case 1: pp->l = out, pp->n_l = n; break;
    case 2: pp->a = out, pp->n_a = n; break;
    case 3: pp->b_g1 = out, pp->n_b_g1 = n; break;
    case 4: pp->b_g2 = out, pp->n_b_g2 = n; break;
    default: pp->h = out, pp->n_h = n; break;
    }
    if (st != CUZK_OK)
      goto out;
    if (mj.failed) {
      st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for comb scratch");
      goto out;
    }
  }

  /* The verifying key's points. */
  {
    limb_t kk[6][4];
    bls12_381_fr_to_canon(kk[0], &t.alpha);
    bls12_381_fr_to_canon(kk[1], &t.beta);
    bls12_381_fr_to_canon(kk[2], &delta);
    memcpy(kk[3], kk[1], sizeof kk[3]);
    bls12_381_fr_to_canon(kk[4], &gamma);
    memcpy(kk[5], kk[2], sizeof kk[5]);
    bls12_381_g1_aff p1[3];
    bls12_381_g2_aff p2[3];
    uint8_t scratch[1 << 16];
    if (bls12_381_g1_comb_scratch_sizeof(&c1, 3) > sizeof scratch ||
        bls12_381_g2_comb_scratch_sizeof(&c2, 3) > sizeof scratch) {
      st = cuzk_err_set(err, CUZK_INTERNAL, "comb scratch for 3 points exceeds 64 KiB");
      goto out;
    }
    bls12_381_g1_comb_mul(&c1, p1, (const limb_t(*)[4])kk, 3, scratch);
    bls12_381_g2_comb_mul(&c2, p2, (const limb_t(*)[4])kk + 3, 3, scratch);
    pp->vk.alpha_g1 = p1[0], pp->vk.beta_g1 = p1[1], pp->vk.delta_g1 = p1[2];
    pp->vk.beta_g2 = p2[0], pp->vk.gamma_g2 = p2[1], pp->vk.delta_g2 = p2[2];
  }
#undef STAGE

out:
  free(L);
  free(cols);
  free(k);
  bls12_381_g1_comb_fini(&c1);
  bls12_381_g2_comb_fini(&c2);
  if (st != CUZK_OK)
    bp_params_free(pp);
  return st;
}
