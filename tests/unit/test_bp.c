/* bellperson .vk / .params / proof bytes (groth16/bp.h): known encodings,
 * round trips of seeded keys, a proof simulated with the trapdoor that
 * verifies (and fails once an input or a byte changes), every malformed-file
 * error with its text, and the independent @noble/curves verifier
 * (tests/oracle/bp_verify.mjs) on the same bytes. */
#include "harness.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include "base/par.h"
#include "ec/encode.h"
#include "groth16/binfile.h"
#include "groth16/bp.h"
#include "groth16/json.h"
#include "groth16/verify.h"

/* ------------------------------------------------------------ scalars, points */

static bls12_381_fr fr_rand(test_rng *r) {
  limb_t l[4];
  for (int i = 0; i < 4; i++) l[i] = test_rng_next(r);
  l[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r */
  bls12_381_fr x;
  bls12_381_fr_from_canon(&x, l);
  return x;
}

static void g1_mul(bls12_381_g1_aff *out, const bls12_381_fr *k) {
  limb_t c[4];
  bls12_381_fr_to_canon(c, k);
  bls12_381_g1_jac j;
  bls12_381_g1_jac_from_aff(&j, &bls12_381_g1_generator);
  bls12_381_g1_jac_mul_vartime(&j, &j, c, 4);
  bls12_381_g1_jac_to_aff(out, &j);
}

static void g2_mul(bls12_381_g2_aff *out, const bls12_381_fr *k) {
  limb_t c[4];
  bls12_381_fr_to_canon(c, k);
  bls12_381_g2_jac j;
  bls12_381_g2_jac_from_aff(&j, &bls12_381_g2_generator);
  bls12_381_g2_jac_mul_vartime(&j, &j, c, 4);
  bls12_381_g2_jac_to_aff(out, &j);
}

static void hex_to(uint8_t *out, const char *hex, size_t n) {
  CHECK_EQ_INT(strlen(hex), 2 * n);
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
    out[i] = (uint8_t)v;
  }
}

/* ------------------------------------------------------------ a simulated key */

/* A key from known toxic waste (alpha, beta, gamma, delta, IC_i = [u_i]g1)
 * and its trapdoor, so that a valid proof can be made without a circuit:
 * pick a, b; C = (ab - alpha beta - gamma sum x_i u_i) / delta. */
#define SIM_MAX_IC 8
typedef struct {
  bls12_381_fr alpha, beta, gamma, delta, u[SIM_MAX_IC];
  bp_vk vk;
} sim_key;

static void sim_make(sim_key *s, uint64_t seed, size_t n_ic) {
  test_rng r = {test_stream_seed(seed)};
  CHECK(n_ic >= 1 && n_ic <= SIM_MAX_IC);
  s->alpha = fr_rand(&r);
  s->beta = fr_rand(&r);
  s->gamma = fr_rand(&r);
  s->delta = fr_rand(&r);
  memset(&s->vk, 0, sizeof s->vk);
  g1_mul(&s->vk.alpha_g1, &s->alpha);
  g1_mul(&s->vk.beta_g1, &s->beta);
  g2_mul(&s->vk.beta_g2, &s->beta);
  g2_mul(&s->vk.gamma_g2, &s->gamma);
  g1_mul(&s->vk.delta_g1, &s->delta);
  g2_mul(&s->vk.delta_g2, &s->delta);
  s->vk.n_ic = n_ic;
  s->vk.ic = malloc(n_ic * sizeof *s->vk.ic);
  CHECK(s->vk.ic);
  for (size_t i = 0; i < n_ic; i++) {
    s->u[i] = fr_rand(&r);
    g1_mul(&s->vk.ic[i], &s->u[i]);
  }
}

/* The inputs x_1..x_{n_ic-1} (canonical limbs), a proof for them. */
static void sim_prove(const sim_key *s, const limb_t (*x)[4], groth16_proof *pr, uint64_t seed) {
  test_rng r = {test_stream_seed(seed)};
  bls12_381_fr a = fr_rand(&r), b = fr_rand(&r), t, acc = s->u[0], c;
  for (size_t i = 1; i < s->vk.n_ic; i++) {
    bls12_381_fr xi;
    bls12_381_fr_from_canon(&xi, x[i - 1]);
    bls12_381_fr_mul(&t, &xi, &s->u[i]);
    bls12_381_fr_add(&acc, &acc, &t);
  }
  bls12_381_fr_mul(&acc, &acc, &s->gamma);
  bls12_381_fr_mul(&c, &a, &b);
  bls12_381_fr_sub(&c, &c, &acc);
  bls12_381_fr_mul(&t, &s->alpha, &s->beta);
  bls12_381_fr_sub(&c, &c, &t);
  bls12_381_fr_inv(&t, &s->delta);
  bls12_381_fr_mul(&c, &c, &t);
  g1_mul(&pr->a, &a);
  g2_mul(&pr->b, &b);
  g1_mul(&pr->c, &c);
}

