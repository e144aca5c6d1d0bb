/* The gRPC service cuzk.v1.ProvingEngine on gRPC's C core, in front of the
 * engine.
 *
 * DESIGN
 *   Threads.  RPC_POLLERS poller threads drain one completion queue.  Every
 *   event the queue delivers (a new call, a finished batch, the server's
 *   shutdown notice) carries a tag whose first member is the function that
 *   handles it.  The eight methods are registered with their request read
 *   up front (GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER), so a unary call is
 *   accept -> handle -> one send batch (initial metadata, message, status).
 *   Calls of any other method are requested too (grpc_server_request_call)
 *   and answered UNIMPLEMENTED on the poller, unread: gRPC would otherwise
 *   hold each one, unanswered, until its client gave up.
 *   GetStatus, GetMetrics and CancelProof take the engine's lock only
 *   briefly and are handled on the poller.  The others may block (SubmitProof
 *   copies and checks witnesses; AwaitProof and Prove wait for a proof;
 *   PreloadSRS and EvictSRS load and drop keys) and each runs on a thread of
 *   its own, so that no call waits behind another.  At most RPC_MAX_WORKERS
 *   such threads run (past that a call is answered RESOURCE_EXHAUSTED); a
 *   finished one is joined when the next one starts, and all at shutdown.
 *
 *   Cancellation.  Every call has a RECV_CLOSE_ON_SERVER op from its start.
 *   It completes early when the client cancels, disconnects or passes its
 *   deadline, and then marks the call gone.  Waiting threads await the
 *   engine in slices of RPC_WAIT_SLICE_MS and stop at the next slice when
 *   the call is gone or the server is stopping.  The job itself keeps
 *   running: Curio's client retries a timed-out Prove with the same
 *   request_id, which attaches to the job already known.  CancelProof is
 *   what stops a job.
 *
 *   Lifetime.  A call holds two references: one for its close op and one
 *   for its reply (dropped when the send batch completes).  The last one
 *   releases the grpc_call.  s->live counts calls not yet freed; the server's
 *   shutdown notice comes only after gRPC has seen every call released, and
 *   the completion queue is shut down only after that notice and live == 0,
 *   so no batch is ever started on a queue that is shut down.
 *
 *   Shutdown.  Stop accepting; join the workers (each answers: its result
 *   if it has one, else UNAVAILABLE within a slice); give the replies up to
 *   RPC_DRAIN_MS to go out; cancel what is left; wait for every call and
 *   the notice; shut the queue down and join the pollers.  A reply made
 *   before the cancel is not lost to it.
 *
 *   Memory.  Everything a call makes is charged to the engine's queue
 *   budget (engine_charge) before it is made, and given back when it goes:
 *   the call itself (RPC_CALL_BYTES, at accept: past the budget the call
 *   is refused RESOURCE_EXHAUSTED at once), its request's contiguous copy
 *   and every allocation of its unpacking (a request that unpacks to more
 *   than the room left is refused RESOURCE_EXHAUSTED), and its packed
 *   reply (until the call is freed).  gRPC's own buffers (the transports',
 *   the received messages it holds) are capped by a resource quota of
 *   max_message_bytes + RPC_SERVER_TRANSPORT_BYTES, which the queue budget
 *   pays for while the server lives; past the quota gRPC turns connections
 *   away (GOAWAY: the client sees UNAVAILABLE, its call not processed).
 *   Compressed requests are refused (identity encoding only), since gRPC
 *   checks the receive limit on the compressed bytes.  The control calls
 *   (GetStatus, GetMetrics, CancelProof) may go RPC_CONTROL_SLACK past the
 *   budget, so that a queue full of witnesses can still be watched and
 *   cancelled.
 *
 *   Errors.  A refused request is answered with the gRPC code of its cuzk
 *   status (rpc_status.h) and the message "<status name>: <text>".  A
 *   malformed request is INVALID_ARGUMENT; an oversized one is refused by
 *   gRPC itself (RESOURCE_EXHAUSTED), a compressed one too (UNIMPLEMENTED).
 *   No error stops the server.
 *
 *   Lock order: s->mu only; it is never held across an engine or gRPC call
 *   (pthread_join of a worker that has finished excepted). */
#include "server/rpc_server.h"

#include <stdlib.h>
#include <string.h>

#if CUZK_GRPC

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include "base/clock.h"
#include "server/listen.h"
#include "server/rpc_engine.h"
#include "server/rpc_status.h"
#include "server/rpc_wire.h"

#define RPC_POLLERS 4
#define RPC_ACCEPTS_PER_METHOD 8 /* standing requests per method */
#define RPC_MAX_WORKERS 4096
#define RPC_WORKER_STACK ((size_t)1 << 20)
/* How often a waiting call looks whether its client or the server went
 * away: short enough for a prompt shutdown, long enough to cost nothing. */
#define RPC_WAIT_SLICE_MS 200
/* How long shutdown lets the replies in hand go out before it cancels
 * what is left. */
#define RPC_DRAIN_MS 2000
/* What one call costs beside its messages, charged to the queue budget
 * from its accept to its release: its rpc_call, gRPC's call and arena,
 * and the thread that handles it (the stack it touches, its malloc
 * arena's share).  Measured as in docs/daemon.md ("Memory"), with room. */
#define RPC_CALL_BYTES ((uint64_t)64 << 10)
/* How far the control calls (GetStatus, GetMetrics, CancelProof) may go
 * past the queue budget, so that a queue full of witnesses can still be
 * watched and cancelled: part of the fixed overhead. */
#define RPC_CONTROL_SLACK ((uint64_t)64 * RPC_CALL_BYTES)
/* An unpacked request is charged in steps of at least this. */
#define RPC_UNPACK_STEP ((uint64_t)64 << 10)

typedef struct rpc_tag rpc_tag;
struct rpc_tag {
  void (*fn)(rpc_server *s, rpc_tag *t, int ok);
};

/* A standing request for the next call of a method the server does not
 * register (another service's, a misspelt one): answered UNIMPLEMENTED at
 * once, so that it is freed (gRPC holds an unrequested call for ever). */
