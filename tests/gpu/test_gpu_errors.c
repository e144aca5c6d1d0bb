/* CUDA errors into cuzk statuses (src/cuda/device.cu cuda_fail): a sticky
 * error (the device's context is unusable) is DEVICE_LOST, out of memory
 * NO_MEMORY, no device/driver/kernel image UNSUPPORTED, anything else
 * INTERNAL, and the message names the call, the file and the error.
 *
 * No GPU is needed, nor a driver: cuda_fail only reads the runtime's
 * tables (cudaGetErrorName, cudaGetErrorString), which the static runtime
 * answers without initializing anything - these tests run in CI, where
 * there is no libcuda.so, and so check that too.  The codes are the CUDA 13 runtime's
 * (driver_types.h); each check also reads the name back from the message,
 * so a wrong number here fails instead of testing another error. */
#include "gpu_test.h"

#include "cuzk/status.h"

/* src/cuda/device.cu, for tests only. */
cuzk_status cuzk_cuda_status_of_error(int code, const char *what, cuzk_err *err);

typedef struct {
  int code;
  const char *name;
} cuda_code;

/* The sticky errors: documented as leaving the process's CUDA state
 * unusable, plus ECC and a destroyed context (device.cu says why). */
static const cuda_code sticky[] = {
    {700, "cudaErrorIllegalAddress"},      {702, "cudaErrorLaunchTimeout"},
    {710, "cudaErrorAssert"},              {714, "cudaErrorHardwareStackError"},
    {715, "cudaErrorIllegalInstruction"},  {716, "cudaErrorMisalignedAddress"},
    {717, "cudaErrorInvalidAddressSpace"}, {718, "cudaErrorInvalidPc"},
    {719, "cudaErrorLaunchFailure"},       {214, "cudaErrorECCUncorrectable"},
    {709, "cudaErrorContextIsDestroyed"},  {810, "cudaErrorMpsClientTerminated"},
    {911, "cudaErrorExternalDevice"},
};
/* Sticky too where the runtime knows them (CUDA 12.8 on). */
static const cuda_code sticky_new[] = {{226, "cudaErrorContained"},
                                       {721, "cudaErrorTensorMemoryLeak"}};

/* The status of `code`; its message must name `name` and the call. */
static cuzk_status status_of(int code, const char *name) {
  cuzk_err err = {0};
  cuzk_status s = cuzk_cuda_status_of_error(code, "cudaStreamSynchronize(s)", &err);
  CHECK_EQ_INT(err.status, s);
  if (name) {
    char want[96];
    snprintf(want, sizeof want, "(%s)", name);
    CHECK_MSG(strstr(err.msg, want), "code %d: no '%s' in: %s", code, want, err.msg);
  }
  CHECK_MSG(strstr(err.msg, "cudaStreamSynchronize(s): ") && strstr(err.msg, "device.cu:"),
            "code %d: the message does not name the call and file: %s", code, err.msg);
  CHECK_EQ_INT(cuzk_cuda_status_of_error(code, "x", NULL), s); /* err may be NULL */
  return s;
}

TEST(errors_sticky_are_device_lost) {
  for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++) {
    cuzk_status s = status_of(sticky[i].code, sticky[i].name);
    CHECK_MSG(s == CUZK_DEVICE_LOST, "%s: %s, want device_lost", sticky[i].name,
              cuzk_status_name(s));
  }
  cuzk_err err = {0};
  cuzk_cuda_status_of_error(700, "cudaMemcpyAsync(d, h, n, kind, s)", &err);
  printf("  e.g. %s: %s\n", cuzk_status_name(err.status), err.msg);
  for (size_t i = 0; i < sizeof sticky_new / sizeof *sticky_new; i++) {
    cuzk_cuda_status_of_error(sticky_new[i].code, "x", &err);
    if (!strstr(err.msg, sticky_new[i].name)) {
      printf("  %d: this runtime does not know %s\n", sticky_new[i].code, sticky_new[i].name);
      continue;
    }
    CHECK_MSG(err.status == CUZK_DEVICE_LOST, "%s: %s", sticky_new[i].name,
              cuzk_status_name(err.status));
  }
}

TEST(errors_others_keep_their_status) {
  static const struct {
    int code;
    const char *name;
    cuzk_status want;
  } cases[] = {
      {2, "cudaErrorMemoryAllocation", CUZK_NO_MEMORY},
      {100, "cudaErrorNoDevice", CUZK_UNSUPPORTED},
      {35, "cudaErrorInsufficientDriver", CUZK_UNSUPPORTED},
      {209, "cudaErrorNoKernelImageForDevice", CUZK_UNSUPPORTED},
      {98, "cudaErrorInvalidDeviceFunction", CUZK_UNSUPPORTED},
      {1, "cudaErrorInvalidValue", CUZK_INTERNAL},
      {9, "cudaErrorInvalidConfiguration", CUZK_INTERNAL},
      {46, "cudaErrorDevicesUnavailable", CUZK_INTERNAL},
      {701, "cudaErrorLaunchOutOfResources", CUZK_INTERNAL},
      {999, "cudaErrorUnknown", CUZK_INTERNAL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cuzk_status s = status_of(cases[i].code, cases[i].name);
    CHECK_MSG(s == cases[i].want, "%s: %s, want %s", cases[i].name, cuzk_status_name(s),
              cuzk_status_name(cases[i].want));
  }
}

/* Over every code up to 1000: DEVICE_LOST for the listed ones only, and
 * one of the four statuses for each. */
TEST(errors_device_lost_only_when_listed) {
  unsigned lost = 0;
  for (int code = 1; code <= 1000; code++) {
    cuzk_status s = cuzk_cuda_status_of_error(code, "x", NULL);
    CHECK_MSG(s == CUZK_DEVICE_LOST || s == CUZK_NO_MEMORY || s == CUZK_UNSUPPORTED ||
                  s == CUZK_INTERNAL,
              "code %d: %s", code, cuzk_status_name(s));
    if (s != CUZK_DEVICE_LOST)
      continue;
    lost++;
    bool listed = false;
    for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++) listed |= sticky[i].code == code;
    for (size_t i = 0; i < sizeof sticky_new / sizeof *sticky_new; i++)
      listed |= sticky_new[i].code == code;
    CHECK_MSG(listed, "code %d is device_lost but not in this test's list", code);
  }
  CHECK(lost >= sizeof sticky / sizeof *sticky);
}
