/* The bellperson-convention partition on the GPU against the host:
 *   coset_quotient  cuda_ntt_coset_quotient_dev (six transforms) against
 *                   the seven steps of docs/FORMATS.md §5.5 done with
 *                   poly/ntt.h, for values with c = a o b;
 *   bp_sums         the CUDA backend's bp_sums (matrices, h, the MSMs all on
 *                   the device) against the CPU backend's, sum for sum, from
 *                   the circuit's matrices and from given a, b, c, with the
 *                   copies held between partitions and not; and proofs
 *                   through bp_prove_values that verify;
 *   pce_tables      the resident matrices' a, b, c (emulated: the device's
 *                   row code on the host) against pce_eval, with values
 *                   kept whole (random: no table pays), as a table with
 *                   codes for +-1 (a development PoRep circuit), and as a
 *                   table of a few values of each kind; and bp_sums from
 *                   development circuits (emulated and on the device);
 *   fixed_base      the CUDA backend's fixed-base products (a key's set-up)
 *                   against the host's scalar multiplication, point for
 *                   point, in G1 and G2, zero, one, r - 1 and random
 *                   scalars; and a set-up through it equal to the CPU's.
 * The emu_* cases run the device code emulated (no GPU: CI); the others
 * skip, with the reason, without a usable GPU. */

#include "harness.h"

#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/device.h"
#include "cuda/ntt_gpu.h"
#include "cuda/pce_gpu.h"
#include "gpu_test.h"
#include "groth16/bp_prove.h"
#include "groth16/bp_setup.h"
#include "groth16/pce_gen.h"
#include "poly/ntt.h"
#include "unit/bp_circuit.h"

/* ---- the coset quotient */

/* h from a, b, c (Montgomery, consumed) by the steps of the definition
 * (seven transforms). */
static void quotient_ref(uint8_t *h, fr *a, fr *b, fr *c, unsigned lg) {
  ntt_domain d;
  cuzk_err err = {0};
  CHECK_MSG(ntt_domain_init(&d, lg, NTT_ROOTS_BELLPERSON, &err) == CUZK_OK, "%s", err.msg);
  const size_t m = d.n;
  fr g, ginv, z;
  bls12_381_fr_set_u64(&g, 7);
  bls12_381_fr_inv(&ginv, &g);
  fr *v[3] = {a, b, c};
  for (int k = 0; k < 3; k++) {
    ntt_inverse(&d, v[k], 1);
    ntt_scale_powers(v[k], m, &g, 1);
    ntt_forward(&d, v[k], 1);
  }
  z = g;
  for (unsigned i = 0; i < lg; i++) bls12_381_fr_sqr(&z, &z);
  bls12_381_fr_sub(&z, &z, &bls12_381_fr_one_mont);
  bls12_381_fr_inv(&z, &z);
  for (size_t i = 0; i < m; i++) {
    fr t;
    bls12_381_fr_mul(&t, &a[i], &b[i]);
    bls12_381_fr_sub(&t, &t, &c[i]);
    bls12_381_fr_mul(&c[i], &t, &z);
  }
  ntt_inverse(&d, c, 1);
  ntt_scale_powers(c, m, &ginv, 1);
  for (size_t i = 0; i < m; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &c[i]);
    limbs_to_le(h + 32 * i, x, 4);
  }
  ntt_domain_fini(&d);
}