typedef struct {
  rpc_tag tag, done_tag;
  grpc_call *call;
  grpc_call_details cd;
  grpc_metadata_array md;
  int cancelled;
  grpc_slice details;
} rpc_unknown;

/* A standing request for the next call of one method. */
typedef struct {
  rpc_tag tag;
  rpc_method m;
  grpc_call *call;
  gpr_timespec deadline;
  grpc_metadata_array md;
  grpc_byte_buffer *payload;
} rpc_accept;

typedef struct {
  rpc_tag close_tag, send_tag;
  rpc_server *s;
  rpc_method m;
  grpc_call *call;
  grpc_byte_buffer *request;
  int close_cancelled; /* set by gRPC when the close op completes */
  atomic_int gone;
  atomic_int refs;
  grpc_byte_buffer *reply;
  grpc_slice details;
  uint64_t charged;          /* RPC_CALL_BYTES and the reply: given back when freed */
} rpc_call;

typedef struct rpc_worker {
  pthread_t th;
  atomic_int done;
  rpc_call *c;
  struct rpc_worker *next;
} rpc_worker;

struct rpc_server {
  engine *e;
  grpc_resource_quota *quota; /* gRPC's memory, transport_bytes of it */
  uint64_t transport_bytes;   /* charged to the queue budget while the server lives */
  grpc_server *srv;
  grpc_completion_queue *cq;
  void *reg[RPC_NMETHODS];
  pthread_t pollers[RPC_POLLERS];
  unsigned npollers;
  rpc_tag shutdown_tag;
  int port;

  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int stopping;
  int shutdown_done;   /* the server's shutdown notice arrived */
  unsigned live;       /* calls not yet freed */
  unsigned nworkers;   /* worker threads not yet joined */
  rpc_worker *workers;

  /* calls answered, by method and gRPC code (GetMetrics); unknown: calls
   * of a method not registered (all UNIMPLEMENTED) */
  atomic_ullong answered[RPC_NMETHODS][17];
  atomic_ullong unknown;
};

/* ---- calls ---------------------------------------------------------------- */

