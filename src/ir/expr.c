/* expr.c - builders of TIR expressions, and the operator and intrinsic tables.
 *
 * Each builder checks what the node itself can tell (operand dtypes, arity,
 * immediate ranges) and returns NULL with an error otherwise; a NULL operand
 * (a failure further down) gives NULL without a second message. */
#include "mlcc/ir.h"

#include <math.h>
#include <string.h>

const MlcBinOpInfo mlc_binop_info[MLC_BIN_COUNT] = {
#define X(n, py, call, prec, isbool) {py, call, prec, isbool},
    MLC_BINOPS(X)
#undef X
};

const MlcIntrinInfo mlc_intrin_info[MLC_INTRIN_COUNT] = {
#define X(n, name, arity, rule) {name, arity, rule},
    MLC_INTRINSICS(X)
#undef X
};

static MlcExpr *node(MlcCtx *ctx, MlcExprKind kind, MlcDType t) {
  MlcExpr *e = mlc_arena_alloc(&ctx->arena, sizeof *e);
  e->kind = kind;
  e->dtype = t;
  return e;
}

MlcExpr *mlc_e_var(MlcCtx *ctx, const char *name, MlcDType t) {
  MlcExpr *e = node(ctx, MLC_EXPR_VAR, t);
  e->var.name = mlc_intern(ctx, name && *name ? name : "v");
  return e;
}

MlcExpr *mlc_e_int(MlcCtx *ctx, MlcDType t, int64_t v) {
  char buf[32];
  if (!mlc_dtype_is_int(t) && t.code != MLC_TC_BOOL) {
    mlc_error(ctx, (MlcLoc){0}, "integer immediate of non-integer dtype %s", mlc_dtype_str(t, buf));
    return NULL;
  }
  bool fits = true;
  if (t.code == MLC_TC_BOOL) fits = v == 0 || v == 1;
  else if (t.code == MLC_TC_INT && t.bits < 64) fits = v >= -(INT64_C(1) << (t.bits - 1)) && v < (INT64_C(1) << (t.bits - 1));
  else if (t.code == MLC_TC_UINT && t.bits < 64) fits = v >= 0 && v < (INT64_C(1) << t.bits);
  if (!fits) {
    mlc_error(ctx, (MlcLoc){0}, "value %lld is out of range for %s", (long long)v, mlc_dtype_str(t, buf));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_INT, t);
  e->int_val = v;
  return e;
}

MlcExpr *mlc_e_float(MlcCtx *ctx, MlcDType t, double v) {
  char buf[32];
  if (!mlc_dtype_is_float(t)) {
    mlc_error(ctx, (MlcLoc){0}, "float immediate of non-float dtype %s", mlc_dtype_str(t, buf));
    return NULL;
  }
  if (isfinite(v) && t.bits == 32 && fabs(v) > 3.4028234663852886e38) {
    mlc_error(ctx, (MlcLoc){0}, "value %g is out of range for float32", v);
    return NULL;
  }
  if (isfinite(v) && t.bits == 16 && t.code == MLC_TC_FLOAT && fabs(v) > 65504.0) {
    mlc_error(ctx, (MlcLoc){0}, "value %g is out of range for float16", v);
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_FLOAT, t);
  /* an immediate holds a value of its dtype, so it prints and folds as one */
  e->float_val = t.bits == 32 && t.code == MLC_TC_FLOAT ? (double)(float)v
                : mlc_dtype_is_minifloat(t)               ? mlc_minifloat_round(mlc_dtype_elem(t), v)
                                                          : v;
  return e;
}

MlcExpr *mlc_e_str(MlcCtx *ctx, const char *s) {
  MlcExpr *e = node(ctx, MLC_EXPR_STR, MLC_HANDLE);
  e->str_val = mlc_intern(ctx, s);
  return e;
}

MlcExpr *mlc_e_bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *a, MlcExpr *b) {
  if (!a || !b) return NULL;
  char ba[32], bb[32];
  const MlcBinOpInfo *info = &mlc_binop_info[op];
  const char *opname = info->py ? info->py : info->call;
  if (!mlc_dtype_eq(a->dtype, b->dtype)) {
    mlc_error(ctx, (MlcLoc){0}, "operands of '%s' have different dtypes: %s and %s", opname,
              mlc_dtype_str(a->dtype, ba), mlc_dtype_str(b->dtype, bb));
    return NULL;
  }
  MlcDType t = a->dtype;
  if (t.code == MLC_TC_HANDLE || t.code == MLC_TC_VOID) {
    mlc_error(ctx, (MlcLoc){0}, "operator '%s' does not apply to %s", opname, mlc_dtype_str(t, ba));
    return NULL;
  }
  if ((op == MLC_BIN_AND || op == MLC_BIN_OR) && t.code != MLC_TC_BOOL) {
    mlc_error(ctx, (MlcLoc){0}, "operator '%s' needs bool operands, got %s", opname, mlc_dtype_str(t, ba));
    return NULL;
  }
  if (t.code == MLC_TC_BOOL && !info->is_bool) {
    mlc_error(ctx, (MlcLoc){0}, "operator '%s' does not apply to %s", opname, mlc_dtype_str(t, ba));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_BINARY, info->is_bool ? mlc_dtype_with_lanes(MLC_BOOL, t.lanes) : t);
  e->bin.op = op;
  e->bin.a = a;
  e->bin.b = b;
  return e;
}

