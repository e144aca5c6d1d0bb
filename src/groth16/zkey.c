/* snarkjs Groth16 .zkey reader: see zkey.h for what open guarantees. */
#include "groth16/zkey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"

typedef unsigned long long ull;

static const char *const sec_name[11] = {
    "?", "protocol", "header", "IC", "coefficients", "A", "B1", "B2", "C", "H", "contributions",
};

/* ---------------------------------------------------------- scanning */

/* Reason codes for a bad item: 0 = good; ZK_COORD + k = coordinate k not
 * below q (k indexes G1 {x, y} or G2 {x.c0, x.c1, y.c0, y.c1}); ZK_CURVE =
 * not on the curve; ZK_SUBGROUP = not in the prime-order subgroup; for
 * coefficient entries ZK_MATRIX, ZK_ROW, ZK_WIRE, ZK_VALUE. */
enum { ZK_OK = 0, ZK_COORD = 1, ZK_CURVE = 8, ZK_SUBGROUP, ZK_MATRIX, ZK_ROW, ZK_WIRE, ZK_VALUE };

static const char *const g1_coord[2] = {"x", "y"};
static const char *const g2_coord[4] = {"x.c0", "x.c1", "y.c0", "y.c1"};

static int g1_check(const uint8_t *b, bls12_381_g1_aff *p) {
  zkey_g1_decode(p, b);
  if (!bls12_381_fp_canon_ok(p->x.l)) return ZK_COORD + 0;
  if (!bls12_381_fp_canon_ok(p->y.l)) return ZK_COORD + 1;
  return bls12_381_g1_aff_is_on_curve(p) ? ZK_OK : ZK_CURVE;
}

static int g2_check(const uint8_t *b, bls12_381_g2_aff *p) {
  zkey_g2_decode(p, b);
  const limb_t *c[4] = {p->x.c0.l, p->x.c1.l, p->y.c0.l, p->y.c1.l};
  for (int k = 0; k < 4; k++)
    if (!bls12_381_fp_canon_ok(c[k])) return ZK_COORD + k;
  return bls12_381_g2_aff_is_on_curve(p) ? ZK_OK : ZK_CURVE;
}

/* "coordinate y.c1 is not below q" etc. */
static const char *reason_text(int why, bool g2, char *buf, size_t n) {
  if (why >= ZK_COORD && why < ZK_CURVE) {
    snprintf(buf, n, "coordinate %s is not below q (not a Montgomery Fp element)",
             g2 ? g2_coord[why - ZK_COORD] : g1_coord[why - ZK_COORD]);
    return buf;
  }
  switch (why) {
  case ZK_CURVE: return "not on the curve";
  case ZK_SUBGROUP: return "not in the prime-order subgroup";
  default: return "bad";
  }
}

/* Finds the first i in [0, n) with check(ctx, i) != 0 using up to `threads`
 * workers, each scanning a contiguous range and stopping at its first bad
 * item; the lowest worker that found one holds the overall first.  Returns
 * n when every item is good. */
typedef int (*scan_fn)(const void *ctx, uint64_t i);
typedef struct {
  scan_fn fn;
  const void *ctx;
  uint64_t n;
  uint64_t *bad; /* per worker */
  int *why;
} scan_job;

static void scan_worker(void *v, unsigned idx, unsigned nw) {
  scan_job *j = v;
  size_t lo, hi;
  par_range((size_t)j->n, idx, nw, &lo, &hi);
  j->bad[idx] = j->n;
  for (uint64_t i = lo; i < hi; i++) {
    int w = j->fn(j->ctx, i);
    if (w) {
      j->bad[idx] = i;
      j->why[idx] = w;
      return;
    }
  }
}

#define SCAN_MAX_THREADS 256
/* Below this many items per thread, thread start-up costs more than it saves. */
#define SCAN_MIN_PER_THREAD 16384

