/* cuzk export-vk: verification_key.json from a .zkey, as
 * `snarkjs zkey export verificationkey` writes it. */
#include <string.h>

#include "cli/cli.h"
#include "groth16/json.h"
#include "groth16/verify.h"
#include "groth16/zkey.h"

static void export_usage(FILE *f) {
  fprintf(f, "usage: cuzk export-vk <circuit.zkey> <verification_key.json>\n"
             "\n"
             "Writes the verification key of a snarkjs Groth16 key (curve bls12381) in\n"
             "snarkjs's JSON form, including vk_alphabeta_12 = e(alpha, beta).  The output\n"
             "may not be the key file itself.\n");
}

int cmd_export_vk(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    export_usage(stdout);
    return CLI_OK;
  }
  if (argc != 3) {
    fprintf(stderr, "cuzk export-vk: expected 2 file arguments, got %d\n", argc - 1);
    export_usage(stderr);
    return CLI_USAGE;
  }
  if (!cli_outputs_ok("export-vk", (const char *const *)argv + 1, 1, (const char *const *)argv + 2, 1))
    return CLI_USAGE;
  cuzk_err err = {0};
  zkey_file zk;
  groth16_vk vk = {0};
  int rc = CLI_USAGE;
  if (zkey_open(&zk, argv[1], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk export-vk: %s\n", err.msg);
    return CLI_USAGE;
  }
  if (zkey_read_vk(&zk, &vk, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk export-vk: %s\n", err.msg);
    goto done;
  }
  groth16_vk_compute_alphabeta(&vk);
  /* The key changed under its mapping: the points read may be wrong. */
  if (zkey_check_unchanged(&zk, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk export-vk: %s; nothing written\n", err.msg);
    goto done;
  }
  if (json_write_vk(argv[2], &vk, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk export-vk: %s\n", err.msg);
    goto done;
  }
  rc = CLI_OK;
done:
  groth16_vk_fini(&vk);
  zkey_close(&zk);
  return rc;
}
