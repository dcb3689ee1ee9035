/* conv_layout.c - a conv's weight layout, decided by measurement.
 *
 * The default schedules lay a conv's constant weight out blocked by output
 * channels (OIHW -> O/v I H W v, v the target's vector lanes), so that a
 * vector of channels is one load.  Whether that, another block width or
 * the plain layout makes the fastest kernel for one conv on one machine is
 * for measurement to say.  Each conv kernel of a model (a prim func after
 * fusion whose 4-D float32 weight every call passes as a constant) has
 * alternatives: the kernel as it is (OIHW), and the kernel with its weight
 * blocked by 8 and by 16 output channels (the default's blocks on AVX2 and
 * on AVX-512) where the block divides the channels.  Each alternative is a
 * prim func of its own, the weight param transformed by transform_layout,
 * so each is a task tuned and recorded like any kernel, under its own
 * workload key.  A build with records gives the call the layout whose
 * kernel has the fastest record on the build's target: the kernel is
 * replaced by that alternative, whose "layout_rewrites" then lays the
 * constant weight out at compile time.  Without a record for any of them
 * the kernel is left as it is, to the default schedules. */
#include "tune/tune_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_CONVS = 64 };

static const int block_widths[] = {8, 16};

/* ---- which kernels are convs ----------------------------------------------------------- */

typedef struct FirstLoad { const MlcBuffer *buf; const MlcExpr *load; } FirstLoad;

static bool first_load(MlcVisitor *v, const MlcExpr *e) {
  FirstLoad *fl = v->user;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == fl->buf && !fl->load) fl->load = e;
  return !fl->load;
}

static bool is_spatial_iter(const MlcBlock *b, const MlcExpr *var) {
  for (int i = 0; i < b->n_iters; i++)
    if (b->iters[i].var == var) return b->iters[i].kind == MLC_ITER_SPATIAL;
  return false;
}

/* param k of f is a conv weight: 4-D float32 of constant shape, read by a
 * reduction block that stores into a 4-D output whose dim 1 (channels) is
 * indexed by the spatial iter var indexing the weight's dim 0.  *block:
 * that block's name. */
static bool conv_weight(const MlcPrimFunc *f, int k, const char **block) {
  const MlcBuffer *w = f->params[k].buf;
  int64_t d;
  if (!w || w->ndim != 4 || w->dtype.code != MLC_TC_FLOAT || w->dtype.bits != 32 || w->dtype.lanes != 1) return false;
  for (int i = 0; i < 4; i++)
    if (!mlc_e_is_const_int(w->shape[i], &d) || d <= 0) return false;
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(f, bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++) {
    const MlcBlock *b = bs[i].b;
    const MlcStmt *st = b->body;
    if (!b->init || !st || st->kind != MLC_STMT_STORE || st->store.n != 4) continue;
    FirstLoad fl = {w, NULL};
    MlcVisitor vis = {.user = &fl, .expr = first_load};
    mlc_visit_expr(&vis, st->store.value);
    if (!fl.load || fl.load->load.n != 4) continue;
    const MlcExpr *o = fl.load->load.idx[0];
    if (o->kind == MLC_EXPR_VAR && o == st->store.idx[1] && is_spatial_iter(b, o)) return *block = b->name, true;
  }
  return false;
}

static bool lists_param(const MlcAttrValue *v, int k) {
  for (int i = 0; v && v->kind == MLC_ATTR_LIST && i < v->list.n; i++)
    if (v->list.items[i].kind == MLC_ATTR_INT && v->list.items[i].i == k) return true;
  return false;
}

typedef struct Conv {
  int func;          /* index in the kernels' module */
  int k;             /* the weight param */
  const char *block; /* the reduction reading it */
  int calls;
} Conv;

typedef struct Count { const char *name; int n; } Count;

static bool count_ref(MlcVisitor *v, const MlcGExpr *e) {
  Count *c = v->user;
  if (e->kind == MLC_G_GLOBAL && e->str == c->name) c->n++;
  return true;
}

static int calls_of(const MlcModule *m, const char *name) {
  Count c = {name, 0};
  MlcVisitor vis = {.user = &c, .gexpr = count_ref};
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_GRAPH) mlc_visit_gfunc(&vis, m->funcs[i].graph);
  return c.n;
}

static bool gpu_target(const MlcTuneTarget *t) {
  MlcGpuApi api;
  return t && mlc_tune_gpu_from_name(t->features, &api);
}

/* the conv kernels of k (a module after the graph passes up to dead code;
 * not for a GPU target, whose kernels have no such choice); -1 + error */
