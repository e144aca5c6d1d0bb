/* `cuzk circuit gen|check` (development circuits in Curio's PCE form) and
 * the PCE branch of `cuzk info`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/par.h"
#include "cli/cli.h"
#include "groth16/pce.h"
#include "groth16/pce_gen.h"
#include "groth16/types.h"
#include "groth16/wtns.h"

typedef unsigned long long ull;

static void usage(FILE *f) {
  fprintf(f,
          "usage: cuzk circuit gen --shape SHAPE [--scale-lg K] [--partitions N] [--seed S]\n"
          "                        [--threads N] --out DIR\n"
          "       cuzk circuit check PCE.bin WITNESS.wtns\n"
          "\n"
          "gen writes a development circuit in Curio cuzk's PCE form, DIR/pce-SHAPE.bin,\n"
          "and N satisfying witnesses DIR/witness-<i>.wtns (i = 0..N-1; the whole\n"
          "assignment in the PCE's column order: ONE, the inputs, the aux; other inputs\n"
          "for each partition).  SHAPE: %s.  Full scale\n"
          "has the real circuit's constraint and input counts, nnz and densities; with\n"
          "--scale-lg K about 2^K constraints in the same proportions (K >= 8).  The\n"
          "circuit is synthetic (SHA-256-like boolean, XOR and packing rows): for\n"
          "benchmarks and tests, not a Filecoin proof.  Defaults: --partitions 1,\n"
          "--seed 1.\n"
          "\n"
          "check says whether the witness satisfies the PCE: (A.w)(B.w) = C.w on every\n"
          "row.  exit status: 0 satisfied; 1 not (the first failing row is named);\n"
          "2 bad usage or a malformed file.\n",
          pce_shape_names());
}

static int fail(const char *cmd, const cuzk_err *e) {
  fprintf(stderr, "cuzk %s: %s: %s\n", cmd, cuzk_status_name(e->status), e->msg);
  return CLI_USAGE;
}

static void print_density(const char *label, const pce_density *d) {
  printf("  %-16s%llu of %llu set (%.1f%%)\n", label, (ull)d->popcount, (ull)d->bit_len,
         d->bit_len ? 100.0 * (double)d->popcount / (double)d->bit_len : 0.0);
}

int cli_info_pce(const char *path) {
  pce_file f;
  cuzk_err e = {0};
  if (pce_open(&f, path, &e) != CUZK_OK)
    return fail("info", &e);
  const double rows = f.num_constraints;
  printf("%s: PCE (Curio cuzk pre-compiled constraints), version %u, %llu bytes\n", path,
         PCE_VERSION, (ull)pce_file_bytes(&f));
  printf("  %-16s%u (with ONE)\n", "inputs", f.num_inputs);
  printf("  %-16s%u\n", "aux", f.num_aux);
  printf("  %-16s%u (%u circuit rows + %u dummy input rows)\n", "constraints", f.num_constraints,
         f.num_constraints - f.num_inputs, f.num_inputs);
  printf("  %-16s2^%u\n", "domain", pce_domain_lg(&f));
  printf("  %-16s%llu (%.3f per row)\n", "A nnz", (ull)f.a.nnz, (double)f.a.nnz / rows);
  printf("  %-16s%llu (%.3f per row)\n", "B nnz", (ull)f.b.nnz, (double)f.b.nnz / rows);
  printf("  %-16s%llu (%.3f per row)\n", "C nnz", (ull)f.c.nnz, (double)f.c.nnz / rows);
  printf("  %-16s%llu\n", "total nnz", (ull)f.total_nnz);
  print_density("a_aux density", &f.a_aux);
  print_density("b_input density", &f.b_input);
  print_density("b_aux density", &f.b_aux);
  pce_close(&f);
  return CLI_OK;
}

static int gen(int argc, char **argv) {
  const char *shape = NULL, *out = NULL;
  unsigned long scale = 0, parts = 1, seed = 1, threads = 0;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--shape") && v)
      shape = v, i++;
    else if (!strcmp(o, "--out") && v)
      out = v, i++;
    else if (!strcmp(o, "--scale-lg") || !strcmp(o, "--partitions") || !strcmp(o, "--seed") ||
             !strcmp(o, "--threads")) {
      unsigned long *dst = o[2] == 's' && o[3] == 'c' ? &scale
                           : o[2] == 'p'              ? &parts
                           : o[2] == 's'              ? &seed
                                                      : &threads;
      if (!v || !cli_parse_uint(o, v, dst))
        return CLI_USAGE;
      i++;
    } else {
      fprintf(stderr, "cuzk circuit gen: unknown option or missing value: %s\n\n", o);
      usage(stderr);
      return CLI_USAGE;
    }
  }
  if (!shape || !out) {
    fprintf(stderr, "cuzk circuit gen: --shape and --out are required\n\n");
    usage(stderr);
    return CLI_USAGE;
  }
  const pce_shape *s = pce_shape_find(shape);
  if (!s) {
    fprintf(stderr, "cuzk circuit gen: unknown shape '%s' (expected %s)\n", shape,
            pce_shape_names());
    return CLI_USAGE;
  }
  if (parts > 1024) {
    fprintf(stderr, "cuzk circuit gen: --partitions %lu: at most 1024\n", parts);
    return CLI_USAGE;
  }
  if (threads)
    par_set_threads((unsigned)threads);
  cuzk_err e = {0};
  pce_gen_plan p;
  if (pce_gen_plan_make(&p, s, (unsigned)scale, &e) != CUZK_OK)
    return fail("circuit gen", &e);
  if (mkdir(out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "cuzk circuit gen: io: %s: cannot create the directory: %s\n", out,
            strerror(errno));
    return CLI_USAGE;
  }
  size_t plen = strlen(out) + strlen(shape) + 64;
  char *path = malloc(plen);
  if (!path)
    return CLI_USAGE;
  double t0 = cuzk_now_s();
  pce_file f;
  if (pce_gen_circuit(&f, &p, &e) != CUZK_OK) {
    free(path);
    return fail("circuit gen", &e);
  }
  double t1 = cuzk_now_s();
  snprintf(path, plen, "%s/pce-%s.bin", out, shape);
  int rc = CLI_OK;
  if (pce_write(&f, path, &e) != CUZK_OK)
    rc = fail("circuit gen", &e);
  double t2 = cuzk_now_s();
  if (rc == CLI_OK)
    printf("%s: %u constraints, %u inputs, %u aux, nnz %llu; generated in %.2f s, written in "
           "%.2f s\n",
           path, f.num_constraints, f.num_inputs, f.num_aux, (ull)f.total_nnz, t1 - t0, t2 - t1);
  uint64_t nv = (uint64_t)p.ni + p.naux;
  bls12_381_fr *w = rc == CLI_OK ? malloc(nv * sizeof *w) : NULL;
  if (rc == CLI_OK && !w) {
    fprintf(stderr, "cuzk circuit gen: no_memory: %llu values\n", (ull)nv);
    rc = CLI_USAGE;
  }
  for (unsigned long i = 0; i < parts && rc == CLI_OK; i++) {
    double a = cuzk_now_s();
    pce_gen_witness(&p, seed, (uint32_t)i, w);
    double b = cuzk_now_s();
    snprintf(path, plen, "%s/witness-%lu.wtns", out, i);
    if (pce_write_wtns(path, w, nv, &e) != CUZK_OK)
      rc = fail("circuit gen", &e);
    else
      printf("%s: %llu values; generated in %.2f s, written in %.2f s\n", path, (ull)nv, b - a,
             cuzk_now_s() - b);
  }
  free(w);
  free(path);
  pce_close(&f);
  return rc;
}

static int check(int argc, char **argv) {
  if (argc != 3) {
    usage(stderr);
    return CLI_USAGE;
  }
  const char *pp = argv[1], *wp = argv[2];
  cuzk_err e = {0};
  pce_file f;
  if (pce_open(&f, pp, &e) != CUZK_OK)
    return fail("circuit check", &e);
  wtns_file wt;
  if (wtns_open(&wt, wp, &e) != CUZK_OK) {
    pce_close(&f);
    return fail("circuit check", &e);
  }
  int rc = CLI_OK;
  uint64_t nv = (uint64_t)f.num_inputs + f.num_aux;
  bls12_381_fr *w = NULL;
  if (wtns_check_curve(&wt, &e) != CUZK_OK) {
    rc = fail("circuit check", &e);
  } else if (wt.n_witness != nv) {
    fprintf(stderr,
            "cuzk circuit check: format: %s has %llu values, expected num_inputs + num_aux = "
            "%llu of %s\n",
            wp, (ull)wt.n_witness, (ull)nv, pp);
    rc = CLI_USAGE;
  } else if (!(w = malloc(nv * sizeof *w))) {
    fprintf(stderr, "cuzk circuit check: no_memory: %llu values\n", (ull)nv);
    rc = CLI_USAGE;
  } else {
    groth16_values_to_mont(w, wt.values, nv, 0); /* the reader checked each < r */
    if (!bls12_381_fr_is_one(&w[0])) {
      fprintf(stderr, "cuzk circuit check: format: %s: value 0 is not 1 (ONE)\n", wp);
      rc = CLI_USAGE;
    } else {
      uint64_t bad;
      cuzk_status st = pce_check(&f, w, &bad, NULL, &e);
      if (st == CUZK_OK) {
        printf("%s satisfies %s (%u constraints)\n", wp, pp, f.num_constraints);
      } else if (st == CUZK_UNSATISFIED) {
        printf("%s does not satisfy %s: %s\n", wp, pp, e.msg);
        rc = CLI_NO;
      } else {
        rc = fail("circuit check", &e);
      }
    }
  }
  free(w);
  wtns_close(&wt);
  pce_close(&f);
  return rc;
}

int cmd_circuit(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? CLI_USAGE : CLI_OK;
  }
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(argv[1], "gen"))
    return gen(argc - 1, argv + 1);
  if (!strcmp(argv[1], "check"))
    return check(argc - 1, argv + 1);
  fprintf(stderr, "cuzk circuit: unknown subcommand '%s' (expected gen or check)\n\n", argv[1]);
  usage(stderr);
  return CLI_USAGE;
}
