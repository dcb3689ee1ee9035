/* legalize.c - mlc_pass_legalize_ops: op calls become call_tir of prim funcs
 * the op registry generates.
 *
 * The pass runs infer_sinfo first itself, since generating a prim func
 * needs every input's shape and dtype and the call_tir needs the result's.
 * A prim func is named after the op's last name component ("nn.relu" ->
 * "relu"); a second, different one gets "relu1", and so on, skipping names
 * the module already uses.  Structurally equal prim funcs are one: each new
 * one is generated under its base name and compared with those generated
 * before under the same base name (equality compares names and the
 * global_symbol attribute, so the stored copies keep the base name too).
 * Ops without a tensor-expression definition (allocations and other
 * builtins) stay as they are. */
#include "transform/pass.h"

#include <string.h>

#include "mlcc/ops.h"

typedef struct Gen {
  const char *base;        /* interned base name */
  const MlcPrimFunc *canon; /* generated under the base name */
  MlcFunc func;            /* as added to the module */
} Gen;

typedef MLC_VEC(MlcGExpr *) GExprVec;

typedef struct Legal {
  const MlcModule *m;
  MLC_VEC(Gen) gens;
  MlcMap used;             /* function names taken */
} Legal;

static const char *base_name(MlcCtx *ctx, const char *op) {
  const char *dot = strrchr(op, '.');
  return mlc_intern(ctx, dot ? dot + 1 : op);
}

static const char *fresh_name(MlcCtx *ctx, Legal *l, const char *base) {
  const char *name = base;
  for (int k = 1; mlc_map_has(&l->used, name); k++) name = mlc_internf(ctx, "%s%d", base, k);
  mlc_map_put(&l->used, name, (void *)name);
  return name;
}

/* f under another name: global_symbol follows the name */
static MlcPrimFunc *renamed(MlcCtx *ctx, const MlcPrimFunc *f, const char *name) {
  MlcPrimFunc *r = mlc_arena_dup(&ctx->arena, f, sizeof *f);
  r->name = name;
  const char *gs = mlc_intern(ctx, "global_symbol");
  if (!f->attrs.n) return r;
  r->attrs.items = mlc_arena_dup(&ctx->arena, f->attrs.items, (size_t)f->attrs.n * sizeof *f->attrs.items);
  for (int i = 0; i < r->attrs.n; i++)
    if (r->attrs.items[i].key == gs && r->attrs.items[i].val.kind == MLC_ATTR_STR) r->attrs.items[i].val.s = name;
  return r;
}

/* the prim func for the call: an equal one generated before, or a new one */
static const char *prim_for(MlcCtx *ctx, Legal *l, const MlcGExpr *call) {
  const char *base = base_name(ctx, call->call.callee->str);
  MlcPrimFunc *pf = mlc_op_to_prim_func(ctx, call, base);
  if (!pf) return NULL;
  for (size_t i = 0; i < l->gens.len; i++)
    if (l->gens.data[i].base == base && mlc_prim_func_equal(l->gens.data[i].canon, pf))
      return l->gens.data[i].func.name;
  const char *name = fresh_name(ctx, l, base);
  Gen g = {base, pf, {MLC_FUNC_PRIM, name, {.prim = name == base ? pf : renamed(ctx, pf, name)}}};
  mlc_vec_push(&l->gens, g);
  return name;
}

/* the op's tensor arguments in parameter order, tuple params flattened */
static bool tensor_args(MlcCtx *ctx, const MlcGExpr *call, GExprVec *out) {
  MlcOpArgs a;
  if (!mlc_op_match(ctx, call, &a)) return false;
  const char *sig = a.op->signature;
  for (int i = 0; i < a.n && sig && *sig; i++) {
    while (*sig == ' ') sig++;
    char kind = *sig;
    sig = strchr(sig, ' ');
    MlcGExpr *v = (MlcGExpr *)a.val[i];
    if (!v || (kind != 'T' && kind != 'U')) continue;
    if (kind == 'T') {
      mlc_vec_push(out, v);
      continue;
    }
    int n = v->sinfo->kind == MLC_SINFO_TUPLE ? v->sinfo->tuple.n : 0;
    for (int f = 0; f < n; f++)
      mlc_vec_push(out, v->kind == MLC_G_TUPLE ? v->tuple.fields[f] : mlc_g_get_item(ctx, v, f));
  }
  return true;
}

static bool legal_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Legal *l = rw->user;
  const MlcOpDef *op = value->kind == MLC_G_CALL && value->call.callee->kind == MLC_G_OP
                           ? mlc_op_find(value->call.callee->str) : NULL;
  if (!mlc_op_legalizable(op) || tf_is_dps(value)) {
    tf_emit(rw, b->var, value, b->loc);
    return true;
  }
  GExprVec args = {0};
  const char *name = tensor_args(rw->ctx, value, &args) ? prim_for(rw->ctx, l, value) : NULL;
  MlcGExpr *call = name ? mlc_g_call_tir(rw->ctx, mlc_g_global(rw->ctx, name), args.data, (int)args.len,
                                         value->sinfo)
                        : NULL;
  mlc_vec_free(&args);
  if (!call) return false;
  tf_emit(rw, b->var, call, b->loc);
  return true;
}

MlcModule *mlc_pass_legalize_ops(MlcCtx *ctx, const MlcModule *m0) {
  const MlcModule *m = mlc_pass_infer_sinfo(ctx, m0);
  if (!m) return NULL;
  Legal l = {.m = m};
  for (int i = 0; i < m->n_funcs; i++) mlc_map_put(&l.used, m->funcs[i].name, (void *)m->funcs[i].name);
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  MlcModule *out = NULL;
  int i = 0;
  for (; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    TfRw rw = {.ctx = ctx, .user = &l, .on_binding = legal_binding};
    MlcGFunc *nf = tf_rewrite_func(&rw, m->funcs[i].graph, NULL);
    tf_rw_free(&rw);
    if (!nf) break;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  if (i == m->n_funcs) {
    MlcFunc *extra = mlc_arena_array(&ctx->arena, l.gens.len ? l.gens.len : 1, sizeof *extra);
    for (size_t k = 0; k < l.gens.len; k++) extra[k] = l.gens.data[k].func;
    out = tf_module_with(ctx, m, repl, extra, (int)l.gens.len);
  }
  mlc_vec_free(&l.gens);
  mlc_map_free(&l.used);
  return out;
}
