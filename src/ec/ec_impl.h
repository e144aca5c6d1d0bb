/* Out-of-line point formulas (see ec_tmpl.h); included once per group by
 * the curve's .c file with EC, EC_F and EC_ORDER (the group order's limbs,
 * EC_ORDER_N of them) defined.  Formulas: the Explicit-Formulas Database,
 * short Weierstrass a = 0. */

#define E_CAT2(a, b) a##b
#define E_CAT(a, b) E_CAT2(a, b)
#define E_FN(name) E_CAT(EC, E_CAT(_, name))
#define E_T(name) E_CAT(EC, E_CAT(_, name))
#define F_FN(name) E_CAT(EC_F, E_CAT(_, name))

int E_FN(aff_is_on_curve)(const E_T(aff) * p) {
  if (E_FN(aff_is_inf)(p))
    return 1;
  EC_F l, r;
  F_FN(sqr)(&l, &p->y);
  F_FN(sqr)(&r, &p->x);
  F_FN(mul)(&r, &r, &p->x);
  F_FN(add)(&r, &r, &E_FN(b));
  return F_FN(eq)(&l, &r);
}

int E_FN(aff_in_subgroup_ref)(const E_T(aff) * p) {
  if (!E_FN(aff_is_on_curve)(p))
    return 0;
  E_T(jac) j;
  E_FN(jac_from_aff)(&j, p);
  E_FN(jac_mul_vartime)(&j, &j, EC_ORDER, EC_ORDER_N);
  return E_FN(jac_is_inf)(&j);
}

void E_FN(jac_dbl)(E_T(jac) * r, const E_T(jac) * p) {
  EC_F a, b, c, d, e, f, t;
  F_FN(sqr)(&a, &p->x);      /* A = X1^2 */
  F_FN(sqr)(&b, &p->y);      /* B = Y1^2 */
  F_FN(sqr)(&c, &b);         /* C = B^2 */
  F_FN(add)(&d, &p->x, &b);  /* D = 2((X1+B)^2 - A - C) */
  F_FN(sqr)(&d, &d);
  F_FN(sub)(&d, &d, &a);
  F_FN(sub)(&d, &d, &c);
  F_FN(dbl)(&d, &d);
  F_FN(dbl)(&e, &a);         /* E = 3A */
  F_FN(add)(&e, &e, &a);
  F_FN(sqr)(&f, &e);         /* F = E^2 */
  F_FN(mul)(&t, &p->y, &p->z); /* Z3 = 2 Y1 Z1 (before Y is overwritten) */
  F_FN(dbl)(&r->z, &t);
  F_FN(dbl)(&t, &d);         /* X3 = F - 2D */
  F_FN(sub)(&r->x, &f, &t);
  F_FN(sub)(&t, &d, &r->x);  /* Y3 = E (D - X3) - 8C */
  F_FN(mul)(&t, &e, &t);
  F_FN(dbl)(&c, &c);
  F_FN(dbl)(&c, &c);
  F_FN(dbl)(&c, &c);
  F_FN(sub)(&r->y, &t, &c);
}

