/* A PCE matrix's values as a table of its distinct values and a 4-byte
 * code per entry, where that pays: what the GPU's resident copy of a
 * circuit keeps (cuda/pce_gpu.h), and what the engine's plan counts for
 * that copy before it is made (engine/keys.c).  One decision for both, so
 * that the plan's figure is the copy's.
 *
 * DESIGN: codes PCE_CODE_ONE and PCE_CODE_MINUS_ONE stand for +1 and -1
 * (summed without a product), PCE_CODE_TAB + i for tab[i].  A table pays
 * while it and the codes are smaller than the values (32 bytes an entry):
 * at most one distinct value other than +-1 in PCE_TABLE_SHARE entries,
 * and at most PCE_TABLE_MAX of them (a bound on the hash sets).  Real and
 * generated circuits have a few hundred (+-1, powers of two, a hash's
 * constants).  Values are compared as stored (Montgomery form, the PCE's
 * bytes).  The build runs on par_run's workers: each numbers the distinct
 * values of its range of entries in an open-addressed set, the sets are
 * merged in worker order, and the codes renumbered; a set lookup that
 * probes more than 64 slots gives up as a full set does, so values made to
 * collide cost a fallback to whole values, never quadratic time. */
#ifndef CUZK_GROTH16_PCE_TABLES_H
#define CUZK_GROTH16_PCE_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCE_CODE_ONE 0u
#define PCE_CODE_MINUS_ONE 1u
#define PCE_CODE_TAB 2u
#define PCE_TABLE_SHARE 4
#define PCE_TABLE_MAX ((size_t)1 << 22)

/* Whether val[0..nnz) (32-byte Fr elements in Montgomery form, as the PCE
 * stores them: bls12_381_fr) are kept as a table: true with *ntab its size
 * (the distinct values other than +-1) and, when code is not NULL, *code
 * (nnz words) and *tab (*ntab values, in first-seen order over the
 * workers' ranges; NULL when *ntab is 0), both malloc'd for the caller.  False when the values do not pay for a
 * table (above), for nnz = 0, or when memory runs out: the values stay
 * whole.  With code NULL only the count is made (no codes, no table). */
bool pce_table_build(const void *val, size_t nnz, uint32_t **code, void **tab, size_t *ntab);

/* Bytes a resident copy keeps for a matrix's nnz values: 4-byte codes and
 * a table of ntab values, or (ntab = SIZE_MAX: no table) the values whole. */
static inline size_t pce_values_bytes(size_t nnz, size_t ntab) {
  return ntab == SIZE_MAX ? 32 * nnz : 4 * nnz + 32 * ntab;
}

#ifdef __cplusplus
}
#endif
#endif
