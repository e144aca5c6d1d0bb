/* TOML reader: see toml.h for what it reads.
 *
 * DESIGN
 *   One pass of recursive descent over the bytes, after a first pass that
 *   checks the text is UTF-8 (so that later passes may step over any byte
 *   >= 0x80 as part of a valid character).  The cursor keeps line and
 *   column.  Every function returns 0 on success and -1 after the first
 *   error, which is recorded once in the parser; a value is attached to
 *   the tree, or freed, before its function returns, so an error part way
 *   through leaks nothing.
 *
 *   Tables remember how they were made (origin): IMPLICIT (a parent named
 *   by a header, e.g. a in [a.b]), HEADER ([a] itself), DOTTED (made by a
 *   dotted key a.b = 1); arrays of tables are AOT.  The TOML 1.0 rules
 *   follow from that: a header may define an IMPLICIT table but not a
 *   HEADER or DOTTED one; dotted keys may extend only DOTTED tables; a
 *   header path passes through an array of tables by its last element. */
#include "server/toml.h"

#include "base/fileio.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ORIGIN_VALUE, ORIGIN_IMPLICIT, ORIGIN_HEADER, ORIGIN_DOTTED, ORIGIN_AOT, ORIGIN_ROOT };

typedef struct {
  const char *p, *end;
  unsigned line, col;
  const char *name;
  cuzk_err *err;
  cuzk_status st;
  int depth;        /* nesting of arrays being parsed */
  toml_value *root; /* the document */
  toml_value *cur;  /* the table keys go into: root or the last header's */
} parser;

/* ---- errors ------------------------------------------------------------- */

