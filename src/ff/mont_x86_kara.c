/* mont384_mul_kara_x86 (ff/mont_x86_kara.h): the 6-limb Montgomery
 * multiplication with a one-level Karatsuba product, then the word-by-word
 * reduction of mont_x86.c's lazy path.  x86-64 with BMI2 and ADX, top-level
 * assembly as in mont_x86.c (whose DESIGN comment says why and gives the
 * register, carry-chain and ABI conventions followed here).
 *
 * DESIGN
 *
 * With X = 2^64, a = a1 X^3 + a0 and b = b1 X^3 + b0 (three limbs each):
 *   L = a0 b0,  H = a1 b1,  M = (a0 + a1)(b0 + b1)        3 x 9 mulx
 *   a b = L + (M - L - H) X^3 + H X^6
 * 27 mulx for the product instead of 36; the reduction is 36 mulx + 6 imul
 * as before, 63 + 6 in all against 72 + 6.
 *
 * The 193-bit sums.  sa = a0 + a1 = sa' + ca X^3 with sa' three limbs and
 * ca in {0, 1} (kept as a mask, 0 or all ones); likewise sb.  Then
 *   M = sa' sb' + X^3 (ca sb' + cb sa') + ca cb X^6,
 * but only M mod X^6 is needed: the middle term a0 b1 + a1 b0 is below
 * 2 X^3 2^191 = 2^384 (a1, b1 < 2^191 since a, b < p < 2^383; 2^382 for
 * BLS12-381), so Mid = (M - L - H) mod 2^384 is exact, the ca cb X^6 term
 * vanishes, and the corrections are two masked 3-limb additions into the
 * top half of sa' sb', their carries out dropped.
 *
 * Then T = L + Mid X^3 + H X^6 = a b < p^2 < p 2^384 (12 limbs, no carry
 * out), and the reduction is mont_x86.c's lazy one: six word-by-word
 * steps on T's low half in registers, T's high half added at the end, one
 * conditional subtraction (the sum is < 2p).
 *
 * Registers.  On entry rdi = r, rsi = a, rdx = b (moved to r9, rdx is
 * mulx's), rcx = p, r8 = n0.  A 160-byte frame holds sa' (0), sb' (24),
 * ca (48), cb (56), L (64) and H (112); H becomes T's high half in place.
 * L and H are made in rbx r10..r14 and stored; M reads its operands from
 * the frame, so the a and b pointers (rsi, r9) are free to hold its low
 * limbs: M in r9 rsi r15 rbx r10 r11, which leaves r12..r14 to receive
 * T's limbs 3..5 (L3..5 + Mid0..2) and rbx r10 r11 to reload L0..2:
 * T's low half lands in rbx r10..r14, where the reduction wants it.
 * r is written only by the final stores: r may alias a or b.
 *
 * Measured (bench/bench_mont_kara.c, BLS12-381 p, interleaved rounds,
 * min / median ns; cycles at the minimum):
 *                          indep (throughput)        dep (latency)
 *   Zen 1, 2.46-2.51 GHz   CIOS  65.1-65.8 / 66-68    65.8-66.2 / 67-69
 *                          kara  69.4-70.5 / 70-73    69.1-70.3 / 70-73
 *                          CIOS 162-164 cycles, kara 173-175: 0.92-0.94x
 *   GPU host Xeon, 3.0 GHz CIOS  33.7 / 35.4          39.2 / 40.8
 *                          kara  35.6 / 37.3          39.8 / 42.0  (0.95x)
 * Slower, so not bound by ff/mont.h.  Why: fewer mulx (63 against 72:
 * a 126-cycle multiplier bound against 150 on Zen 1), but the product is
 * finished before the reduction can start (its limbs 3..5 need all three
 * products), and six word-by-word steps with nothing to overlap run at
 * their chain's latency, ~15 cycles a step (mont_x86.c measured ~91-100
 * cycles for the reduction alone); the CIOS rows hide that latency under
 * the next row's products.  Products (~60) + combination (~15) +
 * reduction (~90) + final subtraction is the ~174 measured.  The function
 * is also longer: 360 instructions (161 with a memory operand) against 294
 * (91).
 * Tried and not kept (both correct, both slower):
 *   - reduction steps 0..2 run on L alone right after it (T's limbs 0..2
 *     are L's), so that H and M could overlap them, W' = (L + m p) / X^3
 *     spilled, then V = W' + Mid + H X^3 and steps 3..5: 183 cycles.
 *   - the same with M's rows placed between the steps in program order
 *     and everything that does not need M (C X^3 - L - H + H X^3, nine
 *     limbs) made beforehand, leaving V = W' + M' + Q: 182 cycles.
 *   The out-of-order core does not find that overlap on its own (a
 *   blocked reduction chain fills the schedulers), and the extra spills
 *   and nine-limb combinations cost more than the overlap gave.
 * A Karatsuba product could still pay inside the lazy Fp2 product
 * (mont384_fp2_mul_x86: six 6x6 products, reductions already apart). */
