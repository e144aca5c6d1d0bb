/* Development circuits in PCE form: see pce_gen.h. */
#include "groth16/pce_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/fileio.h"
#include "base/par.h"
#include "groth16/wtns.h"

typedef unsigned long long ull;

/* PoRep 32G is measured (Curio cuzk's reference numbers, docs/FORMATS.md
 * §7: counts, nnz A 309.4M / C 282.7M with total_nnz 722,388,891 exact,
 * densities).  The others take
 * their constraint counts from there and PoRep's proportions; their input
 * counts are assumptions (see docs/FORMATS.md). */
#define PR_NC 130278869ull
#define PR_NI 328ull
#define PR_NAUX 130169893ull
#define PR_C 282700000ull
#define PR_A (722388891ull - (PR_NC - PR_NI) - PR_C)
#define PR_AAUX 129753292ull
#define PR_BAUX 33112281ull
#define SCALED(nc, x) ((uint64_t)((double)(x) * (double)(nc) / (double)PR_NC + 0.5))
#define SHAPE(nm, ni, nc)                                                                      \
  {nm, ni, nc, SCALED(nc, PR_NAUX), SCALED(nc, PR_A), SCALED(nc, PR_C), SCALED(nc, PR_AAUX), \
   SCALED(nc, PR_BAUX)}

static const pce_shape SHAPES[] = {
    {"porep-32g", PR_NI, PR_NC, PR_NAUX, PR_A, PR_C, PR_AAUX, PR_BAUX},
    SHAPE("snap-32g", 5, 81000000ull),
    SHAPE("wpost-32g", 2350, 125000000ull),
    SHAPE("winning-32g", 67, 370000ull),
};

const pce_shape *pce_shape_find(const char *name) {
  for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++)
    if (!strcmp(SHAPES[i].name, name))
      return &SHAPES[i];
  return NULL;
}

const char *pce_shape_names(void) { return "porep-32g|snap-32g|wpost-32g|winning-32g"; }

static uint64_t rnd(double x) { return x <= 0 ? 0 : (uint64_t)(x + 0.5); }

cuzk_status pce_gen_plan_make(pce_gen_plan *p, const pce_shape *s, unsigned scale_lg,
                              cuzk_err *err) {
  memset(p, 0, sizeof *p);
  const uint64_t own_f = s->num_constraints - s->num_inputs, nin_f = s->num_inputs - 1;
  const uint64_t nbk_f = own_f - nin_f, nk_f = own_f - s->num_aux, nb_f = s->b_aux_pop;
  const uint64_t nx_f = (s->nnz_c - s->num_aux - nk_f) / 2;
  const uint64_t np_f = nbk_f - nk_f - nb_f - nx_f;
  /* A's terms left for the packs (the dummy rows hold num_inputs), plus
   * the C term the halving of nx drops, so that total_nnz is exact. */
  const uint64_t c_short = s->nnz_c - (2 * nx_f + s->num_aux + nk_f);
  const uint64_t t_f = s->nnz_a - (nb_f + nx_f + nk_f + nin_f + s->num_inputs) + c_short;
  const uint64_t blk_f = s->num_aux - s->a_aux_pop - nin_f;
  unsigned dom = 0;
  while (((uint64_t)1 << dom) < s->num_constraints)
    dom++;
  if (scale_lg == 0 || scale_lg >= dom) {
    p->rows = s->num_constraints;
    p->ni = s->num_inputs;
  } else {
    if (scale_lg < 8)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "--scale-lg %u: at least 8", scale_lg);
    p->rows = (uint64_t)((double)s->num_constraints * ldexp(1.0, (int)scale_lg - (int)dom));
    uint64_t ni = p->rows >> 8;
    p->ni = (uint32_t)(ni < 2 ? 2 : ni > s->num_inputs ? s->num_inputs : ni);
  }
  p->n_in = p->ni - 1;
  const uint64_t nbk = p->rows - p->ni - p->n_in;
  const double q = (double)nbk / (double)nbk_f;
  p->nk = rnd(nk_f * q);
  p->nb = rnd(nb_f * q);
  p->nx = rnd(nx_f * q);
  if (p->nk + p->nb + p->nx > nbk)
    return cuzk_err_set(err, CUZK_INTERNAL, "plan: counts exceed the rows");
  p->np = nbk - p->nk - p->nb - p->nx;
  p->pack_terms = rnd(t_f * ((double)p->np / (double)np_f));
  if (p->pack_terms < 2 * p->np)
    p->pack_terms = 2 * p->np;
  uint64_t per = p->np ? (p->pack_terms + p->np - 1) / p->np : 1; /* most A terms of a pack */
  uint64_t blocks = rnd(blk_f * q);
  if (blocks > p->nb / 2)
    blocks = p->nb / 2;
  if (blocks > p->nx / (per + 1))
    blocks = p->nx / (per + 1);
  if (blocks < 1 || p->nb < 2 || p->nx < per)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "--scale-lg %u: too few rows for the shape's gadgets", scale_lg);
  p->blocks = blocks;
  p->naux = p->n_in + p->nb + p->nx + p->np;
  if (p->naux + p->ni > UINT32_MAX)
    return cuzk_err_set(err, CUZK_INTERNAL, "plan: over 2^32 variables");
  return CUZK_OK;
}

