/* read_util.h - what the readers of both dialects share: recognising dotted
 * paths (`T.axis.remap`) and decorators, binding call arguments the way Python
 * does, dtypes and attribute dictionaries, and the name scope and expression
 * reader of tensor programs (read_expr.c).
 *
 * The readers turn syntax into IR through the builders of ir.h only.  Before
 * each builder call they point ctx->build_loc at the syntax being turned into
 * IR, so a builder's own check is reported at the right line and column. */
#ifndef MLCC_TEXT_READ_UTIL_H
#define MLCC_TEXT_READ_UTIL_H

#include "text/ast.h"

/* ---- paths, decorators, arguments (reader.c, read_expr.c) ----------------- */

/* Writes the dotted path of a NAME / ATTR chain ("T.axis.remap") into buf;
 * false when `a` is something else or the path does not fit. */
bool mlc_rd_path(const Ast *a, char *buf, size_t cap);
/* true when `a` is exactly the dotted path `path` */
bool mlc_rd_is_path(const Ast *a, const char *path);
/* the dotted path a call calls, "" when the callee is not a path */
const char *mlc_rd_callee(const Ast *call, char *buf, size_t cap);

typedef enum MlcRdDecor {
  MLC_RD_DECOR_NONE, MLC_RD_DECOR_MODULE, MLC_RD_DECOR_PRIM, MLC_RD_DECOR_GRAPH,
} MlcRdDecor;
/* The first decorator of a def/class that says what it is (`@T.prim_func`,
 * `@R.function(pure=False)`, `@I.ir_module`...); *dec gets the decorator
 * expression (a CALL when it has arguments), NULL when none is recognised. */
MlcRdDecor mlc_rd_decorator(const Ast *def, const Ast **dec);

/* Binds a call's arguments to parameters as Python would.  `spec` lists the
 * parameter names separated by commas, with ';' before the first optional one
 * ("dom,binding;dtype").  out[i] gets the argument of parameter i or NULL.
 * Errors name `fname`: "T.axis.remap expects 2 arguments, got 3". */
#define MLC_RD_MAX_ARGS 16
bool mlc_rd_args(MlcCtx *ctx, const Ast *call, const char *fname, const char *spec,
                 const Ast *out[MLC_RD_MAX_ARGS]);

/* an int literal, possibly negated */
bool mlc_rd_int_literal(const Ast *a, int64_t *v);
/* a dtype written as a string ("float32") or as `T.float32`; lanes <= 64 */
bool mlc_rd_dtype(MlcCtx *ctx, const Ast *a, MlcDType *out);

/* Bounds on sizes written in the text. */
#define MLC_RD_MAX_DIM (INT64_C(1) << 40)
#define MLC_RD_MAX_RANK 32
#define MLC_RD_MAX_LANES 64

/* ---- name scope of a tensor program (read_expr.c) ------------------------- */

typedef enum MlcRdSymKind {
  MLC_RD_VAR,    /* scalar var: scalar param, size var, let var */
  MLC_RD_LOOP,   /* loop var (min, extent kept for T.axis.remap) */
  MLC_RD_ITER,   /* block iter var */
  MLC_RD_HANDLE, /* `a: T.handle` param, matched later by T.match_buffer */
  MLC_RD_BUFFER, /* buffer (var holds the handle of a buffer param) */
} MlcRdSymKind;

typedef struct MlcRdSym {
  const char *name;
  MlcRdSymKind kind;
  MlcExpr *var;
  MlcBuffer *buf;
  MlcExpr *min, *extent; /* LOOP */
  bool implicit;         /* size var created by its first use in a signature shape */
  int frame;             /* depth of the frame that defined it */
  int prev;              /* the symbol it shadows, -1 none */
  MlcLoc loc;
} MlcRdSym;

/* Frames nest like Python-in-TVMScript scopes (function, block, loop, let,
 * if-branch); leaving one makes its names invisible again. */
