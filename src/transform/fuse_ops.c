/* fuse_ops.c - mlc_pass_fuse_ops: group the prim func calls of each dataflow
 * block into the functions fusion will make, by their op patterns.
 *
 * Each call_tir binding of a dataflow block is a node; an edge goes from a
 * binding to each binding that uses its value.  A node can only fuse into
 * its immediate post-dominator (the first node every path from it to the
 * block's exit passes through), and only when every node on those paths
 * passes a test on its pattern; all of them then join the post-dominator's
 * group.  That is what keeps diamonds right: a value used by two branches
 * fuses only together with both branches and their join, never into one
 * branch alone, so every group computes exactly one value that leaves it.
 * The rules, by the pattern of the producer's group (arith.h patterns):
 *   phase 0: out-ewise-fusable (conv, matmul) absorbs an elementwise or
 *            broadcast epilogue: every node up to the post-dominator is at
 *            most a broadcast;
 *   phase 1: elementwise, broadcast and injective producers fuse into their
 *            consumers when every node on the way is at most injective, the
 *            post-dominator itself may also be a reduction or a conv/matmul
 *            ("injective chains into anything");
 *   phase 2: a reduction absorbs an elementwise or broadcast epilogue.
 * Opaque calls never fuse, nor do calls of functions with a symbolic shape,
 * a scalar parameter, more than one output, or a tuning record (a tuned
 * kernel keeps its schedule).
 *
 * A group of two or more calls becomes a graph function with the attribute
 * Primitive = 1 (`fused_conv2d_add_relu`), taking the group's inputs and
 * returning its one value; the exit binding calls it and the other bindings
 * go.  Structurally equal groups share one function.  FuseTIR
 * (fuse_tir.c) then turns each such function into one prim func. */
#include "transform/pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcc/arith.h"

enum { MAX_GROUP = 64, MAX_NAME = 96 };

typedef MLC_VEC(int) IntVec;

typedef struct Node {
  const MlcBinding *b;
  MlcOpPattern pat;
  IntVec outs;     /* consumers in the block, distinct */
  bool external;   /* the value leaves the block */
  int pdom, depth; /* immediate post-dominator (-1: the exit) and depth under it */
  int parent;      /* union-find */
  MlcOpPattern gpat;
  int gsize;
} Node;

typedef struct Fuser {
  MlcCtx *ctx;
  const MlcModule *m;
  Node *nodes;
  int n;
  uint32_t *seen; /* == stamp: visited in the current walk */
  uint32_t stamp;  /* a new walk takes a new stamp instead of clearing seen */
} Fuser;

/* ---- nodes ------------------------------------------------------------------------ */

static bool static_buffer(const MlcBuffer *b) {
  for (int d = 0; d < b->ndim; d++)
    if (!mlc_e_is_const_int(b->shape[d], NULL)) return false;
  return true;
}

/* the prim func a fusable call_tir calls, else NULL */
const MlcPrimFunc *tf_fusable_callee(MlcCtx *ctx, const MlcModule *m, const MlcGExpr *v) {
  if (!tf_is_op(v->call.callee, "call_tir") || !tf_is_dps(v) || v->call.args[0]->kind != MLC_G_GLOBAL) return NULL;
  const MlcFunc *f = mlc_module_find(m, v->call.args[0]->str);
  const MlcSInfo *out = v->call.sinfo_args[0];
  const MlcGExpr *args = v->call.args[1];
  if (!f || f->kind != MLC_FUNC_PRIM || !out || out->kind != MLC_SINFO_TENSOR) return NULL;
  const MlcPrimFunc *pf = f->prim;
  if (pf->n_params != args->tuple.n + 1 || mlc_attrs_get(pf->attrs, mlc_intern(ctx, "tuned"))) return NULL;
  for (int i = 0; i < pf->n_params; i++)
    if (!pf->params[i].buf || !static_buffer(pf->params[i].buf)) return NULL;
  for (int i = 0; i < args->tuple.n; i++) {
    const MlcGExpr *a = args->tuple.fields[i];
    if (a->kind != MLC_G_VAR && a->kind != MLC_G_DFVAR && a->kind != MLC_G_CONST) return NULL;
  }
  return pf;
}

static int node_of(const MlcMap *index, const MlcGExpr *var) {
  return (int)(intptr_t)mlc_map_get(index, var) - 1;
}

