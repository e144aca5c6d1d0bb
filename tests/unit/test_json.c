/* snarkjs JSON: byte-exact agreement with files snarkjs 0.7.6 wrote
 * (examples/mul always; build/oracle/<circuit> when the oracle fixtures have
 * been made), round trips through a temporary directory, and every reject
 * with its status and message. */
#include "harness.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "ec/encode.h"
#include "groth16/json.h"
#include "groth16/proof.h"
#include "groth16/wtns.h"

/* ------------------------------------------------------------ helpers */

static char *slurp(const char *path, size_t *len) { return test_read_file(path, len); }

static void spit(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(text, 1, len, f) == len && fclose(f) == 0);
}

/* A fresh directory under /tmp for the test's files.  A passing test ends
 * with tmp_done() (the harness leaves a passing child by _exit, which skips
 * atexit); a failing one exits through exit(), which runs it. */
static char tmpdir[64];
static void rm_tmpdir(void) {
  char cmd[128];
  if (!tmpdir[0])
    return;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", tmpdir);
  tmpdir[0] = 0;
}
#define tmp_done() rm_tmpdir()
static const char *tmp_path(const char *name) {
  static char path[256];
  if (!tmpdir[0]) {
    strcpy(tmpdir, "/tmp/cuzk_test_json_XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    atexit(rm_tmpdir);
  }
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

static void g1_mul_u64(bls12_381_g1_aff *r, uint64_t k) {
  limb_t kl[4] = {k};
  bls12_381_g1_jac j;
  bls12_381_g1_jac_from_aff(&j, &bls12_381_g1_generator);
  bls12_381_g1_jac_mul_vartime(&j, &j, kl, 4);
  bls12_381_g1_jac_to_aff(r, &j);
}
static void g2_mul_u64(bls12_381_g2_aff *r, uint64_t k) {
  limb_t kl[4] = {k};
  bls12_381_g2_jac j;
  bls12_381_g2_jac_from_aff(&j, &bls12_381_g2_generator);
  bls12_381_g2_jac_mul_vartime(&j, &j, kl, 4);
  bls12_381_g2_jac_to_aff(r, &j);
}

static bool proof_eq(const groth16_proof *a, const groth16_proof *b) {
  return bls12_381_g1_aff_eq(&a->a, &b->a) && bls12_381_g2_aff_eq(&a->b, &b->b) &&
         bls12_381_g1_aff_eq(&a->c, &b->c);
}

static bool vk_eq(const groth16_vk *a, const groth16_vk *b) {
  if (a->n_public != b->n_public || !bls12_381_g1_aff_eq(&a->alpha1, &b->alpha1) ||
      !bls12_381_g2_aff_eq(&a->beta2, &b->beta2) || !bls12_381_g2_aff_eq(&a->gamma2, &b->gamma2) ||
      !bls12_381_g2_aff_eq(&a->delta2, &b->delta2))
    return false;
  for (int i = 0; i < 12; i++)
    if (!bls12_381_fp_eq(&a->alphabeta[i], &b->alphabeta[i]))
      return false;
  for (size_t i = 0; i <= a->n_public; i++)
    if (!bls12_381_g1_aff_eq(&a->ic[i], &b->ic[i]))
      return false;
  return true;
}

static void fp_dec(char *out, const bls12_381_fp *a) {
  limb_t c[6];
  bls12_381_fp_to_canon(c, a);
  limbs_to_dec(out, c, 6);
}

/* Values from json_read_public back into the writer's 32-byte LE form. */
static uint8_t *signals_bytes(limb_t (*v)[4], size_t n) {
  uint8_t *b = malloc(32 * n + 1);
  for (size_t i = 0; i < n; i++) limbs_to_le(b + 32 * i, v[i], 4);
  return b;
}

/* text with the first occurrence of `from` replaced by `to` (malloc'd). */
static char *subst(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  CHECK_MSG(at, "subst: \"%s\" not found", from);
  size_t a = (size_t)(at - text), fl = strlen(from), tl = strlen(to), n = strlen(text);
  char *r = malloc(n - fl + tl + 1);
  memcpy(r, text, a);
  memcpy(r + a, to, tl);
  memcpy(r + a + tl, at + fl, n - a - fl + 1);
  return r;
}

static void expect(cuzk_status got, const cuzk_err *e, cuzk_status want, const char *msg) {
  if (got != want)
    TEST_FAIL("status %s (%s), expected %s", cuzk_status_name(got), got ? e->msg : "",
              cuzk_status_name(want));
  if (msg)
    CHECK_EQ_STR(e->msg, msg);
}

/* ------------------------------------------------------------ snarkjs files */

/* Directories with files snarkjs wrote: examples/mul always, then the
 * oracle fixture directories if tests/oracle/make_fixtures.sh has run. */
static const char *const fixture_dirs[] = {
    "examples/mul",         "build/oracle/mul",       "build/oracle/nopub",
    "build/oracle/manypub", "build/oracle/chain_1k",  "build/oracle/chain_16k",
    "build/oracle/chain_64k"};
/* How each fixture file was written, hence which layout to compare with:
 *   BFJ           the snarkjs CLI (bfj.write, space 1): byte for byte ours;
 *   STRINGIFY     prove_fixed.mjs, JSON.stringify(x, null, 1): the same
 *                 layout except an empty array, "[]" instead of "[\n]";
 *   STRINGIFY_NL  tamper_proof.js: as STRINGIFY plus a final newline. */
typedef enum { BFJ, STRINGIFY, STRINGIFY_NL } layout;
typedef struct {
  const char *name;
  layout how;
} fixture_file;
static const fixture_file proof_files[] = {
    {"proof.json", BFJ},
    {"proof_bad.json", BFJ},
    {"proof_fixed.json", STRINGIFY},
    {"proof_tampered_a_is_c.json", STRINGIFY_NL},
    {"proof_tampered_offcurve.json", STRINGIFY_NL}};
static const fixture_file public_files[] = {{"public.json", BFJ},
                                            {"public_bad.json", BFJ},
                                            {"public_fixed.json", STRINGIFY},
                                            {"public_tampered.json", STRINGIFY_NL}};

/* Our (bfj) text as the fixture's writer would have laid it out. */
static char *as_layout(char *ours, layout how) {
  if (how == BFJ)
    return ours;
  size_t n = strlen(ours);
  char *r = malloc(n + 2);
  strcpy(r, strcmp(ours, "[\n]") ? ours : "[]");
  if (how == STRINGIFY_NL)
    strcat(r, "\n");
  free(ours);
  return r;
}

static char *fixture(const char *dir, const char *name, char *path, size_t cap, size_t *len) {
  snprintf(path, cap, "%s/%s/%s", test_srcdir(), dir, name);
  return slurp(path, len);
}

TEST(snarkjs_proofs_byte_exact) {
  int compared = 0;
  for (size_t d = 0; d < sizeof fixture_dirs / sizeof *fixture_dirs; d++)
    for (size_t f = 0; f < sizeof proof_files / sizeof *proof_files; f++) {
      char path[512];
      char *want = fixture(fixture_dirs[d], proof_files[f].name, path, sizeof path, NULL);
      if (!want)
        continue;
      groth16_proof p;
      cuzk_err e = {0};
      expect(json_read_proof(path, &p, &e), &e, CUZK_OK, NULL);
      char *got = as_layout(json_proof_string(&p), proof_files[f].how);
      CHECK_MSG(!strcmp(got, want), "%s: rewritten text differs:\n%s\n--- snarkjs:\n%s", path,
                got, want);
      /* and through a file */
      expect(json_write_proof(tmp_path("p.json"), &p, &e), &e, CUZK_OK, NULL);
      char *file = as_layout(slurp(tmp_path("p.json"), NULL), proof_files[f].how);
      CHECK_EQ_STR(file, want);
      free(got);
      free(file);
      free(want);
      compared++;
    }
  printf("  compared %d snarkjs proofs\n", compared);
  CHECK(compared >= 1);
  tmp_done();
}

TEST(snarkjs_public_byte_exact) {
  int compared = 0;
  for (size_t d = 0; d < sizeof fixture_dirs / sizeof *fixture_dirs; d++)
    for (size_t f = 0; f < sizeof public_files / sizeof *public_files; f++) {
      char path[512];
      char *want = fixture(fixture_dirs[d], public_files[f].name, path, sizeof path, NULL);
      if (!want)
        continue;
      limb_t(*v)[4];
      size_t n;
      cuzk_err e = {0};
      expect(json_read_public(path, &v, &n, &e), &e, CUZK_OK, NULL);
      uint8_t *b = signals_bytes(v, n);
      char *got = as_layout(json_public_string(b, n), public_files[f].how);
      CHECK_MSG(!strcmp(got, want), "%s: rewritten text differs:\n%s\n--- snarkjs:\n%s", path,
                got, want);
      expect(json_write_public(tmp_path("pub.json"), b, n, &e), &e, CUZK_OK, NULL);
      char *file = as_layout(slurp(tmp_path("pub.json"), NULL), public_files[f].how);
      CHECK_EQ_STR(file, want);
      free(file);
      free(got);
      free(b);
      free(v);
      free(want);
      compared++;
    }
  printf("  compared %d snarkjs public.json files\n", compared);
  CHECK(compared >= 1);
  tmp_done();
}

/* groth16/proof.h, the outputs the engine and `cuzk prove` make of a
 * proof: from snarkjs's proof and its witness, proof.json and public.json
 * byte for byte as snarkjs wrote them, and the 192 bytes A || B || C
 * compressed; a witness without the public values is refused. */
TEST(proof_outputs_from_witness_equal_snarkjs) {
  int compared = 0;
  for (size_t d = 0; d < sizeof fixture_dirs / sizeof *fixture_dirs; d++) {
    char pp[512], qp[512], wp[512];
    size_t nq = 0;
    char *want_p = fixture(fixture_dirs[d], "proof.json", pp, sizeof pp, NULL);
    char *want_q = fixture(fixture_dirs[d], "public.json", qp, sizeof qp, &nq);
    snprintf(wp, sizeof wp, "%s/%s/witness.wtns", test_srcdir(), fixture_dirs[d]);
    wtns_file w;
    cuzk_err e = {0};
    if (!want_p || !want_q || wtns_open(&w, wp, &e) != CUZK_OK) {
      free(want_p), free(want_q);
      continue;
    }
    groth16_proof p;
    limb_t(*v)[4];
    size_t n;
    expect(json_read_proof(pp, &p, &e), &e, CUZK_OK, NULL);
    expect(json_read_public(qp, &v, &n, &e), &e, CUZK_OK, NULL);
    char *pj, *pub;
    expect(groth16_proof_json(&pj, &pub, &p, &w, n, &e), &e, CUZK_OK, NULL);
    CHECK_MSG(!strcmp(pj, want_p), "%s: proof.json differs:\n%s", pp, pj);
    CHECK_MSG(!strcmp(pub, want_q), "%s: public.json differs:\n%s", qp, pub);
    uint8_t b[GROTH16_PROOF_BYTES];
    groth16_proof_encode(b, &p);
    groth16_proof q;
    CHECK(bls12_381_g1_decode_compressed(&q.a, b, true, &e) == CUZK_OK);
    CHECK(bls12_381_g2_decode_compressed(&q.b, b + 48, true, &e) == CUZK_OK);
    CHECK(bls12_381_g1_decode_compressed(&q.c, b + 144, true, &e) == CUZK_OK);
    CHECK(proof_eq(&p, &q));
    free(pj), free(pub);
    /* a key with more public inputs than the witness has values */
    pj = pub = (char *)1;
    expect(groth16_proof_json(&pj, &pub, &p, &w, w.n_witness, &e), &e, CUZK_INVALID_ARGUMENT,
           NULL);
    CHECK_MSG(strstr(e.msg, "public signals"), "%s", e.msg);
    CHECK(pj == NULL && pub == NULL);
    wtns_close(&w);
    free(v), free(want_p), free(want_q);
    compared++;
  }
  printf("  compared %d proofs made from their witnesses\n", compared);
  CHECK(compared >= 1);
}

TEST(snarkjs_vk_byte_exact) {
  int compared = 0;
  for (size_t d = 0; d < sizeof fixture_dirs / sizeof *fixture_dirs; d++) {
    char path[512];
    char *want = fixture(fixture_dirs[d], "verification_key.json", path, sizeof path, NULL);
    if (!want)
      continue;
    groth16_vk vk;
    cuzk_err e = {0};
    expect(json_read_vk(path, &vk, &e), &e, CUZK_OK, NULL);
    /* what the file holds is well formed and, from snarkjs, on the curve */
    CHECK(bls12_381_g1_aff_in_subgroup(&vk.alpha1));
    CHECK(bls12_381_g2_aff_in_subgroup(&vk.beta2));
    for (size_t i = 0; i <= vk.n_public; i++) CHECK(bls12_381_g1_aff_is_on_curve(&vk.ic[i]));
    char *got = json_vk_string(&vk);
    CHECK_MSG(!strcmp(got, want), "%s: rewritten text differs", path);
    expect(json_write_vk(tmp_path("vk.json"), &vk, &e), &e, CUZK_OK, NULL);
    char *file = slurp(tmp_path("vk.json"), NULL);
    CHECK_EQ_STR(file, want);
    free(file);
    free(got);
    free(want);
    groth16_vk_fini(&vk);
    compared++;
  }
  printf("  compared %d snarkjs verification keys\n", compared);
  CHECK(compared >= 1);
  tmp_done();
}

/* The tampered snarkjs proof holds a point off the curve: the reader takes
 * it (the verifier must answer INVALID, not the reader FORMAT). */
TEST(reader_leaves_curve_checks_to_the_verifier) {
  char path[512];
  char *text = fixture("build/oracle/mul", "proof_tampered_offcurve.json", path, sizeof path, NULL);
  if (!text)
    TEST_SKIP("no oracle fixtures (tests/oracle/make_fixtures.sh build/oracle)");
  groth16_proof p;
  cuzk_err e = {0};
  expect(json_read_proof(path, &p, &e), &e, CUZK_OK, NULL);
  CHECK(!bls12_381_g1_aff_is_on_curve(&p.a));
  free(text);
}

/* ------------------------------------------------------------ infinity and round trips */

/* Written by node with ffjavascript 0.3.1 and bfj (as the snarkjs CLI does):
 *   proof = {pi_a: G1.toObject(G1.toAffine(G1.zero)),
 *            pi_b: G2.toObject(G2.toAffine(G2.zero)),
 *            pi_c: G1.toObject(G1.toAffine(G1.g)), protocol: "groth16",
 *            curve: "bls12381"};
 *   bfj.write(file, stringifyBigInts(proof), {space: 1}) */
static const char ffjs_infinity_proof[] =
    "{\n \"pi_a\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ],\n \"pi_b\": [\n  [\n   \"0\",\n"
    "   \"0\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n ],\n"
    " \"pi_c\": [\n"
    "  \"3685416753713387016781088315183077757961620795782546409894578378688607592378376318"
    "836054947676345821548104185464507\",\n"
    "  \"1339506544944476473020471379941921221584933875938349620426543736416511423956333506"
    "472724655353366534992391756441569\",\n"
    "  \"1\"\n ],\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}";

/* bfj.write(file, stringifyBigInts([0n, r - 1n, 1n]), {space: 1}) and of []. */
static const char bfj_public[] =
    "[\n \"0\",\n"
    " \"52435875175126190479447740508185965837690552500527637822603658699938581184512\",\n"
    " \"1\"\n]";
static const char bfj_public_empty[] = "[\n]";

TEST(infinity_written_as_ffjavascript_does) {
  groth16_proof p, q;
  bls12_381_g1_aff_set_inf(&p.a);
  bls12_381_g2_aff_set_inf(&p.b);
  p.c = bls12_381_g1_generator;
  char *s = json_proof_string(&p);
  CHECK_EQ_STR(s, ffjs_infinity_proof);
  cuzk_err e = {0};
  q.a = bls12_381_g1_generator;
  q.b = bls12_381_g2_generator;
  expect(json_parse_proof(s, strlen(s), "proof.json", &q, &e), &e, CUZK_OK, NULL);
  CHECK(proof_eq(&p, &q));
  free(s);
}

TEST(proof_round_trip_through_files) {
  test_rng g = {test_stream_seed(0x150)};
  for (int it = 0; it < 8; it++) {
    groth16_proof p, q;
    g1_mul_u64(&p.a, test_rng_next(&g));
    g2_mul_u64(&p.b, test_rng_next(&g));
    g1_mul_u64(&p.c, test_rng_next(&g));
    if (it == 1)
      bls12_381_g1_aff_set_inf(&p.c);
    if (it == 2)
      bls12_381_g2_aff_set_inf(&p.b);
    cuzk_err e = {0};
    expect(json_write_proof(tmp_path("proof.json"), &p, &e), &e, CUZK_OK, NULL);
    expect(json_read_proof(tmp_path("proof.json"), &q, &e), &e, CUZK_OK, NULL);
    CHECK(proof_eq(&p, &q));
    char *text = slurp(tmp_path("proof.json"), NULL), *again = json_proof_string(&q);
    CHECK_EQ_STR(again, text);
    free(text);
    free(again);
  }
  tmp_done();
}

static void make_vk(groth16_vk *vk, size_t n_public, uint64_t seed) {
  test_rng g = {test_stream_seed(seed)};
  vk->n_public = n_public;
  g1_mul_u64(&vk->alpha1, 7);
  g2_mul_u64(&vk->beta2, 8);
  g2_mul_u64(&vk->gamma2, 9);
  g2_mul_u64(&vk->delta2, 10);
  for (int i = 0; i < 12; i++) bls12_381_fp_set_u64(&vk->alphabeta[i], test_rng_next(&g));
  vk->ic = malloc((n_public + 1) * sizeof *vk->ic);
  for (size_t i = 0; i <= n_public; i++) g1_mul_u64(&vk->ic[i], 11 + i);
}

TEST(vk_round_trip_through_files) {
  static const size_t sizes[] = {0, 1, 2, 7, 100};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    groth16_vk vk, back;
    make_vk(&vk, sizes[k], 0x77 + k);
    if (sizes[k] == 7)
      bls12_381_g1_aff_set_inf(&vk.ic[3]);
    cuzk_err e = {0};
    expect(json_write_vk(tmp_path("vk.json"), &vk, &e), &e, CUZK_OK, NULL);
    expect(json_read_vk(tmp_path("vk.json"), &back, &e), &e, CUZK_OK, NULL);
    CHECK(vk_eq(&vk, &back));
    char *text = slurp(tmp_path("vk.json"), NULL), *again = json_vk_string(&back);
    CHECK_EQ_STR(again, text);
    free(text);
    free(again);
    groth16_vk_fini(&vk);
    groth16_vk_fini(&back);
  }
  tmp_done();
}

TEST(public_round_trip_and_bfj_layout) {
  /* [0, r - 1, 1] and [] as bfj writes them */
  uint8_t sig[3 * 32] = {0};
  limb_t rm1[4];
  memcpy(rm1, bls12_381_fr_modulus, sizeof rm1);
  rm1[0] -= 1;
  limbs_to_le(sig + 32, rm1, 4);
  sig[64] = 1;
  char *s = json_public_string(sig, 3);
  CHECK_EQ_STR(s, bfj_public);
  free(s);
  s = json_public_string(sig, 0);
  CHECK_EQ_STR(s, bfj_public_empty);
  free(s);

  test_rng g = {test_stream_seed(0x9b)};
  for (size_t n = 0; n < 40; n += 1 + n) {
    uint8_t *b = malloc(32 * n + 1);
    for (size_t i = 0; i < n; i++) {
      limb_t v[4];
      do {
        for (int j = 0; j < 4; j++) v[j] = test_rng_next(&g);
        v[3] >>= 1;
      } while (!bls12_381_fr_canon_ok(v));
      if (i == 1) memset(v, 0, sizeof v);
      limbs_to_le(b + 32 * i, v, 4);
    }
    cuzk_err e = {0};
    limb_t(*v)[4];
    size_t m;
    expect(json_write_public(tmp_path("public.json"), b, n, &e), &e, CUZK_OK, NULL);
    expect(json_read_public(tmp_path("public.json"), &v, &m, &e), &e, CUZK_OK, NULL);
    CHECK_EQ_INT(m, n);
    if (n == 0)
      CHECK(v == NULL);
    for (size_t i = 0; i < n; i++) {
      limb_t w[4];
      limbs_from_le(w, b + 32 * i, 4);
      CHECK_EQ_MEM(v[i], w, 32);
    }
    free(v);
    free(b);
  }
  tmp_done();
}

TEST(public_writer_refuses_values_not_below_r) {
  uint8_t sig[64] = {0};
  limbs_to_le(sig + 32, bls12_381_fr_modulus, 4);
  cuzk_err e = {0};
  CHECK(json_public_string(sig, 2) == NULL);
  const char *path = tmp_path("public.json");
  char want[512];
  snprintf(want, sizeof want, "%s: public signal 1 is >= r", path);
  expect(json_write_public(path, sig, 2, &e), &e, CUZK_INVALID_ARGUMENT, want);
  tmp_done();
}

/* rapidsnark writes no "curve" key (and other tools spell the curve as
 * getCurveFromName allows). */
TEST(accepts_rapidsnark_and_curve_spellings) {
  groth16_proof p, q;
  g1_mul_u64(&p.a, 3);
  g2_mul_u64(&p.b, 4);
  g1_mul_u64(&p.c, 5);
  char *s = json_proof_string(&p);
  cuzk_err e = {0};
  char *t = subst(s, ",\n \"curve\": \"bls12381\"", "");
  expect(json_parse_proof(t, strlen(t), "proof.json", &q, &e), &e, CUZK_OK, NULL);
  CHECK(proof_eq(&p, &q));
  free(t);
  static const char *const spellings[] = {"\"BLS12-381\"", "\"bls12_381\"", "\"Bls12381\""};
  for (int i = 0; i < 3; i++) {
    char rep[64];
    snprintf(rep, sizeof rep, "\"curve\": %s", spellings[i]);
    t = subst(s, "\"curve\": \"bls12381\"", rep);
    expect(json_parse_proof(t, strlen(t), "proof.json", &q, &e), &e, CUZK_OK, NULL);
    CHECK(proof_eq(&p, &q));
    free(t);
  }
  free(s);
}

/* ------------------------------------------------------------ malformed proofs */

/* A compact proof document: each argument is a raw JSON fragment, NULL for
 * the default (generator multiples, "groth16", "bls12381"), "" to leave the
 * key out. */
static char dflt_a[512], dflt_b[1024], dflt_c[512];
static void init_defaults(void) {
  bls12_381_g1_aff a, c;
  bls12_381_g2_aff b;
  char d[4][128];
  g1_mul_u64(&a, 3);
  g2_mul_u64(&b, 4);
  g1_mul_u64(&c, 5);
  fp_dec(d[0], &a.x), fp_dec(d[1], &a.y);
  snprintf(dflt_a, sizeof dflt_a, "[\"%s\",\"%s\",\"1\"]", d[0], d[1]);
  fp_dec(d[0], &c.x), fp_dec(d[1], &c.y);
  snprintf(dflt_c, sizeof dflt_c, "[\"%s\",\"%s\",\"1\"]", d[0], d[1]);
  fp_dec(d[0], &b.x.c0), fp_dec(d[1], &b.x.c1), fp_dec(d[2], &b.y.c0), fp_dec(d[3], &b.y.c1);
  snprintf(dflt_b, sizeof dflt_b, "[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]]", d[0],
           d[1], d[2], d[3]);
}
static char *proof_doc(const char *pa, const char *pb, const char *pc, const char *proto,
                       const char *curve) {
  const char *v[5] = {pa ? pa : dflt_a, pb ? pb : dflt_b, pc ? pc : dflt_c,
                      proto ? proto : "\"groth16\"", curve ? curve : "\"bls12381\""};
  static const char *const keys[5] = {"pi_a", "pi_b", "pi_c", "protocol", "curve"};
  char *out = malloc(8192);
  size_t n = 0;
  out[n++] = '{';
  for (int i = 0; i < 5; i++) {
    if (!*v[i])
      continue;
    n += (size_t)snprintf(out + n, 8192 - n, "%s\"%s\":%s", n > 1 ? "," : "", keys[i], v[i]);
  }
  out[n++] = '}';
  out[n] = 0;
  return out;
}

static cuzk_status parse_doc(char *doc, cuzk_err *e) {
  groth16_proof p;
  cuzk_status s = json_parse_proof(doc, strlen(doc), "proof.json", &p, e);
  free(doc);
  return s;
}

/* 2^400 and p in decimal. */
static const char big400[] =
    "2582249878086908589655919172003011874329705792829223512830659356540647622016841194629645353"
    "280137831435903171972747493376";
static char p_dec[128];

TEST(malformed_field_elements) {
  init_defaults();
  limbs_to_dec(p_dec, bls12_381_fp_modulus, 6);
  cuzk_err e;
  char frag[512];
  expect(parse_doc(proof_doc(NULL, "[[\"1\",\"2\"],[\"12a\",\"3\"],[\"1\",\"0\"]]", NULL, NULL,
                             NULL), &e),
         &e, CUZK_FORMAT, "proof.json: pi_b[1][0]: not a decimal integer");
  snprintf(frag, sizeof frag, "[\"%s\",\"2\",\"1\"]", p_dec);
  expect(parse_doc(proof_doc(frag, NULL, NULL, NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_a[0]: value >= p");
  snprintf(frag, sizeof frag, "[\"1\",\"%s\",\"1\"]", big400);
  expect(parse_doc(proof_doc(NULL, NULL, frag, NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_c[1]: value >= p");
  snprintf(frag, sizeof frag, "[[\"1\",\"2\"],[\"3\",\"%s\"],[\"1\",\"0\"]]", p_dec);
  expect(parse_doc(proof_doc(NULL, frag, NULL, NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_b[1][1]: value >= p");
  static const char *const not_dec[] = {"\"-1\"", "\"\"", "\" 1\"", "\"1 \"", "\"0x1f\"",
                                        "\"1.0\"", "\"1e3\"", "\"+1\"", "\"\\u0661\"",
                                        "\"\xd9\xa1\""};
  for (size_t i = 0; i < sizeof not_dec / sizeof *not_dec; i++) {
    snprintf(frag, sizeof frag, "[\"1\",%s,\"1\"]", not_dec[i]);
    expect(parse_doc(proof_doc(frag, NULL, NULL, NULL, NULL), &e), &e, CUZK_FORMAT,
           "proof.json: pi_a[1]: not a decimal integer");
  }
  static const struct {
    const char *v, *kind;
  } kinds[] = {{"5", "a number"}, {"null", "null"}, {"true", "a boolean"}, {"[]", "an array"},
               {"{}", "an object"}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    char want[128];
    snprintf(frag, sizeof frag, "[\"1\",%s,\"1\"]", kinds[i].v);
    snprintf(want, sizeof want, "proof.json: pi_a[1]: expected a decimal string, found %s",
             kinds[i].kind);
    expect(parse_doc(proof_doc(frag, NULL, NULL, NULL, NULL), &e), &e, CUZK_FORMAT, want);
  }
  /* leading zeros are a decimal integer (snarkjs's BigInt takes them), and
   * a JSON escape of a digit is that digit */
  expect(parse_doc(proof_doc("[\"0001\",\"02\",\"01\"]", NULL, NULL, NULL, NULL), &e), &e,
         CUZK_OK, NULL);
  expect(parse_doc(proof_doc("[\"\\u0031\",\"2\",\"1\"]", NULL, NULL, NULL, NULL), &e), &e,
         CUZK_OK, NULL);
}

TEST(malformed_points) {
  init_defaults();
  cuzk_err e;
  expect(parse_doc(proof_doc("[\"1\",\"2\",\"2\"]", NULL, NULL, NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_a[2]: z must be \"1\" (or \"0\" for the point at infinity)");
  expect(parse_doc(proof_doc("[\"1\",\"2\",\"1\",\"1\"]", NULL, NULL, NULL, NULL), &e), &e,
         CUZK_FORMAT,
         "proof.json: pi_a: expected a G1 point [x, y, z], found an array of more than 3 elements");
  expect(parse_doc(proof_doc(NULL, NULL, "[\"1\"]", NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_c: expected a G1 point [x, y, z], found an array of 1 element");
  expect(parse_doc(proof_doc("{}", NULL, NULL, NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_a: expected a G1 point [x, y, z], found an object");
  expect(parse_doc(proof_doc("[\"0\",\"0\",\"1\"]", NULL, NULL, NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: pi_a: (0, 0) is not a curve point (write [\"0\", \"1\", \"0\"] for "
         "infinity)");
  expect(parse_doc(proof_doc(NULL, "[[\"0\",\"0\"],[\"0\",\"0\"]]", NULL, NULL, NULL), &e), &e,
         CUZK_FORMAT,
         "proof.json: pi_b: (0, 0) is not a curve point (write [[\"0\", \"0\"], [\"1\", \"0\"], "
         "[\"0\", \"0\"]] for infinity)");
  expect(parse_doc(proof_doc(NULL, "[[\"1\",\"2\"],[\"3\",\"4\"],[\"1\",\"1\"]]", NULL, NULL,
                             NULL), &e),
         &e, CUZK_FORMAT,
         "proof.json: pi_b[2]: z must be [\"1\", \"0\"] (or [\"0\", \"0\"] for the point at "
         "infinity)");
  expect(parse_doc(proof_doc(NULL, "[[\"1\",\"2\",\"3\"],[\"3\",\"4\"],[\"1\",\"0\"]]", NULL,
                             NULL, NULL), &e),
         &e, CUZK_FORMAT,
         "proof.json: pi_b[0]: expected an Fp2 element [c0, c1], found an array of more than 2 "
         "elements");
  expect(parse_doc(proof_doc(NULL, "[[\"1\",\"2\"],\"3\"]", NULL, NULL, NULL), &e), &e,
         CUZK_FORMAT, "proof.json: pi_b[1]: expected an Fp2 element [c0, c1], found a string");

  /* accepted: affine pairs without z (ffjavascript's fromObject), and z = 0
   * meaning infinity whatever x and y hold */
  groth16_proof p;
  char *doc = proof_doc("[\"5\",\"7\",\"0\"]", "[[\"1\",\"2\"],[\"3\",\"4\"],[\"0\",\"0\"]]",
                        "[\"8\",\"9\"]", NULL, NULL);
  expect(json_parse_proof(doc, strlen(doc), "proof.json", &p, &e), &e, CUZK_OK, NULL);
  CHECK(bls12_381_g1_aff_is_inf(&p.a));
  CHECK(bls12_381_g2_aff_is_inf(&p.b));
  limb_t c[6];
  bls12_381_fp_to_canon(c, &p.c.x);
  CHECK(c[0] == 8 && limbs_is_zero(c + 1, 5));
  bls12_381_fp_to_canon(c, &p.c.y);
  CHECK(c[0] == 9 && limbs_is_zero(c + 1, 5));
  free(doc);
}

TEST(malformed_protocol_curve_and_keys) {
  init_defaults();
  cuzk_err e;
  expect(parse_doc(proof_doc(NULL, NULL, NULL, "\"plonk\"", NULL), &e), &e, CUZK_FORMAT,
         "proof.json: protocol is \"plonk\", expected \"groth16\"");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, "\"\"", NULL), &e), &e, CUZK_FORMAT,
         "proof.json: protocol is \"\", expected \"groth16\"");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, "1", NULL), &e), &e, CUZK_FORMAT,
         "proof.json: protocol: expected a string, found a number");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, "", NULL), &e), &e, CUZK_FORMAT,
         "proof.json: missing key \"protocol\"");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, NULL, "\"bn128\""), &e), &e, CUZK_UNSUPPORTED,
         "proof.json: curve is \"bn128\": BN254 is not supported yet");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, NULL, "\"alt_bn128\""), &e), &e, CUZK_UNSUPPORTED,
         "proof.json: curve is \"alt_bn128\": BN254 is not supported yet");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, NULL, "\"secp256k1\""), &e), &e, CUZK_UNSUPPORTED,
         "proof.json: curve is \"secp256k1\": unknown curve (expected \"bls12381\")");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, NULL, "[]"), &e), &e, CUZK_FORMAT,
         "proof.json: curve: expected a string, found an array");
  expect(parse_doc(proof_doc(NULL, NULL, "", NULL, NULL), &e), &e, CUZK_FORMAT,
         "proof.json: missing key \"pi_c\"");
  /* a long or odd protocol value is shortened and sanitised in the message */
  expect(parse_doc(proof_doc(NULL, NULL, NULL,
                             "\"groth16-but-much-longer-than-forty-characters-in-all\"", NULL),
                   &e),
         &e, CUZK_FORMAT,
         "proof.json: protocol is \"groth16-but-much-longer-than-forty-chara...\", expected "
         "\"groth16\"");
  expect(parse_doc(proof_doc(NULL, NULL, NULL, "\"a\\\"b\\nc\"", NULL), &e), &e, CUZK_FORMAT,
         "proof.json: protocol is \"a?b?c\", expected \"groth16\"");

  /* duplicate key; unknown keys are ignored */
  char *base = proof_doc(NULL, NULL, NULL, NULL, NULL), *doc;
  doc = subst(base, "{", "{\"pi_a\":[\"1\",\"2\",\"1\"],");
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT, "proof.json: duplicate key \"pi_a\"");
  doc = subst(base, "{", "{\"protocol\":\"groth16\",");
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT, "proof.json: duplicate key \"protocol\"");
  doc = subst(base, "{", "{\"extra\":{\"a\":[1,2]},\"publicSignals\":[],");
  expect(parse_doc(doc, &e), &e, CUZK_OK, NULL);
  /* keys are case-sensitive */
  doc = subst(base, "\"pi_a\"", "\"PI_A\"");
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT, "proof.json: missing key \"pi_a\"");
  free(base);
}

