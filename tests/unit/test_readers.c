/* The .wtns, .r1cs and .zkey readers against files built here (and their
 * from-memory variants on the same bytes: the same status and message), their
 * malformed variants (each must fail with the right status and a message
 * naming the problem), every truncation, random corruption, a container
 * with sections beyond 4 GiB, and, when present, the snarkjs fixtures from
 * tests/oracle/make_fixtures.sh under build/oracle/ and examples/mul/. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

/* ------------------------------------------------------------ byte buffers */

typedef struct {
  uint8_t *p;
  size_t n, cap;
} buf;

static void buf_put(buf *b, const void *d, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n) cap *= 2;
    b->p = realloc(b->p, cap);
    CHECK(b->p);
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void buf_u32(buf *b, uint32_t v) {
  uint8_t t[4];
  wr_u32le(t, v);
  buf_put(b, t, 4);
}
static void buf_u64(buf *b, uint64_t v) {
  uint8_t t[8];
  wr_u64le(t, v);
  buf_put(b, t, 8);
}
static void buf_limbs(buf *b, const limb_t *l, size_t n) {
  uint8_t t[64];
  limbs_to_le(t, l, n);
  buf_put(b, t, 8 * n);
}
static void buf_zero(buf *b, size_t n) {
  static const uint8_t z[256];
  while (n) {
    size_t k = n < sizeof z ? n : sizeof z;
    buf_put(b, z, k);
    n -= k;
  }
}
static void buf_g1(buf *b, const bls12_381_g1_aff *p) {
  buf_limbs(b, p->x.l, 6);
  buf_limbs(b, p->y.l, 6);
}
static void buf_g2(buf *b, const bls12_381_g2_aff *p) {
  buf_limbs(b, p->x.c0.l, 6);
  buf_limbs(b, p->x.c1.l, 6);
  buf_limbs(b, p->y.c0.l, 6);
  buf_limbs(b, p->y.c1.l, 6);
}
static void buf_free(buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* --------------------------------------------- container model and writer */

typedef struct {
  uint32_t id;
  buf d;
} tsec;

typedef struct {
  char magic[5];
  uint32_t version;
  uint32_t n;
  tsec s[16];
} tfile;

static buf tfile_bytes(const tfile *f) {
  buf b = {0};
  buf_put(&b, f->magic, 4);
  buf_u32(&b, f->version);
  buf_u32(&b, f->n);
  for (uint32_t i = 0; i < f->n; i++) {
    buf_u32(&b, f->s[i].id);
    buf_u64(&b, f->s[i].d.n);
    buf_put(&b, f->s[i].d.p, f->s[i].d.n);
  }
  return b;
}
/* Offset of section entry k's {id, size} header in tfile_bytes. */
static size_t tfile_entry_off(const tfile *f, uint32_t k) {
  size_t off = 12;
  for (uint32_t i = 0; i < k; i++) off += 12 + f->s[i].d.n;
  return off;
}
/* Offset of the payload of the section with this id. */
static size_t tfile_payload_off(const tfile *f, uint32_t id) {
  for (uint32_t i = 0; i < f->n; i++)
    if (f->s[i].id == id) return tfile_entry_off(f, i) + 12;
  TEST_FAIL("no section %u", id);
}
static tsec *tfile_get(tfile *f, uint32_t id) {
  for (uint32_t i = 0; i < f->n; i++)
    if (f->s[i].id == id) return &f->s[i];
  TEST_FAIL("no section %u", id);
}
static buf *tfile_add(tfile *f, uint32_t id) {
  CHECK(f->n < 16);
  f->s[f->n] = (tsec){.id = id};
  return &f->s[f->n++].d;
}
static void tfile_drop(tfile *f, uint32_t id) {
  for (uint32_t i = 0; i < f->n; i++)
    if (f->s[i].id == id) {
      buf_free(&f->s[i].d);
      memmove(&f->s[i], &f->s[i + 1], (f->n - i - 1) * sizeof f->s[0]);
      f->n--;
      return;
    }
}
static void tfile_dup(tfile *f, uint32_t id) {
  tsec *s = tfile_get(f, id);
  buf copy = {0};
  buf_put(&copy, s->d.p, s->d.n);
  *tfile_add(f, id) = copy;
}
static void tfile_free(tfile *f) {
  for (uint32_t i = 0; i < f->n; i++) buf_free(&f->s[i].d);
  f->n = 0;
}
static void tfile_init(tfile *f, const char *magic, uint32_t version) {
  memset(f, 0, sizeof *f);
  memcpy(f->magic, magic, 4);
  f->version = version;
}

/* ------------------------------------------------------------ temp files */

static char g_dir[64];
static char g_path[128];

/* Every test writes its files into one directory under /tmp. */
static const char *tmp_file(const char *name) {
  if (!g_dir[0]) {
    snprintf(g_dir, sizeof g_dir, "/tmp/cuzk-readers-XXXXXX");
    CHECK(mkdtemp(g_dir));
  }
  snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
  return g_path;
}
static void write_file(const char *path, const void *d, size_t n) {
  /* A new inode each time: rewriting in place (O_TRUNC) makes ext4 flush
   * the old blocks on close, ~5 ms per file. */
  unlink(path);
  FILE *f = fopen(path, "wb");
  CHECK_MSG(f, "cannot write %s: %s", path, strerror(errno));
  CHECK(fwrite(d, 1, n, f) == n);
  CHECK(fclose(f) == 0);
}
static void tmp_cleanup(void) {
  static const char *const names[] = {"t.wtns", "t.r1cs", "t.zkey", "t.bin", "t2.wtns"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp_file(names[i]));
  rmdir(g_dir);
  g_dir[0] = 0;
}

/* ------------------------------------------------------ opening helpers */

enum { K_WTNS, K_R1CS, K_ZKEY };
static const char *const kind_file[3] = {"t.wtns", "t.r1cs", "t.zkey"};
static cuzk_err g_err;

/* The from-memory readers (the fuzz harnesses' entry points) on the same
 * bytes under the file's name: the same status and message as the file
 * reader's (st, g_err); for a .zkey, zkey_read_header_mem as
 * zkey_read_header. */
static void same_from_memory(int kind, const void *d, size_t n, const char *path, cuzk_status st) {
  cuzk_err e = {0};
  cuzk_status ms;
  if (kind == K_WTNS) {
    wtns_file w;
    if ((ms = wtns_open_mem(&w, d, n, path, &e)) == CUZK_OK) wtns_close(&w);
  } else if (kind == K_R1CS) {
    r1cs_file r;
    if ((ms = r1cs_open_mem(&r, d, n, path, &e)) == CUZK_OK) r1cs_close(&r);
  } else {
    zkey_file z;
    if ((ms = zkey_open_mem(&z, d, n, path, &e)) == CUZK_OK) zkey_close(&z);
    cuzk_err fe = {0}, he = {0};
    cuzk_status fs = zkey_read_header(&z, path, &fe);
    cuzk_status hs = zkey_read_header_mem(&z, d, n, path, &he);
    CHECK_MSG(fs == hs && !strcmp(fe.msg, he.msg),
              "zkey_read_header: %s \"%s\", from memory: %s \"%s\"", cuzk_status_name(fs),
              fe.msg, cuzk_status_name(hs), he.msg);
  }
  CHECK_MSG(ms == st && (st == CUZK_OK || !strcmp(e.msg, g_err.msg)),
            "from the file: %s \"%s\", from memory: %s \"%s\"", cuzk_status_name(st), g_err.msg,
            cuzk_status_name(ms), e.msg);
}

/* Opens bytes as the given kind and closes again; g_err holds the message. */
static cuzk_status open_bytes(int kind, const void *d, size_t n) {
  const char *path = tmp_file(kind_file[kind]);
  write_file(path, d, n);
  cuzk_err_clear(&g_err);
  cuzk_status st;
  if (kind == K_WTNS) {
    wtns_file w;
    if ((st = wtns_open(&w, path, &g_err)) == CUZK_OK) wtns_close(&w);
  } else if (kind == K_R1CS) {
    r1cs_file r;
    if ((st = r1cs_open(&r, path, &g_err)) == CUZK_OK) r1cs_close(&r);
  } else {
    zkey_file z;
    if ((st = zkey_open(&z, path, &g_err)) == CUZK_OK) zkey_close(&z);
  }
  if (st != CUZK_OK) {
    CHECK_MSG(g_err.status == st, "err.status %d != returned %d", g_err.status, st);
    CHECK_MSG(strstr(g_err.msg, kind_file[kind]), "message does not name the file: %s",
              g_err.msg);
  }
  same_from_memory(kind, d, n, path, st);
  return st;
}
static cuzk_status open_tfile(int kind, const tfile *f) {
  buf b = tfile_bytes(f);
  cuzk_status st = open_bytes(kind, b.p, b.n);
  buf_free(&b);
  return st;
}

/* Asserts status and that the message contains every substring given. */
#define EXPECT(expr, want, ...)                                                          \
  do {                                                                                   \
    cuzk_status s_ = (expr);                                                             \
    const char *subs_[] = {__VA_ARGS__};                                                 \
    if (s_ != (want))                                                                    \
      TEST_FAIL("%s: got %s (\"%s\"), expected %s", #expr, cuzk_status_name(s_),         \
                g_err.msg, cuzk_status_name(want));                                      \
    for (size_t k_ = 0; k_ < sizeof subs_ / sizeof subs_[0]; k_++)                       \
      if (!strstr(g_err.msg, subs_[k_]))                                                 \
        TEST_FAIL("%s: message \"%s\" lacks \"%s\"", #expr, g_err.msg, subs_[k_]);       \
    printf("  %-9s %s\n", cuzk_status_name(s_), g_err.msg);                              \
  } while (0)

/* --------------------------------------------------------- valid files */

static const limb_t bn254_r[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                  0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const limb_t bn254_q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                  0xb85045b68181585dULL, 0x30644e72e131a029ULL};

static void r_minus(limb_t out[4], uint64_t k) { /* r - k, k small */
  memcpy(out, bls12_381_fr_modulus, 32);
  out[0] -= k; /* r's low limb is 0xffffffff00000001: no borrow for k <= 1 */
}

/* Circuit: wires {1, out, a, b, d}, nPubOut 1, nPrvIn 2,
 *   c0: a * b = out
 *   c1: (5a + (r-1) b) * 1 = d         i.e. 5a - b = d
 * Satisfied by w = {1, 33, 3, 11, 4}. */
static const uint64_t good_w[5] = {1, 33, 3, 11, 4};

static void make_wtns(tfile *f, const uint64_t *vals, uint32_t n) {
  tfile_init(f, "wtns", 2);
  buf *h = tfile_add(f, 1);
  buf_u32(h, 32);
  buf_limbs(h, bls12_381_fr_modulus, 4);
  buf_u32(h, n);
  buf *v = tfile_add(f, 2);
  for (uint32_t i = 0; i < n; i++) {
    limb_t x[4] = {vals[i]};
    buf_limbs(v, x, 4);
  }
}

static void lc_term(buf *b, uint32_t wire, const limb_t c[4]) {
  buf_u32(b, wire);
  buf_limbs(b, c, 4);
}

static void make_r1cs(tfile *f) {
  tfile_init(f, "r1cs", 1);
  static const limb_t one[4] = {1}, five[4] = {5};
  limb_t m1[4];
  r_minus(m1, 1);
  buf *c = tfile_add(f, 2); /* circom's order: 2, 1, 3 */
  buf_u32(c, 1), lc_term(c, 2, one);
  buf_u32(c, 1), lc_term(c, 3, one);
  buf_u32(c, 1), lc_term(c, 1, one);
  buf_u32(c, 2), lc_term(c, 2, five), lc_term(c, 3, m1);
  buf_u32(c, 1), lc_term(c, 0, one);
  buf_u32(c, 1), lc_term(c, 4, one);
  buf *h = tfile_add(f, 1);
  buf_u32(h, 32);
  buf_limbs(h, bls12_381_fr_modulus, 4);
  buf_u32(h, 5);  /* nWires */
  buf_u32(h, 1);  /* nPubOut */
  buf_u32(h, 0);  /* nPubIn */
  buf_u32(h, 2);  /* nPrvIn */
  buf_u64(h, 5);  /* nLabels */
  buf_u32(h, 2);  /* mConstraints */
  buf *m = tfile_add(f, 3);
  for (uint64_t i = 0; i < 5; i++) buf_u64(m, i);
}

/* zkey header payload offsets */
enum {
  ZH_NVARS = 88, ZH_NPUBLIC = 92, ZH_DOMAIN = 96, ZH_ALPHA1 = 100, ZH_BETA1 = 196,
  ZH_BETA2 = 292, ZH_GAMMA2 = 484, ZH_DELTA1 = 676, ZH_DELTA2 = 772, ZH_SIZE = 964
};

/* A key for the circuit above: nVars 5, nPublic 1, domainSize 4, 7
 * coefficient entries; points are the generators and infinity (the reader
 * does not care what they mean).  Physical order as `zkey new` writes it. */
static void make_zkey(tfile *f) {
  tfile_init(f, "zkey", 1);
  const bls12_381_g1_aff *g1 = &bls12_381_g1_generator;
  const bls12_381_g2_aff *g2 = &bls12_381_g2_generator;
  bls12_381_g1_aff inf1;
  bls12_381_g2_aff inf2;
  bls12_381_g1_aff_set_inf(&inf1);
  bls12_381_g2_aff_set_inf(&inf2);

  buf_u32(tfile_add(f, 1), 1);
  buf *h = tfile_add(f, 2);
  buf_u32(h, 48);
  buf_limbs(h, bls12_381_fp_modulus, 6);
  buf_u32(h, 32);
  buf_limbs(h, bls12_381_fr_modulus, 4);
  buf_u32(h, 5), buf_u32(h, 1), buf_u32(h, 4);
  buf_g1(h, g1), buf_g1(h, g1), buf_g2(h, g2), buf_g2(h, g2), buf_g1(h, g1), buf_g2(h, g2);
  CHECK_EQ_INT(h->n, ZH_SIZE);

  buf *c = tfile_add(f, 4);
  static const uint32_t ent[7][4] = {{0, 0, 2, 1}, {1, 0, 3, 1}, {0, 1, 2, 5}, {0, 1, 3, 0},
                                     {1, 1, 0, 1}, {0, 2, 0, 1}, {0, 3, 1, 1}};
  buf_u32(c, 7);
  for (int i = 0; i < 7; i++) {
    limb_t v[4] = {ent[i][3]};
    if (i == 3) r_minus(v, 1);
    buf_u32(c, ent[i][0]), buf_u32(c, ent[i][1]), buf_u32(c, ent[i][2]);
    buf_limbs(c, v, 4);
  }
  buf *ic = tfile_add(f, 3);
  buf_g1(ic, g1), buf_g1(ic, &inf1);
  buf *hh = tfile_add(f, 9);
  for (int i = 0; i < 4; i++) buf_g1(hh, i == 1 ? &inf1 : g1);
  buf *cc = tfile_add(f, 8);
  for (int i = 0; i < 3; i++) buf_g1(cc, g1);
  buf *a = tfile_add(f, 5), *b1 = tfile_add(f, 6), *b2 = tfile_add(f, 7);
  for (int i = 0; i < 5; i++) {
    buf_g1(a, i == 4 ? &inf1 : g1);
    buf_g1(b1, g1);
    buf_g2(b2, i == 0 ? &inf2 : g2);
  }
  buf *t = tfile_add(f, 10);
  buf_zero(t, 64); /* csHash */
  buf_u32(t, 1);
  buf_zero(t, 3 * 96 + 192 + 64);
  buf_u32(t, 0);  /* type */
  buf_u32(t, 8);  /* paramLen */
  static const uint8_t params[8] = {1, 4, 't', 'e', 's', 't', 2, 10};
  buf_put(t, params, 8);
}

/* Patch helpers on a section's payload. */
static void patch_u32(tfile *f, uint32_t id, size_t off, uint32_t v) {
  tsec *s = tfile_get(f, id);
  CHECK(off + 4 <= s->d.n);
  wr_u32le(s->d.p + off, v);
}
static void patch_limbs(tfile *f, uint32_t id, size_t off, const limb_t *l, size_t n) {
  tsec *s = tfile_get(f, id);
  CHECK(off + 8 * n <= s->d.n);
  limbs_to_le(s->d.p + off, l, n);
}

/* ------------------------------------------------------------ valid reads */

TEST(wtns_reads_fields) {
  tfile f;
  make_wtns(&f, good_w, 5);
  buf b = tfile_bytes(&f);
  const char *path = tmp_file("t.wtns");
  write_file(path, b.p, b.n);
  wtns_file w;
  cuzk_err e = {0};
  CHECK_EQ_INT(wtns_open(&w, path, &e), CUZK_OK);
  CHECK_EQ_INT(w.n8, 32);
  CHECK_EQ_INT(w.n_witness, 5);
  CHECK_EQ_INT(w.prime_id, BINFILE_PRIME_BLS12_381_R);
  CHECK_EQ_MEM(w.prime, bls12_381_fr_modulus, 32);
  CHECK(w.values == w.bf.map.data + 12 + 12 + 40 + 12);
  for (int i = 0; i < 5; i++) {
    CHECK_EQ_INT(rd_u64le(wtns_value(&w, i)), good_w[i]);
    CHECK_EQ_INT(rd_u64le(wtns_value(&w, i) + 8), 0);
  }
  CHECK_EQ_INT(wtns_check_curve(&w, &e), CUZK_OK);
  wtns_close(&w);
  buf_free(&b);
  tfile_free(&f);
  tmp_cleanup();
}

TEST(r1cs_reads_fields_and_checks_witness) {
  tfile f, fw;
  make_r1cs(&f);
  buf b = tfile_bytes(&f);
  const char *rp = "t.r1cs", *wp = "t.wtns";
  char rpath[128], wpath[128];
  snprintf(rpath, sizeof rpath, "%s", tmp_file(rp));
  write_file(rpath, b.p, b.n);
  r1cs_file r;
  cuzk_err e = {0};
  CHECK_EQ_INT(r1cs_open(&r, rpath, &e), CUZK_OK);
  CHECK_EQ_INT(r.fs, 32);
  CHECK_EQ_INT(r.prime_id, BINFILE_PRIME_BLS12_381_R);
  CHECK_EQ_INT(r.n_wires, 5);
  CHECK_EQ_INT(r.n_pub_out, 1);
  CHECK_EQ_INT(r.n_pub_in, 0);
  CHECK_EQ_INT(r.n_prv_in, 2);
  CHECK_EQ_INT(r.n_labels, 5);
  CHECK_EQ_INT(r.n_constraints, 2);
  CHECK_EQ_INT(r.n_terms, 7);
  CHECK_EQ_INT(r1cs_n_public(&r), 1);
  CHECK(r.wire_map != NULL);
  CHECK(!r.has_custom_gates);
  CHECK_EQ_INT(r1cs_require_groth16(&r, &e), CUZK_OK);

  /* the iterator sees the records as written */
  r1cs_iter it;
  r1cs_constraint k;
  r1cs_iter_init(&it, &r);
  CHECK(r1cs_iter_next(&it, &k));
  CHECK_EQ_INT(k.a.n_terms, 1);
  CHECK_EQ_INT(r1cs_term_wire(&r, &k.a, 0), 2);
  CHECK_EQ_INT(r1cs_term_wire(&r, &k.c, 0), 1);
  CHECK(r1cs_iter_next(&it, &k));
  CHECK_EQ_INT(k.a.n_terms, 2);
  CHECK_EQ_INT(r1cs_term_wire(&r, &k.a, 1), 3);
  CHECK_EQ_INT(rd_u64le(r1cs_term_coef(&r, &k.a, 0)), 5);
  CHECK_EQ_INT(r1cs_term_wire(&r, &k.b, 0), 0);
  CHECK(!r1cs_iter_next(&it, &k));

  /* satisfied, then each way of not being satisfied */
  struct {
    uint64_t w[5];
    cuzk_status want;
    size_t bad;
  } cases[] = {
      {{1, 33, 3, 11, 4}, CUZK_OK, 0},
      {{1, 34, 3, 11, 4}, CUZK_UNSATISFIED, 0},
      {{1, 33, 3, 11, 5}, CUZK_UNSATISFIED, 1},
      {{2, 33, 3, 11, 4}, CUZK_UNSATISFIED, SIZE_MAX},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    make_wtns(&fw, cases[i].w, 5);
    buf bw = tfile_bytes(&fw);
    snprintf(wpath, sizeof wpath, "%s", tmp_file(wp));
    write_file(wpath, bw.p, bw.n);
    wtns_file w;
    CHECK_EQ_INT(wtns_open(&w, wpath, &e), CUZK_OK);
    size_t bad = 12345;
    cuzk_err_clear(&e);
    cuzk_status st = r1cs_check_witness(&r, &w, &bad, &e);
    CHECK_MSG(st == cases[i].want, "case %zu: %s (%s)", i, cuzk_status_name(st), e.msg);
    CHECK_EQ_INT(bad, cases[i].bad);
    if (st != CUZK_OK) printf("  %s\n", e.msg);
    wtns_close(&w);
    buf_free(&bw);
    tfile_free(&fw);
  }
  /* a witness of the wrong length */
  make_wtns(&fw, good_w, 4);
  buf bw = tfile_bytes(&fw);
  write_file(wpath, bw.p, bw.n);
  wtns_file w;
  CHECK_EQ_INT(wtns_open(&w, wpath, &e), CUZK_OK);
  g_err = e;
  EXPECT(r1cs_check_witness(&r, &w, NULL, &g_err), CUZK_INVALID_ARGUMENT, "nWitness 4",
         "nWires 5");
  wtns_close(&w);
  buf_free(&bw);
  tfile_free(&fw);

  r1cs_close(&r);
  buf_free(&b);
  tfile_free(&f);
  tmp_cleanup();
}

TEST(r1cs_section_order_and_custom_gates) {
  tfile f;
  make_r1cs(&f);
  /* header first, no wire map: still fine */
  tsec t = f.s[0];
  f.s[0] = f.s[1];
  f.s[1] = t;
  tfile_drop(&f, 3);
  CHECK_EQ_INT(open_tfile(K_R1CS, &f), CUZK_OK);

  /* custom gates: open reports them, Groth16 use is refused */
  buf *g = tfile_add(&f, 4);
  buf_u32(g, 1);
  buf_put(g, "gate\0", 5);
  buf_u32(g, 1);
  limb_t x[4] = {7};
  buf_limbs(g, x, 4);
  buf *u = tfile_add(&f, 5);
  buf_u32(u, 1);
  buf_u32(u, 0), buf_u32(u, 2), buf_u64(u, 1), buf_u64(u, 2);
  buf b = tfile_bytes(&f);
  const char *path = tmp_file("t.r1cs");
  write_file(path, b.p, b.n);
  r1cs_file r;
  cuzk_err e = {0};
  CHECK_EQ_INT(r1cs_open(&r, path, &e), CUZK_OK);
  CHECK(r.has_custom_gates);
  CHECK_EQ_INT(r.n_custom_gates, 1);
  CHECK_EQ_INT(r.n_custom_gate_uses, 1);
  cuzk_err_clear(&g_err);
  EXPECT(r1cs_require_groth16(&r, &g_err), CUZK_UNSUPPORTED, "custom gates", "PLONK");
  r1cs_close(&r);
  buf_free(&b);

  /* a malformed custom gate list: the name has no terminator */
  tsec *s4 = tfile_get(&f, 4);
  s4->d.n = 4 + 3;
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "section 4", "NUL");
  tfile_free(&f);
  tmp_cleanup();
}

static void check_generator_g1(const bls12_381_g1_aff *p) {
  CHECK_EQ_MEM(p, &bls12_381_g1_generator, sizeof *p);
}
static void check_generator_g2(const bls12_381_g2_aff *p) {
  CHECK_EQ_MEM(p, &bls12_381_g2_generator, sizeof *p);
}

TEST(zkey_reads_fields) {
  tfile f;
  make_zkey(&f);
  buf b = tfile_bytes(&f);
  const char *path = tmp_file("t.zkey");
  write_file(path, b.p, b.n);
  zkey_file z;
  cuzk_err e = {0};
  CHECK_MSG(zkey_open(&z, path, &e) == CUZK_OK, "%s", e.msg);
  CHECK_EQ_INT(z.protocol, 1);
  CHECK_EQ_INT(z.n8q, 48);
  CHECK_EQ_INT(z.n8r, 32);
  CHECK_EQ_MEM(z.q, bls12_381_fp_modulus, 48);
  CHECK_EQ_MEM(z.r, bls12_381_fr_modulus, 32);
  CHECK_EQ_INT(z.n_vars, 5);
  CHECK_EQ_INT(z.n_public, 1);
  CHECK_EQ_INT(z.domain_size, 4);
  CHECK_EQ_INT(z.lg_domain, 2);
  CHECK_EQ_INT(z.n_ic, 2);
  CHECK_EQ_INT(z.n_a, 5);
  CHECK_EQ_INT(z.n_c, 3);
  CHECK_EQ_INT(z.n_h, 4);
  CHECK_EQ_INT(z.n_coefs, 7);
  CHECK(z.has_contributions);
  CHECK_EQ_INT(z.n_contributions, 1);
  check_generator_g1(&z.alpha1);
  check_generator_g1(&z.beta1);
  check_generator_g1(&z.delta1);
  check_generator_g2(&z.beta2);
  check_generator_g2(&z.gamma2);
  check_generator_g2(&z.delta2);
  /* section pointers land on the payloads */
  CHECK(z.ic == z.bf.map.data + tfile_payload_off(&f, 3));
  /* the entries are a copy of the mapped ones, owned by z (zkey.h) */
  CHECK(z.coefs == z.coefs_owned);
  CHECK_EQ_MEM(z.coefs, z.bf.map.data + tfile_payload_off(&f, 4) + 4, 7 * ZKEY_COEF_BYTES);
  CHECK(z.a == z.bf.map.data + tfile_payload_off(&f, 5));
  CHECK(z.b1 == z.bf.map.data + tfile_payload_off(&f, 6));
  CHECK(z.b2 == z.bf.map.data + tfile_payload_off(&f, 7));
  CHECK(z.c == z.bf.map.data + tfile_payload_off(&f, 8));
  CHECK(z.h == z.bf.map.data + tfile_payload_off(&f, 9));
  CHECK_EQ_INT(rd_u32le(z.coefs + 2 * ZKEY_COEF_BYTES + 4), 1); /* row of entry 2 */
  bls12_381_g2_aff p2;
  zkey_g2_decode(&p2, z.b2 + ZKEY_G2_BYTES);
  check_generator_g2(&p2);

  groth16_vk vk;
  CHECK_EQ_INT(zkey_read_vk(&z, &vk, &e), CUZK_OK);
  CHECK_EQ_INT(vk.n_public, 1);
  check_generator_g1(&vk.alpha1);
  check_generator_g2(&vk.beta2);
  check_generator_g2(&vk.gamma2);
  check_generator_g2(&vk.delta2);
  check_generator_g1(&vk.ic[0]);
  CHECK(bls12_381_g1_aff_is_inf(&vk.ic[1]));
  groth16_vk_fini(&vk);
  CHECK(vk.ic == NULL);

  CHECK_EQ_INT(zkey_validate_points(&z, 2, &e), CUZK_OK);
  uint32_t sec = 0;
  uint64_t idx = 0;
  CHECK(!zkey_find_bad_point(&z, 1, &sec, &idx));

  /* the witness of the circuit matches the key; one of another length does not */
  tfile fw;
  make_wtns(&fw, good_w, 5);
  buf bw = tfile_bytes(&fw);
  char wpath[128];
  snprintf(wpath, sizeof wpath, "%s", tmp_file("t.wtns"));
  write_file(wpath, bw.p, bw.n);
  wtns_file w;
  CHECK_EQ_INT(wtns_open(&w, wpath, &e), CUZK_OK);
  CHECK_EQ_INT(zkey_check_witness(&z, &w, &e), CUZK_OK);
  wtns_close(&w);
  buf_free(&bw);
  tfile_free(&fw);
  make_wtns(&fw, good_w, 4);
  bw = tfile_bytes(&fw);
  write_file(wpath, bw.p, bw.n);
  CHECK_EQ_INT(wtns_open(&w, wpath, &e), CUZK_OK);
  cuzk_err_clear(&g_err);
  EXPECT(zkey_check_witness(&z, &w, &g_err), CUZK_INVALID_ARGUMENT, "nWitness 4", "nVars 5");
  wtns_close(&w);
  buf_free(&bw);
  tfile_free(&fw);

  zkey_close(&z);
  buf_free(&b);
  tfile_free(&f);
  tmp_cleanup();
}

/* zkey_validate_points finds a bad point deep in a section, and a header
 * point on the curve but outside the subgroup. */
TEST(zkey_validate_points_finds_bad_ones) {
  struct {
    uint32_t id;
    size_t off;
    int mode; /* 0 off-curve (y += 1), 1 x = q */
    const char *want[3];
    uint64_t idx;
  } cases[] = {
      {9, 2 * 96 + 48, 0, {"section 9 (H)", "point 2", "not on the curve"}, 2},
      {5, 3 * 96, 1, {"section 5 (A)", "point 3", "coordinate x is not below q"}, 3},
      {7, 4 * 192 + 48, 1, {"section 7 (B2)", "point 4", "x.c1 is not below q"}, 4},
      {8, 0 * 96 + 48, 0, {"section 8 (C)", "point 0", "not on the curve"}, 0},
      {6, 4 * 96 + 48, 0, {"section 6 (B1)", "point 4", "not on the curve"}, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tfile f;
    make_zkey(&f);
    tsec *s = tfile_get(&f, cases[i].id);
    if (cases[i].mode == 0)
      s->d.p[cases[i].off] ^= 1;
    else
      limbs_to_le(s->d.p + cases[i].off, bls12_381_fp_modulus, 6);
    buf b = tfile_bytes(&f);
    const char *path = tmp_file("t.zkey");
    write_file(path, b.p, b.n);
    zkey_file z;
    cuzk_err e = {0};
    CHECK_MSG(zkey_open(&z, path, &e) == CUZK_OK, "%s", e.msg); /* not checked at open */
    cuzk_err_clear(&g_err);
    EXPECT(zkey_validate_points(&z, 3, &g_err), CUZK_FORMAT, cases[i].want[0], cases[i].want[1],
           cases[i].want[2]);
    uint32_t sec = 0;
    uint64_t idx = 0;
    CHECK(zkey_find_bad_point(&z, 0, &sec, &idx));
    CHECK_EQ_INT(sec, cases[i].id);
    CHECK_EQ_INT(idx, cases[i].idx);
    zkey_close(&z);
    buf_free(&b);
    tfile_free(&f);
  }

  /* a G1 point with x = smallest value giving a square: on the curve, but
   * (cofactor ~2^126) not in the subgroup */
  bls12_381_g1_aff p;
  for (uint64_t x = 1;; x++) {
    bls12_381_fp rhs;
    bls12_381_fp_set_u64(&p.x, x);
    bls12_381_fp_sqr(&rhs, &p.x);
    bls12_381_fp_mul(&rhs, &rhs, &p.x);
    bls12_381_fp_add(&rhs, &rhs, &bls12_381_g1_b);
    if (bls12_381_fp_sqrt(&p.y, &rhs)) break;
  }
  CHECK(bls12_381_g1_aff_is_on_curve(&p));
  CHECK(!bls12_381_g1_aff_in_subgroup(&p));
  tfile f;
  make_zkey(&f);
  patch_limbs(&f, 2, ZH_DELTA1, p.x.l, 6);
  patch_limbs(&f, 2, ZH_DELTA1 + 48, p.y.l, 6);
  buf b = tfile_bytes(&f);
  const char *path = tmp_file("t.zkey");
  write_file(path, b.p, b.n);
  zkey_file z;
  cuzk_err e = {0};
  CHECK_MSG(zkey_open(&z, path, &e) == CUZK_OK, "%s", e.msg);
  cuzk_err_clear(&g_err);
  EXPECT(zkey_validate_points(&z, 1, &g_err), CUZK_FORMAT, "section 2", "delta1",
         "subgroup");
  zkey_close(&z);
  buf_free(&b);
  tfile_free(&f);
  tmp_cleanup();
}

/* ------------------------------------------------------------- malformed */

/* Every proper prefix of a valid file is malformed, whatever the cut. */
static void check_truncations(int kind, const tfile *f) {
  buf b = tfile_bytes(f);
  CHECK_EQ_INT(open_bytes(kind, b.p, b.n), CUZK_OK);
  for (size_t len = 0; len < b.n; len++) {
    cuzk_status st = open_bytes(kind, b.p, len);
    CHECK_MSG(st == CUZK_FORMAT, "%s truncated to %zu of %zu bytes: %s (%s)", kind_file[kind],
              len, b.n, cuzk_status_name(st), g_err.msg);
  }
  /* a few of the messages, by where the cut falls */
  open_bytes(kind, b.p, 7);
  printf("  cut at 7:        %s\n", g_err.msg);
  open_bytes(kind, b.p, 20);
  printf("  cut at 20:       %s\n", g_err.msg);
  open_bytes(kind, b.p, b.n - 1);
  printf("  cut at end - 1:  %s\n", g_err.msg);
  buf_free(&b);
}

TEST(truncated_files_fail) {
  tfile f;
  make_wtns(&f, good_w, 5);
  check_truncations(K_WTNS, &f);
  open_bytes(K_WTNS, "wtn", 3);
  EXPECT(g_err.status, CUZK_FORMAT, "3 bytes", "too short");
  tfile_free(&f);
  make_r1cs(&f);
  check_truncations(K_R1CS, &f);
  tfile_free(&f);
  make_zkey(&f);
  check_truncations(K_ZKEY, &f);
  tfile_free(&f);
  tmp_cleanup();
}

/* Container-level faults, the same for the three kinds. */
TEST(container_faults) {
  for (int kind = 0; kind < 3; kind++) {
    tfile f;
    if (kind == K_WTNS) make_wtns(&f, good_w, 5);
    if (kind == K_R1CS) make_r1cs(&f);
    if (kind == K_ZKEY) make_zkey(&f);
    buf b = tfile_bytes(&f);
    buf m = {0};
    printf(" %s\n", kind_file[kind]);

    /* wrong magic: another kind's, and binary junk */
    const char *other = kind == K_WTNS ? "zkey" : "wtns";
    buf_put(&m, b.p, b.n);
    memcpy(m.p, other, 4);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "magic", other);
    memcpy(m.p, "\x7f" "ELF", 4);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "magic 0x7f454c46");
    memcpy(m.p, b.p, 4);

    /* wrong version */
    wr_u32le(m.p + 4, 7);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_UNSUPPORTED, "version 7", "expected");
    wr_u32le(m.p + 4, f.version);

    /* nSections larger than the table */
    wr_u32le(m.p + 8, f.n + 1);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "section table", "12-byte header");
    wr_u32le(m.p + 8, 0xffffffffu);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "section table");
    wr_u32le(m.p + 8, f.n);

    /* a section size past the end of the file, and one that would wrap
     * 64-bit offset arithmetic */
    size_t e1 = tfile_entry_off(&f, 1);
    wr_u64le(m.p + e1 + 4, f.s[1].d.n + b.n);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "runs past the end of the file");
    wr_u64le(m.p + e1 + 4, UINT64_MAX - 8);
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "size 18446744073709551607",
           "runs past the end");
    wr_u64le(m.p + e1 + 4, UINT64_MAX - e1 - 11); /* offset + size = 2^64 exactly */
    EXPECT(open_bytes(kind, m.p, m.n), CUZK_FORMAT, "runs past the end");
    wr_u64le(m.p + e1 + 4, f.s[1].d.n);
    CHECK_EQ_INT(open_bytes(kind, m.p, m.n), CUZK_OK);

    /* trailing bytes after the last section are ignored (as snarkjs does) */
    buf_zero(&m, 5);
    CHECK_EQ_INT(open_bytes(kind, m.p, m.n), CUZK_OK);

    /* missing and duplicated sections */
    uint32_t ids[10], n = f.n;
    for (uint32_t i = 0; i < n; i++) ids[i] = f.s[i].id;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t id = ids[i];
      bool optional = (kind == K_R1CS && id == 3) || (kind == K_ZKEY && id == 10);
      char want[48];
      snprintf(want, sizeof want, "section %u (", id);
      tfile g;
      if (kind == K_WTNS) make_wtns(&g, good_w, 5);
      if (kind == K_R1CS) make_r1cs(&g);
      if (kind == K_ZKEY) make_zkey(&g);
      tfile_dup(&g, id);
      EXPECT(open_tfile(kind, &g), CUZK_FORMAT, want, "appears 2 times");
      tfile_drop(&g, id);
      tfile_drop(&g, id);
      if (optional)
        CHECK_EQ_INT(open_tfile(kind, &g), CUZK_OK);
      else
        EXPECT(open_tfile(kind, &g), CUZK_FORMAT, want, "is missing");
      tfile_free(&g);
    }
    /* unknown sections are skipped */
    buf_put(tfile_add(&f, 77), "x", 1);
    CHECK_EQ_INT(open_tfile(kind, &f), CUZK_OK);

    buf_free(&m);
    buf_free(&b);
    tfile_free(&f);
  }
  tmp_cleanup();
}

