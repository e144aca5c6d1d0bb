/* cuzk statuses as gRPC status codes and process exit statuses: the table
 * that include/cuzk/status.h's comment promises, one row per status there.
 *
 * DESIGN: the gRPC codes are the canonical ones of the gRPC protocol
 * (grpc/status.h gives the same numbers), repeated here as RPC_CODE_* so
 * that this table, and the CLI that reads it, build without gRPC.  Replies
 * carry the stable status name first ("not_found: unknown circuit 'x'"), so
 * a client recovers the exact cuzk status where several share a gRPC code
 * (FORMAT and UNSATISFIED are both INVALID_ARGUMENT). */
#ifndef CUZK_SERVER_RPC_STATUS_H
#define CUZK_SERVER_RPC_STATUS_H

#include "cuzk/status.h"

typedef enum {
  RPC_CODE_OK = 0,
  RPC_CODE_CANCELLED = 1,
  RPC_CODE_UNKNOWN = 2,
  RPC_CODE_INVALID_ARGUMENT = 3,
  RPC_CODE_DEADLINE_EXCEEDED = 4,
  RPC_CODE_NOT_FOUND = 5,
  RPC_CODE_ALREADY_EXISTS = 6,
  RPC_CODE_PERMISSION_DENIED = 7,
  RPC_CODE_RESOURCE_EXHAUSTED = 8,
  RPC_CODE_FAILED_PRECONDITION = 9,
  RPC_CODE_ABORTED = 10,
  RPC_CODE_OUT_OF_RANGE = 11,
  RPC_CODE_UNIMPLEMENTED = 12,
  RPC_CODE_INTERNAL = 13,
  RPC_CODE_UNAVAILABLE = 14,
  RPC_CODE_DATA_LOSS = 15,
  RPC_CODE_UNAUTHENTICATED = 16
} rpc_code;

/* status, gRPC code, exit status of a CLI command that met it
 * (0 success, 1 a negative answer, 2 an error; cli.h's CLI_*). */
#define RPC_STATUS_MAP(X)                                                                    \
  X(OK, RPC_CODE_OK, 0)                                                                      \
  X(INVALID_ARGUMENT, RPC_CODE_INVALID_ARGUMENT, 2)                                          \
  X(IO, RPC_CODE_INTERNAL, 2)              /* the server could not read its own files */     \
  X(FORMAT, RPC_CODE_INVALID_ARGUMENT, 2)  /* a witness that is not a .wtns for the key */   \
  X(NO_MEMORY, RPC_CODE_RESOURCE_EXHAUSTED, 2)                                               \
  X(UNSATISFIED, RPC_CODE_INVALID_ARGUMENT, 2)                                               \
  X(VERIFY_FAILED, RPC_CODE_INTERNAL, 2)   /* a proof made from a good witness must verify */ \
  X(UNSUPPORTED, RPC_CODE_UNIMPLEMENTED, 2)                                                  \
  X(INTERNAL, RPC_CODE_INTERNAL, 2)                                                          \
  X(CANCELLED, RPC_CODE_CANCELLED, 2)                                                        \
  X(NOT_FOUND, RPC_CODE_NOT_FOUND, 2)                                                        \
  X(TIMEOUT, RPC_CODE_DEADLINE_EXCEEDED, 1)                                                  \
  X(EXHAUSTED, RPC_CODE_RESOURCE_EXHAUSTED, 2) /* over a budget: retry later */              \
  X(UNAVAILABLE, RPC_CODE_UNAVAILABLE, 2)  /* shutting down, or no worker left */          \
  X(DEVICE_LOST, RPC_CODE_UNAVAILABLE, 2)  /* the GPU failed, not the request: see below */

/* DEVICE_LOST is UNAVAILABLE, not INTERNAL: the request was good and cuzk
 * has no bug to report; the GPU that proved it failed (and no other worker
 * could take the retry), which is gRPC's "the service is currently
 * unavailable; retrying may succeed" - on another daemon, or on this one
 * once restarted.  The reply's leading name ("device_lost: ...") tells it
 * from a daemon that is shutting down (rpc_status_from_reply). */

rpc_code rpc_status_code(cuzk_status s);
int rpc_status_exit(cuzk_status s);
/* "NOT_FOUND", ... ("CODE_UNLISTED" past the 17 canonical codes). */
const char *rpc_code_name(int code);
/* The cuzk status a reply stands for: its message's leading status name
 * when there is one ("not_found: ..."), else the likeliest status for the
 * gRPC code (RESOURCE_EXHAUSTED: EXHAUSTED; unlisted codes: INTERNAL).  *text,
 * when non-NULL, is set to the message past that name. */
cuzk_status rpc_status_from_reply(int code, const char *msg, const char **text);

#endif