MlcExpr *mlc_e_not(MlcCtx *ctx, MlcExpr *a) {
  if (!a) return NULL;
  char buf[32];
  if (a->dtype.code != MLC_TC_BOOL) {
    mlc_error(ctx, (MlcLoc){0}, "'not' needs a bool operand, got %s", mlc_dtype_str(a->dtype, buf));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_NOT, a->dtype);
  e->operand = a;
  return e;
}

MlcExpr *mlc_e_neg(MlcCtx *ctx, MlcExpr *a) {
  if (!a) return NULL;
  char buf[32];
  if (!mlc_dtype_is_int(a->dtype) && !mlc_dtype_is_float(a->dtype)) {
    mlc_error(ctx, (MlcLoc){0}, "unary '-' does not apply to %s", mlc_dtype_str(a->dtype, buf));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_NEG, a->dtype);
  e->operand = a;
  return e;
}

MlcExpr *mlc_e_select(MlcCtx *ctx, MlcExpr *c, MlcExpr *t, MlcExpr *f) {
  if (!c || !t || !f) return NULL;
  char ba[32], bb[32];
  if (c->dtype.code != MLC_TC_BOOL) {
    mlc_error(ctx, (MlcLoc){0}, "select condition must be bool, got %s", mlc_dtype_str(c->dtype, ba));
    return NULL;
  }
  if (!mlc_dtype_eq(t->dtype, f->dtype)) {
    mlc_error(ctx, (MlcLoc){0}, "select branches have different dtypes: %s and %s",
              mlc_dtype_str(t->dtype, ba), mlc_dtype_str(f->dtype, bb));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_SELECT, t->dtype);
  e->select.cond = c;
  e->select.t = t;
  e->select.f = f;
  return e;
}

MlcExpr *mlc_e_cast(MlcCtx *ctx, MlcDType t, MlcExpr *a) {
  if (!a) return NULL;
  char ba[32], bb[32];
  if (t.code == MLC_TC_VOID || a->dtype.code == MLC_TC_VOID || t.lanes != a->dtype.lanes) {
    mlc_error(ctx, (MlcLoc){0}, "cannot cast %s to %s", mlc_dtype_str(a->dtype, ba), mlc_dtype_str(t, bb));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_CAST, t);
  e->operand = a;
  return e;
}

MlcExpr *mlc_e_load(MlcCtx *ctx, MlcBuffer *buf, MlcExpr **idx, int n) {
  if (!buf) return NULL;
  for (int i = 0; i < n; i++)
    if (!idx[i]) return NULL;
  if (n != buf->ndim) {
    mlc_error(ctx, (MlcLoc){0}, "buffer '%s' has rank %d but is indexed with %d %s", buf->name,
              buf->ndim, n, n == 1 ? "index" : "indices");
    return NULL;
  }
  int lanes = 1;
  for (int i = 0; i < n; i++) {
    char b[32];
    if (!mlc_dtype_is_int(idx[i]->dtype)) {
      mlc_error(ctx, (MlcLoc){0}, "index %d of buffer '%s' must be an integer, got %s", i,
                buf->name, mlc_dtype_str(idx[i]->dtype, b));
      return NULL;
    }
    if (idx[i]->dtype.lanes > 1) {
      if (lanes > 1 && lanes != idx[i]->dtype.lanes) {
        mlc_error(ctx, (MlcLoc){0}, "vector indices of buffer '%s' have different lanes", buf->name);
        return NULL;
      }
      lanes = idx[i]->dtype.lanes;
    }
  }
  MlcExpr *e = node(ctx, MLC_EXPR_LOAD, mlc_dtype_with_lanes(buf->dtype, buf->dtype.lanes * lanes));
  e->load.buf = buf;
  e->load.idx = n ? mlc_arena_dup(&ctx->arena, idx, (size_t)n * sizeof *idx) : NULL;
  e->load.n = n;
  return e;
}

