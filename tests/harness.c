#include "harness.h"

#include "seed.h"

#include <dirent.h>
#include <signal.h>
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

int test_dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  CHECK_MSG(d != NULL, "cannot read the directory %s", dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
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

static uint64_t run_seed;

uint64_t test_seed(void) { return run_seed; }

int main(int argc, char **argv) {
  int passed = 0, failed = 0, skipped = 0;
  const char *seed_text = NULL;
  const char **filters = calloc((size_t)argc, sizeof *filters);
  int nfilters = 0;
  CHECK(filters);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--list")) {
      for (int t = 0; t < ntests; t++) puts(tests[t].name);
      free(filters);
      return 0;
    } else if (!strcmp(argv[i], "--seed")) {
      if (i + 1 == argc) {
        fprintf(stderr, "%s: --seed needs a value (a number or \"random\")\n", argv[0]);
        return 2;
      }
      seed_text = argv[++i];
    } else if (!strncmp(argv[i], "--seed=", 7)) {
      seed_text = argv[i] + 7;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "%s: unknown option '%s' (expected --list, --seed N|random, or test names)\n",
              argv[0], argv[i]);
      return 2;
    } else {
      filters[nfilters++] = argv[i];
    }
  }
  bool fresh = false;
  if (!seed_text) {
    run_seed = test_env_seed(argv[0], &fresh);
  } else if (!test_parse_seed(seed_text, &run_seed, &fresh)) {
    fprintf(stderr, "%s: --seed '%s': expected a number or \"random\"\n", argv[0], seed_text);
    return 2;
  }
  if (fresh)
    printf("seed 0x%016" PRIx64 " (fresh; --seed 0x%016" PRIx64 " repeats this run)\n", run_seed,
           run_seed);
  for (int t = 0; t < ntests; t++) {
    bool any = nfilters == 0;
    for (int f = 0; f < nfilters && !any; f++) any = strstr(tests[t].name, filters[f]) != NULL;
    if (!any)
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
      printf("  seed 0x%016" PRIx64 ": %s --seed 0x%016" PRIx64 " %s repeats it\n", run_seed, argv[0],
             run_seed, tests[t].name);
      failed++;
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  free(filters);
  return failed ? 1 : 0;
}
