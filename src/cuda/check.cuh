/* CUDA return codes into cuzk statuses, with the file and line.
 *
 * DESIGN: every CUDA runtime call in src/cuda is wrapped in CUDA_TRY (or its
 * result passed to cuda_fail), so a failure becomes a cuzk_status plus a
 * message "file:line: call: text (cudaErrorName)" in the caller's cuzk_err,
 * and nothing aborts (docs/DESIGN.md §2.1).  Device memory and streams that a
 * function owns are held by the small RAII types below, so an early return
 * releases them; they release through gcall.cuh's counted wrappers, as
 * every device-global call in cuzk must (gcall.h). */
#ifndef CUZK_CUDA_CHECK_CUH
#define CUZK_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include "cuda/gcall.cuh"

extern "C" {
#include "base/err.h"
}

/* Fills err from a failed CUDA call and returns its status:
 * a sticky error, one that leaves the device's context unusable (an illegal
 * address, a kernel fault or assert, an uncorrectable ECC error, ...: the
 * list and the reasons are in device.cu) -> CUZK_DEVICE_LOST, on which the
 * engine takes the GPU out of service; out of memory -> CUZK_NO_MEMORY; no
 * device, no driver, no code for the device -> CUZK_UNSUPPORTED; anything
 * else -> CUZK_INTERNAL.  The message ends with the error's name, e.g.
 * "(cudaErrorIllegalAddress)".  After a sticky error a caller makes no
 * CUDA call on that device beyond freeing what it holds (those fail too,
 * and are ignored). */
cuzk_status cuda_fail(cudaError_t e, const char *file, int line, const char *what, cuzk_err *err);

#define CUDA_TRY(err, call)                                        \
  do {                                                             \
    cudaError_t cuda_try_e_ = (call);                              \
    if (cuda_try_e_ != cudaSuccess)                                \
      return cuda_fail(cuda_try_e_, __FILE__, __LINE__, #call, err); \
  } while (0)

/* A CUDA handle owned by a scope: released by `destroy` when the scope
 * ends (an error there has been reported by the call that failed). */
template <class T, cudaError_t (*destroy)(T)>
struct cuda_owned {
  T h = nullptr;
  cuda_owned() = default;
  cuda_owned(const cuda_owned &) = delete;
  cuda_owned &operator=(const cuda_owned &) = delete;
  ~cuda_owned() {
    if (h)
      destroy(h);
  }
};
typedef cuda_owned<void *, cuda_gc_free> cuda_buf; /* device memory */
typedef cuda_owned<cudaStream_t, cuda_gc_stream_destroy> cuda_stream;
typedef cuda_owned<cudaEvent_t, cuda_gc_event_destroy> cuda_event;

#endif
