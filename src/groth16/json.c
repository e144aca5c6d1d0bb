/* snarkjs JSON for Groth16 / BLS12-381: see json.h for the format rules.
 *
 * DESIGN: the writers do not use cJSON (its printer indents with tabs); they
 * emit bfj's layout through a tiny structural writer (jw_*) over a growable
 * buffer, so the same code yields the file and the string.  The readers
 * parse with cJSON and walk the tree with helpers that carry the JSON path
 * for error messages ("pi_b[1][0]"); arrays are walked by their linked
 * lists, never by index, so a long IC or public.json stays linear.  The
 * error position comes from ParseWithLengthOpts's return_parse_end, never
 * from cJSON_GetErrorPtr (cJSON's one global, which it still writes on a
 * failed parse; nothing here reads it). */
#include "groth16/json.h"

#include "base/fileio.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FP_DEC_MAX (20 * 6 + 1) /* limbs_to_dec's bound for 6 limbs */

/* ================================================================ writer */

typedef struct {
  char *buf;
  size_t len, cap;
  bool failed; /* out of memory, or the caller's input refused */
  int depth;
  bool first[8]; /* per open level: no element written yet (deepest: 4) */
} jw;

static void jw_put(jw *w, const char *s, size_t n) {
  if (w->failed)
    return;
  if (w->len + n + 1 > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n + 1) cap *= 2;
    char *nb = realloc(w->buf, cap);
    if (!nb) {
      w->failed = true;
      return;
    }
    w->buf = nb;
    w->cap = cap;
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = 0;
}
static void jw_puts(jw *w, const char *s) { jw_put(w, s, strlen(s)); }
static void jw_indent(jw *w) {
  for (int i = 0; i < w->depth; i++) jw_put(w, " ", 1);
}

/* Begins an array or object member: ",\n" between members, then the
 * indentation, then `"key": ` for object members. */
static void jw_item(jw *w, const char *key) {
  if (!w->first[w->depth])
    jw_put(w, ",", 1);
  w->first[w->depth] = false;
  jw_put(w, "\n", 1);
  jw_indent(w);
  if (key) {
    jw_put(w, "\"", 1);
    jw_puts(w, key);
    jw_put(w, "\": ", 3);
  }
}
static void jw_open(jw *w, const char *key, char c) {
  if (w->depth > 0 || key)
    jw_item(w, key);
  jw_put(w, &c, 1);
  w->depth++;
  w->first[w->depth] = true;
}
/* bfj closes even an empty array on its own line: "[\n<indent>]". */
static void jw_close(jw *w, char c) {
  w->depth--;
  jw_put(w, "\n", 1);
  jw_indent(w);
  jw_put(w, &c, 1);
}
static void jw_str(jw *w, const char *key, const char *s) {
  jw_item(w, key);
  jw_put(w, "\"", 1);
  jw_puts(w, s);
  jw_put(w, "\"", 1);
}
static void jw_fp(jw *w, const bls12_381_fp *a) {
  limb_t c[6];
  char dec[FP_DEC_MAX];
  bls12_381_fp_to_canon(c, a);
  limbs_to_dec(dec, c, 6);
  jw_str(w, NULL, dec);
}
static void jw_fp2(jw *w, const bls12_381_fp2 *a) {
  jw_open(w, NULL, '[');
  jw_fp(w, &a->c0);
  jw_fp(w, &a->c1);
  jw_close(w, ']');
}

/* ffjavascript's G1.toObject: [x, y, "1"], infinity ["0", "1", "0"]. */
static void jw_g1(jw *w, const char *key, const bls12_381_g1_aff *p) {
  jw_open(w, key, '[');
  if (bls12_381_g1_aff_is_inf(p)) {
    jw_str(w, NULL, "0");
    jw_str(w, NULL, "1");
    jw_str(w, NULL, "0");
  } else {
    jw_fp(w, &p->x);
    jw_fp(w, &p->y);
    jw_str(w, NULL, "1");
  }
  jw_close(w, ']');
}

/* G2.toObject: [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], infinity
 * [["0", "0"], ["1", "0"], ["0", "0"]]. */
