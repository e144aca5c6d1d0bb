/* What the GPU tests share: skipping, with the reason, where the build has
 * no CUDA code or the machine no usable GPU (CI). */
#ifndef CUZK_TESTS_GPU_TEST_H
#define CUZK_TESTS_GPU_TEST_H

#include "harness.h"

#include "cuda/cuda.h"

/* Skips unless this build has the CUDA code (emulated kernels need no GPU). */
static inline void need_cuda_code(void) {
  if (!cuzk_cuda_compiled()) {
    char why[256];
    cuzk_cuda_available(why, sizeof why);
    TEST_SKIP("%s", why);
  }
}

/* Skips unless device 0 can run this build's kernels. */
static inline void need_gpu(void) {
  char why[512];
  if (!cuzk_cuda_available(why, sizeof why))
    TEST_SKIP("no usable GPU: %s", why);
}

#endif
