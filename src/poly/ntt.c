/* CPU NTT over BLS12-381 Fr.
 *
 * DESIGN
 *
 * Small sizes (lg_n <= NTT_LG_DIRECT), and sizes up to NTT_LG_DIRECT_1T when
 * the caller asks for one thread, run one in-place radix-2 decimation-in-
 * frequency (DIF) pass over the whole array followed by a bit-reversal
 * permutation.
 *
 * Otherwise the transform is the four-step (Bailey) split n = n1 * n2,
 * n1 = 2^lg_col = 2^floor(lg_n/2), n2 = 2^lg_row, viewing a as an n1 x n2
 * row-major matrix (input index j = j1*n2 + j2).  With k = k1 + n1*k2:
 *
 *   X[k1 + n1 k2] = sum_j2 w_n2^(j2 k2) * w_n^(j2 k1) * sum_j1 a[j1 n2 + j2] w_n1^(j1 k1)
 *
 *   1. columns: for each column j2, a size-n1 DIF; row t of the column then
 *      holds Y_j2[k1] with k1 = bitrev(t).  Columns are strided by n2
 *      elements (a power of two, so they alias in every cache set); a worker
 *      copies B adjacent columns into a contiguous n1 x B scratch, transforms
 *      them there and copies them back.
 *   2. rows: row t (k1 = bitrev(t)) is multiplied by w_n^(k1 j2), generated
 *      as a running product of g = w_n^k1 (2 mul per element; the inverse
 *      folds its 1/n into the start of the product for free), then a
 *      contiguous size-n2 DIF.  Position t*n2 + u now holds
 *      X[bitrev(t) + n1 bitrev(u)] = X[bitrev_lg_n(t*n2 + u)].
 *   3. a bit-reversal permutation restores natural order.
 *
 * Each step is one par_run over independent columns, rows or tiles; the
 * fork-join between them is the only synchronisation.  The stoppable
 * entry point polls its stop hook (base/stop.h) per block of B columns,
 * per row and per NTT_POLL elements of the coset scaling, and between
 * steps; the direct pass (at most 2^16 elements, milliseconds) runs whole.  The inverse is the
 * same transform with w^-1 tables.
 *
 * Cost: butterflies (n/2) lg n, of which about n have twiddle 1 and skip the
 * multiplication, plus 2n mul for the step-2 twiddles; memory is touched in
 * three passes (two transforms, one permutation) whatever lg_n.
 *
 * Tables: tw holds w_M^(+-i) for i < M/2, and every sub-transform's roots
 * are a strided view of it; M = n up to 2^NTT_LG_DIRECT_1T (1 MiB per
 * direction, so that the direct pass is available), M = n2 above.  rt holds
 * w_n^(+-k) for k < n1 (four-step only).  Above 2^16 the tables are
 * O(sqrt n): 2^28 needs 2 x 2^13 + 2 x 2^14 elements, 1.5 MiB. */
#include "poly/ntt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/par.h"
#include "base/stop.h"

typedef bls12_381_fr fr;

/* Plan thresholds.  The four-step pays n extra mul for its twiddles (see
 * above), so the direct pass wins while the array stays in cache: on one
 * thread, per butterfly, it measured faster up to 2^18 on the 2-core Zen 1
 * development machine (512 KiB L2, 8 MiB L3; figures in bench/RESULTS.md),
 * and it is used up to 2^16, where its twiddle table (n/2 elements per
 * direction) reaches 1 MiB.  The direct pass is one sequential pass, so
 * with more than one thread the four-step is used from 2^13 on; below that
 * the whole transform takes under a millisecond and runs on one thread. */
#define NTT_LG_DIRECT 12
#define NTT_LG_DIRECT_1T 16

/* A column worker's scratch, n1 * B elements, aims at 8192 elements (256 KiB,
 * half the L2) so that the column DIF runs from L2; B is at least 2 (one
 * 64-byte line per row; so 512 KiB at 2^27, 1 MiB at 2^28) and at most 16. */
#define NTT_COL_SCRATCH_LG 13
#define NTT_COL_B_MIN 2
#define NTT_COL_B_MAX 16