TEST(malformed_json_text) {
  init_defaults();
  cuzk_err e;
  char *base = proof_doc(NULL, NULL, NULL, NULL, NULL), *doc;
  size_t n = strlen(base);
  groth16_proof p;

  expect(parse_doc(strdup("[1, 2]"), &e), &e, CUZK_FORMAT,
         "proof.json: expected a JSON object, found an array");
  expect(parse_doc(strdup(""), &e), &e, CUZK_FORMAT,
         "proof.json: invalid JSON at line 1, column 1");
  expect(parse_doc(strdup("{\n \"pi_a\": [\n  \"1\",\n  x\n ]\n}"), &e), &e, CUZK_FORMAT,
         "proof.json: invalid JSON at line 4, column 3");
  /* truncated */
  doc = strndup(base, n - 1);
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT, NULL);
  CHECK(!strncmp(e.msg, "proof.json: invalid JSON at line 1, column ", 43));
  /* trailing whitespace is fine, trailing text is not */
  doc = malloc(n + 8);
  sprintf(doc, "%s \n\t\r\n", base);
  expect(parse_doc(doc, &e), &e, CUZK_OK, NULL);
  doc = malloc(n + 8);
  sprintf(doc, "%s\n {}", base);
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT,
         "proof.json: unexpected text after the JSON value at line 2, column 2");
  /* a NUL byte: the text variant sees len bytes, past the NUL */
  doc = strdup(base);
  doc[n - 1] = 0;
  expect(json_parse_proof(doc, n, "proof.json", &p, &e), &e, CUZK_FORMAT,
         "proof.json: contains a NUL byte");
  free(doc);
  /* the \u0000 escape that cJSON would turn into a NUL ("12\u00003" -> "12") */
  doc = subst(base, "\"1\"]", "\"1\\u00003\"]");
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT, "proof.json: contains an escaped NUL (\\u0000)");
  /* but an escaped backslash before "u0000" is no escape of NUL */
  doc = subst(base, "{", "{\"note\":\"\\\\u0000\",");
  expect(parse_doc(doc, &e), &e, CUZK_OK, NULL);
  /* deep nesting stops in cJSON, not the stack */
  doc = malloc(200000 + 1);
  memset(doc, '[', 200000);
  doc[200000] = 0;
  expect(parse_doc(doc, &e), &e, CUZK_FORMAT, NULL);
  CHECK(strstr(e.msg, "invalid JSON") != NULL);
  free(base);
}

