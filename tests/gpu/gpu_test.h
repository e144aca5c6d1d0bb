/* What the GPU tests share: skipping, with the reason, where the machine
 * has no usable GPU (CI).  Every test here is built into a CUDA build only
 * (Makefile: a build without CUDA has no tests/gpu), so the emulated
 * kernels are always there. */
#ifndef CUZK_TESTS_GPU_TEST_H
#define CUZK_TESTS_GPU_TEST_H

#include "harness.h"

#include "cuda/cuda.h"

/* Marks a test that runs this build's CUDA code on the host (emulated
 * kernels) and needs no GPU: nothing to check, since only a CUDA build
 * has the test (see above). */
static inline void need_cuda_code(void) {}

/* Skips unless device 0 can run this build's kernels. */
static inline void need_gpu(void) {
  char why[512];
  if (!cuzk_cuda_available(why, sizeof why))
    TEST_SKIP("no usable GPU: %s", why);
}

#endif
