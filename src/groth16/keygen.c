/* The INSECURE benchmark key generator (keygen.h): comb, circuit, scalars,
 * and the staged, multithreaded writer. */
#include "groth16/keygen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/par.h"
#include "groth16/wtns.h"
#include "msm/window.h"
#include "poly/ntt.h"

typedef bls12_381_fr fr;

/* ------------------------------------------------- the comb */

/* Additions per shared inversion when building a table level.  An Fp
 * inversion is ~570 M (Fermat), so 1024 makes it ~0.6 M per addition. */
#define COMB_BATCH 1024
/* How many scalars ahead comb_mul prefetches its table entries.  The tables
 * are 50-100 MiB at 16-bit windows, so nearly every entry is a cache miss;
 * 8 ahead was the fastest of 4, 8 and 16 (bench/RESULTS.md, "Measurements
 * moved out of code comments"). */
#define COMB_PREFETCH 8

static inline unsigned comb_windows(unsigned bits) { return keygen_comb_windows(bits); }

void keygen_comb_recode(int32_t *out, size_t stride, const limb_t k[4], unsigned bits, unsigned W) {
  for (unsigned w = 0; w < W; w++) {
    const uint32_t d = msm_digit(k, 4, w * bits, bits, 0), mag = d & ~MSM_DIGIT_NEG;
    out[w * stride] = d & MSM_DIGIT_NEG ? -(int32_t)mag : (int32_t)mag;
  }
}

#define comb_recode keygen_comb_recode

#define EC_TMPL "groth16/keygen_comb_impl.h"
#include "ec/groups.h"

/* The window width minimising table build plus use, counted in additions:
 * W 2^(c-1) to build, (W - 1) per point.  Capped at 16: wider windows save
 * few additions (W = 16, 16, 15, 14, 13 for c = 16..20) for 2-16x the table,
 * and each addition gets slower as the table outgrows the caches.  Measured
 * on the dev machine (2^18 key, 1 thread): section A took 4.2 s at c = 12
 * (21 additions a point), 3.1 s at 16 (15), 2.8 s at 20 (12), but the c = 20
 * tables (0.65 + 1.3 GiB) took 21 s to build. */
unsigned keygen_comb_pick_bits(uint64_t points) {
  unsigned best = 4;
  double best_cost = 1e300;
  for (unsigned c = 4; c <= 16; c++) {
    unsigned W = comb_windows(c);
    double cost = (double)W * (double)((uint64_t)1 << (c - 1)) + (double)points * (W - 1);
    if (cost < best_cost)
      best_cost = cost, best = c;
  }
  return best;
}

/* ------------------------------------------------- the chain circuit */

/* Does circom put wire a before wire b?  It sorts the terms of a linear
 * combination by the little-endian bytes of the wire index (docs/FORMATS.md §1). */
static int circom_wire_before(uint32_t a, uint32_t b) {
  for (int i = 0; i < 4; i++) {
    uint32_t x = (a >> (8 * i)) & 0xff, y = (b >> (8 * i)) & 0xff;
    if (x != y)
      return x < y;
  }
  return 0;
}

void keygen_chain_row(keygen_row *row, uint64_t N, uint64_t i) {
  const uint32_t si = (uint32_t)(3 + i), next = (uint32_t)(4 + i); /* s[i], s[i+1] */
  memset(row, 0, sizeof *row);
  if (i == N) { /* -s[N] * y = -out */
    row->a[row->na++] = (keygen_term){si, -1};
    row->b[row->nb++] = (keygen_term){2, 1};
    row->c[row->nc++] = (keygen_term){1, -1};
    return;
  }
  row->c[row->nc++] = (keygen_term){next, -1};
  if (i == 0) { /* -x * 2x = -s[1]: circom folds s[0] = x and drops the 0 */
    row->a[row->na++] = (keygen_term){3, -1};
    row->b[row->nb++] = (keygen_term){3, 2};
  } else if (i % 2 == 0) { /* -(s[i] + i) * (x + s[i]) = -s[i+1] */
    row->a[row->na++] = (keygen_term){0, -(int64_t)i};
    row->a[row->na++] = (keygen_term){si, -1};
    int s_first = circom_wire_before(si, 3);
    row->b[row->nb++] = (keygen_term){s_first ? si : 3, 1};
    row->b[row->nb++] = (keygen_term){s_first ? 3 : si, 1};
  } else { /* (1 - s[i]) * (i + y) = -s[i+1] */
    row->a[row->na++] = (keygen_term){0, 1};
    row->a[row->na++] = (keygen_term){si, -1};
    row->b[row->nb++] = (keygen_term){0, (int64_t)i};
    row->b[row->nb++] = (keygen_term){2, 1};
  }
}

/* Rows 0 and N have 2 A+B terms, the rows between 4, the input rows 1. */
uint64_t keygen_chain_coefs_before(uint64_t N, uint64_t i) {
  if (i == 0)
    return 0;
  uint64_t cons = N == 0 ? 2 : 4 * N; /* all constraint rows */
  if (i > N)
    return cons + (i - N - 1);
  return 2 + 4 * (i - 1); /* 1 <= i <= N, N >= 1 */
}

unsigned keygen_chain_lg_domain(uint64_t N) {
  unsigned lg = 1;
  while (((uint64_t)1 << lg) <= N + 3) lg++;
  return lg;
}

#define G1B 96
#define G2B 192
#define COEFB 44
#define HEADER_BYTES (4 + 48 + 4 + 32 + 12 + 3 * G1B + 3 * G2B)
#define NSEC 10

/* Payload sizes of sections 1..10. */
static void zkey_sizes(uint64_t N, uint64_t size[NSEC + 1]) {
  uint64_t nv = N + 4, n = (uint64_t)1 << keygen_chain_lg_domain(N);
  size[1] = 4;
  size[2] = HEADER_BYTES;
  size[3] = (KEYGEN_CHAIN_PUBLIC + 1) * G1B;
  size[4] = 4 + COEFB * keygen_chain_coefs_before(N, N + 4);
  size[5] = nv * G1B;
  size[6] = nv * G1B;
  size[7] = nv * G2B;
  size[8] = (nv - KEYGEN_CHAIN_PUBLIC - 1) * G1B;
  size[9] = n * G1B;
  size[10] = 64 + 4;
}

