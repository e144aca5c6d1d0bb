/* HTTP /status and /metrics on libmicrohttpd: see http.h. */
#include "server/http.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/listen.h"

/* ---- the /status document (no libmicrohttpd needed) ---------------------- */

static int add_num(cJSON *o, const char *k, double v) { return cJSON_AddNumberToObject(o, k, v) != NULL; }

static cJSON *budget_json(uint64_t budget, uint64_t used) {
  cJSON *b = cJSON_CreateObject();
  if (b && (!add_num(b, "budget_bytes", (double)budget) || !add_num(b, "used_bytes", (double)used))) {
    cJSON_Delete(b);
    return NULL;
  }
  return b;
}

/* Numbers are JSON numbers (doubles): byte counts stay exact below 2^53. */
char *http_status_json(const engine_status *s) {
  cJSON *root = cJSON_CreateObject(), *a, *o;
  if (!root)
    return NULL;
  int ok = add_num(root, "uptime_s", (double)s->uptime_s);

  ok = ok && (a = cJSON_AddArrayToObject(root, "devices")) != NULL;
  for (size_t i = 0; ok && i < s->ngpus; i++) {
    const engine_gpu_status *g = &s->gpus[i];
    ok = (o = cJSON_CreateObject()) != NULL && cJSON_AddItemToArray(a, o) && add_num(o, "ordinal", g->ordinal) &&
         cJSON_AddStringToObject(o, "name", g->name) &&
         cJSON_AddStringToObject(o, "state", engine_gpu_state_name(g->state)) &&
         cJSON_AddStringToObject(o, "reason", g->reason) && add_num(o, "vram_total_bytes", (double)g->vram_total) &&
         add_num(o, "vram_free_bytes", (double)g->vram_free) && add_num(o, "budget_bytes", (double)g->budget) &&
         add_num(o, "used_bytes", (double)g->used) &&
         add_num(o, "resident_bytes", (double)g->resident) && add_num(o, "slots", g->slots) &&
         add_num(o, "busy_slots", g->busy_slots) && cJSON_AddBoolToObject(o, "express", g->express) &&
         cJSON_AddStringToObject(o, "current_job", g->current_job);
  }
  ok = ok && (o = cJSON_AddObjectToObject(root, "cpu")) != NULL && add_num(o, "workers", s->cpu_workers) &&
       add_num(o, "busy_workers", s->busy_workers);
  /* Workers that can take work, GPU slots and CPU workers: 0 when every GPU
   * was lost and there is no CPU fallback (submissions are then refused). */
  ok = ok && add_num(root, "serving_workers", s->serving_workers) &&
       add_num(root, "retried_partitions", (double)s->retried);
  /* The witness read-ahead ([gpus] witness_readahead): its buffers, those
   * holding a queued partition's values now, partitions begun from one. */
  ok = ok && (o = cJSON_AddObjectToObject(root, "readahead")) != NULL &&
       add_num(o, "buffers", s->readahead_buffers) && add_num(o, "filled", s->readahead_filled) &&
       add_num(o, "partitions", (double)s->readahead_used);

  ok = ok && (a = cJSON_AddArrayToObject(root, "keys")) != NULL;
  for (size_t i = 0; ok && i < s->nkeys; i++) {
    const engine_key_status *k = &s->keys[i];
    ok = (o = cJSON_CreateObject()) != NULL && cJSON_AddItemToArray(a, o) &&
         cJSON_AddStringToObject(o, "id", k->id) && cJSON_AddStringToObject(o, "tier", engine_tier_name(k->tier)) &&
         add_num(o, "size_bytes", (double)k->size_bytes) && add_num(o, "refcount", k->refcount) &&
         add_num(o, "idle_ms", (double)k->idle_ms);
  }

  ok = ok && (a = cJSON_AddArrayToObject(root, "queues")) != NULL;
  for (size_t i = 0; ok && i < s->nqueues; i++) {
    const engine_queue_status *q = &s->queues[i];
    ok = (o = cJSON_CreateObject()) != NULL && cJSON_AddItemToArray(a, o) &&
         cJSON_AddStringToObject(o, "circuit_id", q->circuit_id) && add_num(o, "queued", q->queued) &&
         add_num(o, "preparing", q->preparing) && add_num(o, "proving", q->proving) &&
         add_num(o, "finalizing", q->finalizing);
  }

  cJSON *b;
  ok = ok && (o = cJSON_AddObjectToObject(root, "budgets")) != NULL &&
       (b = budget_json(s->host_budget, s->host_used)) != NULL && cJSON_AddItemToObject(o, "host", b) &&
       (b = budget_json(s->queue_budget, s->queue_used)) != NULL && cJSON_AddItemToObject(o, "queue", b);
  ok = ok && (o = cJSON_AddObjectToObject(root, "counters")) != NULL &&
       add_num(o, "completed", (double)s->completed) && add_num(o, "failed", (double)s->failed) &&
       add_num(o, "cancelled", (double)s->cancelled);
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

#if CUZK_MHD

#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* One open connection, in s's list in the order they were accepted.
 * Touched only by libmicrohttpd's one internal thread (its callbacks), so
 * the list needs no lock. */
typedef struct http_conn {
  struct http_conn *prev, *next;
  int fd;
  bool busy;    /* a request is being read or answered */
  bool evicted; /* shut down; libmicrohttpd closes it at its next turn */
} http_conn;

struct http_server {
  struct MHD_Daemon *d;
  engine *e;
  char *(*metrics)(void *ctx);
  void *metrics_ctx;
  listen_addr addr;
  int port;
  unsigned max_conns;
  unsigned nlive;         /* connections in the list not evicted */
  http_conn *head, *tail; /* every open connection, oldest first */
};

/* Closes the oldest idle live connection (else the oldest live one): its
 * socket is shut down, which libmicrohttpd sees as the peer's close and
 * cleans up.  shutdown, not close: the descriptor stays libmicrohttpd's. */
static void evict_one(http_server *s) {
  http_conn *victim = NULL;
  for (http_conn *k = s->head; k; k = k->next)
    if (!k->evicted && (!victim || (victim->busy && !k->busy))) {
      victim = k;
      if (!k->busy)
        break;
    }
  if (!victim)
    return;
  victim->evicted = true;
  s->nlive--;
  shutdown(victim->fd, SHUT_RDWR);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
  http_server *s = cls;
  http_conn *k = *socket_context;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    k = calloc(1, sizeof *k);
    if (!k || !fi) { /* cannot track it: refuse it */
      free(k);
      if (fi)
        shutdown(fi->connect_fd, SHUT_RDWR);
      return;
    }
    k->fd = fi->connect_fd;
    k->prev = s->tail;
    if (s->tail)
      s->tail->next = k;
    else
      s->head = k;
    s->tail = k;
    s->nlive++;
    *socket_context = k;
    while (s->nlive > s->max_conns)
      evict_one(s);
    return;
  }
  if (!k) /* MHD_CONNECTION_NOTIFY_CLOSED */
    return;
  if (k->prev)
    k->prev->next = k->next;
  else
    s->head = k->next;
  if (k->next)
    k->next->prev = k->prev;
  else
    s->tail = k->prev;
  if (!k->evicted)
    s->nlive--;
  free(k);
  *socket_context = NULL;
}

