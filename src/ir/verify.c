/* verify.c - well-formedness of prim funcs: scoping of vars and buffers,
 * index counts and dtypes, loop bounds, block bindings and inits.
 *
 * One recursive walk carries the vars and buffers in scope.  Scopes nest
 * strictly and a var may be bound only once along any path (rebinding it in
 * a nested scope would leave "which binding is this" ambiguous to every later
 * pass), so leaving a scope just marks its vars absent again: no stack of
 * shadowed bindings is needed.  A block with iter vars sees the loops around
 * it only through its bindings (so that a schedule may move the block), so a
 * loop var remembers the block depth it was bound at.  The IR carries no
 * source locations, so the one error reported names the function and the
 * innermost block instead. */
#include "ir/verify.h"

#include <stdlib.h>

static char in_scope_mark;
#define IN_SCOPE ((void *)&in_scope_mark) /* map value of a usable buffer */

typedef struct Verifier {
  MlcCtx *ctx;
  const MlcPrimFunc *f;
  const MlcBlock *block; /* innermost block around the walk, for messages */
  int depth;             /* blocks with iter vars around the walk */
  MlcMap vars;           /* var -> scope_tag() while bound, NULL after */
  MlcMap bufs;           /* buffer -> IN_SCOPE while usable, NULL after */
} Verifier;

/* A bound var's map value: the block depth it was bound at, and whether it
 * is a loop var (which blocks deeper than that cannot see).  Never NULL. */
static void *scope_tag(int depth, bool loop) {
  return (void *)(((uintptr_t)(depth + 1) << 1) | (uintptr_t)loop);
}

static bool visible(const Verifier *v, const MlcExpr *var) {
  uintptr_t tag = (uintptr_t)mlc_map_get(&v->vars, var);
  return tag && (!(tag & 1) || (int)(tag >> 1) - 1 == v->depth);
}

/* ---- expression structure (shared with verify_graph.c and regions.c) ---- */

typedef bool (*ExprFn)(void *user, const MlcExpr *e);

/* The one place here that knows every expression's children. */
bool mlc_expr_each_child(const MlcExpr *e, ExprFn fn, void *user) {
  switch (e->kind) {
  case MLC_EXPR_VAR: case MLC_EXPR_INT: case MLC_EXPR_FLOAT: case MLC_EXPR_STR:
    return true;
  case MLC_EXPR_BINARY: return fn(user, e->bin.a) && fn(user, e->bin.b);
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: return fn(user, e->operand);
  case MLC_EXPR_SELECT:
    return fn(user, e->select.cond) && fn(user, e->select.t) && fn(user, e->select.f);
  case MLC_EXPR_LOAD:
    for (int i = 0; i < e->load.n; i++)
      if (!fn(user, e->load.idx[i])) return false;
    return true;
  case MLC_EXPR_RAMP: return fn(user, e->ramp.base) && fn(user, e->ramp.stride);
  case MLC_EXPR_BROADCAST: return fn(user, e->bcast.value);
  case MLC_EXPR_LET: return fn(user, e->let.var) && fn(user, e->let.value) && fn(user, e->let.body);
  case MLC_EXPR_CALL:
    for (int i = 0; i < e->call.n; i++)
      if (!fn(user, e->call.args[i])) return false;
    return true;
  }
  return true;
}

typedef struct VarWalk { ExprFn fn; void *user; } VarWalk;

static bool var_walk(void *w, const MlcExpr *e) {
  VarWalk *vw = w;
  if (!e) return true;
  return e->kind == MLC_EXPR_VAR ? vw->fn(vw->user, e) : mlc_expr_each_child(e, var_walk, w);
}

bool mlc_expr_each_var(const MlcExpr *e, bool (*fn)(void *user, const MlcExpr *var), void *user) {
  VarWalk w = {fn, user};
  return var_walk(&w, e);
}

/* ---- errors ---------------------------------------------------------- */

