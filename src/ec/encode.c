/* zcash / IETF point encodings for BLS12-381: see encode.h.
 *
 * DESIGN: the flag handling and the decoding steps are written once, in
 * enc_compress / enc_decompress / enc_write_uncompressed /
 * enc_read_uncompressed, over a small table (enc_group) that binds one group:
 * its coordinate codec (one Fp for G1; c1 then c0 for G2), y = sqrt(x^3 + b),
 * the sort-flag test and the curve checks.  G2 is G1's code over Fp2, as the
 * arithmetic is (ec/ec_tmpl.h).  Points travel through the core as void *
 * to the affine struct (x at offset 0, y at y_offset); each table entry
 * casts back to its own type. */
#include "ec/encode.h"

#include <stddef.h>
#include <string.h>

#include "base/bytes.h"

/* ------------------------------------------------------------ Fp <-> bytes */

void bls12_381_fp_to_be(uint8_t out[BLS12_381_FP_BYTES], const bls12_381_fp *a) {
  limb_t c[6];
  bls12_381_fp_to_canon(c, a);
  limbs_to_be(out, c, 6);
}

bool bls12_381_fp_from_be(bls12_381_fp *r, const uint8_t in[BLS12_381_FP_BYTES]) {
  limb_t c[6];
  limbs_from_be(c, in, 6);
  if (!bls12_381_fp_canon_ok(c))
    return false;
  bls12_381_fp_from_canon(r, c);
  return true;
}

/* ------------------------------------------------------------ group tables */

typedef struct {
  const char *name;  /* "G1" / "G2", for messages */
  size_t fe_bytes;   /* one coordinate: 48 (Fp) or 96 (Fp2) */
  size_t y_offset;   /* offsetof(aff, y) */
  /* Writes coordinate a as fe_bytes; reads it back, returning the name of
   * the first component >= p ("x", "x.c1", ...) or NULL when canonical. */
  void (*fe_write)(uint8_t *out, const void *a);
  const char *(*fe_read)(void *r, const uint8_t *in, char coord);
  /* y = sqrt(x^3 + b); false when x^3 + b is not a square. */
  bool (*y_from_x)(void *y, const void *x);
  bool (*lex_largest)(const void *y);
  void (*neg)(void *r, const void *a);
  void (*set_inf)(void *p);
  bool (*is_inf)(const void *p);
  bool (*on_curve)(const void *p);
  bool (*in_subgroup)(const void *p);
} enc_group;

/* G1: coordinates in Fp. */
static void g1_fe_write(uint8_t *out, const void *a) { bls12_381_fp_to_be(out, a); }
static const char *g1_fe_read(void *r, const uint8_t *in, char coord) {
  static const char *const names[2] = {"x", "y"};
  return bls12_381_fp_from_be(r, in) ? NULL : names[coord == 'y'];
}
static bool g1_y_from_x(void *y, const void *xv) {
  const bls12_381_fp *x = xv;
  bls12_381_fp t;
  bls12_381_fp_sqr(&t, x);               /* x^2 */
  bls12_381_fp_mul(&t, &t, x);           /* x^3 */
  bls12_381_fp_add(&t, &t, &bls12_381_g1_b); /* x^3 + 4 */
  return bls12_381_fp_sqrt(y, &t);
}
static bool g1_lex_largest(const void *y) { return bls12_381_fp_is_lex_largest(y); }
static void g1_neg(void *r, const void *a) { bls12_381_fp_neg(r, a); }
static void g1_set_inf(void *p) { bls12_381_g1_aff_set_inf(p); }
static bool g1_is_inf(const void *p) { return bls12_381_g1_aff_is_inf(p); }
static bool g1_on_curve(const void *p) { return bls12_381_g1_aff_is_on_curve(p); }
static bool g1_in_subgroup(const void *p) { return bls12_381_g1_aff_in_subgroup(p); }

static const enc_group enc_g1 = {
    "G1", 48, offsetof(bls12_381_g1_aff, y), g1_fe_write, g1_fe_read, g1_y_from_x,
    g1_lex_largest, g1_neg, g1_set_inf, g1_is_inf, g1_on_curve, g1_in_subgroup};

