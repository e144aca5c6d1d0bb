#include "base/bytes.h"

/* r = r*m + add; returns the carry out of the top limb. */
static limb_t limbs_mul_small_add(limb_t *r, size_t n, limb_t m, limb_t add) {
  unsigned __int128 c = add;
  for (size_t i = 0; i < n; i++) {
    c += (unsigned __int128)r[i] * m;
    r[i] = (limb_t)c;
    c >>= 64;
  }
  return (limb_t)c;
}

bool limbs_from_dec(limb_t *r, size_t n, const char *s, size_t len) {
  memset(r, 0, n * sizeof *r);
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    if (limbs_mul_small_add(r, n, 10, (limb_t)(s[i] - '0')) != 0)
      return false;
  }
  return true;
}

bool limbs_from_hex(limb_t *r, size_t n, const char *s, size_t len) {
  memset(r, 0, n * sizeof *r);
  if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s += 2;
    len -= 2;
  }
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++) {
    char ch = s[i];
    limb_t d;
    if (ch >= '0' && ch <= '9') d = (limb_t)(ch - '0');
    else if (ch >= 'a' && ch <= 'f') d = (limb_t)(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F') d = (limb_t)(ch - 'A' + 10);
    else return false;
    if (limbs_mul_small_add(r, n, 16, d) != 0)
      return false;
  }
  return true;
}

size_t limbs_to_dec(char *out, const limb_t *a, size_t n) {
  limb_t t[16];
  char tmp[20 * 16 + 1];
  size_t len = 0;
  memcpy(t, a, n * sizeof *t);
  do {
    /* t /= 10^19, collecting the remainder as 19 digits. */
    const limb_t d = 10000000000000000000ULL;
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
      unsigned __int128 cur = rem << 64 | t[i];
      t[i] = (limb_t)(cur / d);
      rem = cur % d;
    }
    limb_t chunk = (limb_t)rem;
    bool last = limbs_is_zero(t, n);
    for (int k = 0; k < 19 && (!last || chunk != 0 || k == 0); k++) {
      tmp[len++] = (char)('0' + chunk % 10);
      chunk /= 10;
      if (last && chunk == 0)
        break;
    }
  } while (!limbs_is_zero(t, n));
  for (size_t i = 0; i < len; i++) out[i] = tmp[len - 1 - i];
  out[len] = 0;
  return len;
}
