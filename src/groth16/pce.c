/* PCE .bin reader, checker, writer and evaluator: see pce.h. */
#include "groth16/pce.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/par.h"

typedef unsigned long long ull;

static const char *const MAT_NAME[3] = {"A", "B", "C"};
static const char *const DEN_NAME[3] = {"a_aux", "b_input", "b_aux"};

#define READ_CHUNK ((size_t)64 << 20) /* bytes per read(2) when reading a file */
#define PAR_MIN 65536u                /* items below which one thread checks */

/* ---- layout ------------------------------------------------------------ */

/* Byte offsets of each array's data (after its u64 count) as the file lays
 * them out: mat[m][0..2] row_ptrs, cols, vals; den[d] words, den_meta[d]
 * the (bit_len, popcount) pair; end the file's size. */
typedef struct {
  uint64_t mat[3][3];
  uint64_t den[3], den_meta[3];
  uint64_t end;
} pce_layout;

static const pce_csr *mat_of(const pce_file *f, int m) {
  return m == 0 ? &f->a : m == 1 ? &f->b : &f->c;
}
static pce_csr *mat_mut(pce_file *f, int m) { return m == 0 ? &f->a : m == 1 ? &f->b : &f->c; }
static const pce_density *den_of(const pce_file *f, int d) {
  return d == 0 ? &f->a_aux : d == 1 ? &f->b_input : &f->b_aux;
}
static pce_density *den_mut(pce_file *f, int d) {
  return d == 0 ? &f->a_aux : d == 1 ? &f->b_input : &f->b_aux;
}

static void layout_of(const pce_file *f, pce_layout *l) {
  uint64_t o = PCE_HEADER_BYTES;
  for (int m = 0; m < 3; m++) {
    const pce_csr *x = mat_of(f, m);
    o += 8, l->mat[m][0] = o, o += (x->nrows + 1) * 4;
    o += 8, l->mat[m][1] = o, o += x->nnz * 4;
    o += 8, l->mat[m][2] = o, o += x->nnz * 32;
  }
  for (int d = 0; d < 3; d++) {
    const pce_density *x = den_of(f, d);
    o += 8, l->den[d] = o, o += x->nwords * 8;
    l->den_meta[d] = o, o += 16;
  }
  l->end = o;
}

uint64_t pce_file_bytes(const pce_file *f) {
  pce_layout l;
  layout_of(f, &l);
  return l.end;
}

unsigned pce_domain_lg(const pce_file *f) {
  unsigned k = 0;
  while (((uint64_t)1 << k) < f->num_constraints)
    k++;
  return k;
}

bool pce_is_pce(const void *p, size_t len) { return len >= 4 && !memcmp(p, PCE_MAGIC, 4); }

bool pce_density_get(const pce_density *d, uint64_t i) {
  return i < d->bit_len && (d->words[i >> 6] >> (i & 63) & 1);
}

void pce_close(pce_file *f) {
  if (!f)
    return;
  for (int m = 0; m < 3; m++) {
    pce_csr *x = mat_mut(f, m);
    free(x->row_ptr), free(x->col), free(x->val);
  }
  for (int d = 0; d < 3; d++)
    free(den_mut(f, d)->words);
  memset(f, 0, sizeof *f);
}

/* ---- reading ----------------------------------------------------------- */

/* The bytes being read: memory or a descriptor, with the position. */
typedef struct {
  const uint8_t *mem;
  int fd;
  uint64_t size, off;
  const char *name;
} src;

static cuzk_status src_read(src *s, void *dst, uint64_t len, const char *what, cuzk_err *err) {
  if (len > s->size - s->off)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: file ends at byte %llu inside %s (%llu bytes needed at byte %llu)",
                        s->name, (ull)s->size, what, (ull)len, (ull)s->off);
  if (s->mem) {
    if (len)
      memcpy(dst, s->mem + s->off, len);
  } else {
    uint8_t *d = dst;
    uint64_t done = 0;
    while (done < len) {
      size_t want = len - done < READ_CHUNK ? (size_t)(len - done) : READ_CHUNK;
      ssize_t got = pread(s->fd, d + done, want, (off_t)(s->off + done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return cuzk_err_set(err, CUZK_IO, "%s: read at byte %llu: %s", s->name,
                            (ull)(s->off + done), strerror(errno));
      if (got == 0)
        return cuzk_err_set(err, CUZK_IO, "%s: file shrank while read (ends at byte %llu)",
                            s->name, (ull)(s->off + done));
      done += (uint64_t)got;
    }
  }
  s->off += len;
  return CUZK_OK;
}

static cuzk_status src_u64(src *s, uint64_t *v, const char *what, cuzk_err *err) {
  uint8_t b[8];
  CUZK_TRY(src_read(s, b, 8, what, err));
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--)
    x = x << 8 | b[i];
  *v = x;
  return CUZK_OK;
}