MlcExpr *mlc_e_ramp(MlcCtx *ctx, MlcExpr *base, MlcExpr *stride, int lanes) {
  if (!base || !stride) return NULL;
  char ba[32], bb[32];
  if (!mlc_dtype_is_int(base->dtype) || !mlc_dtype_eq(base->dtype, stride->dtype) ||
      base->dtype.lanes != 1) {
    mlc_error(ctx, (MlcLoc){0}, "ramp needs scalar integer base and stride of one dtype, got %s and %s",
              mlc_dtype_str(base->dtype, ba), mlc_dtype_str(stride->dtype, bb));
    return NULL;
  }
  if (lanes < 2 || lanes > 1024) {
    mlc_error(ctx, (MlcLoc){0}, "ramp lanes must be in [2, 1024], got %d", lanes);
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_RAMP, mlc_dtype_with_lanes(base->dtype, lanes));
  e->ramp.base = base;
  e->ramp.stride = stride;
  e->ramp.lanes = lanes;
  return e;
}

MlcExpr *mlc_e_broadcast(MlcCtx *ctx, MlcExpr *v, int lanes) {
  if (!v) return NULL;
  if (v->dtype.lanes != 1 || lanes < 2 || lanes > 1024) {
    mlc_error(ctx, (MlcLoc){0}, "broadcast needs a scalar and lanes in [2, 1024], got %d lanes", lanes);
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_BROADCAST, mlc_dtype_with_lanes(v->dtype, lanes));
  e->bcast.value = v;
  e->bcast.lanes = lanes;
  return e;
}

MlcExpr *mlc_e_let(MlcCtx *ctx, MlcExpr *var, MlcExpr *value, MlcExpr *body) {
  if (!var || !value || !body) return NULL;
  char ba[32], bb[32];
  if (var->kind != MLC_EXPR_VAR) {
    mlc_error(ctx, (MlcLoc){0}, "let binds a variable, not an expression");
    return NULL;
  }
  if (!mlc_dtype_eq(var->dtype, value->dtype)) {
    mlc_error(ctx, (MlcLoc){0}, "let variable '%s' is %s but its value is %s", var->var.name,
              mlc_dtype_str(var->dtype, ba), mlc_dtype_str(value->dtype, bb));
    return NULL;
  }
  MlcExpr *e = node(ctx, MLC_EXPR_LET, body->dtype);
  e->let.var = var;
  e->let.value = value;
  e->let.body = body;
  return e;
}

MlcExpr *mlc_e_call(MlcCtx *ctx, MlcIntrin op, MlcExpr **args, int n) {
  const MlcIntrinInfo *info = &mlc_intrin_info[op];
  for (int i = 0; i < n; i++)
    if (!args[i]) return NULL;
  if (info->arity >= 0 && n != info->arity) {
    mlc_error(ctx, (MlcLoc){0}, "%s expects %d argument%s, got %d", info->name, info->arity,
              info->arity == 1 ? "" : "s", n);
    return NULL;
  }
  char ba[32], bb[32], bc[32];
  MlcDType t;
  if (info->rule == 2 || info->rule == 5)
    return mlc_error(ctx, (MlcLoc){0}, "%s needs its result dtype (mlc_e_call_typed)", info->name), NULL;
  if (info->rule == 3) { /* address_of(load) */
    if (args[0]->kind != MLC_EXPR_LOAD || args[0]->dtype.lanes != 1)
      return mlc_error(ctx, (MlcLoc){0}, "%s takes one scalar buffer element, such as A[0, 0]", info->name), NULL;
    t = MLC_HANDLE;
  } else if (info->rule == 1) { /* if_then_else(cond, a, b) */
    if (args[0]->dtype.code != MLC_TC_BOOL) {
      mlc_error(ctx, (MlcLoc){0}, "%s condition must be bool, got %s", info->name,
                mlc_dtype_str(args[0]->dtype, ba));
      return NULL;
    }
    if (!mlc_dtype_eq(args[1]->dtype, args[2]->dtype)) {
      mlc_error(ctx, (MlcLoc){0}, "%s branches have different dtypes: %s and %s", info->name,
                mlc_dtype_str(args[1]->dtype, ba), mlc_dtype_str(args[2]->dtype, bb));
      return NULL;
    }
    t = args[1]->dtype;
  } else if (info->rule == 6) { /* dot4_u8s8 / dot2_u8s8(acc, a, b), G bytes per lane */
    t = args[0]->dtype;
    MlcDType a = args[1]->dtype, b = args[2]->dtype;
    int g = mlc_intrin_dot_group(op);
    if (!mlc_dtype_eq(mlc_dtype_elem(t), MLC_I32) || !mlc_dtype_eq(a, MLC_DT(MLC_TC_UINT, 8, g)) ||
        b.code != MLC_TC_INT || b.bits != 8 || b.lanes != g * t.lanes) {
      mlc_error(ctx, (MlcLoc){0}, "%s takes int32xN, uint8x%d and int8x(%dN), got %s, %s and %s", info->name, g, g,
                mlc_dtype_str(t, ba), mlc_dtype_str(a, bb), mlc_dtype_str(b, bc));
      return NULL;
    }
  } else if (info->rule == 4) { /* checked_index(i, n): integers of one dtype */
    t = args[0]->dtype;
    if (!mlc_dtype_is_int(t) || !mlc_dtype_eq(mlc_dtype_elem(args[1]->dtype), mlc_dtype_elem(t))) {
      mlc_error(ctx, (MlcLoc){0}, "%s needs two integers of one dtype, got %s and %s", info->name,
                mlc_dtype_str(t, ba), mlc_dtype_str(args[1]->dtype, bb));
      return NULL;
    }
  } else {
    t = args[0]->dtype;
    if (!mlc_dtype_is_float(t)) {
      mlc_error(ctx, (MlcLoc){0}, "%s needs a float argument, got %s", info->name, mlc_dtype_str(t, ba));
      return NULL;
    }
    for (int i = 1; i < n; i++)
      if (!mlc_dtype_eq(args[i]->dtype, t)) {
        mlc_error(ctx, (MlcLoc){0}, "%s arguments have different dtypes: %s and %s", info->name,
                  mlc_dtype_str(t, ba), mlc_dtype_str(args[i]->dtype, bb));
        return NULL;
      }
  }
  MlcExpr *e = node(ctx, MLC_EXPR_CALL, t);
  e->call.op = op;
  e->call.args = n ? mlc_arena_dup(&ctx->arena, args, (size_t)n * sizeof *args) : NULL;
  e->call.n = n;
  return e;
}

