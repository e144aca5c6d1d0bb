/* The daemon's gRPC service, cuzk.v1.ProvingEngine (proto/cuzk/v1/proving.proto),
 * on gRPC's C core library, in front of one engine (engine/engine.h).
 *
 * Built without gRPC (make GRPC=0) rpc_server_start answers
 * CUZK_UNSUPPORTED "built without gRPC". */
#ifndef CUZK_SERVER_RPC_SERVER_H
#define CUZK_SERVER_RPC_SERVER_H

#include <stddef.h>

#include "base/err.h"
#include "engine/engine.h"

typedef struct rpc_server rpc_server;

/* gRPC's own memory (its resource quota: the transports' buffers and the
 * received messages it holds) is the largest message plus this; the
 * server charges both to the engine's queue budget for its life, so the
 * queue budget must hold them (rpc_server_start: INVALID_ARGUMENT). */
#define RPC_SERVER_TRANSPORT_BYTES ((uint64_t)8 << 20)

/* Listens on `listen`: "unix:///abs/path" or "unix://rel/path" (a stale
 * socket file there is replaced; CUZK_UNAVAILABLE when a process listens
 * on it) or "host:port" ("0.0.0.0:9820", "[::]:9820", "localhost:9820";
 * port 0 picks a free one; a port in use is an error, never shared), with
 * messages of up to max_message_bytes both ways (0: 256 MiB; larger ones
 * are refused by gRPC with RESOURCE_EXHAUSTED), and serves until
 * rpc_server_shutdown.  The engine stays the caller's and must outlive the
 * server.  Compressed requests are refused (UNIMPLEMENTED); what the calls
 * hold is charged to the engine's queue budget (rpc_server.c, "Memory").
 * CUZK_INVALID_ARGUMENT for a malformed address or a queue budget that
 * cannot hold gRPC's buffers, CUZK_IO when it cannot be bound (in use, no
 * such directory, permission). */
cuzk_status rpc_server_start(rpc_server **out, engine *e, const char *listen,
                             size_t max_message_bytes, cuzk_err *err);

/* TLS for a TCP listen address: PEM texts, which gRPC copies (they need
 * not outlive rpc_server_start_tls). */
typedef struct {
  const char *cert_pem, *key_pem; /* the server's certificate (chain) and key */
  const char *client_ca_pem;      /* non-NULL: every client must present a certificate this CA
                                   * signed (mutual TLS); NULL: clients are not asked for one */
} rpc_tls;

/* As rpc_server_start, over TLS when tls is non-NULL (else plaintext).  A
 * unix socket is born 0600 whatever the umask (listen.h,
 * LISTEN_UNIX_UMASK); the caller widens it (listen_unix_set_access). */
cuzk_status rpc_server_start_tls(rpc_server **out, engine *e, const char *listen,
                                 size_t max_message_bytes, const rpc_tls *tls, cuzk_err *err);

/* The TCP port bound (useful after listening on port 0); 0 for unix://. */
int rpc_server_port(const rpc_server *s);

/* The engine's metrics (engine_metrics_text) followed by the server's
 * own: cuzk_rpc_calls_total{method,code}, the calls answered (method
 * "unknown": calls of a method the service does not have, each answered
 * UNIMPLEMENTED at once).  malloc'd;
 * NULL when out of memory or built without gRPC. */
char *rpc_server_metrics_text(rpc_server *s);

/* Stops accepting calls (new ones get UNAVAILABLE, or are reset by gRPC
 * when they arrive as it closes) and answers those in hand: a call whose
 * result is there gets it, one still waiting on a job gets UNAVAILABLE
 * (the job goes on).  A daemon first shuts the engine down, so that its
 * jobs finish and their waiters get the results, and gives the clients
 * that come back for results a grace (engine_wait_collected) while the
 * server still serves.  The replies get up
 * to 2 s to go out; what is left then is cancelled.  Joins the server's
 * threads and frees it.  NULL is a no-op. */
void rpc_server_shutdown(rpc_server *s);

#endif
