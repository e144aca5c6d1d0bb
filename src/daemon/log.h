/* cuzk-daemon's log: one line per event on stderr,
 *   2025-06-01T12:00:00.123Z info  message
 * (UTC timestamp with milliseconds, level, text).  Lines below the level
 * set by [logging] level / --log-level are dropped.  Safe from any thread:
 * a line is formatted into one buffer and written with one write(2), so
 * lines of different threads never interleave.  Not for signal handlers
 * (the daemon has none: it takes signals with sigwait). */
#ifndef CUZK_DAEMON_LOG_H
#define CUZK_DAEMON_LOG_H

#include "server/config.h"

void dlog_set_level(daemon_log_level level);
void dlog(daemon_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define dlog_error(...) dlog(DAEMON_LOG_ERROR, __VA_ARGS__)
#define dlog_warn(...) dlog(DAEMON_LOG_WARN, __VA_ARGS__)
#define dlog_info(...) dlog(DAEMON_LOG_INFO, __VA_ARGS__)
#define dlog_debug(...) dlog(DAEMON_LOG_DEBUG, __VA_ARGS__)

#endif