typedef struct MlcRdScope {
  MlcCtx *ctx;
  MLC_VEC(MlcRdSym) syms;
  MLC_VEC(size_t) marks;   /* syms.len at each frame entry */
  MlcMap top;              /* interned name -> index+1 of the visible symbol */
  /* while reading signature shapes: an undefined name becomes a size var */
  bool auto_vars;
  MlcDType auto_dtype;
} MlcRdScope;

void mlc_rd_scope_init(MlcRdScope *s, MlcCtx *ctx);
void mlc_rd_scope_free(MlcRdScope *s);
void mlc_rd_push(MlcRdScope *s);
void mlc_rd_pop(MlcRdScope *s);
/* the visible symbol of that name, NULL when none (pointer valid until the
 * next definition) */
MlcRdSym *mlc_rd_lookup(MlcRdScope *s, const char *name);
/* Defines a name in the current frame.  A name already visible is an error
 * ("duplicate loop variable 'i' (first defined at 3:9)") when it was defined
 * in this frame, or anywhere when !may_shadow.  NULL + error then. */
MlcRdSym *mlc_rd_define(MlcRdScope *s, const char *name, MlcRdSymKind kind, MlcLoc loc,
                        bool may_shadow, const char *what);

/* ---- expressions (read_expr.c) -------------------------------------------- */

/* A value read from the text before its dtype is settled: Python literals
 * stay untyped until the other operand of an operation gives them a dtype. */
typedef enum MlcRdValKind { MLC_RDV_EXPR, MLC_RDV_INT, MLC_RDV_FLOAT } MlcRdValKind;
typedef struct MlcRdVal {
  MlcRdValKind kind;
  MlcExpr *e;   /* EXPR */
  int64_t i;    /* INT */
  double f;     /* FLOAT */
  MlcLoc loc;
} MlcRdVal;

bool mlc_rd_val(MlcRdScope *s, const Ast *a, MlcRdVal *out);
/* the value as an expression: a lone int literal is int32 (int64 when it does
 * not fit), a lone float literal float32 */
MlcExpr *mlc_rd_val_expr(MlcRdScope *s, const MlcRdVal *v);
/* The value converted to `want` as TVMScript implies: a literal takes that
 * dtype, a narrower int widens, a scalar broadcasts to want's lanes.  Anything
 * else is an error "<what>: expected <want>, got <dtype>" at the value. */
MlcExpr *mlc_rd_val_as(MlcRdScope *s, const MlcRdVal *v, MlcDType want, const char *what);
/* Both operands brought to one dtype (see mlc_rd_val_as); `op` names the
 * operation in the error at `loc`. */
bool mlc_rd_unify(MlcRdScope *s, MlcLoc loc, const char *op, const MlcRdVal *a,
                  const MlcRdVal *b, MlcExpr **ea, MlcExpr **eb);

MlcExpr *mlc_rd_expr(MlcRdScope *s, const Ast *a);
MlcExpr *mlc_rd_expr_as(MlcRdScope *s, const Ast *a, MlcDType want, const char *what);
/* an integer expression (loop bound, index, dim); literals default to int32 */
MlcExpr *mlc_rd_int_expr(MlcRdScope *s, const Ast *a, const char *what);

/* Attribute values: literals, lists of them, and (with a scope) TIR
 * expressions; `T.int32(k)` and `T.bool(b)` read as plain ints and bools. */
bool mlc_rd_attr_value(MlcCtx *ctx, MlcRdScope *s, const Ast *a, MlcAttrValue *out);
/* a `{"key": value, ...}` dict with string keys, in source order */
bool mlc_rd_attrs(MlcCtx *ctx, MlcRdScope *s, const Ast *dict, MlcAttrs *out);

/* v is representable in dt (bool: 0 or 1) */
bool mlc_rd_int_fits(MlcDType dt, int64_t v);

/* R.const(value, dtype) in a graph function, its arguments already picked
 * (dtype may be NULL): read_const.c */
MlcGExpr *mlc_rd_graph_const(MlcCtx *ctx, const Ast *call, const Ast *value, const Ast *dtype);

#endif