static void jw_pair(jw *w, const char *c0, const char *c1) {
  jw_open(w, NULL, '[');
  jw_str(w, NULL, c0);
  jw_str(w, NULL, c1);
  jw_close(w, ']');
}
static void jw_g2(jw *w, const char *key, const bls12_381_g2_aff *p) {
  jw_open(w, key, '[');
  if (bls12_381_g2_aff_is_inf(p)) {
    jw_pair(w, "0", "0");
    jw_pair(w, "1", "0");
    jw_pair(w, "0", "0");
  } else {
    jw_fp2(w, &p->x);
    jw_fp2(w, &p->y);
    jw_pair(w, "1", "0");
  }
  jw_close(w, ']');
}

/* Returns the finished text, or NULL (and frees it) on failure. */
static char *jw_finish(jw *w) {
  if (w->failed) {
    free(w->buf);
    return NULL;
  }
  return w->buf;
}

char *json_proof_string(const groth16_proof *p) {
  jw w = {0};
  jw_open(&w, NULL, '{');
  jw_g1(&w, "pi_a", &p->a);
  jw_g2(&w, "pi_b", &p->b);
  jw_g1(&w, "pi_c", &p->c);
  jw_str(&w, "protocol", "groth16");
  jw_str(&w, "curve", "bls12381");
  jw_close(&w, '}');
  return jw_finish(&w);
}

static bool signal_ok(const uint8_t *s, limb_t v[4]) {
  limbs_from_le(v, s, 4);
  return bls12_381_fr_canon_ok(v);
}

/* An array of n signals as decimal strings; one >= r fails w. */
static void jw_signals(jw *w, const uint8_t *signals, size_t n) {
  jw_open(w, NULL, '[');
  for (size_t i = 0; i < n; i++) {
    limb_t v[4];
    char dec[4 * 20 + 1];
    if (!signal_ok(signals + 32 * i, v)) {
      w->failed = true; /* refuse: jw_finish frees and returns NULL */
      break;
    }
    limbs_to_dec(dec, v, 4);
    jw_str(w, NULL, dec);
  }
  jw_close(w, ']');
}

char *json_public_string(const uint8_t *signals, size_t n) {
  jw w = {0};
  jw_signals(&w, signals, n);
  return jw_finish(&w);
}

char *json_public_parts_string(const uint8_t *signals, size_t k, size_t m) {
  if (k == 1)
    return json_public_string(signals, m);
  jw w = {0};
  jw_open(&w, NULL, '[');
  for (size_t p = 0; p < k && !w.failed; p++) jw_signals(&w, signals + 32 * p * m, m);
  jw_close(&w, ']');
  return jw_finish(&w);
}

char *json_vk_string(const groth16_vk *vk) {
  jw w = {0};
  char num[24];
  jw_open(&w, NULL, '{');
  jw_str(&w, "protocol", "groth16");
  jw_str(&w, "curve", "bls12381");
  jw_item(&w, "nPublic");
  snprintf(num, sizeof num, "%zu", vk->n_public);
  jw_puts(&w, num);
  jw_g1(&w, "vk_alpha_1", &vk->alpha1);
  jw_g2(&w, "vk_beta_2", &vk->beta2);
  jw_g2(&w, "vk_gamma_2", &vk->gamma2);
  jw_g2(&w, "vk_delta_2", &vk->delta2);
  /* Fp12 = 2 x Fp6 = 2 x 3 x Fp2, coefficients in the order of types.h. */
  jw_open(&w, "vk_alphabeta_12", '[');
  for (int i = 0; i < 2; i++) {
    jw_open(&w, NULL, '[');
    for (int j = 0; j < 3; j++) {
      jw_open(&w, NULL, '[');
      jw_fp(&w, &vk->alphabeta[6 * i + 2 * j]);
      jw_fp(&w, &vk->alphabeta[6 * i + 2 * j + 1]);
      jw_close(&w, ']');
    }
    jw_close(&w, ']');
  }
  jw_close(&w, ']');
  jw_open(&w, "IC", '[');
  for (size_t i = 0; i <= vk->n_public; i++) jw_g1(&w, NULL, &vk->ic[i]);
  jw_close(&w, ']');
  jw_close(&w, '}');
  return jw_finish(&w);
}