static int fail_at(parser *ps, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(parser *ps, unsigned line, unsigned col, const char *fmt, ...) {
  if (ps->st != CUZK_OK)
    return -1;
  char msg[CUZK_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ps->st = CUZK_FORMAT;
  cuzk_err_set(ps->err, CUZK_FORMAT, "%s:%u:%u: %s", ps->name, line, col, msg);
  return -1;
}
#define fail(ps, ...) fail_at((ps), (ps)->line, (ps)->col, __VA_ARGS__)

static int nomem(parser *ps) {
  if (ps->st == CUZK_OK) {
    ps->st = CUZK_NO_MEMORY;
    cuzk_err_set(ps->err, CUZK_NO_MEMORY, "%s: out of memory", ps->name);
  }
  return -1;
}

/* What stands at the cursor, for "expected X, found Y". */
static const char *found(const parser *ps, char buf[16]) {
  if (ps->p >= ps->end)
    return "the end of the file";
  unsigned char c = (unsigned char)*ps->p;
  if (c == '\n' || (c == '\r' && ps->p + 1 < ps->end && ps->p[1] == '\n'))
    return "the end of the line";
  if (c >= 0x20 && c < 0x7f) {
    snprintf(buf, 16, "'%c'", c);
    return buf;
  }
  if (c >= 0x80) { /* a whole UTF-8 character (checked to be valid) */
    int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    snprintf(buf, 16, "'%.*s'", n, ps->p);
    return buf;
  }
  snprintf(buf, 16, "byte 0x%02x", c);
  return buf;
}

/* ---- cursor --------------------------------------------------------------- */

static int at_end(const parser *ps) { return ps->p >= ps->end; }
static int peek(const parser *ps) { return ps->p < ps->end ? (unsigned char)*ps->p : -1; }
static int peek_at(const parser *ps, size_t i) {
  return (size_t)(ps->end - ps->p) > i ? (unsigned char)ps->p[i] : -1;
}

static void advance(parser *ps) {
  unsigned char c = (unsigned char)*ps->p++;
  if (c == '\n') {
    ps->line++;
    ps->col = 1;
  } else if ((c & 0xc0) != 0x80) {
    ps->col++;
  }
}

static int is_newline(const parser *ps) {
  return peek(ps) == '\n' || (peek(ps) == '\r' && peek_at(ps, 1) == '\n');
}

static void skip_ws(parser *ps) {
  while (peek(ps) == ' ' || peek(ps) == '\t')
    advance(ps);
}

/* A comment runs to the end of the line; control characters other than
 * tab are not allowed in it. */
static int skip_comment(parser *ps) {
  if (peek(ps) != '#')
    return 0;
  while (!at_end(ps) && !is_newline(ps)) {
    unsigned char c = (unsigned char)*ps->p;
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      return fail(ps, "control character 0x%02x in a comment", c);
    advance(ps);
  }
  return 0;
}

static void skip_newline(parser *ps) {
  if (peek(ps) == '\r')
    advance(ps);
  advance(ps);
}

/* Whitespace, comments and new lines (inside arrays). */
static int skip_ws_nl(parser *ps) {
  for (;;) {
    skip_ws(ps);
    if (skip_comment(ps))
      return -1;
    if (!is_newline(ps))
      return 0;
    skip_newline(ps);
  }
}

/* The rest of a line after a key/value pair or a header: blanks, an
 * optional comment, then the line end. */
static int end_of_line(parser *ps, const char *after) {
  char b[16];
  skip_ws(ps);
  if (skip_comment(ps))
    return -1;
  if (at_end(ps))
    return 0;
  if (!is_newline(ps))
    return fail(ps, "expected the end of the line after %s, found %s", after, found(ps, b));
  skip_newline(ps);
  return 0;
}

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0: no overlong forms,
 * no surrogates, nothing above U+10FFFF. */
static int utf8_len(const unsigned char *s, const unsigned char *end) {
  unsigned c = s[0];
  if (c < 0x80)
    return 1;
  int n;
  unsigned min;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, min = 0x10000;
  else
    return 0;
  if (end - s < n)
    return 0;
  unsigned cp = c & (0x7f >> n);
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

static int check_utf8(parser *ps) {
  const unsigned char *s = (const unsigned char *)ps->p, *end = (const unsigned char *)ps->end;
  unsigned line = 1, col = 1;
  while (s < end) {
    int n = utf8_len(s, end);
    if (n == 0)
      return fail_at(ps, line, col, "invalid UTF-8 (byte 0x%02x); a TOML file is UTF-8 text", *s);
    if (*s == '\n')
      line++, col = 1;
    else
      col++;
    s += n;
  }
  return 0;
}

/* ---- growable buffers and nodes ---------------------------------------- */

typedef struct {
  char *b;
  size_t len, cap;
} sbuf;

static int sbuf_put(parser *ps, sbuf *s, const char *d, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 32;
    while (cap < s->len + n + 1)
      cap *= 2;
    char *b = realloc(s->b, cap);
    if (!b)
      return nomem(ps);
    s->b = b;
    s->cap = cap;
  }
  memcpy(s->b + s->len, d, n);
  s->len += n;
  s->b[s->len] = 0;
  return 0;
}

static toml_value *new_value(parser *ps, toml_type t, unsigned line, unsigned col) {
  toml_value *v = calloc(1, sizeof *v);
  if (!v) {
    nomem(ps);
    return NULL;
  }
  v->type = t;
  v->line = line;
  v->col = col;
  return v;
}

void toml_free(toml_value *v) {
  if (!v)
    return;
  if (v->type == TOML_STRING) {
    free(v->u.string);
  } else if (v->type == TOML_ARRAY) {
    for (size_t i = 0; i < v->u.array.len; i++)
      toml_free(v->u.array.items[i]);
    free(v->u.array.items);
  } else if (v->type == TOML_TABLE) {
    for (size_t i = 0; i < v->u.table.len; i++) {
      free(v->u.table.items[i].key);
      toml_free(v->u.table.items[i].value);
    }
    free(v->u.table.items);
  }
  free(v);
}

/* Appends item to an array; frees it on failure. */
static int array_push(parser *ps, toml_value *a, toml_value *item) {
  if (a->u.array.len == a->u.array.cap) {
    size_t cap = a->u.array.cap ? 2 * a->u.array.cap : 4;
    toml_value **n = realloc(a->u.array.items, cap * sizeof *n);
    if (!n) {
      toml_free(item);
      return nomem(ps);
    }
    a->u.array.items = n;
    a->u.array.cap = cap;
  }
  a->u.array.items[a->u.array.len++] = item;
  return 0;
}

const toml_entry *toml_get(const toml_value *t, const char *key) {
  if (!t || t->type != TOML_TABLE)
    return NULL;
  for (size_t i = 0; i < t->u.table.len; i++)
    if (!strcmp(t->u.table.items[i].key, key))
      return &t->u.table.items[i];
  return NULL;
}

/* Adds key = v to table t; takes ownership of both (frees them on failure). */
static toml_entry *table_add(parser *ps, toml_value *t, char *key, unsigned line, unsigned col,
                             toml_value *v) {
  if (t->u.table.len == t->u.table.cap) {
    size_t cap = t->u.table.cap ? 2 * t->u.table.cap : 8;
    toml_entry *n = realloc(t->u.table.items, cap * sizeof *n);
    if (!n) {
      free(key);
      toml_free(v);
      nomem(ps);
      return NULL;
    }
    t->u.table.items = n;
    t->u.table.cap = cap;
  }
  toml_entry *e = &t->u.table.items[t->u.table.len++];
  *e = (toml_entry){key, line, col, v};
  return e;
}

const char *toml_type_name(toml_type t) {
  static const char *const names[] = {"string", "integer", "float", "boolean", "array", "table"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

bool toml_is_table_array(const toml_value *v) {
  return v && v->type == TOML_ARRAY && v->origin == ORIGIN_AOT;
}

/* ---- strings -------------------------------------------------------------- */

static int hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* \uXXXX or \UXXXXXXXX (the cursor on the u or U) as UTF-8 into s. */
static int unicode_escape(parser *ps, sbuf *s) {
  unsigned line = ps->line, col = ps->col - 1;
  int n = peek(ps) == 'u' ? 4 : 8;
  advance(ps);
  uint32_t cp = 0;
  for (int i = 0; i < n; i++) {
    int h = hexval(peek(ps));
    if (h < 0) {
      char b[16];
      return fail(ps, "expected %d hexadecimal digits in \\%c escape, found %s", n, n == 4 ? 'u' : 'U',
                  found(ps, b));
    }
    cp = cp << 4 | (uint32_t)h;
    advance(ps);
  }
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return fail_at(ps, line, col, "escape \\%c names U+%04X, which is not a Unicode scalar value",
                   n == 4 ? 'u' : 'U', cp);
  if (cp == 0)
    return fail_at(ps, line, col, "\\u0000 (NUL) is not supported in strings");
  char u[4];
  size_t len;
  if (cp < 0x80) {
    u[0] = (char)cp, len = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), len = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    u[2] = (char)(0x80 | (cp & 0x3f)), len = 3;
  } else {
    u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), len = 4;
  }
  return sbuf_put(ps, s, u, len);
}

/* A basic "..." or literal '...' string at the cursor, into *out (malloc'd). */
static int parse_string(parser *ps, char **out) {
  int q = peek(ps);
  unsigned line = ps->line, col = ps->col;
  if (peek_at(ps, 1) == q && peek_at(ps, 2) == q)
    return fail(ps, "multi-line strings (%c%c%c) are not supported; write the value on one line", q, q, q);
  advance(ps);
  sbuf s = {0};
  if (sbuf_put(ps, &s, "", 0))
    return -1;
  for (;;) {
    int c = peek(ps);
    if (c == q) {
      advance(ps);
      *out = s.b;
      return 0;
    }
    if (c < 0 || c == '\n' || c == '\r') {
      free(s.b);
      return fail_at(ps, line, col, "string not closed: expected %c before the end of the %s", q,
                     c < 0 ? "file" : "line");
    }
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      free(s.b);
      return fail(ps, "control character 0x%02x in a string (write it as an escape)", c);
    }
    if (c == '\\' && q == '"') {
      advance(ps);
      int e = peek(ps);
      const char *rep = e == 'b' ? "\b" : e == 't' ? "\t" : e == 'n' ? "\n" : e == 'f' ? "\f"
                      : e == 'r' ? "\r" : e == '"' ? "\"" : e == '\\' ? "\\" : NULL;
      int r;
      if (rep) {
        advance(ps);
        r = sbuf_put(ps, &s, rep, 1);
      } else if (e == 'u' || e == 'U') {
        r = unicode_escape(ps, &s);
      } else {
        char b[16];
        r = fail_at(ps, ps->line, ps->col - 1,
                    "unknown escape: expected one of \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX, found \\ then %s",
                    found(ps, b));
      }
      if (r) {
        free(s.b);
        return -1;
      }
      continue;
    }
    /* one whole character (the text is valid UTF-8) */
    const char *start = ps->p;
    advance(ps);
    while (!at_end(ps) && ((unsigned char)*ps->p & 0xc0) == 0x80)
      advance(ps);
    if (sbuf_put(ps, &s, start, (size_t)(ps->p - start))) {
      free(s.b);
      return -1;
    }
  }
}

/* ---- keys ----------------------------------------------------------------- */

typedef struct {
  char *s[TOML_MAX_DEPTH];
  unsigned line[TOML_MAX_DEPTH], col[TOML_MAX_DEPTH];
  int n;
} keypath;

static void keypath_free(keypath *k) {
  for (int i = 0; i < k->n; i++)
    free(k->s[i]);
  k->n = 0;
}

static int is_bare(int c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

/* key ( '.' key )*, each part bare or quoted; blanks allowed around dots. */
static int parse_key(parser *ps, keypath *k, const char *what) {
  k->n = 0;
  for (;;) {
    char b[16];
    if (k->n == TOML_MAX_DEPTH) {
      keypath_free(k);
      return fail(ps, "key has more than %d dotted parts", TOML_MAX_DEPTH);
    }
    unsigned line = ps->line, col = ps->col;
    char *part = NULL;
    int c = peek(ps);
    if (c == '"' || c == '\'') {
      if (parse_string(ps, &part)) {
        keypath_free(k);
        return -1;
      }
    } else if (is_bare(c)) {
      const char *start = ps->p;
      while (is_bare(peek(ps)))
        advance(ps);
      size_t n = (size_t)(ps->p - start);
      part = malloc(n + 1);
      if (!part) {
        keypath_free(k);
        return nomem(ps);
      }
      memcpy(part, start, n);
      part[n] = 0;
    } else {
      const char *expected = k->n ? "a key after '.'" : what;
      keypath_free(k);
      return fail(ps, "expected %s (letters, digits, _ and -, or a quoted string), found %s", expected,
                  found(ps, b));
    }
    k->s[k->n] = part;
    k->line[k->n] = line;
    k->col[k->n] = col;
    k->n++;
    skip_ws(ps);
    if (peek(ps) != '.')
      return 0;
    advance(ps);
    skip_ws(ps);
  }
}

/* "a.b.c" for messages (quotes omitted; truncated if long). */
static const char *keypath_str(const keypath *k, int n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "." : "", k->s[i]);
  return buf;
}

/* ---- values --------------------------------------------------------------- */

static int parse_value(parser *ps, toml_value **out);

static int is_delim(int c) {
  return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#' || c == ',' || c == ']';
}

/* Digits of base with single underscores between them: copies the digits
 * (without underscores) to out; returns the count or -1. */
static int digits(const char *s, size_t n, int base, char *out, size_t *outn) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '_') {
      if (i == 0 || i + 1 == n || s[i - 1] == '_')
        return -1;
      continue;
    }
    int v = hexval(c);
    if (v < 0 || v >= base)
      return -1;
    out[k++] = c;
  }
  out[k] = 0;
  *outn = k;
  return k ? 0 : -1;
}

