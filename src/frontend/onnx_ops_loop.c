/* onnx_ops_loop.c - the converter of ONNX's Loop.
 *
 * A loop whose trip count and condition are known at compile time is
 * unrolled: the body is imported once per iteration, in a scope of its own
 * (the names it defines are forgotten after each), with the iteration number
 * and the condition as constants and the values the iteration before left;
 * it reads the enclosing graphs' values by name.  The condition the body
 * returns must fold at each iteration (it usually passes its input on, or
 * compares the iteration number with a constant), since it decides whether
 * the next iteration is imported.  The scan outputs stack the iterations'
 * elements along a new first axis.  Iterations times body nodes is bounded
 * (MAX_UNROLLED); a loop over that is refused with its count.  A loop that
 * needs its trip count or condition at run time is refused: the executor
 * has no loops. */
#include "onnx_convert.h"

#define MAX_UNROLLED (1 << 20) /* body nodes imported in all */

typedef MLC_VEC(MlcGExpr *) ExprVec;

/* a known one-element value as a number; false when it is computed at run time */
static bool folded_scalar(const MlcGExpr *e, double *out) {
  if (!e || e->kind != MLC_G_CONST || mlc_tensor_data_numel(e->constant) != 1) return false;
  const MlcTensorData *d = e->constant;
  MlcDType t = d->dtype;
  const void *p = d->data;
  if (t.code == MLC_TC_BOOL || (t.code == MLC_TC_UINT && t.bits == 8)) *out = *(const uint8_t *)p;
  else if (t.code == MLC_TC_INT && t.bits == 64) *out = (double)*(const int64_t *)p;
  else if (t.code == MLC_TC_INT && t.bits == 32) *out = *(const int32_t *)p;
  else return false;
  return true;
}

/* the trip count (INT64_MAX when absent) and the first condition */
static bool loop_limits(MlcOnnxNode *n, int64_t *trips, bool *cond) {
  int64_t v[1];
  int got;
  double c;
  bool present;
  *trips = INT64_MAX, *cond = true;
  if (n->n_in > 0 && n->in[0] && !mlc_onnx__known_or_absent(n, 0))
    return mlc_onnx__node_fail(n, "a trip count computed at run time is not supported (only loops known at compile time "
                                  "are unrolled)");
  if (!mlc_onnx__known_ints(n, 0, v, 1, &got)) return false;
  if (got == 1) *trips = v[0];
  else if (got == 0) return mlc_onnx__node_fail(n, "the trip count must hold one value");
  if (n->n_in > 1 && n->in[1] && !mlc_onnx__known_or_absent(n, 1))
    return mlc_onnx__node_fail(n, "a condition computed at run time is not supported (only loops known at compile time "
                                  "are unrolled)");
  if (!mlc_onnx__known_scalar(n, 1, &c, &present)) return false;
  if (present) *cond = c != 0;
  return true;
}

static MlcGExpr *int64_const(MlcOnnxNode *n, int64_t v) {
  int64_t no_dims[1] = {0};
  MlcTensorData *d = mlc_tensor_data_new(n->im->ctx, MLC_I64_T, no_dims, 0);
  *(int64_t *)d->data = v;
  return mlc_g_const(n->im->ctx, d);
}

/* each iteration's scan output j has the shape of the first one's */
static bool same_shapes(MlcOnnxNode *n, MlcGExpr **items, int64_t k, int j) {
  const MlcSInfo *a = mlc_onnx__tensor_sinfo(items[0]);
  for (int64_t t = 1; t < k; t++) {
    const MlcSInfo *b = mlc_onnx__tensor_sinfo(items[t]);
    bool same = a && b && mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) && a->tensor.ndim == b->tensor.ndim;
    for (int d = 0; same && d < a->tensor.ndim; d++) same = mlc_expr_same(a->tensor.shape[d], b->tensor.shape[d]);
    if (!same)
      return mlc_onnx__node_fail(n, "scan output %d changes its shape or dtype at iteration %lld, which is not supported", j,
                                 (long long)t);
  }
  return true;
}

static bool run_iterations(MlcOnnxNode *n, const Onnx__GraphProto *g, int nc, int k, int64_t trips, bool cond,
                           MlcGExpr **state, ExprVec *elems) {
  MlcGExpr *ins[MLC_ONNX_MAX_IO], *outs[MLC_ONNX_MAX_IO];
  int64_t per = (int64_t)g->n_node + 1;
  for (int64_t t = 0; t < trips && cond; t++) {
    if (t >= MAX_UNROLLED / per)
      return mlc_onnx__node_fail(n, "more than %lld iterations of a %zu-node body are not supported (it is unrolled, up to "
                                    "%d body nodes in all)",
                                 (long long)t, g->n_node, MAX_UNROLLED);
    ins[0] = int64_const(n, t);
    ins[1] = mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_BOOL, 1));
    for (int i = 0; i < nc; i++) ins[2 + i] = state[i];
    if (!mlc_onnx__import_body(n, g, ins, nc + 2, outs, 1 + nc + k)) return false;
    double c;
    if (!folded_scalar(outs[0], &c))
      return mlc_onnx__node_fail(n, "iteration %lld: a condition the body computes at run time is not supported (only "
                                    "loops known at compile time are unrolled)",
                                 (long long)t);
    cond = c != 0;
    for (int i = 0; i < nc; i++) state[i] = outs[1 + i];
    for (int j = 0; j < k; j++) mlc_vec_push(&elems[j], outs[1 + nc + j]);
  }
  return true;
}

bool mlc_onnx__conv_loop(MlcOnnxNode *n) {
  const Onnx__AttributeProto *ba = mlc_onnx__attr(n, "body");
  if (!ba || !ba->g) return mlc_onnx__node_fail(n, "body must be a graph");
  const Onnx__GraphProto *g = ba->g;
  int nc = n->n_in - 2, k = (int)g->n_output - 1 - nc;
  if (nc < 0 || k < 0 || (int)g->n_input != nc + 2 || n->n_out != nc + k)
    return mlc_onnx__node_fail(n, "%d inputs and %d outputs do not fit a body of %zu inputs and %zu outputs", n->n_in,
                               n->n_out, g->n_input, g->n_output);
  int64_t trips;
  bool cond;
  if (!loop_limits(n, &trips, &cond)) return false;
  MlcGExpr *state[MLC_ONNX_MAX_IO];
  for (int i = 0; i < nc; i++)
    if (!(state[i] = mlc_onnx__input(n, 2 + i))) return false;
  ExprVec elems[MLC_ONNX_MAX_IO] = {{0}};
  bool ok = run_iterations(n, g, nc, k, trips, cond, state, elems);
  for (int i = 0; ok && i < nc; i++) n->out[i] = state[i];
  for (int j = 0; ok && j < k; j++) {
    int64_t len = (int64_t)elems[j].len;
    if (len == 0) ok = mlc_onnx__node_fail(n, "scan output %d of a loop that runs no iteration is not supported", j);
    else ok = same_shapes(n, elems[j].data, len, j) && (n->out[nc + j] = mlc_onnx__stack(n, elems[j].data, len, 0));
  }
  for (int j = 0; j < k; j++) mlc_vec_free(&elems[j]);
  return ok;
}