/* s->live += d; a drop wakes wait_calls. */
static void live_add(rpc_server *s, int d) {
  pthread_mutex_lock(&s->mu);
  s->live += (unsigned)d;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Control calls are small and answered on the poller; they may use
 * RPC_CONTROL_SLACK past the queue budget. */
static int control_method(rpc_method m) { return m == RPC_STATUS || m == RPC_METRICS || m == RPC_CANCEL; }

static uint64_t call_slack(rpc_method m) { return control_method(m) ? RPC_CONTROL_SLACK : 0; }

static void call_unref(rpc_call *c) {
  if (atomic_fetch_sub(&c->refs, 1) != 1)
    return;
  rpc_server *s = c->s;
  grpc_call_unref(c->call);
  if (c->request)
    grpc_byte_buffer_destroy(c->request);
  if (c->reply)
    grpc_byte_buffer_destroy(c->reply);
  grpc_slice_unref(c->details);
  engine_uncharge(s->e, c->charged);
  free(c);
  live_add(s, -1);
}

static void on_close(rpc_server *s, rpc_tag *t, int ok) {
  rpc_call *c = (rpc_call *)((char *)t - offsetof(rpc_call, close_tag));
  if (c->close_cancelled || !ok)
    atomic_store(&c->gone, 1);
  call_unref(c);
}

static void on_sent(rpc_server *s, rpc_tag *t, int ok) {
  call_unref((rpc_call *)((char *)t - offsetof(rpc_call, send_tag)));
}

/* Answers the call: msg with OK, or (msg NULL) code and details. */
static void reply(rpc_call *c, grpc_status_code code, const char *details, const ProtobufCMessage *msg) {
  grpc_op ops[3];
  memset(ops, 0, sizeof ops);
  size_t n = 0;
  ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
  if (msg) {
    /* the packed reply, charged before it is made, until the call is freed */
    uint64_t size = protobuf_c_message_get_packed_size(msg);
    if (engine_charge(c->s->e, size, call_slack(c->m), NULL) != CUZK_OK) {
      code = GRPC_STATUS_RESOURCE_EXHAUSTED;
      details = "exhausted: no room in the queue budget for the reply; retry later";
    } else if (c->charged += size, (c->reply = rpc_wire_pack(msg)) != NULL) {
      ops[n].op = GRPC_OP_SEND_MESSAGE;
      ops[n++].data.send_message.send_message = c->reply;
    } else {
      code = GRPC_STATUS_RESOURCE_EXHAUSTED;
      details = "no_memory: cannot encode the reply";
    }
  }
  c->details = grpc_slice_from_copied_string(details ? details : "");
  ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[n].data.send_status_from_server.status = code;
  ops[n++].data.send_status_from_server.status_details = &c->details;
  if ((unsigned)code < 17)
    atomic_fetch_add(&c->s->answered[c->m][code], 1);
  if (grpc_call_start_batch(c->call, ops, n, &c->send_tag, NULL) != GRPC_CALL_OK)
    call_unref(c);
}

static void reply_ok(rpc_call *c, const ProtobufCMessage *msg) { reply(c, GRPC_STATUS_OK, NULL, msg); }

/* Answers with st's gRPC code and "<name>: <message>". */
static void reply_status(rpc_call *c, cuzk_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void reply_status(rpc_call *c, cuzk_status st, const char *fmt, ...) {
  char text[CUZK_ERR_MSG_MAX], details[CUZK_ERR_MSG_MAX + 32];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  snprintf(details, sizeof details, "%s: %s", cuzk_status_name(st), text);
  reply(c, (grpc_status_code)rpc_status_code(st), details, NULL);
}

static void reply_err(rpc_call *c, const cuzk_err *err) { reply_status(c, err->status, "%s", err->msg); }

/* ---- handlers --------------------------------------------------------------- */

/* Waits for job id up to timeout_ms (0: no limit) in slices, while the call
 * is live and the server runs.  The engine's status (r filled, with TIMEOUT
 * too); CUZK_CANCELLED when the caller went away; CUZK_UNAVAILABLE when the
 * server is stopping. */
static cuzk_status await_job(rpc_call *c, const char *id, uint64_t timeout_ms, engine_result *r,
                             cuzk_err *err) {
  rpc_server *s = c->s;
  double t0 = cuzk_now_s();
  for (;;) {
    uint64_t slice = RPC_WAIT_SLICE_MS;
    int last = 0;
    if (timeout_ms) {
      uint64_t el = (uint64_t)((cuzk_now_s() - t0) * 1e3);
      uint64_t left = el >= timeout_ms ? 1 : timeout_ms - el;
      if (left <= slice) {
        slice = left;
        last = 1;
      }
    }
    memset(r, 0, sizeof *r);
    cuzk_status st = engine_await(s->e, id, slice, r, err);
    if (st != CUZK_TIMEOUT || last)
      return st;
    engine_result_free(r);
    if (atomic_load(&c->gone))
      return cuzk_err_set(err, CUZK_CANCELLED, "the caller went away");
    if (atomic_load(&s->stopping))
      return cuzk_err_set(err, CUZK_UNAVAILABLE, "the server is shutting down");
  }
}

/* r (from await_job with status st: OK or TIMEOUT) as a response; points
 * into r, which must outlive out. */
/* Sends the result of await_job. */
static void reply_result(rpc_call *c, cuzk_status st, engine_result *r, const cuzk_err *err, int prove) {
  if (st != CUZK_OK && st != CUZK_TIMEOUT) {
    reply_err(c, err);
    return;
  }
  Cuzk__V1__AwaitProofResponse res;
  rpc_result_msg(&res, r, st);
  if (prove) {
    Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
    pr.result = &res;
    reply_ok(c, &pr.base);
  } else {
    reply_ok(c, &res.base);
  }
  engine_result_free(r);
}

static void h_submit(rpc_call *c, ProtobufCMessage *m) {
  engine_ticket t;
  cuzk_err err = {0};
  if (rpc_submit(c->s->e, (Cuzk__V1__SubmitProofRequest *)m, &t, &err) != CUZK_OK) {
    reply_err(c, &err);
    return;
  }
  Cuzk__V1__SubmitProofResponse res = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
  res.job_id = t.job_id;
  res.queue_position = t.queue_position;
  res.attached = t.attached;
  reply_ok(c, &res.base);
}

static void h_await(rpc_call *c, ProtobufCMessage *m) {
  Cuzk__V1__AwaitProofRequest *rq = (Cuzk__V1__AwaitProofRequest *)m;
  if (!*rq->job_id) {
    reply_status(c, CUZK_INVALID_ARGUMENT, "job_id is empty");
    return;
  }
  engine_result r;
  cuzk_err err = {0};
  cuzk_status st = await_job(c, rq->job_id, rq->timeout_ms, &r, &err);
  reply_result(c, st, &r, &err, 0);
}

static void h_prove(rpc_call *c, ProtobufCMessage *m) {
  Cuzk__V1__ProveRequest *rq = (Cuzk__V1__ProveRequest *)m;
  engine_ticket t;
  cuzk_err err = {0};
  if (rpc_submit(c->s->e, rq->submit, &t, &err) != CUZK_OK) {
    reply_err(c, &err);
    return;
  }
  engine_result r;
  cuzk_status st = await_job(c, t.job_id, 0, &r, &err);
  reply_result(c, st, &r, &err, 1);
}

static void h_cancel(rpc_call *c, ProtobufCMessage *m) {
  Cuzk__V1__CancelProofRequest *rq = (Cuzk__V1__CancelProofRequest *)m;
  bool was_running = false;
  cuzk_err err = {0};
  if (!*rq->job_id) {
    reply_status(c, CUZK_INVALID_ARGUMENT, "job_id is empty");
    return;
  }
  if (engine_cancel(c->s->e, rq->job_id, &was_running, &err) != CUZK_OK) {
    reply_err(c, &err);
    return;
  }
  Cuzk__V1__CancelProofResponse res = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
  res.was_running = was_running;
  reply_ok(c, &res.base);
}

static Cuzk__V1__SRSStatus__Tier curio_tier(engine_tier t) {
  switch (t) {
  case ENGINE_TIER_DEVICE:
  case ENGINE_TIER_PINNED: return CUZK__V1__SRSSTATUS__TIER__HOT;
  case ENGINE_TIER_MAPPED: return CUZK__V1__SRSSTATUS__TIER__WARM;
  default: return CUZK__V1__SRSSTATUS__TIER__COLD;
  }
}

static void h_status(rpc_call *c, ProtobufCMessage *m) {
  engine_status es;
  cuzk_err err = {0};
  if (engine_status_get(c->s->e, &es, &err) != CUZK_OK) {
    reply_err(c, &err);
    return;
  }
  Cuzk__V1__GetStatusResponse res = CUZK__V1__GET_STATUS_RESPONSE__INIT;
  Cuzk__V1__GPUStatus *g = calloc(es.ngpus + 1, sizeof *g);
  Cuzk__V1__GPUStatus **gp = calloc(es.ngpus + 1, sizeof *gp);
  Cuzk__V1__SRSStatus *k = calloc(es.nkeys + 1, sizeof *k);
  Cuzk__V1__SRSStatus **kp = calloc(es.nkeys + 1, sizeof *kp);
  Cuzk__V1__QueueStatus *q = calloc(es.nqueues + 1, sizeof *q);
  Cuzk__V1__QueueStatus **qp = calloc(es.nqueues + 1, sizeof *qp);
  if (!g || !gp || !k || !kp || !q || !qp) {
    reply_status(c, CUZK_NO_MEMORY, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < es.ngpus; i++) {
    const engine_gpu_status *x = &es.gpus[i];
    cuzk__v1__gpustatus__init(&g[i]);
    g[i].ordinal = (uint32_t)x->ordinal;
    g[i].name = (char *)x->name;
    g[i].vram_total_bytes = x->vram_total;
    g[i].vram_free_bytes = x->vram_free;
    g[i].current_job_id = (char *)x->current_job;
    g[i].slots = x->slots;
    g[i].busy_slots = x->busy_slots;
    g[i].budget_bytes = x->budget;
    g[i].used_bytes = x->used;
    g[i].resident_bytes = x->resident;
    g[i].state = (char *)engine_gpu_state_name(x->state);
    g[i].state_reason = (char *)x->reason;
    g[i].note = (char *)x->note;
    g[i].express = x->express;
    gp[i] = &g[i];
  }
  uint64_t pinned = 0;
  for (size_t i = 0; i < es.nkeys; i++) {
    const engine_key_status *x = &es.keys[i];
    cuzk__v1__srsstatus__init(&k[i]);
    k[i].circuit_id = (char *)x->id;
    k[i].tier = curio_tier(x->tier);
    k[i].size_bytes = x->size_bytes;
    k[i].ref_count = x->refcount;
    k[i].cuzk_tier = (char *)engine_tier_name(x->tier);
    k[i].idle_ms = x->idle_ms;
    if (x->tier == ENGINE_TIER_PINNED)
      pinned += x->size_bytes;
    kp[i] = &k[i];
  }
  for (size_t i = 0; i < es.nqueues; i++) {
    const engine_queue_status *x = &es.queues[i];
    cuzk__v1__queue_status__init(&q[i]);
    q[i].proof_kind = (char *)x->circuit_id;
    q[i].pending = x->queued;
    q[i].in_progress = x->preparing + x->proving + x->finalizing;
    q[i].preparing = x->preparing;
    q[i].proving = x->proving;
    q[i].finalizing = x->finalizing;
    qp[i] = &q[i];
  }
  res.n_gpus = es.ngpus;
  res.gpus = gp;
  res.n_loaded_srs = es.nkeys;
  res.loaded_srs = kp;
  res.n_queues = es.nqueues;
  res.queues = qp;
  res.total_proofs_completed = es.completed;
  res.total_proofs_failed = es.failed;
  res.total_proofs_cancelled = es.cancelled;
  res.uptime_seconds = es.uptime_s;
  res.pinned_memory_bytes = pinned;
  res.pinned_memory_limit_bytes = es.host_budget;
  res.host_budget_bytes = es.host_budget;
  res.host_used_bytes = es.host_used;
  res.queue_budget_bytes = es.queue_budget;
  res.queue_used_bytes = es.queue_used;
  res.cpu_workers = es.cpu_workers;
  res.busy_workers = es.busy_workers;
  res.witness_dir = (char *)(es.witness_dir ? es.witness_dir : "");
  reply_ok(c, &res.base);
done:
  free(g);
  free(gp);
  free(k);
  free(kp);
  free(q);
  free(qp);
  engine_status_free(&es);
}

static void h_metrics(rpc_call *c, ProtobufCMessage *m) {
  char *text = rpc_server_metrics_text(c->s);
  if (!text) {
    reply_status(c, CUZK_NO_MEMORY, "out of memory");
    return;
  }
  Cuzk__V1__GetMetricsResponse res = CUZK__V1__GET_METRICS_RESPONSE__INIT;
  res.prometheus_text = text;
  reply_ok(c, &res.base);
  free(text);
}

/* PreloadSRS and EvictSRS: a circuit id in, a flag and a number out. */
static void h_key(rpc_call *c, ProtobufCMessage *m) {
  int preload = c->m == RPC_PRELOAD;
  const char *id = preload ? ((Cuzk__V1__PreloadSrsRequest *)m)->circuit_id
                           : ((Cuzk__V1__EvictSrsRequest *)m)->circuit_id;
  bool flag = false;
  uint64_t n = 0;
  cuzk_err err = {0};
  if (!*id) {
    reply_status(c, CUZK_INVALID_ARGUMENT, "circuit_id is empty");
    return;
  }
  cuzk_status st = preload ? engine_preload(c->s->e, id, &flag, &n, &err)
                           : engine_evict(c->s->e, id, &flag, &n, &err);
  if (st != CUZK_OK) {
    reply_err(c, &err);
    return;
  }
  if (preload) {
    Cuzk__V1__PreloadSrsResponse res = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    res.already_loaded = flag;
    res.load_time_ms = n;
    reply_ok(c, &res.base);
  } else {
    Cuzk__V1__EvictSrsResponse res = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    res.was_loaded = flag;
    res.freed_bytes = n;
    reply_ok(c, &res.base);
  }
}

static void (*const handlers[RPC_NMETHODS])(rpc_call *, ProtobufCMessage *) = {
    [RPC_SUBMIT] = h_submit,   [RPC_AWAIT] = h_await,     [RPC_PROVE] = h_prove,
    [RPC_CANCEL] = h_cancel,   [RPC_STATUS] = h_status,   [RPC_METRICS] = h_metrics,
    [RPC_PRELOAD] = h_key,     [RPC_EVICT] = h_key,
};

/* A header before each of protobuf-c's allocations: its size. */
typedef union {
  size_t n;
  max_align_t align;
} rpc_alloc_hdr;

/* One request's unpacking: protobuf-c's allocations, each charged to the
 * queue budget before it is made (in steps of RPC_UNPACK_STEP), so that a
 * request that would unpack to more than there is room for fails to
 * unpack, whatever its size on the wire (a repeated field of empty
 * elements unpacks to several times its wire bytes).  It lives on
 * handle's stack, not in the rpc_call, which the reply's completion may
 * free before the handler returns. */
typedef struct {
  engine *e;
  uint64_t slack;
  uint64_t used, charged; /* bytes the allocations hold; bytes charged for them */
  int refused;            /* an allocation found no room */
} rpc_unpack;

static void *unpack_alloc(void *data, size_t n) {
  rpc_unpack *u = data;
  if (n > SIZE_MAX / 2)
    return NULL;
  uint64_t need = u->used + sizeof(rpc_alloc_hdr) + n;
  if (need > u->charged) {
    uint64_t more = need - u->charged;
    if (more < RPC_UNPACK_STEP)
      more = RPC_UNPACK_STEP;
    if (engine_charge(u->e, more, u->slack, NULL) != CUZK_OK) {
      u->refused = 1;
      return NULL;
    }
    u->charged += more;
  }
  rpc_alloc_hdr *h = malloc(sizeof *h + n);
  if (!h)
    return NULL;
  h->n = n;
  u->used += sizeof *h + n;
  return h + 1;
}

static void unpack_free(void *data, void *p) {
  if (!p)
    return;
  rpc_unpack *u = data;
  rpc_alloc_hdr *h = (rpc_alloc_hdr *)p - 1;
  u->used -= sizeof *h + h->n;
  free(h);
}

/* Decodes the request and runs its handler, which replies.  The request's
 * contiguous copy (rpc_wire_unpack) and its unpacked form are charged to
 * the queue budget before they are made, and given back when the handler
 * is done: RESOURCE_EXHAUSTED when they do not fit.  c may be freed once
 * the handler has replied: nothing here touches it after that. */
static void handle(rpc_call *c) {
  const rpc_method_info *mi = &rpc_methods[c->m];
  if (!c->request) {
    reply_status(c, CUZK_INVALID_ARGUMENT, "%s: the call carried no request message", mi->name);
    return;
  }
  engine *e = c->s->e;
  uint64_t wire = grpc_byte_buffer_length(c->request);
  cuzk_err err = {0};
  if (engine_charge(e, wire, call_slack(c->m), &err) != CUZK_OK) {
    reply_status(c, CUZK_EXHAUSTED, "%s: a request of %llu bytes: %s", mi->name, (unsigned long long)wire,
                 err.msg);
    return;
  }
  rpc_unpack u = {.e = e, .slack = call_slack(c->m)};
  ProtobufCAllocator alloc = {.alloc = unpack_alloc, .free = unpack_free, .allocator_data = &u};
  ProtobufCMessage *m = rpc_wire_unpack(mi->request, c->request, &alloc);
  grpc_byte_buffer_destroy(c->request); /* the message holds its own copy */
  c->request = NULL;
  engine_uncharge(e, wire);
  if (!m) {
    engine_uncharge(e, u.charged);
    if (u.refused)
      reply_status(c, CUZK_EXHAUSTED,
                   "%s: the request (%llu bytes) unpacks to more than the queue budget has room "
                   "for; retry later",
                   mi->name, (unsigned long long)wire);
    else
      reply_status(c, CUZK_INVALID_ARGUMENT, "%s: the request is not a valid %s message", mi->name,
                   mi->request->name);
    return;
  }
  handlers[c->m](c, m);
  protobuf_c_message_free_unpacked(m, &alloc);
  engine_uncharge(e, u.charged);
}

/* ---- threads -------------------------------------------------------------- */

static void *worker_main(void *arg) {
  rpc_worker *w = arg;
  handle(w->c);
  atomic_store(&w->done, 1);
  return NULL;
}

/* Joins the workers that have finished; s->mu held. */
static void reap_workers(rpc_server *s) {
  for (rpc_worker **p = &s->workers; *p;) {
    rpc_worker *w = *p;
    if (atomic_load(&w->done)) {
      pthread_join(w->th, NULL);
      *p = w->next;
      free(w);
      s->nworkers--;
    } else {
      p = &w->next;
    }
  }
}

/* Runs c on a thread of its own; on failure answers it here. */
static void spawn_worker(rpc_server *s, rpc_call *c) {
  pthread_mutex_lock(&s->mu);
  reap_workers(s);
  cuzk_status st = CUZK_OK;
  if (atomic_load(&s->stopping)) {
    st = CUZK_UNAVAILABLE;
  } else if (s->nworkers >= RPC_MAX_WORKERS) {
    st = CUZK_EXHAUSTED;
  } else {
    rpc_worker *w = calloc(1, sizeof *w);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, RPC_WORKER_STACK);
    if (w) {
      w->c = c;
      atomic_init(&w->done, 0);
    }
    if (w && pthread_create(&w->th, &at, worker_main, w) == 0) {
      w->next = s->workers;
      s->workers = w;
      s->nworkers++;
    } else {
      free(w);
      st = CUZK_NO_MEMORY;
    }
    pthread_attr_destroy(&at);
  }
  pthread_mutex_unlock(&s->mu);
  if (st == CUZK_UNAVAILABLE)
    reply_status(c, st, "the server is shutting down");
  else if (st == CUZK_EXHAUSTED)
    reply_status(c, st, "%d calls are already waiting; retry later", RPC_MAX_WORKERS);
  else if (st != CUZK_OK)
    reply_status(c, st, "cannot start a thread for the call");
}

static void request_next(rpc_server *s, rpc_accept *a);

static void on_accept(rpc_server *s, rpc_tag *t, int ok) {
  rpc_accept *a = (rpc_accept *)t;
  if (!ok) { /* the server is shutting down */
    grpc_metadata_array_destroy(&a->md);
    free(a);
    return;
  }
  grpc_call *gc = a->call;
  grpc_byte_buffer *payload = a->payload;
  rpc_method m = a->m;
  grpc_metadata_array_destroy(&a->md);
  request_next(s, a); /* at once: the next call of this method need not wait for this one */
  /* Admission: the call's own cost is charged before its state is made,
   * so concurrent calls are bounded by the queue budget (RPC_MAX_WORKERS
   * bounds the threads besides). */
  cuzk_err err = {0};
  cuzk_status st = engine_charge(s->e, RPC_CALL_BYTES, call_slack(m), &err);
  rpc_call *c = st == CUZK_OK ? calloc(1, sizeof *c) : NULL;
  if (!c) {
    char details[CUZK_ERR_MSG_MAX + 64];
    snprintf(details, sizeof details, "%s: %s", st == CUZK_OK ? "no_memory" : "exhausted",
             st == CUZK_OK ? "out of memory" : err.msg);
    if (st == CUZK_OK)
      engine_uncharge(s->e, RPC_CALL_BYTES);
    atomic_fetch_add(&s->answered[m][GRPC_STATUS_RESOURCE_EXHAUSTED], 1);
    grpc_call_cancel_with_status(gc, GRPC_STATUS_RESOURCE_EXHAUSTED, details, NULL);
    grpc_call_unref(gc);
    if (payload)
      grpc_byte_buffer_destroy(payload);
    return;
  }
  c->charged = RPC_CALL_BYTES;
  c->s = s;
  c->m = m;
  c->call = gc;
  c->request = payload;
  c->details = grpc_empty_slice();
  c->close_tag.fn = on_close;
  c->send_tag.fn = on_sent;
  atomic_init(&c->gone, 0);
  atomic_init(&c->refs, 2);
  live_add(s, 1);

  grpc_op op;
  memset(&op, 0, sizeof op);
  op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
  op.data.recv_close_on_server.cancelled = &c->close_cancelled;
  if (grpc_call_start_batch(gc, &op, 1, &c->close_tag, NULL) != GRPC_CALL_OK) {
    atomic_store(&c->gone, 1);
    call_unref(c);
  }
  if (control_method(m))
    handle(c);
  else
    spawn_worker(s, c);
}

static void request_next(rpc_server *s, rpc_accept *a) {
  a->call = NULL;
  a->payload = NULL;
  grpc_metadata_array_init(&a->md);
  if (grpc_server_request_registered_call(s->srv, s->reg[a->m], &a->call, &a->deadline, &a->md,
                                          &a->payload, s->cq, s->cq, &a->tag) != GRPC_CALL_OK) {
    grpc_metadata_array_destroy(&a->md);
    free(a);
  }
}

/* ---- methods not registered ------------------------------------------------- */

static void request_unknown(rpc_server *s, rpc_unknown *u);

/* The UNIMPLEMENTED batch completed: the call is released. */
static void on_unknown_done(rpc_server *s, rpc_tag *t, int ok) {
  rpc_unknown *u = (rpc_unknown *)((char *)t - offsetof(rpc_unknown, done_tag));
  grpc_call_unref(u->call);
  grpc_slice_unref(u->details);
  free(u);
  live_add(s, -1);
}

/* A call of a method not registered: a fresh standing request takes this
 * one's place, and the call is answered UNIMPLEMENTED (its message, never
 * read, is dropped by gRPC) and counted in s->live until the batch ends. */
static void on_unknown(rpc_server *s, rpc_tag *t, int ok) {
  rpc_unknown *u = (rpc_unknown *)t;
  if (!ok) { /* the server is shutting down */
    grpc_call_details_destroy(&u->cd);
    grpc_metadata_array_destroy(&u->md);
    free(u);
    return;
  }
  /* The method's name in the reply: at most 128 bytes of it, printable
   * ASCII only (it is the caller's text). */
  char name[129];
  size_t n = GRPC_SLICE_LENGTH(u->cd.method);
  const uint8_t *p = GRPC_SLICE_START_PTR(u->cd.method);
  if (n > sizeof name - 1)
    n = sizeof name - 1;
  for (size_t i = 0; i < n; i++)
    name[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
  name[n] = 0;
  char details[256];
  snprintf(details, sizeof details, "unimplemented: no method '%s' (the service is cuzk.v1.ProvingEngine)",
           name);
  grpc_call_details_destroy(&u->cd);
  grpc_metadata_array_destroy(&u->md);

  rpc_unknown *next = calloc(1, sizeof *next);
  if (next) { /* else one standing request fewer; the others still serve */
    next->tag.fn = on_unknown;
    request_unknown(s, next);
  }
  u->done_tag.fn = on_unknown_done;
  u->details = grpc_slice_from_copied_string(details);
  live_add(s, 1);
  atomic_fetch_add(&s->unknown, 1);
  grpc_op ops[3];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  ops[1].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[1].data.send_status_from_server.status = GRPC_STATUS_UNIMPLEMENTED;
  ops[1].data.send_status_from_server.status_details = &u->details;
  ops[2].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
  ops[2].data.recv_close_on_server.cancelled = &u->cancelled;
  if (grpc_call_start_batch(u->call, ops, 3, &u->done_tag, NULL) != GRPC_CALL_OK)
    on_unknown_done(s, &u->done_tag, 0);
}

static void request_unknown(rpc_server *s, rpc_unknown *u) {
  u->call = NULL;
  grpc_call_details_init(&u->cd);
  grpc_metadata_array_init(&u->md);
  if (grpc_server_request_call(s->srv, &u->call, &u->cd, &u->md, s->cq, s->cq, &u->tag) != GRPC_CALL_OK) {
    grpc_call_details_destroy(&u->cd);
    grpc_metadata_array_destroy(&u->md);
    free(u);
  }
}

static void on_shutdown(rpc_server *s, rpc_tag *t, int ok) {
  pthread_mutex_lock(&s->mu);
  s->shutdown_done = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static void *poller_main(void *arg) {
  rpc_server *s = arg;
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN)
      break;
    if (ev.type == GRPC_OP_COMPLETE && ev.tag) {
      rpc_tag *t = ev.tag;
      t->fn(s, t, ev.success);
    }
  }
  return NULL;
}

/* ---- start and stop ----------------------------------------------------------- */

char *rpc_server_metrics_text(rpc_server *s) {
  char *base = engine_metrics_text(s->e);
  if (!base)
    return NULL;
  size_t n = strlen(base), cap = n + 256 + ((size_t)RPC_NMETHODS * 17 + 1) * 96;
  char *out = realloc(base, cap);
  if (!out) {
    free(base);
    return NULL;
  }
  /* cap holds every line (each under 96 bytes); snprintf truncates, never overruns */
  size_t at = n;
  at += (size_t)snprintf(out + at, cap - at,
                         "# HELP cuzk_rpc_calls_total gRPC calls answered, by method and status code.\n"
                         "# TYPE cuzk_rpc_calls_total counter\n");
  for (int m = 0; m < RPC_NMETHODS; m++)
    for (int code = 0; code < 17; code++) {
      unsigned long long v = atomic_load(&s->answered[m][code]);
      if (v && at < cap)
        at += (size_t)snprintf(out + at, cap - at, "cuzk_rpc_calls_total{method=\"%s\",code=\"%s\"} %llu\n",
                               rpc_methods[m].name, rpc_code_name(code), v);
    }
  unsigned long long unknown = atomic_load(&s->unknown);
  if (unknown && at < cap)
    at += (size_t)snprintf(out + at, cap - at,
                           "cuzk_rpc_calls_total{method=\"unknown\",code=\"UNIMPLEMENTED\"} %llu\n", unknown);
  out[cap - 1] = 0;
  return out;
}

/* Whether a process accepts connections on the unix socket at path: gRPC
 * replaces a socket file when it binds, a live daemon's included. */
static int live_socket(const char *path) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return 0;
  int live = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
  close(fd);
  return live;
}

/* gRPC's form of a listen address in *out: "unix://PATH" (PATH absolute,
 * or relative to the working directory as in the daemon's config) becomes
 * "unix:PATH"; "host:port" stays.  For a unix socket, checks that its
 * directory exists (gRPC's own error does not say which part is wrong). */
static cuzk_status grpc_listen_addr(char *out, size_t cap, const char *listen, cuzk_err *err) {
  if (!listen || !*listen)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "empty listen address");
  const char *path = NULL;
  if (!strncmp(listen, "unix://", 7))
    path = listen + 7;
  else if (!strncmp(listen, "unix:", 5))
    path = listen + 5;
  if (snprintf(out, cap, "%s%s", path ? "unix:" : "", path ? path : listen) >= (int)cap)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "listen address too long");
  if (!path) { /* gRPC itself would take port 99999 as 34463 */
    const char *colon = strrchr(listen, ':');
    char *end = NULL;
    unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
    if (!colon || colon == listen || !colon[1] || *end || port > 65535)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "listen address '%s' is neither unix:///path nor host:port (port 0-65535)", listen);
    return CUZK_OK;
  }
  if (!*path)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "listen address '%s' has no path", listen);
  if (strlen(path) >= sizeof ((struct sockaddr_un *)0)->sun_path)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "listen address '%s': a socket path has at most %zu bytes",
                        listen, sizeof ((struct sockaddr_un *)0)->sun_path - 1);
  char dir[4096];
  const char *slash = strrchr(path, '/'); /* none: in the working directory */
  size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
  if (n >= sizeof dir)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "listen path too long");
  memcpy(dir, path, n);
  dir[n] = 0;
  struct stat st;
  if (slash && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
    return cuzk_err_set(err, CUZK_IO, "cannot listen on %s: directory %s does not exist", listen, dir);
  return live_socket(path) ? cuzk_err_set(err, CUZK_UNAVAILABLE,
                                          "cannot listen on %s: another process is listening there", listen)
                           : CUZK_OK;
}

