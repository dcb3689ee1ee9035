/* interp.c - the reference interpreter of TIR (see include/mlcc/interp.h).
 *
 * Two steps.  The function is first mirrored into a tree of small nodes that
 * point at the IR nodes and carry resolved slot numbers for vars and
 * buffers; running walks the mirror, so a var read is an array access rather
 * than a hash lookup and no element allocates anything -- the oracle has to
 * be quick enough to run every test program after every lowering stage.
 * Vector expressions are evaluated one lane at a time (a ramp's lane k is
 * base + k*stride), so every operator has a single scalar definition.  Float
 * arithmetic is done in double and rounded to the expression's width after
 * each operation, which for + - * / and sqrt gives the correctly rounded
 * float32 result C gives. */
#include "mlcc/interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the most lanes of a value kept on the C stack; wider ones are refused */
/* the most lanes a value may have, the most dimensions of a param buffer,
 * and the iter vars a block binds without allocating */
enum { MAX_LANES = 256, MAX_RANK = 64, STACK_ITERS = 16 };

typedef struct Val { int64_t i; double f; } Val;

/* a var's current value: NULL lanes when it is unbound here */
typedef struct Slot { Val *lanes; int n; } Slot;

typedef struct CExpr CExpr;
struct CExpr {
  const MlcExpr *e; /* kind, dtype, operator, immediates */
  CExpr **k;        /* mirrored operands */
  int slot;         /* VAR, LET: the var's slot; LOAD: the buffer's slot */
  Val imm;          /* INT, FLOAT: the value, already at its dtype */
};

typedef struct CStmt CStmt;
struct CStmt {
  const MlcStmt *s;
  CExpr **e;  /* STORE: indices then value; FOR: min, extent; REALIZE: values,
                 predicate, then each iter var's domain min; IF, LET, EVALUATE: one */
  CStmt **k;  /* bodies; REALIZE: init (maybe NULL), body */
  int slot;   /* STORE, ALLOCATE: buffer; FOR, LET: var */
  int *slots; /* REALIZE: iter var slots, then allocated buffer slots */
};

/* what the mirror knows of a buffer: its shape, strides and offset */
typedef struct BufInfo {
  const MlcBuffer *buf;
  CExpr **shape, **strides, *offset;
} BufInfo;

typedef struct BufBind {
  char *data;
  int64_t *shape, *strides; /* in elements */
  int64_t offset;           /* in elements */
  int64_t numel;            /* elements addressable from data */
} BufBind;

typedef struct Interp {
  MlcCtx *ctx;
  const MlcPrimFunc *func;
  MlcArena arena;           /* the mirror */
  MlcMap var_slot, buf_slot; /* node -> slot + 1 */
  MLC_VEC(BufInfo *) bufs;
  int nvars;
  Slot *vars;
  BufBind **bound;          /* buffer slot -> its storage here, or NULL */
  const char *block;        /* the innermost block running, for messages */
  bool failed;
} Interp;

