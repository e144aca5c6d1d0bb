/* The TOML reader (src/server/toml.c): good documents read to the right
 * tree with positions; each malformed input is refused with the file,
 * line, column and what was expected; prefixes, byte mutations and random
 * garbage never crash (run under ASan by scripts/test.sh). */
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "harness.h"
#include "server/toml.h"

static toml_value *parse_ok(const char *text) {
  toml_value *root = NULL;
  cuzk_err err = {0};
  cuzk_status s = toml_parse(&root, text, strlen(text), "t.toml", &err);
  CHECK_MSG(s == CUZK_OK, "parse failed: %s\n  input: %s", err.msg, text);
  CHECK(root && root->type == TOML_TABLE);
  return root;
}

/* Parses text (len bytes) expecting an error at "t.toml:LINE:COL:" whose
 * message contains want. */
static void parse_bad_n(const char *text, size_t len, unsigned line, unsigned col, const char *want) {
  toml_value *root = (toml_value *)1;
  cuzk_err err = {0};
  cuzk_status s = toml_parse(&root, text, len, "t.toml", &err);
  CHECK_MSG(s == CUZK_FORMAT, "expected a FORMAT error, got %s for input: %s", cuzk_status_name(s), text);
  CHECK(root == NULL);
  char where[64];
  snprintf(where, sizeof where, "t.toml:%u:%u: ", line, col);
  CHECK_MSG(!strncmp(err.msg, where, strlen(where)), "input %s\n  expected the error at %s\n  got: %s",
            text, where, err.msg);
  CHECK_MSG(strstr(err.msg, want), "input %s\n  expected \"%s\" in the message\n  got: %s", text, want,
            err.msg);
}
#define parse_bad(text, line, col, want) parse_bad_n((text), strlen(text), (line), (col), (want))

static const toml_value *get(const toml_value *t, const char *key) {
  const toml_entry *e = toml_get(t, key);
  CHECK_MSG(e, "key '%s' missing", key);
  return e->value;
}

static const char *get_str(const toml_value *t, const char *key) {
  const toml_value *v = get(t, key);
  CHECK_MSG(v->type == TOML_STRING, "%s is a %s", key, toml_type_name(v->type));
  return v->u.string;
}

static int64_t get_int(const toml_value *t, const char *key) {
  const toml_value *v = get(t, key);
  CHECK_MSG(v->type == TOML_INTEGER, "%s is a %s", key, toml_type_name(v->type));
  return v->u.integer;
}

static double get_float(const toml_value *t, const char *key) {
  const toml_value *v = get(t, key);
  CHECK_MSG(v->type == TOML_FLOAT, "%s is a %s", key, toml_type_name(v->type));
  return v->u.number;
}

static const char good_doc[] =
    "# cuzk daemon config\n"
    "title = \"cuzk\"   # trailing comment\n"
    "\n"
    "[daemon]\n"
    "listen = \"unix:///run/cuzk/cuzk.sock\"\n"
    "status_listen = '127.0.0.1:9821'\n"
    "max_message_size = \"256MiB\"\n"
    "\t verbose\t=\ttrue\n"
    "\n"
    "[memory.limits]   # a sub-table\n"
    "host = 1_000\n"
    "\"quoted key\" = -17\n"
    "'literal key' = +3\n"
    "site.name = \"dotted\"\n"
    "site.port = 0x2A\n"
    "\n"
    "[gpus]\n"
    "devices = [ 0, 1,\n"
    "  2, # a comment inside\n"
    "  3, ]\n"
    "empty = []\n"
    "nested = [[1, 2], [\"a\", 'b'], []]\n"
    "mixed = [1, 2.5, \"x\", false]\n"
    "\n"
    "[[circuits]]\n"
    "id = \"mul\"\n"
    "path = 'examples\\mul\\circuit.zkey'\n"
    "\n"
    "[[circuits]]\n"
    "id = \"chain\"\n"
    "\n"
    "[[circuits.extra]]\n"
    "k = 1\n";

