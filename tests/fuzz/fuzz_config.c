/* The daemon's config (server/config.h) on arbitrary text:
 * daemon_config_parse over the defaults, and for a config it accepts,
 * daemon_config_print read back to the same config: the printed text of
 * the two agrees once comments are dropped (config.h: the effective config
 * as TOML, which daemon_config_parse reads back to the same config).  The
 * file's name is absolute, so relative paths resolve once and print as
 * they read back. */
#include "fuzz.h"

#include "server/config.h"

#define FUZZ_CONFIG_NAME "/etc/cuzk/cuzk.toml"

/* c printed, each line cut at its last "  # " comment, comment lines
 * dropped; malloc'd. */
static char *printed(const daemon_config *c) {
  char *raw = NULL, *out;
  size_t len = 0;
  FILE *f = open_memstream(&raw, &len);
  if (!f)
    return NULL;
  daemon_config_print(c, f);
  fclose(f);
  if (!(out = malloc(len + 1))) {
    free(raw);
    return NULL;
  }
  size_t n = 0;
  for (char *line = raw, *nl; line < raw + len; line = nl + 1) {
    nl = memchr(line, '\n', (size_t)(raw + len - line));
    if (!nl)
      nl = raw + len;
    if (*line == '#' || line == nl)
      continue;
    char *cut = nl;
    for (char *p = line; p + 4 <= nl; p++)
      if (!memcmp(p, "  # ", 4))
        cut = p;
    memcpy(out + n, line, (size_t)(cut - line));
    n += (size_t)(cut - line);
    out[n++] = '\n';
  }
  out[n] = 0;
  free(raw);
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  daemon_config c, d;
  cuzk_err err = {0};
  if (daemon_config_init(&c, &err) != CUZK_OK)
    return 0;
  cuzk_status st = daemon_config_parse(&c, (const char *)data, size, FUZZ_CONFIG_NAME, &err);
  if (st != CUZK_OK) {
    FUZZ_ASSERT(st == CUZK_FORMAT || st == CUZK_INVALID_ARGUMENT || st == CUZK_NO_MEMORY,
                "status %s: %s", cuzk_status_name(st), err.msg);
    FUZZ_ASSERT(err.msg[0], "a refusal without a message");
    daemon_config_free(&c);
    return 0;
  }
  char *one = printed(&c), *raw = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&raw, &len);
  if (one && f) {
    daemon_config_print(&c, f);
    fclose(f);
    f = NULL;
    FUZZ_ASSERT(daemon_config_init(&d, &err) == CUZK_OK, "init: %s", err.msg);
    st = daemon_config_parse(&d, raw, len, FUZZ_CONFIG_NAME, &err);
    FUZZ_ASSERT(st == CUZK_OK, "the printed config does not read back: %s\n%s", err.msg, raw);
    char *two = printed(&d);
    FUZZ_ASSERT(two && !strcmp(one, two), "the config differs after print and read:\n%s\n--\n%s",
                one, two ? two : "");
    free(two);
    daemon_config_free(&d);
  }
  if (f)
    fclose(f);
  free(raw);
  free(one);
  daemon_config_free(&c);
  return 0;
}
