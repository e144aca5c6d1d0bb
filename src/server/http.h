/* The daemon's HTTP status endpoint, on libmicrohttpd:
 *   GET /metrics   Prometheus text exposition (engine_metrics_text, or the
 *                  source set with http_server_start_ex)
 *   GET /status    JSON from engine_status_get: devices, keys (tier, size,
 *                  refcount), queues per circuit (jobs queued, preparing,
 *                  proving, finalizing), budgets, counters, uptime
 *   anything else  404 (a known path with another method: 405)
 *
 * DESIGN: read-only; one internal epoll thread of libmicrohttpd answers
 * every request, each from a fresh snapshot taken under the engine's lock
 * (engine_status_get), so a slow client never holds the engine.  The
 * listening socket is made by listen.c (so "HOST:PORT" and "unix://PATH"
 * both work, as for the gRPC address).  Built without libmicrohttpd
 * (make MHD=0) http_server_start answers CUZK_UNSUPPORTED saying so.
 *
 *   Connections: an open connection costs a file descriptor and a little
 *   memory, never a thread.  At most max_connections are open; the one
 *   accepted over that closes the oldest idle connection (one with no
 *   request being answered; when every one is busy, the oldest), so a
 *   client that opens connections and sends nothing cannot lock others
 *   out: a new connection is always accepted, and a request that arrives
 *   with it is answered.  The eviction is by age, not by peer address:
 *   every client on loopback shares 127.0.0.1, where a per-address limit
 *   would lock the local monitor out together with the flood.  A
 *   connection idle for idle_timeout_s is closed. */
#ifndef CUZK_SERVER_HTTP_H
#define CUZK_SERVER_HTTP_H

#include <stdbool.h>

#include "base/err.h"
#include "engine/engine.h"

typedef struct http_server http_server;

#define HTTP_DEFAULT_MAX_CONNECTIONS 256
#define HTTP_DEFAULT_IDLE_TIMEOUT_S 10

typedef struct {
  unsigned max_connections; /* open at once, at least 2; 0: HTTP_DEFAULT_MAX_CONNECTIONS */
  unsigned idle_timeout_s;  /* 0: HTTP_DEFAULT_IDLE_TIMEOUT_S */
} http_limits;

/* Serves e on listen ("HOST:PORT", port 0 = any free one, or
 * "unix://PATH", a stale socket file replaced) until http_server_stop.
 * The engine stays the caller's and must outlive the server. */
cuzk_status http_server_start(http_server **out, engine *e, const char *listen, cuzk_err *err);

/* As http_server_start, with the limits lim (NULL: the defaults) and
 * /metrics served from metrics(ctx) (a malloc'd text, NULL on failure)
 * instead of engine_metrics_text when metrics is non-NULL, e.g.
 * rpc_server_metrics_text, which adds the RPC counters.  A unix socket is
 * born 0600 (listen_socket). */
cuzk_status http_server_start_ex(http_server **out, engine *e, const char *listen, const http_limits *lim,
                                 char *(*metrics)(void *ctx), void *ctx, cuzk_err *err);

/* False when built without libmicrohttpd (so a daemon can refuse a
 * status_listen before it starts anything). */
bool http_server_supported(void);

/* The TCP port bound (useful after port 0); 0 for unix://. */
int http_server_port(const http_server *s);

/* Stops answering, closes the socket (removing a unix socket file) and
 * frees s.  NULL is a no-op. */
void http_server_stop(http_server *s);

/* The /status document for a snapshot (malloc'd JSON text without a
 * final new line, NULL when out of memory). */
char *http_status_json(const engine_status *s);

#endif