/* G2: coordinates in Fp2, written c1 then c0. */
static void g2_fe_write(uint8_t *out, const void *av) {
  const bls12_381_fp2 *a = av;
  bls12_381_fp_to_be(out, &a->c1);
  bls12_381_fp_to_be(out + 48, &a->c0);
}
static const char *g2_fe_read(void *rv, const uint8_t *in, char coord) {
  bls12_381_fp2 *r = rv;
  bool y = coord == 'y';
  if (!bls12_381_fp_from_be(&r->c1, in))
    return y ? "y.c1" : "x.c1";
  if (!bls12_381_fp_from_be(&r->c0, in + 48))
    return y ? "y.c0" : "x.c0";
  return NULL;
}
static bool g2_y_from_x(void *y, const void *xv) {
  const bls12_381_fp2 *x = xv;
  bls12_381_fp2 t;
  bls12_381_fp2_sqr(&t, x);                  /* x^2 */
  bls12_381_fp2_mul(&t, &t, x);              /* x^3 */
  bls12_381_fp2_add(&t, &t, &bls12_381_g2_b); /* x^3 + 4(1 + u) */
  return bls12_381_fp2_sqrt(y, &t);
}
static bool g2_lex_largest(const void *y) { return bls12_381_fp2_is_lex_largest(y); }
static void g2_neg(void *r, const void *a) { bls12_381_fp2_neg(r, a); }
static void g2_set_inf(void *p) { bls12_381_g2_aff_set_inf(p); }
static bool g2_is_inf(const void *p) { return bls12_381_g2_aff_is_inf(p); }
static bool g2_on_curve(const void *p) { return bls12_381_g2_aff_is_on_curve(p); }
static bool g2_in_subgroup(const void *p) { return bls12_381_g2_aff_in_subgroup(p); }

static const enc_group enc_g2 = {
    "G2", 96, offsetof(bls12_381_g2_aff, y), g2_fe_write, g2_fe_read, g2_y_from_x,
    g2_lex_largest, g2_neg, g2_set_inf, g2_is_inf, g2_on_curve, g2_in_subgroup};

/* ------------------------------------------------------------ the core */

static void *y_of(const enc_group *g, void *p) { return (uint8_t *)p + g->y_offset; }
static const void *cy_of(const enc_group *g, const void *p) {
  return (const uint8_t *)p + g->y_offset;
}

/* Are bytes 1..n-1 zero and byte 0 free of every bit but the three flags? */
static bool rest_is_zero(const uint8_t *in, size_t n) {
  uint8_t acc = in[0] & 0x1f;
  for (size_t i = 1; i < n; i++) acc |= in[i];
  return acc == 0;
}

static void enc_compress(const enc_group *g, uint8_t *out, const void *p) {
  if (g->is_inf(p)) {
    memset(out, 0, g->fe_bytes);
    out[0] = BLS12_381_ENC_COMPRESSED | BLS12_381_ENC_INFINITY;
    return;
  }
  g->fe_write(out, p); /* x; p < 2^381 leaves the top three bits clear */
  out[0] |= BLS12_381_ENC_COMPRESSED;
  if (g->lex_largest(cy_of(g, p)))
    out[0] |= BLS12_381_ENC_SORT;
}

static void enc_write_uncompressed(const enc_group *g, uint8_t *out, const void *p) {
  if (g->is_inf(p)) {
    memset(out, 0, 2 * g->fe_bytes);
    out[0] = BLS12_381_ENC_INFINITY;
    return;
  }
  g->fe_write(out, p);
  g->fe_write(out + g->fe_bytes, cy_of(g, p));
}

/* The subgroup test shared by both decoders (on-curve already holds). */
static cuzk_status enc_check_subgroup(const enc_group *g, const void *p, const char *form,
                                      cuzk_err *err) {
  if (!g->in_subgroup(p))
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: not in the subgroup", form, g->name);
  return CUZK_OK;
}

/* Compressed: flags, x < p, y = +-sqrt(x^3 + b) chosen by the sort flag. */
static cuzk_status enc_decompress(const enc_group *g, void *p, const uint8_t *in, bool check,
                                  cuzk_err *err) {
  static const char form[] = "compressed";
  uint8_t flags = in[0];
  if (!(flags & BLS12_381_ENC_COMPRESSED))
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: compression flag (0x80) not set", form,
                        g->name);
  if (flags & BLS12_381_ENC_INFINITY) {
    if ((flags & BLS12_381_ENC_SORT) || !rest_is_zero(in, g->fe_bytes))
      return cuzk_err_set(err, CUZK_FORMAT, "%s %s: infinity flag set but other bits non-zero",
                          form, g->name);
    g->set_inf(p);
    return CUZK_OK;
  }
  uint8_t buf[96];
  memcpy(buf, in, g->fe_bytes);
  buf[0] &= 0x1f;
  const char *bad = g->fe_read(p, buf, 'x');
  if (bad)
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: %s >= p", form, g->name, bad);
  void *y = y_of(g, p);
  if (!g->y_from_x(y, p))
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s %s: no square root: x is not the abscissa of a curve point", form,
                        g->name);
  /* Of the two roots y and -y, the sort flag names the larger one.  (y = 0
   * would need a point of order 2; neither group has one.) */
  if (g->lex_largest(y) != ((flags & BLS12_381_ENC_SORT) != 0))
    g->neg(y, y);
  return check ? enc_check_subgroup(g, p, form, err) : CUZK_OK;
}

