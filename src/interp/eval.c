/* eval.c - what values and expressions mean to the reference interpreter.
 *
 * Vector expressions are evaluated one lane at a time (a ramp's lane k is
 * base + k*stride), so every operator has a single scalar definition.  Float
 * arithmetic is done in double and rounded to the expression's width after
 * each operation, which for + - * / and sqrt gives the correctly rounded
 * float32 result C gives.  Integers wrap at their width.  eval_generic
 * defines every node; the specialized evaluators after it give the nodes
 * that dominate run time (var reads, affine index sums, float32 arithmetic
 * and loads) the same meaning with less dispatch. */
#include "interp_internal.h"

#include <math.h>
#include <string.h>

/* ---- scalar semantics ----------------------------------------------------- */

static double round_float(MlcDType t, double v) {
  if (t.code == MLC_TC_BFLOAT) {
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, 4);
    if (!isnan(f)) x += 0x7fff + ((x >> 16) & 1);
    x &= 0xffff0000u;
    memcpy(&f, &x, 4);
    return f;
  }
  if (mlc_dtype_is_minifloat(t)) return mlc_minifloat_round(mlc_dtype_elem(t), v);
  if (t.bits == 32) return (float)v;
  if (t.bits == 16) return mlc_f16_to_f32(mlc_f32_to_f16((float)v));
  return v;
}

int64_t interp_wrap_int(MlcDType t, int64_t v) {
  if (t.code == MLC_TC_BOOL) return v != 0;
  if (t.bits >= 64 || t.bits == 0) return v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1, u = (uint64_t)v & mask;
  if (t.code == MLC_TC_UINT) return (int64_t)u;
  if (u >> (t.bits - 1)) u |= ~mask;
  return (int64_t)u;
}

Val interp_make(MlcDType t, int64_t i, double f) {
  Val v = {0, 0};
  if (mlc_dtype_is_float(t)) v.f = round_float(t, f);
  else v.i = interp_wrap_int(t, i);
  return v;
}

static double as_f(MlcDType t, Val v) {
  if (mlc_dtype_is_float(t)) return v.f;
  if (t.code == MLC_TC_UINT) return (double)(uint64_t)v.i;
  return (double)v.i;
}

/* ---- memory ----------------------------------------------------------------- */

static Val load_elem(MlcDType t, const char *p) {
  Val v = {0, 0};
  switch ((MlcTypeCode)t.code) {
  case MLC_TC_FLOAT:
    if (t.bits == 32) { float f; memcpy(&f, p, 4); v.f = f; }
    else if (t.bits == 64) memcpy(&v.f, p, 8);
    else { uint16_t h; memcpy(&h, p, 2); v.f = mlc_f16_to_f32(h); }
    break;
  case MLC_TC_BFLOAT: {
    uint16_t h; memcpy(&h, p, 2);
    uint32_t x = (uint32_t)h << 16; float f; memcpy(&f, &x, 4); v.f = f;
    break;
  }
  MLC_TC_MINIFLOAT_CASES: v.f = mlc_minifloat_decode(mlc_dtype_elem(t), *(const uint8_t *)p); break;
  case MLC_TC_BOOL: v.i = *(const unsigned char *)p != 0; break;
  case MLC_TC_INT: case MLC_TC_UINT: case MLC_TC_HANDLE: case MLC_TC_VOID: {
    switch (t.bits) {
    case 2: case 4: /* sub-byte integers: one per byte, sign- or zero-extended */
    case 8: v.i = t.code == MLC_TC_INT ? (int64_t)*(const int8_t *)p : (int64_t)*(const uint8_t *)p; break;
    case 16: { int16_t s; uint16_t u; memcpy(&s, p, 2); memcpy(&u, p, 2); v.i = t.code == MLC_TC_INT ? s : u; break; }
    case 32: { int32_t s; uint32_t u; memcpy(&s, p, 4); memcpy(&u, p, 4); v.i = t.code == MLC_TC_INT ? s : (int64_t)u; break; }
    default: memcpy(&v.i, p, 8); break;
    }
    break;
  }
  }
  return v;
}

