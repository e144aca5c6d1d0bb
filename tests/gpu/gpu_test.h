/* What the GPU tests share: skipping, with the reason, where the machine
 * has no usable GPU (CI).  Every test here is built into a CUDA build only
 * (Makefile: a build without CUDA has no tests/gpu), so the emulated
 * kernels are always there. */
#ifndef CUZK_TESTS_GPU_TEST_H
#define CUZK_TESTS_GPU_TEST_H

#include "harness.h"

#include "backend/device.h"
#include "cuda/cuda.h"

/* Skips unless device 0 can run this build's kernels. */
static inline void need_gpu(void) {
  char why[512];
  if (!cuzk_cuda_available(why, sizeof why))
    TEST_SKIP("no usable GPU: %s", why);
}

/* The registry's backend of GPU 0, or a skip with the registry's reason. */
static inline backend *gpu_or_skip(void) {
  cuzk_err err = {0};
  backend *g = backend_device_new(NULL, 0, NULL, &err);
  if (!g)
    TEST_SKIP("%s", err.msg);
  return g;
}

#endif
