/* cuzk bench ntt: time the CPU NTT (poly/ntt.h) over a range of sizes.
 *
 * For each size it fills a vector with fixed pseudo-random Fr elements, runs
 * the operation once untimed (page faults, caches), then R timed runs on the
 * same buffer, and prints the median and the minimum together with the
 * throughput of the median: elements/s and radix-2 butterflies/s, counting
 * (n/2) lg n butterflies per transform (2x that for the coset operation,
 * which is an inverse transform, a scaling and a forward transform).  It also
 * prints the median process CPU time per run: on a shared machine, with one
 * thread, that is the figure the other processes disturb least. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/par.h"
#include "cli/cli.h"
#include "poly/ntt.h"

static void bench_ntt_usage(FILE *f) {
  fprintf(f,
          "usage: cuzk bench ntt [--lg N | --from A --to B] [--threads T] [--reps R]\n"
          "                      [--op forward|inverse|coset] [--roots snarkjs|bellperson]\n"
          "  Times the CPU NTT over BLS12-381 Fr and prints, per size, the median and\n"
          "  minimum time of R runs and the throughput of the median.\n"
          "  --lg N        one size, 2^N elements (default 20)\n"
          "  --from A      smallest lg size of a sweep (0..%u)\n"
          "  --to B        largest lg size of a sweep (default: A)\n"
          "  --threads T   worker threads (default: all online CPUs, here %u)\n"
          "  --reps R      timed runs per size (default 5)\n"
          "  --op OP       forward (default), inverse, or coset (snarkjs's odd-coset\n"
          "                step: inverse, scale, forward)\n"
          "  --roots R     root-of-unity chain: snarkjs (5^t, default) or bellperson (7^t)\n",
          (unsigned)NTT_LG_MAX, par_threads());
}

/* Parses an unsigned integer that may be 0. */
static int parse_u(const char *opt, const char *val, unsigned long *out) {
  char *end = NULL;
  if (!val || !*val || *val == '-') {
    fprintf(stderr, "cuzk bench ntt: %s needs a non-negative integer\n", opt);
    return 0;
  }
  unsigned long v = strtoul(val, &end, 10);
  if (*end) {
    fprintf(stderr, "cuzk bench ntt: %s: '%s' is not a non-negative integer\n", opt, val);
    return 0;
  }
  *out = v;
  return 1;
}

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { OP_FORWARD, OP_INVERSE, OP_COSET };

static void run_op(int op, const ntt_domain *d, bls12_381_fr *a, unsigned threads) {
  if (op == OP_FORWARD)
    ntt_forward(d, a, threads);
  else if (op == OP_INVERSE)
    ntt_inverse(d, a, threads);
  else
    ntt_to_odd_coset(d, a, threads);
}

/* Fixed pseudo-random elements (splitmix64, top bits cleared so x < r). */
static void fill(bls12_381_fr *a, size_t n) {
  uint64_t s = 0x5eed;
  for (size_t i = 0; i < n; i++) {
    limb_t x[4];
    for (int j = 0; j < 4; j++) {
      uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      x[j] = z ^ (z >> 31);
    }
    x[3] &= 0x3fffffffffffffffULL; /* < 2^254 < r */
    bls12_381_fr_from_canon(&a[i], x);
  }
}

