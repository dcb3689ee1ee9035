/* c_emit.h - what the C generator's files share: the emitter state, names,
 * C types, and the expression and statement emitters. */
#ifndef MLCC_CODEGEN_C_EMIT_H
#define MLCC_CODEGEN_C_EMIT_H

#include "mlcc/codegen.h"

typedef struct CEmit {
  MlcCtx *ctx;
  const MlcPrimFunc *func;  /* lowered */
  MlcStrBuf *out;           /* the function being written */
  MlcStrBuf *helpers;       /* typedefs and helper functions, written once each */
  MlcMap *helper_done;      /* interned helper name -> non-NULL (module-wide) */
  MlcStrBuf *closures;      /* outlined parallel loop bodies */
  MlcMap names;             /* var or buffer -> interned C name */
  MlcMap taken;             /* interned C name -> non-NULL, this function's */
  const MlcMap *globals;    /* kernel names of the module, never reused */
  MLC_VEC(const MlcExpr *) scope_vars;   /* vars visible here, for closures */
  MLC_VEC(const MlcBuffer *) scope_bufs; /* buffers visible here */
  int indent;
  int n_closures;
  bool noalias;
  bool failed;
} CEmit;

bool c_fail(CEmit *e, const char *fmt, ...) MLC_PRINTF(2, 3);
const char *c_name(CEmit *e, const void *node, const char *hint);
const char *c_scalar_type(MlcDType t);   /* "float", "int32_t", ... ; NULL if none */
const char *c_vector_type(CEmit *e, MlcDType t, bool unaligned); /* declares it on first use */
void c_line(CEmit *e, const char *fmt, ...) MLC_PRINTF(2, 3);

/* expression text for a scalar expression, or a vector one in vector-
 * extension form (see c_expr.c) */
void c_expr(CEmit *e, const MlcExpr *x, MlcStrBuf *sb);
/* a vector expression at lane `lane` (a C expression naming the lane) */
void c_expr_lane(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb);
/* true when x can be written with vector-extension operations */
bool c_vector_ok(const MlcExpr *x);

void c_stmt(CEmit *e, const MlcStmt *s);

#endif
