/* cuzk setup: INSECURE bellperson-format parameters (.params, .vk) for a
 * Curio constraint file, from a seed (groth16/bp_setup.h): development and
 * benchmark keys for circuits whose real parameters are out of reach. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "base/clock.h"
#include "base/par.h"
#include "cli/cli.h"
#include "groth16/bp_setup.h"

static void setup_usage(FILE *f) {
  fprintf(f,
          "usage: cuzk setup [--seed S] [--threads N] [--device D] [--quiet] <circuit.bin>\n"
          "                  <key.params> <key.vk>\n"
          "\n"
          "Writes Groth16 parameters in bellperson's format for the circuit of a Curio\n"
          "constraint file (PCE .bin): key.params (the verifying key and the h, l, a, b_g1,\n"
          "b_g2 vectors) and key.vk.  INSECURE: the toxic waste and the generators come from\n"
          "the seed (default 1), so anyone who knows it can forge proofs: for development\n"
          "and benchmarks only, never for a real network.\n"
          "\n"
          "options:\n"
          "  --seed S      the seed (an unsigned 64-bit integer)\n"
          "  --threads N   CPU threads (default: all online CPUs)\n"
          "  --device D    where the key's points are multiplied: cpu, gpu, or auto\n"
          "                (default: a GPU when one is usable, else the CPU); the key\n"
          "                is the same bytes either way\n"
          "  --quiet       no progress lines on stderr\n"
          "\n"
          "exit status: 0 written; 2 bad usage, an unreadable or malformed circuit, or a\n"
          "write that failed (nothing is left under either name).\n");
}

typedef struct {
  double t0;
  int quiet;
} setup_progress;

static void on_stage(void *ctx, const char *name) {
  setup_progress *p = ctx;
  if (!p->quiet)
    fprintf(stderr, "cuzk setup: %6.1f s  %s\n", cuzk_now_s() - p->t0, name);
}

int cmd_setup(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    setup_usage(stdout);
    return CLI_OK;
  }
  unsigned long threads = 0, seed = 1;
  const char *device = "auto";
  int quiet = 0, npos = 0;
  const char *pos[3];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed")) {
      const char *v = i + 1 < argc ? argv[++i] : "";
      char *end;
      seed = strtoul(v, &end, 10);
      if (!*v || *end || *v == '-') {
        fprintf(stderr, "cuzk setup: --seed needs an unsigned integer, found '%s'\n", v);
        return CLI_USAGE;
      }
    } else if (!strcmp(argv[i], "--threads")) {
      if (!cli_parse_uint("--threads", i + 1 < argc ? argv[++i] : NULL, &threads))
        return CLI_USAGE;
    } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
      device = argv[++i];
    } else if (!strcmp(argv[i], "--quiet")) {
      quiet = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cuzk setup: unknown option '%s'\n", argv[i]);
      setup_usage(stderr);
      return CLI_USAGE;
    } else if (npos < 3) {
      pos[npos++] = argv[i];
    } else {
      npos++;
    }
  }
  if (npos != 3) {
    fprintf(stderr, "cuzk setup: expected 3 file arguments, got %d\n", npos);
    setup_usage(stderr);
    return CLI_USAGE;
  }
  if (!cli_outputs_ok("setup", pos, 1, pos + 1, 2))
    return CLI_USAGE;
  if (threads)
    par_set_threads((unsigned)threads);
  cuzk_err err = {0};
  pce_file pce;
  if (pce_open(&pce, pos[0], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk setup: %s\n", err.msg);
    return CLI_USAGE;
  }
  setup_progress pr = {cuzk_now_s(), quiet};
  bp_params pp;
  int rc = CLI_USAGE;
  /* auto: a GPU at any size (the set-up's products are all it does there) */
  const backend_device_opts bo = {.threads = (unsigned)threads};
  backend *be = cli_backend(device, &bo, strcmp(device, "auto") ? 0 : CLI_AUTO_GPU_LG, &err);
  if (!be) {
    fprintf(stderr, "cuzk setup: %s\n", err.msg);
    goto out;
  }
  if (!quiet)
    fprintf(stderr, "cuzk setup: the points on the %s backend\n",
            be->ops->fixed_base ? be->ops->name : "CPU");
  bp_setup_opts o = {.threads = (unsigned)threads,
                     .progress = on_stage,
                     .progress_ctx = &pr,
                     .backend = be};
  if (bp_setup(&pp, &pce, seed, &o, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk setup: %s: %s\n", pos[0], err.msg);
    goto out;
  }
  if (bp_params_write(&pp, pos[1], &err) != CUZK_OK || bp_vk_write(&pp.vk, pos[2], &err) != CUZK_OK) {
    fprintf(stderr, "cuzk setup: %s\n", err.msg);
    bp_params_free(&pp);
    goto out;
  }
  if (!quiet)
    fprintf(stderr, "cuzk setup: %s and %s written in %.1f s (INSECURE, seed %lu)\n", pos[1],
            pos[2], cuzk_now_s() - pr.t0, seed);
  bp_params_free(&pp);
  rc = CLI_OK;
out:
  backend_free(be);
  pce_close(&pce);
  return rc;
}