typedef struct UseCtx { Fuser *f; const MlcMap *index; int consumer; } UseCtx;

static void add_edge(void *user, const MlcGExpr *var) {
  UseCtx *u = user;
  int p = node_of(u->index, var);
  if (p < 0 || p == u->consumer) return;
  IntVec *outs = &u->f->nodes[p].outs;
  for (size_t k = 0; k < outs->len; k++)
    if (outs->data[k] == u->consumer) return;
  mlc_vec_push(outs, u->consumer);
}

static void build_nodes(Fuser *f, const MlcBindingBlock *blk) {
  MlcMap index = {0};
  for (int i = 0; i < f->n; i++) {
    Node *nd = &f->nodes[i];
    nd->b = &blk->bindings[i];
    const MlcPrimFunc *callee = tf_fusable_callee(f->ctx, f->m, nd->b->value);
    nd->pat = callee ? mlc_prim_func_pattern(callee) : MLC_PATTERN_OPAQUE;
    nd->external = nd->b->var->kind == MLC_G_VAR; /* an output of the dataflow block */
    nd->parent = i;
    nd->gpat = nd->pat;
    nd->gsize = 1;
    mlc_map_put(&index, nd->b->var, (void *)(intptr_t)(i + 1));
  }
  for (int i = 0; i < f->n; i++) {
    UseCtx u = {f, &index, i};
    tf_each_use(f->nodes[i].b->value, add_edge, &u);
  }
  mlc_map_free(&index);
}

/* ---- post-dominators ------------------------------------------------------------------ */

static int up(const Fuser *f, int a) { return a < 0 ? -1 : f->nodes[a].pdom; }
static int depth(const Fuser *f, int a) { return a < 0 ? 0 : f->nodes[a].depth; }

static int lca(const Fuser *f, int a, int b) {
  while (a != b) {
    if (depth(f, a) >= depth(f, b)) a = up(f, a);
    else b = up(f, b);
    if (a < 0 || b < 0) return -1;
  }
  return a;
}

/* consumers come later in a block, so one backward sweep sees them first */
static void post_dominators(Fuser *f) {
  for (int i = f->n - 1; i >= 0; i--) {
    Node *nd = &f->nodes[i];
    int p = -1;
    if (!nd->external && nd->outs.len) {
      p = nd->outs.data[0];
      for (size_t k = 1; k < nd->outs.len && p >= 0; k++) p = lca(f, p, nd->outs.data[k]);
    }
    nd->pdom = p;
    nd->depth = depth(f, p) + 1;
  }
}

/* ---- groups ----------------------------------------------------------------------------- */

static int find(Fuser *f, int a) {
  while (f->nodes[a].parent != a) a = f->nodes[a].parent = f->nodes[f->nodes[a].parent].parent;
  return a;
}

typedef bool (*FuseCond)(MlcOpPattern kind, bool is_sink);

/* every node on a path from src (exclusive) to sink (inclusive) passes cond */
static bool path_ok(Fuser *f, int v, int sink, FuseCond cond) {
  if (f->seen[v] == f->stamp) return true;
  f->seen[v] = f->stamp;
  if (!cond(f->nodes[find(f, v)].gpat, v == sink)) return false;
  if (v == sink) return true;
  for (size_t k = 0; k < f->nodes[v].outs.len; k++)
    if (!path_ok(f, f->nodes[v].outs.data[k], sink, cond)) return false;
  return true;
}

static bool check_path(Fuser *f, int src, int sink, FuseCond cond) {
  f->stamp++;
  for (size_t k = 0; k < f->nodes[src].outs.len; k++)
    if (!path_ok(f, f->nodes[src].outs.data[k], sink, cond)) return false;
  return true;
}

static void join(Fuser *f, int v, int target) {
  int g = find(f, v);
  if (g == target) return;
  f->nodes[g].parent = target;
  if (f->nodes[g].gpat > f->nodes[target].gpat) f->nodes[target].gpat = f->nodes[g].gpat;
  f->nodes[target].gsize += f->nodes[g].gsize;
}

static void commit_(Fuser *f, int v, int sink, int target) {
  if (f->seen[v] == f->stamp) return;
  f->seen[v] = f->stamp;
  join(f, v, target);
  if (v == sink) return;
  for (size_t k = 0; k < f->nodes[v].outs.len; k++) commit_(f, f->nodes[v].outs.data[k], sink, target);
}