/* Record "function 'f' [block 'b']: <message>" once; later failures add nothing. */
static bool fail(Interp *in, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool fail(Interp *in, const char *fmt, ...) {
  if (!in->failed) {
    MlcStrBuf sb = {0};
    va_list ap;
    va_start(ap, fmt);
    mlc_sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    if (in->block)
      mlc_error(in->ctx, (MlcLoc){0}, "function '%s', block '%s': %s", in->func->name, in->block, mlc_sb_cstr(&sb));
    else
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
  if (t.bits >= 64 || t.bits == 0) return v;
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

/* ---- the mirror --------------------------------------------------------------- */

static int var_slot(Interp *in, const MlcExpr *var) {
  intptr_t s = (intptr_t)mlc_map_get(&in->var_slot, var);
  if (!s) mlc_map_put(&in->var_slot, var, (void *)(s = ++in->nvars));
  return (int)s - 1;
}

static CExpr *mirror_expr(Interp *in, const MlcExpr *e);

static CExpr **mirror_exprs(Interp *in, MlcExpr *const *es, int n) {
  CExpr **k = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *k);
  for (int i = 0; i < n; i++) k[i] = mirror_expr(in, es[i]);
  return k;
}

static int buf_slot(Interp *in, const MlcBuffer *b) {
  intptr_t s = (intptr_t)mlc_map_get(&in->buf_slot, b);
  if (s) return (int)s - 1;
  BufInfo *bi = mlc_arena_alloc(&in->arena, sizeof *bi);
  bi->buf = b;
  mlc_vec_push(&in->bufs, bi);
  mlc_map_put(&in->buf_slot, b, (void *)(intptr_t)in->bufs.len);
  bi->shape = mirror_exprs(in, b->shape, b->ndim);
  if (b->strides) bi->strides = mirror_exprs(in, b->strides, b->ndim);
  if (b->elem_offset) bi->offset = mirror_expr(in, b->elem_offset);
  return (int)in->bufs.len - 1;
}

/* an access must give one index per dimension */
static void check_rank(Interp *in, const MlcBuffer *b, int n) {
  if (n != b->ndim) fail(in, "buffer '%s' of rank %d is accessed with %d indices", b->name, b->ndim, n);
}

static CExpr *mirror_expr(Interp *in, const MlcExpr *e) {
  if (!e) return NULL;
  CExpr *c = mlc_arena_alloc(&in->arena, sizeof *c);
  c->e = e;
  switch (e->kind) {
  case MLC_EXPR_VAR: c->slot = var_slot(in, e); break;
  case MLC_EXPR_INT: c->imm = make(e->dtype, e->int_val, 0); break;
  case MLC_EXPR_FLOAT: c->imm = make(e->dtype, 0, e->float_val); break;
  case MLC_EXPR_STR: break;
  case MLC_EXPR_BINARY: {
    MlcExpr *ab[2] = {e->bin.a, e->bin.b};
    c->k = mirror_exprs(in, ab, 2);
    break;
  }
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: c->k = mirror_exprs(in, &e->operand, 1); break;
  case MLC_EXPR_SELECT: {
    MlcExpr *ctf[3] = {e->select.cond, e->select.t, e->select.f};
    c->k = mirror_exprs(in, ctf, 3);
    break;
  }
  case MLC_EXPR_LOAD:
    check_rank(in, e->load.buf, e->load.n);
    c->slot = buf_slot(in, e->load.buf);
    c->k = mirror_exprs(in, e->load.idx, e->load.n);
    break;
  case MLC_EXPR_RAMP: {
    MlcExpr *bs[2] = {e->ramp.base, e->ramp.stride};
    c->k = mirror_exprs(in, bs, 2);
    break;
  }
  case MLC_EXPR_BROADCAST: c->k = mirror_exprs(in, &e->bcast.value, 1); break;
  case MLC_EXPR_LET: {
    MlcExpr *vb[2] = {e->let.value, e->let.body};
    c->slot = var_slot(in, e->let.var);
    c->k = mirror_exprs(in, vb, 2);
    break;
  }
  case MLC_EXPR_CALL: c->k = mirror_exprs(in, e->call.args, e->call.n); break;
  }
  if (e->dtype.lanes > MAX_LANES) fail(in, "a value of %d lanes is wider than the interpreter's %d", e->dtype.lanes, MAX_LANES);
  return c;
}

static CStmt *mirror_stmt(Interp *in, const MlcStmt *s);

static CStmt **mirror_stmts(Interp *in, MlcStmt *const *ss, int n) {
  CStmt **k = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *k);
  for (int i = 0; i < n; i++) k[i] = mirror_stmt(in, ss[i]);
  return k;
}

static void mirror_realize(Interp *in, const MlcStmt *s, CStmt *c) {
  const MlcBlock *b = s->realize.block;
  int n = b->n_iters;
  c->e = mlc_arena_array(&in->arena, 2 * (size_t)n + 2, sizeof *c->e);
  for (int i = 0; i < n; i++) {
    c->e[i] = mirror_expr(in, s->realize.values[i]);
    c->e[n + 1 + i] = mirror_expr(in, b->iters[i].dom.min);
  }
  c->e[n] = mirror_expr(in, s->realize.pred);
  c->slots = mlc_arena_array(&in->arena, (size_t)n + (size_t)b->n_allocs + 1, sizeof *c->slots);
  for (int i = 0; i < n; i++) c->slots[i] = var_slot(in, b->iters[i].var);
  for (int i = 0; i < b->n_allocs; i++) c->slots[n + i] = buf_slot(in, b->allocs[i]);
  MlcStmt *kids[2] = {b->init, b->body};
  c->k = mirror_stmts(in, kids, 2);
}

static CStmt *mirror_stmt(Interp *in, const MlcStmt *s) {
  if (!s) return NULL;
  CStmt *c = mlc_arena_alloc(&in->arena, sizeof *c);
  c->s = s;
  switch (s->kind) {
  case MLC_STMT_STORE: {
    int n = s->store.n;
    check_rank(in, s->store.buf, n);
    c->slot = buf_slot(in, s->store.buf);
    c->e = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *c->e);
    for (int i = 0; i < n; i++) c->e[i] = mirror_expr(in, s->store.idx[i]);
    c->e[n] = mirror_expr(in, s->store.value);
    if (s->store.value->dtype.lanes > MAX_LANES) fail(in, "a store of %d lanes is too wide", s->store.value->dtype.lanes);
    break;
  }
  case MLC_STMT_FOR: {
    MlcExpr *me[2] = {s->loop.min, s->loop.extent};
    c->slot = var_slot(in, s->loop.var);
    c->e = mirror_exprs(in, me, 2);
    c->k = mirror_stmts(in, &s->loop.body, 1);
    break;
  }
  case MLC_STMT_BLOCK_REALIZE: mirror_realize(in, s, c); break;
  case MLC_STMT_SEQ: c->k = mirror_stmts(in, s->seq.items, s->seq.n); break;
  case MLC_STMT_IF: {
    MlcStmt *te[2] = {s->if_.then_s, s->if_.else_s};
    c->e = mirror_exprs(in, &s->if_.cond, 1);
    c->k = mirror_stmts(in, te, 2);
    break;
  }
  case MLC_STMT_LET:
    c->slot = var_slot(in, s->let.var);
    c->e = mirror_exprs(in, &s->let.value, 1);
    c->k = mirror_stmts(in, &s->let.body, 1);
    break;
  case MLC_STMT_ALLOCATE:
    c->slot = buf_slot(in, s->alloc.buf);
    c->k = mirror_stmts(in, &s->alloc.body, 1);
    break;
  case MLC_STMT_EVALUATE: c->e = mirror_exprs(in, &s->eval, 1); break;
  }
  return c;
}