cuzk_status json_write_text(const char *path, const char *text, cuzk_err *err) {
  return fileio_write(path, text, strlen(text), err);
}

/* Writes text (or reports the writer's out-of-memory) to path, and frees it. */
static cuzk_status write_text(const char *path, char *text, cuzk_err *err) {
  if (!text)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: out of memory building the JSON", path);
  cuzk_status st = json_write_text(path, text, err);
  free(text);
  return st;
}

cuzk_status json_write_proof(const char *path, const groth16_proof *p, cuzk_err *err) {
  return write_text(path, json_proof_string(p), err);
}

cuzk_status json_write_public(const char *path, const uint8_t *signals, size_t n,
                              cuzk_err *err) {
  for (size_t i = 0; i < n; i++) {
    limb_t v[4];
    if (!signal_ok(signals + 32 * i, v))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: public signal %zu is >= r", path, i);
  }
  return write_text(path, json_public_string(signals, n), err);
}

cuzk_status json_write_public_parts(const char *path, const uint8_t *signals, size_t k, size_t m,
                                    cuzk_err *err) {
  for (size_t i = 0; i < k * m; i++) {
    limb_t v[4];
    if (!signal_ok(signals + 32 * i, v))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s: partition %zu: public signal %zu is >= r",
                          path, i / m, i % m);
  }
  return write_text(path, json_public_parts_string(signals, k, m), err);
}

cuzk_status json_write_vk(const char *path, const groth16_vk *vk, cuzk_err *err) {
  return write_text(path, json_vk_string(vk), err);
}

/* ================================================================ reader */

/* Where an error is: the file (or text) name for every message. */
typedef struct {
  const char *name;
  cuzk_err *err;
} jr;