static uint64_t scan_first_bad(uint64_t n, unsigned threads, scan_fn fn, const void *ctx,
                               int *why) {
  if (threads == 0) threads = par_threads();
  if (threads > SCAN_MAX_THREADS) threads = SCAN_MAX_THREADS;
  if (n / SCAN_MIN_PER_THREAD < threads) threads = (unsigned)(n / SCAN_MIN_PER_THREAD);
  if (threads == 0) threads = 1;
  uint64_t bad[SCAN_MAX_THREADS];
  int whys[SCAN_MAX_THREADS];
  scan_job j = {fn, ctx, n, bad, whys};
  par_run(threads, scan_worker, &j);
  for (unsigned t = 0; t < threads; t++)
    if (bad[t] < n) {
      *why = whys[t];
      return bad[t];
    }
  return n;
}

typedef struct {
  const uint8_t *base;
} pts_ctx;

static int scan_g1(const void *v, uint64_t i) {
  bls12_381_g1_aff p;
  return g1_check(((const pts_ctx *)v)->base + i * ZKEY_G1_BYTES, &p);
}
static int scan_g2(const void *v, uint64_t i) {
  bls12_381_g2_aff p;
  return g2_check(((const pts_ctx *)v)->base + i * ZKEY_G2_BYTES, &p);
}

typedef struct {
  const uint8_t *base;
  uint32_t domain_size, n_vars;
} coef_ctx;

static int scan_coef(const void *v, uint64_t i) {
  const coef_ctx *c = v;
  const uint8_t *e = c->base + i * ZKEY_COEF_BYTES;
  if (rd_u32le(e) > 1) return ZK_MATRIX;
  if (rd_u32le(e + 4) >= c->domain_size) return ZK_ROW;
  if (rd_u32le(e + 8) >= c->n_vars) return ZK_WIRE;
  limb_t x[4];
  limbs_from_le(x, e + 12, 4);
  return bls12_381_fr_canon_ok(x) ? ZK_OK : ZK_VALUE;
}

/* ------------------------------------------------------------ header */

static cuzk_status read_protocol(zkey_file *z, cuzk_err *err) {
  const binfile_section *s;
  CUZK_TRY(binfile_section_get(&z->bf, 1, sec_name[1], true, &s, err));
  binfile_cur c;
  binfile_cur_init(&c, &z->bf, s, sec_name[1]);
  CUZK_TRY(binfile_cur_u32(&c, "protocol", &z->protocol, err));
  CUZK_TRY(binfile_cur_end(&c, err));
  switch (z->protocol) {
  case 1: return CUZK_OK;
  case 2:
  case 10:
    return binfile_fail(&z->bf, s, sec_name[1], err, CUZK_UNSUPPORTED,
                        "protocol %u: this is a %s key; cuzk proves Groth16 (protocol 1) only",
                        z->protocol, z->protocol == 2 ? "PLONK" : "FFLONK");
  default:
    return binfile_fail(&z->bf, s, sec_name[1], err, CUZK_FORMAT,
                        "protocol %u, expected 1 (Groth16; 2 = PLONK, 10 = FFLONK)", z->protocol);
  }
}

/* One header point: canonical, on the curve, not infinity. */
static cuzk_status header_point(zkey_file *z, binfile_cur *c, const char *name, bool g2,
                                void *out, cuzk_err *err) {
  const uint8_t *p = NULL;
  uint64_t at = c->s->offset + c->pos;
  CUZK_TRY(binfile_cur_take(c, g2 ? ZKEY_G2_BYTES : ZKEY_G1_BYTES, name, &p, err));
  int why = g2 ? g2_check(p, out) : g1_check(p, out);
  char buf[96];
  if (why != ZK_OK)
    return binfile_fail(&z->bf, c->s, sec_name[2], err, CUZK_FORMAT, "%s at offset %llu: %s",
                        name, (ull)at, reason_text(why, g2, buf, sizeof buf));
  if (g2 ? bls12_381_g2_aff_is_inf(out) : bls12_381_g1_aff_is_inf(out))
    return binfile_fail(&z->bf, c->s, sec_name[2], err, CUZK_FORMAT,
                        "%s at offset %llu is the point at infinity", name, (ull)at);
  return CUZK_OK;
}

