#include "base/par.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned g_threads;

unsigned par_threads(void) {
  if (g_threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    g_threads = n > 0 ? (unsigned)n : 1;
  }
  return g_threads;
}

void par_set_threads(unsigned n) { g_threads = n; if (n == 0) par_threads(); }

typedef struct {
  par_fn fn;
  void *ctx;
  unsigned idx, n;
} par_job;

static void *par_main(void *arg) {
  par_job *j = arg;
  j->fn(j->ctx, j->idx, j->n);
  return NULL;
}

void par_run(unsigned n, par_fn fn, void *ctx) {
  if (n <= 1) {
    fn(ctx, 0, 1);
    return;
  }
  pthread_t *tid = malloc(n * sizeof *tid);
  par_job *jobs = malloc(n * sizeof *jobs);
  unsigned started = 1;
  if (tid && jobs) {
    for (unsigned i = 1; i < n; i++) {
      jobs[i] = (par_job){fn, ctx, i, n};
      if (pthread_create(&tid[i], NULL, par_main, &jobs[i]) != 0)
        break;
      started++;
    }
  }
  /* Workers that could not be started are run here, in order: the result is
   * the same, only slower. */
  fn(ctx, 0, n);
  for (unsigned i = started; i < n; i++) fn(ctx, i, n);
  for (unsigned i = 1; i < started; i++) pthread_join(tid[i], NULL);
  free(tid);
  free(jobs);
}
