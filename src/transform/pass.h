/* pass.h - what the graph passes share: a binding rewriter, use walks and
 * struct-info helpers.
 *
 * Every pass has the same shape: walk a function's bindings in order, keep,
 * drop or replace each one, and substitute the vars it replaced in everything
 * after.  Nodes are immutable and a var is its pointer, so "replace a var"
 * means mapping the old pointer to a new expression and rebuilding the uses;
 * TfRw does that once for all passes.  A pass supplies a hook per binding
 * (the value comes in with earlier replacements already substituted) and
 * emits zero or more bindings through tf_emit. */
#ifndef MLCC_TRANSFORM_PASS_H
#define MLCC_TRANSFORM_PASS_H

#include "mlcc/transform.h"

typedef struct TfRw TfRw;
/* b: the original binding; value: its value with replacements substituted
 * (an if's branches already rewritten).  Emit through tf_emit / tf_map. */
typedef bool (*TfBindFn)(TfRw *rw, const MlcBinding *b, MlcGExpr *value);

typedef MLC_VEC(MlcBinding) TfBindVec;
typedef struct TfBlockB { bool dataflow; TfBindVec binds; } TfBlockB;
typedef MLC_VEC(TfBlockB) TfBlockVec;

struct TfRw {
  MlcCtx *ctx;
  void *user;
  TfBindFn on_binding;  /* NULL: emit the binding with its value substituted */
  bool no_dataflow;     /* emit every block as a plain one (dataflow vars become vars) */
  MlcMap vmap;          /* old var -> the expression that replaces its uses */
  TfBlockVec *cur;      /* the blocks of the sequence being built */
};

void tf_rw_free(TfRw *rw);
/* replace every use of `var` from now on by `to` */
void tf_map(TfRw *rw, const MlcGExpr *var, MlcGExpr *to);
/* e with mapped vars replaced (if branches are rewritten with the hook) */
MlcGExpr *tf_subst(TfRw *rw, MlcGExpr *e);
/* append a binding to the block being built; a dataflow var bound in a
 * plain block becomes a plain var of the same name (and is mapped) */
void tf_emit(TfRw *rw, MlcGExpr *var, MlcGExpr *value, MlcLoc loc);
/* the current block's dataflow flag */
bool tf_in_dataflow(const TfRw *rw);
/* a rewritten sequence: consecutive plain blocks merge, empty blocks go */
MlcGExpr *tf_rewrite_seq(TfRw *rw, MlcGExpr *seq);
/* the function with its body rewritten; params mapped to vars are renamed,
 * params mapped to anything else are dropped; ret NULL keeps f's */
MlcGFunc *tf_rewrite_func(TfRw *rw, const MlcGFunc *f, MlcSInfo *ret);

/* a module like m with funcs[i] replaced by repl[i] (NULL: kept) and extra
 * functions appended */
MlcModule *tf_module_with(MlcCtx *ctx, const MlcModule *m, MlcFunc *repl, const MlcFunc *extra,
                          int n_extra);

/* ---- walks ------------------------------------------------------------------- */

typedef void (*TfUseFn)(void *user, const MlcGExpr *var);
/* every use of a graph var in e (binding definitions are not uses) */
void tf_each_use(const MlcGExpr *e, TfUseFn fn, void *user);
/* use counts of every var of a function body: var -> (void *)(intptr_t)count */
void tf_count_uses(const MlcGExpr *body, MlcMap *counts);
intptr_t tf_use_count(const MlcMap *counts, const MlcGExpr *var);
/* every GLOBAL name referenced in e */
void tf_each_global(const MlcGExpr *e, void (*fn)(void *user, const char *name), void *user);

/* ---- calls ------------------------------------------------------------------- */

bool tf_is_op(const MlcGExpr *e, const char *name); /* name need not be interned */
/* call_tir or call_dps_packed in the form the builders make */
bool tf_is_dps(const MlcGExpr *e);
/* Calls whose removal could change what the program does: calls of prim
 * funcs in destination-passing style, packed calls, calls of impure or
 * unknown functions.  Everything else is pure. */
bool tf_is_pure(const MlcModule *m, const MlcGExpr *value);

/* the prim func a call_tir calls when fusion may take it in (fuse_ops.c):
 * static shapes, tensor params, one output, no tuning record; else NULL */
const MlcPrimFunc *tf_fusable_callee(MlcCtx *ctx, const MlcModule *m, const MlcGExpr *v);

/* ---- weight layouts (weight_layout.c) ---------------------------------------------- */

/* m with "layout_free_buffers" = [k, ...] on each prim func (that want
 * accepts) whose param k is a constant at every call_tir of it */
MlcModule *tf_mark_layout_free(MlcCtx *ctx, const MlcModule *m, bool (*want)(const MlcPrimFunc *f, void *user),
                               void *user);
/* m with the constants passed to params a schedule laid out anew (the
 * callee's "layout_rewrites") laid out the same way, and the
 * "layout_free_buffers" marks removed */
MlcModule *tf_apply_layout_rewrites(MlcCtx *ctx, const MlcModule *m);

/* ---- struct info --------------------------------------------------------------- */

/* (sameness, contradiction and join of struct info: mlc_sinfo_* in ir.h) */
/* how much a struct info says (more known fields, higher) */
int tf_sinfo_detail(const MlcSInfo *s);
/* bytes of a tensor of constant shape; false for symbolic or unknown shapes
 * and for sizes over 2^62 */
bool tf_tensor_bytes(const MlcSInfo *s, int64_t *bytes);
/* struct info as text, in the arena (for messages) */
const char *tf_sinfo_str(MlcCtx *ctx, const MlcSInfo *s);

#endif
