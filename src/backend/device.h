/* device.h: the devices a backend can run on, and a backend for one of them.
 *
 * DESIGN: a provider is a table of functions over devices numbered 0 ..
 * count - 1, with a capability query (docs/DESIGN.md §2.1): how many there are
 * (and why none), whether one is usable, its name and one-line
 * description, its free and total memory, whether it can run an operation
 * on a curve, whether its backends keep resident copies or its host memory
 * can be page-locked, page-locked host allocation, and a backend for it.
 * Everything above backend/ (the engine, the CLI) reaches a GPU only
 * through these calls; none of them includes cuda/.
 *
 * backend_devices_system() is this build's provider: the CUDA GPUs
 * (backend/cuda), or, in a build without CUDA (no nvcc, or `make CUDA=0`:
 * the Makefile compiles neither src/cuda nor src/backend/cuda and this
 * file's registry with CUZK_CUDA=0), none, with the reason.  A caller may
 * pass another provider: the tests' stand-in GPUs (CPU backends with the
 * GPU paths of the engine around them) are one, given to the engine as
 * engine_config.devices.  Every function below takes the provider first;
 * NULL means backend_devices_system().
 *
 * Threads: queries may be made from any thread.  A CUDA query that names
 * an ordinal leaves the calling thread's current device as it was, except
 * backend_device_mem_info and backend_device_new, which make that device
 * current (a GPU slot's thread calls them for its own device only). */
#ifndef CUZK_BACKEND_DEVICE_H
#define CUZK_BACKEND_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/store.h"
#include "base/err.h"

/* How a backend for a device is made. */
typedef struct backend_device_opts {
  unsigned threads;     /* host threads of its CPU steps (0: every online core) */
  backend_store *store; /* resident copies shared with the device's other backends
                           (NULL: its own); outlives the backend */
  unsigned slot;        /* the caller's index of the backend among its device's
                           (the engine's slot); only the provider's bookkeeping */
  /* NTT plans with a table of the first pass's twiddle factors in the
   * data's order (CUDA: cuda_ntt_config.pass1_table): 32 bytes per domain
   * element more on the device for each plan, one multiplication less per
   * element of the first pass.  Off by default (bench/RESULTS.md has the
   * figures on the H200). */
  bool ntt_pass1_table;
  /* TESTING ONLY (CUDA): the kernels run on the host through the
   * emulators of src/cuda, no GPU call is made, host memory stands in for
   * device and page-locked memory; slow, for tests of the backend's paths
   * where there is no GPU (tests/gpu).  backend_device_new refuses it. */
  bool emulate;
} backend_device_opts;

/* What a device offers beyond the operations (backend_device_has). */
typedef enum {
  /* Its backends keep MSM base sets and a key's coefficients resident
   * between proofs (backend_ops.hold_bases), in a store shared by the
   * backends of the device (backend_device_opts.store). */
  BACKEND_CAP_RESIDENT,
  /* backend_device_host_alloc gives page-locked host memory, which the
   * device copies to and from at the bus's speed. */
  BACKEND_CAP_HOST_PINNED,
} backend_cap;

typedef struct backend_devices backend_devices;

/* A provider's table.  Entries marked optional may be NULL; the functions
 * below then give the default named there.  Ordinals reaching an entry
 * other than count are in 0 .. count - 1 (the callers check). */