/* The last step of a stop: every event drained, every thread joined. */
static void server_free(rpc_server *s) {
  grpc_server_destroy(s->srv);
  grpc_completion_queue_destroy(s->cq);
  grpc_resource_quota_unref(s->quota);
  engine_uncharge(s->e, s->transport_bytes);
  grpc_shutdown();
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

cuzk_status rpc_server_start(rpc_server **out, engine *e, const char *listen, size_t max_message_bytes,
                             cuzk_err *err) {
  return rpc_server_start_tls(out, e, listen, max_message_bytes, NULL, err);
}

cuzk_status rpc_server_start_tls(rpc_server **out, engine *e, const char *listen, size_t max_message_bytes,
                                 const rpc_tls *tls, cuzk_err *err) {
  *out = NULL;
  char addr[4200];
  CUZK_TRY(grpc_listen_addr(addr, sizeof addr, listen, err));
  rpc_server *s = calloc(1, sizeof *s);
  if (!s)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
  s->e = e;
  pthread_mutex_init(&s->mu, NULL);
  pthread_condattr_t cattr;
  pthread_condattr_init(&cattr);
  pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC); /* wait_calls' deadline */
  pthread_cond_init(&s->cv, &cattr);
  pthread_condattr_destroy(&cattr);
  s->shutdown_tag.fn = on_shutdown;
  /* gRPC's memory: what its transports buffer and the received messages
   * it holds, capped by its resource quota (one largest message and
   * RPC_SERVER_TRANSPORT_BYTES), which the queue budget pays for up front. */
  size_t max_bytes = max_message_bytes ? max_message_bytes : RPC_DEFAULT_MAX_MESSAGE;
  s->transport_bytes = (uint64_t)max_bytes + RPC_SERVER_TRANSPORT_BYTES;
  if (engine_charge(e, s->transport_bytes, 0, NULL) != CUZK_OK) {
    uint64_t q = engine_queue_budget(e);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "the queue budget (%llu bytes) cannot hold gRPC's receive buffers: the "
                        "largest message (%zu bytes) and %llu more; raise queue_budget or lower "
                        "max_message_size",
                        (unsigned long long)q, max_bytes, (unsigned long long)RPC_SERVER_TRANSPORT_BYTES);
  }
  grpc_init();
  s->quota = grpc_resource_quota_create("cuzk");
  grpc_resource_quota_resize(s->quota, s->transport_bytes);

  grpc_arg args[5];
  rpc_wire_size_args(args, max_message_bytes);
  /* A second daemon on the same TCP port must fail, not share the port. */
  args[2].type = GRPC_ARG_INTEGER;
  args[2].key = GRPC_ARG_ALLOW_REUSEPORT;
  args[2].value.integer = 0;
  /* Identity encoding only: gRPC checks the receive limit on the bytes of
   * the wire, so a compressed message would be inflated in full, past the
   * limit and every budget, before any of it is seen here.  With the other
   * algorithms disabled, gRPC refuses a compressed call (UNIMPLEMENTED,
   * naming the algorithm) from its grpc-encoding header, without inflating
   * its message. */
  args[3].type = GRPC_ARG_INTEGER;
  args[3].key = GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET;
  args[3].value.integer = 1 << GRPC_COMPRESS_NONE;
  args[4].type = GRPC_ARG_POINTER;
  args[4].key = GRPC_ARG_RESOURCE_QUOTA;
  args[4].value.pointer.p = s->quota;
  args[4].value.pointer.vtable = grpc_resource_quota_arg_vtable();
  grpc_channel_args ca = {5, args};
  s->srv = grpc_server_create(&ca, NULL);
  s->cq = grpc_completion_queue_create_for_next(NULL);
  grpc_server_register_completion_queue(s->srv, s->cq, NULL);
  for (int m = 0; m < RPC_NMETHODS; m++)
    s->reg[m] = grpc_server_register_method(s->srv, rpc_methods[m].path, NULL,
                                            GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
  bool use_tls = tls && tls->cert_pem && tls->key_pem;
  grpc_ssl_pem_key_cert_pair pair = {use_tls ? tls->key_pem : NULL, use_tls ? tls->cert_pem : NULL};
  grpc_server_credentials *creds =
      !use_tls ? grpc_insecure_server_credentials_create()
               : grpc_ssl_server_credentials_create_ex(
                     tls->client_ca_pem, &pair, 1,
                     tls->client_ca_pem ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                        : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
                     NULL);
  /* gRPC binds a unix socket here: under LISTEN_UNIX_UMASK it is born 0600. */
  mode_t old_umask = umask(LISTEN_UNIX_UMASK);
  int port = creds ? grpc_server_add_http2_port(s->srv, addr, creds) : 0;
  umask(old_umask);
  if (creds)
    grpc_server_credentials_release(creds);
  for (unsigned i = 0; port && i < RPC_POLLERS; i++)
    if (pthread_create(&s->pollers[s->npollers], NULL, poller_main, s) == 0)
      s->npollers++;
  if (port == 0 || s->npollers == 0) {
    /* not started: no call came; the shutdown notice is the one event */
    grpc_server_shutdown_and_notify(s->srv, s->cq, NULL);
    grpc_completion_queue_shutdown(s->cq);
    while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN)
      ;
    server_free(s);
    return port      ? cuzk_err_set(err, CUZK_NO_MEMORY, "cannot start the server's threads")
           : use_tls ? cuzk_err_set(err, CUZK_IO,
                                    "cannot listen on %s with TLS (address in use or not permitted, or gRPC "
                                    "refused the certificate, key or client CA: is tls_key tls_cert's key?)",
                                    listen)
                     : cuzk_err_set(err, CUZK_IO,
                                    "cannot listen on %s (address in use, malformed, or not permitted)", listen);
  }
  s->port = strncmp(addr, "unix:", 5) ? port : 0;
  grpc_server_start(s->srv);
  for (int m = 0; m < RPC_NMETHODS; m++)
    for (int i = 0; i < RPC_ACCEPTS_PER_METHOD; i++) {
      rpc_accept *a = calloc(1, sizeof *a);
      if (!a)
        continue;
      a->tag.fn = on_accept;
      a->m = (rpc_method)m;
      request_next(s, a);
    }
  for (int i = 0; i < RPC_ACCEPTS_PER_METHOD; i++) {
    rpc_unknown *u = calloc(1, sizeof *u);
    if (!u)
      continue;
    u->tag.fn = on_unknown;
    request_unknown(s, u);
  }
  *out = s;
  return CUZK_OK;
}

