/* A GPU lost on purpose, for the lost-GPU path on real GPUs: this build's
 * GPUs as they are (backend_devices_system), except that the backends of
 * GPU `ordinal` fail every proving operation (zkey_ab, quotient, msm_g1,
 * msm_g2, bp_sums) with CUZK_DEVICE_LOST from the `after`-th such call on,
 * counted over that GPU's backends, as a GPU that fell off the bus fails
 * (the CUDA backend's cuda_fail on a sticky error).  The other GPUs, and
 * everything but those operations, are the real ones.  An engine gets it
 * as engine_config.devices.  One fault per test process at a time: the
 * state is the header's own (each test binary including it has one). */
#ifndef CUZK_TESTS_GPU_FAULT_H
#define CUZK_TESTS_GPU_FAULT_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend/device.h"

static struct {
  int ordinal;
  unsigned after;
  atomic_uint calls;   /* proving operations of the GPU so far */
  atomic_uint injected; /* of them, failed */
  backend_ops real, faulty; /* the GPU's table, and the same with the operations failing */
  pthread_mutex_t mu;
  bool made;
} gx_fault = {.mu = PTHREAD_MUTEX_INITIALIZER};

static bool gx_fault_now(cuzk_err *err) {
  if (atomic_fetch_add(&gx_fault.calls, 1) + 1 < gx_fault.after)
    return false;
  atomic_fetch_add(&gx_fault.injected, 1);
  cuzk_err_set(err, CUZK_DEVICE_LOST, "GPU %d: lost (a fault injected by the test)",
               gx_fault.ordinal);
  return true;
}

static cuzk_status gx_f_zkey_ab(backend *b, bls12_381_fr *a, bls12_381_fr *bv, size_t n,
                                const void *entries, size_t n_entries, const void *witness,
                                size_t n_witness, cuzk_err *err) {
  return gx_fault_now(err) ? CUZK_DEVICE_LOST
                           : gx_fault.real.zkey_ab(b, a, bv, n, entries, n_entries, witness,
                                                   n_witness, err);
}
static cuzk_status gx_f_quotient(backend *b, void *h, bls12_381_fr *a, bls12_381_fr *bv,
                                 bls12_381_fr *c, unsigned lg_n, cuzk_err *err) {
  return gx_fault_now(err) ? CUZK_DEVICE_LOST : gx_fault.real.quotient(b, h, a, bv, c, lg_n, err);
}
static cuzk_status gx_f_msm_g1(backend *b, bls12_381_g1_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  return gx_fault_now(err) ? CUZK_DEVICE_LOST : gx_fault.real.msm_g1(b, out, parts, nparts, err);
}
static cuzk_status gx_f_msm_g2(backend *b, bls12_381_g2_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  return gx_fault_now(err) ? CUZK_DEVICE_LOST : gx_fault.real.msm_g2(b, out, parts, nparts, err);
}
static cuzk_status gx_f_bp_sums(backend *b, backend_bp_sums *out, const backend_bp_key *k,
                                const void *values, const backend_bp_abc *abc, cuzk_err *err) {
  return gx_fault_now(err) ? CUZK_DEVICE_LOST : gx_fault.real.bp_sums(b, out, k, values, abc, err);
}

#define GX_SYS backend_devices_system()
static int gx_d_count(const backend_devices *d, char *why, size_t n) {
  return backend_device_count(GX_SYS, why, n);
}
static bool gx_d_usable(const backend_devices *d, int o, char *why, size_t n) {
  return backend_device_usable(GX_SYS, o, why, n);
}
static void gx_d_name(const backend_devices *d, int o, char *buf, size_t n) {
  backend_device_name(GX_SYS, o, buf, n);
}
static void gx_d_describe(const backend_devices *d, int o, char *buf, size_t n) {
  backend_device_describe(GX_SYS, o, buf, n);
}
static cuzk_status gx_d_mem_info(const backend_devices *d, int o, uint64_t *f, uint64_t *t,
                                 cuzk_err *err) {
  return backend_device_mem_info(GX_SYS, o, f, t, err);
}
static bool gx_d_supports(const backend_devices *d, int o, cuzk_curve c, backend_op op) {
  return backend_device_supports(GX_SYS, o, c, op);
}
static bool gx_d_has(const backend_devices *d, int o, backend_cap cap) {
  return backend_device_has(GX_SYS, o, cap);
}
static cuzk_status gx_d_host_alloc(const backend_devices *d, int o, void **p, size_t bytes,
                                   cuzk_err *err) {
  return backend_device_host_alloc(GX_SYS, o, p, bytes, err);
}
static void gx_d_host_free(const backend_devices *d, void *p) {
  backend_device_host_free(GX_SYS, p);
}
/* The real backend; on the faulty GPU its table swapped for the failing
 * one (the backend's own state is untouched: the wrappers call the real
 * entries with the same backend). */
static backend *gx_d_backend_new(const backend_devices *d, int o, const backend_device_opts *opts,
                                 cuzk_err *err) {
  backend *b = backend_device_new(GX_SYS, o, opts, err);
  if (!b || o != gx_fault.ordinal)
    return b;
  pthread_mutex_lock(&gx_fault.mu);
  if (!gx_fault.made) { /* every CUDA backend has the one table */
    gx_fault.real = *b->ops;
    gx_fault.faulty = *b->ops;
    gx_fault.faulty.zkey_ab = b->ops->zkey_ab ? gx_f_zkey_ab : NULL;
    gx_fault.faulty.quotient = b->ops->quotient ? gx_f_quotient : NULL;
    gx_fault.faulty.msm_g1 = b->ops->msm_g1 ? gx_f_msm_g1 : NULL;
    gx_fault.faulty.msm_g2 = b->ops->msm_g2 ? gx_f_msm_g2 : NULL;
    gx_fault.faulty.bp_sums = b->ops->bp_sums ? gx_f_bp_sums : NULL;
    gx_fault.made = true;
  }
  pthread_mutex_unlock(&gx_fault.mu);
  b->ops = &gx_fault.faulty;
  return b;
}
#undef GX_SYS

static const backend_devices_ops gx_fault_ops = {
    .kind = "cuda with a fault",
    .count = gx_d_count,
    .usable = gx_d_usable,
    .name = gx_d_name,
    .describe = gx_d_describe,
    .mem_info = gx_d_mem_info,
    .supports = gx_d_supports,
    .has = gx_d_has,
    .backend_new = gx_d_backend_new,
    .host_alloc = gx_d_host_alloc,
    .host_free = gx_d_host_free,
};
static const backend_devices gx_fault_devices = {.ops = &gx_fault_ops};

/* Arms the fault: GPU `ordinal` fails from its `after`-th proving
 * operation on (after >= 1); the registry to give the engine. */
static const backend_devices *gx_fault_arm(int ordinal, unsigned after) {
  gx_fault.ordinal = ordinal;
  gx_fault.after = after;
  atomic_store(&gx_fault.calls, 0);
  atomic_store(&gx_fault.injected, 0);
  return &gx_fault_devices;
}

#endif
