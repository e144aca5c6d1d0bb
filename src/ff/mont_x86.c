/* Montgomery multiplication and squaring for x86-64 with BMI2 and ADX
 * (mulx, adcx, adox): mont256_mul_x86, mont384_mul_x86 and mont384_sqr_x86,
 * declared in ff/mont_x86.h and bound to mont*_mul/sqr by ff/mont.h (the
 * 4-limb squaring is the 4-limb multiplication; mont_x86.h says why).  The
 * portable C in ff/mont_tmpl.h is their reference (tests/unit/test_mont.c
 * compares them on four moduli).
 *
 * DESIGN
 *
 * Whole functions in top-level assembly, not inline asm: the 6-limb loops
 * keep 14 values live (7 accumulators, 2 product halves, rdx and 4
 * pointers), more than a compiler can hand an asm statement when rbp is the
 * frame pointer (the -O1 sanitizer build), at -O0, or under clang - all of
 * which failed with the inline version.  Here every register is ours; the
 * call costs a few cycles.  SysV ABI: arguments in rdi, rsi, rdx, rcx, r8;
 * rbx, rbp, r12-r15 are saved and restored where used; the squaring keeps
 * 80 bytes of scratch in the red zone below rsp (a leaf function).
 *
 * Contract (the reference's): a, b < p; r < p on return; r may alias a or
 * b (r is written only after the last read of a and b); n0 = -p^-1 mod
 * 2^64.  p and n0 are arguments: nothing here knows a curve.
 *
 * What this relies on: p < 2^(64N-1), the top bit of p clear (BLS12-381 p:
 * 381 bits, r: 255; BN254 p and r: 254).  Then no intermediate needs a
 * carry limb beyond those named:
 *   mul (CIOS), row i: t < 2p before it; t + a*b_i + m*p <= 2p-1 +
 *     (p-1)(2^64-1) + (2^64-1)p = 2^64 (2p-1) < 2^(64(N+1)): N+1 registers
 *     hold it, and after the division by 2^64, t < 2p < 2^(64N) again.  So
 *     no (N+2)-th limb and no carry flag survives a row.
 *   sqr: see the squaring section (t < 3p < 2^383 between rows).
 *   Both end below 2p: (a*b + M p) / 2^(64N) < p^2/2^(64N) + p < 2p, so one
 *   conditional subtraction of p finishes.
 *
 * Carry chains.  adcx touches only CF and adox only OF, so a row sends its
 * products' low halves up one chain and the high halves up the other; mulx
 * touches no flags, so products interleave freely.  Each chain starts with
 * an xor that clears both flags, which also cuts the dependency on the
 * previous chain's flags.  Registers rotate by name instead of moving: a
 * reduction zeroes the lowest accumulator, which becomes the next top.
 *
 * Cost.  mul: 2N^2 mulx + N imul; sqr (6 limbs): 21 + 36 mulx + 6 imul.
 * On the development machine (AMD EPYC, Zen 1, ~2.5 GHz under load) mulx
 * issues every 2 cycles (imul every 1), so the multiplier bounds the
 * 6-limb mul at 150 cycles and the squaring at 120; the 4-limb mul's 68
 * are further stretched by the latency of its reduction chain.  Measured
 * by bench/bench_mont.c, dependent chains, ns (reference C in brackets):
 *                     6-limb mul   6-limb sqr   4-limb mul (= sqr)
 *   Zen 1, 2.5 GHz    66  (148)    57  (155)    33  (67)
 *   Xeon,  2.8 GHz    41   (68)    34   (64)    23  (33)
 * Independent multiplications run within ~8 % of the 150-cycle bound.
 * Fewer multiplies do not pay here: a one-level Karatsuba 6-limb mul (27
 * mulx for the product, 63 in all, the reduction split in two halves)
 * measured 75-77 ns against 66, its extra additions, loads and stores
 * costing more than the 9 mulx saved. */
#include "ff/mont.h"

#if defined(CUZK_MONT_X86) && defined(__ELF__)

/* Register names.  a, b, p, n0 and r stay where the ABI puts them, except
 * b (and p, n0 in the squaring), which leave rdx and rcx for mulx's
 * implicit operand and for p.  lo and hi take each product's halves. */
