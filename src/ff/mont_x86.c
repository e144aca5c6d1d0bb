/* Montgomery multiplication and squaring for x86-64 with BMI2 and ADX
 * (mulx, adcx, adox): mont256_mul_x86, mont384_mul_x86 and mont384_sqr_x86,
 * declared in ff/mont_x86.h and bound to mont*_mul/sqr by ff/mont.h (the
 * 4-limb squaring is the 4-limb multiplication; mont_x86.h says why); and
 * lazy reduction for 6 limbs: mont384_mul_wide_x86 (768-bit product),
 * mont384_redc_x86 (its reduction) and mont384_fp2_mul_x86 (the Fp2
 * product from three of the one and two of the other; bounds in its
 * section).  The portable C in ff/mont_tmpl.h is their reference
 * (tests/unit/test_mont.c compares them on four moduli, tests/unit/
 * test_fp2.c the lazy ones on BLS12-381 p).
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
 * 80 bytes of scratch in the red zone below rsp (a leaf function), the Fp2
 * product 432 bytes in a frame of its own.
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
 * Where mulx issues every 2 cycles (Zen 1) the multiplier bounds the
 * 6-limb mul at 150 cycles and the squaring at 120; the 4-limb mul is
 * further stretched by the latency of its reduction chain.  The CIOS rows
 * give each reduction step products to overlap, so what a dependent chain
 * (a <- a*b) adds to the bound is the ends of the routine: the final
 * subtraction and the stores before the next row 0, which rescheduling
 * within the body cannot reach.  A one-level Karatsuba product (27 mulx
 * instead of 36) is not used: its extra additions, loads and stores cost
 * more than the 9 mulx saved.  Figures: bench/RESULTS.md ("CPU field
 * arithmetic", and the moved-comment section for this file). */
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

/* Operand addresses.  The row macros take each operand as an address macro
 * (a byte offset in, an operand string out), so that one body reads its
 * operands from the argument pointers or from scratch on the stack. */
#define AT_A(off) #off "(" RA ")"
#define AT_B(off) #off "(" RB ")"
#define AT_R(off) #off "(" RR ")"

/* Row 0: T0..TN = a * b_0 (one carry chain, nothing to add to). */
#define MX_ROW0_4(A, B, T0, T1, T2, T3, T4)                                                        \
  "movq " B(0) ", %rdx\n"                                                                          \
  "mulxq " A(0) ", " X(T0) ", " X(T1) "\n"                                                         \
  "mulxq " A(8) ", " LO ", " X(T2) "\n"                                                            \
  "addq " LO ", " X(T1) "\n"                                                                       \
  "mulxq " A(16) ", " LO ", " X(T3) "\n"                                                           \
  "adcq " LO ", " X(T2) "\n"                                                                       \
  "mulxq " A(24) ", " LO ", " X(T4) "\n"                                                           \
  "adcq " LO ", " X(T3) "\n"                                                                       \
  "adcq $0, " X(T4) "\n"

#define MX_ROW0_6(A, B, T0, T1, T2, T3, T4, T5, T6)                                                \
  "movq " B(0) ", %rdx\n"                                                                          \
  "mulxq " A(0) ", " X(T0) ", " X(T1) "\n"                                                         \
  "mulxq " A(8) ", " LO ", " X(T2) "\n"                                                            \
  "addq " LO ", " X(T1) "\n"                                                                       \
  "mulxq " A(16) ", " LO ", " X(T3) "\n"                                                           \
  "adcq " LO ", " X(T2) "\n"                                                                       \
  "mulxq " A(24) ", " LO ", " X(T4) "\n"                                                           \
  "adcq " LO ", " X(T3) "\n"                                                                       \
  "mulxq " A(32) ", " LO ", " X(T5) "\n"                                                           \
  "adcq " LO ", " X(T4) "\n"                                                                       \
  "mulxq " A(40) ", " LO ", " X(T6) "\n"                                                           \
  "adcq " LO ", " X(T5) "\n"                                                                       \
  "adcq $0, " X(T6) "\n"

/* One product of a row: X += lo(rdx * the limb at address S) on OF, Y (the
 * next limb) += hi on CF. */
#define MX_MAC(S, XR, YR)                                                                          \
  "mulxq " S ", " LO ", " HI "\n"                                                                  \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "adcxq " HI ", " X(YR) "\n"
