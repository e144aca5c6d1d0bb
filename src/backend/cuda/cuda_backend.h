/* The CUDA backend's entry points below the registry: its provider, which
 * backend/device.c returns as the system's in a CUDA build, and its
 * constructor, for that provider and for tests/gpu (an emulated backend,
 * backend_device_opts.emulate, which the registry refuses).  Callers above
 * backend/ use backend/device.h instead. */
#ifndef CUZK_BACKEND_CUDA_CUDA_BACKEND_H
#define CUZK_BACKEND_CUDA_CUDA_BACKEND_H

#include "backend/device.h"

/* The GPUs of this machine that the CUDA runtime sees. */
extern const backend_devices backend_cuda_devices;

/* The CUDA backend on GPU `ordinal` (no usability check: the registry's
 * backend_device_new makes it), or emulated on the host (o->emulate). */
backend *backend_cuda_new(int ordinal, const backend_device_opts *o, cuzk_err *err);

#endif
