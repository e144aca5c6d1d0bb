/* The iden3 binary container: see binfile.h for the invariants. */
#include "groth16/binfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ff/bls12_381.h"

typedef unsigned long long ull;

/* Printable form of a 4-byte magic: "wtns", or hex when not printable. */
static void magic_text(char out[16], const uint8_t *m) {
  bool printable = true;
  for (int i = 0; i < 4; i++)
    if (m[i] < 0x20 || m[i] > 0x7e)
      printable = false;
  if (printable)
    snprintf(out, 16, "\"%c%c%c%c\"", m[0], m[1], m[2], m[3]);
  else
    snprintf(out, 16, "0x%02x%02x%02x%02x", m[0], m[1], m[2], m[3]);
}

/* Walks the section table.  With out == NULL it only validates and counts;
 * otherwise it fills out[0..n).  Each record advances pos by at least 12
 * bytes, so a hostile nSections stops at the end of the file, not after 2^32
 * iterations. */
static cuzk_status walk_table(const binfile *f, uint32_t n, binfile_section *out, uint64_t *end,
                              cuzk_err *err) {
  const uint8_t *d = f->map.data;
  const uint64_t size = f->map.size;
  uint64_t pos = 12;
  for (uint32_t i = 0; i < n; i++) {
    if (size - pos < 12)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: section table: entry %u of %u at offset %llu needs a 12-byte "
                          "header {u32 id, u64 size}, only %llu bytes left (truncated file?)",
                          f->map.path, i, n, (ull)pos, (ull)(size - pos));
    uint32_t id = rd_u32le(d + pos);
    uint64_t sz = rd_u64le(d + pos + 4);
    uint64_t off = pos + 12;
    /* off <= size here, so size - off cannot wrap; off + sz cannot either
     * once sz <= size - off. */
    if (sz > size - off)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: section %u (table entry %u of %u) at offset %llu: size %llu "
                          "bytes runs past the end of the file (%llu bytes left)",
                          f->map.path, id, i, n, (ull)off, (ull)sz, (ull)(size - off));
    if (out)
      out[i] = (binfile_section){.id = id, .offset = off, .size = sz};
    pos = off + sz;
  }
  *end = pos;
  return CUZK_OK;
}

/* Header and section table of f->map (mapped or borrowed). */
static cuzk_status parse_table(binfile *f, const char *magic, uint32_t min_version,
                               uint32_t max_version, cuzk_err *err) {
  const uint8_t *d = f->map.data;
  const uint64_t size = f->map.size;
  cuzk_status st = CUZK_OK;
  if (size < 12) {
    st = cuzk_err_set(err, CUZK_FORMAT,
                      "%s: file is %llu bytes, too short for the 12-byte header "
                      "(magic, u32 version, u32 nSections)",
                      f->map.path, (ull)size);
    goto fail;
  }
  memcpy(f->magic, d, 4);
  f->magic[4] = 0;
  if (magic && memcmp(d, magic, 4) != 0) {
    char found[16];
    magic_text(found, d);
    st = cuzk_err_set(err, CUZK_FORMAT, "%s: magic %s at offset 0, expected \"%.4s\" (not a .%.4s file)",
                      f->map.path, found, magic, magic);
    goto fail;
  }
  f->version = rd_u32le(d + 4);
  if (f->version < min_version || f->version > max_version) {
    if (min_version == max_version)
      st = cuzk_err_set(err, CUZK_UNSUPPORTED, "%s: %s version %u at offset 4, expected %u",
                        f->map.path, f->magic, f->version, min_version);
    else
      st = cuzk_err_set(err, CUZK_UNSUPPORTED, "%s: %s version %u at offset 4, expected %u to %u",
                        f->map.path, f->magic, f->version, min_version, max_version);
    goto fail;
  }
  uint32_t n = rd_u32le(d + 8);
  if ((st = walk_table(f, n, NULL, &f->end, err)) != CUZK_OK)
    goto fail;
  if (n > 0) {
    /* n <= (size - 12) / 12 now: the walk succeeded. */
    f->sections = malloc((size_t)n * sizeof *f->sections);
    if (!f->sections) {
      st = cuzk_err_set(err, CUZK_NO_MEMORY, "%s: section table of %u entries", f->map.path, n);
      goto fail;
    }
    if ((st = walk_table(f, n, f->sections, &f->end, err)) != CUZK_OK)
      goto fail;
  }
  f->n_sections = n;
  return CUZK_OK;
fail:
  binfile_close(f);
  return st;
}