/* Uncompressed: flags, x and y < p, then (check) on the curve and in the
 * subgroup. */
static cuzk_status enc_read_uncompressed(const enc_group *g, void *p, const uint8_t *in,
                                         bool check, cuzk_err *err) {
  static const char form[] = "uncompressed";
  uint8_t flags = in[0];
  if (flags & BLS12_381_ENC_COMPRESSED)
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: compression flag (0x80) set", form, g->name);
  if (flags & BLS12_381_ENC_INFINITY) {
    if ((flags & BLS12_381_ENC_SORT) || !rest_is_zero(in, 2 * g->fe_bytes))
      return cuzk_err_set(err, CUZK_FORMAT, "%s %s: infinity flag set but other bits non-zero",
                          form, g->name);
    g->set_inf(p);
    return CUZK_OK;
  }
  if (flags & BLS12_381_ENC_SORT)
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: sort flag (0x20) set", form, g->name);
  const char *bad = g->fe_read(p, in, 'x');
  if (!bad)
    bad = g->fe_read(y_of(g, p), in + g->fe_bytes, 'y');
  if (bad)
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: %s >= p", form, g->name, bad);
  /* x = y = 0 would read back as infinity; it is not a curve point (b != 0),
   * so it is refused whatever `check` says. */
  if (g->is_inf(p) || (check && !g->on_curve(p)))
    return cuzk_err_set(err, CUZK_FORMAT, "%s %s: not on the curve", form, g->name);
  return check ? enc_check_subgroup(g, p, form, err) : CUZK_OK;
}

/* ------------------------------------------------------------ public entry points */

void bls12_381_g1_encode_compressed(uint8_t out[BLS12_381_G1_COMPRESSED_BYTES],
                                    const bls12_381_g1_aff *p) {
  enc_compress(&enc_g1, out, p);
}
void bls12_381_g1_encode_uncompressed(uint8_t out[BLS12_381_G1_UNCOMPRESSED_BYTES],
                                      const bls12_381_g1_aff *p) {
  enc_write_uncompressed(&enc_g1, out, p);
}
void bls12_381_g2_encode_compressed(uint8_t out[BLS12_381_G2_COMPRESSED_BYTES],
                                    const bls12_381_g2_aff *p) {
  enc_compress(&enc_g2, out, p);
}
void bls12_381_g2_encode_uncompressed(uint8_t out[BLS12_381_G2_UNCOMPRESSED_BYTES],
                                      const bls12_381_g2_aff *p) {
  enc_write_uncompressed(&enc_g2, out, p);
}

cuzk_status bls12_381_g1_decode_compressed(bls12_381_g1_aff *p,
                                           const uint8_t in[BLS12_381_G1_COMPRESSED_BYTES],
                                           bool check, cuzk_err *err) {
  return enc_decompress(&enc_g1, p, in, check, err);
}
cuzk_status bls12_381_g1_decode_uncompressed(bls12_381_g1_aff *p,
                                             const uint8_t in[BLS12_381_G1_UNCOMPRESSED_BYTES],
                                             bool check, cuzk_err *err) {
  return enc_read_uncompressed(&enc_g1, p, in, check, err);
}
cuzk_status bls12_381_g2_decode_compressed(bls12_381_g2_aff *p,
                                           const uint8_t in[BLS12_381_G2_COMPRESSED_BYTES],
                                           bool check, cuzk_err *err) {
  return enc_decompress(&enc_g2, p, in, check, err);
}
cuzk_status bls12_381_g2_decode_uncompressed(bls12_381_g2_aff *p,
                                             const uint8_t in[BLS12_381_G2_UNCOMPRESSED_BYTES],
                                             bool check, cuzk_err *err) {
  return enc_read_uncompressed(&enc_g2, p, in, check, err);
}