uint64_t keygen_chain_zkey_bytes(uint64_t N) {
  uint64_t size[NSEC + 1], t = 12;
  zkey_sizes(N, size);
  for (int s = 1; s <= NSEC; s++) t += 12 + size[s];
  return t;
}

uint64_t keygen_chain_wtns_bytes(uint64_t N) { return 12 + (12 + 40) + (12 + 32 * (N + 4)); }

/* ------------------------------------------------- secrets from a seed */

uint64_t keygen_splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void keygen_draw_scalar(limb_t k[4], uint64_t *s) {
  for (;;) {
    for (int i = 0; i < 4; i++) k[i] = keygen_splitmix64(s);
    k[3] &= 0x7fffffffffffffffULL;
    if (limbs_lt(k, bls12_381_fr_modulus, 4) && !limbs_is_zero(k, 4))
      return;
  }
}

cuzk_status keygen_chain_from_seed(keygen_chain *c, uint64_t N, uint64_t seed, cuzk_err *err) {
  memset(c, 0, sizeof *c);
  if (N > KEYGEN_CHAIN_STEPS(KEYGEN_MAX_LG))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%llu steps need a domain above 2^%d, the largest a zkey can have",
                        (unsigned long long)N, KEYGEN_MAX_LG);
  c->n_steps = N;
  uint64_t s = seed ^ 0x6b657967656e2031ULL; /* "keygen 1" */
  keygen_draw_scalar(c->x, &s);
  keygen_draw_scalar(c->y, &s);
  keygen_draw_scalar(c->alpha, &s);
  keygen_draw_scalar(c->beta, &s);
  keygen_draw_scalar(c->delta, &s);
  const limb_t two_n[1] = {(limb_t)2 << keygen_chain_lg_domain(N)};
  for (;;) { /* tau off the size-2n domain, so no L_i(tau) has a zero denominator */
    fr t, p;
    keygen_draw_scalar(c->tau, &s);
    bls12_381_fr_from_canon(&t, c->tau);
    bls12_381_fr_pow(&p, &t, two_n, 1);
    if (!bls12_381_fr_is_one(&p))
      break;
  }
  for (int i = 0; i < 8; i++) wr_u64le(c->cs_hash + 8 * i, keygen_splitmix64(&s));
  return CUZK_OK;
}

/* ------------------------------------------------- scalars at tau */

typedef struct {
  uint64_t N, n_vars;
  uint64_t n;
  unsigned lg_n;
  fr tau, alpha, beta, delta_inv;
  fr omega;    /* w[lg_n] */
  fr omega2;   /* w[lg_n + 1], the size-2n domain's root */
  fr kappa;    /* (tau^n - 1) / n */
  fr kappa2;   /* (tau^2n - 1) / (2n delta) */
  fr sp[4][3]; /* A_j, B_j, C_j at tau for the wires j = 0..3 touching every row */
} kg_ctx;

static void fr_from_i64(fr *r, int64_t v) {
  if (v >= 0) {
    bls12_381_fr_set_u64(r, (uint64_t)v);
  } else {
    bls12_381_fr_set_u64(r, (uint64_t)(-(v + 1)) + 1);
    bls12_381_fr_neg(r, r);
  }
}

static void fr_pow_u64(fr *r, const fr *a, uint64_t e) {
  const limb_t el[1] = {e};
  bls12_381_fr_pow(r, a, el, 1);
}

/* dst += coef * l; the wires' coefficients are +-1 except for wire 0. */
static inline void fr_axpy(fr *dst, int64_t coef, const fr *l) {
  if (coef == 1) {
    bls12_381_fr_add(dst, dst, l);
  } else if (coef == -1) {
    bls12_381_fr_sub(dst, dst, l);
  } else {
    fr c;
    fr_from_i64(&c, coef);
    bls12_381_fr_mul(&c, &c, l);
    bls12_381_fr_add(dst, dst, &c);
  }
}

/* out[k] = L_{r0+k}(tau) = kappa p / (tau - p), p = w^(r0+k), for k < cnt.
 * 5 M per value plus one inversion.  s1, s2: cnt elements of scratch. */
static void kg_lagrange(const kg_ctx *kc, uint64_t r0, size_t cnt, fr *out, fr *s1, fr *s2) {
  fr p;
  fr_pow_u64(&p, &kc->omega, r0);
  for (size_t k = 0; k < cnt; k++) {
    out[k] = p;
    bls12_381_fr_sub(&s1[k], &kc->tau, &p);
    bls12_381_fr_mul(&p, &p, &kc->omega);
  }
  bls12_381_fr_batch_inv(s1, s1, cnt, s2);
  for (size_t k = 0; k < cnt; k++) {
    bls12_381_fr_mul(&out[k], &out[k], &s1[k]);
    bls12_381_fr_mul(&out[k], &out[k], &kc->kappa);
  }
}

/* Per-worker buffers for M points (or M + 8 rows). */
typedef struct {
  size_t m;
  fr *A, *B, *C, *L, *s1, *s2; /* m + 8 each */
  limb_t (*k)[4];              /* m scalars */
  void *comb_scratch;
  void *pts;      /* m affine points */
  uint8_t *bytes; /* m encoded points (or coefficient entries) */
  uint8_t *abytes; /* B1: the chunk's A points, read back */
  uint8_t *cls;    /* B1: how each point is made (b1_class) */
} kg_ws;