void interp_store_elem(MlcDType t, char *p, Val v) {
  switch ((MlcTypeCode)t.code) {
  case MLC_TC_FLOAT:
    if (t.bits == 32) { float f = (float)v.f; memcpy(p, &f, 4); }
    else if (t.bits == 64) memcpy(p, &v.f, 8);
    else { uint16_t h = mlc_f32_to_f16((float)v.f); memcpy(p, &h, 2); }
    break;
  case MLC_TC_BFLOAT: {
    float f = (float)round_float(t, v.f); uint32_t x; memcpy(&x, &f, 4);
    uint16_t h = (uint16_t)(x >> 16); memcpy(p, &h, 2);
    break;
  }
  MLC_TC_MINIFLOAT_CASES: *(uint8_t *)p = (uint8_t)mlc_minifloat_encode(mlc_dtype_elem(t), (float)v.f); break;
  case MLC_TC_BOOL: *(unsigned char *)p = v.i != 0; break;
  case MLC_TC_INT: case MLC_TC_UINT: case MLC_TC_HANDLE: case MLC_TC_VOID:
    switch (t.bits) {
    case 2: case 4:
    case 8: { int8_t s = (int8_t)v.i; memcpy(p, &s, 1); break; }
    case 16: { int16_t s = (int16_t)v.i; memcpy(p, &s, 2); break; }
    case 32: { int32_t s = (int32_t)v.i; memcpy(p, &s, 4); break; }
    default: memcpy(p, &v.i, 8); break;
    }
    break;
  }
}

/* ---- expressions ------------------------------------------------------------ */

static Val unbound(Interp *in, const MlcExpr *var) {
  interp_fail(in, "var '%s' has no value here", var->var.name);
  return (Val){0, 0};
}

/* wrap_int for the index widths, without its general case */
static inline int64_t wrap_index(MlcDType t, uint64_t v) {
  if (t.bits == 64) return (int64_t)v;
  if (t.bits == 32 && t.code == MLC_TC_INT) return (int32_t)(uint32_t)v;
  return interp_wrap_int(t, (int64_t)v);
}

static inline bool affine_value(Interp *in, const Affine *a, int lane, int64_t *out) {
  uint64_t acc = (uint64_t)a->k;
  for (int t = 0; t < a->n; t++) {
    const Slot *sl = &in->vars[a->slot[t]];
    if (!sl->lanes) return unbound(in, a->var[t]), false;
    acc += (uint64_t)a->coef[t] * (uint64_t)sl->lanes[sl->n > 1 ? lane : 0].i;
  }
  *out = wrap_index(a->t, acc);
  return true;
}

/* the message of a refused access (kept out of elem_index, which is hot) */
static bool out_of_bounds(Interp *in, int slot, int d, int64_t k) {
  const BufBind *bb = in->bound[slot];
  const MlcBuffer *buf = in->bufs.data[slot]->buf;
  if (!bb) return interp_fail(in, "buffer '%s' is used where it is not allocated", buf->name);
  if (d >= 0)
    return interp_fail(in, "index %lld is out of bounds for dimension %d of buffer '%s' (extent %lld)", (long long)k, d,
                buf->name, (long long)bb->shape[d]);
  return interp_fail(in, "access to buffer '%s' at element %lld is outside its %lld elements", buf->name, (long long)k,
              (long long)bb->numel);
}

bool interp_elem_index(Interp *in, int slot, CExpr *const *idx, Affine *const *aff, int n, int lane,
                       const BufBind **bb_out, int64_t *off) {
  const BufBind *bb = in->bound[slot];
  if (!bb) return out_of_bounds(in, slot, 0, 0);
  int64_t o = bb->offset;
  for (int d = 0; d < n; d++) {
    int64_t k;
    if (aff ? !affine_value(in, aff[d], lane, &k) : !interp_eval_int(in, idx[d], lane, &k)) return false;
    if (k < 0 || k >= bb->shape[d]) return out_of_bounds(in, slot, d, k);
    o += k * bb->strides[d];
  }
  if (o < 0 || o >= bb->numel) return out_of_bounds(in, slot, -1, o);
  *bb_out = bb;
  *off = o;
  return true;
}

/* Integer division with the meaning compiled code gives it (c_expr.c): by
 * zero is an error, and so is the most negative value of a signed dtype
 * divided by -1, whose quotient does not fit; its remainder is 0. */