static cuzk_status read_header(zkey_file *z, cuzk_err *err) {
  const binfile *f = &z->bf;
  const binfile_section *s;
  CUZK_TRY(binfile_section_get(f, 2, sec_name[2], true, &s, err));
  binfile_cur c;
  binfile_cur_init(&c, f, s, sec_name[2]);
  limb_t q[BINFILE_MAX_LIMBS], r[BINFILE_MAX_LIMBS];
  char dec[20 * BINFILE_MAX_LIMBS + 1];

  CUZK_TRY(binfile_cur_prime(&c, "n8q", "q", &z->n8q, q, err));
  binfile_prime qid = binfile_prime_identify(q, z->n8q);
  if (qid == BINFILE_PRIME_BN254_Q)
    return binfile_fail(f, s, sec_name[2], err, CUZK_UNSUPPORTED,
                        "q is BN254's base field (n8q 32): BN254 keys are not supported yet");
  if (qid != BINFILE_PRIME_BLS12_381_Q) {
    binfile_prime_dec(dec, q, z->n8q);
    return binfile_fail(f, s, sec_name[2], err, CUZK_FORMAT,
                        "n8q %u, q = %s: expected BLS12-381's p (n8q 48) or BN254's (n8q 32)",
                        z->n8q, dec);
  }
  memcpy(z->q, q, sizeof z->q);

  uint64_t r_at = s->offset + c.pos;
  CUZK_TRY(binfile_cur_prime(&c, "n8r", "r", &z->n8r, r, err));
  if (binfile_prime_identify(r, z->n8r) != BINFILE_PRIME_BLS12_381_R) {
    binfile_prime_dec(dec, r, z->n8r);
    return binfile_fail(f, s, sec_name[2], err, CUZK_FORMAT,
                        "n8r %u, r = %s at offset %llu: expected BLS12-381's r (n8r 32) to go "
                        "with its q",
                        z->n8r, dec, (ull)r_at);
  }
  memcpy(z->r, r, sizeof z->r);

  CUZK_TRY(binfile_cur_u32(&c, "nVars", &z->n_vars, err));
  CUZK_TRY(binfile_cur_u32(&c, "nPublic", &z->n_public, err));
  uint64_t d_at = s->offset + c.pos;
  CUZK_TRY(binfile_cur_u32(&c, "domainSize", &z->domain_size, err));
  CUZK_TRY(header_point(z, &c, "alpha1", false, &z->alpha1, err));
  CUZK_TRY(header_point(z, &c, "beta1", false, &z->beta1, err));
  CUZK_TRY(header_point(z, &c, "beta2", true, &z->beta2, err));
  CUZK_TRY(header_point(z, &c, "gamma2", true, &z->gamma2, err));
  CUZK_TRY(header_point(z, &c, "delta1", false, &z->delta1, err));
  CUZK_TRY(header_point(z, &c, "delta2", true, &z->delta2, err));
  CUZK_TRY(binfile_cur_end(&c, err));

  uint32_t d = z->domain_size;
  if (d == 0 || (d & (d - 1)) != 0 || d > (1u << ZKEY_MAX_LG_DOMAIN))
    return binfile_fail(f, s, sec_name[2], err, CUZK_FORMAT,
                        "domainSize %u at offset %llu, expected a power of two <= 2^%d", d,
                        (ull)d_at, ZKEY_MAX_LG_DOMAIN);
  z->lg_domain = (unsigned)__builtin_ctz(d);
  if (z->n_vars <= z->n_public)
    return binfile_fail(f, s, sec_name[2], err, CUZK_FORMAT,
                        "nVars %u, expected more than nPublic %u (wire 0 plus the public ones)",
                        z->n_vars, z->n_public);
  if (d <= z->n_public)
    return binfile_fail(f, s, sec_name[2], err, CUZK_FORMAT,
                        "domainSize %u, expected more than nPublic %u (one row per public "
                        "input and the constant)",
                        d, z->n_public);
  return CUZK_OK;
}

