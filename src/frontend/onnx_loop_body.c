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

static MlcGExpr *i64_scalar(MlcOnnxNode *n, int64_t v) {
  return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_I64_T, (double)v));
}

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

/* A scan element *e of a static shape: as it is, or (one dim known only at
 * run time, a slice by the iteration number) copied to the shape the body
 * declares for it, the copy comparing element counts, so that dim too. */
static bool static_elem(MlcOnnxNode *n, const Onnx__ValueInfoProto *decl, MlcGExpr **e) {
  const MlcSInfo *a = mlc_onnx__tensor_sinfo(*e);
  if (!a || !a->tensor.shape || a->tensor.dtype.code == MLC_TC_VOID) return false;
  int64_t v[MLC_ONNX_MAX_RANK];
  int unknown = -1;
  for (int d = 0; d < a->tensor.ndim; d++)
    if (!mlc_onnx__const_dim(*e, d, &v[d])) {
      if (unknown >= 0) return false;
      unknown = d;
    }
  if (unknown < 0) return true;
  const Onnx__TypeProto *t = decl ? decl->type : NULL;
  const Onnx__TensorShapeProto *s = t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type
                                        ? t->tensor_type->shape : NULL;
  if (!s || (int)s->n_dim != a->tensor.ndim || a->tensor.ndim > MLC_ONNX_MAX_RANK) return false;
  for (int d = 0; d < a->tensor.ndim; d++) {
    const Onnx__TensorShapeProto__Dimension *dim = s->dim[d];
    if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE || dim->dim_value < 0 ||
        (d != unknown && dim->dim_value != v[d]))
      return false;
    v[d] = dim->dim_value;
  }
  MlcAttr sh = attr("shape", mlc_onnx__av_ints(n->im->ctx, v, a->tensor.ndim));
  return (*e = mlc_onnx__emit_attrs(n, "reshape_dynamic", e, 1, 1, &sh)) != NULL;
}

bool mlc_onnx__body_check(MlcOnnxBody *bf, MlcGExpr **outs, int k, Onnx__ValueInfoProto *const *decls) {
  MlcOnnxNode *n = bf->n;
  int nc = bf->n_carried;
  const MlcSInfo *c = mlc_onnx__tensor_sinfo(outs[0]);
  bool one = c && mlc_dtype_eq(c->tensor.dtype, MLC_BOOL);
  for (int d = 0; one && d < c->tensor.ndim; d++) {
    int64_t v;
    one = mlc_onnx__const_dim(outs[0], d, &v) && v == 1;
  }
  if (!one) return mlc_onnx__node_fail(n, "the body's condition must be a bool tensor of one element");
  for (int i = 0; i < nc; i++) {
    const MlcSInfo *a = mlc_onnx__tensor_sinfo(outs[1 + i]), *b = mlc_onnx__tensor_sinfo(bf->params.data[2 + i]);
    bool same = a && b && mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) && a->tensor.ndim == b->tensor.ndim && a->tensor.shape;
    int unproven = 0;
    for (int d = 0; same && d < a->tensor.ndim; d++) {
      int64_t x, y;
      if (mlc_expr_same(a->tensor.shape[d], b->tensor.shape[d])) continue;
      same = !(mlc_e_is_const_int(a->tensor.shape[d], &x) && mlc_e_is_const_int(b->tensor.shape[d], &y));
      unproven++;
    }
    if (!same || unproven > 1)
      return mlc_onnx__node_fail(n, "loop-carried value %d changes its shape or dtype in the body, which is not supported "
                                    "in a loop run at run time", i);
    /* one dim known only at run time (a slice by the iteration number): the
     * copy to the param's shape compares element counts, so that dim too */
    if (unproven) {
      MlcAttr sh = attr("shape", mlc_onnx__av_exprs(n->im->ctx, b->tensor.shape, b->tensor.ndim));
      if (!(outs[1 + i] = mlc_onnx__emit_attrs(n, "reshape_dynamic", &outs[1 + i], 1, 1, &sh))) return false;
    }
  }
  for (int j = 0; j < k; j++)
    if (!static_elem(n, decls[j], &outs[1 + nc + j]))
      return mlc_onnx__node_fail(n, "scan output %d without a static shape is not supported in a loop run at run time", j);
  return true;
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

MlcGExpr *mlc_onnx__body_step(MlcOnnxBody *b, MlcGExpr *trips, bool reverse) {
  MlcOnnxNode *n = b->n;
  MlcGExpr *it = b->params.data[0];
  if (!reverse) return it;
  MlcGExpr *last = mlc_onnx__emit2(n, "subtract", mlc_onnx__body_outer(b, trips), i64_scalar(n, 1));
  return last ? mlc_onnx__emit2(n, "subtract", last, it) : NULL;
}

/* y in reverse order along axis 0, whose length is len (trips' value) */
static MlcGExpr *flipped(MlcOnnxNode *n, MlcGExpr *y, MlcExpr *len, MlcGExpr *trips) {
  MlcCtx *ctx = n->im->ctx;
  int64_t T;
  if (mlc_e_is_const_int(len, &T)) {
    int64_t axis = 0, begin = T - 1, end = -T - 1, step = -1;
    MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &begin, 1)),
                    attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &step, 1))};
    return mlc_onnx__emit_attrs(n, "strided_slice", &y, 1, 4, a);
  }
  MlcGExpr *rargs[2] = {mlc_onnx__emit2(n, "subtract", trips, i64_scalar(n, 1)), i64_scalar(n, -1)};
  MlcAttr sh = attr("shape", mlc_onnx__av_exprs(ctx, &len, 1));
  MlcGExpr *idx = rargs[0] ? mlc_onnx__emit_attrs(n, "range_to_shape", rargs, 2, 1, &sh) : NULL;
  MlcGExpr *targs[2] = {y, idx};
  MlcAttr ax = attr("axis", mlc_onnx__av_int(0));
  return idx ? mlc_onnx__emit(n, "take", targs, 2, mlc_onnx__attrs(ctx, 1, &ax)) : NULL;
}

MlcGExpr *mlc_onnx__loop_stacked(MlcOnnxNode *n, MlcGExpr *res, int i, MlcExpr *len, MlcGExpr *trips, bool reverse) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *y = res ? mlc_onnx__item(n, res, i) : NULL;
  const MlcSInfo *s = y ? mlc_onnx__tensor_sinfo(y) : NULL;
  if (!s) return NULL;
  MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)s->tensor.ndim, sizeof *dims);
  memcpy(dims, s->tensor.shape, (size_t)s->tensor.ndim * sizeof *dims);
  dims[0] = len;
  MlcAttr sh = attr("shape", mlc_onnx__av_exprs(ctx, dims, s->tensor.ndim));
  y = mlc_onnx__emit_attrs(n, "reshape_dynamic", &y, 1, 1, &sh);
  return y && reverse ? flipped(n, y, len, trips) : y;
}
