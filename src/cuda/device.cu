/* Device discovery and CUDA error conversion (see cuda.h and check.cuh).
 *
 * DESIGN: no global state.  Each query asks the runtime afresh; the runtime
 * is linked statically (libcudart_static), so a binary needs only the driver
 * (libcuda.so) on the machine, and without one the first call returns
 * cudaErrorInsufficientDriver, which becomes a reason, not a crash. */
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

extern "C" bool cuzk_cuda_available(char *why, size_t n) {
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
    return false;
  }
  if (e != cudaSuccess) {
    snprintf(why, n, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return false;
  }
  if (count == 0) {
    snprintf(why, n, "no CUDA device");
    return false;
  }
  cudaDeviceProp prop;
  e = cudaGetDeviceProperties(&prop, 0);
  if (e != cudaSuccess) {
    snprintf(why, n, "cudaGetDeviceProperties: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return false;
  }
  if (prop.major < 9) {
    snprintf(why, n, "device 0 (%s) is sm_%d%d; this build has code for sm_90 only", prop.name,
             prop.major, prop.minor);
    return false;
  }
  cudaFuncAttributes attr;
  e = cudaFuncGetAttributes(&attr, cuda_probe_kernel);
  if (e != cudaSuccess) {
    snprintf(why, n, "device 0 (%s, sm_%d%d) cannot load this build's kernels: %s (%s)", prop.name,
             prop.major, prop.minor, cudaGetErrorString(e), cudaGetErrorName(e));
    return false;
  }
  snprintf(why, n, "ok");
  return true;
}

extern "C" void cuzk_cuda_describe(char *buf, size_t n) {
  if (!buf || n == 0)
    return;
  if (!cuzk_cuda_available(buf, n))
    return;
  cudaDeviceProp prop;
  int clock_khz = 0, driver = 0, runtime = 0;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0) != cudaSuccess ||
      cudaDriverGetVersion(&driver) != cudaSuccess || cudaRuntimeGetVersion(&runtime) != cudaSuccess) {
    snprintf(buf, n, "device 0: properties unavailable");
    return;
  }
  snprintf(buf, n, "%s, sm_%d%d, %d SMs at %d MHz, %.1f GiB, L2 %d MiB; driver %d.%d, runtime %d.%d",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
           (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024), prop.l2CacheSize >> 20,
           driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
}

extern "C" cuzk_status cuzk_cuda_host_alloc(void **p, size_t bytes, cuzk_err *err) {
  *p = nullptr;
  cudaError_t e = cudaMallocHost(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    *p = nullptr;
    return cuda_fail(e, __FILE__, __LINE__, "cudaMallocHost", err);
  }
  return CUZK_OK;
}

extern "C" void cuzk_cuda_host_free(void *p) {
  if (p)
    cudaFreeHost(p);
}

extern "C" cuzk_status cuzk_cuda_stream_new(void **stream, cuzk_err *err) {
  cudaStream_t s = nullptr;
  *stream = nullptr;
  CUDA_TRY(err, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  *stream = s;
  return CUZK_OK;
}

extern "C" void cuzk_cuda_stream_free(void *stream) {
  if (stream)
    cudaStreamDestroy((cudaStream_t)stream);
}
