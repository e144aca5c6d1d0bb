/* cuzk bench keygen: an INSECURE proving key and witness of any size for the
 * benchmarks (groth16/keygen.h), where snarkjs cannot run or is too slow. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/par.h"
#include "cli/cli.h"
#include "groth16/keygen.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: cuzk bench keygen --lg K --out DIR [--seed S] [--threads T] [--comb-bits C]\n"
          "  Writes DIR/circuit.zkey and DIR/witness.wtns: a snarkjs Groth16 key (BLS12-381)\n"
          "  and a satisfying witness for the circuit tests/oracle/circuits/chain.circom with\n"
          "  N = 2^K - 4 steps, so that the domain is exactly 2^K (K = 2..28; nVars = 2^K).\n"
          "  INSECURE: tau, alpha, beta, delta, x and y all come from the seed (default 1),\n"
          "  so anyone who knows it can forge proofs.  For benchmarks and tests only.\n"
          "  --threads T   workers (default: every online CPU)\n"
          "  --comb-bits C fixed-base comb window width, 2..20 (default: chosen from K)\n"
          "  Sizes: 2^20 ~0.75 GiB, 2^22 ~3 GiB, 2^24 ~12 GiB (plus 32 bytes/wire of witness).\n");
}

typedef struct {
  int tty;        /* stderr is a terminal: one line rewritten with \r */
  int shown;      /* a \r line is on screen */
  int last_stage;
  double last_s;  /* not a terminal: when the stage last printed */
} progress_state;

static void progress(void *ctx, int stage, uint64_t done, uint64_t total, double elapsed) {
  progress_state *p = ctx;
  /* Only stages that run for more than a couple of seconds report. */
  if (elapsed < 2.0 && !(p->shown && p->last_stage == stage))
    return;
  if (p->last_stage != stage)
    p->last_s = 0;
  p->last_stage = stage;
  const double pct = total ? 100.0 * (double)done / (double)total : 100.0;
  if (!p->tty) { /* a log: a line every 10 s and at the end */
    if (done != total && elapsed - p->last_s < 10.0)
      return;
    p->last_s = elapsed;
    fprintf(stderr, "  %-13s %5.1f%%  %" PRIu64 "/%" PRIu64 "  %.1f s\n", keygen_stage_names[stage],
            pct, done, total, elapsed);
    return;
  }
  fprintf(stderr, "\r  %-13s %5.1f%%  %" PRIu64 "/%" PRIu64 "  %.1f s", keygen_stage_names[stage], pct,
          done, total, elapsed);
  p->shown = 1;
  if (done == total) {
    fputc('\n', stderr);
    p->shown = 0;
  }
  fflush(stderr);
}

static int parse_u64(const char *opt, const char *val, uint64_t *out) {
  char *end = NULL;
  if (!val || !*val || *val == '-') {
    fprintf(stderr, "cuzk bench keygen: %s needs a non-negative integer\n", opt);
    return 0;
  }
  errno = 0;
  unsigned long long v = strtoull(val, &end, 0);
  if (*end || errno) {
    fprintf(stderr, "cuzk bench keygen: %s: '%s' is not a non-negative integer\n", opt, val);
    return 0;
  }
  *out = v;
  return 1;
}