TEST(wtns_faults) {
  tfile f;
  /* section 2 size disagrees with nWitness (either way) */
  make_wtns(&f, good_w, 5);
  patch_u32(&f, 1, 36, 6);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "section 2 (witness)", "size 160 bytes",
         "expected 192 (nWitness 6 x n8 32)");
  patch_u32(&f, 1, 36, 4);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "size 160 bytes", "expected 128");
  tfile_free(&f);

  /* values: r - 1 is fine, r and above are not, wherever they are */
  limb_t v[4];
  make_wtns(&f, good_w, 5);
  r_minus(v, 1);
  patch_limbs(&f, 2, 3 * 32, v, 4);
  CHECK_EQ_INT(open_tfile(K_WTNS, &f), CUZK_OK);
  patch_limbs(&f, 2, 3 * 32, bls12_381_fr_modulus, 4);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "section 2 (witness)", "value 3", "not below");
  memset(tfile_get(&f, 2)->d.p + 4 * 32, 0xff, 32);
  patch_limbs(&f, 2, 3 * 32, v, 4);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "value 4 at offset 204");
  tfile_free(&f);

  /* header: field width and size */
  make_wtns(&f, good_w, 5);
  patch_u32(&f, 1, 0, 0);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "section 1 (header)", "n8 = 0");
  patch_u32(&f, 1, 0, 33);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "n8 = 33", "multiple of 8");
  patch_u32(&f, 1, 0, 72);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_UNSUPPORTED, "n8 = 72");
  patch_u32(&f, 1, 0, 40); /* the prime now runs past the section */
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "field prime", "needs 40 bytes", "only 36 left");
  patch_u32(&f, 1, 0, 32);
  buf_zero(&tfile_get(&f, 1)->d, 4);
  EXPECT(open_tfile(K_WTNS, &f), CUZK_FORMAT, "section 1 (header)", "size 44 bytes, expected 40");
  tfile_free(&f);

  /* wtns version 1 (the old layout) */
  make_wtns(&f, good_w, 5);
  f.version = 1;
  EXPECT(open_tfile(K_WTNS, &f), CUZK_UNSUPPORTED, "version 1", "expected 2");
  tfile_free(&f);

  /* other primes open (values checked against them) but are not provable */
  struct {
    const limb_t *p;
    const char *want[2];
  } primes[] = {{bn254_r, {"BN254 is not supported yet", "BN254"}},
                {bn254_q, {"21888242871839275222246405745257275088696311157297823662689037894645226208583",
                           "BN254 q"}}};
  for (int i = 0; i < 2; i++) {
    make_wtns(&f, good_w, 5);
    patch_limbs(&f, 1, 4, primes[i].p, 4);
    buf b = tfile_bytes(&f);
    const char *path = tmp_file("t.wtns");
    write_file(path, b.p, b.n);
    wtns_file w;
    cuzk_err e = {0};
    CHECK_EQ_INT(wtns_open(&w, path, &e), CUZK_OK);
    cuzk_err_clear(&g_err);
    EXPECT(wtns_check_curve(&w, &g_err), CUZK_UNSUPPORTED, primes[i].want[0], primes[i].want[1]);
    wtns_close(&w);
    buf_free(&b);
    tfile_free(&f);
  }
  tmp_cleanup();
}

