#include "server/rpc_status.h"

#include <stdio.h>
#include <string.h>

/* Every status of status.h has exactly one row: the rows are counted and
 * each is placed at its own index. */
enum {
#define X(name, code, exit) RPC_ROW_##name,
  RPC_STATUS_MAP(X)
#undef X
  RPC_ROWS
};
_Static_assert((int)RPC_ROWS == (int)CUZK_STATUS_COUNT, "RPC_STATUS_MAP needs one row per cuzk status");

static const struct {
  unsigned char code, exit;
} rows[CUZK_STATUS_COUNT] = {
#define X(name, code, exit) [CUZK_##name] = {code, exit},
    RPC_STATUS_MAP(X)
#undef X
};

rpc_code rpc_status_code(cuzk_status s) {
  return (unsigned)s < CUZK_STATUS_COUNT ? (rpc_code)rows[s].code : RPC_CODE_UNKNOWN;
}

int rpc_status_exit(cuzk_status s) {
  return (unsigned)s < CUZK_STATUS_COUNT ? rows[s].exit : 2;
}

const char *rpc_code_name(int code) {
  static const char *const names[] = {
      "OK",       "CANCELLED",         "UNKNOWN",   "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS",   "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
      "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  if (code >= 0 && code < (int)(sizeof names / sizeof names[0]))
    return names[code];
  return "CODE_UNLISTED";
}

cuzk_status rpc_status_from_reply(int code, const char *msg, const char **text) {
  if (text)
    *text = msg ? msg : "";
  if (msg) {
    const char *colon = strstr(msg, ": ");
    for (int s = 1; colon && s < CUZK_STATUS_COUNT; s++) {
      const char *name = cuzk_status_name((cuzk_status)s);
      size_t n = strlen(name);
      if ((size_t)(colon - msg) == n && !memcmp(msg, name, n)) {
        if (text)
          *text = colon + 2;
        return (cuzk_status)s;
      }
    }
  }
  /* Where several statuses share a code, the one a reply without a name
   * (from grpc itself, or another server) most likely means. */
  switch (code) {
  case RPC_CODE_OK: return CUZK_OK;
  case RPC_CODE_CANCELLED: return CUZK_CANCELLED;
  case RPC_CODE_INVALID_ARGUMENT: return CUZK_INVALID_ARGUMENT;
  case RPC_CODE_DEADLINE_EXCEEDED: return CUZK_TIMEOUT;
  case RPC_CODE_NOT_FOUND: return CUZK_NOT_FOUND;
  case RPC_CODE_RESOURCE_EXHAUSTED: return CUZK_EXHAUSTED;
  case RPC_CODE_UNIMPLEMENTED: return CUZK_UNSUPPORTED;
  case RPC_CODE_UNAVAILABLE: return CUZK_UNAVAILABLE;
  default: return CUZK_INTERNAL;
  }
}
