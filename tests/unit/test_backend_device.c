/* The device registry (backend/device.h): this build's devices where there
 * is no usable GPU (a build without CUDA: none, with the reason; a CUDA
 * build on a machine without a GPU: none, with the driver's reason), and a
 * provider's optional entries filled in with their defaults, its ordinals
 * checked, its options passed through to the backend it makes. */
#include "harness.h"

#include "backend/device.h"

#define NO_CUDA "this build has no CUDA code (nvcc was not found, or CUDA=0)"

TEST(devices_system_without_gpu) {
  const backend_devices *sys = backend_devices_system();
  CHECK(sys && sys->ops && sys->ops->kind);
  if (backend_device_usable(NULL, 0, NULL, 0))
    TEST_SKIP("a GPU is usable here: tests/gpu covers it");
  const bool none = !strcmp(sys->ops->kind, "none");
  CHECK_MSG(none || !strcmp(sys->ops->kind, "cuda"), "kind %s", sys->ops->kind);
  char why[256] = "";
  int count = backend_device_count(NULL, why, sizeof why);
  if (none) {
    CHECK_EQ_INT(count, 0);
    CHECK_EQ_STR(why, NO_CUDA);
  }
  if (count == 0)
    CHECK(why[0]);
  why[0] = 0;
  CHECK(!backend_device_usable(NULL, 0, why, sizeof why));
  CHECK(why[0]);
  if (none)
    CHECK_EQ_STR(why, NO_CUDA);
  char desc[256];
  backend_device_describe(NULL, 0, desc, sizeof desc);
  CHECK_EQ_STR(desc, why); /* the reason */
  uint64_t f = 1, t = 1;
  cuzk_err err = {0};
  CHECK(backend_device_mem_info(NULL, count, &f, &t, &err) != CUZK_OK);
  CHECK(f == 0 && t == 0);
  CHECK(!backend_device_supports(NULL, 0, CUZK_CURVE_BLS12_381, BACKEND_OP_MSM_G1));
  CHECK(!backend_device_supports_all(NULL, 0, CUZK_CURVE_BLS12_381));
  CHECK(backend_device_new(NULL, 0, NULL, &err) == NULL);
  CHECK_EQ_INT(err.status, CUZK_UNSUPPORTED);
  CHECK_MSG(strstr(err.msg, "no usable GPU 0: ") && strstr(err.msg, why), "%s", err.msg);
  if (none) {
    CHECK(!backend_device_has(NULL, 0, BACKEND_CAP_HOST_PINNED));
    void *p = &p;
    CHECK_EQ_INT(backend_device_host_alloc(NULL, 0, &p, 64, &err), CUZK_UNSUPPORTED);
    CHECK(p == NULL);
    backend_device_host_free(NULL, NULL);
  }
}

/* ------------------------------------------------------------ a stand-in provider */

typedef struct {
  int count;
  backend_device_opts seen; /* what the last backend_new was given */
  int made;
} standin;

static int sd_count(const backend_devices *d, char *why, size_t n) {
  const standin *s = d->ctx;
  snprintf(why, n, "no stand-in");
  return s->count;
}

static bool sd_supports(const backend_devices *d, int ordinal, cuzk_curve curve, backend_op op) {
  (void)d, (void)ordinal;
  return curve == CUZK_CURVE_BLS12_381 && op != BACKEND_OP_MSM_G2;
}

static backend *sd_backend_new(const backend_devices *d, int ordinal, const backend_device_opts *o,
                               cuzk_err *err) {
  standin *s = d->ctx;
  CHECK(ordinal >= 0 && ordinal < s->count); /* the registry checked it */
  s->seen = *o;
  s->made++;
  backend *b = backend_cpu_new(o->threads);
  if (!b)
    cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  return b;
}

static const backend_devices_ops sd_ops = {
    .kind = "test",
    .count = sd_count,
    .supports = sd_supports,
    .backend_new = sd_backend_new,
};

