/* Pippenger MSM written once for G1 and G2 (see msm.h for the design).
 * Included by msm.c per group with EC (point prefix, e.g. bls12_381_g1),
 * EC_F (its coordinate field), MSM (function prefix, e.g. msm_g1),
 * MSM_ENDO_MAX (the largest plan.endo the group has), MSM_PLAN_FOR (its
 * plan function) and MSM_IMAGES (img[0 .. K-2] = the endomorphism images
 * [u^(4j/K)]P, j = 1 .. K-1, of one affine point P). */

#define M_CAT2(a, b) a##b
#define M_CAT(a, b) M_CAT2(a, b)
#define E_FN(name) M_CAT(EC, M_CAT(_, name))
#define E_T(name) M_CAT(EC, M_CAT(_, name))
#define F_FN(name) M_CAT(EC_F, M_CAT(_, name))
#define M_FN(name) M_CAT(MSM, M_CAT(_, name))

typedef struct {
  const msm_live *live; /* the n live points, their scalars split into plan.endo parts */
  const E_T(aff) * images; /* (endo - 1) per live point: live point i's at (endo - 1) i */
  size_t n;             /* live points; the tasks see endo n split points */
  unsigned lg_endo;     /* log2(plan.endo) */
  msm_plan plan;
  msm_layout lay;
  E_T(xyzz) * res;   /* nwin * nsplit task results, task t = w * nsplit + split */
  uint8_t *scratch;  /* lay.total bytes per worker */
  msm_stats *stats;  /* one per worker */
  atomic_uint next;  /* next task to take */
  const cuzk_stop *stop; /* polled before each task and each chunk (NULL: never) */
} M_FN(ctx);

/* The base of split point v: live point v / K's own base (part 0) or its
 * image for part v % K (K = plan.endo). */
static inline const uint8_t *M_FN(vbase)(const M_FN(ctx) * x, size_t v) {
  size_t i = v >> x->lg_endo;
  unsigned j = (unsigned)(v & (x->plan.endo - 1));
  return j ? (const uint8_t *)&x->images[i * (x->plan.endo - 1) + j - 1] : x->live[i].base;
}

/* The digit of split point v at window w. */
static inline uint32_t M_FN(vdigit)(const M_FN(ctx) * x, size_t v, unsigned w) {
  return msm_live_digit(&x->live[v >> x->lg_endo], x->plan.endo,
                        (unsigned)(v & (x->plan.endo - 1)), w, x->plan.c);
}

/* *p = base i of the zkey-layout array (unaligned-safe). */
static inline void M_FN(load)(E_T(aff) * p, const uint8_t *bases, size_t i) {
  memcpy(p, bases + i * sizeof(E_T(aff)), sizeof(E_T(aff)));
}

/* Whether the zkey-layout base at b is infinity (all zero bytes). */
static inline int M_FN(base_is_inf)(const uint8_t *b) {
  uint64_t acc = 0;
  for (size_t k = 0; k < sizeof(E_T(aff)); k += 8) {
    uint64_t v;
    memcpy(&v, b + k, 8);
    acc |= v;
  }
  return acc == 0;
}

/* ---- the live list ---- */

typedef struct {
  const msm_part *parts;
  size_t nparts, n;
  msm_live *live;
  size_t *count; /* per worker: live points of its range, written at its range start */
} M_FN(filter_ctx);

static void M_FN(filter_worker)(void *vctx, unsigned idx, unsigned nthreads) {
  M_FN(filter_ctx) *x = vctx;
  size_t lo, hi, out = 0;
  par_range(x->n, idx, nthreads, &lo, &hi);
  msm_live *dst = x->live + lo;
  size_t base = 0; /* global index of the current part's first point */
  for (size_t k = 0; k < x->nparts && base < hi; base += x->parts[k++].n) {
    const msm_part *pt = &x->parts[k];
    size_t a = lo > base ? lo - base : 0, b = hi - base < pt->n ? hi - base : pt->n;
    const uint8_t *bases = pt->bases, *sc = pt->scalars;
    for (size_t i = a; i < b; i++) {
      msm_live e;
      unsigned neg = msm_scalar_load(e.s, sc + i * MSM_SCALAR_BYTES);
      if ((e.s[0] | e.s[1] | e.s[2] | e.s[3]) == 0 ||
          M_FN(base_is_inf)(bases + i * sizeof(E_T(aff))))
        continue;
      e.s[3] |= (limb_t)neg << 63;
      e.base = bases + i * sizeof(E_T(aff));
      dst[out++] = e;
    }
  }
  x->count[idx] = out;
}

