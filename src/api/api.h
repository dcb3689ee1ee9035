/* api.h - what the files of the stable C API (include/mlcc/mlcc.h) share:
 * the context wrapper and the error convention.
 *
 * Handles are the layers' own nodes behind opaque names (an MlccModule is
 * an MlcModule, an MlccExpr an MlcExpr, ...): they live in the context's
 * arena, so handing them out costs nothing and they stay valid as long as
 * the context.  Every entry point clears the context's error first and, on
 * failure, formats the layer's message (with its place) into the context's
 * last-error text, so a caller always reads the message of its own call. */
#ifndef MLCC_API_INTERNAL_H
#define MLCC_API_INTERNAL_H

#include "mlcc/mlcc.h"
#include "mlcc/support.h"
#include "mlcc/ir.h"

struct MlccContext {
  MlcCtx *ctx;
  char *msg; /* the last failure's text, malloc'd; NULL when none */
};

/* start of an entry point: forget the previous error */
void api_begin(MlccContext *c);
/* a failure: keep the context's formatted message (or fmt when the layer
 * left none); returns false */
bool api_fail(MlccContext *c);
bool api_failf(MlccContext *c, const char *fmt, ...) MLC_PRINTF(2, 3);
/* a dtype by name, or a failure naming it */
bool api_dtype(MlccContext *c, const char *name, MlcDType *out);
/* keyword attributes from values (None, bool, int, float, str, lists) */
bool api_attrs(MlccContext *c, const char *const *keys, const MlccValue *vals, int n, MlcAttrs *out);
/* the text of a string buffer as a malloc'd string (the buffer is freed) */
char *api_take(MlcStrBuf *sb);

#define API_MOD(m) ((const MlcModule *)(m))
#define API_EXPR(e) ((MlcExpr *)(e))
#define API_GEXPR(e) ((MlcGExpr *)(e))
#define API_SINFO(s) ((MlcSInfo *)(s))

#endif
