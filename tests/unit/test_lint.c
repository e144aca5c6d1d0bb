/* The source checks of tests/lint, run over the tree with the unit tests
 * (so CI runs them in every build), and each check itself on a small tree
 * of its own: what it must catch fails it, what it must let pass (names in
 * comments and strings, the allowed files) does not.
 *   no_raw_cuda_global.sh    no device-global CUDA call outside src/cuda/gcall.cu
 *   no_cuda_above_backend.sh no CUDA header or cuzk_cuda_ / backend_cuda_ name
 *                            in src/ outside src/cuda and src/backend/cuda */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static void lint_whole_tree(const char *script) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s/tests/lint/%s' '%s'", test_srcdir(), script, test_srcdir());
  int rc = system(cmd);
  CHECK_MSG(rc == 0, "%s failed (status %d): see its output above", cmd, rc);
}

/* Runs `script` over a tree holding one file, `rel` (e.g. "src/x.cu"),
 * with `code` in it; its exit status. */
static int lint_tree(const char *script, const char *rel, const char *code) {
  char dir[] = "/tmp/cuzk-lint-XXXXXX";
  CHECK(mkdtemp(dir));
  char path[512], cmd[4096];
  snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\"", dir, rel);
  CHECK(system(cmd) == 0);
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  FILE *f = fopen(path, "w");
  CHECK(f);
  fputs(code, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s/tests/lint/%s' '%s' >/dev/null", test_srcdir(), script, dir);
  int rc = system(cmd);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  return rc;
}

TEST(lint_no_raw_cuda_global_calls) { lint_whole_tree("no_raw_cuda_global.sh"); }

TEST(lint_no_cuda_above_backend) { lint_whole_tree("no_cuda_above_backend.sh"); }

/* A call or a function pointer fails it; names in comments and strings,
 * and other calls, do not. */
TEST(lint_raw_cuda_global_catches_calls) {
  const char *s = "no_raw_cuda_global.sh", *x = "src/x.cu";
  CHECK(lint_tree(s, x, "void f(void *p) { cudaFree(p); }\n") != 0);
  CHECK(lint_tree(s, x, "void f() { cudaDeviceSynchronize (); }\n") != 0);
  CHECK(lint_tree(s, x, "typedef owned<void *, cudaFree> buf;\n") != 0);
  CHECK(lint_tree(s, x, "void f(void **p) { cudaMallocHost(p, 8); }\n") != 0);
  CHECK_EQ_INT(lint_tree(s, x,
                         "/* cudaFree(p) waits */ // cudaMalloc(p)\n"
                         "const char *s = \"cudaMalloc(p)\";\n"
                         "void f(void *p) { cuda_gc_free(p); cudaMemcpyAsync(0, 0, 0, 0, 0); }\n"),
               0);
}

/* Above the backend: a CUDA include or a cuzk_cuda_ / backend_cuda_ name
 * fails it; the same in src/cuda or src/backend/cuda, in comments and
 * strings, or the registry's own include of its provider, does not. */
TEST(lint_cuda_above_backend_catches_uses) {
  const char *s = "no_cuda_above_backend.sh";
  CHECK(lint_tree(s, "src/engine/w.c", "#include \"cuda/cuda.h\"\n") != 0);
  CHECK(lint_tree(s, "src/engine/w.c", "  #  include \"backend/cuda/cuda_backend.h\"\n") != 0);
  CHECK(lint_tree(s, "src/cli/c.c", "#include <cuda_runtime.h>\n") != 0);
  CHECK(lint_tree(s, "src/groth16/p.c", "int n = cuzk_cuda_device_count(0, 0);\n") != 0);
  CHECK(lint_tree(s, "src/server/s.h", "backend *b = backend_cuda_new(0, &o, e);\n") != 0);
  CHECK(lint_tree(s, "src/daemon/d.c", "static void *f = &cuzk_cuda_host_alloc;\n") != 0);
  CHECK(lint_tree(s, "src/backend/backend.h", "backend *backend_cuda_new_on(int);\n") != 0);
  CHECK(lint_tree(s, "src/backend/device.c", "#include \"cuda/cuda.h\"\n") != 0);
  CHECK_EQ_INT(lint_tree(s, "src/cuda/x.cu", "#include \"cuda/cuda.h\"\nint n = cuzk_cuda_x();\n"),
               0);
  CHECK_EQ_INT(lint_tree(s, "src/backend/cuda/b.c",
                         "#include \"cuda/ntt_gpu.h\"\nconst int backend_cuda_devices = 1;\n"),
               0);
  CHECK_EQ_INT(lint_tree(s, "src/engine/w.c",
                         "/* cuzk_cuda_use_device, #include \"cuda/cuda.h\" */\n"
                         "const char *m = \"backend_cuda_new failed\";\n"
                         "#include \"backend/device.h\"\n"),
               0);
  CHECK_EQ_INT(lint_tree(s, "src/backend/device.c",
                         "#include \"backend/cuda/cuda_backend.h\"\n"
                         "return &backend_cuda_devices;\n"),
               0);
}
