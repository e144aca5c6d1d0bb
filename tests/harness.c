#include "harness.h"

#include <signal.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 512

typedef struct {
  const char *name;
  test_fn fn;
  unsigned timeout;
} test_entry;
static test_entry tests[MAX_TESTS];
static int ntests;

void test_register(const char *name, test_fn fn, unsigned timeout_s) {
  if (ntests < MAX_TESTS)
    tests[ntests++] = (test_entry){name, fn, timeout_s};
}

void test_check_mem(const char *file, int line, const char *an, const char *bn, const void *a,
                    const void *b, size_t n) {
  const uint8_t *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) {
      fprintf(stderr, "  %s:%d: %s != %s (%zu bytes): first difference at byte %zu: %02x != %02x\n",
              file, line, an, bn, n, i, x[i], y[i]);
      exit(1);
    }
}

const char *test_srcdir(void) {
  const char *d = getenv("CUZK_SRCDIR");
  return d && *d ? d : ".";
}

char *test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  CHECK(b && fread(b, 1, (size_t)n, f) == (size_t)n);
  b[n] = 0;
  fclose(f);
  if (len)
    *len = (size_t)n;
  return b;
}

static int selected(const char *name, int argc, char **argv) {
  int any = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-')
      continue;
    any = 1;
    if (strstr(name, argv[i]))
      return 1;
  }
  return !any;
}

int main(int argc, char **argv) {
  int passed = 0, failed = 0, skipped = 0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--list")) {
      for (int t = 0; t < ntests; t++) puts(tests[t].name);
      return 0;
    }
  for (int t = 0; t < ntests; t++) {
    if (!selected(tests[t].name, argc, argv))
      continue;
    fflush(stdout);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(tests[t].timeout);
      tests[t].fn();
      fflush(stdout);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      printf("ok      %s (%.0f ms)\n", tests[t].name, ms);
      passed++;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == TEST_SKIP_CODE) {
      printf("skipped %s\n", tests[t].name);
      skipped++;
    } else {
      if (WIFSIGNALED(st))
        printf("FAIL    %s: %s%s\n", tests[t].name, strsignal(WTERMSIG(st)),
               WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
      else
        printf("FAIL    %s (exit %d)\n", tests[t].name, WEXITSTATUS(st));
      failed++;
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

uint64_t test_fresh_seed(void) {
  const char *s = getenv("CUZK_TEST_SEED");
  uint64_t seed = 0;
  if (s && *s)
    seed = strtoull(s, NULL, 0);
  else if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
    seed = (uint64_t)time(NULL);
  printf("  seed 0x%016" PRIx64 " (CUZK_TEST_SEED=0x%016" PRIx64 " repeats this run)\n", seed, seed);
  return seed;
}
