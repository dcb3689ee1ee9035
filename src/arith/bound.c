/* bound.c - interval bounds of integer expressions, and proofs built on them.
 *
 * Interval arithmetic with saturation at +-infinity: coarse but sound, and
 * enough for the index expressions schedules produce (sums of loop vars times
 * constants, floordiv/floormod by constants, min/max). */
#include "mlcc/arith.h"

static const MlcIntSet EVERYTHING = {MLC_INT_NEG_INF, MLC_INT_POS_INF};

void mlc_arith_init(MlcAnalyzer *az, MlcCtx *ctx) {
  az->ctx = ctx;
  az->ranges = (MlcMap){0};
}

void mlc_arith_free(MlcAnalyzer *az) { mlc_map_free(&az->ranges); }

void mlc_arith_bind(MlcAnalyzer *az, const MlcExpr *var, int64_t min, int64_t extent) {
  MlcIntSet *s = mlc_arena_alloc(&az->ctx->arena, sizeof *s);
  s->min = min;
  s->max = extent > 0 && min <= INT64_MAX - (extent - 1) ? min + extent - 1 : min;
  mlc_map_put(&az->ranges, var, s);
}

void mlc_arith_unbind(MlcAnalyzer *az, const MlcExpr *var) { mlc_map_put(&az->ranges, var, NULL); }

static bool inf(int64_t v) { return v == MLC_INT_NEG_INF || v == MLC_INT_POS_INF; }

static int64_t sat_add(int64_t a, int64_t b) {
  if (inf(a)) return a;
  if (inf(b)) return b;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? MLC_INT_POS_INF : MLC_INT_NEG_INF;
  return r;
}

static int64_t sat_neg(int64_t a) {
  if (a == MLC_INT_NEG_INF) return MLC_INT_POS_INF;
  if (a == MLC_INT_POS_INF) return MLC_INT_NEG_INF;
  return -a;
}

static int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (inf(a) || inf(b)) return neg ? MLC_INT_NEG_INF : MLC_INT_POS_INF;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? MLC_INT_NEG_INF : MLC_INT_POS_INF;
  return r;
}

static int64_t floordiv_i(int64_t a, int64_t c) { /* c > 0 */
  if (inf(a)) return a;
  int64_t q = a / c;
  return (a % c != 0 && a < 0) ? q - 1 : q;
}

static MlcIntSet dtype_range(MlcDType t) {
  if (t.code == MLC_TC_BOOL) return (MlcIntSet){0, 1};
  if (t.code == MLC_TC_INT && t.bits < 64)
    return (MlcIntSet){-(INT64_C(1) << (t.bits - 1)), (INT64_C(1) << (t.bits - 1)) - 1};
  if (t.code == MLC_TC_UINT && t.bits < 64) return (MlcIntSet){0, (INT64_C(1) << t.bits) - 1};
  if (t.code == MLC_TC_UINT) return (MlcIntSet){0, MLC_INT_POS_INF};
  return EVERYTHING;
}

static MlcIntSet mul_sets(MlcIntSet a, MlcIntSet b) {
  int64_t p[4] = {sat_mul(a.min, b.min), sat_mul(a.min, b.max), sat_mul(a.max, b.min), sat_mul(a.max, b.max)};
  MlcIntSet r = {p[0], p[0]};
  for (int i = 1; i < 4; i++) {
    if (p[i] < r.min) r.min = p[i];
    if (p[i] > r.max) r.max = p[i];
  }
  return r;
}

static MlcIntSet decided(bool known, bool value) {
  return known ? (MlcIntSet){value, value} : (MlcIntSet){0, 1};
}

static MlcIntSet compare(MlcBinOp op, MlcIntSet a, MlcIntSet b) {
  switch (op) {
  case MLC_BIN_LT:
    if (a.max < b.min) return decided(true, true);
    return decided(a.min >= b.max, false);
  case MLC_BIN_LE:
    if (a.max <= b.min) return decided(true, true);
    return decided(a.min > b.max, false);
  case MLC_BIN_GT: return compare(MLC_BIN_LT, b, a);
  case MLC_BIN_GE: return compare(MLC_BIN_LE, b, a);
  case MLC_BIN_EQ:
    if (a.min == a.max && b.min == b.max && a.min == b.min && !inf(a.min)) return decided(true, true);
    return decided(a.max < b.min || b.max < a.min, false);
  case MLC_BIN_NE: {
    MlcIntSet eq = compare(MLC_BIN_EQ, a, b);
    return eq.min == eq.max ? decided(true, !eq.min) : eq;
  }
  default: return (MlcIntSet){0, 1};
  }
}

