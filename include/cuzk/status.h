/* cuzk status codes: defined once, here.  Each row gives the enum suffix,
 * a stable lower-case name (used in logs, metrics and replies) and a message.
 * A later table maps each to a gRPC code and an exit status
 * (src/server/rpc_status.h).  New rows go last: the numbers of the others
 * stay as they were.
 *
 * DEVICE_LOST: a "sticky" CUDA error (an illegal address, a kernel fault,
 * an uncorrectable ECC error, ...: src/cuda/device.cu cuda_fail lists them)
 * corrupted the GPU's context, so every later CUDA call on that GPU in this
 * process fails too; the engine takes the GPU out of service.  Only a new
 * process (a daemon restart), after the GPU is checked or reset, gets it
 * back. */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_STATUS_MAP(X)                                                   \
  X(OK, "ok", "success")                                                     \
  X(INVALID_ARGUMENT, "invalid_argument", "invalid argument")                \
  X(IO, "io", "input/output error")                                          \
  X(FORMAT, "format", "malformed input")                                     \
  X(NO_MEMORY, "no_memory", "out of memory")                                 \
  X(UNSATISFIED, "unsatisfied", "witness does not satisfy the circuit")      \
  X(VERIFY_FAILED, "verify_failed", "proof failed verification")             \
  X(UNSUPPORTED, "unsupported", "unsupported input or operation")            \
  X(INTERNAL, "internal", "internal error")                                  \
  X(CANCELLED, "cancelled", "cancelled")                                     \
  X(NOT_FOUND, "not_found", "not found")                                     \
  X(TIMEOUT, "timeout", "timed out")                                         \
  X(EXHAUSTED, "exhausted", "resource budget exhausted")                     \
  X(UNAVAILABLE, "unavailable", "service unavailable (shutting down, or no worker left)") \
  X(DEVICE_LOST, "device_lost", "GPU lost: a CUDA error left its context unusable")

typedef enum {
#define CUZK_STATUS_ENUM(name, str, msg) CUZK_##name,
  CUZK_STATUS_MAP(CUZK_STATUS_ENUM)
#undef CUZK_STATUS_ENUM
  CUZK_STATUS_COUNT
} cuzk_status;

/* What libcuzk.so exports (cuzk/cuzk.h); everything else is hidden. */
#ifndef CUZK_API
#define CUZK_API __attribute__((visibility("default")))
#endif

/* Stable short name, e.g. "format". */
CUZK_API const char *cuzk_status_name(cuzk_status s);
/* Human message, e.g. "malformed input". */
CUZK_API const char *cuzk_status_message(cuzk_status s);

#ifdef __cplusplus
}
#endif
#endif
