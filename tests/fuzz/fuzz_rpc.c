/* The daemon's request messages (proto/cuzk/v1/proving.proto) as the gRPC
 * service receives them: each record of the input is a method and a
 * message body, unpacked by the generated protobuf-c code (what
 * rpc_wire_unpack does with a call's payload) and, when it decodes, passed
 * to the engine through the server's own rpc_submit and rpc_result_msg
 * (src/server/rpc_engine.c), as rpc_server.c's handlers do; the
 * reply is built and packed.  Input: 2 bytes of engine settings
 * (engine_fixture.h), then up to FUZZ_CALLS records {u8 method, u16 length,
 * length bytes}.  A witness of the single byte 'K' or 'P' stands for the
 * fixture's witness of that key, so that seeds reach the prover.  Waits are
 * bounded as in fuzz_engine.c: AwaitProof and Prove wait at most 4 ms, and
 * not at all while the workers are held. */
#include "engine_fixture.h"

#include "cuzk/v1/proving.pb-c.h"
#include "server/rpc_engine.h"

#define FUZZ_CALLS 16
#define FUZZ_PARTS 3

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fx_init();
  return 0;
}

static const ProtobufCMessageDescriptor *const req_desc[8] = {
    &cuzk__v1__submit_proof_request__descriptor, &cuzk__v1__await_proof_request__descriptor,
    &cuzk__v1__prove_request__descriptor,        &cuzk__v1__cancel_proof_request__descriptor,
    &cuzk__v1__get_status_request__descriptor,   &cuzk__v1__get_metrics_request__descriptor,
    &cuzk__v1__preload_srs_request__descriptor,  &cuzk__v1__evict_srs_request__descriptor,
};

static void pack(const ProtobufCMessage *m) {
  size_t n = protobuf_c_message_get_packed_size(m);
  uint8_t *b = malloc(n ? n : 1);
  FUZZ_ASSERT(b, "malloc");
  FUZZ_ASSERT(protobuf_c_message_pack(m, b) == n, "packed size");
  free(b);
}

/* The server's rpc_submit, with the harness's partition limit and the
 * 'K' / 'P' stand-ins replaced by the fixture's witnesses first. */
static cuzk_status submit(engine *e, const Cuzk__V1__SubmitProofRequest *rq, size_t *parts,
                          engine_ticket *t, cuzk_err *err) {
  if (rq && *parts + rq->n_witness > FUZZ_PARTS)
    return cuzk_err_set(err, CUZK_EXHAUSTED, "the harness's partition limit");
  Cuzk__V1__SubmitProofRequest r;
  ProtobufCBinaryData w[FUZZ_PARTS];
  if (rq) {
    r = *rq;
    for (size_t i = 0; i < rq->n_witness; i++) {
      w[i] = rq->witness[i];
      if (w[i].len == 1 && (w[i].data[0] == 'K' || w[i].data[0] == 'P'))
        w[i] = w[i].data[0] == 'K' ? (ProtobufCBinaryData){fx_wk_len, fx_wk}
                                   : (ProtobufCBinaryData){fx_wp_len, fx_wp};
    }
    r.witness = w;
  }
  cuzk_status st = rpc_submit(e, rq ? &r : NULL, t, err);
  if (st == CUZK_OK)
    *parts += rq->n_witness;
  return st;
}

/* Waits as await_job does, bounded; builds and packs the reply with the
 * server's rpc_result_msg. */
static bool paused; /* the engine's workers held: awaits do not wait */

static void await_reply(engine *e, const char *id, uint64_t timeout_ms) {
  engine_result r;
  cuzk_err err = {0};
  memset(&r, 0, sizeof r);
  uint64_t ms = paused ? ENGINE_NO_WAIT : timeout_ms == 0 || timeout_ms > 4 ? 4 : timeout_ms;
  cuzk_status st = engine_await(e, id, ms, &r, &err);
  fx_check_result(st, &r, id);
  if (st == CUZK_OK || st == CUZK_TIMEOUT) {
    Cuzk__V1__AwaitProofResponse out;
    rpc_result_msg(&out, &r, st);
    Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
    pr.result = &out;
    pack(&pr.base);
  }
  engine_result_free(&r);
}

static void call(engine *e, unsigned m, ProtobufCMessage *msg, size_t *parts) {
  cuzk_err err = {0};
  engine_ticket t;
  switch (m) {
  case 0:
  case 2: { /* SubmitProof, Prove */
    const Cuzk__V1__SubmitProofRequest *rq =
        m == 0 ? (Cuzk__V1__SubmitProofRequest *)msg : ((Cuzk__V1__ProveRequest *)msg)->submit;
    cuzk_status st = submit(e, rq, parts, &t, &err);
    if (st != CUZK_OK) {
      FUZZ_ASSERT(err.msg[0], "a refusal without a message");
      return;
    }
    if (m == 2) {
      await_reply(e, t.job_id, 0);
      return;
    }
    Cuzk__V1__SubmitProofResponse res = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    res.job_id = t.job_id;
    res.queue_position = t.queue_position;
    res.attached = t.attached;
    pack(&res.base);
    return;
  }
  case 1: { /* AwaitProof */
    const Cuzk__V1__AwaitProofRequest *rq = (Cuzk__V1__AwaitProofRequest *)msg;
    if (*rq->job_id)
      await_reply(e, rq->job_id, rq->timeout_ms);
    return;
  }
  case 3: { /* CancelProof */
    const Cuzk__V1__CancelProofRequest *rq = (Cuzk__V1__CancelProofRequest *)msg;
    bool was_running;
    if (*rq->job_id) {
      cuzk_status st = engine_cancel(e, rq->job_id, &was_running, &err);
      FUZZ_ASSERT(st == CUZK_OK || st == CUZK_NOT_FOUND, "cancel: %s", cuzk_status_name(st));
    }
    return;
  }
  case 4: /* GetStatus */
  case 5: /* GetMetrics */
    fx_status(e);
    return;
  default: { /* PreloadSRS, EvictSRS */
    const char *id = m == 6 ? ((Cuzk__V1__PreloadSrsRequest *)msg)->circuit_id
                            : ((Cuzk__V1__EvictSrsRequest *)msg)->circuit_id;
    bool flag;
    uint64_t n;
    if (!*id)
      return;
    cuzk_status st = m == 6 ? engine_preload(e, id, &flag, &n, &err)
                            : engine_evict(e, id, &flag, &n, &err);
    FUZZ_ASSERT(st == CUZK_OK || err.msg[0], "a refusal without a message");
    return;
  }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  bool cancel_on_shutdown;
  engine *e = fx_engine(&in, &cancel_on_shutdown, &paused);
  size_t parts = 0;
  for (int i = 0; i < FUZZ_CALLS && in.n; i++) {
    uint8_t op = fz_u8(&in);
    if (op & 128) { /* let the workers go, or hold them */
      engine_set_paused(e, paused = !FX_UNPAUSE(op));
      continue;
    }
    unsigned m = op & 7;
    size_t len;
    const uint8_t *body = fz_bytes(&in, fz_u16(&in), &len);
    ProtobufCMessage *msg = protobuf_c_message_unpack(req_desc[m], NULL, len, body);
    if (!msg)
      continue; /* INVALID_ARGUMENT: not a valid message */
    call(e, m, msg, &parts);
    protobuf_c_message_free_unpacked(msg, NULL);
  }
  engine_free(e);
  return 0;
}
