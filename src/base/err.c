#include "base/err.h"

#include <stdio.h>
#include <string.h>

static const char *const status_names[] = {
#define X(name, str, msg) str,
    CUZK_STATUS_MAP(X)
#undef X
};
static const char *const status_messages[] = {
#define X(name, str, msg) msg,
    CUZK_STATUS_MAP(X)
#undef X
};

const char *cuzk_status_name(cuzk_status s) {
  return (unsigned)s < CUZK_STATUS_COUNT ? status_names[s] : "unknown";
}

const char *cuzk_status_message(cuzk_status s) {
  return (unsigned)s < CUZK_STATUS_COUNT ? status_messages[s] : "unknown status";
}

cuzk_status cuzk_err_set(cuzk_err *err, cuzk_status s, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->status = s;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return s;
}

cuzk_status cuzk_err_prefix(cuzk_err *err, cuzk_status s, const char *fmt, ...) {
  if (!err)
    return s;
  char prefix[CUZK_ERR_MSG_MAX / 2], old[CUZK_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->msg, sizeof old);
  size_t pl = strlen(prefix); /* < CUZK_ERR_MSG_MAX / 2 */
  size_t ol = strnlen(old, sizeof err->msg - pl - 3);
  memcpy(err->msg, prefix, pl);
  memcpy(err->msg + pl, ": ", 2);
  memcpy(err->msg + pl + 2, old, ol);
  err->msg[pl + 2 + ol] = 0;
  err->status = s;
  return s;
}

void cuzk_err_clear(cuzk_err *err) {
  if (err) {
    err->status = CUZK_OK;
    err->msg[0] = 0;
  }
}
