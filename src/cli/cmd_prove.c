/* cuzk prove: a Groth16 proof from a snarkjs .zkey and a .wtns witness,
 * written as snarkjs's proof.json and public.json.  The proof is verified
 * before it is written; outputs are written to temporary files and renamed,
 * so a failed run never leaves a partial or unverified proof behind, and
 * outputs that would overwrite an input are refused before the work starts
 * (cli_outputs_ok).  With --circuit ID a daemon proves (cmd_remote.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "base/clock.h"
#include "base/par.h"
#include "cli/cli.h"
#include "groth16/json.h"
#include "groth16/proof.h"
#include "groth16/prove.h"

static void prove_usage(FILE *f) {
  fprintf(f,
          "usage: cuzk prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
          "       cuzk prove [options] --pce <circuit.bin> <key.params> <witness.wtns>\n"
          "                  [<witness.wtns> ...] <proof.bin> <public.json>\n"
          "       cuzk prove --circuit ID [--addr A] [--priority P] [--request-id ID]\n"
          "                  <witness.wtns> <proof.json> <public.json>\n"
          "\n"
          "Makes a Groth16 proof (snarkjs-compatible, curve bls12381), verifies it, and\n"
          "writes proof.json and public.json exactly as `snarkjs groth16 prove` does.\n"
          "\n"
          "options:\n"
          "  --threads N   CPU threads (default: all online CPUs)\n"
          "  --device D    cpu, gpu or auto (default auto: the GPU for domains of 2^%d and\n"
          "                more when one is usable, else the CPU; gpu without a usable GPU\n"
          "                is an error)\n"
          "  --ntt-pass1-table\n"
          "                GPU: NTTs with a table of the first pass's twiddle factors (32 bytes\n"
          "                per domain element more GPU memory, a faster forward NTT)\n"
          "  --quiet       no progress or timing lines on stderr\n"
          "  --pce F       with a bellperson key (.params): Curio's constraint file of the\n"
          "                circuit; each witness (iden3 .wtns, ONE, the inputs, the aux in the\n"
          "                file's column order) is one partition; proof.bin gets 192 bytes\n"
          "                per partition (compressed A, B, C), public.json the inputs without\n"
          "                ONE (an array per partition when there are several)\n"
          "  --trusted-key with --pce: skip the on-curve and subgroup checks of the key's\n"
          "                points (a file you made or verified; the proof is still verified)\n"
          "  --insecure-fixed-rs R,S\n"
          "                TESTING ONLY: use the blinding factors R and S (decimal or 0x-hex) instead of\n"
          "                fresh random ones (reproducible proofs; never use in production)\n"
          "  --circuit ID  a cuzk daemon proves instead, with its key ID in place of\n"
          "                <circuit.zkey> (the witness is sent as bytes)\n"
          "  --addr A      that daemon: unix:///path, host:port or tls://host:port (TLS)\n"
          "                (default $CUZK_ADDR, else unix:///run/cuzk/cuzk.sock); --remote A\n"
          "                is the same\n" CLI_TLS_HELP
          "  --priority P, --request-id ID\n"
          "                with --circuit, as for `cuzk submit`\n"
          "\n"
          "No output may name an input file, nor two outputs the same file.  An output\n"
          "that is a symbolic link is written through it; a device or FIFO (/dev/null,\n"
          "/dev/stdout) is written in place.  Inputs must be regular files.\n"
          "\n"
          "exit status: 0 proof written; 2 bad usage, unreadable or malformed input, or a\n"
          "proof that fails verification: a key with an invalid point (named: section,\n"
          "point, offset), else a witness that does not satisfy the circuit.\n",
          CLI_AUTO_GPU_LG);
}

typedef struct {
  double t0, last;
  int quiet;
} progress;

/* Prints stage lines once the run has taken more than two seconds. */
static void on_stage(void *ctx, const char *name) {
  progress *p = ctx;
  double t = cuzk_now_s() - p->t0;
  if (!p->quiet && t > 2.0)
    fprintf(stderr, "cuzk prove: %6.1f s  %s...\n", t, name);
}

/* A decimal or 0x-prefixed hexadecimal integer below r. */
static int parse_scalar(const char *s, size_t len, limb_t out[4]) {
  int ok = len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? limbs_from_hex(out, 4, s, len)
                                                                   : limbs_from_dec(out, 4, s, len);
  return ok && limbs_lt(out, bls12_381_fr_modulus, 4);
}