void E_FN(jac_add)(E_T(jac) * r, const E_T(jac) * p, const E_T(jac) * q) {
  if (E_FN(jac_is_inf)(p)) {
    *r = *q;
    return;
  }
  if (E_FN(jac_is_inf)(q)) {
    *r = *p;
    return;
  }
  EC_F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
  F_FN(sqr)(&z1z1, &p->z);
  F_FN(sqr)(&z2z2, &q->z);
  F_FN(mul)(&u1, &p->x, &z2z2);   /* U1 = X1 Z2Z2 */
  F_FN(mul)(&u2, &q->x, &z1z1);   /* U2 = X2 Z1Z1 */
  F_FN(mul)(&s1, &p->y, &q->z);   /* S1 = Y1 Z2 Z2Z2 */
  F_FN(mul)(&s1, &s1, &z2z2);
  F_FN(mul)(&s2, &q->y, &p->z);   /* S2 = Y2 Z1 Z1Z1 */
  F_FN(mul)(&s2, &s2, &z1z1);
  F_FN(sub)(&h, &u2, &u1);        /* H = U2 - U1 */
  F_FN(sub)(&rr, &s2, &s1);       /* r = 2 (S2 - S1) */
  if (F_FN(is_zero)(&h)) {
    if (F_FN(is_zero)(&rr))
      E_FN(jac_dbl)(r, p);
    else
      E_FN(jac_set_inf)(r);
    return;
  }
  F_FN(dbl)(&rr, &rr);
  F_FN(dbl)(&i, &h);              /* I = (2H)^2 */
  F_FN(sqr)(&i, &i);
  F_FN(mul)(&j, &h, &i);          /* J = H I */
  F_FN(mul)(&v, &u1, &i);         /* V = U1 I */
  F_FN(add)(&t, &p->z, &q->z);    /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H */
  F_FN(sqr)(&t, &t);
  F_FN(sub)(&t, &t, &z1z1);
  F_FN(sub)(&t, &t, &z2z2);
  F_FN(mul)(&r->z, &t, &h);
  F_FN(sqr)(&t, &rr);             /* X3 = r^2 - J - 2V */
  F_FN(sub)(&t, &t, &j);
  F_FN(sub)(&t, &t, &v);
  F_FN(sub)(&r->x, &t, &v);
  F_FN(sub)(&t, &v, &r->x);       /* Y3 = r (V - X3) - 2 S1 J */
  F_FN(mul)(&t, &rr, &t);
  F_FN(mul)(&s1, &s1, &j);
  F_FN(dbl)(&s1, &s1);
  F_FN(sub)(&r->y, &t, &s1);
}

void E_FN(jac_add_aff)(E_T(jac) * r, const E_T(jac) * p, const E_T(aff) * q) {
  if (E_FN(aff_is_inf)(q)) {
    *r = *p;
    return;
  }
  if (E_FN(jac_is_inf)(p)) {
    E_FN(jac_from_aff)(r, q);
    return;
  }
  EC_F z1z1, u2, s2, h, hh, i, j, rr, v, t, y1 = p->y, x1 = p->x;
  F_FN(sqr)(&z1z1, &p->z);
  F_FN(mul)(&u2, &q->x, &z1z1);   /* U2 = X2 Z1Z1 */
  F_FN(mul)(&s2, &q->y, &p->z);   /* S2 = Y2 Z1 Z1Z1 */
  F_FN(mul)(&s2, &s2, &z1z1);
  F_FN(sub)(&h, &u2, &x1);        /* H = U2 - X1 */
  F_FN(sub)(&rr, &s2, &y1);       /* r = 2 (S2 - Y1) */
  if (F_FN(is_zero)(&h)) {
    if (F_FN(is_zero)(&rr))
      E_FN(jac_dbl)(r, p);
    else
      E_FN(jac_set_inf)(r);
    return;
  }
  F_FN(dbl)(&rr, &rr);
  F_FN(sqr)(&hh, &h);             /* HH = H^2, I = 4 HH */
  F_FN(dbl)(&i, &hh);
  F_FN(dbl)(&i, &i);
  F_FN(mul)(&j, &h, &i);          /* J = H I */
  F_FN(mul)(&v, &x1, &i);         /* V = X1 I */
  F_FN(add)(&t, &p->z, &h);       /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
  F_FN(sqr)(&t, &t);
  F_FN(sub)(&t, &t, &z1z1);
  F_FN(sub)(&r->z, &t, &hh);
  F_FN(sqr)(&t, &rr);             /* X3 = r^2 - J - 2V */
  F_FN(sub)(&t, &t, &j);
  F_FN(sub)(&t, &t, &v);
  F_FN(sub)(&r->x, &t, &v);
  F_FN(sub)(&t, &v, &r->x);       /* Y3 = r (V - X3) - 2 Y1 J */
  F_FN(mul)(&t, &rr, &t);
  F_FN(mul)(&y1, &y1, &j);
  F_FN(dbl)(&y1, &y1);
  F_FN(sub)(&r->y, &t, &y1);
}

