/* What the CPU microbenchmarks of bench/ share: the thread's CPU clock, the
 * core's cycle time measured by dependent adds (the machine is shared and
 * its clock unknown), and a seeded splitmix64 for inputs. */
#ifndef CUZK_BENCH_CLOCK_H
#define CUZK_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per cycle: 4M dependent adds, best of 3. */
static inline double ns_per_cycle(void) {
  double best = 1e30;
  for (int k = 0; k < 3; k++) {
    uint64_t x = 1;
    double t0 = cpu_ns();
    for (int i = 0; i < 1000000; i++)
      __asm__ volatile("addq %0, %0\n\taddq %0, %0\n\taddq %0, %0\n\taddq %0, %0" : "+r"(x));
    double t = (cpu_ns() - t0) / 4e6;
    if (t < best)
      best = t;
  }
  return best;
}

/* splitmix64 over *state. */
static inline uint64_t bench_rng(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#endif