/* The last product of a row: its high half straight into the top TN (free
 * on entry), which then takes both chains' carries through lo, zeroed by mov
 * (mov keeps the flags). */
#define MX_LAST(S, XR, TN)                                                                         \
  "mulxq " S ", " LO ", " X(TN) "\n"                                                               \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "movl $0, " LO32 "\n"                                                                            \
  "adcxq " LO ", " X(TN) "\n"                                                                      \
  "adoxq " LO ", " X(TN) "\n"

/* Row i >= 1 (OFF = 8i): T0..T(N-1) += a * b_i, TN = the new top, cleared
 * with the flags. */
#define MX_ROW_4(A, B, OFF, T0, T1, T2, T3, T4)                                                    \
  "movq " B(OFF) ", %rdx\n"                                                                        \
  "xorq " X(T4) ", " X(T4) "\n"                                                                    \
  MX_MAC(A(0), T0, T1) MX_MAC(A(8), T1, T2) MX_MAC(A(16), T2, T3) MX_LAST(A(24), T3, T4)

#define MX_ROW_6(A, B, OFF, T0, T1, T2, T3, T4, T5, T6)                                            \
  "movq " B(OFF) ", %rdx\n"                                                                        \
  "xorq " X(T6) ", " X(T6) "\n"                                                                    \
  MX_MAC(A(0), T0, T1) MX_MAC(A(8), T1, T2) MX_MAC(A(16), T2, T3) MX_MAC(A(24), T3, T4)            \
  MX_MAC(A(32), T4, T5) MX_LAST(A(40), T5, T6)

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

/* DST(0..) = V - p if V >= p, else V (V < 2p): subtract into the copies S,
 * then store V or S by the borrow. */
#define MX_SUBP(OP, OFF, V, S)                                                                     \
  "movq " X(V) ", " X(S) "\n" OP " " OFF "(" RP "), " X(S) "\n"
#define MX_PICK(D, V, S)                                                                           \
  "cmovncq " X(S) ", " X(V) "\n"                                                                   \
  "movq " X(V) ", " D "\n"
#define MX_CSUB_STORE_4(DST, V0, V1, V2, V3, S0, S1, S2, S3)                                       \
  MX_SUBP("subq", "0", V0, S0) MX_SUBP("sbbq", "8", V1, S1) MX_SUBP("sbbq", "16", V2, S2)          \
  MX_SUBP("sbbq", "24", V3, S3)                                                                    \
  MX_PICK(DST(0), V0, S0) MX_PICK(DST(8), V1, S1) MX_PICK(DST(16), V2, S2)                         \
  MX_PICK(DST(24), V3, S3)
#define MX_CSUB_STORE_6(DST, V0, V1, V2, V3, V4, V5, S0, S1, S2, S3, S4, S5)                       \
  MX_SUBP("subq", "0", V0, S0) MX_SUBP("sbbq", "8", V1, S1) MX_SUBP("sbbq", "16", V2, S2)          \
  MX_SUBP("sbbq", "24", V3, S3) MX_SUBP("sbbq", "32", V4, S4) MX_SUBP("sbbq", "40", V5, S5)        \
  MX_PICK(DST(0), V0, S0) MX_PICK(DST(8), V1, S1) MX_PICK(DST(16), V2, S2)                         \
  MX_PICK(DST(24), V3, S3) MX_PICK(DST(32), V4, S4) MX_PICK(DST(40), V5, S5)

/* The whole 6-limb CIOS multiplication, DST(0..40) = A * B / 2^384 mod p.
 * Accumulators t0..t6 = rbx r10 r11 r12 r13 r14 r15; clobbers rax, rbp,
 * rdx, r9 and rsi (the last two only in the final subtraction, after the
 * operands' last reads). */
