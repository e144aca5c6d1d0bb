/* cuzk verify: snarkjs's `groth16 verify` for BLS12-381, and bellperson's
 * verifier for a .vk and binary proofs (k partitions of 192 bytes).  Prints
 * OK (exit 0) or INVALID (exit 1); unreadable or malformed input exits 2. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "groth16/bp.h"
#include "groth16/json.h"
#include "groth16/verify.h"

static void verify_usage(FILE *f) {
  fprintf(f, "usage: cuzk verify <verification_key.json> <public.json> <proof.json>\n"
             "       cuzk verify <KEY.vk> <PUBLIC.json> <PROOF.bin>\n"
             "\n"
             "Checks a Groth16 proof over BLS12-381: the points must be on the curve and in\n"
             "the prime-order subgroup and the pairing equation must hold.\n"
             "\n"
             "The first form takes snarkjs JSON files (curve bls12381).  The second, chosen\n"
             "when the key is named *.vk or the proof *.bin, takes bellperson's (Filecoin)\n"
             "files: KEY.vk a bellperson verifying key; PROOF.bin k proofs of 192 bytes\n"
             "(compressed A | B | C), partitions concatenated in order; PUBLIC.json the\n"
             "inputs without ONE as decimal strings, an array of k such arrays when k > 1.\n"
             "Every partition is checked.\n"
             "\n"
             "Prints OK and exits 0 for a valid proof (every partition valid); prints\n"
             "INVALID and the reason (bellperson: one line per invalid partition, naming\n"
             "it; a proof point that does not decode makes its partition invalid) and\n"
             "exits 1 for an invalid one; exits 2 with a message for unreadable or\n"
             "malformed input (a key that does not parse, a proof file that is not a\n"
             "positive multiple of 192 bytes, inputs that do not match the key or the\n"
             "number of partitions), or files in another order than the one above (the\n"
             "message says which argument is what).\n");
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

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* The most partitions a PROOF.bin may hold (16 MiB of proofs). */
#define BP_VERIFY_MAX_BYTES ((size_t)16 << 20)

/* cuzk verify KEY.vk PUBLIC.json PROOF.bin */
static int verify_bp(char **argv) {
  cuzk_err err = {0};
  bp_vk bvk;
  groth16_vk vk = {0};
  char *bytes = NULL;
  size_t len = 0, k = 0, n_parts = 0, per = 0, bad = 0;
  limb_t(*pub)[4] = NULL;
  int rc = CLI_USAGE;
  if (bp_vk_read(&bvk, argv[1], NULL, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s\n", err.msg);
    return CLI_USAGE;
  }
  if (bp_vk_to_groth16(&bvk, &vk, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s: %s\n", argv[1], err.msg);
    goto done;
  }
  if (fileio_read_all(&bytes, &len, argv[3], BP_VERIFY_MAX_BYTES, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s\n", err.msg);
    goto done;
  }
  if (len == 0 || len % BP_PROOF_BYTES) {
    fprintf(stderr,
            "cuzk verify: %s: %zu bytes, expected a positive multiple of %d (one bellperson proof "
            "per partition)\n",
            argv[3], len, BP_PROOF_BYTES);
    goto done;
  }
  k = len / BP_PROOF_BYTES;
  if (json_read_public_parts(argv[2], &pub, &n_parts, &per, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk verify: %s\n", err.msg);
    goto done;
  }
  if (n_parts != k) {
    fprintf(stderr,
            "cuzk verify: %s holds the inputs of %zu partition%s, %s %zu proof%s (one per "
            "partition)\n",
            argv[2], n_parts, n_parts == 1 ? "" : "s", argv[3], k, k == 1 ? "" : "s");
    goto done;
  }
  if (per != vk.n_public) {
    fprintf(stderr, "cuzk verify: %s: %zu inputs per partition, the key %s expects %zu (n_ic %zu less ONE)\n",
            argv[2], per, argv[1], vk.n_public, bvk.n_ic);
    goto done;
  }
  for (size_t i = 0; i < k; i++) {
    groth16_proof pr;
    cuzk_status st = bp_proof_decode(&pr, (const uint8_t *)bytes + i * BP_PROOF_BYTES, argv[3], i, &err);
    if (st == CUZK_OK)
      st = groth16_verify(&vk, (const limb_t(*)[4])(pub + i * per), per, &pr, &err);
    if (st == CUZK_OK)
      continue;
    if (st != CUZK_FORMAT && st != CUZK_VERIFY_FAILED) {
      fprintf(stderr, "cuzk verify: partition %zu: %s\n", i, err.msg);
      goto done;
    }
    /* bp_proof_decode names the partition itself */
    if (st == CUZK_FORMAT)
      printf("INVALID: %s\n", err.msg);
    else
      printf("INVALID: partition %zu of %zu: %s\n", i, k, err.msg);
    bad++;
  }
  if (bad == 0) {
    printf("OK\n");
    rc = CLI_OK;
  } else {
    rc = CLI_NO;
  }
done:
  free(pub);
  free(bytes);
  groth16_vk_fini(&vk);
  bp_vk_free(&bvk);
  return rc;
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
  if (ends_with(argv[1], ".vk") || ends_with(argv[3], ".bin"))
    return verify_bp(argv);
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
