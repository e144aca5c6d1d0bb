/* BLS12-381 fields: Fp (381-bit base field), Fr (255-bit scalar field) and
 * Fp2 = Fp[u]/(u^2+1).  Constants come from ff/consts_bls12_381.h (generated
 * by tools/gen_consts.py).  Fp6/Fp12 live with the pairing. */
#ifndef CUZK_FF_BLS12_381_H
#define CUZK_FF_BLS12_381_H

#include <stdbool.h>

#include "ff/consts_bls12_381.h"
#include "ff/mont.h"

#define FIELD bls12_381_fp
#define FIELD_N 6
#define FIELD_MONT mont384_
#define FIELD_C BLS12_381_FP
#include "ff/field_tmpl.h"
#undef FIELD
#undef FIELD_N
#undef FIELD_MONT
#undef FIELD_C

#define FIELD bls12_381_fr
#define FIELD_N 4
#define FIELD_MONT mont256_
#define FIELD_C BLS12_381_FR
#include "ff/field_tmpl.h"
#undef FIELD
#undef FIELD_N
#undef FIELD_MONT
#undef FIELD_C

#define FP2 bls12_381_fp2
#define FP2_BASE bls12_381_fp
#include "ff/fp2_tmpl.h"
#undef FP2
#undef FP2_BASE

/* Square roots (p = 3 mod 4).  Return false, leaving r unspecified, when a
 * is not a square. */
bool bls12_381_fp_sqrt(bls12_381_fp *r, const bls12_381_fp *a);
bool bls12_381_fp2_sqrt(bls12_381_fp2 *r, const bls12_381_fp2 *a);

/* The zcash "lexicographically largest" test used by the compressed
 * encoding's sort flag: y > (p-1)/2 for Fp; for Fp2, c1 decides unless it is
 * zero, then c0. */
bool bls12_381_fp_is_lex_largest(const bls12_381_fp *y);
bool bls12_381_fp2_is_lex_largest(const bls12_381_fp2 *y);

#endif
