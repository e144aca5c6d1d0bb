/* Batch-affine point arithmetic, written once for G1 and G2 (include with EC
 * and EC_F as for ec/ec_tmpl.h).
 *
 * The MSM is their main user; they sit with the point formulas so that the
 * GPU backend's tests and the verifier can use them too.
 *
 * Affine addition needs one inversion; Montgomery's trick shares one
 * inversion among k independent additions at 3(k-1) M, so each addition
 * costs about 5M + 1S plus 1/k of an inversion:
 *
 *   prep:    den = x2 - x1                  (or 2 y1 when doubling)
 *   batch:   den <- 1/den                   (3M per element + 1 inversion)
 *   finish:  l  = (y2 - y1) den             (or 3 x1^2 den when doubling)  1M (+1S)
 *            x3 = l^2 - x1 - x2                                             1S
 *            y3 = l (x1 - x3) - y1                                          1M
 *
 * The two halves are exposed so that callers with their own layout (the
 * MSM's bucket tree) share the special-case logic: infinity operands, P = Q
 * (doubling) and P = -Q (infinity), which the general formula cannot do. */

#define B_CAT2(a, b) a##b
#define B_CAT(a, b) B_CAT2(a, b)
#define B_FN(name) B_CAT(EC, B_CAT(_, name))
#define B_T(name) B_CAT(EC, B_CAT(_, name))
#define BF_FN(name) B_CAT(EC_F, B_CAT(_, name))

/* Classifies p + q; returns its ec_batch_kind and sets *den to the value to
 * invert (one for the kinds that need no inversion, so that a batch never
 * holds a zero). */
static inline int B_FN(aff_add_prep)(EC_F *den, const B_T(aff) * p, const B_T(aff) * q) {
  if (B_FN(aff_is_inf)(q)) {
    BF_FN(set_one)(den);
    return EC_BATCH_P;
  }
  if (B_FN(aff_is_inf)(p)) {
    BF_FN(set_one)(den);
    return EC_BATCH_Q;
  }
  if (!BF_FN(eq)(&p->x, &q->x)) {
    BF_FN(sub)(den, &q->x, &p->x); /* x2 - x1 */
    return EC_BATCH_ADD;
  }
  /* Same x: q = p or q = -p.  y = 0 (a 2-torsion point, absent from the
   * prime-order groups) doubles to infinity. */
  if (BF_FN(eq)(&p->y, &q->y) && !BF_FN(is_zero)(&p->y)) {
    BF_FN(dbl)(den, &p->y); /* 2 y1 */
    return EC_BATCH_DBL;
  }
  BF_FN(set_one)(den);
  return EC_BATCH_INF;
}

/* r = p + q given inv = 1/den from aff_add_prep and its kind.  r may alias p
 * or q.  ADD: 2M + 1S, DBL: 2M + 2S.  Out of line: ~3 multiplications of
 * work, and gcc 12 spills badly when it inlines this into a loop (measured
 * 1040 ns inlined vs 560 ns called, G1, portable Fp multiply). */
void B_FN(aff_add_finish)(B_T(aff) * r, const B_T(aff) * p, const B_T(aff) * q, const EC_F *inv,
                          int kind);

/* a[i] <- 1/a[i] for n non-zero elements (Montgomery's trick); pre holds n
 * elements of scratch.  One inversion + 3(n-1) M. */
void B_FN(batch_inv_nonzero)(EC_F *a, EC_F *pre, size_t n);

/* r[i] = a[i] + b[i] for n pairs, all cases handled (infinity, doubling,
 * opposite points).  r may equal a or b.  scratch: 2n elements of EC_F.
 * Cost: n (6M) + one inversion. */
void B_FN(aff_batch_add)(B_T(aff) * r, const B_T(aff) * a, const B_T(aff) * b, size_t n,
                         EC_F *scratch);

/* r[i] = p[i] in affine form; infinity stays infinity (all zeros).  scratch:
 * 2n elements of EC_F.  Cost: n (6M + 1S) + one inversion. */
void B_FN(jac_batch_to_aff)(B_T(aff) * r, const B_T(jac) * p, size_t n, EC_F *scratch);

#undef B_CAT2
#undef B_CAT
#undef B_FN
#undef B_T
#undef BF_FN
