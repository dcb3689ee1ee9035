/* cost.c - what a prim func costs, estimated from its text: floating-point
 * operations and the bytes of its buffer parameters.
 *
 * The estimate is the one profiles and tuners quote as "FLOPs": every
 * float-typed arithmetic operation of a stored value (add, sub, mul, div,
 * min, max, negation, a math intrinsic) counts one per lane, times the
 * iterations of the loops around the store.  Casts, selects, loads and index
 * arithmetic count nothing; an if counts its costlier branch.  A loop whose
 * extent is not a constant makes the count unknown (-1): it depends on the
 * sizes the function is called with. */
#include "mlcc/arith.h"

static double expr_flops(const MlcExpr *e) {
  if (!e) return 0;
  double own = 0, sub = 0;
  bool is_float = mlc_dtype_is_float(e->dtype);
  switch (e->kind) {
  case MLC_EXPR_VAR: case MLC_EXPR_INT: case MLC_EXPR_FLOAT: case MLC_EXPR_STR: return 0;
  case MLC_EXPR_BINARY:
    own = is_float && !mlc_binop_info[e->bin.op].is_bool ? 1 : 0;
    sub = expr_flops(e->bin.a) + expr_flops(e->bin.b);
    break;
  case MLC_EXPR_NOT: sub = expr_flops(e->operand); break;
  case MLC_EXPR_NEG: own = is_float; sub = expr_flops(e->operand); break;
  case MLC_EXPR_CAST: sub = expr_flops(e->operand); break;
  case MLC_EXPR_SELECT: sub = expr_flops(e->select.cond) + expr_flops(e->select.t) + expr_flops(e->select.f); break;
  case MLC_EXPR_LOAD: return 0; /* index arithmetic is not floating-point work */
  case MLC_EXPR_RAMP: return 0;
  case MLC_EXPR_BROADCAST: return expr_flops(e->bcast.value);
  case MLC_EXPR_LET: sub = expr_flops(e->let.value) + expr_flops(e->let.body); break;
  case MLC_EXPR_CALL:
    own = is_float && e->call.op != MLC_INTRIN_IF_THEN_ELSE && e->call.op != MLC_INTRIN_CHECKED_INDEX;
    for (int i = 0; i < e->call.n; i++) sub += expr_flops(e->call.args[i]);
    break;
  }
  return own * (e->dtype.lanes ? e->dtype.lanes : 1) + sub;
}

/* the flops of s, or -1 when a loop extent is not a constant */
static double stmt_flops(const MlcStmt *s) {
  if (!s) return 0;
  switch (s->kind) {
  case MLC_STMT_STORE: return expr_flops(s->store.value);
  case MLC_STMT_FOR: {
    int64_t n;
    double body = stmt_flops(s->loop.body);
    if (body == 0) return 0;
    if (body < 0 || !mlc_e_is_const_int(s->loop.extent, &n)) return -1;
    return body * (double)(n > 0 ? n : 0);
  }
  case MLC_STMT_BLOCK_REALIZE: {
    double init = stmt_flops(s->realize.block->init), body = stmt_flops(s->realize.block->body);
    return init < 0 || body < 0 ? -1 : init + body;
  }
  case MLC_STMT_SEQ: {
    double t = 0;
    for (int i = 0; i < s->seq.n; i++) {
      double x = stmt_flops(s->seq.items[i]);
      if (x < 0) return -1;
      t += x;
    }
    return t;
  }
  case MLC_STMT_IF: {
    double a = stmt_flops(s->if_.then_s), b = stmt_flops(s->if_.else_s);
    return a < 0 || b < 0 ? -1 : a > b ? a : b;
  }
  case MLC_STMT_LET: return stmt_flops(s->let.body);
  case MLC_STMT_ALLOCATE: return stmt_flops(s->alloc.body);
  case MLC_STMT_EVALUATE: return expr_flops(s->eval);
  }
  return 0;
}

double mlc_prim_func_flops(const MlcPrimFunc *f) { return f && f->body ? stmt_flops(f->body) : 0; }

double mlc_prim_func_param_bytes(const MlcPrimFunc *f) {
  double total = 0;
  for (int i = 0; f && i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b) continue;
    double n = (double)mlc_dtype_bytes(b->dtype);
    for (int d = 0; d < b->ndim; d++) {
      int64_t v;
      if (!mlc_e_is_const_int(b->shape[d], &v)) return -1;
      n *= (double)(v > 0 ? v : 0);
    }
    total += n;
  }
  return total;
}