/* Writes the live points of parts (n in all) to live[0..), in input order,
 * and returns their count.  count: `threads` words of scratch. */
static size_t M_FN(filter)(msm_live *live, const msm_part *parts, size_t nparts, size_t n,
                           unsigned threads, size_t *count) {
  if (threads > n)
    threads = (unsigned)n;
  M_FN(filter_ctx) x = {parts, nparts, n, live, count};
  par_run(threads, M_FN(filter_worker), &x);
  size_t pos = 0;
  for (unsigned t = 0; t < threads; t++) {
    size_t lo, hi;
    par_range(n, t, threads, &lo, &hi);
    if (pos != lo && count[t])
      memmove(live + pos, live + lo, count[t] * sizeof *live);
    pos += count[t];
  }
  return pos;
}

/* sum_k k B_k over buckets B_0 .. B_(nb-1) holding digit magnitudes 1..nb,
 * by running sums from the top: run = B_(nb-1) + ... + B_k, tot += run.
 * Affine buckets: per bucket one mixed (8M + 2S) and one full (12M + 2S)
 * XYZZ addition. */
static void M_FN(reduce_aff)(E_T(xyzz) * out, const E_T(aff) * bk, unsigned nb, msm_stats *st) {
  E_T(xyzz) run, tot;
  E_FN(xyzz_set_inf)(&run);
  E_FN(xyzz_set_inf)(&tot);
  unsigned top = nb;
  while (top > 0 && E_FN(aff_is_inf)(&bk[top - 1])) top--;
  for (unsigned b = top; b-- > 0;) {
    E_FN(xyzz_add_aff)(&run, &run, &bk[b]);
    E_FN(xyzz_add)(&tot, &tot, &run);
  }
  st->xyzz_madds += top;
  st->xyzz_adds += top;
  *out = tot;
}

/* sum_k k B_k again, batch-affine, for many buckets: the bucket range is cut
 * into L chains of len buckets; chain l covers indices [l len, l len + len)
 * and keeps run_l (sum of its buckets from the top down to the current one)
 * and tot_l (sum of run_l over the steps so far).  All chains step together:
 * one step is the 2L independent affine additions
 *     tot_l += run_l,   run_l += B_(l len + j)
 * (both read the old run_l) under one shared inversion, and a last step adds
 * the final run_l.  Then, with magnitudes k = l len + j + 1,
 *     sum_k k B_k = sum_l tot_l + len sum_l l run_l,
 * the last sum by running sums over l in XYZZ and len by double-and-add.
 * Cost per bucket: 2 affine additions (~7M each with the 1/(2L) share of an
 * inversion) against 8M + 2S + 12M + 2S for reduce_aff.  Measured on 2^18
 * G1 points, c = 16, one thread: 111 instead of 132 M per point, 87-94k
 * instead of 78-81k points per CPU-second. */