TEST(toml_good_document) {
  toml_value *r = parse_ok(good_doc);
  CHECK_EQ_STR(get_str(r, "title"), "cuzk");
  const toml_value *d = get(r, "daemon");
  CHECK_EQ_INT(d->type, TOML_TABLE);
  CHECK_EQ_STR(get_str(d, "listen"), "unix:///run/cuzk/cuzk.sock");
  CHECK_EQ_STR(get_str(d, "status_listen"), "127.0.0.1:9821");
  CHECK(get(d, "verbose")->type == TOML_BOOLEAN && get(d, "verbose")->u.boolean);
  const toml_value *m = get(r, "memory");
  const toml_value *lim = get(m, "limits");
  CHECK_EQ_INT(get_int(lim, "host"), 1000);
  CHECK_EQ_INT(get_int(lim, "quoted key"), -17);
  CHECK_EQ_INT(get_int(lim, "literal key"), 3);
  const toml_value *site = get(lim, "site");
  CHECK_EQ_STR(get_str(site, "name"), "dotted");
  CHECK_EQ_INT(get_int(site, "port"), 42);
  const toml_value *devs = get(get(r, "gpus"), "devices");
  CHECK_EQ_INT(devs->type, TOML_ARRAY);
  CHECK_EQ_INT(devs->u.array.len, 4);
  for (int i = 0; i < 4; i++)
    CHECK_EQ_INT(devs->u.array.items[i]->u.integer, i);
  CHECK_EQ_INT(get(get(r, "gpus"), "empty")->u.array.len, 0);
  const toml_value *nested = get(get(r, "gpus"), "nested");
  CHECK_EQ_INT(nested->u.array.len, 3);
  CHECK_EQ_INT(nested->u.array.items[0]->u.array.items[1]->u.integer, 2);
  CHECK_EQ_STR(nested->u.array.items[1]->u.array.items[1]->u.string, "b");
  CHECK_EQ_INT(nested->u.array.items[2]->u.array.len, 0);
  const toml_value *mixed = get(get(r, "gpus"), "mixed");
  CHECK(mixed->u.array.items[1]->type == TOML_FLOAT && mixed->u.array.items[1]->u.number == 2.5);
  CHECK(mixed->u.array.items[3]->type == TOML_BOOLEAN && !mixed->u.array.items[3]->u.boolean);
  const toml_value *c = get(r, "circuits");
  CHECK(toml_is_table_array(c));
  CHECK(!toml_is_table_array(devs));
  CHECK_EQ_INT(c->u.array.len, 2);
  CHECK_EQ_STR(get_str(c->u.array.items[0], "id"), "mul");
  CHECK_EQ_STR(get_str(c->u.array.items[0], "path"), "examples\\mul\\circuit.zkey");
  CHECK_EQ_STR(get_str(c->u.array.items[1], "id"), "chain");
  /* [[circuits.extra]] belongs to the last [[circuits]] */
  const toml_value *extra = get(c->u.array.items[1], "extra");
  CHECK(toml_is_table_array(extra));
  CHECK_EQ_INT(get_int(extra->u.array.items[0], "k"), 1);
  CHECK(toml_get(c->u.array.items[0], "extra") == NULL);
  /* entries keep the file's order */
  CHECK_EQ_STR(r->u.table.items[0].key, "title");
  CHECK_EQ_STR(r->u.table.items[1].key, "daemon");
  toml_free(r);
}

TEST(toml_positions) {
  toml_value *r = parse_ok("a = 1\n\n[sec]\n  key =   \"v\"\nx.y.z = [\n  true ]\n");
  const toml_entry *e = toml_get(r, "a");
  CHECK_EQ_INT(e->line, 1);
  CHECK_EQ_INT(e->col, 1);
  CHECK_EQ_INT(e->value->col, 5);
  const toml_value *sec = get(r, "sec");
  CHECK_EQ_INT(sec->line, 3);
  e = toml_get(sec, "key");
  CHECK_EQ_INT(e->line, 4);
  CHECK_EQ_INT(e->col, 3);
  CHECK_EQ_INT(e->value->line, 4);
  CHECK_EQ_INT(e->value->col, 11);
  const toml_entry *z = toml_get(get(get(sec, "x"), "y"), "z");
  CHECK_EQ_INT(z->line, 5);
  CHECK_EQ_INT(z->col, 5);
  CHECK_EQ_INT(z->value->u.array.items[0]->line, 6);
  CHECK_EQ_INT(z->value->u.array.items[0]->col, 3);
  toml_free(r);
  /* columns count characters, not bytes */
  r = parse_ok("s = \"é\" \nt = 'ü' # ü\n");
  CHECK_EQ_STR(get_str(r, "s"), "é");
  toml_free(r);
  parse_bad("s = \"é\" x\n", 1, 9, "expected the end of the line");
}