static void inputs_rand(limb_t (*x)[4], size_t n, uint64_t seed) {
  test_rng r = {test_stream_seed(seed)};
  for (size_t i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++) x[i][j] = test_rng_next(&r);
    x[i][3] &= 0x0fffffffffffffffULL;
  }
}

static cuzk_status sim_verify(const bp_vk *bvk, const limb_t (*x)[4], const uint8_t bytes[192],
                              cuzk_err *err) {
  groth16_vk vk;
  groth16_proof pr;
  CHECK(bp_vk_to_groth16(bvk, &vk, err) == CUZK_OK);
  cuzk_status st = bp_proof_decode(&pr, bytes, "proof", 0, err);
  if (st == CUZK_OK)
    st = groth16_verify(&vk, x, bvk->n_ic - 1, &pr, err);
  groth16_vk_fini(&vk);
  return st;
}

/* ------------------------------------------------------------ encodings */

#define G1_GEN_C "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
#define G1_NEG_C "b7f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
#define G2_GEN_C                                                                                  \
  "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" \
  "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
#define G1_GEN_U                                                                                  \
  "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb" \
  "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"

TEST(bp_proof_known_bytes) {
  groth16_proof pr = {bls12_381_g1_generator, bls12_381_g2_generator, bls12_381_g1_generator};
  bls12_381_g1_aff_neg(&pr.c, &pr.c);
  uint8_t out[192], want[192];
  hex_to(want, G1_GEN_C G2_GEN_C G1_NEG_C, 192);
  bp_proof_encode(out, &pr);
  CHECK_EQ_MEM(out, want, 192);
  CHECK(want[144] & BLS12_381_ENC_SORT); /* -g1: y is the larger root */
  groth16_proof back;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_proof_decode(&back, out, "p.bin", 0, &err), CUZK_OK);
  CHECK(bls12_381_g1_aff_eq(&back.a, &pr.a) && bls12_381_g2_aff_eq(&back.b, &pr.b) &&
        bls12_381_g1_aff_eq(&back.c, &pr.c));

  /* the sort flag chooses the root: cleared, C decodes to g1 */
  out[144] &= (uint8_t)~BLS12_381_ENC_SORT;
  CHECK_EQ_INT(bp_proof_decode(&back, out, "p.bin", 0, &err), CUZK_OK);
  CHECK(bls12_381_g1_aff_eq(&back.c, &bls12_381_g1_generator));

  /* infinity (C0 00..) is refused in each place, named with its offset */
  uint8_t inf[192];
  memcpy(inf, want, 192);
  memset(inf + 48, 0, 96);
  inf[48] = 0xc0;
  CHECK_EQ_INT(bp_proof_decode(&back, inf, "p.bin", 3, &err), CUZK_FORMAT);
  CHECK_EQ_STR(err.msg, "p.bin: partition 3, B at byte offset 624: point at infinity (bellperson refuses it)");
  memcpy(inf, want, 192);
  memset(inf, 0, 48);
  inf[0] = 0xc0;
  CHECK_EQ_INT(bp_proof_decode(&back, inf, "p.bin", 0, &err), CUZK_FORMAT);
  CHECK(strstr(err.msg, "partition 0, A at byte offset 0: point at infinity"));
  /* uncompressed form (no 0x80) */
  memcpy(inf, want, 192);
  inf[144] &= 0x7f;
  CHECK_EQ_INT(bp_proof_decode(&back, inf, "p.bin", 1, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "p.bin: partition 1, C at byte offset 336: compressed G1: compression flag"),
            "%s", err.msg);
}

