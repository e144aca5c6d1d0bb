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

/* Whether a CUDA error is "sticky": it leaves the context of the device in
 * use unusable, so that every later call on that device in this process
 * fails too (CUZK_DEVICE_LOST; the engine then takes the GPU out of
 * service, engine/worker.c).  The list is the CUDA 13 runtime's
 * driver_types.h: the errors documented as "This leaves the process in an
 * inconsistent state and any further CUDA work will return the same error.
 * To continue using CUDA, the process must be terminated and relaunched"
 * (or, for cudaErrorAssert, "The device cannot be used again"), plus:
 *   cudaErrorECCUncorrectable: documented only as "an uncorrectable ECC
 *     error was detected during execution"; the memory of the context is
 *     corrupt, the driver reports it as a fatal Xid (48) and the GPU needs
 *     a reset to retire the page, so no result from it can be trusted.
 *   cudaErrorContextIsDestroyed: the context of the device is gone (another
 *     caller reset the device under us): every stream, event and allocation
 *     the slots hold on it is invalid.
 * Not sticky, decided so:
 *   cudaErrorLaunchOutOfResources, cudaErrorInvalidConfiguration: the
 *     launch was refused before it ran; the context is intact (a bug of
 *     ours: INTERNAL).
 *   cudaErrorDevicesUnavailable: the device is busy or prohibited (compute
 *     mode exclusive-process, another process's kernels): a state of the
 *     machine that can pass, not a corrupt context.  INTERNAL fails the one
 *     job.
 *   cudaErrorUnknown: not documented as sticky, and returned for failures
 *     that leave the context usable.  Taking a GPU out of service is for
 *     good (until a restart), so it is not done on a guess: a GPU that is
 *     really dead and answers only this fails each job it takes with
 *     INTERNAL - the daemon stays up and says why - until the operator
 *     restarts it (docs/daemon.md).
 * cudaErrorContained and cudaErrorTensorMemoryLeak are in the runtime's
 * enum from CUDA 12.8 on (both sticky by the same wording). */
static bool cuda_sticky(cudaError_t e) {
  switch (e) {
  case cudaErrorIllegalAddress:       /* 700 */
  case cudaErrorLaunchTimeout:        /* 702: a kernel ran past the watchdog */
  case cudaErrorAssert:               /* 710 */
  case cudaErrorHardwareStackError:   /* 714 */
  case cudaErrorIllegalInstruction:   /* 715 */
  case cudaErrorMisalignedAddress:    /* 716 */
  case cudaErrorInvalidAddressSpace:  /* 717 */
  case cudaErrorInvalidPc:            /* 718 */
  case cudaErrorLaunchFailure:        /* 719 */
  case cudaErrorECCUncorrectable:     /* 214 */
  case cudaErrorContextIsDestroyed:   /* 709 */
  case cudaErrorMpsClientTerminated:  /* 810 */
  case cudaErrorExternalDevice:       /* 911 */
#if CUDART_VERSION >= 12080
  case cudaErrorContained:            /* 226 */
  case cudaErrorTensorMemoryLeak:     /* 721 */
#endif
    return true;
  default:
    return false;
  }
}

cuzk_status cuda_fail(cudaError_t e, const char *file, int line, const char *what, cuzk_err *err) {
  cuzk_status s = CUZK_INTERNAL;
  if (cuda_sticky(e)) {
    s = CUZK_DEVICE_LOST;
  } else {
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
  }
  /* cudaGetErrorString and cudaGetErrorName are tables in the runtime:
   * they need no driver and no context, so they are safe on a lost one. */
  return cuzk_err_set(err, s, "%s:%d: %s: %s (%s)", file, line, what, cudaGetErrorString(e),
                      cudaGetErrorName(e));
}

/* For tests (tests/gpu/test_gpu_errors.c, which is C and runs without a
 * GPU): what cuda_fail makes of CUDA error `code`.  Declared there, not in
 * cuda.h: no caller of the library needs it. */
extern "C" cuzk_status cuzk_cuda_status_of_error(int code, const char *what, cuzk_err *err) {
  return cuda_fail((cudaError_t)code, __FILE__, __LINE__, what, err);
}

/* Launched never; its attributes say whether this build has code the device can run. */
__global__ void cuda_probe_kernel(int *x) { *x = 1; }

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

extern "C" cuzk_status cuzk_cuda_dev_alloc(void **p, size_t bytes, cuzk_err *err) {
  *p = nullptr;
  cudaError_t e = cuda_gc_malloc(p, bytes ? bytes : 1);
  if (e != cudaSuccess) {
    *p = nullptr;
    return cuda_fail(e, __FILE__, __LINE__, "cudaMalloc", err);
  }
  return CUZK_OK;
}

extern "C" void cuzk_cuda_dev_free(void *p) {
  if (p)
    cuda_gc_free(p);
}

extern "C" cuzk_status cuzk_cuda_copy_to_device(void *dev, const void *host, size_t bytes,
                                                void *stream, cuzk_err *err) {
  if (bytes)
    CUDA_TRY(err, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
  return CUZK_OK;
}

extern "C" cuzk_status cuzk_cuda_copy_to_host(void *host, const void *dev, size_t bytes,
                                              void *stream, cuzk_err *err) {
  if (bytes)
    CUDA_TRY(err, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
  return CUZK_OK;
}

extern "C" cuzk_status cuzk_cuda_stream_sync(void *stream, cuzk_err *err) {
  CUDA_TRY(err, cudaStreamSynchronize((cudaStream_t)stream));
  return CUZK_OK;
}
