/* The files the commands name (cli.h): outputs checked against inputs and
 * each other before anything is written (then written by base/fileio.h's
 * writers); snarkjs JSON files read whole and told apart by their content. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

#include "base/fileio.h"

/* A file as the system sees it: its device and inode when it exists, and
 * its absolute path with every symbolic link resolved (for one that does
 * not exist yet: its directory's, plus its name). */
typedef struct {
  bool exists;
  dev_t dev;
  ino_t ino;
  char canon[PATH_MAX];
} file_id;

static void file_id_of(file_id *id, const char *path) {
  struct stat sb;
  id->exists = stat(path, &sb) == 0;
  if (id->exists)
    id->dev = sb.st_dev, id->ino = sb.st_ino;
  if (realpath(path, id->canon))
    return;
  const char *slash = strrchr(path, '/');
  char dir[PATH_MAX], rdir[PATH_MAX];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  if (!realpath(dir, rdir) || snprintf(id->canon, sizeof id->canon, "%s/%s", strcmp(rdir, "/") ? rdir : "",
                                       slash ? slash + 1 : path) >= (int)sizeof id->canon)
    snprintf(id->canon, sizeof id->canon, "%s", path);
}

/* Hard links and symbolic links to one file are the same file. */
static bool same_file(const file_id *a, const file_id *b) {
  if (a->exists && b->exists)
    return a->dev == b->dev && a->ino == b->ino;
  return !strcmp(a->canon, b->canon);
}

static bool same_path(const char *a, const char *b) {
  file_id x, y;
  file_id_of(&x, a);
  file_id_of(&y, b);
  return same_file(&x, &y);
}

/* Whether path is now a character device (/dev/null, a terminal): one
 * that two outputs may share, since writing it replaces nothing. */
static bool is_char_device(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISCHR(sb.st_mode);
}

int cli_outputs_ok(const char *cmd, const char *const *in, size_t nin, const char *const *out, size_t nout) {
  for (size_t o = 0; o < nout; o++) {
    cuzk_err err = {0};
    if (fileio_out_check(out[o], 0, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
      return 0;
    }
    for (size_t i = 0; i < nin; i++)
      if (same_path(out[o], in[i])) {
        fprintf(stderr, "cuzk %s: the output %s is the input %s (the same file); refusing to overwrite an input\n",
                cmd, out[o], in[i]);
        return 0;
      }
    for (size_t p = 0; p < o; p++)
      if (same_path(out[o], out[p]) && !is_char_device(out[o])) {
        fprintf(stderr, "cuzk %s: the outputs %s and %s are the same file; each output needs its own\n", cmd,
                out[p], out[o]);
        return 0;
      }
  }
  return 1;
}

char *cli_read_text(const char *cmd, const char *path, size_t *len) {
  char *text;
  cuzk_err err = {0};
  if (fileio_read_all(&text, len, path, CLI_TEXT_MAX, &err) == CUZK_OK)
    return text;
  if (cmd)
    fprintf(stderr, "cuzk %s: %s%s\n", cmd, err.status == CUZK_IO ? "io: " : "", err.msg);
  return NULL;
}

cli_json_kind cli_json_kind_of(const char *text, size_t len) {
  if (strlen(text) != len) /* a NUL inside: binary */
    return CLI_JSON_NONE;
  while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
    text++;
  if (*text == '[')
    return CLI_JSON_PUBLIC;
  if (*text != '{')
    return CLI_JSON_NONE;
  return strstr(text, "\"pi_a\"") ? CLI_JSON_PROOF : strstr(text, "\"vk_alpha_1\"") ? CLI_JSON_VK : CLI_JSON_OTHER;
}

const char *cli_json_kind_name(cli_json_kind k) {
  switch (k) {
  case CLI_JSON_PROOF: return "a proof";
  case CLI_JSON_VK: return "a verification key";
  case CLI_JSON_PUBLIC: return "public signals";
  case CLI_JSON_OTHER: return "JSON of another kind";
  default: return "not JSON";
  }
}