TEST(r1cs_faults) {
  tfile f;
  const size_t c1a = 3 * (4 + 36); /* payload offset of constraint 1's A nTerms */
  /* a wire id out of range, in constraint 1's second A term */
  make_r1cs(&f);
  patch_u32(&f, 2, c1a + 4 + 36, 5);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "section 2 (constraints)", "constraint 1, A term 1",
         "wire 5, expected < nWires 5");
  tfile_free(&f);

  /* a coefficient equal to the prime */
  make_r1cs(&f);
  patch_limbs(&f, 2, c1a + 4 + 36 + 4, bls12_381_fr_modulus, 4);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "constraint 1, A term 1", "coefficient",
         "not below the prime");
  tfile_free(&f);

  /* mConstraints claims more records than the section holds, or fewer */
  make_r1cs(&f);
  patch_u32(&f, 1, 60, 3);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "constraint 2 of 3", "needs 4 bytes, 0 left");
  patch_u32(&f, 1, 60, 1);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "section 2 (constraints)", "trailing");
  tfile_free(&f);

  /* a term count running past the section (and one that would overflow 32 bits) */
  make_r1cs(&f);
  patch_u32(&f, 2, c1a, 5);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "constraint 1, A: 5 terms", "need 180 bytes",
         "152 left");
  patch_u32(&f, 2, c1a, 0xffffffffu);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "4294967295 terms", "need 154618822620 bytes");
  tfile_free(&f);

  /* header: too few wires for the inputs, wrong size, wrong map size */
  make_r1cs(&f);
  patch_u32(&f, 1, 48, 4); /* nPrvIn 4: 1 + 1 + 0 + 4 > 5 */
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "section 1 (header)", "nWires 5", "= 6");
  patch_u32(&f, 1, 48, 2);
  buf_zero(&tfile_get(&f, 1)->d, 8);
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "section 1 (header)", "size 72 bytes, expected 64");
  tfile_get(&f, 1)->d.n -= 8;
  tfile_get(&f, 3)->d.n -= 8;
  EXPECT(open_tfile(K_R1CS, &f), CUZK_FORMAT, "section 3 (wire-to-label map)", "size 32 bytes",
         "expected 40 (nWires 5 x 8)");
  tfile_free(&f);

  /* a BN254 circuit opens but cannot be evaluated here (its coefficient
   * r - 1 of BLS12-381 is not below BN254's r: make it 1) */
  make_r1cs(&f);
  patch_limbs(&f, 1, 4, bn254_r, 4);
  limb_t one[4] = {1};
  patch_limbs(&f, 2, c1a + 4 + 36 + 4, one, 4);
  buf b = tfile_bytes(&f);
  char rpath[128], wpath[128];
  snprintf(rpath, sizeof rpath, "%s", tmp_file("t.r1cs"));
  write_file(rpath, b.p, b.n);
  tfile fw;
  make_wtns(&fw, good_w, 5);
  buf bw = tfile_bytes(&fw);
  snprintf(wpath, sizeof wpath, "%s", tmp_file("t.wtns"));
  write_file(wpath, bw.p, bw.n);
  r1cs_file r;
  wtns_file w;
  cuzk_err e = {0};
  CHECK_EQ_INT(r1cs_open(&r, rpath, &e), CUZK_OK);
  CHECK_EQ_INT(r.prime_id, BINFILE_PRIME_BN254_R);
  CHECK_EQ_INT(wtns_open(&w, wpath, &e), CUZK_OK);
  cuzk_err_clear(&g_err);
  EXPECT(r1cs_check_witness(&r, &w, NULL, &g_err), CUZK_UNSUPPORTED, "BN254");
  r1cs_close(&r);
  wtns_close(&w);
  buf_free(&b);
  buf_free(&bw);
  tfile_free(&fw);
  tfile_free(&f);
  tmp_cleanup();
}

