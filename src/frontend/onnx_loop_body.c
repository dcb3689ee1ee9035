/* onnx_loop_body.c - graph functions that converters build as the bodies of
 * R.loop calls (src/ops/loop.c): ONNX's Loop and Scan from their body
 * graphs, RNN, GRU and LSTM from the cell's ops.
 *
 * A body is built in a scope of its own: begin saves the importer's value
 * tables and bindings and starts empty ones, so the ops a converter emits
 * (or the nodes of a subgraph it imports) become the body's bindings; the
 * body reads the enclosing function's values only through params, which
 * outer() makes (constants stay constants); finish wraps the bindings into
 * the function, restores the enclosing scope and emits the R.loop call
 * there.  The params come in R.loop's order: the iteration number, the
 * condition, the carried values, then the outer values. */
#include <assert.h>
#include <string.h>

#include "onnx_convert.h"

static MlcGExpr *param(MlcOnnxImporter *im, const char *name, MlcSInfo *s) {
  return mlc_g_var(im->ctx, name, s, false);
}

void mlc_onnx__body_begin(MlcOnnxNode *n, MlcOnnxBody *b) {
  MlcOnnxImporter *im = n->im;
  MlcCtx *ctx = im->ctx;
  memset(b, 0, sizeof *b);
  b->n = n;
  b->values = im->values, b->known = im->known, b->bindings = im->bindings;
  im->values = (MlcMap){0}, im->known = (MlcMap){0}, im->bindings = (MlcOnnxBindings){0};
  MlcExpr *none[1];
  mlc_vec_push(&b->params, param(im, mlc_intern(ctx, "iter"), mlc_sinfo_tensor(ctx, none, 0, MLC_I64_T)));
  mlc_vec_push(&b->params, param(im, mlc_intern(ctx, "cond"), mlc_sinfo_tensor(ctx, none, 0, MLC_BOOL)));
}

MlcGExpr *mlc_onnx__body_carried(MlcOnnxBody *b, MlcSInfo *s) {
  MlcOnnxImporter *im = b->n->im;
  assert(b->outer.len == 0); /* the carried params come before the outer ones */
  MlcGExpr *p = param(im, mlc_internf(im->ctx, "carried%d", b->n_carried++), s);
  mlc_vec_push(&b->params, p);
  return p;
}

MlcGExpr *mlc_onnx__body_outer(MlcOnnxBody *b, MlcGExpr *v) {
  if (!v || v->kind == MLC_G_CONST) return v;
  for (size_t i = 0; i < b->outer.len; i++)
    if (b->outer.data[i] == v) return b->params.data[2 + b->n_carried + i];
  MlcOnnxImporter *im = b->n->im;
  MlcGExpr *p = param(im, mlc_internf(im->ctx, "outer%zu", b->outer.len), v->sinfo);
  mlc_vec_push(&b->params, p);
  mlc_vec_push(&b->outer, v);
  return p;
}

typedef MLC_VEC(const char *) NameVec;

/* the names g and its subgraphs read (`used`) and define (`defined`), interned */
static void scan_names(MlcCtx *ctx, const Onnx__GraphProto *g, MlcMap *defined, NameVec *used) {
  for (size_t i = 0; i < g->n_input; i++)
    if (g->input[i]->name) mlc_map_put(defined, mlc_intern(ctx, g->input[i]->name), (void *)1);
  for (size_t i = 0; i < g->n_initializer; i++)
    if (g->initializer[i]->name) mlc_map_put(defined, mlc_intern(ctx, g->initializer[i]->name), (void *)1);
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto *p = g->node[i];
    for (size_t j = 0; j < p->n_output; j++)
      if (p->output[j] && *p->output[j]) mlc_map_put(defined, mlc_intern(ctx, p->output[j]), (void *)1);
    for (size_t j = 0; j < p->n_input; j++)
      if (p->input[j] && *p->input[j]) mlc_vec_push(used, mlc_intern(ctx, p->input[j]));
    for (size_t j = 0; j < p->n_attribute; j++) {
      const Onnx__AttributeProto *a = p->attribute[j];
      if (a->g) scan_names(ctx, a->g, defined, used);
      for (size_t k = 0; k < a->n_graphs; k++) scan_names(ctx, a->graphs[k], defined, used);
    }
  }
  for (size_t i = 0; i < g->n_output; i++)
    if (g->output[i]->name && *g->output[i]->name) mlc_vec_push(used, mlc_intern(ctx, g->output[i]->name));
}

