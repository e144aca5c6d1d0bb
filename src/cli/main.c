/* cuzk: the command-line entry point; dispatches to src/cli/cmd_*.c. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk/version.h"

typedef struct {
  const char *name;
  int (*fn)(int, char **);
  const char *summary;
} command;

static const command commands[] = {
    {"prove", cmd_prove, "make a Groth16 proof from a snarkjs .zkey and a .wtns witness"},
    {"verify", cmd_verify, "check a proof.json against verification_key.json and public.json"},
    {"export-vk", cmd_export_vk, "write verification_key.json from a .zkey"},
    {"info", cmd_info, "describe a .r1cs, .wtns, .zkey or proof file"},
    {"circuit", cmd_circuit, "gen: a development circuit (Curio PCE .bin) and witnesses; check"},
    {"setup", cmd_setup, "write INSECURE bellperson .params/.vk for a PCE circuit (development)"},
    {"bench", cmd_bench, "measure ntt, msm-g1, msm-g2 or prove throughput"},
    {"submit", cmd_submit, "queue a proof job on a cuzk daemon; prints its job id"},
    {"await", cmd_await, "wait for a daemon's job and write its proof"},
    {"cancel", cmd_cancel, "cancel a daemon's job"},
    {"status", cmd_status, "show a daemon's workers, keys, queues and budgets"},
    {"metrics", cmd_metrics, "print a daemon's Prometheus metrics"},
    {"preload", cmd_preload, "have a daemon load a circuit's key now"},
    {"evict", cmd_evict, "have a daemon drop a circuit's key"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: cuzk <command> [options] [args]\n       cuzk --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\n`cuzk <command> --help` describes one command.\n"
             "exit status: 0 success, 1 a negative answer (proof INVALID, a check of info\n"
             "failed), 2 usage or input error.\n"
             "The daemon commands (and prove --circuit ID) take --addr A, default $CUZK_ADDR or\n"
             "unix:///run/cuzk/cuzk.sock.\n");
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
      return 1;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cli_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int cli_parse_uint(const char *opt, const char *val, unsigned long *out) {
  char *end = NULL;
  if (!val || !*val || *val == '-') {
    fprintf(stderr, "cuzk: %s needs a positive integer\n", opt);
    return 0;
  }
  unsigned long v = strtoul(val, &end, 10);
  if (*end || v == 0) {
    fprintf(stderr, "cuzk: %s: '%s' is not a positive integer\n", opt, val);
    return 0;
  }
  *out = v;
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? CLI_USAGE : CLI_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("cuzk %s%s%s%s\n", CUZK_VERSION_ARGS);
    return CLI_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name))
      return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "cuzk: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return CLI_USAGE;
}
