/* bellperson .vk / .params / proof bytes (see bp.h). */
#include "groth16/bp.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/par.h"
#include "ec/encode.h"
#include "groth16/proof.h"
#include "groth16/verify.h"

#define G1U BLS12_381_G1_UNCOMPRESSED_BYTES
#define G2U BLS12_381_G2_UNCOMPRESSED_BYTES

/* ------------------------------------------------------------ one point */

/* Decodes one uncompressed point, checks on-curve and subgroup unless
 * skip, refuses infinity when no_inf.  On failure err holds the reason
 * alone ("uncompressed G1: not on the curve"); the caller puts the place
 * before it. */
static cuzk_status dec_g1(bls12_381_g1_aff *p, const uint8_t *in, bool skip, bool no_inf,
                          cuzk_err *err) {
  CUZK_TRY(bls12_381_g1_decode_uncompressed(p, in, false, err));
  if (bls12_381_g1_aff_is_inf(p))
    return no_inf ? cuzk_err_set(err, CUZK_FORMAT, "point at infinity (bellperson refuses it here)")
                  : CUZK_OK;
  if (!skip && !bls12_381_g1_aff_is_on_curve(p))
    return cuzk_err_set(err, CUZK_FORMAT, "uncompressed G1: not on the curve");
  if (!skip && !bls12_381_g1_aff_in_subgroup(p))
    return cuzk_err_set(err, CUZK_FORMAT, "uncompressed G1: not in the prime-order subgroup");
  return CUZK_OK;
}

static cuzk_status dec_g2(bls12_381_g2_aff *p, const uint8_t *in, bool skip, bool no_inf,
                          cuzk_err *err) {
  CUZK_TRY(bls12_381_g2_decode_uncompressed(p, in, false, err));
  if (bls12_381_g2_aff_is_inf(p))
    return no_inf ? cuzk_err_set(err, CUZK_FORMAT, "point at infinity (bellperson refuses it here)")
                  : CUZK_OK;
  if (!skip && !bls12_381_g2_aff_is_on_curve(p))
    return cuzk_err_set(err, CUZK_FORMAT, "uncompressed G2: not on the curve");
  if (!skip && !bls12_381_g2_aff_in_subgroup(p))
    return cuzk_err_set(err, CUZK_FORMAT, "uncompressed G2: not in the prime-order subgroup");
  return CUZK_OK;
}

/* ------------------------------------------------------------ vectors */

/* A vector decoded by par_run workers; each keeps its first failure and
 * the lowest failing index wins, so the message does not depend on the
 * thread count. */
#define BP_MAX_WORKERS 256
typedef struct {
  bool g2, skip;
  const uint8_t *src;
  void *dst;
  size_t count;
  struct {
    size_t bad; /* index of the first failure, or SIZE_MAX */
    cuzk_err err;
  } w[BP_MAX_WORKERS];
} vec_job;

static void vec_worker(void *ctx, unsigned idx, unsigned n) {
  vec_job *j = ctx;
  size_t lo, hi;
  par_range(j->count, idx, n, &lo, &hi);
  j->w[idx].bad = SIZE_MAX;
  for (size_t i = lo; i < hi; i++) {
    cuzk_status st =
        j->g2 ? dec_g2((bls12_381_g2_aff *)j->dst + i, j->src + i * G2U, j->skip, true, &j->w[idx].err)
              : dec_g1((bls12_381_g1_aff *)j->dst + i, j->src + i * G1U, j->skip, true, &j->w[idx].err);
    if (st != CUZK_OK) {
      j->w[idx].bad = i;
      return;
    }
  }
}

/* The reading position in a file's bytes. */
/* The reading position in a file: its bytes in memory (fd < 0), or the
 * open file itself, read chunk by chunk with pread, so that reading a key
 * costs its decoded points and one chunk, not the file twice over. */
typedef struct {
  const uint8_t *p; /* fd < 0: the n bytes */
  int fd;
  size_t n, off;
  const char *name;
  bool skip;
  cuzk_err *err;
} cur;