/* Bit reversal swaps 2^3 x 2^3 tiles: 8 rows of 256 contiguous bytes each,
 * two tiles 4 KiB; the 8 rows of a tile fit the 8 ways of an L1 set even when
 * their stride is a multiple of 4 KiB (it is). */
#define NTT_BITREV_TILE_LG 3

/* Below this many elements the O(n) passes (scaling) run on one thread. */
#define NTT_PAR_MIN 4096

/* Elements of the coset scaling between two polls of the stop hook. */
#define NTT_POLL ((size_t)1 << 14)

/* ---------------------------------------------------------------- helpers */

static inline size_t bitrev(size_t x, unsigned bits) {
  if (bits == 0)
    return 0;
  uint64_t v = (uint64_t)x;
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
  v = __builtin_bswap64(v);
  return (size_t)(v >> (64 - bits));
}

static unsigned clamp_threads(unsigned threads, size_t units) {
  if (threads == 0)
    threads = par_threads();
  if (threads == 0)
    threads = 1;
  if ((size_t)threads > units)
    threads = units ? (unsigned)units : 1;
  return threads;
}

static void *alloc_aligned(size_t bytes) {
  size_t rounded = (bytes + 63) & ~(size_t)63;
  if (rounded < bytes)
    return NULL;
  return aligned_alloc(64, rounded ? rounded : 64);
}

/* t[i] = g^i for i < n (running product, n-1 mul). */
static void powers(fr *t, size_t n, const fr *g) {
  if (n == 0)
    return;
  bls12_381_fr_set_one(&t[0]);
  for (size_t i = 1; i < n; i++) bls12_381_fr_mul(&t[i], &t[i - 1], g);
}

/* ------------------------------------------------------------------ roots */

void ntt_root(fr *out, ntt_roots roots, unsigned k) {
  static const limb_t r5[4] = BLS12_381_FR_ROOT_5T, r7[4] = BLS12_381_FR_ROOT_7T;
  if (k > BLS12_381_FR_TWO_ADICITY) {
    bls12_381_fr_set_zero(out);
    return;
  }
  bls12_381_fr_from_canon(out, roots == NTT_ROOTS_BELLPERSON ? r7 : r5);
  /* w[k] = w[32]^(2^(32-k)) */
  for (unsigned i = k; i < BLS12_381_FR_TWO_ADICITY; i++) bls12_381_fr_sqr(out, out);
}

void ntt_coset_shift(fr *out, const ntt_domain *d) {
  if (d->lg_n < BLS12_381_FR_TWO_ADICITY)
    ntt_root(out, d->roots, d->lg_n + 1);
  else
    bls12_381_fr_set_u64(out, 25); /* snarkjs Fr.shift = 5^2 */
}

/* ----------------------------------------------------------------- domain */

cuzk_status ntt_domain_init(ntt_domain *d, unsigned lg_n, ntt_roots roots, cuzk_err *err) {
  memset(d, 0, sizeof *d);
  if (lg_n > NTT_LG_MAX)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "ntt: lg_n = %u exceeds the 2-adicity %u of Fr",
                        lg_n, (unsigned)NTT_LG_MAX);
  if (roots != NTT_ROOTS_SNARKJS && roots != NTT_ROOTS_BELLPERSON)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "ntt: unknown root chain %d", (int)roots);

  unsigned lg_col = lg_n <= NTT_LG_DIRECT ? 0 : lg_n / 2;
  unsigned lg_row = lg_n - lg_col;
  unsigned lg_tw = lg_n <= NTT_LG_DIRECT_1T ? lg_n : lg_row;
  size_t tw_n = lg_tw ? (size_t)1 << (lg_tw - 1) : 0;
  size_t rt_n = lg_col ? (size_t)1 << lg_col : 0;
  void *mem = alloc_aligned(2 * (tw_n + rt_n) * sizeof(fr));
  if (!mem)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "ntt: cannot allocate twiddle tables for 2^%u", lg_n);

  d->lg_n = lg_n;
  d->n = (size_t)1 << lg_n;
  d->roots = roots;
  ntt_root(&d->omega, roots, lg_n);
  bls12_381_fr_inv(&d->omega_inv, &d->omega);
  bls12_381_fr_set_u64(&d->n_inv, (uint64_t)d->n);
  bls12_381_fr_inv(&d->n_inv, &d->n_inv);
  d->lg_col = lg_col;
  d->lg_row = lg_row;
  d->lg_tw = lg_tw;
  d->mem = mem;
  fr *p = mem;
  d->tw[0] = p, p += tw_n;
  d->tw[1] = p, p += tw_n;
  d->rt[0] = p, p += rt_n;
  d->rt[1] = p;

  /* w_M = w[lg_tw], the same chain: w_M = omega^(n/M). */
  fr wm, wm_inv;
  ntt_root(&wm, roots, lg_tw);
  bls12_381_fr_inv(&wm_inv, &wm);
  powers(d->tw[0], tw_n, &wm);
  powers(d->tw[1], tw_n, &wm_inv);
  powers(d->rt[0], rt_n, &d->omega);
  powers(d->rt[1], rt_n, &d->omega_inv);
  return CUZK_OK;
}