#define MX_MONT_6(A, B, DST)                                                                       \
  MX_ROW0_6(A, B, rbx, r10, r11, r12, r13, r14, r15)                                               \
  MX_REDC_6(rbx, r10, r11, r12, r13, r14, r15)                                                     \
  MX_ROW_6(A, B, 8, r10, r11, r12, r13, r14, r15, rbx)                                             \
  MX_REDC_6(r10, r11, r12, r13, r14, r15, rbx)                                                     \
  MX_ROW_6(A, B, 16, r11, r12, r13, r14, r15, rbx, r10)                                            \
  MX_REDC_6(r11, r12, r13, r14, r15, rbx, r10)                                                     \
  MX_ROW_6(A, B, 24, r12, r13, r14, r15, rbx, r10, r11)                                            \
  MX_REDC_6(r12, r13, r14, r15, rbx, r10, r11)                                                     \
  MX_ROW_6(A, B, 32, r13, r14, r15, rbx, r10, r11, r12)                                            \
  MX_REDC_6(r13, r14, r15, rbx, r10, r11, r12)                                                     \
  MX_ROW_6(A, B, 40, r14, r15, rbx, r10, r11, r12, r13)                                            \
  MX_REDC_6(r14, r15, rbx, r10, r11, r12, r13)                                                     \
  /* value r15 rbx r10 r11 r12 r13 < 2p; r14 = 0 */                                               \
  MX_CSUB_STORE_6(DST, r15, rbx, r10, r11, r12, r13, rax, rbp, rdx, r14, r9, rsi)

/* void mont256_mul_x86(limb_t r[4], const limb_t a[4], const limb_t b[4],
 *                      const limb_t p[4], limb_t n0)
 * r = a*b / 2^256 mod p.  32 mulx + 4 imul.
 * Accumulators t0..t4 = rbx r10 r11 r12 r13. */
__asm__(".pushsection .text\n" MX_BEGIN(mont256_mul_x86) MX_SAVE4
        "movq %rdx, " RB "\n"
        MX_ROW0_4(AT_A, AT_B, rbx, r10, r11, r12, r13)
        MX_REDC_4(rbx, r10, r11, r12, r13)
        MX_ROW_4(AT_A, AT_B, 8, r10, r11, r12, r13, rbx)
        MX_REDC_4(r10, r11, r12, r13, rbx)
        MX_ROW_4(AT_A, AT_B, 16, r11, r12, r13, rbx, r10)
        MX_REDC_4(r11, r12, r13, rbx, r10)
        MX_ROW_4(AT_A, AT_B, 24, r12, r13, rbx, r10, r11)
        MX_REDC_4(r12, r13, rbx, r10, r11)
        /* value r13 rbx r10 r11 < 2p; r12 = 0 */
        MX_CSUB_STORE_4(AT_R, r13, rbx, r10, r11, rax, rbp, rdx, r12)
        MX_RESTORE4 MX_END(mont256_mul_x86) ".popsection\n");

/* void mont384_mul_x86(limb_t r[6], const limb_t a[6], const limb_t b[6],
 *                      const limb_t p[6], limb_t n0)
 * r = a*b / 2^384 mod p.  72 mulx + 6 imul. */
__asm__(".pushsection .text\n" MX_BEGIN(mont384_mul_x86) MX_SAVE
        "movq %rdx, " RB "\n"
        MX_MONT_6(AT_A, AT_B, AT_R)
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
 * register; the 4-limb squaring is the multiplication, as mont_x86.h
 * says.) */

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
  MX_SQ_START("8", T1, T2, T6) MX_MAC(SQ6(64), T2, T3) MX_MAC(SQ6(24), T3, T4)                   \
  MX_MAC(SQ6(32), T4, T5) MX_LAST(SQ6(40), T5, T6)
#define MX_SROW2_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("16", T2, T3, T6) MX_MAC(SQ6(72), T3, T4) MX_MAC(SQ6(32), T4, T5)                  \
  MX_LAST(SQ6(40), T5, T6)
#define MX_SROW3_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("24", T3, T4, T6) MX_MAC(SQ6(80), T4, T5) MX_LAST(SQ6(40), T5, T6)
#define MX_SROW4_6(T0, T1, T2, T3, T4, T5, T6)                                                     \
  MX_SQ_START("32", T4, T5, T6) MX_LAST(SQ6(88), T5, T6)
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
        MX_CSUB_STORE_6(AT_R, r15, rbx, r10, r11, r12, r13, rax, rbp, rdx, r14, r9, rsi)
        MX_RESTORE MX_END(mont384_sqr_x86) ".popsection\n");