void E_FN(jac_to_aff)(E_T(aff) * r, const E_T(jac) * p) {
  if (E_FN(jac_is_inf)(p)) {
    E_FN(aff_set_inf)(r);
    return;
  }
  EC_F zi, zi2;
  F_FN(inv)(&zi, &p->z);
  F_FN(sqr)(&zi2, &zi);
  F_FN(mul)(&r->x, &p->x, &zi2);
  F_FN(mul)(&zi2, &zi2, &zi);
  F_FN(mul)(&r->y, &p->y, &zi2);
}

int E_FN(jac_eq)(const E_T(jac) * p, const E_T(jac) * q) {
  int pi = E_FN(jac_is_inf)(p), qi = E_FN(jac_is_inf)(q);
  if (pi || qi)
    return pi && qi;
  EC_F z1z1, z2z2, a, b;
  F_FN(sqr)(&z1z1, &p->z);
  F_FN(sqr)(&z2z2, &q->z);
  F_FN(mul)(&a, &p->x, &z2z2);
  F_FN(mul)(&b, &q->x, &z1z1);
  if (!F_FN(eq)(&a, &b))
    return 0;
  F_FN(mul)(&z2z2, &z2z2, &q->z);
  F_FN(mul)(&z1z1, &z1z1, &p->z);
  F_FN(mul)(&a, &p->y, &z2z2);
  F_FN(mul)(&b, &q->y, &z1z1);
  return F_FN(eq)(&a, &b);
}

void E_FN(jac_mul_vartime)(E_T(jac) * r, const E_T(jac) * p, const limb_t *k, size_t klimbs) {
  E_T(jac) acc, base = *p;
  E_FN(jac_set_inf)(&acc);
  for (size_t i = klimbs; i-- > 0;)
    for (int b = 63; b >= 0; b--) {
      E_FN(jac_dbl)(&acc, &acc);
      if ((k[i] >> b) & 1)
        E_FN(jac_add)(&acc, &acc, &base);
    }
  *r = acc;
}

/* ---- constant time: homogeneous projective (X:Y:Z), x = X/Z, y = Y/Z,
 * infinity (0:1:0); complete formulas (ec_tmpl.h jac_mul_ct) ---- */

typedef struct {
  EC_F x, y, z;
} E_T(proj);

/* RCB algorithm 7: P + Q, any P, Q (12M + 2 mul by 3b).  r may alias. */
static void E_FN(proj_add)(E_T(proj) * r, const E_T(proj) * p, const E_T(proj) * q,
                           const EC_F *b3) {
  EC_F t0, t1, t2, t3, t4, x3, y3, z3;
  F_FN(mul)(&t0, &p->x, &q->x);
  F_FN(mul)(&t1, &p->y, &q->y);
  F_FN(mul)(&t2, &p->z, &q->z);
  F_FN(add)(&t3, &p->x, &p->y);
  F_FN(add)(&t4, &q->x, &q->y);
  F_FN(mul)(&t3, &t3, &t4);
  F_FN(add)(&t4, &t0, &t1);
  F_FN(sub)(&t3, &t3, &t4); /* X1 Y2 + X2 Y1 */
  F_FN(add)(&t4, &p->y, &p->z);
  F_FN(add)(&x3, &q->y, &q->z);
  F_FN(mul)(&t4, &t4, &x3);
  F_FN(add)(&x3, &t1, &t2);
  F_FN(sub)(&t4, &t4, &x3); /* Y1 Z2 + Y2 Z1 */
  F_FN(add)(&x3, &p->x, &p->z);
  F_FN(add)(&y3, &q->x, &q->z);
  F_FN(mul)(&x3, &x3, &y3);
  F_FN(add)(&y3, &t0, &t2);
  F_FN(sub)(&y3, &x3, &y3); /* X1 Z2 + X2 Z1 */
  F_FN(dbl)(&x3, &t0);
  F_FN(add)(&t0, &x3, &t0); /* 3 X1 X2 */
  F_FN(mul)(&t2, b3, &t2);
  F_FN(add)(&z3, &t1, &t2);
  F_FN(sub)(&t1, &t1, &t2);
  F_FN(mul)(&y3, b3, &y3);
  F_FN(mul)(&x3, &t4, &y3);
  F_FN(mul)(&t2, &t3, &t1);
  F_FN(sub)(&x3, &t2, &x3);
  F_FN(mul)(&y3, &y3, &t0);
  F_FN(mul)(&t1, &t1, &z3);
  F_FN(add)(&y3, &t1, &y3);
  F_FN(mul)(&t0, &t0, &t3);
  F_FN(mul)(&z3, &z3, &t4);
  F_FN(add)(&z3, &z3, &t0);
  r->x = x3, r->y = y3, r->z = z3;
}