/* Points decoded a chunk at a time: 2^20 (96 or 192 MiB of file). */
#define BP_CHUNK_POINTS ((size_t)1 << 20)

/* *out = the bytes [off, off + len) of the file (off + len <= c->n): in
 * place for memory, else read into buf (len bytes). */
static cuzk_status cur_bytes(cur *c, size_t off, size_t len, uint8_t *buf, const uint8_t **out) {
  if (c->fd < 0) {
    *out = c->p + off;
    return CUZK_OK;
  }
  size_t got = 0;
  while (got < len) {
    ssize_t r = pread(c->fd, buf + got, len - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0)
      return cuzk_err_set(c->err, CUZK_IO, "%s: the file shrank while read (ends before byte offset %zu)",
                          c->name, off + len);
    if (r < 0)
      return cuzk_err_set(c->err, CUZK_IO, "%s: read at byte offset %zu: %s", c->name, off + got,
                          strerror(errno));
    got += (size_t)r;
  }
  *out = buf;
  return CUZK_OK;
}

/* Reads "u32 BE count, count points" of vector what into a malloc'd array. */
static cuzk_status read_vec(cur *c, const char *what, bool g2, void **out, size_t *count) {
  size_t esz = g2 ? G2U : G1U;
  *out = NULL;
  *count = 0;
  if (c->n - c->off < 4)
    return cuzk_err_set(c->err, CUZK_FORMAT,
                        "%s: vector %s: count at byte offset %zu: the file ends there (%zu bytes left, "
                        "4 needed)",
                        c->name, what, c->off, c->n - c->off);
  uint8_t kb[4];
  const uint8_t *b;
  CUZK_TRY(cur_bytes(c, c->off, 4, kb, &b));
  uint32_t k = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
  size_t at = c->off;
  c->off += 4;
  size_t left = c->n - c->off;
  if ((size_t)k > left / esz)
    return cuzk_err_set(c->err, CUZK_FORMAT,
                        "%s: vector %s: count %u at byte offset %zu needs %llu bytes of %zu-byte "
                        "points, only %zu left",
                        c->name, what, k, at, (unsigned long long)k * esz, esz, left);
  if (k == 0) {
    if (!strcmp(what, "ic"))
      return cuzk_err_set(c->err, CUZK_FORMAT,
                          "%s: ic: count 0 at byte offset %zu: at least 1 (the ONE input) expected",
                          c->name, at);
    return CUZK_OK;
  }
  size_t psz = g2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff);
  void *dst = malloc((size_t)k * psz);
  if (!dst)
    return cuzk_err_set(c->err, CUZK_NO_MEMORY, "%s: vector %s: no memory for %u points", c->name,
                        what, k);
  size_t chunk = k < BP_CHUNK_POINTS ? k : BP_CHUNK_POINTS;
  vec_job *j = malloc(sizeof *j);
  uint8_t *buf = c->fd >= 0 ? malloc(chunk * esz) : NULL;
  if (!j || (c->fd >= 0 && !buf)) {
    free(j);
    free(buf);
    free(dst);
    return cuzk_err_set(c->err, CUZK_NO_MEMORY, "%s: vector %s: no memory for a chunk of %zu points",
                        c->name, what, chunk);
  }
  j->g2 = g2;
  j->skip = c->skip;
  cuzk_status st = CUZK_OK;
  for (size_t done = 0; done < k && st == CUZK_OK; done += chunk) {
    if (chunk > k - done)
      chunk = k - done;
    const uint8_t *src;
    if ((st = cur_bytes(c, c->off + done * esz, chunk * esz, buf, &src)) != CUZK_OK)
      break;
    j->src = src;
    j->dst = (uint8_t *)dst + done * psz;
    j->count = chunk;
    /* A worker's share is at least 64 points checked (~10 ms) or 2^16
     * unchecked (a range check each, ~5 ms), so that a small vector does
     * not pay for thread starts. */
    size_t nw = par_threads(), share = c->skip ? (size_t)1 << 16 : 64;
    if (nw > BP_MAX_WORKERS)
      nw = BP_MAX_WORKERS;
    if (nw > (chunk + share - 1) / share)
      nw = (chunk + share - 1) / share;
    par_run((unsigned)nw, vec_worker, j);
    size_t bad = SIZE_MAX, bw = 0;
    for (size_t w = 0; w < nw; w++)
      if (j->w[w].bad < bad) {
        bad = j->w[w].bad;
        bw = w;
      }
    if (bad != SIZE_MAX)
      st = cuzk_err_set(c->err, CUZK_FORMAT, "%s: %s %s, point %zu at byte offset %zu: %s", c->name,
                        strcmp(what, "ic") ? "vector" : "key field", what, done + bad,
                        c->off + (done + bad) * esz, j->w[bw].err.msg);
  }
  free(j);
  free(buf);
  if (st != CUZK_OK) {
    free(dst);
    return st;
  }
  c->off += (size_t)k * esz;
  *out = dst;
  *count = k;
  return CUZK_OK;
}

