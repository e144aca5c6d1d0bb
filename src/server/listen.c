/* Listen addresses: parsing, socket files, binding.  See listen.h. */
#include "server/listen.h"

#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

cuzk_status listen_addr_parse(listen_addr *a, const char *s, cuzk_err *err) {
  memset(a, 0, sizeof *a);
  if (!strncmp(s, "unix://", 7)) {
    const char *path = s + 7;
    size_t n = strlen(path);
    if (n == 0)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "expected a socket path after unix:// (e.g. \"unix:///run/cuzk/cuzk.sock\")");
    if (n >= LISTEN_PATH_MAX)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "the socket path is %zu bytes; a unix socket path has at most %d", n,
                          LISTEN_PATH_MAX - 1);
    if (path[n - 1] == '/')
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "the socket path \"%s\" names a directory", path);
    a->is_unix = true;
    memcpy(a->path, path, n + 1);
    return CUZK_OK;
  }
  const char *colon = strrchr(s, ':');
  if (!colon || strstr(s, "://"))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "expected \"unix:///path/to.sock\" or \"host:port\" (e.g. \"127.0.0.1:9820\"), found \"%s\"",
                        s);
  const char *host = s;
  size_t hn = (size_t)(colon - s);
  if (hn >= 2 && host[0] == '[' && host[hn - 1] == ']') { /* [IPv6] */
    host++, hn -= 2;
    for (size_t i = 0; i < hn; i++) {
      char c = host[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
            c == '.' || c == '%'))
        return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "\"%s\": not an IPv6 address in [ ]", s);
    }
    if (hn == 0)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "\"%s\": empty IPv6 address in [ ]", s);
  } else {
    for (size_t i = 0; i < hn; i++) {
      char c = host[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
            c == '-' || c == '_'))
        return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                            "\"%s\": expected a host name or address before ':'%s", s,
                            c == ':' ? " (write an IPv6 address in brackets: \"[::1]:9820\")" : "");
    }
  }
  if (hn == 0 || hn >= LISTEN_HOST_MAX)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "\"%s\": expected a host before ':' (\"0.0.0.0\" for every interface)", s);
  const char *p = colon + 1;
  unsigned long port = 0;
  if (!*p || strlen(p) > 5)
    goto bad_port;
  for (; *p; p++) {
    if (*p < '0' || *p > '9')
      goto bad_port;
    port = port * 10 + (unsigned long)(*p - '0');
  }
  if (port > 65535)
    goto bad_port;
  memcpy(a->host, host, hn);
  a->host[hn] = 0;
  a->port = (unsigned)port;
  return CUZK_OK;
bad_port:
  return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "\"%s\": expected a port from 0 to 65535 after ':'", s);
}

/* mkdir -p of path's directory. */
static cuzk_status make_parent_dirs(const char *path, cuzk_err *err) {
  char dir[LISTEN_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir)
    return CUZK_OK;
  *slash = 0;
  for (char *p = dir + 1; ; p++) {
    if (*p != '/' && *p)
      continue;
    char c = *p;
    *p = 0;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
      return cuzk_err_set(err, CUZK_IO, "cannot make the directory %s for the socket %s: %s", dir, path,
                          strerror(errno));
    *p = c;
    if (!c)
      break;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return cuzk_err_set(err, CUZK_IO, "%s (the socket's directory) is not a directory", dir);
  return CUZK_OK;
}

static void unix_sockaddr(struct sockaddr_un *sa, const char *path) {
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  snprintf(sa->sun_path, sizeof sa->sun_path, "%s", path);
}

cuzk_status listen_unix_prepare(const char *path, cuzk_err *err) {
  CUZK_TRY(make_parent_dirs(path, err));
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT)
      return CUZK_OK;
    return cuzk_err_set(err, CUZK_IO, "%s: %s", path, strerror(errno));
  }
  if (!S_ISSOCK(st.st_mode))
    return cuzk_err_set(err, CUZK_IO, "%s exists and is not a socket; not replacing it", path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return cuzk_err_set(err, CUZK_IO, "socket: %s", strerror(errno));
  struct sockaddr_un sa;
  unix_sockaddr(&sa, path);
  int r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
  int e = errno;
  close(fd);
  if (r == 0)
    return cuzk_err_set(err, CUZK_UNAVAILABLE,
                        "%s: another process is listening on this socket (is a cuzk-daemon running?)", path);
  if (e != ECONNREFUSED)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot tell whether the socket is in use: %s", path, strerror(e));
  if (unlink(path) != 0 && errno != ENOENT)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot remove the stale socket: %s", path, strerror(errno));
  return CUZK_OK;
}

void listen_unix_remove(const char *path) {
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
    unlink(path);
}

int listen_socket(const listen_addr *a, cuzk_err *err) {
  const int one = 1;
  if (a->is_unix) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      cuzk_err_set(err, CUZK_IO, "socket: %s", strerror(errno));
      return -1;
    }
    struct sockaddr_un sa;
    unix_sockaddr(&sa, a->path);
    /* Born 0600 whatever the umask (listen_unix_set_access widens it). */
    mode_t old = umask(LISTEN_UNIX_UMASK);
    int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (r != 0 || listen(fd, 64) != 0) {
      cuzk_err_set(err, CUZK_IO, "cannot listen on unix://%s: %s", a->path, strerror(errno));
      close(fd);
      return -1;
    }
    return fd;
  }
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  char port[8];
  snprintf(port, sizeof port, "%u", a->port);
  int gr = getaddrinfo(a->host, port, &hints, &res);
  if (gr != 0) {
    cuzk_err_set(err, CUZK_IO, "cannot resolve %s: %s", a->host, gai_strerror(gr));
    return -1;
  }
  int fd = -1, e = 0;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
      e = errno;
      continue;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
      break;
    e = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0)
    cuzk_err_set(err, CUZK_IO, "cannot listen on %s:%u: %s", a->host, a->port, strerror(e));
  return fd;
}

cuzk_status listen_unix_set_access(const char *path, unsigned mode, long gid, cuzk_err *err) {
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
    return cuzk_err_set(err, CUZK_IO, "%s: the socket file is gone or replaced", path);
  /* The group first while the mode is still 0600, so the file is never
   * open to the wrong group. */
  if (gid >= 0 && chown(path, (uid_t)-1, (gid_t)gid) != 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot give the socket to group %ld: %s%s", path, gid, strerror(errno),
                        errno == EPERM ? " (the daemon's user must be a member of socket_group)" : "");
  if (chmod(path, (mode_t)mode) != 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot set the socket's mode to %04o: %s", path, mode, strerror(errno));
  return CUZK_OK;
}

static bool loopback_sockaddr(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET)
    return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
  if (sa->sa_family != AF_INET6)
    return false;
  const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
  return IN6_IS_ADDR_LOOPBACK(a6) || (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127);
}

bool listen_addr_is_loopback(const listen_addr *a) {
  if (a->is_unix)
    return true;
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (getaddrinfo(a->host, NULL, &hints, &res) != 0 || !res)
    return false;
  bool all = true;
  for (struct addrinfo *ai = res; ai && all; ai = ai->ai_next)
    all = loopback_sockaddr(ai->ai_addr);
  freeaddrinfo(res);
  return all;
}