/* ------------------------------------------------------------ malformed public.json */

TEST(malformed_public) {
  cuzk_err e;
  limb_t(*v)[4];
  size_t n;
  char r_dec[100], rm1_dec[100], doc[400];
  limb_t rm1[4];
  limbs_to_dec(r_dec, bls12_381_fr_modulus, 4);
  memcpy(rm1, bls12_381_fr_modulus, sizeof rm1);
  rm1[0] -= 1;
  limbs_to_dec(rm1_dec, rm1, 4);
#define PUB(text) json_parse_public((text), strlen(text), "public.json", &v, &n, &e)
  snprintf(doc, sizeof doc, "[\"1\", \"%s\"]", r_dec);
  expect(PUB(doc), &e, CUZK_FORMAT, "public.json: [1]: value >= r");
  CHECK(v == NULL && n == 0);
  snprintf(doc, sizeof doc, "[\"1\", \"%s\"]", rm1_dec);
  expect(PUB(doc), &e, CUZK_OK, NULL);
  CHECK_EQ_INT(n, 2);
  CHECK_EQ_MEM(v[1], rm1, 32);
  free(v);
  expect(PUB("{\"a\": 1}"), &e, CUZK_FORMAT,
         "public.json: expected a JSON array of decimal strings, found an object");
  expect(PUB("[[\"1\"]]"), &e, CUZK_FORMAT,
         "public.json: [0]: expected a decimal string, found an array");
  expect(PUB("[\"1\", 2]"), &e, CUZK_FORMAT,
         "public.json: [1]: expected a decimal string, found a number");
  expect(PUB("[\"1\", \"2\", \"0x3\"]"), &e, CUZK_FORMAT,
         "public.json: [2]: not a decimal integer");
  expect(PUB("[]"), &e, CUZK_OK, NULL);
  CHECK(v == NULL && n == 0);
  expect(PUB("[\n]"), &e, CUZK_OK, NULL);
#undef PUB
}