TEST(bp_vk_roundtrip) {
  sim_key s;
  sim_make(&s, 1, 4);
  size_t n = bp_vk_size(&s.vk);
  CHECK_EQ_INT(n, 868 + 96 * 4);
  uint8_t *b = malloc(n), *b2 = malloc(n);
  bp_vk_encode(b, &s.vk);
  uint8_t gen[96];
  hex_to(gen, G1_GEN_U, 96);
  /* the ic count, big-endian, after the six points */
  CHECK(b[864] == 0 && b[865] == 0 && b[866] == 0 && b[867] == 4);
  bp_vk back;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_vk_parse(&back, b, n, "k.vk", NULL, &err), CUZK_OK);
  CHECK_EQ_INT(back.n_ic, 4);
  CHECK(bls12_381_g2_aff_eq(&back.delta_g2, &s.vk.delta_g2));
  CHECK(bls12_381_g1_aff_eq(&back.ic[3], &s.vk.ic[3]));
  bp_vk_encode(b2, &back);
  CHECK_EQ_MEM(b, b2, n);
  bp_vk_free(&back);

  /* through a file */
  char dir[] = "/tmp/test_bp_XXXXXX", path[64];
  CHECK(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/k.vk", dir);
  CHECK_EQ_INT(bp_vk_write(&s.vk, path, &err), CUZK_OK);
  size_t len;
  char *text = test_read_file(path, &len);
  CHECK(text && len == n);
  CHECK_EQ_MEM(text, b, n);
  free(text);
  CHECK_EQ_INT(bp_vk_read(&back, path, NULL, &err), CUZK_OK);
  CHECK(bls12_381_g1_aff_eq(&back.alpha_g1, &s.vk.alpha_g1));
  bp_vk_free(&back);
  CHECK_EQ_INT(test_dir_entries(dir), 1); /* no temporary left */
  unlink(path);
  rmdir(dir);

  /* the standard generator's uncompressed bytes */
  bp_vk g = s.vk;
  g.alpha_g1 = bls12_381_g1_generator;
  bp_vk_encode(b2, &g);
  CHECK_EQ_MEM(b2, gen, 96);
  free(b);
  free(b2);
  bp_vk_free(&s.vk);
}

/* params from seeded multiples of the generators, counts as given */
static void params_make(bp_params *pp, uint64_t seed, size_t nh, size_t nl, size_t na, size_t nb1,
                        size_t nb2) {
  sim_key s;
  sim_make(&s, seed, 3);
  memset(pp, 0, sizeof *pp);
  pp->vk = s.vk;
  test_rng r = {test_stream_seed(seed + 100)};
  size_t n1[4] = {nh, nl, na, nb1};
  bls12_381_g1_aff **v1[4] = {&pp->h, &pp->l, &pp->a, &pp->b_g1};
  size_t *c1[4] = {&pp->n_h, &pp->n_l, &pp->n_a, &pp->n_b_g1};
  for (int v = 0; v < 4; v++) {
    *c1[v] = n1[v];
    *v1[v] = n1[v] ? malloc(n1[v] * sizeof **v1[v]) : NULL;
    for (size_t i = 0; i < n1[v]; i++) {
      bls12_381_fr k = fr_rand(&r);
      g1_mul(&(*v1[v])[i], &k);
    }
  }
  pp->n_b_g2 = nb2;
  pp->b_g2 = nb2 ? malloc(nb2 * sizeof *pp->b_g2) : NULL;
  for (size_t i = 0; i < nb2; i++) {
    bls12_381_fr k = fr_rand(&r);
    g2_mul(&pp->b_g2[i], &k);
  }
}

TEST(bp_params_roundtrip) {
  bp_params pp, back;
  params_make(&pp, 2, 7, 5, 4, 0, 3);
  size_t n = bp_params_size(&pp);
  CHECK_EQ_INT(n, 868 + 96 * 3 + 20 + 96 * (7 + 5 + 4) + 192 * 3);
  uint8_t *b = malloc(n), *b2 = malloc(n);
  bp_params_encode(b, &pp);
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_params_parse(&back, b, n, "k.params", NULL, &err), CUZK_OK);
  CHECK(back.n_h == 7 && back.n_l == 5 && back.n_a == 4 && back.n_b_g1 == 0 && back.n_b_g2 == 3);
  CHECK(back.b_g1 == NULL);
  CHECK(bls12_381_g2_aff_eq(&back.b_g2[2], &pp.b_g2[2]));
  CHECK(bls12_381_g1_aff_eq(&back.h[6], &pp.h[6]));
  bp_params_encode(b2, &back);
  CHECK_EQ_MEM(b, b2, n);
  bp_params_free(&back);

  char dir[] = "/tmp/test_bp_XXXXXX", path[64];
  CHECK(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/k.params", dir);
  CHECK_EQ_INT(bp_params_write(&pp, path, &err), CUZK_OK);
  bp_read_opts skip = {.skip_checks = true};
  CHECK_EQ_INT(bp_params_read(&back, path, &skip, &err), CUZK_OK);
  bp_params_encode(b2, &back);
  CHECK_EQ_MEM(b, b2, n);
  bp_params_free(&back);
  CHECK_EQ_INT(bp_params_read(&back, path, NULL, &err), CUZK_OK);
  CHECK(bls12_381_g1_aff_eq(&back.l[4], &pp.l[4]));
  bp_params_free(&back);
  unlink(path);
  rmdir(dir);
  free(b);
  free(b2);
  bp_params_free(&pp);
}

/* ------------------------------------------------------------ verification */