TEST(zkey_faults) {
  tfile f;
  limb_t v[6];

  /* protocol: PLONK, FFLONK, unknown */
  make_zkey(&f);
  patch_u32(&f, 1, 0, 2);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_UNSUPPORTED, "section 1 (protocol)", "is a PLONK key");
  patch_u32(&f, 1, 0, 10);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_UNSUPPORTED, "is a FFLONK key");
  patch_u32(&f, 1, 0, 3);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "protocol 3, expected 1");
  tfile_free(&f);

  /* curve: BN254 (n8q 32) is unsupported; other q or r malformed */
  make_zkey(&f);
  {
    buf *h = &tfile_get(&f, 2)->d;
    h->n = 0;
    buf_u32(h, 32);
    buf_limbs(h, bn254_q, 4);
    buf_u32(h, 32);
    buf_limbs(h, bn254_r, 4);
    buf_zero(h, 12 + 3 * 64 + 3 * 128);
  }
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_UNSUPPORTED, "section 2 (header)",
         "BN254 keys are not supported yet");
  tfile_free(&f);
  make_zkey(&f);
  memcpy(v, bls12_381_fp_modulus, 48);
  v[0] += 2;
  patch_limbs(&f, 2, 4, v, 6);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "n8q 48, q = ", "expected BLS12-381's p");
  patch_limbs(&f, 2, 4, bls12_381_fp_modulus, 6);
  patch_limbs(&f, 2, 56, bn254_r, 4);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "n8r 32, r = 2188824287183927522224640574525727508854",
         "expected BLS12-381's r");
  patch_limbs(&f, 2, 56, bls12_381_fr_modulus, 4);
  patch_u32(&f, 2, 0, 40);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "n8q 40");
  tfile_free(&f);

  /* domainSize, nVars, nPublic */
  make_zkey(&f);
  patch_u32(&f, 2, ZH_DOMAIN, 6);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "domainSize 6", "power of two");
  patch_u32(&f, 2, ZH_DOMAIN, 0);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "domainSize 0", "power of two");
  patch_u32(&f, 2, ZH_DOMAIN, 1u << 29);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "domainSize 536870912", "<= 2^28");
  patch_u32(&f, 2, ZH_DOMAIN, 8); /* valid, but H holds 4 points */
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 9 (H): size 384 bytes",
         "expected 768 (domainSize 8 x 96)");
  patch_u32(&f, 2, ZH_DOMAIN, 4);
  patch_u32(&f, 2, ZH_NPUBLIC, 5);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "nVars 5, expected more than nPublic 5");
  patch_u32(&f, 2, ZH_NPUBLIC, 4);
  patch_u32(&f, 2, ZH_NVARS, 9);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "domainSize 4, expected more than nPublic 4");
  patch_u32(&f, 2, ZH_NPUBLIC, 1);
  patch_u32(&f, 2, ZH_NVARS, 0xffffffffu);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 5 (A): size 480 bytes",
         "expected 412316860320 (nVars 4294967295 x 96)");
  patch_u32(&f, 2, ZH_NVARS, 5);
  CHECK_EQ_INT(open_tfile(K_ZKEY, &f), CUZK_OK);
  tfile_free(&f);

  /* every point section one point short */
  struct {
    uint32_t id;
    size_t unit;
    const char *want;
  } secs[] = {{3, 96, "section 3 (IC): size 96 bytes, expected 192 (nPublic+1 2 x 96)"},
              {5, 96, "section 5 (A): size 384 bytes, expected 480 (nVars 5 x 96)"},
              {6, 96, "section 6 (B1): size 384 bytes, expected 480 (nVars 5 x 96)"},
              {7, 192, "section 7 (B2): size 768 bytes, expected 960 (nVars 5 x 192)"},
              {8, 96, "section 8 (C): size 192 bytes, expected 288 (nVars-nPublic-1 3 x 96)"},
              {9, 96, "section 9 (H): size 288 bytes, expected 384 (domainSize 4 x 96)"}};
  for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++) {
    make_zkey(&f);
    tfile_get(&f, secs[i].id)->d.n -= secs[i].unit;
    EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, secs[i].want);
    tfile_free(&f);
  }

  /* coefficients: count vs size, then each field of entry 5 */
  make_zkey(&f);
  patch_u32(&f, 4, 0, 8);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 4 (coefficients): size 312 bytes",
         "expected 356 (4 + nCoefs 8 x 44)");
  patch_u32(&f, 4, 0, 0x7fffffffu);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "expected 94489280472");
  patch_u32(&f, 4, 0, 7);
  const size_t e5 = 4 + 5 * 44;
  patch_u32(&f, 4, e5, 2);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "entry 5", "matrix 2, expected 0 (A) or 1 (B)");
  patch_u32(&f, 4, e5, 0);
  patch_u32(&f, 4, e5 + 4, 4);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "entry 5", "row 4, expected < domainSize 4");
  patch_u32(&f, 4, e5 + 4, 2);
  patch_u32(&f, 4, e5 + 8, 5);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "entry 5", "wire 5, expected < nVars 5");
  patch_u32(&f, 4, e5 + 8, 0);
  patch_limbs(&f, 4, e5 + 12, bls12_381_fr_modulus, 4);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "entry 5", "value is not below r");
  tfile_free(&f);

  /* header points: non-canonical, off the curve, infinity */
  make_zkey(&f);
  patch_limbs(&f, 2, ZH_BETA2 + 48, bls12_381_fp_modulus, 6);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 2 (header)", "beta2",
         "coordinate x.c1 is not below q");
  tfile_free(&f);
  make_zkey(&f);
  tfile_get(&f, 2)->d.p[ZH_ALPHA1 + 48] ^= 1;
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "alpha1 at offset", "not on the curve");
  tfile_free(&f);
  make_zkey(&f);
  memset(tfile_get(&f, 2)->d.p + ZH_DELTA2, 0, 192);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "delta2", "point at infinity");
  tfile_free(&f);

  /* IC is checked at open (the verification key comes from it) */
  make_zkey(&f);
  tfile_get(&f, 3)->d.p[0] ^= 1;
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 3 (IC): point 0", "not on the curve");
  tfile_free(&f);

  /* contributions: bad parameter tags, count past the section */
  make_zkey(&f);
  tsec *t = tfile_get(&f, 10);
  t->d.p[t->d.n - 2] = 1; /* tag 1 after tag 1 */
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 10 (contributions)", "contribution 0",
         "not increasing");
  t->d.p[t->d.n - 2] = 2;
  t->d.p[t->d.n - 7] = 9; /* name length past paramLen */
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "contribution 0", "runs past paramLen");
  t->d.p[t->d.n - 7] = 4;
  patch_u32(&f, 10, 64, 2);
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_FORMAT, "section 10 (contributions)",
         "contribution points and transcript");
  tfile_free(&f);

  /* zkey version 2 is what snarkjs's prover still accepts */
  make_zkey(&f);
  f.version = 2;
  CHECK_EQ_INT(open_tfile(K_ZKEY, &f), CUZK_OK);
  f.version = 3;
  EXPECT(open_tfile(K_ZKEY, &f), CUZK_UNSUPPORTED, "version 3", "expected 1 to 2");
  tfile_free(&f);
  tmp_cleanup();
}