static void commit(Fuser *f, int src, int sink) {
  f->stamp++;
  commit_(f, src, sink, find(f, sink));
}

static bool upto_broadcast(MlcOpPattern k, bool is_sink) { return k <= MLC_PATTERN_BROADCAST; }
static bool into_anything(MlcOpPattern k, bool is_sink) {
  return k <= MLC_PATTERN_INJECTIVE || (is_sink && (k == MLC_PATTERN_REDUCE || k == MLC_PATTERN_OUT_EWISE_FUSABLE));
}

/* the condition under which node i's group may fuse into its
 * post-dominator in this phase, or NULL */
static FuseCond rule(MlcOpPattern gpat, int phase) {
  switch (gpat) {
  case MLC_PATTERN_OUT_EWISE_FUSABLE: return phase == 0 ? upto_broadcast : NULL;
  case MLC_PATTERN_ELEMWISE: case MLC_PATTERN_BROADCAST: case MLC_PATTERN_INJECTIVE:
    return phase == 1 ? into_anything : NULL;
  case MLC_PATTERN_REDUCE: return phase == 2 ? upto_broadcast : NULL;
  case MLC_PATTERN_OPAQUE: case MLC_PATTERN_COUNT: return NULL;
  }
  return NULL;
}

static void partition(Fuser *f) {
  for (int phase = 0; phase < 3; phase++)
    for (int i = 0; i < f->n; i++) {
      int g = find(f, i), sink = f->nodes[i].pdom;
      if (sink < 0 || find(f, sink) == g) continue;
      FuseCond cond = rule(f->nodes[g].gpat, phase);
      if (!cond || f->nodes[g].gsize + f->nodes[find(f, sink)].gsize > MAX_GROUP) continue;
      if (check_path(f, i, sink, cond)) commit(f, i, sink);
    }
}

/* ---- the functions -------------------------------------------------------------------- */

typedef struct Made {
  const char *base;     /* the name it was generated under, for comparing */
  const MlcGFunc *canon; /* generated under the base name */
  MlcFunc func;         /* as added to the module */
} Made;

typedef struct Plan {
  MlcMap action;  /* binding -> (void *)1: dropped, else the new value */
  MlcMap used;    /* function names taken */
  MLC_VEC(Made) made;
} Plan;

/* fused_ + the members' ops ("add3" is an add), the name a group's
 * function is generated and compared under */
static const char *fused_base(Fuser *f, const int *members, int n) {
  char name[MAX_NAME + 16] = "fused";
  size_t len = strlen(name);
  for (int i = 0; i < n && len < MAX_NAME; i++) {
    const char *op = mlc_kernel_op_name(f->ctx, f->nodes[members[i]].b->value->call.args[0]->str);
    int w = snprintf(name + len, sizeof name - len, "_%s", op);
    len += w > 0 ? (size_t)w : 0;
  }
  if (len >= sizeof name) len = sizeof name - 1;
  name[len] = 0;
  return mlc_intern(f->ctx, name);
}

static const char *fresh_name(MlcCtx *ctx, Plan *p, const char *base) {
  const char *out = base;
  for (int k = 1; mlc_map_has(&p->used, out); k++) out = mlc_internf(ctx, "%s%d", base, k);
  mlc_map_put(&p->used, out, (void *)out);
  return out;
}

static bool is_member(Fuser *f, int g, const MlcGExpr *var, const MlcMap *index) {
  int i = node_of(index, var);
  return i >= 0 && find(f, i) == g;
}

typedef struct Inputs { MLC_VEC(MlcGExpr *) v; } Inputs;

static void add_input(Inputs *in, MlcGExpr *e) {
  for (size_t k = 0; k < in->v.len; k++)
    if (in->v.data[k] == e) return;
  mlc_vec_push(&in->v, e);
}

/* the graph function of one group: params are the group's inputs, the body
 * its calls in order, the result the exit's value */