/* A u64 count of elements of esize bytes at the position, checked to fit
 * in the bytes after it (and against want when want != UINT64_MAX), then
 * the array allocated and read. */
static cuzk_status src_array(src *s, void **out, uint64_t *count, size_t esize, uint64_t want,
                             const char *want_what, const char *what, cuzk_err *err) {
  char label[64];
  snprintf(label, sizeof label, "%s count", what);
  uint64_t at = s->off, n;
  CUZK_TRY(src_u64(s, &n, label, err));
  if (want != UINT64_MAX && n != want)
    return cuzk_err_set(err, CUZK_FORMAT, "%s: %s at byte %llu is %llu, expected %s = %llu",
                        s->name, label, (ull)at, (ull)n, want_what, (ull)want);
  uint64_t left = s->size - s->off;
  if (n > left / esize)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: %s at byte %llu is %llu: %llu bytes of %s would run past the end "
                        "(%llu bytes left)",
                        s->name, label, (ull)at, (ull)n,
                        (ull)(n > UINT64_MAX / esize ? UINT64_MAX : n * esize), what, (ull)left);
  void *p = malloc(n ? (size_t)(n * esize) : 1);
  if (!p)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: %s: cannot allocate %llu bytes", s->name, what,
                        (ull)(n * esize));
  *out = p;
  *count = n;
  return src_read(s, p, n * esize, what, err);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The 32-byte header into f's counts, checked as far as the header alone
 * allows. */
static cuzk_status read_header(pce_file *f, src *s, cuzk_err *err) {
  uint8_t h[PCE_HEADER_BYTES];
  CUZK_TRY(src_read(s, h, PCE_HEADER_BYTES, "the 32-byte header", err));
  if (memcmp(h, PCE_MAGIC, 4))
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: magic at byte 0 is %02x %02x %02x %02x, expected \"PCE\\x02\" "
                        "(50 43 45 02): not a PCE file",
                        s->name, h[0], h[1], h[2], h[3]);
  uint32_t version = le32(h + 4);
  if (version != PCE_VERSION)
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s: version at byte 4 is %u, expected %u",
                        s->name, version, PCE_VERSION);
  f->num_inputs = le32(h + 8);
  f->num_aux = le32(h + 12);
  f->num_constraints = le32(h + 16);
  f->total_nnz = (uint64_t)le32(h + 20) | (uint64_t)le32(h + 24) << 32;
  f->reserved = le32(h + 28);
  if (f->num_inputs == 0)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: num_inputs at byte 8 is 0, expected at least 1 (ONE is input 0)",
                        s->name);
  if (f->num_constraints < f->num_inputs)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: num_constraints at byte 16 is %u, below num_inputs %u (the rows "
                        "include one dummy row per input)",
                        s->name, f->num_constraints, f->num_inputs);
  return CUZK_OK;
}

