/* bellperson (Filecoin) Groth16 files over BLS12-381 (docs/FORMATS.md §5.3,
 * §5.4): the verifying key (.vk), the parameters (.params) and
 * proofs (192 bytes each, partitions concatenated).
 *
 *   .vk      alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2
 *            u32 BE n_ic, n_ic x G1                 868 + 96 n_ic bytes
 *   .params  the .vk, then for h, l, a, b_g1 (G1) and b_g2 (G2) in this
 *            order: u32 BE count, count points
 *   proof    A (compressed G1, 48) | B (compressed G2, 96) | C (48)
 * Key points are uncompressed zcash encodings (ec/encode.h); no magic, no
 * version.
 *
 * DESIGN
 * Readers never trust the bytes.  Every count is checked against the bytes
 * left before anything is allocated, so a count that runs past the end (or
 * whose size overflows) is an error naming the vector, its offset and the
 * count; bytes after the last vector are refused.  Flags and coordinates
 * (< p) are always checked; on-curve and subgroup membership are checked
 * unless bp_read_opts.skip_checks (a trusted file; the points of such a
 * file are only as good as the file).  The point at infinity is refused in
 * ic and in every vector of a .params, as bellperson refuses it; the six
 * fixed points of the key may be infinity, as bellperson allows (a key
 * with such a point verifies nothing).  n_ic = 0 is refused: ic[0] is the
 * ONE input's point.  Vectors are decoded in parallel (base/par.h); the
 * failure reported is the lowest failing index, whatever the thread count.
 * Messages name the file (or `name`), the field or vector, the point's
 * index and byte offset, and the reason:
 *   "k.params: vector l, point 7 at byte offset 2404: uncompressed G1: not on the curve"
 * In memory, points are affine Montgomery form as everywhere else
 * (groth16/types.h).  Writers go through fileio_out_open/commit (a new
 * temporary renamed over the target). */
#ifndef CUZK_GROTH16_BP_H
#define CUZK_GROTH16_BP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "groth16/types.h"

#define BP_PROOF_BYTES 192
#define BP_VK_FIXED_BYTES 868 /* the six fixed points and the ic count */

typedef struct {
  bool skip_checks; /* trusted file: no on-curve/subgroup checks */
} bp_read_opts;

typedef struct {
  bls12_381_g1_aff alpha_g1, beta_g1, delta_g1;
  bls12_381_g2_aff beta_g2, gamma_g2, delta_g2;
  bls12_381_g1_aff *ic;
  size_t n_ic; /* inputs including ONE; owned */
} bp_vk;

typedef struct {
  bp_vk vk;
  bls12_381_g1_aff *h, *l, *a, *b_g1; /* owned */
  size_t n_h, n_l, n_a, n_b_g1;
  bls12_381_g2_aff *b_g2;
  size_t n_b_g2;
} bp_params;

/* Parsers read n bytes at p (name in messages); readers read the regular
 * file path with pread, a chunk of 2^20 points at a time decoded in
 * parallel, so that memory is the decoded points plus one chunk (a file
 * that changes size while read is CUZK_IO).  o NULL: all checks.  On success *vk /
 * *pp owns its vectors; on failure it is zeroed and owns nothing.
 * Errors: CUZK_FORMAT (as the DESIGN says), CUZK_IO, CUZK_NO_MEMORY. */
cuzk_status bp_vk_parse(bp_vk *vk, const uint8_t *p, size_t n, const char *name,
                        const bp_read_opts *o, cuzk_err *err);
cuzk_status bp_vk_read(bp_vk *vk, const char *path, const bp_read_opts *o, cuzk_err *err);
cuzk_status bp_params_parse(bp_params *pp, const uint8_t *p, size_t n, const char *name,
                            const bp_read_opts *o, cuzk_err *err);
cuzk_status bp_params_read(bp_params *pp, const char *path, const bp_read_opts *o,
                           cuzk_err *err);

/* Every point of pp in memory valid as the reader would have checked it
 * without skip_checks: on its curve and in its subgroup, none of ic and
 * the vectors at infinity (the vk's six fixed points may be, as the
 * reader allows); on `threads` threads (0: par_threads()).
 * CUZK_FORMAT names the first bad point in file order ("vector l, point
 * 7: not on the curve"), whatever the thread count.  For a key read as
 * trusted, when a proof with it fails. */
cuzk_status bp_params_validate_points(const bp_params *pp, unsigned threads, cuzk_err *err);

/* The encodings: bp_*_size bytes into out.  Points must be on their curves
 * (infinity is written as 0x40 00..; the readers refuse it where the
 * DESIGN says).  Counts must fit a u32 (bp_*_write check it). */
size_t bp_vk_size(const bp_vk *vk);
void bp_vk_encode(uint8_t *out, const bp_vk *vk);
size_t bp_params_size(const bp_params *pp);
void bp_params_encode(uint8_t *out, const bp_params *pp);

/* path's content replaced by the encoding (fileio_out_*).  CUZK_INVALID_ARGUMENT
 * for a count above 2^32 - 1, CUZK_IO. */
cuzk_status bp_vk_write(const bp_vk *vk, const char *path, cuzk_err *err);
cuzk_status bp_params_write(const bp_params *pp, const char *path, cuzk_err *err);

void bp_vk_free(bp_vk *vk);
void bp_params_free(bp_params *pp);

/* The key as groth16_verify takes it (n_public = n_ic - 1, ic copied,
 * alphabeta computed); out owns its ic (groth16_vk_fini).  bellperson's
 * equation is the one groth16_verify checks: e(A, B) = e(alpha, beta)
 * e(IC_0 + sum x_i IC_i, gamma) e(C, delta).  CUZK_FORMAT when n_ic = 0,
 * CUZK_NO_MEMORY. */
cuzk_status bp_vk_to_groth16(const bp_vk *vk, groth16_vk *out, cuzk_err *err);

/* A proof as 192 bytes: compressed A(48) | B(96) | C(48), the daemon's
 * layout (groth16_proof_encode, groth16/proof.h). */
void bp_proof_encode(uint8_t out[BP_PROOF_BYTES], const groth16_proof *pr);
/* The inverse, with the subgroup checks (compressed points are on the
 * curve by construction) and infinity refused in each of A, B, C, as
 * bellperson's read_many does.  name and index (the partition) go into
 * messages with the byte offset index * 192 + the field's:
 *   "proof.bin: partition 2, B at byte offset 432: compressed G2: not in the subgroup" */
cuzk_status bp_proof_decode(groth16_proof *pr, const uint8_t in[BP_PROOF_BYTES], const char *name,
                            size_t index, cuzk_err *err);

#endif