static Val int_divmod(Interp *in, MlcBinOp op, MlcDType r, bool u, int64_t p, int64_t q) {
  Val zero = {0, 0};
  bool div = op == MLC_BIN_DIV || op == MLC_BIN_FLOORDIV;
  if (q == 0) {
    interp_fail(in, MLC_DIV_BY_ZERO_MSG);
    return zero;
  }
  if (u) return interp_make(r, (int64_t)(div ? (uint64_t)p / (uint64_t)q : (uint64_t)p % (uint64_t)q), 0);
  if (q == -1) {
    int64_t min = r.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (r.bits - 1));
    if (!div) return interp_make(r, 0, 0);
    if (p == min) {
      interp_fail(in, MLC_DIV_OVERFLOW_MSG);
      return zero;
    }
    return interp_make(r, -p, 0);
  }
  int64_t tq = p / q, tr = p % q;
  if (op == MLC_BIN_DIV) return interp_make(r, tq, 0);
  if (op == MLC_BIN_MOD) return interp_make(r, tr, 0);
  bool adjust = tr != 0 && ((tr < 0) != (q < 0));
  if (op == MLC_BIN_FLOORDIV) return interp_make(r, adjust ? tq - 1 : tq, 0);
  return interp_make(r, adjust ? tr + q : tr, 0);
}

static Val binary(Interp *in, const MlcExpr *e, Val a, Val b) {
  MlcDType t = e->bin.a->dtype;
  bool fl = mlc_dtype_is_float(t), u = t.code == MLC_TC_UINT;
  MlcDType r = e->dtype;
  double x = as_f(t, a), y = as_f(t, b);
  int64_t p = a.i, q = b.i;
  Val zero = {0, 0};
  switch (e->bin.op) {
  case MLC_BIN_ADD: return interp_make(r, (int64_t)((uint64_t)p + (uint64_t)q), x + y);
  case MLC_BIN_SUB: return interp_make(r, (int64_t)((uint64_t)p - (uint64_t)q), x - y);
  case MLC_BIN_MUL: return interp_make(r, (int64_t)((uint64_t)p * (uint64_t)q), x * y);
  case MLC_BIN_DIV: case MLC_BIN_MOD: case MLC_BIN_FLOORDIV: case MLC_BIN_FLOORMOD:
    if (!fl) return int_divmod(in, e->bin.op, r, u, p, q);
    if (e->bin.op == MLC_BIN_DIV) return interp_make(r, 0, x / y);
    if (e->bin.op == MLC_BIN_FLOORDIV) return interp_make(r, 0, floor(x / y));
    if (e->bin.op == MLC_BIN_MOD) return interp_make(r, 0, fmod(x, y));
    return interp_make(r, 0, x - floor(x / y) * y);
  case MLC_BIN_MIN: return fl ? interp_make(r, 0, fmin(x, y)) : interp_make(r, u ? ((uint64_t)p < (uint64_t)q ? p : q) : (p < q ? p : q), 0);
  case MLC_BIN_MAX: return fl ? interp_make(r, 0, fmax(x, y)) : interp_make(r, u ? ((uint64_t)p > (uint64_t)q ? p : q) : (p > q ? p : q), 0);
  case MLC_BIN_EQ: return interp_make(r, fl ? x == y : p == q, 0);
  case MLC_BIN_NE: return interp_make(r, fl ? x != y : p != q, 0);
  case MLC_BIN_LT: return interp_make(r, fl ? x < y : u ? (uint64_t)p < (uint64_t)q : p < q, 0);
  case MLC_BIN_LE: return interp_make(r, fl ? x <= y : u ? (uint64_t)p <= (uint64_t)q : p <= q, 0);
  case MLC_BIN_GT: return interp_make(r, fl ? x > y : u ? (uint64_t)p > (uint64_t)q : p > q, 0);
  case MLC_BIN_GE: return interp_make(r, fl ? x >= y : u ? (uint64_t)p >= (uint64_t)q : p >= q, 0);
  case MLC_BIN_AND: return interp_make(r, p && q, 0);
  case MLC_BIN_OR: return interp_make(r, p || q, 0);
  case MLC_BIN_COUNT: break;
  }
  return zero;
}

