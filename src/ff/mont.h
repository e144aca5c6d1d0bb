/* Width-generic Montgomery arithmetic: mont256_* (4 limbs) and mont384_*
 * (6 limbs).  The modulus is a parameter; ff/field_tmpl.h binds it per field.
 *
 * mont_tmpl.h holds the portable C, with the references for the routines
 * that have assembly under *_ref (add, sub, mul, sqr, and for 6 limbs
 * mul_wide, redc, fp2_mul).  When the compiler targets x86-64 with BMI2
 * and ADX (the build's -march=x86-64-v3 -madx), those are the mulx/adcx/
 * adox assembly of mont_x86.h / mont_x86.c (CUZK_MONT_X86 says so);
 * otherwise, or with CUZK_NO_ASM defined (e.g. make ARCH="-march=x86-64-v3
 * -madx -DCUZK_NO_ASM"), they are the references.  Both follow the same
 * contract: inputs < p, output < p, output may alias an input (mul_wide
 * and redc: their own, below), and p < 2^(64N-1) (the top bit clear; true
 * of BLS12-381 and BN254). */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include "base/bytes.h"

#define MONT_N 4
#define MONT_PREFIX mont256_
#include "ff/mont_tmpl.h"
#undef MONT_N
#undef MONT_PREFIX

#define MONT_N 6
#define MONT_PREFIX mont384_
#include "ff/mont_tmpl.h"
#undef MONT_N
#undef MONT_PREFIX

#if defined(__x86_64__) && defined(__BMI2__) && defined(__ADX__) && !defined(CUZK_NO_ASM)
#define CUZK_MONT_X86 1
#include "ff/mont_x86.h"
#define MONT_ASM "x86-64 mulx/adx"
#define MONT_BIND(name) name##_x86
#else
#define MONT_ASM "none (portable C)"
#define MONT_BIND(name) name##_ref
#endif

static inline void mont256_add(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  MONT_BIND(mont256_add)(r, a, b, p);
}
static inline void mont256_sub(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  MONT_BIND(mont256_sub)(r, a, b, p);
}
static inline void mont384_add(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  MONT_BIND(mont384_add)(r, a, b, p);
}
static inline void mont384_sub(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  MONT_BIND(mont384_sub)(r, a, b, p);
}
static inline void mont256_mul(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                               limb_t n0) {
  MONT_BIND(mont256_mul)(r, a, b, p, n0);
}
static inline void mont256_sqr(limb_t *r, const limb_t *a, const limb_t *p, limb_t n0) {
  MONT_BIND(mont256_sqr)(r, a, p, n0);
}
static inline void mont384_mul(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                               limb_t n0) {
  MONT_BIND(mont384_mul)(r, a, b, p, n0);
}
static inline void mont384_sqr(limb_t *r, const limb_t *a, const limb_t *p, limb_t n0) {
  MONT_BIND(mont384_sqr)(r, a, p, n0);
}

/* The lazy-reduction pieces - r = a*b (2N limbs, r not overlapping a or
 * b) and r = t / 2^(64N) mod p for t < p 2^(64N) - and the product in
 * Fp2 = F[u]/(u^2 + 1) on 2N-limb pairs (x0 in x[0..N), x1 in x[N..2N)).
 * 6 limbs have assembly (mont_x86.c: the Fp2 product is Karatsuba with two
 * reductions, its pieces inline; mul_wide and redc as functions serve the
 * tests and the benchmark); 4 limbs use the reference. */
static inline void mont384_mul_wide(limb_t *r, const limb_t *a, const limb_t *b) {
  MONT_BIND(mont384_mul_wide)(r, a, b);
}
static inline void mont384_redc(limb_t *r, const limb_t *t, const limb_t *p, limb_t n0) {
  MONT_BIND(mont384_redc)(r, t, p, n0);
}
static inline void mont384_fp2_mul(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                                   limb_t n0) {
  MONT_BIND(mont384_fp2_mul)(r, a, b, p, n0);
}
static inline void mont256_fp2_mul(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                                   limb_t n0) {
  mont256_fp2_mul_ref(r, a, b, p, n0);
}

#undef MONT_BIND

#endif