static cuzk_status read_all(pce_file *f, src *s, cuzk_err *err) {
  CUZK_TRY(read_header(f, s, err));
  char what[64];
  for (int m = 0; m < 3; m++) {
    pce_csr *x = mat_mut(f, m);
    void *p;
    uint64_t n;
    x->nrows = f->num_constraints;
    snprintf(what, sizeof what, "%s.row_ptrs", MAT_NAME[m]);
    CUZK_TRY(src_array(s, &p, &n, 4, x->nrows + 1, "num_constraints + 1", what, err));
    x->row_ptr = p;
    snprintf(what, sizeof what, "%s.cols", MAT_NAME[m]);
    uint64_t at = s->off;
    CUZK_TRY(src_array(s, &p, &n, 4, UINT64_MAX, NULL, what, err));
    x->col = p;
    x->nnz = n;
    if (n > UINT32_MAX)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: %s count at byte %llu is %llu, over 2^32 - 1 (row_ptrs are u32)",
                          s->name, what, (ull)at, (ull)n);
    snprintf(what, sizeof what, "%s.vals", MAT_NAME[m]);
    CUZK_TRY(src_array(s, &p, &n, 32, x->nnz, "the cols count", what, err));
    x->val = p;
  }
  const uint64_t bits[3] = {f->num_aux, f->num_inputs, f->num_aux};
  const char *bits_what[3] = {"num_aux", "num_inputs", "num_aux"};
  for (int d = 0; d < 3; d++) {
    pce_density *x = den_mut(f, d);
    void *p;
    snprintf(what, sizeof what, "%s.words", DEN_NAME[d]);
    uint64_t at = s->off;
    CUZK_TRY(src_array(s, &p, &x->nwords, 8, UINT64_MAX, NULL, what, err));
    x->words = p;
    uint64_t meta = s->off;
    snprintf(what, sizeof what, "%s.bit_len", DEN_NAME[d]);
    CUZK_TRY(src_u64(s, &x->bit_len, what, err));
    snprintf(what, sizeof what, "%s.popcount", DEN_NAME[d]);
    CUZK_TRY(src_u64(s, &x->popcount, what, err));
    if (x->bit_len != bits[d])
      return cuzk_err_set(err, CUZK_FORMAT, "%s: %s.bit_len at byte %llu is %llu, expected %s = %llu",
                          s->name, DEN_NAME[d], (ull)meta, (ull)x->bit_len, bits_what[d],
                          (ull)bits[d]);
    if (x->nwords != (x->bit_len + 63) / 64)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: %s.words count at byte %llu is %llu, expected ceil(bit_len %llu "
                          "/ 64) = %llu",
                          s->name, DEN_NAME[d], (ull)at, (ull)x->nwords, (ull)x->bit_len,
                          (ull)((x->bit_len + 63) / 64));
  }
  if (s->off != s->size)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: %llu trailing bytes at byte %llu, expected the end of the file after "
                        "b_aux.popcount",
                        s->name, (ull)(s->size - s->off), (ull)s->off);
  return CUZK_OK;
}

cuzk_status pce_parse(pce_file *f, const uint8_t *p, size_t n, const char *name, cuzk_err *err) {
  memset(f, 0, sizeof *f);
  src s = {.mem = p, .fd = -1, .size = n, .off = 0, .name = name};
  cuzk_status st = read_all(f, &s, err);
  if (st == CUZK_OK)
    st = pce_validate(f, name, err);
  if (st != CUZK_OK)
    pce_close(f);
  return st;
}

cuzk_status pce_open(pce_file *f, const char *path, cuzk_err *err) {
  memset(f, 0, sizeof *f);
  int fd;
  struct stat sb;
  CUZK_TRY(fileio_open_read(&fd, &sb, path, err));
  src s = {.mem = NULL, .fd = fd, .size = (uint64_t)sb.st_size, .off = 0, .name = path};
  cuzk_status st = read_all(f, &s, err);
  close(fd);
  if (st == CUZK_OK)
    st = pce_validate(f, path, err);
  if (st != CUZK_OK)
    pce_close(f);
  return st;
}

