/* .wtns witness files (docs/FORMATS.md §2): container "wtns" version 2,
 * section 1 {u32 n8, prime (n8 bytes), u32 nWitness}, section 2 nWitness
 * values of n8 bytes, canonical little-endian (not Montgomery).
 *
 * DESIGN: wtns_open checks the whole file before returning: each section
 * exactly once, section 1 exactly n8 + 8 bytes, section 2 exactly
 * n8 * nWitness bytes (nWitness is trusted and the size checked against it:
 * the wasm calculator writes a wrong 64-bit length above 4 GiB), and every
 * value below the prime (a linear scan).  Any prime is accepted here;
 * wtns_check_curve says whether cuzk can prove with it.  Ownership: the
 * wtns_file owns the mapping; `values` points into it (unaligned) and lives
 * until wtns_close. */
#ifndef CUZK_GROTH16_WTNS_H
#define CUZK_GROTH16_WTNS_H

#include "groth16/binfile.h"

typedef struct {
  binfile bf;
  uint32_t n8;                      /* bytes per value (32 for both curves' Fr) */
  limb_t prime[BINFILE_MAX_LIMBS];  /* the field modulus, n8/8 limbs used */
  binfile_prime prime_id;           /* which known prime, if any */
  uint64_t n_witness;               /* number of values (u32 in the file) */
  const uint8_t *values;            /* n_witness x n8 bytes, into the map */
  uint64_t values_at;               /* the values' offset in the file */
} wtns_file;

/* Errors: CUZK_IO, CUZK_FORMAT (any structural problem or a value >= prime),
 * CUZK_UNSUPPORTED (version other than 2, n8 > 64). */
cuzk_status wtns_open(wtns_file *w, const char *path, cuzk_err *err);
/* The same checks over len bytes in memory that the caller keeps unchanged
 * until wtns_close; `name` stands for the path in messages. */
cuzk_status wtns_open_mem(wtns_file *w, const void *data, size_t len, const char *name,
                          cuzk_err *err);
/* The file open as fd (the caller's; name for messages) checked as
 * wtns_open checks it except for the values, which are not read: the
 * caller reads n_witness x n8 bytes at values_at later and checks them
 * (groth16_values_check).  Nothing stays open: values is NULL, and
 * wtns_close is not needed (but harmless). */
cuzk_status wtns_open_fd_header(wtns_file *w, int fd, const char *name, cuzk_err *err);
void wtns_close(wtns_file *w);

/* CUZK_OK when the prime is BLS12-381's r; otherwise CUZK_UNSUPPORTED naming
 * the prime ("BN254 is not supported yet" for BN254's r). */
cuzk_status wtns_check_curve(const wtns_file *w, cuzk_err *err);

/* The 76 bytes before a BLS12-381 witness's values: the container header,
 * section 1 {n8 = 32, r, nWitness = n}, and section 2's header for n
 * 32-byte values. */
#define WTNS_BLS_HEADER_BYTES 76u
void wtns_bls_header(uint8_t h[WTNS_BLS_HEADER_BYTES], uint32_t n);

/* Value i (n8 bytes, little-endian canonical), i < n_witness. */
static inline const uint8_t *wtns_value(const wtns_file *w, uint64_t i) {
  return w->values + i * w->n8;
}

#endif