static MlcGFunc *group_func(Fuser *f, const char *name, const int *members, int n, Inputs *in,
                            const MlcMap *index, int g) {
  MlcCtx *ctx = f->ctx;
  MlcMap vmap = {0}; /* outer value -> the function's var */
  for (int i = 0; i < n; i++) {
    const MlcGExpr *args = f->nodes[members[i]].b->value->call.args[1];
    for (int a = 0; a < args->tuple.n; a++)
      if (!is_member(f, g, args->tuple.fields[a], index)) add_input(in, args->tuple.fields[a]);
  }
  MlcGExpr **params = mlc_arena_array(&ctx->arena, in->v.len ? in->v.len : 1, sizeof *params);
  for (size_t k = 0; k < in->v.len; k++) {
    MlcGExpr *e = in->v.data[k];
    const char *pn = e->kind == MLC_G_CONST ? mlc_internf(ctx, "c%zu", k) : e->var.name;
    params[k] = mlc_g_var(ctx, pn, e->sinfo, false);
    mlc_map_put(&vmap, e, params[k]);
  }
  MlcBinding *binds = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *binds);
  MlcGExpr *result = NULL;
  for (int i = 0; i < n; i++) {
    const MlcBinding *b = f->nodes[members[i]].b;
    const MlcGExpr *call = b->value, *targs = call->call.args[1];
    MlcGExpr **args = mlc_arena_array(&ctx->arena, (size_t)(targs->tuple.n ? targs->tuple.n : 1), sizeof *args);
    for (int a = 0; a < targs->tuple.n; a++) args[a] = mlc_map_get(&vmap, targs->tuple.fields[a]);
    MlcGExpr *v = mlc_g_call_tir(ctx, call->call.args[0], args, targs->tuple.n, call->call.sinfo_args[0]);
    MlcGExpr *var = mlc_g_var(ctx, b->var->var.name, b->var->sinfo, i < n - 1);
    if (!v || !var) break;
    mlc_map_put(&vmap, b->var, var);
    binds[i] = (MlcBinding){.var = var, .value = v, .loc = b->loc};
    result = var;
  }
  mlc_map_free(&vmap);
  if (!result) return NULL;
  MlcBindingBlock *blk = mlc_g_block(ctx, true, binds, n);
  MlcGExpr *body = blk ? mlc_g_seq(ctx, &blk, 1, result) : NULL;
  MlcAttr *attr = mlc_arena_array(&ctx->arena, 1, sizeof *attr);
  attr[0] = (MlcAttr){mlc_intern(ctx, "Primitive"), {.kind = MLC_ATTR_INT, .i = 1}};
  return body ? mlc_gfunc_new(ctx, name, params, (int)in->v.len, result->sinfo, body, (MlcAttrs){attr, 1}, true)
              : NULL;
}

/* one group: its function (an equal one made before, or new) and the
 * bindings' fate.  next[] links each group's members in block order from
 * its root g's first member first; members is scratch of the block's size. */
static bool plan_group(Fuser *f, Plan *p, int g, int first, const int *next, int *members, const MlcMap *index) {
  int n = 0;
  for (int i = first; i >= 0; i = next[i]) members[n++] = i;
  /* the last member is the one value leaving the group; any other use of
   * a member from outside would make the group wrong, so it stays unfused */
  for (int i = 0; i < n - 1; i++) {
    const Node *nd = &f->nodes[members[i]];
    if (nd->external) return true;
    for (size_t k = 0; k < nd->outs.len; k++)
      if (find(f, nd->outs.data[k]) != g) return true;
  }
  Inputs in = {0};
  const char *base = fused_base(f, members, n), *name = NULL;
  MlcGFunc *fn = group_func(f, base, members, n, &in, index, g);
  if (!fn) return mlc_vec_free(&in.v), false;
  for (size_t k = 0; k < p->made.len && !name; k++)
    if (p->made.data[k].base == base && mlc_gfunc_equal(p->made.data[k].canon, fn)) name = p->made.data[k].func.name;
  if (!name) {
    name = fresh_name(f->ctx, p, base);
    MlcGFunc *named = fn;
    if (name != base) {
      named = mlc_arena_dup(&f->ctx->arena, fn, sizeof *fn);
      named->name = name;
    }
    Made md = {base, fn, {MLC_FUNC_GRAPH, name, {.graph = named}}};
    mlc_vec_push(&p->made, md);
  }
  const MlcBinding *exit = f->nodes[members[n - 1]].b;
  MlcGExpr *call = mlc_g_call(f->ctx, mlc_g_global(f->ctx, name), in.v.data, (int)in.v.len, (MlcAttrs){0}, NULL, 0,
                              exit->var->sinfo);
  mlc_vec_free(&in.v);
  if (!call) return false;
  for (int i = 0; i < n - 1; i++) mlc_map_put(&p->action, f->nodes[members[i]].b, (void *)1);
  mlc_map_put(&p->action, exit, call);
  return true;
}

