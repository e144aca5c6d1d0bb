/* The device registry (device.h): the calls every caller makes, over any
 * provider, and this build's provider.
 *
 * DESIGN: the one build switch of the registry is CUZK_CUDA, set by the
 * Makefile on this file only (1 when the CUDA code is compiled in): with
 * it the system provider is the CUDA one (backend/cuda/cuda_backend.c),
 * without it a provider of no devices whose count says why.  The calls
 * check the ordinal against the provider's count before they reach an
 * entry, and fill in the defaults of the optional entries, so that a
 * provider (a test's stand-ins) states only what it has. */
#include <stdio.h>

#include "backend/device.h"

#ifndef CUZK_CUDA
#error "CUZK_CUDA must be 0 or 1 (the Makefile sets it for this file)"
#endif
#if CUZK_CUDA
#include "backend/cuda/cuda_backend.h"
#endif

/* ------------------------------------------------------------ no devices */

#if !CUZK_CUDA
#define NO_CUDA "this build has no CUDA code (nvcc was not found, or CUDA=0)"

static int none_count(const backend_devices *d, char *why, size_t n) {
  (void)d;
  if (why && n)
    snprintf(why, n, "%s", NO_CUDA);
  return 0;
}

static bool none_supports(const backend_devices *d, int ordinal, cuzk_curve curve, backend_op op) {
  (void)d, (void)ordinal, (void)curve, (void)op;
  return false;
}

static backend *none_backend_new(const backend_devices *d, int ordinal,
                                 const backend_device_opts *o, cuzk_err *err) {
  (void)d, (void)o;
  cuzk_err_set(err, CUZK_UNSUPPORTED, "no GPU %d: %s", ordinal, NO_CUDA);
  return NULL;
}

static const backend_devices_ops none_ops = {
    .kind = "none",
    .count = none_count,
    .supports = none_supports,
    .backend_new = none_backend_new,
};

static const backend_devices no_devices = {.ops = &none_ops};
#endif

const backend_devices *backend_devices_system(void) {
#if CUZK_CUDA
  return &backend_cuda_devices;
#else
  return &no_devices;
#endif
}

/* ------------------------------------------------------------ the calls */

static const backend_devices *or_system(const backend_devices *d) {
  return d ? d : backend_devices_system();
}

/* Whether ordinal names a device of d; else false with the reason. */
static bool exists(const backend_devices *d, int ordinal, char *why, size_t n) {
  char reason[256] = "";
  int count = d->ops->count(d, reason, sizeof reason);
  if (count > 0 && ordinal >= 0 && ordinal < count)
    return true;
  if (why && n) {
    if (count <= 0)
      snprintf(why, n, "%s", reason[0] ? reason : "no device");
    else
      snprintf(why, n, "no GPU %d (this machine has %d: 0..%d)", ordinal, count, count - 1);
  }
  return false;
}

int backend_device_count(const backend_devices *d, char *why, size_t n) {
  d = or_system(d);
  char dummy[8];
  if (!why || !n)
    why = dummy, n = sizeof dummy;
  int count = d->ops->count(d, why, n);
  return count > 0 ? count : 0;
}

bool backend_device_usable(const backend_devices *d, int ordinal, char *why, size_t n) {
  d = or_system(d);
  if (!exists(d, ordinal, why, n))
    return false;
  if (!d->ops->usable) {
    if (why && n)
      snprintf(why, n, "ok");
    return true;
  }
  char dummy[8];
  if (!why || !n)
    why = dummy, n = sizeof dummy;
  return d->ops->usable(d, ordinal, why, n);
}

void backend_device_name(const backend_devices *d, int ordinal, char *buf, size_t n) {
  d = or_system(d);
  if (!buf || !n)
    return;
  if (d->ops->name && exists(d, ordinal, NULL, 0))
    d->ops->name(d, ordinal, buf, n);
  else
    snprintf(buf, n, "GPU %d", ordinal);
}

void backend_device_describe(const backend_devices *d, int ordinal, char *buf, size_t n) {
  d = or_system(d);
  if (!buf || !n)
    return;
  if (!backend_device_usable(d, ordinal, buf, n))
    return; /* buf holds the reason */
  if (d->ops->describe)
    d->ops->describe(d, ordinal, buf, n);
  else
    backend_device_name(d, ordinal, buf, n);
}

cuzk_status backend_device_mem_info(const backend_devices *d, int ordinal, uint64_t *free_bytes,
                                    uint64_t *total_bytes, cuzk_err *err) {
  d = or_system(d);
  *free_bytes = *total_bytes = 0;
  char why[256];
  if (!exists(d, ordinal, why, sizeof why))
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s", why);
  if (!d->ops->mem_info)
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s devices: no memory figures", d->ops->kind);
  cuzk_status st = d->ops->mem_info(d, ordinal, free_bytes, total_bytes, err);
  if (st != CUZK_OK)
    *free_bytes = *total_bytes = 0;
  return st;
}

bool backend_device_supports(const backend_devices *d, int ordinal, cuzk_curve curve,
                             backend_op op) {
  d = or_system(d);
  return exists(d, ordinal, NULL, 0) && d->ops->supports(d, ordinal, curve, op);
}

bool backend_device_supports_all(const backend_devices *d, int ordinal, cuzk_curve curve) {
  for (int op = 0; op < BACKEND_OP_COUNT; op++)
    if (!backend_device_supports(d, ordinal, curve, (backend_op)op))
      return false;
  return true;
}

bool backend_device_has(const backend_devices *d, int ordinal, backend_cap cap) {
  d = or_system(d);
  return d->ops->has && exists(d, ordinal, NULL, 0) && d->ops->has(d, ordinal, cap);
}

backend *backend_device_new(const backend_devices *d, int ordinal, const backend_device_opts *o,
                            cuzk_err *err) {
  d = or_system(d);
  static const backend_device_opts defaults = {0};
  if (!o)
    o = &defaults;
  if (o->emulate) {
    cuzk_err_set(err, CUZK_UNSUPPORTED, "an emulated backend is for tests only (tests/gpu)");
    return NULL;
  }
  char why[256];
  if (!backend_device_usable(d, ordinal, why, sizeof why)) {
    cuzk_err_set(err, CUZK_UNSUPPORTED, "no usable GPU %d: %s", ordinal, why);
    return NULL;
  }
  return d->ops->backend_new(d, ordinal, o, err);
}

cuzk_status backend_device_host_alloc(const backend_devices *d, int ordinal, void **p,
                                      size_t bytes, cuzk_err *err) {
  d = or_system(d);
  *p = NULL;
  if (!d->ops->host_alloc)
    return cuzk_err_set(err, CUZK_UNSUPPORTED, "%s devices: no page-locked host memory",
                        d->ops->kind);
  return d->ops->host_alloc(d, ordinal, p, bytes, err);
}

void backend_device_host_free(const backend_devices *d, void *p) {
  d = or_system(d);
  if (p && d->ops->host_free)
    d->ops->host_free(d, p);
}