/* RCB algorithm 9: 2P, any P (6M + 2S + 1 mul by 3b).  r may alias. */
static void E_FN(proj_dbl)(E_T(proj) * r, const E_T(proj) * p, const EC_F *b3) {
  EC_F t0, t1, t2, x3, y3, z3;
  F_FN(sqr)(&t0, &p->y);
  F_FN(dbl)(&z3, &t0);
  F_FN(dbl)(&z3, &z3);
  F_FN(dbl)(&z3, &z3); /* 8 Y^2 */
  F_FN(mul)(&t1, &p->y, &p->z);
  F_FN(sqr)(&t2, &p->z);
  F_FN(mul)(&t2, b3, &t2);
  F_FN(mul)(&x3, &t2, &z3);
  F_FN(add)(&y3, &t0, &t2);
  F_FN(mul)(&z3, &t1, &z3);
  F_FN(dbl)(&t1, &t2);
  F_FN(add)(&t2, &t1, &t2);
  F_FN(sub)(&t0, &t0, &t2);
  F_FN(mul)(&y3, &t0, &y3);
  F_FN(add)(&y3, &x3, &y3);
  F_FN(mul)(&t1, &p->x, &p->y);
  F_FN(mul)(&x3, &t0, &t1);
  F_FN(dbl)(&x3, &x3);
  r->x = x3, r->y = y3, r->z = z3;
}

/* *r = tab[i] for i < n, reading every entry (no index-dependent access). */
static void E_FN(proj_select)(E_T(proj) * r, const E_T(proj) * tab, unsigned n, unsigned i) {
  const size_t words = sizeof(E_T(proj)) / sizeof(limb_t);
  limb_t acc[sizeof(E_T(proj)) / sizeof(limb_t)] = {0};
  for (unsigned j = 0; j < n; j++) {
    /* mask = all ones iff j == i, without a branch or a comparison flag */
    limb_t d = (limb_t)(j ^ i);
    limb_t mask = ((d | (0 - d)) >> 63) - 1;
    const limb_t *e = (const limb_t *)&tab[j];
    for (size_t w = 0; w < words; w++) acc[w] |= e[w] & mask;
  }
  memcpy(r, acc, sizeof *r);
}

void E_FN(jac_mul_ct)(E_T(jac) * r, const E_T(jac) * p, const limb_t k[4]) {
  if (E_FN(jac_is_inf)(p)) { /* a branch on p, never on k */
    E_FN(jac_set_inf)(r);
    return;
  }
  EC_F b3;
  F_FN(dbl)(&b3, &E_FN(b));
  F_FN(add)(&b3, &b3, &E_FN(b));
  /* Jacobian (X, Y, Z) -> projective (X Z, Y, Z^3). */
  E_T(proj) tab[16], acc, t;
  EC_F z2;
  F_FN(mul)(&tab[1].x, &p->x, &p->z);
  tab[1].y = p->y;
  F_FN(sqr)(&z2, &p->z);
  F_FN(mul)(&tab[1].z, &z2, &p->z);
  memset(&tab[0], 0, sizeof tab[0]);
  F_FN(set_one)(&tab[0].y);
  for (unsigned i = 2; i < 16; i++) E_FN(proj_add)(&tab[i], &tab[i - 1], &tab[1], &b3);
  E_FN(proj_select)(&acc, tab, 16, (unsigned)(k[3] >> 60));
  for (int nib = 62; nib >= 0; nib--) {
    for (int d = 0; d < 4; d++) E_FN(proj_dbl)(&acc, &acc, &b3);
    E_FN(proj_select)(&t, tab, 16, (unsigned)(k[nib / 16] >> (4 * (nib % 16))) & 15);
    E_FN(proj_add)(&acc, &acc, &t, &b3);
  }
  /* projective -> Jacobian (X Z, Y Z^2, Z); Z = 0 stays infinity. */
  F_FN(sqr)(&z2, &acc.z);
  F_FN(mul)(&r->x, &acc.x, &acc.z);
  F_FN(mul)(&r->y, &acc.y, &z2);
  r->z = acc.z;
}