/* ---- lazy reduction: the 768-bit product, its reduction, Fp2 ----
 *
 * Bounds, with R = 2^384, p < 2^381 and elements < p:
 *   product:   a*b < p^2 < 2^762 for a, b < p; (a0+a1)(b0+b1) < 4p^2 < 2^764
 *              (sums of two elements are < 2p < 2^382: six limbs, no carry
 *              out, and no reduction needed before multiplying).
 *   reduction: t < pR gives (t + M p) / R < 2p, M < R: one conditional
 *              subtraction.  It reduces the low half only:
 *                (t + M p) / R = (t_lo + M p) / R + t_hi,  t = t_lo + t_hi R,
 *              since the M's low-limb choices see only t_lo; the running
 *              value (t_lo + ...)/2^(64k) stays below R/2^64 + p < R (six
 *              limbs between steps, a seventh during one, as in the CIOS
 *              steps), and t_hi < p is added at the end.
 *   Fp2 mul:   c0 = redc(a0b0 - a1b1): in (-p^2, p^2); when negative, p R
 *              is added (pR - p^2 > 0), so 0 <= t < pR either way.  The
 *              12-limb difference wraps mod 2^768 and the addition touches
 *              t_hi only, so it is made at the end: u + t_hi + p, mod 2^384
 *              (the true sum is < 2p).
 *              c1 = redc((a0+a1)(b0+b1) - a0b0 - a1b1) = redc(a0b1 + a1b0):
 *              0 <= t < 2p^2 < pR (2p < R) with nothing added.
 *
 * Cost: 3 wide products (108 mulx) and 2 reductions (72 mulx, 12 imul),
 * against 216 mulx and 18 imul for 3M and 5 add/sub over the routines
 * above, each of those eight with a conditional correction of its own.  A reduction is a chain (each step's m waits on the
 * limb the step before made), and interleaving the two reductions step by
 * step, or an Fp2 squaring as one routine over unreduced sums, measured no
 * faster (bench/RESULTS.md, the moved-comment section for this file). */

#define MX_ST(D, R) "movq " X(R) ", " D "\n"

/* The 6x6-limb product D(0..88) = A * B, 36 mulx: the CIOS rows with no
 * reduction between them; after row i limb i is final and stored, and its
 * register becomes the next row's top. */
#define MX_WIDE_6(A, B, D)                                                                         \
  MX_ROW0_6(A, B, rbx, r10, r11, r12, r13, r14, r15) MX_ST(D(0), rbx)                              \
  MX_ROW_6(A, B, 8, r10, r11, r12, r13, r14, r15, rbx) MX_ST(D(8), r10)                            \
  MX_ROW_6(A, B, 16, r11, r12, r13, r14, r15, rbx, r10) MX_ST(D(16), r11)                          \
  MX_ROW_6(A, B, 24, r12, r13, r14, r15, rbx, r10, r11) MX_ST(D(24), r12)                          \
  MX_ROW_6(A, B, 32, r13, r14, r15, rbx, r10, r11, r12) MX_ST(D(32), r13)                          \
  MX_ROW_6(A, B, 40, r14, r15, rbx, r10, r11, r12, r13) MX_ST(D(40), r14)                          \
  MX_ST(D(48), r15) MX_ST(D(56), rbx) MX_ST(D(64), r10) MX_ST(D(72), r11) MX_ST(D(80), r12)        \
  MX_ST(D(88), r13)

/* Six reduction steps on the low half t_lo in rbx r10 r11 r12 r13 r14 (36
 * mulx + 6 imul): leaves u = (t_lo + M p) / R in r15 rbx r10 r11 r12 r13
 * and r14 = 0.  Each step's top starts at zero: r15 first, then the
 * register the step before zeroed. */
#define MX_REDC_LO_6                                                                               \
  "xorl %r15d, %r15d\n"                                                                            \
  MX_REDC_6(rbx, r10, r11, r12, r13, r14, r15)                                                     \
  MX_REDC_6(r10, r11, r12, r13, r14, r15, rbx)                                                     \
  MX_REDC_6(r11, r12, r13, r14, r15, rbx, r10)                                                     \
  MX_REDC_6(r12, r13, r14, r15, rbx, r10, r11)                                                     \
  MX_REDC_6(r13, r14, r15, rbx, r10, r11, r12)                                                     \
  MX_REDC_6(r14, r15, rbx, r10, r11, r12, r13)

/* u += t_hi at H(0..40): the sum is < 2p, no carry out. */
#define MX_ADD_HI_6(H)                                                                             \
  "addq " H(0) ", %r15\n"                                                                          \
  "adcq " H(8) ", %rbx\n"                                                                          \
  "adcq " H(16) ", %r10\n"                                                                         \
  "adcq " H(24) ", %r11\n"                                                                         \
  "adcq " H(32) ", %r12\n"                                                                         \
  "adcq " H(40) ", %r13\n"