static void M_FN(reduce_ba)(E_T(xyzz) * out, const E_T(aff) * bk, unsigned nb, E_T(aff) * chain,
                            EC_F *den, EC_F *pre, uint8_t *kind, msm_stats *st) {
  const unsigned L = MSM_RED_CHAINS;
  unsigned top = nb;
  while (top > 0 && E_FN(aff_is_inf)(&bk[top - 1])) top--;
  const unsigned len = (top + L - 1) / L;
  E_T(aff) *run = chain, *tot = chain + L;
  memset(chain, 0, 2 * L * sizeof *chain);
  for (unsigned step = len + 1; step-- > 0;) {
    /* step j = len .. 1 adds bucket j - 1; step 0 only the last tot += run. */
    for (unsigned l = 0; l < L; l++) {
      kind[2 * l] = (uint8_t)E_FN(aff_add_prep)(&den[2 * l], &tot[l], &run[l]);
      unsigned i = l * len + step - 1;
      E_T(aff) inf = {0};
      kind[2 * l + 1] = (uint8_t)E_FN(aff_add_prep)(
          &den[2 * l + 1], &run[l], step && i < top ? &bk[i] : &inf);
    }
    E_FN(batch_inv_nonzero)(den, pre, 2 * L);
    st->rounds++;
    for (unsigned l = 0; l < L; l++) {
      unsigned i = l * len + step - 1;
      E_FN(aff_add_finish)(&tot[l], &tot[l], &run[l], &den[2 * l], kind[2 * l]);
      st->aff_adds += kind[2 * l] <= EC_BATCH_DBL;
      st->aff_copies += kind[2 * l] > EC_BATCH_DBL;
      if (step && i < top) {
        E_FN(aff_add_finish)(&run[l], &run[l], &bk[i], &den[2 * l + 1], kind[2 * l + 1]);
        st->aff_adds += kind[2 * l + 1] <= EC_BATCH_DBL;
        st->aff_copies += kind[2 * l + 1] > EC_BATCH_DBL;
      }
    }
  }
  /* sum_l tot_l + len * sum_l l run_l */
  E_T(xyzz) t, acc, s;
  E_FN(xyzz_set_inf)(&t);
  E_FN(xyzz_set_inf)(&acc);
  E_FN(xyzz_set_inf)(&s);
  for (unsigned l = L; l-- > 0;) {
    E_FN(xyzz_add_aff)(&t, &t, &tot[l]);
    if (l > 0) {
      E_FN(xyzz_add_aff)(&acc, &acc, &run[l]);
      E_FN(xyzz_add)(&s, &s, &acc);
    }
  }
  st->xyzz_madds += 2 * L;
  st->xyzz_adds += L;
  E_T(xyzz) r;
  E_FN(xyzz_set_inf)(&r);
  for (int b = 31; b >= 0; b--) {
    E_FN(xyzz_dbl)(&r, &r);
    if ((len >> b) & 1)
      E_FN(xyzz_add)(&r, &r, &s);
  }
  E_FN(xyzz_add)(out, &t, &r);
}