void E_FN(xyzz_dbl)(E_T(xyzz) * r, const E_T(xyzz) * p) {
  EC_F u, v, w, s, m, t;
  F_FN(dbl)(&u, &p->y);          /* U = 2 Y1 */
  F_FN(sqr)(&v, &u);             /* V = U^2 */
  F_FN(mul)(&w, &u, &v);         /* W = U V */
  F_FN(mul)(&s, &p->x, &v);      /* S = X1 V */
  F_FN(sqr)(&m, &p->x);          /* M = 3 X1^2 */
  F_FN(dbl)(&t, &m);
  F_FN(add)(&m, &m, &t);
  F_FN(mul)(&r->zz, &v, &p->zz); /* ZZ3 = V ZZ1 */
  F_FN(mul)(&r->zzz, &w, &p->zzz); /* ZZZ3 = W ZZZ1 */
  F_FN(mul)(&w, &w, &p->y);      /* W Y1 (before Y is overwritten) */
  F_FN(sqr)(&t, &m);             /* X3 = M^2 - 2S */
  F_FN(sub)(&t, &t, &s);
  F_FN(sub)(&r->x, &t, &s);
  F_FN(sub)(&t, &s, &r->x);      /* Y3 = M (S - X3) - W Y1 */
  F_FN(mul)(&t, &m, &t);
  F_FN(sub)(&r->y, &t, &w);
}