/* An integer or float token (already cut at a delimiter). */
static int parse_number(parser *ps, const char *tok, size_t n, unsigned line, unsigned col,
                        toml_value **out) {
  char clean[128];
  size_t cn;
  if (n >= sizeof clean - 8)
    return fail_at(ps, line, col, "number too long");
  const char *s = tok;
  size_t len = n;
  int neg = 0, sign = 0;
  if (len && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    sign = 1;
    s++, len--;
  }
  if (len == 3 && (!memcmp(s, "inf", 3) || !memcmp(s, "nan", 3))) {
    toml_value *v = new_value(ps, TOML_FLOAT, line, col);
    if (!v)
      return -1;
    v->u.number = s[0] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
    *out = v;
    return 0;
  }
  /* 0x, 0o, 0b: unsigned, no sign */
  if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
    int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
    if (sign || digits(s + 2, len - 2, base, clean, &cn))
      return fail_at(ps, line, col, "invalid %s integer '%.*s'",
                     base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary", (int)n, tok);
    uint64_t v = 0;
    for (size_t i = 0; i < cn; i++) {
      unsigned d = (unsigned)hexval(clean[i]);
      if (v > (UINT64_C(0x7fffffffffffffff) - d) / (unsigned)base)
        return fail_at(ps, line, col, "integer '%.*s' does not fit in 64 signed bits", (int)n, tok);
      v = v * (unsigned)base + d;
    }
    toml_value *r = new_value(ps, TOML_INTEGER, line, col);
    if (!r)
      return -1;
    r->u.integer = (int64_t)v;
    *out = r;
    return 0;
  }
  /* decimal: int-part [ . frac ] [ e|E [sign] exp ] */
  size_t i = 0;
  while (i < len && s[i] != '.' && s[i] != 'e' && s[i] != 'E')
    i++;
  size_t ipart = i;
  int is_float = i < len;
  if (digits(s, ipart, 10, clean, &cn) || (cn > 1 && clean[0] == '0'))
    goto bad;
  if (!is_float) {
    uint64_t v = 0, lim = neg ? UINT64_C(0x8000000000000000) : UINT64_C(0x7fffffffffffffff);
    for (size_t k = 0; k < cn; k++) {
      unsigned d = (unsigned)(clean[k] - '0');
      if (v > (lim - d) / 10)
        return fail_at(ps, line, col, "integer '%.*s' does not fit in 64 signed bits", (int)n, tok);
      v = v * 10 + d;
    }
    toml_value *r = new_value(ps, TOML_INTEGER, line, col);
    if (!r)
      return -1;
    r->u.integer = neg ? (int64_t)(0 - v) : (int64_t)v;
    *out = r;
    return 0;
  }
  /* rebuild a clean float text for strtod */
  char f[128];
  size_t fl = 0, dn;
  f[fl++] = neg ? '-' : '+';
  memcpy(f + fl, clean, cn);
  fl += cn;
  if (s[i] == '.') {
    size_t j = i + 1;
    while (j < len && s[j] != 'e' && s[j] != 'E')
      j++;
    if (digits(s + i + 1, j - i - 1, 10, clean, &dn))
      goto bad;
    f[fl++] = '.';
    memcpy(f + fl, clean, dn);
    fl += dn;
    i = j;
  }
  if (i < len) { /* exponent */
    f[fl++] = 'e';
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-'))
      f[fl++] = s[i++];
    if (digits(s + i, len - i, 10, clean, &dn))
      goto bad;
    memcpy(f + fl, clean, dn);
    fl += dn;
  }
  f[fl] = 0;
  toml_value *r = new_value(ps, TOML_FLOAT, line, col);
  if (!r)
    return -1;
  r->u.number = strtod(f, NULL);
  *out = r;
  return 0;
bad:
  return fail_at(ps, line, col,
                 "expected a number (an integer like 42, 0x2a, 1_000, or a float like 1.5, 2e3), found '%.*s'",
                 (int)n, tok);
}

