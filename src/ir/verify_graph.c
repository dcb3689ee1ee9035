/* verify_graph.c - well-formedness of graph functions: every graph var is
 * bound before it is used and visible where it is used, each var is bound
 * once, call_tir calls a module function, and every symbolic size is defined
 * before it is used.
 *
 * Graph vars are bound once in the whole function (as SSA), so "bound" is a
 * function-wide set; visibility is narrower: a sequence (the body, an if
 * branch) ends the scope of what it bound, and a dataflow block ends its
 * dataflow vars.  Symbolic TIR vars are defined by the first struct info that
 * introduces them (a parameter's, or a binding's annotation) and stay defined
 * for the rest of the function; struct info that only describes a value (the
 * out_sinfo of call_tir, shape values, the return) must use defined ones. */
#include "ir/verify.h"

#include <stdlib.h>
#include <string.h>

static char in_scope_mark;
#define IN_SCOPE ((void *)&in_scope_mark)

typedef struct GVerifier {
  MlcCtx *ctx;
  const MlcGFunc *f;
  MlcLoc loc;        /* the binding being checked, when it has a location */
  MlcMap bound;      /* every graph var bound so far (params included) */
  MlcMap visible;    /* graph var -> IN_SCOPE while usable, NULL after */
  MlcMap df_closed;  /* dataflow vars whose block has ended, for a clearer message */
  MlcMap sym;        /* symbolic TIR vars defined so far */
  MLC_VEC(const MlcGExpr *) open; /* vars bound in the scopes still open, innermost last */
} GVerifier;