TEST(devices_provider_defaults) {
  standin s = {.count = 2};
  const backend_devices d = {.ops = &sd_ops, .ctx = &s};
  char buf[256];
  CHECK_EQ_INT(backend_device_count(&d, buf, sizeof buf), 2);
  CHECK(backend_device_usable(&d, 1, buf, sizeof buf));
  CHECK_EQ_STR(buf, "ok");
  CHECK(!backend_device_usable(&d, 2, buf, sizeof buf));
  CHECK_EQ_STR(buf, "no GPU 2 (this machine has 2: 0..1)");
  CHECK(!backend_device_usable(&d, -1, buf, sizeof buf));
  backend_device_name(&d, 1, buf, sizeof buf);
  CHECK_EQ_STR(buf, "GPU 1");
  backend_device_describe(&d, 0, buf, sizeof buf);
  CHECK_EQ_STR(buf, "GPU 0");
  backend_device_describe(&d, 5, buf, sizeof buf);
  CHECK_EQ_STR(buf, "no GPU 5 (this machine has 2: 0..1)");
  uint64_t f = 1, t = 1;
  cuzk_err err = {0};
  CHECK_EQ_INT(backend_device_mem_info(&d, 0, &f, &t, &err), CUZK_UNSUPPORTED);
  CHECK(f == 0 && t == 0);
  CHECK(backend_device_supports(&d, 0, CUZK_CURVE_BLS12_381, BACKEND_OP_MSM_G1));
  CHECK(!backend_device_supports(&d, 2, CUZK_CURVE_BLS12_381, BACKEND_OP_MSM_G1));
  CHECK(!backend_device_supports(&d, 0, CUZK_CURVE_BN254, BACKEND_OP_MSM_G1));
  CHECK(!backend_device_supports_all(&d, 0, CUZK_CURVE_BLS12_381)); /* no G2 MSM */
  CHECK(!backend_device_has(&d, 0, BACKEND_CAP_RESIDENT));
  void *p = &p;
  CHECK_EQ_INT(backend_device_host_alloc(&d, 0, &p, 8, &err), CUZK_UNSUPPORTED);
  CHECK(p == NULL);
  s.count = 0;
  CHECK_EQ_INT(backend_device_count(&d, buf, sizeof buf), 0);
  CHECK_EQ_STR(buf, "no stand-in");
  CHECK(!backend_device_usable(&d, 0, buf, sizeof buf));
  CHECK_EQ_STR(buf, "no stand-in");
}

TEST(devices_backend_new_passes_options) {
  standin s = {.count = 2};
  const backend_devices d = {.ops = &sd_ops, .ctx = &s};
  cuzk_err err = {0};
  const backend_device_opts o = {.threads = 3, .slot = 5, .ntt_pass1_table = true};
  backend *b = backend_device_new(&d, 1, &o, &err);
  CHECK_MSG(b, "%s", err.msg);
  CHECK_EQ_INT(s.made, 1);
  CHECK(s.seen.threads == 3 && s.seen.slot == 5 && s.seen.ntt_pass1_table && !s.seen.emulate);
  CHECK_EQ_INT(b->threads, 3);
  backend_free(b);
  b = backend_device_new(&d, 0, NULL, &err); /* all defaults */
  CHECK(b);
  CHECK(s.seen.threads == 0 && !s.seen.ntt_pass1_table && s.seen.store == NULL);
  backend_free(b);
  /* refused before the provider is asked */
  CHECK(backend_device_new(&d, 2, &o, &err) == NULL);
  CHECK_EQ_INT(err.status, CUZK_UNSUPPORTED);
  CHECK_EQ_STR(err.msg, "no usable GPU 2: no GPU 2 (this machine has 2: 0..1)");
  const backend_device_opts emu = {.emulate = true};
  CHECK(backend_device_new(&d, 0, &emu, &err) == NULL);
  CHECK_EQ_INT(err.status, CUZK_UNSUPPORTED);
  CHECK_EQ_INT(s.made, 2);
}
