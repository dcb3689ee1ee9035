/* verify.h - whole-function well-formedness checks of the IR, run by the
 * function builders once a function is complete.
 *
 * The node builders check what one node can see; what needs the whole
 * function (is this var bound around its use, is this buffer a param or
 * allocated in an enclosing block) is checked here, once per function, so a
 * function that exists is one every later pass may trust. */
#ifndef MLCC_IR_VERIFY_H
#define MLCC_IR_VERIFY_H

#include "mlcc/ir.h"

/* true when f is well-formed; false with one error recorded in ctx, naming
 * the function and the block, loop, buffer or var at fault */
bool mlc_verify_prim_func(MlcCtx *ctx, const MlcPrimFunc *f);
bool mlc_verify_gfunc(MlcCtx *ctx, const MlcGFunc *f);

/* Calls fn on each direct child of e (a let's var, value and body
 * included); stops and returns false as soon as fn does. */
bool mlc_expr_each_child(const MlcExpr *e, bool (*fn)(void *user, const MlcExpr *child), void *user);

/* Calls fn on every var occurrence in e (let-bound vars included), in
 * pre-order; stops and returns false as soon as fn does.  Shared by the
 * checks and the region inference, which both ask "which vars does this
 * index read". */
bool mlc_expr_each_var(const MlcExpr *e, bool (*fn)(void *user, const MlcExpr *var), void *user);

#endif