TEST(bp_simulated_proof_verifies) {
  sim_key s;
  sim_make(&s, 3, 5);
  limb_t x[4][4];
  inputs_rand(x, 4, 4);
  groth16_proof pr;
  sim_prove(&s, (const limb_t(*)[4])x, &pr, 5);
  uint8_t bytes[192];
  bp_proof_encode(bytes, &pr);
  cuzk_err err = {0};
  CHECK_EQ_INT(sim_verify(&s.vk, (const limb_t(*)[4])x, bytes, &err), CUZK_OK);

  /* another input */
  x[2][0] ^= 1;
  CHECK_EQ_INT(sim_verify(&s.vk, (const limb_t(*)[4])x, bytes, &err), CUZK_VERIFY_FAILED);
  CHECK_EQ_STR(err.msg, "the pairing equation does not hold");
  x[2][0] ^= 1;
  /* each byte of the proof changed: a decoding error or a failed equation */
  for (size_t i = 0; i < 192; i += 7) {
    bytes[i] ^= 0x04;
    cuzk_status st = sim_verify(&s.vk, (const limb_t(*)[4])x, bytes, &err);
    CHECK_MSG(st == CUZK_FORMAT || st == CUZK_VERIFY_FAILED, "byte %zu changed: %d", i, (int)st);
    bytes[i] ^= 0x04;
  }
  CHECK_EQ_INT(sim_verify(&s.vk, (const limb_t(*)[4])x, bytes, &err), CUZK_OK);
  /* another key */
  sim_key s2;
  sim_make(&s2, 33, 5);
  CHECK_EQ_INT(sim_verify(&s2.vk, (const limb_t(*)[4])x, bytes, &err), CUZK_VERIFY_FAILED);
  bp_vk_free(&s.vk);
  bp_vk_free(&s2.vk);

  bp_vk empty = {0};
  groth16_vk g;
  CHECK_EQ_INT(bp_vk_to_groth16(&empty, &g, &err), CUZK_FORMAT);
}

/* ------------------------------------------------------------ malformed files */

/* A point on E1 but outside the prime-order subgroup: the first x = 1, 2,
 * ... with x^3 + 4 a square (the cofactor makes such a point almost never
 * of order r; checked). */
static void g1_off_subgroup(bls12_381_g1_aff *p) {
  for (uint64_t x = 1;; x++) {
    bls12_381_fp_set_u64(&p->x, x);
    bls12_381_fp t;
    bls12_381_fp_sqr(&t, &p->x);
    bls12_381_fp_mul(&t, &t, &p->x);
    bls12_381_fp_add(&t, &t, &bls12_381_g1_b);
    if (bls12_381_fp_sqrt(&p->y, &t)) {
      CHECK(bls12_381_g1_aff_is_on_curve(p));
      CHECK(!bls12_381_g1_aff_in_subgroup(p));
      return;
    }
  }
}

static void expect_params(const uint8_t *b, size_t n, const bp_read_opts *o, cuzk_status want,
                          const char *msg) {
  bp_params pp;
  cuzk_err err = {0};
  cuzk_status st = bp_params_parse(&pp, b, n, "k.params", o, &err);
  CHECK_MSG(st == want, "status %d, expected %d (%s), message: %s", (int)st, (int)want, msg, err.msg);
  if (st == CUZK_OK) {
    bp_params_free(&pp);
  } else {
    CHECK_MSG(!strcmp(err.msg, msg), "message\n    %s\n  expected\n    %s", err.msg, msg);
    CHECK(pp.h == NULL && pp.vk.ic == NULL);
  }
}

static void put_be32(uint8_t *o, uint32_t v) {
  o[0] = (uint8_t)(v >> 24), o[1] = (uint8_t)(v >> 16), o[2] = (uint8_t)(v >> 8), o[3] = (uint8_t)v;
}