static cuzk_status read_fixed(cur *c, const char *what, bool g2, void *dst) {
  size_t esz = g2 ? G2U : G1U;
  if (c->n - c->off < esz)
    return cuzk_err_set(c->err, CUZK_FORMAT,
                        "%s: key field %s at byte offset %zu: the file ends there (%zu bytes left, "
                        "%zu needed)",
                        c->name, what, c->off, c->n - c->off, esz);
  uint8_t buf[G2U];
  const uint8_t *src;
  CUZK_TRY(cur_bytes(c, c->off, esz, buf, &src));
  cuzk_err e = {0};
  cuzk_status st = g2 ? dec_g2(dst, src, c->skip, false, &e) : dec_g1(dst, src, c->skip, false, &e);
  if (st != CUZK_OK)
    return cuzk_err_set(c->err, st, "%s: key field %s at byte offset %zu: %s", c->name, what,
                        c->off, e.msg);
  c->off += esz;
  return CUZK_OK;
}

static cuzk_status read_vk(cur *c, bp_vk *vk) {
  CUZK_TRY(read_fixed(c, "alpha_g1", false, &vk->alpha_g1));
  CUZK_TRY(read_fixed(c, "beta_g1", false, &vk->beta_g1));
  CUZK_TRY(read_fixed(c, "beta_g2", true, &vk->beta_g2));
  CUZK_TRY(read_fixed(c, "gamma_g2", true, &vk->gamma_g2));
  CUZK_TRY(read_fixed(c, "delta_g1", false, &vk->delta_g1));
  CUZK_TRY(read_fixed(c, "delta_g2", true, &vk->delta_g2));
  void *ic;
  CUZK_TRY(read_vec(c, "ic", false, &ic, &vk->n_ic));
  vk->ic = ic;
  return CUZK_OK;
}

static cuzk_status no_trailing(const cur *c, const char *after) {
  if (c->off != c->n)
    return cuzk_err_set(c->err, CUZK_FORMAT,
                        "%s: %zu trailing bytes at byte offset %zu after the last vector (%s): "
                        "the file should end there",
                        c->name, c->n - c->off, c->off, after);
  return CUZK_OK;
}

static cuzk_status parse_vk(bp_vk *vk, cur *c) {
  memset(vk, 0, sizeof *vk);
  cuzk_status st = read_vk(c, vk);
  if (st == CUZK_OK)
    st = no_trailing(c, "ic");
  if (st != CUZK_OK)
    bp_vk_free(vk);
  return st;
}

