/* cuzk bench: dispatch to the benchmark of one operation. */
#include <string.h>

#include "cli/cli.h"

static void bench_usage(FILE *f) {
  fprintf(f, "usage: cuzk bench ntt|msm-g1|msm-g2|prove|bp|keygen|daemon [options]\n"
             "  bp proves partitions of a Filecoin-shaped development circuit.\n"
             "  keygen writes an INSECURE test key and witness of 2^K constraints.\n"
             "  daemon loads a running cuzk-daemon from concurrent clients.\n"
             "  `cuzk bench <what> --help` lists the options of each.\n");
}

int cmd_bench(int argc, char **argv) {
  if (argc < 2) {
    bench_usage(stderr);
    return CLI_USAGE;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    bench_usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(argv[1], "ntt"))
    return bench_ntt(argc - 1, argv + 1);
  if (!strcmp(argv[1], "msm-g1"))
    return bench_msm(argc - 1, argv + 1, 1);
  if (!strcmp(argv[1], "msm-g2"))
    return bench_msm(argc - 1, argv + 1, 2);
  if (!strcmp(argv[1], "prove"))
    return bench_prove(argc - 1, argv + 1);
  if (!strcmp(argv[1], "bp"))
    return bench_bp(argc - 1, argv + 1);
  if (!strcmp(argv[1], "keygen"))
    return bench_keygen(argc - 1, argv + 1);
  if (!strcmp(argv[1], "daemon"))
    return bench_daemon(argc - 1, argv + 1);
  fprintf(stderr, "cuzk bench: unknown benchmark '%s'\n", argv[1]);
  bench_usage(stderr);
  return CLI_USAGE;
}