typedef struct {
  const char *kind; /* "cuda", "none", a test's name */
  /* Devices seen, whatever their kind; 0, with the reason in why (n bytes,
   * may be NULL), when there are none. */
  int (*count)(const backend_devices *d, char *why, size_t n);
  /* Optional (default: yes).  Whether this build's code can run on it;
   * false with the reason. */
  bool (*usable)(const backend_devices *d, int ordinal, char *why, size_t n);
  /* Optional (default "GPU <ordinal>").  Its name ("NVIDIA H200"). */
  void (*name)(const backend_devices *d, int ordinal, char *buf, size_t n);
  /* Optional (default: the name).  One line, e.g. "NVIDIA H200, sm_90,
   * 132 SMs at 1980 MHz, 139.8 GiB, L2 60 MiB; driver 13.0, runtime 13.0". */
  void (*describe)(const backend_devices *d, int ordinal, char *buf, size_t n);
  /* Optional (default: UNSUPPORTED).  Free and total device memory now. */
  cuzk_status (*mem_info)(const backend_devices *d, int ordinal, uint64_t *free_bytes,
                          uint64_t *total_bytes, cuzk_err *err);
  /* Whether its backends run op on curve. */
  bool (*supports)(const backend_devices *d, int ordinal, cuzk_curve curve, backend_op op);
  /* Optional (default: no capability). */
  bool (*has)(const backend_devices *d, int ordinal, backend_cap cap);
  /* A backend on the device (see backend_device_new). */
  backend *(*backend_new)(const backend_devices *d, int ordinal, const backend_device_opts *o,
                          cuzk_err *err);
  /* Optional; present when some device has BACKEND_CAP_HOST_PINNED. */
  cuzk_status (*host_alloc)(const backend_devices *d, int ordinal, void **p, size_t bytes,
                            cuzk_err *err);
  void (*host_free)(const backend_devices *d, void *p);
} backend_devices_ops;

struct backend_devices {
  const backend_devices_ops *ops;
  void *ctx; /* the provider's own */
};

/* This build's devices: the CUDA GPUs, or none ("this build has no CUDA
 * code (nvcc was not found, or CUDA=0)"). */
const backend_devices *backend_devices_system(void);

/* Devices seen (0, with the reason in why, when none). */
int backend_device_count(const backend_devices *d, char *why, size_t n);
/* Whether device `ordinal` can run this build's code; false with the
 * reason ("no GPU 3 (this machine has 2: 0..1)", "device 0 (...) is
 * sm_80; this build has code for sm_90 only", ...). */
bool backend_device_usable(const backend_devices *d, int ordinal, char *why, size_t n);
/* Its name, or "GPU <ordinal>" when it has none; always NUL-terminates. */
void backend_device_name(const backend_devices *d, int ordinal, char *buf, size_t n);
/* One line describing it, or the reason it is not usable; always
 * NUL-terminates. */
void backend_device_describe(const backend_devices *d, int ordinal, char *buf, size_t n);
/* Its free and total memory (zeros and a status on failure). */
cuzk_status backend_device_mem_info(const backend_devices *d, int ordinal, uint64_t *free_bytes,
                                    uint64_t *total_bytes, cuzk_err *err);
/* Can device `ordinal` run op on curve?  False for one that does not
 * exist; the answer for one that is not usable is the provider's (CUDA:
 * false).  Cheap enough to ask per device at start, not per proof. */
bool backend_device_supports(const backend_devices *d, int ordinal, cuzk_curve curve,
                             backend_op op);
/* Every op of backend_op on curve (what a Groth16 proof needs). */
bool backend_device_supports_all(const backend_devices *d, int ordinal, cuzk_curve curve);
/* Does device `ordinal` offer cap?  False for one that does not exist. */
bool backend_device_has(const backend_devices *d, int ordinal, backend_cap cap);

/* A backend on device `ordinal`, made on the calling thread, which becomes
 * the device's (CUDA: the device is made current; the backend's streams
 * are made there, and each of its operations makes it current first: a
 * no-op on that thread).  NULL, with the reason in err: UNSUPPORTED for a
 * device that is not usable (or o->emulate), NO_MEMORY, or the device's
 * error.  o may be NULL (all defaults). */
backend *backend_device_new(const backend_devices *d, int ordinal, const backend_device_opts *o,
                            cuzk_err *err);

/* Page-locked host memory of `bytes` (a provider with
 * BACKEND_CAP_HOST_PINNED; CUDA: cudaMallocHost, after making device
 * `ordinal` the calling thread's current one - it stays so - so that the
 * allocation makes no context on a GPU the caller does not use: an engine
 * passes one of its GPUs).  *p = NULL and a status on failure: UNSUPPORTED
 * where the provider has none.  Free it with backend_device_host_free of
 * the same provider (NULL is fine). */
cuzk_status backend_device_host_alloc(const backend_devices *d, int ordinal, void **p,
                                      size_t bytes, cuzk_err *err);
void backend_device_host_free(const backend_devices *d, void *p);

#endif
