/* PLACEHOLDER: replaced by the real benchmark in this session's work. */
#include "cli/cli.h"
int bench_ntt(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "cuzk bench: not implemented yet\n");
  return CLI_USAGE;
}
