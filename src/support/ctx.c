/* ctx.c - the compilation context: arena, interned strings, the one error
 * slot, and the source texts that error carets are drawn from.
 *
 * The first error recorded wins: a failure deep in a reader is reported where
 * it happened, and the callers that unwind past it add nothing. */
#include "mlcc/support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct InternNode {
  struct InternNode *next;
  size_t len;
  const char *s;
} InternNode;

typedef struct Source { const char *text; size_t len; } Source;

MlcCtx *mlc_ctx_new(void) {
  MlcCtx *ctx = mlc_xcalloc(1, sizeof *ctx);
  mlc_arena_init(&ctx->arena);
  return ctx;
}

void mlc_ctx_free(MlcCtx *ctx) {
  if (!ctx) return;
  mlc_map_free(&ctx->interned);
  mlc_map_free(&ctx->sources);
  mlc_arena_free(&ctx->arena);
  free(ctx->err_msg);
  free(ctx);
}

void mlc_ctx_mark(const MlcCtx *ctx, MlcCtxMark *mark) {
  memset(mark, 0, sizeof *mark);
  mark->arena = mlc_arena_mark(&ctx->arena);
  mlc_map_copy(&mark->interned, &ctx->interned);
  mlc_map_copy(&mark->sources, &ctx->sources);
  mark->build_loc = ctx->build_loc;
  mark->fresh_counter = ctx->fresh_counter;
}

/* The interned map's chains only ever gain nodes at their heads, and those
 * come after the mark, so its copy's heads are the chains of the mark. */
void mlc_ctx_rollback(MlcCtx *ctx, const MlcCtxMark *mark) {
  mlc_clear_error(ctx);
  mlc_map_copy(&ctx->interned, &mark->interned);
  mlc_map_copy(&ctx->sources, &mark->sources);
  mlc_arena_rollback(&ctx->arena, mark->arena);
  ctx->build_loc = mark->build_loc;
  ctx->fresh_counter = mark->fresh_counter;
}

void mlc_ctx_mark_free(MlcCtxMark *mark) {
  mlc_map_free(&mark->interned);
  mlc_map_free(&mark->sources);
}

const char *mlc_intern_n(MlcCtx *ctx, const char *s, size_t n) {
  uint64_t h = mlc_hash_bytes(s, n, 0);
  const void *key = (const void *)(uintptr_t)h;
  InternNode *head = mlc_map_get(&ctx->interned, key);
  for (InternNode *it = head; it; it = it->next)
    if (it->len == n && memcmp(it->s, s, n) == 0) return it->s;
  InternNode *node = mlc_arena_alloc(&ctx->arena, sizeof *node);
  node->s = mlc_arena_strndup(&ctx->arena, s, n);
  node->len = n;
  node->next = head;
  mlc_map_put(&ctx->interned, key, node);
  return node->s;
}

const char *mlc_intern(MlcCtx *ctx, const char *s) { return mlc_intern_n(ctx, s, strlen(s)); }

const char *mlc_internf(MlcCtx *ctx, const char *fmt, ...) {
  MlcStrBuf sb = {0};
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  const char *r = mlc_intern_n(ctx, mlc_sb_cstr(&sb), sb.len);
  mlc_vec_free(&sb);
  return r;
}

bool mlc_verror(MlcCtx *ctx, MlcLoc loc, const char *fmt, va_list ap) {
  if (ctx->has_error) return false;
  MlcStrBuf sb = {0};
  mlc_sb_vprintf(&sb, fmt, ap);
  ctx->err_msg = sb.data ? sb.data : mlc_xstrdup("");
  ctx->err_loc = (loc.line > 0 || loc.file) ? loc : ctx->build_loc;
  ctx->has_error = true;
  return false;
}

bool mlc_error(MlcCtx *ctx, MlcLoc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mlc_verror(ctx, loc, fmt, ap);
  va_end(ap);
  return false;
}

bool mlc_has_error(const MlcCtx *ctx) { return ctx->has_error; }
const char *mlc_error_msg(const MlcCtx *ctx) { return ctx->err_msg ? ctx->err_msg : ""; }
MlcLoc mlc_error_loc(const MlcCtx *ctx) { return ctx->err_loc; }

void mlc_clear_error(MlcCtx *ctx) {
  free(ctx->err_msg);
  ctx->err_msg = NULL;
  ctx->has_error = false;
  ctx->err_loc = (MlcLoc){0};
}