/* The value of the option at argv[*i] (and steps over it): non-empty and
 * not an option itself, so that `--remote --circuit ID` does not take
 * "--circuit" for an address; NULL after saying what is missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *what) {
  if (*i + 1 >= argc || !*argv[*i + 1] || argv[*i + 1][0] == '-') {
    fprintf(stderr, "cuzk prove: %s needs %s%s%s%s\n", argv[*i], what, *i + 1 < argc ? ", found '" : "",
            *i + 1 < argc ? argv[*i + 1] : "", *i + 1 < argc ? "'" : "");
    return NULL;
  }
  return argv[++*i];
}

/* Partitions one command proves: Filecoin's largest proof has 16. */
#define CLI_PROVE_MAX_PARTS 64
#define CLI_PROVE_MAX_ARGS (CLI_PROVE_MAX_PARTS + 3)

/* The bellperson form: KEY.params WITNESS... PROOF.bin PUBLIC.json. */
static int prove_bp(const char *const *pos, int npos, const char *pce, unsigned threads,
                    const char *device, const limb_t *fr, const limb_t *fs, int quiet,
                    int trusted) {
  if (npos > CLI_PROVE_MAX_ARGS) {
    fprintf(stderr, "cuzk prove: more than %d witnesses\n", CLI_PROVE_MAX_PARTS);
    return CLI_USAGE;
  }
  if (npos < 4 || !pce) {
    fprintf(stderr, "cuzk prove: %s\n",
            !pce ? "a bellperson key (.params) needs --pce CIRCUIT.bin: the key holds no "
                   "constraints"
                 : "expected KEY.params WITNESS.wtns [WITNESS.wtns ...] PROOF.bin PUBLIC.json");
    return CLI_USAGE;
  }
  const size_t k = (size_t)npos - 3;
  const char *in[CLI_PROVE_MAX_ARGS];
  in[0] = pos[0], in[1] = pce;
  for (size_t i = 0; i < k; i++) in[2 + i] = pos[1 + i];
  if (!cli_outputs_ok("prove", in, k + 2, pos + 1 + k, 2))
    return CLI_USAGE;
  if (threads)
    par_set_threads(threads);
  cli_prove_bp_args a = {.key = pos[0], .pce = pce, .wtns = pos + 1, .k = k,
                         .proof_out = pos[1 + k], .public_out = pos[2 + k], .threads = threads,
                         .device = device, .fixed_r = fr, .fixed_s = fs, .quiet = quiet,
                         .trusted = trusted};
  return cli_prove_bp(&a);
}