#include "ff/mont.h"
#include "ff/mont_x86_kara.h"

#if defined(CUZK_MONT_X86) && defined(__ELF__)

#define RA "%rsi"
#define RB "%r9"
#define RP "%rcx"
#define N0 "%r8"
#define LO "%rax"
#define LO32 "%eax"
#define HI "%rbp"
#define X(reg) "%" #reg

#if defined(__CET__)
#define KX_ENDBR "endbr64\n"
#else
#define KX_ENDBR ""
#endif

#define KX_BEGIN(name)                                                                             \
  ".globl " #name "\n"                                                                             \
  ".hidden " #name "\n"                                                                            \
  ".type " #name ", @function\n"                                                                   \
  ".p2align 5\n" #name ":\n"                                                                       \
  ".cfi_startproc\n" KX_ENDBR
#define KX_END(name)                                                                               \
  "ret\n"                                                                                          \
  ".cfi_endproc\n"                                                                                 \
  ".size " #name ", .-" #name "\n"
#define KX_PUSH(reg)                                                                               \
  "pushq %" #reg "\n"                                                                              \
  ".cfi_adjust_cfa_offset 8\n"                                                                     \
  ".cfi_rel_offset %" #reg ", 0\n"
#define KX_POP(reg)                                                                                \
  "popq %" #reg "\n"                                                                               \
  ".cfi_adjust_cfa_offset -8\n"                                                                    \
  ".cfi_restore %" #reg "\n"
#define KX_SAVE KX_PUSH(rbx) KX_PUSH(rbp) KX_PUSH(r12) KX_PUSH(r13) KX_PUSH(r14) KX_PUSH(r15)
#define KX_RESTORE KX_POP(r15) KX_POP(r14) KX_POP(r13) KX_POP(r12) KX_POP(rbp) KX_POP(rbx)
#define KX_FRAME(n)                                                                                \
  "subq $" #n ", %rsp\n"                                                                           \
  ".cfi_adjust_cfa_offset " #n "\n"
#define KX_UNFRAME(n)                                                                              \
  "addq $" #n ", %rsp\n"                                                                           \
  ".cfi_adjust_cfa_offset -" #n "\n"

/* Operand addresses: a byte offset in, an operand string out. */
#define AT_A0(off) #off "(" RA ")"
#define AT_A1(off) "24+" #off "(" RA ")"
#define AT_B0(off) #off "(" RB ")"
#define AT_B1(off) "24+" #off "(" RB ")"
#define AT_R(off) #off "(%rdi)"
#define AT_SA(off) #off "(%rsp)"
#define AT_SB(off) "24+" #off "(%rsp)"
#define AT_CA "48(%rsp)"
#define AT_CB "56(%rsp)"
#define AT_L(off) "64+" #off "(%rsp)"
#define AT_H(off) "112+" #off "(%rsp)"

/* D(0..16) = X0 + X1 (three limbs), CM = 0 or all ones by the carry out.
 * mov leaves CF alone. */
#define KX_SUM3(X0, X1, D, CM)                                                                     \
  "movq " X0(0) ", " LO "\n"                                                                       \
  "addq " X1(0) ", " LO "\n"                                                                       \
  "movq " LO ", " D(0) "\n"                                                                        \
  "movq " X0(8) ", " LO "\n"                                                                       \
  "adcq " X1(8) ", " LO "\n"                                                                       \
  "movq " LO ", " D(8) "\n"                                                                        \
  "movq " X0(16) ", " LO "\n"                                                                      \
  "adcq " X1(16) ", " LO "\n"                                                                      \
  "movq " LO ", " D(16) "\n"                                                                       \
  "sbbq " LO ", " LO "\n"                                                                          \
  "movq " LO ", " CM "\n"

/* Row 0 of a 3x3 product: T0..T3 = A * B_0 (one carry chain). */
#define KX_ROW0_3(A, B, T0, T1, T2, T3)                                                            \
  "movq " B(0) ", %rdx\n"                                                                          \
  "mulxq " A(0) ", " X(T0) ", " X(T1) "\n"                                                         \
  "mulxq " A(8) ", " LO ", " X(T2) "\n"                                                            \
  "addq " LO ", " X(T1) "\n"                                                                       \
  "mulxq " A(16) ", " LO ", " X(T3) "\n"                                                           \
  "adcq " LO ", " X(T2) "\n"                                                                       \
  "adcq $0, " X(T3) "\n"

/* XR += lo(rdx * S) on OF, YR += hi on CF. */
#define KX_MAC(S, XR, YR)                                                                          \
  "mulxq " S ", " LO ", " HI "\n"                                                                  \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "adcxq " HI ", " X(YR) "\n"