/* u += t_hi at H(0..40) plus p where rsi (all ones or zero) says so, mod
 * 2^384.  "test" sets ZF = (rsi == 0) and clears CF and OF; adcx adds H on
 * CF, adox adds p_j or zero (cmovz: rsi itself) on OF, and neither touches
 * ZF.  Both chains' last carries are dropped: the true sum is < 2p. */
#define MX_ADDHP(H, OFF, V)                                                                        \
  "adcxq " H(OFF) ", " X(V) "\n"                                                                   \
  "movq " #OFF "(" RP "), %r9\n"                                                                   \
  "cmovzq %rsi, %r9\n"                                                                             \
  "adoxq %r9, " X(V) "\n"
#define MX_ADD_HI_P_6(H)                                                                           \
  "testq %rsi, %rsi\n"                                                                             \
  MX_ADDHP(H, 0, r15) MX_ADDHP(H, 8, rbx) MX_ADDHP(H, 16, r10) MX_ADDHP(H, 24, r11)                \
  MX_ADDHP(H, 32, r12) MX_ADDHP(H, 40, r13)

/* The final subtraction of a reduction, into DST(0..40). */
#define MX_REDC_STORE_6(DST)                                                                       \
  MX_CSUB_STORE_6(DST, r15, rbx, r10, r11, r12, r13, rax, rbp, rdx, r14, r9, rsi)

/* The twelve registers of a 768-bit value in the Fp2 passes, limb 0 first:
 * limbs 0..5 where MX_REDC_LO_6 wants them, 6..11 in the rest. */
#define MX_L12(OP, S)                                                                              \
  OP(S, 0, rbx) OP(S, 8, r10) OP(S, 16, r11) OP(S, 24, r12) OP(S, 32, r13) OP(S, 40, r14)          \
  OP(S, 48, r15) OP(S, 56, rax) OP(S, 64, rbp) OP(S, 72, rdx) OP(S, 80, rsi) OP(S, 88, r9)
#define MX_LD(S, OFF, R) "movq " S(OFF) ", " X(R) "\n"
#define MX_SBB(S, OFF, R) "sbbq " S(OFF) ", " X(R) "\n"
/* The twelve registers -= S(0..88): a clear CF first ("sub" would need the
 * first limb apart). */
#define MX_SUB12(S) "clc\n" MX_L12(MX_SBB, S)
/* Limbs 6..11 to H(0..40). */
#define MX_ST_HI12(H)                                                                              \
  MX_ST(H(0), r15) MX_ST(H(8), rax) MX_ST(H(16), rbp) MX_ST(H(24), rdx) MX_ST(H(32), rsi)          \
  MX_ST(H(40), r9)

/* D(0..40) = X1 + Y1, two elements, 6 limbs: < 2p < 2^382, no carry out. */
#define MX_SUM6(X1, Y1, D)                                                                         \
  "movq " X1(0) ", %rbx\n"                                                                         \
  "addq " Y1(0) ", %rbx\n"                                                                         \
  "movq " X1(8) ", %r10\n"                                                                         \
  "adcq " Y1(8) ", %r10\n"                                                                         \
  "movq " X1(16) ", %r11\n"                                                                        \
  "adcq " Y1(16) ", %r11\n"                                                                        \
  "movq " X1(24) ", %r12\n"                                                                        \
  "adcq " Y1(24) ", %r12\n"                                                                        \
  "movq " X1(32) ", %r13\n"                                                                        \
  "adcq " Y1(32) ", %r13\n"                                                                        \
  "movq " X1(40) ", %r14\n"                                                                        \
  "adcq " Y1(40) ", %r14\n"                                                                        \
  MX_ST(D(0), rbx) MX_ST(D(8), r10) MX_ST(D(16), r11) MX_ST(D(24), r12) MX_ST(D(32), r13)          \
  MX_ST(D(40), r14)

#define MX_FRAME(n)                                                                                \
  "subq $" #n ", %rsp\n"                                                                           \
  ".cfi_adjust_cfa_offset " #n "\n"
#define MX_UNFRAME(n)                                                                              \
  "addq $" #n ", %rsp\n"                                                                           \
  ".cfi_adjust_cfa_offset -" #n "\n"

/* void mont384_mul_wide_x86(limb_t r[12], const limb_t a[6], const limb_t b[6])
 * r = a*b (768 bits), 36 mulx.  r must not overlap a or b. */
