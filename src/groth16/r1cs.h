/* .r1cs circuit files (docs/FORMATS.md §1), written by circom.
 *
 * DESIGN: r1cs_open validates the whole file before returning, so that the
 * iterator and r1cs_check_witness can walk the constraints without bounds
 * checks.  Invariants after a successful open: sections 1 (header) and 2
 * (constraints) appear exactly once, sections 3, 4 and 5 at most once;
 * section 1 is exactly fs + 32 bytes; 1 + nPubOut + nPubIn + nPrvIn <=
 * nWires; section 2 holds exactly mConstraints records, every term's wire is
 * < nWires and every coefficient is canonical (< prime); section 3, when
 * present, is nWires x u64; sections 4 and 5 (custom gates, PLONK only) are
 * walked with bounds checks and counted, and r1cs_require_groth16 rejects
 * them.  Any prime is accepted here (circom supports several); evaluation
 * needs BLS12-381's r.  Ownership: the r1cs_file owns the mapping; every
 * pointer into it lives until r1cs_close. */
#ifndef CUZK_GROTH16_R1CS_H
#define CUZK_GROTH16_R1CS_H

#include "groth16/binfile.h"
#include "groth16/wtns.h"

typedef struct {
  binfile bf;
  uint32_t fs;                     /* bytes per field element */
  limb_t prime[BINFILE_MAX_LIMBS]; /* fs/8 limbs used */
  binfile_prime prime_id;
  uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in;
  uint64_t n_labels;
  uint32_t n_constraints;
  uint64_t n_terms;               /* over all constraints and their A, B, C */
  const uint8_t *constraints;     /* section 2 payload, into the map */
  uint64_t constraints_size;
  const uint8_t *wire_map;        /* section 3: n_wires u64 label ids, or NULL */
  bool has_custom_gates;          /* section 4 or 5 present */
  uint32_t n_custom_gates;        /* templates in section 4 */
  uint32_t n_custom_gate_uses;    /* applications in section 5 */
} r1cs_file;

/* Errors: CUZK_IO, CUZK_FORMAT, CUZK_UNSUPPORTED (version other than 1,
 * fs > 64). */
cuzk_status r1cs_open(r1cs_file *r, const char *path, cuzk_err *err);
/* The same checks over len bytes in memory that the caller keeps unchanged
 * until r1cs_close; `name` stands for the path in messages. */
cuzk_status r1cs_open_mem(r1cs_file *r, const void *data, size_t len, const char *name,
                          cuzk_err *err);
void r1cs_close(r1cs_file *r);

/* nPublic for Groth16: nPubOut + nPubIn. */
static inline uint64_t r1cs_n_public(const r1cs_file *r) {
  return (uint64_t)r->n_pub_out + r->n_pub_in;
}

/* CUZK_UNSUPPORTED when the file has custom gates (sections 4/5). */
cuzk_status r1cs_require_groth16(const r1cs_file *r, cuzk_err *err);

/* A linear combination: n_terms records of {u32 wire, fs-byte coefficient},
 * pointing into the map (unaligned). */
typedef struct {
  const uint8_t *terms;
  uint32_t n_terms;
} r1cs_lc;

typedef struct {
  r1cs_lc a, b, c; /* a . b = c */
} r1cs_constraint;

typedef struct {
  const r1cs_file *r;
  uint64_t pos;  /* into the constraints section */
  uint32_t next; /* index of the next constraint */
} r1cs_iter;

void r1cs_iter_init(r1cs_iter *it, const r1cs_file *r);
/* The next constraint in file order; false after the last. */
bool r1cs_iter_next(r1cs_iter *it, r1cs_constraint *out);

static inline uint32_t r1cs_term_wire(const r1cs_file *r, const r1cs_lc *lc, uint32_t k) {
  return rd_u32le(lc->terms + (uint64_t)k * (4 + r->fs));
}
/* fs bytes, canonical little-endian (not Montgomery). */
static inline const uint8_t *r1cs_term_coef(const r1cs_file *r, const r1cs_lc *lc, uint32_t k) {
  return lc->terms + (uint64_t)k * (4 + r->fs) + 4;
}

/* Evaluates every constraint on the witness, in file order.
 * CUZK_OK: all hold.  CUZK_UNSATISFIED: *bad_constraint = the index of the
 * first that fails (or SIZE_MAX when w[0] != 1: wire 0 is the constant one).
 * CUZK_UNSUPPORTED: custom gates, or a prime other than BLS12-381's r.
 * CUZK_INVALID_ARGUMENT: the witness does not belong to this circuit
 * (another prime, or nWitness != nWires).  bad_constraint may be NULL. */
cuzk_status r1cs_check_witness(const r1cs_file *r, const wtns_file *w, size_t *bad_constraint,
                               cuzk_err *err);

#endif