/* ------------------------------------------------------------ malformed vk */

TEST(malformed_vk) {
  groth16_vk vk, back;
  make_vk(&vk, 2, 0x55);
  char *base = json_vk_string(&vk);
  cuzk_err e;
  char dec[128], pdec[128];
#define VK(text)                                                                    \
  (back.ic = (void *)1,                                                              \
   json_parse_vk((text), strlen(text), "verification_key.json", &back, &e))
#define VK_BAD(text, status, msg)                                                   \
  do {                                                                              \
    char *t_ = (text);                                                              \
    expect(VK(t_), &e, (status), (msg));                                            \
    CHECK(back.ic == NULL && back.n_public == 0); /* zeroed, nothing to free */     \
    free(t_);                                                                       \
  } while (0)

  expect(VK(base), &e, CUZK_OK, NULL);
  CHECK(vk_eq(&vk, &back));
  groth16_vk_fini(&back);

  VK_BAD(subst(base, "\"nPublic\": 2", "\"nPublic\": 3"), CUZK_FORMAT,
         "verification_key.json: IC: has 3 points, expected nPublic + 1 = 4");
  VK_BAD(subst(base, "\"nPublic\": 2", "\"nPublic\": 1"), CUZK_FORMAT,
         "verification_key.json: IC: has 3 points, expected nPublic + 1 = 2");
  VK_BAD(subst(base, "\"nPublic\": 2", "\"nPublic\": -1"), CUZK_FORMAT,
         "verification_key.json: nPublic: not a non-negative integer below 2^31");
  VK_BAD(subst(base, "\"nPublic\": 2", "\"nPublic\": 2.5"), CUZK_FORMAT,
         "verification_key.json: nPublic: not a non-negative integer below 2^31");
  VK_BAD(subst(base, "\"nPublic\": 2", "\"nPublic\": 1e300"), CUZK_FORMAT,
         "verification_key.json: nPublic: not a non-negative integer below 2^31");
  VK_BAD(subst(base, "\"nPublic\": 2", "\"nPublic\": \"2\""), CUZK_FORMAT,
         "verification_key.json: nPublic: expected a number, found a string");
  VK_BAD(subst(base, "\"curve\": \"bls12381\"", "\"curve\": \"bn128\""), CUZK_UNSUPPORTED,
         "verification_key.json: curve is \"bn128\": BN254 is not supported yet");
  VK_BAD(subst(base, "\"protocol\": \"groth16\"", "\"protocol\": \"plonk\""), CUZK_FORMAT,
         "verification_key.json: protocol is \"plonk\", expected \"groth16\"");
  VK_BAD(subst(base, "\"IC\"", "\"ic\""), CUZK_FORMAT,
         "verification_key.json: missing key \"IC\"");
  VK_BAD(subst(base, "\"IC\": [", "\"IC\": {\"a\": 1}, \"x\": ["), CUZK_FORMAT,
         "verification_key.json: IC: expected an array of G1 points, found an object");
  VK_BAD(subst(base, "\"vk_delta_2\"", "\"vk_delta\""), CUZK_FORMAT,
         "verification_key.json: missing key \"vk_delta_2\"");
  VK_BAD(subst(base, "\"vk_alphabeta_12\": [", "\"vk_alphabeta_12\": [[],"), CUZK_FORMAT,
         "verification_key.json: vk_alphabeta_12: expected an Fp12 element (2 x 3 x Fp2), found "
         "an array of more than 2 elements");
  /* IC[1].x (= 12 G) made non-decimal */
  fp_dec(dec, &vk.ic[1].x);
  VK_BAD(subst(base, dec, "12x"), CUZK_FORMAT,
         "verification_key.json: IC[1][0]: not a decimal integer");
  fp_dec(dec, &vk.ic[2].y);
  VK_BAD(subst(base, dec, ""), CUZK_FORMAT,
         "verification_key.json: IC[2][1]: not a decimal integer");
  /* alphabeta[7] = c1.c0.c1 -> vk_alphabeta_12[1][0][1] */
  limbs_to_dec(pdec, bls12_381_fp_modulus, 6);
  fp_dec(dec, &vk.alphabeta[7]);
  VK_BAD(subst(base, dec, pdec), CUZK_FORMAT,
         "verification_key.json: vk_alphabeta_12[1][0][1]: value >= p");
  fp_dec(dec, &vk.gamma2.y.c1);
  VK_BAD(subst(base, dec, pdec), CUZK_FORMAT, "verification_key.json: vk_gamma_2[1][1]: value >= p");
  VK_BAD(strdup("[]"), CUZK_FORMAT, "verification_key.json: expected a JSON object, found an array");
#undef VK
#undef VK_BAD
  free(base);
  groth16_vk_fini(&vk);
}

