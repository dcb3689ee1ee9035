/* ast.h - the syntax tree of the Python subset TVMScript is written in.
 *
 * Reading is two steps: parse.c turns text into this tree (indentation,
 * precedence, every syntax error located), then read_tir.c / read_graph.c
 * give the tree its meaning as IR.  Keeping syntax apart from meaning lets
 * the two dialects (T. and R.) share one parser, and keeps each error at the
 * step that can best explain it.  Nodes live in the context's arena. */
#ifndef MLCC_TEXT_AST_H
#define MLCC_TEXT_AST_H

#include "mlcc/ir.h"

typedef enum AstKind {
  /* expressions */
  AST_NAME,      /* name */
  AST_INT,       /* int_val (a Python int literal; range-checked to int64) */
  AST_FLOAT,     /* float_val */
  AST_STR,       /* str (interned, escapes resolved) */
  AST_NONE, AST_TRUE, AST_FALSE,
  AST_ATTR,      /* a.attr: value, name */
  AST_CALL,      /* func(args..., key=value...): func, items (args), kws */
  AST_SUBSCRIPT, /* value[index]: value, index (a TUPLE when a, b) */
  AST_SLICE,     /* lo:hi[:step] inside a subscript; any part may be NULL */
  AST_TUPLE,     /* items */
  AST_LIST,      /* items */
  AST_DICT,      /* keys in items, values in items2 */
  AST_BINOP,     /* lhs op rhs: op is AstOp */
  AST_UNARY,     /* op (AST_OP_NEG, AST_OP_POS, AST_OP_NOT, AST_OP_INVERT) operand in lhs */
  AST_COMPARE,   /* a < b (chains are refused): op, lhs, rhs */
  AST_BOOLOP,    /* a and b / a or b: op, lhs, rhs */
  AST_IFEXP,     /* body if test else orelse: lhs=body, test, rhs=orelse */
  AST_LAMBDA,    /* lambda params: body (params as NAMEs in items; body in lhs) */
  AST_STAR,      /* *value in a call or tuple (lhs) */
  /* statements */
  AST_EXPR_STMT, /* lhs */
  AST_ASSIGN,    /* target (NAME, TUPLE of NAMEs, SUBSCRIPT...) [: annot] = value;
                    target, annot (may be NULL), value (NULL for a bare annotation) */
  AST_AUGASSIGN, /* target op= value */
  AST_FOR,       /* for target in iter: body */
  AST_WITH,      /* with value [as target]: body */
  AST_IF,        /* if test: body elif/else: orelse (a list holding one IF for elif) */
  AST_RETURN,    /* value (may be NULL) */
  AST_PASS,
  AST_FUNCDEF,   /* decorators, name, params, returns, body */
  AST_CLASSDEF,  /* decorators, name, body */
  AST_IMPORT,    /* import/from-import line: kept only for its location */
  AST_ASSERT,    /* test, value (message, may be NULL) */
} AstKind;

typedef enum AstOp {
  AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_FLOORDIV, AST_OP_MOD, AST_OP_POW,
  AST_OP_MATMUL, AST_OP_BITAND, AST_OP_BITOR, AST_OP_BITXOR, AST_OP_LSHIFT, AST_OP_RSHIFT,
  AST_OP_NEG, AST_OP_POS, AST_OP_NOT, AST_OP_INVERT,
  AST_OP_EQ, AST_OP_NE, AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE, AST_OP_IN, AST_OP_NOT_IN,
  AST_OP_IS, AST_OP_IS_NOT,
  AST_OP_AND, AST_OP_OR,
} AstOp;

typedef struct Ast Ast;

typedef struct AstList { Ast **items; int n; } AstList;

typedef struct AstKeyword { const char *name; Ast *value; MlcLoc loc; } AstKeyword;

typedef struct AstParam {   /* a def parameter: name [: annot] [= default] */
  const char *name; Ast *annot; Ast *dflt; MlcLoc loc;
} AstParam;

struct Ast {
  AstKind kind;
  MlcLoc loc;      /* first character of the construct */
  AstOp op;
  const char *name;    /* NAME, ATTR, FUNCDEF, CLASSDEF (interned) */
  int64_t int_val;
  double float_val;
  const char *str;     /* STR (interned; may contain NUL-free text only) */
  Ast *func, *value, *index, *target, *annot, *test, *lhs, *rhs, *iter, *returns;
  Ast *lo, *hi, *step; /* SLICE */
  AstList items;       /* CALL args, TUPLE/LIST items, DICT keys, LAMBDA params */
  AstList items2;      /* DICT values */
  AstKeyword *kws; int n_kws; /* CALL keywords */
  AstList body;        /* statement bodies */
  AstList orelse;
  AstList decorators;
  AstParam *params; int n_params;
};

/* Parse a whole file into a list of top-level statements.  `file` and `text`
 * are registered with the context for carets.  Returns false (error in ctx)
 * on the first syntax error.  Bounded: nesting deeper than 200 and files over
 * 64 MiB are refused. */
bool mlc_parse(MlcCtx *ctx, const char *file, const char *text, size_t len, AstList *out);

/* Readers of each dialect, called by reader.c. */
typedef struct MlcReader MlcReader;
struct MlcReader {
  MlcCtx *ctx;
  const char *module_name;  /* class name, e.g. "Module", also bound by `cls = Module` */
  MlcMap globals;           /* interned function name -> MlcFuncKind+1 (as intptr), known before bodies are read */
};

MlcPrimFunc *mlc_read_prim_func(MlcReader *r, const Ast *def);
MlcGFunc *mlc_read_gfunc(MlcReader *r, const Ast *def);

/* Read an integer expression used as a shape dim or index (graph struct info, R.shape):
 * int literals become int64 immediates, a bare name or a string resolves through `vars`
 * (interned name -> MlcExpr* int64 var), + - * // % T.max T.min T.int64(k) allowed.
 * NULL + located error otherwise. */
MlcExpr *mlc_read_shape_expr(MlcReader *r, const Ast *a, const MlcMap *vars);

#endif
