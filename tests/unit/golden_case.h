/* golden_case.h - what the golden-case runners (test_schedule_golden.c,
 * test_transform_golden.c) share: one case folder, its first failure as a
 * one-line reason, and reading its files. */
#ifndef MLCC_TESTS_GOLDEN_CASE_H
#define MLCC_TESTS_GOLDEN_CASE_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mlcc/text.h"

#define GOLDEN_MAX_FILE ((size_t)16 << 20)

typedef struct Case {
  const char *name;
  char dir[512];
  MlcCtx *ctx;
  MlcStrBuf why; /* the reason of the first failure, one line */
} Case;

static bool fail(Case *c, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool fail(Case *c, const char *fmt, ...) {
  if (c->why.len) return false;
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&c->why, fmt, ap);
  va_end(ap);
  return false;
}

/* the context's error as one line "file:line:col: message" */
static inline const char *err_line(MlcCtx *ctx, MlcStrBuf *sb) {
  MlcLoc l = mlc_error_loc(ctx);
  sb->len = 0;
  if (l.file) mlc_sb_printf(sb, "%s:%d:%d: ", l.file, l.line, l.col);
  mlc_sb_puts(sb, mlc_error_msg(ctx) ? mlc_error_msg(ctx) : "(no message)");
  return mlc_sb_cstr(sb);
}

static inline bool fail_ctx(Case *c, const char *what) {
  MlcStrBuf sb = {0};
  fail(c, "%s: %s", what, err_line(c->ctx, &sb));
  mlc_vec_free(&sb);
  return false;
}

static inline const char *case_path(Case *c, const char *file) {
  return mlc_internf(c->ctx, "%s/%s", c->dir, file);
}

static inline bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static inline MlcModule *read_module(Case *c, const char *file) {
  const char *path = case_path(c, file);
  size_t len;
  char *text = mlc_read_file(c->ctx, path, GOLDEN_MAX_FILE, &len);
  if (!text) return fail_ctx(c, file), NULL;
  MlcModule *m = mlc_read_module(c->ctx, path, text, len);
  free(text);
  if (!m) fail_ctx(c, file);
  return m;
}

#endif