/* Random corruption: any status, but never a crash, never OK with a
 * message, never a failure without one.  Run under ASan this checks every
 * read stays in bounds. */
TEST_TIMEOUT(random_corruption_is_handled, 300) {
  test_rng g = {test_stream_seed(20240501)};
  for (int kind = 0; kind < 3; kind++) {
    tfile f;
    if (kind == K_WTNS) make_wtns(&f, good_w, 5);
    if (kind == K_R1CS) make_r1cs(&f);
    if (kind == K_ZKEY) make_zkey(&f);
    buf b = tfile_bytes(&f);
    int counts[CUZK_STATUS_COUNT] = {0};
    for (int it = 0; it < 3000; it++) {
      buf m = {0};
      buf_put(&m, b.p, b.n);
      int flips = 1 + (int)(test_rng_next(&g) % 4);
      for (int k = 0; k < flips; k++) {
        size_t at = test_rng_next(&g) % m.n;
        uint64_t r = test_rng_next(&g);
        /* bias towards the table and small values, which reach further */
        if (r & 1)
          m.p[at] = (uint8_t)(r >> 8);
        else
          m.p[at] ^= (uint8_t)(1u << ((r >> 8) % 8));
      }
      if (test_rng_next(&g) % 8 == 0) m.n = test_rng_next(&g) % m.n;
      cuzk_status st = open_bytes(kind, m.p, m.n);
      CHECK(st < CUZK_STATUS_COUNT);
      counts[st]++;
      if (st != CUZK_OK) CHECK_MSG(g_err.msg[0], "status %s without a message", cuzk_status_name(st));
      buf_free(&m);
    }
    printf("  %s: ok %d, format %d, unsupported %d\n", kind_file[kind], counts[CUZK_OK],
           counts[CUZK_FORMAT], counts[CUZK_UNSUPPORTED]);
    CHECK_EQ_INT(counts[CUZK_IO] + counts[CUZK_NO_MEMORY] + counts[CUZK_INTERNAL], 0);
    buf_free(&b);
    tfile_free(&f);
  }
  tmp_cleanup();
}