static void coset_case(unsigned lg, bool emulate, uint64_t *seed) {
  const size_t m = (size_t)1 << lg;
  fr *in = malloc(3 * m * sizeof *in), *w = malloc(3 * m * sizeof *w);
  uint8_t *h1 = malloc(32 * m), *h2 = malloc(32 * m);
  CHECK(in && w && h1 && h2);
  /* a, b random, c = a o b: a satisfied circuit's values, for which the
   * six-transform quotient must equal the definition's steps */
  for (size_t i = 0; i < 2 * m; i++) rand_fr(&in[i], seed);
  for (size_t i = 0; i < m; i++) bls12_381_fr_mul(&in[2 * m + i], &in[i], &in[m + i]);
  memcpy(w, in, 3 * m * sizeof *w);
  quotient_ref(h1, w, w + m, w + 2 * m, lg);
  cuda_ntt_config cfg = {.buffers = 3, .coset_gen = 7, .emulate = emulate};
  cuda_ntt_plan *p = NULL;
  cuzk_err err = {0};
  CHECK_MSG(cuda_ntt_plan_new(&p, lg, NTT_ROOTS_BELLPERSON, &cfg, &err) == CUZK_OK, "%s",
            err.msg);
  for (unsigned i = 0; i < 3; i++)
    CHECK_MSG(cuda_ntt_upload(p, i, in + i * m, NULL, &err) == CUZK_OK, "%s", err.msg);
  void *b0 = cuda_ntt_plan_buffer(p, 0), *b1 = cuda_ntt_plan_buffer(p, 1),
       *b2 = cuda_ntt_plan_buffer(p, 2);
  CHECK_MSG(cuda_ntt_coset_quotient_dev(p, b2, b0, b1, b2, NULL, NULL, &err) == CUZK_OK, "%s",
            err.msg);
  memset(h2, 0xa5, 32 * m);
  CHECK_MSG(cuda_ntt_download(p, h2, 2, NULL, &err) == CUZK_OK &&
                cuda_ntt_sync(p, NULL, &err) == CUZK_OK,
            "%s", err.msg);
  CHECK_MSG(memcmp(h1, h2, 32 * m) == 0, "coset quotient 2^%u%s differs from the host's", lg,
            emulate ? " (emulated)" : "");
  cuda_ntt_plan_free(p);
  free(in), free(w), free(h1), free(h2);
}

TEST_TIMEOUT(emu_coset_quotient_matches_cpu, 600) {
  uint64_t seed = test_seed();
  for (unsigned lg = 1; lg <= 12; lg++) coset_case(lg, true, &seed);
  /* a plan made for the odd coset refuses */
  cuda_ntt_config cfg = {.buffers = 3, .emulate = true};
  cuda_ntt_plan *p = NULL;
  cuzk_err err = {0};
  CHECK(cuda_ntt_plan_new(&p, 4, NTT_ROOTS_BELLPERSON, &cfg, &err) == CUZK_OK);
  void *b[3] = {cuda_ntt_plan_buffer(p, 0), cuda_ntt_plan_buffer(p, 1),
                cuda_ntt_plan_buffer(p, 2)};
  CHECK_EQ_INT(cuda_ntt_coset_quotient_dev(p, b[2], b[0], b[1], b[2], NULL, NULL, &err),
               CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "coset_gen"), "%s", err.msg);
  cuda_ntt_plan_free(p);
}

TEST_TIMEOUT(coset_quotient_matches_cpu, 600) {
  need_gpu();
  uint64_t seed = test_seed();
  for (unsigned lg = 1; lg <= 20; lg += lg < 12 ? 1 : 4) coset_case(lg, false, &seed);
}

/* ---- bp_sums */

static backend *emulated(void) {
  const backend_device_opts o = {.emulate = true};
  cuzk_err err = {0};
  backend *b = backend_cuda_new(0, &o, &err);
  CHECK_MSG(b, "%s", err.msg);
  return b;
}

static backend_bp_key key_of(const circuit *c, const bp_params *pp) {
  const pce_file *p = &c->p;
  return bp_key_view(pp, p, &p->a_aux, &p->b_input, &p->b_aux, p->num_inputs, p->num_aux,
                     pce_domain_lg(p));
}

static bool g1_eq(const bls12_381_g1_jac *x, const bls12_381_g1_jac *y) {
  return bls12_381_g1_jac_eq(x, y);
}

static void sums_equal(const backend_bp_sums *x, const backend_bp_sums *y, const char *what) {
  CHECK_MSG(g1_eq(&x->a, &y->a), "%s: the a sums differ", what);
  CHECK_MSG(g1_eq(&x->b1, &y->b1), "%s: the b (G1) sums differ", what);
  CHECK_MSG(bls12_381_g2_jac_eq(&x->b2, &y->b2), "%s: the b (G2) sums differ", what);
  CHECK_MSG(g1_eq(&x->lh, &y->lh), "%s: the l + h sums differ", what);
}

/* gb's sums equal the CPU's from the matrices and from a, b, c, held and
 * not, and gb's proofs verify. */