/* A_j, B_j, C_j at tau for the wires j in [lo, hi), hi - lo <= ws->m. */
static void kg_cols(const kg_ctx *kc, uint64_t lo, uint64_t hi, kg_ws *ws) {
  const size_t cnt = hi - lo;
  fr *col[3] = {ws->A, ws->B, ws->C};
  for (int m = 0; m < 3; m++) memset(col[m], 0, cnt * sizeof(fr));
  for (uint64_t j = lo; j < hi && j < 4; j++)
    for (int m = 0; m < 3; m++) col[m][j - lo] = kc->sp[j][m];
  const uint64_t j0 = lo > 4 ? lo : 4;
  if (j0 >= hi)
    return;
  /* Wire 3 + k (k >= 1) is in rows k - 1 (C) and k (A, B): rows j0-4 .. hi-4. */
  uint64_t r0 = j0 - 4, r1 = hi - 3;
  if (r1 > kc->N + 1)
    r1 = kc->N + 1;
  kg_lagrange(kc, r0, r1 - r0, ws->L, ws->s1, ws->s2);
  for (uint64_t r = r0; r < r1; r++) {
    keygen_row row;
    keygen_chain_row(&row, kc->N, r);
    const fr *l = &ws->L[r - r0];
    const keygen_term *t[3] = {row.a, row.b, row.c};
    const unsigned nt[3] = {row.na, row.nb, row.nc};
    for (int m = 0; m < 3; m++)
      for (unsigned q = 0; q < nt[m]; q++)
        if (t[m][q].wire >= j0 && t[m][q].wire < hi)
          fr_axpy(&col[m][t[m][q].wire - lo], t[m][q].coef, l);
  }
}

enum { SEC_A, SEC_B, SEC_C, SEC_H };

/* The canonical scalars of points [lo, hi) of one section into ws->k. */
static void kg_scalars(const kg_ctx *kc, int sec, uint64_t lo, uint64_t hi, kg_ws *ws) {
  const size_t cnt = hi - lo;
  if (sec == SEC_H) { /* H[i] = kappa2 p / (tau - p), p = w2^(2i+1) = w2 w^i */
    fr p, *num = ws->A, *den = ws->B;
    fr_pow_u64(&p, &kc->omega, lo);
    bls12_381_fr_mul(&p, &p, &kc->omega2);
    for (size_t i = 0; i < cnt; i++) {
      num[i] = p;
      bls12_381_fr_sub(&den[i], &kc->tau, &p);
      bls12_381_fr_mul(&p, &p, &kc->omega);
    }
    bls12_381_fr_batch_inv(den, den, cnt, ws->s1);
    for (size_t i = 0; i < cnt; i++) {
      fr h;
      bls12_381_fr_mul(&h, &num[i], &den[i]);
      bls12_381_fr_mul(&h, &h, &kc->kappa2);
      bls12_381_fr_to_canon(ws->k[i], &h);
    }
    return;
  }
  if (sec == SEC_C) { /* wires 3.. : (beta A + alpha B + C) / delta */
    kg_cols(kc, lo + KEYGEN_CHAIN_PUBLIC + 1, hi + KEYGEN_CHAIN_PUBLIC + 1, ws);
    for (size_t i = 0; i < cnt; i++) {
      fr t, u;
      bls12_381_fr_mul(&t, &kc->beta, &ws->A[i]);
      bls12_381_fr_mul(&u, &kc->alpha, &ws->B[i]);
      bls12_381_fr_add(&t, &t, &u);
      bls12_381_fr_add(&t, &t, &ws->C[i]);
      bls12_381_fr_mul(&t, &t, &kc->delta_inv);
      bls12_381_fr_to_canon(ws->k[i], &t);
    }
    return;
  }
  kg_cols(kc, lo, hi, ws);
  const fr *v = sec == SEC_A ? ws->A : ws->B;
  for (size_t i = 0; i < cnt; i++) bls12_381_fr_to_canon(ws->k[i], &v[i]);
}

/* ------------------------------------------------- output files */