TEST(bp_params_malformed) {
  bp_params pp;
  params_make(&pp, 6, 3, 2, 2, 2, 1);
  size_t n = bp_params_size(&pp);
  uint8_t *good = malloc(n + 1), *b = malloc(n + 1);
  bp_params_encode(good, &pp);
  bp_params_free(&pp);
  const size_t ic = 864, h = 868 + 3 * 96, l = h + 4 + 3 * 96, a = l + 4 + 2 * 96,
               b1 = a + 4 + 2 * 96, b2 = b1 + 4 + 2 * 96;
  CHECK_EQ_INT(b2 + 4 + 192, n);
  expect_params(good, n, NULL, CUZK_OK, "");

  expect_params(good, 100, NULL, CUZK_FORMAT,
                "k.params: key field beta_g1 at byte offset 96: the file ends there (4 bytes left, 96 needed)");
  expect_params(good, h, NULL, CUZK_FORMAT,
                "k.params: vector h: count at byte offset 1156: the file ends there (0 bytes left, 4 needed)");
  expect_params(good, l + 4 + 96 + 50, NULL, CUZK_FORMAT,
                "k.params: vector l: count 2 at byte offset 1448 needs 192 bytes of 96-byte points, only 146 left");
  expect_params(good, n - 1, NULL, CUZK_FORMAT,
                "k.params: vector b_g2: count 1 at byte offset 2036 needs 192 bytes of 192-byte points, only 191 left");
  memcpy(b, good, n);
  put_be32(b + h, 0xffffffffu);
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: vector h: count 4294967295 at byte offset 1156 needs 412316860320 bytes of "
                "96-byte points, only 1072 left");
  memcpy(b, good, n);
  put_be32(b + ic, 0x7fffffffu);
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: vector ic: count 2147483647 at byte offset 864 needs 206158430112 bytes of "
                "96-byte points, only 1364 left");
  memcpy(b, good, n);
  put_be32(b + ic, 0);
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: ic: count 0 at byte offset 864: at least 1 (the ONE input) expected");

  /* trailing bytes */
  memcpy(b, good, n);
  b[n] = 0;
  expect_params(b, n + 1, NULL, CUZK_FORMAT,
                "k.params: 1 trailing bytes at byte offset 2232 after the last vector (b_g2): the file "
                "should end there");

  /* a point off the curve: y + 1; with skip_checks it is taken as it is */
  memcpy(b, good, n);
  b[l + 4 + 96 + 95] ^= 1;
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: vector l, point 1 at byte offset 1548: uncompressed G1: not on the curve");
  bp_read_opts skip = {.skip_checks = true};
  expect_params(b, n, &skip, CUZK_OK, "");

  /* a coordinate >= p: refused even unchecked */
  memcpy(b, good, n);
  memset(b + a + 4, 0x1f, 48);
  expect_params(b, n, &skip, CUZK_FORMAT,
                "k.params: vector a, point 0 at byte offset 1648: uncompressed G1: x >= p");

  /* a point outside the subgroup */
  bls12_381_g1_aff off;
  g1_off_subgroup(&off);
  memcpy(b, good, n);
  bls12_381_g1_encode_uncompressed(b + b1 + 4 + 96, &off);
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: vector b_g1, point 1 at byte offset 1940: uncompressed G1: not in the "
                "prime-order subgroup");
  expect_params(b, n, &skip, CUZK_OK, "");

  /* infinity: refused in ic and the vectors even unchecked, allowed in the fixed points */
  static const uint8_t inf1[96] = {0x40};
  static const uint8_t inf2[192] = {0x40};
  memcpy(b, good, n);
  memcpy(b + ic + 4 + 96, inf1, 96);
  expect_params(b, n, &skip, CUZK_FORMAT,
                "k.params: key field ic, point 1 at byte offset 964: point at infinity (bellperson "
                "refuses it here)");
  memcpy(b, good, n);
  memcpy(b + h + 4 + 2 * 96, inf1, 96);
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: vector h, point 2 at byte offset 1352: point at infinity (bellperson refuses "
                "it here)");
  memcpy(b, good, n);
  memcpy(b + b2 + 4, inf2, 192);
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: vector b_g2, point 0 at byte offset 2040: point at infinity (bellperson "
                "refuses it here)");
  memcpy(b, good, n);
  memcpy(b, inf1, 96);
  expect_params(b, n, NULL, CUZK_OK, "");
  /* a fixed G2 point with a bad flag */
  memcpy(b, good, n);
  b[192] |= 0x80;
  expect_params(b, n, NULL, CUZK_FORMAT,
                "k.params: key field beta_g2 at byte offset 192: uncompressed G2: compression flag "
                "(0x80) set");
  free(good);
  free(b);
}

TEST(bp_vk_malformed) {
  sim_key s;
  sim_make(&s, 7, 2);
  size_t n = bp_vk_size(&s.vk);
  uint8_t *b = malloc(n + 8);
  bp_vk_encode(b, &s.vk);
  bp_vk vk;
  cuzk_err err = {0};
  CHECK_EQ_INT(bp_vk_parse(&vk, b, n + 8, "k.vk", NULL, &err), CUZK_FORMAT);
  CHECK_EQ_STR(err.msg, "k.vk: 8 trailing bytes at byte offset 1060 after the last vector (ic): the "
                        "file should end there");
  CHECK_EQ_INT(bp_vk_parse(&vk, b, n - 96, "k.vk", NULL, &err), CUZK_FORMAT);
  CHECK_EQ_STR(err.msg, "k.vk: vector ic: count 2 at byte offset 864 needs 192 bytes of 96-byte "
                        "points, only 96 left");
  CHECK_EQ_INT(bp_vk_parse(&vk, b, 0, "k.vk", NULL, &err), CUZK_FORMAT);
  CHECK(strstr(err.msg, "key field alpha_g1 at byte offset 0: the file ends there"));
  /* a G2 point off the curve */
  b[384 + 191] ^= 1;
  CHECK_EQ_INT(bp_vk_parse(&vk, b, n, "k.vk", NULL, &err), CUZK_FORMAT);
  CHECK_EQ_STR(err.msg, "k.vk: key field gamma_g2 at byte offset 384: uncompressed G2: not on the curve");
  bp_read_opts skip = {.skip_checks = true};
  CHECK_EQ_INT(bp_vk_parse(&vk, b, n, "k.vk", &skip, &err), CUZK_OK);
  bp_vk_free(&vk);
  /* reading a file that is not there */
  CHECK_EQ_INT(bp_vk_read(&vk, "/nonexistent/k.vk", NULL, &err), CUZK_IO);
  CHECK(strstr(err.msg, "/nonexistent/k.vk"));
  free(b);
  bp_vk_free(&s.vk);
}

