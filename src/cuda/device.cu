/* Device discovery, the calling thread's device, page-locked memory and
 * streams, and CUDA error conversion (see cuda.h and check.cuh).
 *
 * DESIGN: no global state.  Each query asks the runtime afresh; the runtime
 * is linked statically (libcudart_static), so a binary needs only the driver
 * (libcuda.so) on the machine, and without one the first call returns
 * cudaErrorInsufficientDriver, which becomes a reason, not a crash.  The
 * device-global calls here (cudaSetDevice, cudaMemGetInfo, cudaMallocHost,
 * cudaFreeHost, stream creation) go through gcall.cuh's counted wrappers. */
#include <stdint.h>
#include <stdio.h>

#include "cuda/check.cuh"
#include "cuda/cuda.h"

cuzk_status cuda_fail(cudaError_t e, const char *file, int line, const char *what, cuzk_err *err) {
  cuzk_status s = CUZK_INTERNAL;
  switch (e) {
  case cudaErrorMemoryAllocation:
    s = CUZK_NO_MEMORY;
    break;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorInvalidDeviceFunction:
    s = CUZK_UNSUPPORTED;
    break;
  default:
    break;
  }
  return cuzk_err_set(err, s, "%s:%d: %s: %s (%s)", file, line, what, cudaGetErrorString(e),
                      cudaGetErrorName(e));
}

/* Launched never; its attributes say whether this build has code the device can run. */
__global__ void cuda_probe_kernel(int *x) { *x = 1; }

extern "C" bool cuzk_cuda_compiled(void) { return true; }

extern "C" int cuzk_cuda_device_count(char *why, size_t n) {
  char dummy[8];
  if (!why) {
    why = dummy;
    n = sizeof dummy;
  }
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver) {
    snprintf(why, n, "no CUDA driver (libcuda.so), or one older than the CUDA %d.%d runtime "
             "(cudaGetDeviceCount: cudaErrorInsufficientDriver)", CUDART_VERSION / 1000,
             CUDART_VERSION % 1000 / 10);
    return 0;
  }
  if (e != cudaSuccess) {
    snprintf(why, n, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return 0;
  }
  if (count == 0) {
    snprintf(why, n, "no CUDA device");
    return 0;
  }
  snprintf(why, n, "ok");
  return count;
}

extern "C" bool cuzk_cuda_device_usable(int ordinal, char *why, size_t n) {
  char dummy[8];
  if (!why) {
    why = dummy;
    n = sizeof dummy;
  }
  int count = cuzk_cuda_device_count(why, n);
  if (count == 0)
    return false;
  if (ordinal < 0 || ordinal >= count) {
    snprintf(why, n, "no GPU %d (this machine has %d: 0..%d)", ordinal, count, count - 1);
    return false;
  }
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, ordinal);
  if (e != cudaSuccess) {
    snprintf(why, n, "cudaGetDeviceProperties: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return false;
  }
  if (prop.major < 9) {
    snprintf(why, n, "device %d (%s) is sm_%d%d; this build has code for sm_90 only", ordinal,
             prop.name, prop.major, prop.minor);
    return false;
  }
  /* The kernel image is loaded into the current device's context: ask on
   * `ordinal`, then give the calling thread its device back. */
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess)
    prev = 0;
  cudaFuncAttributes attr;
  e = prev == ordinal ? cudaSuccess : cuda_gc_set_device(ordinal);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attr, cuda_probe_kernel);
  if (prev != ordinal)
    cuda_gc_set_device(prev);
  if (e != cudaSuccess) {
    snprintf(why, n, "device %d (%s, sm_%d%d) cannot load this build's kernels: %s (%s)", ordinal,
             prop.name, prop.major, prop.minor, cudaGetErrorString(e), cudaGetErrorName(e));
    return false;
  }
  snprintf(why, n, "ok");
  return true;
}

extern "C" bool cuzk_cuda_available(char *why, size_t n) {
  return cuzk_cuda_device_usable(0, why, n);
}

