/* A small TOML reader for the daemon's config file (Debian packages no C
 * TOML library, and the config needs only part of the language).
 *
 * DESIGN
 *   Read: tables [a] and [a.b], arrays of tables [[a]], key = value with
 *   bare, quoted and dotted keys; values: basic "..." and literal '...'
 *   strings, integers (decimal, 0x, 0o, 0b, with _ separators), floats
 *   (with inf and nan), booleans, and arrays of these (nested, over several
 *   lines, with comments and a trailing comma); # comments; LF or CRLF line
 *   ends; UTF-8 text.  Not read, and reported as such: multi-line strings,
 *   inline tables, dates and times, and \u0000 in strings (strings are C
 *   strings).  Everything else that is not TOML is an error naming the
 *   file, line and column, what was expected and what was found.  The
 *   TOML 1.0 rules on defining a table twice, mixing headers with dotted
 *   keys and appending to arrays of tables hold.
 *
 *   The document is a tree of toml_value nodes owned by its root; each
 *   value and each key keeps its line and column (1-based; columns count
 *   characters) so that a reader of the tree (config.c) can name where a
 *   wrong value stands.  Entries keep the order of the file.  Nesting is
 *   bounded (TOML_MAX_DEPTH), so hostile input cannot exhaust the stack. */
#ifndef CUZK_SERVER_TOML_H
#define CUZK_SERVER_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TOML_MAX_DEPTH 32           /* nested arrays, and parts of one key */
#define TOML_MAX_FILE (16u << 20)   /* toml_parse_file refuses larger files */

typedef enum { TOML_STRING, TOML_INTEGER, TOML_FLOAT, TOML_BOOLEAN, TOML_ARRAY, TOML_TABLE } toml_type;

typedef struct toml_value toml_value;

typedef struct {
  char *key;
  unsigned line, col; /* of the key (its last part for a dotted key) */
  toml_value *value;
} toml_entry;

struct toml_value {
  toml_type type;
  unsigned line, col; /* of the value; a table: of its header, or of the key that made it */
  unsigned origin;    /* internal: how a table or array was made */
  union {
    char *string; /* NUL-terminated UTF-8, no NUL inside */
    int64_t integer;
    double number;
    bool boolean;
    struct {
      toml_value **items;
      size_t len, cap;
    } array;
    struct {
      toml_entry *items;
      size_t len, cap;
    } table;
  } u;
};

/* Parses len bytes of text; name (the file name) prefixes every error
 * message as "name:line:col: ...".  *root gets a TOML_TABLE to be freed
 * with toml_free.  CUZK_FORMAT on malformed input, CUZK_NO_MEMORY. */
cuzk_status toml_parse(toml_value **root, const char *text, size_t len, const char *name,
                       cuzk_err *err);
/* Reads and parses a file.  CUZK_NOT_FOUND when it does not exist, CUZK_IO
 * when it cannot be read, else as toml_parse. */
cuzk_status toml_parse_file(toml_value **root, const char *path, cuzk_err *err);
void toml_free(toml_value *v);
/* The whole of a regular file of at most TOML_MAX_FILE bytes, malloc'd and
 * NUL-terminated (toml_parse_file's reading, for callers that parse the
 * text themselves).  Statuses as toml_parse_file's. */
cuzk_status toml_read_file(const char *path, char **text, size_t *len, cuzk_err *err);

/* The entry for key in a table, or NULL. */
const toml_entry *toml_get(const toml_value *table, const char *key);
/* "string", "integer", "float", "boolean", "array", "table". */
const char *toml_type_name(toml_type t);
/* True for an array made by [[name]] headers (an array of tables). */
bool toml_is_table_array(const toml_value *v);

#endif
