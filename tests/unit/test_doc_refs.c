/* tests/lint/doc_refs.sh: every reference to a document in the tree
 * resolves (run here, so CI runs it with the unit tests), and the check
 * itself fails on planted bad references, naming file and line. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* Writes text to root/rel, making its directories. */
static void put(const char *root, const char *rel, const char *text) {
  char path[512], cmd[1200];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
  CHECK(system(cmd) == 0);
  FILE *f = fopen(path, "w");
  CHECK_MSG(f, "cannot create %s", path);
  fputs(text, f);
  fclose(f);
}

/* Runs the lint over root; its exit status, and its output in out. */
static int lint(const char *root, char *out, size_t cap) {
  char cmd[2048], path[512];
  snprintf(path, sizeof path, "%s.out", root);
  snprintf(cmd, sizeof cmd, "'%s/tests/lint/doc_refs.sh' '%s' >'%s' 2>&1", test_srcdir(), root,
           path);
  int rc = system(cmd);
  FILE *f = fopen(path, "r");
  CHECK(f);
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = 0;
  fclose(f);
  unlink(path);
  CHECK_MSG(WIFEXITED(rc), "%s did not exit", cmd);
  return WEXITSTATUS(rc);
}

static void rm_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* Makes a tree of files {path, text} (the list ends with {NULL}) in a
 * fresh directory, lints it, removes it; the lint's status and output. */
typedef struct {
  const char *path, *text;
} tree_file;

static int lint_tree(const tree_file *files, char *out, size_t cap) {
  char dir[] = "/tmp/cuzk-docrefs-XXXXXX";
  CHECK(mkdtemp(dir));
  for (const tree_file *f = files; f->path; f++) put(dir, f->path, f->text);
  int rc = lint(dir, out, cap);
  rm_tree(dir);
  return rc;
}

#define CHECK_HAS(out, s) CHECK_MSG(strstr(out, s), "lint output lacks \"%s\":\n%s", s, out)
#define CHECK_LACKS(out, s) CHECK_MSG(!strstr(out, s), "lint output has \"%s\":\n%s", s, out)

/* A document with numbered headings and one without numbers. */
static const char doc_a[] = "# A\n"
                            "\n"
                            "## 1. One\n"
                            "### 1.2 Two\n"
                            "```\n"
                            "## 7. not a heading (in a code block)\n"
                            "```\n"
                            "## 3. Three, and more\n"
                            "See §1.2 and §3.\n";

TEST(doc_refs_repository_resolves) {
  char out[1 << 16];
  int rc = lint(test_srcdir(), out, sizeof out);
  CHECK_MSG(rc == 0, "tests/lint/doc_refs.sh failed (status %d):\n%s", rc, out);
  CHECK_HAS(out, " passed, 0 failed");
}

TEST(doc_refs_good_references_pass) {
  char out[8192];
  const tree_file t[] = {
      {"docs/A.md", doc_a},
      {"docs/B.md", "[A](A.md), [the first](A.md#1-one), A.md §1.2, [B](#b).\n# B\n"},
      {"src/x.c", "/* docs/A.md §1.2; docs/A.md 3; docs/A.md sections 1-3; docs/A.md's table;\n"
                  " * docs/A.md\n"
                  " * §3 across a comment line; https://example.com/NOPE.md is a URL */\n"},
      {"README.md", "[docs](docs/B.md) and `docs/A.md`\n"},
      {"scripts/t.sh", "cat \"$root/NOPE.md\" \"${dir}/NOPE.md\"  # paths in code, not references\n"},
      {NULL, NULL}};
  int rc = lint_tree(t, out, sizeof out);
  CHECK_MSG(rc == 0, "status %d:\n%s", rc, out);
  CHECK_HAS(out, "doc_refs: 13 passed, 0 failed");
}

TEST(doc_refs_bad_references_fail) {
  char out[8192];
  const tree_file t[] = {{"docs/A.md", doc_a},
                         {"src/x.c", "/* fine: docs/A.md §1.2 */\n"
                                     "/* docs/NOPE.md */\n"
                                     "/* docs/A.md §1.3 */\n"
                                     "/* docs/A.md sections 1-2 */\n"
                                     "/* docs/A.md 7 (inside a code block there) */\n"
                                     "/* FORMATS.md 3.6, where no FORMATS.md is beside it */\n"
                                     "/* docs/A.md\n"
                                     " * §9 */\n"
                                     "/* STYLE habit 3 */\n"
                                     "/* ../docs/A.md climbs out of src/ but stays inside */\n"},
                         {"docs/C.md", "[x](A.md#nope) and §4\n"},
                         {NULL, NULL}};
  CHECK_EQ_INT(lint_tree(t, out, sizeof out), 1);
  CHECK_LACKS(out, "src/x.c:1:");
  CHECK_HAS(out, "src/x.c:2: docs/NOPE.md: no such file");
  CHECK_HAS(out, "src/x.c:3: docs/A.md 1.3: no heading numbered 1.3 in docs/A.md "
                 "(its numbered headings: 1, 1.2, 3)");
  CHECK_HAS(out, "src/x.c:4: docs/A.md 1-2: no heading numbered 2");
  CHECK_HAS(out, "src/x.c:5: docs/A.md 7: no heading numbered 7");
  CHECK_HAS(out, "src/x.c:6: FORMATS.md 3.6: no such file");
  CHECK_HAS(out, "src/x.c:7: docs/A.md 9: no heading numbered 9");
  CHECK_HAS(out, "src/x.c:9: STYLE habit 3: no such file");
  CHECK_LACKS(out, "src/x.c:10:");
  CHECK_HAS(out, "docs/C.md:1: A.md#nope: no heading of docs/A.md has the anchor #nope");
  CHECK_HAS(out, "docs/C.md:1: \xc2\xa7" "4: no heading numbered 4 in docs/C.md");
  CHECK_HAS(out, "doc_refs: 4 passed, 10 failed");
}

/* A file outside the tree does not resolve, even where it exists. */
TEST(doc_refs_outside_the_repository_fails) {
  char top[] = "/tmp/cuzk-docrefs-XXXXXX", out[8192], root[64];
  CHECK(mkdtemp(top));
  put(top, "shared/docs/DESIGN.md", "## 3. The executor\n");
  snprintf(root, sizeof root, "%s/repo", top);
  put(root, "README.md", "See ../shared/docs/DESIGN.md section 3.\n");
  put(root, "src/engine/e.h", "/* ../../../shared/docs/DESIGN.md */\n");
  int rc = lint(root, out, sizeof out);
  rm_tree(top);
  CHECK_EQ_INT(rc, 1);
  CHECK_HAS(out, "README.md:1: ../shared/docs/DESIGN.md 3: outside the repository");
  CHECK_HAS(out, "src/engine/e.h:1: ../../../shared/docs/DESIGN.md: outside the repository");
  CHECK_HAS(out, "doc_refs: 0 passed, 2 failed");
}
