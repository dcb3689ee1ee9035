/* affine.c - what the lowering stages that reorder or copy memory ask of an
 * index: whether it uses a loop var, and by what constant it moves when the
 * var moves. */
#include "mlcc/lower.h"

static bool uses_var_all(MlcExpr *const *es, int n, const MlcExpr *v);

static bool uses_var_all(MlcExpr *const *es, int n, const MlcExpr *v) {
  for (int i = 0; i < n; i++)
    if (mlc_lower_uses_var(es[i], v)) return true;
  return false;
}

bool mlc_lower_uses_var(const MlcExpr *e, const MlcExpr *v) {
  if (!e) return false;
  switch (e->kind) {
  case MLC_EXPR_VAR: return e == v;
  case MLC_EXPR_INT: case MLC_EXPR_FLOAT: case MLC_EXPR_STR: return false;
  case MLC_EXPR_BINARY: return mlc_lower_uses_var(e->bin.a, v) || mlc_lower_uses_var(e->bin.b, v);
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: return mlc_lower_uses_var(e->operand, v);
  case MLC_EXPR_SELECT: return mlc_lower_uses_var(e->select.cond, v) || mlc_lower_uses_var(e->select.t, v) || mlc_lower_uses_var(e->select.f, v);
  case MLC_EXPR_LOAD: return uses_var_all(e->load.idx, e->load.n, v);
  case MLC_EXPR_RAMP: return mlc_lower_uses_var(e->ramp.base, v) || mlc_lower_uses_var(e->ramp.stride, v);
  case MLC_EXPR_BROADCAST: return mlc_lower_uses_var(e->bcast.value, v);
  case MLC_EXPR_LET: return mlc_lower_uses_var(e->let.value, v) || mlc_lower_uses_var(e->let.body, v);
  case MLC_EXPR_CALL: return uses_var_all(e->call.args, e->call.n, v);
  }
  return true;
}

/* the constant coefficient of v in e; false when e is not coef * v + terms
 * without v */
bool mlc_lower_coef_of(const MlcExpr *e, const MlcExpr *v, int64_t *coef) {
  int64_t a, b, k;
  switch (e->kind) {
  case MLC_EXPR_VAR: *coef = e == v; return true;
  case MLC_EXPR_CAST:
    if (e->dtype.code != MLC_TC_INT || e->operand->dtype.code != MLC_TC_INT) break;
    return mlc_lower_coef_of(e->operand, v, coef);
  case MLC_EXPR_BINARY:
    if (e->bin.op == MLC_BIN_ADD || e->bin.op == MLC_BIN_SUB) {
      if (!mlc_lower_coef_of(e->bin.a, v, &a) || !mlc_lower_coef_of(e->bin.b, v, &b)) return false;
      return !(e->bin.op == MLC_BIN_ADD ? __builtin_add_overflow(a, b, coef) : __builtin_sub_overflow(a, b, coef));
    }
    if (e->bin.op == MLC_BIN_MUL) {
      if (mlc_e_is_const_int(e->bin.b, &k) && mlc_lower_coef_of(e->bin.a, v, &a)) return !__builtin_mul_overflow(a, k, coef);
      if (mlc_e_is_const_int(e->bin.a, &k) && mlc_lower_coef_of(e->bin.b, v, &b)) return !__builtin_mul_overflow(b, k, coef);
    }
    break;
  default: break;
  }
  *coef = 0;
  return !mlc_lower_uses_var(e, v);
}