int rpc_server_port(const rpc_server *s) { return s ? s->port : 0; }

/* Waits until no call is left (and the shutdown notice came, with
 * notice) or, with ms > 0, ms pass; s->mu held. */
static void wait_calls(rpc_server *s, int notice, long ms) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += ms / 1000;
  until.tv_nsec += (ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  while (s->live || (notice && !s->shutdown_done))
    if (ms > 0 ? pthread_cond_timedwait(&s->cv, &s->mu, &until) != 0 : pthread_cond_wait(&s->cv, &s->mu) != 0)
      break;
}

void rpc_server_shutdown(rpc_server *s) {
  if (!s)
    return;
  /* 1. No new calls; a call accepted from here on is answered UNAVAILABLE. */
  pthread_mutex_lock(&s->mu);
  atomic_store(&s->stopping, 1);
  pthread_mutex_unlock(&s->mu);
  grpc_server_shutdown_and_notify(s->srv, s->cq, &s->shutdown_tag);

  /* 2. The calls in hand are answered: a result already there is sent, a
   * call still waiting on the engine gets UNAVAILABLE within
   * RPC_WAIT_SLICE_MS.  (Shut the engine down first to have its jobs
   * finish and their waiters get the results.) */
  pthread_mutex_lock(&s->mu);
  rpc_worker *w = s->workers;
  s->workers = NULL;
  pthread_mutex_unlock(&s->mu);
  while (w) {
    rpc_worker *next = w->next;
    pthread_join(w->th, NULL);
    free(w);
    w = next;
  }

  /* 3. The replies go out; then whatever is left (a client that does not
   * read its reply) is cancelled. */
  pthread_mutex_lock(&s->mu);
  wait_calls(s, 0, RPC_DRAIN_MS);
  pthread_mutex_unlock(&s->mu);
  grpc_server_cancel_all_calls(s->srv);
  pthread_mutex_lock(&s->mu);
  wait_calls(s, 1, 0);
  pthread_mutex_unlock(&s->mu);

  /* 4. Every call is released and gRPC has said so: no batch can start on
   * the queue any more. */
  grpc_completion_queue_shutdown(s->cq);
  for (unsigned i = 0; i < s->npollers; i++)
    pthread_join(s->pollers[i], NULL);
  server_free(s);
}

#else /* built without gRPC */

struct rpc_server {
  int unused;
};

cuzk_status rpc_server_start(rpc_server **out, engine *e, const char *listen, size_t max_message_bytes,
                             cuzk_err *err) {
  return rpc_server_start_tls(out, e, listen, max_message_bytes, NULL, err);
}

cuzk_status rpc_server_start_tls(rpc_server **out, engine *e, const char *listen, size_t max_message_bytes,
                                 const rpc_tls *tls, cuzk_err *err) {
  *out = NULL;
  return cuzk_err_set(err, CUZK_UNSUPPORTED,
                      "cannot serve gRPC on %s: cuzk was built without gRPC (make GRPC=1 with "
                      "libgrpc-dev, libprotobuf-c-dev and protobuf-c-compiler installed)",
                      listen ? listen : "(null)");
}

int rpc_server_port(const rpc_server *s) { return 0; }

void rpc_server_shutdown(rpc_server *s) {}

char *rpc_server_metrics_text(rpc_server *s) { return NULL; }

#endif
