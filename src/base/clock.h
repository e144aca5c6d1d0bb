/* Elapsed (wall) time in seconds, for stage timings and progress lines. */
#ifndef CUZK_BASE_CLOCK_H
#define CUZK_BASE_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock (an arbitrary origin: take differences). */
static inline double cuzk_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