/* One task, batch-affine: window w over split points [lo, hi). */
static void M_FN(task_ba)(const M_FN(ctx) * x, uint8_t *scr, unsigned w, size_t lo, size_t hi,
                          E_T(xyzz) * out, msm_stats *st) {
  const msm_layout *L = &x->lay;
  const unsigned nb = x->plan.nbuckets;
  E_T(aff) *bk = (E_T(aff) *)(scr + L->buckets), *wk = (E_T(aff) *)(scr + L->work);
  EC_F *den = (EC_F *)(scr + L->den), *pre = (EC_F *)(scr + L->pre);
  msm_seg *seg = (msm_seg *)(scr + L->segs);
  uint32_t *cnt = (uint32_t *)(scr + L->counts), *dig = (uint32_t *)(scr + L->digits);
  uint8_t *kind = scr + L->kinds;

  memset(bk, 0, nb * sizeof *bk);
  for (size_t c0 = lo; c0 < hi; c0 += L->k) {
    if (cuzk_stopped(x->stop))
      return; /* the run is abandoned: *out is not read */
    size_t m = hi - c0 < L->k ? hi - c0 : L->k;

    /* Digits and the count of new points per bucket. */
    memset(cnt, 0, nb * sizeof *cnt);
    for (size_t i = 0; i < m; i++) {
      uint32_t d = M_FN(vdigit)(x, c0 + i, w), mag = d & ~MSM_DIGIT_NEG;
      dig[i] = d;
      if (mag)
        cnt[mag - 1]++;
    }

    /* Counting sort into the work array: per touched bucket its current
     * value (if any), then its new points.  cnt becomes write positions. */
    uint32_t pos = 0, nseg = 0;
    for (uint32_t b = 0; b < nb; b++) {
      if (!cnt[b])
        continue;
      uint32_t start = pos, k = cnt[b];
      if (!E_FN(aff_is_inf)(&bk[b]))
        wk[pos++] = bk[b];
      cnt[b] = pos;
      pos += k;
      seg[nseg++] = (msm_seg){b, start, pos - start};
    }
    for (size_t i = 0; i < m; i++) {
      /* The stores scatter over the work array: prefetch a few ahead. */
      if (i + MSM_PREFETCH < m && (dig[i + MSM_PREFETCH] & ~MSM_DIGIT_NEG)) {
        const E_T(aff) *d = &wk[cnt[(dig[i + MSM_PREFETCH] & ~MSM_DIGIT_NEG) - 1]];
        __builtin_prefetch(d, 1);
        __builtin_prefetch((const uint8_t *)d + sizeof *d - 1, 1);
      }
      uint32_t mag = dig[i] & ~MSM_DIGIT_NEG;
      if (!mag)
        continue;
      E_T(aff) p;
      memcpy(&p, M_FN(vbase)(x, c0 + i), sizeof p);
      if (dig[i] & MSM_DIGIT_NEG)
        F_FN(neg)(&p.y, &p.y); /* -(x, y) = (x, -y); infinity stays zeros */
      wk[cnt[mag - 1]++] = p;
    }
    uint32_t live = 0;
    for (uint32_t t = 0; t < nseg; t++) {
      if (seg[t].len == 1)
        bk[seg[t].bucket] = wk[seg[t].start];
      else
        seg[live++] = seg[t];
    }
    nseg = live;

    /* Tree rounds: each round adds neighbouring pairs of every list at once,
     * sharing one inversion, and halves the lists in place (pair j's sum
     * goes to position j, which pair j/2 <= j has already read). */
    while (nseg > 0) {
      size_t np = 0;
      for (uint32_t t = 0; t < nseg; t++) {
        E_T(aff) *v = &wk[seg[t].start];
        for (uint32_t j = 0; j < seg[t].len / 2; j++, np++)
          kind[np] = (uint8_t)E_FN(aff_add_prep)(&den[np], &v[2 * j], &v[2 * j + 1]);
      }
      E_FN(batch_inv_nonzero)(den, pre, np);
      st->rounds++;
      np = 0;
      live = 0;
      for (uint32_t t = 0; t < nseg; t++) {
        E_T(aff) *v = &wk[seg[t].start];
        uint32_t len = seg[t].len, h = len / 2;
        for (uint32_t j = 0; j < h; j++, np++) {
          E_FN(aff_add_finish)(&v[j], &v[2 * j], &v[2 * j + 1], &den[np], kind[np]);
          if (kind[np] <= EC_BATCH_DBL)
            st->aff_adds++;
          else
            st->aff_copies++;
        }
        if (len & 1)
          v[h] = v[len - 1];
        len = (len + 1) / 2;
        if (len == 1)
          bk[seg[t].bucket] = v[0];
        else
          seg[live++] = (msm_seg){seg[t].bucket, seg[t].start, len};
      }
      nseg = live;
    }
  }
  if (nb >= MSM_RED_MIN)
    M_FN(reduce_ba)(out, bk, nb, wk, den, pre, kind, st);
  else
    M_FN(reduce_aff)(out, bk, nb, st);
}

/* One task, XYZZ buckets: each split point of [lo, hi) added into its
 * bucket, 8M + 2S. */
static void M_FN(task_xyzz)(const M_FN(ctx) * x, uint8_t *scr, unsigned w, size_t lo, size_t hi,
                            E_T(xyzz) * out, msm_stats *st) {
  const unsigned nb = x->plan.nbuckets;
  E_T(xyzz) *bk = (E_T(xyzz) *)scr;
  memset(bk, 0, nb * sizeof *bk);
  for (size_t i = lo; i < hi; i++) {
    if ((i - lo) % MSM_POLL_XYZZ == 0 && cuzk_stopped(x->stop))
      return; /* the run is abandoned: *out is not read */
    uint32_t d = M_FN(vdigit)(x, i, w), mag = d & ~MSM_DIGIT_NEG;
    if (!mag)
      continue;
    E_T(aff) p;
    memcpy(&p, M_FN(vbase)(x, i), sizeof p);
    if (d & MSM_DIGIT_NEG)
      F_FN(neg)(&p.y, &p.y);
    E_FN(xyzz_add_aff)(&bk[mag - 1], &bk[mag - 1], &p);
    st->xyzz_madds++;
  }
  E_T(xyzz) run, tot;
  E_FN(xyzz_set_inf)(&run);
  E_FN(xyzz_set_inf)(&tot);
  for (unsigned b = nb; b-- > 0;) {
    E_FN(xyzz_add)(&run, &run, &bk[b]);
    E_FN(xyzz_add)(&tot, &tot, &run);
  }
  st->xyzz_adds += 2 * (uint64_t)nb;
  *out = tot;
}

