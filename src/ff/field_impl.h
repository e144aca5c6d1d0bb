/* Out-of-line field operations; included once per field by the curve's .c
 * file with the same macros as field_tmpl.h. */

#define F_CAT2(a, b) a##b
#define F_CAT(a, b) F_CAT2(a, b)
#define F_FN(name) F_CAT(FIELD, F_CAT(_, name))
#define F_K(name) F_CAT(FIELD_C, F_CAT(_, name))

const limb_t F_FN(modulus)[FIELD_N] = F_K(P);
const FIELD F_FN(one_mont) = {F_K(ONE)};
const FIELD F_FN(r2) = {F_K(R2)};

/* Left-to-right square-and-multiply.  Variable time in the exponent only,
 * and the exponents used (p-2, (p+1)/4, ...) are public. */
void F_FN(pow)(FIELD *r, const FIELD *a, const limb_t *e, size_t elimbs) {
  FIELD acc = F_FN(one_mont), base = *a;
  for (size_t i = elimbs; i-- > 0;) {
    for (int b = 63; b >= 0; b--) {
      F_FN(sqr)(&acc, &acc);
      if ((e[i] >> b) & 1)
        F_FN(mul)(&acc, &acc, &base);
    }
  }
  *r = acc;
}

/* Fermat: a^(p-2).  Cost: 64N squarings + about 32N multiplications. */
void F_FN(inv)(FIELD *r, const FIELD *a) {
  static const limb_t e[FIELD_N] = F_K(PM2);
  F_FN(pow)(r, a, e, FIELD_N);
}

void F_FN(batch_inv)(FIELD *r, const FIELD *a, size_t n, FIELD *scratch) {
  FIELD acc = F_FN(one_mont), t;
  /* scratch[i] = prod of the non-zero a[0..i) */
  for (size_t i = 0; i < n; i++) {
    scratch[i] = acc;
    if (!F_FN(is_zero)(&a[i]))
      F_FN(mul)(&acc, &acc, &a[i]);
  }
  F_FN(inv)(&acc, &acc);
  for (size_t i = n; i-- > 0;) {
    if (F_FN(is_zero)(&a[i])) {
      F_FN(set_zero)(&r[i]);
      continue;
    }
    F_FN(mul)(&t, &acc, &scratch[i]); /* 1/a[i] */
    F_FN(mul)(&acc, &acc, &a[i]);
    r[i] = t;
  }
}

#undef F_CAT2
#undef F_CAT
#undef F_FN
#undef F_K