TEST(toml_strings) {
  toml_value *r = parse_ok(
      "a = \"tab\\there\\nnl \\\"q\\\" back\\\\slash \\b\\f\\r\"\n"
      "b = \"\\u00e9 \\u20AC \\U0001F600\"\n"
      "c = 'C:\\path\\no\\escapes \"x\"'\n"
      "d = \"\"\n"
      "e = ''\n"
      "f = \"\ttab ok\"\n"
      "\"\" = \"empty key\"\n");
  CHECK_EQ_STR(get_str(r, "a"), "tab\there\nnl \"q\" back\\slash \b\f\r");
  CHECK_EQ_STR(get_str(r, "b"), "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK_EQ_STR(get_str(r, "c"), "C:\\path\\no\\escapes \"x\"");
  CHECK_EQ_STR(get_str(r, "d"), "");
  CHECK_EQ_STR(get_str(r, "e"), "");
  CHECK_EQ_STR(get_str(r, "f"), "\ttab ok");
  CHECK_EQ_STR(get_str(r, ""), "empty key");
  toml_free(r);
}

TEST(toml_numbers) {
  toml_value *r = parse_ok(
      "i1 = 0\ni2 = -0\ni3 = +99\ni4 = 1_000_000\ni5 = 9223372036854775807\n"
      "i6 = -9223372036854775808\ni7 = 0xdead_BEEF\ni8 = 0o755\ni9 = 0b1101\n"
      "i10 = 0x7fffffffffffffff\n"
      "f1 = 1.5\nf2 = -2e3\nf3 = 6.626e-34\nf4 = 1e1_0\nf5 = 0.0\nf6 = 3_141.5_9\nf7 = 1E+2\n"
      "f8 = inf\nf9 = -inf\nf10 = nan\nf11 = +nan\nf12 = 0e0\n"
      "b1 = true\nb2 = false\n");
  CHECK_EQ_INT(get_int(r, "i1"), 0);
  CHECK_EQ_INT(get_int(r, "i2"), 0);
  CHECK_EQ_INT(get_int(r, "i3"), 99);
  CHECK_EQ_INT(get_int(r, "i4"), 1000000);
  CHECK(get_int(r, "i5") == INT64_MAX);
  CHECK(get_int(r, "i6") == INT64_MIN);
  CHECK_EQ_INT(get_int(r, "i7"), 0xdeadbeef);
  CHECK_EQ_INT(get_int(r, "i8"), 0755);
  CHECK_EQ_INT(get_int(r, "i9"), 13);
  CHECK(get_int(r, "i10") == INT64_MAX);
  CHECK(get_float(r, "f1") == 1.5);
  CHECK(get_float(r, "f2") == -2000.0);
  CHECK(get_float(r, "f3") == 6.626e-34);
  CHECK(get_float(r, "f4") == 1e10);
  CHECK(get_float(r, "f5") == 0.0);
  CHECK(get_float(r, "f6") == 3141.59);
  CHECK(get_float(r, "f7") == 100.0);
  CHECK(isinf(get_float(r, "f8")) && get_float(r, "f8") > 0);
  CHECK(isinf(get_float(r, "f9")) && get_float(r, "f9") < 0);
  CHECK(isnan(get_float(r, "f10")));
  CHECK(isnan(get_float(r, "f11")));
  CHECK(get_float(r, "f12") == 0.0);
  CHECK(get(r, "b1")->u.boolean && !get(r, "b2")->u.boolean);
  toml_free(r);
}

TEST(toml_line_ends_bom_and_empty) {
  toml_value *r = parse_ok("\xef\xbb\xbf" "a = 1\r\n[t]\r\nb = [\r\n 2 ,\r\n]\r\n# end\r\n");
  CHECK_EQ_INT(get_int(r, "a"), 1);
  CHECK_EQ_INT(get(get(r, "t"), "b")->u.array.items[0]->u.integer, 2);
  toml_free(r);
  r = parse_ok("");
  CHECK_EQ_INT(r->u.table.len, 0);
  toml_free(r);
  r = parse_ok("\n\n   \t\n# only comments\n");
  CHECK_EQ_INT(r->u.table.len, 0);
  toml_free(r);
  r = parse_ok("a = 1"); /* no final new line */
  toml_free(r);
}