/* floor(b n / B) without overflow for n, B < 2^40ish: 128-bit product. */
static uint64_t share(uint64_t b, uint64_t n, uint64_t B) {
  return (uint64_t)(((unsigned __int128)b * n) / B);
}

/* Where block b starts. */
typedef struct {
  uint64_t row, aux, a, c; /* B's offset is row's (one term per row) */
  uint64_t nb, nx, np, nk, pack0;
} blk;

static void blk_at(const pce_gen_plan *p, uint64_t b, blk *o) {
  const uint64_t B = p->blocks;
  uint64_t fb = share(b, p->nb, B), fx = share(b, p->nx, B), fp = share(b, p->np, B),
           fk = share(b, p->nk, B);
  o->nb = share(b + 1, p->nb, B) - fb;
  o->nx = share(b + 1, p->nx, B) - fx;
  o->np = share(b + 1, p->np, B) - fp;
  o->nk = share(b + 1, p->nk, B) - fk;
  o->pack0 = fp;
  o->row = p->n_in + fb + fx + fp + fk;
  o->aux = p->n_in + fb + fx + fp;
  o->a = p->n_in + fb + fx + fk + (p->np ? share(fp, p->pack_terms, p->np) : 0);
  o->c = p->n_in + fb + 3 * fx + fp + fk;
}

static uint64_t pack_terms_before(const pce_gen_plan *p, uint64_t pk) {
  return p->np ? share(pk, p->pack_terms, p->np) : 0;
}

/* Constants in Montgomery form. */
typedef struct {
  bls12_381_fr one, two, neg_one, pow2[64];
} consts;

static void consts_init(consts *k) {
  bls12_381_fr_set_one(&k->one);
  bls12_381_fr_dbl(&k->two, &k->one);
  bls12_381_fr_neg(&k->neg_one, &k->one);
  k->pow2[0] = k->one;
  for (int i = 1; i < 64; i++)
    bls12_381_fr_dbl(&k->pow2[i], &k->pow2[i - 1]);
}

/* Appends rows to the matrices: a writer per matrix. */
typedef struct {
  pce_csr *m;
  uint64_t k; /* next term */
} wr;

static inline void term(wr *w, uint32_t col, const bls12_381_fr *v) {
  w->m->col[w->k] = col;
  w->m->val[w->k] = *v;
  w->k++;
}
static inline void end_row(wr *w, uint64_t row) { w->m->row_ptr[row + 1] = (uint32_t)w->k; }

typedef struct {
  const pce_gen_plan *p;
  pce_file *f;
  bls12_381_fr *w;
  uint64_t seed;
  uint32_t part;
  const consts *k;
} gen_ctx;

static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t bit_of(const gen_ctx *g, uint64_t aux) {
  return mix(g->seed ^ mix((uint64_t)g->part * 0x100000001b3ULL ^ mix(aux))) & 1;
}