/* The row's last product: hi straight into the new top TN, which then
 * takes both chains' carries (lo zeroed by mov, which keeps the flags). */
#define KX_LAST(S, XR, TN)                                                                         \
  "mulxq " S ", " LO ", " X(TN) "\n"                                                               \
  "adoxq " LO ", " X(XR) "\n"                                                                      \
  "movl $0, " LO32 "\n"                                                                            \
  "adcxq " LO ", " X(TN) "\n"                                                                      \
  "adoxq " LO ", " X(TN) "\n"

/* Row i >= 1 (OFF = 8i): T0..T2 += A * B_i, T3 the new top; the xor
 * clears both flags. */
#define KX_ROW_3(A, B, OFF, T0, T1, T2, T3)                                                        \
  "movq " B(OFF) ", %rdx\n"                                                                        \
  "xorl " LO32 ", " LO32 "\n"                                                                      \
  KX_MAC(A(0), T0, T1) KX_MAC(A(8), T1, T2) KX_LAST(A(16), T2, T3)

/* The 3x3-limb product T0..T5 = A * B, 9 mulx. */
#define KX_MUL3(A, B, T0, T1, T2, T3, T4, T5)                                                      \
  KX_ROW0_3(A, B, T0, T1, T2, T3)                                                                  \
  KX_ROW_3(A, B, 8, T1, T2, T3, T4)                                                                \
  KX_ROW_3(A, B, 16, T2, T3, T4, T5)

#define KX_ST(D, R) "movq " X(R) ", " D "\n"
#define KX_ST6(D, R0, R1, R2, R3, R4, R5)                                                          \
  KX_ST(D(0), R0) KX_ST(D(8), R1) KX_ST(D(16), R2) KX_ST(D(24), R3) KX_ST(D(32), R4)               \
  KX_ST(D(40), R5)

/* One product of a reduction step: XR += lo(p_j m) on CF, YR += hi on OF. */
#define KX_RED(OFF, XR, YR)                                                                        \
  "mulxq " OFF "(" RP "), " LO ", " HI "\n"                                                        \
  "adcxq " LO ", " X(XR) "\n"                                                                      \
  "adoxq " HI ", " X(YR) "\n"

/* Reduction step: m = T0 n0 mod 2^64, T0..T6 += m p (T6 zero on entry);
 * T0 becomes zero and takes CF's last carry into T6. */
#define KX_REDC_6(T0, T1, T2, T3, T4, T5, T6)                                                      \
  "movq " X(T0) ", %rdx\n"                                                                         \
  "imulq " N0 ", %rdx\n"                                                                           \
  "xorl " LO32 ", " LO32 "\n"                                                                      \
  KX_RED("0", T0, T1) KX_RED("8", T1, T2) KX_RED("16", T2, T3) KX_RED("24", T3, T4)                \
  KX_RED("32", T4, T5) KX_RED("40", T5, T6)                                                        \
  "adcxq " X(T0) ", " X(T6) "\n"

/* DST = V - p if V >= p, else V (V < 2p), through the copies S. */
#define KX_SUBP(OP, OFF, V, S)                                                                     \
  "movq " X(V) ", " X(S) "\n" OP " " OFF "(" RP "), " X(S) "\n"
#define KX_PICK(D, V, S)                                                                           \
  "cmovncq " X(S) ", " X(V) "\n"                                                                   \
  "movq " X(V) ", " D "\n"
#define KX_CSUB_STORE_6(DST, V0, V1, V2, V3, V4, V5, S0, S1, S2, S3, S4, S5)                       \
  KX_SUBP("subq", "0", V0, S0) KX_SUBP("sbbq", "8", V1, S1) KX_SUBP("sbbq", "16", V2, S2)          \
  KX_SUBP("sbbq", "24", V3, S3) KX_SUBP("sbbq", "32", V4, S4) KX_SUBP("sbbq", "40", V5, S5)        \
  KX_PICK(DST(0), V0, S0) KX_PICK(DST(8), V1, S1) KX_PICK(DST(16), V2, S2)                         \
  KX_PICK(DST(24), V3, S3) KX_PICK(DST(32), V4, S4) KX_PICK(DST(40), V5, S5)

/* void mont384_mul_kara_x86(limb_t r[6], const limb_t a[6], const limb_t b[6],
 *                           const limb_t p[6], limb_t n0)
 * r = a*b / 2^384 mod p.  27 + 36 mulx + 6 imul. */
