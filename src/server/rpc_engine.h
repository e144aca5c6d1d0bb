/* The gRPC service's messages to and from the engine, apart from gRPC
 * itself (protobuf-c and the engine only), so that the server's handlers
 * and the request-path fuzz harness (tests/fuzz/fuzz_rpc.c) run the same
 * code.  Only built with gRPC (CUZK_GRPC=1), as the generated messages are. */
#ifndef CUZK_SERVER_RPC_ENGINE_H
#define CUZK_SERVER_RPC_ENGINE_H

#include "cuzk/v1/proving.pb-c.h"
#include "engine/engine.h"

/* SubmitProof's (and Prove's) request to engine_submit: refuses a missing
 * message, an empty circuit_id (UNSUPPORTED, naming it, for a Filecoin
 * proof kind, which cuzk does not synthesize), no witness and an unknown
 * priority with INVALID_ARGUMENT; else engine_submit's answer.  The
 * witness bytes are the message's, read in place. */
cuzk_status rpc_submit(engine *e, const Cuzk__V1__SubmitProofRequest *rq, engine_ticket *t,
                       cuzk_err *err);

/* An await's result r (engine_await's status st: OK or TIMEOUT) as an
 * AwaitProofResponse; out points into r, which must outlive it. */
void rpc_result_msg(Cuzk__V1__AwaitProofResponse *out, engine_result *r, cuzk_status st);

#endif
