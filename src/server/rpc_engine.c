/* The service's messages to and from the engine: see rpc_engine.h. */
#include "server/rpc_engine.h"

#include <stdlib.h>

static const char *proof_kind_name(int k) {
  switch (k) {
  case CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT: return "POREP_SEAL_COMMIT";
  case CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE: return "SNAP_DEALS_UPDATE";
  case CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION: return "WINDOW_POST_PARTITION";
  case CUZK__V1__PROOF_KIND__WINNING_POST: return "WINNING_POST";
  default: return "PROOF_KIND_UNSPECIFIED";
  }
}

cuzk_status rpc_submit(engine *e, const Cuzk__V1__SubmitProofRequest *rq, engine_ticket *t,
                       cuzk_err *err) {
  if (!rq)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "no submit message");
  if (!rq->circuit_id || !*rq->circuit_id) {
    if (rq->proof_kind >= 1 && rq->proof_kind <= 4)
      return cuzk_err_set(err, CUZK_UNSUPPORTED,
                          "proof kind %s: vanilla-proof synthesis of Filecoin proofs is not "
                          "implemented in cuzk, so no proof was made; cuzk proves snarkjs "
                          "circuits (set circuit_id and one .wtns witness per partition)",
                          proof_kind_name(rq->proof_kind));
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "circuit_id is empty (set circuit_id and one .wtns witness per partition)");
  }
  if (rq->n_witness && rq->n_witness_file)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "circuit '%s': witness bytes and witness files in one request (send one "
                        "or the other)", rq->circuit_id);
  if (rq->n_witness == 0 && rq->n_witness_file == 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "circuit '%s': no witness (send one .wtns image, or name one .wtns file, "
                        "per partition)", rq->circuit_id);
  if ((unsigned)rq->priority > ENGINE_PRI_CRITICAL)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "priority %d is not one of 0 (default), 1 LOW .. 4 CRITICAL",
                        (int)rq->priority);
  if (rq->n_witness_file) {
    engine_request er = {.request_id = rq->request_id,
                         .circuit_id = rq->circuit_id,
                         .priority = (engine_priority)rq->priority,
                         .nparts = rq->n_witness_file,
                         .witness_file = (const char *const *)rq->witness_file,
                         .want_json = rq->want_json};
    return engine_submit(e, &er, t, err);
  }
  const uint8_t **w = malloc(rq->n_witness * sizeof *w);
  size_t *wl = malloc(rq->n_witness * sizeof *wl);
  if (!w || !wl) {
    free(w);
    free(wl);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < rq->n_witness; i++) {
    w[i] = rq->witness[i].data;
    wl[i] = rq->witness[i].len;
  }
  engine_request er = {.request_id = rq->request_id,
                       .circuit_id = rq->circuit_id,
                       .priority = (engine_priority)rq->priority,
                       .nparts = rq->n_witness,
                       .witness = w,
                       .witness_len = wl,
                       .want_json = rq->want_json};
  cuzk_status st = engine_submit(e, &er, t, err);
  free(w);
  free(wl);
  return st;
}

void rpc_result_msg(Cuzk__V1__AwaitProofResponse *out, engine_result *r, cuzk_status st) {
  cuzk__v1__await_proof_response__init(out);
  out->job_id = r->job_id;
  out->state = (char *)engine_job_state_name(r->state);
  if (st == CUZK_TIMEOUT) {
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
  } else if (r->state == ENGINE_JOB_DONE) {
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    out->proof.data = r->proof;
    out->proof.len = r->proof_len;
    if (r->public_json) { /* proof_json NULL: a bellperson key's job */
      out->n_proof_json = r->proof_json ? r->nparts : 0;
      out->n_public_json = r->nparts;
      out->proof_json = r->proof_json;
      out->public_json = r->public_json;
    }
  } else if (r->state == ENGINE_JOB_CANCELLED) {
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
    out->error_message = r->error[0] ? r->error : "cancelled"; /* by whom: a CancelProof, a stop */
    out->error_code = (char *)cuzk_status_name(CUZK_CANCELLED);
  } else if (r->state == ENGINE_JOB_FAILED) {
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
    out->error_message = r->error;
    out->error_code = (char *)cuzk_status_name(r->job_status);
  } else {
    out->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN;
  }
  const engine_timings *tm = &r->timings;
  out->queue_wait_ms = tm->queue_wait_ms;
  out->srs_load_ms = tm->key_load_ms;
  out->synthesis_ms = tm->prepare_ms;
  out->gpu_compute_ms = tm->gpu_ms;
  out->total_ms = tm->total_ms;
  out->prepare_ms = tm->prepare_ms;
  out->finalize_ms = tm->finalize_ms;
}
