/* public.json (groth16/json.h) on arbitrary text: json_parse_public, and
 * for signals it accepts, json_public_string and the parse back to the
 * same values. */
#include "json_roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  limb_t(*v)[4] = NULL, (*w)[4] = NULL;
  size_t n = 0, m = 0;
  cuzk_err err = {0};
  cuzk_status st = json_parse_public((const char *)data, size, "public", &v, &n, &err);
  if (st != CUZK_OK) {
    FUZZ_REFUSED(st, err);
    FUZZ_ASSERT(!v, "values handed out on failure");
    return 0;
  }
  uint8_t *le = malloc(n * 32 + 1);
  if (!le) {
    free(v);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    limbs_to_le(le + 32 * i, v[i], 4);
  char *text = json_public_string(le, n);
  FUZZ_ASSERT(text, "the writer refuses what the reader accepted");
  st = json_parse_public(text, strlen(text), "written", &w, &m, &err);
  FUZZ_ASSERT(st == CUZK_OK, "the writer's signals do not read back: %s", err.msg);
  FUZZ_ASSERT(m == n && (!n || !memcmp(v, w, n * sizeof *v)),
              "the signals differ after the round trip");
  free(text);
  free(le);
  free(v);
  free(w);
  return 0;
}
