/* The zcash / IETF byte encodings of BLS12-381 points (docs/FORMATS.md §5.1), as
 * written by bellperson, blstrs, zkcrypto/bls12_381 and @noble/curves.
 *
 *   G1 compressed    48 bytes   x
 *   G1 uncompressed  96 bytes   x | y
 *   G2 compressed    96 bytes   x.c1 | x.c0
 *   G2 uncompressed 192 bytes   x.c1 | x.c0 | y.c1 | y.c0
 *
 * Every Fp element is 48 bytes, big-endian, canonical (< p, not Montgomery).
 * The top three bits of byte 0 are flags:
 *   0x80  compressed form;
 *   0x40  point at infinity: every other bit of the encoding must be 0, so
 *         infinity is C0 00.. compressed and 40 00.. uncompressed;
 *   0x20  sort flag, compressed only: set when y is the lexicographically
 *         largest of the two square roots (bls12_381_fp{,2}_is_lex_largest).
 * p < 2^381, so the flags never overlap a coordinate bit.
 *
 * DESIGN: the decoders never trust their input.  Flags, canonical
 * coordinates (< p) and the infinity form are always checked; `check` adds
 * the costly on-curve and subgroup tests (zkcrypto's from_compressed versus
 * from_compressed_unchecked).  A compressed point is on the curve by
 * construction, so for it `check` means the subgroup test only.  The
 * uncompressed (0, 0) is rejected even unchecked: it is not a curve point,
 * and the in-memory affine form reserves x = y = 0 for infinity.
 * On failure the decoders return CUZK_FORMAT, leave *p unspecified and name
 * the group, form and reason, e.g. "compressed G2: x.c1 >= p".
 * Variable time: points are public. */
#ifndef CUZK_EC_ENCODE_H
#define CUZK_EC_ENCODE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "ec/bls12_381.h"

#define BLS12_381_FP_BYTES 48
#define BLS12_381_G1_COMPRESSED_BYTES 48
#define BLS12_381_G1_UNCOMPRESSED_BYTES 96
#define BLS12_381_G2_COMPRESSED_BYTES 96
#define BLS12_381_G2_UNCOMPRESSED_BYTES 192

/* The flag bits of byte 0. */
#define BLS12_381_ENC_COMPRESSED 0x80
#define BLS12_381_ENC_INFINITY 0x40
#define BLS12_381_ENC_SORT 0x20

/* Encoders: p must be on the curve or the infinity (x = y = 0).  They cannot
 * fail. */
void bls12_381_g1_encode_compressed(uint8_t out[BLS12_381_G1_COMPRESSED_BYTES],
                                    const bls12_381_g1_aff *p);
void bls12_381_g1_encode_uncompressed(uint8_t out[BLS12_381_G1_UNCOMPRESSED_BYTES],
                                      const bls12_381_g1_aff *p);
void bls12_381_g2_encode_compressed(uint8_t out[BLS12_381_G2_COMPRESSED_BYTES],
                                    const bls12_381_g2_aff *p);
void bls12_381_g2_encode_uncompressed(uint8_t out[BLS12_381_G2_UNCOMPRESSED_BYTES],
                                      const bls12_381_g2_aff *p);

/* Decoders: *p receives the point (Montgomery form, infinity as x = y = 0).
 * check = true: also on the curve (uncompressed) and in the prime-order
 * subgroup (aff_in_subgroup: the endomorphism tests of ec/bls12_381.c, a
 * 128-bit multiple in G1 and a 64-bit one in G2).  The subgroup test is
 * the cost of a checked decode, the square root of a compressed point the
 * next; unchecked uncompressed decoding is a range check (the figures are
 * in bench/RESULTS.md, "Subgroup tests"). */
cuzk_status bls12_381_g1_decode_compressed(bls12_381_g1_aff *p,
                                           const uint8_t in[BLS12_381_G1_COMPRESSED_BYTES],
                                           bool check, cuzk_err *err);
cuzk_status bls12_381_g1_decode_uncompressed(bls12_381_g1_aff *p,
                                             const uint8_t in[BLS12_381_G1_UNCOMPRESSED_BYTES],
                                             bool check, cuzk_err *err);
cuzk_status bls12_381_g2_decode_compressed(bls12_381_g2_aff *p,
                                           const uint8_t in[BLS12_381_G2_COMPRESSED_BYTES],
                                           bool check, cuzk_err *err);
cuzk_status bls12_381_g2_decode_uncompressed(bls12_381_g2_aff *p,
                                             const uint8_t in[BLS12_381_G2_UNCOMPRESSED_BYTES],
                                             bool check, cuzk_err *err);

/* One Fp element <-> 48 big-endian canonical bytes.  fp_from_be fails
 * (false, *r unspecified) when the value is >= p; the caller masks any flag
 * bits first. */
void bls12_381_fp_to_be(uint8_t out[BLS12_381_FP_BYTES], const bls12_381_fp *a);
bool bls12_381_fp_from_be(bls12_381_fp *r, const uint8_t in[BLS12_381_FP_BYTES]);

#endif
