/* The wrappers of gcall.cuh: each device-global CUDA call cuzk makes, timed
 * and counted (gcall_count.c).  The only file that may name these calls
 * (tests/lint/no_raw_cuda_global.sh). */
#include <time.h>

#include "cuda/gcall.cuh"

namespace {

uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs call, counting it under kind k with its duration. */
template <class F>
cudaError_t counted(cuda_gcall_kind k, F call) {
  const uint64_t t0 = now_ns();
  cudaError_t e = call();
  cuda_gcall_count(k, now_ns() - t0);
  return e;
}

} // namespace

cudaError_t cuda_gc_malloc(void **p, size_t bytes) {
  return counted(CUDA_GCALL_MALLOC, [&] { return cudaMalloc(p, bytes); });
}
cudaError_t cuda_gc_free(void *p) {
  return counted(CUDA_GCALL_FREE, [&] { return cudaFree(p); });
}
cudaError_t cuda_gc_malloc_host(void **p, size_t bytes) {
  return counted(CUDA_GCALL_MALLOC_HOST, [&] { return cudaMallocHost(p, bytes); });
}
cudaError_t cuda_gc_host_alloc(void **p, size_t bytes, unsigned flags) {
  return counted(CUDA_GCALL_HOST_ALLOC, [&] { return cudaHostAlloc(p, bytes, flags); });
}
cudaError_t cuda_gc_free_host(void *p) {
  return counted(CUDA_GCALL_FREE_HOST, [&] { return cudaFreeHost(p); });
}
cudaError_t cuda_gc_host_register(void *p, size_t bytes, unsigned flags) {
  return counted(CUDA_GCALL_HOST_REGISTER, [&] { return cudaHostRegister(p, bytes, flags); });
}
cudaError_t cuda_gc_host_unregister(void *p) {
  return counted(CUDA_GCALL_HOST_UNREGISTER, [&] { return cudaHostUnregister(p); });
}
cudaError_t cuda_gc_device_synchronize(void) {
  return counted(CUDA_GCALL_DEVICE_SYNC, [&] { return cudaDeviceSynchronize(); });
}
cudaError_t cuda_gc_mem_pool_trim_to(cudaMemPool_t pool, size_t keep) {
  return counted(CUDA_GCALL_POOL_TRIM, [&] { return cudaMemPoolTrimTo(pool, keep); });
}
cudaError_t cuda_gc_device_set_limit(cudaLimit limit, size_t value) {
  return counted(CUDA_GCALL_SET_LIMIT, [&] { return cudaDeviceSetLimit(limit, value); });
}
cudaError_t cuda_gc_set_device(int ordinal) {
  return counted(CUDA_GCALL_SET_DEVICE, [&] { return cudaSetDevice(ordinal); });
}
cudaError_t cuda_gc_mem_get_info(size_t *free_bytes, size_t *total_bytes) {
  return counted(CUDA_GCALL_MEM_INFO, [&] { return cudaMemGetInfo(free_bytes, total_bytes); });
}
cudaError_t cuda_gc_stream_new(cudaStream_t *s, unsigned flags, int priority) {
  return counted(CUDA_GCALL_STREAM_CREATE,
                 [&] { return cudaStreamCreateWithPriority(s, flags, priority); });
}
cudaError_t cuda_gc_stream_destroy(cudaStream_t s) {
  return counted(CUDA_GCALL_STREAM_DESTROY, [&] { return cudaStreamDestroy(s); });
}
cudaError_t cuda_gc_event_new(cudaEvent_t *e, unsigned flags) {
  return counted(CUDA_GCALL_EVENT_CREATE, [&] { return cudaEventCreateWithFlags(e, flags); });
}
cudaError_t cuda_gc_event_destroy(cudaEvent_t e) {
  return counted(CUDA_GCALL_EVENT_DESTROY, [&] { return cudaEventDestroy(e); });
}