cuzk_status binfile_open(binfile *f, const char *path, const char *magic, uint32_t min_version,
                         uint32_t max_version, cuzk_err *err) {
  memset(f, 0, sizeof *f);
  CUZK_TRY(mapfile_open(&f->map, path, err));
  return parse_table(f, magic, min_version, max_version, err);
}

cuzk_status binfile_open_fd(binfile *f, int fd, const char *name, const char *magic,
                            uint32_t min_version, uint32_t max_version, cuzk_err *err) {
  memset(f, 0, sizeof *f);
  CUZK_TRY(mapfile_open_fd(&f->map, fd, name, err));
  return parse_table(f, magic, min_version, max_version, err);
}

cuzk_status binfile_open_mem(binfile *f, const void *data, uint64_t len, const char *name,
                             const char *magic, uint32_t min_version, uint32_t max_version,
                             cuzk_err *err) {
  memset(f, 0, sizeof *f);
  f->borrowed = true;
  f->map.data = len ? data : NULL;
  f->map.size = len;
  snprintf(f->map.path, sizeof f->map.path, "%s", name);
  return parse_table(f, magic, min_version, max_version, err);
}

void binfile_close(binfile *f) {
  free(f->sections);
  f->sections = NULL;
  f->n_sections = 0;
  if (f->borrowed)
    f->map.data = NULL, f->map.size = 0;
  else
    mapfile_close(&f->map);
}

size_t binfile_count(const binfile *f, uint32_t id) {
  size_t k = 0;
  for (uint32_t i = 0; i < f->n_sections; i++)
    k += f->sections[i].id == id;
  return k;
}

cuzk_status binfile_section_get(const binfile *f, uint32_t id, const char *what, bool required,
                                const binfile_section **out, cuzk_err *err) {
  const binfile_section *first = NULL;
  *out = NULL;
  for (uint32_t i = 0; i < f->n_sections; i++) {
    const binfile_section *s = &f->sections[i];
    if (s->id != id)
      continue;
    if (first)
      return cuzk_err_set(err, CUZK_FORMAT,
                          "%s: section %u (%s) appears %zu times (payloads at offsets %llu and "
                          "%llu), expected exactly once",
                          f->map.path, id, what, binfile_count(f, id), (ull)first->offset,
                          (ull)s->offset);
    first = s;
  }
  if (!first && required)
    return cuzk_err_set(err, CUZK_FORMAT, "%s: section %u (%s) is missing (the file has %u sections)",
                        f->map.path, id, what, f->n_sections);
  *out = first;
  return CUZK_OK;
}