static void M_FN(worker)(void *vctx, unsigned idx, unsigned nthreads) {
  M_FN(ctx) *x = vctx;
  uint8_t *scr = x->scratch + (size_t)idx * x->lay.total;
  msm_stats *st = &x->stats[idx];
  const unsigned nsplit = x->plan.nsplit, ntask = x->plan.nwin * nsplit;
  (void)nthreads;
  for (;;) {
    if (cuzk_stopped(x->stop))
      break;
    unsigned t = atomic_fetch_add_explicit(&x->next, 1, memory_order_relaxed);
    if (t >= ntask)
      break;
    size_t lo, hi;
    par_range(x->n, t % nsplit, nsplit, &lo, &hi);
    lo <<= x->lg_endo, hi <<= x->lg_endo; /* the live points' split points */
    if (x->plan.chunk)
      M_FN(task_ba)(x, scr, t / nsplit, lo, hi, &x->res[t], st);
    else
      M_FN(task_xyzz)(x, scr, t / nsplit, lo, hi, &x->res[t], st);
  }
}

/* Bytes of the task part of a run's scratch: the task results, the
 * per-worker stats, the endomorphism images ((endo - 1) n points) and the
 * per-worker buffers (msm_layout), each 64-byte aligned; SIZE_MAX if it
 * does not fit. */
static size_t M_FN(exec_bytes)(const msm_plan *plan, size_t n, msm_layout *lay,
                               unsigned *nworkers) {
  const size_t ntask = (size_t)plan->nwin * plan->nsplit;
  const unsigned nw = plan->threads < ntask ? plan->threads : (unsigned)ntask;
  msm_layout_for(lay, plan, n, sizeof(EC_F));
  *nworkers = nw;
  if (ntask > SIZE_MAX / 4 / sizeof(E_T(xyzz)) || n > SIZE_MAX / 4 / 4 / sizeof(E_T(aff)))
    return SIZE_MAX;
  size_t res = ((ntask * sizeof(E_T(xyzz))) + 63) & ~(size_t)63;
  size_t st = ((nw * sizeof(msm_stats)) + 63) & ~(size_t)63;
  size_t img = (((plan->endo - 1) * n * sizeof(E_T(aff))) + 63) & ~(size_t)63;
  if (lay->total > (SIZE_MAX / 2 - res - st - img) / nw)
    return SIZE_MAX;
  return res + st + img + (size_t)nw * lay->total;
}

/* Bytes of the live list for n points and the filter's per-worker counts. */
static size_t M_FN(live_bytes)(size_t n, unsigned threads) {
  if (n > (SIZE_MAX / 4) / sizeof(msm_live))
    return SIZE_MAX;
  return ((n * sizeof(msm_live) + threads * sizeof(size_t)) + 63) & ~(size_t)63;
}