/* Sections beyond 4 GiB: a sparse file with a 5 GiB padding section (unknown
 * id, skipped) ahead of the witness; only the table and the sections read
 * are touched. */
TEST(offsets_beyond_4gib) {
  const uint64_t pad = 5ULL << 30;
  tfile f;
  make_wtns(&f, good_w, 5);
  buf b = tfile_bytes(&f);
  const char *path = tmp_file("t.wtns");
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  CHECK(fd >= 0);
  /* header with 3 sections: 99 (pad), then the two real ones */
  uint8_t hdr[24];
  memcpy(hdr, "wtns", 4);
  wr_u32le(hdr + 4, 2);
  wr_u32le(hdr + 8, 3);
  wr_u32le(hdr + 12, 99);
  wr_u64le(hdr + 16, pad);
  bool ok = pwrite(fd, hdr, 24, 0) == 24 &&
            pwrite(fd, b.p + 12, b.n - 12, (off_t)(24 + pad)) == (ssize_t)(b.n - 12);
  int e_ = errno;
  close(fd);
  if (!ok) {
    unlink(path);
    TEST_SKIP("cannot write a sparse %llu-byte file: %s", (unsigned long long)pad, strerror(e_));
  }
  wtns_file w;
  cuzk_err e = {0};
  cuzk_status st = wtns_open(&w, path, &e);
  CHECK_MSG(st == CUZK_OK, "%s", e.msg);
  CHECK_EQ_INT(w.bf.n_sections, 3);
  CHECK_EQ_INT(w.bf.sections[0].size, pad);
  CHECK(w.bf.sections[1].offset > (1ULL << 32));
  CHECK_EQ_INT(w.bf.sections[2].offset, 24 + pad + 12 + 40 + 12);
  CHECK_EQ_INT(w.n_witness, 5);
  CHECK_EQ_INT(rd_u64le(wtns_value(&w, 1)), 33);
  wtns_close(&w);
  unlink(path);
  buf_free(&b);
  tfile_free(&f);
  tmp_cleanup();
}