/* One block's rows (g->f) or values (g->w). */
static void gen_block(const gen_ctx *g, uint64_t b) {
  const pce_gen_plan *p = g->p;
  const consts *K = g->k;
  blk o;
  blk_at(p, b, &o);
  const uint32_t X = p->ni + (uint32_t)o.aux, Cc = X + (uint32_t)o.nb,
                 W = Cc + (uint32_t)o.nx;
  uint64_t row = o.row;
  bls12_381_fr *w = g->w;
  if (g->f) {
    wr A = {&g->f->a, o.a}, Bm = {&g->f->b, o.row}, C = {&g->f->c, o.c};
    for (uint64_t j = 0; j < o.nb; j++, row++) {
      term(&A, X + (uint32_t)j, &K->one), term(&Bm, X + (uint32_t)j, &K->one),
          term(&C, X + (uint32_t)j, &K->one);
      end_row(&A, row), end_row(&Bm, row), end_row(&C, row);
    }
    for (uint64_t j = 0; j < o.nx; j++, row++) {
      uint32_t a = j == 0 ? X + (uint32_t)o.nb - 1 : Cc + (uint32_t)j - 1,
               bb = X + (uint32_t)(j % o.nb), c = Cc + (uint32_t)j;
      term(&A, a, &K->two), term(&Bm, bb, &K->one);
      term(&C, bb, &K->one), term(&C, a, &K->one), term(&C, c, &K->neg_one);
      end_row(&A, row), end_row(&Bm, row), end_row(&C, row);
    }
    uint64_t t0 = pack_terms_before(p, o.pack0);
    for (uint64_t i = 0; i < o.np; i++, row++) {
      uint64_t pk = o.pack0 + i, tb = pack_terms_before(p, pk);
      uint64_t m = pack_terms_before(p, pk + 1) - tb - 1;
      uint64_t s = (tb - t0 - i) % o.nx; /* bits used before in this block */
      uint32_t prev = i == 0 ? X + (uint32_t)o.nb - 1 : W + (uint32_t)i - 1;
      /* columns ascending: prev (below the c's when a BOOL bit), the
       * wrapped bits c_0.., the bits from c_s, prev (above when a pack) */
      if (i == 0)
        term(&A, prev, &K->pow2[m]);
      uint64_t wrap = s + m > o.nx ? s + m - o.nx : 0;
      for (uint64_t u = m - wrap; u < m; u++)
        term(&A, Cc + (uint32_t)(s + u - o.nx), &K->pow2[u]);
      for (uint64_t u = 0; u < m - wrap; u++)
        term(&A, Cc + (uint32_t)(s + u), &K->pow2[u]);
      if (i > 0)
        term(&A, prev, &K->pow2[m]);
      term(&Bm, 0, &K->one), term(&C, W + (uint32_t)i, &K->one);
      end_row(&A, row), end_row(&Bm, row), end_row(&C, row);
    }
    for (uint64_t j = 0; j < o.nk; j++, row++) {
      uint32_t x = X + (uint32_t)(j % o.nb);
      term(&A, x, &K->one), term(&Bm, x, &K->one), term(&C, x, &K->one);
      end_row(&A, row), end_row(&Bm, row), end_row(&C, row);
    }
  }
  if (w) {
    for (uint64_t j = 0; j < o.nb; j++)
      w[X + j] = bit_of(g, o.aux + j) ? K->one : (bls12_381_fr){{0}};
    for (uint64_t j = 0; j < o.nx; j++) {
      const bls12_381_fr *a = j == 0 ? &w[X + o.nb - 1] : &w[Cc + j - 1], *bb = &w[X + j % o.nb];
      bool on = bls12_381_fr_is_zero(a) != bls12_381_fr_is_zero(bb);
      w[Cc + j] = on ? K->one : (bls12_381_fr){{0}};
    }
    uint64_t t0 = pack_terms_before(p, o.pack0);
    for (uint64_t i = 0; i < o.np; i++) {
      uint64_t pk = o.pack0 + i, tb = pack_terms_before(p, pk);
      uint64_t m = pack_terms_before(p, pk + 1) - tb - 1, s = (tb - t0 - i) % o.nx;
      const bls12_381_fr *prev = i == 0 ? &w[X + o.nb - 1] : &w[W + i - 1];
      bls12_381_fr acc, t;
      bls12_381_fr_mul(&acc, prev, &K->pow2[m]);
      for (uint64_t u = 0; u < m; u++)
        if (!bls12_381_fr_is_zero(&w[Cc + (s + u) % o.nx])) {
          t = K->pow2[u];
          bls12_381_fr_add(&acc, &acc, &t);
        }
      w[W + i] = acc;
    }
  }
}

typedef struct {
  gen_ctx g;
} par_gen;

static void gen_worker(void *vctx, unsigned idx, unsigned n) {
  const gen_ctx *g = vctx;
  size_t lo, hi;
  par_range(g->p->blocks, idx, n, &lo, &hi);
  for (uint64_t b = lo; b < hi; b++)
    gen_block(g, b);
}

static unsigned gen_threads(const pce_gen_plan *p) {
  unsigned n = p->rows < 65536 ? 1 : par_threads();
  return n ? n : 1;
}

