/* A prime field bound to its constants: the type and its inline operations.
 *
 * Include with:
 *   FIELD      type and prefix, e.g. bls12_381_fp
 *   FIELD_N    limbs (4 or 6)
 *   FIELD_MONT mont256_ or mont384_
 *   FIELD_C    constant prefix from ff/consts_*.h, e.g. BLS12_381_FP
 * Elements are kept in Montgomery form (x*R mod p, R = 2^(64N)), the same
 * in-memory form as snarkjs's zkey points (docs/FORMATS.md §3.2).  The non-inline
 * operations (inv, pow, from/to canonical) come from field_impl.h. */

#define F_CAT2(a, b) a##b
#define F_CAT(a, b) F_CAT2(a, b)
#define F_FN(name) F_CAT(FIELD, F_CAT(_, name))
#define F_M(name) F_CAT(FIELD_MONT, name)
#define F_K(name) F_CAT(FIELD_C, F_CAT(_, name))

typedef struct {
  limb_t l[FIELD_N];
} FIELD;

/* The modulus and Montgomery constants, one copy per field. */
extern const limb_t F_FN(modulus)[FIELD_N];
extern const FIELD F_FN(one_mont); /* R mod p */
extern const FIELD F_FN(r2);       /* R^2 mod p */

static inline void F_FN(add)(FIELD *r, const FIELD *a, const FIELD *b) {
  F_M(add)(r->l, a->l, b->l, F_FN(modulus));
}
static inline void F_FN(sub)(FIELD *r, const FIELD *a, const FIELD *b) {
  F_M(sub)(r->l, a->l, b->l, F_FN(modulus));
}
static inline void F_FN(dbl)(FIELD *r, const FIELD *a) {
  F_M(add)(r->l, a->l, a->l, F_FN(modulus));
}
static inline void F_FN(neg)(FIELD *r, const FIELD *a) { F_M(neg)(r->l, a->l, F_FN(modulus)); }
static inline void F_FN(mul)(FIELD *r, const FIELD *a, const FIELD *b) {
  F_M(mul)(r->l, a->l, b->l, F_FN(modulus), F_K(N0));
}
static inline void F_FN(sqr)(FIELD *r, const FIELD *a) {
  F_M(sqr)(r->l, a->l, F_FN(modulus), F_K(N0));
}
/* Multiplication in F[u]/(u^2 + 1) over this field, for ff/fp2_tmpl.h:
 * x = x[0] + x[1] u, two adjacent elements (FIELD is its limbs alone, so
 * the pair is 2N limbs), each pointer the start of an object that holds
 * both (an Fp2 element); r may alias a or b.  The 6-limb assembly shares
 * work between the halves (mont_x86.c). */
static inline void F_FN(fp2_mul)(FIELD *r, const FIELD *a, const FIELD *b) {
  F_M(fp2_mul)((limb_t *)r, (const limb_t *)a, (const limb_t *)b, F_FN(modulus), F_K(N0));
}
static inline int F_FN(is_zero)(const FIELD *a) { return F_M(is_zero)(a->l); }
static inline int F_FN(eq)(const FIELD *a, const FIELD *b) { return F_M(eq)(a->l, b->l); }
static inline int F_FN(is_one)(const FIELD *a) { return F_M(eq)(a->l, F_FN(one_mont).l); }
static inline void F_FN(set_zero)(FIELD *r) { memset(r, 0, sizeof *r); }
static inline void F_FN(set_one)(FIELD *r) { *r = F_FN(one_mont); }
/* r = x*R mod p for a canonical x < p given as limbs. */
static inline void F_FN(from_canon)(FIELD *r, const limb_t *x) {
  F_M(mul)(r->l, x, F_FN(r2).l, F_FN(modulus), F_K(N0));
}
/* x = the canonical value of a (Montgomery reduction by 1). */
static inline void F_FN(to_canon)(limb_t *x, const FIELD *a) {
  static const limb_t one[FIELD_N] = {1};
  F_M(mul)(x, a->l, one, F_FN(modulus), F_K(N0));
}
/* r = small integer v. */
static inline void F_FN(set_u64)(FIELD *r, uint64_t v) {
  limb_t x[FIELD_N] = {v};
  F_FN(from_canon)(r, x);
}
/* Is x (canonical limbs) < p? */
static inline int F_FN(canon_ok)(const limb_t *x) { return limbs_lt(x, F_FN(modulus), FIELD_N); }

/* Out of line (field_impl.h). */
void F_FN(pow)(FIELD *r, const FIELD *a, const limb_t *e, size_t elimbs); /* vartime in e */
void F_FN(inv)(FIELD *r, const FIELD *a);                                 /* inv(0) = 0 */
/* Montgomery's trick: r[i] = 1/a[i] for n elements, zeros stay zero.
 * scratch holds n elements; r may equal a. */
void F_FN(batch_inv)(FIELD *r, const FIELD *a, size_t n, FIELD *scratch);

#undef F_CAT2
#undef F_CAT
#undef F_FN
#undef F_M
#undef F_K
