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

/* The public inputs of the k witnesses (values 1 .. ninp - 1 of each). */
static char *public_json(const wtns_file *w, size_t k, size_t ninp) {
  size_t cap = 16 + k * (4 + ninp * 84), len = 0;
  char *s = malloc(cap);
  if (!s)
    return NULL;
  if (k > 1)
    len += (size_t)snprintf(s + len, cap - len, "[\n");
  for (size_t p = 0; p < k; p++) {
    len += (size_t)snprintf(s + len, cap - len, "%s[", k > 1 ? " " : "");
    for (size_t i = 1; i < ninp; i++) {
      limb_t x[4];
      char dec[80];
      limbs_from_le(x, wtns_value(&w[p], i), 4);
      limbs_to_dec(dec, x, 4);
      len += (size_t)snprintf(s + len, cap - len, "%s\n%s \"%s\"", i > 1 ? "," : "",
                              k > 1 ? " " : "", dec);
    }
    len += (size_t)snprintf(s + len, cap - len, "%s%s]%s\n", ninp > 1 ? "\n" : "",
                            ninp > 1 && k > 1 ? " " : "", p + 1 < k ? "," : "");
  }
  if (k > 1)
    snprintf(s + len, cap - len, "]\n");
  return s;
}

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
  char *pub = NULL;
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
  if (!(be = cli_backend(a->device, &bo, bp_lg_domain(pce.num_constraints), &err))) {
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
  if (!(pub = public_json(w, a->k, pce.num_inputs))) {
    fprintf(stderr, "cuzk prove: no memory for the public inputs\n");
    goto done;
  }
  if (fileio_write(a->proof_out, bytes, 192 * a->k, &err) != CUZK_OK ||
      json_write_text(a->public_out, pub, &err) != CUZK_OK) {
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
