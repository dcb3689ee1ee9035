/* context.c - contexts and the error channel of the stable C API. */
#include "api/api.h"

#include <stdio.h>
#include <string.h>

int mlcc_api_version(void) { return MLCC_API_VERSION; }

MlccContext *mlcc_context_new(void) {
  MlccContext *c = mlc_xcalloc(1, sizeof *c);
  c->ctx = mlc_ctx_new();
  return c;
}

void mlcc_context_free(MlccContext *c) {
  if (!c) return;
  mlc_ctx_free(c->ctx);
  free(c->msg);
  free(c);
}

const char *mlcc_last_error(const MlccContext *c) { return c && c->msg ? c->msg : ""; }

void mlcc_free(void *p) { free(p); }

int mlcc_small_float_decode(const char *dtype, const void *src, int64_t n, float *dst) {
  MlcDType t;
  if (!dtype || !mlc_dtype_parse(dtype, &t) || t.lanes != 1 || n < 0 || (n && (!src || !dst))) return -1;
  if (t.code == MLC_TC_BFLOAT && t.bits == 16) {
    for (int64_t i = 0; i < n; i++) {
      uint16_t h;
      memcpy(&h, (const char *)src + 2 * i, 2);
      dst[i] = mlc_bf16_to_f32(h);
    }
    return 0;
  }
  if (!mlc_dtype_is_minifloat(t)) return -1;
  for (int64_t i = 0; i < n; i++) dst[i] = mlc_minifloat_decode(t, ((const unsigned char *)src)[i]);
  return 0;
}

void api_begin(MlccContext *c) {
  mlc_clear_error(c->ctx);
  free(c->msg);
  c->msg = NULL;
}

bool api_fail(MlccContext *c) {
  MlcStrBuf sb = {0};
  if (mlc_has_error(c->ctx)) mlc_format_error(c->ctx, &sb);
  else mlc_sb_puts(&sb, "error: failed without a message");
  /* one message, without the trailing newline the CLI wants */
  while (sb.len && (sb.data[sb.len - 1] == '\n')) sb.len--;
  free(c->msg);
  c->msg = mlc_xmalloc(sb.len + 1);
  if (sb.len) memcpy(c->msg, sb.data, sb.len);
  c->msg[sb.len] = '\0';
  mlc_vec_free(&sb);
  return false;
}

bool api_failf(MlccContext *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!mlc_has_error(c->ctx)) mlc_verror(c->ctx, (MlcLoc){0}, fmt, ap);
  va_end(ap);
  return api_fail(c);
}

bool api_dtype(MlccContext *c, const char *name, MlcDType *out) {
  if (name && mlc_dtype_parse(name, out)) return true;
  return api_failf(c, "unknown dtype '%s'", name ? name : "(null)");
}

char *api_take(MlcStrBuf *sb) {
  char *s = mlc_xstrdup(mlc_sb_cstr(sb));
  mlc_vec_free(sb);
  return s;
}