/* -------------------------------------------------------- other sections */

static cuzk_status sized_section(zkey_file *z, uint32_t id, uint64_t count, uint64_t unit,
                                 const char *count_text, const uint8_t **out, cuzk_err *err) {
  const binfile_section *s;
  CUZK_TRY(binfile_section_get(&z->bf, id, sec_name[id], true, &s, err));
  uint64_t want = count * unit; /* count < 2^32, unit <= 192: no overflow */
  if (s->size != want)
    return binfile_fail(&z->bf, s, sec_name[id], err, CUZK_FORMAT,
                        "size %llu bytes, expected %llu (%s %llu x %llu)", (ull)s->size, (ull)want,
                        count_text, (ull)count, (ull)unit);
  *out = binfile_data(&z->bf, s);
  return CUZK_OK;
}

static cuzk_status read_coefs(zkey_file *z, cuzk_err *err) {
  const binfile *f = &z->bf;
  const binfile_section *s;
  CUZK_TRY(binfile_section_get(f, 4, sec_name[4], true, &s, err));
  binfile_cur c;
  binfile_cur_init(&c, f, s, sec_name[4]);
  uint32_t n;
  CUZK_TRY(binfile_cur_u32(&c, "nCoefs", &n, err));
  uint64_t want = 4 + (uint64_t)n * ZKEY_COEF_BYTES;
  if (s->size != want)
    return binfile_fail(f, s, sec_name[4], err, CUZK_FORMAT,
                        "size %llu bytes, expected %llu (4 + nCoefs %u x %d)", (ull)s->size,
                        (ull)want, n, ZKEY_COEF_BYTES);
  z->n_coefs = n;
  z->coefs = binfile_data(f, s) + 4;
  if (!f->borrowed) { /* mapped: check, and later read, a copy of our own (zkey.h) */
    size_t bytes = (size_t)n * ZKEY_COEF_BYTES; /* <= the file's size: checked above */
    if (!(z->coefs_owned = malloc(bytes ? bytes : 1)))
      return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for a copy of the %u coefficients "
                          "(%zu bytes)", binfile_path(f), n, bytes);
    memcpy(z->coefs_owned, z->coefs, bytes);
    z->coefs = z->coefs_owned;
  }
  coef_ctx cc = {z->coefs, z->domain_size, z->n_vars};
  int why = 0;
  uint64_t i = scan_first_bad(n, 0, scan_coef, &cc, &why);
  if (i == n)
    return CUZK_OK;
  const uint8_t *e = z->coefs + i * ZKEY_COEF_BYTES;
  ull at = (ull)(s->offset + 4 + i * ZKEY_COEF_BYTES);
  switch (why) {
  case ZK_MATRIX:
    return binfile_fail(f, s, sec_name[4], err, CUZK_FORMAT,
                        "entry %llu at offset %llu: matrix %u, expected 0 (A) or 1 (B)", (ull)i,
                        at, rd_u32le(e));
  case ZK_ROW:
    return binfile_fail(f, s, sec_name[4], err, CUZK_FORMAT,
                        "entry %llu at offset %llu: row %u, expected < domainSize %u", (ull)i, at,
                        rd_u32le(e + 4), z->domain_size);
  case ZK_WIRE:
    return binfile_fail(f, s, sec_name[4], err, CUZK_FORMAT,
                        "entry %llu at offset %llu: wire %u, expected < nVars %u", (ull)i, at,
                        rd_u32le(e + 8), z->n_vars);
  default:
    return binfile_fail(f, s, sec_name[4], err, CUZK_FORMAT,
                        "entry %llu at offset %llu: value is not below r", (ull)i, at + 12);
  }
}

