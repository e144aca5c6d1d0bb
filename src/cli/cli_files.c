/* The files the commands name (cli.h): outputs checked against inputs and
 * each other before anything is written; snarkjs JSON files read whole and
 * told apart by their content. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

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

int cli_outputs_ok(const char *cmd, const char *const *in, size_t nin, const char *const *out, size_t nout) {
  for (size_t o = 0; o < nout; o++) {
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", out[o]);
    for (size_t i = 0; i < nin; i++) {
      if (same_path(out[o], in[i])) {
        fprintf(stderr, "cuzk %s: the output %s is the input %s (the same file); refusing to overwrite an input\n",
                cmd, out[o], in[i]);
        return 0;
      }
      if (same_path(tmp, in[i])) {
        fprintf(stderr, "cuzk %s: the output %s is written through %s, which is the input %s; refusing to overwrite an input\n",
                cmd, out[o], tmp, in[i]);
        return 0;
      }
    }
    for (size_t p = 0; p < o; p++)
      if (same_path(out[o], out[p])) {
        fprintf(stderr, "cuzk %s: the outputs %s and %s are the same file; each output needs its own\n", cmd,
                out[p], out[o]);
        return 0;
      }
  }
  return 1;
}

char *cli_read_text(const char *cmd, const char *path, size_t *len) {
  enum { MAX_TEXT = 64 << 20 };
  FILE *f = fopen(path, "rb");
  struct stat sb;
  if (!f || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    if (cmd)
      fprintf(stderr, "cuzk %s: io: %s: cannot read: %s\n", cmd, path, f ? "not a regular file" : strerror(errno));
    if (f)
      fclose(f);
    return NULL;
  }
  if (sb.st_size > MAX_TEXT) {
    if (cmd)
      fprintf(stderr, "cuzk %s: %s: JSON file over 64 MiB: not a snarkjs proof, key or public file\n", cmd, path);
    fclose(f);
    return NULL;
  }
  size_t size = (size_t)sb.st_size;
  char *buf = malloc(size + 1);
  size_t n = buf ? fread(buf, 1, size, f) : 0;
  fclose(f);
  if (!buf || n != size) {
    if (cmd)
      fprintf(stderr, "cuzk %s: %s: %s\n", cmd, path, buf ? "cannot read it whole" : "no memory");
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
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
