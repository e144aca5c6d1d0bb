#include "server/rpc_wire.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>

/* [RPC_X] = {"Name", "/cuzk.v1.ProvingEngine/Name", request, response} */
#define RPC_METHOD(e, name, req, resp)                                                    \
  [e] = {name, "/cuzk.v1.ProvingEngine/" name, &cuzk__v1__##req##__descriptor,            \
         &cuzk__v1__##resp##__descriptor}

const rpc_method_info rpc_methods[RPC_NMETHODS] = {
    RPC_METHOD(RPC_SUBMIT, "SubmitProof", submit_proof_request, submit_proof_response),
    RPC_METHOD(RPC_AWAIT, "AwaitProof", await_proof_request, await_proof_response),
    RPC_METHOD(RPC_PROVE, "Prove", prove_request, prove_response),
    RPC_METHOD(RPC_CANCEL, "CancelProof", cancel_proof_request, cancel_proof_response),
    RPC_METHOD(RPC_STATUS, "GetStatus", get_status_request, get_status_response),
    RPC_METHOD(RPC_METRICS, "GetMetrics", get_metrics_request, get_metrics_response),
    RPC_METHOD(RPC_PRELOAD, "PreloadSRS", preload_srs_request, preload_srs_response),
    RPC_METHOD(RPC_EVICT, "EvictSRS", evict_srs_request, evict_srs_response),
};

void rpc_wire_size_args(grpc_arg args[2], size_t max_bytes) {
  if (!max_bytes)
    max_bytes = RPC_DEFAULT_MAX_MESSAGE;
  int n = max_bytes > INT_MAX ? INT_MAX : (int)max_bytes;
  memset(args, 0, 2 * sizeof *args);
  args[0].type = args[1].type = GRPC_ARG_INTEGER;
  args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
  args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
  args[0].value.integer = args[1].value.integer = n;
}

grpc_byte_buffer *rpc_wire_pack(const ProtobufCMessage *msg) {
  size_t n = protobuf_c_message_get_packed_size(msg);
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf)
    return NULL;
  protobuf_c_message_pack(msg, buf);
  grpc_slice sl = grpc_slice_new(buf, n, free); /* the slice frees buf */
  grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
  grpc_slice_unref(sl);
  return bb;
}

ProtobufCMessage *rpc_wire_unpack(const ProtobufCMessageDescriptor *desc, grpc_byte_buffer *bb,
                                  ProtobufCAllocator *alloc) {
  grpc_byte_buffer_reader rd;
  if (!bb || !grpc_byte_buffer_reader_init(&rd, bb))
    return NULL;
  grpc_slice all = grpc_byte_buffer_reader_readall(&rd); /* one contiguous slice */
  grpc_byte_buffer_reader_destroy(&rd);
  ProtobufCMessage *m =
      protobuf_c_message_unpack(desc, alloc, GRPC_SLICE_LENGTH(all), GRPC_SLICE_START_PTR(all));
  grpc_slice_unref(all);
  return m;
}
