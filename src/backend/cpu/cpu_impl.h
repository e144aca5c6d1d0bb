/* The CPU backend's operations that live outside cpu.c (not for callers:
 * they go through backend.h's table). */
#ifndef CUZK_BACKEND_CPU_IMPL_H
#define CUZK_BACKEND_CPU_IMPL_H

#include "backend/backend.h"

/* backend_ops.bp_sums on the host's cores (cpu_bp.c). */
cuzk_status cpu_bp_sums(backend *be, backend_bp_sums *out, const backend_bp_key *k,
                        const void *values, const backend_bp_abc *abc, cuzk_err *err);

#endif
