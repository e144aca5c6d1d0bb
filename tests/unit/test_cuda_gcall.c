/* The counters of device-global CUDA calls (cuda/gcall.h), which need no
 * GPU (built into a CUDA build only, like src/cuda).  That every such call
 * goes through the counted wrappers is tests/lint's check (run by
 * tests/unit/test_lint.c); the counting on a GPU is
 * tests/gpu/test_gpu_engine.c's. */
#include "harness.h"

#include "cuda/gcall.h"

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