size_t M_FN(scratch_bytes)(const msm_plan *plan, size_t n) {
  msm_layout lay;
  unsigned nw;
  if (msm_plan_check(plan) || plan->endo > MSM_ENDO_MAX || n == 0)
    return 0;
  size_t a = M_FN(live_bytes)(n, plan->threads), b = M_FN(exec_bytes)(plan, n, &lay, &nw);
  return a == SIZE_MAX || b == SIZE_MAX || a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* ---- the endomorphism split ---- */

typedef struct {
  msm_live *live;
  E_T(aff) * images;
  size_t n;
  unsigned endo;
} M_FN(split_ctx);

static void M_FN(split_worker)(void *vctx, unsigned idx, unsigned nthreads) {
  M_FN(split_ctx) *x = vctx;
  size_t lo, hi;
  par_range(x->n, idx, nthreads, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    msm_split(&x->live[i], x->endo);
    E_T(aff) p;
    memcpy(&p, x->live[i].base, sizeof p);
    MSM_IMAGES(&x->images[i * (x->endo - 1)], &p, x->endo);
  }
}

/* The bucket phase and the final sum over n live points with a checked
 * plan; block: exec_bytes(plan, n) bytes, 64-byte aligned.  Splits the
 * live points' scalars in place (plan.endo > 1).  false, *out and *total
 * unspecified, when stop was set before the bucket phase ended. */
static bool M_FN(exec)(E_T(jac) * out, msm_live *live, size_t n, const msm_plan *plan,
                       void *block, msm_stats *total, const cuzk_stop *stop) {
  M_FN(ctx) x = {.live = live, .n = n, .plan = *plan, .stop = stop};
  unsigned nw;
  M_FN(exec_bytes)(plan, n, &x.lay, &nw);
  const unsigned ntask = plan->nwin * plan->nsplit;
  x.res = block;
  x.stats = (msm_stats *)((uint8_t *)block + ((ntask * sizeof(E_T(xyzz)) + 63) & ~(size_t)63));
  E_T(aff) *images = (E_T(aff) *)((uint8_t *)x.stats + ((nw * sizeof(msm_stats) + 63) & ~(size_t)63));
  x.scratch = (uint8_t *)images +
              ((((plan->endo - 1) * n * sizeof(E_T(aff))) + 63) & ~(size_t)63);
  x.images = images;
  x.lg_endo = plan->endo == 4 ? 2 : plan->endo == 2 ? 1 : 0;
  if (plan->endo > 1) {
    M_FN(split_ctx) sx = {live, images, n, plan->endo};
    par_run(plan->threads < n ? plan->threads : (unsigned)n, M_FN(split_worker), &sx);
    total->images = (uint64_t)(plan->endo - 1) * n;
  }
  memset(x.stats, 0, nw * sizeof(msm_stats));
  atomic_init(&x.next, 0);
  par_run(nw, M_FN(worker), &x);
  if (cuzk_stopped(stop))
    return false;

  /* Horner over windows: out = sum_w 2^(cw) (sum of the window's splits). */
  for (unsigned w = plan->nwin; w-- > 0;) {
    if (w + 1 < plan->nwin)
      for (unsigned b = 0; b < plan->c; b++) E_FN(jac_dbl)(out, out);
    for (unsigned s = 0; s < plan->nsplit; s++) {
      E_T(jac) t;
      E_FN(xyzz_to_jac)(&t, &x.res[w * plan->nsplit + s]);
      E_FN(jac_add)(out, out, &t);
    }
  }
  total->jac_ops = (uint64_t)plan->c * (plan->nwin - 1) + ntask;
  for (unsigned i = 0; i < nw; i++) {
    total->aff_adds += x.stats[i].aff_adds;
    total->rounds += x.stats[i].rounds;
    total->aff_copies += x.stats[i].aff_copies;
    total->xyzz_madds += x.stats[i].xyzz_madds;
    total->xyzz_adds += x.stats[i].xyzz_adds;
  }
  return true;
}

cuzk_status M_FN(run)(E_T(jac) * out, const void *bases, const void *scalars, size_t n,
                      const msm_plan *plan, void *scratch, msm_stats *stats, cuzk_err *err) {
  msm_stats total = {0};
  E_FN(jac_set_inf)(out);
  if (stats)
    *stats = total;
  const char *why = msm_plan_check(plan);
  if (why)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm plan: %s", why);
  if (plan->endo > MSM_ENDO_MAX)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm plan: endo %u above this group's %u",
                        plan->endo, MSM_ENDO_MAX);
  if (n == 0)
    return CUZK_OK;
  const size_t bytes = M_FN(scratch_bytes)(plan, n);
  void *block = scratch;
  if (!block && (bytes == SIZE_MAX || posix_memalign(&block, 64, bytes) != 0))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm: %zu bytes of scratch for %u workers", bytes,
                        plan->threads);
  if (((uintptr_t)block & 63) != 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm: scratch not 64-byte aligned");
  const size_t lb = M_FN(live_bytes)(n, plan->threads);
  msm_live *live = block;
  size_t *count = (size_t *)(live + n);
  msm_part part = {bases, scalars, n};
  size_t nlive = M_FN(filter)(live, &part, 1, n, plan->threads, count);
  total.live = nlive;
  if (nlive)
    M_FN(exec)(out, live, nlive, plan, (uint8_t *)block + lb, &total, NULL);
  if (stats)
    *stats = total;
  if (!scratch)
    free(block);
  return CUZK_OK;
}