/* IC is small and part of the verification key: checked at open. */
static cuzk_status check_ic(zkey_file *z, cuzk_err *err) {
  const binfile_section *s;
  CUZK_TRY(binfile_section_get(&z->bf, 3, sec_name[3], true, &s, err));
  for (uint64_t i = 0; i < z->n_ic; i++) {
    bls12_381_g1_aff p;
    int why = g1_check(z->ic + i * ZKEY_G1_BYTES, &p);
    char buf[96];
    if (why != ZK_OK)
      return binfile_fail(&z->bf, s, sec_name[3], err, CUZK_FORMAT, "point %llu at offset %llu: %s",
                          (ull)i, (ull)(s->offset + i * ZKEY_G1_BYTES),
                          reason_text(why, false, buf, sizeof buf));
  }
  return CUZK_OK;
}

/* Section 10: csHash (64), u32 n, n records of {deltaAfter, g1_s, g1_sx (G1),
 * g2_spx (G2), transcript (64), u32 type, u32 paramLen, paramLen bytes of
 * TLV parameters with strictly increasing tags: 1 name (u8 len + bytes),
 * 2 numIterationsExp (u8), 3 beaconHash (u8 len + bytes)}. */
static cuzk_status read_contributions(zkey_file *z, cuzk_err *err) {
  const binfile *f = &z->bf;
  const binfile_section *s;
  CUZK_TRY(binfile_section_get(f, 10, sec_name[10], false, &s, err));
  if (!s)
    return CUZK_OK;
  binfile_cur c;
  binfile_cur_init(&c, f, s, sec_name[10]);
  const uint8_t *p = NULL;
  CUZK_TRY(binfile_cur_take(&c, 64, "csHash", &z->cs_hash, err));
  CUZK_TRY(binfile_cur_u32(&c, "n (contribution count)", &z->n_contributions, err));
  for (uint32_t i = 0; i < z->n_contributions; i++) {
    uint32_t type, plen;
    CUZK_TRY(binfile_cur_take(&c, 3 * ZKEY_G1_BYTES + ZKEY_G2_BYTES + 64,
                              "contribution points and transcript", &p, err));
    CUZK_TRY(binfile_cur_u32(&c, "contribution type", &type, err));
    CUZK_TRY(binfile_cur_u32(&c, "paramLen", &plen, err));
    uint64_t at = s->offset + c.pos;
    CUZK_TRY(binfile_cur_take(&c, plen, "contribution parameters", &p, err));
    unsigned last = 0;
    for (uint32_t k = 0; k < plen;) {
      unsigned tag = p[k++];
      uint32_t len = tag == 2 ? 1 : (k < plen ? 1u + p[k] : 1u);
      if (tag <= last || tag > 3 || len > plen - k)
        return binfile_fail(f, s, sec_name[10], err, CUZK_FORMAT,
                            "contribution %u: parameter at offset %llu: %s", i,
                            (ull)(at + k - 1),
                            tag <= last || tag > 3 ? "tag not in 1..3 or not increasing"
                                                   : "runs past paramLen");
      last = tag;
      k += len;
    }
  }
  z->has_contributions = true;
  return binfile_cur_end(&c, err);
}

static cuzk_status zkey_parse(zkey_file *z, cuzk_err *err);

/* Sections 1 and 2 of the opened container, which it then closes. */
static cuzk_status header_only(zkey_file *z, cuzk_err *err) {
  cuzk_status st = read_protocol(z, err);
  if (st == CUZK_OK)
    st = read_header(z, err);
  if (st == CUZK_OK)
    st = zkey_check_unchanged(z, err);
  binfile_close(&z->bf);
  return st;
}

cuzk_status zkey_read_header(zkey_file *z, const char *path, cuzk_err *err) {
  memset(z, 0, sizeof *z);
  CUZK_TRY(binfile_open(&z->bf, path, "zkey", 1, 2, err));
  return header_only(z, err);
}