int cmd_prove(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    prove_usage(stdout);
    return CLI_OK;
  }
  unsigned long threads = 0;
  int quiet = 0, have_rs = 0, pass1_table = 0;
  const char *device = "auto";
  const char *addr = NULL, *circuit = NULL, *request_id = NULL;
  cli_conn conn = {0};
  int tls_opt = 0, bad = 0;
  int priority = 0, local_only = 0;
  limb_t fr[4], fs[4];
  const char *pos[CLI_PROVE_MAX_ARGS], *pce = NULL;
  int npos = 0, trusted = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--threads")) {
      if (!cli_parse_uint("--threads", i + 1 < argc ? argv[++i] : NULL, &threads))
        return CLI_USAGE;
      local_only = 1;
    } else if (!strcmp(argv[i], "--device")) {
      device = i + 1 < argc ? argv[++i] : "";
      local_only = 1;
    } else if (!strcmp(argv[i], "--ntt-pass1-table")) {
      pass1_table = 1;
      local_only = 1;
    } else if (!strcmp(argv[i], "--addr") || !strcmp(argv[i], "--remote")) {
      const char *a = opt_value(argc, argv, &i, "the daemon's address (unix:///path or host:port)");
      if (!a)
        return CLI_USAGE;
      if (addr && strcmp(addr, a)) {
        fprintf(stderr, "cuzk prove: two daemon addresses, %s and %s\n", addr, a);
        return CLI_USAGE;
      }
      addr = a;
    } else if (!strncmp(argv[i], "--tls-", 6) && cli_take_conn(argc, argv, &i, &conn, &bad)) {
      if (bad)
        return CLI_USAGE;
      tls_opt = 1;
    } else if (!strcmp(argv[i], "--circuit")) {
      if (!(circuit = opt_value(argc, argv, &i, "the daemon's circuit id")))
        return CLI_USAGE;
    } else if (!strcmp(argv[i], "--request-id")) {
      if (!(request_id = opt_value(argc, argv, &i, "a request id")))
        return CLI_USAGE;
    } else if (!strcmp(argv[i], "--priority")) {
      if (!cli_parse_priority(i + 1 < argc ? argv[++i] : NULL, &priority))
        return CLI_USAGE;
    } else if (!strcmp(argv[i], "--quiet")) {
      quiet = 1;
    } else if (!strcmp(argv[i], "--pce")) {
      if (!(pce = opt_value(argc, argv, &i, "Curio's constraint file (pce-CIRCUIT.bin)")))
        return CLI_USAGE;
      local_only = 1;
    } else if (!strcmp(argv[i], "--trusted-key")) {
      trusted = 1;
      local_only = 1;
    } else if (!strcmp(argv[i], "--insecure-fixed-rs")) {
      const char *v = i + 1 < argc ? argv[++i] : "";
      const char *comma = strchr(v, ',');
      if (!comma || !parse_scalar(v, (size_t)(comma - v), fr) ||
          !parse_scalar(comma + 1, strlen(comma + 1), fs)) {
        fprintf(stderr, "cuzk prove: --insecure-fixed-rs needs R,S: two integers below r (decimal or 0x-hex)\n");
        return CLI_USAGE;
      }
      have_rs = 1;
      local_only = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cuzk prove: unknown option '%s'\n", argv[i]);
      prove_usage(stderr);
      return CLI_USAGE;
    } else if (npos < CLI_PROVE_MAX_ARGS) {
      pos[npos++] = argv[i];
    } else {
      npos++;
    }
  }
  if (addr || circuit || request_id || priority || tls_opt) {
    if (!circuit || local_only || npos != 3) {
      fprintf(stderr, "cuzk prove: %s\n",
              !circuit ? "--addr, --remote, --tls-*, --priority and --request-id go with --circuit ID (the "
                         "daemon's name for the key)"
              : local_only ? "--threads, --device, --ntt-pass1-table and --insecure-fixed-rs do not go with "
                             "--circuit (a daemon proves)"
                           : "with --circuit, expected 3 file arguments: witness.wtns proof.json public.json");
      return CLI_USAGE;
    }
    if (!cli_outputs_ok("prove", pos, 1, pos + 1, 2))
      return CLI_USAGE;
    conn.addr = addr;
    return cli_remote_prove(&conn, circuit, priority, request_id, pos[0], pos[1], pos[2], quiet);
  }
  size_t kl = npos > 0 ? strlen(pos[0]) : 0;
  if (pce || (kl > 7 && !strcmp(pos[0] + kl - 7, ".params")))
    return prove_bp(pos, npos, pce, (unsigned)threads, device, have_rs ? fr : NULL,
                    have_rs ? fs : NULL, quiet, trusted);
  if (npos != 4) {
    fprintf(stderr, "cuzk prove: expected 4 file arguments, got %d\n", npos);
    prove_usage(stderr);
    return CLI_USAGE;
  }
  if (!cli_outputs_ok("prove", pos, 2, pos + 2, 2))
    return CLI_USAGE;
  if (threads)
    par_set_threads((unsigned)threads);

  progress pr = {cuzk_now_s(), 0, quiet};
  cuzk_err err = {0};
  zkey_file zk;
  wtns_file w;
  int rc = CLI_USAGE;
  if (zkey_open(&zk, pos[0], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    return CLI_USAGE;
  }
  if (wtns_open(&w, pos[1], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    zkey_close(&zk);
    return CLI_USAGE;
  }
  backend_device_opts bo = {.threads = (unsigned)threads, .ntt_pass1_table = pass1_table};
  backend *be = cli_backend(device, &bo, zk.lg_domain, &err);
  if (!be) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    goto done;
  }
  groth16_prove_opts opts = {.fixed_r = have_rs ? fr : NULL,
                             .fixed_s = have_rs ? fs : NULL,
                             .progress = on_stage,
                             .progress_ctx = &pr};
  groth16_timings tm;
  groth16_proof proof;
  cuzk_status pst = groth16_prove_zkey(&proof, &zk, &w, be, &opts, &tm, &err);
  /* An input changed under its mapping (mapfile.h): whatever the prover
   * made of it is not used, and the change is the error to report. */
  cuzk_err cerr = {0};
  if (zkey_check_unchanged(&zk, &cerr) != CUZK_OK || binfile_check(&w.bf, &cerr) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s; no proof written\n", cerr.msg);
    goto done;
  }
  if (pst != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    goto done;
  }
  char *pj = NULL, *pub = NULL;
  if (groth16_proof_json(&pj, &pub, &proof, &w, zk.n_public, &err) != CUZK_OK ||
      json_write_text(pos[2], pj, &err) != CUZK_OK || json_write_text(pos[3], pub, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    free(pj), free(pub);
    goto done;
  }
  free(pj), free(pub);
  if (!quiet && tm.total_s > 2.0)
    fprintf(stderr,
            "cuzk prove: done in %.2f s (a,b %.2f s, quotient %.2f s, MSMs %.2f s, verify %.2f s)\n",
            tm.total_s, tm.ab_s, tm.quotient_s, tm.msm_s, tm.verify_s);
  rc = CLI_OK;
done:
  backend_free(be);
  wtns_close(&w);
  zkey_close(&zk);
  return rc;
}