/* ---- expressions ------------------------------------------------------------ */

static Val eval(Interp *in, const CExpr *c, int lane);

static bool eval_int(Interp *in, const CExpr *c, int lane, int64_t *out) {
  Val v = eval(in, c, lane);
  *out = v.i;
  return !in->failed;
}

/* element offset of an access, bounds-checked per dimension */
static bool elem_index(Interp *in, int slot, CExpr *const *idx, int n, int lane, const BufBind **bb_out,
                       int64_t *off) {
  const BufBind *bb = in->bound[slot];
  const MlcBuffer *buf = in->bufs.data[slot]->buf;
  if (!bb) return fail(in, "buffer '%s' is used where it is not allocated", buf->name);
  int64_t o = bb->offset;
  for (int d = 0; d < n; d++) {
    int64_t k;
    if (!eval_int(in, idx[d], lane, &k)) return false;
    if (k < 0 || k >= bb->shape[d]) {
      return fail(in, "index %lld is out of bounds for dimension %d of buffer '%s' (extent %lld)", (long long)k, d,
                  buf->name, (long long)bb->shape[d]);
    }
    o += k * bb->strides[d];
  }
  if (o < 0 || o >= bb->numel) {
    return fail(in, "access to buffer '%s' at element %lld is outside its %lld elements", buf->name, (long long)o,
                (long long)bb->numel);
  }
  *bb_out = bb;
  *off = o;
  return true;
}