cuzk_status zkey_read_header_mem(zkey_file *z, const void *data, size_t len, const char *name,
                                 cuzk_err *err) {
  memset(z, 0, sizeof *z);
  CUZK_TRY(binfile_open_mem(&z->bf, data, len, name, "zkey", 1, 2, err));
  return header_only(z, err);
}

cuzk_status zkey_open(zkey_file *z, const char *path, cuzk_err *err) {
  memset(z, 0, sizeof *z);
  CUZK_TRY(binfile_open(&z->bf, path, "zkey", 1, 2, err));
  return zkey_parse(z, err);
}

cuzk_status zkey_open_mem(zkey_file *z, const void *data, size_t len, const char *name,
                          cuzk_err *err) {
  memset(z, 0, sizeof *z);
  CUZK_TRY(binfile_open_mem(&z->bf, data, len, name, "zkey", 1, 2, err));
  return zkey_parse(z, err);
}

/* Every check of zkey.h over the opened container; closes it on failure. */
static cuzk_status zkey_parse(zkey_file *z, cuzk_err *err) {
  cuzk_status st;
  if ((st = read_protocol(z, err)) != CUZK_OK || (st = read_header(z, err)) != CUZK_OK)
    goto fail;
  z->n_ic = (uint64_t)z->n_public + 1;
  z->n_a = z->n_vars;
  z->n_c = (uint64_t)z->n_vars - z->n_public - 1; /* n_vars > n_public: checked */
  z->n_h = z->domain_size;
  if ((st = sized_section(z, 3, z->n_ic, ZKEY_G1_BYTES, "nPublic+1", &z->ic, err)) != CUZK_OK ||
      (st = read_coefs(z, err)) != CUZK_OK ||
      (st = sized_section(z, 5, z->n_a, ZKEY_G1_BYTES, "nVars", &z->a, err)) != CUZK_OK ||
      (st = sized_section(z, 6, z->n_a, ZKEY_G1_BYTES, "nVars", &z->b1, err)) != CUZK_OK ||
      (st = sized_section(z, 7, z->n_a, ZKEY_G2_BYTES, "nVars", &z->b2, err)) != CUZK_OK ||
      (st = sized_section(z, 8, z->n_c, ZKEY_G1_BYTES, "nVars-nPublic-1", &z->c, err)) !=
          CUZK_OK ||
      (st = sized_section(z, 9, z->n_h, ZKEY_G1_BYTES, "domainSize", &z->h, err)) != CUZK_OK ||
      (st = check_ic(z, err)) != CUZK_OK || (st = read_contributions(z, err)) != CUZK_OK ||
      (st = zkey_check_unchanged(z, err)) != CUZK_OK)
    goto fail;
  return CUZK_OK;
fail:
  zkey_close(z);
  return st;
}

void zkey_close(zkey_file *z) {
  binfile_close(&z->bf);
  free(z->coefs_owned);
  z->coefs_owned = NULL;
  z->ic = z->a = z->b1 = z->b2 = z->c = z->h = z->coefs = z->cs_hash = NULL;
}

cuzk_status zkey_read_vk(const zkey_file *z, groth16_vk *vk, cuzk_err *err) {
  memset(vk, 0, sizeof *vk);
  vk->ic = malloc((size_t)z->n_ic * sizeof *vk->ic);
  if (!vk->ic)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: %llu IC points for the verification key",
                        binfile_path(&z->bf), (ull)z->n_ic);
  for (uint64_t i = 0; i < z->n_ic; i++)
    zkey_g1_decode(&vk->ic[i], z->ic + i * ZKEY_G1_BYTES);
  vk->n_public = z->n_public;
  vk->alpha1 = z->alpha1;
  vk->beta2 = z->beta2;
  vk->gamma2 = z->gamma2;
  vk->delta2 = z->delta2;
  return CUZK_OK;
}