TEST(toml_table_rules) {
  /* what TOML 1.0 allows */
  toml_value *r = parse_ok("[a.b]\nx = 1\n[a]\ny = 2\n");
  CHECK_EQ_INT(get_int(get(get(r, "a"), "b"), "x"), 1);
  toml_free(r);
  r = parse_ok("[a]\nb.c = 1\nb.d = 2\n[a.b.e]\nf = 3\n");
  CHECK_EQ_INT(get_int(get(get(r, "a"), "b"), "d"), 2);
  toml_free(r);
  r = parse_ok("[[a]]\n[[a]]\n[a.b]\nc = 1\n");
  CHECK_EQ_INT(get(r, "a")->u.array.len, 2);
  toml_free(r);
  /* what it does not */
  parse_bad("[a]\nx = 1\n[a]\n", 3, 1, "table [a] is defined twice");
  parse_bad("a = 1\na = 2\n", 2, 1, "key 'a' is defined twice (first at line 1)");
  parse_bad("[t]\na = 1\n b = 2\n a = 3\n", 4, 2, "key 'a' is defined twice");
  parse_bad("a = 1\n[a]\n", 2, 2, "'a' is already integer");
  parse_bad("[a]\nb = 1\n[a.b]\n", 3, 4, "'a.b' is already integer");
  parse_bad("a.b = 1\n[a]\n", 2, 1, "made by dotted keys");
  parse_bad("[a.b]\n[a]\nb.c = 1\n", 3, 1, "cannot add keys to 'b'");
  parse_bad("a = 1\na.b = 2\n", 2, 1, "cannot add keys to 'a'");
  parse_bad("[[a]]\n[a]\n", 2, 1, "already an array of tables");
  parse_bad("[a]\n[[a]]\n", 2, 1, "defined twice");
  parse_bad("a = [1]\n[[a]]\n", 2, 3, "'a' is already an array");
  parse_bad("a = [1]\n[a.b]\n", 2, 2, "'a' is already an array");
}

