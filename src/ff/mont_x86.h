/* Montgomery arithmetic for x86-64 with BMI2 and ADX: the multiplication,
 * squaring, lazy-reduction pieces and Fp2 product of mont_x86.c (top-level
 * assembly, out of line; its DESIGN comment has the algorithms, bounds and
 * measurements) and the addition and subtraction below (inline asm).
 * Included by ff/mont.h only when CUZK_MONT_X86 is defined (x86-64,
 * __BMI2__, __ADX__, no CUZK_NO_ASM); mont.h then binds mont*_add/sub/mul/
 * sqr (and mont384_mul_wide/redc/fp2_mul) to these, and the portable C of
 * mont_tmpl.h (mont*_*_ref) is their reference.
 *
 * Contract, as for the references: inputs < p, output < p, the output may
 * alias an input, p < 2^(64N-1) (the top bit of p clear, which BLS12-381
 * and BN254 satisfy: a + b < 2p never carries out of N limbs).
 *
 * DESIGN (add/sub)
 *
 * Inline, since they are short and called everywhere, but written to need
 * few registers (at most 9, plus the addresses of the "m" operands that
 * tell the compiler which memory is read), so that any compiler and
 * optimisation level can allocate them - including the sanitizer build
 * with rbp as frame pointer, and -O0.  The 6-limb versions therefore
 * subtract p in place and add it back under the borrow, instead of keeping
 * a second copy; the pointer operands a and b are reused as scratch once
 * read ("+&r": early-clobbered, so never sharing a register with p).
 * Carry-intrinsic C measured 2.4 times slower than this under gcc 12.
 * bench/bench_mont.c measures them; its figures are in bench/RESULTS.md. */
#ifndef CUZK_FF_MONT_X86_H
#define CUZK_FF_MONT_X86_H

#include "base/bytes.h"

/* mont_x86.c.  r = a*b / 2^(64N) mod p and r = a^2 / 2^(64N) mod p. */
void mont256_mul_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p, limb_t n0);
void mont384_mul_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p, limb_t n0);
void mont384_sqr_x86(limb_t *r, const limb_t *a, const limb_t *p, limb_t n0);
/* Lazy reduction (mont_x86.c has the bounds).  r = a*b, 12 limbs, r not
 * overlapping a or b; r = t / 2^384 mod p for a 12-limb t < p 2^384. */
void mont384_mul_wide_x86(limb_t *r, const limb_t *a, const limb_t *b);
void mont384_redc_x86(limb_t *r, const limb_t *t, const limb_t *p, limb_t n0);
/* Fp2 = F[u]/(u^2 + 1) on 12-limb pairs (x0 in x[0..5], x1 in x[6..11]),
 * r = a*b (3 wide products, 2 reductions); r may alias a or b. */
void mont384_fp2_mul_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                         limb_t n0);

/* The 4-limb squaring is the multiplication: a dedicated one (10 + 16
 * mulx instead of 32, over a doubled operand, as mont384_sqr_x86) gained
 * little on Zen 1 and lost on the GPU host's Xeon, since the 4-limb path
 * is bound by the latency of its reduction chain, which squaring does not
 * shorten (bench/RESULTS.md). */
static inline void mont256_sqr_x86(limb_t *r, const limb_t *a, const limb_t *p, limb_t n0) {
  mont256_mul_x86(r, a, a, p, n0);
}

/* The memory an asm statement reads, named so that the compiler orders
 * stores before it without a blanket "memory" clobber. */
#define MX_IN(ptr, n) "m"(*(const limb_t(*)[n])(ptr))

/* r = a + b mod p, 4 limbs: the sum, then the sum minus p into copies
 * (two scratch registers and the spent pointers), kept unless it borrowed. */
static inline void mont256_add_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  limb_t t0, t1, t2, t3, s0, s1;
  __asm__("movq 0(%[a]), %[t0]\n\t"
          "addq 0(%[b]), %[t0]\n\t"
          "movq 8(%[a]), %[t1]\n\t"
          "adcq 8(%[b]), %[t1]\n\t"
          "movq 16(%[a]), %[t2]\n\t"
          "adcq 16(%[b]), %[t2]\n\t"
          "movq 24(%[a]), %[t3]\n\t"
          "adcq 24(%[b]), %[t3]\n\t"
          "movq %[t0], %[s0]\n\t"
          "subq 0(%[p]), %[s0]\n\t"
          "movq %[t1], %[s1]\n\t"
          "sbbq 8(%[p]), %[s1]\n\t"
          "movq %[t2], %[a]\n\t"
          "sbbq 16(%[p]), %[a]\n\t"
          "movq %[t3], %[b]\n\t"
          "sbbq 24(%[p]), %[b]\n\t"
          "cmovncq %[s0], %[t0]\n\t"
          "cmovncq %[s1], %[t1]\n\t"
          "cmovncq %[a], %[t2]\n\t"
          "cmovncq %[b], %[t3]\n\t"
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0),
            [s1] "=&r"(s1), [a] "+&r"(a), [b] "+&r"(b)
          : [p] "r"(p), MX_IN(a, 4), MX_IN(b, 4), MX_IN(p, 4)
          : "cc");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
}

