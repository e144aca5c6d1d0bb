/* Bodies of the fixed-base comb (keygen_comb_tmpl.h); included once per
 * group by keygen.c with EC and EC_F defined, after ec/ec_batch.h,
 * base/par.h and the shared helpers comb_recode / comb_windows. */

#define C_CAT2(a, b) a##b
#define C_CAT(a, b) C_CAT2(a, b)
#define C_FN(name) C_CAT(EC, C_CAT(_, name))
#define C_T(name) C_CAT(EC, C_CAT(_, name))
#define CF_FN(name) C_CAT(EC_F, C_CAT(_, name))

/* One level of the table build: dst entries 2^m + e = T[2^m] + T[e] for
 * e = 1 .. 2^m in every window, worker idx's share in sub-batches of
 * COMB_BATCH. */
typedef struct {
  C_T(comb) * cb;
  unsigned m;
  atomic_int oom;
} C_T(comb_level);

static void C_FN(comb_level_run)(void *vctx, unsigned idx, unsigned nw) {
  C_T(comb_level) *L = vctx;
  C_T(comb) *cb = L->cb;
  const size_t per = (size_t)1 << L->m, total = (size_t)cb->windows << L->m;
  size_t lo, hi;
  par_range(total, idx, nw, &lo, &hi);
  EC_F *den = malloc(2 * COMB_BATCH * sizeof *den);
  uint8_t *kind = malloc(COMB_BATCH);
  if (!den || !kind) {
    atomic_store(&L->oom, 1);
    free(den);
    free(kind);
    return;
  }
  for (size_t b0 = lo; b0 < hi; b0 += COMB_BATCH) {
    size_t nb = hi - b0 < COMB_BATCH ? hi - b0 : COMB_BATCH;
    for (size_t j = 0; j < nb; j++) {
      size_t i = b0 + j, w = i >> L->m, e = (i & (per - 1)) + 1;
      const C_T(aff) *tw = cb->t + w * cb->half;
      kind[j] = (uint8_t)C_FN(aff_add_prep)(&den[j], &tw[per - 1], &tw[e - 1]);
    }
    C_FN(batch_inv_nonzero)(den, den + COMB_BATCH, nb);
    for (size_t j = 0; j < nb; j++) {
      size_t i = b0 + j, w = i >> L->m, e = (i & (per - 1)) + 1;
      C_T(aff) *tw = cb->t + w * cb->half;
      C_FN(aff_add_finish)(&tw[per + e - 1], &tw[per - 1], &tw[e - 1], &den[j], kind[j]);
    }
  }
  free(den);
  free(kind);
}

cuzk_status C_FN(comb_init)(C_T(comb) * cb, const C_T(aff) * g, unsigned bits, unsigned threads,
                            cuzk_err *err) {
  memset(cb, 0, sizeof *cb);
  if (bits < 2 || bits > 20)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "comb window of %u bits (2..20)", bits);
  const unsigned W = comb_windows(bits);
  const size_t half = (size_t)1 << (bits - 1);
  C_T(aff) *t = malloc(W * half * sizeof *t);
  if (!t)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a comb table of %u x %zu points (%zu MiB)",
                        W, half, (W * half * sizeof *t) >> 20);
  /* T[w][1] = 2^(c w) G: c doublings per window, in Jacobian form. */
  C_T(jac) base;
  C_FN(jac_from_aff)(&base, g);
  for (unsigned w = 0; w < W; w++) {
    C_FN(jac_to_aff)(&t[w * half], &base);
    for (unsigned i = 0; i < bits; i++) C_FN(jac_dbl)(&base, &base);
  }
  cb->bits = bits, cb->windows = W, cb->half = half, cb->t = t;
  if (threads == 0)
    threads = par_threads();
  for (unsigned m = 0; ((size_t)1 << m) < half; m++) {
    C_T(comb_level) L = {.cb = cb, .m = m};
    size_t total = (size_t)W << m;
    /* Small levels on one thread: a thread costs ~20 us, an addition ~1 us. */
    unsigned nw = total < 512 ? 1 : (total / 256 < threads ? (unsigned)(total / 256) : threads);
    par_run(nw, C_FN(comb_level_run), &L);
    if (atomic_load(&L.oom)) {
      C_FN(comb_fini)(cb);
      return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the comb table's scratch");
    }
  }
  return CUZK_OK;
}

void C_FN(comb_fini)(C_T(comb) * cb) {
  free(cb->t);
  memset(cb, 0, sizeof *cb);
}

