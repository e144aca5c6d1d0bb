/* --device: choosing the backend for a prove (cli.h). */
#include <string.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "cli/cli.h"

struct backend *cli_backend(const char *device, const backend_device_opts *o, unsigned lg_domain,
                            cuzk_err *err) {
  if (!strcmp(device, "cpu")) {
    backend *b = backend_cpu_new(o->threads);
    if (!b)
      cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
    return b;
  }
  if (!strcmp(device, "gpu"))
    return backend_device_new(NULL, 0, o, err);
  if (!strcmp(device, "auto")) {
    if (lg_domain >= CLI_AUTO_GPU_LG) {
      cuzk_err ignored = {0};
      backend *b = backend_device_new(NULL, 0, o, &ignored);
      if (b)
        return b;
    }
    return cli_backend("cpu", o, lg_domain, err);
  }
  cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "--device must be cpu, gpu or auto, not '%s'", device);
  return NULL;
}