static Val int_divmod(Interp *in, MlcBinOp op, MlcDType r, bool u, int64_t p, int64_t q) {
  Val zero = {0, 0};
  bool div = op == MLC_BIN_DIV || op == MLC_BIN_FLOORDIV;
  if (q == 0) {
    fail(in, "integer division by zero");
    return zero;
  }
  if (u) return make(r, (int64_t)(div ? (uint64_t)p / (uint64_t)q : (uint64_t)p % (uint64_t)q), 0);
  if (p == INT64_MIN && q == -1) return make(r, div ? p : 0, 0);
  int64_t tq = p / q, tr = p % q;
  if (op == MLC_BIN_DIV) return make(r, tq, 0);
  if (op == MLC_BIN_MOD) return make(r, tr, 0);
  bool adjust = tr != 0 && ((tr < 0) != (q < 0));
  if (op == MLC_BIN_FLOORDIV) return make(r, adjust ? tq - 1 : tq, 0);
  return make(r, adjust ? tr + q : tr, 0);
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
    if (!fl) return int_divmod(in, e->bin.op, r, u, p, q);
    if (e->bin.op == MLC_BIN_DIV) return make(r, 0, x / y);
    if (e->bin.op == MLC_BIN_FLOORDIV) return make(r, 0, floor(x / y));
    if (e->bin.op == MLC_BIN_MOD) return make(r, 0, fmod(x, y));
    return make(r, 0, x - floor(x / y) * y);
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

static Val call(Interp *in, const CExpr *c, int lane) {
  const MlcExpr *e = c->e;
  if (e->call.op == MLC_INTRIN_IF_THEN_ELSE) /* only the taken branch is evaluated */
    return eval(in, eval(in, c->k[0], lane).i ? c->k[1] : c->k[2], lane);
  double x = as_f(e->call.args[0]->dtype, eval(in, c->k[0], lane));
  double y = e->call.n > 1 ? as_f(e->call.args[1]->dtype, eval(in, c->k[1], lane)) : 0;
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
  if (mlc_dtype_is_float(e->dtype)) return make(e->dtype, 0, r);
  return make(e->dtype, isfinite(r) && fabs(r) < 9.2e18 ? (int64_t)r : 0, 0);
}

static Val cast(const MlcExpr *e, Val a) {
  MlcDType from = e->operand->dtype, to = e->dtype;
  if (mlc_dtype_is_float(to)) return make(to, 0, as_f(from, a));
  if (to.code == MLC_TC_BOOL) return make(to, mlc_dtype_is_float(from) ? a.f != 0 : a.i != 0, 0);
  if (mlc_dtype_is_float(from)) {
    double f = trunc(a.f);
    /* out of range is undefined in C; the interpreter says 0 */
    if (!(f >= -9.2233720368547758e18 && f < 9.2233720368547758e18)) return make(to, 0, 0);
    return make(to, (int64_t)f, 0);
  }
  return make(to, a.i, 0);
}

static Val eval(Interp *in, const CExpr *c, int lane) {
  Val zero = {0, 0};
  if (in->failed) return zero;
  const MlcExpr *e = c->e;
  switch (e->kind) {
  case MLC_EXPR_VAR: {
    const Slot *sl = &in->vars[c->slot];
    if (!sl->lanes) {
      fail(in, "var '%s' has no value here", e->var.name);
      return zero;
    }
    return sl->lanes[sl->n > 1 ? lane : 0];
  }
  case MLC_EXPR_INT: case MLC_EXPR_FLOAT: return c->imm;
  case MLC_EXPR_STR: return zero;
  case MLC_EXPR_BINARY: {
    Val a = eval(in, c->k[0], lane);
    /* and/or short-circuit like the generated C does */
    if (e->bin.op == MLC_BIN_AND && !a.i) return make(e->dtype, 0, 0);
    if (e->bin.op == MLC_BIN_OR && a.i) return make(e->dtype, 1, 0);
    Val b = eval(in, c->k[1], lane);
    return in->failed ? zero : binary(in, e, a, b);
  }
  case MLC_EXPR_NOT: return make(e->dtype, !eval(in, c->k[0], lane).i, 0);
  case MLC_EXPR_NEG: {
    Val a = eval(in, c->k[0], lane);
    return make(e->dtype, (int64_t)(0 - (uint64_t)a.i), -a.f);
  }
  case MLC_EXPR_SELECT: { /* both sides are evaluated, as T.Select says */
    Val cv = eval(in, c->k[0], lane), t = eval(in, c->k[1], lane), f = eval(in, c->k[2], lane);
    return cv.i ? t : f;
  }
  case MLC_EXPR_CAST: return cast(e, eval(in, c->k[0], lane));
  case MLC_EXPR_LOAD: {
    const BufBind *bb;
    int64_t off;
    if (!elem_index(in, c->slot, c->k, e->load.n, lane, &bb, &off)) return zero;
    MlcDType et = mlc_dtype_elem(e->load.buf->dtype);
    return load_elem(et, bb->data + (size_t)off * mlc_dtype_bytes(et));
  }
  case MLC_EXPR_RAMP: {
    Val b = eval(in, c->k[0], 0), s = eval(in, c->k[1], 0);
    return make(e->dtype, (int64_t)((uint64_t)b.i + (uint64_t)lane * (uint64_t)s.i), 0);
  }
  case MLC_EXPR_BROADCAST: return eval(in, c->k[0], 0);
  case MLC_EXPR_LET: {
    Slot *sl = &in->vars[c->slot], old = *sl;
    Val v = eval(in, c->k[0], lane);
    *sl = (Slot){&v, 1};
    Val r = eval(in, c->k[1], lane);
    *sl = old;
    return r;
  }
  case MLC_EXPR_CALL: return call(in, c, lane);
  }
  return zero;
}

/* ---- statements --------------------------------------------------------------- */

static bool exec(Interp *in, const CStmt *c);

/* storage for an allocated buffer: compact row-major over its shape */
static bool alloc_buffer(Interp *in, int slot, BufBind *bb) {
  const BufInfo *bi = in->bufs.data[slot];
  const MlcBuffer *buf = bi->buf;
  size_t esize = mlc_dtype_bytes(mlc_dtype_elem(buf->dtype));
  int64_t numel = 1;
  memset(bb, 0, sizeof *bb);
  bb->shape = calloc((size_t)buf->ndim + 1, sizeof(int64_t));
  bb->strides = calloc((size_t)buf->ndim + 1, sizeof(int64_t));
  if (!bb->shape || !bb->strides) return fail(in, "out of memory for buffer '%s'", buf->name);
  for (int d = 0; d < buf->ndim; d++) {
    int64_t k;
    if (!eval_int(in, bi->shape[d], 0, &k)) return false;
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
  free(bb->data);
  free(bb->shape);
  free(bb->strides);
}

/* Allocate the buffers of `slots`, run body (or the block when body is
 * NULL), release them and restore what the slots held before. */
static bool exec_block_body(Interp *in, const CStmt *c);
static bool with_buffers(Interp *in, const int *slots, int n, const CStmt *body, const CStmt *block) {
  if (n == 0) return body ? exec(in, body) : exec_block_body(in, block);
  BufBind *binds = calloc((size_t)n, sizeof *binds);
  BufBind **old = calloc((size_t)n, sizeof *old);
  bool ok = binds && old;
  if (!ok) fail(in, "out of memory");
  int made = 0;
  for (; ok && made < n; made++) {
    old[made] = in->bound[slots[made]];
    in->bound[slots[made]] = &binds[made];
    ok = alloc_buffer(in, slots[made], &binds[made]);
  }
  if (ok) ok = body ? exec(in, body) : exec_block_body(in, block);
  for (int i = made - 1; i >= 0; i--) {
    release_buffer(&binds[i]);
    in->bound[slots[i]] = old[i];
  }
  free(binds);
  free(old);
  return ok && !in->failed;
}

/* init runs when every reduce iter var is at its domain's minimum */
static bool exec_block_body(Interp *in, const CStmt *c) {
  const MlcBlock *b = c->s->realize.block;
  if (c->k[0]) {
    bool first = true;
    int n = b->n_iters;
    for (int i = 0; i < n && first; i++) {
      if (b->iters[i].kind != MLC_ITER_REDUCE) continue;
      int64_t lo;
      if (!eval_int(in, c->e[n + 1 + i], 0, &lo)) return false;
      first = in->vars[c->slots[i]].lanes[0].i == lo;
    }
    if (first && !exec(in, c->k[0])) return false;
  }
  return exec(in, c->k[1]);
}

static bool exec_realize(Interp *in, const CStmt *c) {
  const MlcBlock *b = c->s->realize.block;
  int n = b->n_iters;
  Val vals_stack[STACK_ITERS];
  Slot old_stack[STACK_ITERS];
  Val *vals = n <= STACK_ITERS ? vals_stack : calloc((size_t)n, sizeof *vals);
  Slot *old = n <= STACK_ITERS ? old_stack : calloc((size_t)n, sizeof *old);
  bool ok = vals && old;
  if (!ok) fail(in, "out of memory");
  for (int i = 0; ok && i < n; i++) {
    vals[i] = eval(in, c->e[i], 0);
    ok = !in->failed;
  }
  bool run = ok && (!c->e[n] || eval(in, c->e[n], 0).i) && !in->failed;
  if (run) {
    const char *outer = in->block;
    for (int i = 0; i < n; i++) {
      old[i] = in->vars[c->slots[i]];
      in->vars[c->slots[i]] = (Slot){&vals[i], 1};
    }
    in->block = b->name;
    ok = with_buffers(in, c->slots + n, b->n_allocs, NULL, c);
    if (ok) in->block = outer; /* a failure keeps naming the block */
    for (int i = n - 1; i >= 0; i--) in->vars[c->slots[i]] = old[i];
  }
  if (vals != vals_stack) free(vals);
  if (old != old_stack) free(old);
  return ok && !in->failed;
}

static bool exec_store(Interp *in, const CStmt *c) {
  const MlcStmt *s = c->s;
  int lanes = s->store.value->dtype.lanes, n = s->store.n;
  MlcDType et = mlc_dtype_elem(s->store.buf->dtype);
  size_t esize = mlc_dtype_bytes(et);
  if (lanes == 1) { /* the common case, without the lane arrays */
    const BufBind *bb1;
    int64_t off;
    Val v = eval(in, c->e[n], 0);
    if (in->failed || !elem_index(in, c->slot, c->e, n, 0, &bb1, &off)) return false;
    store_elem(et, bb1->data + (size_t)off * esize, v);
    return true;
  }
  /* evaluate every lane before writing any, as a vector store does */
  Val vals[MAX_LANES];
  int64_t offs[MAX_LANES];
  const BufBind *bb = NULL;
  for (int l = 0; l < lanes; l++) {
    vals[l] = eval(in, c->e[n], l);
    if (in->failed || !elem_index(in, c->slot, c->e, n, l, &bb, &offs[l])) return false;
  }
  for (int l = 0; l < lanes; l++) store_elem(et, bb->data + (size_t)offs[l] * esize, vals[l]);
  return true;
}

static bool exec_for(Interp *in, const CStmt *c) {
  int64_t lo, ext;
  if (!eval_int(in, c->e[0], 0, &lo) || !eval_int(in, c->e[1], 0, &ext)) return false;
  Slot *sl = &in->vars[c->slot], old = *sl;
  Val v = {0, 0};
  *sl = (Slot){&v, 1};
  MlcDType t = c->s->loop.var->dtype;
  bool ok = true;
  for (int64_t k = 0; ok && k < ext; k++) {
    v.i = wrap_int(t, (int64_t)((uint64_t)lo + (uint64_t)k));
    ok = exec(in, c->k[0]);
  }
  *sl = old;
  return ok;
}

static bool exec_let(Interp *in, const CStmt *c) {
  int lanes = c->s->let.value->dtype.lanes;
  Val *vals = calloc((size_t)lanes, sizeof *vals);
  if (!vals) return fail(in, "out of memory");
  for (int l = 0; l < lanes; l++) vals[l] = eval(in, c->e[0], l);
  Slot *sl = &in->vars[c->slot], old = *sl;
  *sl = (Slot){vals, lanes};
  bool ok = !in->failed && exec(in, c->k[0]);
  *sl = old;
  free(vals);
  return ok;
}

static bool exec(Interp *in, const CStmt *c) {
  if (in->failed) return false;
  const MlcStmt *s = c->s;
  switch (s->kind) {
  case MLC_STMT_STORE: return exec_store(in, c);
  case MLC_STMT_FOR: return exec_for(in, c);
  case MLC_STMT_BLOCK_REALIZE: return exec_realize(in, c);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (!exec(in, c->k[i])) return false;
    return true;
  case MLC_STMT_IF: {
    Val v = eval(in, c->e[0], 0);
    if (in->failed) return false;
    if (v.i) return exec(in, c->k[0]);
    return c->k[1] ? exec(in, c->k[1]) : true;
  }
  case MLC_STMT_LET: return exec_let(in, c);
  case MLC_STMT_ALLOCATE: return with_buffers(in, &c->slot, 1, c->k[0], NULL);
  case MLC_STMT_EVALUATE:
    for (int l = 0; l < s->eval->dtype.lanes; l++) eval(in, c->e[0], l);
    return !in->failed;
  }
  return false;
}

/* ---- arguments ------------------------------------------------------------------ */

static bool check_arg(Interp *in, const MlcParam *p, const MlcInterpArg *a, int i) {
  if (!p->buf) {
    if (a->is_buffer) return fail(in, "argument '%s' (#%d) must be a scalar, not a buffer", p->var->var.name, i + 1);
    return true;
  }
  const MlcBuffer *b = p->buf;
  if (!a->is_buffer) return fail(in, "argument '%s' (#%d) must be a buffer, not a scalar", b->name, i + 1);
  if (!a->data) return fail(in, "argument '%s' (#%d) has no data", b->name, i + 1);
  if (a->ndim != b->ndim)
    return fail(in, "argument '%s' (#%d) must have rank %d, not %d", b->name, i + 1, b->ndim, a->ndim);
  if (b->ndim > 0 && !a->shape) return fail(in, "argument '%s' (#%d) has no shape", b->name, i + 1);
  for (int d = 0; d < b->ndim; d++)
    if (a->shape[d] < 0) return fail(in, "argument '%s' (#%d): dimension %d is negative", b->name, i + 1, d);
  return true;
}

static void shape_text(MlcStrBuf *sb, const int64_t *shape, int n) {
  mlc_sb_putc(sb, '(');
  for (int d = 0; d < n; d++) mlc_sb_printf(sb, "%s%lld", d ? ", " : "", (long long)shape[d]);
  mlc_sb_putc(sb, ')');
}

/* the mirrored shape of a param buffer (numbered by mirror_signature) */
static const BufInfo *info(Interp *in, const MlcBuffer *b) { return in->bufs.data[buf_slot(in, b)]; }

/* Bind the size vars of sig's buffer shapes from the arguments (the first
 * buffer naming a var binds it), then check every dimension against them. */
static bool bind_sizes(Interp *in, const MlcPrimFunc *sig, const MlcInterpArg *args, Val *vals) {
  for (int i = 0; i < sig->n_params; i++) {
    const MlcBuffer *b = sig->params[i].buf;
    for (int d = 0; b && d < b->ndim; d++) {
      const MlcExpr *dim = b->shape[d];
      if (dim->kind != MLC_EXPR_VAR) continue;
      Slot *sl = &in->vars[var_slot(in, dim)];
      if (sl->lanes) continue;
      Val *v = &vals[i * MAX_RANK + d];
      *v = make(dim->dtype, args[i].shape[d], 0);
      *sl = (Slot){v, 1};
    }
  }
  for (int i = 0; i < sig->n_params; i++) {
    const MlcBuffer *b = sig->params[i].buf;
    for (int d = 0; b && d < b->ndim; d++) {
      int64_t want;
      if (!eval_int(in, info(in, b)->shape[d], 0, &want)) return false;
      if (want == args[i].shape[d]) continue;
      MlcStrBuf sb = {0};
      shape_text(&sb, args[i].shape, b->ndim);
      fail(in, "argument '%s' (#%d): dimension %d is %lld but the buffer needs %lld (shape given %s)", b->name, i + 1,
           d, (long long)args[i].shape[d], (long long)want, mlc_sb_cstr(&sb));
      mlc_vec_free(&sb);
      return false;
    }
  }
  return true;
}

/* Elements of caller storage an argument spans under sig's view of it: the
 * dense extent of its shape, or as far as the strides reach, plus the
 * offset. */
static bool storage_extent(Interp *in, const MlcBuffer *b, const MlcInterpArg *a, int64_t *out) {
  int64_t offset = 0, far = 0, numel = 1;
  const BufInfo *bi = info(in, b);
  if (bi->offset && !eval_int(in, bi->offset, 0, &offset)) return false;
  for (int d = 0; d < b->ndim; d++) {
    int64_t st = 0;
    if (bi->strides && !eval_int(in, bi->strides[d], 0, &st)) return false;
    if (a->shape[d] == 0) numel = 0;
    else if (numel && __builtin_mul_overflow(numel, a->shape[d], &numel))
      return fail(in, "argument '%s' has more elements than fit in 64 bits", b->name);
    if (b->strides && a->shape[d] > 0) far += (a->shape[d] - 1) * st;
  }
  *out = numel == 0 ? 0 : offset + (b->strides ? far + 1 : numel);
  return true;
}

/* The view f's param buffer has of the data: its own shape, strides and
 * offset, evaluated once the sizes are bound. */
static bool bind_view(Interp *in, const MlcBuffer *b, const MlcInterpArg *a, int64_t extent, BufBind *bb) {
  int nd = b->ndim;
  const BufInfo *bi = info(in, b);
  bb->shape = mlc_arena_array(&in->arena, (size_t)nd + 1, sizeof(int64_t));
  bb->strides = mlc_arena_array(&in->arena, (size_t)nd + 1, sizeof(int64_t));
  int64_t span = 1;
  for (int d = nd - 1; d >= 0; d--) {
    int64_t k, st = span;
    if (!eval_int(in, bi->shape[d], 0, &k)) return false;
    if (bi->strides && !eval_int(in, bi->strides[d], 0, &st)) return false;
    bb->shape[d] = k;
    bb->strides[d] = st;
    span = k > 0 ? span * k : span;
  }
  if (bi->offset && !eval_int(in, bi->offset, 0, &bb->offset)) return false;
  bb->data = a->data;
  bb->numel = extent;
  return true;
}

static bool bind_args(Interp *in, const MlcPrimFunc *sig, const MlcPrimFunc *f, const MlcInterpArg *args, int n,
                      Val *vals) {
  if (n != sig->n_params) return fail(in, "takes %d arguments, %d given", sig->n_params, n);
  if (f->n_params != n) return fail(in, "the lowered function has %d params, its signature %d", f->n_params, n);
  for (int i = 0; i < n; i++) {
    if (!sig->params[i].buf != !f->params[i].buf)
      return fail(in, "param #%d is a buffer in one of the function and its signature only", i + 1);
    if (sig->params[i].buf && sig->params[i].buf->ndim > MAX_RANK)
      return fail(in, "buffer '%s' has more than %d dimensions", sig->params[i].buf->name, MAX_RANK);
    if (!check_arg(in, &sig->params[i], &args[i], i)) return false;
  }
  /* scalars first: a buffer's shape may use them */
  for (int i = 0; i < n; i++) {
    if (sig->params[i].buf) continue;
    Val *v = &vals[i * MAX_RANK];
    *v = make(sig->params[i].var->dtype, args[i].i, args[i].f);
    in->vars[var_slot(in, sig->params[i].var)] = (Slot){v, 1};
    in->vars[var_slot(in, f->params[i].var)] = (Slot){v, 1};
  }
  if (!bind_sizes(in, sig, args, vals)) return false;
  for (int i = 0; i < n; i++) {
    if (!sig->params[i].buf) continue;
    int64_t extent = 0;
    BufBind *bb = mlc_arena_alloc(&in->arena, sizeof *bb);
    if (!storage_extent(in, sig->params[i].buf, &args[i], &extent) ||
        !bind_view(in, f->params[i].buf, &args[i], extent, bb))
      return false;
    in->bound[buf_slot(in, f->params[i].buf)] = bb;
  }
  return true;
}

/* Slots are numbered while mirroring; every var and buffer the arguments
 * touch is mirrored first so the slot tables can be sized once. */
static void mirror_signature(Interp *in, const MlcPrimFunc *f) {
  for (int i = 0; i < f->n_params; i++) {
    var_slot(in, f->params[i].var);
    if (f->params[i].buf) buf_slot(in, f->params[i].buf);
  }
}

bool mlc_interp_run_lowered(MlcCtx *ctx, const MlcPrimFunc *sig, const MlcPrimFunc *f, const MlcInterpArg *args,
                            int n) {
  Interp in = {.ctx = ctx, .func = f};
  mlc_arena_init(&in.arena);
  mirror_signature(&in, sig);
  mirror_signature(&in, f);
  CStmt *body = mirror_stmt(&in, f->body);
  in.vars = calloc((size_t)in.nvars + 1, sizeof *in.vars);
  in.bound = calloc(in.bufs.len + 1, sizeof *in.bound);
  Val *vals = calloc((size_t)(n > 0 ? n : 1) * MAX_RANK, sizeof *vals);
  bool ok = !in.failed;
  if (ok && (!in.vars || !in.bound || !vals)) ok = fail(&in, "out of memory");
  if (ok) ok = bind_args(&in, sig, f, args, n, vals);
  if (ok && body) ok = exec(&in, body);
  free(vals);
  free(in.vars);
  free(in.bound);
  mlc_vec_free(&in.bufs);
  mlc_map_free(&in.var_slot);
  mlc_map_free(&in.buf_slot);
  mlc_arena_free(&in.arena);
  return ok && !in.failed;
}

bool mlc_interp_run(MlcCtx *ctx, const MlcPrimFunc *f, const MlcInterpArg *args, int n) {
  return mlc_interp_run_lowered(ctx, f, f, args, n);
}