static int parse_array(parser *ps, toml_value **out) {
  unsigned line = ps->line, col = ps->col;
  char b[16];
  if (ps->depth >= TOML_MAX_DEPTH)
    return fail(ps, "arrays nested more than %d deep", TOML_MAX_DEPTH);
  toml_value *a = new_value(ps, TOML_ARRAY, line, col);
  if (!a)
    return -1;
  ps->depth++;
  advance(ps); /* [ */
  for (;;) {
    if (skip_ws_nl(ps))
      goto err;
    if (peek(ps) == ']')
      break;
    if (at_end(ps))
      goto unclosed;
    toml_value *item;
    if (parse_value(ps, &item) || array_push(ps, a, item))
      goto err;
    if (skip_ws_nl(ps))
      goto err;
    if (peek(ps) == ',') {
      advance(ps);
      continue;
    }
    if (peek(ps) == ']')
      break;
  unclosed:
    fail(ps, "expected ',' or ']' in the array that starts at line %u, column %u, found %s", line, col,
         found(ps, b));
    goto err;
  }
  advance(ps); /* ] */
  ps->depth--;
  *out = a;
  return 0;
err:
  ps->depth--;
  toml_free(a);
  return -1;
}

static int parse_value(parser *ps, toml_value **out) {
  unsigned line = ps->line, col = ps->col;
  char b[16];
  int c = peek(ps);
  if (c == '"' || c == '\'') {
    char *s;
    if (parse_string(ps, &s))
      return -1;
    toml_value *v = new_value(ps, TOML_STRING, line, col);
    if (!v) {
      free(s);
      return -1;
    }
    v->u.string = s;
    *out = v;
    return 0;
  }
  if (c == '[')
    return parse_array(ps, out);
  if (c == '{')
    return fail(ps, "inline tables { ... } are not supported; use a [table] section");
  /* a bare token: true, false, a number, or a date */
  const char *start = ps->p;
  while (!is_delim(peek(ps)) && peek(ps) >= 0x21 && peek(ps) < 0x7f)
    advance(ps);
  size_t n = (size_t)(ps->p - start);
  if (n == 0)
    return fail(ps, "expected a value (a \"string\", a number, true, false or an [array]), found %s",
                found(ps, b));
  if (!is_delim(peek(ps)))
    return fail(ps, "unexpected %s after '%.*s'", found(ps, b), (int)n, start);
  if ((n == 4 && !memcmp(start, "true", 4)) || (n == 5 && !memcmp(start, "false", 5))) {
    toml_value *v = new_value(ps, TOML_BOOLEAN, line, col);
    if (!v)
      return -1;
    v->u.boolean = n == 4;
    *out = v;
    return 0;
  }
  if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'i' || c == 'n') {
    /* 1979-05-27 or 07:32:00: a date or time */
    if (n >= 5 && ((start[4] == '-' && start[0] != '-' && start[0] != '+') || start[2] == ':'))
      return fail_at(ps, line, col, "dates and times are not supported; write them as a \"string\"");
    return parse_number(ps, start, n, line, col, out);
  }
  return fail_at(ps, line, col,
                 "expected a value (a \"string\", a number, true, false or an [array]), found '%.*s'%s",
                 (int)(n > 40 ? 40 : n), start,
                 n > 40 ? "..." : (c >= 'A' ? " (strings need quotes)" : ""));
}