cuzk_status pce_gen_circuit(pce_file *f, const pce_gen_plan *p, cuzk_err *err) {
  memset(f, 0, sizeof *f);
  f->num_inputs = p->ni;
  f->num_aux = (uint32_t)p->naux;
  f->num_constraints = (uint32_t)p->rows;
  const uint64_t own = p->rows - p->ni;
  const uint64_t nnz[3] = {p->n_in + p->nb + p->nx + p->nk + p->pack_terms + p->ni, own,
                           p->n_in + p->nb + 3 * p->nx + p->np + p->nk};
  for (int m = 0; m < 3; m++) {
    pce_csr *x = m == 0 ? &f->a : m == 1 ? &f->b : &f->c;
    x->nrows = p->rows;
    x->nnz = nnz[m];
    x->row_ptr = malloc((p->rows + 1) * 4);
    x->col = malloc(nnz[m] * 4 + 4);
    x->val = malloc(nnz[m] * 32 + 32);
    if (!x->row_ptr || !x->col || !x->val) {
      pce_close(f);
      return cuzk_err_set(err, CUZK_NO_MEMORY, "circuit gen: cannot allocate the %c matrix",
                          "ABC"[m]);
    }
    x->row_ptr[0] = 0;
  }
  f->total_nnz = nnz[0] + nnz[1] + nnz[2];
  consts K;
  consts_init(&K);
  /* input rows */
  wr A = {&f->a, 0}, Bm = {&f->b, 0}, C = {&f->c, 0};
  for (uint64_t k = 1; k < p->ni; k++) {
    term(&A, (uint32_t)k, &K.one), term(&Bm, 0, &K.one), term(&C, p->ni + (uint32_t)k - 1, &K.one);
    end_row(&A, k - 1), end_row(&Bm, k - 1), end_row(&C, k - 1);
  }
  gen_ctx g = {.p = p, .f = f, .k = &K};
  par_run(gen_threads(p), gen_worker, &g);
  /* dummy rows */
  A.k = nnz[0] - p->ni, Bm.k = own, C.k = nnz[2];
  for (uint64_t i = 0; i < p->ni; i++) {
    uint64_t r = own + i;
    term(&A, (uint32_t)i, &K.one);
    end_row(&A, r), end_row(&Bm, r), end_row(&C, r);
  }
  cuzk_status st = pce_density_compute(f, err);
  if (st != CUZK_OK)
    pce_close(f);
  return st;
}

void pce_gen_witness(const pce_gen_plan *p, uint64_t seed, uint32_t partition, bls12_381_fr *w) {
  consts K;
  consts_init(&K);
  w[0] = K.one;
  for (uint64_t k = 1; k < p->ni; k++) {
    limb_t v[4];
    for (int i = 0; i < 4; i++)
      v[i] = mix(seed ^ mix(((uint64_t)partition << 32 | k) * 4 + (uint64_t)i + 0x5bd1e995ULL));
    v[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r */
    bls12_381_fr_from_canon(&w[k], v);
    w[p->ni + k - 1] = w[k]; /* z_k = input_k */
  }
  gen_ctx g = {.p = p, .w = w, .seed = seed, .part = partition, .k = &K};
  par_run(gen_threads(p), gen_worker, &g);
}

cuzk_status pce_write_wtns(const char *path, const bls12_381_fr *w, uint64_t n, cuzk_err *err) {
  if (n > UINT32_MAX)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: %llu values, over 2^32 - 1", path,
                        (ull)n);
  uint8_t h[WTNS_BLS_HEADER_BYTES];
  wtns_bls_header(h, (uint32_t)n);
  fileio_out o;
  CUZK_TRY(fileio_out_open(&o, path, 0, err));
  enum { BLK = 65536 };
  uint8_t *buf = malloc(32 * BLK);
  cuzk_status st = buf ? fileio_write_fd(o.fd, h, sizeof h, path, err)
                       : cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for the buffer", path);
  for (uint64_t b = 0; b < n && st == CUZK_OK; b += BLK) {
    uint64_t e = b + BLK < n ? b + BLK : n;
    for (uint64_t i = b; i < e; i++) {
      limb_t v[4];
      bls12_381_fr_to_canon(v, &w[i]);
      limbs_to_le(buf + 32 * (i - b), v, 4);
    }
    st = fileio_write_fd(o.fd, buf, 32 * (e - b), path, err);
  }
  free(buf);
  if (st != CUZK_OK) {
    fileio_out_abort(&o);
    return st;
  }
  return fileio_out_commit(&o, err);
}