static cuzk_status parse_params(bp_params *pp, cur *c) {
  memset(pp, 0, sizeof *pp);
  void *v;
  cuzk_status st = read_vk(c, &pp->vk);
  if (st == CUZK_OK && (st = read_vec(c, "h", false, &v, &pp->n_h)) == CUZK_OK)
    pp->h = v;
  if (st == CUZK_OK && (st = read_vec(c, "l", false, &v, &pp->n_l)) == CUZK_OK)
    pp->l = v;
  if (st == CUZK_OK && (st = read_vec(c, "a", false, &v, &pp->n_a)) == CUZK_OK)
    pp->a = v;
  if (st == CUZK_OK && (st = read_vec(c, "b_g1", false, &v, &pp->n_b_g1)) == CUZK_OK)
    pp->b_g1 = v;
  if (st == CUZK_OK && (st = read_vec(c, "b_g2", true, &v, &pp->n_b_g2)) == CUZK_OK)
    pp->b_g2 = v;
  if (st == CUZK_OK)
    st = no_trailing(c, "b_g2");
  if (st != CUZK_OK)
    bp_params_free(pp);
  return st;
}

cuzk_status bp_vk_parse(bp_vk *vk, const uint8_t *p, size_t n, const char *name,
                        const bp_read_opts *o, cuzk_err *err) {
  cur c = {p, -1, n, 0, name, o && o->skip_checks, err};
  return parse_vk(vk, &c);
}

cuzk_status bp_params_parse(bp_params *pp, const uint8_t *p, size_t n, const char *name,
                            const bp_read_opts *o, cuzk_err *err) {
  cur c = {p, -1, n, 0, name, o && o->skip_checks, err};
  return parse_params(pp, &c);
}

/* A regular file read through c (fd mode) by parse (parse_vk or
 * parse_params on *out); a file that grows past its fstat size while read
 * is refused (CUZK_IO), one that shrinks fails its read. */
static cuzk_status read_path(const char *path, const bp_read_opts *o, cuzk_err *err, void *out,
                             bool params) {
  int fd;
  struct stat st;
  CUZK_TRY(fileio_open_read(&fd, &st, path, err));
  cur c = {NULL, fd, (size_t)st.st_size, 0, path, o && o->skip_checks, err};
  cuzk_status s = params ? parse_params(out, &c) : parse_vk(out, &c);
  if (s == CUZK_OK) {
    uint8_t extra;
    ssize_t r;
    while ((r = pread(fd, &extra, 1, (off_t)c.n)) < 0 && errno == EINTR) {
    }
    if (r != 0) {
      s = r > 0 ? cuzk_err_set(err, CUZK_IO, "%s: the file grew while read (past %zu bytes)", path, c.n)
                : cuzk_err_set(err, CUZK_IO, "%s: read at byte offset %zu: %s", path, c.n, strerror(errno));
      if (params)
        bp_params_free(out);
      else
        bp_vk_free(out);
    }
  }
  close(fd);
  return s;
}

cuzk_status bp_vk_read(bp_vk *vk, const char *path, const bp_read_opts *o, cuzk_err *err) {
  memset(vk, 0, sizeof *vk);
  return read_path(path, o, err, vk, false);
}

cuzk_status bp_params_read(bp_params *pp, const char *path, const bp_read_opts *o,
                           cuzk_err *err) {
  memset(pp, 0, sizeof *pp);
  return read_path(path, o, err, pp, true);
}

/* ------------------------------------------------------------ encoding */

static uint8_t *put_u32(uint8_t *o, size_t v) {
  o[0] = (uint8_t)(v >> 24);
  o[1] = (uint8_t)(v >> 16);
  o[2] = (uint8_t)(v >> 8);
  o[3] = (uint8_t)v;
  return o + 4;
}

typedef struct {
  bool g2;
  const void *src;
  uint8_t *dst;
  size_t count;
} enc_job;

static void enc_worker(void *ctx, unsigned idx, unsigned n) {
  enc_job *j = ctx;
  size_t lo, hi;
  par_range(j->count, idx, n, &lo, &hi);
  for (size_t i = lo; i < hi; i++)
    if (j->g2)
      bls12_381_g2_encode_uncompressed(j->dst + i * G2U, (const bls12_381_g2_aff *)j->src + i);
    else
      bls12_381_g1_encode_uncompressed(j->dst + i * G1U, (const bls12_381_g1_aff *)j->src + i);
}