/* ---- tables --------------------------------------------------------------- */

static const char *origin_what(const toml_value *v) {
  if (v->type == TOML_TABLE)
    return v->origin == ORIGIN_DOTTED ? "a table made by dotted keys" : "a table";
  if (v->type == TOML_ARRAY)
    return v->origin == ORIGIN_AOT ? "an array of tables" : "an array";
  return toml_type_name(v->type);
}

static toml_value *new_table(parser *ps, unsigned origin, unsigned line, unsigned col) {
  toml_value *t = new_value(ps, TOML_TABLE, line, col);
  if (t)
    t->origin = origin;
  return t;
}

/* A new table of the given origin under part i of k in t; takes k.s[i]. */
static toml_value *add_table(parser *ps, toml_value *t, keypath *k, int i, unsigned origin, unsigned line,
                             unsigned col) {
  toml_value *nt = new_table(ps, origin, line, col);
  if (!nt)
    return NULL;
  toml_entry *ne = table_add(ps, t, k->s[i], k->line[i], k->col[i], nt);
  k->s[i] = NULL;
  return ne ? nt : NULL;
}

/* [a.b.c] or [[a.b.c]] at the cursor (on the first '['). */
static int parse_header(parser *ps) {
  unsigned line = ps->line, col = ps->col;
  char b[16], kb[256];
  int aot = peek_at(ps, 1) == '[';
  advance(ps);
  if (aot)
    advance(ps);
  skip_ws(ps);
  keypath k;
  if (parse_key(ps, &k, aot ? "a table name after '[['" : "a table name after '['"))
    return -1;
  if (peek(ps) == ']' && aot && peek_at(ps, 1) != ']') {
    advance(ps);
    keypath_free(&k);
    return fail(ps, "expected a second ']' to close the header [[...]] that starts at column %u, found %s",
                col, found(ps, b));
  }
  if (peek(ps) != ']') {
    keypath_free(&k);
    return fail(ps, "expected '%s' to close the header that starts at column %u, found %s",
                aot ? "]]" : "]", col, found(ps, b));
  }
  advance(ps);
  if (aot)
    advance(ps);

  toml_value *t = ps->root;
  for (int i = 0; i < k.n; i++) {
    const toml_entry *e = toml_get(t, k.s[i]);
    int last = i == k.n - 1;
    if (!e) {
      toml_value *nt;
      if (last && aot) {
        toml_value *arr = new_value(ps, TOML_ARRAY, line, col);
        if (!arr)
          goto err;
        arr->origin = ORIGIN_AOT;
        toml_entry *ne = table_add(ps, t, k.s[i], k.line[i], k.col[i], arr);
        k.s[i] = NULL;
        if (!ne)
          goto err;
        nt = new_table(ps, ORIGIN_HEADER, line, col);
        if (!nt || array_push(ps, arr, nt))
          goto err;
      } else if (!(nt = add_table(ps, t, &k, i, last ? ORIGIN_HEADER : ORIGIN_IMPLICIT, line, col))) {
        goto err;
      }
      t = nt;
      continue;
    }
    toml_value *v = e->value;
    if (toml_is_table_array(v) && v->u.array.len) {
      if (last && aot) {
        toml_value *nt = new_table(ps, ORIGIN_HEADER, line, col);
        if (!nt || array_push(ps, v, nt))
          goto err;
        t = nt;
      } else if (last) {
        fail_at(ps, line, col, "[%s] is already an array of tables (first [[%s]] at line %u)",
                keypath_str(&k, k.n, kb, sizeof kb), kb, v->line);
        goto err;
      } else {
        t = v->u.array.items[v->u.array.len - 1];
      }
      continue;
    }
    if (v->type != TOML_TABLE) {
      fail_at(ps, k.line[i], k.col[i], "'%s' is already %s (line %u), not a table",
              keypath_str(&k, i + 1, kb, sizeof kb), origin_what(v), e->line);
      goto err;
    }
    if (last) {
      if (aot || v->origin != ORIGIN_IMPLICIT) {
        fail_at(ps, line, col, "table [%s] is defined twice (already %s at line %u)",
                keypath_str(&k, k.n, kb, sizeof kb),
                aot ? "a plain table" : v->origin == ORIGIN_DOTTED ? "made by dotted keys" : "defined",
                v->line);
        goto err;
      }
      v->origin = ORIGIN_HEADER;
      v->line = line;
      v->col = col;
    }
    t = v;
  }
  keypath_free(&k);
  ps->cur = t;
  return end_of_line(ps, "a table header");
err:
  keypath_free(&k);
  return -1;
}