#define RA "%rsi"
#define RB "%r9"
#define RP "%rcx"
#define N0 "%r8"
#define RR "%rdi"
#define LO "%rax"
#define LO32 "%eax"
#define HI "%rbp"
#define X(reg) "%" #reg

#if defined(__CET__)
#define MX_ENDBR "endbr64\n"
#else
#define MX_ENDBR ""
#endif

#define MX_BEGIN(name)                                                                             \
  ".globl " #name "\n"                                                                             \
  ".hidden " #name "\n"                                                                            \
  ".type " #name ", @function\n"                                                                   \
  ".p2align 5\n" #name ":\n"                                                                       \
  ".cfi_startproc\n" MX_ENDBR
#define MX_END(name)                                                                               \
  "ret\n"                                                                                          \
  ".cfi_endproc\n"                                                                                 \
  ".size " #name ", .-" #name "\n"
#define MX_PUSH(reg)                                                                               \
  "pushq %" #reg "\n"                                                                              \
  ".cfi_adjust_cfa_offset 8\n"                                                                     \
  ".cfi_rel_offset %" #reg ", 0\n"
#define MX_POP(reg)                                                                                \
  "popq %" #reg "\n"                                                                               \
  ".cfi_adjust_cfa_offset -8\n"                                                                    \
  ".cfi_restore %" #reg "\n"
#define MX_SAVE4 MX_PUSH(rbx) MX_PUSH(rbp) MX_PUSH(r12) MX_PUSH(r13)
#define MX_RESTORE4 MX_POP(r13) MX_POP(r12) MX_POP(rbp) MX_POP(rbx)
#define MX_SAVE MX_SAVE4 MX_PUSH(r14) MX_PUSH(r15)
#define MX_RESTORE MX_POP(r15) MX_POP(r14) MX_RESTORE4

/* ---- multiplication (CIOS) ---- */

/* Row 0: T0..TN = a * b_0 (one carry chain, nothing to add to). */
#define MX_ROW0_4(T0, T1, T2, T3, T4)                                                              \
  "movq 0(" RB "), %rdx\n"                                                                         \
  "mulxq 0(" RA "), " X(T0) ", " X(T1) "\n"                                                        \
  "mulxq 8(" RA "), " LO ", " X(T2) "\n"                                                           \
  "addq " LO ", " X(T1) "\n"                                                                       \
  "mulxq 16(" RA "), " LO ", " X(T3) "\n"                                                          \
  "adcq " LO ", " X(T2) "\n"                                                                       \
  "mulxq 24(" RA "), " LO ", " X(T4) "\n"                                                          \
  "adcq " LO ", " X(T3) "\n"                                                                       \
  "adcq $0, " X(T4) "\n"

#define MX_ROW0_6(T0, T1, T2, T3, T4, T5, T6)                                                      \
  "movq 0(" RB "), %rdx\n"                                                                         \
  "mulxq 0(" RA "), " X(T0) ", " X(T1) "\n"                                                        \
  "mulxq 8(" RA "), " LO ", " X(T2) "\n"                                                           \
  "addq " LO ", " X(T1) "\n"                                                                       \
  "mulxq 16(" RA "), " LO ", " X(T3) "\n"                                                          \
  "adcq " LO ", " X(T2) "\n"                                                                       \
  "mulxq 24(" RA "), " LO ", " X(T4) "\n"                                                          \
  "adcq " LO ", " X(T3) "\n"                                                                       \
  "mulxq 32(" RA "), " LO ", " X(T5) "\n"                                                          \
  "adcq " LO ", " X(T4) "\n"                                                                       \
  "mulxq 40(" RA "), " LO ", " X(T6) "\n"                                                          \
  "adcq " LO ", " X(T5) "\n"                                                                       \
  "adcq $0, " X(T6) "\n"

/* One product of a row: X += lo(a_j * rdx) on OF, Y (the next limb) += hi
 * on CF. */
#define MX_MAC(OFF, XR, YR)                                                                        \
  "mulxq " OFF "(" RA "), " LO ", " HI "\n"                                                        \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "adcxq " HI ", " X(YR) "\n"