static uint8_t *put_vec(uint8_t *o, bool g2, const void *v, size_t count) {
  o = put_u32(o, count);
  enc_job j = {g2, v, o, count};
  size_t nw = par_threads();
  if (nw > (count + 4095) / 4096)
    nw = (count + 4095) / 4096;
  if (nw)
    par_run((unsigned)nw, enc_worker, &j);
  return o + count * (g2 ? G2U : G1U);
}

size_t bp_vk_size(const bp_vk *vk) { return BP_VK_FIXED_BYTES + vk->n_ic * G1U; }

static uint8_t *put_vk(uint8_t *o, const bp_vk *vk) {
  bls12_381_g1_encode_uncompressed(o, &vk->alpha_g1), o += G1U;
  bls12_381_g1_encode_uncompressed(o, &vk->beta_g1), o += G1U;
  bls12_381_g2_encode_uncompressed(o, &vk->beta_g2), o += G2U;
  bls12_381_g2_encode_uncompressed(o, &vk->gamma_g2), o += G2U;
  bls12_381_g1_encode_uncompressed(o, &vk->delta_g1), o += G1U;
  bls12_381_g2_encode_uncompressed(o, &vk->delta_g2), o += G2U;
  return put_vec(o, false, vk->ic, vk->n_ic);
}

void bp_vk_encode(uint8_t *out, const bp_vk *vk) { put_vk(out, vk); }

size_t bp_params_size(const bp_params *pp) {
  return bp_vk_size(&pp->vk) + 5 * 4 + (pp->n_h + pp->n_l + pp->n_a + pp->n_b_g1) * G1U +
         pp->n_b_g2 * G2U;
}

void bp_params_encode(uint8_t *out, const bp_params *pp) {
  uint8_t *o = put_vk(out, &pp->vk);
  o = put_vec(o, false, pp->h, pp->n_h);
  o = put_vec(o, false, pp->l, pp->n_l);
  o = put_vec(o, false, pp->a, pp->n_a);
  o = put_vec(o, false, pp->b_g1, pp->n_b_g1);
  put_vec(o, true, pp->b_g2, pp->n_b_g2);
}

/* The encoding written through a temporary.  The whole encoding is built
 * in memory first: the writers serve development keys (cuzk setup) whose
 * size the caller already holds as points, about 2x the bytes. */
static cuzk_status write_enc(const char *path, size_t size, const bp_vk *vk, const bp_params *pp,
                             cuzk_err *err) {
  uint8_t *b = malloc(size);
  if (!b)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for %zu bytes", path, size);
  if (pp)
    bp_params_encode(b, pp);
  else
    bp_vk_encode(b, vk);
  fileio_out o;
  cuzk_status st = fileio_out_open(&o, path, 0, err);
  if (st == CUZK_OK) {
    st = fileio_write_fd(o.fd, b, size, path, err);
    if (st == CUZK_OK)
      st = fileio_out_commit(&o, err);
    else
      fileio_out_abort(&o);
  }
  free(b);
  return st;
}

static cuzk_status count_ok(size_t n, const char *what, const char *path, cuzk_err *err) {
  if (n > UINT32_MAX)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: vector %s has %zu points, over the u32 count",
                        path, what, n);
  return CUZK_OK;
}

cuzk_status bp_vk_write(const bp_vk *vk, const char *path, cuzk_err *err) {
  CUZK_TRY(count_ok(vk->n_ic, "ic", path, err));
  return write_enc(path, bp_vk_size(vk), vk, NULL, err);
}