int bench_keygen(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  uint64_t lg = 0, seed = 1, comb_bits = 0;
  unsigned long threads = 0;
  const char *out = NULL;
  int have_lg = 0;
  for (int i = 1; i < argc; i++) {
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--lg")) {
      if (!parse_u64("--lg", val, &lg))
        return CLI_USAGE;
      have_lg = 1, i++;
    } else if (!strcmp(argv[i], "--seed")) {
      if (!parse_u64("--seed", val, &seed))
        return CLI_USAGE;
      i++;
    } else if (!strcmp(argv[i], "--threads")) {
      if (!cli_parse_uint("--threads", val, &threads))
        return CLI_USAGE;
      i++;
    } else if (!strcmp(argv[i], "--comb-bits")) {
      if (!parse_u64("--comb-bits", val, &comb_bits))
        return CLI_USAGE;
      if (comb_bits < 2 || comb_bits > 20) {
        fprintf(stderr, "cuzk bench keygen: --comb-bits %" PRIu64 " is outside 2..20\n", comb_bits);
        return CLI_USAGE;
      }
      i++;
    } else if (!strcmp(argv[i], "--out")) {
      if (!val || !*val) {
        fprintf(stderr, "cuzk bench keygen: --out needs a directory\n");
        return CLI_USAGE;
      }
      out = val, i++;
    } else {
      fprintf(stderr, "cuzk bench keygen: unexpected argument '%s'\n", argv[i]);
      usage(stderr);
      return CLI_USAGE;
    }
  }
  if (!have_lg || !out) {
    fprintf(stderr, "cuzk bench keygen: --lg and --out are required\n");
    usage(stderr);
    return CLI_USAGE;
  }
  if (lg < 2 || lg > KEYGEN_MAX_LG) {
    fprintf(stderr, "cuzk bench keygen: --lg %" PRIu64 " is outside 2..%d\n", lg, KEYGEN_MAX_LG);
    return CLI_USAGE;
  }
  if (threads > 4096) {
    fprintf(stderr, "cuzk bench keygen: --threads %lu is too many\n", threads);
    return CLI_USAGE;
  }
  struct stat sb;
  if (stat(out, &sb) != 0 && errno == ENOENT && mkdir(out, 0755) != 0) {
    fprintf(stderr, "cuzk bench keygen: cannot create %s: %s\n", out, strerror(errno));
    return CLI_USAGE;
  }
  if (stat(out, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "cuzk bench keygen: %s is not a directory\n", out);
    return CLI_USAGE;
  }
  if (access(out, W_OK | X_OK) != 0) {
    fprintf(stderr, "cuzk bench keygen: %s is not writable: %s\n", out, strerror(errno));
    return CLI_USAGE;
  }
  const uint64_t N = KEYGEN_CHAIN_STEPS(lg);
  const uint64_t need = keygen_chain_zkey_bytes(N) + keygen_chain_wtns_bytes(N);
  struct statvfs vfs;
  if (statvfs(out, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < need) {
    fprintf(stderr, "cuzk bench keygen: %s has %.2f GiB free; the key and witness need %.2f GiB\n",
            out, (double)vfs.f_bavail * vfs.f_frsize / (1 << 30), (double)need / (1 << 30));
    return CLI_USAGE;
  }
  size_t plen = strlen(out) + 32;
  char *zpath = malloc(plen), *wpath = malloc(plen);
  if (!zpath || !wpath) {
    free(zpath);
    free(wpath);
    fprintf(stderr, "cuzk bench keygen: out of memory\n");
    return CLI_USAGE;
  }
  snprintf(zpath, plen, "%s/circuit.zkey", out);
  snprintf(wpath, plen, "%s/witness.wtns", out);
  if (threads)
    par_set_threads((unsigned)threads);

  fprintf(stderr,
          "WARNING: INSECURE key: its toxic waste (tau, alpha, beta, delta) is derived from the\n"
          "         seed %" PRIu64 "; anyone who knows the seed can forge proofs for it.  For\n"
          "         benchmarks and tests only; never use it to protect anything.\n",
          seed);
  keygen_chain c;
  cuzk_err err = {0};
  int rc = CLI_USAGE;
  if (keygen_chain_from_seed(&c, N, seed, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk bench keygen: %s\n", err.msg);
    goto done;
  }
  progress_state ps = {.tty = isatty(2), .last_stage = -1};
  keygen_opts o = {.threads = par_threads(),
                   .comb_bits = {(unsigned)comb_bits, (unsigned)comb_bits},
                   .progress = progress,
                   .progress_ctx = &ps};
  keygen_timings tm;
  fprintf(stderr, "keygen: chain with N = %" PRIu64 " steps, nVars %" PRIu64 ", domain 2^%" PRIu64
                  ", %u threads\n",
          N, N + 4, lg, o.threads);
  if (keygen_chain_write(&c, zpath, wpath, &o, &tm, &err) != CUZK_OK) {
    if (ps.shown)
      fputc('\n', stderr);
    fprintf(stderr, "cuzk bench keygen: %s\n", err.msg);
    goto done;
  }
  printf("keygen 2^%" PRIu64 ": %s (%.1f MiB), %s (%.1f MiB), seed %" PRIu64 ", %u threads\n", lg,
         zpath, tm.zkey_bytes / 1048576.0, wpath, tm.wtns_bytes / 1048576.0, seed, o.threads);
  printf("  comb windows: G1 %u bits, G2 %u bits\n", tm.comb_bits[0], tm.comb_bits[1]);
  for (int s = 0; s < KEYGEN_NSTAGES; s++)
    printf("  %-13s %8.3f s\n", keygen_stage_names[s], tm.stage_s[s]);
  printf("  %-13s %8.3f s\n", "total", tm.total_s);
  rc = CLI_OK;
done:
  free(zpath);
  free(wpath);
  return rc;
}