static void bp_check(backend *gb, circuit *cp, uint64_t seed) {
  circuit c = *cp;
  const uint32_t ninp = c.p.num_inputs;
  const size_t naux = c.p.num_aux;
  bp_params pp;
  cuzk_err err = {0};
  CHECK_MSG(bp_setup(&pp, &c.p, seed, NULL, &err) == CUZK_OK, "%s", err.msg);
  backend *cb = backend_cpu_new(0);
  const backend_bp_key k = key_of(&c, &pp);
  const uint8_t *values = c.wt + WTNS_BLS_HEADER_BYTES;
  backend_bp_sums s_cpu, s_gpu;
  CHECK_MSG(cb->ops->bp_sums(cb, &s_cpu, &k, values, NULL, &err) == CUZK_OK, "%s", err.msg);
  for (int hold = 0; hold <= 1; hold++) {
    CHECK(gb->ops->hold_bases(gb, hold, &err) == CUZK_OK);
    for (int again = 0; again < 2; again++) { /* the second over the copies already made */
      memset(&s_gpu, 0x5a, sizeof s_gpu);
      CHECK_MSG(gb->ops->bp_sums(gb, &s_gpu, &k, values, NULL, &err) == CUZK_OK, "%s", err.msg);
      sums_equal(&s_cpu, &s_gpu, hold ? "from the matrices, held" : "from the matrices");
    }
  }
  /* a, b, c given (the SupraSeal boundary): the CPU's evaluation */
  const size_t n = c.p.num_constraints;
  fr *ev = malloc(3 * n * sizeof *ev);
  uint8_t *abc = malloc(3 * 32 * n);
  CHECK(ev && abc);
  CHECK(pce_eval(&c.p, c.w, ev, ev + n, ev + 2 * n, 0, NULL, &err) == CUZK_OK);
  for (size_t i = 0; i < 3 * n; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &ev[i]);
    limbs_to_le(abc + 32 * i, x, 4);
  }
  const backend_bp_abc given = {abc, abc + 32 * n, abc + 64 * n, n};
  backend_bp_key kg = k;
  kg.pce = NULL;
  memset(&s_gpu, 0x5a, sizeof s_gpu);
  CHECK_MSG(gb->ops->bp_sums(gb, &s_gpu, &kg, values, &given, &err) == CUZK_OK, "%s", err.msg);
  sums_equal(&s_cpu, &s_gpu, "from a, b, c");
  /* a value not below r, checked on the device after the upload: both
   * backends name the first (r itself at j, r + 1 after it) */
  const size_t nv = (size_t)ninp + naux, j = nv / 2;
  uint8_t *badv = malloc(32 * nv);
  CHECK(badv);
  memcpy(badv, values, 32 * nv);
  for (size_t t = j; t < nv && t <= j + 1; t++) {
    limb_t x[4];
    memcpy(x, bls12_381_fr_modulus, sizeof x);
    x[0] += t - j;
    limbs_to_le(badv + 32 * t, x, 4);
  }
  backend *both[2] = {cb, gb};
  for (int i = 0; i < 2; i++) {
    memset(&s_gpu, 0, sizeof s_gpu);
    CHECK_EQ_INT(both[i]->ops->bp_sums(both[i], &s_gpu, &k, badv, NULL, &err),
                 CUZK_INVALID_ARGUMENT);
    CHECK_MSG(s_gpu.bad1 == j + 1 && strstr(err.msg, "not below r"),
              "%s backend: bad1 %zu (expected %zu): %s", both[i]->ops->name, s_gpu.bad1, j + 1,
              err.msg);
  }
  free(badv);
  /* whole proofs */
  groth16_proof pr;
  groth16_timings tm;
  for (int i = 0; i < 2; i++)
    CHECK_MSG(bp_prove_values(&pr, &pp, &c.p, values, "w", gb, NULL, NULL, &tm, &err) == CUZK_OK,
              "%s", err.msg);
  printf("  %u inputs, %zu aux, %u rows: a,b,c %.1f ms, h %.1f ms, MSMs %.1f ms\n", ninp, naux,
         c.p.num_constraints, 1e3 * tm.ab_s, 1e3 * tm.quotient_s, 1e3 * tm.msm_s);
  CHECK(gb->ops->hold_bases(gb, false, &err) == CUZK_OK);
  free(ev), free(abc);
  backend_free(cb);
  bp_params_free(&pp);
}

