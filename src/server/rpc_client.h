/* A small client of cuzk.v1.ProvingEngine on gRPC's C core: one channel,
 * unary calls with a deadline.  Used by the `cuzk` remote subcommands
 * (src/cli/cmd_remote.c) and the daemon tests.  Only built with gRPC. */
#ifndef CUZK_SERVER_RPC_CLIENT_H
#define CUZK_SERVER_RPC_CLIENT_H

#include <stdint.h>

#include "base/err.h"
#include "server/rpc_wire.h"

typedef struct rpc_client rpc_client;

/* A channel to addr: "unix:///abs/path", "/abs/path" (taken as unix://),
 * "host:port", or "tls://host:port" (TLS with the system's roots).
 * Connects lazily: an unreachable daemon shows at the first call.
 * max_message_bytes 0: 256 MiB. */
cuzk_status rpc_client_new(rpc_client **out, const char *addr, size_t max_message_bytes, cuzk_err *err);

/* TLS to the daemon: PEM texts, which gRPC copies. */
typedef struct {
  const char *ca_pem;          /* roots the daemon's certificate must chain to; NULL: the system's */
  const char *cert_pem, *key_pem; /* the client's certificate and key (mutual TLS), both or neither */
  const char *server_name;     /* the name checked in the daemon's certificate; NULL: addr's host */
} rpc_client_tls;

/* As rpc_client_new, over TLS when tls is non-NULL or addr is
 * "tls://host:port" (TLS over a unix socket is refused:
 * CUZK_INVALID_ARGUMENT). */
cuzk_status rpc_client_new_tls(rpc_client **out, const char *addr, const rpc_client_tls *tls,
                               size_t max_message_bytes, cuzk_err *err);
void rpc_client_free(rpc_client *c);
/* The address as given. */
const char *rpc_client_addr(const rpc_client *c);

/* Calls method m with req; *resp is the reply (free it with
 * protobuf_c_message_free_unpacked(*resp, NULL)).  timeout_ms 0: no
 * deadline.  Calls may run from several threads at once.
 * On failure *resp is NULL, err holds the cuzk status the reply stands for
 * (rpc_status_from_reply) and a message: the server's text, or for a
 * daemon that cannot be reached "cannot reach the cuzk daemon at ADDR: ...";
 * *code (may be NULL) is the gRPC code (RPC_CODE_OK on success). */
cuzk_status rpc_client_call(rpc_client *c, rpc_method m, const ProtobufCMessage *req,
                            ProtobufCMessage **resp, uint64_t timeout_ms, int *code, cuzk_err *err);

#endif
