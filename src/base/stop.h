/* The stop hook of long operations: a request, from another thread, that
 * work in progress end early (a cancelled job, or an engine shutting down
 * with cancel_running).
 *
 * DESIGN: a stop request is one atomic flag owned by the requester (the
 * engine's job), set once and never cleared while work reads it.  Long
 * loops poll it with cuzk_stopped at the boundaries of their chunks (a
 * batch of bucket accumulation, a block of NTT columns, a slice of
 * coefficient entries; on a GPU, between the kernel launches of a stage),
 * never per element: a relaxed load, a few cycles per chunk of
 * milliseconds.  A stopped operation returns CUZK_CANCELLED after freeing
 * what it made, and leaves its outputs unspecified.  NULL means "never
 * stop": every stoppable function takes it.  The CUDA code (C++, where C11
 * atomics do not exist) sees the hook as `const void *` and polls it
 * through cuzk_stop_requested. */
#ifndef CUZK_BASE_STOP_H
#define CUZK_BASE_STOP_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#else
#include <stdatomic.h>

typedef atomic_bool cuzk_stop;

/* Whether stop (may be NULL) has been requested. */
static inline bool cuzk_stopped(const cuzk_stop *stop) {
  return stop && atomic_load_explicit(stop, memory_order_relaxed);
}
#endif

/* cuzk_stopped for code that sees the hook untyped: stop is a
 * `const cuzk_stop *` or NULL. */
bool cuzk_stop_requested(const void *stop);

#ifdef __cplusplus
}
#endif
#endif