/* Row i >= 1: T0..T(N-1) += a * b_i, TN = the new top (free on entry).  The
 * last product's high half goes straight to TN, which then takes both
 * chains' carries through lo, zeroed by mov (mov keeps the flags). */
#define MX_ROW_4(OFF, T0, T1, T2, T3, T4)                                                          \
  "movq " OFF "(" RB "), %rdx\n"                                                                   \
  "xorq " X(T4) ", " X(T4) "\n"                                                                    \
  MX_MAC("0", T0, T1) MX_MAC("8", T1, T2) MX_MAC("16", T2, T3)                                     \
  "mulxq 24(" RA "), " LO ", " X(T4) "\n"                                                          \
  "adoxq " LO ", " X(T3) "\n"                                                                      \
  "movl $0, " LO32 "\n"                                                                            \
  "adcxq " LO ", " X(T4) "\n"                                                                      \
  "adoxq " LO ", " X(T4) "\n"

#define MX_ROW_6(OFF, T0, T1, T2, T3, T4, T5, T6)                                                  \
  "movq " OFF "(" RB "), %rdx\n"                                                                   \
  "xorq " X(T6) ", " X(T6) "\n"                                                                    \
  MX_MAC("0", T0, T1) MX_MAC("8", T1, T2) MX_MAC("16", T2, T3) MX_MAC("24", T3, T4)                \
  MX_MAC("32", T4, T5)                                                                             \
  "mulxq 40(" RA "), " LO ", " X(T6) "\n"                                                          \
  "adoxq " LO ", " X(T5) "\n"                                                                      \
  "movl $0, " LO32 "\n"                                                                            \
  "adcxq " LO ", " X(T6) "\n"                                                                      \
  "adoxq " LO ", " X(T6) "\n"

/* One product of a reduction step: X += lo(p_j * m) on CF, Y += hi on OF. */
#define MX_RED(OFF, XR, YR)                                                                        \
  "mulxq " OFF "(" RP "), " LO ", " HI "\n"                                                        \
  "adcxq " LO ", " X(XR) "\n"                                                                      \
  "adoxq " HI ", " X(YR) "\n"

/* Reduction step: m = T0 * n0 mod 2^64; T0..TN += m*p makes T0 zero, so the
 * value is T1..TN (the division by 2^64), and T0's zero takes CF's last
 * carry into TN; OF's ends in TN with nothing out (the bound above). */
#define MX_REDC_4(T0, T1, T2, T3, T4)                                                              \
  "movq " X(T0) ", %rdx\n"                                                                         \
  "imulq " N0 ", %rdx\n"                                                                           \
  "xorl " LO32 ", " LO32 "\n"                                                                      \
  MX_RED("0", T0, T1) MX_RED("8", T1, T2) MX_RED("16", T2, T3) MX_RED("24", T3, T4)                \
  "adcxq " X(T0) ", " X(T4) "\n"

#define MX_REDC_6(T0, T1, T2, T3, T4, T5, T6)                                                      \
  "movq " X(T0) ", %rdx\n"                                                                         \
  "imulq " N0 ", %rdx\n"                                                                           \
  "xorl " LO32 ", " LO32 "\n"                                                                      \
  MX_RED("0", T0, T1) MX_RED("8", T1, T2) MX_RED("16", T2, T3) MX_RED("24", T3, T4)                \
  MX_RED("32", T4, T5) MX_RED("40", T5, T6)                                                        \
  "adcxq " X(T0) ", " X(T6) "\n"

/* r = V - p if V >= p, else V (V < 2p): subtract into the copies S, then
 * store V or S by the borrow. */
#define MX_SUBP(OP, OFF, V, S)                                                                     \
  "movq " X(V) ", " X(S) "\n" OP " " OFF "(" RP "), " X(S) "\n"
#define MX_PICK(OFF, V, S)                                                                         \
  "cmovncq " X(S) ", " X(V) "\n"                                                                   \
  "movq " X(V) ", " OFF "(" RR ")\n"