TEST(toml_malformed) {
  parse_bad("a = \n", 1, 5, "expected a value after 'a =', found the end of the line");
  parse_bad("a =", 1, 4, "found the end of the file");
  parse_bad("a = # c\n", 1, 5, "expected a value");
  parse_bad("a\n", 1, 2, "expected '=' after the key 'a', found the end of the line");
  parse_bad("a b = 1\n", 1, 3, "expected '=' after the key 'a', found 'b'");
  parse_bad("a = 1 2\n", 1, 7, "expected the end of the line after a value, found '2'");
  parse_bad("= 1\n", 1, 1, "expected a key, a [table] header or a comment");
  parse_bad("a. = 1\n", 1, 4, "expected a key after '.'");
  parse_bad("[a\n", 1, 3, "expected ']' to close the header");
  parse_bad("[]\n", 1, 2, "expected a table name after '['");
  parse_bad("[[a]\n", 1, 5, "expected a second ']'");
  parse_bad("[[a] ]\n", 1, 5, "expected a second ']'");
  parse_bad("[[a\n", 1, 4, "expected ']]'");
  parse_bad("[a] x\n", 1, 5, "after a table header");
  parse_bad("a = \"abc\n", 1, 5, "string not closed: expected \" before the end of the line");
  parse_bad("a = 'abc", 1, 5, "string not closed: expected ' before the end of the file");
  parse_bad("a = \"x\x01y\"\n", 1, 7, "control character 0x01 in a string");
  parse_bad("a = 'x\x7fy'\n", 1, 7, "control character 0x7f");
  parse_bad("a = \"\\q\"\n", 1, 6, "unknown escape");
  parse_bad("a = \"\\u12\"\n", 1, 10, "expected 4 hexadecimal digits");
  parse_bad("a = \"\\U0000123\"\n", 1, 15, "expected 8 hexadecimal digits");
  parse_bad("a = \"\\uD800\"\n", 1, 6, "not a Unicode scalar value");
  parse_bad("a = \"\\U00110000\"\n", 1, 6, "not a Unicode scalar value");
  parse_bad("a = \"\\u0000\"\n", 1, 6, "NUL");
  parse_bad("a = \"\"\"x\"\"\"\n", 1, 5, "multi-line strings");
  parse_bad("a = '''x'''\n", 1, 5, "multi-line strings");
  parse_bad("a = {b = 1}\n", 1, 5, "inline tables");
  parse_bad("a = 1979-05-27\n", 1, 5, "dates and times are not supported");
  parse_bad("a = 07:32:00\n", 1, 5, "dates and times");
  parse_bad("a = bare\n", 1, 5, "strings need quotes");
  parse_bad("a = tru\n", 1, 5, "expected a value");
  parse_bad("a = True\n", 1, 5, "expected a value");
  parse_bad("a = =\n", 1, 5, "expected a value");
  parse_bad("a = [1, 2\n", 2, 1, "expected ',' or ']' in the array that starts at line 1, column 5");
  parse_bad("a = [1 2]\n", 1, 8, "expected ',' or ']'");
  parse_bad("a = [,]\n", 1, 6, "expected a value");
  parse_bad("a = [1,,2]\n", 1, 8, "expected a value");
  parse_bad("a = [\n# c\x02\n]\n", 2, 4, "control character 0x02 in a comment");
  parse_bad("# ok\n#bad\x1b\n", 2, 5, "control character 0x1b in a comment");
  parse_bad("a\r = 1\n", 1, 2, "found byte 0x0d");
  parse_bad("a = 1\r\r\n", 1, 6, "found byte 0x0d");
  parse_bad_n("a = 1\0\n", 7, 1, 6, "unexpected byte 0x00 after '1'");
  parse_bad("a = \"\xff\"\n", 1, 6, "invalid UTF-8 (byte 0xff)");
  parse_bad("\n\n x = '\xc0\xaf'\n", 3, 7, "invalid UTF-8");        /* overlong */
  parse_bad("x = '\xed\xa0\x80'\n", 1, 6, "invalid UTF-8");           /* surrogate */
  parse_bad("x = '\xf4\x90\x80\x80'\n", 1, 6, "invalid UTF-8");       /* > U+10FFFF */
  parse_bad("x = '\xe2\x82'", 1, 6, "invalid UTF-8");                 /* truncated */
  parse_bad("x = 1 \xc3\xa9\n", 1, 7, "found '\xc3\xa9'");
}

TEST(toml_bad_numbers) {
  static const char *const bad[] = {
      "01",   "-01",   "00.5",   "1__0",  "_1",   "1_",    "1.",   ".5",    "1e",   "1e+",
      "1.e5", "1._5",  "1_.5",   "0x",    "-0x1", "+0o7",  "0xg",  "0o8",   "0b2",  "0x_1",
      "1e_5", "1.5.5", "infinity", "-nan5", "1f",  "12e-_3", "0X10", "++1",  "1+",  "--1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char doc[64];
    snprintf(doc, sizeof doc, "n = %s\n", bad[i]);
    parse_bad(doc, 1, 5, "");
  }
  parse_bad("n = 9223372036854775808\n", 1, 5, "does not fit in 64 signed bits");
  parse_bad("n = -9223372036854775809\n", 1, 5, "does not fit");
  parse_bad("n = 0x8000000000000000\n", 1, 5, "does not fit");
  parse_bad("n = 99999999999999999999999\n", 1, 5, "does not fit");
}

TEST(toml_limits) {
  /* nesting deeper than TOML_MAX_DEPTH */
  char doc[256] = "a = ";
  size_t n = strlen(doc);
  for (int i = 0; i < TOML_MAX_DEPTH + 1; i++)
    doc[n++] = '[';
  doc[n] = 0;
  parse_bad(doc, 1, 5 + TOML_MAX_DEPTH, "nested more than");
  /* exactly TOML_MAX_DEPTH is fine */
  n = 4;
  for (int i = 0; i < TOML_MAX_DEPTH; i++)
    doc[n++] = '[';
  for (int i = 0; i < TOML_MAX_DEPTH; i++)
    doc[n++] = ']';
  doc[n] = 0;
  toml_free(parse_ok(doc));
  /* a key of too many parts */
  char key[256] = "";
  for (int i = 0; i <= TOML_MAX_DEPTH; i++)
    strcat(key, i ? ".k" : "k");
  strcat(key, " = 1\n");
  parse_bad(key, 1, 1 + 2 * TOML_MAX_DEPTH, "more than");
  /* a number token too long */
  char longnum[300] = "n = ";
  memset(longnum + 4, '1', 200);
  longnum[204] = 0;
  parse_bad(longnum, 1, 5, "number too long");
}