cuzk_status M_FN(parts_stoppable)(E_T(jac) * out, const msm_part *parts, size_t nparts,
                                  unsigned threads, const cuzk_stop *stop, cuzk_err *err) {
  E_FN(jac_set_inf)(out);
  size_t n = 0;
  for (size_t k = 0; k < nparts; k++) {
    if (parts[k].n > SIZE_MAX / 2 - n)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "msm: point count overflows");
    n += parts[k].n;
  }
  if (n == 0)
    return CUZK_OK;
  if (threads == 0)
    threads = par_threads();
  const size_t lb = M_FN(live_bytes)(n, threads);
  void *lblock = NULL;
  if (lb == SIZE_MAX || posix_memalign(&lblock, 64, lb) != 0)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm: live list of %zu points", n);
  msm_live *live = lblock;
  size_t nlive = M_FN(filter)(live, parts, nparts, n, threads, (size_t *)(live + n));
  cuzk_status st = CUZK_OK;
  if (nlive) {
    msm_plan plan = MSM_PLAN_FOR(nlive, threads);
    msm_layout lay;
    unsigned nw;
    size_t bytes = M_FN(exec_bytes)(&plan, nlive, &lay, &nw);
    void *block = NULL;
    if (bytes == SIZE_MAX || posix_memalign(&block, 64, bytes) != 0) {
      st = cuzk_err_set(err, CUZK_NO_MEMORY, "msm: %zu bytes of scratch for %u workers", bytes,
                        nw);
    } else {
      msm_stats total = {0};
      if (!M_FN(exec)(out, live, nlive, &plan, block, &total, stop))
        st = cuzk_err_set(err, CUZK_CANCELLED, "cancelled in the MSM over %zu points", nlive);
      free(block);
    }
  }
  free(lblock);
  return st;
}

cuzk_status M_FN(parts)(E_T(jac) * out, const msm_part *parts, size_t nparts, unsigned threads,
                        cuzk_err *err) {
  return M_FN(parts_stoppable)(out, parts, nparts, threads, NULL, err);
}

cuzk_status MSM(E_T(jac) * out, const void *bases, const void *scalars, size_t n,
                unsigned threads, cuzk_err *err) {
  msm_part part = {bases, scalars, n};
  return M_FN(parts)(out, &part, 1, threads, err);
}

/* ---- reference ---- */

typedef struct {
  const uint8_t *bases, *scalars;
  size_t n;
  E_T(jac) * part;
} M_FN(naive_ctx);

static void M_FN(naive_worker)(void *vctx, unsigned idx, unsigned nthreads) {
  M_FN(naive_ctx) *x = vctx;
  size_t lo, hi;
  par_range(x->n, idx, nthreads, &lo, &hi);
  E_T(jac) acc;
  E_FN(jac_set_inf)(&acc);
  for (size_t i = lo; i < hi; i++) {
    E_T(aff) p;
    E_T(jac) t;
    limb_t s[4];
    M_FN(load)(&p, x->bases, i);
    limbs_from_le(s, x->scalars + i * MSM_SCALAR_BYTES, 4);
    E_FN(jac_from_aff)(&t, &p);
    E_FN(jac_mul_vartime)(&t, &t, s, 4);
    E_FN(jac_add)(&acc, &acc, &t);
  }
  x->part[idx] = acc;
}

cuzk_status M_FN(naive)(E_T(jac) * out, const void *bases, const void *scalars, size_t n,
                        unsigned threads, cuzk_err *err) {
  E_FN(jac_set_inf)(out);
  if (n == 0)
    return CUZK_OK;
  if (threads == 0)
    threads = par_threads();
  if (threads > n)
    threads = (unsigned)n;
  M_FN(naive_ctx) x = {bases, scalars, n, calloc(threads, sizeof(E_T(jac)))};
  if (!x.part)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm naive: %u partial sums", threads);
  par_run(threads, M_FN(naive_worker), &x);
  for (unsigned i = 0; i < threads; i++) E_FN(jac_add)(out, out, &x.part[i]);
  free(x.part);
  return CUZK_OK;
}

/* ---- test and benchmark inputs ---- */

#define GEN_S 512 /* streams per block: one inversion per 512 additions */
#define GEN_J 8   /* steps per stream */
#define GEN_BLOCK (GEN_S * GEN_J)

typedef struct {
  uint8_t *out;
  size_t n, nblocks;
  uint64_t seed;
  const E_T(aff) * cs, *ds; /* the fixed tables C and D, GEN_S each */
  uint8_t *scratch;         /* per worker: GEN_S points + 2 GEN_S field elements */
} M_FN(gen_ctx);