static cuzk_status jr_fail(const jr *r, cuzk_status s, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static cuzk_status jr_fail(const jr *r, cuzk_status s, const char *path, const char *fmt, ...) {
  if (!r->err)
    return s;
  char what[CUZK_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (path && *path)
    return cuzk_err_set(r->err, s, "%s: %s: %s", r->name, path, what);
  return cuzk_err_set(r->err, s, "%s: %s", r->name, what);
}

/* cJSON decodes "\u0000" into a NUL inside valuestring, which would cut
 * "12\u00003" to "12"; no field this module reads has any escape, so text
 * holding that escape anywhere is refused. */
static bool has_escaped_nul(const char *text, size_t len) {
  for (size_t i = 0; i + 1 < len; i++) {
    if (text[i] != '\\')
      continue;
    if (text[i + 1] == 'u' && i + 5 < len && !memcmp(text + i + 2, "0000", 4))
      return true;
    i++; /* skip the escaped character, so "\\\\u0000" is not one */
  }
  return false;
}

/* Parses exactly one JSON value from text[0, len). */
static cuzk_status jr_parse(const jr *r, const char *text, size_t len, size_t cap,
                            cJSON **root) {
  *root = NULL;
  if (len > cap)
    return jr_fail(r, CUZK_FORMAT, NULL, "%zu bytes, over the %zu-byte limit", len, cap);
  if (memchr(text, 0, len))
    return jr_fail(r, CUZK_FORMAT, NULL, "contains a NUL byte");
  if (has_escaped_nul(text, len))
    return jr_fail(r, CUZK_FORMAT, NULL, "contains an escaped NUL (\\u0000)");
  const char *end = NULL;
  cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (j) {
    /* Only whitespace may follow the value. */
    size_t off = (size_t)(end - text);
    while (off < len && strchr(" \t\r\n", text[off])) off++;
    if (off == len) {
      *root = j;
      return CUZK_OK;
    }
    cJSON_Delete(j);
    end = text + off;
  }
  size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
  size_t line = 1, col = 1;
  for (size_t i = 0; i < off; i++) {
    if (text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  if (j)
    return jr_fail(r, CUZK_FORMAT, NULL, "unexpected text after the JSON value at line %zu, "
                   "column %zu", line, col);
  return jr_fail(r, CUZK_FORMAT, NULL, "invalid JSON at line %zu, column %zu", line, col);
}

/* A member of an object, once: NULL (and CUZK_OK) when absent. */
static cuzk_status jr_member(const jr *r, const cJSON *obj, const char *key, bool required,
                             const cJSON **out) {
  const cJSON *found = NULL, *it;
  *out = NULL;
  cJSON_ArrayForEach(it, obj) {
    if (it->string && strcmp(it->string, key) == 0) {
      if (found)
        return jr_fail(r, CUZK_FORMAT, NULL, "duplicate key \"%s\"", key);
      found = it;
    }
  }
  if (!found && required)
    return jr_fail(r, CUZK_FORMAT, NULL, "missing key \"%s\"", key);
  *out = found;
  return CUZK_OK;
}

static const char *jr_kind(const cJSON *j) {
  if (cJSON_IsString(j)) return "a string";
  if (cJSON_IsNumber(j)) return "a number";
  if (cJSON_IsArray(j)) return "an array";
  if (cJSON_IsObject(j)) return "an object";
  if (cJSON_IsBool(j)) return "a boolean";
  if (cJSON_IsNull(j)) return "null";
  return "an invalid value";
}

/* A decimal string into n limbs, < modulus (named "p" or "r"). */
static cuzk_status jr_dec(const jr *r, const cJSON *j, const char *path, limb_t *v, size_t n,
                          const limb_t *modulus, const char *mod_name) {
  if (!cJSON_IsString(j))
    return jr_fail(r, CUZK_FORMAT, path, "expected a decimal string, found %s", jr_kind(j));
  const char *s = j->valuestring;
  size_t len = strlen(s);
  if (len == 0 || strspn(s, "0123456789") != len)
    return jr_fail(r, CUZK_FORMAT, path, "not a decimal integer");
  /* The only other failure of limbs_from_dec is overflow: >= 2^(64n). */
  if (!limbs_from_dec(v, n, s, len) || !limbs_lt(v, modulus, n))
    return jr_fail(r, CUZK_FORMAT, path, "value >= %s", mod_name);
  return CUZK_OK;
}

static cuzk_status jr_fp(const jr *r, const cJSON *j, const char *path, bls12_381_fp *out) {
  limb_t v[6];
  CUZK_TRY(jr_dec(r, j, path, v, 6, bls12_381_fp_modulus, "p"));
  bls12_381_fp_from_canon(out, v);
  return CUZK_OK;
}

/* An array of nmin..nmax elements (want names the expected value). */
static cuzk_status jr_array(const jr *r, const cJSON *j, const char *path, int nmin, int nmax,
                            const char *want) {
  if (!cJSON_IsArray(j))
    return jr_fail(r, CUZK_FORMAT, path, "expected %s, found %s", want, jr_kind(j));
  int n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, j) {
    if (++n > nmax)
      break;
  }
  if (n > nmax)
    return jr_fail(r, CUZK_FORMAT, path, "expected %s, found an array of more than %d elements",
                   want, nmax);
  if (n < nmin)
    return jr_fail(r, CUZK_FORMAT, path, "expected %s, found an array of %d element%s", want, n,
                   n == 1 ? "" : "s");
  return CUZK_OK;
}

static cuzk_status jr_fp2(const jr *r, const cJSON *j, const char *path, bls12_381_fp2 *out) {
  char sub[96];
  CUZK_TRY(jr_array(r, j, path, 2, 2, "an Fp2 element [c0, c1]"));
  snprintf(sub, sizeof sub, "%s[0]", path);
  CUZK_TRY(jr_fp(r, j->child, sub, &out->c0));
  snprintf(sub, sizeof sub, "%s[1]", path);
  return jr_fp(r, j->child->next, sub, &out->c1);
}

/* G1 [x, y] or [x, y, z]; z in {0, 1}; 0 = infinity. */
static cuzk_status jr_g1(const jr *r, const cJSON *j, const char *path, bls12_381_g1_aff *out) {
  char sub[96];
  bls12_381_fp z;
  CUZK_TRY(jr_array(r, j, path, 2, 3, "a G1 point [x, y, z]"));
  const cJSON *e = j->child;
  snprintf(sub, sizeof sub, "%s[0]", path);
  CUZK_TRY(jr_fp(r, e, sub, &out->x));
  snprintf(sub, sizeof sub, "%s[1]", path);
  CUZK_TRY(jr_fp(r, e->next, sub, &out->y));
  bls12_381_fp_set_one(&z);
  if (e->next->next) {
    snprintf(sub, sizeof sub, "%s[2]", path);
    CUZK_TRY(jr_fp(r, e->next->next, sub, &z));
    if (bls12_381_fp_is_zero(&z)) {
      bls12_381_g1_aff_set_inf(out);
      return CUZK_OK;
    }
    if (!bls12_381_fp_is_one(&z))
      return jr_fail(r, CUZK_FORMAT, sub, "z must be \"1\" (or \"0\" for the point at infinity)");
  }
  if (bls12_381_g1_aff_is_inf(out))
    return jr_fail(r, CUZK_FORMAT, path,
                   "(0, 0) is not a curve point (write [\"0\", \"1\", \"0\"] for infinity)");
  return CUZK_OK;
}

/* G2 [x, y] or [x, y, z] over Fp2; z in {[1, 0], [0, 0]}. */
static cuzk_status jr_g2(const jr *r, const cJSON *j, const char *path, bls12_381_g2_aff *out) {
  char sub[96];
  bls12_381_fp2 z;
  CUZK_TRY(jr_array(r, j, path, 2, 3, "a G2 point [x, y, z]"));
  const cJSON *e = j->child;
  snprintf(sub, sizeof sub, "%s[0]", path);
  CUZK_TRY(jr_fp2(r, e, sub, &out->x));
  snprintf(sub, sizeof sub, "%s[1]", path);
  CUZK_TRY(jr_fp2(r, e->next, sub, &out->y));
  if (e->next->next) {
    snprintf(sub, sizeof sub, "%s[2]", path);
    CUZK_TRY(jr_fp2(r, e->next->next, sub, &z));
    if (bls12_381_fp2_is_zero(&z)) {
      bls12_381_g2_aff_set_inf(out);
      return CUZK_OK;
    }
    if (!bls12_381_fp2_is_one(&z))
      return jr_fail(r, CUZK_FORMAT, sub,
                     "z must be [\"1\", \"0\"] (or [\"0\", \"0\"] for the point at infinity)");
  }
  if (bls12_381_g2_aff_is_inf(out))
    return jr_fail(r, CUZK_FORMAT, path, "(0, 0) is not a curve point (write [[\"0\", \"0\"], "
                   "[\"1\", \"0\"], [\"0\", \"0\"]] for infinity)");
  return CUZK_OK;
}

/* A string member for messages, shortened and with control bytes and
 * quotes replaced. */
static void jr_quote(char *out, size_t cap, const char *s) {
  size_t i = 0;
  for (; s[i] && i + 4 < cap && i < 40; i++)
    out[i] = (s[i] < 0x20 || s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] >= 0x7f) ? '?'
                                                                                         : s[i];
  if (s[i])
    out[i++] = '.', out[i++] = '.', out[i++] = '.';
  out[i] = 0;
}

/* "protocol" must be "groth16". */
static cuzk_status jr_protocol(const jr *r, const cJSON *root) {
  const cJSON *j;
  CUZK_TRY(jr_member(r, root, "protocol", true, &j));
  if (!cJSON_IsString(j))
    return jr_fail(r, CUZK_FORMAT, "protocol", "expected a string, found %s", jr_kind(j));
  if (strcmp(j->valuestring, "groth16") != 0) {
    char q[48];
    jr_quote(q, sizeof q, j->valuestring);
    return jr_fail(r, CUZK_FORMAT, NULL, "protocol is \"%s\", expected \"groth16\"", q);
  }
  return CUZK_OK;
}

/* "curve", if present, names BLS12-381 as snarkjs's getCurveFromName reads
 * it: upper-cased, non-alphanumerics dropped. */
static cuzk_status jr_curve(const jr *r, const cJSON *root) {
  const cJSON *j;
  CUZK_TRY(jr_member(r, root, "curve", false, &j));
  if (!j)
    return CUZK_OK; /* rapidsnark omits it */
  if (!cJSON_IsString(j))
    return jr_fail(r, CUZK_FORMAT, "curve", "expected a string, found %s", jr_kind(j));
  char norm[16], q[48];
  size_t n = 0;
  for (const char *s = j->valuestring; *s && n < sizeof norm - 1; s++) {
    char c = *s;
    if (c >= 'a' && c <= 'z')
      c = (char)(c - 'a' + 'A');
    if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
      norm[n++] = c;
  }
  norm[n] = 0;
  jr_quote(q, sizeof q, j->valuestring);
  if (strcmp(norm, "BLS12381") == 0)
    return CUZK_OK;
  if (!strcmp(norm, "BN128") || !strcmp(norm, "BN254") || !strcmp(norm, "ALTBN128"))
    return jr_fail(r, CUZK_UNSUPPORTED, NULL, "curve is \"%s\": BN254 is not supported yet", q);
  return jr_fail(r, CUZK_UNSUPPORTED, NULL, "curve is \"%s\": unknown curve (expected "
                 "\"bls12381\")", q);
}

static cuzk_status jr_root_object(const jr *r, const cJSON *root) {
  if (!cJSON_IsObject(root))
    return jr_fail(r, CUZK_FORMAT, NULL, "expected a JSON object, found %s", jr_kind(root));
  return CUZK_OK;
}

static cuzk_status proof_from_tree(const jr *r, const cJSON *root, groth16_proof *p) {
  const cJSON *a, *b, *c;
  CUZK_TRY(jr_root_object(r, root));
  CUZK_TRY(jr_protocol(r, root));
  CUZK_TRY(jr_curve(r, root));
  CUZK_TRY(jr_member(r, root, "pi_a", true, &a));
  CUZK_TRY(jr_member(r, root, "pi_b", true, &b));
  CUZK_TRY(jr_member(r, root, "pi_c", true, &c));
  CUZK_TRY(jr_g1(r, a, "pi_a", &p->a));
  CUZK_TRY(jr_g2(r, b, "pi_b", &p->b));
  return jr_g1(r, c, "pi_c", &p->c);
}

cuzk_status json_parse_proof(const char *text, size_t len, const char *name, groth16_proof *p,
                             cuzk_err *err) {
  jr r = {name, err};
  cJSON *root;
  CUZK_TRY(jr_parse(&r, text, len, JSON_PROOF_MAX_BYTES, &root));
  cuzk_status s = proof_from_tree(&r, root, p);
  cJSON_Delete(root);
  return s;
}

static cuzk_status public_from_tree(const jr *r, const cJSON *root, limb_t (**values)[4],
                                    size_t *n) {
  if (!cJSON_IsArray(root))
    return jr_fail(r, CUZK_FORMAT, NULL, "expected a JSON array of decimal strings, found %s",
                   jr_kind(root));
  size_t count = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, root) count++;
  if (count == 0)
    return CUZK_OK;
  limb_t(*v)[4] = malloc(count * sizeof *v);
  if (!v)
    return jr_fail(r, CUZK_NO_MEMORY, NULL, "out of memory for %zu public signals", count);
  size_t i = 0;
  cJSON_ArrayForEach(it, root) {
    char path[32];
    snprintf(path, sizeof path, "[%zu]", i);
    cuzk_status s = jr_dec(r, it, path, v[i], 4, bls12_381_fr_modulus, "r");
    if (s != CUZK_OK) {
      free(v);
      return s;
    }
    i++;
  }
  *values = v;
  *n = count;
  return CUZK_OK;
}

cuzk_status json_parse_public(const char *text, size_t len, const char *name,
                              limb_t (**values)[4], size_t *n, cuzk_err *err) {
  jr r = {name, err};
  cJSON *root;
  *values = NULL;
  *n = 0;
  CUZK_TRY(jr_parse(&r, text, len, JSON_PUBLIC_MAX_BYTES, &root));
  cuzk_status s = public_from_tree(&r, root, values, n);
  cJSON_Delete(root);
  return s;
}

/* One array of signals per partition: a flat array is one partition, an
 * array whose first element is an array holds one array per partition,
 * each of the same length. */
static cuzk_status public_parts_from_tree(const jr *r, const cJSON *root, limb_t (**values)[4],
                                          size_t *n_parts, size_t *per_part) {
  if (!cJSON_IsArray(root) || !cJSON_IsArray(cJSON_GetArrayItem(root, 0))) {
    *n_parts = 1;
    return public_from_tree(r, root, values, per_part);
  }
  size_t k = (size_t)cJSON_GetArraySize(root), m = 0, i = 0;
  limb_t(*all)[4] = NULL;
  const cJSON *part;
  cJSON_ArrayForEach(part, root) {
    char where[48];
    snprintf(where, sizeof where, "[%zu]", i);
    if (!cJSON_IsArray(part)) {
      free(all);
      return jr_fail(r, CUZK_FORMAT, where, "expected an array of decimal strings (partition %zu), found %s",
                     i, jr_kind(part));
    }
    limb_t(*v)[4] = NULL;
    size_t n = 0;
    char name[CUZK_ERR_MSG_MAX / 2];
    snprintf(name, sizeof name, "%s: partition %zu", r->name, i);
    jr sub = *r;
    sub.name = name;
    cuzk_status s = public_from_tree(&sub, part, &v, &n);
    if (s != CUZK_OK) {
      free(all);
      return s;
    }
    if (i == 0) {
      m = n;
      all = k && m ? malloc(k * m * sizeof *all) : NULL;
      if (k && m && !all) {
        free(v);
        return jr_fail(r, CUZK_NO_MEMORY, NULL, "out of memory for %zu x %zu public signals", k, m);
      }
    } else if (n != m) {
      free(v);
      free(all);
      return jr_fail(r, CUZK_FORMAT, where, "partition %zu has %zu signals, partition 0 has %zu", i, n, m);
    }
    if (n)
      memcpy(all + i * m, v, n * sizeof *v);
    free(v);
    i++;
  }
  *values = all;
  *n_parts = k;
  *per_part = m;
  return CUZK_OK;
}

cuzk_status json_parse_public_parts(const char *text, size_t len, const char *name,
                                    limb_t (**values)[4], size_t *n_parts, size_t *per_part,
                                    cuzk_err *err) {
  jr r = {name, err};
  cJSON *root;
  *values = NULL;
  *n_parts = *per_part = 0;
  CUZK_TRY(jr_parse(&r, text, len, JSON_PUBLIC_MAX_BYTES, &root));
  cuzk_status s = public_parts_from_tree(&r, root, values, n_parts, per_part);
  cJSON_Delete(root);
  return s;
}

cuzk_status json_read_public_parts(const char *path, limb_t (**values)[4], size_t *n_parts,
                                   size_t *per_part, cuzk_err *err) {
  char *text;
  size_t len;
  *values = NULL;
  *n_parts = *per_part = 0;
  CUZK_TRY(fileio_read_all(&text, &len, path, JSON_PUBLIC_MAX_BYTES, err));
  cuzk_status s = json_parse_public_parts(text, len, path, values, n_parts, per_part, err);
  free(text);
  return s;
}

/* nPublic: a non-negative integral JSON number (snarkjs writes a number). */
static cuzk_status jr_npublic(const jr *r, const cJSON *root, size_t *n) {
  const cJSON *j;
  CUZK_TRY(jr_member(r, root, "nPublic", true, &j));
  if (!cJSON_IsNumber(j))
    return jr_fail(r, CUZK_FORMAT, "nPublic", "expected a number, found %s", jr_kind(j));
  double d = j->valuedouble;
  if (!(d >= 0 && d <= (double)(1u << 31) && d == (double)(size_t)d))
    return jr_fail(r, CUZK_FORMAT, "nPublic", "not a non-negative integer below 2^31");
  *n = (size_t)d;
  return CUZK_OK;
}

static cuzk_status vk_from_tree(const jr *r, const cJSON *root, groth16_vk *vk) {
  const cJSON *j;
  CUZK_TRY(jr_root_object(r, root));
  CUZK_TRY(jr_protocol(r, root));
  CUZK_TRY(jr_curve(r, root));
  CUZK_TRY(jr_npublic(r, root, &vk->n_public));
  CUZK_TRY(jr_member(r, root, "vk_alpha_1", true, &j));
  CUZK_TRY(jr_g1(r, j, "vk_alpha_1", &vk->alpha1));
  CUZK_TRY(jr_member(r, root, "vk_beta_2", true, &j));
  CUZK_TRY(jr_g2(r, j, "vk_beta_2", &vk->beta2));
  CUZK_TRY(jr_member(r, root, "vk_gamma_2", true, &j));
  CUZK_TRY(jr_g2(r, j, "vk_gamma_2", &vk->gamma2));
  CUZK_TRY(jr_member(r, root, "vk_delta_2", true, &j));
  CUZK_TRY(jr_g2(r, j, "vk_delta_2", &vk->delta2));

  /* vk_alphabeta_12: [[Fp2 x 3] x 2]. */
  CUZK_TRY(jr_member(r, root, "vk_alphabeta_12", true, &j));
  CUZK_TRY(jr_array(r, j, "vk_alphabeta_12", 2, 2, "an Fp12 element (2 x 3 x Fp2)"));
  const cJSON *c6 = j->child;
  for (int i = 0; i < 2; i++, c6 = c6->next) {
    char path[64];
    snprintf(path, sizeof path, "vk_alphabeta_12[%d]", i);
    CUZK_TRY(jr_array(r, c6, path, 3, 3, "an Fp6 element (3 x Fp2)"));
    const cJSON *c2 = c6->child;
    for (int k = 0; k < 3; k++, c2 = c2->next) {
      bls12_381_fp2 t;
      snprintf(path, sizeof path, "vk_alphabeta_12[%d][%d]", i, k);
      CUZK_TRY(jr_fp2(r, c2, path, &t));
      vk->alphabeta[6 * i + 2 * k] = t.c0;
      vk->alphabeta[6 * i + 2 * k + 1] = t.c1;
    }
  }

  /* IC: exactly nPublic + 1 points, counted before allocating. */
  CUZK_TRY(jr_member(r, root, "IC", true, &j));
  if (!cJSON_IsArray(j))
    return jr_fail(r, CUZK_FORMAT, "IC", "expected an array of G1 points, found %s", jr_kind(j));
  size_t count = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, j) count++;
  if (count != vk->n_public + 1)
    return jr_fail(r, CUZK_FORMAT, "IC", "has %zu points, expected nPublic + 1 = %zu", count,
                   vk->n_public + 1);
  vk->ic = malloc(count * sizeof *vk->ic);
  if (!vk->ic)
    return jr_fail(r, CUZK_NO_MEMORY, "IC", "out of memory for %zu points", count);
  size_t i = 0;
  cJSON_ArrayForEach(it, j) {
    char path[32];
    snprintf(path, sizeof path, "IC[%zu]", i);
    CUZK_TRY(jr_g1(r, it, path, &vk->ic[i]));
    i++;
  }
  return CUZK_OK;
}