__asm__(".pushsection .text\n" MX_BEGIN(mont384_mul_wide_x86) MX_SAVE
        "movq %rdx, " RB "\n"
        MX_WIDE_6(AT_A, AT_B, AT_R)
        MX_RESTORE MX_END(mont384_mul_wide_x86) ".popsection\n");

/* void mont384_redc_x86(limb_t r[6], const limb_t t[12], const limb_t p[6], limb_t n0)
 * r = t / 2^384 mod p for t < p 2^384.  36 mulx + 6 imul. */
#define AT_THI(off) "48+" #off "(" RA ")"
__asm__(".pushsection .text\n" MX_BEGIN(mont384_redc_x86) MX_SAVE
        "movq %rcx, " N0 "\n"
        "movq %rdx, " RP "\n"
        MX_LD(AT_A, 0, rbx) MX_LD(AT_A, 8, r10) MX_LD(AT_A, 16, r11) MX_LD(AT_A, 24, r12)
        MX_LD(AT_A, 32, r13) MX_LD(AT_A, 40, r14)
        MX_REDC_LO_6
        MX_ADD_HI_6(AT_THI)
        MX_REDC_STORE_6(AT_R)
        MX_RESTORE MX_END(mont384_redc_x86) ".popsection\n");

/* void mont384_fp2_mul_x86(limb_t r[12], const limb_t a[12], const limb_t b[12],
 *                          const limb_t p[6], limb_t n0)
 * (a0 + a1 u)(b0 + b1 u), u^2 = -1, x0 in x[0..5] and x1 in x[6..11]:
 *   t0 = a0 b0, t1 = a1 b1, t2 = (a0 + a1)(b0 + b1)     3 x 36 mulx
 *   c0 = redc(t0 - t1 [+ p R]), c1 = redc(t2 - t0 - t1)  2 x (36 mulx + 6 imul)
 * 180 mulx + 12 imul against 3M's 216 + 18.  r may alias a or b: it is
 * written after the last reads of a and b (t0 and t1).
 * Stack: sa = a0+a1 at 0, sb = b0+b1 at 48, t0 at 96, t1 at 192, t2 at
 * 288 (12 limbs each), c0's high half at 384. */
#define AT_A1(off) "48+" #off "(" RA ")"
#define AT_B1(off) "48+" #off "(" RB ")"
#define AT_R1(off) "48+" #off "(" RR ")"
#define AT_SA(off) #off "(%rsp)"
#define AT_SB(off) "48+" #off "(%rsp)"
#define AT_T0(off) "96+" #off "(%rsp)"
#define AT_T1(off) "192+" #off "(%rsp)"
#define AT_T2(off) "288+" #off "(%rsp)"
#define AT_T2HI(off) "336+" #off "(%rsp)"
#define AT_C0HI(off) "384+" #off "(%rsp)"
__asm__(".pushsection .text\n" MX_BEGIN(mont384_fp2_mul_x86) MX_SAVE MX_FRAME(432)
        "movq %rdx, " RB "\n"
        MX_SUM6(AT_A, AT_A1, AT_SA)
        MX_SUM6(AT_B, AT_B1, AT_SB)
        MX_WIDE_6(AT_A, AT_B, AT_T0)
        MX_WIDE_6(AT_A1, AT_B1, AT_T1)
        /* c0: t0 - t1 in the twelve registers, rsi = -borrow (p R to add) */
        MX_L12(MX_LD, AT_T0)
        MX_SUB12(AT_T1)
        MX_ST_HI12(AT_C0HI)
        "sbbq %rsi, %rsi\n"
        MX_REDC_LO_6
        MX_ADD_HI_P_6(AT_C0HI)
        MX_REDC_STORE_6(AT_R)
        /* c1: t2 - t0 - t1 */
        MX_WIDE_6(AT_SA, AT_SB, AT_T2)
        MX_L12(MX_LD, AT_T2)
        MX_SUB12(AT_T0)
        MX_SUB12(AT_T1)
        MX_ST_HI12(AT_T2HI)
        MX_REDC_LO_6
        MX_ADD_HI_6(AT_T2HI)
        MX_REDC_STORE_6(AT_R1)
        MX_UNFRAME(432) MX_RESTORE MX_END(mont384_fp2_mul_x86) ".popsection\n");

#else
typedef int mont_x86_unused; /* an empty translation unit is not C */
#endif
