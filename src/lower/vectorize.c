/* vectorize.c - lowering stage 5: a loop marked vectorized, of constant
 * extent L, becomes one pass of its body over vectors of L lanes.
 *
 * The loop var becomes ramp(min, 1, L); every expression that depends on it
 * becomes a vector expression, scalars meeting vectors are broadcast, and
 * sums and scalings of ramps stay ramps, so A[i*L + j] turns into a
 * contiguous vector access the C compiler emits as one SIMD load.  What
 * cannot be expressed lane-wise (a store of every lane to one element, a
 * branch on the vector var, an allocation inside) is refused, naming the
 * loop.  A store that does not depend on the var stays scalar and runs once
 * instead of once per lane, which is the same unless its value reads the
 * element it writes (B[0] = B[0] + 1): that too is refused.  A loop whose
 * vectors would be wider than MLC_LOWER_MAX_VECTOR_BYTES (the widest
 * registers of x86-64) becomes that many bytes of lanes at a time, in order:
 * the C compiler splits a wider vector type piecewise, through memory. */
#include "mlcc/lower.h"
#include "mlcc/arith.h"

typedef struct Vec {
  MlcCtx *ctx;
  const MlcExpr *var; /* the vectorized loop var */
  MlcExpr *ramp;
  int lanes;
  MlcMap lets;        /* scalar let var -> vector var replacing it */
  bool failed;
} Vec;

static bool refuse(Vec *v, const char *why) {
  if (!v->failed) mlc_error(v->ctx, v->ctx->build_loc, "cannot vectorize loop '%s': %s", v->var->var.name, why);
  v->failed = true;
  return false;
}

typedef struct Reads { const MlcBuffer *buf; bool found; } Reads;

static bool reads_expr(MlcVisitor *vis, const MlcExpr *e) {
  Reads *r = vis->user;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == r->buf) r->found = true;
  return !r->found;
}

/* true when e loads from buf */
static bool reads(const MlcExpr *e, const MlcBuffer *buf) {
  Reads r = {buf, false};
  MlcVisitor vis = {.user = &r, .expr = reads_expr};
  mlc_visit_expr(&vis, e);
  return r.found;
}

static MlcExpr *widen(Vec *v, MlcExpr *e) {
  return e && e->dtype.lanes == 1 ? mlc_e_broadcast(v->ctx, e, v->lanes) : e;
}

/* a op b where at least one side is a vector; ramps absorb scalars */
static MlcExpr *vec_binary(Vec *v, MlcBinOp op, MlcExpr *a, MlcExpr *b) {
  MlcCtx *ctx = v->ctx;
  int64_t c;
  if (a->kind == MLC_EXPR_RAMP && b->dtype.lanes == 1 && (op == MLC_BIN_ADD || op == MLC_BIN_SUB))
    return mlc_e_ramp(ctx, mlc_e_bin(ctx, op, a->ramp.base, b), a->ramp.stride, v->lanes);
  if (b->kind == MLC_EXPR_RAMP && a->dtype.lanes == 1 && op == MLC_BIN_ADD)
    return mlc_e_ramp(ctx, mlc_e_bin(ctx, op, a, b->ramp.base), b->ramp.stride, v->lanes);
  if (a->kind == MLC_EXPR_RAMP && b->kind == MLC_EXPR_RAMP && (op == MLC_BIN_ADD || op == MLC_BIN_SUB))
    return mlc_e_ramp(ctx, mlc_e_bin(ctx, op, a->ramp.base, b->ramp.base),
                      mlc_e_bin(ctx, op, a->ramp.stride, b->ramp.stride), v->lanes);
  if (op == MLC_BIN_MUL && a->kind == MLC_EXPR_RAMP && mlc_e_is_const_int(b, &c))
    return mlc_e_ramp(ctx, mlc_e_bin(ctx, op, a->ramp.base, b), mlc_e_bin(ctx, op, a->ramp.stride, b), v->lanes);
  if (op == MLC_BIN_MUL && b->kind == MLC_EXPR_RAMP && mlc_e_is_const_int(a, &c))
    return mlc_e_ramp(ctx, mlc_e_bin(ctx, op, b->ramp.base, a), mlc_e_bin(ctx, op, b->ramp.stride, a), v->lanes);
  return mlc_e_bin(ctx, op, widen(v, a), widen(v, b));
}