void ntt_domain_fini(ntt_domain *d) {
  free(d->mem);
  memset(d, 0, sizeof *d);
}

/* ---------------------------------------------------------------- kernels */

/* In-place radix-2 DIF of size 2^lg_m along t over a block of B independent
 * sequences: element (t, c) lives at x[t*rs + c], c < B.  Natural order in,
 * bit-reversed t out.  tw holds w_M^i (i < M/2, M = 2^lg_tw >= 2^lg_m).
 *
 * Stage with span h (h = 2^(lg_m-1) down to 1), blocks of 2h:
 *   (u, v) -> (u + v, (u - v) w_2h^i),  w_2h^i = tw[i * M/(2h)]
 * 1 mul per butterfly except i = 0. */
static inline __attribute__((always_inline)) void dif_block(fr *x, size_t rs, size_t B,
                                                            unsigned lg_m, const fr *tw,
                                                            unsigned lg_tw) {
  size_t m = (size_t)1 << lg_m;
  for (unsigned s = lg_m; s >= 1; s--) {
    size_t h = (size_t)1 << (s - 1);
    size_t tstep = (size_t)1 << (lg_tw - s);
    for (size_t blk = 0; blk < m; blk += 2 * h) {
      fr *u = x + blk * rs, *v = x + (blk + h) * rs;
      /* i = 0: twiddle 1 */
      for (size_t c = 0; c < B; c++) {
        fr t;
        bls12_381_fr_sub(&t, &u[c], &v[c]);
        bls12_381_fr_add(&u[c], &u[c], &v[c]);
        v[c] = t;
      }
      for (size_t i = 1; i < h; i++) {
        const fr *w = &tw[i * tstep];
        fr *ui = u + i * rs, *vi = v + i * rs;
        for (size_t c = 0; c < B; c++) {
          fr t;
          bls12_381_fr_sub(&t, &ui[c], &vi[c]);
          bls12_381_fr_add(&ui[c], &ui[c], &vi[c]);
          bls12_381_fr_mul(&vi[c], &t, w);
        }
      }
    }
  }
}

/* A contiguous sequence. */
static void dif_row(fr *x, unsigned lg_m, const fr *tw, unsigned lg_tw) {
  dif_block(x, 1, 1, lg_m, tw, lg_tw);
}

/* B sequences interleaved with row stride rs. */
static void dif_cols(fr *x, size_t rs, size_t B, unsigned lg_m, const fr *tw, unsigned lg_tw) {
  dif_block(x, rs, B, lg_m, tw, lg_tw);
}

/* ---------------------------------------------------------- bit reversal */

/* Index i = (h, mid, l) with h and l of T = NTT_BITREV_TILE_LG bits (fewer
 * for tiny n) and mid of M = lg_n - 2T bits; bitrev(i) = (rev l, rev mid,
 * rev h).  So the 2^T x 2^T tile of a given mid (rows h, 2^T contiguous
 * elements each) maps onto the tile of rev(mid), transposed and with rows
 * and columns bit-reversed: swap A[h][l] with B[rev l][rev h].  A worker
 * takes the pairs whose smaller mid lies in its range. */
typedef struct {
  fr *a;
  unsigned lg_n, tl, ml;
} bitrev_ctx;

