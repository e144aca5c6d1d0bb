/* PLACEHOLDER: replaced by the real benchmark in this session's work. */
#include "cli/cli.h"
int bench_msm(int argc, char **argv, int group) {
  (void)argc; (void)argv; (void)group;
  fprintf(stderr, "cuzk bench: not implemented yet\n");
  return CLI_USAGE;
}
