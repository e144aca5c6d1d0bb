/* snarkjs Groth16 proving keys (.zkey, docs/FORMATS.md §3), BLS12-381.
 *
 * DESIGN: zkey_open checks everything that costs at most a linear scan and
 * no curve arithmetic beyond a handful of points, so that the prover can
 * index the mapped sections without further checks.  Invariants after a
 * successful open:
 *   - sections 1-9 each appear exactly once, section 10 at most once;
 *   - protocol = 1 (Groth16); q = BLS12-381 p with n8q = 48, r = BLS12-381 r
 *     with n8r = 32;
 *   - domainSize is a power of two in [2, 2^28] and > nPublic; nVars > nPublic;
 *   - every section has exactly its expected size: IC (nPublic+1) x 96,
 *     A and B1 nVars x 96, B2 nVars x 192, C (nVars-nPublic-1) x 96,
 *     H domainSize x 96, coefficients 4 + nCoefs x 44;
 *   - each coefficient entry has matrix in {0, 1}, row < domainSize,
 *     wire < nVars and value < r;
 *   - the six header points and the IC points have coordinates < q, lie on
 *     their curves and are not the point at infinity (IC points may be);
 *   - section 10, when present, parses (csHash, n records with their TLV
 *     parameters).
 * Not checked at open (too slow for large keys): whether the points of
 * sections 5-9 are canonical and on their curves (zkey_validate_points: the
 * prover runs it when a proof fails verification, `cuzk info
 * --check-points` on request), and their subgroup membership.
 * Points in the file are little-endian Montgomery with R = 2^384, the same
 * form as bls12_381_fp: decoding is a copy of limbs (zkey_g1_decode).
 * Ownership: the zkey_file owns the mapping; every section pointer points
 * into it (unaligned) and lives until zkey_close - except the coefficient
 * entries of a mapped key (zkey_open): they are copied out of the mapping
 * into memory the zkey_file owns (coefs_owned) and checked there, once, so
 * that the rows and wires the prover indexes by (a write a[row], a read
 * w[wire]) are the ones checked, whatever happens to the file afterwards.
 * The points are still read from the mapping: a file changed under it
 * gives wrong points (and so a proof that fails verification), never an
 * access out of bounds, and a file truncated under it reads as zeros
 * (mapfile.h); zkey_check_unchanged says whether the file is as it was
 * opened, and a caller checks it before it uses a result.  zkey_open_mem's
 * caller owns the bytes and keeps them unchanged, so its entries are
 * checked in place. */
#ifndef CUZK_GROTH16_ZKEY_H
#define CUZK_GROTH16_ZKEY_H

#include "groth16/binfile.h"
#include "groth16/types.h"
#include "groth16/wtns.h"

#define ZKEY_G1_BYTES 96
#define ZKEY_G2_BYTES 192
#define ZKEY_COEF_BYTES 44 /* u32 matrix, u32 row, u32 wire, 32-byte c*R^2 mod r */
#define ZKEY_MAX_LG_DOMAIN 28

typedef struct {
  binfile bf;
  uint32_t protocol;               /* 1 = Groth16 */
  uint32_t n8q, n8r;               /* 48, 32 */
  limb_t q[6], r[4];
  uint32_t n_vars, n_public, domain_size;
  unsigned lg_domain;              /* domain_size = 2^lg_domain */
  bls12_381_g1_aff alpha1, beta1, delta1;
  bls12_381_g2_aff beta2, gamma2, delta2;
  /* Sections, pointing into the map; counts in points or entries. */
  const uint8_t *ic;    /* n_public + 1 G1 */
  const uint8_t *a;     /* n_vars G1 */
  const uint8_t *b1;    /* n_vars G1 */
  const uint8_t *b2;    /* n_vars G2 */
  const uint8_t *c;     /* n_vars - n_public - 1 G1 (wires n_public+1 ...) */
  const uint8_t *h;     /* domain_size G1 */
  const uint8_t *coefs; /* n_coefs entries of ZKEY_COEF_BYTES (after the count) */
  uint8_t *coefs_owned; /* zkey_open: the copy coefs points to (freed by zkey_close) */
  uint64_t n_ic, n_a, n_c, n_h, n_coefs;
  /* Section 10 (optional): the phase-2 transcript. */
  bool has_contributions;
  const uint8_t *cs_hash;    /* 64 bytes, or NULL */
  uint32_t n_contributions;
} zkey_file;