/* Add p back if the subtraction before borrowed, one limb: after "sbb m, m"
 * (m = -borrow) ZF means "no borrow" and OF is clear; s = p_j, or m (= 0)
 * when no borrow, then adox.  cmov and adox leave ZF alone; "and" would
 * not (it clears CF and OF).  The final carry out is the borrow returning. */
#define MX_ADDBACK(OFF, T)                                                                         \
  "movq " OFF "(%[p]), %[s]\n\t"                                                                   \
  "cmovzq %[m], %[s]\n\t"                                                                          \
  "adoxq %[s], %[" #T "]\n\t"

/* r = a - b mod p, 4 limbs: a - b, then p added back if that borrowed. */
static inline void mont256_sub_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  limb_t t0, t1, t2, t3;
  __asm__("movq 0(%[m]), %[t0]\n\t"
          "subq 0(%[s]), %[t0]\n\t"
          "movq 8(%[m]), %[t1]\n\t"
          "sbbq 8(%[s]), %[t1]\n\t"
          "movq 16(%[m]), %[t2]\n\t"
          "sbbq 16(%[s]), %[t2]\n\t"
          "movq 24(%[m]), %[t3]\n\t"
          "sbbq 24(%[s]), %[t3]\n\t"
          "sbbq %[m], %[m]\n\t"
          MX_ADDBACK("0", t0) MX_ADDBACK("8", t1) MX_ADDBACK("16", t2) MX_ADDBACK("24", t3)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [m] "+&r"(a),
            [s] "+&r"(b)
          : [p] "r"(p), MX_IN(a, 4), MX_IN(b, 4), MX_IN(p, 4)
          : "cc");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
}

/* r = a + b mod p, 6 limbs: the sum, p subtracted in place, and added back
 * if that borrowed (sum < p). */
static inline void mont384_add_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  limb_t t0, t1, t2, t3, t4, t5;
  __asm__("movq 0(%[m]), %[t0]\n\t"
          "addq 0(%[s]), %[t0]\n\t"
          "movq 8(%[m]), %[t1]\n\t"
          "adcq 8(%[s]), %[t1]\n\t"
          "movq 16(%[m]), %[t2]\n\t"
          "adcq 16(%[s]), %[t2]\n\t"
          "movq 24(%[m]), %[t3]\n\t"
          "adcq 24(%[s]), %[t3]\n\t"
          "movq 32(%[m]), %[t4]\n\t"
          "adcq 32(%[s]), %[t4]\n\t"
          "movq 40(%[m]), %[t5]\n\t"
          "adcq 40(%[s]), %[t5]\n\t"
          "subq 0(%[p]), %[t0]\n\t"
          "sbbq 8(%[p]), %[t1]\n\t"
          "sbbq 16(%[p]), %[t2]\n\t"
          "sbbq 24(%[p]), %[t3]\n\t"
          "sbbq 32(%[p]), %[t4]\n\t"
          "sbbq 40(%[p]), %[t5]\n\t"
          "sbbq %[m], %[m]\n\t"
          MX_ADDBACK("0", t0) MX_ADDBACK("8", t1) MX_ADDBACK("16", t2) MX_ADDBACK("24", t3)
          MX_ADDBACK("32", t4) MX_ADDBACK("40", t5)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
            [t5] "=&r"(t5), [m] "+&r"(a), [s] "+&r"(b)
          : [p] "r"(p), MX_IN(a, 6), MX_IN(b, 6), MX_IN(p, 6)
          : "cc");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
  r[4] = t4;
  r[5] = t5;
}

/* r = a - b mod p, 6 limbs: a - b, then p added back if that borrowed. */
static inline void mont384_sub_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p) {
  limb_t t0, t1, t2, t3, t4, t5;
  __asm__("movq 0(%[m]), %[t0]\n\t"
          "subq 0(%[s]), %[t0]\n\t"
          "movq 8(%[m]), %[t1]\n\t"
          "sbbq 8(%[s]), %[t1]\n\t"
          "movq 16(%[m]), %[t2]\n\t"
          "sbbq 16(%[s]), %[t2]\n\t"
          "movq 24(%[m]), %[t3]\n\t"
          "sbbq 24(%[s]), %[t3]\n\t"
          "movq 32(%[m]), %[t4]\n\t"
          "sbbq 32(%[s]), %[t4]\n\t"
          "movq 40(%[m]), %[t5]\n\t"
          "sbbq 40(%[s]), %[t5]\n\t"
          "sbbq %[m], %[m]\n\t"
          MX_ADDBACK("0", t0) MX_ADDBACK("8", t1) MX_ADDBACK("16", t2) MX_ADDBACK("24", t3)
          MX_ADDBACK("32", t4) MX_ADDBACK("40", t5)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
            [t5] "=&r"(t5), [m] "+&r"(a), [s] "+&r"(b)
          : [p] "r"(p), MX_IN(a, 6), MX_IN(b, 6), MX_IN(p, 6)
          : "cc");
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
  r[4] = t4;
  r[5] = t5;
}

#undef MX_ADDBACK
#undef MX_IN

#endif