#define MX_CSUB_STORE_4(V0, V1, V2, V3, S0, S1, S2, S3)                                            \
  MX_SUBP("subq", "0", V0, S0) MX_SUBP("sbbq", "8", V1, S1) MX_SUBP("sbbq", "16", V2, S2)          \
  MX_SUBP("sbbq", "24", V3, S3)                                                                    \
  MX_PICK("0", V0, S0) MX_PICK("8", V1, S1) MX_PICK("16", V2, S2) MX_PICK("24", V3, S3)
#define MX_CSUB_STORE_6(V0, V1, V2, V3, V4, V5, S0, S1, S2, S3, S4, S5)                            \
  MX_SUBP("subq", "0", V0, S0) MX_SUBP("sbbq", "8", V1, S1) MX_SUBP("sbbq", "16", V2, S2)          \
  MX_SUBP("sbbq", "24", V3, S3) MX_SUBP("sbbq", "32", V4, S4) MX_SUBP("sbbq", "40", V5, S5)        \
  MX_PICK("0", V0, S0) MX_PICK("8", V1, S1) MX_PICK("16", V2, S2) MX_PICK("24", V3, S3)            \
  MX_PICK("32", V4, S4) MX_PICK("40", V5, S5)

/* void mont256_mul_x86(limb_t r[4], const limb_t a[4], const limb_t b[4],
 *                      const limb_t p[4], limb_t n0)
 * r = a*b / 2^256 mod p.  32 mulx + 4 imul.
 * Accumulators t0..t4 = rbx r10 r11 r12 r13. */
__asm__(".pushsection .text\n" MX_BEGIN(mont256_mul_x86) MX_SAVE4
        "movq %rdx, " RB "\n"
        MX_ROW0_4(rbx, r10, r11, r12, r13)
        MX_REDC_4(rbx, r10, r11, r12, r13)
        MX_ROW_4("8", r10, r11, r12, r13, rbx)
        MX_REDC_4(r10, r11, r12, r13, rbx)
        MX_ROW_4("16", r11, r12, r13, rbx, r10)
        MX_REDC_4(r11, r12, r13, rbx, r10)
        MX_ROW_4("24", r12, r13, rbx, r10, r11)
        MX_REDC_4(r12, r13, rbx, r10, r11)
        /* value r13 rbx r10 r11 < 2p; r12 = 0 */
        MX_CSUB_STORE_4(r13, rbx, r10, r11, rax, rbp, rdx, r12)
        MX_RESTORE4 MX_END(mont256_mul_x86) ".popsection\n");

/* void mont384_mul_x86(limb_t r[6], const limb_t a[6], const limb_t b[6],
 *                      const limb_t p[6], limb_t n0)
 * r = a*b / 2^384 mod p.  72 mulx + 6 imul.
 * Accumulators t0..t6 = rbx r10 r11 r12 r13 r14 r15. */
__asm__(".pushsection .text\n" MX_BEGIN(mont384_mul_x86) MX_SAVE
        "movq %rdx, " RB "\n"
        MX_ROW0_6(rbx, r10, r11, r12, r13, r14, r15)
        MX_REDC_6(rbx, r10, r11, r12, r13, r14, r15)
        MX_ROW_6("8", r10, r11, r12, r13, r14, r15, rbx)
        MX_REDC_6(r10, r11, r12, r13, r14, r15, rbx)
        MX_ROW_6("16", r11, r12, r13, r14, r15, rbx, r10)
        MX_REDC_6(r11, r12, r13, r14, r15, rbx, r10)
        MX_ROW_6("24", r12, r13, r14, r15, rbx, r10, r11)
        MX_REDC_6(r12, r13, r14, r15, rbx, r10, r11)
        MX_ROW_6("32", r13, r14, r15, rbx, r10, r11, r12)
        MX_REDC_6(r13, r14, r15, rbx, r10, r11, r12)
        MX_ROW_6("40", r14, r15, rbx, r10, r11, r12, r13)
        MX_REDC_6(r14, r15, rbx, r10, r11, r12, r13)
        /* value r15 rbx r10 r11 r12 r13 < 2p; r14 = 0 */
        MX_CSUB_STORE_6(r15, rbx, r10, r11, r12, r13, rax, rbp, rdx, r14, r9, rsi)
        MX_RESTORE MX_END(mont384_mul_x86) ".popsection\n");