MlcExpr *mlc_e_call_typed(MlcCtx *ctx, MlcIntrin op, MlcDType t, MlcExpr **args, int n) {
  const MlcIntrinInfo *info = &mlc_intrin_info[op];
  if (info->rule == 5) { /* reinterpret: the same storage size, lane for lane */
    char ba[32], bb[32];
    if (n != 1 || !args[0]) return n != 1 ? mlc_error(ctx, (MlcLoc){0}, "%s takes one value", info->name), NULL : NULL;
    MlcDType f = args[0]->dtype;
    bool num = (mlc_dtype_is_int(t) || mlc_dtype_is_float(t) || t.code == MLC_TC_BOOL) &&
               (mlc_dtype_is_int(f) || mlc_dtype_is_float(f) || f.code == MLC_TC_BOOL);
    if (!num || t.lanes != f.lanes || mlc_dtype_bytes(t) != mlc_dtype_bytes(f) || (t.bits < 8 && t.code != MLC_TC_BOOL))
      return mlc_error(ctx, (MlcLoc){0}, "%s cannot read %s as %s (both must be numbers of one size)", info->name,
                       mlc_dtype_str(f, ba), mlc_dtype_str(t, bb)), NULL;
    MlcExpr *e = node(ctx, MLC_EXPR_CALL, t);
    e->call.op = op;
    e->call.args = mlc_arena_dup(&ctx->arena, args, sizeof *args);
    e->call.n = 1;
    return e;
  }
  if (info->rule != 2) return mlc_e_call(ctx, op, args, n);
  for (int i = 0; i < n; i++)
    if (!args[i]) return NULL;
  if (n < 1 || args[0]->kind != MLC_EXPR_STR || !args[0]->str_val[0])
    return mlc_error(ctx, (MlcLoc){0}, "%s takes the function's name first", info->name), NULL;
  if (t.lanes != 1 || (!mlc_dtype_is_int(t) && !mlc_dtype_is_float(t) && t.code != MLC_TC_VOID &&
                       t.code != MLC_TC_HANDLE))
    return mlc_error(ctx, (MlcLoc){0}, "%s returns a scalar (or void)", info->name), NULL;
  for (int i = 1; i < n; i++)
    if (args[i]->dtype.lanes != 1 || args[i]->kind == MLC_EXPR_STR)
      return mlc_error(ctx, (MlcLoc){0}, "%s: argument %d must be a scalar number or an address", info->name, i), NULL;
  MlcExpr *e = node(ctx, MLC_EXPR_CALL, t);
  e->call.op = op;
  e->call.args = mlc_arena_dup(&ctx->arena, args, (size_t)n * sizeof *args);
  e->call.n = n;
  return e;
}

bool mlc_e_is_const_int(const MlcExpr *e, int64_t *v) {
  if (!e || e->kind != MLC_EXPR_INT) return false;
  if (v) *v = e->int_val;
  return true;
}