cuzk_status bp_params_write(const bp_params *pp, const char *path, cuzk_err *err) {
  CUZK_TRY(count_ok(pp->vk.n_ic, "ic", path, err));
  CUZK_TRY(count_ok(pp->n_h, "h", path, err));
  CUZK_TRY(count_ok(pp->n_l, "l", path, err));
  CUZK_TRY(count_ok(pp->n_a, "a", path, err));
  CUZK_TRY(count_ok(pp->n_b_g1, "b_g1", path, err));
  CUZK_TRY(count_ok(pp->n_b_g2, "b_g2", path, err));
  return write_enc(path, bp_params_size(pp), NULL, pp, err);
}

void bp_vk_free(bp_vk *vk) {
  free(vk->ic);
  memset(vk, 0, sizeof *vk);
}

void bp_params_free(bp_params *pp) {
  bp_vk_free(&pp->vk);
  free(pp->h);
  free(pp->l);
  free(pp->a);
  free(pp->b_g1);
  free(pp->b_g2);
  memset(pp, 0, sizeof *pp);
}

cuzk_status bp_vk_to_groth16(const bp_vk *vk, groth16_vk *out, cuzk_err *err) {
  memset(out, 0, sizeof *out);
  if (vk->n_ic == 0)
    return cuzk_err_set(err, CUZK_FORMAT, "verifying key: ic is empty (ic[0], for ONE, expected)");
  out->ic = malloc(vk->n_ic * sizeof *out->ic);
  if (!out->ic)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu ic points", vk->n_ic);
  memcpy(out->ic, vk->ic, vk->n_ic * sizeof *out->ic);
  out->n_public = vk->n_ic - 1;
  out->alpha1 = vk->alpha_g1;
  out->beta2 = vk->beta_g2;
  out->gamma2 = vk->gamma_g2;
  out->delta2 = vk->delta_g2;
  groth16_vk_compute_alphabeta(out);
  return CUZK_OK;
}

/* ------------------------------------------------------------ proofs */

_Static_assert(BP_PROOF_BYTES == GROTH16_PROOF_BYTES, "one proof layout");

void bp_proof_encode(uint8_t out[BP_PROOF_BYTES], const groth16_proof *pr) {
  groth16_proof_encode(out, pr);
}

cuzk_status bp_proof_decode(groth16_proof *pr, const uint8_t in[BP_PROOF_BYTES], const char *name,
                            size_t index, cuzk_err *err) {
  static const char *const what[3] = {"A", "B", "C"};
  static const size_t at[3] = {0, 48, 144};
  for (int f = 0; f < 3; f++) {
    cuzk_err e = {0};
    cuzk_status st;
    bool inf;
    if (f == 1) {
      st = bls12_381_g2_decode_compressed(&pr->b, in + at[f], true, &e);
      inf = st == CUZK_OK && bls12_381_g2_aff_is_inf(&pr->b);
    } else {
      bls12_381_g1_aff *p = f == 0 ? &pr->a : &pr->c;
      st = bls12_381_g1_decode_compressed(p, in + at[f], true, &e);
      inf = st == CUZK_OK && bls12_381_g1_aff_is_inf(p);
    }
    if (st == CUZK_OK && inf)
      st = cuzk_err_set(&e, CUZK_FORMAT, "point at infinity (bellperson refuses it)");
    if (st != CUZK_OK)
      return cuzk_err_set(err, st, "%s: partition %zu, %s at byte offset %zu: %s", name, index,
                          what[f], index * BP_PROOF_BYTES + at[f], e.msg);
  }
  return CUZK_OK;
}

/* ------------------------------------------------------------ in-memory checks */

typedef struct {
  bool g2;
  const void *v;
  size_t n;
  _Atomic size_t bad; /* the lowest bad index found, or n */
  const char *why[BP_MAX_WORKERS];
  size_t at[BP_MAX_WORKERS];
} vcheck;

