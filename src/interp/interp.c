/* interp.c - the reference interpreter of TIR (see include/mlcc/interp.h).
 *
 * A tree walker over immutable IR.  Vector expressions are evaluated one lane
 * at a time (a ramp's lane k is base + k*stride), so every operator has a
 * single scalar definition.  Float arithmetic is done in double and rounded
 * to the expression's width after each operation, which for + - * / and
 * sqrt gives the correctly rounded float32 result C gives. */
#include "mlcc/interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Val { int64_t i; double f; } Val;

typedef struct Binding { Val *lanes; int n; } Binding;

typedef struct BufBind {
  char *data;
  int64_t *shape, *strides; /* in elements */
  int64_t offset;           /* in elements */
  int64_t numel;            /* elements addressable from data */
  bool owned;
} BufBind;

typedef struct Interp {
  MlcCtx *ctx;
  const MlcPrimFunc *func;
  MlcMap vars;   /* var -> Binding* */
  MlcMap bufs;   /* buffer -> BufBind* */
  bool failed;
} Interp;

/* Record "function 'f': <message>" once; later failures add nothing. */
static bool fail(Interp *in, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool fail(Interp *in, const char *fmt, ...) {
  if (!in->failed) {
    MlcStrBuf sb = {0};
    va_list ap;
    va_start(ap, fmt);
    mlc_sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    mlc_error(in->ctx, (MlcLoc){0}, "function '%s': %s", in->func->name, mlc_sb_cstr(&sb));
    mlc_vec_free(&sb);
  }
  in->failed = true;
  return false;
}

/* ---- scalar semantics ----------------------------------------------------- */

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;
  if (exp == 0) {
    if (man == 0) bits = sign;
    else { /* subnormal */
      float f = ldexpf((float)man, -24);
      return sign ? -f : f;
    }
  } else if (exp == 31) bits = sign | 0x7f800000u | (man << 13);
  else bits = sign | ((exp + 112) << 23) | (man << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  float a = fabsf(f);
  if (isnan(f)) return (uint16_t)(sign | 0x7e00);
  if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00);
  if (a < 6.103515625e-05f) { /* subnormal half: round to a multiple of 2^-24 */
    return (uint16_t)(sign | (uint32_t)nearbyintf(a * 16777216.0f));
  }
  uint32_t m = x & 0x7fffffff;
  uint32_t e = (m >> 23) - 112, man = m & 0x7fffff;
  uint32_t h = (e << 10) | (man >> 13), rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

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
  if (t.bits == 32) return (float)v;
  if (t.bits == 16) return half_to_float(float_to_half((float)v));
  return v;
}

static int64_t wrap_int(MlcDType t, int64_t v) {
  if (t.code == MLC_TC_BOOL) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1, u = (uint64_t)v & mask;
  if (t.code == MLC_TC_UINT) return (int64_t)u;
  if (u >> (t.bits - 1)) u |= ~mask;
  return (int64_t)u;
}

