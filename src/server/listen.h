/* Listen addresses of the daemon ([daemon] listen and status_listen):
 * "unix://PATH" or "HOST:PORT".
 *
 * DESIGN: one parser for the config's validation, the HTTP server's bind
 * and the daemon's socket-file housekeeping, so all three agree on what an
 * address means.  PATH may be absolute ("unix:///run/cuzk/cuzk.sock") or
 * relative to the daemon's working directory ("unix://cuzk.sock"); it must
 * fit a sockaddr_un.  HOST is a name, an IPv4 address or a bracketed IPv6
 * address ("[::1]:9821"); PORT is 0 (any free port) to 65535. */
#ifndef CUZK_SERVER_LISTEN_H
#define CUZK_SERVER_LISTEN_H

#include <stdbool.h>

#include "base/err.h"

#define LISTEN_PATH_MAX 108 /* sizeof sockaddr_un.sun_path on Linux, NUL included */
#define LISTEN_HOST_MAX 256

typedef struct {
  bool is_unix;
  char path[LISTEN_PATH_MAX];  /* is_unix */
  char host[LISTEN_HOST_MAX];  /* else: without IPv6 brackets */
  unsigned port;
} listen_addr;

/* Parses s.  CUZK_INVALID_ARGUMENT with a message saying what was
 * expected (without naming where s came from: the caller prefixes that). */
cuzk_status listen_addr_parse(listen_addr *a, const char *s, cuzk_err *err);

/* Makes PATH's directory (mode 0755, parents too) when it is missing, and
 * removes a stale socket file at PATH: one nothing accepts connections on.
 * CUZK_UNAVAILABLE when a process listens there (another daemon), CUZK_IO
 * when PATH is something else than a socket (it is never removed) or a
 * directory cannot be made. */
cuzk_status listen_unix_prepare(const char *path, cuzk_err *err);

/* Removes the socket file at path if it is one (at shutdown). */
void listen_unix_remove(const char *path);

/* A bound, listening, non-blocking, close-on-exec stream socket for a
 * (unix: after listen_unix_prepare), or -1 with err set (CUZK_IO). */
int listen_socket(const listen_addr *a, cuzk_err *err);

#endif
