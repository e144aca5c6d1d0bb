/* Error reporting: a status plus a message in a caller-owned buffer.
 *
 * DESIGN: nothing in the library aborts or prints on bad input.  A function
 * that can fail takes `cuzk_err *err` last, fills it on failure and returns
 * the status.  The message names the file, the offset or field, and what was
 * expected.  `err` may be NULL when the caller wants only the status. */
#ifndef CUZK_BASE_ERR_H
#define CUZK_BASE_ERR_H

#include <stdarg.h>
#include "cuzk/status.h"

#define CUZK_ERR_MSG_MAX 512

typedef struct {
  cuzk_status status;
  char msg[CUZK_ERR_MSG_MAX];
} cuzk_err;

/* Sets err (if non-NULL) and returns s.  printf-style message. */
cuzk_status cuzk_err_set(cuzk_err *err, cuzk_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Puts context before err's message: "<context>: <message>", where fmt
 * formats the context alone (the ": " is added here).  Sets err's status
 * to s and returns s, the failing status the caller propagates, also when
 * err is NULL. */
cuzk_status cuzk_err_prefix(cuzk_err *err, cuzk_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cuzk_err_clear(cuzk_err *err);

/* Propagate a failing status. */
#define CUZK_TRY(expr)                  \
  do {                                  \
    cuzk_status cuzk_try_s_ = (expr);   \
    if (cuzk_try_s_ != CUZK_OK)         \
      return cuzk_try_s_;               \
  } while (0)

#endif