cuzk_status binfile_fail(const binfile *f, const binfile_section *s, const char *what,
                         cuzk_err *err, cuzk_status st, const char *fmt, ...) {
  char msg[CUZK_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cuzk_err_set(err, st, "%s: section %u (%s): %s", f->map.path, s->id, what, msg);
}

cuzk_status binfile_cur_take(binfile_cur *c, uint64_t n, const char *field, const uint8_t **p,
                             cuzk_err *err) {
  uint64_t left = c->s->size - c->pos; /* pos <= size always */
  if (n > left)
    return binfile_fail(c->f, c->s, c->what, err, CUZK_FORMAT,
                        "field %s at offset %llu needs %llu bytes, the section (size %llu) has "
                        "only %llu left",
                        field, (ull)(c->s->offset + c->pos), (ull)n, (ull)c->s->size, (ull)left);
  *p = binfile_data(c->f, c->s) + c->pos;
  c->pos += n;
  return CUZK_OK;
}

cuzk_status binfile_cur_u32(binfile_cur *c, const char *field, uint32_t *v, cuzk_err *err) {
  const uint8_t *p = NULL;
  CUZK_TRY(binfile_cur_take(c, 4, field, &p, err));
  *v = rd_u32le(p);
  return CUZK_OK;
}

cuzk_status binfile_cur_u64(binfile_cur *c, const char *field, uint64_t *v, cuzk_err *err) {
  const uint8_t *p = NULL;
  CUZK_TRY(binfile_cur_take(c, 8, field, &p, err));
  *v = rd_u64le(p);
  return CUZK_OK;
}

cuzk_status binfile_cur_prime(binfile_cur *c, const char *n8_field, const char *prime_field,
                              uint32_t *n8, limb_t prime[BINFILE_MAX_LIMBS], cuzk_err *err) {
  uint64_t at = c->s->offset + c->pos;
  CUZK_TRY(binfile_cur_u32(c, n8_field, n8, err));
  if (*n8 == 0 || *n8 % 8 != 0)
    return binfile_fail(c->f, c->s, c->what, err, CUZK_FORMAT,
                        "%s = %u at offset %llu, expected a positive multiple of 8 (bytes per "
                        "field element)",
                        n8_field, *n8, (ull)at);
  if (*n8 > BINFILE_MAX_N8)
    return binfile_fail(c->f, c->s, c->what, err, CUZK_UNSUPPORTED,
                        "%s = %u at offset %llu: fields wider than %d bytes are not supported",
                        n8_field, *n8, (ull)at, BINFILE_MAX_N8);
  const uint8_t *p = NULL;
  CUZK_TRY(binfile_cur_take(c, *n8, prime_field, &p, err));
  memset(prime, 0, BINFILE_MAX_LIMBS * sizeof(limb_t));
  limbs_from_le(prime, p, *n8 / 8);
  return CUZK_OK;
}

cuzk_status binfile_cur_end(binfile_cur *c, cuzk_err *err) {
  if (c->pos != c->s->size)
    return binfile_fail(c->f, c->s, c->what, err, CUZK_FORMAT,
                        "size %llu bytes, expected %llu (its fields end at offset %llu; %llu "
                        "unexpected trailing bytes)",
                        (ull)c->s->size, (ull)c->pos, (ull)(c->s->offset + c->pos),
                        (ull)(c->s->size - c->pos));
  return CUZK_OK;
}

/* ------------------------------------------------------------- primes */

static const limb_t bn254_r[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                  0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const limb_t bn254_q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                  0xb85045b68181585dULL, 0x30644e72e131a029ULL};

binfile_prime binfile_prime_identify(const limb_t *p, uint32_t n8) {
  if (n8 == 32 && !memcmp(p, bls12_381_fr_modulus, 32))
    return BINFILE_PRIME_BLS12_381_R;
  if (n8 == 48 && !memcmp(p, bls12_381_fp_modulus, 48))
    return BINFILE_PRIME_BLS12_381_Q;
  if (n8 == 32 && !memcmp(p, bn254_r, 32))
    return BINFILE_PRIME_BN254_R;
  if (n8 == 32 && !memcmp(p, bn254_q, 32))
    return BINFILE_PRIME_BN254_Q;
  return BINFILE_PRIME_UNKNOWN;
}

const char *binfile_prime_name(binfile_prime id) {
  switch (id) {
  case BINFILE_PRIME_BLS12_381_R: return "BLS12-381 r";
  case BINFILE_PRIME_BLS12_381_Q: return "BLS12-381 q";
  case BINFILE_PRIME_BN254_R: return "BN254 r";
  case BINFILE_PRIME_BN254_Q: return "BN254 q";
  default: return "unknown";
  }
}

void binfile_prime_dec(char *buf, const limb_t *p, uint32_t n8) {
  limbs_to_dec(buf, p, n8 / 8);
}
