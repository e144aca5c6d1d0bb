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

/* The umask a unix socket is bound under: the file is born 0600 (owner
 * read and write) whatever the process's umask, and is widened, never
 * narrowed, afterwards (listen_unix_set_access), so no client outside the
 * owner can ever connect before the configured mode is in place.  umask is
 * process-wide: a file another thread creates in that instant is made
 * narrower, never wider. */
#define LISTEN_UNIX_UMASK 0177

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
 * (unix: after listen_unix_prepare; the file is made 0600, see
 * LISTEN_UNIX_UMASK), or -1 with err set (CUZK_IO). */
int listen_socket(const listen_addr *a, cuzk_err *err);

/* Gives the socket file at path the group gid (when gid >= 0: the daemon's
 * user must belong to it) and then the permission bits mode.  CUZK_IO
 * naming the path and the reason. */
cuzk_status listen_unix_set_access(const char *path, unsigned mode, long gid, cuzk_err *err);

/* Whether only this machine can reach a: a unix socket, or a host whose
 * every address is a loopback one (127.0.0.0/8, ::1, ::ffff:127.x;
 * "localhost" as the resolver says).  A wildcard ("0.0.0.0", "[::]"), any
 * other address and a name that does not resolve are not. */
bool listen_addr_is_loopback(const listen_addr *a);

#endif