/* ---- squaring: CIOS over a doubled operand ----
 *
 * With X = 2^64,  a^2 = sum_i a_i X^(2i) v_i,  v_i = a_i + 2 floor(a / X^(i+1)) X.
 * Row i adds a_i v_i at window limb i (absolute X^(2i); i reductions have
 * shifted the window by X^i): a_i^2 at limbs i, i+1 and a_i times twice a's
 * limbs above i at limbs i+1..N.  N - i products instead of N; rows end at
 * the top limb as in mul, and one reduction step follows each.
 *
 * Twice a's limbs above i: with d = 2a (< 2p: N limbs), d_j = (a_j << 1) |
 * (a_{j-1} >> 63), so 2 floor(a / X^(i+1)) has the limbs e_{i+1} = a_{i+1}
 * << 1 (d's without the bit carried in), then d_{i+2}, d_{i+3}, ...  Both
 * sit in a scratch area in the red zone, addressed from rsp (SQ).
 *
 * Bounds: a row adds a_i v_i X^i < 2^64 * 2a (twice mul's a * b_i), so a
 * reduced value can reach (2^65 a + 2^64 p) / 2^64 < 3p < 2^383, so N+1
 * registers hold every row as in mul, and the result is < 2p as there.
 * (With 4 limbs 3p can exceed 2^256 - BLS12-381 r - which needs a sixth
 * register; that version measured no faster than the 4-limb mul.) */

/* d_j at SQ6 + 8j (j = 2..5), e_j at SQ6 + 48 + 8j (j = 1..5); SQ6 + 16 ..
 * SQ6 + 95 lies in the 128-byte red zone. */
#define SQ6(off) "-96+" #off "(%rsp)"

/* e_j and d_j from a_j (and CF = the bit carried out of d_{j-1}). */
#define MX_DBL(SQ, OFF_A, OFF_E, OFF_D)                                                            \
  "movq " #OFF_A "(" RA "), " LO "\n"                                                              \
  "leaq (" LO "," LO "), " HI "\n"                                                                 \
  "movq " HI ", " SQ(OFF_E) "\n"                                                                   \
  "adcq " LO ", " LO "\n"                                                                          \
  "movq " LO ", " SQ(OFF_D) "\n"

/* Row i >= 1 begins: rdx = a_i, TOP cleared with the flags, a_i^2 into
 * limbs i, i+1. */
#define MX_SQ_START(OFF, XR, YR, TOP)                                                              \
  "movq " OFF "(" RA "), %rdx\n"                                                                   \
  "xorq " X(TOP) ", " X(TOP) "\n"                                                                  \
  "mulxq %rdx, " LO ", " HI "\n"                                                                   \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "adcxq " HI ", " X(YR) "\n"
/* A cross product a_i * (d_j or e_j, at scratch address S). */
#define MX_SMAC(S, XR, YR)                                                                         \
  "mulxq " S ", " LO ", " HI "\n"                                                                  \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "adcxq " HI ", " X(YR) "\n"
/* The last cross product of a 6-limb row: its high half straight into the
 * top T6, which then takes both chains' carries. */
#define MX_SLAST6(S, T5, T6)                                                                       \
  "mulxq " S ", " LO ", " X(T6) "\n"                                                               \
  "adoxq " LO ", " X(T5) "\n"                                                                      \
  "movl $0, " LO32 "\n"                                                                            \
  "adcxq " LO ", " X(T6) "\n"                                                                      \
  "adoxq " LO ", " X(T6) "\n"

#define MX_SROW0_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  "movq 0(" RA "), %rdx\n"                                                                         \
  "mulxq %rdx, " X(T0) ", " X(T1) "\n"                                                             \
  "mulxq " SQ6(56) ", " LO ", " X(T2) "\n"                                                         \
  "addq " LO ", " X(T1) "\n"                                                                       \
  "mulxq " SQ6(16) ", " LO ", " X(T3) "\n"                                                         \
  "adcq " LO ", " X(T2) "\n"                                                                       \
  "mulxq " SQ6(24) ", " LO ", " X(T4) "\n"                                                         \
  "adcq " LO ", " X(T3) "\n"                                                                       \
  "mulxq " SQ6(32) ", " LO ", " X(T5) "\n"                                                         \
  "adcq " LO ", " X(T4) "\n"                                                                       \
  "mulxq " SQ6(40) ", " LO ", " X(T6) "\n"                                                         \
  "adcq " LO ", " X(T5) "\n"                                                                       \
  "adcq $0, " X(T6) "\n"
