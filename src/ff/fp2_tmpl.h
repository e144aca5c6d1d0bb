/* Quadratic extension F[u]/(u^2 + 1) over a field bound by field_tmpl.h.
 * u^2 = -1 holds for both BLS12-381 and BN254.  The operation names match
 * the base field's so that ec/ec_tmpl.h instantiates G2 over this type.
 *
 * Include with FP2 (type/prefix) and FP2_BASE (the base field prefix). */

#define Q_CAT2(a, b) a##b
#define Q_CAT(a, b) Q_CAT2(a, b)
#define Q_FN(name) Q_CAT(FP2, Q_CAT(_, name))
#define B_FN(name) Q_CAT(FP2_BASE, Q_CAT(_, name))

typedef struct {
  FP2_BASE c0, c1; /* c0 + c1*u */
} FP2;

static inline void Q_FN(add)(FP2 *r, const FP2 *a, const FP2 *b) {
  B_FN(add)(&r->c0, &a->c0, &b->c0);
  B_FN(add)(&r->c1, &a->c1, &b->c1);
}
static inline void Q_FN(sub)(FP2 *r, const FP2 *a, const FP2 *b) {
  B_FN(sub)(&r->c0, &a->c0, &b->c0);
  B_FN(sub)(&r->c1, &a->c1, &b->c1);
}
static inline void Q_FN(dbl)(FP2 *r, const FP2 *a) {
  B_FN(dbl)(&r->c0, &a->c0);
  B_FN(dbl)(&r->c1, &a->c1);
}
static inline void Q_FN(neg)(FP2 *r, const FP2 *a) {
  B_FN(neg)(&r->c0, &a->c0);
  B_FN(neg)(&r->c1, &a->c1);
}
/* The base field's fp2_mul takes c0 and c1 as one array of two, through a
 * pointer to the whole element. */
_Static_assert(offsetof(FP2, c1) == sizeof(FP2_BASE) && sizeof(FP2) == 2 * sizeof(FP2_BASE),
               "c1 follows c0 with no padding");
/* (a0 + a1 u)(b0 + b1 u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u.
 * 3M and 5 add/sub; on x86-64 (6 limbs) 3 unreduced products and 2
 * reductions (ff/mont_x86.c). */
static inline void Q_FN(mul)(FP2 *r, const FP2 *a, const FP2 *b) {
  B_FN(fp2_mul)((FP2_BASE *)r, (const FP2_BASE *)a, (const FP2_BASE *)b);
}
/* (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2 a0 a1 u.  2M.  (One routine with the
 * sums unreduced measured no faster: bench/RESULTS.md.) */
static inline void Q_FN(sqr)(FP2 *r, const FP2 *a) {
  FP2_BASE s, d, m;
  B_FN(add)(&s, &a->c0, &a->c1);
  B_FN(sub)(&d, &a->c0, &a->c1);
  B_FN(mul)(&m, &a->c0, &a->c1);
  B_FN(mul)(&r->c0, &s, &d);
  B_FN(dbl)(&r->c1, &m);
}
static inline void Q_FN(mul_base)(FP2 *r, const FP2 *a, const FP2_BASE *b) {
  B_FN(mul)(&r->c0, &a->c0, b);
  B_FN(mul)(&r->c1, &a->c1, b);
}
static inline void Q_FN(conj)(FP2 *r, const FP2 *a) {
  r->c0 = a->c0;
  B_FN(neg)(&r->c1, &a->c1);
}
static inline int Q_FN(is_zero)(const FP2 *a) { return B_FN(is_zero)(&a->c0) && B_FN(is_zero)(&a->c1); }
static inline int Q_FN(eq)(const FP2 *a, const FP2 *b) {
  return B_FN(eq)(&a->c0, &b->c0) && B_FN(eq)(&a->c1, &b->c1);
}
static inline int Q_FN(is_one)(const FP2 *a) { return B_FN(is_one)(&a->c0) && B_FN(is_zero)(&a->c1); }
static inline void Q_FN(set_zero)(FP2 *r) { memset(r, 0, sizeof *r); }
static inline void Q_FN(set_one)(FP2 *r) {
  B_FN(set_one)(&r->c0);
  B_FN(set_zero)(&r->c1);
}
/* 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2); inv(0) = 0. */
static inline void Q_FN(inv)(FP2 *r, const FP2 *a) {
  FP2_BASE t0, t1;
  B_FN(sqr)(&t0, &a->c0);
  B_FN(sqr)(&t1, &a->c1);
  B_FN(add)(&t0, &t0, &t1);
  B_FN(inv)(&t0, &t0);
  B_FN(mul)(&r->c0, &a->c0, &t0);
  B_FN(mul)(&t1, &a->c1, &t0);
  B_FN(neg)(&r->c1, &t1);
}
/* Square-and-multiply by an integer exponent of elimbs limbs (public). */
static inline void Q_FN(pow)(FP2 *r, const FP2 *a, const limb_t *e, size_t elimbs) {
  FP2 acc, base = *a;
  Q_FN(set_one)(&acc);
  for (size_t i = elimbs; i-- > 0;)
    for (int b = 63; b >= 0; b--) {
      Q_FN(sqr)(&acc, &acc);
      if ((e[i] >> b) & 1)
        Q_FN(mul)(&acc, &acc, &base);
    }
  *r = acc;
}

#undef Q_CAT2
#undef Q_CAT
#undef Q_FN
#undef B_FN