void E_FN(xyzz_add_aff)(E_T(xyzz) * r, const E_T(xyzz) * p, const E_T(aff) * q) {
  if (E_FN(aff_is_inf)(q)) {
    *r = *p;
    return;
  }
  if (E_FN(xyzz_is_inf)(p)) {
    E_FN(xyzz_from_aff)(r, q);
    return;
  }
  EC_F u2, s2, pp, ppp, qq, rr, t;
  F_FN(mul)(&u2, &q->x, &p->zz);  /* U2 = X2 ZZ1 */
  F_FN(mul)(&s2, &q->y, &p->zzz); /* S2 = Y2 ZZZ1 */
  F_FN(sub)(&pp, &u2, &p->x);     /* P = U2 - X1 */
  F_FN(sub)(&rr, &s2, &p->y);     /* R = S2 - Y1 */
  if (F_FN(is_zero)(&pp)) {
    if (F_FN(is_zero)(&rr))
      E_FN(xyzz_dbl)(r, p);
    else
      E_FN(xyzz_set_inf)(r);
    return;
  }
  EC_F y1ppp, x3;
  F_FN(sqr)(&t, &pp);              /* PP = P^2 */
  F_FN(mul)(&ppp, &pp, &t);        /* PPP = P PP */
  F_FN(mul)(&qq, &p->x, &t);       /* Q = X1 PP */
  F_FN(mul)(&y1ppp, &p->y, &ppp);  /* Y1 PPP */
  F_FN(mul)(&r->zz, &p->zz, &t);   /* ZZ3 = ZZ1 PP */
  F_FN(mul)(&r->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 PPP */
  F_FN(sqr)(&x3, &rr);             /* X3 = R^2 - PPP - 2Q */
  F_FN(sub)(&x3, &x3, &ppp);
  F_FN(sub)(&x3, &x3, &qq);
  F_FN(sub)(&x3, &x3, &qq);
  F_FN(sub)(&t, &qq, &x3);         /* Y3 = R (Q - X3) - Y1 PPP */
  F_FN(mul)(&t, &rr, &t);
  F_FN(sub)(&r->y, &t, &y1ppp);
  r->x = x3;
}

void E_FN(xyzz_add)(E_T(xyzz) * r, const E_T(xyzz) * p, const E_T(xyzz) * q) {
  if (E_FN(xyzz_is_inf)(q)) {
    *r = *p;
    return;
  }
  if (E_FN(xyzz_is_inf)(p)) {
    *r = *q;
    return;
  }
  EC_F u1, u2, s1, s2, pp, ppp, rr, qq, t, x3;
  F_FN(mul)(&u1, &p->x, &q->zz);   /* U1 = X1 ZZ2 */
  F_FN(mul)(&u2, &q->x, &p->zz);   /* U2 = X2 ZZ1 */
  F_FN(mul)(&s1, &p->y, &q->zzz);  /* S1 = Y1 ZZZ2 */
  F_FN(mul)(&s2, &q->y, &p->zzz);  /* S2 = Y2 ZZZ1 */
  F_FN(sub)(&pp, &u2, &u1);        /* P = U2 - U1 */
  F_FN(sub)(&rr, &s2, &s1);        /* R = S2 - S1 */
  if (F_FN(is_zero)(&pp)) {
    if (F_FN(is_zero)(&rr))
      E_FN(xyzz_dbl)(r, p);
    else
      E_FN(xyzz_set_inf)(r);
    return;
  }
  E_T(xyzz) o;
  F_FN(sqr)(&t, &pp);              /* PP */
  F_FN(mul)(&ppp, &pp, &t);        /* PPP */
  F_FN(mul)(&qq, &u1, &t);         /* Q = U1 PP */
  F_FN(mul)(&o.zz, &p->zz, &q->zz); /* ZZ3 = ZZ1 ZZ2 PP */
  F_FN(mul)(&o.zz, &o.zz, &t);
  F_FN(mul)(&o.zzz, &p->zzz, &q->zzz); /* ZZZ3 = ZZZ1 ZZZ2 PPP */
  F_FN(mul)(&o.zzz, &o.zzz, &ppp);
  F_FN(sqr)(&x3, &rr);             /* X3 = R^2 - PPP - 2Q */
  F_FN(sub)(&x3, &x3, &ppp);
  F_FN(sub)(&x3, &x3, &qq);
  F_FN(sub)(&o.x, &x3, &qq);
  F_FN(sub)(&t, &qq, &o.x);        /* Y3 = R (Q - X3) - S1 PPP */
  F_FN(mul)(&t, &rr, &t);
  F_FN(mul)(&s1, &s1, &ppp);
  F_FN(sub)(&o.y, &t, &s1);
  *r = o;
}

/* Jacobian with Z = ZZZ: X' = X ZZ^2, Y' = Y ZZZ^2 (uses ZZ^3 = ZZZ^2). */
void E_FN(xyzz_to_jac)(E_T(jac) * r, const E_T(xyzz) * p) {
  if (E_FN(xyzz_is_inf)(p)) {
    E_FN(jac_set_inf)(r);
    return;
  }
  EC_F t;
  F_FN(sqr)(&t, &p->zz);
  F_FN(mul)(&r->x, &p->x, &t);
  F_FN(sqr)(&t, &p->zzz);
  F_FN(mul)(&r->y, &p->y, &t);
  r->z = p->zzz;
}

void E_FN(xyzz_to_aff)(E_T(aff) * r, const E_T(xyzz) * p) {
  if (E_FN(xyzz_is_inf)(p)) {
    E_FN(aff_set_inf)(r);
    return;
  }
  EC_F i;
  F_FN(inv)(&i, &p->zzz);        /* 1/ZZZ */
  F_FN(mul)(&r->y, &p->y, &i);
  F_FN(mul)(&i, &i, &p->zz);     /* ZZ/ZZZ = 1/Z */
  F_FN(sqr)(&i, &i);             /* 1/ZZ */
  F_FN(mul)(&r->x, &p->x, &i);
}

#undef E_CAT2
#undef E_CAT
#undef E_FN
#undef E_T
#undef F_FN