#define MX_SROW1_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("8", T1, T2, T6) MX_SMAC(SQ6(64), T2, T3) MX_SMAC(SQ6(24), T3, T4)                   \
  MX_SMAC(SQ6(32), T4, T5) MX_SLAST6(SQ6(40), T5, T6)
#define MX_SROW2_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("16", T2, T3, T6) MX_SMAC(SQ6(72), T3, T4) MX_SMAC(SQ6(32), T4, T5)                  \
  MX_SLAST6(SQ6(40), T5, T6)
#define MX_SROW3_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("24", T3, T4, T6) MX_SMAC(SQ6(80), T4, T5) MX_SLAST6(SQ6(40), T5, T6)
#define MX_SROW4_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("32", T4, T5, T6) MX_SLAST6(SQ6(88), T5, T6)
/* Row 5: a_5^2 into T5 and the new top T6. */
#define MX_SROW5_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  "movq 40(" RA "), %rdx\n"                                                                        \
  "mulxq %rdx, " LO ", " X(T6) "\n"                                                                \
  "addq " LO ", " X(T5) "\n"                                                                       \
  "adcq $0, " X(T6) "\n"

/* void mont384_sqr_x86(limb_t r[6], const limb_t a[6], const limb_t p[6],
 *                      limb_t n0)
 * r = a^2 / 2^384 mod p.  21 + 36 mulx + 6 imul.
 * Accumulators t0..t6 = rbx r10 r11 r12 r13 r14 r15. */
__asm__(".pushsection .text\n" MX_BEGIN(mont384_sqr_x86) MX_SAVE
        "movq %rcx, " N0 "\n"
        "movq %rdx, " RP "\n"
        /* scratch: e_j = a_j << 1, d_j = limb j of 2a */
        "movq 0(" RA "), " LO "\n"
        "addq " LO ", " LO "\n"
        "movq 8(" RA "), " LO "\n"
        "leaq (" LO "," LO "), " HI "\n"
        "movq " HI ", " SQ6(56) "\n"
        "adcq " LO ", " LO "\n"
        MX_DBL(SQ6, 16, 64, 16) MX_DBL(SQ6, 24, 72, 24) MX_DBL(SQ6, 32, 80, 32)
        MX_DBL(SQ6, 40, 88, 40)
        MX_SROW0_6(rbx, r10, r11, r12, r13, r14, r15)
        MX_REDC_6(rbx, r10, r11, r12, r13, r14, r15)
        MX_SROW1_6(r10, r11, r12, r13, r14, r15, rbx)
        MX_REDC_6(r10, r11, r12, r13, r14, r15, rbx)
        MX_SROW2_6(r11, r12, r13, r14, r15, rbx, r10)
        MX_REDC_6(r11, r12, r13, r14, r15, rbx, r10)
        MX_SROW3_6(r12, r13, r14, r15, rbx, r10, r11)
        MX_REDC_6(r12, r13, r14, r15, rbx, r10, r11)
        MX_SROW4_6(r13, r14, r15, rbx, r10, r11, r12)
        MX_REDC_6(r13, r14, r15, rbx, r10, r11, r12)
        MX_SROW5_6(r14, r15, rbx, r10, r11, r12, r13)
        MX_REDC_6(r14, r15, rbx, r10, r11, r12, r13)
        /* value r15 rbx r10 r11 r12 r13 < 2p; r14 = 0 */
        MX_CSUB_STORE_6(r15, rbx, r10, r11, r12, r13, rax, rbp, rdx, r14, r9, rsi)
        MX_RESTORE MX_END(mont384_sqr_x86) ".popsection\n");

#else
typedef int mont_x86_unused; /* an empty translation unit is not C */
#endif
