/* The CUDA backend's C entry points that every build has: is there a usable
 * GPU, and what is it.
 *
 * DESIGN: callers ask at run time instead of testing a macro (STYLE.md habit
 * 7).  A build without nvcc (or with `make CUDA=0`) links src/cuda/nocuda.c,
 * whose functions say "no" with the reason; a CUDA build links device.cu.
 * Nothing here names a CUDA type, so C code includes it freely.  These
 * functions initialize the CUDA runtime in the calling process: a process
 * that forks afterwards must not use CUDA in the child (the test harness
 * calls them only inside each test's own process). */
#ifndef CUZK_CUDA_CUDA_H
#define CUZK_CUDA_CUDA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Was this build compiled with the CUDA code? */
bool cuzk_cuda_compiled(void);

/* Can this process run this build's kernels on device 0?  False, with the
 * reason in why (n bytes, may be NULL), when the build has no CUDA code,
 * there is no driver or no device, or the device is older than the code
 * (sm_90). */
bool cuzk_cuda_available(char *why, size_t n);

/* One line describing device 0, e.g. "NVIDIA H200, sm_90, 132 SMs at
 * 1980 MHz, 139.8 GiB, L2 60 MiB; driver 13.0, runtime 13.0", or the reason
 * there is none.  Always NUL-terminates buf. */
void cuzk_cuda_describe(char *buf, size_t n);

/* Page-locked host memory (cudaMallocHost), which the GPU copies to and
 * from at full speed; *p = NULL and CUZK_NO_MEMORY (or the CUDA error) on
 * failure.  Free with cuzk_cuda_host_free (NULL is fine). */
cuzk_status cuzk_cuda_host_alloc(void **p, size_t bytes, cuzk_err *err);
void cuzk_cuda_host_free(void *p);

/* A stream that does not synchronize with the legacy default stream
 * (cudaStreamNonBlocking), as a `void *`; free with cuzk_cuda_stream_free. */
cuzk_status cuzk_cuda_stream_new(void **stream, cuzk_err *err);
void cuzk_cuda_stream_free(void *stream);

#ifdef __cplusplus
}
#endif
#endif