static void bitrev_worker(void *vctx, unsigned idx, unsigned nw) {
  const bitrev_ctx *c = vctx;
  unsigned tl = c->tl, ml = c->ml, hs = ml + tl; /* h is shifted by hs */
  size_t tn = (size_t)1 << tl, lo, hi;
  unsigned char rt[1 << NTT_BITREV_TILE_LG];
  for (size_t i = 0; i < tn; i++) rt[i] = (unsigned char)bitrev(i, tl);
  par_range((size_t)1 << ml, idx, nw, &lo, &hi);
  for (size_t mid = lo; mid < hi; mid++) {
    size_t rm = bitrev(mid, ml);
    if (mid > rm)
      continue;
    size_t b1 = mid << tl, b2 = rm << tl;
    for (size_t h = 0; h < tn; h++) {
      for (size_t l = 0; l < tn; l++) {
        size_t i1 = (h << hs) | b1 | l;
        size_t i2 = ((size_t)rt[l] << hs) | b2 | rt[h];
        if (mid == rm && i1 >= i2)
          continue;
        fr t = c->a[i1];
        c->a[i1] = c->a[i2];
        c->a[i2] = t;
      }
    }
  }
}

static void bitrev_permute(fr *a, unsigned lg_n, unsigned threads) {
  if (lg_n < 2)
    return;
  bitrev_ctx c = {a, lg_n, 0, 0};
  c.tl = lg_n / 2 < NTT_BITREV_TILE_LG ? lg_n / 2 : NTT_BITREV_TILE_LG;
  c.ml = lg_n - 2 * c.tl;
  par_run(clamp_threads(threads, (size_t)1 << c.ml), bitrev_worker, &c);
}

/* --------------------------------------------------------------- four-step */

typedef struct {
  const ntt_domain *d;
  fr *a;
  int dir; /* 0 forward, 1 inverse */
  size_t B;
  const cuzk_stop *stop;
} step_ctx;

/* Step 1: size-n1 DIF of every column, B columns at a time. */
static void cols_worker(void *vctx, unsigned idx, unsigned nw) {
  const step_ctx *c = vctx;
  const ntt_domain *d = c->d;
  size_t n1 = (size_t)1 << d->lg_col, n2 = (size_t)1 << d->lg_row, B = c->B, lo, hi;
  const fr *tw = d->tw[c->dir];
  par_range(n2 / B, idx, nw, &lo, &hi);
  if (lo == hi)
    return;
  fr *scr = alloc_aligned(n1 * B * sizeof(fr));
  for (size_t blk = lo; blk < hi && !cuzk_stopped(c->stop); blk++) {
    fr *col = c->a + blk * B;
    if (!scr) {
      /* No scratch: the same transform on the strided data (slow, correct). */
      dif_cols(col, n2, B, d->lg_col, tw, d->lg_tw);
      continue;
    }
    for (size_t t = 0; t < n1; t++) memcpy(scr + t * B, col + t * n2, B * sizeof(fr));
    dif_cols(scr, B, B, d->lg_col, tw, d->lg_tw);
    for (size_t t = 0; t < n1; t++) memcpy(col + t * n2, scr + t * B, B * sizeof(fr));
  }
  free(scr);
}

/* Step 2: twiddle w^(k1 j2) (times 1/n for the inverse), then size-n2 DIF. */
static void rows_worker(void *vctx, unsigned idx, unsigned nw) {
  const step_ctx *c = vctx;
  const ntt_domain *d = c->d;
  size_t n1 = (size_t)1 << d->lg_col, n2 = (size_t)1 << d->lg_row, lo, hi;
  const fr *tw = d->tw[c->dir];
  par_range(n1, idx, nw, &lo, &hi);
  for (size_t t = lo; t < hi && !cuzk_stopped(c->stop); t++) {
    fr *row = c->a + t * n2;
    size_t k1 = bitrev(t, d->lg_col);
    const fr *g = &d->rt[c->dir][k1];
    fr x;
    if (c->dir == 0) {
      /* x = g^j2, starting at j2 = 1 (j2 = 0 has twiddle 1) */
      if (k1 != 0) {
        x = *g;
        for (size_t j = 1; j < n2; j++) {
          bls12_381_fr_mul(&row[j], &row[j], &x);
          bls12_381_fr_mul(&x, &x, g);
        }
      }
    } else {
      /* x = g^j2 / n */
      x = d->n_inv;
      for (size_t j = 0; j < n2; j++) {
        bls12_381_fr_mul(&row[j], &row[j], &x);
        bls12_381_fr_mul(&x, &x, g);
      }
    }
    dif_row(row, d->lg_row, tw, d->lg_tw);
  }
}