/* ------------------------------------------------------------ the noble oracle */

static void write_bytes(const char *path, const void *b, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(b, 1, n, f) == n && fclose(f) == 0);
}

static void write_public(const char *path, const limb_t (*x)[4], size_t k, size_t m) {
  FILE *f = fopen(path, "w");
  CHECK(f);
  fprintf(f, "[");
  for (size_t p = 0; p < k; p++) {
    fprintf(f, "%s[", p ? ", " : "");
    for (size_t i = 0; i < m; i++) {
      char dec[100];
      binfile_prime_dec(dec, x[p * m + i], 32);
      fprintf(f, "%s\"%s\"", i ? ", " : "", dec);
    }
    fprintf(f, "]");
  }
  fprintf(f, "]\n");
  CHECK(fclose(f) == 0);
}

static int run_node(const char *script, const char *dir, const char *vk, const char *pub,
                    const char *proof) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "node '%s' '%s/%s' '%s/%s' '%s/%s' >'%s/node.out' 2>&1", script, dir, vk,
           dir, pub, dir, proof, dir);
  int st = system(cmd);
  CHECK(st != -1 && WIFEXITED(st));
  return WEXITSTATUS(st);
}

/* Writes, into $CUZK_BP_FIXTURES (else a temporary directory), a key of 3
 * inputs (k.vk), two partitions' proofs and inputs (proof.bin,
 * public.json), a tampered proof (proof_bad.bin: partition 1's C negated
 * by its sort flag), tampered inputs (public_bad.json) and a .params of
 * 7, 5, 4, 2, 3 points in h, l, a, b_g1, b_g2 (k.params); then runs the
 * noble verifier on them (tests/malformed/cli.sh compares `cuzk verify`
 * on the same files). */
TEST(bp_noble_oracle) {
  const char *fx = getenv("CUZK_BP_FIXTURES");
  char tmpl[] = "/tmp/test_bp_XXXXXX", dir[512];
  if (fx && *fx) {
    snprintf(dir, sizeof dir, "%s", fx);
    mkdir(dir, 0755);
  } else {
    CHECK(mkdtemp(tmpl));
    snprintf(dir, sizeof dir, "%s", tmpl);
  }
  sim_key s;
  sim_make(&s, 8, 4);
  limb_t x[6][4];
  inputs_rand(x, 6, 9);
  x[1][0] = x[1][1] = x[1][2] = x[1][3] = 0; /* a zero input */
  uint8_t proofs[2 * 192];
  for (size_t p = 0; p < 2; p++) {
    groth16_proof pr;
    sim_prove(&s, (const limb_t(*)[4])(x + 3 * p), &pr, 10 + p);
    bp_proof_encode(proofs + 192 * p, &pr);
  }
  char path[700];
  cuzk_err err = {0};
  snprintf(path, sizeof path, "%s/k.vk", dir);
  CHECK_EQ_INT(bp_vk_write(&s.vk, path, &err), CUZK_OK);
  snprintf(path, sizeof path, "%s/proof.bin", dir);
  write_bytes(path, proofs, sizeof proofs);
  snprintf(path, sizeof path, "%s/proof1.bin", dir);
  write_bytes(path, proofs, 192);
  snprintf(path, sizeof path, "%s/public.json", dir);
  write_public(path, (const limb_t(*)[4])x, 2, 3);
  snprintf(path, sizeof path, "%s/public1.json", dir);
  write_public(path, (const limb_t(*)[4])x, 1, 3);
  proofs[192 + 144] ^= BLS12_381_ENC_SORT;
  snprintf(path, sizeof path, "%s/proof_bad.bin", dir);
  write_bytes(path, proofs, sizeof proofs);
  x[4][0] ^= 2;
  snprintf(path, sizeof path, "%s/public_bad.json", dir);
  write_public(path, (const limb_t(*)[4])x, 2, 3);
  bp_vk_free(&s.vk);
  bp_params pp;
  params_make(&pp, 12, 7, 5, 4, 2, 3);
  snprintf(path, sizeof path, "%s/k.params", dir);
  CHECK_EQ_INT(bp_params_write(&pp, path, &err), CUZK_OK);
  bp_params_free(&pp);

  char script[600], nm[600];
  snprintf(script, sizeof script, "%s/tests/oracle/bp_verify.mjs", test_srcdir());
  snprintf(nm, sizeof nm, "%s/tests/oracle/node_modules/@noble/curves/bls12-381.js", test_srcdir());
  if (access(nm, R_OK) != 0 || system("node --version >/dev/null 2>&1") != 0)
    TEST_SKIP("node or tests/oracle/node_modules missing (cd tests/oracle && npm ci): the noble "
              "verifier was not run");
  CHECK_EQ_INT(run_node(script, dir, "k.vk", "public.json", "proof.bin"), 0);
  CHECK_EQ_INT(run_node(script, dir, "k.vk", "public1.json", "proof1.bin"), 0);
  CHECK_EQ_INT(run_node(script, dir, "k.vk", "public.json", "proof_bad.bin"), 1);
  snprintf(path, sizeof path, "%s/node.out", dir);
  char *out = test_read_file(path, NULL);
  CHECK_MSG(out && strstr(out, "INVALID: partition 1"), "node said: %s", out ? out : "(nothing)");
  free(out);
  CHECK_EQ_INT(run_node(script, dir, "k.vk", "public_bad.json", "proof.bin"), 1);
  CHECK_EQ_INT(run_node(script, dir, "k.vk", "public1.json", "proof.bin"), 2);
}

