/* PLACEHOLDER: replaced by the real subcommand in this session's work. */
#include "cli/cli.h"
int cmd_export_vk(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "cuzk: not implemented yet\n");
  return CLI_USAGE;
}
