/* cuzk-daemon's log lines: see log.h. */
#include "daemon/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int min_level = DAEMON_LOG_INFO;

void dlog_set_level(daemon_log_level level) { atomic_store(&min_level, (int)level); }

void dlog(daemon_log_level level, const char *fmt, ...) {
  if ((int)level > atomic_load(&min_level))
    return;
  char line[2048];
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
  n += (size_t)snprintf(line + n, sizeof line - n, ".%03ldZ %-5s ", ts.tv_nsec / 1000000,
                        daemon_log_level_name(level));
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(line + n, sizeof line - n, fmt, ap);
  va_end(ap);
  n = m < 0 ? n : n + (size_t)m < sizeof line - 1 ? n + (size_t)m : sizeof line - 2;
  line[n++] = '\n';
  for (size_t off = 0; off < n;) { /* one write: lines never interleave */
    ssize_t w = write(STDERR_FILENO, line + off, n - off);
    if (w <= 0)
      break;
    off += (size_t)w;
  }
}