static http_conn *conn_of(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return i ? i->socket_context : NULL;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode t) {
  (void)cls, (void)state, (void)t;
  http_conn *k = conn_of(c);
  if (k)
    k->busy = false;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body) {
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  enum MHD_Result ret = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ret;
}

/* A JSON body (malloc'd, consumed), ended by a new line for curl's sake. */
static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned code, char *body) {
  size_t n = strlen(body);
  char *nl = realloc(body, n + 2);
  if (nl) {
    body = nl;
    memcpy(body + n, "\n", 2);
  }
  return reply(c, code, "application/json", body);
}

/* {"error":{"code":"...","message":"..."}}: a stable code first, then text. */
static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned code, const char *name, const char *msg) {
  cJSON *root = cJSON_CreateObject(), *e = root ? cJSON_AddObjectToObject(root, "error") : NULL;
  char *body = e && cJSON_AddStringToObject(e, "code", name) && cJSON_AddStringToObject(e, "message", msg)
                   ? cJSON_PrintUnformatted(root)
                   : NULL;
  cJSON_Delete(root);
  return body ? reply_json(c, code, body) : MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state) {
  http_server *s = cls;
  static int first_call_marker;
  if (!*state) { /* headers only so far: answer on the next call */
    *state = &first_call_marker;
    http_conn *k = conn_of(c);
    if (k)
      k->busy = true;
    return MHD_YES;
  }
  if (*upload_size) { /* a body we do not read */
    *upload_size = 0;
    return MHD_YES;
  }
  int is_metrics = !strcmp(url, "/metrics"), is_status = !strcmp(url, "/status");
  if (!is_metrics && !is_status)
    return reply_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such resource: try /status or /metrics");
  if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
    return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "invalid_argument", "only GET and HEAD");
  if (is_metrics) {
    char *text = s->metrics ? s->metrics(s->metrics_ctx) : engine_metrics_text(s->e);
    if (!text)
      return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "no_memory", "cannot build the metrics");
    return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text);
  }
  engine_status st;
  cuzk_err err = {0};
  if (engine_status_get(s->e, &st, &err) != CUZK_OK)
    return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, cuzk_status_name(err.status), err.msg);
  char *json = http_status_json(&st);
  engine_status_free(&st);
  if (!json)
    return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "no_memory", "cannot build the status");
  return reply_json(c, MHD_HTTP_OK, json);
}