static bool fail(Verifier *v, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool fail(Verifier *v, const char *fmt, ...) {
  MlcStrBuf sb = {0};
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  if (v->block)
    mlc_error(v->ctx, (MlcLoc){0}, "function \"%s\": block \"%s\": %s", v->f->name, v->block->name,
              mlc_sb_cstr(&sb));
  else
    mlc_error(v->ctx, (MlcLoc){0}, "function \"%s\": %s", v->f->name, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return false;
}

static const char *dts(MlcDType t, char buf[32]) { return mlc_dtype_str(t, buf); }

/* ---- scope ------------------------------------------------------------- */

static bool bind_var(Verifier *v, const MlcExpr *var, const char *what, bool loop) {
  if (!var || var->kind != MLC_EXPR_VAR) return fail(v, "%s is not a var", what);
  if (mlc_map_get(&v->vars, var))
    return fail(v, "%s '%s' is already bound in an enclosing scope", what, var->var.name);
  mlc_map_put(&v->vars, var, scope_tag(v->depth, loop));
  return true;
}

static void unbind_var(Verifier *v, const MlcExpr *var) { mlc_map_put(&v->vars, var, NULL); }

/* a param buffer's shape, strides and offset vars are bound by the param
 * itself (as match_buffer binds them), however many buffers share them */
static bool bind_silently(void *v, const MlcExpr *var) {
  mlc_map_put(&((Verifier *)v)->vars, var, scope_tag(0, false));
  return true;
}

static bool bind_buffer(Verifier *v, const MlcBuffer *b, const char *what) {
  if (!b) return fail(v, "%s without a buffer", what);
  if (mlc_map_get(&v->bufs, b))
    return fail(v, "%s buffer '%s' is already defined in an enclosing scope", what, b->name);
  mlc_map_put(&v->bufs, b, IN_SCOPE);
  return true;
}

static void unbind_buffer(Verifier *v, const MlcBuffer *b) { mlc_map_put(&v->bufs, b, NULL); }

/* ---- expressions ------------------------------------------------------- */

static bool check_expr(Verifier *v, const MlcExpr *e);
static bool check_expr_cb(void *v, const MlcExpr *e) { return check_expr(v, e); }

static bool check_access(Verifier *v, const char *what, const MlcBuffer *buf, MlcExpr *const *idx,
                         int n) {
  char b[32];
  if (!buf) return fail(v, "%s a missing buffer", what);
  if (!mlc_map_get(&v->bufs, buf))
    return fail(v, "%s buffer '%s', which is neither a parameter nor allocated in an enclosing block",
                what, buf->name);
  if (n != buf->ndim)
    return fail(v, "%s buffer '%s' with %d %s, buffer has rank %d", what, buf->name, n,
                n == 1 ? "index" : "indices", buf->ndim);
  for (int i = 0; i < n; i++) {
    if (!check_expr(v, idx[i])) return false;
    if (!mlc_dtype_is_int(idx[i]->dtype))
      return fail(v, "%s buffer '%s': index %d has dtype %s, expected an integer", what, buf->name,
                  i, dts(idx[i]->dtype, b));
  }
  return true;
}

static bool check_expr(Verifier *v, const MlcExpr *e) {
  if (!e) return fail(v, "missing expression");
  switch (e->kind) {
  case MLC_EXPR_VAR:
    return visible(v, e) ? true : fail(v, "use of undefined var '%s'", e->var.name);
  case MLC_EXPR_LOAD:
    return check_access(v, "load from", e->load.buf, e->load.idx, e->load.n);
  case MLC_EXPR_LET: {
    if (!check_expr(v, e->let.value) || !bind_var(v, e->let.var, "let var", false)) return false;
    bool ok = check_expr(v, e->let.body);
    unbind_var(v, e->let.var);
    return ok;
  }
  default:
    return mlc_expr_each_child(e, check_expr_cb, v);
  }
}

static bool check_int(Verifier *v, const MlcExpr *e, const char *what) {
  char b[32];
  if (!check_expr(v, e)) return false;
  if (!mlc_dtype_is_int(e->dtype)) return fail(v, "%s has dtype %s, expected an integer", what, dts(e->dtype, b));
  return true;
}

static bool check_attr_value(Verifier *v, const MlcAttrValue *a) {
  if (a->kind == MLC_ATTR_EXPR) return check_expr(v, a->expr);
  if (a->kind != MLC_ATTR_LIST) return true;
  for (int i = 0; i < a->list.n; i++)
    if (!check_attr_value(v, &a->list.items[i])) return false;
  return true;
}

static bool check_attrs(Verifier *v, MlcAttrs attrs) {
  for (int i = 0; i < attrs.n; i++)
    if (!check_attr_value(v, &attrs.items[i].val)) return false;
  return true;
}

/* ---- statements -------------------------------------------------------- */

static bool check_stmt(Verifier *v, const MlcStmt *s);

static bool check_store(Verifier *v, const MlcStmt *s) {
  char ba[32], bb[32];
  const MlcBuffer *buf = s->store.buf;
  if (!check_access(v, "store to", buf, s->store.idx, s->store.n) || !check_expr(v, s->store.value))
    return false;
  MlcDType t = s->store.value->dtype;
  if (t.code != buf->dtype.code || t.bits != buf->dtype.bits)
    return fail(v, "value of dtype %s stored to buffer '%s' of %s", dts(t, ba), buf->name,
                dts(buf->dtype, bb));
  return true;
}

static bool check_loop_bound(Verifier *v, const MlcExpr *var, const char *what, const MlcExpr *e) {
  char ba[32], bb[32];
  if (!e) return fail(v, "loop '%s' has no %s", var->var.name, what);
  if (!check_expr(v, e)) return false;
  if (!mlc_dtype_is_int(e->dtype))
    return fail(v, "loop '%s': %s has dtype %s, expected an integer", var->var.name, what,
                dts(e->dtype, ba));
  if (!mlc_dtype_eq(e->dtype, var->dtype))
    return fail(v, "loop '%s': %s has dtype %s, loop var has %s", var->var.name, what,
                dts(e->dtype, ba), dts(var->dtype, bb));
  return true;
}

static bool check_for(Verifier *v, const MlcStmt *s) {
  const MlcExpr *var = s->loop.var;
  if (!var || var->kind != MLC_EXPR_VAR) return fail(v, "a loop over something that is not a var");
  if (!check_loop_bound(v, var, "min", s->loop.min) ||
      !check_loop_bound(v, var, "extent", s->loop.extent) || !bind_var(v, var, "loop var", true))
    return false;
  bool ok = check_attrs(v, s->loop.annotations) && check_stmt(v, s->loop.body);
  unbind_var(v, var);
  return ok;
}

/* an allocation's shape reads vars of the enclosing scope; its strides and
 * offset describe its own layout and bind nothing visible outside it */
static bool check_alloc(Verifier *v, const MlcBuffer *b, const char *what) {
  if (!b) return fail(v, "%s without a buffer", what);
  for (int d = 0; d < b->ndim; d++)
    if (!check_int(v, b->shape[d], "an allocated buffer's dimension")) return false;
  return bind_buffer(v, b, what);
}

static bool check_regions(Verifier *v, const MlcBufferRegion *r, int n, const char *what) {
  for (int i = 0; i < n; i++) {
    const MlcBuffer *buf = r[i].buf;
    if (!buf) return fail(v, "%s region without a buffer", what);
    if (!mlc_map_get(&v->bufs, buf))
      return fail(v, "%s region of buffer '%s', which is neither a parameter nor allocated in an "
                     "enclosing block", what, buf->name);
    for (int d = 0; d < buf->ndim; d++)
      if (!check_int(v, r[i].ranges[d].min, "a region bound") ||
          !check_int(v, r[i].ranges[d].extent, "a region bound"))
        return false;
  }
  return true;
}

static bool has_reduce_iter(const MlcBlock *b) {
  for (int i = 0; i < b->n_iters; i++)
    if (b->iters[i].kind == MLC_ITER_REDUCE) return true;
  return false;
}

/* What the realize reads (bindings, predicate, iter domains) is checked in
 * the enclosing scope, before the block's own iter vars are bound. */
static bool check_realize_outside(Verifier *v, const MlcStmt *s) {
  const MlcBlock *b = s->realize.block;
  char buf[32];
  if (s->realize.n != b->n_iters)
    return fail(v, "%d binding value%s for %d iter var%s", s->realize.n,
                s->realize.n == 1 ? "" : "s", b->n_iters, b->n_iters == 1 ? "" : "s");
  for (int i = 0; i < b->n_iters; i++) {
    const MlcIterVar *it = &b->iters[i];
    if (!it->var || it->var->kind != MLC_EXPR_VAR) return fail(v, "iter var %d is not a var", i);
    if (!it->dom.min || !it->dom.extent) return fail(v, "iter var '%s' has no domain", it->var->var.name);
    if (!check_expr(v, it->dom.min) || !check_expr(v, it->dom.extent)) return false;
    if (!mlc_dtype_is_int(it->dom.min->dtype) || !mlc_dtype_is_int(it->dom.extent->dtype))
      return fail(v, "iter var '%s' has a domain of dtype %s, expected an integer",
                  it->var->var.name,
                  dts(mlc_dtype_is_int(it->dom.min->dtype) ? it->dom.extent->dtype : it->dom.min->dtype, buf));
    if (!check_expr(v, s->realize.values[i])) return false;
  }
  return !s->realize.pred || check_expr(v, s->realize.pred);
}

static bool check_block_inside(Verifier *v, const MlcBlock *b) {
  for (int i = 0; i < b->n_iters; i++)
    if (!bind_var(v, b->iters[i].var, "iter var", false)) return false;
  for (int i = 0; i < b->n_allocs; i++)
    if (!check_alloc(v, b->allocs[i], "allocated")) return false;
  if (!check_regions(v, b->reads, b->n_reads, "read") ||
      !check_regions(v, b->writes, b->n_writes, "write") || !check_attrs(v, b->annotations))
    return false;
  if (b->init && !has_reduce_iter(b)) return fail(v, "has an init but no reduce iter var");
  if (b->init && !check_stmt(v, b->init)) return false;
  if (!b->body) return fail(v, "has no body");
  return check_stmt(v, b->body);
}

static bool check_realize(Verifier *v, const MlcStmt *s) {
  const MlcBlock *b = s->realize.block;
  if (!b) return fail(v, "a block realize without a block");
  const MlcBlock *outer = v->block;
  v->block = b;
  if (!check_realize_outside(v, s)) return false;
  v->depth += b->n_iters > 0;
  if (!check_block_inside(v, b)) return false;
  v->depth -= b->n_iters > 0;
  for (int i = 0; i < b->n_iters; i++) unbind_var(v, b->iters[i].var);
  for (int i = 0; i < b->n_allocs; i++) unbind_buffer(v, b->allocs[i]);
  v->block = outer;
  return true;
}

static bool check_seq(Verifier *v, const MlcStmt *s) {
  for (int i = 0; i < s->seq.n; i++)
    if (!check_stmt(v, s->seq.items[i])) return false;
  return true;
}

static bool check_let(Verifier *v, const MlcStmt *s) {
  if (!check_expr(v, s->let.value) || !bind_var(v, s->let.var, "let var", false)) return false;
  bool ok = check_stmt(v, s->let.body);
  unbind_var(v, s->let.var);
  return ok;
}

static bool check_allocate(Verifier *v, const MlcStmt *s) {
  if (!check_alloc(v, s->alloc.buf, "allocated")) return false;
  bool ok = check_stmt(v, s->alloc.body);
  unbind_buffer(v, s->alloc.buf);
  return ok;
}

static bool check_stmt(Verifier *v, const MlcStmt *s) {
  if (!s) return fail(v, "missing statement");
  switch (s->kind) {
  case MLC_STMT_STORE: return check_store(v, s);
  case MLC_STMT_FOR: return check_for(v, s);
  case MLC_STMT_BLOCK_REALIZE: return check_realize(v, s);
  case MLC_STMT_SEQ: return check_seq(v, s);
  case MLC_STMT_IF:
    return check_expr(v, s->if_.cond) && check_stmt(v, s->if_.then_s) &&
           (!s->if_.else_s || check_stmt(v, s->if_.else_s));
  case MLC_STMT_LET: return check_let(v, s);
  case MLC_STMT_ALLOCATE: return check_allocate(v, s);
  case MLC_STMT_EVALUATE: return check_expr(v, s->eval);
  }
  return fail(v, "unknown statement kind %d", (int)s->kind);
}

/* ---- the function ------------------------------------------------------ */

static bool bind_params(Verifier *v) {
  const MlcPrimFunc *f = v->f;
  for (int i = 0; i < f->n_params; i++)
    if (!bind_var(v, f->params[i].var, "parameter", false)) return false;
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b) continue;
    if (!bind_buffer(v, b, "parameter")) return false;
    for (int d = 0; d < b->ndim; d++) {
      mlc_expr_each_var(b->shape[d], bind_silently, v);
      if (b->strides) mlc_expr_each_var(b->strides[d], bind_silently, v);
    }
    mlc_expr_each_var(b->elem_offset, bind_silently, v);
  }
  return true;
}

bool mlc_verify_prim_func(MlcCtx *ctx, const MlcPrimFunc *f) {
  Verifier v = {.ctx = ctx, .f = f};
  bool ok = bind_params(&v) && check_attrs(&v, f->attrs) &&
            (f->body ? check_stmt(&v, f->body) : fail(&v, "has no body"));
  mlc_map_free(&v.vars);
  mlc_map_free(&v.bufs);
  return ok;
}
