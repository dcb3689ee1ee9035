/* print_internal.h - the state the TVMScript printer's three files share.
 *
 * print.c holds what every level needs (output and indentation, the name
 * table, literals, attribute values, the module); print_tir.c prints tensor
 * programs and print_graph.c graph functions.  One MlcPrinter is created per
 * public print call and carries everything, so printing has no global state
 * and the same IR always gives the same bytes.
 *
 * Names: IR names are only hints, and two distinct vars may share one.  The
 * printer gives each var or buffer a name when its definition is printed,
 * unique among the names visible at that point (`x`, then `x_1`, `x_2`), and
 * frees it when the scope ends, so sibling loops may both use `i` as they do
 * in hand-written TVMScript, and the text reads back to the same structure. */
#ifndef MLCC_TEXT_PRINT_INTERNAL_H
#define MLCC_TEXT_PRINT_INTERNAL_H

#include "mlcc/text.h"

/* one live definition: which node, the name it had before (a re-definition of
 * the same node shadows), and how its name was made (base and suffix) so the
 * suffix can be offered again once the scope ends */
/* an entry of the printer's own string table: every name it ever made */
typedef struct MlcPtName {
  char *text;
  int live;        /* definitions in scope that use this name */
  int next_suffix; /* smallest suffix that may be free for this base */
} MlcPtName;

typedef struct MlcPtDef {
  const void *node; /* NULL for a reserved word */
  const char *prev;
  MlcPtName *name;
  MlcPtName *base;
  int suffix;       /* 0 when the name is the base itself */
} MlcPtDef;

typedef struct MlcPrinter {
  MlcStrBuf *out;
  int indent;              /* levels of four spaces */
  const char *module_name; /* what `cls = ...` binds in graph functions */
  /* names */
  MlcPtName **table;       /* open addressing on the text; NULL = empty slot */
  size_t table_cap, table_len;
  MlcMap current;          /* node -> name (const char *) while in scope */
  MLC_VEC(MlcPtDef) defs;  /* definitions in scope, innermost last */
  /* tensor programs */
  MlcMap loops;            /* loop var -> its MLC_STMT_FOR while printing the loop body */
  int bare_int_bits;       /* ints of this width print as bare literals (32; 64 in shapes) */
  bool signature;          /* graph signature: symbolic dims print as strings */
} MlcPrinter;

/* ---- print.c: output, names, literals, attributes ---------------------- */

void mlc_pt_init(MlcPrinter *p, MlcStrBuf *out, const char *module_name);
void mlc_pt_free(MlcPrinter *p);

void mlc_pt_puts(MlcPrinter *p, const char *s);
void mlc_pt_printf(MlcPrinter *p, const char *fmt, ...) MLC_PRINTF(2, 3);
void mlc_pt_line_start(MlcPrinter *p); /* the indentation of a new line */
void mlc_pt_line_end(MlcPrinter *p);   /* '\n' */
void mlc_pt_line(MlcPrinter *p, const char *fmt, ...) MLC_PRINTF(2, 3); /* a whole line */

/* Names.  define gives node a fresh name from its hint and keeps it until the
 * scope mark it was made under is closed; name is the current name of node,
 * or its cleaned hint when the node was never defined (a lone expression
 * printed for a message); reserve keeps a word from ever being given. */
const char *mlc_pt_define(MlcPrinter *p, const void *node, const char *hint);
const char *mlc_pt_name(MlcPrinter *p, const void *node, const char *hint);
bool mlc_pt_is_defined(const MlcPrinter *p, const void *node);
/* node prints as name, an existing name, until the scope closes: for the
 * places where the text gives two vars one name on purpose */
void mlc_pt_alias(MlcPrinter *p, const void *node, const char *name);
void mlc_pt_reserve(MlcPrinter *p, const char *word);
size_t mlc_pt_scope(const MlcPrinter *p);
void mlc_pt_unscope(MlcPrinter *p, size_t mark);

/* literals */
void mlc_pt_str(MlcPrinter *p, const char *s);           /* "..." with escapes */
void mlc_pt_dtype(MlcPrinter *p, MlcDType t);            /* float32 (unquoted) */
void mlc_pt_dtype_str(MlcPrinter *p, MlcDType t);        /* "float32" */
/* the shortest decimal text that reads back to v (as a float32 when single),
 * always with a '.' or an exponent; v must be finite */
void mlc_pt_float_text(char buf[48], double v, bool single);
/* a float literal in Python, non-finite values as float("inf") */
void mlc_pt_py_float(MlcPrinter *p, double v, bool single);
/* attribute values: dicts of function attributes, annotations, op keywords.
 * typed_bools prints bools as T.bool(True) (function attributes) */
void mlc_pt_attr_value(MlcPrinter *p, const MlcAttrValue *v, bool typed_bools);
void mlc_pt_attr_dict(MlcPrinter *p, MlcAttrs attrs, bool typed_bools);

/* ---- print_tir.c: tensor programs -------------------------------------- */

void mlc_pt_expr(MlcPrinter *p, const MlcExpr *e);
void mlc_pt_stmt(MlcPrinter *p, const MlcStmt *s);
void mlc_pt_prim_func(MlcPrinter *p, const MlcPrimFunc *f);
/* call fn on every free var of e in pre-order (vars bound by T.Let skipped) */
void mlc_pt_expr_vars(const MlcExpr *e, void (*fn)(void *user, const MlcExpr *var), void *user);

/* ---- print_graph.c: graph functions ------------------------------------ */

void mlc_pt_gfunc(MlcPrinter *p, const MlcGFunc *f);
void mlc_pt_gexpr(MlcPrinter *p, const MlcGExpr *e);
void mlc_pt_sinfo(MlcPrinter *p, const MlcSInfo *s);

#endif