MlcIntSet mlc_arith_bound(MlcAnalyzer *az, const MlcExpr *e) {
  if (!e) return EVERYTHING;
  MlcIntSet full = dtype_range(e->dtype);
  if (mlc_dtype_is_float(e->dtype) || e->dtype.lanes != 1) return EVERYTHING;
  switch (e->kind) {
  case MLC_EXPR_INT: return (MlcIntSet){e->int_val, e->int_val};
  case MLC_EXPR_VAR: {
    const MlcIntSet *s = mlc_map_get(&az->ranges, e);
    return s ? *s : full;
  }
  case MLC_EXPR_BINARY: {
    MlcIntSet a = mlc_arith_bound(az, e->bin.a), b = mlc_arith_bound(az, e->bin.b);
    switch (e->bin.op) {
    case MLC_BIN_ADD: return (MlcIntSet){sat_add(a.min, b.min), sat_add(a.max, b.max)};
    case MLC_BIN_SUB: return (MlcIntSet){sat_add(a.min, sat_neg(b.max)), sat_add(a.max, sat_neg(b.min))};
    case MLC_BIN_MUL: return mul_sets(a, b);
    case MLC_BIN_FLOORDIV:
    case MLC_BIN_DIV:
      if (b.min == b.max && b.min > 0 && (e->bin.op == MLC_BIN_FLOORDIV || a.min >= 0))
        return (MlcIntSet){floordiv_i(a.min, b.min), floordiv_i(a.max, b.min)};
      return full;
    case MLC_BIN_FLOORMOD:
    case MLC_BIN_MOD:
      if (b.min == b.max && b.min > 0 && (e->bin.op == MLC_BIN_FLOORMOD || a.min >= 0)) {
        int64_t c = b.min;
        if (!inf(a.min) && !inf(a.max) && floordiv_i(a.min, c) == floordiv_i(a.max, c))
          return (MlcIntSet){a.min - floordiv_i(a.min, c) * c, a.max - floordiv_i(a.max, c) * c};
        return (MlcIntSet){0, c - 1};
      }
      return full;
    case MLC_BIN_MIN: return (MlcIntSet){a.min < b.min ? a.min : b.min, a.max < b.max ? a.max : b.max};
    case MLC_BIN_MAX: return (MlcIntSet){a.min > b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
    case MLC_BIN_EQ: case MLC_BIN_NE: case MLC_BIN_LT: case MLC_BIN_LE: case MLC_BIN_GT: case MLC_BIN_GE:
      return compare(e->bin.op, a, b);
    case MLC_BIN_AND:
      if (a.max == 0 || b.max == 0) return decided(true, false);
      return decided(a.min == 1 && b.min == 1, true);
    case MLC_BIN_OR:
      if (a.min == 1 || b.min == 1) return decided(true, true);
      return decided(a.max == 0 && b.max == 0, false);
    case MLC_BIN_COUNT: break;
    }
    return full;
  }
  case MLC_EXPR_NOT: {
    MlcIntSet a = mlc_arith_bound(az, e->operand);
    return a.min == a.max ? decided(true, !a.min) : (MlcIntSet){0, 1};
  }
  case MLC_EXPR_NEG: {
    MlcIntSet a = mlc_arith_bound(az, e->operand);
    return (MlcIntSet){sat_neg(a.max), sat_neg(a.min)};
  }
  case MLC_EXPR_SELECT: {
    MlcIntSet c = mlc_arith_bound(az, e->select.cond);
    MlcIntSet a = mlc_arith_bound(az, e->select.t), b = mlc_arith_bound(az, e->select.f);
    if (c.min == 1) return a;
    if (c.max == 0) return b;
    return (MlcIntSet){a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
  }
  case MLC_EXPR_CAST: {
    if (!mlc_dtype_is_int(e->operand->dtype) && e->operand->dtype.code != MLC_TC_BOOL) return full;
    MlcIntSet a = mlc_arith_bound(az, e->operand);
    return (a.min >= full.min && a.max <= full.max) ? a : full;
  }
  case MLC_EXPR_LET: return mlc_arith_bound(az, e->let.body);
  case MLC_EXPR_FLOAT: case MLC_EXPR_STR: case MLC_EXPR_LOAD: case MLC_EXPR_RAMP:
  case MLC_EXPR_BROADCAST: case MLC_EXPR_CALL:
    return full;
  }
  return full;
}

bool mlc_arith_prove(MlcAnalyzer *az, const MlcExpr *cond) {
  if (!cond || cond->dtype.code != MLC_TC_BOOL) return false;
  MlcIntSet s = mlc_arith_bound(az, cond);
  return s.min == 1;
}