/* Every prefix, every byte replaced by a few troublesome bytes, and random
 * garbage: an answer (OK, or FORMAT with a positioned message), never a
 * crash or a leak (ASan). */
static void parse_any(const char *text, size_t len) {
  toml_value *root = NULL;
  cuzk_err err = {0};
  cuzk_status s = toml_parse(&root, text, len, "t.toml", &err);
  if (s == CUZK_OK) {
    CHECK(root != NULL);
    toml_free(root);
  } else {
    CHECK_MSG(s == CUZK_FORMAT, "status %s", cuzk_status_name(s));
    CHECK_MSG(!strncmp(err.msg, "t.toml:", 7), "message without position: %s", err.msg);
    CHECK(root == NULL);
  }
}

TEST(toml_truncated_and_mutated) {
  size_t len = strlen(good_doc);
  for (size_t i = 0; i <= len; i++) {
    char *copy = malloc(i ? i : 1); /* exact size, so ASan sees any over-read */
    memcpy(copy, good_doc, i);
    parse_any(copy, i);
    free(copy);
  }
  static const unsigned char subst[] = {0, '\n', '\r', '"', '\'', '[', ']', '=', '#', '.', ',',
                                        '\\', 0x80, 0xc3, 0xff, '{', '_', 'x', ' '};
  char *copy = malloc(len);
  for (size_t i = 0; i < len; i++)
    for (size_t j = 0; j < sizeof subst; j++) {
      memcpy(copy, good_doc, len);
      copy[i] = (char)subst[j];
      parse_any(copy, len);
    }
  free(copy);
}

TEST(toml_random_garbage) {
  test_rng rng = {test_seed()};
  static const char alphabet[] = "[]=\"'#.,\\\n\r\t ab01xu_-+e{}";
  for (int iter = 0; iter < 20000; iter++) {
    size_t len = test_rng_next(&rng) % 64;
    char *buf = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++) {
      uint64_t r = test_rng_next(&rng);
      buf[i] = (r & 3) ? alphabet[(r >> 8) % (sizeof alphabet - 1)] : (char)(r >> 16);
    }
    parse_any(buf, len);
    free(buf);
  }
}

TEST(toml_files) {
  toml_value *root = NULL;
  cuzk_err err = {0};
  CHECK_EQ_INT(toml_parse_file(&root, "/nonexistent/cuzk.toml", &err), CUZK_NOT_FOUND);
  CHECK(strstr(err.msg, "/nonexistent/cuzk.toml"));
  CHECK_EQ_INT(toml_parse_file(&root, "/", &err), CUZK_IO);
  CHECK(strstr(err.msg, "/: is a directory, expected a regular file"));
  char path[] = "/tmp/cuzk_test_toml_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  const char *doc = "[a]\nb = 'c'\nd = [1,\n";
  CHECK(write(fd, doc, strlen(doc)) == (ssize_t)strlen(doc));
  close(fd);
  CHECK_EQ_INT(toml_parse_file(&root, path, &err), CUZK_FORMAT);
  char want[128];
  snprintf(want, sizeof want, "%s:4:1: expected ',' or ']'", path);
  CHECK_MSG(!strncmp(err.msg, want, strlen(want)), "got %s", err.msg);
  fd = open(path, O_WRONLY | O_TRUNC);
  CHECK(fd >= 0);
  CHECK(write(fd, "[a]\nb = 'c'\n", 12) == 12);
  close(fd);
  CHECK_EQ_INT(toml_parse_file(&root, path, &err), CUZK_OK);
  CHECK_EQ_STR(get_str(get(root, "a"), "b"), "c");
  toml_free(root);
  unlink(path);
}
