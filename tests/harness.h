/* A small test runner in the manner of libuv's: tests register themselves,
 * each runs in its own forked process under a timeout, and a failing check
 * prints both sides.  A test binary accepts test-name filters as arguments,
 * `--list`, and `--seed N` (or `--seed random`; see test_seed).  Exit
 * status: 0 when nothing failed, 2 on a bad command line. */
#ifndef CUZK_TESTS_HARNESS_H
#define CUZK_TESTS_HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn, unsigned timeout_s);

#define TEST_TIMEOUT(name, secs)                                              \
  static void name(void);                                                     \
  __attribute__((constructor)) static void name##_register(void) {           \
    test_register(#name, name, secs);                                         \
  }                                                                           \
  static void name(void)
#define TEST(name) TEST_TIMEOUT(name, 120)

/* Exit code a child uses to report "skipped". */
#define TEST_SKIP_CODE 77
#define TEST_SKIP(...)                                                        \
  do {                                                                        \
    printf("  skip: ");                                                       \
    printf(__VA_ARGS__);                                                      \
    printf("\n");                                                             \
    fflush(stdout);                                                           \
    exit(TEST_SKIP_CODE);                                                     \
  } while (0)

#define TEST_FAIL(...)                                                        \
  do {                                                                        \
    fprintf(stderr, "  %s:%d: ", __FILE__, __LINE__);                         \
    fprintf(stderr, __VA_ARGS__);                                             \
    fprintf(stderr, "\n");                                                    \
    exit(1);                                                                  \
  } while (0)

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond))                                                              \
      TEST_FAIL("check failed: %s", #cond);                                   \
  } while (0)
#define CHECK_MSG(cond, ...)                                                  \
  do {                                                                        \
    if (!(cond))                                                              \
      TEST_FAIL(__VA_ARGS__);                                                 \
  } while (0)
#define CHECK_EQ_INT(a, b)                                                    \
  do {                                                                        \
    long long ca_ = (long long)(a), cb_ = (long long)(b);                     \
    if (ca_ != cb_)                                                           \
      TEST_FAIL("%s == %s: %lld != %lld", #a, #b, ca_, cb_);                  \
  } while (0)
#define CHECK_EQ_STR(a, b)                                                    \
  do {                                                                        \
    const char *ca_ = (a), *cb_ = (b);                                        \
    if (strcmp(ca_, cb_) != 0)                                                \
      TEST_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, ca_, cb_);              \
  } while (0)
/* Compares memory and prints the first differing offset with both bytes. */
#define CHECK_EQ_MEM(a, b, n) test_check_mem(__FILE__, __LINE__, #a, #b, (a), (b), (n))
void test_check_mem(const char *file, int line, const char *an, const char *bn, const void *a,
                    const void *b, size_t n);

/* Random inputs come from one seed per run, so that a run repeats: 0 by
 * default, another with `--seed N` or CUZK_TEST_SEED=N (the flag wins), a
 * fresh one (drawn once, printed at the start) with "random" in place of N.
 * A failing test prints the seed and the command line that repeats it. */
uint64_t test_seed(void);

/* Deterministic RNG (splitmix64) for reproducible random inputs. */
typedef struct {
  uint64_t s;
} test_rng;
static inline uint64_t test_rng_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static inline uint64_t test_rng_next(test_rng *r) {
  return test_rng_mix(r->s += 0x9e3779b97f4a7c15ULL);
}
/* The seed of stream k of the run: k xor a mix of the run's seed, which
 * is 0 for the default seed 0, so by default a generator started from
 * test_stream_seed(k) draws the inputs that seed k always gave, and any
 * other run seed changes every stream (distinct k stay distinct). */
static inline uint64_t test_stream_seed(uint64_t k) { return k ^ test_rng_mix(test_seed()); }

/* Path of the repository root (from the CUZK_SRCDIR environment variable set
 * by tests/run_unit.sh, or "." ) for locating tests/kat/vectors. */
const char *test_srcdir(void);

/* The whole of a file, NUL-terminated, in a malloc'd buffer (the caller
 * frees it); *len (if non-NULL) gets its size.  NULL when it cannot be
 * opened; a read error fails the test. */
char *test_read_file(const char *path, size_t *len);
/* The number of entries of directory dir besides "." and ".." (a test that
 * nothing was left behind); a directory that cannot be read fails the test. */
int test_dir_entries(const char *dir);

#endif