bool mlc_onnx__body_capture(MlcOnnxBody *b, const Onnx__GraphProto *g) {
  MlcOnnxNode *n = b->n;
  MlcOnnxImporter *im = n->im;
  MlcCtx *ctx = im->ctx;
  MlcMap defined = {0};
  NameVec used = {0};
  scan_names(ctx, g, &defined, &used);
  bool ok = true;
  for (size_t i = 0; ok && i < used.len; i++) {
    const char *name = used.data[i];
    MlcGExpr *v = mlc_map_has(&defined, name) || mlc_map_has(&im->values, name) ? NULL : mlc_map_get(&b->values, name);
    if (!v) continue; /* the body's own, or undefined (the import says so) */
    if (v->kind != MLC_G_CONST && !mlc_onnx__tensor_sinfo(v))
      ok = mlc_onnx__node_fail(n, "the body reads '%s', which is not a tensor", name);
    mlc_map_put(&im->values, name, mlc_onnx__body_outer(b, v));
    void *d = mlc_map_get(&b->known, name);
    if (d) mlc_map_put(&im->known, name, d);
  }
  mlc_map_free(&defined);
  mlc_vec_free(&used);
  return ok;
}

/* the body's bindings and result (outs) as a graph function added to the
 * module; its name, or NULL */
static const char *body_function(MlcOnnxBody *b, MlcGExpr **outs, int n_outs) {
  MlcOnnxImporter *im = b->n->im;
  MlcCtx *ctx = im->ctx;
  MlcOnnxBindings mine = im->bindings;
  MlcMap out_vars = {0}; /* what the block's result reads leaves the dataflow block, once */
  for (int i = 0; i < n_outs; i++)
    if (outs[i]->kind == MLC_G_DFVAR) {
      MlcGExpr *v = mlc_map_get(&out_vars, outs[i]);
      if (!v) {
        v = mlc_g_var(ctx, mlc_internf(ctx, "%s_out", outs[i]->var.name), outs[i]->sinfo, false);
        mlc_vec_push(&mine, ((MlcBinding){v, outs[i], ctx->build_loc}));
        mlc_map_put(&out_vars, outs[i], v);
      }
      outs[i] = v;
    }
  mlc_map_free(&out_vars);
  im->bindings = mine;
  const char *name = mlc_internf(ctx, "loop_body%zu", im->funcs.len);
  MlcGExpr *result = mlc_g_tuple(ctx, outs, n_outs);
  MlcBindingBlock *bb = result ? mlc_g_block(ctx, true, mlc_vec_to_arena(&ctx->arena, &mine), (int)mine.len) : NULL;
  MlcGExpr *body = bb ? mlc_g_seq(ctx, &bb, 1, result) : NULL;
  MlcGFunc *f = body ? mlc_gfunc_new(ctx, name, mlc_vec_to_arena(&ctx->arena, &b->params), (int)b->params.len,
                                     result->sinfo, body, (MlcAttrs){0}, true)
                     : NULL;
  if (!f) return NULL;
  mlc_vec_push(&im->funcs, ((MlcFunc){.kind = MLC_FUNC_GRAPH, .name = name, .graph = f}));
  return name;
}

MlcGExpr *mlc_onnx__body_finish(MlcOnnxBody *b, bool ok, MlcGExpr **outs, int k, MlcGExpr *trips, MlcGExpr *cond,
                                MlcGExpr **init) {
  MlcOnnxNode *n = b->n;
  MlcOnnxImporter *im = n->im;
  MlcCtx *ctx = im->ctx;
  int nc = b->n_carried;
  const char *name = ok ? body_function(b, outs, 1 + nc + k) : NULL;
  mlc_vec_free(&im->bindings);
  mlc_map_free(&im->values);
  mlc_map_free(&im->known);
  im->values = b->values, im->known = b->known, im->bindings = b->bindings;
  MlcGExpr *r = NULL;
  if (name) {
    MlcGExpr *args[5] = {mlc_g_global(ctx, name), trips, cond, mlc_g_tuple(ctx, init, nc),
                         mlc_g_tuple(ctx, b->outer.data, (int)b->outer.len)};
    MlcAttrValue *shapes = mlc_arena_array(&ctx->arena, (size_t)(k ? k : 1), sizeof *shapes);
    MlcAttrValue *dtypes = mlc_arena_array(&ctx->arena, (size_t)(k ? k : 1), sizeof *dtypes);
    bool typed = true;
    for (int j = 0; j < k; j++) {
      const MlcSInfo *e = mlc_onnx__tensor_sinfo(outs[1 + nc + j]);
      if (!e || !e->tensor.shape) {
        typed = mlc_onnx__node_fail(n, "scan element %d of the loop body has no known shape", j);
        break;
      }
      shapes[j] = mlc_onnx__av_exprs(ctx, e->tensor.shape, e->tensor.ndim);
      dtypes[j] = mlc_onnx__av_dtype(e->tensor.dtype);
    }
    MlcExpr *count = mlc_e_var(ctx, mlc_internf(ctx, "r%u", im->fresh++), MLC_I64_T);
    MlcAttr attrs[3] = {{"count", mlc_onnx__av_exprs(ctx, &count, 1)},
                        {"scan_shapes", {.kind = MLC_ATTR_LIST, .list = {shapes, k}}},
                        {"scan_dtypes", {.kind = MLC_ATTR_LIST, .list = {dtypes, k}}}};
    r = typed ? mlc_onnx__emit_attrs(n, "loop", args, 5, 3, attrs) : NULL;
  }
  mlc_vec_free(&b->params);
  mlc_vec_free(&b->outer);
  return r;
}