/* ------------------------------------------------------------ parallel decoding */

/* A .params of 2048 points in l (g, 2g, 3g, ...: cheap to make), read with
 * 1 and with 4 threads: the same points, and for a point broken at each of
 * several places (two points each) the same message, naming the lower
 * failing index, whatever the thread count.  Prints the checked and unchecked decoding rates. */
TEST(bp_params_parallel_read) {
  const size_t nl = 2048;
  bp_params pp;
  params_make(&pp, 13, 1, 0, 1, 1, 1);
  free(pp.l);
  pp.n_l = nl;
  pp.l = malloc(nl * sizeof *pp.l);
  bls12_381_g1_jac acc;
  bls12_381_g1_jac_from_aff(&acc, &bls12_381_g1_generator);
  for (size_t i = 0; i < nl; i++) {
    bls12_381_g1_jac_to_aff(&pp.l[i], &acc);
    bls12_381_g1_jac_add_aff(&acc, &acc, &bls12_381_g1_generator);
  }
  size_t n = bp_params_size(&pp);
  uint8_t *b = malloc(n), *b2 = malloc(n);
  bp_params_encode(b, &pp);
  const size_t l0 = 868 + 96 * 3 + 4 + 96 + 4; /* l's first point */
  cuzk_err err = {0}, err1 = {0};
  bp_params back;
  for (int skip = 0; skip < 2; skip++) {
    bp_read_opts o = {.skip_checks = skip != 0};
    for (unsigned th = 1; th <= 4; th += 3) {
      par_set_threads(th);
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      CHECK_EQ_INT(bp_params_parse(&back, b, n, "k.params", &o, &err), CUZK_OK);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
      printf("  %s, %u thread%s: %zu G1 points in %.1f ms (%.0f points/s)\n",
             skip ? "skip_checks" : "checked", th, th > 1 ? "s" : "", nl, 1e3 * s, (double)nl / s);
      bp_params_encode(b2, &back);
      CHECK_EQ_MEM(b, b2, n);
      bp_params_free(&back);
    }
  }
  static const size_t bad[][2] = {{2046, 2047}, {100, 1500}, {1500, 1501}, {0, 1024}};
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    memcpy(b2, b, n);
    for (int k = 0; k < 2; k++) b2[l0 + 96 * bad[c][k] + 95] ^= 1; /* off the curve */
    par_set_threads(1);
    CHECK_EQ_INT(bp_params_parse(&back, b2, n, "k.params", NULL, &err1), CUZK_FORMAT);
    par_set_threads(4);
    CHECK_EQ_INT(bp_params_parse(&back, b2, n, "k.params", NULL, &err), CUZK_FORMAT);
    CHECK_EQ_STR(err.msg, err1.msg);
    char want[160];
    snprintf(want, sizeof want, "k.params: vector l, point %zu at byte offset %zu: uncompressed G1: not on the curve",
             bad[c][0], l0 + 96 * bad[c][0]);
    CHECK_EQ_STR(err.msg, want);
  }
  par_set_threads(0);
  free(b);
  free(b2);
  bp_params_free(&pp);
}