cuzk_status json_parse_vk(const char *text, size_t len, const char *name, groth16_vk *vk,
                          cuzk_err *err) {
  jr r = {name, err};
  cJSON *root;
  memset(vk, 0, sizeof *vk);
  CUZK_TRY(jr_parse(&r, text, len, JSON_VK_MAX_BYTES, &root));
  cuzk_status s = vk_from_tree(&r, root, vk);
  cJSON_Delete(root);
  if (s != CUZK_OK) {
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
  }
  return s;
}

/* ---- file readers: read (capped), then parse under the file's name. */

cuzk_status json_read_proof(const char *path, groth16_proof *p, cuzk_err *err) {
  char *text;
  size_t len;
  CUZK_TRY(fileio_read_all(&text, &len, path, JSON_PROOF_MAX_BYTES, err));
  cuzk_status s = json_parse_proof(text, len, path, p, err);
  free(text);
  return s;
}

cuzk_status json_read_public(const char *path, limb_t (**values)[4], size_t *n, cuzk_err *err) {
  char *text;
  size_t len;
  *values = NULL;
  *n = 0;
  CUZK_TRY(fileio_read_all(&text, &len, path, JSON_PUBLIC_MAX_BYTES, err));
  cuzk_status s = json_parse_public(text, len, path, values, n, err);
  free(text);
  return s;
}

cuzk_status json_read_vk(const char *path, groth16_vk *vk, cuzk_err *err) {
  char *text;
  size_t len;
  memset(vk, 0, sizeof *vk);
  CUZK_TRY(fileio_read_all(&text, &len, path, JSON_VK_MAX_BYTES, err));
  cuzk_status s = json_parse_vk(text, len, path, vk, err);
  free(text);
  return s;
}