/* ------------------------------------------------- snarkjs fixtures */

static bool exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  buf b = {0};
  char tmp[4096];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) buf_put(&b, tmp, n);
  fclose(f);
  buf_put(&b, "", 1);
  return (char *)b.p;
}

/* The decimal text of a Montgomery Fp element appears in the JSON. */
static void check_dec_in(const char *json, const bls12_381_fp *x, const char *what) {
  limb_t c[6];
  char dec[130], q[134];
  bls12_381_fp_to_canon(c, x);
  limbs_to_dec(dec, c, 6);
  snprintf(q, sizeof q, "\"%s\"", dec);
  CHECK_MSG(strstr(json, q), "%s = %s not in verification_key.json", what, dec);
}

/* One fixture directory: circuit.zkey, witness.wtns, <name>.r1cs, info.txt
 * (zkey_info.mjs) and verification_key.json from tests/oracle/make_fixtures.sh. */
static void check_fixture(const char *dir, const char *name) {
  char p[512];
  cuzk_err e = {0};
  printf("  %s\n", dir);
  unsigned nc = 0, npi = 0, nout = 0, npub = 0, nvars = 0, nwires = 0, dom = 0;
  snprintf(p, sizeof p, "%s/info.txt", dir);
  char *info = read_text(p);
  bool have_info = info && sscanf(info,
                                  "nConstraints=%u nPubInputs=%u nOutputs=%u nPublic=%u "
                                  "nVars=%u nWires=%u domainSize=%u",
                                  &nc, &npi, &nout, &npub, &nvars, &nwires, &dom) == 7;
  free(info);

  zkey_file z;
  snprintf(p, sizeof p, "%s/circuit.zkey", dir);
  bool have_zkey = exists(p);
  if (have_zkey) {
    CHECK_MSG(zkey_open(&z, p, &e) == CUZK_OK, "%s", e.msg);
    CHECK_EQ_INT(zkey_validate_points(&z, 0, &e), CUZK_OK);
    CHECK(z.has_contributions);
    CHECK(z.n_contributions >= 1); /* make_fixtures contributes once */
    if (have_info) {
      CHECK_EQ_INT(z.n_vars, nvars);
      CHECK_EQ_INT(z.n_public, npub);
      CHECK_EQ_INT(z.domain_size, dom);
      /* A and B terms of each constraint plus nPublic+1 input rows */
      CHECK(z.n_coefs >= (uint64_t)npub + 1);
    }
    snprintf(p, sizeof p, "%s/verification_key.json", dir);
    char *vkj = read_text(p);
    if (vkj) {
      groth16_vk vk;
      CHECK_EQ_INT(zkey_read_vk(&z, &vk, &e), CUZK_OK);
      check_dec_in(vkj, &vk.alpha1.x, "alpha1.x");
      check_dec_in(vkj, &vk.alpha1.y, "alpha1.y");
      check_dec_in(vkj, &vk.beta2.x.c1, "beta2.x.c1");
      check_dec_in(vkj, &vk.delta2.y.c0, "delta2.y.c0");
      check_dec_in(vkj, &vk.gamma2.x.c0, "gamma2.x.c0");
      for (size_t i = 0; i <= vk.n_public; i++)
        if (!bls12_381_g1_aff_is_inf(&vk.ic[i])) check_dec_in(vkj, &vk.ic[i].x, "IC x");
      groth16_vk_fini(&vk);
      free(vkj);
    }
  }

  wtns_file w;
  snprintf(p, sizeof p, "%s/witness.wtns", dir);
  bool have_w = exists(p);
  if (have_w) {
    CHECK_MSG(wtns_open(&w, p, &e) == CUZK_OK, "%s", e.msg);
    CHECK_EQ_INT(wtns_check_curve(&w, &e), CUZK_OK);
    if (have_info) CHECK_EQ_INT(w.n_witness, nwires);
    if (have_zkey) CHECK_MSG(zkey_check_witness(&z, &w, &e) == CUZK_OK, "%s", e.msg);
  }

  r1cs_file r;
  snprintf(p, sizeof p, "%s/%s.r1cs", dir, name);
  if (exists(p)) {
    CHECK_MSG(r1cs_open(&r, p, &e) == CUZK_OK, "%s", e.msg);
    CHECK_EQ_INT(r.prime_id, BINFILE_PRIME_BLS12_381_R);
    if (have_info) {
      CHECK_EQ_INT(r.n_constraints, nc);
      CHECK_EQ_INT(r.n_pub_in, npi);
      CHECK_EQ_INT(r.n_pub_out, nout);
      CHECK_EQ_INT(r.n_wires, nwires);
    }
    if (have_zkey) {
      /* zkey new: one entry per A and B term, plus the input rows */
      uint64_t ab = 0;
      r1cs_iter it;
      r1cs_constraint k;
      r1cs_iter_init(&it, &r);
      while (r1cs_iter_next(&it, &k)) ab += k.a.n_terms + k.b.n_terms;
      CHECK_EQ_INT(z.n_coefs, ab + z.n_public + 1);
    }
    if (have_w) {
      size_t bad = 0;
      CHECK_MSG(r1cs_check_witness(&r, &w, &bad, &e) == CUZK_OK, "%s", e.msg);
      snprintf(p, sizeof p, "%s/witness_bad.wtns", dir);
      wtns_file wb;
      if (exists(p)) {
        CHECK_MSG(wtns_open(&wb, p, &e) == CUZK_OK, "%s", e.msg);
        cuzk_status st = r1cs_check_witness(&r, &wb, &bad, &e);
        CHECK_EQ_INT(st, CUZK_UNSATISFIED);
        printf("    witness_bad.wtns: %s\n", e.msg);
        wtns_close(&wb);
      }
    }
    r1cs_close(&r);
  }
  if (have_w) wtns_close(&w);
  if (have_zkey) zkey_close(&z);
}

TEST_TIMEOUT(snarkjs_fixtures, 300) {
  static const char *const circuits[] = {"mul", "nopub", "manypub", "chain_1k", "chain_16k",
                                         "chain_64k"};
  char dir[512];
  int found = 0;
  for (size_t i = 0; i < sizeof circuits / sizeof circuits[0]; i++) {
    snprintf(dir, sizeof dir, "%s/build/oracle/%s", test_srcdir(), circuits[i]);
    if (!exists(dir)) continue;
    check_fixture(dir, circuits[i]);
    found++;
  }
  snprintf(dir, sizeof dir, "%s/examples/mul", test_srcdir());
  char zk[600];
  snprintf(zk, sizeof zk, "%s/circuit.zkey", dir);
  if (exists(zk)) {
    check_fixture(dir, "mul");
    found++;
  }
  if (!found)
    TEST_SKIP("no fixtures under %s/build/oracle (run tests/oracle/make_fixtures.sh build/oracle)"
              " or %s/examples/mul",
              test_srcdir(), test_srcdir());
}
