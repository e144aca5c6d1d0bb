/* The CUDA runtime's C entry points for the CUDA backend (src/backend/cuda)
 * and the GPU tests: which GPUs are usable and what they are, the calling
 * thread's device, page-locked host memory, streams.
 *
 * DESIGN: only a CUDA build has them (device.cu); code above backend/
 * reaches them through the device registry (backend/device.h), which a
 * build without CUDA answers with no GPU and the reason, so nothing else
 * needs a stand-in.  Nothing here names a CUDA type, so C code includes it
 * freely.  These functions initialize the CUDA runtime in the calling
 * process: a process that forks afterwards must not use CUDA in the child
 * (the test harness calls them only inside each test's own process).
 *
 * Devices: the CUDA current device is per host thread.  An executor slot
 * (engine/worker.c) makes its backend on its own thread at start, which
 * calls cuzk_cuda_use_device; every later CUDA call of that thread then
 * acts on that GPU.
 * Functions taking an ordinal and making it current say so.  The
 * device-global calls made here are counted (cuda/gcall.h). */
#ifndef CUZK_CUDA_CUDA_H
#define CUZK_CUDA_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Can this process run this build's kernels on device 0?  False, with the
 * reason in why (n bytes, may be NULL), when there is no driver or no
 * device, or the device is older than the code (sm_90).
 * cuzk_cuda_device_usable(0, why, n). */
bool cuzk_cuda_available(char *why, size_t n);

/* GPUs this process sees (cudaGetDeviceCount, whatever their kind); 0, with
 * the reason in why (may be NULL), when there is no driver or no device. */
int cuzk_cuda_device_count(char *why, size_t n);
/* cuzk_cuda_available for GPU `ordinal`; "no GPU 3 (this machine has 2:
 * 0..1)" for an ordinal out of range.  Leaves the calling thread's current
 * device as it was. */
bool cuzk_cuda_device_usable(int ordinal, char *why, size_t n);

/* One line describing device 0, e.g. "NVIDIA H200, sm_90, 132 SMs at
 * 1980 MHz, 139.8 GiB, L2 60 MiB; driver 13.0, runtime 13.0", or the reason
 * there is none.  Always NUL-terminates buf. */
void cuzk_cuda_describe(char *buf, size_t n);
/* The same for GPU `ordinal`, and its name alone ("NVIDIA H200"). */
void cuzk_cuda_device_describe(int ordinal, char *buf, size_t n);
void cuzk_cuda_device_name(int ordinal, char *buf, size_t n);

/* Makes GPU `ordinal` the calling thread's current device (cudaSetDevice,
 * only when it is not current already: a no-op on a bound slot thread). */
cuzk_status cuzk_cuda_use_device(int ordinal, cuzk_err *err);
/* Free and total memory of GPU `ordinal` (cudaMemGetInfo), which becomes
 * the calling thread's current device. */
cuzk_status cuzk_cuda_mem_info(int ordinal, uint64_t *free_bytes, uint64_t *total_bytes,
                               cuzk_err *err);

/* Page-locked host memory (cudaMallocHost), which the GPU copies to and
 * from at full speed; *p = NULL and CUZK_NO_MEMORY (or the CUDA error) on
 * failure.  Free with cuzk_cuda_host_free (NULL is fine). */
cuzk_status cuzk_cuda_host_alloc(void **p, size_t bytes, cuzk_err *err);
void cuzk_cuda_host_free(void *p);

/* Device memory on the current device (cudaMalloc): *p = NULL and the
 * CUDA error on failure; free with cuzk_cuda_dev_free (NULL is fine). */
cuzk_status cuzk_cuda_dev_alloc(void **p, size_t bytes, cuzk_err *err);
void cuzk_cuda_dev_free(void *p);
/* A copy of `bytes` from host memory to device memory, queued on stream
 * (a cudaStream_t as void *): the host memory must stay unchanged until
 * the stream has passed it. */
cuzk_status cuzk_cuda_copy_to_device(void *dev, const void *host, size_t bytes, void *stream,
                                     cuzk_err *err);

/* The other way: `bytes` from device memory to host memory, queued on
 * stream; the host memory holds them once the stream has passed the copy
 * (pageable memory: when the call returns). */
cuzk_status cuzk_cuda_copy_to_host(void *host, const void *dev, size_t bytes, void *stream,
                                   cuzk_err *err);

/* A stream on the current device that does not synchronize with the legacy
 * default stream (cudaStreamNonBlocking), as a `void *`; free with
 * cuzk_cuda_stream_free.  _priority: with a CUDA stream priority, from
 * cuzk_cuda_stream_priorities (the current device's range: *normal is the
 * default and lowest, *high the highest; lower numbers run first when
 * kernels of several streams wait for the device). */
cuzk_status cuzk_cuda_stream_new(void **stream, cuzk_err *err);
cuzk_status cuzk_cuda_stream_new_priority(void **stream, int priority, cuzk_err *err);
cuzk_status cuzk_cuda_stream_priorities(int *normal, int *high, cuzk_err *err);
void cuzk_cuda_stream_free(void *stream);
/* Waits (on the host) for the work queued on one stream so far. */
cuzk_status cuzk_cuda_stream_sync(void *stream, cuzk_err *err);

#ifdef __cplusplus
}
#endif
#endif
