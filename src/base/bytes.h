/* Byte order and big-integer helpers (little-endian 64-bit limbs). */
#ifndef CUZK_BASE_BYTES_H
#define CUZK_BASE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t limb_t;

static inline uint32_t rd_u32le(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd_u64le(const uint8_t *p) {
  return (uint64_t)rd_u32le(p) | (uint64_t)rd_u32le(p + 4) << 32;
}
static inline uint32_t rd_u32be(const uint8_t *p) {
  return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}
static inline void wr_u32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void wr_u64le(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void wr_u32be(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[3 - i] = (uint8_t)(v >> (8 * i));
}

/* n limbs <-> 8n bytes, little-endian. */
static inline void limbs_from_le(limb_t *r, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) r[i] = rd_u64le(b + 8 * i);
}
static inline void limbs_to_le(uint8_t *b, const limb_t *a, size_t n) {
  for (size_t i = 0; i < n; i++) wr_u64le(b + 8 * i, a[i]);
}
/* n limbs <-> 8n bytes, big-endian (the zcash encoding's order). */
static inline void limbs_from_be(limb_t *r, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) r[n - 1 - i] = __builtin_bswap64(rd_u64le(b + 8 * i));
}
static inline void limbs_to_be(uint8_t *b, const limb_t *a, size_t n) {
  for (size_t i = 0; i < n; i++) wr_u64le(b + 8 * i, __builtin_bswap64(a[n - 1 - i]));
}

/* a < b as n-limb integers. */
static inline bool limbs_lt(const limb_t *a, const limb_t *b, size_t n) {
  for (size_t i = n; i-- > 0;)
    if (a[i] != b[i])
      return a[i] < b[i];
  return false;
}
static inline bool limbs_is_zero(const limb_t *a, size_t n) {
  limb_t acc = 0;
  for (size_t i = 0; i < n; i++) acc |= a[i];
  return acc == 0;
}

/* Decimal text <-> n-limb integers.  from_dec parses [0-9]+ (no sign, no
 * spaces) and fails on overflow of n limbs or any other character.  to_dec
 * writes a NUL-terminated string into out (needs 20n+1 bytes) and returns
 * its length. */
bool limbs_from_dec(limb_t *r, size_t n, const char *s, size_t len);
size_t limbs_to_dec(char *out, const limb_t *a, size_t n);
/* Hex (big-endian text, optional 0x) -> n limbs; false on overflow/bad char. */
bool limbs_from_hex(limb_t *r, size_t n, const char *s, size_t len);

#endif