static int find_convs(MlcCtx *ctx, const MlcModule *k, const MlcTuneTarget *t, Conv *out, int cap) {
  if (gpu_target(t)) return 0;
  const MlcModule *marked = mlc_pass_mark_layout_free(ctx, k);
  if (!marked) return -1;
  const char *key = mlc_intern(ctx, "layout_free_buffers");
  int n = 0;
  for (int i = 0; i < marked->n_funcs && n < cap; i++) {
    const MlcFunc *fn = &marked->funcs[i];
    if (fn->kind != MLC_FUNC_PRIM || mlc_attrs_get(fn->prim->attrs, mlc_intern(ctx, "tuned"))) continue;
    const MlcAttrValue *free_params = mlc_attrs_get(fn->prim->attrs, key);
    for (int p = 0; p < fn->prim->n_params; p++) {
      const char *block;
      if (!lists_param(free_params, p) || !conv_weight(fn->prim, p, &block)) continue;
      out[n++] = (Conv){i, p, block, calls_of(k, fn->name)};
      break;
    }
  }
  return n;
}

/* ---- the alternatives -------------------------------------------------------------------- */

/* fn with its weight (param k, read by block) laid out O/v I H W v; NULL +
 * error when the schedule refuses it */
static const MlcPrimFunc *blocked(MlcCtx *ctx, const MlcFunc *fn, int k, const char *block, int v) {
  const char *key = mlc_intern(ctx, "layout_free_buffers");
  MlcAttrValue item = {.kind = MLC_ATTR_INT, .i = k};
  MlcAttrValue list = {.kind = MLC_ATTR_LIST, .list = {mlc_arena_dup(&ctx->arena, &item, sizeof item), 1}};
  MlcPrimFunc *g = mlc_arena_dup(&ctx->arena, fn->prim, sizeof *g);
  g->attrs = mlc_attrs_with(ctx, fn->prim->attrs, key, &list);
  MlcFunc one = {.kind = MLC_FUNC_PRIM, .name = fn->name, .prim = g};
  const MlcModule *m = mlc_module_new(ctx, mlc_intern(ctx, "conv"), &one, 1, (MlcAttrs){0});
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, fn->name, 0) : NULL;
  if (!s) return NULL;
  char script[512];
  int len = snprintf(script, sizeof script,
                     "b = sch.get_block(\"%s\")\n"
                     "sch.transform_layout(b, \"%s\", lambda a0, a1, a2, a3: (a0 // %d, a1, a2, a3, a0 %% %d))\n",
                     block, fn->prim->params[k].buf->name, v, v);
  const MlcPrimFunc *out = NULL;
  if (len > 0 && (size_t)len < sizeof script && mlc_sch_run_script(s, "layout", script, (size_t)len)) {
    MlcPrimFunc *r = mlc_arena_dup(&ctx->arena, mlc_sch_module(s)->funcs[0].prim, sizeof *r);
    r->attrs = mlc_attrs_with(ctx, r->attrs, key, NULL); /* the permission has served */
    out = r;
  }
  mlc_sch_free(s);
  return out;
}

/* the alternatives of conv c of k: [0] the kernel itself, then its weight
 * blocked by each width that divides the channels; their count (at least
 * 1: a refused layout is left out, its error cleared) */
static int alternatives(MlcCtx *ctx, const MlcModule *k, const Conv *c, const MlcPrimFunc **alt, const char **name) {
  const MlcFunc *fn = &k->funcs[c->func];
  int64_t o = 0;
  mlc_e_is_const_int(fn->prim->params[c->k].buf->shape[0], &o);
  int n = 0;
  alt[n] = fn->prim, name[n++] = mlc_intern(ctx, "OIHW");
  for (size_t i = 0; i < sizeof block_widths / sizeof *block_widths; i++) {
    int v = block_widths[i];
    if (o % v) continue;
    const MlcPrimFunc *b = blocked(ctx, fn, c->k, c->block, v);
    if (!b) {
      mlc_clear_error(ctx);
      continue;
    }
    alt[n] = b, name[n++] = mlc_internf(ctx, "OIHW%do", v);
  }
  return n;
}

static const char *weight_shape(MlcCtx *ctx, const MlcBuffer *w) {
  int64_t d[4] = {0};
  for (int i = 0; i < 4; i++) mlc_e_is_const_int(w->shape[i], &d[i]);
  return mlc_internf(ctx, "%lldx%lldx%lldx%lld", (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3]);
}

/* the choice for conv c of k made by db on t (db NULL: none measured) */
static MlcTuneLayoutChoice choose(MlcCtx *ctx, const MlcModule *k, const Conv *c, const MlcTuneDB *db,
                                  const MlcTuneTarget *t, const MlcPrimFunc **alt) {
  MlcTuneLayoutChoice ch = {.kernel = k->funcs[c->func].name, .calls = c->calls, .chosen = -1,
                            .shape = weight_shape(ctx, k->funcs[c->func].prim->params[c->k].buf)};
  ch.n = alternatives(ctx, k, c, alt, ch.layout);
  for (int i = 0; i < ch.n; i++) {
    ch.workload[i] = mlc_tune_workload_hash(ctx, alt[i]);
    const MlcTuneRecord *r = db && t ? mlc_tune_db_best(db, ch.workload[i], t) : NULL;
    ch.seconds[i] = r ? r->seconds : -1;
    if (r && (ch.chosen < 0 || r->seconds < ch.seconds[ch.chosen])) ch.chosen = i;
  }
  return ch;
}