/* ------------------------------------------------------------ files: I/O errors and caps */

TEST_TIMEOUT(file_errors_and_size_caps, 20) { /* a FIFO open that blocked would hang */
  cuzk_err e;
  groth16_proof p;
  groth16_vk vk;
  limb_t(*v)[4];
  size_t n;
  char want[512];

  const char *missing = tmp_path("does-not-exist.json");
  expect(json_read_proof(missing, &p, &e), &e, CUZK_IO, NULL);
  snprintf(want, sizeof want, "%s: cannot open: No such file or directory", missing);
  CHECK_EQ_STR(e.msg, want);
  expect(json_read_vk(tmp_path(""), &vk, &e), &e, CUZK_IO, NULL);
  CHECK(strstr(e.msg, "is a directory") != NULL);
  CHECK(vk.ic == NULL);
  expect(json_read_public(missing, &v, &n, &e), &e, CUZK_IO, NULL);
  CHECK(v == NULL && n == 0);

  /* writing into a directory that does not exist */
  char bad[300];
  snprintf(bad, sizeof bad, "%s/no/such/dir/proof.json", tmp_path(""));
  g1_mul_u64(&p.a, 1);
  g2_mul_u64(&p.b, 1);
  g1_mul_u64(&p.c, 1);
  expect(json_write_proof(bad, &p, &e), &e, CUZK_IO, NULL);
  CHECK(strstr(e.msg, "cannot create") != NULL);

  /* a proof file one byte over the cap (valid JSON: whitespace then {}) */
  size_t big = JSON_PROOF_MAX_BYTES + 1;
  char *text = malloc(big + 1);
  memset(text, ' ', big);
  text[big - 2] = '{';
  text[big - 1] = '}';
  text[big] = 0;
  const char *path = tmp_path("big.json");
  spit(path, text, big);
  expect(json_read_proof(path, &p, &e), &e, CUZK_FORMAT, NULL);
  snprintf(want, sizeof want, "%s: file is %zu bytes, over the %zu-byte limit", path, big,
           JSON_PROOF_MAX_BYTES);
  CHECK_EQ_STR(e.msg, want);
  expect(json_parse_proof(text, big, "proof", &p, &e), &e, CUZK_FORMAT, NULL);
  snprintf(want, sizeof want, "proof: %zu bytes, over the %zu-byte limit", big,
           JSON_PROOF_MAX_BYTES);
  CHECK_EQ_STR(e.msg, want);
  /* at the cap it is read and parsed (and then found to lack keys) */
  spit(path, text + 1, big - 1);
  expect(json_read_proof(path, &p, &e), &e, CUZK_FORMAT, NULL);
  snprintf(want, sizeof want, "%s: missing key \"protocol\"", path);
  CHECK_EQ_STR(e.msg, want);
  free(text);

  /* a FIFO is refused at once, with or without a writer (an open that
   * waited for one would hang here until the test's timeout) */
  const char *fifo = tmp_path("fifo");
  CHECK(mkfifo(fifo, 0600) == 0);
  snprintf(want, sizeof want, "%s: is a FIFO, expected a regular file", fifo);
  expect(json_read_proof(fifo, &p, &e), &e, CUZK_IO, NULL);
  CHECK_EQ_STR(e.msg, want);
  expect(json_read_vk(fifo, &vk, &e), &e, CUZK_IO, NULL);
  CHECK_EQ_STR(e.msg, want);
  expect(json_read_public(fifo, &v, &n, &e), &e, CUZK_IO, NULL);
  CHECK_EQ_STR(e.msg, want);
  int wfd = open(fifo, O_RDWR); /* a writer (and reader) present: still refused */
  CHECK(wfd >= 0);
  expect(json_read_proof(fifo, &p, &e), &e, CUZK_IO, NULL);
  CHECK_EQ_STR(e.msg, want);
  close(wfd);

  /* messages name the file as given */
  init_defaults();
  char *doc = proof_doc(NULL, "[[\"1\",\"2\"],[\"12a\",\"3\"],[\"1\",\"0\"]]", NULL, NULL, NULL);
  path = tmp_path("proof.json");
  spit(path, doc, strlen(doc));
  expect(json_read_proof(path, &p, &e), &e, CUZK_FORMAT, NULL);
  snprintf(want, sizeof want, "%s: pi_b[1][0]: not a decimal integer", path);
  CHECK_EQ_STR(e.msg, want);
  free(doc);
  tmp_done();
}