cuzk_status http_server_start_ex(http_server **out, engine *e, const char *listen, const http_limits *lim,
                                 char *(*metrics)(void *ctx), void *ctx, cuzk_err *err) {
  *out = NULL;
  http_server *s = calloc(1, sizeof *s);
  if (!s)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
  s->max_conns = lim && lim->max_connections ? lim->max_connections : HTTP_DEFAULT_MAX_CONNECTIONS;
  if (s->max_conns < 2)
    s->max_conns = 2;
  unsigned idle_s = lim && lim->idle_timeout_s ? lim->idle_timeout_s : HTTP_DEFAULT_IDLE_TIMEOUT_S;
  s->e = e;
  s->metrics = metrics;
  s->metrics_ctx = ctx;
  cuzk_status st = listen_addr_parse(&s->addr, listen, err);
  if (st == CUZK_OK && s->addr.is_unix)
    st = listen_unix_prepare(s->addr.path, err);
  int fd = st == CUZK_OK ? listen_socket(&s->addr, err) : -1;
  if (fd < 0) {
    free(s);
    return cuzk_err_prefix(err, st != CUZK_OK ? st : CUZK_IO, "status_listen %s", listen);
  }
  if (!s->addr.is_unix) {
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
      s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
  }
  /* libmicrohttpd's own limit is one above ours plus the connections
   * evicted but not yet cleaned up, so that it always accepts the one that
   * makes on_connection evict (at its limit it would stop accepting, and
   * new clients would wait in the backlog until an idle timeout). */
  s->d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, on_request, s, MHD_OPTION_LISTEN_SOCKET,
                          (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT, 2 * s->max_conns + 1,
                          MHD_OPTION_CONNECTION_TIMEOUT, idle_s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                          MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
  if (!s->d) {
    close(fd);
    if (s->addr.is_unix)
      listen_unix_remove(s->addr.path);
    free(s);
    return cuzk_err_set(err, CUZK_INTERNAL, "status_listen %s: libmicrohttpd could not start", listen);
  }
  *out = s;
  return CUZK_OK;
}

bool http_server_supported(void) { return true; }

int http_server_port(const http_server *s) { return s ? s->port : 0; }

void http_server_stop(http_server *s) {
  if (!s)
    return;
  MHD_stop_daemon(s->d); /* closes the listening socket too */
  if (s->addr.is_unix)
    listen_unix_remove(s->addr.path);
  free(s);
}

#else /* built without libmicrohttpd */

cuzk_status http_server_start_ex(http_server **out, engine *e, const char *listen, const http_limits *lim,
                                 char *(*metrics)(void *ctx), void *ctx, cuzk_err *err) {
  *out = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED,
                      "status_listen = \"%s\" needs the HTTP endpoint, and this cuzk-daemon was built without "
                      "libmicrohttpd (make MHD=0): install libmicrohttpd-dev and rebuild, or set status_listen = \"\"",
                      listen);
}

bool http_server_supported(void) { return false; }

int http_server_port(const http_server *s) { return 0; }

void http_server_stop(http_server *s) {}

#endif

cuzk_status http_server_start(http_server **out, engine *e, const char *listen, cuzk_err *err) {
  return http_server_start_ex(out, e, listen, NULL, NULL, NULL, err);
}