cuzk_status pce_read_header(pce_file *f, const char *path, cuzk_err *err) {
  memset(f, 0, sizeof *f);
  int fd;
  struct stat sb;
  CUZK_TRY(fileio_open_read(&fd, &sb, path, err));
  src s = {.mem = NULL, .fd = fd, .size = (uint64_t)sb.st_size, .off = 0, .name = path};
  cuzk_status st = read_header(f, &s, err);
  /* The densities' popcounts, where the header's counts put them: the
   * last three records, each {u64 nwords, nwords words, bit_len, popcount}. */
  const uint64_t bits[3] = {f->num_aux, f->num_inputs, f->num_aux};
  uint64_t end = s.size;
  for (int d = 2; st == CUZK_OK && d >= 0; d--) {
    pce_density *x = den_mut(f, d);
    x->bit_len = bits[d];
    x->nwords = (bits[d] + 63) / 64;
    uint64_t rec = 8 + 8 * x->nwords + 16;
    uint8_t b[8];
    if (end < PCE_HEADER_BYTES + rec || pread(fd, b, 8, (off_t)(end - 8)) != 8) {
      x->popcount = x->bit_len; /* unknown: the bound */
    } else {
      uint64_t v = (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
      x->popcount = v <= x->bit_len ? v : x->bit_len;
    }
    end = end >= rec ? end - rec : 0;
  }
  close(fd);
  if (st != CUZK_OK)
    memset(f, 0, sizeof *f);
  return st;
}

/* ---- checking ---------------------------------------------------------- */

typedef enum { PH_ROWPTR, PH_COLS, PH_VALS, PH_DUMMY, PH_DENSITY } phase;

/* One parallel check: worker i scans its share and records its first
 * failure (by position) in bad[i] with the message. */
typedef struct {
  const pce_file *f;
  const pce_layout *l;
  const char *name;
  phase ph;
  int m;
  uint64_t total;     /* items scanned */
  uint64_t *bad;      /* per worker: first failing item, UINT64_MAX none */
  char (*msg)[CUZK_ERR_MSG_MAX];
  uint64_t *computed[3]; /* PH_DENSITY: the bitmaps the matrices give */
} check_ctx;

static bool fr_lt_r(const bls12_381_fr *v) { return limbs_lt(v->l, bls12_381_fr_modulus, 4); }

/* The row holding term k (k < nnz): the last r with row_ptr[r] <= k. */
static uint64_t row_of(const pce_csr *x, uint64_t k) {
  uint64_t lo = 0, hi = x->nrows; /* row_ptr[lo] <= k < row_ptr[hi] */
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (x->row_ptr[mid] <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void check_worker(void *vctx, unsigned idx, unsigned n) {
  check_ctx *c = vctx;
  const pce_file *f = c->f;
  const pce_csr *x = c->m >= 0 ? mat_of(f, c->m) : NULL;
  size_t lo, hi;
  par_range(c->total, idx, n, &lo, &hi);
  c->bad[idx] = UINT64_MAX;
  char *msg = c->msg[idx];
  const char *M = c->m >= 0 ? MAT_NAME[c->m] : "";
  const uint64_t nvars = (uint64_t)f->num_inputs + f->num_aux;
  switch (c->ph) {
  case PH_ROWPTR: /* item r: row_ptr[r] */
    for (uint64_t r = lo; r < hi; r++) {
      uint32_t v = x->row_ptr[r];
      uint64_t at = c->l->mat[c->m][0] + r * 4;
      const char *why = NULL;
      char buf[160];
      if (r == 0 && v != 0)
        why = "expected 0 (the first row starts at term 0)";
      else if (r > 0 && v < x->row_ptr[r - 1]) {
        snprintf(buf, sizeof buf, "below row_ptrs[%llu] = %u (row_ptrs must not decrease)",
                 (ull)(r - 1), x->row_ptr[r - 1]);
        why = buf;
      } else if (r == x->nrows && v != x->nnz) {
        snprintf(buf, sizeof buf, "expected the matrix's nnz %llu (the last row ends there)",
                 (ull)x->nnz);
        why = buf;
      } else if (v > x->nnz) {
        snprintf(buf, sizeof buf, "above the matrix's nnz %llu", (ull)x->nnz);
        why = buf;
      }
      if (why) {
        c->bad[idx] = r;
        snprintf(msg, CUZK_ERR_MSG_MAX, "%s: %s.row_ptrs[%llu] at byte %llu is %u, %s", c->name, M,
                 (ull)r, (ull)at, v, why);
        return;
      }
    }
    return;
  case PH_COLS: /* item r: the columns of row r */
    for (uint64_t r = lo; r < hi; r++)
      for (uint64_t k = x->row_ptr[r]; k < x->row_ptr[r + 1]; k++) {
        uint32_t col = x->col[k];
        uint64_t at = c->l->mat[c->m][1] + k * 4;
        if (col >= nvars) {
          c->bad[idx] = k;
          snprintf(msg, CUZK_ERR_MSG_MAX,
                   "%s: %s.cols[%llu] at byte %llu (row %llu) is column %u, expected below "
                   "num_inputs + num_aux = %llu",
                   c->name, M, (ull)k, (ull)at, (ull)r, col, (ull)nvars);
          return;
        }
        if (k > x->row_ptr[r] && col <= x->col[k - 1]) {
          c->bad[idx] = k;
          snprintf(msg, CUZK_ERR_MSG_MAX,
                   "%s: %s.cols[%llu] at byte %llu (row %llu) is column %u, not above the "
                   "previous column %u (columns ascend strictly within a row)",
                   c->name, M, (ull)k, (ull)at, (ull)r, col, x->col[k - 1]);
          return;
        }
      }
    return;
  case PH_VALS: /* item k: val[k] */
    for (uint64_t k = lo; k < hi; k++) {
      const bls12_381_fr *v = &x->val[k];
      const char *why = !fr_lt_r(v) ? "is not below r (Montgomery limbs must be reduced)"
                        : bls12_381_fr_is_zero(v) ? "is zero (zero coefficients are not stored)"
                                                  : NULL;
      if (why) {
        c->bad[idx] = k;
        snprintf(msg, CUZK_ERR_MSG_MAX, "%s: %s.vals[%llu] at byte %llu (row %llu) %s", c->name,
                 M, (ull)k, (ull)(c->l->mat[c->m][2] + k * 32), (ull)row_of(x, k), why);
        return;
      }
    }
    return;
  case PH_DUMMY: { /* item i: dummy row num_constraints - num_inputs + i */
    uint64_t base = f->num_constraints - f->num_inputs;
    for (uint64_t i = lo; i < hi; i++) {
      uint64_t r = base + i;
      for (int m = 0; m < 3; m++) {
        const pce_csr *y = mat_of(f, m);
        uint64_t k0 = y->row_ptr[r], len = y->row_ptr[r + 1] - k0;
        bool ok = m == 0 ? len == 1 && y->col[k0] == i && bls12_381_fr_is_one(&y->val[k0])
                         : len == 0;
        if (!ok) {
          c->bad[idx] = i;
          snprintf(msg, CUZK_ERR_MSG_MAX,
                   "%s: %s row %llu (terms from byte %llu) is input %llu's dummy row: expected %s, "
                   "found %llu terms%s",
                   c->name, MAT_NAME[m], (ull)r, (ull)(c->l->mat[m][1] + k0 * 4), (ull)i,
                   m == 0 ? "the one term (its input's column, ONE)" : "no terms", (ull)len,
                   m == 0 && len == 1 ? " (another column or coefficient)" : "");
          return;
        }
      }
    }
    return;
  }
  case PH_DENSITY: /* item k over A then B: the term's density bit */
    for (uint64_t k = lo; k < hi; k++) {
      bool in_a = k < f->a.nnz;
      uint32_t col = in_a ? f->a.col[k] : f->b.col[k - f->a.nnz];
      uint64_t *bm;
      uint64_t bit;
      if (col >= f->num_inputs)
        bm = c->computed[in_a ? 0 : 2], bit = col - f->num_inputs;
      else if (!in_a)
        bm = c->computed[1], bit = col;
      else
        continue;
      uint64_t mask = (uint64_t)1 << (bit & 63);
      if (!(__atomic_load_n(&bm[bit >> 6], __ATOMIC_RELAXED) & mask))
        __atomic_fetch_or(&bm[bit >> 6], mask, __ATOMIC_RELAXED);
    }
    return;
  }
}

/* Runs phase ph over total items; CUZK_FORMAT with the first failure. */
static cuzk_status run_check(check_ctx *c, phase ph, int m, uint64_t total, cuzk_err *err) {
  unsigned n = total < PAR_MIN ? 1 : par_threads();
  if (n < 1)
    n = 1;
  uint64_t *bad = malloc(n * sizeof *bad);
  char(*msg)[CUZK_ERR_MSG_MAX] = malloc(n * sizeof *msg);
  if (!msg || !bad) {
    free(bad), free(msg);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: cannot allocate the check's messages", c->name);
  }
  c->ph = ph, c->m = m, c->total = total, c->bad = bad, c->msg = msg;
  par_run(n, check_worker, c);
  cuzk_status st = CUZK_OK;
  for (unsigned i = 0; i < n; i++)
    if (bad[i] != UINT64_MAX) {
      st = cuzk_err_set(err, CUZK_FORMAT, "%s", msg[i]);
      break;
    }
  free(msg), free(bad);
  return st;
}

static uint64_t popcount_words(const uint64_t *w, uint64_t n) {
  uint64_t s = 0;
  for (uint64_t i = 0; i < n; i++)
    s += (uint64_t)__builtin_popcountll(w[i]);
  return s;
}

static cuzk_status alloc_bitmaps(const pce_file *f, uint64_t *out[3], const char *name,
                                 cuzk_err *err) {
  const uint64_t bits[3] = {f->num_aux, f->num_inputs, f->num_aux};
  for (int d = 0; d < 3; d++) {
    out[d] = calloc((bits[d] + 63) / 64 + 1, 8);
    if (!out[d]) {
      for (int e = 0; e < d; e++)
        free(out[e]);
      return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: cannot allocate the density bitmaps", name);
    }
  }
  return CUZK_OK;
}

static void fill_bitmaps(const pce_file *f, uint64_t *bm[3], const char *name) {
  check_ctx c = {.f = f, .name = name};
  memcpy(c.computed, bm, sizeof c.computed);
  run_check(&c, PH_DENSITY, -1, f->a.nnz + f->b.nnz, NULL);
}

cuzk_status pce_density_compute(pce_file *f, cuzk_err *err) {
  uint64_t *bm[3];
  CUZK_TRY(alloc_bitmaps(f, bm, "pce", err));
  fill_bitmaps(f, bm, "pce");
  const uint64_t bits[3] = {f->num_aux, f->num_inputs, f->num_aux};
  for (int d = 0; d < 3; d++) {
    pce_density *x = den_mut(f, d);
    x->words = bm[d];
    x->bit_len = bits[d];
    x->nwords = (bits[d] + 63) / 64;
    x->popcount = popcount_words(bm[d], x->nwords);
  }
  return CUZK_OK;
}

static cuzk_status check_density(const pce_file *f, const pce_layout *l, const char *name,
                                 cuzk_err *err) {
  uint64_t *bm[3];
  CUZK_TRY(alloc_bitmaps(f, bm, name, err));
  fill_bitmaps(f, bm, name);
  cuzk_status st = CUZK_OK;
  for (int d = 0; d < 3 && st == CUZK_OK; d++) {
    const pce_density *x = den_of(f, d);
    const char *D = DEN_NAME[d];
    if (x->bit_len % 64 && x->nwords &&
        (x->words[x->nwords - 1] >> (x->bit_len % 64))) {
      st = cuzk_err_set(err, CUZK_FORMAT,
                        "%s: %s.words[%llu] at byte %llu has padding bits set above bit_len %llu "
                        "(expected zero)",
                        name, D, (ull)(x->nwords - 1), (ull)(l->den[d] + (x->nwords - 1) * 8),
                        (ull)x->bit_len);
      break;
    }
    uint64_t pc = popcount_words(x->words, x->nwords);
    if (pc != x->popcount) {
      st = cuzk_err_set(err, CUZK_FORMAT,
                        "%s: %s.popcount at byte %llu is %llu, expected %llu (the bits set in "
                        "%s.words)",
                        name, D, (ull)(l->den_meta[d] + 8), (ull)x->popcount, (ull)pc, D);
      break;
    }
    for (uint64_t w = 0; w < x->nwords; w++)
      if (x->words[w] != bm[d][w]) {
        uint64_t diff = x->words[w] ^ bm[d][w];
        uint64_t bit = w * 64 + (uint64_t)__builtin_ctzll(diff);
        bool set = pce_density_get(x, bit);
        const char *mat = d == 0 ? "A" : "B";
        uint64_t colno = d == 1 ? bit : bit + f->num_inputs;
        st = cuzk_err_set(err, CUZK_FORMAT,
                          "%s: %s bit %llu (%s.words[%llu] at byte %llu) is %d, but column %llu "
                          "(%s %llu) %s in %s",
                          name, D, (ull)bit, D, (ull)w, (ull)(l->den[d] + w * 8), set, (ull)colno,
                          d == 1 ? "input" : "aux", (ull)bit, set ? "has no term" : "has a term",
                          mat);
        break;
      }
  }
  for (int d = 0; d < 3; d++)
    free(bm[d]);
  return st;
}

cuzk_status pce_validate(const pce_file *f, const char *name, cuzk_err *err) {
  pce_layout l;
  layout_of(f, &l);
  check_ctx c = {.f = f, .l = &l, .name = name};
  if (f->num_inputs == 0 || f->num_constraints < f->num_inputs)
    return cuzk_err_set(err, CUZK_FORMAT, "%s: num_inputs %u, num_constraints %u: expected "
                        "1 <= num_inputs <= num_constraints", name, f->num_inputs,
                        f->num_constraints);
  for (int m = 0; m < 3; m++) {
    const pce_csr *x = mat_of(f, m);
    if (x->nrows != f->num_constraints)
      return cuzk_err_set(err, CUZK_FORMAT, "%s: %s has %llu rows, expected num_constraints %u",
                          name, MAT_NAME[m], (ull)x->nrows, f->num_constraints);
    CUZK_TRY(run_check(&c, PH_ROWPTR, m, x->nrows + 1, err));
    CUZK_TRY(run_check(&c, PH_COLS, m, x->nrows, err));
    CUZK_TRY(run_check(&c, PH_VALS, m, x->nnz, err));
  }
  uint64_t sum = f->a.nnz + f->b.nnz + f->c.nnz;
  if (f->total_nnz != sum)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s: total_nnz at byte 20 is %llu, expected %llu (A %llu + B %llu + C %llu)",
                        name, (ull)f->total_nnz, (ull)sum, (ull)f->a.nnz, (ull)f->b.nnz,
                        (ull)f->c.nnz);
  CUZK_TRY(run_check(&c, PH_DUMMY, -1, f->num_inputs, err));
  const uint64_t bits[3] = {f->num_aux, f->num_inputs, f->num_aux};
  for (int d = 0; d < 3; d++) {
    const pce_density *x = den_of(f, d);
    if (x->bit_len != bits[d] || x->nwords != (bits[d] + 63) / 64)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: %s has bit_len %llu and %llu words, expected %llu bits in %llu words",
                          name, DEN_NAME[d], (ull)x->bit_len, (ull)x->nwords, (ull)bits[d],
                          (ull)((bits[d] + 63) / 64));
  }
  return check_density(f, &l, name, err);
}

/* ---- writing ----------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void header_bytes(const pce_file *f, uint8_t h[PCE_HEADER_BYTES]) {
  memcpy(h, PCE_MAGIC, 4);
  put_u32(h + 4, PCE_VERSION);
  put_u32(h + 8, f->num_inputs);
  put_u32(h + 12, f->num_aux);
  put_u32(h + 16, f->num_constraints);
  put_u64(h + 20, f->total_nnz);
  put_u32(h + 28, f->reserved);
}

/* The file as a list of pieces (bytes, length), in order. */
typedef struct {
  const void *p;
  uint64_t len;
} piece;
#define PCE_PIECES (1 + 3 * 6 + 3 * 3)

static void pieces_of(const pce_file *f, uint8_t hdr[PCE_HEADER_BYTES], uint8_t counts[15][8],
                      uint8_t meta[3][16], piece out[PCE_PIECES]) {
  int n = 0, k = 0;
  header_bytes(f, hdr);
  out[n++] = (piece){hdr, PCE_HEADER_BYTES};
  for (int m = 0; m < 3; m++) {
    const pce_csr *x = mat_of(f, m);
    put_u64(counts[k], x->nrows + 1);
    out[n++] = (piece){counts[k++], 8};
    out[n++] = (piece){x->row_ptr, (x->nrows + 1) * 4};
    put_u64(counts[k], x->nnz);
    out[n++] = (piece){counts[k++], 8};
    out[n++] = (piece){x->col, x->nnz * 4};
    put_u64(counts[k], x->nnz);
    out[n++] = (piece){counts[k++], 8};
    out[n++] = (piece){x->val, x->nnz * 32};
  }
  for (int d = 0; d < 3; d++) {
    const pce_density *x = den_of(f, d);
    put_u64(counts[k], x->nwords);
    out[n++] = (piece){counts[k++], 8};
    out[n++] = (piece){x->words, x->nwords * 8};
    put_u64(meta[d], x->bit_len);
    put_u64(meta[d] + 8, x->popcount);
    out[n++] = (piece){meta[d], 16};
  }
}

cuzk_status pce_write(const pce_file *f, const char *path, cuzk_err *err) {
  uint8_t hdr[PCE_HEADER_BYTES], counts[15][8], meta[3][16];
  piece pc[PCE_PIECES];
  pieces_of(f, hdr, counts, meta, pc);
  fileio_out o;
  CUZK_TRY(fileio_out_open(&o, path, 0, err));
  for (int i = 0; i < PCE_PIECES; i++)
    for (uint64_t done = 0; done < pc[i].len;) {
      size_t len = pc[i].len - done < READ_CHUNK ? (size_t)(pc[i].len - done) : READ_CHUNK;
      cuzk_status st = fileio_write_fd(o.fd, (const uint8_t *)pc[i].p + done, len, path, err);
      if (st != CUZK_OK) {
        fileio_out_abort(&o);
        return st;
      }
      done += len;
    }
  return fileio_out_commit(&o, err);
}

cuzk_status pce_serialize(const pce_file *f, uint8_t **out, size_t *len, cuzk_err *err) {
  uint8_t hdr[PCE_HEADER_BYTES], counts[15][8], meta[3][16];
  piece pc[PCE_PIECES];
  pieces_of(f, hdr, counts, meta, pc);
  uint64_t total = pce_file_bytes(f);
  uint8_t *p = malloc(total ? (size_t)total : 1);
  if (!p)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "pce: cannot allocate %llu bytes", (ull)total);
  uint64_t o = 0;
  for (int i = 0; i < PCE_PIECES; i++) {
    if (pc[i].len)
      memcpy(p + o, pc[i].p, pc[i].len);
    o += pc[i].len;
  }
  *out = p;
  *len = (size_t)total;
  return CUZK_OK;
}