/* Scratch layout for n scalars: digits (W n int32, window-major), then per
 * scalar the addend q, den and Montgomery's prefix products (EC_F each), the
 * index into r and the kind of each batched addition. */
#define COMB_ALIGN(x) (((x) + 63) & ~(size_t)63)
size_t C_FN(comb_scratch_sizeof)(const C_T(comb) * cb, size_t n) {
  return COMB_ALIGN((size_t)cb->windows * n * sizeof(int32_t)) + COMB_ALIGN(n * sizeof(C_T(aff))) +
         COMB_ALIGN(2 * n * sizeof(EC_F)) + COMB_ALIGN(n * sizeof(uint32_t)) + n;
}

/* *out = sign(d) T[w][|d|] (d != 0). */
static inline void C_FN(comb_entry)(const C_T(comb) * cb, unsigned w, int32_t d, C_T(aff) * out) {
  if (d > 0) {
    *out = cb->t[w * cb->half + (size_t)d - 1];
  } else {
    const C_T(aff) *p = &cb->t[w * cb->half + (size_t)(-d) - 1];
    out->x = p->x;
    CF_FN(neg)(&out->y, &p->y);
  }
}

void C_FN(comb_mul)(const C_T(comb) * cb, C_T(aff) * r, const limb_t (*k)[4], size_t n,
                    void *scratch) {
  const unsigned W = cb->windows;
  uint8_t *s = scratch;
  int32_t *dg = (int32_t *)s; /* dg[w n + i]: digit w of scalar i */
  s += COMB_ALIGN((size_t)W * n * sizeof(int32_t));
  C_T(aff) *q = (C_T(aff) *)s;
  s += COMB_ALIGN(n * sizeof(C_T(aff)));
  EC_F *den = (EC_F *)s, *pre = den + n;
  s += COMB_ALIGN(2 * n * sizeof(EC_F));
  uint32_t *at = (uint32_t *)s;
  uint8_t *kind = s + COMB_ALIGN(n * sizeof(uint32_t));

  for (size_t i = 0; i < n; i++) comb_recode(dg + i, n, k[i], cb->bits, W);
  for (size_t i = 0; i < n; i++) {
    if (dg[i])
      C_FN(comb_entry)(cb, 0, dg[i], &r[i]);
    else
      C_FN(aff_set_inf)(&r[i]);
  }
  for (unsigned w = 1; w < W; w++) {
    const int32_t *d = dg + (size_t)w * n;
    size_t m = 0; /* additions that need the shared inversion */
    for (size_t i = 0; i < n; i++) {
      /* The table is tens of MiB, so nearly every entry misses the
       * caches: start the load of the entry COMB_PREFETCH scalars ahead
       * (keygen.c says why that distance). */
      if (i + COMB_PREFETCH < n && d[i + COMB_PREFETCH]) {
        int32_t e = d[i + COMB_PREFETCH];
        const char *pe = (const char *)&cb->t[w * cb->half + (size_t)(e > 0 ? e : -e) - 1];
        __builtin_prefetch(pe);
        __builtin_prefetch(pe + sizeof(C_T(aff)) - 1); /* an entry spans 2 (G1) or 3 (G2) lines */
      }
      if (!d[i])
        continue;
      C_FN(comb_entry)(cb, w, d[i], &q[m]);
      int kd = C_FN(aff_add_prep)(&den[m], &r[i], &q[m]);
      if (kd == EC_BATCH_ADD || kd == EC_BATCH_DBL) {
        at[m] = (uint32_t)i;
        kind[m++] = (uint8_t)kd;
      } else if (kd == EC_BATCH_Q) {
        r[i] = q[m]; /* accumulator at infinity */
      } else {
        C_FN(aff_set_inf)(&r[i]); /* r[i] = -q */
      }
    }
    C_FN(batch_inv_nonzero)(den, pre, m);
    for (size_t j = 0; j < m; j++)
      C_FN(aff_add_finish)(&r[at[j]], &r[at[j]], &q[j], &den[j], kind[j]);
  }
}

void C_FN(comb_mul_ref)(const C_T(comb) * cb, C_T(aff) * r, const limb_t (*k)[4], size_t n,
                        void *scratch) {
  C_T(jac) g, p;
  C_FN(jac_from_aff)(&g, &cb->t[0]);
  for (size_t i = 0; i < n; i++) {
    C_FN(jac_mul_vartime)(&p, &g, k[i], 4);
    C_FN(jac_to_aff)(&r[i], &p);
  }
}

#undef COMB_ALIGN
#undef C_CAT2
#undef C_CAT
#undef C_FN
#undef C_T
#undef CF_FN
