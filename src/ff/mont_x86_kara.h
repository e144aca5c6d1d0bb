/* A 6-limb Montgomery multiplication whose 384x384-bit product is one level
 * of Karatsuba (mont_x86_kara.c: top-level assembly, mulx/adcx/adox; its
 * DESIGN comment has the algorithm, bounds and measurements).  An
 * experiment next to mont384_mul_x86 (ff/mont_x86.c), not bound by
 * ff/mont.h; tests/unit/test_mont_kara.c checks it against both
 * mont384_mul_x86 and mont384_mul_ref, bench/bench_mont_kara.c times them.
 *
 * Defined only where mont_x86.c is (CUZK_MONT_X86: x86-64, BMI2, ADX, no
 * CUZK_NO_ASM; ELF).  Contract, as mont384_mul_x86's: a, b < p; r < p on
 * return; r may alias a or b; p < 2^383; n0 = -p^-1 mod 2^64. */
#ifndef CUZK_FF_MONT_X86_KARA_H
#define CUZK_FF_MONT_X86_KARA_H

#include "base/bytes.h"

/* r = a*b / 2^384 mod p.  27 + 36 mulx + 6 imul. */
void mont384_mul_kara_x86(limb_t *r, const limb_t *a, const limb_t *b, const limb_t *p,
                          limb_t n0);

#endif