static Val call(Interp *in, const CExpr *c, int lane) {
  const MlcExpr *e = c->e;
  if (e->call.op == MLC_INTRIN_IF_THEN_ELSE) /* only the taken branch is evaluated */
    return interp_eval(in, interp_eval(in, c->k[0], lane).i ? c->k[1] : c->k[2], lane);
  if (e->call.op == MLC_INTRIN_CALL_EXTERN || e->call.op == MLC_INTRIN_CALL_PACKED ||
      e->call.op == MLC_INTRIN_ADDRESS_OF) {
    /* code outside the program: the built code is checked against the
     * interpreter's run of the program before it was tensorized */
    interp_fail(in, "%s%s%s cannot be interpreted: it runs code outside the program (compare the built code "
                "with the program before tensorize)", mlc_intrin_info[e->call.op].name,
                e->call.op == MLC_INTRIN_ADDRESS_OF ? "" : " of ",
                e->call.op == MLC_INTRIN_ADDRESS_OF ? "" : e->call.args[0]->str_val);
    return (Val){0, 0};
  }
  if (e->call.op == MLC_INTRIN_REINTERPRET) { /* the stored bytes of one dtype read as another */
    char bytes[8] = {0};
    interp_store_elem(mlc_dtype_elem(e->call.args[0]->dtype), bytes, interp_eval(in, c->k[0], lane));
    return load_elem(mlc_dtype_elem(e->dtype), bytes);
  }
  int g = mlc_intrin_dot_group(e->call.op);
  if (g) { /* lane l reads a's g lanes and b's lanes g*l..g*l+g-1 */
    uint64_t acc = (uint64_t)interp_eval(in, c->k[0], lane).i;
    for (int k = 0; k < g; k++)
      acc += (uint64_t)(interp_eval(in, c->k[1], k).i * interp_eval(in, c->k[2], g * lane + k).i);
    return interp_make(e->dtype, (int64_t)acc, 0);
  }
  if (e->call.op == MLC_INTRIN_CHECKED_INDEX) {
    Val i = interp_eval(in, c->k[0], lane), n = interp_eval(in, c->k[1], lane);
    if (i.i < 0 || i.i >= n.i) {
      interp_fail(in, MLC_INDEX_RANGE_MSG);
      return (Val){0, 0};
    }
    return i;
  }
  double x = as_f(e->call.args[0]->dtype, interp_eval(in, c->k[0], lane));
  double y = e->call.n > 1 ? as_f(e->call.args[1]->dtype, interp_eval(in, c->k[1], lane)) : 0;
  double r = 0;
  switch (e->call.op) {
  case MLC_INTRIN_EXP: r = exp(x); break;
  case MLC_INTRIN_LOG: r = log(x); break;
  case MLC_INTRIN_SQRT: r = sqrt(x); break;
  case MLC_INTRIN_RSQRT: r = 1.0 / sqrt(x); break;
  case MLC_INTRIN_TANH: r = tanh(x); break;
  case MLC_INTRIN_ERF: r = erf(x); break;
  case MLC_INTRIN_SIGMOID: r = 1.0 / (1.0 + exp(-x)); break;
  case MLC_INTRIN_FABS: r = fabs(x); break;
  case MLC_INTRIN_FLOOR: r = floor(x); break;
  case MLC_INTRIN_CEIL: r = ceil(x); break;
  case MLC_INTRIN_ROUND: r = nearbyint(x); break;
  case MLC_INTRIN_SIN: r = sin(x); break;
  case MLC_INTRIN_COS: r = cos(x); break;
  case MLC_INTRIN_POW: r = pow(x, y); break;
  case MLC_INTRIN_IF_THEN_ELSE: case MLC_INTRIN_CALL_EXTERN: case MLC_INTRIN_CALL_PACKED:
  case MLC_INTRIN_ADDRESS_OF: case MLC_INTRIN_CHECKED_INDEX: case MLC_INTRIN_REINTERPRET: case MLC_INTRIN_DOT4_U8S8:
  case MLC_INTRIN_DOT2_U8S8:
  case MLC_INTRIN_COUNT: break;
  }
  if (mlc_dtype_is_float(e->dtype)) return interp_make(e->dtype, 0, r);
  return interp_make(e->dtype, isfinite(r) && fabs(r) < 9.2e18 ? (int64_t)r : 0, 0);
}

static Val cast(const MlcExpr *e, Val a) {
  MlcDType from = e->operand->dtype, to = e->dtype;
  if (mlc_dtype_is_float(to)) return interp_make(to, 0, as_f(from, a));
  if (to.code == MLC_TC_BOOL) return interp_make(to, mlc_dtype_is_float(from) ? a.f != 0 : a.i != 0, 0);
  if (mlc_dtype_is_float(from)) {
    /* out of range is undefined in C; the interpreter says 0 */
    return interp_make(to, mlc_f64_to_i64(a.f), 0);
  }
  return interp_make(to, a.i, 0);
}