static const char *point_fault(bool g2, const void *p) {
  if (g2) {
    const bls12_381_g2_aff *q = p;
    if (bls12_381_g2_aff_is_inf(q))
      return "point at infinity (bellperson refuses it here)";
    if (!bls12_381_g2_aff_is_on_curve(q))
      return "G2: not on the curve";
    if (!bls12_381_g2_aff_in_subgroup(q))
      return "G2: not in the prime-order subgroup";
    return NULL;
  }
  const bls12_381_g1_aff *q = p;
  if (bls12_381_g1_aff_is_inf(q))
    return "point at infinity (bellperson refuses it here)";
  if (!bls12_381_g1_aff_is_on_curve(q))
    return "G1: not on the curve";
  if (!bls12_381_g1_aff_in_subgroup(q))
    return "G1: not in the prime-order subgroup";
  return NULL;
}

static void vcheck_part(void *ctx, unsigned idx, unsigned nw) {
  vcheck *c = ctx;
  size_t lo, hi;
  par_range(c->n, idx, nw, &lo, &hi);
  c->why[idx] = NULL;
  const size_t sz = c->g2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff);
  for (size_t i = lo; i < hi && i < atomic_load(&c->bad); i++) {
    const char *why = point_fault(c->g2, (const uint8_t *)c->v + i * sz);
    if (why) {
      c->why[idx] = why, c->at[idx] = i;
      size_t low = atomic_load(&c->bad);
      while (i < low && !atomic_compare_exchange_weak(&c->bad, &low, i)) {
      }
      return;
    }
  }
}

cuzk_status bp_params_validate_points(const bp_params *pp, unsigned threads, cuzk_err *err) {
  /* The vk's six points: on their curves and in their subgroups; infinity
   * allowed, as the reader allows it there. */
  const bls12_381_g1_aff *f1[3] = {&pp->vk.alpha_g1, &pp->vk.beta_g1, &pp->vk.delta_g1};
  const bls12_381_g2_aff *f2[3] = {&pp->vk.beta_g2, &pp->vk.gamma_g2, &pp->vk.delta_g2};
  static const char *const n1[3] = {"alpha_g1", "beta_g1", "delta_g1"},
                           *const n2[3] = {"beta_g2", "gamma_g2", "delta_g2"};
  for (int i = 0; i < 3; i++) {
    const char *why1 = bls12_381_g1_aff_is_inf(f1[i]) ? NULL : point_fault(false, f1[i]);
    if (why1)
      return cuzk_err_set(err, CUZK_FORMAT, "the key's %s: %s", n1[i], why1);
    const char *why2 = bls12_381_g2_aff_is_inf(f2[i]) ? NULL : point_fault(true, f2[i]);
    if (why2)
      return cuzk_err_set(err, CUZK_FORMAT, "the key's %s: %s", n2[i], why2);
  }
  const struct {
    const char *name;
    bool g2;
    const void *v;
    size_t n;
  } vs[] = {{"ic", false, pp->vk.ic, pp->vk.n_ic}, {"h", false, pp->h, pp->n_h},
            {"l", false, pp->l, pp->n_l},          {"a", false, pp->a, pp->n_a},
            {"b_g1", false, pp->b_g1, pp->n_b_g1}, {"b_g2", true, pp->b_g2, pp->n_b_g2}};
  unsigned nw = threads ? threads : par_threads();
  if (nw > BP_MAX_WORKERS)
    nw = BP_MAX_WORKERS;
  if (nw < 1)
    nw = 1;
  for (size_t k = 0; k < sizeof vs / sizeof *vs; k++) {
    if (!vs[k].n)
      continue;
    vcheck c = {.g2 = vs[k].g2, .v = vs[k].v, .n = vs[k].n};
    atomic_init(&c.bad, vs[k].n);
    unsigned w = vs[k].n < nw ? (unsigned)vs[k].n : nw;
    par_run(w, vcheck_part, &c);
    size_t bad = atomic_load(&c.bad);
    if (bad == vs[k].n)
      continue;
    const char *why = "invalid";
    for (unsigned i = 0; i < w; i++)
      if (c.why[i] && c.at[i] == bad)
        why = c.why[i];
    return cuzk_err_set(err, CUZK_FORMAT, "the key's vector %s, point %zu: %s", vs[k].name, bad,
                        why);
  }
  return CUZK_OK;
}
