/* DESIGN: one grpc_channel per client (thread-safe, lazily connected);
 * each call gets its own completion queue and one batch holding all six
 * unary ops, so concurrent calls share nothing but the channel. */
#include "server/rpc_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "server/rpc_status.h"

struct rpc_client {
  grpc_channel *ch;
  char addr[512];
};

cuzk_status rpc_client_new(rpc_client **out, const char *addr, size_t max_message_bytes, cuzk_err *err) {
  return rpc_client_new_tls(out, addr, NULL, max_message_bytes, err);
}

cuzk_status rpc_client_new_tls(rpc_client **out, const char *addr, const rpc_client_tls *tls,
                               size_t max_message_bytes, cuzk_err *err) {
  *out = NULL;
  if (!addr || !*addr)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "empty daemon address");
  static const rpc_client_tls system_roots = {0};
  const char *host = addr;
  if (!strncmp(addr, "tls://", 6)) {
    host = addr + 6;
    if (!tls)
      tls = &system_roots;
  }
  if (tls && (host[0] == '/' || !strncmp(host, "unix:", 5)))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "'%s': TLS is for a daemon on TCP (tls://host:port or host:port); a unix socket is "
                        "guarded by its file's mode", addr);
  if (tls && !tls->cert_pem != !tls->key_pem)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "a client certificate needs its key, and a key its certificate");
  char target[520];
  if (snprintf(target, sizeof target, "%s%s", host[0] == '/' ? "unix://" : "", host) >= (int)sizeof target)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "daemon address too long");
  rpc_client *c = calloc(1, sizeof *c);
  if (!c)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
  snprintf(c->addr, sizeof c->addr, "%s", addr);
  grpc_init();
  grpc_arg args[3];
  rpc_wire_size_args(args, max_message_bytes);
  grpc_channel_args ca = {2, args};
  if (tls && tls->server_name) {
    args[2].type = GRPC_ARG_STRING;
    args[2].key = GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
    args[2].value.string = (char *)tls->server_name;
    ca.num_args = 3;
  }
  grpc_ssl_pem_key_cert_pair pair = {tls ? tls->key_pem : NULL, tls ? tls->cert_pem : NULL};
  grpc_channel_credentials *creds = !tls ? grpc_insecure_credentials_create()
                                         : grpc_ssl_credentials_create(tls->ca_pem, pair.private_key ? &pair : NULL,
                                                                       NULL, NULL);
  c->ch = creds ? grpc_channel_create(target, creds, &ca) : NULL;
  if (creds)
    grpc_channel_credentials_release(creds);
  if (!c->ch) {
    grpc_shutdown();
    free(c);
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "bad daemon address '%s'", addr);
  }
  *out = c;
  return CUZK_OK;
}

void rpc_client_free(rpc_client *c) {
  if (!c)
    return;
  grpc_channel_destroy(c->ch);
  grpc_shutdown();
  free(c);
}

const char *rpc_client_addr(const rpc_client *c) { return c->addr; }

cuzk_status rpc_client_call(rpc_client *c, rpc_method m, const ProtobufCMessage *req,
                            ProtobufCMessage **resp, uint64_t timeout_ms, int *code, cuzk_err *err) {
  const rpc_method_info *mi = &rpc_methods[m];
  *resp = NULL;
  if (code)
    *code = RPC_CODE_UNKNOWN;
  grpc_byte_buffer *send = rpc_wire_pack(req);
  if (!send)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
  grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
  gpr_timespec deadline =
      timeout_ms ? gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis((int64_t)timeout_ms, GPR_TIMESPAN))
                 : gpr_inf_future(GPR_CLOCK_MONOTONIC);
  grpc_slice method = grpc_slice_from_static_string(mi->path);
  grpc_call *call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, method, NULL, deadline, NULL);

  grpc_metadata_array initial, trailing;
  grpc_metadata_array_init(&initial);
  grpc_metadata_array_init(&trailing);
  grpc_byte_buffer *recv = NULL;
  grpc_status_code status = GRPC_STATUS_UNKNOWN;
  grpc_slice details = grpc_empty_slice();
  const char *error_string = NULL;
  grpc_op ops[6];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  ops[1].op = GRPC_OP_SEND_MESSAGE;
  ops[1].data.send_message.send_message = send;
  ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
  ops[4].op = GRPC_OP_RECV_MESSAGE;
  ops[4].data.recv_message.recv_message = &recv;
  ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  ops[5].data.recv_status_on_client.trailing_metadata = &trailing;
  ops[5].data.recv_status_on_client.status = &status;
  ops[5].data.recv_status_on_client.status_details = &details;
  ops[5].data.recv_status_on_client.error_string = &error_string;
  cuzk_status st = CUZK_OK;
  int tag;
  if (!call || grpc_call_start_batch(call, ops, 6, &tag, NULL) != GRPC_CALL_OK) {
    st = cuzk_err_set(err, CUZK_INTERNAL, "%s: cannot start the call", mi->name);
  } else {
    grpc_event ev;
    do
      ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    while (ev.type != GRPC_OP_COMPLETE);
    if (code)
      *code = (int)status;
    char *msg = grpc_slice_to_c_string(details);
    if (status != GRPC_STATUS_OK) {
      const char *text;
      cuzk_status cs = rpc_status_from_reply((int)status, msg, &text);
      if (status == GRPC_STATUS_UNAVAILABLE && text == msg) /* not our server's reply */
        st = cuzk_err_set(err, CUZK_UNAVAILABLE, "cannot reach the cuzk daemon at %s: %s", c->addr,
                          msg && *msg ? msg : "unavailable");
      else if (status == GRPC_STATUS_DEADLINE_EXCEEDED && text == msg)
        st = cuzk_err_set(err, CUZK_TIMEOUT, "%s at %s: no answer within %llu ms", mi->name, c->addr,
                          (unsigned long long)timeout_ms);
      else
        st = cuzk_err_set(err, cs, "%s: %s (gRPC %s)", mi->name, text, rpc_code_name((int)status));
    } else if (!(*resp = rpc_wire_unpack(mi->response, recv, NULL))) {
      st = cuzk_err_set(err, CUZK_FORMAT, "%s: the reply from %s is not a valid %s", mi->name, c->addr,
                        mi->response->name);
    }
    gpr_free(msg);
  }
  if (error_string)
    gpr_free((void *)error_string);
  if (recv)
    grpc_byte_buffer_destroy(recv);
  grpc_byte_buffer_destroy(send);
  grpc_slice_unref(details);
  grpc_metadata_array_destroy(&initial);
  grpc_metadata_array_destroy(&trailing);
  if (call)
    grpc_call_unref(call);
  grpc_completion_queue_shutdown(cq);
  while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN)
    ;
  grpc_completion_queue_destroy(cq);
  return st;
}