static Val eval_generic(Interp *in, const CExpr *c, int lane) {
  Val zero = {0, 0};
  if (in->failed) return zero;
  const MlcExpr *e = c->e;
  switch (e->kind) {
  case MLC_EXPR_VAR: {
    const Slot *sl = &in->vars[c->slot];
    if (!sl->lanes) {
      interp_fail(in, "var '%s' has no value here", e->var.name);
      return zero;
    }
    return sl->lanes[sl->n > 1 ? lane : 0];
  }
  case MLC_EXPR_INT: case MLC_EXPR_FLOAT: return c->imm;
  case MLC_EXPR_STR: return zero;
  case MLC_EXPR_BINARY: {
    Val a = interp_eval(in, c->k[0], lane);
    /* and/or short-circuit like the generated C does */
    if (e->bin.op == MLC_BIN_AND && !a.i) return interp_make(e->dtype, 0, 0);
    if (e->bin.op == MLC_BIN_OR && a.i) return interp_make(e->dtype, 1, 0);
    Val b = interp_eval(in, c->k[1], lane);
    return in->failed ? zero : binary(in, e, a, b);
  }
  case MLC_EXPR_NOT: return interp_make(e->dtype, !interp_eval(in, c->k[0], lane).i, 0);
  case MLC_EXPR_NEG: {
    Val a = interp_eval(in, c->k[0], lane);
    return interp_make(e->dtype, (int64_t)(0 - (uint64_t)a.i), -a.f);
  }
  case MLC_EXPR_SELECT: { /* both sides are evaluated, as T.Select says */
    Val cv = interp_eval(in, c->k[0], lane), t = interp_eval(in, c->k[1], lane), f = interp_eval(in, c->k[2], lane);
    return cv.i ? t : f;
  }
  case MLC_EXPR_CAST: return cast(e, interp_eval(in, c->k[0], lane));
  case MLC_EXPR_LOAD: {
    const BufBind *bb;
    int64_t off;
    if (!interp_elem_index(in, c->slot, c->k, c->idx, e->load.n, lane, &bb, &off)) return zero;
    MlcDType et = mlc_dtype_elem(e->load.buf->dtype);
    return load_elem(et, bb->data + (size_t)off * mlc_dtype_bytes(et));
  }
  case MLC_EXPR_RAMP: {
    Val b = interp_eval(in, c->k[0], 0), s = interp_eval(in, c->k[1], 0);
    return interp_make(e->dtype, (int64_t)((uint64_t)b.i + (uint64_t)lane * (uint64_t)s.i), 0);
  }
  case MLC_EXPR_BROADCAST: return interp_eval(in, c->k[0], 0);
  case MLC_EXPR_LET: {
    Slot *sl = &in->vars[c->slot], old = *sl;
    Val v = interp_eval(in, c->k[0], lane);
    *sl = (Slot){&v, 1};
    Val r = interp_eval(in, c->k[1], lane);
    *sl = old;
    return r;
  }
  case MLC_EXPR_CALL: return call(in, c, lane);
  }
  return zero;
}

/* ---- specialized evaluators -------------------------------------------------------
 * The same semantics as eval_generic for the nodes that dominate run time;
 * chosen once per node while mirroring. */

static Val ev_var(Interp *in, const CExpr *c, int lane) {
  const Slot *sl = &in->vars[c->slot];
  if (!sl->lanes) return unbound(in, c->e);
  return sl->lanes[sl->n > 1 ? lane : 0];
}

static Val ev_imm(Interp *in, const CExpr *c, int lane) { return c->imm; }

static Val ev_affine(Interp *in, const CExpr *c, int lane) {
  Val v = {0, 0};
  affine_value(in, c->aff, lane, &v.i);
  return v;
}

/* float32 arithmetic: a double result of float operands rounded once is the
 * float result (see the top of the file) */
#define F32_OPS(X) X(ADD, add, +) X(SUB, sub, -) X(MUL, mul, *) X(DIV, div, /)
#define X(OP, name, op)                                                \
  static Val ev_##name##_f32(Interp *in, const CExpr *c, int lane) { \
    Val a = interp_eval(in, c->k[0], lane), b = interp_eval(in, c->k[1], lane);    \
    return (Val){0, (float)(a.f op b.f)};                            \
  }
