/* cuzk prove with a bellperson key: KEY.params, Curio's constraint file
 * (--pce) and one witness per partition; PROOF.bin gets the k 192-byte
 * proofs concatenated in partition order (Filecoin's MultiProof), and
 * PUBLIC.json the inputs without ONE as decimal strings (an array of such
 * arrays when k > 1).  Every proof is verified before anything is written;
 * outputs go through temporaries (base/fileio.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "base/bytes.h"
#include "base/clock.h"
#include "base/fileio.h"
#include "cli/cli.h"
#include "groth16/bp_prove.h"
#include "groth16/json.h"

typedef struct {
  double t0;
  int quiet;
  size_t part, k;
} bp_progress;

static void on_stage(void *ctx, const char *name) {
  bp_progress *p = ctx;
  double t = cuzk_now_s() - p->t0;
  if (!p->quiet && t > 2.0)
    fprintf(stderr, "cuzk prove: %6.1f s  partition %zu/%zu: %s...\n", t, p->part + 1, p->k, name);
}

int cli_prove_bp(const cli_prove_bp_args *a) {
  cuzk_err err = {0};
  bp_params pp;
  pce_file pce;
  int rc = CLI_USAGE;
  double t0 = cuzk_now_s();
  bp_read_opts ro = {.skip_checks = a->trusted};
  if (pce_open(&pce, a->pce, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    return CLI_USAGE;
  }
  if (bp_params_read(&pp, a->key, &ro, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    pce_close(&pce);
    return CLI_USAGE;
  }
  wtns_file *w = calloc(a->k, sizeof *w);
  groth16_proof *proofs = calloc(a->k, sizeof *proofs);
  uint8_t *bytes = malloc(192 * a->k);
  backend *be = NULL;
  size_t opened = 0;
  uint8_t *pub = NULL;
  if (!w || !proofs || !bytes) {
    fprintf(stderr, "cuzk prove: no memory for %zu partitions\n", a->k);
    goto done;
  }
  if (bp_check_key(&pp, &pce, a->key, a->pce, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    goto done;
  }
  for (; opened < a->k; opened++)
    if (wtns_open(&w[opened], a->wtns[opened], &err) != CUZK_OK) {
      fprintf(stderr, "cuzk prove: %s\n", err.msg);
      goto done;
    }
  backend_device_opts bo = {.threads = a->threads};
  if (!(be = cli_backend(a->device, &bo, pce_domain_lg(&pce), &err))) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    goto done;
  }
  bp_progress pr = {t0, a->quiet, 0, a->k};
  groth16_prove_opts opts = {.fixed_r = a->fixed_r, .fixed_s = a->fixed_s, .progress = on_stage,
                             .progress_ctx = &pr};
  for (size_t p = 0; p < a->k; p++) {
    pr.part = p;
    groth16_timings tm;
    if (bp_prove(&proofs[p], &pp, &pce, &w[p], be, &opts, NULL, &tm, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk prove: partition %zu: %s\n", p, err.msg);
      goto done;
    }
    bp_proof_encode(bytes + 192 * p, &proofs[p]);
    if (!a->quiet && tm.total_s > 2.0)
      fprintf(stderr,
              "cuzk prove: partition %zu in %.2f s (a,b,c %.2f s, h %.2f s, MSMs %.2f s, verify "
              "%.2f s)\n",
              p, tm.total_s, tm.ab_s, tm.quotient_s, tm.msm_s, tm.verify_s);
  }
  /* the public inputs: values 1 .. inputs - 1 of each witness */
  const size_t np = pce.num_inputs - 1;
  if (!(pub = malloc(32 * np * a->k + 1))) {
    fprintf(stderr, "cuzk prove: no memory for the public inputs\n");
    goto done;
  }
  for (size_t p = 0; p < a->k; p++) memcpy(pub + 32 * np * p, wtns_value(&w[p], 1), 32 * np);
  if (fileio_write(a->proof_out, bytes, 192 * a->k, &err) != CUZK_OK ||
      json_write_public_parts(a->public_out, pub, a->k, np, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    goto done;
  }
  rc = CLI_OK;
done:
  free(pub);
  backend_free(be);
  for (size_t i = 0; i < opened; i++) wtns_close(&w[i]);
  free(w);
  free(proofs);
  free(bytes);
  bp_params_free(&pp);
  pce_close(&pce);
  return rc;
}