static bool plan_block(MlcCtx *ctx, const MlcModule *m, const MlcBindingBlock *blk, Plan *p) {
  if (!blk->dataflow || blk->n < 2) return true;
  Fuser f = {ctx, m, mlc_arena_array(&ctx->arena, (size_t)blk->n, sizeof(Node)), blk->n,
             mlc_arena_array(&ctx->arena, (size_t)blk->n, sizeof(uint32_t)), 0};
  memset(f.nodes, 0, (size_t)blk->n * sizeof(Node));
  memset(f.seen, 0, (size_t)blk->n * sizeof(uint32_t));
  build_nodes(&f, blk);
  post_dominators(&f);
  partition(&f);
  MlcMap index = {0};
  for (int i = 0; i < f.n; i++) mlc_map_put(&index, f.nodes[i].b->var, (void *)(intptr_t)(i + 1));
  /* each group's members, listed once for all groups (not a scan per group) */
  int *first = malloc((size_t)f.n * sizeof *first), *next = malloc((size_t)f.n * sizeof *next);
  int *members = malloc((size_t)f.n * sizeof *members);
  bool ok = first && next && members;
  if (!ok) mlc_error(ctx, ctx->build_loc, "fuse_ops: out of memory for a block of %d bindings", f.n);
  for (int i = 0; ok && i < f.n; i++) first[i] = -1;
  for (int i = f.n - 1; ok && i >= 0; i--) {
    int r = find(&f, i);
    next[i] = first[r];
    first[r] = i;
  }
  for (int i = 0; ok && i < f.n; i++)
    if (find(&f, i) == i && f.nodes[i].gsize > 1) ok = plan_group(&f, p, i, first[i], next, members, &index);
  free(first), free(next), free(members);
  mlc_map_free(&index);
  for (int i = 0; i < f.n; i++) mlc_vec_free(&f.nodes[i].outs);
  return ok;
}

static bool apply_plan(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Plan *p = rw->user;
  void *act = mlc_map_get(&p->action, b);
  if (act == (void *)1) return true;
  tf_emit(rw, b->var, act ? tf_subst(rw, act) : value, b->loc);
  return true;
}

MlcModule *mlc_pass_fuse_ops(MlcCtx *ctx, const MlcModule *m) {
  Plan p = {0};
  for (int i = 0; i < m->n_funcs; i++) mlc_map_put(&p.used, m->funcs[i].name, (void *)m->funcs[i].name);
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  bool ok = true;
  for (int i = 0; ok && i < m->n_funcs; i++) {
    const MlcFunc *fn = &m->funcs[i];
    if (fn->kind != MLC_FUNC_GRAPH || mlc_attrs_get(fn->graph->attrs, mlc_intern(ctx, "Primitive"))) continue;
    const MlcGExpr *body = fn->graph->body;
    for (int b = 0; ok && body->kind == MLC_G_SEQ && b < body->seq.n; b++) ok = plan_block(ctx, m, body->seq.blocks[b], &p);
    if (!ok) break;
    TfRw rw = {.ctx = ctx, .user = &p, .on_binding = apply_plan};
    MlcGFunc *nf = tf_rewrite_func(&rw, fn->graph, NULL);
    tf_rw_free(&rw);
    if (!nf) ok = false;
    else repl[i] = (MlcFunc){MLC_FUNC_GRAPH, fn->name, {.graph = nf}};
  }
  MlcFunc *extra = mlc_arena_array(&ctx->arena, p.made.len ? p.made.len : 1, sizeof *extra);
  for (size_t k = 0; k < p.made.len; k++) extra[k] = p.made.data[k].func;
  MlcModule *out = ok ? tf_module_with(ctx, m, repl, extra, (int)p.made.len) : NULL;
  mlc_map_free(&p.action);
  mlc_map_free(&p.used);
  mlc_vec_free(&p.made);
  return out;
}
