/* The TOML reader (server/toml.h) on arbitrary text: toml_parse, and a walk
 * of every tree it accepts checking what its readers rely on: strings are
 * NUL-terminated without a NUL inside, positions are 1-based, lookups by
 * key find each entry (a later duplicate would be a TOML error), nesting
 * stays within TOML_MAX_DEPTH. */
#include "fuzz.h"

#include "server/toml.h"

static void walk(const toml_value *v, unsigned depth) {
  FUZZ_ASSERT(depth <= 2 * TOML_MAX_DEPTH + 2, "nesting %u", depth);
  FUZZ_ASSERT(v->line >= 1 && v->col >= 1, "position %u:%u", v->line, v->col);
  switch (v->type) {
  case TOML_STRING:
    FUZZ_ASSERT(v->u.string, "a NULL string");
    (void)strlen(v->u.string);
    break;
  case TOML_ARRAY:
    for (size_t i = 0; i < v->u.array.len; i++)
      walk(v->u.array.items[i], depth + 1);
    break;
  case TOML_TABLE:
    for (size_t i = 0; i < v->u.table.len; i++) {
      const toml_entry *e = &v->u.table.items[i];
      FUZZ_ASSERT(e->key && e->value, "an entry without key or value");
      FUZZ_ASSERT(toml_get(v, e->key) == e, "key '%s' is defined twice", e->key);
      walk(e->value, depth + 1);
    }
    break;
  default:
    FUZZ_ASSERT(v->type <= TOML_TABLE, "type %d", (int)v->type);
    (void)toml_type_name(v->type);
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  toml_value *root = NULL;
  cuzk_err err = {0};
  cuzk_status st = toml_parse(&root, (const char *)data, size, "fuzz.toml", &err);
  if (st != CUZK_OK) {
    FUZZ_ASSERT(st == CUZK_FORMAT || st == CUZK_NO_MEMORY, "status %s: %s",
                cuzk_status_name(st), err.msg);
    FUZZ_ASSERT(!strncmp(err.msg, "fuzz.toml:", 10), "the message does not name the file: %s",
                err.msg);
    return 0;
  }
  FUZZ_ASSERT(root && root->type == TOML_TABLE, "the root is not a table");
  walk(root, 0);
  toml_free(root);
  return 0;
}
