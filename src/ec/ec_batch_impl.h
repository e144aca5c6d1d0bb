/* Out-of-line batch-affine helpers (see ec_batch_tmpl.h); included once per
 * group by ec_batch.c with EC and EC_F defined. */

#define B_CAT2(a, b) a##b
#define B_CAT(a, b) B_CAT2(a, b)
#define B_FN(name) B_CAT(EC, B_CAT(_, name))
#define B_T(name) B_CAT(EC, B_CAT(_, name))
#define BF_FN(name) B_CAT(EC_F, B_CAT(_, name))

void B_FN(aff_add_finish)(B_T(aff) * r, const B_T(aff) * p, const B_T(aff) * q, const EC_F *inv,
                          int kind) {
  EC_F l, t, x3;
  switch (kind) {
  case EC_BATCH_ADD:
    BF_FN(sub)(&t, &q->y, &p->y);
    BF_FN(mul)(&l, &t, inv); /* l = (y2 - y1)/(x2 - x1) */
    break;
  case EC_BATCH_DBL:
    BF_FN(sqr)(&t, &p->x);
    BF_FN(dbl)(&l, &t);
    BF_FN(add)(&t, &l, &t);
    BF_FN(mul)(&l, &t, inv); /* l = 3 x1^2 / (2 y1) */
    break;
  case EC_BATCH_P:
    *r = *p;
    return;
  case EC_BATCH_Q:
    *r = *q;
    return;
  default:
    B_FN(aff_set_inf)(r);
    return;
  }
  BF_FN(sqr)(&x3, &l);           /* x3 = l^2 - x1 - x2 (x2 = x1 when doubling) */
  BF_FN(sub)(&x3, &x3, &p->x);
  BF_FN(sub)(&x3, &x3, &q->x);
  BF_FN(sub)(&t, &p->x, &x3);    /* y3 = l (x1 - x3) - y1 */
  BF_FN(mul)(&t, &l, &t);
  BF_FN(sub)(&r->y, &t, &p->y);
  r->x = x3;
}

void B_FN(batch_inv_nonzero)(EC_F *a, EC_F *pre, size_t n) {
  if (n == 0)
    return;
  pre[0] = a[0]; /* pre[i] = a[0] ... a[i] */
  for (size_t i = 1; i < n; i++) BF_FN(mul)(&pre[i], &pre[i - 1], &a[i]);
  EC_F acc, t;
  BF_FN(inv)(&acc, &pre[n - 1]); /* acc = 1/(a[0] ... a[i]) going down */
  for (size_t i = n - 1; i > 0; i--) {
    BF_FN(mul)(&t, &acc, &pre[i - 1]); /* 1/a[i] */
    BF_FN(mul)(&acc, &acc, &a[i]);
    a[i] = t;
  }
  a[0] = acc;
}

void B_FN(aff_batch_add)(B_T(aff) * r, const B_T(aff) * a, const B_T(aff) * b, size_t n,
                         EC_F *scratch) {
  EC_F *den = scratch, *pre = scratch + n;
  for (size_t i = 0; i < n; i++) B_FN(aff_add_prep)(&den[i], &a[i], &b[i]);
  B_FN(batch_inv_nonzero)(den, pre, n);
  for (size_t i = 0; i < n; i++) {
    EC_F unused;
    int kind = B_FN(aff_add_prep)(&unused, &a[i], &b[i]); /* cheap: compares only */
    B_FN(aff_add_finish)(&r[i], &a[i], &b[i], &den[i], kind);
  }
}

void B_FN(jac_batch_to_aff)(B_T(aff) * r, const B_T(jac) * p, size_t n, EC_F *scratch) {
  EC_F *zi = scratch, *pre = scratch + n;
  for (size_t i = 0; i < n; i++) {
    if (B_FN(jac_is_inf)(&p[i]))
      BF_FN(set_one)(&zi[i]);
    else
      zi[i] = p[i].z;
  }
  B_FN(batch_inv_nonzero)(zi, pre, n);
  for (size_t i = 0; i < n; i++) {
    if (B_FN(jac_is_inf)(&p[i])) {
      B_FN(aff_set_inf)(&r[i]);
      continue;
    }
    EC_F z2, z3;
    BF_FN(sqr)(&z2, &zi[i]);        /* x = X / Z^2, y = Y / Z^3 */
    BF_FN(mul)(&z3, &z2, &zi[i]);
    BF_FN(mul)(&r[i].y, &p[i].y, &z3);
    BF_FN(mul)(&r[i].x, &p[i].x, &z2);
  }
}

#undef B_CAT2
#undef B_CAT
#undef B_FN
#undef B_T
#undef BF_FN