extern "C" void cuzk_cuda_device_describe(int ordinal, char *buf, size_t n) {
  if (!buf || n == 0)
    return;
  if (!cuzk_cuda_device_usable(ordinal, buf, n))
    return;
  cudaDeviceProp prop;
  int clock_khz = 0, driver = 0, runtime = 0;
  if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess ||
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal) != cudaSuccess ||
      cudaDriverGetVersion(&driver) != cudaSuccess || cudaRuntimeGetVersion(&runtime) != cudaSuccess) {
    snprintf(buf, n, "device %d: properties unavailable", ordinal);
    return;
  }
  snprintf(buf, n, "%s, sm_%d%d, %d SMs at %d MHz, %.1f GiB, L2 %d MiB; driver %d.%d, runtime %d.%d",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
           (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024), prop.l2CacheSize >> 20,
           driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
}

extern "C" void cuzk_cuda_describe(char *buf, size_t n) { cuzk_cuda_device_describe(0, buf, n); }

extern "C" void cuzk_cuda_device_name(int ordinal, char *buf, size_t n) {
  if (!buf || n == 0)
    return;
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceProperties(&prop, ordinal);
  if (e != cudaSuccess)
    snprintf(buf, n, "GPU %d (%s)", ordinal, cudaGetErrorName(e));
  else
    snprintf(buf, n, "%s", prop.name);
}

extern "C" cuzk_status cuzk_cuda_use_device(int ordinal, cuzk_err *err) {
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur == ordinal)
    return CUZK_OK;
  CUDA_TRY(err, cuda_gc_set_device(ordinal));
  return CUZK_OK;
}

extern "C" cuzk_status cuzk_cuda_mem_info(int ordinal, uint64_t *free_bytes,
                                          uint64_t *total_bytes, cuzk_err *err) {
  *free_bytes = *total_bytes = 0;
  CUZK_TRY(cuzk_cuda_use_device(ordinal, err));
  size_t f = 0, t = 0;
  CUDA_TRY(err, cuda_gc_mem_get_info(&f, &t));
  *free_bytes = f, *total_bytes = t;
  return CUZK_OK;
}

extern "C" cuzk_status cuzk_cuda_host_alloc(void **p, size_t bytes, cuzk_err *err) {
  *p = nullptr;
  cudaError_t e = cuda_gc_malloc_host(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    *p = nullptr;
    return cuda_fail(e, __FILE__, __LINE__, "cudaMallocHost", err);
  }
  return CUZK_OK;
}

extern "C" void cuzk_cuda_host_free(void *p) {
  if (p)
    cuda_gc_free_host(p);
}

extern "C" cuzk_status cuzk_cuda_stream_priorities(int *normal, int *high, cuzk_err *err) {
  *normal = *high = 0;
  int least = 0, greatest = 0;
  CUDA_TRY(err, cudaDeviceGetStreamPriorityRange(&least, &greatest));
  *normal = least, *high = greatest;
  return CUZK_OK;
}

extern "C" cuzk_status cuzk_cuda_stream_new_priority(void **stream, int priority, cuzk_err *err) {
  cudaStream_t s = nullptr;
  *stream = nullptr;
  CUDA_TRY(err, cuda_gc_stream_new(&s, cudaStreamNonBlocking, priority));
  *stream = s;
  return CUZK_OK;
}

extern "C" cuzk_status cuzk_cuda_stream_new(void **stream, cuzk_err *err) {
  return cuzk_cuda_stream_new_priority(stream, 0, err);
}

extern "C" void cuzk_cuda_stream_free(void *stream) {
  if (stream)
    cuda_gc_stream_destroy((cudaStream_t)stream);
}

extern "C" cuzk_status cuzk_cuda_stream_sync(void *stream, cuzk_err *err) {
  CUDA_TRY(err, cudaStreamSynchronize((cudaStream_t)stream));
  return CUZK_OK;
}
