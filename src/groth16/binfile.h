/* The iden3 binary container (docs/FORMATS.md §0) shared by .r1cs, .wtns
 * and .zkey: magic, u32 version, u32 nSections, then nSections records of
 * {u32 id, u64 size, payload}.
 *
 * DESIGN: binfile_open maps the file (it is never copied) and walks the
 * whole section table once before anything else is read.  Invariants after a
 * successful open: every section's payload lies inside the file
 * (offset + size <= file size, checked as size <= file_size - offset so that
 * no 64-bit sum can wrap), and `sections` lists them in file order; sections
 * may appear in any order and readers look them up by id.  All offsets and
 * sizes are 64-bit, so files over 4 GiB work.  Ownership: the binfile owns the
 * mapping and the section table (binfile_close releases both); every pointer
 * a reader hands out points into the mapping and lives until then.  Pointers
 * into the map are unaligned: read multi-byte values with rd_u32le /
 * limbs_from_le, never by casting.
 *
 * Error messages start with the file's path, then the section
 * ("section 9 (H)") and the offset or field, then what was expected and what
 * was found. */
#ifndef CUZK_GROTH16_BINFILE_H
#define CUZK_GROTH16_BINFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/err.h"
#include "base/mapfile.h"

/* The widest field element the readers accept (n8, fs) in bytes and limbs. */
#define BINFILE_MAX_N8 64
#define BINFILE_MAX_LIMBS (BINFILE_MAX_N8 / 8)

typedef struct {
  uint32_t id;
  uint64_t offset; /* of the payload, from the start of the file */
  uint64_t size;   /* payload bytes */
} binfile_section;

typedef struct {
  mapfile map;
  char magic[5]; /* NUL-terminated */
  uint32_t version;
  uint32_t n_sections;
  binfile_section *sections; /* n_sections entries, file order; owned */
  uint64_t end;              /* offset just past the last section */
  bool borrowed;             /* binfile_open_mem: map.data is the caller's, not unmapped */
} binfile;

/* Maps path and reads its section table.  magic (4 characters) is the
 * expected type; the version must lie in [min_version, max_version].
 * Errors: CUZK_IO (cannot open or map), CUZK_FORMAT (short header, other
 * magic, truncated table, a section running past the end of the file),
 * CUZK_UNSUPPORTED (a version outside the range), CUZK_NO_MEMORY.
 * On failure nothing stays open. */
cuzk_status binfile_open(binfile *f, const char *path, const char *magic, uint32_t min_version,
                         uint32_t max_version, cuzk_err *err);
/* The same for a file the caller opened (mapfile_open_fd: fd stays the
 * caller's); name stands for its path in messages. */
cuzk_status binfile_open_fd(binfile *f, int fd, const char *name, const char *magic,
                            uint32_t min_version, uint32_t max_version, cuzk_err *err);
/* The same over len bytes the caller owns and keeps unchanged until
 * binfile_close (which then frees only the section table); `name` stands
 * for the path in messages ("witness 0"). */
cuzk_status binfile_open_mem(binfile *f, const void *data, uint64_t len, const char *name,
                             const char *magic, uint32_t min_version, uint32_t max_version,
                             cuzk_err *err);
void binfile_close(binfile *f);

static inline const char *binfile_path(const binfile *f) { return f->map.path; }
/* CUZK_OK when the mapped file is unchanged since the open and no read of
 * it faulted (mapfile_check), else CUZK_IO naming it: what was read from
 * it may be wrong, so nothing derived from it is used.  A binfile over
 * borrowed memory always passes (its owner vouches for it). */
static inline cuzk_status binfile_check(const binfile *f, cuzk_err *err) {
  return f->borrowed ? CUZK_OK : mapfile_check(&f->map, err);
}
static inline const uint8_t *binfile_data(const binfile *f, const binfile_section *s) {
  return f->map.data + s->offset;
}

/* How many sections have this id. */
size_t binfile_count(const binfile *f, uint32_t id);

/* The section with this id, which must appear exactly once (required) or at
 * most once (!required: *out = NULL when absent).  `what` names it in
 * messages ("H").  Missing or duplicated: CUZK_FORMAT. */
cuzk_status binfile_section_get(const binfile *f, uint32_t id, const char *what, bool required,
                                const binfile_section **out, cuzk_err *err);

/* Fails with "PATH: section ID (WHAT): <message>" and returns st. */
cuzk_status binfile_fail(const binfile *f, const binfile_section *s, const char *what,
                         cuzk_err *err, cuzk_status st, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* A bounds-checked reader over one section's payload.  Each read names the
 * field it reads so that a short section produces "field nVars at offset
 * 1234 needs 4 bytes, 2 left". */
typedef struct {
  const binfile *f;
  const binfile_section *s;
  const char *what;
  uint64_t pos; /* within the payload */
} binfile_cur;

static inline void binfile_cur_init(binfile_cur *c, const binfile *f, const binfile_section *s,
                                    const char *what) {
  c->f = f;
  c->s = s;
  c->what = what;
  c->pos = 0;
}
/* *p := the next n bytes of the section. */
cuzk_status binfile_cur_take(binfile_cur *c, uint64_t n, const char *field, const uint8_t **p,
                             cuzk_err *err);
cuzk_status binfile_cur_u32(binfile_cur *c, const char *field, uint32_t *v, cuzk_err *err);
cuzk_status binfile_cur_u64(binfile_cur *c, const char *field, uint64_t *v, cuzk_err *err);
/* A field width n8 followed by a prime of n8 bytes: n8 must be a multiple of
 * 8 in [8, BINFILE_MAX_N8] (CUZK_FORMAT / CUZK_UNSUPPORTED otherwise).
 * prime receives n8/8 limbs, the rest of BINFILE_MAX_LIMBS zeroed. */
cuzk_status binfile_cur_prime(binfile_cur *c, const char *n8_field, const char *prime_field,
                              uint32_t *n8, limb_t prime[BINFILE_MAX_LIMBS], cuzk_err *err);
/* The section must end exactly where its fields ended. */
cuzk_status binfile_cur_end(binfile_cur *c, cuzk_err *err);

/* The primes the readers recognise. */
typedef enum {
  BINFILE_PRIME_UNKNOWN = 0,
  BINFILE_PRIME_BLS12_381_R, /* BLS12-381 scalar field, 32 bytes */
  BINFILE_PRIME_BLS12_381_Q, /* BLS12-381 base field, 48 bytes */
  BINFILE_PRIME_BN254_R,     /* BN254 (bn128) scalar field, 32 bytes */
  BINFILE_PRIME_BN254_Q,     /* BN254 base field, 32 bytes */
} binfile_prime;

/* Which known prime p (n8 bytes as n8/8 limbs) is; the width must match too. */
binfile_prime binfile_prime_identify(const limb_t *p, uint32_t n8);
/* "BLS12-381 r", "BN254 q", ... or "unknown". */
const char *binfile_prime_name(binfile_prime id);
/* Decimal text of an n8-byte prime into buf (at least 20*n8/8 + 1 bytes). */
void binfile_prime_dec(char *buf, const limb_t *p, uint32_t n8);

/* Is the n8-byte little-endian value at b below p?  (n8 <= BINFILE_MAX_N8) */
static inline bool binfile_lt_prime(const uint8_t *b, const limb_t *p, uint32_t n8) {
  limb_t v[BINFILE_MAX_LIMBS];
  limbs_from_le(v, b, n8 / 8);
  return limbs_lt(v, p, n8 / 8);
}

#endif
