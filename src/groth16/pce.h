/* Curio cuzk's pre-compiled constraint file (PCE `.bin`, docs/FORMATS.md
 * "PCE"): a circuit's R1CS as three CSR matrices over the unified column
 * space [inputs | aux] (column 0 = ONE), plus the density bitmaps the
 * Groth16 MSMs use.
 *
 * DESIGN
 * pce_parse / pce_open check the whole file before returning, in two
 * passes.  Structure, while reading: magic, version, each u64 count
 * checked against the bytes left before anything is allocated, the fixed
 * counts (row_ptrs = num_constraints + 1, vals = cols, density words =
 * ceil(bit_len / 64)), no trailing bytes.  Content, in parallel over rows
 * (par_run): row_ptrs start at 0, never decrease and end at the matrix's
 * nnz; columns < num_inputs + num_aux and strictly ascending within a row;
 * vals below r as Montgomery limbs and non-zero; total_nnz the sum of the
 * three; the num_inputs dummy rows at the end (row c + i: A = [(i, ONE)],
 * B and C empty); each bitmap's bit_len (num_aux, num_inputs, num_aux),
 * zero padding bits, popcount, and the bits themselves equal to what the
 * matrices give (a_aux bit j iff aux column j has a term in A; b_input and
 * b_aux likewise for B).  The first failure, by file order, is reported:
 * "NAME: A.cols[K] at byte OFF: ..." with what was expected.
 *
 * Ownership: a pce_file owns every array; pce_close frees them (safe on a
 * zeroed or failed file).  The layout on disk is the in-memory layout of
 * these arrays on a little-endian host, so reads and writes are bulk. */
#ifndef CUZK_GROTH16_PCE_H
#define CUZK_GROTH16_PCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/mapfile.h"
#include "base/stop.h"
#include "ff/bls12_381.h"

#define PCE_MAGIC "PCE\x02"
#define PCE_VERSION 2u
#define PCE_HEADER_BYTES 32u

typedef struct {
  uint64_t nrows;
  uint32_t *row_ptr; /* nrows + 1 */
  uint64_t nnz;
  uint32_t *col;
  bls12_381_fr *val; /* Montgomery, as on disk */
} pce_csr;

typedef struct {
  uint64_t *words;
  uint64_t nwords, bit_len, popcount;
} pce_density;

typedef struct {
  uint32_t num_inputs, num_aux, num_constraints; /* constraints include the num_inputs dummy rows */
  uint64_t total_nnz;
  pce_csr a, b, c;
  pce_density a_aux, b_input, b_aux;
  uint32_t reserved; /* header bytes 28..31: written 0, not checked */
} pce_file;

/* Whether len bytes at p start with the PCE magic (for `cuzk info`). */
bool pce_is_pce(const void *p, size_t len);

/* Parses n bytes at p (copied into owned memory); name stands for the path
 * in messages.  Errors: CUZK_FORMAT (any check above), CUZK_UNSUPPORTED (a
 * version other than 2), CUZK_NO_MEMORY. */
cuzk_status pce_parse(pce_file *f, const uint8_t *p, size_t n, const char *name, cuzk_err *err);
/* Reads the file path into owned memory in large chunks and checks it as
 * pce_parse does; also CUZK_IO. */
cuzk_status pce_open(pce_file *f, const char *path, cuzk_err *err);
/* The header alone (counts only, no arrays: pce_close is not needed),
 * checked as pce_open checks it, and the densities' bit_len and popcount
 * as the file's last records hold them (unchecked, at most bit_len: for
 * planning memory only; pce_open checks them): what a key's registration
 * reads of a file that may be tens of GB.  Errors as pce_open's. */
cuzk_status pce_read_header(pce_file *f, const char *path, cuzk_err *err);
/* The checks of the content pass on an in-memory file (e.g. one built by
 * the generator); name for messages, offsets as the file would have them. */
cuzk_status pce_validate(const pce_file *f, const char *name, cuzk_err *err);
/* Writes f to path (fileio_out: a temporary renamed over path). */
cuzk_status pce_write(const pce_file *f, const char *path, cuzk_err *err);
/* The file's bytes into a malloc'd buffer (*out, *len): what pce_write writes. */
cuzk_status pce_serialize(const pce_file *f, uint8_t **out, size_t *len, cuzk_err *err);
/* Bytes pce_write writes for f. */
uint64_t pce_file_bytes(const pce_file *f);
void pce_close(pce_file *f);

/* a = A.w, b = B.w, c = C.w over all num_constraints rows; w holds
 * num_inputs + num_aux values in Montgomery form, w[0] = ONE.  On
 * `threads` par_run workers (0: par_threads(); one for a small circuit);
 * stop may be NULL (base/stop.h): CUZK_CANCELLED. */
cuzk_status pce_eval(const pce_file *f, const bls12_381_fr *w, bls12_381_fr *a, bls12_381_fr *b,
                     bls12_381_fr *c, unsigned threads, const cuzk_stop *stop, cuzk_err *err);
/* CUZK_OK when (A.w)(B.w) = C.w on every row; else CUZK_UNSATISFIED naming
 * the first failing row (*bad_row set when not NULL; UINT64_MAX if none). */
cuzk_status pce_check(const pce_file *f, const bls12_381_fr *w, uint64_t *bad_row,
                      const cuzk_stop *stop, cuzk_err *err);

/* The value tables the GPU's resident copy of f would keep
 * (groth16/pce_tables.h), for planning its device memory: ntab[k] the
 * table size of matrix k (A, B, C) or SIZE_MAX where its values stay
 * whole, nnz[k] its entries.  From f's arrays when f is not NULL, else
 * from the file at path, mapped, its value arrays located by its counts
 * (CUZK_FORMAT naming the offset where they do not fit the file; the full
 * checks are pce_open's) and *id set to the file's identity (CUZK_IO when
 * it changed while read). */
cuzk_status pce_table_sizes(const pce_file *f, const char *path, size_t ntab[3], uint64_t nnz[3],
                            file_ident *id, cuzk_err *err);

bool pce_density_get(const pce_density *d, uint64_t i);
/* The bitmaps the matrices give (Curio's semantics, above) into f's three
 * densities, allocated here (replacing nothing: call on zeroed fields). */
cuzk_status pce_density_compute(pce_file *f, cuzk_err *err);

/* The smallest power of two >= num_constraints, as log2. */
unsigned pce_domain_lg(const pce_file *f);

#endif