/* ---- evaluation -------------------------------------------------------- */

#define EVAL_CHUNK 8192u /* rows between stop polls */

typedef struct {
  const pce_file *f;
  const bls12_381_fr *w;
  bls12_381_fr *out[3]; /* eval: a, b, c; NULL in check mode */
  const cuzk_stop *stop;
  uint64_t *bad;        /* check: per worker first failing row */
  _Atomic bool cancelled;
} eval_ctx;

static inline void row_dot(bls12_381_fr *r, const pce_csr *x, uint64_t row, const bls12_381_fr *w) {
  bls12_381_fr acc, t;
  bls12_381_fr_set_zero(&acc);
  for (uint64_t k = x->row_ptr[row]; k < x->row_ptr[row + 1]; k++) {
    const bls12_381_fr *v = &x->val[k], *z = &w[x->col[k]];
    if (bls12_381_fr_is_one(v))
      bls12_381_fr_add(&acc, &acc, z);
    else {
      bls12_381_fr_mul(&t, v, z);
      bls12_381_fr_add(&acc, &acc, &t);
    }
  }
  *r = acc;
}

static void eval_worker(void *vctx, unsigned idx, unsigned n) {
  eval_ctx *c = vctx;
  const pce_file *f = c->f;
  size_t lo, hi;
  par_range(f->num_constraints, idx, n, &lo, &hi);
  if (c->bad)
    c->bad[idx] = UINT64_MAX;
  for (uint64_t r0 = lo; r0 < hi; r0 += EVAL_CHUNK) {
    if (cuzk_stopped(c->stop) || atomic_load_explicit(&c->cancelled, memory_order_relaxed)) {
      atomic_store(&c->cancelled, true);
      return;
    }
    uint64_t r1 = r0 + EVAL_CHUNK < hi ? r0 + EVAL_CHUNK : hi;
    for (uint64_t r = r0; r < r1; r++) {
      if (c->out[0]) {
        row_dot(&c->out[0][r], &f->a, r, c->w);
        row_dot(&c->out[1][r], &f->b, r, c->w);
        row_dot(&c->out[2][r], &f->c, r, c->w);
      } else {
        bls12_381_fr a, b, cc, ab;
        row_dot(&a, &f->a, r, c->w);
        row_dot(&b, &f->b, r, c->w);
        row_dot(&cc, &f->c, r, c->w);
        bls12_381_fr_mul(&ab, &a, &b);
        if (!bls12_381_fr_eq(&ab, &cc)) {
          c->bad[idx] = r;
          return;
        }
      }
    }
  }
}

