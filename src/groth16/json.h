/* snarkjs's JSON files for Groth16 over BLS12-381 (docs/FORMATS.md §4):
 * proof.json, public.json and verification_key.json.
 *
 * Writers produce byte for byte what the snarkjs 0.7.6 CLI writes
 * (`groth16 prove`, `zkey export verificationkey`), which is bfj.write(obj,
 * {space: 1}) of stringifyBigInts(obj):
 *   - one space of indentation per level, every array element and object
 *     member on its own line, `"key": value` with one space after the colon,
 *     an empty array as "[\n<indent>]", and no newline after the last byte;
 *   - every field element a canonical decimal string; nPublic a bare number;
 *   - points as projective triples with z = 1: G1 [x, y, "1"], G2
 *     [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]] (c0 first, unlike zcash);
 *     the point at infinity as ffjavascript's toObject writes it:
 *     G1 ["0", "1", "0"], G2 [["0", "0"], ["1", "0"], ["0", "0"]];
 *   - key order: proof  pi_a, pi_b, pi_c, protocol, curve;
 *     vk  protocol, curve, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2,
 *         vk_delta_2, vk_alphabeta_12, IC.
 *
 * Readers (cJSON) accept that output and rapidsnark's (no "curve" key), and
 * refuse anything else with CUZK_FORMAT and a message naming the file and the
 * JSON path: "proof.json: pi_b[1][0]: not a decimal integer".  Rules:
 *   - the file is at most JSON_*_MAX_BYTES, has no NUL byte and is one JSON
 *     value with nothing after it;
 *   - "protocol" must be "groth16"; "curve" may be absent, otherwise it is
 *     compared as snarkjs does (upper-cased, non-alphanumerics dropped):
 *     BLS12381 is accepted, BN128 / BN254 / ALTBN128 and unknown names give
 *     CUZK_UNSUPPORTED; keys the reader does not use are ignored; a key it
 *     uses must appear once;
 *   - a field element is a JSON string of decimal digits (leading zeros
 *     allowed, no sign, no hex, no JSON number) below p (below r for
 *     public signals);
 *   - a point is [x, y] or [x, y, z] (z = 1 when absent, as in ffjavascript's
 *     fromObject); z must be 1 (G2: ["1", "0"]) or 0 (["0", "0"]), and z = 0
 *     is the point at infinity whatever x and y are (they must still be
 *     decimal and < p);
 *   - x = y = 0 with z = 1 is refused: it is no curve point and the in-memory
 *     affine form reserves it for infinity;
 *   - verification_key.json: nPublic is a non-negative integral JSON number
 *     and IC has exactly nPublic + 1 points.
 * The readers do NOT check that points are on the curve or in the subgroup,
 * nor that vk_alphabeta_12 equals e(alpha, beta): a well-formed file holding
 * a wrong point is a proof that must verify as INVALID, which the verifier
 * decides (it runs those checks).  Memory: cJSON holds the whole tree, about
 * 200 bytes per value: ~2x the text for 115-digit coordinates, up to ~20x
 * for a public.json of one-digit signals. */
#ifndef CUZK_GROTH16_JSON_H
#define CUZK_GROTH16_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/err.h"
#include "groth16/types.h"

/* Size caps on untrusted input (file or text).  A snarkjs proof is ~1.5 KB;
 * a vk is ~0.25 KB per public input, so 64 MiB is ~250k inputs; a
 * public.json of as many signals is ~20 MB, and its cap is twice the vk's
 * for hand-written files with wide spacing. */
#define JSON_PROOF_MAX_BYTES ((size_t)1 << 20)
#define JSON_VK_MAX_BYTES ((size_t)64 << 20)
#define JSON_PUBLIC_MAX_BYTES ((size_t)128 << 20)

/* ---- writers.  The _string variants return a malloc'd NUL-terminated
 * string the caller frees, or NULL when out of memory.  The file variants
 * replace path's content through fileio_write (base/fileio.h: a new file
 * renamed into place, a device or FIFO written in place, a symbolic link
 * followed) and return CUZK_IO on a write error, leaving path as it was. */

cuzk_status json_write_proof(const char *path, const groth16_proof *p, cuzk_err *err);
char *json_proof_string(const groth16_proof *p);

/* signals: n values of 32 bytes each, little-endian canonical (< r, as the
 * witness holds them).  A value >= r gives CUZK_INVALID_ARGUMENT (file) or
 * NULL (string). */
cuzk_status json_write_public(const char *path, const uint8_t *signals, size_t n, cuzk_err *err);
char *json_public_string(const uint8_t *signals, size_t n);

/* bellperson's PUBLIC.json for k partitions of m signals each (signals:
 * k x m values as above, partition-major): for k = 1 json_public_string's
 * flat array, else an array of k such arrays, in the same layout.  What
 * json_read_public_parts reads back. */
cuzk_status json_write_public_parts(const char *path, const uint8_t *signals, size_t k, size_t m,
                                    cuzk_err *err);
char *json_public_parts_string(const uint8_t *signals, size_t k, size_t m);

/* Writes a text made by a _string writer (proof.h's groth16_proof_json
 * too) to path as it is: no newline added. */
cuzk_status json_write_text(const char *path, const char *text, cuzk_err *err);

/* vk->alphabeta is written as given (not recomputed). */
cuzk_status json_write_vk(const char *path, const groth16_vk *vk, cuzk_err *err);
char *json_vk_string(const groth16_vk *vk);

/* ---- readers.  Return CUZK_IO when the file cannot be read or is not a
 * regular file (fileio_open_read: a FIFO is refused, not waited on), CUZK_FORMAT
 * or CUZK_UNSUPPORTED as described above, CUZK_NO_MEMORY.  The _parse
 * variants read len bytes of text (no NUL needed) and use `name` in place of
 * the file name in messages (the daemon passes "proof" or the like). */

cuzk_status json_read_proof(const char *path, groth16_proof *p, cuzk_err *err);
cuzk_status json_parse_proof(const char *text, size_t len, const char *name, groth16_proof *p,
                             cuzk_err *err);

/* *values receives a malloc'd array of *n canonical values (4 limbs, little
 * endian, each < r) that the caller frees; NULL when *n = 0 or on failure. */
cuzk_status json_read_public(const char *path, limb_t (**values)[4], size_t *n, cuzk_err *err);
cuzk_status json_parse_public(const char *text, size_t len, const char *name,
                              limb_t (**values)[4], size_t *n, cuzk_err *err);

/* bellperson's PUBLIC.json for k partitions: a flat array (one partition)
 * or an array of k arrays of the same length.  *values: *n_parts x
 * *per_part values, partition-major (NULL when none).  A partition's
 * errors say which: "public.json: partition 1: [0]: not a decimal integer". */
cuzk_status json_read_public_parts(const char *path, limb_t (**values)[4], size_t *n_parts,
                                   size_t *per_part, cuzk_err *err);
cuzk_status json_parse_public_parts(const char *text, size_t len, const char *name,
                                    limb_t (**values)[4], size_t *n_parts, size_t *per_part,
                                    cuzk_err *err);

/* On success *vk owns vk->ic (free with groth16_vk_fini); on failure *vk is
 * zeroed and owns nothing. */
cuzk_status json_read_vk(const char *path, groth16_vk *vk, cuzk_err *err);
cuzk_status json_parse_vk(const char *text, size_t len, const char *name, groth16_vk *vk,
                          cuzk_err *err);

#endif