/* A 256-bit pseudo-random multiplier k(seed, i) (splitmix64). */
static void M_FN(gen_scalar)(limb_t k[4], uint64_t seed, uint64_t i) {
  uint64_t z = seed ^ (i * 0xd1342543de82ef95ULL);
  for (int j = 0; j < 4; j++) {
    z += 0x9e3779b97f4a7c15ULL;
    uint64_t y = z;
    y = (y ^ (y >> 30)) * 0xbf58476d1ce4e5b9ULL;
    y = (y ^ (y >> 27)) * 0x94d049bb133111ebULL;
    k[j] = y ^ (y >> 31);
  }
}

static void M_FN(gen_worker)(void *vctx, unsigned idx, unsigned nthreads) {
  M_FN(gen_ctx) *x = vctx;
  E_T(aff) *xs = (E_T(aff) *)(x->scratch + (size_t)idx * (GEN_S * (sizeof(E_T(aff)) + 2 * sizeof(EC_F))));
  EC_F *fs = (EC_F *)(xs + GEN_S);
  size_t blo, bhi;
  par_range(x->nblocks, idx, nthreads, &blo, &bhi);
  for (size_t b = blo; b < bhi; b++) {
    /* X_(j,s) = B_b + C_s + j D_s, B_b = k_b G. */
    limb_t k[4];
    E_T(jac) bj;
    E_T(aff) ba;
    M_FN(gen_scalar)(k, x->seed, 2 * GEN_S + b);
    E_FN(jac_from_aff)(&bj, &E_FN(generator));
    E_FN(jac_mul_vartime)(&bj, &bj, k, 4);
    E_FN(jac_to_aff)(&ba, &bj);
    size_t ns = x->n < GEN_S ? x->n : GEN_S;
    for (size_t s = 0; s < ns; s++) xs[s] = ba;
    for (size_t j = 0; j < GEN_J && b * GEN_BLOCK + j * GEN_S < x->n; j++) {
      E_FN(aff_batch_add)(xs, xs, j ? x->ds : x->cs, ns, fs);
      for (size_t s = 0; s < ns; s++) {
        size_t i = b * GEN_BLOCK + j * GEN_S + s;
        if (i < x->n)
          memcpy(x->out + i * sizeof(E_T(aff)), &xs[s], sizeof(E_T(aff)));
      }
    }
  }
}

cuzk_status M_FN(gen_bases)(void *out, size_t n, uint64_t seed, unsigned threads, cuzk_err *err) {
  if (n == 0)
    return CUZK_OK;
  if (threads == 0)
    threads = par_threads();
  size_t nblocks = (n + GEN_BLOCK - 1) / GEN_BLOCK;
  if (threads > nblocks)
    threads = (unsigned)nblocks;
  size_t per = GEN_S * (sizeof(E_T(aff)) + 2 * sizeof(EC_F));
  E_T(jac) *tj = malloc(2 * GEN_S * sizeof *tj);
  E_T(aff) *tab = malloc(2 * GEN_S * sizeof *tab);
  EC_F *fs = malloc(4 * GEN_S * sizeof *fs);
  uint8_t *scr = malloc((size_t)threads * per);
  if (!tj || !tab || !fs || !scr) {
    free(tj), free(tab), free(fs), free(scr);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "msm gen_bases: tables");
  }
  /* C_s, D_s: independent random 64-bit multiples of G (~1000M each), so
   * that no short +-1 relation ties different streams together.  Small n
   * uses only the first n streams and pays for those only. */
  size_t ns = n < GEN_S ? n : GEN_S;
  for (size_t i = 0; i < 2 * GEN_S; i++) {
    limb_t k[4];
    if (i % GEN_S >= ns) {
      E_FN(jac_set_inf)(&tj[i]);
      continue;
    }
    M_FN(gen_scalar)(k, seed, i);
    E_FN(jac_from_aff)(&tj[i], &E_FN(generator));
    E_FN(jac_mul_vartime)(&tj[i], &tj[i], k, 1);
  }
  E_FN(jac_batch_to_aff)(tab, tj, 2 * GEN_S, fs);
  M_FN(gen_ctx) x = {out, n, nblocks, seed, tab, tab + GEN_S, scr};
  par_run(threads, M_FN(gen_worker), &x);
  free(tj), free(tab), free(fs), free(scr);
  return CUZK_OK;
}

#undef GEN_S
#undef GEN_J
#undef GEN_BLOCK
#undef M_CAT2
#undef M_CAT
#undef E_FN
#undef E_T
#undef F_FN
#undef M_FN
