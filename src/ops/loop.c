/* loop.c - R.loop: a graph function of the module run repeatedly by the
 * executor, as ONNX's Loop runs its body.
 *
 *   lv = R.loop(cls.body, trips, cond, (v0, v1), (x,), count=[n],
 *               scan_shapes=[[4]], scan_dtypes=["float32"])
 *
 * runs body(i, c, v0, v1, x) for i = 0, 1, ... while i < trips and the
 * condition holds (cond first, then what the body returned); the body
 * returns (c', v0', v1', e0, ...): the next condition, the values carried to
 * the next iteration, and one element of each scan output.  `outer` are the
 * values of the enclosing function the body reads, passed unchanged to each
 * iteration.  The result is (v0, v1, s0, ...): the values the last
 * iteration left and the scan outputs, each the iterations' elements stacked
 * along a new first axis of length n, the fresh size var `count` names,
 * bound when the loop ends (as tensor_to_shape binds its vars).  The carried
 * values keep their shapes from one iteration to the next; the elements'
 * shapes and dtypes are given here, since the op's struct info cannot look
 * into the module (the executor checks them against the body's result).
 * The loop is a call of a function value rather than a construct of its
 * own: every pass already handles calls, and the body, a graph function, is
 * legalized, fused and planned like any other. */
#include <string.h>

#include "ops/op_internal.h"

/* parameter p: a 0-d or one-element tensor of dtype t */
static bool scalar_param(MlcCtx *ctx, const MlcOpArgs *a, const char *p, MlcDType t) {
  const MlcSInfo *s = mlc_op_tensor(ctx, a, mlc_op_param(a, p), true);
  if (!s) return false;
  bool one = s->tensor.shape != NULL;
  for (int d = 0; one && d < s->tensor.ndim; d++) {
    int64_t v;
    one = mlc_e_is_const_int(s->tensor.shape[d], &v) && v == 1;
  }
  char b[32];
  if (!one || !mlc_dtype_eq(s->tensor.dtype, t))
    return mlc_op_fail(ctx, a, "%s: expected a %s tensor of one element, got %s", p, mlc_dtype_str(t, b),
                       mlc_op_sinfo_str(ctx, s));
  return true;
}

/* the tuple parameter p's fields, each a tensor of known shape and dtype */
static bool tensor_tuple(MlcCtx *ctx, const MlcOpArgs *a, const char *p, const MlcSInfo *const **out, int *n) {
  const MlcSInfo *s = a->val[mlc_op_param(a, p)]->sinfo;
  if (!s || s->kind != MLC_SINFO_TUPLE) return mlc_op_fail(ctx, a, "%s: expected a tuple of tensors", p);
  for (int i = 0; i < s->tuple.n; i++) {
    const MlcSInfo *f = s->tuple.fields[i];
    if (!f || f->kind != MLC_SINFO_TENSOR || !f->tensor.shape || f->tensor.dtype.code == MLC_TC_VOID)
      return mlc_op_fail(ctx, a, "%s[%d]: expected a tensor of known shape and dtype", p, i);
  }
  *out = (const MlcSInfo *const *)s->tuple.fields;
  *n = s->tuple.n;
  return true;
}

/* scan output j's element: scan_shapes[j] and scan_dtypes[j] */
static MlcSInfo *scan_elem(MlcCtx *ctx, const MlcOpArgs *a, const MlcAttrValue *shapes, const MlcAttrValue *dtypes,
                           int j, MlcExpr *count) {
  const MlcAttrValue *sv = &shapes->list.items[j], *dv = &dtypes->list.items[j];
  MlcDType t;
  if (dv->kind == MLC_ATTR_DTYPE) t = dv->dtype;
  else if (dv->kind != MLC_ATTR_STR || !mlc_dtype_parse(dv->s, &t))
    return mlc_op_fail(ctx, a, "scan_dtypes[%d]: expected a dtype", j), NULL;
  if (sv->kind != MLC_ATTR_LIST) return mlc_op_fail(ctx, a, "scan_shapes[%d]: expected a list of dims", j), NULL;
  MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)sv->list.n + 1, sizeof *dims);
  dims[0] = count;
  for (int d = 0; d < sv->list.n; d++)
    if (!(dims[d + 1] = mlc_op_shape_dim(ctx, &sv->list.items[d])))
      return mlc_op_fail(ctx, a, "scan_shapes[%d]: dim %d is not a non-negative int or an int64 expression", j, d), NULL;
  return mlc_op_tensor_sinfo(ctx, dims, sv->list.n + 1, t);
}

MlcSInfo *mlc_op_infer_loop(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcGExpr *body = a->val[mlc_op_param(a, "body")];
  if (body->kind != MLC_G_GLOBAL) return mlc_op_fail(ctx, a, "body: expected a graph function of the module (cls.f)"), NULL;
  const MlcSInfo *const *init, *const *outer;
  int n_init, n_outer, n_count;
  MlcExpr **count;
  if (!scalar_param(ctx, a, "trips", MLC_I64) || !scalar_param(ctx, a, "cond", MLC_BOOL) ||
      !tensor_tuple(ctx, a, "init", &init, &n_init) || !tensor_tuple(ctx, a, "outer", &outer, &n_outer) ||
      !mlc_op_attr_shape(ctx, a, "count", &count, &n_count))
    return NULL;
  if (n_count != 1 || count[0]->kind != MLC_EXPR_VAR)
    return mlc_op_fail(ctx, a, "count: expected one symbolic size, the number of iterations"), NULL;
  const MlcAttrValue *shapes = a->attr[mlc_op_param(a, "scan_shapes")], *dtypes = a->attr[mlc_op_param(a, "scan_dtypes")];
  int k = shapes && shapes->kind == MLC_ATTR_LIST ? shapes->list.n : 0;
  if ((shapes && shapes->kind != MLC_ATTR_LIST) || (dtypes && dtypes->kind != MLC_ATTR_LIST) ||
      (dtypes ? dtypes->list.n : 0) != k)
    return mlc_op_fail(ctx, a, "scan_shapes and scan_dtypes: expected two lists of the same length"), NULL;
  MlcSInfo **fields = mlc_arena_array(&ctx->arena, (size_t)(n_init + k + 1), sizeof *fields);
  for (int i = 0; i < n_init; i++) fields[i] = (MlcSInfo *)init[i];
  for (int j = 0; j < k; j++)
    if (!(fields[n_init + j] = scan_elem(ctx, a, shapes, dtypes, j, count[0]))) return NULL;
  return mlc_sinfo_tuple(ctx, fields, n_init + k);
}
