/* text.h - TVMScript: the reader (text -> IRModule) and the printer
 * (IRModule -> canonical text).  print(read(text)) reads back structurally
 * equal, and printing is deterministic, so `mlcc fmt` output is canonical. */
#ifndef MLCC_TEXT_H
#define MLCC_TEXT_H

#include "mlcc/ir.h"

/* Read a module.  A file may hold an `@I.ir_module` / `@tvm.script.ir_module`
 * class, or a single `@T.prim_func` / `@R.function` (wrapped in a module named
 * "Module").  `file` names the text in locations; the text is registered with
 * the context for error carets.  NULL + located error on bad input. */
MlcModule *mlc_read_module(MlcCtx *ctx, const char *file, const char *text, size_t len);

/* Canonical text of a module (current spelling, with import lines). */
void mlc_print_module(const MlcModule *m, MlcStrBuf *out);
void mlc_print_prim_func(const MlcPrimFunc *f, MlcStrBuf *out);
void mlc_print_gfunc(const MlcGFunc *f, MlcStrBuf *out);
/* Single nodes, for messages: an expression, a statement (indented from 0),
 * a graph expression, a struct info. */
void mlc_print_expr(const MlcExpr *e, MlcStrBuf *out);
void mlc_print_stmt(const MlcStmt *s, MlcStrBuf *out);
void mlc_print_gexpr(const MlcGExpr *e, MlcStrBuf *out);
void mlc_print_sinfo(const MlcSInfo *s, MlcStrBuf *out);
/* Either side of a diff, as one short line. */
void mlc_print_diff_side(const MlcDiff *d, bool right, MlcStrBuf *out);

#endif
