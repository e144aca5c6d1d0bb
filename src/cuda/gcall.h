/* Counters of the CUDA calls that act on, or wait for, a whole device.
 *
 * DESIGN (docs/DESIGN.md §3): cudaMalloc, cudaFree,
 * cudaMallocHost/cudaHostAlloc, cudaFreeHost, cudaHostRegister/Unregister,
 * cudaDeviceSynchronize, cudaMemPoolTrimTo and cudaDeviceSetLimit either
 * synchronize with every stream of the device or serialize in the driver
 * (measured on the H200: cudaFree, cudaHostUnregister and
 * cudaDeviceSynchronize each waited ~380 ms for another stream's kernel).
 * The executor makes them at start-up only.  To prove it, every such call
 * in cuzk goes through one wrapper per kind (gcall.cuh, in gcall.cu),
 * which counts it here; tests/lint/no_raw_cuda_global.sh fails the build
 * check when a .c/.cu/.cuh file outside gcall.cu names one directly.  The
 * stream and event constructors and destructors, cudaSetDevice and
 * cudaMemGetInfo are counted too: they do not wait for kernels, but the
 * executor makes them only at start-up (and status), so a test can ask for
 * "nothing at all on the job path".
 *
 * The counters are process-wide relaxed atomics (C11), in gcall_count.c
 * (C, so that tests/unit/test_cuda_gcall.c checks them without a GPU; a
 * CUDA build only, like the rest of src/cuda).  Nothing here names a CUDA
 * type. */
#ifndef CUZK_CUDA_GCALL_H
#define CUZK_CUDA_GCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, "cudaName", stalls): stalls = waits for, or serializes with, the
 * device's other streams (the calls docs/DESIGN.md §3 bans from the job
 * path); the others are start-up-only by the executor's rule. */
#define CUDA_GCALL_KINDS(X)                        \
  X(MALLOC, "cudaMalloc", 1)                       \
  X(FREE, "cudaFree", 1)                           \
  X(MALLOC_HOST, "cudaMallocHost", 1)              \
  X(HOST_ALLOC, "cudaHostAlloc", 1)                \
  X(FREE_HOST, "cudaFreeHost", 1)                  \
  X(HOST_REGISTER, "cudaHostRegister", 1)          \
  X(HOST_UNREGISTER, "cudaHostUnregister", 1)      \
  X(DEVICE_SYNC, "cudaDeviceSynchronize", 1)       \
  X(POOL_TRIM, "cudaMemPoolTrimTo", 1)             \
  X(SET_LIMIT, "cudaDeviceSetLimit", 1)            \
  X(SET_DEVICE, "cudaSetDevice", 0)                \
  X(MEM_INFO, "cudaMemGetInfo", 0)                 \
  X(STREAM_CREATE, "cudaStreamCreate", 0)          \
  X(STREAM_DESTROY, "cudaStreamDestroy", 0)        \
  X(EVENT_CREATE, "cudaEventCreate", 0)            \
  X(EVENT_DESTROY, "cudaEventDestroy", 0)

typedef enum {
#define CUDA_GCALL_ENUM(e, name, stalls) CUDA_GCALL_##e,
  CUDA_GCALL_KINDS(CUDA_GCALL_ENUM)
#undef CUDA_GCALL_ENUM
  CUDA_GCALL_COUNT
} cuda_gcall_kind;

/* A snapshot: calls made so far by kind, and the wall time they took (ns,
 * measured around the call: a stall shows here). */
typedef struct {
  uint64_t n[CUDA_GCALL_COUNT];
  uint64_t ns[CUDA_GCALL_COUNT];
} cuzk_cuda_gcalls;

void cuzk_cuda_global_calls(cuzk_cuda_gcalls *out);
/* "cudaMalloc", ... */
const char *cuzk_cuda_gcall_name(cuda_gcall_kind k);
/* Whether a kind waits for or serializes with the device's other streams. */
bool cuzk_cuda_gcall_stalls(cuda_gcall_kind k);
/* Calls between two snapshots: all kinds, or only the stalling ones. */
uint64_t cuzk_cuda_gcalls_delta(const cuzk_cuda_gcalls *before, const cuzk_cuda_gcalls *after,
                                bool stalling_only);
/* "cudaMalloc +2 (0.41 ms), cudaFree +1 (380.20 ms)" for the kinds that
 * moved between the snapshots, or "none"; always NUL-terminates buf. */
void cuzk_cuda_gcalls_describe(char *buf, size_t n, const cuzk_cuda_gcalls *before,
                               const cuzk_cuda_gcalls *after);

/* Counts one call of kind k that took ns nanoseconds (gcall.cu's wrappers). */
void cuda_gcall_count(cuda_gcall_kind k, uint64_t ns);

#ifdef __cplusplus
}
#endif
#endif