static Val make(MlcDType t, int64_t i, double f) {
  Val v = {0, 0};
  if (mlc_dtype_is_float(t)) v.f = round_float(t, f);
  else v.i = wrap_int(t, i);
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
    else { uint16_t h; memcpy(&h, p, 2); v.f = half_to_float(h); }
    break;
  case MLC_TC_BFLOAT: {
    uint16_t h; memcpy(&h, p, 2);
    uint32_t x = (uint32_t)h << 16; float f; memcpy(&f, &x, 4); v.f = f;
    break;
  }
  case MLC_TC_BOOL: v.i = *(const unsigned char *)p != 0; break;
  case MLC_TC_INT: case MLC_TC_UINT: case MLC_TC_HANDLE: case MLC_TC_VOID: {
    switch (t.bits) {
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

static void store_elem(MlcDType t, char *p, Val v) {
  switch ((MlcTypeCode)t.code) {
  case MLC_TC_FLOAT:
    if (t.bits == 32) { float f = (float)v.f; memcpy(p, &f, 4); }
    else if (t.bits == 64) memcpy(p, &v.f, 8);
    else { uint16_t h = float_to_half((float)v.f); memcpy(p, &h, 2); }
    break;
  case MLC_TC_BFLOAT: {
    float f = (float)round_float(t, v.f); uint32_t x; memcpy(&x, &f, 4);
    uint16_t h = (uint16_t)(x >> 16); memcpy(p, &h, 2);
    break;
  }
  case MLC_TC_BOOL: *(unsigned char *)p = v.i != 0; break;
  case MLC_TC_INT: case MLC_TC_UINT: case MLC_TC_HANDLE: case MLC_TC_VOID:
    switch (t.bits) {
    case 8: { int8_t s = (int8_t)v.i; memcpy(p, &s, 1); break; }
    case 16: { int16_t s = (int16_t)v.i; memcpy(p, &s, 2); break; }
    case 32: { int32_t s = (int32_t)v.i; memcpy(p, &s, 4); break; }
    default: memcpy(p, &v.i, 8); break;
    }
    break;
  }
}

/* ---- expressions ------------------------------------------------------------ */

static Val eval(Interp *in, const MlcExpr *e, int lane);

static bool eval_int(Interp *in, const MlcExpr *e, int lane, int64_t *out) {
  Val v = eval(in, e, lane);
  *out = v.i;
  return !in->failed;
}

/* element offset of an access, bounds-checked per dimension */
static bool elem_index(Interp *in, const MlcBuffer *buf, MlcExpr *const *idx, int n, int lane,
                       const BufBind **bb_out, int64_t *off) {
  const BufBind *bb = mlc_map_get(&in->bufs, buf);
  if (!bb) return fail(in, "buffer '%s' is used where it is not allocated", buf->name);
  int64_t o = bb->offset;
  for (int d = 0; d < n; d++) {
    int64_t k;
    if (!eval_int(in, idx[d], lane, &k)) return false;
    if (k < 0 || k >= bb->shape[d]) {
      return fail(in, "index %lld out of bounds for dimension %d of buffer '%s' (extent %lld)",
                  (long long)k, d, buf->name, (long long)bb->shape[d]);
    }
    o += k * bb->strides[d];
  }
  if (o < 0 || o >= bb->numel) {
    return fail(in, "access to buffer '%s' at element %lld is outside its %lld elements", buf->name,
                (long long)o, (long long)bb->numel);
  }
  *bb_out = bb;
  *off = o;
  return true;
}

static Val binary(Interp *in, const MlcExpr *e, Val a, Val b) {
  MlcDType t = e->bin.a->dtype;
  bool fl = mlc_dtype_is_float(t), u = t.code == MLC_TC_UINT;
  MlcDType r = e->dtype;
  double x = as_f(t, a), y = as_f(t, b);
  int64_t p = a.i, q = b.i;
  Val zero = {0, 0};
  switch (e->bin.op) {
  case MLC_BIN_ADD: return make(r, (int64_t)((uint64_t)p + (uint64_t)q), x + y);
  case MLC_BIN_SUB: return make(r, (int64_t)((uint64_t)p - (uint64_t)q), x - y);
  case MLC_BIN_MUL: return make(r, (int64_t)((uint64_t)p * (uint64_t)q), x * y);
  case MLC_BIN_DIV: case MLC_BIN_MOD: case MLC_BIN_FLOORDIV: case MLC_BIN_FLOORMOD:
    if (!fl && q == 0) {
      fail(in, "integer division by zero");
      return zero;
    }
    if (fl) {
      if (e->bin.op == MLC_BIN_DIV) return make(r, 0, x / y);
      if (e->bin.op == MLC_BIN_FLOORDIV) return make(r, 0, floor(x / y));
      if (e->bin.op == MLC_BIN_MOD) return make(r, 0, fmod(x, y));
      return make(r, 0, x - floor(x / y) * y);
    }
    if (u) {
      uint64_t uq = (uint64_t)p / (uint64_t)q, ur = (uint64_t)p % (uint64_t)q;
      bool div = e->bin.op == MLC_BIN_DIV || e->bin.op == MLC_BIN_FLOORDIV;
      return make(r, (int64_t)(div ? uq : ur), 0);
    }
    if (p == INT64_MIN && q == -1) return make(r, e->bin.op == MLC_BIN_DIV || e->bin.op == MLC_BIN_FLOORDIV ? p : 0, 0);
    {
      int64_t tq = p / q, tr = p % q;
      if (e->bin.op == MLC_BIN_DIV) return make(r, tq, 0);
      if (e->bin.op == MLC_BIN_MOD) return make(r, tr, 0);
      bool adjust = tr != 0 && ((tr < 0) != (q < 0));
      if (e->bin.op == MLC_BIN_FLOORDIV) return make(r, adjust ? tq - 1 : tq, 0);
      return make(r, adjust ? tr + q : tr, 0);
    }
  case MLC_BIN_MIN: return fl ? make(r, 0, fmin(x, y)) : make(r, u ? ((uint64_t)p < (uint64_t)q ? p : q) : (p < q ? p : q), 0);
  case MLC_BIN_MAX: return fl ? make(r, 0, fmax(x, y)) : make(r, u ? ((uint64_t)p > (uint64_t)q ? p : q) : (p > q ? p : q), 0);
  case MLC_BIN_EQ: return make(r, fl ? x == y : p == q, 0);
  case MLC_BIN_NE: return make(r, fl ? x != y : p != q, 0);
  case MLC_BIN_LT: return make(r, fl ? x < y : u ? (uint64_t)p < (uint64_t)q : p < q, 0);
  case MLC_BIN_LE: return make(r, fl ? x <= y : u ? (uint64_t)p <= (uint64_t)q : p <= q, 0);
  case MLC_BIN_GT: return make(r, fl ? x > y : u ? (uint64_t)p > (uint64_t)q : p > q, 0);
  case MLC_BIN_GE: return make(r, fl ? x >= y : u ? (uint64_t)p >= (uint64_t)q : p >= q, 0);
  case MLC_BIN_AND: return make(r, p && q, 0);
  case MLC_BIN_OR: return make(r, p || q, 0);
  case MLC_BIN_COUNT: break;
  }
  return zero;
}

static Val call(Interp *in, const MlcExpr *e, int lane) {
  MlcDType t = e->dtype;
  if (e->call.op == MLC_INTRIN_IF_THEN_ELSE) /* only the taken branch is evaluated */
    return eval(in, eval(in, e->call.args[0], lane).i ? e->call.args[1] : e->call.args[2], lane);
  double x = eval(in, e->call.args[0], lane).f;
  double y = e->call.n > 1 ? eval(in, e->call.args[1], lane).f : 0;
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
  case MLC_INTRIN_IF_THEN_ELSE: case MLC_INTRIN_COUNT: break;
  }
  return make(t, 0, r);
}

static void bind_var(Interp *in, const MlcExpr *var, Binding *slot, Val *lanes, int n) {
  slot->lanes = lanes;
  slot->n = n;
  mlc_map_put(&in->vars, var, slot);
}

static Val eval(Interp *in, const MlcExpr *e, int lane) {
  Val zero = {0, 0};
  if (in->failed) return zero;
  switch (e->kind) {
  case MLC_EXPR_VAR: {
    Binding *b = mlc_map_get(&in->vars, e);
    if (!b || !b->lanes) {
      fail(in, "var '%s' has no value here", e->var.name);
      return zero;
    }
    return b->lanes[b->n > 1 ? lane : 0];
  }
  case MLC_EXPR_INT: return make(e->dtype, e->int_val, 0);
  case MLC_EXPR_FLOAT: return make(e->dtype, 0, e->float_val);
  case MLC_EXPR_STR: return zero;
  case MLC_EXPR_BINARY: {
    Val a = eval(in, e->bin.a, lane);
    /* and/or short-circuit like the generated C does */
    if (e->bin.op == MLC_BIN_AND && !a.i) return make(e->dtype, 0, 0);
    if (e->bin.op == MLC_BIN_OR && a.i) return make(e->dtype, 1, 0);
    Val b = eval(in, e->bin.b, lane);
    return in->failed ? zero : binary(in, e, a, b);
  }
  case MLC_EXPR_NOT: return make(e->dtype, !eval(in, e->operand, lane).i, 0);
  case MLC_EXPR_NEG: {
    Val a = eval(in, e->operand, lane);
    return make(e->dtype, (int64_t)(0 - (uint64_t)a.i), -a.f);
  }
  case MLC_EXPR_SELECT: {
    Val c = eval(in, e->select.cond, lane), t = eval(in, e->select.t, lane), f = eval(in, e->select.f, lane);
    return c.i ? t : f;
  }
  case MLC_EXPR_CAST: {
    MlcDType from = e->operand->dtype, to = e->dtype;
    Val a = eval(in, e->operand, lane);
    if (mlc_dtype_is_float(to)) return make(to, 0, as_f(from, a));
    if (mlc_dtype_is_float(from)) {
      double f = trunc(a.f);
      if (to.code == MLC_TC_BOOL) return make(to, a.f != 0, 0);
      if (!(f >= -9.2233720368547758e18 && f < 9.2233720368547758e18)) return make(to, 0, 0);
      return make(to, (int64_t)f, 0);
    }
    return make(to, to.code == MLC_TC_BOOL ? a.i != 0 : a.i, 0);
  }
  case MLC_EXPR_LOAD: {
    const BufBind *bb;
    int64_t off;
    if (!elem_index(in, e->load.buf, e->load.idx, e->load.n, lane, &bb, &off)) return zero;
    MlcDType et = mlc_dtype_elem(e->load.buf->dtype);
    return load_elem(et, bb->data + (size_t)off * mlc_dtype_bytes(et));
  }
  case MLC_EXPR_RAMP: {
    Val b = eval(in, e->ramp.base, 0), s = eval(in, e->ramp.stride, 0);
    return make(e->dtype, b.i + (int64_t)lane * s.i, 0);
  }
  case MLC_EXPR_BROADCAST: return eval(in, e->bcast.value, 0);
  case MLC_EXPR_LET: {
    Binding *old = mlc_map_get(&in->vars, e->let.var), slot;
    Val v = eval(in, e->let.value, lane);
    bind_var(in, e->let.var, &slot, &v, 1);
    Val r = eval(in, e->let.body, lane);
    mlc_map_put(&in->vars, e->let.var, old);
    return r;
  }
  case MLC_EXPR_CALL: return call(in, e, lane);
  }
  return zero;
}

/* ---- statements --------------------------------------------------------------- */

static bool exec(Interp *in, const MlcStmt *s);

static bool alloc_buffer(Interp *in, const MlcBuffer *buf, BufBind *bb) {
  memset(bb, 0, sizeof *bb);
  size_t esize = mlc_dtype_bytes(mlc_dtype_elem(buf->dtype));
  int64_t numel = 1;
  bb->shape = calloc((size_t)buf->ndim + 1, sizeof(int64_t));
  bb->strides = calloc((size_t)buf->ndim + 1, sizeof(int64_t));
  if (!bb->shape || !bb->strides) return fail(in, "out of memory for buffer '%s'", buf->name);
  bb->owned = true;
  for (int d = 0; d < buf->ndim; d++) {
    int64_t k;
    if (!eval_int(in, buf->shape[d], 0, &k)) return false;
    if (k < 0 || (k > 0 && numel > (int64_t)(MLC_INTERP_MAX_ALLOC / esize) / k))
      return fail(in, "buffer '%s' has a negative size or is larger than the interpreter's limit", buf->name);
    bb->shape[d] = k;
    numel *= k;
  }
  for (int d = buf->ndim - 1, st = 1; d >= 0; d--) {
    bb->strides[d] = st;
    st *= bb->shape[d] ? bb->shape[d] : 1;
  }
  bb->numel = numel;
  bb->data = calloc((size_t)(numel ? numel : 1), esize);
  if (!bb->data) return fail(in, "out of memory for buffer '%s'", buf->name);
  return true;
}

static void release_buffer(BufBind *bb) {
  if (!bb->owned) return;
  free(bb->data);
  free(bb->shape);
  free(bb->strides);
}

static bool with_buffers(Interp *in, MlcBuffer *const *bufs, int n, const MlcStmt *body,
                         bool (*run)(Interp *, const void *), const void *arg) {
  BufBind *binds = calloc((size_t)n + 1, sizeof *binds);
  void **old = calloc((size_t)n + 1, sizeof *old);
  bool ok = binds && old;
  int made = 0;
  for (; ok && made < n; made++) {
    old[made] = mlc_map_get(&in->bufs, bufs[made]);
    ok = alloc_buffer(in, bufs[made], &binds[made]);
    mlc_map_put(&in->bufs, bufs[made], &binds[made]);
    if (!ok) made++;
  }
  if (ok) ok = body ? exec(in, body) : run(in, arg);
  for (int i = 0; i < made; i++) {
    release_buffer(&binds[i]);
    mlc_map_put(&in->bufs, bufs[i], old[i]);
  }
  free(binds);
  free(old);
  return ok && !in->failed;
}

static bool run_block_body(Interp *in, const void *arg) {
  const MlcBlock *b = arg;
  if (b->init) {
    bool first = true;
    for (int i = 0; i < b->n_iters && first; i++) {
      if (b->iters[i].kind != MLC_ITER_REDUCE) continue;
      int64_t v, lo;
      if (!eval_int(in, b->iters[i].var, 0, &v) || !eval_int(in, b->iters[i].dom.min, 0, &lo)) return false;
      first = v == lo;
    }
    if (first && !exec(in, b->init)) return false;
  }
  return exec(in, b->body);
}

static bool exec_realize(Interp *in, const MlcStmt *s) {
  const MlcBlock *b = s->realize.block;
  int n = b->n_iters;
  Val *vals = calloc((size_t)n + 1, sizeof *vals);
  Binding *slots = calloc((size_t)n + 1, sizeof *slots);
  Binding **old = calloc((size_t)n + 1, sizeof *old);
  bool ok = vals && slots && old;
  for (int i = 0; ok && i < n; i++) {
    vals[i] = eval(in, s->realize.values[i], 0);
    ok = !in->failed;
  }
  bool run = ok && eval(in, s->realize.pred, 0).i && !in->failed;
  if (run) {
    for (int i = 0; i < n; i++) {
      old[i] = mlc_map_get(&in->vars, b->iters[i].var);
      bind_var(in, b->iters[i].var, &slots[i], &vals[i], 1);
    }
    ok = with_buffers(in, b->allocs, b->n_allocs, NULL, run_block_body, b);
    for (int i = n - 1; i >= 0; i--) mlc_map_put(&in->vars, b->iters[i].var, old[i]);
  }
  free(vals);
  free(slots);
  free(old);
  return ok && !in->failed;
}

static bool exec_store(Interp *in, const MlcStmt *s) {
  int lanes = s->store.value->dtype.lanes;
  MlcDType et = mlc_dtype_elem(s->store.buf->dtype);
  /* evaluate every lane before writing any, as a vector store does */
  Val *vals = calloc((size_t)lanes, sizeof *vals);
  int64_t *offs = calloc((size_t)lanes, sizeof *offs);
  const BufBind *bb = NULL;
  bool ok = vals && offs;
  for (int l = 0; ok && l < lanes; l++) {
    vals[l] = eval(in, s->store.value, l);
    ok = !in->failed && elem_index(in, s->store.buf, s->store.idx, s->store.n, l, &bb, &offs[l]);
  }
  for (int l = 0; ok && l < lanes; l++) store_elem(et, bb->data + (size_t)offs[l] * mlc_dtype_bytes(et), vals[l]);
  free(vals);
  free(offs);
  return ok;
}

static bool exec(Interp *in, const MlcStmt *s) {
  if (in->failed) return false;
  switch (s->kind) {
  case MLC_STMT_STORE: return exec_store(in, s);
  case MLC_STMT_FOR: {
    int64_t lo, ext;
    if (!eval_int(in, s->loop.min, 0, &lo) || !eval_int(in, s->loop.extent, 0, &ext)) return false;
    Binding *old = mlc_map_get(&in->vars, s->loop.var), slot;
    Val v = {0, 0};
    bind_var(in, s->loop.var, &slot, &v, 1);
    bool ok = true;
    for (int64_t k = 0; ok && k < ext; k++) {
      v.i = lo + k;
      ok = exec(in, s->loop.body);
    }
    mlc_map_put(&in->vars, s->loop.var, old);
    return ok;
  }
  case MLC_STMT_BLOCK_REALIZE: return exec_realize(in, s);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (!exec(in, s->seq.items[i])) return false;
    return true;
  case MLC_STMT_IF: {
    Val c = eval(in, s->if_.cond, 0);
    if (in->failed) return false;
    if (c.i) return exec(in, s->if_.then_s);
    return s->if_.else_s ? exec(in, s->if_.else_s) : true;
  }
  case MLC_STMT_LET: {
    int lanes = s->let.value->dtype.lanes;
    Val *vals = calloc((size_t)lanes, sizeof *vals);
    if (!vals) return fail(in, "out of memory");
    for (int l = 0; l < lanes; l++) vals[l] = eval(in, s->let.value, l);
    Binding *old = mlc_map_get(&in->vars, s->let.var), slot;
    bind_var(in, s->let.var, &slot, vals, lanes);
    bool ok = !in->failed && exec(in, s->let.body);
    mlc_map_put(&in->vars, s->let.var, old);
    free(vals);
    return ok;
  }
  case MLC_STMT_ALLOCATE: return with_buffers(in, &s->alloc.buf, 1, s->alloc.body, NULL, NULL);
  case MLC_STMT_EVALUATE:
    for (int l = 0; l < s->eval->dtype.lanes; l++) eval(in, s->eval, l);
    return !in->failed;
  }
  return false;
}

/* ---- arguments ------------------------------------------------------------------ */

/* Bind a size var from an argument's dim, or check it against its value. */
static bool bind_dim(Interp *in, const MlcParam *p, int d, int64_t actual, Binding *slots, Val *vals, int *nslots) {
  const MlcExpr *dim = p->buf->shape[d];
  if (dim->kind == MLC_EXPR_VAR && !mlc_map_get(&in->vars, dim)) {
    vals[*nslots].i = actual;
    bind_var(in, dim, &slots[*nslots], &vals[*nslots], 1);
    (*nslots)++;
    return true;
  }
  int64_t want;
  if (!eval_int(in, dim, 0, &want)) return false;
  if (want != actual) {
    return fail(in, "argument '%s': dimension %d is %lld but the buffer needs %lld", p->buf->name, d,
                (long long)actual, (long long)want);
  }
  return true;
}

bool mlc_interp_run(MlcCtx *ctx, const MlcPrimFunc *f, const MlcInterpArg *args, int n) {
  Interp in = {.ctx = ctx, .func = f};
  if (n != f->n_params) return fail(&in, "takes %d arguments, %d given", f->n_params, n);
  int total_dims = 0;
  for (int i = 0; i < n; i++) total_dims += f->params[i].buf ? f->params[i].buf->ndim : 1;
  Binding *slots = calloc((size_t)total_dims + 1, sizeof *slots);
  Val *vals = calloc((size_t)total_dims + 1, sizeof *vals);
  BufBind *binds = calloc((size_t)n + 1, sizeof *binds);
  int nslots = 0;
  bool ok = slots && vals && binds;
  for (int i = 0; ok && i < n; i++) {
    const MlcParam *p = &f->params[i];
    if (!p->buf) {
      if (args[i].is_buffer) { ok = fail(&in, "argument '%s' is a scalar", p->var->var.name); break; }
      vals[nslots] = make(p->var->dtype, args[i].i, args[i].f);
      bind_var(&in, p->var, &slots[nslots], &vals[nslots], 1);
      nslots++;
      continue;
    }
    if (!args[i].is_buffer || !args[i].data || args[i].ndim != p->buf->ndim) {
      ok = fail(&in, "argument '%s' must be a buffer of rank %d", p->buf->name, p->buf->ndim);
      break;
    }
    for (int d = 0; ok && d < p->buf->ndim; d++) ok = bind_dim(&in, p, d, args[i].shape[d], slots, vals, &nslots);
  }
  /* buffers: shapes bound above; strides and offsets evaluated now */
  for (int i = 0; ok && i < n; i++) {
    const MlcParam *p = &f->params[i];
    if (!p->buf) continue;
    BufBind *bb = &binds[i];
    int nd = p->buf->ndim;
    bb->shape = calloc((size_t)nd + 1, sizeof(int64_t));
    bb->strides = calloc((size_t)nd + 1, sizeof(int64_t));
    bb->owned = false;
    if (!bb->shape || !bb->strides) { ok = fail(&in, "out of memory"); break; }
    int64_t numel = 1, span = 1;
    for (int d = nd - 1; d >= 0; d--) {
      bb->shape[d] = args[i].shape[d];
      int64_t st = span;
      if (p->buf->strides && !eval_int(&in, p->buf->strides[d], 0, &st)) { ok = false; break; }
      bb->strides[d] = st;
      span *= bb->shape[d];
      numel = span;
    }
    if (ok && p->buf->elem_offset && !eval_int(&in, p->buf->elem_offset, 0, &bb->offset)) ok = false;
    bb->data = args[i].data;
    /* the caller's storage is the dense extent of the given shape, plus any offset */
    bb->numel = numel + bb->offset;
    if (p->buf->strides) { /* strided storage: trust the furthest element the strides reach */
      int64_t far = bb->offset;
      for (int d = 0; d < nd; d++) far += (bb->shape[d] - 1) * bb->strides[d];
      bb->numel = far + 1;
    }
    mlc_map_put(&in.bufs, p->buf, bb);
  }
  if (ok) ok = exec(&in, f->body);
  for (int i = 0; i < n && binds; i++) {
    free(binds[i].shape);
    free(binds[i].strides);
  }
  free(binds);
  free(slots);
  free(vals);
  mlc_map_free(&in.vars);
  mlc_map_free(&in.bufs);
  return ok && !in.failed;
}