static unsigned eval_threads(const pce_file *f, unsigned threads) {
  unsigned n = f->num_constraints < PAR_MIN ? 1 : threads ? threads : par_threads();
  return n ? n : 1;
}

cuzk_status pce_eval(const pce_file *f, const bls12_381_fr *w, bls12_381_fr *a, bls12_381_fr *b,
                     bls12_381_fr *c, unsigned threads, const cuzk_stop *stop, cuzk_err *err) {
  eval_ctx e = {.f = f, .w = w, .out = {a, b, c}, .stop = stop};
  atomic_init(&e.cancelled, false);
  par_run(eval_threads(f, threads), eval_worker, &e);
  if (atomic_load(&e.cancelled))
    return cuzk_err_set(err, CUZK_CANCELLED, "pce_eval: stopped");
  return CUZK_OK;
}

cuzk_status pce_check(const pce_file *f, const bls12_381_fr *w, uint64_t *bad_row,
                      const cuzk_stop *stop, cuzk_err *err) {
  unsigned n = eval_threads(f, 0);
  uint64_t *bad = malloc(n * sizeof *bad);
  if (!bad)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "pce_check: cannot allocate");
  eval_ctx e = {.f = f, .w = w, .stop = stop, .bad = bad};
  atomic_init(&e.cancelled, false);
  par_run(n, eval_worker, &e);
  if (bad_row)
    *bad_row = UINT64_MAX;
  uint64_t first = UINT64_MAX;
  for (unsigned i = 0; i < n && first == UINT64_MAX; i++)
    first = bad[i];
  free(bad);
  if (atomic_load(&e.cancelled))
    return cuzk_err_set(err, CUZK_CANCELLED, "pce_check: stopped");
  if (first == UINT64_MAX)
    return CUZK_OK;
  if (bad_row)
    *bad_row = first;
  uint64_t own = f->num_constraints - f->num_inputs;
  return cuzk_err_set(err, CUZK_UNSATISFIED, "row %llu%s: (A.w)(B.w) != C.w", (ull)first,
                      first >= own ? " (an input's dummy row)" : "");
}