/* key = value at the cursor, into the current table. */
static int parse_keyval(parser *ps) {
  char b[16], kb[256];
  keypath k;
  if (parse_key(ps, &k, "a key, a [table] header or a comment"))
    return -1;
  if (peek(ps) != '=') {
    keypath_str(&k, k.n, kb, sizeof kb);
    keypath_free(&k);
    return fail(ps, "expected '=' after the key '%s', found %s", kb, found(ps, b));
  }
  advance(ps);
  skip_ws(ps);
  if (is_newline(ps) || at_end(ps) || peek(ps) == '#') {
    keypath_str(&k, k.n, kb, sizeof kb);
    keypath_free(&k);
    return fail(ps, "expected a value after '%s =', found %s", kb, found(ps, b));
  }
  toml_value *t = ps->cur;
  for (int i = 0; i + 1 < k.n; i++) {
    const toml_entry *e = toml_get(t, k.s[i]);
    if (!e) {
      if (!(t = add_table(ps, t, &k, i, ORIGIN_DOTTED, k.line[i], k.col[i])))
        goto err;
    } else if (e->value->type == TOML_TABLE && e->value->origin == ORIGIN_DOTTED) {
      t = e->value;
    } else {
      fail_at(ps, k.line[i], k.col[i], "cannot add keys to '%s' here: it is already %s (line %u)",
              keypath_str(&k, i + 1, kb, sizeof kb), origin_what(e->value), e->line);
      goto err;
    }
  }
  int last = k.n - 1;
  const toml_entry *e = toml_get(t, k.s[last]);
  if (e) {
    fail_at(ps, k.line[last], k.col[last], "key '%s' is defined twice (first at line %u)",
            keypath_str(&k, k.n, kb, sizeof kb), e->line);
    goto err;
  }
  toml_value *v;
  if (parse_value(ps, &v))
    goto err;
  toml_entry *ne = table_add(ps, t, k.s[last], k.line[last], k.col[last], v);
  k.s[last] = NULL;
  if (!ne)
    goto err;
  keypath_free(&k);
  return end_of_line(ps, "a value");
err:
  keypath_free(&k);
  return -1;
}