/* Errors: CUZK_IO; CUZK_UNSUPPORTED for a PLONK or FFLONK key, a BN254 key
 * or a zkey version other than 1-2; CUZK_FORMAT for everything else. */
cuzk_status zkey_open(zkey_file *z, const char *path, cuzk_err *err);
/* Only the checks of sections 1 and 2 (the protocol, the primes, nVars,
 * nPublic, domainSize and the six header points): a cheap look at a key
 * that may be large.  The file is closed again: z holds the header fields
 * and no sections (every section pointer NULL). */
cuzk_status zkey_read_header(zkey_file *z, const char *path, cuzk_err *err);
/* The same over len bytes in memory (the fuzz harness's entry point);
 * `name` stands for the path in messages. */
cuzk_status zkey_read_header_mem(zkey_file *z, const void *data, size_t len, const char *name,
                                 cuzk_err *err);
/* The same over len bytes in memory (a key copied to page-locked memory)
 * that the caller keeps unchanged until zkey_close; `name` stands for the
 * path in messages. */
cuzk_status zkey_open_mem(zkey_file *z, const void *data, size_t len, const char *name,
                          cuzk_err *err);
void zkey_close(zkey_file *z);
/* CUZK_OK when the key's file is unchanged since zkey_open and no read of
 * it faulted, else CUZK_IO "PATH changed while being read (...)"
 * (binfile_check).  Always CUZK_OK after zkey_open_mem. */
static inline cuzk_status zkey_check_unchanged(const zkey_file *z, cuzk_err *err) {
  return binfile_check(&z->bf, err);
}

/* The verification key: alpha1, beta2, gamma2, delta2, n_public and a
 * malloc'd copy of IC (the caller frees it with groth16_vk_fini).
 * alphabeta is left zero: groth16_vk_compute_alphabeta fills it. */
cuzk_status zkey_read_vk(const zkey_file *z, groth16_vk *vk, cuzk_err *err);

/* Does w belong with this key (the prover's checks, docs/FORMATS.md §3.6)?
 * The witness prime must be r (else CUZK_UNSUPPORTED for another curve's r,
 * CUZK_INVALID_ARGUMENT otherwise) and nWitness must equal nVars
 * (CUZK_INVALID_ARGUMENT). */
cuzk_status zkey_check_witness(const zkey_file *z, const wtns_file *w, cuzk_err *err);

/* Checks every point of sections 3, 5-9 is canonical (coordinates < q) and
 * on its curve (infinity allowed), and the six header points are in their
 * prime-order subgroups, using `threads` workers (0 = par_threads()).
 * CUZK_FORMAT names the section, the index and the offset of the first bad
 * point in the order header, 3, 5, 6, 7, 8, 9.  Takes about a second per
 * million points per thread. */
cuzk_status zkey_validate_points(const zkey_file *z, unsigned threads, cuzk_err *err);
/* The same, reporting the first bad point as (section, index) instead of a
 * message (section 2: index 0-5 = alpha1, beta1, beta2, gamma2, delta1,
 * delta2).  Returns false when every point is good. */
bool zkey_find_bad_point(const zkey_file *z, unsigned threads, uint32_t *section,
                         uint64_t *index);

/* File layout -> point (limb copies; the bytes may be unaligned). */
static inline void zkey_g1_decode(bls12_381_g1_aff *p, const uint8_t *b) {
  limbs_from_le(p->x.l, b, 6);
  limbs_from_le(p->y.l, b + 48, 6);
}
static inline void zkey_g2_decode(bls12_381_g2_aff *p, const uint8_t *b) {
  limbs_from_le(p->x.c0.l, b, 6);
  limbs_from_le(p->x.c1.l, b + 48, 6);
  limbs_from_le(p->y.c0.l, b + 96, 6);
  limbs_from_le(p->y.c1.l, b + 144, 6);
}

#endif
