/* cuzk verify: snarkjs's `groth16 verify` for BLS12-381.  Prints OK (exit
 * 0) or INVALID (exit 1); unreadable or malformed input exits 2. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/json.h"
#include "groth16/verify.h"

static void verify_usage(FILE *f) {
  fprintf(f, "usage: cuzk verify <verification_key.json> <public.json> <proof.json>\n"
             "\n"
             "Checks a Groth16 proof (snarkjs JSON, curve bls12381): the points must be on\n"
             "the curve and in the prime-order subgroup and the pairing equation must hold.\n"
             "\n"
             "Prints OK and exits 0 for a valid proof; prints INVALID and the reason and\n"
             "exits 1 for an invalid one; exits 2 with a message for unreadable or\n"
             "malformed input, or files in another order than the one above (the message\n"
             "says which argument is what).\n");
}

#define VERIFY_ARGS "verification_key.json public.json proof.json"

/* After a reader refused one of the files: whether some file is a snarkjs
 * JSON file of another position's kind (arguments in the wrong order),
 * said in place of the reader's message ('missing key "nPublic"' from a
 * proof given as the key). */
static bool misplaced(char **argv) {
  static const cli_json_kind want[3] = {CLI_JSON_VK, CLI_JSON_PUBLIC, CLI_JSON_PROOF};
  for (int i = 0; i < 3; i++) {
    size_t len;
    char *text = cli_read_text(NULL, argv[i + 1], &len);
    cli_json_kind k = text ? cli_json_kind_of(text, len) : CLI_JSON_NONE;
    free(text);
    if (k != want[i] && (k == CLI_JSON_PROOF || k == CLI_JSON_VK || k == CLI_JSON_PUBLIC)) {
      fprintf(stderr, "cuzk verify: argument %d, %s, is %s, expected %s (usage: cuzk verify " VERIFY_ARGS ")\n",
              i + 1, argv[i + 1], cli_json_kind_name(k), cli_json_kind_name(want[i]));
      return true;
    }
  }
  return false;
}

int cmd_verify(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    verify_usage(stdout);
    return CLI_OK;
  }
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cuzk verify: unknown option '%s'\n\n", argv[i]);
      verify_usage(stderr);
      return CLI_USAGE;
    }
  if (argc != 4) {
    fprintf(stderr, "cuzk verify: expected 3 file arguments, got %d\n", argc - 1);
    verify_usage(stderr);
    return CLI_USAGE;
  }
  cuzk_err err = {0};
  groth16_vk vk = {0};
  groth16_proof proof;
  limb_t(*pub)[4] = NULL;
  size_t n_pub = 0;
  int rc = CLI_USAGE;
  if (json_read_vk(argv[1], &vk, &err) != CUZK_OK ||
      json_read_public(argv[2], &pub, &n_pub, &err) != CUZK_OK ||
      json_read_proof(argv[3], &proof, &err) != CUZK_OK) {
    if (!misplaced(argv))
      fprintf(stderr, "cuzk verify: %s\n", err.msg);
    goto done;
  }
  cuzk_status st = groth16_verify(&vk, (const limb_t(*)[4])pub, n_pub, &proof, &err);
  if (st == CUZK_OK) {
    printf("OK\n");
    rc = CLI_OK;
  } else if (st == CUZK_VERIFY_FAILED) {
    printf("INVALID: %s\n", err.msg);
    rc = CLI_NO;
  } else {
    fprintf(stderr, "cuzk verify: %s: %s\n", argv[2], err.msg);
  }
done:
  free(pub);
  groth16_vk_fini(&vk);
  return rc;
}
