/* cuzk bench prove: repeated proofs of one key and witness, with per-stage
 * times (median over the repetitions) and proofs per hour. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "base/par.h"
#include "cli/cli.h"
#include "groth16/prove.h"

static void usage(FILE *f) {
  fprintf(f, "usage: cuzk bench prove [--reps R] [--threads T] [--device cpu|gpu|auto]\n"
             "                        [--resident] [--ntt-pass1-table] <circuit.zkey> <witness.wtns>\n"
             "  Proves R times (default 3) after one warm-up and prints the time of the\n"
             "  first proof, the median time of each stage and the proofs per hour.\n"
             "  --resident  keep the key's points on the GPU between proofs (uploaded\n"
             "              during the warm-up), as a proving daemon does: the repeated\n"
             "              proofs then copy only witness-sized data to the device\n"
             "  --ntt-pass1-table  GPU: NTTs with the first pass's twiddle table (as\n"
             "              `cuzk prove --ntt-pass1-table`)\n");
}

int bench_prove(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  unsigned long reps = 3, threads = 0;
  const char *device = "auto";
  bool resident = false, pass1_table = false;
  const char *pos[2];
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps")) {
      if (!cli_parse_uint("--reps", i + 1 < argc ? argv[++i] : NULL, &reps))
        return CLI_USAGE;
    } else if (!strcmp(argv[i], "--resident")) {
      resident = true;
    } else if (!strcmp(argv[i], "--ntt-pass1-table")) {
      pass1_table = true;
    } else if (!strcmp(argv[i], "--device")) {
      device = i + 1 < argc ? argv[++i] : "";
    } else if (!strcmp(argv[i], "--threads")) {
      if (!cli_parse_uint("--threads", i + 1 < argc ? argv[++i] : NULL, &threads))
        return CLI_USAGE;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "cuzk bench prove: unknown option '%s'\n", argv[i]);
      return CLI_USAGE;
    } else if (npos < 2) {
      pos[npos++] = argv[i];
    } else {
      npos++;
    }
  }
  if (npos != 2 || reps > 1000) {
    usage(stderr);
    return CLI_USAGE;
  }
  if (threads)
    par_set_threads((unsigned)threads);
  cuzk_err err = {0};
  zkey_file zk;
  wtns_file w;
  if (zkey_open(&zk, pos[0], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk bench prove: %s\n", err.msg);
    return CLI_USAGE;
  }
  if (wtns_open(&w, pos[1], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk bench prove: %s\n", err.msg);
    zkey_close(&zk);
    return CLI_USAGE;
  }
  backend_device_opts bo = {.threads = (unsigned)threads, .ntt_pass1_table = pass1_table};
  backend *be = cli_backend(device, &bo, zk.lg_domain, &err);
  double *v = calloc(9 * (reps + 1), sizeof *v);
  int rc = CLI_USAGE;
  if (!be || !v) {
    fprintf(stderr, "cuzk bench prove: %s\n", be ? "out of memory" : err.msg);
    goto done;
  }
  if (resident && be->ops->hold_bases && be->ops->hold_bases(be, true, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk bench prove: %s\n", err.msg);
    goto done;
  }
  printf("prove %s: nVars %u, nPublic %u, domain 2^%u, %u coefficients, %s backend%s, %u "
         "threads\n",
         pos[0], (unsigned)zk.n_vars, (unsigned)zk.n_public, zk.lg_domain, (unsigned)zk.n_coefs,
         be->ops->name,
         !resident ? "" : be->ops->hold_bases ? " (key resident)" : " (--resident: no effect)",
         be->threads);
  double first = 0;
  for (unsigned long r = 0; r <= reps; r++) {
    groth16_proof proof;
    groth16_timings tm;
    if (groth16_prove_zkey(&proof, &zk, &w, be, NULL, &tm, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk bench prove: %s\n", err.msg);
      goto done;
    }
    if (r == 0) {
      first = tm.total_s; /* warm-up: page in the mapped key, upload a resident one */
      continue;
    }
    double *row = v + 9 * (r - 1);
    row[0] = tm.total_s, row[1] = tm.ab_s, row[2] = tm.quotient_s, row[3] = tm.msm_s,
    row[4] = tm.verify_s;
    for (int k = 0; k < 4; k++) row[5 + k] = tm.msm_each_s[k];
  }
  double col[9][1000];
  for (int k = 0; k < 9; k++)
    for (unsigned long r = 0; r < reps; r++) col[k][r] = v[9 * r + k];
  double tot = cli_median(col[0], reps);
  printf("median of %lu: total %.3f s (a,b %.3f s, quotient %.3f s, MSMs %.3f s, verify %.3f s)\n",
         reps, tot, cli_median(col[1], reps), cli_median(col[2], reps), cli_median(col[3], reps),
         cli_median(col[4], reps));
  printf("MSMs: A %.3f s, B1 %.3f s, B2 (G2) %.3f s, C+H %.3f s\n", cli_median(col[5], reps),
         cli_median(col[6], reps), cli_median(col[7], reps), cli_median(col[8], reps));
  printf("first proof %.3f s; proofs/hour: %.0f\n", first, 3600.0 / tot);
  rc = CLI_OK;
done:
  free(v);
  backend_free(be);
  wtns_close(&w);
  zkey_close(&zk);
  return rc;
}