/* ---- entry points --------------------------------------------------------- */

cuzk_status toml_parse(toml_value **root, const char *text, size_t len, const char *name,
                       cuzk_err *err) {
  *root = NULL;
  parser ps = {text, text + len, 1, 1, name ? name : "<config>", err, CUZK_OK, 0, NULL, NULL};
  if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) /* byte order mark */
    ps.p += 3;
  if (check_utf8(&ps))
    return ps.st;
  ps.root = ps.cur = new_table(&ps, ORIGIN_ROOT, 1, 1);
  if (!ps.root)
    return ps.st;
  while (!at_end(&ps)) {
    skip_ws(&ps);
    int c = peek(&ps), r;
    if (c < 0)
      break;
    if (c == '#')
      r = end_of_line(&ps, "a comment");
    else if (is_newline(&ps))
      r = (skip_newline(&ps), 0);
    else if (c == '[')
      r = parse_header(&ps);
    else
      r = parse_keyval(&ps);
    if (r) {
      toml_free(ps.root);
      return ps.st;
    }
  }
  *root = ps.root;
  return CUZK_OK;
}

cuzk_status toml_read_file(const char *path, char **text, size_t *len, cuzk_err *err) {
  cuzk_status s = fileio_read_all(text, len, path, TOML_MAX_FILE, err);
  if (s == CUZK_IO && errno == ENOENT) { /* fileio_open_read's contract */
    if (err)
      err->status = CUZK_NOT_FOUND;
    return CUZK_NOT_FOUND;
  }
  return s;
}

cuzk_status toml_parse_file(toml_value **root, const char *path, cuzk_err *err) {
  *root = NULL;
  char *text;
  size_t len;
  CUZK_TRY(toml_read_file(path, &text, &len, err));
  cuzk_status s = toml_parse(root, text, len, path, err);
  free(text);
  return s;
}