static cuzk_status pwrite_all(int fd, const char *path, const void *buf, size_t len, uint64_t off,
                              cuzk_err *err) {
  const uint8_t *p = buf;
  while (len) {
    ssize_t k = pwrite(fd, p, len, (off_t)off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return cuzk_err_set(err, CUZK_IO, "%s: writing %zu bytes at offset %llu: %s", path, len,
                          (unsigned long long)off, k < 0 ? strerror(errno) : "no progress");
    p += k, len -= (size_t)k, off += (uint64_t)k;
  }
  return CUZK_OK;
}

static void put_g1(uint8_t *b, const bls12_381_g1_aff *p) {
  limbs_to_le(b, p->x.l, 6);
  limbs_to_le(b + 48, p->y.l, 6);
}
static void put_g2(uint8_t *b, const bls12_381_g2_aff *p) {
  limbs_to_le(b, p->x.c0.l, 6);
  limbs_to_le(b + 48, p->x.c1.l, 6);
  limbs_to_le(b + 96, p->y.c0.l, 6);
  limbs_to_le(b + 144, p->y.c1.l, 6);
}

/* One coefficient entry: matrix, row, wire, c R^2 mod r (docs/FORMATS.md §3.2). */
static void put_coef(uint8_t *b, uint32_t matrix, uint64_t row, uint32_t wire, int64_t coef) {
  fr v;
  fr_from_i64(&v, coef);                         /* c R */
  bls12_381_fr_mul(&v, &v, &bls12_381_fr_r2);    /* c R * R^2 / R = c R^2 */
  wr_u32le(b, matrix);
  wr_u32le(b + 4, (uint32_t)row);
  wr_u32le(b + 8, wire);
  limbs_to_le(b + 12, v.l, 4);
}

/* The entries of constraint rows [r0, r1) into b; returns the bytes. */
static size_t put_rows(uint8_t *b, uint64_t N, uint64_t r0, uint64_t r1) {
  uint8_t *p = b;
  for (uint64_t r = r0; r < r1; r++) {
    keygen_row row;
    keygen_chain_row(&row, N, r);
    for (unsigned q = 0; q < row.na; q++, p += COEFB) put_coef(p, 0, r, row.a[q].wire, row.a[q].coef);
    for (unsigned q = 0; q < row.nb; q++, p += COEFB) put_coef(p, 1, r, row.b[q].wire, row.b[q].coef);
  }
  return (size_t)(p - b);
}

/* ------------------------------------------------- staged parallel writer */

#define CHUNK_G1 2048  /* points per chunk: one inversion per window per chunk */
#define CHUNK_G2 1024
#define CHUNK_ROWS 8192

typedef struct {
  const kg_ctx *kc;
  const keygen_opts *o;
  int fd;
  const char *path;
  int stage, sec, group;   /* group 1, 2: points of G1 / G2; 0: coefficient rows */
  const bls12_381_g1_comb *c1;
  const bls12_381_g2_comb *c2;
  uint64_t count, off;     /* items; file offset of item 0 */
  uint64_t off_a;          /* B1: file offset of section 5 (A), already written */
  size_t chunk;
  double t0;
  atomic_uint_fast64_t next, done;
  atomic_int failed;
  cuzk_err err;            /* written by the first failing worker only */
  atomic_flag err_claimed;
} kg_run;

static void ws_free(kg_ws *ws) {
  free(ws->A);
  free(ws->k);
  free(ws->comb_scratch);
  free(ws->pts);
  free(ws->bytes);
  free(ws->abytes);
  free(ws->cls);
  memset(ws, 0, sizeof *ws);
}

static int ws_alloc(kg_ws *ws, const kg_run *R) {
  memset(ws, 0, sizeof *ws);
  size_t m = R->chunk, m8 = m + 8;
  ws->m = m;
  ws->A = malloc(6 * m8 * sizeof(fr));
  if (ws->A)
    ws->B = ws->A + m8, ws->C = ws->B + m8, ws->L = ws->C + m8, ws->s1 = ws->L + m8,
    ws->s2 = ws->s1 + m8;
  ws->k = malloc(m * sizeof *ws->k);
  size_t pb = R->group == 2 ? sizeof(bls12_381_g2_aff) : sizeof(bls12_381_g1_aff);
  ws->pts = malloc(m * pb);
  size_t cs = R->group == 1   ? bls12_381_g1_comb_scratch_sizeof(R->c1, m)
              : R->group == 2 ? bls12_381_g2_comb_scratch_sizeof(R->c2, m)
                              : 8;
  ws->comb_scratch = malloc(cs);
  ws->bytes = malloc(R->group == 0 ? m * 4 * COEFB : m * (R->group == 2 ? G2B : G1B));
  ws->abytes = malloc(m * G1B);
  ws->cls = malloc(m);
  if (!ws->A || !ws->k || !ws->pts || !ws->comb_scratch || !ws->bytes || !ws->abytes || !ws->cls) {
    ws_free(ws);
    return 0;
  }
  return 1;
}

static void run_fail(kg_run *R, cuzk_status st, const cuzk_err *e) {
  if (!atomic_flag_test_and_set(&R->err_claimed)) {
    R->err = *e;
    R->err.status = st;
  }
  atomic_store(&R->failed, 1);
}

static cuzk_status pread_all(int fd, const char *path, void *buf, size_t len, uint64_t off,
                             cuzk_err *err) {
  uint8_t *p = buf;
  while (len) {
    ssize_t k = pread(fd, p, len, (off_t)off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return cuzk_err_set(err, CUZK_IO, "%s: reading back %zu bytes at offset %llu: %s", path, len,
                          (unsigned long long)off, k < 0 ? strerror(errno) : "end of file");
    p += k, len -= (size_t)k, off += (uint64_t)k;
  }
  return CUZK_OK;
}

/* B1 points [lo, hi) into ws->bytes.  Where B_j = 0, A_j or -A_j (in the
 * chain every even s[k] has B = -A), the point is infinity, A[j] or -A[j],
 * read back from section 5; only the others go through the comb.  This
 * takes B1 from about half the cost of A to almost nothing. */
enum { B1_ZERO, B1_SAME, B1_NEG, B1_COMB };
static cuzk_status b1_chunk(kg_run *R, uint64_t lo, uint64_t hi, kg_ws *ws, cuzk_err *err) {
  const size_t cnt = hi - lo;
  size_t m = 0, reuse = 0;
  kg_cols(R->kc, lo, hi, ws);
  for (size_t i = 0; i < cnt; i++) {
    fr na;
    bls12_381_fr_neg(&na, &ws->A[i]);
    if (bls12_381_fr_is_zero(&ws->B[i])) {
      ws->cls[i] = B1_ZERO;
    } else if (bls12_381_fr_eq(&ws->B[i], &ws->A[i])) {
      ws->cls[i] = B1_SAME, reuse++;
    } else if (bls12_381_fr_eq(&ws->B[i], &na)) {
      ws->cls[i] = B1_NEG, reuse++;
    } else {
      ws->cls[i] = B1_COMB;
      bls12_381_fr_to_canon(ws->k[m++], &ws->B[i]);
    }
  }
  bls12_381_g1_aff *p = ws->pts;
  bls12_381_g1_comb_mul(R->c1, p, (const limb_t(*)[4])ws->k, m, ws->comb_scratch);
  if (reuse)
    CUZK_TRY(pread_all(R->fd, R->path, ws->abytes, G1B * cnt, R->off_a + G1B * lo, err));
  size_t q = 0;
  for (size_t i = 0; i < cnt; i++) {
    uint8_t *b = ws->bytes + G1B * i;
    const uint8_t *a = ws->abytes + G1B * i;
    switch (ws->cls[i]) {
    case B1_ZERO:
      memset(b, 0, G1B);
      break;
    case B1_SAME:
      memcpy(b, a, G1B);
      break;
    case B1_NEG: { /* -(x, y) = (x, -y); infinity (all zero) stays */
      bls12_381_g1_aff pt;
      limbs_from_le(pt.x.l, a, 6);
      limbs_from_le(pt.y.l, a + 48, 6);
      bls12_381_g1_aff_neg(&pt, &pt);
      put_g1(b, &pt);
      break;
    }
    default:
      put_g1(b, &p[q++]);
    }
  }
  return CUZK_OK;
}

static void run_worker(void *ctx, unsigned idx, unsigned nw) {
  kg_run *R = ctx;
  kg_ws ws;
  if (!ws_alloc(&ws, R)) {
    cuzk_err e;
    cuzk_err_set(&e, CUZK_NO_MEMORY, "no memory for a worker's buffers (%zu points)", R->chunk);
    run_fail(R, CUZK_NO_MEMORY, &e);
    return;
  }
  double last = cuzk_now_s();
  while (!atomic_load(&R->failed)) {
    uint64_t lo = atomic_fetch_add(&R->next, 1) * R->chunk;
    if (lo >= R->count)
      break;
    uint64_t hi = lo + R->chunk < R->count ? lo + R->chunk : R->count;
    size_t len;
    uint64_t off;
    if (R->group == 0) {
      uint64_t N = R->kc->N;
      len = put_rows(ws.bytes, N, lo, hi);
      off = R->off + COEFB * keygen_chain_coefs_before(N, lo);
    } else if (R->sec == SEC_B && R->group == 1) {
      cuzk_err e;
      cuzk_status st = b1_chunk(R, lo, hi, &ws, &e);
      if (st != CUZK_OK) {
        run_fail(R, st, &e);
        break;
      }
      len = G1B * (hi - lo), off = R->off + G1B * lo;
    } else {
      kg_scalars(R->kc, R->sec, lo, hi, &ws);
      size_t cnt = hi - lo;
      if (R->group == 1) {
        bls12_381_g1_aff *p = ws.pts;
        bls12_381_g1_comb_mul(R->c1, p, (const limb_t(*)[4])ws.k, cnt, ws.comb_scratch);
        for (size_t i = 0; i < cnt; i++) put_g1(ws.bytes + G1B * i, &p[i]);
        len = G1B * cnt, off = R->off + G1B * lo;
      } else {
        bls12_381_g2_aff *p = ws.pts;
        bls12_381_g2_comb_mul(R->c2, p, (const limb_t(*)[4])ws.k, cnt, ws.comb_scratch);
        for (size_t i = 0; i < cnt; i++) put_g2(ws.bytes + G2B * i, &p[i]);
        len = G2B * cnt, off = R->off + G2B * lo;
      }
    }
    cuzk_err e;
    cuzk_status st = pwrite_all(R->fd, R->path, ws.bytes, len, off, &e);
    if (st != CUZK_OK) {
      run_fail(R, st, &e);
      break;
    }
    uint64_t done = atomic_fetch_add(&R->done, hi - lo) + (hi - lo);
    double t = cuzk_now_s();
    if (idx == 0 && R->o && R->o->progress && t - last >= 0.25) {
      last = t;
      R->o->progress(R->o->progress_ctx, R->stage, done, R->count, t - R->t0);
    }
  }
  ws_free(&ws);
}

static void report(const keygen_opts *o, int stage, uint64_t done, uint64_t total, double t0) {
  if (o && o->progress)
    o->progress(o->progress_ctx, stage, done, total, cuzk_now_s() - t0);
}

/* Runs one stage over count items on `threads` workers. */
static cuzk_status run_stage(const kg_ctx *kc, const keygen_opts *o, unsigned threads, int fd,
                             const char *path, int stage, int sec, int group,
                             const bls12_381_g1_comb *c1, const bls12_381_g2_comb *c2,
                             uint64_t count, uint64_t off, uint64_t off_a, double *secs,
                             cuzk_err *err) {
  kg_run R = {.kc = kc, .o = o, .fd = fd, .path = path, .stage = stage, .sec = sec,
              .group = group, .c1 = c1, .c2 = c2, .count = count, .off = off, .off_a = off_a,
              .chunk = group == 1 ? CHUNK_G1 : group == 2 ? CHUNK_G2 : CHUNK_ROWS,
              .t0 = cuzk_now_s(), .err_claimed = ATOMIC_FLAG_INIT};
  atomic_init(&R.next, 0);
  atomic_init(&R.done, 0);
  atomic_init(&R.failed, 0);
  report(o, stage, 0, count, R.t0);
  uint64_t chunks = (count + R.chunk - 1) / R.chunk;
  par_run(chunks < threads ? (unsigned)(chunks ? chunks : 1) : threads, run_worker, &R);
  *secs = cuzk_now_s() - R.t0;
  if (atomic_load(&R.failed)) {
    if (err)
      *err = R.err;
    return R.err.status;
  }
  report(o, stage, count, count, R.t0);
  return CUZK_OK;
}

/* Setup: the sums over every row for the wires 0..3 (each worker a share of
 * the rows 0 .. N+3, in blocks). */
typedef struct {
  const kg_ctx *kc;
  fr (*part)[4][3]; /* per worker */
  atomic_int oom;
} kg_sp;

#define SP_BLOCK 4096

static void sp_worker(void *ctx, unsigned idx, unsigned nw) {
  kg_sp *S = ctx;
  const kg_ctx *kc = S->kc;
  fr(*acc)[3] = S->part[idx];
  memset(acc, 0, sizeof S->part[idx]);
  fr *buf = malloc(3 * SP_BLOCK * sizeof *buf);
  if (!buf) {
    atomic_store(&S->oom, 1);
    return;
  }
  const uint64_t rows = kc->N + 1 + KEYGEN_CHAIN_PUBLIC + 1;
  size_t lo, hi;
  par_range(rows, idx, nw, &lo, &hi);
  for (uint64_t b = lo; b < hi; b += SP_BLOCK) {
    uint64_t e = b + SP_BLOCK < hi ? b + SP_BLOCK : hi;
    kg_lagrange(kc, b, e - b, buf, buf + SP_BLOCK, buf + 2 * SP_BLOCK);
    for (uint64_t r = b; r < e; r++) {
      const fr *l = &buf[r - b];
      if (r > kc->N) { /* input row N+1+j: A = w_j */
        bls12_381_fr_add(&acc[r - kc->N - 1][0], &acc[r - kc->N - 1][0], l);
        continue;
      }
      keygen_row row;
      keygen_chain_row(&row, kc->N, r);
      const keygen_term *t[3] = {row.a, row.b, row.c};
      const unsigned nt[3] = {row.na, row.nb, row.nc};
      for (int m = 0; m < 3; m++)
        for (unsigned q = 0; q < nt[m]; q++)
          if (t[m][q].wire < 4)
            fr_axpy(&acc[t[m][q].wire][m], t[m][q].coef, l);
    }
  }
  free(buf);
}

static cuzk_status kg_ctx_init(kg_ctx *kc, const keygen_chain *c, unsigned threads, cuzk_err *err) {
  memset(kc, 0, sizeof *kc);
  kc->N = c->n_steps;
  kc->n_vars = c->n_steps + 4;
  kc->lg_n = keygen_chain_lg_domain(c->n_steps);
  kc->n = (uint64_t)1 << kc->lg_n;
  fr delta, t, one;
  bls12_381_fr_set_one(&one);
  bls12_381_fr_from_canon(&kc->tau, c->tau);
  bls12_381_fr_from_canon(&kc->alpha, c->alpha);
  bls12_381_fr_from_canon(&kc->beta, c->beta);
  bls12_381_fr_from_canon(&delta, c->delta);
  bls12_381_fr_inv(&kc->delta_inv, &delta);
  ntt_root(&kc->omega, NTT_ROOTS_SNARKJS, kc->lg_n);
  ntt_root(&kc->omega2, NTT_ROOTS_SNARKJS, kc->lg_n + 1);
  /* kappa = (tau^n - 1)/n, kappa2 = (tau^2n - 1)/(2n delta) */
  fr_pow_u64(&t, &kc->tau, kc->n);
  bls12_381_fr_sub(&kc->kappa, &t, &one);
  bls12_381_fr_sqr(&t, &t);
  bls12_381_fr_sub(&kc->kappa2, &t, &one);
  if (bls12_381_fr_is_zero(&kc->kappa2))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "keygen: tau lies in the size-2n domain");
  bls12_381_fr_set_u64(&t, kc->n);
  bls12_381_fr_inv(&t, &t);
  bls12_381_fr_mul(&kc->kappa, &kc->kappa, &t);
  bls12_381_fr_mul(&kc->kappa2, &kc->kappa2, &t);
  bls12_381_fr_dbl(&t, &one);
  bls12_381_fr_inv(&t, &t);
  bls12_381_fr_mul(&kc->kappa2, &kc->kappa2, &t);
  bls12_381_fr_mul(&kc->kappa2, &kc->kappa2, &kc->delta_inv);

  kg_sp S = {.kc = kc};
  atomic_init(&S.oom, 0);
  uint64_t rows = kc->N + 4;
  unsigned nw = rows < 4 * SP_BLOCK ? 1 : threads;
  S.part = calloc(nw, sizeof *S.part);
  if (!S.part)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  par_run(nw, sp_worker, &S);
  if (atomic_load(&S.oom)) {
    free(S.part);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the setup's buffers");
  }
  for (unsigned w = 0; w < nw; w++)
    for (int j = 0; j < 4; j++)
      for (int m = 0; m < 3; m++) bls12_381_fr_add(&kc->sp[j][m], &kc->sp[j][m], &S.part[w][j][m]);
  free(S.part);
  return CUZK_OK;
}

const char *const keygen_stage_names[KEYGEN_NSTAGES] = {
    "tables", "setup", "A", "B1", "B2 (G2)", "C", "H", "coefficients", "witness"};

/* Sections 1, 2, 3, 10, the coefficient count and input rows, and every
 * section's 12-byte record. */
static cuzk_status write_fixed(int fd, const char *path, const keygen_chain *c, const kg_ctx *kc,
                               const bls12_381_g1_comb *c1, const bls12_381_g2_comb *c2,
                               const uint64_t size[NSEC + 1], const uint64_t off[NSEC + 1],
                               cuzk_err *err) {
  uint8_t b[HEADER_BYTES + 64];
  /* container header and section records */
  memcpy(b, "zkey", 4);
  wr_u32le(b + 4, 1);
  wr_u32le(b + 8, NSEC);
  CUZK_TRY(pwrite_all(fd, path, b, 12, 0, err));
  for (uint32_t s = 1; s <= NSEC; s++) {
    wr_u32le(b, s);
    wr_u64le(b + 4, size[s]);
    CUZK_TRY(pwrite_all(fd, path, b, 12, off[s] - 12, err));
  }
  wr_u32le(b, 1); /* Groth16 */
  CUZK_TRY(pwrite_all(fd, path, b, 4, off[1], err));

  /* Section 2: primes, sizes and alpha1, beta1, beta2, gamma2, delta1, delta2. */
  limb_t k1[3][4], k2[2][4];
  memcpy(k1[0], c->alpha, 32), memcpy(k1[1], c->beta, 32), memcpy(k1[2], c->delta, 32);
  memcpy(k2[0], c->beta, 32), memcpy(k2[1], c->delta, 32);
  bls12_381_g1_aff p1[KEYGEN_CHAIN_PUBLIC + 1 > 3 ? KEYGEN_CHAIN_PUBLIC + 1 : 3];
  bls12_381_g2_aff p2[2];
  uint8_t scratch[4096 + 8] __attribute__((aligned(8)));
  if (bls12_381_g1_comb_scratch_sizeof(c1, 3) > sizeof scratch ||
      bls12_381_g2_comb_scratch_sizeof(c2, 2) > sizeof scratch)
    return cuzk_err_set(err, CUZK_INTERNAL, "keygen: header scratch too small");
  bls12_381_g1_comb_mul(c1, p1, (const limb_t(*)[4])k1, 3, scratch);
  bls12_381_g2_comb_mul(c2, p2, (const limb_t(*)[4])k2, 2, scratch);
  uint8_t *p = b;
  wr_u32le(p, 48), p += 4;
  limbs_to_le(p, bls12_381_fp_modulus, 6), p += 48;
  wr_u32le(p, 32), p += 4;
  limbs_to_le(p, bls12_381_fr_modulus, 4), p += 32;
  wr_u32le(p, (uint32_t)kc->n_vars), p += 4;
  wr_u32le(p, KEYGEN_CHAIN_PUBLIC), p += 4;
  wr_u32le(p, (uint32_t)kc->n), p += 4;
  put_g1(p, &p1[0]), p += G1B;
  put_g1(p, &p1[1]), p += G1B;
  put_g2(p, &p2[0]), p += G2B;
  put_g2(p, &bls12_381_g2_generator), p += G2B;
  put_g1(p, &p1[2]), p += G1B;
  put_g2(p, &p2[1]), p += G2B;
  CUZK_TRY(pwrite_all(fd, path, b, HEADER_BYTES, off[2], err));

  /* Section 3: IC[j] = beta A_j + alpha B_j + C_j for j = 0..nPublic. */
  limb_t kic[KEYGEN_CHAIN_PUBLIC + 1][4];
  for (int j = 0; j <= KEYGEN_CHAIN_PUBLIC; j++) {
    fr t, u;
    bls12_381_fr_mul(&t, &kc->beta, &kc->sp[j][0]);
    bls12_381_fr_mul(&u, &kc->alpha, &kc->sp[j][1]);
    bls12_381_fr_add(&t, &t, &u);
    bls12_381_fr_add(&t, &t, &kc->sp[j][2]);
    bls12_381_fr_to_canon(kic[j], &t);
  }
  bls12_381_g1_comb_mul(c1, p1, (const limb_t(*)[4])kic, KEYGEN_CHAIN_PUBLIC + 1, scratch);
  for (int j = 0; j <= KEYGEN_CHAIN_PUBLIC; j++) put_g1(b + G1B * j, &p1[j]);
  CUZK_TRY(pwrite_all(fd, path, b, size[3], off[3], err));

  /* Section 4: the count, then (after the constraint rows) the input rows. */
  const uint64_t N = c->n_steps, ncoef = keygen_chain_coefs_before(N, N + 4);
  wr_u32le(b, (uint32_t)ncoef);
  CUZK_TRY(pwrite_all(fd, path, b, 4, off[4], err));
  for (uint32_t j = 0; j <= KEYGEN_CHAIN_PUBLIC; j++) put_coef(b + COEFB * j, 0, N + 1 + j, j, 1);
  CUZK_TRY(pwrite_all(fd, path, b, COEFB * (KEYGEN_CHAIN_PUBLIC + 1),
                      off[4] + 4 + COEFB * keygen_chain_coefs_before(N, N + 1), err));

  /* Section 10: csHash and no contributions. */
  memcpy(b, c->cs_hash, 64);
  wr_u32le(b + 64, 0);
  return pwrite_all(fd, path, b, 68, off[10], err);
}

/* The witness: wires 3.. are s[0..N] in order, then 0, 1, 2 = one, out, y. */
static cuzk_status write_witness(int fd, const char *path, const keygen_chain *c,
                                 const keygen_opts *o, cuzk_err *err) {
  const uint64_t N = c->n_steps, nv = N + 4;
  const double t0 = cuzk_now_s();
  uint8_t h[96]; /* the header (76 bytes), later wires 0..2 */
  wtns_bls_header(h, (uint32_t)nv);
  CUZK_TRY(pwrite_all(fd, path, h, WTNS_BLS_HEADER_BYTES, 0, err));
  const uint64_t base = 76; /* value 0 */

  enum { BLK = 8192 };
  uint8_t *buf = malloc(32 * BLK);
  if (!buf)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the witness buffer");
  fr x, y, s, fi, one, t, u;
  bls12_381_fr_from_canon(&x, c->x);
  bls12_381_fr_from_canon(&y, c->y);
  bls12_381_fr_set_one(&one);
  bls12_381_fr_set_zero(&fi); /* i as a field element */
  s = x;
  cuzk_status st = CUZK_OK;
  double last = t0;
  report(o, KEYGEN_STAGE_WITNESS, 0, N + 1, t0);
  for (uint64_t b = 0; b <= N && st == CUZK_OK; b += BLK) {
    uint64_t e = b + BLK < N + 1 ? b + BLK : N + 1;
    for (uint64_t i = b; i < e; i++) { /* s = s[i] */
      limb_t v[4];
      bls12_381_fr_to_canon(v, &s);
      limbs_to_le(buf + 32 * (i - b), v, 4);
      if (i == N)
        break;
      if (i % 2 == 0) { /* s[i+1] = (s[i] + i)(s[i] + x) */
        bls12_381_fr_add(&t, &s, &fi);
        bls12_381_fr_add(&u, &s, &x);
      } else { /* s[i+1] = (s[i] - 1)(y + i) */
        bls12_381_fr_sub(&t, &s, &one);
        bls12_381_fr_add(&u, &y, &fi);
      }
      bls12_381_fr_mul(&s, &t, &u);
      bls12_381_fr_add(&fi, &fi, &one);
    }
    st = pwrite_all(fd, path, buf, 32 * (e - b), base + 32 * (3 + b), err);
    double tn = cuzk_now_s();
    if (tn - last >= 0.25) {
      last = tn;
      report(o, KEYGEN_STAGE_WITNESS, e, N + 1, t0);
    }
  }
  free(buf);
  if (st != CUZK_OK)
    return st;
  /* one, out = s[N] y, y */
  fr w[3];
  w[0] = one;
  bls12_381_fr_mul(&w[1], &s, &y);
  w[2] = y;
  for (int j = 0; j < 3; j++) {
    limb_t v[4];
    bls12_381_fr_to_canon(v, &w[j]);
    limbs_to_le(h + 32 * j, v, 4);
  }
  CUZK_TRY(pwrite_all(fd, path, h, 96, base, err));
  report(o, KEYGEN_STAGE_WITNESS, N + 1, N + 1, t0);
  return CUZK_OK;
}

/* The output path opened (fileio.h: a new temporary in its directory, read
 * and write, since B1 reads A back) and sized (zeros). */
static cuzk_status open_out(fileio_out *out, const char *path, uint64_t size, cuzk_err *err) {
  CUZK_TRY(fileio_out_open(out, path, FILEIO_OUT_REGULAR, err));
  if (ftruncate(out->fd, (off_t)size) != 0) {
    cuzk_status st = cuzk_err_set(err, CUZK_IO, "%s: cannot size to %llu bytes: %s", out->tmp,
                                  (unsigned long long)size, strerror(errno));
    fileio_out_abort(out);
    return st;
  }
  return CUZK_OK;
}

cuzk_status keygen_chain_write(const keygen_chain *c, const char *zkey_path, const char *wtns_path,
                               const keygen_opts *o, keygen_timings *tm_out, cuzk_err *err) {
  keygen_timings tm = {0};
  const double t_start = cuzk_now_s();
  const uint64_t N = c->n_steps;
  if (N > KEYGEN_CHAIN_STEPS(KEYGEN_MAX_LG) || limbs_is_zero(c->tau, 4) ||
      limbs_is_zero(c->delta, 4) || !limbs_lt(c->tau, bls12_381_fr_modulus, 4) ||
      !limbs_lt(c->alpha, bls12_381_fr_modulus, 4) || !limbs_lt(c->beta, bls12_381_fr_modulus, 4) ||
      !limbs_lt(c->delta, bls12_381_fr_modulus, 4) || !limbs_lt(c->x, bls12_381_fr_modulus, 4) ||
      !limbs_lt(c->y, bls12_381_fr_modulus, 4))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "keygen: invalid chain parameters");
  unsigned threads = o && o->threads ? o->threads : par_threads();
  const unsigned lg = keygen_chain_lg_domain(N);
  const uint64_t n = (uint64_t)1 << lg, nv = N + 4;

  uint64_t size[NSEC + 1], off[NSEC + 1], pos = 12;
  zkey_sizes(N, size);
  for (int s = 1; s <= NSEC; s++) off[s] = pos + 12, pos += 12 + size[s];
  tm.zkey_bytes = pos;
  tm.wtns_bytes = keygen_chain_wtns_bytes(N);

  fileio_out zo = {.fd = -1}, wo = {.fd = -1};
  bls12_381_g1_comb c1 = {0};
  bls12_381_g2_comb c2 = {0};
  kg_ctx kc;
  cuzk_status st;
  double t;

  CUZK_TRY(open_out(&zo, zkey_path, tm.zkey_bytes, err));
  if ((st = open_out(&wo, wtns_path, tm.wtns_bytes, err)) != CUZK_OK) {
    fileio_out_abort(&zo);
    return st;
  }
  const int zfd = zo.fd, wfd = wo.fd;
  const char *ztmp = zo.tmp, *wtmp = wo.tmp;

  /* Tables: G1 serves ~4n points, G2 n. */
  t = cuzk_now_s();
  tm.comb_bits[0] = o && o->comb_bits[0] ? o->comb_bits[0] : keygen_comb_pick_bits(4 * n);
  tm.comb_bits[1] = o && o->comb_bits[1] ? o->comb_bits[1] : keygen_comb_pick_bits(n);
  report(o, KEYGEN_STAGE_TABLES, 0, 2, t);
  if ((st = bls12_381_g1_comb_init(&c1, &bls12_381_g1_generator, tm.comb_bits[0], threads, err)) !=
          CUZK_OK ||
      (st = bls12_381_g2_comb_init(&c2, &bls12_381_g2_generator, tm.comb_bits[1], threads, err)) !=
          CUZK_OK)
    goto fail;
  tm.stage_s[KEYGEN_STAGE_TABLES] = cuzk_now_s() - t;
  report(o, KEYGEN_STAGE_TABLES, 2, 2, t);

  t = cuzk_now_s();
  report(o, KEYGEN_STAGE_SETUP, 0, 1, t);
  if ((st = kg_ctx_init(&kc, c, threads, err)) != CUZK_OK ||
      (st = write_fixed(zfd, ztmp, c, &kc, &c1, &c2, size, off, err)) != CUZK_OK)
    goto fail;
  tm.stage_s[KEYGEN_STAGE_SETUP] = cuzk_now_s() - t;
  report(o, KEYGEN_STAGE_SETUP, 1, 1, t);

  const struct {
    int stage, sec, group;
    uint64_t count;
    int section;
  } plan[] = {
      {KEYGEN_STAGE_A, SEC_A, 1, nv, 5},
      {KEYGEN_STAGE_B1, SEC_B, 1, nv, 6},
      {KEYGEN_STAGE_B2, SEC_B, 2, nv, 7},
      {KEYGEN_STAGE_C, SEC_C, 1, nv - KEYGEN_CHAIN_PUBLIC - 1, 8},
      {KEYGEN_STAGE_H, SEC_H, 1, n, 9},
      {KEYGEN_STAGE_COEFS, 0, 0, N + 1, 4},
  };
  for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
    uint64_t o4 = plan[i].section == 4 ? 4 : 0; /* after the coefficient count */
    st = run_stage(&kc, o, threads, zfd, ztmp, plan[i].stage, plan[i].sec, plan[i].group, &c1, &c2,
                   plan[i].count, off[plan[i].section] + o4, off[5], &tm.stage_s[plan[i].stage],
                   err);
    if (st != CUZK_OK)
      goto fail;
  }
  bls12_381_g1_comb_fini(&c1);
  bls12_381_g2_comb_fini(&c2);

  t = cuzk_now_s();
  if ((st = write_witness(wfd, wtmp, c, o, err)) != CUZK_OK)
    goto fail;
  tm.stage_s[KEYGEN_STAGE_WITNESS] = cuzk_now_s() - t;

  if ((st = fileio_out_commit(&zo, err)) != CUZK_OK)
    goto fail;
  if ((st = fileio_out_commit(&wo, err)) != CUZK_OK) {
    unlink(zo.path); /* a key without its witness is no use to a benchmark */
    goto fail;
  }
  tm.total_s = cuzk_now_s() - t_start;
  if (tm_out)
    *tm_out = tm;
  return CUZK_OK;

fail:
  bls12_381_g1_comb_fini(&c1);
  bls12_381_g2_comb_fini(&c2);
  fileio_out_abort(&zo);
  fileio_out_abort(&wo);
  return st;
}
