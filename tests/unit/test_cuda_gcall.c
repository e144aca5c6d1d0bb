/* The counters of device-global CUDA calls (cuda/gcall.h) and the check
 * that no file outside src/cuda/gcall.cu makes such a call directly
 * (tests/lint/no_raw_cuda_global.sh), so CI runs it with the unit tests.
 * The counting itself on a GPU is tests/gpu/test_gpu_engine.c's. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#include "cuda/cuda.h"
#include "cuda/gcall.h"

TEST(gcall_no_raw_calls_outside_the_wrappers) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s/tests/lint/no_raw_cuda_global.sh' '%s'", test_srcdir(),
           test_srcdir());
  int rc = system(cmd);
  CHECK_MSG(rc == 0, "%s failed (status %d): see its output above", cmd, rc);
}

/* The check itself, on a small tree: a call or a function pointer fails
 * it; names in comments and strings, and other calls, do not. */
static int lint_tree(const char *code) {
  char dir[] = "/tmp/cuzk-lint-XXXXXX";
  CHECK(mkdtemp(dir));
  char path[256], cmd[4096];
  snprintf(path, sizeof path, "%s/src", dir);
  CHECK(mkdir(path, 0700) == 0);
  snprintf(path, sizeof path, "%s/src/x.cu", dir);
  FILE *f = fopen(path, "w");
  CHECK(f);
  fputs(code, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s/tests/lint/no_raw_cuda_global.sh' '%s' >/dev/null", test_srcdir(),
           dir);
  int rc = system(cmd);
  unlink(path);
  snprintf(path, sizeof path, "%s/src", dir);
  rmdir(path);
  rmdir(dir);
  return rc;
}

TEST(gcall_lint_catches_calls) {
  CHECK(lint_tree("void f(void *p) { cudaFree(p); }\n") != 0);
  CHECK(lint_tree("void f() { cudaDeviceSynchronize (); }\n") != 0);
  CHECK(lint_tree("typedef owned<void *, cudaFree> buf;\n") != 0);
  CHECK(lint_tree("void f(void **p) { cudaMallocHost(p, 8); }\n") != 0);
  CHECK_EQ_INT(lint_tree("/* cudaFree(p) waits */ // cudaMalloc(p)\n"
                         "const char *s = \"cudaMalloc(p)\";\n"
                         "void f(void *p) { cuda_gc_free(p); cudaMemcpyAsync(0, 0, 0, 0, 0); }\n"),
               0);
}

TEST(gcall_names_and_kinds) {
  CHECK_EQ_STR(cuzk_cuda_gcall_name(CUDA_GCALL_MALLOC), "cudaMalloc");
  CHECK_EQ_STR(cuzk_cuda_gcall_name(CUDA_GCALL_DEVICE_SYNC), "cudaDeviceSynchronize");
  CHECK_EQ_STR(cuzk_cuda_gcall_name(CUDA_GCALL_COUNT), "?");
  CHECK(cuzk_cuda_gcall_stalls(CUDA_GCALL_FREE));
  CHECK(cuzk_cuda_gcall_stalls(CUDA_GCALL_HOST_UNREGISTER));
  CHECK(!cuzk_cuda_gcall_stalls(CUDA_GCALL_STREAM_CREATE));
  CHECK(!cuzk_cuda_gcall_stalls(CUDA_GCALL_SET_DEVICE));
}

TEST(gcall_counts_and_describes) {
  cuzk_cuda_gcalls a, b;
  cuzk_cuda_global_calls(&a);
  cuzk_cuda_global_calls(&b);
  char buf[256];
  cuzk_cuda_gcalls_describe(buf, sizeof buf, &a, &b);
  CHECK_EQ_STR(buf, "none");
  CHECK_EQ_INT(cuzk_cuda_gcalls_delta(&a, &b, false), 0);
  cuda_gcall_count(CUDA_GCALL_FREE, 2500000);
  cuda_gcall_count(CUDA_GCALL_FREE, 500000);
  cuda_gcall_count(CUDA_GCALL_EVENT_CREATE, 1000);
  cuzk_cuda_global_calls(&b);
  CHECK_EQ_INT(cuzk_cuda_gcalls_delta(&a, &b, false), 3);
  CHECK_EQ_INT(cuzk_cuda_gcalls_delta(&a, &b, true), 2);
  cuzk_cuda_gcalls_describe(buf, sizeof buf, &a, &b);
  CHECK_EQ_STR(buf, "cudaFree +2 (3.00 ms), cudaEventCreate +1 (0.00 ms)");
  char small[12];
  cuzk_cuda_gcalls_describe(small, sizeof small, &a, &b); /* truncated, terminated */
  CHECK(strlen(small) < sizeof small);
}

/* Without CUDA (or a GPU) the device queries say no, with a reason. */
TEST(gcall_device_queries_without_gpu) {
  if (cuzk_cuda_available(NULL, 0))
    TEST_SKIP("a GPU is usable here: tests/gpu covers it");
  char why[256] = "";
  CHECK_EQ_INT(cuzk_cuda_device_count(why, sizeof why), 0);
  CHECK(why[0]);
  CHECK(!cuzk_cuda_device_usable(1, why, sizeof why));
  uint64_t f = 1, t = 1;
  cuzk_err err = {0};
  CHECK(cuzk_cuda_mem_info(0, &f, &t, &err) != CUZK_OK);
  CHECK(f == 0 && t == 0);
}