int bench_ntt(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    bench_ntt_usage(stdout);
    return CLI_OK;
  }
  unsigned long lg = 20, from = 0, to = 0, threads = 0, reps = 5;
  int have_lg = 0, have_from = 0, have_to = 0, op = OP_FORWARD;
  ntt_roots roots = NTT_ROOTS_SNARKJS;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--lg")) {
      if (!parse_u(o, v, &lg))
        return CLI_USAGE;
      have_lg = 1, i++;
    } else if (!strcmp(o, "--from")) {
      if (!parse_u(o, v, &from))
        return CLI_USAGE;
      have_from = 1, i++;
    } else if (!strcmp(o, "--to")) {
      if (!parse_u(o, v, &to))
        return CLI_USAGE;
      have_to = 1, i++;
    } else if (!strcmp(o, "--threads")) {
      if (!cli_parse_uint(o, v, &threads))
        return CLI_USAGE;
      i++;
    } else if (!strcmp(o, "--reps")) {
      if (!cli_parse_uint(o, v, &reps))
        return CLI_USAGE;
      i++;
    } else if (!strcmp(o, "--op") && v) {
      if (!strcmp(v, "forward"))
        op = OP_FORWARD;
      else if (!strcmp(v, "inverse"))
        op = OP_INVERSE;
      else if (!strcmp(v, "coset"))
        op = OP_COSET;
      else {
        fprintf(stderr, "cuzk bench ntt: --op: unknown operation '%s'\n", v);
        return CLI_USAGE;
      }
      i++;
    } else if (!strcmp(o, "--roots") && v) {
      if (!strcmp(v, "snarkjs"))
        roots = NTT_ROOTS_SNARKJS;
      else if (!strcmp(v, "bellperson"))
        roots = NTT_ROOTS_BELLPERSON;
      else {
        fprintf(stderr, "cuzk bench ntt: --roots: unknown chain '%s'\n", v);
        return CLI_USAGE;
      }
      i++;
    } else {
      fprintf(stderr, "cuzk bench ntt: unknown or incomplete option '%s'\n", o);
      bench_ntt_usage(stderr);
      return CLI_USAGE;
    }
  }
  if (have_lg && (have_from || have_to)) {
    fprintf(stderr, "cuzk bench ntt: give either --lg or --from/--to\n");
    return CLI_USAGE;
  }
  if (have_to && !have_from) {
    fprintf(stderr, "cuzk bench ntt: --to needs --from\n");
    return CLI_USAGE;
  }
  if (!have_from)
    from = to = lg;
  else if (!have_to)
    to = from;
  if (from > to || to > NTT_LG_MAX) {
    fprintf(stderr, "cuzk bench ntt: sizes must satisfy from <= to <= %u\n", (unsigned)NTT_LG_MAX);
    return CLI_USAGE;
  }
  if (threads == 0)
    threads = par_threads();

  static const char *op_name[] = {"forward", "inverse", "coset"};
  printf("# cuzk bench ntt: op %s, roots %s, threads %lu, reps %lu\n", op_name[op],
         roots == NTT_ROOTS_SNARKJS ? "snarkjs" : "bellperson", threads, reps);
  printf("%3s %11s %11s %11s %11s %12s %12s\n", "lg", "n", "median_ms", "min_ms", "cpu_ms",
         "Melem/s", "Mbfly/s");
  double *t = malloc(2 * reps * sizeof *t), *cpu = t + reps;
  if (!t) {
    fprintf(stderr, "cuzk bench ntt: out of memory\n");
    return CLI_USAGE;
  }
  int rc = CLI_OK;
  for (unsigned long k = from; k <= to; k++) {
    ntt_domain d;
    cuzk_err err;
    if (ntt_domain_init(&d, (unsigned)k, roots, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk bench ntt: %s\n", err.msg);
      rc = CLI_USAGE;
      break;
    }
    size_t n = d.n;
    bls12_381_fr *a = aligned_alloc(64, (n * sizeof *a + 63) & ~(size_t)63);
    if (!a) {
      fprintf(stderr, "cuzk bench ntt: cannot allocate 2^%lu elements\n", k);
      ntt_domain_fini(&d);
      rc = CLI_USAGE;
      break;
    }
    fill(a, n);
    run_op(op, &d, a, (unsigned)threads); /* warm-up */
    for (unsigned long r = 0; r < reps; r++) {
      double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
      run_op(op, &d, a, (unsigned)threads);
      t[r] = clock_s(CLOCK_MONOTONIC) - t0;
      cpu[r] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    qsort(t, reps, sizeof *t, cmp_double);
    qsort(cpu, reps, sizeof *cpu, cmp_double);
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    double cmed = reps % 2 ? cpu[reps / 2] : 0.5 * (cpu[reps / 2 - 1] + cpu[reps / 2]);
    double bfly = 0.5 * (double)n * (double)k * (op == OP_COSET ? 2.0 : 1.0);
    printf("%3lu %11zu %11.3f %11.3f %11.3f %12.2f %12.2f\n", k, n, 1e3 * med, 1e3 * t[0], 1e3 * cmed,
           med > 0 ? (double)n / med / 1e6 : 0.0, med > 0 ? bfly / med / 1e6 : 0.0);
    fflush(stdout);
    free(a);
    ntt_domain_fini(&d);
  }
  free(t);
  return rc;
}