cuzk_status zkey_check_witness(const zkey_file *z, const wtns_file *w, cuzk_err *err) {
  const char *zp = binfile_path(&z->bf), *wp = binfile_path(&w->bf);
  if (w->prime_id != BINFILE_PRIME_BLS12_381_R) {
    if (w->prime_id == BINFILE_PRIME_BN254_R)
      return cuzk_err_set(err, CUZK_UNSUPPORTED,
                          "%s: the witness prime is BN254's r: BN254 is not supported yet", wp);
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: the witness prime (%u bytes, %s) is not the r of %s (BLS12-381 r)",
                        wp, w->n8, binfile_prime_name(w->prime_id), zp);
  }
  if (w->n_witness != z->n_vars)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: nWitness %llu, expected nVars %u of %s", wp, (ull)w->n_witness,
                        z->n_vars, zp);
  return CUZK_OK;
}

/* ------------------------------------------------------ point validation */

static bool find_bad(const zkey_file *z, unsigned threads, uint32_t *section, uint64_t *index,
                     int *why) {
  const bls12_381_g1_aff *h1[3] = {&z->alpha1, &z->beta1, &z->delta1};
  const bls12_381_g2_aff *h2[3] = {&z->beta2, &z->gamma2, &z->delta2};
  static const uint64_t h1_index[3] = {0, 1, 4}, h2_index[3] = {2, 3, 5};
  uint64_t hbad = UINT64_MAX;
  for (int k = 0; k < 3; k++) {
    if (!bls12_381_g1_aff_in_subgroup(h1[k]) && h1_index[k] < hbad) hbad = h1_index[k];
    if (!bls12_381_g2_aff_in_subgroup(h2[k]) && h2_index[k] < hbad) hbad = h2_index[k];
  }
  if (hbad != UINT64_MAX) {
    *section = 2;
    *index = hbad;
    *why = ZK_SUBGROUP;
    return true;
  }
  struct {
    uint32_t id;
    const uint8_t *base;
    uint64_t n;
    bool g2;
  } secs[] = {{3, z->ic, z->n_ic, false}, {5, z->a, z->n_a, false},  {6, z->b1, z->n_a, false},
              {7, z->b2, z->n_a, true},   {8, z->c, z->n_c, false},  {9, z->h, z->n_h, false}};
  for (size_t k = 0; k < sizeof secs / sizeof secs[0]; k++) {
    pts_ctx pc = {secs[k].base};
    uint64_t i = scan_first_bad(secs[k].n, threads, secs[k].g2 ? scan_g2 : scan_g1, &pc, why);
    if (i < secs[k].n) {
      *section = secs[k].id;
      *index = i;
      return true;
    }
  }
  return false;
}

bool zkey_find_bad_point(const zkey_file *z, unsigned threads, uint32_t *section,
                         uint64_t *index) {
  int why;
  return find_bad(z, threads, section, index, &why);
}

cuzk_status zkey_validate_points(const zkey_file *z, unsigned threads, cuzk_err *err) {
  uint32_t sec;
  uint64_t i;
  int why;
  if (!find_bad(z, threads, &sec, &i, &why))
    return CUZK_OK;
  const char *path = binfile_path(&z->bf);
  char buf[96];
  if (sec == 2) {
    static const char *const names[6] = {"alpha1", "beta1", "beta2", "gamma2", "delta1", "delta2"};
    return cuzk_err_set(err, CUZK_FORMAT, "%s: section 2 (header): %s is %s", path, names[i],
                        reason_text(why, false, buf, sizeof buf));
  }
  const binfile_section *s = NULL;
  binfile_section_get(&z->bf, sec, sec_name[sec], true, &s, NULL); /* exists: open checked */
  bool g2 = sec == 7;
  uint64_t off = s ? s->offset + i * (g2 ? ZKEY_G2_BYTES : ZKEY_G1_BYTES) : 0;
  return cuzk_err_set(err, CUZK_FORMAT, "%s: section %u (%s): point %llu at offset %llu: %s", path,
                      sec, sec_name[sec], (ull)i, (ull)off, reason_text(why, g2, buf, sizeof buf));
}