static void bp_case(backend *gb, uint32_t ninp, uint32_t naux, uint32_t rows, uint64_t seed) {
  circuit c;
  circuit_make(&c, ninp, naux, rows, seed);
  bp_check(gb, &c, seed);
  circuit_free(&c);
}

/* bp_check over a development circuit of `shape` at 2^lg (its matrices'
 * values as tables: cuda/pce_gpu.h). */
static void gen_circuit(pce_file *f, fr **w, pce_gen_plan *pl, const char *shape, unsigned lg);
static void bp_gen_case(backend *gb, const char *shape, unsigned lg, uint64_t seed) {
  circuit c;
  memset(&c, 0, sizeof c);
  pce_gen_plan pl;
  gen_circuit(&c.p, &c.w, &pl, shape, lg);
  wtns_bytes(&c);
  bp_check(gb, &c, seed);
  pce_close(&c.p);
  free(c.w), free(c.wt);
}

TEST_TIMEOUT(emu_bp_sums_match_cpu, 900) {
  backend *gb = emulated();
  bp_case(gb, 3, 70, 60, 41);
  bp_case(gb, 1, 10, 3, 42); /* ONE alone: an empty b_input, a domain of 16 */
  bp_gen_case(gb, "winning-32g", 10, 46);
  backend_free(gb);
}

TEST_TIMEOUT(bp_sums_match_cpu, 900) {
  backend *gb = gpu_or_skip();
  bp_case(gb, 3, 70, 60, 43);
  bp_case(gb, 9, 30000, 40000, 44); /* 2^16 */
  bp_gen_case(gb, "porep-32g", 16, 45);
  backend_free(gb);
}

/* ---- the resident matrices' value tables */

static cuda_pce_src src_of(const pce_file *f) {
  cuda_pce_src s;
  memset(&s, 0, sizeof s);
  const pce_csr *m[3] = {&f->a, &f->b, &f->c};
  s.rows = f->num_constraints, s.n_inputs = f->num_inputs, s.n_aux = f->num_aux;
  for (int k = 0; k < 3; k++)
    s.row_ptr[k] = m[k]->row_ptr, s.col[k] = m[k]->col, s.val[k] = m[k]->val, s.nnz[k] = m[k]->nnz;
  s.a_aux = f->a_aux.words, s.b_input = f->b_input.words, s.b_aux = f->b_aux.words;
  return s;
}

/* The emulated resident matrices' a, b, c from w equal pce_eval's; each
 * matrix coded (a table of at most max_tab values) or not as `coded`
 * says. */
static void tables_case(const pce_file *f, const fr *w, const bool coded[3], size_t max_tab,
                        const char *what) {
  const size_t nv = (size_t)f->num_inputs + f->num_aux, n = f->num_constraints;
  uint8_t *wc = malloc(32 * nv);
  fr *got = malloc(3 * n * sizeof *got), *want = malloc(3 * n * sizeof *want);
  CHECK(wc && got && want);
  for (size_t i = 0; i < nv; i++) {
    limb_t x[4];
    bls12_381_fr_to_canon(x, &w[i]);
    limbs_to_le(wc + 32 * i, x, 4);
  }
  const cuda_pce_src s = src_of(f);
  cuda_pce *p = NULL;
  cuzk_err err = {0};
  CHECK_MSG(cuda_pce_new(&p, &s, true, &err) == CUZK_OK, "%s: %s", what, err.msg);
  for (int k = 0; k < 3; k++) {
    const size_t t = cuda_pce_table_size(p, k);
    CHECK_MSG(coded[k] ? t <= max_tab : t == SIZE_MAX,
              "%s: matrix %c: table of %zu values, expected %s", what, "ABC"[k], t,
              coded[k] ? "a table" : "whole values");
  }
  memset(got, 0x5a, 3 * n * sizeof *got);
  CHECK_MSG(cuda_pce_abc(p, got, got + n, got + 2 * n, n, wc, NULL, &err) == CUZK_OK, "%s: %s",
            what, err.msg);
  CHECK(pce_eval(f, w, want, want + n, want + 2 * n, 0, NULL, &err) == CUZK_OK);
  for (int k = 0; k < 3; k++)
    for (size_t r = 0; r < n; r++)
      CHECK_MSG(memcmp(&got[k * n + r], &want[k * n + r], sizeof(fr)) == 0,
                "%s: %c.w differs from pce_eval's at row %zu", what, "ABC"[k], r);
  printf("  %s: %u rows, tables of %zd / %zd / %zd values (-1: whole), %zu device bytes\n", what,
         f->num_constraints, (ssize_t)cuda_pce_table_size(p, 0), (ssize_t)cuda_pce_table_size(p, 1),
         (ssize_t)cuda_pce_table_size(p, 2), cuda_pce_bytes(p));
  cuda_pce_free(p);
  free(wc), free(got), free(want);
}