static MlcExpr *vec_expr(Vec *v, MlcExpr *e) {
  if (!e || v->failed) return NULL;
  MlcCtx *ctx = v->ctx;
  switch (e->kind) {
  case MLC_EXPR_VAR: {
    if (e == v->var) return v->ramp;
    MlcExpr *r = mlc_map_get(&v->lets, e);
    return r ? r : e;
  }
  case MLC_EXPR_INT: case MLC_EXPR_FLOAT: case MLC_EXPR_STR: return e;
  case MLC_EXPR_BINARY: {
    MlcExpr *a = vec_expr(v, e->bin.a), *b = vec_expr(v, e->bin.b);
    if (!a || !b) return NULL;
    if (a->dtype.lanes == 1 && b->dtype.lanes == 1)
      return a == e->bin.a && b == e->bin.b ? e : mlc_e_bin(ctx, e->bin.op, a, b);
    return vec_binary(v, e->bin.op, a, b);
  }
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: {
    MlcExpr *a = vec_expr(v, e->operand);
    if (!a) return NULL;
    if (a == e->operand) return e;
    if (e->kind == MLC_EXPR_NOT) return mlc_e_not(ctx, a);
    if (e->kind == MLC_EXPR_NEG) return mlc_e_neg(ctx, a);
    return mlc_e_cast(ctx, mlc_dtype_with_lanes(e->dtype, a->dtype.lanes), a);
  }
  case MLC_EXPR_SELECT: {
    MlcExpr *c = vec_expr(v, e->select.cond), *t = vec_expr(v, e->select.t), *f = vec_expr(v, e->select.f);
    if (!c || !t || !f) return NULL;
    if (c->dtype.lanes == 1 && t->dtype.lanes == 1 && f->dtype.lanes == 1) return mlc_e_select(ctx, c, t, f);
    return mlc_e_select(ctx, widen(v, c), widen(v, t), widen(v, f));
  }
  case MLC_EXPR_LOAD: {
    MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)e->load.n + 1, sizeof *idx);
    bool vector = false;
    for (int i = 0; i < e->load.n; i++) {
      if (!(idx[i] = vec_expr(v, e->load.idx[i]))) return NULL;
      vector |= idx[i]->dtype.lanes > 1;
    }
    if (vector)
      for (int i = 0; i < e->load.n; i++) idx[i] = widen(v, idx[i]);
    return mlc_e_load(ctx, e->load.buf, idx, e->load.n);
  }
  case MLC_EXPR_CALL: {
    MlcExpr **args = mlc_arena_array(&ctx->arena, (size_t)e->call.n + 1, sizeof *args);
    bool vector = false;
    for (int i = 0; i < e->call.n; i++) {
      if (!(args[i] = vec_expr(v, e->call.args[i]))) return NULL;
      vector |= args[i]->dtype.lanes > 1;
    }
    if (vector)
      for (int i = 0; i < e->call.n; i++) args[i] = widen(v, args[i]);
    return mlc_e_call_typed(ctx, e->call.op, e->dtype, args, e->call.n);
  }
  case MLC_EXPR_RAMP: case MLC_EXPR_BROADCAST:
    refuse(v, "it already holds vector expressions");
    return NULL;
  case MLC_EXPR_LET:
    refuse(v, "an expression-level let depends on it");
    return NULL;
  }
  return NULL;
}

static MlcStmt *vec_stmt(Vec *v, MlcStmt *s) {
  if (!s || v->failed) return NULL;
  MlcCtx *ctx = v->ctx;
  switch (s->kind) {
  case MLC_STMT_STORE: {
    MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)s->store.n + 1, sizeof *idx);
    bool vector = false;
    for (int i = 0; i < s->store.n; i++) {
      if (!(idx[i] = vec_expr(v, s->store.idx[i]))) return NULL;
      vector |= idx[i]->dtype.lanes > 1;
    }
    MlcExpr *value = vec_expr(v, s->store.value);
    if (!value) return NULL;
    if (!vector && (value->dtype.lanes > 1 || reads(value, s->store.buf))) {
      MlcStrBuf why = {0};
      mlc_sb_printf(&why, "every lane would store into the same element of buffer '%s' (a reduction over the "
                    "vectorized loop)", s->store.buf->name);
      refuse(v, mlc_sb_cstr(&why));
      mlc_vec_free(&why);
      return NULL;
    }
    if (vector) {
      for (int i = 0; i < s->store.n; i++) idx[i] = widen(v, idx[i]);
      value = widen(v, value);
    }
    return mlc_s_store(ctx, s->store.buf, idx, s->store.n, value);
  }
  case MLC_STMT_SEQ: {
    MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)s->seq.n + 1, sizeof *items);
    for (int i = 0; i < s->seq.n; i++)
      if (!(items[i] = vec_stmt(v, s->seq.items[i]))) return NULL;
    return mlc_s_seq(ctx, items, s->seq.n);
  }
  case MLC_STMT_FOR: {
    MlcExpr *min = vec_expr(v, s->loop.min), *ext = vec_expr(v, s->loop.extent);
    if (!min || !ext) return NULL;
    if (min->dtype.lanes > 1 || ext->dtype.lanes > 1) {
      refuse(v, "the bounds of an inner loop depend on it");
      return NULL;
    }
    if (s->loop.kind == MLC_FOR_PARALLEL || s->loop.kind == MLC_FOR_VECTORIZED || s->loop.kind == MLC_FOR_THREAD) {
      refuse(v, "it contains a parallel, vectorized or thread-bound loop");
      return NULL;
    }
    MlcStmt *body = vec_stmt(v, s->loop.body);
    return mlc_s_for(ctx, s->loop.var, min, ext, s->loop.kind, s->loop.thread, s->loop.annotations, body);
  }
  case MLC_STMT_IF: {
    MlcExpr *c = vec_expr(v, s->if_.cond);
    if (!c) return NULL;
    if (c->dtype.lanes > 1) {
      refuse(v, "an if condition depends on it");
      return NULL;
    }
    MlcStmt *t = vec_stmt(v, s->if_.then_s), *e = s->if_.else_s ? vec_stmt(v, s->if_.else_s) : NULL;
    if (!t || (s->if_.else_s && !e)) return NULL;
    return mlc_s_if(ctx, c, t, e);
  }
  case MLC_STMT_LET: {
    MlcExpr *value = vec_expr(v, s->let.value);
    if (!value) return NULL;
    MlcExpr *var = s->let.var;
    if (value->dtype.lanes > 1) {
      var = mlc_e_var(ctx, s->let.var->var.name, value->dtype);
      mlc_map_put(&v->lets, s->let.var, var);
    }
    MlcStmt *body = vec_stmt(v, s->let.body);
    return body ? mlc_s_let(ctx, var, value, body) : NULL;
  }
  case MLC_STMT_EVALUATE: {
    MlcExpr *e = vec_expr(v, s->eval);
    return e ? mlc_s_evaluate(ctx, e) : NULL;
  }
  case MLC_STMT_ALLOCATE:
    refuse(v, "it allocates a buffer inside");
    return NULL;
  case MLC_STMT_BLOCK_REALIZE:
    refuse(v, "it still holds a block (lower blocks first)");
    return NULL;
  }
  return NULL;
}

