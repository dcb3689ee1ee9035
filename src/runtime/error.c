/* error.c - the runtime's one error channel: a thread-local message.
 *
 * A failing function leaves its message here and returns a status; the
 * buffer is per thread so concurrent callers (and pool workers) never see
 * each other's messages, and fixed-size so reporting an error never needs
 * memory. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

static _Thread_local char last_error[MLCRT_ERR_CAP];

const char *mlcrt_last_error(void) { return last_error; }

int mlcrt_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return -1;
}

int mlcrt__set_error_str(const char *msg) {
  snprintf(last_error, sizeof last_error, "%s", msg ? msg : "(no message)");
  return -1;
}

/* shift the message right and put the prefix in front, cutting the end */
void mlcrt__prefix_error(const char *prefix) {
  size_t cap = sizeof last_error - 1;
  size_t np = strlen(prefix), nm = strlen(last_error);
  if (np + 2 > cap) np = cap - 2;
  if (np + 2 + nm > cap) nm = cap - np - 2;
  memmove(last_error + np + 2, last_error, nm);
  memcpy(last_error, prefix, np);
  memcpy(last_error + np, ": ", 2);
  last_error[np + 2 + nm] = '\0';
}