static bool fail(GVerifier *g, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool fail(GVerifier *g, const char *fmt, ...) {
  MlcStrBuf sb = {0};
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  mlc_error(g->ctx, g->loc, "function \"%s\": %s", g->f->name, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return false;
}

/* what a node is, for "X must be Y, not Z" messages */
static const char *const gexpr_kind_desc[] = {
    [MLC_G_VAR] = "var", [MLC_G_DFVAR] = "dataflow var", [MLC_G_CONST] = "constant",
    [MLC_G_TUPLE] = "tuple", [MLC_G_GET_ITEM] = "tuple item", [MLC_G_CALL] = "call",
    [MLC_G_SHAPE] = "shape", [MLC_G_PRIM] = "prim value", [MLC_G_STR] = "string",
    [MLC_G_DTYPE] = "dtype", [MLC_G_OP] = "op", [MLC_G_GLOBAL] = "global function",
    [MLC_G_EXTERN] = "extern function", [MLC_G_IF] = "if", [MLC_G_SEQ] = "sequence",
};

static const char *describe(const MlcGExpr *e, MlcStrBuf *sb) {
  if (!e) return "nothing";
  const char *kind = gexpr_kind_desc[e->kind];
  switch (e->kind) {
  case MLC_G_VAR: case MLC_G_DFVAR: mlc_sb_printf(sb, "%s '%s'", kind, e->var.name); break;
  case MLC_G_OP: case MLC_G_EXTERN: case MLC_G_STR: mlc_sb_printf(sb, "%s '%s'", kind, e->str); break;
  default: mlc_sb_printf(sb, "a %s", kind); break;
  }
  return mlc_sb_cstr(sb);
}

/* ---- symbolic sizes ---------------------------------------------------- */

static bool sinfo_each_var(const MlcSInfo *s, bool (*fn)(void *, const MlcExpr *), void *user) {
  if (!s) return true;
  switch (s->kind) {
  case MLC_SINFO_OBJECT: return true;
  case MLC_SINFO_TENSOR:
    for (int i = 0; s->tensor.shape && i < s->tensor.ndim; i++)
      if (!mlc_expr_each_var(s->tensor.shape[i], fn, user)) return false;
    return true;
  case MLC_SINFO_TUPLE:
    for (int i = 0; i < s->tuple.n; i++)
      if (!sinfo_each_var(s->tuple.fields[i], fn, user)) return false;
    return true;
  case MLC_SINFO_SHAPE:
    for (int i = 0; s->shape.values && i < s->shape.ndim; i++)
      if (!mlc_expr_each_var(s->shape.values[i], fn, user)) return false;
    return true;
  case MLC_SINFO_PRIM: return mlc_expr_each_var(s->prim.value, fn, user);
  }
  return true;
}

static bool sym_define(void *g, const MlcExpr *var) {
  mlc_map_put(&((GVerifier *)g)->sym, var, IN_SCOPE);
  return true;
}

static bool sym_use(void *user, const MlcExpr *var) {
  GVerifier *g = user;
  if (mlc_map_get(&g->sym, var)) return true;
  return fail(g, "symbolic var '%s' is used before a parameter's or a binding's struct info "
                 "defines it", var->var.name);
}

static bool check_sym_expr(GVerifier *g, const MlcExpr *e) { return mlc_expr_each_var(e, sym_use, g); }
static bool check_sym_sinfo(GVerifier *g, const MlcSInfo *s) { return sinfo_each_var(s, sym_use, g); }

/* ---- graph vars -------------------------------------------------------- */

static bool bind(GVerifier *g, const MlcGExpr *var) {
  if (mlc_map_get(&g->bound, var)) return fail(g, "var '%s' is bound twice", var->var.name);
  mlc_map_put(&g->bound, var, IN_SCOPE);
  mlc_map_put(&g->visible, var, IN_SCOPE);
  mlc_vec_push(&g->open, var);
  return sinfo_each_var(var->sinfo, sym_define, g);
}

static void close_scope(GVerifier *g, size_t mark) {
  for (size_t i = mark; i < g->open.len; i++) mlc_map_put(&g->visible, g->open.data[i], NULL);
  g->open.len = mark;
}

static bool check_use(GVerifier *g, const MlcGExpr *var) {
  if (mlc_map_get(&g->visible, var)) return true;
  if (var->kind == MLC_G_DFVAR && mlc_map_get(&g->df_closed, var))
    return fail(g, "dataflow var '%s' is used outside its dataflow block", var->var.name);
  return fail(g, "use of undefined var '%s'", var->var.name);
}

/* ---- expressions ------------------------------------------------------- */

static bool check_gexpr(GVerifier *g, const MlcGExpr *e);

static bool check_list(GVerifier *g, MlcGExpr *const *items, int n) {
  for (int i = 0; i < n; i++)
    if (!check_gexpr(g, items[i])) return false;
  return true;
}

static bool is_op(const MlcGExpr *e, const char *name) {
  return e && e->kind == MLC_G_OP && e->str && strcmp(e->str, name) == 0;
}

static bool check_call(GVerifier *g, const MlcGExpr *e) {
  const MlcGExpr *callee = e->call.callee;
  if (is_op(callee, "call_tir") && (e->call.n < 1 || !e->call.args[0] ||
                                    e->call.args[0]->kind != MLC_G_GLOBAL)) {
    MlcStrBuf sb = {0};
    fail(g, "call_tir must call a global function, not %s",
         describe(e->call.n ? e->call.args[0] : NULL, &sb));
    mlc_vec_free(&sb);
    return false;
  }
  if (!check_gexpr(g, callee) || !check_list(g, e->call.args, e->call.n)) return false;
  for (int i = 0; i < e->call.n_sinfo_args; i++)
    if (!check_sym_sinfo(g, e->call.sinfo_args[i])) return false;
  return true;
}

static bool check_binding(GVerifier *g, const MlcBindingBlock *bb, const MlcBinding *b) {
  const MlcGExpr *var = b->var;
  if (!var || (var->kind != MLC_G_VAR && var->kind != MLC_G_DFVAR))
    return fail(g, "a binding binds something that is not a var");
  if (!b->value) return fail(g, "var '%s' is bound to nothing", var->var.name);
  if (!check_gexpr(g, b->value)) return false;
  if (var->kind == MLC_G_DFVAR && !bb->dataflow)
    return fail(g, "dataflow var '%s' is bound outside a dataflow block", var->var.name);
  return bind(g, var);
}

static bool check_binding_block(GVerifier *g, const MlcBindingBlock *bb) {
  size_t mark = g->open.len;
  for (int i = 0; i < bb->n; i++) {
    MlcLoc outer = g->loc;
    g->loc = bb->bindings[i].loc;
    if (!check_binding(g, bb, &bb->bindings[i])) return false;
    g->loc = outer;
  }
  if (!bb->dataflow) return true;
  for (size_t i = mark; i < g->open.len; i++)
    if (g->open.data[i]->kind == MLC_G_DFVAR) {
      mlc_map_put(&g->visible, g->open.data[i], NULL);
      mlc_map_put(&g->df_closed, g->open.data[i], IN_SCOPE);
    }
  return true;
}

static bool check_seq(GVerifier *g, const MlcGExpr *e) {
  size_t mark = g->open.len;
  for (int i = 0; i < e->seq.n; i++) {
    if (!e->seq.blocks[i]) return fail(g, "a missing binding block");
    if (!check_binding_block(g, e->seq.blocks[i])) return false;
  }
  bool ok = check_gexpr(g, e->seq.result);
  close_scope(g, mark);
  return ok;
}

static bool check_gexpr(GVerifier *g, const MlcGExpr *e) {
  if (!e) return fail(g, "missing expression");
  switch (e->kind) {
  case MLC_G_VAR: case MLC_G_DFVAR: return check_use(g, e);
  case MLC_G_CONST: case MLC_G_STR: case MLC_G_DTYPE: case MLC_G_OP: case MLC_G_GLOBAL:
  case MLC_G_EXTERN:
    return true;
  case MLC_G_TUPLE: return check_list(g, e->tuple.fields, e->tuple.n);
  case MLC_G_GET_ITEM: return check_gexpr(g, e->get_item.tuple);
  case MLC_G_CALL: return check_call(g, e);
  case MLC_G_SHAPE:
    for (int i = 0; i < e->shape.n; i++)
      if (!check_sym_expr(g, e->shape.values[i])) return false;
    return true;
  case MLC_G_PRIM: return check_sym_expr(g, e->prim);
  case MLC_G_IF:
    return check_gexpr(g, e->if_.cond) && check_gexpr(g, e->if_.then_e) &&
           check_gexpr(g, e->if_.else_e);
  case MLC_G_SEQ: return check_seq(g, e);
  }
  return fail(g, "unknown expression kind %d", (int)e->kind);
}

/* ---- the function ------------------------------------------------------ */

static bool check_params(GVerifier *g) {
  for (int i = 0; i < g->f->n_params; i++) {
    const MlcGExpr *p = g->f->params[i];
    if (!p || p->kind != MLC_G_VAR) return fail(g, "parameter %d is not a plain var", i);
    if (!bind(g, p)) return false;
  }
  return true;
}

bool mlc_verify_gfunc(MlcCtx *ctx, const MlcGFunc *f) {
  GVerifier g = {.ctx = ctx, .f = f};
  bool ok = check_params(&g) && check_gexpr(&g, f->body) && check_sym_sinfo(&g, f->ret);
  mlc_map_free(&g.bound);
  mlc_map_free(&g.visible);
  mlc_map_free(&g.df_closed);
  mlc_map_free(&g.sym);
  mlc_vec_free(&g.open);
  return ok;
}