F32_OPS(X)
#undef X

static Val ev_load_f32(Interp *in, const CExpr *c, int lane) {
  const BufBind *bb;
  int64_t off;
  if (!interp_elem_index(in, c->slot, c->k, c->idx, c->e->load.n, lane, &bb, &off)) return (Val){0, 0};
  float f;
  memcpy(&f, bb->data + (size_t)off * 4, 4);
  return (Val){0, f};
}

/* Collect e * scale into a; false when e is not an affine sum of scalar
 * vars with at most MAX_TERMS terms. */
static bool collect_affine(Interp *in, const MlcExpr *e, int64_t scale, Affine *a) {
  int64_t c;
  switch (e->kind) {
  case MLC_EXPR_INT: a->k = (int64_t)((uint64_t)a->k + (uint64_t)e->int_val * (uint64_t)scale); return true;
  case MLC_EXPR_VAR: {
    int slot = interp_var_slot(in, e);
    for (int t = 0; t < a->n; t++)
      if (a->slot[t] == slot) return a->coef[t] = (int64_t)((uint64_t)a->coef[t] + (uint64_t)scale), true;
    if (a->n == MAX_TERMS || e->dtype.lanes != 1) return false;
    a->slot[a->n] = slot, a->coef[a->n] = scale, a->var[a->n++] = e;
    return true;
  }
  case MLC_EXPR_NEG: return collect_affine(in, e->operand, (int64_t)(0 - (uint64_t)scale), a);
  case MLC_EXPR_BINARY:
    if (e->bin.op == MLC_BIN_ADD || e->bin.op == MLC_BIN_SUB)
      return collect_affine(in, e->bin.a, scale, a) &&
             collect_affine(in, e->bin.b, e->bin.op == MLC_BIN_ADD ? scale : (int64_t)(0 - (uint64_t)scale), a);
    if (e->bin.op == MLC_BIN_MUL && mlc_e_is_const_int(e->bin.b, &c))
      return collect_affine(in, e->bin.a, (int64_t)((uint64_t)scale * (uint64_t)c), a);
    if (e->bin.op == MLC_BIN_MUL && mlc_e_is_const_int(e->bin.a, &c))
      return collect_affine(in, e->bin.b, (int64_t)((uint64_t)scale * (uint64_t)c), a);
    return false;
  default: return false;
  }
}

/* e as an affine sum (in the arena), or NULL */
static Affine *affine_of(Interp *in, const MlcExpr *e) {
  Affine a = {.t = e->dtype};
  if (e->dtype.code != MLC_TC_INT || e->dtype.lanes != 1 || !collect_affine(in, e, 1, &a)) return NULL;
  return mlc_arena_dup(&in->arena, &a, sizeof a);
}

Affine **interp_affine_indices(Interp *in, MlcExpr *const *idx, int n) {
  Affine **a = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *a);
  for (int d = 0; d < n; d++)
    if (!(a[d] = affine_of(in, idx[d]))) return NULL;
  return a;
}

static bool is_f32(MlcDType t) { return t.code == MLC_TC_FLOAT && t.bits == 32; }

void interp_specialize(Interp *in, CExpr *c) {
  const MlcExpr *e = c->e;
  c->fn = eval_generic;
  switch (e->kind) {
  case MLC_EXPR_VAR: c->fn = ev_var; return;
  case MLC_EXPR_INT: case MLC_EXPR_FLOAT: c->fn = ev_imm; return;
  case MLC_EXPR_LOAD:
    c->idx = interp_affine_indices(in, e->load.idx, e->load.n);
    if (is_f32(e->load.buf->dtype)) c->fn = ev_load_f32;
    return;
  case MLC_EXPR_BINARY:
    if (e->dtype.code == MLC_TC_INT && e->dtype.lanes == 1) {
      if ((c->aff = affine_of(in, e))) c->fn = ev_affine;
      return;
    }
    if (!is_f32(e->bin.a->dtype)) return;
    switch (e->bin.op) {
#define X(OP, name, op) case MLC_BIN_##OP: c->fn = ev_##name##_f32; return;
      F32_OPS(X)
#undef X
    default: return;
    }
  default: return;
  }
}
