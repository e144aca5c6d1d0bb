/* The seed of a test or benchmark run, shared by the harness (tests/
 * harness.c) and the GPU benchmarks (tests/gpu/bench_*.c), which do not
 * link it.  A seed is a number (strtoull, base 0) or "random": a fresh one
 * from getrandom, for runs that explore other inputs. */
#ifndef CUZK_TESTS_SEED_H
#define CUZK_TESTS_SEED_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* *seed from text; *fresh tells a drawn seed.  False when text is neither
 * a number nor "random". */
static inline bool test_parse_seed(const char *text, uint64_t *seed, bool *fresh) {
  *fresh = !strcmp(text, "random");
  if (*fresh) {
    if (getrandom(seed, sizeof *seed, 0) != sizeof *seed)
      *seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return true;
  }
  char *end;
  errno = 0;
  *seed = strtoull(text, &end, 0);
  return *text && *text != '-' && !*end && !errno;
}

/* The seed CUZK_TEST_SEED names, 0 when it is unset or empty; a value
 * that is not a seed exits 2 with a message naming prog. */
static inline uint64_t test_env_seed(const char *prog, bool *fresh) {
  const char *s = getenv("CUZK_TEST_SEED");
  uint64_t seed = 0;
  *fresh = false;
  if (s && *s && !test_parse_seed(s, &seed, fresh)) {
    fprintf(stderr, "%s: CUZK_TEST_SEED '%s': expected a number or \"random\"\n", prog, s);
    exit(2);
  }
  return seed;
}

#endif
