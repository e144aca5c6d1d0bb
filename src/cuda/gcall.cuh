/* The one way cuzk's CUDA code makes a device-global call (gcall.h says
 * which and why): each wrapper makes the call, times it and counts it.
 * Same arguments and result as the CUDA call it wraps (cuda_gc_stream_new
 * is cudaStreamCreateWithPriority).  tests/lint/no_raw_cuda_global.sh
 * rejects a direct call anywhere but gcall.cu. */
#ifndef CUZK_CUDA_GCALL_CUH
#define CUZK_CUDA_GCALL_CUH

#include <cuda_runtime.h>

#include "cuda/gcall.h"

cudaError_t cuda_gc_malloc(void **p, size_t bytes);
cudaError_t cuda_gc_free(void *p);
cudaError_t cuda_gc_malloc_host(void **p, size_t bytes);
cudaError_t cuda_gc_host_alloc(void **p, size_t bytes, unsigned flags);
cudaError_t cuda_gc_free_host(void *p);
cudaError_t cuda_gc_host_register(void *p, size_t bytes, unsigned flags);
cudaError_t cuda_gc_host_unregister(void *p);
cudaError_t cuda_gc_device_synchronize(void);
cudaError_t cuda_gc_mem_pool_trim_to(cudaMemPool_t pool, size_t keep);
cudaError_t cuda_gc_device_set_limit(cudaLimit limit, size_t value);
cudaError_t cuda_gc_set_device(int ordinal);
cudaError_t cuda_gc_mem_get_info(size_t *free_bytes, size_t *total_bytes);
/* flags: cudaStreamNonBlocking or cudaStreamDefault; priority: 0 is the
 * default, lower numbers are higher (cudaDeviceGetStreamPriorityRange). */
cudaError_t cuda_gc_stream_new(cudaStream_t *s, unsigned flags, int priority);
cudaError_t cuda_gc_stream_destroy(cudaStream_t s);
cudaError_t cuda_gc_event_new(cudaEvent_t *e, unsigned flags);
cudaError_t cuda_gc_event_destroy(cudaEvent_t e);

#endif