/* ---- the uses ------------------------------------------------------------------------------- */

MlcModule *tune_choose_layouts(MlcCtx *ctx, const MlcModule *k, const MlcTuneDB *db, const MlcTuneTarget *t,
                               bool *relaid) {
  *relaid = false;
  Conv cs[MAX_CONVS];
  int n = find_convs(ctx, k, t, cs, MAX_CONVS);
  if (n < 0) return NULL;
  MlcFunc *fs = NULL;
  for (int i = 0; i < n; i++) {
    const MlcPrimFunc *alt[MLC_TUNE_MAX_LAYOUTS];
    MlcTuneLayoutChoice ch = choose(ctx, k, &cs[i], db, t, alt);
    if (ch.chosen <= 0) continue; /* the kernel as it is */
    if (!fs) fs = mlc_arena_dup(&ctx->arena, k->funcs, sizeof *fs * (size_t)k->n_funcs);
    fs[cs[i].func].prim = (MlcPrimFunc *)alt[ch.chosen];
    *relaid = true;
  }
  return fs ? mlc_module_new(ctx, k->name, fs, k->n_funcs, k->attrs) : (MlcModule *)k;
}

MlcModule *tune_add_layout_tasks(MlcCtx *ctx, const MlcModule *k, const MlcTuneTarget *t) {
  Conv cs[MAX_CONVS];
  int n = find_convs(ctx, k, t, cs, MAX_CONVS);
  if (n <= 0) return n < 0 ? NULL : (MlcModule *)k;
  MlcFunc *fs = mlc_arena_array(&ctx->arena, (size_t)(k->n_funcs + n * MLC_TUNE_MAX_LAYOUTS), sizeof *fs);
  memcpy(fs, k->funcs, sizeof *fs * (size_t)k->n_funcs);
  int nf = k->n_funcs;
  for (int i = 0; i < n; i++) {
    const MlcPrimFunc *alt[MLC_TUNE_MAX_LAYOUTS];
    const char *names[MLC_TUNE_MAX_LAYOUTS];
    int na = alternatives(ctx, k, &cs[i], alt, names);
    const char *kernel = k->funcs[cs[i].func].name;
    for (int a = 1; a < na; a++) {
      MlcPrimFunc *f = mlc_arena_dup(&ctx->arena, alt[a], sizeof *f);
      const char *name = mlc_internf(ctx, "%s_%s", kernel, names[a]);
      for (int j = 0; mlc_module_find(k, name); j++) name = mlc_internf(ctx, "%s_%s_%d", kernel, names[a], j);
      MlcAttrValue calls = {.kind = MLC_ATTR_INT, .i = cs[i].calls};
      MlcAttrValue layout = {.kind = MLC_ATTR_STR, .s = names[a]};
      f->attrs = mlc_attrs_with(ctx, f->attrs, mlc_intern(ctx, "calls"), &calls);
      f->attrs = mlc_attrs_with(ctx, f->attrs, mlc_intern(ctx, "weight_layout"), &layout);
      MlcAttrValue of = {.kind = MLC_ATTR_STR, .s = kernel}; /* the tasks of one call (tune.c) */
      f->attrs = mlc_attrs_with(ctx, f->attrs, mlc_intern(ctx, "layout_of"), &of);
      f->name = name;
      fs[nf++] = (MlcFunc){.kind = MLC_FUNC_PRIM, .name = name, .prim = f};
    }
  }
  return mlc_module_new(ctx, k->name, fs, nf, k->attrs);
}

int mlc_tune_layout_choices(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *t,
                            MlcTuneLayoutChoice *out, int cap) {
  bool graph = false;
  for (int i = 0; i < m->n_funcs; i++) graph |= m->funcs[i].kind == MLC_FUNC_GRAPH;
  if (!graph) return 0;
  const MlcModule *k = tune_graph_kernels(ctx, m, db, t, NULL, NULL);
  if (!k) return -1;
  Conv cs[MAX_CONVS];
  int n = find_convs(ctx, k, t, cs, MAX_CONVS);
  if (n > cap) n = cap;
  for (int i = 0; i < n; i++) {
    const MlcPrimFunc *alt[MLC_TUNE_MAX_LAYOUTS];
    out[i] = choose(ctx, k, &cs[i], db, t, alt);
  }
  return n;
}