/* A development circuit of `shape` at 2^lg and its witness for partition 0. */
static void gen_circuit(pce_file *f, fr **w, pce_gen_plan *pl, const char *shape, unsigned lg) {
  cuzk_err err = {0};
  CHECK_MSG(pce_gen_plan_make(pl, pce_shape_find(shape), lg, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(pce_gen_circuit(f, pl, &err) == CUZK_OK, "%s", err.msg);
  *w = malloc(((size_t)f->num_inputs + f->num_aux) * sizeof **w);
  CHECK(*w);
  pce_gen_witness(pl, 7, 0, *w);
}

TEST_TIMEOUT(emu_pce_tables, 600) {
  /* random coefficients: every value distinct, no table */
  circuit c;
  circuit_make(&c, 3, 3000, 4000, 51);
  const bool none[3] = {false, false, false}, all[3] = {true, true, true};
  tables_case(&c.p, c.w, none, 0, "random values");
  /* a few values of each kind: +1, -1, 2, 2^70, a random one; C random
   * (whole), A and B of five values; w random, so that the canonical sums
   * of +-1 terms wrap */
  uint64_t seed = 52;
  fr five[5];
  bls12_381_fr_set_one(&five[0]);
  bls12_381_fr_neg(&five[1], &five[0]);
  bls12_381_fr_add(&five[2], &five[0], &five[0]);
  five[3] = five[2];
  for (int i = 0; i < 69; i++) bls12_381_fr_add(&five[3], &five[3], &five[3]);
  rand_fr(&five[4], &seed);
  pce_csr *ab[2] = {&c.p.a, &c.p.b};
  for (int k = 0; k < 2; k++)
    for (uint64_t e = 0; e < ab[k]->nnz; e++) ab[k]->val[e] = five[rng_next(&seed) % 5];
  for (size_t i = 0; i < (size_t)c.p.num_inputs + c.p.num_aux; i++) rand_fr(&c.w[i], &seed);
  const bool ab_only[3] = {true, true, false};
  tables_case(&c.p, c.w, ab_only, 3, "five values");
  /* only -1 */
  for (int k = 0; k < 2; k++)
    for (uint64_t e = 0; e < ab[k]->nnz; e++) ab[k]->val[e] = five[1];
  tables_case(&c.p, c.w, ab_only, 0, "minus ones");
  circuit_free(&c);
  /* a development PoRep circuit: +-1 and the packs' powers of two */
  pce_file f;
  fr *w;
  pce_gen_plan pl;
  gen_circuit(&f, &w, &pl, "porep-32g", 14);
  tables_case(&f, w, all, 512, "porep-32g 2^14");
  pce_close(&f);
  free(w);
}

/* ---- fixed-base products */

/* n scalars: 0, 1, 2, 255, 256, r - 1, then random ones below r. */
static limb_t (*scalars_for(size_t n, uint64_t seed))[4] {
  limb_t(*k)[4] = calloc(n, sizeof *k);
  CHECK(k && n >= 6);
  k[1][0] = 1, k[2][0] = 2, k[3][0] = 255, k[4][0] = 256;
  memcpy(k[5], bls12_381_fr_modulus, sizeof k[5]);
  k[5][0] -= 1;
  for (size_t i = 6; i < n; i++) {
    fr x;
    rand_fr(&x, &seed);
    bls12_381_fr_to_canon(k[i], &x);
  }
  return k;
}

/* fixed_base over n scalars against jac_mul_vartime, G1 and G2, with a
 * generator that is a random multiple of the standard one. */
static void fixed_case(backend *gb, size_t n, size_t check_every, uint64_t seed) {
  CHECK_MSG(gb->ops->fixed_base, "backend %s has no fixed_base", gb->ops->name);
  limb_t(*k)[4] = scalars_for(n, seed);
  cuzk_err err = {0};
  for (int g2 = 0; g2 < 2; g2++) {
    const size_t pb = g2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff);
    uint8_t *out = malloc(n * pb);
    CHECK(out);
    bls12_381_g1_jac j1, r1;
    bls12_381_g2_jac j2, r2;
    bls12_381_g1_aff g1;
    bls12_381_g2_aff g2a;
    limb_t s[4];
    fr x;
    rand_fr(&x, &seed);
    bls12_381_fr_to_canon(s, &x);
    bls12_381_g1_jac_from_aff(&r1, &bls12_381_g1_generator);
    bls12_381_g2_jac_from_aff(&r2, &bls12_381_g2_generator);
    bls12_381_g1_jac_mul_vartime(&j1, &r1, s, 4);
    bls12_381_g2_jac_mul_vartime(&j2, &r2, s, 4);
    bls12_381_g1_jac_to_aff(&g1, &j1);
    bls12_381_g2_jac_to_aff(&g2a, &j2);
    const void *g = g2 ? (const void *)&g2a : (const void *)&g1;
    CHECK_MSG(gb->ops->fixed_base(gb, g2, g, (const limb_t(*)[4])k, n, out, &err) == CUZK_OK,
              "%s", err.msg);
    for (size_t i = 0; i < n; i += i < 8 ? 1 : check_every) {
      uint8_t want[192];
      if (g2) {
        bls12_381_g2_jac_from_aff(&j2, &g2a);
        bls12_381_g2_jac_mul_vartime(&r2, &j2, k[i], 4);
        bls12_381_g2_jac_to_aff((bls12_381_g2_aff *)want, &r2);
      } else {
        bls12_381_g1_jac_from_aff(&j1, &g1);
        bls12_381_g1_jac_mul_vartime(&r1, &j1, k[i], 4);
        bls12_381_g1_jac_to_aff((bls12_381_g1_aff *)want, &r1);
      }
      if (i == 0)
        memset(want, 0, pb); /* infinity: all zero bytes */
      CHECK_MSG(!memcmp(out + i * pb, want, pb), "G%d point %zu of %zu differs from the host's",
                g2 + 1, i, n);
    }
    free(out);
  }
  free(k);
}

/* A whole set-up through the backend equals the CPU's, vector for vector. */
static void setup_case(backend *gb) {
  circuit c;
  circuit_make(&c, 3, 70, 60, 45);
  bp_params a, b;
  cuzk_err err = {0};
  const bp_setup_opts cpu = {.threads = 2}, gpu = {.threads = 2, .backend = gb};
  CHECK_MSG(bp_setup(&a, &c.p, 9, &cpu, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(bp_setup(&b, &c.p, 9, &gpu, &err) == CUZK_OK, "%s", err.msg);
  const size_t sa = bp_params_size(&a);
  CHECK_EQ_INT(bp_params_size(&b), sa);
  uint8_t *ea = malloc(sa), *eb = malloc(sa);
  CHECK(ea && eb);
  bp_params_encode(ea, &a);
  bp_params_encode(eb, &b);
  CHECK_MSG(!memcmp(ea, eb, sa), "the set-up through the backend differs from the CPU's");
  free(ea), free(eb);
  bp_params_free(&a), bp_params_free(&b);
  circuit_free(&c);
}

TEST_TIMEOUT(emu_fixed_base_matches_cpu, 900) {
  backend *gb = emulated();
  fixed_case(gb, 40, 1, 51);
  setup_case(gb);
  backend_free(gb);
}

TEST_TIMEOUT(fixed_base_matches_cpu, 900) {
  backend *gb = gpu_or_skip();
  fixed_case(gb, 100, 1, 52);
  fixed_case(gb, (size_t)1 << 23, 9973, 53); /* two chunks, a part checked */
  setup_case(gb);
  backend_free(gb);
}