__asm__(".pushsection .text\n" KX_BEGIN(mont384_mul_kara_x86) KX_SAVE KX_FRAME(160)
        "movq %rdx, " RB "\n"
        /* sa' + ca X^3 = a0 + a1, sb' + cb X^3 = b0 + b1 */
        KX_SUM3(AT_A0, AT_A1, AT_SA, AT_CA)
        KX_SUM3(AT_B0, AT_B1, AT_SB, AT_CB)
        /* L = a0 b0, H = a1 b1 */
        KX_MUL3(AT_A0, AT_B0, rbx, r10, r11, r12, r13, r14)
        KX_ST6(AT_L, rbx, r10, r11, r12, r13, r14)
        KX_MUL3(AT_A1, AT_B1, rbx, r10, r11, r12, r13, r14)
        KX_ST6(AT_H, rbx, r10, r11, r12, r13, r14)
        /* M' = sa' sb' in r9 rsi r15 rbx r10 r11 */
        KX_MUL3(AT_SA, AT_SB, r9, rsi, r15, rbx, r10, r11)
        /* M = M' + X^3 (ca sb' + cb sa') mod X^6 */
        "movq " AT_SB(0) ", %rax\n"
        "andq " AT_CA ", %rax\n"
        "movq " AT_SB(8) ", %rbp\n"
        "andq " AT_CA ", %rbp\n"
        "movq " AT_SB(16) ", %rdx\n"
        "andq " AT_CA ", %rdx\n"
        "movq " AT_SA(0) ", %r12\n"
        "andq " AT_CB ", %r12\n"
        "movq " AT_SA(8) ", %r13\n"
        "andq " AT_CB ", %r13\n"
        "movq " AT_SA(16) ", %r14\n"
        "andq " AT_CB ", %r14\n"
        "addq %rax, %rbx\n"
        "adcq %rbp, %r10\n"
        "adcq %rdx, %r11\n"
        "addq %r12, %rbx\n"
        "adcq %r13, %r10\n"
        "adcq %r14, %r11\n"
        /* Mid = M - L - H mod 2^384 (exact: a0 b1 + a1 b0 < 2^384) */
        "subq " AT_L(0) ", %r9\n"
        "sbbq " AT_L(8) ", %rsi\n"
        "sbbq " AT_L(16) ", %r15\n"
        "sbbq " AT_L(24) ", %rbx\n"
        "sbbq " AT_L(32) ", %r10\n"
        "sbbq " AT_L(40) ", %r11\n"
        "subq " AT_H(0) ", %r9\n"
        "sbbq " AT_H(8) ", %rsi\n"
        "sbbq " AT_H(16) ", %r15\n"
        "sbbq " AT_H(24) ", %rbx\n"
        "sbbq " AT_H(32) ", %r10\n"
        "sbbq " AT_H(40) ", %r11\n"
        /* T = L + Mid X^3 + H X^6: limbs 3..5 in r12..r14, 6..11 over H */
        "movq " AT_L(24) ", %r12\n"
        "addq %r9, %r12\n"
        "movq " AT_L(32) ", %r13\n"
        "adcq %rsi, %r13\n"
        "movq " AT_L(40) ", %r14\n"
        "adcq %r15, %r14\n"
        "adcq %rbx, " AT_H(0) "\n"
        "adcq %r10, " AT_H(8) "\n"
        "adcq %r11, " AT_H(16) "\n"
        "adcq $0, " AT_H(24) "\n"
        "adcq $0, " AT_H(32) "\n"
        "adcq $0, " AT_H(40) "\n"
        "movq " AT_L(0) ", %rbx\n"
        "movq " AT_L(8) ", %r10\n"
        "movq " AT_L(16) ", %r11\n"
        /* u = (T_lo + m p) / 2^384 in r15 rbx r10 r11 r12 r13, r14 = 0 */
        "xorl %r15d, %r15d\n"
        KX_REDC_6(rbx, r10, r11, r12, r13, r14, r15)
        KX_REDC_6(r10, r11, r12, r13, r14, r15, rbx)
        KX_REDC_6(r11, r12, r13, r14, r15, rbx, r10)
        KX_REDC_6(r12, r13, r14, r15, rbx, r10, r11)
        KX_REDC_6(r13, r14, r15, rbx, r10, r11, r12)
        KX_REDC_6(r14, r15, rbx, r10, r11, r12, r13)
        /* u + T_hi < 2p: no carry out */
        "addq " AT_H(0) ", %r15\n"
        "adcq " AT_H(8) ", %rbx\n"
        "adcq " AT_H(16) ", %r10\n"
        "adcq " AT_H(24) ", %r11\n"
        "adcq " AT_H(32) ", %r12\n"
        "adcq " AT_H(40) ", %r13\n"
        KX_CSUB_STORE_6(AT_R, r15, rbx, r10, r11, r12, r13, rax, rbp, rdx, r14, r9, rsi)
        KX_UNFRAME(160) KX_RESTORE KX_END(mont384_mul_kara_x86) ".popsection\n");

#else
typedef int mont_x86_kara_unused; /* an empty translation unit is not C */
#endif