static void scale_serial(fr *a, size_t n, const fr *s) {
  for (size_t i = 0; i < n; i++) bls12_381_fr_mul(&a[i], &a[i], s);
}

/* false when stopped (a is then unspecified). */
static bool transform(const ntt_domain *d, fr *a, int dir, unsigned threads,
                      const cuzk_stop *stop) {
  if (d->lg_col == 0 || (d->lg_tw == d->lg_n && clamp_threads(threads, d->n) == 1)) {
    dif_row(a, d->lg_n, d->tw[dir], d->lg_tw);
    bitrev_permute(a, d->lg_n, 1);
    if (dir)
      scale_serial(a, d->n, &d->n_inv);
    return true;
  }
  size_t n1 = (size_t)1 << d->lg_col, n2 = (size_t)1 << d->lg_row;
  size_t B = (size_t)1 << (NTT_COL_SCRATCH_LG > d->lg_col ? NTT_COL_SCRATCH_LG - d->lg_col : 0);
  if (B < NTT_COL_B_MIN)
    B = NTT_COL_B_MIN;
  if (B > NTT_COL_B_MAX)
    B = NTT_COL_B_MAX;
  if (B > n2)
    B = n2;
  step_ctx c = {d, a, dir, B, stop};
  par_run(clamp_threads(threads, n2 / B), cols_worker, &c);
  if (cuzk_stopped(stop))
    return false;
  par_run(clamp_threads(threads, n1), rows_worker, &c);
  if (cuzk_stopped(stop))
    return false;
  bitrev_permute(a, d->lg_n, threads);
  return true;
}

void ntt_forward(const ntt_domain *d, fr *a, unsigned threads) {
  transform(d, a, 0, threads, NULL);
}

void ntt_inverse(const ntt_domain *d, fr *a, unsigned threads) {
  transform(d, a, 1, threads, NULL);
}

/* ------------------------------------------------------------ coset scale */

typedef struct {
  fr *a;
  size_t n;
  const fr *g;
  const cuzk_stop *stop;
} scale_ctx;

/* Worker's range [lo, hi): x = g^lo by square-and-multiply, then a running
 * product; 2 mul per element. */
static void scale_worker(void *vctx, unsigned idx, unsigned nw) {
  const scale_ctx *c = vctx;
  size_t lo, hi;
  par_range(c->n, idx, nw, &lo, &hi);
  if (lo == hi)
    return;
  fr x;
  limb_t e = (limb_t)lo;
  bls12_381_fr_pow(&x, c->g, &e, 1);
  for (size_t k = lo; k < hi; k++) {
    if ((k - lo) % NTT_POLL == 0 && cuzk_stopped(c->stop))
      return;
    bls12_381_fr_mul(&c->a[k], &c->a[k], &x);
    bls12_381_fr_mul(&x, &x, c->g);
  }
}

static void scale_powers(fr *a, size_t n, const fr *g, unsigned threads, const cuzk_stop *stop) {
  scale_ctx c = {a, n, g, stop};
  unsigned nw = n < NTT_PAR_MIN ? 1 : clamp_threads(threads, n / (NTT_PAR_MIN / 2));
  par_run(nw, scale_worker, &c);
}

void ntt_scale_powers(fr *a, size_t n, const fr *g, unsigned threads) {
  scale_powers(a, n, g, threads, NULL);
}

bool ntt_to_odd_coset_stoppable(const ntt_domain *d, fr *a, unsigned threads,
                                const cuzk_stop *stop) {
  fr shift;
  ntt_coset_shift(&shift, d);
  if (!transform(d, a, 1, threads, stop))
    return false;
  scale_powers(a, d->n, &shift, threads, stop);
  return !cuzk_stopped(stop) && transform(d, a, 0, threads, stop);
}

void ntt_to_odd_coset(const ntt_domain *d, fr *a, unsigned threads) {
  ntt_to_odd_coset_stoppable(d, a, threads, NULL);
}