void mlc_ctx_add_source(MlcCtx *ctx, const char *file, const char *text, size_t len) {
  const char *key = mlc_intern(ctx, file);
  Source *src = mlc_arena_alloc(&ctx->arena, sizeof *src);
  src->text = mlc_arena_strndup(&ctx->arena, text, len);
  src->len = len;
  mlc_map_put(&ctx->sources, key, src);
}

/* The source line `line` (1-based) of a registered file, or NULL. */
static const char *source_line(const MlcCtx *ctx, MlcLoc loc, size_t *len) {
  if (!loc.file || loc.line <= 0) return NULL;
  const Source *src = mlc_map_get(&ctx->sources, loc.file);
  if (!src) return NULL;
  const char *p = src->text, *end = src->text + src->len;
  for (int l = 1; l < loc.line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  const char *e = p;
  while (e < end && *e != '\n' && *e != '\r') e++;
  *len = (size_t)(e - p);
  return p;
}

void mlc_format_error(const MlcCtx *ctx, MlcStrBuf *sb) {
  MlcLoc loc = ctx->err_loc;
  if (loc.file && loc.line > 0)
    mlc_sb_printf(sb, "%s:%d:%d: error: %s\n", loc.file, loc.line, loc.col > 0 ? loc.col : 1,
                  mlc_error_msg(ctx));
  else if (loc.file)
    mlc_sb_printf(sb, "%s: error: %s\n", loc.file, mlc_error_msg(ctx));
  else
    mlc_sb_printf(sb, "error: %s\n", mlc_error_msg(ctx));
  size_t n = 0;
  const char *line = source_line(ctx, loc, &n);
  if (!line) return;
  /* show the line with unprintable bytes as '?', so garbage input stays readable */
  mlc_sb_puts(sb, "    ");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)line[i];
    mlc_sb_putc(sb, (c == '\t' || (c >= 32 && c < 127)) ? (char)c : '?');
  }
  mlc_sb_puts(sb, "\n    ");
  for (int i = 1; i < loc.col && (size_t)(i - 1) < n; i++) mlc_sb_putc(sb, line[i - 1] == '\t' ? '\t' : ' ');
  mlc_sb_puts(sb, "^\n");
}

/* path opened for reading if it is a regular file: O_NONBLOCK so a FIFO
 * cannot make the open wait for a writer, and the kind checked on the
 * descriptor that is then read */
static FILE *open_regular(MlcCtx *ctx, MlcLoc loc, const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  const char *why = NULL;
  if (fd < 0) {
    mlc_error(ctx, loc, "cannot open: %s", strerror(errno));
    return NULL;
  }
  if (fstat(fd, &st) != 0) why = "cannot be examined";
  else if (S_ISDIR(st.st_mode)) why = "is a directory, not a file";
  else if (!S_ISREG(st.st_mode)) why = "is not a regular file (a FIFO or a device is not read)";
  FILE *f = why ? NULL : fdopen(fd, "rb");
  if (!f) {
    close(fd);
    mlc_error(ctx, loc, "%s", why ? why : "cannot open");
  }
  return f;
}

char *mlc_read_file(MlcCtx *ctx, const char *path, size_t max_bytes, size_t *len) {
  MlcLoc loc = {mlc_intern(ctx, path), 0, 0};
  FILE *f = strcmp(path, "-") == 0 ? stdin : open_regular(ctx, loc, path);
  if (!f) return NULL;
  MlcStrBuf sb = {0};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    if (sb.len + n > max_bytes) {
      if (f != stdin) fclose(f);
      mlc_vec_free(&sb);
      mlc_error(ctx, loc, "file is larger than the limit of %zu bytes", max_bytes);
      return NULL;
    }
    mlc__vec_reserve((void **)&sb.data, &sb.cap, sb.len + n + 1, 1);
    memcpy(sb.data + sb.len, buf, n);
    sb.len += n;
  }
  bool failed = ferror(f);
  if (f != stdin) fclose(f);
  if (failed) {
    mlc_vec_free(&sb);
    mlc_error(ctx, loc, "read error");
    return NULL;
  }
  mlc__vec_reserve((void **)&sb.data, &sb.cap, sb.len + 1, 1);
  sb.data[sb.len] = 0;
  *len = sb.len;
  return sb.data;
}
