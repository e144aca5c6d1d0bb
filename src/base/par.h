/* Fork-join parallelism for the CPU backend.
 *
 * DESIGN: par_run starts `n` workers (the caller's thread is worker 0),
 * each calls fn(ctx, i, n), and returns when all have finished.  Threads are
 * created per call: the CPU kernels that use this run for milliseconds or
 * more, so the ~20 us per thread do not matter, and no global pool state is
 * shared between concurrent callers.  par_threads() is the process default
 * (online CPUs, or what par_set_threads chose). */
#ifndef CUZK_BASE_PAR_H
#define CUZK_BASE_PAR_H

#include <stddef.h>

typedef void (*par_fn)(void *ctx, unsigned idx, unsigned n);

void par_run(unsigned n, par_fn fn, void *ctx);
unsigned par_threads(void);
void par_set_threads(unsigned n); /* 0 = number of online CPUs */

/* The half-open range [*lo, *hi) of `total` items that worker idx of n owns. */
static inline void par_range(size_t total, unsigned idx, unsigned n, size_t *lo, size_t *hi) {
  *lo = total * idx / n;
  *hi = total * (idx + 1) / n;
}

#endif