/* the widest element (in bytes) the body loads or stores */
static bool widest_load(MlcVisitor *vis, const MlcExpr *e) {
  int *w = vis->user;
  if (e->kind == MLC_EXPR_LOAD) {
    int b = (int)mlc_dtype_bytes(mlc_dtype_elem(e->load.buf->dtype));
    if (b > *w) *w = b;
  }
  return true;
}

static bool widest_store(MlcVisitor *vis, const MlcStmt *s) {
  int *w = vis->user;
  if (s->kind == MLC_STMT_STORE) {
    int b = (int)mlc_dtype_bytes(mlc_dtype_elem(s->store.buf->dtype));
    if (b > *w) *w = b;
  }
  return true;
}

static int widest_element(const MlcStmt *body) {
  int w = 0;
  MlcVisitor vis = {.user = &w, .expr = widest_load, .stmt = widest_store};
  mlc_visit_stmt(&vis, body);
  return w;
}

static MlcStmt *vectorize_stmt(MlcMutator *m, MlcStmt *s) {
  MlcStmt *r = mlc_mutate_stmt_children(m, s);
  if (!r || r->kind != MLC_STMT_FOR || r->loop.kind != MLC_FOR_VECTORIZED) return r;
  MlcCtx *ctx = m->ctx;
  int64_t n;
  Vec v = {.ctx = ctx, .var = r->loop.var};
  if (!mlc_e_is_const_int(r->loop.extent, &n)) return refuse(&v, "its extent is not a constant"), NULL;
  if (n < 1 || n > MLC_MAX_VECTOR_LANES) {
    mlc_error(ctx, ctx->build_loc, "function '%s': cannot vectorize loop '%s': extent %lld is outside [1, %d]; split it first",
              (const char *)m->user, r->loop.var->var.name, (long long)n, MLC_MAX_VECTOR_LANES);
    return NULL;
  }
  if (n == 1) {
    MlcMap vmap = {0};
    mlc_map_put(&vmap, r->loop.var, r->loop.min);
    MlcStmt *body = mlc_substitute_stmt(ctx, r->loop.body, &vmap);
    mlc_map_free(&vmap);
    return body;
  }
  /* vectors wider than MLC_LOWER_MAX_VECTOR_BYTES go in chunks of that
   * width, one after another */
  int w = widest_element(r->loop.body), chunk = w > 0 ? MLC_LOWER_MAX_VECTOR_BYTES / w : (int)n;
  if (chunk < 2 || n <= chunk || n % chunk != 0) chunk = (int)n;
  int n_chunks = (int)(n / chunk);
  MlcStmt **parts = mlc_arena_array(&ctx->arena, (size_t)n_chunks, sizeof *parts);
  for (int c = 0; c < n_chunks; c++) {
    v.lanes = chunk;
    MlcExpr *base = c == 0 ? r->loop.min
                           : mlc_arith_add(ctx, r->loop.min, mlc_e_int(ctx, r->loop.var->dtype, (int64_t)c * chunk));
    v.ramp = mlc_e_ramp(ctx, base, mlc_e_int(ctx, r->loop.var->dtype, 1), v.lanes);
    parts[c] = vec_stmt(&v, r->loop.body);
    mlc_map_free(&v.lets);
    v.lets = (MlcMap){0};
    if (!parts[c]) return NULL;
  }
  return n_chunks == 1 ? parts[0] : mlc_s_seq(ctx, parts, n_chunks);
}

MlcPrimFunc *mlc_lower_vectorize(MlcCtx *ctx, const MlcPrimFunc *f) {
  MlcMutator m = {.ctx = ctx, .user = (void *)f->name, .stmt = vectorize_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