/* json_write_public_parts / json_read_public_parts: k arrays, or a flat one. */
TEST(bp_public_parts_roundtrip) {
  limb_t x[6][4];
  inputs_rand(x, 6, 14);
  uint8_t le[6 * 32];
  for (size_t i = 0; i < 6; i++) limbs_to_le(le + 32 * i, x[i], 4);
  for (size_t k = 1; k <= 3; k++) {
    char *t = json_public_parts_string(le, k, 6 / k);
    CHECK(t);
    CHECK((k == 1) == (strncmp(t, "[\n \"", 4) == 0));
    limb_t(*v)[4];
    size_t parts, per;
    cuzk_err err = {0};
    CHECK_EQ_INT(json_parse_public_parts(t, strlen(t), "p.json", &v, &parts, &per, &err), CUZK_OK);
    CHECK_EQ_INT(parts, k);
    CHECK_EQ_INT(per, 6 / k);
    CHECK_EQ_MEM(v, x, sizeof x);
    free(v);
    free(t);
  }
  limb_t(*v)[4];
  size_t parts, per;
  cuzk_err err = {0};
  const char *ragged = "[[\"1\", \"2\"], [\"3\"]]";
  CHECK_EQ_INT(json_parse_public_parts(ragged, strlen(ragged), "p.json", &v, &parts, &per, &err),
               CUZK_FORMAT);
  CHECK_EQ_STR(err.msg, "p.json: [1]: partition 1 has 1 signals, partition 0 has 2");
  const char *mixed = "[[\"1\"], \"3\"]";
  CHECK_EQ_INT(json_parse_public_parts(mixed, strlen(mixed), "p.json", &v, &parts, &per, &err),
               CUZK_FORMAT);
  CHECK(strstr(err.msg, "p.json: [1]: expected an array of decimal strings (partition 1)"));
  const char *empty = "[[], []]";
  CHECK_EQ_INT(json_parse_public_parts(empty, strlen(empty), "p.json", &v, &parts, &per, &err), CUZK_OK);
  CHECK(parts == 2 && per == 0 && v == NULL);
  uint8_t big[32];
  memset(big, 0xff, 32);
  CHECK_EQ_INT(json_write_public_parts("/tmp/never-written.json", big, 1, 1, &err), CUZK_INVALID_ARGUMENT);
}

/* A vector longer than the reader's chunk (2^20 points), read from a file
 * and from memory with skip_checks (the points are arbitrary coordinates
 * below p, which only the skipped checks would refuse): the same bytes
 * back, and a bad point past the first chunk named at its index. */
TEST(bp_params_chunked_file_read) {
  const size_t nh = ((size_t)1 << 20) + 5, bad = ((size_t)1 << 20) + 3;
  sim_key s;
  sim_make(&s, 15, 1);
  size_t vk = bp_vk_size(&s.vk), h0 = vk + 4, n = h0 + 96 * nh + 16;
  uint8_t *b = calloc(n, 1), *b2 = malloc(n);
  CHECK(b && b2);
  bp_vk_encode(b, &s.vk);
  bp_vk_free(&s.vk);
  put_be32(b + vk, (uint32_t)nh);
  for (size_t i = 0; i < nh; i++) {
    uint8_t *pt = b + h0 + 96 * i;
    for (int k = 0; k < 8; k++) pt[47 - k] = (uint8_t)((i + 1) >> (8 * k));
    pt[95] = 1;
  }
  char dir[] = "/tmp/test_bp_XXXXXX", path[64];
  CHECK(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/big.params", dir);
  write_bytes(path, b, n);
  bp_read_opts skip = {.skip_checks = true};
  bp_params pp;
  cuzk_err err = {0}, err2 = {0};
  CHECK_EQ_INT(bp_params_read(&pp, path, &skip, &err), CUZK_OK);
  CHECK_EQ_INT(pp.n_h, nh);
  CHECK_EQ_INT(bp_params_size(&pp), n);
  bp_params_encode(b2, &pp);
  CHECK_EQ_MEM(b2, b, n);
  bp_params_free(&pp);
  memset(b + h0 + 96 * bad, 0x1f, 48);
  write_bytes(path, b, n);
  CHECK_EQ_INT(bp_params_read(&pp, path, &skip, &err), CUZK_FORMAT);
  char want[200];
  snprintf(want, sizeof want, "%s: vector h, point %zu at byte offset %zu: uncompressed G1: x >= p", path,
           bad, h0 + 96 * bad);
  CHECK_EQ_STR(err.msg, want);
  CHECK_EQ_INT(bp_params_parse(&pp, b, n, path, &skip, &err2), CUZK_FORMAT);
  CHECK_EQ_STR(err2.msg, want);
  /* a file shorter than its counts say */
  write_bytes(path, b2, n);
  CHECK(truncate(path, (off_t)(n - 1)) == 0);
  CHECK_EQ_INT(bp_params_read(&pp, path, &skip, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "vector b_g2: count at byte offset") && strstr(err.msg, "(3 bytes left, 4 needed)"),
            "%s", err.msg);
  unlink(path);
  rmdir(dir);
  free(b);
  free(b2);
}
